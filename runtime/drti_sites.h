/*
 * drti_sites.h - the header's inline probe sites, added to the DOF that
 * drti_lite.c hands DTrace (and records of one function name merged).
 *
 * Why: `-G` run without the program's objects (build style b: glib,
 * libvirt, meson builds) writes a DOF that records only the probe stubs,
 * and on x86_64 the header makes most probes inline sites (a 1-byte nop
 * with its arguments already in the call-convention registers, where
 * DTrace reads them), which never call a stub: DTrace listed those probes
 * and never saw them fire.  Every site, inline or not, has its stapsdt
 * note, which bpftrace reads, so the notes are the list of sites DTrace
 * must get too.  The notes are not loaded (`.note.stapsdt` is not
 * SHF_ALLOC), so, as FreeBSD's drti re-reads its own file, this code maps
 * the file of the object it is linked into (the dynamic loader's name for
 * it; /proc/self/exe for the program), and trusts it only when its program
 * headers are byte for byte the ones the loader mapped.  A note's address
 * is moved by the object's `.stapsdt.base` as tracers move it (the -G
 * object defines `_.stapsdt.base`; its run-time address says where the
 * linker put it), and a site is taken only inside an executable segment
 * of the object, on a 1-byte nop or a breakpoint (drti_site_ok).
 *
 * A note of provider P, probe N (`__` in N is `-` in DOF) becomes an offset
 * of the first probe record of P named N, unless some record of that name
 * already has that address (a stub, a -G-rewritten site): so style c's DOF
 * and every stub stay as they were, and nothing is there twice (dtprobed
 * refuses a probe whose offsets repeat).  Offsets are 32-bit and added to
 * the record's function address, and a site may lie below its stub, so
 * the record's address becomes its lowest tracepoint, and its offsets and
 * is-enabled offsets are written again, after the DOF, as new arrays that
 * the PROFFS and PRENOFFS section headers then point to.
 *
 * The same rewrite makes one record of two that share a probe name and a
 * function name (two `static` functions of one name in two files, which
 * -G records apart): dtprobed files each probe under provider, module,
 * function and name, and refused the whole DOF.  The first record takes
 * the tracepoints of both; the other, left empty, is dropped
 * (drti_drop_empty).
 *
 * All of it runs only after a helper device was opened (drti_extend_t):
 * without DTrace a program's start-up is what it was.  Nothing allocates:
 * the file is mapped for the registration and unmapped after it.
 */
#ifndef USDTC_DRTI_SITES_H
#define USDTC_DRTI_SITES_H

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "drti_proto.h"
#include "stapsdt.h"

/* The object drti_lite.c is in, and the notes of its file once mapped. */
typedef struct drti_sites {
	const drti_reg_t *reg;		/* for drti_say */
	uintptr_t bias;			/* the object's load bias */
	const ElfW(Phdr) *phdr;		/* its program headers, as mapped */
	ElfW(Half) phnum;
	const char *path;		/* its file */
	uintptr_t base;			/* run-time _.stapsdt.base, 0 if none */
	int tried;			/* the file was looked at */
	void *map;			/* the file, mapped; NULL if unusable */
	size_t maplen;
	const char *notes;		/* its .note.stapsdt */
	size_t notes_size;
	const char *dofs;		/* its .SUNW_dof as loaded: every -G object's DOFs */
	size_t dofs_size;
	const void *dof;		/* the DOF being registered, in .SUNW_dof */
} drti_sites_t;

/* One stapsdt note. */
typedef struct drti_note {
	const char *provider, *name;
	uint64_t site;			/* link-time address, base-adjusted */
} drti_note_t;

