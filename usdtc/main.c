/*
 * main.c - the usdtc command: dtrace's build-time modes, and a probe lister.
 *
 * The roadmap of stages and files is doc/layout.md (the one place it is
 * written): a definition's bytes go through the front end (compiler/front,
 * the grammar in compiler/lexer.l and parser.y) into the model, and the
 * stages in compiler/ write the header (-h) or the object (-G) from it;
 * --list and --dump read files back (compiler/inspect).
 *
 * This file only turns the command line into one of those runs (backend_for
 * is the one place a target picks its writers), and owns
 * the process: it is the one place that prints errors that carry no source
 * position, and the one that exits.  Outputs, and -G's rewritten input
 * objects, are written to temporaries and put in place together only when
 * everything succeeded (fileio.h, tempset): a failed or interrupted run
 * leaves every file as it was.  An output that is also an input is refused.
 *
 * The options are dtrace's, with dtrace's meaning, because build systems
 * call `$(DTRACE) -h -s p.d -o p.h` and `$(DTRACE) -G -s p.d -o p.o a.o ...`
 * and must work unchanged with DTRACE=usdtc.  Options of dtrace's tracing
 * modes are refused with a message; -fpic/-fPIC are accepted and ignored;
 * -x takes every option dtrace knows and refuses the others as dtrace does
 * (x_option); the options only SystemTap's dtrace has, which have no work to do
 * here: -k (keep its temporary files), --types (obsolete there too),
 * --no-pyparsing (its fallback parser).  -G follows the build as
 * SystemTap's does: without --target, the target of $CC (-dumpmachine), in
 * the half -32/-64 or -m32/-m64 ask for.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cpp.h"
#include "drti_objects.h"
#include "err.h"
#include "fileio.h"
#include "tempset.h"
#include "header.h"
#include "header_macos.h"
#include "list.h"
#include "model.h"
#include "macho_objgen.h"
#include "objgen.h"
#include "sdtobj.h"
#include "source.h"
#include "strbuf.h"
#include "subproc.h"
#include "target.h"
#include "version.h"

#define PROG "usdtc"

enum mode { MODE_NONE, MODE_HEADER, MODE_OBJECT, MODE_LIST, MODE_DUMP };

typedef struct options {
	enum mode mode;
	char **scripts;		/* -s files */
	size_t nscripts;
	char **operands;	/* objects for -G, files for --list/--dump */
	size_t noperands;
	char **cpp_args;	/* -I, -D, -U in order */
	size_t ncpp_args;
	const char *output;	/* -o */
	bool cpp;		/* -C */
	bool verbose;		/* -v */
	bool lazyload;		/* -x lazyload */
	bool strip;		/* -x strip */
	bool raw_dof;		/* -x linktype=dof */
	const char *cpp_cmd;	/* -x cpppath=, $USDTC_CPP, $CPP, "cpp" */
	const char *ld_cmd;	/* -x ldpath=, $USDTC_LD, or NULL: no linker, -G merges */
	const target_t *target;
	int bits;		/* -32/-64: 32 or 64, else 0 */
	uint64_t base;		/* --base=ADDR for --list/--dump of raw DOF */
} options_t;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: " PROG " -h [-C] [-I dir] [-D name[=def]] [-U name] -s file.d [-o file.h]\n"
	    "       " PROG " -G [-C] [-I dir] [-D name[=def]] [-U name] [-x opt] -s file.d [-o file.o] [object ...]\n"
	    "       " PROG " --list file ...\n"
	    "       " PROG " --dump file ...\n"
	    "\n"
	    "  -h            write a C header of probe macros (default output: file.h)\n"
	    "  -G            write an object holding the probes, their DOF and stapsdt\n"
	    "                notes (default output: file.o); objects named after the\n"
	    "                options are checked against the provider\n"
	    "  -s file       the provider definition (may be repeated)\n"
	    "  -o file       the output file\n"
	    "  -C            run the C preprocessor (cpp, or $USDTC_CPP) on the definition\n"
	    "  -I, -D, -U    passed to the preprocessor\n"
	    "  -x opt[=val]  dtrace's options: lazyload, strip, linktype=elf|dof,\n"
	    "                cpppath=CMD, ldpath=CMD (-G then merges drti_lite with\n"
	    "                `CMD -r`, not by itself), incdir=, define=, undef=,\n"
	    "                cppargs=, cpp;\n"
	    "                its other options are accepted (nolibs, ...), an unknown\n"
	    "                one or a bad value is its error\n"
	    "  -32, -64      -G: the 32- or 64-bit half of the target's CPU\n"
	    "  -fpic, -fPIC  accepted and ignored\n"
	    "  -k, --types, --no-pyparsing   SystemTap's dtrace's, accepted and ignored\n"
	    "                (usdtc keeps no temporaries and has one parser)\n"
	    "  -v            say what is written; -V print the version\n"
	    "  --target=T    write for target T (%s; default: for -G the\n"
	    "                target of $CC -dumpmachine, else the host)\n"
	    "  --list        list the providers, probes and notes of ELF or Mach-O files\n"
	    "  --dump        print every DOF field and note of ELF or Mach-O files\n"
	    "  --base=ADDR   with --list/--dump: the load base a DTrace consumer\n"
	    "                would add to relocated probe addresses\n"
	    "  --help, --version\n", target_names());
}

