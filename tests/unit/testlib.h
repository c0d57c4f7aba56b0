/*
 * testlib.h - what the C test programs share.
 *
 * check() prints one `ok - NAME` or `FAIL - NAME: why` line, the form
 * tests/run counts, and remembers failures for the program's exit status.
 * count_open_fds() is how leak tests see descriptors.  Header-only: each
 * test program is one translation unit.
 */
#ifndef USDTC_TESTLIB_H
#define USDTC_TESTLIB_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>

static int check_failures;

static void __attribute__((format(printf, 3, 4), unused))
check(int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok - %s\n", name);
		return;
	}
	check_failures++;
	printf("FAIL - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
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

#endif
