/*
 * usdtmodule.c - the Python module `usdt`: USDT probes defined while a
 * Python program runs, over libusdt.
 *
 *	import usdt
 *	prov = usdt.Provider("myapp", "mymodule")
 *	req = prov.add_probe("request", ("int", "str"), function="handler")
 *	with prov:				# enable ... disable
 *	    if req.enabled:			# true while a tracer is attached
 *	        req.fire(42, "GET /")
 *
 * A C extension, because a guarded fire is the operation that matters:
 * `req.enabled` is a getter that reads the probe's semaphore through
 * usdt_is_enabled (no argument conversion, no allocation), and fire
 * converts its arguments only when called (METH_FASTCALL).  Arguments are
 * ints (any size that fits 64 bits, signed or not) and strs (passed as
 * their UTF-8 bytes, which live as long as the str) or bytes.
 *
 * Ownership follows libusdt's: a Probe object holds the caller's
 * reference to its probedef and a reference to its Provider, so the
 * provider outlives its probes; the provider's own references go with
 * usdt_provider_free when the Provider object is collected.  Probes take
 * part in garbage collection, so a Provider subclass that keeps its probes
 * as attributes (a cycle) is collected, and its image unloaded, too.
 * Probes are added while the provider is disabled; add_probe on an
 * enabled one raises usdt.Error rather than return a probe that could not
 * fire until the next enable.
 *
 * Errors: every libusdt failure raises usdt.Error (a RuntimeError) with
 * usdt_errstr's message; a wrong number or type of arguments to fire is a
 * TypeError, more than 32 argument types a ValueError, no memory a
 * MemoryError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <usdt.h>

static PyObject *usdt_error_type;

typedef struct {
	PyObject_HEAD
	usdt_provider_t *provider;
} ProviderObject;

typedef struct {
	PyObject_HEAD
	usdt_probedef_t *def;
	ProviderObject *owner;
	PyObject *types;	/* tuple of str, as given */
	char kinds[USDT_ARG_MAX];	/* 's' string, 'i' integer, per argument */
} ProbeObject;

static PyTypeObject ProviderType, ProbeType;

static PyObject *
raise_usdt(usdt_provider_t *p)
{
	PyErr_SetString(usdt_error_type, usdt_errstr(p));
	return NULL;
}

/* ---- Probe ------------------------------------------------------------- */

/* The libusdt spelling of a type name, and whether it is a string. */
static const char *
libusdt_type(const char *t, char *kind)
{
	if (strcmp(t, "str") == 0 || strcmp(t, "string") == 0 || strcmp(t, "char *") == 0 ||
	    strcmp(t, "bytes") == 0) {
		*kind = 's';
		return "char *";
	}
	*kind = 'i';
	return t;
}

/*
 * A Probe is tracked by the garbage collector: a Provider subclass that
 * keeps its own probe as an attribute makes a cycle (provider -> __dict__
 * -> probe -> provider) that only the collector can break.  Clearing keeps
 * the probedef (released at dealloc): its memory is libusdt's.
 */
static int
Probe_traverse(ProbeObject *self, visitproc visit, void *arg)
{
	Py_VISIT(self->owner);
	Py_VISIT(self->types);
	return 0;
}

static int
Probe_clear(ProbeObject *self)
{
	Py_CLEAR(self->owner);
	Py_CLEAR(self->types);
	return 0;
}

