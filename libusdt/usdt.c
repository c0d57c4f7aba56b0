/*
 * usdt.c - libusdt: the classic libusdt API on top of the compiler.
 *
 * The original libusdt wrote DOF and stub code into memory it made
 * writable and executable, and only DTrace could see its probes.  Here a
 * run-time provider is an ordinary shared object, built by the compiler's
 * own stages (usdt_image.c: model, probe units, stapsdt notes, DOF, the
 * ET_DYN writer) and mapped from its file as a library's is, so every
 * tracer finds it the way it finds probes compiled into a library:
 *
 *   usdt_provider_enable
 *	1. writes the object to a file with a real path in a directory
 *	   it can be mapped executable from, or to a memfd where there is none
 *	   (usdt_file.c says which, and how nothing is left behind), and
 *	   makes it read-only;
 *	2. maps it from its descriptor, never its path again (usdt_map.c:
 *	   no dlopen, whose cost grew with every object loaded), read-only,
 *	   read+execute and read+write by segment, so no page is ever
 *	   writable and executable; compares the DOF mapped with the one
 *	   written; and registers a copy with gdb's JIT interface
 *	   (usdt_jit.c), since gdb no longer finds it in the loader's list;
 *	3. registers its DOF with /dev/dtrace/helper exactly as drti_lite
 *	   does for a -G object (drti_proto.h: same device, ioctls, generation
 *	   and environment variables).  No DTrace is the normal case on
 *	   Linux and costs one failed open();
 *	4. points each probedef's probe at its unit's tracepoint, is-enabled
 *	   tracepoint and semaphore.
 *   usdt_provider_disable unregisters, unmaps and removes the file; a
 *   provider can then be changed and enabled again.
 *
 * How Linux tracers find the object: by its path in /proc/PID/maps, as
 * any library's (usdt_file.c).  In the memfd fallback, maps names it
 * "/memfd:libusdt:PROV (deleted)"; bpftrace 0.17 (through bcc) resolves
 * that through the descriptor kept open in /proc/PID/fd, tracers that
 * walk maps paths do not.
 *
 * Adding a probe is constant time (a hash set of function:name per
 * provider, and the list's tail), so building a provider is linear in
 * its probes.
 *
 * The fire path.  usdt_fire_probe calls the probe's unit through
 * usdt_probe_call (stubs_x86_64.S, stubs_aarch64.S), which puts the first
 * arguments in the argument registers (six on x86_64, eight on AArch64)
 * and the rest on the stack, as the stapsdt note describes them.
 * usdt_is_enabled reads the probe's semaphore (raised by bpftrace and perf)
 * and, only when the DOF was registered with DTrace, also runs the
 * is-enabled tracepoint with a flag DTrace sets.  Under kernel lockdown
 * the DOF has no is-enabled sites (drti_proto.h), so instead it looks at
 * the probe's tracepoint (x86_64: 2 bytes into the unit, past the pop of
 * the return address, arch_x86_64.c): a uprobe there (DTrace's, or any tracer's) has
 * replaced its first instruction with the breakpoint the kernel uses,
 * which the process reads like any other byte of its text.  Neither takes a lock or
 * touches anything shared between providers, so probes fire in any thread
 * while other providers are enabled and disabled; enable and disable
 * themselves are serialized by one mutex (libelf prefers it, and gdb's
 * JIT list has no lock of its own).
 *
 * Ownership follows the original library: a probedef starts with two
 * references, the caller's and the one a provider holds while the
 * probedef is in it.  Removing it from the provider drops the provider's
 * reference, adding it (back) takes one again, and an add that fails
 * drops it, so the caller's usdt_probe_release is always the last word.
 *
 * Errors: each call on a provider first clears its error; a failing one
 * writes the message into a buffer of the provider, so the string
 * usdt_errstr returned stays readable until usdt_provider_free (it then
 * holds the latest message).  Nothing aborts or prints.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "drti_proto.h"
#include "err.h"
#include "hash.h"
#include "idset.h"
#include "usdt.h"
#include "usdt_file.h"
#include "usdt_image.h"
#include "usdt_jit.h"
#include "usdt_map.h"

/* Fire a unit with argc arguments from argv (stubs_<host arch>.S). */
extern void usdt_probe_call(const void *unit, int argc, void *const *argv);

