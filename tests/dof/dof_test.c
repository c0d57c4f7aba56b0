/*
 * dof_test.c - checks of the DOF writer (dofgen.c), the strict readers
 * (decode.c) and the lister (list.c), driven by tests/dof/run.
 *
 *   dof_test unit             models equal to the three providers in
 *                             /work/shared/reference, generated, decoded and
 *                             compared field by field with the decoded output
 *                             of the real dtrace -G; writer edge cases; one
 *                             corrupted field at a time with the exact error
 *   dof_test fuzz N [SEED]    N random mutations of valid images (byte flips,
 *                             interesting words, truncations) through the DOF
 *                             decoder, the --dump printer and the notes decoder;
 *                             each must decode or fail with a message
 *   dof_test sdt FILE         FILE was built with sys/sdt.h DTRACE_PROBE3
 *                             (test:three) and DTRACE_PROBE (test:zero)
 *   dof_test asm NAME OUT.s [lazyload]  an assembly file holding the DOF of
 *                             provider NAME as a -G object holds it, with drti
 *                             (DOFREL, and the readers' copy) or -x lazyload
 *                             (SETX) (sites in functions NAME_f and NAME_g, g
 *                             reached through the alias NAME_galias) and those
 *                             functions
 *   dof_test raw OUT.dof [loadsz]  the same DOF as a raw image (optionally cut
 *                             at dofh_loadsz, as a kernel reads it)
 *   dof_test list|dump FILE [BASE]  print with list_file_ex
 *
 * Every check prints "ok - NAME" or "FAIL - NAME: why"; the exit status is
 * non-zero if any failed.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dof.h"
#include "dofgen.h"
#include "list.h"
#include "model.h"
#include "target.h"
#include "version.h"
#include "../testlib.h"

/* Quiet checks inside loops: report only the first mismatch of a group. */
typedef struct group {
	const char *name;
	char why[400];
	bool bad;
} group_t;

static void
expect(group_t *g, bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond || g->bad)
		return;
	g->bad = true;
	va_start(ap, fmt);
	vsnprintf(g->why, sizeof(g->why), fmt, ap);
	va_end(ap);
}

static void
group_end(group_t *g)
{
	check(!g->bad, g->name, "%s", g->why);
}

static void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* ---- models equal to the reference providers ------------------------- */

static const src_loc_t noloc = { NULL, 0, 0 };

static mdl_probe_t *
probe(mdl_provider_t *p, const char *name, int nargs, const char *const *types,
    const char *const *names)
{
	mdl_probe_t *pr = mdl_provider_add_probe(p, name, noloc);

	for (int i = 0; i < nargs; i++)
		mdl_probe_add_native_arg(pr, types[i], names ? names[i] : NULL, noloc);
	return pr;
}

static void
set_attr(mdl_provider_t *p, int part, int n, int d, int c)
{
	p->attr[part] = (mdl_attr_t){ (uint8_t)n, (uint8_t)d, (uint8_t)c };
}

/* reference/simple: prov.d with app.c's sites. */
static mdl_model_t *
model_simple(void)
{
	mdl_model_t *m = mdl_new();
	mdl_provider_t *p = mdl_add_provider(m, "myprov", noloc);
	static const char *const st[] = { "int", "char *", "uint64_t" };
	static const char *const sn[] = { "id", "name", "ts" };
	static const char *const dt[] = { "int" };
	mdl_probe_t *start = probe(p, "op__start", 3, st, sn);
	mdl_probe_t *done = probe(p, "op__done", 1, dt, NULL);

	mdl_probe_finish_args(start);
	mdl_probe_finish_args(done);
	set_attr(p, MDL_ATTR_PROVIDER, MDL_STAB_EVOLVING, MDL_STAB_EVOLVING, MDL_CLASS_ISA);
	set_attr(p, MDL_ATTR_MODULE, MDL_STAB_PRIVATE, MDL_STAB_PRIVATE, MDL_CLASS_UNKNOWN);
	set_attr(p, MDL_ATTR_FUNCTION, MDL_STAB_PRIVATE, MDL_STAB_PRIVATE, MDL_CLASS_UNKNOWN);
	set_attr(p, MDL_ATTR_NAME, MDL_STAB_EVOLVING, MDL_STAB_EVOLVING, MDL_CLASS_ISA);
	set_attr(p, MDL_ATTR_ARGS, MDL_STAB_EVOLVING, MDL_STAB_EVOLVING, MDL_CLASS_ISA);
	mdl_probe_add_site(start, "main", NULL, 0, 0x51, false);
	mdl_probe_add_site(start, "main", NULL, 0, 0x18, true);
	mdl_probe_add_site(done, "main", NULL, 0, 0x31, false);
	mdl_probe_add_site(done, "main", NULL, 0, 0x27, false);
	mdl_probe_add_site(done, "helper", NULL, 0, 0x3, false);
	return m;
}

/* reference/http: translated arguments, attributes from pragmas. */
static mdl_model_t *
model_http(void)
{
	mdl_model_t *m = mdl_new();
	mdl_provider_t *p = mdl_add_provider(m, "http", noloc);
	static const char *const nt[] = { "httpproto_t *" }, *const nn[] = { "p" };
	const char *names[] = { "request__start", "request__done" };

	for (int i = 0; i < 2; i++) {
		mdl_probe_t *pr = probe(p, names[i], 1, nt, nn);

		mdl_probe_add_xlated_arg(pr, "conninfo_t *", "p", noloc);
		mdl_probe_add_xlated_arg(pr, "http_reqinfo_t *", "p", noloc);
		mdl_probe_finish_args(pr);
		if (i == 0) {
			mdl_probe_add_site(pr, "serve", NULL, 0, 0x3b, false);
			mdl_probe_add_site(pr, "serve", NULL, 0, 0x15, true);
		} else {
			mdl_probe_add_site(pr, "serve", NULL, 0, 0x25, false);
			mdl_probe_add_site(pr, "serve", NULL, 0, 0x43, false);
		}
	}
	set_attr(p, MDL_ATTR_PROVIDER, MDL_STAB_EVOLVING, MDL_STAB_EVOLVING, MDL_CLASS_ISA);
	set_attr(p, MDL_ATTR_MODULE, MDL_STAB_PRIVATE, MDL_STAB_PRIVATE, MDL_CLASS_UNKNOWN);
	set_attr(p, MDL_ATTR_FUNCTION, MDL_STAB_PRIVATE, MDL_STAB_PRIVATE, MDL_CLASS_UNKNOWN);
	set_attr(p, MDL_ATTR_NAME, MDL_STAB_PRIVATE, MDL_STAB_PRIVATE, MDL_CLASS_ISA);
	set_attr(p, MDL_ATTR_ARGS, MDL_STAB_EVOLVING, MDL_STAB_EVOLVING, MDL_CLASS_ISA);
	return m;
}

/* reference/static: no is-enabled probe; static f reached through an alias. */
static mdl_model_t *
model_static(void)
{
	mdl_model_t *m = mdl_new();
	mdl_provider_t *p = mdl_add_provider(m, "sp", noloc);
	static const char *const t[] = { "int" };
	mdl_probe_t *tick = probe(p, "tick", 1, t, NULL);

	mdl_probe_finish_args(tick);
	mdl_probe_add_site(tick, "g", NULL, 0, 0x4, false);
	mdl_probe_add_site(tick, "f", "$dtrace42296.f", 0, 0x3, false);
	return m;
}

/* ---- expectations from reference/<case>/dofdump.txt ------------------- */

typedef struct exp_sec {
	uint32_t type, align, flags, entsize;
	uint64_t ref_off;	/* offset in the reference (which has UTSNAME) */
	uint64_t size;		/* ~0: not compared (string table, comment) */
} exp_sec_t;