/* The section of the mapped ELF file named name, of type type, into *sec; 0 or -1. */
static int
drti_elf_section(const drti_sites_t *s, const char *name, uint32_t type, ElfW(Shdr) *sec)
{
	const ElfW(Ehdr) *eh = s->map;
	const ElfW(Shdr) *sh, *strs;

	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
	    eh->e_shoff > s->maplen || eh->e_shnum > (s->maplen - eh->e_shoff) / sizeof(*sh) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return -1;
	sh = (const ElfW(Shdr) *)(const void *)((const char *)s->map + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > s->maplen || strs->sh_size > s->maplen - strs->sh_offset)
		return -1;
	for (ElfW(Half) i = 0; i < eh->e_shnum; i++) {
		const char *n = (const char *)s->map + strs->sh_offset + sh[i].sh_name;

		if (sh[i].sh_name >= strs->sh_size ||
		    memchr(n, '\0', strs->sh_size - sh[i].sh_name) == NULL ||
		    drti_strcmp(n, name) != 0 || sh[i].sh_type != type)
			continue;
		if (sh[i].sh_offset > s->maplen || sh[i].sh_size > s->maplen - sh[i].sh_offset)
			return -1;
		*sec = sh[i];
		return 0;
	}
	return -1;
}

/* Whether the mapped file is the object the loader mapped: same program headers. */
static int
drti_same_object(const drti_sites_t *s)
{
	const ElfW(Ehdr) *eh = s->map;

	if (s->maplen < sizeof(*eh) || drti_memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum != s->phnum ||
	    eh->e_phoff > s->maplen || s->maplen - eh->e_phoff < s->phnum * sizeof(ElfW(Phdr)))
		return 0;
	return drti_memcmp((const char *)s->map + eh->e_phoff, s->phdr,
	    s->phnum * sizeof(ElfW(Phdr))) == 0;
}

/* Whether [addr, addr + size) lies in one PT_LOAD segment of the object. */
static int
drti_site_in_load(const drti_sites_t *s, uint64_t addr, uint64_t size)
{
	for (ElfW(Half) i = 0; i < s->phnum; i++) {
		const ElfW(Phdr) *ph = &s->phdr[i];

		if (ph->p_type == PT_LOAD && addr >= ph->p_vaddr &&
		    addr - ph->p_vaddr <= ph->p_memsz && size <= ph->p_memsz - (addr - ph->p_vaddr))
			return 1;
	}
	return 0;
}

/* Map the object's file and find its notes, once; whether there are any. */
static int
drti_sites_load(drti_sites_t *s)
{
	struct stat st;
	ElfW(Shdr) sec;
	int fd;

	if (s->tried)
		return s->notes != NULL;
	s->tried = 1;
	if ((fd = drti_open(s->path, O_RDONLY)) < 0)
		return drti_say(s->reg, "cannot open %s for its notes: %m", s->path), 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		s->maplen = (size_t)st.st_size;
		s->map = mmap(NULL, s->maplen, PROT_READ, MAP_PRIVATE, fd, 0);
		if (s->map == MAP_FAILED)
			s->map = NULL;
	}
	drti_close(fd);
	if (s->map == NULL || !drti_same_object(s)) {
		drti_say(s->reg, "%s is not the object loaded: no inline sites", s->path);
		return 0;
	}
	if (drti_elf_section(s, STAPSDT_NOTE_SECTION, SHT_NOTE, &sec) == 0) {
		s->notes = (const char *)s->map + sec.sh_offset;
		s->notes_size = sec.sh_size;
	}
	if (drti_elf_section(s, DOF_ELF_SECTION, SHT_SUNW_dof, &sec) != 0 ||
	    !(sec.sh_flags & SHF_ALLOC) || !drti_site_in_load(s, sec.sh_addr, sec.sh_size)) {
		drti_say(s->reg, "%s has no %s where it is loaded: no inline sites", s->path,
		    DOF_ELF_SECTION);
		s->notes = NULL;
		return 0;
	}
	s->dofs = (const char *)(s->bias + (uintptr_t)sec.sh_addr);
	s->dofs_size = sec.sh_size;
	return s->notes != NULL;
}

static void
drti_sites_unload(drti_sites_t *s)
{
	if (s->map != NULL)
		drti_munmap(s->map, s->maplen);
	s->map = NULL;
	s->notes = NULL;
	s->notes_size = 0;	/* a fork child's load may fail: no stale size */
	s->tried = 0;
}

/*
 * The stapsdt note at *off of the notes into *n, *off moved past it; 1,
 * 0 at the end, -1 for a note that is not one (skipped).
 */
