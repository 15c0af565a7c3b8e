/*
 * results.c - an analysis' results as one document: LAMI 1.0 (the
 * version, the metadata of a set of analyses, the results of a finished
 * analysis with its log rows) and strobe's JSON (every table, then a
 * summary line with the window, the notes and the input's diagnostics),
 * for one file or for several hosts' analyses on one timeline (a host
 * key; tables merged with strobe_table_merge_hosts).  The tables
 * themselves go through lib/table/'s writers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/trace-seq.h>

#include "analyses/analysis-int.h"
#include "util/buf.h"

static bool seq_ok(struct trace_seq *s)
{
	return s->state == TRACE_SEQ__GOOD;
}

int strobe_lami_write_version(struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	trace_seq_puts(s, "{\"major\":1,\"minor\":0}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* Is name one of the comma-separated names (not a part of one: "io" is
 * not in "periods")? */
static bool name_listed(const char *names, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = names; (p = strstr(p, name)); p += n)
		if ((p == names || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* The metadata; hosts: the tables of several hosts (a host column first,
 * histograms per host as they are). */
static int write_metadata(const char *names, const struct strobe_analysis_opts *opts,
			  bool hosts, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	struct strobe_analysis_opts o = { 0 };
	struct strobe_analysis *a;
	int maj = 0, min = 0, pat = 0, i, j, n, first = 1;
	char **seen;
	int nr_seen = 0;

	if (opts)
		o = *opts;
	o.log = NULL;
	if (strobe_analysis_new(names, &o, &a, NULL) < 0)
		return -EINVAL;
	n = strobe_analysis_nr_tables(a);
	seen = calloc((size_t)(n ? n : 1), sizeof(*seen));
	if (!seen) {
		strobe_analysis_free(a);
		return -ENOMEM;
	}
	sscanf(STROBE_VERSION, "%d.%d.%d", &maj, &min, &pat);
	trace_seq_printf(s, "{\"mi-version\":{\"major\":1,\"minor\":0},"
			 "\"version\":{\"major\":%d,\"minor\":%d,\"patch\":%d},"
			 "\"title\":", maj, min, pat);
	{
		char title[256];

		snprintf(title, sizeof(title), "strobe %s", names);
		tbl_json_str(s, title);
	}
	trace_seq_puts(s, ",\"description\":");
	tbl_json_str(s, "strobe analyses of trace-cmd trace.dat files (see strobe-analyze(1))");
	trace_seq_puts(s, ",\"authors\":[\"strobe\"],\"tags\":[\"strobe\"");
	for (i = 0; strobe_analysis_names()[i]; i++)
		if (name_listed(names, strobe_analysis_names()[i])) {
			trace_seq_putc(s, ',');
			tbl_json_str(s, strobe_analysis_names()[i]);
		}
	trace_seq_puts(s, "],\"table-classes\":{");
	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);

		for (j = 0; j < nr_seen && strcmp(seen[j], tbl_lami_class(t)); j++)
			;
		if (j < nr_seen)
			continue;
		seen[nr_seen++] = (char *)tbl_lami_class(t);
		if (!first)
			trace_seq_putc(s, ',');
		first = 0;
		tbl_json_str(s, tbl_lami_class(t));
		trace_seq_puts(s, ":{\"title\":");
		tbl_json_str(s, t->title);
		trace_seq_puts(s, ",\"column-descriptions\":[");
		if (hosts && t->view != STROBE_VIEW_FREQ)
			trace_seq_printf(s, "{\"title\":\"Host\",\"class\":\"string\"}%s",
					 t->nr_cols ? "," : "");
		for (j = 0; j < t->nr_cols; j++) {
			trace_seq_printf(s, "%s{\"title\":", j ? "," : "");
			tbl_json_str(s, t->cols[j].title);
			trace_seq_printf(s, ",\"class\":\"%s\"}", tbl_lami_col_class(t, &t->cols[j]));
		}
		trace_seq_puts(s, "]}");
	}
	trace_seq_puts(s, "}}\n");
	free(seen);
	strobe_analysis_free(a);
	return seq_ok(s) ? 0 : -ENOMEM;
}

