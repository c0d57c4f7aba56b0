/*
 * A program using the macOS header of prov.d: is-enabled tests and probes
 * with arguments.  It calls nothing outside itself, so it links without
 * an SDK or libSystem.
 */
typedef unsigned short port_t;	/* the definition's typedef, as with dtrace */
#include "prov.h"

int
work(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++) {
		if (MYPROV_OP_START_ENABLED())
			MYPROV_OP_START(i, "op", (uint64_t)i * 3);
		sum += i;
		MYPROV_OP_DONE(sum);
	}
	MYPROV_LISTEN((port_t)8080);
	return sum;
}

int
main(void)
{
	return work(4) == 6 ? 0 : 1;
}
