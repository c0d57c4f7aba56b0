/*
 * stubs_test.c - runtime/stubs_x86_64.S against compiler/model/arch_x86_64.c.
 *
 * The assembled probe unit must be byte for byte the unit the compiler
 * writes into headers and objects, and usdt_probe_call must deliver 0 to 8
 * arguments exactly where a C callee expects them (registers, then stack).
 * At the unit's tracepoint the stack must be as at the call (DTrace reads
 * argument 7 from 0(%rsp) there): a copy of the unit with a breakpoint on
 * its tracepoint, as a uprobe puts one, is fired with 8 arguments, and the
 * SIGTRAP handler reads the stack as a tracer would.
 * Prints one "ok"/"FAIL" line per check (tests/testlib.h) and exits
 * non-zero on failure.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "target.h"
#include "../testlib.h"

extern const unsigned char usdt_x86_64_unit[];
void usdt_probe_call(const void *unit, int argc, void *const *argv);

/* One ok/FAIL line; a failure names the line whose expectation failed. */
#define report(ok, name) check((ok), (name), "%s", "not what the compiler's unit or the ABI says")

/* What the callee saw, and a check that its stack was aligned. */
static long seen[8];
static int seen_aligned;

__attribute__((noinline)) static void
callee(long a, long b, long c, long d, long e, long f, long g, long h)
{
	long v[8] = { a, b, c, d, e, f, g, h };
	/* The ABI: at entry %rsp + 8 is 16-byte aligned. */
	void *frame = __builtin_frame_address(0);

	memcpy(seen, v, sizeof(seen));
	seen_aligned = ((uintptr_t)frame % 16) == 0;
}

/* What a tracer saw at the breakpoint: 0(%rsp) and 8(%rsp), and where. */
static volatile long trap_stack[2];
static volatile uintptr_t trap_pc;

static void
on_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	const long *sp = (const long *)uc->uc_mcontext.gregs[REG_RSP];

	(void)sig;
	(void)si;
	trap_stack[0] = sp[0];
	trap_stack[1] = sp[1];
	trap_pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
	uc->uc_mcontext.gregs[REG_RIP] += 4;	/* over the rest of the 5-byte nop */
}

/* Fire a copy of the unit whose tracepoint starts with int3, as a uprobe. */
static void
check_stack_at_tracepoint(void *const *argv)
{
	struct sigaction sa, old;
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED) {
		report(0, "a page for the unit's copy");
		return;
	}
	memcpy(page, usdt_x86_64_unit, arch_x86_64.unit_size);
	page[arch_x86_64.probe_offset] = 0xcc;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0 ||
	    sigaction(SIGTRAP, &sa, &old) != 0) {
		report(0, "a breakpoint in the unit's copy");
		munmap(page, 4096);
		return;
	}
	usdt_probe_call(page, 8, argv);
	sigaction(SIGTRAP, &old, NULL);
	report(trap_pc == (uintptr_t)(page + arch_x86_64.probe_offset),
	    "the breakpoint at the unit's tracepoint was hit");
	report(trap_stack[0] == (long)(uintptr_t)argv[6] && trap_stack[1] == (long)(uintptr_t)argv[7],
	    "at the unit's tracepoint arguments 7 and 8 are at 0(%rsp) and 8(%rsp), as at a call");
	if (trap_stack[0] != (long)(uintptr_t)argv[6])
		printf("# 0(%%rsp) = %#lx, 8(%%rsp) = %#lx\n", (unsigned long)trap_stack[0],
		    (unsigned long)trap_stack[1]);
	munmap(page, 4096);
}

int
main(void)
{
	void *argv[8];
	char name[64];
	uint32_t flag = 7;

	report(arch_x86_64.unit_size == 16 &&
	    memcmp(usdt_x86_64_unit, arch_x86_64.unit, arch_x86_64.unit_size) == 0,
	    "assembled probe unit equals arch_x86_64.unit");
	report(usdt_x86_64_unit[arch_x86_64.probe_offset] == 0x0f &&
	    usdt_x86_64_unit[arch_x86_64.enabled_offset] == 0x0f,
	    "probe and is-enabled offsets point at the 5-byte nop");

	for (int i = 0; i < 8; i++)
		argv[i] = (void *)(uintptr_t)(0x1111111111111111ull * (unsigned)(i + 1));
	for (int n = 0; n <= 8; n++) {
		int ok = 1;

		memset(seen, 0, sizeof(seen));
		seen_aligned = 0;
		usdt_probe_call((const void *)callee, n, argv);
		for (int i = 0; i < n; i++)
			ok &= seen[i] == (long)(uintptr_t)argv[i];
		snprintf(name, sizeof(name), "usdt_probe_call passes %d argument(s)", n);
		report(ok, name);
		snprintf(name, sizeof(name), "usdt_probe_call keeps the stack aligned (%d)", n);
		report(seen_aligned, name);
	}

	/* The unit itself returns and leaves the is-enabled flag alone. */
	usdt_probe_call(usdt_x86_64_unit, 8, argv);
	argv[0] = &flag;
	usdt_probe_call(usdt_x86_64_unit + arch_x86_64.enabled_offset, 1, argv);
	report(flag == 7, "calling the unit's probe and is-enabled slots returns");
	for (int i = 0; i < 8; i++)
		argv[i] = (void *)(uintptr_t)(0x1111111111111111ull * (unsigned)(i + 1));
	check_stack_at_tracepoint(argv);
	return test_summary();
}
