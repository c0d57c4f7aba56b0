/*
 * drti_kernel.c - drti_lite for the kernel DTrace of FreeBSD and illumos.
 *
 * What runtime/drti_lite.c does on Linux, for the two systems whose DTrace
 * lives in the kernel: `usdtc -G --target=x86_64-freebsd` (or -illumos)
 * links this object into its output, and its constructor hands the -G
 * object's DOF (__SUNW_dof, made local in that object) to the helper
 * device; its destructor takes it back.  Their own drti.c does the same
 * with these differences, which this file keeps:
 *
 *			FreeBSD				illumos
 *	dof_helper_t	mod[64], addr, dof,		mod[64], addr, dof (80 bytes)
 *			pid_t pid, int gen (88 bytes)
 *	ADDDOF		_IOWR('z', 3, dof_helper_t)	('d'<<24|'t'<<16|'h'<<8) | 3
 *			= 0xc0587a03; the generation	= 0x64746803; the generation
 *			comes back in dofhp_gen		is ioctl's return value
 *	REMOVE		_IOW('z', 2, int) = 0x80047a02,	0x64746802, the generation
 *			a pointer to the generation	passed by value
 *	device		/dev/dtrace/helper		the same, then the old
 *							/devices/pseudo/dtrace@0:helper
 *
 * dofhp_mod is the basename of the object's path; the object is the one
 * whose PT_LOAD segment holds __SUNW_dof, found with dl_iterate_phdr (both
 * systems have it, with the glibc layout of struct dl_phdr_info's first
 * four fields).  dofhp_addr is the base the kernel adds to each DOF SETX
 * address.  FreeBSD: the object's load bias (0 for an executable), as
 * drti.c passes; -G writes DOFREL addresses, which the kernel makes
 * absolute from dofhp_dof, so the bias goes unused (both kernels key a
 * registration on dofhp_dof).  illumos, whose kernel knows only SETX:
 * the address of __SUNW_dof.  -G writes each probe address relative to
 * the DOF's first byte (an R_X86_64_PC64 the linker resolves and no loader
 * touches), so the sum is right however the object was linked and loaded.
 * An absolute address plus the bias is right only where the loader leaves
 * the DOF alone (illumos' ld) and twice the bias off where it relocates it
 * (GNU ld, gold, lld, mold in a PIE or a library); telling the two apart
 * here would mean reading the DOF.  A fork child inherits the parent's
 * helpers from the kernel, so nothing re-registers.
 * DTRACE_DOF_INIT_DISABLE, DTRACE_DOF_INIT_DEBUG and DTRACE_DOF_INIT_DEVNAME
 * mean what they mean to drti.c, but none is read when issetugid() says
 * the program runs with privileges it was not started with (a setuid
 * program must not open a path its user chose, as root); the device is
 * opened with O_NOFOLLOW, O_NONBLOCK, O_NOCTTY and O_CLOEXEC, each system's
 * values below, so a symlink at its path is not followed and nothing there
 * can stop the program; and the debug line cannot raise SIGPIPE in the
 * host (drti_write_stderr).
 *
 * usdtc is built on Linux, where neither system's headers exist, so this
 * file includes none: it declares the few libc functions it calls (their
 * C ABI is the System V AMD64 one on all three systems) and is compiled
 * -ffreestanding, once per system (-DDRTI_FREEBSD or -DDRTI_ILLUMOS), into
 * an object that references only those functions and __SUNW_dof.  No
 * errno (its accessor differs per system), no stdio: messages are built
 * here and written to fd 2.  The constants above are checked at compile
 * time from their definitions.  Like drti_lite, this code never aborts and
 * never writes to stdout.
 */
#include <stddef.h>
#include <stdint.h>

#if defined(DRTI_FREEBSD) == defined(DRTI_ILLUMOS)
#error "build with exactly one of -DDRTI_FREEBSD and -DDRTI_ILLUMOS"
#endif

#define DRTI_HIDDEN __attribute__((visibility("hidden")))

/* ---- what the system provides -------------------------------------------- */

typedef uint64_t drti_elf_addr;		/* Elf64_Addr */
typedef uint16_t drti_elf_half;		/* Elf64_Half */

typedef struct drti_phdr {		/* Elf64_Phdr */
	uint32_t p_type;
	uint32_t p_flags;
	uint64_t p_offset;
	uint64_t p_vaddr;
	uint64_t p_paddr;
	uint64_t p_filesz;
	uint64_t p_memsz;
	uint64_t p_align;
} drti_phdr_t;

