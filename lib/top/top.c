/*
 * top.c - the live view's engine (top.h): one analysis object grouped by
 * thread, read every interval with snapshot and reset; its columns and
 * what each needs, which of them the input can give, the engine as a
 * pipeline consumer, its options.  What an interval's tables say is
 * figures.c's; the rows under the grouping are view.c's.
 *
 * How it works.  Events go to the analysis (cputop, syscalls, schedlat,
 * io, mem as the shown columns need; thread grouping, every row,
 * histograms on).  At each tick the analysis builds the interval's tables
 * (strobe_analysis_snapshot) and is reset; the engine reads them once into
 * per-thread and per-container figures (figures.c), folds those into the
 * rows of the view (view.c) and calls on_interval.  Changing the grouping,
 * the sort, the filter or the drill-down between refreshes folds the same
 * figures again.  Nothing here runs per event but two counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/analysis.h>
#include <strobe/model.h>
#include <strobe/pipeline.h>
#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/top.h>

#include "table/table-int.h"
#include "top/top-int.h"
#include "util/err.h"


/* ---- the columns ------------------------------------------------------ */

const struct top_coldef top_cols[NR_COLS] = {
	[C_CPU] = { "cpu_pct", "CPU%", STROBE_COL_PERCENT, N_CPU, "sched" },
	[C_SYS] = { "syscalls_ps", "Sysc/s", STROBE_COL_RATE, N_SYS, "syscalls" },
	[C_ERR] = { "errors_ps", "Err/s", STROBE_COL_RATE, N_SYS, "syscalls" },
	[C_RQ50] = { "runq_p50", "RunQ p50(us)", STROBE_COL_DURATION, N_SCHED, "sched" },
	[C_RQ99] = { "runq_p99", "RunQ p99(us)", STROBE_COL_DURATION, N_SCHED, "sched" },
	[C_RQMAX] = { "runq_max", "RunQ max(us)", STROBE_COL_DURATION, N_SCHED, "sched" },
	[C_RD] = { "read_bps", "Read B/s", STROBE_COL_RATE, N_BLOCK, "io" },
	[C_WR] = { "write_bps", "Write B/s", STROBE_COL_RATE, N_BLOCK, "io" },
	[C_BLK99] = { "blkio_p99", "BlkIO p99(us)", STROBE_COL_DURATION, N_BLOCK, "io" },
	[C_SW] = { "switches_ps", "Csw/s", STROBE_COL_RATE, N_CPU, "sched" },
	[C_MEM] = { "mem_bytes", "Memory", STROBE_COL_BYTES, N_NONE, NULL },
	[C_FAULT] = { "faults_ps", "Flt/s", STROBE_COL_RATE, N_FAULT, "faults" },
	[C_TASKS] = { "tasks", "Tasks", STROBE_COL_INT, N_NONE, NULL },
};

static const char *const col_keys[NR_COLS + 1] = {
	"cpu_pct", "syscalls_ps", "errors_ps", "runq_p50", "runq_p99", "runq_max",
	"read_bps", "write_bps", "blkio_p99", "switches_ps", "mem_bytes", "faults_ps",
	"tasks", NULL
};

const char *const *strobe_top_column_keys(void)
{
	return col_keys;
}

int top_col_of(const char *key, size_t len)
{
	int i;

	for (i = 0; i < NR_COLS; i++)
		if (strlen(top_cols[i].key) == len && !strncmp(top_cols[i].key, key, len))
			return i;
	return -1;
}

const char *strobe_top_column_preset(const char *key)
{
	int c = key ? top_col_of(key, strlen(key)) : -1;

	return c < 0 ? NULL : top_cols[c].preset;
}

/* ---- the interval ---------------------------------------------------- */

static int interval(struct strobe_top *t, uint64_t ts, struct strobe_error *err)
{
	struct strobe_top_interval iv;
	int i, ret;

	if (!t->attached || !t->an)
		return 0;
	if (ts <= t->begin)
		return 0;
	ret = strobe_analysis_snapshot(t->an, ts, err);
	if (ret < 0)
		return ret;
	top_figures_clear(t);
	for (i = 0; i < strobe_analysis_nr_tables(t->an); i++) {
		ret = top_read_table(t, strobe_analysis_table(t->an, i));
		if (ret < 0)
			return strobe_err(err, ret, "out of memory");
	}
	ret = strobe_analysis_reset(t->an, ts, err);
	if (ret < 0)
		return ret;
	ret = top_model_tasks(t);
	if (ret < 0)
		return strobe_err(err, ret, "out of memory");
	memset(&iv, 0, sizeof(iv));
	iv.begin = t->begin;
	iv.end = ts;
	iv.seconds = (double)(ts - t->begin) / 1e9;
	t->seconds = iv.seconds;
	iv.events = t->events;
	iv.lost = t->lost + (t->lost_ext - t->lost_ext_prev);
	t->lost_ext_prev = t->lost_ext;
	iv.gaps = t->gaps;
	t->events = t->lost = t->gaps = 0;
	t->begin = ts;
	ret = top_build_interval(t, &iv);
	if (ret < 0)
		return strobe_err(err, ret, "out of memory");
	t->have_interval = true;
	ret = top_rebuild(t);
	if (ret < 0)
		return strobe_err(err, ret, "out of memory");
	if (t->o.on_interval) {
		ret = t->o.on_interval(t, &iv, t->o.arg);
		if (ret < 0)
			return strobe_err(err, ret, "%s", err && err->msg[0] ? err->msg
					  : "the view failed");
	}
	return 0;
}

