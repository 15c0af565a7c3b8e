/*
 * record-sink.c - `strobe record --sink clickhouse://...`: the recording's
 * live stream into ClickHouse while the trace file is written as always.
 *
 * The recorder calls rec_sink_on_event for every event in timestamp
 * order (its task model already updated) on its own thread; the event
 * becomes a row in the library's ClickHouse sink, whose full batches go
 * to a sender (strobe_ch_sender_*) that only queues them: a thread of its
 * own delivers, spools to a bounded file next to the trace when the
 * server is slow or down, and retries with backoff.  So a slow server
 * never holds the recording up; what could not be delivered is counted
 * and named at the end.  rec_sink_on_tick sends the rows of the last
 * second (and the per-second aggregates) about once a second, so rows
 * reach the server while the recording runs.
 *
 * The sink needs the events' format catalogue, which only the stream
 * knows: it is made at the first event (strobe_format_catalogue of its
 * format).  The wall-clock offset for the time column is measured then
 * too: now (CLOCK_REALTIME) less that event's timestamp, off by the
 * stream's delay (at most about a tenth of a second).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include <strobe/strobe.h>
#include <strobe/clickhouse.h>

#include "cli.h"
#include "record-sink.h"

#define CMD "record"

/* Set by SIGINT/SIGTERM during the last delivery attempts: they end at
 * once and the rows left wait in the spool. */
static volatile sig_atomic_t drain_stop;

static void on_drain_signal(int sig)
{
	drain_stop = sig;
}

struct rec_sink {
	struct rec_sink_opts o;
	struct strobe_clickhouse *ch;
	struct strobe_ch_sender *snd;
	struct strobe_ch_sink *k;
	struct strobe_ch_sink_opts ko;
	char host[256];
	char shown[512];	/* the URL without credentials, for messages */
	char http[300], db[128];
	double last_flush;
	uint64_t not_fed;	/* events that never became rows */
	bool dead;		/* the sink failed: later events are not fed */
	struct strobe_error err;
};

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* s[0..n) with %XX decoded, as a new string. */
static char *pct_decode(const char *s, size_t n)
{
	char *o = malloc(n + 1), *p = o;
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval((unsigned char)s[i + 1]) >= 0 && hexval((unsigned char)s[i + 2]) >= 0) {
			*p++ = (char)(hexval((unsigned char)s[i + 1]) * 16 +
				      hexval((unsigned char)s[i + 2]));
			i += 2;
		} else {
			*p++ = s[i];
		}
	}
	*p = '\0';
	return o;
}