/*
 * Whether the kernel has put a uprobe on the tracepoint at site.  On
 * x86_64 the tracepoint is a 5-byte nop (0f 1f 44 00 00) that a uprobe
 * first turns into int3 (0xcc) and, from Linux 6.18 on, after its first
 * hit into a call of the [uprobes] trampoline (e8 ...): any first byte but
 * the nop's is a uprobe, whichever form the kernel chose.
 */
static int
uprobe_at(const void *site)
{
#if defined(__x86_64__)
	return *(const volatile uint8_t *)site != 0x0f;		/* int3, or call */
#elif defined(__aarch64__)
	return *(const volatile uint32_t *)site == 0xd42000a0u;	/* brk #5 */
#else
	(void)site;
	return 0;
#endif
}

/* An enabled probe: the public part first, so usdt_probe_t * points here. */
typedef struct fire {
	usdt_probe_t pub;
	const void *unit;			/* the probe function (its unit) */
	const void *tracepoint;			/* in it, probe_offset bytes in */
	void (*enabled)(uint32_t *flag);	/* the is-enabled tracepoint */
	const uint16_t *semaphore;		/* NULL when the target has none */
	bool dtrace;				/* registered, is-enabled sites too */
	bool breakpoint;			/* registered under lockdown */
} fire_t;

/* What an enabled provider holds; provider->file points here. */
typedef struct loaded {
	usdt_file_t file;	/* the object's file */
	usdt_map_t map;		/* where it is mapped (usdt_map.c) */
	struct usdt_jit_entry *jit;	/* its entry for gdb (usdt_jit.c) */
	uintptr_t base;		/* its load bias */
	drti_reg_t reg;		/* its DTrace registration */
	fire_t *fires;		/* one per probedef enabled */
	size_t nfires;
} loaded_t;

/*
 * A probedef as usdt_create_probe makes it: the public part first.
 * provider_ref: whether refcnt counts a reference for a provider (made
 * with the probedef, dropped by remove or a failed add, taken by add);
 * owner: the provider whose list it is in; prev: the probedef before it in
 * that list (NULL for the first), so that removing one is constant time
 * however many the provider has; mtypes: the model spellings of
 * its argument types, made when it first joins a provider and kept, so
 * that enabling converts nothing.
 *
 * One allocation holds the probedef, its mtypes array (argc pointers) and
 * the bytes of its function, name and types: a provider of many probes
 * costs one small block each, not seven and a 32-entry array.
 */
typedef struct probedef_priv {
	usdt_probedef_t pub;
	usdt_provider_t *owner;
	usdt_probedef_t *prev;
	bool provider_ref;
	size_t set_id;			/* its id in owner's set, while it has one */
	size_t nmtypes;			/* model spellings made so far */
	char **mtypes;			/* [argc] of types[], from usdt_image_arg_type */
} probedef_priv_t;

/*
 * A provider as usdt_create_provider makes it: the public part first, the
 * list's tail, a set of its probedefs by function and name (idset.h),
 * and the buffer provider->error points to.
 */
#define USDT_ERRLEN 512
typedef struct provider_priv {
	usdt_provider_t pub;
	usdt_probedef_t **tail;
	idset_t set;
	usdt_probedef_t **defs;		/* by the set's id; NULL: a spare id */
	size_t *spare;			/* ids given back, to be taken again */
	size_t ndefs, nspare, capdefs;
	char errbuf[USDT_ERRLEN];
} provider_priv_t;

#define PRIV(p) ((provider_priv_t *)(p))
#define PDPRIV(pd) ((probedef_priv_t *)(pd))

