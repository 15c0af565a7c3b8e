/*
 * parse.c - lexer, recursive-descent parser and printer of the expression
 * language (lttng-analyses' matching expressions, see strobe-expr(7)).
 *
 * The grammar is lttng-analyses' (lttnganalyses/cli/period_parsing.py),
 * with numbers that may carry a duration unit and hexadecimal numbers:
 *
 *   expr    := and ( '||' and )*            lowest precedence
 *   and     := unary ( '&&' unary )*
 *   unary   := '!' unary | '(' expr ')' | cmp
 *   cmp     := operand op operand           op: == != < <= > >= =*
 *   operand := ref | NUMBER | DURATION | STRING
 *   ref     := ['$parent' '.'] ['$begin' '.'] '$evt' '.'
 *              ( '$name' | [ '$payload'|'$ctx'|'$header'|'$stream_ctx'|
 *                            '$pkt_ctx'|'$pkt_header' '.' ] IDENT )
 *
 * as lttng: a comparison needs a reference on one side; $name compares
 * with ==, != and =* only; =* takes a string pattern; <, <=, >, >= take
 * numbers or references; `a != b` means `!(a == b)`.  Errors are -EINVAL
 * with "column N: expected X, found Y".  The parser stops at the first
 * token that cannot continue an expression, so the period definition
 * parser (period-def.c) can use it for the parts between ':'.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format-int.h"
#include "expr/expr-int.h"

enum tok {
	T_END, T_LP, T_RP, T_NOT, T_AND, T_OR, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_GLOB, T_STR, T_NUM, T_DOLLAR, T_ID, T_DOT, T_OTHER,
};

struct parser {
	const char *text;
	size_t len;
	size_t pos;		/* after the current token */
	size_t tpos;		/* start of the current token */
	enum tok tok;
	unsigned flags;
	struct strobe_expr *e;
	struct strobe_error *err;
	int depth;
};

char expr_skip_space(const char *text, size_t len, size_t *pos)
{
	while (*pos < len && (text[*pos] == ' ' || text[*pos] == '\t' || text[*pos] == '\n' ||
			      text[*pos] == '\r'))
		(*pos)++;
	return *pos < len ? text[*pos] : 0;
}

static bool is_id0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_id(char c)
{
	return is_id0(c) || is_digit(c);
}

char *expr_take_ident(const char *text, size_t len, size_t *pos)
{
	size_t p = *pos;
	char *s;

	if (p >= len || !is_id0(text[p]))
		return NULL;
	while (p < len && is_id(text[p]))
		p++;
	s = strndup(text + *pos, p - *pos);
	if (s)
		*pos = p;
	return s;
}

/* The end of the number token that starts at i (digits, letters, '.',
 * an exponent's sign): what the lexer takes as one T_NUM. */
static size_t num_end(const char *t, size_t len, size_t i)
{
	bool hex;

	if (t[i] == '-' || t[i] == '+')
		i++;
	hex = i + 1 < len && t[i] == '0' && (t[i + 1] | 0x20) == 'x';
	for (i++; i < len; i++) {
		if (is_id(t[i]) || t[i] == '.')
			continue;
		/* an exponent's sign: 1e-5 */
		if (!hex && (t[i] == '-' || t[i] == '+') && (t[i - 1] | 0x20) == 'e')
			continue;
		break;
	}
	return i;
}

