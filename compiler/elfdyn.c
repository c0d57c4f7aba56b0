/*
 * elfdyn.c - the ET_DYN writer: a builder's description (elfwrite.h) as a
 * shared object that dlopen loads.  Only libusdt uses it, for the object
 * behind a run-time provider (libusdt/usdt_image.c); the builder and the
 * ET_REL writer -G uses are in elfwrite.c, the structures both writers
 * read in elfw_int.h.
 *
 * elfw_write_dyn lays the same description out as a shared object that the
 * dynamic linker loads with dlopen, the way a static linker would have:
 *
 *  - input sections merge into output sections by name (".text.X" goes to
 *    ".text", as ld does), type and flags; group membership is dropped;
 *  - three PT_LOAD segments, each starting on a page: read-only (the ELF
 *    and program headers, .hash, .dynsym, .dynstr and the read-only
 *    sections), read+execute (the code), read+write (writable data and
 *    .dynamic), so no page is ever writable and executable; then
 *    a PT_NOTE for each allocated note section (a build-id), and
 *    PT_GNU_PROPERTY for .note.gnu.property if there is one, PT_DYNAMIC,
 *    and PT_GNU_STACK without execute permission, without which the
 *    loader would make the thread stacks executable;
 *  - file offset equals address, so the object's link-time addresses are
 *    its offsets from the load base;
 *  - a dynamic symbol table with a SysV hash: every named global or weak
 *    defined symbol, with default visibility so that dlsym finds it (a
 *    hidden mark is a request to the static linker, which is not there);
 *  - no dynamic relocations: each relocation of the description must be
 *    the machine's absolute one (o->abs_reloc) and is resolved here to the
 *    link-time address.  Fields that hold addresses thus hold offsets from
 *    the load base, which is what their readers expect: DOF through its
 *    SETX relocations, stapsdt notes as any linked object has them;
 *  - non-allocated sections (stapsdt notes) and the section headers
 *    follow, so that tools reading the file find everything by name.
 *
 * Afterwards elfw_symbol_address gives each symbol's link-time address.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elfenc.h"
#include "elfw_int.h"
#include "elfwrite.h"

enum dyn_seg { SEG_R, SEG_X, SEG_W, SEG_NONE };

/* One output section. */
typedef struct dyn_sec {
	const char *name;
	uint32_t type;
	uint64_t flags;
	uint64_t align;
	uint64_t entsize;
	uint32_t link, info;	/* output section numbers */
	enum dyn_seg seg;
	uint64_t size;
	uint64_t offset;	/* in the file; also the address if allocated */
	Elf_Type dtype;
	void *data;		/* a layout buffer of size bytes */
} dyn_sec_t;

typedef struct dyn {
	elfw_t *w;
	const elfw_dyn_opts_t *o;
	layout_t l;		/* buffers and .shstrtab */
	dyn_sec_t *outs;	/* output section number n is outs[n - 1] */
	size_t nouts, outcap;
	size_t *in_out;		/* per input section: its output number */
	uint64_t *in_off;	/* per input section: its offset in that output */
	int *dsyms;		/* symbol handles in .dynsym order, from index 1 */
	size_t ndsyms;		/* .dynsym entries, the null symbol included */
	elfw_strtab_t dynstr;
	size_t soname;		/* .dynstr offset of the soname, 0 if none */
	size_t ndyn;		/* .dynamic entries */
	size_t hash, dynsym, dynstr_sec, dynamic;	/* output numbers */
	uint64_t page;
	uint64_t seg_lo[3], seg_hi[3];	/* file extent of each PT_LOAD */
	uint64_t shoff;
} dyn_t;

static size_t
dyn_fsize(const elfw_t *w, Elf_Type t)
{
	return w->elf_class == ELFCLASS64 ? elf64_fsize(t, 1, EV_CURRENT) :
	    elf32_fsize(t, 1, EV_CURRENT);
}

static uint64_t
align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

/* The output name of an input section: ld's rule for .text.* and friends. */
static const char *
dyn_output_name(const char *name)
{
	static const char *const merged[] = { ".text", ".rodata", ".data" };

	for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
		size_t n = strlen(merged[i]);

		if (strncmp(name, merged[i], n) == 0 && name[n] == '.')
			return merged[i];
	}
	return name;
}

