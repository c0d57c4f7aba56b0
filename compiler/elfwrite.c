/*
 * elfwrite.c - the ELF object builder and its ET_REL writer (elfwrite.h).
 *
 * The builder keeps sections, groups, symbols and relocations as plain
 * arrays addressed by 1-based handles; nothing about the file exists until
 * a writer runs.  elfw_write_rel then decides everything a relocatable
 * object needs that the caller should not have to think about:
 *
 *  - section indices: SHT_GROUP sections first (the gABI wants a group
 *    before its members), then each section immediately followed by the
 *    RELA section that relocates it, then .symtab, .strtab, .shstrtab;
 *  - extended section numbering when there are SHN_LORESERVE (0xff00)
 *    sections or more, as a -G object of ten thousand probes has: the
 *    count in section 0's sh_size (libelf puts it there), the .shstrtab
 *    index in section 0's sh_link with e_shstrndx = SHN_XINDEX, and a
 *    .symtab_shndx section after .symtab holding the index of every
 *    symbol whose st_shndx says SHN_XINDEX;
 *  - the symbol table: the null symbol, every STB_LOCAL symbol, then the
 *    rest, with sh_info = the first non-local index, as the gABI requires;
 *  - group membership: a member gets SHF_GROUP, and so does its RELA
 *    section, which is also listed in the group (a linker that discards the
 *    group must discard the relocations with it);
 *  - string tables (each string stored once): .strtab is made in place
 *    of the symbols' names as they were added (build_strtab), not copied;
 *  - the file layout (lay_out).
 *
 * All ELF structures go through GElf, so one routine serves ELFCLASS32 and
 * ELFCLASS64.  Every libelf failure is reported with the call's name and
 * elf_errmsg(-1); elf_end runs on every path.
 *
 * The ET_DYN writer libusdt uses reads the same description and lives in
 * elfdyn.c; the structures both writers share are in elfw_int.h.
 *
 * This file only writes: the one routine that edits an existing file,
 * elfw_localize_symbol (after `ld -r`, -x ldpath=), is with the merge it
 * stands in for, in elfmerge.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfenc.h"
#include "elfw_int.h"
#include "elfwrite.h"
#include "fileio.h"
#include "hash.h"
#include "idset.h"
#include "strbuf.h"

/* ---- errors and growth -------------------------------------------------- */

/* Latch the first error; later ones are consequences of it. */
static int
fail(elfw_t *w, const char *what)
{
	if (!w->failed) {
		w->failed = true;
		err_set(&w->err, "ELF writer: %s", what);
	}
	return -1;
}

/* Make room for one more element in *arrayp; false on allocation failure. */
bool
elfw_grow(void *arrayp, size_t n, size_t *capp, size_t elem)
{
	void **ap = arrayp;
	size_t cap = *capp ? *capp * 2 : 16;
	void *p;

	if (n < *capp)
		return true;
	if ((p = realloc(*ap, cap * elem)) == NULL)
		return false;
	*ap = p;
	*capp = cap;
	return true;
}

static bool
libelf_ready(err_t *e)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err_set(e, "libelf is out of date: elf_version failed: %s",
		    elf_errmsg(-1));
		return false;
	}
	return true;
}

/* ---- the builder -------------------------------------------------------- */

static void elfw_names_free(elfw_names_t *a);

elfw_t *
elfw_new(unsigned elf_class, unsigned machine, err_t *e)
{
	elfw_t *w;

	if (!libelf_ready(e))
		return NULL;
	if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64) {
		err_set(e, "ELF writer: unknown ELF class %u", elf_class);
		return NULL;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		err_errno(e, ENOMEM, "ELF writer");
		return NULL;
	}
	w->elf_class = elf_class;
	w->machine = machine;
	return w;
}

void
elfw_free(elfw_t *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->nsecs; i++) {
		free(w->secs[i].data);
		free(w->secs[i].rels);
	}
	sb_free(&w->symnames);
	elfw_names_free(&w->secnames);
	free(w->secs);
	free(w->syms);
	free(w->wide);
	free(w->groups);
	idset_free(&w->names);
	free(w);
}

bool
elfw_failed(const elfw_t *w, err_t *e)
{
	if (w->failed && e != NULL)
		*e = w->err;
	return w->failed;
}

void
elfw_class_and_machine(const elfw_t *w, unsigned *elf_class, unsigned *machine)
{
	*elf_class = w->elf_class;
	*machine = w->machine;
}

static bool
valid_section(const elfw_t *w, int h)
{
	return h > 0 && (size_t)h <= w->nsecs;
}

bool
elfw_valid_symbol(const elfw_t *w, int h)
{
	return h > 0 && (size_t)h <= w->nsyms;
}

const char *
elfw_sym_name(const elfw_t *w, const elfw_sym_t *s)
{
	return w->symnames.data + s->name;
}

static int
cmp_wide(const void *key, const void *elem)
{
	size_t k = *(const size_t *)key, e = ((const elfw_wide_t *)elem)->sym;

	return k < e ? -1 : k > e;
}

/* The wide value and size of s (it says ELFW_SYM_WIDE): w->wide is by position. */
static const elfw_wide_t *
wide_of(const elfw_t *w, const elfw_sym_t *s)
{
	size_t at = (size_t)(s - w->syms);

	return bsearch(&at, w->wide, w->nwide, sizeof(*w->wide), cmp_wide);
}

uint64_t
elfw_sym_value(const elfw_t *w, const elfw_sym_t *s)
{
	return s->value != ELFW_SYM_WIDE ? s->value : wide_of(w, s)->value;
}

