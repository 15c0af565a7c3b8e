/*
 * heatmap.c - latency heat maps (pictures.h, strobe_heatmap_*): time on
 * x, latency in log2 buckets on y, the number of measurements as colour,
 * one panel per container when asked.
 *
 * The measurements are the analyses' own: the heat map runs one analysis
 * (syscalls, schedlat, io, irq or periods) as a consumer of the pipeline
 * with its log view on, and takes each log row's timestamp (when the
 * measurement began) and its first duration column (a call's duration, a
 * wake-up's latency, a handler's run, a period) - the rows `strobe
 * syscalls --log` prints.  Nothing is kept per measurement: each is
 * counted into a grid as it comes.  The time range is not known until the
 * end, so columns start 1 ms wide and, when there would be more than
 * MAX_COLS, double in width by merging neighbours (memory: panels x
 * MAX_COLS x 64 counters, whatever the trace's length).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/analysis.h>
#include <strobe/pictures.h>
#include <strobe/pipeline.h>
#include <strobe/table.h>

#include "output/svg.h"
#include "util/buf.h"
#include "util/opts.h"

#define MAX_COLS 240
#define ROWS 64			/* log2 buckets of ns */
#define MAX_PANELS 64

struct panel {
	char name[256];
	uint32_t (*cells)[ROWS];	/* [MAX_COLS * 2] */
	uint64_t count;
};

struct strobe_heatmap {
	struct strobe_heatmap_opts o;
	struct strobe_analysis_opts ao;
	char names[64];			/* "syscalls" */
	struct strobe_analysis *an;
	struct strobe_consumer ac;	/* the analysis' consumer, wrapped */
	int source;
	bool have_t0;
	uint64_t t0, last_ts;		/* first event; last event */
	uint64_t width;			/* ns per column */
	int ncols;			/* columns in use */
	struct panel panels[MAX_PANELS];
	int npanels;
	int ts_col, dur_col, cont_col;	/* of the log table, -1 unknown */
	const struct strobe_table *log_table;
	uint64_t measurements, outside;	/* counted; of containers not drawn */
	int err;
};

static const char *const known[] = { "syscalls", "schedlat", "io", "irq", "periods", NULL };

