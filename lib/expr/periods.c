/*
 * periods.c - the periods engine: lttng-analyses' period definitions
 * (begin and end expressions, parents, captures) run over a stream of
 * events, emitting each period when it ends.
 *
 * Semantics follow lttnganalyses/core/period.py (PeriodEngine): per event,
 * ends first (children before parents; a period that ends cuts its open
 * children), then begins (parents before children, so a child can begin
 * on its parent's begin event; a child begins once per open period of its
 * parent).  strobe adds what a long trace needs: periods whose owner's TID
 * is given to a new task end as OWNER_GONE (else a reused PID would end
 * another process's request), periods during which events were lost are
 * marked, and periods still open at the end are reported apart.
 *
 * How it stays cheap: per event type (cached in a small hash) a byte per
 * definition says whether its begin or its end expression can match at all
 * (strobe_expr_may_match), so most events touch no definition.  An end
 * expression with a top-level conjunct `$evt.X == $begin.$evt.Y` indexes
 * the definition's open periods by their Y value: an end event looks only
 * at the periods whose Y equals its X (the request example's
 * `$evt.pid == $begin.$evt.pid`), plus those whose Y was not an integer.
 * Lost events cost nothing per open period: the engine counts events that
 * report losses, and a period is lost when that count moved while it was
 * open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format/format-int.h"
#include "expr/expr-int.h"

#define MAX_DEFS 64
#define TI_BUCKETS 256
#define F_BEGIN 1
#define F_END 2

struct cap {
	char *key;
	struct strobe_expr *ref;
};

struct operiod;

struct def {
	struct strobe_period_def *d;
	char *path;
	char *text;			/* the --period argument (messages) */
	int parent;			/* definition index, -1 for roots */
	int depth;
	struct cap *bcaps, *ecaps;
	int nb, ne;
	struct operiod *open;		/* doubly linked, newest first */
	size_t nr_open;
	/* index of open periods by the value of key_begin (see the head) */
	struct strobe_expr *key_evt, *key_begin;
	struct operiod **buckets;	/* keyed periods, chained by hnext */
	size_t nr_buckets, nr_keyed;
	struct operiod *unkeyed;	/* chained by hnext */
};

struct operiod {
	struct strobe_period pub;
	int def;
	struct operiod *parent;
	struct operiod *prev, *next;	/* the definition's open list */
	struct operiod *hnext;		/* index bucket or unkeyed list */
	struct operiod *kids;		/* open children, linked by sib_* */
	struct operiod *sib_prev, *sib_next;
	struct operiod *cnext;		/* "to close" list of one pass */
	bool keyed;
	uint64_t key;			/* the key's 64 bits; key_big: an
					 * unsigned value above INT64_MAX */
	bool key_big;
	uint64_t lost_mark;
	struct strobe_event ev;		/* the begin event, payload copied */
	struct strobe_period_value *bcap;
	int nbcap;
	uint8_t payload[];		/* ev.size bytes, then the owner's
					 * procname and container strings */
};

struct tinfo {
	const struct strobe_format *fmt;
	int type;
	struct tinfo *next;
	bool any;			/* some definition or the fork rule */
	struct strobe_field child;	/* fork: the new task's field */
	uint8_t flags[MAX_DEFS];	/* F_BEGIN, F_END per definition */
};

struct strobe_periods {
	strobe_period_fn fn;
	void *arg;
	struct def defs[MAX_DEFS];
	int nr_defs;
	bool started;
	struct strobe_expr_env env;
	bool have_env;
	const struct strobe_syscall_args *sysargs;
	size_t max_open, nr_open;
	uint64_t next_id, lost_counter, last_ts;
	int last_cpu;
	struct strobe_periods_stats st;
	struct tinfo *ti[TI_BUCKETS];
	struct tinfo *last_ti;
};

/* ---- set-up ------------------------------------------------------------------ */

int strobe_periods_new(strobe_period_fn fn, void *arg, struct strobe_periods **out)
{
	struct strobe_periods *p = calloc(1, sizeof(*p));

	*out = p;
	if (!p)
		return -ENOMEM;
	p->fn = fn;
	p->arg = arg;
	p->max_open = (size_t)1 << 20;
	return 0;
}

