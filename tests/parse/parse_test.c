/*
 * parse_test.c - the front end (lexer.l, parser.y, parse*.c, diag.c, cpp.c)
 * against snippets of real provider files: what lands in the model, and
 * which diagnostic (tag, line, column) each bad input gets.
 *
 * Prints one `ok - NAME` or `FAIL - NAME: why` line per test (tests/testlib.h)
 * and exits non-zero if any failed.  Struct layouts are checked
 * against the compiler's own sizeof of the same text, so a layout rule we
 * get wrong cannot hide.  Built and run by tests/parse/run, with sanitizers
 * when the compiler has them, which also makes every parse a leak check.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "model.h"
#include "parse.h"
#include "source.h"

#include "../testlib.h"

#define EXPECT(cond, ...) do { if (!(cond)) test_failf(__VA_ARGS__); } while (0)

static void
expect_str_at(const char *file, int line, const char *what, const char *got, const char *want)
{
	if (got == NULL || strcmp(got, want) != 0)
		testlib_failf(file, line, "%s: got '%s', want '%s'", what,
		    got != NULL ? got : "(null)", want);
}
#define expect_str(what, got, want) expect_str_at(__FILE__, __LINE__, what, got, want)

static void
expect_int_at(const char *file, int line, const char *what, long got, long want)
{
	if (got != want)
		testlib_failf(file, line, "%s: got %ld, want %ld", what, got, want);
}
#define expect_int(what, got, want) expect_int_at(__FILE__, __LINE__, what, got, want)

/* ---- parsing with captured diagnostics ----------------------------------- */

static char *diags;	/* what the last parse printed */
static size_t diags_len;

/* Parse text (as file name) into m; returns the error count. */
static int
parse_into(mdl_model_t *m, const char *name, const char *text)
{
	FILE *f;
	int errors;

	free(diags);
	diags = NULL;
	f = open_memstream(&diags, &diags_len);
	diag_set_output(f);
	errors = parse_buffer(m, name, text, strlen(text));
	diag_set_output(NULL);
	fclose(f);
	return errors;
}

static int
parse_file_into(mdl_model_t *m, const char *path, const parse_opts_t *o)
{
	FILE *f;
	int errors;

	free(diags);
	diags = NULL;
	f = open_memstream(&diags, &diags_len);
	diag_set_output(f);
	errors = parse_file(m, path, o);
	diag_set_output(NULL);
	fclose(f);
	return errors;
}

/* A model from text that must parse cleanly. */
static mdl_model_t *
good(const char *text)
{
	mdl_model_t *m = mdl_new();
	int errors = parse_into(m, "t.d", text);

	EXPECT(errors == 0, "unexpected errors (%d): %s", errors, diags);
	return m;
}

/* Whether a diagnostic line starts with prefix and carries [tag]. */
static bool
has_diag(const char *prefix, const char *tag)
{
	char want[64];
	const char *p = diags;

	snprintf(want, sizeof(want), "[%s]", tag);
	while (p != NULL && *p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

		if (strncmp(p, prefix, strlen(prefix)) == 0 &&
		    memmem(p, len, want, strlen(want)) != NULL)
			return true;
		p = nl != NULL ? nl + 1 : NULL;
	}
	return false;
}

/*
 * text must fail with an error tagged tag at line:col of t.d, shown with
 * its source line and a caret.
 */
static void
bad(const char *text, const char *tag, int line, int col)
{
	mdl_model_t *m = mdl_new();
	int errors = parse_into(m, "t.d", text);
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "t.d:%d:%d: error: ", line, col);
	EXPECT(errors > 0, "no error for a bad input (want %s)", tag);
	EXPECT(has_diag(prefix, tag), "want '%s... [%s]', got: %s", prefix, tag, diags);
	EXPECT(strstr(diags, "\n") != NULL && strstr(diags, "^\n") != NULL,
	    "no caret line in: %s", diags);
	mdl_free(m);
}

/* Accepted, with a warning at line:col carrying tag (and a caret). */
static void
warned(const char *text, const char *tag, int line, int col)
{
	mdl_model_t *m = mdl_new();
	int errors = parse_into(m, "t.d", text);
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "t.d:%d:%d: warning: ", line, col);
	EXPECT(errors == 0, "errors for an input to accept with a warning: %s", diags);
	EXPECT(has_diag(prefix, tag), "want '%s... [%s]', got: %s", prefix, tag, diags);
	EXPECT(strstr(diags, "^\n") != NULL, "no caret line in: %s", diags);
	mdl_free(m);
}

/*
 * Like bad(), at the first occurrence of needle in text, or just after it:
 * columns counted from the text, not by hand.
 */
static void
bad_at(const char *text, const char *tag, const char *needle, bool after)
{
	const char *hit = strstr(text, needle), *p;
	int line = 1, col = 1;

	if (hit == NULL) {
		test_failf("test bug: '%s' not in the text", needle);
		return;
	}
	if (after)
		hit += strlen(needle);
	for (p = text; p < hit; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	bad(text, tag, line, col);
}

static mdl_probe_t *
probe_of(mdl_model_t *m, const char *prov, const char *name)
{
	mdl_provider_t *p = mdl_find_provider(m, prov);
	mdl_probe_t *pr = p != NULL ? mdl_provider_find_probe(p, name) : NULL;

	if (pr == NULL)
		test_failf("no probe %s:%s", prov, name);
	return pr;
}

/* "int|char *" for the native (or translated) argument types. */
static const char *
types(const mdl_probe_t *pr, bool xlated)
{
	static char buf[4096];
	const mdl_arg_t *a = xlated ? pr->xargs : pr->nargs;
	size_t n = xlated ? pr->xargc : pr->nargc, len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
		    i ? "|" : "", a[i].type);
	return buf;
}

/* "x|-|y": parameter names, '-' for none. */
static const char *
names(const mdl_probe_t *pr)
{
	static char buf[1024];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pr->nargc && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
		    i ? "|" : "", pr->nargs[i].name ? pr->nargs[i].name : "-");
	return buf;
}

static const char *
argmap(const mdl_probe_t *pr)
{
	static char buf[1024];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pr->xargc && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u",
		    i ? "," : "", pr->argmap[i]);
	return buf;
}

/* The probe's native args must be exactly want_types (and names). */
static void
expect_probe(mdl_model_t *m, const char *prov, const char *name,
    const char *want_types, const char *want_names)
{
	mdl_probe_t *pr = probe_of(m, prov, name);
	char what[160];

	if (pr == NULL)
		return;
	snprintf(what, sizeof(what), "%s:%s types", prov, name);
	expect_str(what, types(pr, false), want_types);
	if (want_names != NULL) {
		snprintf(what, sizeof(what), "%s:%s names", prov, name);
		expect_str(what, names(pr), want_names);
	}
}

static void
expect_typeinfo(mdl_model_t *m, const char *type, unsigned size, bool is_signed,
    enum mdl_typeclass tc)
{
	mdl_typeinfo_t ti = mdl_type_info(m, type);

	EXPECT(ti.known, "type '%s' unknown", type);
	EXPECT(ti.size == size, "type '%s': size %u, want %u", type, ti.size, size);
	EXPECT(ti.is_signed == is_signed, "type '%s': signed %d, want %d", type,
	    ti.is_signed, is_signed);
	EXPECT(ti.tclass == tc, "type '%s': class %d, want %d", type, ti.tclass, tc);
}

/* ---- providers and probes ------------------------------------------------- */

