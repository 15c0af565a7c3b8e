/*
 * html.c - the HTML report (strobe_html_report, pictures.h): one
 * self-contained page about a trace file, from one pass of the one
 * pipeline with three consumers (the analyses grouped by container, a
 * system-call heat map per container, off-CPU time by stack), written
 * through strobe's one XML writer (svg.h): every string from the trace
 * is escaped there, and the page is XHTML syntax so any XML parser can
 * check it.  The pictures are the heat map's and the flame graph's own
 * SVG (their XML declaration dropped), inline, so nothing is fetched.
 *
 * Layout: a summary table, the notes (analyses without their events),
 * the pictures, then per analysis its ranking and statistics tables (one
 * row per container) and its first histograms as bar rows (the others
 * named in a note).  The style
 * sheet is text of this file's on one line, with no quotes, ampersands,
 * angle brackets or newlines, so escaping leaves it as it is: a browser
 * reads <style> as raw text, where a character reference (the escaper's
 * &#10; for a newline) is not decoded and would end the sheet's first
 * rule and drop every one after it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/analysis.h>
#include <strobe/pictures.h>
#include <strobe/pipeline.h>
#include <strobe/stream.h>
#include <strobe/strobe.h>
#include <strobe/table.h>
#include <strobe/tracefile.h>

#include "output/svg.h"
#include "table/table-int.h"
#include "util/buf.h"
#include "util/err.h"

#define ANALYSES "cputop,syscalls,schedlat,io,irq"
#define MAX_HISTS 6	/* histograms drawn per analysis, by default */

static const char style[] =
	"body { font-family: sans-serif; margin: 1.5em; color: #222; } "
	"h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 1.5em; "
	"border-bottom: 1px solid #ccc; } "
	"h3 { font-size: 1.05em; } "
	"table { border-collapse: collapse; margin: 0.5em 0 1em 0; font-size: 0.9em; } "
	"th, td { border: 1px solid #ddd; padding: 2px 8px; } "
	"th { background: #f3f3f3; text-align: left; } "
	"td.n { text-align: right; font-variant-numeric: tabular-nums; } "
	"td.bar { width: 320px; } "
	"div.bar { background: #e8743b; height: 0.9em; } "
	"p.note { color: #8a5a00; } "
	"div.pic { overflow-x: auto; margin: 0.5em 0 1.5em 0; }";

/* A cell's text in buf, as the table writers print it. */
static void cell(const struct strobe_column *c, const union strobe_value *v, char *buf,
		 size_t size)
{
	const char *t = tbl_cell_text(c, v, buf, size);

	if (t != buf)
		snprintf(buf, size, "%s", t);
}

static const char *col_title(const struct strobe_column *c, char *buf, size_t size)
{
	const char *t = c->title ? c->title : c->key;

	snprintf(buf, size, "%s%s", t,
		 c->type == STROBE_COL_DURATION && !strstr(t, "(us)") ? " (us)" : "");
	return buf;
}

static void td(struct strobe_xml *x, const char *cls, const char *text)
{
	strobe_xml_start(x, "td");
	if (cls)
		strobe_xml_attr(x, "class", cls);
	strobe_xml_text(x, text, strlen(text));
	strobe_xml_end(x);
}

/* The labels of table t (a histogram's group: "container web") as one
 * line. */
static void labels(const struct strobe_table *t, char *buf, size_t size)
{
	char v[256];
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < strobe_table_nr_labels(t) && n < size; i++) {
		const struct strobe_column *c = strobe_table_label_column(t, i);

		cell(c, strobe_table_label(t, i), v, sizeof(v));
		n += (size_t)snprintf(buf + n, size - n, "%s%s %s", i ? ", " : "", c->key, v);
	}
}