/* Serializes enable and disable (never taken on the fire path). */
static pthread_mutex_t usdt_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * fork() while another thread enables or disables: the child would
 * inherit usdt_lock (and usdt_file.c's files_lock) held by a thread it
 * does not have, and wait forever on its first enable.  So a fork waits
 * for both locks, in the order enable takes them, and the child makes
 * them anew.  (A signal handler must still not call libusdt: the thread
 * it interrupts may hold them; usdt(3) says so.)
 */
static void
fork_prepare(void)
{
	pthread_mutex_lock(&usdt_lock);
	usdt_file_fork_prepare();
}

static void
fork_parent(void)
{
	usdt_file_fork_parent();
	pthread_mutex_unlock(&usdt_lock);
}

static void
fork_child(void)
{
	usdt_file_fork_child();
	pthread_mutex_init(&usdt_lock, NULL);
}

__attribute__((constructor)) static void
fork_handlers(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---- errors --------------------------------------------------------------- */

static const char *const usdt_errors[] = {
	[USDT_ERROR_MALLOC] = "failed to allocate memory",
	[USDT_ERROR_VALLOC] = "failed to allocate page-aligned memory",
	[USDT_ERROR_NOPROBES] = "no probes defined",
	[USDT_ERROR_LOADDOF] = "failed to load DOF: %s",
	[USDT_ERROR_ALREADYENABLED] = "provider is already enabled",
	[USDT_ERROR_UNLOADDOF] = "failed to unload DOF: %s",
	[USDT_ERROR_DUP_PROBE] = "probe named %s:%s:%s:%s already exists",
	[USDT_ERROR_REMOVE_PROBE] = "failed to remove probe %s:%s:%s:%s",
	[USDT_ERROR_ARGTYPE] = ("probe %s:%s:%s:%s: argument %d has type '%s', which "
	    "cannot be passed (use int, char *, an integer type or a pointer)"),
	[USDT_ERROR_NAME] = "invalid %s name '%s': %s",
	[USDT_ERROR_LOADOBJ] = "failed to load the probe object: %s",
	[USDT_ERROR_INUSE] = "probe %s:%s is already in provider %s",
};

static char usdt_noerror_msg[] = "no error";

void
usdt_error(usdt_provider_t *provider, usdt_error_t error, ...)
{
	char *buf;
	va_list ap;

	if (provider == NULL)
		return;
	buf = PRIV(provider)->errbuf;
	va_start(ap, error);
	if ((unsigned)error < sizeof(usdt_errors) / sizeof(usdt_errors[0]) &&
	    usdt_errors[error] != NULL) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		vsnprintf(buf, USDT_ERRLEN, usdt_errors[error], ap);
#pragma GCC diagnostic pop
	} else {
		snprintf(buf, USDT_ERRLEN, "unknown libusdt error %d", (int)error);
	}
	va_end(ap);
	provider->error = buf;
}

/* Each call on a provider starts with no error. */
static void
clear_error(usdt_provider_t *provider)
{
	provider->error = NULL;
}

char *
usdt_errstr(usdt_provider_t *provider)
{
	if (provider == NULL || provider->error == NULL)
		return usdt_noerror_msg;
	return provider->error;
}

/* ---- names and types ---------------------------------------------------- */

/*
 * Why a name cannot be a DTrace provider or probe name, or NULL if it can.
 * Probe names may begin with a digit (DTrace and bpftrace take "0arg", and
 * the original library's own tests use such names); provider names may
 * not, as DTrace appends the process id to them.
 */
static const char *
bad_identifier(const char *s, size_t max, bool probe)
{
	size_t n = strlen(s);

	if (n == 0)
		return "it is empty";
	if (n >= max)
		return "it is too long for DTrace";
	if (!probe && s[0] >= '0' && s[0] <= '9')
		return "it starts with a digit";
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || (probe && *s == '-')))
			return probe ? "only letters, digits, '_' and '-' are allowed" :
			    "only letters, digits and '_' are allowed";
	return NULL;
}

/* Why a name cannot be a function name in a probe description, or NULL. */
static const char *
bad_function(const char *s)
{
	if (s[0] == '\0')
		return "it is empty";
	for (; *s != '\0'; s++)
		if (*s == ':' || *s == ' ' || *s == '\t' || *s == '\n')
			return "':' and white space are not allowed";
	return NULL;
}

/* A probedef's names and types, checked when it joins a provider. */
static int
check_probedef(usdt_provider_t *provider, usdt_probedef_t *pd)
{
	const char *why;

	if ((why = bad_identifier(pd->name, DTRACE_NAMELEN, true)) != NULL) {
		usdt_error(provider, USDT_ERROR_NAME, "probe", pd->name, why);
		return -1;
	}
	if ((why = bad_function(pd->function)) != NULL) {
		usdt_error(provider, USDT_ERROR_NAME, "function", pd->function, why);
		return -1;
	}
	for (size_t i = PDPRIV(pd)->nmtypes; i < pd->argc; i++) {
		char *t = usdt_image_arg_type(pd->types[i]);

		if (t == NULL) {
			if (errno == ENOMEM)
				usdt_error(provider, USDT_ERROR_MALLOC);
			else
				usdt_error(provider, USDT_ERROR_ARGTYPE, provider->name,
				    provider->module, pd->function, pd->name, (int)i,
				    pd->types[i]);
			return -1;
		}
		PDPRIV(pd)->mtypes[i] = t;
		PDPRIV(pd)->nmtypes = i + 1;
	}
	return 0;
}