static void
test_basic(void)
{
	mdl_model_t *m;
	mdl_probe_t *pr;

	test_begin("provider, probes, names and locations");
	m = good("provider http {\n"
	    "\tprobe request__start(int fd, char *uri);\n"
	    "\tprobe request__done(int);\n"
	    "};\n");
	expect_int("providers", (long)m->nproviders, 1);
	expect_str("provider", m->providers[0]->name, "http");
	expect_int("probes", (long)m->providers[0]->nprobes, 2);
	expect_str("order", m->providers[0]->probes[0]->name, "request__start");
	if ((pr = probe_of(m, "http", "request__start")) != NULL) {
		expect_str("dof name", pr->dof_name, "request-start");
		expect_int("line", pr->loc.line, 2);
		expect_int("col", pr->loc.col, 8);
		expect_str("file", pr->loc.file, "t.d");
		expect_int("arg 1 col", mdl_arg_loc(pr, &pr->nargs[1]).col, 31);
	}
	expect_probe(m, "http", "request__start", "int|char *", "fd|uri");
	expect_probe(m, "http", "request__done", "int", "-");
	if ((pr = probe_of(m, "http", "request__done")) != NULL) {
		expect_str("copied xargs", types(pr, true), "int");
		expect_str("identity map", argmap(pr), "0");
		EXPECT(!pr->translated, "not translated");
	}
	EXPECT(m->providers[0]->loc.line == 1 && m->providers[0]->loc.col == 10,
	    "provider loc %d:%d", m->providers[0]->loc.line, m->providers[0]->loc.col);
	mdl_free(m);
	test_end();
}

static void
test_provider_forms(void)
{
	mdl_model_t *m;

	test_begin("empty, mixed-case and repeated providers");
	m = good("provider Empty {};\n"
	    "provider MixedCase_x { probe a(); };\n"
	    "provider MixedCase_x { probe b(int); };\n"
	    "provider MixedCase_x { probe a(); };\n");
	expect_int("providers", (long)m->nproviders, 2);
	expect_int("empty probes", (long)mdl_find_provider(m, "Empty")->nprobes, 0);
	expect_int("gained probes", (long)mdl_find_provider(m, "MixedCase_x")->nprobes, 2);
	/* A later file adds to the same provider. */
	EXPECT(parse_into(m, "u.d", "provider Empty { probe late(long); };") == 0,
	    "second file: %s", diags);
	expect_probe(m, "Empty", "late", "long", "-");
	expect_str("second file name", probe_of(m, "Empty", "late")->loc.file, "u.d");
	mdl_free(m);
	test_end();
}

static void
test_probe_names(void)
{
	mdl_model_t *m;

	test_begin("probe names: __, _, C and library words, space before (");
	m = good("provider p {\n"
	    "  probe a__b__c();\n"
	    "  probe plain_name();\n"
	    "  probe new(int); probe free(void *p); probe delete (char *);\n"
	    "  probe int(); probe struct(); probe probe(); probe provider();\n"
	    "  probe trailing__();\n"
	    "};\n");
	expect_str("dof a__b__c", probe_of(m, "p", "a__b__c")->dof_name, "a-b-c");
	expect_str("dof plain_name", probe_of(m, "p", "plain_name")->dof_name, "plain_name");
	expect_str("dof trailing__", probe_of(m, "p", "trailing__")->dof_name, "trailing-");
	expect_probe(m, "p", "new", "int", NULL);
	expect_probe(m, "p", "free", "void *", "p");
	expect_probe(m, "p", "delete", "char *", NULL);
	probe_of(m, "p", "int");
	probe_of(m, "p", "struct");
	probe_of(m, "p", "probe");
	probe_of(m, "p", "provider");
	mdl_free(m);
	test_end();
}

static void
test_arg_lists(void)
{
	mdl_model_t *m;

	test_begin("(), (void), named, unnamed and mixed parameters");
	m = good("provider p {\n"
	    "probe e();\n"
	    "probe v(void);\n"
	    "probe v2( void );\n"
	    "probe named(int a, long b);\n"
	    "probe unnamed(int, long);\n"
	    "probe mixed(int a, char *, long c);\n"
	    "probe vp(void *);\n"
	    "};");
	expect_probe(m, "p", "e", "", "");
	expect_probe(m, "p", "v", "", "");
	expect_probe(m, "p", "v2", "", "");
	expect_probe(m, "p", "named", "int|long", "a|b");
	expect_probe(m, "p", "unnamed", "int|long", "-|-");
	expect_probe(m, "p", "mixed", "int|char *|long", "a|-|c");
	expect_probe(m, "p", "vp", "void *", "-");
	mdl_free(m);
	test_end();
}

/* A probe of n int arguments. */
static char *
many_args(int n)
{
	size_t cap = (size_t)n * 8 + 64, len;
	char *s = malloc(cap);

	len = (size_t)snprintf(s, cap, "provider p {\nprobe many(");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%sint", i ? ", " : "");
	snprintf(s + len, cap - len, ");\n};\n");
	return s;
}

static void
test_arg_limit(void)
{
	mdl_model_t *m;
	char *s;

	test_begin("255 arguments, and one more");
	s = many_args(255);
	m = good(s);
	EXPECT(probe_of(m, "p", "many") != NULL && probe_of(m, "p", "many")->nargc == 255,
	    "255 args kept");
	mdl_free(m);
	free(s);
	s = many_args(256);
	/* The 256th "int" starts at column 12 + 255 * 5. */
	bad(s, "D_PROV_PRARGLEN", 2, 12 + 255 * 5);
	free(s);
	test_end();
}

/* ---- types ------------------------------------------------------------------ */

struct spelling {
	const char *written;	/* in the file */
	const char *type;	/* in the model */
	unsigned size;		/* 0: do not check the type's size */
	bool is_signed;
};

static const struct spelling integer_spellings[] = {
	{ "unsigned", "unsigned", 4, false },
	{ "signed", "signed", 4, true },
	{ "int", "int", 4, true },
	{ "unsigned int", "unsigned int", 4, false },
	{ "char", "char", 1, true },
	{ "signed char", "signed char", 1, true },
	{ "unsigned char", "unsigned char", 1, false },
	{ "short", "short", 2, true },
	{ "short int", "short int", 2, true },
	{ "unsigned short", "unsigned short", 2, false },
	{ "unsigned short int", "unsigned short int", 2, false },
	{ "long", "long", 8, true },
	{ "long int", "long int", 8, true },
	{ "unsigned long", "unsigned long", 8, false },
	{ "unsigned long int", "unsigned long int", 8, false },
	{ "long unsigned int", "long unsigned int", 0, false },
	{ "long long", "long long", 8, true },
	{ "long long int", "long long int", 8, true },
	{ "unsigned long long", "unsigned long long", 8, false },
	{ "signed long long int", "signed long long int", 8, true },
	{ "bool", "bool", 1, false },
	{ "_Bool", "_Bool", 1, false },
	{ "int8_t", "int8_t", 1, true },
	{ "int16_t", "int16_t", 2, true },
	{ "int32_t", "int32_t", 4, true },
	{ "int64_t", "int64_t", 8, true },
	{ "uint8_t", "uint8_t", 1, false },
	{ "uint16_t", "uint16_t", 2, false },
	{ "uint32_t", "uint32_t", 4, false },
	{ "uint64_t", "uint64_t", 8, false },
	{ "intptr_t", "intptr_t", 8, true },
	{ "uintptr_t", "uintptr_t", 8, false },
	{ "uintmax_t", "uintmax_t", 8, false },
	{ "size_t", "size_t", 8, false },
	{ "ssize_t", "ssize_t", 8, true },
	{ "pid_t", "pid_t", 4, true },
	{ "zoneid_t", "zoneid_t", 4, true },
	{ "const int", "const int", 4, true },
	{ "int const", "int const", 4, true },
	{ "volatile unsigned long", "volatile unsigned long", 8, false },
};

