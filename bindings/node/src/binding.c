/*
 * binding.c - the native half of the Node package (bindings/node): a thin
 * Node-API layer over libusdt.  dtrace-provider.js builds
 * node-dtrace-provider's JavaScript API on top of it; everything about
 * argument conversion (int, char *, json) happens there, so this file only
 * passes numbers and strings through.
 *
 *	createProvider(name, module)	-> provider (an external)
 *	addProbe(provider, name, types)	-> probe (an external), or throws
 *	removeProbe(provider, probe)
 *	enable(provider), disable(provider)
 *	isEnabled(probe)		-> boolean
 *	fire(probe, args)		args: numbers (as int64) and strings
 *
 * Node-API (not V8's C++ API), so one build works across Node releases.
 * Externals are freed by finalizers: a provider by usdt_provider_free, a
 * probe by usdt_probe_release of the caller's reference; libusdt's
 * reference counts make either order safe.  Errors are thrown as
 * JavaScript Errors carrying usdt_errstr's message.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <usdt.h>

#define MAXSTR 4096

/* Throw msg; returns NULL for the caller to return. */
static napi_value
throw(napi_env env, const char *msg)
{
	napi_throw_error(env, NULL, msg);
	return NULL;
}

static napi_value
undefined(napi_env env)
{
	napi_value u;

	napi_get_undefined(env, &u);
	return u;
}

static void
provider_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	usdt_provider_free(data);
}

static void
probe_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	usdt_probe_release(data);
}

/* argv[i] as a malloc'd UTF-8 string, or NULL with an exception thrown. */
static char *
get_string(napi_env env, napi_value v)
{
	size_t len = 0;
	char *s;

	if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
		throw(env, "expected a string");
		return NULL;
	}
	if ((s = malloc(len + 1)) == NULL) {
		throw(env, "out of memory");
		return NULL;
	}
	napi_get_value_string_utf8(env, v, s, len + 1, &len);
	return s;
}

static void *
get_external(napi_env env, napi_value v)
{
	void *p = NULL;

	if (napi_get_value_external(env, v, &p) != napi_ok || p == NULL)
		throw(env, "expected a libusdt handle");
	return p;
}

static napi_value
create_provider(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2], out;
	char *name, *module;
	usdt_provider_t *p;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 2 || (name = get_string(env, argv[0])) == NULL)
		return argc < 2 ? throw(env, "createProvider(name, module)") : NULL;
	if ((module = get_string(env, argv[1])) == NULL) {
		free(name);
		return NULL;
	}
	p = usdt_create_provider(name, module);
	free(name);
	free(module);
	if (p == NULL)
		return throw(env, "usdt_create_provider: out of memory");
	if (napi_create_external(env, p, provider_finalize, NULL, &out) != napi_ok) {
		usdt_provider_free(p);
		return throw(env, "napi_create_external failed");
	}
	return out;
}

/* The types array as C strings (malloc'd); -1 with an exception thrown. */
static int
get_types(napi_env env, napi_value arr, char **types, size_t *n)
{
	uint32_t len = 0;

	if (napi_get_array_length(env, arr, &len) != napi_ok)
		return throw(env, "types must be an array"), -1;
	if (len > USDT_ARG_MAX)
		return throw(env, "a probe takes at most 32 arguments"), -1;
	for (*n = 0; *n < len; (*n)++) {
		napi_value v;

		napi_get_element(env, arr, (uint32_t)*n, &v);
		if ((types[*n] = get_string(env, v)) == NULL)
			return -1;
	}
	return 0;
}

