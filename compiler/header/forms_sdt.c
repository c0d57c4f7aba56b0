/*
 * forms_sdt.c - the probe form of every Linux architecture but x86_64 and
 * aarch64 (header_int.h): i386, Arm, MIPS, POWER, s390x, RISC-V, ...
 * (doc/architectures.md), where no DTrace runs and a probe is what
 * <sys/sdt.h> makes it, an inline site with its stapsdt note and nothing
 * for -G to rewrite.  A Linux header carries this form beside x86_64's
 * and aarch64's, and the compiler picks one by the architecture it
 * compiles for (the `#if` ladder of header.c).  The note's fields and the
 * semaphore are those of every Linux architecture (asm_text.c), written
 * for pointers of 4 or 8 bytes alike.
 */
#include <string.h>

#include "header_int.h"
#include "stapsdt.h"

/* The most arguments of a probe that is an inline site here (_USDT_GT<k>). */
#define SDT_MAX_ARGS	12

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
	asm_put_note_and_semaphore(out, &w, "_USDT_GNOTE_(c, p, n, a, w)");
	sb_puts(&text, "_USDT_SEM_(p, n)\n");
	asm_plain(&w, "990:\t" PARAM("o"));
	asm_plain(&w, "\t.pushsection " STAPSDT_NOTE_SECTION ",\"?\",%note");
	sb_puts(&text, "_USDT_NOTE_(\"990b\", p, n, t)\n");
	asm_put_macro(out, "_USDT_GSITE_(p, n, a, t, o)", &text);
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
 * INT64_MIN + 1; RISC-V no "o", which clang cannot match ("nr").  Operand
 * 0 is an "i" the text never names; argument i has the operands 2i+1
 * (size) and 2i+2 (location).  _ENABLED() is <sys/sdt.h>'s test of the
 * semaphore, beside the asm that defines it.  A probe with an
 * argument no temporary can hold (a struct by value, more than 12
 * arguments: _USDT_C) does nothing here.
 */
void
forms_sdt(strbuf_t *out)
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
	for (int i = 1; i <= SDT_MAX_ARGS; i++)
		sb_printf(out, "#define _USDT_GT%d _USDT_GT%d \"%s%%n%d@\" _USDT_GA(%d)\n"
		    "#define _USDT_GO%d _USDT_GO%d _USDT_GO(%d)\n", i, i - 1, i > 1 ? " " : "",
		    2 * i - 1, 2 * i, i, i - 1, i - 1);
	sb_puts(out, "#define _USDT_GSITE(P, t) _USDT_GSITE_(P, t, _USDT_NOP)\n");
	sb_puts(out, "#define _USDT_GSEM(P) _USDT_GSEM_(P)\n");
	sb_puts(out, "#define _USDT_GSEM_(p, n, a) _USDT_SEM_(p, n)\n");
	sb_puts(out, "#define _USDT_M(r, i) _USDT_READS(__usdt_v##i)\n");
	sb_puts(out, "#define _USDT_O0\n#define _USDT_O1\n#define _USDT_O2\n"
	    "#define _USDT_O3\n#define _USDT_O4\n#define _USDT_O5\n");
	sb_puts(out, "#define _USDT_S(T, k, v, r, o) (__extension__ ({ v "
	    "_USDT_ASM(_USDT_GSITE(_USDT_P_##T, _USDT_GT##k) : : \"i\"(0) _USDT_GO##k o); }))\n");
	sb_puts(out, "#define _USDT_L(T, k, v, o, c) (__extension__ ({ v "
	    "_USDT_ASM(_USDT_GSITE(_USDT_P_##T, _USDT_GT##k) : : \"i\"(0) _USDT_GO##k o); }))\n");
	sb_puts(out, "#define _USDT_C(T, c) ((void)0)\n");
	sb_puts(out, "#define _USDT_E(x) (x)\n");
	sb_puts(out, "#define _USDT_ON_(T, s) ((long)__extension__ ({ "
	    "_USDT_ASM(_USDT_GSEM(_USDT_P_##T) : :); __builtin_expect(s != 0, 0) != 0; }))\n");
	sb_puts(out, "#define _USDT_ONN(s, T, p, n) ((long)__extension__ ({ "
	    "_USDT_ASM(_USDT_SEM_(p, n) : :); __builtin_expect(s != 0, 0) != 0; }))\n");
}

/*
 * Whether every argument of the probe fits a temporary (_USDT_V,
 * _USDT_VP): a pointer, or an integer or floating type of at most 8 bytes
 * spelled as a type a declarator can follow; and there are at most
 * SDT_MAX_ARGS.  Such a probe that is not an x86_64 inline site is one
 * here (_USDT_L, forms_sdt).
 */
bool
forms_sdt_fits(const mdl_model_t *m, const mdl_probe_t *pr)
{
	if (pr->nargc > SDT_MAX_ARGS)
		return false;
	for (size_t i = 0; i < pr->nargc; i++) {
		mdl_typeinfo_t ti = mdl_type_info(m, pr->nargs[i].type);

		if (args_is_pointer(pr->nargs[i].type))
			continue;
		if ((ti.tclass != MDL_TC_INTEGER && ti.tclass != MDL_TC_FLOAT) ||
		    ti.size > 8 || strpbrk(mdl_c_type(pr->nargs[i].type), "([") != NULL)
			return false;
	}
	return true;
}

