/*
 * periods.c - user-defined periods as an analysis: lttng-analyses' --period
 * definitions (begin and end expressions, parents, captures; see
 * strobe-expr(7)) run by the strobe_periods engine (lib/expr/periods.c)
 * over the one stream, next to the other analyses.
 *
 * Subscriptions are per instance: at attach the engine says which event
 * types its expressions can match (strobe_periods_may_match), so a
 * definition on syscall_exit_accept4 costs nothing on sched_switch.  Lost
 * events anywhere in the stream reach the engine through the core's lost
 * hook (strobe_periods_note_lost), so a period with a gap inside is marked
 * even when the gap was on events the periods never see.
 *
 * What becomes of a period when the engine emits it:
 *   CLOSED, no loss    counted in its group's statistics (periods.stats,
 *                      periods.freq), in the --top ranking and in its
 *                      parent's breakdown; one periods.log row;
 *   CLOSED, lost       a periods.log row marked "lost", counted as dropped,
 *                      never in the statistics;
 *   CUT / OWNER_GONE   a log row with that status (its parent ended first;
 *                      its TID went to a new task);
 *   OPEN (at the end)  a row of periods.open, apart from the closed ones.
 * Groups are (definition, key): the key is nothing (one row per period
 * name, lttng's default), the owner thread, process or container, or the
 * value of a capture.  A parent's time splits into its direct children's
 * time per child definition and the rest (periods.breakdown); with
 * --aggregate-by NAME each period NAME ends with one periods.aggregated
 * log row per child definition: the statistics of its descendants of that
 * definition (lttng's aggregated log).
 *
 * Intervals (strobe_analysis_snapshot, _reset): a period counts in the
 * interval where it ends, its parent's breakdown in the interval where the
 * parent ends (the accumulators of open parents are kept by a reset, so
 * a child that ended in an earlier interval is still in its parent's
 * breakdown).  A reset drops the groups, the breakdown and the --top
 * ranking; a snapshot leaves open periods out (periods.open is finish's).
 *
 * Memory: the engine keeps one entry per open period; here, one group per
 * (definition, key), the --top heap, and per open parent (only for
 * definitions with children) an accumulator freed when it ends.  Log rows
 * go to the caller's callback as periods end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/expr.h>

#include "analyses/analysis-int.h"
#include "expr/expr-int.h"

#define MAX_DEFS 64
#define CAP_STR 256		/* captures text of one row */

enum grouping { G_NONE, G_THREAD, G_PROCESS, G_CONTAINER, G_CAPTURE };

struct group {
	int def;
	char *key;			/* the grouping's key text */
	int tid, pid;			/* G_THREAD / G_PROCESS owners */
	char comm[16];
	char *container;
	struct ana_stats st;
	uint64_t children_ns;		/* direct closed children of counted periods */
	struct group *next;		/* hash chain */
};

/* A period of the --top ranking or of periods.open, with its text. */
struct kept {
	uint64_t id, parent_id, begin, end, dur, children;
	int def, tid, pid;
	char comm[16];
	char *container, *status, *bcap, *ecap;
};

/* Per definition with children: what its direct children add up to. */
struct brk {
	uint64_t parents;		/* counted periods of this definition */
	uint64_t parent_ns;		/* their summed durations */
	struct ana_stats self;		/* their time outside their children */
	struct ana_stats *child;	/* per child definition (nr_defs) */
};

#define GROUP_BUCKETS 1024

struct periods {
	struct strobe_periods *eng;
	struct strobe_syscall_args *sysargs;
	enum grouping grouping;
	int nr_defs;
	const char *names[MAX_DEFS];	/* paths, owned by the engine */
	int parent[MAX_DEFS];		/* definition index, -1 root */
	bool has_kids[MAX_DEFS];
	int aggregate;			/* definition index of --aggregate-by, -1 */
	/* open parents with a closed child (or descendant, for
	 * --aggregate-by): period id -> accumulator (below) */
	struct ana_map open_acc;
	size_t acc_size;		/* bytes of one accumulator */
	struct brk brk[MAX_DEFS];
	struct group *buckets[GROUP_BUCKETS];
	struct group **groups;		/* in creation order */
	size_t nr_groups, cap_groups;
	struct ana_topn top;		/* the --top longest */
	struct kept *open;
	size_t nr_open, cap_open;
	uint64_t lost, cut, owner_gone, backwards;
	uint64_t seen[MAX_DEFS];	/* periods emitted per definition */
	bool failed;			/* out of memory somewhere */
	struct strobe_table *t_log, *t_top, *t_open, *t_stats, *t_brk, *t_agg;
};

/* The accumulator of an open parent is an array of 2 nr_defs ana_stats:
 * [0, nr_defs) its direct children's durations per definition (the
 * breakdown), [nr_defs, 2 nr_defs) every descendant's (--aggregate-by). */

static const char *status_name(const struct strobe_period *p)
{
	switch (p->status) {
	case STROBE_PERIOD_CLOSED:
		return p->lost ? "lost" : "closed";
	case STROBE_PERIOD_OPEN:
		return "open";
	case STROBE_PERIOD_CUT:
		return "cut";
	case STROBE_PERIOD_OWNER_GONE:
		return "pid-reused";
	}
	return "?";
}