typedef struct exp_rec {
	const char *name, *func, *reloc;
	int nargc;
	const char *native[3];
	int xargc;
	const char *xlate[3];
	int map[3];
	int noffs;
	uint32_t offs[3];
	int nenoffs;
	uint32_t enoffs[2];
} exp_rec_t;

typedef struct expected {
	const char *name;
	uint8_t version;
	int nsecs;		/* ours: the reference's minus UTSNAME */
	exp_sec_t secs[10];
	const char *provider;
	uint32_t attrs[5];
	uint32_t prov_secs[5];	/* probes prargs proffs prenoffs; strtab */
	int nrecs;
	exp_rec_t recs[4];
	uint32_t relsec, tgtsec;
} expected_t;

#define NOT_COMPARED (~(uint64_t)0)

static const expected_t exp_simple = {
	"simple", 3, 9,
	{ { DOF_SECT_STRTAB, 1, 1, 0, 0x2ac, NOT_COMPARED },
	  { DOF_SECT_PROBES, 8, 1, 48, 0x180, 0x90 },
	  { DOF_SECT_PRARGS, 1, 1, 1, 0x210, 0x4 },
	  { DOF_SECT_PROFFS, 4, 1, 4, 0x214, 0x10 },
	  { DOF_SECT_PRENOFFS, 4, 1, 4, 0x224, 0x4 },
	  { DOF_SECT_PROVIDER, 4, 1, 0, 0x228, 0x2c },
	  { DOF_SECT_RELTAB, 8, 1, 24, 0x258, 0x48 },
	  { DOF_SECT_URELHDR, 4, 1, 0, 0x2a0, 0xc },
	  { DOF_SECT_COMMENTS, 1, 0, 0, 0, NOT_COMPARED } },
	"myprov", { 0x05050400, 0x01010000, 0x01010000, 0x05050400, 0x05050400 },
	{ 1, 2, 3, 4, 0 }, 3,
	{ { "op-done", "main", "main", 1, { "int" }, 1, { "int" }, { 0 }, 2, { 0x27, 0x31 }, 0, { 0 } },
	  { "op-done", "helper", "helper", 1, { "int" }, 1, { "int" }, { 0 }, 1, { 0x3 }, 0, { 0 } },
	  { "op-start", "main", "main", 3, { "int", "char *", "uint64_t" }, 3,
	    { "int", "char *", "uint64_t" }, { 0, 1, 2 }, 1, { 0x51 }, 1, { 0x18 } } },
	6, 1,
};

static const expected_t exp_http = {
	"http", 3, 9,
	{ { DOF_SECT_STRTAB, 1, 1, 0, 0x25c, NOT_COMPARED },
	  { DOF_SECT_PROBES, 8, 1, 48, 0x180, 0x60 },
	  { DOF_SECT_PRARGS, 1, 1, 1, 0x1e0, 0x4 },
	  { DOF_SECT_PROFFS, 4, 1, 4, 0x1e4, 0xc },
	  { DOF_SECT_PRENOFFS, 4, 1, 4, 0x1f0, 0x4 },
	  { DOF_SECT_PROVIDER, 4, 1, 0, 0x1f4, 0x2c },
	  { DOF_SECT_RELTAB, 8, 1, 24, 0x220, 0x30 },
	  { DOF_SECT_URELHDR, 4, 1, 0, 0x250, 0xc },
	  { DOF_SECT_COMMENTS, 1, 0, 0, 0, NOT_COMPARED } },
	"http", { 0x05050400, 0x01010000, 0x01010000, 0x01010400, 0x05050400 },
	{ 1, 2, 3, 4, 0 }, 2,
	{ { "request-done", "serve", "serve", 1, { "httpproto_t *" }, 2,
	    { "conninfo_t *", "http_reqinfo_t *" }, { 0, 0 }, 2, { 0x25, 0x43 }, 0, { 0 } },
	  { "request-start", "serve", "serve", 1, { "httpproto_t *" }, 2,
	    { "conninfo_t *", "http_reqinfo_t *" }, { 0, 0 }, 1, { 0x3b }, 1, { 0x15 } } },
	6, 1,
};

static const expected_t exp_static = {
	"static", 1, 8,
	{ { DOF_SECT_STRTAB, 1, 1, 0, 0x234, NOT_COMPARED },
	  { DOF_SECT_PROBES, 8, 1, 48, 0x160, 0x60 },
	  { DOF_SECT_PRARGS, 1, 1, 1, 0x1c0, 0x1 },
	  { DOF_SECT_PROFFS, 4, 1, 4, 0x1c4, 0x8 },
	  { DOF_SECT_PROVIDER, 4, 1, 0, 0x1cc, 0x2c },
	  { DOF_SECT_RELTAB, 8, 1, 24, 0x1f8, 0x30 },
	  { DOF_SECT_URELHDR, 4, 1, 0, 0x228, 0xc },
	  { DOF_SECT_COMMENTS, 1, 0, 0, 0, NOT_COMPARED } },
	"sp", { 0x04040500, 0x04040500, 0x04040500, 0x04040500, 0x04040500 },
	{ 1, 2, 3, 0, 0 }, 2,
	{ { "tick", "g", "g", 1, { "int" }, 1, { "int" }, { 0 }, 1, { 0x4 }, 0, { 0 } },
	  { "tick", "f", "$dtrace42296.f", 1, { "int" }, 1, { "int" }, { 0 }, 1, { 0x3 }, 0, { 0 } } },
	5, 1,
};

static const dofd_probe_t *
find_record(const dofd_provider_t *pv, const char *name, const char *func)
{
	for (size_t i = 0; i < pv->nprobes; i++)
		if (strcmp(pv->probes[i].name, name) == 0 && strcmp(pv->probes[i].func, func) == 0)
			return &pv->probes[i];
	return NULL;
}

static void
compare_header(const expected_t *x, const dof_image_t *img, const dof_decoded_t *d)
{
	group_t g = { .name = "header" };
	static const uint8_t ident[16] = { 0x7f, 'D', 'O', 'F', 2, 1, 0, 2, 8, 8 };
	char name[64];

	snprintf(name, sizeof(name), "%s: DOF header fields", x->name);
	g.name = name;
	for (int i = 0; i < 16; i++)
		expect(&g, d->hdr.dofh_ident[i] == (i == 6 ? x->version : ident[i]),
		    "ident[%d] = 0x%02x", i, d->hdr.dofh_ident[i]);
	expect(&g, d->hdr.dofh_flags == 0 && d->hdr.dofh_hdrsize == 64 &&
	    d->hdr.dofh_secsize == 32 && d->hdr.dofh_secoff == 64,
	    "flags/hdrsize/secsize/secoff %u/%u/%u/%" PRIu64, d->hdr.dofh_flags,
	    d->hdr.dofh_hdrsize, d->hdr.dofh_secsize, d->hdr.dofh_secoff);
	expect(&g, d->hdr.dofh_secnum == (uint32_t)x->nsecs, "secnum %u, want %d",
	    d->hdr.dofh_secnum, x->nsecs);
	expect(&g, img->size % 8 == 0 && img->size >= d->hdr.dofh_filesz &&
	    img->size - d->hdr.dofh_filesz < 8, "image size %zu for filesz %" PRIu64,
	    img->size, d->hdr.dofh_filesz);
	group_end(&g);
}

