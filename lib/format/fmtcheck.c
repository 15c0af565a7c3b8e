/*
 * fmtcheck.c - strict validation of event format text before it reaches
 * libtraceevent.
 *
 * Why: a trace file carries the format of every event as text, and the
 * reader hands that text to libtraceevent's tep_parse_event(), which is
 * written for the kernel's own output and not hardened against damaged
 * text.  Fuzzing (tests/fuzz/fuzz_format.c) found plain-ASCII formats
 * that make libtraceevent 1.7 crash while parsing, e.g. `sizeof(` followed
 * by a string literal (strtoul on NULL), or divide by zero, or read out of
 * bounds when printing.  Rather than patch the library, the reader only
 * passes formats that look like what the kernel writes:
 *
 *   name: NAME
 *   ID: NUMBER
 *   format:
 *   <TAB>field:TYPE NAME[N];<TAB>offset:N;<TAB>size:N;<TAB>signed:N;
 *   ...                                  (blank lines between groups)
 *   print fmt: "text" "more text", ARG, ARG ...
 *
 * The fields must lie in 64 KiB.  The print arguments are tokenized like
 * C and must use only constructs that libtraceevent parses and evaluates
 * safely: brackets balanced and nested at most MAX_DEPTH deep; `/` and `%`
 * only by a non-zero number or sizeof(TYPE); sizeof only over type words;
 * REC->NAME only for declared fields; the __get_*() helpers only over one
 * declared __data_loc/__rel_loc field; __print_hex/_str with 2 arguments,
 * __print_array with 3, __print_flags with at least 2; `{ }` only inside
 * __print_flags/__print_symbolic, with at most one comma; array
 * subscripts only by a number (inside the array for REC->NAME[N]); GNU
 * statement expressions `({ ... })`, which libtraceevent refuses cleanly,
 * only checked for balance.  Every format of the running kernel passes
 * (tests/unit/test_fault_format.c checks that against this machine's
 * tracefs, and holds the rejected constructs).  What libtraceevent does
 * with a field's bytes at print time is guarded separately
 * (lib/output/bounds.c).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmtcheck.h"

#define MAX_FIELDS	512
#define MAX_DEPTH	32
#define MAX_NAME	64

struct field_name {
	char name[MAX_NAME];
	unsigned arraylen;	/* 0: not a fixed array */
	bool dynamic;		/* __data_loc / __rel_loc */
};

struct fmt {
	const char *p, *end;
	struct field_name *fields;
	int nr_fields;
	const char *why;
};

static bool fail(struct fmt *f, const char *why)
{
	if (!f->why)
		f->why = why;
	return false;
}

/* Consume `s` at the cursor if it is there. */
static bool eat(struct fmt *f, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(f->end - f->p) < n || memcmp(f->p, s, n))
		return false;
	f->p += n;
	return true;
}

/* A decimal number up to `max`. */
static bool eat_uint(struct fmt *f, unsigned long max, unsigned long *v)
{
	unsigned long n = 0;
	const char *s = f->p;

	while (f->p < f->end && isdigit((unsigned char)*f->p) && f->p - s < 10)
		n = n * 10 + (unsigned long)(*f->p++ - '0');
	if (f->p == s || n > max || (f->p < f->end && isdigit((unsigned char)*f->p)))
		return false;
	*v = n;
	return true;
}

