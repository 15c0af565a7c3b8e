/*
 * eval.c - evaluating compiled expressions on events.
 *
 * How it works: an expression's references are resolved per event type the
 * first time an event of that type is seen in a scope ($evt, $begin.$evt,
 * $parent.$begin.$evt), into a struct tcache holding one struct rslot per
 * slot: a field accessor (offset, size, signedness), a context value (tid,
 * procname, container ...), the event name, a syscall-argument map for
 * raw_syscalls records, or a verdict for comparisons of $name with a
 * literal.  Caches live in a small hash keyed by (type id, format), with a
 * one-entry shortcut per scope, so an event of an already seen type costs
 * a compare and the field reads; nothing is allocated per event.
 *
 * Lookup order of $evt.NAME (lttng's automatic scope): the payload (ftrace
 * field, then its LTTng alias, then a syscall argument on raw_syscalls
 * records), the context (procname, tid, pid, ppid, vtid, vpid, cpu,
 * cpu_id, container), the header (timestamp, id).  Missing values make
 * comparisons false; `!=` is `!(==)` as in lttng, so it is true then.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/model.h>

#include "format/format-int.h"
#include "expr/expr-int.h"

/* ---- resolution ------------------------------------------------------------ */

static void note_error(struct strobe_expr *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note_error(struct strobe_expr *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e->err_code)
		return;
	e->err_code = code;
	va_start(ap, fmt);
	vsnprintf(e->err_msg, sizeof(e->err_msg), fmt, ap);
	va_end(ap);
}

