/*
 * arch_arm64_macos.c - the arm64 probe unit for macOS (target arm64-macos).
 *
 * macOS declares the is-enabled function as `int f(void)`: it must return
 * 0 unless DTrace enables the probe, and the kernel, when it does, sets x0
 * to 1 at the tracepoint and steps over it.  That is what Apple's ld64
 * writes over an is-enabled call, `mov x0, #0`, so the unit's is-enabled
 * slot holds exactly that instruction as its tracepoint.  The probe slot is
 * the `nop` ld64 writes over a probe call.  (The aarch64-linux unit of
 * arch_aarch64.c leaves x0 alone: there x0 is the flag's address.)
 *
 *	0	nop		probe tracepoint
 *	4	ret
 *	8	mov x0, #0	is-enabled tracepoint
 *	12	ret
 *
 * Only macho_objgen.c uses this unit: macOS has no stapsdt notes, so the
 * argument description is empty.
 */
#include <elf.h>

#include "insn.h"
#include "target.h"

static const uint8_t arm64_macos_unit[16] = {
	A64_NOP,			/* probe: the tracepoint */
	A64_RET,
	A64_MOV_X0_0,			/* is-enabled: returns 0 */
	A64_RET,
};

static void
no_note_args(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out)
{
	(void)m;
	(void)pr;
	(void)out;
}

const arch_t arch_arm64_macos = {
	.name = "arm64",
	.elf_machine = EM_AARCH64,
	.elf_class = ELFCLASS64,
	.reloc_abs64 = R_AARCH64_ABS64,
	.unit = arm64_macos_unit,
	.unit_size = sizeof(arm64_macos_unit),
	.unit_align = 16,
	.probe_offset = 0,
	.enabled_offset = 8,
	.enabled_skip = 0,
	.note_args = no_note_args,
	.note_args_call = no_note_args,
	.note_args_tail = no_note_args,
};