static void ti_clear(struct strobe_periods *p);

static void free_values(struct strobe_period_value *v, int n)
{
	int i;

	for (i = 0; v && i < n; i++)
		if (v[i].v.type == STROBE_EXPR_VAL_STR)
			free((char *)v[i].v.s);
	free(v);
}

static void free_operiod(struct operiod *op)
{
	free_values(op->bcap, op->nbcap);
	free(op);
}

static void free_caps(struct cap *c, int n)
{
	int i;

	for (i = 0; c && i < n; i++) {
		free(c[i].key);
		strobe_expr_free(c[i].ref);
	}
	free(c);
}

void strobe_periods_free(struct strobe_periods *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_defs; i++) {
		struct def *d = &p->defs[i];
		struct operiod *op, *nx;

		for (op = d->open; op; op = nx) {
			nx = op->next;
			free_operiod(op);
		}
		strobe_period_def_free(d->d);
		free(d->path);
		free(d->text);
		free_caps(d->bcaps, d->nb);
		free_caps(d->ecaps, d->ne);
		strobe_expr_free(d->key_evt);
		strobe_expr_free(d->key_begin);
		free(d->buckets);
	}
	ti_clear(p);
	free(p);
}

/* Forget the per-type decisions (definitions or tables changed). */
static void ti_clear(struct strobe_periods *p)
{
	int i;

	for (i = 0; i < TI_BUCKETS; i++) {
		struct tinfo *t, *nx;

		for (t = p->ti[i]; t; t = nx) {
			nx = t->next;
			free(t);
		}
		p->ti[i] = NULL;
	}
	p->last_ti = NULL;
}

static int find_def(const struct strobe_periods *p, const char *name)
{
	int i;

	for (i = 0; name && i < p->nr_defs; i++)
		if (p->defs[i].d->name && !strcmp(p->defs[i].d->name, name))
			return i;
	return -1;
}

static void apply_sysargs(struct def *d, const struct strobe_syscall_args *t)
{
	int i;

	strobe_expr_set_syscall_args(d->d->begin, t);
	strobe_expr_set_syscall_args(d->d->end, t);
	strobe_expr_set_syscall_args(d->key_evt, t);
	strobe_expr_set_syscall_args(d->key_begin, t);
	for (i = 0; i < d->nb; i++)
		strobe_expr_set_syscall_args(d->bcaps[i].ref, t);
	for (i = 0; i < d->ne; i++)
		strobe_expr_set_syscall_args(d->ecaps[i].ref, t);
}

/* A top-level conjunct `$evt.X == $begin.$evt.Y` of e: its two sides as
 * reference expressions, to index open periods by Y. */
static int find_key(struct strobe_expr *e, struct strobe_expr **kevt, struct strobe_expr **kbeg)
{
	int i = e->root;
	const struct xnode *n = &e->nodes[i];

	*kevt = *kbeg = NULL;
	if (n->kind == X_AND)
		i = n->child;
	for (; i >= 0; i = e->nodes[i].next) {
		const struct xnode *c = &e->nodes[i];
		const struct xref *re, *rb;
		char a[256], b[256];

		if (c->kind != X_CMP || c->op != OP_EQ || !c->lhs.is_ref || !c->rhs.is_ref ||
		    c->lhs.ref.is_name || c->rhs.ref.is_name)
			goto next;
		if (c->lhs.ref.scope == SC_EVT && c->rhs.ref.scope == SC_BEGIN) {
			re = &c->lhs.ref;
			rb = &c->rhs.ref;
		} else if (c->rhs.ref.scope == SC_EVT && c->lhs.ref.scope == SC_BEGIN) {
			re = &c->rhs.ref;
			rb = &c->lhs.ref;
		} else {
			goto next;
		}
		if (expr_print_ref(re, a, sizeof(a)) >= sizeof(a) ||
		    expr_print_ref(rb, b, sizeof(b)) >= sizeof(b))
			goto next;
		if (strobe_expr_parse_ref(a, 0, kevt, NULL) < 0 ||
		    strobe_expr_parse_ref(b, 0, kbeg, NULL) < 0) {
			strobe_expr_free(*kevt);
			*kevt = NULL;
			return -ENOMEM;
		}
		return 0;
next:
		if (n->kind != X_AND)
			break;
	}
	return 0;
}

