/*
 * matrix.c - the original libusdt test matrix in one process, for tracers.
 *
 * Provider "testlibusdt", module "modname", function "func".  Probes, as
 * the original test suite ran them one by one:
 *	cN	N = 0..32 arguments of type "char *": "A", "B", "C", ...
 *	iN	N = 0..32 arguments of type "int": 1, 2, 3, ...
 * and two with the other spellings:
 *	fixed	int8_t -5, uint8_t 250, int16_t -300, uint16_t 65000,
 *		int32_t -70000, uint32_t 4000000000
 *	wide	int64_t -5000000000, uint64_t 9000000000000000000,
 *		"char *" "wide", "int" -1
 *
 * Usage: matrix MODE [MARKFILE]
 *	trace	print "probe NAME ADDR" per probe and "ready PID", then fire
 *		each probe whose usdt_is_enabled is true, until MARKFILE
 *		exists (at most 60 s); first print "enabled-at-start K", the
 *		number of probes enabled before any tracer could attach
 *	always	the same, firing every probe every time (for gdb)
 *	once	enable, print the probes, disable, free: for the DOF capture
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <usdt.h>

#define NPROBES (2 * (USDT_ARG_MAX + 1) + 2)

static usdt_probedef_t *defs[NPROBES];
static void *args[NPROBES][USDT_ARG_MAX];
static char letters[USDT_ARG_MAX][2];
static char wide_text[8];	/* written at run time: a page bpftrace can read */

static usdt_probedef_t *
define(usdt_provider_t *p, const char *name, size_t argc, const char **types)
{
	usdt_probedef_t *pd = usdt_create_probe("func", name, argc, types);

	if (pd == NULL || usdt_provider_add_probe(p, pd) != 0) {
		fprintf(stderr, "matrix: probe %s: %s\n", name, usdt_errstr(p));
		exit(1);
	}
	return pd;
}

static void
define_all(usdt_provider_t *p)
{
	const char *types[USDT_ARG_MAX];
	const char *fixed[] = { "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t",
	    "uint32_t" };
	const char *wide[] = { "int64_t", "uint64_t", "char *", "int" };
	char name[16];
	int k = 0;

	for (int i = 0; i < USDT_ARG_MAX; i++) {
		letters[i][0] = (char)('A' + i);
		letters[i][1] = '\0';
	}
	for (int kind = 0; kind < 2; kind++) {
		for (int n = 0; n <= USDT_ARG_MAX; n++, k++) {
			for (int j = 0; j < n; j++) {
				types[j] = kind == 0 ? "char *" : "int";
				args[k][j] = kind == 0 ? (void *)letters[j] : (void *)(intptr_t)(j + 1);
			}
			snprintf(name, sizeof(name), "%c%d", kind == 0 ? 'c' : 'i', n);
			defs[k] = define(p, name, (size_t)n, types);
		}
	}
	args[k][0] = (void *)(intptr_t)-5;
	args[k][1] = (void *)(intptr_t)250;
	args[k][2] = (void *)(intptr_t)-300;
	args[k][3] = (void *)(intptr_t)65000;
	args[k][4] = (void *)(intptr_t)-70000;
	args[k][5] = (void *)(intptr_t)4000000000LL;
	defs[k++] = define(p, "fixed", 6, fixed);
	args[k][0] = (void *)(intptr_t)-5000000000LL;
	args[k][1] = (void *)(uintptr_t)9000000000000000000ULL;
	strcpy(wide_text, "wide");
	args[k][2] = (void *)wide_text;
	args[k][3] = (void *)(intptr_t)-1;
	defs[k++] = define(p, "wide", 4, wide);
}

static void
print_probes(void)
{
	for (int k = 0; k < NPROBES; k++)
		printf("probe %s %p\n", defs[k]->name, defs[k]->probe->probe_addr);
}

int
main(int argc, char **argv)
{
	usdt_provider_t *p = usdt_create_provider("testlibusdt", "modname");
	const char *mode = argc > 1 ? argv[1] : "once";
	int always = strcmp(mode, "always") == 0, enabled = 0;
	time_t end = time(NULL) + 600;	/* only a hung test meets it */

	if (p == NULL)
		return 1;
	define_all(p);
	if (usdt_provider_enable(p) != 0) {
		fprintf(stderr, "matrix: enable: %s\n", usdt_errstr(p));
		return 1;
	}
	print_probes();
	if (strcmp(mode, "once") == 0) {
		fflush(stdout);
		if (usdt_provider_disable(p) != 0) {
			fprintf(stderr, "matrix: disable: %s\n", usdt_errstr(p));
			return 1;
		}
		usdt_provider_free(p);
		for (int k = 0; k < NPROBES; k++)
			usdt_probe_release(defs[k]);
		return 0;
	}
	for (int k = 0; k < NPROBES; k++)
		enabled += usdt_is_enabled(defs[k]->probe);
	printf("enabled-at-start %d\nready %d\n", enabled, (int)getpid());
	fflush(stdout);
	while (time(NULL) < end && (argc < 3 || access(argv[2], F_OK) != 0)) {
		for (int k = 0; k < NPROBES; k++)
			if (always || usdt_is_enabled(defs[k]->probe))
				usdt_fire_probe(defs[k]->probe, defs[k]->argc, args[k]);
		usleep(20000);
	}
	usdt_provider_free(p);
	for (int k = 0; k < NPROBES; k++)
		usdt_probe_release(defs[k]);
	return 0;
}
