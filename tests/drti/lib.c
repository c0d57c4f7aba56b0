/* lib.c - the shared library prog dlopens; prints its probe's address. */
#include <stdio.h>

#include "lib.h"

int lib_run(void);

int
lib_run(void)
{
	LIBTEST_HELLO("world");
	printf("libtest:hello %p\n", (void *)&__dtrace_libtest___hello);
	fflush(stdout);
	return 0;
}