/* Length of the UTF-8 character at s[0..n) (1-4), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, need;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < need)
		return 0;
	for (k = 1; k < need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[k] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((need == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (need == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return need;
}

char *expr_quote(const char *s, size_t len, size_t max, char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, k;
	char esc[8];

	if (!size)
		return buf;
	while (i < len) {
		size_t n = utf8_len(u + i, len - i);
		const char *put = s + i;
		size_t pn = n;

		if (i >= max) {
			if (o + 4 <= size - 1) {
				memcpy(buf + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (n == 1 && (u[i] < 0x20 || u[i] == 0x7f)) {
			if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r')
				snprintf(esc, sizeof(esc), "\\%c",
					 u[i] == '\n' ? 'n' : u[i] == '\t' ? 't' : 'r');
			else
				snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
			put = esc;
			pn = strlen(esc);
		} else if (!n) {
			snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
			put = esc;
			pn = strlen(esc);
			n = 1;
		}
		if (o + pn > size - 1)
			break;
		for (k = 0; k < pn; k++)
			buf[o++] = put[k];
		i += n;
	}
	buf[o] = '\0';
	return buf;
}

void expr_describe(const char *text, size_t len, size_t pos, char *buf, size_t size)
{
	size_t n = 1;
	char tmp[160];
	char c1;

	if (pos >= len || !text[pos]) {
		snprintf(buf, size, "end of text");
		return;
	}
	c1 = pos + 1 < len ? text[pos + 1] : 0;
	/* one token's worth: a number whole, else at most 20 bytes */
	if (is_digit(text[pos]) || ((text[pos] == '-' || text[pos] == '+') && is_digit(c1))) {
		n = num_end(text, len, pos) - pos;
	} else if (text[pos] == '$' || is_id(text[pos])) {
		while (pos + n < len && n < 20 && is_id(text[pos + n]))
			n++;
	} else if (text[pos] == '"') {
		while (pos + n < len && n < 19 && text[pos + n] != '"')
			n++;
		if (pos + n < len && text[pos + n] == '"')
			n++;	/* the closing quote */
	} else if (pos + 1 < len && strchr("=&|<>!", text[pos]) && c1 && strchr("=&|*", c1)) {
		n = 2;
	} else {
		n = utf8_len((const unsigned char *)text + pos, len - pos);
		if (!n)
			n = 1;
	}
	/* a string cut inside a character keeps the character whole */
	while (pos + n < len && ((unsigned char)text[pos + n] & 0xc0) == 0x80 && n < 24)
		n++;
	expr_quote(text + pos, n, n, tmp, sizeof(tmp));
	snprintf(buf, size, "'%s'", tmp);
}

/* Scan the token at p->pos. */
static void next(struct parser *p)
{
	const char *t = p->text;
	size_t i;
	char c = expr_skip_space(t, p->len, &p->pos);
	char c1 = p->pos + 1 < p->len ? t[p->pos + 1] : 0;

	i = p->pos;
	p->tpos = i;
	if (!c) {
		p->tok = T_END;
		return;
	}
	if (c == '(' || c == ')' || c == '.') {
		p->tok = c == '(' ? T_LP : c == ')' ? T_RP : T_DOT;
		p->pos = i + 1;
		return;
	}
	if ((c == '&' && c1 == '&') || (c == '|' && c1 == '|')) {
		p->tok = c == '&' ? T_AND : T_OR;
		p->pos = i + 2;
		return;
	}
	if (c == '=' && (c1 == '=' || c1 == '*')) {
		p->tok = c1 == '=' ? T_EQ : T_GLOB;
		p->pos = i + 2;
		return;
	}
	if (c == '!') {
		p->tok = c1 == '=' ? T_NE : T_NOT;
		p->pos = i + (c1 == '=' ? 2 : 1);
		return;
	}
	if (c == '<' || c == '>') {
		bool eq = c1 == '=';

		p->tok = c == '<' ? (eq ? T_LE : T_LT) : (eq ? T_GE : T_GT);
		p->pos = i + (eq ? 2 : 1);
		return;
	}
	if (c == '"') {
		for (i++; i < p->len && t[i] != '"'; i++)
			if (t[i] == '\\' && i + 1 < p->len)
				i++;
		if (i >= p->len) {
			p->tok = T_OTHER;	/* unterminated: reported by the caller */
			p->pos = p->len;
			return;
		}
		p->tok = T_STR;
		p->pos = i + 1;
		return;
	}
	if (is_digit(c) || ((c == '-' || c == '+') && is_digit(c1))) {
		p->tok = T_NUM;
		p->pos = num_end(t, p->len, i);
		return;
	}
	if (c == '$' && p->pos + 1 < p->len && is_id0(c1)) {
		for (i++; i < p->len && is_id(t[i]); i++)
			;
		p->tok = T_DOLLAR;
		p->pos = i;
		return;
	}
	if (is_id0(c)) {
		while (i < p->len && is_id(t[i]))
			i++;
		p->tok = T_ID;
		p->pos = i;
		return;
	}
	p->tok = T_OTHER;
	p->pos = i + 1;
}

