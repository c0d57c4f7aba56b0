/*
 * rewrite_test.c - checks of the call-site rewriter (compiler/rewrite/rewrite_plan.c),
 * driven by tests/rewrite/run.
 *
 *   rewrite_test fixture OBJ COPY   OBJ and COPY are tests/rewrite/fixture.s
 *                                   assembled twice (COPY at another path)
 *
 * The fixture holds one of each kind of reference to a probe function (see
 * its comment).  The checks: exactly the calls and the tail call are
 * rewritten, to the right bytes, at the offsets the returned sites name
 * (read back from the untouched object: each was a call with a relocation
 * at offset + 1); their relocations are gone and every other relocation is
 * kept; static, weak and default-visibility functions get a GLOBAL HIDDEN
 * alias (untyped, size 0) at the function's section and value, a hidden
 * function none; .usdt.sites holds one record per site; -v explains each reference
 * it kept; a second run changes no byte and returns the same sites; a copy
 * at another path gets other aliases; a recorded site whose bytes changed
 * is left out; a probe the model no longer declares is an error; an LLVM
 * bitcode file is left alone.
 *
 * Every check prints "ok - NAME" or "FAIL - NAME: why"; the exit status is
 * non-zero if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idset.h"
#include "model.h"
#include "objin.h"
#include "rewrite.h"
#include "target.h"
#include "../testlib.h"

/* ---- the model: provider t { probe a(int); probe b(int, long); } -------- */

static mdl_model_t *
fixture_model(int with_b)
{
	mdl_model_t *m = mdl_new();
	src_loc_t loc = { "t.d", 1, 1 };
	mdl_provider_t *p = mdl_add_provider(m, "t", loc);
	mdl_probe_t *a = mdl_provider_add_probe(p, "a", loc), *b;

	mdl_probe_add_native_arg(a, "int", NULL, loc);
	mdl_probe_finish_args(a);
	if (with_b) {
		b = mdl_provider_add_probe(p, "b", loc);
		mdl_probe_add_native_arg(b, "int", NULL, loc);
		mdl_probe_add_native_arg(b, "long", NULL, loc);
		mdl_probe_finish_args(b);
	}
	return m;
}

/* ---- reading an object back ---------------------------------------------- */

typedef struct file_bytes {
	char *data;
	size_t size;
} file_bytes_t;

static int
read_file(const char *path, file_bytes_t *f)
{
	FILE *fp = fopen(path, "rb");
	long n;

	f->data = NULL;
	f->size = 0;
	if (fp == NULL)
		return -1;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	if (n < 0 || (f->data = malloc((size_t)n + 1)) == NULL ||
	    fread(f->data, 1, (size_t)n, fp) != (size_t)n) {
		fclose(fp);
		free(f->data);
		f->data = NULL;
		return -1;
	}
	f->size = (size_t)n;
	fclose(fp);
	return 0;
}

typedef struct sym {
	char name[128];
	GElf_Sym s;
} sym_t;

typedef struct reloc {
	char section[64];	/* the section relocated */
	uint64_t offset;
	unsigned type;
	char symbol[128];
} reloc_t;

typedef struct object {
	file_bytes_t bytes;
	Elf *elf;
	sym_t syms[64];
	size_t nsyms;
	reloc_t relocs[64];
	size_t nrelocs;
} object_t;

static const char *
scn_name(Elf *elf, size_t idx)
{
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, idx);

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return "?";
	return elf_strptr(elf, shstrndx, sh.sh_name);
}

static int
load_object(const char *path, object_t *ob)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(ob, 0, sizeof(*ob));
	if (read_file(path, &ob->bytes) != 0 ||
	    (ob->elf = elf_memory(ob->bytes.data, ob->bytes.size)) == NULL)
		return -1;
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		Elf_Data *d = elf_getdata(scn, NULL);

		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_SYMTAB) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && ob->nsyms < 64; i++) {
				sym_t *s = &ob->syms[ob->nsyms++];

				gelf_getsym(d, (int)i, &s->s);
				snprintf(s->name, sizeof(s->name), "%s",
				    elf_strptr(ob->elf, sh.sh_link, s->s.st_name));
			}
		}
	}
	scn = NULL;
	while ((scn = elf_nextscn(ob->elf, scn)) != NULL) {
		Elf_Data *d = elf_getdata(scn, NULL);

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_RELA)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && ob->nrelocs < 64; i++) {
			reloc_t *r = &ob->relocs[ob->nrelocs++];
			GElf_Rela rela;

			gelf_getrela(d, (int)i, &rela);
			snprintf(r->section, sizeof(r->section), "%s", scn_name(ob->elf, sh.sh_info));
			r->offset = rela.r_offset;
			r->type = (unsigned)GELF_R_TYPE(rela.r_info);
			snprintf(r->symbol, sizeof(r->symbol), "%s",
			    GELF_R_SYM(rela.r_info) < ob->nsyms ?
			    ob->syms[GELF_R_SYM(rela.r_info)].name : "?");
		}
	}
	return 0;
}

