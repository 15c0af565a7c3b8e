/*
 * schedlat.c - scheduling latency: how long a woken task waits for a CPU
 * (wake-up to switch-in, the run-queue latency), with the waker, the
 * task's priority and the target CPU; and how long a preempted task
 * (switched out while still runnable) waits to run again.
 *
 * Per thread the state is one of
 *   NONE       not waiting (running, sleeping, or unknown);
 *   WOKEN      sched_waking (or sched_wakeup / sched_wakeup_new when the
 *              trace has no sched_waking) seen: waiting since then;
 *   PREEMPTED  switched out with prev_state R: runnable since then.
 * A switch-in of a WOKEN or PREEMPTED thread closes the measurement; a
 * switch-out while sleeping clears stale state (a wake-up of a task that
 * was still running never measures its next, unrelated switch-in).  Only
 * waiting threads have an entry.  Measurements that straddle lost events
 * are dropped and counted.  The worst --top wake-ups are kept with their
 * details (waker, priority, target CPU, CPU it ran on).
 *
 * The waker: the wake-up event's task, unless the event's common_flags
 * say it ran in interrupt context (TRACE_FLAG_HARDIRQ 0x08 or
 * TRACE_FLAG_NMI 0x40: "irq"; TRACE_FLAG_SOFTIRQ 0x10: "softirq", tid -1):
 * then the task is merely the one the interrupt preempted.  These bits
 * have kept their values since the flags were introduced (2.6.x); the
 * 0x80 bit (bottom halves disabled) is not softirq context.
 *
 * In a PID-filtered recording (strobe record -- CMD, -p, -c) a traced
 * task's wake-ups and switches are all recorded, but an untraced task's
 * only when it shares them with a traced one: its wake-up by a traced
 * waker is there, its switch-in by an untraced prev is not, so the next
 * recorded switch-in could close a wait long after the real one.  Waits
 * are therefore kept for traced tasks only (ana_tid_traced).
 *
 * A reset (strobe_analysis_reset) drops the groups and the worst wake-ups
 * and keeps the waits: a wait counts in the interval its switch-in comes
 * in.  finish ranks a copy of the worst, so it serves snapshots too.
 *
 * The runqlat analysis (ana_runqlat_ops, strobe-runqlat(1)) is this one
 * pairing measured as bcc's runqlat does: a wait starts at sched_wakeup
 * or sched_wakeup_new (never sched_waking, even when the trace has it)
 * or at a switch-out in state R, and ends at the switch-in; both kinds
 * go into one histogram per group (runqlat.freq) and one row of
 * runqlat.stats.  So on a trace without sched_waking, runqlat's
 * histogram of a group is, bucket for bucket, the sum of schedlat's
 * schedlat.freq (wake-ups) and schedlat.preempt_freq (preempted) ones.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyses/analysis-int.h"

enum wait_state { W_NONE = 0, W_WOKEN, W_PREEMPTED };
enum { EV_SWITCH, EV_WAKING, EV_WAKEUP, EV_WAKEUP_NEW };

struct wait {
	enum wait_state state;
	uint64_t since;
	int waker;
	int prio;
	int target_cpu;
	char waker_comm[16];
};

struct group {
	struct ana_owner o;
	struct ana_stats wake;
	struct ana_stats preempt;
};

struct worst {
	uint64_t ts, latency;
	struct ana_owner o;
	int prio, target_cpu, cpu, waker;
	char waker_comm[16];
};

/* common_flags bits (kernel/trace/trace.h, enum trace_flag_type) */
#define TRACE_FLAG_HARDIRQ 0x08
#define TRACE_FLAG_SOFTIRQ 0x10
#define TRACE_FLAG_NMI 0x40

struct schedlat {
	struct strobe_field prev_pid, prev_state, next_pid;
	struct strobe_field wk_flags, wu_flags;		/* common_flags */
	struct strobe_field wk_pid, wk_prio, wk_target;	/* sched_waking */
	struct strobe_field wu_pid, wu_prio, wu_target;	/* sched_wakeup(_new) */
	bool have_waking;
	struct ana_map waits;		/* tid -> struct wait */
	/* wake-ups whose task ran again with no recorded switch-in: the
	 * kernel emitted no sched_switch (seen for idle CPUs on some VMs) */
	uint64_t unmeasured;
	struct ana_map groups;		/* group key -> struct group */
	struct ana_topn worst;		/* the --top largest latencies */
	struct strobe_table *top, *stats, *preempt, *log;
	bool runq;			/* the runqlat analysis: see the head */
};