uint64_t
elfw_sym_size(const elfw_t *w, const elfw_sym_t *s)
{
	return s->value != ELFW_SYM_WIDE ? s->size : wide_of(w, s)->size;
}

/*
 * Value and size into s, at position at of w->syms: 32 bits each, or
 * both ELFW_SYM_WIDE and the two in w->wide (appended: positions only
 * grow).  False when memory runs out.
 */
static bool
set_value_size(elfw_t *w, elfw_sym_t *s, size_t at, uint64_t value, uint64_t size)
{
	if (value < ELFW_SYM_WIDE && size < ELFW_SYM_WIDE) {
		s->value = (uint32_t)value;
		s->size = (uint32_t)size;
		return true;
	}
	if (!elfw_grow(&w->wide, w->nwide, &w->widecap, sizeof(*w->wide)))
		return false;
	w->wide[w->nwide++] = (elfw_wide_t){ at, value, size };
	s->value = s->size = ELFW_SYM_WIDE;
	return true;
}

int
elfw_add_group(elfw_t *w)
{
	if (w->failed)
		return -1;
	if (!elfw_grow(&w->groups, w->ngroups, &w->groupcap, sizeof(*w->groups)))
		return fail(w, "out of memory");
	w->groups[w->ngroups].signature = 0;
	w->groups[w->ngroups].index = 0;
	return (int)++w->ngroups;
}

int
elfw_set_group_signature(elfw_t *w, int group, int symbol)
{
	if (w->failed)
		return -1;
	if (group <= 0 || (size_t)group > w->ngroups || !elfw_valid_symbol(w, symbol))
		return fail(w, "group signature names no group or no symbol");
	w->groups[group - 1].signature = symbol;
	return 0;
}

/*
 * A copy of name that lives as long as the builder, NULL when memory runs
 * out.  The names of sections are packed into blocks of
 * NAME_BLOCK bytes (a name over a quarter of that gets a block of its
 * own), never moved,
 * so a name stays where it is while more are added: a separate allocation
 * per name cost malloc's 16 bytes and its rounding to 16 on each of the
 * four or five symbols a probe has (issue 40).
 */
#define NAME_BLOCK 65536

static char *
elfw_name(elfw_names_t *a, const char *name)
{
	size_t n = strlen(name) + 1;
	char *block;

	if (!elfw_grow(&a->blocks, a->nblocks, &a->blockcap, sizeof(*a->blocks)))
		return NULL;
	if (n > NAME_BLOCK / 4) {	/* a block of its own, the current one kept */
		if ((block = malloc(n)) == NULL)
			return NULL;
		a->blocks[a->nblocks++] = block;
		return memcpy(block, name, n);
	}
	if (n > a->left) {
		if ((block = malloc(NAME_BLOCK)) == NULL)
			return NULL;
		a->blocks[a->nblocks++] = block;
		a->next = block;
		a->left = NAME_BLOCK;
	}
	block = a->next;
	a->next += n;
	a->left -= n;
	return memcpy(block, name, n);
}

static void
elfw_names_free(elfw_names_t *a)
{
	for (size_t i = 0; i < a->nblocks; i++)
		free(a->blocks[i]);
	free(a->blocks);
	memset(a, 0, sizeof(*a));
}

/* A section whose bytes are d->data's copy, or `owned` (malloc'd, taken). */
static int
add_section(elfw_t *w, const elfw_section_desc_t *d, void *owned)
{
	elfw_sec_t s = { 0 };

	if (w->failed) {
		free(owned);
		return -1;
	}
	if (d->name == NULL || (d->group != 0 &&
	    (d->group < 0 || (size_t)d->group > w->ngroups))) {
		free(owned);
		return fail(w, "section without a name, or in an unknown group");
	}
	if (d->align > 1 && (d->align & (d->align - 1)) != 0) {
		free(owned);
		return fail(w, "section alignment is not a power of two");
	}
	s.type = d->type;
	s.flags = d->flags;
	s.align = d->align ? d->align : 1;
	s.entsize = d->entsize;
	s.size = d->size;
	s.group = d->group;
	if ((s.name = elfw_name(&w->secnames, d->name)) == NULL) {
		free(owned);
		return fail(w, "out of memory");
	}
	if (owned != NULL)
		s.data = owned;
	else if (d->size > 0 && d->type != SHT_NOBITS) {
		if ((s.data = calloc(1, d->size)) == NULL)
			return fail(w, "out of memory");
		if (d->data != NULL)
			memcpy(s.data, d->data, d->size);
	}
	if (!elfw_grow(&w->secs, w->nsecs, &w->seccap, sizeof(*w->secs))) {
		free(s.data);
		return fail(w, "out of memory");
	}
	w->secs[w->nsecs] = s;
	return (int)++w->nsecs;
}

int
elfw_add_section(elfw_t *w, const elfw_section_desc_t *d)
{
	return add_section(w, d, NULL);
}

int
elfw_adopt_section(elfw_t *w, const elfw_section_desc_t *d, void *data)
{
	if (data == NULL)
		return fail(w, "out of memory");
	return add_section(w, d, data);
}

/* Symbol names are short and many differ only at the end (hash.h). */
static uint64_t
name_hash(const char *s)
{
	return hash_str(HASH_FNV_OFFSET, s);
}

/* Is the name of symbol handle id + 1 the string key? */
static bool
sym_name_is(const void *ctx, size_t id, const void *key)
{
	const elfw_t *w = ctx;

	return strcmp(elfw_sym_name(w, &w->syms[id]), key) == 0;
}

/* Remember that name now means handle h (the most recent wins). */
static bool
names_put(elfw_t *w, int h)
{
	const char *name = elfw_sym_name(w, &w->syms[h - 1]);

	if (name[0] == '\0')
		return true;
	return idset_set(&w->names, name_hash(name), (size_t)h - 1, sym_name_is, w, name);
}

