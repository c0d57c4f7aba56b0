/*
 * model.c - building, querying and freeing the provider model (model.h).
 *
 * Everything here may run inside a host program (libusdt), so no function
 * prints, exits or assumes allocation succeeds.  Type classification is the
 * one piece of knowledge with weight: the stapsdt note must say how many
 * bytes of which register hold each argument and whether they are signed,
 * and that depends on the C type as written.  We know the C integer types in
 * every spelling, the fixed-width and common system typedefs DTrace knows,
 * and whatever the definition file typedef'd; anything else is assumed to be
 * a full 8-byte register (correct for pointers and 64-bit types, which is
 * what unknown typedefs in real provider files almost always are).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "idset.h"
#include "model.h"

const mdl_attr_t mdl_attr_default = {
	MDL_STAB_UNSTABLE, MDL_STAB_UNSTABLE, MDL_CLASS_COMMON
};

/*
 * Grow *arrayp (of elem-sized items, *countp used) by one slot; NULL on
 * failure.  The capacity doubles, at counts 0, 4, 8, 16 ... (it is never
 * stored: an array holds at least max(4, the next power of two) items for
 * its count, also after removals), so n additions cost O(n), which
 * libusdt's providers of 100,000 probes need.
 */
static void *
grow(void *arrayp, size_t *countp, size_t elem)
{
	void **ap = arrayp;
	size_t n = *countp;
	void *p = *ap;

	if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
		if ((p = realloc(*ap, (n < 4 ? 4 : n * 2) * elem)) == NULL)
			return NULL;
		*ap = p;
	}
	return (char *)p + (*countp)++ * elem;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* mdl_type_info's memo: each spelling asked, a copy of it, its answer. */
typedef struct cached_type {
	char *type;
	mdl_typeinfo_t ti;
} cached_type_t;

struct mdl_type_cache {
	idset_t ids;		/* positions in v, by spelling */
	cached_type_t *v;
	size_t n;
};

mdl_model_t *
mdl_new(void)
{
	mdl_model_t *m = calloc(1, sizeof(mdl_model_t));

	if (m != NULL && (m->type_cache = calloc(1, sizeof(*m->type_cache))) != NULL)
		idset_init(&m->type_cache->ids);
	return m;	/* without a cache, every lookup classifies afresh */
}

static void
args_free(mdl_arg_t *args, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(args[i].type);
		free(args[i].name);
	}
	free(args);
}

/*
 * The argument map of a probe whose translated arguments are its native
 * ones, shared by every such probe instead of a copy each (32 bytes a
 * probe with malloc's header and rounding: 3 MB of a -G of 100,000
 * probes, issue 40).
 */
#define IDENT4(n) n, n + 1, n + 2, n + 3
#define IDENT16(n) IDENT4(n), IDENT4(n + 4), IDENT4(n + 8), IDENT4(n + 12)
#define IDENT64(n) IDENT16(n), IDENT16(n + 16), IDENT16(n + 32), IDENT16(n + 48)
static const uint8_t identity_argmap[256] = {
	IDENT64(0), IDENT64(64), IDENT64(128), IDENT64(192)
};

static void
argmap_free(const uint8_t *argmap)
{
	if (argmap != identity_argmap)
		free((void *)argmap);
}

/* A probe's argument lists, packed (one block) or not. */
static void
probe_args_free(mdl_probe_t *pr)
{
	if (pr->args_packed) {
		free(pr->nargs);	/* the block: both lists and their strings */
	} else {
		if (pr->xargs != pr->nargs)	/* not shared (mdl_probe_finish_args) */
			args_free(pr->xargs, pr->xargc);
		args_free(pr->nargs, pr->nargc);
	}
	pr->nargs = pr->xargs = NULL;
	pr->nargc = pr->xargc = 0;
	pr->args_packed = false;
}

/* Its names are in its own allocation (mdl_provider_add_probe). */
static void
probe_free(mdl_probe_t *pr)
{
	if (pr == NULL)
		return;
	probe_args_free(pr);
	argmap_free(pr->argmap);
	for (size_t i = 0; i < pr->nsites; i++) {
		free(pr->sites[i].func);
		free(pr->sites[i].symbol);
	}
	free(pr->sites);
	free(pr);
}

/*
 * Name indexes, so that lookups stay cheap in providers of many thousand
 * probes: a provider's probes by DTrace name, the model's typedefs and
 * providers by name (a file of 100,000 providers was quadratic).  A set of positions in the indexed array (idset.h).  An index is
 * only a cache: when it cannot be allocated, or a removal shifted the
 * positions, it is dropped, lookups scan the array, and the next addition
 * builds it again.
 */
struct mdl_name_index {
	idset_t positions;
};

/* What an index is over: the array's owner and the name at a position. */
typedef struct indexed {
	struct mdl_name_index **index;
	const void *owner;
	const char *(*name_at)(const void *owner, size_t pos);
	size_t n;		/* entries in the array */
	bool last_wins;		/* a later entry of the same name hides earlier ones */
} indexed_t;

