/*
 * check.c - an expression checked against what a trace holds
 * (strobe_expr_check), once, before the first event: a field that none of
 * the events it can match has, a value of the wrong kind, an event name
 * the trace does not hold.  Evaluation treats all of these as "false"
 * (lttng's rule), which is right for one event and wrong for a whole
 * run: a typo would print an empty table.
 *
 * How it works: every format of the catalogue is resolved once against
 * the expression's slots with the evaluator's own resolution
 * (expr_tc_build, the same code that serves the events later), so the
 * check cannot disagree with evaluation about what a name means (LTTng
 * aliases, syscall arguments on raw_syscalls records, context and header
 * names).  Per slot it keeps which kinds of value (number, string) the
 * reference has on the types its scope can be: those the $evt.$name
 * comparisons of the scope's expression allow (expr_name_verdict), or
 * every type when none is allowed (then the name warning says why).
 * Close names are looked for only when there is an error to report.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>

#include "format/format-int.h"
#include "expr/expr-int.h"

#define K_NUM 1
#define K_STR 2
#define K_NEEDARGS 4

struct slotinfo {
	uint8_t cand;		/* kinds on the types its scope can be */
	bool name_hit;		/* a name comparison: some type's name fits */
};

struct chk {
	struct strobe_expr *e;
	struct strobe_formats *fmts;
	const struct strobe_expr_check_opts *o;
	struct slotinfo *si;
	bool any_cand[SC_NR];	/* some type can be the scope's event */
	bool nomem;
};

static int kind_class(int k)
{
	switch (k) {
	case R_INT: case R_TID: case R_PID: case R_PPID: case R_VTID: case R_VPID: case R_CPU:
	case R_TS: case R_TYPEID: case R_SYSARG:
		return K_NUM;
	case R_STR: case R_PROCNAME: case R_CONTAINER: case R_CONTAINER_ID: case R_NAME:
		return K_STR;
	case R_NEEDARGS:
		return K_NEEDARGS;
	default:
		return 0;
	}
}

/* Can an event of type fmt be the event of scope expression x? */
static bool may_be(struct chk *c, struct strobe_expr *x, const struct strobe_format *fmt)
{
	struct tcache *t;
	int v;

	if (!x || x->is_ref || !x->nr_nodes)
		return true;
	t = expr_tc_build(x, fmt, strobe_format_id(fmt));
	if (!t) {
		c->nomem = true;
		return true;
	}
	v = expr_name_verdict(x, t);
	expr_tc_free(x, t);
	return v != 0;
}

static int each_fmt(const struct strobe_format *fmt, void *arg)
{
	struct chk *c = arg;
	struct strobe_expr *e = c->e;
	bool cand[SC_NR];
	struct tcache *t;
	int i;

	t = expr_tc_build(e, fmt, strobe_format_id(fmt));
	if (!t) {
		c->nomem = true;
		return 1;
	}
	if (c->o->evt)
		cand[SC_EVT] = may_be(c, c->o->evt, fmt);
	else
		cand[SC_EVT] = e->is_ref || expr_name_verdict(e, t) != 0;
	cand[SC_BEGIN] = c->o->begin ? may_be(c, c->o->begin, fmt) : cand[SC_EVT];
	cand[SC_PARENT] = may_be(c, c->o->parent_begin, fmt);
	for (i = 0; i < SC_NR; i++)
		c->any_cand[i] |= cand[i];
	for (i = 0; i < e->nr_slots; i++) {
		const struct xslot *xs = &e->slots[i];
		const struct xnode *n = &e->nodes[xs->node];
		const struct xref *r = xs->side ? &n->rhs.ref : &n->lhs.ref;
		int k = kind_class(t->slots[i].kind);

		if (xs->name_cmp) {
			c->si[i].name_hit |= t->slots[i].kind != V_FALSE;
			continue;
		}
		if (cand[r->scope])
			c->si[i].cand |= (uint8_t)k;
	}
	expr_tc_free(e, t);
	return 0;
}

/* ---- close names ------------------------------------------------------------ */

