/*
 * test_sender.c - the one sender (lib/sinks/sender.c) that ClickHouse's
 * sink and the OTLP exporter share, through its vtable: the ops here
 * are a small receiver of this test's own (the sender's contract is
 * with its ops; test_ch_sender.c drives it through a real refused
 * connection, tests/kernel/84-otlp.sh through a real HTTP server).
 * Checked: a server's Retry-After is honoured in place of a long
 * backoff (the batch arrives before the close's deadline, which the
 * backoff alone would pass); every batch arrives exactly once after
 * failures; the spool is versioned (kind in its header; an OTLP spool
 * is refused as a ClickHouse one, a version 1 ClickHouse spool is still
 * replayed); Retry-After values (seconds, HTTP-dates, garbage).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

#include <strobe/strobe.h>

#include "sinks/sender.h"
#include "test.h"

struct recv {
	int calls;		/* attempts */
	int fail_first;		/* the first n attempts fail */
	double retry_after;	/* what a failure says */
	int seen[16];		/* deliveries per batch index */
	uint64_t rows;
};

static int deliver(void *arg, const char *table, const void *body, size_t len, bool gz,
		   uint64_t rows, long cap_ms, double *retry_after_s, struct strobe_error *e)
{
	struct recv *r = arg;
	int i;

	(void)table;
	(void)cap_ms;
	if (r->calls++ < r->fail_first) {
		*retry_after_s = r->retry_after;
		return strobe_err(e, -EAGAIN, "503 Service Unavailable");
	}
	if (gz) {	/* what waited in the spool was compressed */
		uint8_t out[64];
		z_stream zs = { 0 };

		zs.next_in = (Bytef *)(uintptr_t)body;
		zs.avail_in = (uInt)len;
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		if (inflateInit2(&zs, 15 + 16) != Z_OK)
			return strobe_err(e, -ENOMEM, "inflateInit2");
		if (inflate(&zs, Z_FINISH) != Z_STREAM_END || zs.total_out != sizeof(int)) {
			inflateEnd(&zs);
			return strobe_err(e, -EBADMSG, "unexpected gzip body");
		}
		inflateEnd(&zs);
		memcpy(&i, out, sizeof(i));
	} else if (len == sizeof(int)) {
		memcpy(&i, body, sizeof(i));
	} else {
		return strobe_err(e, -EBADMSG, "unexpected body");
	}
	if (i >= 0 && i < 16)
		r->seen[i]++;
	r->rows += rows;
	return 0;
}

static const struct strobe_sender_ops ops = {
	.what = "test",
	.unit = "spans",
	.kind = STROBE_SPOOL_OTLP,
	.deliver = deliver,
};

static char dir[] = "/tmp/strobe-sender.XXXXXX";

static bool have_dir(void)
{
	return !strstr(dir, "XXXXXX") || mkdtemp(dir) != NULL;
}

static void test_retry_after_is_honoured_over_a_long_backoff(void)
{
	struct recv r = { .fail_first = 2, .retry_after = 0.05 };
	/* backoff alone: 100 s before the second attempt, past the close's
	 * 20 s: only Retry-After brings the batch in time */
	struct strobe_sender_opts so = { .backoff_min_s = 100, .backoff_max_s = 100 };
	struct strobe_sender_stats st;
	struct strobe_error err = { 0, "" };
	struct strobe_sender *s = NULL;
	char path[256];
	int i = 7;

	REQUIRE(have_dir());
	snprintf(path, sizeof(path), "%s/ra", dir);
	so.spool_path = path;
	REQUIRE(strobe_sender_new(&ops, &r, &so, &s, &err) == 0);
	CHECK_EQ(strobe_sender_send(s, "spans", &i, sizeof(i), 3, &err), 0);
	CHECK_EQ(strobe_sender_close(s, 20, &st, &err), 0);
	strobe_sender_free(s);
	CHECK_EQ(r.calls, 3);
	CHECK_EQ(r.seen[7], 1);
	CHECK_EQ(st.delivered[0], 3);
	CHECK_EQ(st.pending[0], 0);
	CHECK_EQ(st.failures, 2);
	CHECK_EQ(st.retry_afters, 2);
	CHECK(access(path, F_OK) < 0);	/* nothing left: no spool */
}

