/*
 * objgen.c - the -G stage: the object that carries a program's probes.
 *
 * What goes in, for each probe P:N of the model (target.h describes the
 * probe unit, doc/design.md sections 1-3 the reasons):
 *
 *   its unit at its slot of .text.__dtrace_units, the one section of
 *	every probe's unit (units_pool): __dtrace_P___N at the slot and
 *	__dtraceenabled_P___N at its is-enabled offset, both weak hidden
 *	functions, as in the group the -h header emits for a file that calls
 *	the stub, so every call binds to one of them
 *   its semaphore P_N_semaphore, 2 bytes at its slot of the one .probes of
 *	every semaphore, weak hidden as each file of the header defines it
 *   (units_pool says why no group is needed) and, for a probe the header
 *   fires by calling the stub, the stub's stapsdt note in a COMDAT group of
 *   its own, as the header's: pc = the probe tracepoint, base =
 *   _.stapsdt.base, semaphore, "P", "N", the argument description (Linux
 *   targets);
 *   COMDAT group .stapsdt.base (as <sys/sdt.h> makes it): one byte and the
 *   hidden symbol _.stapsdt.base every note points at (global: units.c).
 *   COMDAT group __usdt_probes_page: an empty .probes section aligned to a
 *   page, so semaphores never share a file page with another segment
 *   (stapsdt.h says why).
 *
 * and once: .SUNW_dof, the DOF for the whole model (dofgen.c; on Linux one
 * DOF per provider, see dof_per_provider), whose probe
 * addresses are relocations against the probe functions, with the symbol
 * __SUNW_dof at its start, and there too the anchors the rewritten objects
 * refer to, so that a linker pulling one of them out of an archive pulls
 * this object too (rewrite_plan.c); on Linux, gdb's copy of that DOF, not
 * loaded (units.c, doc/design.md section 6); the table of the object's semaphores, whose
 * symbol is made local as __SUNW_dof is (units_add_semaphore_table; drti_lite
 * biases them once DTrace accepts the DOF, stapsdt.h says why); and drti_lite
 * (runtime/drti_lite.c, embedded in
 * usdtc by usdtc/drti_blob.S and handed in by the program in objgen_opts_t),
 * whose constructor registers that DOF.
 *
 * The groups and .SUNW_dof are built by units.c, which the run-time
 * library shares.
 *
 * Steps: check the program's objects, rewrite the probe calls of the
 * objects in place (rewrite_plan.c: each call becomes the tracepoint and one
 * more site, under its calling function, with a stapsdt note of its own;
 * objects not given to -G keep calling the units), give each probe its
 * sites in its unit (the is-enabled one only where a check can reach it:
 * add_unit_sites), generate the DOF, build the object with elfwrite,
 * merge drti_lite's object into the builder (elfmerge.c: its reference to
 * __SUNW_dof binds to the DOF), make __SUNW_dof local, and write the
 * object.  The rewritten objects are written to temporaries (the caller's
 * objgen_opts_t.temps) that the caller puts in place with the output, only
 * when everything has succeeded.  __SUNW_dof is local so that several -G outputs can share a
 * program, each drti_lite copy still reaching its own DOF.  The unit, note
 * and semaphore symbols stay weak hidden, which binding every reference to
 * one copy (the header's groups or this object's pool) needs.
 *
 * No linker runs unless one is named (-x ldpath=, $USDTC_LD): then the
 * object is written to an anonymous file and `LD -r` combines it with
 * drti_lite, as dtrace does.  The linker is spawned with an argv array and
 * reads both inputs from anonymous files (memfd) through /proc/self/fd, so
 * nothing but the output touches the disk; GNU ld ignores version scripts
 * under -r, so __SUNW_dof is made local afterwards (elfw_localize_symbol).
 * tests/merge checks that both ways give the same symbols and relocations.
 *
 * Under -v this stage explains on stderr what it skipped (LTO objects) and
 * what a linker said; errors go back to the caller in err_t.
 *
 * On x86_64 Linux the object carries a .note.gnu.property saying it
 * satisfies IBT and SHSTK (add_property_note says why), ANDed with what
 * drti_lite's note says, so a program built with -fcf-protection keeps both.
 *
 * With -x lazyload there is no drti_lite (the program registers the DOF
 * some other way) and the symbol is ___SUNW_dof, as in dtrace.  A model
 * without providers yields an object with no DOF and no drti_lite.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dof.h"
#include "dofgen.h"
#include "elfenc.h"
#include "elfwrite.h"
#include "fileio.h"
#include "header.h"
#include "idset.h"
#include "magic.h"
#include "objgen.h"
#include "objin.h"
#include "rewrite.h"
#include "sites.h"
#include "stapsdt.h"
#include "subproc.h"
#include "strbuf.h"
#include "units.h"



/* A -v note on stderr: the -G stage explains what it skipped. */
static void __attribute__((format(printf, 2, 3)))
note(const objgen_opts_t *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->verbose)
		return;
	fputs("usdtc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- checking the program's objects ------------------------------------- */

/* The part of a probe function name after its prefix, or NULL if not one. */
static const char *
probe_func_body(const char *name)
{
	if (strncmp(name, MDL_ENABLED_PREFIX, sizeof(MDL_ENABLED_PREFIX) - 1) == 0)
		return name + sizeof(MDL_ENABLED_PREFIX) - 1;
	if (strncmp(name, MDL_PROBE_PREFIX, sizeof(MDL_PROBE_PREFIX) - 1) == 0)
		return name + sizeof(MDL_PROBE_PREFIX) - 1;
	return NULL;
}

static bool
model_has_probe(const mdl_model_t *m, const char *prov, const char *dof_name)
{
	const mdl_provider_t *p = mdl_find_provider(m, prov);

	return p != NULL && mdl_provider_find_dof_probe(p, dof_name) != (size_t)-1;
}

/*
 * A reference to __dtrace_P___N or __dtraceenabled_P___N must name a probe
 * of the model: provider = text before the first "___", probe = the rest
 * with each "__" turned into "-" (dtrace's rule).
 */
static int
check_probe_symbol(const mdl_model_t *m, const char *path, const char *name,
    err_t *e)
{
	const char *body = probe_func_body(name), *sep;
	char *prov, *probe;
	int rc = 0;

	if (body == NULL)
		return 0;
	if ((sep = strstr(body, MDL_PROBE_SEP)) == NULL || sep == body ||
	    sep[sizeof(MDL_PROBE_SEP) - 1] == '\0')
		return err_set(e, "%s: %s: not a probe function name "
		    "(expected __dtrace_PROVIDER___PROBE)", path, name);
	prov = strndup(body, (size_t)(sep - body));
	probe = mdl_dof_probe_name(sep + sizeof(MDL_PROBE_SEP) - 1);
	if (prov == NULL || probe == NULL)
		rc = err_errno(e, ENOMEM, "%s", path);
	else if (!model_has_probe(m, prov, probe))
		rc = err_set(e, "%s: %s: no probe '%s' in provider '%s'", path, name,
		    probe, prov);
	free(prov);
	free(probe);
	return rc;
}

/* The name of symbol index i of the symbol table section symscn. */
static const char *
symbol_name(Elf *elf, Elf_Scn *symscn, size_t i)
{
	GElf_Shdr sh;
	Elf_Data *data;
	GElf_Sym sym;

	if (gelf_getshdr(symscn, &sh) == NULL ||
	    (data = elf_getdata(symscn, NULL)) == NULL ||
	    gelf_getsym(data, (int)i, &sym) == NULL)
		return NULL;
	return elf_strptr(elf, sh.sh_link, sym.st_name);
}

/*
 * Mark the sections (by index) that belong to a probe's own COMDAT group,
 * which a -h header puts in every object: their references to the probe
 * functions (the stapsdt note's pc) are not calls, and an object may carry
 * the units of providers it never calls.  NULL on allocation failure.
 */
static bool *
probe_group_members(Elf *elf, size_t nsections)
{
	bool *member = calloc(nsections + 1, sizeof(bool));
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (member == NULL)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		const char *sig;
		const uint32_t *words;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_GROUP)
			continue;
		sig = symbol_name(elf, elf_getscn(elf, sh.sh_link), sh.sh_info);
		if (sig == NULL || probe_func_body(sig) == NULL ||
		    (data = elf_getdata(scn, NULL)) == NULL)
			continue;
		words = data->d_buf;
		for (size_t k = 1; k < data->d_size / 4; k++)
			if (words[k] < nsections)
				member[words[k]] = true;
	}
	return member;
}

