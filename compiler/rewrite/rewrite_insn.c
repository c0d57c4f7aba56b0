/*
 * rewrite_insn.c - how a call to a probe function looks, per architecture,
 * and what a rewrite puts in its place (the table is rewrite_plan.c's
 * comment, in bytes).
 *
 * Both stages of the rewrite read it: planning to recognise a call,
 * writing to check the bytes are still the call and patch them.  It is the
 * bottom of the rewrite with rewrite_obj.c: it calls no other file.
 */
#include <stddef.h>
#include <stdint.h>

#include "insn.h"
#include "rewrite_int.h"


/* ---- how a call looks, per architecture ----------------------------------- */

static const call_isa_t call_isas[] = {
	{
		.machine = EM_X86_64,
		.site_size = 5,
		.reloc_at = 1,
		.op_size = 1,
		.op_mask = 0xff,
		.call_op = X86_CALL_REL32,
		.jump_op = X86_JMP_REL32,
		.addend = -4,
		.probe = { X86_NOP5 },				/* the tracepoint */
		.tail = { X86_RET, X86_NOP4 },
		.enabled = { X86_XOR_RAX, X86_NOP, X86_NOP },	/* 0; tracepoint at +3 */
		.enabled_tail = { X86_XOR_RAX, X86_RET, X86_NOP },
		.enabled_skip = 3,
		.has_mark = true,
		.mark_reloc = R_X86_64_NONE,
		.mark_byte = X86_NOP,
	},
	{
		.machine = EM_AARCH64,
		.site_size = 4,
		.reloc_at = 0,
		.op_size = 4,
		.op_mask = A64_BRANCH_MASK,
		.call_op = A64_BL,
		.jump_op = A64_B,
		.addend = 0,
		.probe = { A64_NOP },				/* the tracepoint */
		.tail = { A64_RET },
	},
};

/* The opcode bits of the instruction at code. */
uint32_t
rewrite_opcode_at(const call_isa_t *isa, const uint8_t *code)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < isa->op_size; i++)
		v |= (uint32_t)code[i] << (8 * i);
	return v & isa->op_mask;
}

/* Whether is-enabled calls get the DOF version 2 sequence on this target. */
bool
rewrite_clears_result(const call_isa_t *isa, const target_t *t)
{
	return t->dof_enabled_version == 2 && isa->enabled_skip != 0;
}

/* What replaces a call of this kind. */
const uint8_t *
rewrite_replacement(const call_isa_t *isa, const target_t *t, bool is_enabled, bool tail)
{
	if (is_enabled && rewrite_clears_result(isa, t))
		return tail ? isa->enabled_tail : isa->enabled;
	return tail ? isa->tail : isa->probe;
}

/* From a rewritten call's start to its tracepoint. */
uint32_t
rewrite_tracepoint_skip(const call_isa_t *isa, const target_t *t, bool is_enabled)
{
	return is_enabled && rewrite_clears_result(isa, t) ? isa->enabled_skip : 0;
}

const call_isa_t *
rewrite_call_isa_for(unsigned machine)
{
	for (size_t i = 0; i < sizeof(call_isas) / sizeof(call_isas[0]); i++)
		if (call_isas[i].machine == machine)
			return &call_isas[i];
	return NULL;
}