static int
dyn_segment(const elfw_sec_t *s, enum dyn_seg *seg, err_t *e)
{
	if (!(s->flags & SHF_ALLOC))
		*seg = SEG_NONE;
	else if ((s->flags & SHF_WRITE) && (s->flags & SHF_EXECINSTR))
		return err_set(e, "ELF writer: section %s is writable and executable, "
		    "which a shared object here never is", s->name);
	else if (s->type == SHT_NOBITS)
		return err_set(e, "ELF writer: allocated SHT_NOBITS section %s is not "
		    "supported in a shared object", s->name);
	else
		*seg = (s->flags & SHF_EXECINSTR) ? SEG_X :
		    (s->flags & SHF_WRITE) ? SEG_W : SEG_R;
	return 0;
}

/* A new output section; its number (> 0), or 0 on allocation failure. */
static size_t
dyn_add_out(dyn_t *d, const char *name, uint32_t type, uint64_t flags,
    enum dyn_seg seg, Elf_Type dtype)
{
	dyn_sec_t o = { 0 };

	if (!elfw_grow(&d->outs, d->nouts, &d->outcap, sizeof(*d->outs)))
		return 0;
	o.name = name;
	o.type = type;
	o.flags = flags;
	o.align = 1;
	o.seg = seg;
	o.dtype = dtype;
	d->outs[d->nouts] = o;
	return ++d->nouts;
}

/* Put input section i into the output section it merges with. */
static int
dyn_place_input(dyn_t *d, size_t i, err_t *e)
{
	const elfw_sec_t *s = &d->w->secs[i];
	const char *name = dyn_output_name(s->name);
	uint64_t flags = s->flags & ~(uint64_t)SHF_GROUP;
	enum dyn_seg seg = SEG_NONE;
	size_t n = 0;
	dyn_sec_t *o;

	if (dyn_segment(s, &seg, e) != 0)
		return -1;
	for (size_t k = d->nouts; k > 0 && n == 0; k--)
		if (d->outs[k - 1].seg == seg && d->outs[k - 1].type == s->type &&
		    d->outs[k - 1].flags == flags && strcmp(d->outs[k - 1].name, name) == 0)
			n = k;
	if (n == 0 && (n = dyn_add_out(d, name, s->type, flags, seg, ELF_T_BYTE)) == 0)
		return err_errno(e, ENOMEM, "ELF writer");
	o = &d->outs[n - 1];
	if (s->align > o->align)
		o->align = s->align;
	if (s->entsize != 0 && (o->size == 0 || o->entsize == s->entsize))
		o->entsize = s->entsize;
	else
		o->entsize = 0;
	d->in_out[i] = n;
	d->in_off[i] = align_up(o->size, s->align);
	o->size = d->in_off[i] + s->size;
	return 0;
}

static int
dyn_place_segment(dyn_t *d, enum dyn_seg seg, err_t *e)
{
	for (size_t i = 0; i < d->w->nsecs; i++) {
		enum dyn_seg s = SEG_NONE;

		if (dyn_segment(&d->w->secs[i], &s, e) != 0)
			return -1;
		if (s == seg && dyn_place_input(d, i, e) != 0)
			return -1;
	}
	return 0;
}

static bool
dyn_exported(const elfw_t *w, const elfw_sym_t *s)
{
	return elfw_sym_name(w, s)[0] != '\0' && GELF_ST_BIND(s->info) != STB_LOCAL &&
	    s->section != ELFW_UNDEF;
}

/* Which symbols .dynsym holds, and the strings .dynstr holds. */
static int
dyn_choose_symbols(dyn_t *d, err_t *e)
{
	if ((d->dsyms = calloc(d->w->nsyms + 1, sizeof(int))) == NULL)
		return err_errno(e, ENOMEM, "ELF writer");
	d->ndsyms = 1;
	for (size_t i = 0; i < d->w->nsyms; i++) {
		if (!dyn_exported(d->w, &d->w->syms[i]))
			continue;
		d->dsyms[d->ndsyms++] = (int)i + 1;
		elfw_strtab_add(&d->dynstr, elfw_sym_name(d->w, &d->w->syms[i]));
	}
	if (d->o->soname != NULL && d->o->soname[0] != '\0')
		d->soname = elfw_strtab_add(&d->dynstr, d->o->soname);
	if (d->dynstr.failed || d->dynstr.bytes.failed)
		return err_errno(e, ENOMEM, "ELF writer");
	d->ndyn = 6 + (d->soname != 0);	/* HASH STRTAB SYMTAB STRSZ SYMENT [SONAME] NULL */
	return 0;
}

