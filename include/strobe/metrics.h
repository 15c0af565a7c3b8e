/*
 * metrics.h - a Prometheus registry and its HTTP endpoint (lib/metrics/):
 * what `strobe top --metrics ADDR:PORT` serves.
 *
 * The registry holds families (counter, gauge, histogram), each with a
 * name, a HELP text and fixed label names; a family's series are keyed by
 * their label values.  Values are integers in a family's raw unit and
 * shown divided by 10^decimals (a CPU time counted in ns with decimals 9
 * reads in seconds), so totals are exact and the text of a given state is
 * always the same.  strobe_metrics_write renders the text exposition
 * format 0.0.4 (# HELP and # TYPE on every family; histograms as
 * cumulative _bucket{le=...} ending in le="+Inf", then _sum and _count).
 *
 * Series lifetime: a series may belong to a *group* (for strobe top, one
 * container).  The caller marks a group alive each interval (an update
 * marks it alive too); a group not marked alive for keep_ns is dropped
 * with all its series, so a container that comes back after that starts
 * new series from zero: the counter reset that Prometheus' rate()
 * expects.  While a group lives its counters never go backwards (counter
 * updates only add).  Series of no group (group NULL) live as long as the
 * registry.
 *
 * Cardinality: at most max_series series (default 10000) across the
 * registry; an update that would create one more is dropped and counted
 * in strobe_metrics_dropped_series_total, which every exposition shows.
 *
 * Threads: one mutex guards the registry.  Updates (the pipeline's
 * thread) and strobe_metrics_write (the HTTP server's thread: the text is
 * written into a buffer under the lock and sent after it is released)
 * may run concurrently; strobe_metrics_add_top_interval applies a whole
 * interval under one hold, so a scrape sees intervals whole.
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_METRICS_H
#define STROBE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_buf;
struct strobe_error;
struct strobe_metrics;
struct strobe_metrics_server;
struct strobe_top_interval;

enum strobe_metric_type {
	STROBE_METRIC_COUNTER = 0,
	STROBE_METRIC_GAUGE,
	STROBE_METRIC_HISTOGRAM,
};

struct strobe_metrics_opts {
	size_t size;		/* sizeof(struct strobe_metrics_opts), or 0 */
	/* A group not marked alive for this long is dropped with its
	 * series (0: 300 s). */
	uint64_t keep_ns;
	/* Most series held at once, across families (0: 10000). */
	int max_series;
	/* strobe_metrics_add_top_interval: most distinct `syscall` values
	 * per container and family (the engine gives its top N per
	 * interval, which vary; further names count under "other").
	 * 0: 20. */
	int syscall_labels;
};

/* New empty registry, with its own families strobe_build_info,
 * strobe_metrics_dropped_series_total and strobe_scrape_duration_seconds.
 * 0 or -ENOMEM; free with strobe_metrics_free. */
int strobe_metrics_new(const struct strobe_metrics_opts *opts, struct strobe_metrics **out,
		       struct strobe_error *err);
void strobe_metrics_free(struct strobe_metrics *m);	/* NULL ok; stop its
							 * servers first */

struct strobe_metrics_family_def {
	const char *name;	/* [a-zA-Z_:][a-zA-Z0-9_:]* */
	const char *help;	/* one line (\ and newlines are escaped) */
	enum strobe_metric_type type;
	const char *const *labels;	/* label names ([a-zA-Z_][a-zA-Z0-9_]*,
					 * not "le", no "__" prefix) */
	int nr_labels;		/* at most 8 */
	int decimals;		/* values are raw / 10^decimals, 0..18 */
	/* Histograms: the buckets' upper bounds in raw units, ascending;
	 * the +Inf bucket is implicit.  At most 64. */
	const uint64_t *bounds;
	int nr_bounds;
};

/* Add a family (def copied).  Returns its id (>= 0) for the updates
 * below, -EINVAL (a bad name, label or bound: *err says which) or
 * -EEXIST (the name is taken) or -ENOMEM. */
int strobe_metrics_family_add(struct strobe_metrics *m, const struct strobe_metrics_family_def *def,
			      struct strobe_error *err);

/*
 * Updates of the series of family `family` with label values `values`
 * (as many as the family's labels; NULL values read as ""), in group
 * `group` (NULL: no group).  A series is created at zero on its first
 * update.  Return 0, -ENOSPC when the series would be one too many (the
 * update is dropped and counted), -EINVAL (wrong family type or id),
 * -ENOMEM.
 *   counter_add:    add delta (raw units)
 *   gauge_set:      set the value (raw units)
 *   histogram_add:  add counts[0..nr_bounds] (counts per bucket, not
 *                   cumulative; counts[nr_bounds] above the last bound)
 *                   and sum (raw units) of the observations
 */
int strobe_metrics_counter_add(struct strobe_metrics *m, int family, const char *group,
			       const char *const *values, uint64_t delta);
