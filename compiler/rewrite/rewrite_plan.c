/*
 * rewrite_plan.c - zero-call probes: -G rewrites the probe calls of the
 * program's objects in place, as dtrace -G does.
 *
 * A probe written through the header is a call to __dtrace_P___N (or, for
 * _ENABLED(), to __dtraceenabled_P___N), the stub in the probe's unit.  A
 * disabled probe then costs a call and a return.  Given the program's
 * objects, -G removes that cost: each call becomes the tracepoint itself,
 * and the DOF and a stapsdt note describe the place where it now sits.
 *
 * Finding the calls.  A call to a probe function in a relocatable object is
 * a relocation against that symbol.  For every SHT_RELA section of code
 * (SHF_EXECINSTR target, not part of a probe's own COMDAT group, whose
 * note refers to the stub but is no call), each relocation whose symbol is
 * a probe function of the model must be the relocation of a call (x86_64:
 * e8 rel32, R_X86_64_PC32 or PLT32, addend -4; AArch64: bl, CALL26 or
 * JUMP26, addend 0) or of a tail-call jump (e9; b).  Such a site becomes
 *
 *	x86_64
 *	call probe		0f 1f 44 00 00	the 5-byte nop (uprobes emulate it)
 *	jmp probe (tail)	c3 0f 1f 40 00	ret, then a 4-byte nop never reached
 *	call is-enabled		0f 1f 44 00 00	(DOF version 3, Linux)
 *	call is-enabled		48 33 c0 90 90	(DOF version 2: FreeBSD, illumos)
 *	jmp is-enabled (tail)	48 33 c0 c3 90
 *	AArch64
 *	bl probe, is-enabled	nop
 *	b probe (tail)		ret
 *
 * and its relocation is removed from the section entirely (the section
 * shrinks): a relocation kept as R_X86_64_NONE against a special symbol is
 * what breaks PIE links with Oracle's dtrace.  The is-enabled site needs
 * no code of its own under the DOF v3 convention: the header has already
 * loaded the semaphore into the flag whose address the call passes in the
 * first argument register, and DTrace stores 1 through that pointer at the
 * tracepoint.  Under the DOF v2 convention the is-enabled function returns
 * an int, so the site clears %rax (`xor %rax,%rax`, as dtrace -G writes it)
 * and its tracepoint is the first nop after that, 3 bytes in, where the
 * tracer sets %rax to 1: that offset is what the DOF records (and what
 * the probe unit's is-enabled slot holds, arch_x86_64.c).
 *
 * Marked sites.  On x86_64 Linux the header's probe macro is no call but
 * an inline asm site, as <sys/sdt.h>'s: a 1-byte nop with its own stapsdt
 * note, the arguments moved into the registers a call would use
 * (header.c).  The asm also puts a relocation of type NONE against the
 * probe function at the nop, which changes no byte and which linkers
 * ignore: the mark of a site.  Such a site needs no rewriting, only
 * recording: it becomes a site of the DOF like a rewritten call (alias,
 * anchor, record of kind `nop`), its mark is removed like a call's
 * relocation, and objgen.c writes no note for it, since the object has one.
 *
 * Whatever is not such a call keeps calling the stub, which still works,
 * and -v says why: an address taken (lea), a conditional jump, a REL
 * relocation, a reference from data, code in a COMDAT section (the linker
 * may keep another object's copy of the function, and the site would then
 * point into code we never rewrote), code outside any function symbol.
 * LLVM bitcode and GCC/LLVM LTO objects are not rewritten either: the
 * linker may compile their IR afresh, calls included.
 *
 * Recording sites.  The DOF names a site as function + offset, and the
 * function's address comes from a relocation in the -G object.  That
 * relocation must reach this very copy of the function, in every kind of
 * link, so it names the function's own symbol only when that is a global
 * with non-default visibility (hidden, protected: bound inside the link
 * unit).  Any other function (static, weak, or a default-visibility global
 * that a shared library's users could preempt) gets an alias, as dtrace
 * gives static functions: a GLOBAL STV_HIDDEN symbol `__$dtrace<key>.<func>`
 * at the function's section and value, appended to the object's symbol
 * table.  key is a hash of the object's real path, so two objects with the
 * same static function name differ.  dofpr_func keeps the plain name.  The
 * alias is STT_NOTYPE with size 0 and leading underscores, because tools
 * that name code by its symbols (perf, objdump, llvm-symbolizer, gdb) then
 * keep choosing the function's own name, even over a local one; hidden
 * symbols stay in a linked file's .symtab.  Each probe site also gets a stapsdt
 * note (built by objgen.c) at the same place; its arguments are where the
 * calling convention left them at the call: stack arguments start at
 * 0(%rsp), there is no return address yet (arch->note_args_call; the same
 * as at a unit's tracepoint, whose x86_64 code pops the return address
 * first).  At a rewritten tail call the caller's return address is still
 * on the stack (arch->note_args_tail).
 *
 * Running -G again.  A rewritten site has no relocation left, so a second
 * -G over the same objects would find nothing.  Each rewrite therefore
 * also records its sites in a section of the object, `.usdt.sites`
 * (SHT_PROGBITS, SHF_EXCLUDE: `ld -r` keeps it, final links drop it), one
 * line per site:
 *
 *	call|tail|nop <TAB> probe function <TAB> symbol <TAB> function <TAB> offset
 *
 * where symbol is the relocation symbol (the alias, or the function), kept
 * in the object's symbol table, so the record stays true after `ld -r`
 * moves the code.  A later run reads the records back, checks that each
 * site still holds the rewritten bytes, and reports the sites again: the
 * DOF and notes come out the same, and the object is not written at all
 * when there is nothing new to rewrite.  (`strip` or `objcopy` dropping
 * the section loses the sites for later runs, not the rewriting.)
 *
 * Pulling in the -G output.  A rewritten object no longer refers to
 * anything of the -G output: its sites are described there (notes, DOF),
 * but a linker takes an object out of an archive (`ar rcs lib.a`, libtool
 * convenience libraries) only for a symbol something already linked
 * needs, so `main.o lib.a` would leave the -G output behind, and with it
 * every note and the DOF of the rewritten sites (Perl's libperl.a).  So
 * each rewritten object also gets an undefined GLOBAL STV_HIDDEN symbol
 * per provider whose calls it rewrote, its anchor
 *
 *	__usdt_sites.<provider>.<key>		(key as for the aliases)
 *
 * which only the -G output defines (objgen.c: weak, hidden, at the DOF).
 * Pulling the rewritten object out of an archive then pulls the -G output
 * too; hidden, the reference must be met inside the link unit, so linking
 * the rewritten object without its -G output fails instead of losing the
 * probes silently.  The name holds the object's key, so the -G outputs of
 * other objects (several in one program, each defining its own) never
 * define it, and the provider, so the -G outputs of two providers that
 * rewrote one object are both pulled in.  The definition is weak because
 * one object given to two -G runs of one provider has its anchor defined
 * by both outputs, which may then share a program.  A later run (or one
 * over an `ld -r` of rewritten objects) finds the anchors again among the
 * object's undefined symbols and defines them as well.
 *
 * Planning, then writing.  This file plans: it reads each object's
 * tables, decides every edit and reports the sites, touching no file.
 * rewrite_write.c then applies the plan to a copy of each object; what
 * both stages share is in rewrite_int.h.
 *
 * Nothing here prints: -v explanations go to the caller's callback, errors
 * into err_t.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "hash.h"
#include "idset.h"
#include "insn.h"
#include "objin.h"
#include "rewrite_int.h"
#include "strbuf.h"

#define ALIAS_PREFIX	"__$dtrace"

/* ---- how a call looks, per architecture ----------------------------------- */

