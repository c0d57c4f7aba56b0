/*
 * drti_sites.h - the header's inline probe sites, added to the DOF that
 * drti_lite.c hands DTrace, each in a probe record named by the function
 * it sits in.
 *
 * Why: `-G` run without the program's objects (build style b: glib,
 * libvirt, meson builds) writes a DOF that records only the probe stubs,
 * and on x86_64 the header makes most probes inline sites (a 1-byte nop
 * with its arguments in the call-convention registers), which never call a
 * stub.  Each inline site records itself, in the loaded section
 * DOF_SITES_SECTION (dof.h's dof_site_rec_t: the site, the `__func__` of
 * its function and its probe's names, each PC-relative, so no dynamic
 * relocation): the linker gathers every record of the object between
 * `__start_` and `__stop_` of that section.  So this code reads nothing
 * but its own object's memory: no file is opened or mapped, whatever is on
 * disk (a library replaced by an upgrade, deleted, unreadable); and a site
 * is registered only where the header's code put a record (and only on a
 * 1-byte nop or a uprobe's int3, inside an executable segment of the
 * object).
 *
 * The records' sites join the DOF grouped by (probe, function): every
 * tracepoint of the provider, the DOF's own records' and the sites', goes
 * to the record of its probe name and function name, one record each,
 * as Oracle's `-G` makes them (`test:main:probe1`); a site already in the
 * DOF (-G given the objects recorded it, in the record of its function) is
 * not added again.  Two records of one probe and one function name (two
 * `static` functions of one name in two files) become one, since dtprobed
 * files probes under provider, module, function and name and refuses a
 * DOF that repeats one.  Every record is written again after the DOF, its
 * address absolute (the lowest of its tracepoints) and its offsets from
 * it; the DOF's relocations of the old records become DOF_RELO_NONE.
 *
 * A `-G` given the objects already put every site of those objects in its
 * DOF, in the record of its function: it renames their records' section
 * DOF_SITES_GIVEN_SECTION (dof.h) and tells drti_lite so (`final`, when
 * no two records of its DOF share a probe and a function name).  Such a
 * DOF, with no other record in the object, is registered as it is (its
 * addresses made absolute): no scratch, no pass over sites or records,
 * so a 5,000-probe program starts within 2x of its start without DTrace
 * (bench/startup).  Where `final` is not set (a -G without the objects in
 * a program that links an object some other -G was given), the given
 * records are read like the others.
 *
 * Linear: one pass over the records and the sites, with hash tables in a
 * scratch mapping made and unmapped here.  All of it runs only once a
 * helper device was opened (drti_extend_t): without DTrace a program's
 * start-up does none of it.
 * The code is in drti_sites.c; drti_lite.c hands drti_register_dof its
 * two functions, and tests/fuzz/fuzz_sites.c fuzzes them.
 */
#ifndef USDTC_DRTI_SITES_H
#define USDTC_DRTI_SITES_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "dof.h"
#include "drti_reg.h"

#pragma GCC visibility push(hidden)

/* The object drti_lite.c is in: where its site records and segments are. */
typedef struct drti_sites {
	const drti_reg_t *reg;		/* for drti_say */
	uintptr_t bias;			/* the object's load bias */
	const ElfW(Phdr) *phdr;		/* its program headers, as mapped */
	ElfW(Half) phnum;
	const dof_site_rec_t *recs;	/* its site records */
	size_t nrecs;
	const dof_site_rec_t *grecs;	/* and those of the objects a -G was given */
	size_t ngrecs;			/* (DOF_SITES_GIVEN_SECTION): 0 if this DOF holds them */
	int final;			/* -G given the objects: nothing to add but records' sites */
	int pending;			/* a record to read (drti_sites_room) */
	const char *orig;		/* the DOF being registered, where -G put it */
	const int64_t *lists;		/* every -G object's DOF list, PC-relative */
	size_t nlists;
	ElfW(Half) last[2];		/* the segment last found (drti_in_object) */
} drti_sites_t;

/*
 * drti_extend_t's room (drti_proto.h), arg a drti_sites_t: the bytes the
 * copy of dof may need beyond the DOF for the sites of every provider.
 */
size_t drti_sites_room(void *arg, const void *dof);
/*
 * drti_extend_t's add: the copy's addresses made absolute, then the sites
 * in every provider; its new size.
 */
size_t drti_sites_add(void *arg, char *copy, size_t size, size_t cap);

#pragma GCC visibility pop

#endif
