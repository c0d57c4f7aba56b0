/*
 * model.h - what a provider definition means, independent of its source.
 *
 * The parser (lexer.l, parser.y) fills a mdl_model_t from a .d file; libusdt
 * (libusdt/usdt.c) fills one from API calls.  Every writer reads only this:
 * header/ (-h), dofgen.c (DOF), units.c (units, stapsdt notes), objgen.c
 * (-G object).
 *
 * Names follow DTrace.  A probe is declared as `request__start`; its DTrace
 * name turns each `__` into `-` (`request-start`); its functions are
 * `__dtrace_http___request__start` / `__dtraceenabled_http___request__start`
 * (each `-` of the DTrace name back to `__`); its macros are
 * `HTTP_REQUEST_START` / `HTTP_REQUEST_START_ENABLED`.  The stapsdt note and
 * semaphore keep the name as written (`request__start`,
 * `http_request__start_semaphore`), which is what Linux tracers expect.
 *
 * Ownership: the model owns every string and array it points to; mdl_free
 * releases all of it.  A probe's names live in its own allocation, its
 * finished argument lists and their strings in one block (model.c): a
 * model of 100,000 probes is most of -G's memory (issue 40).  Allocation failures return NULL / -1 and leave the
 * model consistent, because the run-time library must survive them.
 */
#ifndef USDTC_MODEL_H
#define USDTC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dof.h"

/* DTrace's limits, which the model enforces (stated in dof.h). */
#define MDL_PROVNAMELEN	DTRACE_PROVNAMELEN
#define MDL_FUNCNAMELEN	DTRACE_FUNCNAMELEN
#define MDL_NAMELEN		DTRACE_NAMELEN
#define MDL_MAXARGS		DOF_MAXARGS

/*
 * A probe's functions (its unit): MDL_PROBE_PREFIX provider "___" probe,
 * each '-' of the probe's DOF name spelt "__" (mdl_probe_func), and the
 * same after MDL_ENABLED_PREFIX for _ENABLED().  dtrace -G finds probe
 * calls in objects by these names; so do objgen.c and rewrite_plan.c.
 */
#define MDL_PROBE_PREFIX	"__dtrace_"
#define MDL_ENABLED_PREFIX	"__dtraceenabled_"
#define MDL_PROBE_SEP		"___"
/*
 * The one section of an object that holds its units, in no COMDAT group:
 * the -G object's (units.c) and each file's of the header's (forms_dtrace.c).
 * Their symbols are weak and hidden, so every reference binds to one copy
 * and the others are dead bytes (doc/design.md section 2).
 */
#define MDL_UNITS_SECTION	".text.__dtrace_units"

/* Where something was written: for diagnostics. file is interned by the parser. */
typedef struct src_loc {
	const char *file;
	int line;	/* 1-based; 0 = unknown */
	int col;	/* 1-based; 0 = unknown */
} src_loc_t;

/* DOF stability and dependency class values (doc/dof.md section 3). */
enum mdl_stability {
	MDL_STAB_INTERNAL = 0, MDL_STAB_PRIVATE, MDL_STAB_OBSOLETE,
	MDL_STAB_EXTERNAL, MDL_STAB_UNSTABLE, MDL_STAB_EVOLVING,
	MDL_STAB_STABLE, MDL_STAB_STANDARD
};
enum mdl_depclass {
	MDL_CLASS_UNKNOWN = 0, MDL_CLASS_CPU, MDL_CLASS_PLATFORM,
	MDL_CLASS_GROUP, MDL_CLASS_ISA, MDL_CLASS_COMMON
};

typedef struct mdl_attr {
	uint8_t name;	/* enum mdl_stability */
	uint8_t data;	/* enum mdl_stability */
	uint8_t dclass;	/* enum mdl_depclass */
} mdl_attr_t;

/* The five attribute slots of a provider, in dof_provider_t order. */
enum mdl_attr_part {
	MDL_ATTR_PROVIDER, MDL_ATTR_MODULE, MDL_ATTR_FUNCTION,
	MDL_ATTR_NAME, MDL_ATTR_ARGS, MDL_ATTR_NPARTS
};

/* How a value of some C type travels in the calling convention. */
enum mdl_typeclass {
	MDL_TC_INTEGER,	/* integers, enums, bool, pointers, D string */
	MDL_TC_FLOAT,		/* float, double */
	MDL_TC_MEMORY,		/* long double, struct/union by value */
	MDL_TC_VOID
};