/*
 * The symbols of one symbol table already checked as a relocation's
 * (check_probe_symbol reads the name alone): an object calling a probe
 * from 2,000 functions had the probe function's name looked up again for
 * each of its 16,000 relocations, with its symbol table's header and data
 * each time (issue 40, bench/gate's G-sites).  One table per object, the
 * first a relocation section links to; others are checked every time.
 */
typedef struct checked_syms {
	size_t symtab;		/* its section index; 0 before the first */
	size_t n;
	unsigned char *done;	/* [n]: checked */
} checked_syms_t;

/* The memo for symbol table symtab (of n symbols), or NULL. */
static unsigned char *
checked_for(checked_syms_t *c, size_t symtab, size_t n)
{
	if (symtab == 0)
		return NULL;	/* (0 marks the memo unused: no table there) */
	if (c->symtab == 0 && n > 0 && (c->done = calloc(n, 1)) != NULL) {
		c->symtab = symtab;
		c->n = n;
	}
	return c->symtab == symtab ? c->done : NULL;
}

/* Check the symbols that relocations of one REL/RELA section refer to. */
static int
check_reloc_section(const mdl_model_t *m, Elf *elf, Elf_Scn *scn,
    const GElf_Shdr *sh, const char *path, checked_syms_t *memo, err_t *e)
{
	Elf_Data *data = elf_getdata(scn, NULL), *symdata;
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, nsyms;
	unsigned char *done;
	GElf_Shdr symsh;

	if (data == NULL || symscn == NULL)
		return err_set(e, "%s: unreadable relocation section: %s", path,
		    elf_errmsg(-1));
	if (gelf_getshdr(symscn, &symsh) == NULL || (symdata = elf_getdata(symscn, NULL)) == NULL)
		return 0;	/* no name to check */
	/* The symbols its data holds, not its header's size: a header may
	 * claim a terabyte of them (the memo would be that large). */
	nsyms = symdata->d_buf != NULL ? symdata->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT) : 0;
	done = checked_for(memo, sh->sh_link, nsyms);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela rela;
		GElf_Rel rel;
		GElf_Sym sym;
		uint64_t info;
		size_t k;
		const char *name;

		if (sh->sh_type == SHT_RELA) {
			if (gelf_getrela(data, (int)i, &rela) == NULL)
				return err_libelf(e, path, "gelf_getrela");
			info = rela.r_info;
		} else {
			if (gelf_getrel(data, (int)i, &rel) == NULL)
				return err_libelf(e, path, "gelf_getrel");
			info = rel.r_info;
		}
		k = GELF_R_SYM(info);
		if (k == 0 || (done != NULL && k < nsyms && done[k]) ||
		    gelf_getsym(symdata, (int)k, &sym) == NULL)
			continue;
		name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (name != NULL && check_probe_symbol(m, path, name, e) != 0)
			return -1;
		if (done != NULL && k < nsyms)
			done[k] = 1;
	}
	return 0;
}

