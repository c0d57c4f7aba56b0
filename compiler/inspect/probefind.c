/*
 * probefind.c - the DOF and stapsdt notes of a file, found and decoded
 * (probefind.h); list.c prints them for --list and --dump.
 *
 * A file is recognised by its first bytes (magic.h), then read whole: an
 * ELF file of any type and class (through libelf), a 64-bit Mach-O file,
 * or a raw DOF image such as the one drti_lite hands to the helper device.
 *
 * DOF.  Every section named .SUNW_dof (or typed SHT_SUNW_dof) is copied and
 * walked: a linked program holds one DOF per -G object, concatenated by the
 * linker, each starting at an 8-aligned offset, with zero padding between
 * them that we skip.  Before decoding, the copy gets what a loader would
 * put there: in an executable or shared library, dynamic relocations
 * (RELATIVE, 64-bit absolute, GLOB_DAT) that land in the section are
 * applied, because a PIE link may leave the section bytes zero and keep
 * the addresses only in .rela.dyn.  In a relocatable object nothing is
 * applied; instead the section's relocations are collected, so each probe
 * record can show the symbol its address is relocated against (from
 * .rela.SUNW_dof, whose entries, like those of the notes, must be the
 * machine's 64-bit address relocations: R_X86_64_64 or GLOB_DAT,
 * R_AARCH64_ABS64 or GLOB_DAT).  Then the consumer's rule for a load base,
 * when one is given: a record with a DOF SETX relocation whose address is
 * <= base gets base added.
 *
 * Mach-O.  A 64-bit Mach-O file (macho_read.c) has its DOF in every
 * section of type S_DTRACE_DOF, the sections dyld registers.  macOS gives
 * the kernel each such section's address as the base of all its probes
 * (dofpr_addr is not used), so in a linked image each record gets that
 * base as its address.  In an object, the relocation pairs that make the
 * PROFFS/PRENOFFS entries relative (macho_dof_relocs) are checked and
 * kept, one per record.  Mach-O files have no stapsdt notes.
 *
 * Notes.  Every SHT_NOTE section named .note.stapsdt (an object has one per
 * COMDAT group) is decoded; in a relocatable object the relocations of the
 * pc, base and semaphore fields are kept with each note.
 *
 * Everything found points into copies this file keeps (probefind_found_t.keep)
 * until probefind_found_free.  Errors name the file and the section; libelf
 * failures name the call and elf_errmsg(-1) (err_libelf).  elf_end runs
 * on every path.  Nothing here prints.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode.h"
#include "dof.h"
#include "fileio.h"
#include "macho_read.h"
#include "magic.h"
#include "probefind.h"
#include "stapsdt.h"
#include "target.h"

/* A section walked for DOF: a copy of its bytes, and its relocations. */
typedef struct probefind_section {
	struct probefind_section *next;
	char *where;
	uint8_t *bytes;
	size_t len;
	probefind_rels_t rels;
	bool readers_copy;	/* a section not loaded (probefind_dof_t) */
} probefind_section_t;

/* What a probefind_found_t points into, freed with it. */
struct probefind_keep {
	uint8_t *image;		/* the file, as libelf and the decoders saw it */
	Elf *elf;
	probefind_section_t *sections;
};

typedef struct finder {
	probefind_found_t *out;
	uint64_t base;		/* the consumer's load base, or 0 */
	const char *name;	/* for messages */
	err_t *e;
	Elf *elf;
	GElf_Ehdr eh;
	size_t shstrndx;
	size_t *relsecs;	/* indices of the REL/RELA sections */
	size_t nrelsecs;
	bool macho;		/* a Mach-O file: eh.e_type says object or image */
	uint64_t dof_addr;	/* Mach-O image, linked ELF: address of the section walked */
	size_t xndx_of;		/* the symbol table xndx belongs to, 0 if none looked up */
	Elf_Data *xndx;		/* its SHT_SYMTAB_SHNDX data, or NULL */
} finder_t;

/* A copy of a section's bytes to walk, kept until the results are freed. */
static probefind_section_t *
add_section(finder_t *L, const char *where, const void *bytes, size_t len)
{
	probefind_section_t *s = calloc(1, sizeof(*s));

	if (s == NULL || (s->where = strdup(where)) == NULL ||
	    (s->bytes = malloc(len ? len : 1)) == NULL) {
		if (s != NULL)
			free(s->where);
		free(s);
		err_set(L->e, "%s: out of memory copying %s", L->name, where);
		return NULL;
	}
	memcpy(s->bytes, bytes, len);
	s->len = len;
	s->next = L->out->keep->sections;
	L->out->keep->sections = s;
	return s;
}

