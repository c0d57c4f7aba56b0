/*
 * header.c - the -h stage: the C header of probe macros (header.h).
 *
 * The header keeps the shape of dtrace's own, because build systems edit it
 * with sed and sources use its names: an include guard from the output file
 * name, an `extern "C"` guard, and per provider, for each probe in source
 * order, a one-line `#define` (its head and body on one line, the
 * header's bytes: build systems' seds edit within a line),
 *
 *	#define PROV_PROBE(a0, a1) _USDT_C(prov___probe, __dtrace_prov___probe(a0, a1))
 *	#define PROV_PROBE_ENABLED() _USDT_ON(prov, probe)
 *
 * each body one call of a generic form the header defines once
 * (forms_dtrace.c, forms_x86_64.c, ...), with a do-nothing definition for
 * compilers that are not GNU C (put_disabled_forms), so a probe is two
 * lines, not four.  Then, for GNU C, each probe's names for the generic
 * unit macros, the provider's semaphores in one declaration and, where a
 * macro calls it, the prototype in
 * the native types as written (`extern void __dtrace_prov___probe(int,
 * uintptr_t);`).  This file writes that layout and each probe's own lines;
 * what an argument travels as is args.c's, and the generic macros are
 * written by one file per family of probe forms (header_int.h).
 *
 * A Linux header is one for every architecture: what differs is chosen
 * when it is compiled, by an `#if` ladder on the architecture in the
 * generic macros (put_unit_macros): x86_64 and aarch64 keep their DTrace
 * forms (forms_x86_64.c: on x86_64 most probes are inline sites, not
 * calls; forms_aarch64.c), every other architecture gets <sys/sdt.h>'s
 * (forms_sdt.c), and a probe's own lines are the same for all.
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
 * (forms_x86_64.c).  A program built from the header alone has no
 * drti_lite and never gets that far.  On FreeBSD and illumos (DOF
 * version 2, no semaphores) it is a plain call of the is-enabled function,
 * which returns an int as their dtrace's header declares it, and the stub
 * clears the result before its tracepoint.  Everything GNU C is spelled so
 * -std=c89 -pedantic stays quiet: __extension__, __asm__, no // comments;
 * compilers that are not GNU C get the do-nothing macros.
 *
 * Every file of the stage only appends to a strbuf: an allocation failure
 * latches out->failed, which the caller checks once.
 */
#include <ctype.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "header.h"
#include "header_int.h"

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

/* ---- the generic macros, by family of architectures --------------------- */

/*
 * The forms of the probes' lines (forms_*.c) for compilers that are not
 * GNU C, or _DTRACE_VERSION 0: a probe does nothing and evaluates no
 * argument, and _ENABLED() is 0.
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
		sb_puts(out, "#define _USDT_ON(p, n) (0L)\n");
		sb_puts(out, "#define _USDT_ON_(T, s) (0L)\n");
	}
	sb_puts(out, "#endif\n\n");
}

/*
 * The macros of every probe's code, once per translation unit (see
 * forms_dtrace).  A Linux target's header is one for every architecture:
 * the choice is the compiler's, an `#if` on the architecture it compiles
 * for, x86_64 and aarch64 with their DTrace forms (forms_dtrace.c and
 * their own), every other with <sys/sdt.h>'s (forms_sdt.c); the probes'
 * own lines are the same for all (put_probe_macro).  FreeBSD and illumos
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
		/* The link anchor's relocation type (asm_link_anchor): clang's MIPS knows no BFD_ name. */
		sb_puts(out, "#if defined(__x86_64__)\n#define _USDT_RNONE \"R_X86_64_NONE\"\n"
		    "#elif defined(__aarch64__)\n#define _USDT_RNONE \"R_AARCH64_NONE\"\n"
		    "#elif defined(__mips__)\n#define _USDT_RNONE \"R_MIPS_NONE\"\n"
		    "#else\n#define _USDT_RNONE \"BFD_RELOC_NONE\"\n#endif\n");
		/* An inline site's declarations off x86_64 (put_site_decls). */
		sb_puts(out, "#define _USDT_PF(T, a) __extension__ extern void " MDL_PROBE_PREFIX "##T a; "
		    "extern void " MDL_ENABLED_PREFIX "##T(uint32_t *);\n");
		sb_puts(out, "#if defined(__x86_64__) && defined(__LP64__)\n");
		forms_dtrace(out, target_find("x86_64-linux"));
		sb_puts(out, "#elif defined(__aarch64__) && defined(__LP64__)\n");
		forms_dtrace(out, target_find("aarch64-linux"));
		sb_puts(out, "#else\n");
		forms_sdt(out);
		sb_puts(out, "#endif\n");
		/*
		 * _ENABLED() of probe n of provider p (put_enabled_macro): its
		 * semaphore, tag and names pasted and spelled of the two, so
		 * that no _USDT_P_<tag> is expanded (_USDT_ONN, forms_*.c).
		 */
		sb_puts(out, "#define _USDT_ON(p, n) _USDT_ONN(p##_##n##_semaphore, p##"
		    MDL_PROBE_SEP "##n, #p, #n)\n");
		args_put_linux_macros(out);
	} else {
		forms_dtrace(out, t);
	}
	args_put_conv_macros(out);
	sb_puts(out, "#endif\n\n");
	put_disabled_forms(out, t);
}

