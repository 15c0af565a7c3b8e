/*
 * core.c - the analysis object: several analyses over one event stream.
 *
 * strobe_analysis_new() instantiates the named analyses and lets each
 * declare its result tables (schemas depend only on the options, so LAMI
 * metadata needs no trace).  strobe_analysis_attach() resolves every
 * analysis' subscriptions against the file's event formats once and
 * builds the dispatch array (event id -> handlers); feeding an event is
 * then an array index and a few indirect calls.  The core also keeps what
 * every analysis needs to be correct rather than plausible:
 *
 *  - lost events: an event whose page says events were lost before it
 *    makes the core call each analysis' lost(cpu) hook (per-CPU state is
 *    forgotten) and records the gap, so per-thread measurements that
 *    began before any gap are dropped and counted (ana_gap_since);
 *  - thread instances: a tid reused by a new thread (a fork naming it, or
 *    a changed tgid) gets a new group key, so rows never merge two
 *    threads; entries of exited threads are swept a second after exit;
 *  - the window (--begin/--end) and the task filters;
 *  - PID-filtered recordings (strobe record -- CMD, -p, -c): which tasks
 *    were traced (ana_tid_traced), decided once per thread instance from
 *    the targets the file's info names and the forks in the trace, so an
 *    analysis never charges an untraced task for time the trace does not
 *    show.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyses/analysis-int.h"

static const struct ana_ops *const all_ops[] = {
	&ana_cputop_ops, &ana_syscalls_ops, &ana_schedlat_ops,
	&ana_io_ops, &ana_irq_ops, &ana_mem_ops,
};
#define NR_OPS (sizeof(all_ops) / sizeof(all_ops[0]))

static const char *const all_names[] = {
	"cputop", "syscalls", "schedlat", "io", "irq", "mem", NULL
};

struct handler {
	ana_handler fn;
	struct ana *a;
	int cookie;
};

struct disp {
	struct handler *h;
	int n;
};

struct ana_inst {
	uint64_t serial;
	uint64_t exit_ts;	/* 0: alive */
	int tgid;
	signed char traced;	/* filtered traces: 0 not decided yet, 1, -1 */
};

struct strobe_analysis {
	struct ana_core core;
	struct ana *anas;
	int nr_anas;
	struct disp *disp;	/* indexed by event id */
	int nr_disp;
	struct strobe_model *own_model;
	bool attached, finished;
	const struct strobe_table **all_tables;
	int nr_all_tables;
	/* the core's own events */
	struct strobe_field f_fork_child, f_fork_parent, f_exit_pid;
	uint64_t nr_events;
};

const char *const *strobe_analysis_names(void)
{
	return all_names;
}

static const struct ana_ops *find_ops(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NR_OPS; i++)
		if (strlen(all_ops[i]->name) == len && !strncmp(all_ops[i]->name, name, len))
			return all_ops[i];
	return NULL;
}

const char *strobe_analysis_summary(const char *name)
{
	const struct ana_ops *o = name ? find_ops(name, strlen(name)) : NULL;

	return o ? o->summary : NULL;
}

/* ---- notes ------------------------------------------------------------ */

void ana_note(struct ana_core *c, const char *fmt, ...)
{
	char **n;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	n = realloc(c->notes, (size_t)(c->nr_notes + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return;
	}
	c->notes = n;
	c->notes[c->nr_notes++] = s;
}

int strobe_analysis_nr_notes(const struct strobe_analysis *a)
{
	return a ? a->core.nr_notes : 0;
}

const char *strobe_analysis_note(const struct strobe_analysis *a, int i)
{
	return a && i >= 0 && i < a->core.nr_notes ? a->core.notes[i] : NULL;
}

/* ---- tables ------------------------------------------------------------ */

struct strobe_table *ana_table_new(const char *name, const char *title,
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
		ana_table_free(t);
		return NULL;
	}
	return t;
}

void ana_table_free(struct strobe_table *t)
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