/* ---- attach: the analyses and which columns can be shown -------------- */

static bool has(struct strobe_formats *f, const char *sys, const char *name)
{
	return f && strobe_formats_find(f, sys, name) != NULL;
}

static int set_why(struct strobe_top *t, int c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int set_why(struct strobe_top *t, int c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(t->why[c]);
	t->why[c] = strdup(buf);
	return t->why[c] ? 0 : -ENOMEM;
}

static int availability(struct strobe_top *t, struct strobe_formats *f)
{
	bool sw = has(f, "sched", "sched_switch");
	bool wk = has(f, "sched", "sched_wakeup") || has(f, "sched", "sched_waking");
	bool sys = (has(f, "raw_syscalls", "sys_enter") && has(f, "raw_syscalls", "sys_exit"));
	bool blk = has(f, "block", "block_rq_issue") && has(f, "block", "block_rq_complete");
	bool flt = has(f, "exceptions", "page_fault_user");
	int c, ret = 0;

	for (c = 0; c < NR_COLS; c++) {
		unsigned n = top_cols[c].need;

		if ((n & N_CPU) && !sw)
			ret |= set_why(t, c, "needs sched:sched_switch (the %s preset), which "
				       "this input lacks", top_cols[c].preset);
		else if ((n & N_SCHED) && !(sw && wk))
			ret |= set_why(t, c, "needs sched:sched_switch and sched_wakeup (the %s "
				       "preset), which this input lacks", top_cols[c].preset);
		else if ((n & N_SYS) && !sys)
			ret |= set_why(t, c, "needs raw_syscalls:sys_enter and sys_exit (the %s "
				       "preset), which this input lacks", top_cols[c].preset);
		else if ((n & N_BLOCK) && !blk)
			ret |= set_why(t, c, "needs block:block_rq_issue and block_rq_complete "
				       "(the %s preset), which this input lacks", top_cols[c].preset);
		else if ((n & N_FAULT) && !flt)
			ret |= set_why(t, c, "needs exceptions:page_fault_user (the %s preset), "
				       "which this kernel or input lacks", top_cols[c].preset);
	}
	return ret ? -ENOMEM : 0;
}

static int attach(struct strobe_top *t, struct strobe_formats *f, struct strobe_model *m,
		  struct strobe_error *err)
{
	struct strobe_analysis_opts ao = { .size = sizeof(ao) };
	int ret;

	t->fmts = f;
	t->model = m;
	ret = availability(t, f);
	if (ret < 0)
		return strobe_err(err, ret, "out of memory");
	ao.group_by = STROBE_GROUP_THREAD;
	ao.top = 0;
	ao.views = STROBE_VIEW_TOP | STROBE_VIEW_STATS | STROBE_VIEW_FREQ;
	ao.containers = t->o.containers;
	ao.nr_containers = t->o.nr_containers;
	ao.pids = t->o.pids;
	ao.nr_pids = t->o.nr_pids;
	t->attached = true;
	if (!t->names[0])
		return 0;	/* memory and tasks only */
	ret = strobe_analysis_new(t->names, &ao, &t->an, err);
	if (ret == 0)
		ret = strobe_analysis_attach(t->an, f, m, err);
	if (ret == -ENOENT) {	/* none of their events: the columns say why */
		strobe_analysis_free(t->an);
		t->an = NULL;
		strobe_err_clear(err);
		return 0;
	}
	return ret;
}

/* ---- the consumer ------------------------------------------------------ */

static int c_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		   struct strobe_error *err)
{
	struct strobe_top *t = arg;

	if (t->source >= nr)
		return strobe_err(err, -EINVAL, "top: no source %d", t->source);
	if (src[t->source].formats)
		return attach(t, src[t->source].formats, src[t->source].model, err);
	t->model = src[t->source].model;
	return 0;
}

static int c_event(const struct strobe_event *ev, int source, void *arg,
		   struct strobe_error *err)
{
	struct strobe_top *t = arg;
	int ret;

	if (source != t->source)
		return 0;
	if (!t->attached) {
		struct strobe_formats *f = strobe_format_catalogue(ev->format);

		if (!f)
			return 0;
		ret = attach(t, f, t->model, err);
		if (ret < 0)
			return ret;
	}
	if (!t->begin)
		t->begin = ev->ts;
	t->last_ts = ev->ts;
	t->events++;
	if (ev->missed) {
		t->gaps++;
		if (ev->missed > 0)
			t->lost += (uint64_t)ev->missed;
	}
	if (t->an)
		strobe_analysis_feed(t->an, ev);
	return 0;
}

