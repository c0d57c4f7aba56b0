/*
 * findings.c - one check per finding of issue 11 in libusdt itself, each
 * written to fail on the library as it was before the fix.
 *
 * Usage: findings DIR [big].  DIR is where images go (LIBUSDT_DIR); "big"
 * also enables a provider of 100,000 probes.  Prints one ok/FAIL line per
 * check (testlib.h).  Uses only usdt.h, plus an interposed memfd_create
 * that can play a kernel with vm.memfd_noexec=2 (MFD_EXEC refused with
 * EACCES), since the executable's definition is the one libusdt calls.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <usdt.h>

#include "../testlib.h"
#include "probedef.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* ---- an interposed memfd_create ------------------------------------------ */

static int refuse_mfd_exec;	/* play vm.memfd_noexec=2 */
static int memfd_calls;

int
memfd_create(const char *name, unsigned int flags)
{
	static int (*real)(const char *, unsigned int);

	memfd_calls++;
	if (refuse_mfd_exec && (flags & MFD_EXEC) != 0) {
		errno = EACCES;
		return -1;
	}
	if (real == NULL)
		real = (int (*)(const char *, unsigned int))dlsym(RTLD_NEXT, "memfd_create");
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(name, flags);
}

/* ---- helpers --------------------------------------------------------------- */

/* The descriptor whose /proc/self/fd link starts with prefix, or -1. */
static int
fd_linking_to(const char *prefix)
{
	char path[64], target[1024];

	for (int fd = 0; fd < 1024; fd++) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if ((n = readlink(path, target, sizeof(target) - 1)) <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, prefix, strlen(prefix)) == 0)
			return fd;
	}
	return -1;
}