int strobe_lami_write_metadata(const char *names, const struct strobe_analysis_opts *opts,
			       struct strobe_buf *b)
{
	return write_metadata(names, opts, false, b);
}

int strobe_lami_write_metadata_hosts(const char *names, const struct strobe_analysis_opts *opts,
				     struct strobe_buf *b)
{
	return write_metadata(names, opts, true, b);
}

int strobe_lami_write_results(const struct strobe_analysis *a, struct strobe_buf *b)
{
	return strobe_lami_write_results_logs(a, NULL, NULL, b);
}

/* One result table t of the time range [begin, end]; title_host: a
 * histogram of that host (several hosts: histograms are not merged). */
static int write_result(struct strobe_buf *b, const struct strobe_table *t, uint64_t begin,
			uint64_t end, const char *title_host,
			int (*log_rows)(void *arg, const struct strobe_table *t,
					struct strobe_buf *b),
			void *arg)
{
	struct trace_seq *s = strobe_buf_seq(b);
	size_t r;
	int j, ret;

	trace_seq_printf(s, "{\"time-range\":{\"class\":\"time-range\",\"begin\":%" PRIu64
			 ",\"end\":%" PRIu64 "},\"class\":", begin, end);
	if (t->view == STROBE_VIEW_FREQ) {
		trace_seq_puts(s, "{\"inherit\":");
		tbl_json_str(s, tbl_lami_class(t));
		trace_seq_puts(s, ",\"title\":");
		if (title_host) {
			size_t len = strlen(t->title) + strlen(title_host) + 16;
			char *title = malloc(len);

			if (!title)
				return -ENOMEM;
			snprintf(title, len, "%s (host %s)", t->title, title_host);
			tbl_json_str(s, title);
			free(title);
		} else {
			tbl_json_str(s, t->title);
		}
		trace_seq_putc(s, '}');
	} else {
		tbl_json_str(s, tbl_lami_class(t));
	}
	trace_seq_puts(s, ",\"data\":[");
	if (t->view == STROBE_VIEW_LOG && log_rows) {
		ret = log_rows(arg, t, b);
		if (ret < 0)
			return ret;
	}
	for (r = 0; r < t->nr_rows; r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		trace_seq_puts(s, r ? ",[" : "[");
		for (j = 0; j < t->nr_cols; j++) {
			if (j)
				trace_seq_putc(s, ',');
			tbl_lami_cell(s, t, &t->cols[j], &v[j]);
		}
		trace_seq_putc(s, ']');
	}
	trace_seq_puts(s, "]}");
	return 0;
}