/*
 * Name's offset in w->symnames, appended there (the empty name is offset
 * 0); -1 when memory runs out or the names pass the 4 GB .strtab can
 * address.  One buffer, not a block per name: it becomes .strtab.
 */
static int64_t
add_sym_name(elfw_t *w, const char *name)
{
	size_t n = strlen(name) + 1, at;

	if (w->symnames.len == 0)
		sb_u8(&w->symnames, 0);
	if (name[0] == '\0')
		return w->symnames.failed ? -1 : 0;
	at = w->symnames.len;
	if (at + n > UINT32_MAX)
		return -1;
	sb_append(&w->symnames, name, n);
	return w->symnames.failed ? -1 : (int64_t)at;
}

int
elfw_add_symbol(elfw_t *w, const elfw_symbol_desc_t *d)
{
	elfw_sym_t s = { 0 };
	int64_t name;
	int h;

	if (w->failed)
		return -1;
	if (d->section != ELFW_UNDEF && d->section != ELFW_ABS &&
	    !valid_section(w, d->section))
		return fail(w, "symbol in an unknown section");
	s.section = d->section;
	s.info = (unsigned char)GELF_ST_INFO(d->bind, d->type);
	s.other = (unsigned char)GELF_ST_VISIBILITY(d->visibility);
	if ((name = add_sym_name(w, d->name != NULL ? d->name : "")) < 0 ||
	    !elfw_grow(&w->syms, w->nsyms, &w->symcap, sizeof(*w->syms)) ||
	    !set_value_size(w, &s, w->nsyms, d->value, d->size))
		return fail(w, "out of memory, or the symbols' names pass 4 GB");
	s.name = (uint32_t)name;
	w->syms[w->nsyms] = s;
	h = (int)++w->nsyms;
	if (!names_put(w, h))
		return fail(w, "out of memory");
	return h;
}

int
elfw_section_symbol(elfw_t *w, int section)
{
	elfw_symbol_desc_t d = { "", section, 0, 0, STB_LOCAL, STT_SECTION, STV_DEFAULT };
	int h;

	if (w->failed)
		return -1;
	if (!valid_section(w, section))
		return fail(w, "section symbol of an unknown section");
	if (w->secs[section - 1].symbol != 0)
		return w->secs[section - 1].symbol;
	if ((h = elfw_add_symbol(w, &d)) > 0)
		w->secs[section - 1].symbol = h;
	return h;
}

int
elfw_find_symbol(const elfw_t *w, const char *name)
{
	size_t id;

	if (name[0] == '\0')
		return 0;
	id = idset_find(&w->names, name_hash(name), sym_name_is, w, name);
	return id == IDSET_NONE ? 0 : (int)id + 1;
}

int
elfw_symbol_ref(elfw_t *w, const char *name)
{
	elfw_symbol_desc_t d = { name, ELFW_UNDEF, 0, 0, STB_GLOBAL, STT_NOTYPE, STV_DEFAULT };
	int h;

	if (w->failed)
		return -1;
	if ((h = elfw_find_symbol(w, name)) != 0)
		return h;
	return elfw_add_symbol(w, &d);
}

int
elfw_symbol_info(const elfw_t *w, int symbol, elfw_symbol_desc_t *d)
{
	const elfw_sym_t *s;

	if (!elfw_valid_symbol(w, symbol))
		return -1;
	s = &w->syms[symbol - 1];
	d->name = elfw_sym_name(w, s);
	d->section = s->section;
	d->value = elfw_sym_value(w, s);
	d->size = elfw_sym_size(w, s);
	d->bind = GELF_ST_BIND(s->info);
	d->type = GELF_ST_TYPE(s->info);
	d->visibility = GELF_ST_VISIBILITY(s->other);
	return 0;
}

int
elfw_set_symbol_bind(elfw_t *w, int symbol, unsigned bind)
{
	elfw_sym_t *s;

	if (w->failed)
		return -1;
	if (!elfw_valid_symbol(w, symbol))
		return fail(w, "binding of an unknown symbol");
	s = &w->syms[symbol - 1];
	s->info = (unsigned char)GELF_ST_INFO(bind, GELF_ST_TYPE(s->info));
	return 0;
}

/* Make *arrayp hold cap elements at least, keeping its n; false on ENOMEM. */
static bool
reserve_array(void *arrayp, size_t n, size_t *capp, size_t cap, size_t elem)
{
	void **ap = arrayp;
	void *p;

	if (cap <= *capp)
		return true;
	if (cap < n || cap > SIZE_MAX / elem || (p = realloc(*ap, cap * elem)) == NULL)
		return false;
	*ap = p;
	*capp = cap;
	return true;
}

int
elfw_reserve(elfw_t *w, size_t nsyms, int section, size_t nrels)
{
	elfw_sec_t *s;

	if (w->failed)
		return -1;
	if (section != 0 && !valid_section(w, section))
		return fail(w, "relocations reserved in an unknown section");
	if (!reserve_array(&w->syms, w->nsyms, &w->symcap, w->nsyms + nsyms,
	    sizeof(*w->syms)) || !idset_reserve(&w->names, w->nsyms + nsyms))
		return fail(w, "out of memory");
	if (section == 0)
		return 0;
	s = &w->secs[section - 1];
	if (!reserve_array(&s->rels, s->nrels, &s->relcap, s->nrels + nrels,
	    sizeof(*s->rels)))
		return fail(w, "out of memory");
	return 0;
}