static const char *
probe_dof_name_at(const void *owner, size_t pos)
{
	return ((const mdl_provider_t *)owner)->probes[pos]->dof_name;
}

static const char *
typedef_name_at(const void *owner, size_t pos)
{
	return ((const mdl_model_t *)owner)->typedefs[pos].name;
}

static const char *
provider_name_at(const void *owner, size_t pos)
{
	return ((const mdl_model_t *)owner)->providers[pos]->name;
}

static indexed_t
probes_indexed(mdl_provider_t *p)
{
	return (indexed_t){ &p->index, p, probe_dof_name_at, p->nprobes, false };
}

static indexed_t
typedefs_indexed(mdl_model_t *m)
{
	return (indexed_t){ &m->typedef_index, m, typedef_name_at, m->ntypedefs, true };
}

static indexed_t
providers_indexed(mdl_model_t *m)
{
	return (indexed_t){ &m->provider_index, m, provider_name_at, m->nproviders, false };
}

static const char *
tagged_name_at(const void *owner, size_t pos)
{
	return ((const mdl_model_t *)owner)->tagged[pos].tag;
}

static indexed_t
tagged_indexed(mdl_model_t *m)
{
	return (indexed_t){ &m->tagged_index, m, tagged_name_at, m->ntagged, false };
}

static uint64_t
name_hash(const char *s)
{
	return hash_str(HASH_FNV_OFFSET, s);
}

/* Is the name at position id of the indexed array the string key? */
static bool
name_at_is(const void *ctx, size_t id, const void *key)
{
	const indexed_t *a = ctx;

	return strcmp(a->name_at(a->owner, id), key) == 0;
}

static void
index_drop(struct mdl_name_index **xp)
{
	if (*xp != NULL)
		idset_free(&(*xp)->positions);
	free(*xp);
	*xp = NULL;
}

/* Index position pos; false when out of memory. */
static bool
index_put(struct mdl_name_index *x, const indexed_t *a, size_t pos)
{
	const char *name = a->name_at(a->owner, pos);
	uint64_t h = name_hash(name);

	if (a->last_wins)
		return idset_set(&x->positions, h, pos, name_at_is, a, name);
	if (idset_find(&x->positions, h, name_at_is, a, name) != IDSET_NONE)
		return true;
	return idset_add(&x->positions, h, pos);
}

/* Index every entry afresh, with room for as many again (best effort). */
static void
index_build(const indexed_t *a)
{
	struct mdl_name_index *x;

	index_drop(a->index);
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return;
	idset_init(&x->positions);
	if (!idset_reserve(&x->positions, 2 * (a->n + 1)))
		goto fail;
	for (size_t i = 0; i < a->n; i++)
		if (!index_put(x, a, i))
			goto fail;
	*a->index = x;
	return;
fail:
	index_drop(&x);
}

/* Index the entry just appended (the array now holds a->n). */
static void
index_add_last(const indexed_t *a)
{
	if (*a->index == NULL)
		index_build(a);
	else if (!index_put(*a->index, a, a->n - 1))
		index_drop(a->index);
}

/* The position of name, or (size_t)-1; a scan when there is no index. */
static size_t
index_find(const indexed_t *a, const char *name)
{
	if (*a->index == NULL) {
		for (size_t k = 0; k < a->n; k++) {
			size_t i = a->last_wins ? a->n - 1 - k : k;

			if (strcmp(a->name_at(a->owner, i), name) == 0)
				return i;
		}
		return (size_t)-1;
	}
	return idset_find(&(*a->index)->positions, name_hash(name), name_at_is, a, name);
}

/* Forget every answer of mdl_type_info (a type was added). */
static void
type_cache_clear(struct mdl_type_cache *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].type);
	free(c->v);
	c->v = NULL;
	c->n = 0;
	idset_free(&c->ids);
	idset_init(&c->ids);
}

static void
provider_free(mdl_provider_t *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nprobes; i++)
		probe_free(p->probes[i]);
	free(p->probes);
	free(p->name);
	index_drop(&p->index);
	free(p);
}

void
mdl_free(mdl_model_t *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->nproviders; i++)
		provider_free(m->providers[i]);
	free(m->providers);
	for (size_t i = 0; i < m->ntypedefs; i++) {
		free(m->typedefs[i].name);
		free(m->typedefs[i].type);
	}
	free(m->typedefs);
	index_drop(&m->typedef_index);
	index_drop(&m->provider_index);
	index_drop(&m->tagged_index);
	type_cache_clear(m->type_cache);
	free(m->type_cache);
	for (size_t i = 0; i < m->ntagged; i++)
		free(m->tagged[i].tag);
	free(m->tagged);
	for (size_t i = 0; i < m->ntranslators; i++) {
		free(m->translators[i].out_type);
		free(m->translators[i].in_type);
	}
	free(m->translators);
	for (size_t i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	free(m->files);
	free(m);
}

