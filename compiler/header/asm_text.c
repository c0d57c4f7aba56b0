/*
 * asm_text.c - the assembler text of the header (header_int.h): each line
 * of an asm statement as a line of a C string literal, the directives a
 * probe unit is written with, and the pieces every Linux architecture's
 * forms share: a stapsdt note's fields, the probe's semaphore,
 * `.stapsdt.base` and the probe's link anchor.
 *
 * What varies here is the assembler's syntax and the escapes C needs
 * around it, not the probe forms: so a form (forms_*.c) says which lines
 * it wants, and this file alone knows how `"`, `\`, `?` and `%` travel
 * through a C string into an asm statement, and how a macro parameter
 * (PARAM) gets out of one.
 */
#include <ctype.h>
#include <elf.h>
#include <string.h>

#include "dof.h"
#include "header_int.h"
#include "stapsdt.h"

/* Characters gas and LLVM accept in a symbol name without quotes. */
bool
asm_is_plain_symbol(const char *s)
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
void
asm_put_symbol(strbuf_t *sb, const char *name)
{
	if (asm_is_plain_symbol(name))
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
 * gas reads `@` as a comment on some machines, so there types are written
 * `%progbits`, `%function` (AArch64 gas and LLVM accept both; x86_64 keeps
 * the `@` it always had).  Instructions of fixed 4-byte size are written
 * with .inst, so that the assembler marks them as code, not data.
 */
void
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
 * The writer of the generic architecture's text (forms_sdt.c):
 * types as `%progbits`, which every gas and LLVM read, and addresses with
 * the directive of the macro parameter w (_USDT_ADDR: .4byte or .8byte,
 * by the pointer size the header is compiled for).
 */
void
asm_writer_init_generic(asm_writer_t *w, strbuf_t *out)
{
	w->out = out;
	sb_init(&w->line);
	w->type_mark = '%';
	w->words = false;
	w->percent = true;
	w->addr = PARAM("w");
}

strbuf_t *
asm_begin(asm_writer_t *w)
{
	w->line.len = 0;
	if (w->line.data != NULL)
		w->line.data[0] = '\0';
	return &w->line;
}

void
asm_end(asm_writer_t *w)
{
	if (w->line.failed)
		w->out->failed = true;
	put_c_asm_line(w->out, &w->line, w->percent);
}

/* A directive with one symbol operand: "\t.weak sym". */
void
asm_sym_directive(asm_writer_t *w, const char *directive, const char *sym)
{
	strbuf_t *l = asm_begin(w);

	sb_printf(l, "\t%s ", directive);
	asm_put_symbol(l, sym);
	asm_end(w);
}

/*
 * A weak hidden symbol of the given type and size, defined here: with a
 * type, one call of _USDT_DEF_(s, t, z) (put_unit_macros, header.c), the
 * five lines that would otherwise be written out at each of its uses.
 */
void
asm_define_symbol(asm_writer_t *w, const char *sym, const char *type, size_t size)
{
	strbuf_t *l;

	if (type != NULL) {
		l = asm_begin(w);
		asm_put_symbol(l, sym);
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
	asm_put_symbol(l, sym);
	sb_printf(l, ",%zu", size);
	asm_end(w);
	l = asm_begin(w);
	asm_put_symbol(l, sym);
	sb_putc(l, ':');
	asm_end(w);
}

/*
 * `.pushsection NAME,"FLAGS",@TYPE,GROUP,comdat`: a section in the COMDAT
 * group signed by GROUP, or with GROUP NULL `.pushsection NAME,"FLAGS",@TYPE`,
 * in none.  The section name is NAME_PREFIX + NAME_SUFFIX.
 */
void
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
	asm_put_symbol(l, name.data != NULL ? name.data : "");
	sb_printf(l, ",\"%s%s\",%c%s", flags, group != NULL ? "G" : "", w->type_mark, type);
	if (group != NULL) {
		sb_putc(l, ',');
		asm_put_symbol(l, group);
		sb_puts(l, ",comdat");
	}
	asm_end(w);
	sb_free(&name);
}

void
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

void
asm_code(asm_writer_t *w, const uint8_t *unit, size_t from, size_t to)
{
	if (w->words && from % 4 == 0 && to % 4 == 0)
		asm_words(w, unit, from, to);
	else
		asm_bytes(w, unit, from, to);
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
	asm_put_symbol(l, sym);
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

/*
 * Probe p:n's link anchor (dof.h says why), once per assembler file: a
 * relocation of type NONE (_USDT_RNONE, header.c) at the asm's place in
 * its code against the symbol the -G object defines, which makes the
 * symbol an undefined reference (the linker takes the -G object out of an
 * archive for it) and changes no byte; and a 1-byte section of the
 * anchor's name, in no group, retained, so that with no -G object (header
 * only) the linker defines the symbol itself, as the section's start.
 * No section of relocations, no group: a 4-byte word referring to the
 * symbol cost its own section of relocations (64 bytes of header) and a
 * group (76), per probe and object file.  Nothing runs or reads it.
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
	asm_sym_directive(w, ".hidden", LINK_SYMBOL);
	sb_puts(w->out, "\"\\t.reloc .,\" _USDT_RNONE \",\"\n");	/* continued by the symbol */
	l = asm_begin(w);
	asm_put_symbol(l, LINK_SYMBOL);
	asm_end(w);
	asm_push_section(w, LINK_ANCHOR, "", "aR", "progbits", NULL);
	asm_plain(w, ".L" LINK_ANCHOR ":");
	asm_plain(w, "\t.byte 0");
	asm_plain(w, "\t.popsection");
	asm_plain(w, "\t.endif");
	asm_plain(w, "\t.endif");
}

/*
 * What every use of probe p:n needs in its assembler file, whether it
 * brings the probe's unit or not: `.stapsdt.base`, the probe's semaphore
 * and its link anchor, each once (`.ifndef`).  _USDT_SEM_(p, n).
 */
void
asm_generic_semaphore(asm_writer_t *w)
{
	asm_stapsdt_base(w);
	asm_semaphore(w, UNIT_SEMAPHORE);
	asm_link_anchor(w);
}

/* The fields of a note (asm_note_fields) at pc c, generic as the unit. */
void
asm_generic_note(asm_writer_t *w)
{
	const note_text_t nt = { PARAM("p"), PARAM("n"), PARAM("a"), UNIT_SEMAPHORE };

	asm_note_fields(w, PARAM("c"), 0, &nt);
}

/*
 * A note's fields as the macro NOTE_HEAD (asm_generic_note) and what every
 * use of a probe needs as _USDT_SEM_(p, n) (asm_generic_semaphore), both
 * written by w and put in out; w's text is left empty.
 */
void
asm_put_note_and_semaphore(strbuf_t *out, asm_writer_t *w, const char *note_head)
{
	asm_generic_note(w);
	asm_put_macro(out, note_head, w->out);
	w->out->len = 0;
	asm_generic_semaphore(w);
	asm_put_macro(out, "_USDT_SEM_(p, n)", w->out);
	w->out->len = 0;
}

/* `#define HEAD \` and TEXT's lines, each but the last continued. */
void
asm_put_macro(strbuf_t *out, const char *head, const strbuf_t *text)
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

/* s as the text of a C string literal; `%` doubled when percent. */
void
asm_put_c_string(strbuf_t *out, const char *s, bool percent)
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

