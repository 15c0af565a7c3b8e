/*
 * clickhouse.h - a trace's events and per-second per-container aggregates
 * in ClickHouse, the column store a fleet already runs, so one SQL query
 * spans hosts and weeks.  (Implemented in lib/sinks/clickhouse.c.)
 *
 * Two objects:
 *
 *  - struct strobe_clickhouse: a client of one server's HTTP interface
 *    (libcurl; one connection kept alive).  It creates the database and
 *    the tables when missing and inserts batches of rows, gzip-compressed
 *    (Debian's clickhouse-server 18.16 takes gzip, not zstd, bodies).
 *  - struct strobe_ch_sink: turns a stream of events into rows, in
 *    ClickHouse's RowBinary format, and hands each full batch to a sender
 *    (strobe_clickhouse_send for a server; any function of that type for
 *    a spool file or a test).
 *
 * Schema (documented in strobe-export(1); accepted by ClickHouse 18.16,
 * which has neither DateTime64 nor, without an experimental setting,
 * LowCardinality):
 *
 *   events (host String, ts UInt64, time DateTime, cpu UInt16, tid Int32,
 *           pid Int32, comm String, container String, system String,
 *           event String, fields String)
 *     ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time)
 *     ORDER BY (host, ts)
 *   container_seconds (host String, time DateTime, container String,
 *           cpu_ns UInt64, syscalls UInt64, errors UInt64,
 *           syscall_ns UInt64, lat_log2 Array(UInt64))
 *     ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time)
 *     ORDER BY (host, time, container)
 *
 * ts is the event's trace-clock time (ns); time is the wall-clock second
 * of the event: ts plus the recording's clock offset (see
 * strobe_clickhouse_export_file).  fields is the JSON text of the event's
 * fields exactly as `strobe report --json` writes them (and strobe sql's
 * events view): read it with visitParamExtractInt(fields, 'ret') and
 * friends.  pid is the thread group (-1 unknown), comm and container come
 * from the task model ("" unknown).
 *
 * container_seconds rows are partial sums: a second may have several rows
 * for one container (on-CPU time that reaches back into a second already
 * sent), so always aggregate: sum(cpu_ns), sumForEach(lat_log2).
 * cpu_ns: on-CPU time of the container's tasks from sched_switch (idle,
 * pid 0, excluded; an interval is split at second boundaries); syscalls:
 * system-call exits (raw_syscalls:sys_exit or syscalls:sys_exit_*);
 * errors: exits with ret < 0; syscall_ns and lat_log2: latency of calls
 * whose entry was seen, bucket i counting latencies in [2^i, 2^(i+1)) ns
 * (bucket 0 also 0 ns), STROBE_CH_LAT_BUCKETS buckets, the last open.
 *
 * Credentials: opts.user/opts.password, else the environment's
 * CLICKHOUSE_USER / CLICKHOUSE_PASSWORD; sent as HTTP basic
 * authentication and never put in an error message (nor is a
 * user:password@ part of the URL).  The library never prints; errors are
 * -errno with a struct strobe_error message that carries ClickHouse's own
 * error text when the server refused a request.
 */
#ifndef STROBE_CLICKHOUSE_H
#define STROBE_CLICKHOUSE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_event;
struct strobe_formats;
struct strobe_model;
struct strobe_tracefile;

#define STROBE_CH_LAT_BUCKETS 32
/* Rows per insert unless opts say otherwise. */
#define STROBE_CH_BATCH_ROWS 100000

/* ---- the HTTP client ---------------------------------------------- */

struct strobe_clickhouse_opts {
	const char *url;	/* "http://HOST:8123" (https works if curl's does) */
	const char *database;	/* NULL: "strobe" */
	const char *user;	/* NULL: $CLICKHOUSE_USER, else the server's default */
	const char *password;	/* NULL: $CLICKHOUSE_PASSWORD, else none */
	bool no_compress;	/* send bodies as they are, not gzip (always so to
				 * a loopback host: localhost, 127/8, [::1]) */
	long timeout_s;		/* per request; 0: 300 s */
	/* When the server cannot be reached (connection refused, host not
	 * found, the connection dropped without an answer), retry the request
	 * with growing pauses (0.1 s doubling up to 5 s) for up to this many
	 * seconds; 0: fail at once.  A server that died after committing an
	 * INSERT but before answering gets that batch twice. */
	double retry_s;
};