static napi_value
add_probe(napi_env env, napi_callback_info info)
{
	size_t argc = 3, n = 0;
	napi_value argv[3], out = NULL;
	char *name = NULL, *types[USDT_ARG_MAX];
	usdt_provider_t *p;
	usdt_probedef_t *pd = NULL;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 3)
		return throw(env, "addProbe(provider, name, types)");
	if ((p = get_external(env, argv[0])) == NULL ||
	    (name = get_string(env, argv[1])) == NULL ||
	    get_types(env, argv[2], types, &n) != 0)
		goto out;
	if ((pd = usdt_create_probe(name, name, n, (const char **)types)) == NULL) {
		throw(env, "usdt_create_probe failed");
		goto out;
	}
	if (usdt_provider_add_probe(p, pd) != 0) {
		throw(env, usdt_errstr(p));
		usdt_probe_release(pd);	/* libusdt dropped its own reference */
		goto out;
	}
	if (napi_create_external(env, pd, probe_finalize, NULL, &out) != napi_ok) {
		usdt_provider_remove_probe(p, pd);
		usdt_probe_release(pd);
		out = throw(env, "napi_create_external failed");
	}
out:
	for (size_t i = 0; i < n; i++)
		free(types[i]);
	free(name);
	return out;
}

static napi_value
remove_probe(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2];
	usdt_provider_t *p;
	usdt_probedef_t *pd;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 2 || (p = get_external(env, argv[0])) == NULL ||
	    (pd = get_external(env, argv[1])) == NULL)
		return NULL;
	if (usdt_provider_remove_probe(p, pd) != 0)
		return throw(env, usdt_errstr(p));
	return undefined(env);
}

/* enable or disable */
static napi_value
switch_provider(napi_env env, napi_callback_info info, int on)
{
	size_t argc = 1;
	napi_value argv[1];
	usdt_provider_t *p;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 1 || (p = get_external(env, argv[0])) == NULL)
		return NULL;
	if ((on ? usdt_provider_enable(p) : usdt_provider_disable(p)) != 0)
		return throw(env, usdt_errstr(p));
	return undefined(env);
}

static napi_value
enable(napi_env env, napi_callback_info info)
{
	return switch_provider(env, info, 1);
}

static napi_value
disable(napi_env env, napi_callback_info info)
{
	return switch_provider(env, info, 0);
}

static napi_value
is_enabled(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1], out;
	usdt_probedef_t *pd;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 1 || (pd = get_external(env, argv[0])) == NULL)
		return NULL;
	napi_get_boolean(env, pd->probe != NULL && usdt_is_enabled(pd->probe), &out);
	return out;
}

static napi_value
fire(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	uint32_t n = 0;
	napi_value argv[2];
	usdt_probedef_t *pd;
	void *args[USDT_ARG_MAX];
	char *strs[USDT_ARG_MAX];
	uint32_t nstr = 0;
	int ok = 1;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc < 2 || (pd = get_external(env, argv[0])) == NULL)
		return NULL;
	if (pd->probe == NULL)
		return undefined(env);
	napi_get_array_length(env, argv[1], &n);
	if (n > pd->argc)
		n = (uint32_t)pd->argc;
	for (uint32_t i = 0; i < n; i++) {
		napi_value v;
		napi_valuetype t;
		int64_t x = 0;

		napi_get_element(env, argv[1], i, &v);
		napi_typeof(env, v, &t);
		if (t == napi_string) {
			if ((strs[nstr] = get_string(env, v)) == NULL) {
				ok = 0;
				break;
			}
			args[i] = strs[nstr++];
		} else {
			napi_get_value_int64(env, v, &x);
			args[i] = (void *)(intptr_t)x;
		}
	}
	if (ok)
		usdt_fire_probe(pd->probe, n, args);
	for (uint32_t i = 0; i < nstr; i++)
		free(strs[i]);
	return undefined(env);
}

static napi_value
init(napi_env env, napi_value exports)
{
	static const struct { const char *name; napi_callback fn; } fns[] = {
		{ "createProvider", create_provider }, { "addProbe", add_probe },
		{ "removeProbe", remove_probe }, { "enable", enable },
		{ "disable", disable }, { "isEnabled", is_enabled }, { "fire", fire },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		napi_value f;

		if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f) != napi_ok ||
		    napi_set_named_property(env, exports, fns[i].name, f) != napi_ok)
			return NULL;
	}
	return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