static void test_every_batch_arrives_exactly_once_after_failures(void)
{
	struct recv r = { .fail_first = 3, .retry_after = 0.01 };
	struct strobe_sender_opts so = { .mem_max = 1 };	/* the rest via the spool */
	struct strobe_sender_stats st;
	struct strobe_error err = { 0, "" };
	struct strobe_sender *s = NULL;
	char path[256];
	int i;

	REQUIRE(have_dir());
	snprintf(path, sizeof(path), "%s/once", dir);
	so.spool_path = path;
	REQUIRE(strobe_sender_new(&ops, &r, &so, &s, &err) == 0);
	for (i = 0; i < 16; i++)
		CHECK_EQ(strobe_sender_send(s, "spans", &i, sizeof(i), 1, &err), 0);
	CHECK_EQ(strobe_sender_close(s, 30, &st, &err), 0);
	strobe_sender_free(s);
	for (i = 0; i < 16; i++)
		CHECK_EQ(r.seen[i], 1);
	CHECK_EQ(r.rows, 16);
	CHECK_EQ(st.delivered[0], 16);
	CHECK_EQ(st.dropped[0], 0);
}

static int replay_into(void *arg, const char *table, const void *data, size_t len,
		       uint64_t rows, struct strobe_error *err)
{
	double ra = 0;

	return deliver(arg, table, data, len, false, rows, 0, &ra, err);
}

/* A kept spool of kind OTLP: refused as ClickHouse, replayed as OTLP. */
static void test_spool_header_names_version_and_kind(void)
{
	struct recv r = { .fail_first = 1000 };
	struct strobe_sender_opts so = { 0 };
	struct strobe_sender_stats st;
	struct strobe_error err = { 0, "" };
	struct strobe_sender *s = NULL;
	struct recv back = { 0 };
	enum strobe_spool_kind k = 0;
	uint64_t rows[2];
	uint8_t h[16];
	char path[256];
	int fd, i = 3;

	REQUIRE(have_dir());
	snprintf(path, sizeof(path), "%s/kind", dir);
	so.spool_path = path;
	REQUIRE(strobe_sender_new(&ops, &r, &so, &s, &err) == 0);
	CHECK_EQ(strobe_sender_send(s, "spans", &i, sizeof(i), 5, &err), 0);
	CHECK_EQ(strobe_sender_close(s, 0, &st, &err), -ETIMEDOUT);
	strobe_sender_free(s);
	CHECK(strstr(err.msg, "test: 5 spans not delivered") != NULL);
	CHECK(strstr(err.msg, path) != NULL);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	CHECK_EQ(read(fd, h, sizeof(h)), 16);
	close(fd);
	CHECK(!memcmp(h, "strobe-spool\2\0\2\0", 16));
	CHECK_EQ(strobe_spool_kind(path, &k), 0);
	CHECK_EQ(k, STROBE_SPOOL_OTLP);
	CHECK_EQ(strobe_spool_replay(path, STROBE_SPOOL_CLICKHOUSE, NULL, NULL, NULL, rows, &err),
		 -EBADMSG);
	CHECK(strstr(err.msg, "not a strobe ClickHouse spool") != NULL);
	CHECK_EQ(strobe_spool_replay(path, STROBE_SPOOL_OTLP, NULL, replay_into, &back, rows,
				     &err), 0);
	CHECK_EQ(back.seen[3], 1);
	CHECK_EQ(rows[0], 5);
	CHECK(access(path, F_OK) < 0);
}

/* A version 1 spool ("strobe-ch-spool1"), written byte by byte as the
 * sender wrote them before it was shared, is still a ClickHouse spool. */