int strobe_periods_define(struct strobe_periods *p, const char *text, struct strobe_error *err)
{
	struct strobe_period_def *pd = NULL;
	struct def *d;
	int rc, parent = -1;
	size_t n;

	if (p->started)
		return strobe_err(err, -EBUSY, "periods cannot be defined once events were fed");
	if (p->nr_defs == MAX_DEFS)
		return strobe_err(err, -EINVAL, "more than %d period definitions", MAX_DEFS);
	if ((rc = strobe_period_def_parse(text, &pd, err)) < 0)
		return rc;
	if (pd->name && find_def(p, pd->name) >= 0) {
		rc = strobe_err(err, -EINVAL, "period '%s' is defined twice", pd->name);
		goto bad;
	}
	if (pd->parent && (parent = find_def(p, pd->parent)) < 0) {
		rc = strobe_err(err, -EINVAL, "period '%s': no period '%s' defined before it "
				"to be its parent", pd->name, pd->parent);
		goto bad;
	}
	d = &p->defs[p->nr_defs];
	memset(d, 0, sizeof(*d));
	d->d = pd;
	d->parent = parent;
	d->depth = parent < 0 ? 0 : p->defs[parent].depth + 1;
	n = (parent < 0 ? 0 : strlen(p->defs[parent].path) + 1) +
	    strlen(pd->name ? pd->name : "") + 1;
	d->path = malloc(n);
	d->text = strdup(text);
	if (!d->path || !d->text || find_key(pd->end, &d->key_evt, &d->key_begin) < 0) {
		free(d->path);
		free(d->text);
		rc = strobe_err(err, -ENOMEM, "out of memory");
		goto bad;
	}
	snprintf(d->path, n, "%s%s%s", parent < 0 ? "" : p->defs[parent].path,
		 parent < 0 ? "" : "/", pd->name ? pd->name : "");
	apply_sysargs(d, p->sysargs);
	ti_clear(p);
	return p->nr_defs++;
bad:
	strobe_period_def_free(pd);
	return rc;
}

static int add_caps(struct cap **dst, int *n, struct strobe_period_capture *src, int nsrc,
		    const char *name, struct strobe_error *err)
{
	struct cap *v;
	int i, k;

	for (i = 0; i < nsrc; i++)
		for (k = 0; k < *n; k++)
			if (!strcmp((*dst)[k].key, src[i].key))
				return strobe_err(err, -EINVAL, "period '%s': capture '%s' given "
						  "twice", name, src[i].key);
	v = realloc(*dst, (size_t)(*n + nsrc + 1) * sizeof(*v));
	if (!v)
		return strobe_err(err, -ENOMEM, "out of memory");
	*dst = v;
	for (i = 0; i < nsrc; i++) {
		v[*n].key = src[i].key;
		v[*n].ref = src[i].ref;
		src[i].key = NULL;
		src[i].ref = NULL;
		(*n)++;
	}
	return 0;
}

int strobe_periods_capture(struct strobe_periods *p, const char *text, struct strobe_error *err)
{
	struct strobe_period_captures *c = NULL;
	struct def *d;
	int rc, i;

	if (p->started)
		return strobe_err(err, -EBUSY, "captures cannot be added once events were fed");
	if ((rc = strobe_period_captures_parse(text, &c, err)) < 0)
		return rc;
	if ((i = find_def(p, c->name)) < 0) {
		rc = strobe_err(err, -EINVAL, "captures for '%s': no such period is defined",
				c->name);
		goto out;
	}
	d = &p->defs[i];
	for (i = 0; i < c->nr_begin + c->nr_end; i++) {
		struct strobe_period_capture *k = i < c->nr_begin ? &c->begin[i] :
					   &c->end[i - c->nr_begin];

		if (k->ref->nodes[k->ref->root].lhs.ref.scope == SC_PARENT && d->parent < 0) {
			rc = strobe_err(err, -EINVAL, "captures for '%s': %s needs a period with "
					"a parent", c->name, k->key);
			goto out;
		}
	}
	if ((rc = add_caps(&d->bcaps, &d->nb, c->begin, c->nr_begin, c->name, err)) < 0 ||
	    (rc = add_caps(&d->ecaps, &d->ne, c->end, c->nr_end, c->name, err)) < 0)
		goto out;
	apply_sysargs(d, p->sysargs);
out:
	strobe_period_captures_free(c);
	return rc;
}

