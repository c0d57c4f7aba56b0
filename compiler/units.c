/*
 * units.c - the probe groups every object that carries probes holds.
 *
 * For each probe P:N of the model (target.h describes the probe unit,
 * doc/design.md sections 1-3 the reasons), one COMDAT group signed by
 * __dtrace_P___N, the same group the -h header emits as top-level asm, so
 * a linker keeps one copy whichever comes first:
 *
 *	.text.__dtrace_P___N	the probe unit; __dtrace_P___N at 0 and
 *				__dtraceenabled_P___N at the is-enabled slot,
 *				both weak hidden functions
 *	.note.stapsdt		one stapsdt note: pc = the probe tracepoint,
 *				base = _.stapsdt.base, semaphore, "P", "N",
 *				the argument description (Linux targets)
 *	.probes			the semaphore P_N_semaphore, 2 bytes
 *
 * or, in the -G object (units_pool), the unit and the semaphore at their
 * slots of one unit section and one .probes shared by every probe, in no
 * group, with the note still in a group of its own;
 * the COMDAT group .stapsdt.base (as <sys/sdt.h> makes it): one byte and
 * the hidden symbol _.stapsdt.base every note points at (global here, see
 * units_add_stapsdt_base); the COMDAT group __usdt_probes_page, an empty
 * page-aligned .probes section that keeps every semaphore off a file page
 * another segment maps (stapsdt.h); and .SUNW_dof, the DOF of the whole
 * model (dofgen.c), or one DOF per provider ended by 8 zero bytes
 * (units_add_dof says when), whose probe addresses
 * are relocations against the probe functions, and beside it, on Linux
 * with drti_lite, gdb's copy of it in a section that is not loaded
 * (add_readers_copy; target_dof_readers_copy says when); and for drti_lite the
 * table of the object's semaphores (units_add_semaphore_table), and their
 * DWARF for debuggers (units_add_semaphore_dwarf).  A -G object given the
 * program's objects also holds one note, outside any group, for each call
 * site rewrite_plan.c turned into a tracepoint (units_add_site_notes).
 *
 * Everything is described to an elfw builder: addresses are relocations,
 * which the -G object leaves to the program's linker and the run-time
 * library's ET_DYN writer resolves itself.  The same code serves both, so
 * a run-time provider looks to tracers exactly like a compiled one.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dof.h"
#include "dofgen.h"
#include "elfenc.h"
#include "hash.h"
#include "stapsdt.h"
#include "strbuf.h"
#include "units.h"

/* The -G object's one section of units (units_pool). */
#define UNITS_POOL_SECTION	MDL_UNITS_SECTION

#ifndef SHF_GNU_RETAIN
#define SHF_GNU_RETAIN		(1u << 21)
#endif

/*
 * The .stapsdt.base group, signed by its section symbol as gas signs it.
 * Its symbol is global, not weak as the header's and <sys/sdt.h>'s are:
 * lld ignores the COMDAT groups of the objects LTO makes, so with clang
 * LTO the header's copy (module asm) is kept beside this one, after it in
 * the output section.  Had the weak copy of the LTO object won, every
 * note's base would be .stapsdt.base + 1, and tracers that move the pc by
 * (section address - base), as libbpf does, would attach a byte off.  The
 * global wins, and this object comes before the LTO object.  Between
 * regular objects the group still keeps one copy, and a symbol of a
 * discarded group clashes with nothing.
 */
void
units_add_stapsdt_base(units_t *u)
{
	static const unsigned char zero;
	int g = elfw_add_group(u->w);
	elfw_section_desc_t sd = { STAPSDT_BASE_SECTION, SHT_PROGBITS,
	    SHF_ALLOC | SHF_GNU_RETAIN, 1, 0, &zero, 1, g };
	int sec = elfw_add_section(u->w, &sd);
	elfw_symbol_desc_t sym = { STAPSDT_BASE_SYMBOL, sec, 0, 1, STB_GLOBAL,
	    STT_NOTYPE, STV_HIDDEN };

	elfw_set_group_signature(u->w, g, elfw_section_symbol(u->w, sec));
	u->base_sym = elfw_add_symbol(u->w, &sym);
}


