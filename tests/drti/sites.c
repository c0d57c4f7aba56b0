/*
 * sites.c - inline sites in three functions, and a stapsdt note that no
 * header wrote, for tests/drti's checks of the site records: drti_lite
 * registers each inline site in the record of its function (main,
 * helper, other), and nothing where a note alone says a site is.
 *
 * The hand-made note (finding 6 of issue 37) points at the immediate
 * byte 0x90 of `add $0x90,%eax`: a reader of notes that checks for a nop
 * took it for a site, and a probe there would corrupt the instruction.
 * The program prints that byte's address ("fake ADDR") for the test.
 */
#include <stdio.h>

#include "sites.h"

extern const char sites_fake_at[];

static int __attribute__((noinline))
helper(int x)
{
	SITES_TICK(x);
	return x + 1;
}

int other(int x);

int __attribute__((noinline))
other(int x)
{
	SITES_TICK(x);
	SITES_TOCK(x);
	return x + 2;
}

static int __attribute__((noinline))
fake(int x)
{
	__asm__ __volatile__(
	    "991:\tadd $0x90,%%eax\n"
	    "\t.globl sites_fake_at\n"
	    "\t.hidden sites_fake_at\n"
	    "\t.set sites_fake_at,991b+1\n"
	    "\t.pushsection .note.stapsdt,\"\",@note\n"
	    "\t.balign 4\n"
	    "\t.4byte 992f-991f,994f-993f,3\n"
	    "991:\t.asciz \"stapsdt\"\n"
	    "992:\t.balign 4\n"
	    "993:\t.8byte sites_fake_at,0,0\n"
	    "\t.asciz \"sites\"\n"
	    "\t.asciz \"tick\"\n"
	    "\t.asciz \"-4@%%edi\"\n"
	    "994:\t.balign 4\n"
	    "\t.popsection" : "+a"(x));
	return x;
}

int
main(int argc, char **argv)
{
	(void)argv;
	SITES_TOCK(argc);
	printf("fake %p\n", (const void *)sites_fake_at);
	return helper(argc) + other(argc) + fake(argc) > 0 ? 0 : 1;
}