static const call_isa_t call_isas[] = {
	{
		.machine = EM_X86_64,
		.site_size = 5,
		.reloc_at = 1,
		.op_size = 1,
		.op_mask = 0xff,
		.call_op = X86_CALL_REL32,
		.jump_op = X86_JMP_REL32,
		.addend = -4,
		.probe = { X86_NOP5 },				/* the tracepoint */
		.tail = { X86_RET, X86_NOP4 },
		.enabled = { X86_XOR_RAX, X86_NOP, X86_NOP },	/* 0; tracepoint at +3 */
		.enabled_tail = { X86_XOR_RAX, X86_RET, X86_NOP },
		.enabled_skip = 3,
		.has_mark = true,
		.mark_reloc = R_X86_64_NONE,
		.mark_byte = X86_NOP,
	},
	{
		.machine = EM_AARCH64,
		.site_size = 4,
		.reloc_at = 0,
		.op_size = 4,
		.op_mask = A64_BRANCH_MASK,
		.call_op = A64_BL,
		.jump_op = A64_B,
		.addend = 0,
		.probe = { A64_NOP },				/* the tracepoint */
		.tail = { A64_RET },
	},
};

/* The opcode bits of the instruction at code. */
uint32_t
rewrite_opcode_at(const call_isa_t *isa, const uint8_t *code)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < isa->op_size; i++)
		v |= (uint32_t)code[i] << (8 * i);
	return v & isa->op_mask;
}

/* Whether is-enabled calls get the DOF version 2 sequence on this target. */
static bool
clears_result(const call_isa_t *isa, const target_t *t)
{
	return t->dof_enabled_version == 2 && isa->enabled_skip != 0;
}

/* What replaces a call of this kind. */
const uint8_t *
rewrite_replacement(const call_isa_t *isa, const target_t *t, bool is_enabled, bool tail)
{
	if (is_enabled && clears_result(isa, t))
		return tail ? isa->enabled_tail : isa->enabled;
	return tail ? isa->tail : isa->probe;
}

/* From a rewritten call's start to its tracepoint. */
static uint32_t
tracepoint_skip(const call_isa_t *isa, const target_t *t, bool is_enabled)
{
	return is_enabled && clears_result(isa, t) ? isa->enabled_skip : 0;
}

static const call_isa_t *
call_isa_for(unsigned machine)
{
	for (size_t i = 0; i < sizeof(call_isas) / sizeof(call_isas[0]); i++)
		if (call_isas[i].machine == machine)
			return &call_isas[i];
	return NULL;
}

/* ---- a small map from names to indices ------------------------------------ */


static uint32_t
hash_name(const char *s)
{
	return hash32_bytes(HASH32_FNV_OFFSET, s, strlen(s));
}

static bool
entry_key_is(const void *ctx, size_t id, const void *key)
{
	return strcmp(((const name_map_t *)ctx)->entries[id].key, key) == 0;
}

static int
map_init(name_map_t *map, size_t expected)
{
	idset_init(&map->set);
	map->n = 0;
	map->cap = expected;
	map->entries = calloc(expected ? expected : 1, sizeof(name_entry_t));
	if (map->entries == NULL || !idset_reserve(&map->set, expected)) {
		free(map->entries);
		map->entries = NULL;
		map->cap = 0;
		return -1;
	}
	return 0;
}

static void
map_free(name_map_t *map)
{
	free(map->entries);
	map->entries = NULL;
	map->cap = map->n = 0;
	idset_free(&map->set);
}

/* The value stored for key, or (size_t)-1. */
static size_t
map_get(const name_map_t *map, const char *key)
{
	size_t id = idset_find(&map->set, hash_str(HASH_FNV_OFFSET, key), entry_key_is, map, key);

	return id == IDSET_NONE ? (size_t)-1 : map->entries[id].val;
}

/* Insert (the first value for a key wins); key must outlive the map. */
static void
map_put(name_map_t *map, const char *key, size_t val)
{
	uint64_t h = hash_str(HASH_FNV_OFFSET, key);

	if (map->n == map->cap)
		return;		/* sized by map_init; never happens */
	if (idset_find(&map->set, h, entry_key_is, map, key) != IDSET_NONE)
		return;
	map->entries[map->n] = (name_entry_t){ key, val };
	if (idset_add(&map->set, h, map->n))	/* reserved by map_init */
		map->n++;
}

/* ---- the model's probe functions ------------------------------------------ */


typedef struct probe_index {
	probe_ref_t *refs;
	size_t n;
	name_map_t map;
	bool *kept;		/* per function, for probe_ref_t.kept */
} probe_index_t;

static void
probe_index_free(probe_index_t *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->refs[i].name);
	free(x->refs);
	free(x->kept);
	map_free(&x->map);
}

/* Both function names of every probe of m; -1 on allocation failure. */
static int
probe_index_init(probe_index_t *x, const mdl_model_t *m)
{
	size_t total = 0;

	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < m->nproviders; i++)
		total += 2 * m->providers[i]->nprobes;
	if ((x->refs = calloc(total + 1, sizeof(probe_ref_t))) == NULL ||
	    (x->kept = calloc(total + 1, sizeof(bool))) == NULL ||
	    map_init(&x->map, total) != 0)
		goto fail;
	for (size_t i = 0; i < m->nproviders; i++) {
		const mdl_provider_t *p = m->providers[i];

		for (size_t j = 0; j < p->nprobes; j++) {
			for (int en = 0; en < 2; en++) {
				probe_ref_t *r = &x->refs[x->n];

				r->prov = p;
				r->probe = p->probes[j];
				r->is_enabled = en;
				r->kept = &x->kept[x->n];
				r->name = en ? mdl_enabled_func(p->name, r->probe->dof_name)
				    : mdl_probe_func(p->name, r->probe->dof_name);
				if (r->name == NULL)
					goto fail;
				map_put(&x->map, r->name, x->n++);
			}
		}
	}
	return 0;
fail:
	probe_index_free(x);
	return -1;
}

static const probe_ref_t *
probe_lookup(const probe_index_t *x, const char *name)
{
	size_t i = map_get(&x->map, name);

	return i == (size_t)-1 ? NULL : &x->refs[i];
}

static bool
is_probe_function(const char *name)
{
	return strncmp(name, USDT_PROBE_PREFIX, sizeof(USDT_PROBE_PREFIX) - 1) == 0 ||
	    strncmp(name, USDT_ENABLED_PREFIX, sizeof(USDT_ENABLED_PREFIX) - 1) == 0;
}

/* ---- the results ---------------------------------------------------------- */

static void
site_free(rewrite_site_t *s)
{
	free(s->func);
	free(s->symbol);
}

