/*
 * rewrite_int.h - what the two stages of the call-site rewrite share (not
 * an API): rewrite_plan.c reads an object's tables and plans its edits,
 * rewrite_write.c applies them to a copy.  Writing reads the copy's tables
 * anew with the same code (rewrite_object_init), so both stages see an
 * object through one object_t, and the plan through planned_t and edits_t.
 */
#ifndef USDTC_REWRITE_INT_H
#define USDTC_REWRITE_INT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempset.h"
#include "idset.h"
#include "objin.h"
#include "rewrite.h"
#include "strbuf.h"

#define SITES_SECTION	".usdt.sites"
#define ALIAS_PREFIX	"__$dtrace"	/* the aliases of functions a site is in */
#define SITE_MAX	5	/* the longest call instruction we rewrite */

/*
 * A call is recognised by its opcode: the instruction's first op_size bytes
 * read as a little-endian number, masked.  Its relocation lies reloc_at
 * bytes into it.
 */
typedef struct call_isa {
	unsigned machine;		/* EM_* */
	unsigned site_size;		/* bytes of a call instruction */
	unsigned reloc_at;		/* offset of its relocation in it */
	unsigned op_size;		/* bytes that hold the opcode */
	uint32_t op_mask;
	uint32_t call_op;		/* a call */
	uint32_t jump_op;		/* a jump: a tail call */
	int64_t addend;			/* of such a relocation */
	uint8_t probe[SITE_MAX];	/* replaces a call */
	uint8_t tail[SITE_MAX];		/* replaces a tail call */
	/*
	 * DOF version 2 (FreeBSD, illumos): an is-enabled call becomes code
	 * that clears the result register, and its tracepoint lies
	 * enabled_skip bytes in, where the tracer sets that register to 1.
	 * enabled_skip 0: the architecture has no such sequence here.
	 */
	uint8_t enabled[SITE_MAX];
	uint8_t enabled_tail[SITE_MAX];
	uint32_t enabled_skip;
	/* The header's marked sites: a mark_reloc relocation at a mark_byte. */
	bool has_mark;
	unsigned mark_reloc;
	uint8_t mark_byte;
} call_isa_t;

typedef struct name_entry {
	const char *key;
	size_t val;
} name_entry_t;

/* Entries in order of insertion; a set of their indices finds a key (idset.h). */
typedef struct name_map {
	name_entry_t *entries;
	size_t n, cap;		/* cap: as map_init was told */
	idset_t set;
} name_map_t;

typedef struct probe_ref {
	const mdl_provider_t *prov;
	const mdl_probe_t *probe;
	bool is_enabled;
	char *name;		/* __dtrace_P___N or __dtraceenabled_P___N */
	bool *kept;		/* a call of this function keeps reaching the unit */
	bool stack_args;	/* some argument is on the stack: a tail call moves it */
} probe_ref_t;

/* A function symbol, for finding the function around a site. */
typedef struct func_sym {
	size_t shndx;
	uint64_t value;
	uint64_t size;
	size_t index;		/* in the symbol table */
	int rank;		/* preference among symbols at one address */
} func_sym_t;

typedef struct object {
	const char *path;		/* as given, for messages */
	const target_t *t;
	const call_isa_t *isa;
	const rewrite_opts_t *o;
	Elf *elf;
	size_t nsections;
	size_t shstrndx;
	Elf_Scn *symscn;		/* NULL: no symbol table */
	size_t symndx;
	GElf_Shdr symsh;
	Elf_Data *syms;
	Elf_Data *xndx;			/* SHT_SYMTAB_SHNDX data, or NULL */
	size_t xndx_scn;		/* its section index, 0 if none */
	size_t nsyms;
	bool *probe_group;		/* [nsections]: in a probe's COMDAT group */
	bool *grouped;			/* [nsections]: in any group */
	func_sym_t *funcs;		/* sorted by section, value */
	size_t nfuncs;
	name_map_t defined;		/* name -> index of defined symbols */
	char alias_prefix[32];		/* "__$dtrace<key>." */
	uint32_t key;			/* rewrite_alias_key of its real path */
	tempset_t *temps;		/* where the rewritten copy goes */
	size_t filesize;		/* of the object as read */
} object_t;

/* One call to rewrite, by indices that copying the file does not change. */
typedef struct planned {
	size_t relsec, relidx;	/* the relocation to remove */
	size_t textsec;		/* the code */
	uint64_t at;		/* the instruction's offset in textsec */
	const func_sym_t *func;
	const probe_ref_t *ref;
	bool tail;
	bool marked;		/* a marked inline site: nothing to patch */
} planned_t;

typedef struct plan {
	planned_t *calls;
	size_t n;
} plan_t;

