/*
 * arch_x86_64.c - the x86_64 probe unit and where arguments lie at its
 * tracepoint.
 *
 * The unit is 16 bytes: the probe function (10 bytes), then the is-enabled
 * function (6 bytes, at +10).  The tracepoint is the 5-byte nop
 * `nopl 0(%rax,%rax,1)` (0f 1f 44 00 00): uprobes can single-step or
 * emulate it, and dtrace -G writes the same nop over call sites.
 *
 *	+0	41 5b		pop %r11	the return address, off the stack
 *	+2	0f 1f 44 00 00	nopl		the probe tracepoint
 *	+7	41 53		push %r11	the return address, back
 *	+9	c3		ret
 *	+10	0f 1f 44 00 00	nopl		the is-enabled tracepoint
 *	+15	c3		ret
 *
 * Why the pop: every consumer reads a probe's stack arguments as at a
 * call site in the caller, where the call has pushed nothing yet.  Oracle's
 * DTrace takes argument 6 from 0(%rsp), and so do the illumos, FreeBSD and
 * xnu fasttraps (fasttrap_usdt_getarg: fasttrap_anarg(regs, 0, argno) reads
 * stack[argno - 6], with no slot for a return address).  With the return
 * address popped into %r11, a scratch register of the System V ABI that no
 * argument uses, the stack at the tracepoint is that of the call site, so
 * a unit's tracepoint is read like a rewritten call's.  The same address is
 * pushed back before `ret`, so a shadow stack (CET SHSTK) still matches.
 * A signal between pop and push, or a uprobe the kernel turned into a call
 * over the nop (its trampoline saves %r11 around its syscall), may write
 * below %rsp: nothing lives there but the copy the push restores from
 * %r11.  The is-enabled function takes no stack arguments and stays a nop
 * and a ret.
 *
 * The unit is entered by a normal call (the header's macros, rewritten
 * objects' kept calls), or indirectly by libusdt's usdt_probe_call, whose
 * images claim SHSTK only (runtime/stubs_x86_64.S), so it needs no endbr64.
 *
 * Its arguments are where the System V AMD64 ABI puts them: integer-class
 * values in rdi, rsi, rdx, rcx, r8, r9, the rest on the stack, at the
 * tracepoint from 0(%rsp).  A float or double is passed as its bits, an
 * integer of its size (the header's prototype says uint32_t or uint64_t),
 * and noted as one, unsigned: bpftrace 0.17, gdb 13 and libbpf read no
 * `%xmm` operand nor any `f` size; a long double keeps the xmm branch.  A struct or union
 * passed by value reaches here only when one general register holds it (at
 * most 8 bytes, no floating member): the parser takes the others for
 * pointers, with a warning (D_PROBE_BYVALUE in parse.c), since no single
 * note operand can describe two registers or a copy on the stack.  The
 * other branches stay for models built without the parser (libusdt).
 *
 * At a call site that -G rewrote into the tracepoint, the registers and
 * the stack are the same (note_args_call).  At a tail call -G rewrote
 * (`jmp` into `ret`), the caller's return address is still at 0(%rsp), and
 * stack arguments start at 8(%rsp) (note_args_tail).
 *
 * FreeBSD, illumos and macOS (DOF version 2) want the is-enabled function
 * to return an int that the tracer sets: their unit (arch_x86_64_v2)
 * clears %rax in the is-enabled function with `xor %rax,%rax` (48 33 c0,
 * the bytes dtrace -G writes over is-enabled calls), and the tracepoint is
 * the first of two 1-byte nops after it, 3 bytes past the function's
 * start, where the tracer sets %rax to 1.  The probe function is the same
 * as on Linux.
 */
#include <elf.h>

#include "insn.h"
#include "target.h"

/* The probe function: the tracepoint with the return address popped. */
#define X86_64_PROBE \
	X86_POP_R11, \
	X86_NOP5,			/* +2: the probe tracepoint */ \
	X86_PUSH_R11, \
	X86_RET

static const uint8_t x86_64_unit[16] = {
	X86_64_PROBE,
	X86_NOP5,			/* +10 is-enabled: the tracepoint */
	X86_RET,
};

static const uint8_t x86_64_v2_unit[16] = {
	X86_64_PROBE,
	X86_XOR_RAX,			/* +10 is-enabled: returns 0 */
	X86_NOP, X86_NOP,		/* +13: the tracepoint, nop; nop */
	X86_RET,
};