static void
test_integer_spellings(void)
{
	size_t n = sizeof(integer_spellings) / sizeof(integer_spellings[0]);
	mdl_model_t *m = mdl_new();
	char text[8192];
	size_t len;
	mdl_probe_t *pr;

	test_begin("every spelling of the integer types, with and without a name");
	len = (size_t)snprintf(text, sizeof(text), "provider p {\nprobe anon(");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s",
		    i ? ", " : "", integer_spellings[i].written);
	len += (size_t)snprintf(text + len, sizeof(text) - len, ");\nprobe named(");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s a%zu",
		    i ? ", " : "", integer_spellings[i].written, i);
	snprintf(text + len, sizeof(text) - len, ");\n};\n");
	EXPECT(parse_into(m, "t.d", text) == 0, "errors: %s", diags);
	for (int named = 0; named < 2; named++) {
		if ((pr = probe_of(m, "p", named ? "named" : "anon")) == NULL)
			break;
		expect_int("argument count", (long)pr->nargc, (long)n);
		for (size_t i = 0; i < n && i < pr->nargc; i++) {
			char what[80], name[16];

			snprintf(what, sizeof(what), "arg %zu (%s)", i, named ? "named" : "unnamed");
			expect_str(what, pr->nargs[i].type, integer_spellings[i].type);
			snprintf(name, sizeof(name), "a%zu", i);
			if (named)
				expect_str(what, pr->nargs[i].name, name);
			else
				EXPECT(pr->nargs[i].name == NULL, "%s has a name", what);
			if (integer_spellings[i].size != 0)
				expect_typeinfo(m, pr->nargs[i].type, integer_spellings[i].size,
				    integer_spellings[i].is_signed, MDL_TC_INTEGER);
		}
	}
	mdl_free(m);
	test_end();
}

static void
test_other_types(void)
{
	mdl_model_t *m;

	test_begin("floats, pointers, const, string, structs, typedef'd and unknown names");
	m = good("typedef struct foo foo_t;\n"
	    "provider p {\n"
	    "probe f(float x, double);\n"
	    "probe ptr(char **argv, void **, struct X **xp, const char *s, char const *t);\n"
	    "probe spacing(uint8_t*b, void * bs, struct Tcl_Obj* obj, char*const p, char  *  *  pp);\n"
	    "probe s(string str, struct sv *sv, foo_t *f, foo_t **ff, MYTYPE x, MYTYPE *, MYTYPE);\n"
	    "probe arr(char buf[16]);\n"
	    "probe dwords(char *probe, int provider, long translator, char *string);\n"
	    "};\n");
	expect_probe(m, "p", "dwords", "char *|int|long|char *", "probe|provider|translator|string");
	expect_probe(m, "p", "f", "float|double", "x|-");
	expect_probe(m, "p", "ptr", "char **|void **|struct X **|const char *|char const *",
	    "argv|-|xp|s|t");
	expect_probe(m, "p", "spacing", "uint8_t *|void *|struct Tcl_Obj *|char * const|char **",
	    "b|bs|obj|p|pp");
	expect_probe(m, "p", "s", "string|struct sv *|foo_t *|foo_t **|MYTYPE|MYTYPE *|MYTYPE",
	    "str|sv|f|ff|x|-|-");
	expect_probe(m, "p", "arr", "char[16]", "buf");
	expect_typeinfo(m, "float", 4, true, MDL_TC_FLOAT);
	expect_typeinfo(m, "struct X **", 8, false, MDL_TC_INTEGER);
	mdl_free(m);
	test_end();
}

static void
test_name_or_type(void)
{
	mdl_model_t *m;

	test_begin("`foo bar` is a typed parameter, `unsigned long` one type");
	m = good("provider p {\n"
	    "probe a(foo bar, unsigned x, unsigned long, long long y, const foo_t *p, foo_t const q);\n"
	    "probe b(signed s, short unsigned su, struct foo *foo, enum e e);\n"
	    "};\n");
	expect_probe(m, "p", "a", "foo|unsigned|unsigned long|long long|const foo_t *|foo_t const",
	    "bar|x|-|y|p|q");
	expect_probe(m, "p", "b", "signed|short unsigned|struct foo *|enum e", "s|su|foo|e");
	mdl_free(m);
	test_end();
}

/* ---- C declarations of system headers (-C) ---------------------------------- */

static void
test_system_declarations(void)
{
	mdl_model_t *m;

	test_begin("system headers' C declarations are dropped, their types kept");
	m = good("typedef int __pid_t;\n"
	    "typedef __pid_t pid_t;\n"
	    "extern int printf (const char *__restrict __format, ...);\n"
	    "extern char *ctermid (char *__s) __attribute__ ((__nothrow__ , __leaf__));\n"
	    "extern int fscanf (void *s, const char *f, ...) __asm__ (\"\" \"__isoc99_fscanf\");\n"
	    "__extension__ typedef long long int __quad_t;\n"
	    "extern struct _IO_FILE *stdin;\n"
	    "static __inline unsigned short\n"
	    "__bswap_16 (unsigned short __bsx)\n"
	    "{\n  return (__bsx >> 8) | ((__bsx & 0xff) << 8);\n}\n"
	    "static inline int twice (int x) { if (x) { return 2 * x; } return 0; }\n"
	    "pid_t getpid (void);\n"
	    "_Noreturn void exit (int);\n"
	    "typedef struct { unsigned long int __val[(1024 / (8 * sizeof (unsigned long int)))]; } __sigset_t;\n"
	    "enum { SHUT_RD = 0, SHUT_WR };\n"
	    "provider p { probe a(pid_t pid, __quad_t q, __sigset_t *set); };\n"
	    "BEGIN { trace(1); }\n");
	expect_probe(m, "p", "a", "pid_t|__quad_t|__sigset_t *", "pid|q|set");
	expect_typeinfo(m, "pid_t", 4, true, MDL_TC_INTEGER);
	expect_typeinfo(m, "__quad_t", 8, true, MDL_TC_INTEGER);
	mdl_free(m);

	/* An attribute whose parentheses never close. */
	bad("provider p { probe a(); };\nextern int f(void) __attribute__((x);\n",
	    "D_SYNTAX", 2, 20);
	EXPECT(strstr(diags, "the file ends inside this __attribute__ (...)") != NULL,
	    "message: %s", diags);

	/* cpp's line markers: 1 enters a file, 2 returns; the chain is named. */
	m = mdl_new();
	EXPECT(parse_into(m, "t.d", "# 1 \"t.d\"\n# 1 \"a.h\" 1\n# 1 \"b.h\" 1\n"
	    "struct s { int a };\n") > 0, "no error in b.h");
	EXPECT(strstr(diags, "In file included from a.h:1,\n"
	    "                 from t.d:1:\nb.h:1:") != NULL, "chain: %s", diags);
	mdl_free(m);
	test_end();
}

/* ---- translated argument lists ---------------------------------------------- */

