/*
 * tests/gdbdof/gp.c - fires every probe of gp.d, then waits on stdin, so
 * that gdb (tests/gdbdof/run) can list the probes of the file and of the
 * running program.
 */
#include <stdio.h>

#include "gp.h"

int
main(int argc, char **argv)
{
	char s[8] = "gdb";

	(void)argv;
	GP_PLAIN(argc);
	if (GP_GUARDED_ENABLED())
		GP_GUARDED(argc + 1);
	GP_PAIR(-2L, s);
	return 0;
}
