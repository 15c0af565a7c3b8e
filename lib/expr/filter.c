/*
 * filter.c - one compiled selection per run (struct strobe_expr_filter):
 * every --filter expression and every selection option (--tid, --pid,
 * --comm, --container, --cpu, -e) as one expression, their terms ANDed.
 *
 * The options are sugar: strobe_expr_option_text turns an option's value
 * into expression text (`--pid 1,2` is `$evt.$ctx.tid == 1 ||
 * $evt.$ctx.tid == 2`), which is parsed like any --filter.  The sugar
 * names the context scope ($evt.$ctx.X) so that an event's own payload
 * field of that name (task_newtask's pid, workqueue_queue_work's cpu)
 * never stands in for it.
 *
 * How matching stays as cheap as the special-purpose selections it
 * replaces: compiling splits the expression into its top-level conjuncts
 * and recognises the common ones.  A conjunct that only names CPUs
 * ($evt.$ctx.cpu == K, or a >= / <= range, or a || of those) becomes a
 * CPU mask, which a stream also uses to skip whole CPUs' pages; one that
 * only names thread ids (or process ids) a small sorted array, one that
 * only names command names a list of names and globs.  The other
 * conjuncts stay one expression ("rest") whose verdict per event type
 * (names compared with literals, fields the type lacks) is kept in a
 * table indexed by type id, so an -e selection costs one load per event;
 * only the events the type cannot decide are evaluated.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/output.h>

#include "format/format-int.h"
#include "expr/expr-int.h"

#define MAX_CPUS	8192
#define NR_TYPES	65536

/* ---- a growable string ---------------------------------------------------- */

struct sbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *ns;

		while (cap < b->len + n + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			b->failed = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		b->failed = true;
		return;
	}
	sb_put(b, tmp, (size_t)n);
}

/* A string literal: "s" with " and \ escaped. */
static void sb_lit(struct sbuf *b, const char *s)
{
	sb_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_puts(b, "\\");
		sb_put(b, s, 1);
	}
	sb_puts(b, "\"");
}

/* ---- comma lists ---------------------------------------------------------- */

/* Calls fn for each non-empty item of a comma-separated list. */
static int each_item(const char *list, int (*fn)(void *ctx, const char *item), void *ctx)
{
	char *copy, *item, *save = NULL;
	int ret = 0;

	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item && !ret; item = strtok_r(NULL, ",", &save))
		ret = fn(ctx, item);
	free(copy);
	return ret;
}

/* ---- CPU lists ------------------------------------------------------------ */

/* Strict non-negative decimal at *p, advancing it; -1 if none or >= max. */
static long parse_num(const char **p, int max)
{
	const char *s = *p;
	long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s++ - '0');
		if (v >= max)
			return -1;
	}
	*p = s;
	return v;
}

struct cpu_ctx {
	bool *mask;
	int max;
	struct strobe_error *err;
};

static int add_cpu_item(void *ctx, const char *item)
{
	struct cpu_ctx *c = ctx;
	const char *p = item;
	long a, b, i;

	a = b = parse_num(&p, c->max);
	if (a >= 0 && *p == '-') {
		p++;
		b = parse_num(&p, c->max);
	}
	if (a < 0 || b < 0 || *p || b < a)
		return strobe_err(c->err, -EINVAL,
				  "bad CPU list item '%s' (expected N or N-M, N < %d)", item, c->max);
	for (i = a; i <= b; i++)
		c->mask[i] = true;
	return 0;
}

int strobe_cpu_list_parse(const char *list, bool *mask, int max, struct strobe_error *err)
{
	struct cpu_ctx c = { mask, max, err };
	int r;

	if (!list || !*list)
		return strobe_err(err, -EINVAL, "empty CPU list");
	r = each_item(list, add_cpu_item, &c);
	return r == -ENOMEM ? strobe_err(err, r, "out of memory") : r;
}

/* ---- the options' expression text ------------------------------------------ */

struct opt_ctx {
	enum strobe_expr_option opt;
	struct sbuf *b;
	int n;			/* items so far */
	struct strobe_error *err;
};

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool is_hex_prefix(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && n <= 64 && strspn(s, "0123456789abcdef") == n;
}