static size_t
dyn_nbuckets(size_t nsyms)
{
	return nsyms / 2 + 1;
}

/* Output sections in file order, with their sizes. */
static int
dyn_build_outputs(dyn_t *d, err_t *e)
{
	size_t word = dyn_fsize(d->w, ELF_T_WORD);

	if ((d->hash = dyn_add_out(d, ".hash", SHT_HASH, SHF_ALLOC, SEG_R, ELF_T_WORD)) == 0 ||
	    (d->dynsym = dyn_add_out(d, ".dynsym", SHT_DYNSYM, SHF_ALLOC, SEG_R, ELF_T_SYM)) == 0 ||
	    (d->dynstr_sec = dyn_add_out(d, ".dynstr", SHT_STRTAB, SHF_ALLOC, SEG_R,
	    ELF_T_BYTE)) == 0)
		return err_errno(e, ENOMEM, "ELF writer");
	d->outs[d->hash - 1].size = (2 + dyn_nbuckets(d->ndsyms) + d->ndsyms) * word;
	d->outs[d->hash - 1].align = word;
	d->outs[d->hash - 1].entsize = word;
	d->outs[d->hash - 1].link = (uint32_t)d->dynsym;
	d->outs[d->dynsym - 1].size = d->ndsyms * dyn_fsize(d->w, ELF_T_SYM);
	d->outs[d->dynsym - 1].align = elfenc_addr_size(d->w->elf_class);
	d->outs[d->dynsym - 1].entsize = dyn_fsize(d->w, ELF_T_SYM);
	d->outs[d->dynsym - 1].link = (uint32_t)d->dynstr_sec;
	d->outs[d->dynsym - 1].info = 1;	/* no local symbols */
	d->outs[d->dynstr_sec - 1].size = d->dynstr.bytes.len;
	if (dyn_place_segment(d, SEG_R, e) != 0 || dyn_place_segment(d, SEG_X, e) != 0 ||
	    dyn_place_segment(d, SEG_W, e) != 0)
		return -1;
	if ((d->dynamic = dyn_add_out(d, ".dynamic", SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE,
	    SEG_W, ELF_T_DYN)) == 0)
		return err_errno(e, ENOMEM, "ELF writer");
	d->outs[d->dynamic - 1].size = d->ndyn * dyn_fsize(d->w, ELF_T_DYN);
	d->outs[d->dynamic - 1].align = elfenc_addr_size(d->w->elf_class);
	d->outs[d->dynamic - 1].entsize = dyn_fsize(d->w, ELF_T_DYN);
	d->outs[d->dynamic - 1].link = (uint32_t)d->dynstr_sec;
	if (dyn_place_segment(d, SEG_NONE, e) != 0)
		return -1;
	if (dyn_add_out(d, ".shstrtab", SHT_STRTAB, 0, SEG_NONE, ELF_T_BYTE) == 0)
		return err_errno(e, ENOMEM, "ELF writer");
	if (d->nouts + 1 >= SHN_LORESERVE)
		return err_set(e, "ELF writer: too many sections for a shared object");
	return 0;
}

/* Allocated note sections: each gets a PT_NOTE (a build-id, say). */
static size_t
dyn_nnotes(const dyn_t *d)
{
	size_t n = 0;

	for (size_t k = 0; k < d->nouts; k++)
		n += d->outs[k].type == SHT_NOTE && d->outs[k].seg != SEG_NONE;
	return n;
}

/* The .note.gnu.property section, which also gets PT_GNU_PROPERTY; or NULL. */
static const dyn_sec_t *
dyn_property(const dyn_t *d)
{
	for (size_t k = 0; k < d->nouts; k++)
		if (d->outs[k].type == SHT_NOTE && d->outs[k].seg != SEG_NONE &&
		    strcmp(d->outs[k].name, ".note.gnu.property") == 0)
			return &d->outs[k];
	return NULL;
}