void
rewrite_sites_free(rewrite_sites_t *s)
{
	for (size_t i = 0; i < s->n; i++)
		site_free(&s->sites[i]);
	for (size_t i = 0; i < s->nanchors; i++)
		free(s->anchors[i]);
	free(s->sites);
	free(s->anchors);
	idset_free(&s->anchor_set);
	free(s->kept_enabled.probes);
	free(s->kept_probe.probes);
	free(s->sited.probes);
	memset(s, 0, sizeof(*s));
}

static int
cmp_probe_addr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const mdl_probe_t *const *)a;
	uintptr_t y = (uintptr_t)*(const mdl_probe_t *const *)b;

	return x < y ? -1 : x > y;
}

static bool
keeps(const rewrite_kept_t *k, bool every, const mdl_probe_t *pr)
{
	return every || (k->n > 0 &&
	    bsearch(&pr, k->probes, k->n, sizeof(*k->probes), cmp_probe_addr) != NULL);
}

bool
rewrite_keeps_enabled(const rewrite_sites_t *s, const mdl_probe_t *pr)
{
	return keeps(&s->kept_enabled, s->every_kept, pr);
}

bool
rewrite_keeps_probe(const rewrite_sites_t *s, const mdl_probe_t *pr)
{
	return keeps(&s->kept_probe, s->every_kept, pr) || !keeps(&s->sited, false, pr);
}

/* The probes with a probe site (not only is-enabled ones) in out, sorted. */
static int
list_sited(rewrite_sites_t *out)
{
	size_t n = 0;

	if (out->n == 0)
		return 0;
	if ((out->sited.probes = calloc(out->n, sizeof(*out->sited.probes))) == NULL)
		return -1;
	for (size_t i = 0; i < out->n; i++)
		if (!out->sites[i].is_enabled)
			out->sited.probes[n++] = out->sites[i].probe;
	qsort(out->sited.probes, n, sizeof(*out->sited.probes), cmp_probe_addr);
	out->sited.n = n;
	return 0;
}

/* The probes whose is-enabled (or probe) function a call keeps reaching, sorted. */
static int
list_kept_kind(const probe_index_t *x, bool is_enabled, rewrite_kept_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < x->n; i++)
		n += x->refs[i].is_enabled == is_enabled && x->kept[i];
	if (n == 0)
		return 0;
	if ((out->probes = calloc(n, sizeof(*out->probes))) == NULL)
		return -1;
	for (size_t i = 0; i < x->n; i++)
		if (x->refs[i].is_enabled == is_enabled && x->kept[i])
			out->probes[out->n++] = x->refs[i].probe;
	qsort(out->probes, out->n, sizeof(*out->probes), cmp_probe_addr);
	return 0;
}

static int
list_kept(const probe_index_t *x, rewrite_sites_t *out)
{
	return list_kept_kind(x, true, &out->kept_enabled) != 0 ||
	    list_kept_kind(x, false, &out->kept_probe) != 0 ? -1 : 0;
}

/* Is anchor id of the sites ctx called key? */
static bool
same_anchor(const void *ctx, size_t id, const void *key)
{
	return strcmp(((const rewrite_sites_t *)ctx)->anchors[id], key) == 0;
}

/*
 * Add anchor name to out unless it is there already; -1 if memory ran out.
 * Each object has an anchor of its own, so a -G of 10,000 objects has
 * 10,000: they are found through a set, not by comparing with each.
 */
static int
add_anchor(rewrite_sites_t *out, const char *name)
{
	uint64_t h = hash_str(HASH_FNV_OFFSET, name);
	char **grown, *copy;

	if (idset_find(&out->anchor_set, h, same_anchor, out, name) != IDSET_NONE)
		return 0;
	if ((copy = strdup(name)) == NULL)
		return -1;
	if ((grown = realloc(out->anchors, (out->nanchors + 1) * sizeof(*grown))) == NULL ||
	    !idset_add(&out->anchor_set, h, out->nanchors)) {
		if (grown != NULL)
			out->anchors = grown;
		free(copy);
		return -1;
	}
	out->anchors = grown;
	out->anchors[out->nanchors++] = copy;
	return 0;
}

static int
add_site(rewrite_sites_t *out, const probe_ref_t *r, const char *func,
    const char *symbol, uint32_t offset, bool tail, bool marked)
{
	rewrite_site_t s = { r->prov, r->probe, strdup(func), strdup(symbol),
	    offset, r->is_enabled, tail, marked }, *grown;

	if (s.func == NULL || s.symbol == NULL ||
	    (grown = realloc(out->sites, (out->n + 1) * sizeof(*grown))) == NULL) {
		site_free(&s);
		return -1;
	}
	out->sites = grown;
	out->sites[out->n++] = s;
	return 0;
}

/* Move every site of from to the end of to (and its anchors); from's sites are left empty. */
static int
move_sites(rewrite_sites_t *to, rewrite_sites_t *from)
{
	rewrite_site_t *grown;

	for (size_t i = 0; i < from->nanchors; i++)
		if (add_anchor(to, from->anchors[i]) != 0)
			return -1;
	if (from->n == 0)
		return 0;
	if ((grown = realloc(to->sites, (to->n + from->n) * sizeof(*grown))) == NULL)
		return -1;
	memcpy(grown + to->n, from->sites, from->n * sizeof(*grown));
	to->sites = grown;
	to->n += from->n;
	free(from->sites);
	from->sites = NULL;
	from->n = 0;
	return 0;
}

/* ---- one object: its tables ----------------------------------------------- */



static void __attribute__((format(printf, 2, 3)))
note(const object_t *ob, const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	if (ob->o == NULL || ob->o->note == NULL)
		return;
	n = snprintf(msg, sizeof(msg), "%s: ", ob->path);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	ob->o->note(ob->o->note_ctx, msg);
}

uint32_t
rewrite_alias_key(const char *path)
{
	return hash_name(path);
}

/* Symbol i, with its real section index; false if unreadable. */
bool
rewrite_get_sym(const object_t *ob, size_t i, GElf_Sym *sym, size_t *shndx)
{
	Elf32_Word x = 0;

	if (gelf_getsymshndx(ob->syms, ob->xndx, (int)i, sym, &x) == NULL)
		return false;
	*shndx = sym->st_shndx == SHN_XINDEX ? x : sym->st_shndx;
	return true;
}

static const char *
sym_name(const object_t *ob, const GElf_Sym *sym)
{
	const char *s = elf_strptr(ob->elf, ob->symsh.sh_link, sym->st_name);

	return s ? s : "";
}

static const char *
section_name(const object_t *ob, size_t idx)
{
	Elf_Scn *scn = elf_getscn(ob->elf, idx);
	GElf_Shdr sh;
	const char *s = NULL;

	if (scn != NULL && gelf_getshdr(scn, &sh) != NULL)
		s = elf_strptr(ob->elf, ob->shstrndx, sh.sh_name);
	return s ? s : "?";
}