static void
test_translated(void)
{
	mdl_model_t *m;
	mdl_probe_t *pr;

	test_begin("translated lists: reordering, duplication, lines, translators");
	m = good("typedef struct httpproto { long laddr; } httpproto_t;\n"
	    "typedef struct conninfo { string ci_local; } conninfo_t;\n"
	    "translator conninfo_t < httpproto_t *p > {\n"
	    "\tci_local = copyinstr((uintptr_t)*(uint64_t *)copyin((uintptr_t)&p->laddr, 8));\n"
	    "};\n"
	    "translator struct other < struct httpproto *h > { x = \"}\"; y = '{'; };\n"
	    "provider p {\n"
	    "  probe xl(int i, int j) :\n"
	    "      (int j, int i,\n"
	    "       int i, int j);\n"
	    "  probe req(httpproto_t *p) : (conninfo_t *p, conninfo_t *p);\n"
	    "  probe req2(httpproto_t *p) : (struct other *p);\n"
	    "  probe same(int a, const char *s) : (int a, string s);\n"
	    "  probe widen(int a) : (long a);\n"
	    "  probe untouched(char *s) : (char *s);\n"
	    "  probe vp(void *v) : (conninfo_t *v);\n"
	    "  probe none(int a) : ();\n"
	    "};\n");
	if ((pr = probe_of(m, "p", "xl")) != NULL) {
		expect_str("xl map", argmap(pr), "1,0,0,1");
		expect_str("xl xtypes", types(pr, true), "int|int|int|int");
		EXPECT(pr->translated, "xl translated");
	}
	if ((pr = probe_of(m, "p", "req")) != NULL) {
		expect_str("req native", types(pr, false), "httpproto_t *");
		expect_str("req xtypes", types(pr, true), "conninfo_t *|conninfo_t *");
		expect_str("req map", argmap(pr), "0,0");
	}
	if ((pr = probe_of(m, "p", "none")) != NULL) {
		EXPECT(pr->translated && pr->xargc == 0, "none: translated %d xargc %zu",
		    pr->translated, pr->xargc);
	}
	probe_of(m, "p", "vp");
	expect_int("translators", (long)m->ntranslators, 2);
	if (m->ntranslators == 2) {
		expect_str("xlator out", m->translators[0].out_type, "conninfo_t");
		expect_str("xlator in", m->translators[0].in_type, "httpproto_t *");
		expect_str("xlator 2 out", m->translators[1].out_type, "struct other");
		expect_int("xlator line", m->translators[0].loc.line, 3);
	}
	mdl_free(m);

	/*
	 * No translator needed where DTrace's CTF rules call the types
	 * compatible: typedefs of untagged structs of one size (node's
	 * "bogus definitions"), by value too; integers of one size and sign
	 * behind pointers; typedefs of the same struct.
	 */
	m = good("typedef struct { int dummy; } native_conn_t;\n"
	    "typedef struct { int dummy; } conn_t;\n"
	    "typedef struct named { long x; } named_t;\n"
	    "provider p {\n"
	    "  probe a(native_conn_t *c) : (conn_t *c);\n"
	    "  probe b(native_conn_t c) : (conn_t c);\n"
	    "  probe c(unsigned *u, int32_t *i) : (uint32_t *u, int *i);\n"
	    "  probe d(named_t *n) : (struct named *n);\n"
	    "};\n");
	mdl_free(m);

	/* Translators declared after the probes that need them. */
	m = good("provider p { probe a(struct in *x) : (out_t *x); };\n"
	    "translator out_t < struct in *x > { a = 1; };\n");
	mdl_free(m);
	test_end();
}

static void
test_missing_translator(void)
{
	test_begin("a translated type with no translator is an error, not a crash");
	bad("provider p {\n"
	    "\tprobe a(foo_t *x) : (bar_t *x);\n"
	    "};\n", "D_PROV_PRXLATOR", 2, 23);
	EXPECT(strstr(diags, "no translator from 'foo_t *' to 'bar_t *'") != NULL,
	    "message: %s", diags);
	/* A translator from another input type does not count. */
	bad_at("translator bar_t < baz_t *b > { };\n"
	    "provider p {\n"
	    "\tprobe a(int i, foo_t *x) :\n"
	    "\t\t(int i, bar_t *x);\n"
	    "};\n", "D_PROV_PRXLATOR", "bar_t *x", false);
	/* A pointer and an integer are not compatible. */
	bad_at("provider p { probe a(char *s) : (int s); };", "D_PROV_PRXLATOR", "int s", false);
	/* Untagged structs of different sizes are not compatible... */
	bad_at("typedef struct { int a; } in_t;\n"
	    "typedef struct { long b; } out_t;\n"
	    "provider p { probe a(in_t *i) : (out_t *i); };", "D_PROV_PRXLATOR", "out_t *i", false);
	/* ...nor are structs with different tags, nor integers of other sizes. */
	bad_at("struct a { int x; }; struct b { int x; };\n"
	    "provider p { probe a(struct a *i) : (struct b *i); };", "D_PROV_PRXLATOR",
	    "struct b *i", false);
	bad_at("provider p { probe a(int *i) : (long *i); };", "D_PROV_PRXLATOR", "long *i", false);
	/* A translated argument with no native argument to come from. */
	bad_at("provider p { probe a() : (int x); };", "D_PROV_PRXLATOR", "int x", false);
	test_end();
}

/* ---- declarations around providers ------------------------------------------ */

static void
test_typedefs(void)
{
	mdl_model_t *m;

	test_begin("typedefs: sizes through the model");
	m = good("typedef unsigned short u16_t;\n"
	    "typedef struct { int dummy; } t;\n"
	    "typedef struct foo foo_t;\n"
	    "typedef const uint8_t *p_t;\n"
	    "typedef u16_t u16b_t, *u16p_t;\n"
	    "typedef enum { A, B = 4 } e_t;\n"
	    "typedef char name_t[16];\n"
	    "typedef void (*fn_t)(int, char *);\n"
	    "provider p { probe a(u16_t u, t byval, p_t p); };\n");
	expect_typeinfo(m, "u16_t", 2, false, MDL_TC_INTEGER);
	expect_typeinfo(m, "u16b_t", 2, false, MDL_TC_INTEGER);
	expect_typeinfo(m, "u16p_t", 8, false, MDL_TC_INTEGER);
	expect_typeinfo(m, "t", 4, false, MDL_TC_MEMORY);
	expect_typeinfo(m, "p_t", 8, false, MDL_TC_INTEGER);
	expect_typeinfo(m, "e_t", 4, true, MDL_TC_INTEGER);
	expect_str("foo_t", mdl_find_typedef(m, "foo_t")->type, "struct foo");
	expect_str("p_t", mdl_find_typedef(m, "p_t")->type, "const uint8_t *");
	expect_str("name_t", mdl_find_typedef(m, "name_t")->type, "char[16]");
	EXPECT(mdl_find_typedef(m, "fn_t") != NULL, "fn_t typedef");
	EXPECT(!mdl_type_info(m, "foo_t").known, "foo_t (incomplete) is not known");
	mdl_free(m);
	test_end();
}

/* Struct definitions compiled here and parsed as D: sizes must agree. */
#define STR(...)	STR2(__VA_ARGS__)
#define STR2(...)	#__VA_ARGS__

#define S_BITS	struct s_bits { char a; int b : 3; int c : 5; char d; };
#define S_NEST	struct s_nest { int a; union { char c; long l; }; \
	struct { short s[3]; } inner; char name[16]; \
	unsigned int b1 : 3, b2 : 5; uint8_t flag : 1; \
	void *ptrs[2]; void (*cb)(int, char *); };
#define S_ZERO	struct s_zero { char a; int : 0; char b; long long c : 7; };
#define S_STRADDLE	struct s_straddle { unsigned int a : 30; unsigned int b : 4; \
	unsigned char c; unsigned short d : 9; unsigned short e : 9; };
#define S_UNION	union s_union { char c[5]; int i; struct s_bits sb; };
#define S_FLEX	struct s_flex { int n; short tail[]; };
#define S_ENUM	enum s_color { RED, GREEN = 2 }; \
	struct s_enum { char c; enum s_color col; double d; bool ok; };
#define S_REF	struct s_ref { struct s_nest n; union s_union u; char last; };
#define S_UNNAMED	struct s_unnamed { char a; int : 4; char b; };
#define S_ARR2	struct s_arr2 { short m[2][3]; char c; int *pa[2]; char (*pc)[8]; };
#define S_EMPTYISH	struct s_one { char c; };
#define S_LD	struct s_ld { char c; long double ld; };

