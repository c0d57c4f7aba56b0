/*
 * fire.c - the object given to -G: its probe calls are rewritten.
 *
 * rw_fire_loop() fires every probe with fixed values, then checks the stop
 * marker, every 10 ms until the marker exists (so a tracer attaching at any
 * time sees every probe, and a run with the marker present fires each
 * once); it returns whether RW_GUARDED_ENABLED() was ever true.  The probes
 * sit in three kinds of caller: a static function (which gets an alias), a
 * global one, and a tail call (rw_tail at -O2).  rw_other() lives in
 * other.c, which is not given to -G and keeps calling the stub.
 */
#include <stdio.h>
#include <unistd.h>

/*
 * The call form of the probe macros, which -G rewrites (the x86_64 header
 * otherwise makes inline sites, which -G only records: tests/e2e, tests/drti).
 */
#define _USDT_PROBE_CALLS 1
#include "prov.h"

int rw_fire_loop(const char *marker);
void rw_tail(int x);
void rw_other(int x);

/* Not a constant, so the compiler keeps fire_static's parameter. */
static volatile long delta = -7;

static __attribute__((noinline)) void
fire_static(char *path, long d)
{
	RW_ARGS(42, 0x123456789LL, path, d);
}

__attribute__((noinline)) void
rw_tail(int x)
{
	RW_TAIL(x);
}

int
rw_fire_loop(const char *marker)
{
	char path[64];
	int enabled_seen = 0;
	int i;

	/* Written at run time, so the string lives in a page this process touched. */
	snprintf(path, sizeof(path), "/index-%d.html", 7);
	for (i = 0; i < 60000; i++) {	/* 10 minutes: only a hung test meets it */
		fire_static(path, delta);
		RW_MANY(11, 12, 13, 14, 15, 16, 17, 18);
		if (RW_GUARDED_ENABLED()) {
			enabled_seen = 1;
			RW_GUARDED(77);
		}
		rw_tail(5);
		rw_other(9);
		if (access(marker, F_OK) == 0)
			break;
		usleep(10000);
	}
	return enabled_seen;
}