/* One decoded DOF more; d is the results' own afterwards. */
static int
add_dof(finder_t *L, const dof_decoded_t *d, const probefind_section_t *sec, uint64_t off)
{
	probefind_found_t *f = L->out;
	probefind_dof_t *v = realloc(f->dofs, (f->ndofs + 1) * sizeof(*v));

	if (v == NULL)
		return err_set(L->e, "%s: out of memory reading DOF", L->name);
	f->dofs = v;
	v[f->ndofs++] = (probefind_dof_t){ *d, sec->where, off, &sec->rels, sec->readers_copy };
	return 0;
}

/* ---- relocations ----------------------------------------------------- */

/*
 * Every DOF record and note looks its relocation up by offset, so a set is
 * sorted by offset once it is complete (relset_sort) and searched by
 * halves: n log n for a section of n records, not n squared.  Of several
 * relocations at one offset the first one read is the one found, as a
 * reader going through them in order would find it.
 */
const probefind_rel_t *
probefind_rels_find(const probefind_rels_t *rs, uint64_t off)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rs->n && rs->v[lo].off == off ? &rs->v[lo] : NULL;
}

/* A relocation's place in a set being sorted: its offset and position read. */
typedef struct rel_pos {
	uint64_t off;
	size_t i;
} rel_pos_t;

static int
cmp_rel_pos(const void *a, const void *b)
{
	const rel_pos_t *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort a complete set by offset, keeping the order read among equal ones. */
static int
relset_sort(finder_t *L, probefind_rels_t *rs)
{
	rel_pos_t *pos = malloc((rs->n ? rs->n : 1) * sizeof(*pos));
	probefind_rel_t *v = malloc((rs->n ? rs->n : 1) * sizeof(*v));

	if (pos == NULL || v == NULL) {
		free(pos);
		free(v);
		return err_set(L->e, "%s: out of memory reading relocations", L->name);
	}
	for (size_t i = 0; i < rs->n; i++)
		pos[i] = (rel_pos_t){ rs->v[i].off, i };
	qsort(pos, rs->n, sizeof(*pos), cmp_rel_pos);
	for (size_t i = 0; i < rs->n; i++)
		v[i] = rs->v[pos[i].i];
	free(pos);
	free(rs->v);
	rs->v = v;
	return 0;
}

static const char *
section_name(finder_t *L, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(L->elf, ndx);
	GElf_Shdr sh;
	const char *n;

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
		return "";
	n = elf_strptr(L->elf, L->shstrndx, sh.sh_name);
	return n != NULL ? n : "";
}

/*
 * The section index of symbol i of the table in section symndx: st_shndx,
 * or with extended section numbering (SHN_XINDEX) the table's
 * SHT_SYMTAB_SHNDX entry, found once per table.
 */
static size_t
symbol_section(finder_t *L, size_t symndx, Elf_Data *syms, size_t i, const GElf_Sym *sym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf32_Word x = 0;

	if (sym->st_shndx != SHN_XINDEX)
		return sym->st_shndx;
	if (L->xndx_of != symndx) {
		L->xndx_of = symndx;
		L->xndx = NULL;
		while (L->xndx == NULL && (scn = elf_nextscn(L->elf, scn)) != NULL)
			if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB_SHNDX &&
			    sh.sh_link == symndx)
				L->xndx = elf_getdata(scn, NULL);
	}
	if (L->xndx == NULL || gelf_getsymshndx(syms, L->xndx, (int)i, &s, &x) == NULL)
		return 0;
	return x;
}

/* The name of symbol i of the table in section symndx (section symbols: their section). */
static const char *
symbol_name(finder_t *L, size_t symndx, size_t i, GElf_Sym *symp)
{
	Elf_Scn *scn = elf_getscn(L->elf, symndx);
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym sym;
	const char *n;

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL ||
	    (d = elf_getdata(scn, NULL)) == NULL ||
	    gelf_getsym(d, (int)i, &sym) == NULL)
		return NULL;
	if (symp != NULL)
		*symp = sym;
	if (GELF_ST_TYPE(sym.st_info) == STT_SECTION)
		return section_name(L, symbol_section(L, symndx, d, i, &sym));
	n = elf_strptr(L->elf, sh.sh_link, sym.st_name);
	return n != NULL ? n : "";
}

