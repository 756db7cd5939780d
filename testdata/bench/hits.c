/* bench-trace.sh's program: hit(i) called N times (argv[1]), and 1000
 * functions f0..f999, each called once, for the attach benchmark. */
#include <stdlib.h>

__attribute__((noinline)) long hit(long i, const char *name)
{
	__asm__ volatile("" : : "r"(name));
	return i * 3 + 1;
}

#define F(n) __attribute__((noinline)) long f##n(long x) { __asm__ volatile(""); return x + n; }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
F10() F100(1) F100(2) F100(3) F100(4) F100(5) F100(6) F100(7) F100(8) F100(9)
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, sum = 0;
	for (long i = 0; i < n; i++)
		sum += hit(i, "name");
	return sum == 42;
}
