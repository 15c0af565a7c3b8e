/*
 * clickhouse.c - the ClickHouse sink: a trace's events and per-second
 * per-container aggregates as rows of a ClickHouse database, over its
 * HTTP interface (strobe export --format clickhouse).  Schema and
 * contracts: include/strobe/clickhouse.h and doc/strobe-export.1.
 *
 * How it is shaped:
 *
 *  - Rows are encoded in RowBinary (little-endian integers, strings as a
 *    LEB128 length and bytes): no escaping, no parsing of text on the
 *    server, and the smallest body before compression.  A batch is one
 *    INSERT of up to batch_rows rows, gzip-compressed (level 1: the
 *    server's parsing, not our compression, should be the bottleneck),
 *    except to a server on the loopback (loopback_url).
 *  - The fields column is the JSON object `strobe report --json` writes
 *    for the event, by the same code (lib/output/json.c's
 *    strobe_json_fields, with each type's keys escaped and its fields'
 *    decoding planned once), so the three ways of reading fields (report,
 *    strobe sql's events view, ClickHouse) agree by construction.  A row
 *    is written in one piece after one check of the batch's room.
 *  - The aggregates are kept per (wall-clock second, container) in a
 *    small hash and sent with each events batch for the seconds that are
 *    over; on-CPU time that reaches back into a second already sent
 *    makes a second, partial row (readers sum()).
 *  - Event types are known through the public catalogue (struct
 *    strobe_formats): names, and the few fields the aggregates read,
 *    resolved once per type in resolve_type().
 *
 * The sink knows nothing of HTTP: batches go to a strobe_ch_send_fn, which
 * is strobe_clickhouse_send for a server (and a decoder in the unit tests).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <curl/curl.h>
#include <libdeflate.h>

#include <strobe/strobe.h>
#include <strobe/clickhouse.h>

#include "output/output-int.h"
#include "sinks/sinks-int.h"
#include "util/err.h"

#define NSEC		1000000000ULL
#define BATCH_BYTES	(32u << 20)	/* an events batch also ends at this size */
#define MAX_INTERVAL	(86400 * NSEC)	/* longer on-CPU intervals are damage */
#define ERR_TEXT	300		/* bytes of the server's error text kept */

/* ---- a growable byte buffer ------------------------------------------ */

struct bbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;	/* an append failed: the content is incomplete */
};

