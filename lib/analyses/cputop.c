/*
 * cputop.c - time on CPU per thread, process, container or CPU, from
 * sched_switch alone.
 *
 * Each CPU is a two-state machine: UNKNOWN (no switch seen yet, or events
 * were lost) and RUNNING(tid, since).  A switch charges prev for
 * [since, now) and makes next current.  The first switch on a CPU also
 * tells who ran before it: prev_pid is charged from its switch-in on that
 * CPU when the core saw it, before the window too (a task that runs long
 * between switches, as a spinner on a loaded machine does, may cross
 * --begin by half a second), else from the first event of its own
 * unbroken run of events there; at the earliest from the window start
 * or, after lost events, the first event after the gap.  The time inside
 * a gap is unknown and counted apart.  At the end each
 * running task is charged up to the window end.  pid 0 (the idle task)
 * is never charged and does not count as CPU use.  Percentages are of
 * the window: a thread busy the whole window shows 100%, a process with
 * several busy threads more.
 *
 * Some kernels do not emit the sched_switch that takes a CPU out of idle
 * (seen on this project's 2-CPU VM, with perf too).  A switch-out of a
 * task the CPU never switched in is then charged from the best evidence
 * of when it started there: the first of its own unbroken run of events
 * on that CPU, or, while the CPU was idle, the wake-up or migration that
 * brought it to that CPU (only idle can have run between the two, and
 * idle is not charged).  The CPU is known idle at the arrival when its
 * last recorded switch went to idle, or when the arrival itself was
 * recorded on that CPU in the idle task's context (a wake-up from an
 * interrupt of the idle CPU): the latter also holds before the CPU's
 * first recorded switch and after an untraced task was switched in,
 * which a PID-filtered recording cannot see leave.  Without such
 * evidence nothing is charged.
 *
 * A PID-filtered recording (strobe record -- CMD, -p, -c) has a switch
 * only when prev or next is traced: an untraced task switched in by a
 * traced one and out to a traced one may have shared the interval with
 * any number of untraced tasks (and idle) whose switches were not
 * recorded.  There only traced tasks are charged (ana_tid_traced), and a
 * note says that the other tasks' CPU time is not known.
 *
 * Intervals (strobe_analysis_snapshot, _reset): a snapshot charges the
 * tasks running at its time up to it, on a copy of the groups, so nothing
 * is charged twice; a reset moves their running start to its time, so
 * the intervals share a running task's time out at their boundaries and
 * add up to the whole run's.  Time a CPU ran a task whose switch-in was
 * not recorded is charged, as above, at its switch-out, to the interval
 * it ends in.  Two cases cannot come out exactly as in one run, because
 * a live reader cannot take back what it reported: a task running at a
 * snapshot whose switch-out then names another task (a switch not
 * recorded) had its time up to the snapshot charged, which one run does
 * not; and time a later lost-events gap shows unknown may have been
 * charged up to a snapshot inside it.
 *
 * --log: one row per complete on-CPU interval, at its switch-out: the
 * switch-in time, the duration, the task, the CPU and the task switched
 * in next.  Only intervals whose switch-in and switch-out are both in the
 * window are rows (not the partial first interval on a CPU, one cut by
 * lost events, or one still running at the end); --min/--max select rows
 * (CPU time totals are never filtered by duration).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyses/analysis-int.h"

enum cpu_state { CPU_UNKNOWN = 0, CPU_RUNNING };

struct cpu {
	enum cpu_state state;
	int tid;
	uint64_t since;		/* RUNNING: charged up to here (the switch-in,
				 * or a later reset) */
	uint64_t in;		/* RUNNING: when tid was switched in */
	uint64_t resume;	/* UNKNOWN after a gap: first event after it */
	uint64_t busy;		/* non-idle time charged on this CPU */
	bool seen;
};

struct group {
	struct ana_owner o;
	uint64_t ns;
	uint64_t switches;	/* times its tasks were switched out */
};

/* A task's latest arrival on a CPU (wake-up or migration), kept until it
 * is switched out: bounded by the runnable tasks. */
