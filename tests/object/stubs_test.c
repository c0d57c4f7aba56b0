/*
 * stubs_test.c - runtime/stubs_x86_64.S against compiler/arch_x86_64.c.
 *
 * The assembled probe unit must be byte for byte the unit the compiler
 * writes into headers and objects, and usdt_probe_call must deliver 0 to 8
 * arguments exactly where a C callee expects them (registers, then stack).
 * Prints one "ok"/"FAIL" line per check (tests/testlib.h) and exits non-zero on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

int
main(void)
{
	void *argv[8];
	char name[64];
	uint32_t flag = 7;

	report(usdt_arch_x86_64.unit_size == 16 &&
	    memcmp(usdt_x86_64_unit, usdt_arch_x86_64.unit, usdt_arch_x86_64.unit_size) == 0,
	    "assembled probe unit equals usdt_arch_x86_64.unit");
	report(usdt_x86_64_unit[usdt_arch_x86_64.probe_offset] == 0x0f &&
	    usdt_x86_64_unit[usdt_arch_x86_64.enabled_offset] == 0x0f,
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
	usdt_probe_call(usdt_x86_64_unit + usdt_arch_x86_64.enabled_offset, 1, argv);
	report(flag == 7, "calling the unit's probe and is-enabled slots returns");
	return test_summary();
}
