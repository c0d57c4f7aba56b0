/*
 * subproc_test.c - spawn_words splits a command as the shell does.
 *
 * $CC, $CFLAGS and -x ldpath= are written for a shell, and make passes
 * CFLAGS='-DNAME="a b"' every day (issue 38, item 3): each case here is a
 * command and the words `sh -c 'printf "%s|" CMD'` gives for it (checked by
 * hand with dash and bash), and an unclosed quote is EINVAL.  One check
 * (tests/testlib.h), each failure naming its case.  tests/unit/run runs it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subproc.h"
#include "../testlib.h"

/* The words of cmd joined by '|', each followed by one, or "EINVAL". */
static void
split(const char *cmd, char *out, size_t size)
{
	size_t n, len = 0;
	char **argv = spawn_words(cmd, 2, &n);

	if (argv == NULL) {
		snprintf(out, size, "%s", errno == EINVAL ? "EINVAL" : "ENOMEM");
		return;
	}
	out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s|", argv[i]);
	if (argv[n] != NULL)
		snprintf(out, size, "argv[%zu] is not NULL", n);
	free(argv);
}

int
main(void)
{
	static const struct { const char *cmd, *want; } cases[] = {
		{ "", "" },
		{ " \t\n ", "" },
		{ "cc", "cc|" },
		{ "  gcc   -O2\t-g ", "gcc|-O2|-g|" },
		{ "-DNAME=\"a b\"", "-DNAME=a b|" },
		{ "-DQ=\\\"x\\\"", "-DQ=\"x\"|" },
		{ "-I\"dir with space\" -DS='single quoted'", "-Idir with space|-DS=single quoted|" },
		{ "-DBS=a\\\\b", "-DBS=a\\b|" },
		{ "\"a\\$b\\`c\\\"d\\\\e\\nf\"", "a$b`c\"d\\e\\nf|" },
		{ "'a\\b\"c'", "a\\b\"c|" },
		{ "'' \"\" x", "||x|" },
		{ "a\\ b c", "a b|c|" },
		{ "a\\\nb", "ab|" },
		{ "\"a\\\nb\"", "ab|" },
		{ "end\\", "end\\|" },
		{ "x'y'\"z\"w", "xyzw|" },
		{ "-DNAME=\"a b", "EINVAL" },
		{ "'open", "EINVAL" },
	};
	char got[512];

	test_begin("spawn_words splits as the shell splits (quotes, backslashes)");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		split(cases[i].cmd, got, sizeof(got));
		if (strcmp(got, cases[i].want) != 0)
			testlib_failf(__FILE__, __LINE__, "case %zu: '%s' gives '%s', want '%s'",
			    i, cases[i].cmd, got, cases[i].want);
	}
	test_end();
	return test_summary();
}
