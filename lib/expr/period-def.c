/*
 * period-def.c - parsing lttng-analyses' --period and --period-captures
 * arguments:
 *
 *   [NAME [(PARENT)]] : BEGIN_EXPR [: END_EXPR]
 *   NAME : [[KEY =] REF, ...] [: [KEY =] REF, ...]
 *
 * The expressions are compiled by parse.c from the same text, so error
 * columns count from the start of the whole argument.  As lttng: an
 * omitted END_EXPR means the begin expression also ends the period, a
 * PARENT needs a NAME, $parent must be $parent.$begin.$evt and needs a
 * PARENT, and a capture without KEY is named by its reference's text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format-int.h"
#include "expr/expr-int.h"

static int expected(const char *text, size_t len, size_t pos, const char *what,
		    struct strobe_error *err)
{
	char found[200];

	expr_describe(text, len, pos, found, sizeof(found));
	return strobe_err(err, -EINVAL, "column %d: expected %s, found %s", (int)pos + 1, what,
			  found);
}

void strobe_period_def_free(struct strobe_period_def *d)
{
	if (!d)
		return;
	free(d->name);
	free(d->parent);
	strobe_expr_free(d->begin);
	strobe_expr_free(d->end);
	free(d);
}

int strobe_period_def_parse(const char *text, struct strobe_period_def **out,
			    struct strobe_error *err)
{
	struct strobe_period_def *d;
	size_t len, pos = 0, begin_at;
	unsigned flags;
	int rc = -EINVAL;
	char c;

	*out = NULL;
	if (!text)
		return strobe_err(err, -EINVAL, "no period definition");
	len = strlen(text);
	d = calloc(1, sizeof(*d));
	if (!d)
		return strobe_err(err, -ENOMEM, "out of memory");
	c = expr_skip_space(text, len, &pos);
	if (c != ':') {
		d->name = expr_take_ident(text, len, &pos);
		if (!d->name) {
			rc = expected(text, len, pos, "a period name or ':'", err);
			goto bad;
		}
		if (expr_skip_space(text, len, &pos) == '(') {
			pos++;
			expr_skip_space(text, len, &pos);
			d->parent = expr_take_ident(text, len, &pos);
			if (!d->parent) {
				rc = expected(text, len, pos, "a parent period name", err);
				goto bad;
			}
			if (expr_skip_space(text, len, &pos) != ')') {
				rc = expected(text, len, pos, "')' after the parent name", err);
				goto bad;
			}
			pos++;
			if (!strcmp(d->parent, d->name)) {
				rc = strobe_err(err, -EINVAL, "period '%s' cannot be its own parent",
						d->name);
				goto bad;
			}
		}
		if (expr_skip_space(text, len, &pos) != ':') {
			rc = expected(text, len, pos, d->parent ? "':' before the begin expression" :
				      "'(PARENT)' or ':' before the begin expression", err);
			goto bad;
		}
	}
	pos++;
	flags = d->parent ? 0 : STROBE_EXPR_NO_PARENT;
	expr_skip_space(text, len, &pos);
	begin_at = pos;
	if ((rc = expr_parse_at(text, len, &pos, flags, false, &d->begin, err)))
		goto bad;
	if (pos < len && text[pos] == ':') {
		pos++;
		if ((rc = expr_parse_at(text, len, &pos, flags, false, &d->end, err)))
			goto bad;
	} else {
		size_t again = begin_at;

		/* lttng: the begin expression also ends the period */
		if (pos < len) {
			rc = expected(text, len, pos, "an operator (&&, ||), ':' or the end", err);
			goto bad;
		}
		if ((rc = expr_parse_at(text, len, &again, flags, false, &d->end, err)))
			goto bad;
		d->end->again = true;
	}
	if (pos < len) {
		rc = expected(text, len, pos, "an operator (&&, ||) or the end", err);
		goto bad;
	}
	*out = d;
	return 0;
bad:
	strobe_period_def_free(d);
	return rc;
}