int ana_table_col(struct strobe_table *t, const char *key, const char *title,
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

union strobe_value *ana_table_row(struct strobe_table *t)
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

const char *ana_table_str(struct strobe_table *t, const char *s)
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

struct strobe_table *ana_add_table(struct ana *a, const char *name, const char *title,
				   enum strobe_view view)
{
	struct strobe_table **n, *t = ana_table_new(name, title, view);

	if (!t)
		return NULL;
	n = realloc(a->tables, (size_t)(a->nr_tables + 1) * sizeof(*n));
	if (!n) {
		ana_table_free(t);
		return NULL;
	}
	a->tables = n;
	a->tables[a->nr_tables++] = t;
	return t;
}

/* ---- statistics ---------------------------------------------------------- */

static inline int log2_bucket(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* bcc's slot: 0 and 1 in slot 0, then [2^k, 2^(k+1)) in slot k. */
static inline int bcc_slot(uint64_t v)
{
	return v > 1 ? 63 - __builtin_clzll(v) : 0;
}

void ana_stats_add(struct ana_stats *st, uint64_t ns, bool want_hist)
{
	double d;

	if (!st->count || ns < st->min)
		st->min = ns;
	if (ns > st->max)
		st->max = ns;
	st->count++;
	st->total += ns;
	d = (double)ns - st->mean;
	st->mean += d / (double)st->count;
	st->m2 += d * ((double)ns - st->mean);
	if (want_hist) {
		int o, sub;

		if (!st->hist) {
			st->hist = calloc(1, sizeof(*st->hist));
			if (!st->hist)
				return;
		}
		st->hist->us_log2[bcc_slot(ns / 1000)]++;
		o = log2_bucket(ns);
		/* octave o holds [2^(o-1), 2^o): its 16 equal slices */
		sub = o >= 5 ? (int)((ns >> (o - 5)) & (ANA_FINE_SUB - 1))
			     : (o ? (int)((ns - (1ULL << (o - 1))) & (ANA_FINE_SUB - 1)) : 0);
		st->hist->fine[o > 63 ? 63 : o][sub]++;
	}
}

double ana_stats_stddev(const struct ana_stats *st)
{
	return st->count > 1 ? sqrt(st->m2 / (double)(st->count - 1)) : 0.0;
}

void ana_stats_free(struct ana_stats *st)
{
	free(st->hist);
	st->hist = NULL;
}

int ana_stats_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= ana_table_col(t, "count", "Count", STROBE_COL_INT);
	ret |= ana_table_col(t, "total", "Total(us)", STROBE_COL_DURATION);
	ret |= ana_table_col(t, "min", "Min(us)", STROBE_COL_DURATION);
	ret |= ana_table_col(t, "avg", "Avg(us)", STROBE_COL_DURATION);
	ret |= ana_table_col(t, "max", "Max(us)", STROBE_COL_DURATION);
	ret |= ana_table_col(t, "stddev", "Stdev(us)", STROBE_COL_DURATION);
	return ret ? -ENOMEM : 0;
}

void ana_stats_vals(union strobe_value *v, const struct ana_stats *st)
{
	v[0].i = (int64_t)st->count;
	v[1].u = st->total;
	v[2].u = st->count ? st->min : 0;
	v[3].u = st->count ? st->total / st->count : 0;
	v[4].u = st->max;
	v[5].u = (uint64_t)llround(ana_stats_stddev(st));
}

/* Lower bound (ns) of fine bucket (octave o, slice s). */
static uint64_t fine_lo(int o, int s)
{
	if (!o)
		return 0;
	if (o >= 5)
		return (1ULL << (o - 1)) + ((uint64_t)s << (o - 5));
	return (1ULL << (o - 1)) + (uint64_t)s;
}

static uint64_t fine_width(int o)
{
	if (!o)
		return 1;
	return o >= 5 ? 1ULL << (o - 5) : 1;
}

/* The columns of a histogram table: bucket bounds and count. */
static int hist_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= ana_table_col(t, "lo", "Low", STROBE_COL_INT);
	ret |= ana_table_col(t, "hi", "High", STROBE_COL_INT);
	ret |= ana_table_col(t, "count", "Count", STROBE_COL_INT);
	return ret ? -ENOMEM : 0;
}

struct strobe_table *ana_add_freq_schema(struct ana *a, const char *name, const char *title)
{
	struct strobe_table *t = ana_add_table(a, name, title, STROBE_VIEW_FREQ);

	if (!t || hist_cols(t))
		return NULL;
	t->schema_only = true;
	return t;
}

int ana_emit_hist(struct ana *a, const char *name, const char *title,
		  const struct ana_stats *st)
{
	struct ana_core *c = a->core;
	struct strobe_table *t;
	union strobe_value *v;
	int i, s, last = -1, nb = c->opts.freq_resolution;

	if (!st->hist || !st->count)
		return 0;
	t = ana_add_table(a, name, title, STROBE_VIEW_FREQ);
	if (!t || hist_cols(t))
		return -ENOMEM;
	t->lami_class = name;
	if (nb <= 0) {
		/* log2 of microseconds, as bcc: "0 -> 1", then [2^k, 2^(k+1) - 1] */
		t->unit = "usecs";
		for (i = 0; i < 64; i++)
			if (st->hist->us_log2[i])
				last = i;
		for (i = 0; i <= last; i++) {
			if (!(v = ana_table_row(t)))
				return -ENOMEM;
			v[0].i = i ? (int64_t)(1ULL << i) : 0;
			v[1].i = i < 63 ? (int64_t)((1ULL << (i + 1)) - 1) : INT64_MAX;
			v[2].i = st->hist->us_log2[i];
		}
		if (!i) {	/* all zero-length: one bucket */
			if (!(v = ana_table_row(t)))
				return -ENOMEM;
			v[1].i = 1;
		}
		return 0;
	} else {
		/* nb linear buckets over [min, max] ns; each fine slice's count
		 * goes to the bucket holding the slice's middle (clamped). */
		uint64_t lo = st->min, span = st->max - st->min + 1;
		size_t first = t->nr_rows;

		t->unit = "nsecs";
		for (i = 0; i < nb; i++) {
			if (!(v = ana_table_row(t)))
				return -ENOMEM;
			v[0].i = (int64_t)(lo + span * (uint64_t)i / (uint64_t)nb);
			v[1].i = (int64_t)(lo + span * (uint64_t)(i + 1) / (uint64_t)nb) - 1;
		}
		for (i = 0; i < 64; i++)
			for (s = 0; s < ANA_FINE_SUB; s++) {
				uint64_t mid, n = st->hist->fine[i][s];
				int b;

				if (!n)
					continue;
				mid = fine_lo(i, s) + fine_width(i) / 2;
				if (mid < lo)
					mid = lo;
				b = (int)((mid - lo) * (uint64_t)nb / span);
				if (b >= nb)
					b = nb - 1;
				t->cells[(first + (size_t)b) * 3 + 2].i += (int64_t)n;
			}
		return 0;
	}
}