void strobe_periods_set_env(struct strobe_periods *p, const struct strobe_expr_env *env)
{
	p->have_env = env != NULL;
	if (env)
		p->env = *env;
}

void strobe_periods_set_syscall_args(struct strobe_periods *p,
				     const struct strobe_syscall_args *t)
{
	int i;

	p->sysargs = t;
	for (i = 0; i < p->nr_defs; i++)
		apply_sysargs(&p->defs[i], t);
	ti_clear(p);	/* may_match answers change */
}

void strobe_periods_set_max_open(struct strobe_periods *p, size_t max_open)
{
	p->max_open = max_open;
}

int strobe_periods_nr_defs(const struct strobe_periods *p)
{
	return p->nr_defs;
}

const char *strobe_periods_def_name(const struct strobe_periods *p, int i)
{
	if (i < 0 || i >= p->nr_defs)
		return NULL;
	return p->defs[i].d->name ? p->defs[i].d->name : "";
}

const char *strobe_periods_def_path(const struct strobe_periods *p, int i)
{
	return i < 0 || i >= p->nr_defs ? NULL : p->defs[i].path;
}

int strobe_periods_def_parent(const struct strobe_periods *p, int i)
{
	return i < 0 || i >= p->nr_defs ? -1 : p->defs[i].parent;
}

void strobe_periods_stats(const struct strobe_periods *p, struct strobe_periods_stats *st)
{
	*st = p->st;
	st->open_now = p->nr_open;
}

int strobe_periods_error(const struct strobe_periods *p, struct strobe_error *err)
{
	int i, k, rc;

	for (i = 0; i < p->nr_defs; i++) {
		const struct def *d = &p->defs[i];
		const struct strobe_expr *all[4] = { d->d->begin, d->d->end, d->key_evt,
						     d->key_begin };

		for (k = 0; k < 4 + d->nb + d->ne; k++) {
			const struct strobe_expr *e = k < 4 ? all[k] : k < 4 + d->nb ?
				d->bcaps[k - 4].ref : d->ecaps[k - 4 - d->nb].ref;

			if ((rc = strobe_expr_error(e, err)) < 0) {
				strobe_err_prefix(err, "period '%s'", d->path);
				return rc;
			}
		}
	}
	return 0;
}

/* One expression of definition d for strobe_periods_check: part "begin",
 * "end" or "captures", with the scopes its events can be. */
static int check_one(const struct strobe_periods *p, const struct def *d, const char *part,
		     struct strobe_expr *e, struct strobe_expr *evt, struct strobe_expr *begin,
		     struct strobe_formats *fmts, unsigned flags, strobe_expr_warn_fn warn,
		     void *warn_arg, struct strobe_error *err)
{
	struct strobe_expr_check_opts o = { .size = sizeof(o), .flags = flags, .warn = warn,
					    .warn_arg = warn_arg, .evt = evt, .begin = begin };
	char what[240], q[200];

	if (d->parent >= 0)
		o.parent_begin = p->defs[d->parent].d->begin;
	if (d->d->name && !strcmp(part, "captures"))
		snprintf(what, sizeof(what), "--period-captures %s", d->d->name);
	else if (d->d->name)
		snprintf(what, sizeof(what), "--period %s %s", d->d->name, part);
	else
		snprintf(what, sizeof(what), "--period '%s' %s",
			 expr_quote(d->text, strlen(d->text), 60, q, sizeof(q)), part);
	o.what = what;
	return strobe_expr_check(e, fmts, &o, err);
}

int strobe_periods_check(const struct strobe_periods *p, struct strobe_formats *fmts,
			 unsigned flags, strobe_expr_warn_fn warn, void *warn_arg,
			 struct strobe_error *err)
{
	int i, k, r;

