/*
 * otlp.c - periods and slow system calls as OpenTelemetry spans over
 * OTLP/HTTP JSON (include/strobe/otlp.h says what the spans hold).
 *
 * A pipeline consumer: per source, the periods engine (expr.h) reports
 * each period when it ends and a small table of open system calls (tid
 * -> entry time and number) finds the slow ones; each becomes a Span
 * object appended to the source's batch.  A full batch (batch_spans), a
 * batch older than flush_s (live: checked on events and while the
 * capture is idle) and the last one at finish are wrapped into an
 * ExportTraceServiceRequest (the source's resource: service.name,
 * host.name, the resource attributes) and handed to the one sender
 * (sender.c), whose thread POSTs it here (otlp_deliver: libcurl, one
 * connection kept alive).  2xx is delivered; anything else is a failure
 * the sender retries, after the collector's Retry-After when it said one.
 *
 * Ids: a period's span id is a 64-bit mix (splitmix64) of a per-run
 * random seed, the source and the period's id, so a child computes its
 * parent's span id from the parent's id without a table; a trace id is
 * the same mix of the root period's id (two halves, two seeds).  A
 * traceparent captured by the period or an ancestor replaces the trace
 * id, and the span that captured it takes the traceparent's span as its
 * parent.  Strings from the trace go through strobe_json_escape_buf.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include <curl/curl.h>

#include <strobe/expr.h>
#include <strobe/model.h>
#include <strobe/otlp.h>
#include <strobe/output.h>
#include <strobe/pipeline.h>
#include <strobe/stream.h>
#include <strobe/strobe.h>

#include "sinks/sender.h"
#include "sinks/sinks-int.h"
#include "syscalls/syscalls.h"
#include "util/err.h"

#define DEF_BATCH	512
#define MAX_ATTRS	48

/* ---- a growing buffer ------------------------------------------------- */

struct jb {
	char *p;
	size_t len, cap;
	bool oom;
};

