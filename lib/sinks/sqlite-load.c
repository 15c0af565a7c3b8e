/*
 * sqlite-load.c - the SQL loader on top of the SQLite sink (sqlite.c):
 * a whole file run as a pipeline consumer, with the model, the analyses
 * fed from the same pass (their results as tables, their log rows
 * inserted as they come, batched with the sink's machinery through
 * sqlite-int.h), tasks, containers and meta, in one transaction; one
 * consumer loads every file of a pipeline, each into its database
 * (strobe_sql_load_file: one file; sqlite-merge.c: several, in one run);
 * and strobe_sql_open() keeps a database beside the trace, built into a
 * temporary file renamed into place, reused while meta says it was made
 * from this very file with the same options.  Schema: include/strobe/sql.h
 * and doc/strobe-sql.1.
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

#define STROBE_SQL_STR2(x) #x
#define STROBE_SQL_STR(x) STROBE_SQL_STR2(x)

/* ---- analysis results ---------------------------------------------- */

static const char *col_decl(enum strobe_col_type type)
{
	switch (type) {
	case STROBE_COL_STR:
		return "TEXT";
	case STROBE_COL_PERCENT:
	case STROBE_COL_RATE:
		return "REAL";
	default:
		return "INTEGER";
	}
}

/* Bind one row of result table t to st's parameters 1.. */
static void bind_table_row(sqlite3_stmt *st, const struct strobe_table *t,
			   const union strobe_value *row)
{
	int i;

	for (i = 0; i < strobe_table_nr_columns(t); i++) {
		if (strobe_value_none(strobe_table_column(t, i)->type, &row[i])) {
			sqlite3_bind_null(st, i + 1);
			continue;
		}
		switch (strobe_table_column(t, i)->type) {
		case STROBE_COL_STR:
			if (row[i].s)
				sqlite3_bind_text(st, i + 1, row[i].s, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(st, i + 1);
			break;
		case STROBE_COL_INT:
			sqlite3_bind_int64(st, i + 1, row[i].i);
			break;
		case STROBE_COL_PERCENT:
		case STROBE_COL_RATE:
			sqlite3_bind_double(st, i + 1, row[i].d);
			break;
		default:	/* durations, timestamps, bytes: below 2^63 */
			sqlite3_bind_int64(st, i + 1, (int64_t)row[i].u);
		}
	}
}

/* "syscalls.stats" -> "syscalls_stats" (sqlite3_free() it). */
static char *sql_table_name(const char *name)
{
	char *s = sqlite3_mprintf("%s", name), *p;

	for (p = s; p && *p; p++)
		if (*p == '.')
			*p = '_';
	return s;
}

/* Create result table t (unless it exists) and, when rows, insert its rows. */
static int write_result_table(sqlite3 *db, const struct strobe_table *t, bool rows,
			      struct strobe_error *err)
{
	int nc = strobe_table_nr_columns(t), i, ret = 0;
	char *name = sql_table_name(strobe_table_name(t));
	char *create, *insert;
	sqlite3_stmt *st = NULL;
	size_t r, nr = rows ? strobe_table_nr_rows(t) : 0;

	create = name ? sqlite3_mprintf("CREATE TABLE IF NOT EXISTS \"%w\" (", name) : NULL;
	insert = name ? sqlite3_mprintf("INSERT INTO \"%w\" VALUES (", name) : NULL;
	for (i = 0; i < nc && create && insert; i++) {
		const struct strobe_column *c = strobe_table_column(t, i);
		char *c2 = sqlite3_mprintf("%s%s\"%w\" %s", create, i ? ", " : "", c->key,
					   col_decl(c->type));
		char *i2 = sqlite3_mprintf("%s%s?", insert, i ? "," : "");

		sqlite3_free(create);
		sqlite3_free(insert);
		create = c2;
		insert = i2;
	}
	if (create && insert) {
		char *c2 = sqlite3_mprintf("%s)", create), *i2 = sqlite3_mprintf("%s)", insert);

		sqlite3_free(create);
		sqlite3_free(insert);
		create = c2;
		insert = i2;
	}
	if (!create || !insert) {
		ret = strobe_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	ret = sql_exec_free(db, create, err);
	create = NULL;
	if (ret < 0 || !nr)
		goto out;
	if (sqlite3_prepare_v2(db, insert, -1, &st, NULL) != SQLITE_OK) {
		ret = strobe_sql_fail(db, err, name);
		goto out;
	}
	for (r = 0; r < nr && !ret; r++) {
		bind_table_row(st, t, strobe_table_row(t, r));
		ret = sql_step_reset(db, st, name, err);
	}
out:
	sqlite3_finalize(st);
	sqlite3_free(create);
	sqlite3_free(insert);
	sqlite3_free(name);
	return ret;
}

/*
 * The result tables of a (their schemas before strobe_analysis_finish,
 * which lists every requested analysis' tables; after it, only those of
 * the analyses that found their events), with their rows when `rows`,
 * and a view per analysis naming its first statistics table, else its
 * first table.  Log tables are made (empty) only without `rows`: their
 * rows come one by one, through on_log().
 */
static int write_results(sqlite3 *db, const struct strobe_analysis *a, bool rows,
			 struct strobe_error *err)
{
	const char *const *names = strobe_analysis_names();
	int n = strobe_analysis_nr_tables(a), i, j, ret;

	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);
		enum strobe_view v = strobe_table_view(t);

		/* log tables: made here empty, filled by on_log() */
		if ((v == STROBE_VIEW_LOG && rows) || v == STROBE_VIEW_FREQ)
			continue;
		ret = write_result_table(db, t, rows && v != STROBE_VIEW_LOG, err);
		if (ret < 0)
			return ret;
	}
	for (j = 0; names && names[j]; j++) {
		const struct strobe_table *pick = NULL;
		size_t len = strlen(names[j]);
		char *tn;

		for (i = 0; i < n; i++) {
			const struct strobe_table *t = strobe_analysis_table(a, i);
			enum strobe_view v = strobe_table_view(t);

			if (strncmp(strobe_table_name(t), names[j], len) ||
			    strobe_table_name(t)[len] != '.' ||
			    v == STROBE_VIEW_LOG || v == STROBE_VIEW_FREQ)
				continue;
			if (!pick || (v == STROBE_VIEW_STATS &&
				      strobe_table_view(pick) != STROBE_VIEW_STATS))
				pick = t;
		}
		if (!pick)
			continue;
		tn = sql_table_name(strobe_table_name(pick));
		if (!tn)
			return strobe_err(err, -ENOMEM, "out of memory");
		ret = sql_exec_free(db, sqlite3_mprintf("CREATE VIEW IF NOT EXISTS \"%w\" AS "
						    "SELECT * FROM \"%w\"", names[j], tn), err);
		sqlite3_free(tn);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int strobe_sql_add_analysis(struct sqlite3 *db, const struct strobe_analysis *a,
			    struct strobe_error *err)
{
	return write_results(db, a, true, err);
}

/*
 * The analyses' log rows (strobe_sql_opts.logs), inserted as they come:
 * copied into a batch per log table (their strings live only during the
 * callback), inserted MAX_BATCH rows at a time as events are.
 */
#define MAX_LOG_TABLES 16
struct log_sink {
	sqlite3 *db;
	struct writer *w;	/* the event sink's (NULL: none) */
	struct {
		const struct strobe_table *t;
		struct etype e;		/* table, ncols, statements, batch */
	} tables[MAX_LOG_TABLES];
	int nr;
	int failed;		/* first error, sticky */
	struct strobe_error err;
};

static struct etype *log_table(struct log_sink *l, const struct strobe_table *t)
{
	struct etype *e;
	char *name;
	int i;

	for (i = 0; i < l->nr; i++)
		if (l->tables[i].t == t)
			return &l->tables[i].e;
	if (l->nr == MAX_LOG_TABLES) {
		l->failed = strobe_err(&l->err, -ENOSPC, "more than %d log tables",
				       MAX_LOG_TABLES);
		return NULL;
	}
	e = &l->tables[l->nr].e;
	l->tables[l->nr++].t = t;
	name = sql_table_name(strobe_table_name(t));
	e->table = name ? strdup(name) : NULL;
	sqlite3_free(name);
	e->ncols = strobe_table_nr_columns(t);
	if (!e->table)
		l->failed = strobe_err(&l->err, -ENOMEM, "out of memory");
	else if (!(l->failed = sql_writer_drain(l->w, &l->err)))
		l->failed = sql_prepare_batches(l->db, e, &l->err);
	return l->failed ? NULL : e;
}

static void on_log(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct log_sink *l = arg;
	struct etype *e;
	struct sval *v;
	int i;

	if (l->failed || !(e = log_table(l, t)))
		return;
	v = e->vals + (size_t)e->nrows * e->ncols;
	for (i = 0; i < e->ncols; i++) {
		if (strobe_value_none(strobe_table_column(t, i)->type, &row[i])) {
			v[i].kind = V_NULL;
			continue;
		}
		switch (strobe_table_column(t, i)->type) {
		case STROBE_COL_STR:
			v[i].kind = V_NULL;
			if (row[i].s && !sql_put_bytes(e, &v[i], row[i].s, strlen(row[i].s))) {
				l->failed = strobe_err(&l->err, -ENOMEM, "out of memory");
				return;
			}
			break;
		case STROBE_COL_INT:
			v[i] = (struct sval){ .u.i = row[i].i, .kind = V_INT };
			break;
		case STROBE_COL_PERCENT:
		case STROBE_COL_RATE:
			v[i] = (struct sval){ .u.d = row[i].d, .kind = V_REAL };
			break;
		default:
			v[i] = (struct sval){ .u.i = (int64_t)row[i].u, .kind = V_INT };
		}
	}
	if (++e->nrows == e->batch_rows)
		l->failed = l->w ? sql_writer_submit(l->w, e, &l->err) : sql_flush_type(l->db, e, &l->err);
}

/* Insert the log rows still buffered; 0 or the first error. */
static int log_sink_flush(struct log_sink *l, struct strobe_error *err)
{
	int i;

	for (i = 0; i < l->nr && !l->failed; i++)
		l->failed = sql_flush_type(l->db, &l->tables[i].e, &l->err);
	if (l->failed && err)
		*err = l->err;
	return l->failed;
}

static void log_sink_free(struct log_sink *l)
{
	int i;

	for (i = 0; i < l->nr; i++)
		sql_etype_free(&l->tables[i].e);
}

/* ---- whole files ---------------------------------------------------- */

static int meta_put(sqlite3 *db, sqlite3_stmt *st, const char *key, const char *text,
		    int64_t num, bool is_num, struct strobe_error *err)
{
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (is_num)
		sqlite3_bind_int64(st, 2, num);
	else if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 2);
	return sql_step_reset(db, st, "meta", err);
}

static int64_t mtime_ns(const struct stat *s)
{
	return (int64_t)s->st_mtim.tv_sec * 1000000000 + s->st_mtim.tv_nsec;
}

static double clock_s(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct load_facts {
	const char *trace_path;
	const char *host;
	bool host_from_option;
	const char *analyses;
	bool logs;
	uint64_t events, missed, missed_unknown;
	uint64_t skipped_pages;		/* damaged pages the stream skipped */
	struct strobe_tracefile *tf;	/* its diagnostics, once the events are read */
	const struct strobe_analysis *an;
	const char *target_note;
};

static int write_meta(sqlite3 *db, struct strobe_tracefile *tf, const struct load_facts *f,
		      struct strobe_error *err)
{
	struct strobe_tf_buffer_info bi;
	sqlite3_stmt *st = NULL;
	struct stat sb;
	const char *v;
	int ret, i;

	if (sqlite3_exec(db, "CREATE TABLE meta (key TEXT, value)", NULL, NULL, NULL)
	    != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO meta VALUES (?,?)", -1, &st, NULL) != SQLITE_OK)
		return strobe_sql_fail(db, err, "meta");
	ret = meta_put(db, st, "schema_version", NULL, STROBE_SQL_SCHEMA_VERSION, true, err);
	if (!ret)
		ret = meta_put(db, st, "strobe_version", strobe_version(), 0, false, err);
	if (!ret)
		ret = meta_put(db, st, "trace", f->trace_path, 0, false, err);
	if (!ret && f->trace_path && stat(f->trace_path, &sb) == 0) {
		ret = meta_put(db, st, "trace_size", NULL, (int64_t)sb.st_size, true, err);
		if (!ret)
			ret = meta_put(db, st, "trace_mtime_ns", NULL, mtime_ns(&sb), true, err);
	}
	if (!ret)
		ret = meta_put(db, st, "host", f->host, 0, false, err);
	if (!ret)
		ret = meta_put(db, st, "host_from", f->host_from_option ? "option" : "file", 0,
			       false, err);
	if (!ret && strobe_tracefile_nr_buffers(tf) > 0 && !strobe_tracefile_buffer(tf, 0, &bi))
		ret = meta_put(db, st, "clock", bi.clock, 0, false, err);
	if (!ret)
		ret = meta_put(db, st, "analyses", f->analyses, 0, false, err);
	if (!ret)
		ret = meta_put(db, st, "logs", NULL, f->logs, true, err);
	if (!ret)
		ret = meta_put(db, st, "events", NULL, (int64_t)f->events, true, err);
	if (!ret)
		ret = meta_put(db, st, "lost", NULL, (int64_t)f->missed, true, err);
	if (!ret)
		ret = meta_put(db, st, "lost_unknown", NULL, (int64_t)f->missed_unknown, true, err);
	if (!ret && (v = strobe_tracefile_info(tf, "target")))
		ret = meta_put(db, st, "target", v, 0, false, err);
	if (!ret && (v = strobe_tracefile_info(tf, "incomplete")))
		ret = meta_put(db, st, "incomplete", v, 0, false, err);
	if (!ret && (v = strobe_tracefile_damage(tf)))
		ret = meta_put(db, st, "damage", v, 0, false, err);
	if (!ret && f->skipped_pages)
		ret = meta_put(db, st, "skipped_pages", NULL, (int64_t)f->skipped_pages, true, err);
	/* every diagnostic, as every command says it (strobe-damage(7)) */
	for (i = 0; !ret && f->tf && i < strobe_tracefile_nr_diags(f->tf); i++) {
		enum strobe_tf_diag_kind kind;
		const char *msg = strobe_tracefile_diag(f->tf, i, &kind);
		char key[64];

		snprintf(key, sizeof(key), "diagnostic.%s", strobe_tf_diag_name(kind));
		ret = meta_put(db, st, key, msg, 0, false, err);
	}
	if (!ret && f->target_note)
		ret = meta_put(db, st, "note", f->target_note, 0, false, err);
	for (i = 0; !ret && f->an && i < strobe_analysis_nr_notes(f->an); i++)
		ret = meta_put(db, st, "note", strobe_analysis_note(f->an, i), 0, false, err);
	sqlite3_finalize(st);
	return ret;
}

/*
 * One file's load into its database: made before the run (a model from
 * the file, kept with exited tasks; the transaction begun), started with
 * it (the sink, the analyses and their tables, empty), fed every event of
 * its source, finished after it (the rows still buffered, the analyses'
 * results, tasks, containers, meta; committed).
 */
struct loader {
	sqlite3 *db;
	struct strobe_tracefile *tf;
	struct load_facts f;
	struct strobe_model *m;
	struct strobe_sql_sink *k;
	struct strobe_analysis *an;	/* NULL: no analyses asked for */
	struct strobe_analysis *feed;	/* an when its events are in the file */
	struct log_sink logs;
	const char **bufnames;
	char *note;
	bool began;		/* the transaction is ours */
	bool many;		/* one of several files: errors name it */
	int jobs;		/* opts.jobs */
	char uname_host[256];
};

static int loader_init(struct loader *l, sqlite3 *db, struct strobe_tracefile *tf,
		       const char *trace_path, const struct strobe_sql_opts *opts,
		       struct strobe_error *err)
{
	int ret;

	l->db = db;
	l->tf = tf;
	l->logs.db = db;
	l->f.trace_path = trace_path;
	l->f.analyses = opts && opts->analyses ? opts->analyses : STROBE_SQL_ANALYSES;
	l->f.host_from_option = opts && opts->host;
	l->f.logs = opts && opts->logs;
	l->jobs = opts ? opts->jobs : 0;
	l->f.host = l->f.host_from_option ? opts->host
		    : strobe_tracefile_host(tf, l->uname_host, sizeof(l->uname_host));
	if (sqlite3_get_autocommit(db)) {
		if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
			return strobe_sql_fail(db, err, "BEGIN");
		l->began = true;
	}
	ret = strobe_model_new(&l->m, err);
	if (ret < 0)
		return ret;
	strobe_model_set_options(l->m, STROBE_MODEL_KEEP_EXITED);
	return strobe_model_load_file(l->m, tf, err);
}

/* At the run's start: host (NULL: the one loader_init chose) names the
 * file's rows. */
static int loader_start(struct loader *l, const char *host, struct strobe_error *err)
{
	struct strobe_formats *fmts = strobe_tracefile_formats(l->tf);
	struct strobe_analysis_opts ao = { .views = STROBE_VIEW_TOP | STROBE_VIEW_STATS };
	struct strobe_error e2 = { 0, "" };
	int nbuf, i, ret;

	if (host) {
		l->f.host = host;
		l->f.host_from_option = true;
	}
	ret = strobe_sql_sink_new(l->db, fmts, l->m, l->f.host, &l->k, err);
	if (ret < 0)
		return ret;
	/* NULL: SQLite stays on this thread */
	l->logs.w = l->jobs >= 2 ? sql_sink_use_writer(l->k) : NULL;
	nbuf = strobe_tracefile_nr_buffers(l->tf);
	if (nbuf > 1) {
		l->bufnames = calloc((size_t)nbuf, sizeof(*l->bufnames));
		if (!l->bufnames)
			return strobe_err(err, -ENOMEM, "out of memory");
		for (i = 0; i < nbuf; i++) {
			struct strobe_tf_buffer_info bi;

			if (!strobe_tracefile_buffer(l->tf, i, &bi))
				l->bufnames[i] = bi.name;	/* owned by tf */
		}
		strobe_sql_sink_set_buffers(l->k, l->bufnames, nbuf);
	}
	if (!*l->f.analyses)
		return 0;
	if (l->f.logs) {
		ao.views |= STROBE_VIEW_LOG;
		ao.log = on_log;
		ao.log_arg = &l->logs;
	}
	ret = strobe_analysis_new(l->f.analyses, &ao, &l->an, err);
	if (ret < 0)
		return ret;
	ret = strobe_analysis_set_target(l->an, strobe_tracefile_info(l->tf, "target"),
					 strobe_tracefile_info(l->tf, "target_pids"),
					 strobe_tracefile_info(l->tf, "target_containers"), &e2);
	if (ret == -EINVAL) {
		if (asprintf(&l->note, "%s: analysed as a whole-system recording", e2.msg) < 0)
			l->note = NULL;
		l->f.target_note = l->note;
	} else if (ret < 0) {
		return strobe_err(err, ret, "%s", e2.msg);
	}
	ret = strobe_analysis_attach(l->an, fmts, l->m, &e2);
	if (ret < 0 && ret != -ENOENT)
		return strobe_err(err, ret, "%s", e2.msg);
	l->feed = ret == 0 ? l->an : NULL;	/* -ENOENT: no events; a note says so */
	/* every table now, empty: an analysis without its events has none
	 * after finish, yet its tables are part of the schema */
	return write_results(l->db, l->an, false, err);
}

/* After the run: ss holds the counts of this file's stream. */
static int loader_finish(struct loader *l, const struct strobe_stream_stats *ss,
			 struct strobe_error *err)
{
	int ret;

	l->f.skipped_pages = strobe_tracefile_bad_data(l->tf);
	l->f.tf = l->tf;
	l->f.events = strobe_sql_sink_events(l->k);
	l->f.missed = ss->missed;
	l->f.missed_unknown = ss->missed_unknown;
	ret = strobe_sql_sink_finish(l->k, err);
	if (ret < 0)
		return ret;
	if (l->feed) {
		ret = strobe_analysis_finish(l->feed, err);
		if (!ret)
			ret = log_sink_flush(&l->logs, err);
		if (!ret)
			ret = write_results(l->db, l->feed, true, err);
		if (ret < 0)
			return ret;
	}
	l->f.an = l->an;
	ret = write_meta(l->db, l->tf, &l->f, err);
	if (!ret)
		ret = sql_exec_free(l->db, sqlite3_mprintf("PRAGMA user_version = %d",
							   STROBE_SQL_SCHEMA_VERSION), err);
	if (!ret && l->began) {
		if (sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			return strobe_sql_fail(l->db, err, "COMMIT");
		l->began = false;
	}
	return ret;
}

static void loader_free(struct loader *l)
{
	if (l->began)
		sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
	strobe_sql_sink_free(l->k);
	log_sink_free(&l->logs);
	free(l->bufnames);
	strobe_analysis_free(l->an);
	strobe_model_free(l->m);
	free(l->note);
}

/* One of several files failed: the error names it (the loader's
 * messages may not). */
static int name_file(const struct loader *l, int r, struct strobe_error *err)
{
	char msg[sizeof(err->msg)];

	if (!l->many || !err || !l->f.trace_path || strstr(err->msg, l->f.trace_path))
		return r;
	snprintf(msg, sizeof(msg), "%s", err->msg[0] ? err->msg : strerror(-r));
	return strobe_err(err, r, "%s: %s", l->f.trace_path, msg);
}

/* The loaders as one pipeline consumer (arg: the loaders, by source):
 * every event into its file's sink, and its analyses when they have
 * their events, in its file's own trace clock. */
static int load_start(const struct strobe_pipeline_source *sources, int nr, void *arg,
		      struct strobe_error *err)
{
	struct loader *l = arg;
	int i, ret;

	for (i = 0; i < nr; i++) {
		ret = loader_start(&l[i], l[i].many ? sources[i].host : NULL, err);
		if (ret < 0)
			return name_file(&l[i], ret, err);
	}
	return 0;
}

static int load_event(const struct strobe_event *ev, int source, void *arg,
		      struct strobe_error *err)
{
	struct loader *l = (struct loader *)arg + source;
	int ret = strobe_sql_sink_feed(l->k, ev, err);

	if (__builtin_expect(ret < 0, 0))
		return name_file(l, ret, err);
	if (l->feed)
		strobe_analysis_feed(l->feed, ev);
	return 0;
}

int strobe_sql_load_pipeline(struct strobe_pipeline *p, struct sqlite3 *const *dbs,
			     const char *const *paths, const struct strobe_sql_opts *opts,
			     struct strobe_sql_stats *st, struct strobe_error *err)
{
	int n = strobe_pipeline_nr_sources(p), i, tables = 0, ret = 0;
	struct loader *l = calloc((size_t)(n > 0 ? n : 1), sizeof(*l));
	struct strobe_consumer cons = {
		.size = sizeof(cons), .name = "the SQL loader",
		.flags = STROBE_CONSUMER_SOURCE_TIME, .start = load_start,
		.event = load_event, .arg = l,
	};
	struct strobe_stream_stats ss, sum = { 0 };
	struct strobe_merge *m;
	double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t skipped = 0;

	if (!l)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		struct strobe_tracefile *tf = strobe_pipeline_source(p, i)->tf;

		l[i].many = n > 1;
		if (!tf) {
			ret = strobe_err(err, -EINVAL, "the SQL loader reads trace files only");
			break;
		}
		ret = loader_init(&l[i], dbs[i], tf, paths ? paths[i] : strobe_tracefile_path(tf),
				  opts, err);
		if (ret < 0)
			ret = name_file(&l[i], ret, err);
		else
			ret = strobe_pipeline_set_model(p, i, l[i].m, err);
	}
	if (!ret)
		ret = strobe_pipeline_add_consumer(p, &cons, err);
	if (!ret) {
		if (opts && opts->on_run)
			opts->on_run(p, true, opts->on_run_arg);
		ret = strobe_pipeline_run(p, err);
		if (opts && opts->on_run)
			opts->on_run(p, false, opts->on_run_arg);
	}
	if (ret > 0)
		ret = 0;	/* how the input ended */
	m = strobe_pipeline_merge(p);
	for (i = 0; i < n && !ret; i++) {
		if (m)
			strobe_stream_stats(strobe_merge_stream(m, i), &ss);
		else
			strobe_pipeline_stats(p, &ss);
		ret = loader_finish(&l[i], &ss, err);
		if (ret < 0)
			ret = name_file(&l[i], ret, err);
		sum.missed += ss.missed;
		skipped += l[i].f.skipped_pages;
		if (strobe_sql_sink_nr_tables(l[i].k) > tables)
			tables = strobe_sql_sink_nr_tables(l[i].k);
		sum.events += l[i].f.events;
	}
	if (!ret && st) {
		st->events = sum.events;
		st->lost = sum.missed;
		st->skipped_pages = skipped;
		st->nr_event_tables = tables;
		st->seconds = clock_s(CLOCK_MONOTONIC) - t0;
		st->cpu_seconds = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	for (i = 0; i < n; i++)
		loader_free(&l[i]);
	free(l);
	return ret;
}

int strobe_sql_load_file(struct sqlite3 *db, struct strobe_tracefile *tf,
			 const char *trace_path, const struct strobe_sql_opts *opts,
			 struct strobe_sql_stats *st, struct strobe_error *err)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po) };
	struct strobe_pipeline *p = NULL;
	int ret;

	ret = strobe_pipeline_new(&po, &p, err);
	if (ret >= 0)
		ret = strobe_pipeline_add_file(p, tf, NULL, err);
	if (ret >= 0)
		ret = strobe_sql_load_pipeline(p, &db, &trace_path, opts, st, err);
	strobe_pipeline_free(p);
	return ret < 0 ? ret : 0;
}

/* Text of meta key (sqlite3_free() it), NULL when absent. */
static char *meta_get(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
	    != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static bool meta_is(sqlite3 *db, const char *key, const char *want)
{
	char *v = meta_get(db, key);
	bool ok = v && !strcmp(v, want);

	sqlite3_free(v);
	return ok;
}

/* The kept database at path if it is current for this trace and opts. */
static sqlite3 *open_current(const char *path, const struct stat *trace,
			     const struct strobe_sql_opts *opts)
{
	const char *analyses = opts && opts->analyses ? opts->analyses : STROBE_SQL_ANALYSES;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char num[32];
	bool ok = false;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW ||
	    sqlite3_column_int(st, 0) != STROBE_SQL_SCHEMA_VERSION)
		goto out;
	snprintf(num, sizeof(num), "%lld", (long long)trace->st_size);
	if (!meta_is(db, "trace_size", num))
		goto out;
	snprintf(num, sizeof(num), "%lld", (long long)mtime_ns(trace));
	if (!meta_is(db, "trace_mtime_ns", num) || !meta_is(db, "analyses", analyses) ||
	    !meta_is(db, "logs", opts && opts->logs ? "1" : "0"))
		goto out;
	if (opts && opts->host ? !meta_is(db, "host_from", "option") ||
				 !meta_is(db, "host", opts->host)
			       : !meta_is(db, "host_from", "file"))
		goto out;
	ok = true;
out:
	sqlite3_finalize(st);
	if (!ok) {
		sqlite3_close(db);
		db = NULL;
	}
	return db;
}

/*
 * May a build replace what is at path?  Nothing, an empty file or an
 * SQLite database: yes.  The trace itself, or any other file: no (a
 * mistyped --db must not destroy data).  Returns 0 or -errno.
 */
static int replaceable(const char *path, const struct stat *trace, struct strobe_error *err)
{
	static const char magic[16] = "SQLite format 3";	/* and its NUL */
	char head[16];
	struct stat sb;
	ssize_t n;
	int fd;

	if (stat(path, &sb) < 0)
		return errno == ENOENT ? 0 : strobe_err(err, -errno, "%s: %s", path,
							strerror(errno));
	if (sb.st_dev == trace->st_dev && sb.st_ino == trace->st_ino)
		return strobe_err(err, -EINVAL, "%s: is the trace file itself", path);
	if (!S_ISREG(sb.st_mode))
		return strobe_err(err, -EINVAL, "%s: not a regular file", path);
	if (sb.st_size == 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return strobe_err(err, -errno, "%s: %s", path, strerror(errno));
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n != (ssize_t)sizeof(head) || memcmp(head, magic, sizeof(head)))
		return strobe_err(err, -EEXIST, "%s: exists and is not an SQLite database; "
				  "not replacing it", path);
	return 0;
}

/* Flush a finished database file to disk before it replaces the old one. */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Put the finished build at tmp in place of db_path (flushed, then
 * renamed) and reopen *db there: SQLite refuses writes to a database
 * whose file was renamed while it was open (SQLITE_READONLY_DBMOVED, its
 * rollback journal would no longer be found), so the handle that built
 * it would refuse the caller's first CREATE INDEX.  On failure *db is
 * still the build's handle (the caller closes it and unlinks tmp).
 */
int strobe_sql_install(struct sqlite3 **db, const char *tmp, const char *db_path,
		       struct strobe_error *err)
{
	sqlite3 *again = NULL;
	int ret = sync_file(tmp);

	if (ret == 0 && rename(tmp, db_path) < 0)
		ret = -errno;
	if (ret < 0)
		return strobe_err(err, ret, "%s: %s", db_path, strerror(-ret));
	if (sqlite3_open_v2(db_path, &again, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		ret = again ? strobe_sql_fail(again, err, db_path)
			    : strobe_err(err, -ENOMEM, "out of memory");
		sqlite3_close(again);
		return ret;
	}
	sqlite3_close(*db);
	*db = again;
	return 0;
}

int strobe_sql_open(const char *trace_path, const char *db_path,
		    const struct strobe_sql_opts *opts, struct sqlite3 **out,
		    struct strobe_sql_stats *st, struct strobe_error *err)
{
	struct strobe_sql_stats dummy;
	struct strobe_tracefile *tf = NULL;
	struct stat ts, ds;
	sqlite3 *db = NULL;
	char *tmp = NULL;
	int ret;

	*out = NULL;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (stat(trace_path, &ts) < 0)
		return strobe_err(err, -errno, "%s: %s", trace_path, strerror(errno));
	st->trace_bytes = (uint64_t)ts.st_size;
	if (db_path && !(opts && opts->rebuild) && stat(db_path, &ds) == 0 &&
	    mtime_ns(&ds) >= mtime_ns(&ts)) {
		db = open_current(db_path, &ts, opts);
		if (db) {
			char *n = meta_get(db, "events");

			st->reused = true;
			st->events = n ? strtoull(n, NULL, 10) : 0;
			st->db_bytes = (uint64_t)ds.st_size;
			sqlite3_free(n);
			*out = db;
			return 0;
		}
	}
	if (db_path) {
		ret = replaceable(db_path, &ts, err);
		if (ret < 0)
			return ret;
		if (asprintf(&tmp, "%s.tmp-%d", db_path, (int)getpid()) < 0)
			return strobe_err(err, -ENOMEM, "out of memory");
		unlink(tmp);
	}
	if (sqlite3_open_v2(tmp ? tmp : ":memory:", &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		ret = db ? strobe_sql_fail(db, err, tmp ? tmp : ":memory:")
			 : strobe_err(err, -ENOMEM, "out of memory");
		goto fail;
	}
	/* A build is all or nothing (a temporary file renamed at the end),
	 * so it needs no journal and no syncs on the way. */
	if (sqlite3_exec(db, "PRAGMA page_size = " STROBE_SQL_STR(STROBE_SQL_PAGE_SIZE) "; "
			 "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
			 "PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY; "
			 "PRAGMA cache_size = -262144", NULL, NULL, NULL) != SQLITE_OK) {
		ret = strobe_sql_fail(db, err, "PRAGMA");
		goto fail;
	}
	ret = strobe_tracefile_open(trace_path, &tf, err);
	if (ret < 0)
		goto fail;
	ret = strobe_sql_load_file(db, tf, trace_path, opts, st, err);
	strobe_tracefile_close(tf);
	if (ret < 0)
		goto fail;
	if (sqlite3_exec(db, tmp ? "PRAGMA journal_mode = DELETE; PRAGMA locking_mode = NORMAL; "
			 "PRAGMA synchronous = NORMAL"
			 : "PRAGMA journal_mode = MEMORY", NULL, NULL, NULL) != SQLITE_OK) {
		ret = strobe_sql_fail(db, err, "PRAGMA");
		goto fail;
	}
	if (tmp) {
		ret = strobe_sql_install(&db, tmp, db_path, err);
		if (ret < 0)
			goto fail;
		if (stat(db_path, &ds) == 0)
			st->db_bytes = (uint64_t)ds.st_size;
	}
	free(tmp);
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	if (tmp)
		unlink(tmp);
	free(tmp);
	return ret;
}
