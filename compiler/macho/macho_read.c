/*
 * macho_read.c - a strict Mach-O reader (macho_read.h).
 *
 * usdtc reads Mach-O files for two things: `usdtc --list/--dump` of what
 * macOS targets produce (our -G objects, and the images a linker makes
 * from them), and the -G stage's check of the program's objects.  So the
 * reader takes what those need, and checks everything it takes before
 * using it (macho.h has the layouts):
 *
 *   header    64-bit magic in this (little-endian) byte order; universal,
 *             32-bit and big-endian files refused by name; the load
 *             commands inside the file.
 *   commands  each at least 8 bytes, a multiple of 8, inside sizeofcmds;
 *             LC_SEGMENT_64 exactly 72 + 80 * nsects bytes; one LC_SYMTAB
 *             at most.
 *   sections  data (unless zero-fill) and relocation table inside the
 *             file; alignment below 2^16.
 *   symbols   the table and the string table inside the file; each name
 *             inside the string table and NUL-terminated there; a section
 *             ordinal that exists.
 *   relocs    (when asked for) inside the section, a size of 1 to 8
 *             bytes, an extern one naming a symbol.
 *
 * and, for DOF sections of relocatable objects (macho_dof_relocs), the
 * relocation pairs macho_write.c writes: see macho_read.h.
 *
 * All values from the buffer are read with memcpy at checked offsets and
 * combined in 64 bits, so any bytes at any alignment are safe.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "macho_read.h"

/* ---- little-endian fields ------------------------------------------------ */

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Whether [off, off + n) lies inside a buffer of len bytes. */
static bool
inside(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

const char *
macho_arch_name(uint32_t cputype)
{
	switch (cputype) {
	case CPU_TYPE_X86_64: return "x86_64";
	case CPU_TYPE_ARM64: return "arm64";
	default: return NULL;
	}
}

bool
macho_is_dof_section(const macho_section_t *s)
{
	return (s->flags & SECTION_TYPE) == S_DTRACE_DOF;
}

void
macho_file_free(macho_file_t *f)
{
	free(f->sects);
	free(f->syms);
	memset(f, 0, sizeof(*f));
}

/* ---- header and load commands --------------------------------------------- */

static int
check_magic(const uint8_t *buf, size_t len, err_t *e)
{
	uint32_t m = len >= 4 ? le32(buf) : 0;

	if (m == FAT_MAGIC || m == FAT_CIGAM)
		return err_set(e, "Mach-O: a universal (fat) file; give one "
		    "architecture of it (lipo -thin ARCH)");
	if (m == MH_MAGIC || m == MH_CIGAM)
		return err_set(e, "Mach-O: a 32-bit file; only 64-bit Mach-O is read");
	if (m == MH_CIGAM_64)
		return err_set(e, "Mach-O: a big-endian file; only little-endian "
		    "Mach-O is read");
	if (m != MH_MAGIC_64)
		return err_set(e, "Mach-O: bad magic 0x%08" PRIx32, m);
	if (len < MACHO_HEADER_SIZE)
		return err_set(e, "Mach-O: file of %zu bytes is shorter than a "
		    "mach_header_64", len);
	return 0;
}

static char *
copy_name16(char dst[17], const uint8_t *src)
{
	memcpy(dst, src, 16);
	dst[16] = '\0';
	return dst;
}

/* One section_64 record at p, checked against the file. */
static int
read_section(macho_file_t *f, const uint8_t *p, macho_section_t *s, err_t *e)
{
	uint32_t type;

	copy_name16(s->sectname, p);
	copy_name16(s->segname, p + 16);
	s->addr = le64(p + 32);
	s->size = le64(p + 40);
	s->offset = le32(p + 48);
	s->align = le32(p + 52);
	s->reloff = le32(p + 56);
	s->nreloc = le32(p + 60);
	s->flags = le32(p + 64);
	type = s->flags & SECTION_TYPE;
	s->data = NULL;
	if (s->align >= 16)
		return err_set(e, "Mach-O: section %s,%s: alignment 2^%" PRIu32
		    " is not plausible", s->segname, s->sectname, s->align);
	if (type != S_ZEROFILL && type != S_GB_ZEROFILL && type != S_THREAD_LOCAL_ZEROFILL) {
		if (!inside(s->offset, s->size, f->size))
			return err_set(e, "Mach-O: section %s,%s: data at offset 0x%" PRIx32
			    " + size 0x%" PRIx64 " lies outside the file of 0x%zx bytes",
			    s->segname, s->sectname, s->offset, s->size, f->size);
		s->data = f->image + s->offset;
	}
	if (s->nreloc > 0 &&
	    !inside(s->reloff, (uint64_t)s->nreloc * MACHO_RELOC_SIZE, f->size))
		return err_set(e, "Mach-O: section %s,%s: %" PRIu32 " relocations at "
		    "offset 0x%" PRIx32 " lie outside the file", s->segname,
		    s->sectname, s->nreloc, s->reloff);
	return 0;
}

static int
read_segment(macho_file_t *f, const uint8_t *cmd, uint32_t cmdsize, err_t *e)
{
	uint32_t nsects = le32(cmd + 64);
	macho_section_t *v;

	if ((uint64_t)cmdsize != MACHO_SEGMENT_SIZE + (uint64_t)nsects * MACHO_SECTION_SIZE)
		return err_set(e, "Mach-O: LC_SEGMENT_64 of %" PRIu32 " bytes does not "
		    "hold its %" PRIu32 " sections", cmdsize, nsects);
	if (nsects == 0)
		return 0;
	if ((v = realloc(f->sects, (f->nsects + nsects) * sizeof(*v))) == NULL)
		return err_set(e, "Mach-O: out of memory reading %" PRIu32 " sections", nsects);
	f->sects = v;
	for (uint32_t i = 0; i < nsects; i++) {
		if (read_section(f, cmd + MACHO_SEGMENT_SIZE + i * MACHO_SECTION_SIZE,
		    &f->sects[f->nsects], e) != 0)
			return -1;
		f->nsects++;
	}
	return 0;
}

/* The symbol table of LC_SYMTAB at cmd; section ordinals checked later. */
static int
read_symtab(macho_file_t *f, const uint8_t *cmd, err_t *e)
{
	uint32_t symoff = le32(cmd + 8), nsyms = le32(cmd + 12);
	uint32_t stroff = le32(cmd + 16), strsize = le32(cmd + 20);
	const char *strtab = (const char *)f->image + stroff;

	if (f->syms != NULL)
		return err_set(e, "Mach-O: more than one LC_SYMTAB");
	if (!inside(symoff, (uint64_t)nsyms * MACHO_NLIST_SIZE, f->size) ||
	    !inside(stroff, strsize, f->size))
		return err_set(e, "Mach-O: LC_SYMTAB: the symbol or string table "
		    "lies outside the file");
	if ((f->syms = calloc((size_t)nsyms + 1, sizeof(*f->syms))) == NULL)
		return err_set(e, "Mach-O: out of memory reading %" PRIu32 " symbols", nsyms);
	for (uint32_t i = 0; i < nsyms; i++) {
		const uint8_t *p = f->image + symoff + (uint64_t)i * MACHO_NLIST_SIZE;
		macho_symbol_t *s = &f->syms[i];
		uint32_t strx = le32(p);

		if (strx >= strsize || memchr(strtab + strx, '\0', strsize - strx) == NULL)
			return err_set(e, "Mach-O: symbol %" PRIu32 ": name at 0x%" PRIx32
			    " is not a string of the %" PRIu32 "-byte string table", i,
			    strx, strsize);
		s->name = strtab + strx;
		s->type = p[4];
		s->sect = p[5];
		s->desc = (uint16_t)(p[6] | p[7] << 8);
		s->value = le64(p + 8);
	}
	f->nsyms = nsyms;
	return 0;
}

static int
check_symbol_sections(const macho_file_t *f, err_t *e)
{
	for (size_t i = 0; i < f->nsyms; i++) {
		const macho_symbol_t *s = &f->syms[i];

		if (!(s->type & N_STAB) && (s->type & N_TYPE) == N_SECT &&
		    (s->sect == 0 || s->sect > f->nsects))
			return err_set(e, "Mach-O: symbol %zu (%s): section ordinal %u "
			    "does not exist", i, s->name, s->sect);
	}
	return 0;
}

static int
read_commands(macho_file_t *f, uint32_t ncmds, uint32_t sizeofcmds, err_t *e)
{
	uint64_t off = MACHO_HEADER_SIZE, end = MACHO_HEADER_SIZE + (uint64_t)sizeofcmds;

	if (!inside(MACHO_HEADER_SIZE, sizeofcmds, f->size))
		return err_set(e, "Mach-O: %" PRIu32 " bytes of load commands do not "
		    "fit in the file", sizeofcmds);
	for (uint32_t i = 0; i < ncmds; i++) {
		const uint8_t *cmd = f->image + off;
		uint32_t type, size;

		if (end - off < 8)
			return err_set(e, "Mach-O: load command %" PRIu32 " lies past "
			    "sizeofcmds", i);
		type = le32(cmd);
		size = le32(cmd + 4);
		if (size < 8 || size % 8 != 0 || size > end - off)
			return err_set(e, "Mach-O: load command %" PRIu32 " (0x%" PRIx32
			    "): size %" PRIu32 " is not a multiple of 8 inside sizeofcmds",
			    i, type, size);
		if (type == LC_SEGMENT_64 && (size < MACHO_SEGMENT_SIZE ||
		    read_segment(f, cmd, size, e) != 0))
			return size < MACHO_SEGMENT_SIZE ? err_set(e, "Mach-O: "
			    "LC_SEGMENT_64 of %" PRIu32 " bytes is too short", size) : -1;
		if (type == LC_SYMTAB && (size != MACHO_SYMTAB_SIZE ||
		    read_symtab(f, cmd, e) != 0))
			return size != MACHO_SYMTAB_SIZE ? err_set(e, "Mach-O: "
			    "LC_SYMTAB of %" PRIu32 " bytes, not 24", size) : -1;
		off += size;
	}
	return 0;
}

int
macho_read(const void *buf, size_t len, macho_file_t *out, err_t *e)
{
	const uint8_t *p = buf;

	memset(out, 0, sizeof(*out));
	if (check_magic(p, len, e) != 0)
		return -1;
	out->image = p;
	out->size = len;
	out->cputype = le32(p + 4);
	out->cpusubtype = le32(p + 8);
	out->filetype = le32(p + 12);
	out->flags = le32(p + 24);
	if (read_commands(out, le32(p + 16), le32(p + 20), e) != 0 ||
	    check_symbol_sections(out, e) != 0) {
		macho_file_free(out);
		return -1;
	}
	out->image = p;
	out->size = len;
	return 0;
}

/* ---- relocations ----------------------------------------------------------- */

int
macho_relocs(const macho_file_t *f, size_t i, macho_reloc_t **out, size_t *n,
    err_t *e)
{
	const macho_section_t *s = &f->sects[i];
	macho_reloc_t *v;

	*out = NULL;
	*n = 0;
	if (s->nreloc == 0)
		return 0;
	if ((v = calloc(s->nreloc, sizeof(*v))) == NULL)
		return err_set(e, "Mach-O: out of memory reading relocations");
	for (uint32_t k = 0; k < s->nreloc; k++) {
		const uint8_t *p = f->image + s->reloff + (uint64_t)k * MACHO_RELOC_SIZE;
		uint32_t info = le32(p + 4);
		macho_reloc_t *r = &v[k];

		if (le32(p) & 0x80000000u) {
			free(v);
			return err_set(e, "Mach-O: section %s,%s: relocation %" PRIu32
			    " is a scattered relocation, which 64-bit files do not use",
			    s->segname, s->sectname, k);
		}
		r->address = (int32_t)le32(p);
		r->symbolnum = info & 0xffffffu;
		r->pcrel = (info >> 24) & 1;
		r->length = (uint8_t)((info >> 25) & 3);
		r->ext = (info >> 27) & 1;
		r->type = (uint8_t)(info >> 28);
		if (!inside((uint64_t)r->address, 1u << r->length, s->size) ||
		    (r->ext && r->symbolnum >= f->nsyms) ||
		    (!r->ext && (r->symbolnum == 0 || r->symbolnum > f->nsects))) {
			err_set(e, "Mach-O: section %s,%s: relocation %" PRIu32
			    " at 0x%" PRIx32 " lies outside the section or names no %s",
			    s->segname, s->sectname, k, (uint32_t)r->address,
			    r->ext ? "symbol" : "section");
			free(v);
			return -1;
		}
	}
	*out = v;
	*n = s->nreloc;
	return 0;
}

/* ---- relocations of DOF sections ------------------------------------------- */

typedef struct dof_pair {
	uint64_t at;		/* offset in the section */
	const macho_symbol_t *function, *dof;
	bool used;
	size_t read;		/* its place among the pairs as read */
} dof_pair_t;

/* The (SUBTRACTOR, UNSIGNED) pairs of a DOF section, as macho_write.c writes them. */
static int
read_pairs(const macho_file_t *f, size_t i, const macho_reloc_t *r, size_t n,
    dof_pair_t *pairs, err_t *e)
{
	const macho_section_t *s = &f->sects[i];
	unsigned sub = f->cputype == CPU_TYPE_ARM64 ? ARM64_RELOC_SUBTRACTOR :
	    X86_64_RELOC_SUBTRACTOR;
	unsigned uns = f->cputype == CPU_TYPE_ARM64 ? ARM64_RELOC_UNSIGNED :
	    X86_64_RELOC_UNSIGNED;

	if (n % 2 != 0)
		return err_set(e, "Mach-O: DOF section %s: %zu relocations, not "
		    "SUBTRACTOR/UNSIGNED pairs", s->sectname, n);
	for (size_t k = 0; k < n; k += 2) {
		const macho_reloc_t *a = &r[k], *b = &r[k + 1];
		const macho_symbol_t *dof;

		if (a->type != sub || b->type != uns || a->address != b->address ||
		    a->length != 2 || b->length != 2 || a->pcrel || b->pcrel ||
		    !a->ext || !b->ext)
			return err_set(e, "Mach-O: DOF section %s: relocations %zu and %zu "
			    "(at 0x%" PRIx32 ") are not a 4-byte extern SUBTRACTOR/UNSIGNED "
			    "pair", s->sectname, k, k + 1, (uint32_t)a->address);
		dof = &f->syms[a->symbolnum];
		if ((dof->type & N_TYPE) != N_SECT || dof->sect != i + 1)
			return err_set(e, "Mach-O: DOF section %s: relocation %zu subtracts "
			    "%s, which is not a symbol of the section", s->sectname, k,
			    dof->name);
		pairs[k / 2] = (dof_pair_t){ (uint64_t)a->address, &f->syms[b->symbolnum],
		    dof, false, k / 2 };
	}
	return 0;
}

static int
cmp_pair(const void *a, const void *b)
{
	const dof_pair_t *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->read < y->read ? -1 : x->read > y->read;
}

/*
 * Every site entry looks its pair up by offset, so the pairs are sorted by
 * offset (then as read) once and searched by halves: n log n, not n times
 * the number of pairs.  The first unused pair at offset at, or NULL.
 */
static dof_pair_t *
unused_pair_at(dof_pair_t *pairs, size_t npairs, uint64_t at)
{
	size_t lo = 0, hi = npairs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pairs[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < npairs && pairs[lo].at == at; lo++)
		if (!pairs[lo].used)
			return &pairs[lo];
	return NULL;
}

/*
 * The pairs on the n u32 entries of a site table starting at section
 * offset at: all present, all against one function.
 */
static const macho_symbol_t *
claim_entries(dof_pair_t *pairs, size_t npairs, uint64_t at, size_t n,
    const macho_symbol_t *function, uint64_t dof_addr,
    const macho_symbol_t **dof, bool *ok)
{
	for (size_t k = 0; k < n && *ok; k++) {
		dof_pair_t *p = unused_pair_at(pairs, npairs, at + 4 * k);

		if (p == NULL || p->dof->value != dof_addr ||
		    (function != NULL && p->function != function)) {
			*ok = false;
			break;
		}
		p->used = true;
		function = p->function;
		*dof = p->dof;
	}
	return function;
}

static int
add_rel(macho_dof_rel_t **out, size_t *n, const macho_dof_rel_t *r, err_t *e)
{
	macho_dof_rel_t *v = realloc(*out, (*n + 1) * sizeof(*v));

	if (v == NULL)
		return err_set(e, "Mach-O: out of memory reading DOF relocations");
	v[(*n)++] = *r;
	*out = v;
	return 0;
}

/* The records of one decoded DOF at section offset off. */
static int
claim_dof(const macho_file_t *f, size_t i, const dof_decoded_t *d, uint64_t off,
    dof_pair_t *pairs, size_t npairs, macho_dof_rel_t **out, size_t *n, err_t *e)
{
	const macho_section_t *s = &f->sects[i];
	uint64_t dof_addr = s->addr + off;

	for (size_t p = 0; p < d->nproviders; p++) {
		const dofd_provider_t *pv = &d->providers[p];

		for (size_t j = 0; j < pv->nprobes; j++) {
			const dofd_probe_t *r = &pv->probes[j];
			const macho_symbol_t *fn, *dof = NULL;
			bool ok = true;

			fn = claim_entries(pairs, npairs, off +
			    d->secs[pv->raw.dofpv_proffs].hdr.dofs_offset +
			    4 * (uint64_t)r->raw.dofpr_offidx, r->raw.dofpr_noffs, NULL,
			    dof_addr, &dof, &ok);
			if (r->nenoffs > 0)
				fn = claim_entries(pairs, npairs, off +
				    d->secs[pv->raw.dofpv_prenoffs].hdr.dofs_offset +
				    4 * (uint64_t)r->raw.dofpr_enoffidx, r->nenoffs, fn,
				    dof_addr, &dof, &ok);
			if (!ok || fn == NULL)
				return err_set(e, "Mach-O: DOF section %s+0x%" PRIx64 ": provider "
				    "%s probe %s: a site offset lacks its relocation pair, or "
				    "the pairs name different functions or not the DOF's start",
				    s->sectname, off, pv->name, r->name);
			if (add_rel(out, n, &(macho_dof_rel_t){ off + r->addr_offset,
			    fn->name, dof->name }, e) != 0)
				return -1;
		}
	}
	return 0;
}

/* What claim_dofs' callback needs. */
typedef struct claim_ctx {
	const macho_file_t *f;
	size_t i;
	dof_pair_t *pairs;
	size_t npairs;
	macho_dof_rel_t **out;
	size_t *n;
	err_t *e;
} claim_ctx_t;

/* Claim the pairs of one DOF of the section (dof_walk's callback). */
static int
claim_each(void *arg, dof_decoded_t *d, size_t off, const err_t *bad)
{
	claim_ctx_t *c = arg;
	int rc;

	if (bad != NULL)
		return err_set(c->e, "Mach-O: DOF section %s+0x%" PRIx64 ": %s",
		    c->f->sects[c->i].sectname, (uint64_t)off, bad->msg);
	rc = claim_dof(c->f, c->i, d, off, c->pairs, c->npairs, c->out, c->n, c->e);
	dof_decoded_free(d);
	return rc;
}

/* Walk the DOFs of the section (decode.c's dof_walk), claiming pairs record by record. */
static int
claim_dofs(const macho_file_t *f, size_t i, dof_pair_t *pairs, size_t npairs,
    macho_dof_rel_t **out, size_t *n, err_t *e)
{
	const macho_section_t *s = &f->sects[i];
	claim_ctx_t c = { f, i, pairs, npairs, out, n, e };

	const dof_pair_t *left = NULL;

	qsort(pairs, npairs, sizeof(*pairs), cmp_pair);
	if (dof_walk(s->data, (size_t)s->size, 0, claim_each, &c) != 0)
		return -1;
	for (size_t k = 0; k < npairs; k++)
		if (!pairs[k].used && (left == NULL || pairs[k].read < left->read))
			left = &pairs[k];
	if (left != NULL)
		return err_set(e, "Mach-O: DOF section %s: the relocation pair at "
		    "0x%" PRIx64 " is on no site offset of any probe record",
		    s->sectname, left->at);
	return 0;
}

int
macho_dof_relocs(const macho_file_t *f, size_t i, macho_dof_rel_t **out,
    size_t *n, err_t *e)
{
	macho_reloc_t *r;
	dof_pair_t *pairs = NULL;
	size_t nr;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (f->sects[i].data == NULL || macho_relocs(f, i, &r, &nr, e) != 0)
		return f->sects[i].data == NULL ? 0 : -1;
	if (nr == 0)
		return 0;
	if ((pairs = calloc(nr / 2 + 1, sizeof(*pairs))) == NULL)
		err_set(e, "Mach-O: out of memory reading DOF relocations");
	else if (read_pairs(f, i, r, nr, pairs, e) == 0)
		rc = claim_dofs(f, i, pairs, nr / 2, out, n, e);
	if (rc != 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	free(pairs);
	free(r);
	return rc;
}