const char *
mdl_intern_file(mdl_model_t *m, const char *file)
{
	char **slot;

	for (size_t i = 0; i < m->nfiles; i++)
		if (strcmp(m->files[i], file) == 0)
			return m->files[i];
	slot = grow(&m->files, &m->nfiles, sizeof(char *));
	if (slot == NULL)
		return NULL;
	if ((*slot = strdup(file)) == NULL) {
		m->nfiles--;
		return NULL;
	}
	return *slot;
}

mdl_provider_t *
mdl_find_provider(const mdl_model_t *m, const char *name)
{
	indexed_t a = providers_indexed((mdl_model_t *)m);	/* only read */
	size_t i = index_find(&a, name);

	return i != (size_t)-1 ? m->providers[i] : NULL;
}

mdl_provider_t *
mdl_add_provider(mdl_model_t *m, const char *name, src_loc_t loc)
{
	mdl_provider_t *p = calloc(1, sizeof(*p)), **slot;
	indexed_t a;

	if (p == NULL || (p->name = strdup(name)) == NULL)
		goto fail;
	for (int i = 0; i < MDL_ATTR_NPARTS; i++)
		p->attr[i] = mdl_attr_default;
	p->loc = loc;
	if ((slot = grow(&m->providers, &m->nproviders, sizeof(*slot))) == NULL)
		goto fail;
	*slot = p;
	a = providers_indexed(m);
	index_add_last(&a);
	return p;
fail:
	provider_free(p);
	return NULL;
}

/* Remove element i of an array of pointers, keeping order. */
static void
remove_ptr(void **array, size_t *countp, size_t i)
{
	memmove(&array[i], &array[i + 1], (*countp - i - 1) * sizeof(void *));
	(*countp)--;
}

void
mdl_remove_provider(mdl_model_t *m, mdl_provider_t *prov)
{
	for (size_t i = 0; i < m->nproviders; i++) {
		if (m->providers[i] == prov) {
			remove_ptr((void **)m->providers, &m->nproviders, i);
			provider_free(prov);
			index_drop(&m->provider_index);	/* positions moved */
			return;
		}
	}
}

bool
mdl_has_probes(const mdl_model_t *m)
{
	for (size_t i = 0; i < m->nproviders; i++)
		if (m->providers[i]->nprobes > 0)
			return true;
	return false;
}

mdl_probe_t *
mdl_provider_find_probe(const mdl_provider_t *p, const char *name)
{
	for (size_t i = 0; i < p->nprobes; i++)
		if (strcmp(p->probes[i]->name, name) == 0)
			return p->probes[i];
	return NULL;
}

size_t
mdl_provider_find_dof_probe(const mdl_provider_t *p, const char *dof_name)
{
	indexed_t a = probes_indexed((mdl_provider_t *)p);	/* only read */

	return index_find(&a, dof_name);
}

/*
 * A probe and its two names in one allocation (the DTrace name is the
 * declared one itself when they are alike, without "__"), the DTrace
 * name made in place: three blocks a probe were 50 bytes of malloc's
 * headers and rounding (issue 40).
 */
static void dof_name_into(char *out, const char *declared);

static mdl_probe_t *
probe_new(const char *name)
{
	size_t nlen = strlen(name) + 1;
	bool alike = strstr(name, "__") == NULL;
	mdl_probe_t *pr = calloc(1, sizeof(*pr) + (alike ? nlen : 2 * nlen));

	if (pr == NULL)
		return NULL;
	pr->name = memcpy((char *)(pr + 1), name, nlen);
	pr->dof_name = pr->name;
	if (!alike) {
		pr->dof_name = pr->name + nlen;
		dof_name_into(pr->dof_name, name);
	}
	return pr;
}

mdl_probe_t *
mdl_provider_add_probe(mdl_provider_t *p, const char *name, src_loc_t loc)
{
	mdl_probe_t *pr = probe_new(name), **slot;
	indexed_t a;

	if (pr == NULL)
		goto fail;
	pr->loc = loc;
	if ((slot = grow(&p->probes, &p->nprobes, sizeof(*slot))) == NULL)
		goto fail;
	*slot = pr;
	a = probes_indexed(p);
	index_add_last(&a);
	return pr;
fail:
	probe_free(pr);
	return NULL;
}

void
mdl_provider_remove_probe(mdl_provider_t *p, mdl_probe_t *probe)
{
	for (size_t i = 0; i < p->nprobes; i++) {
		if (p->probes[i] == probe) {
			remove_ptr((void **)p->probes, &p->nprobes, i);
			probe_free(probe);
			index_drop(&p->index);	/* positions moved; rebuilt on the next add */
			return;
		}
	}
}

