/*
 * map_test.c - libusdt's image loader (libusdt/usdt_map.c) refuses a
 * segment whose file bytes go past the end of the file (issue 32): the
 * one loader check that was missing.  Mapped anyway, the pages past the
 * end would fault (SIGBUS) in the host the first time they are touched.
 * libusdt writes its images itself, so this is defence in depth; the
 * images here are written by hand: an ELF header and one PT_LOAD.
 */
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../libusdt/usdt_map.h"
#include "../testlib.h"

#define FILE_SIZE	8192

/* An image of FILE_SIZE bytes whose one segment has filesz bytes at offset. */
static int
image(uint64_t offset, uint64_t filesz)
{
	unsigned char buf[FILE_SIZE] = { 0 };
	ElfW(Ehdr) *eh = (ElfW(Ehdr) *)buf;
	ElfW(Phdr) *ph = (ElfW(Phdr) *)(buf + sizeof(*eh));
	int fd = memfd_create("map_test", MFD_CLOEXEC);

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
#if defined(__x86_64__)
	eh->e_machine = EM_X86_64;
#elif defined(__aarch64__)
	eh->e_machine = EM_AARCH64;
#endif
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R;
	ph->p_offset = offset;
	ph->p_vaddr = offset;
	ph->p_filesz = filesz;
	ph->p_memsz = filesz;
	ph->p_align = 4096;
	if (fd >= 0 && write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Map the image; 0 or -1, e's message in msg. */
static int
try_map(uint64_t offset, uint64_t filesz, char *msg, size_t size)
{
	int fd = image(offset, filesz), rc;
	usdt_map_t m;
	err_t e = { 0 };

	if (fd < 0)
		return snprintf(msg, size, "no memfd"), -2;
	rc = usdt_map_image(fd, &m, &e);
	snprintf(msg, size, "%s", rc == 0 ? "mapped" : e.msg);
	if (rc == 0)
		usdt_map_unmap(&m);
	close(fd);
	return rc;
}

int
main(void)
{
	char msg[512];

	check(try_map(0, FILE_SIZE, msg, sizeof(msg)) == 0,
	    "a segment of the whole file maps", "%s", msg);
	check(try_map(0, 3 * FILE_SIZE, msg, sizeof(msg)) == -1 &&
	    strstr(msg, "past the end of its file") != NULL,
	    "a segment of more bytes than the file has is refused", "%s", msg);
	check(try_map(4096, FILE_SIZE, msg, sizeof(msg)) == -1 &&
	    strstr(msg, "past the end of its file") != NULL,
	    "a segment ending past the file's end (offset + filesz) is refused", "%s", msg);
	check(try_map(4096, UINT64_MAX - 100, msg, sizeof(msg)) == -1,
	    "offset + filesz wrapping around is refused", "%s", msg);
	return test_summary();
}