/*
 * Number of program headers: the non-empty PT_LOADs, one PT_NOTE per
 * allocated note section, PT_GNU_PROPERTY for the property note (the
 * loader reads control-flow protection bits there), DYNAMIC, GNU_STACK.
 */
static size_t
dyn_nphdrs(const dyn_t *d)
{
	size_t n = 2 + dyn_nnotes(d) + (dyn_property(d) != NULL);

	for (int s = SEG_R; s <= SEG_W; s++)
		n += d->seg_hi[s] > d->seg_lo[s] || s == SEG_R;
	return n;
}

/*
 * File offsets (= addresses): headers, then each segment from a fresh page.
 * .shstrtab is sized here, once every name is in it.
 */
static int
dyn_layout(dyn_t *d, err_t *e)
{
	dyn_sec_t *shstr = &d->outs[d->nouts - 1];
	/* At most: 3 PT_LOADs, the notes, PROPERTY, DYNAMIC, GNU_STACK; the unused tail is never written. */
	size_t nph = 6 + dyn_nnotes(d);
	uint64_t off = dyn_fsize(d->w, ELF_T_EHDR) + nph * dyn_fsize(d->w, ELF_T_PHDR);
	int seg = SEG_R;

	for (size_t k = 0; k < d->nouts; k++)
		elfw_strtab_add(&d->l.shstrs, d->outs[k].name);
	if (d->l.shstrs.failed || d->l.shstrs.bytes.failed)
		return err_errno(e, ENOMEM, "ELF writer");
	shstr->size = d->l.shstrs.bytes.len;
	d->seg_lo[SEG_R] = 0;
	for (size_t k = 0; k < d->nouts; k++) {
		dyn_sec_t *o = &d->outs[k];

		if ((int)o->seg != seg && o->seg != SEG_NONE) {
			d->seg_hi[seg] = off;
			seg = o->seg;
			off = align_up(off, d->page);
			d->seg_lo[seg] = off;
		} else if (o->seg == SEG_NONE && seg != SEG_NONE) {
			d->seg_hi[seg] = off;
			seg = SEG_NONE;
		}
		off = align_up(off, o->align);
		o->offset = off;
		off += o->size;
	}
	if (seg != SEG_NONE)
		d->seg_hi[seg] = off;
	d->shoff = align_up(off, 8);
	return 0;
}

static uint64_t
dyn_symbol_value(const elfw_t *w, const elfw_sym_t *s)
{
	if (s->section == ELFW_ABS || s->section == ELFW_UNDEF)
		return elfw_sym_value(w, s);
	return w->secs[s->section - 1].addr + elfw_sym_value(w, s);
}

/*
 * An output section made of exactly one input section with bytes is
 * written from the builder's own copy (relocations are then resolved in
 * it), not copied into a buffer of its own: the run-time provider's .text,
 * notes and DOF are one input each, and for large providers copying them
 * cost as much as building them.  -1 on ENOMEM.
 */
static int
dyn_borrow_inputs(dyn_t *d)
{
	size_t *inputs = calloc(d->nouts + 1, sizeof(size_t));

	if (inputs == NULL)
		return -1;
	for (size_t i = 0; i < d->w->nsecs; i++)
		inputs[d->in_out[i] - 1]++;
	for (size_t i = 0; i < d->w->nsecs; i++) {
		elfw_sec_t *s = &d->w->secs[i];
		dyn_sec_t *o = &d->outs[d->in_out[i] - 1];

		if (inputs[d->in_out[i] - 1] == 1 && s->data != NULL && s->size == o->size)
			o->data = s->data;
	}
	free(inputs);
	return 0;
}

