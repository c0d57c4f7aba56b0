/*
 * units.h - the probe groups every object that carries probes holds.
 *
 * Shared by the -G stage (objgen.c, an ET_REL object) and the run-time
 * library (libusdt/usdt_image.c, an ET_DYN object): for each probe, its
 * unit of stub code, its stapsdt note and its semaphore, in one COMDAT
 * group or (the -G object, units_pool) at their slots of one unit section
 * and one .probes, the note in a group of its own; the .stapsdt.base
 * group the notes point at; and .SUNW_dof, the
 * DOF of the whole model.  units.c describes what each holds.
 */
#ifndef USDTC_UNITS_H
#define USDTC_UNITS_H

#include "dofgen.h"
#include "elfwrite.h"
#include "err.h"
#include "model.h"
#include "sites.h"
#include "target.h"

/* The object being built, and what the groups share. */
typedef struct units {
	elfw_t *w;
	const mdl_model_t *m;
	const target_t *t;
	int base_sym;		/* _.stapsdt.base, set by units_add_stapsdt_base */
	bool lazyload;		/* -x lazyload: no drti registers the DOF (target_dof_addr) */
	bool strip;		/* -x strip: the DOF without its comment (dofgen.h) */
	/* Whether a probe's stub gets its note; NULL: every one (units.c) */
	bool (*stub_note)(const mdl_model_t *m, const target_t *t, const mdl_probe_t *pr);
	/* The stub notes' group signatures an object given to -G holds,
	 * sorted (strcmp): those notes are left out (objgen.c says why) */
	const char **held_notes;
	size_t nheld_notes;
	/* units_pool: the one unit section and the one .probes section every
	 * probe's unit and semaphore then go in (0: a group per probe), the
	 * slots they hold and the next free one */
	int pool_text, pool_sems;
	size_t pool_slots, pool_next;
} units_t;

/*
 * The stub notes' group signatures the objects given to -G hold (names,
 * n of them, owned by the caller until units is done): sorted in place
 * and kept as u->held_notes.
 */
void units_hold_notes(units_t *u, const char **names, size_t n);
/* The .stapsdt.base group; call it before the first probe group. */
void units_add_stapsdt_base(units_t *u);
/* The semaphore page group (stapsdt.h); call it before the first probe group. */
void units_add_semaphore_page(units_t *u);

/*
 * The -G object's units and semaphores, for n probes, each in one section
 * in no group (units.c says why that is sound); the probe groups added
 * after it put their unit and semaphore there.  Returns 0, or -1 as
 * units_add_probe_group.
 */
int units_pool(units_t *u, size_t n);

/*
 * One probe's group: the unit with __dtrace_P___N and
 * __dtraceenabled_P___N, and on stapsdt targets the semaphore
 * P_N_semaphore in .probes and the note.  Returns 0, or -1 when memory
 * ran out or the builder failed (elfw_failed says which).
 */
int units_add_probe_group(units_t *u, const mdl_provider_t *p,
    const mdl_probe_t *pr);

/*
 * The same group with the symbol names given: the run-time library gives
 * each unit its own names when two probes of a provider share a name (one
 * per function, as libusdt allows).  The text section is ".text." + func.
 */
typedef struct units_names {
	const char *func;	/* the unit, at the probe slot */
	const char *enabled;	/* the is-enabled slot */
	const char *semaphore;	/* in .probes */
} units_names_t;

int units_add_probe_group_named(units_t *u, const mdl_provider_t *p,
    const mdl_probe_t *pr, const units_names_t *names);

/* A call site that -G rewrote into a tracepoint (rewrite_plan.c). */
typedef struct units_site {
	const mdl_provider_t *p;
	const mdl_probe_t *pr;
	const char *symbol;	/* the calling function, or its alias */
	uint64_t offset;	/* of the tracepoint from symbol */
	bool at_call;		/* arguments as at a call, not a tail call's jump */
} units_site_t;