static void
Probe_dealloc(ProbeObject *self)
{
	PyObject_GC_UnTrack(self);
	if (self->def != NULL)
		usdt_probe_release(self->def);
	self->def = NULL;
	Probe_clear(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Probe_get_enabled(ProbeObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->def->probe != NULL && usdt_is_enabled(self->def->probe));
}

/* One argument as the void * libusdt passes; -1 with an exception set. */
static int
convert_arg(ProbeObject *self, Py_ssize_t i, PyObject *o, void **out)
{
	if (self->kinds[i] == 's') {
		if (PyUnicode_Check(o)) {
			const char *s = PyUnicode_AsUTF8(o);

			if (s == NULL)
				return -1;
			*out = (void *)s;
			return 0;
		}
		if (PyBytes_Check(o)) {
			*out = PyBytes_AS_STRING(o);
			return 0;
		}
		PyErr_Format(PyExc_TypeError, "probe %s: argument %zd must be str or bytes, not %s",
		    self->def->name, i, Py_TYPE(o)->tp_name);
		return -1;
	}
	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "probe %s: argument %zd must be int, not %s",
		    self->def->name, i, Py_TYPE(o)->tp_name);
		return -1;
	}
	{
		int overflow = 0;
		long long v = PyLong_AsLongLongAndOverflow(o, &overflow);

		if (overflow > 0) {	/* above INT64_MAX: as uint64_t */
			unsigned long long u = PyLong_AsUnsignedLongLong(o);

			if (u == (unsigned long long)-1 && PyErr_Occurred())
				return -1;
			*out = (void *)(uintptr_t)u;
			return 0;
		}
		if (overflow < 0 || (v == -1 && PyErr_Occurred())) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_OverflowError,
				    "probe %s: argument %zd does not fit in 64 bits", self->def->name, i);
			return -1;
		}
		*out = (void *)(intptr_t)v;
	}
	return 0;
}

static PyObject *
Probe_fire(ProbeObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	void *argv[USDT_ARG_MAX];

	if ((size_t)nargs != self->def->argc)
		return PyErr_Format(PyExc_TypeError, "probe %s takes %zu arguments (%zd given)",
		    self->def->name, self->def->argc, nargs);
	if (self->def->probe == NULL)
		Py_RETURN_NONE;	/* provider not enabled: nothing to fire */
	for (Py_ssize_t i = 0; i < nargs; i++)
		if (convert_arg(self, i, args[i], &argv[i]) != 0)
			return NULL;
	usdt_fire_probe(self->def->probe, (size_t)nargs, argv);
	Py_RETURN_NONE;
}

static PyObject *
Probe_get_name(ProbeObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(self->def->name);
}

static PyObject *
Probe_get_function(ProbeObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(self->def->function);
}

static PyObject *
Probe_get_types(ProbeObject *self, void *closure)
{
	(void)closure;
	if (self->types == NULL)	/* cleared by the collector */
		return PyTuple_New(0);
	Py_INCREF(self->types);
	return self->types;
}

static PyObject *
Probe_repr(ProbeObject *self)
{
	return PyUnicode_FromFormat("<usdt.Probe %s:%s:%s>",
	    self->owner != NULL ? self->owner->provider->name : "?",
	    self->def->function, self->def->name);
}

