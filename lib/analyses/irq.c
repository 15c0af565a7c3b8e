/*
 * irq.c - hard IRQ and softirq handler durations per IRQ line / vector,
 * and softirq raise-to-entry latency.
 *
 * State is per CPU, as interrupts are: the hard IRQ in flight (handlers
 * do not nest on Linux), and per softirq vector the time it was first
 * raised since it last ran and the time its handler started.  A
 * handler's duration is entry to exit on the same CPU; raise latency is
 * the first raise on a CPU to the next entry of that vector there.  Lost
 * events on a CPU forget that CPU's state (nothing wrong is measured;
 * an in-flight measurement is counted as dropped).  --group-by cpu splits
 * every row by CPU; other groupings do not apply to interrupts.
 *
 * In a PID-filtered recording (strobe record -- CMD, -p, -c) a CPU records
 * only while a traced task is current: handler entry and exit still come
 * in pairs, but a softirq raised there may run after a switch to an
 * untraced task (ksoftirqd), unrecorded, and the vector's next recorded
 * entry would close it far too late.  A switch to an untraced task
 * therefore forgets the CPU's pending raises.
 *
 * --log: irq.log has a row per handler run, at its exit: entry time,
 * duration, CPU, type ("hard" or "soft"), number (IRQ line or softirq
 * vector), name (the IRQ's action, the vector's name) and, for softirqs,
 * the raise-to-entry latency (0 when the raise is not known).
 * --min/--max select rows by handler duration.  Interrupts belong to no
 * task: the task filters do not apply to them (here as in the tables);
 * --cpu does.
 *
 * A reset (strobe_analysis_reset) zeroes the groups' statistics but
 * keeps the groups, whose names come from the entry events, and the
 * per-CPU state: a handler running at a reset, or a softirq raised
 * before it, counts whole in the interval where it exits or is entered.
 * Handler runs are measurements, not shares of time: a snapshot leaves a
 * running handler out, as it does a call in flight.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyses/analysis-int.h"

enum { HARD_ENTRY, HARD_EXIT, SOFT_RAISE, SOFT_ENTRY, SOFT_EXIT, SWITCH };

#define NR_VEC 16

static const char *const vec_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
	"HRTIMER", "RCU",
};

struct cpu {
	int irq;		/* hard IRQ in flight, -1 none */
	uint64_t irq_since;
	uint64_t raised[NR_VEC];	/* 0: not pending */
	uint64_t soft_since[NR_VEC];	/* 0: not running */
	uint64_t soft_raise[NR_VEC];	/* running: its raise latency, 0 unknown */
};

struct group {
	int kind;		/* 0 hard, 1 soft, 2 raise */
	int nr;
	int cpu;
	char name[32];
	struct ana_stats st;
};

struct irq {
	struct strobe_field h_irq, h_name, hx_irq, s_vec, r_vec, sx_vec;
	struct strobe_field next_pid;	/* sched_switch, for filtered traces */
	struct cpu *cpus;
	int nr_cpus;
	struct ana_map groups;	/* (kind, nr, cpu) -> struct group */
	struct strobe_table *hard, *soft, *raise, *log;
};

static struct cpu *get_cpu(struct irq *p, int cpu)
{
	int i;

	if (cpu < 0)
		return NULL;
	if (cpu >= p->nr_cpus) {
		int n = cpu + 8;
		struct cpu *c = realloc(p->cpus, (size_t)n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + p->nr_cpus, 0, (size_t)(n - p->nr_cpus) * sizeof(*c));
		for (i = p->nr_cpus; i < n; i++)
			c[i].irq = -1;
		p->cpus = c;
		p->nr_cpus = n;
	}
	return &p->cpus[cpu];
}

static const char *vec_name(int nr)
{
	return nr >= 0 && nr < (int)(sizeof(vec_names) / sizeof(vec_names[0])) ? vec_names[nr]
										: "?";
}