/* Mark the members of COMDAT groups, and of probe groups in particular. */
static int
find_groups(object_t *ob, err_t *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	ob->probe_group = calloc(ob->nsections + 1, sizeof(bool));
	ob->grouped = calloc(ob->nsections + 1, sizeof(bool));
	if (ob->probe_group == NULL || ob->grouped == NULL)
		return err_errno(e, ENOMEM, "%s", ob->path);
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Sym sig;
		size_t shndx;
		bool probe;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_GROUP)
			continue;
		if ((data = elf_getdata(scn, NULL)) == NULL)
			return err_libelf(e, ob->path, "elf_getdata");
		probe = sh.sh_link == ob->symndx && rewrite_get_sym(ob, sh.sh_info, &sig, &shndx) &&
		    is_probe_function(sym_name(ob, &sig));
		for (size_t k = 1; k < data->d_size / 4; k++) {
			uint32_t member;

			memcpy(&member, (const char *)data->d_buf + 4 * k, 4);
			if (member < ob->nsections) {
				ob->grouped[member] = true;
				ob->probe_group[member] |= probe;
			}
		}
	}
	return 0;
}

static int
compare_funcs(const void *a, const void *b)
{
	const func_sym_t *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;	/* preferred first */
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Preference among function symbols at one address. */
static int
func_rank(const GElf_Sym *sym)
{
	int rank = sym->st_size > 0 ? 4 : 0;

	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: return rank + 3;
	case STB_WEAK: return rank + 2;
	default: return rank + 1;
	}
}

/* The function symbols (not our aliases), and a map of defined names. */
static int
index_symbols(object_t *ob, err_t *e)
{
	if (map_init(&ob->defined, ob->nsyms) != 0 ||
	    (ob->funcs = calloc(ob->nsyms + 1, sizeof(func_sym_t))) == NULL)
		return err_errno(e, ENOMEM, "%s", ob->path);
	for (size_t i = 1; i < ob->nsyms; i++) {
		GElf_Sym sym;
		size_t shndx;
		const char *name;

		if (!rewrite_get_sym(ob, i, &sym, &shndx))
			return err_libelf(e, ob->path, "gelf_getsymshndx");
		if (sym.st_shndx == SHN_UNDEF || shndx >= ob->nsections ||
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION)
			continue;
		name = sym_name(ob, &sym);
		if (*name != '\0' && GELF_ST_BIND(sym.st_info) != STB_LOCAL)
			map_put(&ob->defined, name, i);
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    strncmp(name, ALIAS_PREFIX, sizeof(ALIAS_PREFIX) - 1) == 0)
			continue;
		ob->funcs[ob->nfuncs++] = (func_sym_t){ shndx, sym.st_value,
		    sym.st_size, i, func_rank(&sym) };
	}
	qsort(ob->funcs, ob->nfuncs, sizeof(func_sym_t), compare_funcs);
	return 0;
}

/*
 * The function whose code holds the call at `at` of section
 * shndx: the last function symbol starting at or before `at`, if its size
 * covers the site (a size-0 symbol, from assembly, covers up to the next).
 */
static const func_sym_t *
enclosing_function(const object_t *ob, size_t shndx, uint64_t at, unsigned size)
{
	size_t lo = 0, hi = ob->nfuncs;
	const func_sym_t *f;

	/* The first entry past (shndx, at). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const func_sym_t *x = &ob->funcs[mid];

		if (x->shndx < shndx || (x->shndx == shndx && x->value <= at))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	f = &ob->funcs[lo - 1];
	if (f->shndx != shndx)
		return NULL;
	while (lo - 1 > 0 && ob->funcs[lo - 2].shndx == shndx &&
	    ob->funcs[lo - 2].value == f->value)
		f = &ob->funcs[--lo - 1];	/* the preferred one sorts first */
	if (f->size > 0 && at + size > f->value + f->size)
		return NULL;
	return f;
}

void
rewrite_object_free(object_t *ob)
{
	free(ob->probe_group);
	free(ob->grouped);
	free(ob->funcs);
	map_free(&ob->defined);
	ob->probe_group = ob->grouped = NULL;
	ob->funcs = NULL;
}

/*
 * What libelf would quietly change when it writes the object back, refused
 * (-G would otherwise write what it never checked): a section past the end
 * of the file, an alignment that is
 * not a power of two or exceeds the file (libelf pads each section's
 * offset to it: 1 GiB would make a 1 GiB object), a table whose entry size
 * is not its type's (libelf reads a RELA section of a bogus size as empty
 * and writes it back live), a string table whose last string has no NUL
 * (appended names would run on from it).
 */
static int
check_section(object_t *ob, size_t idx, const GElf_Shdr *sh, size_t filesize, err_t *e)
{
	static const struct { unsigned type; Elf_Type t; } tables[] = {
		{ SHT_RELA, ELF_T_RELA }, { SHT_REL, ELF_T_REL }, { SHT_SYMTAB, ELF_T_SYM },
	};
	uint64_t align = sh->sh_addralign;
	Elf_Data *d;

	if (sh->sh_type != SHT_NOBITS && (sh->sh_offset > filesize ||
	    sh->sh_size > filesize - sh->sh_offset))
		return err_set(e, "%s: section %zu (%s) runs past the end of the file: "
		    "not rewriting it", ob->path, idx, section_name(ob, idx));
	if (align > 1 && ((align & (align - 1)) != 0 || align > filesize))
		return err_set(e, "%s: section %zu (%s) asks for an alignment of %ju bytes, "
		    "which the file (%zu bytes) cannot hold: not rewriting it", ob->path,
		    idx, section_name(ob, idx), (uintmax_t)align, filesize);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (sh->sh_type == tables[i].type && sh->sh_entsize !=
		    gelf_fsize(ob->elf, tables[i].t, 1, EV_CURRENT))
			return err_set(e, "%s: section %zu (%s) has entries of %ju bytes, not "
			    "the %zu of its type: not rewriting it", ob->path, idx,
			    section_name(ob, idx), (uintmax_t)sh->sh_entsize,
			    gelf_fsize(ob->elf, tables[i].t, 1, EV_CURRENT));
	if (sh->sh_type == SHT_STRTAB && sh->sh_size > 0 &&
	    ((d = elf_getdata(elf_getscn(ob->elf, idx), NULL)) == NULL || d->d_size == 0 ||
	    ((const char *)d->d_buf)[d->d_size - 1] != '\0'))
		return err_set(e, "%s: string table %zu (%s) does not end in a NUL: "
		    "not rewriting it", ob->path, idx, section_name(ob, idx));
	return 0;
}

/*
 * The section names must come from a string table: -G adds the name of
 * .usdt.sites to it.  With e_shstrndx 0 (or pointing at anything else)
 * libelf would be asked to grow section 0 and abort in elf_update.
 */
static int
shstrtab_check(const object_t *ob, err_t *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (ob->shstrndx == SHN_UNDEF || ob->shstrndx >= ob->nsections ||
	    (scn = elf_getscn(ob->elf, ob->shstrndx)) == NULL || gelf_getshdr(scn, &sh) == NULL ||
	    sh.sh_type != SHT_STRTAB)
		return err_set(e, "%s: its section names are not in a string table "
		    "(e_shstrndx %zu): not rewriting it", ob->path, ob->shstrndx);
	return 0;
}