/* The semaphore page group (stapsdt.h says why); before the probe groups. */
void
units_add_semaphore_page(units_t *u)
{
	int g = elfw_add_group(u->w);
	elfw_section_desc_t sd = { STAPSDT_SEMAPHORE_SECTION, SHT_PROGBITS,
	    SHF_ALLOC | SHF_WRITE | SHF_GNU_RETAIN,
	    u->t->arch->elf_machine == EM_AARCH64 ? STAPSDT_SEMAPHORE_PAGE_AARCH64 :
	    STAPSDT_SEMAPHORE_PAGE_X86_64, 0, NULL, 0, g };
	int sec = elfw_add_section(u->w, &sd);
	elfw_symbol_desc_t sym = { STAPSDT_SEMAPHORE_PAGE_SYMBOL, sec, 0, 0, STB_WEAK,
	    STT_OBJECT, STV_HIDDEN };

	elfw_set_group_signature(u->w, g, elfw_add_symbol(u->w, &sym));
}

/* Bytes of an address-sized field of the target. */
static unsigned
address_size(const target_t *t)
{
	return elfenc_addr_size(t->arch->elf_class);
}

/*
 * The stapsdt note (type 3, as <sys/sdt.h> writes it): namesz, descsz,
 * type, "stapsdt\0", then pc, base, semaphore (zero here, relocated), then
 * provider, probe as declared and the argument description, NUL-ended,
 * padded to 4.  Returns the offset of pc in the note.
 */
typedef void note_args_fn(const mdl_model_t *m, const mdl_probe_t *pr, strbuf_t *out);

static size_t
note_bytes(const units_t *u, const mdl_provider_t *p, const mdl_probe_t *pr,
    note_args_fn *note_args, strbuf_t *out)
{
	size_t start = out->len, pc;
	strbuf_t args;

	sb_init(&args);
	note_args(u->m, pr, &args);
	sb_putc(&args, '\0');
	pc = elfenc_stapsdt_note(out, address_size(u->t), p->name, strlen(p->name) + 1,
	    pr->name, strlen(pr->name) + 1, args.data, args.len);
	if (args.failed)
		out->failed = true;
	sb_free(&args);
	return pc - start;
}

/* bsearch's comparison of two names (units_t's held_notes). */
static int
cmp_held(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void
units_hold_notes(units_t *u, const char **names, size_t n)
{
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_held);
	u->held_notes = names;
	u->nheld_notes = n;
}

/*
 * The stub's note, in a COMDAT group of its own signed by a local symbol
 * `FUNC.note`, as the assembler signs the header's (stapsdt.h,
 * STAPSDT_STUB_NOTE_GROUP): the linker keeps one of them, and never drops
 * one for a text group that lacks it.  None where an object given to -G
 * holds that group already (u->held_notes): the linker would keep one of
 * the two copies, alike.
 */
static int
add_note(units_t *u, const mdl_provider_t *p, const mdl_probe_t *pr,
    const char *func, int func_sym, int sem_sym)
{
	unsigned asz = address_size(u->t), abs = u->t->arch->reloc_abs64;
	strbuf_t bytes;
	size_t pc;
	int sec, group;
	char *sig;

	if (asprintf(&sig, "%s" STAPSDT_STUB_NOTE_GROUP, func) < 0)
		return -1;
	if (u->nheld_notes > 0 && bsearch(&sig, u->held_notes, u->nheld_notes,
	    sizeof(*u->held_notes), cmp_held) != NULL) {
		free(sig);
		return 0;
	}
	sb_init(&bytes);
	pc = note_bytes(u, p, pr, u->t->arch->note_args, &bytes);
	if (bytes.failed) {
		sb_free(&bytes);
		free(sig);
		return -1;
	}
	group = elfw_add_group(u->w);
	elfw_section_desc_t sd = { STAPSDT_NOTE_SECTION, SHT_NOTE, 0,
	    STAPSDT_NOTE_ALIGN, 0, bytes.data,
	    bytes.len, group };
	sec = elfw_add_section(u->w, &sd);
	sb_free(&bytes);
	elfw_symbol_desc_t gd = { sig, sec, 0, 0, STB_LOCAL, STT_NOTYPE, STV_DEFAULT };
	elfw_set_group_signature(u->w, group, elfw_add_symbol(u->w, &gd));
	free(sig);
	elfw_reserve(u->w, 0, sec, 3);	/* not 16 by doubling: 22,000 notes at 100,000 probes */
	elfw_add_reloc(u->w, sec, pc, abs, func_sym, u->t->arch->probe_offset);
	elfw_add_reloc(u->w, sec, pc + STAPSDT_BASE * asz, abs, u->base_sym, 0);
	return elfw_add_reloc(u->w, sec, pc + STAPSDT_SEMAPHORE * asz, abs, sem_sym, 0);
}

