/*
 * dofgen.c - one DOF image for a model whose probes have sites.
 *
 * What DTrace needs to know about user probes travels as DOF (doc/dof.md
 * sections 1-5): a header, an array of section headers, and the sections'
 * bytes.  We lay it out the way Oracle's dtrace -G does, so that a decoded
 * usdtc image reads like a decoded dtrace image:
 *
 *	0		STRTAB, one for all providers (its bytes go last)
 *	per provider	PROBES PRARGS PROFFS [PRENOFFS] PROVIDER [RELTAB URELHDR]
 *	last		COMMENTS "usdtc <version>", not loaded
 *
 * followed by the loadable bytes in section order (each aligned, zero
 * padding), the string table, and, past dofh_loadsz rounded up to 8, the
 * comment (none with -x strip).  dtrace also writes a UTSNAME section; we
 * leave it out so that the output depends on nothing but the input.
 *
 * Records.  A probe fired from several functions has one dof_probe_t per
 * function (sites are grouped by function name, relocation symbol and known
 * address); the records of one probe share their argument map in PRARGS.
 * Offsets are relative to the function, sorted, without duplicates (the
 * Linux consumer rejects a probe with a repeated offset).
 *
 * Addresses.  A record whose function address is not known yet (the -G
 * object) holds 0 and gets a DOF SETX relocation naming the function's
 * symbol, plus a dof_reloc_t telling the object writer which u64 of the
 * image the linker must fill.  A record whose address is known (run-time
 * providers) holds that absolute address and gets no relocation: consumers
 * add the load base only through SETX relocations.  A provider with no
 * relocated record has no RELTAB and no URELHDR.
 *
 * Providers without any record are left out: both DTrace consumers reject a
 * whole DOF in which a provider's PROBES section is empty, so writing one
 * would hide every other provider of the program.
 *
 * Limits are DTrace's.  Names that a consumer would reject (provider or
 * probe name too long, more than 255 arguments, an argument type longer
 * than 127 bytes) are errors here; a function name longer than 127 bytes
 * (C++ symbols can be) is truncated, since it only labels the probe.
 *
 * Strings are deduplicated: identical strings and identical argument-type
 * lists share one copy.  Nothing here prints; failures fill err_t.
 *
 * Allocation.  libusdt runs this for every provider it enables, so what it
 * allocates is what a program pays (bench/runtime): every buffer of a
 * provider is sized once, before its probes are added, from counts of its
 * probes, sites and arguments (presize_provider); an argument list is
 * written straight into the string table and taken back if an equal one is
 * there; the scratch arrays of a probe are kept for the next probe; and
 * the list of where each record landed is kept only for a caller that
 * asks for it.  Buffers that grew by doubling were copied again and again
 * and touched twice the memory, each fresh page a page fault.
 */
#include <stdlib.h>
#include <string.h>

#include "dof.h"
#include "dofgen.h"
#include "hash.h"
#include "idset.h"
#include "sites.h"
#include "strbuf.h"
#include "version.h"

#define ARGTYPE_MAX	DTRACE_ARGTYPELEN
#define NO_SECTION	0	/* DOF_SECT_NONE as an index: "none" */

/* ---- the string table ------------------------------------------------ */

/*
 * Bytes of the STRTAB section.  Every string added is looked up first in a
 * set of the blocks already there (idset.h), keyed by the whole block, so
 * an argument list "int\0char *\0" is one key; a block's id is its index
 * in blocks.
 */
typedef struct strtab_block {
	uint32_t off;
	uint32_t len;
} strtab_block_t;

typedef struct dof_strtab {
	strbuf_t bytes;
	strtab_block_t *blocks;
	size_t nblocks, blockcap;
	idset_t set;
	bool failed;
} dof_strtab_t;

/* The block looked up: its bytes and their length. */
typedef struct strtab_key {
	const char *block;
	size_t len;
} strtab_key_t;

static bool
strtab_block_is(const void *ctx, size_t id, const void *key)
{
	const dof_strtab_t *st = ctx;
	const strtab_key_t *k = key;

	return st->blocks[id].len == k->len &&
	    memcmp(st->bytes.data + st->blocks[id].off, k->block, k->len) == 0;
}

/* Append a block's place to blocks; false when out of memory. */
static bool
strtab_note_block(dof_strtab_t *st, strtab_block_t b)
{
	if (st->nblocks == st->blockcap) {
		size_t cap = st->blockcap ? 2 * st->blockcap : 64;
		strtab_block_t *nb = realloc(st->blocks, cap * sizeof(*nb));

		if (nb == NULL)
			return false;
		st->blocks = nb;
		st->blockcap = cap;
	}
	st->blocks[st->nblocks++] = b;
	return true;
}

/*
 * The bytes from start to the end of the table, just appended, as a block:
 * its offset, which is start if no equal block was there before (the bytes
 * are then taken back); 0 on failure.
 */