int
elfw_add_reloc(elfw_t *w, int section, uint64_t offset, unsigned type,
    int symbol, int64_t addend)
{
	elfw_sec_t *s;

	if (w->failed)
		return -1;
	if (!valid_section(w, section) || (symbol != 0 && !elfw_valid_symbol(w, symbol)))
		return fail(w, "relocation in an unknown section or against an unknown symbol");
	s = &w->secs[section - 1];
	if (!elfw_grow(&s->rels, s->nrels, &s->relcap, sizeof(*s->rels)))
		return fail(w, "out of memory");
	s->rels[s->nrels++] = (elfw_rel_t){ offset, type, symbol, addend };
	return 0;
}

/* ---- string tables ------------------------------------------------------ */

void
elfw_strtab_init(elfw_strtab_t *t)
{
	memset(t, 0, sizeof(*t));
	sb_init(&t->bytes);
	sb_u8(&t->bytes, 0);	/* offset 0 is the empty string */
}

void
elfw_strtab_free(elfw_strtab_t *t)
{
	sb_free(&t->bytes);
	idset_free(&t->offsets);
}

/* Is the string at offset id of the table's bytes the string key? */
static bool
strtab_holds(const void *ctx, size_t id, const void *key)
{
	return strcmp(((const elfw_strtab_t *)ctx)->bytes.data + id, key) == 0;
}

/* Offset of s in the table, adding it if new; 0 after a failure. */
size_t
elfw_strtab_add(elfw_strtab_t *t, const char *s)
{
	uint64_t h;
	size_t off;

	if (s[0] == '\0' || t->failed)
		return 0;
	h = name_hash(s);
	if ((off = idset_find(&t->offsets, h, strtab_holds, t, s)) != IDSET_NONE)
		return off;
	off = t->bytes.len;
	sb_append(&t->bytes, s, strlen(s) + 1);
	if (t->bytes.failed || !idset_add(&t->offsets, h, off)) {
		t->failed = true;
		return 0;
	}
	return off;
}

/* ---- the ET_REL writer -------------------------------------------------- */

void
elfw_layout_free(layout_t *l)
{
	free(l->members);
	free(l->group_start);
	free(l->order);
	free(l->symindex);
	elfw_strtab_free(&l->strs);
	elfw_strtab_free(&l->shstrs);
	for (size_t i = 0; i < l->nbuffers; i++)
		free(l->buffers[i]);
	free(l->buffers);
}

/* A zeroed buffer that lives until the write ends; NULL on failure. */
void *
elfw_layout_buffer(layout_t *l, size_t size)
{
	void *p;

	if (!elfw_grow(&l->buffers, l->nbuffers, &l->buffercap, sizeof(void *)))
		return NULL;
	if ((p = calloc(1, size ? size : 1)) == NULL)
		return NULL;
	l->buffers[l->nbuffers++] = p;
	return p;
}

/* Output indices of every section; see the top of this file for the order. */
static int
assign_indices(elfw_t *w, layout_t *l, err_t *e)
{
	size_t next = 1;

	for (size_t g = 0; g < w->ngroups; g++)
		w->groups[g].index = next++;
	for (size_t i = 0; i < w->nsecs; i++) {
		w->secs[i].index = next++;
		w->secs[i].rel_index = w->secs[i].nrels > 0 ? next++ : 0;
	}
	l->symtab = next++;
	/* A symbol's st_shndx is 16 bits: past that, SHT_SYMTAB_SHNDX holds it. */
	if (l->symtab > SHN_LORESERVE)
		l->symtab_shndx = next++;
	l->strtab = next++;
	l->shstrtab = next++;
	l->nsections = next;
	if (next > UINT32_MAX)
		return err_set(e, "ELF writer: %zu sections are more than ELF can number", next);
	return 0;
}

/* Locals first, each group in the order the symbols were added. */
static int
order_symbols(elfw_t *w, layout_t *l, err_t *e)
{
	size_t next = 1;

	if ((l->order = calloc(w->nsyms + 1, sizeof(int))) == NULL ||
	    (l->symindex = malloc((w->nsyms + 1) * sizeof(uint32_t))) == NULL)
		return err_errno(e, ENOMEM, "ELF writer");
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < w->nsyms; i++) {
			bool local = GELF_ST_BIND(w->syms[i].info) == STB_LOCAL;

			if (local != (pass == 0))
				continue;
			l->symindex[i] = (uint32_t)next;
			l->order[next++] = (int)i + 1;
		}
		if (pass == 0)
			l->nlocals = next;
	}
	return 0;
}

/*
 * The members of every group, in one pass (a counting sort by group), so
 * that a write stays linear in the number of sections however many
 * groups there are.
 */
static int
collect_groups(const elfw_t *w, layout_t *l, err_t *e)
{
	size_t *fill;

	l->group_start = calloc(w->ngroups + 2, sizeof(size_t));
	l->members = calloc(w->nsecs + 1, sizeof(size_t));
	fill = calloc(w->ngroups + 1, sizeof(size_t));
	if (l->group_start == NULL || l->members == NULL || fill == NULL) {
		free(fill);
		return err_errno(e, ENOMEM, "ELF writer");
	}
	for (size_t i = 0; i < w->nsecs; i++)
		if (w->secs[i].group != 0)
			l->group_start[w->secs[i].group]++;	/* group g counts at g + 1 */
	for (size_t g = 0; g < w->ngroups; g++) {
		l->group_start[g + 1] += l->group_start[g];
		fill[g] = l->group_start[g];
	}
	for (size_t i = 0; i < w->nsecs; i++)
		if (w->secs[i].group != 0)
			l->members[fill[w->secs[i].group - 1]++] = i;
	free(fill);
	return 0;
}

