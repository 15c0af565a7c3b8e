/*
 * hosts.c - analysis results of several hosts as one table: each file of
 * a merge (stream.h) has analyses of its own, with its own task model
 * (TIDs repeat across hosts) and trace clock (timestamps are mapped onto
 * the timeline here), and the tables of one name are then put
 * together with a "host" key column, so a thread is host + tid and every
 * shared writer (text, JSON) prints the result as it prints any table.
 * Rankings stay ranked per host (rows host by host): ranking across hosts
 * would need each table's metric, which tables do not carry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>

#include "table/table-int.h"

void strobe_table_free(struct strobe_table *t)
{
	tbl_free(t);
}

int strobe_table_merge_hosts(const struct strobe_table *const *tables, int n,
			     const struct strobe_merge *m, struct strobe_table **out)
{
	const struct strobe_table *first = NULL;
	struct strobe_table *t;
	int i, c;
	size_t r;

	*out = NULL;
	for (i = 0; i < n && !first; i++)
		first = tables[i];
	if (!first)
		return -EINVAL;
	if (first->view == STROBE_VIEW_FREQ)
		return -ENOTSUP;
	for (i = 0; i < n; i++) {
		const struct strobe_table *x = tables[i];

		if (!x)
			continue;
		if (x->nr_cols != first->nr_cols)
			return -EINVAL;
		for (c = 0; c < x->nr_cols; c++)
			if (strcmp(x->cols[c].key, first->cols[c].key) ||
			    x->cols[c].type != first->cols[c].type)
				return -EINVAL;
	}
	t = tbl_new(first->name, first->title, first->view);
	if (!t)
		return -ENOMEM;
	t->unit = first->unit;
	t->lami_class = first->lami_class;
	/* column keys and titles are static or pooled by the analysis: pool
	 * them here so the result outlives the inputs */
	if (tbl_col(t, "host", "Host", STROBE_COL_STR) < 0)
		goto oom;
	for (c = 0; c < first->nr_cols; c++)
		if (tbl_col(t, tbl_str(t, first->cols[c].key),
				  tbl_str(t, first->cols[c].title), first->cols[c].type) < 0)
			goto oom;
	for (i = 0; i < n; i++) {
		const struct strobe_table *x = tables[i];
		const char *host;

		if (!x)
			continue;
		host = tbl_str(t, strobe_merge_host(m, i));
		t->dropped += x->dropped;
		for (r = 0; r < x->nr_rows; r++) {
			const union strobe_value *src = x->cells + r * (size_t)x->nr_cols;
			union strobe_value *v = tbl_row(t);

			if (!v)
				goto oom;
			v[0].s = host;
			for (c = 0; c < x->nr_cols; c++) {
				v[c + 1] = src[c];
				if (x->cols[c].type == STROBE_COL_STR)
					v[c + 1].s = tbl_str(t, src[c].s);
				else if (x->cols[c].type == STROBE_COL_TIMESTAMP && src[c].u)
					v[c + 1].u = strobe_merge_map_ts(m, i, src[c].u);
			}
		}
	}
	*out = t;
	return 0;
oom:
	tbl_free(t);
	return -ENOMEM;
}