struct strobe_clickhouse;
/*
 * A client for opts->url (strings copied).  Does not connect; the first
 * request does.  Returns 0 or -errno (-EINVAL: a URL that is not http(s),
 * a database name that is not [A-Za-z0-9_]+).  Free with
 * strobe_clickhouse_free().
 */
int strobe_clickhouse_new(const struct strobe_clickhouse_opts *opts,
			  struct strobe_clickhouse **out, struct strobe_error *err);
void strobe_clickhouse_free(struct strobe_clickhouse *ch);	/* NULL ok */

/*
 * Run one query (the body of a POST).  With out non-NULL, *out receives
 * the server's answer, NUL-terminated (free() it), *out_len its length
 * (out_len may be NULL).  Returns 0, -ECONNREFUSED/-EHOSTUNREACH/
 * -ETIMEDOUT ... when the server cannot be reached, -EIO with the
 * server's error text when it answered with an HTTP error.
 */
int strobe_clickhouse_query(struct strobe_clickhouse *ch, const char *sql, char **out,
			    size_t *out_len, struct strobe_error *err);

/* CREATE DATABASE / TABLE IF NOT EXISTS for the schema above.  0 or -errno. */
int strobe_clickhouse_create_schema(struct strobe_clickhouse *ch, struct strobe_error *err);

/*
 * Insert `rows` rows of RowBinary data into table (of the client's
 * database), compressed unless opts.no_compress.  The signature is
 * strobe_ch_send_fn's: pass it with the client as arg.  0 or -errno.
 */
int strobe_clickhouse_send(void *ch, const char *table, const void *data, size_t len,
			   uint64_t rows, struct strobe_error *err);

/* ---- the sink: events into rows ------------------------------------ */

/* Receives a batch of `rows` rows of `table` in RowBinary (data valid
 * during the call only).  Returns 0 or -errno (with err set). */
typedef int (*strobe_ch_send_fn)(void *arg, const char *table, const void *data,
				 size_t len, uint64_t rows, struct strobe_error *err);

struct strobe_ch_sink_opts {
	const char *host;	/* the host column; NULL: "" */
	int64_t wall_offset_ns;	/* added to ts for the time column */
	uint64_t batch_rows;	/* rows per events batch; 0: STROBE_CH_BATCH_ROWS */
	bool no_aggregates;	/* no container_seconds rows */
};

struct strobe_ch_stats {
	uint64_t events;	/* events fed */
	uint64_t rows_sent;	/* events rows the sender accepted */
	uint64_t agg_rows_sent;	/* container_seconds rows accepted */
	uint64_t batches;	/* sender calls that succeeded */
	uint64_t bytes;		/* RowBinary bytes handed to the sender */
	uint64_t rows_failed;	/* rows of batches the sender refused */
};

/*
 * A sink for events described by fmts (borrowed: strobe_tracefile_formats,
 * strobe_stream_formats), whose pid, comm
 * and container come from model m (borrowed; the caller feeds it with
 * strobe_model_update before each strobe_ch_sink_feed; NULL: unknown).
 * send(send_arg, ...) receives the batches.  Returns 0 or -errno.
 */
struct strobe_ch_sink;
int strobe_ch_sink_new(struct strobe_formats *fmts, struct strobe_model *m,
		       const struct strobe_ch_sink_opts *opts, strobe_ch_send_fn send,
		       void *send_arg, struct strobe_ch_sink **out, struct strobe_error *err);