/* Copy every input section into its output and resolve its relocations. */
static int
dyn_fill_inputs(dyn_t *d, err_t *e)
{
	unsigned width = elfenc_addr_size(d->w->elf_class);

	if (dyn_borrow_inputs(d) != 0)
		return err_errno(e, ENOMEM, "ELF writer");
	for (size_t k = 0; k < d->nouts; k++)
		if (d->outs[k].data == NULL &&
		    (d->outs[k].data = elfw_layout_buffer(&d->l, d->outs[k].size)) == NULL)
			return err_errno(e, ENOMEM, "ELF writer");
	for (size_t i = 0; i < d->w->nsecs; i++) {
		elfw_sec_t *s = &d->w->secs[i];
		dyn_sec_t *o = &d->outs[d->in_out[i] - 1];

		s->addr = o->seg == SEG_NONE ? 0 : o->offset + d->in_off[i];
		if (s->data != NULL && o->data != s->data)
			memcpy((char *)o->data + d->in_off[i], s->data, s->size);
	}
	for (size_t i = 0; i < d->w->nsecs; i++) {
		const elfw_sec_t *s = &d->w->secs[i];
		char *base = (char *)d->outs[d->in_out[i] - 1].data + d->in_off[i];

		for (size_t r = 0; r < s->nrels; r++) {
			const elfw_rel_t *rel = &s->rels[r];
			const elfw_sym_t *sym = rel->symbol ? &d->w->syms[rel->symbol - 1] : NULL;
			uint64_t v;
			uint32_t v32;

			if (rel->type != d->o->abs_reloc)
				return err_set(e, "ELF writer: relocation type %u in %s cannot be "
				    "resolved in a shared object", rel->type, s->name);
			if (sym != NULL && sym->section == ELFW_UNDEF)
				return err_set(e, "ELF writer: %s refers to %s, which the shared "
				    "object does not define", s->name, elfw_sym_name(d->w, sym));
			if (rel->offset > s->size || s->size - rel->offset < width)
				return err_set(e, "ELF writer: relocation past the end of %s", s->name);
			v = (sym ? dyn_symbol_value(d->w, sym) : 0) + (uint64_t)rel->addend;
			v32 = (uint32_t)v;
			memcpy(base + rel->offset, width == 8 ? (void *)&v : (void *)&v32, width);
		}
	}
	return 0;
}

static size_t
dyn_symbol_section(const dyn_t *d, const elfw_sym_t *s)
{
	if (s->section == ELFW_ABS)
		return SHN_ABS;
	return d->in_out[s->section - 1];
}

/* .dynsym, .dynstr and .hash. */
static int
dyn_fill_symbols(dyn_t *d, Elf_Data *symdata, err_t *e)
{
	size_t nb = dyn_nbuckets(d->ndsyms);
	uint32_t *words = d->outs[d->hash - 1].data;
	uint32_t *buckets = words + 2, *chains = words + 2 + nb;

	memcpy(d->outs[d->dynstr_sec - 1].data, d->dynstr.bytes.data, d->dynstr.bytes.len);
	words[0] = (uint32_t)nb;
	words[1] = (uint32_t)d->ndsyms;
	for (size_t i = 1; i < d->ndsyms; i++) {
		const elfw_sym_t *s = &d->w->syms[d->dsyms[i] - 1];
		GElf_Sym sym = { 0 };
		const char *name = elfw_sym_name(d->w, s);
		size_t b = elf_hash(name) % nb;

		sym.st_name = (GElf_Word)elfw_strtab_add(&d->dynstr, name);
		sym.st_info = s->info;
		sym.st_other = STV_DEFAULT;
		sym.st_shndx = (GElf_Section)dyn_symbol_section(d, s);
		sym.st_value = dyn_symbol_value(d->w, s);
		sym.st_size = elfw_sym_size(d->w, s);
		if (gelf_update_sym(symdata, (int)i, &sym) == 0)
			return err_libelf(e, "ELF writer", "gelf_update_sym");
		/* Prepend to the bucket's chain. */
		chains[i] = buckets[b];
		buckets[b] = (uint32_t)i;
	}
	return 0;
}