static int col(const struct parser *p, size_t pos)
{
	return (int)pos + 1;
}

static int fail(struct parser *p, size_t at, const char *expected)
{
	char found[200];

	if (p->tok == T_OTHER && at < p->len && p->text[at] == '"')
		snprintf(found, sizeof(found), "an unterminated string");
	else
		expr_describe(p->text, p->len, at, found, sizeof(found));
	return strobe_err(p->err, -EINVAL, "column %d: expected %s, found %s", col(p, at),
			  expected, found);
}

static bool tok_is(const struct parser *p, const char *s)
{
	size_t n = strlen(s);

	return p->pos - p->tpos == n && !memcmp(p->text + p->tpos, s, n);
}

static int new_node(struct parser *p, enum xkind kind, size_t at)
{
	struct strobe_expr *e = p->e;
	struct xnode *n;

	if (e->nr_nodes == e->cap_nodes) {
		int cap = e->cap_nodes ? e->cap_nodes * 2 : 8;
		struct xnode *nn = realloc(e->nodes, (size_t)cap * sizeof(*nn));

		if (!nn)
			return strobe_err(p->err, -ENOMEM, "out of memory");
		e->nodes = nn;
		e->cap_nodes = cap;
	}
	n = &e->nodes[e->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = (uint8_t)kind;
	n->col = col(p, at);
	n->child = n->next = n->name_slot = -1;
	return e->nr_nodes++;
}

static const char *const dyn_names[] = {
	[DYN_PAYLOAD] = "$payload", [DYN_CTX] = "$ctx", [DYN_HEADER] = "$header",
	[DYN_STREAM_CTX] = "$stream_ctx", [DYN_PKT_CTX] = "$pkt_ctx",
	[DYN_PKT_HEADER] = "$pkt_header",
};

static int expect_dot(struct parser *p, const char *after)
{
	char what[64];

	if (p->tok != T_DOT) {
		snprintf(what, sizeof(what), "'.' after '%s'", after);
		return fail(p, p->tpos, what);
	}
	next(p);
	return 0;
}

/* ref at the current token (T_DOLLAR) */
static int parse_ref(struct parser *p, struct xref *r)
{
	int rc, d;

	memset(r, 0, sizeof(*r));
	r->scope = SC_EVT;
	r->col = col(p, p->tpos);
	if (tok_is(p, "$parent")) {
		if (p->flags & STROBE_EXPR_EVT_ONLY)
			return strobe_err(p->err, -EINVAL,
					  "column %d: $parent is not allowed here (only $evt)",
					  col(p, p->tpos));
		if (p->flags & STROBE_EXPR_NO_PARENT)
			return strobe_err(p->err, -EINVAL,
					  "column %d: $parent needs a period with a parent "
					  "(NAME(PARENT) : ...)", col(p, p->tpos));
		r->scope = SC_PARENT;
		next(p);
		if ((rc = expect_dot(p, "$parent")))
			return rc;
		if (p->tok != T_DOLLAR || !tok_is(p, "$begin"))
			return fail(p, p->tpos, "'$begin' after '$parent.' (a parent is "
				    "seen through its begin event)");
	}
	if (tok_is(p, "$begin")) {
		if (p->flags & STROBE_EXPR_EVT_ONLY)
			return strobe_err(p->err, -EINVAL,
					  "column %d: $begin is not allowed here (only $evt)",
					  col(p, p->tpos));
		if (r->scope == SC_EVT)
			r->scope = SC_BEGIN;
		next(p);
		if ((rc = expect_dot(p, "$begin")))
			return rc;
	}
	if (p->tok != T_DOLLAR || !tok_is(p, "$evt"))
		return fail(p, p->tpos, r->scope == SC_EVT ?
			    "'$evt', '$begin' or '$parent'" : "'$evt'");
	next(p);
	if ((rc = expect_dot(p, "$evt")))
		return rc;
	if (p->tok == T_DOLLAR && tok_is(p, "$name")) {
		r->is_name = true;
		next(p);
		return 0;
	}
	if (p->tok == T_DOLLAR) {
		for (d = DYN_PAYLOAD; d <= DYN_PKT_HEADER; d++)
			if (tok_is(p, dyn_names[d]))
				break;
		if (d > DYN_PKT_HEADER)
			return fail(p, p->tpos, "a field name, '$name' or a scope ($payload, "
				    "$ctx, $header, $stream_ctx, $pkt_ctx, $pkt_header)");
		r->dyn = (uint8_t)d;
		next(p);
		if ((rc = expect_dot(p, dyn_names[d])))
			return rc;
	}
	if (p->tok != T_ID)
		return fail(p, p->tpos, r->dyn ? "a field name" : "a field name or '$name'");
	r->field = strndup(p->text + p->tpos, p->pos - p->tpos);
	if (!r->field)
		return strobe_err(p->err, -ENOMEM, "out of memory");
	next(p);
	return 0;
}

/* The string literal token unescaped into lit (\" \\ \n \t, \x -> x). */
static int take_string(struct parser *p, struct xoperand *o)
{
	const char *s = p->text + p->tpos + 1;
	size_t n = p->pos - p->tpos - 2, i, k = 0;
	char *out = malloc(n + 1);

	if (!out)
		return strobe_err(p->err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 1 < n) {
			c = s[++i];
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
		}
		out[k++] = c;
	}
	out[k] = '\0';
	o->lit.type = STROBE_EXPR_VAL_STR;
	o->lit.s = out;
	o->lit.len = k;
	return 0;
}