static int
check_undefined_symbols(const mdl_model_t *m, Elf *elf, Elf_Scn *scn,
    const GElf_Shdr *sh, const char *path, err_t *e)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (data == NULL)
		return err_set(e, "%s: unreadable symbol table: %s", path, elf_errmsg(-1));
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (gelf_getsym(data, (int)i, &sym) == NULL || sym.st_shndx != SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name != NULL && check_probe_symbol(m, path, name, e) != 0)
			return -1;
	}
	return 0;
}

/* Every probe function an ELF object refers to must be in the model. */
static int
check_probe_refs(const mdl_model_t *m, Elf *elf, const char *path, err_t *e)
{
	size_t nsections;
	bool *skip;
	checked_syms_t memo = { 0, 0, NULL };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int rc = 0;

	if (elf_getshdrnum(elf, &nsections) != 0)
		return err_libelf(e, path, "elf_getshdrnum");
	if ((skip = probe_group_members(elf, nsections)) == NULL)
		return err_errno(e, ENOMEM, "%s", path);
	while (rc == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		size_t idx = elf_ndxscn(scn);

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			rc = check_undefined_symbols(m, elf, scn, &sh, path, e);
		else if ((sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA) &&
		    !skip[idx] && !(sh.sh_info < nsections && skip[sh.sh_info]))
			rc = check_reloc_section(m, elf, scn, &sh, path, &memo, e);
	}
	free(memo.done);
	free(skip);
	return rc;
}

/* Whether an object holds GCC LTO bytecode only (no machine code yet). */
static bool
is_gcc_slim_lto(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		size_t n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB ||
		    (data = elf_getdata(scn, NULL)) == NULL || sh.sh_entsize == 0)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (gelf_getsym(data, (int)i, &sym) != NULL &&
			    (name = elf_strptr(elf, sh.sh_link, sym.st_name)) != NULL &&
			    strcmp(name, "__gnu_lto_slim") == 0)
				return true;
		}
	}
	return false;
}

/* The header checks of one ELF object, then its probe references. */
static int
check_elf_object(const mdl_model_t *m, const target_t *t,
    const objgen_opts_t *o, Elf *elf, const char *path, err_t *e)
{
	GElf_Ehdr eh;

	if (objin_check_target(elf, path, t, e) != 0)
		return -1;
	gelf_getehdr(elf, &eh);
	if (eh.e_type != ET_REL)
		return err_set(e, "%s: not a relocatable object (ELF type %u); "
		    "-G takes the program's .o files", path, eh.e_type);
	if (is_gcc_slim_lto(elf))
		note(o, "%s: GCC LTO object without machine code: its probe calls are "
		    "not checked and keep calling the probe units", path);
	return check_probe_refs(m, elf, path, e);
}

/* One input, as read (objin.h): its kind, then, for ELF, its contents. */
static int
check_input(const mdl_model_t *m, const target_t *t,
    const objgen_opts_t *o, const objin_t *in, err_t *e)
{
	const objin_t *image = objin_image(in);

	switch (image->kind) {
	case MAGIC_ARCHIVE:
		return err_set(e, "%s: is an archive; pass the objects it contains to -G "
		    "instead (extract them with 'ar x')", in->path);
	case MAGIC_BITCODE:
		note(o, "%s: LLVM bitcode (LTO) object: its probe calls are not checked "
		    "and keep calling the probe units", in->path);
		return 0;
	case MAGIC_ELF:
		return check_elf_object(m, t, o, image->elf, in->path, e);
	default:
		return err_set(e, "%s: not an ELF object", in->path);
	}
}

/* ---- reading, checking and planning: the plan ---------------------------- */

/*
 * Everything -G decides before it writes anything: the program's objects,
 * each read once (objin.c) and checked against the model; the rewrite's
 * plan (rewrite_plan.c) and the sites it found; and the sites of every probe
 * (sites.h), which the writers below take.  The model itself is only read.
 */
typedef struct gplan {
	objin_t *ins;		/* o->objects, read */
	size_t nins;
	rewrite_opts_t ro;
	rewrite_plan_t *rewrite;
	rewrite_sites_t rewritten;
	site_table_t sites;
	bool semaphores_debug;	/* whether they get DWARF (scan_objects) */
} gplan_t;

static void
gplan_free(gplan_t *g)
{
	rewrite_plan_free(g->rewrite);
	rewrite_sites_free(&g->rewritten);
	site_table_free(&g->sites);
	for (size_t i = 0; i < g->nins; i++)
		objin_free(&g->ins[i]);
	free(g->ins);
	memset(g, 0, sizeof(*g));
}

/* Read each object once and check it, in the order given. */
static int
read_inputs(const mdl_model_t *m, const target_t *t, const objgen_opts_t *o,
    gplan_t *g, err_t *e)
{
	if (o->nobjects == 0)
		return 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(e, "libelf is out of date: elf_version failed: %s",
		    elf_errmsg(-1));
	idset_t byfile;
	int rc = 0;

	if ((g->ins = calloc(o->nobjects, sizeof(*g->ins))) == NULL)
		return err_errno(e, ENOMEM, "reading the objects");
	idset_init(&byfile);
	for (size_t i = 0; i < o->nobjects && rc == 0; i++) {
		if ((rc = objin_read(&g->ins[i], o->objects[i], g->ins, i, &byfile, e)) != 0)
			break;
		g->nins++;
		rc = check_input(m, t, o, &g->ins[i], e);
	}
	idset_free(&byfile);
	return rc;
}