/* "usdtc: KIND: message" on stderr: diagnostics with no source position. */
static void __attribute__((format(printf, 2, 0)))
report(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, PROG ": %s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void __attribute__((format(printf, 1, 2)))
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error", fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 1, 2)))
warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning", fmt, ap);
	va_end(ap);
}

/* Append s to a growing argv-style array; exits on allocation failure. */
static void
push(char ***arrayp, size_t *countp, char *s)
{
	char **p = realloc(*arrayp, (*countp + 1) * sizeof(char *));

	if (p == NULL) {
		error("out of memory");
		exit(1);
	}
	p[(*countp)++] = s;
	*arrayp = p;
}

/* ---- temporaries ----------------------------------------------------- */

/*
 * Every temporary a run owns: the output's and, with -G, each rewritten
 * input object's (fileio.h).  A fatal signal removes them all, so an
 * interrupted build leaves every file as it was and nothing beside it.
 */
static tempset_t temps;

static void
on_signal(int sig)
{
	spawn_stop();	/* a linker must not create its output afterwards */
	tempset_unlink_all(&temps);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Catch the fatal signals, except those the parent had ignored: under
 * nohup a hangup must not end the run.
 */
static void
catch_signals(void)
{
	for (int i = 0; tempset_signals[i] != 0; i++) {
		struct sigaction sa, old;

		if (sigaction(tempset_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (int j = 0; tempset_signals[j] != 0; j++)
			sigaddset(&sa.sa_mask, tempset_signals[j]);
		sigaction(tempset_signals[i], &sa, NULL);
	}
}

/* The temporary for the output out: the name to write; NULL with e set. */
static const char *
output_temp(const char *out, err_t *e)
{
	int fd, i = tempset_add(&temps, out, NULL, &fd, e);

	if (i < 0)
		return NULL;
	close(fd);
	return tempset_path(&temps, i);
}

/*
 * An output that is also an input (the same file under any name: st_dev
 * and st_ino) would destroy the input; refused, as cc does.
 */
static bool
output_is_input(const options_t *o, const char *out)
{
	struct stat so, si;
	char *const *lists[] = { o->scripts, o->operands };
	size_t counts[] = { o->nscripts, o->mode == MODE_OBJECT ? o->noperands : 0 };

	if (stat(out, &so) != 0 || !S_ISREG(so.st_mode))
		return false;
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++)
			if (stat(lists[l][i], &si) == 0 && si.st_dev == so.st_dev &&
			    si.st_ino == so.st_ino) {
				error("the output %s is also an input (%s): refusing to "
				    "overwrite it", out, lists[l][i]);
				return true;
			}
	return false;
}

/* ---- default output names ---------------------------------------------- */

/*
 * dtrace's rule: "file.d" gives "file.h" (-h) or "file.o" (-G), written in
 * the current directory; a script not ending in ".d" gives "script.h" for
 * -h and "d.out" for -G.
 */
static char *
default_output(const char *script, enum mode mode)
{
	const char *base = strrchr(script, '/') ? strrchr(script, '/') + 1 : script;
	size_t len = strlen(base);
	bool dotd = len > 2 && strcmp(base + len - 2, ".d") == 0;
	char *out;

	if (mode == MODE_OBJECT && !dotd)
		return strdup("d.out");
	if ((out = malloc(len + 3)) == NULL)
		return NULL;
	memcpy(out, base, len + 1);
	if (dotd)
		out[len - 1] = mode == MODE_HEADER ? 'h' : 'o';
	else
		strcat(out, ".h");
	return out;
}

/* ---- command line ------------------------------------------------------ */

static void
set_mode(options_t *o, enum mode mode, const char *flag)
{
	if (o->mode != MODE_NONE && o->mode != mode) {
		error("%s cannot be combined with the mode already chosen", flag);
		exit(2);
	}
	o->mode = mode;
}

/*
 * -x NAME[=VALUE]: every option dtrace's libdtrace knows (dt_options.c's
 * compile-time, run-time and dynamic run-time tables), with the value each
 * takes, since dtrace sets every one of them in -h and -G too and refuses
 * an unknown name or a bad value (`failed to set -x NAME: ...`, exit 1).
 * Those that mean something for -h/-G do it here: lazyload, strip,
 * linktype, cpppath, ldpath, cpp, cppargs, incdir, define, undef; the
 * others (D compilation, tracing) have nothing to act on and are
 * accepted, as dtrace accepts them there.  SystemTap's dtrace ignored
 * every -x; real builds pass names dtrace knows (Node's -xnolibs,
 * lazyload), which keep working, and nothing shows one passing a name or
 * value dtrace refuses, so those are dtrace's errors (SystemTap's own
 * dtrace.exp passes `-x IGNORED`: tests/peer records usdtc's refusal).
 */
enum xval {
	XV_NONE,	/* a flag: no value (dt_opt_cflags, dt_opt_dflags...) */
	XV_ANY,		/* a value or none, any */
	XV_STR,		/* a value needed, any string */
	XV_NUM,		/* a value needed, digits (atoi's, sizes with k/m/g/t, rates with a unit) */
	XV_ENUM,	/* one of the words in set */
};

typedef struct xopt {
	const char *name;
	enum xval val;
	const char *set;	/* XV_ENUM: the words, each followed by a space */
} xopt_t;

static const xopt_t xopts[] = {
	/* compile-time */
	{ "aggpercpu", XV_NONE, NULL }, { "amin", XV_STR, NULL },
	{ "argref", XV_NONE, NULL }, { "core", XV_NONE, NULL },
	{ "cpp", XV_NONE, NULL }, { "cppargs", XV_STR, NULL },
	{ "cpphdrs", XV_NONE, NULL }, { "cpppath", XV_STR, NULL },
	{ "ctypes", XV_STR, NULL }, { "ctfpath", XV_STR, NULL },
	{ "defaultargs", XV_NONE, NULL }, { "debug", XV_NONE, NULL },
	{ "debugassert", XV_ENUM, "mutexes " }, { "define", XV_STR, NULL },
	{ "disasm", XV_NUM, NULL }, { "dofstashpath", XV_STR, NULL },
	{ "droptags", XV_ANY, NULL }, { "dtypes", XV_STR, NULL },
	{ "empty", XV_NONE, NULL }, { "errtags", XV_NONE, NULL },
	{ "evaltime", XV_ENUM, "exec preinit postinit main " },
	{ "incdir", XV_STR, NULL }, { "iregs", XV_NUM, NULL },
	{ "kdefs", XV_NONE, NULL }, { "knodefs", XV_NONE, NULL },
	{ "late", XV_ENUM, "dynamic static " }, { "lazyload", XV_ANY, NULL },
	{ "ldpath", XV_STR, NULL }, { "libdir", XV_STR, NULL },
	{ "linkmode", XV_ENUM, "kernel dynamic static " },
	{ "linktype", XV_ENUM, "elf dof " }, { "linknommap", XV_ANY, NULL },
	{ "modpath", XV_STR, NULL }, { "nolibs", XV_NONE, NULL },
	{ "pgmax", XV_STR, NULL }, { "preallocate", XV_NUM, NULL },
	{ "procfspath", XV_STR, NULL }, { "pspec", XV_NONE, NULL },
	{ "stdc", XV_ENUM, "a c t s " }, { "strip", XV_NONE, NULL },
	{ "syslibdir", XV_STR, NULL }, { "sysslice", XV_STR, NULL },
	{ "tree", XV_NUM, NULL }, { "tregs", XV_NUM, NULL },
	{ "udefs", XV_NONE, NULL }, { "undef", XV_STR, NULL },
	{ "unodefs", XV_NONE, NULL }, { "useruid", XV_NUM, NULL },
	{ "verbose", XV_NONE, NULL }, { "version", XV_STR, NULL },
	{ "zdefs", XV_NONE, NULL },
	/* run-time and dynamic run-time */
	{ "aggsize", XV_NUM, NULL }, { "bpflog", XV_ANY, NULL },
	{ "bpflogsize", XV_NUM, NULL }, { "bufsize", XV_NUM, NULL },
	{ "bufpolicy", XV_ENUM, "ring fill switch " },
	{ "bufresize", XV_ENUM, "auto manual " }, { "cleanrate", XV_NUM, NULL },
	{ "cpu", XV_NUM, NULL }, { "destructive", XV_ANY, NULL },
	{ "dynvarsize", XV_NUM, NULL }, { "grabanon", XV_ANY, NULL },
	{ "jstackframes", XV_NUM, NULL }, { "jstackstrsize", XV_NUM, NULL },
	{ "lockmem", XV_NUM, NULL }, { "maxframes", XV_NUM, NULL },
	{ "nspec", XV_NUM, NULL }, { "pcapsize", XV_NUM, NULL },
	{ "scratchsize", XV_NUM, NULL }, { "specsize", XV_NUM, NULL },
	{ "stackframes", XV_NUM, NULL }, { "statusrate", XV_NUM, NULL },
	{ "strsize", XV_NUM, NULL }, { "ustackframes", XV_NUM, NULL },
	{ "noresolve", XV_ANY, NULL }, { "aggrate", XV_NUM, NULL },
	{ "aggsortkey", XV_ANY, NULL }, { "aggsortkeypos", XV_NUM, NULL },
	{ "aggsortpos", XV_NUM, NULL }, { "aggsortrev", XV_ANY, NULL },
	{ "flowindent", XV_ANY, NULL }, { "quiet", XV_ANY, NULL },
	{ "quietresize", XV_ANY, NULL }, { "rawbytes", XV_ANY, NULL },
	{ "stackindent", XV_NUM, NULL }, { "switchrate", XV_NUM, NULL },
	{ "printsize", XV_NUM, NULL },
	{ NULL, XV_NONE, NULL }
};

/* Whether value is one of the words of set (each followed by a space). */
static bool
in_set(const char *set, const char *value)
{
	size_t n = strlen(value);

	for (const char *w = set; *w != '\0'; w = strchr(w, ' ') + 1)
		if (n > 0 && strncmp(w, value, n) == 0 && w[n] == ' ')
			return true;
	return false;
}

/* Whether value suits x (dtrace's checks, see enum xval). */
static bool
x_value_ok(const xopt_t *x, const char *value)
{
	switch (x->val) {
	case XV_NONE: return value == NULL;
	case XV_ANY: return true;
	case XV_STR: return value != NULL;
	case XV_NUM: return value != NULL && value[0] >= '0' && value[0] <= '9';
	case XV_ENUM: return value != NULL && in_set(x->set, value);
	}
	return false;
}

/* The name usdtc was run by (dtrace's g_pname): `dtrace` through its link. */
static const char *invoked_as = PROG;

/*
 * dtrace's refusal of -x NAME, word for word as its dfatal() prints it
 * (with the name it was run by, no "error:") and its exit status, since
 * scripts and DTrace's own tests compare that line.
 */
static void __attribute__((noreturn))
x_refused(const char *name, const char *why)
{
	fprintf(stderr, "%s: failed to set -x %s: %s\n", invoked_as, name, why);
	exit(1);
}

static void
x_option(options_t *o, char *opt)
{
	static char dash_i[] = "-I", dash_d[] = "-D", dash_u[] = "-U";
	char *eq = strchr(opt, '=');
	const char *value = eq ? eq + 1 : NULL;
	const xopt_t *x = xopts;

	if (eq != NULL)
		*eq = '\0';	/* as dtrace's own -x, which names the option alone */
	while (x->name != NULL && strcmp(x->name, opt) != 0)
		x++;
	if (x->name == NULL)
		x_refused(opt, "Invalid option name");
	if (!x_value_ok(x, value))
		x_refused(opt, "Invalid value for specified option");
	if (strcmp(opt, "lazyload") == 0)
		o->lazyload = true;
	else if (strcmp(opt, "strip") == 0)
		o->strip = true;
	else if (strcmp(opt, "linktype") == 0)
		o->raw_dof = strcmp(value, "dof") == 0;
	else if (strcmp(opt, "cpppath") == 0)
		o->cpp_cmd = value;
	else if (strcmp(opt, "ldpath") == 0)
		o->ld_cmd = value;
	else if (strcmp(opt, "cpp") == 0)
		o->cpp = true;
	else if (strcmp(opt, "cppargs") == 0) {
		/* dtrace's: words for the preprocessor, split at white space */
		char *save = NULL;

		for (char *w = strtok_r(eq + 1, " \t", &save); w != NULL;
		    w = strtok_r(NULL, " \t", &save))
			push(&o->cpp_args, &o->ncpp_args, w);
	} else if (strcmp(opt, "incdir") == 0 || strcmp(opt, "define") == 0 ||
	    strcmp(opt, "undef") == 0) {
		push(&o->cpp_args, &o->ncpp_args, opt[0] == 'i' ? dash_i : opt[0] == 'd' ? dash_d : dash_u);
		push(&o->cpp_args, &o->ncpp_args, (char *)value);
	}
}

/* Options that take an argument, in dtrace's getopt string. */
static bool
takes_argument(char c)
{
	return strchr("bcDIiLmnoPpsUxXf", c) != NULL;
}

static void
short_option(options_t *o, char c, char *arg)
{
	static char dash_i[] = "-I", dash_d[] = "-D", dash_u[] = "-U";

	switch (c) {
	case 'h': set_mode(o, MODE_HEADER, "-h"); break;
	case 'G': set_mode(o, MODE_OBJECT, "-G"); break;
	case 'C': o->cpp = true; break;
	case 'v': o->verbose = true; break;
	case 'V':
		printf(PROG " " USDTC_VERSION " (Sun D 1.13 compatible)\n");
		exit(0);
	case 's': push(&o->scripts, &o->nscripts, arg); break;
	case 'o': o->output = arg; break;
	case 'x': x_option(o, arg); break;
	case 'I':
		push(&o->cpp_args, &o->ncpp_args, dash_i);
		push(&o->cpp_args, &o->ncpp_args, arg);
		break;
	case 'D':
		push(&o->cpp_args, &o->ncpp_args, dash_d);
		push(&o->cpp_args, &o->ncpp_args, arg);
		break;
	case 'U':
		push(&o->cpp_args, &o->ncpp_args, dash_u);
		push(&o->cpp_args, &o->ncpp_args, arg);
		break;
	case 'e': case 'q': case 'w': case 'Z': case 'S':
		break;	/* compile-only or tracing flags with no effect here */
	case 'k':
		break;	/* SystemTap's: keep its temporary .c and .h; usdtc writes none */
	default:
		error("option -%c is not supported: usdtc implements dtrace's "
		    "build modes (-h, -G)", c);
		exit(2);
	}
}

static bool
ignored_word(const char *arg)
{
	static const char *const words[] = {
		"-fpic", "-fPIC", "-fpie", "-fPIE", "-fno-pic", NULL
	};

	for (int i = 0; words[i] != NULL; i++)
		if (strcmp(arg, words[i]) == 0)
			return true;
	return false;
}

static void
long_option(options_t *o, char *arg)
{
	if (strcmp(arg, "--help") == 0) {
		usage(stdout);
		exit(0);
	} else if (strcmp(arg, "--version") == 0) {
		printf(PROG " " USDTC_VERSION "\n");
		exit(0);
	} else if (strcmp(arg, "--types") == 0 || strcmp(arg, "--no-pyparsing") == 0) {
		/* SystemTap's: an obsolete option; its fallback parser, which usdtc has no need of */
	} else if (strcmp(arg, "--list") == 0) {
		set_mode(o, MODE_LIST, "--list");
	} else if (strcmp(arg, "--dump") == 0) {
		set_mode(o, MODE_DUMP, "--dump");
	} else if (strncmp(arg, "--base=", 7) == 0) {
		char *end;

		errno = 0;
		o->base = strtoull(arg + 7, &end, 0);
		if (errno != 0 || end == arg + 7 || *end != '\0') {
			error("--base needs an address, not '%s'", arg + 7);
			exit(2);
		}
	} else if (strncmp(arg, "--target=", 9) == 0) {
		if ((o->target = target_find(arg + 9)) == NULL) {
			error("unknown target '%s' (known: %s)", arg + 9, target_names());
			exit(2);
		}
	} else {
		error("unknown option %s", arg);
		usage(stderr);
		exit(2);
	}
}

static void
parse_args(options_t *o, int argc, char **argv)
{
	bool operands_only = false;

	for (int i = 1; i < argc; i++) {
		char *arg = argv[i];

		if (operands_only || arg[0] != '-' || arg[1] == '\0') {
			push(&o->operands, &o->noperands, arg);
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			operands_only = true;
			continue;
		}
		if (ignored_word(arg))
			continue;
		if (strcmp(arg, "-32") == 0 || strcmp(arg, "-64") == 0) {
			o->bits = arg[1] == '3' ? 32 : 64;
			continue;
		}
		if (arg[1] == '-') {
			long_option(o, arg);
			continue;
		}
		for (char *p = arg + 1; *p != '\0'; p++) {
			if (!takes_argument(*p)) {
				short_option(o, *p, NULL);
				continue;
			}
			if (p[1] != '\0') {
				short_option(o, *p, p + 1);
			} else if (i + 1 < argc) {
				short_option(o, *p, argv[++i]);
			} else {
				error("option -%c needs an argument", *p);
				exit(2);
			}
			break;
		}
	}
}

/* ---- -G's target and compiler -------------------------------------------- */

/*
 * How long -G waits for $CC (its -dumpmachine, the semaphores' compile):
 * $USDTC_CC_TIMEOUT seconds, else 120, so a compiler or wrapper that never
 * answers ends the build with a message, not a hang.
 */
static int
cc_timeout_ms(void)
{
	const char *env = getenv("USDTC_CC_TIMEOUT");
	char *end;
	long s;

	if (env == NULL || *env == '\0')
		return 120 * 1000;
	errno = 0;
	s = strtol(env, &end, 10);
	if (errno != 0 || *end != '\0' || s <= 0 || s > 86400) {
		error("USDTC_CC_TIMEOUT must be a whole number of seconds (1 to 86400), "
		    "not '%s' [OPT_BAD_VALUE]", env);
		exit(2);
	}
	return (int)s * 1000;
}

/* $CC when set and not blank, else NULL. */
static const char *
cc_env(void)
{
	const char *cc = getenv("CC");

	return cc != NULL && cc[strspn(cc, " \t\n")] != '\0' ? cc : NULL;
}

/* The words of the given commands, split as the shell does; exits on an open quote. */
static char **
words_or_exit(const char *const *cmds, size_t n, size_t extra, size_t *argc)
{
	char **argv = spawn_words_n(cmds, n, extra, argc);

	if (argv == NULL && errno == EINVAL) {
		error("$CC or $CFLAGS has a quote that is never closed: CC='%s' CFLAGS='%s' "
		    "[OPT_BAD_QUOTE]", cmds[0] != NULL ? cmds[0] : "",
		    n > 1 && cmds[1] != NULL ? cmds[1] : "");
		exit(2);
	}
	if (argv == NULL) {
		error("out of memory");
		exit(1);
	}
	return argv;
}

/*
 * What `$CC -dumpmachine` prints, its first line; NULL when CC is not set
 * or does not answer.  Asked once.  The wait is for $CC's exit, bounded
 * (spawn_wait_output): a wrapper's background process that keeps its
 * output open does not hold -G, and one that never answers is an error.
 */
static const char *
cc_machine(void)
{
	static char buf[256];
	static int asked;
	const char *cc = cc_env();
	char **argv;
	size_t n, len;
	int fds[3] = { -1, -1, -1 }, p[2], status, rc, timeout = cc_timeout_ms();
	pid_t pid;

	if (asked++ || cc == NULL)
		return buf[0] != '\0' ? buf : NULL;
	argv = words_or_exit(&cc, 1, 1, &n);
	argv[n++] = "-dumpmachine";
	argv[n] = NULL;
	if (pipe(p) != 0) {
		free(argv);
		return NULL;
	}
	fds[1] = p[1];
	rc = spawn_argv(argv, fds, &pid);
	close(p[1]);
	if (rc == 0)
		rc = spawn_wait_output(pid, p[0], buf, sizeof(buf), &len, timeout, &status);
	close(p[0]);
	if (rc == ETIMEDOUT) {
		error("$CC ('%s') did not answer -dumpmachine in %d s: give --target=, or more "
		    "time with USDTC_CC_TIMEOUT=SECONDS [G_CC_TIMEOUT]", cc, timeout / 1000);
		exit(1);
	}
	free(argv);
	buf[strcspn(buf, "\n")] = '\0';
	if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		buf[0] = '\0';
	return buf[0] != '\0' ? buf : NULL;
}

/*
 * 32 or 64 when -m32/-m64 is among the words of $CC or $CFLAGS (the last
 * one, as the compiler takes it), else 0.
 */
static int
cc_bits(void)
{
	const char *vars[] = { getenv("CC"), getenv("CFLAGS") };
	size_t n;
	char **argv = words_or_exit(vars, 2, 0, &n);
	int bits = 0;

	for (size_t i = 0; i < n; i++)
		if (strcmp(argv[i], "-m32") == 0 || strcmp(argv[i], "-m64") == 0)
			bits = argv[i][2] == '3' ? 32 : 64;
	free(argv);
	return bits;
}

/*
 * -G's target without --target, as SystemTap's -G follows the build: the
 * target of $CC (its -dumpmachine, in the half -m32/-m64 or -32/-64 ask
 * for), else the host's in the half -32/-64 ask for.
 */
static const target_t *
build_target(const options_t *o)
{
	const char *triple = cc_machine();
	int bits = o->bits != 0 ? o->bits : cc_bits();
	const target_t *t = NULL;

	if (triple != NULL && (t = target_for_triple(triple, bits)) == NULL)
		warning("cannot tell a target from $CC's machine '%s': writing for the host "
		    "(give --target=)", triple);
	if (t == NULL && bits != 0 && (t = target_for_triple(target_host()->name, bits)) == NULL) {
		error("-%d: the host's architecture has no %d-bit target; give --target=", bits, bits);
		exit(2);
	}
	return t != NULL ? t : target_host();
}

/* An error for two choices of -G's target that disagree; exits. */
static void __attribute__((format(printf, 1, 2), noreturn))
conflict(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" [OPT_CONFLICT]\n", stderr);
	exit(2);
}

/*
 * -G's choices of target, each said by -32/-64, --target=, the -m32/-m64
 * of $CC or $CFLAGS, and $CC's own machine, must agree: an object of the
 * half or machine one of them did not ask for is never written.  $CC's
 * machine counts where -G compiles with it (sdt_only targets); an x86_64
 * $CC compiles for i386 with -m32 (cc_half_flag).
 */
static void
check_choices(const options_t *o)
{
	int ccb = cc_bits();
	const char *triple;
	const target_t *own;

	if (o->bits != 0 && o->target != NULL && o->bits != target_bits(o->target))
		conflict("-%d and --target=%s disagree: %s is a %d-bit target; give one of them",
		    o->bits, o->target->name, o->target->name, target_bits(o->target));
	if (o->bits != 0 && ccb != 0 && o->bits != ccb)
		conflict("-%d and the -m%d of $CC or $CFLAGS disagree", o->bits, ccb);
	if (o->target != NULL && ccb != 0 && ccb != target_bits(o->target))
		conflict("--target=%s and the -m%d of $CC or $CFLAGS disagree: %s is a %d-bit target",
		    o->target->name, ccb, o->target->name, target_bits(o->target));
	if (o->target == NULL || !o->target->sdt_only || (triple = cc_machine()) == NULL)
		return;
	own = target_for_triple(triple, target_bits(o->target));
	if (own != o->target)
		conflict("--target=%s and $CC ('%s', a compiler for %s) disagree: set CC to a "
		    "compiler for %s, or leave CC unset to use %s-gcc", o->target->name,
		    cc_env(), triple, o->target->name, o->target->cc_triples != NULL ?
		    o->target->cc_triples : "the target's");
}

/* Whether PATH has an executable file called name. */
static bool
on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	for (const char *p = path != NULL ? path : "/usr/bin:/bin"; ; p++) {
		size_t len = strcspn(p, ":");

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len != 0 ? p : ".",
		    name) < (int)sizeof(buf) && access(buf, X_OK) == 0)
			return true;
		p += len;
		if (*p == '\0')
			return false;
	}
}