static int opt_item(void *ctx, const char *item)
{
	struct opt_ctx *c = ctx;
	struct sbuf *b = c->b;
	const char *colon;
	char *end;
	long v;

	if (c->n++)
		sb_puts(b, " || ");
	switch (c->opt) {
	case STROBE_EXPR_OPT_TID:
	case STROBE_EXPR_OPT_PID:
		errno = 0;
		v = strtol(item, &end, 10);
		if (*item < '0' || *item > '9' || *end || errno || v > 0x7fffffff)
			return strobe_err(c->err, -EINVAL, "bad %s '%s'",
					  c->opt == STROBE_EXPR_OPT_TID ? "thread id" : "pid", item);
		sb_printf(b, "$evt.$ctx.%s == %ld", c->opt == STROBE_EXPR_OPT_TID ? "tid" : "pid",
			  v);
		break;
	case STROBE_EXPR_OPT_COMM:
		sb_puts(b, has_glob(item) ? "$evt.$ctx.procname =* " : "$evt.$ctx.procname == ");
		sb_lit(b, item);
		break;
	case STROBE_EXPR_OPT_CONTAINER:
		/* strobe_container_matches' rules: name, full ID, ID prefix */
		sb_puts(b, "$evt.$ctx.container == ");
		sb_lit(b, item);
		if (is_hex_prefix(item)) {
			sb_printf(b, " || $evt.$ctx.container_id =* \"%s*\"", item);
		} else {
			sb_puts(b, " || $evt.$ctx.container_id == ");
			sb_lit(b, item);
		}
		break;
	case STROBE_EXPR_OPT_EVENT:
		colon = strchr(item, ':');
		if (colon) {
			struct sbuf pat = { 0 };

			/* "sys:" is every event of sys, ":name" name in any system */
			if (colon == item)
				sb_puts(&pat, "*");
			sb_puts(&pat, item);
			if (!colon[1])
				sb_puts(&pat, "*");
			if (pat.failed) {
				free(pat.s);
				return -ENOMEM;
			}
			sb_puts(b, has_glob(pat.s) ? "$evt.$name =* " : "$evt.$name == ");
			sb_lit(b, pat.s);
			free(pat.s);
		} else {
			/* a bare word: an event name or a system name */
			struct sbuf pat = { 0 };

			sb_puts(&pat, "*:");
			sb_puts(&pat, item);
			if (pat.failed) {
				free(pat.s);
				return -ENOMEM;
			}
			sb_puts(b, "$evt.$name =* ");
			sb_lit(b, pat.s);
			pat.len = 0;
			sb_puts(&pat, item);
			sb_puts(&pat, ":*");
			sb_puts(b, " || $evt.$name =* ");
			if (!pat.failed)
				sb_lit(b, pat.s);
			else
				b->failed = true;
			free(pat.s);
		}
		break;
	default:
		return strobe_err(c->err, -EINVAL, "unknown option kind %d", (int)c->opt);
	}
	return 0;
}

/* The CPUs of mask[0..n) as ranges. */
static void cpu_text(struct sbuf *b, const bool *mask, int n)
{
	int i = 0, j, k = 0;

	while (i < n) {
		if (!mask[i]) {
			i++;
			continue;
		}
		for (j = i; j + 1 < n && mask[j + 1]; j++)
			;
		if (k++)
			sb_puts(b, " || ");
		if (i == j)
			sb_printf(b, "$evt.$ctx.cpu == %d", i);
		else
			sb_printf(b, "$evt.$ctx.cpu >= %d && $evt.$ctx.cpu <= %d", i, j);
		i = j + 1;
	}
}

int strobe_expr_option_text(enum strobe_expr_option opt, const char *value, char **out,
			    struct strobe_error *err)
{
	static const char *const what[] = {
		[STROBE_EXPR_OPT_TID] = "thread id", [STROBE_EXPR_OPT_PID] = "pid",
		[STROBE_EXPR_OPT_COMM] = "command name", [STROBE_EXPR_OPT_CONTAINER] = "container",
		[STROBE_EXPR_OPT_CPU] = "CPU", [STROBE_EXPR_OPT_EVENT] = "event",
	};
	struct sbuf b = { 0 };
	struct opt_ctx c = { opt, &b, 0, err };
	int r;