static uint32_t
strtab_keep_tail(dof_strtab_t *st, size_t start)
{
	strtab_key_t k = { st->bytes.data + start, st->bytes.len - start };
	uint64_t h = hash_bytes(HASH_FNV_OFFSET, k.block, k.len);
	size_t id;

	if (st->failed || st->bytes.failed)
		goto fail;
	if ((id = idset_find(&st->set, h, strtab_block_is, st, &k)) != IDSET_NONE) {
		st->bytes.len = start;
		st->bytes.data[start] = '\0';
		return st->blocks[id].off;
	}
	if (st->bytes.len > UINT32_MAX ||
	    !strtab_note_block(st, (strtab_block_t){ (uint32_t)start, (uint32_t)k.len }) ||
	    !idset_add(&st->set, h, st->nblocks - 1))
		goto fail;
	return (uint32_t)start;
fail:
	st->failed = true;
	return 0;
}

/* Room for n more blocks (a failure shows at the next block). */
static void
strtab_presize_blocks(dof_strtab_t *st, size_t n)
{
	strtab_block_t *nb;

	if (st->nblocks + n <= st->blockcap)
		return;
	if ((nb = realloc(st->blocks, (st->nblocks + n) * sizeof(*nb))) != NULL) {
		st->blocks = nb;
		st->blockcap = st->nblocks + n;
	}
}

/* The offset of a block of bytes (its strings' NULs included); 0 on failure. */
static uint32_t
strtab_add_block(dof_strtab_t *st, const char *block, size_t len)
{
	strtab_key_t k = { block, len };
	uint64_t h = hash_bytes(HASH_FNV_OFFSET, block, len);
	strtab_block_t b;
	size_t id;

	if (st->failed)
		return 0;
	if ((id = idset_find(&st->set, h, strtab_block_is, st, &k)) != IDSET_NONE)
		return st->blocks[id].off;
	if (st->bytes.len + len > UINT32_MAX)
		goto fail;
	b = (strtab_block_t){ (uint32_t)st->bytes.len, (uint32_t)len };
	if (!strtab_note_block(st, b) || !idset_add(&st->set, h, st->nblocks - 1))
		goto fail;
	sb_append(&st->bytes, block, len);
	if (st->bytes.failed)
		goto fail;
	return b.off;
fail:
	st->failed = true;
	return 0;
}

static uint32_t
strtab_add(dof_strtab_t *st, const char *s)
{
	return strtab_add_block(st, s, strlen(s) + 1);
}

static void
strtab_init(dof_strtab_t *st)
{
	memset(st, 0, sizeof(*st));
	sb_init(&st->bytes);
	strtab_add(st, "");	/* index 0 is the empty string */
}

static void
strtab_free(dof_strtab_t *st)
{
	sb_free(&st->bytes);
	free(st->blocks);
	idset_free(&st->set);
}

/* ---- per-provider sections ------------------------------------------- */

typedef struct pending_reloc {
	uint32_t record;	/* index in the provider's PROBES */
	const char *symbol;
} pending_reloc_t;

/* A record's entries by index in its provider's PROFFS and PRENOFFS. */
typedef struct pending_record {
	const char *probe, *func, *symbol;
	uint32_t offidx, noffs, enoffidx, nenoffs;
} pending_record_t;

typedef struct prov_out {
	const mdl_provider_t *prov;
	strbuf_t probes, prargs, proffs, prenoffs, reltab;
	strbuf_t records;	/* pending_record_t per record */
	size_t nrecords;
	pending_reloc_t *relocs;
	size_t nrelocs, relocs_cap;
	dof_provider_t hdr;
	dof_relohdr_t relhdr;
	/* section indices, filled by assign_sections */
	uint32_t s_probes, s_prargs, s_proffs, s_prenoffs, s_provider, s_reltab, s_urelhdr;
} prov_out_t;

/* What one section will hold: its header fields and its bytes. */
typedef struct section {
	uint32_t type, align, flags, entsize;
	const void *data;
	size_t size;
	uint64_t offset;
	strbuf_t *owner;	/* the buffer data is in, freed once copied; or NULL */
} section_t;

typedef struct gen {
	const mdl_model_t *m;
	const site_table_t *sites;	/* NULL: the sites the model records */
	const target_t *t;
	err_t *e;
	bool want_where;	/* the caller asked where each record landed */
	bool strip;		/* -x strip: no unloaded section (the comment) */
	bool firing_only;	/* no is-enabled site (dof_gen_opts_t) */
	bool final_addrs;	/* no RELTAB or URELHDR (dof_gen_opts_t) */
	bool failed_firing;	/* firing_sites ran out of memory */
	mdl_site_t *firing;	/* probe_sites' scratch under firing_only */
	size_t firing_cap;
	/* add_probe's scratch, kept for the next probe: scratch_cap sites */
	uint32_t *offs, *enoffs;
	size_t *idx, *group;
	size_t scratch_cap;
	dof_strtab_t strtab;
	prov_out_t *provs;
	size_t nprovs;
	bool any_enabled;
	section_t *secs;
	size_t nsecs;
} gen_t;

static void
prov_out_free(prov_out_t *po)
{
	sb_free(&po->probes);
	sb_free(&po->prargs);
	sb_free(&po->proffs);
	sb_free(&po->prenoffs);
	sb_free(&po->reltab);
	sb_free(&po->records);
	free(po->relocs);
}

static bool
prov_out_failed(const prov_out_t *po)
{
	return po->probes.failed || po->prargs.failed || po->proffs.failed ||
	    po->prenoffs.failed || po->reltab.failed || po->records.failed;
}