typedef struct mdl_typeinfo {
	enum mdl_typeclass tclass;
	unsigned size;		/* bytes; 0 = unknown (treated as 8 in registers) */
	bool is_signed;
	bool known;		/* false: a name we could not resolve; size is a guess */
	bool is_pointer;	/* a pointer, array or D string, typedefs resolved */
} mdl_typeinfo_t;

/*
 * An argument's place is a line and column of its probe's file
 * (mdl_arg_loc): a file name pointer of its own made the model 0.3 MB
 * bigger at 10,000 probes, at -G's peak (issue 40).  An argument written
 * in another file (an #include inside the list) has line 0: the probe's
 * file, no line.
 */
typedef struct mdl_arg {
	char *type;	/* C spelling, normalised: "char *", "const char **", "struct foo *" */
	char *name;	/* parameter name, or NULL when unnamed */
	int line;	/* 1-based, in the probe's file; 0 = unknown */
	int col;
} mdl_arg_t;

/*
 * A place in code where a probe fires (or where its is-enabled test sits).
 * The DOF records it as func + offset; func's address comes from a
 * relocation against `symbol` (an alias for static functions), or is
 * func_addr when already known (run-time providers).
 */
typedef struct mdl_site {
	char *func;		/* dofpr_func: the function's real name */
	char *symbol;		/* relocation symbol; equals func unless aliased */
	uint64_t func_addr;	/* absolute address if known, else 0 */
	uint32_t offset;	/* from the start of func */
	bool is_enabled;	/* an is-enabled site, not a firing site */
} mdl_site_t;

typedef struct mdl_probe {
	char *name;		/* as declared: "request__start" */
	char *dof_name;		/* DTrace name: "request-start"; name itself when alike */
	mdl_arg_t *nargs;	/* native arguments */
	size_t nargc;
	mdl_arg_t *xargs;	/* translated arguments; nargs itself if none given */
	size_t xargc;
	const uint8_t *argmap;	/* [xargc]: index of the native arg feeding each xarg */
	bool translated;	/* an explicit ": (...)" list was written */
	/*
	 * model.c's: nargs is one block holding both lists and their strings
	 * (mdl_probe_finish_args packs them; adding an argument unpacks).
	 */
	bool args_packed;
	mdl_site_t *sites;	/* libusdt's, at run time (-G keeps its own: sites.h) */
	size_t nsites;
	src_loc_t loc;
} mdl_probe_t;

typedef struct mdl_provider {
	char *name;
	mdl_attr_t attr[MDL_ATTR_NPARTS];
	mdl_probe_t **probes;	/* in declaration order */
	size_t nprobes;
	src_loc_t loc;
	struct mdl_name_index *index;	/* probes by dof_name; model.c's, may be NULL */
} mdl_provider_t;

/* `typedef TYPE NAME;` from the definition file: for argument sizes. */
typedef struct mdl_typedef {
	char *name;
	char *type;	/* normalised C spelling of what it names */
} mdl_typedef_t;

/* A struct/union/enum declared in the definition file. */
typedef struct mdl_tagged {
	char *tag;	/* "struct foo", "union bar", "enum baz" */
	unsigned size;	/* 0 if incomplete or not computed */
	unsigned align;
	bool complete;
	/*
	 * A floating member somewhere inside (a struct with a double): by
	 * value, its bytes travel in SSE registers, not the general ones.
	 */
	bool has_float;
} mdl_tagged_t;

/* `translator OUT < IN NAME > { ... };`: only which conversions exist. */
typedef struct mdl_translator {
	char *out_type;
	char *in_type;
	src_loc_t loc;
} mdl_translator_t;

typedef struct mdl_model {
	mdl_provider_t **providers;	/* in declaration order */
	size_t nproviders;
	mdl_typedef_t *typedefs;
	size_t ntypedefs;
	mdl_tagged_t *tagged;
	size_t ntagged;
	mdl_translator_t *translators;
	size_t ntranslators;
	char **files;			/* interned source file names */
	size_t nfiles;
	struct mdl_name_index *typedef_index;	/* typedefs by name; model.c's, may be NULL */
	/* providers by name; model.c's, may be NULL (a copy of the model clears it) */
	struct mdl_name_index *provider_index;
	struct mdl_name_index *tagged_index;	/* tagged by tag; model.c's, may be NULL */
	/*
	 * mdl_type_info's answers by spelling; model.c's, made by mdl_new,
	 * NULL in a model built otherwise (libusdt's): then every lookup
	 * classifies afresh.  A copy of the model shares it.
	 */
	struct mdl_type_cache *type_cache;
} mdl_model_t;

/* Default attributes with no pragma: Unstable/Unstable/Common. */
extern const mdl_attr_t mdl_attr_default;

