/*
 * usdt_image.c - the shared object behind one run-time provider.
 *
 * A run-time provider is the compiler's back end run in-process: the
 * provider becomes a model (model.h), as a .d file would, the DOF is
 * dofgen.c's and the .stapsdt.base and .SUNW_dof sections units.c's, and
 * the object is laid out as a shared object instead of a relocatable one
 * (elfdyn.c's ET_DYN writer), ready to be mapped (usdt_map.c; it needs no
 * dynamic linker: no DT_NEEDED, relocation, TLS or initializer):
 *
 *	.text		every probe unit (target.h) back to back: the
 *			tracepoint and the is-enabled tracepoint of each
 *	.probes		every 2-byte semaphore, which bpftrace and perf raise
 *			while they trace the probe
 *	.stapsdt.base	the byte every stapsdt note is relative to
 *	.SUNW_dof	the DOF describing every probe for DTrace
 *	.note.stapsdt	every probe's note (not loaded; tracers read the file)
 *	.note.gnu.build-id  an identity for the image (loaded, with PT_NOTE):
 *			perf keys its cache and `perf probe` by build-id and
 *			finds nothing in an object without one
 *	.note.gnu.property  on x86_64: the image is fit for a shadow stack
 *
 * One section of each kind, however many probes: a -G object needs a
 * COMDAT group per probe so that the linker keeps one copy of each, an
 * image is never linked again.  What costs per probe is kept small, so
 * that making a provider is linear and cheap (bench/runtime): the model is
 * laid out in a few arrays over the caller's strings (image_model_t), the
 * notes' argument strings are formatted once per list of argument types,
 * probe i's pieces are found by arithmetic (unit i, semaphore i), and no
 * probe has a symbol of its own: in the DOF, every probe's function
 * address is that of the units' start, and its offsets reach its own unit
 * (DTrace places a tracepoint at the function address plus each offset,
 * and the image has no symbol table for the address to be looked up in).
 *
 * Each probe of the API is its own model probe with one site pair in its
 * unit: function = the function name the caller gave (what DTrace shows as
 * probefunc).  libusdt allows one probe name in several functions of a
 * provider; such probes share the DTrace and stapsdt name and have units
 * and semaphores of their own.  The DTrace name is the caller's string;
 * the stapsdt name spells each '-' as "__", as a compiled probe's declared
 * name does (tracers on Linux see request__start where DTrace sees
 * request-start).
 *
 * Addresses in the object are offsets from its load base: the DOF's
 * probe addresses carry SETX relocations, so DTrace adds the base it is
 * given at registration, and the notes are read from the file like any
 * linked object's.  usdt.c adds the base for its own pointers.
 *
 * Provider attributes are Stable throughout, as the original library set
 * them, so that D's args[] array is usable.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfenc.h"
#include "elfwrite.h"
#include "hash.h"
#include "model.h"
#include "stapsdt.h"
#include "strbuf.h"
#include "target.h"
#include "units.h"
#include "usdt_image.h"
#include "version.h"

#define IMAGE_DOF_SYMBOL	"__SUNW_dof"

/*
 * The spellings nearly every caller uses, already in their model form
 * (the original library's "int" and "char *", and what the bindings
 * pass): no need to normalise them.
 */
static const char *
common_arg_type(const char *type)
{
	static const char *const common[][2] = {
		{ "int", "int64_t" }, { "char *", "char *" }, { "string", "char *" },
		{ "int64_t", "int64_t" }, { "uint64_t", "uint64_t" },
		{ "void *", "void *" }, { "const char *", "const char *" },
	};

	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		if (strcmp(type, common[i][0]) == 0)
			return common[i][1];
	return NULL;
}

