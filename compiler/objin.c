/*
 * objin.c - reading the -G inputs once (objin.h).
 *
 * The whole object goes into memory (file_read_regular: regular files
 * only, at most the size it had when opened) and libelf reads it there
 * (elf_memory), so checking, planning and copying the object for its
 * rewrite all use these bytes; nothing opens the file again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "hash.h"
#include "objin.h"

/* Is the real path of input id (of the array ctx) key? */
static bool
same_real(const void *ctx, size_t id, const void *key)
{
	return strcmp(((const objin_t *)ctx)[id].real, key) == 0;
}

int
objin_read(objin_t *in, const char *path, const objin_t *before, size_t n,
    idset_t *byreal, err_t *e)
{
	int real_errno;
	uint64_t h = 0;
	size_t first;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->real = realpath(path, NULL);
	real_errno = errno;
	if (in->real != NULL) {
		h = hash_str(HASH_FNV_OFFSET, in->real);
		if ((first = idset_find(byreal, h, same_real, before, in->real)) != IDSET_NONE) {
			in->same_as = &before[first];
			return 0;
		}
	}
	if (file_read_regular(path, &in->bytes, &in->len, &in->st, e) != 0) {
		objin_free(in);
		return -1;
	}
	if (in->real == NULL) {
		objin_free(in);
		return err_errno(e, real_errno, "%s", path);
	}
	if (!idset_add(byreal, h, n)) {
		objin_free(in);
		return err_errno(e, ENOMEM, "%s", path);
	}
	in->kind = file_magic(in->bytes, in->len);
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