	for (i = 0; i < p->nr_defs; i++) {
		const struct def *d = &p->defs[i];
		struct strobe_expr *b = d->d->begin, *e = d->d->end;

		if ((r = check_one(p, d, "begin", b, NULL, NULL, fmts, flags, warn, warn_arg,
				   err)) < 0)
			return r;
		/* an end compiled again from the begin text says nothing new */
		if (!e->again && (r = check_one(p, d, "end", e, NULL, b, fmts, flags, warn,
						warn_arg, err)) < 0)
			return r;
		for (k = 0; k < d->nb + d->ne; k++) {
			bool at_end = k >= d->nb;
			struct strobe_expr *ref = at_end ? d->ecaps[k - d->nb].ref : d->bcaps[k].ref;

			if ((r = check_one(p, d, "captures", ref, at_end ? e : b, b, fmts, flags,
					   warn, warn_arg, err)) < 0)
				return r;
		}
	}
	return 0;
}

/* ---- per-type decisions ---------------------------------------------------------- */

static struct tinfo *tinfo(struct strobe_periods *p, const struct strobe_format *fmt, int type)
{
	struct tinfo *t = p->last_ti;
	unsigned h;
	int i;

	if (t && t->type == type && t->fmt == fmt)
		return t;
	h = (unsigned)type & (TI_BUCKETS - 1);
	for (t = p->ti[h]; t; t = t->next)
		if (t->type == type && t->fmt == fmt)
			goto found;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->fmt = fmt;
	t->type = type;
	for (i = 0; i < p->nr_defs; i++) {
		struct def *d = &p->defs[i];

		if (strobe_expr_may_match(d->d->begin, fmt))
			t->flags[i] |= F_BEGIN;
		if (strobe_expr_may_match(d->d->end, fmt))
			t->flags[i] |= F_END;
		t->any |= t->flags[i] != 0;
	}
	/* a new task: its TID may be an open period's owner's (PID reuse) */
	if (fmt && strobe_format_system(fmt) && strobe_format_name(fmt) &&
	    ((!strcmp(strobe_format_system(fmt), "sched") && !strcmp(strobe_format_name(fmt), "sched_process_fork") &&
	      !strobe_field_resolve(fmt, "child_pid", &t->child)) ||
	     (!strcmp(strobe_format_system(fmt), "task") && !strcmp(strobe_format_name(fmt), "task_newtask") &&
	      !strobe_field_resolve(fmt, "pid", &t->child))))
		t->any = true;
	t->next = p->ti[h];
	p->ti[h] = t;
found:
	p->last_ti = t;
	return t;
}

bool strobe_periods_may_match(struct strobe_periods *p, const struct strobe_format *fmt)
{
	struct tinfo *t = tinfo(p, fmt, fmt ? strobe_format_id(fmt) : -1);

	return !t || t->any;
}

/* ---- opening and closing -------------------------------------------------------- */

static struct strobe_expr_scope scope_of(struct operiod *op)
{
	struct strobe_expr_scope s = { NULL, NULL };

	if (op) {
		s.ev = &op->ev;
		s.task = &op->pub.owner;
	}
	return s;
}

static const struct strobe_expr_env *env(const struct strobe_periods *p)
{
	return p->have_env ? &p->env : NULL;
}

/* Captured values, strings copied.  NULL with *n 0 when there are none. */
static struct strobe_period_value *capture(struct strobe_periods *p, const struct cap *caps,
					   int ncaps, const struct strobe_expr_match *m)
{
	struct strobe_period_value *v;
	char buf[96];
	int i;

	if (!ncaps)
		return NULL;
	v = calloc((size_t)ncaps, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < ncaps; i++) {
		v[i].key = caps[i].key;
		strobe_expr_value(caps[i].ref, env(p), m, &v[i].v, buf, sizeof(buf));
		if (v[i].v.type == STROBE_EXPR_VAL_STR) {
			char *s = malloc(v[i].v.len + 1);

			if (!s) {
				v[i].v.type = STROBE_EXPR_VAL_NONE;
				continue;
			}
			memcpy(s, v[i].v.s, v[i].v.len);
			s[v[i].v.len] = '\0';
			v[i].v.s = s;
		}
	}
	return v;
}