struct arrival {
	int cpu;
	bool idle;	/* recorded on that CPU in the idle task's context */
	uint64_t ts;
};

enum { EV_SWITCH, EV_WAKEUP, EV_MIGRATE };

struct cputop {
	struct strobe_field prev_pid, next_pid, next_comm;
	struct strobe_field wu_pid, wu_cpu, mg_pid, mg_cpu;	/* arrivals */
	struct ana_map arrivals;	/* tid -> struct arrival */
	struct cpu *cpus;
	int nr_cpus;
	struct ana_map groups;	/* group key -> struct group */
	uint64_t lost_ns;	/* time inside lost-event gaps */
	struct strobe_table *top, *cpu_table, *log;
};

static struct cpu *get_cpu(struct cputop *p, int cpu)
{
	if (cpu < 0)
		return NULL;
	if (cpu >= p->nr_cpus) {
		int n = cpu + 8;
		struct cpu *c = realloc(p->cpus, (size_t)n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + p->nr_cpus, 0, (size_t)(n - p->nr_cpus) * sizeof(*c));
		p->cpus = c;
		p->nr_cpus = n;
	}
	return &p->cpus[cpu];
}

/* The task of tid if its time is charged (a traced, selected, non-idle
 * task), else NULL. */
static const struct strobe_task *chargeable(struct ana *a, int tid)
{
	const struct strobe_task *t;

	if (tid <= 0 || !ana_tid_traced(a->core, tid))
		return NULL;
	t = ana_task(a->core, tid);
	return t && ana_task_selected(a->core, t) ? t : NULL;
}

/* Charge tid for [t0, t1) on cpu, and one context switch when `out` (its
 * switch-out); true if time was charged (a traced, selected, non-idle
 * task and t1 > t0). */
static bool charge(struct ana *a, int tid, int cpu, uint64_t t0, uint64_t t1, bool out)
{
	struct cputop *p = a->priv;
	const struct strobe_task *t;
	struct group *g;
	bool created;
	uint64_t key;

	if ((t1 <= t0 && !out) || !(t = chargeable(a, tid)))
		return false;
	if (t1 < t0)
		t1 = t0;
	p->cpus[cpu].busy += t1 - t0;
	key = ana_group_key(a->core, t, cpu);
	g = ana_map_put(&p->groups, key, &created);
	if (!g)
		return true;
	if (created)
		ana_owner_set(a->core, &g->o, t, cpu);
	else
		ana_owner_refresh(a->core, &g->o, t);
	g->ns += t1 - t0;
	g->switches += out;
	return t1 > t0;
}

/* The log row of tid's interval [t0, ev->ts) ended by switch event ev. */
static void log_interval(struct ana *a, const struct strobe_event *ev, int tid, int next,
			 uint64_t t0)
{
	struct cputop *p = a->priv;
	struct ana_core *c = a->core;
	const struct strobe_task *t;
	union strobe_value v[9];
	char next_comm[16] = "";
	const char *s;
	uint32_t len;

	if (!ana_duration_ok(c, ev->ts - t0))
		return;
	s = strobe_field_str(ev, &p->next_comm, &len);
	if (s)
		snprintf(next_comm, sizeof(next_comm), "%.*s", (int)strnlen(s, len), s);
	t = ana_task(c, tid);	/* again: charge() may have moved it */
	if (!t)
		return;
	v[0].u = t0;
	v[1].u = ev->ts - t0;
	v[2].i = tid;
	v[3].i = t->tgid;
	v[4].s = t->comm;
	v[5].s = ana_container_name(c, t->container->index);
	v[6].i = ev->cpu;
	v[7].i = next;
	v[8].s = next_comm;
	c->opts.log(c->opts.log_arg, p->log, v);
}

