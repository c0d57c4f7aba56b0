/*
 * drti_sites.c - the header's inline probe sites added to drti_lite's copy
 * of a DOF, each in the record of its (probe, function): drti_sites.h
 * says why and how; linear, from the object's memory alone.
 */
#include <elf.h>
#include <sys/mman.h>

#include "drti_proto.h"
#include "drti_sites.h"
#include "drti_str.h"
#include "drti_sys.h"

/*
 * The smallest per-site helpers and the name loops are inlined whatever
 * -Os weighs (a call per site and per name was much of the site pass's
 * cost, bench/startup); the rest stay functions, as every byte here is
 * in every -G output (inlining them all: 920 bytes more for 9% fewer
 * instructions).
 */
#define DRTI_HOT static inline __attribute__((always_inline))


/* The address a PC-relative field names, or 0 for a field of 0 (no site). */
DRTI_HOT uintptr_t
drti_rel(const int32_t *field)
{
	return *field == 0 ? 0 : (uintptr_t)field + (uintptr_t)(intptr_t)*field;
}

static const char *
drti_rel64(const int64_t *field)
{
	return *field == 0 ? NULL : (const char *)((uintptr_t)field + (uintptr_t)*field);
}

/*
 * Whether [addr, addr + len) lies in the file-backed part of program
 * header ph (an executable segment if exec); *room: the bytes from addr to
 * that part's end.
 */
DRTI_HOT int
drti_in_phdr(const drti_sites_t *s, const ElfW(Phdr) *ph, uintptr_t addr, size_t len, int exec,
    size_t *room)
{
	uintptr_t start = s->bias + (uintptr_t)ph->p_vaddr;

	if (ph->p_type != PT_LOAD || addr < start || addr - start >= ph->p_filesz ||
	    len > ph->p_filesz - (addr - start) || (exec && !(ph->p_flags & PF_X)))
		return 0;
	*room = (size_t)(ph->p_filesz - (addr - start));
	return 1;
}

/* drti_in_object past the segment last found. */
static int
drti_in_other(drti_sites_t *s, uintptr_t addr, size_t len, int exec, size_t *room)
{
	for (ElfW(Half) i = 0; i < s->phnum; i++)
		if (drti_in_phdr(s, &s->phdr[i], addr, len, exec, room)) {
			s->last[exec] = i;
			return 1;
		}
	return 0;
}

/*
 * Whether [addr, addr + len) lies in the file-backed part of one PT_LOAD
 * segment of the object (an executable one if exec); *room: the bytes from
 * addr to that part's end.  The segment last found is tried first.
 */
DRTI_HOT int
drti_in_object(drti_sites_t *s, uintptr_t addr, size_t len, int exec, size_t *room)
{
	if (s->last[exec] < s->phnum && drti_in_phdr(s, &s->phdr[s->last[exec]], addr, len, exec, room))
		return 1;
	return drti_in_other(s, addr, len, exec, room);
}

/*
 * FNV-1a of the name at str in *h, for a probe name (probe) `__` read as
 * `-` (a declared probe name hashes as its DOF name; a function's name is
 * hashed as it is); its length, or max if no NUL lies in its first max
 * bytes.  One pass gives the bound, the length and the hash.
 */
DRTI_HOT size_t
drti_scan(const char *str, size_t max, uint32_t *h, int probe)
{
	uint32_t v = 2166136261u;
	size_t i = 0;

	for (; i < max; i++) {
		uint8_t c = (uint8_t)str[i];

		if (c == '\0')
			break;
		if (probe && c == '_' && i + 1 < max && str[i + 1] == '_') {
			c = '-';
			i++;
		}
		v = (v ^ c) * 16777619u;
	}
	*h = v;
	return i;
}

/*
 * The NUL-ended name at addr inside the object (at most max bytes, and
 * room bytes if room is not 0), or NULL; its hash in *h (drti_scan).
 */
static const char *
drti_object_name(drti_sites_t *s, uintptr_t addr, size_t room, size_t max, uint32_t *h, int probe)
{
	if (addr == 0 || (room == 0 && !drti_in_object(s, addr, 1, 0, &room)))
		return NULL;
	max = room < max ? room : max;
	return drti_scan((const char *)addr, max, h, probe) < max ? (const char *)addr : NULL;
}

/*
 * The address after the NUL of the string at addr inside the object if
 * that string is want (its NUL within max bytes), else 0; *left: the bytes
 * of its segment from there.
 */
static uintptr_t
drti_object_is(drti_sites_t *s, uintptr_t addr, const char *want, size_t max, size_t *left)
{
	const char *a = (const char *)addr;
	size_t room, i = 0;

	if (addr == 0 || !drti_in_object(s, addr, 1, 0, &room))
		return 0;
	max = room < max ? room : max;
	while (i < max && a[i] == want[i] && a[i] != '\0')
		i++;
	if (i >= max || a[i] != '\0' || want[i] != '\0')
		return 0;
	*left = room - i - 1;
	return addr + i + 1;
}

/* Whether the DOF probe name dof is the declared name decl (`__` there is `-` here). */
DRTI_HOT int
drti_name_is(const char *dof, const char *decl)
{
	while (*dof != '\0' && *decl != '\0') {
		if (*dof == '-' && decl[0] == '_' && decl[1] == '_')
			decl += 2;
		else if (*dof == *decl)
			decl++;
		else
			return 0;
		dof++;
	}
	return *dof == '\0' && *decl == '\0';
}

