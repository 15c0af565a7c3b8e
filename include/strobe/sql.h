/*
 * sql.h - a trace as an SQLite database: events, tasks, containers and
 * analysis results as tables that any SQL query (and the sqlite3 shell)
 * can read.  (Implemented in lib/sinks/sqlite.c and sqlite-load.c.)
 *
 * The database is built in one pass over the file's event stream, in one
 * transaction, with prepared multi-row INSERT statements.  Its schema
 * (documented in strobe-sql(1), versioned by STROBE_SQL_SCHEMA_VERSION,
 * which is stored as the database's PRAGMA user_version):
 *
 *   <event>      one table per event type present, named after the event
 *                ("sched_switch", "sys_enter"; "<system>_<event>" when two
 *                systems of the file share the name or the name is
 *                reserved): seq, ts, cpu, tid, pid, comm, container,
 *                buffer (instance buffer, NULL for the top level), then
 *                one typed column per field (integers INTEGER, strings
 *                TEXT, other arrays JSON text); a field whose name is
 *                taken by an earlier column is stored as field_<name>
 *   events       a view over every event table: seq, ts, cpu, tid, pid,
 *                comm, container, buffer, host, system, event, fields
 *                (JSON text of the fields, as strobe report --json
 *                writes them)
 *   tasks, containers   the process and container table (model.h)
 *   <analysis>_<table>  each analysis result table ("syscalls.stats" ->
 *                syscalls_stats), columns as in the analysis' --json;
 *                a view <analysis> names its statistics table; with
 *                strobe_sql_opts.logs, <analysis>_log has every occurrence
 *   meta         key/value facts: schema version, trace path and size,
 *                host, clock, event and loss counts, notes
 *
 * Everything here uses the caller's sqlite3 handle or returns one; the
 * library never prints.  A large database grown in heap memory spends
 * about a third of its loading time in page faults; strobe sql gives
 * SQLite a page cache in a mapping the kernel may back with huge pages
 * (SQLITE_CONFIG_PAGECACHE, process-wide, before SQLite starts: see
 * cli/cmd-sql.c), which nearly doubles the rate.  Errors: -errno and a struct strobe_error
 * message (SQLite's own message when SQLite failed).
 */
#ifndef STROBE_SQL_H
#define STROBE_SQL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;			/* <sqlite3.h>'s sqlite3 */
struct strobe_error;
struct strobe_event;
struct strobe_model;
struct strobe_tracefile;
struct strobe_formats;
struct strobe_pipeline;

/* Bumped whenever a table or column changes meaning or storage (3: seq
 * is no longer the event tables' rowid); a kept database of another
 * version is rebuilt. */
#define STROBE_SQL_SCHEMA_VERSION 3

/* The page size of databases strobe_sql_open builds (bytes). */
#define STROBE_SQL_PAGE_SIZE 65536

/* The analyses loaded when strobe_sql_opts.analyses is NULL. */
#define STROBE_SQL_ANALYSES "syscalls,cputop,schedlat"

struct strobe_sql_opts {
	/* events.host; NULL: the file's strobe info "host" (see
	 * strobe_tracefile_info), else for files trace-cmd wrote the node
	 * name of their UNAME option, else "". */
	const char *host;
	/* Comma-separated analyses whose results become tables; NULL means
	 * STROBE_SQL_ANALYSES, "" none. */
	const char *analyses;
	/* Also one row per occurrence in <analysis>_log tables (each system
	 * call with its duration, each wake-up with its latency, each
	 * on-CPU interval): what the analyses' --log prints. */
	bool logs;
	/* strobe_sql_open: rebuild a kept database even when it is current. */
	bool rebuild;
	/* Called with the pipeline that loads the files just before it runs
	 * (running true) and once it ended (running false), so that a
	 * caller's thread may read strobe_pipeline_progress(p) between the
	 * two calls, for a progress display (strobe sql's); NULL: none.
	 * Not called when a kept database is reused. */
	void (*on_run)(const struct strobe_pipeline *p, bool running, void *arg);
	void *on_run_arg;
	/* 2 or more: SQLite runs on a writer thread of each file's loader,
	 * beside the thread that decodes; 0 or 1: one thread. */
	int jobs;
};

/* What a load did (strobe_sql_load_file, strobe_sql_open). */
struct strobe_sql_stats {
	bool reused;		/* open: a kept database was current, not rebuilt */
	uint64_t events;	/* events loaded (rows of the event tables) */
	uint64_t lost;		/* events the ring buffer lost (known counts) */
	uint64_t skipped_pages;	/* damaged pages skipped (meta "skipped_why") */
	int nr_event_tables;	/* event types present */
	double seconds;		/* time the load took (wall clock) */
	double cpu_seconds;	/* CPU time the process spent on it */
	uint64_t trace_bytes;	/* size of the trace file */
	uint64_t db_bytes;	/* size of the kept database, 0 in memory */
};

