/*
 * classic.c - the original libusdt's own test, re-expressed for bpftrace.
 *
 * The original test program made one provider "testlibusdt" (module
 * "modname") with one probe, function "typec" or "typei", named "Narg"
 * (N = 0..32: names that begin with a digit), of N arguments all "char *"
 * ("A", "B", ...) or all "int" (1, 2, ...); it enabled it, waited for a
 * line on stdin, fired it if usdt_is_enabled said so, released the
 * probedef, disabled and freed the provider; its driver ran it 66 times
 * under DTrace.  This program makes the same 33 providers of one type in
 * one process (so one bpftrace run sees them all, and same-named
 * providers must coexist), with the same calls in the same order, and
 * waits for a file instead of a line.
 *
 * Usage: classic c|i GOFILE [ENDFILE [all]].  Prints "enabled PID" once all
 * 33 are enabled; fires each once GOFILE exists (with "all": once GOFILE
 * exists and usdt_is_enabled says every probe is enabled, which a tracer
 * may do after it says it is attached), then, given ENDFILE, prints
 * "fired N" (N: the probes usdt_is_enabled said were enabled) and waits
 * until ENDFILE exists, so that a tracer attached to this process ends by
 * itself, not because the process went away (bpftrace 0.17 prints its
 * maps when its target exits, before its END probe runs);
 * then cleans up and prints "done".  Each wait gives up after 10 minutes,
 * so a broken test leaves no process behind.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <usdt.h>

#define NPROV (USDT_ARG_MAX + 1)
#define WAIT_CAP 600

/* Wait until PATH exists, or the cap has passed. */
static void
wait_for_file(const char *path)
{
	time_t end = time(NULL) + WAIT_CAP;

	while (access(path, F_OK) != 0 && time(NULL) < end)
		usleep(20000);
}

static usdt_provider_t *providers[NPROV];
static usdt_probedef_t *probedefs[NPROV];
static void *args[NPROV][USDT_ARG_MAX];

static int
fire_probe(usdt_probedef_t *probedef, int argc, void **argv)
{
	if (!usdt_is_enabled(probedef->probe))
		return 0;
	usdt_fire_probe(probedef->probe, argc, argv);
	return 1;
}

/* Wait until every probe is enabled, or the cap has passed. */
static void
wait_all_enabled(void)
{
	time_t end = time(NULL) + WAIT_CAP;
	int n;

	do {
		for (n = 0; n < NPROV && usdt_is_enabled(probedefs[n]->probe); n++)
			;
		if (n == NPROV)
			return;
		usleep(20000);
	} while (time(NULL) < end);
}

/* Provider n: probe "type<kind>:<n>arg" of n arguments. */
static int
make(int n, char kind)
{
	const char *types[USDT_ARG_MAX];
	char func[16], name[16];

	for (int i = 0; i < n; i++) {
		if (kind == 'c') {
			char *s = malloc(2);

			if (s == NULL)
				return -1;
			s[0] = (char)('A' + i);
			s[1] = '\0';
			args[n][i] = s;
			types[i] = "char *";
		} else {
			args[n][i] = (void *)(intptr_t)(i + 1);
			types[i] = "int";
		}
	}
	snprintf(func, sizeof(func), "type%c", kind);
	snprintf(name, sizeof(name), "%darg", n);
	if ((providers[n] = usdt_create_provider("testlibusdt", "modname")) == NULL) {
		fprintf(stderr, "unable to create provider\n");
		return -1;
	}
	if ((probedefs[n] = usdt_create_probe(func, name, (size_t)n, types)) == NULL) {
		fprintf(stderr, "unable to create probe\n");
		return -1;
	}
	usdt_provider_add_probe(providers[n], probedefs[n]);
	if (usdt_provider_enable(providers[n]) < 0) {
		fprintf(stderr, "unable to enable provider: %s\n",
		    usdt_errstr(providers[n]));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char kind;
	int fired = 0;

	if (argc < 3 || (argv[1][0] != 'c' && argv[1][0] != 'i')) {
		fprintf(stderr, "usage: %s c|i GOFILE [ENDFILE]\n", argv[0]);
		return 2;
	}
	kind = argv[1][0];
	for (int n = 0; n < NPROV; n++)
		if (make(n, kind) != 0)
			return 1;
	printf("enabled %d\n", (int)getpid());
	fflush(stdout);
	wait_for_file(argv[2]);
	if (argc > 4 && strcmp(argv[4], "all") == 0)
		wait_all_enabled();
	for (int n = 0; n < NPROV; n++)
		fired += fire_probe(probedefs[n], n, args[n]);
	if (argc > 3) {
		printf("fired %d\n", fired);
		fflush(stdout);
		wait_for_file(argv[3]);
	}
	for (int n = 0; n < NPROV; n++) {
		usdt_probe_release(probedefs[n]);
		if (usdt_provider_disable(providers[n]) < 0) {
			fprintf(stderr, "unable to disable provider: %s\n",
			    usdt_errstr(providers[n]));
			return 1;
		}
		usdt_provider_free(providers[n]);
		if (kind == 'c')
			for (int i = 0; i < n; i++)
				free(args[n][i]);
	}
	printf("done\n");
	return 0;
}