/* Read the tables of an ELF object ob->elf. */
int
rewrite_object_init(object_t *ob, err_t *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;

	if (elf_getshdrnum(ob->elf, &ob->nsections) != 0 ||
	    elf_getshdrstrndx(ob->elf, &ob->shstrndx) != 0 || gelf_getehdr(ob->elf, &eh) == NULL)
		return err_libelf(e, ob->path, "elf_getshdrnum");
	/* A cut object: libelf would see no sections at all. */
	if (eh.e_shoff == 0 || eh.e_shoff > ob->filesize || ob->nsections == 0 ||
	    ob->nsections > (ob->filesize - eh.e_shoff) / (eh.e_shentsize ? eh.e_shentsize : 1))
		return err_set(e, "%s: its section headers lie past the end of the file "
		    "(%zu bytes): truncated?", ob->path, ob->filesize);
	if (shstrtab_check(ob, e) != 0)
		return -1;
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(e, ob->path, "gelf_getshdr");
		if (check_section(ob, elf_ndxscn(scn), &sh, ob->filesize, e) != 0)
			return -1;
		if (sh.sh_type == SHT_SYMTAB && ob->symscn == NULL) {
			ob->symscn = scn;
			ob->symndx = elf_ndxscn(scn);
			ob->symsh = sh;
		}
	}
	if (ob->symscn == NULL)
		return 0;
	if ((ob->syms = elf_getdata(ob->symscn, NULL)) == NULL || ob->symsh.sh_entsize == 0)
		return err_libelf(e, ob->path, "elf_getdata (.symtab)");
	ob->nsyms = ob->symsh.sh_size / ob->symsh.sh_entsize;
	scn = NULL;
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == ob->symndx) {
			ob->xndx = elf_getdata(scn, NULL);
			ob->xndx_scn = elf_ndxscn(scn);
		}
	if (find_groups(ob, e) != 0 || index_symbols(ob, e) != 0)
		return -1;
	return 0;
}

/* LTO objects: the linker may recompile their IR, so leave them alone. */
static bool
has_lto_sections(const object_t *ob)
{
	for (size_t i = 1; i < ob->nsections; i++) {
		const char *n = section_name(ob, i);

		if (strncmp(n, ".gnu.lto_", 9) == 0 || strncmp(n, ".gnu.lto.", 9) == 0 ||
		    strcmp(n, ".llvm.lto") == 0)
			return true;
	}
	return false;
}

/* The bytes of section idx (one data block), or NULL. */
Elf_Data *
rewrite_section_data(const object_t *ob, size_t idx, GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_getscn(ob->elf, idx);

	if (scn == NULL || gelf_getshdr(scn, sh) == NULL || sh->sh_type == SHT_NOBITS)
		return NULL;
	return elf_getdata(scn, NULL);
}

/* ---- one object: planning --------------------------------------------------- */


static int
plan_add(plan_t *p, const planned_t *c)
{
	planned_t *grown = realloc(p->calls, (p->n + 1) * sizeof(*grown));

	if (grown == NULL)
		return -1;
	p->calls = grown;
	p->calls[p->n++] = *c;
	return 0;
}

static const char *
probe_desc(const probe_ref_t *r)
{
	return r->is_enabled ? "is-enabled call" : "probe call";
}

/*
 * A reference that keeps reaching the probe's unit: the unit's probe slot
 * (a call of the probe function) or is-enabled slot is then a site DTrace
 * must know (objgen.c records each only then).
 */
static void
keeps_stub(const probe_ref_t *r)
{
	*r->kept = true;
}

/*
 * Whether a mark (relocation rela, of type mark_reloc) is a site we can
 * record: on the mark byte, in code of no COMDAT group, inside a function,
 * of a probe (the header marks no is-enabled check).  Fills c.
 */
static bool
is_recordable_mark(const object_t *ob, const Elf_Data *bytes, const GElf_Rela *rela,
    planned_t *c)
{
	const char *where = section_name(ob, c->textsec);

	c->at = rela->r_offset;
	c->marked = true;
	if (bytes == NULL || bytes->d_buf == NULL || rela->r_offset >= bytes->d_size ||
	    ((const uint8_t *)bytes->d_buf)[rela->r_offset] != ob->isa->mark_byte ||
	    c->ref->is_enabled) {
		note(ob, "%s+0x%llx: a mark of %s on no inline site: it is not recorded",
		    where, (unsigned long long)rela->r_offset, c->ref->name);
		return false;
	}
	if (ob->grouped[c->textsec]) {
		note(ob, "%s+0x%llx: inline site of %s in a COMDAT section (the linker may keep "
		    "another object's copy of the function): DTrace does not see it", where,
		    (unsigned long long)c->at, c->ref->name);
		return false;
	}
	if ((c->func = enclosing_function(ob, c->textsec, c->at, 1)) == NULL) {
		note(ob, "%s+0x%llx: inline site of %s outside any function symbol: DTrace "
		    "does not see it", where, (unsigned long long)c->at, c->ref->name);
		return false;
	}
	return true;
}

/* Whether n bytes at offset at lie within size bytes, without overflow. */
static bool
fits_in(uint64_t at, uint64_t n, uint64_t size)
{
	return n <= size && at <= size - n;
}

/*
 * Whether relocation rela of a code section (header text) is a call or
 * tail call we can rewrite, or a marked site to record; if not, a note
 * says why.  Fills c.
 */
static bool
is_rewritable_call(const object_t *ob, const GElf_Shdr *text, const Elf_Data *bytes,
    const GElf_Rela *rela, planned_t *c)
{
	const char *where = section_name(ob, c->textsec);
	unsigned type = (unsigned)GELF_R_TYPE(rela->r_info);
	const arch_t *arch = arch_for_machine(ob->isa->machine);
	uint32_t op;

	if (ob->isa->has_mark && type == ob->isa->mark_reloc)
		return is_recordable_mark(ob, bytes, rela, c);

	/* The relocations a call or jump to a function may carry. */
	if (type != arch->reloc_branch[0] && type != arch->reloc_branch[1]) {
		note(ob, "%s+0x%llx: %s (relocation type %u) is not a call: it keeps the stub",
		    where, (unsigned long long)rela->r_offset, c->ref->name, type);
		return false;
	}
	/* Compared by subtraction: an r_offset near 2^64 must not wrap past the checks. */
	if (rela->r_offset < ob->isa->reloc_at ||
	    bytes == NULL || bytes->d_buf == NULL ||
	    !fits_in(rela->r_offset - ob->isa->reloc_at, ob->isa->site_size, text->sh_size) ||
	    !fits_in(rela->r_offset - ob->isa->reloc_at, ob->isa->site_size, bytes->d_size)) {
		note(ob, "%s+0x%llx: %s relocation outside its section: it keeps the stub",
		    where, (unsigned long long)rela->r_offset, c->ref->name);
		return false;
	}
	c->at = rela->r_offset - ob->isa->reloc_at;
	op = rewrite_opcode_at(ob->isa, (const uint8_t *)bytes->d_buf + c->at);
	if ((op != ob->isa->call_op && op != ob->isa->jump_op) || rela->r_addend != ob->isa->addend) {
		note(ob, "%s+0x%llx: reference to %s is not a call or jump "
		    "(opcode 0x%02x, addend %lld): it keeps the stub", where,
		    (unsigned long long)c->at, c->ref->name, (unsigned)op, (long long)rela->r_addend);
		return false;
	}
	c->tail = op == ob->isa->jump_op;
	if (ob->grouped[c->textsec]) {
		note(ob, "%s+0x%llx: %s in a COMDAT section (the linker may keep another "
		    "object's copy of the function): it keeps the stub", where,
		    (unsigned long long)c->at, probe_desc(c->ref));
		return false;
	}
	if (c->ref->is_enabled && ob->t->dof_enabled_version != 3 &&
	    !clears_result(ob->isa, ob->t)) {
		note(ob, "%s+0x%llx: is-enabled calls of this target are not rewritten; "
		    "it keeps the stub", where, (unsigned long long)c->at);
		return false;
	}
	if ((c->func = enclosing_function(ob, c->textsec, c->at, ob->isa->site_size)) == NULL) {
		note(ob, "%s+0x%llx: %s outside any function symbol: it keeps the stub",
		    where, (unsigned long long)c->at, probe_desc(c->ref));
		return false;
	}
	return true;
}

