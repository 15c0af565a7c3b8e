/*
 * table.h - result tables and their writers (lib/table/).
 *
 * Every result strobe computes (the analyses, the periods, the SQL
 * loader's summaries, the exporters' aggregates) is a table: a stable
 * name ("syscalls.stats"), a title, a view (top, stats, freq, log), typed
 * columns with stable keys (the JSON keys: "tid", "pid", "comm",
 * "container", "cpu", "syscall", "count", durations in ns ...) and rows of
 * typed cells.  A finished table owns its strings, so it outlives the
 * trace and the task model it came from.
 *
 * The writers turn any table into aligned text (histograms as bcc prints
 * them), JSON or LAMI 1.0 rows (Trace Compass), appending to a struct
 * strobe_buf (strobe.h): every strobe command prints through them, so a
 * column added to a table shows up in every format at once.  See
 * strobe-table(3).
 */
#ifndef STROBE_TABLE_H
#define STROBE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_buf;

enum strobe_col_type {
	STROBE_COL_STR,		/* .s (owned by the table) */
	STROBE_COL_INT,		/* .i, a signed count or id */
	STROBE_COL_DURATION,	/* .u nanoseconds */
	STROBE_COL_TIMESTAMP,	/* .u trace clock (ns) */
	STROBE_COL_BYTES,	/* .u bytes */
	STROBE_COL_PERCENT,	/* .d percent (0..100, more for multi-CPU
				 * groups) */
	STROBE_COL_RATE,	/* .d a count per second */
};

struct strobe_column {
	const char *key;	/* stable JSON key: "tid", "total", ... */
	const char *title;	/* column heading for text */
	enum strobe_col_type type;
};

union strobe_value {
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
};

/*
 * A cell with no value: a figure the input cannot give (strobe top's
 * columns whose events are missing).  Doubles hold NaN, signed integers
 * INT64_MIN, the unsigned ones UINT64_MAX; text writers print "-", JSON
 * null, SQL NULL.
 */
#define STROBE_VALUE_NONE_I INT64_MIN
#define STROBE_VALUE_NONE_U UINT64_MAX
static inline int strobe_value_none(enum strobe_col_type type, const union strobe_value *v)
{
	switch (type) {
	case STROBE_COL_STR:
		return 0;
	case STROBE_COL_INT:
		return v->i == STROBE_VALUE_NONE_I;
	case STROBE_COL_PERCENT:
	case STROBE_COL_RATE:
		return v->d != v->d;
	default:
		return v->u == STROBE_VALUE_NONE_U;
	}
}

enum strobe_view {
	STROBE_VIEW_TOP = 1 << 0,	/* the main ranking (--top N) */
	STROBE_VIEW_STATS = 1 << 1,	/* count/min/avg/max/stddev (--stats) */
	STROBE_VIEW_FREQ = 1 << 2,	/* histograms (--freq): columns lo, hi,
					 * count; lo/hi in the unit the table's
					 * "unit" names */
	STROBE_VIEW_LOG = 1 << 3,	/* one row per occurrence (--log) */
};

struct strobe_table;

const char *strobe_table_name(const struct strobe_table *t);	/* "cputop.threads" */
const char *strobe_table_title(const struct strobe_table *t);
enum strobe_view strobe_table_view(const struct strobe_table *t);
/* For FREQ tables: "usecs" (log2 of microseconds, as bcc), "msecs"
 * (log2 of milliseconds, bcc's -m) or "nsecs" (linear buckets of
 * nanoseconds); "" otherwise. */
const char *strobe_table_unit(const struct strobe_table *t);
int strobe_table_nr_columns(const struct strobe_table *t);
const struct strobe_column *strobe_table_column(const struct strobe_table *t, int i);
size_t strobe_table_nr_rows(const struct strobe_table *t);
/* Row r: strobe_table_nr_columns() values in column order. */
const union strobe_value *strobe_table_row(const struct strobe_table *t, size_t r);
/* Measurements dropped because events were lost inside them (never
 * counted as a wrong value). */
uint64_t strobe_table_dropped(const struct strobe_table *t);
/*
 * The group a per-group table belongs to (a --freq histogram of
 * syscalls, schedlat or io): the key columns and values of its group
 * under the grouping ("tid", "pid", "comm", "container" for threads;
 * "container" alone for containers ...), then what the histogram is of
 * ("syscall").  Other tables have none (0; label NULL).
 */
int strobe_table_nr_labels(const struct strobe_table *t);
const struct strobe_column *strobe_table_label_column(const struct strobe_table *t, int i);
const union strobe_value *strobe_table_label(const struct strobe_table *t, int i);

/* ---- writers -------------------------------------------------------- */

/*
 * Append table t as aligned text: a title line, a header and one line per
 * row; durations in microseconds with three decimals, percentages with
 * two.  FREQ tables print as bcc's log2 histograms:
 *
 *      usecs               : count     distribution
 *          0 -> 1          : 0        |                                        |
 *          2 -> 3          : 12       |****************************************|
 *
 * Returns 0 or -ENOMEM.
 */
int strobe_table_write_text(const struct strobe_table *t, struct strobe_buf *b);
/* One log row as one text line (columns separated by two spaces). */
int strobe_table_write_text_row(const struct strobe_table *t,
				const union strobe_value *row, struct strobe_buf *b);
/* The header line that goes above text log rows. */
int strobe_table_write_text_header(const struct strobe_table *t, struct strobe_buf *b);

/*
 * Append t as one JSON object and a newline:
 *   {"table":"syscalls.stats","title":"...","view":"stats","dropped":0,
 *    "rows":[{"tid":12,"comm":"x","syscall":"read","count":3,...},...]}
 * Durations and timestamps are integers (ns), percentages numbers.
 * FREQ tables also have "unit", and those of a group its labels as
 * "group":{"tid":12,"comm":"x","syscall":"read"} (strobe_table_label).
 * Returns 0 or -ENOMEM.
 */
int strobe_table_write_json(const struct strobe_table *t, struct strobe_buf *b);
/* One row as a JSON object with a "table" key, and a newline (--log). */
int strobe_table_write_json_row(const struct strobe_table *t,
				const union strobe_value *row, struct strobe_buf *b);

/*
 * One row as a LAMI 1.0 data array, [{"class":...,"value":...},...],
 * nothing else (the analyses' LAMI results, analysis.h, are made of
 * these).  Returns 0 or -ENOMEM.
 */
int strobe_lami_write_row(const struct strobe_table *t, const union strobe_value *row,
			  struct strobe_buf *b);

/* ---- several hosts (lib/table/hosts.c) --------------------------- */

struct strobe_merge;
/*
 * One table from the tables of the same name of several hosts' analyses:
 * tables[i] (NULL: none) is the result of source i of merge m (stream.h;
 * each file's analyses ran in that file's own clock).  The result has a "host" column
 * (strobe_merge_host) first, then the columns of the first table given,
 * and the rows host by host, each host's rows in their own order (a
 * ranking is ranked per host); timestamp columns are mapped onto the
 * merge's timeline (strobe_merge_map_ts).  -EINVAL when the tables'
 * columns differ or none is given, -ENOTSUP for FREQ tables (histograms
 * stay per host), -ENOMEM.  Free the result with strobe_table_free().
 */
int strobe_table_merge_hosts(const struct strobe_table *const *tables, int n,
			     const struct strobe_merge *m, struct strobe_table **out);
void strobe_table_free(struct strobe_table *t);	/* NULL ok */

#ifdef __cplusplus
}
#endif

#endif
