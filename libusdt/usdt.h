/*
 * usdt.h - libusdt: USDT providers and probes created at run time.
 *
 * The classic libusdt API, source-compatible with programs and language
 * bindings written for it: the same functions, types, field names and
 * limits.  A provider is created, probes are added to it, and
 * usdt_provider_enable makes them real: afterwards DTrace (through its
 * helper device) and the Linux tracers (bpftrace, perf, gdb, SystemTap,
 * which read stapsdt notes) see provider:function:probe in this process.
 *
 *	usdt_provider_t *p = usdt_create_provider("myprov", "mymod");
 *	const char *types[] = { "int", "char *" };
 *	usdt_probedef_t *pd = usdt_create_probe("func", "op-start", 2, types);
 *	usdt_provider_add_probe(p, pd);
 *	if (usdt_provider_enable(p) < 0)
 *		fprintf(stderr, "%s\n", usdt_errstr(p));
 *	...
 *	if (usdt_is_enabled(pd->probe)) {
 *		void *args[] = { (void *)(intptr_t)42, "hello" };
 *		usdt_fire_probe(pd->probe, 2, args);
 *	}
 *
 * Argument types: "int" (a 64-bit signed integer, as the original library
 * passed it), "char *" (a NUL-terminated string), the fixed-width spellings
 * "int8_t" ... "uint64_t", other C integer types and any pointer type
 * ("T *").  Each argument travels as one void * of argv: an integer cast
 * to intptr_t, or the pointer.  Up to USDT_ARG_MAX arguments.
 *
 * Ownership follows the original: usdt_create_probe returns a probedef
 * with two references, one dropped by usdt_probe_release and one by
 * usdt_provider_free (or usdt_provider_remove_probe); the last one frees
 * it.  Strings passed in are copied.
 *
 * Errors: functions returning int return 0 or -1; after -1,
 * usdt_errstr(provider) says why.  Nothing in the library aborts the
 * program or prints.  usdt_fire_probe and usdt_is_enabled may be called
 * from any thread, also while other providers are enabled or disabled;
 * enabling, disabling and freeing one provider must not race with use of
 * that same provider.
 */
#ifndef LIBUSDT_USDT_H
#define LIBUSDT_USDT_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define USDT_API __attribute__((visibility("default")))
#else
#define USDT_API
#endif

/* Argument type codes of older libusdt releases, kept for their users. */
typedef uint8_t usdt_argtype_t;
#define USDT_ARGTYPE_NONE	0
#define USDT_ARGTYPE_STRING	1	/* "char *" */
#define USDT_ARGTYPE_INTEGER	2	/* "int": 64 bits */

#define USDT_ARG_MAX 32

typedef enum usdt_error {
	USDT_ERROR_MALLOC = 0,
	USDT_ERROR_VALLOC,
	USDT_ERROR_NOPROBES,
	USDT_ERROR_LOADDOF,
	USDT_ERROR_ALREADYENABLED,
	USDT_ERROR_UNLOADDOF,
	USDT_ERROR_DUP_PROBE,
	USDT_ERROR_REMOVE_PROBE,
	/* Added by this implementation. */
	USDT_ERROR_ARGTYPE,	/* an argument type libusdt cannot pass */
	USDT_ERROR_NAME,	/* a provider, function or probe name DTrace rejects */
	USDT_ERROR_LOADOBJ,	/* the probe object could not be built or loaded */
	USDT_ERROR_INUSE	/* the probedef is in another provider */
} usdt_error_t;

/*
 * A probe of an enabled provider.  probe_addr is its tracepoint;
 * isenabled_addr its is-enabled tracepoint, which takes a uint32_t * in
 * this implementation (call usdt_is_enabled instead).
 */
typedef struct usdt_probe {
	int (*isenabled_addr)(void);
	void *probe_addr;
} usdt_probe_t;

USDT_API int usdt_is_enabled(usdt_probe_t *probe);
USDT_API void usdt_fire_probe(usdt_probe_t *probe, size_t argc, void **argv);

/*
 * A probe definition; probe is NULL until its provider is enabled.
 * types[] holds the type strings given to usdt_create_probe, as libusdt
 * has since December 2012.  Code written for the libusdt before that
 * (ruby-usdt's ext/usdt/real/usdt.c) reads types[i] as a code and
 * compares it with USDT_ARGTYPE_STRING or USDT_ARGTYPE_INTEGER: built with
 * -DLIBUSDT_ARGTYPE_CODES, it sees the strings as type_names[] and the
 * codes as types[] (the same layout either way: one library serves both).
 * argtypes[i] is USDT_ARGTYPE_STRING for a type beginning "char *",
 * USDT_ARGTYPE_INTEGER for one beginning "int", else USDT_ARGTYPE_NONE,
 * as that library set it.
 */
typedef struct usdt_probedef {
	const char *name;
	const char *function;
	size_t argc;
#ifdef LIBUSDT_ARGTYPE_CODES
	char *type_names[USDT_ARG_MAX];
#else
	char *types[USDT_ARG_MAX];
#endif
	struct usdt_probe *probe;
	struct usdt_probedef *next;
	int refcnt;
#ifdef LIBUSDT_ARGTYPE_CODES
	usdt_argtype_t types[USDT_ARG_MAX];
#else
	usdt_argtype_t argtypes[USDT_ARG_MAX];
#endif
} usdt_probedef_t;

USDT_API usdt_probedef_t *usdt_create_probe(const char *func, const char *name,
    size_t argc, const char **types);
USDT_API void usdt_probe_release(usdt_probedef_t *probedef);

typedef struct usdt_provider {
	const char *name;
	const char *module;
	usdt_probedef_t *probedefs;
	char *error;
	int enabled;
	void *file;
} usdt_provider_t;

USDT_API usdt_provider_t *usdt_create_provider(const char *name, const char *module);
USDT_API int usdt_provider_add_probe(usdt_provider_t *provider, usdt_probedef_t *probedef);
USDT_API int usdt_provider_remove_probe(usdt_provider_t *provider, usdt_probedef_t *probedef);
USDT_API int usdt_provider_enable(usdt_provider_t *provider);
USDT_API int usdt_provider_disable(usdt_provider_t *provider);
USDT_API void usdt_provider_free(usdt_provider_t *provider);

USDT_API void usdt_error(usdt_provider_t *provider, usdt_error_t error, ...);
USDT_API char *usdt_errstr(usdt_provider_t *provider);

#ifdef __cplusplus
}
#endif

#endif