static void
free_object(object_t *ob)
{
	if (ob->elf != NULL)
		elf_end(ob->elf);
	free(ob->bytes.data);
	memset(ob, 0, sizeof(*ob));
}

static const sym_t *
find_sym(const object_t *ob, const char *name)
{
	for (size_t i = 0; i < ob->nsyms; i++)
		if (strcmp(ob->syms[i].name, name) == 0)
			return &ob->syms[i];
	return NULL;
}

/* The bytes of section idx of a loaded object, and their size. */
static const uint8_t *
section_bytes(const object_t *ob, size_t idx, size_t *size)
{
	Elf_Scn *scn = elf_getscn(ob->elf, idx);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	*size = d ? d->d_size : 0;
	return d ? d->d_buf : NULL;
}

static size_t
section_index(const object_t *ob, const char *name)
{
	size_t n = 0;

	elf_getshdrnum(ob->elf, &n);
	for (size_t i = 1; i < n; i++)
		if (strcmp(scn_name(ob->elf, i), name) == 0)
			return i;
	return 0;
}

/* The bytes at function + offset, or NULL. */
static const uint8_t *
code_at(const object_t *ob, const char *func, uint32_t offset)
{
	const sym_t *f = find_sym(ob, func);
	const uint8_t *code;
	size_t size;

	if (f == NULL || (code = section_bytes(ob, f->s.st_shndx, &size)) == NULL ||
	    f->s.st_value + offset + 5 > size)
		return NULL;
	return code + f->s.st_value + offset;
}

static const reloc_t *
reloc_at(const object_t *ob, const char *section, uint64_t offset)
{
	for (size_t i = 0; i < ob->nrelocs; i++)
		if (strcmp(ob->relocs[i].section, section) == 0 && ob->relocs[i].offset == offset)
			return &ob->relocs[i];
	return NULL;
}

/* ---- running the rewriter ---------------------------------------------- */

typedef struct notes {
	char text[16][512];
	size_t n;
} notes_t;

static void
collect_note(void *ctx, const char *msg)
{
	notes_t *n = ctx;

	if (n->n < 16)
		snprintf(n->text[n->n++], sizeof(n->text[0]), "%s", msg);
}

static size_t
notes_matching(const notes_t *n, const char *needle)
{
	size_t count = 0;

	for (size_t i = 0; i < n->n; i++)
		count += strstr(n->text[i], needle) != NULL;
	return count;
}

/*
 * The object at path through -G's own steps (objgen.c): read once
 * (objin_read), planned (rewrite_plan), written (rewrite_write, which
 * commits the copy itself when no tempset is given).
 */
static int
run_rewrite(mdl_model_t *m, const char *path, rewrite_sites_t *sites, notes_t *notes,
    err_t *e)
{
	rewrite_opts_t o = { collect_note, notes, NULL };
	rewrite_plan_t *rp = NULL;
	objin_t in;
	idset_t byreal;
	int rc;

	memset(notes, 0, sizeof(*notes));
	memset(sites, 0, sizeof(*sites));
	idset_init(&byreal);
	rc = objin_read(&in, path, &in, 0, &byreal, e);
	idset_free(&byreal);
	if (rc != 0)
		return -1;
	rc = rewrite_plan(m, target_find("x86_64-linux"), &in, 1, &o, &rp, sites, e);
	if (rc == 0)
		rc = rewrite_write(rp, e);
	rewrite_plan_free(rp);
	objin_free(&in);
	return rc;
}

/* ---- the expected sites ---------------------------------------------------- */

