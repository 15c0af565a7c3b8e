/*
 * table.c - the one writer of result tables: aligned text, log2 and
 * linear histograms as bcc prints them, JSON, and LAMI 1.0 for Trace
 * Compass.  Every command that prints analysis results goes through here,
 * so a column added to a table shows up in every format at once.
 *
 * Everything appends to a caller's trace_seq; nothing here does I/O.
 * Text tables are laid out in two passes (widths, then lines); cells are
 * formatted into a small buffer each time, which is cheap for the few
 * hundred rows a table holds.  Log rows (one per occurrence, possibly
 * millions) have their own one-pass writers with fixed widths.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/trace-seq.h>

#include "analyses/analysis-int.h"
#include "output/output-int.h"

/* End a text line: no trailing blanks (an empty last cell leaves some). */
static void end_line(struct trace_seq *s)
{
	while (s->len && s->buffer[s->len - 1] == ' ')
		s->len--;
	trace_seq_putc(s, '\n');
}

static bool seq_ok(struct trace_seq *s)
{
	return s->state == TRACE_SEQ__GOOD;
}

/* Text of one cell into buf. */
static const char *cell_text(const struct strobe_column *c, const union strobe_value *v,
			     char *buf, size_t size)
{
	switch (c->type) {
	case STROBE_COL_STR:
		return v->s ? v->s : "";
	case STROBE_COL_INT:
		snprintf(buf, size, "%" PRId64, v->i);
		break;
	case STROBE_COL_DURATION:
		snprintf(buf, size, "%" PRIu64 ".%03" PRIu64, v->u / 1000, v->u % 1000);
		break;
	case STROBE_COL_TIMESTAMP:
		snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, v->u / 1000000000, v->u % 1000000000);
		break;
	case STROBE_COL_BYTES:
		snprintf(buf, size, "%" PRIu64, v->u);
		break;
	case STROBE_COL_PERCENT:
		snprintf(buf, size, "%.2f", v->d);
		break;
	}
	return buf;
}

static bool right_aligned(const struct strobe_column *c)
{
	return c->type != STROBE_COL_STR;
}

static void stars(struct trace_seq *s, uint64_t val, uint64_t max, int width)
{
	int i, n = max ? (int)(val * (uint64_t)width / max) : 0;
	bool more = n > width;

	if (more)
		n = width;
	for (i = 0; i < n; i++)
		trace_seq_putc(s, '*');
	if (more)
		trace_seq_putc(s, '+');
	for (; i < width; i++)
		trace_seq_putc(s, ' ');
}

/* bcc's histogram layout: "lo -> hi : count |****|" */
static int write_hist(const struct strobe_table *t, struct trace_seq *s)
{
	uint64_t max = 0;
	int64_t top = 0;
	size_t r;
	int w;

	for (r = 0; r < t->nr_rows; r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		if ((uint64_t)v[2].i > max)
			max = (uint64_t)v[2].i;
		if (v[1].i > top)
			top = v[1].i;
	}
	w = top < (1LL << 32) ? 10 : 20;
	trace_seq_printf(s, "%s\n", t->title);
	trace_seq_printf(s, "%*s%-*s : count     distribution\n", w - 5, "", w + 9,
			 strobe_table_unit(t));
	for (r = 0; r < t->nr_rows; r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		trace_seq_printf(s, "%*" PRId64 " -> %-*" PRId64 " : %-8" PRId64 " |",
				 w, v[0].i, w, v[1].i, v[2].i);
		stars(s, (uint64_t)v[2].i, max, 40);
		trace_seq_puts(s, "|\n");
	}
	trace_seq_putc(s, '\n');
	return seq_ok(s) ? 0 : -ENOMEM;
}

