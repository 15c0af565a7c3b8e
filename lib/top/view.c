/*
 * view.c - strobe top's rows (top.h): the latest interval's per-thread
 * figures folded under the grouping (container, pod, process, thread, or
 * one container's processes), each group's cells (rates per second,
 * percentiles, memory, tasks; no value where the column's events are
 * missing), filtered by a name and sorted, as the table strobe_top_table
 * returns.  Changing the grouping, sort, filter or drill-down folds the
 * same figures again: no events are needed.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
		top_hist_merge(&r->rq, &f->rq);
		top_hist_merge(&r->blk, &f->blk);
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
		if (top_cols[c].type == STROBE_COL_PERCENT || top_cols[c].type == STROBE_COL_RATE)
			v.d = NAN;
		else if (top_cols[c].type == STROBE_COL_INT)
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

	if (strobe_value_none(top_cols[c].type, &v))
		return -INFINITY;
	switch (top_cols[c].type) {
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
int top_rebuild(struct strobe_top *t)
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
		if (tbl_col(tb, top_cols[t->order[k]].key, top_cols[t->order[k]].title,
			    top_cols[t->order[k]].type))
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

const struct strobe_table *strobe_top_table(const struct strobe_top *t)
{
	return t ? t->table : NULL;
}

const char *strobe_top_unavailable(const struct strobe_top *t, const char *key)
{
	int c = key ? top_col_of(key, strlen(key)) : -1;

	return c < 0 ? NULL : t->why[c];
}


int strobe_top_set_group(struct strobe_top *t, enum strobe_top_group group,
			 struct strobe_error *err)
{
	if ((unsigned)group > STROBE_TOP_THREAD)
		return strobe_err(err, -EINVAL, "unknown grouping %d", (int)group);
	t->group = group;
	return top_rebuild(t) < 0 ? strobe_err(err, -ENOMEM, "out of memory") : 0;
}

int strobe_top_set_sort(struct strobe_top *t, const char *key, struct strobe_error *err)
{
	int c;

	if (!key || !*key) {
		t->sort = t->show[C_CPU] ? C_CPU : -1;
		return top_rebuild(t) < 0 ? strobe_err(err, -ENOMEM, "out of memory") : 0;
	}
	c = top_col_of(key, strlen(key));
	if (c < 0 || !t->show[c])
		return strobe_err(err, -EINVAL, "cannot sort by '%s': not a shown column", key);
	t->sort = c;
	return top_rebuild(t) < 0 ? strobe_err(err, -ENOMEM, "out of memory") : 0;
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
	if (set_text(&t->filter, text) < 0 || top_rebuild(t) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	return 0;
}

int strobe_top_set_drill(struct strobe_top *t, const char *container, struct strobe_error *err)
{
	if (set_text(&t->drill, container) < 0 || top_rebuild(t) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	return 0;
}

enum strobe_top_group strobe_top_group(const struct strobe_top *t)
{
	return t->group;
}

const char *strobe_top_sort(const struct strobe_top *t)
{
	return t->sort >= 0 ? top_cols[t->sort].key : NULL;
}

const char *strobe_top_filter(const struct strobe_top *t)
{
	return t->filter;
}

const char *strobe_top_drill(const struct strobe_top *t)
{
	return t->drill;
}
