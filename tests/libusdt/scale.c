/*
 * scale.c - a provider of N probes, added and enabled, for counting the
 * instructions each step takes under callgrind (tests/libusdt/run).
 *
 *   valgrind --tool=callgrind --toggle-collect=add_all ./scale N
 *   valgrind --tool=callgrind --toggle-collect=enable_all ./scale N
 *
 * add_all and enable_all are the only places the work happens, so the
 * counts of one size against ten times that size tell linear from
 * quadratic without a clock: instruction counts do not depend on what
 * else the machine is doing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "usdt.h"

/* Add n probes p0.. of (int, char *) to p. */
__attribute__((noinline)) static int
add_all(usdt_provider_t *p, int n)
{
	const char *types[] = { "int", "char *" };
	char name[32];

	for (int i = 0; i < n; i++) {
		usdt_probedef_t *pd;

		snprintf(name, sizeof(name), "p%d", i);
		pd = usdt_create_probe("func", name, 2, types);
		if (pd == NULL || usdt_provider_add_probe(p, pd) != 0)
			return -1;
		usdt_probe_release(pd);
	}
	return 0;
}

__attribute__((noinline)) static int
enable_all(usdt_provider_t *p)
{
	return usdt_provider_enable(p);
}

int
main(int argc, char **argv)
{
	usdt_provider_t *p;
	int n = argc > 1 ? atoi(argv[1]) : 0;

	if (n <= 0 || (p = usdt_create_provider("scale", "modname")) == NULL) {
		fprintf(stderr, "usage: scale N\n");
		return 2;
	}
	if (add_all(p, n) != 0 || enable_all(p) != 0) {
		fprintf(stderr, "scale: %s\n", usdt_errstr(p));
		usdt_provider_free(p);
		return 1;
	}
	usdt_provider_free(p);
	return 0;
}
