/*
 * usdt_image.c - the shared object behind one run-time provider.
 *
 * A run-time provider is the compiler run in-process: the provider becomes
 * a model (model.h), exactly as a .d file would, and the pieces a -G
 * object carries are built by the same code (units.c), then laid out as a
 * shared object instead of a relocatable one (elfdyn.c's ET_DYN
 * writer), ready for dlopen:
 *
 *	.text		one probe unit per probe (target.h): the tracepoint
 *			and the is-enabled tracepoint, both 5-byte nops
 *	.probes		one 2-byte semaphore per probe, which bpftrace and
 *			perf raise while they trace it
 *	.stapsdt.base	the byte every stapsdt note is relative to
 *	.SUNW_dof	the DOF describing every probe for DTrace
 *	.note.stapsdt	one note per probe (not loaded; tracers read the file)
 *	.note.gnu.build-id  an identity for the image (loaded, with PT_NOTE):
 *			perf keys its cache and `perf probe` by build-id and
 *			finds nothing in an object without one
 *
 * Each probe of the API is its own model probe with one site pair in its
 * own unit: function = the function name the caller gave (what DTrace
 * shows as probefunc), relocation symbol = the unit.  libusdt allows one
 * probe name in several functions of a provider; such probes share the
 * DTrace and stapsdt name but get units of their own, the later ones named
 * with a ".K" suffix.  The DTrace name is the caller's string; the stapsdt
 * name spells each '-' as "__", as a compiled probe's declared name does
 * (tracers on Linux see request__start where DTrace sees request-start).
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

#include "elfwrite.h"
#include "hash.h"
#include "model.h"
#include "target.h"
#include "units.h"
#include "usdt_image.h"
#include "version.h"

#define IMAGE_DOF_SYMBOL	"__SUNW_dof"

char *
usdt_image_arg_type(const char *type)
{
	char *t = type != NULL ? usdt_normalise_type(type) : NULL;
	mdl_typeinfo_t ti;

	if (type == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (t == NULL) {
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
	ti = model_type_info(NULL, t);
	if (!ti.known || ti.tclass != USDT_TC_INTEGER ||
	    (ti.size != 1 && ti.size != 2 && ti.size != 4 && ti.size != 8)) {
		free(t);
		errno = EINVAL;
		return NULL;
	}
	return t;
}

/* "a-b" -> "a__b": the name Linux tracers see (model.h). */
static char *
declared_name(const char *dof_name)
{
	size_t n = 0;
	char *out, *o;

	for (const char *s = dof_name; *s != '\0'; s++)
		n += *s == '-' ? 2 : 1;
	if ((out = malloc(n + 1)) == NULL)
		return NULL;
	o = out;
	for (const char *s = dof_name; *s != '\0'; s++) {
		if (*s == '-') {
			*o++ = '_';
			*o++ = '_';
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

/* The model probe for one API probe, with its arguments but no sites yet. */
static mdl_probe_t *
add_model_probe(mdl_provider_t *p, const usdt_image_probe_t *ip, err_t *e)
{
	src_loc_t nowhere = { NULL, 0, 0 };
	char *declared = declared_name(ip->name), *dof_name = strdup(ip->name);
	mdl_probe_t *pr = NULL;
	int rc = -1;

	if (declared != NULL && dof_name != NULL)
		pr = provider_add_probe(p, declared, nowhere);
	if (pr != NULL) {
		/* The DTrace name is the caller's, not derived from the declared one. */
		free(pr->dof_name);
		pr->dof_name = dof_name;
		dof_name = NULL;
		rc = 0;
		for (size_t i = 0; i < ip->argc && rc == 0; i++)
			rc = probe_add_native_arg(pr, ip->types[i], NULL, nowhere);
		if (rc == 0)
			rc = probe_finish_args(pr);
	}
	free(declared);
	free(dof_name);
	if (rc != 0) {
		err_errno(e, ENOMEM, "probe %s:%s", p->name, ip->name);
		return NULL;
	}
	return pr;
}

/* The symbols of one probe's unit; malloc'd. */
typedef struct unit_syms {
	char *func;		/* the unit: its probe slot */
	char *enabled;		/* its is-enabled slot */
	char *semaphore;
} unit_syms_t;

static void
unit_syms_free(unit_syms_t *s)
{
	free(s->func);
	free(s->enabled);
	free(s->semaphore);
}

/* The compiler's names for probe i's unit, with ".i" added if already taken. */
static int
unit_syms_init(unit_syms_t *s, elfw_t *w, const mdl_provider_t *p,
    const mdl_probe_t *pr, size_t i)
{
	char **names[3] = { &s->func, &s->enabled, &s->semaphore };

	s->func = usdt_probe_func(p->name, pr->dof_name);
	s->enabled = usdt_enabled_func(p->name, pr->dof_name);
	s->semaphore = usdt_semaphore_name(p->name, pr->name);
	if (s->func == NULL || s->enabled == NULL || s->semaphore == NULL)
		return -1;
	if (elfw_find_symbol(w, s->func) == 0 && elfw_find_symbol(w, s->semaphore) == 0)
		return 0;
	for (int k = 0; k < 3; k++) {
		char *unique;

		if (asprintf(&unique, "%s.%zu", *names[k], i) < 0)
			return -1;
		free(*names[k]);
		*names[k] = unique;
	}
	return 0;
}

/* Probe i: its model probe, its sites in its unit, and the unit's group. */
static int
build_probe(units_t *u, mdl_provider_t *p, const usdt_image_probe_t *ip,
    size_t i, unit_syms_t *syms, err_t *e)
{
	const usdt_arch_t *a = u->t->arch;
	mdl_probe_t *pr = add_model_probe(p, ip, e);
	units_names_t un;

	if (pr == NULL)
		return -1;
	if (unit_syms_init(syms, u->w, p, pr, i) != 0 ||
	    probe_add_site(pr, ip->function, syms->func, 0, a->probe_offset, false) != 0 ||
	    probe_add_site(pr, ip->function, syms->func, 0, a->enabled_offset, true) != 0)
		return err_errno(e, ENOMEM, "probe %s:%s", p->name, ip->name);
	un = (units_names_t){ syms->func, syms->enabled, syms->semaphore };
	if (units_add_probe_group_named(u, p, pr, &un) == 0)
		return 0;
	if (elfw_failed(u->w, e))
		return -1;
	return err_errno(e, ENOMEM, "probe %s:%s", p->name, ip->name);
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
add_build_id(elfw_t *w, const usdt_target_t *t, uint64_t page, const char *provider,
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

/* Offsets from the load base of every probe's pieces and of the DOF. */
static int
fill_layout(elfw_t *w, const usdt_target_t *t, size_t n, const unit_syms_t *syms,
    usdt_image_layout_t *out, err_t *e)
{
	int dof = elfw_find_symbol(w, IMAGE_DOF_SYMBOL);

	for (size_t i = 0; i < n; i++) {
		int unit = elfw_find_symbol(w, syms[i].func);
		int sem = t->stapsdt ? elfw_find_symbol(w, syms[i].semaphore) : 0;
		uint64_t base;

		if (unit <= 0 || (t->stapsdt && sem <= 0))
			return err_set(e, "probe unit %s is missing from the object", syms[i].func);
		base = elfw_symbol_address(w, unit);
		out->probes[i].probe = base + t->arch->probe_offset;
		out->probes[i].enabled = base + t->arch->enabled_offset;
		out->probes[i].semaphore = sem > 0 ? elfw_symbol_address(w, sem) : 0;
	}
	if (dof <= 0)
		return err_set(e, "the DOF is missing from the object");
	out->dof = elfw_symbol_address(w, dof);
	return 0;
}

static const mdl_attr_t stable = { USDT_STAB_STABLE, USDT_STAB_STABLE, USDT_CLASS_COMMON };

int
usdt_image_write(const char *provider, const usdt_image_probe_t *probes,
    size_t n, int fd, usdt_image_layout_t *out, err_t *e)
{
	const usdt_target_t *t = target_host();
	src_loc_t nowhere = { NULL, 0, 0 };
	mdl_model_t *m = model_new();
	mdl_provider_t *p = m ? model_add_provider(m, provider, nowhere) : NULL;
	unit_syms_t *syms = calloc(n + 1, sizeof(*syms));
	units_t u = { NULL, m, t, 0 };
	long page = sysconf(_SC_PAGESIZE);
	elfw_dyn_opts_t o = { NULL, t->arch->reloc_abs64,
	    page > 4096 ? (uint64_t)page : 4096 };
	int rc = -1;

	if (m == NULL || p == NULL || syms == NULL) {
		err_errno(e, ENOMEM, "provider %s", provider);
		goto out;
	}
	for (int k = 0; k < USDT_ATTR_NPARTS; k++)
		p->attr[k] = stable;
	if ((u.w = elfw_new(t->arch->elf_class, t->arch->elf_machine, e)) == NULL)
		goto out;
	if (t->stapsdt)
		units_add_stapsdt_base(&u);
	add_build_id(u.w, t, o.page_size, provider, probes, n);
	for (size_t i = 0; i < n; i++)
		if (build_probe(&u, p, &probes[i], i, &syms[i], e) != 0)
			goto out;
	if (units_add_dof(&u, IMAGE_DOF_SYMBOL, false, e) < 0 ||
	    elfw_write_dyn(u.w, fd, &o, e) != 0)
		goto out;
	rc = fill_layout(u.w, t, n, syms, out, e);
out:
	for (size_t i = 0; syms != NULL && i < n; i++)
		unit_syms_free(&syms[i]);
	free(syms);
	elfw_free(u.w);
	model_free(m);
	return rc;
}
