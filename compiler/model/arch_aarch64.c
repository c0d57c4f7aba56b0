/*
 * arch_aarch64.c - the AArch64 probe unit and where arguments lie at its
 * entry.
 *
 * The unit is two 8-byte slots of two instructions each: `nop`, the
 * tracepoint, then `ret`.  A 4-byte `nop` is what -G writes over a `bl` to
 * a probe (rewrite_plan.c), so a probe looks the same to a tracer whether it
 * fires in its unit or at a rewritten call site; uprobes single-step or
 * emulate it.  The is-enabled slot is the same: under the Linux DOF
 * version 3 convention its caller passes a pointer in x0 and the tracer
 * stores 1 through it, so the slot itself does nothing.
 *
 * Arguments follow the AAPCS64 (the procedure call standard for AArch64,
 * as Linux uses it): integer-class values in x0-x7, floating values in
 * v0-v7, the rest on the stack from [sp] in 8-byte slots.  `bl` pushes
 * nothing (the return address is in x30), so arguments lie the same at a
 * unit's entry and at a rewritten call.  Composites up to 16 bytes travel
 * in one or two general registers; larger ones are passed by reference, a
 * pointer in the next general register, and the note then describes their
 * first eight bytes through it ([xN]).  Homogeneous floating-point
 * aggregates are not recognised (the model only knows a struct's size).
 *
 * Notes are spelled as GCC's <sys/sdt.h> spells them for AArch64: the
 * 64-bit register name whatever the argument's size (`-4@x0`, never w0),
 * `[sp, 8]` for memory, and plain `char` is unsigned on this ABI.
 * Floating registers are named by their size (s0 for float, d0 for
 * double, q0 for long double): gdb reads them; bcc and libbpf read general
 * registers only, as on x86_64, where the note names %xmm registers.
 */
#include <elf.h>
#include <string.h>

#include "insn.h"
#include "target.h"

/* nop; ret; nop; ret - each instruction little-endian. */
static const uint8_t aarch64_unit[16] = {
	A64_NOP,			/* probe: the tracepoint */
	A64_RET,
	A64_NOP,			/* is-enabled: the tracepoint */
	A64_RET,
};

#define NGRN_MAX	8	/* x0-x7 */
#define NSRN_MAX	8	/* v0-v7 */

/* Where the next argument goes, as the AAPCS64 counts. */
typedef struct arg_cursor {
	unsigned ngrn;		/* next general register */
	unsigned nsrn;		/* next SIMD/floating register */
	unsigned nsaa;		/* next stacked argument's offset from sp */
} arg_cursor_t;

/* Sizes a register or slot can be read at; anything else reads 8. */
static unsigned
read_size(unsigned size)
{
	return (size == 1 || size == 2 || size == 4) ? size : 8;
}

static void
put_stack(strbuf_t *out, const char *sign, unsigned size, const char *suffix,
    unsigned off)
{
	if (off == 0)
		sb_printf(out, "%s%u%s@[sp]", sign, size, suffix);
	else
		sb_printf(out, "%s%u%s@[sp, %u]", sign, size, suffix, off);
}

/* Plain `char` is unsigned under the AAPCS64. */
static bool
is_signed(const char *type, const mdl_typeinfo_t *ti)
{
	return ti->is_signed && ti->tclass == MDL_TC_INTEGER && strcmp(type, "char") != 0;
}

static void
describe_float(strbuf_t *out, arg_cursor_t *c, unsigned size)
{
	const char *reg = size == 4 ? "s" : size == 16 ? "q" : "d";
	unsigned slot = size == 16 ? 16 : 8;

	if (c->nsrn < NSRN_MAX) {
		sb_printf(out, "%uf@%s%u", size ? size : 8, reg, c->nsrn++);
		return;
	}
	c->nsaa = (c->nsaa + slot - 1) / slot * slot;
	put_stack(out, "", size == 4 ? 4 : 8, "f", c->nsaa);
	c->nsaa += slot;
}

/* A value in general registers (words of them) or on the stack. */
static void
describe_general(strbuf_t *out, arg_cursor_t *c, const char *sign, unsigned size,
    unsigned words, bool pair_aligned)
{
	if (pair_aligned && (c->ngrn & 1) != 0)
		c->ngrn++;
	if (c->ngrn + words <= NGRN_MAX) {
		sb_printf(out, "%s%u@x%u", sign, read_size(size), c->ngrn);
		c->ngrn += words;
		return;
	}
	c->ngrn = NGRN_MAX;
	if (pair_aligned)
		c->nsaa = (c->nsaa + 15) & ~15u;
	put_stack(out, sign, read_size(size), "", c->nsaa);
	c->nsaa += 8 * words;
}

/* A composite larger than 16 bytes: a pointer to a copy. */
static void
describe_by_reference(strbuf_t *out, arg_cursor_t *c)
{
	if (c->ngrn < NGRN_MAX) {
		sb_printf(out, "8@[x%u]", c->ngrn++);
		return;
	}
	/* The pointer itself is on the stack: describe the pointer. */
	put_stack(out, "", 8, "", c->nsaa);
	c->nsaa += 8;
}

static void
aarch64_note_args(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out)
{
	arg_cursor_t c = { 0, 0, 0 };

	for (size_t i = 0; i < pr->nargc; i++) {
		const char *type = pr->nargs[i].type;
		mdl_typeinfo_t ti = mdl_type_info(m, type);
		bool long_double = strcmp(type, "long double") == 0;

		if (i > 0)
			sb_putc(out, ' ');
		if (ti.tclass == MDL_TC_FLOAT && !long_double && (ti.size == 4 || ti.size == 8))
			/* its bits, in an integer of its size (header/args.c) */
			describe_general(out, &c, "", ti.size, 1, false);
		else if (ti.tclass == MDL_TC_FLOAT || long_double)
			describe_float(out, &c, long_double ? 16 : ti.size);
		else if (ti.tclass == MDL_TC_MEMORY && (ti.size == 0 || ti.size > 16))
			describe_by_reference(out, &c);
		else if (ti.size > 8)
			describe_general(out, &c, "", 8, 2, ti.tclass == MDL_TC_INTEGER);
		else
			describe_general(out, &c, is_signed(type, &ti) ? "-" : "", ti.size, 1,
			    false);
	}
}

const arch_t arch_aarch64 = {
	.name = "aarch64",
	.elf_machine = EM_AARCH64,
	.elf_class = ELFCLASS64,
	.reloc_abs64 = R_AARCH64_ABS64,
	.reloc_abs32 = R_AARCH64_ABS32,
	.reloc_pc64 = R_AARCH64_PREL64,
	.reloc_relative = R_AARCH64_RELATIVE,
	.reloc_glob_dat = R_AARCH64_GLOB_DAT,
	.reloc_branch = { R_AARCH64_CALL26, R_AARCH64_JUMP26 },
	.unit = aarch64_unit,
	.unit_size = sizeof(aarch64_unit),
	.unit_align = 16,
	.probe_offset = 0,
	.enabled_offset = 8,
	.note_args = aarch64_note_args,
	.note_args_call = aarch64_note_args,	/* bl pushes nothing */
	.note_args_tail = aarch64_note_args,	/* nor does b */
};