/* A payload field by its ftrace name into rs; false if there is none. */
static bool field_res(const struct strobe_format *fmt, const char *name, struct rslot *rs)
{
	struct tep_format_field *fl;
	bool chars;

	if (!fmt)
		return false;
	fl = tep_find_any_field(strobe_format_tep(fmt), name);
	if (!fl || strobe_field_resolve(fmt, name, &rs->f) < 0)
		return false;
	chars = fl->type && strstr(fl->type, "char") && !strchr(fl->type, '*');
	if ((fl->flags & TEP_FIELD_IS_STRING) ||
	    ((fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) && chars))
		rs->kind = R_STR;
	else if (!(fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
		 (fl->size == 1 || fl->size == 2 || fl->size == 4 || fl->size == 8))
		rs->kind = R_INT;
	else
		rs->kind = R_MISSING;	/* exists, but no comparable value */
	/* syscalls:sys_enter_* store every argument as 8 unsigned bytes: read
	 * an int argument as the int it is (fd -1, dfd AT_FDCWD) */
	if (rs->kind == R_INT && fl->size == 8 && fl->type && strobe_format_system(fmt) &&
	    !strcmp(strobe_format_system(fmt), "syscalls")) {
		enum strobe_sysarg_kind k = expr_sysarg_kind_of(fl->type);

		if (k == STROBE_SYSARG_I32 || k == STROBE_SYSARG_U32) {
			rs->f.size = 4;	/* little endian: the low half */
			rs->f.is_signed = k == STROBE_SYSARG_I32;
		}
	}
	return true;
}

int expr_ctx_kind(const char *name)
{
	static const struct {
		const char *name;
		int kind;
	} ctx[] = {
		{ "procname", R_PROCNAME }, { "comm", R_PROCNAME }, { "tid", R_TID },
		{ "pid", R_PID }, { "ppid", R_PPID }, { "vtid", R_VTID }, { "vpid", R_VPID },
		{ "cpu", R_CPU }, { "cpu_id", R_CPU }, { "container", R_CONTAINER },
		{ "container_id", R_CONTAINER_ID },
	};
	size_t i;

	for (i = 0; i < sizeof(ctx) / sizeof(ctx[0]); i++)
		if (!strcmp(name, ctx[i].name))
			return ctx[i].kind;
	return R_MISSING;
}

static int header_kind(const char *name)
{
	if (!strcmp(name, "timestamp"))
		return R_TS;
	if (!strcmp(name, "id"))
		return R_TYPEID;
	return R_MISSING;
}

/* Syscall argument `name` on raw_syscalls:sys_enter: the per-number map. */
static bool sysarg_res(struct strobe_expr *e, const struct strobe_format *fmt, const char *name,
		       struct rslot *rs)
{
	uint8_t *map;
	bool any = false;
	long nr;

	if (!e->sysargs)
		return false;
	map = calloc(1, EXPR_MAX_NR);
	if (!map) {
		note_error(e, -ENOMEM, "out of memory resolving $evt.%s", name);
		return false;
	}
	for (nr = 0; nr < EXPR_MAX_NR; nr++) {
		const char *sn = expr_syscall_name(nr);
		char alt[64];

		if (!sn)
			continue;
		map[nr] = expr_sysarg_code(e->sysargs, sn, name);
		if (!map[nr]) {		/* stat -> newstat, uname -> newuname ... */
			snprintf(alt, sizeof(alt), "new%s", sn);
			map[nr] = expr_sysarg_code(e->sysargs, alt, name);
		}
		any |= map[nr] != 0;
	}
	if (!any || strobe_field_resolve(fmt, "args", &rs->f) < 0 ||
	    strobe_field_resolve(fmt, "id", &rs->id) < 0) {
		free(map);
		return false;
	}
	rs->kind = R_SYSARG;
	rs->map = map;
	rs->map_other = (uint8_t)expr_ctx_kind(name);	/* numbers without that argument */
	return true;
}

/* A payload name: the ftrace field, its LTTng alias, a syscall argument.
 * In the automatic scope an ftrace field LTTng names otherwise ("pid" of
 * sched_waking) gives way to the context. */
static bool payload_res(struct strobe_expr *e, const struct tcache *t, const char *name,
			bool automatic, struct rslot *rs)
{
	bool shadow;
	const char *alias = expr_field_alias(t->fmt, name, &shadow);

	if (!(shadow && automatic) && field_res(t->fmt, name, rs))
		return true;
	if (alias && field_res(t->fmt, alias, rs))
		return true;
	if (t->raw == 1 && sysarg_res(e, t->fmt, name, rs))
		return true;
	return false;
}

static void resolve_ref(struct strobe_expr *e, struct tcache *t, const struct xref *r,
			struct rslot *rs)
{
	const char *name = r->field;

	memset(rs, 0, sizeof(*rs));
	if (r->is_name) {
		rs->kind = R_NAME;
		rs->raw = t->raw;
		if (t->raw && strobe_field_resolve(t->fmt, "id", &rs->id) < 0)
			rs->kind = R_MISSING;
		return;
	}
	switch (r->dyn) {
	case DYN_AUTO:
		if (payload_res(e, t, name, true, rs))
			break;
		if ((rs->kind = (uint8_t)expr_ctx_kind(name)) != R_MISSING)
			break;
		rs->kind = (uint8_t)header_kind(name);
		if (rs->kind == R_MISSING && t->raw == 1 && !e->sysargs)
			rs->kind = R_NEEDARGS;
		break;
	case DYN_PAYLOAD:
		if (!payload_res(e, t, name, false, rs) && t->raw == 1 && !e->sysargs)
			rs->kind = R_NEEDARGS;
		break;
	case DYN_CTX:
		rs->kind = (uint8_t)expr_ctx_kind(name);
		break;
	case DYN_HEADER:
		rs->kind = (uint8_t)header_kind(name);
		break;
	case DYN_PKT_CTX:
		rs->kind = !strcmp(name, "cpu_id") ? R_CPU : R_MISSING;
		break;
	default:		/* $stream_ctx, $pkt_header: nothing on ftrace */
		rs->kind = R_MISSING;
		break;
	}
}

/* The verdict of `$name OP "lit"` for type t (OP_NE decided as OP_EQ). */
static void resolve_name_cmp(struct strobe_expr *e, struct tcache *t, const struct xnode *n,
			     struct rslot *rs)
{
	const char *lit = (n->name_side ? n->lhs : n->rhs).lit.s;
	int op = n->op == OP_GLOB ? OP_GLOB : OP_EQ;
	bool any = false;
	char buf[96];
	long nr;

	memset(rs, 0, sizeof(*rs));
	if (expr_type_name_matches(t->fmt, t->name, op, lit)) {
		rs->kind = V_TRUE;
		return;
	}
	rs->kind = V_FALSE;
	if (!t->raw || strobe_field_resolve(t->fmt, "id", &rs->id) < 0)
		return;
	rs->map = calloc(1, EXPR_MAX_NR);
	if (!rs->map) {
		note_error(e, -ENOMEM, "out of memory resolving $evt.$name");
		return;
	}
	for (nr = 0; nr < EXPR_MAX_NR; nr++) {
		if (!expr_syscall_name(nr))
			continue;
		expr_raw_name(t->raw, nr, buf, sizeof(buf));
		rs->map[nr] = expr_type_name_matches(NULL, buf, op, lit);
		if (!rs->map[nr] && expr_raw_name_alt(t->raw, nr, buf, sizeof(buf)))
			rs->map[nr] = expr_type_name_matches(NULL, buf, op, lit);
		any |= rs->map[nr];
	}
	expr_raw_name(t->raw, -1, buf, sizeof(buf));	/* syscall_entry_unknown */
	rs->map_other = expr_type_name_matches(NULL, buf, op, lit);
	if (!any && !rs->map_other) {
		free(rs->map);
		rs->map = NULL;
		return;
	}
	rs->kind = V_NRMAP;
	rs->raw = t->raw;
}

struct tcache *expr_tc_build(struct strobe_expr *e, const struct strobe_format *fmt, int type)
{
	struct tcache *t = calloc(1, sizeof(*t) + (size_t)e->nr_slots * sizeof(struct rslot));
	int i;

	if (!t) {
		note_error(e, -ENOMEM, "out of memory caching an event type");
		return NULL;
	}
	t->fmt = fmt;
	t->type = type;
	t->verdict = VERDICT_UNSET;
	t->raw = (uint8_t)expr_raw_kind(strobe_format_system(fmt), strobe_format_name(fmt));
	if (!t->raw)
		expr_type_name(strobe_format_system(fmt), strobe_format_name(fmt), t->name,
			       sizeof(t->name));
	for (i = 0; i < e->nr_slots; i++) {
		const struct xslot *s = &e->slots[i];
		const struct xnode *n = &e->nodes[s->node];

		if (s->name_cmp)
			resolve_name_cmp(e, t, n, &t->slots[i]);
		else
			resolve_ref(e, t, s->side ? &n->rhs.ref : &n->lhs.ref, &t->slots[i]);
	}
	return t;
}

static struct tcache *tc_get(struct strobe_expr *e, int scope, const struct strobe_format *fmt,
			     int type)
{
	struct tcache *t = e->last[scope];
	unsigned h;

	if (t && t->type == type && t->fmt == fmt)
		return t;
	h = (unsigned)type & (TC_BUCKETS - 1);
	for (t = e->buckets[h]; t; t = t->next)
		if (t->type == type && t->fmt == fmt)
			break;
	if (!t) {
		t = expr_tc_build(e, fmt, type);
		if (!t)
			return NULL;
		t->next = e->buckets[h];
		e->buckets[h] = t;
	}
	e->last[scope] = t;
	return t;
}

void expr_tc_free(const struct strobe_expr *e, struct tcache *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < e->nr_slots; i++)
		free(t->slots[i].map);
	free(t);
}

