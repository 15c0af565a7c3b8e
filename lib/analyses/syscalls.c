/*
 * syscalls.c - system call counts, latency (entry to exit) and errors per
 * syscall and owner.
 *
 * Works from raw_syscalls:sys_enter/sys_exit (numbers; names from the
 * x86_64 table) or from syscalls:sys_enter_<name>/sys_exit_<name> (names
 * from the event names); when a trace has both, raw_syscalls is used and
 * the others ignored, so nothing counts twice.
 *
 * Per thread the state is IDLE or IN_SYSCALL(nr, since); only threads in
 * a syscall have an entry in the in-flight map, so memory follows live
 * threads.  An exit whose thread is not IN_SYSCALL for that number (the
 * trace began inside the call) is not measured; an entry with no exit by
 * the end (still running, or exit/exit_group which never return) is not
 * counted; a thread that enters again without an exit (events lost)
 * restarts its measurement; a measurement with lost events anywhere
 * inside it is dropped and counted.  Return values: >= 0 (or > -4096 not
 * being an error) is success, -1..-4095 an errno, split by errno name.
 * A reset (strobe_analysis_reset) drops the groups and keeps the calls in
 * flight: a call counts in the interval it exits in.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyses/analysis-int.h"

enum { TASK_EXIT = ANA_SYS_NR_COOKIES };

#define MAX_NR 4096		/* syscall numbers we keep names for */

/* A thread's call between its entry and its exit.  A thread's slot stays
 * in the map between calls (nr NOT_IN_CALL): its next entry finds it
 * without inserting, and no exit pays a delete; the thread's exit removes
 * it. */
struct inflight {
	uint64_t since;
	int nr;
};

#define NOT_IN_CALL INT_MIN

struct group {
	struct ana_owner o;
	int nr;
	uint64_t errors;
	struct ana_stats st;
};

struct errgroup {
	struct ana_owner o;
	int nr;
	int err;
	uint64_t count;
};

struct syscalls {
	struct ana_sysdec dec;
	struct strobe_field exit_pid;
	const char *learnt[MAX_NR];	/* names from syscalls:* event names */
	struct ana_map inflight;	/* tid -> struct inflight */
	struct ana_map groups;		/* (group, nr) -> struct group */
	struct ana_map errs;		/* (group, nr, errno) -> struct errgroup */
	struct strobe_table *top, *stats, *errors, *log;
	uint64_t unmatched_exits;
};

static const char *name_of(struct syscalls *p, int nr, char *buf, size_t size)
{
	const char *n = nr >= 0 && nr < MAX_NR ? p->learnt[nr] : NULL;

	if (!n)
		n = strobe_syscall_name(nr);
	if (n)
		return n;
	snprintf(buf, size, "sys_%d", nr);
	return buf;
}

static void enter(struct ana *a, int tid, int nr, uint64_t ts)
{
	struct syscalls *p = a->priv;
	struct inflight *f = ana_map_put(&p->inflight, (uint64_t)(uint32_t)tid, NULL);

	if (f) {
		f->since = ts;
		f->nr = nr;
	}
}

static void log_row(struct ana *a, const struct strobe_event *ev, const struct strobe_task *t,
		    int nr, uint64_t since, int64_t ret)
{
	struct syscalls *p = a->priv;
	union strobe_value v[9];
	char buf[32];
	const char *e = ret < 0 && ret > -4096 ? strobe_errno_name((int)-ret) : NULL;

	v[0].u = since;
	v[1].u = ev->ts - since;
	v[2].i = t->tid;
	v[3].i = t->tgid;
	v[4].s = t->comm;
	v[5].s = ana_container_name(a->core, t->container->index);
	v[6].s = name_of(p, nr, buf, sizeof(buf));
	v[7].i = ret;
	v[8].s = e ? e : "";
	a->core->opts.log(a->core->opts.log_arg, p->log, v);
}

static void leave(struct ana *a, const struct strobe_event *ev, int tid, int nr, int64_t ret)
{
	struct syscalls *p = a->priv;
	struct ana_core *c = a->core;
	struct inflight *f = ana_map_get(&p->inflight, (uint64_t)(uint32_t)tid);
	const struct strobe_task *t;
	struct group *g;
	uint64_t since, dur, key;
	bool created;

	if (!f || f->nr != nr || nr == NOT_IN_CALL) {
		p->unmatched_exits++;
		return;
	}
	since = f->since;
	f->nr = NOT_IN_CALL;
	if (ana_gap_since(c, since)) {
		a->dropped++;
		return;
	}
	dur = ev->ts - since;
	if (!ana_duration_ok(c, dur))
		return;
	t = ana_task(c, tid);
	if (!t || !ana_task_selected(c, t))
		return;
	key = ana_key2(ana_group_key(c, t, ev->cpu), (uint32_t)nr & 0xfffff);
	g = ana_map_put(&p->groups, key, &created);
	if (!g)
		return;
	if (!created)
		ana_owner_refresh(c, &g->o, t);
	if (created) {
		ana_owner_set(c, &g->o, t, ev->cpu);
		g->nr = nr;
	}
	ana_stats_add(&g->st, dur, c->want_hist);
	if (ret < 0 && ret > -4096) {
		struct errgroup *e;

		g->errors++;
		e = ana_map_put(&p->errs, ana_key2(key, (uint32_t)-ret), &created);
		if (e) {
			if (created) {
				e->o = g->o;
				e->nr = nr;
				e->err = (int)-ret;
			}
			e->count++;
		}
	}
	if (p->log && c->opts.log)
		log_row(a, ev, t, nr, since, ret);
}

