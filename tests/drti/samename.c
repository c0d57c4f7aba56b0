/*
 * samename.c - a static function `helper` in each of two translation
 * units (built with -DSAMENAME_MAIN and without), each firing sites:tick
 * at an inline site, for tests/drti's checks that both sites go to one
 * record, sites:helper:tick, whether -G was given no object (both from
 * the site records) or only the first (one site already in the DOF's
 * record, the other joining it): dtprobed refuses a DOF with two records
 * of one probe and function name.  Built with -fno-merge-constants so
 * that the two `__func__` strings stay apart (drti_lite must compare the
 * names, not only their addresses).
 */
#include "sites.h"

int samename_other(int x);

static int __attribute__((noinline))
helper(int x)
{
	SITES_TICK(x);
	return x + 1;
}

#ifdef SAMENAME_MAIN
int
main(int argc, char **argv)
{
	(void)argv;
	return helper(argc) + samename_other(argc) > 0 ? 0 : 1;
}
#else
int
samename_other(int x)
{
	return helper(x);
}
#endif