#define NEAR_MAX 3
#define NAME_MAX_LEN 96

struct near {
	const char *want;
	int limit;		/* largest distance kept */
	int n;
	int dist[NEAR_MAX];
	char name[NEAR_MAX][NAME_MAX_LEN];
};

/* Edit distance of a and b, ignoring case; limit + 1 when above limit. */
static int distance(const char *a, const char *b, int limit)
{
	int la = (int)strlen(a), lb = (int)strlen(b), i, j;
	int row[NAME_MAX_LEN + 1];

	if (la >= NAME_MAX_LEN || lb >= NAME_MAX_LEN || abs(la - lb) > limit)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int diag = row[0], best;

		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			int up = row[j], sub = diag + (tolower((unsigned char)a[i - 1]) !=
						      tolower((unsigned char)b[j - 1]));

			row[j] = sub;
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
			if (row[j] < best)
				best = row[j];
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
}

static void near_init(struct near *nr, const char *want)
{
	int l = (int)strlen(want);

	memset(nr, 0, sizeof(*nr));
	nr->want = want;
	nr->limit = l < 4 ? 1 : l < 9 ? 2 : 3;
}

static void near_add(struct near *nr, const char *name)
{
	int d, i, k;

	if (!name || !strcmp(name, nr->want) || strlen(name) >= NAME_MAX_LEN)
		return;
	d = !strcasecmp(name, nr->want) ? 0 : distance(nr->want, name, nr->limit);
	if (d > nr->limit)
		return;
	for (i = 0; i < nr->n; i++)
		if (!strcmp(nr->name[i], name))
			return;
	for (i = 0; i < nr->n && nr->dist[i] <= d; i++)
		;
	if (i == NEAR_MAX)
		return;
	k = nr->n < NEAR_MAX ? nr->n++ : NEAR_MAX - 1;
	for (; k > i; k--) {
		nr->dist[k] = nr->dist[k - 1];
		memcpy(nr->name[k], nr->name[k - 1], NAME_MAX_LEN);
	}
	nr->dist[i] = d;
	snprintf(nr->name[i], NAME_MAX_LEN, "%s", name);
}

/* "; did you mean 'a', 'b' or 'c'?" into buf ("" when none). */
static void near_text(const struct near *nr, char *buf, size_t size)
{
	size_t o;
	int i;

	int n = nr->n;

	buf[0] = '\0';
	if (!n)
		return;
	/* the same letters in another case: that one only */
	for (i = 0; nr->dist[0] == 0 && i < n; i++)
		if (nr->dist[i])
			n = i;
	o = (size_t)snprintf(buf, size, "; did you mean ");
	for (i = 0; i < n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s'%s'", !i ? "" : i + 1 == n ?
				      " or " : ", ", nr->name[i]);
	if (o < size)
		snprintf(buf + o, size - o, "?");
}

static const char *const ctx_names[] = {
	"tid", "pid", "ppid", "vtid", "vpid", "procname", "comm", "cpu", "cpu_id",
	"container", "container_id",
};
static const char *const header_names[] = { "timestamp", "id" };

struct fields_near {
	struct chk *c;
	struct near nr;
	int scope;
};

static int fields_of(const struct strobe_format *fmt, void *arg)
{
	struct fields_near *f = arg;
	struct strobe_field_info fi;
	int i, n;

	struct strobe_expr *x = f->scope == SC_PARENT ? f->c->o->parent_begin :
		f->scope == SC_BEGIN && f->c->o->begin ? f->c->o->begin :
		f->c->o->evt ? f->c->o->evt : f->c->e;

	if (!may_be(f->c, x, fmt))	/* only the types its scope can be */
		return 0;
	n = strobe_format_nr_fields(fmt);
	for (i = 0; i < n; i++)
		if (strobe_format_field(fmt, i, &fi) == 0)
			near_add(&f->nr, fi.name);
	return 0;
}