static int
relset_add(finder_t *L, probefind_rels_t *rs, const probefind_rel_t *r)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		probefind_rel_t *v = realloc(rs->v, cap * sizeof(*v));

		if (v == NULL)
			return err_set(L->e, "%s: out of memory reading relocations", L->name);
		rs->v = v;
		rs->cap = cap;
	}
	rs->v[rs->n++] = *r;
	return 0;
}

/* Note the REL/RELA sections once: an object may have thousands of sections. */
static int
find_reloc_sections(finder_t *L)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
		GElf_Shdr sh;
		size_t *v;

		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(L->e, L->name, "gelf_getshdr");
		if (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)
			continue;
		if ((v = realloc(L->relsecs, (L->nrelsecs + 1) * sizeof(*v))) == NULL)
			return err_set(L->e, "%s: out of memory reading sections", L->name);
		L->relsecs = v;
		v[L->nrelsecs++] = elf_ndxscn(scn);
	}
	return 0;
}

static int dynamic_reloc_kind(unsigned machine, unsigned type);

/*
 * Whether a relocation of a relocatable object can fill an address field
 * of a DOF or a note: a 64-bit absolute (symbol + addend) relocation of
 * the machine, whatever the target (R_X86_64_64, the R_X86_64_GLOB_DAT
 * Oracle's dtrace writes, R_AARCH64_ABS64), or the 64-bit PC-relative one
 * of the FreeBSD and illumos targets' DOF (R_X86_64_PC64, as FreeBSD's
 * dtrace -G writes).  Machines we do not know are taken on trust.
 */
static bool
is_address_reloc(unsigned machine, unsigned type)
{
	const arch_t *a = target_arch_for_machine(machine);

	switch (machine) {
	case EM_X86_64:
	case EM_AARCH64:
		return dynamic_reloc_kind(machine, type) == 2 || (a != NULL && type == a->reloc_pc64);
	default:
		return true;
	}
}

/* Every REL/RELA entry of a relocatable object that applies to section target. */
static int
collect_relocs(finder_t *L, size_t target, probefind_rels_t *rs)
{
	memset(rs, 0, sizeof(*rs));
	for (size_t k = 0; k < L->nrelsecs; k++) {
		Elf_Scn *scn = elf_getscn(L->elf, L->relsecs[k]);
		GElf_Shdr sh;
		Elf_Data *d;
		bool rela;

		if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(L->e, L->name, "gelf_getshdr");
		if ((sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || sh.sh_info != target)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL)
			continue;
		rela = sh.sh_type == SHT_RELA;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			probefind_rel_t r = { 0, NULL, 0, NULL };
			GElf_Rela ra;
			GElf_Rel rl;

			if (rela ? gelf_getrela(d, (int)i, &ra) == NULL :
			    gelf_getrel(d, (int)i, &rl) == NULL)
				return err_libelf(L->e, L->name, rela ? "gelf_getrela" : "gelf_getrel");
			if (!rela) {
				ra.r_offset = rl.r_offset;
				ra.r_info = rl.r_info;
				ra.r_addend = 0;
			}
			if (GELF_R_TYPE(ra.r_info) == 0)
				continue;	/* R_*_NONE: no relocation */
			if (!is_address_reloc(L->eh.e_machine, (unsigned)GELF_R_TYPE(ra.r_info)))
				return err_set(L->e, "%s: %s+0x%" PRIx64 ": relocation type %u is not a "
				    "64-bit address relocation of ELF machine %u", L->name,
				    section_name(L, target), (uint64_t)ra.r_offset,
				    (unsigned)GELF_R_TYPE(ra.r_info), (unsigned)L->eh.e_machine);
			r.off = ra.r_offset;
			r.addend = ra.r_addend;
			r.sym = GELF_R_SYM(ra.r_info) == 0 ? "" :
			    symbol_name(L, sh.sh_link, GELF_R_SYM(ra.r_info), NULL);
			if (r.sym == NULL)
				r.sym = "?";
			if (relset_add(L, rs, &r) != 0)
				return -1;
		}
	}
	return relset_sort(L, rs);
}

/*
 * 0: not an address relocation; 1: base-relative (addend); 2: symbol +
 * addend; 3: symbol + addend - place (a DOFREL address against a symbol a
 * shared library exports: the loader resolves it).
 */
