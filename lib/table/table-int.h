/*
 * table-int.h - the result table object (lib/table/), for the code that
 * builds tables: the analyses, the periods, the sinks' summaries.  Users
 * of finished tables read them through the public accessors and writers
 * of strobe/table.h only.
 */
#ifndef STROBE_TABLE_INT_H
#define STROBE_TABLE_INT_H

#include <stdbool.h>

#include "strobe/table.h"
#include "util/err.h"

struct strobe_table {
	char *name;
	char *title;
	enum strobe_view view;
	const char *unit;
	int nr_cols;
	struct strobe_column *cols;	/* keys/titles static or pooled */
	union strobe_value *cells;	/* nr_rows * nr_cols */
	size_t nr_rows, cap_rows;
	char **strs;			/* string pool */
	size_t nr_strs, cap_strs;
	uint64_t dropped;
	const char *lami_class;		/* LAMI table class, NULL: the name */
	/* the group of a per-group table (strobe_table_label): keys and
	 * titles static, strings pooled */
#define TBL_MAX_LABELS 6
	int nr_labels;
	struct strobe_column label_cols[TBL_MAX_LABELS];
	union strobe_value label_vals[TBL_MAX_LABELS];
	bool schema_only;		/* declares a class (per-group histograms
					 * follow it); never a result */
};

struct strobe_table *tbl_new(const char *name, const char *title,
				   enum strobe_view view) STROBE_HIDDEN;
void tbl_free(struct strobe_table *t) STROBE_HIDDEN;
/* The text of one cell as the table writers print it ("-" for no value):
 * buf (size bytes) or, for a string cell, the string itself. */
const char *tbl_cell_text(const struct strobe_column *c, const union strobe_value *v,
			  char *buf, size_t size) STROBE_HIDDEN;
/* Drop every row and pooled string (capacity kept): the table as it was
 * declared, to be filled again.  Not for tables whose column keys or
 * titles are pooled (strobe_table_merge_hosts' tables). */
void tbl_clear(struct strobe_table *t) STROBE_HIDDEN;
/* Add a column (key and title must be static strings). 0 or -ENOMEM. */
int tbl_col(struct strobe_table *t, const char *key, const char *title,
		  enum strobe_col_type type) STROBE_HIDDEN;
/* Add a label (strobe_table_label; key and title static, a string value
 * is copied into the pool).  0, or -ENOSPC past TBL_MAX_LABELS. */
int tbl_label(struct strobe_table *t, const char *key, const char *title,
	      enum strobe_col_type type, union strobe_value v) STROBE_HIDDEN;
/* A new zeroed row, NULL on ENOMEM. */
union strobe_value *tbl_row(struct strobe_table *t) STROBE_HIDDEN;
/* A copy of s owned by t ("" on ENOMEM). */
const char *tbl_str(struct strobe_table *t, const char *s) STROBE_HIDDEN;

/* The LAMI table class of t: its lami_class, else its name. */
const char *tbl_lami_class(const struct strobe_table *t) STROBE_HIDDEN;


/* For the writers of whole documents (lib/analyses/results.c): a JSON
 * string, a LAMI column class, a LAMI cell.  lib/table/write.c. */
struct trace_seq;
void tbl_json_str(struct trace_seq *s, const char *str) STROBE_HIDDEN;
const char *tbl_lami_col_class(const struct strobe_table *t,
			       const struct strobe_column *c) STROBE_HIDDEN;
void tbl_lami_cell(struct trace_seq *s, const struct strobe_table *t,
		   const struct strobe_column *c, const union strobe_value *v) STROBE_HIDDEN;

#endif
