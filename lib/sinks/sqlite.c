/*
 * sqlite.c - the SQLite sink: a trace's events, tasks, containers and
 * analysis results as tables of an SQLite database (strobe sql, and C or
 * Python users who want SQL over a trace).  Schema: include/strobe/sql.h
 * and doc/strobe-sql.1.
 *
 * How it is shaped, for speed (the goal is at least a million events a
 * second of loading):
 *
 *  - Each event is stored once, in the table of its type, with a typed
 *    column per field decoded straight from the payload through offsets
 *    resolved once per type (as the JSON writer reads them: integers,
 *    char arrays and __data_loc strings, other arrays as JSON text).
 *    "events" is a view over those tables that rebuilds the JSON of the
 *    fields with json_object() when asked, so no row is written twice
 *    and no JSON is made at load time.
 *  - Rows are buffered per type (values, and the bytes of strings in a
 *    per-type arena, since event payloads live only until the next
 *    event) and inserted by a prepared statement of up to 64 rows: SQLite
 *    spends most of its time per statement step, not per value.
 *  - The host is the same for a whole file, so it is a constant of the
 *    view, not a column of every row.
 *  - seq is an ordinary column, not the rowid: SQLite looks an explicit
 *    rowid up in the table's B-tree before inserting it (a binary search
 *    per row, about a fifth of SQLite's insert), while an implicit one is
 *    the last plus one.  Rows still go in in seq order, so the rowid
 *    orders them as seq does.
 *  - A statement's parameters keep their values across sqlite3_reset, so
 *    a value equal to the one a parameter holds is not bound again
 *    (bind_row): runs of one task's events repeat cpu, tid, pid, comm
 *    (interned, so that equal names are one pointer), container and
 *    buffer.
 *  - With opts.jobs >= 2, SQLite runs on a writer thread of the sink's
 *    own (sql_sink_use_writer): the pipeline's thread decodes events into
 *    a type's batch and, when it is full, swaps it for a spare one and
 *    queues it (at most WRITER_QUEUE batches); the writer binds and steps
 *    it and hands it back.  SQLite takes about three quarters of the
 *    loading time, so this is where a second core pays.  Every other use
 *    of the connection (a table created at a type's first event, unknown
 *    events, the end of the load) first waits until the writer is idle:
 *    the connection is never used by two threads at once.
 *
 * Names: a table per event type is named after the event, or
 * "<system>_<event>" when another system of the file has an event of that
 * name or the name is one of strobe's own tables (events, tasks, ...,
 * <analysis>, the result tables any analysis makes, sqlite_*); any
 * remaining clash gets "_<id>".
 *
 * The loader built on the sink (whole files, analysis results, the
 * database kept beside a trace) is sqlite-load.c.
 * Fields keep their names except where an earlier column took it (seq,
 * ts, cpu, tid, pid, comm, container: sched_waking's pid and comm), which
 * become field_<name>.  SQLite compares names without case, so does this.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>
#include <strobe/sql.h>

#include "format/format-int.h"
#include "output/output-int.h"
#include "sinks/sinks-int.h"
#include "sinks/sqlite-int.h"
#include "util/err.h"

#define NCOMMON		8	/* seq, ts, cpu, tid, pid, comm, container, buffer */
#define JSON_ARGS	60	/* key/value pairs per json_object() call */
#define UNION_TERMS	400	/* terms per compound SELECT (SQLite: 500) */

static const char *const common_cols[NCOMMON] = {
	"seq", "ts", "cpu", "tid", "pid", "comm", "container", "buffer"
};

/* How a field is read and stored. */
enum fkind {
	F_INT,		/* fixed 1, 2, 4 or 8 bytes: INTEGER */
	F_TEXT,		/* char array, __data_loc char[], string: TEXT */
	F_ARRAY,	/* other arrays and odd sizes: JSON text of numbers */
};

struct fcol {
	const struct tep_format_field *f;
	char *name;		/* SQL column name (clash-resolved) */
	enum fkind kind;
	int off, size;		/* as in the format */
	int elem;		/* F_ARRAY element size: 1, 2, 4 or 8 */
	bool is_signed, dynamic, relative;
	bool rest;		/* "char buf[]" of size 0: the rest of the payload */
};

/* A full batch of a type on its way to the writer thread: vals, arena and
 * rows as the type had them when it was queued. */
struct batch {
	struct batch *next;
	struct etype *t;
	struct sval *vals;
	char *arena;
	size_t alen, acap;
	int nrows;
};

#define WRITER_QUEUE	32	/* batches queued at most */

/*
 * The writer thread: batches in, inserted in the order queued.  mu guards
 * every field below it and the types' spare lists.  The connection
 * belongs to the writer while a batch is queued or busy; the feeding
 * thread uses it only after sql_writer_drain().
 */
struct writer {
	sqlite3 *db;
	pthread_t th;
	bool running;		/* th started, not joined */
	pthread_mutex_t mu;
	pthread_cond_t more;	/* a batch queued, or stop */
	pthread_cond_t done;	/* a batch finished */
	struct batch *head, *tail;
	int queued;
	bool busy;		/* the writer is inserting a batch */
	bool idle;		/* the writer waits for more */
	int waiting;		/* feeding threads waiting for done */
	bool stop;
	int failed;		/* first error, sticky */
	struct strobe_error err;
};

struct strobe_sql_sink {
	sqlite3 *db;
	struct tep_handle *tep;
	struct strobe_model *m;
	char *host;
	bool native;		/* file byte order is the host's */
	int long_size;
	struct etype *types;	/* by event id, 0 .. nr_types-1 */
	int nr_types;
	sqlite3_stmt *unknown;	/* insert into unknown_events, NULL until used */
	uint64_t seq;		/* events fed */
	const char *const *buffers;	/* names by buffer index (borrowed) */
	int nr_buffers;
	int nr_tables;
	int failed;		/* first error, sticky */
	struct strobe_error ferr;
	bool finished;
	struct writer *w;	/* NULL: SQLite on the feeding thread */
	/* comms interned (comm_intern): a row's comm is a string that lives
	 * as long as the sink, bound again only when it changes */
	struct comm_slot *comms;	/* open addressing, comm_cap slots */
	size_t comm_cap, nr_comms;
};

/* An interned comm: its 16 bytes (zero past the NUL) and its string. */
struct comm_slot {
	uint64_t key[2];
	char *s;		/* NULL: empty slot */
	uint32_t len;
};
#define MAX_COMMS	65536	/* beyond: comms go into the arena */