static int
dynamic_reloc_kind(unsigned machine, unsigned type)
{
	const arch_t *a = target_arch_for_machine(machine);

	if (a == NULL)
		return 0;
	if (type == a->reloc_relative)
		return 1;
	if (type == a->reloc_abs64 || type == a->reloc_glob_dat)
		return 2;
	if (type == a->reloc_pc64)
		return 3;
	return 0;
}

/*
 * In an executable or shared library, write into buf (a copy of the
 * section at sh) the link-time value of every dynamic relocation that
 * lands in it.
 */
static int
apply_dynamic_relocs(finder_t *L, const GElf_Shdr *dof, uint8_t *buf)
{
	if (L->eh.e_ident[EI_CLASS] != ELFCLASS64 || dof->sh_size < 8)
		return 0;
	for (size_t k = 0; k < L->nrelsecs; k++) {
		Elf_Scn *scn = elf_getscn(L->elf, L->relsecs[k]);
		GElf_Shdr sh;
		Elf_Data *d;

		if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(L->e, L->name, "gelf_getshdr");
		if (sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
		    (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			uint64_t v;
			int kind;

			if (gelf_getrela(d, (int)i, &r) == NULL)
				return err_libelf(L->e, L->name, "gelf_getrela");
			if (r.r_offset < dof->sh_addr || r.r_offset - dof->sh_addr > dof->sh_size - 8)
				continue;
			kind = dynamic_reloc_kind(L->eh.e_machine, GELF_R_TYPE(r.r_info));
			if (kind == 0)
				continue;
			v = (uint64_t)r.r_addend;
			if (kind >= 2) {
				if (symbol_name(L, sh.sh_link, GELF_R_SYM(r.r_info), &sym) == NULL ||
				    sym.st_shndx == SHN_UNDEF)
					continue;
				v += sym.st_value;
			}
			if (kind == 3)
				v -= r.r_offset;
			memcpy(buf + (r.r_offset - dof->sh_addr), &v, sizeof(v));
		}
	}
	return 0;
}

/* ---- DOF: finding and walking ---------------------------------------- */

/* The consumer's base rule, on one record with a relocation. */
static void
base_rule(dofd_probe_t *r, uint64_t base)
{
	if (r->reloc != NULL && r->raw.dofpr_addr <= base)
		r->raw.dofpr_addr += base;
}

/* The consumer's base rule, on every record with a relocation. */
static void
apply_base(dof_decoded_t *d, uint64_t base)
{
	if (base == 0)
		return;
	for (size_t i = 0; i < d->nproviders; i++)
		for (size_t j = 0; j < d->providers[i].nprobes; j++)
			base_rule(&d->providers[i].probes[j], base);
}

/* macOS: every probe's base is the address of its DOF (dofhp_addr). */
static void
set_record_bases(dof_decoded_t *d, uint64_t dof_addr)
{
	for (size_t i = 0; i < d->nproviders; i++)
		for (size_t j = 0; j < d->providers[i].nprobes; j++)
			d->providers[i].probes[j].raw.dofpr_addr = dof_addr;
}

/*
 * A linked ELF file loaded at base: the records whose address the linker
 * wrote relative to where the DOF lies (target.h's DOF_ADDR_SELF and
 * DOF_ADDR_DOFBASE), made absolute as their kernels make them, given the
 * DOF's link-time address: a DOFREL one is relative to its own u64, a SETX
 * one marked DOF_RELDATA_DOFBASE to the DOF's first byte; both then move
 * with the base.  The others (SETX) take the consumer's base rule.
 */
static void
resolve_dof_relative(dof_decoded_t *d, uint64_t base, uint64_t dof_addr)
{
	for (size_t i = 0; i < d->nproviders; i++)
		for (size_t j = 0; j < d->providers[i].nprobes; j++) {
			dofd_probe_t *r = &d->providers[i].probes[j];

			if (r->reloc == NULL)
				continue;
			if (r->reloc_type == DOF_RELO_DOFREL)
				r->raw.dofpr_addr += base + dof_addr + r->addr_offset;
			else if (r->reloc_data == DOF_RELDATA_DOFBASE)
				r->raw.dofpr_addr += base + dof_addr;
			else if (base != 0)
				base_rule(r, base);
		}
}

/*
 * The readers' copy of a linked ELF file (a section not loaded): its
 * addresses are the link's, each final without a DOF relocation (units.c
 * writes it without RELTAB), and its reader, gdb, adds the load offset to
 * every one; so the records without a DOF relocation get base added here.
 * A copy written before, with SETX relocations, takes the base rule.
 */
static void
readers_base(dof_decoded_t *d, uint64_t base)
{
	for (size_t i = 0; i < d->nproviders; i++)
		for (size_t j = 0; j < d->providers[i].nprobes; j++)
			if (d->providers[i].probes[j].reloc == NULL)
				d->providers[i].probes[j].raw.dofpr_addr += base;
}

/* What walk_dofs' callback needs: the finder and the section walked. */
typedef struct dof_walk_ctx {
	finder_t *L;
	const probefind_section_t *sec;
} dof_walk_ctx_t;

/* Keep one DOF of the section walked (dof_walk's callback). */
static int
keep_dof(void *arg, dof_decoded_t *d, size_t off, const err_t *bad)
{
	dof_walk_ctx_t *c = arg;
	finder_t *L = c->L;

	if (bad != NULL)
		return err_set(L->e, "%s: %s+0x%zx: %s", L->name, c->sec->where, off, bad->msg);
	if (L->macho && L->eh.e_type != ET_REL)
		set_record_bases(d, L->dof_addr + off);
	else if (L->elf != NULL && L->eh.e_type != ET_REL) {
		if (c->sec->readers_copy)
			readers_base(d, L->base);
		resolve_dof_relative(d, L->base, L->dof_addr + off);
	}
	else
		apply_base(d, L->base);
	if (add_dof(L, d, c->sec, off) != 0) {
		dof_decoded_free(d);
		return -1;
	}
	return 0;
}

/*
 * Decode every DOF of section sec (decode.c's dof_walk).  raw: a captured
 * image may stop at dofh_loadsz.
 */
static int
walk_dofs(finder_t *L, const probefind_section_t *sec, bool raw)
{
	dof_walk_ctx_t c = { L, sec };

	return dof_walk(sec->bytes, sec->len, raw ? DOF_DECODE_LOADSZ : 0, keep_dof, &c);
}

static int
find_dof_section(finder_t *L, Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	Elf_Data *d;
	probefind_section_t *sec;

	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0)
		return 0;
	if ((d = elf_getdata(scn, NULL)) == NULL)
		return err_libelf(L->e, L->name, "elf_getdata");
	if (d->d_size == 0 || d->d_buf == NULL)
		return 0;
	if ((sec = add_section(L, name, d->d_buf, d->d_size)) == NULL)
		return -1;
	L->dof_addr = sh->sh_addr;
	/* Not loaded: no dynamic relocation lands in it, whatever its sh_addr 0 says. */
	sec->readers_copy = !(sh->sh_flags & SHF_ALLOC);
	if ((L->eh.e_type == ET_REL ? collect_relocs(L, elf_ndxscn(scn), &sec->rels) :
	    sec->readers_copy ? 0 : apply_dynamic_relocs(L, sh, sec->bytes)) != 0)
		return -1;
	return walk_dofs(L, sec, false);
}

