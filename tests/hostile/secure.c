/*
 * secure.c - drti_lite's setuid rule (AT_SECURE: no DTRACE_DOF_INIT_*
 * variable is read) where the environment is no longer the block the
 * kernel laid out, for tests/hostile/run.  drti_lite finds AT_SECURE in
 * the auxiliary vector after that block (runtime/drti_lite.c), so both
 * ways a program moves its environment must leave the rule standing, and
 * a program without the setuid bit must still read its variables:
 *
 *   secure unset       a constructor that runs before drti_lite's
 *                      (priority 101) unsets USDTC_UNSET in place: the
 *                      entries after it move down, and the block now ends
 *                      with two NULLs before the auxiliary vector;
 *   secure dlopen LIB  setenv (environ moves to the heap), then dlopen
 *                      LIB, a -G library built from this file with
 *                      -DSECURE_LIB: its drti_lite gets the heap copy;
 *   secure setenv LIB DEV  the same, the variables set by the program
 *                      itself (setenv DTRACE_DOF_INIT_DEBUG=1 and
 *                      DTRACE_DOF_INIT_DEVNAME=DEV): the library's
 *                      drti_lite, handed the heap copy, reads them with
 *                      secure_getenv, which a setuid program ignores.
 *
 * The program carries a -G object too (host.d).  It prints "euid=N".
 */
#include <stdio.h>
#include <stdlib.h>

#include "host.h"

#ifdef SECURE_LIB
void secure_lib(int x);

void
secure_lib(int x)
{
	HOST_TICK(x);
}
#else
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

static void __attribute__((constructor(101)))
unset_early(void)
{
	if (getenv("USDTC_UNSET") != NULL)
		unsetenv("USDTC_UNSET");
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "setenv") == 0) {
		setenv("DTRACE_DOF_INIT_DEBUG", "1", 1);
		setenv("DTRACE_DOF_INIT_DEVNAME", argv[3], 1);
	}
	if (argc >= 3 && (strcmp(argv[1], "dlopen") == 0 || strcmp(argv[1], "setenv") == 0)) {
		setenv("USDTC_MOVED", "1", 1);
		if (dlopen(argv[2], RTLD_NOW) == NULL) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
	}
	HOST_TICK(argc);
	printf("euid=%d\n", (int)geteuid());
	return 0;
}
#endif