/* The calls to rewrite in one relocation section. */
static int
plan_reloc_section(const object_t *ob, const probe_index_t *px, Elf_Scn *scn,
    const GElf_Shdr *sh, plan_t *p, err_t *e)
{
	size_t relsec = elf_ndxscn(scn), n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Shdr text;
	Elf_Data *rels = elf_getdata(scn, NULL), *bytes;
	bool code;

	if (ob->probe_group[relsec] || sh->sh_info >= ob->nsections ||
	    ob->probe_group[sh->sh_info] || sh->sh_link != ob->symndx)
		return 0;
	if (rels == NULL)
		return err_libelf(e, ob->path, "elf_getdata (relocations)");
	bytes = rewrite_section_data(ob, sh->sh_info, &text);
	code = bytes != NULL && (text.sh_flags & SHF_EXECINSTR) != 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela rela;
		GElf_Rel rel;
		GElf_Sym sym;
		size_t shndx;
		planned_t c = { relsec, i, sh->sh_info, 0, NULL, NULL, false, false };

		if (sh->sh_type == SHT_RELA ? gelf_getrela(rels, (int)i, &rela) == NULL
		    : gelf_getrel(rels, (int)i, &rel) == NULL)
			return err_libelf(e, ob->path, "gelf_getrela");
		if (sh->sh_type == SHT_REL) {
			rela.r_offset = rel.r_offset;
			rela.r_info = rel.r_info;
			rela.r_addend = 0;
		}
		if (GELF_R_SYM(rela.r_info) == 0 ||
		    !rewrite_get_sym(ob, GELF_R_SYM(rela.r_info), &sym, &shndx) ||
		    (c.ref = probe_lookup(px, sym_name(ob, &sym))) == NULL)
			continue;
		if (sh->sh_type == SHT_REL || !code) {
			note(ob, "%s+0x%llx: reference to %s is not a call in code: it keeps the stub",
			    section_name(ob, sh->sh_info), (unsigned long long)rela.r_offset,
			    c.ref->name);
			keeps_stub(c.ref);
			continue;
		}
		if (!is_rewritable_call(ob, &text, bytes, &rela, &c))
			keeps_stub(c.ref);
		else if (plan_add(p, &c) != 0)
			return err_errno(e, ENOMEM, "%s", ob->path);
	}
	return 0;
}

static int
plan_object(const object_t *ob, const probe_index_t *px, plan_t *p, err_t *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(e, ob->path, "gelf_getshdr");
		if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
		    plan_reloc_section(ob, px, scn, &sh, p, e) != 0)
			return -1;
	}
	return 0;
}

/* ---- one object: sites recorded by earlier runs ----------------------------- */

/* The index of the .usdt.sites section, or 0. */
size_t
rewrite_sites_section(const object_t *ob)
{
	for (size_t i = 1; i < ob->nsections; i++)
		if (strcmp(section_name(ob, i), SITES_SECTION) == 0)
			return i;
	return 0;
}

/* Whether the code at (shndx, at) holds what a rewrite of this kind leaves. */
static bool
holds_rewrite(const object_t *ob, size_t shndx, uint64_t at, bool is_enabled, bool tail,
    bool marked)
{
	GElf_Shdr sh;
	Elf_Data *d = rewrite_section_data(ob, shndx, &sh);
	unsigned n = marked ? 1 : ob->isa->site_size;

	return d != NULL && d->d_buf != NULL && at + n <= d->d_size &&
	    (marked ? ob->isa->has_mark && ((const uint8_t *)d->d_buf)[at] == ob->isa->mark_byte :
	    memcmp((const uint8_t *)d->d_buf + at,
	    rewrite_replacement(ob->isa, ob->t, is_enabled, tail), n) == 0);
}

/* Split a record line into its five tab-separated fields; false if malformed. */
static bool
split_record(char *line, char *field[5])
{
	for (int i = 0; i < 5; i++) {
		field[i] = line;
		line = strchr(line, i < 4 ? '\t' : '\0');
		if (line == NULL || (i < 4 && *line == '\0'))
			return false;
		if (i < 4)
			*line++ = '\0';
	}
	return *field[0] != '\0';
}

/* One record: "call|tail|nop PROBEFUNC SYMBOL FUNC OFFSET". */
static int
recover_record(const object_t *ob, const probe_index_t *px, char *line,
    rewrite_sites_t *out, err_t *e)
{
	char *f[5], *end;
	const probe_ref_t *r;
	unsigned long off;
	size_t idx, shndx;
	GElf_Sym sym;
	bool tail, marked;

	if (!split_record(line, f) || (strcmp(f[0], "call") != 0 && strcmp(f[0], "tail") != 0 &&
	    strcmp(f[0], "nop") != 0)) {
		note(ob, SITES_SECTION ": a malformed record is ignored");
		return 0;
	}
	tail = strcmp(f[0], "tail") == 0;
	marked = strcmp(f[0], "nop") == 0;
	errno = 0;
	off = strtoul(f[4], &end, 10);
	if (*end != '\0' || errno != 0 || off > UINT32_MAX - SITE_MAX) {
		note(ob, SITES_SECTION ": a record with a bad offset is ignored");
		return 0;
	}
	if ((r = probe_lookup(px, f[1])) == NULL)
		return err_set(e, "%s: was rewritten by an earlier -G for %s, which the "
		    "provider definition no longer declares; rebuild the object from its "
		    "source", ob->path, f[1]);
	if ((idx = map_get(&ob->defined, f[2])) == (size_t)-1 ||
	    !rewrite_get_sym(ob, idx, &sym, &shndx) ||
	    !holds_rewrite(ob, shndx, sym.st_value + off, r->is_enabled, tail, marked)) {
		note(ob, "the recorded site of %s in %s+%lu is no longer rewritten code; "
		    "it is left out", f[1], f[3], off);
		return 0;
	}
	if (!marked)
		off += tracepoint_skip(ob->isa, ob->t, r->is_enabled);
	if (add_site(out, r, f[3], f[2], (uint32_t)off, tail, marked) != 0)
		return err_errno(e, ENOMEM, "%s", ob->path);
	return 0;
}