/*
 * Why a write to file failed, when SQLite does not keep it (its
 * sqlite3_system_errno is the errno of its last system call, often not
 * the write's): EFBIG when the file reached the file-size limit, ENOSPC
 * when its file system has no room left, else 0.
 */
static int write_cause(const char *file, int sys)
{
	struct rlimit rl;
	struct statvfs vfs;
	struct stat sb;

	if (sys == EFBIG || sys == ENOSPC)
		return sys;
	if (!file || !*file || stat(file, &sb) < 0)
		return 0;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (uint64_t)sb.st_size + STROBE_SQL_PAGE_SIZE > (uint64_t)rl.rlim_cur)
		return EFBIG;
	if (statvfs(file, &vfs) == 0 &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < 4 * STROBE_SQL_PAGE_SIZE)
		return ENOSPC;
	return 0;
}

int strobe_sql_fail(sqlite3 *db, struct strobe_error *err, const char *what)
{
	const char *file = sqlite3_db_filename(db, "main");
	int code = sqlite3_errcode(db) & 0xff, cause = 0;

	if (code == SQLITE_IOERR || code == SQLITE_FULL)
		cause = write_cause(file, sqlite3_system_errno(db));
	/* where SQLite says "disk I/O error" or "database or disk is full" */
	if (cause == EFBIG)
		return strobe_err(err, -EFBIG, "%s: file too large: the file-size limit "
				  "(ulimit -f) was reached while writing the database", file);
	if (cause == ENOSPC)
		return strobe_err(err, -ENOSPC, "%s: no space left on the device while "
				  "writing the database", file);
	return strobe_err(err, code == SQLITE_NOMEM ? -ENOMEM : code == SQLITE_FULL ? -ENOSPC
			  : -EIO, "sqlite: %s: %s", what, sqlite3_errmsg(db));
}

/* Run one statement of text made with sqlite3_mprintf (freed here). */
int sql_exec_free(sqlite3 *db, char *sql, struct strobe_error *err)
{
	int rc;

	if (!sql)
		return strobe_err(err, -ENOMEM, "out of memory");
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		char what[128];

		snprintf(what, sizeof(what), "%.100s", sql);
		sqlite3_free(sql);
		return strobe_sql_fail(db, err, what);
	}
	sqlite3_free(sql);
	return 0;
}

/* ---- names ---------------------------------------------------------- */

/*
 * The names strobe's own tables and views take: the fixed ones, every
 * analysis name (its view) and every result table any analysis can make
 * (asked of the analyses themselves, every view on), as SQL names.
 * Returns a NULL-terminated array (free_names()), NULL when out of memory.
 */
static char **reserved_names(void)
{
	static const char *const fixed[] = {
		"events", "tasks", "containers", "meta", "unknown_events", NULL
	};
	const char *const *an = strobe_analysis_names();
	struct strobe_analysis_opts o = {
		.views = STROBE_VIEW_TOP | STROBE_VIEW_STATS | STROBE_VIEW_FREQ |
			 STROBE_VIEW_LOG,
	};
	size_t n = 0, cap = 64;
	char **v = calloc(cap, sizeof(*v));
	int i, j;

	for (i = 0; v && fixed[i]; i++)
		v[n++] = strdup(fixed[i]);
	for (i = 0; v && an && an[i]; i++) {
		struct strobe_analysis *a = NULL;

		if (n + 1 >= cap)
			break;
		v[n++] = strdup(an[i]);
		if (strobe_analysis_new(an[i], &o, &a, NULL) < 0)
			continue;
		for (j = 0; j < strobe_analysis_nr_tables(a) && n + 1 < cap; j++) {
			char *t = strdup(strobe_table_name(strobe_analysis_table(a, j))), *p;

			for (p = t; p && *p; p++)
				if (*p == '.')
					*p = '_';
			v[n++] = t;
		}
		strobe_analysis_free(a);
	}
	for (i = 0; v && (size_t)i < n; i++)
		if (!v[i]) {
			while (n)
				free(v[--n]);
			free(v);
			return NULL;
		}
	return v;
}

static void free_names(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static bool reserved_name(char *const *reserved, const char *name)
{
	size_t i;

	if (!strncasecmp(name, "sqlite_", 7))
		return true;
	for (i = 0; reserved[i]; i++)
		if (!strcasecmp(name, reserved[i]))
			return true;
	return false;
}

static bool name_taken(char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcasecmp(names[i], name))
			return true;
	return false;
}

/*
 * Table names of every event of the file, by id (the rule in the head
 * comment); names[] has nr entries, NULL where no event has that id.
 */
static int name_tables(struct strobe_sql_sink *k, struct tep_event **evs)
{
	char **names = calloc((size_t)k->nr_types, sizeof(*names));
	char **reserved = reserved_names();
	int i, j;

	if (!names || !reserved) {
		free(names);
		free_names(reserved);
		return -ENOMEM;
	}
	for (i = 0; evs[i]; i++) {
		struct tep_event *e = evs[i];
		bool shared = false;
		char *name;

		for (j = 0; evs[j] && !shared; j++)
			shared = j != i && !strcasecmp(evs[j]->name, e->name) &&
				 strcmp(evs[j]->system ? evs[j]->system : "",
					e->system ? e->system : "");
		if (shared || reserved_name(reserved, e->name))
			name = sqlite3_mprintf("%s_%s", e->system ? e->system : "", e->name);
		else
			name = sqlite3_mprintf("%s", e->name);
		if (name && (name_taken(names, k->nr_types, name) ||
			     reserved_name(reserved, name))) {
			char *n2 = sqlite3_mprintf("%s_%d", name, e->id);

			sqlite3_free(name);
			name = n2;
		}
		if (!name)
			goto nomem;
		names[e->id] = strdup(name);
		sqlite3_free(name);
		if (!names[e->id])
			goto nomem;
	}
	for (i = 0; i < k->nr_types; i++)
		k->types[i].table = names[i];
	free(names);
	free_names(reserved);
	return 0;
nomem:
	for (i = 0; i < k->nr_types; i++)
		free(names[i]);
	free(names);
	free_names(reserved);
	return -ENOMEM;
}

/* ---- fields --------------------------------------------------------- */

