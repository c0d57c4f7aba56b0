/*
 * forms_x86_64.c - x86_64 Linux's probe forms (header_int.h): the inline
 * site and its record, and _ENABLED()'s slow path in asm.
 *
 * On x86_64 Linux a probe whose arguments are at most six integers or
 * pointers is not a call but an inline site, as <sys/sdt.h>'s is: each
 * argument is evaluated, then moved into the register a call would pass it
 * in (where DTrace on Linux reads a probe's arguments, and where the note
 * says they are), and an asm statement that clobbers nothing holds the
 * tracepoint, a 1-byte nop, and its stapsdt note (site_asm says how -G
 * finds it).  A disabled probe then costs the nop and those moves, and the
 * compiler keeps every other value in its register across it.  Other
 * probes (floating or by-value arguments, more than six; aarch64, FreeBSD,
 * illumos) keep the call, which -G turns into a tracepoint where it is
 * given the objects; so does every probe under -D_USDT_PROBE_CALLS.
 * DTrace sees inline sites either way: -G given the object records them,
 * and otherwise drti_lite adds them from the site records the asm writes
 * beside them (site_record_asm, runtime/drti_sites.h).
 *
 * A probe's line is the same on every Linux architecture (header.c): the
 * register variables and operands written here are x86_64's, and the
 * other architectures' _USDT_S drops them (forms_aarch64.c, forms_sdt.c).
 */
#include <string.h>

#include "dof.h"
#include "header_int.h"
#include "stapsdt.h"

/* The registers of a call's arguments, where DTrace and the note read them. */
static const char *const site_regs[6] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };

/*
 * The probe's name pair of a site record (dof.h), once per assembler file,
 * at an assembler-local label: no symbol, no group.
 */
#define SITE_PROBE	".L" DOF_SITE_PROBE_PREFIX UNIT_TAG

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
 * alive nor is lost with live code.  The name pair is a string of the
 * file's DOF_SITE_PROBE_SECTION, in no group: a copy per file (a dozen
 * bytes) against a group's two section headers and symbol per probe.
 */