/* Append an argument of type, a string it takes (freed on failure; NULL fails). */
static int
add_owned_arg(mdl_arg_t **args, size_t *argc, char *type, const char *name,
    int line, int col)
{
	mdl_arg_t a = { type, NULL, line, col }, *slot;

	if (type == NULL)
		return -1;
	if (name != NULL && (a.name = strdup(name)) == NULL)
		goto fail;
	if ((slot = grow(args, argc, sizeof(*slot))) == NULL)
		goto fail;
	*slot = a;
	return 0;
fail:
	free(a.type);
	free(a.name);
	return -1;
}

/* An argument of pr written at loc: its line and column when in pr's file. */
static int
add_arg(const mdl_probe_t *pr, mdl_arg_t **args, size_t *argc, const char *type,
    const char *name, src_loc_t loc)
{
	bool here = loc.file == pr->loc.file || (loc.file != NULL &&
	    pr->loc.file != NULL && strcmp(loc.file, pr->loc.file) == 0);

	return add_owned_arg(args, argc, mdl_normalise_type(type), name,
	    here ? loc.line : 0, here ? loc.col : 0);
}

src_loc_t
mdl_arg_loc(const mdl_probe_t *pr, const mdl_arg_t *a)
{
	src_loc_t loc = { pr->loc.file, a->line, a->col };

	return loc;
}

/* Stop sharing nargs as xargs (mdl_probe_finish_args) before either changes. */
static void
unshare_args(mdl_probe_t *pr)
{
	if (pr->xargs == pr->nargs) {
		pr->xargs = NULL;
		pr->xargc = 0;
	}
}

/* Copies of n arguments, each string its own (grow's arrays); -1 on ENOMEM. */
static int
copy_args(mdl_arg_t **to, size_t *count, const mdl_arg_t *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (add_owned_arg(to, count, strdup(from[i].type), from[i].name,
		    from[i].line, from[i].col) != 0)
			return -1;
	return 0;
}

/* Back from one block to lists that grow (an argument added after finishing). */
static int
unpack_args(mdl_probe_t *pr)
{
	mdl_probe_t u = { .args_packed = false };

	if (!pr->args_packed)
		return 0;
	if (copy_args(&u.nargs, &u.nargc, pr->nargs, pr->nargc) != 0 ||
	    (pr->xargs != pr->nargs &&
	    copy_args(&u.xargs, &u.xargc, pr->xargs, pr->xargc) != 0)) {
		probe_args_free(&u);
		return -1;
	}
	if (pr->xargs == pr->nargs) {
		u.xargs = u.nargs;
		u.xargc = u.nargc;
	}
	probe_args_free(pr);
	pr->nargs = u.nargs;
	pr->nargc = u.nargc;
	pr->xargs = u.xargs;
	pr->xargc = u.xargc;
	return 0;
}

int
mdl_probe_add_native_arg(mdl_probe_t *pr, const char *type, const char *name, src_loc_t loc)
{
	if (unpack_args(pr) != 0)
		return -1;
	unshare_args(pr);
	return add_arg(pr, &pr->nargs, &pr->nargc, type, name, loc);
}

int
mdl_probe_add_xlated_arg(mdl_probe_t *pr, const char *type, const char *name, src_loc_t loc)
{
	if (unpack_args(pr) != 0)
		return -1;
	unshare_args(pr);
	pr->translated = true;
	return add_arg(pr, &pr->xargs, &pr->xargc, type, name, loc);
}

/* The bytes of n arguments' strings. */
static size_t
args_strings_size(const mdl_arg_t *args, size_t n)
{
	size_t size = 0;

	for (size_t i = 0; i < n; i++)
		size += strlen(args[i].type) + 1 +
		    (args[i].name != NULL ? strlen(args[i].name) + 1 : 0);
	return size;
}

/* n arguments copied to to, their strings to *strs (advanced past them). */
static void
args_pack_into(mdl_arg_t *to, const mdl_arg_t *from, size_t n, char **strs)
{
	for (size_t i = 0; i < n; i++) {
		to[i] = from[i];
		to[i].type = *strs;
		*strs = stpcpy(*strs, from[i].type) + 1;
		if (from[i].name != NULL) {
			to[i].name = *strs;
			*strs = stpcpy(*strs, from[i].name) + 1;
		}
	}
}

/*
 * Both argument lists and their strings moved into one block of their
 * exact size: each list grown by doubling, each type and name its own
 * string, were about 190 bytes of a probe's 600 at 100,000 probes
 * (issue 40).  Out of memory, they stay as they are: only a saving.
 */