/* How many section headers of the DOF d (size bytes) lie inside it. */
static uint32_t
drti_nsec(const char *d, size_t size)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;
	uint64_t fit;

	if (h->dofh_secsize < sizeof(dof_sec_t) || h->dofh_secoff > size)
		return 0;
	fit = (size - h->dofh_secoff) / h->dofh_secsize;
	return h->dofh_secnum < fit ? h->dofh_secnum : (uint32_t)fit;
}

/* One provider of a DOF copy, its sections found. */
typedef struct drti_dofprov {
	char *d;			/* the DOF */
	size_t size;
	uint32_t probes_idx;		/* the probe records' section index */
	dof_sec_t *probes, *offs, *enoffs, *strs;	/* enoffs NULL if none */
	const char *name;
	uint64_t nrec;
	char *recs;			/* the probe records, as found */
	uint64_t es;			/* and their size */
} drti_dofprov_t;

DRTI_HOT dof_probe_t *
drti_probe(const drti_dofprov_t *p, uint64_t j)
{
	return (dof_probe_t *)(void *)(p->recs + j * p->es);
}

/* String i of p's strings, or "" if it does not end inside them; its hash in *h (drti_scan). */
static const char *
drti_strh(const drti_dofprov_t *p, uint32_t i, uint32_t *h, int probe)
{
	const char *t = p->d + p->strs->dofs_offset;
	uint64_t size = p->strs->dofs_size;

	if (i < size && drti_scan(t + i, (size_t)(size - i), h, probe) < size - i)
		return t + i;
	*h = 2166136261u;
	return "";
}

static const char *
drti_str(const drti_dofprov_t *p, uint32_t i)
{
	uint32_t h;

	return drti_strh(p, i, &h, 0);
}

/* Whether every offset array of every record lies in its section. */
static int
drti_records_ok(const drti_dofprov_t *p)
{
	for (uint64_t j = 0; j < p->nrec; j++) {
		const dof_probe_t *pr = drti_probe(p, j);

		if (((uint64_t)pr->dofpr_offidx + pr->dofpr_noffs) * 4 > p->offs->dofs_size ||
		    (pr->dofpr_nenoffs != 0 && (p->enoffs == NULL ||
		    ((uint64_t)pr->dofpr_enoffidx + pr->dofpr_nenoffs) * 4 > p->enoffs->dofs_size)))
			return 0;
	}
	return 1;
}

/*
 * Section i of the DOF d, if it is a provider that can be read (named
 * want, if want is not NULL), in *p; 0, or -1.
 */
static int
drti_dofprov(char *d, size_t size, uint32_t i, const char *want, drti_dofprov_t *p)
{
	dof_provider_t *prov;

	if (drti_provider_at(d, size, i, &prov, &p->probes) <= 0)
		return -1;
	p->d = d;
	p->size = size;
	p->probes_idx = prov->dofpv_probes;
	p->nrec = p->probes->dofs_size / p->probes->dofs_entsize;
	p->recs = d + p->probes->dofs_offset;
	p->es = p->probes->dofs_entsize;
	p->offs = drti_dof_section(d, size, prov->dofpv_proffs);
	p->strs = drti_dof_section(d, size, prov->dofpv_strtab);
	p->enoffs = prov->dofpv_prenoffs == DOF_SECT_NONE ? NULL :
	    drti_dof_section(d, size, prov->dofpv_prenoffs);
	if (p->offs == NULL || p->strs == NULL || p->offs->dofs_offset % 4 != 0 ||
	    (p->enoffs != NULL && p->enoffs->dofs_offset % 4 != 0))
		return -1;
	p->name = drti_str(p, prov->dofpv_name);
	if (want != NULL && drti_strcmp(p->name, want) != 0)
		return -1;
	return drti_records_ok(p) ? 0 : -1;
}

/*
 * The run-time address of a record's function address: the dynamic
 * loader has already relocated a -G object's DOF in a PIE or a shared
 * library (.SUNW_dof is writable), and dtprobed, like this, takes an
 * address above the load bias as relocated.
 */
DRTI_HOT uint64_t
drti_abs(const drti_sites_t *s, uint64_t addr)
{
	return s->bias != 0 && addr > s->bias ? addr : addr + s->bias;
}

/*
 * The probe addresses of the copy d made absolute: -G writes each one
 * relative to its own u64 (target.h's DOF_ADDR_SELF, a DOFREL relocation),
 * which the static linker resolves, so that no dynamic relocation is left
 * per probe; the u64's run-time address is in orig, the DOF itself.  Each
 * relocation done becomes DOF_RELO_NONE (the helper must not add a base).
 */
static void
drti_resolve_dofrel(char *d, size_t size, const char *orig)
{
	for (uint32_t i = 0; i < drti_nsec(d, size); i++) {
		dof_sec_t *u = drti_dof_section(d, size, i), *rs, *tgt;
		dof_relohdr_t *rh;

		if (u == NULL || u->dofs_type != DOF_SECT_URELHDR ||
		    u->dofs_size < sizeof(dof_relohdr_t) || u->dofs_offset % 4 != 0)
			continue;
		rh = (dof_relohdr_t *)(void *)(d + u->dofs_offset);
		if ((rs = drti_dof_section(d, size, rh->dofr_relsec)) == NULL ||
		    (tgt = drti_dof_section(d, size, rh->dofr_tgtsec)) == NULL ||
		    tgt->dofs_type != DOF_SECT_PROBES || tgt->dofs_offset % 8 != 0 ||
		    rs->dofs_entsize < sizeof(dof_relodesc_t) || rs->dofs_entsize % 8 != 0 ||
		    rs->dofs_offset % 8 != 0)
			continue;
		if (tgt->dofs_size < 8 || rs->dofs_size < rs->dofs_entsize)
			continue;
		/* Bounds read once: a write below may land on these headers. */
		const uint64_t rent = rs->dofs_entsize, last = tgt->dofs_size - 8;
		char *rd = d + rs->dofs_offset, *rend = rd + rs->dofs_size / rent * rent;
		char *t = d + tgt->dofs_offset;
		const uint64_t delta = (uint64_t)(uintptr_t)orig - (uint64_t)(uintptr_t)d;

		__asm__("" : "+r"(t));	/* one register, not d + an offset per entry (-Os) */
		/* Each address inside the probes: its offset 8-aligned, at most last. */
		do {
			dof_relodesc_t *r = (dof_relodesc_t *)(void *)rd;
			uint64_t off = r->dofr_offset;

			if (r->dofr_type == DOF_RELO_DOFREL && (off & 7) == 0 && off <= last) {
				uint64_t *at = (uint64_t *)(void *)(t + off);

				*at += (uint64_t)(uintptr_t)at + delta;
				r->dofr_type = DOF_RELO_NONE;
			}
			rd += rent;
		} while (rd != rend);
	}
}