static uint64_t key_hash(uint64_t k, bool big)
{
	k ^= big ? 0x9e3779b97f4a7c15ull : 0;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* The integer key of value v; false when v is not an integer. */
static bool key_of(const struct strobe_expr_value *v, uint64_t *k, bool *big)
{
	if (v->type != STROBE_EXPR_VAL_INT)
		return false;
	*k = v->u;
	*big = v->is_unsigned && v->u > (uint64_t)INT64_MAX;
	return true;
}

static int index_grow(struct def *d)
{
	size_t nb = d->nr_buckets ? d->nr_buckets * 2 : 64, i;
	struct operiod **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < d->nr_buckets; i++) {
		struct operiod *op, *nx;

		for (op = d->buckets[i]; op; op = nx) {
			size_t h = key_hash(op->key, op->key_big) & (nb - 1);

			nx = op->hnext;
			op->hnext = b[h];
			b[h] = op;
		}
	}
	free(d->buckets);
	d->buckets = b;
	d->nr_buckets = nb;
	return 0;
}

static void index_add(struct def *d, struct operiod *op)
{
	if (op->keyed && d->nr_keyed >= d->nr_buckets * 2 && index_grow(d) < 0)
		op->keyed = false;	/* no memory to grow: scanned every time */
	if (op->keyed) {
		size_t h = key_hash(op->key, op->key_big) & (d->nr_buckets - 1);

		op->hnext = d->buckets[h];
		d->buckets[h] = op;
		d->nr_keyed++;
	} else {
		op->hnext = d->unkeyed;
		d->unkeyed = op;
	}
}

static void index_del(struct def *d, struct operiod *op)
{
	struct operiod **pp = op->keyed ?
		&d->buckets[key_hash(op->key, op->key_big) & (d->nr_buckets - 1)] : &d->unkeyed;

	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == op) {
			*pp = op->hnext;
			break;
		}
	if (op->keyed)
		d->nr_keyed--;
}

static void open_period(struct strobe_periods *p, int di, struct operiod *parent,
			const struct strobe_event *ev)
{
	struct def *d = &p->defs[di];
	struct strobe_expr_match m;
	struct strobe_expr_task t = { .tid = ev->pid, .pid = -1, .ppid = -1, .vtid = -1,
				      .vpid = -1 };
	size_t lp, lc, li;
	struct operiod *op;
	char *str;

	if (p->nr_open >= p->max_open) {
		p->st.dropped++;
		return;
	}
	if (p->have_env && p->env.task && p->env.task(p->env.arg, ev->pid, &t) < 0) {
		t.pid = t.ppid = t.vtid = t.vpid = -1;
		t.procname = t.container = t.container_id = NULL;
	}
	t.tid = ev->pid;
	/* one allocation: the period, the begin payload, the owner's strings */
	lp = t.procname ? strlen(t.procname) + 1 : 0;
	lc = t.container ? strlen(t.container) + 1 : 0;
	li = t.container_id ? strlen(t.container_id) + 1 : 0;
	op = calloc(1, sizeof(*op) + ev->size + lp + lc + li);
	if (!op) {
		p->st.dropped++;
		return;
	}
	memcpy(op->payload, ev->data, ev->size);
	op->ev = *ev;
	op->ev.data = op->payload;
	op->def = di;
	op->parent = parent;
	str = (char *)op->payload + ev->size;
	if (t.procname) {
		memcpy(str, t.procname, lp);
		t.procname = str;
		str += lp;
	}
	if (t.container) {
		memcpy(str, t.container, lc);
		t.container = str;
		str += lc;
	}
	if (t.container_id) {
		memcpy(str, t.container_id, li);
		t.container_id = str;
	}
	op->pub.owner = t;
	m.evt = scope_of(op);
	m.begin = m.evt;
	m.parent_begin = scope_of(parent);
	op->bcap = capture(p, d->bcaps, d->nb, &m);
	op->nbcap = op->bcap ? d->nb : 0;
	if (d->key_begin) {
		struct strobe_expr_value v;
		char buf[96];

		strobe_expr_value(d->key_begin, env(p), &m, &v, buf, sizeof(buf));
		op->keyed = key_of(&v, &op->key, &op->key_big);
	}
	index_add(d, op);
	op->pub.id = ++p->next_id;
	op->pub.name = d->d->name ? d->d->name : "";
	op->pub.path = d->path;
	op->pub.def = di;
	op->pub.depth = d->depth;
	op->pub.parent = parent ? &parent->pub : NULL;
	op->pub.begin_ts = ev->ts;
	op->pub.begin_cpu = ev->cpu;
	op->pub.begin_captures = op->bcap;
	op->pub.nr_begin_captures = op->nbcap;
	op->lost_mark = p->lost_counter;
	op->next = d->open;
	if (d->open)
		d->open->prev = op;
	d->open = op;
	d->nr_open++;
	if (parent) {
		op->sib_next = parent->kids;
		if (parent->kids)
			parent->kids->sib_prev = op;
		parent->kids = op;
	}
	p->nr_open++;
	p->st.begun++;
}

