/*
 * drti_lite.c - register this object's DOF with DTrace when it loads.
 *
 * `usdtc -G` links this file into its output (ld -r), so it ends up in every
 * executable or shared library that carries usdtc probes, once per -G
 * object.  Its constructor finds the DOF at __SUNW_dof (a symbol of the
 * same -G object, made local there, so each copy of this code sees its own
 * DOF) and hands it to the DTrace helper device; its destructor, which runs
 * at exit and at dlclose, takes it back.  This is the Linux (dtrace-utils)
 * protocol:
 *
 *	fd = open("/dev/dtrace/helper", O_RDWR)
 *	gen = ioctl(fd, DTRACEHIOC_ADDDOF, &dof_helper_t)   at load
 *	ioctl(fd, DTRACEHIOC_REMOVE, gen)                   at unload, by value
 *
 * The helper names the object (dofhp_mod, its file's basename), its load
 * bias (dofhp_addr, which DTrace adds to probe addresses that are not yet
 * absolute) and where the DOF lies (dofhp_dof); the device reads the DOF
 * from our memory itself.  The object is the one whose PT_LOAD segment
 * holds __SUNW_dof, found with dl_iterate_phdr.  A fork child is a new
 * process to DTrace, so it registers again (pthread_atfork).
 *
 * No DTrace is the normal case on Linux: then the constructor costs one
 * failed open() and says nothing.  DTRACE_DOF_INIT_DISABLE skips even that;
 * DTRACE_DOF_INIT_DEBUG reports every step on fd 2 as "dtrace DOF <mod>: ";
 * DTRACE_DOF_INIT_DEVNAME names another device (the tests use it).
 * This code lives inside other people's programs: it never aborts, never
 * writes to stdout, and every symbol but the reference to __SUNW_dof is
 * static.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dof.h"

/* The DOF of the -G object this file is linked into. */
extern const char __SUNW_dof[] __attribute__((visibility("hidden")));

static dof_helper_t drti_helper;	/* what ADDDOF hands over */
static int drti_gen = -1;		/* generation DTrace returned, -1 if none */
static int drti_debug;			/* DTRACE_DOF_INIT_DEBUG is set */
static int drti_atfork_set;		/* the fork handler is registered */

/* A debug message on fd 2; nothing unless DTRACE_DOF_INIT_DEBUG is set. */
static void __attribute__((format(printf, 1, 2)))
drti_say(const char *fmt, ...)
{
	char line[512];
	int n, m;
	va_list ap;

	if (!drti_debug)
		return;
	n = snprintf(line, sizeof(line), "dtrace DOF %s: ",
	    drti_helper.dofhp_mod[0] ? drti_helper.dofhp_mod : "?");
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(2, line, (size_t)n) < 0)
		return;	/* nowhere left to report to */
}

/* What dl_iterate_phdr looks for and what it finds. */
struct drti_search {
	uintptr_t addr;		/* an address inside the object: __SUNW_dof */
	uintptr_t base;		/* the object's load bias */
	const char *path;	/* its name as the dynamic linker knows it */
	int found;
};

static int
drti_match_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct drti_search *s = arg;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && s->addr >= start &&
		    s->addr - start < ph->p_memsz) {
			s->base = info->dlpi_addr;
			s->path = info->dlpi_name;
			s->found = 1;
			return 1;
		}
	}
	return 0;
}

static const char *
drti_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* dofhp_mod: the basename of the object, of the executable for the main program. */
static void
drti_set_module(const char *path)
{
	char exe[4096];
	ssize_t n;

	if (path == NULL || path[0] == '\0') {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		path = n > 0 ? exe : "a.out";
	}
	strncpy(drti_helper.dofhp_mod, drti_basename(path),
	    sizeof(drti_helper.dofhp_mod) - 1);
	drti_helper.dofhp_mod[sizeof(drti_helper.dofhp_mod) - 1] = '\0';
}

/* Fill drti_helper; 0, or -1 if this object cannot be described. */
static int
drti_describe(void)
{
	struct drti_search s = { (uintptr_t)__SUNW_dof, 0, NULL, 0 };

	dl_iterate_phdr(drti_match_object, &s);
	drti_set_module(s.found ? s.path : NULL);
	if (!s.found) {
		drti_say("no loaded object contains the DOF at %p", (const void *)__SUNW_dof);
		return -1;
	}
	drti_helper.dofhp_addr = s.base;
	drti_helper.dofhp_dof = (uintptr_t)__SUNW_dof;
	return 0;
}

static int
drti_open_device(void)
{
	const char *dev = getenv("DTRACE_DOF_INIT_DEVNAME");
	int fd;

	if (dev == NULL || dev[0] == '\0')
		dev = DTRACE_HELPER_DEVICE;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		drti_say("cannot open %s: %s", dev, strerror(errno));
	return fd;
}

/* ADDDOF; sets drti_gen on success. */
static void
drti_register(void)
{
	int fd = drti_open_device(), gen;

	if (fd < 0)
		return;
	gen = ioctl(fd, DTRACEHIOC_ADDDOF_LINUX, &drti_helper);
	if (gen < 0)
		drti_say("DTRACEHIOC_ADDDOF failed: %s", strerror(errno));
	else
		drti_say("DTRACEHIOC_ADDDOF returned generation %d", gen);
	drti_gen = gen < 0 ? -1 : gen;
	close(fd);
}

/* In a fork child: the parent's registration is the parent's. */
static void
drti_reregister_child(void)
{
	if (drti_gen < 0)
		return;
	drti_gen = -1;
	drti_register();
}

static void __attribute__((constructor))
drti_init(void)
{
	const dof_hdr_t *dof = (const dof_hdr_t *)(const void *)__SUNW_dof;

	if (getenv("DTRACE_DOF_INIT_DISABLE") != NULL)
		return;
	drti_debug = getenv("DTRACE_DOF_INIT_DEBUG") != NULL;
	if (drti_describe() != 0)
		return;
	if (dof->dofh_ident[DOF_ID_MAG0] != 0x7f || dof->dofh_ident[DOF_ID_MAG1] != 'D' ||
	    dof->dofh_ident[DOF_ID_MAG2] != 'O' || dof->dofh_ident[DOF_ID_MAG3] != 'F') {
		drti_say("__SUNW_dof does not start with the DOF magic");
		return;
	}
	drti_register();
	if (drti_gen >= 0 && !drti_atfork_set &&
	    pthread_atfork(NULL, NULL, drti_reregister_child) == 0)
		drti_atfork_set = 1;
}

static void __attribute__((destructor))
drti_fini(void)
{
	int fd;

	if (drti_gen < 0)
		return;
	if ((fd = drti_open_device()) < 0)
		return;
	if (ioctl(fd, DTRACEHIOC_REMOVE_LINUX, (long)drti_gen) < 0)
		drti_say("DTRACEHIOC_REMOVE of generation %d failed: %s", drti_gen,
		    strerror(errno));
	else
		drti_say("DTRACEHIOC_REMOVE of generation %d done", drti_gen);
	drti_gen = -1;
	close(fd);
}