static void
compare_sections(const expected_t *x, const dof_decoded_t *d)
{
	group_t g;
	char name[120];
	uint64_t shift = 32;	/* the reference has one more section header (UTSNAME) */
	const dofd_section_t *str = &d->secs[0], *com = &d->secs[x->nsecs - 1];
	static const char comment[] = "usdtc " USDTC_VERSION;

	memset(&g, 0, sizeof(g));
	snprintf(name, sizeof(name), "%s: section types, alignments, flags, entsizes, offsets, sizes", x->name);
	g.name = name;
	for (int i = 0; i < x->nsecs && (size_t)i < d->nsecs; i++) {
		const dof_sec_t *s = &d->secs[i].hdr;
		const exp_sec_t *e = &x->secs[i];

		expect(&g, s->dofs_type == e->type && s->dofs_align == e->align &&
		    s->dofs_flags == e->flags && s->dofs_entsize == e->entsize,
		    "sec[%d] type/align/flags/entsize %u/%u/%u/%u, want %u/%u/%u/%u", i,
		    s->dofs_type, s->dofs_align, s->dofs_flags, s->dofs_entsize,
		    e->type, e->align, e->flags, e->entsize);
		if (e->ref_off != 0)
			expect(&g, s->dofs_offset == e->ref_off - shift,
			    "sec[%d] offset 0x%" PRIx64 ", want 0x%" PRIx64, i,
			    s->dofs_offset, e->ref_off - shift);
		if (e->size != NOT_COMPARED)
			expect(&g, s->dofs_size == e->size, "sec[%d] size 0x%" PRIx64
			    ", want 0x%" PRIx64, i, s->dofs_size, e->size);
	}
	expect(&g, str->hdr.dofs_offset + str->hdr.dofs_size == d->hdr.dofh_loadsz,
	    "string table does not end at loadsz");
	expect(&g, str->data[0] == '\0', "string table does not start with NUL");
	expect(&g, com->hdr.dofs_offset == ((d->hdr.dofh_loadsz + 7) & ~7ull) &&
	    com->hdr.dofs_size == sizeof(comment) &&
	    memcmp(com->data, comment, sizeof(comment)) == 0 &&
	    d->hdr.dofh_filesz == com->hdr.dofs_offset + com->hdr.dofs_size,
	    "COMMENTS section at 0x%" PRIx64 " size 0x%" PRIx64 " filesz 0x%" PRIx64,
	    com->hdr.dofs_offset, com->hdr.dofs_size, d->hdr.dofh_filesz);
	group_end(&g);
}

static void
compare_record(group_t *g, const dof_decoded_t *d, const dofd_provider_t *pv,
    const exp_rec_t *e)
{
	const dofd_probe_t *r = find_record(pv, e->name, e->func);
	const dofd_section_t *prargs = &d->secs[pv->raw.dofpv_prargs];

	expect(g, r != NULL, "no record %s in %s", e->name, e->func);
	if (r == NULL)
		return;
	expect(g, r->raw.dofpr_addr == 0, "%s/%s addr 0x%" PRIx64, e->name, e->func,
	    r->raw.dofpr_addr);
	expect(g, r->raw.dofpr_nargc == e->nargc && r->raw.dofpr_xargc == e->xargc,
	    "%s/%s nargc/xargc %u/%u", e->name, e->func, r->raw.dofpr_nargc, r->raw.dofpr_xargc);
	for (int k = 0; k < e->nargc && k < r->raw.dofpr_nargc; k++)
		expect(g, strcmp(r->nargv[k], e->native[k]) == 0, "%s/%s native[%d] '%s'",
		    e->name, e->func, k, r->nargv[k]);
	for (int k = 0; k < e->xargc && k < r->raw.dofpr_xargc; k++) {
		expect(g, strcmp(r->xargv[k], e->xlate[k]) == 0, "%s/%s xlate[%d] '%s'",
		    e->name, e->func, k, r->xargv[k]);
		expect(g, r->argmap[k] == e->map[k] &&
		    prargs->data[r->raw.dofpr_argidx + k] == e->map[k],
		    "%s/%s map[%d] = %u", e->name, e->func, k, r->argmap[k]);
	}
	expect(g, r->raw.dofpr_noffs == e->noffs && r->nenoffs == e->nenoffs &&
	    r->raw.dofpr_nenoffs == e->nenoffs,
	    "%s/%s noffs/nenoffs %u/%u", e->name, e->func, r->raw.dofpr_noffs, r->nenoffs);
	for (int k = 0; k < e->noffs && k < r->raw.dofpr_noffs; k++)
		expect(g, r->offs[k] == e->offs[k], "%s/%s offs[%d] 0x%x", e->name,
		    e->func, k, r->offs[k]);
	for (int k = 0; k < e->nenoffs && k < r->nenoffs; k++)
		expect(g, r->enoffs[k] == e->enoffs[k], "%s/%s enoffs[%d] 0x%x",
		    e->name, e->func, k, r->enoffs[k]);
	if (e->nenoffs == 0)
		expect(g, r->raw.dofpr_enoffidx == 0, "%s/%s enoffidx %u", e->name,
		    e->func, r->raw.dofpr_enoffidx);
	expect(g, r->reloc != NULL && strcmp(r->reloc, e->reloc) == 0,
	    "%s/%s relocation name '%s', want '%s'", e->name, e->func,
	    r->reloc ? r->reloc : "(none)", e->reloc);
	expect(g, r->raw.dofpr_pad1 == 0 && r->raw.dofpr_pad2 == 0, "padding not zero");
}

/*
 * What a DOF relocation entry holds for one way of relocating probe
 * addresses (target.h's dof_addr_reloc), written out here rather than
 * derived, so that a change of form in dofgen.c shows.
 */
typedef struct reloc_form {
	uint32_t type;		/* DOF_RELO_SETX or DOF_RELO_DOFREL */
	uint64_t data;		/* 0 or DOF_RELDATA_DOFBASE */
} reloc_form_t;

/* x86_64-linux with drti_lite: each address relative to its own u64. */
static const reloc_form_t form_linux = { DOF_RELO_DOFREL, 0 };

/*
 * Relocation header rh of provider pv: one entry per record, in record
 * order, each of form f; the decoded records carry the same form.
 */
static void
expect_relocs(group_t *g, const dofd_relhdr_t *rh, const dofd_provider_t *pv,
    const reloc_form_t *f)
{
	expect(g, rh->nrelocs == pv->nprobes, "%zu relocations", rh->nrelocs);
	for (size_t k = 0; k < rh->nrelocs; k++)
		expect(g, rh->relocs[k].raw.dofr_type == f->type &&
		    rh->relocs[k].raw.dofr_offset == sizeof(dof_probe_t) * k &&
		    rh->relocs[k].raw.dofr_data == f->data,
		    "relocation %zu: type %u offset %" PRIu64 " data %" PRIu64 ", want type %u"
		    " offset %zu data %" PRIu64, k, rh->relocs[k].raw.dofr_type,
		    rh->relocs[k].raw.dofr_offset, rh->relocs[k].raw.dofr_data, f->type,
		    sizeof(dof_probe_t) * k, f->data);
	for (size_t k = 0; k < pv->nprobes; k++)
		expect(g, pv->probes[k].reloc_type == f->type && pv->probes[k].reloc_data == f->data,
		    "record %zu decoded with relocation type %u data %" PRIu64, k,
		    pv->probes[k].reloc_type, pv->probes[k].reloc_data);
}