/*
 * Every relocation of the DOF d that applies to section tgt (probe records
 * written again, their addresses absolute): DOF_RELO_NONE.
 */
static void
drti_relocs_none(char *d, size_t size, uint32_t tgt)
{
	for (uint32_t i = 0; i < drti_nsec(d, size); i++) {
		dof_sec_t *rs = drti_dof_relocs_for(d, size, i, tgt);

		if (rs == NULL)
			continue;
		for (uint64_t o = 0; o + rs->dofs_entsize <= rs->dofs_size; o += rs->dofs_entsize)
			((dof_relodesc_t *)(void *)(d + rs->dofs_offset + o))->dofr_type = DOF_RELO_NONE;
	}
}

/* ---- the scratch: hash tables and chains, one mapping ---------------------- */

/* A group: one probe name and one function name, a record of the new DOF. */
typedef struct drti_group {
	uint32_t tmpl;			/* the record whose name and arguments it takes */
	uint32_t canon;			/* the first record of its probe name */
	uint32_t hash;			/* of its probe name and function name */
	uint32_t func;			/* its function name in the old strings, if not xfunc */
	uint32_t hashed;		/* whether it is in the table (bygroup), hash set */
	const char *fname;		/* its function name, in the strings or the object;
					 * NULL (func) until it is hashed */
	const char *xfunc;		/* fname if it is in the object (a site's), else NULL */
	uint32_t recs, sites;		/* its first record and first site + 1, 0 ends */
	uint32_t newfunc;		/* where its name went in the new strings */
	uint64_t lo;			/* its lowest tracepoint (records' offsets, sites) */
} drti_group_t;

typedef struct drti_scratch {
	void *map;
	size_t maplen;
	uint32_t *byname;		/* probe name -> first record + 1 */
	uint32_t nbyname;		/* slots, a power of two */
	uint32_t *bygroup;		/* (name, function) -> group + 1 */
	uint32_t nbygroup;
	uint64_t *points;		/* every tracepoint's address, 0 empty */
	uint64_t npoints;
	drti_group_t *groups;
	uint32_t ngroups;
	uint32_t *rec_next;		/* record -> next record of its group + 1 */
	uint32_t *rec_hash;		/* record -> its probe name's hash */
	uint32_t *rec_group;		/* first record of a name -> its group */
	const char **rec_name;		/* record -> its probe name */
	uint32_t *site_next;		/* site -> next site of its group + 1 */
	uint64_t *site_addr;		/* site -> its address */
	uint32_t nsites;
} drti_scratch_t;

/* The smallest power of two at least twice n (and at least 8). */
static uint64_t
drti_slots(uint64_t n)
{
	uint64_t s = 8;

	while (s < 2 * n)
		s *= 2;
	return s;
}

/* The scratch for nrec records, npoint tracepoints and nsite sites; 0 or -1. */
static int
drti_scratch_make(drti_scratch_t *x, uint64_t nrec, uint64_t npoint, uint64_t nsite)
{
	uint64_t ng = nrec + nsite, len;
	char *m;

	drti_memset(x, 0, sizeof(*x));
	if (nrec > UINT32_MAX / 4 || nsite > UINT32_MAX / 4 || npoint > UINT32_MAX)
		return -1;
	x->nbyname = (uint32_t)drti_slots(nrec);
	x->nbygroup = (uint32_t)drti_slots(ng);
	x->npoints = drti_slots(npoint + nsite);
	len = 8 * x->npoints + 8 * nsite + sizeof(drti_group_t) * ng + 8 * nrec +
	    4 * ((uint64_t)x->nbyname + x->nbygroup + 3 * nrec + nsite) + 64;
	m = drti_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (m == MAP_FAILED)
		return -1;
	x->map = m;
	x->maplen = len;
	x->points = (uint64_t *)(void *)m;
	x->site_addr = x->points + x->npoints;
	x->groups = (drti_group_t *)(void *)(x->site_addr + nsite);
	x->rec_name = (const char **)(void *)(x->groups + ng);
	x->byname = (uint32_t *)(void *)(x->rec_name + nrec);
	x->bygroup = x->byname + x->nbyname;
	x->rec_next = x->bygroup + x->nbygroup;
	x->site_next = x->rec_next + nrec;
	x->rec_hash = x->site_next + nsite;
	x->rec_group = x->rec_hash + nrec;
	return 0;
}