/*
 * Each probe can fire in its own unit: the probe slot where a probe call
 * can still reach it, and the is-enabled slot where an is-enabled check
 * can.  With the program's objects given, that is only where rewriting
 * kept a call on the unit, or, for the probe slot, where the probe has no
 * site in those objects (rewrite_keeps_probe, rewrite_keeps_enabled; a
 * rewritten call or check has its own site in its caller, and a slot no
 * call reaches would be listed by DTrace as a probe that never fires);
 * with none, any call may.  A probe called both from objects given to -G
 * and from one that was not is seen by DTrace at the former only.  (For
 * now on Linux only: FreeBSD's and illumos' DOF keep every probe slot,
 * as their tests, tests/targets and tests/kdof, expect.)  An is-enabled offset is not free: DTrace on Linux
 * enables one with a program that needs bpf_probe_write_user, which a
 * kernel in lockdown refuses, and it then refuses the whole probe (issue
 * 9, item 6) - so a probe whose program never asks _ENABLED() has none.
 * An object linked into the program but not given to -G still fires its
 * probes through the probe slot; its _ENABLED() sees the Linux tracers
 * (semaphores), not DTrace, as with dtrace -G, which needs every object.
 */
static int
add_unit_sites(const mdl_model_t *m, const target_t *t, bool all_enabled,
    gplan_t *g, err_t *e)
{
	for (size_t i = 0; i < m->nproviders; i++) {
		const mdl_provider_t *p = m->providers[i];

		for (size_t j = 0; j < p->nprobes; j++) {
			const mdl_probe_t *pr = p->probes[j];
			char *fn = mdl_probe_func(p->name, pr->dof_name);
			int rc = fn == NULL ? -1 : 0;

			if (rc == 0 && (all_enabled || t->os != TARGET_OS_LINUX ||
			    rewrite_keeps_probe(&g->rewritten, pr)))
				rc = site_table_add(&g->sites, pr, fn, fn, t->arch->probe_offset,
				    false);
			if (rc == 0 && (all_enabled || rewrite_keeps_enabled(&g->rewritten, pr)))
				rc = site_table_add(&g->sites, pr, fn, fn, t->arch->enabled_offset +
				    t->arch->enabled_skip, true);
			free(fn);
			if (rc != 0)
				return err_errno(e, ENOMEM, "probe sites");
		}
	}
	return 0;
}

/* -v explanations from rewrite_plan.c. */
static void
rewrite_note(void *ctx, const char *msg)
{
	note(ctx, "%s", msg);
}

/* Each rewritten call site is one more site of its probe. */
static int
add_rewritten_sites(gplan_t *g, err_t *e)
{
	for (size_t i = 0; i < g->rewritten.n; i++) {
		const rewrite_site_t *x = &g->rewritten.sites[i];

		if (site_table_add(&g->sites, x->probe, x->func, x->symbol, x->offset,
		    x->is_enabled) != 0)
			return err_errno(e, ENOMEM, "probe sites");
	}
	return 0;
}

/* Read, check, plan the rewrite, and give every probe its sites. */
static int
plan(const mdl_model_t *m, const target_t *t, const objgen_opts_t *o,
    gplan_t *g, err_t *e)
{
	g->ro = (rewrite_opts_t){ rewrite_note, (void *)o, o->temps };
	if (read_inputs(m, t, o, g, e) != 0 ||
	    rewrite_plan(m, t, g->ins, g->nins, &g->ro, &g->rewrite, &g->rewritten, e) != 0)
		return -1;
	if (site_table_init(&g->sites, m) != 0)
		return err_errno(e, ENOMEM, "probe sites");
	if (add_unit_sites(m, t, o->nobjects == 0, g, e) != 0 ||
	    add_rewritten_sites(g, e) != 0)
		return -1;
	return 0;
}

/* ---- building the object ------------------------------------------------- */

/* A stapsdt note for each rewritten probe site (not the is-enabled ones). */
static int
add_site_notes(units_t *b, const rewrite_sites_t *s, err_t *e)
{
	units_site_t *notes = calloc(s->n + 1, sizeof(*notes));
	size_t n = 0;
	int rc;

	if (notes == NULL)
		return err_errno(e, ENOMEM, "site notes");
	for (size_t i = 0; b->t->stapsdt && i < s->n; i++) {
		const rewrite_site_t *x = &s->sites[i];

		if (!x->is_enabled && !x->marked)	/* a marked site has its own */
			notes[n++] = (units_site_t){ x->provider, x->probe, x->symbol,
			    x->offset, !x->tail };
	}
	rc = units_add_site_notes(b, notes, n);
	free(notes);
	if (rc != 0)
		return elfw_failed(b->w, e) ? -1 : err_errno(e, ENOMEM, "site notes");
	return 0;
}

/*
 * One DOF per provider where drti_lite.c registers them (Linux): Oracle's
 * dtprobed 2.0.1 reads only the first provider of a DOF, so a .d with two
 * providers would register one.  FreeBSD's and illumos' kernels read every
 * provider of a DOF, and drti_kernel.c registers one; under -x lazyload the
 * program registers ___SUNW_dof itself, which is one DOF, as dtrace's.
 */
static bool
dof_per_provider(const mdl_model_t *m, const target_t *t, const objgen_opts_t *o)
{
	return !o->lazyload && t->os == TARGET_OS_LINUX && mdl_has_probes(m);
}

/*
 * The anchors the rewritten objects refer to (rewrite_plan.c says why), at the
 * start of the DOF: weak, since two -G outputs over one object both define
 * its anchor, and hidden, as the references are.
 */
