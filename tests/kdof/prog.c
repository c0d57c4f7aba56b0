/*
 * prog.c - fires every probe of prov.d, from more than one function and
 * behind _ENABLED(), so the DOF has several records per probe, is-enabled
 * offsets and a tail call.  With -DWITH_LIB it also calls lib.c.
 */
#include <stdio.h>
#include "prov.h"

#ifdef WITH_LIB
int lib_run(int n);
#endif

static volatile int sink;

static __attribute__((noinline)) void
fire_hit(int n)
{
	KDB_HIT(n);	/* a tail call */
}

static __attribute__((noinline)) long
step(int i)
{
	if (KDA_START_ENABLED())
		sink++;
	KDA_START(i, "step");
	KDA_SWAP(i, (long)i * 3);
	KDA_MANY(1, 2, 3, 4, 5, 6, 7, 8, i, -1L);
	fire_hit(i);
	return i * 2;
}

int
main(void)
{
	long total = 0;

	for (int i = 0; i < 4; i++)
		total += step(i);
	KDA_START(-1, "main");
	if (KDB_HIT_ENABLED())
		sink++;
#ifdef WITH_LIB
	total += lib_run(3);
#endif
	printf("total=%ld\n", total);
	return 0;
}
