/*
 * app.c - the program the install tests build with an installed usdtc,
 * through make, CMake and meson, and trace with bpftrace.
 *
 * It fires app:hello every 10 ms, and app:guarded only while
 * APP_GUARDED_ENABLED() is true, until the file named by argv[1] exists
 * (at most 60 s, so a broken test leaves no process behind for long).  It
 * creates the file named by argv[2] once it runs, so the test knows when
 * to attach.  The string argument is written at run time, in a page the
 * process has touched, which bpftrace's str() needs.
 */
#include <stdio.h>
#include <unistd.h>

#include "probes.h"

int
main(int argc, char **argv)
{
	char word[32];
	FILE *ready;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: app STOP-FILE READY-FILE\n");
		return 2;
	}
	snprintf(word, sizeof(word), "installed-%d", 12);
	if ((ready = fopen(argv[2], "w")) != NULL)
		fclose(ready);
	for (i = 0; i < 60000 && access(argv[1], F_OK) != 0; i++) {	/* a hung test's cap */
		APP_HELLO(-7, word, 0x123456789ULL);
		if (APP_GUARDED_ENABLED())
			APP_GUARDED(99);
		usleep(10000);
	}
	return 0;
}
