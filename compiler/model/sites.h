/*
 * sites.h - where each probe fires, kept apart from the model.
 *
 * The model says what a provider definition declares.  Where a program's
 * probes fire is a result of planning the -G object (the probe units'
 * slots, the call sites rewrite_plan.c found), so the -G stage collects it in a
 * site table that its writers take (dof_generate_sites, units_add_dof_sites,
 * the stapsdt notes) and never appends it to the model.  (libusdt, which
 * builds its model at run time, records its sites in the model itself:
 * mdl_probe_t.sites.)
 */
#ifndef USDTC_SITES_H
#define USDTC_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct site_list {
	mdl_site_t *v;		/* in the order they were added */
	size_t n, cap;
} site_list_t;

/* One list per probe of a model, found by the probe's address. */
typedef struct site_table {
	const mdl_probe_t **probes;	/* every probe of the model, sorted by address */
	site_list_t *lists;		/* lists[i]: the sites of probes[i] */
	size_t n;
} site_table_t;

/* An empty list for every probe of m.  Returns 0, or -1 out of memory. */
int site_table_init(site_table_t *s, const mdl_model_t *m);
void site_table_free(site_table_t *s);

/*
 * One more site of pr (a probe of the model given to site_table_init):
 * func + offset, relocated against symbol (NULL: func), address not known.
 * Returns 0, or -1 out of memory (or pr not in the table).
 */
int site_table_add(site_table_t *s, const mdl_probe_t *pr, const char *func,
    const char *symbol, uint32_t offset, bool is_enabled);

/*
 * Whether some probe has sites in two functions of one name (two static
 * functions, each through its own symbol): the DOF then holds two records
 * of that probe and function name, which drti_lite makes one (dof.h's
 * DOF_FINAL_SYMBOL).  1 or 0; -1 out of memory.  n log n.
 */
int site_table_repeats_function(const site_table_t *s);

/* The sites of pr, or NULL if pr is not in the table. */
const site_list_t *site_table_of(const site_table_t *s, const mdl_probe_t *pr);

#endif
