/*
 * figures.c - strobe top's figures of one interval (top.h, top-int.h):
 * the analyses' snapshot tables (thread-grouped rows, and per-group
 * histograms named by their labels) read into per-thread figures (CPU,
 * switches, system calls and errors, run-queue and block latency
 * histograms, block bytes, page faults) and per-container ones for the
 * metrics (each system call and errno, the system-call latency
 * histogram); the containers of the model's live tasks, so that an idle
 * one keeps its row; their memory from the cgroup files; and the
 * interval handed to on_interval.  Nothing here runs per event.
 *
 * Percentiles come from the log2 histograms (bcc's slots of
 * microseconds) by linear interpolation inside the slot, capped by the
 * maximum the statistics saw.  Memory is the container's cgroup usage,
 * read from /proc/<tid>/cgroup of one of its tasks and the memory
 * controller's file (v1 memory.usage_in_bytes, v2 memory.current).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
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

void top_hist_merge(struct strobe_top_hist *d, const struct strobe_top_hist *s)
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


static void cfig_free(struct cfig *c)
{
	free(c->sys);
	free(c->errs);
	free(c->out_sys);
	free(c->out_errs);
}

void top_figures_clear(struct strobe_top *t)
{
	int i;

	for (i = 0; i < t->nr_conts; i++)
		cfig_free(&t->conts[i]);
	t->nr_conts = 0;
	t->nr_th = 0;
	if (t->th_hash)
		memset(t->th_hash, 0, t->hash_cap * sizeof(*t->th_hash));
}

/* Room for one more element in *arr (n used, *cap allocated, elements of
 * size elem): doubled from 16.  0, or -ENOMEM with *arr unchanged. */
static int grow(void *arr, int n, int *cap, size_t elem)
{
	void **p = arr, *a;
	int c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	a = realloc(*p, (size_t)c * elem);
	if (!a)
		return -ENOMEM;
	*p = a;
	*cap = c;
	return 0;
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
	if (grow(&t->conts, t->nr_conts, &t->cap_conts, sizeof(*t->conts)) < 0)
		return -ENOMEM;
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
	if (grow(&c->sys, c->nr_sys, &c->cap_sys, sizeof(*c->sys)) < 0)
		return NULL;
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
	if (grow(&c->errs, c->nr_errs, &c->cap_errs, sizeof(*c->errs)) < 0)
		return -ENOMEM;
	memset(&c->errs[c->nr_errs], 0, sizeof(c->errs[0]));
	snprintf(c->errs[c->nr_errs].syscall, sizeof(c->errs[0].syscall), "%s", sys);
	snprintf(c->errs[c->nr_errs].error, sizeof(c->errs[0].error), "%s", err);
	c->errs[c->nr_errs++].count = n;
	return 0;
}

/* A statistics row's count, total and max (columns n, tot, mx; -1:
 * absent) added to h and *max. */
static void add_stats(struct strobe_top_hist *h, uint64_t *max, const union strobe_value *v,
		      int n, int tot, int mx)
{
	h->count += n >= 0 ? (uint64_t)v[n].i : 0;
	h->sum_ns += tot >= 0 ? v[tot].u : 0;
	if (mx >= 0 && v[mx].u > *max)
		*max = v[mx].u;
}

/* Read one table of the snapshot into the figures. */
int top_read_table(struct strobe_top *t, const struct strobe_table *tb)
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
			add_stats(&f->rq, &f->rq_max, v, n, tot, mx);
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
			add_stats(&f->blk, &f->blk_max, v, n, tot, mx);
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
int top_model_tasks(struct strobe_top *t)
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

int top_build_interval(struct strobe_top *t, struct strobe_top_interval *iv)
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
		top_hist_merge(&oc->runq_lat, &f->rq);
		top_hist_merge(&oc->blkio_lat, &f->blk);
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
