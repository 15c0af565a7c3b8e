/*
 * sqlite-merge.c - several trace files (of several hosts) in one SQLite
 * database, for strobe sql -i A -i B.
 *
 * The files are read in one run of a pipeline that merges them on one
 * timeline (strobe_sql_open_pipeline; strobe_sql_open_many makes the
 * pipeline): the SQL loader of sqlite-load.c is its consumer, with
 * STROBE_CONSUMER_SOURCE_TIME, and loads each file as strobe sql loads
 * one (its own task model, event tables, analyses and meta, ts in the
 * file's own trace clock) into an in-memory database of its own (a
 * shared-cache memory URI, so that the database being built can ATTACH
 * it).  A file given twice is one source of the pipeline, read once;
 * when one source remains it is loaded straight into the result, which
 * is then what one -i gives.  Then every table and view name of those
 * is copied into one table of the result, the rows of all files one
 * after the other (UNION ALL), with:
 *   - a "host" column first (the file's host as strobe_merge_host names
 *     it) wherever the table has none: event tables, tasks, containers,
 *     meta, the analyses' tables; the events view's own host column is
 *     set the same way;
 *   - "ts" on the merged timeline: the file's wall-clock offset added
 *     (interpolated between its pairings, as strobe_merge_next does)
 *     when every file has clock pairings, else raw;
 *   - NULL in columns that some file's version of a table lacks.
 * Loading each file apart and copying costs one more pass over the rows
 * than inserting them with a host column would, but keeps one loader
 * for one file and several, and each file's table naming and columns
 * its own.
 * seq stays per file: (host, seq) identifies an event.  A kept database
 * (db_path) is always rebuilt, to a temporary file renamed into place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>
#include <strobe/sql.h>

#include "sinks-int.h"

static int exec(sqlite3 *db, const char *sql, struct strobe_error *err)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return strobe_sql_fail(db, err, sql);
	return 0;
}

/* A growing list of names (tables, columns), first appearance order. */
struct names {
	char **v;
	int n, cap;
};

