/*
 * fire_b.c - fires b.d's probes, from translation units of their own:
 * ping here, same from two static functions of one name in same1.c and
 * same2.c (with 1 and 2), which -G records under one function name.
 */
#include <stdio.h>

#include "b.h"

int fire_b(void);
void same1(int v);
void same2(int v);

int
fire_b(void)
{
	static char word[16];

	snprintf(word, sizeof(word), "pong-%d", 3);
	GAMMA_PING(-1234567890123LL, word);
	same1(1);
	same2(2);
	return 0;
}