/*
 * A stapsdt note for each site, all in one .note.stapsdt section outside
 * any group (one section however many sites: section numbers are 16-bit
 * before extended numbering): pc = symbol + offset, the semaphore of the
 * site's probe (whose group must be in the object already), arguments as
 * they lie at the call (at_call) or, for a rewritten tail call, with the
 * caller's return address on the stack (arch->note_args_tail).  Returns 0, or -1 as units_add_probe_group.
 */
int units_add_site_notes(units_t *u, const units_site_t *sites, size_t n);

/*
 * .SUNW_dof for every provider of the model, whose probes must have sites,
 * with `symbol` (global hidden) at its start and one relocation per probe
 * address not yet known, of the form the target's consumer needs
 * (target_dof_addr; u->lazyload: no drti registers it).  One DOF for the model, or, per_provider, one DOF
 * per provider back to back (each 8-aligned), then 8 zero bytes where the
 * list ends: Oracle's dtprobed 2.0.1 reads only the first provider of a
 * DOF, and drti_lite registers each DOF up to the zeros (which also keep
 * it from walking into another -G output's DOF when a linker puts two
 * .SUNW_dof sections together).  Where target_dof_readers_copy says so,
 * .SUNW_dof is SHT_PROGBITS and a readers' copy (SHT_SUNW_dof, not loaded,
 * DOF_ELF_READERS_SECTION) goes before it.  Returns the section handle of
 * .SUNW_dof, or -1 with e set.
 */
int units_add_dof(units_t *u, const char *symbol, bool per_provider, err_t *e);
/* The same with the sites of a site table (the -G stage's, sites.h). */
int units_add_dof_sites(units_t *u, const char *symbol, bool per_provider,
    const site_table_t *sites, err_t *e);

/*
 * units_add_dof_sites in two steps, for a caller that makes the DOF bytes
 * before the rest of the object and adds them where the DOF goes (the -G
 * stage: making a DOF of 100,000 probes takes 35 MB for a moment, which
 * then is not on top of the units and symbols, issue 40).  The images
 * keep pointers into the model and the site table until they are added.
 * units_make_dofs returns 0, or -1 with e set (d then empty);
 * units_add_dofs takes the images (d is empty after it, whatever it
 * returns) and returns what units_add_dof_sites does.
 */
typedef struct units_dofs {
	bool readers;		/* target_dof_readers_copy: the copy is made */
	dof_image_t copy;	/* the readers' copy (firing sites, absolute) */
	dof_image_t loaded;	/* .SUNW_dof */
} units_dofs_t;

int units_make_dofs(units_t *u, bool per_provider, const site_table_t *sites,
    units_dofs_t *d, err_t *e);
int units_add_dofs(units_t *u, const char *symbol, units_dofs_t *d, err_t *e);
void units_dofs_free(units_dofs_t *d);

/*
 * The table of the object's semaphores drti_lite biases once DTrace has
 * accepted the DOF (stapsdt.h): STAPSDT_SEMAPHORE_TABLE_SYMBOL (global
 * hidden, for the caller to make local) at the address of each probe's
 * semaphore, then a zero address.  Only the end when the target has no
 * semaphores.  Returns 0, or -1 as units_add_probe_group.
 */
int units_add_semaphore_table(units_t *u);

/*
 * The semaphores' debug information, as SystemTap's -G object has it (it
 * compiles them with -g): one DWARF 4 unit in .debug_info and
 * .debug_abbrev declaring each probe's semaphore an external `short
 * unsigned int` at its symbol's address, so that gdb's `print
 * P_N_semaphore` prints it (objgen.c's scan_objects: only where the
 * program may be built for debugging).  Nothing for a target without
 * stapsdt semaphores or 64-bit addresses.  Returns 0, or -1 as
 * units_add_probe_group.
 */
int units_add_semaphore_dwarf(units_t *u);

#endif