/* ---- stapsdt notes --------------------------------------------------- */

static int
collect_notes(finder_t *L, Elf_Scn *scn, const char *name)
{
	unsigned asz = L->eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	probefind_rels_t rels = { NULL, 0, 0 };
	stapsdt_notes_t ns;
	Elf_Data *d;
	probefind_note_t *v;
	err_t de;
	int rc = -1;

	/* The bytes as the file holds them: decoded in the file's byte order. */
	if ((d = elf_rawdata(scn, NULL)) == NULL)
		return err_libelf(L->e, L->name, "elf_rawdata");
	if (d->d_buf == NULL || d->d_size == 0)
		return 0;
	if (dof_stapsdt_decode_order(d->d_buf, d->d_size, asz,
	    L->eh.e_ident[EI_DATA] == ELFDATA2MSB, &ns, &de) != 0)
		return err_set(L->e, "%s: %s (section %zu): %s", L->name, name,
		    elf_ndxscn(scn), de.msg);
	if (L->eh.e_type == ET_REL && collect_relocs(L, elf_ndxscn(scn), &rels) != 0)
		goto out;
	if ((v = realloc(L->out->notes, (L->out->nnotes + ns.n + 1) * sizeof(*v))) == NULL) {
		err_set(L->e, "%s: out of memory reading notes", L->name);
		goto out;
	}
	L->out->notes = v;
	for (size_t i = 0; i < ns.n; i++) {
		probefind_note_t *nr = &L->out->notes[L->out->nnotes++];
		const probefind_rel_t *r;
		uint64_t at = ns.notes[i].desc_offset;

		memset(nr, 0, sizeof(*nr));
		nr->n = ns.notes[i];
		if ((r = probefind_rels_find(&rels, at)) != NULL)
			nr->pc = *r;
		if ((r = probefind_rels_find(&rels, at + STAPSDT_BASE * asz)) != NULL)
			nr->base = *r;
		if ((r = probefind_rels_find(&rels, at + STAPSDT_SEMAPHORE * asz)) != NULL)
			nr->sem = *r;
	}
	rc = 0;
out:
	free(rels.v);
	dof_stapsdt_notes_free(&ns);
	return rc;
}