/* "key = value, key = value" of n captures, appended to buf[size] at *len. */
static void caps_text(const struct strobe_period_value *v, int n, char *buf, size_t size,
		      size_t *len)
{
	int i;

	for (i = 0; i < n && *len < size; i++) {
		const struct strobe_expr_value *x = &v[i].v;
		int k;

		switch (x->type) {
		case STROBE_EXPR_VAL_INT:
			k = x->is_unsigned ? snprintf(buf + *len, size - *len, "%s%s = %" PRIu64,
						      *len ? ", " : "", v[i].key, x->u)
					   : snprintf(buf + *len, size - *len, "%s%s = %" PRId64,
						      *len ? ", " : "", v[i].key, x->i);
			break;
		case STROBE_EXPR_VAL_DOUBLE:
			k = snprintf(buf + *len, size - *len, "%s%s = %g", *len ? ", " : "",
				     v[i].key, x->d);
			break;
		case STROBE_EXPR_VAL_STR:
			k = snprintf(buf + *len, size - *len, "%s%s = %.*s", *len ? ", " : "",
				     v[i].key, (int)x->len, x->s);
			break;
		default:
			k = snprintf(buf + *len, size - *len, "%s%s = ?", *len ? ", " : "",
				     v[i].key);
			break;
		}
		if (k < 0)
			return;
		*len = *len + (size_t)k < size ? *len + (size_t)k : size - 1;
	}
}

/* The value of capture `key` as text ("?" when missing). */
static void capture_value(const struct strobe_period *p, const char *key, char *buf,
			  size_t size)
{
	const struct strobe_period_value *v = NULL;
	int i;

	for (i = 0; i < p->nr_begin_captures && !v; i++)
		if (!strcmp(p->begin_captures[i].key, key))
			v = &p->begin_captures[i];
	for (i = 0; i < p->nr_end_captures && !v; i++)
		if (!strcmp(p->end_captures[i].key, key))
			v = &p->end_captures[i];
	if (!v || v->v.type == STROBE_EXPR_VAL_NONE)
		snprintf(buf, size, "?");
	else if (v->v.type == STROBE_EXPR_VAL_INT)
		snprintf(buf, size, v->v.is_unsigned ? "%" PRIu64 : "%" PRId64,
			 v->v.is_unsigned ? v->v.u : (uint64_t)v->v.i);
	else if (v->v.type == STROBE_EXPR_VAL_DOUBLE)
		snprintf(buf, size, "%g", v->v.d);
	else
		snprintf(buf, size, "%.*s", (int)v->v.len, v->v.s);
}

static const char *owner_container(const struct strobe_period *p)
{
	return p->owner.container ? p->owner.container : "unknown";
}

static const char *owner_comm(const struct strobe_period *p)
{
	return p->owner.procname ? p->owner.procname : "?";
}

/* ---- groups ------------------------------------------------------------------- */