/* The rest of the line must be a non-empty run of printable characters. */
static bool eat_line_text(struct fmt *f)
{
	const char *s = f->p;

	while (f->p < f->end && *f->p != '\n') {
		if (!isprint((unsigned char)*f->p))
			return false;
		f->p++;
	}
	return f->p > s && eat(f, "\n");
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * "<TAB>field:TYPE NAME;<TAB>offset:N;<TAB>size:N;<TAB>signed:N;\n"
 * ("field special:" and a missing signed: come from old kernels).
 */
static bool field_line(struct fmt *f)
{
	const char *decl, *semi, *q, *name_end, *name;
	struct field_name *fn;
	unsigned long off, size, sign, alen = 0;

	if (!eat(f, "\tfield:") && !eat(f, "\tfield special:"))
		return fail(f, "bad field line");
	decl = f->p;
	semi = memchr(decl, ';', (size_t)(f->end - decl));
	if (!semi || semi == decl)
		return fail(f, "bad field declaration");
	for (q = decl; q < semi; q++)
		if (!isprint((unsigned char)*q))
			return fail(f, "bad field declaration");
	/* NAME is the last identifier, before an optional [N] */
	name_end = semi;
	if (name_end[-1] == ']') {
		const char *open = name_end - 1;

		while (open > decl && *open != '[')
			open--;
		if (*open != '[')
			return fail(f, "bad array in field declaration");
		for (q = open + 1; q < name_end - 1; q++)
			if (!is_ident(*q))
				return fail(f, "bad array size in field declaration");
		if (open + 1 < name_end - 1 && isdigit((unsigned char)open[1])) {
			alen = strtoul(open + 1, NULL, 10);
			if (!alen || alen > 65536)
				return fail(f, "bad array size in field declaration");
		}
		name_end = open;
	}
	name = name_end;
	while (name > decl && is_ident(name[-1]))
		name--;
	if (name == name_end || name_end - name >= MAX_NAME || !is_ident_start(*name))
		return fail(f, "bad field name");
	f->p = semi + 1;
	if (!eat(f, "\toffset:") || !eat_uint(f, 65535, &off) || !eat(f, ";") ||
	    !eat(f, "\tsize:") || !eat_uint(f, 65535, &size) || !eat(f, ";"))
		return fail(f, "bad field offset or size");
	if (off + size > 65536)
		return fail(f, "field beyond 64 KiB");
	if (alen && size % alen)
		return fail(f, "field size not a multiple of its array size");
	if (eat(f, "\tsigned:") && (!eat_uint(f, 1, &sign) || !eat(f, ";")))
		return fail(f, "bad signed: value");
	while (f->p < f->end && (*f->p == ' ' || *f->p == '\t'))
		f->p++;
	if (!eat(f, "\n"))
		return fail(f, "junk after a field");
	if (f->nr_fields >= MAX_FIELDS)
		return fail(f, "too many fields");
	fn = &f->fields[f->nr_fields++];
	memcpy(fn->name, name, (size_t)(name_end - name));
	fn->name[name_end - name] = '\0';
	fn->arraylen = (unsigned)alen;
	fn->dynamic = (semi - decl > 10 && (!memcmp(decl, "__data_loc", 10) ||
					   !memcmp(decl, "__rel_loc", 9)));
	return true;
}

static const struct field_name *find_field(const struct fmt *f, const char *s, size_t n)
{
	int i;

	for (i = 0; i < f->nr_fields; i++)
		if (strlen(f->fields[i].name) == n && !memcmp(f->fields[i].name, s, n))
			return &f->fields[i];
	return NULL;
}

/* ---- print fmt arguments --------------------------------------------- */

enum tok_kind { T_END, T_STR, T_CHAR, T_NUM, T_IDENT, T_PUNCT, T_ARROW, T_BAD };

struct tok {
	enum tok_kind kind;
	const char *s;
	size_t n;
};

/* Next token of the print fmt line (which ends at f->end). */
static struct tok next_tok(struct fmt *f)
{
	struct tok t = { T_END, NULL, 0 };
	const char *p = f->p;

	while (p < f->end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	t.s = p;
	if (p >= f->end) {
		f->p = p;
		return t;
	}
	if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (p < f->end && *p != q) {
			if (!isprint((unsigned char)*p) && *p != '\t' && *p != '\n')
				break;
			if (*p == '\\' && p + 1 < f->end)
				p++;
			p++;
		}
		if (p >= f->end || *p != q) {
			t.kind = T_BAD;
		} else {
			t.kind = q == '"' ? T_STR : T_CHAR;
			p++;
		}
	} else if (isdigit((unsigned char)*p)) {
		while (p < f->end && is_ident(*p))
			p++;
		t.kind = T_NUM;
	} else if (is_ident_start(*p)) {
		while (p < f->end && is_ident(*p))
			p++;
		t.kind = T_IDENT;
	} else if (*p == '-' && p + 1 < f->end && p[1] == '>') {
		p += 2;
		t.kind = T_ARROW;
	} else if (strchr("()[]{},.?:+-*/%<>=!&|^~", *p)) {
		p++;
		t.kind = T_PUNCT;
	} else {
		p++;
		t.kind = T_BAD;
	}
	t.n = (size_t)(p - t.s);
	f->p = p;
	return t;
}

static bool tok_is(const struct tok *t, const char *s)
{
	return t->n == strlen(s) && !memcmp(t->s, s, t->n);
}

static bool punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && *t->s == c;
}

