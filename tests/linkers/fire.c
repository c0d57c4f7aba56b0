/*
 * fire.c - the probes of the linker matrix, in a file of their own: the
 * program is two files, as in the ThinLTO case the matrix reproduces
 * (tests/linkers/run).  lk_fire() fires every probe once with fixed
 * values and returns whether the guard was true.
 */
#include <stdio.h>

#include "lk.h"

int lk_fire(void);

int
lk_fire(void)
{
	char path[32];

	/* Written at run time: bpftrace's str() reads only touched pages. */
	snprintf(path, sizeof(path), "/lk-%d", 7);
	LK_HIT(-5, path, 1099511627783LL);
	LK_NOARGS();
	if (LK_GUARDED_ENABLED()) {
		LK_GUARDED(77);
		return 1;
	}
	return 0;
}