/*
 * The same for the events of stream s (a file's or a live capture's; its
 * formats are borrowed: s must outlive the sink).  This is how a live
 * recording feeds ClickHouse: iterate the capture's stream, update the
 * model, feed the sink (examples/clickhouse_live.c).  The sink sends
 * from strobe_ch_sink_feed: with strobe_clickhouse_send as the sender a
 * slow server holds up the callback and, once the capture's queues are
 * full, the kernel drops events (counted by the capture as lost); with
 * a struct strobe_ch_sender (below) it never waits for the network.
 */
struct strobe_stream;
int strobe_ch_sink_new_stream(struct strobe_stream *s, struct strobe_model *m,
			      const struct strobe_ch_sink_opts *opts, strobe_ch_send_fn send,
			      void *send_arg, struct strobe_ch_sink **out,
			      struct strobe_error *err);
/*
 * One event, in stream order.  A full batch is sent from here, so a
 * failure may be the sender's.  Returns 0 or -errno; after a failure
 * every later call returns it again (the rows of the refused batch are
 * counted in stats.rows_failed).
 */
int strobe_ch_sink_feed(struct strobe_ch_sink *k, const struct strobe_event *ev,
			struct strobe_error *err);
/*
 * Send the rows buffered so far (however few) and the aggregates of the
 * wall-clock seconds before the latest event's: what a live recording
 * calls about once a second so that rows reach the server while it
 * runs.  0 or -errno (sticky, as strobe_ch_sink_feed).
 */
int strobe_ch_sink_flush(struct strobe_ch_sink *k, struct strobe_error *err);
/* Send every buffered row and aggregate.  Call once at the end.  0 or -errno. */
int strobe_ch_sink_finish(struct strobe_ch_sink *k, struct strobe_error *err);
void strobe_ch_sink_stats(const struct strobe_ch_sink *k, struct strobe_ch_stats *st);
void strobe_ch_sink_free(struct strobe_ch_sink *k);	/* NULL ok */

/* ---- a sender that never holds up its producer ------------------- */

/*
 * struct strobe_ch_sender delivers batches to a server from a thread of
 * its own, so that the thread producing rows (a live recording's) never
 * waits for the network.  strobe_ch_sender_send, a strobe_ch_send_fn,
 * only copies the batch into a queue in memory.  When the server is slow
 * or down, batches go to a spool file (the memory queue spills into it,
 * and the sender thread moves the batch that failed and those behind it
 * there) and are delivered again, oldest first, after pauses of
 * backoff_min_s doubling up to backoff_max_s between attempts.  When the
 * spool cannot take a batch (spool_max reached, or a write error), the
 * batch is dropped and its rows and bytes counted: the producer is
 * never held up.  ClickHouse's tables are ordered by time, so the order
 * in which batches arrive does not matter.
 *
 * The spool is the versioned spool of strobe's one sender (the OTLP
 * exporter's too; its format: strobe-export(1), SPOOL FILES): records
 * of table name, rows, a crc32 and the body (RowBinary, or gzip of it),
 * behind a header naming the version and the kind (ClickHouse).  A
 * version 1 spool ("strobe-ch-spool1", written before the sender was
 * shared) is still replayed.
 * Delivered records before the first undelivered one have their disk
 * space released (hole punched) where the file system allows, else
 * they count against spool_max until the spool empties, when the file
 * is truncated.  The
 * file is created at the first batch that needs it (never overwriting
 * one: a name in use gets a ".N" suffix), removed when everything in it
 * was delivered, and otherwise kept: strobe_ch_spool_replay() (strobe
 * export --spool FILE) delivers it later.
 *
 * A failed attempt re-creates the schema before the next one, so a
 * server that lost its tables gets them again.  Every failure is
 * retried, a refused batch too (a wrong password can be fixed while the
 * sender waits); a server that died after committing an INSERT but before
 * answering gets that batch twice.
 */