static void count_unmeasured(struct ana *a, int tid)
{
	struct schedlat *p = a->priv;
	const struct strobe_task *t = ana_task(a->core, tid);

	if (t && ana_task_selected(a->core, t))
		p->unmeasured++;
}

static void wake(struct ana *a, const struct strobe_event *ev, int tid, int prio, int target,
		 const struct strobe_field *flags)
{
	struct schedlat *p = a->priv;
	const struct strobe_task *w;
	struct wait *s;
	bool created;
	uint64_t fl = strobe_field_uint(ev, flags);

	if (tid <= 0 || !ana_tid_traced(a->core, tid))
		return;
	s = ana_map_put(&p->waits, (uint64_t)(uint32_t)tid, &created);
	if (!s)
		return;
	if (!created && s->state == W_WOKEN)
		count_unmeasured(a, tid);	/* woken again, never seen switched in */
	s->state = W_WOKEN;
	s->since = ev->ts;
	s->waker = ev->pid;
	s->prio = prio;
	s->target_cpu = target;
	if (fl & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_NMI | TRACE_FLAG_SOFTIRQ)) {
		/* not the interrupted task's doing */
		s->waker = -1;
		strcpy(s->waker_comm, fl & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_NMI) ? "irq"
									  : "softirq");
		return;
	}
	w = ev->pid > 0 ? ana_task(a->core, ev->pid) : NULL;
	if (w)
		memcpy(s->waker_comm, w->comm, sizeof(s->waker_comm));
	else
		strcpy(s->waker_comm, ev->pid ? "?" : flags->valid ? "<idle>" : "<idle/irq>");
	s->waker_comm[15] = '\0';
}

static void switch_in(struct ana *a, const struct strobe_event *ev, int tid)
{
	struct schedlat *p = a->priv;
	struct ana_core *c = a->core;
	struct wait *s = ana_map_get(&p->waits, (uint64_t)(uint32_t)tid);
	struct wait w;
	const struct strobe_task *t;
	struct group *g;
	uint64_t lat;
	bool created;

	if (!s)
		return;
	w = *s;
	ana_map_del(&p->waits, (uint64_t)(uint32_t)tid);
	if (w.state == W_NONE || ev->ts < w.since)
		return;
	if (ana_gap_since(c, w.since)) {
		a->dropped++;
		return;
	}
	lat = ev->ts - w.since;
	if (!ana_duration_ok(c, lat))
		return;
	t = ana_task(c, tid);
	if (!t || !ana_task_selected(c, t))
		return;
	g = ana_map_put(&p->groups, ana_group_key(c, t, ev->cpu), &created);
	if (!g)
		return;
	if (created)
		ana_owner_set(c, &g->o, t, ev->cpu);
	else
		ana_owner_refresh(c, &g->o, t);
	if (p->runq) {
		ana_stats_add(&g->wake, lat, c->want_hist);	/* one histogram */
		return;
	}
	if (w.state == W_PREEMPTED) {
		ana_stats_add(&g->preempt, lat, c->want_hist);
		return;
	}
	ana_stats_add(&g->wake, lat, c->want_hist);
	if (p->top) {
		struct worst x;

		x.ts = w.since;
		x.latency = lat;
		ana_owner_set(c, &x.o, t, ev->cpu);
		x.o.tid = tid;
		x.prio = w.prio;
		x.target_cpu = w.target_cpu;
		x.cpu = ev->cpu;
		x.waker = w.waker;
		memcpy(x.waker_comm, w.waker_comm, sizeof(x.waker_comm));
		{
			bool evict;
			struct worst *slot = ana_topn_slot(&p->worst, x.latency, &evict);

			if (slot) {
				*slot = x;
				ana_topn_push(&p->worst, evict);
			}
		}
	}
	if (p->log && c->opts.log) {
		union strobe_value v[11];

		v[0].u = w.since;
		v[1].u = lat;
		v[2].i = tid;
		v[3].i = t->tgid;
		v[4].s = t->comm;
		v[5].s = ana_container_name(c, t->container->index);
		v[6].i = w.prio;
		v[7].i = w.target_cpu;
		v[8].i = ev->cpu;
		v[9].i = w.waker;
		v[10].s = w.waker_comm;
		c->opts.log(c->opts.log_arg, p->log, v);
	}
}