int strobe_metrics_gauge_set(struct strobe_metrics *m, int family, const char *group,
			     const char *const *values, int64_t value);
int strobe_metrics_histogram_add(struct strobe_metrics *m, int family, const char *group,
				 const char *const *values, const uint64_t *counts, uint64_t sum);

/* Mark group alive at now_ns (any clock, the same for every call). */
int strobe_metrics_group_alive(struct strobe_metrics *m, const char *group, uint64_t now_ns);
/* Drop the groups not marked alive since now_ns - keep_ns, with their
 * series; returns how many groups were dropped. */
int strobe_metrics_expire(struct strobe_metrics *m, uint64_t now_ns);
/* How many series the registry holds now. */
int strobe_metrics_series(struct strobe_metrics *m);

/* Append the text exposition (format 0.0.4) to b.  0 or -ENOMEM. */
int strobe_metrics_write(struct strobe_metrics *m, struct strobe_buf *b);

/*
 * strobe top's figures: add one interval of the engine (top.h) at now_ns
 * (the interval's end on the caller's clock), then expire groups.  Each
 * container is a group (keyed by its name, pod and namespace) and its
 * series carry the labels container, pod and namespace, always all three
 * ("" where unknown), so every series of a family has the same label
 * names and `sum by (pod)` works the same on every series.  Families:
 *
 *   strobe_container_cpu_seconds_total
 *   strobe_container_context_switches_total
 *   strobe_container_syscalls_total{syscall}
 *   strobe_container_syscall_errors_total{syscall,errno}
 *   strobe_container_syscall_latency_seconds        histogram
 *   strobe_container_runqueue_latency_seconds       histogram
 *   strobe_container_block_io_bytes_total{op="read"|"write"}
 *   strobe_container_block_io_latency_seconds       histogram
 *   strobe_container_memory_bytes                   gauge (when known)
 *   strobe_container_tasks                          gauge
 *   strobe_events_total, strobe_lost_events_total   (no labels)
 *
 * Histogram buckets: the engine's log2 slots of microseconds (slot k =
 * [2^k, 2^(k+1)) us) become le = 2^(k+1) us in seconds (0.000002,
 * 0.000004, ... 33.554432) for k = 0..STROBE_METRICS_TOP_MAX_SLOT; the
 * slots above count in +Inf only.  _sum is the slots' sum_ns in seconds,
 * _count the histogram's count.  The families are added on the first
 * call.  0, -EINVAL or -ENOMEM (the interval is then partly applied);
 * series over the cap are dropped and counted, not an error.
 */
#define STROBE_METRICS_TOP_MAX_SLOT 24
int strobe_metrics_add_top_interval(struct strobe_metrics *m, const struct strobe_top_interval *iv,
				    uint64_t now_ns);

/*
 * The HTTP endpoint.  Options for strobe_metrics_serve (NULL: defaults):
 */
struct strobe_metrics_web {
	size_t size;		/* sizeof(struct strobe_metrics_web), or 0 */
	/* A web configuration file as node exporter's --web.config.file
	 * (the subset: tls_server_config: {cert_file, key_file} and
	 * basic_auth_users: {NAME: bcrypt hash}); NULL: none. */
	const char *config_file;
	/* Serve beyond loopback without TLS or basic authentication (the
	 * CLI's --metrics-insecure).  Without it, an address beyond
	 * loopback needs a config file giving at least one of them. */
	bool insecure;
	int max_connections;	/* at once (0: 16) */
	int per_ip;		/* at once from one address (0: 4) */
	unsigned timeout_s;	/* an idle connection is closed (0: 10) */
};

/*
 * Serve m on addr_port in a thread of the server's own (libmicrohttpd's,
 * every signal blocked): "IPV4:PORT", "[IPV6]:PORT" or ":PORT" (=
 * 127.0.0.1:PORT); PORT 0 picks a free port (strobe_metrics_server_port
 * says which).  Never all interfaces unless told so (0.0.0.0 or [::]).
 * GET and HEAD of /metrics (the exposition) and / (a page linking it);
 * 404 for other paths, 405 for other methods.  A client waits for the
 * registry's lock only while the exposition is written; a slow client
 * is served by the server's thread alone, within the connection limits
 * and timeout above.  0, -EINVAL (a bad address or config file: *err
 * says which and where), -EPERM (beyond loopback without TLS or
 * authentication, and not insecure), -ENOTSUP (TLS asked, not in
 * libmicrohttpd), or the bind's -errno.  m must outlive the server.
 */
int strobe_metrics_serve(struct strobe_metrics *m, const char *addr_port,
			 const struct strobe_metrics_web *web, struct strobe_metrics_server **out,
			 struct strobe_error *err);
/* The bound port. */
int strobe_metrics_server_port(const struct strobe_metrics_server *s);
/* Stop serving (waits for the server's thread) and free; NULL ok. */
void strobe_metrics_server_stop(struct strobe_metrics_server *s);

#ifdef __cplusplus
}
#endif

#endif