static bool jb_room(struct jb *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void jb_put(struct jb *b, const char *s, size_t n)
{
	if (!jb_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void jb_lit(struct jb *b, const char *s)
{
	jb_put(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) jb_fmt(struct jb *b, const char *f, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(tmp, sizeof(tmp), f, ap);
	va_end(ap);
	if (n > 0)
		jb_put(b, tmp, (size_t)(n < (int)sizeof(tmp) ? n : (int)sizeof(tmp) - 1));
}

/* s[0..len) as a JSON string (quotes included). */
static void jb_str(struct jb *b, const char *s, size_t len)
{
	size_t n = len * 6 + 3;

	if (!jb_room(b, n))
		return;
	b->len += strobe_json_escape_buf(b->p + b->len, n, s, len);
}

static void jb_hex(struct jb *b, const uint8_t *id, int n)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	if (!jb_room(b, (size_t)n * 2 + 2))
		return;
	b->p[b->len++] = '"';
	for (i = 0; i < n; i++) {
		b->p[b->len++] = hex[id[i] >> 4];
		b->p[b->len++] = hex[id[i] & 15];
	}
	b->p[b->len++] = '"';
	b->p[b->len] = '\0';
}

static void jb_attr(struct jb *b, const struct strobe_otlp_attr *a)
{
	jb_lit(b, "{\"key\":");
	jb_str(b, a->key, strlen(a->key));
	switch (a->type) {
	case 1:	/* int64 is a JSON string in OTLP/JSON (proto3 mapping) */
		jb_fmt(b, ",\"value\":{\"intValue\":\"%" PRId64 "\"}}", a->i);
		break;
	case 2:
		if (a->d != a->d || a->d - a->d != 0)	/* nan, inf: no JSON number */
			jb_lit(b, ",\"value\":{}}");
		else
			jb_fmt(b, ",\"value\":{\"doubleValue\":%.17g}}", a->d);
		break;
	case 3:
		jb_lit(b, a->i ? ",\"value\":{\"boolValue\":true}}"
			       : ",\"value\":{\"boolValue\":false}}");
		break;
	default:
		jb_lit(b, ",\"value\":{\"stringValue\":");
		jb_str(b, a->s ? a->s : "", a->s ? strlen(a->s) : 0);
		jb_lit(b, "}}");
	}
}

static void span_json(struct jb *b, const struct strobe_otlp_span *s)
{
	int i;

	jb_lit(b, "{\"traceId\":");
	jb_hex(b, s->trace_id, 16);
	jb_lit(b, ",\"spanId\":");
	jb_hex(b, s->span_id, 8);
	if (s->has_parent) {
		jb_lit(b, ",\"parentSpanId\":");
		jb_hex(b, s->parent_id, 8);
	}
	jb_lit(b, ",\"name\":");
	jb_str(b, s->name, strlen(s->name));
	jb_fmt(b, ",\"kind\":1,\"startTimeUnixNano\":\"%" PRIu64 "\",\"endTimeUnixNano\":\"%"
	       PRIu64 "\",\"attributes\":[", s->start_ns, s->end_ns);
	for (i = 0; i < s->nr_attrs; i++) {
		if (i)
			jb_lit(b, ",");
		jb_attr(b, &s->attrs[i]);
	}
	jb_lit(b, s->error ? "],\"status\":{\"code\":2}}" : "],\"status\":{}}");
}

int strobe_otlp_span_json(const struct strobe_otlp_span *s, char **buf, size_t *len,
			  size_t *cap)
{
	struct jb b = { *buf, *len, *cap, false };

	span_json(&b, s);
	*buf = b.p;
	*len = b.len;
	*cap = b.cap;
	return b.oom ? -ENOMEM : 0;
}

/* ---- outside input: traceparent, key=value lists ----------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* n bytes of lower-case hex at s into out (may be NULL); false if not hex. */
static bool unhex(const char *s, int n, uint8_t *out)
{
	int i, hi, lo;

	for (i = 0; i < n; i++) {
		hi = hexval(s[2 * i]);
		lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		if (out)
			out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static bool all_zero(const uint8_t *p, int n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

int strobe_otlp_traceparent_parse(const char *s, size_t len, uint8_t trace_id[16],
				  uint8_t span_id[8])
{
	size_t i;

	/* version(2) - trace-id(32) - parent-id(16) - flags(2): 55 chars */
	for (i = 0; i + 55 <= len; i++) {
		const char *p = s + i;
		uint8_t v, t[16], sp[8];

		if (p[2] != '-' || p[35] != '-' || p[52] != '-')
			continue;
		if (!unhex(p, 1, &v) || v == 0xff || !unhex(p + 3, 16, t) ||
		    !unhex(p + 36, 8, sp) || !unhex(p + 53, 1, NULL))
			continue;
		if (i > 0 && hexval(p[-1]) >= 0)	/* inside a longer hex run */
			continue;
		if (v == 0 && i + 55 < len && (hexval(p[55]) >= 0 || p[55] == '-'))
			continue;	/* version 00 has exactly 55 characters */
		if (all_zero(t, 16) || all_zero(sp, 8))
			continue;
		memcpy(trace_id, t, 16);
		memcpy(span_id, sp, 8);
		return 0;
	}
	return -ENOENT;
}

static size_t trim(const char **s, size_t n)
{
	while (n && (**s == ' ' || **s == '\t')) {
		(*s)++;
		n--;
	}
	while (n && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t'))
		n--;
	return n;
}

int strobe_otlp_kv_parse(const char *s, int (*fn)(void *arg, const char *key, const char *value),
			 void *arg)
{
	char *key = NULL, *val = NULL;
	int ret = 0;

	while (s && *s) {
		const char *end = strchr(s, ','), *eq, *k, *v;
		size_t n = end ? (size_t)(end - s) : strlen(s), kn, vn, i, o;

		k = s;
		s = end ? end + 1 : NULL;
		eq = memchr(k, '=', n);
		if (!eq) {
			if (trim(&k, n) == 0)
				continue;	/* "a=b,,c=d": an empty item */
			ret = -EINVAL;
			break;
		}
		v = eq + 1;
		vn = trim(&v, n - (size_t)(v - k));
		kn = trim(&k, (size_t)(eq - k));
		if (!kn) {
			ret = -EINVAL;
			break;
		}
		free(key);
		free(val);
		key = strndup(k, kn);
		val = malloc(vn + 1);
		if (!key || !val) {
			ret = -ENOMEM;
			break;
		}
		for (i = o = 0; i < vn; i++) {	/* percent-decoding */
			if (v[i] == '%' && i + 2 < vn &&
			    hexval((char)(v[i + 1] | 0x20)) >= 0 &&
			    hexval((char)(v[i + 2] | 0x20)) >= 0) {
				val[o++] = (char)(hexval((char)(v[i + 1] | 0x20)) << 4 |
						  hexval((char)(v[i + 2] | 0x20)));
				i += 2;
			} else {
				val[o++] = v[i];
			}
		}
		val[o] = '\0';
		ret = fn(arg, key, val);
		if (ret < 0)
			break;
	}
	free(key);
	free(val);
	return ret;
}

/* ---- ids ------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void put_be(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* ---- the exporter ------------------------------------------------------------ */

struct ttype {
	uint8_t kind;		/* 0 unresolved, 1 other, 2 raw enter, 3 raw exit,
				 * 4 sys_enter_X, 5 sys_exit_X */
	int8_t period;		/* periods may match: -1 unknown */
	int nr;			/* sys_*_X: its number, -1 unknown */
	struct strobe_field id, ret;
	char *name;		/* sys_*_X: X */
};

struct call {
	int tid;		/* 0: empty */
	int nr;
	uint64_t ts;
	const char *name;	/* sys_enter_X's (the type's) or NULL */
};

struct src {
	int index;
	struct strobe_otlp *x;
	struct strobe_formats *fmts;
	struct strobe_model *m;
	struct strobe_expr_env env;
	struct strobe_periods *per;
	struct strobe_syscall_args *sysargs;
	struct ttype *types;
	int nr_types;
	struct call *calls;	/* open addressing, linear probing */
	size_t calls_cap, calls_used;
	int64_t wall;		/* trace ns to Unix ns */
	char host[256];
	struct jb spans;	/* the batch's Span objects, comma-separated */
	unsigned nr_spans;
	double since;		/* when its first span came (monotonic s) */
	uint64_t next_call_id;
	struct strobe_error err;	/* a failure inside a callback */
	bool failed;
};

struct strobe_otlp {
	struct strobe_otlp_opts o;
	char *url;
	struct curl_slist *hdrs;
	CURL *curl;
	char curl_err[CURL_ERROR_SIZE];
	long cap_ms;
	volatile int *abort;
	struct jb resp;
	double retry_after;	/* of the running request, -1 none */
	struct jb resource;	/* the resource's attributes after host.name */
	uint64_t seed[3];	/* span ids, trace ids' two halves */
	struct strobe_sender *snd;
	struct src *src;
	int nr_src;
	bool started;
	struct strobe_otlp_stats st;
};

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- delivery (the sender's thread) ------------------------------------ */

static int on_xfer(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct strobe_otlp *x = arg;

	(void)a, (void)b, (void)c, (void)d;
	return x->abort && *x->abort ? 1 : 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct jb *b = arg;

	if (b->len < 4096)
		jb_put(b, p, size * n < 4096 ? size * n : 4096);
	return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct strobe_otlp *x = arg;
	size_t len = size * n;

	if (len > 12 && !strncasecmp(p, "Retry-After:", 12)) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		x->retry_after = strobe_retry_after_parse(p + 12, len - 12, (double)now.tv_sec);
	}
	return len;
}

static int otlp_deliver(void *arg, const char *table, const void *body, size_t len, bool gz,
			uint64_t rows, long cap_ms, double *retry_after_s, struct strobe_error *e)
{
	struct strobe_otlp *x = arg;
	struct curl_slist *h = x->hdrs;
	CURLcode rc;
	long code = 0;
	int ret;

	(void)table;
	(void)rows;
	x->resp.len = 0;
	x->retry_after = -1;
	x->curl_err[0] = '\0';
	if (gz)
		h = curl_slist_append(NULL, "Content-Encoding: gzip");
	if (gz) {	/* the configured headers after it */
		struct curl_slist *i;

		for (i = x->hdrs; i && h; i = i->next)
			h = curl_slist_append(h, i->data);
		if (!h)
			return strobe_err(e, -ENOMEM, "out of memory");
	}
	curl_easy_setopt(x->curl, CURLOPT_URL, x->url);
	curl_easy_setopt(x->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(x->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(x->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(x->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(x->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->curl, CURLOPT_WRITEDATA, &x->resp);
	curl_easy_setopt(x->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->curl, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->curl, CURLOPT_ERRORBUFFER, x->curl_err);
	curl_easy_setopt(x->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(x->curl, CURLOPT_XFERINFOFUNCTION, on_xfer);
	curl_easy_setopt(x->curl, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(x->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 cap_ms > 0 && cap_ms < 10000 ? cap_ms : 10000L);
	curl_easy_setopt(x->curl, CURLOPT_TIMEOUT_MS,
			 cap_ms > 0 && cap_ms < x->o.timeout_s * 1000 ? cap_ms
								  : x->o.timeout_s * 1000);
	rc = curl_easy_perform(x->curl);
	if (gz)
		curl_slist_free_all(h);
	if (rc != CURLE_OK) {
		ret = rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED
		    : rc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT
		    : rc == CURLE_COULDNT_RESOLVE_HOST ? -EHOSTUNREACH : -EIO;
		return strobe_err(e, ret, "otlp: %s: %s", x->url,
				  x->curl_err[0] ? x->curl_err : curl_easy_strerror(rc));
	}
	curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300)
		return 0;
	if (x->retry_after >= 0)
		*retry_after_s = x->retry_after > 0 ? x->retry_after : 0.001;
	while (x->resp.len && (x->resp.p[x->resp.len - 1] == '\n' ||
			       x->resp.p[x->resp.len - 1] == '\r'))
		x->resp.p[--x->resp.len] = '\0';
	return strobe_err(e, code == 429 || code >= 500 ? -EAGAIN : -EIO,
			  "otlp: %s answered HTTP %ld%s%.150s", x->url, code,
			  x->resp.len ? ": " : "", x->resp.len ? x->resp.p : "");
}

static void otlp_abort_flag(void *arg, volatile int *flag)
{
	((struct strobe_otlp *)arg)->abort = flag;
}

static const struct strobe_sender_ops otlp_ops = {
	.what = "otlp",
	.unit = "spans",
	.kind = STROBE_SPOOL_OTLP,
	.deliver = otlp_deliver,
	.abort_flag = otlp_abort_flag,
};

/* ---- batches ------------------------------------------------------------------ */

static int res_attr(void *arg, const char *key, const char *value)
{
	struct jb *b = arg;
	struct strobe_otlp_attr a = { .key = key, .s = value };

	if (!strcmp(key, "service.name") || !strcmp(key, "host.name"))
		return 0;	/* said once, by the exporter's options */
	jb_lit(b, ",");
	jb_attr(b, &a);
	return 0;
}

/* s's batch as one request to the sender; emptied. */
static int send_batch(struct src *s, struct strobe_error *err)
{
	struct strobe_otlp *x = s->x;
	struct strobe_otlp_attr a = { .key = "service.name" };
	struct jb b = { 0 };
	int ret;

	if (!s->nr_spans)
		return 0;
	jb_lit(&b, "{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
	a.s = x->o.service_name ? x->o.service_name : "strobe";
	jb_attr(&b, &a);
	if (s->host[0]) {
		a.key = "host.name";
		a.s = s->host;
		jb_lit(&b, ",");
		jb_attr(&b, &a);
	}
	jb_put(&b, x->resource.p ? x->resource.p : "", x->resource.len);
	jb_lit(&b, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"strobe\",\"version\":\""
	       STROBE_VERSION "\"},\"spans\":[");
	jb_put(&b, s->spans.p, s->spans.len);
	jb_lit(&b, "]}]}]}");
	if (b.oom || s->spans.oom) {
		free(b.p);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	ret = strobe_sender_send(x->snd, "spans", b.p, b.len, s->nr_spans, err);
	free(b.p);
	if (ret < 0)
		return ret;
	x->st.batches++;
	s->spans.len = 0;
	s->nr_spans = 0;
	return 0;
}

static void add_span(struct src *s, const struct strobe_otlp_span *sp)
{
	if (s->nr_spans)
		jb_lit(&s->spans, ",");
	else
		s->since = mono();
	span_json(&s->spans, sp);
	s->nr_spans++;
	if (s->nr_spans >= s->x->o.batch_spans && !s->failed && send_batch(s, &s->err) < 0)
		s->failed = true;
}

/* The task attributes of owner (and the model's container) into a. */
static int task_attrs(struct src *s, const struct strobe_expr_task *ow, struct strobe_otlp_attr *a,
		      char *pod, size_t podsz)
{
	const struct strobe_task *k = s->m ? strobe_model_task(s->m, ow->tid) : NULL;
	const struct strobe_container *c = k ? k->container : NULL;
	const char *cname = ow->container, *cid = ow->container_id;
	int n = 0;

	if (ow->pid > 0)
		a[n++] = (struct strobe_otlp_attr){ .key = "process.pid", .type = 1, .i = ow->pid };
	a[n++] = (struct strobe_otlp_attr){ .key = "thread.id", .type = 1, .i = ow->tid };
	if (ow->procname && *ow->procname)
		a[n++] = (struct strobe_otlp_attr){ .key = "process.executable.name",
						    .s = ow->procname };
	if (c && c->runtime != STROBE_RT_HOST) {
		if (!cname || !*cname)
			cname = c->name;
		if (!cid || !*cid)
			cid = c->id;
	}
	if (cid && *cid)
		a[n++] = (struct strobe_otlp_attr){ .key = "container.id", .s = cid };
	if (cname && *cname && strcmp(cname, "host")) {
		a[n++] = (struct strobe_otlp_attr){ .key = "container.name", .s = cname };
		/* Kubernetes names are "namespace/pod/container" */
		if (c && c->pod_uid[0]) {
			const char *p1 = strchr(cname, '/'), *p2 = p1 ? strchr(p1 + 1, '/') : NULL;

			if (p2 && (size_t)(p2 - p1 - 1) < podsz) {
				memcpy(pod, p1 + 1, (size_t)(p2 - p1 - 1));
				pod[p2 - p1 - 1] = '\0';
				a[n++] = (struct strobe_otlp_attr){ .key = "k8s.pod.name", .s = pod };
			}
		}
	}
	return n;
}

static void span_id_of(const struct src *s, uint64_t kind_id, uint8_t out[8])
{
	uint64_t v = mix(s->x->seed[0] ^ mix(((uint64_t)s->index << 56) ^ kind_id));

	put_be(out, v ? v : 1);
}

static void trace_id_of(const struct src *s, uint64_t kind_id, uint8_t out[16])
{
	uint64_t k = mix(((uint64_t)s->index << 56) ^ kind_id);

	put_be(out, mix(s->x->seed[1] ^ k));
	put_be(out + 8, mix(s->x->seed[2] ^ k) | 1);
}

/* A traceparent under key in p's captures (begin, then end ones). */
static bool find_tp(const struct strobe_period *p, const char *key, uint8_t t[16], uint8_t sp[8])
{
	int i, n = p->nr_begin_captures + p->nr_end_captures;

	for (i = 0; i < n; i++) {
		const struct strobe_period_value *v = i < p->nr_begin_captures ?
			&p->begin_captures[i] : &p->end_captures[i - p->nr_begin_captures];

		if (v->v.type == STROBE_EXPR_VAL_STR && !strcmp(v->key, key) &&
		    strobe_otlp_traceparent_parse(v->v.s, v->v.len, t, sp) == 0)
			return true;
	}
	return false;
}

static const char *status_name(const struct strobe_period *p)
{
	switch (p->status) {
	case STROBE_PERIOD_CLOSED:
		return p->lost ? "lost" : "closed";
	case STROBE_PERIOD_OPEN:
		return "open";
	case STROBE_PERIOD_CUT:
		return "cut";
	case STROBE_PERIOD_OWNER_GONE:
		return "pid-reused";
	}
	return "?";
}

#define PERIOD_ID(id)	((uint64_t)(id) & 0x00ffffffffffffffULL)
#define CALL_ID(id)	((uint64_t)(id) | 0x0080000000000000ULL)

static void on_period(void *arg, const struct strobe_period *pd)
{
	struct src *s = arg;
	struct strobe_otlp *x = s->x;
	struct strobe_otlp_attr a[MAX_ATTRS];
	struct strobe_otlp_span sp = { 0 };
	const struct strobe_period *r, *root = pd;
	char keys[MAX_ATTRS][80], pod[128], *owned[MAX_ATTRS];
	bool joined = false;
	int i, n, nc, nown = 0;

	for (r = pd->parent; r; r = r->parent)
		root = r;
	trace_id_of(s, PERIOD_ID(root->id), sp.trace_id);
	span_id_of(s, PERIOD_ID(pd->id), sp.span_id);
	if (pd->parent) {
		sp.has_parent = true;
		span_id_of(s, PERIOD_ID(pd->parent->id), sp.parent_id);
	}
	if (x->o.traceparent_from) {
		uint8_t t[16], ps[8];

		for (r = pd; r; r = r->parent) {
			if (find_tp(r, x->o.traceparent_from, t, ps)) {
				memcpy(sp.trace_id, t, 16);
				if (r == pd) {	/* its own: under the application's span */
					memcpy(sp.parent_id, ps, 8);
					sp.has_parent = true;
				}
				joined = true;
				break;
			}
		}
	}
	sp.name = pd->path && pd->path[0] ? pd->path : "period";
	sp.start_ns = (uint64_t)((int64_t)pd->begin_ts + s->wall);
	sp.end_ns = (uint64_t)((int64_t)(pd->end_ts > pd->begin_ts ? pd->end_ts : pd->begin_ts) +
			       s->wall);
	n = task_attrs(s, &pd->owner, a, pod, sizeof(pod));
	a[n++] = (struct strobe_otlp_attr){ .key = "strobe.period.status", .s = status_name(pd) };
	nc = pd->nr_begin_captures + pd->nr_end_captures;
	for (i = 0; i < nc && n < MAX_ATTRS; i++) {
		const struct strobe_period_value *v = i < pd->nr_begin_captures ?
			&pd->begin_captures[i] : &pd->end_captures[i - pd->nr_begin_captures];
		struct strobe_otlp_attr *t = &a[n];
		char *sv;

		snprintf(keys[n], sizeof(keys[n]), "strobe.capture.%s", v->key);
		*t = (struct strobe_otlp_attr){ .key = keys[n] };
		switch (v->v.type) {
		case STROBE_EXPR_VAL_INT:
			t->type = 1;
			t->i = v->v.i;
			break;
		case STROBE_EXPR_VAL_DOUBLE:
			t->type = 2;
			t->d = v->v.d;
			break;
		case STROBE_EXPR_VAL_STR:
			sv = strndup(v->v.s, strnlen(v->v.s, v->v.len));
			if (!sv)
				continue;
			t->s = owned[nown++] = sv;
			break;
		default:
			continue;
		}
		n++;
	}
	sp.attrs = a;
	sp.nr_attrs = n;
	add_span(s, &sp);
	for (i = 0; i < nown; i++)
		free(owned[i]);
	x->st.periods++;
	x->st.joined += joined;
}

/* ---- system calls ------------------------------------------------------------ */

static size_t call_slot(int tid, size_t cap)
{
	return ((size_t)(unsigned)tid * 0x9e3779b1u) & (cap - 1);
}

static struct call *call_find(struct src *s, int tid)
{
	size_t i;

	if (!s->calls_cap)
		return NULL;
	for (i = call_slot(tid, s->calls_cap); s->calls[i].tid; i = (i + 1) & (s->calls_cap - 1))
		if (s->calls[i].tid == tid)
			return &s->calls[i];
	return NULL;
}

static bool call_grow(struct src *s)
{
	size_t cap = s->calls_cap ? s->calls_cap * 2 : 1024, i, j;
	struct call *n = calloc(cap, sizeof(*n));

	if (!n)
		return false;
	for (i = 0; i < s->calls_cap; i++) {
		if (!s->calls[i].tid)
			continue;
		for (j = call_slot(s->calls[i].tid, cap); n[j].tid; j = (j + 1) & (cap - 1))
			;
		n[j] = s->calls[i];
	}
	free(s->calls);
	s->calls = n;
	s->calls_cap = cap;
	return true;
}

static struct call *call_put(struct src *s, int tid)
{
	struct call *c = call_find(s, tid);
	size_t i;

	if (c)
		return c;
	if ((s->calls_used + 1) * 2 > s->calls_cap && !call_grow(s))
		return NULL;
	for (i = call_slot(tid, s->calls_cap); s->calls[i].tid; i = (i + 1) & (s->calls_cap - 1))
		;
	s->calls[i].tid = tid;
	s->calls_used++;
	return &s->calls[i];
}

/* Remove c (backward-shift deletion keeps the probe chains whole). */
static void call_del(struct src *s, struct call *c)
{
	size_t mask = s->calls_cap - 1, i = (size_t)(c - s->calls), j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!s->calls[j].tid)
			break;
		k = call_slot(s->calls[j].tid, s->calls_cap);
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			s->calls[i] = s->calls[j];
			i = j;
		}
	}
	s->calls[i].tid = 0;
	s->calls_used--;
}

static void on_call_exit(struct src *s, const struct strobe_event *ev, int nr, int64_t ret,
			 const char *tname)
{
	struct strobe_otlp *x = s->x;
	struct call *c = call_find(s, ev->pid);
	struct strobe_otlp_attr a[12];
	struct strobe_otlp_span sp = { 0 };
	struct strobe_expr_task ow = { .tid = ev->pid, .pid = -1 };
	const struct strobe_task *k;
	char name[96], pod[128];
	const char *sn;
	uint64_t id;
	int n;

	if (!c)
		return;
	if (nr >= 0 && c->nr >= 0 && c->nr != nr) {	/* an exit of another call: lost */
		call_del(s, c);
		return;
	}
	if (ev->ts < c->ts || ev->ts - c->ts < x->o.syscall_min_ns) {
		call_del(s, c);
		return;
	}
	sn = tname ? tname : c->name ? c->name : strobe_syscall_name(nr >= 0 ? nr : c->nr);
	snprintf(name, sizeof(name), "syscall %s", sn ? sn : "?");
	id = CALL_ID(++s->next_call_id);
	trace_id_of(s, id, sp.trace_id);
	span_id_of(s, id, sp.span_id);
	sp.name = name;
	sp.start_ns = (uint64_t)((int64_t)c->ts + s->wall);
	sp.end_ns = (uint64_t)((int64_t)ev->ts + s->wall);
	sp.error = ret < 0;
	call_del(s, c);
	k = s->m ? strobe_model_task(s->m, ev->pid) : NULL;
	if (k) {
		ow.pid = k->tgid;
		ow.procname = k->comm;
	}
	n = task_attrs(s, &ow, a, pod, sizeof(pod));
	a[n++] = (struct strobe_otlp_attr){ .key = "strobe.syscall.ret", .type = 1, .i = ret };
	sp.attrs = a;
	sp.nr_attrs = n;
	add_span(s, &sp);
	x->st.syscalls++;
}

static void resolve(struct src *s, struct ttype *t, const struct strobe_format *f)
{
	const char *sys = strobe_format_system(f), *name = strobe_format_name(f);

	t->kind = 1;
	t->nr = -1;
	if (!sys || !name || !s->x->o.syscall_min_ns)
		return;
	if (!strcmp(sys, "raw_syscalls") && !strcmp(name, "sys_enter")) {
		if (!strobe_field_resolve(f, "id", &t->id))
			t->kind = 2;
	} else if (!strcmp(sys, "raw_syscalls") && !strcmp(name, "sys_exit")) {
		if (!strobe_field_resolve(f, "id", &t->id) && !strobe_field_resolve(f, "ret", &t->ret))
			t->kind = 3;
	} else if (!strcmp(sys, "syscalls") && !strncmp(name, "sys_enter_", 10)) {
		t->name = strdup(name + 10);
		t->nr = strobe_syscall_nr(name + 10);
		if (t->name)
			t->kind = 4;
	} else if (!strcmp(sys, "syscalls") && !strncmp(name, "sys_exit_", 9)) {
		t->name = strdup(name + 9);
		t->nr = strobe_syscall_nr(name + 9);
		if (t->name && !strobe_field_resolve(f, "ret", &t->ret))
			t->kind = 5;
	}
}

/* ---- the consumer ------------------------------------------------------------- */

static int make_periods(struct strobe_otlp *x, struct src *s, struct strobe_error *err)
{
	const struct strobe_otlp_opts *o = &x->o;

	return strobe_sink_periods_make(o->periods, o->nr_periods, o->period_captures,
					o->nr_period_captures, on_period, s, s->fmts, &s->env,
					&s->per, &s->sysargs, err);
}

static int ox_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		    struct strobe_error *err)
{
	struct strobe_otlp *x = arg;
	struct timespec rt, mt;
	int i, ret;

	if (x->started)
		return strobe_err(err, -EINVAL, "otlp: an export runs once");
	x->started = true;
	if (nr > 127)
		return strobe_err(err, -EINVAL, "otlp: at most 127 sources, not %d", nr);
	x->src = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*x->src));
	if (!x->src)
		return strobe_err(err, -ENOMEM, "out of memory");
	x->nr_src = nr;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	for (i = 0; i < nr; i++) {
		struct src *s = &x->src[i];

		s->x = x;
		s->index = i;
		s->fmts = src[i].formats;
		s->m = src[i].model;
		if (s->m)
			strobe_expr_env_model(&s->env, s->m);
		if (i < x->o.nr_wall_offsets)
			s->wall = x->o.wall_offsets[i];
		else if (src[i].live)
			s->wall = ((int64_t)rt.tv_sec - mt.tv_sec) * 1000000000LL +
				  (rt.tv_nsec - mt.tv_nsec);
		if (x->o.host_name)
			snprintf(s->host, sizeof(s->host), "%s", x->o.host_name);
		else if (src[i].host && src[i].host[0])
			snprintf(s->host, sizeof(s->host), "%s", src[i].host);
		else if (gethostname(s->host, sizeof(s->host) - 1) < 0)
			s->host[0] = '\0';
		s->nr_types = s->fmts ? strobe_formats_max_id(s->fmts) + 1 : 0;
		if (s->nr_types > 0) {
			s->types = calloc((size_t)s->nr_types, sizeof(*s->types));
			if (!s->types)
				return strobe_err(err, -ENOMEM, "out of memory");
		}
		if ((ret = make_periods(x, s, err)) < 0)
			return ret;
	}
	return 0;
}

static int fail_of(struct src *s, struct strobe_error *err)
{
	if (err)
		*err = s->err;
	return s->err.code ? s->err.code : -EIO;
}

static int ox_event(const struct strobe_event *ev, int source, void *arg,
		    struct strobe_error *err)
{
	struct strobe_otlp *x = arg;
	struct src *s = &x->src[source];
	struct ttype *ty = NULL;
	struct call *c;

	x->st.events++;
	if (ev->format && ev->type >= 0 && ev->type < s->nr_types) {
		ty = &s->types[ev->type];
		if (!ty->kind) {
			resolve(s, ty, ev->format);
			ty->period = -1;
		}
	}
	if (ty && ev->pid > 0) {
		switch (ty->kind) {
		case 2:
		case 4:
			if ((c = call_put(s, ev->pid))) {
				c->ts = ev->ts;
				c->nr = ty->kind == 2 ? (int)strobe_field_int(ev, &ty->id) : ty->nr;
				c->name = ty->kind == 4 ? ty->name : NULL;
			}
			break;
		case 3:
			on_call_exit(s, ev, (int)strobe_field_int(ev, &ty->id),
				     strobe_field_int(ev, &ty->ret), NULL);
			break;
		case 5:
			on_call_exit(s, ev, ty->nr, strobe_field_int(ev, &ty->ret), ty->name);
			break;
		default:
			break;
		}
	}
	if (s->per) {
		if (ty && ty->period < 0)
			ty->period = strobe_periods_may_match(s->per, ev->format);
		if (!ty || ty->period)
			strobe_periods_feed(s->per, ev);
		if (ev->missed)
			strobe_periods_note_lost(s->per);
	}
	if (s->nr_spans && !(x->st.events & 1023) && mono() - s->since >= x->o.flush_s &&
	    !s->failed && send_batch(s, &s->err) < 0)
		s->failed = true;
	if (s->failed)
		return fail_of(s, err);
	return 0;
}

/* Live, nothing to read: batches older than flush_s go out. */
static int ox_idle(void *arg, struct strobe_error *err)
{
	struct strobe_otlp *x = arg;
	int i;

	for (i = 0; i < x->nr_src; i++) {
		struct src *s = &x->src[i];

		if (s->nr_spans && mono() - s->since >= x->o.flush_s && !s->failed &&
		    send_batch(s, &s->err) < 0)
			s->failed = true;
		if (s->failed)
			return fail_of(s, err);
	}
	return 0;
}

static int ox_finish(void *arg, struct strobe_error *err)
{
	struct strobe_otlp *x = arg;
	int i;

	for (i = 0; i < x->nr_src; i++) {
		struct src *s = &x->src[i];

		if (s->per)
			strobe_periods_finish(s->per);
		if (!s->failed && send_batch(s, &s->err) < 0)
			s->failed = true;
		if (s->failed)
			return fail_of(s, err);
	}
	return 0;
}

void strobe_otlp_consumer(struct strobe_otlp *x, struct strobe_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->name = "the OTLP export";
	c->flags = STROBE_CONSUMER_MODEL | STROBE_CONSUMER_SOURCE_TIME;
	c->start = ox_start;
	c->event = ox_event;
	c->idle = ox_idle;
	c->finish = ox_finish;
	c->arg = x;
}

/* ---- the public face ---------------------------------------------------------- */

/* A client for url with headers (copied); no sender yet. */
static int client_new(const char *url, const char *const *headers, int nr_headers,
		      struct strobe_otlp **out, struct strobe_error *err)
{
	struct strobe_otlp *x;
	int i;

	*out = NULL;
	if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)))
		return strobe_err(err, -EINVAL, "otlp: the endpoint '%s' is not an http(s) URL",
				  url ? url : "");
	for (i = 0; i < nr_headers; i++)
		if (!strchr(headers[i], ':') || headers[i][0] == ':')
			return strobe_err(err, -EINVAL, "otlp: the header '%.60s' has no name: "
					  "value", headers[i]);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return strobe_err(err, -ENOMEM, "otlp: libcurl cannot start");
	x = calloc(1, sizeof(*x));
	if (!x)
		return strobe_err(err, -ENOMEM, "out of memory");
	x->url = strdup(url);
	x->curl = curl_easy_init();
	x->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	for (i = 0; i < nr_headers && x->hdrs; i++) {
		struct curl_slist *h = curl_slist_append(x->hdrs, headers[i]);

		if (!h) {
			curl_slist_free_all(x->hdrs);
			x->hdrs = NULL;
		}
		x->hdrs = h;
	}
	if (!x->url || !x->curl || !x->hdrs) {
		strobe_otlp_free(x);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	x->o.timeout_s = 10;
	*out = x;
	return 0;
}

int strobe_otlp_new(const struct strobe_otlp_opts *opts, struct strobe_otlp **out,
		    struct strobe_error *err)
{
	struct strobe_sender_opts so = { 0 };
	struct strobe_otlp *x;
	int ret;

	*out = NULL;
	if (!opts)
		return strobe_err(err, -EINVAL, "otlp: no options");
	ret = client_new(opts->url, opts->headers, opts->nr_headers, &x, err);
	if (ret < 0)
		return ret;
	memcpy(&x->o, opts, opts->size && opts->size < sizeof(x->o) ? opts->size : sizeof(x->o));
	x->o.size = sizeof(x->o);
	if (!x->o.batch_spans)
		x->o.batch_spans = DEF_BATCH;
	if (x->o.flush_s <= 0)
		x->o.flush_s = 1;
	if (x->o.timeout_s <= 0)
		x->o.timeout_s = 10;
	if (x->o.resource_attributes &&
	    strobe_otlp_kv_parse(x->o.resource_attributes, res_attr, &x->resource) < 0) {
		strobe_otlp_free(x);
		return strobe_err(err, -EINVAL, "otlp: bad resource attributes '%.100s' (want "
				  "key=value,...)", opts->resource_attributes);
	}
	if (getrandom(x->seed, sizeof(x->seed), 0) != (ssize_t)sizeof(x->seed)) {
		x->seed[0] = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
		x->seed[1] = mix(x->seed[0]);
		x->seed[2] = mix(x->seed[1]);
	}
	so.spool_path = x->o.spool_path;
	so.spool_max = x->o.spool_max;
	so.backoff_min_s = x->o.backoff_min_s;
	so.backoff_max_s = x->o.backoff_max_s;
	so.stop = x->o.stop;
	ret = strobe_sender_new(&otlp_ops, x, &so, &x->snd, err);
	if (ret < 0) {
		strobe_otlp_free(x);
		return ret;
	}
	*out = x;
	return 0;
}

static void fill_stats(struct strobe_otlp *x, const struct strobe_sender_stats *g,
		       struct strobe_otlp_stats *st)
{
	*st = x->st;
	st->delivered = g->delivered[0];
	st->pending = g->pending[0];
	st->dropped = g->dropped[0];
	st->failures = g->failures;
	st->retry_afters = g->retry_afters;
	memcpy(st->spool_path, g->spool_path, sizeof(st->spool_path));
	memcpy(st->last_error, g->last_error, sizeof(st->last_error));
}

void strobe_otlp_stats(struct strobe_otlp *x, struct strobe_otlp_stats *st)
{
	struct strobe_sender_stats g = { 0 };

	if (x->snd)
		strobe_sender_stats(x->snd, &g);
	fill_stats(x, &g, st);
}

int strobe_otlp_close(struct strobe_otlp *x, double timeout_s, struct strobe_otlp_stats *st,
		      struct strobe_error *err)
{
	struct strobe_sender_stats g;
	int ret = strobe_sender_close(x->snd, timeout_s, &g, err);

	if (st)
		fill_stats(x, &g, st);
	return ret;
}

void strobe_otlp_free(struct strobe_otlp *x)
{
	int i, k;

	if (!x)
		return;
	strobe_sender_free(x->snd);	/* closes: its thread is done with x */
	for (i = 0; i < x->nr_src; i++) {
		struct src *s = &x->src[i];

		strobe_periods_free(s->per);
		strobe_syscall_args_free(s->sysargs);
		for (k = 0; k < s->nr_types; k++)
			free(s->types[k].name);
		free(s->types);
		free(s->calls);
		free(s->spans.p);
	}
	free(x->src);
	if (x->curl)
		curl_easy_cleanup(x->curl);
	curl_slist_free_all(x->hdrs);
	free(x->resp.p);
	free(x->resource.p);
	free(x->url);
	free(x);
}

static int replay_one(void *arg, const char *table, const void *data, size_t len,
		      uint64_t rows, struct strobe_error *err)
{
	struct strobe_otlp *x = arg;
	double ra = 0;

	return otlp_deliver(x, table, data, len, false, rows, 0, &ra, err);
}

int strobe_otlp_spool_replay(const char *path, const char *url, const char *const *headers,
			     int nr_headers, uint64_t *spans, struct strobe_error *err)
{
	struct strobe_otlp *x;
	uint64_t rows[2] = { 0, 0 };
	int ret;

	ret = client_new(url, headers, nr_headers, &x, err);
	if (ret < 0)
		return ret;
	ret = strobe_spool_replay(path, STROBE_SPOOL_OTLP, NULL, replay_one, x, rows, err);
	if (spans)
		*spans = rows[0];
	strobe_otlp_free(x);
	return ret;
}