typedef struct want_site {
	const char *func;
	const char *probe;	/* dof name */
	bool is_enabled;
	bool tail;
	bool aliased;
	int nth;		/* which call of this probe in func: 0, 1 */
} want_site_t;

static const want_site_t want[] = {
	{ "gfunc", "a", false, false, true, 0 },
	{ "gfunc", "a", true, false, true, 0 },
	{ "sfunc", "b", false, false, true, 0 },
	{ "sfunc", "b", false, false, true, 1 },
	{ "hfunc", "a", false, false, false, 0 },
	{ "wfunc", "b", false, true, true, 0 },
};
#define NWANT (sizeof(want) / sizeof(want[0]))

static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t ret_nop4[5] = { 0xc3, 0x0f, 0x1f, 0x40, 0x00 };

static void
alias_name(char *buf, size_t cap, const char *path, const char *func)
{
	char *real = realpath(path, NULL);

	snprintf(buf, cap, "__$dtrace%08x.%s", rewrite_alias_key(real ? real : path), func);
	free(real);
}

/* The sites match want[] in kind, name and symbol, each once. */
static void
check_site_list(const char *label, const rewrite_sites_t *s, const char *path)
{
	char why[512] = "";

	if (s->n != NWANT)
		snprintf(why, sizeof(why), "%zu sites, want %zu", s->n, NWANT);
	for (size_t i = 0; i < NWANT && why[0] == '\0'; i++) {
		const want_site_t *w = &want[i];
		char alias[256];
		int seen = 0;
		size_t hit = s->n;

		alias_name(alias, sizeof(alias), path, w->func);
		/* The nth matching site in offset order. */
		for (size_t j = 0; j < s->n; j++) {
			const rewrite_site_t *x = &s->sites[j];

			if (strcmp(x->func, w->func) != 0 || strcmp(x->probe->dof_name, w->probe) != 0 ||
			    x->is_enabled != w->is_enabled || x->tail != w->tail)
				continue;
			int before = 0;

			for (size_t k = 0; k < s->n; k++)
				if (k != j && strcmp(s->sites[k].func, x->func) == 0 &&
				    s->sites[k].probe == x->probe &&
				    s->sites[k].is_enabled == x->is_enabled &&
				    s->sites[k].offset < x->offset)
					before++;
			if (before == w->nth) {
				hit = j;
				seen++;
			}
		}
		if (seen != 1) {
			snprintf(why, sizeof(why), "site %s %s%s #%d found %d times", w->func,
			    w->probe, w->is_enabled ? " (is-enabled)" : "", w->nth, seen);
			break;
		}
		if (strcmp(s->sites[hit].symbol, w->aliased ? alias : w->func) != 0)
			snprintf(why, sizeof(why), "site %s %s: symbol %s, want %s", w->func,
			    w->probe, s->sites[hit].symbol, w->aliased ? alias : w->func);
	}
	check(why[0] == '\0', label, "%s", why);
}

/* Each site was a call (tail: jump) with a probe relocation before, and is now the tracepoint. */
static void
check_site_bytes(const rewrite_sites_t *s, const object_t *before, const object_t *after)
{
	char why[512] = "";

	for (size_t i = 0; i < s->n && why[0] == '\0'; i++) {
		const rewrite_site_t *x = &s->sites[i];
		const uint8_t *old = code_at(before, x->func, x->offset);
		const uint8_t *now = code_at(after, x->func, x->offset);
		const sym_t *f = find_sym(before, x->func);
		const reloc_t *r = f ? reloc_at(before, scn_name(before->elf, f->s.st_shndx),
		    f->s.st_value + x->offset + 1) : NULL;
		char want_sym[128];

		snprintf(want_sym, sizeof(want_sym), "__dtrace%s_t___%s",
		    x->is_enabled ? "enabled" : "", x->probe->dof_name);
		if (old == NULL || now == NULL)
			snprintf(why, sizeof(why), "%s+%u: no code there", x->func, x->offset);
		else if (old[0] != (x->tail ? 0xe9 : 0xe8))
			snprintf(why, sizeof(why), "%s+%u: was 0x%02x, not a call", x->func,
			    x->offset, old[0]);
		else if (r == NULL || strcmp(r->symbol, want_sym) != 0)
			snprintf(why, sizeof(why), "%s+%u: no relocation against %s before",
			    x->func, x->offset, want_sym);
		else if (memcmp(now, x->tail ? ret_nop4 : nop5, 5) != 0)
			snprintf(why, sizeof(why), "%s+%u: now %02x %02x %02x %02x %02x", x->func,
			    x->offset, now[0], now[1], now[2], now[3], now[4]);
	}
	check(why[0] == '\0', "each site was a call with its relocation and is now the "
	    "tracepoint (nop5; ret+nop4 for the tail call)", "%s", why);
}