/* The sites an earlier run recorded in .usdt.sites. */
static int
recover_sites(const object_t *ob, const probe_index_t *px, rewrite_sites_t *out,
    err_t *e)
{
	size_t idx = rewrite_sites_section(ob);
	GElf_Shdr sh;
	Elf_Data *d;
	char *text, *line, *save = NULL;
	int rc = 0;

	if (idx == 0 || (d = rewrite_section_data(ob, idx, &sh)) == NULL || d->d_size == 0)
		return 0;
	if ((text = malloc(d->d_size + 1)) == NULL)
		return err_errno(e, ENOMEM, "%s", ob->path);
	memcpy(text, d->d_buf, d->d_size);
	text[d->d_size] = '\0';
	for (line = strtok_r(text, "\n", &save); line != NULL && rc == 0;
	    line = strtok_r(NULL, "\n", &save))
		rc = recover_record(ob, px, line, out, e);
	free(text);
	return rc;
}

/* ---- one object: anchors ------------------------------------------------------ */

/* The anchor of the object's sites of provider p (see the top of the file). */
static char *
anchor_name(const object_t *ob, const mdl_provider_t *p)
{
	char *name;

	if (asprintf(&name, "%s%s.%08x", REWRITE_ANCHOR_PREFIX, p->name, ob->key) < 0)
		return NULL;
	return name;
}

/* Whether the object has an undefined symbol called name. */
static bool
refers_to(const object_t *ob, const char *name)
{
	for (size_t i = 1; i < ob->nsyms; i++) {
		GElf_Sym sym;
		size_t shndx;

		if (rewrite_get_sym(ob, i, &sym, &shndx) && sym.st_shndx == SHN_UNDEF &&
		    strcmp(sym_name(ob, &sym), name) == 0)
			return true;
	}
	return false;
}

/*
 * The anchors an earlier run gave the object (or the objects an `ld -r`
 * combined into it): its undefined symbols REWRITE_ANCHOR_PREFIX "P.KEY"
 * for the providers P of the model.
 */
static int
collect_anchors(const object_t *ob, const mdl_model_t *m, rewrite_sites_t *out,
    err_t *e)
{
	const size_t plen = sizeof(REWRITE_ANCHOR_PREFIX) - 1;

	for (size_t i = 1; i < ob->nsyms; i++) {
		GElf_Sym sym;
		size_t shndx;
		const char *name, *dot;
		char *prov;
		bool ours;

		if (!rewrite_get_sym(ob, i, &sym, &shndx) || sym.st_shndx != SHN_UNDEF)
			continue;
		name = sym_name(ob, &sym);
		if (strncmp(name, REWRITE_ANCHOR_PREFIX, plen) != 0 ||
		    (dot = strrchr(name + plen, '.')) == NULL)
			continue;
		if ((prov = strndup(name + plen, (size_t)(dot - name - plen))) == NULL)
			return err_errno(e, ENOMEM, "%s", ob->path);
		ours = model_find_provider(m, prov) != NULL;
		free(prov);
		if (ours && add_anchor(out, name) != 0)
			return err_errno(e, ENOMEM, "%s", ob->path);
	}
	return 0;
}

/* Is the provider of site id the provider key? */
static bool
site_provider_is(const void *ctx, size_t id, const void *key)
{
	return ((const rewrite_sites_t *)ctx)->sites[id].provider == key;
}

/*
 * The anchors the object lacks for the providers of its new sites.  Each
 * provider is looked for once (a set of the sites whose provider was
 * seen first), not once per site: refers_to reads every symbol, and a
 * search per site made -G quadratic in an object's call sites.
 */
static int
add_new_anchors(const object_t *ob, rewrite_sites_t *sites, err_t *e)
{
	idset_t seen;
	int rc = 0;

	idset_init(&seen);
	for (size_t i = 0; i < sites->n && rc == 0; i++) {
		const mdl_provider_t *p = sites->sites[i].provider;
		uint64_t h = hash_bytes(HASH_FNV_OFFSET, &p, sizeof(p));
		char *name;

		if (idset_find(&seen, h, site_provider_is, sites, p) != IDSET_NONE)
			continue;
		if (!idset_add(&seen, h, i) || (name = anchor_name(ob, p)) == NULL) {
			rc = -1;
			break;
		}
		if (!refers_to(ob, name))
			rc = add_anchor(sites, name);
		free(name);
	}
	idset_free(&seen);
	return rc != 0 ? err_errno(e, ENOMEM, "%s", ob->path) : 0;
}

/* ---- one object: what the rewrite adds ------------------------------------- */


static void
edits_free(edits_t *ed)
{
	for (size_t i = 0; i < ed->naliases; i++)
		free(ed->aliases[i].name);
	free(ed->aliases);
	idset_free(&ed->aliased);
	sb_free(&ed->records);
	rewrite_sites_free(&ed->sites);
}

/* Names in records are whole fields: no tabs or newlines. */
static bool
recordable(const char *name)
{
	return strpbrk(name, "\t\n") == NULL && *name != '\0';
}

/*
 * The relocation symbol for function f: its own name when bound inside
 * the link unit, else its alias (reused when the object already has it,
 * added to ed->aliases when not).  NULL on allocation failure.
 */
/* Is new alias id of the function symbol *key? */
static bool
alias_of_is(const void *ctx, size_t id, const void *key)
{
	return ((const edits_t *)ctx)->aliases[id].of == *(const size_t *)key;
}

static char *
site_symbol(const object_t *ob, const func_sym_t *f, edits_t *ed)
{
	uint64_t h;
	GElf_Sym sym;
	size_t shndx;
	const char *name;
	char *alias;

	if (!rewrite_get_sym(ob, f->index, &sym, &shndx))
		return NULL;
	name = sym_name(ob, &sym);
	if (GELF_ST_BIND(sym.st_info) == STB_GLOBAL &&
	    GELF_ST_VISIBILITY(sym.st_other) != STV_DEFAULT)
		return strdup(name);
	if (asprintf(&alias, "%s%s", ob->alias_prefix, name) < 0)
		return NULL;
	if (map_get(&ob->defined, alias) != (size_t)-1)
		return alias;
	h = hash_bytes(HASH_FNV_OFFSET, &f->index, sizeof(f->index));
	if (idset_find(&ed->aliased, h, alias_of_is, ed, &f->index) != IDSET_NONE)
		return alias;
	new_alias_t *grown = realloc(ed->aliases, (ed->naliases + 1) * sizeof(*grown));
	char *copy = strdup(alias);

	if (grown == NULL || copy == NULL || !idset_add(&ed->aliased, h, ed->naliases)) {
		free(copy);
		free(alias);
		if (grown != NULL)
			ed->aliases = grown;
		return NULL;
	}
	ed->aliases = grown;
	ed->aliases[ed->naliases++] = (new_alias_t){ f->index, copy };
	return alias;
}