static int
drti_note_at(const drti_sites_t *s, size_t *off, drti_note_t *n)
{
	const uint32_t *w = (const uint32_t *)(const void *)(s->notes + *off);
	size_t namesz, descsz, desc, end;
	const char *d;
	uint64_t a[STAPSDT_NADDRS];

	if (s->notes == NULL || *off + 12 > s->notes_size)
		return 0;
	namesz = w[0];
	descsz = w[1];
	desc = *off + 12 + ((namesz + 3) & ~(size_t)3);
	if (namesz > s->notes_size || descsz > s->notes_size || desc > s->notes_size ||
	    descsz > s->notes_size - desc)
		return 0;
	end = desc + ((descsz + 3) & ~(size_t)3);
	*off = end;
	if (w[2] != STAPSDT_NOTE_TYPE || namesz != sizeof(STAPSDT_NOTE_NAME) ||
	    drti_memcmp(w + 3, STAPSDT_NOTE_NAME, namesz) != 0 || descsz < sizeof(a) + 2)
		return -1;
	d = s->notes + desc;
	memcpy(a, d, sizeof(a));
	n->provider = d + sizeof(a);
	if (memchr(n->provider, '\0', descsz - sizeof(a)) == NULL)
		return -1;
	n->name = n->provider + strlen(n->provider) + 1;
	if ((size_t)(n->name - d) >= descsz || memchr(n->name, '\0', descsz - (size_t)(n->name - d)) == NULL)
		return -1;
	n->site = a[STAPSDT_PC];
	if (s->base != 0 && a[STAPSDT_BASE] != 0)
		n->site += (uint64_t)(s->base - s->bias) - a[STAPSDT_BASE];
	return 1;
}

/*
 * Whether the link-time address site is one of the header's inline sites:
 * inside an executable segment of the object, a 1-byte nop (or a uprobe's
 * int3 on one) that is not the start of a stub's 5-byte nop (0f 1f 44 00
 * 00; a unit's note points there, and -G leaves out the stubs nothing
 * calls).  Only x86_64 has inline sites (header.c): elsewhere every note is
 * a stub's or a site -G recorded.
 */
static int
drti_site_ok(const drti_sites_t *s, uint64_t site)
{
#if defined(__x86_64__)
	static const uint8_t nop5_tail[] = { 0x1f, 0x44, 0x00, 0x00 };

	for (ElfW(Half) i = 0; i < s->phnum; i++) {
		const ElfW(Phdr) *ph = &s->phdr[i];
		const volatile uint8_t *at = (const volatile uint8_t *)(s->bias + (uintptr_t)site);
		int stub = 1;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || site < ph->p_vaddr ||
		    site - ph->p_vaddr >= ph->p_filesz)
			continue;
		if (at[0] != 0x90 && at[0] != 0xcc)
			return 0;
		for (size_t k = 0; k < sizeof(nop5_tail) && stub; k++)
			stub = site - ph->p_vaddr + 1 + k < ph->p_filesz && at[1 + k] == nop5_tail[k];
		return !stub;
	}
#else
	(void)s;
	(void)site;
#endif
	return 0;
}

/* Whether the DOF probe name dof is the note's probe name (`__` there is `-` here). */
static int
drti_name_is(const char *dof, const char *note)
{
	while (*dof != '\0' && *note != '\0') {
		if (*dof == '-' && note[0] == '_' && note[1] == '_')
			note += 2;
		else if (*dof == *note)
			note++;
		else
			return 0;
		dof++;
	}
	return *dof == '\0' && *note == '\0';
}

/* One provider of a DOF copy, its sections found. */
typedef struct drti_dofprov {
	char *d;			/* the DOF */
	size_t size;
	const char *strtab;
	size_t strsz;
	dof_sec_t *probes, *offs, *enoffs;	/* enoffs NULL if none */
	const char *name;
} drti_dofprov_t;

static dof_probe_t *
drti_probe(const drti_dofprov_t *p, uint64_t j)
{
	return (dof_probe_t *)(void *)(p->d + p->probes->dofs_offset + j * p->probes->dofs_entsize);
}

static const char *
drti_str(const drti_dofprov_t *p, uint32_t i)
{
	return i < p->strsz && memchr(p->strtab + i, '\0', p->strsz - i) != NULL ?
	    p->strtab + i : "";
}

