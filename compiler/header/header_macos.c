/*
 * header_macos.c - the -h stage for macOS targets (header_macos.h).
 *
 * On macOS the probes are the linker's business, and the header is the
 * contract with it.  macOS dtrace -h makes each probe macro call an
 * undefined function whose name carries everything the linker needs:
 *
 *	__dtrace_probe$PROV$NAME$v1$<hex of arg type>$<hex of arg type>...
 *	__dtrace_isenabled$PROV$NAME$v1		returns int, 0 when disabled
 *
 * (NAME as declared, with "__"; each argument type's C spelling in
 * lower-case hex, "int" -> 696e74), and around each call it references
 * two more symbols per provider that no code defines:
 *
 *	___dtrace_stability$PROV$v1$N_D_C_N_D_C_N_D_C_N_D_C_N_D_C
 *		the provider's five attributes (provider, module, function,
 *		name, args), each name/data stability and class in hex
 *	___dtrace_typedefs$PROV$v2[$<hex of typedef name>...]
 *		the typedefs of the definition file the arguments use, with
 *		pointers and typedefs D predefines left out
 *
 * Apple's ld64 turns each call into nops (an is-enabled call into
 * `xorl %eax,%eax` / `mov x0, #0`) and rebuilds the provider from these
 * names to write its DOF (see macho_objgen.c).  These are the facts of
 * Apple's libdtrace dt_ld.m and ld64's dtrace pass; the layout of the text
 * follows headers that macOS dtrace writes:
 *
 *	#define PROV_STABILITY "___dtrace_stability$..."
 *	#define PROV_TYPEDEFS "___dtrace_typedefs$..."
 *	#if !defined(DTRACE_PROBES_DISABLED) || !DTRACE_PROBES_DISABLED
 *	#define PROV_PROBE(arg0) \
 *	do { \
 *		__asm__ volatile(".reference " PROV_TYPEDEFS); \
 *		__dtrace_probe$prov$probe$v1$696e74(arg0); \
 *		__asm__ volatile(".reference " PROV_STABILITY); \
 *	} while (0)
 *	#define PROV_PROBE_ENABLED() \
 *		({ int _r = __dtrace_isenabled$prov$probe$v1(); \
 *			__asm__ volatile(""); \
 *			_r; })
 *	extern void __dtrace_probe$prov$probe$v1$696e74(int);
 *	extern int __dtrace_isenabled$prov$probe$v1(void);
 *	#else
 *	... macros that do nothing ...
 *	#endif
 *
 * Where we differ: the header marks itself a system header, so '$' in
 * identifiers and the statement expression stay quiet under -pedantic
 * (and the expression carries __extension__ as well); <unistd.h>, which
 * macOS dtrace includes for the types probes use, is included only where
 * it exists, else the compiler's own <stddef.h> and <stdint.h> (a build
 * without an SDK); and the probe order is the source order.
 *
 * The header carries no code.  With Apple's toolchain that is all a
 * program needs; with a linker that does not know these names (ld64.lld
 * of LLVM 14) the program links the -G object, which defines each
 * function as a stub in the unit of macho_objgen.c and holds the DOF.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "header_int.h"
#include "header_macos.h"

#define PROBES_ENABLED_TEST \
	"!defined(DTRACE_PROBES_DISABLED) || !DTRACE_PROBES_DISABLED"

/* ---- names (target.c: the probe functions' names) ------------------------ */

/* ___dtrace_stability$PROV$v1$ and the fifteen attribute numbers. */
static void
put_stability_symbol(strbuf_t *out, const mdl_provider_t *p)
{
	sb_printf(out, "___dtrace_stability$%s$v1$", p->name);
	for (int i = 0; i < MDL_ATTR_NPARTS; i++)
		sb_printf(out, "%s%x_%x_%x", i > 0 ? "_" : "", p->attr[i].name,
		    p->attr[i].data, p->attr[i].dclass);
}

/*
 * The typedef an argument type names once its pointers are taken off
 * ("foo_t *" -> "foo_t"), as a copy; NULL when it names none of the
 * definition file's typedefs (or on allocation failure).
 */