void expr_cache_clear(struct strobe_expr *e)
{
	int h;

	for (h = 0; h < TC_BUCKETS; h++) {
		struct tcache *t = e->buckets[h], *nx;

		for (; t; t = nx) {
			nx = t->next;
			expr_tc_free(e, t);
		}
		e->buckets[h] = NULL;
	}
	memset(e->last, 0, sizeof(e->last));
}

void strobe_expr_set_syscall_args(struct strobe_expr *e, const struct strobe_syscall_args *t)
{
	if (!e)
		return;
	expr_cache_clear(e);
	e->sysargs = t;
	e->err_code = 0;
	e->err_msg[0] = '\0';
}

int strobe_expr_error(const struct strobe_expr *e, struct strobe_error *err)
{
	if (!e || !e->err_code)
		return 0;
	return strobe_err(err, e->err_code, "%s", e->err_msg);
}

/* ---- evaluation --------------------------------------------------------------- */

struct ectx {
	struct strobe_expr *e;
	const struct strobe_expr_env *env;
	const struct strobe_event *ev[SC_NR];
	const struct strobe_expr_task *given[SC_NR];
	struct tcache *tc[SC_NR];
	struct strobe_expr_task task[SC_NR];
	uint8_t have_task[SC_NR];	/* 0 not looked up, 1 looked up */
};