static void
compare_provider(const expected_t *x, const dof_image_t *img, const dof_decoded_t *d)
{
	group_t g;
	char name[80];
	const dofd_provider_t *pv = &d->providers[0];
	const dof_provider_t *r = &pv->raw;
	const uint32_t attrs[5] = { r->dofpv_provattr, r->dofpv_modattr,
	    r->dofpv_funcattr, r->dofpv_nameattr, r->dofpv_argsattr };

	memset(&g, 0, sizeof(g));
	snprintf(name, sizeof(name), "%s: provider, attributes, probe records", x->name);
	g.name = name;
	expect(&g, d->nproviders == 1, "%zu providers", d->nproviders);
	expect(&g, strcmp(pv->name, x->provider) == 0, "provider name '%s'", pv->name);
	expect(&g, r->dofpv_probes == x->prov_secs[0] && r->dofpv_prargs == x->prov_secs[1] &&
	    r->dofpv_proffs == x->prov_secs[2] && r->dofpv_prenoffs == x->prov_secs[3] &&
	    r->dofpv_strtab == x->prov_secs[4], "section indices %u %u %u %u %u",
	    r->dofpv_probes, r->dofpv_prargs, r->dofpv_proffs, r->dofpv_prenoffs,
	    r->dofpv_strtab);
	for (int i = 0; i < 5; i++)
		expect(&g, attrs[i] == x->attrs[i], "attr %d 0x%08x, want 0x%08x", i,
		    attrs[i], x->attrs[i]);
	expect(&g, pv->nprobes == (size_t)x->nrecs, "%zu records, want %d", pv->nprobes, x->nrecs);
	for (int i = 0; i < x->nrecs; i++)
		compare_record(&g, d, pv, &x->recs[i]);
	/* Records of one probe share their argument map. */
	for (size_t i = 0; i < pv->nprobes; i++)
		for (size_t j = 0; j < pv->nprobes; j++)
			if (strcmp(pv->probes[i].name, pv->probes[j].name) == 0)
				expect(&g, pv->probes[i].raw.dofpr_argidx == pv->probes[j].raw.dofpr_argidx,
				    "records %zu and %zu of %s have different argidx", i, j,
				    pv->probes[i].name);
	expect(&g, d->nrelhdrs == 1 && d->relhdrs[0].raw.dofr_relsec == x->relsec &&
	    d->relhdrs[0].raw.dofr_tgtsec == x->tgtsec && d->relhdrs[0].raw.dofr_strtab == 0,
	    "relocation header");
	if (d->nrelhdrs == 1)
		expect_relocs(&g, &d->relhdrs[0], pv, &form_linux);
	/* The object writer's list: one u64 per record, naming its symbol. */
	expect(&g, img->nrelocs == pv->nprobes, "%zu image relocations", img->nrelocs);
	for (size_t k = 0; k < img->nrelocs && k < pv->nprobes; k++)
		expect(&g, img->relocs[k].offset == pv->probes[k].addr_offset &&
		    strcmp(img->relocs[k].symbol, pv->probes[k].reloc) == 0,
		    "image relocation %zu at 0x%" PRIx64 " '%s'", k,
		    img->relocs[k].offset, img->relocs[k].symbol);
	group_end(&g);
}

static int
generate(mdl_model_t *m, dof_image_t *img, err_t *e)
{
	return dof_generate(m, target_find("x86_64-linux"), img, e);
}

static void
test_reference(mdl_model_t *(*build)(void), const expected_t *x)
{
	mdl_model_t *m = build();
	dof_image_t img;
	dof_decoded_t d;
	err_t e;
	char name[64];

	snprintf(name, sizeof(name), "%s: generate and decode", x->name);
	if (generate(m, &img, &e) != 0) {
		check(false, name, "dof_generate: %s", e.msg);
		mdl_free(m);
		return;
	}
	if (dof_decode(img.data, img.size, &d, &e) != 0) {
		check(false, name, "dof_decode: %s", e.msg);
		dof_image_free(&img);
		mdl_free(m);
		return;
	}
	check(true, name, "%s", "");
	compare_header(x, &img, &d);
	compare_sections(x, &d);
	compare_provider(x, &img, &d);
	dof_decoded_free(&d);
	dof_image_free(&img);
	mdl_free(m);
}

/* ---- writer edge cases ----------------------------------------------- */

static void
test_runtime_addresses(void)
{
	mdl_model_t *m = mdl_new();
	mdl_provider_t *p = mdl_add_provider(m, "rt", noloc);
	mdl_provider_t *empty = mdl_add_provider(m, "empty", noloc);
	mdl_probe_t *a = mdl_provider_add_probe(p, "a", noloc);
	mdl_probe_t *b = mdl_provider_add_probe(p, "b", noloc);
	dof_image_t img;
	dof_decoded_t d;
	err_t e;
	group_t g = { .name = "run-time addresses: absolute, no relocation; empty provider left out" };

	(void)empty;
	mdl_probe_finish_args(a);
	mdl_probe_finish_args(b);
	mdl_probe_add_site(a, "__dtrace_rt___a", NULL, 0x7f0000001000ull, 0, false);
	mdl_probe_add_site(a, "__dtrace_rt___a", NULL, 0x7f0000001000ull, 8, true);
	mdl_probe_add_site(b, "__dtrace_rt___b", NULL, 0x7f0000001010ull, 0, false);
	if (generate(m, &img, &e) != 0 || dof_decode(img.data, img.size, &d, &e) != 0) {
		check(false, g.name, "%s", e.msg);
		mdl_free(m);
		return;
	}
	expect(&g, d.nproviders == 1 && strcmp(d.providers[0].name, "rt") == 0,
	    "%zu providers", d.nproviders);
	expect(&g, d.nrelhdrs == 0 && img.nrelocs == 0, "relocations present");
	for (size_t i = 0; i < d.nsecs; i++)
		expect(&g, d.secs[i].hdr.dofs_type != DOF_SECT_RELTAB &&
		    d.secs[i].hdr.dofs_type != DOF_SECT_URELHDR, "section %zu is RELTAB/URELHDR", i);
	expect(&g, d.nsecs == 7, "%zu sections", d.nsecs);
	expect(&g, d.version == 3, "version %u", d.version);
	if (d.nproviders == 1 && d.providers[0].nprobes == 2) {
		const dofd_probe_t *r0 = &d.providers[0].probes[0], *r1 = &d.providers[0].probes[1];

		expect(&g, r0->raw.dofpr_addr == 0x7f0000001000ull &&
		    r1->raw.dofpr_addr == 0x7f0000001010ull, "addresses");
		expect(&g, r0->raw.dofpr_nargc == 0 && r0->raw.dofpr_xargc == 0 &&
		    r0->raw.dofpr_argidx == 0, "argument-less probe");
		expect(&g, r0->raw.dofpr_noffs == 1 && r0->nenoffs == 1 && r0->enoffs[0] == 8,
		    "is-enabled offset");
		expect(&g, r1->raw.dofpr_nenoffs == 0, "b has is-enabled offsets");
	} else {
		expect(&g, false, "records");
	}
	group_end(&g);
	dof_decoded_free(&d);
	dof_image_free(&img);
	mdl_free(m);
}

/*
 * The form of the relocations per target, with drti registering the DOF
 * and with -x lazyload (target_dof_addr): the system's SETX where it still
 * applies (lazyload on Linux and illumos; illumos marks its relative ones
 * DOFBASE), DOFREL where drti_lite or FreeBSD's kernel resolves them.
 */