static int
check_groups(const elfw_t *w, const layout_t *l, err_t *e)
{
	for (size_t g = 0; g < w->ngroups; g++) {
		if (w->groups[g].signature == 0)
			return err_set(e, "ELF writer: group %zu has no signature symbol", g + 1);
		if (l->group_start[g + 1] == l->group_start[g])
			return err_set(e, "ELF writer: group %zu (%s) has no sections", g + 1,
			    elfw_sym_name(w, &w->syms[w->groups[g].signature - 1]));
	}
	return 0;
}

static uint32_t
symbol_shndx(const elfw_t *w, int section)
{
	if (section == ELFW_UNDEF)
		return SHN_UNDEF;
	if (section == ELFW_ABS)
		return SHN_ABS;
	return (uint32_t)w->secs[section - 1].index;
}

/*
 * What st_shndx holds for a symbol of section handle `section`, whose index
 * is shndx: SHN_XINDEX for any real section from SHN_LORESERVE on.  Whether
 * the symbol is absolute or undefined is read from the handle, never from
 * shndx: section 0xfff1 is a real section in a large object, not SHN_ABS.
 */
static GElf_Section
symbol_st_shndx(int section, uint32_t shndx)
{
	bool special = section == ELFW_ABS || section == ELFW_UNDEF;

	return (GElf_Section)(!special && shndx >= SHN_LORESERVE ? SHN_XINDEX : shndx);
}

/* Add a section to elf with one data block; NULL with e set on failure. */
static Elf_Scn *
emit_section(Elf *elf, const GElf_Shdr *sh, void *buf, size_t size,
    Elf_Type dtype, err_t *e)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *data;
	GElf_Shdr cur;

	if (scn == NULL) {
		err_libelf(e, "ELF writer", "elf_newscn");
		return NULL;
	}
	if ((data = elf_newdata(scn)) == NULL) {
		err_libelf(e, "ELF writer", "elf_newdata");
		return NULL;
	}
	data->d_buf = buf;
	data->d_size = size;
	data->d_type = dtype;
	data->d_align = sh->sh_addralign ? sh->sh_addralign : 1;
	data->d_off = 0;
	data->d_version = EV_CURRENT;
	if (gelf_getshdr(scn, &cur) == NULL) {
		err_libelf(e, "ELF writer", "gelf_getshdr");
		return NULL;
	}
	cur = *sh;
	cur.sh_size = size;
	if (gelf_update_shdr(scn, &cur) == 0) {
		err_libelf(e, "ELF writer", "gelf_update_shdr");
		return NULL;
	}
	return scn;
}

static GElf_Shdr
shdr(elfw_strtab_t *names, const char *name, uint32_t type, uint64_t flags,
    uint64_t align, uint64_t entsize, uint32_t link, uint32_t info)
{
	GElf_Shdr sh = { 0 };

	sh.sh_name = (GElf_Word)elfw_strtab_add(names, name);
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addralign = align;
	sh.sh_entsize = entsize;
	sh.sh_link = link;
	sh.sh_info = info;
	return sh;
}

static int
emit_group(elfw_t *w, layout_t *l, Elf *elf, size_t g, err_t *e)
{
	size_t n = 1;
	uint32_t *words;
	GElf_Shdr sh;

	for (size_t k = l->group_start[g]; k < l->group_start[g + 1]; k++)
		n += w->secs[l->members[k]].rel_index ? 2 : 1;
	if ((words = elfw_layout_buffer(l, n * sizeof(uint32_t))) == NULL)
		return err_errno(e, ENOMEM, "ELF writer");
	n = 0;
	words[n++] = GRP_COMDAT;
	for (size_t k = l->group_start[g]; k < l->group_start[g + 1]; k++) {
		const elfw_sec_t *s = &w->secs[l->members[k]];

		words[n++] = (uint32_t)s->index;
		if (s->rel_index)
			words[n++] = (uint32_t)s->rel_index;
	}
	sh = shdr(&l->shstrs, ".group", SHT_GROUP, 0, 4, 4, (uint32_t)l->symtab,
	    l->symindex[w->groups[g].signature - 1]);
	return emit_section(elf, &sh, words, n * sizeof(uint32_t), ELF_T_WORD, e) ? 0 : -1;
}

/*
 * The relocations of section s as a RELA section.  Each is converted in
 * place: entry i of the file's form (24 bytes in ELFCLASS64, 12 in
 * ELFCLASS32) lands where the builder's entry i was (24 bytes), read
 * before it is overwritten, so the relocations are never held twice (a
 * -G object of 100,000 probes has 11 MB of them).  The builder's
 * relocations are then the file's: elfw_write_rel is a builder's last use.
 */
_Static_assert(sizeof(elfw_rel_t) >= sizeof(Elf64_Rela), "a RELA entry fits in place");

static int
emit_relocs(elfw_t *w, layout_t *l, Elf *elf, const elfw_sec_t *s, err_t *e)
{
	size_t entsize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	uint64_t flags = SHF_INFO_LINK | (s->group ? SHF_GROUP : 0);
	size_t namelen = strlen(s->name) + sizeof(".rela");
	char *name = elfw_layout_buffer(l, namelen);
	void *buf = s->rels;
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr sh;

	if (name == NULL)
		return err_errno(e, ENOMEM, "ELF writer");
	strcpy(name, ".rela");
	strcat(name, s->name);
	sh = shdr(&l->shstrs, name, SHT_RELA, flags,
	    elfenc_addr_size(w->elf_class), entsize, (uint32_t)l->symtab,
	    (uint32_t)s->index);
	if ((scn = emit_section(elf, &sh, buf, s->nrels * entsize, ELF_T_RELA, e)) == NULL)
		return -1;
	data = elf_getdata(scn, NULL);
	for (size_t i = 0; i < s->nrels; i++) {
		const elfw_rel_t r = s->rels[i];	/* a copy: its place is rewritten */
		size_t sym = r.symbol ? l->symindex[r.symbol - 1] : 0;
		GElf_Rela rela = { r.offset, GELF_R_INFO(sym, r.type), r.addend };

		if (gelf_update_rela(data, (int)i, &rela) == 0)
			return err_libelf(e, "ELF writer", "gelf_update_rela");
	}
	return 0;
}

