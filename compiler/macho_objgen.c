/*
 * macho_objgen.c - the -G stage for macOS targets: a Mach-O MH_OBJECT that
 * holds the probe units and their DOF in the form dyld registers.
 *
 * How macOS does it (Apple's ld64 dtrace pass and libdtrace dt_ld.m, dyld,
 * and xnu's dtrace.c and fasttrap.c; read, not run here):
 *
 *   There is no -G step.  The -h header (header_macos.c) makes each probe
 *   call an undefined ___dtrace_probe$PROV$NAME$v1$<hex types> and each
 *   is-enabled test call ___dtrace_isenabled$PROV$NAME$v1.  ld64 knows the
 *   names: it writes nops over each call (x86_64 `90 0f 1f 40 00`, arm64
 *   `nop`) and clears the result of each test (`33 c0 90 90 90`, `mov x0,
 *   #0`), then has libdtrace rebuild each provider from the names and
 *   writes one DOF per provider into a section of __TEXT named __dof_ and
 *   the provider cut to 15 bytes (a name taken twice gets its last byte
 *   replaced by '0', '1', ...), alignment 1, section type S_DTRACE_DOF.
 *   A site is recorded as a 32-bit PROFFS/PRENOFFS entry holding its
 *   distance from the DOF's first byte, which a linker fixup (site minus
 *   DOF) fills in: on x86_64 the site is the rel32 field of the call, one
 *   byte into it.  Nothing in the DOF is absolute, so the read-only __TEXT
 *   needs no rebase when the image slides.
 *
 *   There is no drti either: dyld, loading an image, takes every section
 *   whose type is S_DTRACE_DOF (the name does not matter) and hands them
 *   all to /dev/dtracehelper in one DTRACEHIOC_ADDDOF ioctl, each as a
 *   dof_helper_t whose dofhp_dof and dofhp_addr are both the section's
 *   address (and removes them if it unloads the image).  The kernel accepts DOF
 *   version 3 only, ignores dofpr_addr (a probe's base is dofhp_addr), and
 *   puts each tracepoint at base + (int32_t)entry, minus 1 for an x86_64
 *   probe (back to the call's first byte), plus 2 for an x86_64 is-enabled
 *   site (past `xorl %eax,%eax` to a one-byte nop), unchanged on arm64
 *   (macho.h, macho_tracepoint_adjust).  When an is-enabled probe is on,
 *   the kernel sets the result register to 1 and steps over the nop.
 *
 * What this stage writes, so that a program compiled with that header
 * links with a linker that knows none of it (ld64.lld of LLVM 14 reports
 * the probe functions undefined) and still carries probes dyld registers:
 *
 *   __TEXT,__text	one probe unit per probe (target.h): x86_64 the DOF
 *			version 2 unit of arch_x86_64.c, whose is-enabled
 *			slot is `xor %rax,%rax` and a nop; arm64 the unit of
 *			arch_arm64_macos.c, `mov x0, #0`.  Both return 0 from
 *			the is-enabled slot, as the int function of macOS's
 *			header must.  ___dtrace_probe$... names the unit,
 *			___dtrace_isenabled$... its is-enabled slot; both weak
 *			private externs (N_EXT|N_PEXT, N_WEAK_DEF): several
 *			objects may hold them, and no image exports them.
 *   __TEXT,__dof_PROV	per provider with probes, named as ld64 names them,
 *			type S_DTRACE_DOF with S_ATTR_NO_DEAD_STRIP (nothing
 *			refers to it; -dead_strip must keep it), alignment 8:
 *			one DOF (dofgen.c) whose records name the unit
 *			(__dtrace_probe$..., its C name) as their function.
 *			Each PROFFS and PRENOFFS entry carries the pair
 *			X86_64/ARM64_RELOC_SUBTRACTOR (the local symbol
 *			__dtrace_dof_for_provider_PROV at the DOF's start) and
 *			_UNSIGNED (the unit's symbol), 4 bytes, the addend in
 *			place being the entry as ld64 records a site: the
 *			tracepoint's offset in the unit minus the kernel's
 *			adjustment (x86_64: probe 2 + 1, is-enabled 13 - 2;
 *			arm64: 0 and 8).  The linker stores unit - DOF +
 *			addend: relative, a link-time constant.  dofpr_addr
 *			stays 0 with no Mach-O relocation (an absolute address
 *			in __TEXT would need a rebase of read-only memory,
 *			and the kernel ignores it); dofgen's DOF SETX entry is
 *			kept, as in ld64's DOFs, and adds the base to that
 *			unused field.
 *   symbols, LC_BUILD_VERSION (macOS 10.9 for x86_64, 11.0 for arm64,
 *			the oldest each runs), LC_SYMTAB, LC_DYSYMTAB.
 *
 * The program's objects named after the options are read and checked
 * first (macho_in.c): Mach-O objects of the target's CPU whose references
 * to probe functions name probes of the definition.  They are not
 * rewritten: their calls reach the units.  The probe functions' names and
 * the CPU facts are the target's (target.c), the object's bytes the
 * writer's (macho_write.c).
 *
 * Limits.
 *   - With Apple's ld64 the program needs no -G object, and should not
 *     link this one: ld64 takes every call to a ___dtrace_probe$ name for
 *     a probe site, by name, and writes its own __dof_PROV, so the units
 *     go unused and the provider would be registered twice (from ld64's
 *     source, not run).
 *   - ld64.lld from LLVM 15 on rewrites every call to a ___dtrace_ symbol,
 *     defined or not (its InputSection::writeTo), and makes no DOF: the
 *     units are never reached.  Probes then need their call sites recorded,
 *     which this stage does not do (the ELF -G stage's rewrite_plan.c does).
 *   - A probe fires in its unit, one call deep, and DTrace shows the unit
 *     as the probe's function; ld64 shows the caller.
 *   - dyld registers one DOF per section: if two -G objects of one provider
 *     are linked, their __dof_PROV sections merge into one and only the
 *     first DOF is seen.
 *   - Firing on a Mac is not tested here; tests/macho checks the object
 *     with llvm-readobj and llvm-objdump, links it with ld64.lld, and
 *     decodes the linked image's DOF (usdtc --list), whose sites must be
 *     the units' tracepoints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dof.h"
#include "dofgen.h"
#include "macho.h"
#include "macho_arch.h"
#include "macho_in.h"
#include "macho_objgen.h"
#include "macho_write.h"
#include "strbuf.h"

/* ---- the probe units -------------------------------------------------------- */