S_BITS S_NEST S_ZERO S_STRADDLE S_UNION S_FLEX S_ENUM S_REF S_UNNAMED S_ARR2
S_EMPTYISH S_LD

static void
expect_layout(mdl_model_t *m, const char *tag, size_t size, size_t align)
{
	const mdl_tagged_t *t = mdl_find_tagged(m, tag);

	if (t == NULL) {
		test_failf("no %s", tag);
		return;
	}
	EXPECT(t->complete, "%s incomplete", tag);
	EXPECT(t->size == size && t->align == align, "%s: size %u align %u, cc says %zu %zu",
	    tag, t->size, t->align, size, align);
}

static void
test_struct_layout(void)
{
	mdl_model_t *m;

#if !defined(__x86_64__) && !defined(__aarch64__)
	/* The layout is x86_64's System V (parse_layout.c) on every host; a
	 * cross-built usdtc's driver is compiled for another ABI (make HOST=). */
	test_begin("struct and union layout: x86_64's, not compared with this host's ABI");
	test_end();
	return;
#endif
	test_begin("struct and union layout agrees with the C compiler");
	m = good(STR(S_BITS S_NEST S_ZERO S_STRADDLE S_UNION S_FLEX S_ENUM S_REF
	    S_UNNAMED S_ARR2 S_EMPTYISH S_LD)
	    "\nprovider p { probe a(struct s_nest *ref); };\n");
	expect_layout(m, "struct s_bits", sizeof(struct s_bits), _Alignof(struct s_bits));
	expect_layout(m, "struct s_nest", sizeof(struct s_nest), _Alignof(struct s_nest));
	expect_layout(m, "struct s_zero", sizeof(struct s_zero), _Alignof(struct s_zero));
	expect_layout(m, "struct s_straddle", sizeof(struct s_straddle),
	    _Alignof(struct s_straddle));
	expect_layout(m, "union s_union", sizeof(union s_union), _Alignof(union s_union));
	expect_layout(m, "struct s_flex", sizeof(struct s_flex), _Alignof(struct s_flex));
	expect_layout(m, "struct s_enum", sizeof(struct s_enum), _Alignof(struct s_enum));
	expect_layout(m, "enum s_color", sizeof(enum s_color), _Alignof(enum s_color));
	expect_layout(m, "struct s_ref", sizeof(struct s_ref), _Alignof(struct s_ref));
	expect_layout(m, "struct s_unnamed", sizeof(struct s_unnamed),
	    _Alignof(struct s_unnamed));
	expect_layout(m, "struct s_arr2", sizeof(struct s_arr2), _Alignof(struct s_arr2));
	expect_layout(m, "struct s_one", sizeof(struct s_one), _Alignof(struct s_one));
	expect_layout(m, "struct s_ld", sizeof(struct s_ld), _Alignof(struct s_ld));
	expect_typeinfo(m, "struct s_nest", sizeof(struct s_nest), false, MDL_TC_MEMORY);
	mdl_free(m);

	/* A member we cannot size makes the struct's size unknown, not wrong. */
	m = good("struct u { int a; mystery_t m; };\n"
	    "struct v { char c[N]; };\n"
	    "struct w { int a : WIDTH; };\n"
	    "struct ok { struct u *p; };\n");
	EXPECT(!mdl_find_tagged(m, "struct u")->complete, "struct u complete");
	EXPECT(!mdl_find_tagged(m, "struct v")->complete, "struct v complete");
	EXPECT(!mdl_find_tagged(m, "struct w")->complete, "struct w complete");
	expect_layout(m, "struct ok", 8, 8);
	mdl_free(m);
	test_end();
}

static void
test_enums_and_others(void)
{
	mdl_model_t *m;

	test_begin("enums before and after providers, forward declarations, D variables");
	m = good("enum before { A, B = (1 << 2), C = 'x' };\n"
	    "struct fwd;\n"
	    "union fwdu;\n"
	    "int d_variable;\n"
	    "provider p { probe a(enum before e, enum after f); };\n"
	    "enum after { X = -1, Y };\n");
	expect_layout(m, "enum before", 4, 4);
	expect_layout(m, "enum after", 4, 4);
	expect_probe(m, "p", "a", "enum before|enum after", "e|f");
	mdl_free(m);
	test_end();
}

/* ---- pragmas --------------------------------------------------------------- */

static void
expect_attr(mdl_model_t *m, const char *prov, int part, int n, int d, int c)
{
	mdl_provider_t *p = mdl_find_provider(m, prov);

	if (p == NULL) {
		test_failf("no provider %s", prov);
		return;
	}
	EXPECT(p->attr[part].name == n && p->attr[part].data == d && p->attr[part].dclass == c,
	    "%s part %d: %d/%d/%d, want %d/%d/%d", prov, part, p->attr[part].name,
	    p->attr[part].data, p->attr[part].dclass, n, d, c);
}

static void
test_pragmas(void)
{
	mdl_model_t *m;

	test_begin("#pragma D attributes: forms, defaults, placement");
	m = good("#pragma D attributes Private/Evolving/CPU provider early provider\n"
	    "provider early { probe a(); };\n"
	    "provider dflt { probe a(); };\n"
	    "#pragma D attributes Evolving/Evolving/ISA provider early args\n"
	    "#pragma  D  attributes   stable/standard/PLATFORM   provider  early  module\n"
	    "#pragma D attributes Evolving provider early function\n"
	    "#pragma D attributes Obsolete/External provider early name\n"
	    "/*\n#pragma D attributes Internal/Internal/Unknown provider dflt args\n*/\n"
	    "// #pragma D attributes Internal/Internal/Unknown provider dflt name\n"
	    "#pragma D attributes Evolving some_identifier\n"
	    "#pragma D depends_on library net.d\n"
	    "#pragma D depends_on provider ip\n"
	    "#pragma D option quiet\n"
	    "#pragma D binding \"1.0\" some_identifier\n"
	    "#pragma ident \"whatever\"\n"
	    "#pragma once\n");
	expect_attr(m, "early", MDL_ATTR_PROVIDER, MDL_STAB_PRIVATE, MDL_STAB_EVOLVING, MDL_CLASS_CPU);
	expect_attr(m, "early", MDL_ATTR_ARGS, MDL_STAB_EVOLVING, MDL_STAB_EVOLVING, MDL_CLASS_ISA);
	expect_attr(m, "early", MDL_ATTR_MODULE, MDL_STAB_STABLE, MDL_STAB_STANDARD, MDL_CLASS_PLATFORM);
	/* Parts left out take dtrace_str2attr's maximum, Standard/Standard/Common. */
	expect_attr(m, "early", MDL_ATTR_FUNCTION, MDL_STAB_EVOLVING, MDL_STAB_STANDARD, MDL_CLASS_COMMON);
	expect_attr(m, "early", MDL_ATTR_NAME, MDL_STAB_OBSOLETE, MDL_STAB_EXTERNAL, MDL_CLASS_COMMON);
	for (int part = 0; part < MDL_ATTR_NPARTS; part++)
		expect_attr(m, "dflt", part, MDL_STAB_UNSTABLE, MDL_STAB_UNSTABLE, MDL_CLASS_COMMON);
	EXPECT(diags == NULL || diags[0] == '\0', "diagnostics: %s", diags);
	mdl_free(m);

	m = mdl_new();
	EXPECT(parse_into(m, "t.d", "provider p { probe a(); };\n"
	    "#pragma D frobnicate all\n"
	    "#pragma D attributes Evolving provider nosuch args\n") == 0,
	    "warnings are not errors: %s", diags);
	EXPECT(has_diag("t.d:2:11: warning: ", "D_PRAGMA_UNKNOWN"), "unknown pragma: %s", diags);
	EXPECT(has_diag("t.d:3:40: warning: ", "D_PRAGMA_NOPROV"), "no provider: %s", diags);
	mdl_free(m);

	/*
	 * Inside a probe declaration, whose memory goes once the model has the
	 * probe (parse_probe_done): the pragma must outlive it, and every
	 * probe after it must find its own text, not the freed one (ASan).
	 */
	m = good("provider inside { probe a(int\n"
	    "#pragma D attributes Stable/Stable/ISA provider inside args\n"
	    ", long x); probe b(char *); probe c(int, int); probe a__b(long);\n"
	    "probe d(\n# 40 \"t.d\"\nint); };\n");
	expect_attr(m, "inside", MDL_ATTR_ARGS, MDL_STAB_STABLE, MDL_STAB_STABLE, MDL_CLASS_ISA);
	EXPECT(m->nproviders == 1 && m->providers[0]->nprobes == 5 &&
	    strcmp(m->providers[0]->probes[3]->dof_name, "a-b") == 0 &&
	    strcmp(m->providers[0]->probes[1]->nargs[0].type, "char *") == 0,
	    "the probes after a pragma inside a declaration");
	EXPECT(diags == NULL || diags[0] == '\0', "diagnostics: %s", diags);
	mdl_free(m);

	warned("#pragma D attributes Evolving/Bogus/ISA provider p name\n",
	    "D_PRAGMA_INVAL", 1, 22);
	warned("provider p {};\n#pragma D attributes Evolving/Evolving/Nope provider p name\n",
	    "D_PRAGMA_INVAL", 2, 22);
	warned("#pragma D attributes A/B/C/D provider p name\n", "D_PRAGMA_INVAL", 1, 22);
	warned("#pragma D attributes Evolving provider p argz\n", "D_PRAGMA_INVAL", 1, 42);
	warned("#pragma D attributes Evolving provider p\n", "D_PRAGMA_MALFORM", 1, 31);
	warned("#pragma D attributes\n", "D_PRAGMA_MALFORM", 1, 11);
	warned("#pragma D\n", "D_PRAGMA_MALFORM", 1, 9);
	test_end();
}