static struct group *group(struct ana *a, int kind, int nr, int cpu)
{
	struct irq *p = a->priv;
	int gcpu = a->core->opts.group_by == STROBE_GROUP_CPU ? cpu : -1;
	uint64_t key = ((uint64_t)kind << 56) ^ ((uint64_t)(uint32_t)nr << 24) ^
		       (uint64_t)(uint32_t)(gcpu + 1);
	struct group *g;
	bool created;

	g = ana_map_put(&p->groups, key, &created);
	if (g && created) {
		g->kind = kind;
		g->nr = nr;
		g->cpu = gcpu;
		if (kind)
			snprintf(g->name, sizeof(g->name), "%s", vec_name(nr));
	}
	return g;
}

static void add(struct ana *a, struct group *g, uint64_t ns)
{
	if (g && ana_duration_ok(a->core, ns))
		ana_stats_add(&g->st, ns, a->core->want_hist);
}

/* The log row of a handler run [since, ev->ts): a hard IRQ (name: its
 * action's) or a softirq vector (raise: its raise latency, 0 unknown). */
static void log_run(struct ana *a, const struct strobe_event *ev, bool hard, int nr,
		    const char *name, uint64_t since, uint64_t raise)
{
	struct irq *p = a->priv;
	struct ana_core *c = a->core;
	union strobe_value v[7];

	if (!ana_duration_ok(c, ev->ts - since))
		return;
	v[0].u = since;
	v[1].u = ev->ts - since;
	v[2].i = ev->cpu;
	v[3].s = hard ? "hard" : "soft";
	v[4].i = nr;
	v[5].s = name;
	v[6].u = raise;
	c->opts.log(c->opts.log_arg, p->log, v);
}

static void on_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct irq *p = a->priv;
	struct cpu *c = get_cpu(p, ev->cpu);
	struct group *g;
	int nr;

	if (!c || !ana_cpu_selected(a->core, ev->cpu))
		return;
	switch (cookie) {
	case SWITCH:	/* matters in PID-filtered traces only: see the head */
		if (a->core->filtered &&
		    !ana_tid_traced(a->core, (int)strobe_field_int(ev, &p->next_pid))) {
			c->irq = -1;
			memset(c->raised, 0, sizeof(c->raised));
			memset(c->soft_since, 0, sizeof(c->soft_since));
		}
		break;
	case HARD_ENTRY:
		c->irq = (int)strobe_field_int(ev, &p->h_irq);
		c->irq_since = ev->ts;
		g = group(a, 0, c->irq, ev->cpu);
		if (g && !g->name[0]) {
			uint32_t len;
			const char *s = strobe_field_str(ev, &p->h_name, &len);

			if (s)
				snprintf(g->name, sizeof(g->name), "%.*s",
					 (int)strnlen(s, len), s);
		}
		break;
	case HARD_EXIT:
		nr = (int)strobe_field_int(ev, &p->hx_irq);
		if (c->irq == nr && ev->ts >= c->irq_since) {
			g = group(a, 0, nr, ev->cpu);
			add(a, g, ev->ts - c->irq_since);
			if (p->log && a->core->opts.log)
				log_run(a, ev, true, nr, g ? g->name : "", c->irq_since, 0);
		}
		c->irq = -1;
		break;
	case SOFT_RAISE:
		if (!p->r_vec.valid)
			break;
		nr = (int)strobe_field_int(ev, &p->r_vec);
		if (nr >= 0 && nr < NR_VEC && !c->raised[nr])
			c->raised[nr] = ev->ts;
		break;
	case SOFT_ENTRY:
		nr = (int)strobe_field_int(ev, &p->s_vec);
		if (nr < 0 || nr >= NR_VEC)
			break;
		c->soft_raise[nr] = 0;
		if (c->raised[nr] && ev->ts >= c->raised[nr]) {
			c->soft_raise[nr] = ev->ts - c->raised[nr];
			add(a, group(a, 2, nr, ev->cpu), ev->ts - c->raised[nr]);
		}
		c->raised[nr] = 0;
		c->soft_since[nr] = ev->ts;
		break;
	case SOFT_EXIT:
		nr = (int)strobe_field_int(ev, &p->sx_vec);
		if (nr < 0 || nr >= NR_VEC)
			break;
		if (c->soft_since[nr] && ev->ts >= c->soft_since[nr]) {
			add(a, group(a, 1, nr, ev->cpu), ev->ts - c->soft_since[nr]);
			if (p->log && a->core->opts.log)
				log_run(a, ev, false, nr, vec_name(nr), c->soft_since[nr],
					c->soft_raise[nr]);
		}
		c->soft_since[nr] = 0;
		break;
	}
}