/* Whether every offset array of every record lies in its section. */
static int
drti_records_ok(const drti_dofprov_t *p)
{
	uint64_t nrec = p->probes->dofs_size / p->probes->dofs_entsize;

	for (uint64_t j = 0; j < nrec; j++) {
		const dof_probe_t *pr = drti_probe(p, j);

		if (((uint64_t)pr->dofpr_offidx + pr->dofpr_noffs) * 4 > p->offs->dofs_size ||
		    (pr->dofpr_nenoffs != 0 && (p->enoffs == NULL ||
		    ((uint64_t)pr->dofpr_enoffidx + pr->dofpr_nenoffs) * 4 > p->enoffs->dofs_size)))
			return 0;
	}
	return 1;
}

/*
 * Section i of the DOF d, if it is a provider that can be read
 * (drti_provider_at, then its offsets and strings), in *p; 0, or -1.
 */
static int
drti_dofprov(char *d, size_t size, uint32_t i, drti_dofprov_t *p)
{
	dof_provider_t *prov;
	dof_sec_t *st;

	if (drti_provider_at(d, size, i, &prov, &p->probes) <= 0)
		return -1;
	p->d = d;
	p->size = size;
	p->offs = drti_dof_section(d, size, prov->dofpv_proffs);
	st = drti_dof_section(d, size, prov->dofpv_strtab);
	p->enoffs = prov->dofpv_prenoffs == DOF_SECT_NONE ? NULL :
	    drti_dof_section(d, size, prov->dofpv_prenoffs);
	if (p->offs == NULL || st == NULL || p->offs->dofs_offset % 4 != 0 ||
	    (p->enoffs != NULL && p->enoffs->dofs_offset % 4 != 0))
		return -1;
	p->strtab = d + st->dofs_offset;
	p->strsz = st->dofs_size;
	p->name = drti_str(p, prov->dofpv_name);
	return drti_records_ok(p) ? 0 : -1;
}

/*
 * The link-time address site as record pr holds addresses: the dynamic
 * loader has already relocated a -G object's DOF in a PIE or a shared
 * library (.SUNW_dof is writable), and dtprobed, like this, takes an
 * address above the load bias as relocated.
 */
static uint64_t
drti_dof_form(const drti_sites_t *s, const dof_probe_t *pr, uint64_t site)
{
	return s->bias != 0 && pr->dofpr_addr > s->bias ? site + s->bias : site;
}

/* Whether record j has the tracepoint at the link-time address site. */
static int
drti_record_has(const drti_sites_t *s, const drti_dofprov_t *p, uint64_t j, uint64_t site)
{
	const dof_probe_t *pr = drti_probe(p, j);
	const uint32_t *o = (const uint32_t *)(const void *)(p->d + p->offs->dofs_offset);

	for (uint32_t k = 0; k < pr->dofpr_noffs; k++)
		if (pr->dofpr_addr + o[pr->dofpr_offidx + k] == drti_dof_form(s, pr, site))
			return 1;
	return 0;
}

/*
 * The DOF after the one at *at in the object's .SUNW_dof, or NULL: each
 * -G object's list of DOFs (8-aligned, zero-ended) where the linker put it.
 */
static const char *
drti_next_dof(const drti_sites_t *s, size_t *at)
{
	while (*at + sizeof(dof_hdr_t) <= s->dofs_size) {
		const char *d = s->dofs + *at;
		const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;

		if (!drti_dof_magic_ok(d)) {
			*at += 8;
			continue;
		}
		if (h->dofh_loadsz < sizeof(*h) || h->dofh_loadsz > s->dofs_size - *at)
			return NULL;
		*at += (h->dofh_loadsz + 7) & ~(uint64_t)7;
		return d;
	}
	return NULL;
}

/* Provider prov of the DOF d (loaded, read only here) into *p; 0 or -1. */
static int
drti_find_provider(const char *d, const char *prov, drti_dofprov_t *p)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(const void *)d;

	for (uint32_t i = 0; i < h->dofh_secnum; i++)
		if (drti_dofprov((char *)d, h->dofh_loadsz, i, p) == 0 &&
		    drti_strcmp(p->name, prov) == 0)
			return 0;
	return -1;
}