/* Whether addr is a tracepoint already. */
DRTI_HOT int
drti_point_has(const drti_scratch_t *x, uint64_t addr)
{
	for (uint64_t i = (addr * 0x9e3779b97f4a7c15ull) >> 20;; i++) {
		uint64_t slot = x->points[i & (x->npoints - 1)];

		if (slot == addr || slot == 0)
			return slot == addr;
	}
}

/* Whether addr was a tracepoint already; it is one now. */
DRTI_HOT int
drti_point_seen(drti_scratch_t *x, uint64_t addr)
{
	uint64_t i = (addr * 0x9e3779b97f4a7c15ull) >> 20;

	for (;; i++) {
		uint64_t *slot = &x->points[i & (x->npoints - 1)];

		if (*slot == addr)
			return 1;
		if (*slot == 0) {
			*slot = addr;
			return 0;
		}
	}
}

/* The first record named like the declared probe name decl (of hash h), or -1. */
static int64_t
drti_record_named(const drti_scratch_t *x, const char *decl, uint32_t h)
{
	for (uint32_t i = h;; i++) {
		uint32_t r = x->byname[i & (x->nbyname - 1)];

		if (r == 0)
			return -1;
		if (x->rec_hash[r - 1] == h && drti_name_is(x->rec_name[r - 1], decl))
			return r - 1;
	}
}

/*
 * Record j's name and hash kept; the first record of that name (j if it
 * is the first), found by its name.  Equal pointers into the strings are
 * equal names: a comparison only where they differ.
 */
static uint32_t
drti_name_record(const drti_dofprov_t *p, drti_scratch_t *x, uint32_t j)
{
	uint32_t h;
	const char *name = drti_strh(p, drti_probe(p, j)->dofpr_name, &h, 1);

	x->rec_name[j] = name;
	x->rec_hash[j] = h;
	for (uint32_t i = h;; i++) {
		uint32_t *slot = &x->byname[i & (x->nbyname - 1)];

		if (*slot == 0) {
			*slot = j + 1;
			return j;
		}
		if (x->rec_hash[*slot - 1] == h && (x->rec_name[*slot - 1] == name ||
		    drti_name_is(x->rec_name[*slot - 1], name)))
			return *slot - 1;
	}
}

/*
 * The groups.  A probe name of one record (every name, in a -G output's
 * DOF) has one group for it, made without reading its function's name;
 * the table (bygroup) holds a group by its probe name's first record and
 * its function's name once that name is hashed: every site's group, the
 * groups of a name of several records, and a record's group once a site
 * is found in its function.  So a site's group is the table's, else its
 * name's record's (one comparison of the two function names), else new;
 * and a record's name is read only where another record or a site may
 * share it.  Names compare by pointer first: the same string (a
 * function's `__func__`, a string of the DOF) is the same name.
 */

/* A new group of the probe name whose first record is canon, with tmpl's arguments; its index. */
static uint32_t
drti_group_new(drti_scratch_t *x, uint32_t canon, uint32_t tmpl, uint32_t func, const char *xfunc)
{
	drti_group_t *g = &x->groups[x->ngroups];

	g->tmpl = tmpl;
	g->canon = canon;
	g->func = func;
	g->hashed = 0;
	g->fname = g->xfunc = xfunc;
	g->recs = g->sites = 0;
	g->lo = UINT64_MAX;
	return x->ngroups++;
}

/* Group gi into the table, its function named fname (hashed to fh). */
static void
drti_group_put(drti_scratch_t *x, uint32_t gi, const char *fname, uint32_t fh)
{
	drti_group_t *g = &x->groups[gi];
	uint32_t h = (x->rec_hash[g->canon] * 31u) ^ fh;

	g->hash = h;
	g->hashed = 1;
	g->fname = fname;
	for (uint32_t i = h;; i++)
		if (x->bygroup[i & (x->nbygroup - 1)] == 0) {
			x->bygroup[i & (x->nbygroup - 1)] = gi + 1;
			return;
		}
}

/* The table's group of the probe name whose first record is canon and of the function fname, or ~0. */
static uint32_t
drti_group_find(const drti_scratch_t *x, uint32_t canon, const char *fname, uint32_t fh)
{
	uint32_t h = (x->rec_hash[canon] * 31u) ^ fh;

	for (uint32_t i = h;; i++) {
		uint32_t slot = x->bygroup[i & (x->nbygroup - 1)];
		const drti_group_t *g;

		if (slot == 0)
			return ~0u;
		g = &x->groups[slot - 1];
		if (g->hash == h && g->canon == canon &&
		    (g->fname == fname || drti_strcmp(g->fname, fname) == 0))
			return slot - 1;
	}
}

/* Whether string i of p's strings is fname (NUL-ended), read within them. */
static int
drti_str_is(const drti_dofprov_t *p, uint32_t i, const char *fname)
{
	const char *t = p->d + p->strs->dofs_offset;
	uint64_t size = p->strs->dofs_size;

	for (; i < size; i++, fname++)
		if (t[i] != *fname)
			return 0;
		else if (*fname == '\0')
			return 1;
	return 0;
}

/*
 * The group of record j (of the probe name whose first record is canon),
 * made if new.  Its name's first record's group is hashed only when a
 * second record of that name comes.
 */
static uint32_t
drti_record_group(const drti_dofprov_t *p, drti_scratch_t *x, uint32_t canon, uint32_t j)
{
	drti_group_t *first;
	const char *fn;
	uint32_t fh, gi;

	if (canon == j)
		return x->rec_group[j] = drti_group_new(x, j, j, drti_probe(p, j)->dofpr_func, NULL);
	first = &x->groups[x->rec_group[canon]];
	if (!first->hashed) {
		fn = drti_strh(p, first->func, &fh, 0);
		drti_group_put(x, x->rec_group[canon], fn, fh);
	}
	fn = drti_strh(p, drti_probe(p, j)->dofpr_func, &fh, 0);
	if ((gi = drti_group_find(x, canon, fn, fh)) == ~0u) {
		gi = drti_group_new(x, canon, j, drti_probe(p, j)->dofpr_func, NULL);
		drti_group_put(x, gi, fn, fh);
	}
	return gi;
}

