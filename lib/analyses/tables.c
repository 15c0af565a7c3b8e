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

/* ---- top-N: a bounded min-heap ------------------------------------------- */

static void *topn_at(const struct ana_topn *h, int i)
{
	return (char *)h->v + (size_t)i * h->size;
}

static uint64_t topn_key(const struct ana_topn *h, int i)
{
	uint64_t k;

	memcpy(&k, (char *)topn_at(h, i) + h->key_off, sizeof(k));
	return k;
}

static void topn_swap(struct ana_topn *h, int i, int j)
{
	void *t = topn_at(h, h->max);	/* the scratch item */

	memcpy(t, topn_at(h, i), h->size);
	memcpy(topn_at(h, i), topn_at(h, j), h->size);
	memcpy(topn_at(h, j), t, h->size);
}

static void topn_down(struct ana_topn *h, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && topn_key(h, l) < topn_key(h, m))
			m = l;
		if (r < h->n && topn_key(h, r) < topn_key(h, m))
			m = r;
		if (m == i)
			return;
		topn_swap(h, i, m);
		i = m;
	}
}

int ana_topn_init(struct ana_topn *h, int max, size_t size, size_t key_off)
{
	h->v = calloc((size_t)max + 1, size);
	h->size = size;
	h->key_off = key_off;
	h->n = 0;
	h->max = max;
	return h->v ? 0 : -ENOMEM;
}

void ana_topn_free(struct ana_topn *h)
{
	free(h->v);
	h->v = NULL;
	h->n = 0;
}

void *ana_topn_slot(struct ana_topn *h, uint64_t key, bool *evict)
{
	*evict = false;
	if (!h->v || h->max <= 0)
		return NULL;
	if (h->n < h->max)
		return topn_at(h, h->n);
	if (key <= topn_key(h, 0))
		return NULL;
	*evict = true;
	return topn_at(h, 0);
}

void ana_topn_push(struct ana_topn *h, bool evict)
{
	int i;

	if (evict) {
		topn_down(h, 0);
		return;
	}
	for (i = h->n++; i > 0 && topn_key(h, (i - 1) / 2) > topn_key(h, i); i = (i - 1) / 2)
		topn_swap(h, i, (i - 1) / 2);
}

void ana_topn_cancel(struct ana_topn *h, bool evict)
{
	if (!evict)
		return;
	/* the root's item is gone: the last one takes its place */
	if (--h->n > 0) {
		memcpy(topn_at(h, 0), topn_at(h, h->n), h->size);
		topn_down(h, 0);
	}
}