/* ---- ranking ----------------------------------------------------------- */

static int rank_cmp(const void *x, const void *y)
{
	const struct ana_rank *a = x, *b = y;

	if (a->metric != b->metric)
		return a->metric > b->metric ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

void ana_rank_sort(struct ana_rank *r, size_t n)
{
	if (n > 1)
		qsort(r, n, sizeof(*r), rank_cmp);
}

size_t ana_top_n(const struct ana_core *c, size_t n)
{
	return c->opts.top > 0 && (size_t)c->opts.top < n ? (size_t)c->opts.top : n;
}

/* ---- owners and filters ---------------------------------------------- */

const struct strobe_task *ana_task(struct ana_core *c, int tid)
{
	return strobe_model_task(c->model, tid);
}

const char *ana_container_name(struct ana_core *c, int index)
{
	const struct strobe_container *ct = strobe_model_container(c->model, index);

	return ct ? ct->name : "unknown";
}

static bool container_selected(struct ana_core *c, const struct strobe_container *ct)
{
	int i, idx = ct->index;

	if (idx < 0)
		return false;
	if (idx >= c->nr_cont_sel) {
		int n = idx + 16;
		signed char *s = realloc(c->cont_sel, (size_t)n);

		if (!s)
			return false;
		memset(s + c->nr_cont_sel, 0, (size_t)(n - c->nr_cont_sel));
		c->cont_sel = s;
		c->nr_cont_sel = n;
	}
	if (!c->cont_sel[idx]) {
		c->cont_sel[idx] = -1;
		for (i = 0; i < c->opts.nr_containers; i++) {
			const char *w = c->opts.containers[i];
			size_t l = strlen(w);

			if (!strcmp(w, ct->name) || !strcmp(w, ct->id) ||
			    (l >= 4 && ct->id[0] && !strncmp(w, ct->id, l)))
				c->cont_sel[idx] = 1;
		}
	}
	return c->cont_sel[idx] > 0;
}

bool ana_task_selected(struct ana_core *c, const struct strobe_task *t)
{
	const struct strobe_analysis_opts *o = &c->opts;
	int i;

	if (!t)
		return false;
	if (o->nr_tids) {
		for (i = 0; i < o->nr_tids && o->tids[i] != t->tid; i++)
			;
		if (i == o->nr_tids)
			return false;
	}
	if (o->nr_pids) {
		for (i = 0; i < o->nr_pids && o->pids[i] != t->tgid; i++)
			;
		if (i == o->nr_pids)
			return false;
	}
	if (o->nr_comms) {
		for (i = 0; i < o->nr_comms && fnmatch(o->comms[i], t->comm, 0); i++)
			;
		if (i == o->nr_comms)
			return false;
	}
	if (o->nr_containers && !container_selected(c, t->container))
		return false;
	return true;
}

bool ana_cpu_selected(struct ana_core *c, int cpu)
{
	const struct strobe_analysis_opts *o = &c->opts;

	return !o->cpu_mask || (cpu >= 0 && cpu < o->nr_cpu_mask && o->cpu_mask[cpu]);
}

static struct ana_inst *inst_get(struct ana_core *c, int tid, int tgid)
{
	bool created;
	struct ana_inst *e = ana_map_put(&c->inst, (uint64_t)(uint32_t)tid, &created);

	if (!e)
		return NULL;
	if (created || (e->tgid >= 0 && tgid >= 0 && e->tgid != tgid)) {
		e->serial = ++c->next_serial;
		e->exit_ts = 0;
		e->tgid = tgid;
		e->traced = 0;
	} else if (e->tgid < 0) {
		e->tgid = tgid;
	}
	return e;
}

/* ---- PID-filtered recordings ---------------------------------------------- */

#define TRACED_MAX_DEPTH 64	/* tgid/ppid links followed at most */
#define MAX_TARGET_PIDS 4096
#define MAX_TARGET_CONTS 256

static bool is_target_pid(const struct ana_core *c, int pid)
{
	int i;

	for (i = 0; i < c->nr_target_pids; i++)
		if (c->target_pids[i] == pid)
			return true;
	return false;
}

/* -c: is container ct a target?  Decided once per container index. */
static bool cont_traced(struct ana_core *c, const struct strobe_container *ct)
{
	int i, idx = ct->index;

	if (idx < 2)		/* unknown, host */
		return false;
	if (idx >= c->nr_cont_traced) {
		int n = idx + 16;
		signed char *s = realloc(c->cont_traced, (size_t)n);

		if (!s)
			return false;
		memset(s + c->nr_cont_traced, 0, (size_t)(n - c->nr_cont_traced));
		c->cont_traced = s;
		c->nr_cont_traced = n;
	}
	if (!c->cont_traced[idx]) {
		c->cont_traced[idx] = -1;
		for (i = 0; i < c->nr_target_conts; i++)
			if (strobe_container_matches(ct, c->target_conts[i]))
				c->cont_traced[idx] = 1;
	}
	return c->cont_traced[idx] > 0;
}

/*
 * -- CMD / -p: tid is traced if it is a target or a thread of one; else a
 * thread is traced with its process, and with -- CMD a process whose
 * parent is (the command and its descendants are the only tasks that
 * appeared under it).  A task forked in the trace got its answer from its
 * parent in core_fork already.  Each answer is kept in the thread's
 * instance entry; depth bounds the walk (a malformed table may loop).
 */
static bool pid_traced(struct ana_core *c, int tid, int depth)
{
	const struct strobe_task *t;
	struct ana_inst *e;
	int tgid, ppid;
	bool yes;

	if (tid <= 0)
		return false;
	e = ana_map_get(&c->inst, (uint64_t)(uint32_t)tid);
	if (e && e->traced)
		return e->traced > 0;
	t = ana_task(c, tid);
	if (!t)
		return false;	/* ENOMEM: undecided, not kept */
	tgid = t->tgid;
	ppid = t->ppid;
	yes = is_target_pid(c, tid) || (tgid > 0 && is_target_pid(c, tgid));
	if (!yes && depth < TRACED_MAX_DEPTH) {
		if (tgid > 0 && tgid != tid)
			yes = pid_traced(c, tgid, depth + 1);
		else if (c->descendants && ppid > 0 && ppid != tid)
			yes = pid_traced(c, ppid, depth + 1);
	}
	e = inst_get(c, tid, tgid);
	if (e)
		e->traced = yes ? 1 : -1;
	return yes;
}

bool ana_tid_traced(struct ana_core *c, int tid)
{
	const struct strobe_task *t;

	if (!c->filtered)
		return true;
	if (tid <= 0)
		return false;
	if (c->by_container) {
		t = ana_task(c, tid);
		return t && cont_traced(c, t->container);
	}
	return pid_traced(c, tid, 0);
}

void ana_note_filtered(struct ana_core *c, const char *name, const char *what)
{
	if (c->filtered)
		ana_note(c, "%s: the recording was PID-filtered (strobe record %s): %s",
			 name, c->target, what);
}

static void free_targets(struct ana_core *c)
{
	int i;

	for (i = 0; i < c->nr_target_conts; i++)
		free(c->target_conts[i]);
	free(c->target_conts);
	free(c->target_pids);
	c->target_conts = NULL;
	c->target_pids = NULL;
	c->nr_target_conts = c->nr_target_pids = 0;
	c->filtered = c->by_container = c->descendants = false;
	c->target = NULL;
}

/* The comma-separated list s: positive PIDs into c (malformed skipped). */
static int parse_pids(struct ana_core *c, const char *s)
{
	while (s && *s && c->nr_target_pids < MAX_TARGET_PIDS) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (end != s && !errno && v > 0 && v <= INT32_MAX && (*end == ',' || !*end)) {
			if (!c->target_pids) {
				c->target_pids = calloc(MAX_TARGET_PIDS, sizeof(int));
				if (!c->target_pids)
					return -ENOMEM;
			}
			c->target_pids[c->nr_target_pids++] = (int)v;
		}
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return 0;
}

/* The comma-separated container IDs of s into c (1..64 printable bytes). */
static int parse_conts(struct ana_core *c, const char *s)
{
	while (s && *s && c->nr_target_conts < MAX_TARGET_CONTS) {
		size_t len = strcspn(s, ","), i;
		bool ok = len >= 1 && len <= 64;

		for (i = 0; ok && i < len; i++)
			ok = (unsigned char)s[i] > ' ' && (unsigned char)s[i] < 0x7f;
		if (ok) {
			if (!c->target_conts) {
				c->target_conts = calloc(MAX_TARGET_CONTS, sizeof(char *));
				if (!c->target_conts)
					return -ENOMEM;
			}
			c->target_conts[c->nr_target_conts] = strndup(s, len);
			if (!c->target_conts[c->nr_target_conts])
				return -ENOMEM;
			c->nr_target_conts++;
		}
		s += len;
		if (*s)
			s++;
	}
	return 0;
}

int strobe_analysis_set_target(struct strobe_analysis *a, const char *target,
			       const char *pids, const char *containers,
			       struct strobe_error *err)
{
	static const struct { const char *name, *desc; } kinds[] = {
		{ "command", "-- CMD" }, { "pid", "-p PID" }, { "container", "-c NAME" },
	};
	struct ana_core *c = &a->core;
	size_t i;

	if (a->attached)
		return strobe_err(err, -EINVAL, "set the recording target before attaching");
	if (!target || !strcmp(target, "system")) {
		free_targets(c);
		return 0;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(target, kinds[i].name))
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return strobe_err(err, -EINVAL, "unknown recording target '%.40s'", target);
	free_targets(c);
	c->filtered = true;
	c->target = kinds[i].desc;
	c->by_container = i == 2;
	c->descendants = i == 0;
	if ((!c->by_container && parse_pids(c, pids) < 0) ||
	    (c->by_container && parse_conts(c, containers) < 0)) {
		free_targets(c);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	return 0;
}

uint64_t ana_group_key(struct ana_core *c, const struct strobe_task *t, int cpu)
{
	struct ana_inst *e;

	switch (c->opts.group_by) {
	case STROBE_GROUP_CPU:
		return (uint64_t)(uint32_t)cpu;
	case STROBE_GROUP_CONTAINER:
		return (uint64_t)(uint32_t)t->container->index;
	case STROBE_GROUP_PROCESS:
		if (t->tgid >= 0) {
			e = inst_get(c, t->tgid, t->tgid);
			return e ? e->serial : (uint64_t)(uint32_t)t->tgid;
		}
		/* unknown process: the thread stands for it */
		/* fall through */
	case STROBE_GROUP_THREAD:
	default:
		e = inst_get(c, t->tid, t->tgid);
		return e ? e->serial : (uint64_t)(uint32_t)t->tid;
	}
}

void ana_owner_set(struct ana_core *c, struct ana_owner *o, const struct strobe_task *t,
		   int cpu)
{
	o->tid = t->tid;
	o->pid = t->tgid;
	o->cpu = cpu;
	o->container = t->container->index;
	memcpy(o->comm, t->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = '\0';
	if (c->opts.group_by == STROBE_GROUP_PROCESS && t->tgid >= 0 && t->tgid != t->tid) {
		int tgid = t->tgid;
		const struct strobe_task *l = ana_task(c, tgid);	/* t may move */

		if (l && l->comm[0] && l->comm[0] != '<')
			memcpy(o->comm, l->comm, sizeof(o->comm));
		o->comm[sizeof(o->comm) - 1] = '\0';
	}
}

void ana_owner_refresh(struct ana_core *c, struct ana_owner *o,
		       const struct strobe_task *t)
{
	bool mine;

	switch (c->opts.group_by) {
	case STROBE_GROUP_THREAD:
		mine = t->tid == o->tid;
		break;
	case STROBE_GROUP_PROCESS:
		mine = t->tid == t->tgid && t->tgid == o->pid;
		break;
	default:
		return;
	}
	if (mine && t->comm[0] != '<' && memcmp(o->comm, t->comm, sizeof(o->comm) - 1)) {
		memcpy(o->comm, t->comm, sizeof(o->comm) - 1);
		o->comm[sizeof(o->comm) - 1] = '\0';
	}
}

int ana_task_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= ana_table_col(t, "tid", "TID", STROBE_COL_INT);
	ret |= ana_table_col(t, "pid", "PID", STROBE_COL_INT);
	ret |= ana_table_col(t, "comm", "Comm", STROBE_COL_STR);
	ret |= ana_table_col(t, "container", "Container", STROBE_COL_STR);
	return ret ? -ENOMEM : 0;
}

int ana_owner_cols(struct ana_core *c, struct strobe_table *t)
{
	int ret = 0;

	switch (c->opts.group_by) {
	case STROBE_GROUP_CPU:
		return ana_table_col(t, "cpu", "CPU", STROBE_COL_INT);
	case STROBE_GROUP_CONTAINER:
		return ana_table_col(t, "container", "Container", STROBE_COL_STR);
	case STROBE_GROUP_PROCESS:
		ret |= ana_table_col(t, "pid", "PID", STROBE_COL_INT);
		break;
	case STROBE_GROUP_THREAD:
	default:
		ret |= ana_table_col(t, "tid", "TID", STROBE_COL_INT);
		ret |= ana_table_col(t, "pid", "PID", STROBE_COL_INT);
		break;
	}
	ret |= ana_table_col(t, "comm", "Comm", STROBE_COL_STR);
	ret |= ana_table_col(t, "container", "Container", STROBE_COL_STR);
	return ret ? -ENOMEM : 0;
}

int ana_owner_vals(struct ana_core *c, struct strobe_table *t, union strobe_value *v,
		   const struct ana_owner *o)
{
	int n = 0;

	switch (c->opts.group_by) {
	case STROBE_GROUP_CPU:
		v[0].i = o->cpu;
		return 1;
	case STROBE_GROUP_CONTAINER:
		v[0].s = ana_table_str(t, ana_container_name(c, o->container));
		return 1;
	case STROBE_GROUP_PROCESS:
		v[n++].i = o->pid >= 0 ? o->pid : o->tid;
		break;
	case STROBE_GROUP_THREAD:
	default:
		v[n++].i = o->tid;
		v[n++].i = o->pid;
		break;
	}
	v[n++].s = ana_table_str(t, o->comm);
	v[n++].s = ana_table_str(t, ana_container_name(c, o->container));
	return n;
}

/* ---- lifecycle ------------------------------------------------------------ */

int strobe_analysis_new(const char *names, const struct strobe_analysis_opts *opts,
			struct strobe_analysis **out, struct strobe_error *err)
{
	struct strobe_analysis *a;
	const char *p = names, *e;
	int i, ret;

	*out = NULL;
	if (!names || !*names)
		return strobe_err(err, -EINVAL, "no analysis named");
	a = calloc(1, sizeof(*a));
	if (!a)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (opts)
		a->core.opts = *opts;
	a->core.want_hist = ana_view(&a->core, STROBE_VIEW_FREQ);
	ana_map_init(&a->core.inst, sizeof(struct ana_inst));
	a->anas = calloc(NR_OPS * 4, sizeof(*a->anas));	/* names may repeat: capped */
	if (!a->anas) {
		free(a);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	while (*p) {
		const struct ana_ops *o;
		struct ana *an;

		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		o = find_ops(p, (size_t)(e - p));
		if (!o) {
			ret = strobe_err(err, -EINVAL,
					 "unknown analysis '%.*s' (known: cputop, syscalls, "
					 "schedlat, io, irq, mem)", (int)(e - p), p);
			strobe_analysis_free(a);
			return ret;
		}
		for (i = 0; i < a->nr_anas && a->anas[i].ops != o; i++)
			;
		if (i == a->nr_anas) {	/* once each */
			an = &a->anas[a->nr_anas++];
			an->ops = o;
			an->core = &a->core;
			an->priv = calloc(1, o->priv_size ? o->priv_size : 1);
			if (!an->priv || (o->init && o->init(an) < 0)) {
				strobe_analysis_free(a);
				return strobe_err(err, -ENOMEM, "out of memory");
			}
		}
		p = *e ? e + 1 : e;
	}
	if (!a->nr_anas) {
		strobe_analysis_free(a);
		return strobe_err(err, -EINVAL, "no analysis named");
	}
	*out = a;
	return 0;
}

void strobe_analysis_free(struct strobe_analysis *a)
{
	int i, j;

	if (!a)
		return;
	for (i = 0; i < a->nr_anas; i++) {
		struct ana *an = &a->anas[i];

		if (an->ops->free && an->priv)
			an->ops->free(an);
		free(an->priv);
		for (j = 0; j < an->nr_tables; j++)
			ana_table_free(an->tables[j]);
		free(an->tables);
	}
	free(a->anas);
	for (i = 0; i < a->nr_disp; i++)
		free(a->disp[i].h);
	free(a->disp);
	for (i = 0; i < a->core.nr_notes; i++)
		free(a->core.notes[i]);
	free(a->core.notes);
	free(a->core.gap_end);
	free(a->core.cpu_last);
	free(a->core.cpu_pid);
	free(a->core.cpu_pid_since);
	free(a->core.cont_sel);
	free(a->core.cont_traced);
	free_targets(&a->core);
	free(a->all_tables);
	ana_map_free(&a->core.inst);
	strobe_model_free(a->own_model);
	free(a);
}

/*
 * The core's own handlers: thread instances for PID reuse.  In a trace
 * filtered by PID, a child is traced when its parent is (event-fork adds
 * it to set_event_pid): decided here, while the parent is surely known.
 */
static void core_fork(struct strobe_analysis *a, const struct strobe_event *ev)
{
	struct ana_core *c = &a->core;
	int child = (int)strobe_field_int(ev, &a->f_fork_child);
	signed char traced = 0;
	struct ana_inst *e;

	if (c->filtered && !c->by_container) {
		int parent = a->f_fork_parent.valid ? (int)strobe_field_int(ev, &a->f_fork_parent)
						    : ev->pid;

		traced = is_target_pid(c, child) || pid_traced(c, parent, 0) ? 1 : -1;
	}
	e = ana_map_put(&c->inst, (uint64_t)(uint32_t)child, NULL);	/* after the walk */
	if (e) {
		e->serial = ++c->next_serial;
		e->exit_ts = 0;
		e->tgid = -1;
		e->traced = traced;
	}
}

static void core_exit(struct strobe_analysis *a, const struct strobe_event *ev)
{
	int pid = (int)strobe_field_int(ev, &a->f_exit_pid);
	struct ana_inst *e = ana_map_get(&a->core.inst, (uint64_t)(uint32_t)pid);

	if (e)
		e->exit_ts = ev->ts ? ev->ts : 1;
}

/* Forget instances that exited more than a second ago. */
static void sweep(struct ana_core *c, uint64_t now)
{
	uint64_t keys[256], key;
	struct ana_inst *e;
	size_t pos = 0;
	int n = 0, i;

	c->sweep_ts = now;
	while (n < 256 && (e = ana_map_next(&c->inst, &pos, &key)))
		if (e->exit_ts && e->exit_ts + 1000000000ULL < now)
			keys[n++] = key;
	for (i = 0; i < n; i++)
		ana_map_del(&c->inst, keys[i]);
}

static int add_handler(struct strobe_analysis *a, int id, ana_handler fn, struct ana *an,
		       int cookie)
{
	struct disp *d = &a->disp[id];
	struct handler *h = realloc(d->h, (size_t)(d->n + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	d->h = h;
	h[d->n].fn = fn;
	h[d->n].a = an;
	h[d->n].cookie = cookie;
	d->n++;
	return 0;
}

int strobe_analysis_attach(struct strobe_analysis *a, struct tep_handle *tep,
			   struct strobe_model *m, struct strobe_error *err)
{
	struct tep_event **evs;
	int i, j, k, max_id = -1, nr_active = 0, ret;
	struct tep_event *fe;

	if (a->attached)
		return strobe_err(err, -EINVAL, "analysis already attached");
	if (!m) {
		ret = strobe_model_new(&a->own_model, err);
		if (ret < 0)
			return ret;
		m = a->own_model;
	}
	a->core.model = m;
	a->core.tep = tep;
	for (i = 0; i < a->nr_anas; i++) {
		struct ana *an = &a->anas[i];

		an->active = an->ops->resolve(an, tep) == 0;
		if (an->active) {
			nr_active++;
		} else {
			ana_note(&a->core, "%s: the trace has none of the events it needs (%s); "
				 "record them with 'strobe record --preset %s'",
				 an->ops->name, an->ops->needs, an->ops->preset);
		}
	}
	if (!nr_active) {
		a->attached = true;
		return strobe_err(err, -ENOENT, "%s", a->core.notes[a->core.nr_notes - 1]);
	}

	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	for (i = 0; evs && evs[i]; i++)
		if (evs[i]->id > max_id)
			max_id = evs[i]->id;
	a->nr_disp = max_id + 1;
	a->disp = calloc((size_t)(a->nr_disp > 0 ? a->nr_disp : 1), sizeof(*a->disp));
	if (!a->disp)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; evs && evs[i]; i++) {
		struct tep_event *e = evs[i];

		if (e->id < 0)
			continue;
		for (j = 0; j < a->nr_anas; j++) {
			struct ana *an = &a->anas[j];

			if (!an->active)
				continue;
			for (k = 0; an->ops->subs[k].fn; k++) {
				const struct ana_sub *s = &an->ops->subs[k];

				if (fnmatch(s->system, e->system, 0) || fnmatch(s->event, e->name, 0))
					continue;
				if (add_handler(a, e->id, s->fn, an, s->cookie) < 0)
					return strobe_err(err, -ENOMEM, "out of memory");
			}
		}
	}
	fe = tep_find_event_by_name(tep, "sched", "sched_process_fork");
	if (fe && !strobe_field_resolve(fe, "child_pid", &a->f_fork_child)) {
		strobe_field_resolve(fe, "parent_pid", &a->f_fork_parent);	/* optional */
		add_handler(a, fe->id, NULL, NULL, 1);
	}
	fe = tep_find_event_by_name(tep, "sched", "sched_process_exit");
	if (fe && !strobe_field_resolve(fe, "pid", &a->f_exit_pid))
		add_handler(a, fe->id, NULL, NULL, 2);
	a->attached = true;
	return 0;
}

/* Make room for per-CPU arrays up to cpu; false on ENOMEM. */
static bool ensure_cpu(struct ana_core *c, int cpu)
{
	int n = cpu + 8;
	uint64_t *g, *l, *ps;
	int *p;

	if (cpu < 0 || cpu > 1 << 20)
		return false;
	p = realloc(c->cpu_pid, (size_t)n * sizeof(*p));
	if (!p)
		return false;
	c->cpu_pid = p;
	ps = realloc(c->cpu_pid_since, (size_t)n * sizeof(*ps));
	if (!ps)
		return false;
	c->cpu_pid_since = ps;
	memset(ps + c->nr_cpus, 0, (size_t)(n - c->nr_cpus) * sizeof(*ps));
	memset(p + c->nr_cpus, 0xff, (size_t)(n - c->nr_cpus) * sizeof(*p));
	g = realloc(c->gap_end, (size_t)n * sizeof(*g));
	if (!g)
		return false;
	c->gap_end = g;
	l = realloc(c->cpu_last, (size_t)n * sizeof(*l));
	if (!l)
		return false;
	c->cpu_last = l;
	memset(g + c->nr_cpus, 0, (size_t)(n - c->nr_cpus) * sizeof(*g));
	memset(l + c->nr_cpus, 0, (size_t)(n - c->nr_cpus) * sizeof(*l));
	c->nr_cpus = n;
	return true;
}

static void note_gap(struct strobe_analysis *a, const struct strobe_event *ev)
{
	struct ana_core *c = &a->core;
	int i;

	if (ev->cpu >= 0 && ev->cpu < c->nr_cpus)
		c->gap_end[ev->cpu] = ev->ts;
	c->last_gap_any = ev->ts;
	for (i = 0; i < a->nr_anas; i++)
		if (a->anas[i].active && a->anas[i].ops->lost)
			a->anas[i].ops->lost(&a->anas[i], ev->cpu, ev->ts);
}

void strobe_analysis_feed(struct strobe_analysis *a, const struct strobe_event *ev)
{
	struct ana_core *c = &a->core;
	const struct disp *d;
	int i;

	if (a->own_model)
		strobe_model_update(a->own_model, ev);
	if (ev->cpu >= c->nr_cpus && !ensure_cpu(c, ev->cpu))
		return;
	if (ev->missed)
		note_gap(a, ev);
	if (ev->cpu >= 0) {
		c->cpu_last[ev->cpu] = ev->ts;
		if (c->cpu_pid[ev->cpu] != ev->pid || ev->missed) {
			c->cpu_pid[ev->cpu] = ev->pid;
			c->cpu_pid_since[ev->cpu] = ev->ts;
		}
	}
	if (!ana_in_window(c, ev->ts))
		return;
	if (!c->first_ts)
		c->first_ts = ev->ts;
	c->last_ts = ev->ts;
	if ((unsigned)ev->type >= (unsigned)a->nr_disp)
		return;
	d = &a->disp[ev->type];
	for (i = 0; i < d->n; i++) {
		const struct handler *h = &d->h[i];

		if (h->fn)
			h->fn(h->a, ev, h->cookie);
		else if (h->cookie == 1)
			core_fork(a, ev);
		else
			core_exit(a, ev);
	}
	if (!(++a->nr_events & 0xffff) && c->inst.n > 1024 &&
	    ev->ts > c->sweep_ts + 1000000000ULL)
		sweep(c, ev->ts);
}

int strobe_analysis_finish(struct strobe_analysis *a, struct strobe_error *err)
{
	struct ana_core *c = &a->core;
	int i, j, n = 0;

	if (a->finished)
		return 0;
	a->finished = true;
	c->win_begin = c->opts.begin ? c->opts.begin : c->first_ts;
	c->win_end = c->opts.end && c->opts.end < c->last_ts ? c->opts.end : c->last_ts;
	if (c->opts.end && !c->last_ts)
		c->win_end = c->opts.end;
	if (c->win_end < c->win_begin)
		c->win_end = c->win_begin;
	for (i = 0; i < a->nr_anas; i++) {
		struct ana *an = &a->anas[i];

		if (an->active && an->ops->finish && an->ops->finish(an) < 0)
			return strobe_err(err, -ENOMEM, "out of memory");
		for (j = 0; j < an->nr_tables; j++)
			an->tables[j]->dropped = an->dropped;
		if (an->active && an->dropped)
			ana_note(c, "%s: %llu measurements dropped because events were lost "
				 "inside them", an->ops->name, (unsigned long long)an->dropped);
		n += an->nr_tables;
	}
	a->all_tables = calloc((size_t)(n ? n : 1), sizeof(*a->all_tables));
	if (!a->all_tables)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < a->nr_anas; i++)
		for (j = 0; j < a->anas[i].nr_tables; j++)
			if (a->anas[i].active && !a->anas[i].tables[j]->schema_only)
				a->all_tables[a->nr_all_tables++] = a->anas[i].tables[j];
	return 0;
}

int strobe_analysis_nr_tables(const struct strobe_analysis *a)
{
	int i, n = 0;

	if (a->all_tables)
		return a->nr_all_tables;
	for (i = 0; i < a->nr_anas; i++)
		n += a->anas[i].nr_tables;
	return n;
}

const struct strobe_table *strobe_analysis_table(const struct strobe_analysis *a, int idx)
{
	int i;

	if (idx < 0)
		return NULL;
	if (a->all_tables)
		return idx < a->nr_all_tables ? a->all_tables[idx] : NULL;
	for (i = 0; i < a->nr_anas; i++) {	/* before finish: the schemas */
		if (idx < a->anas[i].nr_tables)
			return a->anas[i].tables[idx];
		idx -= a->anas[i].nr_tables;
	}
	return NULL;
}

void strobe_analysis_window(const struct strobe_analysis *a, uint64_t *begin, uint64_t *end)
{
	if (begin)
		*begin = a->core.win_begin;
	if (end)
		*end = a->core.win_end;
}

int strobe_analysis_run_file(struct strobe_analysis *a, struct strobe_tracefile *tf,
			     struct strobe_error *err)
{
	struct strobe_stream_opts sopts = { .buffer = -1 };
	struct strobe_stream *s = NULL;
	struct strobe_model *m = NULL;
	struct strobe_error e2 = { 0, "" };
	struct strobe_event ev;
	int ret;

	ret = strobe_model_new(&m, err);
	if (ret < 0)
		return ret;
	ret = strobe_model_load_file(m, tf, err);
	if (ret < 0)
		goto out;
	a->own_model = m;	/* freed with a */
	m = NULL;
	ret = strobe_analysis_set_target(a, strobe_tracefile_info(tf, "target"),
					 strobe_tracefile_info(tf, "target_pids"),
					 strobe_tracefile_info(tf, "target_containers"), &e2);
	if (ret == -EINVAL) {
		ana_note(&a->core, "%s (a newer strobe's file?): analysed as a whole-system "
			 "recording, so tasks it did not trace may be charged for time "
			 "the trace does not show", e2.msg);
	} else if (ret < 0) {
		strobe_err(err, ret, "%s", e2.msg);
		goto out;
	}
	ret = strobe_analysis_attach(a, strobe_tracefile_tep(tf), a->own_model, err);
	if (ret < 0)
		goto out;
	sopts.cpu_mask = a->core.opts.cpu_mask;
	sopts.nr_cpu_mask = a->core.opts.cpu_mask ? a->core.opts.nr_cpu_mask : 0;
	ret = strobe_stream_open_file(tf, &sopts, &s, err);
	if (ret < 0)
		goto out;
	while ((ret = strobe_stream_next(s, &ev, err)) > 0) {
		if (a->core.opts.end && ev.ts > a->core.opts.end) {
			a->core.last_ts = a->core.opts.end;	/* the window ends there */
			break;	/* events are in time order: nothing more to count */
		}
		strobe_analysis_feed(a, &ev);	/* updates the model first */
	}
	if (ret < 0)
		goto out;
	ret = strobe_analysis_finish(a, err);
out:
	strobe_stream_close(s);
	strobe_model_free(m);
	return ret;
}