static void
pack_args(mdl_probe_t *pr)
{
	bool shared = pr->xargs == pr->nargs;
	size_t nx = shared ? 0 : pr->xargc;
	size_t size = (pr->nargc + nx) * sizeof(mdl_arg_t) +
	    args_strings_size(pr->nargs, pr->nargc) + args_strings_size(pr->xargs, nx);
	size_t nargc = pr->nargc, xargc = pr->xargc;
	mdl_arg_t *block;
	char *strs;

	if (pr->args_packed || pr->nargc + nx == 0 || (block = malloc(size)) == NULL)
		return;
	strs = (char *)(block + pr->nargc + nx);
	args_pack_into(block, pr->nargs, pr->nargc, &strs);
	args_pack_into(block + pr->nargc, pr->xargs, nx, &strs);
	probe_args_free(pr);
	pr->nargs = block;
	pr->nargc = nargc;
	pr->xargs = shared ? block : block + nargc;
	pr->xargc = xargc;
	pr->args_packed = true;
}

int
mdl_probe_set_arg_type(mdl_probe_t *pr, bool xlated, size_t i, const char *type)
{
	char *copy = strdup(type);
	mdl_arg_t *a;

	if (copy == NULL || unpack_args(pr) != 0) {
		free(copy);
		return -1;
	}
	a = &(xlated ? pr->xargs : pr->nargs)[i];
	free(a->type);
	a->type = copy;
	return 0;
}

/* Which native argument feeds translated argument i. */
static uint8_t
xarg_source(const mdl_probe_t *pr, size_t i)
{
	const char *xname = pr->xargs[i].name;

	if (xname != NULL)
		for (size_t j = 0; j < pr->nargc; j++)
			if (pr->nargs[j].name != NULL &&
			    strcmp(pr->nargs[j].name, xname) == 0)
				return (uint8_t)j;
	return i < pr->nargc ? (uint8_t)i : 0;
}

int
mdl_probe_finish_args(mdl_probe_t *pr)
{
	if (!pr->translated && pr->xargs != pr->nargs) {
		/*
		 * The translated list is the native one itself, not a copy:
		 * a probe's arguments are most of the model's allocations,
		 * and libusdt's image model shares them the same way.
		 */
		args_free(pr->xargs, pr->xargc);
		pr->xargs = pr->nargs;
		pr->xargc = pr->nargc;
	}
	uint8_t *map;

	argmap_free(pr->argmap);
	pr->argmap = NULL;
	if (pr->xargc == 0) {
		pack_args(pr);
		return 0;
	}
	if (!pr->translated && pr->xargc <= sizeof(identity_argmap)) {
		pr->argmap = identity_argmap;
		pack_args(pr);
		return 0;
	}
	if ((map = malloc(pr->xargc)) == NULL)
		return -1;
	for (size_t i = 0; i < pr->xargc; i++)
		map[i] = pr->translated ? xarg_source(pr, i) : (uint8_t)i;
	pr->argmap = map;
	pack_args(pr);
	return 0;
}

int
mdl_probe_add_site(mdl_probe_t *pr, const char *func, const char *symbol,
    uint64_t func_addr, uint32_t offset, bool is_enabled)
{
	mdl_site_t s = { NULL, NULL, func_addr, offset, is_enabled }, *slot;

	if ((s.func = strdup(func)) == NULL ||
	    (s.symbol = strdup(symbol != NULL ? symbol : func)) == NULL)
		goto fail;
	if ((slot = grow(&pr->sites, &pr->nsites, sizeof(*slot))) == NULL)
		goto fail;
	*slot = s;
	return 0;
fail:
	free(s.func);
	free(s.symbol);
	return -1;
}

int
mdl_add_typedef(mdl_model_t *m, const char *name, const char *type)
{
	mdl_typedef_t t = { dup_or_null(name), mdl_normalise_type(type) }, *slot;
	indexed_t a;

	if (t.name == NULL || t.type == NULL)
		goto fail;
	if ((slot = grow(&m->typedefs, &m->ntypedefs, sizeof(*slot))) == NULL)
		goto fail;
	*slot = t;
	a = typedefs_indexed(m);
	index_add_last(&a);
	type_cache_clear(m->type_cache);
	return 0;
fail:
	free(t.name);
	free(t.type);
	return -1;
}

const mdl_typedef_t *
mdl_find_typedef(const mdl_model_t *m, const char *name)
{
	/* The latest definition wins, as in C's scope rules at file level. */
	indexed_t a = typedefs_indexed((mdl_model_t *)m);	/* only read */
	size_t i = index_find(&a, name);

	return i != (size_t)-1 ? &m->typedefs[i] : NULL;
}

mdl_tagged_t *
mdl_add_tagged(mdl_model_t *m, const char *tag, unsigned size,
    unsigned align, bool complete)
{
	mdl_tagged_t *t = (mdl_tagged_t *)mdl_find_tagged(m, tag);
	indexed_t a;

	if (t == NULL) {
		char *copy = strdup(tag);

		if (copy == NULL)
			return NULL;
		if ((t = grow(&m->tagged, &m->ntagged, sizeof(*t))) == NULL) {
			free(copy);
			return NULL;
		}
		t->tag = copy;
		t->complete = false;
		t->has_float = false;
		a = tagged_indexed(m);
		index_add_last(&a);
	}
	if (complete || !t->complete) {
		t->size = size;
		t->align = align;
		t->complete = complete;
	}
	type_cache_clear(m->type_cache);
	return t;
}

