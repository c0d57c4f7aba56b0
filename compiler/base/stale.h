/*
 * stale.h - temporaries that a killed run leaves are removed by the next
 * (stale.c says how a name tells whose it is, and why not O_TMPFILE).
 */
#ifndef USDTC_STALE_H
#define USDTC_STALE_H

#include <stddef.h>

/* The stamp between a temporary's NAME and its XXXXXX: "~PID.TAG~". */
#define STALE_STAMP_MAX	(1 + 8 + 1 + 8 + 1)
int stale_stamp(char *buf, size_t size);

/*
 * Remove the temporaries in dir ("" = the current directory) that a dead
 * run of this boot and pid namespace left, once per directory per run.
 * Best effort: nothing is reported.
 */
void stale_sweep(const char *dir);

#endif