static const struct {
	const char *unit;
	double mult;
} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

/* The number token into lit: integer, double, or a duration in ns. */
static int take_number(struct parser *p, struct xoperand *o)
{
	size_t n = p->pos - p->tpos, i;
	char buf[64], *end;
	const char *unit = NULL;
	double mult = 1, d;
	bool frac = false, hex;

	if (n >= sizeof(buf))
		return fail(p, p->tpos, "a number of at most 63 characters");
	memcpy(buf, p->text + p->tpos, n);
	buf[n] = '\0';
	i = (buf[0] == '-' || buf[0] == '+') ? 1 : 0;
	hex = buf[i] == '0' && (buf[i + 1] == 'x' || buf[i + 1] == 'X');
	if (hex) {
		unsigned long long v;

		errno = 0;
		v = strtoull(buf + i + 2, &end, 16);
		if (end == buf + i + 2 || *end || errno || buf[i + 2] == '-' ||
		    buf[i + 2] == '+' || buf[i + 2] == ' ')
			return fail(p, p->tpos, "a number");
		o->lit.type = STROBE_EXPR_VAL_INT;
		if (buf[0] == '-') {
			if (v > (unsigned long long)INT64_MAX + 1)
				return fail(p, p->tpos, "a number within 64 bits");
			o->lit.i = (int64_t)(0 - v);
		} else {
			o->lit.u = v;
			o->lit.is_unsigned = v > INT64_MAX;
		}
		return 0;
	}
	/* digits [. digits] [e [+-] digits] [unit] */
	while (is_digit(buf[i]))
		i++;
	if (buf[i] == '.') {
		frac = true;
		for (i++; is_digit(buf[i]); i++)
			;
	}
	if ((buf[i] == 'e' || buf[i] == 'E') &&
	    (is_digit(buf[i + 1]) || ((buf[i + 1] == '-' || buf[i + 1] == '+') &&
				      is_digit(buf[i + 2])))) {
		frac = true;
		for (i += 2; is_digit(buf[i]); i++)
			;
	}
	if (buf[i]) {
		size_t u;

		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (!strcmp(buf + i, units[u].unit))
				break;
		if (u == sizeof(units) / sizeof(units[0]))
			return strobe_err(p->err, -EINVAL,
					  "column %d: expected a number or a duration "
					  "(ns, us, ms, s), found '%s'", col(p, p->tpos), buf);
		unit = units[u].unit;
		mult = units[u].mult;
		buf[i] = '\0';
	}
	if (!frac && !unit) {
		errno = 0;
		long long v = strtoll(buf, &end, 10);

		if (!errno && !*end) {
			o->lit.type = STROBE_EXPR_VAL_INT;
			o->lit.i = v;
			return 0;
		}
		if (buf[0] != '-') {
			unsigned long long uv;

			errno = 0;
			uv = strtoull(buf, &end, 10);
			if (!errno && !*end) {
				o->lit.type = STROBE_EXPR_VAL_INT;
				o->lit.u = uv;
				o->lit.is_unsigned = true;
				return 0;
			}
		}
	}
	errno = 0;
	d = strtod(buf, &end);
	if (*end || !isfinite(d))
		return fail(p, p->tpos, "a finite number");
	if (unit) {
		d = round(d * mult);
		if (!(d >= -9.2e18 && d <= 9.2e18))
			return fail(p, p->tpos, "a duration within 292 years");
		o->lit.type = STROBE_EXPR_VAL_INT;
		o->lit.i = (int64_t)d;
		return 0;
	}
	o->lit.type = STROBE_EXPR_VAL_DOUBLE;
	o->lit.d = d;
	return 0;
}