/* The relocations left: exactly the old ones minus one per site. */
static void
check_relocs(const rewrite_sites_t *s, const object_t *before, const object_t *after)
{
	size_t kept_probe = 0;
	char why[256] = "";

	for (size_t i = 0; i < after->nrelocs; i++)
		if (strncmp(after->relocs[i].symbol, "__dtrace", 8) == 0)
			kept_probe++;
	if (after->nrelocs + s->n != before->nrelocs)
		snprintf(why, sizeof(why), "%zu relocations before, %zu after, %zu sites",
		    before->nrelocs, after->nrelocs, s->n);
	else if (kept_probe != 5)
		snprintf(why, sizeof(why), "%zu probe relocations kept, want 5 (lea, jne, "
		    "COMDAT, no function, data)", kept_probe);
	for (size_t i = 0; i < after->nrelocs && why[0] == '\0'; i++) {
		const reloc_t *a = &after->relocs[i], *b = reloc_at(before, a->section, a->offset);

		if (b == NULL || b->type != a->type || strcmp(b->symbol, a->symbol) != 0)
			snprintf(why, sizeof(why), "%s+0x%llx: a relocation that was not there",
			    a->section, (unsigned long long)a->offset);
		else if (a->type == 0)
			snprintf(why, sizeof(why), "an R_X86_64_NONE relocation was left");
	}
	check(why[0] == '\0', "the rewritten calls' relocations are gone, all others kept",
	    "%s", why);
}

static void
check_aliases(const char *path, const object_t *before, const object_t *after)
{
	const char *funcs[] = { "gfunc", "sfunc", "wfunc" };
	char why[512] = "", name[128];

	for (size_t i = 0; i < 3 && why[0] == '\0'; i++) {
		const sym_t *f = find_sym(before, funcs[i]), *a;

		alias_name(name, sizeof(name), path, funcs[i]);
		a = find_sym(after, name);
		if (f == NULL || a == NULL)
			snprintf(why, sizeof(why), "no symbol %s", name);
		else if (GELF_ST_BIND(a->s.st_info) != STB_GLOBAL ||
		    GELF_ST_TYPE(a->s.st_info) != STT_NOTYPE ||
		    GELF_ST_VISIBILITY(a->s.st_other) != STV_HIDDEN || a->s.st_size != 0)
			snprintf(why, sizeof(why), "%s is not a global hidden untyped empty symbol", name);
		else if (a->s.st_shndx != f->s.st_shndx || a->s.st_value != f->s.st_value)
			snprintf(why, sizeof(why), "%s is not where %s is", name, funcs[i]);
	}
	alias_name(name, sizeof(name), path, "hfunc");
	if (why[0] == '\0' && find_sym(after, name) != NULL)
		snprintf(why, sizeof(why), "the hidden function got an alias");
	/* The three aliases and the anchor (check_anchor). */
	if (why[0] == '\0' && after->nsyms != before->nsyms + 4)
		snprintf(why, sizeof(why), "%zu symbols, want %zu", after->nsyms, before->nsyms + 4);
	check(why[0] == '\0', "static, weak and global functions get a hidden alias, "
	    "a hidden function none", "%s", why);
}

/*
 * The rewritten object refers to its anchor, undefined and hidden, and the
 * run reports it (the -G output defines it); a second run reports it again.
 */