static int
emit_sections(elfw_t *w, layout_t *l, Elf *elf, err_t *e)
{
	for (size_t i = 0; i < w->nsecs; i++) {
		elfw_sec_t *s = &w->secs[i];
		GElf_Shdr sh = shdr(&l->shstrs, s->name, s->type,
		    s->flags | (s->group ? SHF_GROUP : 0), s->align, s->entsize, 0, 0);

		if (emit_section(elf, &sh, s->data, s->size, ELF_T_BYTE, e) == NULL)
			return -1;
		if (s->rel_index && emit_relocs(w, l, elf, s, e) != 0)
			return -1;
	}
	return 0;
}

/*
 * Once .strtab is built, the symbols' names are read from it and their
 * index is not read again: the index is freed before .symtab is built.
 * The builder is spent: it can only be freed.
 */
static void
release_names(elfw_t *w)
{
	idset_free(&w->names);
	w->spent = true;
}

/*
 * Each symbol's .strtab offset, at [handle - 1]: every name once, in the
 * order the symbols are written, keyed by the builder's own index of
 * names (w->names, a name to its last symbol): the first symbol of a name
 * in output order gives the name its offset, remembered at the name's
 * last symbol, and the symbols after it take that offset.  *sizep is
 * .strtab's size, *localsp the bytes of the locals' names in it (the
 * locals come first).  NULL, with e set, on failure.
 */
static uint32_t *
strtab_offsets(const elfw_t *w, const layout_t *l, size_t *sizep, size_t *localsp,
    err_t *e)
{
	uint32_t *off = calloc(w->nsyms + 1, sizeof(uint32_t));
	size_t size = 1;

	if (off == NULL) {
		err_errno(e, ENOMEM, "ELF writer");
		return NULL;
	}
	for (size_t i = 1; i <= w->nsyms; i++) {
		size_t k = (size_t)l->order[i] - 1;
		const char *name = elfw_sym_name(w, &w->syms[k]);
		int h;
		size_t last;

		if (i == l->nlocals)
			*localsp = size - 1;
		if (name[0] == '\0')
			continue;
		h = elfw_find_symbol(w, name);
		last = h > 0 ? (size_t)h - 1 : k;
		if (off[last] == 0) {
			if (size > UINT32_MAX) {
				free(off);
				err_set(e, "ELF writer: the symbols' names pass 4 GB");
				return NULL;
			}
			off[last] = (uint32_t)size;
			size += strlen(name) + 1;
		}
		off[k] = off[last];
	}
	if (l->nlocals > w->nsyms)
		*localsp = size - 1;
	*sizep = size;
	return off;
}

/*
 * .strtab, made of w->symnames in place (strtab_offsets says where each
 * name goes).  The names lie there in the order the symbols were added,
 * each symbol's its own; .strtab holds the locals' first, each name once.
 * The locals' names (a few: a probe's are global) are copied aside; the
 * others' move down to the front, in the order they were added, which is
 * theirs in .strtab, so none lands past where a later one still lies (a
 * name's place in .strtab is at most the bytes of the names added before
 * it); then they move up past the locals', which go back in front.  The
 * buffer's bytes are at least .strtab's, so it never grows: a second
 * buffer the size of .strtab was 13 MB at 100,000 probes (issue 40).
 */
static int
build_strtab(elfw_t *w, layout_t *l, err_t *e)
{
	size_t size = 1, locals = 0, next = 1;
	uint32_t *off;
	char *names, *aside = NULL;

	if (w->symnames.len == 0)	/* no symbol: .strtab is the empty name */
		sb_u8(&w->symnames, 0);
	if (w->symnames.failed)
		return err_errno(e, ENOMEM, "ELF writer");
	if ((off = strtab_offsets(w, l, &size, &locals, e)) == NULL)
		return -1;
	names = w->symnames.data;
	if (locals > 0 && (aside = malloc(locals)) == NULL) {
		free(off);
		return err_errno(e, ENOMEM, "ELF writer");
	}
	for (size_t i = 1; i <= w->nsyms; i++) {
		size_t k = (size_t)l->order[i] - 1;
		const char *name = names + w->syms[k].name;
		size_t n;

		if (off[k] != next)	/* no name, or one placed already */
			continue;
		n = strlen(name) + 1;
		if (i < l->nlocals)
			memcpy(aside + next - 1, name, n);
		else
			memmove(names + next - 1 - locals, name, n);
		next += n;
	}
	memmove(names + 1 + locals, names, size - 1 - locals);
	if (locals > 0)
		memcpy(names + 1, aside, locals);
	names[0] = '\0';
	for (size_t k = 0; k < w->nsyms; k++)
		w->syms[k].name = off[k];
	free(aside);
	free(off);
	l->names = names;
	l->names_size = size;
	release_names(w);
	return 0;
}

