/*
 * usdt_jit.c - show mapped images to gdb through its JIT interface.
 *
 * usdt_map.c maps images without the dynamic linker, so they are not in
 * its list of objects, which is where gdb looks for shared objects (and
 * for their stapsdt notes: `info probes`, `break -probe-stap`).  gdb has
 * a second list it reads, the "JIT Compilation Interface" of its manual:
 * a process defines __jit_debug_descriptor, a list of in-memory ELF
 * files, and __jit_debug_register_code, a function it calls after each
 * change, on which gdb keeps a breakpoint; gdb reads the whole list when
 * it attaches.  gdb looks both names up in every object of the process,
 * and keeps one list per object that defines them.
 *
 * The hosts we live in may have a list of their own (Node's V8 defines
 * both names in the executable, and the executable's definitions are
 * what every default reference binds to).  Sharing one would race with
 * the host's JIT, which has its own lock.  So libusdt.so defines its own
 * pair, exported (gdb finds them in .dynsym even when the library is
 * stripped) but weak (a static link next to a host's pair keeps the
 * host's names and ours goes unseen, no clash), and libusdt's code only
 * ever uses them through hidden aliases, bound at link time to our
 * copies whoever else defines the names.
 *
 * gdb does not relocate an in-memory ELF: its sections must be at the
 * addresses their headers say.  The image's file says addresses from 0
 * (the load bias is added by whoever maps it), and its stapsdt notes are
 * not loaded.  So each entry is a copy of the image file with every
 * loaded section's address and every defined symbol's value moved by the
 * load bias; gdb then computes each probe's address from the note and
 * .stapsdt.base as it does for a shared object.  The DOF's probe addresses
 * are moved too: gdb lists DTrace probes from .SUNW_dof and reads their
 * is-enabled sites at the DOF's address without adding the object's
 * offset (so `info probes` stopped at "Cannot access memory at address
 * 0x1005" on a dlopened image; on this copy it lists them).  The copy keeps only the
 * ELF header, the sections' bytes packed one after the other, and the
 * section headers (no program headers, no page padding): a few hundred
 * bytes more than the notes and the DOF.
 *
 * Cost: a copy and two pointer writes per image, constant however many
 * images there are; nothing else happens when no debugger is attached.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dof.h"
#include "usdt_jit.h"

#define MAX_IMAGE (64u << 20)

/* gdb's layout (version 1). */
enum { JIT_NOACTION = 0, JIT_REGISTER_FN = 1, JIT_UNREGISTER_FN = 2 };

struct usdt_jit_entry {
	struct usdt_jit_entry *next_entry;
	struct usdt_jit_entry *prev_entry;
	const char *symfile_addr;
	uint64_t symfile_size;
};

struct jit_descriptor {
	uint32_t version;
	uint32_t action_flag;
	struct usdt_jit_entry *relevant_entry;
	struct usdt_jit_entry *first_entry;
};

/* The names gdb looks up, exported; see above for weak and the aliases. */
extern struct jit_descriptor __jit_debug_descriptor;
void __jit_debug_register_code(void);

__attribute__((visibility("default"), weak))
struct jit_descriptor __jit_debug_descriptor = { 1, JIT_NOACTION, NULL, NULL };

/* GCC could clone the empty function; clang has no such pass, nor the attribute. */
#ifdef __clang__
#define USDT_JIT_NOCLONE
#else
#define USDT_JIT_NOCLONE __attribute__((noclone))
#endif
__attribute__((visibility("default"), weak, noinline)) USDT_JIT_NOCLONE void
__jit_debug_register_code(void)
{
	/* gdb's breakpoint is here; the barrier keeps the call and the stores. */
	__asm__ __volatile__("" ::: "memory");
}

extern struct jit_descriptor usdt_jit_descriptor
    __attribute__((alias("__jit_debug_descriptor"), visibility("hidden")));
