/*
 * objin.c - reading the -G inputs once (objin.h).
 *
 * The whole object goes into memory (file_read_regular: regular files
 * only, at most the size it had when opened) and libelf reads it there
 * (elf_memory), so checking, planning and copying the object for its
 * rewrite all use these bytes; nothing opens the file again.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfenc.h"
#include "fileio.h"
#include "hash.h"
#include "objin.h"

/* Is input id (of the array ctx) the file whose stat is key? */
static bool
same_file(const void *ctx, size_t id, const void *key)
{
	const struct stat *a = &((const objin_t *)ctx)[id].st, *b = key;

	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * The same file (device and inode) under any name: the same name twice,
 * a symlink, a second hard link.  Read, then looked up, so the identity is
 * the one of the file read.
 */
int
objin_read(objin_t *in, const char *path, const objin_t *before, size_t n,
    idset_t *byfile, err_t *e)
{
	uint64_t h;
	size_t first;

	memset(in, 0, sizeof(*in));
	in->path = path;
	if (file_read_regular(path, &in->bytes, &in->len, &in->st, e) != 0)
		return -1;
	if ((in->real = realpath(path, NULL)) == NULL) {
		int saved = errno;

		objin_free(in);
		return err_errno(e, saved, "%s", path);
	}
	h = hash_bytes(HASH_FNV_OFFSET, &in->st.st_dev, sizeof(in->st.st_dev));
	h = hash_bytes(h, &in->st.st_ino, sizeof(in->st.st_ino));
	if ((first = idset_find(byfile, h, same_file, before, &in->st)) != IDSET_NONE) {
		free(in->bytes);
		in->bytes = NULL;
		in->len = 0;
		in->same_as = &before[first];
		return 0;
	}
	if (!idset_add(byfile, h, n)) {
		objin_free(in);
		return err_errno(e, ENOMEM, "%s", path);
	}
	in->kind = magic_of(in->bytes, in->len);
	if (in->kind == MAGIC_ELF &&
	    (in->elf = elf_memory((char *)in->bytes, in->len)) == NULL) {
		err_libelf(e, path, "elf_memory");
		objin_free(in);
		return -1;
	}
	return 0;
}

const objin_t *
objin_image(const objin_t *in)
{
	return in->same_as != NULL ? in->same_as : in;
}

void
objin_free(objin_t *in)
{
	if (in->elf != NULL)
		elf_end(in->elf);
	free(in->bytes);
	free(in->real);
	memset(in, 0, sizeof(*in));
}

/*
 * How to fix a mismatch: the usual cause is a cross build whose CC is a
 * make variable that is not exported, so -G followed the host.
 */
static const char *
fix_hint(const GElf_Ehdr *eh, int elf_class)
{
	static char buf[256];
	const target_t *t = target_for_elf(eh->e_machine, (unsigned)elf_class);

	snprintf(buf, sizeof(buf), ": give --target=%s, or export CC as the compiler that "
	    "built it (-G follows $CC's -dumpmachine)", t != NULL ? t->name : "<its machine's>");
	return buf;
}

int
objin_check_target(Elf *elf, const char *path, const target_t *t, err_t *e)
{
	GElf_Ehdr eh;
	int elf_class = gelf_getclass(elf);

	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL)
		return err_set(e, "%s: not a valid ELF object: %s", path, elf_errmsg(-1));
	if ((unsigned)elf_class != t->arch->elf_class)
		return err_set(e, "%s: is a %u-bit object, but target %s is %u-bit%s "
		    "[G_CLASS_MISMATCH]", path, elfenc_addr_size(elf_class) * 8, t->name,
		    elfenc_addr_size((int)t->arch->elf_class) * 8, fix_hint(&eh, elf_class));
	if (eh.e_machine != t->arch->elf_machine)
		return err_set(e, "%s: ELF machine %u does not match target %s (machine %u)%s "
		    "[G_MACHINE_MISMATCH]", path, eh.e_machine, t->name, t->arch->elf_machine,
		    fix_hint(&eh, elf_class));
	return 0;
}
