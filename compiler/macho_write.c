/*
 * macho_write.c - the -G stage for macOS targets: a Mach-O MH_OBJECT that
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
 *			adjustment (x86_64: probe 0 + 1, is-enabled 11 - 2;
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
 * The program's objects named after the options are read (macho_read.c)
 * and checked: Mach-O objects of the target's CPU whose references to
 * probe functions name probes of the definition.  They are not rewritten:
 * their calls reach the units.
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
 *     which this stage does not do (the ELF -G stage's rewrite.c does).
 *   - A probe fires in its unit, one call deep, and DTrace shows the unit
 *     as the probe's function; ld64 shows the caller.
 *   - dyld registers one DOF per section: if two -G objects of one provider
 *     are linked, their __dof_PROV sections merge into one and only the
 *     first DOF is seen.
 *   - Firing on a Mac is not tested here; tests/macho checks the object
 *     with llvm-readobj and llvm-objdump, links it with ld64.lld, and
 *     decodes the linked image's DOF (usdtc --list), whose sites must be
 *     the units' tracepoints.
 *
 * The writer below builds the object in memory: sections with their bytes
 * and relocations, symbols (locals first, then external definitions by
 * name, as LC_DYSYMTAB wants), then one layout pass and one serialisation
 * pass, all fields little-endian.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>

#include "dof.h"
#include "dofgen.h"
#include "fileio.h"
#include "header_macos.h"
#include "macho.h"
#include "macho_read.h"
#include "magic.h"
#include "macho_write.h"
#include "strbuf.h"

/* ---- the object being built --------------------------------------------- */

typedef struct mw_reloc {
	uint32_t address;
	size_t symbol;		/* index in mw_t.syms until layout, then final */
	uint8_t type;
	uint8_t length;		/* log2 of the size */
} mw_reloc_t;

typedef struct mw_section {
	char sectname[16];	/* NUL-padded, not NUL-terminated */
	char segname[16];
	uint32_t flags;
	uint32_t align;		/* log2 */
	strbuf_t data;
	mw_reloc_t *relocs;
	size_t nrelocs;
	uint64_t addr;		/* set by layout */
	uint32_t offset, reloff;
} mw_section_t;

typedef struct mw_symbol {
	char *name;
	uint8_t type;		/* n_type */
	size_t sect;		/* index in mw_t.sects */
	uint64_t offset;	/* in the section */
	uint16_t desc;
	uint32_t final;		/* index in the written table */
	uint32_t strx;
} mw_symbol_t;

typedef struct mw {
	uint32_t cputype, cpusubtype, minos;
	unsigned reloc_unsigned, reloc_subtractor;
	mw_section_t *sects;
	size_t nsects;
	mw_symbol_t *syms;
	size_t nsyms;
	bool failed;		/* out of memory: everything after is a no-op */
} mw_t;

static void
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

/* A new empty section; its index, or (size_t)-1 when memory ran out. */
static size_t
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

/* A symbol defined in section sect at offset; its index. */
static size_t
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

/* The index of the symbol named name, or (size_t)-1. */
static size_t
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

