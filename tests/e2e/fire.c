/*
 * fire.c - the code that fires the e2e probes, linked into the program or
 * into a shared library.
 *
 * e2e_fire_loop() fires every probe of prov.d with fixed values, then
 * checks the stop marker file, and repeats every 10 ms until the marker
 * exists.  A tracer therefore sees the probes whenever it attaches, and
 * a run with the marker already present fires each probe exactly once.
 * The guarded probe fires only while E2E_GUARDED_ENABLED() is true; the
 * loop returns whether it ever was.  After 10 minutes without a marker the loop
 * gives up, so a broken test cannot leave a process behind for long.
 */
#include <stdio.h>
#include <unistd.h>

#include "prov.h"

int e2e_fire_loop(const char *marker);

static void
fire_all(char *path)
{
	E2E_REQUEST_START(-42, path, 4000000000u, 0x123456789ULL);
	E2E_TICK();
	E2E_SIX(-7, -300, -70000, -5000000000L, 200, 60000);
	E2E_MANY(11, 12, 13, 14, 15, 16, 17, 18);
}

int
e2e_fire_loop(const char *marker)
{
	char path[64];
	int enabled_seen = 0;
	int i;

	/* Written at run time, so the string lives in a page this process touched. */
	snprintf(path, sizeof(path), "/index-%d.html", 7);
	for (i = 0; i < 60000; i++) {	/* 10 minutes: only a hung test meets it */
		fire_all(path);
		if (E2E_GUARDED_ENABLED()) {
			enabled_seen = 1;
			E2E_GUARDED(77);
		}
		if (access(marker, F_OK) == 0)
			break;
		usleep(10000);
	}
	return enabled_seen;
}