static void ectx_init(struct ectx *c, struct strobe_expr *e, const struct strobe_expr_env *env,
		      const struct strobe_expr_match *m)
{
	/* c->task[] is filled on demand (have_task) */
	c->e = e;
	c->env = env;
	c->ev[SC_EVT] = m->evt.ev;
	c->ev[SC_BEGIN] = m->begin.ev;
	c->ev[SC_PARENT] = m->parent_begin.ev;
	c->given[SC_EVT] = m->evt.task;
	c->given[SC_BEGIN] = m->begin.task;
	c->given[SC_PARENT] = m->parent_begin.task;
	c->tc[SC_EVT] = c->tc[SC_BEGIN] = c->tc[SC_PARENT] = NULL;
	c->have_task[SC_EVT] = c->have_task[SC_BEGIN] = c->have_task[SC_PARENT] = 0;
}

/* The event of scope s and its type cache; NULL when absent. */
static const struct strobe_event *scope_ev(struct ectx *c, int s, struct tcache **t)
{
	const struct strobe_event *ev = c->ev[s];

	if (!ev)
		return NULL;
	if (!c->tc[s]) {
		c->tc[s] = tc_get(c->e, s, ev->format, ev->type);
		if (!c->tc[s])
			return NULL;
	}
	*t = c->tc[s];
	return ev;
}

static const struct strobe_expr_task *scope_task(struct ectx *c, int s)
{
	struct strobe_expr_task *t = &c->task[s];

	if (c->given[s])
		return c->given[s];
	if (!c->have_task[s]) {
		c->have_task[s] = 1;
		t->tid = c->ev[s]->pid;
		t->pid = t->ppid = t->vtid = t->vpid = -1;
		t->procname = t->container = t->container_id = NULL;
		if (c->env && c->env->task && c->env->task(c->env->arg, t->tid, t) < 0) {
			t->pid = t->ppid = t->vtid = t->vpid = -1;
			t->procname = t->container = t->container_id = NULL;
		}
		t->tid = c->ev[s]->pid;
	}
	return t;
}

static void set_int(struct strobe_expr_value *v, int64_t i)
{
	v->type = STROBE_EXPR_VAL_INT;
	v->is_unsigned = false;
	v->i = i;
}

static void set_known_int(struct strobe_expr_value *v, int i)
{
	if (i < 0)
		v->type = STROBE_EXPR_VAL_NONE;
	else
		set_int(v, i);
}

static void set_str(struct strobe_expr_value *v, const char *s)
{
	if (!s) {
		v->type = STROBE_EXPR_VAL_NONE;
		return;
	}
	v->type = STROBE_EXPR_VAL_STR;
	v->s = s;
	v->len = strlen(s);
}

static bool read_id(const struct strobe_event *ev, const struct strobe_field *f, long *nr)
{
	if (!f->valid || (uint32_t)f->offset + f->size > ev->size)
		return false;
	*nr = (long)strobe_field_int(ev, f);
	return true;
}

static void ctx_value(struct ectx *c, int s, int kind, const struct strobe_event *ev,
		      struct strobe_expr_value *v)
{
	const struct strobe_expr_task *t;

	v->type = STROBE_EXPR_VAL_NONE;
	switch (kind) {
	case R_TID:	/* the given task's (an analysis' attributed task) */
		set_int(v, c->given[s] ? c->given[s]->tid : ev->pid);
		return;
	case R_CPU:
		set_int(v, ev->cpu);
		return;
	case R_TS:
		v->type = STROBE_EXPR_VAL_INT;
		v->is_unsigned = true;
		v->u = ev->ts;
		return;
	case R_TYPEID:
		set_int(v, ev->type);
		return;
	case R_PID: case R_PPID: case R_VTID: case R_VPID: case R_PROCNAME: case R_CONTAINER:
	case R_CONTAINER_ID:
		break;
	default:
		return;
	}
	t = scope_task(c, s);
	switch (kind) {
	case R_PID: set_known_int(v, t->pid); break;
	case R_PPID: set_known_int(v, t->ppid); break;
	case R_VTID: set_known_int(v, t->vtid); break;
	case R_VPID: set_known_int(v, t->vpid); break;
	case R_PROCNAME: set_str(v, t->procname); break;
	case R_CONTAINER: set_str(v, t->container); break;
	case R_CONTAINER_ID: set_str(v, t->container_id); break;
	}
}