static void free_captures(struct strobe_period_capture *c, int n)
{
	int i;

	for (i = 0; c && i < n; i++) {
		free(c[i].key);
		strobe_expr_free(c[i].ref);
	}
	free(c);
}

void strobe_period_captures_free(struct strobe_period_captures *c)
{
	if (!c)
		return;
	free(c->name);
	free_captures(c->begin, c->nr_begin);
	free_captures(c->end, c->nr_end);
	free(c);
}

/* One side's list "[KEY =] REF, ..." (possibly empty) from *pos. */
static int parse_list(const char *text, size_t len, size_t *pos, struct strobe_period_capture **out,
		      int *nr, struct strobe_error *err)
{
	char c = expr_skip_space(text, len, pos);
	int i, rc;

	if (!c || c == ':')
		return 0;
	for (;;) {
		struct strobe_period_capture *cap, *nv;
		size_t at;
		char *key = NULL;

		expr_skip_space(text, len, pos);
		at = *pos;
		if (at < len && text[at] != '$') {
			key = expr_take_ident(text, len, pos);
			if (!key)
				return expected(text, len, at, "a capture (KEY = $evt.FIELD or "
						"$evt.FIELD)", err);
			if (expr_skip_space(text, len, pos) != '=' ||
			    (*pos + 1 < len && (text[*pos + 1] == '=' || text[*pos + 1] == '*'))) {
				free(key);
				return expected(text, len, *pos, "'=' after the capture name", err);
			}
			(*pos)++;
			expr_skip_space(text, len, pos);
		}
		nv = realloc(*out, (size_t)(*nr + 1) * sizeof(*nv));
		if (!nv) {
			free(key);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
		*out = nv;
		cap = &nv[*nr];
		memset(cap, 0, sizeof(*cap));
		(*nr)++;
		cap->key = key;
		at = *pos;
		if ((rc = expr_parse_at(text, len, pos, 0, true, &cap->ref, err)))
			return rc;
		if (!cap->key) {
			size_t n = strobe_expr_print(cap->ref, NULL, 0);

			cap->key = malloc(n + 1);
			if (!cap->key)
				return strobe_err(err, -ENOMEM, "out of memory");
			strobe_expr_print(cap->ref, cap->key, n + 1);
		}
		for (i = 0; i < *nr - 1; i++)
			if (!strcmp((*out)[i].key, cap->key))
				return strobe_err(err, -EINVAL, "column %d: duplicate capture "
						  "name '%s'", (int)at + 1, cap->key);
		if (expr_skip_space(text, len, pos) != ',')
			return 0;
		(*pos)++;
	}
}

int strobe_period_captures_parse(const char *text, struct strobe_period_captures **out,
				 struct strobe_error *err)
{
	struct strobe_period_captures *c;
	size_t len, pos = 0;
	int rc;

	*out = NULL;
	if (!text)
		return strobe_err(err, -EINVAL, "no period captures");
	len = strlen(text);
	c = calloc(1, sizeof(*c));
	if (!c)
		return strobe_err(err, -ENOMEM, "out of memory");
	expr_skip_space(text, len, &pos);
	c->name = expr_take_ident(text, len, &pos);
	if (!c->name) {
		rc = expected(text, len, pos, "a period name", err);
		goto bad;
	}
	if (expr_skip_space(text, len, &pos) != ':') {
		rc = expected(text, len, pos, "':' after the period name", err);
		goto bad;
	}
	pos++;
	if ((rc = parse_list(text, len, &pos, &c->begin, &c->nr_begin, err)))
		goto bad;
	if (expr_skip_space(text, len, &pos) == ':') {
		pos++;
		if ((rc = parse_list(text, len, &pos, &c->end, &c->nr_end, err)))
			goto bad;
	}
	if (expr_skip_space(text, len, &pos)) {
		rc = expected(text, len, pos, c->nr_end || pos > 0 ? "',', ':' or the end" :
			      "the end", err);
		goto bad;
	}
	*out = c;
	return 0;
bad:
	strobe_period_captures_free(c);
	return rc;
}
