/*
 * table.c - the model's table as stored in a trace file: containers with
 * their names, the tasks alive when the recording started, and the tasks
 * that appeared during it, so that a file read elsewhere, after the
 * containers are gone, still names them.
 *
 * The format is line-based text, versioned by its first line, chosen so a
 * person can read it with `strings` and a parser can stay small:
 *
 *   strobe-model 1
 *   C <tab> index <tab> runtime <tab> id <tab> name <tab> pod_uid
 *   T <tab> tid <tab> tgid <tab> ppid <tab> comm <tab> container index
 *     <tab> nspid list <tab> nstgid list <tab> pidns <tab> mntns
 *     <tab> cgroupns <tab> starttime <tab> cgroup path
 *   A <tab> (as T)
 *
 * C lines come before the tasks that use them; their index counts up from
 * 2 (0 is "unknown", 1 is "host").  T is a task alive at the start, A one
 * that appeared during the recording (applied to the first fork of that
 * tid the events show, or to the tid's first sighting).  PID lists are
 * comma-separated, host PID first, empty when unknown; -1 and 0 mean
 * unknown as in struct strobe_task.  In strings, bytes below 0x20, 0x7f
 * and '\' are written as \xHH.  A reader skips lines it does not know
 * (new line kinds, extra trailing fields) and malformed lines; a new major
 * version ("strobe-model 2") means the layout changed and is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>

#include "model-int.h"

#define TABLE_MAGIC "strobe-model "
#define TABLE_VERSION 1
#define MAX_FIELDS 16

/* ---- writing -------------------------------------------------------------- */

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void buf_need(struct buf *b, size_t n)
{
	char *p;
	size_t cap;

	if (b->oom || b->len + n + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void __attribute__((format(printf, 2, 3))) bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_need(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A tab, then s escaped. */
static void put_str(struct buf *b, const char *s)
{
	buf_need(b, 1 + 4 * strlen(s));
	if (b->oom)
		return;
	b->p[b->len++] = '\t';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			b->len += (size_t)sprintf(b->p + b->len, "\\x%02x", c);
		else
			b->p[b->len++] = (char)c;
	}
	b->p[b->len] = '\0';
}

static void put_list(struct buf *b, const int *v, int nr)
{
	int i;

	bprintf(b, "\t");
	for (i = 0; i < nr; i++)
		bprintf(b, i ? ",%d" : "%d", v[i]);
}

static void put_task(struct buf *b, char kind, const struct mtask *e)
{
	bprintf(b, "%c\t%d\t%d\t%d", kind, e->t.tid, e->t.tgid, e->t.ppid);
	put_str(b, e->t.comm);
	bprintf(b, "\t%d", e->t.container->index);
	put_list(b, e->ns, e->nr_nspid);
	put_list(b, e->ns ? e->ns + e->nr_nspid : NULL, e->nr_nstgid);
	bprintf(b, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64,
		e->t.pidns, e->mntns, e->cgroupns, e->starttime);
	put_str(b, e->cgpath ? e->cgpath : "");
	bprintf(b, "\n");
}

int strobe_model_table_write(struct strobe_model *m, char **out, size_t *len,
			     struct strobe_error *err)
{
	struct buf b = { 0 };
	size_t i;
	int c;

	*out = NULL;
	*len = 0;
	bprintf(&b, TABLE_MAGIC "%d\n", TABLE_VERSION);
	for (c = 2; c < m->nr_conts; c++) {
		const struct strobe_container *k = &m->conts[c]->c;

		bprintf(&b, "C\t%d\t%s", c, strobe_runtime_name(k->runtime));
		put_str(&b, k->id);
		put_str(&b, k->name);
		put_str(&b, k->pod_uid);
		bprintf(&b, "\n");
	}
	for (i = 0; i < m->tasks.cap; i++)
		if (m->tasks.slot[i])
			put_task(&b, 'T', m->tasks.slot[i]);
	for (i = 0; i < m->late.cap; i++)
		if (m->late.slot[i])
			put_task(&b, 'A', m->late.slot[i]);
	if (b.oom) {
		free(b.p);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* ---- reading -------------------------------------------------------------- */

struct span {
	const char *p;
	size_t len;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescape s into out[size]; false if malformed or too long. */
static bool get_str(struct span s, char *out, size_t size)
{
	size_t i, n = 0;

	for (i = 0; i < s.len; i++) {
		char c = s.p[i];

		if (c == '\\') {
			int hi, lo;

			if (s.len - i < 4 || s.p[i + 1] != 'x')
				return false;
			hi = hexval(s.p[i + 2]);
			lo = hexval(s.p[i + 3]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return false;
			c = (char)(hi * 16 + lo);
			i += 3;
		}
		if (n + 1 >= size)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return true;
}

static bool get_i64(struct span s, int64_t min, int64_t max, int64_t *v)
{
	int64_t x = 0;
	bool neg = false;
	size_t i = 0;

	if (s.len && s.p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == s.len || s.len - i > 19)
		return false;
	for (; i < s.len; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		x = x * 10 + (s.p[i] - '0');
	}
	if (neg)
		x = -x;
	if (x < min || x > max)
		return false;
	*v = x;
	return true;
}

static bool get_int(struct span s, int min, int *v)
{
	int64_t x;

	if (!get_i64(s, min, 0x7fffffff, &x))
		return false;
	*v = (int)x;
	return true;
}

static bool get_u64(struct span s, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!s.len || s.len > 20)
		return false;
	for (i = 0; i < s.len; i++) {
		unsigned d = (unsigned)(s.p[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

static bool get_list(struct span s, int *v, int *nr)
{
	size_t i = 0;
	int n = 0;

	*nr = 0;
	if (!s.len)
		return true;
	while (i <= s.len) {
		size_t j = i;
		struct span item;

		while (j < s.len && s.p[j] != ',')
			j++;
		item.p = s.p + i;
		item.len = j - i;
		if (n == STROBE_PIDNS_LEVELS || !get_int(item, 0, &v[n]))
			return false;
		n++;
		i = j + 1;
	}
	*nr = n;
	return true;
}

static enum strobe_runtime runtime_by_name(struct span s)
{
	int rt;

	for (rt = 0; rt < STROBE_RT_NR; rt++) {
		const char *n = strobe_runtime_name((enum strobe_runtime)rt);

		if (strlen(n) == s.len && !memcmp(n, s.p, s.len))
			return (enum strobe_runtime)rt;
	}
	return STROBE_RT_UNKNOWN;
}

struct load_state {
	/* the file's container indices -> the model's containers */
	const struct strobe_container **map;
	int nr_map, cap_map;
};

static int load_container(struct strobe_model *m, struct load_state *st,
			  const struct span *f, int nf)
{
	struct strobe_cgroup_id id;
	const struct strobe_container *c;
	char name[256];
	int index;

	if (nf < 6 || !get_int(f[1], 2, &index) || index != st->nr_map)
		return 0;
	memset(&id, 0, sizeof(id));
	id.rootless_uid = -1;
	id.runtime = runtime_by_name(f[2]);
	if (!get_str(f[3], id.id, sizeof(id.id)) || !get_str(f[4], name, sizeof(name)) ||
	    !get_str(f[5], id.pod_uid, sizeof(id.pod_uid)))
		return 0;
	if (id.runtime == STROBE_RT_HOST || (!id.id[0] && !id.pod_uid[0]))
		return 0;
	memcpy(id.short_id, id.id, 12);
	id.short_id[12] = '\0';
	c = model_container(m, &id, 1, name);
	if (!c)
		return -ENOMEM;
	if (st->nr_map == st->cap_map) {
		int cap = st->cap_map * 2;
		const struct strobe_container **v = realloc(st->map, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		st->map = v;
		st->cap_map = cap;
	}
	st->map[st->nr_map++] = c;
	return 0;
}

static int load_task(struct strobe_model *m, struct load_state *st, bool late,
		     const struct span *f, int nf)
{
	int tid, tgid, ppid, ci, nspid[STROBE_PIDNS_LEVELS], nstgid[STROBE_PIDNS_LEVELS];
	int nr_nspid, nr_nstgid;
	uint64_t pidns, mntns, cgroupns, start;
	char comm[16], *path;
	struct mtable *t = late ? &m->late : &m->tasks;
	struct mtask *e;

	if (nf < 13 || !get_int(f[1], 1, &tid) || !get_int(f[2], -1, &tgid) ||
	    !get_int(f[3], -1, &ppid) || !get_str(f[4], comm, sizeof(comm)) ||
	    !get_int(f[5], 0, &ci) || !get_list(f[6], nspid, &nr_nspid) ||
	    !get_list(f[7], nstgid, &nr_nstgid) || !get_u64(f[8], &pidns) ||
	    !get_u64(f[9], &mntns) || !get_u64(f[10], &cgroupns) ||
	    !get_u64(f[11], &start) || f[12].len > STROBE_CGROUP_PATH_MAX * 4)
		return 0;
	path = malloc(STROBE_CGROUP_PATH_MAX + 1);
	if (!path)
		return -ENOMEM;
	if (!get_str(f[12], path, STROBE_CGROUP_PATH_MAX + 1)) {
		free(path);
		return 0;
	}
	e = mtask_new(m, t, tid);
	if (!e) {
		free(path);
		return -ENOMEM;
	}
	if (late)
		e->flags |= MT_LATE;
	e->t.tgid = tgid;
	e->t.ppid = ppid;
	memcpy(e->t.comm, comm, sizeof(comm));
	e->t.container = ci < st->nr_map ? st->map[ci] : st->map[STROBE_CONTAINER_UNKNOWN];
	if (mtask_set_ns(e, nspid, nr_nspid, nstgid, nr_nstgid) < 0) {
		free(path);
		return -ENOMEM;
	}
	e->t.pidns = pidns;
	e->mntns = mntns;
	e->cgroupns = cgroupns;
	e->starttime = start;
	if (path[0]) {
		const struct mpath *mp = model_path(m, path, strlen(path));

		if (mp)
			e->cgpath = mp->s;
	}
	free(path);
	return 0;
}

int strobe_model_table_load(struct strobe_model *m, const char *text, size_t len,
			    struct strobe_error *err)
{
	struct load_state st = { 0 };
	const char *p = text, *end = text + len;
	int r = 0, version;
	size_t ml = strlen(TABLE_MAGIC);

	if (!text || len < ml || memcmp(text, TABLE_MAGIC, ml))
		return strobe_err(err, -EPROTO, "not a strobe model table");
	p += ml;
	for (version = 0; p < end && *p >= '0' && *p <= '9' && version < 1000; p++)
		version = version * 10 + (*p - '0');
	if (version != TABLE_VERSION)
		return strobe_err(err, -EPROTO, "strobe model table version %d not supported",
				  version);
	st.cap_map = 16;
	st.map = malloc((size_t)st.cap_map * sizeof(*st.map));
	if (!st.map)
		return strobe_err(err, -ENOMEM, "out of memory");
	st.map[0] = &m->conts[STROBE_CONTAINER_UNKNOWN]->c;
	st.map[1] = &m->conts[STROBE_CONTAINER_HOST]->c;
	st.nr_map = 2;
	p = memchr(p, '\n', (size_t)(end - p));
	while (p && p < end && r >= 0) {
		const char *eol;
		struct span f[MAX_FIELDS];
		int nf = 0;

		p++;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		while (nf < MAX_FIELDS) {
			const char *tab = memchr(p, '\t', (size_t)(eol - p));

			f[nf].p = p;
			f[nf].len = (size_t)((tab ? tab : eol) - p);
			nf++;
			if (!tab)
				break;
			p = tab + 1;
		}
		if (f[0].len == 1 && f[0].p[0] == 'C')
			r = load_container(m, &st, f, nf);
		else if (f[0].len == 1 && (f[0].p[0] == 'T' || f[0].p[0] == 'A'))
			r = load_task(m, &st, f[0].p[0] == 'A', f, nf);
		p = eol < end ? eol : NULL;
	}
	free(st.map);
	if (r < 0)
		return strobe_err(err, r, "out of memory");
	return 0;
}

int strobe_model_load_file(struct strobe_model *m, struct strobe_tracefile *tf,
			   struct strobe_error *err)
{
	size_t len = 0;
	const char *text;
	int r;

	m->fmts = strobe_tracefile_formats(tf);
	text = strobe_tracefile_model_table(tf, &len);
	if (!text)
		return 0;
	r = strobe_model_table_load(m, text, len, err);
	if (r < 0)
		strobe_err_prefix(err, "model table");
	return r;
}
