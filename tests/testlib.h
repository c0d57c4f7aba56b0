/*
 * testlib.h - the one harness of the C test drivers.
 *
 * Why: tests/run counts `ok - NAME`, `FAIL - NAME: why` and `SKIP - NAME:
 * why` lines (tests/lib.sh); a driver that prints them itself, each in its
 * own way, can drift from that form or forget its exit status.  Here every
 * check prints one such line, a failure says where (file:line) and why,
 * test_summary() ends the output with a `# ` line (not counted) and gives
 * the exit status: 0, or 1 once any check failed.
 *
 *   CHECK(cond, name)                 ok if cond holds
 *   CHECK_EQ(got, want, name)         integers, both printed on failure
 *   CHECK_STR(got, want, name)        strings (NULL is never equal)
 *   check(cond, name, fmt, ...)       ok if cond holds, else why from fmt
 *   test_begin(name); ... test_failf(fmt, ...); ... test_end();
 *                                     one check made of many expectations:
 *                                     FAIL lists every test_failf since begin
 *   return test_summary();            from main
 *
 * Header-only: each driver is one translation unit (or includes this from
 * only one).  count_open_fds() is how leak tests see descriptors, and
 * maps_lines() how they see mappings.
 */
#ifndef USDTC_TESTLIB_H
#define USDTC_TESTLIB_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int testlib_checks, testlib_failures;

static void __attribute__((format(printf, 5, 6), unused))
testlib_check(const char *file, int line, int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	testlib_checks++;
	if (cond) {
		printf("ok - %s\n", name);
		fflush(stdout);
		return;
	}
	testlib_failures++;
	printf("FAIL - %s: %s:%d: ", name, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#define check(cond, name, ...) \
	testlib_check(__FILE__, __LINE__, (cond) != 0, (name), __VA_ARGS__)
#define CHECK(cond, name) \
	testlib_check(__FILE__, __LINE__, (cond) != 0, (name), "%s", "not true: " #cond)
#define CHECK_EQ(got, want, name) do { \
	long long testlib_g = (long long)(got), testlib_w = (long long)(want); \
	testlib_check(__FILE__, __LINE__, testlib_g == testlib_w, (name), \
	    "%s is %lld, want %lld", #got, testlib_g, testlib_w); \
} while (0)
#define CHECK_STR(got, want, name) do { \
	const char *testlib_g = (got), *testlib_w = (want); \
	testlib_check(__FILE__, __LINE__, \
	    testlib_g != NULL && testlib_w != NULL && strcmp(testlib_g, testlib_w) == 0, \
	    (name), "%s is '%s', want '%s'", #got, testlib_g ? testlib_g : "(null)", \
	    testlib_w ? testlib_w : "(null)"); \
} while (0)

/* One check of many expectations (test_begin ... test_end). */
static const char *testlib_name;
static char testlib_why[2048];
static int testlib_failed;

static void __attribute__((unused))
test_begin(const char *name)
{
	testlib_name = name;
	testlib_failed = 0;
	testlib_why[0] = '\0';
}

static void __attribute__((format(printf, 3, 4), unused))
testlib_failf(const char *file, int line, const char *fmt, ...)
{
	size_t len = strlen(testlib_why);
	va_list ap;

	if (testlib_failed++ > 0 && len + 2 < sizeof(testlib_why))
		memcpy(testlib_why + len, "; ", 3), len += 2;
	if (len < sizeof(testlib_why))
		len += (size_t)snprintf(testlib_why + len, sizeof(testlib_why) - len,
		    "%s:%d: ", file, line);
	if (len < sizeof(testlib_why)) {
		va_start(ap, fmt);
		vsnprintf(testlib_why + len, sizeof(testlib_why) - len, fmt, ap);
		va_end(ap);
	}
}
#define test_failf(...) testlib_failf(__FILE__, __LINE__, __VA_ARGS__)

/* Whether the current test_begin check has failed so far. */
static int __attribute__((unused))
test_failing(void)
{
	return testlib_failed != 0;
}

static void __attribute__((unused))
test_end(void)
{
	testlib_checks++;
	if (testlib_failed) {
		testlib_failures++;
		printf("FAIL - %s: %s\n", testlib_name, testlib_why);
	} else {
		printf("ok - %s\n", testlib_name);
	}
	fflush(stdout);
}

/* The last line of a driver's output, and its exit status. */
static int __attribute__((unused))
test_summary(void)
{
	printf("# %d checks, %d failed\n", testlib_checks, testlib_failures);
	fflush(stdout);
	return testlib_failures != 0;
}

/* Descriptors open in this process, or -1 if /proc is not there. */
static int __attribute__((unused))
count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

/* Lines of /proc/self/maps containing needle, or -1 if it cannot be read. */
static int __attribute__((unused))
maps_lines(const char *needle)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

#endif