/*
 * The compiler -G compiles a sdt_only target's semaphores with: $CC, else
 * the host's cc where it compiles for t (the same target, or x86_64 for
 * i386 with -m32), else the first of t's cross compilers on PATH
 * (s390x-linux-gnu-gcc for --target=s390x-linux), else cc (and a compiler
 * of another machine is then an error saying how to name one).
 */
static const char *
cc_command(const target_t *t)
{
	static char name[128];
	const char *cc = cc_env(), *p;
	const target_t *host = target_host();

	if (cc != NULL || !t->sdt_only || t->cc_triples == NULL || host == t ||
	    target_for_triple(host->name, target_bits(t)) == t)
		return cc != NULL ? cc : "cc";
	for (p = t->cc_triples; *p != '\0'; p += strspn(p, " ")) {
		size_t len = strcspn(p, " ");

		snprintf(name, sizeof(name), "%.*s-gcc", (int)len, p);
		if (on_path(name))
			return name;
		p += len;
	}
	return "cc";
}

/*
 * The flag $CC needs to compile -G's semaphores for t (sdtobj.c), when t is
 * the other half of the compiler's own CPU and neither $CC nor $CFLAGS
 * says -m32/-m64: `-G -32` (or --target=i386-linux) with an x86_64 cc is
 * -m32, which needs no 32-bit C library, since the semaphores' source
 * includes nothing.  NULL otherwise (then a compiler of another machine is
 * an error naming both, sdtobj_write).
 */
