/*
 * usdt_map.c - map a provider's image from its descriptor, without the
 * dynamic linker.
 *
 * Why not dlopen: glibc's dlopen and dlclose walk every object loaded
 * (name matching, namespace list, file identity), so the thousandth
 * provider cost ten times the first and 10,000 providers took seconds
 * (issue 22).  An image (usdt_image.c) needs nothing a dynamic linker
 * does: no interpreter, no DT_NEEDED, no relocation, no TLS, no
 * constructor; it only has to be in memory where its file says.  So it
 * is mapped here the way the loader would: the span of its PT_LOAD
 * segments reserved inaccessible, then each segment mapped from the
 * image's own descriptor (file-backed, so /proc/PID/maps names the file,
 * or the memfd, exactly as after a dlopen, and tracers that walk maps
 * find it) with that segment's protections: never writable and
 * executable.  Memory past a segment's file bytes is zero, as the
 * loader makes it.  Anything a loader would have to act on is refused
 * rather than half done.
 *
 * What the dynamic linker's list gave, debuggers reading it (gdb's
 * `info probes`), usdt_jit.c gives back through gdb's JIT interface.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usdt_map.h"

#define MAX_PHDRS 32
#define MAX_DYN 64

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#define HOST_MACHINE EM_NONE
#endif

/* The headers of an image, read through its descriptor. */
typedef struct image_hdrs {
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph[MAX_PHDRS];
	size_t page;
} image_hdrs_t;

/* Read exactly n bytes at off. */
static int
read_at(int fd, void *buf, size_t n, off_t off, const char *what, err_t *e)
{
	size_t done = 0;

	while (done < n) {
		ssize_t got = pread(fd, (char *)buf + done, n - done, off + (off_t)done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return err_errno(e, got < 0 ? errno : EIO, "reading the image's %s", what);
		done += (size_t)got;
	}
	return 0;
}

/* The ELF header and program headers, checked to be an image of this host. */
static int
read_headers(int fd, image_hdrs_t *h, err_t *e)
{
	const ElfW(Ehdr) *eh = &h->eh;

	if (read_at(fd, &h->eh, sizeof(h->eh), 0, "ELF header", e) != 0)
		return -1;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_type != ET_DYN || eh->e_machine != HOST_MACHINE)
		return err_set(e, "the image is not a shared object of this host");
	if (eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum == 0 ||
	    eh->e_phnum > MAX_PHDRS)
		return err_set(e, "the image has %u program headers", (unsigned)eh->e_phnum);
	return read_at(fd, h->ph, eh->e_phnum * sizeof(ElfW(Phdr)), (off_t)eh->e_phoff,
	    "program headers", e);
}

/* Whether .dynamic asks for anything only a dynamic linker does. */
static int
check_dynamic(int fd, const ElfW(Phdr) *ph, err_t *e)
{
	ElfW(Dyn) dyn[MAX_DYN];
	size_t n = ph->p_filesz / sizeof(ElfW(Dyn));

	if (n > MAX_DYN)
		return err_set(e, "the image's .dynamic has %zu entries", n);
	if (read_at(fd, dyn, n * sizeof(ElfW(Dyn)), (off_t)ph->p_offset, ".dynamic", e) != 0)
		return -1;
	for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++)
		switch (dyn[i].d_tag) {
		case DT_HASH: case DT_GNU_HASH: case DT_STRTAB: case DT_SYMTAB:
		case DT_STRSZ: case DT_SYMENT: case DT_SONAME:
			break;
		default:
			return err_set(e, "the image's .dynamic has tag %#lx, which needs a "
			    "dynamic linker", (unsigned long)dyn[i].d_tag);
		}
	return 0;
}

/*
 * The span of the PT_LOAD segments, [*lo, *hi) in image addresses, page
 * aligned; refuses segments a loader would refuse or act on, and file
 * bytes past the file's end (a mapping there would fault on first touch).
 */
