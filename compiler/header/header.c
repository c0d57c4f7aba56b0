/*
 * header.c - the -h stage: the C header of probe macros (header.h).
 *
 * The header keeps the shape of dtrace's own, because build systems edit it
 * with sed and sources use its names: an include guard from the output file
 * name, an `extern "C"` guard, and per provider, for each probe in source
 * order, a one-line `#define` head and its body on the next line,
 *
 *	#define PROV_PROBE(arg0, arg1) \
 *		_USDT_C(prov___probe, __dtrace_prov___probe(arg0, arg1))
 *	#define PROV_PROBE_ENABLED() \
 *		_USDT_ON(prov___probe, prov_probe_semaphore)
 *
 * each body one call of a generic form the header defines once
 * (put_form_macros), with a do-nothing definition for compilers that are
 * not GNU C (put_disabled_forms), so a probe is two lines, not four.  Then,
 * for GNU C, each probe's names for the generic unit macros, its semaphore
 * and, where a macro calls it, the prototype in the native types as
 * written (`extern void __dtrace_prov___probe(int, uintptr_t);`).
 *
 * A Linux header is one for every architecture: what differs is chosen
 * when it is compiled, by an `#if` ladder on the architecture in the
 * generic macros (put_unit_macros): x86_64 and aarch64 keep their DTrace
 * forms below, every other architecture gets <sys/sdt.h>'s
 * (put_generic_macros), and a probe's own lines are the same for all.
 *
 * On x86_64 Linux a probe whose arguments are at most six integers or
 * pointers is not a call but an inline site, as <sys/sdt.h>'s is: each
 * argument is evaluated, then moved into the register a call would pass it
 * in (where DTrace on Linux reads a probe's arguments, and where the note
 * says they are), and an asm statement that clobbers nothing holds the
 * tracepoint, a 1-byte nop, and its stapsdt note (asm_generic_site says
 * how -G finds it).  A disabled probe then costs the nop and those moves,
 * and the compiler keeps every other value in its register across it.
 * Other probes (floating or by-value arguments, more than six; aarch64,
 * FreeBSD, illumos) keep the call, which -G turns into a tracepoint where
 * it is given the objects; so does every probe under -D_USDT_PROBE_CALLS.
 * DTrace sees inline sites either way: -G given the object records them,
 * and otherwise drti_lite adds them from the site records the asm writes
 * beside them (asm_site_record, runtime/drti_sites.h).
 *
 * Unlike dtrace's header, ours also carries each probe's code: the probe
 * unit of target.h, in a COMDAT group signed by the probe function's name:
 * the stub (a tracepoint and the is-enabled tracepoint, bytes taken from
 * the target's arch); on Linux, in a COMDAT group of its own, the
 * .note.stapsdt note that describes the stub to bpftrace, perf and gdb;
 * and the probe's semaphore in `.probes`, a weak definition of its own.
 * So a program built from the header alone has working probes, and every
 * translation unit, and the -G object, carry identical groups of which the
 * linker keeps one.  A translation unit carries what the probes it fires
 * or tests need and no more, as with <sys/sdt.h>: an inline site its note
 * and the semaphore; _ENABLED()'s slow path, which calls the is-enabled
 * function, the unit as well; an asm beside the call form the unit and the
 * stub's note (only a stub that can run has a note, so that no probe is
 * seen twice: stapsdt.h).  They emit them from generic macros the
 * header writes once (put_unit_macros) and one line of names per probe
 * (put_probe_tuple).
 *
 * Defining a label twice in one assembler file is an error that neither
 * `.weak` nor COMDAT forgives, and one assembler file sees a probe as often
 * as it is used, and may see two headers of one provider, or several units
 * merged by LTO.  So each unit is under `.ifndef` on the function symbol,
 * each semaphore on its own symbol, and the prototype of a probe that is
 * always a call under a C guard.  `.stapsdt.base` is guarded the same way,
 * as <sys/sdt.h> guards it, so our probes and <sys/sdt.h> probes can share
 * a translation unit.
 *
 * PROV_PROBE_ENABLED() on Linux is, when nothing traces, what <sys/sdt.h>'s
 * is: one load of the probe's semaphore and one branch, expected not taken.
 * Past it, a Linux tracer's count (bpftrace, perf) says yes at once; only
 * the DTrace bit, which drti_lite sets once a DTrace helper took the DOF
 * (stapsdt.h), leads to the is-enabled function, given the address of a
 * flag where DTrace stores 1 (DOF version 3).  On x86_64 all that lies
 * past the branch is one asm statement that takes no register, so that the
 * compiler allocates registers around the check as around <sys/sdt.h>'s
 * (asm_generic_enabled_x86_64).  A program built from the header alone has no
 * drti_lite and never gets that far.  On FreeBSD and illumos (DOF
 * version 2, no semaphores) it is a plain call of the is-enabled function,
 * which returns an int as their dtrace's header declares it, and the stub
 * clears the result before its tracepoint.  Everything GNU C is spelled so
 * -std=c89 -pedantic stays quiet: __extension__, __asm__, no // comments;
 * compilers that are not GNU C get the do-nothing macros.
 *
 * This file only appends to a strbuf: an allocation failure latches
 * out->failed, which the caller checks once.
 */
#include <ctype.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "dof.h"
#include "header.h"
#include "stapsdt.h"

/* Everything one probe is called, computed once per provider. */
typedef struct probe_names {
	char *macro;		/* PROV_PROBE */
	char *func;		/* __dtrace_prov___probe, the symbol */
	char *enabled;		/* __dtraceenabled_prov___probe */
	char *semaphore;	/* prov_probe_semaphore */
	char *c_func;		/* the same three as C identifiers */
	char *c_enabled;
	char *c_semaphore;
} probe_names_t;

/*
 * The generic unit macros (put_unit_macros) are written with the asm
 * writers below, from names that hold a macro parameter: PARAM_MARK and
 * the parameter's letter, which the C text gets as `" f "`, so that
 * "__dtrace_" PARAM "f" becomes "__dtrace_" f "" in the macro.
 */
#define PARAM_MARK	'\001'
#define PARAM(letter)	"\001" letter

/* The most arguments of a probe that is an inline site on the generic arch. */
#define GENERIC_MAX_ARGS	12

/* ---- names ------------------------------------------------------------- */

static bool
is_c_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/*
 * The C identifier a symbol is declared under: the symbol itself, or, when
 * it holds characters C does not allow ('.', '-'), a copy with each of
 * them turned into '_' (the declaration then names the symbol in an asm
 * label).  NULL on allocation failure.
 */
static char *
c_ident(const char *symbol)
{
	char *out = strdup(symbol);

	if (out == NULL || is_c_ident(out))
		return out;
	for (char *o = out; *o != '\0'; o++)
		if (!isalnum((unsigned char)*o) && *o != '_')
			*o = '_';
	if (isdigit((unsigned char)out[0]))
		out[0] = '_';
	return out;
}

static void
names_free(probe_names_t *n)
{
	free(n->macro);
	free(n->func);
	free(n->enabled);
	free(n->semaphore);
	free(n->c_func);
	free(n->c_enabled);
	free(n->c_semaphore);
}

/* Fill n for probe pr of provider prov; -1 on allocation failure. */
static int
names_init(probe_names_t *n, const mdl_provider_t *prov, const mdl_probe_t *pr)
{
	memset(n, 0, sizeof(*n));
	n->macro = mdl_macro_name(prov->name, pr->dof_name);
	n->func = mdl_probe_func(prov->name, pr->dof_name);
	n->enabled = mdl_enabled_func(prov->name, pr->dof_name);
	n->semaphore = mdl_semaphore_name(prov->name, pr->name);
	if (n->macro == NULL || n->func == NULL || n->enabled == NULL ||
	    n->semaphore == NULL)
		return -1;
	n->c_func = c_ident(n->func);
	n->c_enabled = c_ident(n->enabled);
	n->c_semaphore = c_ident(n->semaphore);
	if (n->c_func == NULL || n->c_enabled == NULL || n->c_semaphore == NULL)
		return -1;
	return 0;
}

/*
 * The probe's tag in the header's own macro names: its C function name
 * after MDL_PROBE_PREFIX (`prov___probe`).  _USDT_P_<tag> holds what the
 * generic unit macros need of the probe (put_probe_tuple), and also guards
 * its declarations against a second header of the provider.
 */
static const char *
probe_tag(const probe_names_t *n)
{
	size_t plen = strlen(MDL_PROBE_PREFIX);

	return strncmp(n->c_func, MDL_PROBE_PREFIX, plen) == 0 ? n->c_func + plen : n->c_func;
}

/* ---- the include guard --------------------------------------------------- */

/*
 * `_` + the base name of the output file, upper-cased, every character
 * that cannot be in an identifier turned into `_`: probes.h.tmp ->
 * _PROBES_H_TMP.  With no file name (standard output), _STDOUT.
 */
void
header_put_guard_name(strbuf_t *out, const char *guard_file)
{
	const char *base = guard_file != NULL ? guard_file : "stdout";
	const char *slash = strrchr(base, '/');

	if (slash != NULL)
		base = slash + 1;
	sb_putc(out, '_');
	for (const char *s = base; *s != '\0'; s++)
		sb_putc(out, isalnum((unsigned char)*s) ?
		    (char)toupper((unsigned char)*s) : '_');
}

/* ---- the assembler text of a probe unit --------------------------------- */

/* Characters gas and LLVM accept in a symbol name without quotes. */
static bool
is_plain_asm_symbol(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '$' &&
		    *s != PARAM_MARK)
			return false;
	return true;
}

/* s inside assembler double quotes, with `"` and `\` escaped. */
static void
put_asm_quoted(strbuf_t *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(sb, "\\%c", c);
		else if ((c < 0x20 && c != PARAM_MARK) || c >= 0x7f)
			sb_printf(sb, "\\%03o", c);
		else
			sb_putc(sb, (char)c);
	}
	sb_putc(sb, '"');
}

/* A symbol name as the assembler reads it: quoted only when it must be. */
static void
put_asm_symbol(strbuf_t *sb, const char *name)
{
	if (is_plain_asm_symbol(name))
		sb_puts(sb, name);
	else
		put_asm_quoted(sb, name);
}

/*
 * Write one assembler line as a line of a C string literal:
 *	"\t.weak sym\n"
 * escaping what C would read otherwise (`?` too: C89 has trigraphs), and
 * `%` as `%%` when the line goes into an asm statement with operands.
 */
static void
put_c_asm_text(strbuf_t *out, const strbuf_t *line, bool percent)
{
	for (size_t i = 0; i < line->len; i++) {
		size_t plain = strcspn(line->data + i, "\t\"\\?%\001");
		char c;

		if (plain > 0) {	/* a run that needs no escape, in one copy */
			plain = plain < line->len - i ? plain : line->len - i;
			sb_append(out, line->data + i, plain);
			i += plain - 1;
			continue;
		}
		switch ((c = line->data[i])) {
		case '\t': sb_puts(out, "\\t"); break;
		case '"': sb_puts(out, "\\\""); break;
		case '\\': sb_puts(out, "\\\\"); break;
		case '?': sb_puts(out, "\\?"); break;
		case '%': sb_puts(out, percent ? "%%" : "%"); break;
		case PARAM_MARK:
			if (i + 1 < line->len)
				sb_printf(out, "\" %c \"", line->data[++i]);
			break;
		default: sb_putc(out, c); break;
		}
	}
}