static uint64_t str_hash(const char *s, int def)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)def;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static struct group *group_of(struct ana *a, const struct strobe_period *p)
{
	struct periods *s = a->priv;
	char key[CAP_STR];
	struct group *g;
	unsigned h;

	switch (s->grouping) {
	case G_NONE:
		key[0] = '\0';
		break;
	case G_THREAD:
		snprintf(key, sizeof(key), "%d/%d/%s/%s", p->owner.tid, p->owner.pid,
			 owner_comm(p), owner_container(p));
		break;
	case G_PROCESS:
		snprintf(key, sizeof(key), "%d/%s", p->owner.pid >= 0 ? p->owner.pid : p->owner.tid,
			 owner_container(p));
		break;
	case G_CONTAINER:
		snprintf(key, sizeof(key), "%s", owner_container(p));
		break;
	case G_CAPTURE:
		capture_value(p, a->core->opts.period_group_by, key, sizeof(key));
		break;
	}
	h = (unsigned)(str_hash(key, p->def) & (GROUP_BUCKETS - 1));
	for (g = s->buckets[h]; g; g = g->next)
		if (g->def == p->def && !strcmp(g->key, key))
			return g;
	if (s->nr_groups == s->cap_groups) {
		size_t n = s->cap_groups ? s->cap_groups * 2 : 64;
		struct group **v = realloc(s->groups, n * sizeof(*v));

		if (!v)
			return NULL;
		s->groups = v;
		s->cap_groups = n;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->def = p->def;
	g->key = strdup(key);
	g->container = strdup(owner_container(p));
	if (!g->key || !g->container) {
		free(g->key);
		free(g->container);
		free(g);
		return NULL;
	}
	g->tid = p->owner.tid;
	g->pid = p->owner.pid >= 0 ? p->owner.pid : p->owner.tid;
	snprintf(g->comm, sizeof(g->comm), "%s", owner_comm(p));
	g->next = s->buckets[h];
	s->buckets[h] = g;
	s->groups[s->nr_groups++] = g;
	return g;
}

/* ---- kept periods (--top, open at the end) ------------------------------------- */

static void kept_free(struct kept *k)
{
	free(k->container);
	free(k->bcap);
	free(k->ecap);
	k->container = k->bcap = k->ecap = NULL;
}

static int kept_set(struct kept *k, const struct strobe_period *p, uint64_t end)
{
	char buf[CAP_STR];
	size_t len = 0;

	memset(k, 0, sizeof(*k));
	k->id = p->id;
	k->parent_id = p->parent ? p->parent->id : 0;
	k->begin = p->begin_ts;
	k->end = end;
	k->dur = end > p->begin_ts ? end - p->begin_ts : 0;
	k->children = p->children_ns;
	k->def = p->def;
	k->tid = p->owner.tid;
	k->pid = p->owner.pid;
	snprintf(k->comm, sizeof(k->comm), "%s", owner_comm(p));
	k->status = (char *)status_name(p);
	k->container = strdup(owner_container(p));
	buf[0] = '\0';
	caps_text(p->begin_captures, p->nr_begin_captures, buf, sizeof(buf), &len);
	k->bcap = strdup(buf);
	len = 0;
	buf[0] = '\0';
	caps_text(p->end_captures, p->nr_end_captures, buf, sizeof(buf), &len);
	k->ecap = strdup(buf);
	if (!k->container || !k->bcap || !k->ecap) {
		kept_free(k);
		return -ENOMEM;
	}
	return 0;
}

/* Keep the --top longest periods. */
static void keep_top(struct periods *s, const struct strobe_period *p)
{
	bool evict;
	struct kept *k = ana_topn_slot(&s->top, p->end_ts - p->begin_ts, &evict);

	if (!k)
		return;
	if (evict)
		kept_free(k);
	if (kept_set(k, p, p->end_ts) < 0) {
		s->failed = true;
		ana_topn_cancel(&s->top, evict);
		return;
	}
	ana_topn_push(&s->top, evict);
}

/* ---- rows ------------------------------------------------------------------------ */

/* The columns of a period row (periods.log, .top, .open). */
static int period_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= tbl_col(t, "begin", "Begin", STROBE_COL_TIMESTAMP);
	ret |= tbl_col(t, "end", "End", STROBE_COL_TIMESTAMP);
	ret |= tbl_col(t, "duration", "Duration(us)", STROBE_COL_DURATION);
	ret |= tbl_col(t, "name", "Name", STROBE_COL_STR);
	ret |= tbl_col(t, "id", "Id", STROBE_COL_INT);
	ret |= tbl_col(t, "parent_id", "Parent", STROBE_COL_INT);
	ret |= ana_task_cols(t);
	ret |= tbl_col(t, "children", "Children(us)", STROBE_COL_DURATION);
	ret |= tbl_col(t, "status", "Status", STROBE_COL_STR);
	ret |= tbl_col(t, "begin_captures", "Begin captures", STROBE_COL_STR);
	ret |= tbl_col(t, "end_captures", "End captures", STROBE_COL_STR);
	return ret ? -ENOMEM : 0;
}

static void kept_vals(struct periods *s, struct strobe_table *t, union strobe_value *v,
		      const struct kept *k, bool copy)
{
#define S(x) (copy ? tbl_str(t, (x)) : (x))
	v[0].u = k->begin;
	v[1].u = k->end;
	v[2].u = k->dur;
	v[3].s = S(s->names[k->def]);
	v[4].i = (int64_t)k->id;
	v[5].i = (int64_t)k->parent_id;
	v[6].i = k->tid;
	v[7].i = k->pid;
	v[8].s = S(k->comm);
	v[9].s = S(k->container);
	v[10].u = k->children;
	v[11].s = S(k->status);
	v[12].s = S(k->bcap);
	v[13].s = S(k->ecap);
#undef S
}

static void log_period(struct ana *a, const struct strobe_period *p)
{
	struct periods *s = a->priv;
	struct ana_core *c = a->core;
	union strobe_value v[14];
	struct kept k;

	if (kept_set(&k, p, p->end_ts) < 0) {
		s->failed = true;
		return;
	}
	kept_vals(s, s->t_log, v, &k, false);
	c->opts.log(c->opts.log_arg, s->t_log, v);
	kept_free(&k);
}

/* The aggregated log rows of parent p: one per child definition seen. */
static void log_aggregated(struct ana *a, const struct strobe_period *p, struct ana_stats *ac)
{
	struct periods *s = a->priv;
	struct ana_core *c = a->core;
	char caps[CAP_STR];
	size_t len = 0;
	int d;

	caps[0] = '\0';
	caps_text(p->begin_captures, p->nr_begin_captures, caps, sizeof(caps), &len);
	caps_text(p->end_captures, p->nr_end_captures, caps, sizeof(caps), &len);
	for (d = 0; d < s->nr_defs; d++) {
		const struct ana_stats *st = &ac[s->nr_defs + d];
		union strobe_value v[15];

		if (!st->count)
			continue;
		v[0].u = p->begin_ts;
		v[1].u = p->end_ts;
		v[2].u = p->end_ts - p->begin_ts;	/* counted: end >= begin */
		v[3].s = s->names[p->def];
		v[4].i = (int64_t)p->id;
		v[5].i = p->owner.tid;
		v[6].s = owner_container(p);
		v[7].s = s->names[d];
		ana_stats_vals(v + 8, st);
		v[14].s = caps;
		c->opts.log(c->opts.log_arg, s->t_agg, v);
	}
}