static const char *
cc_half_flag(const target_t *t)
{
	const char *triple;
	const target_t *own;

	if (!t->sdt_only || cc_bits() != 0)
		return NULL;
	own = (triple = cc_machine()) != NULL ? target_for_triple(triple, 0) : target_host();
	if (own != NULL && own->arch == &arch_x86_64 && strcmp(t->arch->name, "i386") == 0)
		return "-m32";
	return NULL;
}

static void
apply_environment(options_t *o)
{
	const char *env;

	if (o->cpp_cmd == NULL) {
		if ((env = getenv("USDTC_CPP")) != NULL && *env != '\0')
			o->cpp_cmd = env;
		else if ((env = getenv("CPP")) != NULL && *env != '\0')
			o->cpp_cmd = env;
		else
			o->cpp_cmd = "cpp";
	}
	/* No linker named: -G merges drti_lite itself (elfmerge.c). */
	if (o->ld_cmd == NULL && (env = getenv("USDTC_LD")) != NULL && *env != '\0')
		o->ld_cmd = env;
	if (o->mode == MODE_OBJECT)
		check_choices(o);
	if (o->target == NULL)
		o->target = o->mode == MODE_OBJECT ? build_target(o) : target_host();
}

/* ---- the runs ---------------------------------------------------------- */