/* ---- the set of a provider's probedefs ------------------------------------ */

/*
 * The one hash table of the project (idset.h), keyed by function and name.
 * Its ids are small numbers (the set keeps them in 32 bits): each indexes
 * the provider's defs, and an id given back by a removal is taken again by
 * the next add, so a provider that adds and removes for ever uses as many
 * ids as it ever held probes at once.
 */
static uint64_t
probe_hash(const usdt_probedef_t *pd)
{
	return hash_str(hash_str(HASH_FNV_OFFSET, pd->function), pd->name);
}

static bool
same_probe(const void *ctx, size_t id, const void *key)
{
	const usdt_probedef_t *a = ((const provider_priv_t *)ctx)->defs[id], *b = key;

	return strcmp(a->name, b->name) == 0 && strcmp(a->function, b->function) == 0;
}

/* The probedef of the set named like pd, or NULL. */
static usdt_probedef_t *
set_find(const provider_priv_t *pp, const usdt_probedef_t *pd)
{
	size_t id = idset_find(&pp->set, probe_hash(pd), same_probe, pp, pd);

	return id == IDSET_NONE ? NULL : pp->defs[id];
}

/* Room for one more probedef in pp's set and ids, so that set_add cannot fail. */
static bool
set_reserve(provider_priv_t *pp)
{
	usdt_probedef_t **defs;
	size_t *spare, cap;

	if (!idset_reserve(&pp->set, pp->set.count + 1))
		return false;
	if (pp->nspare > 0 || pp->ndefs < pp->capdefs)
		return true;
	cap = pp->capdefs != 0 ? pp->capdefs * 2 : 8;
	if ((defs = realloc(pp->defs, cap * sizeof(*defs))) == NULL)
		return false;
	pp->defs = defs;
	if ((spare = realloc(pp->spare, cap * sizeof(*spare))) == NULL)
		return false;	/* defs is larger, and still counted as capdefs */
	pp->spare = spare;
	pp->capdefs = cap;
	return true;
}

/* Put pd in pp's set under an id of its own (set_reserve made room). */
static void
set_add(provider_priv_t *pp, usdt_probedef_t *pd)
{
	size_t id = pp->nspare > 0 ? pp->spare[--pp->nspare] : pp->ndefs++;

	pp->defs[id] = pd;
	PDPRIV(pd)->set_id = id;
	idset_add(&pp->set, probe_hash(pd), id);
}

/* Take pd out of pp's set and give its id back. */
static void
set_remove(provider_priv_t *pp, usdt_probedef_t *pd)
{
	idset_remove(&pp->set, probe_hash(pd), same_probe, pp, pd);
	pp->defs[PDPRIV(pd)->set_id] = NULL;
	pp->spare[pp->nspare++] = PDPRIV(pd)->set_id;
}

/* ---- providers and probedefs -------------------------------------------- */

usdt_provider_t *
usdt_create_provider(const char *name, const char *module)
{
	provider_priv_t *pp;
	usdt_provider_t *p;

	if (name == NULL || (pp = calloc(1, sizeof(*pp))) == NULL)
		return NULL;
	p = &pp->pub;
	pp->tail = &p->probedefs;
	idset_init(&pp->set);
	p->name = strdup(name);
	p->module = strdup(module != NULL ? module : "");
	if (p->name == NULL || p->module == NULL) {
		free((char *)p->name);
		free((char *)p->module);
		free(pp);
		return NULL;
	}
	return p;
}

static void
free_probedef_now(usdt_probedef_t *pd)
{
	for (size_t i = 0; i < PDPRIV(pd)->nmtypes; i++)
		free(PDPRIV(pd)->mtypes[i]);
	free(PDPRIV(pd));
}

/* Copy s to *at, which moves past it; the copy. */
static char *
put_string(char **at, const char *s, size_t n)
{
	char *copy = *at;

	memcpy(copy, s, n);
	*at += n;
	return copy;
}

/* Drop one reference; the last one frees the probedef. */
static void
drop_probedef(usdt_probedef_t *pd)
{
	if (pd->refcnt <= 1)
		free_probedef_now(pd);
	else
		pd->refcnt--;
}

/* Drop the provider's reference, if the probedef still carries it. */
static void
drop_provider_ref(usdt_probedef_t *pd)
{
	if (!PDPRIV(pd)->provider_ref)
		return;
	PDPRIV(pd)->provider_ref = false;
	drop_probedef(pd);
}