/* A symbol the rewrite appends: an alias of function symbol `of`. */
typedef struct new_alias {
	size_t of;		/* symbol index of the function */
	char *name;
} new_alias_t;

typedef struct edits {
	new_alias_t *aliases;
	size_t naliases, aliascap;
	idset_t aliased;	/* aliases by the function they are of */
	strbuf_t records;	/* lines for .usdt.sites */
	rewrite_sites_t sites;	/* reported once the object is written; its
				   anchors are the ones the object lacks */
} edits_t;

/* rewrite_insn.c: how a call looks. */
uint32_t rewrite_opcode_at(const call_isa_t *isa, const uint8_t *code);
/* What replaces a call of this kind. */
const uint8_t *rewrite_replacement(const call_isa_t *isa, const target_t *t,
    bool is_enabled, bool tail);
/* Whether an is-enabled site clears the result register (DOF version 2). */
bool rewrite_clears_result(const call_isa_t *isa, const target_t *t);
/* From a rewritten call's start to its tracepoint. */
uint32_t rewrite_tracepoint_skip(const call_isa_t *isa, const target_t *t, bool is_enabled);
/* The calls of machine EM_*, or NULL: not rewritten there. */
const call_isa_t *rewrite_call_isa_for(unsigned machine);

/* rewrite_obj.c: a small map from names to indices (sized once). */
int rewrite_map_init(name_map_t *map, size_t expected);
void rewrite_map_free(name_map_t *map);
/* The value stored for key, or (size_t)-1. */
size_t rewrite_map_get(const name_map_t *map, const char *key);
/* Insert (the first value for a key wins); key must outlive the map. */
void rewrite_map_put(name_map_t *map, const char *key, size_t val);
/* Whether name is a probe or is-enabled function of a probe unit. */
bool rewrite_is_probe_function(const char *name);

/* rewrite_obj.c: one object's tables. */
int rewrite_object_init(object_t *ob, err_t *e);
/* -v: "path: message" to the caller's callback, if any. */
void rewrite_note(const object_t *ob, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The key of an object's aliases and anchors: a hash of its real path. */
uint32_t rewrite_alias_key(const char *path);
const char *rewrite_sym_name(const object_t *ob, const GElf_Sym *sym);
/* Section idx's name, "?" if it has none. */
const char *rewrite_section_name(const object_t *ob, size_t idx);
/* The function symbol holding [at, at + size) of section shndx, or NULL. */
const func_sym_t *rewrite_enclosing_function(const object_t *ob, size_t shndx,
    uint64_t at, unsigned size);
/* Whether the object holds GCC or LLVM LTO sections (IR compiled at link). */
bool rewrite_has_lto_sections(const object_t *ob);
void rewrite_object_free(object_t *ob);
/* Symbol i, with its real section index; false if unreadable. */
bool rewrite_get_sym(const object_t *ob, size_t i, GElf_Sym *sym, size_t *shndx);
/* The bytes of section idx (one data block), or NULL. */
Elf_Data *rewrite_section_data(const object_t *ob, size_t idx, GElf_Shdr *sh);
/* The index of the .usdt.sites section, or 0. */
size_t rewrite_sites_section(const object_t *ob);

/* The model's probe functions, by name (rewrite_plan.c). */
typedef struct probe_index {
	probe_ref_t *refs;
	size_t n;
	name_map_t map;
	bool *kept;		/* per function, for probe_ref_t.kept */
} probe_index_t;

/* One object's plan: what to patch, and what the rewrite adds. */
typedef struct planned_object {
	const objin_t *in;
	object_t ob;
	plan_t p;
	edits_t ed;
	size_t nsites;		/* new sites: 0, nothing to write */
} planned_object_t;

struct rewrite_plan {
	const mdl_model_t *m;
	const target_t *t;
	const call_isa_t *isa;
	const rewrite_opts_t *o;
	probe_index_t probes;
	bool every_kept;	/* an object whose calls cannot be seen (IR) */
	tempset_t *temps;	/* o->temps, or own */
	tempset_t own;
	planned_object_t *objs;
	size_t nobjs;
	const objin_t *ins;	/* every input, repeats too (rewrite_write) */
	size_t nins;
};

/*
 * rewrite_write.c: edit a copy of the object (read as read_ob, from in) in
 * a temporary of read_ob->temps, which the caller puts in place
 * (tempset_commit) once everything else has succeeded; its entry in
 * *entryp.  Returns 0, or -1 with e set.
 */
int rewrite_commit_object(const object_t *read_ob, const objin_t *in, const plan_t *p,
    const edits_t *ed, int *entryp, err_t *e);

#endif