/* Decide names, records and sites for every planned call. */
static int
prepare_edits(const object_t *ob, plan_t *p, edits_t *ed, err_t *e)
{
	for (size_t i = 0; i < p->n; i++) {
		planned_t *c = &p->calls[i];
		GElf_Sym fsym;
		size_t shndx;
		const char *func;
		char *symbol;
		uint64_t off = c->at - c->func->value;
		uint32_t skip = c->marked ? 0 : tracepoint_skip(ob->isa, ob->t, c->ref->is_enabled);
		int rc;

		if (!rewrite_get_sym(ob, c->func->index, &fsym, &shndx))
			return err_libelf(e, ob->path, "gelf_getsym");
		func = sym_name(ob, &fsym);
		if (off + skip > UINT32_MAX || !recordable(func)) {
			note(ob, "%s+0x%llx: %s in function '%s' cannot be recorded: it keeps the stub",
			    section_name(ob, c->textsec), (unsigned long long)c->at,
			    probe_desc(c->ref), func);
			keeps_stub(c->ref);
			c->ref = NULL;	/* dropped from the plan */
			continue;
		}
		if ((symbol = site_symbol(ob, c->func, ed)) == NULL)
			return err_errno(e, ENOMEM, "%s", ob->path);
		sb_printf(&ed->records, "%s\t%s\t%s\t%s\t%llu\n",
		    c->marked ? "nop" : c->tail ? "tail" : "call",
		    c->ref->name, symbol, func, (unsigned long long)off);
		rc = add_site(&ed->sites, c->ref, func, symbol, (uint32_t)(off + skip), c->tail,
		    c->marked);
		free(symbol);
		if (rc != 0 || ed->records.failed)
			return err_errno(e, ENOMEM, "%s", ob->path);
	}
	return add_new_anchors(ob, &ed->sites, e);
}

/* ---- every object: planning, then writing ------------------------------------- */

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
 * Plan one ELF object: the sites an earlier run recorded, the anchors it
 * has, the calls to rewrite, and the names and records they need; the
 * sites (old and new) and anchors go to out.
 */
static int
plan_elf(rewrite_plan_t *rp, planned_object_t *po, rewrite_sites_t *out, err_t *e)
{
	object_t *ob = &po->ob;
	int rc;

	if ((rc = rewrite_object_init(ob, e)) != 0 || ob->symscn == NULL)
		return rc;
	if (map_get(&ob->defined, "__gnu_lto_slim") != (size_t)-1) {
		rp->every_kept = true;
		return 0;	/* IR only: objgen.c has said why it keeps the stubs */
	}
	if (has_lto_sections(ob)) {
		note(ob, "LTO object: the linker may compile its IR afresh, so its probe "
		    "calls are not rewritten and keep calling the stubs");
		rp->every_kept = true;
		return 0;
	}
	if ((rc = recover_sites(ob, &rp->probes, out, e)) != 0 ||
	    (rc = collect_anchors(ob, rp->m, out, e)) != 0 ||
	    (rc = plan_object(ob, &rp->probes, &po->p, e)) != 0 || po->p.n == 0)
		return rc;
	if ((rc = prepare_edits(ob, &po->p, &po->ed, e)) != 0 || po->ed.sites.n == 0)
		return rc;
	po->nsites = po->ed.sites.n;
	if (move_sites(out, &po->ed.sites) != 0)
		return err_errno(e, ENOMEM, "%s", ob->path);
	return 0;
}

static int
plan_one(rewrite_plan_t *rp, const objin_t *in, rewrite_sites_t *out, err_t *e)
{
	planned_object_t *po = &rp->objs[rp->nobjs++];
	object_t *ob = &po->ob;

	memset(po, 0, sizeof(*po));
	sb_init(&po->ed.records);
	idset_init(&po->ed.aliased);
	po->in = in;
	ob->path = in->path;
	ob->t = rp->t;
	ob->isa = rp->isa;
	ob->o = rp->o;
	ob->temps = rp->temps;
	ob->key = rewrite_alias_key(in->real);
	ob->filesize = in->len;
	ob->elf = in->elf;
	snprintf(ob->alias_prefix, sizeof(ob->alias_prefix), "%s%08x.", ALIAS_PREFIX,
	    ob->key);
	if (in->kind != MAGIC_ELF || in->elf == NULL) {
		/* LLVM bitcode: objgen.c has said why it keeps the stubs. */
		rp->every_kept = true;
		return 0;
	}
	return plan_elf(rp, po, out, e);
}

void
rewrite_plan_free(rewrite_plan_t *rp)
{
	if (rp == NULL)
		return;
	for (size_t i = 0; i < rp->nobjs; i++) {
		rewrite_object_free(&rp->objs[i].ob);
		edits_free(&rp->objs[i].ed);
		free(rp->objs[i].p.calls);
	}
	free(rp->objs);
	probe_index_free(&rp->probes);
	tempset_discard(&rp->own);
	free(rp);
}

int
rewrite_plan(const mdl_model_t *m, const target_t *t, const objin_t *ins,
    size_t nins, const rewrite_opts_t *o, rewrite_plan_t **planp,
    rewrite_sites_t *out, err_t *e)
{
	rewrite_plan_t *rp = calloc(1, sizeof(*rp));
	int rc = 0;

	*planp = NULL;
	if (rp == NULL || (nins > 0 && (rp->objs = calloc(nins, sizeof(*rp->objs))) == NULL)) {
		free(rp);
		return err_errno(e, ENOMEM, "rewriting probe calls");
	}
	rp->m = m;
	rp->t = t;
	rp->isa = call_isa_for(t->arch->elf_machine);
	rp->o = o;
	rp->temps = o != NULL && o->temps != NULL ? o->temps : &rp->own;
	rp->ins = ins;
	rp->nins = nins;
	*planp = rp;
	if (nins == 0)
		return 0;
	if (rp->isa == NULL) {
		out->every_kept = true;
		if (o != NULL && o->note != NULL)
			o->note(o->note_ctx, "probe calls are not rewritten for this "
			    "architecture; they keep calling the stubs");
		return 0;
	}
	if (probe_index_init(&rp->probes, m) != 0)
		return err_errno(e, ENOMEM, "rewriting probe calls");
	/* The same file twice: its sites once (objin.c). */
	for (size_t i = 0; i < nins && rc == 0; i++)
		if (ins[i].same_as == NULL)
			rc = plan_one(rp, &ins[i], out, e);
	if (rc == 0 && (list_kept(&rp->probes, out) != 0 || list_sited(out) != 0))
		rc = err_errno(e, ENOMEM, "rewriting probe calls");
	out->every_kept = out->every_kept || rp->every_kept;
	return rc;
}

/*
 * The other names under which the object of po was given (hard links of
 * it: objin.c reads it once) become its rewritten file too, so that each
 * name given to -G carries the rewrite; each name once.
 */
static int
link_other_names(rewrite_plan_t *rp, const planned_object_t *po, int entry, err_t *e)
{
	for (size_t i = 0; i < rp->nins; i++) {
		const objin_t *in = &rp->ins[i];
		bool done = strcmp(in->real, po->in->real) == 0;

		if (in->same_as != po->in)
			continue;
		for (size_t j = 0; j < i && !done; j++)
			done = rp->ins[j].same_as == po->in && strcmp(rp->ins[j].real, in->real) == 0;
		if (!done && tempset_link(rp->temps, entry, in->real, e) != 0)
			return -1;
	}
	return 0;
}

int
rewrite_write(rewrite_plan_t *rp, err_t *e)
{
	for (size_t i = 0; i < rp->nobjs; i++) {
		planned_object_t *po = &rp->objs[i];
		int entry;

		if (po->nsites == 0)
			continue;
		if (rewrite_commit_object(&po->ob, po->in, &po->p, &po->ed, &entry, e) != 0 ||
		    link_other_names(rp, po, entry, e) != 0)
			return -1;
		note(&po->ob, "rewrote %zu probe call%s", po->nsites, po->nsites == 1 ? "" : "s");
	}
	return rp->temps == &rp->own ? tempset_commit(&rp->own, e) : 0;
}
