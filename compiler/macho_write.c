/*
 * macho_write.c - the Mach-O writer (macho_write.h): the object is built
 * in memory, sections with their bytes and relocations and symbols, then
 * one layout pass and one serialisation pass write it, all fields
 * little-endian.  The symbols go locals first (in the order added), then
 * external definitions by name, as LC_DYSYMTAB wants; every relocation is
 * external, 4 bytes, not PC-relative (a difference of two symbols is a
 * SUBTRACTOR, UNSIGNED pair).  What the object holds, and why, is the
 * stage's (macho_objgen.c).
 */
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macho.h"
#include "macho_write.h"

/* ---- the object being built --------------------------------------------- */

void
mw_init(mw_t *w, const macho_arch_t *cpu)
{
	memset(w, 0, sizeof(*w));
	w->cpu = *cpu;
}

void
mw_free(mw_t *w)
{
	for (size_t i = 0; i < w->nsects; i++) {
		sb_free(&w->sects[i].data);
		free(w->sects[i].relocs);
	}
	for (size_t i = 0; i < w->nsyms; i++)
		free(w->syms[i].name);
	free(w->sects);
	free(w->syms);
}

static void
copy_name16(char dst[16], const char *src)
{
	size_t n = strlen(src);

	memset(dst, 0, 16);
	memcpy(dst, src, n < 16 ? n : 16);
}

size_t
mw_add_section(mw_t *w, const char *seg, const char *sect, uint32_t flags,
    uint32_t align)
{
	mw_section_t *v;

	if (w->failed || (v = realloc(w->sects, (w->nsects + 1) * sizeof(*v))) == NULL) {
		w->failed = true;
		return (size_t)-1;
	}
	w->sects = v;
	v = &w->sects[w->nsects];
	memset(v, 0, sizeof(*v));
	copy_name16(v->segname, seg);
	copy_name16(v->sectname, sect);
	v->flags = flags;
	v->align = align;
	sb_init(&v->data);
	return w->nsects++;
}

size_t
mw_add_symbol(mw_t *w, const char *name, uint8_t type, uint16_t desc,
    size_t sect, uint64_t offset)
{
	mw_symbol_t *v;
	char *copy;

	if (w->failed)
		return (size_t)-1;
	copy = strdup(name);
	v = copy != NULL ? realloc(w->syms, (w->nsyms + 1) * sizeof(*v)) : NULL;
	if (v == NULL) {
		free(copy);
		w->failed = true;
		return (size_t)-1;
	}
	w->syms = v;
	w->syms[w->nsyms] = (mw_symbol_t){ copy, type, sect, offset, desc, 0, 0 };
	return w->nsyms++;
}

