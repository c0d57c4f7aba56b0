/*
 * main.c - the rewrite suite's program: prog MARKER READY.  Creates READY,
 * runs rw_fire_loop(MARKER) (fire.c) and prints "enabled_seen=N".
 */
#include <stdio.h>

int rw_fire_loop(const char *marker);

int
main(int argc, char **argv)
{
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: %s MARKER READY\n", argv[0]);
		return 2;
	}
	if ((f = fopen(argv[2], "w")) == NULL || fclose(f) != 0) {
		perror(argv[2]);
		return 1;
	}
	printf("enabled_seen=%d\n", rw_fire_loop(argv[1]));
	return 0;
}