/*
 * Sites are grouped by function: one DOF probe record per probe and
 * function (address, name and symbol alike), records in the order of each
 * function's first site.  Sorting the sites' indices by (function, index)
 * makes each group contiguous with its first site in front, and sorting
 * the groups by that first index restores the order: n log n however many
 * sites one probe has (a probe called from 40,000 places is real).
 */
typedef struct site_order {
	const mdl_site_t *sites;
	size_t *idx;		/* site indices, grouped by function */
	size_t *group;		/* where each group starts in idx, by first site */
	size_t ngroups;
} site_order_t;

static int
cmp_function(const mdl_site_t *a, const mdl_site_t *b)
{
	int c;

	if (a->func_addr != b->func_addr)
		return a->func_addr < b->func_addr ? -1 : 1;
	if ((c = strcmp(a->func, b->func)) != 0)
		return c;
	return strcmp(a->symbol, b->symbol);
}

/*
 * Sort n elements of size elem with cmp, as qsort_r does: insertion sort
 * for the few sites of nearly every probe (a run-time probe has two),
 * qsort_r otherwise.  Every comparison here is a total order, so both give
 * the same result.
 */
#define FEW 8

static void
sort_few(void *base, size_t n, size_t elem, int (*cmp)(const void *, const void *, void *),
    void *ctx)
{
	unsigned char *b = base, tmp[sizeof(size_t)];

	if (n > FEW || elem > sizeof(tmp)) {
		qsort_r(base, n, elem, cmp, ctx);
		return;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(b + (j - 1) * elem, b + j * elem, ctx) > 0; j--) {
			memcpy(tmp, b + j * elem, elem);
			memcpy(b + j * elem, b + (j - 1) * elem, elem);
			memcpy(b + (j - 1) * elem, tmp, elem);
		}
}

/* qsort_r: by function, then by index (the first site leads its group). */
static int
cmp_site_index(const void *a, const void *b, void *ctx)
{
	const mdl_site_t *sites = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = cmp_function(&sites[x], &sites[y]);

	return c != 0 ? c : x < y ? -1 : x > y;
}