/* Any table as an HTML table (at most max_rows rows; 0: all). */
static void write_table(struct strobe_xml *x, const struct strobe_table *t, size_t max_rows)
{
	size_t r, nr = strobe_table_nr_rows(t);
	int i, nc = strobe_table_nr_columns(t);
	char buf[512];

	labels(t, buf, sizeof(buf));
	strobe_xml_start(x, "h3");
	strobe_xml_textf(x, "%s%s%s%s", strobe_table_title(t) ? strobe_table_title(t) : "",
			 buf[0] ? " (" : "", buf, buf[0] ? ")" : "");
	strobe_xml_end(x);
	strobe_xml_start(x, "table");
	strobe_xml_attr(x, "data-table", strobe_table_name(t));
	strobe_xml_start(x, "tr");
	for (i = 0; i < nc; i++)
		strobe_xml_elem_text(x, "th", col_title(strobe_table_column(t, i), buf, sizeof(buf)));
	strobe_xml_end(x);
	for (r = 0; r < nr && (!max_rows || r < max_rows); r++) {
		const union strobe_value *row = strobe_table_row(t, r);

		strobe_xml_start(x, "tr");
		for (i = 0; i < nc; i++) {
			const struct strobe_column *c = strobe_table_column(t, i);

			cell(c, &row[i], buf, sizeof(buf));
			td(x, c->type == STROBE_COL_STR ? NULL : "n", buf);
		}
		strobe_xml_end(x);
	}
	strobe_xml_end(x);
	if (max_rows && nr > max_rows) {
		strobe_xml_start(x, "p");
		strobe_xml_textf(x, "... and %zu more rows", nr - max_rows);
		strobe_xml_end(x);
	}
}

/*
 * The histograms of tables [from, to) (one analysis) past the first max
 * drawn: named in a note, so the page says what it leaves out.
 */
static void left_out(struct strobe_xml *x, const struct strobe_analysis *a, int from, int to,
		     int max)
{
	int i, k = 0, n = 0;
	char buf[512];

	for (i = from; i < to; i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);

		if (strobe_table_nr_rows(t) && strobe_table_view(t) == STROBE_VIEW_FREQ &&
		    ++k > max)
			n++;
	}
	if (!n)
		return;
	strobe_xml_start(x, "p");
	strobe_xml_attr(x, "class", "note");
	strobe_xml_textf(x, "%d more histogram%s not drawn ('strobe html --histograms all' "
			 "draws them): ", n, n == 1 ? "" : "s");
	for (i = from, k = 0, n = 0; i < to; i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);

		if (!strobe_table_nr_rows(t) || strobe_table_view(t) != STROBE_VIEW_FREQ ||
		    ++k <= max)
			continue;
		labels(t, buf, sizeof(buf));
		strobe_xml_textf(x, "%s%s%s%s%s", n++ ? "; " : "",
				 strobe_table_title(t) ? strobe_table_title(t) : strobe_table_name(t),
				 buf[0] ? " (" : "", buf, buf[0] ? ")" : "");
	}
	strobe_xml_end(x);
}

