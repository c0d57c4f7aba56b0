/* lib.c - the shared library's probes (lib.d), one fired from two functions. */
#include "lib.h"

static volatile int sink;

static __attribute__((noinline)) void
say(int n, const char *who)
{
	KDLIB_CALL(n, (char *)who);
}

int
lib_run(int n)
{
	long total = 0;

	for (int i = 0; i < n; i++) {
		say(i, "lib");
		total += i;
	}
	if (KDLIB_DONE_ENABLED())
		sink++;
	KDLIB_CALL(n, (char *)"lib_run");
	KDLIB_DONE(total);
	return (int)total;
}