#define DRTI_PT_LOAD	1

/* The leading fields every dl_iterate_phdr passes (the size tells the rest). */
struct dl_phdr_info {
	drti_elf_addr dlpi_addr;
	const char *dlpi_name;
	const drti_phdr_t *dlpi_phdr;
	drti_elf_half dlpi_phnum;
};

extern int dl_iterate_phdr(int (*)(struct dl_phdr_info *, size_t, void *), void *);
extern char *getenv(const char *);
extern int issetugid(void);
extern int open(const char *, int, ...);
extern int close(int);
extern int ioctl(int, unsigned long, ...);
extern long write(int, const void *, size_t);

/*
 * Signals, to keep SIGPIPE from the debug line.  sigset_t is four 32-bit
 * words on both systems, SIGPIPE 13 (bit 12 of the first word), SIG_BLOCK
 * 1 and SIG_SETMASK 3; the sets below are larger than that so that a libc
 * reading a bigger sigset_t (glibc, under the tests' shim) stays inside.
 */
typedef struct drti_sigset {
	uint32_t bits[32];
} drti_sigset_t;

struct drti_timespec {
	int64_t tv_sec;
	long tv_nsec;
};

extern int sigprocmask(int, const drti_sigset_t *, drti_sigset_t *);
extern int sigpending(drti_sigset_t *);
extern int sigtimedwait(const drti_sigset_t *, void *, const struct drti_timespec *);

#define DRTI_SIG_BLOCK		1
#define DRTI_SIG_SETMASK	3
#define DRTI_SIGPIPE_BIT	(1u << (13 - 1))

#define DRTI_O_RDWR	2	/* the same on both */

#define DRTI_MODNAMELEN	64	/* DTRACE_MODNAMELEN */

#ifdef DRTI_FREEBSD
extern int getpid(void);
extern const char *getprogname(void);

typedef struct drti_helper {
	char dofhp_mod[DRTI_MODNAMELEN];
	uint64_t dofhp_addr;
	uint64_t dofhp_dof;
	int32_t dofhp_pid;		/* pid_t */
	int32_t dofhp_gen;		/* filled by ADDDOF */
} drti_helper_t;

/* <sys/ioccom.h>: in/out direction bits, parameter length, group, number. */
#define DRTI_IOC(dir, group, num, len) \
	((unsigned long)((dir) | (((len) & 0x1fffu) << 16) | ((group) << 8) | (num)))
#define DRTI_IOC_IN	0x80000000u
#define DRTI_IOC_INOUT	0xc0000000u
#define DRTI_ADDDOF	DRTI_IOC(DRTI_IOC_INOUT, 'z', 3u, (unsigned)sizeof(drti_helper_t))
#define DRTI_REMOVE	DRTI_IOC(DRTI_IOC_IN, 'z', 2u, (unsigned)sizeof(int))

/* <fcntl.h> */
#define DRTI_O_SAFE	(0x0004 | 0x8000 | 0x0100 | 0x00100000)	/* NONBLOCK NOCTTY NOFOLLOW CLOEXEC */

_Static_assert(sizeof(drti_helper_t) == 88, "FreeBSD dof_helper_t is 88 bytes");
_Static_assert(DRTI_ADDDOF == 0xc0587a03ul, "FreeBSD DTRACEHIOC_ADDDOF");
_Static_assert(DRTI_REMOVE == 0x80047a02ul, "FreeBSD DTRACEHIOC_REMOVE");
#endif

#ifdef DRTI_ILLUMOS
extern const char *getexecname(void);

typedef struct drti_helper {
	char dofhp_mod[DRTI_MODNAMELEN];
	uint64_t dofhp_addr;
	uint64_t dofhp_dof;
} drti_helper_t;

#define DRTI_HIOC	(((unsigned long)'d' << 24) | ('t' << 16) | ('h' << 8))
#define DRTI_ADDDOF	(DRTI_HIOC | 3)
#define DRTI_REMOVE	(DRTI_HIOC | 2)
#define DRTI_OLD_DEVICE	"/devices/pseudo/dtrace@0:helper"
/* <sys/fcntl.h> */
#define DRTI_O_SAFE	(0x80 | 0x800 | 0x20000 | 0x800000)	/* NONBLOCK NOCTTY NOFOLLOW CLOEXEC */

_Static_assert(sizeof(drti_helper_t) == 80, "illumos dof_helper_t is 80 bytes");
_Static_assert(DRTI_ADDDOF == 0x64746803ul, "illumos DTRACEHIOC_ADDDOF");
_Static_assert(DRTI_REMOVE == 0x64746802ul, "illumos DTRACEHIOC_REMOVE");
#endif