static void
put_c_asm_line(strbuf_t *out, const strbuf_t *line, bool percent)
{
	sb_putc(out, '"');
	put_c_asm_text(out, line, percent);
	sb_puts(out, "\\n\"\n");
}

/*
 * The lines of one asm statement are built here, one at a time: asm_begin
 * starts a line, the caller appends to line, asm_end writes it out.
 */
typedef struct asm_writer {
	strbuf_t *out;
	strbuf_t line;
	char type_mark;		/* before a type in .type and .section: @ or % */
	bool words;		/* code as 4-byte .inst words (AArch64) */
	bool percent;		/* `%` doubled: for an asm statement with operands */
	const char *addr;	/* an address's directive: .8byte, or a parameter */
} asm_writer_t;

/*
 * gas reads `@` as a comment on some machines, so there types are written
 * `%progbits`, `%function` (AArch64 gas and LLVM accept both; x86_64 keeps
 * the `@` it always had).  Instructions of fixed 4-byte size are written
 * with .inst, so that the assembler marks them as code, not data.
 */
static void
asm_writer_init(asm_writer_t *w, strbuf_t *out, const target_t *t)
{
	w->out = out;
	sb_init(&w->line);
	w->type_mark = t->arch->elf_machine == EM_X86_64 ? '@' : '%';
	w->words = t->arch->elf_machine == EM_AARCH64;
	w->percent = false;
	w->addr = ".8byte";
}

/*
 * The writer of the generic architecture's text (put_generic_macros):
 * types as `%progbits`, which every gas and LLVM read, and addresses with
 * the directive of the macro parameter w (_USDT_ADDR: .4byte or .8byte,
 * by the pointer size the header is compiled for).
 */
static void
asm_writer_init_generic(asm_writer_t *w, strbuf_t *out)
{
	w->out = out;
	sb_init(&w->line);
	w->type_mark = '%';
	w->words = false;
	w->percent = true;
	w->addr = PARAM("w");
}

static strbuf_t *
asm_begin(asm_writer_t *w)
{
	w->line.len = 0;
	if (w->line.data != NULL)
		w->line.data[0] = '\0';
	return &w->line;
}

static void
asm_end(asm_writer_t *w)
{
	if (w->line.failed)
		w->out->failed = true;
	put_c_asm_line(w->out, &w->line, w->percent);
}

/* A directive with one symbol operand: "\t.weak sym". */
static void
asm_sym_directive(asm_writer_t *w, const char *directive, const char *sym)
{
	strbuf_t *l = asm_begin(w);

	sb_printf(l, "\t%s ", directive);
	put_asm_symbol(l, sym);
	asm_end(w);
}

/*
 * A weak hidden symbol of the given type and size, defined here: with a
 * type, one call of _USDT_DEF_(s, t, z) (put_unit_macros), the five lines
 * that would otherwise be written out at each of its uses.
 */
static void
asm_define_symbol(asm_writer_t *w, const char *sym, const char *type, size_t size)
{
	strbuf_t *l;

	if (type != NULL) {
		l = asm_begin(w);
		put_asm_symbol(l, sym);
		sb_puts(w->out, "_USDT_DEF_(\"");
		put_c_asm_text(w->out, l, w->percent);
		sb_puts(w->out, "\", \"");
		l = asm_begin(w);
		sb_printf(l, "%c%s", w->type_mark, type);
		put_c_asm_text(w->out, l, w->percent);
		sb_printf(w->out, "\", \"%zu\")\n", size);
		if (l->failed)
			w->out->failed = true;
		return;
	}
	asm_sym_directive(w, ".weak", sym);
	asm_sym_directive(w, ".hidden", sym);
	l = asm_begin(w);
	sb_puts(l, "\t.size ");
	put_asm_symbol(l, sym);
	sb_printf(l, ",%zu", size);
	asm_end(w);
	l = asm_begin(w);
	put_asm_symbol(l, sym);
	sb_putc(l, ':');
	asm_end(w);
}

/*
 * `.pushsection NAME,"FLAGS",@TYPE,GROUP,comdat`: a section in the COMDAT
 * group signed by GROUP, or with GROUP NULL `.pushsection NAME,"FLAGS",@TYPE`,
 * in none.  The section name is NAME_PREFIX + NAME_SUFFIX.
 */
static void
asm_push_section(asm_writer_t *w, const char *name_prefix,
    const char *name_suffix, const char *flags, const char *type,
    const char *group)
{
	strbuf_t *l = asm_begin(w);
	strbuf_t name;

	sb_init(&name);
	sb_puts(&name, name_prefix);
	sb_puts(&name, name_suffix);
	if (name.failed)
		w->out->failed = true;
	sb_puts(l, "\t.pushsection ");
	put_asm_symbol(l, name.data != NULL ? name.data : "");
	sb_printf(l, ",\"%s%s\",%c%s", flags, group != NULL ? "G" : "", w->type_mark, type);
	if (group != NULL) {
		sb_putc(l, ',');
		put_asm_symbol(l, group);
		sb_puts(l, ",comdat");
	}
	asm_end(w);
	sb_free(&name);
}

static void
asm_plain(asm_writer_t *w, const char *text)
{
	sb_puts(asm_begin(w), text);
	asm_end(w);
}

/* unit[from, to) as one `.byte` line. */
static void
asm_bytes(asm_writer_t *w, const uint8_t *unit, size_t from, size_t to)
{
	strbuf_t *l;

	if (from >= to)
		return;
	l = asm_begin(w);
	sb_puts(l, "\t.byte ");
	for (size_t i = from; i < to; i++) {
		static const char hex[] = "0123456789abcdef";	/* a printf per byte is slow */
		char b[5] = { ',', '0', 'x', hex[unit[i] >> 4], hex[unit[i] & 15] };

		sb_append(l, i > from ? b : b + 1, i > from ? 5 : 4);
	}
	asm_end(w);
}

/* unit[from, to) as `.inst` lines of little-endian 4-byte words. */
static void
asm_words(asm_writer_t *w, const uint8_t *unit, size_t from, size_t to)
{
	for (size_t i = from; i + 4 <= to; i += 4) {
		strbuf_t *l = asm_begin(w);

		sb_printf(l, "\t.inst 0x%02x%02x%02x%02x", unit[i + 3], unit[i + 2],
		    unit[i + 1], unit[i]);
		asm_end(w);
	}
}

static void
asm_code(asm_writer_t *w, const uint8_t *unit, size_t from, size_t to)
{
	if (w->words && from % 4 == 0 && to % 4 == 0)
		asm_words(w, unit, from, to);
	else
		asm_bytes(w, unit, from, to);
}

/*
 * The stub: the arch's unit bytes, the probe function's symbol over all of
 * them, the is-enabled function's symbol from enabled_offset to the end.
 */
static void
asm_stub(asm_writer_t *w, const arch_t *a, const char *func, const char *enabled)
{
	size_t split = a->enabled_offset < a->unit_size ? a->enabled_offset : a->unit_size;
	strbuf_t *l;

	asm_push_section(w, ".text.", func, "ax", "progbits", func);
	l = asm_begin(w);
	sb_printf(l, "\t.balign %u", a->unit_align);
	asm_end(w);
	asm_define_symbol(w, func, "function", a->unit_size);
	asm_code(w, a->unit, 0, split);
	asm_define_symbol(w, enabled, "function", a->unit_size - split);
	asm_code(w, a->unit, split, a->unit_size);
	asm_plain(w, "\t.popsection");
}

/* One `.asciz` line. */
static void
asm_asciz(asm_writer_t *w, const char *s)
{
	strbuf_t *l = asm_begin(w);

	sb_puts(l, "\t.asciz ");
	put_asm_quoted(l, s);
	asm_end(w);
}

/* One `.8byte SYM[+OFF]` line (w->addr for .8byte). */
static void
asm_address(asm_writer_t *w, const char *label, const char *sym, uint32_t off)
{
	strbuf_t *l = asm_begin(w);

	sb_printf(l, "%s\t%s ", label, w->addr);
	put_asm_symbol(l, sym);
	if (off != 0)
		sb_printf(l, "+%u", off);
	asm_end(w);
}

/*
 * The fields of a stapsdt note (version 3, as <sys/sdt.h> writes it), in
 * the section the caller pushed: the pc (PC+OFF), base and semaphore
 * addresses, then provider, probe as declared, and arguments.
 */
typedef struct note_text {
	const char *prov, *name, *args, *semaphore;
} note_text_t;

static void
asm_note_fields(asm_writer_t *w, const char *pc, uint32_t off, const note_text_t *nt)
{
	asm_plain(w, "\t.balign 4");
	asm_plain(w, "\t.4byte 992f-991f,994f-993f," STAPSDT_NOTE_TYPE_STR);
	asm_plain(w, "991:\t.asciz \"" STAPSDT_NOTE_NAME "\"");
	asm_plain(w, "992:\t.balign 4");
	asm_address(w, "993:", pc, off);
	asm_address(w, "", STAPSDT_BASE_SYMBOL, 0);
	asm_address(w, "", nt->semaphore, 0);
	asm_asciz(w, nt->prov);
	asm_asciz(w, nt->name);
	asm_asciz(w, nt->args);
	asm_plain(w, "994:\t.balign 4");
	asm_plain(w, "\t.popsection");
}

/*
 * The probe's semaphore: two zero bytes in `.probes`, where tracers look,
 * once per assembler file (`.ifndef`).  A weak hidden definition in no
 * COMDAT group: every translation unit that fires or tests the probe
 * holds one, the linker picks one of them (or the -G object's, also
 * weak) and every reference, the notes' and the C code's, and the -G
 * object's table of semaphores, goes to that one; the others are two dead
 * bytes each.  A group per probe would cost five section headers in every
 * object that uses it (doc/design.md).
 */
static void
asm_semaphore(asm_writer_t *w, const char *semaphore)
{
	asm_sym_directive(w, ".ifndef", semaphore);
	asm_push_section(w, STAPSDT_SEMAPHORE_SECTION, "", "aw", "progbits", NULL);
	asm_plain(w, "\t.balign 2");
	asm_define_symbol(w, semaphore, "object", STAPSDT_SEMAPHORE_SIZE);
	asm_plain(w, "\t.zero 2");
	asm_plain(w, "\t.popsection");
	asm_plain(w, "\t.endif");
}

/* The semaphore page (stapsdt.h says why), before any semaphore of the unit. */
static void
asm_semaphore_page(asm_writer_t *w, const target_t *t)
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
 * `.stapsdt.base`, which every stapsdt note points at: once per program,
 * guarded as <sys/sdt.h> guards it, so that our probes and <sys/sdt.h>
 * probes can share a translation unit.  Retained (SHF_GNU_RETAIN): lld
 * 14's --gc-sections keeps the notes but drops what only they refer to,
 * and every note's base then reads 0 (as with <sys/sdt.h> alone).
 */