/*
 * A target's writers: the ELF targets get dtrace's header and object,
 * those with no DTrace (sdt_only) the same header and SystemTap's object
 * (the semaphores compiled by $CC), the macOS ones Apple's header (no
 * code) and a Mach-O object.  This is
 * the one place where the target picks them.
 */
typedef struct backend {
	void (*header)(const mdl_model_t *m, const target_t *t,
	    const char *guard_file, strbuf_t *out);
	int (*object)(const mdl_model_t *m, const target_t *t,
	    const objgen_opts_t *o, const char *out_path, err_t *e);
} backend_t;

static const backend_t *
backend_for(const target_t *t)
{
	static const backend_t elf = { header_write, objgen_write };
	static const backend_t sdt = { header_write, sdtobj_write };
	static const backend_t macho = { header_macos_write, macho_objgen_write };

	return t->os == TARGET_OS_MACOS ? &macho : t->sdt_only ? &sdt : &elf;
}

static mdl_model_t *
parse_scripts(const options_t *o)
{
	/* dtrace's own preprocessor definitions (cpp.c), before the user's. */
	const char *const *pre = cpp_platform_args(o->target);
	size_t npre = 0;
	char **cpp_args;
	parse_opts_t po = { o->cpp, o->cpp_cmd, NULL, 0 };
	mdl_model_t *m = mdl_new();
	int errors = 0;

	while (pre[npre] != NULL)
		npre++;
	cpp_args = calloc(o->ncpp_args + npre, sizeof(char *));
	po.cpp_args = cpp_args;
	if (m == NULL || cpp_args == NULL) {
		error("out of memory");
		exit(1);
	}
	for (size_t i = 0; i < npre; i++)
		cpp_args[po.ncpp_args++] = (char *)pre[i];
	for (size_t i = 0; i < o->ncpp_args; i++)
		cpp_args[po.ncpp_args++] = o->cpp_args[i];
	for (size_t i = 0; i < o->nscripts; i++)
		errors += parse_file(m, o->scripts[i], &po);
	free(cpp_args);
	if (errors > 0) {
		mdl_free(m);
		return NULL;
	}
	return m;
}