static void
add_anchors(units_t *b, int dofsec, const rewrite_sites_t *s)
{
	for (size_t i = 0; i < s->nanchors; i++) {
		elfw_symbol_desc_t sym = { s->anchors[i], dofsec, 0, 0, STB_WEAK,
		    STT_NOTYPE, STV_HIDDEN };

		elfw_add_symbol(b->w, &sym);
	}
}

/* One link anchor, `DOF_LINK_SYMBOL_PREFIX prov [MDL_PROBE_SEP probe]`. */
static int
add_link_anchor(units_t *b, int dofsec, const char *prov, const char *probe)
{
	strbuf_t name;
	int rc;

	sb_init(&name);
	sb_puts(&name, DOF_LINK_SYMBOL_PREFIX);
	sb_puts(&name, prov);
	if (probe != NULL) {
		sb_puts(&name, MDL_PROBE_SEP);
		sb_puts(&name, probe);
	}
	elfw_symbol_desc_t sym = { name.data, dofsec, 0, 0, STB_WEAK,
	    STT_NOTYPE, STV_HIDDEN };

	rc = name.failed ? -1 : elfw_add_symbol(b->w, &sym);
	sb_free(&name);
	return rc;
}

/*
 * The link anchors (dof.h says why) at the start of the DOF: one per probe,
 * which the header's uses of that probe refer to, so that every -G object
 * of a provider in one archive is taken for its own probes; and the
 * provider's, which headers of usdtc 1.x refer to.  Weak, since two -G
 * outputs of one provider may meet in a link, and hidden, as the header's
 * references are.
 */
static int
add_link_anchors(units_t *b, int dofsec)
{
	for (size_t i = 0; i < b->m->nproviders; i++) {
		const mdl_provider_t *pv = b->m->providers[i];

		if (add_link_anchor(b, dofsec, pv->name, NULL) < 0)
			return -1;
		for (size_t j = 0; j < pv->nprobes; j++)
			if (add_link_anchor(b, dofsec, pv->name, pv->probes[j]->name) < 0)
				return -1;
	}
	return 0;
}

/* Every probe's unit, semaphore, symbols and stub note (units.c). */
static int
add_units(units_t *b, err_t *e)
{
	size_t nprobes = 0;

	if (b->t->stapsdt && mdl_has_probes(b->m)) {
		units_add_stapsdt_base(b);
		units_add_semaphore_page(b);
	}
	for (size_t i = 0; i < b->m->nproviders; i++)
		nprobes += b->m->providers[i]->nprobes;
	if (units_pool(b, nprobes) != 0)
		return elfw_failed(b->w, e) ? -1 : err_errno(e, ENOMEM, "the probe units");
	for (size_t i = 0; i < b->m->nproviders; i++) {
		const mdl_provider_t *p = b->m->providers[i];

		for (size_t j = 0; j < p->nprobes; j++) {
			if (units_add_probe_group(b, p, p->probes[j]) == 0)
				continue;
			if (elfw_failed(b->w, e))
				return -1;
			return err_errno(e, ENOMEM, "probe %s:%s", p->name, p->probes[j]->name);
		}
	}
	return 0;
}

/* ---- what the objects given already hold ---------------------------------- */

/*
 * Whether the section name at `at` of names is `.debug_info`, read in
 * place: elf_strptr's checks cost 2% of -G's instructions for an object
 * of 4,000 sections (bench/gate's G-sites).
 */
static bool
is_debug_info(const Elf_Data *names, size_t at)
{
	static const char want[] = ".debug_info";

	return names != NULL && at < names->d_size && names->d_size - at >= sizeof(want) &&
	    memcmp((const char *)names->d_buf + at, want, sizeof(want)) == 0;
}

/* Add sig to the list *names of *n (room *cap) when it signs a stub note's group. */
static int
add_held_note(const char ***names, size_t *n, size_t *cap, const char *sig)
{
	size_t len = sig != NULL ? strlen(sig) : 0, tail = sizeof(STAPSDT_STUB_NOTE_GROUP) - 1;

	if (len <= tail || strcmp(sig + len - tail, STAPSDT_STUB_NOTE_GROUP) != 0)
		return 0;
	if (*n == *cap) {
		const char **more = realloc(*names, (*cap ? 2 * *cap : 64) * sizeof(**names));

		if (more == NULL)
			return -1;
		*names = more;
		*cap = *cap ? 2 * *cap : 64;
	}
	(*names)[(*n)++] = sig;
	return 0;
}

/*
 * One pass over the sections of the objects given, for two things -G then
 * leaves out (bench/oracle_size):
 *
 * - The stub notes' groups (FUNC.note, stapsdt.h) they hold, by signature,
 *   handed to units (units_hold_notes): the header puts one beside each call of a
 *   stub, and the linker keeps one group of a signature, so the -G
 *   output's group of the same signature would be bytes no link of that
 *   object keeps: about 450 a probe (the note, its three relocations, the
 *   group's words and signature symbol, three section headers).  units.c
 *   leaves those out.  The names point into the objects, which outlive
 *   the build.
 * - Whether the semaphores' debug information earns its bytes (about 64 a
 *   probe, relocation included), into g->semaphores_debug: it is for
 *   gdb's `print P_N_semaphore` in a program built for debugging, as
 *   SystemTap's -G object compiled with -g has it.  So always without the
 *   objects (build style b: nothing says how the program is built), and
 *   given them only when one has DWARF of its own (.debug_info) or is not
 *   an ELF object -G reads (LTO bitcode, say).
 */
