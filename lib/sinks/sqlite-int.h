/*
 * sqlite-int.h - between the SQLite sink (sqlite.c: a stream of events
 * into a table per event type, batched, on a writer thread with --jobs)
 * and the loader built on it (sqlite-load.c: analysis results and log
 * rows, meta, whole files, the database kept beside a trace), which
 * batches its log rows with the sink's machinery.  Internal, hidden.
 */
#ifndef STROBE_SQLITE_INT_H
#define STROBE_SQLITE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "util/err.h"

struct tep_event;
struct strobe_sql_sink;
struct fcol;
struct batch;
struct writer;

#define MAX_BATCH	64	/* rows per multi-row INSERT */

/* A value waiting in a batch: an integer, bytes in the type's arena, a
 * string that outlives the batch (container names, interned comms), or
 * NULL.  V_UNSET marks a statement parameter never bound. */
enum vkind { V_NULL, V_INT, V_ARENA, V_PTR, V_REAL, V_UNSET };
struct sval {
	union {
		int64_t i;
		double d;
		size_t off;
		const char *p;
	} u;
	uint32_t len;
	uint8_t kind;
};

/* One event type of the file. */
struct etype {
	struct tep_event *ev;
	char *table;		/* SQL table name */
	bool resolved;		/* fields and statements made (first event) */
	int nr_fields;
	struct fcol *fields;
	int ncols;		/* NCOMMON + nr_fields */
	int batch_rows;		/* rows per multi-row statement */
	sqlite3_stmt *one, *batch;
	/* what each parameter of one and batch holds now (bind_row): a value
	 * equal to it is not bound again (sqlite3_reset keeps bindings) */
	struct sval *bound_one, *bound_batch;
	int nrows;		/* rows buffered in vals */
	struct sval *vals;	/* batch_rows * ncols */
	char *arena;		/* bytes of the buffered rows' strings */
	size_t alen, acap;
	uint64_t count;		/* rows of this type */
	struct batch *spare;	/* batches back from the writer (its lock) */
};

/* Make t's insert statements (t->table, t->ncols set): one row and a
 * batch of t->batch_rows; its value buffer.  0 or -errno. */
int sql_prepare_batches(sqlite3 *db, struct etype *t, struct strobe_error *err) STROBE_HIDDEN;
/* Copy len bytes at p into t's arena as v's value; false: out of memory. */
bool sql_put_bytes(struct etype *t, struct sval *v, const void *p, size_t len) STROBE_HIDDEN;
/* Insert t's buffered rows on this thread.  0 or -errno. */
int sql_flush_type(sqlite3 *db, struct etype *t, struct strobe_error *err) STROBE_HIDDEN;
/* Free what t holds (statements, buffers, name), not t. */
void sql_etype_free(struct etype *t) STROBE_HIDDEN;
/* Run sql (sqlite3_mprintf'd, freed here; NULL: out of memory). */
int sql_exec_free(sqlite3 *db, char *sql, struct strobe_error *err) STROBE_HIDDEN;
/* Step st once and reset it; what names it in the error. */
int sql_step_reset(sqlite3 *db, sqlite3_stmt *st, const char *what,
		   struct strobe_error *err) STROBE_HIDDEN;

/* The sink's writer thread, started on first call (NULL: it could not
 * start, and SQLite stays on the feeding thread). */
struct writer *sql_sink_use_writer(struct strobe_sql_sink *k) STROBE_HIDDEN;
/* Wait until the writer (NULL: none) has inserted every batch queued:
 * the connection is the caller's until the next submit.  0 or its error. */
int sql_writer_drain(struct writer *w, struct strobe_error *err) STROBE_HIDDEN;
/* Queue t's full batch to w and give t a spare one.  0 or -errno. */
int sql_writer_submit(struct writer *w, struct etype *t, struct strobe_error *err) STROBE_HIDDEN;

#endif
