/*
 * scale.c - a provider of N probes, added and enabled, for counting the
 * instructions each step takes under callgrind (tests/libusdt/run).
 *
 *   valgrind --tool=callgrind --toggle-collect=add_all ./scale N
 *   valgrind --tool=callgrind --toggle-collect=enable_all ./scale N
 *   valgrind --tool=callgrind --toggle-collect=remove_all ./scale N
 *
 * add_all, enable_all and remove_all (every probe, the last one first:
 * the one a walk of the list from its head finds last) are the only
 * places the work happens, so the
 * counts of one size against ten times that size tell linear from
 * quadratic without a clock: instruction counts do not depend on what
 * else the machine is doing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "usdt.h"

/* Add n probes p0.. of (int, char *) to p; defs[i] is probe i. */
__attribute__((noinline)) static int
add_all(usdt_provider_t *p, int n, usdt_probedef_t **defs)
{
	const char *types[] = { "int", "char *" };
	char name[32];

	for (int i = 0; i < n; i++) {
		usdt_probedef_t *pd;

		snprintf(name, sizeof(name), "p%d", i);
		pd = usdt_create_probe("func", name, 2, types);
		if (pd == NULL || usdt_provider_add_probe(p, pd) != 0)
			return -1;
		defs[i] = pd;
	}
	return 0;
}

/* Remove every probe, the last first; the list must shrink from its tail. */
__attribute__((noinline)) static int
remove_all(usdt_provider_t *p, int n, usdt_probedef_t **defs)
{
	for (int i = n - 1; i >= 0; i--) {
		usdt_probedef_t *last = p->probedefs;

		while (i % 997 == 0 && last != NULL && last->next != NULL)
			last = last->next;	/* now and then: the list still ends here */
		if ((i % 997 == 0 && last != defs[i]) ||
		    usdt_provider_remove_probe(p, defs[i]) != 0)
			return -1;
	}
	return p->probedefs == NULL ? 0 : -1;
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
	int n = argc > 1 ? atoi(argv[1]) : 0, rc = 0;
	usdt_probedef_t **defs = n > 0 ? calloc((size_t)n, sizeof(*defs)) : NULL;

	if (defs == NULL || (p = usdt_create_provider("scale", "modname")) == NULL) {
		fprintf(stderr, "usage: scale N\n");
		return 2;
	}
	if (add_all(p, n, defs) != 0 || enable_all(p) != 0 || remove_all(p, n, defs) != 0) {
		fprintf(stderr, "scale: %s\n", usdt_errstr(p));
		rc = 1;
	}
	usdt_provider_free(p);
	for (int i = 0; i < n; i++)
		usdt_probe_release(defs[i]);
	free(defs);
	return rc;
}
