/*
 * api.c - libusdt's API, behaviour and limits, checked from inside a
 * process (no tracer needed).  Uses only usdt.h; prints one
 * "ok - ..." / "FAIL - ...: why" line per check, as tests/lib.sh does.
 *
 * Covered: creation and reference counts, the 32-argument limit,
 * duplicate and missing probes, bad types and names with their usdt_errstr
 * text, what enabling maps (a file in LIBUSDT_DIR, no page writable and
 * executable, the probe tracepoint bytes), disable and re-enable with a
 * changed probe set, the memfd fallback (LIBUSDT_DIR empty) and the
 * descriptor it keeps and gives back, a fork child firing inherited
 * probes, and probes firing in several threads while another thread
 * enables and disables another provider.  findings.c has the checks of
 * issue 11's findings.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <usdt.h>

#include "../testlib.h"
#include "probedef.h"

/* Lines of /proc/self/maps containing needle; writable+executable count in *wx. */
static int
maps_matching(const char *needle, int *wx)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (wx != NULL)
		*wx = 0;
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		char perms[8] = "";

		if (sscanf(line, "%*s %7s", perms) == 1 && wx != NULL &&
		    strchr(perms, 'w') && strchr(perms, 'x'))
			(*wx)++;
		if (needle != NULL && strstr(line, needle) != NULL)
			n++;
	}
	fclose(f);
	return n;
}

static int
is_tracepoint(const void *p)
{
	static const unsigned char nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	return p != NULL && memcmp(p, nop5, sizeof(nop5)) == 0;
}

static void
check_creation(void)
{
	const char *types[40];
	usdt_provider_t *p = usdt_create_provider("testlibusdt", "modname");
	usdt_probedef_t *pd;

	for (int i = 0; i < 40; i++)
		types[i] = i % 2 ? "char *" : "int";
	check(usdt_create_probe("func", "name", 40, types) == NULL,
	    "40 argument types are refused (USDT_ARG_MAX is 32)", "created");
	pd = probe("func", "name", USDT_ARG_MAX, types);
	check(p != NULL && strcmp(p->name, "testlibusdt") == 0 &&
	    strcmp(p->module, "modname") == 0 && p->probedefs == NULL && !p->enabled,
	    "usdt_create_provider copies name and module", "got %p", (void *)p);
	check(pd->refcnt == 2 && strcmp(pd->function, "func") == 0 &&
	    strcmp(pd->name, "name") == 0 && pd->probe == NULL,
	    "usdt_create_probe: two references, names copied, no probe yet",
	    "refcnt %d", pd->refcnt);
	check(pd->argc == USDT_ARG_MAX && strcmp(pd->types[31], "char *") == 0,
	    "32 argument types are kept", "argc %zu", pd->argc);
	check(usdt_create_probe("f", "n", 1, NULL) == NULL,
	    "usdt_create_probe without types for its arguments is NULL", "not NULL");
	check(usdt_is_enabled(NULL) == 0, "usdt_is_enabled(NULL) is 0", "not 0");
	usdt_fire_probe(NULL, 0, NULL);
	check(strcmp(usdt_errstr(p), "no error") == 0,
	    "usdt_errstr before any error says so", "'%s'", usdt_errstr(p));
	usdt_error(p, (usdt_error_t)99);
	check(strstr(usdt_errstr(p), "unknown libusdt error 99") != NULL,
	    "usdt_error with an unknown code says so", "'%s'", usdt_errstr(p));
	usdt_error(p, USDT_ERROR_LOADDOF, "because");
	check(strcmp(usdt_errstr(p), "failed to load DOF: because") == 0,
	    "usdt_error formats the original messages", "'%s'", usdt_errstr(p));
	usdt_probe_release(pd);
	usdt_probe_release(pd);	/* never added: the second reference */
	usdt_provider_free(p);
}

