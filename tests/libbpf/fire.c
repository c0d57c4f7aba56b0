/*
 * fire.c - the probes of prov.d, fired once each when the tracer says go;
 * linked into the program or into a shared library.
 *
 * lbpf_run() writes to OUT what tracer.c needs: the pid, one "expect"
 * line per probe with the values it will pass (printed from the same
 * constants the probe macros are given, in each argument's declared type),
 * and "ready".  Then it blocks opening the fifo GO until the tracer, with
 * every probe attached, writes a byte.  It reports each probe's _ENABLED()
 * ("enabled NAME=0|1": libbpf raises the semaphores of what it attaches),
 * fires every probe once (guarded only while enabled) and writes "done".
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "lprov.h"

int lbpf_run(const char *go, FILE *out);

/* Objects whose addresses the pointer probes pass. */
static char path[64];
static int counter;
static char blob[16];

/* A probe macro applied to a list of arguments kept in one macro. */
#define APPLY(probe, ...) probe(__VA_ARGS__)
#define U(x) ((unsigned long long)(x))
#define P(x) U((uintptr_t)(x))

#define SIX_ARGS -128, -32768, INT_MIN, LONG_MIN, 255, 65535
#define TWELVE_ARGS -100, -30000, -2000000000, -9000000000000000000LL, 250, 65000, \
	-128, -32768, INT_MIN, LLONG_MIN, UINT_MAX, ULLONG_MAX
#define EXTREMES_ARGS ULLONG_MAX, 0x8000000000000000ULL, LLONG_MIN, LLONG_MAX, INT_MAX, UINT_MAX
#define OTHER_ARGS -123456789012L, 0xfedcba9876543210UL

static void
say_expected(FILE *out)
{
	fprintf(out, "pid %ld\n", (long)getpid());
	fprintf(out, "expect lbpf tick 1\n");
	fprintf(out, "expect lbpf six 1 %d %d %d %ld %d %d\n", SIX_ARGS);
	fprintf(out, "expect lbpf twelve 1 %d %d %d %lld %d %d %d %d %d %lld %u %llu\n", TWELVE_ARGS);
	fprintf(out, "expect lbpf extremes 1 %llu %llu %lld %lld %d %u\n", EXTREMES_ARGS);
	fprintf(out, "expect lbpf pointer__args 1 %llu %llu %llu\n", P(blob), P(path), P(&counter));
	fprintf(out, "expect lbpf guarded 1 77\n");
	fprintf(out, "expect lbpf_two other 1 %ld %lu\n", OTHER_ARGS);
	fprintf(out, "ready\n");
	fflush(out);
}

/* Block until the tracer writes a byte to GO. */
static int
wait_go(const char *go)
{
	char c;
	int fd = open(go, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror(go);
		return -1;
	}
	n = read(fd, &c, 1);
	close(fd);
	return n == 1 ? 0 : -1;
}

static void
say_enabled(FILE *out)
{
	fprintf(out, "enabled tick=%d six=%d twelve=%d extremes=%d pointer__args=%d guarded=%d other=%d\n",
	    !!LBPF_TICK_ENABLED(), !!LBPF_SIX_ENABLED(), !!LBPF_TWELVE_ENABLED(),
	    !!LBPF_EXTREMES_ENABLED(), !!LBPF_POINTER_ARGS_ENABLED(), !!LBPF_GUARDED_ENABLED(),
	    !!LBPF_TWO_OTHER_ENABLED());
}

int
lbpf_run(const char *go, FILE *out)
{
	int enabled;

	snprintf(path, sizeof(path), "/index-%d.html", 7);
	say_expected(out);
	if (wait_go(go) != 0)
		return -1;
	say_enabled(out);
	LBPF_TICK();
	APPLY(LBPF_SIX, SIX_ARGS);
	APPLY(LBPF_TWELVE, TWELVE_ARGS);
	APPLY(LBPF_EXTREMES, EXTREMES_ARGS);
	LBPF_POINTER_ARGS(blob, path, &counter);
	enabled = LBPF_GUARDED_ENABLED() != 0;
	if (enabled)
		LBPF_GUARDED(77);
	APPLY(LBPF_TWO_OTHER, OTHER_ARGS);
	fprintf(out, "done\n");
	fflush(out);
	return enabled;
}