/*
 * The group of a site of the probe name whose first record is canon, in
 * the function fname (hashed to fh: in the object if xfunc, else string
 * func of the DOF, the stub's), made if new.
 */
static uint32_t
drti_site_group(const drti_dofprov_t *p, drti_scratch_t *x, uint32_t canon, uint32_t func,
    const char *fname, const char *xfunc, uint32_t fh)
{
	uint32_t gi = drti_group_find(x, canon, fname, fh), ri = x->rec_group[canon];

	if (gi != ~0u)
		return gi;
	if (!x->groups[ri].hashed && drti_str_is(p, x->groups[ri].func, fname))
		gi = ri;	/* the record's own function: its group */
	else
		gi = drti_group_new(x, canon, canon, func, xfunc);
	drti_group_put(x, gi, fname, fh);
	return gi;
}

/* ---- the other -G objects' DOFs ---------------------------------------------- */

/* The points of record set p's relocation header rh (DOFREL: relative to their u64), into the set. */
static void
drti_reloc_points(drti_scratch_t *x, const drti_dofprov_t *p, const dof_sec_t *rs)
{
	const uint32_t *oo = (const uint32_t *)(const void *)(p->d + p->offs->dofs_offset);

	for (uint64_t o = 0; o + rs->dofs_entsize <= rs->dofs_size; o += rs->dofs_entsize) {
		const dof_relodesc_t *rd = (const dof_relodesc_t *)(const void *)(p->d +
		    rs->dofs_offset + o);
		uint64_t j = rd->dofr_offset / p->probes->dofs_entsize, base;
		const dof_probe_t *pr;

		if (rd->dofr_type != DOF_RELO_DOFREL || j >= p->nrec ||
		    rd->dofr_offset % p->probes->dofs_entsize != 0)
			continue;
		pr = drti_probe(p, j);
		base = pr->dofpr_addr + (uint64_t)(uintptr_t)&pr->dofpr_addr;
		for (uint32_t k = 0; k < pr->dofpr_noffs; k++)
			drti_point_seen(x, base + oo[pr->dofpr_offidx + k]);
	}
}

/*
 * The tracepoints of provider prov in the DOF d (another -G object's, as
 * it lies in memory: its addresses still relative, DOFREL), into the set;
 * whether d has that provider.
 */
static int
drti_other_points(drti_scratch_t *x, const char *d, const char *prov)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;
	char *dd = (char *)(uintptr_t)d;
	size_t size = (size_t)h->dofh_loadsz;
	int has = 0;

	for (uint32_t i = 0; i < drti_nsec(d, size); i++) {
		drti_dofprov_t p;

		if (drti_dofprov(dd, size, i, prov, &p) != 0)
			continue;
		has = 1;
		for (uint32_t k = 0; x != NULL && k < drti_nsec(d, size); k++) {
			const dof_sec_t *u = drti_dof_section(dd, size, k), *rs;
			const dof_relohdr_t *rh;

			if (u == NULL || u->dofs_type != DOF_SECT_URELHDR ||
			    u->dofs_size < sizeof(dof_relohdr_t) || u->dofs_offset % 4 != 0)
				continue;
			rh = (const dof_relohdr_t *)(const void *)(d + u->dofs_offset);
			if (rh->dofr_tgtsec == p.probes_idx &&
			    (rs = drti_dof_section(dd, size, rh->dofr_relsec)) != NULL &&
			    rs->dofs_entsize >= sizeof(dof_relodesc_t) && rs->dofs_entsize % 8 == 0 &&
			    rs->dofs_offset % 8 == 0)
				drti_reloc_points(x, &p, rs);
		}
	}
	return has;
}

/*
 * d if a DOF lies there, inside the object (its header, its loaded and
 * file sizes), else NULL: a list's end, or memory no -G object wrote.
 */
static const char *
drti_list_dof(drti_sites_t *s, const char *d)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;
	size_t room;

	if (d == NULL || (uintptr_t)d % 8 != 0 || !drti_in_object(s, (uintptr_t)d, 8, 0, &room) ||
	    !drti_dof_magic_ok(d) || room < sizeof(*h) || h->dofh_loadsz < sizeof(*h) ||
	    h->dofh_loadsz > room || h->dofh_filesz > room)
		return NULL;
	return d;
}

/* The next DOF of a list after d, or NULL at its end (drti_lite.c's drti_find_dofs). */
static const char *
drti_list_next(drti_sites_t *s, const char *d)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;

	if (h->dofh_filesz < sizeof(*h))
		return NULL;
	return drti_list_dof(s, d + ((h->dofh_filesz + 7) & ~(uint64_t)7));
}

/* A bound on the tracepoints of every -G object's DOFs: a 4-byte offset each at most. */
static uint64_t
drti_others_size(drti_sites_t *s)
{
	uint64_t n = 0;

	for (size_t l = 0; l < s->nlists; l++)
		for (const char *d = drti_list_dof(s, drti_rel64(&s->lists[l])); d != NULL;
		    d = drti_list_next(s, d))
			n += ((const dof_hdr_t *)(const void *)d)->dofh_loadsz / 4;
	return n;
}