mdl_model_t *mdl_new(void);
void mdl_free(mdl_model_t *m);

/* Intern a file name for src_loc_t.file; NULL on allocation failure. */
const char *mdl_intern_file(mdl_model_t *m, const char *file);

mdl_provider_t *mdl_find_provider(const mdl_model_t *m, const char *name);
/* Append a provider (no check for duplicates; see mdl_find_provider). */
mdl_provider_t *mdl_add_provider(mdl_model_t *m, const char *name, src_loc_t loc);
/* True if any provider has a probe. */
bool mdl_has_probes(const mdl_model_t *m);
/* Remove and free one provider. */
void mdl_remove_provider(mdl_model_t *m, mdl_provider_t *prov);

mdl_probe_t *mdl_provider_find_probe(const mdl_provider_t *p, const char *name);
/*
 * The position in p->probes of the probe whose DTrace name is dof_name, or
 * (size_t)-1.  Hashed: a provider may hold many thousands of probes.
 */
size_t mdl_provider_find_dof_probe(const mdl_provider_t *p, const char *dof_name);
/* Append a probe named as declared; computes dof_name.  NULL on failure. */
mdl_probe_t *mdl_provider_add_probe(mdl_provider_t *p, const char *name, src_loc_t loc);
/* Remove and free one probe. */
void mdl_provider_remove_probe(mdl_provider_t *p, mdl_probe_t *probe);

/* Where argument a of pr was written. */
src_loc_t mdl_arg_loc(const mdl_probe_t *pr, const mdl_arg_t *a);
int mdl_probe_add_native_arg(mdl_probe_t *pr, const char *type, const char *name, src_loc_t loc);
int mdl_probe_add_xlated_arg(mdl_probe_t *pr, const char *type, const char *name, src_loc_t loc);
/*
 * Finish the argument lists: with no translated list, share the native one
 * (xargs == nargs; adding an argument of either kind unshares them) with
 * the identity map; with one, map each translated arg to the native
 * arg of the same name, else to the native arg at the same position, else
 * to 0 (what dtrace does).  Returns -1 on allocation failure.
 */
int mdl_probe_finish_args(mdl_probe_t *pr);
/*
 * Argument i's type (of the translated list if xlated) spelt type instead,
 * a copy; -1 on allocation failure.  The only way to change an argument:
 * finished lists are packed (mdl_probe_t.args_packed).
 */
int mdl_probe_set_arg_type(mdl_probe_t *pr, bool xlated, size_t i, const char *type);
int mdl_probe_add_site(mdl_probe_t *pr, const char *func, const char *symbol,
    uint64_t func_addr, uint32_t offset, bool is_enabled);

int mdl_add_typedef(mdl_model_t *m, const char *name, const char *type);
const mdl_typedef_t *mdl_find_typedef(const mdl_model_t *m, const char *name);
/* Add or update a struct/union/enum tag; NULL when out of memory. */
mdl_tagged_t *mdl_add_tagged(mdl_model_t *m, const char *tag, unsigned size,
    unsigned align, bool complete);
const mdl_tagged_t *mdl_find_tagged(const mdl_model_t *m, const char *tag);
int mdl_add_translator(mdl_model_t *m, const char *out_type,
    const char *in_type, src_loc_t loc);

/*
 * Classify a normalised C type spelling for an LP64 target: pointers, D's
 * string and integer types of every spelling, fixed-width and system
 * typedefs, float/double, typedefs from the model, struct/union by value.
 * Writers ask several times per argument: a model from mdl_new remembers
 * each spelling's answer (one hash lookup after the first), forgotten
 * whenever a typedef or tagged type is added.
 */
mdl_typeinfo_t mdl_type_info(const mdl_model_t *m, const char *type);

/* The C spelling of a D type in a C header: "string" becomes "char *". */
const char *mdl_c_type(const char *type);

/*
 * Names derived from provider and probe (see the top of this file).  Each
 * returns a malloc'd string, or NULL on allocation failure.
 */
char *mdl_dof_probe_name(const char *declared);	/* "a__b" -> "a-b" */
char *mdl_probe_func(const char *prov, const char *dof_name);	/* __dtrace_P___N */
char *mdl_enabled_func(const char *prov, const char *dof_name);	/* __dtraceenabled_P___N */
char *mdl_macro_name(const char *prov, const char *dof_name);	/* P_N upper-cased */
char *mdl_semaphore_name(const char *prov, const char *declared); /* P_N_semaphore */

/* Normalise the spacing of a C type spelling ("char*" -> "char *"). */
char *mdl_normalise_type(const char *spelling);

#endif