static PyMethodDef Probe_methods[] = {
	{ "fire", (PyCFunction)(void (*)(void))Probe_fire, METH_FASTCALL,
	  "fire(*args): fire the probe with these arguments (a no-op while the "
	  "provider is disabled)" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef Probe_getset[] = {
	{ "enabled", (getter)Probe_get_enabled, NULL,
	  "True while a tracer (bpftrace, perf, DTrace ...) is attached to the probe", NULL },
	{ "name", (getter)Probe_get_name, NULL, "the probe's name", NULL },
	{ "function", (getter)Probe_get_function, NULL, "the probe's function", NULL },
	{ "types", (getter)Probe_get_types, NULL, "the argument types, as given", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject ProbeType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "usdt.Probe",
	.tp_basicsize = sizeof(ProbeObject),
	.tp_dealloc = (destructor)Probe_dealloc,
	.tp_repr = (reprfunc)Probe_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "A probe of a usdt.Provider (made by Provider.add_probe).",
	.tp_traverse = (traverseproc)Probe_traverse,
	.tp_free = PyObject_GC_Del,
	.tp_clear = (inquiry)Probe_clear,
	.tp_methods = Probe_methods,
	.tp_getset = Probe_getset,
};

/* ---- Provider ------------------------------------------------------------ */

static int
Provider_init(ProviderObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "name", "module", NULL };
	const char *name, *module = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|s", kwlist, &name, &module))
		return -1;
	if (self->provider != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "Provider is already initialised");
		return -1;
	}
	if ((self->provider = usdt_create_provider(name, module ? module : name)) == NULL) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

static void
Provider_dealloc(ProviderObject *self)
{
	if (self->provider != NULL)
		usdt_provider_free(self->provider);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
Provider_check(ProviderObject *self)
{
	if (self->provider != NULL)
		return 0;
	PyErr_SetString(PyExc_RuntimeError, "Provider.__init__ was not called");
	return -1;
}

/* The types argument as C strings (in kinds: 's' or 'i'); -1 with an exception. */
static int
parse_types(PyObject *seq, const char **types, char *kinds, Py_ssize_t *n)
{
	*n = PySequence_Fast_GET_SIZE(seq);
	if (*n > USDT_ARG_MAX) {
		PyErr_Format(PyExc_ValueError, "a probe takes at most %d arguments, not %zd",
		    USDT_ARG_MAX, *n);
		return -1;
	}
	for (Py_ssize_t i = 0; i < *n; i++) {
		PyObject *t = PySequence_Fast_GET_ITEM(seq, i);
		const char *s;

		if (t == (PyObject *)&PyLong_Type)
			s = "int";
		else if (t == (PyObject *)&PyUnicode_Type || t == (PyObject *)&PyBytes_Type)
			s = "str";
		else if (!PyUnicode_Check(t) || (s = PyUnicode_AsUTF8(t)) == NULL) {
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_TypeError,
				    "argument types are names ('int', 'str', 'int32_t' ...) or int/str");
			return -1;
		}
		types[i] = libusdt_type(s, &kinds[i]);
	}
	return 0;
}

static PyObject *
Provider_add_probe(ProviderObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "name", "types", "function", NULL };
	const char *name, *function = NULL, *types[USDT_ARG_MAX];
	PyObject *types_obj = NULL, *seq;
	ProbeObject *probe;
	char kinds[USDT_ARG_MAX];
	Py_ssize_t n = 0;

	if (Provider_check(self) != 0 ||
	    !PyArg_ParseTupleAndKeywords(args, kwds, "s|Oz", kwlist, &name, &types_obj, &function))
		return NULL;
	if (self->provider->enabled) {
		PyErr_SetString(usdt_error_type, "the provider is enabled: disable it, "
		    "add the probe, and enable it again");
		return NULL;
	}
	seq = types_obj != NULL && types_obj != Py_None ?
	    PySequence_Fast(types_obj, "types must be a sequence") : PyTuple_New(0);
	if (seq == NULL)
		return NULL;
	if (parse_types(seq, types, kinds, &n) != 0 ||
	    (probe = PyObject_GC_New(ProbeObject, &ProbeType)) == NULL) {
		Py_DECREF(seq);
		return NULL;
	}
	probe->owner = NULL;
	probe->def = NULL;
	probe->types = PySequence_Tuple(seq);
	Py_DECREF(seq);
	memcpy(probe->kinds, kinds, sizeof(kinds));
	errno = 0;
	probe->def = usdt_create_probe(function ? function : name, name, (size_t)n, types);
	if (probe->types == NULL || probe->def == NULL) {
		if (probe->def == NULL && errno != ENOMEM && !PyErr_Occurred())
			PyErr_Format(PyExc_ValueError, "cannot define probe %s", name);
		else if (!PyErr_Occurred())
			PyErr_NoMemory();
		Py_DECREF(probe);
		return NULL;
	}
	Py_INCREF(self);
	probe->owner = self;
	PyObject_GC_Track(probe);
	if (usdt_provider_add_probe(self->provider, probe->def) != 0) {
		/* libusdt dropped its own reference; ours goes with the object. */
		raise_usdt(self->provider);
		Py_DECREF(probe);
		return NULL;
	}
	return (PyObject *)probe;
}

static PyObject *
Provider_remove_probe(ProviderObject *self, PyObject *arg)
{
	if (Provider_check(self) != 0)
		return NULL;
	if (!PyObject_TypeCheck(arg, &ProbeType) || ((ProbeObject *)arg)->owner != self)
		return PyErr_Format(PyExc_ValueError, "not a probe of this provider");
	if (usdt_provider_remove_probe(self->provider, ((ProbeObject *)arg)->def) != 0)
		return raise_usdt(self->provider);
	Py_RETURN_NONE;
}

static PyObject *
Provider_enable(ProviderObject *self, PyObject *unused)
{
	(void)unused;
	if (Provider_check(self) != 0)
		return NULL;
	if (usdt_provider_enable(self->provider) != 0)
		return raise_usdt(self->provider);
	Py_RETURN_NONE;
}

static PyObject *
Provider_disable(ProviderObject *self, PyObject *unused)
{
	(void)unused;
	if (Provider_check(self) != 0)
		return NULL;
	if (usdt_provider_disable(self->provider) != 0)
		return raise_usdt(self->provider);
	Py_RETURN_NONE;
}

static PyObject *
Provider_enter(ProviderObject *self, PyObject *unused)
{
	if (Provider_enable(self, unused) == NULL)
		return NULL;
	Py_INCREF(self);
	return (PyObject *)self;
}

static PyObject *
Provider_exit(ProviderObject *self, PyObject *args)
{
	(void)args;
	if (Provider_disable(self, NULL) == NULL)
		return NULL;
	Py_RETURN_FALSE;
}

static PyObject *
Provider_get_enabled(ProviderObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->provider != NULL && self->provider->enabled);
}

