/*
 * forms_dtrace.c - the probe forms of DTrace's targets (header_int.h):
 * x86_64 and aarch64 Linux, FreeBSD and illumos, where a probe has a stub
 * that -G, given the objects, turns a call of into a tracepoint.
 *
 * What they share is the probe unit (the stub, on Linux its note and the
 * semaphore page) and the call of the stub beside the asm that brings the
 * unit (_USDT_CALL, _USDT_C).  FreeBSD and illumos have that alone; on
 * Linux, x86_64 adds its inline sites and _ENABLED()'s slow path in asm
 * (forms_x86_64.c) and aarch64 the same in C, with every site a call
 * (forms_aarch64.c).  The pieces every Linux architecture shares (the
 * note's fields, the semaphore) are asm_text.c's.
 */
#include <elf.h>

#include "header_int.h"
#include "stapsdt.h"

/*
 * The stub: the arch's unit bytes, the probe function's symbol over all of
 * them, the is-enabled function's symbol from enabled_offset to the end;
 * in the file's one section of units, as the -G object's (MDL_UNITS_SECTION):
 * a COMDAT group a probe cost three section headers and a symbol (over
 * 200 bytes of object) for the 16 bytes it saves a program per file.
 */
static void
stub_asm(asm_writer_t *w, const arch_t *a, const char *func, const char *enabled)
{
	size_t split = a->enabled_offset < a->unit_size ? a->enabled_offset : a->unit_size;
	strbuf_t *l;

	asm_push_section(w, MDL_UNITS_SECTION, "", "ax", "progbits", NULL);
	l = asm_begin(w);
	sb_printf(l, "\t.balign %u", a->unit_align);
	asm_end(w);
	asm_define_symbol(w, func, "function", a->unit_size);
	asm_code(w, a->unit, 0, split);
	asm_define_symbol(w, enabled, "function", a->unit_size - split);
	asm_code(w, a->unit, split, a->unit_size);
	asm_plain(w, "\t.popsection");
}

/* The semaphore page (stapsdt.h says why), before any semaphore of the unit. */
static void
semaphore_page_asm(asm_writer_t *w, const target_t *t)
{
	strbuf_t *l;

	asm_plain(w, "\t.ifndef " STAPSDT_SEMAPHORE_PAGE_SYMBOL);
	asm_push_section(w, STAPSDT_SEMAPHORE_SECTION, "", "awR", "progbits",
	    STAPSDT_SEMAPHORE_PAGE_SYMBOL);
	l = asm_begin(w);
	sb_printf(l, "\t.balign %u", t->arch->elf_machine == EM_AARCH64 ?
	    STAPSDT_SEMAPHORE_PAGE_AARCH64 : STAPSDT_SEMAPHORE_PAGE_X86_64);
	asm_end(w);
	asm_define_symbol(w, STAPSDT_SEMAPHORE_PAGE_SYMBOL, "object", 0);
	asm_plain(w, "\t.popsection");
	asm_plain(w, "\t.endif");
}

/*
 * A probe unit, generic in f (the probe function's name after
 * MDL_PROBE_PREFIX), p (provider), n (probe as declared) and a (the
 * note's arguments): on Linux the semaphore page and the probe's
 * semaphore (_USDT_SEM_); the stub (a tracepoint and the is-enabled tracepoint,
 * bytes taken from the target's arch) in the units' section, its symbols
 * weak and hidden, so the linker binds every call to one copy; all under
 * `.ifndef` on the probe function.
 * Only what calls the stub brings it: the call form and _ENABLED().
 *
 * The semaphore page comes with the unit, not with every semaphore: what
 * reads a semaphore is _ENABLED(), whose unit brings it, or drti_lite, in
 * the -G object, which has its own.  A file whose probes are inline sites
 * only reads none (a count the kernel put on another mapping's page, as
 * stapsdt.h tells, would be read by nobody), and its object is not padded
 * to the page's alignment: 4 KiB less per object file.
 */
static void
unit_asm(asm_writer_t *w, const target_t *t)
{
	asm_sym_directive(w, ".ifndef", UNIT_FUNC);
	if (t->stapsdt) {
		semaphore_page_asm(w, t);
		sb_puts(w->out, "_USDT_SEM_(p, n)\n");
	}
	stub_asm(w, t->arch, UNIT_FUNC, UNIT_ENABLED);
	asm_plain(w, "\t.endif");
}

/*
 * The stub's note, for the asm statements that call the stub (the call
 * form), not for _ENABLED()'s, which calls the is-enabled function alone:
 * an inline site has its own note, and a second one at a stub nothing
 * calls made tracers see the probe twice.  It is in a COMDAT group of its
 * own (STAPSDT_STUB_NOTE_GROUP), once per assembler file by an
 * assembler-local symbol (.L, never in the object).
 */
static void
unit_note_asm(asm_writer_t *w, const target_t *t)
{
	const char *group = UNIT_FUNC STAPSDT_STUB_NOTE_GROUP;
	strbuf_t *l;

	l = asm_begin(w);
	sb_puts(l, "\t.ifndef .L");
	sb_puts(l, group);
	asm_end(w);
	l = asm_begin(w);
	sb_printf(l, "\t.set .L%s,1", group);
	asm_end(w);
	asm_push_section(w, STAPSDT_NOTE_SECTION, "", "", "note", group);
	if (t->arch->probe_offset != 0)
		sb_printf(w->out, "_USDT_NOTE_(\"" MDL_PROBE_PREFIX "\" p \"" MDL_PROBE_SEP "\" n \"+%u\", p, n, a)\n",
		    t->arch->probe_offset);
	else
		sb_puts(w->out, "_USDT_NOTE_(\"" MDL_PROBE_PREFIX "\" p \"" MDL_PROBE_SEP "\" n, p, n, a)\n");
	asm_plain(w, "\t.endif");
}