/*
 * The DOFs of every -G object of the output, each list (8-aligned DOFs,
 * zero-ended) in DOF_LISTS_SECTION's order: the points of provider prov
 * in those that are not s->orig go into the set; returns whether s->orig
 * is the first with that provider (the one that adds the sites).
 */
static int
drti_other_dofs(drti_sites_t *s, drti_scratch_t *x, const char *prov)
{
	int first = -1;

	for (size_t l = 0; l < s->nlists; l++)
		for (const char *d = drti_list_dof(s, drti_rel64(&s->lists[l])); d != NULL;
		    d = drti_list_next(s, d)) {
			/* s->orig has prov: its copy, being extended, does */
			int has = d == s->orig || drti_other_points(x, d, prov);

			if (has && first < 0)
				first = d == s->orig;
		}
	return first != 0;
}

/* ---- reading the site records ------------------------------------------------ */

/*
 * The names last read: the sites of one probe share its names' pointer,
 * and a function's sites its `__func__`, each read and hashed once.
 */
typedef struct drti_memo {
	uintptr_t probe;		/* the last probe names read */
	int64_t tmpl;			/* their first record, -1 if none (not a site to add) */
	uintptr_t func;			/* the last function name read */
	const char *fname;		/* it, NULL if it does not end inside the object */
	uint32_t fh;			/* its hash */
} drti_memo_t;

/* The first record of provider p named as the probe names at addr (in the object), or -1. */
static int64_t
drti_site_probe(drti_sites_t *s, const drti_dofprov_t *p, const drti_scratch_t *x, uintptr_t addr)
{
	size_t left = 0;
	uintptr_t at = drti_object_is(s, addr, p->name, DTRACE_PROVNAMELEN, &left);
	const char *name;
	uint32_t h;

	if (at == 0 || (name = drti_object_name(s, at, left, 2 * DTRACE_NAMELEN, &h, 1)) == NULL)
		return -1;
	return drti_record_named(x, name, h);
}

/*
 * Site record k for provider p: its address in *site, its probe's first
 * record in m->tmpl, its function's name in *func (NULL if the record
 * names none, m->fh its hash); 1, or 0 when it is not a site to add
 * (another provider's, unknown probe, not on a nop of an executable
 * segment, its names not in the object, or a tracepoint already).
 */
static int
drti_site_read(drti_sites_t *s, const drti_dofprov_t *p, const drti_scratch_t *x, drti_memo_t *m,
    size_t k, uint64_t *site, const char **func)
{
	const dof_site_rec_t *r = k < s->nrecs ? &s->recs[k] : &s->grecs[k - s->nrecs];
	uintptr_t names = drti_rel(&r->dsr_probe), at = drti_rel(&r->dsr_site), fa;
	size_t room;

	if (drti_point_has(x, at))
		return 0;	/* in the DOF already (-G given the objects): nothing to read */
	if (names != m->probe) {
		m->probe = names;
		m->tmpl = drti_site_probe(s, p, x, names);
	}
	if (m->tmpl < 0 || !drti_in_object(s, at, 1, 1, &room))
		return 0;
#if defined(__x86_64__) || defined(__i386__)
	if (*(const volatile uint8_t *)at != 0x90 && *(const volatile uint8_t *)at != 0xcc)
		return 0;
#endif
	*func = NULL;		/* none recorded (gcc's large code model): the stub's name */
	if ((fa = drti_rel(&r->dsr_func)) != 0) {
		if (fa != m->func) {
			m->func = fa;
			m->fname = drti_object_name(s, fa, 0, 4096, &m->fh, 0);
		}
		if ((*func = m->fname) == NULL)
			return 0;
	}
	*site = at;
	return 1;
}

/* ---- writing the provider again ---------------------------------------------- */

/* Where the new arrays go, and how far they reach. */
typedef struct drti_out {
	char *d;
	size_t at, cap;			/* the next free byte; the copy's size */
	uint32_t *offs, *enoffs;	/* the new offset arrays */
	uint64_t noffs, nenoffs;	/* entries written */
} drti_out_t;

/* One offset from lo into arr[*n], if it fits (32 bits, UINT16_MAX a record); 1 if put. */
DRTI_HOT int
drti_put_off(uint32_t *arr, uint64_t *n, uint32_t *cnt, uint64_t lo, uint64_t addr)
{
	if (addr - lo > UINT32_MAX || *cnt == UINT16_MAX)
		return 0;
	arr[(*n)++] = (uint32_t)(addr - lo);
	++*cnt;
	return 1;
}

/* Group g as new record nr, its offsets appended to the new arrays. */
static void
drti_write_group(const drti_sites_t *s, const drti_dofprov_t *p, const drti_scratch_t *x,
    const drti_group_t *g, dof_probe_t *nr, drti_out_t *o)
{
	const uint32_t *oo = (const uint32_t *)(const void *)(p->d + p->offs->dofs_offset);
	const uint32_t *eo = p->enoffs == NULL ? NULL :
	    (const uint32_t *)(const void *)(p->d + p->enoffs->dofs_offset);
	uint64_t lo = g->lo;
	uint32_t cnt = 0, ecnt = 0;

	*nr = *drti_probe(p, g->tmpl);
	nr->dofpr_addr = lo;
	nr->dofpr_func = g->newfunc;
	nr->dofpr_offidx = (uint32_t)o->noffs;
	nr->dofpr_enoffidx = (uint32_t)o->nenoffs;
	for (uint32_t r = g->recs; r != 0; r = x->rec_next[r - 1]) {
		const dof_probe_t *pr = drti_probe(p, r - 1);
		uint64_t base = drti_abs(s, pr->dofpr_addr);

		for (uint32_t k = 0; k < pr->dofpr_noffs; k++)
			drti_put_off(o->offs, &o->noffs, &cnt, lo, base + oo[pr->dofpr_offidx + k]);
		for (uint32_t k = 0; k < pr->dofpr_nenoffs; k++)
			drti_put_off(o->enoffs, &o->nenoffs, &ecnt, lo, base + eo[pr->dofpr_enoffidx + k]);
	}
	for (uint32_t t = g->sites; t != 0; t = x->site_next[t - 1])
		drti_put_off(o->offs, &o->noffs, &cnt, lo, x->site_addr[t - 1]);
	nr->dofpr_noffs = (uint16_t)cnt;
	nr->dofpr_nenoffs = (uint16_t)ecnt;
	if (ecnt == 0)
		nr->dofpr_enoffidx = 0;
	nr->dofpr_pad1 = 0;
	nr->dofpr_pad2 = 0;
}