static void
check_errors(void)
{
	const char *dbl[] = { "int", "double" };
	const char *ints[] = { "int" };
	usdt_provider_t *p = usdt_create_provider("testlibusdt", "modname");
	usdt_probedef_t *a = probe("func", "name", 1, ints);
	usdt_probedef_t *dup = probe("func", "name", 0, NULL);
	usdt_probedef_t *other = probe("other", "name", 0, NULL);
	usdt_probedef_t *bad = probe("func", "bad", 2, dbl);
	usdt_probedef_t *badname = probe("func", "bad name", 0, NULL);
	usdt_probedef_t *missing = probe("func", "missing", 0, NULL);

	check(usdt_provider_enable(p) == -1 &&
	    strcmp(usdt_errstr(p), "no probes defined") == 0,
	    "enabling a provider without probes fails: no probes defined",
	    "'%s'", usdt_errstr(p));
	check(usdt_provider_add_probe(p, a) == 0, "usdt_provider_add_probe", "%s",
	    usdt_errstr(p));
	check(usdt_provider_add_probe(p, dup) == -1 && strcmp(usdt_errstr(p),
	    "probe named testlibusdt:modname:func:name already exists") == 0,
	    "a duplicate probe is an error", "'%s'", usdt_errstr(p));
	check(usdt_provider_add_probe(p, other) == 0,
	    "the same probe name in another function is allowed", "%s", usdt_errstr(p));
	check(usdt_provider_add_probe(p, bad) == -1 &&
	    strstr(usdt_errstr(p), "argument 1 has type 'double'") != NULL,
	    "an argument type that cannot be passed is an error", "'%s'",
	    usdt_errstr(p));
	check(usdt_provider_add_probe(p, badname) == -1 &&
	    strstr(usdt_errstr(p), "invalid probe name 'bad name'") != NULL,
	    "a probe name DTrace rejects is an error", "'%s'", usdt_errstr(p));
	check(usdt_provider_remove_probe(p, missing) == -1 && strcmp(usdt_errstr(p),
	    "failed to remove probe testlibusdt:modname:func:missing") == 0,
	    "removing a probe the provider lacks is an error", "'%s'", usdt_errstr(p));
	check(usdt_provider_remove_probe(p, dup) == 0 && p->probedefs == other,
	    "removing a probe by function and name", "head %p", (void *)p->probedefs);
	usdt_probe_release(a);	/* dropped by the provider on remove: now freed */
	usdt_probe_release(dup);	/* failed adds dropped the provider's reference */
	usdt_probe_release(bad);
	usdt_probe_release(badname);
	usdt_probe_release(missing);	/* never added: both references are ours */
	usdt_probe_release(missing);
	usdt_probe_release(other);
	usdt_provider_free(p);

	p = usdt_create_provider("bad-provider", "modname");
	a = probe("func", "name", 0, NULL);
	usdt_provider_add_probe(p, a);
	check(usdt_provider_enable(p) == -1 &&
	    strstr(usdt_errstr(p), "invalid provider name 'bad-provider'") != NULL,
	    "a provider name DTrace rejects fails at enable", "'%s'", usdt_errstr(p));
	usdt_provider_free(p);
	usdt_probe_release(a);
}

static int
dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void
fire_all_counts(usdt_probedef_t *pd)
{
	void *argv[USDT_ARG_MAX];

	for (int i = 0; i < USDT_ARG_MAX; i++)
		argv[i] = (void *)(intptr_t)(i + 1);
	for (size_t n = 0; n <= USDT_ARG_MAX; n++)
		usdt_fire_probe(pd->probe, n, argv);
	usdt_fire_probe(pd->probe, 1000, argv);	/* more than the limit: cut */
}