static int
scan_objects(units_t *b, gplan_t *g, err_t *e)
{
	size_t n = 0, cap = 0;
	const char **names = NULL;

	g->semaphores_debug = g->nins == 0;
	for (size_t i = 0; i < g->nins; i++) {
		Elf *elf = g->ins[i].elf;
		Elf_Scn *scn = NULL;
		Elf_Data *secnames = NULL;
		GElf_Shdr sh;
		size_t shstrndx;

		if (g->ins[i].same_as != NULL)
			continue;	/* its file's first name is looked at */
		if (elf == NULL || elf_getshdrstrndx(elf, &shstrndx) != 0 ||
		    (secnames = elf_getdata(elf_getscn(elf, shstrndx), NULL)) == NULL)
			g->semaphores_debug = true;
		while (elf != NULL && (scn = elf_nextscn(elf, scn)) != NULL) {
			if (gelf_getshdr(scn, &sh) == NULL)
				continue;
			if (sh.sh_type == SHT_GROUP && add_held_note(&names, &n, &cap,
			    symbol_name(elf, elf_getscn(elf, sh.sh_link), sh.sh_info)) != 0) {
				free(names);
				return err_errno(e, ENOMEM, "reading the objects' notes");
			}
			if (!g->semaphores_debug && is_debug_info(secnames, sh.sh_name))
				g->semaphores_debug = true;
		}
	}
	units_hold_notes(b, names, n);
	return 0;
}

/*
 * Everything of the object but drti_lite (units.c); errors from
 * elfw_failed.  The DOF bytes are made first, while the builder is still
 * empty: making them takes twice their size for a moment (35 MB at
 * 100,000 probes), which is then not on top of the units and symbols;
 * they are added where they always were, after the units.  The site
 * table goes once they are added (their relocations copy its names into
 * the builder): 90 bytes a probe that the semaphores' table and debug
 * information, made next, need not be held beside (issue 40).
 */
/*
 * DOF_FINAL_SYMBOL (dof.h) for drti_lite: on the DOF list's first byte,
 * where __SUNW_dof is, when this -G was given the objects (their site
 * records whose sites its DOF holds are renamed: rewrite_write.c) and no
 * two records of its DOF share a probe and a function name; one byte past
 * it otherwise.  Always defined (an undefined name left local by the
 * merge is an error to lld and mold); none under lazyload (no drti_lite).
 * 0, or -1 out of memory.
 */
static int
add_final_mark(units_t *b, const objgen_opts_t *o, const gplan_t *g, int dofsec)
{
	int rep = 1;

	if (o->lazyload)
		return 0;
	if (g->nins > 0 && (rep = site_table_repeats_function(&g->sites)) < 0)
		return -1;
	elfw_symbol_desc_t sym = { DOF_FINAL_SYMBOL, dofsec, rep == 0 ? 0 : 1, 0, STB_GLOBAL,
	    STT_NOTYPE, STV_HIDDEN };
	return elfw_add_symbol(b->w, &sym) < 0 ? -1 : 0;
}

static int
build_object(units_t *b, const objgen_opts_t *o, gplan_t *g, err_t *e)
{
	elfw_section_desc_t stack = { ".note.GNU-stack", SHT_PROGBITS, 0, 1, 0,
	    NULL, 0, 0 };
	units_dofs_t dofs;
	int dofsec;

	memset(&dofs, 0, sizeof(dofs));
	if (b->m->nproviders > 0 &&
	    units_make_dofs(b, dof_per_provider(b->m, b->t, o), &g->sites, &dofs, e) != 0)
		return -1;
	if (add_units(b, e) != 0) {
		units_dofs_free(&dofs);
		return -1;
	}
	if (b->m->nproviders > 0) {
		if ((dofsec = units_add_dofs(b, o->lazyload ? DOF_ELF_SYMBOL_LAZY :
		    DOF_ELF_SYMBOL, &dofs, e)) < 0)
			return -1;
		if (add_final_mark(b, o, g, dofsec) != 0 && !elfw_failed(b->w, e))
			return err_errno(e, ENOMEM, "the DOF's final mark");
		site_table_free(&g->sites);
		if (o->memory_freed != NULL)
			o->memory_freed();
		add_anchors(b, dofsec, &g->rewritten);
		if (add_link_anchors(b, dofsec) != 0 && !elfw_failed(b->w, e))
			return err_errno(e, ENOMEM, "the link anchors");
		if (!o->lazyload && units_add_semaphore_table(b) != 0 && !elfw_failed(b->w, e))
			return err_errno(e, ENOMEM, "the semaphore table");
		if (g->semaphores_debug && units_add_semaphore_dwarf(b) != 0 &&
		    !elfw_failed(b->w, e))
			return err_errno(e, ENOMEM, "the semaphores' debug information");
	}
	elfw_add_section(b->w, &stack);
	return elfw_failed(b->w, e) ? -1 : 0;
}

/* ---- the GNU property note ------------------------------------------------ */

/*
 * What the object's own code satisfies on x86_64 Linux: IBT, because no
 * unit is ever the target of an indirect branch (the header's macros and
 * the rewritten sites reach them by direct calls, the DOF and notes only
 * name them), and SHSTK, because every unit returns to its caller with a
 * plain ret.  Other targets: no claim (no note).
 */
static uint32_t
own_x86_features(const target_t *t)
{
	return t->os == TARGET_OS_LINUX && t->arch->elf_machine == EM_X86_64 ?
	    ELFENC_X86_FEATURE_1_IBT | ELFENC_X86_FEATURE_1_SHSTK : 0;
}

