/*
 * inline.cc - a C++ inline function firing sites:tick (its code and its
 * site record in a COMDAT group, which -G does not rewrite: the linker may
 * keep another object's copy) and main firing sites:tock (a site -G
 * records), for tests/drti's check that -G given this object renames the
 * record of tock's site only (dof.h's DOF_SITES_GIVEN_SECTION) and
 * drti_lite still registers tick's from its record.
 */
#include "sites.h"

inline int
inl(int x)
{
	SITES_TICK(x);
	return x + 1;
}

int
main(int argc, char **)
{
	SITES_TOCK(argc);
	return inl(argc) > 100;
}
