/*
 * main.c - the DTrace test program.
 *
 *   prog MARKER READY [LIBRARY]
 *
 * Fires every probe of a.d and b.d every 10 ms (fire_a.c, fire_b.c, linked
 * in or, given LIBRARY, from a shared library it dlopen()s) until MARKER
 * exists, after creating READY once the probes are loaded; then prints
 * "enabled_seen=N": whether ALPHA_GUARDED_ENABLED() was ever true.  Gives
 * up after 120 s, so a broken test leaves nothing running for long.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

typedef int (*fire_a_fn)(int *);
typedef int (*fire_b_fn)(void);

#ifndef DT_DLOPEN
int fire_a(int *enabled_seen);
int fire_b(void);
#endif

static int
find(const char *library, fire_a_fn *a, fire_b_fn *b)
{
#ifdef DT_DLOPEN
	void *h = dlopen(library, RTLD_NOW);

	if (h == NULL) {
		fprintf(stderr, "dlopen %s: %s\n", library, dlerror());
		return -1;
	}
	*(void **)a = dlsym(h, "fire_a");
	*(void **)b = dlsym(h, "fire_b");
	return *a != NULL && *b != NULL ? 0 : -1;
#else
	(void)library;
	*a = fire_a;
	*b = fire_b;
	return 0;
#endif
}

int
main(int argc, char **argv)
{
	fire_a_fn a;
	fire_b_fn b;
	int seen = 0;
	FILE *f;

	if (argc < 3 || find(argc > 3 ? argv[3] : NULL, &a, &b) != 0)
		return 2;
	if ((f = fopen(argv[2], "w")) == NULL || fclose(f) != 0)
		return 1;
	for (int i = 0; i < 12000; i++) {
		a(&seen);
		b();
		if (access(argv[1], F_OK) == 0)
			break;
		usleep(10000);
	}
	printf("enabled_seen=%d\n", seen);
	return 0;
}
