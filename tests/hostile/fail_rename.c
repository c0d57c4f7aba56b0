/*
 * fail_rename.c - an LD_PRELOAD shim: the Nth rename(2) of the process
 * fails with EIO (N from $USDTC_FAIL_RENAME, or a list "N,M,..."), every
 * other one is real.
 *
 * tests/hostile makes -G fail in the middle of putting its rewritten
 * objects in place, to check that the renames already done are undone
 * and every object is left byte-identical.  Nothing else fails that way
 * on demand, as root, without a special file system.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int
rename(const char *from, const char *to)
{
	static int calls;
	static int (*real)(const char *, const char *);
	const char *n = getenv("USDTC_FAIL_RENAME");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "rename");
	calls++;
	while (n != NULL && *n != '\0') {
		char *end;

		if (strtol(n, &end, 10) == calls) {
			errno = EIO;
			return -1;
		}
		n = *end == ',' ? end + 1 : "";
	}
	return real(from, to);
}