const mdl_tagged_t *
mdl_find_tagged(const mdl_model_t *m, const char *tag)
{
	indexed_t a = tagged_indexed((mdl_model_t *)m);	/* only read */
	size_t i = index_find(&a, tag);

	return i != (size_t)-1 ? &m->tagged[i] : NULL;
}

int
mdl_add_translator(mdl_model_t *m, const char *out_type,
    const char *in_type, src_loc_t loc)
{
	mdl_translator_t t = { mdl_normalise_type(out_type),
	    mdl_normalise_type(in_type), loc }, *slot;

	if (t.out_type == NULL || t.in_type == NULL)
		goto fail;
	if ((slot = grow(&m->translators, &m->ntranslators, sizeof(*slot))) == NULL)
		goto fail;
	*slot = t;
	return 0;
fail:
	free(t.out_type);
	free(t.in_type);
	return -1;
}

/* ---- type classification ------------------------------------------------ */

struct named_type {
	const char *name;
	unsigned size;
	bool is_signed;
	enum mdl_typeclass tclass;
};

/*
 * Base types other than C's integer keywords (integer_words handles those):
 * bool, the fixed-width and system typedefs that DTrace predefines for LP64
 * and real provider files use, D's string, and the floating types.
 */
static const struct named_type known_types[] = {
	{ "bool", 1, false, MDL_TC_INTEGER },
	{ "_Bool", 1, false, MDL_TC_INTEGER },
	{ "boolean_t", 4, true, MDL_TC_INTEGER },
	{ "int8_t", 1, true, MDL_TC_INTEGER },
	{ "int16_t", 2, true, MDL_TC_INTEGER },
	{ "int32_t", 4, true, MDL_TC_INTEGER },
	{ "int64_t", 8, true, MDL_TC_INTEGER },
	{ "uint8_t", 1, false, MDL_TC_INTEGER },
	{ "uint16_t", 2, false, MDL_TC_INTEGER },
	{ "uint32_t", 4, false, MDL_TC_INTEGER },
	{ "uint64_t", 8, false, MDL_TC_INTEGER },
	{ "uchar_t", 1, false, MDL_TC_INTEGER },
	{ "ushort_t", 2, false, MDL_TC_INTEGER },
	{ "uint_t", 4, false, MDL_TC_INTEGER },
	{ "ulong_t", 8, false, MDL_TC_INTEGER },
	{ "u_longlong_t", 8, false, MDL_TC_INTEGER },
	{ "longlong_t", 8, true, MDL_TC_INTEGER },
	{ "intptr_t", 8, true, MDL_TC_INTEGER },
	{ "uintptr_t", 8, false, MDL_TC_INTEGER },
	{ "intmax_t", 8, true, MDL_TC_INTEGER },
	{ "uintmax_t", 8, false, MDL_TC_INTEGER },
	{ "ptrdiff_t", 8, true, MDL_TC_INTEGER },
	{ "size_t", 8, false, MDL_TC_INTEGER },
	{ "ssize_t", 8, true, MDL_TC_INTEGER },
	{ "off_t", 8, true, MDL_TC_INTEGER },
	{ "off64_t", 8, true, MDL_TC_INTEGER },
	{ "time_t", 8, true, MDL_TC_INTEGER },
	{ "hrtime_t", 8, true, MDL_TC_INTEGER },
	{ "clock_t", 8, true, MDL_TC_INTEGER },
	{ "pid_t", 4, true, MDL_TC_INTEGER },
	{ "id_t", 4, true, MDL_TC_INTEGER },
	{ "zoneid_t", 4, true, MDL_TC_INTEGER },
	{ "processorid_t", 4, true, MDL_TC_INTEGER },
	{ "uid_t", 4, false, MDL_TC_INTEGER },
	{ "gid_t", 4, false, MDL_TC_INTEGER },
	{ "mode_t", 4, false, MDL_TC_INTEGER },
	{ "dev_t", 8, false, MDL_TC_INTEGER },
	{ "ino_t", 8, false, MDL_TC_INTEGER },
	{ "nlink_t", 8, false, MDL_TC_INTEGER },
	{ "socklen_t", 4, false, MDL_TC_INTEGER },
	{ "in_port_t", 2, false, MDL_TC_INTEGER },
	{ "in_addr_t", 4, false, MDL_TC_INTEGER },
	{ "wchar_t", 4, true, MDL_TC_INTEGER },
	{ "caddr_t", 8, false, MDL_TC_INTEGER },
	{ "string", 8, false, MDL_TC_INTEGER },
	{ "float", 4, true, MDL_TC_FLOAT },
	{ "double", 8, true, MDL_TC_FLOAT },
	{ "long double", 16, true, MDL_TC_MEMORY },
	{ "void", 0, false, MDL_TC_VOID },
};

