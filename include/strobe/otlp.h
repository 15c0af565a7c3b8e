/*
 * otlp.h - periods (and slow system calls) as OpenTelemetry spans, sent
 * over OTLP/HTTP JSON to a collector (Jaeger, the OpenTelemetry
 * Collector), so kernel-level spans with container attributes sit next
 * to an application's own spans.  (lib/sinks/otlp.c; strobe-otlp(3),
 * strobe-export(1), OTLP.)
 *
 * The exporter is a consumer of the one pipeline (pipeline.h): files,
 * several files, or a live capture, whose spans go out as periods end.
 * Spans are batched (one ExportTraceServiceRequest per batch, per
 * source: the resource carries service.name, host.name and the
 * resource attributes) and handed to strobe's one sender (the ClickHouse
 * sink's too): a thread of its own POSTs them, retries failures with
 * backoff (0.5 s doubling to 30 s) or after the collector's Retry-After
 * (429, 503), and keeps what it could not deliver in a spool file, so a
 * live capture never waits for the network.
 *
 * Spans:
 *   - a period is a span named by its path ("req", "req/sleep") from its
 *     begin to its end; a child period's span has its parent period's
 *     span as parent, in its trace; a root period begins a trace (trace
 *     id random per root), unless it or an ancestor captured a W3C
 *     traceparent under the key traceparent_from: then the span is in
 *     that trace with the traceparent's span as its parent (the
 *     application's span), and its descendants follow;
 *   - with syscall_min_ns, every system call of at least that long is a
 *     span "syscall NAME" of a trace of its own;
 *   - attributes (semantic conventions): process.pid, thread.id,
 *     process.executable.name, container.id, container.name,
 *     k8s.pod.name (Kubernetes only), where known; strobe.period.status
 *     ("closed", "open", "cut", "pid-reused", "lost"), every capture as
 *     strobe.capture.KEY; a system call's strobe.syscall.ret (an error
 *     return sets the span's status to ERROR).
 * Span ids are 8 random-looking bytes derived from a per-run random seed
 * and the period's id; trace ids 16.  Times are Unix ns: the event's
 * trace time plus the source's wall-clock offset (opts.wall_offsets;
 * live, CLOCK_REALTIME less CLOCK_MONOTONIC: record with the "mono"
 * clock).
 */
#ifndef STROBE_OTLP_H
#define STROBE_OTLP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_consumer;
struct strobe_otlp;

struct strobe_otlp_opts {
	size_t size;		/* sizeof(struct strobe_otlp_opts), or 0 */
	const char *url;	/* the traces endpoint: http(s)://HOST:4318/v1/traces */
	const char *const *headers;	/* "Name: value" each (no credentials in messages) */
	int nr_headers;
	const char *service_name;	/* NULL: "strobe" */
	/* "key=value,..." (OTEL_RESOURCE_ATTRIBUTES' form, values
	 * percent-decoded) added to the resource; NULL: none */
	const char *resource_attributes;
	const char *host_name;	/* NULL: the file's host, live this machine's */
	/* --period definitions and --period-captures (expr.h) */
	const char *const *periods;
	int nr_periods;
	const char *const *period_captures;
	int nr_period_captures;
	uint64_t syscall_min_ns;	/* > 0: slow system calls as spans */
	const char *traceparent_from;	/* a capture key, NULL: none */
	/* Per source index: ns to add to its trace time for Unix time.
	 * Sources past nr_wall_offsets: live, REALTIME less MONOTONIC;
	 * files, 0. */
	const int64_t *wall_offsets;
	int nr_wall_offsets;
	unsigned batch_spans;	/* spans per request; 0: 512 */
	double flush_s;		/* fewer spans go out after this long; 0: 1 s */
	long timeout_s;		/* per request; 0: 10 s */
	const char *spool_path;	/* NULL: $TMPDIR (else /tmp)/strobe-otlp-spool-PID */
	uint64_t spool_max;	/* 0: 1 GiB */
	double backoff_min_s, backoff_max_s;	/* 0: 0.5 s, 30 s */
	volatile sig_atomic_t *stop;	/* set: the close's attempts end at once */
};

