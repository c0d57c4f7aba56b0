/*
 * baseline.c - a probe made with <sys/sdt.h> alone, no usdtc involved.
 *
 * The e2e suite traces this first: if bpftrace cannot read these values,
 * the machine (kernel, bpftrace) is at fault, not usdtc, and the report
 * says so before any usdtc check runs.
 */
#include <stdio.h>
#include <sys/sdt.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	FILE *ready;
	char word[16];
	int i;

	if (argc < 3)
		return 2;
	snprintf(word, sizeof(word), "base%d", 1);
	ready = fopen(argv[2], "w");
	if (ready == NULL)
		return 1;
	fclose(ready);
	for (i = 0; i < 60000 && access(argv[1], F_OK) != 0; i++) {
		DTRACE_PROBE2(baseline, hit, -5, word);
		usleep(10000);
	}
	return 0;
}