/* A histogram table (columns lo, hi, count) as bars. */
static void write_hist(struct strobe_xml *x, const struct strobe_table *t)
{
	size_t r, nr = strobe_table_nr_rows(t);
	int i, nc = strobe_table_nr_columns(t), lo = -1, hi = -1, cnt = -1;
	uint64_t max = 0, v;
	char buf[512], a[64], b[64];
	const char *unit = strobe_table_unit(t);

	for (i = 0; i < nc; i++) {
		const char *k = strobe_table_column(t, i)->key;

		if (!strcmp(k, "lo"))
			lo = i;
		else if (!strcmp(k, "hi"))
			hi = i;
		else if (!strcmp(k, "count"))
			cnt = i;
	}
	if (lo < 0 || hi < 0 || cnt < 0) {
		write_table(x, t, 0);
		return;
	}
	for (r = 0; r < nr; r++) {
		v = (uint64_t)strobe_table_row(t, r)[cnt].i;
		if (v > max)
			max = v;
	}
	if (!max)
		return;
	labels(t, buf, sizeof(buf));
	strobe_xml_start(x, "h3");
	strobe_xml_textf(x, "%s%s%s%s", strobe_table_title(t) ? strobe_table_title(t) : "",
			 buf[0] ? " (" : "", buf, buf[0] ? ")" : "");
	strobe_xml_end(x);
	strobe_xml_start(x, "table");
	strobe_xml_attr(x, "data-table", strobe_table_name(t));
	strobe_xml_attr(x, "class", "hist");
	strobe_xml_start(x, "tr");
	strobe_xml_elem_text(x, "th", unit && *unit ? unit : "from");
	strobe_xml_elem_text(x, "th", "to");
	strobe_xml_elem_text(x, "th", "count");
	strobe_xml_elem_text(x, "th", "distribution");
	strobe_xml_end(x);
	for (r = 0; r < nr; r++) {
		const union strobe_value *row = strobe_table_row(t, r);

		cell(strobe_table_column(t, lo), &row[lo], a, sizeof(a));
		cell(strobe_table_column(t, hi), &row[hi], b, sizeof(b));
		cell(strobe_table_column(t, cnt), &row[cnt], buf, sizeof(buf));
		v = (uint64_t)row[cnt].i;
		strobe_xml_start(x, "tr");
		td(x, "n", a);
		td(x, "n", b);
		td(x, "n", buf);
		strobe_xml_start(x, "td");
		strobe_xml_attr(x, "class", "bar");
		strobe_xml_start(x, "div");
		strobe_xml_attr(x, "class", "bar");
		strobe_xml_attrf(x, "style", "width: %.1f%%", 100.0 * (double)v / (double)max);
		strobe_xml_text(x, "", 0);
		strobe_xml_end(x);
		strobe_xml_end(x);
		strobe_xml_end(x);
	}
	strobe_xml_end(x);
}

/* An SVG document in svg (its XML declaration dropped) inside a div. */
static void write_svg(struct strobe_xml *x, struct strobe_buf *out, struct strobe_buf *svg)
{
	const char *p = strobe_buf_data(svg), *e;
	size_t n = strobe_buf_len(svg);

	if (n > 5 && !strncmp(p, "<?xml", 5) && (e = strstr(p, "?>"))) {
		n -= (size_t)(e + 2 - p);
		p = e + 2;
	}
	strobe_xml_start(x, "div");
	strobe_xml_attr(x, "class", "pic");
	strobe_xml_text(x, "", 0);	/* the start tag closed */
	if (!x->err)
		strobe_buf_write(out, p, n);
	strobe_xml_end(x);
}

/* Does the file hold system call exit events (the heat map's)? */
static bool has_syscalls(struct strobe_tracefile *tf)
{
	struct strobe_formats *f = strobe_tracefile_formats(tf);
	int id, max = f ? strobe_formats_max_id(f) : -1;

	for (id = 0; id <= max; id++) {
		const struct strobe_format *e = strobe_formats_by_id(f, id);
		const char *sys = e ? strobe_format_system(e) : NULL;
		const char *name = e ? strobe_format_name(e) : NULL;

		if (!sys || !name)
			continue;
		if ((!strcmp(sys, "raw_syscalls") && !strcmp(name, "sys_exit")) ||
		    (!strcmp(sys, "syscalls") && !strncmp(name, "sys_exit_", 9)))
			return true;
	}
	return false;
}

/*
 * The off-CPU consumer, whose finish fails (-ENOENT) when the trace has
 * no stacks at its context switches: for the page that is a note, not a
 * failure.  The other callbacks go to it unchanged.
 */
struct optional {
	struct strobe_consumer in;
	bool missing;		/* its finish said -ENOENT */
};

static int opt_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		     struct strobe_error *err)
{
	struct optional *o = arg;

	return o->in.start ? o->in.start(src, nr, o->in.arg, err) : 0;
}

static int opt_event(const struct strobe_event *ev, int source, void *arg,
		     struct strobe_error *err)
{
	struct optional *o = arg;

