/*
 * drti_lite.c - register this object's DOF with DTrace when it loads.
 *
 * `usdtc -G` merges this file's object into its output, so it ends up in every
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
 * __SUNW_dof starts a list: one DOF per provider, each at an 8-aligned
 * offset after the last, then 8 zero bytes (units.c writes it so, because
 * Oracle's dtprobed 2.0.1 reads only the first provider of a DOF).  Each
 * DOF is registered on its own, from a copy in a mapping of its own
 * (drti_proto.h says why), with its own generation, up to the first
 * place that does not start with the DOF magic: the zeros, which also end
 * the walk before another -G output's DOF, where a linker put two .SUNW_dof
 * sections together.  At most DRTI_MAX_DOFS are registered (one .d file's
 * providers); the rest are said so under DTRACE_DOF_INIT_DEBUG.
 *
 * Under kernel lockdown the copies have no is-enabled offsets (drti_proto.h)
 * and the semaphores are left alone: no DTrace site could say yes.
 * Otherwise, once a DOF is registered, the constructor ORs STAPSDT_SEMAPHORE_DTRACE_BIAS
 * into each semaphore the -G object lists at __usdt_semaphores (local like
 * __SUNW_dof; stapsdt.h says why): the header's _ENABLED() then leaves its
 * one-load fast path and asks DTrace's is-enabled site, which it skips
 * while no helper took the DOF.  An OR, not an add: two -G objects of one
 * program may share a probe's semaphore.  The bias stays to the end: the
 * semaphores go with the object, and a fork child inherits its parent's
 * helper state (it registers again; if that fails its checks only ask a
 * site that says no).
 *
 * No DTrace is the normal case on Linux: then the constructor costs one
 * failed open() and says nothing.  DTRACE_DOF_INIT_DISABLE skips even that;
 * DTRACE_DOF_INIT_DEBUG reports every step on fd 2 as "dtrace DOF <mod>: ";
 * DTRACE_DOF_INIT_DEVNAME names another device (the tests use it);
 * DTRACE_DOF_INIT_LOCKDOWN says whether the kernel is locked down; all
 * four are read once, by the constructor, with secure_getenv's rule
 * (drti_reg.h), so a setuid program ignores them: in one pass over its
 * envp argument when its arguments are glibc's, else (musl passes none;
 * a dlopen after setenv) with libc's secure_getenv (drti_read_env),
 * and neither a fork child nor the destructor looks at the environment
 * again; the device must be a character device (or root's FUSE file, as
 * drti_proto.h says) reached without a symlink.  The
 * protocol itself (device, ioctls, messages) is in drti_proto.h, which
 * libusdt includes too; this file decides what to register and when.
 * What each registered copy adds to the DOF (the header's inline sites,
 * from the site records the header put in this object's memory, each in
 * the record of its function) is drti_sites.h's, asked only once a device
 * is open.  No file is ever opened or mapped for it: not the object's, not
 * /proc/self/exe's, so a library replaced, deleted or unreadable after it
 * was loaded changes nothing.  Without DTrace (no device) the constructor
 * reads the environment and tries the device, and returns: it looks at no
 * loaded object, site or DOF.
 * This code lives inside other people's programs: it never aborts, never
 * writes to stdout, and every symbol but the references to __SUNW_dof and
 * the -G object's own weak hidden symbols is local: static here, hidden
 * in the files it is merged with (drti_proto.c, drti_sites.c and theirs)
 * and made local by the merge (the Makefile's drti_merge).
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>

#include "dof.h"
#include "drti_proto.h"
#include "drti_sites.h"
#include "drti_str.h"
#include "drti_sys.h"
#include "stapsdt.h"

/* The DOF of the -G object this file is linked into. */
extern const char __SUNW_dof[] __attribute__((visibility("hidden")));
/* The inline sites' records of the object (dof.h, drti_sites.h), gathered by the linker. */
extern const dof_site_rec_t drti_sites_start[] __asm__("__start_" DOF_SITES_SECTION)
    __attribute__((visibility("hidden")));
