/*
 * main.c - the linker matrix's program: fires every probe 20 times, 5 ms
 * apart, and prints how many times the guard was true ("enabled=N").
 * Started by `bpftrace -c`, every iteration runs traced, so N is 20 when
 * the semaphore works and 0 when it does not.
 */
#include <stdio.h>
#include <unistd.h>

int lk_fire(void);

int
main(void)
{
	int enabled = 0;

	for (int i = 0; i < 20; i++) {
		enabled += lk_fire();
		usleep(5000);
	}
	printf("enabled=%d\n", enabled);
	return 0;
}
