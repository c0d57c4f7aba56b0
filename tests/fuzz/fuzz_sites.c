/*
 * fuzz_sites.c - libFuzzer entry point for what drti_lite does to a DOF at
 * run time (runtime/drti_sites.c, linked in): the site records read from
 * memory, the DOF's PC-relative addresses resolved, every probe record
 * written again grouped by (probe, function), another -G object's DOF
 * read for its tracepoints.  That code runs inside users' programs, so whatever the
 * records and DOFs hold it must stay inside what it was given.
 *
 * The input is an image of an object, loaded at the buffer's address (one
 * PT_LOAD segment, readable and executable, over all of it):
 *
 *	u32 dof	offset of the DOF being registered (8-aligned, its magic there)
 *	u32 n	site records (dof.h's dof_site_rec_t) at offset 16
 *	u32 other	offset of a second -G object's DOF list, 0 for none
 *	u32 flags	bit 0: that list comes first in the output (DOF_LISTS_SECTION);
 *		bit 1: the -G object said its DOF final (dof.h's DOF_FINAL_SYMBOL);
 *		bit 2: the records from the second one on are renamed ones
 *		(DOF_SITES_GIVEN_SECTION), read where the DOF is not final
 *
 * and whatever the records' PC-relative fields point at.  The harness
 * makes the copy as drti_proto.c's drti_copy_dof does (size plus what
 * drti_sites_room asks), runs drti_sites_add on it and checks the size it
 * returns fits the copy.  Seeds: tests/fuzz/seeds (sites/), images built
 * around -G's own DOFs.  Built and replayed as the other harnesses are.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/drti_proto.h"
#include "../../runtime/drti_sites.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether a DOF list at off of the image holds DOFs that lie inside it. */
static int
list_inside(const char *img, size_t size, uint32_t off)
{
	for (int n = 0; n < 8; n++) {
		const dof_hdr_t *h = (const dof_hdr_t *)(const void *)(img + off);

		if (off % 8 != 0 || off > size || size - off < 8)
			return 0;
		if (!drti_dof_magic_ok(h))
			return 1;	/* the list's end (8 bytes: drti_lite reads 4) */
		if (size - off < sizeof(*h))
			return 0;
		if (h->dofh_loadsz < sizeof(*h) || h->dofh_loadsz > size - off ||
		    h->dofh_filesz > size - off)
			return 0;
		if (h->dofh_filesz < sizeof(*h))
			return 1;
		off += (uint32_t)((h->dofh_filesz + 7) & ~(uint64_t)7);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t hdr[4];
	char *img, *copy;
	drti_reg_t reg;
	drti_sites_t s;
	ElfW(Phdr) ph;
	int64_t lists[2];
	size_t room, cap, got;
	int first;

	if (size < sizeof(hdr) + 16 || size > (1u << 20))
		return 0;
	if ((img = aligned_alloc(16, (size + 15) & ~(size_t)15)) == NULL)
		return 0;
	memcpy(img, data, size);
	memcpy(hdr, img, sizeof(hdr));
	if (hdr[1] > (size - 16) / sizeof(dof_site_rec_t) || !list_inside(img, size, hdr[0]) ||
	    !drti_dof_magic_ok(img + hdr[0]) || (hdr[2] != 0 && !list_inside(img, size, hdr[2]))) {
		free(img);
		return 0;
	}
	memset(&reg, 0, sizeof(reg));
	reg.gen = -1;
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_filesz = ph.p_memsz = size;
	memset(&s, 0, sizeof(s));
	s.reg = &reg;
	s.bias = (uintptr_t)img;
	s.phdr = &ph;
	s.phnum = 1;
	s.recs = (const dof_site_rec_t *)(const void *)(img + 16);
	s.nrecs = hdr[1];
	s.final = (hdr[3] & 2) != 0;
	if ((hdr[3] & 4) && s.nrecs > 1) {
		s.grecs = s.recs + 1;
		s.ngrecs = s.final ? 0 : s.nrecs - 1;
		s.nrecs = 1;
	}
	first = hdr[2] != 0 && (hdr[3] & 1);
	lists[first] = (int64_t)((uintptr_t)(img + hdr[0]) - (uintptr_t)&lists[first]);
	lists[!first] = hdr[2] == 0 ? 0 :
	    (int64_t)((uintptr_t)(img + hdr[2]) - (uintptr_t)&lists[!first]);
	s.lists = lists;
	s.nlists = hdr[2] == 0 ? 1 : 2;
	size = (size_t)((const dof_hdr_t *)(const void *)(img + hdr[0]))->dofh_loadsz;
	room = drti_sites_room(&s, img + hdr[0]);
	cap = size + (room < (64u << 20) ? room : 0);
	if ((copy = malloc(cap)) != NULL) {
		memcpy(copy, img + hdr[0], size);
		got = cap > size ? drti_sites_add(&s, copy, size, cap) : size;
		if (got > cap)
			abort();	/* drti_copy_dof would hand the helper bytes past its mapping */
		free(copy);
	}
	free(img);
	return 0;
}