/* The 4 bytes at address in sect become minuend - subtrahend + themselves. */
static void
mw_add_difference(mw_t *w, size_t sect, uint32_t address, size_t minuend,
    size_t subtrahend)
{
	mw_add_reloc(w, sect, address, subtrahend, (uint8_t)w->reloc_subtractor);
	mw_add_reloc(w, sect, address, minuend, (uint8_t)w->reloc_unsigned);
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
	put32(out, w->cputype);
	put32(out, w->cpusubtype);
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
	put32(out, w->minos);
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

/* ---- the probe units -------------------------------------------------------- */

/* What the target's arch means in Mach-O; -1 with e set for an arch macOS lacks. */
static int
mw_init(mw_t *w, const usdt_target_t *t, err_t *e)
{
	memset(w, 0, sizeof(*w));
	switch (t->arch->elf_machine) {
	case EM_X86_64:
		w->cputype = CPU_TYPE_X86_64;
		w->cpusubtype = CPU_SUBTYPE_X86_64_ALL;
		w->minos = 0x000a0900;		/* 10.9 */
		w->reloc_unsigned = X86_64_RELOC_UNSIGNED;
		w->reloc_subtractor = X86_64_RELOC_SUBTRACTOR;
		break;
	case EM_AARCH64:
		w->cputype = CPU_TYPE_ARM64;
		w->cpusubtype = CPU_SUBTYPE_ARM64_ALL;
		w->minos = 0x000b0000;		/* 11.0 */
		w->reloc_unsigned = ARM64_RELOC_UNSIGNED;
		w->reloc_subtractor = ARM64_RELOC_SUBTRACTOR;
		break;
	default:
		return err_set(e, "target %s: no Mach-O CPU for arch %s", t->name,
		    t->arch->name);
	}
	return 0;
}

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
add_unit(mw_t *w, const usdt_target_t *t, size_t text, const mdl_provider_t *p,
    const mdl_probe_t *pr, site_table_t *sites)
{
	const usdt_arch_t *a = t->arch;
	char *func = macos_probe_func(p, pr), *enabled = macos_enabled_func(p, pr);
	char *fsym = func ? symbol_of(func) : NULL, *esym = enabled ? symbol_of(enabled) : NULL;
	uint64_t at = w->sects[text].data.len;
	uint8_t ext = N_SECT | N_EXT | N_PEXT;
	int probe_site = (int)a->probe_offset -
	    macho_tracepoint_adjust(w->cputype, 0);
	int enabled_site = (int)(a->enabled_offset + a->enabled_skip) -
	    macho_tracepoint_adjust(w->cputype, 1);
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
    const usdt_target_t *t, mdl_provider_t **p, err_t *e)
{
	mdl_model_t one = *m;
	dof_image_t img;
	dof_record_locs_t where;
	char name[17], *label;
	size_t sect, sym;
	int rc;

	one.providers = p;
	one.nproviders = 1;
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

/* ---- the program's objects ---------------------------------------------------- */

/* A -v note, as objgen.c writes them. */
static void
note(const objgen_opts_t *o, const char *path, const char *what)
{
	if (o->verbose)
		fprintf(stderr, "usdtc: %s: %s\n", path, what);
}

/* A regular file only, read to the size it had (/dev/zero never ends). */
static int
read_whole(const char *path, uint8_t **bufp, size_t *lenp, err_t *e)
{
	return file_read_regular(path, bufp, lenp, NULL, e);
}

/*
 * An undefined ___dtrace_probe$P$N$... or ___dtrace_isenabled$P$N$...
 * must name probe N (as declared) of provider P.
 */
static int
check_reference(const mdl_model_t *m, const char *path, const char *name, err_t *e)
{
	static const char *const prefixes[] = { "___dtrace_probe$", "___dtrace_isenabled$" };
	const char *body = NULL, *d1, *d2;
	const mdl_provider_t *p;
	char *prov, *probe;
	int rc = 0;

	for (size_t i = 0; i < 2 && body == NULL; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			body = name + strlen(prefixes[i]);
	if (body == NULL)
		return 0;
	if ((d1 = strchr(body, '$')) == NULL || (d2 = strchr(d1 + 1, '$')) == NULL)
		return err_set(e, "%s: %s: not a probe function name (expected "
		    "___dtrace_probe$PROVIDER$PROBE$v1...)", path, name);
	prov = strndup(body, (size_t)(d1 - body));
	probe = strndup(d1 + 1, (size_t)(d2 - d1 - 1));
	if (prov == NULL || probe == NULL)
		rc = err_set(e, "%s: out of memory", path);
	else if ((p = model_find_provider(m, prov)) == NULL ||
	    provider_find_probe(p, probe) == NULL)
		rc = err_set(e, "%s: %s: no probe '%s' in provider '%s'", path, name,
		    probe, prov);
	free(prov);
	free(probe);
	return rc;
}

static int
check_macho_object(const mdl_model_t *m, const mw_t *w, const char *path,
    const uint8_t *buf, size_t len, err_t *e)
{
	macho_file_t f;
	err_t re;
	int rc = 0;

	if (macho_read(buf, len, &f, &re) != 0)
		return err_set(e, "%s: %s", path, re.msg);
	if (f.filetype != MH_OBJECT)
		rc = err_set(e, "%s: not a relocatable object (Mach-O file type %u); "
		    "-G takes the program's .o files", path, f.filetype);
	else if (f.cputype != w->cputype)
		rc = err_set(e, "%s: a Mach-O object for %s, but the target is %s", path,
		    macho_arch_name(f.cputype) ? macho_arch_name(f.cputype) : "another CPU",
		    macho_arch_name(w->cputype));
	for (size_t i = 0; rc == 0 && i < f.nsyms; i++)
		if (!(f.syms[i].type & N_STAB) && (f.syms[i].type & N_TYPE) == N_UNDF)
			rc = check_reference(m, path, f.syms[i].name, e);
	macho_file_free(&f);
	return rc;
}

static int
check_object(const mdl_model_t *m, const mw_t *w, const objgen_opts_t *o,
    const char *path, err_t *e)
{
	uint8_t *buf = NULL;
	size_t len;
	int rc = 0;

	if (read_whole(path, &buf, &len, e) != 0)
		return -1;
	switch (file_magic(buf, len)) {
	case MAGIC_ARCHIVE:
		rc = err_set(e, "%s: is an archive; pass the objects it contains to -G "
		    "instead (extract them with 'ar x')", path);
		break;
	case MAGIC_BITCODE:
		note(o, path, "LLVM bitcode (LTO) object: its probe calls are not checked");
		break;
	case MAGIC_ELF:
		rc = err_set(e, "%s: an ELF object, but target %s writes Mach-O", path,
		    w->cputype == CPU_TYPE_ARM64 ? "arm64-macos" : "x86_64-macos");
		break;
	case MAGIC_MACHO:
		rc = check_macho_object(m, w, path, buf, len, e);
		break;
	default:
		rc = err_set(e, "%s: not a Mach-O object", path);
	}
	free(buf);
	return rc;
}

/* ---- the stage ------------------------------------------------------------------ */

static int
write_file(const char *path, const strbuf_t *bytes, err_t *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0)
		return err_errno(e, errno, "%s", path);
	if (fd_write_all(fd, bytes->data, bytes->len) != 0) {
		int saved = errno;

		close(fd);
		return err_errno(e, saved, "writing %s", path);
	}
	if (close(fd) != 0)
		return err_errno(e, errno, "writing %s", path);
	return 0;
}

/* __text with every probe's unit, then a __dof_ section per provider. */
static int
build(mw_t *w, const mdl_model_t *m, site_table_t *sites, const usdt_target_t *t,
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
macho_objgen_write(const mdl_model_t *m, const usdt_target_t *t,
    const objgen_opts_t *o, const char *out_path, err_t *e)
{
	mw_t w;
	strbuf_t bytes;
	site_table_t sites;
	int rc;

	if (mw_init(&w, t, e) != 0)
		return -1;
	for (size_t i = 0; i < o->nobjects; i++)
		if (check_object(m, &w, o, o->objects[i], e) != 0)
			return -1;
	if (o->lazyload)
		note(o, "-x lazyload", "ignored: dyld registers the DOF of macOS images");
	if (site_table_init(&sites, m) != 0) {
		mw_free(&w);
		return err_set(e, "out of memory building the Mach-O object");
	}
	sb_init(&bytes);
	rc = build(&w, m, &sites, t, e);
	if (rc == 0)
		rc = mw_serialize(&w, &bytes, e);
	if (rc == 0)
		rc = write_file(out_path, &bytes, e);
	sb_free(&bytes);
	site_table_free(&sites);
	mw_free(&w);
	return rc;
}
