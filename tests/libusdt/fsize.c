/*
 * fsize.c - enabling a provider past RLIMIT_FSIZE (issue 32): the call
 * fails with an error, the host lives, and no image is left behind.
 *
 * Before the fix the kernel's SIGXFSZ, raised by the image's ftruncate,
 * killed the program (a setuid one too: the limit is the user's to set)
 * and left an empty image in its directory (/dev/shm for a setuid host).
 *
 * Usage: fsize DIR, under `ulimit -f 1` (the image is many KB).  DIR is
 * where images go (LIBUSDT_DIR); the caller checks it is empty after.
 * Prints ok/FAIL lines (testlib.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <usdt.h>

#include "../testlib.h"

int
main(int argc, char **argv)
{
	const char *types[] = { "int", "char *" };
	usdt_provider_t *p;
	usdt_probedef_t *pd;
	struct rlimit rl;
	sigset_t mask, pending;
	char name[32];
	int rc;

	if (argc != 2 || setenv("LIBUSDT_DIR", argv[1], 1) != 0)
		return 2;
	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur > 4096) {
		printf("FAIL - fsize: run under ulimit -f 1 (limit %llu)\n",
		    (unsigned long long)rl.rlim_cur);
		return 1;
	}
	if ((p = usdt_create_provider("fsizeprov", "mod")) == NULL)
		return 2;
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "probe%d", i);
		if ((pd = usdt_create_probe("fn", name, 2, types)) == NULL ||
		    usdt_provider_add_probe(p, pd) != 0)
			return 2;
		usdt_probe_release(pd);
	}
	rc = usdt_provider_enable(p);
	check(rc == -1 && strstr(usdt_errstr(p), "failed to load") != NULL,
	    "enable past RLIMIT_FSIZE: -1 and usdt_errstr, the host lives",
	    "usdt_provider_enable returned %d: %s", rc, usdt_errstr(p));
	CHECK(!p->enabled, "... and the provider is not enabled");
	sigprocmask(SIG_BLOCK, NULL, &mask);
	sigpending(&pending);
	check(!sigismember(&mask, SIGXFSZ) && !sigismember(&pending, SIGXFSZ),
	    "... SIGXFSZ neither left blocked nor pending",
	    "blocked %d, pending %d", sigismember(&mask, SIGXFSZ),
	    sigismember(&pending, SIGXFSZ));
	usdt_provider_free(p);
	return test_summary();
}