static void on_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct schedlat *p = a->priv;
	int prev, next;
	int64_t state;

	switch (cookie) {
	case EV_SWITCH:
		prev = (int)strobe_field_int(ev, &p->prev_pid);
		next = (int)strobe_field_int(ev, &p->next_pid);
		state = strobe_field_int(ev, &p->prev_state);
		if (prev > 0) {
			struct wait *s = ana_map_get(&p->waits, (uint64_t)(uint32_t)prev);

			/* it ran, but its switch-in was never recorded */
			if (s && s->state == W_WOKEN && s->since <= ev->ts)
				count_unmeasured(a, prev);
			if ((state & 0xff) == 0 && ana_tid_traced(a->core, prev)) {
				/* TASK_RUNNING: preempted */
				if (!s)
					s = ana_map_put(&p->waits, (uint64_t)(uint32_t)prev, NULL);
				if (s) {
					memset(s, 0, sizeof(*s));
					s->state = W_PREEMPTED;
					s->since = ev->ts;
				}
			} else if (s) {
				ana_map_del(&p->waits, (uint64_t)(uint32_t)prev);
			}
		}
		if (next > 0)
			switch_in(a, ev, next);
		break;
	case EV_WAKING:
		if (p->runq)
			break;
		wake(a, ev, (int)strobe_field_int(ev, &p->wk_pid),
		     (int)strobe_field_int(ev, &p->wk_prio),
		     (int)strobe_field_int(ev, &p->wk_target), &p->wk_flags);
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
		if (p->have_waking && cookie == EV_WAKEUP && !p->runq)
			break;
		wake(a, ev, (int)strobe_field_int(ev, &p->wu_pid),
		     (int)strobe_field_int(ev, &p->wu_prio),
		     (int)strobe_field_int(ev, &p->wu_target), &p->wu_flags);
		break;
	}
}

static void lost(struct ana *a, int cpu, uint64_t ts)
{
	/* per-thread waits are checked against the gap when they close */
}

static const struct ana_sub subs[] = {
	{ "sched", "sched_switch", on_event, EV_SWITCH },
	{ "sched", "sched_waking", on_event, EV_WAKING },
	{ "sched", "sched_wakeup", on_event, EV_WAKEUP },
	{ "sched", "sched_wakeup_new", on_event, EV_WAKEUP_NEW },
	{ NULL, NULL, NULL, 0 }
};

/* The columns of a wake-up row (schedlat.top, schedlat.log). */
static int wake_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= tbl_col(t, "ts", "Woken at", STROBE_COL_TIMESTAMP);
	ret |= tbl_col(t, "latency", "Latency(us)", STROBE_COL_DURATION);
	ret |= ana_task_cols(t);
	ret |= tbl_col(t, "prio", "Prio", STROBE_COL_INT);
	ret |= tbl_col(t, "target_cpu", "Target", STROBE_COL_INT);
	ret |= tbl_col(t, "cpu", "Ran on", STROBE_COL_INT);
	ret |= tbl_col(t, "waker_tid", "Waker", STROBE_COL_INT);
	ret |= tbl_col(t, "waker_comm", "Waker comm", STROBE_COL_STR);
	return ret ? -ENOMEM : 0;
}