static void
test_reloc_forms(void)
{
	static const struct {
		const char *target;
		bool lazyload;
		reloc_form_t form;
	} cases[] = {
		{ "x86_64-linux", false, { DOF_RELO_DOFREL, 0 } },
		{ "x86_64-linux", true, { DOF_RELO_SETX, 0 } },
		{ "aarch64-linux", false, { DOF_RELO_DOFREL, 0 } },
		{ "aarch64-linux", true, { DOF_RELO_SETX, 0 } },
		{ "x86_64-freebsd", false, { DOF_RELO_DOFREL, 0 } },
		{ "x86_64-freebsd", true, { DOF_RELO_DOFREL, 0 } },
		{ "x86_64-illumos", false, { DOF_RELO_SETX, DOF_RELDATA_DOFBASE } },
		{ "x86_64-illumos", true, { DOF_RELO_SETX, 0 } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const target_t *base = target_find(cases[i].target);
		mdl_model_t *m = model_simple();
		dof_image_t img;
		dof_decoded_t d;
		err_t e;
		char name[96];
		group_t g = { .name = name };

		snprintf(name, sizeof(name), "relocation form of %s%s", cases[i].target,
		    cases[i].lazyload ? " with -x lazyload" : "");
		if (base == NULL) {
			check(false, name, "no target %s", cases[i].target);
			mdl_free(m);
			continue;
		}
		target_t t = *base;

		t.dof_addr = target_dof_addr(base, cases[i].lazyload);
		if (dof_generate(m, &t, &img, &e) != 0 || dof_decode(img.data, img.size, &d, &e) != 0) {
			check(false, name, "%s", e.msg);
			mdl_free(m);
			continue;
		}
		expect(&g, d.nproviders == 1 && d.nrelhdrs == 1, "%zu providers, %zu relocation headers",
		    d.nproviders, d.nrelhdrs);
		if (d.nproviders == 1 && d.nrelhdrs == 1)
			expect_relocs(&g, &d.relhdrs[0], &d.providers[0], &cases[i].form);
		group_end(&g);
		dof_decoded_free(&d);
		dof_image_free(&img);
		mdl_free(m);
	}
}

static void
test_two_providers(void)
{
	mdl_model_t *m = model_http();
	mdl_model_t *s = model_static();
	dof_image_t img;
	dof_decoded_t d;
	err_t e;
	group_t g = { .name = "two providers: one string table, strings shared, own sections" };

	/* Move sp into the http model. */
	m->providers = realloc(m->providers, 2 * sizeof(*m->providers));
	m->providers[m->nproviders++] = s->providers[0];
	s->nproviders = 0;
	mdl_free(s);
	if (generate(m, &img, &e) != 0 || dof_decode(img.data, img.size, &d, &e) != 0) {
		check(false, g.name, "%s", e.msg);
		mdl_free(m);
		return;
	}
	expect(&g, d.nproviders == 2 && strcmp(d.providers[0].name, "http") == 0 &&
	    strcmp(d.providers[1].name, "sp") == 0, "providers");
	expect(&g, d.nrelhdrs == 2, "%zu relocation headers", d.nrelhdrs);
	expect(&g, d.version == 3, "version %u", d.version);
	if (d.nproviders == 2) {
		const dof_provider_t *a = &d.providers[0].raw, *b = &d.providers[1].raw;

		expect(&g, a->dofpv_strtab == 0 && b->dofpv_strtab == 0, "strtab indices");
		expect(&g, a->dofpv_prenoffs == 4 && b->dofpv_prenoffs == 0,
		    "prenoffs %u %u", a->dofpv_prenoffs, b->dofpv_prenoffs);
		expect(&g, b->dofpv_probes == 8, "sp probes section %u", b->dofpv_probes);
	}
	/* "int" of sp's tick and of nothing else; "serve" once though used twice. */
	{
		const char *st = (const char *)d.secs[0].data;
		size_t n = d.secs[0].hdr.dofs_size, count = 0;

		for (size_t i = 0; i < n; i += strlen(st + i) + 1)
			count += strcmp(st + i, "serve") == 0;
		expect(&g, count == 1, "'serve' appears %zu times", count);
	}
	group_end(&g);
	dof_decoded_free(&d);
	dof_image_free(&img);
	mdl_free(m);
}

static void
test_writer_limits(void)
{
	mdl_model_t *m = mdl_new();
	mdl_provider_t *p = mdl_add_provider(m, "lim", noloc);
	mdl_probe_t *pr = mdl_provider_add_probe(p, "x", noloc);
	char longtype[200], longfunc[300];
	dof_image_t img;
	dof_decoded_t d;
	err_t e;
	int rc;

	memset(longtype, 'a', sizeof(longtype) - 1);
	longtype[sizeof(longtype) - 1] = '\0';
	mdl_probe_add_native_arg(pr, longtype, NULL, noloc);
	mdl_probe_finish_args(pr);
	mdl_probe_add_site(pr, "fn", NULL, 0, 0, false);
	rc = generate(m, &img, &e);
	check(rc != 0 && strstr(e.msg, "longer than DTrace's limit of 127 bytes") != NULL,
	    "writer: an argument type over 127 bytes is an error",
	    "rc %d, '%s'", rc, rc ? e.msg : "");
	mdl_free(m);

	m = mdl_new();
	p = mdl_add_provider(m, "lim", noloc);
	pr = mdl_provider_add_probe(p, "x", noloc);
	mdl_probe_finish_args(pr);
	memset(longfunc, 'f', sizeof(longfunc) - 1);
	longfunc[sizeof(longfunc) - 1] = '\0';
	mdl_probe_add_site(pr, longfunc, NULL, 0, 4, false);
	mdl_probe_add_site(pr, longfunc, NULL, 0, 4, false);	/* duplicate: dropped */
	rc = generate(m, &img, &e);
	if (rc == 0 && dof_decode(img.data, img.size, &d, &e) == 0) {
		check(strlen(d.providers[0].probes[0].func) == 127 &&
		    d.providers[0].probes[0].raw.dofpr_noffs == 1 &&
		    strlen(d.providers[0].probes[0].reloc) == 299,
		    "writer: long function name truncated to 127 bytes, relocation keeps it; "
		    "duplicate offsets dropped", "func %zu bytes, noffs %u",
		    strlen(d.providers[0].probes[0].func), d.providers[0].probes[0].raw.dofpr_noffs);
		dof_decoded_free(&d);
		dof_image_free(&img);
	} else {
		check(false, "writer: long function name truncated", "%s", e.msg);
	}
	mdl_free(m);
}

/* ---- one corrupted field at a time ----------------------------------- */

typedef struct mutation {
	const char *what;
	void (*apply)(uint8_t *img, size_t *len);
	const char *want;	/* the whole message, or a part of it after '*' */
} mutation_t;

/* The http image's layout (exp_http, shifted by 32). */
#define H_PROBES	0x160
#define H_PRARGS	0x1c0
#define H_PROFFS	0x1c4
#define H_PROVIDER	0x1d4
#define H_RELTAB	0x200
#define H_STRTAB	0x23c
#define SECHDR(i)	(64 + 32 * (i))

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void m_magic(uint8_t *b, size_t *n) { (void)n; b[1] = 'X'; }
static void m_model(uint8_t *b, size_t *n) { (void)n; b[4] = 1; }
static void m_version(uint8_t *b, size_t *n) { (void)n; b[6] = 4; }
static void m_flags(uint8_t *b, size_t *n) { (void)n; put32(b + 16, 1); }
static void m_truncate(uint8_t *b, size_t *n) { *n = get64(b + 48) - 1; }
static void m_proffs_off(uint8_t *b, size_t *n) { (void)n; put64(b + SECHDR(3) + 16, (get64(b + 40) & ~3ull) - 4); }
static void m_probes_entsize(uint8_t *b, size_t *n) { (void)n; put32(b + SECHDR(1) + 12, 40); }
static void m_align(uint8_t *b, size_t *n) { (void)n; put32(b + SECHDR(2) + 4, 3); }
static void m_unloaded(uint8_t *b, size_t *n) { (void)n; put32(b + SECHDR(5) + 8, 0); }
static void m_strtab_nul(uint8_t *b, size_t *n) { (void)n; b[get64(b + 40) - 1] = 'x'; }
static void m_func(uint8_t *b, size_t *n) { (void)n; put32(b + H_PROBES + 8, 0xffff); }
static void m_noffs(uint8_t *b, size_t *n) { (void)n; b[H_PROBES + 34] = 200; }
static void m_map(uint8_t *b, size_t *n) { (void)n; b[H_PRARGS] = 5; }
static void m_map_edge(uint8_t *b, size_t *n) { (void)n; b[H_PRARGS + 1] = 1; }
static void m_argidx(uint8_t *b, size_t *n) { (void)n; put32(b + H_PROBES + 24, 3); }
static void m_dup(uint8_t *b, size_t *n) { (void)n; memcpy(b + H_PROFFS + 8, b + H_PROFFS + 4, 4); }
static void m_prov_probes(uint8_t *b, size_t *n) { (void)n; put32(b + H_PROVIDER + 4, 2); }
static void m_prov_range(uint8_t *b, size_t *n) { (void)n; put32(b + H_PROVIDER + 4, 77); }
static void m_reloc_type(uint8_t *b, size_t *n) { (void)n; put32(b + H_RELTAB + 4, 7); }
static void m_reloc_off(uint8_t *b, size_t *n) { (void)n; put64(b + H_RELTAB + 24 + 8, 8); }
static void m_reloc_twice(uint8_t *b, size_t *n) { (void)n; put64(b + H_RELTAB + 24 + 8, 0); }
static void m_nargv(uint8_t *b, size_t *n) { (void)n; put32(b + H_PROBES + 16, (uint32_t)(get64(b + 40) - H_STRTAB)); }
static void m_noprobes(uint8_t *b, size_t *n) { (void)n; put64(b + SECHDR(1) + 24, 0); }
static void m_enoffs(uint8_t *b, size_t *n) { (void)n; put32(b + H_PROBES + 36, 3); }

static const mutation_t mutations[] = {
	{ "bad magic", m_magic, "DOF header: bad magic 7f 58 4f 46 (expected 7f 44 4f 46)" },
	{ "ILP32 model", m_model, "DOF header: data model 1 is not LP64 (2)" },
	{ "version 4", m_version, "DOF header: version 4 is not 1, 2 or 3" },
	{ "flag bit", m_flags, "DOF header: flags 0x1 set; no flag is defined" },
	{ "buffer shorter than filesz", m_truncate, "DOF header: file size 0x29c exceeds the 0x29b bytes available" },
	{ "PROFFS past loadsz", m_proffs_off,
	  "DOF section 3 (PROFFS): offset 0x288 + size 0xc exceeds the load size 0x28f" },
	{ "PROBES entsize", m_probes_entsize, "DOF section 1 (PROBES): entry size 40 is not 48" },
	{ "alignment 3", m_align, "DOF section 2 (PRARGS): alignment 3 is not a power of two" },
	{ "PROVIDER not loaded", m_unloaded,
	  "DOF section 5 (PROVIDER): not marked loadable, but DTrace loads this type" },
	{ "string table without NUL", m_strtab_nul, "DOF section 0 (STRTAB): string table does not end in NUL" },
	{ "function name outside strtab", m_func,
	  "DOF provider 'http' (section 5): probe record 0: function name at string offset "
	  "0xffff is outside section 0 (STRTAB, size 0x53)" },
	{ "offset count", m_noffs,
	  "*probe record 0 (serve:request-start): offset index 0 + count 200 exceeds the 3 "
	  "entries of section 3 (PROFFS)" },
	{ "argument map entry", m_map,
	  "*probe record 0 (serve:request-start): translated argument 0 maps to native argument 5, but there are 1" },
	{ "argument map entry equal to nargc", m_map_edge,
	  "*probe record 0 (serve:request-start): translated argument 1 maps to native argument 1, but there are 1" },
	{ "argument map past PRARGS", m_argidx,
	  "*probe record 0 (serve:request-start): argument map index 3 + 2 entries exceeds section 2 (PRARGS) of size 0x4" },
	{ "duplicate offset", m_dup, "*offset 0x25 appears twice" },
	{ "provider's probes section of the wrong type", m_prov_probes,
	  "DOF provider in section 5: dofpv_probes names section 2 (PRARGS), not a PROBES section" },
	{ "provider's probes section out of range", m_prov_range,
	  "DOF provider in section 5: dofpv_probes 77 is not a section index (the DOF has 9)" },
	{ "relocation type", m_reloc_type,
	  "DOF relocation header in section 7: relocation 0: type 7 is neither NONE (0), SETX (1) nor DOFREL (2)" },
	{ "relocation inside a record", m_reloc_off,
	  "*relocation 1: offset 0x8 in section 1 (PROBES) is not the address of a probe record" },
	{ "record relocated twice", m_reloc_twice, "*relocation 1: relocates probe record 0 a second time" },
	{ "native types past the string table", m_nargv,
	  "*native type 0 at string offset 0x53 is outside section 0 (STRTAB, size 0x53)" },
	{ "empty PROBES", m_noprobes, "*no probe records (section 1 (PROBES) is empty)" },
	{ "is-enabled offset index", m_enoffs,
	  "*is-enabled offset index 3 + count 1 exceeds the 1 entries of section 4 (PRENOFFS)" },
};

static bool
message_matches(const char *msg, const char *want)
{
	if (want[0] == '*')
		return strstr(msg, want + 1) != NULL;
	return strcmp(msg, want) == 0;
}

static void
test_mutations(void)
{
	mdl_model_t *m = model_http();
	dof_image_t img;
	dof_decoded_t d;
	err_t e;

	if (generate(m, &img, &e) != 0) {
		check(false, "corruptions", "%s", e.msg);
		mdl_free(m);
		return;
	}
	/* The layout the mutations assume. */
	check(get64(img.data + SECHDR(1) + 16) == H_PROBES &&
	    get64(img.data + SECHDR(0) + 16) == H_STRTAB &&
	    get64(img.data + SECHDR(6) + 16) == H_RELTAB, "corruptions: layout as assumed",
	    "PROBES at 0x%" PRIx64, get64(img.data + SECHDR(1) + 16));
	for (size_t i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		const mutation_t *mu = &mutations[i];
		uint8_t *b = xmalloc(img.size);
		size_t len = img.size;
		char name[120];
		int rc;

		memcpy(b, img.data, img.size);
		mu->apply(b, &len);
		rc = dof_decode(b, len, &d, &e);
		snprintf(name, sizeof(name), "decoder rejects: %s", mu->what);
		check(rc != 0 && message_matches(e.msg, mu->want), name,
		    "rc %d, message '%s', want '%s'", rc, rc ? e.msg : "", mu->want);
		if (rc == 0)
			dof_decoded_free(&d);
		free(b);
	}
	dof_image_free(&img);
	mdl_free(m);
}

/* A short buffer holding only dofh_loadsz bytes: decodes only in LOADSZ mode. */
static void
test_loadsz_mode(void)
{
	mdl_model_t *m = model_simple();
	dof_image_t img;
	dof_decoded_t d;
	err_t e;
	int strict, lenient = -1;

	if (generate(m, &img, &e) != 0) {
		check(false, "LOADSZ mode", "%s", e.msg);
		mdl_free(m);
		return;
	}
	{
		size_t loadsz = get64(img.data + 40);
		uint8_t *b = xmalloc(loadsz);

		memcpy(b, img.data, loadsz);
		strict = dof_decode(b, loadsz, &d, &e);
		if (strict == 0)
			dof_decoded_free(&d);
		lenient = dof_decode_ex(b, loadsz, DOF_DECODE_LOADSZ, &d, &e);
		check(strict != 0 && lenient == 0 && d.nproviders == 1 &&
		    d.secs[d.nsecs - 1].data == NULL,
		    "decoder: a loadsz-only image needs DOF_DECODE_LOADSZ; the comment is absent",
		    "strict %d lenient %d", strict, lenient);
		if (lenient == 0)
			dof_decoded_free(&d);
		free(b);
	}
	dof_image_free(&img);
	mdl_free(m);
}

/* ---- stapsdt notes --------------------------------------------------- */

static void
note_put(strbuf_t *sb, const char *prov, const char *name, const char *args,
    uint64_t pc, uint64_t sem)
{
	size_t descsz = 24 + strlen(prov) + strlen(name) + strlen(args) + 3;

	sb_u32(sb, 8);
	sb_u32(sb, (uint32_t)descsz);
	sb_u32(sb, 3);
	sb_append(sb, "stapsdt", 8);
	sb_u64(sb, pc);
	sb_u64(sb, 0x2000);
	sb_u64(sb, sem);
	sb_append(sb, prov, strlen(prov) + 1);
	sb_append(sb, name, strlen(name) + 1);
	sb_append(sb, args, strlen(args) + 1);
	sb_align(sb, 4);
}

static void
notes_sample(strbuf_t *sb)
{
	sb_init(sb);
	note_put(sb, "http", "request__start", "8@%rdi", 0x1139, 0x4010);
	/* A foreign note in the same section is skipped. */
	sb_u32(sb, 4);
	sb_u32(sb, 4);
	sb_u32(sb, 1);
	sb_append(sb, "GNU", 4);
	sb_u32(sb, 0xdeadbeef);
	note_put(sb, "p", "noargs", "", 0x1150, 0);
}

static void
test_notes(void)
{
	strbuf_t sb;
	stapsdt_notes_t ns;
	err_t e;
	group_t g = { .name = "stapsdt decoder: fields, foreign notes skipped" };
	int rc;

	notes_sample(&sb);
	if (dof_stapsdt_decode(sb.data, sb.len, 8, &ns, &e) != 0) {
		check(false, g.name, "%s", e.msg);
		sb_free(&sb);
		return;
	}
	expect(&g, ns.n == 2, "%zu notes", ns.n);
	if (ns.n == 2) {
		expect(&g, strcmp(ns.notes[0].provider, "http") == 0 &&
		    strcmp(ns.notes[0].name, "request__start") == 0 &&
		    strcmp(ns.notes[0].args, "8@%rdi") == 0, "note 0 strings");
		expect(&g, ns.notes[0].pc == 0x1139 && ns.notes[0].base == 0x2000 &&
		    ns.notes[0].semaphore == 0x4010 && ns.notes[0].desc_offset == 20,
		    "note 0 addresses");
		expect(&g, strcmp(ns.notes[1].name, "noargs") == 0 &&
		    ns.notes[1].args[0] == '\0' && ns.notes[1].semaphore == 0, "note 1");
	}
	group_end(&g);
	dof_stapsdt_notes_free(&ns);

	/* Cut inside the second stapsdt note's strings. */
	rc = dof_stapsdt_decode(sb.data, sb.len - 6, 8, &ns, &e);
	check(rc != 0 && strstr(e.msg, "runs past the section end") != NULL,
	    "stapsdt decoder: a truncated note is an error", "rc %d '%s'", rc, rc ? e.msg : "");
	/* A descriptor whose strings lack their NUL. */
	{
		strbuf_t bad;

		sb_init(&bad);
		sb_u32(&bad, 8);
		sb_u32(&bad, 28);
		sb_u32(&bad, 3);
		sb_append(&bad, "stapsdt", 8);
		sb_zero(&bad, 24);
		sb_append(&bad, "abcd", 4);
		rc = dof_stapsdt_decode(bad.data, bad.len, 8, &ns, &e);
		check(rc != 0 && strcmp(e.msg, "stapsdt note at 0x0: provider name is not "
		    "NUL-terminated inside the descriptor") == 0,
		    "stapsdt decoder: unterminated provider name", "rc %d '%s'", rc, rc ? e.msg : "");
		sb_free(&bad);
	}
	sb_free(&sb);
}

/* ---- fuzzing --------------------------------------------------------- */

static uint64_t rng_state;

static uint32_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static void
mutate(uint8_t *b, size_t *len, size_t cap)
{
	static const uint32_t words[] = { 0, 1, 2, 3, 4, 7, 8, 24, 32, 48, 64, 0x7f,
	    0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff8 };
	int n = 1 + (int)(rnd() % 4);

	for (int i = 0; i < n && *len > 0; i++) {
		switch (rnd() % 6) {
		case 0:
		case 1:
			b[rnd() % *len] ^= (uint8_t)(1u << (rnd() % 8));
			break;
		case 2:
			b[rnd() % *len] = (uint8_t)rnd();
			break;
		case 3:
			if (*len >= 4) {
				size_t at = (rnd() % (*len / 4)) * 4;

				put32(b + at, words[rnd() % (sizeof(words) / sizeof(words[0]))]);
			}
			break;
		case 4:
			if (*len >= 8) {	/* 64-bit fields: offsets, sizes */
				size_t at = (rnd() % (*len / 8)) * 8;
				uint64_t v = rnd() % 2 ? words[rnd() % 18] : ((uint64_t)rnd() << 32) | rnd();

				put64(b + at, v);
			}
			break;
		case 5:
			*len = rnd() % (*len + 1);
			break;
		}
	}
	(void)cap;
}

static int
fuzz(long iterations, uint64_t seed)
{
	mdl_model_t *(*builders[])(void) = { model_simple, model_http, model_static };
	dof_image_t imgs[3];
	strbuf_t notes;
	FILE *devnull = fopen("/dev/null", "w");
	long decoded = 0, rejected = 0, nonempty_msgs = 0;
	list_opts_t dump = { LIST_DUMP, 0x400000 };
	err_t e;

	rng_state = seed ? seed : 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 3; i++) {
		mdl_model_t *m = builders[i]();

		if (generate(m, &imgs[i], &e) != 0) {
			check(false, "fuzz: seed images", "%s", e.msg);
			return 1;
		}
		mdl_free(m);
	}
	notes_sample(&notes);
	for (long it = 0; it < iterations; it++) {
		const dof_image_t *src = &imgs[it % 3];
		size_t len = src->size;
		uint8_t *b = xmalloc(src->size);
		dof_decoded_t d;
		stapsdt_notes_t ns;

		memcpy(b, src->data, len);
		mutate(b, &len, src->size);
		/* Exact-size copy so ASan sees every read past the end. */
		{
			uint8_t *exact = xmalloc(len);

			memcpy(exact, b, len);
			free(b);
			b = exact;
		}
		e.msg[0] = '\0';
		if (dof_decode(b, len, &d, &e) == 0) {
			decoded++;
			dof_decoded_free(&d);
		} else {
			rejected++;
			nonempty_msgs += e.msg[0] != '\0';
		}
		/* The --dump printer over the same bytes (raw DOF path). */
		if (list_buffer(devnull, b, len, "fuzz", &dump, &e) != 0 && e.msg[0] == '\0')
			nonempty_msgs--;
		free(b);

		len = notes.len;
		b = xmalloc(len);
		memcpy(b, notes.data, len);
		mutate(b, &len, notes.len);
		if (dof_stapsdt_decode(b, len, 8, &ns, &e) == 0)
			dof_stapsdt_notes_free(&ns);
		free(b);
	}
	fclose(devnull);
	check(decoded + rejected == iterations && nonempty_msgs == rejected && rejected > 0 &&
	    decoded > 0, "fuzz: every mutation decodes or fails with a message",
	    "%ld decoded, %ld rejected, %ld messages", decoded, rejected, nonempty_msgs);
	printf("# fuzz: %ld iterations, %ld decoded, %ld rejected\n", iterations, decoded, rejected);
	for (int i = 0; i < 3; i++)
		dof_image_free(&imgs[i]);
	sb_free(&notes);
	return test_summary();
}