extern const dof_site_rec_t drti_sites_stop[] __asm__("__stop_" DOF_SITES_SECTION)
    __attribute__((visibility("hidden")));
/*
 * Both sections are retained (SHF_GNU_RETAIN, `R`): lld's --gc-sections
 * keeps no section for its `__start_` alone, and the symbols must exist.
 * This -G object's DOF list is listed among those of the output (dof.h's
 * DOF_LISTS_SECTION), and its empty site record (a field of 0: no site)
 * keeps DOF_SITES_SECTION defined where no header put one.
 */
#if __SIZEOF_POINTER__ == 8
#define DRTI_REL64(sym) "\t.8byte " sym " - .\n"
#elif __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A 32-bit host (no DTrace runs there, but usdtc is built there): its
 * address arithmetic, modulo 2^32, reads only the low word. */
#define DRTI_REL64(sym) "\t.4byte " sym " - .\n\t.4byte 0\n"
#else
#define DRTI_REL64(sym) "\t.4byte 0\n\t.4byte " sym " - . + 4\n"
#endif
__asm__(".pushsection " DOF_LISTS_SECTION ",\"aR\",@progbits\n\t.balign 8\n"
    DRTI_REL64("__SUNW_dof") "\t.popsection\n"
    "\t.pushsection " DOF_SITES_SECTION ",\"aR\",@progbits\n\t.balign 4\n"
    "\t.4byte 0, 0, 0\n\t.popsection\n"
    "\t.pushsection " DOF_SITES_GIVEN_SECTION ",\"aR\",@progbits\n\t.balign 4\n"
    "\t.4byte 0, 0, 0\n\t.popsection");
/*
 * The linker's bounds of both sections are hidden, so a shared library
 * exports none of them.  GCC (12) writes no `.hidden` for a declaration
 * renamed by __asm__, visibility attribute or not (clang does): said here.
 */
__asm__("\t.hidden __start_" DOF_LISTS_SECTION "\n\t.hidden __stop_" DOF_LISTS_SECTION "\n"
    "\t.hidden __start_" DOF_SITES_SECTION "\n\t.hidden __stop_" DOF_SITES_SECTION "\n"
    "\t.hidden __start_" DOF_SITES_GIVEN_SECTION "\n\t.hidden __stop_" DOF_SITES_GIVEN_SECTION);
extern const int64_t drti_lists_start[] __asm__("__start_" DOF_LISTS_SECTION)
    __attribute__((visibility("hidden")));
extern const int64_t drti_lists_stop[] __asm__("__stop_" DOF_LISTS_SECTION)
    __attribute__((visibility("hidden")));
/* The records of the objects a -G was given (dof.h), beside the others. */
extern const dof_site_rec_t drti_given_start[] __asm__("__start_" DOF_SITES_GIVEN_SECTION)
    __attribute__((visibility("hidden")));
extern const dof_site_rec_t drti_given_stop[] __asm__("__stop_" DOF_SITES_GIVEN_SECTION)
    __attribute__((visibility("hidden")));
/*
 * Where the -G object puts its mark (dof.h's DOF_FINAL_SYMBOL, local like
 * __SUNW_dof): at __SUNW_dof when it was given the objects, its DOF holds
 * every site of the records it renamed DOF_SITES_GIVEN_SECTION, and no two
 * of its records share a probe and a function name; elsewhere otherwise.
 */
extern const char __usdtc_dof_final[] __attribute__((visibility("hidden")));
/* Its semaphores, each PC-relative, zero-ended (stapsdt.h; weak: an older -G object has none). */
extern const int64_t __usdt_semaphores[] __attribute__((weak, visibility("hidden")));

#define DRTI_MAX_DOFS 256

/* What this copy knows between its constructor and its destructor. */
struct drti_state {
	drti_reg_t reg;			/* the helper, reused for each DOF */
	const char *dofs[DRTI_MAX_DOFS];	/* where each DOF lies */
	int gens[DRTI_MAX_DOFS];	/* its generation, -1 if none */
	size_t ndofs;
	int atfork_set;			/* the fork handler is registered */
	drti_sites_t sites;		/* the object, for its inline sites */
};