	return o->in.event(ev, source, o->in.arg, err);
}

static int opt_finish(void *arg, struct strobe_error *err)
{
	struct optional *o = arg;
	int ret = o->in.finish ? o->in.finish(o->in.arg, err) : 0;

	if (ret == -ENOENT) {
		o->missing = true;
		return 0;
	}
	return ret;
}

static void optional_wrap(struct optional *o, struct strobe_consumer *c)
{
	o->in = *c;
	c->start = opt_start;
	c->event = opt_event;
	c->finish = opt_finish;
	c->tick = NULL;
	c->idle = NULL;
	c->arg = o;
}

static void summary_row(struct strobe_xml *x, const char *k, const char *v)
{
	strobe_xml_start(x, "tr");
	strobe_xml_elem_text(x, "th", k);
	td(x, NULL, v);
	strobe_xml_end(x);
}

int strobe_html_report(struct strobe_tracefile *tf, const struct strobe_html_opts *opts,
		       struct strobe_buf *b, struct strobe_error *err)
{
	struct strobe_html_opts o = { 0 };
	struct strobe_analysis_opts ao = { .size = sizeof(ao) };
	struct strobe_heatmap_opts ho = { .size = sizeof(ho), .analysis = "syscalls",
					  .per_container = true, .width = 1100 };
	struct strobe_offcpu_opts oo = { .size = sizeof(oo) };
	struct strobe_flame_svg_opts fo = { .size = sizeof(fo), .unit = "ns",
					    .title = "Off-CPU time by stack", .root_levels = 1,
					    .width = 1100 };
	struct strobe_pipeline_opts po = { .size = sizeof(po) };
	struct strobe_analysis *a = NULL;
	struct strobe_heatmap *h = NULL;
	struct strobe_offcpu *oc = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_consumer c;
	struct optional oco = { 0 };
	struct strobe_buf *pic = NULL;
	struct strobe_error perr = { 0, "" };
	struct strobe_xml x;
	uint64_t begin = 0, end = 0;
	char buf[512], host[256];
	const char *path = strobe_tracefile_path(tf), *target;
	int i, n, nh, src, ret, first = 0, max_hists;
	enum strobe_tf_diag_kind kind;
	bool any;