/*
 * Whether note n is a site this DOF should add: no DOF of the object
 * (several -G objects may be linked together) has a record of its probe
 * at its address, and this DOF is the first of them with its provider.
 */
static int
drti_note_unrecorded(const drti_sites_t *s, const drti_note_t *n)
{
	const char *d;
	size_t at = 0;
	int first = -1;
	drti_dofprov_t p;

	while ((d = drti_next_dof(s, &at)) != NULL) {
		if (drti_find_provider(d, n->provider, &p) != 0)
			continue;
		if (first < 0)
			first = d == s->dof;
		for (uint64_t j = 0; j < p.probes->dofs_size / p.probes->dofs_entsize; j++)
			if (drti_name_is(drti_str(&p, drti_probe(&p, j)->dofpr_name), n->name) &&
			    drti_record_has(s, &p, j, n->site))
				return 0;
	}
	return first == 1;
}

/* The record note n adds a site to, or -1: none of its name, or one has it. */
static int64_t
drti_note_record(const drti_sites_t *s, const drti_dofprov_t *p, const drti_note_t *n)
{
	uint64_t nrec = p->probes->dofs_size / p->probes->dofs_entsize;

	if (drti_strcmp(n->provider, p->name) != 0)
		return -1;
	for (uint64_t j = 0; j < nrec; j++)
		if (drti_name_is(drti_str(p, drti_probe(p, j)->dofpr_name), n->name))
			return drti_note_unrecorded(s, n) ? (int64_t)j : -1;
	return -1;
}

/*
 * Whether records j and k are one probe of one function name: two static
 * functions of one name in two files (-G records each under its name).
 * dtprobed refuses a DOF with two such records (it files each probe under
 * provider, module, function and name), so they become one, with the
 * tracepoints of both, under the first: its leader.
 */
static int
drti_same_probe(const drti_dofprov_t *p, uint64_t j, uint64_t k)
{
	const dof_probe_t *a = drti_probe(p, j), *b = drti_probe(p, k);

	return drti_strcmp(drti_str(p, a->dofpr_name), drti_str(p, b->dofpr_name)) == 0 &&
	    drti_strcmp(drti_str(p, a->dofpr_func), drti_str(p, b->dofpr_func)) == 0;
}

static int
drti_is_leader(const drti_dofprov_t *p, uint64_t j)
{
	for (uint64_t k = 0; k < j; k++)
		if (drti_same_probe(p, k, j))
			return 0;
	return 1;
}

/* site into out[*cnt] (if out is not NULL and it is not there yet), *lo lowered. */
static void
drti_put_site(uint64_t *out, uint32_t *cnt, uint64_t site, uint64_t *lo)
{
	if (out != NULL) {
		uint32_t k = 0;

		while (k < *cnt && out[k] != site)	/* a site noted twice */
			k++;
		if (k < *cnt)
			return;
		out[*cnt] = site;
	}
	++*cnt;
	if (site < *lo)
		*lo = site;
}

/*
 * The tracepoints of record j, old and new, as it holds addresses: into
 * out (if not NULL) the old offsets of j and of the records it leads and
 * the notes' sites for it; returns how many (none if j is led by
 * another), and the lowest address in *lo.
 */
