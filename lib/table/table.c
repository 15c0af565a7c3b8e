/*
 * table.c - the result table object: what the analyses, the periods and
 * the sinks fill, and the public read accessors (strobe_table_*).
 *
 * A table is a flat array of cells (nr_rows * nr_cols unions) with its own
 * string pool, so a finished table is self-contained: it outlives the
 * model and the trace it came from, and every writer reads it through the
 * accessors.  Nothing here runs per event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "table/table-int.h"

struct strobe_table *tbl_new(const char *name, const char *title,
				   enum strobe_view view)
{
	struct strobe_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->name = strdup(name);
	t->title = strdup(title);
	t->view = view;
	t->unit = "";
	t->lami_class = NULL;
	if (!t->name || !t->title) {
		tbl_free(t);
		return NULL;
	}
	return t;
}

void tbl_free(struct strobe_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_strs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->cells);
	free(t->cols);
	free(t->name);
	free(t->title);
	free(t);
}

void tbl_clear(struct strobe_table *t)
{
	size_t i;

	for (i = 0; i < t->nr_strs; i++)
		free(t->strs[i]);
	t->nr_strs = 0;
	t->nr_rows = 0;
	t->dropped = 0;
	t->nr_labels = 0;
}

int tbl_label(struct strobe_table *t, const char *key, const char *title,
	      enum strobe_col_type type, union strobe_value v)
{
	if (t->nr_labels >= TBL_MAX_LABELS)
		return -ENOSPC;
	if (type == STROBE_COL_STR)
		v.s = tbl_str(t, v.s ? v.s : "");
	t->label_cols[t->nr_labels] = (struct strobe_column){ key, title, type };
	t->label_vals[t->nr_labels++] = v;
	return 0;
}

int strobe_table_nr_labels(const struct strobe_table *t)
{
	return t ? t->nr_labels : 0;
}

const struct strobe_column *strobe_table_label_column(const struct strobe_table *t, int i)
{
	return t && i >= 0 && i < t->nr_labels ? &t->label_cols[i] : NULL;
}

const union strobe_value *strobe_table_label(const struct strobe_table *t, int i)
{
	return t && i >= 0 && i < t->nr_labels ? &t->label_vals[i] : NULL;
}

int tbl_col(struct strobe_table *t, const char *key, const char *title,
		  enum strobe_col_type type)
{
	struct strobe_column *c = realloc(t->cols, (size_t)(t->nr_cols + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	t->cols = c;
	c[t->nr_cols].key = key;
	c[t->nr_cols].title = title;
	c[t->nr_cols].type = type;
	t->nr_cols++;
	return 0;
}

union strobe_value *tbl_row(struct strobe_table *t)
{
	union strobe_value *v;

	if (t->nr_rows == t->cap_rows) {
		size_t ncap = t->cap_rows ? t->cap_rows * 2 : 16;

		v = realloc(t->cells, ncap * (size_t)t->nr_cols * sizeof(*v));
		if (!v)
			return NULL;
		t->cells = v;
		t->cap_rows = ncap;
	}
	v = t->cells + t->nr_rows++ * (size_t)t->nr_cols;
	memset(v, 0, (size_t)t->nr_cols * sizeof(*v));
	return v;
}

const char *tbl_str(struct strobe_table *t, const char *s)
{
	char *d;

	if (!s)
		return "";
	if (t->nr_strs == t->cap_strs) {
		size_t ncap = t->cap_strs ? t->cap_strs * 2 : 16;
		char **n = realloc(t->strs, ncap * sizeof(*n));

		if (!n)
			return "";
		t->strs = n;
		t->cap_strs = ncap;
	}
	d = strdup(s);
	if (!d)
		return "";
	t->strs[t->nr_strs++] = d;
	return d;
}

const char *strobe_table_name(const struct strobe_table *t) { return t->name; }
const char *strobe_table_title(const struct strobe_table *t) { return t->title; }
enum strobe_view strobe_table_view(const struct strobe_table *t) { return t->view; }
const char *strobe_table_unit(const struct strobe_table *t) { return t->unit ? t->unit : ""; }
int strobe_table_nr_columns(const struct strobe_table *t) { return t->nr_cols; }
size_t strobe_table_nr_rows(const struct strobe_table *t) { return t->nr_rows; }
uint64_t strobe_table_dropped(const struct strobe_table *t) { return t->dropped; }

const struct strobe_column *strobe_table_column(const struct strobe_table *t, int i)
{
	return i >= 0 && i < t->nr_cols ? &t->cols[i] : NULL;
}

const union strobe_value *strobe_table_row(const struct strobe_table *t, size_t r)
{
	return r < t->nr_rows ? t->cells + r * (size_t)t->nr_cols : NULL;
}

const char *tbl_lami_class(const struct strobe_table *t)
{
	return t->lami_class ? t->lami_class : t->name;
}
