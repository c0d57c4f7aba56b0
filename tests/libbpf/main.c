/*
 * main.c - the tests/libbpf program: `prog GO`, runs lbpf_run (fire.c,
 * linked in or from a shared library linked at build time) with GO as
 * its fifo, writing to stdout.  alarm() bounds a run whose tracer never
 * comes, so a broken test cannot leave it behind.
 */
#include <stdio.h>
#include <unistd.h>

int lbpf_run(const char *go, FILE *out);

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s GO\n", argv[0]);
		return 2;
	}
	alarm(60);
	return lbpf_run(argv[1], stdout) < 0;
}
