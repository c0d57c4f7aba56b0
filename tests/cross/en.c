/*
 * en.c - tests/cross: _ENABLED() as the program sees it.  It prints
 * "enabled N" and fires the probe with N: untraced N is 0; with gdb holding
 * the probe (gdb sets its semaphore when it places the breakpoint) it is 1,
 * and gdb reads 1 as the probe's argument.
 */
#include <stdio.h>

#include "en.h"

int
main(void)
{
	int on = EN_TICK_ENABLED() ? 1 : 0;

	printf("enabled %d\n", on);
	fflush(stdout);
	EN_TICK(on);
	return 0;
}