/*
 * End op with status at (ts, cpu); m is the match that ended it (CLOSED:
 * end captures are taken from it), else NULL.  Its open children end
 * first: OPEN with an OPEN parent, else CUT.
 */
static void close_period(struct strobe_periods *p, struct operiod *op,
			 enum strobe_period_status status, uint64_t ts, int cpu,
			 const struct strobe_expr_match *m)
{
	struct def *d = &p->defs[op->def];
	struct strobe_period_value *ecap = NULL;

	while (op->kids)
		close_period(p, op->kids, status == STROBE_PERIOD_OPEN ? STROBE_PERIOD_OPEN :
			     STROBE_PERIOD_CUT, ts, cpu, NULL);
	op->pub.status = status;
	op->pub.end_ts = ts;
	op->pub.end_cpu = cpu;
	op->pub.lost = op->lost_mark != p->lost_counter;
	op->pub.parent = op->parent ? &op->parent->pub : NULL;
	if (status == STROBE_PERIOD_CLOSED && m) {
		ecap = capture(p, d->ecaps, d->ne, m);
		op->pub.end_captures = ecap;
		op->pub.nr_end_captures = ecap ? d->ne : 0;
	}
	switch (status) {
	case STROBE_PERIOD_CLOSED:
		p->st.closed++;
		if (op->pub.lost)
			p->st.lost++;
		if (op->parent) {
			/* time going backwards (a damaged file) adds nothing */
			op->parent->pub.children_ns += ts > op->pub.begin_ts ? ts - op->pub.begin_ts : 0;
			op->parent->pub.nr_children++;
		}
		break;
	case STROBE_PERIOD_OPEN:
		p->st.open_at_end++;
		break;
	case STROBE_PERIOD_CUT:
		p->st.cut++;
		break;
	case STROBE_PERIOD_OWNER_GONE:
		p->st.owner_gone++;
		break;
	}
	if (p->fn)
		p->fn(p->arg, &op->pub);
	free_values(ecap, d->ne);
	/* unlink */
	index_del(d, op);
	if (op->prev)
		op->prev->next = op->next;
	else
		d->open = op->next;
	if (op->next)
		op->next->prev = op->prev;
	d->nr_open--;
	if (op->parent) {
		if (op->sib_prev)
			op->sib_prev->sib_next = op->sib_next;
		else
			op->parent->kids = op->sib_next;
		if (op->sib_next)
			op->sib_next->sib_prev = op->sib_prev;
	}
	p->nr_open--;
	free_operiod(op);
}

/* ---- per event ---------------------------------------------------------------- */

static void end_candidates(struct strobe_periods *p, struct def *d, struct operiod *list,
			   bool by_hnext, const struct strobe_event *ev, bool keyed,
			   uint64_t key, bool big, struct operiod **closing)
{
	struct operiod *op;

	for (op = list; op; op = by_hnext ? op->hnext : op->next) {
		struct strobe_expr_match m;

		if (keyed && (op->key != key || op->key_big != big))
			continue;
		m.evt.ev = ev;
		m.evt.task = NULL;
		m.begin = scope_of(op);
		m.parent_begin = scope_of(op->parent);
		if (strobe_expr_eval(d->d->end, env(p), &m)) {
			op->cnext = *closing;
			*closing = op;
		}
	}
}

