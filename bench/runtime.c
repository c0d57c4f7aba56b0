/*
 * runtime.c - what libusdt's run-time providers cost (bench/runtime).
 *
 *	runtime create N RUNS	create + enable, and disable + free, of a provider
 *				of N probes (2 arguments each); median of RUNS
 *	runtime baseline SO N RUNS
 *				the same probes known at build time: dlopen +
 *				dlclose of SO, a shared object made by usdtc -G
 *				with N such probes (bench/runtime builds it)
 *	runtime providers N	create + enable of N providers of 2 probes each,
 *				kept enabled (as node-dtrace-provider users make
 *				one per module or logger): CPU and wall time,
 *				per provider, and the last tenth's per-provider
 *				CPU time against the first's (1.0 when linear)
 *	runtime fire		per-call cost with no tracer: usdt_is_enabled,
 *				usdt_fire_probe, and the guarded pattern
 *				(if (usdt_is_enabled(p)) usdt_fire_probe(...)),
 *				against an empty loop
 *	runtime enabled		prints "ready PID", waits (30 s at most) until a
 *				tracer enables probe benchprov:hit, then times
 *				the guarded pattern while it is traced
 *
 * Times are the median of several runs, from CLOCK_MONOTONIC, with the
 * process's CPU time beside the create figures (on a shared machine the
 * wall clock also counts the time spent waiting for a CPU), and the minor
 * page faults of create + enable (getrusage): on a virtual machine a
 * fault can cost more than a thousand instructions, and the memory an
 * enable allocates and frees is given back to the system and faulted in
 * again by the next one, so faults, not instructions, set most of the
 * time.  Uses only usdt.h.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <usdt.h>

#define RUNS 15

static double
clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double
now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The process's CPU time: on a loaded machine the wall clock also counts waiting. */
static double
cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* Minor page faults of the process so far. */
static double
minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_minflt;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return v[n / 2];
}

static void
die(usdt_provider_t *p, const char *what)
{
	fprintf(stderr, "runtime: %s: %s\n", what, p ? usdt_errstr(p) : "out of memory");
	exit(1);
}

/* A provider "benchprov" with n probes p0..p(n-1) of (int, char *). */
static usdt_provider_t *
make_provider(int n, usdt_probedef_t **defs)
{
	const char *types[] = { "int", "char *" };
	usdt_provider_t *p = usdt_create_provider("benchprov", "bench");
	char name[32];

	if (p == NULL)
		die(NULL, "usdt_create_provider");
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), n == 1 ? "hit" : "p%d", i);
		if ((defs[i] = usdt_create_probe("func", name, 2, types)) == NULL)
			die(NULL, "usdt_create_probe");
		if (usdt_provider_add_probe(p, defs[i]) != 0)
			die(p, "usdt_provider_add_probe");
	}
	return p;
}

static void
free_provider(usdt_provider_t *p, usdt_probedef_t **defs, int n)
{
	usdt_provider_free(p);
	for (int i = 0; i < n; i++)
		usdt_probe_release(defs[i]);
}

static void
bench_create(int n, int runs)
{
	usdt_probedef_t **defs = calloc((size_t)n, sizeof(*defs));
	double up[RUNS], upcpu[RUNS], down[RUNS], faults[RUNS];

	if (defs == NULL || runs < 1 || runs > RUNS)
		die(NULL, "arguments");
	for (int r = 0; r < runs; r++) {
		double t0 = now_ns(), c0 = cpu_ns(), f0 = minflt(), t1, t2;
		usdt_provider_t *p = make_provider(n, defs);

		if (usdt_provider_enable(p) != 0)
			die(p, "usdt_provider_enable");
		t1 = now_ns();
		upcpu[r] = cpu_ns() - c0;
		faults[r] = minflt() - f0;
		free_provider(p, defs, n);
		t2 = now_ns();
		up[r] = t1 - t0;
		down[r] = t2 - t1;
	}
	printf("libusdt: %d probes: create+enable %.2f ms (%.2f us a probe; "
	    "%.2f ms of CPU, %.0f page faults), disable+free %.2f ms\n", n,
	    median(up, runs) / 1e6, median(up, runs) / 1e3 / n,
	    median(upcpu, runs) / 1e6, median(faults, runs), median(down, runs) / 1e6);
	free(defs);
}

static void
bench_baseline(const char *so, int n, int runs)
{
	double up[RUNS], upcpu[RUNS];

	if (runs < 1 || runs > RUNS)
		die(NULL, "arguments");
	for (int r = 0; r < runs; r++) {
		double t0 = now_ns(), c0 = cpu_ns();
		void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);

		if (h == NULL) {
			fprintf(stderr, "runtime: dlopen %s: %s\n", so, dlerror());
			exit(1);
		}
		up[r] = now_ns() - t0;
		upcpu[r] = cpu_ns() - c0;
		dlclose(h);
	}
	printf("baseline: %d probes known at build time: dlopen %.2f ms (%.2f ms of CPU)\n",
	    n, median(up, runs) / 1e6, median(upcpu, runs) / 1e6);
}

