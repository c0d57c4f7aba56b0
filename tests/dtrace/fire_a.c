/*
 * fire_a.c - fires a.d's probes (alpha, beta) with fixed values: a
 * negative int, a string the program wrote, the largest unsigned 64-bit
 * value, and eight arguments of which the last two go on the stack.
 */
#include <stdio.h>

#include "a.h"

int fire_a(int *enabled_seen);
void tail_many(int a, int b, int c, int d, int e, int f, int g, long long h);

/*
 * beta:many as a tail call (its stack arguments fit in this function's
 * own): -G keeps such a jump to the stub, where DTrace reads arguments 7
 * and 8 as at a call.
 */
__attribute__((noinline)) void
tail_many(int a, int b, int c, int d, int e, int f, int g, long long h)
{
	BETA_MANY(a, b, c, d, e, f, g, h);
}

int
fire_a(int *enabled_seen)
{
	static char path[32];

	snprintf(path, sizeof(path), "/index-%d.html", 7);
	ALPHA_REQ(-42, path, 18446744073709551615ULL);
	if (ALPHA_GUARDED_ENABLED()) {
		*enabled_seen = 1;
		ALPHA_GUARDED(5);
	}
	BETA_MANY(1, -2, 3, 4, 5, 6, 77, -8000000000LL);
	tail_many(11, -12, 13, 14, 15, 16, 177, -9000000000LL);
	return 0;
}