static void on_switch(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct cputop *p = a->priv;
	struct cpu *c = get_cpu(p, ev->cpu);
	int prev = (int)strobe_field_int(ev, &p->prev_pid);
	int next = (int)strobe_field_int(ev, &p->next_pid);
	bool whole = false;	/* the interval's switch-in was seen */
	bool charged;
	uint64_t from;

	if (!c)
		return;
	if (c->state == CPU_RUNNING) {
		from = c->since;
		whole = c->tid == prev;
		if (!whole) {
			/*
			 * prev's switch-in was not recorded (PID filter, or a
			 * kernel that skips sched_switch out of idle): charge
			 * it only from the first event of its own unbroken run
			 * on this CPU, never more than there is evidence for.
			 */
			const struct arrival *ar = ana_map_get(&p->arrivals,
							       (uint64_t)(uint32_t)prev);

			from = ev->ts;
			if (a->core->cpu_pid[ev->cpu] == prev &&
			    a->core->cpu_pid_since[ev->cpu] > c->in)
				from = a->core->cpu_pid_since[ev->cpu];
			if ((c->tid == 0 || (ar && ar->idle)) && ar &&
			    ar->cpu == ev->cpu && ar->ts >= c->in && ar->ts < from)
				from = ar->ts;
		}
	} else {
		/*
		 * Before the first switch on this CPU in the window (or after a
		 * gap) prev is charged from the core's evidence: its switch-in
		 * there, or the first of the unbroken run of events in its
		 * context (in a PID-filtered trace the CPU may have run
		 * untraced tasks until then).
		 */
		uint64_t start = c->resume ? c->resume
			: a->core->opts.begin ? a->core->opts.begin : a->core->first_ts;
		const struct arrival *ar = ana_map_get(&p->arrivals,
						       (uint64_t)(uint32_t)prev);

		from = ev->ts;
		if (a->core->cpu_pid[ev->cpu] == prev)
			from = a->core->cpu_pid_since[ev->cpu];
		/* woken onto this CPU while it was idle (see the top) */
		if (ar && ar->idle && ar->cpu == ev->cpu && ar->ts < from)
			from = ar->ts;
		if (from < start)
			from = start;
	}
	charged = charge(a, prev, ev->cpu, from, ev->ts, true);
	/* the whole interval is a row, also when a reset at this very time
	 * left nothing of it to charge */
	if (whole && p->log && a->core->opts.log &&
	    (charged || (from == ev->ts && c->in < from && chargeable(a, prev))))
		log_interval(a, ev, prev, next, c->in);
	if (prev > 0)
		ana_map_del(&p->arrivals, (uint64_t)(uint32_t)prev);
	c->state = CPU_RUNNING;
	c->tid = next;
	c->since = ev->ts;
	c->in = ev->ts;
	c->seen = true;
}

static void lost(struct ana *a, int cpu, uint64_t ts)
{
	struct cputop *p = a->priv;
	struct cpu *c = get_cpu(p, cpu);
	uint64_t last;

	if (!c)
		return;
	last = cpu < a->core->nr_cpus ? a->core->cpu_last[cpu] : 0;
	if (c->state == CPU_RUNNING && last >= c->since)
		charge(a, c->tid, cpu, c->since, last, false);
	if (last && ts > last)
		p->lost_ns += ts - last;
	c->state = CPU_UNKNOWN;
	c->resume = ts;
}

/* A wake-up or migration names the CPU a task will run on next. */
static void on_arrival(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct cputop *p = a->priv;
	const struct strobe_field *pf = cookie == EV_WAKEUP ? &p->wu_pid : &p->mg_pid;
	const struct strobe_field *cf = cookie == EV_WAKEUP ? &p->wu_cpu : &p->mg_cpu;
	int tid = (int)strobe_field_int(ev, pf);
	struct arrival *ar;

	if (tid <= 0 || !pf->valid || !cf->valid)
		return;
	ar = ana_map_put(&p->arrivals, (uint64_t)(uint32_t)tid, NULL);
	if (ar) {
		ar->cpu = (int)strobe_field_int(ev, cf);
		ar->idle = ev->pid == 0 && ev->cpu == ar->cpu;
		ar->ts = ev->ts;
	}
}

