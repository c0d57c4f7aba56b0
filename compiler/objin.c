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
#include "objin.h"

int
objin_read(objin_t *in, const char *path, const objin_t *before, size_t n,
    err_t *e)
{
	int real_errno;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->real = realpath(path, NULL);
	real_errno = errno;
	for (size_t i = 0; in->real != NULL && i < n; i++)
		if (before[i].same_as == NULL && strcmp(before[i].real, in->real) == 0) {
			in->same_as = &before[i];
			return 0;
		}
	if (file_read_regular(path, &in->bytes, &in->len, &in->st, e) != 0) {
		objin_free(in);
		return -1;
	}
	if (in->real == NULL) {
		objin_free(in);
		return err_errno(e, real_errno, "%s", path);
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
