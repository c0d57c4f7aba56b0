/*
 * decode.h - strict readers for DOF images and .note.stapsdt sections.
 *
 * Both take (buffer, length), never a file, so unit tests and fuzzers feed
 * them bytes directly; probefind.c finds the bytes in files.  They check
 * everything a consumer relies on (see decode.c) and fail with one precise
 * message naming the section, record and field at fault.  The buffer may
 * have any alignment.  Decoded strings point into the buffer, which must
 * outlive the decoded structure; arrays are owned by it.
 */
#ifndef USDTC_DECODE_H
#define USDTC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dof.h"
#include "err.h"

/* One dof_probe_t, its strings and offsets resolved. */
typedef struct dofd_probe {
	dof_probe_t raw;
	uint64_t addr_offset;	/* offset of dofpr_addr from the start of the DOF */
	const char *func;
	const char *name;
	const char **nargv;	/* [raw.dofpr_nargc] */
	const char **xargv;	/* [raw.dofpr_xargc] */
	uint8_t *argmap;	/* [raw.dofpr_xargc] */
	uint32_t *offs;		/* [raw.dofpr_noffs] */
	uint32_t *enoffs;	/* [nenoffs] */
	uint16_t nenoffs;	/* raw.dofpr_nenoffs, or 0 below version 2 */
	const char *reloc;	/* name of the SETX or DOFREL relocation of dofpr_addr, or NULL */
	uint32_t reloc_type;	/* DOF_RELO_SETX or DOF_RELO_DOFREL when reloc is set */
	uint64_t reloc_data;	/* its dofr_data (DOF_RELDATA_DOFBASE) */
} dofd_probe_t;

typedef struct dofd_provider {
	uint32_t sec;		/* index of its PROVIDER section */
	dof_provider_t raw;	/* dofpv_prenoffs 0 if the section is short */
	const char *name;
	bool has_prenoffs;	/* version >= 2 and dofpv_prenoffs != 0 */
	dofd_probe_t *probes;
	size_t nprobes;
} dofd_provider_t;

typedef struct dofd_reloc {
	dof_relodesc_t raw;
	const char *name;
} dofd_reloc_t;

typedef struct dofd_relhdr {
	uint32_t sec;		/* index of its URELHDR section */
	dof_relohdr_t raw;
	dofd_reloc_t *relocs;
	size_t nrelocs;
} dofd_relhdr_t;

typedef struct dofd_section {
	dof_sec_t hdr;
	const uint8_t *data;	/* NULL for type NONE, and for an unloaded
				   section past the buffer (DOF_DECODE_LOADSZ) */
} dofd_section_t;

typedef struct dof_decoded {
	dof_hdr_t hdr;
	uint8_t version;
	const uint8_t *image;	/* the buffer decoded */
	dofd_section_t *secs;
	size_t nsecs;
	dofd_provider_t *providers;
	size_t nproviders;
	dofd_relhdr_t *relhdrs;
	size_t nrelhdrs;
} dof_decoded_t;

/*
 * The buffer may hold only dofh_loadsz bytes (what a kernel reads from a
 * process); unloaded sections past it are then left without data.
 */
#define DOF_DECODE_LOADSZ	1u

/*
 * Decode one DOF starting at buf; len may exceed the image (it is followed
 * by others in a linked .SUNW_dof), dofh_filesz says where it ends.
 * Returns 0, or -1 with e set and out empty.
 */
int dof_decode(const void *buf, size_t len, dof_decoded_t *out, err_t *e);
int dof_decode_ex(const void *buf, size_t len, unsigned flags,
    dof_decoded_t *out, err_t *e);
void dof_decoded_free(dof_decoded_t *d);

/*
 * What dof_walk calls for each DOF of a buffer, at offset off: d decoded
 * (the callback's to keep or free), or bad says why the DOF there does
 * not decode (d NULL).  A nonzero return stops the walk and is its result.
 */
typedef int dof_walk_fn(void *arg, dof_decoded_t *d, size_t off, const err_t *bad);

/*
 * Decode every DOF of a buffer of concatenated DOFs, as a linked program's
 * .SUNW_dof or __dof section holds them: images at 8-aligned offsets, zero
 * padding between them.  DOF_DECODE_LOADSZ in flags: the buffer is a
 * captured image, whose last DOF may stop at dofh_loadsz.  Returns 0 or
 * the first nonzero return of each.  The one walk of concatenated DOFs:
 * probefind.c and macho_read.c both use it.
 */
int dof_walk(const uint8_t *buf, size_t len, unsigned flags, dof_walk_fn *each,
    void *arg);

/* "STRTAB", "PROBES", ...; NULL for a type we do not know. */
const char *dof_section_type_name(uint32_t type);

/* One stapsdt note (type 3, name "stapsdt"). */
typedef struct stapsdt_note {
	size_t offset;		/* of the note header within the section */
	size_t desc_offset;	/* of the pc field within the section */
	uint64_t pc;
	uint64_t base;		/* address of .stapsdt.base as linked */
	uint64_t semaphore;	/* 0: none */
	const char *provider;
	const char *name;
	const char *args;	/* "" when the probe has none */
} stapsdt_note_t;

typedef struct stapsdt_notes {
	stapsdt_note_t *notes;
	size_t n;
} stapsdt_notes_t;

/*
 * Decode the bytes of a .note.stapsdt section.  addr_size is 8 for ELF64
 * and 4 for ELF32 objects.  Notes of other names or types are skipped.
 * Returns 0, or -1 with e set and out empty.
 */
int dof_stapsdt_decode(const void *buf, size_t len, unsigned addr_size,
    stapsdt_notes_t *out, err_t *e);

/*
 * The same for a section's bytes as the file holds them, its words (note
 * headers, addresses) big-endian when msb (an ELF file's ELFDATA2MSB: an
 * s390x program read on x86_64), else little-endian.
 */
int dof_stapsdt_decode_order(const void *buf, size_t len, unsigned addr_size, bool msb,
    stapsdt_notes_t *out, err_t *e);
void dof_stapsdt_notes_free(stapsdt_notes_t *n);

#endif