/*
 * The object's .note.gnu.property: GNU_PROPERTY_X86_FEATURE_1_AND with
 * what its code satisfies and, when drti_lite is merged in here, what
 * drti_lite's own note says (elfmerge.c leaves that note out).  With `ld
 * -r` the linker ANDs drti_lite's note itself.  Without it a program built
 * with -fcf-protection loses IBT and SHSTK (ld -z cet-report names the
 * object).
 */
static void
add_property_note(units_t *b, const objgen_opts_t *o, bool merging)
{
	uint32_t bits = own_x86_features(b->t);
	uint8_t note[ELFENC_X86_PROPERTY_SIZE];

	if (merging && o->drti != NULL)
		bits &= elfw_x86_feature_1(o->drti, o->drti_size);
	if (bits == 0)
		return;
	elfenc_x86_property_note(note, bits);
	elfw_section_desc_t sd = { ELFENC_PROPERTY_SECTION, SHT_NOTE, SHF_ALLOC, 8, 0,
	    note, sizeof(note), 0 };
	elfw_add_section(b->w, &sd);
}

/* ---- linking with drti_lite ---------------------------------------------- */

static int
write_all_fd(int fd, const void *buf, size_t len, const char *what, err_t *e)
{
	return file_write_all_fd(fd, buf, len) == 0 ? 0 : err_errno(e, errno, "writing %s", what);
}

/*
 * Up to cap-1 bytes of what fd holds as one line: trailing newlines cut,
 * inner ones shown as "; ".
 */
static void
read_back(int fd, char *buf, size_t cap)
{
	ssize_t n = pread(fd, buf, cap - 3, 0);
	size_t len = n > 0 ? (size_t)n : 0;
	char *nl;

	buf[len] = '\0';
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	while ((nl = strchr(buf, '\n')) != NULL && len + 2 < cap) {
		memmove(nl + 2, nl + 1, len - (size_t)(nl - buf));
		nl[0] = ';';
		nl[1] = ' ';
		len++;
	}
}

/*
 * argv for the linker: the words of cmd (it may carry options, as $LD
 * often does), then -r -o OUT and the two inputs.
 * NULL on allocation failure or when cmd holds no word.
 */
static char **
linker_argv(const char *cmd, const char *out, const char *obj, const char *drti)
{
	const char *tail[] = { "-r", "-o", out, obj, drti };
	size_t ntail = sizeof(tail) / sizeof(tail[0]), n;
	char **argv = spawn_words(cmd, ntail, &n);

	if (argv == NULL || n == 0) {
		free(argv);
		return NULL;
	}
	for (size_t i = 0; i < ntail; i++)
		argv[n++] = (char *)tail[i];
	argv[n] = NULL;
	return argv;
}

/* Describe how a child ended, for a message. */
static void
exit_status(int status, char *buf, size_t cap)
{
	if (WIFEXITED(status))
		snprintf(buf, cap, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, cap, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, cap, "status 0x%x", status);
}

/* Run argv with stdout and stderr into errfd; wait for it. */
static int
spawn_and_wait(const objgen_opts_t *o, char **argv, int errfd, err_t *e)
{
	const int fds[3] = { -1, errfd, errfd };
	char msg[1024], how[64];
	pid_t pid;
	int rc, status;

	if ((rc = spawn_argv(argv, fds, &pid)) != 0)
		return err_errno(e, rc, "cannot run the linker '%s'", argv[0]);
	if ((rc = spawn_wait(pid, &status)) != 0)
		return err_errno(e, rc, "waiting for the linker '%s'", argv[0]);
	read_back(errfd, msg, sizeof(msg));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		exit_status(status, how, sizeof(how));
		return err_set(e, "linking with drti_lite failed: '%s -r' ended with %s%s%s",
		    argv[0], how, msg[0] ? ": " : "", msg);
	}
	if (msg[0] != '\0')
		note(o, "%s -r said: %s", argv[0], msg);
	return 0;
}

/*
 * ld -r OBJECT drti_lite.o -o OUT, both inputs from anonymous files, with
 * the target's drti_lite (o->drti, from the program) and, unless one was
 * named, a linker for the target's machine.
 */
static int
link_with_drti(const objgen_opts_t *o, const target_t *t, int objfd,
    const char *out, err_t *e)
{
	size_t drti_size = o->drti_size;
	const unsigned char *drti = o->drti;
	char objpath[64], drtipath[64];
	const char *cmd = o->ld_cmd ? o->ld_cmd : o->drti_ld;
	char **argv = NULL;
	int drtifd = -1, errfd = -1, rc = -1;

	if (cmd[strspn(cmd, " \t")] == '\0') {
		err_set(e, "the linker command is empty");
		goto out;
	}
	if (drti == NULL) {
		err_set(e, "no drti_lite for target %s: %s; or use -x lazyload and "
		    "register ___SUNW_dof yourself", t->name, o->drti_missing);
		goto out;
	}
	if ((drtifd = file_anon("drti_lite.o", 0, e)) < 0 ||
	    (errfd = file_anon("usdtc-ld-output", MFD_CLOEXEC, e)) < 0 ||
	    write_all_fd(drtifd, drti, drti_size, "drti_lite.o", e) != 0)
		goto out;
	snprintf(objpath, sizeof(objpath), "/proc/self/fd/%d", objfd);
	snprintf(drtipath, sizeof(drtipath), "/proc/self/fd/%d", drtifd);
	if ((argv = linker_argv(cmd, out, objpath, drtipath)) == NULL) {
		err_errno(e, ENOMEM, "linker command");
		goto out;
	}
	note(o, "linking with drti_lite: %s -r -o %s", cmd, out);
	rc = spawn_and_wait(o, argv, errfd, e);
out:
	free(argv);
	if (drtifd >= 0)
		close(drtifd);
	if (errfd >= 0)
		close(errfd);
	return rc;
}

