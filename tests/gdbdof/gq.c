/*
 * tests/gdbdof/gq.c - fires gq:one, in a program whose main is gp.c's:
 * only what gdb lists of it is checked, so nothing calls it.
 */
#include "gq.h"

int gq_fire(int n);

int
gq_fire(int n)
{
	GQ_ONE(n);
	return n + 1;
}