extern void usdt_jit_notify(void)
    __attribute__((alias("__jit_debug_register_code"), visibility("hidden")));

/* ---- the copy gdb reads --------------------------------------------------- */

/* The whole image file into *out (malloc'd, *size bytes): 0, or -1 with e set. */
static int
read_image(int fd, unsigned char **out, size_t *size, err_t *e)
{
	struct stat st;
	unsigned char *buf;
	size_t done = 0;

	if (fstat(fd, &st) != 0)
		return err_errno(e, errno, "reading the image");
	if (st.st_size < (off_t)sizeof(ElfW(Ehdr)) || (uint64_t)st.st_size > MAX_IMAGE)
		return err_set(e, "the image has %lld bytes", (long long)st.st_size);
	if ((buf = malloc((size_t)st.st_size)) == NULL)
		return err_errno(e, ENOMEM, "copying the image for debuggers");
	while (done < (size_t)st.st_size) {
		ssize_t got = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			free(buf);
			return err_errno(e, got < 0 ? errno : EIO, "reading the image");
		}
		done += (size_t)got;
	}
	*out = buf;
	*size = done;
	return 0;
}

/* Whether the section headers of the file in buf, and their bytes, lie within it. */
static int
check_sections(const unsigned char *buf, size_t size, err_t *e)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)buf;
	const ElfW(Shdr) *sh;

	if (eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shnum == 0 ||
	    eh->e_shoff > size || (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum)
		return err_set(e, "the image's section headers are not in it");
	sh = (const ElfW(Shdr) *)(buf + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS &&
		    (sh[i].sh_offset > size || size - sh[i].sh_offset < sh[i].sh_size))
			return err_set(e, "the image's section %u is not in it", i);
	return 0;
}

static size_t
align_to(size_t n, uint64_t align)
{
	return align > 1 ? (size_t)((n + align - 1) / align * align) : n;
}

/* Move the values of the defined symbols of a symbol table by base. */
static void
rebase_symbols(unsigned char *out, const ElfW(Shdr) *sh, uintptr_t base)
{
	ElfW(Sym) *sym = (ElfW(Sym) *)(out + sh->sh_offset);

	for (size_t i = 0; i < sh->sh_size / sizeof(ElfW(Sym)); i++)
		if (sym[i].st_shndx != SHN_UNDEF && sym[i].st_shndx < SHN_LORESERVE)
			sym[i].st_value += base;
}

/* Move the function address of every probe of the DOF in sec by base. */
static void
rebase_dof(unsigned char *out, const ElfW(Shdr) *sec, uintptr_t base)
{
	unsigned char *dof = out + sec->sh_offset;
	const dof_hdr_t *h = (const dof_hdr_t *)dof;
	uint64_t size = sec->sh_size;

	if (size < sizeof(*h) || h->dofh_secsize != sizeof(dof_sec_t) ||
	    h->dofh_secoff > size || (size - h->dofh_secoff) / sizeof(dof_sec_t) < h->dofh_secnum)
		return;
	for (uint32_t i = 0; i < h->dofh_secnum; i++) {
		const dof_sec_t *s = (const dof_sec_t *)(dof + h->dofh_secoff) + i;

		if (s->dofs_type != DOF_SECT_PROBES || s->dofs_entsize < sizeof(dof_probe_t) ||
		    s->dofs_offset > size || size - s->dofs_offset < s->dofs_size ||
		    s->dofs_offset % 8 != 0)
			continue;
		for (uint64_t at = 0; at + sizeof(dof_probe_t) <= s->dofs_size; at += s->dofs_entsize)
			((dof_probe_t *)(dof + s->dofs_offset + at))->dofpr_addr += base;
	}
}

/*
 * The copy gdb reads, of the checked file: ELF header, sections packed,
 * section headers last; addresses moved by base.  malloc'd; NULL on ENOMEM.
 */