static void
site_record_asm(asm_writer_t *w)
{
	strbuf_t *l;

	asm_sym_directive(w, ".ifndef", SITE_PROBE);
	asm_push_section(w, DOF_SITE_PROBE_SECTION, "", "a", "progbits", NULL);
	l = asm_begin(w);
	asm_put_symbol(l, SITE_PROBE);
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
	sb_puts(w->out, "\"\\t.4byte \" _USDT_FREC \"\\n\"\n");	/* %c0-., or 0 (forms_x86_64_forms) */
	w->percent = true;
	l = asm_begin(w);
	sb_puts(l, "\t.4byte ");
	asm_put_symbol(l, SITE_PROBE);
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
site_asm(asm_writer_t *w)
{
	strbuf_t *l;

	sb_puts(w->out, "_USDT_SEM_(p, n)\n");
	asm_sym_directive(w, ".weak", UNIT_FUNC);
	asm_sym_directive(w, ".hidden", UNIT_FUNC);
	asm_plain(w, "990:\tnop");
	l = asm_begin(w);
	sb_puts(l, "\t.reloc 990b,R_X86_64_NONE,");
	asm_put_symbol(l, UNIT_FUNC);
	asm_end(w);
	site_record_asm(w);
	asm_plain(w, "\t.pushsection " STAPSDT_NOTE_SECTION ",\"?\",@note");
	sb_puts(w->out, "_USDT_NOTE_(\"990b\", p, n, a)\n");
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
enabled_asm(asm_writer_t *w)
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
 * What the slow path of an x86_64 _ENABLED() answers through
 * (enabled_asm): the zero flag itself where the compiler has asm
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
 * Whether the probe is an inline site (see the top of the file): Linux,
 * with stapsdt notes, at most six arguments, each a pointer or of an
 * integer type (a name the model cannot resolve is taken, as everywhere,
 * for 8 unsigned bytes: D_TYPE_UNKNOWN says so, and says no more, since a
 * warning never changes the output), spelled as a type a declarator can
 * follow.  The others (floating, by-value, stack arguments; aarch64;
 * FreeBSD and illumos) keep the call.
 */
bool
forms_x86_64_is_site(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr)
{
	if (!t->stapsdt || pr->nargc > 6)
		return false;
	for (size_t i = 0; i < pr->nargc; i++) {
		mdl_typeinfo_t ti = mdl_type_info(m, pr->nargs[i].type);

		if (args_is_pointer(pr->nargs[i].type))
			continue;
		if ((ti.tclass != MDL_TC_INTEGER && args_float_bits(m, t, pr, i) == 0) ||
		    ti.size > 8 || strpbrk(mdl_c_type(pr->nargs[i].type), "([") != NULL)
			return false;
	}
	return true;
}

/*
 * The inline site: each argument evaluated into a temporary of its
 * prototype type (so that no argument's evaluation runs after another is
 * in its register), then moved into the register a call would pass it in
 * (rdi, rsi, rdx, rcx, r8, r9: where DTrace and the note read it), then the
 * site's asm statement, which uses them and clobbers nothing.
 *
 * A pointer argument travels as an integer (uintptr_t, args.c),
 * and an asm statement that is given an integer reads no memory as far as
 * gcc knows: it dropped every store to a string or struct built on the
 * stack just before the probe, and the tracer read stale bytes.  So each
 * pointer argument also gives the asm the memory it points at, an "m"
 * operand on an array of unknown size there (_USDT_READS,
 * args.c): gcc keeps every store the tracer may read, and only
 * those, where a "memory" clobber would also make it reload every value
 * after the site.  Integer arguments stay registers and nothing else.  A
 * pointer among the first four arguments goes to its register by the
 * constraint that names it ("D", "S", "d", "c"), with the same temporary
 * as the memory operand's address, so gcc needs no second copy of it in
 * another register; r8 and r9 have no such letter and keep a register
 * variable, as integer arguments do.
 */
/*
 * The run of arguments from..to-1 of one kind of list item, _USDT_R<i> or
 * _USDT_O<i>: with runs, one macro ` _USDT_<kind><from>...<to-1>`
 * (forms_x86_64_runs); else each item; nothing when the run is empty.
 */
static void
put_run(strbuf_t *out, char kind, size_t from, size_t to, bool runs)
{
	for (size_t i = from; i < to; i++) {
		if (i == from || !runs)
			sb_printf(out, " _USDT_%c", kind);
		sb_printf(out, "%zu", i);
	}
}

void
forms_x86_64_site(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const char *tag, bool runs)
{
	static const char *const letters[4] = { "D", "S", "d", "c" };
	bool reads[6], regvar = false;
	size_t run = 0;

	for (size_t i = 0; i < pr->nargc; i++)
		reads[i] = args_may_point(m, pr, i);
	sb_printf(out, " _USDT_S(%s, %zu,", tag, pr->nargc);
	args_put_temporaries(out, m, t, pr);
	sb_puts(out, pr->nargc == 0 ? " _USDT_0," : ",");
	for (size_t i = 0; i <= pr->nargc; i++)
		if (i == pr->nargc || (reads[i] && i < 4)) {
			put_run(out, 'R', run, i, runs);
			regvar |= run < i;
			run = i + 1;
		}
	sb_puts(out, regvar ? "," : " _USDT_0,");
	run = 0;
	for (size_t i = 0; i <= pr->nargc; i++) {
		if (i < pr->nargc && !reads[i])
			continue;
		put_run(out, 'O', run, i, runs);
		run = i + 1;
		if (i == pr->nargc)
			break;
		if (i < 4)
			sb_printf(out, " _USDT_M(%s, %zu)", letters[i], i);
		else
			sb_printf(out, " _USDT_O%zu _USDT_READS(__usdt_v%zu)", i, i);
	}
	sb_puts(out, pr->nargc == 0 ? " _USDT_0)\n" : ")\n");
}

/*
 * _USDT_R<i><i+1>..., _USDT_O<i><i+1>...: a run of two or more register
 * variables or operands of consecutive arguments (forms_x86_64_site), so
 * that a site's line names each run once (the header's bytes).  Every
 * architecture's, where the items are its own (empty off x86_64).
 */
void
forms_x86_64_runs(strbuf_t *out)
{
	static const char kinds[2] = { 'R', 'O' };

	for (size_t k = 0; k < 2; k++)
		for (size_t from = 0; from < 6; from++)
			for (size_t to = from + 2; to <= 6; to++) {
				sb_puts(out, "#define");
				put_run(out, kinds[k], from, to, true);
				for (size_t i = from; i < to; i++)
					sb_printf(out, " _USDT_%c%zu", kinds[k], i);
				sb_putc(out, '\n');
			}
}


/*
 * The macros of the site and of _ENABLED()'s slow path, written with w
 * (into w->out, which forms_dtrace gives every macro's text in turn):
 *
 *	_USDT_R<i>		argument i's register variable, bound to its register
 *	_USDT_SITE(P)		an inline site, its note, record and semaphore
 *	_USDT_ENABLED(s, P)	the slow path of _ENABLED(), with the unit
 */
void
forms_x86_64_macros(strbuf_t *out, asm_writer_t *w)
{
	strbuf_t *text = w->out;

	put_enabled_helpers(out);
	text->len = 0;
	site_asm(w);
	for (size_t i = 0; i < 6; i++)
		sb_printf(out, "#define _USDT_R%zu register __typeof__(__usdt_v%zu) __usdt_r%zu "
		    "__asm__(\"%s\") = __usdt_v%zu;\n", i, i, i, site_regs[i], i);
	sb_puts(out, "#define _USDT_SITE(P) _USDT_SITE_(P)\n");
	asm_put_macro(out, "_USDT_SITE_(p, n, a)", text);
	text->len = 0;
	sb_puts(text, "__extension__ ({ unsigned char __usdt_on; "
	    "_USDT_ASM(_USDT_UNIT_(p, n, a)\n");
	enabled_asm(w);
	sb_puts(text, "_USDT_ENABLED_SET : _USDT_ENABLED_OUT(__usdt_on) : "
	    "\"m\"(s)); __usdt_on; })\n");
	sb_puts(out, "#define _USDT_ENABLED(s, P) _USDT_ENABLED_(s, P)\n");
	asm_put_macro(out, "_USDT_ENABLED_(s, p, n, a)", text);
}

/*
 * The two forms of a probe's lines that are x86_64's (the others are
 * forms_dtrace.c's):
 *
 *	_USDT_S(T, k, v, r, o)	the inline site of the probe whose function
 *				is __dtrace_T, of k arguments: v declares their
 *				temporaries, r the register variables, o the
 *				asm operands (forms_x86_64_site); under
 *				_USDT_PROBE_CALLS, a call of __dtrace_T with
 *				the temporaries (_USDT_A<k>)
 *	_USDT_ON_(T, s)		_ENABLED(), s the semaphore; a long, as
 *				SystemTap's __builtin_expect(sema, 0) is, for
 *				printf("%ld") under -Werror=format
 *	_USDT_ONN(s, T, p, n)	the same given the tag T and the names p, n
 *				as strings (_USDT_ON), no _USDT_P_T: the
 *				unit takes no note arguments
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
void
forms_x86_64_forms(strbuf_t *out)
{
	sb_puts(out, "#define _USDT_M(r, i) , #r(__usdt_v##i) _USDT_READS(__usdt_v##i)\n");
	for (size_t i = 0; i < 6; i++)
		sb_printf(out, "#define _USDT_O%zu , \"r\"(__usdt_r%zu)\n", i, i);
	/* gcc's large code model takes no address as an "i" operand: no name there */
	sb_puts(out, "#ifdef __code_model_large__\n#define _USDT_FOP \"i\"(0)\n"
	    "#define _USDT_FREC \"0\"\n#else\n#define _USDT_FOP \"i\"(__func__)\n"
	    "#define _USDT_FREC \"%c0-.\"\n#endif\n");
	sb_puts(out, "#ifndef _USDT_PROBE_CALLS\n");
	sb_puts(out, "#define _USDT_S(T, k, v, r, o) (__extension__ ({ v { r "
	    "_USDT_ASM(_USDT_SITE(_USDT_P_##T) : : _USDT_FOP o); } }))\n");
	sb_puts(out, "#else\n" FORMS_SITE_AS_CALL "#endif\n");
	sb_puts(out, "#define _USDT_ON_(T, s) ((long)(__builtin_expect(s != 0, 0) && "
	    "_USDT_ENABLED(s, _USDT_P_##T)))\n");
	sb_puts(out, "#define _USDT_ONN(s, T, p, n) ((long)(__builtin_expect(s != 0, 0) && "
	    "_USDT_ENABLED_(s, p, n, \"\")))\n");
}