static void test_version_1_spool_is_still_replayed(void)
{
	uint8_t f[32 + 28 + 6 + 4] = { 0 }, *p;
	struct strobe_error err = { 0, "" };
	struct recv r = { 0 };
	enum strobe_spool_kind k = 0;
	uint64_t rows[2] = { 0, 0 };
	char path[256];
	int fd, i = 9, j;
	uint32_t crc;

	REQUIRE(have_dir());
	snprintf(path, sizeof(path), "%s/v1", dir);
	memcpy(f, "strobe-ch-spool1", 16);
	f[16] = 32;
	p = f + 32;
	p[0] = 0x53, p[1] = 0x53, p[2] = 0x43, p[3] = 0x52;	/* 0x52435353 LE */
	p[5] = 6;
	crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)&i, sizeof(i));
	for (j = 0; j < 4; j++)
		p[8 + j] = (uint8_t)(crc >> (8 * j));
	p[12] = 4;	/* rows */
	p[20] = 4;	/* body length */
	memcpy(p + 28, "events", 6);
	memcpy(p + 34, &i, 4);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	REQUIRE(fd >= 0);
	CHECK_EQ(write(fd, f, sizeof(f)), (long)sizeof(f));
	close(fd);
	CHECK_EQ(strobe_spool_kind(path, &k), 0);
	CHECK_EQ(k, STROBE_SPOOL_CLICKHOUSE);
	CHECK_EQ(strobe_spool_replay(path, STROBE_SPOOL_OTLP, NULL, replay_into, &r, rows, &err),
		 -EBADMSG);
	CHECK_EQ(strobe_spool_replay(path, STROBE_SPOOL_CLICKHOUSE, NULL, replay_into, &r, rows,
				     &err), 0);
	CHECK_EQ(r.seen[9], 1);
	CHECK_EQ(rows[0], 4);
	CHECK(access(path, F_OK) < 0);
}

static void test_retry_after_values(void)
{
	/* Sun, 06 Nov 1994 08:49:37 GMT is 784111777 s after the epoch */
	static const struct {
		const char *v;
		double now, want;
	} t[] = {
		{ "120", 0, 120 },
		{ " 0 ", 0, 0 },
		{ "3\r\n", 0, 3 },
		{ "Sun, 06 Nov 1994 08:49:37 GMT", 784111770, 7 },
		{ "Sun, 06 Nov 1994 08:49:37 GMT", 784111800, 0 },	/* past: now */
		{ "Thu, 01 Jan 1970 00:00:00 GMT", 0, 0 },
		{ "Wed, 29 Feb 2024 12:00:00 GMT", 1709208000 - 60, 60 },
		{ "", 0, -1 },
		{ "-1", 0, -1 },
		{ "1.5", 0, -1 },
		{ "99999999999999999999", 0, -1 },
		{ "Sun, 06 Nov 1994 08:49:37 PST", 0, -1 },
		{ "Sun, 06 Foo 1994 08:49:37 GMT", 0, -1 },
		{ "Sun, 06 Nov 1994 25:49:37 GMT", 0, -1 },
		{ "Sun, 06 Nov 1994 08:49:37 GMT junk", 0, -1 },
		{ "Sunday, 06-Nov-94 08:49:37 GMT", 0, -1 },	/* obsolete forms: not taken */
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double got = strobe_retry_after_parse(t[i].v, strlen(t[i].v), t[i].now);

		if (got != t[i].want)
			fprintf(stderr, "  '%s': %g, want %g\n", t[i].v, got, t[i].want);
		CHECK(got == t[i].want);
	}
}

static void test_backoff_doubles_from_min_to_max(void)
{
	CHECK(strobe_sender_backoff(0, 0.5, 30) == 0.5);
	CHECK(strobe_sender_backoff(0.5, 0.5, 30) == 1);
	CHECK(strobe_sender_backoff(20, 0.5, 30) == 30);
}

static void test_cleanup(void)
{
	if (!strstr(dir, "XXXXXX"))
		CHECK_EQ(rmdir(dir), 0);
}

TESTS(T(test_retry_after_is_honoured_over_a_long_backoff),
      T(test_every_batch_arrives_exactly_once_after_failures),
      T(test_spool_header_names_version_and_kind),
      T(test_version_1_spool_is_still_replayed),
      T(test_retry_after_values),
      T(test_backoff_doubles_from_min_to_max),
      T(test_cleanup));
