/*
 * header_int.h - what the pieces of the -h stage share (not an API; the
 * stage's API is header.h).
 *
 * The header's text is made of parts that vary apart, one file each:
 * header.c lays out the file and writes each probe's own lines, the same
 * for every architecture; args.c says what each argument travels as;
 * asm_text.c turns assembler lines into the C string literals of asm
 * statements; the forms_*.c files write the generic macros a probe's lines
 * expand to, one family of architectures each: forms_dtrace.c the call of
 * a probe's stub that DTrace's targets share, forms_x86_64.c the inline
 * sites and site records of x86_64, forms_aarch64.c aarch64's, and
 * forms_sdt.c <sys/sdt.h>'s form for every other architecture.
 *
 * Every file only appends to a strbuf: an allocation failure latches
 * out->failed, which header_write's caller checks once.
 */
#ifndef USDTC_HEADER_INT_H
#define USDTC_HEADER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "strbuf.h"
#include "target.h"

/*
 * A probe macro's parameter i, as printf reads it ("a0", ...): written two
 * to four times a probe (the head, the temporaries, the call), so short,
 * for the header's bytes; what the macros expand to does not name it.
 */
#define ARG_PREFIX	"a"
#define ARG_NAME	ARG_PREFIX "%zu"

/*
 * The generic macros are written with the asm writer below, from names
 * that hold a macro parameter: PARAM_MARK and the parameter's letter,
 * which the C text gets as `" p "`, so that "__dtrace_" PARAM "p" becomes
 * "__dtrace_" p "" in the macro.
 */
#define PARAM_MARK	'\001'
#define PARAM(letter)	"\001" letter

/*
 * The names of a probe's unit in the generic macros, from their
 * parameters: p, the provider; n, the probe as declared.  The probe
 * function's name after MDL_PROBE_PREFIX is p MDL_PROBE_SEP n, UNIT_TAG
 * (a D name's `__` is DOF's `-`, which the function's name spells `__`),
 * so the tuple need not hold it (put_probe_tuple checks it).
 */
#define UNIT_TAG	PARAM("p") MDL_PROBE_SEP PARAM("n")
#define UNIT_FUNC	MDL_PROBE_PREFIX UNIT_TAG
#define UNIT_ENABLED	MDL_ENABLED_PREFIX UNIT_TAG
#define UNIT_SEMAPHORE	PARAM("p") "_" PARAM("n") "_semaphore"

/* ---- header.c: the file and each probe's lines --------------------------- */

/*
 * The include guard for an output file: `_` + its base name upper-cased,
 * every other character `_` (probes.h.tmp -> _PROBES_H_TMP).
 */
void header_put_guard_name(strbuf_t *out, const char *guard_file);

/* The end of a header: the C++ block and the include guard closed. */
void header_put_epilogue(strbuf_t *out, const char *guard_file);

/*
 * A probe macro's parameter list: "(a0, a1)" or "()", each name prefix
 * and its index (ARG_PREFIX; macOS's header keeps Apple's "arg").
 */
void header_put_macro_params(strbuf_t *out, const mdl_probe_t *pr, const char *prefix);

/* ---- args.c: what each argument travels as ------------------------------- */

/* Whether a native type is a pointer (or array, or D's string), by its spelling. */
bool args_is_pointer(const char *type);

/* The size of a float or double argument that travels as its bits, or 0. */
unsigned args_float_bits(const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, size_t i);

/* Argument i's type in the prototype and inline site. */
void args_put_type(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, size_t i);

/* The arguments of the stub's call in the probe macro: "(arg0, ...)". */
void args_put_call(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr);

/* Whether argument i is a pointer whose memory the tracer may read. */
bool args_may_point(const mdl_model_t *m, const mdl_probe_t *pr, size_t i);

/* The declarations of a probe's temporaries: ` _USDT_V(int, 0, ...)`... */
void args_put_temporaries(strbuf_t *out, const mdl_model_t *m,
    const target_t *t, const mdl_probe_t *pr);

/* Linux: the temporaries', float bits' and pointed-at memory's macros. */
void args_put_linux_macros(strbuf_t *out);

/* Every target: an argument converted to its parameter's type, C and C++. */
void args_put_conv_macros(strbuf_t *out);

/*
 * A probe's note arguments on x86_64 and aarch64, compact where each
 * argument is one of NOTE_CODES sizes and signednesses at a place its
 * position gives (args.c): the pieces of both architectures, per position
 * and code ("" where none).
 */
#define NOTE_POS_MAX	12
#define NOTE_CODES	8
#define NOTE_PIECE_MAX	24
typedef struct note_table {
	char piece[2][NOTE_POS_MAX][NOTE_CODES][NOTE_PIECE_MAX];	/* x86_64, aarch64 */
} note_table_t;

void args_note_table_init(note_table_t *nt);

/* `#define _USDT_Z<pos>_<code> "piece"` of architecture a (0 x86_64, 1 aarch64). */
void args_put_note_pieces(strbuf_t *out, const note_table_t *nt, size_t a);