static PyObject *
Provider_get_name(ProviderObject *self, void *closure)
{
	(void)closure;
	if (Provider_check(self) != 0)
		return NULL;
	return PyUnicode_FromString(self->provider->name);
}

static PyObject *
Provider_get_module(ProviderObject *self, void *closure)
{
	(void)closure;
	if (Provider_check(self) != 0)
		return NULL;
	return PyUnicode_FromString(self->provider->module);
}

static PyMethodDef Provider_methods[] = {
	{ "add_probe", (PyCFunction)(void (*)(void))Provider_add_probe,
	  METH_VARARGS | METH_KEYWORDS,
	  "add_probe(name, types=(), function=None) -> Probe; types are 'int', 'str' "
	  "(or int, str), or C integer type names; function None means the name.  "
	  "Only while the provider is disabled: on an enabled one it raises usdt.Error "
	  "(disable, add, enable again)" },
	{ "remove_probe", (PyCFunction)Provider_remove_probe, METH_O,
	  "remove_probe(probe): takes effect at the next enable" },
	{ "enable", (PyCFunction)Provider_enable, METH_NOARGS,
	  "enable(): make the probes visible to tracers" },
	{ "disable", (PyCFunction)Provider_disable, METH_NOARGS, "disable(): remove them" },
	{ "__enter__", (PyCFunction)Provider_enter, METH_NOARGS, "enable()" },
	{ "__exit__", (PyCFunction)Provider_exit, METH_VARARGS, "disable()" },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef Provider_getset[] = {
	{ "enabled", (getter)Provider_get_enabled, NULL, "whether the provider is enabled", NULL },
	{ "name", (getter)Provider_get_name, NULL, "the provider's name", NULL },
	{ "module", (getter)Provider_get_module, NULL, "the provider's module", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyTypeObject ProviderType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "usdt.Provider",
	.tp_basicsize = sizeof(ProviderObject),
	.tp_dealloc = (destructor)Provider_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Provider(name, module=name): a USDT provider defined at run time.",
	.tp_methods = Provider_methods,
	.tp_getset = Provider_getset,
	.tp_init = (initproc)Provider_init,
	.tp_new = PyType_GenericNew,
};

static struct PyModuleDef usdt_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "usdt",
	.m_doc = "USDT probes defined at run time (libusdt): bpftrace, perf, gdb, "
	    "SystemTap and DTrace see them.",
	.m_size = -1,
};

PyMODINIT_FUNC
PyInit_usdt(void)
{
	PyObject *m;

	if (PyType_Ready(&ProviderType) < 0 || PyType_Ready(&ProbeType) < 0)
		return NULL;
	if ((m = PyModule_Create(&usdt_module)) == NULL)
		return NULL;
	usdt_error_type = PyErr_NewExceptionWithDoc("usdt.Error",
	    "A libusdt call failed; the message is libusdt's.", PyExc_RuntimeError, NULL);
	Py_INCREF(&ProviderType);
	Py_INCREF(&ProbeType);
	if (usdt_error_type == NULL ||
	    PyModule_AddObject(m, "Error", usdt_error_type) < 0 ||
	    PyModule_AddObject(m, "Provider", (PyObject *)&ProviderType) < 0 ||
	    PyModule_AddObject(m, "Probe", (PyObject *)&ProbeType) < 0 ||
	    PyModule_AddIntConstant(m, "ARG_MAX", USDT_ARG_MAX) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(usdt_error_type);
	return m;
}