static void classify(struct fcol *c, const struct tep_format_field *f, int long_size)
{
	bool is_char = f->type && strstr(f->type, "char");

	c->f = f;
	c->off = f->offset;
	c->size = f->size;
	c->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	c->dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
	c->relative = f->flags & TEP_FIELD_IS_RELATIVE;
	c->elem = 1;
	if (c->dynamic) {
		if ((f->flags & TEP_FIELD_IS_STRING) || is_char) {
			c->kind = F_TEXT;
		} else {
			c->kind = F_ARRAY;
			c->elem = f->elementsize ? (int)f->elementsize
						 : strobe_type_elem_size(long_size, f->type);
		}
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		c->rest = f->size == 0 && f->arraylen == 0;
		if ((f->flags & TEP_FIELD_IS_STRING) || is_char) {
			c->kind = F_TEXT;
		} else {
			c->kind = F_ARRAY;
			c->elem = f->elementsize ? (int)f->elementsize
				  : f->arraylen ? f->size / (int)f->arraylen : 1;
		}
	} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
		c->kind = F_INT;
	} else {
		c->kind = F_ARRAY;
		c->is_signed = false;
	}
	if (c->kind == F_ARRAY && c->elem != 1 && c->elem != 2 && c->elem != 4 && c->elem != 8)
		c->elem = 1;
}

static const char *decl_type(enum fkind kind)
{
	return kind == F_INT ? "INTEGER" : "TEXT";	/* arrays: JSON text */
}

/*
 * The INSERT statements of table t->table (t->ncols columns): one row,
 * and t->batch_rows rows (as many as SQLite's parameter limit allows, up
 * to MAX_BATCH), and the buffers of a batch.  Returns 0 or -errno.
 */
int sql_prepare_batches(sqlite3 *db, struct etype *t, struct strobe_error *err)
{
	char *sql, *p;
	size_t cap;
	int maxvars, r, i;

	maxvars = sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, -1);
	t->batch_rows = maxvars / t->ncols;
	if (t->batch_rows > MAX_BATCH)
		t->batch_rows = MAX_BATCH;
	if (t->batch_rows < 1)
		t->batch_rows = 1;
	cap = 64 + 2 * strlen(t->table) + (size_t)t->batch_rows * (2 * (size_t)t->ncols + 4);
	sql = malloc(cap);
	if (!sql)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (r = 1; r <= t->batch_rows; r = r == 1 && t->batch_rows > 1 ? t->batch_rows : r + 1) {
		sqlite3_stmt **st = r == 1 ? &t->one : &t->batch;
		int row;

		p = sql;
		p += sprintf(p, "INSERT INTO \"");
		sqlite3_snprintf((int)(cap - (p - sql)), p, "%w", t->table);
		p += strlen(p);
		p += sprintf(p, "\" VALUES ");
		for (row = 0; row < r; row++) {
			*p++ = row ? ',' : '(';
			if (row)
				*p++ = '(';
			for (i = 0; i < t->ncols; i++) {
				if (i)
					*p++ = ',';
				*p++ = '?';
			}
			*p++ = ')';
		}
		*p = '\0';
		if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL)
		    != SQLITE_OK) {
			free(sql);
			return strobe_sql_fail(db, err, t->table);
		}
	}
	free(sql);
	t->vals = calloc((size_t)t->batch_rows * (size_t)t->ncols, sizeof(*t->vals));
	t->bound_batch = calloc((size_t)t->batch_rows * (size_t)t->ncols, sizeof(*t->vals));
	t->bound_one = calloc((size_t)t->ncols, sizeof(*t->vals));
	t->acap = 4096;
	t->arena = malloc(t->acap);
	if (!t->vals || !t->arena || !t->bound_batch || !t->bound_one)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < t->batch_rows * t->ncols; i++)
		t->bound_batch[i].kind = V_UNSET;
	for (i = 0; i < t->ncols; i++)
		t->bound_one[i].kind = V_UNSET;
	return 0;
}

