/*
 * stubs_x86_64.S - the x86_64 probe unit, and a call into one with any
 * number of arguments.
 *
 * usdt_x86_64_unit is the probe unit of compiler/model/arch_x86_64.c written as
 * instructions (a unit test checks that the bytes are the same): 16 bytes,
 * the probe function (pop %r11, the 5-byte nop that is the tracepoint,
 * push %r11, ret: at the tracepoint the stack is as at the call, so
 * tracers read stack arguments from 0(%rsp) as at a call site; the same
 * return address goes back for ret, so a shadow stack still matches),
 * then at +10 the is-enabled function (the 5-byte nop, ret).  The probe
 * function is entered with the probe's arguments where the System V ABI
 * puts them; the is-enabled function with a pointer to a uint32_t the
 * tracer sets to 1.  The -h header and the -G object carry their own
 * copies of these bytes; this one is for the run-time library.
 *
 * usdt_probe_call(unit, argc, argv) fires a probe whose arguments are only
 * known at run time (libusdt's usdt_fire_probe): argv[0..5] go to rdi, rsi,
 * rdx, rcx, r8, r9 and argv[6..] onto the stack, argv[6] nearest the
 * return address, then the unit is called like a C function:
 *
 *	void usdt_probe_call(const void *unit, int argc, void *const *argv);
 *
 * A negative argc counts as 0.  The stack stays 16-byte aligned at the call.
 *
 * Control-flow protection.  The GNU property note at the end says this
 * code is fit for IBT and SHSTK, as the C objects of libusdt built with
 * -fcf-protection=full say of theirs (the Makefile), so that libusdt.so
 * keeps both bits (the linker ANDs them over its objects):
 * usdt_probe_call begins with endbr64 (it is called directly today, the
 * mark costs nothing should it become an indirect target) and every call
 * returns where it was made (a unit's pop and push of %r11 put the same
 * return address back).  usdt_x86_64_unit is never executed.  The units in
 * a run-time image are called indirectly (call *%r11 below; the unit then
 * pops its return address into %r11, which the call no longer needs) and
 * have no endbr64, so the image claims SHSTK only (usdt_image.c), and a
 * loader that enforces IBT refuses or relaxes it for that image.
 */

	.text

	.globl	usdt_x86_64_unit
	.hidden	usdt_x86_64_unit
	.type	usdt_x86_64_unit, @function
	.balign	16
usdt_x86_64_unit:
	popq	%r11			/* 41 5b: the return address */
	{disp8} nopl 0x0(%rax,%rax,1)	/* +2, 0f 1f 44 00 00: the probe tracepoint */
	pushq	%r11			/* 41 53: the return address, back */
	ret				/* c3 */
	{disp8} nopl 0x0(%rax,%rax,1)	/* +10: the is-enabled tracepoint */
	ret
	.size	usdt_x86_64_unit, . - usdt_x86_64_unit

	.globl	usdt_probe_call
	.hidden	usdt_probe_call
	.type	usdt_probe_call, @function
	.balign	16
usdt_probe_call:
	.cfi_startproc
	endbr64
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	movq	%rdi, %r11		/* the unit */
	movq	%rdx, %r10		/* argv */
	movslq	%esi, %rcx		/* argc */
	testq	%rcx, %rcx
	jns	1f
	xorl	%ecx, %ecx
1:
	/* Stack arguments: argv[argc-1] down to argv[6], padded to 16 bytes. */
	cmpq	$6, %rcx
	jbe	3f
	testq	$1, %rcx		/* argc - 6 is odd exactly when argc is odd */
	jz	2f
	subq	$8, %rsp
2:
	pushq	-8(%r10,%rcx,8)
	decq	%rcx
	cmpq	$6, %rcx
	ja	2b
3:
	/* Register arguments; %rcx, the count, is loaded last. */
	cmpq	$5, %rcx
	jb	4f
	movq	32(%r10), %r8
4:	cmpq	$6, %rcx
	jb	5f
	movq	40(%r10), %r9
5:	cmpq	$1, %rcx
	jb	6f
	movq	(%r10), %rdi
6:	cmpq	$2, %rcx
	jb	7f
	movq	8(%r10), %rsi
7:	cmpq	$3, %rcx
	jb	8f
	movq	16(%r10), %rdx
8:	cmpq	$4, %rcx
	jb	9f
	movq	24(%r10), %rcx
9:
	xorl	%eax, %eax		/* no vector registers, should the unit be variadic */
	call	*%r11
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	usdt_probe_call, . - usdt_probe_call

	.section .note.GNU-stack, "", @progbits

	/* NT_GNU_PROPERTY_TYPE_0: GNU_PROPERTY_X86_FEATURE_1_AND = IBT | SHSTK. */
	.section .note.gnu.property, "a"
	.balign	8
	.long	4			/* namesz */
	.long	16			/* descsz */
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000002		/* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long	4			/* pr_datasz */
	.long	3			/* IBT (1) | SHSTK (2) */
	.balign	8
