/*
 * webconfig.c - node exporter's web configuration file (the subset strobe
 * serves: TLS certificate and key, basic authentication users with bcrypt
 * hashes), parsed without I/O, and the password check with crypt(3).
 *
 * Why a small parser of our own rather than a YAML library: the file has
 * two mappings of plain strings, and everything else YAML allows
 * (anchors, tags, flow sequences, multi-line scalars) is refused with the
 * line that holds it, so nobody believes a setting took effect that
 * strobe never read.  The text is outside input (tests/fuzz/
 * fuzz_webconfig.c).
 *
 * The check uses libxcrypt's crypt_rn, which knows bcrypt ($2y$, $2b$,
 * $2a$) as node exporter's files hold, and compares the result in
 * constant time.  A user name not in the file still costs one hash, so
 * the time of a failure does not tell whether the name exists.  A
 * success is remembered as a cheap salted digest of the password
 * (sha256-crypt, 1000 rounds, a random salt per config), so Prometheus
 * scraping every second with the same password pays bcrypt once; a
 * wrong password always pays it.
 */
#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "metrics-int.h"

#define MAX_SCALAR 4096

void strobe_webconf_free(struct strobe_webconf *c)
{
	int i;

	if (!c)
		return;
	free(c->cert_file);
	free(c->key_file);
	for (i = 0; i < c->nr_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c);
}

enum section { SEC_NONE, SEC_TLS, SEC_USERS };

struct parser {
	const char *p, *end;	/* the current line, without its newline */
	int line;
	struct strobe_error *err;
};

static int fail(struct parser *ps, const char *why)
{
	return strobe_err(ps->err, -EINVAL, "web config line %d: %s", ps->line, why);
}

/* After a value: spaces, then nothing or a comment. */
static bool rest_empty(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p == end || *p == '#';
}

/*
 * A scalar from p to the line's end into a new string: 'x', "x" (no
 * escapes: a backslash is refused) or plain (up to " #" or the end,
 * trailing spaces cut).  *out NULL with 0 when the value is empty.
 */
static int scalar(struct parser *ps, const char *p, char **out)
{
	const char *e = ps->end, *q;

	*out = NULL;
	while (p < e && *p == ' ')
		p++;
	if (p == e || *p == '#')
		return 0;
	if (*p == '\'' || *p == '"') {
		q = memchr(p + 1, *p, e - p - 1);
		if (!q)
			return fail(ps, "a quote is not closed");
		if (memchr(p + 1, '\\', q - p - 1) && *p == '"')
			return fail(ps, "escapes in quoted strings are not supported");
		if (!rest_empty(q + 1, e))
			return fail(ps, "text after a quoted value");
		p++;
	} else {
		if (strchr("{}[]&*!|>%@`,", *p))
			return fail(ps, "only plain or quoted strings are supported here");
		for (q = p; q < e && !(*q == '#' && q > p && q[-1] == ' '); q++)
			;
		while (q > p && q[-1] == ' ')
			q--;
	}
	if (q - p > MAX_SCALAR)
		return fail(ps, "value too long");
	*out = strndup(p, q - p);
	return *out ? 0 : strobe_err(ps->err, -ENOMEM, "out of memory");
}

/* "key:" at p (plain, no spaces); *val after the colon. */
static int key(struct parser *ps, const char *p, char *k, size_t ksize, const char **val)
{
	const char *c = p;

	while (c < ps->end && *c != ':' && *c != ' ' && *c != '\t' && *c != '#' && *c != '"' &&
	       *c != '\'')
		c++;
	if (c == p || c == ps->end || *c != ':' || (c + 1 < ps->end && c[1] != ' '))
		return fail(ps, "expected 'key: value'");
	if ((size_t)(c - p) >= ksize)
		return fail(ps, "key too long");
	memcpy(k, p, c - p);
	k[c - p] = '\0';
	*val = c + 1;
	return 0;
}

static int set_once(struct parser *ps, char **field, char *v, const char *what)
{
	if (*field) {
		free(v);
		return strobe_err(ps->err, -EINVAL, "web config line %d: %s given twice", ps->line, what);
	}
	*field = v;
	return 0;
}