static const struct ana_sub subs[] = {
	{ "sched", "sched_switch", on_switch, EV_SWITCH },
	{ "sched", "sched_wakeup", on_arrival, EV_WAKEUP },
	{ "sched", "sched_wakeup_new", on_arrival, EV_WAKEUP },
	{ "sched", "sched_migrate_task", on_arrival, EV_MIGRATE },
	{ NULL, NULL, NULL, 0 }
};

static int init(struct ana *a)
{
	struct cputop *p = a->priv;
	struct ana_core *c = a->core;
	int ret = 0;

	ana_map_init(&p->groups, sizeof(struct group));
	ana_map_init(&p->arrivals, sizeof(struct arrival));
	if (c->opts.views == STROBE_VIEW_LOG)
		goto log;	/* --log alone: the log only, as the other analyses */
	p->top = ana_add_table(a, "cputop.top", "CPU usage", STROBE_VIEW_TOP);
	if (!p->top)
		return -ENOMEM;
	ret |= ana_owner_cols(c, p->top);
	ret |= tbl_col(p->top, "cpu_time", "CPU time(us)", STROBE_COL_DURATION);
	ret |= tbl_col(p->top, "cpu_pct", "CPU%", STROBE_COL_PERCENT);
	ret |= tbl_col(p->top, "switches", "Switches", STROBE_COL_INT);
	if (c->opts.group_by != STROBE_GROUP_CPU) {
		p->cpu_table = ana_add_table(a, "cputop.cpus", "CPU usage per CPU",
					     STROBE_VIEW_TOP);
		if (!p->cpu_table)
			return -ENOMEM;
		ret |= tbl_col(p->cpu_table, "cpu", "CPU", STROBE_COL_INT);
		ret |= tbl_col(p->cpu_table, "busy", "Busy(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->cpu_table, "busy_pct", "Busy%", STROBE_COL_PERCENT);
	}
log:
	if (ana_view(c, STROBE_VIEW_LOG)) {
		p->log = ana_add_table(a, "cputop.log", "On-CPU intervals", STROBE_VIEW_LOG);
		if (!p->log)
			return -ENOMEM;
		ret |= tbl_col(p->log, "ts", "Switch-in", STROBE_COL_TIMESTAMP);
		ret |= tbl_col(p->log, "duration", "Duration(us)", STROBE_COL_DURATION);
		ret |= ana_task_cols(p->log);
		ret |= tbl_col(p->log, "cpu", "CPU", STROBE_COL_INT);
		ret |= tbl_col(p->log, "next_tid", "Next", STROBE_COL_INT);
		ret |= tbl_col(p->log, "next_comm", "Next comm", STROBE_COL_STR);
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct cputop *p = a->priv;
	const struct strobe_format *e = strobe_formats_find(fmts, "sched", "sched_switch");

	if (!e || strobe_field_resolve(e, "prev_pid", &p->prev_pid) ||
	    strobe_field_resolve(e, "next_pid", &p->next_pid))
		return -ENOENT;
	strobe_field_resolve(e, "next_comm", &p->next_comm);	/* optional, for --log */
	/* optional: evidence for switch-ins the kernel did not record */
	if ((e = strobe_formats_find(fmts, "sched", "sched_wakeup")) ||
	    (e = strobe_formats_find(fmts, "sched", "sched_wakeup_new"))) {
		strobe_field_resolve(e, "pid", &p->wu_pid);
		strobe_field_resolve(e, "target_cpu", &p->wu_cpu);
	}
	if ((e = strobe_formats_find(fmts, "sched", "sched_migrate_task"))) {
		strobe_field_resolve(e, "pid", &p->mg_pid);
		strobe_field_resolve(e, "dest_cpu", &p->mg_cpu);
	}
	return 0;
}

static double pct(uint64_t ns, uint64_t window)
{
	return window ? 100.0 * (double)ns / (double)window : 0.0;
}

/* The tables, from the groups as they are, over the window [win_begin,
 * win_end] (a snapshot's interval). */
static int emit(struct ana *a)
{
	struct cputop *p = a->priv;
	struct ana_core *c = a->core;
	uint64_t window = c->win_end - c->win_begin;
	struct ana_rank *r;
	union strobe_value *v;
	struct group *g;
	size_t n, i;
	int cpu, k;

	if (!p->top)
		goto notes;
	if (ana_rank_map(&p->groups, offsetof(struct group, ns), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < ana_top_n(c, n); i++) {
		g = r[i].item;
		if (!(v = tbl_row(p->top))) {
			free(r);
			return -ENOMEM;
		}
		k = ana_owner_vals(c, p->top, v, &g->o);
		v[k].u = g->ns;
		v[k + 1].d = pct(g->ns, window);
		v[k + 2].i = (int64_t)g->switches;
	}
	free(r);
	if (p->cpu_table)
		for (cpu = 0; cpu < p->nr_cpus; cpu++) {
			if (!p->cpus[cpu].seen)
				continue;
			if (!(v = tbl_row(p->cpu_table)))
				return -ENOMEM;
			v[0].i = cpu;
			v[1].u = p->cpus[cpu].busy;
			v[2].d = pct(p->cpus[cpu].busy, window);
		}
notes:
	ana_note_filtered(c, "cputop", "only the traced tasks' CPU time is shown; "
			  "other tasks' CPU time is not known (CPU Busy counts the traced "
			  "tasks only)");
	if (p->lost_ns)
		ana_note(c, "cputop: %llu us of CPU time fell inside lost-event gaps and "
			 "is not charged to anyone", (unsigned long long)(p->lost_ns / 1000));
	return 0;
}

/* Charge the tasks running now up to `end`. */
static void charge_running(struct ana *a, uint64_t end)
{
	struct cputop *p = a->priv;
	int cpu;

	for (cpu = 0; cpu < p->nr_cpus; cpu++)
		if (p->cpus[cpu].state == CPU_RUNNING)
			charge(a, p->cpus[cpu].tid, cpu, p->cpus[cpu].since, end, false);
}

static int finish(struct ana *a)
{
	charge_running(a, a->core->win_end);
	return emit(a);
}

/* As finish, on copies: the groups and the CPUs' busy time are put back
 * as they were. */
static int snapshot(struct ana *a, uint64_t ts)
{
	struct cputop *p = a->priv;
	struct ana_map groups;
	uint64_t *busy = calloc((size_t)(p->nr_cpus ? p->nr_cpus : 1), sizeof(*busy));
	int cpu, ret;

	if (!busy || ana_map_copy(&groups, &p->groups) < 0) {
		free(busy);
		return -ENOMEM;
	}
	for (cpu = 0; cpu < p->nr_cpus; cpu++)
		busy[cpu] = p->cpus[cpu].busy;
	charge_running(a, ts);
	ret = emit(a);
	ana_map_free(&p->groups);
	p->groups = groups;
	for (cpu = 0; cpu < p->nr_cpus; cpu++)
		p->cpus[cpu].busy = busy[cpu];
	free(busy);
	return ret;
}

/* What ran before ts was charged to the interval before (a snapshot at
 * ts shows it): running tasks go on from ts. */
static void reset(struct ana *a, uint64_t ts)
{
	struct cputop *p = a->priv;
	int cpu;

	ana_map_clear(&p->groups);
	p->lost_ns = 0;
	for (cpu = 0; cpu < p->nr_cpus; cpu++) {
		struct cpu *c = &p->cpus[cpu];

		c->busy = 0;
		if (c->state == CPU_RUNNING && c->since < ts)
			c->since = ts;
	}
}

static void fini(struct ana *a)
{
	struct cputop *p = a->priv;

	ana_map_free(&p->groups);
	ana_map_free(&p->arrivals);
	free(p->cpus);
}

const struct ana_ops ana_cputop_ops = {
	.name = "cputop",
	.summary = "CPU time per thread, process, container and CPU",
	.needs = "sched:sched_switch",
	.preset = "sched",
	.priv_size = sizeof(struct cputop),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.lost = lost,
	.finish = finish,
	.snapshot = snapshot,
	.reset = reset,
	.free = fini,
};