static bool bb_room(struct bbuf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->len + n <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
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

static void bb_put(struct bbuf *b, const void *p, size_t n)
{
	if (n && bb_room(b, n)) {
		memcpy(b->p + b->len, p, n);
		b->len += n;
	}
}

/* Little-endian integers, whatever the host's order. */
static void bb_le(struct bbuf *b, uint64_t v, int bytes)
{
	uint8_t t[8];
	int i;

	for (i = 0; i < bytes; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	bb_put(b, t, (size_t)bytes);
}

static void bb_varint(struct bbuf *b, uint64_t v)
{
	uint8_t t[10];
	int n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	bb_put(b, t, (size_t)n);
}

static void bb_str(struct bbuf *b, const char *s, size_t n)
{
	bb_varint(b, n);
	bb_put(b, s, n);
}

/* Unchecked writers for a row whose room bb_room() made beforehand. */
static uint8_t *put_le(uint8_t *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + bytes;
}

static uint8_t *put_str(uint8_t *p, const char *s, size_t n)
{
	size_t v = n;

	do {
		*p = v & 0x7f;
		v >>= 7;
		if (v)
			*p |= 0x80;
		p++;
	} while (v);
	memcpy(p, s, n);
	return p + n;
}

static void bb_free(struct bbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- the HTTP client ---------------------------------------------- */

struct strobe_clickhouse {
	CURL *curl;
	char *url;		/* base URL, no user info, no trailing '/' */
	char *db;
	char *user, *password;	/* NULL: none */
	bool gzip;
	long timeout_s;
	double retry_s;
	long cap_ms;		/* > 0: no request takes longer (the sender's close) */
	volatile int *abort;	/* non-NULL and set: give up the running request */
	struct bbuf resp;	/* the last answer */
	struct bbuf z;		/* compressed body */
	char curl_err[CURL_ERROR_SIZE];
};

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* Process-wide libcurl set-up, once (curl_global_init is not thread-safe
 * before 7.84; doing it here keeps the first request from racing). */
static int curl_ready(void)
{
	static int done;

	if (!done)
		done = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 1 : -1;
	return done;
}

/*
 * Split "scheme://[user[:pass]@]host..." into the URL without user info
 * (*base) and the user info parts (*user, *pass: NULL when absent).
 */
static int split_url(const char *url, char **base, char **user, char **pass)
{
	const char *rest = strstr(url, "://"), *at, *slash, *colon;
	size_t n;

	*base = *user = *pass = NULL;
	if (!rest)
		return -EINVAL;
	rest += 3;
	slash = strchr(rest, '/');
	at = memchr(rest, '@', slash ? (size_t)(slash - rest) : strlen(rest));
	if (at) {
		colon = memchr(rest, ':', (size_t)(at - rest));
		*user = strndup(rest, (size_t)((colon ? colon : at) - rest));
		if (colon)
			*pass = strndup(colon + 1, (size_t)(at - colon - 1));
		if (asprintf(base, "%.*s%s", (int)(rest - url), url, at + 1) < 0)
			*base = NULL;
	} else {
		*base = strdup(url);
	}
	if (!*base)
		return -ENOMEM;
	n = strlen(*base);
	while (n > (size_t)(rest - url) && (*base)[n - 1] == '/')
		(*base)[--n] = '\0';
	return 0;
}

/*
 * Whether base ("scheme://host[:port][/...]", no user info) names this
 * machine's loopback: localhost, 127.0.0.0/8 or [::1].  Bodies to it are
 * sent as they are: gzip would cost CPU on both ends (libdeflate was
 * 45% of strobe's time of an export to a local server) to save bytes
 * that never cross a network.
 */
static bool loopback_url(const char *base)
{
	const char *h = strstr(base, "://");
	size_t n;

	if (!h)
		return false;
	h += 3;
	if (!strncmp(h, "[::1]", 5))
		return h[5] == '\0' || h[5] == ':' || h[5] == '/';
	n = strcspn(h, ":/");
	if (n == 9 && !strncasecmp(h, "localhost", 9))
		return true;
	if (n < 7 || strncmp(h, "127.", 4))
		return false;
	return strspn(h, "0123456789.") >= n;
}

int strobe_clickhouse_new(const struct strobe_clickhouse_opts *opts,
			  struct strobe_clickhouse **out, struct strobe_error *err)
{
	struct strobe_clickhouse *ch;
	const char *db = opts->database ? opts->database : "strobe";
	char *uuser = NULL, *upass = NULL;
	const char *user, *pass;
	int ret;

	*out = NULL;
	if (!opts->url || (strncmp(opts->url, "http://", 7) && strncmp(opts->url, "https://", 8)))
		return strobe_err(err, -EINVAL, "clickhouse: the URL must start with http:// or "
				  "https://");
	if (!valid_name(db))
		return strobe_err(err, -EINVAL, "clickhouse: database name '%.64s': use letters, "
				  "digits and _ only", db);
	if (curl_ready() < 0)
		return strobe_err(err, -ENOMEM, "clickhouse: libcurl did not initialise");
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return strobe_err(err, -ENOMEM, "out of memory");
	ret = split_url(opts->url, &ch->url, &uuser, &upass);
	if (ret < 0)
		goto fail;
	user = opts->user ? opts->user : uuser ? uuser : getenv("CLICKHOUSE_USER");
	pass = opts->password ? opts->password : upass ? upass : getenv("CLICKHOUSE_PASSWORD");
	ch->db = strdup(db);
	ch->user = user && *user ? strdup(user) : NULL;
	ch->password = pass && *pass ? strdup(pass) : NULL;
	ch->curl = curl_easy_init();
	if (!ch->db || (user && *user && !ch->user) || (pass && *pass && !ch->password) ||
	    !ch->curl) {
		ret = -ENOMEM;
		goto fail;
	}
	ch->gzip = !opts->no_compress && !loopback_url(ch->url);
	ch->timeout_s = opts->timeout_s > 0 ? opts->timeout_s : 300;
	ch->retry_s = opts->retry_s > 0 ? opts->retry_s : 0;
	if (upass)
		explicit_bzero(upass, strlen(upass));
	free(uuser);
	free(upass);
	*out = ch;
	return 0;
fail:
	if (upass)
		explicit_bzero(upass, strlen(upass));
	free(uuser);
	free(upass);
	strobe_clickhouse_free(ch);
	return strobe_err(err, ret, ret == -ENOMEM ? "out of memory"
			  : "clickhouse: cannot parse the URL");
}

void strobe_clickhouse_free(struct strobe_clickhouse *ch)
{
	if (!ch)
		return;
	if (ch->curl)
		curl_easy_cleanup(ch->curl);
	if (ch->password)
		explicit_bzero(ch->password, strlen(ch->password));
	free(ch->password);
	free(ch->user);
	free(ch->db);
	free(ch->url);
	bb_free(&ch->resp);
	bb_free(&ch->z);
	free(ch);
}

static int on_xfer(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct strobe_clickhouse *ch = arg;

	return ch->abort && *ch->abort ? 1 : 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct bbuf *b = arg;

	bb_put(b, p, size * n);
	return b->oom ? 0 : size * n;
}

int strobe_ch_gzip(const void *data, size_t len, uint8_t **out, size_t *out_len)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	size_t bound, n = 0;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	bound = libdeflate_gzip_compress_bound(c, len);
	*out = malloc(bound);
	if (*out)
		n = libdeflate_gzip_compress(c, data, len, *out, bound);
	libdeflate_free_compressor(c);
	if (!n) {	/* cannot happen with the bound's room */
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	*out_len = n;
	return 0;
}

/* gzip data into ch->z.  0 or -ENOMEM. */
static int gzip_body(struct strobe_clickhouse *ch, const void *data, size_t len)
{
	uint8_t *z;
	size_t n;

	if (strobe_ch_gzip(data, len, &z, &n) < 0)
		return -ENOMEM;
	bb_free(&ch->z);
	ch->z.p = z;
	ch->z.len = ch->z.cap = n;
	return 0;
}

/* The server's error text, one line, without its stack trace and the
 * ", e.what() = ..." tail, at most ERR_TEXT bytes. */
static void error_text(const struct bbuf *b, char *out, size_t size)
{
	size_t n = b->len, i;
	const char *p = (const char *)b->p, *cut;

	if (!p || !n) {
		snprintf(out, size, "(no error text)");
		return;
	}
	for (i = 0; i < n && p[i] != '\n' && p[i] != '\0'; i++)
		;
	n = i;
	cut = memmem(p, n, ", e.what() = ", 13);
	if (cut)
		n = (size_t)(cut - p);
	if (n > ERR_TEXT)
		n = ERR_TEXT;
	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++)
		out[i] = isprint((unsigned char)p[i]) ? p[i] : '?';
	out[n] = '\0';
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Could the server not be reached (so nothing was done and a retry is
 * worth it)? */
static bool unreachable(CURLcode rc)
{
	return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
	       rc == CURLE_GOT_NOTHING || rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR ||
	       rc == CURLE_OPERATION_TIMEDOUT;
}

/* curl_easy_perform, again after a pause while the server cannot be
 * reached and ch->retry_s allows. */
static CURLcode perform(struct strobe_clickhouse *ch)
{
	double end = mono_s() + ch->retry_s, pause = 0.1;
	CURLcode rc;

	for (;;) {
		ch->resp.len = 0;
		ch->resp.oom = false;
		ch->curl_err[0] = '\0';
		rc = curl_easy_perform(ch->curl);
		if (!unreachable(rc) || mono_s() + pause > end)
			return rc;
		nanosleep(&(struct timespec){ .tv_sec = (time_t)pause,
			  .tv_nsec = (long)((pause - (double)(time_t)pause) * 1e9) }, NULL);
		pause = pause * 2 > 5 ? 5 : pause * 2;
	}
}

enum body_mode { B_PLAIN, B_COMPRESS, B_GZIPPED };

/*
 * POST body (len bytes; gzip it when mode is B_COMPRESS, already gzip
 * when B_GZIPPED) to the base URL with the URL-encoded query `q` as the
 * query parameter (NULL: the body is the query).  The answer is in
 * ch->resp.  0 or -errno.
 */
static int request(struct strobe_clickhouse *ch, const char *q, const void *body, size_t len,
		   enum body_mode mode, struct strobe_error *err)
{
	struct curl_slist *hdr = NULL;
	char *url = NULL, *esc = NULL;
	long status = 0;
	CURLcode rc;
	int ret = 0;

	if (q) {
		esc = curl_easy_escape(ch->curl, q, 0);
		if (!esc || asprintf(&url, "%s/?query=%s", ch->url, esc) < 0)
			url = NULL;
		curl_free(esc);
	} else if (asprintf(&url, "%s/", ch->url) < 0) {
		url = NULL;
	}
	if (!url)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (mode == B_COMPRESS) {
		ret = gzip_body(ch, body, len);
		if (ret < 0) {
			free(url);
			return strobe_err(err, ret, "out of memory");
		}
		body = ch->z.p;
		len = ch->z.len;
	}
	if (mode != B_PLAIN)
		hdr = curl_slist_append(hdr, "Content-Encoding: gzip");
	hdr = curl_slist_append(hdr, "Content-Type: application/octet-stream");
	hdr = curl_slist_append(hdr, "Expect:");
	curl_easy_reset(ch->curl);
	curl_easy_setopt(ch->curl, CURLOPT_URL, url);
	curl_easy_setopt(ch->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(ch->curl, CURLOPT_POSTFIELDS, body ? body : "");
	curl_easy_setopt(ch->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(ch->curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(ch->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(ch->curl, CURLOPT_WRITEDATA, &ch->resp);
	curl_easy_setopt(ch->curl, CURLOPT_ERRORBUFFER, ch->curl_err);
	curl_easy_setopt(ch->curl, CURLOPT_NOSIGNAL, 1L);
	if (ch->abort) {
		curl_easy_setopt(ch->curl, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(ch->curl, CURLOPT_XFERINFOFUNCTION, on_xfer);
		curl_easy_setopt(ch->curl, CURLOPT_XFERINFODATA, ch);
	}
	curl_easy_setopt(ch->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 ch->cap_ms > 0 && ch->cap_ms < 10000 ? ch->cap_ms : 10000L);
	curl_easy_setopt(ch->curl, CURLOPT_TIMEOUT_MS,
			 ch->cap_ms > 0 && ch->cap_ms < ch->timeout_s * 1000 ? ch->cap_ms
			 : ch->timeout_s * 1000);
	if (ch->user || ch->password) {
		curl_easy_setopt(ch->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(ch->curl, CURLOPT_USERNAME, ch->user ? ch->user : "default");
		curl_easy_setopt(ch->curl, CURLOPT_PASSWORD, ch->password ? ch->password : "");
	}
	rc = perform(ch);
	curl_slist_free_all(hdr);
	free(url);
	if (rc != CURLE_OK) {
		/* curl's messages name host and port, never the credentials
		 * (they are not part of the URL curl sees) */
		const char *why = ch->curl_err[0] ? ch->curl_err : curl_easy_strerror(rc);

		ret = rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED
		      : rc == CURLE_COULDNT_RESOLVE_HOST ? -EHOSTUNREACH
		      : rc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT
		      : rc == CURLE_OUT_OF_MEMORY || ch->resp.oom ? -ENOMEM : -EIO;
		return strobe_err(err, ret, "clickhouse at %s: %s", ch->url, why);
	}
	curl_easy_getinfo(ch->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		char text[ERR_TEXT + 1];

		error_text(&ch->resp, text, sizeof(text));
		/* 192 unknown user, 193 wrong password, 516 authentication failed */
		ret = strstr(text, "Code: 192,") || strstr(text, "Code: 193,") ||
		      strstr(text, "Code: 516,") || status == 401 || status == 403 ? -EACCES : -EIO;
		return strobe_err(err, ret, "clickhouse at %s: HTTP %ld: %s", ch->url, status, text);
	}
	return 0;
}

int strobe_clickhouse_query(struct strobe_clickhouse *ch, const char *sql, char **out,
			    size_t *out_len, struct strobe_error *err)
{
	int ret = request(ch, NULL, sql, strlen(sql), B_PLAIN, err);

	if (ret < 0 || !out)
		return ret;
	*out = malloc(ch->resp.len + 1);
	if (!*out)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (ch->resp.len)
		memcpy(*out, ch->resp.p, ch->resp.len);
	(*out)[ch->resp.len] = '\0';
	if (out_len)
		*out_len = ch->resp.len;
	return 0;
}

int strobe_clickhouse_create_schema(struct strobe_clickhouse *ch, struct strobe_error *err)
{
	/* each statement is "<head> <db>.<tail>" (CREATE DATABASE: no tail) */
	static const char *const ddl[][2] = {
		{ "CREATE DATABASE IF NOT EXISTS", NULL },
		{ "CREATE TABLE IF NOT EXISTS", "events (host String, ts UInt64, time DateTime, "
		  "cpu UInt16, tid Int32, pid Int32, comm String, container String, "
		  "system String, event String, fields String) "
		  "ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time) ORDER BY (host, ts)" },
		{ "CREATE TABLE IF NOT EXISTS", "container_seconds (host String, time DateTime, "
		  "container String, cpu_ns UInt64, syscalls UInt64, errors UInt64, "
		  "syscall_ns UInt64, lat_log2 Array(UInt64)) "
		  "ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time) "
		  "ORDER BY (host, time, container)" },
	};
	char sql[512];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(ddl) / sizeof(ddl[0]); i++) {
		snprintf(sql, sizeof(sql), "%s %s%s%s", ddl[i][0], ch->db, ddl[i][1] ? "." : "",
			 ddl[i][1] ? ddl[i][1] : "");
		ret = request(ch, NULL, sql, strlen(sql), B_PLAIN, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int strobe_clickhouse_send(void *arg, const char *table, const void *data, size_t len,
			   uint64_t rows, struct strobe_error *err)
{
	struct strobe_clickhouse *ch = arg;
	char q[256];

	if (!valid_name(table))
		return strobe_err(err, -EINVAL, "clickhouse: bad table name");
	snprintf(q, sizeof(q), "INSERT INTO %s.%s FORMAT RowBinary", ch->db, table);
	return request(ch, q, data, len, ch->gzip ? B_COMPRESS : B_PLAIN, err);
}

int strobe_ch_insert(struct strobe_clickhouse *ch, const char *table, const void *body,
		     size_t len, bool gzipped, struct strobe_error *err)
{
	char q[256];

	if (!valid_name(table))
		return strobe_err(err, -EINVAL, "clickhouse: bad table name");
	snprintf(q, sizeof(q), "INSERT INTO %s.%s FORMAT RowBinary", ch->db, table);
	return request(ch, q, body, len, gzipped ? B_GZIPPED : ch->gzip ? B_COMPRESS : B_PLAIN,
		       err);
}

void strobe_ch_cap_ms(struct strobe_clickhouse *ch, long ms)
{
	ch->cap_ms = ms;
	ch->retry_s = 0;	/* the sender retries itself */
}

void strobe_ch_abort_flag(struct strobe_clickhouse *ch, volatile int *flag)
{
	ch->abort = flag;
}

bool strobe_ch_gzips(const struct strobe_clickhouse *ch)
{
	return ch->gzip;
}

bool strobe_ch_valid_table(const char *table)
{
	return valid_name(table) && strlen(table) < 64;
}

/* ---- the sink ------------------------------------------------------ */

enum tkind { T_UNRESOLVED, T_OTHER, T_SWITCH, T_SYS_ENTER, T_SYS_EXIT };

/* What the sink knows of one event type (by id). */
struct ttype {
	uint8_t kind;
	struct strobe_field a, b;	/* switch: prev_pid, next_pid; exit: ret */
	const char *name, *system;	/* the format's (borrowed) */
	uint32_t name_len, system_len;
};

/* Aggregates of one (wall-clock second, container). */
struct agg {
	uint64_t sec;
	int cidx;		/* container index, -1: free slot */
	uint64_t cpu_ns, syscalls, errors, syscall_ns;
	uint64_t lat[STROBE_CH_LAT_BUCKETS];
};

/* A thread inside a system call: tid -> entry time. */
struct inflight {
	int tid;		/* -1: free slot */
	uint64_t ts;
};

struct strobe_ch_sink {
	struct strobe_formats *fmts;
	struct strobe_model *m;
	struct strobe_format_cache *cache;
	char *fjson;		/* one event's fields JSON */
	size_t fjson_cap;
	char *host;
	size_t host_len;
	int64_t off;		/* wall-clock offset, ns */
	uint64_t batch_rows;
	bool aggregates;
	strobe_ch_send_fn send;
	void *send_arg;

	struct ttype *types;	/* by id */
	int nr_types;

	struct bbuf rows;	/* the events batch */
	uint64_t nrows;
	struct bbuf arows;	/* the container_seconds batch */
	uint64_t nagg;

	struct agg *aggs;	/* open hash, cap a power of two */
	size_t agg_cap, agg_used;
	struct inflight *fl;	/* open hash, cap a power of two */
	size_t fl_cap, fl_used;
	uint64_t *cpu_since;	/* per CPU: last switch time + 1, 0 unknown */
	int nr_cpus;
	uint64_t cur_sec;	/* wall second of the latest event */

	struct strobe_ch_stats st;
	int failed;
	struct strobe_error ferr;
};

static uint64_t wall(const struct strobe_ch_sink *k, uint64_t ts)
{
	int64_t w = (int64_t)ts + k->off;

	return w < 0 ? 0 : (uint64_t)w;
}

/* Event type t's kind and the fields the aggregates read. */
static void resolve_type(struct ttype *t, const struct strobe_format *e)
{
	const char *sys = strobe_format_system(e) ? strobe_format_system(e) : "";

	t->name = strobe_format_name(e) ? strobe_format_name(e) : "";
	t->system = sys;
	t->name_len = (uint32_t)strlen(t->name);
	t->system_len = (uint32_t)strlen(sys);
	t->kind = T_OTHER;
	if (!strcmp(sys, "sched") && !strcmp(t->name, "sched_switch")) {
		if (!strobe_field_resolve(e, "prev_pid", &t->a) &&
		    !strobe_field_resolve(e, "next_pid", &t->b))
			t->kind = T_SWITCH;
	} else if ((!strcmp(sys, "raw_syscalls") && !strcmp(t->name, "sys_enter")) ||
		   (!strcmp(sys, "syscalls") && !strncmp(t->name, "sys_enter_", 10))) {
		t->kind = T_SYS_ENTER;
	} else if ((!strcmp(sys, "raw_syscalls") && !strcmp(t->name, "sys_exit")) ||
		   (!strcmp(sys, "syscalls") && !strncmp(t->name, "sys_exit_", 9))) {
		if (!strobe_field_resolve(e, "ret", &t->a))
			t->kind = T_SYS_EXIT;
	}
}

/* The JSON object of ev's fields as strobe report --json writes it
 * (lib/output/json.c), in k->fjson.  0 or -ENOMEM. */
static int fields_json(struct strobe_ch_sink *k, const struct strobe_event *ev, size_t *n)
{
	size_t len = strobe_json_fields(k->fmts, ev, k->cache, k->fjson, k->fjson_cap);

	if (len >= k->fjson_cap) {	/* rare: a bigger buffer, and again */
		size_t cap = k->fjson_cap;
		char *p;

		while (cap <= len)
			cap *= 2;
		p = realloc(k->fjson, cap);
		if (!p)
			return -ENOMEM;
		k->fjson = p;
		k->fjson_cap = cap;
		len = strobe_json_fields(k->fmts, ev, k->cache, k->fjson, k->fjson_cap);
	}
	*n = len;
	return 0;
}

/* ---- aggregates ---- */

static size_t agg_hash(uint64_t sec, int cidx, size_t cap)
{
	uint64_t h = sec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(unsigned)cidx * 0xc2b2ae3d27d4eb4fULL;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static bool agg_grow(struct strobe_ch_sink *k)
{
	size_t cap = k->agg_cap ? 2 * k->agg_cap : 256, i, j;
	struct agg *a = malloc(cap * sizeof(*a));

	if (!a)
		return false;
	for (i = 0; i < cap; i++)
		a[i].cidx = -1;
	for (i = 0; i < k->agg_cap; i++) {
		if (k->aggs[i].cidx < 0)
			continue;
		for (j = agg_hash(k->aggs[i].sec, k->aggs[i].cidx, cap); a[j].cidx >= 0;
		     j = (j + 1) & (cap - 1))
			;
		a[j] = k->aggs[i];
	}
	free(k->aggs);
	k->aggs = a;
	k->agg_cap = cap;
	return true;
}

static struct agg *agg_get(struct strobe_ch_sink *k, uint64_t sec, int cidx)
{
	size_t i;

	if ((k->agg_used + 1) * 2 > k->agg_cap && !agg_grow(k))
		return NULL;
	for (i = agg_hash(sec, cidx, k->agg_cap); k->aggs[i].cidx >= 0; i = (i + 1) & (k->agg_cap - 1))
		if (k->aggs[i].sec == sec && k->aggs[i].cidx == cidx)
			return &k->aggs[i];
	memset(&k->aggs[i], 0, sizeof(k->aggs[i]));
	k->aggs[i].sec = sec;
	k->aggs[i].cidx = cidx;
	k->agg_used++;
	return &k->aggs[i];
}

static int container_of(struct strobe_ch_sink *k, int tid)
{
	const struct strobe_task *t = k->m ? strobe_model_task(k->m, tid) : NULL;

	return t && t->container ? t->container->index : STROBE_CONTAINER_UNKNOWN;
}

static const char *container_name(const struct strobe_ch_sink *k, int cidx)
{
	const struct strobe_container *c;

	if (cidx == STROBE_CONTAINER_UNKNOWN || !k->m)
		return "";
	c = strobe_model_container(k->m, cidx);
	return c ? c->name : "";
}

/* On-CPU time [from, to) (trace clock) of container cidx, split at
 * wall-clock second boundaries. */
static bool add_cpu(struct strobe_ch_sink *k, int cidx, uint64_t from, uint64_t to)
{
	uint64_t w0 = wall(k, from), w1 = wall(k, to);

	if (w1 <= w0 || w1 - w0 > MAX_INTERVAL)
		return true;
	while (w0 < w1) {
		uint64_t sec = w0 / NSEC, end = (sec + 1) * NSEC;
		struct agg *a = agg_get(k, sec, cidx);

		if (!a)
			return false;
		if (end > w1)
			end = w1;
		a->cpu_ns += end - w0;
		w0 = end;
	}
	return true;
}

static size_t fl_slot(int tid, size_t cap)
{
	return ((size_t)(unsigned)tid * 0x9e3779b1u) & (cap - 1);
}

static bool fl_grow(struct strobe_ch_sink *k)
{
	size_t cap = k->fl_cap ? 2 * k->fl_cap : 256, i, j;
	struct inflight *a = malloc(cap * sizeof(*a));

	if (!a)
		return false;
	for (i = 0; i < cap; i++)
		a[i].tid = -1;
	for (i = 0; i < k->fl_cap; i++) {
		if (k->fl[i].tid < 0)
			continue;
		for (j = fl_slot(k->fl[i].tid, cap); a[j].tid >= 0; j = (j + 1) & (cap - 1))
			;
		a[j] = k->fl[i];
	}
	free(k->fl);
	k->fl = a;
	k->fl_cap = cap;
	return true;
}

static bool fl_put(struct strobe_ch_sink *k, int tid, uint64_t ts)
{
	size_t i;

	if ((k->fl_used + 1) * 2 > k->fl_cap && !fl_grow(k))
		return false;
	for (i = fl_slot(tid, k->fl_cap); k->fl[i].tid >= 0; i = (i + 1) & (k->fl_cap - 1))
		if (k->fl[i].tid == tid) {
			k->fl[i].ts = ts;
			return true;
		}
	k->fl[i].tid = tid;
	k->fl[i].ts = ts;
	k->fl_used++;
	return true;
}

/* Take tid's entry time out of the table; false when there is none. */
static bool fl_take(struct strobe_ch_sink *k, int tid, uint64_t *ts)
{
	size_t i, j, mask = k->fl_cap - 1;

	if (!k->fl_cap)
		return false;
	for (i = fl_slot(tid, k->fl_cap); k->fl[i].tid != tid; i = (i + 1) & mask)
		if (k->fl[i].tid < 0)
			return false;
	*ts = k->fl[i].ts;
	k->fl[i].tid = -1;
	k->fl_used--;
	/* backward-shift deletion: re-place the rest of the cluster */
	for (j = (i + 1) & mask; k->fl[j].tid >= 0; j = (j + 1) & mask) {
		struct inflight e = k->fl[j];
		size_t h;

		k->fl[j].tid = -1;
		for (h = fl_slot(e.tid, k->fl_cap); k->fl[h].tid >= 0; h = (h + 1) & mask)
			;
		k->fl[h] = e;
	}
	return true;
}

static unsigned lat_bucket(uint64_t ns)
{
	unsigned b = 0;

	while (ns > 1 && b < STROBE_CH_LAT_BUCKETS - 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

static bool aggregate(struct strobe_ch_sink *k, const struct ttype *t,
		      const struct strobe_event *ev)
{
	int cpu = ev->cpu;

	switch (t->kind) {
	case T_SWITCH: {
		int prev = (int)strobe_field_int(ev, &t->a);

		if (cpu < 0 || cpu > 65535)
			return true;
		if (cpu >= k->nr_cpus) {
			uint64_t *n = realloc(k->cpu_since, (size_t)(cpu + 1) * sizeof(*n));

			if (!n)
				return false;
			memset(n + k->nr_cpus, 0, (size_t)(cpu + 1 - k->nr_cpus) * sizeof(*n));
			k->cpu_since = n;
			k->nr_cpus = cpu + 1;
		}
		if (k->cpu_since[cpu] && prev != 0 &&
		    !add_cpu(k, container_of(k, prev), k->cpu_since[cpu] - 1, ev->ts))
			return false;
		k->cpu_since[cpu] = ev->ts + 1;
		return true;
	}
	case T_SYS_ENTER:
		return fl_put(k, ev->pid, ev->ts);
	case T_SYS_EXIT: {
		struct agg *a = agg_get(k, wall(k, ev->ts) / NSEC, container_of(k, ev->pid));
		uint64_t since;

		if (!a)
			return false;
		a->syscalls++;
		if (strobe_field_int(ev, &t->a) < 0)
			a->errors++;
		if (fl_take(k, ev->pid, &since) && ev->ts >= since) {
			a->syscall_ns += ev->ts - since;
			a->lat[lat_bucket(ev->ts - since)]++;
		}
		return true;
	}
	default:
		return true;
	}
}

/* Encode the aggregates of seconds before `limit` into the aggregate
 * batch and drop them from the hash. */
static void agg_encode(struct strobe_ch_sink *k, uint64_t limit)
{
	size_t i;
	int j;
	bool kept = false;

	for (i = 0; i < k->agg_cap; i++) {
		struct agg *a = &k->aggs[i];
		const char *cn;

		if (a->cidx < 0)
			continue;
		if (a->sec >= limit) {
			kept = true;
			continue;
		}
		cn = container_name(k, a->cidx);
		bb_str(&k->arows, k->host, k->host_len);
		bb_le(&k->arows, a->sec > UINT32_MAX ? UINT32_MAX : a->sec, 4);
		bb_str(&k->arows, cn, strlen(cn));
		bb_le(&k->arows, a->cpu_ns, 8);
		bb_le(&k->arows, a->syscalls, 8);
		bb_le(&k->arows, a->errors, 8);
		bb_le(&k->arows, a->syscall_ns, 8);
		bb_varint(&k->arows, STROBE_CH_LAT_BUCKETS);
		for (j = 0; j < STROBE_CH_LAT_BUCKETS; j++)
			bb_le(&k->arows, a->lat[j], 8);
		k->nagg++;
		a->cidx = -1;
		k->agg_used--;
	}
	if (kept) {	/* re-place the survivors: the probe chains changed */
		struct agg *a = malloc(k->agg_cap * sizeof(*a));
		size_t mask = k->agg_cap - 1, h;

		if (!a) {
			k->arows.oom = true;
			return;
		}
		for (i = 0; i < k->agg_cap; i++)
			a[i].cidx = -1;
		for (i = 0; i < k->agg_cap; i++) {
			if (k->aggs[i].cidx < 0)
				continue;
			for (h = agg_hash(k->aggs[i].sec, k->aggs[i].cidx, k->agg_cap);
			     a[h].cidx >= 0; h = (h + 1) & mask)
				;
			a[h] = k->aggs[i];
		}
		free(k->aggs);
		k->aggs = a;
	}
}

static int send_batch(struct strobe_ch_sink *k, const char *table, struct bbuf *b,
		      uint64_t *n, uint64_t *sent)
{
	int ret;

	if (!*n)
		return 0;
	if (b->oom)
		return strobe_err(&k->ferr, -ENOMEM, "out of memory");
	ret = k->send(k->send_arg, table, b->p, b->len, *n, &k->ferr);
	if (ret < 0) {
		k->st.rows_failed += *n;
		return ret;
	}
	k->st.batches++;
	k->st.bytes += b->len;
	*sent += *n;
	*n = 0;
	b->len = 0;
	return 0;
}

/* Send the events batch and the aggregates of seconds before limit. */
static int flush(struct strobe_ch_sink *k, uint64_t limit)
{
	int ret = send_batch(k, "events", &k->rows, &k->nrows, &k->st.rows_sent);

	if (ret < 0 || !k->aggregates)
		return ret;
	agg_encode(k, limit);
	return send_batch(k, "container_seconds", &k->arows, &k->nagg, &k->st.agg_rows_sent);
}

/* RowBinary bytes of an events row besides its strings' bytes: the
 * integers (8 + 4 + 2 + 4 + 4) and six string lengths (LEB128). */
#define ROW_FIXED	(22 + 6 * 10)

int strobe_ch_sink_feed(struct strobe_ch_sink *k, const struct strobe_event *ev,
			struct strobe_error *err)
{
	const struct strobe_task *task;
	struct ttype *t = NULL;
	const char *fields = "{}", *cn = "", *comm = "";
	size_t flen = 2, cn_len = 0, comm_len = 0;
	struct bbuf *b = &k->rows;
	uint8_t *p;

	if (k->failed)
		goto fail;
	k->st.events++;
	if (ev->format && ev->type >= 0 && ev->type < k->nr_types) {
		t = &k->types[ev->type];
		if (t->kind == T_UNRESOLVED)
			resolve_type(t, ev->format);
		if (fields_json(k, ev, &flen) < 0)
			goto nomem;
		fields = k->fjson;
	}
	task = k->m ? strobe_model_task(k->m, ev->pid) : NULL;
	if (task) {
		comm = task->comm;
		comm_len = strnlen(task->comm, sizeof(task->comm));
		if (task->container && task->container->index != STROBE_CONTAINER_UNKNOWN) {
			cn = task->container->name;
			cn_len = strlen(cn);
		}
	}
	k->cur_sec = wall(k, ev->ts) / NSEC;
	if (!bb_room(b, ROW_FIXED + k->host_len + comm_len + cn_len + flen +
		     (t ? t->system_len + t->name_len : 0)))
		goto nomem;
	p = b->p + b->len;
	p = put_str(p, k->host, k->host_len);
	p = put_le(p, ev->ts, 8);
	p = put_le(p, k->cur_sec > UINT32_MAX ? UINT32_MAX : k->cur_sec, 4);
	p = put_le(p, (uint64_t)ev->cpu, 2);
	p = put_le(p, (uint64_t)(int64_t)ev->pid, 4);
	p = put_le(p, (uint64_t)(int64_t)(task ? task->tgid : -1), 4);
	p = put_str(p, comm, comm_len);
	p = put_str(p, cn, cn_len);
	p = put_str(p, t ? t->system : "", t ? t->system_len : 0);
	p = put_str(p, t ? t->name : "", t ? t->name_len : 0);
	p = put_str(p, fields, flen);
	b->len = (size_t)(p - b->p);
	k->nrows++;
	if (t && k->aggregates && !aggregate(k, t, ev))
		goto nomem;
	if (k->nrows >= k->batch_rows || b->len >= BATCH_BYTES) {
		k->failed = flush(k, k->cur_sec ? k->cur_sec - 1 : 0);
		if (k->failed)
			goto fail;
	}
	return 0;
nomem:
	k->failed = strobe_err(&k->ferr, -ENOMEM, "out of memory");
fail:
	if (err)
		*err = k->ferr;
	return k->failed;
}

int strobe_ch_sink_flush(struct strobe_ch_sink *k, struct strobe_error *err)
{
	if (!k->failed)
		k->failed = flush(k, k->cur_sec ? k->cur_sec - 1 : 0);
	if (k->failed && err)
		*err = k->ferr;
	return k->failed;
}

int strobe_ch_sink_finish(struct strobe_ch_sink *k, struct strobe_error *err)
{
	if (!k->failed)
		k->failed = flush(k, UINT64_MAX);
	if (k->failed && err)
		*err = k->ferr;
	return k->failed;
}

void strobe_ch_sink_stats(const struct strobe_ch_sink *k, struct strobe_ch_stats *st)
{
	*st = k->st;
}

int strobe_ch_sink_new(struct strobe_formats *fmts, struct strobe_model *m,
		       const struct strobe_ch_sink_opts *opts, strobe_ch_send_fn send,
		       void *send_arg, struct strobe_ch_sink **out, struct strobe_error *err)
{
	struct strobe_ch_sink *k;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return strobe_err(err, -ENOMEM, "out of memory");
	k->fmts = fmts;
	k->m = m;
	k->send = send;
	k->send_arg = send_arg;
	k->host = strdup(opts && opts->host ? opts->host : "");
	k->host_len = k->host ? strlen(k->host) : 0;
	k->off = opts ? opts->wall_offset_ns : 0;
	k->batch_rows = opts && opts->batch_rows ? opts->batch_rows : STROBE_CH_BATCH_ROWS;
	k->aggregates = !(opts && opts->no_aggregates);
	k->cache = strobe_format_cache_new(fmts);	/* NULL: slower, same JSON */
	k->fjson_cap = 4096;
	k->fjson = malloc(k->fjson_cap);
	k->nr_types = strobe_formats_max_id(fmts) + 1;
	k->types = calloc((size_t)(k->nr_types > 0 ? k->nr_types : 1), sizeof(*k->types));
	if (!k->host || !k->types || !k->fjson) {
		strobe_ch_sink_free(k);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	*out = k;
	return 0;
}

int strobe_ch_sink_new_stream(struct strobe_stream *s, struct strobe_model *m,
			      const struct strobe_ch_sink_opts *opts, strobe_ch_send_fn send,
			      void *send_arg, struct strobe_ch_sink **out,
			      struct strobe_error *err)
{
	return strobe_ch_sink_new(strobe_stream_formats(s), m, opts, send, send_arg, out, err);
}

void strobe_ch_sink_free(struct strobe_ch_sink *k)
{
	if (!k)
		return;
	free(k->fjson);
	strobe_format_cache_free(k->cache);
	free(k->types);
	free(k->host);
	bb_free(&k->rows);
	bb_free(&k->arows);
	free(k->aggs);
	free(k->fl);
	free(k->cpu_since);
	free(k);
}

/* ---- whole files ---------------------------------------------------- */

/* The offset that strobe record's clock pairings give: the mean of the
 * start's and the end's (the trace clock may drift from wall-clock time
 * over a long recording; strobe merge interpolates, rows of a ClickHouse
 * table get one offset per file).  -ENOENT without pairings. */
static int pairings_offset(struct strobe_tracefile *tf, int64_t *ns)
{
	static const char *const keys[2] = { "clock_sync_start", "clock_sync_end" };
	struct strobe_clock_sync cs;
	int64_t sum = 0;
	int i, n = 0;

	for (i = 0; i < 2; i++) {
		if (strobe_clock_sync_parse(strobe_tracefile_info(tf, keys[i]), &cs) < 0)
			continue;
		sum += cs.realtime_ns - (int64_t)cs.trace_ns;
		n++;
	}
	if (!n)
		return -ENOENT;
	/* events' ts carry the file's OFFSET option; the pairings do not */
	*ns = sum / n - strobe_tracefile_ts_offset(tf);
	return 0;
}

int strobe_ch_file_wall_offset(struct strobe_tracefile *tf, const char *path, int64_t *ns)
{
	size_t len = 0;
	const char *s;
	const char *p;
	unsigned long long sec, usec;
	struct stat sb;
	char buf[4096];

	if (pairings_offset(tf, ns) == 0)
		return 0;
	s = strobe_tracefile_option(tf, STROBE_TFO_CPUSTAT, &len);
	if (!s || !len || stat(path, &sb) < 0)
		return -ENOENT;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	p = strstr(buf, "now ts:");
	if (!p || sscanf(p + 7, " %llu.%6llu", &sec, &usec) != 2)
		return -ENOENT;
	*ns = (int64_t)sb.st_mtim.tv_sec * (int64_t)NSEC + sb.st_mtim.tv_nsec -
	      (int64_t)(sec * NSEC + usec * 1000) - strobe_tracefile_ts_offset(tf);
	return 0;
}

/* ---- the export as a pipeline consumer -------------------------------- */

/*
 * One sink per source of the pipeline (each with its host column, its
 * wall-clock offset, its formats and task model), all sending through the
 * one client: events of several files go to one table, told apart by
 * their host column, and each file's rows are the rows it would give
 * exported alone.
 */
struct strobe_ch_export {
	struct strobe_clickhouse *ch;
	struct strobe_ch_export_opts o;	/* o.host: our copy */
	struct strobe_ch_sink **sinks;	/* by source index */
	int nr_sinks;
	uint64_t fed, next;		/* events fed; next progress call */
	bool started;
};

int strobe_ch_export_new(struct strobe_clickhouse *ch, const struct strobe_ch_export_opts *opts,
			 struct strobe_ch_export **out, struct strobe_error *err)
{
	struct strobe_ch_export *x;

	*out = NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return strobe_err(err, -ENOMEM, "out of memory");
	x->ch = ch;
	if (opts)
		x->o = *opts;
	x->o.host = NULL;
	if (opts && opts->host && !(x->o.host = strdup(opts->host))) {
		free(x);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	if (!x->o.progress_every)
		x->o.progress_every = 1000000;
	x->next = x->o.progress_every;
	*out = x;
	return 0;
}

void strobe_ch_export_free(struct strobe_ch_export *x)
{
	int i;

	if (!x)
		return;
	for (i = 0; i < x->nr_sinks; i++)
		strobe_ch_sink_free(x->sinks[i]);
	free(x->sinks);
	free((char *)x->o.host);
	free(x);
}

void strobe_ch_export_stats(const struct strobe_ch_export *x, int source,
			    struct strobe_ch_stats *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; x && i < x->nr_sinks; i++) {
		const struct strobe_ch_stats *s;

		if (!x->sinks[i] || (source >= 0 && i != source))
			continue;
		s = &x->sinks[i]->st;
		st->events += s->events;
		st->rows_sent += s->rows_sent;
		st->agg_rows_sent += s->agg_rows_sent;
		st->batches += s->batches;
		st->bytes += s->bytes;
		st->rows_failed += s->rows_failed;
	}
}

/* Start: the schema, then a sink per source. */
static int export_start(const struct strobe_pipeline_source *src, int nr, void *arg,
			struct strobe_error *err)
{
	struct strobe_ch_export *x = arg;
	int i, ret;

	if (x->started)
		return strobe_err(err, -EINVAL, "clickhouse: an export runs once");
	x->started = true;
	x->sinks = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*x->sinks));
	if (!x->sinks)
		return strobe_err(err, -ENOMEM, "out of memory");
	x->nr_sinks = nr;
	ret = strobe_clickhouse_create_schema(x->ch, err);
	if (ret < 0)
		return ret;
	for (i = 0; i < nr; i++) {
		struct strobe_ch_sink_opts so = { .batch_rows = x->o.batch_rows };
		char host[256];

		if (x->o.host)
			so.host = x->o.host;
		else if (src[i].tf)
			so.host = strobe_tracefile_host(src[i].tf, host, sizeof(host));
		else
			so.host = src[i].host;
		if (x->o.have_wall_offset)
			so.wall_offset_ns = x->o.wall_offset_ns;
		else if (!src[i].tf || strobe_ch_file_wall_offset(src[i].tf,
						strobe_tracefile_path(src[i].tf),
						&so.wall_offset_ns) < 0)
			so.wall_offset_ns = 0;
		ret = strobe_ch_sink_new(src[i].formats, src[i].model, &so, strobe_clickhouse_send,
					 x->ch, &x->sinks[i], err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void export_progress(struct strobe_ch_export *x)
{
	struct strobe_ch_stats st;

	x->next += x->o.progress_every;
	strobe_ch_export_stats(x, -1, &st);
	x->o.progress(x->o.progress_arg, &st);
}

static int __attribute__((noinline)) event_progress(struct strobe_ch_export *x,
						    const struct strobe_event *ev, int source,
						    struct strobe_error *err)
{
	int ret = strobe_ch_sink_feed(x->sinks[source], ev, err);

	if (ret < 0)
		return ret;
	if (++x->fed >= x->next)
		export_progress(x);
	return 0;
}

/* Per event: a tail call into the source's sink (progress apart). */
static int export_event(const struct strobe_event *ev, int source, void *arg,
			struct strobe_error *err)
{
	struct strobe_ch_export *x = arg;

	if (__builtin_expect(x->o.progress != NULL, 0))
		return event_progress(x, ev, source, err);
	return strobe_ch_sink_feed(x->sinks[source], ev, err);
}

/* Finish: every sink's last rows and aggregates (a failure stops there). */
static int export_finish(void *arg, struct strobe_error *err)
{
	struct strobe_ch_export *x = arg;
	int i, ret;

	for (i = 0; i < x->nr_sinks; i++) {
		ret = strobe_ch_sink_finish(x->sinks[i], err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void strobe_ch_export_consumer(struct strobe_ch_export *x, struct strobe_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->name = "the ClickHouse export";
	c->flags = STROBE_CONSUMER_MODEL;
	c->start = export_start;
	c->event = export_event;
	c->finish = export_finish;
	c->arg = x;
}

int strobe_clickhouse_export_file(struct strobe_clickhouse *ch, struct strobe_tracefile *tf,
				  const char *path, const struct strobe_ch_export_opts *opts,
				  struct strobe_ch_stats *st, struct strobe_error *err)
{
	struct strobe_ch_export_opts o = { 0 };
	struct strobe_ch_export *x = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_consumer c;
	int ret;

	if (st)
		memset(st, 0, sizeof(*st));
	if (opts)
		o = *opts;
	/* the wall-clock offset of the file at path, as documented */
	if (!o.have_wall_offset && path &&
	    strobe_ch_file_wall_offset(tf, path, &o.wall_offset_ns) == 0)
		o.have_wall_offset = true;
	ret = strobe_ch_export_new(ch, &o, &x, err);
	if (ret < 0)
		return ret;
	strobe_ch_export_consumer(x, &c);
	ret = strobe_pipeline_new(NULL, &p, err);
	if (ret >= 0)
		ret = strobe_pipeline_add_file(p, tf, NULL, err);
	if (ret >= 0)
		ret = strobe_pipeline_add_consumer(p, &c, err);
	if (ret >= 0)
		ret = strobe_pipeline_run(p, err);
	if (st)
		strobe_ch_export_stats(x, -1, st);
	strobe_pipeline_free(p);
	strobe_ch_export_free(x);
	return ret < 0 ? ret : 0;
}