/* New exporter (opts copied, strings borrowed until strobe_otlp_free);
 * starts the sender's thread.  0, -EINVAL (no url, not http(s), a header
 * without ':'; *err says which) or -ENOMEM. */
int strobe_otlp_new(const struct strobe_otlp_opts *opts, struct strobe_otlp **out,
		    struct strobe_error *err);
/* The exporter as a pipeline consumer (fills *c, arg = x; needs the task
 * model).  start checks the periods against each source's formats;
 * finish sends what is buffered.  A pipeline runs it once. */
void strobe_otlp_consumer(struct strobe_otlp *x, struct strobe_consumer *c);

struct strobe_otlp_stats {
	uint64_t events;		/* handed to the exporter */
	uint64_t periods;		/* period spans made */
	uint64_t syscalls;		/* system call spans made */
	uint64_t joined;		/* spans in a captured traceparent's trace */
	uint64_t batches;		/* requests queued */
	uint64_t delivered, pending, dropped;	/* spans, by the sender */
	uint64_t failures, retry_afters;	/* failed attempts; ... that said Retry-After */
	char spool_path[4096];		/* "" none */
	char last_error[256];		/* the last failure, "" none */
};
void strobe_otlp_stats(struct strobe_otlp *x, struct strobe_otlp_stats *st);
/*
 * Deliver what is queued for up to timeout_s seconds, then stop the
 * sender.  0: every span delivered; -ETIMEDOUT: spans kept in the spool
 * (*err: how many, why, where); -ENOSPC: spans dropped.
 */
int strobe_otlp_close(struct strobe_otlp *x, double timeout_s, struct strobe_otlp_stats *st,
		      struct strobe_error *err);
void strobe_otlp_free(struct strobe_otlp *x);	/* NULL ok; closes without waiting */

/*
 * Deliver the spans an earlier export kept in spool file path to url
 * (headers as in opts); the file is removed when all are.  *spans (may
 * be NULL) counts them.  0 or -errno (-EBADMSG: not an OTLP spool).
 */
int strobe_otlp_spool_replay(const char *path, const char *url, const char *const *headers,
			     int nr_headers, uint64_t *spans, struct strobe_error *err);

/* ---- pieces, public for tests and other senders ------------------------- */

/*
 * The first W3C traceparent ("00-<32 hex>-<16 hex>-<2 hex>", lower-case
 * hex, neither id all zeros, version not ff) inside s[0..len): its trace
 * id and parent span id.  0, or -ENOENT when there is none.
 */
int strobe_otlp_traceparent_parse(const char *s, size_t len, uint8_t trace_id[16],
				  uint8_t span_id[8]);
/*
 * "key=value,key2=value2" (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_
 * ATTRIBUTES): fn(arg, key, value) per pair, both trimmed, value
 * percent-decoded (strings valid during the call).  0, -EINVAL for a
 * pair without '=' or an empty key, or fn's error.
 */
int strobe_otlp_kv_parse(const char *s, int (*fn)(void *arg, const char *key, const char *value),
			 void *arg);

/* One span, as the exporter encodes it. */
struct strobe_otlp_attr {
	const char *key;
	int type;		/* 0 string (s), 1 int (i), 2 double (d), 3 bool (i) */
	const char *s;
	int64_t i;
	double d;
};
struct strobe_otlp_span {
	uint8_t trace_id[16], span_id[8], parent_id[8];
	bool has_parent;
	const char *name;
	uint64_t start_ns, end_ns;	/* Unix ns */
	bool error;			/* status ERROR */
	const struct strobe_otlp_attr *attrs;
	int nr_attrs;
};
/*
 * s as an OTLP/JSON Span object appended to *buf (*len bytes used, *cap
 * allocated; realloc'd).  0 or -ENOMEM.
 */
int strobe_otlp_span_json(const struct strobe_otlp_span *s, char **buf, size_t *len,
			  size_t *cap);

#ifdef __cplusplus
}
#endif

#endif