static void fields_near(struct chk *c, const struct xref *r, char *buf, size_t size)
{
	struct fields_near f = { .c = c, .scope = r->scope };
	size_t i;

	near_init(&f.nr, r->field);
	if (r->dyn == DYN_AUTO || r->dyn == DYN_PAYLOAD)
		strobe_formats_each(c->fmts, fields_of, &f);
	if (r->dyn == DYN_AUTO || r->dyn == DYN_CTX)
		for (i = 0; i < sizeof(ctx_names) / sizeof(ctx_names[0]); i++)
			near_add(&f.nr, ctx_names[i]);
	if (r->dyn == DYN_AUTO || r->dyn == DYN_HEADER)
		for (i = 0; i < sizeof(header_names) / sizeof(header_names[0]); i++)
			near_add(&f.nr, header_names[i]);
	near_text(&f.nr, buf, size);
}

struct names_near {
	struct near nr;
	bool system;		/* the name has a system: "sched:sched_switch" */
};

static int names_of(const struct strobe_format *fmt, void *arg)
{
	struct names_near *f = arg;
	char full[NAME_MAX_LEN];

	if (f->system) {
		snprintf(full, sizeof(full), "%s:%s", strobe_format_system(fmt) ?
			 strobe_format_system(fmt) : "", strobe_format_name(fmt));
		near_add(&f->nr, full);
	} else {
		near_add(&f->nr, strobe_format_name(fmt));
	}
	return 0;
}

/* ---- the messages -------------------------------------------------------------- */

static void prefix(const struct chk *c, struct strobe_error *err)
{
	if (c->o->what && *c->o->what)
		strobe_err_prefix(err, "%s", c->o->what);
}

static void warn(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct chk *c, const char *fmt, ...)
{
	char msg[600];
	int n = 0;
	va_list ap;

	if (!c->o->warn)
		return;
	if (c->o->what && *c->o->what)
		n = snprintf(msg, sizeof(msg), "%s: ", c->o->what);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	c->o->warn(c->o->warn_arg, msg);
}

/* An event name that no type of the catalogue has: a warning (live: an
 * error). */
static int check_name(struct chk *c, const struct xnode *n, struct strobe_error *err)
{
	const struct xoperand *lit = n->name_side ? &n->lhs : &n->rhs;
	struct names_near f;
	char q[200], hint[400];
	bool live = c->o->flags & STROBE_EXPR_CHECK_LIVE;

	expr_quote(lit->lit.s, lit->lit.len, 80, q, sizeof(q));
	memset(&f, 0, sizeof(f));
	hint[0] = '\0';
	if (strlen(lit->lit.s) == lit->lit.len) {
		near_init(&f.nr, lit->lit.s);
		f.system = strchr(lit->lit.s, ':') != NULL;
		strobe_formats_each(c->fmts, names_of, &f);
		near_text(&f.nr, hint, sizeof(hint));
	}
	if (live) {
		strobe_err(err, -ENOENT, "column %d: the kernel has no event %s '%s'%s", lit->col,
			   n->op == OP_GLOB ? "that matches" : "named", q, hint);
		prefix(c, err);
		return -ENOENT;
	}
	warn(c, "column %d: no event in the trace %s '%s'%s", lit->col,
	     n->op == OP_GLOB ? "matches" : "is named", q, hint);
	return 0;
}

/* The kinds of value r has on the types its scope can be (0: no type). */
static uint8_t ref_kinds(const struct chk *c, const struct xref *r)
{
	if (r->is_name)
		return K_STR;
	return c->si[r->slot].cand;
}

static int check_field(struct chk *c, const struct xref *r, struct strobe_error *err)
{
	uint8_t k = ref_kinds(c, r);
	char hint[400];

	/* no type can be its event: the name warning said so, and nothing
	 * is compared */
	if (r->is_name || (k & (K_NUM | K_STR)) || !c->any_cand[r->scope])
		return 0;
	fields_near(c, r, hint, sizeof(hint));
	if (c->nomem)
		return strobe_err(err, -ENOMEM, "out of memory");
	return strobe_err(err, -EINVAL, "column %d: no field '%s' in any event %s%s%s",
			  r->col, r->field, r->scope == SC_EVT ? "it can match" :
			  r->scope == SC_BEGIN ? "$begin.$evt can be" :
			  "$parent.$begin.$evt can be", hint, (k & K_NEEDARGS) && !hint[0] ?
			  " (as a syscall argument on raw_syscalls:sys_enter records it needs "
			  "the syscall argument table, which is missing)" : "");
}