/* log2 of a power of two. */
static uint32_t
log2_of(unsigned v)
{
	uint32_t n = 0;

	while ((1u << n) < v)
		n++;
	return n;
}

/* "_" + a C name: the Mach-O symbol. */
static char *
symbol_of(const char *c_name)
{
	char *s;

	return asprintf(&s, "_%s", c_name) < 0 ? NULL : s;
}

/*
 * One probe's unit at the end of __text, its two symbols, and its two
 * sites (offsets as ld64 records them, see the top of this file).
 */
static int
add_unit(mw_t *w, const target_t *t, size_t text, const mdl_provider_t *p,
    const mdl_probe_t *pr, site_table_t *sites)
{
	const arch_t *a = t->arch;
	char *func = target_macos_probe_func(p, pr), *enabled = target_macos_enabled_func(p, pr);
	char *fsym = func ? symbol_of(func) : NULL, *esym = enabled ? symbol_of(enabled) : NULL;
	uint64_t at = w->sects[text].data.len;
	uint8_t ext = N_SECT | N_EXT | N_PEXT;
	int probe_site = (int)a->probe_offset -
	    macho_tracepoint_adjust(w->cpu.cputype, 0);
	int enabled_site = (int)(a->enabled_offset + a->enabled_skip) -
	    macho_tracepoint_adjust(w->cpu.cputype, 1);
	int rc = -1;

	if (fsym != NULL && esym != NULL) {
		sb_append(&w->sects[text].data, a->unit, a->unit_size);
		mw_add_symbol(w, fsym, ext, N_WEAK_DEF, text, at);
		mw_add_symbol(w, esym, ext, N_WEAK_DEF, text, at + a->enabled_offset);
		if (site_table_add(sites, pr, func, fsym, (uint32_t)probe_site, false) == 0 &&
		    site_table_add(sites, pr, func, fsym, (uint32_t)enabled_site, true) == 0)
			rc = 0;
	}
	free(func);
	free(enabled);
	free(fsym);
	free(esym);
	if (rc != 0)
		w->failed = true;
	return rc;
}
/* ---- the DOF sections -------------------------------------------------------- */

/*
 * "__dof_" + the provider, cut to 15 bytes; a name already in use gets
 * its last byte replaced by '0', '1', ... (doc/dof.md section 6; the
 * classic ld64 source appends the digit as a 16th byte instead).  dyld
 * goes by the section's type, so the name only has to be unique.
 */
static void
dof_section_name(const mw_t *w, const char *prov, char name[17])
{
	bool taken;

	snprintf(name, 16, "%s%s", MACHO_DOF_PREFIX, prov);
	for (char c = '0'; ; c++) {
		taken = false;
		for (size_t i = 0; i < w->nsects && !taken; i++)
			taken = strncmp(w->sects[i].sectname, name, 16) == 0;
		if (!taken || c > 'z')
			return;
		name[strlen(name) - 1] = c;
	}
}

/* A relocation pair on each of the n u32 entries from image offset at. */
static int
relocate_entries(mw_t *w, size_t sect, uint64_t at, size_t n, size_t function,
    size_t dof_sym)
{
	for (size_t k = 0; k < n; k++)
		mw_add_difference(w, sect, (uint32_t)(at + 4 * k), function, dof_sym);
	return w->failed ? -1 : 0;
}

