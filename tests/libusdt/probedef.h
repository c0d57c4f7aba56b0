/*
 * probedef.h - the probedef helper the libusdt test programs share.
 *
 * A test that cannot even create its probes has nothing to check: probe()
 * prints the failure in the suite's format and exits.
 */
#ifndef TESTS_LIBUSDT_PROBEDEF_H
#define TESTS_LIBUSDT_PROBEDEF_H

#include <stdio.h>
#include <stdlib.h>

#include <usdt.h>

static inline usdt_probedef_t *
probe(const char *func, const char *name, size_t argc, const char **types)
{
	usdt_probedef_t *pd = usdt_create_probe(func, name, argc, types);

	if (pd == NULL) {
		printf("FAIL - usdt_create_probe(%s, %s): NULL\n", func, name);
		exit(1);
	}
	return pd;
}

#endif