static bool
starts_with_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	return strncmp(s, word, n) == 0 && (s[n] == '\0' || s[n] == ' ');
}

/* Drop leading/trailing const and volatile (the value's class is unchanged). */
static const char *
skip_qualifiers(const char *t, size_t *lenp)
{
	size_t len = strlen(t);

	/*
	 * Leading words go before any trailing one is dropped, so len shrinks
	 * by what was skipped: counting it again per word was O(n^2) in a run
	 * of n qualifiers.
	 */
	for (;;) {
		const char *start = t;

		if (starts_with_word(t, "const")) {
			t += 5;
		} else if (starts_with_word(t, "volatile")) {
			t += 8;
		} else if (len > 6 && strncmp(t + len - 6, " const", 6) == 0) {
			len -= 6;
			continue;
		} else {
			break;
		}
		while (*t == ' ')
			t++;
		len -= (size_t)(t - start);
	}
	*lenp = len;
	return t;
}

static mdl_typeinfo_t
typeinfo(enum mdl_typeclass c, unsigned size, bool is_signed, bool known)
{
	mdl_typeinfo_t ti = { c, size, is_signed, known, false };
	return ti;
}

/*
 * C's integer type specifiers in any order and number ("long unsigned
 * int", "short signed", "unsigned long long int"): true and *ti filled if
 * base consists of nothing else.
 */
static bool
integer_words(const char *base, mdl_typeinfo_t *ti)
{
	int nlong = 0, nshort = 0, nchar = 0, nint = 0, nsigned = 0, nunsigned = 0;
	const char *s = base;

	while (*s != '\0') {
		size_t n = strcspn(s, " ");

		if (n == 4 && strncmp(s, "long", 4) == 0) nlong++;
		else if (n == 5 && strncmp(s, "short", 5) == 0) nshort++;
		else if (n == 4 && strncmp(s, "char", 4) == 0) nchar++;
		else if (n == 3 && strncmp(s, "int", 3) == 0) nint++;
		else if (n == 6 && strncmp(s, "signed", 6) == 0) nsigned++;
		else if (n == 8 && strncmp(s, "unsigned", 8) == 0) nunsigned++;
		else return false;
		s += n;
		while (*s == ' ')
			s++;
	}
	if (nlong > 2 || nshort > 1 || nchar > 1 || nint > 1 || nsigned + nunsigned > 1 ||
	    (nchar && (nlong || nshort || nint)) || (nshort && nlong))
		return false;
	*ti = typeinfo(MDL_TC_INTEGER, nchar ? 1 : nshort ? 2 : nlong ? 8 : 4,
	    nunsigned == 0, true);
	return true;
}

static mdl_typeinfo_t
type_info_depth(const mdl_model_t *m, const char *type, int depth)
{
	mdl_typeinfo_t ti;
	char base[256];
	size_t len;
	const char *t = skip_qualifiers(type, &len);

	if (len == 0 || len >= sizeof(base))
		return typeinfo(MDL_TC_INTEGER, 8, false, false);
	if (t[len - 1] == '*' || t[len - 1] == ']') {
		ti = typeinfo(MDL_TC_INTEGER, 8, false, true);
		ti.is_pointer = true;
		return ti;
	}
	memcpy(base, t, len);
	base[len] = '\0';

	for (size_t i = 0; i < sizeof(known_types) / sizeof(known_types[0]); i++)
		if (strcmp(base, known_types[i].name) == 0) {
			ti = typeinfo(known_types[i].tclass, known_types[i].size,
			    known_types[i].is_signed, true);
			ti.is_pointer = strcmp(base, "string") == 0 ||
			    strcmp(base, "caddr_t") == 0;
			return ti;
		}
	if (integer_words(base, &ti))
		return ti;
	if (strncmp(base, "enum ", 5) == 0)
		return typeinfo(MDL_TC_INTEGER, 4, true, true);
	if (strncmp(base, "struct ", 7) == 0 || strncmp(base, "union ", 6) == 0) {
		const mdl_tagged_t *tg = m != NULL ? mdl_find_tagged(m, base) : NULL;
		bool known = tg != NULL && tg->complete;

		return typeinfo(MDL_TC_MEMORY, known ? tg->size : 0, false, known);
	}
	if (m != NULL && depth < 32) {
		const mdl_typedef_t *td = mdl_find_typedef(m, base);

		if (td != NULL)
			return type_info_depth(m, td->type, depth + 1);
	}
	return typeinfo(MDL_TC_INTEGER, 8, false, false);
}

static bool
cached_is(const void *ctx, size_t id, const void *key)
{
	return strcmp(((const struct mdl_type_cache *)ctx)->v[id].type, key) == 0;
}

