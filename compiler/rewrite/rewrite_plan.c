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
 * (header/forms_x86_64.c).  The asm also puts a relocation of type NONE against the
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
#include "tempset.h"
#include "hash.h"
#include "idset.h"
#include "insn.h"
#include "objin.h"
#include "rewrite_int.h"
#include "strbuf.h"

/* ---- the model's probe functions ------------------------------------------ */



static void
probe_index_free(probe_index_t *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->refs[i].name);
	free(x->refs);
	free(x->kept);
	rewrite_map_free(&x->map);
}

/*
 * Whether a tail call moves some argument of pr: its note at a rewritten
 * tail call differs from the one at a call (stack arguments, one slot
 * further at a tail call, where the caller's return address still is).
 * -1 on allocation failure.
 */
static int
moves_args(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr)
{
	strbuf_t call, tail;
	int rc;

	sb_init(&call);
	sb_init(&tail);
	t->arch->note_args_call(m, pr, &call);
	t->arch->note_args_tail(m, pr, &tail);
	rc = call.failed || tail.failed ? -1 : call.len != tail.len ||
	    (call.len > 0 && memcmp(call.data, tail.data, call.len) != 0);
	sb_free(&call);
	sb_free(&tail);
	return rc;
}

/* Both function names of every probe of m; -1 on allocation failure. */
static int
probe_index_init(probe_index_t *x, const mdl_model_t *m, const target_t *t)
{
	size_t total = 0;
	int moved;

	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < m->nproviders; i++)
		total += 2 * m->providers[i]->nprobes;
	if ((x->refs = calloc(total + 1, sizeof(probe_ref_t))) == NULL ||
	    (x->kept = calloc(total + 1, sizeof(bool))) == NULL ||
	    rewrite_map_init(&x->map, total) != 0)
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
				moved = en || t->arch->note_args_call == NULL ? 0 :
				    moves_args(m, t, r->probe);
				if (r->name == NULL || moved < 0)
					goto fail;
				r->stack_args = moved > 0;
				rewrite_map_put(&x->map, r->name, x->n++);
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
	size_t i = rewrite_map_get(&x->map, name);

	return i == (size_t)-1 ? NULL : &x->refs[i];
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
	const char *where = rewrite_section_name(ob, c->textsec);

	c->at = rela->r_offset;
	c->marked = true;
	if (bytes == NULL || bytes->d_buf == NULL || rela->r_offset >= bytes->d_size ||
	    ((const uint8_t *)bytes->d_buf)[rela->r_offset] != ob->isa->mark_byte ||
	    c->ref->is_enabled) {
		rewrite_note(ob, "%s+0x%llx: a mark of %s on no inline site: it is not recorded",
		    where, (unsigned long long)rela->r_offset, c->ref->name);
		return false;
	}
	if (ob->grouped[c->textsec]) {
		rewrite_note(ob, "%s+0x%llx: inline site of %s in a COMDAT section (the linker may keep "
		    "another object's copy of the function): DTrace does not see it", where,
		    (unsigned long long)c->at, c->ref->name);
		return false;
	}
	if ((c->func = rewrite_enclosing_function(ob, c->textsec, c->at, 1)) == NULL) {
		rewrite_note(ob, "%s+0x%llx: inline site of %s outside any function symbol: DTrace "
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
	const char *where = rewrite_section_name(ob, c->textsec);
	unsigned type = (unsigned)GELF_R_TYPE(rela->r_info);
	const arch_t *arch = target_arch_for_machine(ob->isa->machine);
	uint32_t op;

	if (ob->isa->has_mark && type == ob->isa->mark_reloc)
		return is_recordable_mark(ob, bytes, rela, c);

	/* The relocations a call or jump to a function may carry. */
	if (type != arch->reloc_branch[0] && type != arch->reloc_branch[1]) {
		rewrite_note(ob, "%s+0x%llx: %s (relocation type %u) is not a call: it keeps the stub",
		    where, (unsigned long long)rela->r_offset, c->ref->name, type);
		return false;
	}
	/* Compared by subtraction: an r_offset near 2^64 must not wrap past the checks. */
	if (rela->r_offset < ob->isa->reloc_at ||
	    bytes == NULL || bytes->d_buf == NULL ||
	    !fits_in(rela->r_offset - ob->isa->reloc_at, ob->isa->site_size, text->sh_size) ||
	    !fits_in(rela->r_offset - ob->isa->reloc_at, ob->isa->site_size, bytes->d_size)) {
		rewrite_note(ob, "%s+0x%llx: %s relocation outside its section: it keeps the stub",
		    where, (unsigned long long)rela->r_offset, c->ref->name);
		return false;
	}
	c->at = rela->r_offset - ob->isa->reloc_at;
	op = rewrite_opcode_at(ob->isa, (const uint8_t *)bytes->d_buf + c->at);
	if ((op != ob->isa->call_op && op != ob->isa->jump_op) || rela->r_addend != ob->isa->addend) {
		rewrite_note(ob, "%s+0x%llx: reference to %s is not a call or jump "
		    "(opcode 0x%02x, addend %lld): it keeps the stub", where,
		    (unsigned long long)c->at, c->ref->name, (unsigned)op, (long long)rela->r_addend);
		return false;
	}
	c->tail = op == ob->isa->jump_op;
	if (c->tail && c->ref->stack_args) {
		rewrite_note(ob, "%s+0x%llx: tail call of %s with arguments on the stack: it keeps the "
		    "stub, where DTrace reads them as at a call", where,
		    (unsigned long long)c->at, probe_desc(c->ref));
		return false;
	}
	if (ob->grouped[c->textsec]) {
		rewrite_note(ob, "%s+0x%llx: %s in a COMDAT section (the linker may keep another "
		    "object's copy of the function): it keeps the stub", where,
		    (unsigned long long)c->at, probe_desc(c->ref));
		return false;
	}
	if (c->ref->is_enabled && ob->t->dof_enabled_version != 3 &&
	    !rewrite_clears_result(ob->isa, ob->t)) {
		rewrite_note(ob, "%s+0x%llx: is-enabled calls of this target are not rewritten; "
		    "it keeps the stub", where, (unsigned long long)c->at);
		return false;
	}
	if ((c->func = rewrite_enclosing_function(ob, c->textsec, c->at, ob->isa->site_size)) == NULL) {
		rewrite_note(ob, "%s+0x%llx: %s outside any function symbol: it keeps the stub",
		    where, (unsigned long long)c->at, probe_desc(c->ref));
		return false;
	}
	return true;
}

/*
 * The probe that symbol k of the object's symbol table names, or NULL,
 * looked up once per symbol: memo[k] holds the answer (&no_probe for
 * none), as an object calling a probe from 2,000 functions has 16,000
 * relocations against a few symbols (issue 40, bench/gate's G-sites).
 */
static const probe_ref_t no_probe;

static const probe_ref_t *
symbol_probe(const object_t *ob, const probe_index_t *px, const probe_ref_t **memo,
    size_t k)
{
	GElf_Sym sym;
	size_t shndx;

	if (k == 0 || k >= ob->nsyms)
		return NULL;
	if (memo[k] == NULL) {
		const probe_ref_t *r = NULL;

		if (rewrite_get_sym(ob, k, &sym, &shndx))
			r = probe_lookup(px, rewrite_sym_name(ob, &sym));
		memo[k] = r != NULL ? r : &no_probe;
	}
	return memo[k] == &no_probe ? NULL : memo[k];
}

/* The calls to rewrite in one relocation section. */
static int
plan_reloc_section(const object_t *ob, const probe_index_t *px, Elf_Scn *scn,
    const GElf_Shdr *sh, const probe_ref_t **memo, plan_t *p, err_t *e)
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
		planned_t c = { relsec, i, sh->sh_info, 0, NULL, NULL, false, false };

		if (sh->sh_type == SHT_RELA ? gelf_getrela(rels, (int)i, &rela) == NULL
		    : gelf_getrel(rels, (int)i, &rel) == NULL)
			return err_libelf(e, ob->path, "gelf_getrela");
		if (sh->sh_type == SHT_REL) {
			rela.r_offset = rel.r_offset;
			rela.r_info = rel.r_info;
			rela.r_addend = 0;
		}
		if ((c.ref = symbol_probe(ob, px, memo, GELF_R_SYM(rela.r_info))) == NULL)
			continue;
		if (sh->sh_type == SHT_REL || !code) {
			rewrite_note(ob, "%s+0x%llx: reference to %s is not a call in code: it keeps the stub",
			    rewrite_section_name(ob, sh->sh_info), (unsigned long long)rela.r_offset,
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
	const probe_ref_t **memo = calloc(ob->nsyms + 1, sizeof(*memo));
	int rc = 0;

	if (memo == NULL)
		return err_errno(e, ENOMEM, "%s", ob->path);
	while (rc == 0 && (scn = elf_nextscn(ob->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			rc = err_libelf(e, ob->path, "gelf_getshdr");
		else if (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL)
			rc = plan_reloc_section(ob, px, scn, &sh, memo, p, e);
	}
	free(memo);
	return rc;
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
		rewrite_note(ob, SITES_SECTION ": a malformed record is ignored");
		return 0;
	}
	tail = strcmp(f[0], "tail") == 0;
	marked = strcmp(f[0], "nop") == 0;
	errno = 0;
	off = strtoul(f[4], &end, 10);
	if (*end != '\0' || errno != 0 || off > UINT32_MAX - SITE_MAX) {
		rewrite_note(ob, SITES_SECTION ": a record with a bad offset is ignored");
		return 0;
	}
	if ((r = probe_lookup(px, f[1])) == NULL)
		return err_set(e, "%s: was rewritten by an earlier -G for %s, which the "
		    "provider definition no longer declares; rebuild the object from its "
		    "source", ob->path, f[1]);
	if ((idx = rewrite_map_get(&ob->defined, f[2])) == (size_t)-1 ||
	    !rewrite_get_sym(ob, idx, &sym, &shndx) ||
	    !holds_rewrite(ob, shndx, sym.st_value + off, r->is_enabled, tail, marked)) {
		rewrite_note(ob, "the recorded site of %s in %s+%lu is no longer rewritten code; "
		    "it is left out", f[1], f[3], off);
		return 0;
	}
	if (!marked)
		off += rewrite_tracepoint_skip(ob->isa, ob->t, r->is_enabled);
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
		    strcmp(rewrite_sym_name(ob, &sym), name) == 0)
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
		name = rewrite_sym_name(ob, &sym);
		if (strncmp(name, REWRITE_ANCHOR_PREFIX, plen) != 0 ||
		    (dot = strrchr(name + plen, '.')) == NULL)
			continue;
		if ((prov = strndup(name + plen, (size_t)(dot - name - plen))) == NULL)
			return err_errno(e, ENOMEM, "%s", ob->path);
		ours = mdl_find_provider(m, prov) != NULL;
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

/* a followed by b, malloc'd; NULL when memory runs out. */
static char *
concat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = malloc(na + nb + 1);

	if (s != NULL) {
		memcpy(s, a, na);
		memcpy(s + na, b, nb + 1);
	}
	return s;
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
	name = rewrite_sym_name(ob, &sym);
	if (GELF_ST_BIND(sym.st_info) == STB_GLOBAL &&
	    GELF_ST_VISIBILITY(sym.st_other) != STV_DEFAULT)
		return strdup(name);
	if ((alias = concat(ob->alias_prefix, name)) == NULL)
		return NULL;
	if (rewrite_map_get(&ob->defined, alias) != (size_t)-1)
		return alias;
	h = hash_bytes(HASH_FNV_OFFSET, &f->index, sizeof(f->index));
	if (idset_find(&ed->aliased, h, alias_of_is, ed, &f->index) != IDSET_NONE)
		return alias;
	new_alias_t *grown = ed->aliases;
	char *copy = strdup(alias);

	if (ed->naliases == ed->aliascap) {	/* doubling: one alias a site */
		size_t cap = ed->aliascap ? 2 * ed->aliascap : 16;

		if ((grown = realloc(ed->aliases, cap * sizeof(*grown))) != NULL) {
			ed->aliases = grown;
			ed->aliascap = cap;
		}
	}
	if (grown == NULL || copy == NULL || !idset_add(&ed->aliased, h, ed->naliases)) {
		free(copy);
		free(alias);
		return NULL;
	}
	ed->aliases[ed->naliases++] = (new_alias_t){ f->index, copy };
	return alias;
}

/*
 * One line of the records (rewrite_write.c writes them in the object):
 * "KIND\tPROBE\tSYMBOL\tFUNC\tOFFSET\n", appended piece by piece (a
 * format per site cost 1,500 instructions of 2,000 sites' 30,000 each).
 */
static void
put_record(strbuf_t *sb, const char *kind, const char *probe, const char *symbol,
    const char *func, uint64_t off)
{
	char num[24];
	size_t n = sizeof(num);

	do
		num[--n] = (char)('0' + off % 10);
	while ((off /= 10) != 0);
	sb_puts(sb, kind);
	sb_putc(sb, '\t');
	sb_puts(sb, probe);
	sb_putc(sb, '\t');
	sb_puts(sb, symbol);
	sb_putc(sb, '\t');
	sb_puts(sb, func);
	sb_putc(sb, '\t');
	sb_append(sb, num + n, sizeof(num) - n);
	sb_putc(sb, '\n');
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
		uint32_t skip = c->marked ? 0 : rewrite_tracepoint_skip(ob->isa, ob->t, c->ref->is_enabled);
		int rc;

		if (!rewrite_get_sym(ob, c->func->index, &fsym, &shndx))
			return err_libelf(e, ob->path, "gelf_getsym");
		func = rewrite_sym_name(ob, &fsym);
		if (off + skip > UINT32_MAX || !recordable(func)) {
			rewrite_note(ob, "%s+0x%llx: %s in function '%s' cannot be recorded: it keeps the stub",
			    rewrite_section_name(ob, c->textsec), (unsigned long long)c->at,
			    probe_desc(c->ref), func);
			keeps_stub(c->ref);
			c->ref = NULL;	/* dropped from the plan */
			continue;
		}
		if ((symbol = site_symbol(ob, c->func, ed)) == NULL)
			return err_errno(e, ENOMEM, "%s", ob->path);
		put_record(&ed->records, c->marked ? "nop" : c->tail ? "tail" : "call",
		    c->ref->name, symbol, func, off);
		rc = add_site(&ed->sites, c->ref, func, symbol, (uint32_t)(off + skip), c->tail,
		    c->marked);
		free(symbol);
		if (rc != 0 || ed->records.failed)
			return err_errno(e, ENOMEM, "%s", ob->path);
	}
	return add_new_anchors(ob, &ed->sites, e);
}

/* ---- every object: planning, then writing ------------------------------------- */


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
	if (rewrite_map_get(&ob->defined, "__gnu_lto_slim") != (size_t)-1) {
		rp->every_kept = true;
		return 0;	/* IR only: objgen.c has said why it keeps the stubs */
	}
	if (rewrite_has_lto_sections(ob)) {
		rewrite_note(ob, "LTO object: the linker may compile its IR afresh, so its probe "
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
	rp->isa = rewrite_call_isa_for(t->arch->elf_machine);
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
	if (probe_index_init(&rp->probes, m, t) != 0)
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
