/*
 * probefind.h - the probes a file carries, found and decoded: the reader
 * behind `usdtc --list` and `--dump` (list.c prints what it returns).
 *
 * Any ELF object, executable or shared library (ours or one built with
 * sys/sdt.h), a 64-bit Mach-O object or image (its S_DTRACE_DOF sections,
 * macho_read.h), or a raw DOF image (starting with \177DOF, e.g. what
 * drti_lite handed to the helper device): every DOF in it, decoded by the
 * strict decoder (decode.h), and every stapsdt note (stapsdt.h), with the
 * relocations an object's fields carry.  probefind.c says how.
 */
#ifndef USDTC_PROBEFIND_H
#define USDTC_PROBEFIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "err.h"
#include "stapsdt.h"

/* A relocation of a relocatable object: at off (in its section), sym+addend. */
typedef struct probefind_rel {
	uint64_t off;
	const char *sym;	/* NULL: none */
	int64_t addend;
	const char *minus;	/* Mach-O: the symbol subtracted (the DOF's start) */
} probefind_rel_t;

typedef struct probefind_rels {
	probefind_rel_t *v;		/* sorted by offset once read */
	size_t n, cap;
} probefind_rels_t;

/* The relocation at offset off (the first read, of several), or NULL. */
const probefind_rel_t *probefind_rels_find(const probefind_rels_t *rs, uint64_t off);

/* One DOF found: where, decoded, and its section's relocations. */
typedef struct probefind_dof {
	dof_decoded_t d;
	const char *where;	/* ".SUNW_dof", "__TEXT,__dof_p", "DOF file" */
	uint64_t secoff;	/* where the DOF starts in that section */
	const probefind_rels_t *rels;	/* an object's relocations of the section */
	/*
	 * From an SHT_SUNW_dof section that is not loaded: the readers' copy
	 * usdtc's -G writes beside the DOF drti_lite registers (for gdb), the
	 * same probes with absolute addresses and no is-enabled sites.
	 */
	bool readers_copy;
} probefind_dof_t;

/* A stapsdt note and, in a relocatable object, what its fields relocate to. */
typedef struct probefind_note {
	stapsdt_note_t n;
	probefind_rel_t pc, base, sem;
} probefind_note_t;

enum probefind_kind { PROBEFIND_ELF, PROBEFIND_MACHO, PROBEFIND_DOF };

typedef struct probefind_found {
	enum probefind_kind kind;
	bool object;		/* a relocatable object (ELF ET_REL, MH_OBJECT) */
	uint32_t cputype;	/* Mach-O */
	probefind_dof_t *dofs;		/* in file order */
	size_t ndofs;
	probefind_note_t *notes;	/* ELF only */
	size_t nnotes;
	struct probefind_keep *keep;	/* what the results point into */
} probefind_found_t;

/*
 * Find every DOF and note of the file image buf (name is for messages).
 * base: the load base a consumer would be given (dofhp_addr): a probe
 * record whose address has a DOF SETX relocation and is <= base gets base
 * added, as Oracle Linux's DOF parser does; 0: none.  Returns 0, or -1
 * with e set (name in it) and out empty.
 */
int probefind_buffer(const void *buf, size_t len, const char *name, uint64_t base,
    probefind_found_t *out, err_t *e);

/*
 * The same for the regular file at path: refused on its first bytes if it
 * is neither ELF, Mach-O nor DOF, else read once.  An ELF file with
 * anything past its end is refused as "truncated" (so is such a buffer).
 */
int probefind_file(const char *path, uint64_t base, probefind_found_t *out, err_t *e);

/*
 * Whether --list shows f's DOF i: a readers' copy only when the file has
 * no loaded DOF (a debug file made with objcopy --only-keep-debug), as the
 * loaded one also has the is-enabled sites.  The one place that chooses.
 */
bool probefind_dof_listed(const probefind_found_t *f, size_t i);

void probefind_found_free(probefind_found_t *f);

#endif