/* Remember type's answer; nothing when out of memory (only a memo). */
static void
type_cache_put(struct mdl_type_cache *c, uint64_t h, const char *type, mdl_typeinfo_t ti)
{
	cached_type_t *v;
	char *copy;

	if ((c->n & (c->n - 1)) == 0) {	/* 0, 1, 2, 4, ...: double */
		if ((v = realloc(c->v, (c->n ? 2 * c->n : 1) * sizeof(*v))) == NULL)
			return;
		c->v = v;
	}
	if ((copy = strdup(type)) == NULL)
		return;
	if (!idset_add(&c->ids, h, c->n)) {
		free(copy);
		return;
	}
	c->v[c->n++] = (cached_type_t){ copy, ti };
}

mdl_typeinfo_t
mdl_type_info(const mdl_model_t *m, const char *type)
{
	struct mdl_type_cache *c = m != NULL ? m->type_cache : NULL;
	mdl_typeinfo_t ti;
	uint64_t h;
	size_t id;

	if (c == NULL)
		return type_info_depth(m, type, 0);
	h = hash_str(HASH_FNV_OFFSET, type);
	if ((id = idset_find(&c->ids, h, cached_is, c, type)) != IDSET_NONE)
		return c->v[id].ti;
	ti = type_info_depth(m, type, 0);
	type_cache_put(c, h, type, ti);
	return ti;
}

const char *
mdl_c_type(const char *type)
{
	return strcmp(type, "string") == 0 ? "char *" : type;
}

/* ---- names -------------------------------------------------------------- */

/* The DTrace name of declared into out (strlen(declared) + 1 bytes at most). */
static void
dof_name_into(char *out, const char *declared)
{
	char *o = out;

	for (const char *s = declared; *s != '\0'; s++) {
		if (s[0] == '_' && s[1] == '_') {
			*o++ = '-';
			s++;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

char *
mdl_dof_probe_name(const char *declared)
{
	char *out = malloc(strlen(declared) + 1);

	if (out != NULL)
		dof_name_into(out, declared);
	return out;
}

/*
 * Copy n bytes of s to *o and move *o past them.  The names below are made
 * once or twice per probe; snprintf parsing its format each time was a
 * tenth of -G.
 */
static void
put_bytes(char **o, const char *s, size_t n)
{
	memcpy(*o, s, n);
	*o += n;
}

/* prefix + prov + "___" + dof_name with each '-' spelled "__". */
static char *
func_name(const char *prefix, const char *prov, const char *dof_name)
{
	size_t lp = strlen(prefix), lv = strlen(prov);
	char *out = malloc(lp + lv + 3 + 2 * strlen(dof_name) + 1), *o = out;

	if (out == NULL)
		return NULL;
	put_bytes(&o, prefix, lp);
	put_bytes(&o, prov, lv);
	put_bytes(&o, MDL_PROBE_SEP, 3);
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

char *
mdl_probe_func(const char *prov, const char *dof_name)
{
	return func_name(MDL_PROBE_PREFIX, prov, dof_name);
}

char *
mdl_enabled_func(const char *prov, const char *dof_name)
{
	return func_name(MDL_ENABLED_PREFIX, prov, dof_name);
}

char *
mdl_macro_name(const char *prov, const char *dof_name)
{
	size_t n = strlen(prov) + 1 + strlen(dof_name) + 1;
	char *out = malloc(n);

	if (out == NULL)
		return NULL;
	snprintf(out, n, "%s_%s", prov, dof_name);
	for (char *o = out; *o != '\0'; o++)
		*o = (*o == '-' || *o == '.') ? '_' : (char)toupper((unsigned char)*o);
	return out;
}

char *
mdl_semaphore_name(const char *prov, const char *declared)
{
	size_t lp = strlen(prov), ld = strlen(declared);
	char *out = malloc(lp + ld + sizeof("__semaphore")), *o = out;

	if (out == NULL)
		return NULL;
	put_bytes(&o, prov, lp);
	*o++ = '_';
	put_bytes(&o, declared, ld);
	put_bytes(&o, "_semaphore", sizeof("_semaphore"));	/* its NUL too */
	return out;
}

static bool
is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/*
 * One space between words, "T *" before the first star, stars joined
 * ("char **"), no space inside brackets: "const  char*" -> "const char *".
 */
char *
mdl_normalise_type(const char *spelling)
{
	size_t n = strlen(spelling);
	char *out = malloc(2 * n + 1), *o = out;
	char prev = '\0';	/* last character written, or '\0' at start */

	if (out == NULL)
		return NULL;
	for (const char *s = spelling; *s != '\0'; s++) {
		char c = *s;

		if (isspace((unsigned char)c))
			continue;
		if (prev != '\0') {
			bool gap = isspace((unsigned char)s[-1]);
			bool need = (is_ident_char(c) && (is_ident_char(prev) ? gap : prev == '*')) ||
			    (c == '*' && prev != '*' && prev != '(') ||
			    (c == '(' && prev != '(' && prev != '*');
			if (need)
				*o++ = ' ';
		}
		*o++ = c;
		prev = c;
	}
	*o = '\0';
	return out;
}