/* ---- the engine's callback ------------------------------------------------------ */

/* The accumulator of open period id (created zeroed when create; NULL
 * when absent or out of memory). */
static struct ana_stats *acc_get(struct periods *s, uint64_t id, bool create)
{
	struct ana_stats *ac;

	if (!create)
		return ana_map_get(&s->open_acc, id);
	ac = ana_map_put(&s->open_acc, id, NULL);
	if (!ac)
		s->failed = true;
	return ac;
}

static void acc_drop(struct periods *s, uint64_t id)
{
	struct ana_stats *ac = ana_map_get(&s->open_acc, id);
	int i;

	if (!ac)
		return;
	for (i = 0; i < 2 * s->nr_defs; i++)
		ana_stats_free(&ac[i]);
	ana_map_del(&s->open_acc, id);
}

/* Does period p count (closed, no loss, inside --min/--max, its owner
 * passes the task filters)? */
static bool counted(struct ana *a, const struct strobe_period *p)
{
	struct ana_core *c = a->core;

	if (p->status != STROBE_PERIOD_CLOSED || p->lost || p->end_ts < p->begin_ts)
		return false;
	if (!ana_duration_ok(c, p->end_ts - p->begin_ts))
		return false;
	if (ana_task_filters(c)) {
		const struct strobe_task *t = ana_task(c, p->owner.tid);

		if (!t || !ana_task_selected(c, t))
			return false;
	}
	return true;
}

static void on_period(void *arg, const struct strobe_period *p)
{
	struct ana *a = arg;
	struct periods *s = a->priv;
	struct ana_core *c = a->core;
	bool ok = counted(a, p);
	uint64_t dur = p->end_ts > p->begin_ts ? p->end_ts - p->begin_ts : 0;
	struct ana_stats *ac = NULL;

	s->seen[p->def]++;
	if (p->end_ts < p->begin_ts)
		s->backwards++;	/* time went backwards in the file */
	switch (p->status) {
	case STROBE_PERIOD_CLOSED:
		if (p->lost) {
			s->lost++;
			a->dropped++;
		}
		break;
	case STROBE_PERIOD_CUT:
		s->cut++;
		break;
	case STROBE_PERIOD_OWNER_GONE:
		s->owner_gone++;
		break;
	case STROBE_PERIOD_OPEN:
		if (s->nr_open == s->cap_open) {
			size_t n = s->cap_open ? s->cap_open * 2 : 16;
			struct kept *v = realloc(s->open, n * sizeof(*v));

			if (!v) {
				s->failed = true;
				goto out;
			}
			s->open = v;
			s->cap_open = n;
		}
		/* open until the end of the window, not just the last event
		 * the periods saw */
		if (kept_set(&s->open[s->nr_open], p, c->last_ts > p->end_ts ? c->last_ts
									      : p->end_ts) < 0)
			s->failed = true;
		else
			s->nr_open++;
		goto out;
	}
	if (ok) {
		struct group *g = group_of(a, p);

		if (!g) {
			s->failed = true;
		} else {
			ana_stats_add(&g->st, dur, c->want_hist);
			g->children_ns += p->children_ns;
		}
		if (s->t_top)
			keep_top(s, p);
		/* the breakdown of its parent, the aggregate of its ancestor */
		if (p->parent && (ac = acc_get(s, p->parent->id, true)))
			ana_stats_add(&ac[p->def], dur, false);
		if (s->aggregate >= 0) {
			const struct strobe_period *q;

			for (q = p->parent; q && q->def != s->aggregate; q = q->parent)
				;
			if (q && (ac = acc_get(s, q->id, true)))
				ana_stats_add(&ac[s->nr_defs + p->def], dur, false);
		}
		if (s->has_kids[p->def]) {
			struct brk *b = &s->brk[p->def];
			uint64_t kids = 0;
			int d;

			b->parents++;
			b->parent_ns += dur;
			ac = acc_get(s, p->id, false);	/* none: no child counted */
			for (d = 0; ac && d < s->nr_defs; d++)
				kids += ac[d].total;
			/* the rest: so the breakdown's rows add up to the parents */
			ana_stats_add(&b->self, dur > kids ? dur - kids : 0, false);
			for (d = 0; ac && d < s->nr_defs; d++)
				ana_stats_merge(&b->child[d], &ac[d]);
		}
	}
	if (c->opts.log && ana_view(c, STROBE_VIEW_LOG)) {
		if (s->t_agg) {
			if (ok && p->def == s->aggregate && (ac = acc_get(s, p->id, false)))
				log_aggregated(a, p, ac);
		} else if (s->t_log && (ok || p->status != STROBE_PERIOD_CLOSED || p->lost)) {
			log_period(a, p);
		}
	}
out:
	acc_drop(s, p->id);
}