/* qsort_r: group starts by their first site's index. */
static int
cmp_group_first(const void *a, const void *b, void *ctx)
{
	const size_t *idx = ctx;
	size_t x = idx[*(const size_t *)a], y = idx[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

/* Group n sites; idx and group are scratch arrays of n entries. */
static void
site_order_init(site_order_t *o, const mdl_site_t *sites, size_t n, size_t *idx,
    size_t *group)
{
	o->sites = sites;
	o->ngroups = 0;
	o->idx = idx;
	o->group = group;
	for (size_t i = 0; i < n; i++)
		o->idx[i] = i;
	sort_few(o->idx, n, sizeof(size_t), cmp_site_index, (void *)sites);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || cmp_function(&sites[o->idx[i - 1]], &sites[o->idx[i]]) != 0)
			o->group[o->ngroups++] = i;
	sort_few(o->group, o->ngroups, sizeof(size_t), cmp_group_first, o->idx);
}

/* Scratch for a probe of n sites; -1 on ENOMEM. */
static int
gen_scratch(gen_t *g, size_t n)
{
	if (n <= g->scratch_cap)
		return 0;
	free(g->offs);
	free(g->enoffs);
	free(g->idx);
	free(g->group);
	g->offs = malloc(n * sizeof(uint32_t));
	g->enoffs = malloc(n * sizeof(uint32_t));
	g->idx = malloc(n * sizeof(size_t));
	g->group = malloc(n * sizeof(size_t));
	if (g->offs == NULL || g->enoffs == NULL || g->idx == NULL || g->group == NULL) {
		g->scratch_cap = 0;
		return -1;
	}
	g->scratch_cap = n;
	return 0;
}

static int
cmp_u32(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop duplicates; returns the new count. */
static size_t
sort_unique(uint32_t *v, size_t n)
{
	size_t k = 0;

	sort_few(v, n, sizeof(*v), cmp_u32, NULL);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/*
 * The strtab offset of an argument list as consecutive strings (0 if
 * empty), written at the end of the table and kept there only if no equal
 * list is there already.
 */
static int
add_arg_list(gen_t *g, const mdl_probe_t *pr, const mdl_arg_t *args,
    size_t n, const char *which, uint32_t *idx)
{
	dof_strtab_t *st = &g->strtab;
	size_t start = st->bytes.len;

	*idx = 0;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strlen(args[i].type) >= ARGTYPE_MAX)
			return err_set(g->e, "probe %s: %s argument %zu type '%s' is "
			    "longer than DTrace's limit of %d bytes", pr->dof_name,
			    which, i, args[i].type, ARGTYPE_MAX - 1);
	for (size_t i = 0; i < n; i++)
		sb_append(&st->bytes, args[i].type, strlen(args[i].type) + 1);
	if (st->bytes.failed)
		return err_set(g->e, "out of memory building the DOF string table");
	*idx = strtab_keep_tail(st, start);
	return 0;
}

/* A function name as DTrace can hold it (truncated to 127 bytes). */
static uint32_t
add_func_name(gen_t *g, const char *func)
{
	char buf[MDL_FUNCNAMELEN];
	size_t n = strlen(func);

	if (n < MDL_FUNCNAMELEN)
		return strtab_add(&g->strtab, func);
	memcpy(buf, func, MDL_FUNCNAMELEN - 1);
	buf[MDL_FUNCNAMELEN - 1] = '\0';
	return strtab_add(&g->strtab, buf);
}

static int
add_pending_reloc(gen_t *g, prov_out_t *po, uint32_t record, const char *symbol)
{
	pending_reloc_t *r = po->relocs;
	dof_relodesc_t d;

	if (po->nrelocs == po->relocs_cap) {
		size_t cap = po->relocs_cap ? 2 * po->relocs_cap : 16;

		if ((r = realloc(po->relocs, cap * sizeof(*r))) == NULL)
			return err_set(g->e, "out of memory building DOF relocations");
		po->relocs = r;
		po->relocs_cap = cap;
	}
	r[po->nrelocs++] = (pending_reloc_t){ record, symbol };
	if (g->final_addrs)
		return 0;	/* the object's relocation alone: the address is final */
	memset(&d, 0, sizeof(d));
	d.dofr_name = strtab_add(&g->strtab, symbol);
	d.dofr_type = g->t->dof_addr == DOF_ADDR_SELF ? DOF_RELO_DOFREL : DOF_RELO_SETX;
	d.dofr_offset = (uint64_t)record * sizeof(dof_probe_t);
	d.dofr_data = g->t->dof_addr == DOF_ADDR_DOFBASE ? DOF_RELDATA_DOFBASE : 0;
	sb_append(&po->reltab, &d, sizeof(d));
	return 0;
}

/*
 * The record of probe pr for one function: the offsets of its sites
 * (members, n indices into sites, the first site first).  offs/enoffs
 * are scratch arrays of at least n entries.
 */
static int
add_record(gen_t *g, prov_out_t *po, const mdl_probe_t *pr, const mdl_site_t *sites,
    const size_t *members, size_t n, const dof_probe_t *proto, uint32_t *offs,
    uint32_t *enoffs)
{
	const mdl_site_t *site = &sites[members[0]];
	size_t noffs = 0, nenoffs = 0;
	dof_probe_t rec = *proto;

	for (size_t i = 0; i < n; i++) {
		const mdl_site_t *s = &sites[members[i]];

		if (s->is_enabled)
			enoffs[nenoffs++] = s->offset;
		else
			offs[noffs++] = s->offset;
	}
	noffs = sort_unique(offs, noffs);
	nenoffs = sort_unique(enoffs, nenoffs);
	if (noffs > UINT16_MAX || nenoffs > UINT16_MAX)
		return err_set(g->e, "probe %s:%s: more than %u sites in function %s",
		    po->prov->name, pr->dof_name, UINT16_MAX, site->func);
	if (po->proffs.len / 4 + noffs > UINT32_MAX ||
	    po->prenoffs.len / 4 + nenoffs > UINT32_MAX ||
	    po->nrecords >= UINT32_MAX / sizeof(dof_probe_t))
		return err_set(g->e, "provider %s: too many probe sites for DOF",
		    po->prov->name);

	rec.dofpr_addr = site->func_addr;
	rec.dofpr_func = add_func_name(g, site->func);
	rec.dofpr_offidx = (uint32_t)(po->proffs.len / 4);
	rec.dofpr_noffs = (uint16_t)noffs;
	rec.dofpr_enoffidx = nenoffs ? (uint32_t)(po->prenoffs.len / 4) : 0;
	rec.dofpr_nenoffs = (uint16_t)nenoffs;
	sb_append(&po->proffs, offs, noffs * sizeof(uint32_t));
	sb_append(&po->prenoffs, enoffs, nenoffs * sizeof(uint32_t));
	sb_append(&po->probes, &rec, sizeof(rec));
	if (g->want_where) {
		pending_record_t where = { pr->dof_name, site->func,
		    site->func_addr == 0 ? site->symbol : NULL, rec.dofpr_offidx,
		    rec.dofpr_noffs, rec.dofpr_enoffidx, rec.dofpr_nenoffs };

		sb_append(&po->records, &where, sizeof(where));
	}
	if (site->func_addr == 0 &&
	    add_pending_reloc(g, po, (uint32_t)po->nrecords, site->symbol) != 0)
		return -1;
	po->nrecords++;
	return 0;
}

static int
check_probe(gen_t *g, const mdl_provider_t *p, const mdl_probe_t *pr)
{
	if (strlen(pr->dof_name) == 0 || strlen(pr->dof_name) >= MDL_NAMELEN)
		return err_set(g->e, "probe %s:%s: the name must have 1 to %d bytes",
		    p->name, pr->dof_name, MDL_NAMELEN - 1);
	if (pr->nargc > MDL_MAXARGS || pr->xargc > MDL_MAXARGS)
		return err_set(g->e, "probe %s:%s: more than %d arguments",
		    p->name, pr->dof_name, MDL_MAXARGS);
	if (pr->xargc > 0 && pr->argmap == NULL)
		return err_set(g->e, "probe %s:%s: argument map missing "
		    "(mdl_probe_finish_args was not called)", p->name, pr->dof_name);
	for (size_t i = 0; i < pr->xargc; i++)
		if (pr->argmap[i] >= pr->nargc)
			return err_set(g->e, "probe %s:%s: translated argument %zu "
			    "maps to native argument %u, but there are %zu",
			    p->name, pr->dof_name, i, pr->argmap[i], pr->nargc);
	return 0;
}

/*
 * The firing sites of v[0, *n), in order, in g's scratch (valid until the
 * next call): the readers' copy of a -G object once took a copy of the
 * whole site table without its is-enabled sites, every name copied again
 * (23 MB at 100,000 probes, issue 40).  NULL with *n = 0 when memory runs
 * out, and g->failed_firing set (add_probe reports it).
 */
static const mdl_site_t *
firing_sites(gen_t *g, const mdl_site_t *v, size_t *n)
{
	size_t k = 0;

	if (*n > g->firing_cap) {
		mdl_site_t *grown = realloc(g->firing, *n * sizeof(*grown));

		if (grown == NULL) {
			g->failed_firing = true;
			*n = 0;
			return NULL;
		}
		g->firing = grown;
		g->firing_cap = *n;
	}
	for (size_t i = 0; i < *n; i++)
		if (!v[i].is_enabled)
			g->firing[k++] = v[i];
	*n = k;
	return g->firing;
}

/* A probe's sites: from the site table, or as the model records them. */
static const mdl_site_t *
probe_sites(gen_t *g, const mdl_probe_t *pr, size_t *n)
{
	const site_list_t *list = g->sites ? site_table_of(g->sites, pr) : NULL;
	const mdl_site_t *v = g->sites ? (list ? list->v : NULL) : pr->sites;

	*n = g->sites ? (list ? list->n : 0) : pr->nsites;
	return g->firing_only && *n > 0 ? firing_sites(g, v, n) : v;
}

/* Every record of one probe: shared strings and argument map, one per function. */
static int
add_probe(gen_t *g, prov_out_t *po, const mdl_probe_t *pr)
{
	size_t nsites;
	const mdl_site_t *sites = probe_sites(g, pr, &nsites);
	dof_probe_t proto;
	site_order_t order;
	int rc = 0;

	if (g->failed_firing)
		return err_set(g->e, "out of memory building DOF probe records");
	if (nsites == 0)
		return 0;
	if (check_probe(g, po->prov, pr) != 0)
		return -1;
	memset(&proto, 0, sizeof(proto));
	proto.dofpr_name = strtab_add(&g->strtab, pr->dof_name);
	proto.dofpr_nargc = (uint8_t)pr->nargc;
	proto.dofpr_xargc = (uint8_t)pr->xargc;
	if (add_arg_list(g, pr, pr->nargs, pr->nargc, "native", &proto.dofpr_nargv) != 0 ||
	    add_arg_list(g, pr, pr->xargs, pr->xargc, "translated", &proto.dofpr_xargv) != 0)
		return -1;
	if (pr->xargc > 0) {
		if (po->prargs.len + pr->xargc > UINT32_MAX)
			return err_set(g->e, "provider %s: argument maps too large for DOF",
			    po->prov->name);
		proto.dofpr_argidx = (uint32_t)po->prargs.len;
		sb_append(&po->prargs, pr->argmap, pr->xargc);
	}

	if (gen_scratch(g, nsites) != 0)
		return err_set(g->e, "out of memory building DOF probe records");
	site_order_init(&order, sites, nsites, g->idx, g->group);
	for (size_t i = 0; i < nsites; i++)
		if (sites[i].is_enabled)
			g->any_enabled = true;
	for (size_t k = 0; k < order.ngroups && rc == 0; k++) {
		size_t start = order.group[k], end = start + 1;

		while (end < nsites && (end == start ||
		    cmp_function(&sites[order.idx[start]], &sites[order.idx[end]]) == 0))
			end++;
		rc = add_record(g, po, pr, sites, &order.idx[start], end - start, &proto,
		    g->offs, g->enoffs);
	}
	return rc;
}

static int
attr_check(gen_t *g, const mdl_provider_t *p)
{
	size_t n = strlen(p->name);

	if (n == 0 || n >= MDL_PROVNAMELEN)
		return err_set(g->e, "provider %s: the name must have 1 to %d bytes",
		    p->name, MDL_PROVNAMELEN - 1);
	return 0;
}

static dof_attr_t
dof_attr(const mdl_attr_t *a)
{
	return DOF_ATTR(a->name, a->data, a->dclass);
}

/*
 * Size the provider's buffers once.  Exact for the offsets and argument
 * maps (upper bounds: duplicates are dropped), and for the records and
 * relocations when each probe is in one function, as every run-time
 * probe is; a probe in several functions makes more records, and those
 * buffers then grow.  The string table is sized for every probe's name
 * and the first probe's function, symbol and argument lists (the rest
 * mostly repeat them, and it grows when they do not).  A failure here
 * shows as a failed buffer later.
 */
static void
presize_provider(gen_t *g, prov_out_t *po)
{
	const mdl_provider_t *p = po->prov;
	size_t nrec = 0, nfire = 0, nen = 0, nxargs = 0, nstr = strlen(p->name) + 1;
	size_t nblocks = 8;

	for (size_t i = 0; i < p->nprobes; i++) {
		const mdl_probe_t *pr = p->probes[i];
		size_t n;
		const mdl_site_t *sites = probe_sites(g, pr, &n);

		if (n == 0)
			continue;
		nrec++;
		nxargs += pr->xargc;
		for (size_t k = 0; k < n; k++)
			if (sites[k].is_enabled)
				nen++;
			else
				nfire++;
		nstr += strlen(pr->dof_name) + 1;
		nblocks++;
		if (nrec > 1)
			continue;
		/* Functions, symbols and argument lists are mostly shared. */
		nstr += strlen(sites[0].func) + 1 + strlen(sites[0].symbol) + 1;
		for (size_t k = 0; k < pr->nargc; k++)
			nstr += strlen(pr->nargs[k].type) + 1;
		for (size_t k = 0; k < pr->xargc; k++)
			nstr += strlen(pr->xargs[k].type) + 1;
	}
	sb_presize(&po->probes, nrec * sizeof(dof_probe_t));
	sb_presize(&po->prargs, nxargs);
	sb_presize(&po->proffs, nfire * sizeof(uint32_t));
	sb_presize(&po->prenoffs, nen * sizeof(uint32_t));
	if (!g->final_addrs)
		sb_presize(&po->reltab, nrec * sizeof(dof_relodesc_t));
	if (g->want_where)
		sb_presize(&po->records, nrec * sizeof(pending_record_t));
	if (nrec > 0 && (po->relocs = malloc(nrec * sizeof(*po->relocs))) != NULL)
		po->relocs_cap = nrec;
	sb_presize(&g->strtab.bytes, nstr);
	idset_reserve(&g->strtab.set, g->strtab.nblocks + nblocks);
	strtab_presize_blocks(&g->strtab, nblocks);
}

static int
build_provider(gen_t *g, prov_out_t *po)
{
	const mdl_provider_t *p = po->prov;

	if (attr_check(g, p) != 0)
		return -1;
	presize_provider(g, po);
	for (size_t i = 0; i < p->nprobes; i++)
		if (add_probe(g, po, p->probes[i]) != 0)
			return -1;
	if (prov_out_failed(po))
		return err_set(g->e, "out of memory building DOF for provider %s", p->name);
	memset(&po->hdr, 0, sizeof(po->hdr));
	po->hdr.dofpv_name = strtab_add(&g->strtab, p->name);
	po->hdr.dofpv_provattr = dof_attr(&p->attr[MDL_ATTR_PROVIDER]);
	po->hdr.dofpv_modattr = dof_attr(&p->attr[MDL_ATTR_MODULE]);
	po->hdr.dofpv_funcattr = dof_attr(&p->attr[MDL_ATTR_FUNCTION]);
	po->hdr.dofpv_nameattr = dof_attr(&p->attr[MDL_ATTR_NAME]);
	po->hdr.dofpv_argsattr = dof_attr(&p->attr[MDL_ATTR_ARGS]);
	return 0;
}

/* ---- sections and layout --------------------------------------------- */

static uint32_t
add_section(gen_t *g, uint32_t type, uint32_t align, uint32_t flags,
    uint32_t entsize, const void *data, size_t size)
{
	section_t *s = &g->secs[g->nsecs];

	*s = (section_t){ type, align, flags, entsize, data, size, 0, NULL };
	return (uint32_t)g->nsecs++;
}

/* A section whose bytes are those of sb (put_sections frees them). */
static uint32_t
add_buffer_section(gen_t *g, uint32_t type, uint32_t align, uint32_t entsize,
    strbuf_t *sb)
{
	uint32_t i = add_section(g, type, align, DOF_SECF_LOAD, entsize, sb->data, sb->len);

	g->secs[i].owner = sb;
	return i;
}

static const char comment[] = "usdtc " USDTC_VERSION;

/*
 * Give every section its index, in dtrace's order, and fill the provider
 * and relocation headers that refer to those indices.
 */
static int
assign_sections(gen_t *g)
{
	size_t max = 2 + 7 * g->nprovs;

	if ((g->secs = calloc(max, sizeof(*g->secs))) == NULL)
		return err_set(g->e, "out of memory laying out DOF");
	add_section(g, DOF_SECT_STRTAB, 1, DOF_SECF_LOAD, 0, NULL, 0);
	for (size_t i = 0; i < g->nprovs; i++) {
		prov_out_t *po = &g->provs[i];

		po->s_probes = add_buffer_section(g, DOF_SECT_PROBES, 8,
		    sizeof(dof_probe_t), &po->probes);
		po->s_prargs = add_buffer_section(g, DOF_SECT_PRARGS, 1, 1, &po->prargs);
		po->s_proffs = add_buffer_section(g, DOF_SECT_PROFFS, 4, 4, &po->proffs);
		po->s_prenoffs = po->prenoffs.len == 0 ? NO_SECTION :
		    add_buffer_section(g, DOF_SECT_PRENOFFS, 4, 4, &po->prenoffs);
		po->hdr.dofpv_strtab = 0;
		po->hdr.dofpv_probes = po->s_probes;
		po->hdr.dofpv_prargs = po->s_prargs;
		po->hdr.dofpv_proffs = po->s_proffs;
		po->hdr.dofpv_prenoffs = po->s_prenoffs;
		po->s_provider = add_section(g, DOF_SECT_PROVIDER, 4, DOF_SECF_LOAD,
		    0, &po->hdr, sizeof(po->hdr));
		if (po->nrelocs == 0 || g->final_addrs)
			continue;
		po->s_reltab = add_buffer_section(g, DOF_SECT_RELTAB, 8,
		    sizeof(dof_relodesc_t), &po->reltab);
		po->relhdr = (dof_relohdr_t){ 0, po->s_reltab, po->s_probes };
		po->s_urelhdr = add_section(g, DOF_SECT_URELHDR, 4, DOF_SECF_LOAD,
		    0, &po->relhdr, sizeof(po->relhdr));
	}
	if (!g->strip)
		add_section(g, DOF_SECT_COMMENTS, 1, 0, 0, comment, sizeof(comment));
	/* Only now is the string table complete. */
	g->secs[0].data = g->strtab.bytes.data;
	g->secs[0].size = g->strtab.bytes.len;
	g->secs[0].owner = &g->strtab.bytes;	/* no string is looked up after */
	return 0;
}

static uint64_t
round_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/* Offsets: loadable sections in index order, the string table, then the rest. */
static void
layout(gen_t *g, dof_hdr_t *h)
{
	uint64_t off = sizeof(dof_hdr_t) + g->nsecs * sizeof(dof_sec_t);

	for (size_t i = 1; i < g->nsecs; i++) {
		section_t *s = &g->secs[i];

		if (!(s->flags & DOF_SECF_LOAD))
			continue;
		s->offset = off = round_up(off, s->align);
		off += s->size;
	}
	g->secs[0].offset = off;
	off += g->secs[0].size;
	h->dofh_loadsz = off;
	if (g->strip) {		/* nothing past the loaded part, as dtrace's -x strip */
		h->dofh_filesz = off;
		return;
	}
	off = round_up(off, 8);
	for (size_t i = 1; i < g->nsecs; i++) {
		section_t *s = &g->secs[i];

		if (s->flags & DOF_SECF_LOAD)
			continue;
		s->offset = off = round_up(off, s->align);
		off += s->size;
	}
	h->dofh_filesz = off;
}

static void
fill_header(const gen_t *g, dof_hdr_t *h)
{
	memset(h, 0, sizeof(*h));
	h->dofh_ident[DOF_ID_MAG0] = 0x7f;
	h->dofh_ident[DOF_ID_MAG1] = 'D';
	h->dofh_ident[DOF_ID_MAG2] = 'O';
	h->dofh_ident[DOF_ID_MAG3] = 'F';
	h->dofh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h->dofh_ident[DOF_ID_ENCODING] = DOF_ENCODE_LSB;
	h->dofh_ident[DOF_ID_VERSION] = g->any_enabled ? g->t->dof_enabled_version : DOF_VERSION_1;
	h->dofh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	h->dofh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
	h->dofh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
	h->dofh_flags = 0;
	h->dofh_hdrsize = sizeof(dof_hdr_t);
	h->dofh_secsize = sizeof(dof_sec_t);
	h->dofh_secnum = (uint32_t)g->nsecs;
	h->dofh_secoff = sizeof(dof_hdr_t);
}

/* Where each record's site entries landed (dof_record_loc_t). */
static int
locate_records(const gen_t *g, dof_record_locs_t *out)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < g->nprovs; i++)
		n += g->provs[i].nrecords;
	if (n > 0 && (out->v = calloc(n, sizeof(*out->v))) == NULL)
		return err_set(g->e, "out of memory listing the DOF's probe records");
	for (size_t i = 0; i < g->nprovs; i++) {
		const prov_out_t *po = &g->provs[i];
		const pending_record_t *r = (const void *)po->records.data;
		uint64_t offs = g->secs[po->s_proffs].offset;
		uint64_t enoffs = po->s_prenoffs == NO_SECTION ? 0 :
		    g->secs[po->s_prenoffs].offset;

		for (size_t j = 0; j < po->nrecords; j++, k++)
			out->v[k] = (dof_record_loc_t){ po->prov->name, r[j].probe,
			    r[j].func, r[j].symbol, offs + 4 * (uint64_t)r[j].offidx,
			    r[j].noffs, r[j].nenoffs ? enoffs + 4 * (uint64_t)r[j].enoffidx : 0,
			    r[j].nenoffs };
	}
	out->n = n;
	return 0;
}