/* A named event names its call: "sys_enter_read" + skip. */
static void learn(struct syscalls *p, const struct strobe_event *ev, int nr, size_t skip)
{
	if (nr >= 0 && nr < MAX_NR && !p->learnt[nr] && ev->format)
		p->learnt[nr] = strobe_format_name(ev->format) + skip;
}

static void on_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct syscalls *p = a->priv;
	int nr;

	int64_t ret = 0;

	switch (cookie) {
	case ANA_SYS_ENTER_RAW:
	case ANA_SYS_EXIT_RAW:
	case ANA_SYS_ENTER_NAMED:
	case ANA_SYS_EXIT_NAMED:
		switch (ana_sysdec(&p->dec, ev, cookie, &nr, &ret)) {
		case ANA_SYS_ENTRY:
			if (cookie == ANA_SYS_ENTER_NAMED)
				learn(p, ev, nr, 10);
			enter(a, ev->pid, nr, ev->ts);
			break;
		case ANA_SYS_EXIT:
			if (cookie == ANA_SYS_EXIT_NAMED)
				learn(p, ev, nr, 9);
			leave(a, ev, ev->pid, nr, ret);
			break;
		}
		break;
	case TASK_EXIT:
		ana_map_del(&p->inflight, (uint64_t)(uint32_t)strobe_field_int(ev, &p->exit_pid));
		break;
	}
}

static const struct ana_sub subs[] = {
	ANA_SYSCALL_SUBS(on_event),
	{ "sched", "sched_process_exit", on_event, TASK_EXIT },
	{ NULL, NULL, NULL, 0 }
};

static int init(struct ana *a)
{
	struct syscalls *p = a->priv;
	struct ana_core *c = a->core;
	int ret = 0;

	ana_map_init(&p->inflight, sizeof(struct inflight));
	ana_map_init(&p->groups, sizeof(struct group));
	ana_map_init(&p->errs, sizeof(struct errgroup));
	if (ana_view(c, STROBE_VIEW_TOP)) {
		p->top = ana_add_table(a, "syscalls.top", "System calls", STROBE_VIEW_TOP);
		if (!p->top)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->top);
		ret |= tbl_col(p->top, "syscall", "Syscall", STROBE_COL_STR);
		ret |= tbl_col(p->top, "count", "Count", STROBE_COL_INT);
		ret |= tbl_col(p->top, "errors", "Errors", STROBE_COL_INT);
		ret |= tbl_col(p->top, "total", "Total(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->top, "avg", "Avg(us)", STROBE_COL_DURATION);
	}
	if (ana_view(c, STROBE_VIEW_STATS)) {
		p->stats = ana_add_table(a, "syscalls.stats", "System call latency statistics",
					 STROBE_VIEW_STATS);
		if (!p->stats)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->stats);
		ret |= tbl_col(p->stats, "syscall", "Syscall", STROBE_COL_STR);
		ret |= ana_stats_cols(p->stats);
		ret |= tbl_col(p->stats, "errors", "Errors", STROBE_COL_INT);
	}
	if (ana_view(c, STROBE_VIEW_TOP | STROBE_VIEW_STATS)) {
		p->errors = ana_add_table(a, "syscalls.errors", "System call errors",
					  ana_view(c, STROBE_VIEW_TOP) ? STROBE_VIEW_TOP
								       : STROBE_VIEW_STATS);
		if (!p->errors)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->errors);
		ret |= tbl_col(p->errors, "syscall", "Syscall", STROBE_COL_STR);
		ret |= tbl_col(p->errors, "error", "Error", STROBE_COL_STR);
		ret |= tbl_col(p->errors, "count", "Count", STROBE_COL_INT);
	}
	if (ana_view(c, STROBE_VIEW_LOG)) {
		p->log = ana_add_table(a, "syscalls.log", "System calls", STROBE_VIEW_LOG);
		if (!p->log)
			return -ENOMEM;
		ret |= tbl_col(p->log, "ts", "Begin", STROBE_COL_TIMESTAMP);
		ret |= tbl_col(p->log, "duration", "Duration(us)", STROBE_COL_DURATION);
		ret |= ana_task_cols(p->log);
		ret |= tbl_col(p->log, "syscall", "Syscall", STROBE_COL_STR);
		ret |= tbl_col(p->log, "ret", "Return", STROBE_COL_INT);
		ret |= tbl_col(p->log, "error", "Error", STROBE_COL_STR);
	}
	if (ana_view(c, STROBE_VIEW_FREQ)) {
		/* the schema of the per-group histograms, for LAMI metadata */
		struct strobe_table *t = ana_add_freq_schema(a, "syscalls.freq",
							     "System call latency distribution");
		if (!t)
			return -ENOMEM;
		t->unit = c->opts.freq_resolution > 0 ? "nsecs" : "usecs";
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct syscalls *p = a->priv;
	const struct strobe_format *pe = strobe_formats_find(fmts, "sched", "sched_process_exit");

	if (pe)
		strobe_field_resolve(pe, "pid", &p->exit_pid);
	return ana_sysdec_resolve(&p->dec, fmts);
}