static int names_add(struct names *l, const char *s)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 0;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static bool names_has(const struct names *l, const char *s)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static void names_free(struct names *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The column names of schema.name (a table or a view) into *cols. */
static int columns(sqlite3 *db, int schema, const char *name, struct names *cols,
		   struct strobe_error *err)
{
	char *q = sqlite3_mprintf("PRAGMA s%d.table_info(%Q)", schema, name);
	sqlite3_stmt *st = NULL;
	int r = 0;

	if (!q)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(q);
		return strobe_sql_fail(db, err, "PRAGMA table_info");
	}
	sqlite3_free(q);
	while (!r && sqlite3_step(st) == SQLITE_ROW)
		r = names_add(cols, (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return r < 0 ? strobe_err(err, r, "out of memory") : 0;
}

/* The SQL expression of a file's ts on the merged timeline. */
static char *ts_expr(const struct strobe_merge *m, int i)
{
	struct strobe_merge_clock c;

	strobe_merge_clock(m, i, &c);
	if (!strobe_merge_wall(m))
		return sqlite3_mprintf("ts");
	if (c.nr_sync < 2 || !c.span_ns)
		return sqlite3_mprintf("(ts - %" PRId64 " + %" PRId64 ")", c.file_ts_offset,
				       c.offset_ns);
	/* integer arithmetic truncates as strobe_merge_next's does, so both
	 * give the same ns (a product past 2^63, a drift of ms over hours,
	 * turns REAL in SQLite: then within a ns) */
	return sqlite3_mprintf("(ts - %" PRId64 " + %" PRId64 " + CAST(%" PRId64 " * "
			       "(MIN(MAX(ts - %" PRId64 ", %" PRIu64 "), %" PRIu64 ") - %" PRIu64
			       ") / %" PRIu64 " AS INTEGER))",
			       c.file_ts_offset, c.offset_ns, c.drift_ns, c.file_ts_offset,
			       c.start_trace_ns, c.start_trace_ns + c.span_ns, c.start_trace_ns,
			       c.span_ns);
}

/* CREATE TABLE main.name AS the union of every file's name. */
static int merge_table(sqlite3 *db, const struct strobe_merge *m, const char *name,
		       struct strobe_error *err)
{
	int n = strobe_merge_nr_sources(m), i, j, r = 0, first = 1;
	struct names all = { 0 }, *per = calloc((size_t)n, sizeof(*per));
	sqlite3_str *q;
	char *sql;

	if (!per)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; !r && i < n; i++) {
		r = columns(db, i, name, &per[i], err);
		for (j = 0; !r && j < per[i].n; j++)
			if (names_add(&all, per[i].v[j]) < 0)
				r = strobe_err(err, -ENOMEM, "out of memory");
	}
	q = sqlite3_str_new(db);
	sqlite3_str_appendf(q, "CREATE TABLE main.%w AS ", name);
	for (i = 0; !r && i < n; i++) {
		if (!per[i].n)
			continue;	/* this file has no such table */
		sqlite3_str_appendf(q, "%sSELECT ", first ? "" : " UNION ALL ");
		first = 0;
		if (!names_has(&all, "host"))
			sqlite3_str_appendf(q, "%Q AS host, ", strobe_merge_host(m, i));
		for (j = 0; j < all.n; j++) {
			const char *c = all.v[j];

			if (j)
				sqlite3_str_appendall(q, ", ");
			if (!names_has(&per[i], c)) {
				sqlite3_str_appendf(q, "NULL AS %w", c);
			} else if (!strcmp(c, "host")) {
				sqlite3_str_appendf(q, "%Q AS host", strobe_merge_host(m, i));
			} else if (!strcmp(c, "ts")) {
				char *e = ts_expr(m, i);

				sqlite3_str_appendf(q, "%s AS ts", e ? e : "ts");
				sqlite3_free(e);
			} else {
				sqlite3_str_appendf(q, "%w", c);
			}
		}
		sqlite3_str_appendf(q, " FROM s%d.%w", i, name);
	}
	sql = sqlite3_str_finish(q);
	if (!r && !sql)
		r = strobe_err(err, -ENOMEM, "out of memory");
	if (!r)
		r = exec(db, sql, err);
	sqlite3_free(sql);
	for (i = 0; i < n; i++)
		names_free(&per[i]);
	free(per);
	names_free(&all);
	return r;
}

/* Every name of that type ("table", "view") in the attached files, first
 * seen first. */
static int all_tables(sqlite3 *db, int n, const char *type, struct names *out,
		      struct strobe_error *err)
{
	int i, r = 0;

	for (i = 0; !r && i < n; i++) {
		char *q = sqlite3_mprintf("SELECT name FROM s%d.sqlite_master WHERE type = %Q "
					  "AND name NOT LIKE 'sqlite_%%' ORDER BY rowid", i, type);
		sqlite3_stmt *st = NULL;

		if (!q)
			return strobe_err(err, -ENOMEM, "out of memory");
		if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
			sqlite3_free(q);
			return strobe_sql_fail(db, err, "sqlite_master");
		}
		sqlite3_free(q);
		while (!r && sqlite3_step(st) == SQLITE_ROW)
			if (names_add(out, (const char *)sqlite3_column_text(st, 0)) < 0)
				r = strobe_err(err, -ENOMEM, "out of memory");
		sqlite3_finalize(st);
	}
	return r;
}

/* The CREATE text of view `name` in attached file i (sqlite3_free it),
 * or NULL. */
static char *file_view_sql(sqlite3 *db, int i, const char *name)
{
	char *q = sqlite3_mprintf("SELECT sql FROM s%d.sqlite_master WHERE type = 'view' "
				  "AND name = %Q", i, name);
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_free(q);
	return out;
}

/* The same from the first of the n files that has it. */
static char *view_sql(sqlite3 *db, int n, const char *name)
{
	char *out = NULL;
	int i;

	for (i = 0; i < n && !out; i++)
		out = file_view_sql(db, i, name);
	return out;
}

/*
 * The events view over the merged event tables: each file's view is a
 * UNION ALL of one SELECT per event table, naming its host as a literal;
 * with the literal replaced by the merged tables' host column, the
 * SELECTs of every file (one per table) make the view.  -ENOENT when a
 * view does not have that shape (then it is materialized instead).
 */
