/*
 * insn.h - the machine instructions usdtc writes: the one list of them.
 *
 * The probe units (arch_*.c: what the -h header, -G and libusdt emit for
 * each probe) and the call sites -G rewrites in place (rewrite_plan.c) use the
 * same tracepoints, so their bytes are spelt once, here.  The tracepoint
 * on x86_64 is the 5-byte `nopl 0(%rax,%rax,1)` that dtrace -G writes over
 * call sites and that uprobes can emulate; on AArch64 it is `nop`.
 */
#ifndef USDTC_INSN_H
#define USDTC_INSN_H

/* x86_64 */
#define X86_NOP5	0x0f, 0x1f, 0x44, 0x00, 0x00	/* nopl 0(%rax,%rax,1): the tracepoint */
#define X86_NOP4	0x0f, 0x1f, 0x40, 0x00		/* nopl 0(%rax) */
#define X86_NOP2	0x66, 0x90			/* xchg %ax,%ax */
#define X86_NOP		0x90				/* nop */
#define X86_RET		0xc3				/* ret */
#define X86_XOR_RAX	0x48, 0x33, 0xc0		/* xor %rax,%rax */
#define X86_POP_R11	0x41, 0x5b			/* pop %r11 */
#define X86_PUSH_R11	0x41, 0x53			/* push %r11 */
#define X86_CALL_REL32	0xe8				/* call rel32 (opcode) */
#define X86_JMP_REL32	0xe9				/* jmp rel32 (opcode) */

/* AArch64 (little-endian instruction words as bytes; opcodes as words) */
#define A64_NOP		0x1f, 0x20, 0x03, 0xd5		/* nop: the tracepoint */
#define A64_RET		0xc0, 0x03, 0x5f, 0xd6		/* ret */
#define A64_MOV_X0_0	0x00, 0x00, 0x80, 0xd2		/* mov x0, #0 */
#define A64_BL		0x94000000			/* bl imm26 (opcode bits) */
#define A64_B		0x14000000			/* b imm26 (opcode bits) */
#define A64_BRANCH_MASK	0xfc000000			/* the opcode bits of bl and b */

#endif