/* `#define _USDT_N<k>(c0, ...)`, the pieces of k codes in a string. */
void args_put_note_lists(strbuf_t *out);

/*
 * The note arguments of a probe of n arguments described x on x86_64 and
 * a on aarch64: `_USDT_N<n>(codes)`, or `_USDT_NA("x", "a")` (always,
 * when nt is NULL: the header has no pieces).
 */
void args_put_note_args(strbuf_t *out, const note_table_t *nt, size_t n, const char *x,
    const char *a);

/* ---- asm_text.c: assembler lines as C string literals -------------------- */

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

/* A writer of target t's text, appending to out. */
void asm_writer_init(asm_writer_t *w, strbuf_t *out, const target_t *t);

/* A writer of <sys/sdt.h>'s architectures' text (forms_sdt.c). */
void asm_writer_init_generic(asm_writer_t *w, strbuf_t *out);

strbuf_t *asm_begin(asm_writer_t *w);
void asm_end(asm_writer_t *w);

/* One line as it is. */
void asm_plain(asm_writer_t *w, const char *text);

/* A directive with one symbol operand: "\t.weak sym". */
void asm_sym_directive(asm_writer_t *w, const char *directive, const char *sym);

/* A weak hidden symbol of the given type (or none) and size, defined here. */
void asm_define_symbol(asm_writer_t *w, const char *sym, const char *type,
    size_t size);

/* `.pushsection NAME_PREFIX NAME_SUFFIX,"FLAGS",@TYPE[,GROUP,comdat]`. */
void asm_push_section(asm_writer_t *w, const char *name_prefix,
    const char *name_suffix, const char *flags, const char *type,
    const char *group);

/* unit[from, to) as code: `.byte` lines, or `.inst` words on AArch64. */
void asm_code(asm_writer_t *w, const uint8_t *unit, size_t from, size_t to);

/* Whether gas and LLVM read s as a symbol without quotes. */
bool asm_is_plain_symbol(const char *s);

/* A symbol name as the assembler reads it: quoted only when it must be. */
void asm_put_symbol(strbuf_t *sb, const char *name);

/* s as the text of a C string literal; `%` doubled when percent. */
void asm_put_c_string(strbuf_t *out, const char *s, bool percent);

/* `#define HEAD \` and TEXT's lines, each but the last continued. */
void asm_put_macro(strbuf_t *out, const char *head, const strbuf_t *text);

/* A stapsdt note's fields at pc c, generic in c, p, n, a (_USDT_NOTE_). */
void asm_generic_note(asm_writer_t *w);

/* .stapsdt.base, the semaphore and the link anchor of p:n (_USDT_SEM_). */
void asm_generic_semaphore(asm_writer_t *w);

/* Both of the above as macros NOTE_HEAD and _USDT_SEM_(p, n) in out. */
void asm_put_note_and_semaphore(strbuf_t *out, asm_writer_t *w, const char *note_head);

/* ---- forms_*.c: the generic macros, by family of architectures ----------- */

/*
 * _USDT_S(T, k, v, r, o) as a call of the probe's stub with the
 * temporaries v declares: aarch64's, and x86_64's under _USDT_PROBE_CALLS.
 */
#define FORMS_SITE_AS_CALL \
	"#define _USDT_S(T, k, v, r, o) (__extension__ ({ v " \
	"_USDT_CALL(_USDT_P_##T); " MDL_PROBE_PREFIX "##T(_USDT_A##k); }))\n"

/* DTrace's targets: the probe unit, the stub's call, and t's arch's own forms. */
void forms_dtrace(strbuf_t *out, const target_t *t);

/* x86_64: whether the probe's line is an inline site (_USDT_S). */
bool forms_x86_64_is_site(const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr);

/*
 * x86_64: the inline site's line of the probe tagged tag; runs: consecutive
 * register variables and operands as one macro each (forms_x86_64_runs).
 */
void forms_x86_64_site(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const char *tag, bool runs);

/* x86_64: the site's and _ENABLED()'s macros, written with w. */
void forms_x86_64_macros(strbuf_t *out, asm_writer_t *w);

/* x86_64: _USDT_S and _USDT_ON, and the asm operands they take. */
void forms_x86_64_forms(strbuf_t *out);

/* The macros of runs of register variables and operands, every architecture's. */
void forms_x86_64_runs(strbuf_t *out);

/* aarch64: _ENABLED()'s slow path in C. */
void forms_aarch64_macros(strbuf_t *out);

/* aarch64: _USDT_S (a call) and _USDT_ON. */
void forms_aarch64_forms(strbuf_t *out);

/* Whether every argument of the probe fits a temporary (_USDT_L's probes). */
bool forms_sdt_fits(const mdl_model_t *m, const mdl_probe_t *pr);

/* Every other architecture: <sys/sdt.h>'s form. */
void forms_sdt(strbuf_t *out);

#endif