/* ---- D clauses, control lines, comments --------------------------------------- */

static void
test_clauses(void)
{
	mdl_model_t *m;

	test_begin("D clauses and inline definitions are accepted and skipped");
	m = good("BEGIN{}");
	expect_int("providers", (long)m->nproviders, 0);
	mdl_free(m);
	m = good("syscall::open:entry /pid == 1/ { trace(1); }\n"
	    "inline int MAXSZ = 5 * (2 + 1);\n"
	    "provider p { probe a(); };\n"
	    "tick-1s, profile-97,\n pid$target:libc.so.6:malloc:entry\n"
	    "/arg0 > 10 && execname != \"a{b\"/\n"
	    "{\n\t@counts[probefunc] = count();\n\tif (x) { y = '}'; }\n}\n"
	    "END\n{\n\texit(0);\n}\n"
	    ":::\n{}\n");
	probe_of(m, "p", "a");
	mdl_free(m);
	test_end();
}

static void
test_control_lines(void)
{
	mdl_model_t *m;
	mdl_probe_t *pr;

	test_begin("# lines: comments without -C, line markers always");
	m = good("#include <stdint.h>\n"
	    "#define X 1\n"
	    "#ifdef X\n"
	    "provider p {\n"
	    "\t# file: p.c\n"
	    "  #  if 0\n"
	    "\tprobe a();\n"
	    "#endif /* a comment\n"
	    "   that goes on */\n"
	    "\tprobe b();\n"
	    "# 40 \"other.d\"\n"
	    "\tprobe c();\n"
	    "#line 7\n"
	    "\tprobe d();\n"
	    "#line 100 \"third.d\" \n"
	    "\tprobe e();\n"
	    "# 1st comment that is no marker\n"
	    "\tprobe f();\n"
	    "};\n"
	    "#endif\n");
	if ((pr = probe_of(m, "p", "b")) != NULL)
		EXPECT(pr->loc.line == 10 && strcmp(pr->loc.file, "t.d") == 0,
		    "b at %s:%d", pr->loc.file, pr->loc.line);
	if ((pr = probe_of(m, "p", "c")) != NULL)
		EXPECT(pr->loc.line == 40 && strcmp(pr->loc.file, "other.d") == 0,
		    "c at %s:%d", pr->loc.file, pr->loc.line);
	if ((pr = probe_of(m, "p", "d")) != NULL)
		EXPECT(pr->loc.line == 7 && strcmp(pr->loc.file, "other.d") == 0,
		    "d at %s:%d", pr->loc.file, pr->loc.line);
	if ((pr = probe_of(m, "p", "e")) != NULL)
		EXPECT(pr->loc.line == 100 && strcmp(pr->loc.file, "third.d") == 0,
		    "e at %s:%d", pr->loc.file, pr->loc.line);
	if ((pr = probe_of(m, "p", "f")) != NULL)
		EXPECT(pr->loc.line == 102, "f at %s:%d", pr->loc.file, pr->loc.line);
	mdl_free(m);

	/* An error after a marker is reported where the marker says. */
	m = mdl_new();
	EXPECT(parse_into(m, "t.d", "# 12 \"orig.d\"\nprovider p {\n\tprobe a(int x)\n};\n") > 0,
	    "error expected");
	EXPECT(has_diag("orig.d:13:16: error: ", "D_SYNTAX"), "marker location: %s", diags);
	mdl_free(m);
	bad("#line 12x\n", "D_PRAGMA_MALFORM", 1, 7);
	test_end();
}

static void
test_comments_crlf(void)
{
	mdl_model_t *m;
	mdl_probe_t *pr;
	char big[70000];
	size_t len = 0;

	test_begin("comments of both kinds, a large block, CRLF line endings");
	len += (size_t)snprintf(big + len, sizeof(big) - len, "/*");
	while (len < sizeof(big) - 200)
		len += (size_t)snprintf(big + len, sizeof(big) - len,
		    " * provider nope { probe x(); }; ** / * \r\n");
	snprintf(big + len, sizeof(big) - len, "*/\r\nprovider p { // c\r\n"
	    "\tprobe a(int x, /* inline */ char *y); // trailing\r\n"
	    "};\r\n");
	m = good(big);
	expect_int("providers", (long)m->nproviders, 1);
	expect_probe(m, "p", "a", "int|char *", "x|y");
	mdl_free(m);
	m = mdl_new();
	EXPECT(parse_into(m, "t.d", "provider p {\r\n\tprobe a(int x)\r\n};\r\n") > 0, "error expected");
	EXPECT(has_diag("t.d:2:16: error: ", "D_SYNTAX"), "CRLF location: %s", diags);
	EXPECT(strstr(diags, "\r") == NULL, "CR echoed in: %s", diags);
	mdl_free(m);
	m = good("provider q {\r\n\tprobe b(long\r\n\t\tz);\r\n};");
	if ((pr = probe_of(m, "q", "b")) != NULL)
		expect_int("line after CRLF", mdl_arg_loc(pr, &pr->nargs[0]).line, 2);
	mdl_free(m);
	test_end();
}

/*
 * An argument's place is a line of its probe's file (model.h): one that
 * a line marker puts in another file keeps the probe's file and no line;
 * one back in the probe's file (another string of the same name) keeps
 * its line.
 */
