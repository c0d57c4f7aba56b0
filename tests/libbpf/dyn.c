/*
 * dyn.c - libusdt providers for tests/libbpf: probes made at run time,
 * fired once each when the tracer says go.
 *
 *   dyn GO
 *
 * Two providers (two images): "lbdyn" with probes of no argument, of
 * "int" (64 bits) at its extremes, a string, every fixed width at its
 * extremes, twelve arguments (six on the stack), pointers and a name with
 * '-' (the notes spell it "op__start"); and "lbdyn_two" with one probe.
 * Writes to stdout, for tracer.c: "pid N", "image PATH" per provider (the
 * file its image is mapped from, read in /proc/self/maps: a path in
 * LIBUSDT_DIR, or /proc/PID/map_files/A-B in the memfd fallback), one
 * "expect" line per probe,
 * "ready"; then blocks opening the fifo GO until the tracer writes a byte,
 * writes whether each probe is enabled ("enabled NAME=0|1": libbpf raises
 * the semaphore), fires each one that is, and writes "done".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <usdt.h>

#define NARGS_MAX 12

typedef struct spec {
	const char *provider, *name;
	size_t argc;
	const char *types[NARGS_MAX];
	intptr_t vals[NARGS_MAX];
	usdt_probedef_t *pd;
} spec_t;

static char text[] = "a string";
static int counter;

static spec_t specs[] = {
	{ "lbdyn", "zero", 0, { NULL }, { 0 }, NULL },
	{ "lbdyn", "ints", 3, { "int", "int", "int" }, { -42, INT64_MIN, INT64_MAX }, NULL },
	{ "lbdyn", "str", 1, { "char *" }, { 0 }, NULL },
	{ "lbdyn", "fixed", 8,
	  { "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t" },
	  { INT8_MIN, UINT8_MAX, INT16_MIN, UINT16_MAX, INT32_MIN, UINT32_MAX, INT64_MIN,
	    (intptr_t)UINT64_MAX }, NULL },
	{ "lbdyn", "twelve", 12,
	  { "int", "int", "int", "int", "int", "int", "int8_t", "uint16_t", "int32_t", "uint32_t",
	    "int64_t", "uint64_t" },
	  { 1, -2, 3, -4, 5, -6, -7, 65000, -9, 4000000000, -11, (intptr_t)0xfedcba9876543210ULL },
	  NULL },
	{ "lbdyn", "ptrs", 2, { "void *", "int *" }, { 0 }, NULL },
	{ "lbdyn", "op-start", 1, { "int" }, { 7 }, NULL },
	{ "lbdyn_two", "other", 2, { "uint64_t", "int16_t" }, { (intptr_t)UINT64_MAX, -300 }, NULL },
};
#define NSPECS (sizeof(specs) / sizeof(specs[0]))

/* Unsigned types and pointers print as unsigned; every value is in range. */
static int
is_unsigned(const char *type)
{
	return type[0] == 'u' || strchr(type, '*') != NULL;
}

/* The stapsdt spelling of a probe name: each '-' as "__". */
static void
note_name(const char *name, char *out, size_t size)
{
	size_t n = 0;

	for (; *name != '\0' && n + 3 < size; name++) {
		if (*name == '-') {
			out[n++] = '_';
			out[n++] = '_';
		} else {
			out[n++] = *name;
		}
	}
	out[n] = '\0';
}

static void
say_expected(void)
{
	char name[64];
	size_t i, j;

	for (i = 0; i < NSPECS; i++) {
		note_name(specs[i].name, name, sizeof(name));
		printf("expect %s %s 1", specs[i].provider, name);
		for (j = 0; j < specs[i].argc; j++) {
			if (is_unsigned(specs[i].types[j]))
				printf(" %" PRIu64, (uint64_t)(uintptr_t)specs[i].vals[j]);
			else
				printf(" %" PRId64, (int64_t)specs[i].vals[j]);
		}
		printf("\n");
	}
}

/*
 * The file PROBE's image is mapped from, as /proc/self/maps shows it:
 * its path where it has one, else (the memfd fallback: "/memfd:NAME
 * (deleted)") the mapping's /proc/PID/map_files entry, which opens the
 * same file for a tracer.
 */
static int
say_image(usdt_probedef_t *pd)
{
	uintptr_t addr = (uintptr_t)pd->probe->probe_addr, lo, hi;
	char line[4096], path[4096];
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = -1;

	if (maps == NULL) {
		perror("/proc/self/maps");
		return -1;
	}
	while (found != 0 && fgets(line, sizeof(line), maps) != NULL) {
		path[0] = '\0';
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s %4095[^\n]",
		    &lo, &hi, path) < 2 || addr < lo || addr >= hi)
			continue;
		if (path[0] == '/' && strncmp(path, "/memfd:", 7) != 0 &&
		    strstr(path, " (deleted)") == NULL)
			printf("image %s\n", path);
		else
			printf("image /proc/%d/map_files/%" PRIxPTR "-%" PRIxPTR "\n",
			    (int)getpid(), lo, hi);
		found = 0;
	}
	fclose(maps);
	if (found != 0)
		fprintf(stderr, "no mapping holds probe %s\n", pd->name);
	return found;
}

static usdt_provider_t *
make_provider(const char *provider)
{
	usdt_provider_t *p = usdt_create_provider(provider, "lbmod");
	size_t i;

	if (p == NULL)
		return NULL;
	for (i = 0; i < NSPECS; i++) {
		spec_t *s = &specs[i];

		if (strcmp(s->provider, provider) != 0)
			continue;
		s->pd = usdt_create_probe("func", s->name, s->argc, s->types);
		if (s->pd == NULL || usdt_provider_add_probe(p, s->pd) != 0)
			goto fail;
	}
	if (usdt_provider_enable(p) == 0)
		return p;
fail:
	fprintf(stderr, "dyn: provider %s: %s\n", provider, usdt_errstr(p));
	return NULL;
}

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
fire_all(void)
{
	size_t i;

	for (i = 0; i < NSPECS; i++) {
		spec_t *s = &specs[i];
		int on = usdt_is_enabled(s->pd->probe);

		printf("enabled %s:%s=%d\n", s->provider, s->name, on != 0);
		if (on)
			usdt_fire_probe(s->pd->probe, s->argc, (void **)s->vals);
	}
}

int
main(int argc, char **argv)
{
	usdt_provider_t *one, *two;

	if (argc != 2) {
		fprintf(stderr, "usage: dyn GO\n");
		return 2;
	}
	alarm(60);
	specs[2].vals[0] = (intptr_t)text;
	specs[5].vals[0] = (intptr_t)text;
	specs[5].vals[1] = (intptr_t)&counter;
	one = make_provider("lbdyn");
	two = make_provider("lbdyn_two");
	if (one == NULL || two == NULL)
		return 1;
	printf("pid %ld\n", (long)getpid());
	if (say_image(specs[0].pd) != 0 || say_image(specs[NSPECS - 1].pd) != 0)
		return 1;
	say_expected();
	printf("ready\n");
	fflush(stdout);
	if (wait_go(argv[1]) != 0)
		return 1;
	fire_all();
	printf("done\n");
	fflush(stdout);
	usdt_provider_free(one);
	usdt_provider_free(two);
	for (size_t i = 0; i < NSPECS; i++)
		usdt_probe_release(specs[i].pd);
	return 0;
}
