/*
 * dofgen.h - DOF bytes for a model whose probes have sites.
 *
 * Shared by the -G stage (objgen.c) and the run-time library: the image is
 * built in memory and handed to an object writer, which turns each reloc
 * into an ELF relocation against its symbol (or, at run time, patches the
 * address in directly).
 */
#ifndef USDTC_DOFGEN_H
#define USDTC_DOFGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"
#include "sites.h"
#include "target.h"

/* A u64 in the image that must receive the address of symbol (+0). */
typedef struct dof_reloc {
	uint64_t offset;	/* byte offset of the u64 inside the image */
	const char *symbol;	/* points into the model; valid while it lives */
	uint64_t dof_start;	/* where the DOF holding it starts in the image */
} dof_reloc_t;

/*
 * Where one probe record's site offsets lie in the image, for an object
 * writer that relocates each entry (Mach-O's -G object: macho_objgen.c), so
 * that no writer has to decode what it was just given.  Records come in
 * image order: providers, then each provider's PROBES section.
 */
typedef struct dof_record_loc {
	const char *provider;	/* names point into the model */
	const char *probe;	/* the DTrace name */
	const char *func;	/* dofpr_func, untruncated */
	const char *symbol;	/* the record's SETX symbol, or NULL (address known) */
	uint64_t offs_at;	/* image offset of its first PROFFS entry */
	uint32_t noffs;
	uint64_t enoffs_at;	/* of its first PRENOFFS entry (0 if none) */
	uint32_t nenoffs;
} dof_record_loc_t;

typedef struct dof_record_locs {
	dof_record_loc_t *v;	/* every probe record, in image order */
	size_t n;
} dof_record_locs_t;

typedef struct dof_image {
	uint8_t *data;
	size_t size;		/* dofh_filesz rounded up to 8 */
	dof_reloc_t *relocs;
	size_t nrelocs;
} dof_image_t;

/*
 * Lay out one DOF for every provider of m: for each probe, one dof_probe_t
 * per function among its sites (doc/dof.md sections 1-5).  A site with a
 * known func_addr is written in place; the others get a DOF SETX relocation
 * and a dof_reloc_t.  Returns 0, or -1 with e set.
 */
int dof_generate(const mdl_model_t *m, const target_t *t,
    dof_image_t *out, err_t *e);
void dof_image_free(dof_image_t *img);

/*
 * dof_generate with the sites of a site table (sites.h: the -G stage's)
 * instead of those the model records (libusdt's), and, if where is not
 * NULL, where each probe record's site entries are (free it with
 * dof_record_locs_free).
 */
int dof_generate_sites(const mdl_model_t *m, const site_table_t *sites,
    const target_t *t, dof_image_t *out, dof_record_locs_t *where, err_t *e);
void dof_record_locs_free(dof_record_locs_t *where);

/*
 * What a DOF may leave out.  strip (-x strip): the sections a consumer
 * does not load, as dtrace's -x strip leaves out its comment and utsname
 * sections (libdtrace's dt_dof.c, DTRACE_D_STRIP): usdtc's comment, the
 * one it writes; dofh_filesz is then dofh_loadsz.
 */
typedef struct dof_gen_opts {
	bool strip;
	/*
	 * firing_only: the sites' is-enabled entries left out (the -G
	 * object's readers' copy, units.c), as if the table held only the
	 * others; a probe left with none has no record.
	 */
	bool firing_only;
	/*
	 * final_addrs: each relocated record's address is final once the
	 * object's relocation is applied (the readers' copy, DOF SETX against
	 * a section that is not loaded), so no RELTAB or URELHDR: their SETX
	 * entries (24 bytes a record, and the symbol's name) tell a reader to
	 * add a load base, which readers of files (gdb) never read.  The
	 * dof_reloc_t list is made as always.
	 */
	bool final_addrs;
} dof_gen_opts_t;

/* dof_generate_sites with opts (NULL: leave nothing out). */
int dof_generate_opts(const mdl_model_t *m, const site_table_t *sites,
    const target_t *t, const dof_gen_opts_t *opts, dof_image_t *out,
    dof_record_locs_t *where, err_t *e);

#endif