static void lost(struct ana *a, int cpu, uint64_t ts)
{
	struct irq *p = a->priv;
	struct cpu *c = get_cpu(p, cpu);
	int i;

	if (!c)
		return;
	if (c->irq >= 0)
		a->dropped++;
	c->irq = -1;
	for (i = 0; i < NR_VEC; i++) {
		if (c->raised[i] || c->soft_since[i])
			a->dropped++;
		c->raised[i] = 0;
		c->soft_since[i] = 0;
	}
}

static const struct ana_sub subs[] = {
	{ "irq", "irq_handler_entry", on_event, HARD_ENTRY },
	{ "irq", "irq_handler_exit", on_event, HARD_EXIT },
	{ "irq", "softirq_raise", on_event, SOFT_RAISE },
	{ "irq", "softirq_entry", on_event, SOFT_ENTRY },
	{ "irq", "softirq_exit", on_event, SOFT_EXIT },
	{ "sched", "sched_switch", on_event, SWITCH },
	{ NULL, NULL, NULL, 0 }
};

static int cols(struct ana *a, struct strobe_table *t, bool hard)
{
	int ret = 0;

	if (a->core->opts.group_by == STROBE_GROUP_CPU)
		ret |= tbl_col(t, "cpu", "CPU", STROBE_COL_INT);
	ret |= tbl_col(t, hard ? "irq" : "vec", hard ? "IRQ" : "Vec", STROBE_COL_INT);
	ret |= tbl_col(t, "name", "Name", STROBE_COL_STR);
	ret |= ana_stats_cols(t);
	return ret;
}