static void
asm_stapsdt_base(asm_writer_t *w)
{
	asm_plain(w, "\t.ifndef " STAPSDT_BASE_SYMBOL);
	asm_push_section(w, STAPSDT_BASE_SECTION, "", "aR", "progbits",
	    STAPSDT_BASE_SECTION);
	asm_define_symbol(w, STAPSDT_BASE_SYMBOL, NULL, 1);
	asm_plain(w, "\t.space 1");
	asm_plain(w, "\t.popsection");
	asm_plain(w, "\t.endif");
}

/* The names of the generic unit, from the parameters of its macro. */
#define UNIT_FUNC	MDL_PROBE_PREFIX PARAM("f")
#define UNIT_ENABLED	MDL_ENABLED_PREFIX PARAM("f")
#define UNIT_SEMAPHORE	PARAM("p") "_" PARAM("n") "_semaphore"

/*
 * Probe p:n's link anchor (dof.h says why), once per assembler file: a
 * section of its own in its own COMDAT group, retained, whose 4 bytes
 * refer PC-relative to the symbol the -G object defines (or the linker,
 * as the section's start): no dynamic relocation, nothing at run time.
 * One per probe, not per provider: each -G object of a provider (QEMU
 * archives 22 of `provider qemu`) is taken for the probes it defines.
 * A linker defines `__start_` only for a section named as a C identifier:
 * a provider named otherwise (`my.prov`, which no .d can declare, but a
 * generated header may) gets none, as `.irpc` over its name finds.
 */
#define LINK_ANCHOR	DOF_LINK_SECTION_PREFIX PARAM("p") MDL_PROBE_SEP PARAM("n")
#define LINK_SYMBOL	DOF_LINK_SYMBOL_PREFIX PARAM("p") MDL_PROBE_SEP PARAM("n")
static void
asm_link_anchor(asm_writer_t *w)
{
	static const char *const check[] = {
		"\t.set .Lusdtc_ident,1", "\t.irpc c," PARAM("p"), "\t.ifc \\c,.",
		"\t.set .Lusdtc_ident,0", "\t.endif", "\t.ifc \\c,-", "\t.set .Lusdtc_ident,0",
		"\t.endif", "\t.endr", "\t.if .Lusdtc_ident",
	};
	strbuf_t *l;

	for (size_t i = 0; i < sizeof(check) / sizeof(check[0]); i++)
		asm_plain(w, check[i]);
	asm_sym_directive(w, ".ifndef", ".L" LINK_ANCHOR);
	asm_push_section(w, LINK_ANCHOR, "", "aR", "progbits", LINK_ANCHOR);
	asm_plain(w, ".L" LINK_ANCHOR ":");
	asm_sym_directive(w, ".hidden", LINK_SYMBOL);
	l = asm_begin(w);
	sb_puts(l, "\t.4byte ");
	put_asm_symbol(l, LINK_SYMBOL);
	sb_puts(l, "-.");
	asm_end(w);
	asm_plain(w, "\t.popsection");
	asm_plain(w, "\t.endif");
	asm_plain(w, "\t.endif");
}

/*
 * What every use of probe p:n needs in its assembler file, whether it
 * brings the probe's unit or not: `.stapsdt.base`, the probe's semaphore
 * and its link anchor, each once (`.ifndef`).  _USDT_SEM_(p, n).
 */
static void
asm_generic_semaphore(asm_writer_t *w)
{
	asm_stapsdt_base(w);
	asm_semaphore(w, UNIT_SEMAPHORE);
	asm_link_anchor(w);
}

/*
 * A probe unit, generic in f (the probe function's name after
 * MDL_PROBE_PREFIX), p (provider), n (probe as declared) and a (the
 * note's arguments): on Linux the semaphore page and the probe's
 * semaphore (_USDT_SEM_); the stub (a tracepoint and the is-enabled tracepoint,
 * bytes taken from the target's arch), and on Linux the .note.stapsdt
 * note that describes the stub to bpftrace, perf and gdb, both in the
 * COMDAT group signed by the probe function; all under `.ifndef` on it.
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
asm_generic_unit(asm_writer_t *w, const target_t *t)
{
	asm_sym_directive(w, ".ifndef", UNIT_FUNC);
	if (t->stapsdt) {
		asm_semaphore_page(w, t);
		sb_puts(w->out, "_USDT_SEM_(p, n)\n");
	}
	asm_stub(w, t->arch, UNIT_FUNC, UNIT_ENABLED);
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
asm_generic_unit_note(asm_writer_t *w, const target_t *t)
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
		sb_printf(w->out, "_USDT_NOTE_(\"" MDL_PROBE_PREFIX "\" f \"+%u\", p, n, a)\n",
		    t->arch->probe_offset);
	else
		sb_puts(w->out, "_USDT_NOTE_(\"" MDL_PROBE_PREFIX "\" f, p, n, a)\n");
	asm_plain(w, "\t.endif");
}

/* The probe's name pair of a site record (dof.h), once per assembler file. */
#define SITE_PROBE	DOF_SITE_PROBE_PREFIX PARAM("f")

/*
 * An inline site's record in DOF_SITES_SECTION (dof.h's dof_site_rec_t):
 * the site (990b), its function (the asm's operand 0, `"i"(__func__)`,
 * printed bare by %c0; 0 under gcc's large code model, _USDT_FREC, where
 * drti_lite names the site after its probe's stub) and the probe's name
 * pair, each PC-relative, so
 * the linker resolves them all and leaves no dynamic relocation; in the
 * group of the code around it (`?`), as the note is, and linked to the
 * code's section (`o`, SHF_LINK_ORDER, to a label of this asm's own,
 * %=): under --gc-sections a linker that does not keep the section for
 * `__start_`'s sake (lld, which drops it otherwise) keeps the record
 * exactly when it keeps the code, so a record neither keeps dead code
 * alive nor is lost with live code.  The name pair is a weak hidden
 * string in a COMDAT group of its own: one per program.
 */
static void
asm_site_record(asm_writer_t *w)
{
	strbuf_t *l;

	asm_sym_directive(w, ".ifndef", SITE_PROBE);
	asm_push_section(w, DOF_SITE_PROBE_SECTION, "", "a", "progbits", SITE_PROBE);
	asm_sym_directive(w, ".weak", SITE_PROBE);
	asm_sym_directive(w, ".hidden", SITE_PROBE);
	l = asm_begin(w);
	put_asm_symbol(l, SITE_PROBE);
	sb_putc(l, ':');
	asm_end(w);
	asm_plain(w, "\t.asciz \"" PARAM("p") "\"");
	asm_plain(w, "\t.asciz \"" PARAM("n") "\"");
	asm_plain(w, "\t.popsection");
	asm_plain(w, "\t.endif");
	w->percent = false;	/* %=: a number of this asm's own; %c0: the operand */
	asm_plain(w, ".Lusdtc_site%=:");
	asm_plain(w, "\t.pushsection " DOF_SITES_SECTION ",\"ao?\",@progbits,.Lusdtc_site%=");
	asm_plain(w, "\t.balign 4");
	asm_plain(w, "\t.4byte 990b-.");
	sb_puts(w->out, "\"\\t.4byte \" _USDT_FREC \"\\n\"\n");	/* %c0-., or 0 (put_form_macros) */
	w->percent = true;
	l = asm_begin(w);
	sb_puts(l, "\t.4byte ");
	put_asm_symbol(l, SITE_PROBE);
	sb_puts(l, "-.");
	asm_end(w);
	asm_plain(w, "\t.popsection");
}

/*
 * An x86_64 inline site, in the manner of <sys/sdt.h>: the probe's
 * semaphore (_USDT_SEM_), and no unit: nothing calls the stub from here.
 * The tracepoint, a 1-byte nop (which uprobes emulate after a trap and
 * never turn into a call, so no site can reach below %rsp into a leaf
 * function's red zone); a relocation of type NONE against the probe
 * function at it, which changes no byte and which -G reads as the mark of
 * a site to record in the DOF (rewrite_plan.c), the function a weak hidden
 * reference, so a program without the unit (header only, the site's the
 * only use) links as it is; and the site's stapsdt note, in the group of
 * the code around it ("?", for inline functions of C++), with the
 * arguments where the macro put them (the unit's own: all registers).
 */
static void
asm_generic_site(asm_writer_t *w)
{
	strbuf_t *l;

	sb_puts(w->out, "_USDT_SEM_(p, n)\n");
	asm_sym_directive(w, ".weak", UNIT_FUNC);
	asm_sym_directive(w, ".hidden", UNIT_FUNC);
	asm_plain(w, "990:\tnop");
	l = asm_begin(w);
	sb_puts(l, "\t.reloc 990b,R_X86_64_NONE,");
	put_asm_symbol(l, UNIT_FUNC);
	asm_end(w);
	asm_site_record(w);
	asm_plain(w, "\t.pushsection " STAPSDT_NOTE_SECTION ",\"?\",@note");
	sb_puts(w->out, "_USDT_NOTE_(\"990b\", p, n, a)\n");
}

/* The fields of a note (asm_note_fields) at pc c, generic as the unit. */
static void
asm_generic_note(asm_writer_t *w)
{
	const note_text_t nt = { PARAM("p"), PARAM("n"), PARAM("a"), UNIT_SEMAPHORE };

	asm_note_fields(w, PARAM("c"), 0, &nt);
}

/*
 * x86_64: the slow path of _ENABLED(), reached only when the semaphore is
 * not zero, as one asm statement that takes no register: the compiler keeps
 * every value where it was across the check, as across <sys/sdt.h>'s, and
 * the fast path stays one compare and one branch.  The statement reads the
 * semaphore again (its "m" operand) and tests the Linux tracers' count;
 * when that is zero, only the DTrace bit is set, and it asks DTrace's
 * is-enabled site: an ordinary call of the is-enabled function (-G rewrites
 * it and records the site, as any) with %rdi pointing at a zeroed stack
 * slot, where DTrace writes 1 (DOF version 3).  %rdi is saved and restored
 * around it, and the unit's stub clobbers nothing.  The answer leaves the
 * statement in the flags: an asm flag output, or setnz for compilers
 * without them (_USDT_ENABLED_OUT, put_enabled_helpers).  The stack pointer
 * first steps over the 128-byte red zone: the compiler does not know of
 * this call, and a leaf function may keep data below %rsp, which the
 * pushes, the return address, or the call the kernel makes of a traced
 * 5-byte nop would overwrite.
 */
static void
asm_generic_enabled_x86_64(asm_writer_t *w)
{
	static const char *const before[] = {
		"\tjnz 1f", "\tlea -128(%rsp),%rsp", "\tpush %rdi", "\tpush $0",
		"\tmov %rsp,%rdi",
	};
	static const char *const after[] = {
		"\tcmpl $0,(%rsp)", "\tlea 8(%rsp),%rsp", "\tpop %rdi",
		"\tlea 128(%rsp),%rsp", "1:",
	};
	strbuf_t *l = asm_begin(w);

	w->percent = false;	/* %1 is the operand, the semaphore */
	sb_printf(l, "\ttestw $0x%x,%%1", STAPSDT_SEMAPHORE_COUNT);
	asm_end(w);
	w->percent = true;
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		asm_plain(w, before[i]);
	asm_sym_directive(w, "call", UNIT_ENABLED);
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		asm_plain(w, after[i]);
}