/* ---- the stage ------------------------------------------------------------ */

/* The output's name in messages: the file its temporary becomes. */
static const char *
out_name(const objgen_opts_t *o, const char *out)
{
	return o->out_name != NULL ? o->out_name : out;
}

static int
fill_rel(int fd, const char *name, void *w, err_t *e)
{
	(void)name;	/* elfw_set_output_name gave it */
	return elfw_write_rel(w, fd, e);
}

static int
write_plain(elfw_t *w, const objgen_opts_t *o, const char *out, err_t *e)
{
	elfw_set_output_name(w, out_name(o, out));
	return file_write_path(out, out_name(o, out), fill_rel, w, e);
}

static int
write_linked(elfw_t *w, const objgen_opts_t *o, const target_t *t,
    const char *out, err_t *e)
{
	/* Not close-on-exec: the linker opens it as /proc/self/fd/N. */
	int fd = file_anon("usdtc-probes.o", 0, e), rc;

	if (fd < 0)
		return -1;
	rc = elfw_write_rel(w, fd, e);
	if (rc == 0)
		rc = link_with_drti(o, t, fd, out, e);
	close(fd);
	if (rc == 0)
		rc = elfw_localize_symbol(out, DOF_ELF_SYMBOL, e);
	if (rc == 0)
		rc = elfw_localize_symbol(out, STAPSDT_SEMAPHORE_TABLE_SYMBOL, e);
	if (rc == 0)
		rc = elfw_localize_symbol(out, DOF_FINAL_SYMBOL, e);
	return rc;
}

/*
 * The target's drti_lite merged into the builder (elfmerge.c), its
 * reference to __SUNW_dof bound to the DOF, which is then made local.
 */
static int
write_merged(elfw_t *w, const objgen_opts_t *o, const target_t *t,
    const char *out, err_t *e)
{
	if (o->drti == NULL)
		return err_set(e, "no drti_lite for target %s: %s; or use -x lazyload and "
		    "register ___SUNW_dof yourself", t->name, o->drti_missing);
	if (elfw_merge_rel(w, o->drti, o->drti_size, "drti_lite.o", e) != 0)
		return -1;
	if (elfw_set_symbol_bind(w, elfw_find_symbol(w, DOF_ELF_SYMBOL), STB_LOCAL) != 0 ||
	    elfw_set_symbol_bind(w, elfw_find_symbol(w, STAPSDT_SEMAPHORE_TABLE_SYMBOL),
	    STB_LOCAL) != 0 ||
	    elfw_set_symbol_bind(w, elfw_find_symbol(w, DOF_FINAL_SYMBOL), STB_LOCAL) != 0) {
		elfw_failed(w, e);
		return -1;
	}
	return write_plain(w, o, out, e);
}

/*
 * -x linktype=dof: the one DOF of the model (as dtrace writes one for the
 * program), its dofh_filesz bytes, nothing else.
 */
static int
write_raw_dof(const mdl_model_t *m, const target_t *t, const objgen_opts_t *o,
    const site_table_t *sites, const char *out, err_t *e)
{
	dof_gen_opts_t opts = { .strip = o->strip };
	dof_image_t img;
	target_t tt = *t;
	uint64_t size;
	int rc;

	tt.dof_addr = target_dof_addr(t, o->lazyload);
	if (dof_generate_opts(m, sites, &tt, &opts, &img, NULL, e) != 0)
		return -1;
	size = ((const dof_hdr_t *)(const void *)img.data)->dofh_filesz;
	rc = file_write_bytes(out, out_name(o, out), img.data,
	    size < img.size ? (size_t)size : img.size, e);
	dof_image_free(&img);
	return rc;
}

/*
 * The plan, then the writing: the rewritten objects' temporaries, then
 * the -G object itself (units, notes, DOF, drti_lite).
 */
int
objgen_write(const mdl_model_t *m, const target_t *t,
    const objgen_opts_t *o, const char *out_path, err_t *e)
{
	units_t b = { .m = m, .t = t, .lazyload = o->lazyload, .strip = o->strip,
	    .stub_note = header_probe_calls_stub };
	gplan_t g;
	bool providers;
	int rc;

	memset(&g, 0, sizeof(g));
	if (plan(m, t, o, &g, e) != 0 || rewrite_write(g.rewrite, e) != 0) {
		gplan_free(&g);
		return -1;
	}
	if (o->raw_dof) {
		rc = write_raw_dof(m, t, o, &g.sites, out_path, e);
		gplan_free(&g);
		return rc;
	}
	if ((b.w = elfw_new(t->arch->elf_class, t->arch->elf_machine, e)) == NULL) {
		gplan_free(&g);
		return -1;
	}
	rc = scan_objects(&b, &g, e);
	if (rc == 0)
		rc = build_object(&b, o, &g, e);
	if (rc == 0)
		rc = add_site_notes(&b, &g.rewritten, e);
	free(b.held_notes);
	b.held_notes = NULL;
	gplan_free(&g);
	providers = m->nproviders > 0;
	if (o->model_done != NULL)
		o->model_done(o->model_done_ctx);	/* m is not read from here on */
	if (rc == 0)
		add_property_note(&b, o, providers && !o->lazyload && o->ld_cmd == NULL);
	if (rc == 0 && providers && !o->lazyload && o->ld_cmd != NULL)
		rc = write_linked(b.w, o, t, out_path, e);
	else if (rc == 0 && providers && !o->lazyload)
		rc = write_merged(b.w, o, t, out_path, e);
	else if (rc == 0)
		rc = write_plain(b.w, o, out_path, e);
	elfw_free(b.w);
	return rc;
}