	if (opts)
		memcpy(&o, opts, opts->size && opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (o.top <= 0)
		o.top = 20;
	max_hists = o.histograms < 0 ? INT_MAX : o.histograms ? o.histograms : MAX_HISTS;
	po.jobs = o.jobs;
	ao.group_by = STROBE_GROUP_CONTAINER;
	ao.views = STROBE_VIEW_TOP | STROBE_VIEW_STATS | STROBE_VIEW_FREQ;
	ao.top = o.top;
	if ((ret = strobe_analysis_new(ANALYSES, &ao, &a, err)) < 0 ||
	    (has_syscalls(tf) && (ret = strobe_heatmap_new(&ho, &h, err)) < 0) ||
	    (ret = strobe_offcpu_new(&oo, &oc, err)) < 0 ||
	    (ret = strobe_pipeline_new(&po, &p, err)) < 0)
		goto out;
	target = strobe_tracefile_info(tf, "target");
	if (target && *target)
		strobe_analysis_set_target(a, target, strobe_tracefile_info(tf, "target_pids"),
					   strobe_tracefile_info(tf, "target_containers"), NULL);
	src = strobe_pipeline_add_file(p, tf, NULL, err);
	if (src < 0) {
		ret = src;
		goto out;
	}
	if ((ret = strobe_analysis_consumer(a, src, &c)) < 0 ||
	    (ret = strobe_pipeline_add_consumer(p, &c, err)) < 0 ||
	    (h && (ret = strobe_heatmap_consumer(h, src, &c)) < 0) ||
	    (h && (ret = strobe_pipeline_add_consumer(p, &c, err)) < 0) ||
	    (ret = strobe_offcpu_consumer(oc, src, &c)) < 0 ||
	    (optional_wrap(&oco, &c), ret = strobe_pipeline_add_consumer(p, &c, err)) < 0 ||
	    (ret = strobe_pipeline_run(p, err)) < 0)
		goto out;
	pic = strobe_buf_new();
	if (!pic) {
		ret = strobe_err(err, -ENOMEM, "out of memory");
		goto out;
	}

	strobe_xml_init(&x, b);
	trace_seq_puts(strobe_buf_seq(b), "<!DOCTYPE html>\n");
	strobe_xml_start(&x, "html");
	strobe_xml_attr(&x, "xmlns", "http://www.w3.org/1999/xhtml");
	strobe_xml_attr(&x, "lang", "en");
	strobe_xml_start(&x, "head");
	strobe_xml_start(&x, "meta");
	strobe_xml_attr(&x, "charset", "utf-8");
	strobe_xml_end(&x);
	if (o.title)
		strobe_xml_elem_text(&x, "title", o.title);
	else {
		strobe_xml_start(&x, "title");
		strobe_xml_textf(&x, "strobe report: %s", path ? path : "trace");
		strobe_xml_end(&x);
	}
	strobe_xml_elem_text(&x, "style", style);
	strobe_xml_end(&x);	/* head */
	strobe_xml_start(&x, "body");
	strobe_xml_start(&x, "h1");
	if (o.title)
		strobe_xml_text(&x, o.title, strlen(o.title));
	else
		strobe_xml_textf(&x, "strobe report: %s", path ? path : "trace");
	strobe_xml_end(&x);

	/* the summary */
	strobe_xml_elem_text(&x, "h2", "Recording");
	strobe_xml_start(&x, "table");
	strobe_xml_attr(&x, "class", "summary");
	summary_row(&x, "file", path ? path : "");
	{
		const char *hn = strobe_tracefile_host(tf, host, sizeof(host));

		summary_row(&x, "host", hn && *hn ? hn : "-");
	}
	summary_row(&x, "target", target && *target ? target : "the whole system");
	strobe_analysis_window(a, &begin, &end);
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64 " to %" PRIu64 ".%06" PRIu64
		 " s (%.3f s)", begin / 1000000000, begin % 1000000000 / 1000, end / 1000000000,
		 end % 1000000000 / 1000, end > begin ? (double)(end - begin) * 1e-9 : 0.0);
	summary_row(&x, "window (trace clock)", buf);
	{
		struct strobe_tf_buffer_info bi = { 0 };

		if (strobe_tracefile_nr_buffers(tf) > 0 && strobe_tracefile_buffer(tf, 0, &bi) == 0) {
			snprintf(buf, sizeof(buf), "%d (clock %s, %.1f MiB of data)", bi.nr_cpus,
				 bi.clock, (double)bi.data_size / (1 << 20));
			summary_row(&x, "CPUs", buf);
		}
	}
	snprintf(buf, sizeof(buf), "%d, %s", strobe_tracefile_version(tf),
		 strobe_tracefile_compression(tf) ? strobe_tracefile_compression(tf) : "none");
	summary_row(&x, "trace.dat version, compression", buf);
	/* the data's problems: a file given twice is not one (its page is
	 * the file's given once) */
	for (i = 0, n = 0; i < strobe_tracefile_nr_diags(tf); i++) {
		strobe_tracefile_diag(tf, i, &kind);
		n += kind != STROBE_TF_DIAG_SAME_FILE;
	}
	summary_row(&x, "data problems", n ? "see below" : "none");
	strobe_xml_end(&x);
	for (i = 0; i < strobe_tracefile_nr_diags(tf); i++) {
		const char *msg = strobe_tracefile_diag(tf, i, &kind);

		if (kind == STROBE_TF_DIAG_SAME_FILE)
			continue;
		strobe_xml_start(&x, "p");
		strobe_xml_attr(&x, "class", "note");
		strobe_xml_textf(&x, "%s", msg);
		strobe_xml_end(&x);
	}
	for (i = 0; i < strobe_analysis_nr_notes(a); i++) {
		const char *note = strobe_analysis_note(a, i);

		strobe_xml_start(&x, "p");
		strobe_xml_attr(&x, "class", "note");
		strobe_xml_text(&x, note, strlen(note));
		strobe_xml_end(&x);
	}

