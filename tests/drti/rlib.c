/* rlib.c - the library replace.c loads and replaces: inline sites of sites.d. */
#include "sites.h"

int rlib_fire(int x);

int
rlib_fire(int x)
{
	SITES_TICK(x);
	SITES_TOCK(x);
	return x;
}
