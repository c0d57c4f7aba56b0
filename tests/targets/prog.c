/*
 * prog.c - a program with every kind of probe site, built for each target
 * by tests/targets/run: probes with register and stack arguments, an
 * is-enabled test, and a probe in tail position (a jump, not a call, at
 * -O2).  Its output depends only on its own arithmetic, so a wrong stub
 * or a badly rewritten call shows as a wrong total or a crash.
 */
#include <stdio.h>
#include <string.h>

#include "prov.h"

__attribute__((noinline)) void
fire_tail(int n)
{
	TPROV_TAIL(n);
}

__attribute__((noinline)) int
step(int i, const char *s)
{
	if (TPROV_START_ENABLED())
		printf("start enabled at %d\n", i);
	TPROV_START(i, (char *)s, (long)strlen(s));
	TPROV_MANY(i, 2, 3, 4, 5, 6, 7, 8, 9, 10L);
	return i * 2 + (int)strlen(s);
}

int
main(int argc, char **argv)
{
	long total = 0;

	for (int i = 0; i < 4; i++) {
		total += step(i, argc > 1 ? argv[1] : "abc");
		fire_tail(i);
	}
	printf("total=%ld\n", total);
	return 0;
}
