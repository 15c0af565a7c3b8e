/*
 * top.c - the live view's engine (top.h): one analysis object grouped by
 * thread, read every interval with snapshot and reset, folded into the
 * rows of `strobe top` and the per-container figures of its metrics.
 *
 * How it works.  The engine is a consumer of the one pipeline.  Events
 * go to the analysis (cputop, syscalls, schedlat, io as the shown
 * columns need; thread grouping, every row, histograms on).  At each tick
 * the analysis builds the interval's tables (strobe_analysis_snapshot)
 * and is reset; the engine reads them once into per-thread figures
 * (struct tfig: CPU time, switches, system calls and errors, run-queue
 * and block latency histograms, block bytes) and per-container figures
 * for the metrics (per-syscall counts and errors, the system-call latency
 * histogram).  The rows of the view are folded from the thread figures
 * under the current grouping, so changing the grouping, the sort, the
 * filter or the drill-down between refreshes costs no events: the same
 * figures are folded again.  Containers and pods that did nothing in the
 * interval still get a row (their tasks are counted from the task model),
 * so an idle container shows as idle rather than vanishing.
 *
 * Percentiles come from the log2 histograms (bcc's slots of
 * microseconds) by linear interpolation inside the slot, capped by the
 * maximum the statistics saw.  Memory is the container's cgroup usage,
 * read from /proc/<tid>/cgroup of one of its tasks and the memory
 * controller's file (v1 memory.usage_in_bytes, v2 memory.current) each
 * interval.  Nothing here runs per event but two counters.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

enum col {
	C_CPU, C_SYS, C_ERR, C_RQ50, C_RQ99, C_RQMAX, C_RD, C_WR, C_BLK99, C_SW, C_MEM,
	C_FAULT, C_TASKS, NR_COLS
};

enum need { N_CPU = 1, N_SYS = 2, N_SCHED = 4, N_BLOCK = 8, N_FAULT = 16, N_NONE = 0 };

static const struct coldef {
	const char *key, *title;
	enum strobe_col_type type;
	unsigned need;		/* enum need */
	const char *preset;
} cols[NR_COLS] = {
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

static int col_of(const char *key, size_t len)
{
	int i;

	for (i = 0; i < NR_COLS; i++)
		if (strlen(cols[i].key) == len && !strncmp(cols[i].key, key, len))
			return i;
	return -1;
}

const char *strobe_top_column_preset(const char *key)
{
	int c = key ? col_of(key, strlen(key)) : -1;

	return c < 0 ? NULL : cols[c].preset;
}

/* ---- small helpers ------------------------------------------------------ */

static int tbl_col_index(const struct strobe_table *t, const char *key)
{
	int i;

	for (i = 0; i < strobe_table_nr_columns(t); i++)
		if (!strcmp(strobe_table_column(t, i)->key, key))
			return i;
	return -1;
}

static int label_index(const struct strobe_table *t, const char *key)
{
	int i;

	for (i = 0; i < strobe_table_nr_labels(t); i++)
		if (!strcmp(strobe_table_label_column(t, i)->key, key))
			return i;
	return -1;
}

/* bcc's slot of a histogram row's low bound (usecs). */
static int slot_of(int64_t lo)
{
	int s;

	if (lo <= 1)
		return 0;
	s = 63 - __builtin_clzll((uint64_t)lo);
	return s < STROBE_TOP_SLOTS ? s : STROBE_TOP_SLOTS - 1;
}

/* Add the rows of histogram table t (unit usecs) to h. */
static void hist_add_table(struct strobe_top_hist *h, const struct strobe_table *t)
{
	int lo = tbl_col_index(t, "lo"), n = tbl_col_index(t, "count");
	size_t r;

	if (lo < 0 || n < 0 || strcmp(strobe_table_unit(t), "usecs"))
		return;
	for (r = 0; r < strobe_table_nr_rows(t); r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		if (v[n].i > 0)
			h->slot[slot_of(v[lo].i)] += (uint64_t)v[n].i;
	}
}

static void hist_merge(struct strobe_top_hist *d, const struct strobe_top_hist *s)
{
	int i;

	for (i = 0; i < STROBE_TOP_SLOTS; i++)
		d->slot[i] += s->slot[i];
	d->count += s->count;
	d->sum_ns += s->sum_ns;
}

/* The q-quantile (0..1) of h in ns, interpolated linearly inside its
 * slot and capped at max_ns (0: no cap); STROBE_VALUE_NONE_U when h is
 * empty. */
uint64_t top_hist_quantile(const struct strobe_top_hist *h, double q, uint64_t max_ns)
{
	uint64_t total = 0, cum = 0;
	double target, lo, hi, v;
	int i;

	for (i = 0; i < STROBE_TOP_SLOTS; i++)
		total += h->slot[i];
	if (!total)
		return STROBE_VALUE_NONE_U;
	target = q * (double)total;
	for (i = 0; i < STROBE_TOP_SLOTS; i++) {
		if (!h->slot[i])
			continue;
		if ((double)(cum + h->slot[i]) >= target)
			break;
		cum += h->slot[i];
	}
	if (i == STROBE_TOP_SLOTS)
		i = STROBE_TOP_SLOTS - 1;
	lo = i ? (double)(1ULL << i) : 0.0;
	hi = (double)(1ULL << (i + 1));
	v = lo + (hi - lo) * (target - (double)cum) / (double)(h->slot[i] ? h->slot[i] : 1);
	v *= 1000.0;
	if (max_ns && v > (double)max_ns)
		v = (double)max_ns;
	return (uint64_t)v;
}

/* ---- per-thread and per-container figures ---------------------------- */

struct tfig {
	int tid, pid;
	char comm[16];
	int cont;		/* index into t->conts */
	uint64_t cpu_ns, switches, sys, errs, rd, wr, faults;
	uint64_t rq_max, blk_max;
	struct strobe_top_hist rq, blk;
};

struct sysfig {		/* a container's figures for one syscall */
	char name[32];
	uint64_t count, errors;
};

struct errfig {
	char syscall[32], error[24];
	uint64_t count;
};

struct cfig {		/* one container's figures in the interval */
	char name[256], id[65], pod[256], ns[256];
	int model_index;	/* in the model, -1 unknown */
	int any_tid;		/* a live task of it, for its cgroup; 0 none */
	int tasks;
	int64_t mem;
	struct sysfig *sys;
	int nr_sys, cap_sys;
	struct errfig *errs;
	int nr_errs, cap_errs;
	struct strobe_top_hist sys_lat;
	/* the figures handed to on_interval */
	struct strobe_top_syscall *out_sys;
	struct strobe_top_errno *out_errs;
};

struct strobe_top {
	struct strobe_top_opts o;
	bool show[NR_COLS];
	int order[NR_COLS], nr_order;	/* shown columns, in order */
	unsigned needs;			/* enum need bits of the analyses run */
	char names[64];			/* the analyses */
	char presets[64];
	char *why[NR_COLS];		/* unavailable: why */
	int source;
	struct strobe_analysis *an;
	struct strobe_model *model;
	struct strobe_formats *fmts;
	bool attached;
	uint64_t begin;			/* the current interval's start */
	uint64_t last_ts;
	uint64_t events, lost, lost_ext, lost_ext_prev;
	double seconds;			/* of the latest interval */
	/* the latest interval's figures */
	struct tfig *th;
	size_t nr_th, cap_th;
	int *th_hash;			/* open addressing, tid -> index + 1 */
	size_t hash_cap;
	struct cfig *conts;
	int nr_conts, cap_conts;
	struct strobe_top_container *out_conts;
	/* the view */
	enum strobe_top_group group;
	int sort;			/* column, or -1: the group key */
	char *filter, *drill;
	struct strobe_table *table;
	bool have_interval;
	struct strobe_error err;
};

static void cfig_free(struct cfig *c)
{
	free(c->sys);
	free(c->errs);
	free(c->out_sys);
	free(c->out_errs);
}

static void figures_clear(struct strobe_top *t)
{
	int i;

	for (i = 0; i < t->nr_conts; i++)
		cfig_free(&t->conts[i]);
	t->nr_conts = 0;
	t->nr_th = 0;
	if (t->th_hash)
		memset(t->th_hash, 0, t->hash_cap * sizeof(*t->th_hash));
}

static struct tfig *thread_fig(struct strobe_top *t, int tid)
{
	size_t h, i;

	if (t->nr_th * 2 >= t->hash_cap) {
		size_t cap = t->hash_cap ? t->hash_cap * 2 : 256;
		int *nh = calloc(cap, sizeof(*nh));

		if (!nh)
			return NULL;
		for (i = 0; i < t->nr_th; i++) {
			h = ((uint32_t)t->th[i].tid * 2654435761u) & (cap - 1);
			while (nh[h])
				h = (h + 1) & (cap - 1);
			nh[h] = (int)i + 1;
		}
		free(t->th_hash);
		t->th_hash = nh;
		t->hash_cap = cap;
	}
	h = ((uint32_t)tid * 2654435761u) & (t->hash_cap - 1);
	while (t->th_hash[h]) {
		struct tfig *f = &t->th[t->th_hash[h] - 1];

		if (f->tid == tid)
			return f;
		h = (h + 1) & (t->hash_cap - 1);
	}
	if (t->nr_th == t->cap_th) {
		size_t cap = t->cap_th ? t->cap_th * 2 : 128;
		struct tfig *n = realloc(t->th, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->th = n;
		t->cap_th = cap;
	}
	t->th_hash[h] = (int)t->nr_th + 1;
	memset(&t->th[t->nr_th], 0, sizeof(t->th[0]));
	t->th[t->nr_th].tid = tid;
	t->th[t->nr_th].pid = -1;
	t->th[t->nr_th].cont = -1;
	return &t->th[t->nr_th++];
}

/* Split a Kubernetes display name "ns/pod/container". */
static void pod_of(const char *name, char *pod, size_t psize, char *ns, size_t nsize)
{
	const char *a = strchr(name, '/'), *b = a ? strchr(a + 1, '/') : NULL;

	pod[0] = ns[0] = '\0';
	if (!a || !b || strchr(b + 1, '/'))
		return;
	snprintf(ns, nsize, "%.*s", (int)(a - name), name);
	snprintf(pod, psize, "%.*s", (int)(b - a - 1), a + 1);
}

static int container_fig(struct strobe_top *t, const char *name)
{
	const struct strobe_container *mc;
	struct cfig *c;
	int i;

	if (!name || !name[0])
		name = "unknown";
	for (i = 0; i < t->nr_conts; i++)
		if (!strcmp(t->conts[i].name, name))
			return i;
	if (t->nr_conts == t->cap_conts) {
		int cap = t->cap_conts ? t->cap_conts * 2 : 16;
		struct cfig *n = realloc(t->conts, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->conts = n;
		t->cap_conts = cap;
	}
	c = &t->conts[t->nr_conts];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->model_index = -1;
	c->mem = -1;
	mc = t->model ? strobe_model_find_container(t->model, name) : NULL;
	if (!mc && t->model && !strcmp(name, "host"))
		mc = strobe_model_container(t->model, STROBE_CONTAINER_HOST);
	if (mc) {
		c->model_index = mc->index;
		snprintf(c->id, sizeof(c->id), "%s", mc->id);
	}
	pod_of(name, c->pod, sizeof(c->pod), c->ns, sizeof(c->ns));
	return t->nr_conts++;
}

/* The thread of a row of a thread-grouped table (columns tid, pid, comm,
 * container), or labels of a per-group histogram. */
static struct tfig *row_thread(struct strobe_top *t, const struct strobe_table *tb,
			       const union strobe_value *v, bool labels)
{
	int ti, pi, ci, ki;
	const union strobe_value *tv, *pv, *cv, *kv;
	struct tfig *f;

	if (labels) {
		ti = label_index(tb, "tid");
		pi = label_index(tb, "pid");
		ci = label_index(tb, "comm");
		ki = label_index(tb, "container");
		if (ti < 0)
			return NULL;
		tv = strobe_table_label(tb, ti);
		pv = pi >= 0 ? strobe_table_label(tb, pi) : NULL;
		cv = ci >= 0 ? strobe_table_label(tb, ci) : NULL;
		kv = ki >= 0 ? strobe_table_label(tb, ki) : NULL;
	} else {
		ti = tbl_col_index(tb, "tid");
		pi = tbl_col_index(tb, "pid");
		ci = tbl_col_index(tb, "comm");
		ki = tbl_col_index(tb, "container");
		if (ti < 0)
			return NULL;
		tv = &v[ti];
		pv = pi >= 0 ? &v[pi] : NULL;
		cv = ci >= 0 ? &v[ci] : NULL;
		kv = ki >= 0 ? &v[ki] : NULL;
	}
	f = thread_fig(t, (int)tv->i);
	if (!f)
		return NULL;
	if (pv && pv->i > 0)
		f->pid = (int)pv->i;
	if (cv && cv->s && cv->s[0])
		snprintf(f->comm, sizeof(f->comm), "%s", cv->s);
	if (f->cont < 0 && kv) {
		int c = container_fig(t, kv->s);

		if (c < 0)
			return NULL;
		f->cont = c;
	}
	return f;
}

static struct sysfig *sys_fig(struct cfig *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr_sys; i++)
		if (!strcmp(c->sys[i].name, name))
			return &c->sys[i];
	if (c->nr_sys == c->cap_sys) {
		int cap = c->cap_sys ? c->cap_sys * 2 : 16;
		struct sysfig *n = realloc(c->sys, (size_t)cap * sizeof(*n));

		if (!n)
			return NULL;
		c->sys = n;
		c->cap_sys = cap;
	}
	memset(&c->sys[c->nr_sys], 0, sizeof(c->sys[0]));
	snprintf(c->sys[c->nr_sys].name, sizeof(c->sys[0].name), "%s", name);
	return &c->sys[c->nr_sys++];
}

static int err_fig(struct cfig *c, const char *sys, const char *err, uint64_t n)
{
	int i;

	for (i = 0; i < c->nr_errs; i++)
		if (!strcmp(c->errs[i].syscall, sys) && !strcmp(c->errs[i].error, err)) {
			c->errs[i].count += n;
			return 0;
		}
	if (c->nr_errs == c->cap_errs) {
		int cap = c->cap_errs ? c->cap_errs * 2 : 16;
		struct errfig *e = realloc(c->errs, (size_t)cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		c->errs = e;
		c->cap_errs = cap;
	}
	memset(&c->errs[c->nr_errs], 0, sizeof(c->errs[0]));
	snprintf(c->errs[c->nr_errs].syscall, sizeof(c->errs[0].syscall), "%s", sys);
	snprintf(c->errs[c->nr_errs].error, sizeof(c->errs[0].error), "%s", err);
	c->errs[c->nr_errs++].count = n;
	return 0;
}

/* Read one table of the snapshot into the figures. */
static int read_table(struct strobe_top *t, const struct strobe_table *tb)
{
	const char *name = strobe_table_name(tb);
	size_t r, nr = strobe_table_nr_rows(tb);
	struct tfig *f;

	if (!strcmp(name, "cputop.top")) {
		int ns = tbl_col_index(tb, "cpu_time"), sw = tbl_col_index(tb, "switches");

		for (r = 0; r < nr; r++) {
			const union strobe_value *v = strobe_table_row(tb, r);

			if (!(f = row_thread(t, tb, v, false)))
				return -ENOMEM;
			f->cpu_ns += ns >= 0 ? v[ns].u : 0;
			f->switches += sw >= 0 ? (uint64_t)v[sw].i : 0;
		}
	} else if (!strcmp(name, "syscalls.stats")) {
		int sc = tbl_col_index(tb, "syscall"), n = tbl_col_index(tb, "count");
		int er = tbl_col_index(tb, "errors"), tot = tbl_col_index(tb, "total");

		for (r = 0; r < nr; r++) {
			const union strobe_value *v = strobe_table_row(tb, r);
			struct sysfig *s;

			if (!(f = row_thread(t, tb, v, false)))
				return -ENOMEM;
			f->sys += n >= 0 ? (uint64_t)v[n].i : 0;
			f->errs += er >= 0 ? (uint64_t)v[er].i : 0;
			if (sc < 0 || f->cont < 0)
				continue;
			if (!(s = sys_fig(&t->conts[f->cont], v[sc].s ? v[sc].s : "?")))
				return -ENOMEM;
			s->count += n >= 0 ? (uint64_t)v[n].i : 0;
			s->errors += er >= 0 ? (uint64_t)v[er].i : 0;
			t->conts[f->cont].sys_lat.count += n >= 0 ? (uint64_t)v[n].i : 0;
			t->conts[f->cont].sys_lat.sum_ns += tot >= 0 ? v[tot].u : 0;
		}
	} else if (!strcmp(name, "syscalls.errors")) {
		int sc = tbl_col_index(tb, "syscall"), e = tbl_col_index(tb, "error");
		int n = tbl_col_index(tb, "count");

		for (r = 0; sc >= 0 && e >= 0 && n >= 0 && r < nr; r++) {
			const union strobe_value *v = strobe_table_row(tb, r);

			if (!(f = row_thread(t, tb, v, false)))
				return -ENOMEM;
			if (f->cont >= 0 &&
			    err_fig(&t->conts[f->cont], v[sc].s ? v[sc].s : "?",
				    v[e].s ? v[e].s : "?", (uint64_t)v[n].i) < 0)
				return -ENOMEM;
		}
	} else if (!strcmp(name, "syscalls.freq")) {
		if (!(f = row_thread(t, tb, NULL, true)))
			return 0;	/* a histogram of no thread */
		if (f->cont >= 0)
			hist_add_table(&t->conts[f->cont].sys_lat, tb);
	} else if (!strcmp(name, "schedlat.stats")) {
		int n = tbl_col_index(tb, "count"), tot = tbl_col_index(tb, "total");
		int mx = tbl_col_index(tb, "max");

		for (r = 0; r < nr; r++) {
			const union strobe_value *v = strobe_table_row(tb, r);

			if (!(f = row_thread(t, tb, v, false)))
				return -ENOMEM;
			f->rq.count += n >= 0 ? (uint64_t)v[n].i : 0;
			f->rq.sum_ns += tot >= 0 ? v[tot].u : 0;
			if (mx >= 0 && v[mx].u > f->rq_max)
				f->rq_max = v[mx].u;
		}
	} else if (!strcmp(name, "schedlat.freq")) {
		if ((f = row_thread(t, tb, NULL, true)))
			hist_add_table(&f->rq, tb);
	} else if (!strcmp(name, "io.block")) {
		int rd = tbl_col_index(tb, "read_bytes"), wr = tbl_col_index(tb, "write_bytes");
		int n = tbl_col_index(tb, "count"), tot = tbl_col_index(tb, "total");
		int mx = tbl_col_index(tb, "max");

		for (r = 0; r < nr; r++) {
			const union strobe_value *v = strobe_table_row(tb, r);

			if (!(f = row_thread(t, tb, v, false)))
				return -ENOMEM;
			f->rd += rd >= 0 ? v[rd].u : 0;
			f->wr += wr >= 0 ? v[wr].u : 0;
			f->blk.count += n >= 0 ? (uint64_t)v[n].i : 0;
			f->blk.sum_ns += tot >= 0 ? v[tot].u : 0;
			if (mx >= 0 && v[mx].u > f->blk_max)
				f->blk_max = v[mx].u;
		}
	} else if (!strcmp(name, "io.block_freq")) {
		if ((f = row_thread(t, tb, NULL, true)))
			hist_add_table(&f->blk, tb);
	} else if (!strcmp(name, "mem.top")) {
		int fl = tbl_col_index(tb, "faults");

		for (r = 0; fl >= 0 && r < nr; r++) {
			const union strobe_value *v = strobe_table_row(tb, r);

			if (!(f = row_thread(t, tb, v, false)))
				return -ENOMEM;
			f->faults += (uint64_t)v[fl].i;
		}
	}
	return 0;
}

/* ---- memory from the cgroup files ------------------------------------- */

static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

int top_cgroup_memory_file(const char *cgroup_text, const char *root, char *out, size_t size)
{
	const char *line = cgroup_text, *v2 = NULL;
	size_t v2len = 0;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *c1 = strchr(line, ':');
		const char *c2 = c1 && (!end || c1 < end) ? strchr(c1 + 1, ':') : NULL;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (c2 && c2 < line + len) {
			const char *ctl = c1 + 1, *path = c2 + 1;
			size_t ctl_len = (size_t)(c2 - ctl), plen = (size_t)(line + len - path);
			const char *p;

			/* the memory controller's list may name others too */
			for (p = ctl; p < c2; ) {
				const char *comma = memchr(p, ',', (size_t)(c2 - p));
				size_t l = comma ? (size_t)(comma - p) : (size_t)(c2 - p);

				if (l == 6 && !strncmp(p, "memory", 6)) {
					int n = snprintf(out, size, "%s/memory%.*s/memory.usage_in_bytes",
							 root, (int)plen, path);

					return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
				}
				p += l + 1;
			}
			if (!ctl_len && line[0] == '0') {
				v2 = path;
				v2len = plen;
			}
		}
		line = end ? end + 1 : NULL;
	}
	if (v2) {
		char probe[4200];
		int n;

		/* a unified mount alone, or beside v1 ones (hybrid) */
		n = snprintf(probe, sizeof(probe), "%s/unified", root);
		if (n > 0 && (size_t)n < sizeof(probe) && access(probe, F_OK) == 0)
			n = snprintf(out, size, "%s/unified%.*s/memory.current", root, (int)v2len, v2);
		else
			n = snprintf(out, size, "%s%.*s/memory.current", root, (int)v2len, v2);
		return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
	}
	return -ENOENT;
}

static int64_t container_memory(struct strobe_top *t, int tid)
{
	char path[64], text[4096], file[4200], num[64];
	const char *root = t->o.cgroup_root ? t->o.cgroup_root : "/sys/fs/cgroup";
	char *end;
	unsigned long long v;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	if (read_small(path, text, sizeof(text)) <= 0 ||
	    top_cgroup_memory_file(text, root, file, sizeof(file)) < 0 ||
	    read_small(file, num, sizeof(num)) <= 0)
		return -1;
	errno = 0;
	v = strtoull(num, &end, 10);
	if (errno || end == num)
		return -1;
	return (int64_t)v;
}

/* Containers of the model's live tasks: a row each, their task counts,
 * one tid each for the cgroup files. */
static int model_tasks(struct strobe_top *t)
{
	const struct strobe_task *task;
	size_t cur = 0;
	int i;

	if (!t->model)
		return 0;
	while ((task = strobe_model_next_task(t->model, &cur))) {
		struct strobe_task_info info;
		int c;

		if (task->tid <= 0)
			continue;
		if (strobe_model_task_info(t->model, task->tid, &info) == 0 && info.exited)
			continue;
		if (t->o.nr_containers) {
			int k;
			bool keep = false;

			for (k = 0; k < t->o.nr_containers && !keep; k++)
				keep = strobe_container_matches(task->container, t->o.containers[k]);
			if (!keep)
				continue;
		}
		if (t->o.nr_pids) {
			int k;
			bool keep = false;

			for (k = 0; k < t->o.nr_pids && !keep; k++)
				keep = task->tgid == t->o.pids[k] || task->tid == t->o.pids[k];
			if (!keep)
				continue;
		}
		c = container_fig(t, task->container->name);
		if (c < 0)
			return c;
		t->conts[c].tasks++;
		if (!t->conts[c].any_tid)
			t->conts[c].any_tid = task->tid;
	}
	for (i = 0; i < t->nr_conts; i++)
		if (t->conts[i].any_tid && strcmp(t->conts[i].name, "host") &&
		    strcmp(t->conts[i].name, "unknown"))
			t->conts[i].mem = container_memory(t, t->conts[i].any_tid);
	return 0;
}

/* ---- the metrics figures --------------------------------------------- */

static int cmp_sys(const void *a, const void *b)
{
	const struct sysfig *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int build_interval(struct strobe_top *t, struct strobe_top_interval *iv)
{
	int top = t->o.top_syscalls > 0 ? t->o.top_syscalls : 10;
	struct strobe_top_container *oc;
	size_t i;
	int c, k;

	free(t->out_conts);
	t->out_conts = calloc((size_t)(t->nr_conts ? t->nr_conts : 1), sizeof(*oc));
	if (!t->out_conts)
		return -ENOMEM;
	for (i = 0; i < t->nr_th; i++) {
		const struct tfig *f = &t->th[i];

		if (f->cont < 0)
			continue;
		oc = &t->out_conts[f->cont];
		oc->cpu_ns += f->cpu_ns;
		oc->switches += f->switches;
		oc->read_bytes += f->rd;
		oc->write_bytes += f->wr;
		hist_merge(&oc->runq_lat, &f->rq);
		hist_merge(&oc->blkio_lat, &f->blk);
	}
	for (c = 0; c < t->nr_conts; c++) {
		struct cfig *cf = &t->conts[c];
		int n = cf->nr_sys < top ? cf->nr_sys : top;
		bool other = cf->nr_sys > top;

		oc = &t->out_conts[c];
		oc->name = cf->name;
		oc->id = cf->id;
		oc->pod = cf->pod;
		oc->ns = cf->ns;
		oc->mem_bytes = cf->mem;
		oc->tasks = cf->tasks;
		oc->syscall_lat = cf->sys_lat;
		if (cf->nr_sys)
			qsort(cf->sys, (size_t)cf->nr_sys, sizeof(*cf->sys), cmp_sys);
		free(cf->out_sys);
		free(cf->out_errs);
		cf->out_sys = calloc((size_t)n + 1, sizeof(*cf->out_sys));
		cf->out_errs = calloc((size_t)cf->nr_errs + 1, sizeof(*cf->out_errs));
		if (!cf->out_sys || !cf->out_errs)
			return -ENOMEM;
		for (k = 0; k < n; k++)
			cf->out_sys[k] = (struct strobe_top_syscall){ cf->sys[k].name,
								      cf->sys[k].count,
								      cf->sys[k].errors };
		if (other) {
			cf->out_sys[n].name = "other";
			for (k = n; k < cf->nr_sys; k++) {
				cf->out_sys[n].count += cf->sys[k].count;
				cf->out_sys[n].errors += cf->sys[k].errors;
			}
		}
		oc->syscalls = cf->out_sys;
		oc->nr_syscalls = n + other;
		/* errno series of the kept syscalls; the rest as "other" */
		oc->nr_errnos = 0;
		for (k = 0; k < cf->nr_errs; k++) {
			const char *s = cf->errs[k].syscall;
			int j, m;
			bool kept = false;

			for (j = 0; j < n && !kept; j++)
				kept = !strcmp(cf->sys[j].name, s);
			if (!kept)
				s = "other";
			for (m = 0; m < oc->nr_errnos; m++)
				if (!strcmp(cf->out_errs[m].syscall, s) &&
				    !strcmp(cf->out_errs[m].error, cf->errs[k].error))
					break;
			if (m == oc->nr_errnos)
				cf->out_errs[oc->nr_errnos++] =
					(struct strobe_top_errno){ s, cf->errs[k].error, 0 };
			cf->out_errs[m].count += cf->errs[k].count;
		}
		oc->errnos = cf->out_errs;
	}
	iv->containers = t->out_conts;
	iv->nr_containers = t->nr_conts;
	return 0;
}

/* ---- the view: rows folded under the grouping ------------------------- */

struct grow {
	char key[520];		/* the group's identity */
	int tid, pid, cont;
	char comm[16];
	uint64_t cpu_ns, switches, sys, errs, rd, wr, faults, rq_max, blk_max;
	struct strobe_top_hist rq, blk;
	int tasks;
	bool active;
};

struct fold {
	struct grow *g;
	size_t n, cap;
};

static struct grow *fold_get(struct fold *fd, const char *key)
{
	size_t i;

	for (i = 0; i < fd->n; i++)
		if (!strcmp(fd->g[i].key, key))
			return &fd->g[i];
	if (fd->n == fd->cap) {
		size_t cap = fd->cap ? fd->cap * 2 : 64;
		struct grow *g = realloc(fd->g, cap * sizeof(*g));

		if (!g)
			return NULL;
		fd->g = g;
		fd->cap = cap;
	}
	memset(&fd->g[fd->n], 0, sizeof(fd->g[0]));
	snprintf(fd->g[fd->n].key, sizeof(fd->g[0].key), "%s", key);
	fd->g[fd->n].cont = -1;
	return &fd->g[fd->n++];
}

static enum strobe_top_group view_group(const struct strobe_top *t)
{
	return t->drill ? STROBE_TOP_PROCESS : t->group;
}

static const char *cont_name(const struct strobe_top *t, int c)
{
	return c >= 0 && c < t->nr_conts ? t->conts[c].name : "unknown";
}

static void group_key(const struct strobe_top *t, enum strobe_top_group g, int tid, int pid,
		      int cont, char *key, size_t size)
{
	switch (g) {
	case STROBE_TOP_CONTAINER:
		snprintf(key, size, "%s", cont_name(t, cont));
		break;
	case STROBE_TOP_POD:
		if (cont >= 0 && t->conts[cont].pod[0])
			snprintf(key, size, "%s/%s", t->conts[cont].ns, t->conts[cont].pod);
		else
			snprintf(key, size, "%s", cont_name(t, cont));
		break;
	case STROBE_TOP_PROCESS:
		snprintf(key, size, "%d", pid > 0 ? pid : tid);
		break;
	case STROBE_TOP_THREAD:
		snprintf(key, size, "%d", tid);
		break;
	}
}

static bool drilled_out(const struct strobe_top *t, int cont)
{
	return t->drill && strcmp(cont_name(t, cont), t->drill) != 0;
}

static int fold(struct strobe_top *t, struct fold *fd)
{
	enum strobe_top_group g = view_group(t);
	char key[520];
	struct grow *r;
	size_t i;
	int c;

	for (i = 0; i < t->nr_th; i++) {
		const struct tfig *f = &t->th[i];

		if (drilled_out(t, f->cont))
			continue;
		group_key(t, g, f->tid, f->pid, f->cont, key, sizeof(key));
		if (!(r = fold_get(fd, key)))
			return -ENOMEM;
		if (!r->active) {
			r->tid = f->tid;
			r->pid = f->pid > 0 ? f->pid : f->tid;
			r->cont = f->cont;
			memcpy(r->comm, f->comm, sizeof(r->comm));
		}
		if (f->tid == f->pid)	/* a process row is named by its leader */
			memcpy(r->comm, f->comm, sizeof(r->comm));
		r->active = true;
		r->cpu_ns += f->cpu_ns;
		r->switches += f->switches;
		r->sys += f->sys;
		r->errs += f->errs;
		r->rd += f->rd;
		r->wr += f->wr;
		r->faults += f->faults;
		if (f->rq_max > r->rq_max)
			r->rq_max = f->rq_max;
		if (f->blk_max > r->blk_max)
			r->blk_max = f->blk_max;
		hist_merge(&r->rq, &f->rq);
		hist_merge(&r->blk, &f->blk);
		if (g == STROBE_TOP_THREAD)
			r->tasks = 1;
	}
	/* containers and pods with nothing to show still get their row */
	if (g == STROBE_TOP_CONTAINER || g == STROBE_TOP_POD) {
		for (c = 0; c < t->nr_conts; c++) {
			if (!t->conts[c].tasks && !t->conts[c].any_tid) {
				/* met in a table only: its row exists if active */
				continue;
			}
			group_key(t, g, 0, 0, c, key, sizeof(key));
			if (!(r = fold_get(fd, key)))
				return -ENOMEM;
			if (r->cont < 0)
				r->cont = c;
			r->tasks += t->conts[c].tasks;
		}
	} else if (g == STROBE_TOP_PROCESS && t->model) {
		/* threads of the shown processes */
		for (i = 0; i < fd->n; i++) {
			const struct strobe_task *task;
			size_t cur = 0;
			int n = 0;

			while ((task = strobe_model_next_task(t->model, &cur)))
				if (task->tgid == fd->g[i].pid)
					n++;
			fd->g[i].tasks = n ? n : 1;
		}
	}
	return 0;
}

static bool filtered_out(const struct strobe_top *t, const struct grow *r)
{
	const char *f = t->filter;

	if (!f || !*f)
		return false;
	return !strstr(cont_name(t, r->cont), f) && !strstr(r->comm, f) &&
	       !(r->cont >= 0 && strstr(t->conts[r->cont].pod, f));
}

/* The value of column c of group row r, as a double for sorting too. */
static union strobe_value cell(const struct strobe_top *t, const struct grow *r, int c)
{
	double s = t->seconds > 0 ? t->seconds : 1;
	union strobe_value v;
	enum strobe_top_group g = view_group(t);

	v.u = 0;
	if (t->why[c]) {
		if (cols[c].type == STROBE_COL_PERCENT || cols[c].type == STROBE_COL_RATE)
			v.d = NAN;
		else if (cols[c].type == STROBE_COL_INT)
			v.i = STROBE_VALUE_NONE_I;
		else
			v.u = STROBE_VALUE_NONE_U;
		return v;
	}
	switch (c) {
	case C_CPU: v.d = (double)r->cpu_ns / (s * 1e9) * 100.0; break;
	case C_SYS: v.d = (double)r->sys / s; break;
	case C_ERR: v.d = (double)r->errs / s; break;
	case C_RQ50: v.u = top_hist_quantile(&r->rq, 0.50, r->rq_max); break;
	case C_RQ99: v.u = top_hist_quantile(&r->rq, 0.99, r->rq_max); break;
	case C_RQMAX: v.u = r->rq.count ? r->rq_max : STROBE_VALUE_NONE_U; break;
	case C_RD: v.d = (double)r->rd / s; break;
	case C_WR: v.d = (double)r->wr / s; break;
	case C_BLK99: v.u = top_hist_quantile(&r->blk, 0.99, r->blk_max); break;
	case C_SW: v.d = (double)r->switches / s; break;
	case C_MEM:
		v.u = STROBE_VALUE_NONE_U;
		if ((g == STROBE_TOP_CONTAINER || g == STROBE_TOP_POD) && r->cont >= 0 &&
		    t->conts[r->cont].mem >= 0)
			v.u = (uint64_t)t->conts[r->cont].mem;
		break;
	case C_FAULT: v.d = (double)r->faults / s; break;
	case C_TASKS: v.i = r->tasks; break;
	}
	return v;
}

static double sort_value(const struct strobe_top *t, const struct grow *r, int c)
{
	union strobe_value v = cell(t, r, c);

	if (strobe_value_none(cols[c].type, &v))
		return -INFINITY;
	switch (cols[c].type) {
	case STROBE_COL_PERCENT:
	case STROBE_COL_RATE:
		return v.d;
	case STROBE_COL_INT:
		return (double)v.i;
	default:
		return (double)v.u;
	}
}

static const struct strobe_top *sort_top;	/* qsort has no argument */

static int cmp_rows(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;
	const struct strobe_top *t = sort_top;

	if (t->sort >= 0) {
		double vx = sort_value(t, x, t->sort), vy = sort_value(t, y, t->sort);

		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	if (view_group(t) == STROBE_TOP_PROCESS || view_group(t) == STROBE_TOP_THREAD) {
		int kx = atoi(x->key), ky = atoi(y->key);

		return (kx > ky) - (kx < ky);
	}
	return strcmp(x->key, y->key);
}

static const char *group_table_name(enum strobe_top_group g)
{
	static const char *const n[] = { "top.container", "top.pod", "top.process",
					 "top.thread" };

	return n[g];
}

static int key_cols(struct strobe_table *tb, enum strobe_top_group g)
{
	int ret = 0;

	switch (g) {
	case STROBE_TOP_CONTAINER:
		return tbl_col(tb, "container", "Container", STROBE_COL_STR);
	case STROBE_TOP_POD:
		ret |= tbl_col(tb, "pod", "Pod", STROBE_COL_STR);
		ret |= tbl_col(tb, "namespace", "Namespace", STROBE_COL_STR);
		return ret;
	case STROBE_TOP_PROCESS:
		ret |= tbl_col(tb, "pid", "PID", STROBE_COL_INT);
		break;
	case STROBE_TOP_THREAD:
		ret |= tbl_col(tb, "tid", "TID", STROBE_COL_INT);
		ret |= tbl_col(tb, "pid", "PID", STROBE_COL_INT);
		break;
	}
	ret |= tbl_col(tb, "comm", "Comm", STROBE_COL_STR);
	ret |= tbl_col(tb, "container", "Container", STROBE_COL_STR);
	return ret;
}

static int key_vals(const struct strobe_top *t, struct strobe_table *tb, union strobe_value *v,
		    const struct grow *r, enum strobe_top_group g)
{
	int n = 0;

	switch (g) {
	case STROBE_TOP_CONTAINER:
		v[0].s = tbl_str(tb, cont_name(t, r->cont));
		return 1;
	case STROBE_TOP_POD:
		if (r->cont >= 0 && t->conts[r->cont].pod[0]) {
			v[0].s = tbl_str(tb, t->conts[r->cont].pod);
			v[1].s = tbl_str(tb, t->conts[r->cont].ns);
		} else {
			v[0].s = tbl_str(tb, cont_name(t, r->cont));
			v[1].s = tbl_str(tb, "");
		}
		return 2;
	case STROBE_TOP_PROCESS:
		v[n++].i = r->pid;
		break;
	case STROBE_TOP_THREAD:
		v[n++].i = r->tid;
		v[n++].i = r->pid;
		break;
	}
	v[n++].s = tbl_str(tb, r->comm);
	v[n++].s = tbl_str(tb, cont_name(t, r->cont));
	return n;
}

/* The table of the latest interval, under the current view. */
static int rebuild(struct strobe_top *t)
{
	enum strobe_top_group g = view_group(t);
	struct fold fd = { NULL, 0, 0 };
	struct strobe_table *tb;
	char title[320];
	size_t i;
	int ret, k, j;

	if (!t->have_interval)
		return 0;
	ret = fold(t, &fd);
	if (ret < 0)
		goto out;
	sort_top = t;
	if (fd.n)
		qsort(fd.g, fd.n, sizeof(*fd.g), cmp_rows);
	if (t->drill)
		snprintf(title, sizeof(title), "processes of container %s", t->drill);
	else
		snprintf(title, sizeof(title), "per %s",
			 g == STROBE_TOP_CONTAINER ? "container" : g == STROBE_TOP_POD ? "pod"
			 : g == STROBE_TOP_PROCESS ? "process" : "thread");
	ret = -ENOMEM;
	tb = tbl_new(group_table_name(g), title, STROBE_VIEW_TOP);
	if (!tb)
		goto out;
	if (key_cols(tb, g))
		goto fail;
	for (k = 0; k < t->nr_order; k++)
		if (tbl_col(tb, cols[t->order[k]].key, cols[t->order[k]].title,
			    cols[t->order[k]].type))
			goto fail;
	for (i = 0; i < fd.n; i++) {
		union strobe_value *v;

		if (filtered_out(t, &fd.g[i]))
			continue;
		if (!(v = tbl_row(tb)))
			goto fail;
		j = key_vals(t, tb, v, &fd.g[i], g);
		for (k = 0; k < t->nr_order; k++)
			v[j + k] = cell(t, &fd.g[i], t->order[k]);
	}
	tbl_free(t->table);
	t->table = tb;
	ret = 0;
	goto out;
fail:
	tbl_free(tb);
out:
	free(fd.g);
	return ret;
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
	figures_clear(t);
	for (i = 0; i < strobe_analysis_nr_tables(t->an); i++) {
		ret = read_table(t, strobe_analysis_table(t->an, i));
		if (ret < 0)
			return strobe_err(err, ret, "out of memory");
	}
	ret = strobe_analysis_reset(t->an, ts, err);
	if (ret < 0)
		return ret;
	ret = model_tasks(t);
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
	t->events = t->lost = 0;
	t->begin = ts;
	ret = build_interval(t, &iv);
	if (ret < 0)
		return strobe_err(err, ret, "out of memory");
	t->have_interval = true;
	ret = rebuild(t);
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
		unsigned n = cols[c].need;

		if ((n & N_CPU) && !sw)
			ret |= set_why(t, c, "needs sched:sched_switch (the %s preset), which "
				       "this input lacks", cols[c].preset);
		else if ((n & N_SCHED) && !(sw && wk))
			ret |= set_why(t, c, "needs sched:sched_switch and sched_wakeup (the %s "
				       "preset), which this input lacks", cols[c].preset);
		else if ((n & N_SYS) && !sys)
			ret |= set_why(t, c, "needs raw_syscalls:sys_enter and sys_exit (the %s "
				       "preset), which this input lacks", cols[c].preset);
		else if ((n & N_BLOCK) && !blk)
			ret |= set_why(t, c, "needs block:block_rq_issue and block_rq_complete "
				       "(the %s preset), which this input lacks", cols[c].preset);
		else if ((n & N_FAULT) && !flt)
			ret |= set_why(t, c, "needs exceptions:page_fault_user (the %s preset), "
				       "which this kernel or input lacks", cols[c].preset);
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
	if (ev->missed > 0)
		t->lost += (uint64_t)ev->missed;
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

int strobe_top_consumer(struct strobe_top *t, int source, struct strobe_consumer *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->name = "top";
	out->flags = STROBE_CONSUMER_MODEL;
	out->start = c_start;
	out->event = c_event;
	out->tick = c_tick;
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

		c = col_of(p, len);
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
		if (cols[c].need & (N_CPU))
			ret |= add_name(t->names, sizeof(t->names), "cputop");
		if (cols[c].need & N_SYS)
			ret |= add_name(t->names, sizeof(t->names), "syscalls");
		if (cols[c].need & N_SCHED)
			ret |= add_name(t->names, sizeof(t->names), "schedlat");
		if (cols[c].need & N_BLOCK)
			ret |= add_name(t->names, sizeof(t->names), "io");
		if (cols[c].need & N_FAULT)
			ret |= add_name(t->names, sizeof(t->names), "mem");
		if (cols[c].preset)
			ret |= add_name(t->presets, sizeof(t->presets), cols[c].preset);
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
	figures_clear(t);
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

const struct strobe_table *strobe_top_table(const struct strobe_top *t)
{
	return t ? t->table : NULL;
}

const char *strobe_top_unavailable(const struct strobe_top *t, const char *key)
{
	int c = key ? col_of(key, strlen(key)) : -1;

	return c < 0 ? NULL : t->why[c];
}

int strobe_top_set_group(struct strobe_top *t, enum strobe_top_group group,
			 struct strobe_error *err)
{
	if ((unsigned)group > STROBE_TOP_THREAD)
		return strobe_err(err, -EINVAL, "unknown grouping %d", (int)group);
	t->group = group;
	return rebuild(t) < 0 ? strobe_err(err, -ENOMEM, "out of memory") : 0;
}

int strobe_top_set_sort(struct strobe_top *t, const char *key, struct strobe_error *err)
{
	int c;

	if (!key || !*key) {
		t->sort = t->show[C_CPU] ? C_CPU : -1;
		return rebuild(t) < 0 ? strobe_err(err, -ENOMEM, "out of memory") : 0;
	}
	c = col_of(key, strlen(key));
	if (c < 0 || !t->show[c])
		return strobe_err(err, -EINVAL, "cannot sort by '%s': not a shown column", key);
	t->sort = c;
	return rebuild(t) < 0 ? strobe_err(err, -ENOMEM, "out of memory") : 0;
}

static int set_text(char **dst, const char *s)
{
	char *n = s && *s ? strdup(s) : NULL;

	if (s && *s && !n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

int strobe_top_set_filter(struct strobe_top *t, const char *text, struct strobe_error *err)
{
	if (set_text(&t->filter, text) < 0 || rebuild(t) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	return 0;
}

int strobe_top_set_drill(struct strobe_top *t, const char *container, struct strobe_error *err)
{
	if (set_text(&t->drill, container) < 0 || rebuild(t) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	return 0;
}

enum strobe_top_group strobe_top_group(const struct strobe_top *t)
{
	return t->group;
}

const char *strobe_top_sort(const struct strobe_top *t)
{
	return t->sort >= 0 ? cols[t->sort].key : NULL;
}

const char *strobe_top_filter(const struct strobe_top *t)
{
	return t->filter;
}

const char *strobe_top_drill(const struct strobe_top *t)
{
	return t->drill;
}
