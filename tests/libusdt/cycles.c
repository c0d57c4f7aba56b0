/*
 * cycles.c - create, enable, disable and free a provider N times.
 *
 * Prints, after the first 1,000 cycles and at the end, the resident set
 * size and the number of open descriptors, so the test can check that
 * neither grows:
 *	after 1000: rss_kb=K fds=F
 *	after N: rss_kb=K fds=F
 * Any failing call ends the program with its usdt_errstr.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usdt.h>

#include "../testlib.h"

static long
rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, resident = 0;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int
cycle(void)
{
	const char *t2[] = { "int", "char *" };
	const char *t6[] = { "int", "char *", "int8_t", "uint16_t", "int32_t", "uint64_t" };
	usdt_provider_t *p = usdt_create_provider("cycles", "modname");
	usdt_probedef_t *a = usdt_create_probe("func", "start", 2, t2);
	usdt_probedef_t *b = usdt_create_probe("func", "done", 6, t6);
	void *argv[6] = { (void *)1, "x", (void *)2, (void *)3, (void *)4, (void *)5 };
	int rc = -1;

	if (p == NULL || a == NULL || b == NULL) {
		fprintf(stderr, "cycles: out of memory\n");
		return -1;
	}
	if (usdt_provider_add_probe(p, a) == 0 && usdt_provider_add_probe(p, b) == 0 &&
	    usdt_provider_enable(p) == 0) {
		if (!usdt_is_enabled(a->probe))
			usdt_fire_probe(b->probe, 6, argv);
		rc = usdt_provider_disable(p);
	}
	if (rc != 0)
		fprintf(stderr, "cycles: %s\n", usdt_errstr(p));
	usdt_provider_free(p);
	usdt_probe_release(a);
	usdt_probe_release(b);
	return rc;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 1; i <= n; i++) {
		if (cycle() != 0)
			return 1;
		if (i == 1000 || i == n)
			printf("after %ld: rss_kb=%ld fds=%d\n", i, rss_kb(), count_open_fds());
	}
	return 0;
}