/*
 * The end of writing OUT through its temporary: on failure (RC != 0) the
 * temporary goes and E is reported; on success -v says what was written.
 */
static int
output_done(const options_t *o, const char *out, int rc, const err_t *e)
{
	if (rc != 0) {
		tempset_discard(&temps);
		error("%s", e->msg);
		return 1;
	}
	if (o->verbose)
		fprintf(stderr, PROG ": wrote %s\n", out);
	return 0;
}

/*
 * The header goes to its temporary a megabyte at a time (sb_stream), not
 * held whole: for a large provider it was as big as the model, and the
 * peak of -h (issue 40).  Only the header writer appends; nothing reads it
 * back.
 */
#define HEADER_CHUNK	(1u << 20)

typedef struct header_job {
	const options_t *o;
	const mdl_model_t *m;
	const char *out;	/* the output's name, which the guard derives from */
	int fd, err;		/* where the bytes go; errno of a failed write */
} header_job_t;

static int
header_sink(void *ctx, const void *bytes, size_t n)
{
	header_job_t *j = ctx;

	if (file_write_all_fd(j->fd, bytes, n) == 0)
		return 0;
	j->err = errno;
	return -1;
}

static int
fill_header(int fd, const char *name, void *ctx, err_t *e)
{
	header_job_t *j = ctx;
	strbuf_t text;
	int rc = 0;

	j->fd = fd;
	sb_init(&text);
	sb_stream(&text, header_sink, j, HEADER_CHUNK);
	backend_for(j->o->target)->header(j->m, j->o->target, j->out, &text);
	if (!sb_flush(&text))
		rc = j->err != 0 ? err_errno(e, j->err, "cannot write %s", name) :
		    err_set(e, "out of memory writing %s", name);
	sb_free(&text);
	return rc;
}