/* Copy section s's bytes to its offset, zeroing the gap from *end. */
static void
put_section(uint8_t *img, uint64_t *end, const section_t *s)
{
	memset(img + *end, 0, (size_t)(s->offset - *end));
	if (s->size > 0)
		memcpy(img + s->offset, s->data, s->size);
	*end = s->offset + s->size;
}

/*
 * put_section, then the section's buffer freed: the image is never held
 * beside a whole second copy of itself (11 MB at 100,000 probes, issue
 * 40).  Nothing reads a section's bytes after the image is written.
 */
static void
put_owned_section(uint8_t *img, uint64_t *end, section_t *s)
{
	put_section(img, end, s);
	if (s->owner != NULL) {
		sb_free(s->owner);
		s->data = NULL;
		s->owner = NULL;
	}
}

/*
 * Every section's bytes after the headers (which end at end), in the
 * order layout() placed them, and zeros in between and to size: each
 * byte written once.
 */
static void
put_sections(gen_t *g, uint8_t *img, uint64_t end, size_t size)
{
	for (size_t i = 1; i < g->nsecs; i++)
		if (g->secs[i].flags & DOF_SECF_LOAD)
			put_owned_section(img, &end, &g->secs[i]);
	put_owned_section(img, &end, &g->secs[0]);
	for (size_t i = 1; i < g->nsecs; i++)
		if (!(g->secs[i].flags & DOF_SECF_LOAD))
			put_owned_section(img, &end, &g->secs[i]);
	memset(img + end, 0, size - (size_t)end);
}