static void
check_lifecycle(const char *dir)
{
	const char *t32[USDT_ARG_MAX];
	const char *t2[] = { "int", "char *" };
	usdt_provider_t *p = usdt_create_provider("testlibusdt", "modname");
	usdt_probedef_t *a, *b, *c;
	int fds0 = count_open_fds(), fds1, wx, mapped;
	char prefix[512];

	for (int i = 0; i < USDT_ARG_MAX; i++)
		t32[i] = "int";
	a = probe("func", "name", 2, t2);
	b = probe("func", "many", USDT_ARG_MAX, t32);
	c = probe("func", "later", 0, NULL);
	usdt_provider_add_probe(p, a);
	usdt_provider_add_probe(p, b);
	check(usdt_provider_enable(p) == 0 && p->enabled == 1,
	    "usdt_provider_enable", "%s", usdt_errstr(p));
	check(a->probe != NULL && b->probe != NULL && is_tracepoint(a->probe->probe_addr) &&
	    is_tracepoint(b->probe->probe_addr) &&
	    is_tracepoint((const void *)a->probe->isenabled_addr),
	    "each probe points at its tracepoints (5-byte nops)", "probe %p",
	    (void *)a->probe);
	check(usdt_is_enabled(a->probe) == 0, "no tracer: usdt_is_enabled is 0",
	    "it is %d", usdt_is_enabled(a->probe));
	fire_all_counts(b);
	check(1, "firing with 0 to 32 arguments, and more than 32", "crashed");
	snprintf(prefix, sizeof(prefix), "%s/libusdt-", dir);
	mapped = maps_matching(prefix, &wx);
	check(mapped >= 3 && dir_entries(dir) == 1,
	    "the object is mapped from its file in LIBUSDT_DIR, segment by segment",
	    "%d mappings, %d files", mapped, dir_entries(dir));
	check(wx == 0, "no page of the process is writable and executable",
	    "%d such mappings", wx);
	fds1 = count_open_fds();
	/* The directory's, through which the loader named the file: none per provider. */
	check(fds1 == fds0 + 1, "an enabled provider keeps one descriptor, its directory's",
	    "%d before, %d after", fds0, fds1);

	check(usdt_provider_disable(p) == 0 && p->enabled == 0 && a->probe == NULL &&
	    b->probe == NULL, "usdt_provider_disable clears the probes", "%s",
	    usdt_errstr(p));
	check(maps_matching(prefix, NULL) == 0 && dir_entries(dir) == 0 &&
	    count_open_fds() == fds0, "disable unmaps the object and removes its file",
	    "%d fds, %d files", count_open_fds(), dir_entries(dir));
	usdt_fire_probe(a->probe, 0, NULL);
	check(usdt_is_enabled(a->probe) == 0, "a disabled probe is a no-op",
	    "enabled");
	check(usdt_provider_disable(p) == 0, "disabling twice is harmless", "%s",
	    usdt_errstr(p));

	usdt_provider_remove_probe(p, b);
	usdt_provider_add_probe(p, c);
	check(usdt_provider_enable(p) == 0 && a->probe != NULL && c->probe != NULL &&
	    b->probe == NULL && is_tracepoint(c->probe->probe_addr),
	    "re-enabled with a changed probe set", "%s", usdt_errstr(p));
	usdt_provider_free(p);
	check(maps_matching(prefix, NULL) == 0 && dir_entries(dir) == 0 &&
	    count_open_fds() == fds0, "usdt_provider_free of an enabled provider unloads it",
	    "%d fds, %d files", count_open_fds(), dir_entries(dir));
	usdt_probe_release(a);
	usdt_probe_release(b);
	usdt_probe_release(c);
}

/* One probe name in two functions, and two names with one unit name. */
static void
check_shared_names(void)
{
	usdt_provider_t *p = usdt_create_provider("shared", "modname");
	usdt_probedef_t *d[4] = {
		probe("f1", "start", 0, NULL), probe("f2", "start", 0, NULL),
		probe("f1", "a-b", 0, NULL), probe("f1", "a__b", 0, NULL),
	};
	int distinct = 1;

	for (int i = 0; i < 4; i++)
		usdt_provider_add_probe(p, d[i]);
	check(usdt_provider_enable(p) == 0, "enable probes sharing names", "%s",
	    usdt_errstr(p));
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < i; j++)
			if (d[i]->probe == NULL || d[i]->probe->probe_addr ==
			    d[j]->probe->probe_addr || !is_tracepoint(d[i]->probe->probe_addr))
				distinct = 0;
	check(distinct, "each probe sharing a name has a unit of its own", "shared");
	usdt_provider_free(p);
	for (int i = 0; i < 4; i++)
		usdt_probe_release(d[i]);
}