/* ---- files ----------------------------------------------------------- */

static bool
is_dof_section(const GElf_Shdr *sh, const char *name)
{
	return sh->sh_type == SHT_SUNW_dof || strcmp(name, DOF_ELF_SECTION) == 0;
}

static bool
is_note_section(const GElf_Shdr *sh, const char *name)
{
	return sh->sh_type == SHT_NOTE && strcmp(name, STAPSDT_NOTE_SECTION) == 0;
}

/* Pass over the sections: DOF first, then notes. */
static int
find_elf_sections(finder_t *L, bool notes)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(L->e, L->name, "gelf_getshdr");
		if ((name = elf_strptr(L->elf, L->shstrndx, sh.sh_name)) == NULL)
			return err_libelf(L->e, L->name, "elf_strptr");
		if (!notes && is_dof_section(&sh, name) &&
		    find_dof_section(L, scn, &sh, name) != 0)
			return -1;
		if (notes && is_note_section(&sh, name) &&
		    collect_notes(L, scn, name) != 0)
			return -1;
	}
	return 0;
}

/* ---- truncated ELF files ------------------------------------------------- */

/*
 * A cut file (a copy that stopped, a download cut short) keeps its ELF
 * header, but its section headers, which linkers put last, are gone: libelf
 * then sees no sections at all, and the file would list as having no
 * probes.  So every extent the headers give must lie inside the file: the
 * header itself, the section and program header tables, each section's
 * bytes and each segment's.
 */
static int
truncated(finder_t *L, const char *what, uint64_t off, uint64_t size, size_t len)
{
	if (off <= len && size <= len - off)
		return 0;
	if (off > UINT64_MAX - size)
		return err_set(L->e, "%s: truncated: %s lies past the end of the file "
		    "(%zu bytes)", L->name, what, len);
	return err_set(L->e, "%s: truncated: %s ends at byte %" PRIu64 ", past the end "
	    "of the file (%zu bytes)", L->name, what, off + size, len);
}

/* The ELF header, before libelf reads it: whole, or the file is cut. */
static int
elf_header_whole(finder_t *L, const uint8_t *buf, size_t len)
{
	size_t need = len > EI_CLASS && buf[EI_CLASS] == ELFCLASS32 ?
	    sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);

	return truncated(L, "its ELF header", 0, need, len);
}

/* The tables, then each section and segment, inside the file's len bytes. */
static int
elf_extents_whole(finder_t *L, size_t len)
{
	const GElf_Ehdr *eh = &L->eh;
	size_t n = 0;
	Elf_Scn *scn = NULL;
	char what[64];

	/* e_shnum 0 with a table: the count is in section 0, which must be here. */
	if (eh->e_shoff != 0 && (truncated(L, "its section header table", eh->e_shoff,
	    (uint64_t)eh->e_shentsize * (eh->e_shnum ? eh->e_shnum : 1), len) != 0 ||
	    (elf_getshdrnum(L->elf, &n) == 0 && truncated(L, "its section header table",
	    eh->e_shoff, (uint64_t)eh->e_shentsize * n, len) != 0)))
		return -1;
	if (eh->e_phoff != 0 && elf_getphdrnum(L->elf, &n) == 0 &&
	    truncated(L, "its program header table", eh->e_phoff,
	    (uint64_t)eh->e_phentsize * n, len) != 0)
		return -1;
	while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(L->e, L->name, "gelf_getshdr");
		snprintf(what, sizeof(what), "section %zu", elf_ndxscn(scn));
		if (sh.sh_type != SHT_NOBITS &&
		    truncated(L, what, sh.sh_offset, sh.sh_size, len) != 0)
			return -1;
	}
	for (size_t i = 0; eh->e_phoff != 0 && elf_getphdrnum(L->elf, &n) == 0 && i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(L->elf, (int)i, &ph) == NULL)
			return err_libelf(L->e, L->name, "gelf_getphdr");
		snprintf(what, sizeof(what), "segment %zu", i);
		if (truncated(L, what, ph.p_offset, ph.p_filesz, len) != 0)
			return -1;
	}
	return 0;
}