/* n bytes at o->at aligned to align, within the copy; NULL if they do not fit. */
static char *
drti_out_take(drti_out_t *o, size_t n, size_t align)
{
	size_t at = (o->at + align - 1) & ~(align - 1);

	if (at > o->cap || n > o->cap - at)
		return NULL;
	o->at = at + n;
	return o->d + at;
}

/*
 * Provider p written again after the DOF (from o->at), one record per
 * group: its strings (the old ones, then the new function names), records,
 * offsets and is-enabled offsets; 0, or -1 if the copy has no room.
 */
static int
drti_write_provider(const drti_sites_t *s, drti_dofprov_t *p, const drti_scratch_t *x,
    drti_out_t *o)
{
	size_t strsz = (size_t)p->strs->dofs_size, es = (size_t)p->probes->dofs_entsize;
	uint64_t npt = p->offs->dofs_size / 4 + x->nsites;
	uint64_t nen = p->enoffs == NULL ? 0 : p->enoffs->dofs_size / 4;
	char *strs = drti_out_take(o, strsz, 1), *recs;
	size_t strend = strsz;
	const char *lastx = NULL;	/* a function's groups follow each other: */
	uint32_t lastnew = 0;		/* its name is written once for them */

	if (strs == NULL)
		return -1;
	drti_memcpy(strs, p->d + p->strs->dofs_offset, strsz);
	for (uint32_t i = 0; i < x->ngroups; i++) {
		drti_group_t *g = &x->groups[i];
		char *end;
		size_t n;

		if (g->xfunc == NULL || g->xfunc == lastx) {
			g->newfunc = g->xfunc == NULL ? g->func : lastnew;
			continue;
		}
		for (n = 0; n < DTRACE_FUNCNAMELEN - 1 && g->xfunc[n] != '\0'; n++)
			;
		if ((end = drti_out_take(o, n + 1, 1)) == NULL)
			return -1;
		for (size_t c = 0; c < n; c++)
			end[c] = g->xfunc[c];
		end[n] = '\0';
		lastx = g->xfunc;
		lastnew = g->newfunc = (uint32_t)strend;
		strend += n + 1;
	}
	if ((recs = drti_out_take(o, es * x->ngroups, 8)) == NULL ||
	    (o->offs = (uint32_t *)(void *)drti_out_take(o, 4 * npt, 4)) == NULL ||
	    (o->enoffs = (uint32_t *)(void *)drti_out_take(o, 4 * nen, 4)) == NULL)
		return -1;
	/* each record is written whole: its template's bytes, then its fields */
	for (uint32_t i = 0; i < x->ngroups; i++) {
		for (size_t b = sizeof(dof_probe_t); b < es; b++)
			recs[i * es + b] = 0;	/* a longer entry's tail */
		drti_write_group(s, p, x, &x->groups[i], (dof_probe_t *)(void *)(recs + i * es), o);
	}
	drti_relocs_none(p->d, p->size, p->probes_idx);
	p->strs->dofs_offset = (uint64_t)(strs - p->d);
	p->strs->dofs_size = strend;
	p->probes->dofs_offset = (uint64_t)(recs - p->d);
	p->probes->dofs_size = es * x->ngroups;
	p->offs->dofs_offset = (uint64_t)((char *)o->offs - p->d);
	p->offs->dofs_size = 4 * o->noffs;
	if (p->enoffs != NULL) {
		p->enoffs->dofs_offset = (uint64_t)((char *)o->enoffs - p->d);
		p->enoffs->dofs_size = 4 * o->nenoffs;
	}
	return 0;
}

/*
 * Record pr of group g: its tracepoints into the set, its lowest
 * tracepoint (offsets and is-enabled offsets, else its address) into g's.
 */
static void
drti_record_points(const drti_sites_t *s, const drti_dofprov_t *p, drti_scratch_t *x,
    const dof_probe_t *pr, drti_group_t *g)
{
	const uint32_t *oo = (const uint32_t *)(const void *)(p->d + p->offs->dofs_offset);
	const uint32_t *eo = p->enoffs == NULL ? NULL :
	    (const uint32_t *)(const void *)(p->d + p->enoffs->dofs_offset);
	uint64_t base = drti_abs(s, pr->dofpr_addr), lo = g->lo;

	for (uint32_t k = 0; k < pr->dofpr_noffs; k++) {
		uint64_t a = base + oo[pr->dofpr_offidx + k];

		drti_point_seen(x, a);
		lo = a < lo ? a : lo;
	}
	for (uint32_t k = 0; k < pr->dofpr_nenoffs; k++)
		lo = base + eo[pr->dofpr_enoffidx + k] < lo ? base + eo[pr->dofpr_enoffidx + k] : lo;
	if (pr->dofpr_noffs + pr->dofpr_nenoffs == 0 && base < lo)
		lo = base;
	g->lo = lo;
}

