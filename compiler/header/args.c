/*
 * args.c - what each argument of a probe travels as (header_int.h): its
 * type in the prototype, its value in the call, the temporary an inline
 * site holds it in, and the macros that convert it, in C and in C++.
 *
 * What varies here is the argument's type, not the architecture: a
 * pointer (or array, or D's string) travels as uintptr_t, so that a probe
 * takes any pointer as a <sys/sdt.h> probe does; on Linux a float or
 * double as its bits, in an unsigned integer of its size; an integer,
 * enum or typedef of a pointer converted to the parameter's type as a
 * call would convert it; anything else (a struct) as given.  Each form of
 * the probe (forms_*.c) and its prototype (header.c) take them from here.
 */
#include <ctype.h>
#include <string.h>

#include "header_int.h"

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
 * spelling: the arguments that travel as uintptr_t (put_probe_prototype,
 * header.c, says why).
 */
bool
args_is_pointer(const char *type)
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
unsigned
args_float_bits(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr, size_t i)
{
	mdl_typeinfo_t ti;

	if (!t->stapsdt || args_is_pointer(pr->nargs[i].type))
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
 * for a pointer, the bits' type for a float (args_float_bits), else its own
 * type unqualified.
 */
void
args_put_type(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, size_t i)
{
	unsigned bits = args_float_bits(m, t, pr, i);

	if (args_is_pointer(pr->nargs[i].type))
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
 * to the parameter's type (_USDT_X, _USDT_XP: args_put_conv_macros), a known
 * type of another class (a struct) as given.  A name the model does not
 * know is taken, as everywhere, for 8 unsigned bytes (D_TYPE_UNKNOWN) and
 * converted as an integer typedef is: a warning never changes the output.
 */
/* How argument i becomes its temporary's value (put_arg_value). */
typedef enum { CONV_POINTER, CONV_FLOAT, CONV_AS_IS, CONV_X, CONV_XP } conv_t;

static conv_t
arg_conv(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr, size_t i)
{
	mdl_typeinfo_t ti;

	if (args_is_pointer(pr->nargs[i].type))
		return CONV_POINTER;
	if (args_float_bits(m, t, pr, i) != 0)
		return CONV_FLOAT;
	ti = mdl_type_info(m, pr->nargs[i].type);
	if (ti.known && ti.tclass != MDL_TC_INTEGER)
		return CONV_AS_IS;
	return ti.is_pointer ? CONV_XP : CONV_X;
}

static void
put_arg_value(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, size_t i)
{
	conv_t conv = arg_conv(m, t, pr, i);

	switch (conv) {
	case CONV_POINTER:
		sb_printf(out, "(uintptr_t)(" ARG_NAME ")", i);
		break;
	case CONV_FLOAT:
		sb_puts(out, "_USDT_FB(");
		put_unqualified(out, mdl_c_type(pr->nargs[i].type));
		sb_printf(out, ", uint%u_t, " ARG_NAME ")", args_float_bits(m, t, pr, i) * 8, i);
		break;
	case CONV_AS_IS:
		sb_printf(out, ARG_NAME, i);
		break;
	case CONV_X:
	case CONV_XP:
		sb_puts(out, conv == CONV_XP ? "_USDT_XP(" : "_USDT_X(");
		put_unqualified(out, mdl_c_type(pr->nargs[i].type));
		sb_printf(out, ", " ARG_NAME ")", i);
		break;
	}
}

/* The arguments of the call in the probe macro (put_arg_value). */
void
args_put_call(strbuf_t *out, const mdl_model_t *m, const target_t *t,
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
 * Whether an inline site's argument is a pointer whose memory the tracer
 * may read: spelled as one, or a typedef of the file that names one.  Those
 * get _USDT_READS (forms_x86_64_site).  A name the model cannot resolve is 8
 * unsigned bytes here as everywhere (D_TYPE_UNKNOWN changes no output).
 */
bool
args_may_point(const mdl_model_t *m, const mdl_probe_t *pr, size_t i)
{
	mdl_typeinfo_t ti;

	if (args_is_pointer(pr->nargs[i].type))
		return true;
	ti = mdl_type_info(m, pr->nargs[i].type);
	return ti.is_pointer;
}

/*
 * The declarations of a probe's temporaries: `_USDT_V(T, 0, a0) ...`,
 * a pointer as a uintptr_t (_USDT_VP), an integer converted by _USDT_X
 * as `_USDT_VX(int, 0, a0)` (the type written once: the header's bytes),
 * a float as its bits (args_put_type, put_arg_value).
 */
void
args_put_temporaries(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr)
{
	for (size_t i = 0; i < pr->nargc; i++)
		if (args_is_pointer(pr->nargs[i].type))
			sb_printf(out, " _USDT_VP(%zu, " ARG_NAME ")", i, i);
		else if (arg_conv(m, t, pr, i) == CONV_X) {
			sb_puts(out, " _USDT_VX(");
			put_unqualified(out, mdl_c_type(pr->nargs[i].type));
			sb_printf(out, ", %zu, " ARG_NAME ")", i, i);
		} else {
			sb_puts(out, " _USDT_V(");
			args_put_type(out, m, t, pr, i);
			sb_printf(out, ", %zu, ", i);
			put_arg_value(out, m, t, pr, i);
			sb_puts(out, ")");
		}
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
	sb_puts(out, "#define _USDT_VX(T, i, x) T __usdt_v##i = _USDT_X(T, x);\n");
	sb_puts(out, "#define _USDT_A0\n#define _USDT_A1 __usdt_v0\n");
	for (int i = 2; i <= 6; i++)
		sb_printf(out, "#define _USDT_A%d _USDT_A%d, __usdt_v%d\n", i, i - 1, i - 1);
}

/*
 * A float or double argument as its bits (args_float_bits): _USDT_FT(T, U) is
 * the type it travels as, U, the unsigned integer of its size, and
 * _USDT_FB(T, U, x) its value, x's bits.  Every Linux architecture's,
 * once (put_unit_macros, header.c).
 */
static void
put_float_bits_macros(strbuf_t *out)
{
	sb_puts(out, "#define _USDT_FT(T, U) U\n");
	sb_puts(out, "#define _USDT_FB(T, U, x) __extension__ ({ T __usdt_f = (T)(x); U __usdt_b; "
	    "__builtin_memcpy(&__usdt_b, &__usdt_f, sizeof(__usdt_b)); __usdt_b; })\n");
}

/*
 * _USDT_READS(p), an operand of an inline site for each pointer argument
 * (forms_x86_64_site): the memory at p, of a size gcc cannot bound, read by
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
 * once (put_unit_macros, header.c).
 */
void
args_put_conv_macros(strbuf_t *out)
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
 * The macros of the temporaries, of float bits and of pointed-at memory,
 * once per translation unit on Linux (every architecture's: header.c).
 */
void
args_put_linux_macros(strbuf_t *out)
{
	put_temp_macros(out);
	put_float_bits_macros(out);
	put_site_helpers(out);
}

/* ---- a probe's note arguments, compact ----------------------------------- */

/*
 * An argument's note description on x86_64 and aarch64 is, for the common
 * probe (integers, pointers and floats' bits of at most 8 bytes, one
 * register or stack slot each), a function of its position and of one of
 * eight codes, its size and signedness.  A Linux header then names each
 * argument's code alone, `_USDT_N3(8, s4, 1)`, and the preprocessor pastes
 * the pieces of the architecture it compiles for, `_USDT_Z0_8 " "
 * _USDT_Z1_s4 " " _USDT_Z2_1`, into the string both spelled out before
 * (`_USDT_NA("8@%%rdi -4@%%esi 1@%%dl", "8@x0 -4@x1 1@x2")`): adjacent
 * literals, so the note is the same string and the same bytes.  The pieces
 * are what each architecture's note_args says of a probe of position + 1
 * arguments of the code's type (no model: the builtin types alone), and a
 * probe is written compact only when the pieces its codes name spell its
 * own descriptions exactly on both; any other (a struct, a long double, an
 * argument in two registers, more than NOTE_POS_MAX) keeps both strings.
 */
static const struct {
	const char *token;	/* in the header: _USDT_Z<position>_<token> */
	const char *type;	/* a type of its size and signedness */
} note_codes[NOTE_CODES] = {
	{ "1", "uint8_t" }, { "2", "uint16_t" }, { "4", "uint32_t" }, { "8", "uint64_t" },
	{ "s1", "int8_t" }, { "s2", "int16_t" }, { "s4", "int32_t" }, { "s8", "int64_t" },
};

/* The note description of n arguments of code c's type, in sb. */
static void
note_of(const arch_t *arch, size_t n, size_t c, strbuf_t *sb)
{
	mdl_arg_t args[NOTE_POS_MAX];
	mdl_probe_t pr;

	memset(args, 0, sizeof(args));
	memset(&pr, 0, sizeof(pr));
	for (size_t i = 0; i < n; i++)
		args[i].type = (char *)(uintptr_t)note_codes[c].type;
	pr.name = pr.dof_name = (char *)(uintptr_t)"p";
	pr.nargs = pr.xargs = args;
	pr.nargc = pr.xargc = n;
	arch->note_args(NULL, &pr, sb);
}

/*
 * Argument pos's piece of code c: the description of pos + 1 such
 * arguments past that of pos and a space ("" when it is not so, or long).
 */
static void
note_piece(const arch_t *arch, size_t pos, size_t c, char piece[NOTE_PIECE_MAX])
{
	strbuf_t before, all;
	size_t skip;

	sb_init(&before);
	sb_init(&all);
	note_of(arch, pos, c, &before);
	note_of(arch, pos + 1, c, &all);
	skip = pos == 0 ? 0 : before.len + 1;
	piece[0] = '\0';
	if (!before.failed && !all.failed && all.data != NULL && all.len > skip &&
	    all.len - skip < NOTE_PIECE_MAX &&
	    (pos == 0 || (before.data != NULL && memcmp(all.data, before.data, before.len) == 0 &&
	    all.data[before.len] == ' '))) {
		memcpy(piece, all.data + skip, all.len - skip);
		piece[all.len - skip] = '\0';
	}
	sb_free(&before);
	sb_free(&all);
}

void
args_note_table_init(note_table_t *nt)
{
	const arch_t *const arch[2] = { &arch_x86_64, &arch_aarch64 };

	for (size_t a = 0; a < 2; a++)
		for (size_t p = 0; p < NOTE_POS_MAX; p++)
			for (size_t c = 0; c < NOTE_CODES; c++)
				note_piece(arch[a], p, c, nt->piece[a][p][c]);
}

void
args_put_note_pieces(strbuf_t *out, const note_table_t *nt, size_t a)
{
	char sep_piece[NOTE_PIECE_MAX + 1] = " ";

	for (size_t p = 0; p < NOTE_POS_MAX; p++)
		for (size_t c = 0; c < NOTE_CODES; c++) {
			if (nt->piece[a][p][c][0] == '\0')
				continue;
			/* past the first, each with the space before it: fewer literals */
			strcpy(sep_piece + 1, nt->piece[a][p][c]);
			sb_printf(out, "#define _USDT_Z%zu_%s ", p, note_codes[c].token);
			asm_put_c_string(out, p == 0 ? sep_piece + 1 : sep_piece, true);
			sb_putc(out, '\n');
		}
}

void
args_put_note_lists(strbuf_t *out)
{
	sb_puts(out, "#define _USDT_N0 \"\"\n");
	for (size_t k = 1; k <= NOTE_POS_MAX; k++) {
		sb_printf(out, "#define _USDT_N%zu(", k);
		for (size_t i = 0; i < k; i++)
			sb_printf(out, "%sc%zu", i > 0 ? ", " : "", i);
		sb_puts(out, ")");
		for (size_t i = 0; i < k; i++)
			sb_printf(out, " _USDT_Z%zu_##c%zu", i, i);
		sb_putc(out, '\n');
	}
}

/*
 * The codes of a probe's n arguments whose descriptions are x on x86_64
 * and a on aarch64, when the pieces spell both exactly.
 */
static bool
note_codes_of(const note_table_t *nt, size_t n, const char *x, const char *a,
    size_t codes[NOTE_POS_MAX])
{
	const char *d[2] = { x, a };

	if (n > NOTE_POS_MAX)
		return false;
	if (n == 0)
		return x[0] == '\0' && a[0] == '\0';
	for (size_t i = 0; i < n; i++) {
		char end = i + 1 < n ? ' ' : '\0';
		size_t c, len[2];

		for (c = 0; c < NOTE_CODES; c++) {
			size_t k;

			for (k = 0; k < 2; k++) {
				const char *piece = nt->piece[k][i][c];

				len[k] = strlen(piece);
				if (len[k] == 0 || strncmp(d[k], piece, len[k]) != 0 ||
				    d[k][len[k]] != end)
					break;
			}
			if (k == 2)
				break;
		}
		if (c == NOTE_CODES)
			return false;
		codes[i] = c;
		for (size_t k = 0; k < 2; k++)
			d[k] += len[k] + (end != '\0');
	}
	return true;
}

void
args_put_note_args(strbuf_t *out, const note_table_t *nt, size_t n, const char *x,
    const char *a)
{
	size_t codes[NOTE_POS_MAX];

	if (nt == NULL || !note_codes_of(nt, n, x, a, codes)) {
		sb_puts(out, "_USDT_NA(");
		asm_put_c_string(out, x, true);
		sb_puts(out, ", ");
		asm_put_c_string(out, a, true);
		sb_putc(out, ')');
		return;
	}
	sb_printf(out, "_USDT_N%zu", n);
	for (size_t i = 0; i < n; i++)
		sb_printf(out, "%s%s", i == 0 ? "(" : ", ", note_codes[codes[i]].token);
	if (n > 0)
		sb_putc(out, ')');
}
