/*
 * sender.h - the one sender of batches to a server (internal): what the
 * ClickHouse sink (ch-sender.c, behind include/strobe/clickhouse.h's
 * strobe_ch_sender_*) and the OpenTelemetry exporter (otlp.c) share, so
 * that batching into a queue, retries with backoff, a server's
 * Retry-After and the spool of what could not be delivered yet are
 * written once.  What differs per server is a small vtable: how one
 * batch is delivered (and whether it is compressed first), which class
 * a batch's rows count in, which table names are valid.
 *
 * How it works (sender.c): the producer's strobe_sender_send copies a
 * batch into a memory queue (mem_max bytes; past that, straight into the
 * spool; past the spool's bound, dropped and counted) and returns; a
 * thread delivers the spool's oldest record first, else the queue's
 * head.  A failed attempt waits backoff_min_s doubling to backoff_max_s,
 * or the server's Retry-After when it said one (at most retry_after_max_s
 * seconds), and meanwhile moves the memory queue into the spool.
 *
 * The spool file (version 2, little-endian): a 32-byte header, the 12
 * bytes "strobe-spool", u16 version (2), u16 kind (1 ClickHouse
 * RowBinary, 2 OTLP JSON), u64 offset of the first undelivered record,
 * u64 0; records of u32 magic 0x52435353 ("SSCR"), u8 flags (1: the body
 * is gzip), u8 table name length (1..63), u16 0, u32 crc32 of the body,
 * u64 rows, u64 body length, the table name, the body.  Version 1 (the
 * 16 bytes "strobe-ch-spool1" in place of name, version and kind; the
 * rest the same) is a ClickHouse spool and is still replayed.
 */
#ifndef STROBE_SENDER_H
#define STROBE_SENDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct strobe_error;

enum strobe_spool_kind {
	STROBE_SPOOL_CLICKHOUSE = 1,
	STROBE_SPOOL_OTLP = 2,
};

struct strobe_sender_ops {
	const char *what;	/* the messages' prefix: "clickhouse", "otlp" */
	const char *unit;	/* what rows are, plural: "rows", "spans" */
	enum strobe_spool_kind kind;
	/*
	 * One delivery attempt of body (len bytes; gzip when gz) of `rows`
	 * rows of table, taking no longer than cap_ms (> 0; 0: the
	 * client's own timeout).  0, or -errno with e set; *retry_after_s
	 * (0 on entry) may be set to the pause the server asked for.
	 */
	int (*deliver)(void *arg, const char *table, const void *body, size_t len, bool gz,
		       uint64_t rows, long cap_ms, double *retry_after_s, struct strobe_error *e);
	/* Should a batch be gzipped before its first attempt?  NULL: no. */
	bool (*gzips)(void *arg);
	/* While *flag (NULL: none) is set, the client aborts its request. */
	void (*abort_flag)(void *arg, volatile int *flag);
	/* A batch's class for the counts (0 or 1).  NULL: 0. */
	int (*klass)(const char *table);
};

struct strobe_sender_opts {
	const char *spool_path;	/* NULL: $TMPDIR (else /tmp)/strobe-<what>-spool-PID */
	uint64_t spool_max;	/* bytes; 0: 1 GiB */
	uint64_t mem_max;	/* bytes queued in memory; 0: 64 MiB */
	double backoff_min_s;	/* 0: 0.5 s */
	double backoff_max_s;	/* 0: 30 s */
	double retry_after_max_s;	/* a server's Retry-After is cut to this; 0: 60 s */
	volatile sig_atomic_t *stop;	/* may be NULL: see strobe_ch_sender_opts */
};

/* Counts per class (ClickHouse: 0 events, 1 the other tables). */
struct strobe_sender_stats {
	uint64_t delivered[2], pending[2], spooled[2], dropped[2];
	uint64_t bytes_dropped;
	uint64_t batches_delivered;
	uint64_t failures;
	uint64_t retry_afters;		/* failures that said Retry-After */
	uint64_t spool_bytes, spool_max;
	char spool_path[4096];
	char last_error[256];
	char spool_error[256];
};

struct strobe_sender;
/*
 * A sender through ops with arg (both borrowed; arg is used by the
 * sender's thread only until strobe_sender_close returned).  Starts the
 * thread.  0 or -errno (-ENOMEM, -EAGAIN).
 */
int strobe_sender_new(const struct strobe_sender_ops *ops, void *arg,
		      const struct strobe_sender_opts *opts, struct strobe_sender **out,
		      struct strobe_error *err) STROBE_HIDDEN;
/* Queue a batch (copied); returns at once.  0 or -EINVAL (closed). */
int strobe_sender_send(struct strobe_sender *s, const char *table, const void *data, size_t len,
		       uint64_t rows, struct strobe_error *err) STROBE_HIDDEN;
void strobe_sender_stats(struct strobe_sender *s, struct strobe_sender_stats *st) STROBE_HIDDEN;
/*
 * Last attempts for up to timeout_s seconds, then the memory queue into
 * the spool, the thread stopped.  0: all delivered (spool removed);
 * -ETIMEDOUT: some kept in the spool (err names it); -ENOSPC: dropped.
 * The message says "<what>: N <unit> ..." (two classes when class 1 is
 * used).
 */
int strobe_sender_close(struct strobe_sender *s, double timeout_s, struct strobe_sender_stats *st,
			struct strobe_error *err) STROBE_HIDDEN;
void strobe_sender_free(struct strobe_sender *s) STROBE_HIDDEN;	/* NULL ok */

/* Receives one replayed record (raw, gunzipped).  0 or -errno. */
typedef int (*strobe_spool_fn)(void *arg, const char *table, const void *data, size_t len,
			       uint64_t rows, struct strobe_error *err);
/*
 * Deliver the undelivered records of spool path (of kind; a version 1
 * file is a ClickHouse one) through fn, oldest first, marking each in
 * the file; remove it when all are.  rows[klass] counts them (rows may
 * be NULL; klass NULL: all in rows[0]).  -EBADMSG: not a spool of kind,
 * or a damaged record.
 */
int strobe_spool_replay(const char *path, enum strobe_spool_kind kind, int (*klass)(const char *),
			strobe_spool_fn fn, void *arg, uint64_t rows[2],
			struct strobe_error *err) STROBE_HIDDEN;
/* The kind of spool file path: 0 and *kind, or -errno/-EBADMSG. */
int strobe_spool_kind(const char *path, enum strobe_spool_kind *kind) STROBE_HIDDEN;

/* The pause after a failed delivery: min after the first failure (prev
 * <= 0), then doubling, at most max. */
double strobe_sender_backoff(double prev, double min, double max) STROBE_HIDDEN;

/*
 * An HTTP Retry-After value (delay-seconds, or an HTTP-date, RFC 9110
 * 10.2.3) as seconds from now (the date's distance from now_epoch, at
 * least 0).  -1 when it is neither.  Outside input: fuzzed.
 */
double strobe_retry_after_parse(const char *v, size_t len, double now_epoch) STROBE_HIDDEN;

#endif