static void sysarg_value(struct ectx *c, int s, const struct rslot *rs,
			 const struct strobe_event *ev, struct strobe_expr_value *v)
{
	struct strobe_field w;
	uint64_t raw;
	long nr;
	uint8_t code;

	v->type = STROBE_EXPR_VAL_NONE;
	if (!read_id(ev, &rs->id, &nr))
		return;
	code = nr >= 0 && nr < EXPR_MAX_NR ? rs->map[nr] : 0;
	if (!code) {
		ctx_value(c, s, rs->map_other, ev, v);
		return;
	}
	w = rs->f;
	w.offset = (uint16_t)(w.offset + 8 * (code & 7));
	w.size = 8;
	w.is_signed = 0;
	if ((uint32_t)w.offset + 8 > ev->size)
		return;
	raw = strobe_field_uint(ev, &w);
	v->type = STROBE_EXPR_VAL_INT;
	v->is_unsigned = false;
	switch ((code >> 3) & 7) {
	case STROBE_SYSARG_I32:
		v->i = (int32_t)(uint32_t)raw;
		break;
	case STROBE_SYSARG_U32:
		v->i = (uint32_t)raw;
		break;
	case STROBE_SYSARG_I64:
		v->i = (int64_t)raw;
		break;
	default:
		v->u = raw;
		v->is_unsigned = true;
		break;
	}
}

/* A syscall argument name met on raw_syscalls:sys_enter without a table. */
static void need_args(struct strobe_expr *e, const struct xref *r)
{
	char text[160];

	expr_print_ref(r, text, sizeof(text));
	note_error(e, -ENOENT, "%s on raw_syscalls:sys_enter records needs the syscall "
		   "argument table (the file has none and the syscalls:sys_enter_* formats "
		   "are not available)", text);
}

static void ref_value(struct ectx *c, const struct xref *r, struct strobe_expr_value *v, char *buf,
		      size_t bufsize)
{
	struct tcache *t = NULL;
	const struct strobe_event *ev = scope_ev(c, r->scope, &t);
	const struct rslot *rs;
	uint32_t len;
	long nr;

	v->type = STROBE_EXPR_VAL_NONE;
	if (!ev)
		return;
	rs = &t->slots[r->slot];
	switch (rs->kind) {
	case R_INT:
		if ((uint32_t)rs->f.offset + rs->f.size > ev->size)
			return;
		v->type = STROBE_EXPR_VAL_INT;
		if (rs->f.is_signed) {
			v->is_unsigned = false;
			v->i = strobe_field_int(ev, &rs->f);
		} else {
			v->u = strobe_field_uint(ev, &rs->f);
			v->is_unsigned = rs->f.size == 8;
		}
		return;
	case R_STR:
		v->s = strobe_field_str(ev, &rs->f, &len);
		if (!v->s)
			return;
		v->type = STROBE_EXPR_VAL_STR;
		v->len = strnlen(v->s, len);
		return;
	case R_NAME:
		if (!rs->raw) {
			set_str(v, t->name);
			return;
		}
		if (!read_id(ev, &rs->id, &nr) || bufsize < 2)
			return;
		expr_raw_name(rs->raw, nr, buf, bufsize);
		set_str(v, buf);
		return;
	case R_SYSARG:
		sysarg_value(c, r->scope, rs, ev, v);
		return;
	case R_NEEDARGS:
		need_args(c->e, r);
		return;
	default:
		ctx_value(c, r->scope, rs->kind, ev, v);
		return;
	}
}