static int parse_operand(struct parser *p, struct xoperand *o)
{
	int rc;
	size_t at = p->tpos;

	memset(o, 0, sizeof(*o));
	o->col = col(p, at);
	if (p->tok == T_DOLLAR) {
		o->is_ref = true;
		return parse_ref(p, &o->ref);
	}
	if (p->tok == T_STR)
		rc = take_string(p, o);
	else if (p->tok == T_NUM)
		rc = take_number(p, o);
	else
		return fail(p, at, "a value ($evt reference, number, duration or string)");
	if (rc)
		return rc;
	o->text = strndup(p->text + at, p->pos - at);
	if (!o->text)
		return strobe_err(p->err, -ENOMEM, "out of memory");
	next(p);
	return 0;
}

static const char *const op_text[] = {
	[OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">",
	[OP_GE] = ">=", [OP_GLOB] = "=*",
};

static void free_operand(struct xoperand *o)
{
	free(o->ref.field);
	free(o->text);
	if (!o->is_ref && o->lit.type == STROBE_EXPR_VAL_STR)
		free((char *)o->lit.s);
	memset(o, 0, sizeof(*o));
}

static bool is_name_ref(const struct xoperand *o)
{
	return o->is_ref && o->ref.is_name;
}

static bool is_str_lit(const struct xoperand *o)
{
	return !o->is_ref && o->lit.type == STROBE_EXPR_VAL_STR;
}

/* lttng's rules on what compares with what; 0 or -EINVAL. */
static int check_cmp(struct parser *p, const struct xoperand *l, int op,
		     const struct xoperand *r, size_t at, size_t opat)
{
	if (!l->is_ref && !r->is_ref)
		return strobe_err(p->err, -EINVAL, "column %d: a comparison needs an $evt "
				  "reference on one side", col(p, at));
	if (op == OP_GLOB && !is_str_lit(r))
		return strobe_err(p->err, -EINVAL, "column %d: '=*' takes a string pattern "
				  "on its right", col(p, opat));
	if ((is_name_ref(l) && !r->is_ref && !is_str_lit(r)) ||
	    (is_name_ref(r) && !l->is_ref && !is_str_lit(l)))
		return strobe_err(p->err, -EINVAL, "column %d: $name compares with a string",
				  col(p, at));
	if ((is_name_ref(l) || is_name_ref(r)) && op != OP_EQ && op != OP_NE && op != OP_GLOB)
		return strobe_err(p->err, -EINVAL, "column %d: $name compares with ==, != or "
				  "=* only", col(p, opat));
	if (op != OP_EQ && op != OP_NE && op != OP_GLOB && (is_str_lit(l) || is_str_lit(r)))
		return strobe_err(p->err, -EINVAL, "column %d: '%s' compares numbers: "
				  "expected a number or a reference, not a string",
				  col(p, opat), op_text[op]);
	return 0;
}

static int parse_cmp(struct parser *p)
{
	struct xoperand lhs = { 0 }, rhs = { 0 };
	size_t at = p->tpos, opat;
	int rc, idx, op;
	struct xnode *n;

	if ((rc = parse_operand(p, &lhs)))
		goto bad;
	opat = p->tpos;
	switch (p->tok) {
	case T_EQ: op = OP_EQ; break;
	case T_NE: op = OP_NE; break;
	case T_LT: op = OP_LT; break;
	case T_LE: op = OP_LE; break;
	case T_GT: op = OP_GT; break;
	case T_GE: op = OP_GE; break;
	case T_GLOB: op = OP_GLOB; break;
	default:
		rc = fail(p, opat, "a comparison operator (==, !=, <, <=, >, >=, =*)");
		goto bad;
	}
	next(p);
	if ((rc = parse_operand(p, &rhs)) || (rc = check_cmp(p, &lhs, op, &rhs, at, opat)))
		goto bad;
	if ((idx = new_node(p, X_CMP, at)) < 0) {
		rc = idx;
		goto bad;
	}
	n = &p->e->nodes[idx];
	n->op = (uint8_t)op;
	n->lhs = lhs;
	n->rhs = rhs;
	return idx;
bad:
	free_operand(&lhs);
	free_operand(&rhs);
	return rc;
}

static int parse_or(struct parser *p);

static int parse_unary(struct parser *p)
{
	size_t at = p->tpos;
	int idx, c, rc;

	if (p->tok == T_NOT || p->tok == T_LP) {
		int max = p->flags & EXPR_BUILT ? EXPR_MAX_DEPTH_BUILT : EXPR_MAX_DEPTH;

		if (++p->depth > max)
			return strobe_err(p->err, -EINVAL, "column %d: nested more than %d "
					  "levels deep", col(p, at), max);
		if (p->tok == T_NOT) {
			next(p);
			if ((c = parse_unary(p)) < 0)
				return c;
			if ((idx = new_node(p, X_NOT, at)) < 0)
				return idx;
			p->e->nodes[idx].child = c;
		} else {
			next(p);
			if ((idx = parse_or(p)) < 0)
				return idx;
			if (p->tok != T_RP) {
				rc = fail(p, p->tpos, "')' or an operator (&&, ||)");
				return rc;
			}
			next(p);
		}
		p->depth--;
		return idx;
	}
	return parse_cmp(p);
}

/* A chain of `sub (tok sub)*` as one n-ary node (or the single child). */
static int parse_chain(struct parser *p, enum tok tok, enum xkind kind,
		       int (*sub)(struct parser *))
{
	size_t at = p->tpos;
	int first, last, c, idx;

	if ((first = sub(p)) < 0)
		return first;
	if (p->tok != tok)
		return first;
	last = first;
	while (p->tok == tok) {
		next(p);
		if ((c = sub(p)) < 0)
			return c;
		p->e->nodes[last].next = c;
		last = c;
	}
	if ((idx = new_node(p, kind, at)) < 0)
		return idx;
	p->e->nodes[idx].child = first;
	return idx;
}

static int parse_and(struct parser *p)
{
	return parse_chain(p, T_AND, X_AND, parse_unary);
}

static int parse_or(struct parser *p)
{
	return parse_chain(p, T_OR, X_OR, parse_and);
}

static int add_slot(struct strobe_expr *e, int node, int side, bool name_cmp)
{
	struct xslot *s = realloc(e->slots, (size_t)(e->nr_slots + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	e->slots = s;
	s[e->nr_slots].node = node;
	s[e->nr_slots].side = side;
	s[e->nr_slots].name_cmp = name_cmp;
	return e->nr_slots++;
}

/* Give every reference, and every $name-vs-literal comparison, a slot. */
static int assign_slots(struct strobe_expr *e)
{
	int i, s;

	for (i = 0; i < e->nr_nodes; i++) {
		struct xnode *n = &e->nodes[i];

		if (n->kind != X_CMP && n->kind != X_REF)
			continue;
		if (n->lhs.is_ref) {
			if ((s = add_slot(e, i, 0, false)) < 0)
				return s;
			n->lhs.ref.slot = s;
		}
		if (n->kind == X_CMP && n->rhs.is_ref) {
			if ((s = add_slot(e, i, 1, false)) < 0)
				return s;
			n->rhs.ref.slot = s;
		}
		if (n->kind == X_CMP && (n->lhs.is_ref != n->rhs.is_ref)) {
			struct xoperand *r = n->lhs.is_ref ? &n->lhs : &n->rhs;

			if (r->ref.is_name) {
				if ((s = add_slot(e, i, n->lhs.is_ref ? 0 : 1, true)) < 0)
					return s;
				n->name_slot = s;
				n->name_side = n->lhs.is_ref ? 0 : 1;
			}
		}
	}
	return 0;
}

int expr_parse_at(const char *text, size_t len, size_t *pos, unsigned flags,
		  bool ref_only, struct strobe_expr **out, struct strobe_error *err)
{
	struct parser p = { .text = text, .len = len, .pos = *pos, .flags = flags, .err = err };
	int rc;

	*out = NULL;
	p.e = calloc(1, sizeof(*p.e));
	if (!p.e)
		return strobe_err(err, -ENOMEM, "out of memory");
	next(&p);
	if (ref_only) {
		int idx;

		if (p.tok != T_DOLLAR) {
			rc = fail(&p, p.tpos, "a reference such as $evt.FIELD");
			goto bad;
		}
		if ((idx = new_node(&p, X_REF, p.tpos)) < 0) {
			rc = idx;
			goto bad;
		}
		p.e->nodes[idx].lhs.is_ref = true;
		if ((rc = parse_ref(&p, &p.e->nodes[idx].lhs.ref)))
			goto bad;
		p.e->root = idx;
		p.e->is_ref = true;
	} else {
		if (p.tok == T_END) {
			rc = fail(&p, p.tpos, "an expression");
			goto bad;
		}
		if ((rc = parse_or(&p)) < 0)
			goto bad;
		p.e->root = rc;
	}
	if ((rc = assign_slots(p.e)) < 0) {
		strobe_err(err, rc, "out of memory");
		goto bad;
	}
	*pos = p.tpos;		/* the token that stopped the parse */
	*out = p.e;
	return 0;
bad:
	strobe_expr_free(p.e);
	return rc < 0 ? rc : -EINVAL;
}

static int parse_whole(const char *text, unsigned flags, bool ref_only,
		       struct strobe_expr **out, struct strobe_error *err)
{
	size_t pos = 0, len;
	int rc;

	*out = NULL;
	if (!text)
		return strobe_err(err, -EINVAL, "no expression");
	len = strlen(text);
	if ((rc = expr_parse_at(text, len, &pos, flags, ref_only, out, err)))
		return rc;
	if (pos < len) {
		char found[200];

		expr_describe(text, len, pos, found, sizeof(found));
		strobe_expr_free(*out);
		*out = NULL;
		return strobe_err(err, -EINVAL, "column %d: expected %s, found %s",
				  (int)pos + 1, ref_only ? "the end" :
				  "an operator (&&, ||) or the end", found);
	}
	return 0;
}

int strobe_expr_parse(const char *text, unsigned flags, struct strobe_expr **out,
		      struct strobe_error *err)
{
	return parse_whole(text, flags, false, out, err);
}

int strobe_expr_parse_ref(const char *text, unsigned flags, struct strobe_expr **out,
			  struct strobe_error *err)
{
	return parse_whole(text, flags, true, out, err);
}

void strobe_expr_free(struct strobe_expr *e)
{
	int i;

	if (!e)
		return;
	expr_cache_clear(e);
	for (i = 0; i < e->nr_nodes; i++) {
		free_operand(&e->nodes[i].lhs);
		free_operand(&e->nodes[i].rhs);
	}
	free(e->nodes);
	free(e->slots);
	free(e);
}

/* ---- printing --------------------------------------------------------------- */

struct out {
	char *buf;
	size_t size, n;
};

static void put(struct out *o, const char *s)
{
	size_t l = strlen(s);

	if (o->n < o->size) {
		size_t k = o->size - o->n - 1 < l ? o->size - o->n - 1 : l;

		memcpy(o->buf + o->n, s, k);
		o->buf[o->n + k] = '\0';
	}
	o->n += l;
}

static void put_ref(struct out *o, const struct xref *r)
{
	if (r->scope == SC_PARENT)
		put(o, "$parent.$begin.");
	else if (r->scope == SC_BEGIN)
		put(o, "$begin.");
	put(o, "$evt.");
	if (r->is_name) {
		put(o, "$name");
		return;
	}
	if (r->dyn) {
		put(o, dyn_names[r->dyn]);
		put(o, ".");
	}
	put(o, r->field);
}

size_t expr_print_ref(const struct xref *r, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	put_ref(&o, r);
	return o.n;
}

static void put_operand(struct out *o, const struct xoperand *x)
{
	if (x->is_ref)
		put_ref(o, &x->ref);
	else
		put(o, x->text);
}

static void put_node(struct out *o, const struct strobe_expr *e, int i, int parent_kind)
{
	const struct xnode *n = &e->nodes[i];
	int c;
	bool paren;

	switch (n->kind) {
	case X_REF:
		put_operand(o, &n->lhs);
		break;
	case X_CMP:
		paren = parent_kind == X_NOT;
		if (paren)
			put(o, "(");
		put_operand(o, &n->lhs);
		put(o, " ");
		put(o, op_text[n->op]);
		put(o, " ");
		put_operand(o, &n->rhs);
		if (paren)
			put(o, ")");
		break;
	case X_NOT:
		put(o, "!");
		put_node(o, e, n->child, X_NOT);
		break;
	case X_AND:
	case X_OR:
		/* an OR inside an AND, and any chain under !, needs parentheses */
		paren = parent_kind == X_NOT || (n->kind == X_OR && parent_kind == X_AND);
		if (paren)
			put(o, "(");
		for (c = n->child; c >= 0; c = e->nodes[c].next) {
			if (c != n->child)
				put(o, n->kind == X_AND ? " && " : " || ");
			put_node(o, e, c, n->kind);
		}
		if (paren)
			put(o, ")");
		break;
	}
}

size_t strobe_expr_print(const struct strobe_expr *e, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	if (e && e->nr_nodes)
		put_node(&o, e, e->root, -1);
	return o.n;
}

size_t expr_print_node(const struct strobe_expr *e, int i, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	if (e && i >= 0 && i < e->nr_nodes)
		put_node(&o, e, i, -1);
	return o.n;
}
