/*
 * reenable.c - enable, disable and enable again with a changed probe set,
 * in steps a tracer can watch.
 *
 * Usage: reenable DIR.  Provider "cycle", module "modname":
 *	1. probe func:first(int) enabled; prints "phase1 PID";
 *	   waits for DIR/go1
 *	2. disabled, first removed, func:second(char *) added, enabled
 *	   again; prints "phase2"; fires second with "again" whenever it is
 *	   enabled, until DIR/go2 exists (at most 60 s)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <usdt.h>

static int
wait_for(const char *dir, const char *name, usdt_probedef_t *fire)
{
	char path[4096];
	static char again[8];
	void *argv[] = { again };
	time_t end = time(NULL) + 600;	/* only a hung test meets it */

	strcpy(again, "again");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK) != 0) {
		if (time(NULL) > end)
			return -1;
		if (fire != NULL && usdt_is_enabled(fire->probe))
			usdt_fire_probe(fire->probe, 1, argv);
		usleep(20000);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *ti[] = { "int" }, *tc[] = { "char *" };
	usdt_provider_t *p = usdt_create_provider("cycle", "modname");
	usdt_probedef_t *first = usdt_create_probe("func", "first", 1, ti);
	usdt_probedef_t *second = usdt_create_probe("func", "second", 1, tc);

	if (argc < 2 || p == NULL || first == NULL || second == NULL)
		return 2;
	if (usdt_provider_add_probe(p, first) != 0 || usdt_provider_enable(p) != 0)
		goto fail;
	printf("phase1 %d\n", (int)getpid());
	fflush(stdout);
	if (wait_for(argv[1], "go1", NULL) != 0)
		return 3;
	if (usdt_provider_disable(p) != 0 || usdt_provider_remove_probe(p, first) != 0 ||
	    usdt_provider_add_probe(p, second) != 0 || usdt_provider_enable(p) != 0)
		goto fail;
	printf("phase2\n");
	fflush(stdout);
	if (wait_for(argv[1], "go2", second) != 0)
		return 3;
	usdt_provider_free(p);
	usdt_probe_release(first);
	usdt_probe_release(second);
	return 0;
fail:
	fprintf(stderr, "reenable: %s\n", usdt_errstr(p));
	return 1;
}
