/*
 * app.c - fires every objtest probe once and prints each probe function's
 * address as "objtest:NAME 0xADDR", the form tests/drti compares with the
 * DOF drti_lite registers.  Built as a program, or (-DAPP_LIBRARY) as a
 * shared library whose app_run() does the same.
 */
#include <stdio.h>

/*
 * The call form of the probe macros: this suite checks what -G writes for
 * rewritten calls (notes included); the x86_64 header otherwise makes
 * inline sites, whose notes are the object's own (tests/e2e, tests/header).
 */
#define _USDT_PROBE_CALLS 1
#include "prov.h"

#ifdef APP_LIBRARY
int app_run(void);
#define APP_ENTRY app_run(void)
#else
#define APP_ENTRY main(void)
#endif

int
APP_ENTRY
{
	OBJTEST_REQUEST_START(200, "/index.html");
	OBJTEST_TICK();
	if (OBJTEST_DONE_ENABLED())
		printf("done enabled\n");
	OBJTEST_DONE(42ULL);
	printf("objtest:request-start %p\n", (void *)&__dtrace_objtest___request__start);
	printf("objtest:tick %p\n", (void *)&__dtrace_objtest___tick);
	printf("objtest:done %p\n", (void *)&__dtrace_objtest___done);
	return 0;
}