static int cmp_ints(const struct strobe_expr_value *a, const struct strobe_expr_value *b)
{
	__int128 x = a->is_unsigned ? (__int128)a->u : (__int128)a->i;
	__int128 y = b->is_unsigned ? (__int128)b->u : (__int128)b->i;

	return x < y ? -1 : x > y;
}

/* lttng: an integer compared with a real compares with the real's integer
 * part (Python's int()); out of int64 range, compare as reals. */
static bool int_of_real(double d, struct strobe_expr_value *out)
{
	if (!(d > -9.2e18 && d < 9.2e18))
		return false;
	out->type = STROBE_EXPR_VAL_INT;
	out->is_unsigned = false;
	out->i = (int64_t)d;
	return true;
}

static double real_of(const struct strobe_expr_value *v)
{
	if (v->type == STROBE_EXPR_VAL_DOUBLE)
		return v->d;
	return v->is_unsigned ? (double)v->u : (double)v->i;
}

static bool apply(int op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	default: return false;
	}
}

/* a OP b for OP other than OP_NE (the caller negates ==). */
static bool compare(const struct strobe_expr_value *a, int op, const struct strobe_expr_value *b)
{
	struct strobe_expr_value t;
	int c;

	if (a->type == STROBE_EXPR_VAL_NONE || b->type == STROBE_EXPR_VAL_NONE)
		return false;
	if (op == OP_GLOB)
		return a->type == STROBE_EXPR_VAL_STR && b->type == STROBE_EXPR_VAL_STR &&
		       expr_glob(b->s, a->s, a->len);
	if ((a->type == STROBE_EXPR_VAL_STR) != (b->type == STROBE_EXPR_VAL_STR))
		return false;
	if (a->type == STROBE_EXPR_VAL_STR) {
		size_t n = a->len < b->len ? a->len : b->len;

		c = memcmp(a->s, b->s, n);
		if (!c)
			c = a->len < b->len ? -1 : a->len > b->len;
		return apply(op, c);
	}
	if (a->type == STROBE_EXPR_VAL_INT && b->type == STROBE_EXPR_VAL_DOUBLE && int_of_real(b->d, &t))
		return apply(op, cmp_ints(a, &t));
	if (a->type == STROBE_EXPR_VAL_DOUBLE && b->type == STROBE_EXPR_VAL_INT && int_of_real(a->d, &t))
		return apply(op, cmp_ints(&t, b));
	if (a->type == STROBE_EXPR_VAL_INT && b->type == STROBE_EXPR_VAL_INT)
		return apply(op, cmp_ints(a, b));
	{
		double x = real_of(a), y = real_of(b);

		return apply(op, x < y ? -1 : x > y);
	}
}

static bool name_verdict(struct ectx *c, const struct xnode *n)
{
	const struct xref *r = n->name_side ? &n->rhs.ref : &n->lhs.ref;
	struct tcache *t = NULL;
	const struct strobe_event *ev = scope_ev(c, r->scope, &t);
	const struct rslot *rs;
	long nr;

	if (!ev)
		return false;
	rs = &t->slots[n->name_slot];
	switch (rs->kind) {
	case V_TRUE:
		return true;
	case V_NRMAP:
		if (!read_id(ev, &rs->id, &nr))
			return false;
		return nr >= 0 && nr < EXPR_MAX_NR ? rs->map[nr] : rs->map_other;
	default:
		return false;
	}
}

static bool eval_cmp(struct ectx *c, const struct xnode *n)
{
	struct strobe_expr_value a, b;
	char abuf[64], bbuf[64];
	bool res;

	if (n->name_slot >= 0) {
		res = name_verdict(c, n);
	} else {
		if (n->lhs.is_ref)
			ref_value(c, &n->lhs.ref, &a, abuf, sizeof(abuf));
		else
			a = n->lhs.lit;
		if (n->rhs.is_ref)
			ref_value(c, &n->rhs.ref, &b, bbuf, sizeof(bbuf));
		else
			b = n->rhs.lit;
		res = compare(&a, n->op == OP_NE ? OP_EQ : n->op, &b);
	}
	return n->op == OP_NE ? !res : res;
}