/* ---- files ----------------------------------------------------------- */

static char *
capture(const char *path, const list_opts_t *o, int *rc, err_t *e)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	*rc = list_file_ex(f, path, o, e);
	fclose(f);
	return text;
}

static void
test_sdt(const char *path)
{
	list_opts_t o = { LIST_SUMMARY, 0 };
	err_t e;
	int rc;
	char *text = capture(path, &o, &rc, &e);

	check(rc == 0, "sys/sdt.h program: list_file succeeds", "%s", rc ? e.msg : "");
	check(strstr(text, "no DOF\n") != NULL, "sys/sdt.h program: no DOF", "%s", text);
	check(strstr(text, "stapsdt notes: 2\n") != NULL, "sys/sdt.h program: two notes", "%s", text);
	check(strstr(text, "  test:three pc=0x") != NULL &&
	    strstr(text, " semaphore=none args='-4@$42 -8@$-7 8@") != NULL,
	    "sys/sdt.h program: test:three with its three arguments", "%s", text);
	check(strstr(text, "  test:zero pc=0x") != NULL && strstr(text, "args=''\n") != NULL,
	    "sys/sdt.h program: test:zero without arguments", "%s", text);
	free(text);
}

/*
 * The provider NAME of the asm and raw images: fire at NAME_f+4, +0x10 and
 * NAME_g+8 (through the alias NAME_galias), is-enabled check at NAME_g+0x14
 * unless firing_only (the readers' copy holds no is-enabled site).
 */