/* The code the libusdt of 2012 gave a type (usdt.h: argtypes). */
static usdt_argtype_t
argtype_code(const char *type)
{
	if (strncmp(type, "char *", 6) == 0)
		return USDT_ARGTYPE_STRING;
	if (strncmp(type, "int", 3) == 0)
		return USDT_ARGTYPE_INTEGER;
	return USDT_ARGTYPE_NONE;
}

usdt_probedef_t *
usdt_create_probe(const char *func, const char *name, size_t argc, const char **types)
{
	size_t flen, nlen, tlen[USDT_ARG_MAX], size;
	probedef_priv_t *pp;
	usdt_probedef_t *pd;
	char *at;

	if (func == NULL || name == NULL || (argc > 0 && types == NULL) ||
	    argc > USDT_ARG_MAX) {
		errno = EINVAL;
		return NULL;
	}
	flen = strlen(func) + 1;
	nlen = strlen(name) + 1;
	size = sizeof(*pp) + argc * sizeof(char *) + flen + nlen;
	for (size_t i = 0; i < argc; i++) {
		if (types[i] == NULL) {
			errno = EINVAL;
			return NULL;
		}
		size += tlen[i] = strlen(types[i]) + 1;
	}
	if ((pp = malloc(size)) == NULL)
		return NULL;
	memset(pp, 0, sizeof(*pp));
	pd = &pp->pub;
	pd->refcnt = 2;
	pp->provider_ref = true;
	pp->mtypes = (char **)(pp + 1);
	at = (char *)(pp->mtypes + argc);
	pd->function = put_string(&at, func, flen);
	pd->name = put_string(&at, name, nlen);
	for (size_t i = 0; i < argc; i++) {
		pd->types[i] = put_string(&at, types[i], tlen[i]);
		pd->argtypes[i] = argtype_code(types[i]);
	}
	pd->argc = argc;
	return pd;
}

void
usdt_probe_release(usdt_probedef_t *probedef)
{
	if (probedef != NULL)
		drop_probedef(probedef);
}

/* Why probedef cannot join provider (error set), or 0. */
static int
check_add(usdt_provider_t *provider, usdt_probedef_t *probedef)
{
	usdt_provider_t *owner = PDPRIV(probedef)->owner;

	if (owner != NULL && owner != provider) {
		usdt_error(provider, USDT_ERROR_INUSE, probedef->function,
		    probedef->name, owner->name);
		return -1;
	}
	if (owner != NULL || set_find(PRIV(provider), probedef) != NULL) {
		usdt_error(provider, USDT_ERROR_DUP_PROBE, provider->name,
		    provider->module, probedef->function, probedef->name);
		return -1;
	}
	if (check_probedef(provider, probedef) != 0)
		return -1;
	if (!set_reserve(PRIV(provider))) {
		usdt_error(provider, USDT_ERROR_MALLOC);
		return -1;
	}
	return 0;
}

int
usdt_provider_add_probe(usdt_provider_t *provider, usdt_probedef_t *probedef)
{
	provider_priv_t *pp = PRIV(provider);

	if (provider == NULL || probedef == NULL)
		return -1;
	clear_error(provider);
	if (check_add(provider, probedef) != 0) {
		/* Not in this provider: the reference made for it goes. */
		if (PDPRIV(probedef)->owner == NULL)
			drop_provider_ref(probedef);
		return -1;
	}
	if (!PDPRIV(probedef)->provider_ref) {
		probedef->refcnt++;
		PDPRIV(probedef)->provider_ref = true;
	}
	PDPRIV(probedef)->owner = provider;
	PDPRIV(probedef)->prev = pp->tail == &provider->probedefs ? NULL :
	    (usdt_probedef_t *)((char *)pp->tail - offsetof(usdt_probedef_t, next));
	/* Cannot fail: check_add made room. */
	set_add(pp, probedef);
	probedef->next = NULL;
	*pp->tail = probedef;
	pp->tail = &probedef->next;
	return 0;
}