#define DRTI_DEVICE	"/dev/dtrace/helper"

/* The DOF of the -G object this file is linked into. */
extern const unsigned char __SUNW_dof[] DRTI_HIDDEN;

/* ---- this object's registration --------------------------------------------- */

static drti_helper_t drti_helper;
static int drti_gen = -1;		/* the generation, -1 when not registered */
static int drti_debug;
static const char *drti_device = DRTI_DEVICE;
/*
 * Whether DTRACE_DOF_INIT_DEVNAME named the device: the environment is
 * read by the constructor alone, so the exit handler never walks one the
 * program may have broken since (Oracle's tst.corruptenv.sh).
 */
static int drti_named;

/* ---- small string helpers (no libc string functions are declared) ------- */

static size_t
drti_strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

/* Append s to buf (of cap bytes, NUL-terminated), cutting what does not fit. */
static void
drti_append(char *buf, size_t cap, const char *s)
{
	size_t n = drti_strlen(buf);

	while (*s != '\0' && n + 1 < cap)
		buf[n++] = *s++;
	buf[n] = '\0';
}

/* Append v in decimal (negative values with a sign). */
static void
drti_append_int(char *buf, size_t cap, long v)
{
	char digits[24];
	size_t i = sizeof(digits) - 1;
	unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;

	digits[i] = '\0';
	do {
		digits[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0 && i > 1);
	if (v < 0)
		digits[--i] = '-';
	drti_append(buf, cap, digits + i);
}

/*
 * write(2) to fd 2 without SIGPIPE killing the host when stderr is a pipe
 * whose reader has gone: SIGPIPE is blocked around the write, and one the
 * write left pending (that was not pending before) is taken back with
 * sigtimedwait; then the mask is restored.  No errno here (see above), so
 * "the write raised it" is read from the pending set.
 */
static void
drti_write_stderr(const char *buf, size_t n)
{
	drti_sigset_t pipe_set = { { 0 } }, old = { { 0 } }, before = { { 0 } },
	    after = { { 0 } };
	struct drti_timespec zero = { 0, 0 };

	pipe_set.bits[0] = DRTI_SIGPIPE_BIT;
	if (sigprocmask(DRTI_SIG_BLOCK, &pipe_set, &old) != 0)
		return;	/* cannot make it safe: say nothing */
	(void)sigpending(&before);
	(void)write(2, buf, n);
	if (sigpending(&after) == 0 && (after.bits[0] & DRTI_SIGPIPE_BIT) &&
	    !(before.bits[0] & DRTI_SIGPIPE_BIT))
		(void)sigtimedwait(&pipe_set, NULL, &zero);
	sigprocmask(DRTI_SIG_SETMASK, &old, NULL);
}

/* A debug line on fd 2, "dtrace DOF <mod>: what[ value]", under DTRACE_DOF_INIT_DEBUG. */
static void
drti_say(const char *what, const char *arg, long value, int has_value)
{
	char line[256];

	if (!drti_debug)
		return;
	line[0] = '\0';
	drti_append(line, sizeof(line), "dtrace DOF ");
	drti_append(line, sizeof(line), drti_helper.dofhp_mod[0] ? drti_helper.dofhp_mod : "?");
	drti_append(line, sizeof(line), ": ");
	drti_append(line, sizeof(line), what);
	if (arg != NULL) {
		drti_append(line, sizeof(line), " ");
		drti_append(line, sizeof(line), arg);
	}
	if (has_value) {
		drti_append(line, sizeof(line), " ");
		drti_append_int(line, sizeof(line), value);
	}
	drti_append(line, sizeof(line), "\n");
	drti_write_stderr(line, drti_strlen(line));
}

static const char *
drti_basename(const char *path)
{
	const char *base = path;

	for (; *path != '\0'; path++)
		if (*path == '/')
			base = path + 1;
	return base;
}

/* ---- finding this object ----------------------------------------------- */

struct drti_search {
	uintptr_t addr;		/* __SUNW_dof */
	uintptr_t base;		/* the object's load bias */
	const char *path;
	int found;
};

static int
drti_match_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct drti_search *s = arg;

	if (size < sizeof(*info))
		return 0;
	for (drti_elf_half i = 0; i < info->dlpi_phnum; i++) {
		const drti_phdr_t *ph = &info->dlpi_phdr[i];
		uintptr_t start = (uintptr_t)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type == DRTI_PT_LOAD && s->addr >= start &&
		    s->addr - start < ph->p_memsz) {
			s->base = (uintptr_t)info->dlpi_addr;
			s->path = info->dlpi_name;
			s->found = 1;
			return 1;
		}
	}
	return 0;
}