static void
test_arg_places(void)
{
	mdl_model_t *m;
	const mdl_probe_t *pr;
	src_loc_t a, b, c;

	test_begin("an argument's place: its line in its probe's file, or none");
	m = good("provider p {\n"
	    "\tprobe a(int x,\n"
	    "# 1 \"inc.h\"\n"
	    "\tchar *y,\n"
	    "# 9 \"t.d\"\n"
	    "\t\tlong z);\n"
	    "};\n");
	if ((pr = probe_of(m, "p", "a")) != NULL && pr->nargc == 3) {
		a = mdl_arg_loc(pr, &pr->nargs[0]);
		b = mdl_arg_loc(pr, &pr->nargs[1]);
		c = mdl_arg_loc(pr, &pr->nargs[2]);
		expect_str("first file", a.file, "t.d");
		expect_int("first line", a.line, 2);
		expect_int("first col", a.col, 10);
		expect_str("included file", b.file, "t.d");
		expect_int("included line", b.line, 0);
		expect_str("back file", c.file, "t.d");
		expect_int("back line", c.line, 9);
		expect_int("back col", c.col, 3);
	} else {
		test_failf("probe p:a with 3 arguments not found");
	}
	mdl_free(m);
	test_end();
}

/* ---- limits and duplicates ----------------------------------------------------- */

static char *
repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void
test_limits(void)
{
	char text[1024], *p63 = repeat('p', 63), *p64 = repeat('p', 64);
	char *n63 = repeat('n', 63), *n64 = repeat('n', 64), *u = repeat('_', 60);
	char *b61 = repeat('b', 61);
	mdl_model_t *m;

	test_begin("DTrace's name limits");
	snprintf(text, sizeof(text), "provider p { probe %s(); };\nprovider %s { probe a(); };",
	    n63, p63);
	m = good(text);
	mdl_free(m);
	snprintf(text, sizeof(text), "provider %s { probe a(); };", p64);
	bad(text, "D_PROV_BADNAME", 1, 10);
	snprintf(text, sizeof(text), "provider p {\n  probe %s();\n};", n64);
	bad(text, "D_PROBE_BADNAME", 2, 9);
	/* 64 characters as written, 63 once "__" becomes "-": fine. */
	snprintf(text, sizeof(text), "provider p { probe a__%s(); };", b61);
	m = good(text);
	mdl_free(m);
	bad("provider prov2 { probe a(); };", "D_PROV_BADNAME", 1, 10);
	/* __dtrace_ + 60 + ___ + 61 = 133 characters: too long for DOF. */
	snprintf(text, sizeof(text), "provider %.60s {\nprobe x%s(); };", p63, u);
	bad(text, "D_PROBE_FUNCLEN", 2, 7);
	free(p63);
	free(p64);
	free(n63);
	free(n64);
	free(u);
	free(b61);
	test_end();
}

static void
test_duplicates(void)
{
	mdl_model_t *m;

	test_begin("duplicate and redeclared probes");
	bad("provider p {\n\tprobe a(int);\n\tprobe a(int);\n};", "D_PROV_PRDUP", 3, 8);
	EXPECT(strstr(diags, "t.d:2:8: note: ") != NULL, "note at the first: %s", diags);
	bad("provider p {\n\tprobe a__b();\n\tprobe a__b(long);\n};", "D_PROV_PRDUP", 3, 8);
	bad("provider p { probe a(int); };\nprovider p {\n probe a(long);\n};",
	    "D_PROV_INCOMPAT", 3, 8);
	bad("provider p { probe a(int); };\nprovider p { probe a(int) : (int); };",
	    "D_PROV_INCOMPAT", 2, 20);
	m = good("provider p { probe a(int x, char *); };\n"
	    "provider p { probe a(int  y, char*); probe b(); };\n");
	expect_int("probes", (long)mdl_find_provider(m, "p")->nprobes, 2);
	mdl_free(m);
	test_end();
}

static void
test_void_errors(void)
{
	test_begin("void must be the only, unnamed parameter");
	bad_at("provider p { probe a(void, int); };", "D_PROBE_VOID", "void,", false);
	bad_at("provider p { probe a(int, void); };", "D_PROBE_VOID", "void)", false);
	bad_at("provider p { probe a(void v); };", "D_PROBE_VOID", "void v", false);
	bad_at("provider p { probe a(int i) : (void x); };", "D_PROBE_VOID", "void x", false);
	test_end();
}

/* ---- syntax errors --------------------------------------------------------------- */

static void
test_syntax_errors(void)
{
	test_begin("syntax errors: where, what was expected, what it closes");
	bad("provider p {\n\tprobe a(int x)\n\tprobe b();\n};\n", "D_SYNTAX", 2, 16);
	EXPECT(strstr(diags, "expected ';' to end the probe declaration begun at line 2, "
	    "found 'probe'") != NULL, "message: %s", diags);
	bad_at("provider p {\n\tprobe a(int x);\n", "D_SYNTAX", "int x);", true);
	EXPECT(strstr(diags, "to end the provider body begun at line 1, found end of file") != NULL,
	    "message: %s", diags);
	bad("provider p {\n\tprobe a(int x;\n};", "D_SYNTAX", 2, 15);
	EXPECT(strstr(diags, "expected ')' to end the argument list begun at line 2") != NULL,
	    "message: %s", diags);
	warned("provider p { probe a(); }\nprovider q { probe b(); };", "D_PROV_SEMICOLON", 1, 26);
	EXPECT(strstr(diags, "expected ';' after the provider body; DTrace requires it") != NULL,
	    "message: %s", diags);
	bad("provder p {\n\tprobe a();\n};", "D_SYNTAX", 1, 9);
	EXPECT(strstr(diags, "misspelt keyword") != NULL, "hint: %s", diags);
	bad("provider p { probe a(); };\n}\n", "D_SYNTAX", 2, 1);
	bad("provider p { probe a(); };\n;;\nprovider 3 {};", "D_SYNTAX", 3, 10);
	bad("provider p { int a(); };", "D_SYNTAX", 1, 14);
	bad_at("provider p { probe a() };", "D_SYNTAX", "};", false);
	bad("provider p { probe a(int x,); };", "D_SYNTAX", 1, 28);
	bad("provider p { probe a(const); };", "D_SYNTAX", 1, 27);
	bad("provider p { probe a(int) : int; };", "D_SYNTAX", 1, 29);
	bad("provider p { probe a(int x) $ ; };", "D_SYNTAX", 1, 29);
	bad("provider p { probe a(int \x01); };", "D_SYNTAX", 1, 26);
	bad_at("provider p { probe a(); };\ntranslator x < y z > { a = 1; }\n", "D_SYNTAX",
	    "a = 1; }", true);
	EXPECT(strstr(diags, "expected ';' to end the translator begun at line 2, "
	    "found end of file") != NULL, "message: %s", diags);
	bad_at("BEGIN { trace(1); \n", "D_SYNTAX", "trace(1);", true);
	bad("BEGIN { printf(\"unterminated); }\n", "D_STR_NL", 1, 16);
	bad("BEGIN { x = 'a; }\n", "D_CHR_NL", 1, 13);
	bad("provider p { probe a(); };\n/* never\nclosed\n", "D_UNTERMINATED_COMMENT", 2, 1);
	test_end();
}

/* ---- -C ---------------------------------------------------------------------- */

static char tmpdir[] = "/tmp/parse_test.XXXXXX";