	*out = NULL;
	if ((unsigned)opt > STROBE_EXPR_OPT_EVENT)
		return strobe_err(err, -EINVAL, "unknown option kind %d", (int)opt);
	if (opt == STROBE_EXPR_OPT_CPU) {
		bool *mask = calloc(MAX_CPUS, sizeof(*mask));

		if (!mask)
			return strobe_err(err, -ENOMEM, "out of memory");
		r = strobe_cpu_list_parse(value, mask, MAX_CPUS, err);
		if (r == 0)
			cpu_text(&b, mask, MAX_CPUS);
		free(mask);
	} else if (!value || !value[strspn(value, ",")]) {
		r = strobe_err(err, -EINVAL, "empty %s list", what[opt]);
	} else {
		r = each_item(value, opt_item, &c);
	}
	if (r == 0 && b.failed)
		r = -ENOMEM;
	if (r < 0) {
		free(b.s);
		return r == -ENOMEM ? strobe_err(err, r, "out of memory") : r;
	}
	*out = b.s;
	return 0;
}

/* ---- the filter ------------------------------------------------------------- */

struct tverdict {
	const struct strobe_format *fmt;
	int8_t v;		/* 0 false, 1 true, 2 depends */
	bool set;
};

/* A --filter term as the user wrote it, for checking against a trace. */
struct uterm {
	char *text;
	struct strobe_expr *e;
};

struct strobe_expr_filter {
	struct sbuf text;	/* "(term) && (term) ..." */
	int nr_terms;
	struct uterm *uterms;	/* the strobe_expr_filter_add terms */
	int nr_uterms;
	struct strobe_formats *fmts;	/* checks; may be NULL */
	struct strobe_expr *whole;	/* every term (printing); NULL: none */
	struct strobe_expr *rest;	/* the conjuncts no fast path took */
	bool *cpus;		/* AND of the CPU-set conjuncts; NULL: none */
	int nr_cpus;
	int *tids;		/* the thread-id-set conjunct, sorted */
	size_t nr_tids;
	bool has_tids;
	int *pids;		/* the process-id-set conjunct, sorted */
	size_t nr_pids;
	bool has_pids;
	struct cname {		/* the command-name conjunct: names, globs */
		char *lit;
		bool glob;
	} *comms;
	size_t nr_comms;
	bool needs_task;
	struct tverdict *types;	/* rest's verdict per type id, NR_TYPES */
	/* argument names on raw_syscalls records (strobe-expr(7)): made once
	 * the formats are known, when they hold raw_syscalls:sys_enter */
	struct strobe_syscall_args *sysargs;
	bool sysargs_tried;
};