static int
run_header(const options_t *o, mdl_model_t *m, const char *out)
{
	header_job_t job = { o, m, out, -1, 0 };
	const char *tmp;
	err_t e;
	int rc;

	rc = (tmp = output_temp(out, &e)) == NULL ? -1 : 0;
	if (rc == 0)
		rc = file_write_path(tmp, out, fill_header, &job, &e);
	if (rc == 0)
		rc = tempset_commit(&temps, &e);
	return output_done(o, out, rc, &e);
}

/*
 * The objects of o that exist: one that does not (ENOENT) has no probe
 * sites to record, so it is left out with a warning, as SystemTap's dtrace
 * goes on without it (PHP's build runs -G over objects it may not have
 * made); any other failure to open one stays an error (objin.c).  The
 * array is malloc'd; NULL when out of memory.
 */
static char **
existing_objects(const options_t *o, size_t *np)
{
	char **v = malloc((o->noperands + 1) * sizeof(*v));
	struct stat st;

	*np = 0;
	for (size_t i = 0; v != NULL && i < o->noperands; i++) {
		if (stat(o->operands[i], &st) != 0 && errno == ENOENT)
			warning("%s: %s; it has no probe sites to record, so -G goes on "
			    "without it", o->operands[i], strerror(ENOENT));
		else
			v[(*np)++] = o->operands[i];
	}
	return v;
}