static int events_view(sqlite3 *db, const struct strobe_merge *m, struct strobe_error *err)
{
	static const char head[] = "CREATE VIEW events AS SELECT * FROM (";
	int n = strobe_merge_nr_sources(m), i, r = 0;
	struct names froms = { 0 };
	sqlite3_str *q = sqlite3_str_new(db);
	bool any = false;
	char *sql;

	sqlite3_str_appendall(q, head);
	for (i = 0; !r && i < n; i++) {
		char *v = file_view_sql(db, i, "events"), *p, *end, *lit;
		size_t hl = strlen(head), ll;

		if (!v)
			continue;
		lit = sqlite3_mprintf("%Q AS host", strobe_merge_host(m, i));
		if (!lit || strncmp(v, head, hl) || v[strlen(v) - 1] != ')') {
			sqlite3_free(lit);
			sqlite3_free(v);
			r = -ENOENT;
			break;
		}
		ll = strlen(lit);
		v[strlen(v) - 1] = '\0';
		for (p = v + hl; p && *p; p = end) {
			char *from, *h;

			end = strstr(p, " UNION ALL ");
			if (end) {
				*end = '\0';
				end += 11;
			}
			from = strstr(p, " FROM ");
			h = strstr(p, lit);
			if (!from || !h) {
				r = -ENOENT;
				break;
			}
			if (names_has(&froms, from))
				continue;	/* an earlier file's SELECT reads that table */
			if (names_add(&froms, from) < 0) {
				r = strobe_err(err, -ENOMEM, "out of memory");
				break;
			}
			sqlite3_str_appendf(q, "%s%.*shost%s", any ? " UNION ALL " : "",
					    (int)(h - p), p, h + ll);
			any = true;
		}
		sqlite3_free(lit);
		sqlite3_free(v);
	}
	sqlite3_str_appendall(q, ")");
	sql = sqlite3_str_finish(q);
	if (!r && !any)
		r = -ENOENT;
	if (!r && !sql)
		r = strobe_err(err, -ENOMEM, "out of memory");
	if (!r)
		r = exec(db, sql, err);
	sqlite3_free(sql);
	names_free(&froms);
	return r;
}

/* A file at path that is neither absent, empty nor SQLite is not ours. */
static int replaceable(const char *path, struct strobe_error *err)
{
	char head[16] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f)
		return 0;
	got = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (got && (got < 16 || memcmp(head, "SQLite format 3", 16)))
		return strobe_err(err, -EEXIST, "%s exists and is not an SQLite database: "
				  "not replaced", path);
	return 0;
}

int strobe_sql_open_pipeline(struct strobe_pipeline *p, const char *db_path,
			     const struct strobe_sql_opts *opts, struct sqlite3 **out,
			     struct strobe_sql_stats *st, struct strobe_error *err)
{
	static int seq;
	struct strobe_sql_stats dummy;
	struct strobe_merge *m;
	sqlite3 **parts = NULL, *db = NULL;
	struct names tables = { 0 }, views = { 0 };
	char *tmp = NULL, uri[128];
	int n = strobe_pipeline_nr_sources(p), i, r = 0;