size_t
mw_find_symbol(const mw_t *w, const char *name)
{
	for (size_t i = 0; i < w->nsyms; i++)
		if (strcmp(w->syms[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

static void
mw_add_reloc(mw_t *w, size_t sect, uint32_t address, size_t symbol, uint8_t type)
{
	mw_section_t *s = &w->sects[sect];
	mw_reloc_t *v;

	if (w->failed || (v = realloc(s->relocs, (s->nrelocs + 1) * sizeof(*v))) == NULL) {
		w->failed = true;
		return;
	}
	s->relocs = v;
	v[s->nrelocs++] = (mw_reloc_t){ address, symbol, type, 2 };
}

void
mw_add_difference(mw_t *w, size_t sect, uint32_t address, size_t minuend,
    size_t subtrahend)
{
	mw_add_reloc(w, sect, address, subtrahend, (uint8_t)w->cpu.reloc_subtractor);
	mw_add_reloc(w, sect, address, minuend, (uint8_t)w->cpu.reloc_unsigned);
}
/* ---- layout and bytes ----------------------------------------------------- */

static void
put16(strbuf_t *sb, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	sb_append(sb, b, sizeof(b));
}

static void
put32(strbuf_t *sb, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
	    (uint8_t)(v >> 24) };

	sb_append(sb, b, sizeof(b));
}

static void
put64(strbuf_t *sb, uint64_t v)
{
	put32(sb, (uint32_t)v);
	put32(sb, (uint32_t)(v >> 32));
}

static uint64_t
align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static bool
is_local(const mw_symbol_t *s)
{
	return !(s->type & N_EXT);
}

/* Locals in the order added, then external definitions by name. */
static int
symbol_order(const void *a, const void *b)
{
	const mw_symbol_t *x = *(mw_symbol_t *const *)a, *y = *(mw_symbol_t *const *)b;

	if (is_local(x) != is_local(y))
		return is_local(x) ? -1 : 1;
	if (is_local(x))
		return x < y ? -1 : x > y;
	return strcmp(x->name, y->name);
}

/* Where everything goes; sizes and counts the header needs. */
typedef struct mw_layout {
	uint32_t sizeofcmds;
	uint64_t data_off, data_size;
	uint32_t symoff, stroff, strsize;
	uint32_t nlocal, nextdef;
	mw_symbol_t **order;
	strbuf_t strtab;
} mw_layout_t;

static int
mw_layout(mw_t *w, mw_layout_t *L, err_t *e)
{
	uint64_t addr = 0, off;

	memset(L, 0, sizeof(*L));
	sb_init(&L->strtab);
	L->sizeofcmds = MACHO_SEGMENT_SIZE + (uint32_t)w->nsects * MACHO_SECTION_SIZE +
	    MACHO_BUILD_VERSION_SIZE + MACHO_SYMTAB_SIZE + MACHO_DYSYMTAB_SIZE;
	L->data_off = align_up(MACHO_HEADER_SIZE + L->sizeofcmds, 16);
	for (size_t i = 0; i < w->nsects; i++) {
		mw_section_t *s = &w->sects[i];

		addr = align_up(addr, (uint64_t)1 << s->align);
		s->addr = addr;
		s->offset = (uint32_t)(L->data_off + addr);
		addr += s->data.len;
	}
	L->data_size = addr;
	off = align_up(L->data_off + addr, 8);
	for (size_t i = 0; i < w->nsects; i++) {
		w->sects[i].reloff = w->sects[i].nrelocs ? (uint32_t)off : 0;
		off += w->sects[i].nrelocs * MACHO_RELOC_SIZE;
	}
	L->symoff = (uint32_t)align_up(off, 8);
	if ((L->order = calloc(w->nsyms + 1, sizeof(*L->order))) == NULL)
		return err_set(e, "out of memory laying out the Mach-O object");
	for (size_t i = 0; i < w->nsyms; i++)
		L->order[i] = &w->syms[i];
	qsort(L->order, w->nsyms, sizeof(*L->order), symbol_order);
	sb_putc(&L->strtab, '\0');
	for (size_t i = 0; i < w->nsyms; i++) {
		mw_symbol_t *s = L->order[i];

		s->final = (uint32_t)i;
		s->strx = (uint32_t)L->strtab.len;
		sb_append(&L->strtab, s->name, strlen(s->name) + 1);
		if (is_local(s))
			L->nlocal++;
		else
			L->nextdef++;
	}
	sb_align(&L->strtab, 8);
	L->stroff = L->symoff + (uint32_t)w->nsyms * MACHO_NLIST_SIZE;
	L->strsize = (uint32_t)L->strtab.len;
	if (L->strtab.failed || (uint64_t)L->stroff + L->strsize > UINT32_MAX)
		return err_set(e, "out of memory, or over 4 GiB, laying out the Mach-O object");
	return 0;
}

static void
put_header_and_commands(const mw_t *w, const mw_layout_t *L, strbuf_t *out)
{
	put32(out, MH_MAGIC_64);
	put32(out, w->cpu.cputype);
	put32(out, w->cpu.cpusubtype);
	put32(out, MH_OBJECT);
	put32(out, 4);			/* ncmds */
	put32(out, L->sizeofcmds);
	put32(out, 0);			/* flags */
	put32(out, 0);			/* reserved */

	put32(out, LC_SEGMENT_64);
	put32(out, MACHO_SEGMENT_SIZE + (uint32_t)w->nsects * MACHO_SECTION_SIZE);
	sb_zero(out, 16);		/* an object's one segment has no name */
	put64(out, 0);
	put64(out, L->data_size);
	put64(out, L->data_size ? L->data_off : 0);
	put64(out, L->data_size);
	put32(out, 7);			/* maxprot rwx */
	put32(out, 7);			/* initprot rwx */
	put32(out, (uint32_t)w->nsects);
	put32(out, 0);
	for (size_t i = 0; i < w->nsects; i++) {
		const mw_section_t *s = &w->sects[i];

		sb_append(out, s->sectname, 16);
		sb_append(out, s->segname, 16);
		put64(out, s->addr);
		put64(out, s->data.len);
		put32(out, s->offset);
		put32(out, s->align);
		put32(out, s->reloff);
		put32(out, (uint32_t)s->nrelocs);
		put32(out, s->flags);
		sb_zero(out, 12);	/* reserved1..3 */
	}

	put32(out, LC_BUILD_VERSION);
	put32(out, MACHO_BUILD_VERSION_SIZE);
	put32(out, PLATFORM_MACOS);
	put32(out, w->cpu.minos);
	put32(out, 0);			/* sdk: none */
	put32(out, 0);			/* ntools */

	put32(out, LC_SYMTAB);
	put32(out, MACHO_SYMTAB_SIZE);
	put32(out, L->symoff);
	put32(out, (uint32_t)w->nsyms);
	put32(out, L->stroff);
	put32(out, L->strsize);

	put32(out, LC_DYSYMTAB);
	put32(out, MACHO_DYSYMTAB_SIZE);
	put32(out, 0);			/* ilocalsym */
	put32(out, L->nlocal);
	put32(out, L->nlocal);		/* iextdefsym */
	put32(out, L->nextdef);
	put32(out, L->nlocal + L->nextdef);	/* iundefsym */
	put32(out, 0);			/* nundefsym */
	sb_zero(out, 12 * 4);
}

static void
put_relocs(const mw_t *w, strbuf_t *out)
{
	for (size_t i = 0; i < w->nsects; i++)
		for (size_t k = 0; k < w->sects[i].nrelocs; k++) {
			const mw_reloc_t *r = &w->sects[i].relocs[k];
			uint32_t sym = w->syms[r->symbol].final;

			put32(out, r->address);
			/* r_symbolnum | r_pcrel 0 | r_length | r_extern 1 | r_type */
			put32(out, sym | (uint32_t)r->length << 25 | 1u << 27 |
			    (uint32_t)r->type << 28);
		}
}

static void
put_symbols(const mw_t *w, const mw_layout_t *L, strbuf_t *out)
{
	for (size_t i = 0; i < w->nsyms; i++) {
		const mw_symbol_t *s = L->order[i];

		put32(out, s->strx);
		sb_u8(out, s->type);
		sb_u8(out, (uint8_t)(s->sect + 1));
		put16(out, s->desc);
		put64(out, w->sects[s->sect].addr + s->offset);
	}
}

/* The whole file into out. */
static int
mw_serialize(mw_t *w, strbuf_t *out, err_t *e)
{
	mw_layout_t L;
	int rc = -1;

	for (size_t i = 0; i < w->nsects; i++)
		w->failed |= w->sects[i].data.failed;
	if (w->failed)
		return err_set(e, "out of memory building the Mach-O object");
	if (w->nsects > 255)
		return err_set(e, "%zu Mach-O sections: an object holds at most 255",
		    w->nsects);
	if (mw_layout(w, &L, e) == 0) {
		put_header_and_commands(w, &L, out);
		sb_zero(out, L.data_off - out->len);
		for (size_t i = 0; i < w->nsects; i++) {
			sb_zero(out, L.data_off + w->sects[i].addr - out->len);
			sb_append(out, w->sects[i].data.data, w->sects[i].data.len);
		}
		sb_align(out, 8);
		put_relocs(w, out);
		sb_zero(out, L.symoff - out->len);
		put_symbols(w, &L, out);
		sb_append(out, L.strtab.data, L.strtab.len);
		rc = out->failed ? err_set(e, "out of memory writing the Mach-O object") : 0;
	}
	free(L.order);
	sb_free(&L.strtab);
	return rc;
}

/* ---- the file ------------------------------------------------------------ */

int
mw_write(mw_t *w, const char *path, err_t *e)
{
	strbuf_t bytes;
	int rc;

	sb_init(&bytes);
	rc = mw_serialize(w, &bytes, e);
	if (rc == 0)
		rc = file_write_bytes(path, NULL, bytes.data, bytes.len, e);
	sb_free(&bytes);
	return rc;
}