/*
 * The forms a probe's macros take (put_probe_macros), so that each probe
 * is two short lines however it is built:
 *
 *	_USDT_S(T, k, v, r, o)	x86_64: the inline site of the probe whose
 *				function is __dtrace_T, of k arguments: v
 *				declares their temporaries, r the register
 *				variables, o the asm operands (put_inline_site);
 *				under _USDT_PROBE_CALLS, a call of __dtrace_T
 *				with the temporaries (_USDT_A<k>)
 *	_USDT_C(T, c)		the call c, beside the asm that emits the unit
 *	_USDT_ON(T, s)		x86_64: _ENABLED(), s the semaphore; a long, as
 *				SystemTap's __builtin_expect(sema, 0) is, for
 *				printf("%ld") under -Werror=format
 *	_USDT_E(x)		_ENABLED() elsewhere, x the whole test
 *
 * _USDT_PROBE_CALLS is read where the first header of the translation
 * unit is included, as the generic macros are defined there.
 *
 * No argument of _USDT_S holds a comma outside parentheses, so that the
 * preprocessor splits it where it should: each asm operand in o brings its
 * own leading comma (_USDT_M, _USDT_O, _USDT_READS), after the "i"(__func__)
 * operand the site never names; a part that is empty is _USDT_0, an
 * empty macro, since C89 has no empty macro arguments.
 */
static void
put_form_macros(strbuf_t *out, const target_t *t)
{
	sb_puts(out, "#define _USDT_C(T, c) (_USDT_CALL(_USDT_P_##T), c)\n");
	sb_puts(out, "#define _USDT_E(x) (x)\n");
	if (!t->stapsdt)
		return;
	/* Which of a probe's two note descriptions is this arch's (put_probe_tuple). */
	sb_printf(out, "#define _USDT_NA(x, a) %s\n",
	    t->arch->elf_machine == EM_X86_64 ? "x" : "a");
	sb_puts(out, "#define _USDT_L(T, k, v, o, c) _USDT_C(T, c)\n");
	if (t->arch->elf_machine != EM_X86_64) {
		/* An inline site of x86_64 is a call here, as under _USDT_PROBE_CALLS. */
		sb_puts(out, "#define _USDT_S(T, k, v, r, o) (__extension__ ({ v "
		    "_USDT_CALL(_USDT_P_##T); " MDL_PROBE_PREFIX "##T(_USDT_A##k); }))\n");
		sb_puts(out, "#define _USDT_ON(T, s) ((long)(__builtin_expect(s != 0, 0) && "
		    "_USDT_ENABLED(s, " MDL_ENABLED_PREFIX "##T, _USDT_P_##T)))\n");
		return;
	}
	sb_puts(out, "#define _USDT_M(r, i) , #r(__usdt_v##i) _USDT_READS(__usdt_v##i)\n");
	sb_puts(out, "#define _USDT_O(i) , \"r\"(__usdt_r##i)\n");
	/* gcc's large code model takes no address as an "i" operand: no name there */
	sb_puts(out, "#ifdef __code_model_large__\n#define _USDT_FOP \"i\"(0)\n"
	    "#define _USDT_FREC \"0\"\n#else\n#define _USDT_FOP \"i\"(__func__)\n"
	    "#define _USDT_FREC \"%c0-.\"\n#endif\n");
	sb_puts(out, "#ifndef _USDT_PROBE_CALLS\n");
	sb_puts(out, "#define _USDT_S(T, k, v, r, o) (__extension__ ({ v { r "
	    "_USDT_ASM(_USDT_SITE(_USDT_P_##T) : : _USDT_FOP o); } }))\n");
	sb_puts(out, "#else\n#define _USDT_S(T, k, v, r, o) (__extension__ ({ v "
	    "_USDT_CALL(_USDT_P_##T); " MDL_PROBE_PREFIX "##T(_USDT_A##k); }))\n#endif\n");
	sb_puts(out, "#define _USDT_ON(T, s) ((long)(__builtin_expect(s != 0, 0) && "
	    "_USDT_ENABLED(s, _USDT_P_##T)))\n");
}

/*
 * The same forms for compilers that are not GNU C, or _DTRACE_VERSION 0:
 * a probe does nothing and evaluates no argument, and _ENABLED() is 0.
 */
static void
put_disabled_forms(strbuf_t *out, const target_t *t)
{
	sb_puts(out, "#if !(_DTRACE_VERSION && defined(__GNUC__)) && !defined(_USDT_C)\n");
	sb_puts(out, "#define _USDT_C(T, c) ((void)0)\n");
	sb_puts(out, "#define _USDT_E(x) (0)\n");
	if (t->stapsdt) {
		sb_puts(out, "#define _USDT_S(T, k, v, r, o) ((void)0)\n");
		sb_puts(out, "#define _USDT_L(T, k, v, o, c) ((void)0)\n");
		sb_puts(out, "#define _USDT_ON(T, s) (0L)\n");
	}
	sb_puts(out, "#endif\n\n");
}

/* `#define HEAD \` and TEXT's lines, each but the last continued. */
static void
put_macro_lines(strbuf_t *out, const char *head, const strbuf_t *text)
{
	sb_printf(out, "#define %s \\\n", head);
	for (size_t i = 0; i < text->len; i++) {
		if (text->data[i] == '\n' && i + 1 < text->len)
			sb_puts(out, " \\\n");
		else
			sb_putc(out, text->data[i]);
	}
	if (text->failed)
		out->failed = true;
}

/*
 * What the slow path of an x86_64 _ENABLED() answers through
 * (asm_generic_enabled_x86_64): the zero flag itself where the compiler has asm
 * flag outputs (GCC 6, clang 9), else a byte register set from it.  Once
 * per translation unit, however many headers it includes.
 */
static void
put_enabled_helpers(strbuf_t *out)
{
	sb_puts(out, "#ifdef __GCC_ASM_FLAG_OUTPUTS__\n");
	sb_puts(out, "#define _USDT_ENABLED_OUT \"=@ccnz\"\n");
	sb_puts(out, "#define _USDT_ENABLED_SET \"\"\n");
	sb_puts(out, "#else\n");
	sb_puts(out, "#define _USDT_ENABLED_OUT \"=q\"\n");
	sb_puts(out, "#define _USDT_ENABLED_SET \"\\tsetnz %0\\n\"\n");
	sb_puts(out, "#endif\n");
}

/*
 * _USDT_READS(p), an operand of an inline site for each pointer argument
 * (put_inline_site): the memory at p, of a size gcc cannot bound, read by
 * the asm, so gcc keeps the stores a tracer reads there.  clang needs none
 * (it takes a volatile asm statement to read any memory that reached it,
 * and keeps those stores already) and refuses an operand of incomplete
 * type.  Once per translation unit, however many headers it includes.
 */
static void
put_site_helpers(strbuf_t *out)
{
	sb_puts(out, "#ifdef __clang__\n");
	sb_puts(out, "#define _USDT_READS(p)\n");
	sb_puts(out, "#else\n");
	sb_puts(out, "#define _USDT_READS(p) , \"m\"(*(const char (*)[])(uintptr_t)(p))\n");
	sb_puts(out, "#endif\n");
}

/*
 * A float or double argument as its bits (float_bits): _USDT_FT(T, U) is
 * the type it travels as, U, the unsigned integer of its size, and
 * _USDT_FB(T, U, x) its value, x's bits.  Every Linux architecture's,
 * once (put_unit_macros).
 */
static void
put_float_bits_macros(strbuf_t *out)
{
	sb_puts(out, "#define _USDT_FT(T, U) U\n");
	sb_puts(out, "#define _USDT_FB(T, U, x) __extension__ ({ T __usdt_f = (T)(x); U __usdt_b; "
	    "__builtin_memcpy(&__usdt_b, &__usdt_f, sizeof(__usdt_b)); __usdt_b; })\n");
}

/*
 * The macros every probe's unit is written with, for one architecture,
 * once per translation unit however many headers it includes (a header holds, per probe, only
 * its names and note arguments: _USDT_P<func>, put_probe_tuple):
 *
 *	_USDT_DEF_(s, t, z)	a weak hidden symbol's definition
 *	_USDT_NOTE_(c, p, n, a)	a stapsdt note's fields at pc c
 *	_USDT_SEM_(p, n)	.stapsdt.base and the probe's semaphore
 *	_USDT_UNIT_(f, p, n, a)	the unit's assembler text (asm_generic_unit)
 *	_USDT_UNOTE_(f, p, n, a)	the stub's note, in a group of its own
 *				(asm_generic_unit_note)
 *	_USDT_CALL(P)		an asm statement that emits the unit of the
 *				probe P names and its stub's note, beside a
 *				call of its function
 *	_USDT_SITE(P)		x86_64: an inline site, its note and semaphore
 *	_USDT_V, _USDT_VP, _USDT_R, _USDT_M, _USDT_O
 *				x86_64: an inline site's temporaries, register
 *				variables and asm operands
 *	_USDT_ENABLED(s, P)	x86_64: the slow path of _ENABLED(), with the unit
 *	_USDT_ENABLED(s, e, P)	elsewhere on Linux: the same in C
 *
 * and the forms of put_form_macros.  So a translation unit carries the
 * notes, semaphores and units of the probes it fires or tests, and only
 * those, as with <sys/sdt.h>; the assembler's
 * `.ifndef` keeps one of each per assembler file, and the COMDAT groups
 * one per program.  A P is a _USDT_P<func> macro of four strings; each
 * macro taking one passes it on expanded to one whose parameters are the
 * four.  _USDT_ASM is `asm inline` where the compiler has it (GCC 9, clang
 * 11): the unit's text emits no instruction where it stands, and the
 * inliner must not count it.
 */