	*out = NULL;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (n <= 0)
		return strobe_err(err, -EINVAL, "no trace files");
	for (i = 0; i < n; i++) {
		const char *path = strobe_tracefile_path(strobe_pipeline_source(p, i)->tf);
		struct stat ts;

		if (!path)
			return strobe_err(err, -EINVAL, "the SQL loader reads trace files only");
		if (db_path && !strcmp(db_path, path))
			return strobe_err(err, -EINVAL, "%s is a trace file, not a database", db_path);
		if (stat(path, &ts) == 0)
			st->trace_bytes += (uint64_t)ts.st_size;
	}
	parts = calloc((size_t)n, sizeof(*parts));
	if (!parts)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (db_path) {
		r = replaceable(db_path, err);
		if (r < 0)
			goto out;
		if (asprintf(&tmp, "%s.tmp-%d", db_path, (int)getpid()) < 0) {
			tmp = NULL;
			r = strobe_err(err, -ENOMEM, "out of memory");
			goto out;
		}
		unlink(tmp);
	}
	if (sqlite3_open_v2(tmp ? tmp : ":memory:", &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		r = db ? strobe_sql_fail(db, err, tmp ? tmp : ":memory:")
		       : strobe_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	r = exec(db, "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; "
		 "PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY", err);
	if (!r && n == 1) {
		/* one file (given twice, say): its database as it is alone */
		r = exec(db, "PRAGMA cache_size = -262144", err);
		if (!r)
			r = strobe_sql_load_pipeline(p, &db, NULL, opts, st, err);
		goto done;
	}
	for (i = 0; !r && i < n; i++) {
		snprintf(uri, sizeof(uri), "file:strobe-merge-%d-%d-%d?mode=memory&cache=shared",
			 (int)getpid(), seq, i);
		if (sqlite3_open_v2(uri, &parts[i], SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				    SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
			r = parts[i] ? strobe_sql_fail(parts[i], err, uri)
				     : strobe_err(err, -ENOMEM, "out of memory");
			break;
		}
		/* as strobe_sql_open builds: big pages, no journal */
		r = exec(parts[i], "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; "
			 "PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; "
			 "PRAGMA cache_size = -262144", err);
	}
	/* every file in one run, each into its own database */
	if (!r)
		r = strobe_sql_load_pipeline(p, parts, NULL, opts, st, err);
	for (i = 0; !r && i < n; i++) {
		char *att;

		snprintf(uri, sizeof(uri), "file:strobe-merge-%d-%d-%d?mode=memory&cache=shared",
			 (int)getpid(), seq, i);
		att = sqlite3_mprintf("ATTACH %Q AS s%d", uri, i);
		r = att ? exec(db, att, err) : strobe_err(err, -ENOMEM, "out of memory");
		sqlite3_free(att);
	}
	seq++;
	m = strobe_pipeline_merge(p);
	if (!r)
		r = all_tables(db, n, "table", &tables, err);
	if (!r)
		r = all_tables(db, n, "view", &views, err);
	if (!r)
		r = exec(db, "BEGIN", err);
	for (i = 0; !r && i < tables.n; i++)
		r = merge_table(db, m, tables.v[i], err);
	/* views after the tables they read: events rebuilt over the merged
	 * event tables, the analyses' views (SELECT * FROM a table) as they
	 * were; a view of another shape is materialized like a table */
	for (i = 0; !r && i < views.n; i++) {
		char *v = NULL;

		if (!strcmp(views.v[i], "events"))
			r = events_view(db, m, err);
		else if ((v = view_sql(db, n, views.v[i])) &&
			 !strncmp(v, "CREATE VIEW", 11) && strstr(v, "SELECT * FROM ") &&
			 !strstr(v, "JOIN") && !strstr(v, "UNION"))
			r = exec(db, v, err);
		else
			r = -ENOENT;
		sqlite3_free(v);
		if (r == -ENOENT)
			r = merge_table(db, m, views.v[i], err);
	}
	if (!r) {
		char uv[64];

		snprintf(uv, sizeof(uv), "COMMIT; PRAGMA user_version = %d",
			 STROBE_SQL_SCHEMA_VERSION);
		r = exec(db, uv, err);
	}
	for (i = 0; i < n; i++) {
		char det[32];

		snprintf(det, sizeof(det), "DETACH s%d", i);
		sqlite3_exec(db, det, NULL, NULL, NULL);
	}
done:
	if (!r && tmp) {
		r = exec(db, "PRAGMA journal_mode = DELETE", err);
		if (!r)
			r = strobe_sql_install(&db, tmp, db_path, err);
		if (!r) {
			struct stat ds;

			if (stat(db_path, &ds) == 0)
				st->db_bytes = (uint64_t)ds.st_size;
		}
	}
out:
	names_free(&tables);
	names_free(&views);
	for (i = 0; i < n; i++)
		sqlite3_close(parts[i]);
	free(parts);
	if (r < 0) {
		sqlite3_close(db);
		if (tmp)
			unlink(tmp);
		free(tmp);
		return r;
	}
	free(tmp);
	*out = db;
	return 0;
}

int strobe_sql_open_many(const char *const *trace_paths, int n, const char *db_path,
			 const struct strobe_sql_opts *opts, struct sqlite3 **out,
			 struct strobe_sql_stats *st, struct strobe_error *err)
{
	struct strobe_tracefile **tfs = NULL;
	struct strobe_pipeline *p = NULL;
	int i, r = 0;

	*out = NULL;
	if (st)
		memset(st, 0, sizeof(*st));
	if (n <= 0)
		return strobe_err(err, -EINVAL, "no trace files");
	tfs = calloc((size_t)n, sizeof(*tfs));
	if (!tfs)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < n && r >= 0; i++)
		r = strobe_tracefile_open(trace_paths[i], &tfs[i], err);
	if (r >= 0)
		r = strobe_pipeline_new(NULL, &p, err);
	/* a file given twice (through a link, say) is one source, read once */
	for (i = 0; i < n && r >= 0; i++)
		r = strobe_pipeline_add_file(p, tfs[i], NULL, err);
	if (r >= 0)
		r = strobe_sql_open_pipeline(p, db_path, opts, out, st, err);
	strobe_pipeline_free(p);
	for (i = 0; i < n; i++)
		strobe_tracefile_close(tfs[i]);
	free(tfs);
	return r < 0 ? r : 0;
}