struct rec_sink *rec_sink_open(struct rec_sink_opts *o, char *url, const char *output,
			       bool *usage)
{
	struct strobe_clickhouse_opts co = { 0 };
	struct strobe_ch_sender_opts so = { 0 };
	struct rec_sink *s;
	char *rest, *at, *slash, *q, *colon, *user = NULL, *pass = NULL, spool[4096];
	struct utsname un;
	const char *rb;
	bool has_port;
	size_t n;

	*usage = false;
	s = calloc(1, sizeof(*s));
	if (!s) {
		cli_error(CMD, "out of memory");
		return NULL;
	}
	s->o = *o;
	if (strncmp(url, "clickhouse://", 13)) {
		cli_error(CMD, "--sink: want clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE"
			  "[?host=NAME]");
		goto usage_err;
	}
	rest = url + 13;
	slash = strchr(rest, '/');
	at = memchr(rest, '@', slash ? (size_t)(slash - rest) : strlen(rest));
	if (at) {
		colon = memchr(rest, ':', (size_t)(at - rest));
		user = pct_decode(rest, (size_t)((colon ? colon : at) - rest));
		if (colon) {
			pass = pct_decode(colon + 1, (size_t)(at - colon - 1));
			/* the password leaves argv (ps, /proc, the stored command line) */
			memset(colon + 1, 'x', (size_t)(at - colon - 1));
		}
		if (!user || (colon && !pass)) {
			cli_error(CMD, "out of memory");
			goto fail;
		}
		rest = at + 1;
	}
	n = slash ? (size_t)(slash - rest) : strlen(rest);
	if (!n || n >= 256) {
		cli_error(CMD, "--sink: which host? clickhouse://HOST[:PORT]/DATABASE");
		goto usage_err;
	}
	rb = rest[0] == '[' ? memchr(rest, ']', n) : NULL;
	has_port = rest[0] == '[' ? rb && rb + 1 < rest + n && rb[1] == ':'
		   : memchr(rest, ':', n) != NULL;
	snprintf(s->http, sizeof(s->http), "http://%.*s%s", (int)n, rest, has_port ? "" : ":8123");
	q = slash ? strchr(slash, '?') : NULL;
	n = slash ? (q ? (size_t)(q - slash - 1) : strlen(slash + 1)) : 0;
	snprintf(s->db, sizeof(s->db), "%.*s", (int)(n < sizeof(s->db) ? n : 0), slash ? slash + 1 : "");
	if (!s->db[0])
		snprintf(s->db, sizeof(s->db), "strobe");
	if (q) {
		if (strncmp(q + 1, "host=", 5) || !q[6] || strchr(q + 6, '&')) {
			cli_error(CMD, "--sink: the only parameter is ?host=NAME (the host column)");
			goto usage_err;
		}
		snprintf(s->host, sizeof(s->host), "%s", q + 6);
	} else if (uname(&un) == 0) {
		snprintf(s->host, sizeof(s->host), "%s", un.nodename);
	}
	snprintf(s->shown, sizeof(s->shown), "clickhouse://%s/%s", s->http + 7, s->db);
	co.url = s->http;
	co.database = s->db;
	co.user = user;
	co.password = pass;
	co.timeout_s = 30;
	if (strobe_clickhouse_new(&co, &s->ch, &s->err) < 0) {
		cli_error(CMD, "--sink: %s", s->err.msg);
		if (s->err.code == -EINVAL)
			goto usage_err;
		goto fail;
	}
	if (!o->spool)
		snprintf(spool, sizeof(spool), "%s.ch-spool", output ? output : "trace.dat");
	so.spool_path = o->spool ? o->spool : spool;
	so.spool_max = o->spool_max;
	so.stop = &drain_stop;
	if (strobe_ch_sender_new(s->ch, &so, &s->snd, &s->err) < 0) {
		cli_error(CMD, "--sink: %s", s->err.msg);
		goto fail;
	}
	s->ko.host = s->host;
	if (pass)
		explicit_bzero(pass, strlen(pass));
	free(pass);
	free(user);
	return s;
usage_err:
	*usage = true;
fail:
	if (pass)
		explicit_bzero(pass, strlen(pass));
	free(pass);
	free(user);
	strobe_clickhouse_free(s->ch);
	free(s);
	return NULL;
}