/* Take pd out of provider's list and set (its reference is the caller's). */
static void
unlink_probedef(usdt_provider_t *provider, usdt_probedef_t *pd)
{
	provider_priv_t *pp = PRIV(provider);
	usdt_probedef_t *prev = PDPRIV(pd)->prev;
	usdt_probedef_t **link = prev != NULL ? &prev->next : &provider->probedefs;

	*link = pd->next;
	if (pd->next != NULL)
		PDPRIV(pd->next)->prev = prev;
	if (pp->tail == &pd->next)
		pp->tail = link;
	set_remove(pp, pd);
	pd->next = NULL;
	PDPRIV(pd)->prev = NULL;
	/* Its unit stays loaded until disable, but it no longer fires. */
	pd->probe = NULL;
	PDPRIV(pd)->owner = NULL;
}

int
usdt_provider_remove_probe(usdt_provider_t *provider, usdt_probedef_t *probedef)
{
	usdt_probedef_t *pd;

	if (provider == NULL || probedef == NULL)
		return -1;
	clear_error(provider);
	if (provider->probedefs == NULL) {
		usdt_error(provider, USDT_ERROR_NOPROBES);
		return -1;
	}
	if ((pd = set_find(PRIV(provider), probedef)) == NULL) {
		usdt_error(provider, USDT_ERROR_REMOVE_PROBE, provider->name,
		    provider->module, probedef->function, probedef->name);
		return -1;
	}
	unlink_probedef(provider, pd);
	drop_provider_ref(pd);
	return 0;
}

/* ---- loading ------------------------------------------------------------ */

/* The probes to build, in probedef order, with their model types.  NULL on ENOMEM. */
static usdt_image_probe_t *
image_probes(const usdt_provider_t *provider, size_t *np)
{
	usdt_image_probe_t *ip;
	size_t n = 0, i = 0;

	for (const usdt_probedef_t *pd = provider->probedefs; pd != NULL; pd = pd->next)
		n++;
	if ((ip = calloc(n + 1, sizeof(*ip))) == NULL)
		return NULL;
	*np = n;
	for (usdt_probedef_t *pd = provider->probedefs; pd != NULL; pd = pd->next, i++)
		ip[i] = (usdt_image_probe_t){ pd->function, pd->name, pd->argc,
		    PDPRIV(pd)->mtypes };
	return ip;
}

/*
 * The DOF in the mapped object must be the one in our file, read back
 * through the descriptor of the inode we wrote.  The mapping is made from
 * that very descriptor, so this only fails if the image's layout and the
 * file disagree; it is kept as the last word before DTrace is handed the
 * DOF.  One read for the whole DOF (a few pages a hundred probes).
 */
static int
check_loaded_dof(const loaded_t *l, uint64_t dof, err_t *e)
{
	const dof_hdr_t *h = (const dof_hdr_t *)(l->base + dof);
	uint64_t size, done = 0;
	unsigned char *buf;
	int rc = 0;

	if (!drti_dof_magic_ok(h))
		return err_set(e, "the loaded object has no DOF where it was written");
	size = h->dofh_loadsz;
	if ((buf = malloc(size ? (size_t)size : 1)) == NULL)
		return err_errno(e, ENOMEM, "reading back the object");
	while (done < size && rc == 0) {
		ssize_t got = pread(l->file.fd, buf + done, (size_t)(size - done),
		    (off_t)(dof + done));

		if (got <= 0)
			rc = err_errno(e, got < 0 ? errno : EIO, "reading back the object");
		else
			done += (uint64_t)got;
	}
	if (rc == 0 && memcmp(buf, h, (size_t)size) != 0)
		rc = err_set(e, "the mapped object's DOF is not the one written");
	free(buf);
	return rc;
}

/*
 * The loading step: map the sealed file from its descriptor (usdt_map.c:
 * no dlopen, whose cost grows with every object loaded) and show it to
 * gdb (usdt_jit.c).  l->base is the load bias DTrace is given.
 */
static int
map_object(loaded_t *l, uint64_t dof, err_t *e)
{
	if (usdt_map_image(l->file.fd, &l->map, e) != 0)
		return -1;
	l->base = l->map.base;
	if (check_loaded_dof(l, dof, e) != 0)
		return -1;
	return usdt_jit_register(l->file.fd, l->base, &l->jit, e);
}

/* Undo map_object. */
static void
unmap_object(loaded_t *l)
{
	usdt_jit_unregister(l->jit);
	l->jit = NULL;
	usdt_map_unmap(&l->map);
}

/*
 * usdt_image_write with SIGXFSZ blocked: past RLIMIT_FSIZE (a limit the
 * user sets, and a setuid program keeps) the write fails with EFBIG
 * instead of killing the host and leaving its empty image behind.  The
 * signal the write raised is taken back; one pending before is left.
 */