static int
dyn_fill_dynamic(dyn_t *d, Elf_Data *dyndata, err_t *e)
{
	GElf_Dyn ents[7];
	size_t n = 0;

	ents[n++] = (GElf_Dyn){ DT_HASH, { d->outs[d->hash - 1].offset } };
	ents[n++] = (GElf_Dyn){ DT_STRTAB, { d->outs[d->dynstr_sec - 1].offset } };
	ents[n++] = (GElf_Dyn){ DT_SYMTAB, { d->outs[d->dynsym - 1].offset } };
	ents[n++] = (GElf_Dyn){ DT_STRSZ, { d->dynstr.bytes.len } };
	ents[n++] = (GElf_Dyn){ DT_SYMENT, { dyn_fsize(d->w, ELF_T_SYM) } };
	if (d->soname != 0)
		ents[n++] = (GElf_Dyn){ DT_SONAME, { d->soname } };
	ents[n++] = (GElf_Dyn){ DT_NULL, { 0 } };
	for (size_t i = 0; i < n; i++)
		if (gelf_update_dyn(dyndata, (int)i, &ents[i]) == 0)
			return err_libelf(e, "ELF writer", "gelf_update_dyn");
	return 0;
}

static int
dyn_emit_phdrs(dyn_t *d, Elf *elf, err_t *e)
{
	static const unsigned flags[3] = { PF_R, PF_R | PF_X, PF_R | PF_W };
	const dyn_sec_t *dynamic = &d->outs[d->dynamic - 1], *prop;
	size_t n = 0, nph = dyn_nphdrs(d);
	GElf_Phdr ph;

	if (gelf_newphdr(elf, nph) == NULL)
		return err_libelf(e, "ELF writer", "gelf_newphdr");
	for (int s = SEG_R; s <= SEG_W; s++) {
		if (d->seg_hi[s] <= d->seg_lo[s] && s != SEG_R)
			continue;
		ph = (GElf_Phdr){ PT_LOAD, flags[s], d->seg_lo[s], d->seg_lo[s],
		    d->seg_lo[s], d->seg_hi[s] - d->seg_lo[s], d->seg_hi[s] - d->seg_lo[s],
		    d->page };
		if (gelf_update_phdr(elf, (int)n++, &ph) == 0)
			return err_libelf(e, "ELF writer", "gelf_update_phdr");
	}
	for (size_t k = 0; k < d->nouts; k++) {
		const dyn_sec_t *o = &d->outs[k];

		if (o->type != SHT_NOTE || o->seg == SEG_NONE)
			continue;
		ph = (GElf_Phdr){ PT_NOTE, PF_R, o->offset, o->offset, o->offset,
		    o->size, o->size, o->align };
		if (gelf_update_phdr(elf, (int)n++, &ph) == 0)
			return err_libelf(e, "ELF writer", "gelf_update_phdr");
	}
	if ((prop = dyn_property(d)) != NULL) {
		ph = (GElf_Phdr){ PT_GNU_PROPERTY, PF_R, prop->offset, prop->offset,
		    prop->offset, prop->size, prop->size, prop->align };
		if (gelf_update_phdr(elf, (int)n++, &ph) == 0)
			return err_libelf(e, "ELF writer", "gelf_update_phdr");
	}
	ph = (GElf_Phdr){ PT_DYNAMIC, PF_R | PF_W, dynamic->offset, dynamic->offset,
	    dynamic->offset, dynamic->size, dynamic->size, dynamic->align };
	if (gelf_update_phdr(elf, (int)n++, &ph) == 0)
		return err_libelf(e, "ELF writer", "gelf_update_phdr");
	ph = (GElf_Phdr){ PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0, 16 };
	if (gelf_update_phdr(elf, (int)n++, &ph) == 0)
		return err_libelf(e, "ELF writer", "gelf_update_phdr");
	return 0;
}

static int
dyn_emit_header(dyn_t *d, Elf *elf, err_t *e)
{
	GElf_Ehdr eh;

	if (gelf_newehdr(elf, (int)d->w->elf_class) == NULL)
		return err_libelf(e, "ELF writer", "gelf_newehdr");
	if (gelf_getehdr(elf, &eh) == NULL)
		return err_libelf(e, "ELF writer", "gelf_getehdr");
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_DYN;
	eh.e_machine = (GElf_Half)d->w->machine;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = dyn_fsize(d->w, ELF_T_EHDR);
	eh.e_shoff = d->shoff;
	eh.e_shstrndx = (GElf_Half)d->nouts;
	if (gelf_update_ehdr(elf, &eh) == 0)
		return err_libelf(e, "ELF writer", "gelf_update_ehdr");
	return dyn_emit_phdrs(d, elf, e);
}

