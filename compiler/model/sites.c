/*
 * sites.c - the site table of sites.h: per probe, the places it fires.
 *
 * Probes are found by address with a binary search over the model's probes
 * sorted once, so adding n sites to a model of p probes costs
 * O((n + p) log p), whatever the mix (a probe called from 40,000 places,
 * or 100,000 probes called once each).  Lists grow by doubling.
 */
#include <stdlib.h>
#include <string.h>

#include "sites.h"

static int
cmp_probe_addr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const mdl_probe_t *const *)a;
	uintptr_t y = (uintptr_t)*(const mdl_probe_t *const *)b;

	return x < y ? -1 : x > y;
}

int
site_table_init(site_table_t *s, const mdl_model_t *m)
{
	size_t n = 0, k = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < m->nproviders; i++)
		n += m->providers[i]->nprobes;
	s->probes = calloc(n + 1, sizeof(*s->probes));
	s->lists = calloc(n + 1, sizeof(*s->lists));
	if (s->probes == NULL || s->lists == NULL) {
		site_table_free(s);
		return -1;
	}
	for (size_t i = 0; i < m->nproviders; i++)
		for (size_t j = 0; j < m->providers[i]->nprobes; j++)
			s->probes[k++] = m->providers[i]->probes[j];
	qsort(s->probes, n, sizeof(*s->probes), cmp_probe_addr);
	s->n = n;
	return 0;
}

void
site_table_free(site_table_t *s)
{
	for (size_t i = 0; s->lists != NULL && i < s->n; i++) {
		const mdl_site_t *v = s->lists[i].v;

		for (size_t j = 0; j < s->lists[i].n; j++) {
			if (v[j].symbol != v[j].func)
				free(v[j].symbol);
			if (j == 0 || v[j].func != v[j - 1].func)	/* a run shares one */
				free(v[j].func);
		}
		free(s->lists[i].v);
	}
	free(s->lists);
	free(s->probes);
	memset(s, 0, sizeof(*s));
}

static site_list_t *
list_of(const site_table_t *s, const mdl_probe_t *pr)
{
	const mdl_probe_t **at;

	if (s->n == 0)
		return NULL;
	at = bsearch(&pr, s->probes, s->n, sizeof(*s->probes), cmp_probe_addr);
	return at == NULL ? NULL : &s->lists[at - s->probes];
}

const site_list_t *
site_table_of(const site_table_t *s, const mdl_probe_t *pr)
{
	return list_of(s, pr);
}

int
site_table_add(site_table_t *s, const mdl_probe_t *pr, const char *func,
    const char *symbol, uint32_t offset, bool is_enabled)
{
	site_list_t *l = list_of(s, pr);
	mdl_site_t site = { NULL, NULL, 0, offset, is_enabled };

	if (l == NULL)
		return -1;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 2;	/* a unit's probe and is-enabled slots */
		mdl_site_t *grown = realloc(l->v, cap * sizeof(*grown));

		if (grown == NULL)
			return -1;
		l->v = grown;
		l->cap = cap;
	}
	/*
	 * A unit's site is its own symbol: one string for both, and for the
	 * unit's other slot, added next (freed once: site_table_free).
	 */
	if (symbol != NULL && strcmp(symbol, func) == 0)
		symbol = NULL;
	if (symbol == NULL && l->n > 0 && l->v[l->n - 1].symbol == l->v[l->n - 1].func &&
	    strcmp(l->v[l->n - 1].func, func) == 0) {
		site.func = site.symbol = l->v[l->n - 1].func;
		l->v[l->n++] = site;
		return 0;
	}
	if ((site.func = strdup(func)) == NULL)
		return -1;
	if (symbol == NULL)
		site.symbol = site.func;
	else if ((site.symbol = strdup(symbol)) == NULL) {
		free(site.func);
		return -1;
	}
	l->v[l->n++] = site;
	return 0;
}

/* qsort: sites by function name, then symbol. */
static int
cmp_func_symbol(const void *a, const void *b)
{
	const mdl_site_t *x = *(const mdl_site_t *const *)a, *y = *(const mdl_site_t *const *)b;
	int c = strcmp(x->func, y->func);

	return c != 0 ? c : strcmp(x->symbol, y->symbol);
}

/* Whether one list names one function through two symbols; -1 out of memory. */
static int
list_repeats_function(const site_list_t *l)
{
	const mdl_site_t **v;
	int rep = 0;

	if (l->n < 2)
		return 0;
	if ((v = malloc(l->n * sizeof(*v))) == NULL)
		return -1;
	for (size_t i = 0; i < l->n; i++)
		v[i] = &l->v[i];
	qsort(v, l->n, sizeof(*v), cmp_func_symbol);
	for (size_t i = 1; i < l->n && !rep; i++)
		rep = strcmp(v[i - 1]->func, v[i]->func) == 0 &&
		    strcmp(v[i - 1]->symbol, v[i]->symbol) != 0;
	free(v);
	return rep;
}

int
site_table_repeats_function(const site_table_t *s)
{
	for (size_t i = 0; i < s->n; i++) {
		int rep = list_repeats_function(&s->lists[i]);

		if (rep != 0)
			return rep;
	}
	return 0;
}