static int
check_segments(int fd, const image_hdrs_t *h, uintptr_t *lo, uintptr_t *hi, err_t *e)
{
	bool any = false;
	struct stat st;

	*lo = UINTPTR_MAX;
	*hi = 0;
	if (fstat(fd, &st) != 0)
		return err_errno(e, errno, "the image's size");
	for (unsigned i = 0; i < h->eh.e_phnum; i++) {
		const ElfW(Phdr) *ph = &h->ph[i];

		if ((ph->p_type == PT_LOAD || ph->p_type == PT_DYNAMIC) &&
		    (ph->p_offset > (uint64_t)st.st_size ||
		    ph->p_filesz > (uint64_t)st.st_size - ph->p_offset))
			return err_set(e, "the image's segment at %#lx goes past the end of "
			    "its file", (unsigned long)ph->p_vaddr);

		if (ph->p_type == PT_INTERP || ph->p_type == PT_TLS)
			return err_set(e, "the image has a segment (type %u) that needs a "
			    "dynamic linker", (unsigned)ph->p_type);
		if (ph->p_type == PT_DYNAMIC && check_dynamic(fd, ph, e) != 0)
			return -1;
		if (ph->p_type != PT_LOAD)
			continue;
		if ((ph->p_flags & (PF_W | PF_X)) == (PF_W | PF_X))
			return err_set(e, "the image has a writable and executable segment");
		if ((ph->p_vaddr - ph->p_offset) % h->page != 0 || ph->p_memsz < ph->p_filesz ||
		    ph->p_vaddr + ph->p_memsz < ph->p_vaddr)
			return err_set(e, "the image's segment at %#lx cannot be mapped",
			    (unsigned long)ph->p_vaddr);
		if (ph->p_memsz > ph->p_filesz && (ph->p_flags & PF_W) == 0)
			return err_set(e, "the image's read-only segment at %#lx has no file "
			    "bytes for all of it", (unsigned long)ph->p_vaddr);
		if (ph->p_vaddr / h->page * h->page < *lo)
			*lo = ph->p_vaddr / h->page * h->page;
		if ((ph->p_vaddr + ph->p_memsz + h->page - 1) / h->page * h->page > *hi)
			*hi = (ph->p_vaddr + ph->p_memsz + h->page - 1) / h->page * h->page;
		any = true;
	}
	if (!any || *hi <= *lo)
		return err_set(e, "the image has nothing to load");
	return 0;
}

static int
segment_prot(const ElfW(Phdr) *ph)
{
	return ((ph->p_flags & PF_R) ? PROT_READ : 0) | ((ph->p_flags & PF_W) ? PROT_WRITE : 0) |
	    ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
}

/* Map one PT_LOAD segment over the reservation; the rest of memsz is zero. */
static int
map_segment(int fd, const ElfW(Phdr) *ph, uintptr_t base, size_t page, err_t *e)
{
	uintptr_t start = base + ph->p_vaddr / page * page;
	uintptr_t file_end = base + ph->p_vaddr + ph->p_filesz;
	uintptr_t file_page_end = (file_end + page - 1) / page * page;
	uintptr_t mem_end = (base + ph->p_vaddr + ph->p_memsz + page - 1) / page * page;
	int prot = segment_prot(ph);

	if (ph->p_filesz > 0 &&
	    mmap((void *)start, file_page_end - start, prot, MAP_PRIVATE | MAP_FIXED, fd,
	    (off_t)(ph->p_offset / page * page)) == MAP_FAILED)
		return err_errno(e, errno, "mapping the image's segment at %#lx",
		    (unsigned long)ph->p_vaddr);
	if (ph->p_memsz <= ph->p_filesz)
		return 0;
	/* Writable (check_segments): clear the file page's tail, then whole pages. */
	if (ph->p_filesz > 0 && file_end < file_page_end)
		memset((void *)file_end, 0, file_page_end - file_end);
	if (ph->p_filesz == 0)
		file_page_end = start;
	if (mem_end > file_page_end &&
	    mmap((void *)file_page_end, mem_end - file_page_end, prot,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return err_errno(e, errno, "mapping the image's zero-filled memory");
	return 0;
}

int
usdt_map_image(int fd, usdt_map_t *m, err_t *e)
{
	image_hdrs_t h;
	uintptr_t lo, hi, base;
	void *span;
	long page = sysconf(_SC_PAGESIZE);

	memset(m, 0, sizeof(*m));
	h.page = page > 0 ? (size_t)page : 4096;
	if (read_headers(fd, &h, e) != 0 || check_segments(fd, &h, &lo, &hi, e) != 0)
		return -1;
	span = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (span == MAP_FAILED)
		return err_errno(e, errno, "reserving %zu bytes for the image", (size_t)(hi - lo));
	base = (uintptr_t)span - lo;
	for (unsigned i = 0; i < h.eh.e_phnum; i++)
		if (h.ph[i].p_type == PT_LOAD && map_segment(fd, &h.ph[i], base, h.page, e) != 0) {
			munmap(span, hi - lo);
			return -1;
		}
	m->start = span;
	m->len = hi - lo;
	m->base = base;
	return 0;
}

void
usdt_map_unmap(usdt_map_t *m)
{
	if (m->start != NULL)
		munmap(m->start, m->len);
	m->start = NULL;
	m->len = 0;
}