/* Column names, the table and its statements for type t (first event). */
static int resolve_type(struct strobe_sql_sink *k, struct etype *t, struct strobe_error *err)
{
	const struct tep_format_field *f;
	char **names = NULL;
	char *sql = NULL, *p;
	size_t cap;
	int i, n = 0, ret;

	ret = sql_writer_drain(k->w, err);	/* CREATE and prepare: the connection is ours */
	if (ret < 0)
		return ret;
	for (f = t->ev->format.fields; f; f = f->next)
		n++;
	t->fields = calloc((size_t)n + 1, sizeof(*t->fields));
	names = calloc((size_t)n + NCOMMON, sizeof(*names));
	if (!t->fields || !names)
		goto nomem;
	for (i = 0; i < NCOMMON; i++)
		names[i] = (char *)common_cols[i];
	for (f = t->ev->format.fields, i = 0; f; f = f->next, i++) {
		struct fcol *c = &t->fields[i];
		char *name = strdup(f->name);
		int dup = 1;

		if (name && name_taken(names, NCOMMON + i, name)) {
			free(name);
			name = NULL;
			if (asprintf(&name, "field_%s", f->name) < 0)
				name = NULL;
			while (name && name_taken(names, NCOMMON + i, name)) {
				free(name);
				if (asprintf(&name, "field_%s_%d", f->name, ++dup) < 0)
					name = NULL;
			}
		}
		if (!name)
			goto nomem;
		c->name = name;
		t->nr_fields = i + 1;	/* what strobe_sql_sink_free() frees */
		names[NCOMMON + i] = name;
		classify(c, f, k->long_size);
	}
	t->ncols = NCOMMON + n;

	/* CREATE TABLE */
	cap = 256 + (size_t)t->ncols * 64;
	for (i = 0; i < n; i++)
		cap += 2 * strlen(t->fields[i].name);
	cap += 2 * strlen(t->table);
	sql = malloc(cap);
	if (!sql)
		goto nomem;
	p = sql;
	p += sprintf(p, "CREATE TABLE \"");
	sqlite3_snprintf((int)(cap - (p - sql)), p, "%w", t->table);
	p += strlen(p);
	p += sprintf(p, "\" (seq INTEGER, ts INTEGER, cpu INTEGER, tid INTEGER, "
		     "pid INTEGER, comm TEXT, container TEXT, buffer TEXT");
	for (i = 0; i < n; i++) {
		p += sprintf(p, ", \"");
		sqlite3_snprintf((int)(cap - (p - sql)), p, "%w", t->fields[i].name);
		p += strlen(p);
		p += sprintf(p, "\" %s", decl_type(t->fields[i].kind));
	}
	strcpy(p, ")");
	if (sqlite3_exec(k->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		ret = strobe_sql_fail(k->db, err, t->table);
		goto fail;
	}
	free(sql);
	sql = NULL;

	ret = sql_prepare_batches(k->db, t, err);
	if (ret < 0)
		goto fail;
	t->resolved = true;
	k->nr_tables++;
	free(names);
	return 0;
nomem:
	ret = strobe_err(err, -ENOMEM, "out of memory");
fail:
	free(sql);
	free(names);
	return ret;
}

static inline uint64_t rd(const struct strobe_sql_sink *k, const uint8_t *p, int size)
{
	if (k->native)
		return size == 1 || size == 2 || size == 4 || size == 8
		       ? strobe_read_native(p, (unsigned)size) : 0;
	return tep_read_number(k->tep, p, size);
}

static inline int64_t sign_extend(uint64_t v, int size)
{
	int shift = 64 - 8 * size;

	if (size >= 8 || size <= 0)
		return (int64_t)v;
	return (int64_t)(v << shift) >> shift;
}

/* Room for `need` more bytes in t's arena; false when out of memory. */
static bool arena_room(struct etype *t, size_t need)
{
	char *a;
	size_t cap;

	if (t->alen + need <= t->acap)
		return true;
	cap = t->acap * 2;
	while (cap < t->alen + need)
		cap *= 2;
	a = realloc(t->arena, cap);
	if (!a)
		return false;
	t->arena = a;
	t->acap = cap;
	return true;
}

bool sql_put_bytes(struct etype *t, struct sval *v, const void *p, size_t len)
{
	if (!arena_room(t, len ? len : 1))
		return false;
	memcpy(t->arena + t->alen, p, len);
	v->kind = V_ARENA;
	v->u.off = t->alen;
	v->len = (uint32_t)len;
	t->alen += len;
	return true;
}

static char *fmt_u64(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* JSON array of the elements of p[0..bytes) into the arena. */
static bool put_array(const struct strobe_sql_sink *k, struct etype *t, struct sval *v,
		      const struct fcol *c, const uint8_t *p, size_t bytes)
{
	size_t n = bytes / (size_t)c->elem, i;
	char *out, *start;

	if (!arena_room(t, n * 22 + 2))
		return false;
	start = out = t->arena + t->alen;
	*out++ = '[';
	for (i = 0; i < n; i++) {
		uint64_t u = rd(k, p + i * (size_t)c->elem, c->elem);
		char tmp[24], *s;

		if (i)
			*out++ = ',';
		if (c->is_signed && sign_extend(u, c->elem) < 0) {
			*out++ = '-';
			u = 0 - (uint64_t)sign_extend(u, c->elem);
		}
		s = fmt_u64(tmp + sizeof(tmp), u);
		memcpy(out, s, (size_t)(tmp + sizeof(tmp) - s));
		out += tmp + sizeof(tmp) - s;
	}
	*out++ = ']';
	v->kind = V_ARENA;
	v->u.off = t->alen;
	v->len = (uint32_t)(out - start);
	t->alen += (size_t)(out - start);
	return true;
}

/* Decode field c of ev into v; false when out of memory. */
static bool put_field(const struct strobe_sql_sink *k, struct etype *t, struct sval *v,
		      const struct fcol *c, const struct strobe_event *ev)
{
	const uint8_t *data = ev->data;
	size_t size = ev->size, off = (size_t)c->off, len = (size_t)c->size;

	v->kind = V_NULL;
	if (c->off < 0 || c->size < 0 || off + len > size)
		return true;
	if (c->kind == F_INT) {
		uint64_t u = rd(k, data + off, c->size);

		v->kind = V_INT;
		v->u.i = c->is_signed ? sign_extend(u, c->size) : (int64_t)u;
		return true;
	}
	if (c->dynamic) {
		uint64_t w;

		if (len != 4)
			return true;
		w = rd(k, data + off, 4);
		len = w >> 16;
		off = c->relative ? off + 4 + (w & 0xffff) : (w & 0xffff);
		if (off > size || len > size - off)
			return true;
	} else if (c->rest) {
		len = size - off;
	}
	if (c->kind == F_TEXT)
		return sql_put_bytes(t, v, data + off, strnlen((const char *)data + off, len));
	return put_array(k, t, v, c, data + off, len);
}

/* Is v what parameter b holds?  Arena bytes never are (the arena is
 * reused); strings that outlive the batch are by pointer. */
static inline bool same_value(const struct sval *b, const struct sval *v)
{
	if (b->kind != v->kind)
		return false;
	switch (v->kind) {
	case V_NULL:
		return true;
	case V_INT:
		return b->u.i == v->u.i;
	case V_PTR:
		return b->u.p == v->u.p && b->len == v->len;
	case V_REAL:
		return !memcmp(&b->u.d, &v->u.d, sizeof(v->u.d));
	default:
		return false;
	}
}

/*
 * Bind row to st's parameters base.. unless a parameter holds that very
 * value already (bound records what each holds): a run of one task's
 * events repeats cpu, tid, pid, comm, container, buffer and often the
 * event's own fields, and a bind costs about as much as SQLite's insert
 * of the value.
 */
static int bind_row(sqlite3_stmt *st, int ncols, const char *arena, const struct sval *row,
		    struct sval *bound, int base)
{
	int i, rc = SQLITE_OK;

	for (i = 0; i < ncols && rc == SQLITE_OK; i++) {
		const struct sval *v = &row[i];

		if (same_value(&bound[i], v))
			continue;
		switch (v->kind) {
		case V_INT:
			rc = sqlite3_bind_int64(st, base + i, v->u.i);
			break;
		case V_ARENA:
			rc = sqlite3_bind_text(st, base + i, arena + v->u.off, (int)v->len,
					       SQLITE_STATIC);
			break;
		case V_PTR:
			rc = sqlite3_bind_text(st, base + i, v->u.p, (int)v->len, SQLITE_STATIC);
			break;
		case V_REAL:
			rc = sqlite3_bind_double(st, base + i, v->u.d);
			break;
		default:
			rc = sqlite3_bind_null(st, base + i);
		}
		bound[i] = *v;
		if (rc != SQLITE_OK)
			bound[i].kind = V_UNSET;
	}
	return rc;
}

/* Insert nrows rows of t from vals (strings in arena): one batch
 * statement when they are a full batch, else row by row. */
static int insert_rows(sqlite3 *db, const struct etype *t, const struct sval *vals,
		       const char *arena, int nrows, struct strobe_error *err)
{
	int r, rc = SQLITE_OK;

	if (!nrows)
		return 0;
	if (nrows == t->batch_rows && t->batch) {
		for (r = 0; r < nrows && rc == SQLITE_OK; r++)
			rc = bind_row(t->batch, t->ncols, arena, vals + (size_t)r * t->ncols,
				      t->bound_batch + (size_t)r * t->ncols, 1 + r * t->ncols);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(t->batch);
		sqlite3_reset(t->batch);
	} else {
		for (r = 0; r < nrows && (rc == SQLITE_OK || rc == SQLITE_DONE); r++) {
			rc = bind_row(t->one, t->ncols, arena, vals + (size_t)r * t->ncols,
				      t->bound_one, 1);
			if (rc == SQLITE_OK)
				rc = sqlite3_step(t->one);
			sqlite3_reset(t->one);
		}
	}
	if (rc != SQLITE_DONE)
		return strobe_sql_fail(db, err, t->table);
	return 0;
}

/* Insert the buffered rows of t, on the calling thread. */
int sql_flush_type(sqlite3 *db, struct etype *t, struct strobe_error *err)
{
	int n = t->nrows;

	t->nrows = 0;
	t->alen = 0;
	return insert_rows(db, t, t->vals, t->arena, n, err);
}

/* ---- the writer thread ---------------------------------------------- */
static struct writer *writer_new(sqlite3 *db);

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct strobe_error e = { 0, "" };

	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct batch *b;
		int ret = 0;

		while (!w->head && !w->stop) {
			w->idle = true;
			pthread_cond_wait(&w->more, &w->mu);
			w->idle = false;
		}
		if (!w->head)
			break;
		b = w->head;
		w->head = b->next;
		if (!w->head)
			w->tail = NULL;
		w->queued--;
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		if (!w->failed)		/* only this thread sets it while running */
			ret = insert_rows(w->db, b->t, b->vals, b->arena, b->nrows, &e);
		pthread_mutex_lock(&w->mu);
		if (ret < 0 && !w->failed) {
			w->failed = ret;
			w->err = e;
		}
		w->busy = false;
		b->next = b->t->spare;
		b->t->spare = b;
		/* wake the feeder when the queue is half empty, not at every
		 * batch: one wake-up per WRITER_QUEUE / 2 batches */
		if (w->waiting && (w->queued <= WRITER_QUEUE / 2 || !w->head || w->failed))
			pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* A writer for db; NULL when out of memory (SQLite then runs on the
 * feeding thread). */
static struct writer *writer_new(sqlite3 *db)
{
	struct writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->db = db;
	if (pthread_mutex_init(&w->mu, NULL)) {
		free(w);
		return NULL;
	}
	if (pthread_cond_init(&w->more, NULL)) {
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	if (pthread_cond_init(&w->done, NULL)) {
		pthread_cond_destroy(&w->more);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

/* Wait until every queued batch is inserted; 0 or the writer's first
 * error (into err).  The connection is then the caller's until the next
 * sql_writer_submit(). */
int sql_writer_drain(struct writer *w, struct strobe_error *err)
{
	int ret;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->mu);
	w->waiting++;
	while (w->head || w->busy)
		pthread_cond_wait(&w->done, &w->mu);
	w->waiting--;
	ret = w->failed;
	if (ret < 0 && err)
		*err = w->err;
	pthread_mutex_unlock(&w->mu);
	return ret;
}

/* Drain w and end its thread (a writer not started, or NULL: nothing). */
static void writer_stop(struct writer *w)
{
	if (!w)
		return;
	w->stop = true;		/* not started: never will be */
	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	w->running = false;
}

static void writer_free(struct writer *w)
{
	if (!w)
		return;
	writer_stop(w);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->more);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/*
 * Hand t's full batch to the writer and give t an empty one (a spare, or
 * a new one); with no writer running (none, stopped, or its thread could
 * not start) insert it here.  0, or the writer's first error, or -ENOMEM.
 */
int sql_writer_submit(struct writer *w, struct etype *t, struct strobe_error *err)
{
	struct batch *b;
	struct sval *vals;
	char *arena;
	size_t acap;
	int ret;

	if (w && !w->running && !w->stop) {
		if (pthread_create(&w->th, NULL, writer_main, w) == 0)
			w->running = true;
		else
			w->stop = true;		/* never again: inserts stay here */
	}
	if (!w || !w->running)
		return sql_flush_type(w ? w->db : NULL, t, err);
	pthread_mutex_lock(&w->mu);
	w->waiting++;
	while (w->queued >= WRITER_QUEUE && !w->failed)
		pthread_cond_wait(&w->done, &w->mu);
	w->waiting--;
	ret = w->failed;
	if (ret < 0 && err)
		*err = w->err;
	b = t->spare;
	if (b)
		t->spare = b->next;
	pthread_mutex_unlock(&w->mu);
	if (ret < 0)
		return ret;
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (b) {
			b->vals = calloc((size_t)t->batch_rows * (size_t)t->ncols,
					 sizeof(*b->vals));
			b->acap = t->acap;
			b->arena = malloc(b->acap);
		}
		if (!b || !b->vals || !b->arena) {
			if (b) {
				free(b->vals);
				free(b->arena);
			}
			free(b);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
	}
	vals = b->vals;
	arena = b->arena;
	acap = b->acap;
	b->t = t;
	b->vals = t->vals;
	b->arena = t->arena;
	b->acap = t->acap;
	b->alen = t->alen;
	b->nrows = t->nrows;
	b->next = NULL;
	t->vals = vals;
	t->arena = arena;
	t->acap = acap;
	t->alen = 0;
	t->nrows = 0;
	pthread_mutex_lock(&w->mu);
	if (w->tail)
		w->tail->next = b;
	else
		w->head = b;
	w->tail = b;
	w->queued++;
	if (w->idle)
		pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

static size_t comm_hash(const uint64_t key[2], size_t cap)
{
	uint64_t h = key[0] * 0x9e3779b97f4a7c15ull ^ key[1] * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ h >> 29) & (cap - 1);
}

/* The slot of key in k's table (empty when absent). */
static struct comm_slot *comm_find(struct comm_slot *v, size_t cap, const uint64_t key[2])
{
	size_t i = comm_hash(key, cap);

	while (v[i].s && (v[i].key[0] != key[0] || v[i].key[1] != key[1]))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

/*
 * comm (a task's char[16]) as a string that lives as long as k, its
 * length in *len; NULL when out of memory or past MAX_COMMS distinct
 * names (the caller then copies it into the arena).
 */
static const char *comm_intern(struct strobe_sql_sink *k, const char *comm, uint32_t *len)
{
	char b[16] = { 0 };
	uint64_t key[2];
	struct comm_slot *e;
	size_t n = strnlen(comm, sizeof(b));

	memcpy(b, comm, n);
	memcpy(key, b, sizeof(key));
	if (k->comm_cap) {
		e = comm_find(k->comms, k->comm_cap, key);
		if (e->s) {
			*len = e->len;
			return e->s;
		}
	}
	if (k->nr_comms >= MAX_COMMS)
		return NULL;
	if (2 * (k->nr_comms + 1) > k->comm_cap) {
		size_t cap = k->comm_cap ? 2 * k->comm_cap : 64, i;
		struct comm_slot *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (i = 0; i < k->comm_cap; i++)
			if (k->comms[i].s)
				*comm_find(v, cap, k->comms[i].key) = k->comms[i];
		free(k->comms);
		k->comms = v;
		k->comm_cap = cap;
	}
	e = comm_find(k->comms, k->comm_cap, key);
	e->s = strndup(b, n);
	if (!e->s)
		return NULL;
	e->key[0] = key[0];
	e->key[1] = key[1];
	e->len = (uint32_t)n;
	k->nr_comms++;
	*len = e->len;
	return e->s;
}

/* The common columns of a row: pid, comm and container from the model,
 * the instance buffer's name (NULL for the top-level buffer). */
static bool put_common(struct strobe_sql_sink *k, struct etype *t, struct sval *row,
		       const struct strobe_event *ev)
{
	const struct strobe_task *task = k->m ? strobe_model_task(k->m, ev->pid) : NULL;

	row[0] = (struct sval){ .u.i = (int64_t)k->seq, .kind = V_INT };
	row[1] = (struct sval){ .u.i = (int64_t)ev->ts, .kind = V_INT };
	row[2] = (struct sval){ .u.i = ev->cpu, .kind = V_INT };
	row[3] = (struct sval){ .u.i = ev->pid, .kind = V_INT };
	row[4].kind = V_NULL;
	row[5].kind = V_NULL;
	row[6].kind = V_NULL;
	row[7].kind = V_NULL;
	if (ev->buffer > 0 && ev->buffer < k->nr_buffers && k->buffers[ev->buffer] &&
	    *k->buffers[ev->buffer])
		row[7] = (struct sval){ .u.p = k->buffers[ev->buffer],
					.len = (uint32_t)strlen(k->buffers[ev->buffer]),
					.kind = V_PTR };
	if (!task)
		return true;
	if (task->tgid >= 0)
		row[4] = (struct sval){ .u.i = task->tgid, .kind = V_INT };
	row[5].u.p = comm_intern(k, task->comm, &row[5].len);
	if (row[5].u.p)
		row[5].kind = V_PTR;
	else if (!sql_put_bytes(t, &row[5], task->comm, strnlen(task->comm, sizeof(task->comm))))
		return false;
	if (task->container && task->container->index != STROBE_CONTAINER_UNKNOWN)
		row[6] = (struct sval){ .u.p = task->container->name,
					.len = (uint32_t)strlen(task->container->name),
					.kind = V_PTR };
	return true;
}

/* An event whose id has no format: its raw payload in unknown_events. */
static int feed_unknown(struct strobe_sql_sink *k, const struct strobe_event *ev,
			struct strobe_error *err)
{
	const struct strobe_task *task = k->m ? strobe_model_task(k->m, ev->pid) : NULL;
	sqlite3_stmt *st;
	int rc;

	rc = sql_writer_drain(k->w, err);
	if (rc < 0)
		return rc;
	if (!k->unknown) {
		if (sqlite3_exec(k->db, "CREATE TABLE unknown_events (seq INTEGER, "
				 "ts INTEGER, cpu INTEGER, tid INTEGER, pid INTEGER, comm TEXT, "
				 "container TEXT, buffer TEXT, type INTEGER, data BLOB)", NULL, NULL,
				 NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(k->db, "INSERT INTO unknown_events VALUES "
				       "(?,?,?,?,?,?,?,?,?,?)", -1, &k->unknown, NULL) != SQLITE_OK)
			return strobe_sql_fail(k->db, err, "unknown_events");
		k->nr_tables++;
	}
	st = k->unknown;
	sqlite3_bind_int64(st, 1, (int64_t)k->seq);
	sqlite3_bind_int64(st, 2, (int64_t)ev->ts);
	sqlite3_bind_int(st, 3, ev->cpu);
	sqlite3_bind_int(st, 4, ev->pid);
	if (task && task->tgid >= 0)
		sqlite3_bind_int(st, 5, task->tgid);
	else
		sqlite3_bind_null(st, 5);
	if (task)
		sqlite3_bind_text(st, 6, task->comm, (int)strnlen(task->comm, sizeof(task->comm)),
				  SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	if (task && task->container && task->container->index != STROBE_CONTAINER_UNKNOWN)
		sqlite3_bind_text(st, 7, task->container->name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 7);
	if (ev->buffer > 0 && ev->buffer < k->nr_buffers && k->buffers[ev->buffer] &&
	    *k->buffers[ev->buffer])
		sqlite3_bind_text(st, 8, k->buffers[ev->buffer], -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 8);
	sqlite3_bind_int(st, 9, ev->type);
	sqlite3_bind_blob(st, 10, ev->data, (int)ev->size, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return strobe_sql_fail(k->db, err, "unknown_events");
	return 0;
}

int strobe_sql_sink_feed(struct strobe_sql_sink *k, const struct strobe_event *ev,
			 struct strobe_error *err)
{
	struct etype *t;
	struct sval *row;
	int i, ret;

	if (k->failed) {
		if (err)
			*err = k->ferr;
		return k->failed;
	}
	k->seq++;
	if (!ev->format || ev->type < 0 || ev->type >= k->nr_types ||
	    !k->types[ev->type].ev) {
		ret = feed_unknown(k, ev, &k->ferr);
		goto out;
	}
	t = &k->types[ev->type];
	if (!t->resolved) {
		ret = resolve_type(k, t, &k->ferr);
		if (ret < 0)
			goto out;
	}
	row = t->vals + (size_t)t->nrows * t->ncols;
	if (!put_common(k, t, row, ev))
		goto nomem;
	for (i = 0; i < t->nr_fields; i++)
		if (!put_field(k, t, &row[NCOMMON + i], &t->fields[i], ev))
			goto nomem;
	t->count++;
	ret = 0;
	if (++t->nrows == t->batch_rows)
		ret = k->w ? sql_writer_submit(k->w, t, &k->ferr) : sql_flush_type(k->db, t, &k->ferr);
out:
	if (ret < 0) {
		k->failed = ret;
		if (err)
			*err = k->ferr;
	}
	return ret;
nomem:
	ret = strobe_err(&k->ferr, -ENOMEM, "out of memory");
	goto out;
}

int strobe_sql_sink_new(struct sqlite3 *db, struct strobe_formats *fmts, struct strobe_model *m,
			const char *host, struct strobe_sql_sink **out,
			struct strobe_error *err)
{
	struct tep_handle *tep = strobe_formats_tep(fmts);
	struct strobe_sql_sink *k;
	struct tep_event **evs;
	int i, max_id = -1;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->host = strdup(host ? host : "")))
		goto nomem;
	k->db = db;
	k->tep = tep;
	k->m = m;
	k->long_size = tep_get_long_size(tep);
	k->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	for (i = 0; evs && evs[i]; i++)
		if (evs[i]->id > max_id)
			max_id = evs[i]->id;
	k->nr_types = max_id + 1;
	k->types = calloc((size_t)(k->nr_types > 0 ? k->nr_types : 1), sizeof(*k->types));
	if (!k->types)
		goto nomem;
	for (i = 0; evs && evs[i]; i++)
		if (evs[i]->id >= 0)
			k->types[evs[i]->id].ev = evs[i];
	if (evs && name_tables(k, evs) < 0)
		goto nomem;
	*out = k;
	return 0;
nomem:
	strobe_sql_sink_free(k);
	return strobe_err(err, -ENOMEM, "out of memory");
}

struct writer *sql_sink_use_writer(struct strobe_sql_sink *k)
{
	if (!k->w)
		k->w = writer_new(k->db);
	return k->w;
}

void sql_etype_free(struct etype *t)
{
	int j;

	for (j = 0; t->fields && j < t->nr_fields; j++)
		free(t->fields[j].name);
	free(t->fields);
	free(t->table);
	free(t->vals);
	free(t->bound_one);
	free(t->bound_batch);
	free(t->arena);
	while (t->spare) {
		struct batch *b = t->spare;

		t->spare = b->next;
		free(b->vals);
		free(b->arena);
		free(b);
	}
	sqlite3_finalize(t->one);
	sqlite3_finalize(t->batch);
}

void strobe_sql_sink_free(struct strobe_sql_sink *k)
{
	int i;

	if (!k)
		return;
	writer_free(k->w);	/* first: its batches point into the types */
	for (i = 0; i < k->nr_types; i++)
		sql_etype_free(&k->types[i]);
	sqlite3_finalize(k->unknown);
	for (i = 0; i < (int)k->comm_cap; i++)
		free(k->comms[i].s);
	free(k->comms);
	free(k->types);
	free(k->host);
	free(k);
}

void strobe_sql_sink_set_buffers(struct strobe_sql_sink *k, const char *const *names, int n)
{
	k->buffers = names;
	k->nr_buffers = names ? n : 0;
}

uint64_t strobe_sql_sink_events(const struct strobe_sql_sink *k)
{
	return k->seq;
}

int strobe_sql_sink_nr_tables(const struct strobe_sql_sink *k)
{
	return k->nr_tables;
}

/* ---- the events view ---------------------------------------------- */

/*
 * The fields expression of t: json_object('name', col, ...); past
 * JSON_ARGS fields (SQLite caps a function's arguments at 127) the
 * object so far is extended by json_insert(obj, '$."name"', col, ...).
 * Arrays are JSON text, embedded with json(col).  sqlite3_free() it.
 */
static char *fields_expr(const struct etype *t)
{
	char *s = sqlite3_mprintf("json_object(");
	int i;

	for (i = 0; s && i < t->nr_fields; i++) {
		const struct fcol *c = &t->fields[i];
		bool arr = c->kind == F_ARRAY;
		char *n;

		if (i && i % JSON_ARGS == 0)
			n = sqlite3_mprintf("json_insert(%s), '$.\"%q\"', %s\"%w\"%s", s,
					    c->f->name, arr ? "json(" : "", c->name, arr ? ")" : "");
		else if (i > JSON_ARGS)
			n = sqlite3_mprintf("%s, '$.\"%q\"', %s\"%w\"%s", s,
					    c->f->name, arr ? "json(" : "", c->name, arr ? ")" : "");
		else
			n = sqlite3_mprintf("%s%s%Q, %s\"%w\"%s", s, i ? ", " : "",
					    c->f->name, arr ? "json(" : "", c->name, arr ? ")" : "");
		sqlite3_free(s);
		s = n;
	}
	if (s) {
		char *n = sqlite3_mprintf("%s)", s);

		sqlite3_free(s);
		s = n;
	}
	return s;
}

static int create_events_view(struct strobe_sql_sink *k, struct strobe_error *err)
{
	char *sql = sqlite3_mprintf("CREATE VIEW events AS SELECT * FROM (SELECT ");
	int i, terms = 0;

	for (i = 0; sql && i <= k->nr_types; i++) {
		const struct etype *t = i < k->nr_types ? &k->types[i] : NULL;
		char *term, *n;

		if (t && !t->resolved)
			continue;
		if (!t && !k->unknown)
			break;
		if (t) {
			char *fields = fields_expr(t);

			term = fields ? sqlite3_mprintf(
				"seq, ts, cpu, tid, pid, comm, container, buffer, %Q AS host, "
				"%Q AS system, "
				"%Q AS event, %s AS fields FROM \"%w\"", k->host,
				t->ev->system ? t->ev->system : "", t->ev->name, fields, t->table)
				: NULL;
			sqlite3_free(fields);
		} else {
			term = sqlite3_mprintf("seq, ts, cpu, tid, pid, comm, container, buffer, "
					       "%Q AS host, "
					       "NULL AS system, NULL AS event, '{}' AS fields "
					       "FROM unknown_events", k->host);
		}
		if (!term) {
			sqlite3_free(sql);
			sql = NULL;
			break;
		}
		if (terms == UNION_TERMS) {	/* SQLite caps terms per compound */
			n = sqlite3_mprintf("%s) UNION ALL SELECT * FROM (SELECT %s", sql, term);
			terms = 0;
		} else {
			n = sqlite3_mprintf("%s%s%s", sql, terms ? " UNION ALL SELECT " : "", term);
		}
		terms++;
		sqlite3_free(term);
		sqlite3_free(sql);
		sql = n;
	}
	if (sql && !terms) {	/* no events: an empty view with the same columns */
		sqlite3_free(sql);
		sql = sqlite3_mprintf("CREATE VIEW events AS SELECT NULL AS seq, NULL AS ts, "
				      "NULL AS cpu, NULL AS tid, NULL AS pid, NULL AS comm, "
				      "NULL AS container, NULL AS buffer, NULL AS host, NULL AS system, "
				      "NULL AS event, NULL AS fields LIMIT 0");
	} else if (sql) {
		char *n = sqlite3_mprintf("%s)", sql);

		sqlite3_free(sql);
		sql = n;
	}
	return sql_exec_free(k->db, sql, err);
}

/* ---- tasks and containers ------------------------------------------ */

static void bind_opt_int(sqlite3_stmt *st, int i, int64_t v, bool known)
{
	if (known)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

int sql_step_reset(sqlite3 *db, sqlite3_stmt *st, const char *what,
		   struct strobe_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : strobe_sql_fail(db, err, what);
}

static int write_containers(struct strobe_sql_sink *k, struct strobe_error *err)
{
	sqlite3_stmt *st = NULL;
	int i, n, ret = 0;

	if (sqlite3_exec(k->db, "CREATE TABLE containers (name TEXT, runtime TEXT, id TEXT, "
			 "short_id TEXT, pod_uid TEXT)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(k->db, "INSERT INTO containers VALUES (?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return strobe_sql_fail(k->db, err, "containers");
	n = k->m ? strobe_model_nr_containers(k->m) : 0;
	for (i = 0; i < n && !ret; i++) {
		const struct strobe_container *c = strobe_model_container(k->m, i);

		if (!c)
			continue;
		sqlite3_bind_text(st, 1, c->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, i == STROBE_CONTAINER_UNKNOWN ? "unknown"
				  : strobe_runtime_name(c->runtime), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, c->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, c->short_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, c->pod_uid, -1, SQLITE_STATIC);
		ret = sql_step_reset(k->db, st, "containers", err);
	}
	sqlite3_finalize(st);
	return ret;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int write_tasks(struct strobe_sql_sink *k, struct strobe_error *err)
{
	sqlite3_stmt *st = NULL;
	const struct strobe_task *t;
	size_t cur = 0, n = 0, cap = 0, i;
	int *tids = NULL, ret = 0;

	if (sqlite3_exec(k->db, "CREATE TABLE tasks (tid INTEGER, pid INTEGER, ppid INTEGER, "
			 "comm TEXT, container TEXT, nstid INTEGER, nspid INTEGER, "
			 "pidns INTEGER, mntns INTEGER, cgroupns INTEGER, starttime INTEGER, "
			 "cgroup TEXT, exited INTEGER)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(k->db, "INSERT INTO tasks VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return strobe_sql_fail(k->db, err, "tasks");
	/* the tids first: reading a task's details must not disturb the walk */
	while (k->m && (t = strobe_model_next_task(k->m, &cur))) {
		if (n == cap) {
			int *nt = realloc(tids, (cap = cap ? 2 * cap : 256) * sizeof(*tids));

			if (!nt) {
				ret = strobe_err(err, -ENOMEM, "out of memory");
				goto out;
			}
			tids = nt;
		}
		tids[n++] = t->tid;
	}
	if (n)
		qsort(tids, n, sizeof(*tids), cmp_int);
	for (i = 0; i < n && !ret; i++) {
		struct strobe_task_info ti;
		const struct strobe_task *tk;

		if (strobe_model_task_info(k->m, tids[i], &ti) < 0)
			continue;
		tk = ti.task;
		sqlite3_bind_int(st, 1, tk->tid);
		bind_opt_int(st, 2, tk->tgid, tk->tgid >= 0);
		bind_opt_int(st, 3, tk->ppid, tk->ppid >= 0);
		sqlite3_bind_text(st, 4, tk->comm, (int)strnlen(tk->comm, sizeof(tk->comm)),
				  SQLITE_TRANSIENT);
		if (tk->container->index != STROBE_CONTAINER_UNKNOWN)
			sqlite3_bind_text(st, 5, tk->container->name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		bind_opt_int(st, 6, tk->nstid, tk->nstid >= 0);
		bind_opt_int(st, 7, tk->nstgid, tk->nstgid >= 0);
		bind_opt_int(st, 8, (int64_t)tk->pidns, tk->pidns != 0);
		bind_opt_int(st, 9, (int64_t)ti.mntns, ti.mntns != 0);
		bind_opt_int(st, 10, (int64_t)ti.cgroupns, ti.cgroupns != 0);
		bind_opt_int(st, 11, (int64_t)ti.starttime, ti.starttime != 0);
		if (ti.cgroup_path && *ti.cgroup_path)
			sqlite3_bind_text(st, 12, ti.cgroup_path, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, 12);
		sqlite3_bind_int(st, 13, ti.exited);
		ret = sql_step_reset(k->db, st, "tasks", err);
	}
out:
	free(tids);
	sqlite3_finalize(st);
	return ret;
}

int strobe_sql_sink_finish(struct strobe_sql_sink *k, struct strobe_error *err)
{
	int i, ret;

	if (k->failed) {
		if (err)
			*err = k->ferr;
		return k->failed;
	}
	if (k->finished)
		return strobe_err(err, -EINVAL, "sql sink already finished");
	k->finished = true;
	ret = sql_writer_drain(k->w, err);
	writer_stop(k->w);	/* the rest on this thread */
	if (ret < 0)
		return ret;
	for (i = 0; i < k->nr_types; i++) {
		ret = sql_flush_type(k->db, &k->types[i], err);
		if (ret < 0)
			return ret;
	}
	ret = create_events_view(k, err);
	if (!ret)
		ret = write_containers(k, err);
	if (!ret)
		ret = write_tasks(k, err);
	return ret;
}

