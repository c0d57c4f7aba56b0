/*
 * fklib.c - the -G shared library of tests/hostile's forker: one probe,
 * fired by fk_fire.  Built twice, the second time with -DPADDED (more
 * code, so other program headers): the "upgraded" library a package
 * manager renames over the first while the program runs.
 */
#include "fk.h"

int fk_fire(int n);

#ifdef PADDED
/* Code the first build does not have: its segments differ. */
static volatile int fk_pad[4096];

int fk_padding(int i);
int
fk_padding(int i)
{
	return fk_pad[i & 4095];
}
#endif

int
fk_fire(int n)
{
	FK_LIB(n);
	return n;
}