/*
 * Every site entry of every record of the image: relative to the DOF.
 * dofgen.c says where each record's entries are (dof_record_loc_t).
 */
static int
relocate_sites(mw_t *w, size_t sect, size_t dof_sym, const dof_record_locs_t *where,
    err_t *e)
{
	int rc = 0;

	for (size_t i = 0; i < where->n && rc == 0; i++) {
		const dof_record_loc_t *r = &where->v[i];
		size_t fn = r->symbol ? mw_find_symbol(w, r->symbol) : (size_t)-1;

		if (fn == (size_t)-1)
			return err_set(e, "provider %s probe %s: no unit symbol for "
			    "function %s", r->provider, r->probe, r->func);
		rc = relocate_entries(w, sect, r->offs_at, r->noffs, fn, dof_sym);
		if (rc == 0 && r->nenoffs > 0)
			rc = relocate_entries(w, sect, r->enoffs_at, r->nenoffs, fn, dof_sym);
		if (rc != 0 && w->failed)
			err_set(e, "out of memory relocating the DOF of provider %s",
			    r->provider);
	}
	return rc;
}

/* Provider p's DOF in a __dof_ section of its own. */
static int
add_dof_section(mw_t *w, const mdl_model_t *m, const site_table_t *sites,
    const target_t *t, mdl_provider_t **p, err_t *e)
{
	mdl_model_t one = *m;
	dof_image_t img;
	dof_record_locs_t where;
	char name[17], *label;
	size_t sect, sym;
	int rc;

	one.providers = p;
	one.nproviders = 1;
	one.provider_index = NULL;	/* positions of m's array */
	if (dof_generate_sites(&one, sites, t, &img, &where, e) != 0)
		return -1;
	dof_section_name(w, (*p)->name, name);
	sect = mw_add_section(w, MACHO_DOF_SEGMENT, name,
	    S_DTRACE_DOF | S_ATTR_NO_DEAD_STRIP, 3);
	if (asprintf(&label, "__dtrace_dof_for_provider_%s", (*p)->name) < 0) {
		dof_image_free(&img);
		dof_record_locs_free(&where);
		return err_set(e, "out of memory naming the DOF of provider %s", (*p)->name);
	}
	sym = mw_add_symbol(w, label, N_SECT, 0, sect, 0);
	free(label);
	if (w->failed) {
		dof_image_free(&img);
		dof_record_locs_free(&where);
		return err_set(e, "out of memory building the Mach-O object");
	}
	sb_append(&w->sects[sect].data, img.data, img.size);
	rc = relocate_sites(w, sect, sym, &where, e);
	dof_image_free(&img);
	dof_record_locs_free(&where);
	return rc;
}

/* ---- the stage ------------------------------------------------------------------ */

/* __text with every probe's unit, then a __dof_ section per provider. */
static int
build(mw_t *w, const mdl_model_t *m, site_table_t *sites, const target_t *t,
    err_t *e)
{
	size_t text = mw_add_section(w, "__TEXT", "__text",
	    S_REGULAR | S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS,
	    log2_of(t->arch->unit_align));

	if (text == (size_t)-1)
		return err_set(e, "out of memory building the Mach-O object");
	for (size_t i = 0; i < m->nproviders && !w->failed; i++) {
		mdl_provider_t *p = m->providers[i];

		for (size_t j = 0; j < p->nprobes; j++)
			if (add_unit(w, t, text, p, p->probes[j], sites) != 0)
				return err_set(e, "out of memory building probe %s:%s",
				    p->name, p->probes[j]->name);
	}
	for (size_t i = 0; i < m->nproviders; i++)
		if (m->providers[i]->nprobes > 0 &&
		    add_dof_section(w, m, sites, t, &m->providers[i], e) != 0)
			return -1;
	return w->failed ? err_set(e, "out of memory building the Mach-O object") : 0;
}

int
macho_objgen_write(const mdl_model_t *m, const target_t *t,
    const objgen_opts_t *o, const char *out_path, err_t *e)
{
	macho_arch_t cpu;
	mw_t w;
	site_table_t sites;
	int rc;

	if (macho_in_check(m, t, o->objects, o->nobjects, o->verbose, e) != 0)
		return -1;
	if (!macho_arch(t, &cpu))
		return err_set(e, "target %s: no Mach-O CPU for arch %s", t->name,
		    t->arch->name);
	if (o->lazyload && o->verbose)
		fputs("usdtc: -x lazyload: ignored: dyld registers the DOF of macOS images\n",
		    stderr);
	mw_init(&w, &cpu);
	if (site_table_init(&sites, m) != 0) {
		mw_free(&w);
		return err_set(e, "out of memory building the Mach-O object");
	}
	rc = build(&w, m, &sites, t, e);
	if (rc == 0)
		rc = mw_write(&w, out_path, e);
	site_table_free(&sites);
	mw_free(&w);
	return rc;
}