static int init(struct ana *a)
{
	struct schedlat *p = a->priv;
	struct ana_core *c = a->core;
	int ret = 0;

	ana_map_init(&p->waits, sizeof(struct wait));
	ana_map_init(&p->groups, sizeof(struct group));
	p->runq = a->ops == &ana_runqlat_ops;
	if (p->runq) {
		if (ana_view(c, STROBE_VIEW_TOP | STROBE_VIEW_STATS)) {
			p->stats = ana_add_table(a, "runqlat.stats", "Run-queue latency",
						 ana_view(c, STROBE_VIEW_STATS)
						 ? STROBE_VIEW_STATS : STROBE_VIEW_TOP);
			if (!p->stats)
				return -ENOMEM;
			ret |= ana_owner_cols(c, p->stats);
			ret |= ana_stats_cols(p->stats);
		}
		if (ana_view(c, STROBE_VIEW_FREQ)) {
			struct strobe_table *t = ana_add_freq_schema(a, "runqlat.freq",
								     "Run-queue latency distribution");

			if (!t)
				return -ENOMEM;
			t->unit = c->opts.freq_resolution > 0 ? "nsecs"
				  : c->opts.freq_msecs ? "msecs" : "usecs";
		}
		return ret ? -ENOMEM : 0;
	}
	if (ana_view(c, STROBE_VIEW_TOP)) {
		ret = ana_topn_init(&p->worst, c->opts.top > 0 ? c->opts.top : 100,
				    sizeof(struct worst), offsetof(struct worst, latency));
		p->top = ana_add_table(a, "schedlat.top", "Worst wake-up latencies",
				       STROBE_VIEW_TOP);
		if (ret < 0 || !p->top)
			return -ENOMEM;
		ret |= wake_cols(p->top);
	}
	if (ana_view(c, STROBE_VIEW_TOP | STROBE_VIEW_STATS)) {
		p->stats = ana_add_table(a, "schedlat.stats", "Wake-up latency",
					 ana_view(c, STROBE_VIEW_STATS) ? STROBE_VIEW_STATS
								       : STROBE_VIEW_TOP);
		p->preempt = ana_add_table(a, "schedlat.preempt",
					   "Runnable while preempted (switched out in state R)",
					   ana_view(c, STROBE_VIEW_STATS) ? STROBE_VIEW_STATS
									 : STROBE_VIEW_TOP);
		if (!p->stats || !p->preempt)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->stats);
		ret |= ana_stats_cols(p->stats);
		ret |= ana_owner_cols(c, p->preempt);
		ret |= ana_stats_cols(p->preempt);
	}
	if (ana_view(c, STROBE_VIEW_LOG)) {
		p->log = ana_add_table(a, "schedlat.log", "Wake-ups", STROBE_VIEW_LOG);
		if (!p->log)
			return -ENOMEM;
		ret |= wake_cols(p->log);
	}
	if (ana_view(c, STROBE_VIEW_FREQ)) {
		struct strobe_table *t = ana_add_freq_schema(a, "schedlat.freq",
							     "Wake-up latency distribution");
		struct strobe_table *pt = ana_add_freq_schema(a, "schedlat.preempt_freq",
							      "Preempted-runnable time distribution");

		if (!t || !pt)
			return -ENOMEM;
		t->unit = pt->unit = c->opts.freq_resolution > 0 ? "nsecs"
				     : c->opts.freq_msecs ? "msecs" : "usecs";
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct schedlat *p = a->priv;
	const struct strobe_format *sw = strobe_formats_find(fmts, "sched", "sched_switch");
	const struct strobe_format *wk = strobe_formats_find(fmts, "sched", "sched_waking");
	const struct strobe_format *wu = strobe_formats_find(fmts, "sched", "sched_wakeup");

	if (!wu)
		wu = strobe_formats_find(fmts, "sched", "sched_wakeup_new");
	if (!sw || strobe_field_resolve(sw, "prev_pid", &p->prev_pid) ||
	    strobe_field_resolve(sw, "next_pid", &p->next_pid) ||
	    strobe_field_resolve(sw, "prev_state", &p->prev_state))
		return -ENOENT;
	/* runqlat measures from sched_wakeup(_new), as bcc, whatever else */
	p->have_waking = !p->runq && wk && !strobe_field_resolve(wk, "pid", &p->wk_pid);
	if (p->have_waking) {
		strobe_field_resolve(wk, "prio", &p->wk_prio);
		strobe_field_resolve(wk, "target_cpu", &p->wk_target);
		strobe_field_resolve(wk, "common_flags", &p->wk_flags);
	}
	if (wu && !strobe_field_resolve(wu, "pid", &p->wu_pid)) {
		strobe_field_resolve(wu, "prio", &p->wu_prio);
		strobe_field_resolve(wu, "target_cpu", &p->wu_target);
		strobe_field_resolve(wu, "common_flags", &p->wu_flags);
	} else if (!p->have_waking) {
		return -ENOENT;
	}
	return 0;
}