/* The bytes, and the list of u64s the object writer must relocate. */
static int
write_image(gen_t *g, const dof_hdr_t *h, dof_image_t *out)
{
	size_t size = (size_t)round_up(h->dofh_filesz, 8), nrelocs = 0, k = 0;
	uint8_t *img;

	for (size_t i = 0; i < g->nprovs; i++)
		nrelocs += g->provs[i].nrelocs;
	img = malloc(size);
	out->relocs = nrelocs ? calloc(nrelocs, sizeof(*out->relocs)) : NULL;
	if (img == NULL || (nrelocs && out->relocs == NULL)) {
		free(img);
		free(out->relocs);
		out->relocs = NULL;
		return err_set(g->e, "out of memory writing a %zu-byte DOF image", size);
	}
	memcpy(img, h, sizeof(*h));
	for (size_t i = 0; i < g->nsecs; i++) {
		const section_t *s = &g->secs[i];
		dof_sec_t sh = { s->type, s->align, s->flags, s->entsize, s->offset, s->size };

		memcpy(img + h->dofh_secoff + i * sizeof(sh), &sh, sizeof(sh));
	}
	put_sections(g, img, h->dofh_secoff + g->nsecs * sizeof(dof_sec_t), size);
	for (size_t i = 0; i < g->nprovs; i++) {
		const prov_out_t *po = &g->provs[i];
		uint64_t base = g->secs[po->s_probes].offset;

		for (size_t r = 0; r < po->nrelocs; r++) {
			out->relocs[k].offset = base + (uint64_t)po->relocs[r].record *
			    sizeof(dof_probe_t) + offsetof(dof_probe_t, dofpr_addr);
			out->relocs[k].dof_start = 0;
			out->relocs[k++].symbol = po->relocs[r].symbol;
		}
	}
	out->data = img;
	out->size = size;
	out->nrelocs = nrelocs;
	return 0;
}