static mdl_model_t *
build_asm_model(const char *name, bool firing_only)
{
	mdl_model_t *m = mdl_new();
	mdl_provider_t *p = mdl_add_provider(m, name, noloc);
	static const char *const t[] = { "int", "char *" };
	mdl_probe_t *a = probe(p, "fire", 2, t, NULL);
	mdl_probe_t *b = firing_only ? NULL : probe(p, "check", 0, NULL, NULL);
	char f[64], g[64], galias[80];

	snprintf(f, sizeof(f), "%s_f", name);
	snprintf(g, sizeof(g), "%s_g", name);
	snprintf(galias, sizeof(galias), "%s_galias", name);
	mdl_probe_finish_args(a);
	mdl_probe_add_site(a, f, NULL, 0, 4, false);
	mdl_probe_add_site(a, f, NULL, 0, 0x10, false);
	mdl_probe_add_site(a, g, galias, 0, 8, false);
	if (b != NULL) {
		mdl_probe_finish_args(b);
		mdl_probe_add_site(b, g, galias, 0, 0x14, true);
	}
	return m;
}

/*
 * One DOF of provider NAME as the assembly of section SECTION (its flags
 * and type as .section wants them), each relocated u64 a .quad of its
 * symbol, minus its own address when how is DOF_ADDR_SELF (DOFREL, as
 * units.c's PC-relative ELF relocation makes it).  Returns 0, or 1.
 */
