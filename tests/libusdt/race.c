/*
 * race.c - the victim of tests/libusdt's attacks on libusdt's files: a
 * process that enables providers while another user tries to get its own
 * code loaded (by flipping the symlink LIBUSDT_DIR names) or to push the
 * images into the memfd fallback (by planting the names it will use).
 *
 * Usage:
 *   race loop N SECONDS GO   wait for file GO, then create, enable,
 *                            disable and free provider "racer" N times or
 *                            for SECONDS, whichever ends first;
 *   race hold K GO STOP      wait for GO, enable K providers "racer" and
 *                            keep them until file STOP exists.
 * Prints "ready PID" first, then "enables=E named=N memfd=M errors=X"
 * (named: /proc/self/maps names the image's mapping by a file's path,
 * memfd: by "/memfd:..."); hold prints that line then waits.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <usdt.h>

typedef struct counts {
	long enables, named, memfd, errors;
} counts_t;

static void
wait_for(const char *path)
{
	while (access(path, F_OK) != 0)
		usleep(1000);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Whether the mapping holding probe p, as /proc/self/maps names it (what
 * tracers read), is a memfd's: 1 a memfd, 0 a file, -1 not found.
 */
static int
is_memfd(const usdt_probedef_t *pd)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi, at;
	char line[4096], path[4096];
	int rc = -1;

	if (pd->probe == NULL || f == NULL) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	at = (unsigned long)pd->probe->probe_addr;
	while (rc < 0 && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095[^\n]", &lo, &hi, path) == 3 &&
		    at >= lo && at < hi)
			rc = strncmp(path, "/memfd:", 7) == 0 ? 1 : path[0] == '/' ? 0 : -1;
	fclose(f);
	return rc;
}

/* A provider "racer" with one probe, enabled; NULL (counted) on error. */
static usdt_provider_t *
enable_one(counts_t *c)
{
	usdt_provider_t *p = usdt_create_provider("racer", "race");
	usdt_probedef_t *pd = usdt_create_probe("f", "p", 1, (const char *[]){ "int" });
	int m;

	if (p == NULL || pd == NULL || usdt_provider_add_probe(p, pd) != 0 ||
	    usdt_provider_enable(p) != 0) {
		if (p != NULL)
			fprintf(stderr, "enable: %s\n", usdt_errstr(p));
		c->errors++;
		if (pd != NULL)
			usdt_probe_release(pd);
		if (p != NULL)
			usdt_provider_free(p);
		return NULL;
	}
	c->enables++;
	m = is_memfd(pd);
	if (m == 1)
		c->memfd++;
	else if (m == 0)
		c->named++;
	usdt_probe_release(pd);
	return p;
}

static void
report(const counts_t *c)
{
	printf("enables=%ld named=%ld memfd=%ld errors=%ld\n", c->enables, c->named,
	    c->memfd, c->errors);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	counts_t c = { 0, 0, 0, 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %ld\n", (long)getpid());
	if (argc == 5 && strcmp(argv[1], "loop") == 0) {
		long n = atol(argv[2]);
		double end;

		wait_for(argv[4]);
		end = now() + atof(argv[3]);
		for (long i = 0; i < n && now() < end; i++) {
			usdt_provider_t *p = enable_one(&c);

			if (p != NULL) {
				usdt_provider_disable(p);
				usdt_provider_free(p);
			}
		}
		report(&c);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "hold") == 0) {
		long k = atol(argv[2]);
		usdt_provider_t **ps = calloc((size_t)k, sizeof(*ps));

		wait_for(argv[3]);
		for (long i = 0; ps != NULL && i < k; i++)
			ps[i] = enable_one(&c);
		report(&c);
		wait_for(argv[4]);
		return 0;
	}
	fprintf(stderr, "usage: race loop N SECONDS GO | race hold K GO STOP\n");
	return 2;
}