static void
put_arch_macros(strbuf_t *out, const target_t *t)
{
	strbuf_t text;
	asm_writer_t w;

	sb_init(&text);
	asm_writer_init(&w, &text, t);
	w.percent = true;
	if (t->stapsdt) {
		asm_generic_note(&w);
		put_macro_lines(out, "_USDT_NOTE_(c, p, n, a)", &text);
		text.len = 0;
		asm_generic_semaphore(&w);
		put_macro_lines(out, "_USDT_SEM_(p, n)", &text);
		text.len = 0;
	}
	asm_generic_unit(&w, t);
	put_macro_lines(out, "_USDT_UNIT_(f, p, n, a)", &text);
	if (t->stapsdt) {
		text.len = 0;
		asm_generic_unit_note(&w, t);
		put_macro_lines(out, "_USDT_UNOTE_(f, p, n, a)", &text);
		sb_puts(out, "#define _USDT_CALL(P) __extension__ ({ _USDT_ASM(_USDT_UNIT_(P) "
		    "_USDT_UNOTE_(P) : :); })\n");
	} else {
		sb_puts(out, "#define _USDT_CALL(P) __extension__ ({ _USDT_ASM(_USDT_UNIT_(P) : :); })\n");
	}
	if (t->stapsdt && t->arch->elf_machine == EM_X86_64) {
		put_enabled_helpers(out);
		text.len = 0;
		asm_generic_site(&w);
		sb_puts(out, "#define _USDT_R(i, r) register __typeof__(__usdt_v##i) __usdt_r##i "
		    "__asm__(#r) = __usdt_v##i;\n");
		sb_puts(out, "#define _USDT_SITE(P) _USDT_SITE_(P)\n");
		put_macro_lines(out, "_USDT_SITE_(f, p, n, a)", &text);
		text.len = 0;
		sb_puts(&text, "__extension__ ({ unsigned char __usdt_on; "
		    "_USDT_ASM(_USDT_UNIT_(f, p, n, a)\n");
		asm_generic_enabled_x86_64(&w);
		sb_puts(&text, "_USDT_ENABLED_SET : _USDT_ENABLED_OUT(__usdt_on) : "
		    "\"m\"(s)); __usdt_on; })\n");
		sb_puts(out, "#define _USDT_ENABLED(s, P) _USDT_ENABLED_(s, P)\n");
		put_macro_lines(out, "_USDT_ENABLED_(s, f, p, n, a)", &text);
	} else if (t->stapsdt) {
		sb_printf(out, "#define _USDT_ENABLED(s, e, P) __extension__ ({ "
		    "uint32_t __usdt_e = 0; _USDT_ASM(_USDT_UNIT_(P) : :); "
		    "(*(volatile unsigned short *)&s & 0x%x) != 0 || "
		    "(e(&__usdt_e), __usdt_e != 0); })\n", STAPSDT_SEMAPHORE_COUNT);
	}
	put_form_macros(out, t);
	if (text.failed)
		out->failed = true;
	sb_free(&text);
	sb_free(&w.line);
}

/*
 * The generic architecture's note fields (_USDT_GNOTE_, with the address
 * directive as parameter w) and semaphore (_USDT_SEM_), in the writer's
 * text, which is left empty.
 */
static void
put_generic_asm(strbuf_t *out)
{
	strbuf_t text;
	asm_writer_t w;

	sb_init(&text);
	asm_writer_init_generic(&w, &text);
	asm_generic_note(&w);
	put_macro_lines(out, "_USDT_GNOTE_(c, p, n, a, w)", &text);
	text.len = 0;
	asm_generic_semaphore(&w);
	put_macro_lines(out, "_USDT_SEM_(p, n)", &text);
	text.len = 0;
	sb_puts(&text, "_USDT_SEM_(p, n)\n");
	asm_plain(&w, "990:\t" PARAM("o"));
	asm_plain(&w, "\t.pushsection " STAPSDT_NOTE_SECTION ",\"?\",%note");
	sb_puts(&text, "_USDT_NOTE_(\"990b\", p, n, t)\n");
	put_macro_lines(out, "_USDT_GSITE_(f, p, n, a, t, o)", &text);
	if (text.failed)
		out->failed = true;
	sb_free(&text);
	sb_free(&w.line);
}

/*
 * Every other architecture: what <sys/sdt.h> gives there, and no DTrace.
 * A probe is an inline site, a nop (s390: `nop 0`) and its stapsdt note,
 * whose argument locations are the compiler's choice, each the asm operand
 * of the argument's temporary (constraint _USDT_GC: "nor", and sdt.h's
 * "nZr" on POWER) as the assembler prints it (_USDT_GA: %I before it on
 * POWER, which marks a constant), after its size, negative when signed,
 * as `%n` prints the "n" operand _USDT_GSZ computes from the temporary's
 * type (`-4@`, `8@`): so `-4@%r2`, `8@a0`, `-4@3`.  Where pointers are 4
 * bytes (i386, armel, armhf, mipsel) every argument is in memory ("m":
 * `-4@4(%esp)`, `-8@[sp, #8]`): sdt.h's "nor" there puts a 64-bit value
 * in a register pair, of which the note names one register, or in an
 * immediate that gdb reads as 32 bits (INT64_MIN read 0).  s390x takes
 * no immediate ("ro"): gdb reads `-9223372036854775808` there as
 * INT64_MIN + 1; RISC-V no "o", which clang cannot match ("nr").  Operand 0 is an "i" the text never names; argument i has the
 * operands 2i+1 (size) and 2i+2 (location).  _ENABLED() is <sys/sdt.h>'s
 * test of the semaphore, beside the asm that defines it.  A probe with an
 * argument no temporary can hold (a struct by value, more than 12
 * arguments: _USDT_C) does nothing here.
 */
static void
put_generic_macros(strbuf_t *out)
{
	static const char *const ladder =
	    "#if __SIZEOF_POINTER__ == 8\n#define _USDT_ADDR \".8byte\"\n"
	    "#else\n#define _USDT_ADDR \".4byte\"\n#endif\n"
	    "#if defined(__s390__) || defined(__s390x__)\n#define _USDT_NOP \"nop 0\"\n"
	    "#else\n#define _USDT_NOP \"nop\"\n#endif\n"
	    "#if __SIZEOF_POINTER__ == 4\n"
	    "#define _USDT_GC \"m\"\n#define _USDT_GA(i) \"%\" #i\n"
	    "#elif defined(__powerpc__) || defined(__powerpc64__)\n"
	    "#define _USDT_GC \"nZr\"\n#define _USDT_GA(i) \"%I\" #i \"%\" #i\n"
	    "#elif defined(__s390__) || defined(__s390x__)\n"
	    "#define _USDT_GC \"ro\"\n#define _USDT_GA(i) \"%\" #i\n"
	    "#elif defined(__riscv)\n"
	    "#define _USDT_GC \"nr\"\n#define _USDT_GA(i) \"%\" #i\n"
	    "#else\n"
	    "#define _USDT_GC \"nor\"\n#define _USDT_GA(i) \"%\" #i\n"
	    "#endif\n";
	/* Whether x is signed; a pointer (a typedef of one) is not. */
	static const char *const signedness =
	    "#ifdef __cplusplus\n"
	    "extern \"C++\" {\n"
	    "template <typename _usdt_T> struct _usdt_sg { enum { v = (_usdt_T)-1 < (_usdt_T)1 }; };\n"
	    "template <typename _usdt_T> struct _usdt_sg<_usdt_T *> { enum { v = 0 }; };\n"
	    "}\n"
	    "#define _USDT_GSG(x) (_usdt_sg<__typeof__(x)>::v)\n"
	    "#else\n"
	    "#define _USDT_GSG(x) ((__typeof__(__builtin_choose_expr(__builtin_classify_type(x) == 5, "
	    "0U, (x))))-1 < (__typeof__(__builtin_choose_expr(__builtin_classify_type(x) == 5, "
	    "0U, (x))))1)\n"
	    "#endif\n";

	sb_puts(out, ladder);
	put_generic_asm(out);
	sb_puts(out, "#define _USDT_NOTE_(c, p, n, a) _USDT_GNOTE_(c, p, n, a, _USDT_ADDR)\n");
	sb_puts(out, "#define _USDT_NA(x, a) \"\"\n");
	sb_puts(out, signedness);
	sb_puts(out, "#define _USDT_GSZ(x) ((_USDT_GSG(x) ? 1 : -1) * (int)sizeof(x))\n");
	sb_puts(out, "#define _USDT_GO(i) , \"n\"(_USDT_GSZ(__usdt_v##i)), "
	    "_USDT_GC(__usdt_v##i)\n");
	sb_puts(out, "#define _USDT_GT0 \"\"\n#define _USDT_GO0\n");
	for (int i = 1; i <= GENERIC_MAX_ARGS; i++)
		sb_printf(out, "#define _USDT_GT%d _USDT_GT%d \"%s%%n%d@\" _USDT_GA(%d)\n"
		    "#define _USDT_GO%d _USDT_GO%d _USDT_GO(%d)\n", i, i - 1, i > 1 ? " " : "",
		    2 * i - 1, 2 * i, i, i - 1, i - 1);
	sb_puts(out, "#define _USDT_GSITE(P, t) _USDT_GSITE_(P, t, _USDT_NOP)\n");
	sb_puts(out, "#define _USDT_GSEM(P) _USDT_GSEM_(P)\n");
	sb_puts(out, "#define _USDT_GSEM_(f, p, n, a) _USDT_SEM_(p, n)\n");
	sb_puts(out, "#define _USDT_M(r, i) _USDT_READS(__usdt_v##i)\n");
	sb_puts(out, "#define _USDT_O(i)\n");
	sb_puts(out, "#define _USDT_S(T, k, v, r, o) (__extension__ ({ v "
	    "_USDT_ASM(_USDT_GSITE(_USDT_P_##T, _USDT_GT##k) : : \"i\"(0) _USDT_GO##k o); }))\n");
	sb_puts(out, "#define _USDT_L(T, k, v, o, c) (__extension__ ({ v "
	    "_USDT_ASM(_USDT_GSITE(_USDT_P_##T, _USDT_GT##k) : : \"i\"(0) _USDT_GO##k o); }))\n");
	sb_puts(out, "#define _USDT_C(T, c) ((void)0)\n");
	sb_puts(out, "#define _USDT_E(x) (x)\n");
	sb_puts(out, "#define _USDT_ON(T, s) ((long)__extension__ ({ "
	    "_USDT_ASM(_USDT_GSEM(_USDT_P_##T) : :); __builtin_expect(s != 0, 0) != 0; }))\n");
}

/*
 * An inline site's temporaries, every architecture's: _USDT_V and _USDT_VP
 * declare them, _USDT_A<k> lists them as the arguments of a call.
 */
static void
put_temp_macros(strbuf_t *out)
{
	sb_puts(out, "#define _USDT_0\n");
	sb_puts(out, "#define _USDT_V(T, i, x) T __usdt_v##i = (T)(x);\n");
	sb_puts(out, "#define _USDT_VP(i, x) uintptr_t __usdt_v##i = (uintptr_t)(x);\n");
	sb_puts(out, "#define _USDT_A0\n#define _USDT_A1 __usdt_v0\n");
	for (int i = 2; i <= 6; i++)
		sb_printf(out, "#define _USDT_A%d _USDT_A%d, __usdt_v%d\n", i, i - 1, i - 1);
}

/*
 * An argument converted to its parameter's type the way a call would, and
 * as SystemTap's header takes any argument: _USDT_X(T, x) for an integer
 * or enum parameter, _USDT_XP(T, x) for a typedef of a pointer.  A pointer
 * given for an integer (libvirt casts every argument to
 * `(void *)(intptr_t)`) goes through intptr_t first, which neither C
 * (-Wpointer-to-int-cast, -Wint-conversion at a stub's call) nor C++
 * (an error) takes otherwise: signed, so that a wider T gets the value
 * sign-extended, as GCC converts a pointer to a wider integer (i386's
 * `(void *)(intptr_t)-10` is -10 as a long long).  Anything else is cast
 * to T as it is.  C
 * tells a pointer by __builtin_classify_type (5, arrays decayed); C++,
 * which has no __builtin_choose_expr, by overloading.  Every target's,
 * once (put_unit_macros).
 */
