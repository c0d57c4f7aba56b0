/*
 * stubs_aarch64.S - the AArch64 probe unit, and a call into one with any
 * number of arguments.
 *
 * usdt_aarch64_unit is the probe unit of compiler/model/arch_aarch64.c written as
 * instructions (a test checks that the bytes are the same): two 8-byte
 * slots, each a `nop` that is the tracepoint and a `ret`.  The probe slot
 * is entered with the probe's arguments where the AAPCS64 puts them; the
 * is-enabled slot with a pointer to a uint32_t the tracer sets to 1.  The
 * -h header and the -G object carry their own copies of these bytes; this
 * one is for the run-time library on AArch64 hosts.
 *
 * usdt_probe_call(unit, argc, argv) fires a probe whose arguments are only
 * known at run time (libusdt's usdt_fire_probe): argv[0..7] go to x0-x7
 * and argv[8..] onto the stack in 8-byte slots, argv[8] at the lowest
 * address, then the unit is called like a C function:
 *
 *	void usdt_probe_call(const void *unit, int argc, void *const *argv);
 *
 * A negative argc counts as 0.  sp stays 16-byte aligned, as the ABI
 * requires at every instruction.
 */

	.text

	.globl	usdt_aarch64_unit
	.hidden	usdt_aarch64_unit
	.type	usdt_aarch64_unit, %function
	.balign	16
usdt_aarch64_unit:
	nop				/* the probe tracepoint */
	ret
	nop				/* +8: the is-enabled tracepoint */
	ret
	.size	usdt_aarch64_unit, . - usdt_aarch64_unit

	.globl	usdt_probe_call
	.hidden	usdt_probe_call
	.type	usdt_probe_call, %function
	.balign	16
usdt_probe_call:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	mov	x16, x0			/* the unit */
	mov	x17, x2			/* argv */
	sxtw	x9, w1			/* argc */
	cmp	x9, #0
	csel	x9, x9, xzr, gt
	/* Stack arguments: argv[8..argc-1], the area rounded up to 16 bytes. */
	subs	x10, x9, #8
	b.le	2f
	add	x11, x10, #1
	and	x11, x11, #~1
	sub	sp, sp, x11, lsl #3
	mov	x12, #0
1:	add	x13, x12, #8
	ldr	x14, [x17, x13, lsl #3]
	str	x14, [sp, x12, lsl #3]
	add	x12, x12, #1
	cmp	x12, x10
	b.lt	1b
2:
	/* Register arguments, as many as there are. */
	cmp	x9, #1
	b.lt	3f
	ldr	x0, [x17]
	cmp	x9, #2
	b.lt	3f
	ldr	x1, [x17, #8]
	cmp	x9, #3
	b.lt	3f
	ldr	x2, [x17, #16]
	cmp	x9, #4
	b.lt	3f
	ldr	x3, [x17, #24]
	cmp	x9, #5
	b.lt	3f
	ldr	x4, [x17, #32]
	cmp	x9, #6
	b.lt	3f
	ldr	x5, [x17, #40]
	cmp	x9, #7
	b.lt	3f
	ldr	x6, [x17, #48]
	cmp	x9, #8
	b.lt	3f
	ldr	x7, [x17, #56]
3:
	blr	x16
	mov	sp, x29
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa sp, 0
	.cfi_restore x29
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	usdt_probe_call, . - usdt_probe_call

	.section .note.GNU-stack, "", %progbits
