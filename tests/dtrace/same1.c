/*
 * same1.c - gamma:same fired from a static function named as same2.c's:
 * two records of one function name in one provider's DOF.
 */
#include "b.h"

#ifdef __clang__
#define SAME_KEEP __attribute__((noinline))
#else
#define SAME_KEEP __attribute__((noipa))
#endif

void same1(int v);

static void SAME_KEEP
fire_same(int v)
{
	GAMMA_SAME(v);
}

void
same1(int v)
{
	fire_same(v);
}