struct strobe_ch_sender_opts {
	const char *spool_path;	/* NULL: $TMPDIR (else /tmp)/strobe-ch-spool-PID */
	uint64_t spool_max;	/* bytes; 0: 1 GiB */
	uint64_t mem_max;	/* bytes of batches queued in memory; 0: 64 MiB */
	double backoff_min_s;	/* 0: 0.5 s */
	double backoff_max_s;	/* 0: 30 s */
	/* May be NULL; when *stop becomes non-zero during
	 * strobe_ch_sender_close's last attempts (a second Ctrl-C), they
	 * end at once and what is left goes to the spool. */
	volatile sig_atomic_t *stop;
};

struct strobe_ch_sender_stats {
	/* rows of the events table, then of container_seconds (and any
	 * other table) */
	uint64_t rows_delivered, agg_rows_delivered;
	uint64_t rows_pending, agg_rows_pending;	/* queued or spooled, not delivered */
	uint64_t rows_spooled, agg_rows_spooled;	/* ever written to the spool */
	uint64_t rows_dropped, agg_rows_dropped;	/* the spool could not take them */
	uint64_t bytes_dropped;		/* RowBinary bytes of the dropped batches */
	uint64_t batches_delivered;
	uint64_t failures;		/* attempts that failed */
	uint64_t spool_bytes;		/* disk bytes the spool holds now */
	uint64_t spool_max;		/* its bound */
	char spool_path[4096];		/* "" until the spool file was created */
	char last_error[256];		/* the last failure's message, "" none */
	char spool_error[256];		/* the last spool write error, "" none */
};

struct strobe_ch_sender;
struct strobe_clickhouse;
/*
 * A sender delivering through client ch (borrowed: do not use it
 * yourself until strobe_ch_sender_close returned).  Starts its thread,
 * which creates the schema when the server first answers.  Returns 0 or
 * -errno (-ENOMEM, -EAGAIN no thread).
 */
int strobe_ch_sender_new(struct strobe_clickhouse *ch, const struct strobe_ch_sender_opts *opts,
			 struct strobe_ch_sender **out, struct strobe_error *err);
/*
 * strobe_ch_send_fn for arg = a sender: copies the batch into the queue
 * (or the spool, or drops it, counted) and returns at once.  0, or
 * -EINVAL (a bad table name, or the sender is closed).
 */
int strobe_ch_sender_send(void *arg, const char *table, const void *data, size_t len,
			  uint64_t rows, struct strobe_error *err);
/* The counts so far (any thread). */
void strobe_ch_sender_stats(struct strobe_ch_sender *s, struct strobe_ch_sender_stats *st);
/*
 * Last attempts: deliver what is queued and spooled for up to timeout_s
 * seconds (0: no attempt), then write what is left in memory to the
 * spool and stop the thread.  st (may be NULL) gets the final counts.
 * Returns 0 when every row was delivered (the spool file is removed);
 * -ETIMEDOUT when rows are left undelivered (kept in the spool file:
 * *err names it, with the last failure); -ENOSPC when rows were dropped.
 * Messages never contain credentials.
 */
int strobe_ch_sender_close(struct strobe_ch_sender *s, double timeout_s,
			   struct strobe_ch_sender_stats *st, struct strobe_error *err);
/* Close (no further attempt) if not closed, free.  NULL ok. */
void strobe_ch_sender_free(struct strobe_ch_sender *s);

/*
 * Deliver the undelivered records of spool file path, oldest first,
 * through send(arg, ...) (strobe_clickhouse_send with a client, or your
 * own); each one delivered is marked in the file, so a replay that
 * stopped on an error resumes where it stopped.  A fully delivered spool
 * is removed.  *rows and *agg_rows (may be NULL) count the rows
 * delivered.  0, or -errno: -EBADMSG for a file that is not a spool or a
 * record that is damaged (its crc32), the sender's error otherwise.
 */
int strobe_ch_spool_replay(const char *path, strobe_ch_send_fn send, void *arg,
			   uint64_t *rows, uint64_t *agg_rows, struct strobe_error *err);

/* ---- whole files ---------------------------------------------------- */

