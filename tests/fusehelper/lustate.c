/*
 * lustate.c - libusdt's state when DTrace's helper refuses REMOVE
 * (issue 32): usdt_provider_disable must then return -1 with
 * usdt_errstr, keep the provider enabled and its image mapped (DTrace may
 * still trace it), and say so again on every later call -- before, the
 * second call returned 0 and unmapped the image the helper still held.
 *
 * Usage: lustate.  Prints "disable1=RC enabled=E mapped=M" and the same
 * for a second call (M: whether /proc/self/maps names provider lsprov),
 * then "error=..." (usdt_errstr after the first call).  Frees the
 * provider at the end (which unloads it in any case).
 */
#include <stdio.h>
#include <string.h>

#include <usdt.h>

#include "../testlib.h"

int
main(void)
{
	const char *types[] = { "int" };
	usdt_provider_t *p = usdt_create_provider("lsprov", "mod");
	usdt_probedef_t *pd = usdt_create_probe("fn", "tick", 1, types);
	char err[512] = "";
	int rc;

	if (p == NULL || pd == NULL || usdt_provider_add_probe(p, pd) != 0 ||
	    usdt_provider_enable(p) != 0) {
		printf("enable failed: %s\n", p ? usdt_errstr(p) : "no provider");
		return 1;
	}
	for (int i = 1; i <= 2; i++) {
		rc = usdt_provider_disable(p);
		if (i == 1 && rc != 0)
			snprintf(err, sizeof(err), "%s", usdt_errstr(p));
		printf("disable%d=%d enabled=%d mapped=%d\n", i, rc, p->enabled, maps_lines("lsprov") > 0);
	}
	printf("error=%s\n", err);
	usdt_provider_free(p);
	usdt_probe_release(pd);
	return 0;
}
