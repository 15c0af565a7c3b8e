/*
 * write.c - the one writer of result tables: aligned text, log2 (usecs
 * or msecs) and linear histograms as bcc prints them, JSON, and LAMI 1.0 rows for Trace
 * Compass.  Every command that prints results goes through here, so a
 * column added to a table shows up in every format at once.
 *
 * Everything appends to a caller's strobe_buf; nothing here does I/O.
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

#include "output/output-int.h"
#include "table/table-int.h"
#include "util/buf.h"

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

/* Text of one cell (table-int.h). */
const char *tbl_cell_text(const struct strobe_column *c, const union strobe_value *v,
			     char *buf, size_t size)
{
	if (strobe_value_none(c->type, v))
		return "-";
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
	case STROBE_COL_RATE:
		snprintf(buf, size, "%.1f", v->d);
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
			int l = (int)strlen(tbl_cell_text(&t->cols[i], &v[i], buf, sizeof(buf)));

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
					 tbl_cell_text(&t->cols[i], &v[i], buf, sizeof(buf)));
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
				 tbl_cell_text(&t->cols[i], &row[i], buf, sizeof(buf)));
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

void tbl_json_str(struct trace_seq *s, const char *str)
{
	json_escape_seq(s, str ? str : "", str ? strlen(str) : 0);
}

static void json_cell(struct trace_seq *s, const struct strobe_column *c,
		      const union strobe_value *v)
{
	if (strobe_value_none(c->type, v)) {
		trace_seq_puts(s, "null");
		return;
	}
	switch (c->type) {
	case STROBE_COL_STR:
		tbl_json_str(s, v->s);
		break;
	case STROBE_COL_INT:
		trace_seq_printf(s, "%" PRId64, v->i);
		break;
	case STROBE_COL_PERCENT:
		trace_seq_printf(s, "%.4f", v->d);
		break;
	case STROBE_COL_RATE:
		trace_seq_printf(s, "%.3f", v->d);
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
		tbl_json_str(s, t->cols[i].key);
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
	tbl_json_str(s, t->name);
	trace_seq_puts(s, ",\"title\":");
	tbl_json_str(s, t->title);
	trace_seq_printf(s, ",\"view\":\"%s\",\"dropped\":%" PRIu64, view_name(t->view),
			 t->dropped);
	if (t->view == STROBE_VIEW_FREQ)
		trace_seq_printf(s, ",\"unit\":\"%s\"", strobe_table_unit(t));
	if (t->nr_labels) {
		int i;

		trace_seq_puts(s, ",\"group\":{");
		for (i = 0; i < t->nr_labels; i++) {
			if (i)
				trace_seq_putc(s, ',');
			tbl_json_str(s, t->label_cols[i].key);
			trace_seq_putc(s, ':');
			json_cell(s, &t->label_cols[i], &t->label_vals[i]);
		}
		trace_seq_putc(s, '}');
	}
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
	tbl_json_str(s, t->name);
	for (i = 0; i < t->nr_cols; i++) {
		trace_seq_putc(s, ',');
		tbl_json_str(s, t->cols[i].key);
		trace_seq_putc(s, ':');
		json_cell(s, &t->cols[i], &row[i]);
	}
	trace_seq_puts(s, "}\n");
	return seq_ok(s) ? 0 : -ENOMEM;
}

/* ---- LAMI 1.0 ---------------------------------------------------------------- */

/* LAMI data class of a column (histogram bounds are durations). */
const char *tbl_lami_col_class(const struct strobe_table *t, const struct strobe_column *c)
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
	case STROBE_COL_RATE: return "number";
	}
	return "unknown";
}

/* A histogram bound in usecs (mul 1000) or msecs (mul 1000000) as LAMI's
 * nanoseconds, saturated (a hostile file can hold any value). */
static int64_t bound_to_ns(int64_t v, int64_t mul)
{
	int64_t ns;

	if (__builtin_mul_overflow(v, mul, &ns))
		return v < 0 ? INT64_MIN : INT64_MAX;
	return ns;
}

void tbl_lami_cell(struct trace_seq *s, const struct strobe_table *t,
		      const struct strobe_column *c, const union strobe_value *v)
{
	const char *cls = tbl_lami_col_class(t, c);

	trace_seq_printf(s, "{\"class\":\"%s\",\"value\":", cls);
	if (strobe_value_none(c->type, v))
		trace_seq_puts(s, "null");
	else if (c->type == STROBE_COL_STR)
		tbl_json_str(s, v->s);
	else if (c->type == STROBE_COL_PERCENT)
		trace_seq_printf(s, "%.6f", v->d / 100.0);
	else if (c->type == STROBE_COL_RATE)
		trace_seq_printf(s, "%.3f", v->d);
	else if (c->type == STROBE_COL_INT && !strcmp(cls, "duration"))
		trace_seq_printf(s, "%" PRId64, !strcmp(strobe_table_unit(t), "usecs")
				 ? bound_to_ns(v->i, 1000)
				 : !strcmp(strobe_table_unit(t), "msecs")
				 ? bound_to_ns(v->i, 1000000) : v->i);
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
		tbl_lami_cell(s, t, &t->cols[j], &row[j]);
	}
	trace_seq_putc(s, ']');
	return seq_ok(s) ? 0 : -ENOMEM;
}