/*
 * Provider p with the site records' sites, in groups by (probe, function);
 * 1 if it was written again (from *end, advanced, within cap), 0 if
 * nothing changes, -1 if it could not be.
 */
static int
drti_extend_provider(drti_sites_t *s, drti_dofprov_t *p, size_t *end, size_t cap)
{
	drti_scratch_t x;
	drti_out_t o = { p->d, *end, cap, NULL, NULL, 0, 0 };
	drti_memo_t m = { 0, -1, 0, NULL, 0 };
	int rc = 0;

	if (drti_scratch_make(&x, p->nrec, p->offs->dofs_size / 4 + drti_others_size(s),
	    s->nrecs + s->ngrecs) != 0)
		return drti_say(s->reg, "no scratch memory for the inline sites: %m"), -1;
	if (!drti_other_dofs(s, &x, p->name)) {
		drti_munmap(x.map, x.maplen);
		drti_say(s->reg, "%s: an earlier -G object of this output adds its sites", p->name);
		return 0;
	}
	for (uint32_t j = 0; j < p->nrec; j++) {
		const dof_probe_t *pr = drti_probe(p, j);
		drti_group_t *g = &x.groups[drti_record_group(p, &x, drti_name_record(p, &x, j), j)];

		x.rec_next[j] = g->recs;	/* the chain runs backwards: order */
		g->recs = j + 1;		/* within a record does not matter */
		drti_record_points(s, p, &x, pr, g);
	}
	for (size_t k = 0; k < s->nrecs + s->ngrecs; k++) {
		uint64_t site;
		const char *func;
		drti_group_t *g;

		if (!drti_site_read(s, p, &x, &m, k, &site, &func) || drti_point_seen(&x, site))
			continue;
		if (func == NULL) {
			uint32_t t = (uint32_t)m.tmpl, f = drti_probe(p, t)->dofpr_func, fh;
			const char *fn = drti_strh(p, f, &fh, 0);

			g = &x.groups[drti_site_group(p, &x, t, f, fn, NULL, fh)];
		} else {
			g = &x.groups[drti_site_group(p, &x, (uint32_t)m.tmpl, 0, func, func, m.fh)];
		}
		x.site_addr[x.nsites] = site;
		x.site_next[x.nsites] = g->sites;
		g->sites = ++x.nsites;
		g->lo = site < g->lo ? site : g->lo;
	}
	if (x.nsites != 0 || x.ngroups != p->nrec) {
		rc = drti_write_provider(s, p, &x, &o) == 0 ? 1 : -1;
		if (rc > 0)
			*end = o.at;
		else
			drti_say(s->reg, "no room for the inline sites of %s", p->name);
	}
	drti_munmap(x.map, x.maplen);
	return rc;
}

/*
 * Whether the DOF needs a pass: any record of a site (drti_lite.c's own
 * empty ones name none), or a DOF -G did not say final (two records of
 * one probe and one function name become one there).  Stops at the first
 * site: what a final DOF's object holds is its drti_lite's empty records.
 */
static int
drti_sites_pending(const drti_sites_t *s)
{
	if (!s->final)
		return s->nrecs + s->ngrecs != 0;
	for (size_t k = 0; k < s->nrecs; k++)
		if (s->recs[k].dsr_site != 0)
			return 1;
	return s->ngrecs != 0;
}

/*
 * drti_extend_t's room: per provider, its strings, records and offsets
 * again, and for each site record a record, an offset and a function name.
 */
size_t
drti_sites_room(void *arg, const void *dof)
{
	drti_sites_t *s = arg;
	const dof_hdr_t *h = dof;
	uint64_t per_site = sizeof(dof_probe_t) + 8 + DTRACE_FUNCNAMELEN, nprov = 0;

	s->orig = dof;
	s->pending = drti_sites_pending(s);
	if (!s->pending)
		return 8;	/* none, but drti_sites_add resolves the addresses */
	for (uint32_t i = 0; i < drti_nsec(dof, (size_t)h->dofh_loadsz); i++) {
		const dof_sec_t *sec = drti_dof_section((char *)(uintptr_t)dof,
		    (size_t)h->dofh_loadsz, i);

		nprov += sec != NULL && sec->dofs_type == DOF_SECT_PROVIDER;
	}
	return (size_t)((nprov + 1) * h->dofh_loadsz + 64 +
	    nprov * ((s->nrecs + s->ngrecs) * per_site + 32));
}

/*
 * drti_extend_t's add: the copy's addresses made absolute, then the sites
 * in every provider; its new size.
 */
size_t
drti_sites_add(void *arg, char *copy, size_t size, size_t cap)
{
	drti_sites_t *s = arg;
	dof_hdr_t *h = (dof_hdr_t *)(void *)copy;
	size_t end = size;
	int any = 0;

	drti_resolve_dofrel(copy, size, s->orig);
	for (uint32_t i = 0; s->pending && i < drti_nsec(copy, size); i++) {
		drti_dofprov_t p;

		if (drti_dofprov(copy, size, i, NULL, &p) == 0 &&
		    drti_extend_provider(s, &p, &end, cap) > 0)
			any = 1;
	}
	if (!any)
		return size;
	end = (end + 7) & ~(size_t)7;
	h->dofh_loadsz = h->dofh_filesz = end;
	drti_say(s->reg, "%zu site records read, records by function (%zu bytes of DOF)",
	    s->nrecs + s->ngrecs, end);
	return end;
}

