/* second.c - a second translation unit with its own -G object. */
#include "prov.h"

void second_fire(void);

void
second_fire(void)
{
	DRTITEST_START(2);
}