/* ---- the sink: events of any stream into a database ---------------- */

/*
 * A sink writes events into the tables of `db` (borrowed): one table per
 * event type, created at the type's first event.  `fmts` (borrowed) holds
 * the formats the events refer to; `m` (borrowed) is the task model the
 * caller feeds (strobe_model_update) before each strobe_sql_sink_feed,
 * which gives pid, comm and container.  host may be NULL ("").  For
 * speed, feed inside a transaction (strobe_sql_load_file does).
 * Returns 0 or -errno (-ENOMEM, -EIO with SQLite's message).  Free with
 * strobe_sql_sink_free().
 */
struct strobe_sql_sink;
int strobe_sql_sink_new(struct sqlite3 *db, struct strobe_formats *fmts, struct strobe_model *m,
			const char *host, struct strobe_sql_sink **out,
			struct strobe_error *err);
/*
 * One event, in stream order.  Rows are buffered and inserted in
 * batches, so a failure may belong to an earlier event.  Returns 0 or
 * -errno; after a failure every later call returns it again.
 */
int strobe_sql_sink_feed(struct strobe_sql_sink *k, const struct strobe_event *ev,
			 struct strobe_error *err);
/*
 * Insert the rows still buffered, create the events view and the tasks
 * and containers tables (from the model: every task it holds, so set
 * STROBE_MODEL_KEEP_EXITED on it to list every task seen).  Call once.
 * Returns 0 or -errno.
 */
int strobe_sql_sink_finish(struct strobe_sql_sink *k, struct strobe_error *err);
/* Names of the stream's buffers by index (strobe_event.buffer), for the
 * buffer column: "" or NULL for the top-level buffer.  Borrowed: they
 * must outlive the sink.  Without this call, buffer is always NULL. */
void strobe_sql_sink_set_buffers(struct strobe_sql_sink *k, const char *const *names, int n);
/* Rows inserted so far and event tables created. */
uint64_t strobe_sql_sink_events(const struct strobe_sql_sink *k);
int strobe_sql_sink_nr_tables(const struct strobe_sql_sink *k);
void strobe_sql_sink_free(struct strobe_sql_sink *k);	/* NULL ok */

/* ---- whole files --------------------------------------------------- */

struct strobe_analysis;
/*
 * Every result table of a finished analysis as <analysis>_<table>
 * (log and histogram tables excepted), and a view per analysis naming
 * its first statistics table (else its first table).  Returns 0 or
 * -errno.
 */
int strobe_sql_add_analysis(struct sqlite3 *db, const struct strobe_analysis *a,
			    struct strobe_error *err);

/*
 * Load trace file tf into db (which must not hold strobe's tables yet):
 * a model from the file, the sink over every event, the analyses of
 * opts (NULL: defaults) with their results, the meta table and
 * PRAGMA user_version, in one transaction (begun here unless one is
 * open).  Damaged pages are skipped, counted and described in meta
 * (skipped_pages, skipped_why), as are a truncated file's damage and
 * lost events.  st may be NULL.  Returns 0 or -errno with *err set; on
 * failure the transaction begun here is rolled back.
 */
int strobe_sql_load_file(struct sqlite3 *db, struct strobe_tracefile *tf,
			 const char *trace_path, const struct strobe_sql_opts *opts,
			 struct strobe_sql_stats *st, struct strobe_error *err);

/*
 * A database for trace file `trace_path`: with db_path NULL, built in
 * memory; else kept at db_path and reused when it is newer than the
 * trace, of this schema version, made from this file (same size and
 * modification time) with the same opts, and rebuilt otherwise.  A
 * rebuild goes to db_path.tmp-PID, renamed over db_path when complete,
 * so a failed or interrupted build never leaves a half database (a
 * caller's signal handler may unlink that name: strobe sql does); a file
 * at db_path that is neither empty nor an SQLite database is never
 * replaced (-EEXIST), nor the trace itself (-EINVAL).
 * *out receives the open handle (close it with sqlite3_close()).  st may
 * be NULL.  Returns 0 or -errno with *err set.
 */
int strobe_sql_open(const char *trace_path, const char *db_path,
		    const struct strobe_sql_opts *opts, struct sqlite3 **out,
		    struct strobe_sql_stats *st, struct strobe_error *err);