/* Symbol s as the file's entry i of buf (ELFCLASS32 or 64); -1 if it cannot be. */
static int
put_symbol(const elfw_t *w, void *buf, size_t i, const elfw_sym_t *s,
    uint32_t *xwords, const char *l_names, err_t *e)
{
	uint32_t shndx = symbol_shndx(w, s->section);
	GElf_Section st_shndx = symbol_st_shndx(s->section, shndx);
	uint64_t value = elfw_sym_value(w, s), size = elfw_sym_size(w, s);

	if (st_shndx == SHN_XINDEX && xwords == NULL)
		return err_set(e, "ELF writer: section index %u needs SHT_SYMTAB_SHNDX", shndx);
	if (st_shndx == SHN_XINDEX)
		xwords[i] = shndx;
	if (w->elf_class == ELFCLASS64) {
		((Elf64_Sym *)buf)[i] = (Elf64_Sym){ s->name, s->info, s->other, st_shndx,
		    value, size };
		return 0;
	}
	if (value > UINT32_MAX || size > UINT32_MAX)	/* names: .strtab's now */
		return err_set(e, "ELF writer: symbol %s: its value or size does not fit "
		    "ELFCLASS32", s->name ? l_names + s->name : "(no name)");
	((Elf32_Sym *)buf)[i] = (Elf32_Sym){ s->name, (Elf32_Addr)value,
	    (Elf32_Word)size, s->info, s->other, st_shndx };
	return 0;
}

/*
 * .symtab and .symtab_shndx in the file's form (entry 0 the null symbol),
 * in buffers, before libelf holds anything, and after .strtab: the
 * names' index is gone (release_names), and the symbols go next
 * (release_symbols).
 */
static int
build_symtab(elfw_t *w, layout_t *l, err_t *e)
{
	size_t entsize = w->elf_class == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	size_t n = w->nsyms + 1;

	if ((l->symtab_buf = elfw_layout_buffer(l, n * entsize)) == NULL ||
	    (l->symtab_shndx != 0 &&
	    (l->xwords = elfw_layout_buffer(l, n * sizeof(uint32_t))) == NULL))
		return err_errno(e, ENOMEM, "ELF writer");
	for (size_t i = 1; i < n; i++)
		if (put_symbol(w, l->symtab_buf, i, &w->syms[l->order[i] - 1], l->xwords,
		    l->names, e) != 0)
			return -1;
	return 0;
}

/*
 * Once .symtab is built, what the rest of the write needs of a symbol is
 * its output index (the groups' signatures, the relocations), which
 * order_symbols keeps, 4 bytes a symbol: the symbols (20 bytes each) are
 * freed before libelf's own allocations begin.
 */
static int
release_symbols(elfw_t *w, layout_t *l)
{
	l->nsyms = w->nsyms;
	free(w->syms);
	w->syms = NULL;
	w->nsyms = w->symcap = 0;
	return 0;
}

static int
emit_symtab(elfw_t *w, layout_t *l, Elf *elf, err_t *e)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t n = l->nsyms + 1;
	GElf_Shdr sh;

	sh = shdr(&l->shstrs, ".symtab", SHT_SYMTAB, 0,
	    elfenc_addr_size(w->elf_class), entsize, (uint32_t)l->strtab,
	    (uint32_t)l->nlocals);
	if (emit_section(elf, &sh, l->symtab_buf, n * entsize, ELF_T_SYM, e) == NULL)
		return -1;
	if (l->symtab_shndx == 0)
		return 0;
	/* Extended section numbering: the full index of each symbol's section. */
	sh = shdr(&l->shstrs, ".symtab_shndx", SHT_SYMTAB_SHNDX, 0, 4, 4,
	    (uint32_t)l->symtab, 0);
	return emit_section(elf, &sh, l->xwords, n * sizeof(uint32_t), ELF_T_WORD, e) ? 0 : -1;
}

/* .strtab, built by emit_symtab (build_strtab). */
static int
emit_names(layout_t *l, Elf *elf, err_t *e)
{
	GElf_Shdr sh = shdr(&l->shstrs, ".strtab", SHT_STRTAB, 0, 1, 0, 0, 0);

	return emit_section(elf, &sh, l->names, l->names_size, ELF_T_BYTE, e) ? 0 : -1;
}

/* A finished string table; the table keeps owning its bytes. */
static int
emit_strtab(layout_t *l, Elf *elf, elfw_strtab_t *t, const char *name, err_t *e)
{
	GElf_Shdr sh = shdr(&l->shstrs, name, SHT_STRTAB, 0, 1, 0, 0, 0);

	if (t->failed || t->bytes.failed || l->shstrs.failed || l->shstrs.bytes.failed)
		return err_errno(e, ENOMEM, "ELF writer");
	return emit_section(elf, &sh, t->bytes.data, t->bytes.len, ELF_T_BYTE, e) ? 0 : -1;
}

static int
emit_header(elfw_t *w, const layout_t *l, Elf *elf, err_t *e)
{
	GElf_Ehdr eh;

	if (gelf_newehdr(elf, (int)w->elf_class) == NULL)
		return err_libelf(e, "ELF writer", "gelf_newehdr");
	if (gelf_getehdr(elf, &eh) == NULL)
		return err_libelf(e, "ELF writer", "gelf_getehdr");
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_REL;
	eh.e_machine = (GElf_Half)w->machine;
	eh.e_version = EV_CURRENT;
	/* Past 16 bits the index lives in section 0's sh_link (set_shstrndx). */
	eh.e_shstrndx = (GElf_Half)(l->shstrtab >= SHN_LORESERVE ? SHN_XINDEX : l->shstrtab);
	if (gelf_update_ehdr(elf, &eh) == 0)
		return err_libelf(e, "ELF writer", "gelf_update_ehdr");
	return 0;
}