int strobe_lami_write_results_logs(const struct strobe_analysis *a,
				   int (*log_rows)(void *arg, const struct strobe_table *t,
						   struct strobe_buf *b),
				   void *arg, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	uint64_t begin, end;
	int i, n = strobe_analysis_nr_tables(a), first = 1, ret;

	strobe_analysis_window(a, &begin, &end);
	trace_seq_puts(s, "{\"results\":[");
	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);

		if ((t->view == STROBE_VIEW_LOG && !log_rows) || t->schema_only)
			continue;
		if (!first)
			trace_seq_putc(s, ',');
		first = 0;
		ret = write_result(b, t, begin, end, NULL, log_rows, arg);
		if (ret < 0)
			return ret;
	}
	trace_seq_puts(s, "]}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* Table `name` of analysis a, NULL if it has none. */
static const struct strobe_table *table_named(const struct strobe_analysis *a,
					      const char *name)
{
	int i;

	for (i = 0; i < strobe_analysis_nr_tables(a); i++)
		if (!strcmp(strobe_analysis_table(a, i)->name, name))
			return strobe_analysis_table(a, i);
	return NULL;
}

/* Has a table of this name come before (an earlier host, or earlier in
 * host i's own list)? */
static bool name_seen(const struct strobe_analysis *const *an, int i, int j)
{
	const char *name = strobe_analysis_table(an[i], j)->name;
	int k, x;

	for (k = 0; k <= i; k++)
		for (x = 0; x < (k < i ? strobe_analysis_nr_tables(an[k]) : j); x++)
			if (!strcmp(strobe_analysis_table(an[k], x)->name, name))
				return true;
	return false;
}

int strobe_lami_write_results_merged(const struct strobe_analysis *const *an, int n,
				     const struct strobe_merge *m,
				     int (*log_rows)(void *arg, const struct strobe_table *t,
						     struct strobe_buf *b),
				     void *arg, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	const struct strobe_table **col;
	uint64_t begin = UINT64_MAX, end = 0;
	int i, j, k, first = 1, ret = 0;

	if (n < 1)
		return -EINVAL;
	col = calloc((size_t)n, sizeof(*col));
	if (!col)
		return -ENOMEM;
	for (i = 0; i < n; i++) {	/* the union of the hosts' windows */
		uint64_t bb, ee;

		strobe_analysis_window(an[i], &bb, &ee);
		bb = strobe_merge_map_ts(m, i, bb);
		ee = strobe_merge_map_ts(m, i, ee);
		begin = bb < begin ? bb : begin;
		end = ee > end ? ee : end;
	}
	trace_seq_puts(s, "{\"results\":[");
	for (i = 0; i < n && ret == 0; i++)
		for (j = 0; j < strobe_analysis_nr_tables(an[i]) && ret == 0; j++) {
			const struct strobe_table *t = strobe_analysis_table(an[i], j);
			struct strobe_table *merged = NULL;

			if ((t->view == STROBE_VIEW_LOG && !log_rows) || t->schema_only ||
			    name_seen(an, i, j))
				continue;
			for (k = 0; k < n; k++)
				col[k] = table_named(an[k], t->name);
			ret = strobe_table_merge_hosts(col, n, m, &merged);
			if (ret == 0) {
				if (!first)
					trace_seq_putc(s, ',');
				first = 0;
				ret = write_result(b, merged, begin, end, NULL, log_rows, arg);
				strobe_table_free(merged);
				continue;
			}
			if (ret == -ENOMEM)
				break;
			ret = 0;	/* histograms, differing columns: per host */
			for (k = 0; k < n && ret == 0; k++) {
				if (!col[k] || col[k]->view == STROBE_VIEW_LOG)
					continue;	/* (the caller's rows have a host) */
				if (!first)
					trace_seq_putc(s, ',');
				first = 0;
				ret = write_result(b, col[k], begin, end, strobe_merge_host(m, k),
						   NULL, NULL);
			}
		}
	free(col);
	if (ret < 0)
		return ret;
	trace_seq_puts(s, "]}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* The summary line; host NULL: none (one file). */
static int write_summary(const struct strobe_analysis *a, const struct strobe_tracefile *tf,
			 const char *host, uint64_t begin, uint64_t end, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	int i;

	trace_seq_puts(s, "{\"summary\":{\"analyses\":\"");
	for (i = 0; ana_name_at(a, i); i++)
		trace_seq_printf(s, "%s%s", i ? "," : "", ana_name_at(a, i));
	trace_seq_putc(s, '"');
	if (host) {
		trace_seq_puts(s, ",\"host\":");
		tbl_json_str(s, host);
	}
	trace_seq_printf(s, ",\"begin\":%" PRIu64 ",\"end\":%" PRIu64 ",\"notes\":[",
			 begin, end);
	for (i = 0; i < strobe_analysis_nr_notes(a); i++) {
		if (i)
			trace_seq_putc(s, ',');
		tbl_json_str(s, strobe_analysis_note(a, i));
	}
	trace_seq_puts(s, "],\"diagnostics\":");
	strobe_tracefile_write_json_diags(tf, b);
	trace_seq_puts(s, "}}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}

int strobe_analysis_write_json_summary(const struct strobe_analysis *a,
				       const struct strobe_tracefile *tf,
				       struct strobe_buf *b)
{
	uint64_t begin, end;

	strobe_analysis_window(a, &begin, &end);
	return write_summary(a, tf, NULL, begin, end, b);
}

int strobe_analysis_write_json_summary_merged(const struct strobe_analysis *a,
					      const struct strobe_tracefile *tf,
					      const struct strobe_merge *m, int source,
					      struct strobe_buf *b)
{
	uint64_t begin, end;

	strobe_analysis_window(a, &begin, &end);
	return write_summary(a, tf, strobe_merge_host(m, source),
			     strobe_merge_map_ts(m, source, begin),
			     strobe_merge_map_ts(m, source, end), b);
}
