/*
 * arch_x86_64.c - the x86_64 probe unit and where arguments lie at its entry.
 *
 * The unit is two 8-byte slots.  Each starts with the 5-byte nop
 * `nopl 0(%rax,%rax,1)` (0f 1f 44 00 00), which is the tracepoint: uprobes
 * can single-step or emulate it, and dtrace -G writes the same nop over call
 * sites.  A `ret` follows, then a 2-byte nop pads the slot.
 *
 * The unit is entered by a normal call, so its arguments are where the
 * System V AMD64 ABI puts them: integer-class values in rdi, rsi, rdx, rcx,
 * r8, r9, floating values in xmm0-xmm7, the rest on the stack from 8(%rsp)
 * (0(%rsp) holds the return address).  A struct or union passed by value
 * reaches here only when one general register holds it (at most 8 bytes,
 * no floating member): the parser takes the others for pointers, with a
 * warning (D_PROBE_BYVALUE in parse.c), since no single note operand can
 * describe two registers or a copy on the stack.  The other branches stay for models built without
 * the parser (libusdt).
 *
 * At a call site that -G rewrote into the tracepoint, the registers are the
 * same, but the call has not pushed its return address: stack arguments
 * start at 0(%rsp) (note_args_call).
 *
 * FreeBSD and illumos (DOF version 2) want the is-enabled function to
 * return an int that the tracer sets: their unit (arch_x86_64_v2)
 * clears %rax in the is-enabled slot with `xor %rax,%rax` (48 33 c0, the
 * bytes dtrace -G writes over is-enabled calls), and the tracepoint is the
 * first of two 1-byte nops after it, 3 bytes past the slot's start, where
 * the tracer sets %rax to 1.  The probe slot is the same as on Linux.
 */
#include <elf.h>

#include "insn.h"
#include "target.h"

static const uint8_t x86_64_unit[16] = {
	X86_NOP5,			/* probe: the tracepoint */
	X86_RET,
	X86_NOP2,
	X86_NOP5,			/* is-enabled: the tracepoint */
	X86_RET,
	X86_NOP2,
};

static const uint8_t x86_64_v2_unit[16] = {
	X86_NOP5,			/* probe: the tracepoint */
	X86_RET,
	X86_NOP2,
	X86_XOR_RAX,			/* is-enabled: returns 0 */
	X86_NOP, X86_NOP,		/* +3: the tracepoint, nop; nop */
	X86_RET,
	X86_NOP2,
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
		mdl_typeinfo_t ti = model_type_info(m, pr->nargs[i].type);
		unsigned size = register_size(ti.size);
		const char *sign = ti.is_signed && ti.tclass == USDT_TC_INTEGER ? "-" : "";
		unsigned eightbytes = ti.size > 8 ? (ti.size + 7) / 8 : 1;

		if (i > 0)
			sb_putc(out, ' ');
		if (ti.tclass == USDT_TC_FLOAT) {
			if (next_xmm < 8)
				sb_printf(out, "%uf@%%xmm%d", ti.size, next_xmm++);
			else {
				sb_printf(out, "%uf@%u(%%rsp)", ti.size, stack);
				stack += 8;
			}
			continue;
		}
		if (ti.tclass == USDT_TC_MEMORY && (ti.size == 0 || ti.size > 16)) {
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

/* At a unit's entry: past the return address. */
static void
x86_64_note_args(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out)
{
	describe_args(m, pr, out, 8);
}

/* At a rewritten call: nothing pushed yet. */
static void
x86_64_note_args_call(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out)
{
	describe_args(m, pr, out, 0);
}

#define X86_64_RELOCS \
	.reloc_abs64 = R_X86_64_64, \
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
	.probe_offset = 0,
	.enabled_offset = 8,
	.note_args = x86_64_note_args,
	.note_args_call = x86_64_note_args_call,
};

const arch_t arch_x86_64_v2 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.elf_class = ELFCLASS64,
	X86_64_RELOCS,
	.unit = x86_64_v2_unit,
	.unit_size = sizeof(x86_64_v2_unit),
	.unit_align = 16,
	.probe_offset = 0,
	.enabled_offset = 8,
	.enabled_skip = 3,
	.note_args = x86_64_note_args,
	.note_args_call = x86_64_note_args_call,
};