static void
check_anchor(const char *path, const object_t *after, const rewrite_sites_t *s1,
    const rewrite_sites_t *s2)
{
	char *real = realpath(path, NULL), name[128], why[256] = "";
	const sym_t *a;

	snprintf(name, sizeof(name), "__usdt_sites.t.%08x", rewrite_alias_key(real ? real : path));
	free(real);
	if ((a = find_sym(after, name)) == NULL)
		snprintf(why, sizeof(why), "no symbol %s", name);
	else if (a->s.st_shndx != SHN_UNDEF || GELF_ST_BIND(a->s.st_info) != STB_GLOBAL ||
	    GELF_ST_VISIBILITY(a->s.st_other) != STV_HIDDEN)
		snprintf(why, sizeof(why), "%s is not an undefined global hidden symbol", name);
	else if (s1->nanchors != 1 || strcmp(s1->anchors[0], name) != 0)
		snprintf(why, sizeof(why), "the rewrite reports %zu anchors, want %s",
		    s1->nanchors, name);
	else if (s2->nanchors != 1 || strcmp(s2->anchors[0], name) != 0)
		snprintf(why, sizeof(why), "a second run reports %zu anchors, want %s",
		    s2->nanchors, name);
	check(why[0] == '\0', "the rewritten object refers to its anchor, which both runs report",
	    "%s", why);
}

static void
check_records(const object_t *after)
{
	size_t idx = section_index(after, ".usdt.sites"), size = 0, lines = 0;
	const uint8_t *b = idx ? section_bytes(after, idx, &size) : NULL;
	GElf_Shdr sh;

	for (size_t i = 0; b != NULL && i < size; i++)
		lines += b[i] == '\n';
	gelf_getshdr(elf_getscn(after->elf, idx), &sh);
	check(idx != 0 && (sh.sh_flags & SHF_EXCLUDE) && !(sh.sh_flags & SHF_ALLOC) &&
	    lines == NWANT, ".usdt.sites: excluded, not allocated, one record per site",
	    "section %zu flags 0x%llx, %zu lines", idx, (unsigned long long)sh.sh_flags, lines);
}

static void
check_notes(const notes_t *n, bool first)
{
	check(notes_matching(n, "keeps the stub") == 5 &&
	    notes_matching(n, "(opcode 0x05") == 1 &&
	    notes_matching(n, "(opcode 0x85") == 1 &&
	    notes_matching(n, "COMDAT") == 1 &&
	    notes_matching(n, "outside any function symbol") == 1 &&
	    notes_matching(n, "not a call in code") == 1 &&
	    notes_matching(n, "rewrote 6 probe calls") == (first ? 1u : 0u) &&
	    n->n == (first ? 6u : 5u),
	    first ? "-v says why each kept reference keeps the stub" :
	    "-v again on the second run, and nothing rewritten",
	    "%zu notes, first: '%s'", n->n, n->n ? n->text[0] : "");
}

/* ---- the scenarios ----------------------------------------------------- */

static bool
same_sites(const rewrite_sites_t *a, const rewrite_sites_t *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		bool found = false;

		for (size_t j = 0; j < b->n && !found; j++)
			found = a->sites[i].probe == b->sites[j].probe &&
			    strcmp(a->sites[i].func, b->sites[j].func) == 0 &&
			    strcmp(a->sites[i].symbol, b->sites[j].symbol) == 0 &&
			    a->sites[i].offset == b->sites[j].offset &&
			    a->sites[i].is_enabled == b->sites[j].is_enabled &&
			    a->sites[i].tail == b->sites[j].tail;
		if (!found)
			return false;
	}
	return true;
}

/* Put a call opcode back at a recorded site: the record no longer holds. */
static int
unrewrite_site(const char *path, const object_t *ob, const rewrite_site_t *s)
{
	const sym_t *f = find_sym(ob, s->func);
	GElf_Shdr sh;
	unsigned char e8 = 0xe8;
	int fd, rc;

	if (f == NULL || gelf_getshdr(elf_getscn(ob->elf, f->s.st_shndx), &sh) == NULL ||
	    (fd = open(path, O_WRONLY)) < 0)
		return -1;
	rc = pwrite(fd, &e8, 1, (off_t)(sh.sh_offset + f->s.st_value + s->offset)) == 1 ? 0 : -1;
	close(fd);
	return rc;
}