static int
find_elf(finder_t *L, size_t len)
{
	if (elf_kind(L->elf) == ELF_K_AR)
		return err_set(L->e, "%s: is an archive; list its members instead", L->name);
	if (elf_kind(L->elf) != ELF_K_ELF)
		return err_set(L->e, "%s: not an ELF file", L->name);
	if (gelf_getehdr(L->elf, &L->eh) == NULL)
		return err_libelf(L->e, L->name, "gelf_getehdr");
	if (elf_extents_whole(L, len) != 0)
		return -1;
	if (elf_getshdrstrndx(L->elf, &L->shstrndx) != 0)
		return err_libelf(L->e, L->name, "elf_getshdrstrndx");
	if (find_reloc_sections(L) != 0 || find_elf_sections(L, false) != 0)
		return -1;
	return find_elf_sections(L, true);
}

/* ---- Mach-O files ---------------------------------------------------- */

/* The relocation pairs of DOF section i of an object, as one relent per record. */
static int
macho_dof_relset(finder_t *L, const macho_file_t *mf, size_t i, probefind_rels_t *rs)
{
	macho_dof_rel_t *v;
	size_t n;
	err_t me;
	int rc = 0;

	memset(rs, 0, sizeof(*rs));
	if (macho_dof_relocs(mf, i, &v, &n, &me) != 0)
		return err_set(L->e, "%s: %s", L->name, me.msg);
	for (size_t k = 0; k < n && rc == 0; k++)
		rc = relset_add(L, rs, &(probefind_rel_t){ v[k].addr_offset, v[k].function, 0,
		    v[k].dof });
	free(v);
	return rc == 0 ? relset_sort(L, rs) : rc;
}

static int
find_macho_dof(finder_t *L, const macho_file_t *mf, size_t i)
{
	const macho_section_t *s = &mf->sects[i];
	probefind_section_t *sec;
	char where[40];

	if (s->data == NULL || s->size == 0)
		return 0;
	snprintf(where, sizeof(where), "%s,%s", s->segname, s->sectname);
	if ((sec = add_section(L, where, s->data, (size_t)s->size)) == NULL)
		return -1;
	L->dof_addr = s->addr;
	if (L->eh.e_type == ET_REL && macho_dof_relset(L, mf, i, &sec->rels) != 0)
		return -1;
	return walk_dofs(L, sec, false);
}

static int
find_macho(finder_t *L, const uint8_t *buf, size_t len)
{
	macho_file_t mf;
	err_t me;
	int rc = 0;

	if (macho_read(buf, len, &mf, &me) != 0)
		return err_set(L->e, "%s: %s", L->name, me.msg);
	L->macho = true;
	L->eh.e_type = mf.filetype == MH_OBJECT ? ET_REL : ET_DYN;
	L->out->kind = PROBEFIND_MACHO;
	L->out->cputype = mf.cputype;
	for (size_t i = 0; i < mf.nsects && rc == 0; i++)
		if (macho_is_dof_section(&mf.sects[i]))
			rc = find_macho_dof(L, &mf, i);
	macho_file_free(&mf);
	return rc;
}

/* ---- the entry points -------------------------------------------------- */

bool
probefind_dof_listed(const probefind_found_t *f, size_t i)
{
	if (!f->dofs[i].readers_copy)
		return true;
	for (size_t k = 0; k < f->ndofs; k++)
		if (!f->dofs[k].readers_copy)
			return false;
	return true;
}