static void
put_conv_macros(strbuf_t *out)
{
	sb_puts(out, "#ifdef __cplusplus\n"
	    "extern \"C++\" {\n"
	    "template <typename _usdt_T, typename _usdt_U> inline _usdt_T "
	    "_usdt_cv(_usdt_U *__usdt_x) { return (_usdt_T)(intptr_t)__usdt_x; }\n"
	    "template <typename _usdt_T, typename _usdt_U> inline _usdt_T "
	    "_usdt_cv(_usdt_U __usdt_x) { return (_usdt_T)__usdt_x; }\n"
	    "}\n"
	    "#define _USDT_X(T, x) (_usdt_cv<T>(x))\n"
	    "#else\n"
	    "#define _USDT_X(T, x) (__extension__ (T)__builtin_choose_expr(__builtin_classify_type(x) == 5, "
	    "(intptr_t)(x), (x)))\n"
	    "#endif\n"
	    "#define _USDT_XP(T, x) ((T)(uintptr_t)(x))\n");
}

/*
 * The macros of every probe's code, once per translation unit (see
 * put_arch_macros).  A Linux target's header is one for every
 * architecture: the choice is the compiler's, an `#if` on the
 * architecture it compiles for, x86_64 and aarch64 with their DTrace
 * forms, every other with <sys/sdt.h>'s (put_generic_macros); the probes'
 * own lines are the same for all (put_probe_macros).  FreeBSD and illumos
 * headers are their target's alone.
 */
static void
put_unit_macros(strbuf_t *out, const target_t *t)
{
	sb_puts(out, "#if _DTRACE_VERSION && defined(__GNUC__) && !defined(_USDT_UNIT_)\n");
	sb_puts(out, "#if __GNUC__ >= 9 || __clang_major__ >= 11\n");
	sb_puts(out, "#define _USDT_ASM __asm__ __volatile__ __inline__\n");
	sb_puts(out, "#else\n#define _USDT_ASM __asm__ __volatile__\n#endif\n");
	sb_puts(out, "#define _USDT_DEF_(s, t, z) \"\\t.weak \" s \"\\n\\t.hidden \" s "
	    "\"\\n\\t.type \" s \",\" t \"\\n\\t.size \" s \",\" z \"\\n\" s \":\\n\"\n");
	if (t->stapsdt) {
		sb_puts(out, "#if defined(__x86_64__) && defined(__LP64__)\n");
		put_arch_macros(out, target_find("x86_64-linux"));
		sb_puts(out, "#elif defined(__aarch64__) && defined(__LP64__)\n");
		put_arch_macros(out, target_find("aarch64-linux"));
		sb_puts(out, "#else\n");
		put_generic_macros(out);
		sb_puts(out, "#endif\n");
		put_temp_macros(out);
		put_float_bits_macros(out);
		put_site_helpers(out);
	} else {
		put_arch_macros(out, t);
	}
	put_conv_macros(out);
	sb_puts(out, "#endif\n\n");
	put_disabled_forms(out, t);
}

/* s as the text of a C string literal; `%` doubled when percent. */
static void
put_c_string(strbuf_t *out, const char *s, bool percent)
{
	sb_putc(out, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			sb_putc(out, '\\');
		if (*s == '?')
			sb_putc(out, '\\');
		if (*s == '%' && percent)
			sb_putc(out, '%');
		sb_putc(out, *s);
	}
	sb_putc(out, '"');
}

/*
 * `#define _USDT_P<func> "f", "p", "n", "a"`: what the generic unit
 * macros need of one probe (put_unit_macros), names as the assembler reads
 * them and the unit's note arguments.  The names are plain assembler
 * symbols (D identifiers, '.' and '$'); one that is not would need quotes
 * inside the generic text, and is refused as a failure of the writer.
 */
static void
put_probe_tuple(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_provider_t *prov, const mdl_probe_t *pr, const probe_names_t *n)
{
	size_t plen = strlen(MDL_PROBE_PREFIX);
	strbuf_t args;

	if (strncmp(n->func, MDL_PROBE_PREFIX, plen) != 0 ||
	    !is_plain_asm_symbol(n->func) || !is_plain_asm_symbol(n->enabled) ||
	    !is_plain_asm_symbol(n->semaphore) || strchr(n->semaphore, PARAM_MARK) != NULL) {
		out->failed = true;
		return;
	}
	sb_init(&args);
	sb_printf(out, "#define _USDT_P_%s ", probe_tag(n));
	put_c_string(out, n->func + plen, false);
	sb_puts(out, ", ");
	put_c_string(out, prov->name, false);
	sb_puts(out, ", ");
	put_c_string(out, pr->name, false);
	sb_puts(out, ", ");
	if (t->stapsdt) {
		/* Linux: x86_64's and aarch64's, of which _USDT_NA takes one. */
		arch_x86_64.note_args(m, pr, &args);
		sb_puts(out, "_USDT_NA(");
		put_c_string(out, args.data != NULL ? args.data : "", true);
		sb_puts(out, ", ");
		args.len = 0;
		if (args.data != NULL)
			args.data[0] = '\0';
		arch_aarch64.note_args(m, pr, &args);
		put_c_string(out, args.data != NULL ? args.data : "", true);
		sb_putc(out, ')');
	} else {
		put_c_string(out, args.data != NULL ? args.data : "", true);
	}
	sb_putc(out, '\n');
	if (args.failed)
		out->failed = true;
	sb_free(&args);
}

/* ---- the C text of a probe ----------------------------------------------- */

/*
 * DOF version 2 (FreeBSD, illumos): the is-enabled function takes nothing
 * and returns an int, 0 from its unit (or from the `xor %rax,%rax` -G
 * writes over its call), 1 when the tracer sets the result register, as
 * their dtrace -h declares it.  Otherwise the Linux form: a flag passed by
 * pointer, through which DTrace stores 1 (version 3).
 */
static bool
enabled_returns_int(const target_t *t)
{
	return t->dof_enabled_version == 2;
}

void
header_put_macro_params(strbuf_t *out, const mdl_probe_t *pr)
{
	sb_putc(out, '(');
	for (size_t i = 0; i < pr->nargc; i++)
		sb_printf(out, "%sarg%zu", i > 0 ? ", " : "", i);
	sb_putc(out, ')');
}

static const char *const qualifiers[] = { "const", "volatile", "restrict", "_Atomic",
	"__const", "__const__", "__volatile", "__volatile__", "__restrict", "__restrict__" };

/* Whether the len characters at s are a type qualifier. */
static bool
is_qualifier(const char *s, size_t len)
{
	for (size_t q = 0; q < sizeof(qualifiers) / sizeof(qualifiers[0]); q++)
		if (strlen(qualifiers[q]) == len && strncmp(s, qualifiers[q], len) == 0)
			return true;
	return false;
}

static bool
is_pointer_type_len(const char *type, size_t len)
{
	return (len > 0 && (type[len - 1] == '*' || type[len - 1] == ']')) ||
	    (len == 6 && strncmp(type, "string", 6) == 0);
}

/*
 * Whether a native type is a pointer (or array, or D's string), by its
 * spelling: the arguments that travel as uintptr_t (see put_probe_decls).
 */
static bool
is_pointer_type(const char *type)
{
	size_t len = strlen(type);

	for (;;) {	/* past the pointer's own qualifiers: `char *const` */
		size_t word;

		while (len > 0 && type[len - 1] == ' ')
			len--;
		for (word = len; word > 0 && (isalnum((unsigned char)type[word - 1]) ||
		    type[word - 1] == '_'); word--)
			continue;
		if (word == len || !is_qualifier(type + word, len - word))
			return is_pointer_type_len(type, len);
		len = word;
	}
}

/*
 * On Linux a float or double argument travels as its bits, in an
 * unsigned integer of its size (uint32_t, uint64_t), as a pointer travels
 * as uintptr_t: so it is in a general register or a stack slot, which the
 * note then names as an integer of that size (arch_x86_64.c; the operand
 * of <sys/sdt.h>'s form), and bpftrace 0.17, gdb 13 and libbpf read its
 * bits, where none of them reads a note's `%xmm` operand nor any `8f@`
 * one (aarch64's `8f@d0` neither).  The type is written _USDT_FT(T, U),
 * the value _USDT_FB (put_float_bits_macros).  The size of such an
 * argument, or 0.
 */
static unsigned
float_bits(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr, size_t i)
{
	mdl_typeinfo_t ti;

	if (!t->stapsdt || is_pointer_type(pr->nargs[i].type))
		return 0;
	ti = mdl_type_info(m, pr->nargs[i].type);
	return ti.tclass == MDL_TC_FLOAT && (ti.size == 4 || ti.size == 8) ? ti.size : 0;
}

/*
 * The C type with its qualifiers (const, volatile, restrict, _Atomic)
 * dropped: what a temporary of an argument that is no pointer is declared
 * as, where all of them are top-level.  A `register const int` variable
 * bound to %edi is one gcc may fold into its constant and never load, so
 * the note named a register that did not hold the value; a volatile one
 * breaks -Werror builds (-Wvolatile-register-var).
 */
static void
put_unqualified(strbuf_t *out, const char *type)
{
	bool first = true;

	for (const char *s = type; *s != '\0';) {
		size_t len = strcspn(s, " ");

		if (len > 0 && !is_qualifier(s, len)) {
			sb_printf(out, "%s%.*s", first ? "" : " ", (int)len, s);
			first = false;
		}
		s += len;
		s += strspn(s, " ");
	}
}

/*
 * An argument's type in the probe's prototype and inline site: uintptr_t
 * for a pointer, the bits' type for a float (float_bits), else its own
 * type unqualified.
 */
static void
put_arg_type(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, size_t i)
{
	unsigned bits = float_bits(m, t, pr, i);

	if (is_pointer_type(pr->nargs[i].type))
		sb_puts(out, "uintptr_t");
	else if (bits != 0) {
		sb_puts(out, "_USDT_FT(");
		put_unqualified(out, mdl_c_type(pr->nargs[i].type));
		sb_printf(out, ", uint%u_t)", bits * 8);
	} else {
		put_unqualified(out, mdl_c_type(pr->nargs[i].type));
	}
}

/*
 * Argument i as the value passed: a pointer cast to uintptr_t, a float as
 * its bits (_USDT_FB), an integer, enum or typedef of a pointer converted
 * to the parameter's type (_USDT_X, _USDT_XP: put_conv_macros), a known
 * type of another class (a struct) as given.  A name the model does not
 * know is taken, as everywhere, for 8 unsigned bytes (D_TYPE_UNKNOWN) and
 * converted as an integer typedef is: a warning never changes the output.
 */