static uint32_t
drti_record_sites(const drti_sites_t *s, const drti_dofprov_t *p, uint64_t j,
    uint64_t *out, uint64_t *lo)
{
	const dof_probe_t *pr = drti_probe(p, j);
	const uint32_t *o = (const uint32_t *)(const void *)(p->d + p->offs->dofs_offset);
	uint64_t nrec = p->probes->dofs_size / p->probes->dofs_entsize;
	uint32_t cnt = 0;
	drti_note_t n;
	size_t off = 0;
	int rc;

	*lo = pr->dofpr_addr;
	if (!drti_is_leader(p, j))
		return 0;
	for (uint64_t m = j; m < nrec; m++) {
		const dof_probe_t *pm = drti_probe(p, m);

		if (m != j && (!drti_same_probe(p, j, m) || pm->dofpr_addr - pr->dofpr_addr +
		    0x7fffffffu > 0xfffffffeu))
			continue;
		for (uint32_t k = 0; k < pm->dofpr_noffs && cnt < UINT16_MAX; k++)
			drti_put_site(out, &cnt, pm->dofpr_addr + o[pm->dofpr_offidx + k], lo);
	}
	while ((rc = drti_note_at(s, &off, &n)) != 0) {
		uint64_t site = drti_dof_form(s, pr, n.site);

		if (rc < 0 || cnt == UINT16_MAX || !drti_name_is(drti_str(p, pr->dofpr_name), n.name) ||
		    drti_note_record(s, p, &n) != (int64_t)j ||
		    !drti_site_ok(s, n.site) || pr->dofpr_addr - site + 0x7fffffffu > 0xfffffffeu)
			continue;
		drti_put_site(out, &cnt, site, lo);
	}
	return cnt;
}

/* How many notes the file has: a bound on the sites any DOF can gain. */
static size_t
drti_note_count(const drti_sites_t *s)
{
	drti_note_t n;
	size_t off = 0, cnt = 0;

	while (drti_note_at(s, &off, &n) != 0)
		cnt++;
	return cnt;
}

/* drti_extend_t's room: new offset arrays of every provider, with every note. */
static size_t
drti_sites_room(void *arg, const void *dof)
{
	drti_sites_t *s = arg;
	const dof_hdr_t *h = dof;

	s->dof = dof;
	drti_sites_load(s);	/* without notes, records of one name still merge */
	/*
	 * Per provider: its offset arrays, with a site per note at most (the
	 * old ones fit in the DOF's size), then scratch: a drti_newrec_t per
	 * record (48 bytes of DOF each) and 8 bytes per site of one record.
	 */
	return 64 + 4 * (size_t)h->dofh_loadsz + 16 * drti_note_count(s) * h->dofh_secnum;
}

/* Where record j's tracepoints go, worked out before any record changes. */
typedef struct drti_newrec {
	uint64_t lo;			/* its new function address */
	uint32_t offidx, noffs, enoffidx, nenoffs;
} drti_newrec_t;

/* The is-enabled offsets of record j and those it leads, each as f(..., address). */
static uint32_t
drti_record_enabled(const drti_dofprov_t *p, uint64_t j, uint32_t *out, uint64_t *lo)
{
	const uint32_t *eo = p->enoffs == NULL ? NULL :
	    (const uint32_t *)(const void *)(p->d + p->enoffs->dofs_offset);
	uint64_t nrec = p->probes->dofs_size / p->probes->dofs_entsize;
	uint32_t cnt = 0;

	if (eo == NULL || !drti_is_leader(p, j))
		return 0;
	for (int pass = 0; pass < 2; pass++, cnt = 0) {
		for (uint64_t m = j; m < nrec; m++) {
			const dof_probe_t *pm = drti_probe(p, m);

			if (m != j && !drti_same_probe(p, j, m))
				continue;
			for (uint32_t k = 0; k < pm->dofpr_nenoffs && cnt < UINT16_MAX; k++, cnt++) {
				uint64_t at = pm->dofpr_addr + eo[pm->dofpr_enoffidx + k];

				if (pass == 0 && at < *lo)
					*lo = at;
				else if (pass == 1 && out != NULL)
					out[cnt] = (uint32_t)(at - *lo);
			}
		}
		if (pass == 1 || out == NULL)
			break;
	}
	return cnt;
}

/*
 * Record j's tracepoints written at *at (advanced) from its lowest one,
 * its is-enabled offsets at *enat (advanced); the record itself is left
 * as it is, for the other records' look-ups, and what it becomes is in
 * *nr.  scratch: room for its sites.
 */
