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

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"
#include "target.h"

/* A u64 in the image that must receive the address of symbol (+0). */
typedef struct dof_reloc {
	uint64_t offset;	/* byte offset of the u64 inside the image */
	const char *symbol;	/* points into the model; valid while it lives */
} dof_reloc_t;

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
int dof_generate(const mdl_model_t *m, const usdt_target_t *t,
    dof_image_t *out, err_t *e);
void dof_image_free(dof_image_t *img);

#endif