/*
 * Extended section numbering (gABI): with SHN_LORESERVE sections or more,
 * section 0's sh_link holds the .shstrtab index that e_shstrndx cannot.
 * libelf itself moves the section count to section 0's sh_size.
 */
static int
set_shstrndx(const layout_t *l, Elf *elf, err_t *e)
{
	Elf_Scn *scn0;
	GElf_Shdr sh;

	if (l->shstrtab < SHN_LORESERVE)
		return 0;
	if ((scn0 = elf_getscn(elf, 0)) == NULL || gelf_getshdr(scn0, &sh) == NULL)
		return err_libelf(e, "ELF writer", "elf_getscn");
	sh.sh_link = (GElf_Word)l->shstrtab;
	if (gelf_update_shdr(scn0, &sh) == 0)
		return err_libelf(e, "ELF writer", "gelf_update_shdr");
	return 0;
}

void
elfw_set_output_name(elfw_t *w, const char *name)
{
	w->out_name = name;
}

static const char *
output_name(const elfw_t *w)
{
	return w->out_name != NULL ? w->out_name : "the object";
}

/*
 * The one write of a file libelf has built, for both writers (this file's
 * ET_REL, elfdyn.c's ET_DYN): a failed write (a full disk) leaves its
 * cause in errno, and the message names the file.
 */
int
elfw_update(const elfw_t *w, Elf *elf, err_t *e)
{
	errno = 0;
	if (elf_update(elf, ELF_C_WRITE) >= 0)
		return 0;
	if (errno != 0)
		return err_errno(e, errno, "cannot write %s", output_name(w));
	return err_libelf(e, "ELF writer", "elf_update");
}

/*
 * The file offsets, set here rather than by libelf, which aligns every
 * section's offset to its sh_addralign even when the section is empty: the
 * empty page-aligned .probes of the __usdt_probes_page group (objgen.c)
 * would pad a -G object by up to a page of zeros.  A section with bytes is
 * aligned as libelf would; an empty one, or SHT_NOBITS, takes the next
 * offset; the section headers follow, aligned to a word.
 */
static int
lay_out(Elf *elf, err_t *e)
{
	size_t word = gelf_getclass(elf) == ELFCLASS64 ? 8 : 4;
	uint64_t off = gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return err_libelf(e, "ELF writer", "gelf_getshdr");
		if (sh.sh_type != SHT_NOBITS && sh.sh_size != 0 &&
		    sh.sh_addralign > 1)
			off = (off + sh.sh_addralign - 1) & ~(sh.sh_addralign - 1);
		sh.sh_offset = off;
		if (sh.sh_type != SHT_NOBITS)
			off += sh.sh_size;
		if (gelf_update_shdr(scn, &sh) == 0)
			return err_libelf(e, "ELF writer", "gelf_update_shdr");
	}
	if (gelf_getehdr(elf, &eh) == NULL)
		return err_libelf(e, "ELF writer", "gelf_getehdr");
	eh.e_shoff = (off + word - 1) & ~(uint64_t)(word - 1);
	if (gelf_update_ehdr(elf, &eh) == 0)
		return err_libelf(e, "ELF writer", "gelf_update_ehdr");
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	return 0;
}

/* Everything after the layout decisions: libelf builds and writes the file. */
static int
emit_file(elfw_t *w, layout_t *l, int fd, err_t *e)
{
	Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
	int rc = -1;

	if (elf == NULL)
		return err_libelf(e, "ELF writer", "elf_begin");
	if (emit_header(w, l, elf, e) != 0)
		goto out;
	for (size_t g = 0; g < w->ngroups; g++)
		if (emit_group(w, l, elf, g, e) != 0)
			goto out;
	if (emit_sections(w, l, elf, e) != 0 || emit_symtab(w, l, elf, e) != 0 ||
	    emit_names(l, elf, e) != 0)
		goto out;
	/* Name .shstrtab before handing its bytes over: they must be final. */
	elfw_strtab_add(&l->shstrs, ".shstrtab");
	if (emit_strtab(l, elf, &l->shstrs, ".shstrtab", e) != 0 ||
	    set_shstrndx(l, elf, e) != 0 || lay_out(elf, e) != 0)
		goto out;
	if (elfw_update(w, elf, e) != 0)
		goto out;
	rc = 0;
out:
	elf_end(elf);
	return rc;
}

/*
 * libelf writes the file with one pwrite(2) per section.  It used to be
 * laid out first in an anonymous memory file and copied to fd in one go,
 * for fewer system calls; that held a whole copy of the output in memory
 * beside everything that makes it (issue 40: -G's peak was 9-10x its
 * object), and was no faster: 100,000 probes (72,000 sections) 0.67 s
 * either way, a million 8.6 s against 10.1 s, on ext4 (ELF_C_WRITE_MMAP
 * would map the file and end in msync(MS_SYNC), waiting for the disk).
 */
int
elfw_write_rel(elfw_t *w, int fd, err_t *e)
{
	layout_t l = { 0 };
	int rc = -1;

	if (elfw_failed(w, e))
		return -1;
	elfw_strtab_init(&l.strs);
	elfw_strtab_init(&l.shstrs);
	if (w->spent)
		return err_set(e, "ELF writer: the object was written already");
	if (assign_indices(w, &l, e) == 0 && order_symbols(w, &l, e) == 0 &&
	    collect_groups(w, &l, e) == 0 && check_groups(w, &l, e) == 0 &&
	    build_strtab(w, &l, e) == 0 && build_symtab(w, &l, e) == 0 &&
	    release_symbols(w, &l) == 0)
		rc = emit_file(w, &l, fd, e);
	elfw_layout_free(&l);
	return rc;
}