int rec_sink_on_event(const struct strobe_event *ev, struct strobe_model *m, void *arg)
{
	struct rec_sink *s = arg;

	if (s->dead) {
		s->not_fed++;
		return 0;
	}
	if (!s->k) {
		struct strobe_formats *fmts = ev->format ? strobe_format_catalogue(ev->format) : NULL;
		struct timespec now;

		if (!fmts) {	/* an event id without a format: no catalogue yet */
			s->not_fed++;
			return 0;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		s->ko.wall_offset_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec -
				       (int64_t)ev->ts;
		if (strobe_ch_sink_new(fmts, m, &s->ko, strobe_ch_sender_send, s->snd, &s->k,
				       &s->err) < 0) {
			s->dead = true;
			s->not_fed++;
			return 0;
		}
		s->last_flush = mono();
	}
	/* a failing sink (out of memory) must not stop the recording: the
	 * file is complete, and the end says how many rows were not sent */
	if (strobe_ch_sink_feed(s->k, ev, &s->err) < 0)
		s->dead = true;
	return 0;
}

int rec_sink_on_tick(bool final, void *arg)
{
	struct rec_sink *s = arg;
	double now;

	if (!s->k || s->dead)
		return 0;
	if (final) {
		if (strobe_ch_sink_finish(s->k, &s->err) < 0)
			s->dead = true;
		return 0;
	}
	now = mono();
	if (now - s->last_flush >= 1.0) {
		s->last_flush = now;
		if (strobe_ch_sink_flush(s->k, &s->err) < 0)
			s->dead = true;
	}
	return 0;
}

int rec_sink_close(struct rec_sink *s, uint64_t stream_missed, bool quiet)
{
	struct strobe_ch_sender_stats st;
	struct strobe_ch_stats ks = { 0 };
	struct strobe_error err = { 0, "" };
	struct sigaction sa, old[2];
	double timeout = s->o.timeout_s < 0 ? 30 : s->o.timeout_s;
	uint64_t not_sent;
	int ret, status = 0;

	if (s->k && !s->dead && strobe_ch_sink_finish(s->k, &s->err) < 0)
		s->dead = true;
	if (s->k)
		strobe_ch_sink_stats(s->k, &ks);
	/* the last attempts; a Ctrl-C (SIGTERM) ends them, keeping the spool */
	drain_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_drain_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	strobe_ch_sender_stats(s->snd, &st);
	if (timeout > 0 && st.rows_pending + st.agg_rows_pending && (st.failures || st.spool_bytes))
		fprintf(stderr, "strobe record: sink %s: delivering the last %" PRIu64 " rows (for up "
			"to %g s; Ctrl-C keeps them in the spool)\n", s->shown,
			st.rows_pending + st.agg_rows_pending, timeout);
	ret = strobe_ch_sender_close(s->snd, timeout, &st, &err);
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	/* events fed to the sink but never handed to the sender (it failed) */
	not_sent = s->not_fed + (ks.events > ks.rows_sent ? ks.events - ks.rows_sent : 0);
	if (!quiet || ret < 0 || not_sent || stream_missed)
		fprintf(stderr, "strobe record: sink %s: %" PRIu64 " events and %" PRIu64
			" container-second rows delivered, %" PRIu64 " undelivered, %" PRIu64
			" dropped, %" PRIu64 " not sent; %" PRIu64 " events missed by the live "
			"stream; %" PRIu64 " failed attempts, %" PRIu64 " rows through the spool\n",
			s->shown, st.rows_delivered, st.agg_rows_delivered,
			st.rows_pending + st.agg_rows_pending, st.rows_dropped + st.agg_rows_dropped,
			not_sent, stream_missed, st.failures, st.rows_spooled + st.agg_rows_spooled);
	if (st.rows_pending + st.agg_rows_pending) {
		cli_error(CMD, "sink %s: %" PRIu64 " events and %" PRIu64 " container-second rows "
			  "were not delivered (%s); they are kept in '%s': deliver them with "
			  "strobe export --format clickhouse --url %s --database %s --spool '%s'",
			  s->shown, st.rows_pending, st.agg_rows_pending,
			  st.last_error[0] ? st.last_error : "no attempt in time", st.spool_path,
			  s->http, s->db, st.spool_path);
		status = 1;
	}
	if (st.rows_dropped + st.agg_rows_dropped) {
		cli_error(CMD, "sink %s: %" PRIu64 " events and %" PRIu64 " container-second rows "
			  "(%" PRIu64 " bytes) were dropped: the spool (at most %" PRIu64 " bytes, "
			  "--sink-spool-max) was full or could not be written%s%s",
			  s->shown, st.rows_dropped, st.agg_rows_dropped, st.bytes_dropped,
			  st.spool_max, st.spool_error[0] ? ": " : "", st.spool_error);
		status = 1;
	}
	if (not_sent) {
		cli_error(CMD, "sink %s: %" PRIu64 " events were not sent: %s", s->shown, not_sent,
			  s->err.msg[0] ? s->err.msg : "they came before any event with a format");
		status = 1;
	}
	if (stream_missed)
		status = 1;
	strobe_ch_sink_free(s->k);
	strobe_ch_sender_free(s->snd);
	strobe_clickhouse_free(s->ch);
	free(s);
	return status;
}