static void
fixture(const char *path, const char *copy)
{
	mdl_model_t *m = fixture_model(1), *no_b = fixture_model(0);
	rewrite_sites_t s1, s2, s3;
	object_t before, after;
	file_bytes_t b1, b2;
	struct stat st1, st2;
	notes_t notes;
	err_t e = { "" };
	int rc;

	if (load_object(path, &before) != 0) {
		check(0, "read the fixture", "%s: %s", path, elf_errmsg(-1));
		return;
	}
	rc = run_rewrite(m, path, &s1, &notes, &e);
	check(rc == 0, "rewrite the fixture", "%s", e.msg);
	if (rc != 0 || load_object(path, &after) != 0)
		return;
	check_site_list("the sites: calls and the tail call, under their functions", &s1, path);
	check_site_bytes(&s1, &before, &after);
	check_relocs(&s1, &before, &after);
	check_aliases(path, &before, &after);
	check_records(&after);
	check_notes(&notes, true);

	/* Again: nothing changes, the same sites come back. */
	read_file(path, &b1);
	stat(path, &st1);
	rc = run_rewrite(m, path, &s2, &notes, &e);
	read_file(path, &b2);
	stat(path, &st2);
	check(rc == 0 && b1.size == b2.size && memcmp(b1.data, b2.data, b1.size) == 0 &&
	    st1.st_ino == st2.st_ino && st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec &&
	    st1.st_mtim.tv_sec == st2.st_mtim.tv_sec,
	    "a second run leaves the object untouched", "rc %d: %s", rc, e.msg);
	check(rc == 0 && same_sites(&s1, &s2), "a second run returns the same sites from "
	    ".usdt.sites", "%zu sites, want %zu", s2.n, s1.n);
	check_notes(&notes, false);
	check_anchor(path, &after, &s1, &s2);
	rewrite_sites_free(&s2);
	free(b1.data);
	free(b2.data);

	/* The same code at another path: other aliases. */
	rc = run_rewrite(m, copy, &s3, &notes, &e);
	check(rc == 0, "rewrite the copy", "%s", e.msg);
	if (rc == 0)
		check_site_list("the copy's sites use its own aliases", &s3, copy);
	check(rewrite_alias_key("/a/x.o") != rewrite_alias_key("/b/x.o"),
	    "alias keys differ by path", "same key");
	rewrite_sites_free(&s3);

	/* A provider without probe b: the object was rewritten for it. */
	rc = run_rewrite(no_b, path, &s3, &notes, &e);
	check(rc != 0 && strstr(e.msg, "__dtrace_t___b, which the provider definition no "
	    "longer declares") != NULL, "a rewritten probe the model lacks is an error",
	    "rc %d: %s", rc, e.msg);
	rewrite_sites_free(&s3);

	/* A recorded site whose code changed is left out, with a note. */
	rc = unrewrite_site(path, &after, &s1.sites[0]);
	check(rc == 0, "undo one site by hand", "%s", strerror(errno));
	rc = run_rewrite(m, path, &s3, &notes, &e);
	check(rc == 0 && s3.n == NWANT - 1 && notes_matching(&notes, "no longer rewritten code") == 1,
	    "a recorded site that is no longer rewritten is left out", "rc %d, %zu sites: %s",
	    rc, s3.n, e.msg);
	rewrite_sites_free(&s3);

	rewrite_sites_free(&s1);
	free_object(&before);
	free_object(&after);
	mdl_free(m);
	mdl_free(no_b);
}

static void
bitcode(const char *path)
{
	static const char bc[] = "BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00";
	mdl_model_t *m = fixture_model(1);
	rewrite_sites_t s;
	notes_t notes;
	err_t e = { "" };
	file_bytes_t f;
	FILE *fp = fopen(path, "wb");
	int rc;

	if (fp == NULL || fwrite(bc, 1, sizeof(bc), fp) != sizeof(bc) || fclose(fp) != 0) {
		check(0, "write a bitcode file", "%s", strerror(errno));
		return;
	}
	rc = run_rewrite(m, path, &s, &notes, &e);
	read_file(path, &f);
	check(rc == 0 && s.n == 0 && f.size == sizeof(bc) && memcmp(f.data, bc, f.size) == 0,
	    "LLVM bitcode is left alone", "rc %d: %s", rc, e.msg);
	free(f.data);
	rewrite_sites_free(&s);
	mdl_free(m);
}

int
main(int argc, char **argv)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 2;
	if (argc == 5 && strcmp(argv[1], "fixture") == 0) {
		fixture(argv[2], argv[3]);
		bitcode(argv[4]);
	} else {
		fprintf(stderr, "usage: %s fixture OBJ COPY BITCODE-PATH\n", argv[0]);
		return 2;
	}
	return test_summary();
}