int strobe_expr_filter_new(struct strobe_expr_filter **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void uncompile(struct strobe_expr_filter *f)
{
	strobe_expr_free(f->whole);
	strobe_expr_free(f->rest);
	free(f->cpus);
	free(f->tids);
	free(f->pids);
	while (f->nr_comms)
		free(f->comms[--f->nr_comms].lit);
	free(f->comms);
	free(f->types);
	f->whole = f->rest = NULL;
	f->cpus = NULL;
	f->tids = f->pids = NULL;
	f->comms = NULL;
	f->types = NULL;
	f->nr_cpus = 0;
	f->nr_tids = f->nr_pids = 0;
	f->has_tids = f->has_pids = f->needs_task = false;
}

void strobe_expr_filter_free(struct strobe_expr_filter *f)
{
	if (!f)
		return;
	uncompile(f);
	while (f->nr_uterms--) {
		free(f->uterms[f->nr_uterms].text);
		strobe_expr_free(f->uterms[f->nr_uterms].e);
	}
	free(f->uterms);
	free(f->text.s);
	strobe_syscall_args_free(f->sysargs);
	free(f);
}

/* Give every expression the argument names of raw_syscalls records, as
 * the periods do: the syscalls:* formats of fmts, else this machine's. */
static void give_sysargs(struct strobe_expr_filter *f, struct strobe_formats *fmts)
{
	int i;

	if (!f->sysargs && !f->sysargs_tried && fmts &&
	    strobe_formats_find(fmts, "raw_syscalls", "sys_enter")) {
		f->sysargs_tried = true;
		if (expr_sysargs_for(fmts, &f->sysargs) == 0) {
			strobe_syscall_args_free(f->sysargs);
			f->sysargs = NULL;
		}
	}
	if (!f->sysargs)
		return;
	for (i = 0; i < f->nr_uterms; i++)
		strobe_expr_set_syscall_args(f->uterms[i].e, f->sysargs);
	strobe_expr_set_syscall_args(f->whole, f->sysargs);
	strobe_expr_set_syscall_args(f->rest, f->sysargs);
}

void strobe_expr_filter_set_formats(struct strobe_expr_filter *f, struct strobe_formats *fmts)
{
	f->fmts = fmts;
	give_sysargs(f, fmts);
}

/* Add a term; a user's (--filter) is kept for strobe_expr_filter_check. */
static int add_term(struct strobe_expr_filter *f, const char *expr, bool user,
		    struct strobe_error *err)
{
	struct strobe_expr *e;
	struct uterm *u;
	char q[200];
	int r;

	r = strobe_expr_parse(expr, STROBE_EXPR_EVT_ONLY, &e, err);
	if (r == -EINVAL && user)	/* name the text its column counts in */
		strobe_err_prefix(err, "--filter '%s'", expr_quote(expr, strlen(expr), 60, q,
								     sizeof(q)));
	if (r < 0)
		return r;
	if (user) {
		u = realloc(f->uterms, (size_t)(f->nr_uterms + 1) * sizeof(*u));
		if (u)
			f->uterms = u;
		if (!u || !(u[f->nr_uterms].text = strdup(expr))) {
			strobe_expr_free(e);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
		u[f->nr_uterms++].e = e;
	} else {
		strobe_expr_free(e);
	}
	if (f->nr_terms++)
		sb_puts(&f->text, " && ");
	sb_puts(&f->text, "(");
	sb_puts(&f->text, expr);
	sb_puts(&f->text, ")");
	return f->text.failed ? strobe_err(err, -ENOMEM, "out of memory") : 0;
}

int strobe_expr_filter_add(struct strobe_expr_filter *f, const char *expr,
			   struct strobe_error *err)
{
	return add_term(f, expr, true, err);
}

int strobe_expr_filter_check(struct strobe_expr_filter *f, struct strobe_formats *fmts,
			     unsigned flags, strobe_expr_warn_fn warn, void *warn_arg,
			     struct strobe_error *err)
{
	struct strobe_expr_check_opts o = { .size = sizeof(o), .flags = flags, .warn = warn,
					    .warn_arg = warn_arg };
	char what[220], q[200];
	int i, r;

	if (!f)
		return 0;
	if (!fmts)
		fmts = f->fmts;
	give_sysargs(f, fmts);
	for (i = 0; fmts && i < f->nr_uterms; i++) {
		const char *t = f->uterms[i].text;

		snprintf(what, sizeof(what), "--filter '%s'", expr_quote(t, strlen(t), 60, q,
									 sizeof(q)));
		o.what = what;
		if ((r = strobe_expr_check(f->uterms[i].e, fmts, &o, err)) < 0)
			return r;
	}
	return 0;
}

struct check_ctx {
	struct strobe_expr_filter *f;
	enum strobe_expr_option opt;
	struct strobe_error *err;
	struct strobe_expr *e;
};

static int may_match_cb(const struct strobe_format *fmt, void *arg)
{
	struct check_ctx *c = arg;

	return strobe_expr_may_match(c->e, fmt) ? 1 : 0;
}

/* An -e pattern must name an event of the file; a plain --comm name a
 * saved command line. */
static int check_item(void *ctx, const char *item)
{
	struct check_ctx *c = ctx;
	char *text;
	int r;

	if (c->opt == STROBE_EXPR_OPT_COMM) {
		bool known = true;

		if (!has_glob(item)) {
			strobe_tep_lock();
			known = tep_data_pid_from_comm(strobe_formats_tep(c->f->fmts), item,
						       NULL) != NULL;
			strobe_tep_unlock();
		}
		if (!known)
			return strobe_err(c->err, -ENOENT,
					  "no task named '%s' in the file's command lines", item);
		return 0;
	}
	r = strobe_expr_option_text(c->opt, item, &text, c->err);
	if (r < 0)
		return r;
	r = strobe_expr_parse(text, STROBE_EXPR_EVT_ONLY, &c->e, c->err);
	free(text);
	if (r < 0)
		return r;
	r = strobe_formats_each(c->f->fmts, may_match_cb, c);
	strobe_expr_free(c->e);
	c->e = NULL;
	if (r <= 0)
		return strobe_err(c->err, -ENOENT, "no event in the file matches '%s'", item);
	return 0;
}

int strobe_expr_filter_add_any(struct strobe_expr_filter *f, const enum strobe_expr_option *opts,
			       const char *const *values, int n, struct strobe_error *err)
{
	struct sbuf term = { 0 };
	char *text;
	int i, r = 0;

	for (i = 0; i < n && r == 0; i++) {
		r = strobe_expr_option_text(opts[i], values[i], &text, err);
		if (r < 0)
			break;
		if (f->fmts && (opts[i] == STROBE_EXPR_OPT_EVENT ||
				opts[i] == STROBE_EXPR_OPT_COMM)) {
			struct check_ctx c = { f, opts[i], err, NULL };

			r = each_item(values[i], check_item, &c);
			if (r == -ENOMEM)
				r = strobe_err(err, r, "out of memory");
		}
		if (i)
			sb_puts(&term, " || ");
		sb_puts(&term, text);
		free(text);
	}
	if (r == 0 && term.failed)
		r = strobe_err(err, -ENOMEM, "out of memory");
	if (r == 0 && n > 0)
		r = add_term(f, term.s, false, err);
	free(term.s);
	return r;
}

int strobe_expr_filter_add_option(struct strobe_expr_filter *f, enum strobe_expr_option opt,
				  const char *value, struct strobe_error *err)
{
	return strobe_expr_filter_add_any(f, &opt, &value, 1, err);
}

/* ---- compiling: fast paths --------------------------------------------------- */

/* Is o the context reference $evt.$ctx.NAME of context kind `kind`
 * ($evt.$pkt_ctx.cpu_id for the CPU too)? */
static bool is_ctx_ref(const struct xoperand *o, int kind)
{
	if (!o->is_ref || o->ref.scope != SC_EVT || o->ref.is_name || !o->ref.field)
		return false;
	if (o->ref.dyn == DYN_CTX)
		return expr_ctx_kind(o->ref.field) == kind;
	return o->ref.dyn == DYN_PKT_CTX && kind == R_CPU && !strcmp(o->ref.field, "cpu_id");
}

/* Node n as `ctx-ref OP integer` (the reference on the left). */
static bool ctx_cmp(const struct xnode *n, int kind, int *op, int64_t *v)
{
	static const uint8_t mirror[] = {
		[OP_EQ] = OP_EQ, [OP_NE] = OP_NE, [OP_LT] = OP_GT, [OP_LE] = OP_GE,
		[OP_GT] = OP_LT, [OP_GE] = OP_LE, [OP_GLOB] = OP_GLOB,
	};
	const struct xoperand *lit;

	if (n->kind != X_CMP)
		return false;
	if (is_ctx_ref(&n->lhs, kind) && !n->rhs.is_ref) {
		lit = &n->rhs;
		*op = n->op;
	} else if (is_ctx_ref(&n->rhs, kind) && !n->lhs.is_ref) {
		lit = &n->lhs;
		*op = mirror[n->op];
	} else {
		return false;
	}
	if (lit->lit.type != STROBE_EXPR_VAL_INT || lit->lit.is_unsigned)
		return false;
	*v = lit->lit.i;
	return true;
}

/* One CPU term (== K, or >= A && <= B) into mask; false if i is none. */
static bool cpu_term(const struct strobe_expr *e, int i, bool *mask)
{
	const struct xnode *n = &e->nodes[i];
	int op, op2, c;
	int64_t v, v2, lo, hi, k;

	if (ctx_cmp(n, R_CPU, &op, &v)) {
		if (op != OP_EQ || v < 0 || v >= MAX_CPUS)
			return false;
		mask[v] = true;
		return true;
	}
	if (n->kind != X_AND || (c = n->child) < 0 || e->nodes[c].next < 0 ||
	    e->nodes[e->nodes[c].next].next >= 0)
		return false;
	if (!ctx_cmp(&e->nodes[c], R_CPU, &op, &v) ||
	    !ctx_cmp(&e->nodes[e->nodes[c].next], R_CPU, &op2, &v2))
		return false;
	if (op == OP_GE && op2 == OP_LE) {
		lo = v;
		hi = v2;
	} else if (op == OP_LE && op2 == OP_GE) {
		lo = v2;
		hi = v;
	} else {
		return false;
	}
	if (lo < 0 || hi >= MAX_CPUS || lo > hi)
		return false;
	for (k = lo; k <= hi; k++)
		mask[k] = true;
	return true;
}

/* Is conjunct i a set of CPUs?  Then its CPUs are in mask. */
static bool cpu_set(const struct strobe_expr *e, int i, bool *mask)
{
	const struct xnode *n = &e->nodes[i];
	int c;

	memset(mask, 0, MAX_CPUS * sizeof(*mask));
	if (n->kind != X_OR)
		return cpu_term(e, i, mask);
	for (c = n->child; c >= 0; c = e->nodes[c].next)
		if (!cpu_term(e, c, mask))
			return false;
	return true;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Is conjunct i a set of ids of context kind `kind` (R_TID, R_PID)?  Then
 * they are in *out (sorted). */
static int id_set(const struct strobe_expr *e, int i, int kind, int **out, size_t *nr)
{
	const struct xnode *n = &e->nodes[i];
	int first = n->kind == X_OR ? n->child : i, c, op, *t;
	size_t k = 0, cnt = 0;
	int64_t v;

	for (c = first; c >= 0; c = n->kind == X_OR ? e->nodes[c].next : -1) {
		if (!ctx_cmp(&e->nodes[c], kind, &op, &v) || op != OP_EQ || v < 0 ||
		    v > 0x7fffffff)
			return 0;
		cnt++;
	}
	t = malloc(cnt * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (c = first; c >= 0; c = n->kind == X_OR ? e->nodes[c].next : -1) {
		ctx_cmp(&e->nodes[c], kind, &op, &v);
		t[k++] = (int)v;
	}
	qsort(t, cnt, sizeof(*t), cmp_int);
	*out = t;
	*nr = cnt;
	return 1;
}

/* Is conjunct i a set of command names ($evt.$ctx.procname == "x" or =*
 * "x*", ||-ed)?  Then they are in f->comms. */
static int comm_set(struct strobe_expr_filter *f, const struct strobe_expr *e, int i)
{
	const struct xnode *n = &e->nodes[i];
	int first = n->kind == X_OR ? n->child : i, c;
	size_t cnt = 0, k = 0;

	for (c = first; c >= 0; c = n->kind == X_OR ? e->nodes[c].next : -1) {
		const struct xnode *m = &e->nodes[c];

		if (m->kind != X_CMP || (m->op != OP_EQ && m->op != OP_GLOB) ||
		    !is_ctx_ref(&m->lhs, R_PROCNAME) || m->rhs.is_ref ||
		    m->rhs.lit.type != STROBE_EXPR_VAL_STR || memchr(m->rhs.lit.s, 0, m->rhs.lit.len))
			return 0;
		cnt++;
	}
	f->comms = calloc(cnt, sizeof(*f->comms));
	if (!f->comms)
		return -ENOMEM;
	for (c = first; c >= 0; c = n->kind == X_OR ? e->nodes[c].next : -1, k++) {
		f->comms[k].lit = strdup(e->nodes[c].rhs.lit.s);
		f->comms[k].glob = e->nodes[c].op == OP_GLOB;
		f->nr_comms = k + 1;
		if (!f->comms[k].lit)
			return -ENOMEM;
	}
	return 1;
}

static bool comm_in(const struct strobe_expr_filter *f, const char *comm)
{
	size_t i;

	if (!comm)
		return false;
	for (i = 0; i < f->nr_comms; i++)
		if (f->comms[i].glob ? expr_glob(f->comms[i].lit, comm, strlen(comm)) :
		    !strcmp(f->comms[i].lit, comm))
			return true;
	return false;
}

/* Collect the top-level conjuncts of node i (through nested &&). */
static int conjuncts(const struct strobe_expr *e, int i, int *out, int n, int max)
{
	int c;

	if (e->nodes[i].kind != X_AND) {
		if (n < max)
			out[n] = i;
		return n + 1;
	}
	for (c = e->nodes[i].child; c >= 0; c = e->nodes[c].next)
		n = conjuncts(e, c, out, n, max);
	return n;
}

static bool reads_task(const struct xoperand *o)
{
	int k;

	if (!o->is_ref || o->ref.is_name || !o->ref.field ||
	    (o->ref.dyn != DYN_AUTO && o->ref.dyn != DYN_CTX))
		return false;
	k = expr_ctx_kind(o->ref.field);
	return k == R_PID || k == R_PPID || k == R_VTID || k == R_VPID || k == R_PROCNAME ||
	       k == R_CONTAINER || k == R_CONTAINER_ID;
}

int strobe_expr_filter_compile(struct strobe_expr_filter *f, struct strobe_error *err)
{
	struct sbuf rest = { 0 };
	struct strobe_expr *e;
	bool *mask = NULL;
	int *conj = NULL, n, i, r;
	char *node = NULL;
	size_t need;

	uncompile(f);
	if (f->text.failed)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (!f->nr_terms)
		return 0;
	r = strobe_expr_parse(f->text.s, STROBE_EXPR_EVT_ONLY | EXPR_BUILT, &f->whole, err);
	if (r < 0)
		return r;
	e = f->whole;
	for (i = 0; i < e->nr_nodes; i++)
		f->needs_task |= reads_task(&e->nodes[i].lhs) || reads_task(&e->nodes[i].rhs);
	n = conjuncts(e, e->root, NULL, 0, 0);
	conj = malloc((size_t)n * sizeof(*conj));
	mask = malloc(MAX_CPUS * sizeof(*mask));
	if (!conj || !mask)
		goto nomem;
	conjuncts(e, e->root, conj, 0, n);
	for (i = 0; i < n; i++) {
		if (cpu_set(e, conj[i], mask)) {
			int k, hi = -1;

			for (k = 0; k < MAX_CPUS; k++)
				if (mask[k])
					hi = k;
			if (!f->cpus) {
				f->cpus = calloc(MAX_CPUS, sizeof(*f->cpus));
				if (!f->cpus)
					goto nomem;
				memcpy(f->cpus, mask, MAX_CPUS * sizeof(*mask));
				f->nr_cpus = hi + 1;
			} else {
				for (k = 0; k < MAX_CPUS; k++)
					f->cpus[k] &= mask[k];
			}
			continue;
		}
		if (!f->has_tids) {
			r = id_set(e, conj[i], R_TID, &f->tids, &f->nr_tids);
			if (r < 0)
				goto nomem;
			if (r > 0) {
				f->has_tids = true;
				continue;
			}
		}
		if (!f->has_pids) {
			r = id_set(e, conj[i], R_PID, &f->pids, &f->nr_pids);
			if (r < 0)
				goto nomem;
			if (r > 0) {
				f->has_pids = true;
				continue;
			}
		}
		if (!f->comms) {
			r = comm_set(f, e, conj[i]);
			if (r < 0)
				goto nomem;
			if (r > 0)
				continue;
		}
		need = expr_print_node(e, conj[i], NULL, 0) + 1;
		node = malloc(need);
		if (!node)
			goto nomem;
		expr_print_node(e, conj[i], node, need);
		if (rest.len)
			sb_puts(&rest, " && ");
		sb_puts(&rest, "(");
		sb_puts(&rest, node);
		sb_puts(&rest, ")");
		free(node);
		node = NULL;
	}
	if (f->cpus && !f->nr_cpus)	/* no CPU at all: a mask of one false entry */
		f->nr_cpus = 1;
	if (rest.failed)
		goto nomem;
	if (rest.len) {
		r = strobe_expr_parse(rest.s, STROBE_EXPR_EVT_ONLY | EXPR_BUILT, &f->rest, err);
		if (r < 0) {
			free(rest.s);
			free(conj);
			free(mask);
			uncompile(f);
			return r;
		}
		f->types = calloc(NR_TYPES, sizeof(*f->types));
		if (!f->types)
			goto nomem;
	}
	give_sysargs(f, f->fmts);
	free(rest.s);
	free(conj);
	free(mask);
	return 0;
nomem:
	free(rest.s);
	free(conj);
	free(mask);
	uncompile(f);
	return strobe_err(err, -ENOMEM, "out of memory");
}

size_t strobe_expr_filter_print(const struct strobe_expr_filter *f, char *buf, size_t size)
{
	if (!f || !f->whole) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return strobe_expr_print(f->whole, buf, size);
}

int strobe_expr_filter_cpu_mask(const struct strobe_expr_filter *f, const bool **mask)
{
	*mask = f && f->cpus ? f->cpus : NULL;
	return *mask ? f->nr_cpus : 0;
}

bool strobe_expr_filter_needs_task(const struct strobe_expr_filter *f)
{
	return f && f->needs_task;
}

bool strobe_expr_filter_reads(const struct strobe_expr_filter *f, const char *name)
{
	int i, k = expr_ctx_kind(name);

	for (i = 0; f && f->whole && k != R_MISSING && i < f->whole->nr_nodes; i++) {
		const struct xoperand *o[2] = { &f->whole->nodes[i].lhs, &f->whole->nodes[i].rhs };
		int s;

		for (s = 0; s < 2; s++)
			if (reads_task(o[s]) && expr_ctx_kind(o[s]->ref.field) == k)
				return true;
	}
	return false;
}

bool strobe_expr_filter_selects_tasks(const struct strobe_expr_filter *f)
{
	return f && (f->has_tids || f->has_pids || f->comms || f->rest);
}

/* ---- matching -------------------------------------------------------------------- */

static bool id_in(const int *ids, size_t n, int id)
{
	size_t i;

	if (n <= 8) {
		for (i = 0; i < n; i++)
			if (ids[i] == id)
				return true;
		return false;
	}
	return bsearch(&id, ids, n, sizeof(int), cmp_int) != NULL;
}

/* ev's task as the expression would see it (unknown: pid -1, no names). */
static void task_of(const struct strobe_expr_env *env, const struct strobe_event *ev,
		    struct strobe_expr_task *t)
{
	memset(t, 0, sizeof(*t));
	t->tid = ev->pid;
	t->pid = t->ppid = t->vtid = t->vpid = -1;
	if (env && env->task && env->task(env->arg, ev->pid, t) < 0) {
		memset(t, 0, sizeof(*t));
		t->pid = -1;
	}
}

/* rest's verdict for ev's type, from the table. */
static int type_verdict(struct strobe_expr_filter *f, const struct strobe_event *ev)
{
	struct tverdict *t;

	if (ev->type < 0 || ev->type >= NR_TYPES)
		return expr_type_verdict(f->rest, ev->format, ev->type);
	t = &f->types[ev->type];
	if (!t->set || t->fmt != ev->format) {
		t->v = (int8_t)expr_type_verdict(f->rest, ev->format, ev->type);
		t->fmt = ev->format;
		t->set = true;
	}
	return t->v;
}

bool strobe_expr_filter_match(struct strobe_expr_filter *f, const struct strobe_expr_env *env,
			      const struct strobe_event *ev)
{
	if (!f || !f->whole)
		return true;
	if (f->has_tids && !id_in(f->tids, f->nr_tids, ev->pid))
		return false;
	if (f->cpus && (ev->cpu < 0 || ev->cpu >= f->nr_cpus || !f->cpus[ev->cpu]))
		return false;
	if (f->has_pids || f->comms) {
		struct strobe_expr_task t;

		task_of(env, ev, &t);
		if (f->has_pids && (t.pid < 0 || !id_in(f->pids, f->nr_pids, t.pid)))
			return false;
		if (f->comms && !comm_in(f, t.procname))
			return false;
	}
	if (!f->rest)
		return true;
	switch (type_verdict(f, ev)) {
	case 0:
		return false;
	case 1:
		return true;
	default:
		return strobe_expr_match_event(f->rest, env, ev);
	}
}

bool strobe_expr_filter_match_task(struct strobe_expr_filter *f,
				   const struct strobe_expr_env *env,
				   const struct strobe_event *ev,
				   const struct strobe_expr_task *task)
{
	struct strobe_expr_match m = { { ev, task }, { ev, task }, { NULL, NULL } };

	if (!f || !f->whole)
		return true;
	if (f->has_tids && !id_in(f->tids, f->nr_tids, task->tid))
		return false;
	if (f->has_pids && (task->pid < 0 || !id_in(f->pids, f->nr_pids, task->pid)))
		return false;
	if (f->comms && !comm_in(f, task->procname))
		return false;
	if (!f->rest)
		return true;
	switch (type_verdict(f, ev)) {
	case 0:
		return false;
	case 1:
		return true;
	default:
		return strobe_expr_eval(f->rest, env, &m);
	}
}