/* ---- the stream ------------------------------------------------------------------- */

static void on_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct periods *s = a->priv;

	if (strobe_periods_feed(s->eng, ev) < 0)
		s->failed = true;
}

static ana_handler subscribe(struct ana *a, const struct strobe_format *e, int *cookie)
{
	struct periods *s = a->priv;

	return strobe_periods_may_match(s->eng, e) ? on_event : NULL;
}

static void lost(struct ana *a, int cpu, uint64_t ts)
{
	struct periods *s = a->priv;

	strobe_periods_note_lost(s->eng);
}

/* ---- set-up and results ---------------------------------------------------------- */

static int init(struct ana *a)
{
	struct periods *s = a->priv;
	struct ana_core *c = a->core;
	const struct strobe_analysis_opts *o = &c->opts;
	struct strobe_error err = { 0 };
	int i, ret = 0;
	char q[200];

	s->aggregate = -1;
	ana_map_init(&s->open_acc, 1);
	if (strobe_periods_new(on_period, a, &s->eng) < 0)
		return -ENOMEM;
	for (i = 0; i < o->nr_periods; i++)
		if ((ret = strobe_periods_define(s->eng, o->periods[i], &err)) < 0) {
			ana_note(c, "--period '%s': %s", expr_quote(o->periods[i],
				 strlen(o->periods[i]), 60, q, sizeof(q)), err.msg);
			return ret;
		}
	for (i = 0; i < o->nr_period_captures; i++)
		if ((ret = strobe_periods_capture(s->eng, o->period_captures[i], &err)) < 0) {
			ana_note(c, "--period-captures '%s': %s", expr_quote(o->period_captures[i],
				 strlen(o->period_captures[i]), 60, q, sizeof(q)), err.msg);
			return ret;
		}
	ret = 0;	/* _define returned an index */
	s->nr_defs = strobe_periods_nr_defs(s->eng);
	for (i = 0; i < s->nr_defs; i++) {
		s->names[i] = strobe_periods_def_path(s->eng, i);
		s->parent[i] = strobe_periods_def_parent(s->eng, i);
		if (s->parent[i] >= 0)
			s->has_kids[s->parent[i]] = true;
	}
	if (o->aggregate_by) {
		for (i = 0; i < s->nr_defs && strcmp(strobe_periods_def_name(s->eng, i),
						      o->aggregate_by); i++)
			;
		if (i == s->nr_defs) {
			ana_note(c, "periods: --aggregate-by '%s': no such period is defined",
				 o->aggregate_by);
			return -EINVAL;
		}
		s->aggregate = i;
	}
	s->acc_size = 2 * (size_t)(s->nr_defs ? s->nr_defs : 1) * sizeof(struct ana_stats);
	ana_map_free(&s->open_acc);
	ana_map_init(&s->open_acc, s->acc_size);
	for (i = 0; i < s->nr_defs; i++)
		if (s->has_kids[i] && !(s->brk[i].child = calloc((size_t)s->nr_defs,
								 sizeof(struct ana_stats))))
			return -ENOMEM;
	if (!o->period_group_by)
		s->grouping = G_NONE;
	else if (!strcmp(o->period_group_by, "thread") || !strcmp(o->period_group_by, "tid"))
		s->grouping = G_THREAD;
	else if (!strcmp(o->period_group_by, "process") || !strcmp(o->period_group_by, "pid"))
		s->grouping = G_PROCESS;
	else if (!strcmp(o->period_group_by, "container"))
		s->grouping = G_CONTAINER;
	else
		s->grouping = G_CAPTURE;
	if (s->grouping == G_CAPTURE) {	/* must be a capture's key */
		bool found = false;

		for (i = 0; i < o->nr_period_captures && !found; i++) {
			struct strobe_period_captures *pc = NULL;
			int k;

			if (strobe_period_captures_parse(o->period_captures[i], &pc, NULL) < 0)
				continue;
			for (k = 0; k < pc->nr_begin + pc->nr_end && !found; k++)
				found = !strcmp(k < pc->nr_begin ? pc->begin[k].key
						 : pc->end[k - pc->nr_begin].key, o->period_group_by);
			strobe_period_captures_free(pc);
		}
		if (!found) {
			ana_note(c, "periods: --group-by '%s': not thread, process, container or "
				 "the key of a --period-captures", o->period_group_by);
			return -EINVAL;
		}
	}

	if (ana_view(c, STROBE_VIEW_LOG)) {
		if (s->aggregate >= 0) {
			s->t_agg = ana_add_table(a, "periods.aggregated",
						 "Children of each period, aggregated",
						 STROBE_VIEW_LOG);
			if (!s->t_agg)
				return -ENOMEM;
			ret |= tbl_col(s->t_agg, "parent_begin", "Begin", STROBE_COL_TIMESTAMP);
			ret |= tbl_col(s->t_agg, "parent_end", "End", STROBE_COL_TIMESTAMP);
			ret |= tbl_col(s->t_agg, "parent_duration", "Duration(us)",
					     STROBE_COL_DURATION);
			ret |= tbl_col(s->t_agg, "parent", "Name", STROBE_COL_STR);
			ret |= tbl_col(s->t_agg, "parent_id", "Id", STROBE_COL_INT);
			ret |= tbl_col(s->t_agg, "tid", "TID", STROBE_COL_INT);
			ret |= tbl_col(s->t_agg, "container", "Container", STROBE_COL_STR);
			ret |= tbl_col(s->t_agg, "child", "Child", STROBE_COL_STR);
			ret |= ana_stats_cols(s->t_agg);
			ret |= tbl_col(s->t_agg, "parent_captures", "Parent captures",
					     STROBE_COL_STR);
		} else {
			s->t_log = ana_add_table(a, "periods.log", "Period log", STROBE_VIEW_LOG);
			if (!s->t_log)
				return -ENOMEM;
			ret |= period_cols(s->t_log);
		}
	}
	if (ana_view(c, STROBE_VIEW_TOP)) {
		int r = ana_topn_init(&s->top, o->top > 0 ? o->top : 100, sizeof(struct kept),
				      offsetof(struct kept, dur));

		s->t_top = ana_add_table(a, "periods.top", "Longest periods", STROBE_VIEW_TOP);
		if (r < 0 || !s->t_top)
			return -ENOMEM;
		ret |= period_cols(s->t_top);
	}
	if (ana_view(c, STROBE_VIEW_TOP | STROBE_VIEW_STATS)) {
		s->t_stats = ana_add_table(a, "periods.stats", "Period statistics",
					   ana_view(c, STROBE_VIEW_STATS) ? STROBE_VIEW_STATS
									 : STROBE_VIEW_TOP);
		if (!s->t_stats)
			return -ENOMEM;
		ret |= tbl_col(s->t_stats, "name", "Period", STROBE_COL_STR);
		switch (s->grouping) {
		case G_NONE:
			break;
		case G_THREAD:
			ret |= ana_task_cols(s->t_stats);
			break;
		case G_PROCESS:
			ret |= tbl_col(s->t_stats, "pid", "PID", STROBE_COL_INT);
			ret |= tbl_col(s->t_stats, "comm", "Comm", STROBE_COL_STR);
			ret |= tbl_col(s->t_stats, "container", "Container", STROBE_COL_STR);
			break;
		case G_CONTAINER:
			ret |= tbl_col(s->t_stats, "container", "Container", STROBE_COL_STR);
			break;
		case G_CAPTURE:
			ret |= tbl_col(s->t_stats, o->period_group_by, o->period_group_by,
					     STROBE_COL_STR);
			break;
		}
		ret |= ana_stats_cols(s->t_stats);
		ret |= tbl_col(s->t_stats, "children", "Children(us)", STROBE_COL_DURATION);
		ret |= tbl_col(s->t_stats, "self", "Self(us)", STROBE_COL_DURATION);
		s->t_brk = ana_add_table(a, "periods.breakdown",
					 "Where parents' time went: children and the rest",
					 ana_view(c, STROBE_VIEW_STATS) ? STROBE_VIEW_STATS
								       : STROBE_VIEW_TOP);
		if (!s->t_brk)
			return -ENOMEM;
		ret |= tbl_col(s->t_brk, "parent", "Parent", STROBE_COL_STR);
		ret |= tbl_col(s->t_brk, "parents", "Parents", STROBE_COL_INT);
		ret |= tbl_col(s->t_brk, "child", "Child", STROBE_COL_STR);
		ret |= ana_stats_cols(s->t_brk);
		ret |= tbl_col(s->t_brk, "share", "% of parent", STROBE_COL_PERCENT);
	}
	s->t_open = ana_add_table(a, "periods.open", "Periods still open at the end",
				  STROBE_VIEW_TOP);
	if (!s->t_open)
		return -ENOMEM;
	ret |= period_cols(s->t_open);
	if (ana_view(c, STROBE_VIEW_FREQ)) {
		struct strobe_table *t = ana_add_freq_schema(a, "periods.freq",
							     "Period duration distribution");
		if (!t)
			return -ENOMEM;
		t->unit = o->freq_resolution > 0 ? "nsecs" : "usecs";
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct periods *s = a->priv;
	struct ana_core *c = a->core;
	struct strobe_expr_env env;

	if (!s->nr_defs)
		return -ENOENT;
	/* argument names on raw_syscalls records: the file's syscalls:*
	 * formats, else this machine's */
	if (expr_sysargs_for(fmts, &s->sysargs) < 0)
		return -ENOMEM;
	strobe_periods_set_syscall_args(s->eng, s->sysargs);
	strobe_expr_env_model(&env, c->model);
	strobe_periods_set_env(s->eng, &env);
	return 0;
}

static int check(struct ana *a, struct strobe_formats *fmts, struct strobe_error *err)
{
	struct periods *s = a->priv;

	return strobe_periods_check(s->eng, fmts, a->core->live ? STROBE_EXPR_CHECK_LIVE : 0,
				    ana_check_warn, a->core, err);
}

static int kept_cmp(const void *x, const void *y)
{
	const struct kept *a = x, *b = y;

	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

static int group_cmp(const void *x, const void *y)
{
	const struct group *a = *(const struct group *const *)x, *b = *(const struct group *const *)y;

	if (a->def != b->def)
		return a->def - b->def;
	if (a->st.total != b->st.total)
		return a->st.total > b->st.total ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* The tables from what the periods ended so far (finish: all of them,
 * the open ones last as OPEN). */
static int emit(struct ana *a)
{
	struct periods *s = a->priv;
	struct ana_core *c = a->core;
	struct strobe_error err = { 0 };
	struct strobe_periods_stats st;
	size_t i, n;
	int d, k;

	strobe_periods_stats(s->eng, &st);
	if (strobe_periods_error(s->eng, &err) < 0)
		ana_note(c, "periods: %s", err.msg);
	if (st.open_at_end)
		ana_note(c, "periods: %" PRIu64 " periods still open at the end (periods.open; "
			 "not in the statistics)", st.open_at_end);
	if (s->cut)
		ana_note(c, "periods: %" PRIu64 " periods cut short by their parent's end "
			 "(not in the statistics)", s->cut);
	if (s->owner_gone)
		ana_note(c, "periods: %" PRIu64 " periods ended because their thread's TID "
			 "went to a new task (not in the statistics)", s->owner_gone);
	if (s->backwards)
		ana_note(c, "periods: %" PRIu64 " periods end before they begin (time goes "
			 "backwards in the file): not in the statistics", s->backwards);
	if (st.dropped)
		ana_note(c, "periods: %" PRIu64 " periods not recorded (too many open at once, "
			 "or out of memory)", st.dropped);
	if (s->failed)
		ana_note(c, "periods: out of memory: some periods are missing from the results");
	for (d = 0; d < s->nr_defs; d++)
		if (!s->seen[d] && (s->parent[d] < 0 || s->seen[s->parent[d]]))
			ana_note(c, "periods: no period '%s' began: does the trace hold the "
				 "events its begin expression names?", s->names[d]);
	if (s->t_top) {
		/* a copy: the heap goes on after a snapshot */
		struct kept *top = calloc((size_t)s->top.n + 1, sizeof(*top));

		if (!top)
			return -ENOMEM;
		if (s->top.n)
			memcpy(top, s->top.v, (size_t)s->top.n * sizeof(*top));
		if (s->top.n > 1)
			qsort(top, (size_t)s->top.n, sizeof(*top), kept_cmp);
		for (k = 0; k < s->top.n; k++) {
			union strobe_value *v = tbl_row(s->t_top);

			if (!v) {
				free(top);
				return -ENOMEM;
			}
			kept_vals(s, s->t_top, v, &top[k], true);
		}
		free(top);
	}
	/* tables with nothing to say are left out of the results (their
	 * schemas stay, for LAMI metadata) */
	s->t_open->schema_only = !s->nr_open;
	for (d = 0; s->t_brk && d < s->nr_defs && !s->has_kids[d]; d++)
		;
	if (s->t_brk && d == s->nr_defs)
		s->t_brk->schema_only = true;
	if (s->nr_open > 1)
		qsort(s->open, s->nr_open, sizeof(*s->open), kept_cmp);
	for (i = 0; i < s->nr_open; i++) {
		union strobe_value *v = tbl_row(s->t_open);

		if (!v)
			return -ENOMEM;
		kept_vals(s, s->t_open, v, &s->open[i], true);
	}
	if (s->nr_groups > 1)
		qsort(s->groups, s->nr_groups, sizeof(*s->groups), group_cmp);
	for (d = 0; d < s->nr_defs; d++) {
		size_t rows = 0;

		for (i = 0; i < s->nr_groups; i++) {
			struct group *g = s->groups[i];
			union strobe_value *v;
			char title[CAP_STR + 64];

			if (g->def != d || rows >= (c->opts.top > 0 ? (size_t)c->opts.top : SIZE_MAX))
				continue;
			rows++;
			if (s->t_stats) {
				if (!(v = tbl_row(s->t_stats)))
					return -ENOMEM;
				n = 0;
				v[n++].s = tbl_str(s->t_stats, s->names[d]);
				switch (s->grouping) {
				case G_NONE:
					break;
				case G_THREAD:
					v[n++].i = g->tid;
					v[n++].i = g->pid;
					v[n++].s = tbl_str(s->t_stats, g->comm);
					v[n++].s = tbl_str(s->t_stats, g->container);
					break;
				case G_PROCESS:
					v[n++].i = g->pid;
					v[n++].s = tbl_str(s->t_stats, g->comm);
					v[n++].s = tbl_str(s->t_stats, g->container);
					break;
				case G_CONTAINER:
					v[n++].s = tbl_str(s->t_stats, g->container);
					break;
				case G_CAPTURE:
					v[n++].s = tbl_str(s->t_stats, g->key);
					break;
				}
				ana_stats_vals(v + n, &g->st);
				n += 6;
				v[n++].u = g->children_ns;
				v[n++].u = g->st.total > g->children_ns ? g->st.total - g->children_ns
									 : 0;
			}
			if (g->st.hist) {
				switch (s->grouping) {
				case G_NONE:
					snprintf(title, sizeof(title), "%s duration", s->names[d]);
					break;
				case G_THREAD:
					snprintf(title, sizeof(title), "%s duration: tid %d (%s)",
						 s->names[d], g->tid, g->comm);
					break;
				case G_PROCESS:
					snprintf(title, sizeof(title), "%s duration: pid %d (%s)",
						 s->names[d], g->pid, g->comm);
					break;
				case G_CONTAINER:
					snprintf(title, sizeof(title), "%s duration: container %s",
						 s->names[d], g->container);
					break;
				case G_CAPTURE:
					snprintf(title, sizeof(title), "%s duration: %s = %s",
						 s->names[d], c->opts.period_group_by, g->key);
					break;
				}
				if (ana_emit_hist(a, "periods.freq", title, &g->st, NULL, NULL, NULL) < 0)
					return -ENOMEM;
			}
		}
	}
	for (d = 0; s->t_brk && d < s->nr_defs; d++) {
		struct brk *b = &s->brk[d];
		union strobe_value *v;
		int e;

		if (!s->has_kids[d] || !b->parents)
			continue;
		for (e = 0; e < s->nr_defs; e++) {
			if (s->parent[e] != d)
				continue;
			if (!(v = tbl_row(s->t_brk)))
				return -ENOMEM;
			v[0].s = tbl_str(s->t_brk, s->names[d]);
			v[1].i = (int64_t)b->parents;
			v[2].s = tbl_str(s->t_brk, s->names[e]);
			ana_stats_vals(v + 3, &b->child[e]);
			v[9].d = b->parent_ns ? 100.0 * (double)b->child[e].total /
					       (double)b->parent_ns : 0.0;
		}
		if (!(v = tbl_row(s->t_brk)))
			return -ENOMEM;
		v[0].s = tbl_str(s->t_brk, s->names[d]);
		v[1].i = (int64_t)b->parents;
		v[2].s = "(self)";
		ana_stats_vals(v + 3, &b->self);
		v[9].d = b->parent_ns ? 100.0 * (double)b->self.total / (double)b->parent_ns
				      : 0.0;
	}
	return 0;
}

static int finish(struct ana *a)
{
	struct periods *s = a->priv;

	strobe_periods_finish(s->eng);	/* the open ones, as OPEN */
	return emit(a);
}

static int snapshot(struct ana *a, uint64_t ts)
{
	return emit(a);
}

static void reset(struct ana *a, uint64_t ts)
{
	struct periods *s = a->priv;
	size_t i;
	int k;

	for (i = 0; i < s->nr_groups; i++) {
		ana_stats_free(&s->groups[i]->st);
		free(s->groups[i]->key);
		free(s->groups[i]->container);
		free(s->groups[i]);
	}
	s->nr_groups = 0;
	memset(s->buckets, 0, sizeof(s->buckets));
	for (k = 0; k < s->nr_defs; k++) {
		struct ana_stats *child = s->brk[k].child;

		memset(&s->brk[k], 0, sizeof(s->brk[k]));
		s->brk[k].child = child;
		if (child)
			memset(child, 0, (size_t)s->nr_defs * sizeof(*child));
	}
	for (k = 0; s->top.v && k < s->top.n; k++)
		kept_free((struct kept *)s->top.v + k);
	s->top.n = 0;
	s->lost = s->cut = s->owner_gone = s->backwards = 0;
}

static void fini(struct ana *a)
{
	struct periods *s = a->priv;
	struct ana_stats *st;
	size_t i, pos = 0;
	int k;

	strobe_periods_free(s->eng);	/* open periods dropped: no callbacks */
	strobe_syscall_args_free(s->sysargs);
	while ((st = ana_map_next(&s->open_acc, &pos, NULL)))
		for (k = 0; k < 2 * s->nr_defs; k++)
			ana_stats_free(&st[k]);
	ana_map_free(&s->open_acc);
	for (i = 0; i < s->nr_groups; i++) {
		ana_stats_free(&s->groups[i]->st);
		free(s->groups[i]->key);
		free(s->groups[i]->container);
		free(s->groups[i]);
	}
	free(s->groups);
	for (k = 0; s->top.v && k < s->top.n; k++)
		kept_free((struct kept *)s->top.v + k);
	ana_topn_free(&s->top);
	for (i = 0; i < s->nr_open; i++)
		kept_free(&s->open[i]);
	free(s->open);
	for (k = 0; k < MAX_DEFS; k++)
		free(s->brk[k].child);
}

const struct ana_ops ana_periods_ops = {
	.name = "periods",
	.summary = "user-defined periods (--period NAME : BEGIN : END) with captures, "
		   "children, statistics and log",
	.needs = "the events its --period expressions name",
	.preset = "syscalls",
	.priv_size = sizeof(struct periods),
	.init = init,
	.subscribe = subscribe,
	.resolve = resolve,
	.check = check,
	.lost = lost,
	.finish = finish,
	.snapshot = snapshot,
	.reset = reset,
	.free = fini,
};