static int worst_cmp(const void *x, const void *y)
{
	const struct worst *a = x, *b = y;

	if (a->latency != b->latency)
		return a->latency > b->latency ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int stats_table(struct ana *a, struct strobe_table *t, struct ana_rank *r, size_t n,
		       bool preempt)
{
	struct ana_core *c = a->core;
	size_t i, rows = 0;

	for (i = 0; i < n && rows < ana_top_n(c, n); i++) {
		struct group *g = r[i].item;
		const struct ana_stats *st = preempt ? &g->preempt : &g->wake;
		union strobe_value *v;
		int k;

		if (!st->count)
			continue;
		if (!(v = tbl_row(t)))
			return -ENOMEM;
		k = ana_owner_vals(c, t, v, &g->o);
		ana_stats_vals(v + k, st);
		rows++;
	}
	return 0;
}

static int finish(struct ana *a)
{
	struct schedlat *p = a->priv;
	struct ana_core *c = a->core;
	struct ana_rank *r;
	struct group *g;
	size_t n, i;
	char title[160];
	int k, ret = 0;

	ana_note_filtered(c, a->ops->name, "latencies are of the traced tasks only (an "
			  "untraced task's switch-in is not always recorded)");
	if (p->unmeasured && p->runq)
		ana_note(c, "runqlat: %llu wake-ups not followed by a switch-in before the "
			 "task's next switch-out, not measured (as bcc: a task woken while "
			 "it still ran, or a switch-in the kernel did not record)",
			 (unsigned long long)p->unmeasured);
	else if (p->unmeasured)
		ana_note(c, "schedlat: %llu wake-ups not measured: the woken task ran "
			 "with no recorded switch-in (the kernel emitted no sched_switch "
			 "for it)", (unsigned long long)p->unmeasured);
	if (p->top) {
		/* a copy: the heap goes on after a snapshot */
		struct worst *worst = calloc((size_t)p->worst.n + 1, sizeof(*worst));

		if (!worst)
			return -ENOMEM;
		if (p->worst.n)
			memcpy(worst, p->worst.v, (size_t)p->worst.n * sizeof(*worst));
		qsort(worst, (size_t)p->worst.n, sizeof(*worst), worst_cmp);
		for (i = 0; i < (size_t)p->worst.n; i++) {
			struct worst *w = &worst[i];
			union strobe_value *v = tbl_row(p->top);

			if (!v) {
				free(worst);
				return -ENOMEM;
			}
			v[0].u = w->ts;
			v[1].u = w->latency;
			v[2].i = w->o.tid;
			v[3].i = w->o.pid;
			v[4].s = tbl_str(p->top, w->o.comm);
			v[5].s = tbl_str(p->top, ana_container_name(c, w->o.container));
			v[6].i = w->prio;
			v[7].i = w->target_cpu;
			v[8].i = w->cpu;
			v[9].i = w->waker;
			v[10].s = tbl_str(p->top, w->waker_comm);
		}
		free(worst);
	}
	if (ana_rank_map(&p->groups, offsetof(struct group, wake.max), &r, &n) < 0)
		return -ENOMEM;
	if (p->stats && (ret = stats_table(a, p->stats, r, n, false)) < 0)
		goto out;
	for (i = 0; i < ana_top_n(c, n); i++) {
		g = r[i].item;
		if (g->wake.hist) {
			k = snprintf(title, sizeof(title), p->runq ? "run-queue latency: "
									: "wake-up latency: ");
			ana_owner_desc(c, &g->o, title + k, sizeof(title) - (size_t)k);
			if ((ret = ana_emit_hist(a, p->runq ? "runqlat.freq" : "schedlat.freq",
						 title, &g->wake, &g->o, NULL, NULL)) < 0)
				goto out;
		}
		if (g->preempt.hist) {
			k = snprintf(title, sizeof(title), "preempted-runnable time: ");
			ana_owner_desc(c, &g->o, title + k, sizeof(title) - (size_t)k);
			if ((ret = ana_emit_hist(a, "schedlat.preempt_freq", title, &g->preempt,
						 &g->o, NULL, NULL)) < 0)
				goto out;
		}
	}
	if (p->preempt) {
		for (i = 0; i < n; i++)
			r[i].metric = ((struct group *)r[i].item)->preempt.total;
		ana_rank_sort(r, n);
		ret = stats_table(a, p->preempt, r, n, true);
	}
out:
	free(r);
	return ret;
}

/* Free the groups' histograms. */
static void free_hists(struct schedlat *p)
{
	struct group *g;
	size_t pos = 0;

	while ((g = ana_map_next(&p->groups, &pos, NULL))) {
		ana_stats_free(&g->wake);
		ana_stats_free(&g->preempt);
	}
}

static void reset(struct ana *a, uint64_t ts)
{
	struct schedlat *p = a->priv;

	free_hists(p);
	ana_map_clear(&p->groups);
	p->worst.n = 0;
	p->unmeasured = 0;
}

static void fini(struct ana *a)
{
	struct schedlat *p = a->priv;

	free_hists(p);
	ana_map_free(&p->waits);
	ana_map_free(&p->groups);
	ana_topn_free(&p->worst);
}

const struct ana_ops ana_schedlat_ops = {
	.name = "schedlat",
	.summary = "wake-up to run latency (run-queue latency) and preempted-runnable time",
	.needs = "sched:sched_switch and sched:sched_waking or sched:sched_wakeup",
	.preset = "sched",
	.priv_size = sizeof(struct schedlat),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.lost = lost,
	.finish = finish,
	.reset = reset,
	.free = fini,
};

/* The same code measuring as bcc's runqlat: see the head. */
const struct ana_ops ana_runqlat_ops = {
	.name = "runqlat",
	.summary = "run-queue latency as bcc's runqlat: wake-up or preemption to run",
	.needs = "sched:sched_switch and sched:sched_wakeup or sched:sched_wakeup_new",
	.preset = "sched",
	.priv_size = sizeof(struct schedlat),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.lost = lost,
	.finish = finish,
	.reset = reset,
	.free = fini,
};