/* A number literal's value (suffixes U, L ignored); false if malformed. */
static bool num_value(const struct tok *t, unsigned long long *v)
{
	char buf[32], *end;
	size_t n = t->n;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, t->s, n);
	buf[n] = '\0';
	while (n && strchr("uUlL", buf[n - 1]))
		buf[--n] = '\0';
	*v = strtoull(buf, &end, 0);
	return n && *end == '\0';
}

enum helper {
	H_NONE, H_GET_FIELD, H_FLAGS, H_SYMBOLIC, H_HEX, H_ARRAY, H_SIZEOF, H_OTHER,
};

static enum helper helper_kind(const struct tok *t)
{
	static const char *const get_field[] = {
		"__get_str", "__get_rel_str", "__get_dynamic_array",
		"__get_rel_dynamic_array", "__get_dynamic_array_len",
		"__get_rel_dynamic_array_len", "__get_bitmask", "__get_rel_bitmask",
		"__get_cpumask", "__get_rel_cpumask", "__get_sockaddr",
		"__get_rel_sockaddr",
	};
	size_t i;

	for (i = 0; i < sizeof(get_field) / sizeof(get_field[0]); i++)
		if (tok_is(t, get_field[i]))
			return H_GET_FIELD;
	if (tok_is(t, "__print_flags"))
		return H_FLAGS;
	if (tok_is(t, "__print_symbolic") || tok_is(t, "__print_symbolic_u64") ||
	    tok_is(t, "__print_flags_u64"))
		return tok_is(t, "__print_flags_u64") ? H_FLAGS : H_SYMBOLIC;
	if (tok_is(t, "__print_hex") || tok_is(t, "__print_hex_str"))
		return H_HEX;
	if (tok_is(t, "__print_array"))
		return H_ARRAY;
	if (tok_is(t, "sizeof"))
		return H_SIZEOF;
	return H_OTHER;
}

struct level {
	char open;		/* '(' '[' '{' */
	enum helper helper;	/* the call this '(' opens, H_NONE if none */
	int commas;
	bool in_flags;		/* '{' inside __print_flags/__print_symbolic */
};

/* The divisor after '/' or '%': a non-zero number, sizeof, or (number). */
static bool safe_divisor(struct fmt *f)
{
	const char *save = f->p;
	struct tok t = next_tok(f);
	unsigned long long v;
	bool paren = punct(&t, '(');

	if (paren)
		t = next_tok(f);
	if (t.kind == T_IDENT && tok_is(&t, "sizeof") && !paren) {
		f->p = save;	/* checked as a helper by the caller's loop */
		return true;
	}
	if (t.kind != T_NUM || !num_value(&t, &v) || !v)
		return false;
	if (paren) {
		t = next_tok(f);
		if (!punct(&t, ')'))
			return false;
	}
	f->p = save;
	return true;
}