static void
drti_rebase_record(const drti_sites_t *s, const drti_dofprov_t *p, uint64_t j, size_t *at,
    size_t *enat, uint64_t *scratch, drti_newrec_t *nr)
{
	uint32_t *no = (uint32_t *)(void *)(p->d + *at), *neo = (uint32_t *)(void *)(p->d + *enat);
	uint64_t lo;
	uint32_t cnt = drti_record_sites(s, p, j, scratch, &lo), ecnt;

	drti_record_enabled(p, j, NULL, &lo);		/* the lowest of both */
	ecnt = drti_record_enabled(p, j, neo, &lo);
	for (uint32_t k = 0; k < cnt; k++)
		no[k] = (uint32_t)(scratch[k] - lo);
	nr->lo = lo;
	nr->noffs = cnt;
	nr->nenoffs = ecnt;
	*at += 4 * (size_t)cnt;
	*enat += 4 * (size_t)ecnt;
}

/*
 * Provider p's records with the notes' sites added, their arrays written
 * from *end (advanced) within cap; 1 if any site was added.
 */
static int
drti_extend_provider(const drti_sites_t *s, drti_dofprov_t *p, size_t *end, size_t cap)
{
	uint64_t nrec = p->probes->dofs_size / p->probes->dofs_entsize, lo, added = 0, led = 0;
	uint64_t total = 0, entotal = 0, most = 0;
	size_t at, enat, offs0, recs, scratch;
	drti_newrec_t *nr;

	for (uint64_t j = 0; j < nrec; j++) {
		uint32_t cnt = drti_record_sites(s, p, j, NULL, &lo);

		if (!drti_is_leader(p, j))
			led++;
		else
			added += cnt - drti_probe(p, j)->dofpr_noffs;
		total += cnt;
		entotal += drti_probe(p, j)->dofpr_nenoffs;
		most = cnt > most ? cnt : most;
	}
	offs0 = at = (*end + 7) & ~(size_t)7;
	enat = at + 4 * total;
	recs = (enat + 4 * entotal + 7) & ~(size_t)7;
	scratch = recs + nrec * sizeof(*nr);
	if ((added == 0 && led == 0) || scratch > cap || (cap - scratch) / 8 < most)
		return 0;
	nr = (drti_newrec_t *)(void *)(p->d + recs);
	for (uint64_t j = 0; j < nrec; j++) {
		nr[j].offidx = (uint32_t)((at - offs0) / 4);
		nr[j].enoffidx = (uint32_t)((enat - offs0) / 4 - total);
		drti_rebase_record(s, p, j, &at, &enat, (uint64_t *)(void *)(p->d + scratch), &nr[j]);
	}
	for (uint64_t j = 0; j < nrec; j++) {
		dof_probe_t *pr = drti_probe(p, j);

		pr->dofpr_addr = nr[j].lo;
		pr->dofpr_offidx = nr[j].offidx;
		pr->dofpr_noffs = (uint16_t)nr[j].noffs;
		pr->dofpr_enoffidx = p->enoffs == NULL || nr[j].nenoffs == 0 ? 0 : nr[j].enoffidx;
		pr->dofpr_nenoffs = (uint16_t)nr[j].nenoffs;
	}
	p->offs->dofs_offset = offs0;
	p->offs->dofs_size = 4 * total;
	if (p->enoffs != NULL) {
		p->enoffs->dofs_offset = offs0 + 4 * total;
		p->enoffs->dofs_size = 4 * entotal;
	}
	memset(p->d + recs, 0, cap - recs);	/* the scratch is not DOF */
	*end = enat;
	return led > 0 ? 2 : 1;
}

/* drti_extend_t's add: the notes' sites in every provider of the copy. */
static size_t
drti_sites_add(void *arg, char *copy, size_t size, size_t cap)
{
	drti_sites_t *s = arg;
	dof_hdr_t *h = (dof_hdr_t *)(void *)copy;
	size_t end = size, added = 0;
	int rc, merged = 0;

	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		drti_dofprov_t p;

		if (drti_dofprov(copy, size, i, &p) != 0)
			continue;
		rc = drti_extend_provider(s, &p, &end, cap);
		added += rc > 0;
		merged |= rc == 2;
	}
	if (added == 0)
		return size;
	end = (end + 7) & ~(size_t)7;
	h->dofh_loadsz = h->dofh_filesz = end;
	if (merged && drti_drop_empty(copy, end) < 0)
		drti_say(s->reg, "cannot drop the records merged into others");
	drti_say(s->reg, "inline sites from %s added (%zu bytes of DOF)", s->path, end);
	return end;
}

#endif