static unsigned char *
debug_copy(const unsigned char *file, uintptr_t base, size_t *size)
{
	ElfW(Ehdr) eh = *(const ElfW(Ehdr) *)file;
	const ElfW(Shdr) *fsh = (const ElfW(Shdr) *)(file + eh.e_shoff);
	ElfW(Shdr) *sh;
	unsigned char *out;
	size_t off = sizeof(eh);

	for (unsigned i = 1; i < eh.e_shnum; i++)
		if (fsh[i].sh_type != SHT_NOBITS)
			off = align_to(off, fsh[i].sh_addralign) + fsh[i].sh_size;
	off = align_to(off, 8);
	*size = off + eh.e_shnum * sizeof(ElfW(Shdr));
	if ((out = calloc(1, *size)) == NULL)
		return NULL;
	sh = (ElfW(Shdr) *)(out + off);
	memcpy(sh, fsh, eh.e_shnum * sizeof(ElfW(Shdr)));
	eh.e_phoff = 0;
	eh.e_phnum = 0;
	eh.e_shoff = off;
	memcpy(out, &eh, sizeof(eh));
	off = sizeof(eh);
	for (unsigned i = 1; i < eh.e_shnum; i++) {
		if (sh[i].sh_type != SHT_NOBITS) {
			off = align_to(off, sh[i].sh_addralign);
			memcpy(out + off, file + fsh[i].sh_offset, sh[i].sh_size);
			sh[i].sh_offset = off;
			off += sh[i].sh_size;
		}
		if (sh[i].sh_flags & SHF_ALLOC)
			sh[i].sh_addr += base;
	}
	for (unsigned i = 1; i < eh.e_shnum; i++)
		if ((sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM) &&
		    sh[i].sh_entsize == sizeof(ElfW(Sym)))
			rebase_symbols(out, &sh[i], base);
		else if (sh[i].sh_type == SHT_SUNW_dof && sh[i].sh_offset % 8 == 0)
			rebase_dof(out, &sh[i], base);
	return out;
}

/* ---- the list -------------------------------------------------------------- */

int
usdt_jit_register(int fd, uintptr_t base, struct usdt_jit_entry **out, err_t *e)
{
	struct jit_descriptor *d = &usdt_jit_descriptor;
	struct usdt_jit_entry *entry;
	unsigned char *file = NULL, *copy = NULL;
	size_t size = 0, csize = 0;
	int rc;

	*out = NULL;
	if (read_image(fd, &file, &size, e) != 0)
		return -1;
	rc = check_sections(file, size, e);
	if (rc == 0)
		copy = debug_copy(file, base, &csize);
	free(file);
	if (rc != 0)
		return -1;
	if (copy == NULL || (entry = calloc(1, sizeof(*entry))) == NULL) {
		free(copy);
		return err_errno(e, ENOMEM, "registering the image with debuggers");
	}
	entry->symfile_addr = (const char *)copy;
	entry->symfile_size = csize;
	if ((entry->next_entry = d->first_entry) != NULL)
		entry->next_entry->prev_entry = entry;
	d->first_entry = entry;
	d->relevant_entry = entry;
	d->action_flag = JIT_REGISTER_FN;
	usdt_jit_notify();
	d->action_flag = JIT_NOACTION;
	*out = entry;
	return 0;
}

void
usdt_jit_unregister(struct usdt_jit_entry *entry)
{
	struct jit_descriptor *d = &usdt_jit_descriptor;

	if (entry == NULL)
		return;
	if (entry->prev_entry != NULL)
		entry->prev_entry->next_entry = entry->next_entry;
	else
		d->first_entry = entry->next_entry;
	if (entry->next_entry != NULL)
		entry->next_entry->prev_entry = entry->prev_entry;
	d->relevant_entry = entry;
	d->action_flag = JIT_UNREGISTER_FN;
	usdt_jit_notify();
	d->action_flag = JIT_NOACTION;
	d->relevant_entry = NULL;
	free((void *)entry->symfile_addr);
	free(entry);
}