/* After "({": skip to the matching '}' with brackets balanced. */
static bool skip_statement_expr(struct fmt *f)
{
	char stack[MAX_DEPTH];
	int depth = 0;
	struct tok t;

	stack[depth++] = '}';
	while ((t = next_tok(f)).kind != T_END) {
		char c = *t.s;

		if (t.kind == T_BAD && c != ';' && c != '=' && c != '#')
			return false;
		if (t.kind != T_PUNCT && t.kind != T_BAD)
			continue;
		if (c == '(' || c == '[' || c == '{') {
			if (depth == MAX_DEPTH)
				return false;
			stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
		} else if (c == ')' || c == ']' || c == '}') {
			if (stack[--depth] != c)
				return false;
			if (!depth)
				return true;
		}
	}
	return false;
}

static bool print_args(struct fmt *f)
{
	struct level st[MAX_DEPTH];
	int depth = 0;
	struct tok t, prev = { T_END, NULL, 0 };
	const struct field_name *last_field = NULL;
	unsigned long long v;
	bool in_cast = false;	/* in "(TYPE WORDS": names may follow names */

	/* the format: one or more string literals */
	t = next_tok(f);
	if (t.kind != T_STR)
		return fail(f, "print fmt does not start with a string");
	for (;;) {
		t = next_tok(f);
		if (t.kind != T_STR)
			break;
	}
	if (t.kind == T_END)
		return true;
	if (!punct(&t, ','))
		return fail(f, "junk after the print fmt string");

	for (;;) {
		prev = t;
		t = next_tok(f);
		if (t.kind == T_END)
			break;
		if (t.kind == T_BAD)
			return fail(f, "bad character or unterminated string in print fmt");
		if (t.kind != T_IDENT && !punct(&t, '*'))
			in_cast = false;
		if (t.kind == T_ARROW && !(prev.kind == T_IDENT && tok_is(&prev, "REC")))
			return fail(f, "'->' not after REC in print fmt");
		if (t.kind == T_IDENT && tok_is(&t, "REC")) {
			struct tok a = next_tok(f), n;

			/* "(REC)->name" */
			if (punct(&a, ')') && depth && st[depth - 1].open == '(' &&
			    st[depth - 1].helper == H_NONE && punct(&prev, '(')) {
				depth--;
				a = next_tok(f);
			}
			n = next_tok(f);
			if (a.kind != T_ARROW || n.kind != T_IDENT ||
			    !(last_field = find_field(f, n.s, n.n)))
				return fail(f, "REC-> names no field of the format");
			t = n;
			continue;
		}
		if (t.kind == T_IDENT) {
			const char *save = f->p;
			struct tok open = next_tok(f);
			enum helper h;

			f->p = save;
			/* two names in a row only in a cast, "(unsigned long)":
			 * libtraceevent crashes on "? x : char REC->y" */
			if (open.kind == T_IDENT) {
				if (!punct(&prev, '(') && !in_cast)
					return fail(f, "two names in a row outside a cast in print fmt");
				in_cast = true;
			}
			if (!punct(&open, '('))
				goto other;
			h = helper_kind(&t);
			if (h == H_GET_FIELD) {
				struct tok o = next_tok(f), n = next_tok(f), c = next_tok(f);
				const struct field_name *fn = NULL;

				if (n.kind == T_IDENT)
					fn = find_field(f, n.s, n.n);
				if (!punct(&o, '(') || !fn || !fn->dynamic || !punct(&c, ')'))
					return fail(f, "__get_*() of no field of the format");
				last_field = NULL;
				t = c;
				continue;
			}
			if (h == H_SIZEOF) {
				struct tok o = next_tok(f), n;

				if (!punct(&o, '('))
					return fail(f, "bad sizeof");
				n = next_tok(f);
				if (n.kind != T_IDENT)
					return fail(f, "sizeof of no type");
				do {
					n = next_tok(f);
				} while (n.kind == T_IDENT || punct(&n, '*'));
				if (!punct(&n, ')'))
					return fail(f, "sizeof of no type");
				t = n;
				continue;
			}
			if (depth == MAX_DEPTH)
				return fail(f, "print fmt nested too deep");
			next_tok(f);
			st[depth++] = (struct level){ '(', h, 0, false };
			t = open;
			continue;
		}
other:
		if (t.kind != T_PUNCT)
			continue;
		switch (*t.s) {
		case '(':
		case '[':
		case '{':
			if (depth == MAX_DEPTH)
				return fail(f, "print fmt nested too deep");
			if (*t.s == '{' && punct(&prev, '(')) {
				/* a GNU statement expression, "({ ...; })": libtraceevent
				 * refuses it at the '{'; only check it ends */
				if (!skip_statement_expr(f))
					return fail(f, "unterminated ({ }) in print fmt");
				t = (struct tok){ T_PUNCT, "}", 1 };
				break;
			}
			if (*t.s == '{' && (depth == 0 || st[depth - 1].open != '(' ||
					    (st[depth - 1].helper != H_FLAGS &&
					     st[depth - 1].helper != H_SYMBOLIC)))
				return fail(f, "'{' outside __print_flags/__print_symbolic");
			if (*t.s == '[') {
				struct tok n = next_tok(f), c = next_tok(f);

				if (n.kind != T_NUM || !num_value(&n, &v) || !punct(&c, ']'))
					return fail(f, "array subscript is not a number");
				if (prev.kind == T_IDENT && last_field && prev.s &&
				    find_field(f, prev.s, prev.n) == last_field &&
				    v >= (last_field->arraylen ? last_field->arraylen : 1))
					return fail(f, "array subscript out of bounds");
				t = c;
				break;
			}
			st[depth++] = (struct level){ *t.s, H_NONE, 0, *t.s == '{' };
			break;
		case ')':
		case ']':
		case '}': {
			char want = *t.s == ')' ? '(' : *t.s == ']' ? '[' : '{';
			struct level *l;

			if (!depth || st[depth - 1].open != want)
				return fail(f, "unbalanced brackets in print fmt");
			l = &st[--depth];
			if ((l->helper == H_HEX && l->commas != 1) ||
			    (l->helper == H_ARRAY && l->commas != 2) ||
			    (l->helper == H_FLAGS && l->commas < 1) ||
			    (l->in_flags && l->commas > 1))
				return fail(f, "wrong number of arguments in print fmt helper");
			break;
		}
		case ',':
			if (depth)
				st[depth - 1].commas++;
			break;
		case '.':
			/* a member access: libtraceevent dereferences NULL on
			 * "REC->a[4].x" and "REC->a[4]. (void *)..." (fuzz_format);
			 * no kernel format has one outside a ({ }) */
			return fail(f, "'.' in print fmt arguments");
		case '/':
		case '%':
			if (!safe_divisor(f))
				return fail(f, "division by something else than a non-zero number");
			break;
		}
	}
	if (depth)
		return fail(f, "unbalanced brackets in print fmt");
	return true;
}