static void
put_arg_value(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, size_t i)
{
	unsigned bits = float_bits(m, t, pr, i);

	if (is_pointer_type(pr->nargs[i].type)) {
		sb_printf(out, "(uintptr_t)(arg%zu)", i);
	} else if (bits != 0) {
		sb_puts(out, "_USDT_FB(");
		put_unqualified(out, mdl_c_type(pr->nargs[i].type));
		sb_printf(out, ", uint%u_t, arg%zu)", bits * 8, i);
	} else {
		mdl_typeinfo_t ti = mdl_type_info(m, pr->nargs[i].type);

		if (ti.known && ti.tclass != MDL_TC_INTEGER) {
			sb_printf(out, "arg%zu", i);
			return;
		}
		sb_puts(out, ti.is_pointer ? "_USDT_XP(" : "_USDT_X(");
		put_unqualified(out, mdl_c_type(pr->nargs[i].type));
		sb_printf(out, ", arg%zu)", i);
	}
}

/* The arguments of the call in the probe macro (put_arg_value). */
static void
put_call_args(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr)
{
	sb_putc(out, '(');
	for (size_t i = 0; i < pr->nargc; i++) {
		sb_puts(out, i > 0 ? ", " : "");
		put_arg_value(out, m, t, pr, i);
	}
	sb_putc(out, ')');
}

/*
 * Whether the probe is an inline site (see the top of the file): x86_64
 * with stapsdt notes, at most six arguments, each a pointer or of an
 * integer type (a name the model cannot resolve is taken, as everywhere,
 * for 8 unsigned bytes: D_TYPE_UNKNOWN says so, and says no more, since a
 * warning never changes the output), spelled as a type a declarator can
 * follow.  The others (floating, by-value, stack arguments; aarch64;
 * FreeBSD and illumos) keep the call.
 */
static bool
is_inline_site(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr)
{
	if (!t->stapsdt || pr->nargc > 6)
		return false;
	for (size_t i = 0; i < pr->nargc; i++) {
		mdl_typeinfo_t ti = mdl_type_info(m, pr->nargs[i].type);

		if (is_pointer_type(pr->nargs[i].type))
			continue;
		if ((ti.tclass != MDL_TC_INTEGER && float_bits(m, t, pr, i) == 0) || ti.size > 8 ||
		    strpbrk(mdl_c_type(pr->nargs[i].type), "([") != NULL)
			return false;
	}
	return true;
}

/*
 * Whether the header's macros call the probe's stub for target t: every
 * probe does but x86_64's inline sites (on aarch64 _USDT_S is a call).
 */
bool
header_probe_calls_stub(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr)
{
	return t->arch->elf_machine != EM_X86_64 || !is_inline_site(m, t, pr);
}

/*
 * Whether every argument of the probe fits a temporary (_USDT_V,
 * _USDT_VP): a pointer, or an integer or floating type of at most 8 bytes
 * spelled as a type a declarator can follow; and there are at most
 * GENERIC_MAX_ARGS.  Such a probe that is not an x86_64 inline site
 * is one on the generic arch (_USDT_L, put_generic_macros).
 */
static bool
fits_temporaries(const mdl_model_t *m, const mdl_probe_t *pr)
{
	if (pr->nargc > GENERIC_MAX_ARGS)
		return false;
	for (size_t i = 0; i < pr->nargc; i++) {
		mdl_typeinfo_t ti = mdl_type_info(m, pr->nargs[i].type);

		if (is_pointer_type(pr->nargs[i].type))
			continue;
		if ((ti.tclass != MDL_TC_INTEGER && ti.tclass != MDL_TC_FLOAT) ||
		    ti.size > 8 || strpbrk(mdl_c_type(pr->nargs[i].type), "([") != NULL)
			return false;
	}
	return true;
}

/*
 * Whether an inline site's argument is a pointer whose memory the tracer
 * may read: spelled as one, or a typedef of the file that names one.  Those
 * get _USDT_READS (put_inline_site).  A name the model cannot resolve is 8
 * unsigned bytes here as everywhere (D_TYPE_UNKNOWN changes no output).
 */
static bool
arg_may_point(const mdl_model_t *m, const mdl_probe_t *pr, size_t i)
{
	mdl_typeinfo_t ti;

	if (is_pointer_type(pr->nargs[i].type))
		return true;
	ti = mdl_type_info(m, pr->nargs[i].type);
	return ti.is_pointer;
}

/*
 * The declarations of a probe's temporaries: `_USDT_V(int, 0, arg0) ...`,
 * a pointer as a uintptr_t (_USDT_VP), a float as its bits (put_arg_type,
 * put_arg_value).
 */
static void
put_temporaries(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr)
{
	for (size_t i = 0; i < pr->nargc; i++)
		if (is_pointer_type(pr->nargs[i].type))
			sb_printf(out, " _USDT_VP(%zu, arg%zu)", i, i);
		else {
			sb_puts(out, " _USDT_V(");
			put_arg_type(out, m, t, pr, i);
			sb_printf(out, ", %zu, ", i);
			put_arg_value(out, m, t, pr, i);
			sb_puts(out, ")");
		}
}

/*
 * The inline site: each argument evaluated into a temporary of its
 * prototype type (so that no argument's evaluation runs after another is
 * in its register), then moved into the register a call would pass it in
 * (rdi, rsi, rdx, rcx, r8, r9: where DTrace and the note read it), then the
 * site's asm statement, which uses them and clobbers nothing.
 *
 * A pointer argument travels as an integer (uintptr_t, put_probe_decls),
 * and an asm statement that is given an integer reads no memory as far as
 * gcc knows: it dropped every store to a string or struct built on the
 * stack just before the probe, and the tracer read stale bytes.  So each
 * pointer argument also gives the asm the memory it points at, an "m"
 * operand on an array of unknown size there (_USDT_READS,
 * put_site_helpers): gcc keeps every store the tracer may read, and only
 * those, where a "memory" clobber would also make it reload every value
 * after the site.  Integer arguments stay registers and nothing else.  A
 * pointer among the first four arguments goes to its register by the
 * constraint that names it ("D", "S", "d", "c"), with the same temporary
 * as the memory operand's address, so gcc needs no second copy of it in
 * another register; r8 and r9 have no such letter and keep a register
 * variable, as integer arguments do.
 */
static void
put_inline_site(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const probe_names_t *n)
{
	static const char *const regs[6] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
	static const char *const letters[4] = { "D", "S", "d", "c" };
	bool reads[6], regvar = false;

	for (size_t i = 0; i < pr->nargc; i++)
		reads[i] = arg_may_point(m, pr, i);
	sb_printf(out, " \\\n\t_USDT_S(%s, %zu,", probe_tag(n), pr->nargc);
	put_temporaries(out, m, t, pr);
	sb_puts(out, pr->nargc == 0 ? " _USDT_0," : ",");
	for (size_t i = 0; i < pr->nargc; i++)
		if (!reads[i] || i >= 4) {
			sb_printf(out, " _USDT_R(%zu, %s)", i, regs[i]);
			regvar = true;
		}
	sb_puts(out, regvar ? "," : " _USDT_0,");
	for (size_t i = 0; i < pr->nargc; i++) {
		if (reads[i] && i < 4)
			sb_printf(out, " _USDT_M(%s, %zu)", letters[i], i);
		else if (reads[i])
			sb_printf(out, " _USDT_O(%zu) _USDT_READS(__usdt_v%zu)", i, i);
		else
			sb_printf(out, " _USDT_O(%zu)", i);
	}
	sb_puts(out, pr->nargc == 0 ? " _USDT_0)\n" : ")\n");
}

/*
 * A probe's two macros, PROV_PROBE(...) and PROV_PROBE_ENABLED(), each
 * one call of a generic macro (put_form_macros), which also has the
 * do-nothing form for compilers that are not GNU C.
 */
static void
put_probe_macros(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const probe_names_t *n)
{
	sb_printf(out, "#define %s", n->macro);
	header_put_macro_params(out, pr);
	if (is_inline_site(m, t, pr)) {
		put_inline_site(out, m, t, pr, n);
	} else if (t->stapsdt && fits_temporaries(m, pr)) {
		/* The call on x86_64 and aarch64, an inline site elsewhere. */
		bool reads = false;

		sb_printf(out, " \\\n\t_USDT_L(%s, %zu,", probe_tag(n), pr->nargc);
		put_temporaries(out, m, t, pr);
		sb_puts(out, pr->nargc == 0 ? " _USDT_0," : ",");
		for (size_t i = 0; i < pr->nargc; i++)
			if (arg_may_point(m, pr, i)) {
				sb_printf(out, " _USDT_READS(__usdt_v%zu)", i);
				reads = true;
			}
		sb_printf(out, "%s, %s", reads ? "" : " _USDT_0", n->c_func);
		put_call_args(out, m, t, pr);
		sb_puts(out, ")\n");
	} else {
		/* The call, beside the asm that gives this file the probe's unit. */
		sb_printf(out, " \\\n\t_USDT_C(%s, %s", probe_tag(n), n->c_func);
		put_call_args(out, m, t, pr);
		sb_puts(out, ")\n");
	}

	sb_printf(out, "#define %s_ENABLED() \\\n", n->macro);
	if (enabled_returns_int(t)) {
		sb_printf(out, "\t_USDT_E((_USDT_CALL(_USDT_P_%s), %s()))\n", probe_tag(n),
		    n->c_enabled);
		return;
	}
	if (!t->stapsdt) {
		sb_printf(out, "\t_USDT_E(__extension__ ({ uint32_t __usdt_e = 0; "
		    "_USDT_CALL(_USDT_P_%s); %s(&__usdt_e); __usdt_e != 0; }))\n", probe_tag(n),
		    n->c_enabled);
		return;
	}
	/*
	 * The fast path reads the semaphore as <sys/sdt.h>'s does, so that it
	 * is one compare with memory and one branch (cmpw $0,sem; jne); the
	 * slow path (_USDT_ENABLED, which also gives this file the unit) reads
	 * it again, through the asm statement's memory operand on x86_64 and a
	 * volatile lvalue on aarch64, so that the compiler cannot keep the
	 * first read in a register for it (_USDT_ON, put_form_macros); the
	 * generic arch has the fast path alone.  aarch64's names the
	 * is-enabled function by the tag, which its C name always is.
	 */
	if (strncmp(n->c_enabled, MDL_ENABLED_PREFIX, strlen(MDL_ENABLED_PREFIX)) != 0 ||
	    strcmp(n->c_enabled + strlen(MDL_ENABLED_PREFIX), probe_tag(n)) != 0)
		out->failed = true;
	sb_printf(out, "\t_USDT_ON(%s, %s)\n", probe_tag(n), n->c_semaphore);
}

/* ` __asm__("symbol")` when the C name is not the symbol's name. */
static void
put_asm_label(strbuf_t *out, const char *c_name, const char *symbol)
{
	if (strcmp(c_name, symbol) == 0)
		return;
	sb_puts(out, " __asm__(\"");
	for (const char *s = symbol; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			sb_putc(out, '\\');
		sb_putc(out, *s);
	}
	sb_puts(out, "\")");
}

