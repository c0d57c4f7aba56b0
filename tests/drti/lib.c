/* lib.c - the shared library prog dlopens; prints its probe's address. */
#include <stdio.h>

#include "lib.h"

int lib_run(void);

/* The probe function (the header declares it only for the call form). */
extern void __dtrace_libtest___hello(uintptr_t);

int
lib_run(void)
{
	LIBTEST_HELLO("world");
	printf("libtest:hello %p\n", (void *)&__dtrace_libtest___hello);
	fflush(stdout);
	return 0;
}