void
probefind_found_free(probefind_found_t *f)
{
	probefind_section_t *s, *next;

	for (size_t i = 0; i < f->ndofs; i++)
		dof_decoded_free(&f->dofs[i].d);
	free(f->dofs);
	free(f->notes);
	if (f->keep != NULL) {
		for (s = f->keep->sections; s != NULL; s = next) {
			next = s->next;
			free(s->where);
			free(s->bytes);
			free(s->rels.v);
			free(s);
		}
		if (f->keep->elf != NULL)
			elf_end(f->keep->elf);
		free(f->keep->image);
		free(f->keep);
	}
	memset(f, 0, sizeof(*f));
}

static int
not_listable(err_t *e, const char *name)
{
	return err_set(e, "%s: neither an ELF file, a Mach-O file nor a DOF image", name);
}

/* The image (a copy libelf may write to) by its kind. */
static int
find_image(finder_t *L, uint8_t *buf, size_t len)
{
	probefind_section_t *sec;

	switch (magic_of(buf, len)) {
	case MAGIC_DOF:
		L->out->kind = PROBEFIND_DOF;
		L->eh.e_type = ET_NONE;
		if ((sec = add_section(L, "DOF file", buf, len)) == NULL)
			return -1;
		return walk_dofs(L, sec, true);
	case MAGIC_MACHO:
		return find_macho(L, buf, len);
	case MAGIC_ELF:
		break;
	default:
		return not_listable(L->e, L->name);
	}
	L->out->kind = PROBEFIND_ELF;
	if (elf_header_whole(L, buf, len) != 0)
		return -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(L->e, "%s: elf_version: libelf is out of date: %s",
		    L->name, elf_errmsg(-1));
	if ((L->elf = L->out->keep->elf = elf_memory((char *)buf, len)) == NULL)
		return err_libelf(L->e, L->name, "elf_memory");
	return find_elf(L, len);
}

/* probefind_buffer on image, which it takes: kept in out, or freed on failure. */
static int
find_owned(uint8_t *image, size_t len, const char *name, uint64_t base,
    probefind_found_t *out, err_t *e)
{
	finder_t L;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&L, 0, sizeof(L));
	L.out = out;
	L.base = base;
	L.name = name;
	L.e = e;
	if ((out->keep = calloc(1, sizeof(*out->keep))) == NULL) {
		free(image);
		return err_set(e, "%s: out of memory", name);
	}
	out->keep->image = image;
	rc = find_image(&L, image, len);
	out->object = L.eh.e_type == ET_REL;
	free(L.relsecs);
	if (rc != 0)
		probefind_found_free(out);
	return rc;
}

int
probefind_buffer(const void *buf, size_t len, const char *name, uint64_t base,
    probefind_found_t *out, err_t *e)
{
	uint8_t *image = malloc(len ? len : 1);

	memset(out, 0, sizeof(*out));
	if (image == NULL)
		return err_set(e, "%s: out of memory", name);
	memcpy(image, buf, len);
	return find_owned(image, len, name, base, out, e);
}

/* An ELF identification libelf would not take (find_elf: "not an ELF file"). */
static bool
bad_elf_ident(const uint8_t *h, size_t n)
{
	return n > EI_VERSION && ((h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64) ||
	    (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB) ||
	    h[EI_VERSION] != EV_CURRENT);
}

/*
 * The file's first bytes say whether it can be listed at all, before any
 * more is read (a 4 GiB file of zeros, or one that only starts as ELF
 * does, is refused at once); one that can is read once, into the image
 * the finder keeps.
 */
int
probefind_file(const char *path, uint64_t base, probefind_found_t *out, err_t *e)
{
	uint8_t head[EI_NIDENT], *buf = NULL;
	struct stat st;
	size_t len = 0;
	ssize_t n;
	enum file_magic kind;
	int fd, rc = -1;

	memset(out, 0, sizeof(*out));
	if ((fd = file_open_regular(path, &st, e)) < 0)
		return -1;
	while ((n = pread(fd, head, sizeof(head), 0)) < 0 && errno == EINTR)
		;
	if (n < 0)
		err_errno(e, errno, "%s: read", path);
	else if ((kind = magic_of(head, (size_t)n)) != MAGIC_ELF &&
	    kind != MAGIC_MACHO && kind != MAGIC_DOF)
		not_listable(e, path);
	else if (kind == MAGIC_ELF && bad_elf_ident(head, (size_t)n))
		err_set(e, "%s: not an ELF file", path);
	else if (file_read_opened(fd, path, &st, &buf, &len, e) == 0)
		rc = find_owned(buf, len, path, base, out, e);
	close(fd);
	return rc;
}
