/* fire_b.c - fires b.d's probe, from a translation unit of its own. */
#include <stdio.h>

#include "b.h"

int fire_b(void);

int
fire_b(void)
{
	static char word[16];

	snprintf(word, sizeof(word), "pong-%d", 3);
	GAMMA_PING(-1234567890123LL, word);
	return 0;
}
