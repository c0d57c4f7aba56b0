/*
 * magic.c - file kinds by their magic numbers (magic.h).  Readers sniff
 * here and then check the rest strictly themselves: a file that starts
 * like a Mach-O is handed to macho_read.c, which refuses the universal,
 * 32-bit and big-endian ones with a message of its own.
 */
#include <stdint.h>
#include <string.h>

#include "magic.h"

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static int
is_macho(uint32_t m)
{
	return m == MH_MAGIC_64 || m == MH_CIGAM_64 || m == MH_MAGIC ||
	    m == MH_CIGAM || m == FAT_MAGIC || m == FAT_CIGAM;
}

enum file_magic
magic_of(const void *buf, size_t len)
{
	const unsigned char *b = buf;

	if (len >= 8 && (memcmp(b, "!<arch>\n", 8) == 0 || memcmp(b, "!<thin>\n", 8) == 0))
		return MAGIC_ARCHIVE;
	if (len < 4)
		return MAGIC_OTHER;
	if (memcmp(b, "\177ELF", 4) == 0)
		return MAGIC_ELF;
	if (memcmp(b, "\177DOF", 4) == 0)
		return MAGIC_DOF;
	if (memcmp(b, "BC\xc0\xde", 4) == 0 || memcmp(b, "\xde\xc0\x17\x0b", 4) == 0)
		return MAGIC_BITCODE;
	if (is_macho(le32(b)))
		return MAGIC_MACHO;
	return MAGIC_OTHER;
}