bool strobe_format_check(const char *text, size_t n, const char **why)
{
	struct field_name fields[MAX_FIELDS];
	struct fmt f = { text, text + n, fields, 0, NULL };
	unsigned long id;
	size_t i;

	for (i = 0; i < n; i++)
		if ((!isprint((unsigned char)text[i]) && text[i] != '\t' && text[i] != '\n'))
			return why ? (*why = "not plain text", false) : false;
	if (!eat(&f, "name: ") || !eat_line_text(&f))
		fail(&f, "no 'name:' line");
	else if (!eat(&f, "ID: ") || !eat_uint(&f, 65535, &id) || !eat(&f, "\n"))
		fail(&f, "no 'ID:' line");
	else if (!eat(&f, "format:\n"))
		fail(&f, "no 'format:' line");
	while (!f.why && f.p < f.end && !eat(&f, "print fmt: ")) {
		if (eat(&f, "\n"))
			continue;
		field_line(&f);
	}
	if (!f.why) {
		/* the print fmt is the rest (its strings may hold newlines) */
		while (f.end > f.p && isspace((unsigned char)f.end[-1]))
			f.end--;
		if (!f.why && f.p >= f.end)
			fail(&f, "no print fmt");
		if (!f.why)
			print_args(&f);
	}
	if (why)
		*why = f.why;
	return !f.why;
}