static char *
argument_typedef(const mdl_model_t *m, const char *type)
{
	size_t len = strlen(type);
	char *base;

	while (len > 0 && (type[len - 1] == '*' || type[len - 1] == ' '))
		len--;
	if ((base = strndup(type, len)) == NULL)
		return NULL;
	if (mdl_find_typedef(m, base) == NULL) {
		free(base);
		return NULL;
	}
	return base;
}

static bool
seen_before(const mdl_provider_t *p, size_t probe, size_t arg, const char *base,
    const mdl_model_t *m)
{
	for (size_t i = 0; i <= probe; i++) {
		const mdl_probe_t *pr = p->probes[i];

		for (size_t j = 0; j < (i == probe ? arg : pr->nargc); j++) {
			char *other = argument_typedef(m, pr->nargs[j].type);
			bool same = other != NULL && strcmp(other, base) == 0;

			free(other);
			if (same)
				return true;
		}
	}
	return false;
}

/* ___dtrace_typedefs$PROV$v2, then each typedef the arguments use, once. */
static void
put_typedefs_symbol(strbuf_t *out, const mdl_model_t *m, const mdl_provider_t *p)
{
	sb_printf(out, "___dtrace_typedefs$%s$v2", p->name);
	for (size_t i = 0; i < p->nprobes; i++) {
		const mdl_probe_t *pr = p->probes[i];

		for (size_t j = 0; j < pr->nargc; j++) {
			char *base = argument_typedef(m, pr->nargs[j].type);

			if (base != NULL && !seen_before(p, i, j, base, m)) {
				sb_putc(out, '$');
				target_macos_put_hex(out, base);
			}
			free(base);
		}
	}
}

/* ---- the text ------------------------------------------------------------ */

static void
put_probe_macros(strbuf_t *out, const char *macro, const char *prov_macro,
    const mdl_probe_t *pr, const char *func, const char *enabled)
{
	sb_printf(out, "#define\t%s", macro);
	header_put_macro_params(out, pr, "arg");
	sb_puts(out, " \\\ndo { \\\n");
	sb_printf(out, "\t__asm__ volatile(\".reference \" %s_TYPEDEFS); \\\n", prov_macro);
	sb_printf(out, "\t%s", func);
	header_put_macro_params(out, pr, "arg");
	sb_puts(out, "; \\\n");
	sb_printf(out, "\t__asm__ volatile(\".reference \" %s_STABILITY); \\\n", prov_macro);
	sb_puts(out, "} while (0)\n");
	sb_printf(out, "#define\t%s_ENABLED() \\\n", macro);
	sb_printf(out, "\t__extension__ ({ int _r = %s(); \\\n", enabled);
	sb_puts(out, "\t\t__asm__ volatile(\"\"); \\\n\t\t_r; })\n");
}

static void
put_probe_decls(strbuf_t *out, const mdl_probe_t *pr, const char *func,
    const char *enabled)
{
	sb_printf(out, "extern void %s(", func);
	if (pr->nargc == 0)
		sb_puts(out, "void");
	for (size_t i = 0; i < pr->nargc; i++)
		sb_printf(out, "%s%s", i > 0 ? ", " : "", mdl_c_type(pr->nargs[i].type));
	sb_puts(out, ");\n");
	sb_printf(out, "extern int %s(void);\n", enabled);
}

static void
put_disabled_macros(strbuf_t *out, const char *macro, const mdl_probe_t *pr)
{
	sb_printf(out, "#define\t%s", macro);
	header_put_macro_params(out, pr, "arg");
	sb_puts(out, " \\\ndo { \\\n\t} while (0)\n");
	sb_printf(out, "#define\t%s_ENABLED() (0)\n", macro);
}

/* The upper-case name of the provider's macros ("my-prov" -> MY_PROV). */
static char *
provider_macro(const char *prov)
{
	char *out = strdup(prov);

	for (char *o = out; o != NULL && *o != '\0'; o++)
		*o = isalnum((unsigned char)*o) ? (char)toupper((unsigned char)*o) : '_';
	return out;
}