/* Called about every `progress_every` events with the stats so far. */
typedef void (*strobe_ch_progress_fn)(void *arg, const struct strobe_ch_stats *st);

struct strobe_ch_export_opts {
	const char *host;	/* NULL: the file's host (strobe info "host", else
				 * trace-cmd's UNAME node name), else "" */
	bool have_wall_offset;	/* use wall_offset_ns, not the file's */
	int64_t wall_offset_ns;
	uint64_t batch_rows;	/* 0: STROBE_CH_BATCH_ROWS */
	strobe_ch_progress_fn progress;
	void *progress_arg;
	uint64_t progress_every;	/* 0: 1 M events */
};

/*
 * The wall-clock offset of a trace file's clock (added to an event's ts
 * it gives ns since the epoch): from the clock pairings strobe record
 * stores (strobe info "clock_sync_start"/"clock_sync_end", the mean of
 * the two), else estimated as the file's modification time (its close)
 * less the latest "now ts" of its per-CPU statistics.  Returns 0 and
 * *ns, or -ENOENT when the file has neither.
 */
int strobe_ch_file_wall_offset(struct strobe_tracefile *tf, const char *path, int64_t *ns);

/*
 * Export trace file tf (at path) through client ch: the schema (created
 * if missing), every event, the aggregates, as one pipeline with the
 * export consumer below.  Damaged data is skipped as strobe-damage(7)
 * says: the file's diagnostics (strobe_tracefile_diag) name it.  st may
 * be NULL.  Returns 0 or -errno; on failure st says what was delivered
 * (rows_sent) and what was not (events - rows_sent).
 */
int strobe_clickhouse_export_file(struct strobe_clickhouse *ch, struct strobe_tracefile *tf,
				  const char *path, const struct strobe_ch_export_opts *opts,
				  struct strobe_ch_stats *st, struct strobe_error *err);

/* ---- the export as a pipeline consumer ------------------------------ */

/*
 * The export as a consumer of a pipeline (strobe-pipeline(3)), for
 * several files on one run, a run with strict damage (opts of the
 * pipeline), or an export beside other consumers in one pass.  At start
 * it creates the schema (if missing) and one sink per source of the
 * pipeline, each with
 *   - its host column: opts->host (every source), else the file's host
 *     name (strobe_tracefile_host: "" when it has none), else the
 *     source's host;
 *   - its wall-clock offset: opts->wall_offset_ns when have_wall_offset
 *     (every source), else the file's (strobe_ch_file_wall_offset), else 0;
 *   - its source's formats and task model (the consumer asks for models);
 * every event goes to its source's sink, and finish sends every sink's
 * last rows and aggregates.  Events must carry their own file's trace
 * time: with several files, set the pipeline's raw_time (rows are then
 * those each file gives exported alone; their order does not matter to
 * ClickHouse).  opts->progress is called about every progress_every
 * events with the stats of every source together.
 *
 * strobe_ch_export_new: an export through client ch (borrowed; opts
 * copied, may be NULL).  0 or -ENOMEM.  strobe_ch_export_consumer fills
 * *c (arg: x, which must outlive the run); add it with
 * strobe_pipeline_add_consumer.  A failed batch fails the run (the
 * pipeline's error is the sender's).  strobe_ch_export_stats: what was
 * sent, of one source or (source -1) of all.  Free with
 * strobe_ch_export_free (NULL ok) after the pipeline.
 */
struct strobe_ch_export;
struct strobe_consumer;
int strobe_ch_export_new(struct strobe_clickhouse *ch, const struct strobe_ch_export_opts *opts,
			 struct strobe_ch_export **out, struct strobe_error *err);
void strobe_ch_export_consumer(struct strobe_ch_export *x, struct strobe_consumer *c);
void strobe_ch_export_stats(const struct strobe_ch_export *x, int source,
			    struct strobe_ch_stats *st);
void strobe_ch_export_free(struct strobe_ch_export *x);

#ifdef __cplusplus
}
#endif

#endif