/* LIBUSDT_DIR empty: no directory, a memfd, its descriptor kept open. */
static void
check_memfd_fallback(void)
{
	usdt_provider_t *p = usdt_create_provider("fallback", "modname");
	usdt_probedef_t *a = probe("func", "name", 0, NULL);
	int fds0 = count_open_fds(), rc;

	setenv("LIBUSDT_DIR", "", 1);
	usdt_provider_add_probe(p, a);
	rc = usdt_provider_enable(p);
	check(rc == 0 && is_tracepoint(a->probe->probe_addr),
	    "without a usable directory: enabled from a memfd", "%s", usdt_errstr(p));
	check(maps_matching("/memfd:libusdt:fallback (deleted)", NULL) >= 3 &&
	    count_open_fds() == fds0 + 1,
	    "the mapping is the memfd, whose descriptor stays open for bcc",
	    "%d mappings, %d fds", maps_matching("/memfd:libusdt:fallback", NULL),
	    count_open_fds() - fds0);
	usdt_provider_free(p);
	check(count_open_fds() == fds0, "free closes the memfd", "%d fds",
	    count_open_fds() - fds0);
	usdt_probe_release(a);
}

static void
check_fork(void)
{
	const char *t1[] = { "int" };
	usdt_provider_t *p = usdt_create_provider("forked", "modname");
	usdt_probedef_t *a = probe("func", "name", 1, t1);
	void *argv[] = { (void *)7 };
	pid_t pid;
	int status = -1;

	usdt_provider_add_probe(p, a);
	usdt_provider_enable(p);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		usdt_fire_probe(a->probe, 1, argv);
		_exit(usdt_is_enabled(a->probe) == 0 ? 0 : 3);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a fork child fires the inherited probes", "status 0x%x", status);
	usdt_provider_free(p);
	usdt_probe_release(a);
}

/* ---- threads ------------------------------------------------------------ */

static volatile int stop_threads;
static usdt_probedef_t *thread_probe;

static void *
fire_loop(void *arg)
{
	long n = 0;
	void *argv[] = { (void *)1, "thread" };

	(void)arg;
	while (!stop_threads) {
		if (usdt_is_enabled(thread_probe->probe) == 0)
			usdt_fire_probe(thread_probe->probe, 2, argv);
		n++;
	}
	return (void *)n;
}

static void
check_threads(void)
{
	const char *t2[] = { "int", "char *" };
	usdt_provider_t *a = usdt_create_provider("threaded", "modname");
	pthread_t th[4];
	long fired = 0;
	int cycles = 0, errors = 0;

	thread_probe = probe("func", "name", 2, t2);
	usdt_provider_add_probe(a, thread_probe);
	if (usdt_provider_enable(a) != 0) {
		check(0, "threads: enable", "%s", usdt_errstr(a));
		return;
	}
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, fire_loop, NULL);
	for (; cycles < 200; cycles++) {
		usdt_provider_t *b = usdt_create_provider("churn", "modname");
		usdt_probedef_t *pd = usdt_create_probe("func", "name", 2, t2);

		usdt_provider_add_probe(b, pd);
		errors += usdt_provider_enable(b) != 0;
		errors += usdt_provider_disable(b) != 0;
		usdt_provider_free(b);
		usdt_probe_release(pd);
	}
	stop_threads = 1;
	for (int i = 0; i < 4; i++) {
		void *n;

		pthread_join(th[i], &n);
		fired += (long)n;
	}
	check(errors == 0 && fired > 0,
	    "4 threads fire while another enables and disables another provider",
	    "%d errors, %ld fired in %d cycles", errors, fired, cycles);
	usdt_provider_free(a);
	usdt_probe_release(thread_probe);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	setenv("LIBUSDT_DIR", argv[1], 1);
	check_creation();
	check_errors();
	check_lifecycle(argv[1]);
	check_shared_names();
	check_memfd_fallback();
	setenv("LIBUSDT_DIR", argv[1], 1);
	check_fork();
	check_threads();
	return test_summary();
}
