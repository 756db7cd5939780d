/*
 * tiny.c - the smallest program with the DWARF shapes a resolution reads,
 * built without libc into seeds of a few KB for the fuzz targets (see
 * build.sh): parameters and locals with location lists at -O2, a struct
 * with a nested struct, an array and a bitfield, a pointer chain, an
 * inlined function, a global, a loop over several lines.
 */
struct pt {
	int x, y;
};

struct node {
	const char *name;
	struct pt at;
	int vals[3];
	unsigned flags : 3;
	struct node *next;
};

int counter;

static inline int weight(const struct node *n)
{
	return n->at.x * 3 + n->flags;
}

__attribute__((noinline)) int walk(struct node *n, int limit)
{
	int sum = 0, i;

	for (i = 0; n && i < limit; i++) {
		sum += weight(n);
		sum ^= n->vals[i % 3];
		n = n->next;
	}
	counter += sum;
	return sum;
}

static struct node b = { "b", { 3, 4 }, { 1, 2, 3 }, 5, 0 };
static struct node a = { "a", { 1, 2 }, { 4, 5, 6 }, 2, &b };

void _start(void)
{
	walk(&a, 4);
	for (;;)
		;
}
