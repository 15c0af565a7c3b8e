/*
 * sinks-int.h - what the sinks (sqlite.c, clickhouse.c) share and
 * nothing else needs (internal, hidden from libstrobe.so's exports).
 */
#ifndef STROBE_SINKS_INT_H
#define STROBE_SINKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct strobe_tracefile;
struct strobe_clickhouse;
struct strobe_error;
struct strobe_pipeline;
struct strobe_sql_opts;
struct strobe_sql_stats;
struct sqlite3;

/* ---- between sqlite-load.c (the loader) and sqlite-merge.c ---- */

/*
 * Load every source of p (trace files added, not yet run) in one run of
 * p: source i into dbs[i] (borrowed; one database per source, which
 * must not hold strobe's tables yet) as strobe_sql_load_file loads a
 * file, in its own trace clock, with paths[i] (paths may be NULL: each
 * file's own) as meta's trace.  With several sources each one's host is
 * the pipeline's name for it (opts->host ignored) and errors name the
 * file.  st (may be NULL) sums the loads.  0 or -errno.
 */
int strobe_sql_load_pipeline(struct strobe_pipeline *p, struct sqlite3 *const *dbs,
			     const char *const *paths, const struct strobe_sql_opts *opts,
			     struct strobe_sql_stats *st, struct strobe_error *err) STROBE_HIDDEN;

/*
 * Set *err from db's last error about what (a statement or table) and
 * return -errno: a write cut short by the file-size limit (EFBIG) or a
 * full device (ENOSPC) is said so, naming the database file, where
 * SQLite says "disk I/O error".
 */
int strobe_sql_fail(struct sqlite3 *db, struct strobe_error *err, const char *what) STROBE_HIDDEN;

/*
 * Flush the finished build at tmp, rename it over db_path and reopen *db
 * at db_path (a handle whose file was renamed refuses writes).  0, or
 * -errno with *err set and *db unchanged (the caller closes it and
 * unlinks tmp).
 */
int strobe_sql_install(struct sqlite3 **db, const char *tmp, const char *db_path,
		       struct strobe_error *err) STROBE_HIDDEN;

/* ---- between clickhouse.c (the client) and ch-sender.c ---- */

/* INSERT body (RowBinary; already gzip when gzipped, else compressed as
 * the client's options say) into table.  0 or -errno. */
int strobe_ch_insert(struct strobe_clickhouse *ch, const char *table, const void *body,
		     size_t len, bool gzipped, struct strobe_error *err) STROBE_HIDDEN;
/* No request of ch takes longer than ms (> 0; 0: the client's timeout);
 * also turns the client's own retries off. */
void strobe_ch_cap_ms(struct strobe_clickhouse *ch, long ms) STROBE_HIDDEN;
/* While *flag (may be NULL: none) is set, requests of ch are aborted. */
void strobe_ch_abort_flag(struct strobe_clickhouse *ch, volatile int *flag) STROBE_HIDDEN;
bool strobe_ch_gzips(const struct strobe_clickhouse *ch) STROBE_HIDDEN;
bool strobe_ch_valid_table(const char *table) STROBE_HIDDEN;

/* data (len bytes) gzip-compressed at level 1 by libdeflate (about four
 * times zlib's speed at its level 1, as small) into a new malloc'd buffer
 * (*out, *out_len bytes; the caller frees it).  0 or -ENOMEM. */
int strobe_ch_gzip(const void *data, size_t len, uint8_t **out, size_t *out_len) STROBE_HIDDEN;

/* The sender's pause after a failed delivery: min after the first
 * failure (prev <= 0), then doubling, at most max. */
double strobe_ch_backoff(double prev, double min, double max) STROBE_HIDDEN;

/* ---- between otlp.c and perfetto.c (span-periods.c) ---- */

struct strobe_formats;
struct strobe_expr_env;
struct strobe_periods;
struct strobe_syscall_args;
struct strobe_period;

/*
 * The periods engine for an exporter of periods: nothing (0, *per left
 * NULL) without definitions; else *per with defs and captures, fn(arg,
 * period) at each period's end, *sysargs (the names of raw_syscalls
 * arguments: fmts' own, else this machine's tracefs) and env (copied),
 * checked against fmts.  0, or -errno with *err set; *per and *sysargs,
 * also when made before a failure, are the caller's to free.
 */
int strobe_sink_periods_make(const char *const *defs, int nr_defs,
			     const char *const *captures, int nr_captures,
			     void (*fn)(void *arg, const struct strobe_period *p), void *arg,
			     struct strobe_formats *fmts, const struct strobe_expr_env *env,
			     struct strobe_periods **per, struct strobe_syscall_args **sysargs,
			     struct strobe_error *err) STROBE_HIDDEN;

#endif