/*
 * `#define _USDT_P<func> "p", "n", "a"`: what the generic unit
 * macros need of one probe (put_unit_macros), names as the assembler reads
 * them and the unit's note arguments.  The names are plain assembler
 * symbols (D identifiers, '.' and '$'); one that is not would need quotes
 * inside the generic text, and is refused as a failure of the writer.
 */
static void
put_probe_tuple(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const note_table_t *nt, const mdl_provider_t *prov, const mdl_probe_t *pr,
    const probe_names_t *n)
{
	size_t plen = strlen(MDL_PROBE_PREFIX), pl = strlen(prov->name), sl = strlen(MDL_PROBE_SEP);
	strbuf_t args;

	/* The function's name is the tuple's p MDL_PROBE_SEP n (UNIT_TAG). */
	if (strncmp(n->func, MDL_PROBE_PREFIX, plen) != 0 ||
	    strncmp(n->func + plen, prov->name, pl) != 0 ||
	    strncmp(n->func + plen + pl, MDL_PROBE_SEP, sl) != 0 ||
	    strcmp(n->func + plen + pl + sl, pr->name) != 0 ||
	    !asm_is_plain_symbol(n->func) || !asm_is_plain_symbol(n->enabled) ||
	    !asm_is_plain_symbol(n->semaphore) || strchr(n->semaphore, PARAM_MARK) != NULL) {
		out->failed = true;
		return;
	}
	sb_init(&args);
	sb_printf(out, "#define _USDT_P_%s ", probe_tag(n));
	asm_put_c_string(out, prov->name, false);
	sb_puts(out, ", ");
	asm_put_c_string(out, pr->name, false);
	sb_puts(out, ", ");
	if (t->stapsdt) {
		/* Linux: x86_64's and aarch64's, of which the header takes one. */
		strbuf_t a64;

		sb_init(&a64);
		arch_x86_64.note_args(m, pr, &args);
		arch_aarch64.note_args(m, pr, &a64);
		if (a64.failed)
			args.failed = true;
		args_put_note_args(out, nt, pr->nargc, args.data != NULL ? args.data : "",
		    a64.data != NULL ? a64.data : "");
		sb_free(&a64);
	} else {
		asm_put_c_string(out, args.data != NULL ? args.data : "", true);
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
header_put_macro_params(strbuf_t *out, const mdl_probe_t *pr, const char *prefix)
{
	sb_putc(out, '(');
	for (size_t i = 0; i < pr->nargc; i++)
		sb_printf(out, "%s%s%zu", i > 0 ? ", " : "", prefix, i);
	sb_putc(out, ')');
}

/*
 * Whether the header's macros call the probe's stub for target t: every
 * probe does but x86_64's inline sites (on aarch64 _USDT_S is a call).
 */
bool
header_probe_calls_stub(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr)
{
	return t->arch->elf_machine != EM_X86_64 || !forms_x86_64_is_site(m, t, pr);
}

/*
 * The line of a probe whose arguments fit temporaries and that is no
 * inline site on x86_64 (forms_sdt_fits): _USDT_L, the call on x86_64 and
 * aarch64, an inline site where <sys/sdt.h>'s form is (forms_sdt.c).
 */
static void
put_temporaries_line(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const probe_names_t *n)
{
	bool reads = false;

	sb_printf(out, " _USDT_L(%s, %zu,", probe_tag(n), pr->nargc);
	args_put_temporaries(out, m, t, pr);
	sb_puts(out, pr->nargc == 0 ? " _USDT_0," : ",");
	for (size_t i = 0; i < pr->nargc; i++)
		if (args_may_point(m, pr, i)) {
			sb_printf(out, " _USDT_READS(__usdt_v%zu)", i);
			reads = true;
		}
	sb_printf(out, "%s, %s", reads ? "" : " _USDT_0", n->c_func);
	args_put_call(out, m, t, pr);
	sb_puts(out, ")\n");
}

/*
 * PROV_PROBE(...), one call of a generic macro (the forms_*.c files),
 * which also has the do-nothing form for compilers that are not GNU C.
 */
static void
put_probe_macro(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const note_table_t *nt, const mdl_probe_t *pr, const probe_names_t *n)
{
	sb_printf(out, "#define %s", n->macro);
	header_put_macro_params(out, pr, ARG_PREFIX);
	if (forms_x86_64_is_site(m, t, pr)) {
		forms_x86_64_site(out, m, t, pr, probe_tag(n), nt != NULL);
	} else if (t->stapsdt && forms_sdt_fits(m, pr)) {
		put_temporaries_line(out, m, t, pr, n);
	} else {
		/* The call, beside the asm that gives this file the probe's unit. */
		sb_printf(out, " _USDT_C(%s, %s", probe_tag(n), n->c_func);
		args_put_call(out, m, t, pr);
		sb_puts(out, ")\n");
	}
}

/*
 * Whether the probe's tag and semaphore are what _USDT_ON(p, n) pastes of
 * the provider's and the probe's names (put_unit_macros), each then
 * written once: every name that is a C identifier.
 */
static bool
pastes_names(const mdl_provider_t *prov, const mdl_probe_t *pr, const probe_names_t *n)
{
	const char *tag = probe_tag(n);
	size_t pl = strlen(prov->name), sl = strlen(MDL_PROBE_SEP);

	/* n->semaphore is prov _ probe _semaphore (mdl_semaphore_name) */
	return strcmp(n->semaphore, n->c_semaphore) == 0 &&
	    strncmp(tag, prov->name, pl) == 0 && strncmp(tag + pl, MDL_PROBE_SEP, sl) == 0 &&
	    strcmp(tag + pl + sl, pr->name) == 0;
}

/* PROV_PROBE_ENABLED(), as PROV_PROBE(...) one call of a generic macro. */
static void
put_enabled_macro(strbuf_t *out, const target_t *t, const mdl_provider_t *prov,
    const mdl_probe_t *pr, const probe_names_t *n)
{
	sb_printf(out, "#define %s_ENABLED() ", n->macro);
	if (enabled_returns_int(t)) {
		sb_printf(out, "_USDT_E((_USDT_CALL(_USDT_P_%s), %s()))\n", probe_tag(n),
		    n->c_enabled);
		return;
	}
	if (!t->stapsdt) {
		sb_printf(out, "_USDT_E(__extension__ ({ uint32_t __usdt_e = 0; "
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
	 * first read in a register for it (_USDT_ON_: forms_x86_64.c,
	 * forms_aarch64.c); the generic arch has the fast path alone.
	 * aarch64's names the is-enabled function by the tag, which its C name
	 * always is.
	 */
	if (strncmp(n->c_enabled, MDL_ENABLED_PREFIX, strlen(MDL_ENABLED_PREFIX)) != 0 ||
	    strcmp(n->c_enabled + strlen(MDL_ENABLED_PREFIX), probe_tag(n)) != 0)
		out->failed = true;
	if (pastes_names(prov, pr, n))
		sb_printf(out, "_USDT_ON(%s, %s)\n", prov->name, pr->name);
	else
		sb_printf(out, "_USDT_ON_(%s, %s)\n", probe_tag(n), n->c_semaphore);
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

/* A prototype's parameter types, comma-separated (`void` for none). */
static void
put_arg_types(strbuf_t *out, const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr)
{
	if (pr->nargc == 0)
		sb_puts(out, "void");
	for (size_t i = 0; i < pr->nargc; i++) {
		sb_puts(out, i > 0 ? ", " : "");
		args_put_type(out, m, t, pr, i);
	}
}

/*
 * The prototypes.  Pointer arguments (pointers, arrays, D's string) are
 * declared uintptr_t, and the probe macro casts them (args_put_call): a
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
	put_arg_types(out, m, t, pr);
	sb_putc(out, ')');
	put_asm_label(out, n->c_func, n->func);
	sb_puts(out, ";\n");
}

/*
 * The is-enabled function's declaration.  x86_64 Linux calls it from asm
 * alone, so a probe fired at inline sites has it in the block of what
 * other architectures need (put_provider): one declaration less a probe
 * for the compiler to read.
 */
static void
put_enabled_decl(strbuf_t *out, const target_t *t, const probe_names_t *n)
{
	if (enabled_returns_int(t))
		sb_printf(out, "extern int %s(void)", n->c_enabled);
	else
		sb_printf(out, "extern void %s(uint32_t *)", n->c_enabled);
	put_asm_label(out, n->c_enabled, n->enabled);
	sb_puts(out, ";\n");
}

/*
 * The semaphores of a provider's probes, in one declaration, its keywords
 * once (the header's bytes).  Not volatile, as SystemTap's header declares
 * them: gcc then tests one in memory (cmpw $0,sem; jne), where a volatile
 * one is loaded, then tested.  As with <sys/sdt.h>, a loop that calls
 * nothing may read it once.
 */
static void
put_semaphores(strbuf_t *out, const mdl_provider_t *prov, const probe_names_t *names)
{
	sb_puts(out, "extern unsigned short");
	for (size_t i = 0; i < prov->nprobes; i++) {
		sb_printf(out, "%s%s", i == 0 ? " " : ",\n", names[i].c_semaphore);
		put_asm_label(out, names[i].c_semaphore, names[i].semaphore);
	}
	sb_puts(out, ";\n");
}

/*
 * An inline site's prototype and is-enabled function's declaration, for
 * the architectures that call them (put_provider): `_USDT_PF(tag, (types))`
 * (put_unit_macros), the names made from the tag, or each written out
 * when a C name is not its symbol's.
 */
static void
put_site_decls(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const mdl_probe_t *pr, const probe_names_t *n)
{
	if (strcmp(n->c_func, n->func) != 0 || strcmp(n->c_enabled, n->enabled) != 0 ||
	    enabled_returns_int(t)) {
		put_probe_prototype(out, m, t, pr, n);
		put_enabled_decl(out, t, n);
		return;
	}
	sb_printf(out, "_USDT_PF(%s, (", probe_tag(n));
	put_arg_types(out, m, t, pr);
	sb_puts(out, "))\n");
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
 * _USDT_PROBE_CALLS or off x86_64, and its is-enabled function's only
 * off x86_64: those are in one block after the guards.
 */
static void
put_provider(strbuf_t *out, const mdl_model_t *m, const target_t *t,
    const note_table_t *nt, const mdl_provider_t *prov, const probe_names_t *names)
{
	bool calls_block = false;

	sb_printf(out, "/* provider %s */\n", prov->name);
	if (prov->nprobes == 0) {
		sb_puts(out, "\n");
		return;
	}
	for (size_t i = 0; i < prov->nprobes; i++) {
		put_probe_macro(out, m, t, nt, prov->probes[i], &names[i]);
		put_enabled_macro(out, t, prov, prov->probes[i], &names[i]);
	}
	sb_puts(out, "\n#if _DTRACE_VERSION && defined(__GNUC__)\n");
	sb_puts(out, "#pragma GCC visibility push(hidden)\n");
	for (size_t i = 0; i < prov->nprobes; i++) {
		const mdl_probe_t *pr = prov->probes[i];
		bool site = forms_x86_64_is_site(m, t, pr);

		calls_block |= site;
		if (!site)
			sb_printf(out, "#ifndef _USDT_P_%s\n", probe_tag(&names[i]));
		put_probe_tuple(out, m, t, nt, prov, pr, &names[i]);
		if (!site) {
			put_probe_prototype(out, m, t, pr, &names[i]);
			put_enabled_decl(out, t, &names[i]);
			sb_puts(out, "#endif\n");
		}
	}
	if (t->stapsdt)
		put_semaphores(out, prov, names);
	if (calls_block) {
		sb_puts(out, "#if defined(_USDT_PROBE_CALLS) || !defined(__x86_64__)\n");
		for (size_t i = 0; i < prov->nprobes; i++)
			if (forms_x86_64_is_site(m, t, prov->probes[i]))
				put_site_decls(out, m, t, prov->probes[i], &names[i]);
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

/* Every provider's text, compact (nt: _USDT_N, runs) or not (NULL). */
static void
put_providers(strbuf_t *out, const mdl_model_t *m, const target_t *t, const note_table_t *nt)
{
	for (size_t i = 0; i < m->nproviders && !out->failed; i++) {
		const mdl_provider_t *prov = m->providers[i];
		probe_names_t *names = provider_names(prov);

		if (names == NULL) {
			out->failed = true;
			return;
		}
		put_provider(out, m, t, nt, prov, names);
		provider_names_free(names, prov->nprobes);
	}
}

/*
 * The macros the compact forms need, once per translation unit: each
 * architecture's pieces of note arguments, the lists that paste them, the
 * runs of register variables and operands (args.c, forms_x86_64.c).
 */
static void
put_compact_macros(strbuf_t *out, const note_table_t *nt)
{
	sb_puts(out, "#ifndef _USDT_COMPACT_\n#define _USDT_COMPACT_ 1\n");
	sb_puts(out, "#if defined(__x86_64__) && defined(__LP64__)\n");
	args_put_note_pieces(out, nt, 0);
	sb_puts(out, "#elif defined(__aarch64__) && defined(__LP64__)\n");
	args_put_note_pieces(out, nt, 1);
	sb_puts(out, "#endif\n");
	args_put_note_lists(out);
	forms_x86_64_runs(out);
	sb_puts(out, "#endif\n\n");
}

/*
 * The compact forms are taken when the probes hold COMPACT_MIN_ARGS
 * arguments or more: each argument coded saves about ten bytes (8@%%rdi
 * and 8@x0 against one code) and their macros are about 9 KB, so a header
 * of fewer (PostgreSQL's, CPython's) is spelled out as before and reads no
 * table, and a large one (hotspot's, 1,000 generated) reads the table once
 * and its probes' lines shorter.  Counted, not measured: writing the
 * providers once more each way to compare their bytes was 2.8x -h's
 * instructions for PostgreSQL's probes and 2.5x at 10,000 probes.  The
 * worst case, arguments no code spells (structs, chars), pays the table
 * once in a header of 1,024 arguments, 100 KB or more.
 */
#define COMPACT_MIN_ARGS	1024

static bool
compact_pays(const mdl_model_t *m, const target_t *t)
{
	size_t args = 0;

	if (!t->stapsdt)
		return false;
	for (size_t i = 0; i < m->nproviders; i++) {
		const mdl_provider_t *prov = m->providers[i];

		for (size_t j = 0; j < prov->nprobes && args < COMPACT_MIN_ARGS; j++)
			args += prov->probes[j]->nargc;
	}
	return args >= COMPACT_MIN_ARGS;
}

void
header_write(const mdl_model_t *m, const target_t *t,
    const char *guard_file, strbuf_t *out)
{
	note_table_t *nt = NULL;

	put_prologue(out, guard_file);
	put_tag_declarations(out, m);
	if (mdl_has_probes(m))
		put_unit_macros(out, t);
	if (compact_pays(m, t)) {
		/* The table only where it is used: making it is 3.7 M instructions. */
		if ((nt = calloc(1, sizeof(*nt))) == NULL) {
			out->failed = true;
			return;
		}
		args_note_table_init(nt);
		put_compact_macros(out, nt);
	}
	put_providers(out, m, t, nt);
	free(nt);
	header_put_epilogue(out, guard_file);
}
