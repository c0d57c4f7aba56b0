/*
 * probe_loop.c - the loop bench/probe_cost times.
 *
 *   prog N     run N iterations of loop(), print "ns=<elapsed ns of the loop>"
 *
 * Each iteration holds one probe with two arguments, of the variant chosen
 * at compile time, and a compiler barrier that clobbers memory (so every
 * variant reloads its semaphore each time, as it would in real code, and no
 * variant's loop is unswitched or deleted):
 *
 *	-DV_EMPTY	no probe
 *	-DV_SDT		<sys/sdt.h> DTRACE_PROBE2
 *	-DV_SDT_SEM	<sys/sdt.h> DTRACE_PROBE2 behind its semaphore, spelled as
 *			SystemTap's `dtrace -h` spells BENCH_P_ENABLED()
 *	-DV_USDTC	the usdtc header's BENCH_P(): the inline site, or with
 *			-D_USDT_PROBE_CALLS the call form (a stub call, or the
 *			rewritten call when the object was given to -G)
 *	-DV_USDTC_EN	BENCH_P() behind BENCH_P_ENABLED()
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(V_SDT_SEM)
#define _SDT_HAS_SEMAPHORES 1
__extension__ unsigned short bench_p_semaphore __attribute__((unused))
    __attribute__((section(".probes")));
#define BENCH_P_ENABLED() __builtin_expect(bench_p_semaphore, 0)
#endif
#if defined(V_SDT) || defined(V_SDT_SEM)
#include <sys/sdt.h>
#elif defined(V_USDTC) || defined(V_USDTC_EN)
#include "probes.h"
#endif

#if defined(V_EMPTY)
#define PROBE(i, x) ((void)(i), (void)(x))
#elif defined(V_SDT)
#define PROBE(i, x) DTRACE_PROBE2(bench, p, i, x)
#elif defined(V_SDT_SEM)
#define PROBE(i, x) do { if (BENCH_P_ENABLED()) DTRACE_PROBE2(bench, p, i, x); } while (0)
#elif defined(V_USDTC)
#define PROBE(i, x) BENCH_P(i, x)
#elif defined(V_USDTC_EN)
#define PROBE(i, x) do { if (BENCH_P_ENABLED()) BENCH_P(i, x); } while (0)
#else
#error "define one of V_EMPTY V_SDT V_SDT_SEM V_USDTC V_USDTC_EN"
#endif

void loop(unsigned long n, unsigned long x);

__attribute__((noinline)) void
loop(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++) {
		PROBE(i, x);
		__asm__ __volatile__("" ::: "memory");
	}
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	loop(n, n ^ 0x5a5a);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ns=%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	    (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