static int bucket(uint64_t ns)
{
	int b = 0;

	while (ns > 1 && b < ROWS - 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

static struct panel *panel_for(struct strobe_heatmap *h, const char *container)
{
	struct panel *p;
	int i;

	if (!h->o.per_container)
		container = "";
	for (i = 0; i < h->npanels; i++)
		if (!strcmp(h->panels[i].name, container))
			return &h->panels[i];
	if (h->npanels == MAX_PANELS) {
		h->outside++;
		return NULL;
	}
	p = &h->panels[h->npanels];
	p->cells = calloc(MAX_COLS * 2, sizeof(*p->cells));
	if (!p->cells) {
		h->err = -ENOMEM;
		return NULL;
	}
	snprintf(p->name, sizeof(p->name), "%s", container);
	h->npanels++;
	return p;
}

/* Columns twice as wide: neighbours merged, until col fits. */
static void widen(struct strobe_heatmap *h, uint64_t col)
{
	int i, c, r;

	while (col >= MAX_COLS) {
		for (i = 0; i < h->npanels; i++) {
			uint32_t (*cl)[ROWS] = h->panels[i].cells;

			for (c = 0; c < MAX_COLS; c++)
				for (r = 0; r < ROWS; r++)
					cl[c][r] = cl[2 * c][r] + cl[2 * c + 1][r];
			memset(cl[MAX_COLS], 0, MAX_COLS * sizeof(*cl));
		}
		h->width *= 2;
		col /= 2;
		h->ncols = (h->ncols + 1) / 2;
	}
}

static int find_col(const struct strobe_table *t, enum strobe_col_type type, const char *key)
{
	int i, n = strobe_table_nr_columns(t);

	for (i = 0; i < n; i++) {
		const struct strobe_column *c = strobe_table_column(t, i);

		if (key ? !strcmp(c->key, key) : c->type == type)
			return i;
	}
	return -1;
}

static void on_log(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct strobe_heatmap *h = arg;
	const char *name = strobe_table_name(t), *cont = "";
	uint64_t ts, dur, col;
	struct panel *p;
	size_t n;

	/* the analysis' own log ("syscalls.log", "periods.log"), not the
	 * aggregated periods */
	n = strlen(h->names);
	if (strncmp(name, h->names, n) || strcmp(name + n, ".log"))
		return;
	if (t != h->log_table) {
		h->log_table = t;
		h->ts_col = find_col(t, STROBE_COL_TIMESTAMP, NULL);
		h->dur_col = find_col(t, STROBE_COL_DURATION, NULL);
		h->cont_col = find_col(t, STROBE_COL_STR, "container");
	}
	if (h->ts_col < 0 || h->dur_col < 0)
		return;
	ts = row[h->ts_col].u;
	dur = row[h->dur_col].u;
	if (strobe_value_none(STROBE_COL_DURATION, &row[h->dur_col]) ||
	    strobe_value_none(STROBE_COL_TIMESTAMP, &row[h->ts_col]))
		return;
	if (h->cont_col >= 0 && row[h->cont_col].s)
		cont = row[h->cont_col].s;
	p = panel_for(h, cont);
	if (!p)
		return;
	if (!h->have_t0) {	/* a row before any event: cannot be */
		h->have_t0 = true;
		h->t0 = ts;
	}
	col = ts > h->t0 ? (ts - h->t0) / h->width : 0;
	widen(h, col);
	col = ts > h->t0 ? (ts - h->t0) / h->width : 0;
	if ((int)col >= h->ncols)
		h->ncols = (int)col + 1;
	p->cells[col][bucket(dur)]++;
	p->count++;
	h->measurements++;
}

int strobe_heatmap_new(const struct strobe_heatmap_opts *o, struct strobe_heatmap **out,
		       struct strobe_error *err)
{
	struct strobe_heatmap *h;
	int i, r;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return strobe_err(err, -ENOMEM, "out of memory");
	strobe_opts_copy(&h->o, sizeof(h->o), o);
	for (i = 0; known[i]; i++)
		if (h->o.analysis && !strcmp(h->o.analysis, known[i]))
			break;
	if (!known[i]) {
		r = strobe_err(err, -EINVAL, "no heat map of '%s' (known: syscalls, schedlat, "
			       "io, irq, periods)", h->o.analysis ? h->o.analysis : "");
		free(h);
		return r;
	}
	snprintf(h->names, sizeof(h->names), "%s", known[i]);
	strobe_opts_copy(&h->ao, sizeof(h->ao), h->o.analysis_opts);
	h->ao.views = STROBE_VIEW_LOG;
	h->ao.log = on_log;
	h->ao.log_arg = h;
	h->width = 1000000;	/* 1 ms, widened as the trace goes on */
	h->ts_col = h->dur_col = h->cont_col = -1;
	r = strobe_analysis_new(h->names, &h->ao, &h->an, err);
	if (r < 0) {
		free(h);
		return r;
	}
	*out = h;
	return 0;
}

void strobe_heatmap_free(struct strobe_heatmap *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < h->npanels; i++)
		free(h->panels[i].cells);
	strobe_analysis_free(h->an);
	free(h);
}

/* ---- as a consumer: the analysis', with the first event's time ------------ */

static int c_start(const struct strobe_pipeline_source *s, int nr, void *arg,
		   struct strobe_error *err)
{
	struct strobe_heatmap *h = arg;

	return h->ac.start ? h->ac.start(s, nr, h->ac.arg, err) : 0;
}

static int c_event(const struct strobe_event *ev, int source, void *arg,
		   struct strobe_error *err)
{
	struct strobe_heatmap *h = arg;
	int r;

	if (source == h->source) {
		if (!h->have_t0) {
			h->have_t0 = true;
			h->t0 = ev->ts;
		}
		h->last_ts = ev->ts;
	}
	r = h->ac.event(ev, source, h->ac.arg, err);
	if (r >= 0 && h->err)
		return strobe_err(err, h->err, "heat map: out of memory");
	return r;
}

static int c_finish(void *arg, struct strobe_error *err)
{
	struct strobe_heatmap *h = arg;

	return h->ac.finish ? h->ac.finish(h->ac.arg, err) : 0;
}

int strobe_heatmap_consumer(struct strobe_heatmap *h, int source, struct strobe_consumer *out)
{
	strobe_analysis_consumer(h->an, source, &h->ac);
	*out = h->ac;
	out->name = "heatmap";
	out->start = c_start;
	out->event = c_event;
	out->finish = c_finish;
	out->tick = NULL;
	out->arg = h;
	h->source = source;
	return 0;
}

uint64_t strobe_heatmap_count(const struct strobe_heatmap *h)
{
	return h ? h->measurements : 0;
}

const struct strobe_analysis *strobe_heatmap_analysis(const struct strobe_heatmap *h)
{
	return h ? h->an : NULL;
}

uint64_t strobe_heatmap_cell(const struct strobe_heatmap *h, const char *container,
			     uint64_t ts, uint64_t latency_ns)
{
	uint64_t col;
	int i;

	if (!h || !h->have_t0 || ts < h->t0)
		return 0;
	col = (ts - h->t0) / h->width;
	if (col >= MAX_COLS)
		return 0;
	for (i = 0; i < h->npanels; i++)
		if (!strcmp(h->panels[i].name, h->o.per_container && container ? container : ""))
			return h->panels[i].cells[col][bucket(latency_ns)];
	return 0;
}

/* ---- SVG ----------------------------------------------------------------- */

#define LEFT 80
#define RIGHT 110
#define TOP 56
#define PANEL_GAP 46
#define ROW_H 12
#define BOTTOM 40

/* "1 us", "4 ms", "2 s" for 2^b ns */
static void lat_label(int b, char *out, size_t size)
{
	double v = ldexp(1.0, b);

	if (v >= 1e9)
		snprintf(out, size, "%.3g s", v / 1e9);
	else if (v >= 1e6)
		snprintf(out, size, "%.3g ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(out, size, "%.3g us", v / 1e3);
	else
		snprintf(out, size, "%.0f ns", v);
}

static void secs_label(double s, char *out, size_t size)
{
	if (s >= 10 || s == 0)
		snprintf(out, size, "%.0f s", s);
	else if (s >= 1)
		snprintf(out, size, "%.1f s", s);
	else
		snprintf(out, size, "%.0f ms", s * 1e3);
}

/* Colour of a count: pale yellow to dark red on a log scale of max. */
static void heat(uint32_t n, uint32_t max, char *out, size_t size)
{
	double f = max > 1 ? log((double)n) / log((double)max) : 1.0;
	int r, g, b;

	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	r = (int)(255 - 80 * f);
	g = (int)(235 - 215 * f);
	b = (int)(150 - 130 * f);
	snprintf(out, size, "rgb(%d,%d,%d)", r, g, b);
}

static void text_at(struct strobe_xml *x, double tx, double ty, const char *anchor,
		    const char *cls, const char *s)
{
	strobe_xml_start(x, "text");
	strobe_xml_attr_num(x, "x", tx);
	strobe_xml_attr_num(x, "y", ty);
	if (anchor)
		strobe_xml_attr(x, "text-anchor", anchor);
	if (cls)
		strobe_xml_attr(x, "class", cls);
	strobe_xml_text(x, s, strlen(s));
	strobe_xml_end(x);
}

static void line(struct strobe_xml *x, double x1, double y1, double x2, double y2)
{
	strobe_xml_start(x, "line");
	strobe_xml_attr_num(x, "x1", x1);
	strobe_xml_attr_num(x, "y1", y1);
	strobe_xml_attr_num(x, "x2", x2);
	strobe_xml_attr_num(x, "y2", y2);
	strobe_xml_attr(x, "stroke", "#444");
	strobe_xml_attr(x, "stroke-width", "1");
	strobe_xml_end(x);
}

static const char *what(const char *analysis)
{
	if (!strcmp(analysis, "syscalls"))
		return "System call latency";
	if (!strcmp(analysis, "schedlat"))
		return "Wake-up to run latency";
	if (!strcmp(analysis, "io"))
		return "I/O system call latency";
	if (!strcmp(analysis, "irq"))
		return "Interrupt handler duration";
	return "Period duration";
}

int strobe_heatmap_write_svg(const struct strobe_heatmap *h, struct strobe_buf *b,
			     struct strobe_error *err)
{
	int lo = ROWS, hi = -1, i, c, r, nrows, ncols, step, tick, r2;
	double width, height, plot_w, cell_w, py, secs, span;
	uint32_t max = 0;
	struct strobe_xml x;
	char fill[32], lab[64], lab2[64], tip[256];

	if (!h->measurements)
		return strobe_err(err, -ENOENT, "no %s measurements to draw", h->names);
	for (i = 0; i < h->npanels; i++)
		for (c = 0; c < h->ncols; c++)
			for (r = 0; r < ROWS; r++) {
				uint32_t n = h->panels[i].cells[c][r];

				if (!n)
					continue;
				if (r < lo)
					lo = r;
				if (r > hi)
					hi = r;
				if (n > max)
					max = n;
			}
	nrows = hi - lo + 1;
	ncols = h->ncols > 0 ? h->ncols : 1;
	width = h->o.width > 300 ? h->o.width : 1200;
	plot_w = width - LEFT - RIGHT;
	cell_w = plot_w / ncols;
	height = TOP + h->npanels * (nrows * ROW_H + PANEL_GAP) + BOTTOM;
	span = (double)ncols * (double)h->width / 1e9;

	strobe_xml_init(&x, b);
	strobe_svg_begin(&x, width, height);
	strobe_xml_start(&x, "style");
	strobe_xml_attr(&x, "type", "text/css");
	strobe_xml_cdata(&x, "text{font-family:Verdana,sans-serif;font-size:11px;fill:#000}"
			 ".t{font-size:17px}.s{fill:#555}.p{font-size:12px;font-weight:bold}"
			 "rect.c:hover{stroke:#000;stroke-width:1}");
	strobe_xml_end(&x);
	strobe_xml_start(&x, "rect");
	strobe_xml_attr(&x, "x", "0");
	strobe_xml_attr(&x, "y", "0");
	strobe_xml_attr_num(&x, "width", width);
	strobe_xml_attr_num(&x, "height", height);
	strobe_xml_attr(&x, "fill", "#fcfcfc");
	strobe_xml_end(&x);
	text_at(&x, width / 2, 22, "middle", "t",
		h->o.title ? h->o.title : what(h->names));
	snprintf(tip, sizeof(tip), "%llu measurements; x: time since the first event, "
		 "y: latency (log2 buckets), colour: count", (unsigned long long)h->measurements);
	text_at(&x, width / 2, 40, "middle", "s", h->o.subtitle ? h->o.subtitle : tip);

	py = TOP;
	for (i = 0; i < h->npanels && !x.err; i++) {
		const struct panel *p = &h->panels[i];
		double top = py + 14, bottom = top + nrows * ROW_H;

		snprintf(lab, sizeof(lab), "%llu", (unsigned long long)p->count);
		strobe_xml_start(&x, "g");
		strobe_xml_attr(&x, "class", "panel");
		strobe_xml_attr(&x, "data-container", p->name);
		strobe_xml_start(&x, "text");
		strobe_xml_attr_num(&x, "x", LEFT);
		strobe_xml_attr_num(&x, "y", py + 8);
		strobe_xml_attr(&x, "class", "p");
		strobe_xml_text(&x, p->name[0] ? p->name : "all tasks",
				strlen(p->name[0] ? p->name : "all tasks"));
		strobe_xml_textf(&x, " (%s measurements)", lab);
		strobe_xml_end(&x);
		/* the cells: one rect per non-empty cell, row lo at the bottom */
		for (c = 0; c < ncols; c++)
			for (r = lo; r <= hi; r++) {
				uint32_t n = p->cells[c][r];

				if (!n)
					continue;
				heat(n, max, fill, sizeof(fill));
				lat_label(r, lab, sizeof(lab));
				lat_label(r + 1, lab2, sizeof(lab2));
				secs = (double)c * (double)h->width / 1e9;
				strobe_xml_start(&x, "rect");
				strobe_xml_attr(&x, "class", "c");
				strobe_xml_attr_num(&x, "x", LEFT + c * cell_w);
				strobe_xml_attr_num(&x, "y", bottom - (r - lo + 1) * ROW_H);
				strobe_xml_attr_num(&x, "width", cell_w);
				strobe_xml_attr_num(&x, "height", ROW_H);
				strobe_xml_attr(&x, "fill", fill);
				strobe_xml_start(&x, "title");
				strobe_xml_textf(&x, "%.3f-%.3f s, %s to %s: %u", secs,
						 secs + (double)h->width / 1e9, lab, lab2, n);
				strobe_xml_end(&x);
				strobe_xml_end(&x);
			}
		/* axes: y labels every other bucket, x ticks at round times */
		line(&x, LEFT, top, LEFT, bottom);
		line(&x, LEFT, bottom, LEFT + plot_w, bottom);
		/* the y axis's title, upright along it, left of its labels */
		strobe_xml_start(&x, "text");
		strobe_xml_attr_num(&x, "x", 14);
		strobe_xml_attr_num(&x, "y", (top + bottom) / 2);
		strobe_xml_attrf(&x, "transform", "rotate(-90 14 %.1f)", (top + bottom) / 2);
		strobe_xml_attr(&x, "text-anchor", "middle");
		strobe_xml_attr(&x, "class", "s");
		strobe_xml_text(&x, "latency", 7);
		strobe_xml_end(&x);
		step = nrows > 16 ? 4 : nrows > 8 ? 2 : 1;
		for (r = lo; r <= hi + 1; r += step) {
			double ty = bottom - (r - lo) * ROW_H;

			lat_label(r, lab, sizeof(lab));
			line(&x, LEFT - 4, ty, LEFT, ty);
			text_at(&x, LEFT - 6, ty + 4, "end", NULL, lab);
		}
		{
			/* a tick every 1, 2 or 5 x 10^k seconds, 5 to 10 of them */
			double unit = pow(10, floor(log10(span > 0 ? span : 1))) , t;
			static const double mult[] = { 0.1, 0.2, 0.5, 1 };

			for (r2 = 0; r2 < 4 && span / (unit * mult[r2]) > 10; r2++)
				;
			unit *= mult[r2 < 4 ? r2 : 3];
			for (tick = 0, t = 0; t <= span + 1e-9 && tick < 50; t += unit, tick++) {
				double tx = LEFT + t / span * plot_w;

				line(&x, tx, bottom, tx, bottom + 4);
				secs_label(t, lab, sizeof(lab));
				text_at(&x, tx, bottom + 16, "middle", NULL, lab);
			}
		}
		strobe_xml_end(&x);
		py += nrows * ROW_H + PANEL_GAP;
	}
	/* the legend: the colour scale of counts */
	{
		double lx = width - RIGHT + 30, ly = TOP + 14, lh = 120;
		int k;

		text_at(&x, lx, ly - 4, NULL, NULL, "count");
		for (k = 0; k < 10; k++) {
			uint32_t n = max > 1 ? (uint32_t)lround(pow((double)max, (9 - k) / 9.0)) : 1;

			heat(n, max, fill, sizeof(fill));
			strobe_xml_start(&x, "rect");
			strobe_xml_attr_num(&x, "x", lx);
			strobe_xml_attr_num(&x, "y", ly + k * lh / 10);
			strobe_xml_attr(&x, "width", "16");
			strobe_xml_attr_num(&x, "height", lh / 10);
			strobe_xml_attr(&x, "fill", fill);
			strobe_xml_end(&x);
		}
		snprintf(lab, sizeof(lab), "%u", max);
		text_at(&x, lx + 22, ly + 10, NULL, NULL, lab);
		if (max > 1)
			text_at(&x, lx + 22, ly + lh, NULL, NULL, "1");
	}
	text_at(&x, LEFT + plot_w / 2, height - 14, "middle", "s",
		"time since the first event");
	strobe_xml_end(&x);	/* svg */
	r = strobe_xml_finish(&x);
	if (r < 0)
		return strobe_err(err, r, "cannot write the SVG: %s", strerror(-r));
	return 0;
}