/*
 * Several trace files (of several hosts) in one database, read in one
 * run of a pipeline (strobe-pipeline(3)) that merges them on one
 * timeline: each file loaded as strobe_sql_open loads one (its own task
 * model, analyses and meta, in its own trace clock; opts->host is
 * ignored: each file's host is its strobe_merge_host name), then every
 * table and view of theirs becomes one table holding the rows of all
 * files, with a "host" column first where the table had none, "ts" on
 * strobe_merge's timeline (wall-clock ns when every file has clock
 * pairings, else raw), and NULL in columns a file's version of the table
 * lacks.  seq counts per file: (host, seq) names an event.  A file given
 * again (the same file, also through a link) is read once, with a
 * diagnostic.same_file row in meta; when that leaves one file, the
 * database is that file's alone (no host columns added).  With db_path
 * the database is kept there (always rebuilt, through a temporary file
 * renamed into place; a non-SQLite file there is never replaced:
 * -EEXIST).  st (may be NULL) sums the files' loads.  Returns 0 or
 * -errno with *err set (naming the file).
 */
int strobe_sql_open_many(const char *const *trace_paths, int n, const char *db_path,
			 const struct strobe_sql_opts *opts, struct sqlite3 **out,
			 struct strobe_sql_stats *st, struct strobe_error *err);

/*
 * The same over the trace files the caller added to pipeline p
 * (strobe_pipeline_add_file; p not run yet, every source a file): the
 * SQL loader joins p's consumers (any others the caller added run in the
 * same pass) and p runs once with p's options (raw_time, strict, ...).
 * Afterwards p still answers strobe_pipeline_merge (the clocks, for a
 * note about them) and strobe_pipeline_diag; free it after.  Returns 0 or
 * -errno with *err set.
 */
int strobe_sql_open_pipeline(struct strobe_pipeline *p, const char *db_path,
			     const struct strobe_sql_opts *opts, struct sqlite3 **out,
			     struct strobe_sql_stats *st, struct strobe_error *err);

/* ---- bounds for a query from elsewhere ------------------------------ */

/*
 * What strobe sql's --safe and --timeout do (implemented in
 * lib/sinks/sqlite-guard.c), for any caller that runs queries it did not
 * write.  With safe, the database is read-only (a kept database at
 * db_path reopened read-only, replacing *db; one in memory with PRAGMA
 * query_only), SQLite's defensive mode is on, ATTACH, DETACH and PRAGMAs
 * that set something are refused, a writing statement (VACUUM INTO,
 * CREATE TEMP ...) is refused before it runs, and one query may use
 * STROBE_SQL_SAFE_HEAP bytes of heap beyond what the database holds (the
 * process-wide hard heap limit, restored by strobe_sql_guard_free),
 * values of STROBE_SQL_SAFE_LENGTH bytes, and STROBE_SQL_SAFE_TIMEOUT
 * seconds unless timeout says otherwise.  timeout alone (seconds, 0:
 * none) bounds each query's time.  Messages name the caller's options:
 * safe_name ("--safe" when NULL) and timeout_name, which the number
 * follows ("--timeout " when NULL; "timeout=" gives "timeout=1 s").
 */
#define STROBE_SQL_SAFE_HEAP	(512ll << 20)
#define STROBE_SQL_SAFE_LENGTH	(64 << 20)
#define STROBE_SQL_SAFE_TIMEOUT	60.0

struct strobe_sql_guard_opts {
	bool safe;
	double timeout;
	const char *safe_name;
	const char *timeout_name;
};

struct sqlite3_stmt;		/* <sqlite3.h>'s sqlite3_stmt */
struct strobe_sql_guard;
/* Guard *db (built at db_path, NULL: in memory).  Returns 0 or -errno
 * (-EINVAL: a timeout out of 0..1e9; -EIO: the read-only reopening
 * failed) with *err set. */
int strobe_sql_guard_new(struct sqlite3 **db, const char *db_path,
			 const struct strobe_sql_guard_opts *o, struct strobe_sql_guard **out,
			 struct strobe_error *err);
/* A query begins: its time starts now. */
void strobe_sql_guard_start(struct strobe_sql_guard *g);
/* A prepared statement the guard refuses before it runs (safe: one that
 * writes): -EPERM with *err set, else 0. */
int strobe_sql_guard_check(struct strobe_sql_guard *g, struct sqlite3_stmt *st,
			   struct strobe_error *err);
/* After a statement of the guarded database failed: *err in the words
 * of the limit hit, and -ETIMEDOUT (the timeout), -EPERM (refused),
 * -ENOMEM (the heap bound), -E2BIG (the length bound), or -EIO with
 * "SQL error: " and SQLite's message. */
int strobe_sql_guard_error(struct strobe_sql_guard *g, struct strobe_error *err);
/* Remove the guard's handlers and restore the heap limit; before the
 * database is closed.  NULL ok. */
void strobe_sql_guard_free(struct strobe_sql_guard *g);

#ifdef __cplusplus
}
#endif

#endif
