/* The header's macros in every C and C++ dialect the tests compile. */
typedef unsigned short port_t;
#include "prov.h"

int
use(void)
{
	if (MYPROV_OP_START_ENABLED())
		MYPROV_OP_START(1, (char *)"x", 2);
	MYPROV_OP_DONE(3);
	MYPROV_LISTEN((port_t)4);
	return MYPROV_LISTEN_ENABLED();
}