static bool eval_node(struct ectx *c, int i)
{
	const struct xnode *n = &c->e->nodes[i];
	int k;

	switch (n->kind) {
	case X_CMP:
		return eval_cmp(c, n);
	case X_NOT:
		return !eval_node(c, n->child);
	case X_AND:
		for (k = n->child; k >= 0; k = c->e->nodes[k].next)
			if (!eval_node(c, k))
				return false;
		return true;
	case X_OR:
		for (k = n->child; k >= 0; k = c->e->nodes[k].next)
			if (eval_node(c, k))
				return true;
		return false;
	default:
		return false;
	}
}

enum { TRI_F, TRI_T, TRI_U };

/* names_only: decide by the $evt.$name comparisons alone (a field the
 * type lacks leaves the comparison undecided). */
static int tri_cmp(struct strobe_expr *e, struct tcache *t, const struct xnode *n,
		   bool names_only)
{
	int res = TRI_U;

	if (n->name_slot >= 0) {
		const struct xref *r = n->name_side ? &n->rhs.ref : &n->lhs.ref;

		if (r->scope != SC_EVT)
			return TRI_U;
		switch (t->slots[n->name_slot].kind) {
		case V_TRUE: res = TRI_T; break;
		case V_FALSE: res = TRI_F; break;
		default: res = TRI_U; break;
		}
	} else if (!names_only) {
		int side;

		for (side = 0; side < 2; side++) {
			const struct xoperand *o = side ? &n->rhs : &n->lhs;
			int k;

			if (!o->is_ref || o->ref.scope != SC_EVT)
				continue;
			k = t->slots[o->ref.slot].kind;
			if (k == R_NEEDARGS)
				need_args(e, &o->ref);
			if (k == R_MISSING || k == R_NEEDARGS)
				res = TRI_F;
		}
	}
	if (n->op == OP_NE && res != TRI_U)
		res = res == TRI_T ? TRI_F : TRI_T;
	return res;
}

static int tri_node(struct strobe_expr *e, struct tcache *t, int i, bool names_only)
{
	const struct xnode *n = &e->nodes[i];
	int k, r, acc;

	switch (n->kind) {
	case X_CMP:
		return tri_cmp(e, t, n, names_only);
	case X_NOT:
		r = tri_node(e, t, n->child, names_only);
		return r == TRI_U ? TRI_U : r == TRI_T ? TRI_F : TRI_T;
	case X_AND:
		acc = TRI_T;
		for (k = n->child; k >= 0; k = e->nodes[k].next) {
			r = tri_node(e, t, k, names_only);
			if (r == TRI_F)
				return TRI_F;
			if (r == TRI_U)
				acc = TRI_U;
		}
		return acc;
	case X_OR:
		acc = TRI_F;
		for (k = n->child; k >= 0; k = e->nodes[k].next) {
			r = tri_node(e, t, k, names_only);
			if (r == TRI_T)
				return TRI_T;
			if (r == TRI_U)
				acc = TRI_U;
		}
		return acc;
	default:
		return TRI_U;
	}
}

int expr_name_verdict(struct strobe_expr *e, struct tcache *t)
{
	if (e->is_ref || !e->nr_nodes)
		return TRI_U;
	return tri_node(e, t, e->root, true);
}

bool strobe_expr_eval(struct strobe_expr *e, const struct strobe_expr_env *env,
		      const struct strobe_expr_match *m)
{
	struct tcache *t = NULL;
	struct ectx c;

	if (!e || !m || !m->evt.ev || e->is_ref || !e->nr_nodes)
		return false;
	ectx_init(&c, e, env, m);
	/* what the event's type alone decides (most events of a filter) */
	if (scope_ev(&c, SC_EVT, &t)) {
		if (t->verdict == VERDICT_UNSET)
			t->verdict = (int8_t)tri_node(e, t, e->root, false);
		if (t->verdict == TRI_F)
			return false;
		if (t->verdict == TRI_T)
			return true;
	}
	return eval_node(&c, e->root);
}

bool strobe_expr_match_event(struct strobe_expr *e, const struct strobe_expr_env *env,
			     const struct strobe_event *ev)
{
	struct strobe_expr_match m = { { ev, NULL }, { ev, NULL }, { NULL, NULL } };

	return strobe_expr_eval(e, env, &m);
}

