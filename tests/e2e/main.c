/*
 * main.c - the e2e test program.
 *
 *   prog MARKER READY [LIBRARY]
 *
 * Runs e2e_fire_loop(MARKER) (see fire.c), either linked in or, given
 * LIBRARY, from a shared library loaded with dlopen.  Creates READY once
 * the probes are loaded, so the test attaches a tracer at a known point,
 * and prints "enabled_seen=N" when the loop ends.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef E2E_DLOPEN
int e2e_fire_loop(const char *marker);
#endif

typedef int (*fire_loop_fn)(const char *marker);

static fire_loop_fn
find_fire_loop(const char *library)
{
#ifdef E2E_DLOPEN
	void *h = dlopen(library, RTLD_NOW);
	fire_loop_fn fn;

	if (h == NULL) {
		fprintf(stderr, "dlopen %s: %s\n", library, dlerror());
		return NULL;
	}
	*(void **)&fn = dlsym(h, "e2e_fire_loop");
	if (fn == NULL)
		fprintf(stderr, "dlsym e2e_fire_loop: %s\n", dlerror());
	return fn;
#else
	(void)library;
	return e2e_fire_loop;
#endif
}

static int
touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		return -1;
	}
	return fclose(f);
}

int
main(int argc, char **argv)
{
	fire_loop_fn fire_loop;
	int seen;

	if (argc < 3) {
		fprintf(stderr, "usage: %s MARKER READY [LIBRARY]\n", argv[0]);
		return 2;
	}
	fire_loop = find_fire_loop(argc > 3 ? argv[3] : NULL);
	if (fire_loop == NULL || touch(argv[2]) != 0)
		return 1;
	seen = fire_loop(argv[1]);
	printf("enabled_seen=%d\n", seen);
	return 0;
}
