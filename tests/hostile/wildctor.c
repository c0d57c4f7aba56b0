/*
 * wildctor.c - drti_lite's constructor called with arguments no C library
 * passed, for tests/hostile/run.  musl calls constructors without
 * arguments, so drti_init finds in argc, argv and envp whatever its
 * registers held; it must neither read through them nor crash
 * (runtime/drti_lite.c's drti_args_plausible).  This program calls every
 * entry of its own .init_array again (drti_lite's constructor, and
 * frame_dummy, which is harmless twice) with each set of wild values
 * below, then prints "wild ok N" (N: the sets).  Under
 * DTRACE_DOF_INIT_DEBUG each call of drti_lite's must say it read its
 * environment with secure_getenv.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

typedef void (*wild_ctor_t)(int, char **, char **);

extern wild_ctor_t __init_array_start[] __attribute__((visibility("hidden")));
extern wild_ctor_t __init_array_end[] __attribute__((visibility("hidden")));

struct wild {
	int argc;
	uintptr_t argv, envp;
};

int
main(int argc, char **argv)
{
	char **heap = malloc(64 * sizeof(char *));
	uintptr_t h;
	size_t n = 0;

	if (heap == NULL)
		return 1;
	memset(heap, 0x41, 64 * sizeof(char *));	/* no NULL anywhere */
	h = (uintptr_t)heap;
	{
		const struct wild wild[] = {
			{ 1, 8, 24 },					/* small numbers, envp == argv + argc + 1 */
			{ 0, UINTPTR_MAX - 15, UINTPTR_MAX - 7 },	/* the kernel's half */
			{ 3, h, h + 4 * sizeof(char *) },		/* a heap block of junk */
			{ 2, (uintptr_t)&wild, (uintptr_t)&wild + 3 * sizeof(char *) },	/* data, not a block */
			{ -1, (uintptr_t)argv, (uintptr_t)argv },	/* the real argv, a wrong argc */
		};

		for (; n < sizeof(wild) / sizeof(wild[0]); n++)
			for (wild_ctor_t *c = __init_array_start; c < __init_array_end; c++)
				(*c)(wild[n].argc, (char **)wild[n].argv, (char **)wild[n].envp);
	}
	HOST_TICK(argc);
	free(heap);
	printf("wild ok %zu\n", n);
	return 0;
}