static int
write_image(const char *provider, const usdt_image_probe_t *ip, size_t n, int fd,
    usdt_image_layout_t *layout, err_t *e)
{
	struct timespec now = { 0, 0 };
	sigset_t xfsz, old, before, after;
	int rc;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &xfsz, &old);
	sigpending(&before);
	rc = usdt_image_write(provider, ip, n, fd, layout, e);
	sigpending(&after);
	if (sigismember(&after, SIGXFSZ) && !sigismember(&before, SIGXFSZ))
		sigtimedwait(&xfsz, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Write the object into l's file, seal it, load it, check it. */
static int
write_and_load(usdt_provider_t *provider, loaded_t *l, usdt_image_probe_t *ip,
    size_t n, usdt_image_layout_t *layout, err_t *e)
{
	if (write_image(provider->name, ip, n, l->file.fd, layout, e) != 0 ||
	    usdt_file_seal(&l->file, e) != 0 || map_object(l, layout->dof, e) != 0)
		return -1;
	usdt_file_loaded(&l->file);
	return 0;
}

/*
 * Create the file, write, load.  Where the loader refuses a named file
 * that its directory's mount flags allowed (a security module, say), the
 * object goes into a memfd instead.
 */
static int
load_object(usdt_provider_t *provider, loaded_t *l, usdt_image_probe_t *ip,
    size_t n, usdt_image_layout_t *layout, err_t *e)
{
	if (usdt_file_create(&l->file, provider->name, e) != 0)
		return -1;
	if (write_and_load(provider, l, ip, n, layout, e) == 0)
		return 0;
	if (l->file.name == NULL)
		return -1;
	unmap_object(l);
	usdt_file_remove(&l->file);
	if (usdt_file_create_memfd(&l->file, provider->name, e) != 0)
		return -1;
	return write_and_load(provider, l, ip, n, layout, e);
}

/* Hand the DOF to DTrace; 0 also when there is no DTrace. */
static int
register_dof(usdt_provider_t *provider, loaded_t *l, uint64_t dof)
{
	drti_reg_init(&l->reg, getauxval(AT_SECURE) ? NULL : environ);	/* secure_getenv's rule */
	if (drti_disabled(&l->reg))
		return 0;
	drti_set_module_name(&l->reg, provider->module[0] ? provider->module : provider->name);
	l->reg.helper.dofhp_addr = l->base;
	if (drti_register_dof(&l->reg, (const void *)(l->base + dof), NULL) < 0) {
		usdt_error(provider, USDT_ERROR_LOADDOF, strerror(errno));
		return -1;
	}
	return 0;
}

/* Undo whatever of l exists (the DTrace registration is undone by the caller). */
static void
unload(loaded_t *l)
{
	unmap_object(l);
	usdt_file_remove(&l->file);
	free(l->fires);
	free(l);
}

/* Point every probedef at its unit, tracepoints and semaphore. */
static int
attach_probes(usdt_provider_t *provider, loaded_t *l, const usdt_image_layout_t *layout,
    size_t n)
{
	size_t i = 0;

	if ((l->fires = calloc(n, sizeof(fire_t))) == NULL)
		return -1;
	l->nfires = n;
	for (usdt_probedef_t *pd = provider->probedefs; pd != NULL; pd = pd->next, i++) {
		const usdt_image_addrs_t *a = &layout->probes[i];
		fire_t *f = &l->fires[i];

		f->unit = (const void *)(l->base + a->entry);
		f->enabled = (void (*)(uint32_t *))(l->base + a->enabled);
		f->semaphore = a->semaphore ? (const uint16_t *)(l->base + a->semaphore) : NULL;
		f->dtrace = l->reg.gen >= 0 && l->reg.strip == 0;
		f->breakpoint = l->reg.gen >= 0 && l->reg.strip == 1;
		f->tracepoint = (const void *)(l->base + a->probe);
		f->pub.probe_addr = (void *)f->tracepoint;
		f->pub.isenabled_addr = (int (*)(void))(l->base + a->enabled);
	}
	i = 0;
	for (usdt_probedef_t *pd = provider->probedefs; pd != NULL; pd = pd->next, i++)
		pd->probe = &l->fires[i].pub;
	return 0;
}

static int
enable_locked(usdt_provider_t *provider)
{
	usdt_image_layout_t layout = { NULL, 0 };
	usdt_image_probe_t *ip;
	loaded_t *l;
	size_t n = 0;
	err_t e = { "" };
	int rc = -1;

	ip = image_probes(provider, &n);
	if ((l = calloc(1, sizeof(*l))) != NULL)
		l->file.fd = -1;
	layout.probes = calloc(n + 1, sizeof(*layout.probes));
	if (ip == NULL || l == NULL || layout.probes == NULL) {
		usdt_error(provider, USDT_ERROR_MALLOC);
		goto out;
	}
	l->reg.gen = -1;
	if (load_object(provider, l, ip, n, &layout, &e) != 0) {
		usdt_error(provider, USDT_ERROR_LOADOBJ, e.msg);
		goto out;
	}
	if (register_dof(provider, l, layout.dof) != 0)
		goto out;
	if (attach_probes(provider, l, &layout, n) != 0) {
		drti_unregister(&l->reg);
		usdt_error(provider, USDT_ERROR_MALLOC);
		goto out;
	}
	provider->file = l;
	provider->enabled = 1;
	l = NULL;
	rc = 0;
out:
	if (l != NULL)
		unload(l);
	free(ip);
	free(layout.probes);
	return rc;
}

int
usdt_provider_enable(usdt_provider_t *provider)
{
	const char *why;
	int rc;

	if (provider == NULL)
		return -1;
	clear_error(provider);
	if (provider->enabled) {
		usdt_error(provider, USDT_ERROR_ALREADYENABLED);
		return -1;
	}
	if (provider->probedefs == NULL) {
		usdt_error(provider, USDT_ERROR_NOPROBES);
		return -1;
	}
	if ((why = bad_identifier(provider->name, DTRACE_PROVNAMELEN, false)) != NULL) {
		usdt_error(provider, USDT_ERROR_NAME, "provider", provider->name, why);
		return -1;
	}
	pthread_mutex_lock(&usdt_lock);
	rc = enable_locked(provider);
	pthread_mutex_unlock(&usdt_lock);
	return rc;
}

/* Unregister and unload; with force, unload even if DTrace refuses. */
static int
disable(usdt_provider_t *provider, bool force)
{
	loaded_t *l = provider->file;

	if (!provider->enabled || l == NULL)
		return 0;
	pthread_mutex_lock(&usdt_lock);
	if (drti_unregister(&l->reg) != 0 && !force) {
		usdt_error(provider, USDT_ERROR_UNLOADDOF, strerror(errno));
		pthread_mutex_unlock(&usdt_lock);
		return -1;
	}
	for (usdt_probedef_t *pd = provider->probedefs; pd != NULL; pd = pd->next)
		pd->probe = NULL;
	unload(l);
	pthread_mutex_unlock(&usdt_lock);
	provider->file = NULL;
	provider->enabled = 0;
	return 0;
}

int
usdt_provider_disable(usdt_provider_t *provider)
{
	if (provider == NULL)
		return -1;
	clear_error(provider);
	return disable(provider, false);
}

void
usdt_provider_free(usdt_provider_t *provider)
{
	usdt_probedef_t *pd, *next;

	if (provider == NULL)
		return;
	disable(provider, true);
	for (pd = provider->probedefs; pd != NULL; pd = next) {
		next = pd->next;
		pd->next = NULL;
		pd->probe = NULL;
		PDPRIV(pd)->owner = NULL;
		drop_provider_ref(pd);
	}
	idset_free(&PRIV(provider)->set);
	free(PRIV(provider)->defs);
	free(PRIV(provider)->spare);
	free((char *)provider->name);
	free((char *)provider->module);
	free(PRIV(provider));
}

/* ---- firing ------------------------------------------------------------- */

int
usdt_is_enabled(usdt_probe_t *probe)
{
	const fire_t *f = (const fire_t *)probe;
	uint32_t flag = 0;

	if (f == NULL)
		return 0;
	if (f->semaphore != NULL && __atomic_load_n(f->semaphore, __ATOMIC_RELAXED) != 0)
		return 1;
	if (f->breakpoint)
		return uprobe_at(f->tracepoint);
	if (!f->dtrace)
		return 0;
	f->enabled(&flag);
	return flag != 0;
}

void
usdt_fire_probe(usdt_probe_t *probe, size_t argc, void **argv)
{
	const fire_t *f = (const fire_t *)probe;

	if (f == NULL)
		return;
	if (argv == NULL)
		argc = 0;
	usdt_probe_call(f->unit, argc > USDT_ARG_MAX ? USDT_ARG_MAX : (int)argc, argv);
}