	/* the pictures */
	strobe_xml_start(&x, "h2");
	strobe_xml_attr(&x, "id", "heatmap");
	strobe_xml_textf(&x, "System call latency over time");
	strobe_xml_end(&x);
	if (h && strobe_heatmap_count(h) && strobe_heatmap_write_svg(h, pic, &perr) == 0) {
		write_svg(&x, b, pic);
	} else {
		strobe_xml_start(&x, "p");
		strobe_xml_attr(&x, "class", "note");
		strobe_xml_textf(&x, "No heat map: the recording has no system call events "
				 "(record with --preset syscalls).");
		strobe_xml_end(&x);
	}
	strobe_buf_reset(pic);
	strobe_xml_start(&x, "h2");
	strobe_xml_attr(&x, "id", "flame");
	strobe_xml_textf(&x, "Off-CPU time by stack");
	strobe_xml_end(&x);
	perr.msg[0] = '\0';
	if (!oco.missing && strobe_flame_nr_stacks(strobe_offcpu_flame(oc)) &&
	    strobe_flame_write_svg(strobe_offcpu_flame(oc), &fo, pic, &perr) == 0) {
		write_svg(&x, b, pic);
	} else {
		strobe_xml_start(&x, "p");
		strobe_xml_attr(&x, "class", "note");
		strobe_xml_textf(&x, "No flame graph: the recording has no kernel stacks at its "
				 "context switches (record with --stacks).");
		strobe_xml_end(&x);
	}
	/* the analyses: rankings and statistics, then histograms (the first
	 * max_hists of each analysis: the page stays readable; the others
	 * named after them) */
	for (i = 0, any = false, nh = 0; i < strobe_analysis_nr_tables(a); i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);
		const char *name = strobe_table_name(t);
		size_t len = strcspn(name, ".");

		if (!strobe_table_nr_rows(t))
			continue;
		if (i == 0 || strncmp(name, strobe_table_name(strobe_analysis_table(a, i - 1)),
				      len + 1) || !any) {
			left_out(&x, a, first, i, max_hists);
			first = i;
			nh = 0;
			strobe_xml_start(&x, "h2");
			strobe_xml_attrf(&x, "id", "a-%.*s", (int)len, name);
			strobe_xml_textf(&x, "%.*s", (int)len, name);
			strobe_xml_end(&x);
		}
		any = true;
		if (strobe_table_view(t) == STROBE_VIEW_FREQ) {
			if (++nh <= max_hists)
				write_hist(&x, t);
		}
		else if (strobe_table_view(t) != STROBE_VIEW_LOG)
			write_table(&x, t, (size_t)o.top);
	}
	left_out(&x, a, first, strobe_analysis_nr_tables(a), max_hists);

	strobe_xml_start(&x, "p");
	strobe_xml_textf(&x, "Made by strobe %s.", STROBE_VERSION);
	strobe_xml_end(&x);
	strobe_xml_end(&x);	/* body */
	strobe_xml_end(&x);	/* html */
	ret = strobe_xml_finish(&x);
	if (!ret && strobe_buf_failed(b))
		ret = -ENOMEM;
	if (ret < 0)
		strobe_err(err, ret, "html: %s", ret == -ENOMEM ? "out of memory"
								 : "the page's markup failed");
	else
		trace_seq_puts(strobe_buf_seq(b), "\n");
out:
	strobe_buf_free(pic);
	strobe_pipeline_free(p);
	strobe_offcpu_free(oc);
	strobe_heatmap_free(h);
	strobe_analysis_free(a);
	return ret;
}