static int finish(struct ana *a)
{
	struct syscalls *p = a->priv;
	struct ana_core *c = a->core;
	struct ana_rank *r;
	union strobe_value *v;
	struct group *g;
	struct errgroup *e;
	size_t n, i;
	char buf[32], title[160];
	int k, ret = 0;

	if (ana_rank_map(&p->groups, offsetof(struct group, st.count), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < ana_top_n(c, n); i++) {
		g = r[i].item;
		if (p->top) {
			if (!(v = tbl_row(p->top)))
				goto nomem;
			k = ana_owner_vals(c, p->top, v, &g->o);
			v[k++].s = tbl_str(p->top, name_of(p, g->nr, buf, sizeof(buf)));
			v[k++].i = (int64_t)g->st.count;
			v[k++].i = (int64_t)g->errors;
			v[k++].u = g->st.total;
			v[k++].u = g->st.count ? g->st.total / g->st.count : 0;
		}
		if (p->stats) {
			if (!(v = tbl_row(p->stats)))
				goto nomem;
			k = ana_owner_vals(c, p->stats, v, &g->o);
			v[k++].s = tbl_str(p->stats, name_of(p, g->nr, buf, sizeof(buf)));
			ana_stats_vals(v + k, &g->st);
			v[k + 6].i = (int64_t)g->errors;
		}
		if (g->st.hist) {
			/* the name is shorter than buf: k < sizeof(title) */
			k = snprintf(title, sizeof(title), "%s latency: ",
				     name_of(p, g->nr, buf, sizeof(buf)));
			ana_owner_desc(c, &g->o, title + k, sizeof(title) - (size_t)k);
			if (ana_emit_hist(a, "syscalls.freq", title, &g->st, &g->o, "syscall",
					  name_of(p, g->nr, buf, sizeof(buf))) < 0)
				goto nomem;
		}
	}
	if (p->errors) {
		free(r);
		if (ana_rank_map(&p->errs, offsetof(struct errgroup, count), &r, &n) < 0)
			return -ENOMEM;
		for (i = 0; i < ana_top_n(c, n); i++) {
			const char *en;

			e = r[i].item;
			if (!(v = tbl_row(p->errors)))
				goto nomem;
			k = ana_owner_vals(c, p->errors, v, &e->o);
			v[k++].s = tbl_str(p->errors, name_of(p, e->nr, buf, sizeof(buf)));
			en = strobe_errno_name(e->err);
			if (!en) {
				snprintf(buf, sizeof(buf), "errno %d", e->err);
				en = buf;
			}
			v[k++].s = tbl_str(p->errors, en);
			v[k++].i = (int64_t)e->count;
		}
	}
	goto out;
nomem:
	ret = -ENOMEM;
out:
	free(r);
	return ret;
}

/* Free the groups' histograms. */
static void free_hists(struct syscalls *p)
{
	struct group *g;
	size_t pos = 0;

	while ((g = ana_map_next(&p->groups, &pos, NULL)))
		ana_stats_free(&g->st);
}

static void reset(struct ana *a, uint64_t ts)
{
	struct syscalls *p = a->priv;

	free_hists(p);
	ana_map_clear(&p->groups);
	ana_map_clear(&p->errs);
	p->unmatched_exits = 0;
}

static void fini(struct ana *a)
{
	struct syscalls *p = a->priv;

	free_hists(p);
	ana_map_free(&p->inflight);
	ana_map_free(&p->groups);
	ana_map_free(&p->errs);
}

const struct ana_ops ana_syscalls_ops = {
	.name = "syscalls",
	.summary = "system call counts, latency and errors per syscall and owner",
	.needs = "raw_syscalls:sys_enter and sys_exit, or syscalls:sys_enter_*/sys_exit_*",
	.preset = "syscalls",
	.priv_size = sizeof(struct syscalls),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.finish = finish,
	.reset = reset,
	.free = fini,
};