void strobe_expr_value(struct strobe_expr *e, const struct strobe_expr_env *env,
		       const struct strobe_expr_match *m, struct strobe_expr_value *v, char *buf,
		       size_t bufsize)
{
	struct ectx c;

	memset(v, 0, sizeof(*v));
	if (!e || !m || !e->is_ref || !e->nr_nodes)
		return;
	ectx_init(&c, e, env, m);
	ref_value(&c, &e->nodes[e->root].lhs.ref, v, buf, bufsize);
}

/* ---- what a type can match (subscriptions) ---------------------------------- */

bool strobe_expr_may_match(struct strobe_expr *e, const struct strobe_format *fmt)
{
	struct tcache *t;

	if (!e || e->is_ref || !e->nr_nodes)
		return false;
	t = tc_get(e, SC_EVT, fmt, fmt ? strobe_format_id(fmt) : -1);
	if (!t)
		return true;	/* cannot tell: do not drop events */
	return tri_node(e, t, e->root, false) != TRI_F;
}

/* Walk node i for strobe_expr_event_names: 1 when it holds only for events
 * that one of the names it reports names, 0 when not, or fn's < 0. */
static int names_of(const struct strobe_expr *e, int i,
		    int (*fn)(void *arg, const char *lit, bool glob), void *arg)
{
	const struct xnode *n = &e->nodes[i];
	int k, r, all = 1, any = 0;

	switch (n->kind) {
	case X_CMP: {
		const struct xoperand *nm = n->name_side ? &n->rhs : &n->lhs;
		const struct xoperand *lit = n->name_side ? &n->lhs : &n->rhs;

		if (n->name_slot < 0 || nm->ref.scope != SC_EVT ||
		    (n->op != OP_EQ && n->op != OP_GLOB) || !lit->lit.s)
			return 0;
		r = fn(arg, lit->lit.s, n->op == OP_GLOB);
		return r < 0 ? r : 1;
	}
	case X_AND:	/* one named child is enough: report those */
		for (k = n->child; k >= 0; k = e->nodes[k].next) {
			r = names_of(e, k, fn, arg);
			if (r < 0)
				return r;
			any |= r;
		}
		return any;
	case X_OR:	/* every way must be named */
		for (k = n->child; k >= 0; k = e->nodes[k].next) {
			r = names_of(e, k, fn, arg);
			if (r < 0)
				return r;
			all &= r;
		}
		return all;
	default:
		return 0;
	}
}

int strobe_expr_event_names(const struct strobe_expr *e,
			    int (*fn)(void *arg, const char *lit, bool glob), void *arg)
{
	if (!e || e->is_ref || !e->nr_nodes)
		return 0;
	return names_of(e, e->root, fn, arg);
}

/* ---- the task model as context ------------------------------------------------ */

int expr_type_verdict(struct strobe_expr *e, const struct strobe_format *fmt, int type)
{
	struct tcache *t;

	if (!e || e->is_ref || !e->nr_nodes)
		return TRI_F;
	t = tc_get(e, SC_EVT, fmt, type);
	if (!t)
		return TRI_U;
	if (t->verdict == VERDICT_UNSET)
		t->verdict = (int8_t)tri_node(e, t, e->root, false);
	return t->verdict;
}

void expr_task_of(const struct strobe_task *k, struct strobe_expr_task *t)
{
	t->tid = k->tid;
	t->pid = k->tgid;
	t->ppid = k->ppid;
	t->vtid = k->nstid;
	t->vpid = k->nstgid;
	t->procname = k->comm[0] && strcmp(k->comm, "<...>") ? k->comm : NULL;
	t->container = k->container && k->container->index != STROBE_CONTAINER_UNKNOWN ?
		       k->container->name : NULL;
	t->container_id = t->container && k->container->id[0] ? k->container->id : NULL;
}

static int model_task(void *arg, int tid, struct strobe_expr_task *t)
{
	const struct strobe_task *k = strobe_model_task(arg, tid);

	if (!k)
		return -ENOENT;
	expr_task_of(k, t);
	t->tid = tid;
	return 0;
}

void strobe_expr_env_model(struct strobe_expr_env *env, struct strobe_model *m)
{
	env->task = model_task;
	env->arg = m;
}
