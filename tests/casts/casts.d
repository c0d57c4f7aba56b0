/*
 * tests/casts/casts.d - probes whose arguments casts.c passes as libvirt
 * and other SystemTap users do: every integer parameter given as
 * `(void *)(intptr_t)(v)`, pointers given as integers, enums, integers of
 * other widths; probes of 1, 2, 6, 7, 8 and 12 arguments.
 */
provider cv {
	probe one(int);
	probe two(int, long);
	probe six(int, unsigned short, long, char, unsigned int, long long);
	probe seven(int, short, unsigned char, int, long, unsigned int, int);
	probe eight(int, const char *, int, void *, long, unsigned char, int, short);
	probe twelve(int, long, short, char, int, long, short, char, int, long, short, unsigned int);
	probe ptrs(const char *, void *, int, unsigned long);
	probe widths(int, unsigned long, short, long long, unsigned char, int);
	probe enums(int, unsigned int, long);
};