static void
write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if ((f = fopen(path, "w")) == NULL) {
		test_failf("cannot write %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void
test_cpp(void)
{
	char path[256], inc[300], prefix[300];
	char *args[] = { inc, (char *)"-DWITH_X", (char *)"-DN=3" };
	parse_opts_t o = { true, NULL, args, 3 };
	mdl_model_t *m;
	mdl_probe_t *pr;
	int errors;

	test_begin("-C: includes, defines, line markers, cpp failures");
	if (mkdtemp(tmpdir) == NULL) {
		test_failf("mkdtemp");
		test_end();
		return;
	}
	snprintf(inc, sizeof(inc), "-I%s", tmpdir);
	write_file("defs.h", "typedef unsigned int myint_t;\n#define ARGTYPE myint_t\n");
	write_file("p.d", "#include \"defs.h\"\n"
	    "provider cp {\n"
	    "\tprobe a(ARGTYPE x);\n"
	    "#if defined(WITH_X)\n"
	    "\tprobe onlyx(int);\n"
	    "#endif\n"
	    "#ifdef NOT_DEFINED\n"
	    "\tprobe never(int);\n"
	    "#endif\n"
	    "\tprobe n(char buf[N]);\n"
	    "};\n"
	    "#pragma D attributes Evolving/Evolving/ISA provider cp args\n");
	snprintf(path, sizeof(path), "%s/p.d", tmpdir);
	m = mdl_new();
	errors = parse_file_into(m, path, &o);
	EXPECT(errors == 0, "errors: %s", diags);
	expect_probe(m, "cp", "a", "myint_t", "x");
	expect_probe(m, "cp", "n", "char[3]", "buf");
	if ((pr = probe_of(m, "cp", "onlyx")) != NULL) {
		expect_int("onlyx line", pr->loc.line, 5);
		expect_str("onlyx file", pr->loc.file, path);
	}
	EXPECT(mdl_find_provider(m, "cp") == NULL ||
	    mdl_provider_find_probe(mdl_find_provider(m, "cp"), "never") == NULL, "never");
	expect_typeinfo(m, "myint_t", 4, false, MDL_TC_INTEGER);
	expect_attr(m, "cp", MDL_ATTR_ARGS, MDL_STAB_EVOLVING, MDL_STAB_EVOLVING, MDL_CLASS_ISA);
	mdl_free(m);

	/* A compiler driver as the preprocessor, with an error after an #include. */
	write_file("bad.d", "#include \"defs.h\"\nprovider cp {\n\tprobe a(ARGTYPE x)\n};\n");
	snprintf(path, sizeof(path), "%s/bad.d", tmpdir);
	o.cpp_cmd = "gcc -E";
	m = mdl_new();
	EXPECT(parse_file_into(m, path, &o) == 1, "one error: %s", diags);
	snprintf(prefix, sizeof(prefix), "%s:3:20: error: ", path);
	EXPECT(has_diag(prefix, "D_SYNTAX"), "location after cpp: %s", diags);
	EXPECT(strstr(diags, "\tprobe") == NULL && strstr(diags, "probe a(ARGTYPE x)\n") != NULL,
	    "the user's line is quoted: %s", diags);
	mdl_free(m);

	/* cpp fails: a missing include. */
	write_file("miss.d", "#include \"missing.h\"\nprovider x { probe a(); };\n");
	snprintf(path, sizeof(path), "%s/miss.d", tmpdir);
	o.cpp_cmd = NULL;
	m = mdl_new();
	fprintf(stderr, "(parse_test: a cpp error about missing.h is expected here)\n");
	EXPECT(parse_file_into(m, path, &o) == 1, "cpp failure counts: %s", diags);
	EXPECT(has_diag(path, "D_CPP") && strstr(diags, "exit status 1") != NULL,
	    "cpp failure: %s", diags);
	mdl_free(m);

	/* No such preprocessor. */
	o.cpp_cmd = "/nonexistent/cpp -E";
	m = mdl_new();
	EXPECT(parse_file_into(m, path, &o) == 1 && has_diag(path, "D_CPP") &&
	    strstr(diags, "/nonexistent/cpp") != NULL, "missing cpp: %s", diags);
	mdl_free(m);

	/* No such file, with and without -C. */
	m = mdl_new();
	EXPECT(parse_file_into(m, "/nonexistent/x.d", &o) == 1 &&
	    has_diag("/nonexistent/x.d: error: cannot read it: No such file", "D_IO"), "no file: %s", diags);
	EXPECT(parse_file_into(m, "/nonexistent/x.d", NULL) == 1 &&
	    has_diag("/nonexistent/x.d: error: cannot read it: No such file", "D_IO"), "no file: %s", diags);
	mdl_free(m);

	/* Without -C the same file reads '#' lines as comments. */
	snprintf(path, sizeof(path), "%s/p.d", tmpdir);
	m = mdl_new();
	EXPECT(parse_file_into(m, path, NULL) == 0, "without -C: %s", diags);
	expect_probe(m, "cp", "a", "ARGTYPE", "x");
	probe_of(m, "cp", "never");
	mdl_free(m);

	unlink(path);
	snprintf(path, sizeof(path), "%s/defs.h", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bad.d", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/miss.d", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	test_end();
}

/* ---- robustness ------------------------------------------------------------------ */

static const char *const corpus =
    "typedef struct conninfo { string ci_local; int x : 3; } conninfo_t;\n"
    "translator conninfo_t < struct foo *p > { ci_local = \"a\"; };\n"
    "#pragma D attributes Evolving/Evolving/ISA provider p args\n"
    "provider p {\n"
    "\tprobe a__b(int x, char *s) : (char *s, int x);\n"
    "\tprobe c(struct foo *f) : (conninfo_t *f);\n"
    "\tprobe d(void);\n"
    "};\n"
    "BEGIN /x/ { y = '}'; }\n"
    "/* done */\n";

static void
test_prefixes_and_garbage(void)
{
	size_t n = strlen(corpus);
	mdl_model_t *m;
	unsigned seed = 12345;
	char buf[512];

	test_begin("every prefix and random mutations parse without crashing");
	for (size_t len = 0; len <= n; len++) {
		m = mdl_new();
		parse_buffer(m, "prefix.d", corpus, len);	/* output discarded below */
		mdl_free(m);
	}
	for (int round = 0; round < 3000; round++) {
		size_t len = n < sizeof(buf) ? n : sizeof(buf);

		memcpy(buf, corpus, len);
		for (int k = 0; k < 1 + round % 8; k++) {
			seed = seed * 1103515245u + 12345u;
			buf[(seed >> 8) % len] = (char)(seed >> 20);
		}
		m = mdl_new();
		parse_buffer(m, "fuzz.d", buf, len);
		mdl_free(m);
	}
	m = good(corpus);
	expect_str("map after all that", argmap(probe_of(m, "p", "a__b")), "1,0");
	mdl_free(m);
	test_end();
}

static void
test_deep_nesting(void)
{
	size_t depth = 20000;
	char *s = malloc(depth * 2 + 16);
	mdl_model_t *m = mdl_new();
	int errors;

	test_begin("deep nesting is an error, not a crash");
	memcpy(s, "BEGIN ", 6);
	memset(s + 6, '{', depth);
	memset(s + 6 + depth, '}', depth);
	s[6 + 2 * depth] = '\0';
	errors = parse_into(m, "t.d", s);
	EXPECT(errors == 1 && has_diag("t.d:1:", "D_SYNTAX"), "deep: %d %.200s", errors, diags);
	mdl_free(m);
	free(s);
	test_end();
}

int
main(void)
{
	FILE *devnull = fopen("/dev/null", "w");

	test_basic();
	test_provider_forms();
	test_probe_names();
	test_arg_lists();
	test_arg_limit();
	test_integer_spellings();
	test_other_types();
	test_name_or_type();
	test_system_declarations();
	test_translated();
	test_missing_translator();
	test_typedefs();
	test_struct_layout();
	test_enums_and_others();
	test_pragmas();
	test_clauses();
	test_control_lines();
	test_comments_crlf();
	test_arg_places();
	test_limits();
	test_duplicates();
	test_void_errors();
	test_syntax_errors();
	test_cpp();
	test_deep_nesting();
	diag_set_output(devnull);
	test_prefixes_and_garbage();
	diag_set_output(NULL);
	fclose(devnull);
	free(diags);
	return test_summary();
}