/* Bytes from one pooled unit to the next: the unit, padded to its alignment. */
static size_t
pool_stride(const arch_t *a)
{
	size_t align = a->unit_align ? a->unit_align : 1;

	return (a->unit_size + align - 1) / align * align;
}

/*
 * The -G object's pool.  Each probe's unit in a group of its own costs
 * three section headers (the group, the unit, the semaphore's .probes:
 * 192 bytes, more than the unit, its semaphore and their symbols), so the
 * -G object puts every unit in one section and every semaphore in one
 * .probes, in no group: the weak hidden definitions of every object that
 * holds them, as each file of the header already defines its semaphores
 * (doc/design.md section 2).  Sound because nothing names a unit or a
 * semaphore but by its symbol: calls, the stub notes (in groups of their
 * own still), the DOF and the semaphore table are relocations against
 * __dtrace_P___N and P_N_semaphore, and the linker binds each to one
 * definition, this object's or a file's group (which stays, unused, when
 * this object comes first: 16 dead bytes a probe).  The units are
 * identical whichever is bound.
 */
int
units_pool(units_t *u, size_t n)
{
	const arch_t *a = u->t->arch;
	size_t stride = pool_stride(a);
	unsigned char *text;

	if (n == 0)
		return 0;
	if ((text = calloc(n, stride)) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		memcpy(text + i * stride, a->unit, a->unit_size);
	elfw_section_desc_t td = { UNITS_POOL_SECTION, SHT_PROGBITS,
	    SHF_ALLOC | SHF_EXECINSTR, a->unit_align, 0, NULL, n * stride, 0 };
	u->pool_text = elfw_adopt_section(u->w, &td, text);
	if (u->t->stapsdt) {
		elfw_section_desc_t sd = { STAPSDT_SEMAPHORE_SECTION, SHT_PROGBITS,
		    SHF_ALLOC | SHF_WRITE, STAPSDT_SEMAPHORE_SIZE, 0, NULL,
		    n * STAPSDT_SEMAPHORE_SIZE, 0 };
		u->pool_sems = elfw_add_section(u->w, &sd);
	}
	u->pool_slots = n;
	u->pool_next = 0;
	return u->pool_text > 0 && (!u->t->stapsdt || u->pool_sems > 0) ? 0 : -1;
}

/* The probe's unit section and the unit's offset in it: its own group's, or the pool's. */
static int
unit_section(units_t *u, const char *func, int *group, uint64_t *at)
{
	const arch_t *a = u->t->arch;
	char *text;
	int sec;

	*group = 0;
	*at = 0;
	if (u->pool_text > 0) {
		if (u->pool_next >= u->pool_slots)
			return -1;
		*at = u->pool_next * pool_stride(a);
		return u->pool_text;
	}
	if (asprintf(&text, ".text.%s", func) < 0)
		return -1;
	*group = elfw_add_group(u->w);
	elfw_section_desc_t td = { text, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	    a->unit_align, 0, a->unit, a->unit_size, *group };
	sec = elfw_add_section(u->w, &td);
	free(text);
	return sec;
}

int
units_add_probe_group_named(units_t *u, const mdl_provider_t *p,
    const mdl_probe_t *pr, const units_names_t *n)
{
	static const unsigned char semaphore[2];
	const arch_t *a = u->t->arch;
	uint64_t at;
	int g, sec, func_sym, sem_sym;
	size_t slot = u->pool_next;

	if ((sec = unit_section(u, n->func, &g, &at)) < 0)
		return -1;
	elfw_symbol_desc_t fd = { n->func, sec, at, a->unit_size, STB_WEAK, STT_FUNC,
	    STV_HIDDEN };
	elfw_symbol_desc_t ed = { n->enabled, sec, at + a->enabled_offset,
	    a->unit_size - a->enabled_offset, STB_WEAK, STT_FUNC, STV_HIDDEN };
	func_sym = elfw_add_symbol(u->w, &fd);
	elfw_add_symbol(u->w, &ed);
	if (g != 0)
		elfw_set_group_signature(u->w, g, func_sym);
	else
		u->pool_next++;
	if (!u->t->stapsdt)
		return 0;
	if (g != 0) {
		elfw_section_desc_t sd = { STAPSDT_SEMAPHORE_SECTION, SHT_PROGBITS,
		    SHF_ALLOC | SHF_WRITE, STAPSDT_SEMAPHORE_SIZE, 0, semaphore,
		    sizeof(semaphore), g };
		sec = elfw_add_section(u->w, &sd);
		at = 0;
	} else {
		sec = u->pool_sems;
		at = slot * STAPSDT_SEMAPHORE_SIZE;
	}
	elfw_symbol_desc_t ssd = { n->semaphore, sec, at, sizeof(semaphore),
	    STB_WEAK, STT_OBJECT, STV_HIDDEN };
	sem_sym = elfw_add_symbol(u->w, &ssd);
	if (u->stub_note != NULL && !u->stub_note(u->m, u->t, pr))
		return 0;
	return add_note(u, p, pr, n->func, func_sym, sem_sym);
}

/* The names -h and -G give a probe's group (model.h). */
int
units_add_probe_group(units_t *u, const mdl_provider_t *p, const mdl_probe_t *pr)
{
	char *func = mdl_probe_func(p->name, pr->dof_name);
	char *enabled = mdl_enabled_func(p->name, pr->dof_name);
	char *semaphore = mdl_semaphore_name(p->name, pr->name);
	units_names_t n = { func, enabled, semaphore };
	int rc = -1;

	if (func != NULL && enabled != NULL && semaphore != NULL)
		rc = units_add_probe_group_named(u, p, pr, &n);
	free(func);
	free(enabled);
	free(semaphore);
	return rc;
}

int
units_add_site_notes(units_t *u, const units_site_t *sites, size_t n)
{
	unsigned asz = address_size(u->t), abs = u->t->arch->reloc_abs64;
	strbuf_t bytes;
	size_t *pcs = calloc(n + 1, sizeof(size_t));
	int sec, rc = -1;

	sb_init(&bytes);
	for (size_t i = 0; pcs != NULL && i < n; i++) {
		size_t start = bytes.len;

		note_args_fn *args = sites[i].at_call ? u->t->arch->note_args_call :
		    u->t->arch->note_args_tail;

		pcs[i] = start + note_bytes(u, sites[i].p, sites[i].pr, args, &bytes);
	}
	if (n > 0 && pcs != NULL && !bytes.failed) {
		elfw_section_desc_t sd = { STAPSDT_NOTE_SECTION, SHT_NOTE, 0,
	    STAPSDT_NOTE_ALIGN, 0, bytes.data,
		    bytes.len, 0 };

		sec = elfw_add_section(u->w, &sd);
		rc = elfw_reserve(u->w, 0, sec, 3 * n);
		for (size_t i = 0; i < n && rc == 0; i++) {
			char *semaphore = mdl_semaphore_name(sites[i].p->name, sites[i].pr->name);

			if (semaphore == NULL) {
				rc = -1;
				break;
			}
			elfw_add_reloc(u->w, sec, pcs[i], abs, elfw_symbol_ref(u->w, sites[i].symbol),
			    (int64_t)sites[i].offset);
			elfw_add_reloc(u->w, sec, pcs[i] + STAPSDT_BASE * asz, abs, u->base_sym, 0);
			if (elfw_add_reloc(u->w, sec, pcs[i] + STAPSDT_SEMAPHORE * asz, abs,
			    elfw_symbol_ref(u->w, semaphore), 0) < 0)
				rc = -1;
			free(semaphore);
		}
	} else if (n == 0) {
		rc = 0;
	}
	sb_free(&bytes);
	free(pcs);
	return rc;
}

/*
 * One provider's DOF as the list of one (dof_bytes): its image grown by
 * the 8 zero bytes that end the list, not copied into a new buffer (at
 * 100,000 probes the copy was 11 MB more, and a buffer grown by doubling).
 * Its relocations lie where the image put them: the DOF starts at 0.
 */
static int
one_dof_listed(const mdl_model_t *m, const site_table_t *sites, const target_t *t,
    const dof_gen_opts_t *opts, dof_image_t *out, err_t *e)
{
	uint8_t *grown;

	if (dof_generate_opts(m, sites, t, opts, out, NULL, e) != 0)
		return -1;
	if ((grown = realloc(out->data, out->size + 8)) == NULL) {
		dof_image_free(out);
		return err_set(e, "out of memory building the DOF");
	}
	memset(grown + out->size, 0, 8);
	out->data = grown;
	out->size += 8;
	for (size_t k = 0; k < out->nrelocs; k++)
		out->relocs[k].dof_start = 0;
	return 0;
}

/*
 * The DOF bytes of the section: one DOF of the whole model, or (per_provider)
 * one DOF per provider, each at an 8-aligned offset, then 8 zero bytes that
 * end the list, relocations shifted to where each DOF lies.
 */
static int
dof_bytes(const mdl_model_t *m, const site_table_t *sites, const target_t *t,
    bool per_provider, const dof_gen_opts_t *opts, dof_image_t *out, err_t *e)
{
	static const uint8_t end[8];
	strbuf_t bytes;
	dof_reloc_t *relocs = NULL;
	size_t nrelocs = 0;

	if (!per_provider)
		return dof_generate_opts(m, sites, t, opts, out, NULL, e);
	if (m->nproviders == 1 && m->providers[0]->nprobes > 0)
		return one_dof_listed(m, sites, t, opts, out, e);
	sb_init(&bytes);
	for (size_t i = 0; i < m->nproviders; i++) {
		mdl_model_t one = *m;
		dof_image_t img;
		dof_reloc_t *grown;

		if (m->providers[i]->nprobes == 0)
			continue;	/* nothing to register */
		one.providers = &m->providers[i];
		one.nproviders = 1;
		one.provider_index = NULL;	/* positions of m's array */
		if (dof_generate_opts(&one, sites, t, opts, &img, NULL, e) != 0)
			goto fail;
		grown = realloc(relocs, (nrelocs + img.nrelocs + 1) * sizeof(*relocs));
		if (grown == NULL) {
			dof_image_free(&img);
			err_set(e, "out of memory building the DOF");
			goto fail;
		}
		relocs = grown;
		for (size_t k = 0; k < img.nrelocs; k++)
			relocs[nrelocs++] = (dof_reloc_t){ bytes.len + img.relocs[k].offset,
			    img.relocs[k].symbol, bytes.len };
		sb_append(&bytes, img.data, img.size);	/* img.size is a multiple of 8 */
		dof_image_free(&img);
	}
	sb_append(&bytes, end, sizeof(end));
	if (bytes.failed) {
		err_set(e, "out of memory building the DOF");
		goto fail;
	}
	*out = (dof_image_t){ (uint8_t *)bytes.data, bytes.len, relocs, nrelocs };
	return 0;
fail:
	sb_free(&bytes);
	free(relocs);
	return -1;
}

int
units_add_dof(units_t *u, const char *symbol, bool per_provider, err_t *e)
{
	return units_add_dof_sites(u, symbol, per_provider, NULL, e);
}

/*
 * The ELF relocation of one DOF probe address (target.h's dof_addr_reloc):
 * the absolute address; or, PC-relative, the address minus the u64's own
 * (FreeBSD's DOFREL) or minus the DOF's first byte (the addend puts the
 * u64's offset in its DOF back).
 */
static void
add_dof_reloc(units_t *u, int sec, enum dof_addr_reloc how, const dof_reloc_t *r)
{
	unsigned type = how == DOF_ADDR_ABS ? u->t->arch->reloc_abs64 : u->t->arch->reloc_pc64;
	int64_t addend = how == DOF_ADDR_DOFBASE ? (int64_t)(r->offset - r->dof_start) : 0;

	elfw_add_reloc(u->w, sec, r->offset, type, elfw_symbol_ref(u->w, r->symbol), addend);
}

/*
 * The readers' copy (units_add_dof_sites): one DOF of the model with only
 * its firing sites, each address absolute (DOF SETX), in a section that is
 * not loaded, named after its bytes so that each -G output's copy stays a
 * section of its own in the program.  Takes img; 0, or -1 with e set.
 */
static int
add_readers_copy(units_t *u, dof_image_t *img, err_t *e)
{
	char name[sizeof(DOF_ELF_READERS_SECTION) + 16];
	int sec;

	snprintf(name, sizeof(name), "%s%016llx", DOF_ELF_READERS_SECTION,
	    (unsigned long long)hash_bytes(HASH_FNV_OFFSET, img->data, img->size));
	elfw_section_desc_t sd = { name, SHT_SUNW_dof, 0, 8, 0, NULL, img->size, 0 };
	sec = elfw_adopt_section(u->w, &sd, img->data);	/* the builder's now */
	img->data = NULL;
	elfw_reserve(u->w, 0, sec, img->nrelocs);
	for (size_t i = 0; i < img->nrelocs; i++)
		add_dof_reloc(u, sec, DOF_ADDR_ABS, &img->relocs[i]);
	dof_image_free(img);	/* after: the relocations name the sites' symbols */
	if (sec < 0 && !elfw_failed(u->w, e))
		return err_set(e, "cannot add the readers' copy of the DOF");
	return sec < 0 ? -1 : 0;
}

void
units_dofs_free(units_dofs_t *d)
{
	dof_image_free(&d->copy);
	dof_image_free(&d->loaded);
	memset(d, 0, sizeof(*d));
}

int
units_make_dofs(units_t *u, bool per_provider, const site_table_t *sites,
    units_dofs_t *d, err_t *e)
{
	dof_gen_opts_t copy_opts = { .strip = u->strip, .firing_only = true, .final_addrs = true };
	dof_gen_opts_t opts = { .strip = u->strip };
	target_t t = *u->t;

	memset(d, 0, sizeof(*d));
	d->readers = target_dof_readers_copy(u->t, u->lazyload);
	t.dof_addr = DOF_ADDR_ABS;
	if (d->readers && dof_bytes(u->m, sites, &t, false, &copy_opts, &d->copy, e) != 0)
		return -1;
	t.dof_addr = target_dof_addr(u->t, u->lazyload);
	if (dof_bytes(u->m, sites, &t, per_provider, &opts, &d->loaded, e) != 0) {
		units_dofs_free(d);
		return -1;
	}
	return 0;
}

int
units_add_dofs(units_t *u, const char *symbol, units_dofs_t *d, err_t *e)
{
	dof_image_t *img = &d->loaded;
	enum dof_addr_reloc how = target_dof_addr(u->t, u->lazyload);
	int sec;

	if (d->readers && add_readers_copy(u, &d->copy, e) != 0) {
		units_dofs_free(d);
		return -1;
	}
	/* Writable: the relocated addresses then need no text relocation in a PIE. */
	elfw_section_desc_t sd = { DOF_ELF_SECTION, d->readers ? SHT_PROGBITS : SHT_SUNW_dof,
	    SHF_ALLOC | SHF_WRITE, 8, 0, NULL, img->size, 0 };
	sec = elfw_adopt_section(u->w, &sd, img->data);	/* the builder's now */
	img->data = NULL;
	elfw_symbol_desc_t sym = { symbol, sec, 0, img->size, STB_GLOBAL, STT_OBJECT,
	    STV_HIDDEN };
	elfw_add_symbol(u->w, &sym);
	elfw_reserve(u->w, 0, sec, img->nrelocs);
	for (size_t i = 0; i < img->nrelocs; i++)
		add_dof_reloc(u, sec, how, &img->relocs[i]);
	units_dofs_free(d);
	if (sec < 0 && !elfw_failed(u->w, e))
		return err_set(e, "cannot add the DOF section");
	return sec;
}

int
units_add_dof_sites(units_t *u, const char *symbol, bool per_provider,
    const site_table_t *sites, err_t *e)
{
	units_dofs_t d;

	if (units_make_dofs(u, per_provider, sites, &d, e) != 0)
		return -1;
	return units_add_dofs(u, symbol, &d, e);
}

int
units_add_semaphore_table(units_t *u)
{
	unsigned asz = address_size(u->t);
	size_t n = 0, k = 0;
	uint8_t *zeros;
	int sec, rc = 0;

	for (size_t i = 0; u->t->stapsdt && i < u->m->nproviders; i++)
		n += u->m->providers[i]->nprobes;
	if ((zeros = calloc(n + 1, asz)) == NULL)
		return -1;
	elfw_section_desc_t sd = { STAPSDT_SEMAPHORE_TABLE_SECTION, SHT_PROGBITS,
	    SHF_ALLOC | SHF_WRITE, asz, 0, zeros, (n + 1) * asz, 0 };
	sec = elfw_add_section(u->w, &sd);
	free(zeros);
	elfw_symbol_desc_t sym = { STAPSDT_SEMAPHORE_TABLE_SYMBOL, sec, 0, (n + 1) * asz,
	    STB_GLOBAL, STT_OBJECT, STV_HIDDEN };
	elfw_add_symbol(u->w, &sym);
	elfw_reserve(u->w, 0, sec, n);
	for (size_t i = 0; n > 0 && rc == 0 && i < u->m->nproviders; i++) {
		const mdl_provider_t *p = u->m->providers[i];

		for (size_t j = 0; rc == 0 && j < p->nprobes; j++) {
			char *name = mdl_semaphore_name(p->name, p->probes[j]->name);

			if (name == NULL || elfw_add_reloc(u->w, sec, k++ * asz,
			    u->t->arch->reloc_pc64, elfw_symbol_ref(u->w, name), 0) < 0)
				rc = -1;
			free(name);
		}
	}
	return sec < 0 ? -1 : rc;
}

/* ---- the semaphores' debug information (units_add_semaphore_dwarf) -------- */

/* The DWARF 4 codes written here (the DWARF 4 standard, section 7). */
enum {
	DW_TAG_compile_unit = 0x11, DW_TAG_base_type = 0x24, DW_TAG_variable = 0x34,
	DW_AT_location = 0x02, DW_AT_name = 0x03, DW_AT_byte_size = 0x0b,
	DW_AT_language = 0x13, DW_AT_producer = 0x25, DW_AT_encoding = 0x3e,
	DW_AT_external = 0x3f, DW_AT_type = 0x49,
	DW_FORM_string = 0x08, DW_FORM_data1 = 0x0b, DW_FORM_ref4 = 0x13,
	DW_FORM_exprloc = 0x18, DW_FORM_flag_present = 0x19,
	DW_ATE_unsigned = 0x07, DW_LANG_C99 = 0x0c, DW_OP_addr = 0x03,
};

/*
 * The abbreviations: 1 the unit (producer, language, name), 2 the base
 * type (name, encoding, size), 3 a variable (name, type, external,
 * location).  Every code and value is below 128: one ULEB128 byte each.
 */
static const unsigned char sem_abbrev[] = {
	1, DW_TAG_compile_unit, 1,
	DW_AT_producer, DW_FORM_string, DW_AT_language, DW_FORM_data1,
	DW_AT_name, DW_FORM_string, 0, 0,
	2, DW_TAG_base_type, 0,
	DW_AT_name, DW_FORM_string, DW_AT_encoding, DW_FORM_data1,
	DW_AT_byte_size, DW_FORM_data1, 0, 0,
	3, DW_TAG_variable, 0,
	DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4,
	DW_AT_external, DW_FORM_flag_present, DW_AT_location, DW_FORM_exprloc, 0, 0,
	0,
};

/* A little-endian word of n bytes (the ELF writer's order). */
static void
put_le(strbuf_t *sb, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sb_putc(sb, (char)(v >> (8 * i)));
}

/* One variable DIE for semaphore name; its DW_OP_addr's offset in *addr_at. */
static void
put_semaphore_die(strbuf_t *info, const char *name, uint32_t type_at, size_t *addr_at)
{
	sb_putc(info, 3);
	sb_append(info, name, strlen(name) + 1);
	put_le(info, type_at, 4);
	sb_putc(info, 1 + 8);	/* the expression: DW_OP_addr and 8 bytes */
	sb_putc(info, DW_OP_addr);
	*addr_at = info->len;
	put_le(info, 0, 8);
}

int
units_add_semaphore_dwarf(units_t *u)
{
	static const char type_name[] = "short unsigned int";
	const arch_t *a = u->t->arch;
	strbuf_t info;
	size_t n = 0, k = 0, *addr_at;
	uint32_t type_at;
	int abbrev_sec, info_sec, rc = 0;

	if (!u->t->stapsdt || address_size(u->t) != 8 || a->reloc_abs32 == 0)
		return 0;
	for (size_t i = 0; i < u->m->nproviders; i++)
		n += u->m->providers[i]->nprobes;
	if (n == 0)
		return 0;
	if ((addr_at = calloc(n, sizeof(*addr_at))) == NULL)
		return -1;
	sb_init(&info);
	put_le(&info, 0, 4);	/* unit_length, set below */
	put_le(&info, 4, 2);	/* version */
	put_le(&info, 0, 4);	/* .debug_abbrev offset: relocated */
	sb_putc(&info, 8);	/* address size */
	sb_putc(&info, 1);
	sb_puts(&info, "usdtc -G");
	sb_putc(&info, '\0');
	sb_putc(&info, DW_LANG_C99);
	sb_puts(&info, "<usdtc semaphores>");
	sb_putc(&info, '\0');
	type_at = (uint32_t)info.len;
	sb_putc(&info, 2);
	sb_append(&info, type_name, sizeof(type_name));
	sb_putc(&info, DW_ATE_unsigned);
	sb_putc(&info, STAPSDT_SEMAPHORE_SIZE);
	for (size_t i = 0; rc == 0 && i < u->m->nproviders; i++) {
		const mdl_provider_t *p = u->m->providers[i];

		for (size_t j = 0; rc == 0 && j < p->nprobes; j++) {
			char *name = mdl_semaphore_name(p->name, p->probes[j]->name);

			if (name == NULL)
				rc = -1;
			else
				put_semaphore_die(&info, name, type_at, &addr_at[k++]);
			free(name);
		}
	}
	sb_putc(&info, 0);	/* the unit's children end */
	if (rc == 0 && !info.failed) {
		uint32_t len = (uint32_t)info.len - 4;

		memcpy(info.data, &len, 4);	/* little-endian hosts and targets alike */
		elfw_section_desc_t ad = { ".debug_abbrev", SHT_PROGBITS, 0, 1, 0, sem_abbrev,
		    sizeof(sem_abbrev), 0 };
		elfw_section_desc_t id = { ".debug_info", SHT_PROGBITS, 0, 1, 0, NULL,
		    info.len, 0 };

		abbrev_sec = elfw_add_section(u->w, &ad);
		info_sec = elfw_adopt_section(u->w, &id, sb_steal(&info, NULL));	/* not copied */
		if (abbrev_sec < 0 || info_sec < 0 || elfw_reserve(u->w, 0, info_sec, n + 1) != 0 ||
		    elfw_add_reloc(u->w, info_sec, 6,
		    a->reloc_abs32, elfw_section_symbol(u->w, abbrev_sec), 0) < 0)
			rc = -1;
		k = 0;
		for (size_t i = 0; rc == 0 && i < u->m->nproviders; i++) {
			const mdl_provider_t *p = u->m->providers[i];

			for (size_t j = 0; rc == 0 && j < p->nprobes; j++, k++) {
				char *name = mdl_semaphore_name(p->name, p->probes[j]->name);

				if (name == NULL || elfw_add_reloc(u->w, info_sec, addr_at[k],
				    a->reloc_abs64, elfw_symbol_ref(u->w, name), 0) < 0)
					rc = -1;
				free(name);
			}
		}
	} else {
		rc = -1;
	}
	sb_free(&info);
	free(addr_at);
	return rc;
}