static int parse_line(struct parser *ps, struct strobe_webconf *c, enum section *sec,
		      int *child_indent, bool *seen_tls, bool *seen_users)
{
	const char *p = ps->p, *val = NULL;
	char k[256], *v = NULL;
	int indent, r, i;

	for (; p < ps->end; p++)
		if ((unsigned char)*p < 0x20 ? *p != '\t' : *p == 0x7f)
			return fail(ps, "a control character");
	p = ps->p;
	while (p < ps->end && *p == ' ')
		p++;
	if (p == ps->end || *p == '#')
		return 0;
	if (p < ps->end && *p == '\t')
		return fail(ps, "a tab in the indentation");
	if (p - ps->p == 0 && (ps->end - p == 3 && !memcmp(p, "---", 3)))
		return 0;		/* a document start */
	indent = p - ps->p;
	if ((r = key(ps, p, k, sizeof(k), &val)) < 0)
		return r;
	if (!indent) {
		bool *seen;

		if (!strcmp(k, "tls_server_config")) {
			*sec = SEC_TLS;
			seen = seen_tls;
		} else if (!strcmp(k, "basic_auth_users")) {
			*sec = SEC_USERS;
			seen = seen_users;
		} else {
			return strobe_err(ps->err, -EINVAL,
					  "web config line %d: '%s' is not supported (only "
					  "tls_server_config and basic_auth_users)", ps->line, k);
		}
		if (*seen)
			return fail(ps, "a section given twice");
		*seen = true;
		*child_indent = 0;
		while (val < ps->end && *val == ' ')
			val++;
		if (ps->end - val >= 2 && !memcmp(val, "{}", 2) && rest_empty(val + 2, ps->end))
			*sec = SEC_NONE;	/* an empty mapping */
		else if (!rest_empty(val, ps->end))
			return fail(ps, "a section holds a mapping on the lines below it");
		return 0;
	}
	if (*sec == SEC_NONE)
		return fail(ps, "an indented line outside a section");
	if (!*child_indent)
		*child_indent = indent;
	else if (indent != *child_indent)
		return fail(ps, "indentation differs from the line above");
	if ((r = scalar(ps, val, &v)) < 0)
		return r;
	if (!v || !*v) {
		free(v);
		return fail(ps, "a value is missing");
	}
	if (*sec == SEC_TLS) {
		if (!strcmp(k, "cert_file"))
			return set_once(ps, &c->cert_file, v, "cert_file");
		if (!strcmp(k, "key_file"))
			return set_once(ps, &c->key_file, v, "key_file");
		free(v);
		return strobe_err(ps->err, -EINVAL,
				  "web config line %d: tls_server_config: '%s' is not supported "
				  "(only cert_file and key_file)", ps->line, k);
	}
	for (i = 0; i < c->nr_users; i++)
		if (!strcmp(c->users[i].name, k)) {
			free(v);
			return fail(ps, "a user given twice");
		}
	if (c->nr_users == STROBE_WEBCONF_MAX_USERS) {
		free(v);
		return fail(ps, "too many users");
	}
	c->users[c->nr_users].hash = v;
	if (!(c->users[c->nr_users].name = strdup(k))) {
		free(v);
		c->users[c->nr_users].hash = NULL;
		return strobe_err(ps->err, -ENOMEM, "out of memory");
	}
	c->nr_users++;
	return 0;
}

int strobe_webconf_parse(const char *text, size_t len, struct strobe_webconf **out,
			 struct strobe_error *err)
{
	struct parser ps = { .p = text, .end = text, .line = 0, .err = err };
	const char *end = text + len;
	struct strobe_webconf *c;
	enum section sec = SEC_NONE;
	bool seen_tls = false, seen_users = false;
	int child = 0, r = 0;

	*out = NULL;
	if (len > STROBE_WEBCONF_MAX_TEXT)
		return strobe_err(err, -EINVAL, "web config: too large (%zu bytes, at most %d)",
				  len, STROBE_WEBCONF_MAX_TEXT);
	if (memchr(text, '\0', len))
		return strobe_err(err, -EINVAL, "web config: a NUL byte (not a text file)");
	c = calloc(1, sizeof(*c));
	if (!c)
		return strobe_err(err, -ENOMEM, "out of memory");
	while (ps.p < end) {
		const char *nl = memchr(ps.p, '\n', end - ps.p);

		ps.end = nl ? nl : end;
		ps.line++;
		if (ps.end > ps.p && ps.end[-1] == '\r')
			ps.end--;
		r = parse_line(&ps, c, &sec, &child, &seen_tls, &seen_users);
		if (r < 0)
			break;
		ps.p = nl ? nl + 1 : end;
	}
	if (!r && (!c->cert_file) != (!c->key_file))
		r = strobe_err(err, -EINVAL, "web config: tls_server_config needs both cert_file "
			       "and key_file");
	if (r < 0) {
		strobe_webconf_free(c);
		return r;
	}
	c->has_tls = c->cert_file != NULL;
	*out = c;
	return 0;
}

static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

/* The config's salt for the digests of successes: random, per config. */
static bool salt_ready(struct strobe_webconf *c)
{
	static const char abc[] =
		"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	unsigned char r[16];
	int i;

	if (c->salt[0])
		return true;
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return false;
	memcpy(c->salt, "$5$rounds=1000$", 15);
	for (i = 0; i < 16; i++)
		c->salt[15 + i] = abc[r[i] & 63];
	c->salt[31] = '\0';
	return true;
}

bool strobe_webconf_check(struct strobe_webconf *c, const char *user, const char *password)
{
	struct strobe_webconf_user *u = NULL;
	struct crypt_data *cd;
	const char *h, *d = NULL;
	bool ok;
	int i;

	if (!c || !c->nr_users || !user || !password)
		return false;
	for (i = 0; i < c->nr_users; i++)
		if (!strcmp(c->users[i].name, user))
			u = &c->users[i];
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	if (u && u->ok_digest[0] && salt_ready(c)) {
		d = crypt_rn(password, c->salt, cd, sizeof(*cd));
		if (d && d[0] != '*' && same(d, u->ok_digest)) {
			explicit_bzero(cd, sizeof(*cd));
			free(cd);
			return true;
		}
	}
	/* an unknown name still costs a hash (the first user's) */
	h = crypt_rn(password, u ? u->hash : c->users[0].hash, cd, sizeof(*cd));
	ok = u && h && h[0] != '*' && same(h, u->hash);
	if (ok && salt_ready(c)) {
		d = crypt_rn(password, c->salt, cd, sizeof(*cd));
		if (d && d[0] != '*' && strlen(d) < sizeof(u->ok_digest))
			strcpy(u->ok_digest, d);
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}