int strobe_table_write_text(const struct strobe_table *t, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	int *w, i;
	size_t r;
	char buf[64];

	if (t->view == STROBE_VIEW_FREQ)
		return write_hist(t, s);
	w = calloc((size_t)(t->nr_cols ? t->nr_cols : 1), sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (i = 0; i < t->nr_cols; i++)
		w[i] = (int)strlen(t->cols[i].title);
	for (r = 0; r < t->nr_rows; r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		for (i = 0; i < t->nr_cols; i++) {
			int l = (int)strlen(cell_text(&t->cols[i], &v[i], buf, sizeof(buf)));

			if (l > w[i])
				w[i] = l;
		}
	}
	/* printf widths: negative = left-aligned */
	for (i = 0; i < t->nr_cols; i++)
		if (!right_aligned(&t->cols[i]))
			w[i] = -w[i];
	trace_seq_printf(s, "%s\n", t->title);
	for (i = 0; i < t->nr_cols; i++)
		trace_seq_printf(s, "%s%*s", i ? "  " : "", w[i], t->cols[i].title);
	end_line(s);
	for (r = 0; r < t->nr_rows; r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		for (i = 0; i < t->nr_cols; i++)
			trace_seq_printf(s, "%s%*s", i ? "  " : "", w[i],
					 cell_text(&t->cols[i], &v[i], buf, sizeof(buf)));
		end_line(s);
	}
	if (!t->nr_rows)
		trace_seq_puts(s, "(none)\n");
	trace_seq_putc(s, '\n');
	free(w);
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* Fixed widths for log lines: they stream, so no measuring pass. */
static int log_width(const struct strobe_column *c)
{
	if (!strcmp(c->key, "comm"))
		return -16;
	if (!strcmp(c->key, "container"))
		return -12;
	switch (c->type) {
	case STROBE_COL_TIMESTAMP:
		return 20;
	case STROBE_COL_DURATION:
		return 12;
	case STROBE_COL_INT:
		return 7;
	case STROBE_COL_STR:
		return -12;
	default:
		return 10;
	}
}

int strobe_table_write_text_header(const struct strobe_table *t, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	int i;

	for (i = 0; i < t->nr_cols; i++)
		trace_seq_printf(s, "%s%*s", i ? "  " : "", log_width(&t->cols[i]),
				 t->cols[i].title);
	end_line(s);
	return seq_ok(s) ? 0 : -ENOMEM;
}

int strobe_table_write_text_row(const struct strobe_table *t, const union strobe_value *row,
				struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	char buf[64];
	int i;

	for (i = 0; i < t->nr_cols; i++)
		trace_seq_printf(s, "%s%*s", i ? "  " : "", log_width(&t->cols[i]),
				 cell_text(&t->cols[i], &row[i], buf, sizeof(buf)));
	end_line(s);
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* ---- JSON ----------------------------------------------------------------- */

static const char *view_name(enum strobe_view v)
{
	switch (v) {
	case STROBE_VIEW_TOP: return "top";
	case STROBE_VIEW_STATS: return "stats";
	case STROBE_VIEW_FREQ: return "freq";
	case STROBE_VIEW_LOG: return "log";
	}
	return "?";
}

static void json_str(struct trace_seq *s, const char *str)
{
	json_escape_seq(s, str ? str : "", str ? strlen(str) : 0);
}

static void json_cell(struct trace_seq *s, const struct strobe_column *c,
		      const union strobe_value *v)
{
	switch (c->type) {
	case STROBE_COL_STR:
		json_str(s, v->s);
		break;
	case STROBE_COL_INT:
		trace_seq_printf(s, "%" PRId64, v->i);
		break;
	case STROBE_COL_PERCENT:
		trace_seq_printf(s, "%.4f", v->d);
		break;
	default:
		trace_seq_printf(s, "%" PRIu64, v->u);
		break;
	}
}

static void json_row(struct trace_seq *s, const struct strobe_table *t,
		     const union strobe_value *v)
{
	int i;

	trace_seq_putc(s, '{');
	for (i = 0; i < t->nr_cols; i++) {
		if (i)
			trace_seq_putc(s, ',');
		json_str(s, t->cols[i].key);
		trace_seq_putc(s, ':');
		json_cell(s, &t->cols[i], &v[i]);
	}
	trace_seq_putc(s, '}');
}

int strobe_table_write_json(const struct strobe_table *t, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	size_t r;

	trace_seq_puts(s, "{\"table\":");
	json_str(s, t->name);
	trace_seq_puts(s, ",\"title\":");
	json_str(s, t->title);
	trace_seq_printf(s, ",\"view\":\"%s\",\"dropped\":%" PRIu64, view_name(t->view),
			 t->dropped);
	if (t->view == STROBE_VIEW_FREQ)
		trace_seq_printf(s, ",\"unit\":\"%s\"", strobe_table_unit(t));
	trace_seq_puts(s, ",\"rows\":[");
	for (r = 0; r < t->nr_rows; r++) {
		if (r)
			trace_seq_putc(s, ',');
		json_row(s, t, strobe_table_row(t, r));
	}
	trace_seq_puts(s, "]}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}

int strobe_table_write_json_row(const struct strobe_table *t, const union strobe_value *row,
				struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	int i;

	trace_seq_puts(s, "{\"table\":");
	json_str(s, t->name);
	for (i = 0; i < t->nr_cols; i++) {
		trace_seq_putc(s, ',');
		json_str(s, t->cols[i].key);
		trace_seq_putc(s, ':');
		json_cell(s, &t->cols[i], &row[i]);
	}
	trace_seq_puts(s, "}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* ---- LAMI 1.0 ---------------------------------------------------------------- */

/* LAMI data class of a column (histogram bounds are durations). */
static const char *lami_class(const struct strobe_table *t, const struct strobe_column *c)
{
	if (t->view == STROBE_VIEW_FREQ && (!strcmp(c->key, "lo") || !strcmp(c->key, "hi")))
		return "duration";
	switch (c->type) {
	case STROBE_COL_STR: return "string";
	case STROBE_COL_INT: return "number";
	case STROBE_COL_DURATION: return "duration";
	case STROBE_COL_TIMESTAMP: return "timestamp";
	case STROBE_COL_BYTES: return "size";
	case STROBE_COL_PERCENT: return "ratio";
	}
	return "unknown";
}

static const char *class_name(const struct strobe_table *t)
{
	return t->lami_class ? t->lami_class : t->name;
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

int strobe_lami_write_metadata(const char *names, const struct strobe_analysis_opts *opts,
			       struct strobe_buf *b)
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
		json_str(s, title);
	}
	trace_seq_puts(s, ",\"description\":");
	json_str(s, "strobe analyses of trace-cmd trace.dat files (see strobe-analyze(1))");
	trace_seq_puts(s, ",\"authors\":[\"strobe\"],\"tags\":[\"strobe\"");
	for (i = 0; strobe_analysis_names()[i]; i++)
		if (name_listed(names, strobe_analysis_names()[i])) {
			trace_seq_putc(s, ',');
			json_str(s, strobe_analysis_names()[i]);
		}
	trace_seq_puts(s, "],\"table-classes\":{");
	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);

		for (j = 0; j < nr_seen && strcmp(seen[j], class_name(t)); j++)
			;
		if (j < nr_seen)
			continue;
		seen[nr_seen++] = (char *)class_name(t);
		if (!first)
			trace_seq_putc(s, ',');
		first = 0;
		json_str(s, class_name(t));
		trace_seq_puts(s, ":{\"title\":");
		json_str(s, t->title);
		trace_seq_puts(s, ",\"column-descriptions\":[");
		for (j = 0; j < t->nr_cols; j++) {
			trace_seq_printf(s, "%s{\"title\":", j ? "," : "");
			json_str(s, t->cols[j].title);
			trace_seq_printf(s, ",\"class\":\"%s\"}", lami_class(t, &t->cols[j]));
		}
		trace_seq_puts(s, "]}");
	}
	trace_seq_puts(s, "}}\n");
	free(seen);
	strobe_analysis_free(a);
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* A histogram bound in usecs as LAMI's nanoseconds, saturated (a hostile
 * file can hold any value). */
static int64_t usecs_to_ns(int64_t us)
{
	int64_t ns;

	if (__builtin_mul_overflow(us, 1000, &ns))
		return us < 0 ? INT64_MIN : INT64_MAX;
	return ns;
}

static void lami_cell(struct trace_seq *s, const struct strobe_table *t,
		      const struct strobe_column *c, const union strobe_value *v)
{
	const char *cls = lami_class(t, c);

	trace_seq_printf(s, "{\"class\":\"%s\",\"value\":", cls);
	if (c->type == STROBE_COL_STR)
		json_str(s, v->s);
	else if (c->type == STROBE_COL_PERCENT)
		trace_seq_printf(s, "%.6f", v->d / 100.0);
	else if (c->type == STROBE_COL_INT && !strcmp(cls, "duration"))
		trace_seq_printf(s, "%" PRId64, !strcmp(strobe_table_unit(t), "usecs")
				 ? usecs_to_ns(v->i) : v->i);
	else if (c->type == STROBE_COL_INT)
		trace_seq_printf(s, "%" PRId64, v->i);
	else
		trace_seq_printf(s, "%" PRIu64, v->u);
	trace_seq_putc(s, '}');
}

int strobe_lami_write_row(const struct strobe_table *t, const union strobe_value *row,
			  struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	int j;

	trace_seq_putc(s, '[');
	for (j = 0; j < t->nr_cols; j++) {
		if (j)
			trace_seq_putc(s, ',');
		lami_cell(s, t, &t->cols[j], &row[j]);
	}
	trace_seq_putc(s, ']');
	return seq_ok(s) ? 0 : -ENOMEM;
}

int strobe_lami_write_results(const struct strobe_analysis *a, struct strobe_buf *b)
{
	return strobe_lami_write_results_logs(a, NULL, NULL, b);
}

int strobe_lami_write_results_logs(const struct strobe_analysis *a,
				   int (*log_rows)(void *arg, const struct strobe_table *t,
						   struct strobe_buf *b),
				   void *arg, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	uint64_t begin, end;
	int i, j, n = strobe_analysis_nr_tables(a), first = 1, ret;
	size_t r;

	strobe_analysis_window(a, &begin, &end);
	trace_seq_puts(s, "{\"results\":[");
	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);

		if ((t->view == STROBE_VIEW_LOG && !log_rows) || t->schema_only)
			continue;
		if (!first)
			trace_seq_putc(s, ',');
		first = 0;
		trace_seq_printf(s, "{\"time-range\":{\"class\":\"time-range\",\"begin\":%" PRIu64
				 ",\"end\":%" PRIu64 "},\"class\":", begin, end);
		if (t->view == STROBE_VIEW_FREQ) {
			trace_seq_puts(s, "{\"inherit\":");
			json_str(s, class_name(t));
			trace_seq_puts(s, ",\"title\":");
			json_str(s, t->title);
			trace_seq_putc(s, '}');
		} else {
			json_str(s, class_name(t));
		}
		trace_seq_puts(s, ",\"data\":[");
		if (t->view == STROBE_VIEW_LOG) {
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
				lami_cell(s, t, &t->cols[j], &v[j]);
			}
			trace_seq_putc(s, ']');
		}
		trace_seq_puts(s, "]}");
	}
	trace_seq_puts(s, "]}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}