/*
 * objgen_opts_t.memory_freed, and after the model: freed pages handed
 * back.  What -G frees as it goes (the site table, the model) is many
 * small blocks among the builder's in the heap, where glibc keeps freed
 * pages: malloc_trim returns them, so that what is made next takes their
 * place rather than adding to them (issue 40).
 */
static void
memory_freed(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* objgen_opts_t.model_done: the model freed before the object is written. */
static void
free_model(void *ctx)
{
	mdl_model_t **mp = ctx;

	mdl_free(*mp);
	*mp = NULL;
	memory_freed();
}

static int
run_object(const options_t *o, mdl_model_t **mp, const char *out)
{
	mdl_model_t *m = *mp;
	size_t nobjects;
	char **objects = existing_objects(o, &nobjects);
	objgen_opts_t go = {
		.objects = objects,
		.nobjects = nobjects,
		.lazyload = o->lazyload,
		.strip = o->strip,
		.raw_dof = o->raw_dof,
		.verbose = o->verbose,
		.ld_cmd = o->ld_cmd,
		.drti_missing = drti_object_missing(o->target),
		.drti_ld = drti_linker(o->target),
		.temps = &temps,
		.out_name = out,
		.cc_flag = cc_half_flag(o->target),
		.cc_cmd = cc_command(o->target),
		.cc_timeout_ms = cc_timeout_ms(),
		.model_done = free_model,
		.model_done_ctx = mp,
		.memory_freed = memory_freed,
	};
	const char *tmp = NULL;
	err_t e;
	int rc;

	if (objects == NULL) {
		error("out of memory");
		return 1;
	}
	if (o->raw_dof && backend_for(o->target)->object != objgen_write) {
		free(objects);
		error("-x linktype=dof: target %s is not written as ELF with DOF", o->target->name);
		return 1;
	}
	go.drti = drti_object_for(o->target, &go.drti_size);
	if (!target_host_writes(o->target))
		rc = err_set(&e, "-G for %s: usdtc on a big-endian host does not write "
		    "little-endian DOF and notes yet; run -G on a little-endian machine "
		    "[G_HOST_BYTE_ORDER]", o->target->name);
	else
		rc = (tmp = output_temp(out, &e)) == NULL ? -1 : 0;
	if (rc == 0)
		rc = backend_for(o->target)->object(m, o->target, &go, tmp, &e);
	if (rc == 0)
		rc = tempset_commit(&temps, &e);
	free(objects);
	return output_done(o, out, rc, &e);
}

static int
run_compile(options_t *o)
{
	mdl_model_t *m;
	char *out;
	int rc;

	if (o->nscripts == 0) {
		error("no provider definition given: use -s file.d");
		return 2;
	}
	if (o->mode == MODE_HEADER && o->noperands > 0)
		warning("ignoring %zu operand(s) after the options: -h takes none",
		    o->noperands);
	out = o->output ? strdup(o->output) : default_output(o->scripts[0], o->mode);
	if (out == NULL) {
		error("out of memory");
		return 1;
	}
	if (output_is_input(o, out) || (m = parse_scripts(o)) == NULL) {
		free(out);
		return 1;
	}
	rc = o->mode == MODE_HEADER ? run_header(o, m, out) : run_object(o, &m, out);
	mdl_free(m);
	free(out);
	return rc;
}

static int
run_list(const options_t *o)
{
	int rc = 0;

	if (o->noperands == 0) {
		error("%s needs at least one file", o->mode == MODE_LIST ? "--list" : "--dump");
		return 2;
	}
	list_opts_t lo = {
		.mode = o->mode == MODE_LIST ? LIST_SUMMARY : LIST_DUMP,
		.base = o->base,
	};

	for (size_t i = 0; i < o->noperands; i++) {
		err_t e;

		if (list_file_ex(stdout, o->operands[i], &lo, &e) != 0) {
			fflush(stdout);
			error("%s", e.msg);
			rc = 1;
		}
	}
	return rc;
}

/*
 * Every block of 128 KB or more its own mapping, from start to end: glibc
 * otherwise raises that threshold to the largest such block freed, so
 * once the DOF's working buffers are freed every later table of -G (the
 * symbols, their names, the relocations) is a heap block, grown by
 * copying and leaving its old pages behind; a mapping grows in place
 * (mremap) and its unused end takes no memory (issue 40: -G's peak at
 * 10,000 probes 0.6 MB lower).
 */
static void
heap_policy(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int
main(int argc, char **argv)
{
	options_t o = { 0 };
	int rc;

	catch_signals();
	heap_policy();
	if (argc > 0 && argv[0][0] != '\0')
		invoked_as = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	parse_args(&o, argc, argv);
	apply_environment(&o);
	switch (o.mode) {
	case MODE_HEADER:
	case MODE_OBJECT:
		rc = run_compile(&o);
		break;
	case MODE_LIST:
	case MODE_DUMP:
		rc = run_list(&o);
		break;
	default:
		error("nothing to do: give -h or -G (or --list, --dump, --help)");
		usage(stderr);
		rc = 2;
	}
	free(o.scripts);
	free(o.operands);
	free(o.cpp_args);
	return rc;
}