static int c_tick(uint64_t ts, void *arg, struct strobe_error *err)
{
	struct strobe_top *t = arg;

	if (!t->begin)
		return 0;	/* nothing yet to measure an interval from */
	return interval(t, ts, err);
}

/* The run ended: what came after the last tick is an interval too (a
 * command that exited, --duration), shorter than the others. */
static int c_finish(void *arg, struct strobe_error *err)
{
	struct strobe_top *t = arg;

	if (!t->begin || t->last_ts <= t->begin)
		return 0;
	return interval(t, t->last_ts, err);
}

int strobe_top_consumer(struct strobe_top *t, int source, struct strobe_consumer *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->name = "top";
	out->flags = STROBE_CONSUMER_MODEL;
	out->start = c_start;
	out->event = c_event;
	out->tick = c_tick;
	out->finish = c_finish;
	out->arg = t;
	t->source = source;
	return 0;
}

void strobe_top_set_lost(struct strobe_top *t, uint64_t lost_total)
{
	if (t)
		t->lost_ext = lost_total;
}

/* ---- new, free, options ------------------------------------------------- */

static int add_name(char *buf, size_t size, const char *name)
{
	size_t len = strlen(buf);

	if (strstr(buf, name))
		return 0;
	return snprintf(buf + len, size - len, "%s%s", len ? "," : "", name) < (int)(size - len)
		? 0 : -ENOSPC;
}

int strobe_top_new(const struct strobe_top_opts *opts, struct strobe_top **out,
		   struct strobe_error *err)
{
	struct strobe_top *t;
	const char *p;
	int c, ret;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (opts)
		memcpy(&t->o, opts, opts->size && opts->size < sizeof(t->o) ? opts->size
		       : sizeof(t->o));
	t->o.size = sizeof(t->o);
	t->group = t->o.group_by;
	if ((unsigned)t->group > STROBE_TOP_THREAD) {
		ret = strobe_err(err, -EINVAL, "unknown grouping %d", (int)t->group);
		goto fail;
	}
	p = t->o.columns && *t->o.columns ? t->o.columns : NULL;
	if (!p)
		for (c = 0; c < NR_COLS; c++)
			t->order[t->nr_order++] = c;
	while (p && *p) {
		size_t len = strcspn(p, ",");

		c = top_col_of(p, len);
		if (c < 0) {
			ret = strobe_err(err, -EINVAL, "unknown column '%.*s' (columns: cpu_pct, "
					 "syscalls_ps, errors_ps, runq_p50, runq_p99, runq_max, "
					 "read_bps, write_bps, blkio_p99, switches_ps, mem_bytes, "
					 "faults_ps, tasks)", (int)(len > 64 ? 64 : len), p);
			goto fail;
		}
		if (!t->show[c])
			t->order[t->nr_order++] = c;
		t->show[c] = true;
		p += len;
		if (*p == ',')
			p++;
	}
	for (c = 0; c < t->nr_order; c++)
		t->show[t->order[c]] = true;
	if (!t->nr_order) {
		ret = strobe_err(err, -EINVAL, "no columns to show");
		goto fail;
	}
	t->sort = -1;
	ret = strobe_top_set_sort(t, t->o.sort ? t->o.sort : NULL, err);
	if (ret < 0)
		goto fail;
	for (c = 0; c < NR_COLS; c++) {
		if (!t->show[c])
			continue;
		if (top_cols[c].need & (N_CPU))
			ret |= add_name(t->names, sizeof(t->names), "cputop");
		if (top_cols[c].need & N_SYS)
			ret |= add_name(t->names, sizeof(t->names), "syscalls");
		if (top_cols[c].need & N_SCHED)
			ret |= add_name(t->names, sizeof(t->names), "schedlat");
		if (top_cols[c].need & N_BLOCK)
			ret |= add_name(t->names, sizeof(t->names), "io");
		if (top_cols[c].need & N_FAULT)
			ret |= add_name(t->names, sizeof(t->names), "mem");
		if (top_cols[c].preset)
			ret |= add_name(t->presets, sizeof(t->presets), top_cols[c].preset);
	}
	if (ret) {
		ret = strobe_err(err, -EINVAL, "too many analyses");
		goto fail;
	}
	*out = t;
	return 0;
fail:
	strobe_top_free(t);
	return ret;
}

void strobe_top_free(struct strobe_top *t)
{
	int c;

	if (!t)
		return;
	strobe_analysis_free(t->an);
	top_figures_clear(t);
	free(t->conts);
	free(t->th);
	free(t->th_hash);
	free(t->out_conts);
	for (c = 0; c < NR_COLS; c++)
		free(t->why[c]);
	free(t->filter);
	free(t->drill);
	tbl_free(t->table);
	free(t);
}

const char *strobe_top_presets(const struct strobe_top *t)
{
	return t->presets;
}