static void
gen_free(gen_t *g)
{
	for (size_t i = 0; i < g->nprovs; i++)
		prov_out_free(&g->provs[i]);
	free(g->provs);
	free(g->secs);
	free(g->offs);
	free(g->enoffs);
	free(g->idx);
	free(g->group);
	free(g->firing);
	strtab_free(&g->strtab);
}

int
dof_generate(const mdl_model_t *m, const target_t *t,
    dof_image_t *out, err_t *e)
{
	return dof_generate_sites(m, NULL, t, out, NULL, e);
}

int
dof_generate_sites(const mdl_model_t *m, const site_table_t *sites,
    const target_t *t, dof_image_t *out, dof_record_locs_t *where, err_t *e)
{
	return dof_generate_opts(m, sites, t, NULL, out, where, e);
}

int
dof_generate_opts(const mdl_model_t *m, const site_table_t *sites,
    const target_t *t, const dof_gen_opts_t *opts, dof_image_t *out,
    dof_record_locs_t *where, err_t *e)
{
	gen_t g;
	dof_hdr_t h;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (where != NULL)
		memset(where, 0, sizeof(*where));
	memset(&g, 0, sizeof(g));
	g.m = m;
	g.sites = sites;
	g.t = t;
	g.e = e;
	g.want_where = where != NULL;
	g.strip = opts != NULL && opts->strip;
	g.firing_only = opts != NULL && opts->firing_only;
	g.final_addrs = opts != NULL && opts->final_addrs;
	strtab_init(&g.strtab);
	if (m->nproviders > 0 &&
	    (g.provs = calloc(m->nproviders, sizeof(*g.provs))) == NULL) {
		err_set(e, "out of memory building DOF");
		goto out;
	}
	for (size_t i = 0; i < m->nproviders; i++) {
		prov_out_t *po = &g.provs[g.nprovs];

		po->prov = m->providers[i];
		sb_init(&po->probes);
		sb_init(&po->prargs);
		sb_init(&po->proffs);
		sb_init(&po->prenoffs);
		sb_init(&po->reltab);
		sb_init(&po->records);
		g.nprovs++;
		if (build_provider(&g, po) != 0)
			goto out;
		if (po->nrecords == 0) {	/* nothing to describe: leave it out */
			prov_out_free(po);
			g.nprovs--;
		}
	}
	if (g.strtab.failed) {
		err_set(e, "out of memory or over 4 GiB building the DOF string table");
		goto out;
	}
	if (assign_sections(&g) != 0)
		goto out;
	fill_header(&g, &h);
	layout(&g, &h);
	if ((rc = write_image(&g, &h, out)) == 0 && where != NULL &&
	    (rc = locate_records(&g, where)) != 0)
		dof_image_free(out);
out:
	gen_free(&g);
	return rc;
}

void
dof_image_free(dof_image_t *img)
{
	if (img == NULL)
		return;
	free(img->data);
	free(img->relocs);
	memset(img, 0, sizeof(*img));
}

void
dof_record_locs_free(dof_record_locs_t *where)
{
	free(where->v);
	where->v = NULL;
	where->n = 0;
}
