/*
 * tables.c - an analysis' result tables (declared in init, filled in
 * finish; the table object itself is lib/table/) and the ranking helpers
 * (sort by a metric, cut to --top).  Nothing here runs per event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis-int.h"

struct strobe_table *ana_add_table(struct ana *a, const char *name, const char *title,
				   enum strobe_view view)
{
	struct strobe_table **n, *t = tbl_new(name, title, view);

	if (!t)
		return NULL;
	n = realloc(a->tables, (size_t)(a->nr_tables + 1) * sizeof(*n));
	if (!n) {
		tbl_free(t);
		return NULL;
	}
	a->tables = n;
	a->tables[a->nr_tables++] = t;
	return t;
}

/* ---- ranking ----------------------------------------------------------- */

static int rank_cmp(const void *x, const void *y)
{
	const struct ana_rank *a = x, *b = y;

	if (a->metric != b->metric)
		return a->metric > b->metric ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

void ana_rank_sort(struct ana_rank *r, size_t n)
{
	if (n > 1)
		qsort(r, n, sizeof(*r), rank_cmp);
}

int ana_rank_map(const struct ana_map *m, size_t metric_off, struct ana_rank **out,
		 size_t *n)
{
	struct ana_rank *r = calloc(m->n + 1, sizeof(*r));
	size_t pos = 0, i = 0;
	uint64_t key;
	void *v;

	if (!r)
		return -ENOMEM;
	while ((v = ana_map_next(m, &pos, &key))) {
		memcpy(&r[i].metric, (const char *)v + metric_off, sizeof(r[i].metric));
		r[i].key = key;
		r[i++].item = v;
	}
	ana_rank_sort(r, i);
	*out = r;
	*n = i;
	return 0;
}

size_t ana_top_n(const struct ana_core *c, size_t n)
{
	return c->opts.top > 0 && (size_t)c->opts.top < n ? (size_t)c->opts.top : n;
}
