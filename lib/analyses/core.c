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
 *  - thread instances: a tid reused by a new thread gets a new group key
 *    (the task model's serial, strobe_task.serial), so rows never merge
 *    two threads;
 *  - the window (--begin/--end);
 *  - PID-filtered recordings (strobe record -- CMD, -p, -c): the target
 *    named in the file's info is handed to targets.c, and each fork in the
 *    trace settles whether the child was traced while the parent is surely
 *    known.
 *
 * What the analyses share lives beside it, one concern a file: result
 * tables and rankings (tables.c), latency statistics and histograms
 * (stats.c), owners and group keys (owners.c), which tasks count: the
 * recording's target and the task filters (targets.c), the building of
 * result tables (finish's, a snapshot's) and resets (interval.c).  Their
 * cross-file declarations are in analysis-int.h.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "../stream/stream-int.h"
#include "analyses/analysis-int.h"
#include "util/opts.h"
#include "analyses/own-model.h"
#include <strobe/pipeline.h>

static const struct ana_ops *const all_ops[] = {
	&ana_cputop_ops, &ana_syscalls_ops, &ana_schedlat_ops,
	&ana_io_ops, &ana_irq_ops, &ana_mem_ops, &ana_periods_ops, &ana_why_ops,
	&ana_runqlat_ops, &ana_biolatency_ops,
};
#define NR_OPS (sizeof(all_ops) / sizeof(all_ops[0]))

static const char *const all_names[] = {
	"cputop", "syscalls", "schedlat", "io", "irq", "mem", "periods", NULL
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

const char *strobe_analysis_preset(const char *name)
{
	const struct ana_ops *o = name ? find_ops(name, strlen(name)) : NULL;

	return o ? o->preset : NULL;
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

void ana_check_warn(void *c, const char *msg)
{
	ana_note(c, "%s", msg);
}

int strobe_analysis_nr_notes(const struct strobe_analysis *a)
{
	return a ? a->core.nr_notes : 0;
}

const char *strobe_analysis_note(const struct strobe_analysis *a, int i)
{
	return a && i >= 0 && i < a->core.nr_notes ? a->core.notes[i] : NULL;
}

/* The name of the i-th analysis a runs, NULL past the last. */
const char *ana_name_at(const struct strobe_analysis *a, int i)
{
	return i >= 0 && i < a->nr_anas ? a->anas[i].ops->name : NULL;
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
	strobe_opts_copy(&a->core.opts, sizeof(a->core.opts), opts);
	a->core.want_hist = ana_view(&a->core, STROBE_VIEW_FREQ);
	ana_map_init(&a->core.inst, sizeof(struct ana_inst));
	a->anas = calloc(NR_OPS * 4, sizeof(*a->anas));	/* names may repeat: capped */
	if (!a->anas) {
		free(a);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	ret = ana_filter_build(&a->core, err);
	if (ret < 0) {
		strobe_analysis_free(a);
		return ret;
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
					 "schedlat, io, irq, mem, periods)", (int)(e - p), p);
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
			ret = !an->priv ? -ENOMEM : o->init ? o->init(an) : 0;
			if (ret < 0) {
				/* an option it rejects: the note it added says why */
				if (ret != -ENOMEM && a->core.nr_notes)
					strobe_err(err, ret, "%s", a->core.notes[a->core.nr_notes - 1]);
				else
					ret = strobe_err(err, -ENOMEM, "out of memory");
				strobe_analysis_free(a);
				return ret;
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
			tbl_free(an->tables[j]);
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
	strobe_expr_filter_free(a->core.filter);
	free(a->core.cont_traced);
	ana_targets_free(&a->core);
	free(a->all_tables);
	ana_map_free(&a->core.inst);
	strobe_model_free(a->own_model);
	free(a);
}

int strobe_analysis_set_target(struct strobe_analysis *a, const char *target,
			       const char *pids, const char *containers,
			       struct strobe_error *err)
{
	if (a->attached)
		return strobe_err(err, -EINVAL, "set the recording target before attaching");
	return ana_set_target(&a->core, target, pids, containers, err);
}

/*
 * The core's own handlers, for PID-filtered traces only: a child is traced
 * when its parent is (event-fork adds it to set_event_pid), decided here
 * while the parent is surely known; an exit lets the entry be swept.
 */
static void core_fork(struct strobe_analysis *a, const struct strobe_event *ev)
{
	struct ana_core *c = &a->core;
	int child = (int)strobe_field_int(ev, &a->f_fork_child);
	const struct strobe_task *t;
	signed char traced;
	struct ana_inst *e;

	if (!c->filtered || c->by_container)
		return;
	{
		int parent = a->f_fork_parent.valid ? (int)strobe_field_int(ev, &a->f_fork_parent)
						    : ev->pid;

		traced = ana_fork_traced(c, child, parent) ? 1 : -1;
	}
	/* after the walk; the model made the child's new instance already */
	t = ana_task(c, child);
	e = t ? ana_inst_get(c, t) : NULL;
	if (e)
		e->traced = traced;
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

int strobe_analysis_attach(struct strobe_analysis *a, struct strobe_formats *fmts,
			   struct strobe_model *m, struct strobe_error *err)
{
	int i, j, k, max_id = -1, nr_active = 0, ret;
	const struct strobe_format *fe;

	if (a->attached)
		return strobe_err(err, -EINVAL, "analysis already attached");
	if (!m) {
		ret = strobe_model_new(&a->own_model, err);
		if (ret < 0)
			return ret;
		m = a->own_model;
	}
	a->core.model = m;
	strobe_expr_env_model(&a->core.env, m);
	a->core.fmts = fmts;
	ret = strobe_expr_filter_check(a->core.filter, fmts,
				       a->core.live ? STROBE_EXPR_CHECK_LIVE : 0, ana_check_warn,
				       &a->core, err);
	if (ret < 0)
		return ret;
	for (i = 0; i < a->nr_anas; i++) {
		struct ana *an = &a->anas[i];

		an->active = an->ops->resolve(an, fmts) == 0;
		if (an->active && an->ops->check && (ret = an->ops->check(an, fmts, err)) < 0)
			return ret;
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

	max_id = strobe_formats_max_id(fmts);
	a->nr_disp = max_id + 1;
	a->disp = calloc((size_t)(a->nr_disp > 0 ? a->nr_disp : 1), sizeof(*a->disp));
	if (!a->disp)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i <= max_id; i++) {
		const struct strobe_format *e = strobe_formats_by_id(fmts, i);
		const char *sys = strobe_format_system(e), *name = strobe_format_name(e);

		if (!e)
			continue;
		for (j = 0; j < a->nr_anas; j++) {
			struct ana *an = &a->anas[j];

			if (!an->active)
				continue;
			if (an->ops->subscribe) {
				int cookie = 0;
				ana_handler fn = an->ops->subscribe(an, e, &cookie);

				if (fn && add_handler(a, i, fn, an, cookie) < 0)
					return strobe_err(err, -ENOMEM, "out of memory");
			}
			for (k = 0; an->ops->subs && an->ops->subs[k].fn; k++) {
				const struct ana_sub *s = &an->ops->subs[k];

				if (fnmatch(s->system, sys, 0) || fnmatch(s->event, name, 0))
					continue;
				if (add_handler(a, i, s->fn, an, s->cookie) < 0)
					return strobe_err(err, -ENOMEM, "out of memory");
			}
		}
	}
	fe = strobe_formats_find(fmts, "sched", "sched_switch");
	if (fe && !strobe_field_resolve(fe, "next_pid", &a->core.switch_next))
		a->core.switch_type = strobe_format_id(fe);
	fe = strobe_formats_find(fmts, "sched", "sched_process_fork");
	if (fe && !strobe_field_resolve(fe, "child_pid", &a->f_fork_child)) {
		strobe_field_resolve(fe, "parent_pid", &a->f_fork_parent);	/* optional */
		add_handler(a, strobe_format_id(fe), NULL, NULL, 1);
	}
	fe = strobe_formats_find(fmts, "sched", "sched_process_exit");
	if (fe && !strobe_field_resolve(fe, "pid", &a->f_exit_pid))
		add_handler(a, strobe_format_id(fe), NULL, NULL, 2);
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

/* After a sched_switch on a CPU, its next task runs there from its time
 * (cpu_pid's evidence), in the window or not. */
static inline void note_switch_in(struct ana_core *c, const struct strobe_event *ev)
{
	if (ev->type == c->switch_type && c->switch_next.valid && ev->cpu >= 0) {
		c->cpu_pid[ev->cpu] = (int)strobe_field_int(ev, &c->switch_next);
		c->cpu_pid_since[ev->cpu] = ev->ts;
	}
}

/* The per-event work, inline in both ways in: strobe_analysis_feed and
 * the pipeline consumer (cons_event), which then costs one call. */
static inline __attribute__((always_inline)) void feed_one(struct strobe_analysis *a,
							   const struct strobe_event *ev)
{
	struct ana_core *c = &a->core;
	const struct disp *d;
	int i;

	if (a->own_model && !a->model_external)
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
	if (!ana_in_window(c, ev->ts)) {
		note_switch_in(c, ev);
		return;
	}
	if (!c->first_ts)
		c->first_ts = ev->ts;
	c->last_ts = ev->ts;
	if ((unsigned)ev->type >= (unsigned)a->nr_disp)
		return;
	d = &a->disp[ev->type];
	c->cur = ev;
	for (i = 0; i < d->n; i++) {
		const struct handler *h = &d->h[i];

		if (h->fn)
			h->fn(h->a, ev, h->cookie);
		else if (h->cookie == 1)
			core_fork(a, ev);
		else
			core_exit(a, ev);
	}
	c->cur = NULL;
	note_switch_in(c, ev);
	if (!(++a->nr_events & 0xffff) && c->inst.n > 1024 &&
	    ev->ts > c->sweep_ts + 1000000000ULL)
		sweep(c, ev->ts);
}

void strobe_analysis_feed(struct strobe_analysis *a, const struct strobe_event *ev)
{
	feed_one(a, ev);
}

int strobe_analysis_finish(struct strobe_analysis *a, struct strobe_error *err)
{
	if (a->finished)
		return 0;
	a->finished = true;
	return ana_build(a, true, 0, err);	/* interval.c */
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

int strobe_analysis_attach_stream(struct strobe_analysis *a, struct strobe_stream *s,
				  struct strobe_model *m, struct strobe_error *err)
{
	return strobe_analysis_attach(a, strobe_stream_formats(s), m, err);
}

/* ---- the analysis as a pipeline consumer ---------------------------------- */

static int cons_start(const struct strobe_pipeline_source *srcs, int nr, void *arg,
		      struct strobe_error *err)
{
	struct strobe_analysis *a = arg;
	const struct strobe_pipeline_source *src;
	struct strobe_error e2 = { 0, "" };
	struct strobe_tracefile *tf;
	int ret;

	if (a->source < 0 || a->source >= nr)
		return strobe_err(err, -EINVAL, "the analysis reads source %d of %d", a->source,
				  nr);
	src = &srcs[a->source];
	tf = src->tf;
	if (tf && !a->attached) {
		ret = strobe_analysis_set_target(a, strobe_tracefile_info(tf, "target"),
						 strobe_tracefile_info(tf, "target_pids"),
						 strobe_tracefile_info(tf, "target_containers"), &e2);
		if (ret == -EINVAL)
			ana_note(&a->core, "%s (a newer strobe's file?): analysed as a whole-system "
				 "recording, so tasks it did not trace may be charged for time "
				 "the trace does not show", e2.msg);
		else if (ret < 0)
			return strobe_err(err, ret, "%s", e2.msg);
	}
	a->core.live = src->live;
	return strobe_analysis_attach(a, src->formats, src->model, err);
}

static int cons_event(const struct strobe_event *ev, int source, void *arg,
		      struct strobe_error *err)
{
	struct strobe_analysis *a = arg;

	if (source != a->source)
		return 0;
	if (a->core.opts.end && ev->ts > a->core.opts.end) {
		a->core.last_ts = a->core.opts.end;	/* the window ends there */
		return STROBE_CONSUMER_DONE;	/* events are in time order */
	}
	feed_one(a, ev);
	return 0;
}

static int cons_finish(void *arg, struct strobe_error *err)
{
	return strobe_analysis_finish(arg, err);
}

int strobe_analysis_consumer(struct strobe_analysis *a, int source,
			     struct strobe_consumer *out)
{
	a->source = source;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->name = "the analysis";
	out->flags = STROBE_CONSUMER_MODEL | STROBE_CONSUMER_SOURCE_TIME;
	out->start = cons_start;
	out->event = cons_event;
	out->finish = cons_finish;
	out->arg = a;
	return 0;
}

int strobe_analysis_set_window(struct strobe_analysis *a, uint64_t begin, uint64_t end,
			       struct strobe_error *err)
{
	if (a->core.nr_cpus)	/* the first event made the per-CPU state */
		return strobe_err(err, -EBUSY, "set the window before the first event");
	a->core.opts.begin = begin;
	a->core.opts.end = end;
	return 0;
}

int strobe_analysis_cpu_mask(const struct strobe_analysis *a, const bool **mask)
{
	*mask = NULL;
	return strobe_expr_filter_cpu_mask(a->core.filter, mask);
}

void ana_own_model(struct strobe_analysis *a, struct strobe_model *m)
{
	strobe_model_free(a->own_model);
	a->own_model = m;
	a->model_external = true;
}
