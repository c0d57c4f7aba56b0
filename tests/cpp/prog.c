/*
 * prog.c - fires the probes of sys.d, whose argument types come from
 * glibc's headers, with values that show each type's size and sign.
 */
#include <sys/types.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sys.h"

int
main(void)
{
	/* bpftrace -c starts us after attaching; it exits at the first widths. */
	for (int i = 0; i < 500; i++) {
		SYS_IO((pid_t)-42, (ssize_t)-7, (size_t)4096, (off_t)-1, stdout);
		SYS_WIDTHS(-3, 65535, -100000, (uint64_t)5 << 32, -9, (uid_t)1000);
		usleep(10000);
	}
	return 0;
}