static int
emit_dof_section(FILE *f, const char *name, bool firing_only, enum dof_addr_reloc how,
    const char *section)
{
	mdl_model_t *m = build_asm_model(name, firing_only);
	target_t t = *target_find("x86_64-linux");
	dof_image_t img;
	err_t e;
	size_t r = 0;

	/* the readers' copy's addresses are final: no RELTAB (units.c) */
	dof_gen_opts_t opts = { .firing_only = firing_only, .final_addrs = firing_only };

	t.dof_addr = how;
	if (dof_generate_opts(m, NULL, &t, &opts, &img, NULL, &e) != 0) {
		fprintf(stderr, "%s\n", e.msg);
		mdl_free(m);
		return 1;
	}
	fprintf(f, "\t.section %s\n\t.balign 8\n", section);
	for (size_t i = 0; i < img.size;) {
		if (r < img.nrelocs && img.relocs[r].offset == i) {
			fprintf(f, "\t.quad %s%s\n", img.relocs[r++].symbol,
			    how == DOF_ADDR_SELF ? " - ." : "");
			i += 8;
			continue;
		}
		fprintf(f, "\t.byte 0x%02x\n", img.data[i++]);
	}
	dof_image_free(&img);
	mdl_free(m);
	return 0;
}

/*
 * The -G object of provider NAME as assembly, as units.c lays it out for
 * x86_64-linux: with drti_lite, the loaded DOF (SHT_PROGBITS, DOFREL) and
 * the readers' copy (SHT_SUNW_dof, not loaded, absolute addresses and no
 * RELTAB, firing sites only);
 * lazyload, the one loaded SHT_SUNW_dof with SETX addresses.  Then the
 * functions NAME_f and NAME_g.
 */
static int
write_asm(const char *name, const char *out, bool lazyload)
{
	const target_t *t = target_find("x86_64-linux");
	char readers[160];
	FILE *f;
	int rc;

	if ((f = fopen(out, "w")) == NULL) {
		perror(out);
		return 1;
	}
	snprintf(readers, sizeof(readers), "%s%s,\"\",@0x%x", DOF_ELF_READERS_SECTION, name,
	    SHT_SUNW_dof);
	if (target_dof_readers_copy(t, lazyload))
		rc = emit_dof_section(f, name, true, DOF_ADDR_ABS, readers) ||
		    emit_dof_section(f, name, false, target_dof_addr(t, lazyload),
		    DOF_ELF_SECTION ",\"aw\",@progbits");
	else
		rc = emit_dof_section(f, name, false, target_dof_addr(t, lazyload),
		    DOF_ELF_SECTION ",\"aw\",@0x6ffffff4");
	fprintf(f, "\t.text\n");
	fprintf(f, "\t.globl %s_f\n\t.type %s_f,@function\n\t.balign 16\n%s_f:\n"
	    "\t.fill 32,1,0x90\n\tret\n\t.size %s_f,.-%s_f\n", name, name, name, name, name);
	fprintf(f, "\t.globl %s_g\n\t.type %s_g,@function\n\t.balign 16\n%s_g:\n"
	    "\t.fill 32,1,0x90\n\tret\n\t.size %s_g,.-%s_g\n", name, name, name, name, name);
	fprintf(f, "\t.globl %s_galias\n\t.hidden %s_galias\n\t.set %s_galias,%s_g\n",
	    name, name, name, name);
	fprintf(f, "\t.section .note.GNU-stack,\"\",@progbits\n");
	if (fclose(f) != 0)
		rc = 1;
	return rc;
}

static int
write_raw(const char *out, bool loadsz_only)
{
	mdl_model_t *m = build_asm_model("raw", false);
	dof_image_t img;
	err_t e;
	FILE *f;
	size_t n;

	if (generate(m, &img, &e) != 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	n = loadsz_only ? (size_t)get64(img.data + 40) : img.size;
	if ((f = fopen(out, "wb")) == NULL || fwrite(img.data, 1, n, f) != n) {
		perror(out);
		return 1;
	}
	fclose(f);
	dof_image_free(&img);
	mdl_free(m);
	return 0;
}

static int
print_file(const char *path, enum list_mode mode, const char *base)
{
	list_opts_t o = { mode, base ? strtoull(base, NULL, 0) : 0 };
	err_t e;

	if (list_file_ex(stdout, path, &o, &e) != 0) {
		fflush(stdout);
		fprintf(stderr, "dof_test: %s\n", e.msg);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "unit") == 0) {
		test_reference(model_simple, &exp_simple);
		test_reference(model_http, &exp_http);
		test_reference(model_static, &exp_static);
		test_runtime_addresses();
		test_reloc_forms();
		test_two_providers();
		test_writer_limits();
		test_mutations();
		test_loadsz_mode();
		test_notes();
		return test_summary();
	}
	if (argc >= 3 && strcmp(argv[1], "fuzz") == 0)
		return fuzz(strtol(argv[2], NULL, 0), argc > 3 ? strtoull(argv[3], NULL, 0) : 0);
	if (argc == 3 && strcmp(argv[1], "sdt") == 0) {
		test_sdt(argv[2]);
		return test_summary();
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "asm") == 0)
		return write_asm(argv[2], argv[3], argc == 5 && strcmp(argv[4], "lazyload") == 0);
	if (argc >= 3 && strcmp(argv[1], "raw") == 0)
		return write_raw(argv[2], argc > 3 && strcmp(argv[3], "loadsz") == 0);
	if (argc >= 3 && (strcmp(argv[1], "list") == 0 || strcmp(argv[1], "dump") == 0))
		return print_file(argv[2], strcmp(argv[1], "list") == 0 ? LIST_SUMMARY : LIST_DUMP,
		    argc > 3 ? argv[3] : NULL);
	fprintf(stderr, "usage: dof_test unit | fuzz N [SEED] | sdt FILE | asm NAME OUT.s |"
	    " [lazyload] | raw OUT [loadsz] | list|dump FILE [BASE]\n");
	return 2;
}