static struct drti_state drti_state_bss;

/*
 * The state, its address hidden from the compiler: each function then
 * reaches the fields through one register, not by a relocation per use
 * (24 bytes each in every -G object).
 */
static struct drti_state *
drti_state(void)
{
	struct drti_state *d = &drti_state_bss;

	__asm__("" : "+r"(d));
	return d;
}

/* What dl_iterate_phdr looks for and what it finds. */
struct drti_search {
	uintptr_t addr;		/* an address inside the object: __SUNW_dof */
	uintptr_t base;		/* the object's load bias */
	const char *path;	/* its name as the dynamic linker knows it */
	const ElfW(Phdr) *phdr;	/* its program headers */
	ElfW(Half) phnum;
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
			s->phdr = info->dlpi_phdr;
			s->phnum = info->dlpi_phnum;
			s->found = 1;
			return 1;
		}
	}
	return 0;
}

static const char *
drti_basename(const char *path)
{
	const char *slash = drti_strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * dofhp_mod: the basename of the object, of the executable for the main
 * program (glibc names it "", musl's static dl_iterate_phdr "/proc/self/exe").
 */
static void
drti_set_module(struct drti_state *d, const char *path)
{
	static const char self[] = "/proc/self/exe";
	char exe[4096];
	long n;

	if (path == NULL || path[0] == '\0' || drti_strcmp(path, self) == 0) {
		n = drti_readlinkat(AT_FDCWD, self, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		path = n > 0 ? exe : "a.out";
	}
	drti_set_module_name(&d->reg, drti_basename(path));
}

/*
 * Whether the -G object says its DOF is final (__usdtc_dof_final at
 * __SUNW_dof): the address hidden from the compiler, which may take two
 * symbols for two objects and fold the comparison.
 */
static int
drti_dof_final(void)
{
	const char *mark = __usdtc_dof_final;

	__asm__("" : "+r"(mark));
	return mark == __SUNW_dof;
}

/* Fill d->reg's helper and d->sites; 0, or -1 if this object cannot be described. */
static int
drti_describe(struct drti_state *d)
{
	struct drti_search s = { (uintptr_t)__SUNW_dof, 0, NULL, NULL, 0, 0 };

	dl_iterate_phdr(drti_match_object, &s);
	drti_set_module(d, s.found ? s.path : NULL);
	if (!s.found) {
		drti_say(&d->reg, "no loaded object contains the DOF at %p",
		    (const void *)__SUNW_dof);
		return -1;
	}
	d->reg.helper.dofhp_addr = s.base;
	d->sites.reg = &d->reg;
	d->sites.bias = s.base;
	d->sites.phdr = s.phdr;
	d->sites.phnum = s.phnum;
	d->sites.recs = drti_sites_start;
	d->sites.nrecs = (size_t)(drti_sites_stop - drti_sites_start);
	d->sites.final = drti_dof_final();
	d->sites.grecs = drti_given_start;
	d->sites.ngrecs = d->sites.final ? 0 : (size_t)(drti_given_stop - drti_given_start);
	d->sites.lists = drti_lists_start;
	d->sites.nlists = (size_t)(drti_lists_stop - drti_lists_start);
	return 0;
}

/* The DOFs of the list at __SUNW_dof, into d->dofs. */
static void
drti_find_dofs(struct drti_state *d)
{
	const char *p = __SUNW_dof;

	d->ndofs = 0;
	while (drti_dof_magic_ok(p)) {
		uint64_t size = ((const dof_hdr_t *)(const void *)p)->dofh_filesz;

		if (d->ndofs == DRTI_MAX_DOFS) {
			drti_say(&d->reg, "more than %d DOFs: the rest are not registered",
			    DRTI_MAX_DOFS);
			break;
		}
		d->dofs[d->ndofs] = p;
		d->gens[d->ndofs++] = -1;
		if (size < sizeof(dof_hdr_t))
			break;		/* not ours: do not walk on */
		p += (size + 7) & ~(uint64_t)7;
	}
}

/* ADDDOF for each DOF, with the inline sites of its probes; whether any was registered. */
static int
drti_register_all(struct drti_state *d)
{
	drti_extend_t ext = { drti_sites_room, drti_sites_add, &d->sites };
	int any = 0;

	for (size_t i = 0; i < d->ndofs; i++) {
		if (drti_register_dof(&d->reg, d->dofs[i], &ext) == 0)
			break;		/* no device: no use trying the others */
		d->gens[i] = d->reg.gen;
		any |= d->reg.gen >= 0;
	}
	d->reg.gen = -1;
	return any;
}

/* In a fork child: the parent's registrations are the parent's. */
static void
drti_reregister_child(void)
{
	struct drti_state *d = drti_state();
	int had = 0;

	for (size_t i = 0; i < d->ndofs; i++) {
		had |= d->gens[i] >= 0;
		d->gens[i] = -1;
	}
	if (had)
		drti_register_all(d);
}

/* DTrace took a DOF: _ENABLED() asks its sites from now on. */
static void
drti_bias_semaphores(void)
{
	if (__usdt_semaphores == NULL)
		return;
	for (const int64_t *e = __usdt_semaphores; *e != 0; e++)
		__atomic_fetch_or((unsigned short *)((uintptr_t)e + (uintptr_t)*e),
		    (unsigned short)STAPSDT_SEMAPHORE_DTRACE_BIAS, __ATOMIC_RELAXED);
}

/*
 * Whether the helper device's directory cannot be opened (/dev/dtrace
 * absent: no DTrace, the usual case), found with two system calls of our
 * own once drti_reg_init has read the environment: the device's path (its
 * copy there), its directory cut from it here (drti_dir_absent).  0 when
 * there is a directory: then drti_open_device decides, with every check.
 */
static int
drti_helper_absent(const drti_reg_t *r)
{
	const char *dev = r->env.dev;
	char dir[256];
	size_t cut = 0;

	if (dev == NULL || dev[0] == '\0')
		dev = DTRACE_HELPER_DEVICE;
	for (size_t n = 0; dev[n] != '\0'; n++) {
		if (n == sizeof(dir) - 1)
			return 0;
		dir[n] = dev[n];
		cut = dev[n] == '/' ? n : cut;
	}
	if (cut == 0)
		return 0;
	dir[cut] = '\0';
	return drti_dir_absent(dir);
}

/*
 * Whether (argc, argv, envp) can be what glibc hands every constructor
 * (the process's argc and argv, and environ, which is still the block the
 * kernel laid out after argv's NULL), judged on the values alone, before
 * anything is read through them: a C library that calls constructors
 * without arguments (musl) leaves whatever its registers held, and a
 * dlopen after setenv moved environ to the heap hands that copy.  The
 * kernel caps argv and the environment at 6 MiB (8 bytes a pointer, at
 * least 1 a string), so argc stays far below DRTI_MAX_ARGC.  The block
 * is at the top of the main thread's stack, above every frame of it and
 * above every mapping a thread's stack or the heap gets in Linux's
 * layouts, so argv must lie above this function's frame: a small number
 * or a pointer into libc's data or the heap does not; and on a 64-bit
 * target below the upper half of the address space, the kernel's.  What
 * fails goes to secure_getenv, which is always right, only slower.
 */
#define DRTI_MAX_ARGC (1 << 20)

static int
drti_args_plausible(int argc, char **argv, char **envp)
{
	uintptr_t a = (uintptr_t)argv, e = (uintptr_t)envp;

	return argc >= 0 && argc < DRTI_MAX_ARGC && a % sizeof(char *) == 0 &&
	    a > (uintptr_t)__builtin_frame_address(0) && e > a &&
	    (sizeof(void *) < 8 || (intptr_t)e > 0) &&
	    e - a == ((uintptr_t)argc + 1) * sizeof(char *);
}

/*
 * Whether this process runs with privileges it was not started with
 * (AT_SECURE: secure_getenv's rule, without its import), read from the
 * auxiliary vector the kernel put on the stack after the environment
 * block envp, which follows argv (drti_args_plausible said so).  The
 * block is walked to its NULL and past the NULLs an unsetenv in place
 * leaves behind it; then a pair of words per entry up to AT_NULL.  -1
 * when it cannot be read so (argv not NULL-ended, a type no kernel
 * writes, no AT_SECURE): then libc must say.
 */
static int
drti_secure(int argc, char **argv, char **envp)
{
	char **ep = envp;
	const unsigned long *av;

	if (argv[argc] != NULL)
		return -1;
	while (*ep != NULL)
		ep++;
	while (*ep == NULL)
		ep++;
	for (av = (const unsigned long *)(void *)ep; av[0] != AT_NULL && av[0] < 256; av += 2)
		if (av[0] == AT_SECURE)
			return av[1] != 0;
	return -1;
}

/*
 * libc's secure_getenv, called only where the constructor's arguments
 * cannot be trusted: a direct call, so the dynamic linker binds it at its
 * first call (lazily) and a glibc program without DTrace pays nothing
 * for it at start-up; never its address, which would be a GOT entry bound
 * at load.  glibc has it since 2.17, musl since 1.1.0 (declared here:
 * glibc's header shows it only under _GNU_SOURCE).
 */
extern char *secure_getenv(const char *name);

static char *
drti_libc_getenv(const char *name)
{
	return secure_getenv(name);
}

/*
 * The environment, read once: from the constructor's arguments where they
 * are glibc's (the fast path: no libc call, AT_SECURE from the auxiliary
 * vector), else through libc's secure_getenv, which knows AT_SECURE
 * itself (musl; a dlopen after setenv; an auxiliary vector not found).
 */
static void
drti_read_env(drti_reg_t *r, int argc, char **argv, char **envp)
{
	int secure = drti_args_plausible(argc, argv, envp) ? drti_secure(argc, argv, envp) : -1;

	if (secure < 0)
		drti_reg_init_lookup(r, drti_libc_getenv);
	else
		drti_reg_init(r, secure ? NULL : envp);
}

/*
 * glibc calls every constructor with the process's argc, argv and
 * environment, its static start-up and dlopen too; musl calls them with
 * none, and its registers then hold anything: drti_read_env trusts them
 * only when they look like glibc's, and never reads through them before.
 */
static void __attribute__((constructor))
drti_init(int argc, char **argv, char **envp)
{
	struct drti_state *d = drti_state();

	drti_read_env(&d->reg, argc, argv, envp);	/* read here only */
	if (drti_disabled(&d->reg) || (!d->reg.env.debug && drti_helper_absent(&d->reg)))
		return;		/* no DTrace, the usual case: nothing else is done */
	if (drti_describe(d) != 0)
		return;
	if (d->reg.env.looked_up)
		drti_say(&d->reg, "environment read with secure_getenv "
		    "(the constructor was not handed the kernel's block)");
	if (!drti_dof_magic_ok(__SUNW_dof)) {
		drti_say(&d->reg, "__SUNW_dof does not start with the DOF magic");
		return;
	}
	drti_find_dofs(d);
	if (!drti_register_all(d))
		return;
	if (d->reg.strip == 0)
		drti_bias_semaphores();
	if (!d->atfork_set && pthread_atfork(NULL, NULL, drti_reregister_child) == 0)
		d->atfork_set = 1;
}

/* At exit or dlclose: each registration taken back (none before drti_init registered one). */
static void __attribute__((destructor))
drti_fini(void)
{
	struct drti_state *d = drti_state();

	for (size_t i = 0; i < d->ndofs; i++) {
		d->reg.gen = d->gens[i];
		drti_unregister(&d->reg);
		d->gens[i] = -1;
	}
}