/* Every name of one probe; all NULL-checked by the caller. */
typedef struct probe_text {
	char *macro, *func, *enabled;
} probe_text_t;

static void
probe_text_free(probe_text_t *t, size_t n)
{
	for (size_t i = 0; t != NULL && i < n; i++) {
		free(t[i].macro);
		free(t[i].func);
		free(t[i].enabled);
	}
	free(t);
}

static probe_text_t *
probe_texts(const mdl_provider_t *p)
{
	probe_text_t *t = calloc(p->nprobes + 1, sizeof(*t));

	for (size_t i = 0; t != NULL && i < p->nprobes; i++) {
		t[i].macro = mdl_macro_name(p->name, p->probes[i]->dof_name);
		t[i].func = target_macos_probe_func(p, p->probes[i]);
		t[i].enabled = target_macos_enabled_func(p, p->probes[i]);
		if (t[i].macro == NULL || t[i].func == NULL || t[i].enabled == NULL) {
			probe_text_free(t, i + 1);
			return NULL;
		}
	}
	return t;
}

static int
put_provider(strbuf_t *out, const mdl_model_t *m, const mdl_provider_t *p)
{
	char *pm = provider_macro(p->name);
	probe_text_t *t = probe_texts(p);

	if (pm == NULL || t == NULL) {
		free(pm);
		probe_text_free(t, p->nprobes);
		return -1;
	}
	sb_printf(out, "/* provider %s */\n\n#define %s_STABILITY \"", p->name, pm);
	put_stability_symbol(out, p);
	sb_printf(out, "\"\n\n#define %s_TYPEDEFS \"", pm);
	put_typedefs_symbol(out, m, p);
	sb_puts(out, "\"\n\n#if " PROBES_ENABLED_TEST "\n\n");
	for (size_t i = 0; i < p->nprobes; i++)
		put_probe_macros(out, t[i].macro, pm, p->probes[i], t[i].func, t[i].enabled);
	sb_puts(out, "\n");
	for (size_t i = 0; i < p->nprobes; i++)
		put_probe_decls(out, p->probes[i], t[i].func, t[i].enabled);
	sb_puts(out, "\n#else\n\n");
	for (size_t i = 0; i < p->nprobes; i++)
		put_disabled_macros(out, t[i].macro, p->probes[i]);
	sb_puts(out, "\n#endif /* " PROBES_ENABLED_TEST " */\n\n");
	free(pm);
	probe_text_free(t, p->nprobes);
	return 0;
}

static void
put_prologue(strbuf_t *out, const char *guard_file)
{
	sb_puts(out, "/*\n * Generated by usdtc -h.  Do not edit.\n */\n\n#ifndef\t");
	header_put_guard_name(out, guard_file);
	sb_puts(out, "\n#define\t");
	header_put_guard_name(out, guard_file);
	sb_puts(out, "\n\n"
	    "/* '$' in names and ({ }) are GNU C: quiet under -pedantic. */\n"
	    "#ifdef __GNUC__\n#pragma GCC system_header\n#endif\n\n"
	    "#if " PROBES_ENABLED_TEST "\n"
	    "/* As macOS dtrace's: <unistd.h> for size_t, pid_t, ...; without an SDK,\n"
	    " * the compiler's own headers. */\n"
	    "#if defined(__has_include)\n#if __has_include(<unistd.h>)\n"
	    "#include <unistd.h>\n#else\n#include <stddef.h>\n#include <stdint.h>\n#endif\n"
	    "#else\n#include <unistd.h>\n#endif\n"
	    "#endif\n\n"
	    "#ifdef\t__cplusplus\nextern \"C\" {\n#endif\n\n");
}

void
header_macos_write(const mdl_model_t *m, const target_t *t,
    const char *guard_file, strbuf_t *out)
{
	(void)t;
	put_prologue(out, guard_file);
	for (size_t i = 0; i < m->nproviders; i++) {
		if (put_provider(out, m, m->providers[i]) != 0) {
			out->failed = true;
			return;
		}
	}
	header_put_epilogue(out, guard_file);
}
