/* The live test's fixture: a loop calling visit (out of line) and
 * visit_inl (always inlined) on items whose name is a char * member. The
 * test probes the PROBE lines, reading p->name:string, local, scale and
 * calls, and compares what BPF and tracefs read with what the program prints. */
#include <stdio.h>

struct item {
	int id;
	char *name;
	long weight;
};

/* A global (not static: printf could read it, so it is stored before
 * each call), read as @+OFFS in the PIE. */
long calls;

__attribute__((noinline)) long visit(struct item *p, int scale)
{
	long local = p->weight * scale + p->id;
	calls++;
	printf("visit: name=%s local=%ld scale=%d calls=%ld\n", p->name, local, scale, calls); /* PROBE visit */
	p->weight += scale; /* p and scale live across the call at -O2 */
	return local;
}

static inline __attribute__((always_inline)) long visit_inl(struct item *p, int scale)
{
	long local = p->weight * scale - p->id;
	calls++;
	printf("visit_inl: name=%s local=%ld scale=%d calls=%ld\n", p->name, local, scale, calls); /* PROBE visit_inl */
	p->weight -= scale;
	__asm__ volatile("" : : "r"(p)); /* keeps p at -O2, where q is its copy */
	return local;
}

int main(void)
{
	static char names[3][8] = {"alpha", "beta", "gamma"};
	/* The last name is NULL: glibc prints "(null)", a probe reads a
	 * fault. */
	struct item items[4] = {{1, names[0], 10}, {2, names[1], 200}, {3, names[2], -7}, {4, 0, 5}};
	long total = 0;

	for (int r = 1; r <= 2; r++) {
		for (struct item *q = items; q < items + 4; q++) {
			total += visit(q, r + 1);
			total += visit_inl(q, r);
		}
	}
	printf("total=%ld\n", total);
	return 0;
}