/* A provider of n probes p0.. of (int, char *), added and enabled. */
static int
build(int n, usdt_provider_t **out)
{
	const char *types[] = { "int", "char *" };
	usdt_provider_t *p = usdt_create_provider("scale", "modname");
	char name[32];

	for (int i = 0; i < n; i++) {
		usdt_probedef_t *pd;

		snprintf(name, sizeof(name), "p%d", i);
		pd = probe("func", name, 2, types);
		if (usdt_provider_add_probe(p, pd) != 0)
			return -1;
		usdt_probe_release(pd);
	}
	if (usdt_provider_enable(p) != 0) {
		printf("# enable of %d probes: %s\n", n, usdt_errstr(p));
		usdt_provider_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

/* ---- the findings ------------------------------------------------------- */

/* Removing a probedef and adding it back was a use-after-free. */
static void
remove_and_add_back(void)
{
	usdt_provider_t *p = usdt_create_provider("readd", "modname");
	usdt_probedef_t *a = probe("func", "a", 0, NULL), *b = probe("func", "b", 0, NULL);
	int r0, r1, r2;

	usdt_provider_add_probe(p, a);
	usdt_provider_add_probe(p, b);
	r0 = a->refcnt;
	usdt_provider_remove_probe(p, a);
	r1 = a->refcnt;
	usdt_provider_add_probe(p, a);
	r2 = a->refcnt;
	check(r0 == 2 && r1 == 1 && r2 == 2 && usdt_provider_enable(p) == 0 &&
	    a->probe != NULL,
	    "remove and add back: the provider's reference is given back and taken again",
	    "refcnt %d -> %d -> %d; %s", r0, r1, r2, usdt_errstr(p));
	usdt_provider_free(p);
	check(a->refcnt == 1 && b->refcnt == 1,
	    "after usdt_provider_free the caller holds the last reference",
	    "refcnt %d %d", a->refcnt, b->refcnt);
	usdt_probe_release(a);	/* freed here: ASan and valgrind see a second free */
	usdt_probe_release(b);
}

/* vm.memfd_noexec=2: MFD_EXEC is refused, a memfd without it works. */
static void
memfd_noexec(void)
{
	usdt_provider_t *p = usdt_create_provider("noexec", "modname");
	usdt_probedef_t *a = probe("func", "a", 0, NULL);
	int rc;

	setenv("LIBUSDT_DIR", "", 1);
	refuse_mfd_exec = 1;
	memfd_calls = 0;
	usdt_provider_add_probe(p, a);
	rc = usdt_provider_enable(p);
	check(rc == 0 && memfd_calls == 2 && maps_lines("/memfd:libusdt:noexec") >= 3,
	    "memfd_create(MFD_EXEC) refused with EACCES (vm.memfd_noexec=2): retried "
	    "without MFD_EXEC, the object is a memfd",
	    "rc %d, %d memfd_create calls, %d memfd mappings; %s", rc, memfd_calls,
	    maps_lines("/memfd:libusdt:noexec"), usdt_errstr(p));
	refuse_mfd_exec = 0;
	usdt_provider_free(p);
	usdt_probe_release(a);
}

/*
 * add_probe and enable were quadratic, and 100,000 probes never finished.
 * That they grow linearly is counted in instructions by tests/libusdt/run
 * (scale.c under callgrind), not timed here.
 */
static void
big(void)
{
	usdt_provider_t *p;

	unsetenv("LIBUSDT_DIR");
	if (build(100000, &p) != 0) {
		check(0, "a provider of 100,000 probes enables", "failed");
		return;
	}
	check(p->enabled && p->probedefs->probe != NULL,
	    "a provider of 100,000 probes enables", "not enabled");
	usdt_provider_free(p);
}

/* argc 33 was cut to 32 in silence. */
static void
too_many_args(void)
{
	const char *types[USDT_ARG_MAX + 1];
	usdt_probedef_t *pd;

	for (int i = 0; i <= USDT_ARG_MAX; i++)
		types[i] = "int";
	errno = 0;
	pd = usdt_create_probe("func", "many", USDT_ARG_MAX + 1, types);
	check(pd == NULL && errno == EINVAL,
	    "usdt_create_probe with 33 arguments fails (EINVAL) instead of cutting to 32",
	    "%s", pd ? "created" : strerror(errno));
	if (pd != NULL) {
		usdt_probe_release(pd);
		usdt_probe_release(pd);
	}
	pd = probe("func", "max", USDT_ARG_MAX, types);
	check(pd->argc == USDT_ARG_MAX, "32 arguments are fine", "argc %zu", pd->argc);
	usdt_probe_release(pd);
	usdt_probe_release(pd);
}

/* A failed add left both references with the caller. */
static void
failed_add(void)
{
	usdt_provider_t *p = usdt_create_provider("failed", "modname");
	usdt_provider_t *q = usdt_create_provider("other", "modname");
	usdt_probedef_t *a = probe("func", "a", 0, NULL), *dup = probe("func", "a", 0, NULL);
	int rc;

	usdt_provider_add_probe(p, a);
	rc = usdt_provider_add_probe(p, dup);
	check(rc == -1 && dup->refcnt == 1,
	    "a failed add drops the reference made for the provider: one release frees it",
	    "rc %d, refcnt %d", rc, dup->refcnt);
	usdt_probe_release(dup);	/* the last one: valgrind/ASan see a leak otherwise */
	rc = usdt_provider_add_probe(q, a);
	check(rc == -1 && a->refcnt == 2 && strstr(usdt_errstr(q), "already in provider failed"),
	    "a probedef in one provider cannot join another (one next pointer)",
	    "rc %d, refcnt %d, '%s'", rc, a->refcnt, usdt_errstr(q));
	usdt_provider_free(p);
	usdt_provider_free(q);
	usdt_probe_release(a);
}

/* usdt_errstr was never cleared, and the next error freed its string. */
static void
errstr(void)
{
	usdt_provider_t *p = usdt_create_provider("errs", "modname");
	char longname[200];
	usdt_probedef_t *a, *b;
	const char *first, *second;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	a = probe(longname, "a", 0, NULL);
	b = probe(longname, "a", 0, NULL);
	usdt_provider_enable(p);	/* no probes: a short message */
	first = usdt_errstr(p);
	usdt_provider_add_probe(p, a);
	check(strcmp(usdt_errstr(p), "no error") == 0,
	    "a successful call clears the provider's error", "'%s'", usdt_errstr(p));
	usdt_provider_add_probe(p, b);	/* a duplicate: a long message */
	second = usdt_errstr(p);
	check(first == second && strstr(first, "already exists") != NULL,
	    "the string usdt_errstr returned stays valid after the next error "
	    "(it holds the latest message)", "%p then %p", (const void *)first,
	    (const void *)second);
	usdt_provider_free(p);
	usdt_probe_release(a);
	usdt_probe_release(b);	/* its failed add dropped the provider's reference */
}

/* Enabling twice returned 0. */
static void
enable_twice(void)
{
	usdt_provider_t *p = usdt_create_provider("twice", "modname");
	usdt_probedef_t *a = probe("func", "a", 0, NULL);
	int rc1, rc2;

	usdt_provider_add_probe(p, a);
	rc1 = usdt_provider_enable(p);
	rc2 = usdt_provider_enable(p);
	check(rc1 == 0 && rc2 == -1 && strcmp(usdt_errstr(p), "provider is already enabled") == 0,
	    "enabling an enabled provider returns -1: provider is already enabled",
	    "rc %d then %d, '%s'", rc1, rc2, usdt_errstr(p));
	usdt_provider_free(p);
	usdt_probe_release(a);
}

/* The memfd stayed open read-write and unsealed; a named file is read-only. */
static void
sealed(const char *dir)
{
	static const unsigned char junk[5] = { 0xcc, 0xcc, 0xcc, 0xcc, 0xcc };
	usdt_provider_t *p = usdt_create_provider("sealed", "modname");
	usdt_probedef_t *a = probe("func", "a", 0, NULL);
	char path[64], prefix[512];
	int fd, rw, w1 = 0, w2 = 0;
	struct stat st;

	setenv("LIBUSDT_DIR", "", 1);
	usdt_provider_add_probe(p, a);
	usdt_provider_enable(p);
	fd = fd_linking_to("/memfd:libusdt:sealed");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (fd >= 0) {
		w1 = (int)pwrite(fd, junk, sizeof(junk), 0);
		rw = open(path, O_RDWR);
		w2 = rw >= 0 ? (int)pwrite(rw, junk, sizeof(junk), 0) : -1;
		if (rw >= 0)
			close(rw);
	}
	check(fd >= 0 && w1 == -1 && w2 == -1,
	    "the memfd is sealed: no write reaches the running probe code",
	    "fd %d, writes returned %d and %d", fd, w1, w2);
	usdt_provider_free(p);

	setenv("LIBUSDT_DIR", dir, 1);
	p = usdt_create_provider("sealed", "modname");
	usdt_provider_add_probe(p, a);
	usdt_provider_enable(p);
	snprintf(prefix, sizeof(prefix), "%s/libusdt-", dir);
	fd = fd_linking_to(prefix);
	check(fd == -1 && maps_lines(prefix) >= 3,
	    "a named image keeps no descriptor once loaded", "fd %d", fd);
	check(p->enabled && usdt_provider_disable(p) == 0 && maps_lines(prefix) == 0,
	    "disable unmaps it", "%d mappings", maps_lines(prefix));
	usdt_provider_enable(p);
	{
		FILE *f = fopen("/proc/self/maps", "r");
		char line[1024], *s;

		st.st_mode = 0;
		while (f != NULL && fgets(line, sizeof(line), f) != NULL)
			if ((s = strstr(line, prefix)) != NULL) {
				s[strcspn(s, "\n")] = '\0';
				stat(s, &st);
				break;
			}
		if (f != NULL)
			fclose(f);
	}
	check((st.st_mode & 0777) == 0400, "the named image is mode 0400", "mode %o",
	    (unsigned)(st.st_mode & 0777));
	usdt_provider_free(p);
	usdt_probe_release(a);
}

/* EMFILE at the image's creation was reported as "no memfd ...". */
static void
emfile(const char *dir)
{
	usdt_provider_t *p = usdt_create_provider("emfile", "modname");
	usdt_probedef_t *a = probe("func", "a", 0, NULL);
	struct rlimit old, low;
	int maxfd = 0, rc1, rc2;
	char msg1[512], msg2[512];

	int fill[1024], nfill = 0;

	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			maxfd = fd;
	usdt_provider_add_probe(p, a);
	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = (rlim_t)maxfd + 1;
	setenv("LIBUSDT_DIR", dir, 1);
	setrlimit(RLIMIT_NOFILE, &low);
	/* Every descriptor below the limit taken. */
	while (nfill < 1024 && (fill[nfill] = open("/dev/null", O_RDONLY)) >= 0)
		nfill++;
	rc1 = usdt_provider_enable(p);
	snprintf(msg1, sizeof(msg1), "%s", usdt_errstr(p));
	setenv("LIBUSDT_DIR", "", 1);
	rc2 = usdt_provider_enable(p);
	snprintf(msg2, sizeof(msg2), "%s", usdt_errstr(p));
	while (nfill > 0)
		close(fill[--nfill]);
	setrlimit(RLIMIT_NOFILE, &old);
	check(rc1 == -1 && strstr(msg1, "Too many open files") != NULL &&
	    rc2 == -1 && strstr(msg2, "memfd_create") != NULL &&
	    strstr(msg2, "Too many open files") != NULL && strstr(msg2, "no memfd") == NULL,
	    "EMFILE is reported as EMFILE, for a named image and for a memfd",
	    "rc %d '%s'; rc %d '%s'", rc1, msg1, rc2, msg2);
	usdt_provider_free(p);
	usdt_probe_release(a);
}

/* Digit-leading probe names, as the original library's tests use. */
static void
digit_names(void)
{
	const char *t[] = { "int" };
	usdt_provider_t *p = usdt_create_provider("testlibusdt", "modname");
	usdt_probedef_t *a = probe("typei", "0arg", 0, NULL), *b = probe("typei", "1arg", 1, t);
	int rc;

	rc = usdt_provider_add_probe(p, a);
	rc |= usdt_provider_add_probe(p, b);
	rc |= usdt_provider_enable(p);
	check(rc == 0 && a->probe != NULL && b->probe != NULL,
	    "probe names may begin with a digit (0arg, 1arg)", "%s", usdt_errstr(p));
	usdt_provider_free(p);
	p = usdt_create_provider("9prov", "modname");
	usdt_provider_add_probe(p, a);
	check(usdt_provider_enable(p) == -1 && strstr(usdt_errstr(p), "starts with a digit"),
	    "provider names may not (DTrace appends the pid to them)", "'%s'",
	    usdt_errstr(p));
	usdt_provider_free(p);
	usdt_probe_release(a);
	usdt_probe_release(b);
}

/* FINDINGS_ONLY=NAME runs one check (to see each fail on an older libusdt). */
static int
wanted(const char *name)
{
	const char *only = getenv("FINDINGS_ONLY");

	return only == NULL || strcmp(only, name) == 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [big]\n", argv[0]);
		return 2;
	}
	setenv("LIBUSDT_DIR", argv[1], 1);
	if (wanted("readd"))
		remove_and_add_back();
	if (wanted("args"))
		too_many_args();
	if (wanted("failed_add"))
		failed_add();
	if (wanted("errstr"))
		errstr();
	if (wanted("twice"))
		enable_twice();
	if (wanted("digits"))
		digit_names();
	if (wanted("sealed"))
		sealed(argv[1]);
	if (wanted("emfile"))
		emfile(argv[1]);
	if (wanted("noexec"))
		memfd_noexec();
	if (wanted("big") && argc > 2 && strcmp(argv[2], "big") == 0)
		big();
	return test_summary();
}