static const char *kind_word(uint8_t k)
{
	return k & K_NUM ? "a number" : "a string";
}

/* A comparison of values that are never of one kind. */
static int check_kinds(struct chk *c, const struct xnode *n, struct strobe_error *err)
{
	const struct xoperand *ref = n->lhs.is_ref ? &n->lhs : &n->rhs;
	const struct xoperand *other = n->lhs.is_ref ? &n->rhs : &n->lhs;
	uint8_t rk = ref_kinds(c, &ref->ref) & (K_NUM | K_STR), ok;
	char rt[160], q[200];

	expr_print_ref(&ref->ref, rt, sizeof(rt));
	if (n->op == OP_GLOB) {
		if (rk & K_STR)
			return 0;
		return strobe_err(err, -EINVAL, "column %d: '=*' matches strings, and %s is a "
				  "number: compare it with ==, <, ... and a number", other->col, rt);
	}
	if (other->is_ref) {
		uint8_t ok2 = ref_kinds(c, &other->ref) & (K_NUM | K_STR);
		char ot[160];

		if (!rk || !ok2 || (rk & ok2))
			return 0;
		expr_print_ref(&other->ref, ot, sizeof(ot));
		return strobe_err(err, -EINVAL, "column %d: %s is %s and %s %s: they never compare",
				  n->col, rt, kind_word(rk), ot, kind_word(ok2));
	}
	ok = other->lit.type == STROBE_EXPR_VAL_STR ? K_STR : K_NUM;
	if (!rk || (rk & ok))
		return 0;
	expr_quote(other->text, strlen(other->text), 80, q, sizeof(q));
	return strobe_err(err, -EINVAL, "column %d: %s is %s: compare it with %s, not %s %s",
			  other->col, rt, kind_word(rk), kind_word(rk),
			  ok == K_STR ? "the string" : "the number", q);
}

int strobe_expr_check(struct strobe_expr *e, struct strobe_formats *fmts,
		      const struct strobe_expr_check_opts *opts, struct strobe_error *err)
{
	struct strobe_expr_check_opts o = { 0 };
	struct chk c;
	int i, side, r = 0;

	if (opts)
		memcpy(&o, opts, opts->size && opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (!e || !fmts || !e->nr_nodes)
		return 0;
	memset(&c, 0, sizeof(c));
	c.e = e;
	c.fmts = fmts;
	c.o = &o;
	c.si = calloc((size_t)(e->nr_slots ? e->nr_slots : 1), sizeof(*c.si));
	if (!c.si)
		return strobe_err(err, -ENOMEM, "out of memory");
	strobe_formats_each(fmts, each_fmt, &c);
	if (c.nomem) {
		free(c.si);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	/* names first: all of them warned about, before any error */
	for (i = 0; i < e->nr_nodes && !r; i++) {
		const struct xnode *n = &e->nodes[i];

		if (n->kind == X_CMP && n->name_slot >= 0 && !c.si[n->name_slot].name_hit)
			r = check_name(&c, n, err);
	}
	for (i = 0; i < e->nr_nodes && !r; i++) {
		const struct xnode *n = &e->nodes[i];

		if (n->kind != X_CMP && n->kind != X_REF)
			continue;
		for (side = 0; side < (n->kind == X_CMP ? 2 : 1) && !r; side++) {
			const struct xoperand *x = side ? &n->rhs : &n->lhs;

			if (x->is_ref && (r = check_field(&c, &x->ref, err)) < 0 && r != -ENOMEM)
				prefix(&c, err);
		}
		if (!r && n->kind == X_CMP && n->name_slot < 0 &&
		    (r = check_kinds(&c, n, err)) < 0)
			prefix(&c, err);
	}
	free(c.si);
	return r;
}
