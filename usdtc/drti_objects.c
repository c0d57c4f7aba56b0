/*
 * drti_objects.c - the drti_lite object -G links in, per target.
 *
 * Each target registers its DOF its own way, so each has its own object,
 * built when usdtc is built (Makefile) and embedded in it (drti_blob.S):
 *
 *	host target	runtime/drti_lite.c with the host compiler
 *	aarch64-linux	runtime/drti_lite.c with the AArch64 cross compiler
 *			(AARCH64_CC, aarch64-linux-gnu-gcc when installed)
 *	x86_64-linux	the same with an x86_64 compiler, on other hosts
 *	x86_64-freebsd	runtime/drti_kernel.c, -DDRTI_FREEBSD or -DDRTI_ILLUMOS,
 *	x86_64-illumos	compiled freestanding by any x86_64 compiler: it
 *			needs no headers of those systems
 *
 * A target whose compiler was missing has an empty object here, and -G for
 * it fails with drti_object_missing()'s advice: rebuild usdtc with that
 * compiler, or use -x lazyload, which writes no drti_lite (the program
 * then registers ___SUNW_dof itself, as with dtrace -x lazyload).
 */
#include <string.h>

#include "drti_objects.h"

/* drti_blob.S */
extern const unsigned char drti_object_start[], drti_object_end[];
extern const unsigned char drti_x86_64_linux_start[], drti_x86_64_linux_end[];
extern const unsigned char drti_x86_64_freebsd_start[], drti_x86_64_freebsd_end[];
extern const unsigned char drti_x86_64_illumos_start[], drti_x86_64_illumos_end[];
extern const unsigned char drti_aarch64_linux_start[], drti_aarch64_linux_end[];

typedef struct drti_object {
	const char *target;
	const unsigned char *start, *end;
	const char *missing;	/* the advice when empty */
} drti_object_t;

static const drti_object_t objects[] = {
	{ "x86_64-linux", drti_x86_64_linux_start, drti_x86_64_linux_end,
	    "usdtc was built without an x86_64 compiler for drti_lite" },
	{ "x86_64-freebsd", drti_x86_64_freebsd_start, drti_x86_64_freebsd_end,
	    "usdtc was built without an x86_64 compiler for drti_lite (KDRTI_CC)" },
	{ "x86_64-illumos", drti_x86_64_illumos_start, drti_x86_64_illumos_end,
	    "usdtc was built without an x86_64 compiler for drti_lite (KDRTI_CC)" },
	{ "aarch64-linux", drti_aarch64_linux_start, drti_aarch64_linux_end,
	    "usdtc was built without an AArch64 compiler for drti_lite "
	    "(AARCH64_CC, e.g. aarch64-linux-gnu-gcc)" },
};

static const drti_object_t *
find(const target_t *t)
{
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (strcmp(objects[i].target, t->name) == 0)
			return &objects[i];
	return NULL;
}

const unsigned char *
drti_object_for(const target_t *t, size_t *size)
{
	const drti_object_t *o;

	if (t == target_host()) {
		*size = (size_t)(drti_object_end - drti_object_start);
		return *size ? drti_object_start : NULL;
	}
	if ((o = find(t)) == NULL || o->end == o->start) {
		*size = 0;
		return NULL;
	}
	*size = (size_t)(o->end - o->start);
	return o->start;
}

const char *
drti_object_missing(const target_t *t)
{
	const drti_object_t *o = find(t);

	if (t == target_host() || o == NULL)
		return "usdtc was built without drti_lite";
	return o->missing;
}

const char *
drti_linker(const target_t *t)
{
	const target_t *host = target_host();

	if (host != NULL && host->arch->elf_machine == t->arch->elf_machine)
		return "ld";
	if (strcmp(t->arch->name, "aarch64") == 0)
		return "aarch64-linux-gnu-ld";
	if (strcmp(t->arch->name, "x86_64") == 0)
		return "x86_64-linux-gnu-ld";
	return "ld";
}