/* One output section, at the offset the layout gave it. */
static Elf_Data *
dyn_emit_section(dyn_t *d, Elf *elf, const dyn_sec_t *o, err_t *e)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *data;
	GElf_Shdr sh = { 0 };

	if (scn == NULL || (data = elf_newdata(scn)) == NULL) {
		err_libelf(e, "ELF writer", scn ? "elf_newdata" : "elf_newscn");
		return NULL;
	}
	data->d_buf = o->data;
	data->d_size = o->size;
	data->d_type = o->dtype;
	data->d_align = o->align;
	data->d_off = 0;
	data->d_version = EV_CURRENT;
	sh.sh_name = (GElf_Word)elfw_strtab_add(&d->l.shstrs, o->name);
	sh.sh_type = o->type;
	sh.sh_flags = o->flags;
	sh.sh_addr = o->seg == SEG_NONE ? 0 : o->offset;
	sh.sh_offset = o->offset;
	sh.sh_size = o->size;
	sh.sh_link = o->link;
	sh.sh_info = o->info;
	sh.sh_addralign = o->align;
	sh.sh_entsize = o->entsize;
	if (gelf_update_shdr(scn, &sh) == 0) {
		err_libelf(e, "ELF writer", "gelf_update_shdr");
		return NULL;
	}
	return data;
}

static int
dyn_emit_file(dyn_t *d, int fd, err_t *e)
{
	Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf_Data *symdata = NULL, *dyndata = NULL;
	int rc = -1;

	if (elf == NULL)
		return err_libelf(e, "ELF writer", "elf_begin");
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	if (dyn_emit_header(d, elf, e) != 0)
		goto out;
	memcpy(d->outs[d->nouts - 1].data, d->l.shstrs.bytes.data, d->l.shstrs.bytes.len);
	for (size_t k = 0; k < d->nouts; k++) {
		Elf_Data *data = dyn_emit_section(d, elf, &d->outs[k], e);

		if (data == NULL)
			goto out;
		if (k + 1 == d->dynsym)
			symdata = data;
		else if (k + 1 == d->dynamic)
			dyndata = data;
	}
	if (dyn_fill_symbols(d, symdata, e) != 0 || dyn_fill_dynamic(d, dyndata, e) != 0)
		goto out;
	if (elfw_update(d->w, elf, e) != 0)
		goto out;
	rc = 0;
out:
	elf_end(elf);
	return rc;
}

static void
dyn_free(dyn_t *d)
{
	elfw_layout_free(&d->l);
	elfw_strtab_free(&d->dynstr);
	free(d->outs);
	free(d->in_out);
	free(d->in_off);
	free(d->dsyms);
}

int
elfw_write_dyn(elfw_t *w, int fd, const elfw_dyn_opts_t *o, err_t *e)
{
	dyn_t d = { 0 };
	int rc = -1;

	if (elfw_failed(w, e))
		return -1;
	d.w = w;
	d.o = o;
	d.page = o->page_size ? o->page_size : 4096;
	if ((d.page & (d.page - 1)) != 0)
		return err_set(e, "ELF writer: page size %llu is not a power of two",
		    (unsigned long long)d.page);
	elfw_strtab_init(&d.l.strs);
	elfw_strtab_init(&d.l.shstrs);
	elfw_strtab_init(&d.dynstr);
	d.in_out = calloc(w->nsecs + 1, sizeof(size_t));
	d.in_off = calloc(w->nsecs + 1, sizeof(uint64_t));
	if (d.in_out == NULL || d.in_off == NULL)
		err_errno(e, ENOMEM, "ELF writer");
	else if (dyn_choose_symbols(&d, e) == 0 && dyn_build_outputs(&d, e) == 0 &&
	    dyn_layout(&d, e) == 0 && dyn_fill_inputs(&d, e) == 0)
		rc = dyn_emit_file(&d, fd, e);
	dyn_free(&d);
	return rc;
}

uint64_t
elfw_symbol_address(const elfw_t *w, int symbol)
{
	if (!elfw_valid_symbol(w, symbol))
		return 0;
	return dyn_symbol_value(w, &w->syms[symbol - 1]);
}
