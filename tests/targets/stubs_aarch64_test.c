/*
 * stubs_aarch64_test.c - runtime/stubs_aarch64.S against
 * compiler/model/arch_aarch64.c, built with the AArch64 cross compiler and run
 * under qemu-user by tests/targets/run.
 *
 * The assembled probe unit must be byte for byte the unit the compiler
 * writes into headers and objects, and usdt_probe_call must deliver 0 to
 * 12 arguments where a C callee expects them (x0-x7, then the stack).
 * Prints one "ok"/"FAIL" line per check (tests/testlib.h) and exits non-zero on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "target.h"
#include "../testlib.h"

#define NARGS 12

extern const unsigned char usdt_aarch64_unit[];
void usdt_probe_call(const void *unit, int argc, void *const *argv);

/* One ok/FAIL line; a failure names the line whose expectation failed. */
#define report(ok, name) check((ok), (name), "%s", "not what the compiler's unit or the ABI says")

static long seen[NARGS];

__attribute__((noinline)) static void
callee(long a, long b, long c, long d, long e, long f, long g, long h,
    long i, long j, long k, long l)
{
	long v[NARGS] = { a, b, c, d, e, f, g, h, i, j, k, l };

	memcpy(seen, v, sizeof(seen));
}

int
main(void)
{
	void *argv[NARGS];
	char name[64];
	uint32_t flag = 7;

	report(arch_aarch64.unit_size == 16 &&
	    memcmp(usdt_aarch64_unit, arch_aarch64.unit, arch_aarch64.unit_size) == 0,
	    "assembled probe unit equals arch_aarch64.unit");
	for (int i = 0; i < NARGS; i++)
		argv[i] = (void *)(uintptr_t)(0x1111111111111111ull * (unsigned)(i + 1));
	for (int n = 0; n <= NARGS; n++) {
		int ok = 1;

		memset(seen, 0, sizeof(seen));
		usdt_probe_call((const void *)callee, n, argv);
		for (int i = 0; i < n; i++)
			ok &= seen[i] == (long)(uintptr_t)argv[i];
		snprintf(name, sizeof(name), "usdt_probe_call passes %d argument(s)", n);
		report(ok, name);
	}
	usdt_probe_call((const void *)callee, -3, argv);
	report(1, "usdt_probe_call takes a negative count as 0");
	usdt_probe_call(usdt_aarch64_unit, NARGS, argv);
	argv[0] = &flag;
	usdt_probe_call(usdt_aarch64_unit + arch_aarch64.enabled_offset, 1, argv);
	report(flag == 7, "calling the unit's probe and is-enabled slots returns");
	return test_summary();
}