/* Integer argument registers by size: 8, 4, 2, 1 bytes. */
static const char *const gpr_names[6][4] = {
	{ "rdi", "edi", "di", "dil" },
	{ "rsi", "esi", "si", "sil" },
	{ "rdx", "edx", "dx", "dl" },
	{ "rcx", "ecx", "cx", "cl" },
	{ "r8", "r8d", "r8w", "r8" },	/* gdb knows no r8b: read the low byte of r8 */
	{ "r9", "r9d", "r9w", "r9" },
};

static const char *
gpr(int index, unsigned size)
{
	switch (size) {
	case 1: return gpr_names[index][3];
	case 2: return gpr_names[index][2];
	case 4: return gpr_names[index][1];
	default: return gpr_names[index][0];
	}
}

/* Sizes a register argument can be read at; anything else reads 8. */
static unsigned
register_size(unsigned size)
{
	return (size == 1 || size == 2 || size == 4) ? size : 8;
}

/* The arguments, with the first stack argument at stack(%rsp). */
static void
describe_args(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out,
    unsigned stack)
{
	int next_gpr = 0, next_xmm = 0;

	for (size_t i = 0; i < pr->nargc; i++) {
		mdl_typeinfo_t ti = mdl_type_info(m, pr->nargs[i].type);
		unsigned size = register_size(ti.size);
		const char *sign = ti.is_signed && ti.tclass == MDL_TC_INTEGER ? "-" : "";
		unsigned eightbytes = ti.size > 8 ? (ti.size + 7) / 8 : 1;

		if (i > 0)
			sb_putc(out, ' ');
		if (ti.tclass == MDL_TC_FLOAT && (ti.size == 4 || ti.size == 8)) {
			/* its bits, in an integer of its size (header/args.c) */
			sign = "";
		} else if (ti.tclass == MDL_TC_FLOAT) {
			if (next_xmm < 8)
				sb_printf(out, "%uf@%%xmm%d", ti.size, next_xmm++);
			else {
				sb_printf(out, "%uf@%u(%%rsp)", ti.size, stack);
				stack += 8;
			}
			continue;
		}
		if (ti.tclass == MDL_TC_MEMORY && (ti.size == 0 || ti.size > 16)) {
			unsigned bytes = ti.size ? (ti.size + 7) / 8 * 8 : 8;

			if (ti.size > 8 && (stack & 15) != 0 && ti.size == 16)
				stack += 8;
			sb_printf(out, "8@%u(%%rsp)", stack);
			stack += bytes;
			continue;
		}
		if (next_gpr + (int)eightbytes <= 6) {
			sb_printf(out, "%s%u@%%%s", sign, size, gpr(next_gpr, size));
			next_gpr += (int)eightbytes;
		} else {
			sb_printf(out, "%s%u@%u(%%rsp)", sign, size, stack);
			stack += 8 * eightbytes;
		}
	}
}

/* At a unit's tracepoint or a rewritten call: no return address on the stack. */
static void
x86_64_note_args(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out)
{
	describe_args(m, pr, out, 0);
}

/* At a rewritten tail call: past the caller's return address. */
static void
x86_64_note_args_tail(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out)
{
	describe_args(m, pr, out, 8);
}

#define X86_64_RELOCS \
	.reloc_abs64 = R_X86_64_64, \
	.reloc_abs32 = R_X86_64_32, \
	.reloc_pc64 = R_X86_64_PC64, \
	.reloc_relative = R_X86_64_RELATIVE, \
	.reloc_glob_dat = R_X86_64_GLOB_DAT, \
	.reloc_branch = { R_X86_64_PC32, R_X86_64_PLT32 }

const arch_t arch_x86_64 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.elf_class = ELFCLASS64,
	X86_64_RELOCS,
	.unit = x86_64_unit,
	.unit_size = sizeof(x86_64_unit),
	.unit_align = 16,
	.probe_offset = 2,
	.enabled_offset = 10,
	.note_args = x86_64_note_args,
	.note_args_call = x86_64_note_args,
	.note_args_tail = x86_64_note_args_tail,
};

const arch_t arch_x86_64_v2 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.elf_class = ELFCLASS64,
	X86_64_RELOCS,
	.unit = x86_64_v2_unit,
	.unit_size = sizeof(x86_64_v2_unit),
	.unit_align = 16,
	.probe_offset = 2,
	.enabled_offset = 10,
	.enabled_skip = 3,
	.note_args = x86_64_note_args,
	.note_args_call = x86_64_note_args,
	.note_args_tail = x86_64_note_args_tail,
};