/* The running program's name, for the main object, whose path may be "". */
static const char *
drti_program_name(void)
{
#ifdef DRTI_FREEBSD
	const char *name = getprogname();
#else
	const char *name = getexecname();
#endif
	return name != NULL ? name : "a.out";
}

/* Fill drti_helper; 0, or -1 if this object cannot be found. */
static int
drti_describe(void)
{
	struct drti_search s = { (uintptr_t)__SUNW_dof, 0, NULL, 0 };
	const char *path;

	dl_iterate_phdr(drti_match_object, &s);
	path = s.found && s.path != NULL && s.path[0] != '\0' ? s.path : drti_program_name();
	drti_helper.dofhp_mod[0] = '\0';
	drti_append(drti_helper.dofhp_mod, sizeof(drti_helper.dofhp_mod), drti_basename(path));
	if (!s.found) {
		drti_say("no loaded object contains the DOF", NULL, 0, 0);
		return -1;
	}
#ifdef DRTI_FREEBSD
	drti_helper.dofhp_addr = s.base;
#else
	drti_helper.dofhp_addr = (uintptr_t)__SUNW_dof;
#endif
	drti_helper.dofhp_dof = (uintptr_t)__SUNW_dof;
#ifdef DRTI_FREEBSD
	drti_helper.dofhp_pid = getpid();
#endif
	return 0;
}

/* ---- the helper device ------------------------------------------------- */

/* getenv, but nothing in a program running setuid or setgid. */
static const char *
drti_getenv(const char *name)
{
	return issetugid() ? NULL : getenv(name);
}

static int
drti_open(void)
{
	int fd = open(drti_device, DRTI_O_RDWR | DRTI_O_SAFE);

	if (fd < 0)
		drti_say("cannot open", drti_device, 0, 0);
#ifdef DRTI_OLD_DEVICE
	/* Solaris 10 GA has only the /devices node; not when a name was given. */
	if (fd < 0 && !drti_named) {
		drti_device = DRTI_OLD_DEVICE;
		if ((fd = open(drti_device, DRTI_O_RDWR | DRTI_O_SAFE)) < 0)
			drti_say("cannot open", drti_device, 0, 0);
	}
#endif
	return fd;
}

static int
drti_magic_ok(const unsigned char *dof)
{
	return dof[0] == 0x7f && dof[1] == 'D' && dof[2] == 'O' && dof[3] == 'F';
}

static void __attribute__((constructor))
drti_init(void)
{
	const char *dev;
	int fd, rc;

	if (drti_getenv("DTRACE_DOF_INIT_DISABLE") != NULL)
		return;
	drti_debug = drti_getenv("DTRACE_DOF_INIT_DEBUG") != NULL;
	if ((dev = drti_getenv("DTRACE_DOF_INIT_DEVNAME")) != NULL && dev[0] != '\0') {
		drti_device = dev;
		drti_named = 1;
	}
	if (drti_describe() != 0)
		return;
	if (!drti_magic_ok(__SUNW_dof)) {
		drti_say("__SUNW_dof does not start with the DOF magic", NULL, 0, 0);
		return;
	}
	if ((fd = drti_open()) < 0)
		return;
	rc = ioctl(fd, DRTI_ADDDOF, &drti_helper);
	if (rc == -1) {
		drti_say("DTRACEHIOC_ADDDOF failed", NULL, 0, 0);
	} else {
#ifdef DRTI_FREEBSD
		drti_gen = drti_helper.dofhp_gen;
#else
		drti_gen = rc;
#endif
		drti_say("DTRACEHIOC_ADDDOF returned generation", NULL, drti_gen, 1);
	}
	close(fd);
}

static void __attribute__((destructor))
drti_fini(void)
{
	int fd, rc;

	if (drti_gen < 0 || (fd = drti_open()) < 0)
		return;
#ifdef DRTI_FREEBSD
	rc = ioctl(fd, DRTI_REMOVE, &drti_gen);
#else
	rc = ioctl(fd, DRTI_REMOVE, (long)drti_gen);
#endif
	drti_say(rc == -1 ? "DTRACEHIOC_REMOVE failed for generation" :
	    "DTRACEHIOC_REMOVE done for generation", NULL, drti_gen, 1);
	drti_gen = -1;
	close(fd);
}