static int init(struct ana *a)
{
	struct irq *p = a->priv;
	enum strobe_view v = ana_view(a->core, STROBE_VIEW_STATS) ? STROBE_VIEW_STATS
								  : STROBE_VIEW_TOP;
	int ret = 0;

	ana_map_init(&p->groups, sizeof(struct group));
	if (!ana_view(a->core, STROBE_VIEW_TOP | STROBE_VIEW_STATS | STROBE_VIEW_FREQ))
		goto log;
	p->hard = ana_add_table(a, "irq.hard", "Hard IRQ handler durations", v);
	p->soft = ana_add_table(a, "irq.soft", "Softirq handler durations", v);
	p->raise = ana_add_table(a, "irq.raise", "Softirq raise-to-entry latency", v);
	if (!p->hard || !p->soft || !p->raise)
		return -ENOMEM;
	ret |= cols(a, p->hard, true);
	ret |= cols(a, p->soft, false);
	ret |= cols(a, p->raise, false);
	if (ana_view(a->core, STROBE_VIEW_FREQ)) {
		if (!ana_add_freq_schema(a, "irq.freq", "IRQ duration distribution"))
			return -ENOMEM;
	}
log:
	if (ana_view(a->core, STROBE_VIEW_LOG)) {
		p->log = ana_add_table(a, "irq.log", "Interrupt handler runs", STROBE_VIEW_LOG);
		if (!p->log)
			return -ENOMEM;
		ret |= tbl_col(p->log, "ts", "Entry", STROBE_COL_TIMESTAMP);
		ret |= tbl_col(p->log, "duration", "Duration(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->log, "cpu", "CPU", STROBE_COL_INT);
		ret |= tbl_col(p->log, "type", "Type", STROBE_COL_STR);
		ret |= tbl_col(p->log, "nr", "Nr", STROBE_COL_INT);
		ret |= tbl_col(p->log, "name", "Name", STROBE_COL_STR);
		ret |= tbl_col(p->log, "raise_latency", "Raise(us)", STROBE_COL_DURATION);
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct irq *p = a->priv;
	const struct strobe_format *he = strobe_formats_find(fmts, "irq", "irq_handler_entry");
	const struct strobe_format *hx = strobe_formats_find(fmts, "irq", "irq_handler_exit");
	const struct strobe_format *se = strobe_formats_find(fmts, "irq", "softirq_entry");
	const struct strobe_format *sx = strobe_formats_find(fmts, "irq", "softirq_exit");
	const struct strobe_format *sr = strobe_formats_find(fmts, "irq", "softirq_raise");
	bool hard, soft;

	hard = he && hx && !strobe_field_resolve(he, "irq", &p->h_irq) &&
	       !strobe_field_resolve(hx, "irq", &p->hx_irq);
	if (hard)
		strobe_field_resolve(he, "name", &p->h_name);
	soft = se && sx && !strobe_field_resolve(se, "vec", &p->s_vec) &&
	       !strobe_field_resolve(sx, "vec", &p->sx_vec);
	if (sr)
		strobe_field_resolve(sr, "vec", &p->r_vec);
	if (a->core->filtered && sr) {
		const struct strobe_format *sw = strobe_formats_find(fmts, "sched", "sched_switch");

		/* without switches a raise may close after an unrecorded run */
		if (!sw || strobe_field_resolve(sw, "next_pid", &p->next_pid))
			p->r_vec.valid = 0;
	}
	return hard || soft ? 0 : -ENOENT;
}

static int finish(struct ana *a)
{
	struct irq *p = a->priv;
	struct ana_core *c = a->core;
	struct ana_rank *r;
	struct group *g;
	size_t n, i;
	char title[96];
	int ret = 0;

	ana_note_filtered(c, "irq", "only interrupts that came while a traced task ran "
			  "are counted");
	if (ana_rank_map(&p->groups, offsetof(struct group, st.total), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct strobe_table *t;
		union strobe_value *v;
		int k = 0;

		g = r[i].item;
		t = g->kind == 0 ? p->hard : g->kind == 1 ? p->soft : p->raise;
		if (!g->st.count || !t || t->nr_rows >= ana_top_n(c, SIZE_MAX))
			continue;
		if (!(v = tbl_row(t))) {
			ret = -ENOMEM;
			break;
		}
		if (c->opts.group_by == STROBE_GROUP_CPU)
			v[k++].i = g->cpu;
		v[k++].i = g->nr;
		v[k++].s = tbl_str(t, g->name);
		ana_stats_vals(v + k, &g->st);
		if (g->st.hist) {
			snprintf(title, sizeof(title), "%s %d (%s) duration",
				 g->kind == 0 ? "IRQ" : g->kind == 1 ? "softirq" : "softirq raise of",
				 g->nr, g->name);
			if ((ret = ana_emit_hist(a, "irq.freq", title, &g->st, NULL, NULL, NULL)) < 0)
				break;
		}
	}
	free(r);
	return ret;
}

/* A group without measurements is no row (finish). */
static void reset(struct ana *a, uint64_t ts)
{
	struct irq *p = a->priv;
	struct group *g;
	size_t pos = 0;

	while ((g = ana_map_next(&p->groups, &pos, NULL))) {
		ana_stats_free(&g->st);
		memset(&g->st, 0, sizeof(g->st));
	}
}

static void fini(struct ana *a)
{
	struct irq *p = a->priv;
	struct group *g;
	size_t pos = 0;

	while ((g = ana_map_next(&p->groups, &pos, NULL)))
		ana_stats_free(&g->st);
	ana_map_free(&p->groups);
	free(p->cpus);
}

const struct ana_ops ana_irq_ops = {
	.name = "irq",
	.summary = "hard IRQ and softirq durations, softirq raise-to-entry latency",
	.needs = "irq:irq_handler_entry/exit or irq:softirq_entry/exit (softirq_raise for "
		 "raise latency)",
	.preset = "irq",
	.priv_size = sizeof(struct irq),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.lost = lost,
	.finish = finish,
	.reset = reset,
	.free = fini,
};
