/* other.c - an object NOT given to -G: its probe call goes through the stub. */
#include "prov.h"

void rw_other(int x);

void
rw_other(int x)
{
	RW_OTHER(x);
}
