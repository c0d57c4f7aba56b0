/*
 * tests/casts/casts.c - fires every probe of casts.d with arguments whose
 * types are not the parameters': libvirt's `(void *)(intptr_t)(v)` for
 * every integer (src/util/virprobe.h), pointers as integers and integers
 * as pointers, enums, integers wider and narrower than the parameter.
 * It compiles as C and as C++ (tests/casts/run builds both, -Werror) and
 * prints, per probe, each argument converted to its declared type (a
 * pointer as its address): what every tracer must read.
 */
#include <inttypes.h>
#include <stdio.h>
#include "casts.h"

#define VP(a) ((void *)(intptr_t)(a))

enum colour { RED = 1, GREEN = 7, BLUE = 300 };

static char text[] = "cast";

int
main(void)
{
	enum colour c = BLUE;
	uint64_t wide = UINT64_C(0x100000005);
	int8_t small = -1;
	intptr_t addr = (intptr_t)text;
	void *vp = text;

	CV_ONE(VP(-5));
	printf("one -5\n");
	CV_TWO(VP(-6), VP(-7L));
	printf("two -6 -7\n");
	CV_SIX(VP(-8), VP(65535), VP(-9L), VP('c'), VP(4000000000u), VP(-10LL));
	printf("six -8 65535 -9 %d 4000000000 -10\n", 'c');
	CV_SEVEN(VP(1), VP(-2), VP(200), VP(-4), VP(-5L), VP(6u), VP(-7));
	printf("seven 1 -2 200 -4 -5 6 -7\n");
	CV_EIGHT(VP(-1), text, VP(3), vp, VP(-5L), VP(250), VP(7), VP(-8));
	printf("eight -1 %" PRIuPTR " 3 %" PRIuPTR " -5 250 7 -8\n", (uintptr_t)text, (uintptr_t)vp);
	CV_TWELVE(VP(1), VP(-2L), VP(3), VP(4), VP(-5), VP(6L), VP(-7), VP(8), VP(9), VP(-10L),
	    VP(11), VP(12u));
	printf("twelve 1 -2 3 4 -5 6 -7 8 9 -10 11 12\n");
	CV_PTRS(addr, (intptr_t)vp, VP(-3), VP(text));
	printf("ptrs %" PRIuPTR " %" PRIuPTR " -3 %lu\n", (uintptr_t)text, (uintptr_t)vp,
	    (unsigned long)(uintptr_t)text);
	CV_WIDTHS(wide, small, wide, small, wide, (unsigned char)200);
	printf("widths 5 %lu 5 -1 5 200\n", (unsigned long)-1);
	CV_ENUMS(c, VP(GREEN), RED);
	printf("enums 300 7 1\n");
	return 0;
}