/*
 * The prototypes.  Pointer arguments (pointers, arrays, D's string) are
 * declared uintptr_t, and the probe macro casts them (put_call_args): a
 * probe takes any pointer, as a <sys/sdt.h> probe does, so a `const char *`
 * given where the .d says `char *` (gobject), or a pointer to a struct that
 * the translation unit declares after the header or not at all (h2o, tcl),
 * is no warning.  And the header holds no `char *` for the seds that build
 * systems run over dtrace's header (memcached's `s,char \*,const char \*,g`,
 * PostgreSQL's and Ruby's `(char *` and `, char *` ones) to turn into
 * `const const char *`: each of them leaves it as it was, and compiling.
 * Other arguments keep their native types as written.  __extension__ lets
 * a `long long` argument through -std=c89 -pedantic.
 */
static void
put_probe_prototype(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const probe_names_t *n)
{
	sb_printf(out, "__extension__ extern void %s(", n->c_func);
	if (pr->nargc == 0)
		sb_puts(out, "void");
	for (size_t i = 0; i < pr->nargc; i++) {
		sb_puts(out, i > 0 ? ", " : "");
		put_arg_type(out, m, t, pr, i);
	}
	sb_putc(out, ')');
	put_asm_label(out, n->c_func, n->func);
	sb_puts(out, ";\n");
}

/* The rest of a probe's declarations, and its prototype when prototype. */
static void
put_probe_decls(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const probe_names_t *n, bool prototype)
{
	if (prototype)
		put_probe_prototype(out, m, t, pr, n);

	/* (x86_64 Linux calls the is-enabled function from asm alone.) */
	if (enabled_returns_int(t))
		sb_printf(out, "extern int %s(void)", n->c_enabled);
	else
		sb_printf(out, "extern void %s(uint32_t *)", n->c_enabled);
	put_asm_label(out, n->c_enabled, n->enabled);
	sb_puts(out, ";\n");

	if (t->stapsdt) {
		/*
		 * Not volatile, as SystemTap's header declares it: gcc then tests
		 * it in memory (cmpw $0,sem; jne), where a volatile one is loaded,
		 * then tested.  As with <sys/sdt.h>, a loop that calls nothing
		 * may read it once.
		 */
		sb_printf(out, "extern unsigned short %s", n->c_semaphore);
		put_asm_label(out, n->c_semaphore, n->semaphore);
		sb_puts(out, ";\n");
	}
}

/* ---- providers and the file ---------------------------------------------- */

/*
 * The tag a type names, `struct T` or `union T` after any qualifiers, as
 * its length from *start; 0 when the type names none.
 */
static size_t
tag_of(const char *type, const char **start)
{
	const char *t = type, *end;
	size_t kw;

	while (strncmp(t, "const ", 6) == 0 || strncmp(t, "volatile ", 9) == 0)
		t += t[0] == 'c' ? 6 : 9;
	if (strncmp(t, "struct ", 7) == 0)
		kw = 7;
	else if (strncmp(t, "union ", 6) == 0)
		kw = 6;
	else
		return 0;
	for (end = t + kw; isalnum((unsigned char)*end) || *end == '_'; end++)
		continue;
	*start = t;
	return end == t + kw ? 0 : (size_t)(end - t);
}

/* Compares two argument types by the tag they name (qsort). */
static int
cmp_tag(const void *a, const void *b)
{
	const char *ta = *(const char *const *)a, *tb = *(const char *const *)b;
	const char *sa = NULL, *sb = NULL;
	size_t la = tag_of(ta, &sa), lb = tag_of(tb, &sb);
	int c = memcmp(sa, sb, la < lb ? la : lb);

	return c != 0 ? c : (la > lb) - (la < lb);
}

/*
 * A provider: its probes' macros, for every compiler; then, for GNU C,
 * each probe's names (put_probe_tuple) and declarations under a guard.
 * A probe that is an inline site needs its prototype only under
 * _USDT_PROBE_CALLS: those are in one block after the guards.
 */
static void
put_provider(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_provider_t *prov, const probe_names_t *names)
{
	bool calls_block = false;

	sb_printf(out, "/* provider %s */\n", prov->name);
	if (prov->nprobes == 0) {
		sb_puts(out, "\n");
		return;
	}
	for (size_t i = 0; i < prov->nprobes; i++)
		put_probe_macros(out, m, t, prov->probes[i], &names[i]);
	sb_puts(out, "\n#if _DTRACE_VERSION && defined(__GNUC__)\n");
	sb_puts(out, "#pragma GCC visibility push(hidden)\n");
	for (size_t i = 0; i < prov->nprobes; i++) {
		const mdl_probe_t *pr = prov->probes[i];
		bool site = is_inline_site(m, t, pr);

		calls_block |= site;
		if (!site)
			sb_printf(out, "#ifndef _USDT_P_%s\n", probe_tag(&names[i]));
		put_probe_tuple(out, m, t, prov, pr, &names[i]);
		put_probe_decls(out, m, t, pr, &names[i], !site);
		if (!site)
			sb_puts(out, "#endif\n");
	}
	if (calls_block) {
		sb_puts(out, "#if defined(_USDT_PROBE_CALLS) || !defined(__x86_64__)\n");
		for (size_t i = 0; i < prov->nprobes; i++)
			if (is_inline_site(m, t, prov->probes[i]))
				put_probe_prototype(out, m, t, prov->probes[i], &names[i]);
		sb_puts(out, "#endif\n");
	}
	sb_puts(out, "#pragma GCC visibility pop\n");
	sb_puts(out, "#endif\n\n");
}

/* Names for every probe of prov, or NULL on allocation failure. */
static probe_names_t *
provider_names(const mdl_provider_t *prov)
{
	probe_names_t *names = calloc(prov->nprobes + 1, sizeof(*names));

	if (names == NULL)
		return NULL;
	for (size_t i = 0; i < prov->nprobes; i++) {
		if (names_init(&names[i], prov, prov->probes[i]) != 0) {
			for (size_t j = 0; j <= i; j++)
				names_free(&names[j]);
			free(names);
			return NULL;
		}
	}
	return names;
}

static void
provider_names_free(probe_names_t *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		names_free(&names[i]);
	free(names);
}

/*
 * The header is a system header to the compiler, as <sys/sdt.h> is: a
 * warning about what a probe macro does with its arguments (glib's gmem.c
 * gives a freed pointer to a probe: -Wuse-after-free) is then the header's,
 * which compilers do not report, while warnings about the caller's own
 * expressions still are.  -D_USDT_HEADER_WARNINGS turns this off, which
 * the tests do to keep the header's own text clean under -pedantic.
 */
static void
put_system_header(strbuf_t *out)
{
	sb_puts(out, "#if defined(__GNUC__) && !defined(_USDT_HEADER_WARNINGS)\n");
	sb_puts(out, "#pragma GCC system_header\n");
	sb_puts(out, "#endif\n\n");
}

/*
 * `struct T;` for each struct or union tag an argument type names, once
 * each (sorted, so in n log n), so that a tag the program declares after
 * including the header is the same type, not one declared inside a
 * parameter list.
 */
static void
put_tag_declarations(strbuf_t *out, const mdl_model_t *m)
{
	const char **types = NULL, *start;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < m->nproviders; i++)
		for (size_t j = 0; j < m->providers[i]->nprobes; j++) {
			const mdl_probe_t *pr = m->providers[i]->probes[j];

			for (size_t k = 0; k < pr->nargc; k++) {
				if (tag_of(pr->nargs[k].type, &start) == 0)
					continue;
				if (n == cap) {
					const char **grown = realloc(types,
					    (cap = cap ? 2 * cap : 16) * sizeof(*types));

					if (grown == NULL) {
						out->failed = true;
						free(types);
						return;
					}
					types = grown;
				}
				types[n++] = pr->nargs[k].type;
			}
		}
	if (n > 0)
		qsort(types, n, sizeof(*types), cmp_tag);
	for (size_t i = 0; i < n; i++) {
		size_t len = tag_of(types[i], &start);

		if (i == 0 || cmp_tag(&types[i - 1], &types[i]) != 0)
			sb_printf(out, "%.*s;\n", (int)len, start);
	}
	if (n > 0)
		sb_putc(out, '\n');
	free(types);
}

/*
 * SystemTap's header includes <sys/sdt.h>, and programs that include it
 * write STAP_PROBE1() or DTRACE_PROBE1() beside its macros (SystemTap's
 * own sdt_misc does): so does ours on Linux, where that header is
 * installed, and compiles where it is not.  The two share no macro name
 * (ours are _USDT_*), and both guard `.stapsdt.base` the same way.  As
 * SystemTap's, it first defines _SDT_HAS_SEMAPHORES, so that such a probe
 * of a provider of the .d names the probe's semaphore in its note: a tracer
 * attached there makes the probe's _ENABLED() true, which is how sdt_misc's
 * `if (..._ENABLED()) STAP_PROBE1(...)` fires (the semaphore then has to
 * be defined: the -G object defines every one, a file of the program that
 * fires or tests the probe through our macros its own).
 * -D_USDT_NO_SYS_SDT_H leaves both out.
 */
static void
put_sys_sdt_include(strbuf_t *out)
{
	sb_puts(out, "#if defined(__linux__) && defined(__has_include) && "
	    "!defined(_USDT_NO_SYS_SDT_H)\n");
	sb_puts(out, "#if __has_include(<sys/sdt.h>)\n");
	sb_puts(out, "#if !defined(_SDT_HAS_SEMAPHORES) && !defined(_SYS_SDT_H)\n"
	    "#define _SDT_HAS_SEMAPHORES 1\n#endif\n");
	sb_puts(out, "#include <sys/sdt.h>\n#endif\n#endif\n");
}

static void
put_prologue(strbuf_t *out, const char *guard_file)
{
	sb_puts(out, "/*\n * Generated by usdtc -h.  Do not edit.\n */\n\n");
	sb_puts(out, "#ifndef\t");
	header_put_guard_name(out, guard_file);
	sb_puts(out, "\n#define\t");
	header_put_guard_name(out, guard_file);
	/* As dtrace's: <unistd.h> for size_t, ssize_t, pid_t, off_t, ... */
	sb_puts(out, "\n\n");
	put_system_header(out);
	sb_puts(out, "#include <unistd.h>\n#include <stdint.h>\n");
	put_sys_sdt_include(out);
	sb_puts(out, "\n#ifdef\t__cplusplus\nextern \"C\" {\n#endif\n\n");
	sb_puts(out, "#ifndef _DTRACE_VERSION\n#define _DTRACE_VERSION 1\n#endif\n\n");
}

void
header_put_epilogue(strbuf_t *out, const char *guard_file)
{
	sb_puts(out, "#ifdef\t__cplusplus\n}\n#endif\n\n#endif\t/* ");
	header_put_guard_name(out, guard_file);
	sb_puts(out, " */\n");
}

void
header_write(const mdl_model_t *m, const target_t *t,
    const char *guard_file, strbuf_t *out)
{
	put_prologue(out, guard_file);
	put_tag_declarations(out, m);
	if (mdl_has_probes(m))
		put_unit_macros(out, t);
	for (size_t i = 0; i < m->nproviders; i++) {
		const mdl_provider_t *prov = m->providers[i];
		probe_names_t *names = provider_names(prov);

		if (names == NULL) {
			out->failed = true;
			return;
		}
		put_provider(out, m, t, prov, names);
		provider_names_free(names, prov->nprobes);
	}
	header_put_epilogue(out, guard_file);
}
