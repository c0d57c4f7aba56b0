/* other.c - an object NOT given to -G: its probe call goes through the stub. */
/*
 * The call form of the probe macros, which -G rewrites (the x86_64 header
 * otherwise makes inline sites, which -G only records: tests/e2e, tests/drti).
 */
#define _USDT_PROBE_CALLS 1
#include "prov.h"

void rw_other(int x);

void
rw_other(int x)
{
	RW_OTHER(x);
}