/*
 * The forms a probe's lines take (put_probe_macro, header.c), so that
 * each probe is two short lines however it is built:
 *
 *	_USDT_C(T, c)		the call c, beside the asm that emits the unit
 *				of the probe whose function is __dtrace_T
 *	_USDT_E(x)		_ENABLED() where it is a call, x the whole test
 *	_USDT_L(T, k, v, o, c)	Linux: a probe whose arguments fit temporaries
 *				but that is no inline site on x86_64: the call
 *				here (an inline site where <sys/sdt.h>'s form
 *				is, forms_sdt.c)
 *	_USDT_NA(x, a)		Linux: which of a probe's two note descriptions
 *				is this arch's (put_probe_tuple, header.c)
 *	_USDT_S, _USDT_ON	Linux: the inline site and _ENABLED(), each
 *				arch's own (forms_x86_64.c, forms_aarch64.c)
 */
static void
put_form_macros(strbuf_t *out, const target_t *t)
{
	sb_puts(out, "#define _USDT_C(T, c) (_USDT_CALL(_USDT_P_##T), c)\n");
	sb_puts(out, "#define _USDT_E(x) (x)\n");
	if (!t->stapsdt)
		return;
	/* Which of a probe's two note descriptions is this arch's (header.c). */
	sb_printf(out, "#define _USDT_NA(x, a) %s\n",
	    t->arch->elf_machine == EM_X86_64 ? "x" : "a");
	sb_puts(out, "#define _USDT_L(T, k, v, o, c) _USDT_C(T, c)\n");
	if (t->arch->elf_machine == EM_X86_64)
		forms_x86_64_forms(out);
	else
		forms_aarch64_forms(out);
}

/*
 * The macros every probe's unit is written with, for one architecture,
 * once per translation unit however many headers it includes (a header
 * holds, per probe, only its names and note arguments: _USDT_P<func>,
 * put_probe_tuple in header.c):
 *
 *	_USDT_DEF_(s, t, z)	a weak hidden symbol's definition
 *	_USDT_NOTE_(c, p, n, a)	a stapsdt note's fields at pc c
 *	_USDT_SEM_(p, n)	.stapsdt.base and the probe's semaphore
 *	_USDT_UNIT_(p, n, a)	the unit's assembler text (unit_asm)
 *	_USDT_UNOTE_(p, n, a)	the stub's note, in a group of its own
 *				(unit_note_asm)
 *	_USDT_CALL(P)		an asm statement that emits the unit of the
 *				probe P names and its stub's note, beside a
 *				call of its function
 *	_USDT_SITE(P)		x86_64: an inline site, its note and semaphore
 *	_USDT_V, _USDT_VX, _USDT_VP, _USDT_R<i>, _USDT_M, _USDT_O<i>
 *				x86_64: an inline site's temporaries, register
 *				variables and asm operands (argument i's
 *				register a macro of its own: fewer bytes a probe)
 *	_USDT_ENABLED(s, P)	x86_64: the slow path of _ENABLED(), with the
 *				unit (forms_x86_64_macros)
 *	_USDT_ENABLED(s, e, P)	aarch64: the same in C (forms_aarch64_macros)
 *
 * and the forms of put_form_macros.  So a translation unit carries the
 * notes, semaphores and units of the probes it fires or tests, and only
 * those, as with <sys/sdt.h>; the assembler's `.ifndef` keeps one of each
 * per assembler file, and weak definitions one per program.  A P is a
 * _USDT_P<func> macro of three strings (p, n, a: the probe function's name
 * is p "___" n, UNIT_TAG); each macro taking one passes it on expanded to
 * one whose parameters are the three.  _USDT_ASM is `asm
 * inline` where the compiler has it (GCC 9, clang 11, put_unit_macros):
 * the unit's text emits no instruction where it stands, and the inliner
 * must not count it.
 */
void
forms_dtrace(strbuf_t *out, const target_t *t)
{
	strbuf_t text;
	asm_writer_t w;

	sb_init(&text);
	asm_writer_init(&w, &text, t);
	w.percent = true;
	if (t->stapsdt)
		asm_put_note_and_semaphore(out, &w, "_USDT_NOTE_(c, p, n, a)");
	unit_asm(&w, t);
	asm_put_macro(out, "_USDT_UNIT_(p, n, a)", &text);
	if (t->stapsdt) {
		text.len = 0;
		unit_note_asm(&w, t);
		asm_put_macro(out, "_USDT_UNOTE_(p, n, a)", &text);
		sb_puts(out, "#define _USDT_CALL(P) __extension__ ({ _USDT_ASM(_USDT_UNIT_(P) "
		    "_USDT_UNOTE_(P) : :); })\n");
	} else {
		sb_puts(out, "#define _USDT_CALL(P) __extension__ ({ _USDT_ASM(_USDT_UNIT_(P) : :); })\n");
	}
	if (t->stapsdt && t->arch->elf_machine == EM_X86_64)
		forms_x86_64_macros(out, &w);
	else if (t->stapsdt)
		forms_aarch64_macros(out);
	put_form_macros(out, t);
	if (text.failed)
		out->failed = true;
	sb_free(&text);
	sb_free(&w.line);
}