/* N providers "benchprovI" of 2 probes each, created and enabled, then freed. */
static void
bench_providers(int n)
{
	usdt_provider_t **ps = calloc((size_t)n, sizeof(*ps));
	usdt_probedef_t *(*defs)[2] = calloc((size_t)n, sizeof(*defs));
	const char *types[] = { "int", "char *" };
	double t0 = now_ns(), c0 = cpu_ns(), first = 0, last = 0, t1, c1;
	int tenth = n / 10 > 0 ? n / 10 : 1;
	char name[32];

	if (ps == NULL || defs == NULL || n < 1)
		die(NULL, "arguments");
	for (int i = 0; i < n; i++) {
		double ci = cpu_ns();

		snprintf(name, sizeof(name), "benchprov%d", i);
		if ((ps[i] = usdt_create_provider(name, "bench")) == NULL)
			die(NULL, "usdt_create_provider");
		for (int j = 0; j < 2; j++)
			if ((defs[i][j] = usdt_create_probe("func", j ? "done" : "start", 2, types)) == NULL ||
			    usdt_provider_add_probe(ps[i], defs[i][j]) != 0)
				die(ps[i], "usdt_provider_add_probe");
		if (usdt_provider_enable(ps[i]) != 0)
			die(ps[i], "usdt_provider_enable");
		if (i < tenth)
			first += cpu_ns() - ci;
		else if (i >= n - tenth)
			last += cpu_ns() - ci;
	}
	t1 = now_ns() - t0;
	c1 = cpu_ns() - c0;
	printf("libusdt: %5d providers: create+enable %8.1f ms of CPU (%6.1f us a provider; "
	    "wall %8.1f ms); last tenth / first tenth per provider: %.2fx\n", n, c1 / 1e6,
	    c1 / 1e3 / n, t1 / 1e6, last / first);
	for (int i = 0; i < n; i++) {
		usdt_provider_free(ps[i]);
		usdt_probe_release(defs[i][0]);
		usdt_probe_release(defs[i][1]);
	}
	free(ps);
	free(defs);
}

/* One timed loop of n iterations of `body`; ns per iteration. */
#define TIME_LOOP(n, body) ({						\
	double t0_ = now_ns();						\
	for (long i_ = 0; i_ < (n); i_++) {				\
		body;							\
		__asm__ __volatile__("" ::: "memory");			\
	}								\
	(now_ns() - t0_) / (double)(n);					\
})

static void
print_row(const char *what, double ns, double base)
{
	printf("%-44s %9.2f ns %9.1fx\n", what, ns, base > 0 ? ns / base : 0.0);
}

static void
bench_fire(void)
{
	usdt_probedef_t *def;
	usdt_provider_t *p = make_provider(1, &def);
	void *argv[] = { (void *)(intptr_t)42, "hello" };
	const long n = 20000000;
	double empty[RUNS], isen[RUNS], fire[RUNS], guarded[RUNS], base;
	volatile long sink = 0;

	if (usdt_provider_enable(p) != 0)
		die(p, "usdt_provider_enable");
	for (int r = 0; r < RUNS; r++) {
		empty[r] = TIME_LOOP(n, sink++);
		isen[r] = TIME_LOOP(n, sink += usdt_is_enabled(def->probe));
		fire[r] = TIME_LOOP(n, usdt_fire_probe(def->probe, 2, argv));
		guarded[r] = TIME_LOOP(n, if (usdt_is_enabled(def->probe))
		    usdt_fire_probe(def->probe, 2, argv));
	}
	base = median(empty, RUNS);
	printf("%-44s %12s %10s\n", "no tracer, per call", "time", "vs empty");
	print_row("empty loop", base, base);
	print_row("usdt_is_enabled", median(isen, RUNS), base);
	print_row("usdt_fire_probe (2 args, unconditional)", median(fire, RUNS), base);
	print_row("if (usdt_is_enabled) usdt_fire_probe", median(guarded, RUNS), base);
	free_provider(p, &def, 1);
}

static void
bench_enabled(void)
{
	usdt_probedef_t *def;
	usdt_provider_t *p = make_provider(1, &def);
	void *argv[] = { (void *)(intptr_t)42, "hello" };
	const long n = 200000;
	volatile long sink = 0;
	double empty, guarded;
	time_t end;

	if (usdt_provider_enable(p) != 0)
		die(p, "usdt_provider_enable");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (end = time(NULL) + 30; !usdt_is_enabled(def->probe); usleep(10000))
		if (time(NULL) > end) {
			fprintf(stderr, "runtime: no tracer enabled benchprov:hit\n");
			exit(1);
		}
	empty = TIME_LOOP(n, sink++);
	guarded = TIME_LOOP(n, if (usdt_is_enabled(def->probe))
	    usdt_fire_probe(def->probe, 2, argv));
	printf("%-44s %12s %10s\n", "traced by bpftrace, per call", "time", "vs empty");
	print_row("empty loop", empty, empty);
	print_row("if (usdt_is_enabled) usdt_fire_probe", guarded, empty);
	free_provider(p, &def, 1);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "create") == 0 && argc == 4)
		bench_create(atoi(argv[2]), atoi(argv[3]));
	else if (strcmp(mode, "baseline") == 0 && argc == 5)
		bench_baseline(argv[2], atoi(argv[3]), atoi(argv[4]));
	else if (strcmp(mode, "providers") == 0 && argc == 3)
		bench_providers(atoi(argv[2]));
	else if (strcmp(mode, "fire") == 0)
		bench_fire();
	else if (strcmp(mode, "enabled") == 0)
		bench_enabled();
	else {
		fprintf(stderr, "usage: %s create N RUNS | baseline SO N RUNS | providers N | fire | "
		    "enabled\n",
		    argv[0]);
		return 2;
	}
	return 0;
}