static void end_def(struct strobe_periods *p, int di, const struct strobe_event *ev)
{
	struct def *d = &p->defs[di];
	struct operiod *closing = NULL, *op, *nx;

	if (!d->nr_open)
		return;
	if (d->key_evt) {
		struct strobe_expr_match m = { { ev, NULL }, { NULL, NULL }, { NULL, NULL } };
		struct strobe_expr_value v;
		char buf[96];
		uint64_t k;
		bool big;

		strobe_expr_value(d->key_evt, env(p), &m, &v, buf, sizeof(buf));
		if (key_of(&v, &k, &big) && d->nr_buckets)
			end_candidates(p, d, d->buckets[key_hash(k, big) & (d->nr_buckets - 1)],
				       true, ev, true, k, big, &closing);
		end_candidates(p, d, d->unkeyed, true, ev, false, 0, false, &closing);
	} else {
		end_candidates(p, d, d->open, false, ev, false, 0, false, &closing);
	}
	/* oldest first, as they began */
	for (op = closing, closing = NULL; op; op = nx) {
		nx = op->cnext;
		op->cnext = closing;
		closing = op;
	}
	for (op = closing; op; op = nx) {
		struct strobe_expr_match m;

		nx = op->cnext;
		m.evt.ev = ev;
		m.evt.task = NULL;
		m.begin = scope_of(op);
		m.parent_begin = scope_of(op->parent);
		close_period(p, op, STROBE_PERIOD_CLOSED, ev->ts, ev->cpu, &m);
	}
}

static void begin_def(struct strobe_periods *p, int di, const struct strobe_event *ev)
{
	struct def *d = &p->defs[di];
	struct strobe_expr_match m = { { ev, NULL }, { ev, NULL }, { NULL, NULL } };
	struct operiod *par;

	if (d->parent < 0) {
		if (strobe_expr_eval(d->d->begin, env(p), &m))
			open_period(p, di, NULL, ev);
		return;
	}
	for (par = p->defs[d->parent].open; par; par = par->next) {
		m.parent_begin = scope_of(par);
		if (strobe_expr_eval(d->d->begin, env(p), &m))
			open_period(p, di, par, ev);
	}
}

/* A new task with TID tid: periods owned by a former tid (or pid) tid end. */
static void reused(struct strobe_periods *p, int tid, const struct strobe_event *ev)
{
	int di;

	for (di = p->nr_defs - 1; di >= 0; di--) {
		struct operiod *op, *nx, *gone = NULL;

		for (op = p->defs[di].open; op; op = op->next)
			if (op->pub.owner.tid == tid || op->pub.owner.pid == tid) {
				op->cnext = gone;
				gone = op;
			}
		for (op = gone; op; op = nx) {
			nx = op->cnext;
			close_period(p, op, STROBE_PERIOD_OWNER_GONE, ev->ts, ev->cpu, NULL);
		}
	}
}

int strobe_periods_feed(struct strobe_periods *p, const struct strobe_event *ev)
{
	struct tinfo *t;
	int di;

	p->started = true;
	p->last_ts = ev->ts;
	p->last_cpu = ev->cpu;
	if (ev->missed)
		p->lost_counter++;
	t = tinfo(p, ev->format, ev->type);
	if (!t) {
		p->st.dropped++;
		return -ENOMEM;
	}
	if (!t->any)
		return 0;
	if (t->child.valid && p->nr_open &&
	    (uint32_t)t->child.offset + t->child.size <= ev->size)
		reused(p, (int)strobe_field_int(ev, &t->child), ev);
	for (di = p->nr_defs - 1; di >= 0; di--)
		if (t->flags[di] & F_END)
			end_def(p, di, ev);
	for (di = 0; di < p->nr_defs; di++)
		if (t->flags[di] & F_BEGIN)
			begin_def(p, di, ev);
	return 0;
}

void strobe_periods_note_lost(struct strobe_periods *p)
{
	p->lost_counter++;
}

void strobe_periods_finish(struct strobe_periods *p)
{
	int di;

	for (di = 0; di < p->nr_defs; di++) {
		struct def *d = &p->defs[di];

		if (d->parent >= 0)
			continue;	/* ended with their root */
		struct operiod *op, *prev;

		for (op = d->open; op && op->next; op = op->next)
			;
		for (; op; op = prev) {		/* oldest first */
			prev = op->prev;
			close_period(p, op, STROBE_PERIOD_OPEN, p->last_ts, p->last_cpu, NULL);
		}
	}
}