char *
usdt_image_arg_type(const char *type)
{
	const char *common = type != NULL ? common_arg_type(type) : NULL;
	char *t;
	mdl_typeinfo_t ti;

	if (type == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (common != NULL)
		return strdup(common);
	if ((t = mdl_normalise_type(type)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (strcmp(t, "int") == 0 || strcmp(t, "signed int") == 0 ||
	    strcmp(t, "signed") == 0) {
		free(t);
		return strdup("int64_t");
	}
	if (strcmp(t, "string") == 0) {
		free(t);
		return strdup("char *");
	}
	ti = mdl_type_info(NULL, t);
	if (!ti.known || ti.tclass != MDL_TC_INTEGER ||
	    (ti.size != 1 && ti.size != 2 && ti.size != 4 && ti.size != 8)) {
		free(t);
		errno = EINVAL;
		return NULL;
	}
	return t;
}

/*
 * The GNU build-id note: 20 bytes, as ld's default (sha1) gives, naming
 * the image's contents.  The image is a function of the library version,
 * the page size, the target and what the caller defined, so the id hashes
 * those (hash.h): two processes defining the same provider get the same
 * image and the same id, as two copies of one built library would.
 */
#define BUILD_ID_SIZE	20

static void
add_build_id(elfw_t *w, const target_t *t, uint64_t page, const char *provider,
    const usdt_image_probe_t *probes, size_t n)
{
	struct {
		uint32_t namesz, descsz, type;
		char name[4];
		unsigned char id[BUILD_ID_SIZE];
	} note = { .namesz = 4, .descsz = BUILD_ID_SIZE, .type = NT_GNU_BUILD_ID,
	    .name = "GNU" };
	elfw_section_desc_t sd = { ".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, 4, 0,
	    &note, sizeof(note), 0 };
	uint64_t h = hash_str(HASH_FNV_OFFSET, "libusdt " USDTC_VERSION);

	h = hash_str(hash_bytes(h, &page, sizeof(page)), t->name);
	h = hash_str(h, provider);
	for (size_t i = 0; i < n; i++) {
		h = hash_str(hash_str(h, probes[i].function), probes[i].name);
		h = hash_bytes(h, &probes[i].argc, sizeof(probes[i].argc));
		for (size_t k = 0; k < probes[i].argc; k++)
			h = hash_str(h, probes[i].types[k]);
	}
	/* 64 bits of the contents, spread over 160 by three more rounds. */
	for (size_t k = 0; k < BUILD_ID_SIZE; k += 8) {
		size_t len = BUILD_ID_SIZE - k < 8 ? BUILD_ID_SIZE - k : 8;

		memcpy(note.id + k, &h, len);
		h = hash_bytes(h, &k, sizeof(k));
	}
	elfw_add_section(w, &sd);
}

/*
 * The object being built: the compiler's units_t (builder, model, target,
 * .stapsdt.base) and the two symbols every probe's addresses are made of.
 * Units lie back to back in one .text, `stride` bytes apart, semaphores in
 * one .probes, STAPSDT_SEMAPHORE_SIZE bytes apart: probe i's tracepoint is
 * units + i * stride + probe_offset and its semaphore sems + 2 * i, so the
 * notes' relocations carry addends, the DOF's sites are offsets from the
 * units' symbol, and no probe needs a section or a symbol of its own.
 */
#define IMAGE_UNITS_SYMBOL	"__usdt_units"
#define IMAGE_SEMAPHORES_SYMBOL	"__usdt_semaphores"

typedef struct image {
	units_t u;
	mdl_provider_t *p;
	size_t n;
	uint64_t stride;
	int units_sec, units_sym, sems_sym;
} image_t;

static uint64_t
unit_offset(const image_t *img, size_t i)
{
	return (uint64_t)i * img->stride;
}

/* A local symbol at value in section sec, covering size bytes. */
static int
add_local(elfw_t *w, const char *name, int sec, uint64_t value, uint64_t size,
    unsigned type)
{
	elfw_symbol_desc_t d = { name, sec, value, size, STB_LOCAL, type, STV_DEFAULT };

	return elfw_add_symbol(w, &d);
}

/* .text with every probe unit, and .probes with every semaphore. */
static int
add_units(image_t *img)
{
	const arch_t *a = img->u.t->arch;
	size_t size = img->n * img->stride;
	unsigned char *text = calloc(size + 1, 1);
	int sec;

	for (size_t i = 0; text != NULL && i < img->n; i++)
		memcpy(text + unit_offset(img, i), a->unit, a->unit_size);
	elfw_section_desc_t td = { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	    a->unit_align, 0, NULL, size, 0 };
	sec = elfw_adopt_section(img->u.w, &td, text);
	img->units_sec = sec;
	img->units_sym = add_local(img->u.w, IMAGE_UNITS_SYMBOL, sec, 0, size, STT_FUNC);
	if (!img->u.t->stapsdt)
		return img->units_sym > 0 ? 0 : -1;
	elfw_section_desc_t sd = { STAPSDT_SEMAPHORE_SECTION, SHT_PROGBITS,
	    SHF_ALLOC | SHF_WRITE, STAPSDT_SEMAPHORE_SIZE, 0, NULL,
	    img->n * STAPSDT_SEMAPHORE_SIZE, 0 };
	sec = elfw_add_section(img->u.w, &sd);
	img->sems_sym = add_local(img->u.w, IMAGE_SEMAPHORES_SYMBOL, sec, 0,
	    img->n * STAPSDT_SEMAPHORE_SIZE, STT_OBJECT);
	return img->units_sym > 0 && img->sems_sym > 0 ? 0 : -1;
}

/*
 * The model of the image.  The parser builds its model through model.c,
 * one allocation per name, argument and site; here the shape is fixed (one
 * provider, probes with native arguments only, two sites each, in unit i)
 * and most strings are the caller's, so the model is laid out in a few
 * arrays, its structures pointing into the caller's usdt_image_probe_t and
 * into strs.  dofgen.c and the architecture's note_args read it (they read
 * a model, never change it); mdl_free never sees it.
 */
typedef struct image_model {
	mdl_model_t m;
	mdl_provider_t p;
	mdl_provider_t *providers[1];
	mdl_probe_t *probes;	/* [n] */
	mdl_probe_t **order;	/* [n]: p.probes */
	mdl_arg_t *args;	/* the probes' arguments, a list for each run of
				   probes declared alike */
	mdl_site_t *sites;	/* [2n]: each probe's firing and is-enabled site */
	char *strs;		/* declared names that differ */
	uint8_t identity[256];	/* the argmap: translated = native */
} image_model_t;

/*
 * The name Linux tracers see: "a-b" becomes "a__b" (model.h), written at
 * *strs; the caller's own string when it has no '-'.
 */
static char *
declared_name(const char *dof_name, char **strs)
{
	char *out = *strs, *o = out;

	if (strchr(dof_name, '-') == NULL)
		return (char *)dof_name;
	for (const char *s = dof_name; *s != '\0'; s++) {
		if (*s == '-') {
			*o++ = '_';
			*o++ = '_';
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\0';
	*strs = o;
	return out;
}

/* Whether ip's argument types are those of the model's probe pr. */
static bool
same_types(const mdl_probe_t *pr, const usdt_image_probe_t *ip)
{
	if (pr->nargc != ip->argc)
		return false;
	for (size_t k = 0; k < ip->argc; k++)
		if (pr->nargs[k].type != ip->types[k] &&
		    strcmp(pr->nargs[k].type, ip->types[k]) != 0)
			return false;
	return true;
}

/*
 * Probe i, whose unit is at unit from the units' start: its names,
 * arguments (the next ones of *args) and sites.
 */
static void
model_probe(image_model_t *im, const arch_t *a, const usdt_image_probe_t *ip,
    size_t i, uint32_t unit, mdl_arg_t **args, char **strs)
{
	mdl_probe_t *pr = &im->probes[i];
	mdl_site_t *site = &im->sites[2 * i];
	char *sym = IMAGE_UNITS_SYMBOL;

	pr->dof_name = (char *)ip->name;
	pr->name = declared_name(ip->name, strs);
	pr->nargc = pr->xargc = ip->argc;
	pr->argmap = im->identity;
	if (i > 0 && same_types(&im->probes[i - 1], ip)) {
		/* Probes declared alike share their argument list. */
		pr->nargs = pr->xargs = im->probes[i - 1].nargs;
	} else {
		pr->nargs = pr->xargs = *args;
		for (size_t k = 0; k < ip->argc; k++)
			pr->nargs[k].type = ip->types[k];
		*args += ip->argc;
	}
	site[0] = (mdl_site_t){ (char *)ip->function, sym, 0,
	    unit + (uint32_t)a->probe_offset, false };
	site[1] = (mdl_site_t){ (char *)ip->function, sym, 0,
	    unit + (uint32_t)a->enabled_offset, true };
	pr->sites = site;
	pr->nsites = 2;
	im->order[i] = pr;
}

static const mdl_attr_t stable = { MDL_STAB_STABLE, MDL_STAB_STABLE, MDL_CLASS_COMMON };

/*
 * The model of provider with probes[0..n), units stride bytes apart; -1
 * when memory runs out or the units reach past what a DOF offset (32 bits)
 * can say.
 */
static int
image_model_init(image_model_t *im, const arch_t *a, const char *provider,
    const usdt_image_probe_t *probes, size_t n, uint64_t stride)
{
	size_t nargs = 0, nstrs = 0;
	mdl_arg_t *args;
	char *strs;

	for (size_t i = 0; i < n; i++) {
		if (probes[i].argc > sizeof(im->identity))
			return -1;
		nargs += probes[i].argc;
		nstrs += 2 * strlen(probes[i].name) + 1;
	}
	if ((uint64_t)n * stride >= UINT32_MAX - 64)
		return -1;
	for (size_t k = 0; k < sizeof(im->identity); k++)
		im->identity[k] = (uint8_t)k;
	im->probes = calloc(n + 1, sizeof(*im->probes));
	im->order = calloc(n + 1, sizeof(*im->order));
	im->args = calloc(nargs + 1, sizeof(*im->args));
	im->sites = calloc(2 * n + 1, sizeof(*im->sites));
	im->strs = malloc(nstrs + 1);
	if (im->probes == NULL || im->order == NULL || im->args == NULL ||
	    im->sites == NULL || im->strs == NULL)
		return -1;
	args = im->args;
	strs = im->strs;
	for (size_t i = 0; i < n; i++)
		model_probe(im, a, &probes[i], i, (uint32_t)(i * stride), &args, &strs);
	im->p.name = (char *)provider;
	for (int k = 0; k < MDL_ATTR_NPARTS; k++)
		im->p.attr[k] = stable;
	im->p.probes = im->order;
	im->p.nprobes = n;
	im->providers[0] = &im->p;
	im->m.providers = im->providers;
	im->m.nproviders = 1;
	return 0;
}

static void
image_model_free(image_model_t *im)
{
	free(im->probes);
	free(im->order);
	free(im->args);
	free(im->sites);
	free(im->strs);
}

/*
 * The argument descriptions of the notes, one per distinct list of
 * argument types: a provider's probes mostly share a few lists, and the
 * architecture's note_args formats every operand.  An open-addressed
 * table (at most half full) maps a list to the offset of its string in
 * strs, keyed by the first probe that had it.
 */
typedef struct args_cache {
	struct { const mdl_probe_t *pr; size_t off; } *slots;
	size_t cap;
	strbuf_t strs;
} args_cache_t;

static uint64_t
args_hash(const mdl_probe_t *pr)
{
	uint64_t h = hash_bytes(HASH_FNV_OFFSET, &pr->nargc, sizeof(pr->nargc));

	for (size_t i = 0; i < pr->nargc; i++)
		h = hash_str(h, pr->nargs[i].type);
	return h;
}

static bool
same_args(const mdl_probe_t *a, const mdl_probe_t *b)
{
	if (a->nargc != b->nargc)
		return false;
	for (size_t i = 0; i < a->nargc; i++)
		if (strcmp(a->nargs[i].type, b->nargs[i].type) != 0)
			return false;
	return true;
}

/* The offset in c->strs of pr's argument description, made on first use. */
static size_t
cached_args(args_cache_t *c, const units_t *u, const mdl_probe_t *pr)
{
	size_t mask = c->cap - 1, i = (size_t)args_hash(pr) & mask;

	while (c->slots[i].pr != NULL && !same_args(c->slots[i].pr, pr))
		i = (i + 1) & mask;
	if (c->slots[i].pr == NULL) {
		c->slots[i].pr = pr;
		c->slots[i].off = c->strs.len;
		u->t->arch->note_args(u->m, pr, &c->strs);
		sb_putc(&c->strs, '\0');
	}
	return c->slots[i].off;
}

/*
 * One stapsdt note (type 3, as <sys/sdt.h> writes it, and units.c for a
 * -G object): namesz, descsz, type, "stapsdt\0", then pc, base and
 * semaphore (zero here, relocated), provider, probe as declared and the
 * argument description, NUL-ended, padded to 4.  Returns the offset of pc.
 */
static size_t
put_note(strbuf_t *out, unsigned asz, const char *provider, size_t plen,
    const mdl_probe_t *pr, const char *args)
{
	return elfenc_stapsdt_note(out, asz, provider, plen, pr->name, strlen(pr->name) + 1,
	    args, strlen(args) + 1);
}

/*
 * The note bytes of every probe, and the offset of each one's pc in pcs.
 * Each probe's argument description is found first (its offset kept in
 * pcs[i]), so that the notes' size is known and out is allocated once.
 */
static int
note_bytes(image_t *img, strbuf_t *out, size_t *pcs)
{
	unsigned asz = elfenc_addr_size(img->u.t->arch->elf_class);
	size_t plen = strlen(img->p->name) + 1, size = 0;
	args_cache_t c = { NULL, 16, { 0 } };
	int rc = -1;

	while (c.cap < 2 * img->n)
		c.cap *= 2;
	sb_init(&c.strs);
	if ((c.slots = calloc(c.cap, sizeof(*c.slots))) != NULL) {
		for (size_t i = 0; i < img->n && !c.strs.failed; i++)
			pcs[i] = cached_args(&c, &img->u, img->p->probes[i]);
		for (size_t i = 0; i < img->n && !c.strs.failed; i++)
			size += elfenc_stapsdt_note_size(asz, plen,
			    strlen(img->p->probes[i]->name) + 1, strlen(c.strs.data + pcs[i]) + 1);
		sb_presize(out, size);
		for (size_t i = 0; i < img->n && !c.strs.failed; i++)
			pcs[i] = put_note(out, asz, img->p->name, plen, img->p->probes[i],
			    c.strs.data + pcs[i]);
		rc = c.strs.failed || out->failed ? -1 : 0;
	}
	free(c.slots);
	sb_free(&c.strs);
	return rc;
}

/* .note.stapsdt: one note per probe, in one section outside any group. */
static int
add_notes(image_t *img)
{
	const arch_t *a = img->u.t->arch;
	unsigned asz = elfenc_addr_size(a->elf_class), abs = a->reloc_abs64;
	size_t *pcs = calloc(img->n + 1, sizeof(size_t));
	strbuf_t bytes;
	int sec = -1;

	sb_init(&bytes);
	if (pcs != NULL && note_bytes(img, &bytes, pcs) == 0) {
		elfw_section_desc_t sd = { STAPSDT_NOTE_SECTION, SHT_NOTE, 0,
		    STAPSDT_NOTE_ALIGN, 0, NULL, bytes.len, 0 };

		sec = elfw_adopt_section(img->u.w, &sd, sb_steal(&bytes, NULL));
		if (sec > 0 && elfw_reserve(img->u.w, 0, sec, 3 * img->n) != 0)
			sec = -1;
	}
	for (size_t i = 0; sec > 0 && i < img->n; i++) {
		elfw_add_reloc(img->u.w, sec, pcs[i], abs, img->units_sym,
		    (int64_t)(unit_offset(img, i) + a->probe_offset));
		elfw_add_reloc(img->u.w, sec, pcs[i] + STAPSDT_BASE * asz, abs,
		    img->u.base_sym, 0);
		elfw_add_reloc(img->u.w, sec, pcs[i] + STAPSDT_SEMAPHORE * asz, abs,
		    img->sems_sym, (int64_t)(i * STAPSDT_SEMAPHORE_SIZE));
	}
	sb_free(&bytes);
	free(pcs);
	return sec > 0 ? 0 : -1;
}

/*
 * On x86_64, the GNU property note (NT_GNU_PROPERTY_TYPE_0) saying the
 * image's code is fit for a shadow stack: every unit returns to its
 * caller.  Not IBT: the units are called indirectly and do not begin with
 * endbr64 (runtime/stubs_x86_64.S says more).  The ET_DYN writer gives the
 * section its PT_GNU_PROPERTY, where the loader looks.
 */
static void
add_property_note(elfw_t *w, const target_t *t)
{
	uint8_t note[ELFENC_X86_PROPERTY_SIZE];
	elfw_section_desc_t sd = { ELFENC_PROPERTY_SECTION, SHT_NOTE, SHF_ALLOC, 8, 0,
	    note, sizeof(note), 0 };

	elfenc_x86_property_note(note, ELFENC_X86_FEATURE_1_SHSTK);
	if (t->arch->elf_machine == EM_X86_64)
		elfw_add_section(w, &sd);
}

/* Offsets from the load base of every probe's pieces and of the DOF. */
static int
fill_layout(const image_t *img, usdt_image_layout_t *out, err_t *e)
{
	const arch_t *a = img->u.t->arch;
	int dof = elfw_find_symbol(img->u.w, IMAGE_DOF_SYMBOL);
	uint64_t units = elfw_symbol_address(img->u.w, img->units_sym);
	uint64_t sems = img->sems_sym > 0 ? elfw_symbol_address(img->u.w, img->sems_sym) : 0;

	if (dof <= 0)
		return err_set(e, "the DOF is missing from the object");
	for (size_t i = 0; i < img->n; i++) {
		out->probes[i].entry = units + unit_offset(img, i);
		out->probes[i].probe = out->probes[i].entry + a->probe_offset;
		out->probes[i].enabled = units + unit_offset(img, i) + a->enabled_offset;
		out->probes[i].semaphore = sems ? sems + i * STAPSDT_SEMAPHORE_SIZE : 0;
	}
	out->dof = elfw_symbol_address(img->u.w, dof);
	return 0;
}

/* Everything of the object but its file: units, notes, DOF. */
static int
build_image(image_t *img, const char *provider, const usdt_image_probe_t *probes,
    uint64_t page, err_t *e)
{
	const target_t *t = img->u.t;

	if ((img->u.w = elfw_new(t->arch->elf_class, t->arch->elf_machine, e)) == NULL)
		return -1;
	if (t->stapsdt)
		units_add_stapsdt_base(&img->u);
	add_property_note(img->u.w, t);
	add_build_id(img->u.w, t, page, provider, probes, img->n);
	if (add_units(img) != 0)
		return elfw_failed(img->u.w, e) ? -1 :
		    err_errno(e, ENOMEM, "provider %s", provider);
	/*
	 * The DOF before the notes: what dofgen.c allocates while it works is
	 * freed when it is done, and the notes then take its place instead of
	 * adding to the most memory an enable holds at once.  The layout is
	 * the same either way (the notes are not loaded, the DOF is).
	 */
	if (units_add_dof(&img->u, IMAGE_DOF_SYMBOL, false, e) < 0)
		return -1;
	if (t->stapsdt && add_notes(img) != 0)
		return elfw_failed(img->u.w, e) ? -1 :
		    err_errno(e, ENOMEM, "provider %s", provider);
	return 0;
}

int
usdt_image_write(const char *provider, const usdt_image_probe_t *probes,
    size_t n, int fd, usdt_image_layout_t *out, err_t *e)
{
	const target_t *t = target_host();
	image_model_t im = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	elfw_dyn_opts_t o = { NULL, t->arch->reloc_abs64,
	    page > 4096 ? (uint64_t)page : 4096 };
	/* lazyload: no drti_lite reads this DOF, so its addresses are absolute (target_dof_addr). */
	image_t img = { { .m = &im.m, .t = t, .lazyload = true }, &im.p, n,
	    (t->arch->unit_size + t->arch->unit_align - 1) / t->arch->unit_align *
	    t->arch->unit_align, 0, 0, 0 };
	int rc = -1;

	if (image_model_init(&im, t->arch, provider, probes, n, img.stride) != 0)
		err_errno(e, ENOMEM, "provider %s", provider);
	else if (build_image(&img, provider, probes, o.page_size, e) == 0 &&
	    elfw_write_dyn(img.u.w, fd, &o, e) == 0)
		rc = fill_layout(&img, out, e);
	elfw_free(img.u.w);
	image_model_free(&im);
	return rc;
}
