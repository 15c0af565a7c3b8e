/*
 * test_stream.c - merging synthetic per-CPU page feeds, and the field
 * accessors on formats parsed by libtraceevent.
 *
 * Feeds hand out pages built in the test (array feeds over heap blocks of
 * exactly page-size bytes, so ASan catches any over-read).  Every event's
 * payload carries the standard common header: common_type u16 at 0,
 * common_pid s32 at 4.
 */
#include <errno.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include "formats.h"
#include "test.h"
#include "formats_of.h"

#define PS 256		/* small pages: several per feed */
#define MAX_PAGES 4096

/* ---- building pages ---------------------------------------------------- */

struct page_b {
	uint8_t *buf;
	uint32_t pos;		/* write offset from the page start */
	uint64_t ts;		/* time of the last event written */
	int nr_events;
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void page_start(struct page_b *b, uint64_t ts)
{
	b->buf = calloc(1, PS);
	b->pos = 16;
	b->ts = ts;
	b->nr_events = 0;
	put64(b->buf, ts);
}

static int page_room(const struct page_b *b, uint32_t payload)
{
	return b->pos + 8 + payload <= PS;
}

/* Append an event at absolute time ts (>= the page's time) with common
 * type and pid and `extra` more payload bytes. */
static void page_event(struct page_b *b, uint64_t ts, uint16_t type, int32_t pid,
		       uint32_t extra)
{
	uint64_t delta = ts - b->ts;
	uint32_t words = (8 + extra + 3) / 4;

	if (delta >= (1U << 27)) {
		put32(b->buf + b->pos, 30 | (uint32_t)(delta & ((1U << 27) - 1)) << 5);
		put32(b->buf + b->pos + 4, (uint32_t)(delta >> 27));
		b->pos += 8;
		delta = 0;
	}
	put32(b->buf + b->pos, words | (uint32_t)delta << 5);
	memcpy(b->buf + b->pos + 4, &type, 2);
	memcpy(b->buf + b->pos + 8, &pid, 4);
	b->pos += 4 + words * 4;
	b->ts = ts;
	b->nr_events++;
}

/* Finish: write the commit (with lost-event flags / count) and return it. */
static uint8_t *page_end(struct page_b *b, int64_t missed)
{
	uint64_t commit = b->pos - 16;

	if (missed < 0) {
		commit |= 1ULL << 31;
	} else if (missed > 0) {
		commit |= 3ULL << 30;
		put64(b->buf + b->pos, (uint64_t)missed);
	}
	put64(b->buf + 8, commit);
	return b->buf;
}

/* ---- an array feed -------------------------------------------------- */

struct afeed {
	uint8_t *pages[64];
	int n, next;
	uint64_t base;		/* offset of page 0 */
	int fail_at;		/* next_page fails (-EIO) at this page, or -1 */
	int *closed;		/* incremented on close */
	/* live: pages [0, avail) are there, the next ones -EAGAIN until the
	 * test raises avail; -1 = a file feed (all there, then the end) */
	int avail;
	uint64_t idle;		/* what idle_until returns */
};

static int afeed_next(void *ctx, const uint8_t **page, uint64_t *offset,
		      struct strobe_error *err)
{
	struct afeed *a = ctx;

	if (a->next == a->fail_at) {
		a->next++;
		if (err) {
			err->code = -EIO;
			snprintf(err->msg, sizeof(err->msg), "read error at page %d",
				 a->fail_at);
		}
		return -EIO;
	}
	if (a->avail >= 0 && a->next >= a->avail)
		return -EAGAIN;
	if (a->next >= a->n)
		return 0;
	*offset = a->base + (uint64_t)a->next * PS;
	*page = a->pages[a->next++];
	return 1;
}

static void afeed_close(void *ctx)
{
	struct afeed *a = ctx;
	int i;

	for (i = 0; i < a->n; i++)
		free(a->pages[i]);
	if (a->closed)
		(*a->closed)++;
	free(a);
}

static struct afeed *afeed_new(void)
{
	struct afeed *a = calloc(1, sizeof(*a));

	a->fail_at = -1;
	a->avail = -1;
	return a;
}

/* A page holding events at the given times (type = time % 1000, pid =
 * pid_base + i). */
static void afeed_page(struct afeed *a, const uint64_t *ts, int n, int pid_base,
		       int64_t missed)
{
	struct page_b b;
	int i;

	page_start(&b, n ? ts[0] - 1 : 0);
	for (i = 0; i < n; i++)
		page_event(&b, ts[i], (uint16_t)(ts[i] % 1000), pid_base + i, 0);
	a->pages[a->n++] = page_end(&b, missed);
}

static struct strobe_page_feed feed_of(struct afeed *a, int cpu, int buffer)
{
	struct strobe_page_feed f = {
		.next_page = afeed_next, .close = afeed_close, .ctx = a,
		.cpu = cpu, .buffer = buffer,
	};
	return f;
}

static struct strobe_stream *open_stream(struct strobe_page_feed *f, int n,
					 struct tep_handle *tep, int64_t off)
{
	struct strobe_stream *s = NULL;
	struct strobe_error err = { 0 };

	if (strobe_stream_open_feeds(f, n, PS, 8, formats_of(tep), off, &s, &err) < 0) {
		fprintf(stderr, "  open: %s\n", err.msg);
		return NULL;
	}
	return s;
}

static uint64_t afeed_idle(void *ctx)
{
	return ((struct afeed *)ctx)->idle;
}

/* ---- merging ------------------------------------------------------------ */

static void test_stream_merges_three_cpus_by_time_ties_in_feed_order(void)
{
	static const uint64_t f0p0[] = { 10, 20 }, f0p1[] = { 30 };
	static const uint64_t f1p0[] = { 10, 15, 30 };
	static const uint64_t f2p0[] = { 5 }, f2p1[] = { 20, 40 };
	static const struct { uint64_t ts; int cpu; int pid; } want[] = {
		{ 5, 7, 200 }, { 10, 3, 0 }, { 10, 1, 100 }, { 15, 1, 101 },
		{ 20, 3, 1 }, { 20, 7, 300 }, { 30, 3, 10 }, { 30, 1, 102 },
		{ 40, 7, 301 },
	};
	struct afeed *a0 = afeed_new(), *a1 = afeed_new(), *a2 = afeed_new();
	struct strobe_page_feed feeds[3];
	struct strobe_error err = { 0 };
	struct strobe_stream_stats st;
	struct strobe_stream *s;
	struct strobe_event ev;
	int closed = 0;
	size_t i;

	afeed_page(a0, f0p0, 2, 0, 0);
	afeed_page(a0, f0p1, 1, 10, 0);
	afeed_page(a1, f1p0, 3, 100, 0);
	afeed_page(a2, f2p0, 1, 200, 0);
	afeed_page(a2, f2p1, 2, 300, 0);
	a2->base = 1 << 20;
	a0->closed = a1->closed = a2->closed = &closed;
	feeds[0] = feed_of(a0, 3, 0);
	feeds[1] = feed_of(a1, 1, 0);
	feeds[2] = feed_of(a2, 7, 2);
	s = open_stream(feeds, 3, NULL, 0);
	REQUIRE(s);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
		CHECK_EQ(ev.ts, want[i].ts);
		CHECK_EQ(ev.cpu, want[i].cpu);
		CHECK_EQ(ev.pid, want[i].pid);
		CHECK_EQ(ev.type, want[i].ts);
		CHECK_EQ(ev.buffer, want[i].cpu == 7 ? 2 : 0);
		CHECK_EQ(ev.size, 8);
		CHECK_EQ(ev.missed, 0);
		CHECK(ev.format == NULL);
	}
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
	strobe_stream_stats(s, &st);
	CHECK_EQ(st.events, 9);
	CHECK_EQ(st.missed, 0);
	CHECK_EQ(st.missed_unknown, 0);
	strobe_stream_close(s);
	CHECK_EQ(closed, 3);
}

static void test_stream_file_offset_points_at_record(void)
{
	static const uint64_t t[] = { 100, 200 };
	struct afeed *a = afeed_new();
	struct strobe_page_feed f;
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;

	afeed_page(a, t, 2, 0, 0);
	afeed_page(a, t, 1, 0, 0);
	a->base = 4096;
	f = feed_of(a, 0, 0);
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK_EQ(ev.file_offset, 4096 + 16);
	CHECK(ev.data == a->pages[0] + 16 + 4);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK_EQ(ev.file_offset, 4096 + 16 + 12);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK_EQ(ev.file_offset, 4096 + PS + 16);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
	strobe_stream_close(s);
}

static void test_stream_missed_reported_on_first_event_of_page(void)
{
	static const uint64_t p0[] = { 1, 2 }, p1[] = { 3, 4 }, p3[] = { 5 };
	static const uint64_t p4[] = { 6, 7 };
	static const int64_t want[] = { 0, 0, 5, 0, -1, 0, 0 };
	struct afeed *a = afeed_new();
	struct strobe_page_feed f;
	struct strobe_error err = { 0 };
	struct strobe_stream_stats st;
	struct strobe_stream *s;
	struct strobe_event ev;
	size_t i;

	afeed_page(a, p0, 2, 0, 0);
	afeed_page(a, p1, 2, 0, 5);
	afeed_page(a, NULL, 0, 0, 3);	/* empty page with a lost count ... */
	afeed_page(a, p3, 1, 0, -1);	/* ... merged into this page's mark */
	afeed_page(a, p4, 2, 0, 0);
	f = feed_of(a, 0, 0);
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
		CHECK_EQ(ev.ts, i + 1);
		CHECK_EQ(ev.missed, want[i]);
	}
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
	strobe_stream_stats(s, &st);
	CHECK_EQ(st.events, 7);
	CHECK_EQ(st.missed, 8);
	CHECK_EQ(st.missed_unknown, 1);
	strobe_stream_close(s);
}

static void test_stream_ts_offset_added(void)
{
	static const uint64_t t[] = { 1000, 2000 };
	static const int64_t offs[] = { 500, -700 };
	size_t k;

	for (k = 0; k < 2; k++) {
		struct afeed *a = afeed_new(), *b = afeed_new();
		struct strobe_page_feed f[2];
		struct strobe_error err = { 0 };
		struct strobe_stream *s;
		struct strobe_event ev;

		afeed_page(a, t, 2, 0, 0);
		afeed_page(b, t + 1, 1, 0, 0);
		f[0] = feed_of(a, 0, 0);
		f[1] = feed_of(b, 1, 0);
		s = open_stream(f, 2, NULL, offs[k]);
		REQUIRE(s);
		REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
		CHECK_EQ(ev.ts, 1000 + offs[k]);
		REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
		CHECK_EQ(ev.ts, 2000 + offs[k]);
		CHECK_EQ(ev.cpu, 0);
		REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
		CHECK_EQ(ev.ts, 2000 + offs[k]);
		CHECK_EQ(ev.cpu, 1);
		CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
		strobe_stream_close(s);
	}
}

static void test_stream_large_deltas_use_time_extend(void)
{
	struct afeed *a = afeed_new();
	struct strobe_page_feed f;
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;
	uint64_t t[3] = { 1000, 1000 + (1ULL << 40) + 3, 0 };

	t[2] = t[1] + (1U << 27);
	afeed_page(a, t, 3, 0, 0);
	f = feed_of(a, 0, 0);
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK(ev.ts == t[0]);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK(ev.ts == t[1]);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK(ev.ts == t[2]);
	strobe_stream_close(s);
}

/* ---- errors ------------------------------------------------------------- */

static void test_stream_bad_page_reported_then_skipped(void)
{
	static const uint64_t a_p0[] = { 10, 20 }, a_p2[] = { 50, 60 };
	static const uint64_t b_p0[] = { 15, 40, 70 };
	struct afeed *a = afeed_new(), *b = afeed_new();
	struct strobe_page_feed f[2];
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;
	uint64_t got[16];
	int n = 0, errors = 0, r, guard = 0;
	struct page_b pb;

	afeed_page(a, a_p0, 2, 0, 0);
	/* page 1: one good event then a record running past the commit */
	page_start(&pb, 29);
	page_event(&pb, 30, 30, 0, 0);
	put32(pb.buf + pb.pos, 5 | 1 << 5);	/* 20-byte payload ... */
	pb.pos += 8;				/* ... but 4 committed */
	a->pages[a->n++] = page_end(&pb, 0);
	afeed_page(a, a_p2, 2, 0, 0);
	a->base = 8192;
	afeed_page(b, b_p0, 3, 0, 0);
	f[0] = feed_of(a, 2, 0);
	f[1] = feed_of(b, 3, 0);
	s = open_stream(f, 2, NULL, 0);
	REQUIRE(s);
	while ((r = strobe_stream_next(s, &ev, &err)) != 0 && guard++ < 100) {
		if (r < 0) {
			errors++;
			CHECK_EQ(r, -EINVAL);
			CHECK_EQ(err.code, -EINVAL);
			CHECK(strstr(err.msg, "cpu 2: bad ring-buffer page at offset 8448: ") == err.msg);
			CHECK(strstr(err.msg, "past the commit") != NULL);
			continue;
		}
		if (n < 16)
			got[n++] = ev.ts;
	}
	CHECK_EQ(errors, 1);
	REQUIRE(n == 8);
	CHECK_EQ(got[0], 10);
	CHECK_EQ(got[1], 15);
	CHECK_EQ(got[2], 20);
	CHECK_EQ(got[3], 30);
	CHECK_EQ(got[4], 40);
	CHECK_EQ(got[5], 50);
	CHECK_EQ(got[6], 60);
	CHECK_EQ(got[7], 70);
	strobe_stream_close(s);
}

static void test_stream_bad_first_page_zeroed_page_and_bad_header_skipped(void)
{
	static const uint64_t t[] = { 5, 6 };
	struct afeed *a = afeed_new();
	struct strobe_page_feed f;
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;
	struct page_b pb;

	page_start(&pb, 0);
	page_event(&pb, 1, 1, 0, 0);
	a->pages[a->n++] = page_end(&pb, 0);
	put64(a->pages[0] + 8, PS);		/* commit > page data */
	page_start(&pb, 4);			/* an empty page: skipped */
	a->pages[a->n++] = page_end(&pb, 0);
	afeed_page(a, t, 2, 0, 0);
	f = feed_of(a, 4, 0);
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	CHECK_EQ(strobe_stream_next(s, &ev, NULL), -EINVAL);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 1);
	CHECK_EQ(ev.ts, 5);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 1);
	CHECK_EQ(ev.ts, 6);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
	strobe_stream_close(s);

	/* A page of zeros (no timestamp: the kernel stamps every page) is
	 * damage, refused like a bad header; the next page is read. */
	a = afeed_new();
	afeed_page(a, t, 1, 0, 0);
	page_start(&pb, 0);
	a->pages[a->n++] = page_end(&pb, 0);
	afeed_page(a, t + 1, 1, 0, 0);
	f = feed_of(a, 2, 0);
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 1);
	CHECK_EQ(ev.ts, 5);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), -EINVAL);
	CHECK(strstr(err.msg, "cpu 2: bad ring-buffer page at offset") == err.msg);
	CHECK(strstr(err.msg, ": the page is all zeros"));
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 1);
	CHECK_EQ(ev.ts, 6);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
	strobe_stream_close(s);

	/* Error message for a bad page header names the CPU and offset. */
	a = afeed_new();
	page_start(&pb, 0);
	a->pages[a->n++] = page_end(&pb, 0);
	put64(a->pages[0] + 8, 1000);
	f = feed_of(a, 4, 1);
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), -EINVAL);
	CHECK(strstr(err.msg, "buffer 1 cpu 4: bad ring-buffer page at offset 0: commit 1000") == err.msg);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 0);
	strobe_stream_close(s);
}

static void test_stream_feed_error_ends_that_feed_only(void)
{
	static const uint64_t t[] = { 1, 3 }, u[] = { 2, 4 }, v[] = { 9 };
	struct afeed *a = afeed_new(), *b = afeed_new();
	struct strobe_page_feed f[2];
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;
	int n = 0, errors = 0, r, guard = 0;

	afeed_page(a, t, 2, 0, 0);
	afeed_page(a, v, 1, 0, 0);
	a->fail_at = 1;
	afeed_page(b, u, 2, 0, 0);
	f[0] = feed_of(a, 0, 0);
	f[1] = feed_of(b, 1, 0);
	s = open_stream(f, 2, NULL, 0);
	REQUIRE(s);
	while ((r = strobe_stream_next(s, &ev, &err)) != 0 && guard++ < 100) {
		if (r < 0) {
			errors++;
			CHECK_EQ(r, -EIO);
			CHECK_STR(err.msg, "cpu 0: read error at page 1");
		} else {
			n++;
		}
	}
	CHECK_EQ(errors, 1);
	CHECK_EQ(n, 4);
	strobe_stream_close(s);
}

static void test_stream_open_rejects_bad_arguments_and_closes_feeds(void)
{
	struct afeed *a = afeed_new();
	struct strobe_page_feed f = feed_of(a, 0, 0);
	struct strobe_error err = { 0 };
	struct strobe_stream *s = (void *)1;
	int closed = 0;

	a->closed = &closed;
	CHECK_EQ(strobe_stream_open_feeds(&f, 1, PS, 6, NULL, 0, &s, &err), -EINVAL);
	CHECK(s == NULL);
	CHECK(strstr(err.msg, "commit size") != NULL);
	CHECK_EQ(closed, 1);
	CHECK_EQ(strobe_stream_open_feeds(NULL, 0, 16, 8, NULL, 0, &s, &err), -EINVAL);
	CHECK_EQ(strobe_stream_open_feeds(NULL, 0, PS, 8, NULL, 0, &s, &err), 0);
	REQUIRE(s);
	CHECK_EQ(strobe_stream_next(s, &(struct strobe_event){ 0 }, &err), 0);
	strobe_stream_close(s);
	strobe_stream_close(NULL);
}

/* ---- formats and fields ------------------------------------------------- */

static const char sched_switch_fmt[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	FMT_COMMON
	FMT_SWITCH_FIELDS
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", "
	"REC->prev_comm, REC->prev_pid, REC->next_comm, REC->next_pid\n";

static const char exec_fmt[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	"format:\n"
	FMT_COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc char[] relname;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:short delta;\toffset:20;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned char flag;\toffset:22;\tsize:1;\tsigned:0;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d\", __get_str(filename), REC->pid\n";

static struct tep_handle *test_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	if (tep_parse_event(tep, sched_switch_fmt, sizeof(sched_switch_fmt) - 1, "sched") ||
	    tep_parse_event(tep, exec_fmt, sizeof(exec_fmt) - 1, "sched")) {
		free_tep(tep);
		return NULL;
	}
	return tep;
}

/* A one-event feed holding `payload` (its own common header included). */
static struct afeed *payload_feed(const void *payload, uint32_t size, uint64_t ts)
{
	struct afeed *a = afeed_new();
	struct page_b b;
	uint32_t words = (size + 3) / 4;

	page_start(&b, ts);
	if (words <= 28) {
		put32(b.buf + b.pos, words);
		memcpy(b.buf + b.pos + 4, payload, size);
		b.pos += 4 + words * 4;
	} else {
		put32(b.buf + b.pos, 0);
		put32(b.buf + b.pos + 4, size + 4);
		memcpy(b.buf + b.pos + 8, payload, size);
		b.pos += 8 + words * 4;
	}
	a->pages[a->n++] = page_end(&b, 0);
	return a;
}

static void test_stream_format_lookup_by_type(void)
{
	struct tep_handle *tep = test_tep();
	static const uint64_t t[] = { 372, 1372, 365, 2372 };
	struct afeed *a = afeed_new();
	struct strobe_page_feed f;
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;

	REQUIRE(tep);
	/* types are ts % 1000: 372, 372, 365, 372 */
	afeed_page(a, t, 4, 0, 0);
	f = feed_of(a, 0, 0);
	s = open_stream(&f, 1, tep, 0);
	REQUIRE(s);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	REQUIRE(ev.format);
	CHECK_STR(strobe_format_name(ev.format), "sched_switch");
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK(ev.format && strobe_format_id(ev.format) == 372);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	REQUIRE(ev.format);
	CHECK_STR(strobe_format_name(ev.format), "sched_process_exec");
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK_EQ(ev.type, 372);
	strobe_stream_close(s);

	/* Unknown ids give a NULL format, and so does no tep at all. */
	a = afeed_new();
	afeed_page(a, (const uint64_t[]){ 999 }, 1, 0, 0);
	f = feed_of(a, 0, 0);
	s = open_stream(&f, 1, tep, 0);
	REQUIRE(s);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK_EQ(ev.type, 999);
	CHECK(ev.format == NULL);
	strobe_stream_close(s);
	free_tep(tep);
}

static void test_fields_fixed_ints_arrays_and_signs(void)
{
	struct tep_handle *tep = test_tep();
	uint8_t p[64] = { 0 };
	uint16_t type = 372;
	int32_t pid = 4242, prev_pid = -5, next_pid = 77, prio = 120;
	int64_t state = -2;
	struct strobe_field f_prev_comm, f_prev_pid, f_state, f_next_pid, f_prio,
		f_cpid, f_missing;
	struct strobe_page_feed feed;
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev, shortev;
	const char *str;
	uint32_t len;

	REQUIRE(tep);
	memcpy(p, &type, 2);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, "bash", 5);
	memcpy(p + 24, &prev_pid, 4);
	memcpy(p + 28, &prio, 4);
	memcpy(p + 32, &state, 8);
	memcpy(p + 40, "kworker/0:1", 12);
	memcpy(p + 56, &next_pid, 4);
	feed = feed_of(payload_feed(p, 64, 1), 0, 0);
	s = open_stream(&feed, 1, tep, 0);
	REQUIRE(s);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	REQUIRE(ev.format);
	CHECK_EQ(ev.pid, 4242);
	CHECK_EQ(strobe_field_resolve(ev.format, "prev_comm", &f_prev_comm), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "prev_pid", &f_prev_pid), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "prev_state", &f_state), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "next_pid", &f_next_pid), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "prev_prio", &f_prio), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "common_pid", &f_cpid), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "nope", &f_missing), -ENOENT);
	CHECK_EQ(f_missing.valid, 0);
	CHECK_EQ(strobe_field_resolve(NULL, "prev_pid", &f_missing), -ENOENT);
	CHECK_EQ(f_prev_pid.offset, 24);
	CHECK_EQ(f_prev_pid.size, 4);
	CHECK_EQ(f_prev_pid.is_signed, 1);
	CHECK_EQ(f_prev_comm.is_dynamic, 0);

	CHECK_EQ(strobe_field_int(&ev, &f_prev_pid), -5);
	CHECK(strobe_field_uint(&ev, &f_prev_pid) == 0xfffffffbULL);
	CHECK_EQ(strobe_field_int(&ev, &f_next_pid), 77);
	CHECK_EQ(strobe_field_int(&ev, &f_prio), 120);
	CHECK_EQ(strobe_field_int(&ev, &f_state), -2);
	CHECK_EQ(strobe_field_int(&ev, &f_cpid), 4242);
	CHECK_EQ(strobe_field_int(&ev, &f_missing), 0);
	CHECK_EQ(strobe_field_int(&ev, &f_prev_comm), 0);	/* 16 bytes: no int */
	str = strobe_field_str(&ev, &f_prev_comm, &len);
	REQUIRE(str);
	CHECK_EQ(len, 16);
	CHECK_STR(str, "bash");
	CHECK_EQ(strnlen(str, len), 4);
	CHECK(strobe_field_str(&ev, &f_missing, &len) == NULL);
	CHECK_EQ(len, 0);

	/* A record too short for a field yields 0 / NULL, never a read past. */
	shortev = ev;
	shortev.size = 26;
	CHECK_EQ(strobe_field_int(&shortev, &f_prev_pid), 0);
	CHECK_EQ(strobe_field_int(&shortev, &f_cpid), 4242);
	CHECK(strobe_field_str(&shortev, &f_prev_comm, NULL) != NULL);
	shortev.size = 20;
	CHECK(strobe_field_str(&shortev, &f_prev_comm, NULL) == NULL);
	strobe_stream_close(s);
	free_tep(tep);
}

static void test_fields_data_loc_and_rel_loc_strings(void)
{
	struct tep_handle *tep = test_tep();
	uint8_t p[64] = { 0 };
	uint16_t type = 365;
	int32_t pid = 9;
	int16_t delta = -300;
	uint32_t loc;
	struct strobe_field f_file, f_rel, f_pid, f_delta, f_flag;
	struct strobe_page_feed feed;
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev, bad;
	const char *str;
	uint32_t len;

	REQUIRE(tep);
	memcpy(p, &type, 2);
	memcpy(p + 4, &pid, 4);
	loc = 24 | 10U << 16;		/* "/bin/true" + NUL at 24 */
	memcpy(p + 8, &loc, 4);
	memcpy(p + 12, &pid, 4);
	loc = (36 - 20) | 4U << 16;	/* "abc" + NUL at 36, relative to 20 */
	memcpy(p + 16, &loc, 4);
	memcpy(p + 20, &delta, 2);
	p[22] = 0xfe;
	memcpy(p + 24, "/bin/true", 10);
	memcpy(p + 36, "abc", 4);
	feed = feed_of(payload_feed(p, 40, 1), 0, 0);
	s = open_stream(&feed, 1, tep, 0);
	REQUIRE(s);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	REQUIRE(ev.format);
	CHECK_EQ(strobe_field_resolve(ev.format, "filename", &f_file), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "relname", &f_rel), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "pid", &f_pid), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "delta", &f_delta), 0);
	CHECK_EQ(strobe_field_resolve(ev.format, "flag", &f_flag), 0);
	CHECK_EQ(f_file.is_dynamic, 1);
	CHECK_EQ(f_file.is_relative, 0);
	CHECK_EQ(f_file.size, 4);
	CHECK_EQ(f_rel.is_dynamic, 1);
	CHECK_EQ(f_rel.is_relative, 1);

	str = strobe_field_str(&ev, &f_file, &len);
	REQUIRE(str);
	CHECK_EQ(len, 10);
	CHECK_STR(str, "/bin/true");
	str = strobe_field_str(&ev, &f_rel, &len);
	REQUIRE(str);
	CHECK_EQ(len, 4);
	CHECK_STR(str, "abc");
	CHECK_EQ(strobe_field_int(&ev, &f_file), 0);	/* dynamic: no int */
	CHECK_EQ(strobe_field_int(&ev, &f_pid), 9);
	CHECK_EQ(strobe_field_int(&ev, &f_delta), -300);
	CHECK_EQ(strobe_field_uint(&ev, &f_delta), 0xfed4);
	CHECK_EQ(strobe_field_int(&ev, &f_flag), 0xfe);

	/* Out of bounds: data past the payload, or length past the end. */
	bad = ev;
	bad.size = 30;
	CHECK(strobe_field_str(&bad, &f_file, &len) == NULL);
	CHECK_EQ(len, 0);
	bad.size = 10;
	CHECK(strobe_field_str(&bad, &f_file, &len) == NULL);
	CHECK(strobe_field_str(&bad, &f_rel, &len) == NULL);
	strobe_stream_close(s);
	free_tep(tep);
}

static void test_stream_common_offsets_taken_from_formats(void)
{
	/* A format whose common_pid sits elsewhere: the stream follows it. */
	static const char fmt[] =
		"name: odd\n"
		"ID: 7\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned short common_flags;\toffset:2;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:int x;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\n"
		"print fmt: \"x=%d\", REC->x\n";
	struct tep_handle *tep = tep_alloc();
	uint8_t p[16] = { 7, 0 };
	int32_t pid = 31337;
	struct strobe_page_feed feed;
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;

	REQUIRE(tep);
	REQUIRE(tep_parse_event(tep, fmt, sizeof(fmt) - 1, "test") == 0);
	memcpy(p + 8, &pid, 4);
	feed = feed_of(payload_feed(p, 16, 1), 0, 0);
	s = open_stream(&feed, 1, tep, 0);
	REQUIRE(s);
	REQUIRE(strobe_stream_next(s, &ev, &err) == 1);
	CHECK_EQ(ev.type, 7);
	CHECK_EQ(ev.pid, 31337);
	CHECK(ev.format != NULL);
	strobe_stream_close(s);
	free_tep(tep);
}

/* ---- volume: many feeds and pages, order and counts (no timing) -------- */

struct gen_feed {
	uint8_t *page;		/* reused: rebuilt for each request */
	uint64_t ts;
	uint32_t step, pages_left, events;
	int cpu;
};

static int gen_next(void *ctx, const uint8_t **page, uint64_t *offset,
		    struct strobe_error *err)
{
	struct gen_feed *g = ctx;
	struct page_b b;

	if (!g->pages_left)
		return 0;
	g->pages_left--;
	b.buf = g->page;
	b.pos = 16;
	b.ts = g->ts;
	b.nr_events = 0;
	memset(g->page, 0, PS);
	put64(g->page, g->ts);
	while (page_room(&b, 8)) {
		g->ts += g->step;
		page_event(&b, g->ts, (uint16_t)g->cpu, g->cpu, 0);
		g->events++;
	}
	page_end(&b, 0);
	*offset = 0;
	*page = g->page;
	return 1;
}

static void gen_close(void *ctx)
{
	struct gen_feed *g = ctx;

	free(g->page);
	free(g);
}

/* ---- live feeds: -EAGAIN and idle watermarks --------------------------- */

/* Next event's time, or -EAGAIN / 0 / error as returned. */
static long long next_ts(struct strobe_stream *s)
{
	struct strobe_event ev;
	struct strobe_error err = { 0 };
	int r = strobe_stream_next(s, &ev, &err);

	return r == 1 ? (long long)ev.ts : r == 0 ? -1000 : r;
}

static void test_stream_live_hands_out_only_up_to_the_idle_watermark(void)
{
	static const uint64_t busy0[] = { 10, 20, 30 }, busy1[] = { 40, 50 };
	static const uint64_t quiet0[] = { 25 }, quiet1[] = { 45 };
	struct afeed *busy = afeed_new(), *quiet = afeed_new();
	struct strobe_page_feed f[2];
	struct strobe_stream *s;

	afeed_page(busy, busy0, 3, 0, 0);
	afeed_page(busy, busy1, 2, 0, 0);
	afeed_page(quiet, quiet0, 1, 0, 0);
	afeed_page(quiet, quiet1, 1, 0, 0);
	busy->avail = 1;
	quiet->avail = 0;	/* nothing yet, known idle until 15 */
	quiet->idle = 15;
	f[0] = feed_of(busy, 0, 0);
	f[1] = feed_of(quiet, 1, 0);
	f[0].idle_until = f[1].idle_until = afeed_idle;
	s = open_stream(f, 2, NULL, 0);
	REQUIRE(s);
	CHECK_EQ(next_ts(s), 10);
	CHECK_EQ(next_ts(s), -EAGAIN);	/* 20 > 15: the quiet CPU may still have 16..20 */
	quiet->avail = 1;		/* its page arrives: 25 */
	quiet->idle = 26;
	CHECK_EQ(next_ts(s), 20);
	CHECK_EQ(next_ts(s), 25);
	CHECK_EQ(next_ts(s), -EAGAIN);	/* quiet waits again: 30 > 26 */
	quiet->idle = 35;
	CHECK_EQ(next_ts(s), 30);
	/* both waiting now: busy idle until 0, nothing may go */
	CHECK_EQ(next_ts(s), -EAGAIN);
	busy->avail = 2;
	busy->idle = 100;
	CHECK_EQ(next_ts(s), -EAGAIN);	/* 40 > quiet's 35 */
	quiet->idle = 47;
	CHECK_EQ(next_ts(s), 40);
	CHECK_EQ(next_ts(s), -EAGAIN);	/* 50 > 47 */
	quiet->avail = 2;
	CHECK_EQ(next_ts(s), 45);
	CHECK_EQ(next_ts(s), -EAGAIN);	/* quiet waits again, idle until 47 */
	quiet->idle = 60;
	CHECK_EQ(next_ts(s), 50);
	CHECK_EQ(next_ts(s), -EAGAIN);	/* live feeds have not ended */
	busy->avail = quiet->avail = -1;	/* the capture stopped: ends */
	CHECK_EQ(next_ts(s), -1000);
	strobe_stream_close(s);
}

static void test_stream_live_feed_without_watermark_holds_the_stream(void)
{
	static const uint64_t a0[] = { 5, 6 }, b0[] = { 100 };
	struct afeed *a = afeed_new(), *b = afeed_new();
	struct strobe_page_feed f[2];
	struct strobe_stream *s;

	afeed_page(a, a0, 2, 0, 0);
	afeed_page(b, b0, 1, 0, 0);
	a->avail = 1;
	b->avail = 0;
	f[0] = feed_of(a, 0, 0);
	f[1] = feed_of(b, 1, 0);
	s = open_stream(f, 2, NULL, 0);
	REQUIRE(s);
	CHECK_EQ(next_ts(s), -EAGAIN);
	CHECK_EQ(next_ts(s), -EAGAIN);
	b->avail = 1;
	CHECK_EQ(next_ts(s), 5);
	CHECK_EQ(next_ts(s), 6);
	CHECK_EQ(next_ts(s), -EAGAIN);	/* b's 100 waits for a */
	a->avail = -1;			/* a ends */
	CHECK_EQ(next_ts(s), 100);
	b->avail = -1;
	CHECK_EQ(next_ts(s), -1000);
	CHECK_EQ(strobe_stream_fd(s), -1);
	CHECK_EQ(strobe_stream_wait(s, 0), 1);	/* no owner: nothing to wait for */
	strobe_stream_close(s);
}

static void test_stream_live_lost_events_reach_the_next_event(void)
{
	static const uint64_t p0[] = { 10 }, p1[] = { 20 };
	struct afeed *a = afeed_new();
	struct strobe_page_feed f;
	struct strobe_stream *s;
	struct strobe_event ev;
	struct strobe_error err = { 0 };

	afeed_page(a, p0, 1, 0, 0);
	afeed_page(a, p1, 1, 0, 4242);	/* 4242 lost before 20 */
	a->avail = 1;
	a->idle = 1000;
	f = feed_of(a, 0, 0);
	f.idle_until = afeed_idle;
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 1);
	CHECK_EQ(ev.missed, 0);
	CHECK_EQ(strobe_stream_next(s, &ev, &err), -EAGAIN);
	a->avail = 2;
	CHECK_EQ(strobe_stream_next(s, &ev, &err), 1);
	CHECK_EQ(ev.ts, 20);
	CHECK_EQ(ev.missed, 4242);
	strobe_stream_close(s);
}

/* ---- strobe_stream_iterate ------------------------------------------- */

struct iter_count {
	int n, stop_at, fail_at;
};

static int iter_cb(const struct strobe_event *ev, void *arg)
{
	struct iter_count *c = arg;

	c->n++;
	if (c->n == c->fail_at)
		return -EIO;
	return c->n == c->stop_at ? STROBE_ITER_STOP : 0;
}

static void test_stream_iterate_ends_stops_and_fails_as_asked(void)
{
	static const uint64_t t0[] = { 1, 2, 3 }, t1[] = { 4, 5 };
	struct strobe_error err = { 0 };
	struct iter_count c;
	int mode;

	for (mode = 0; mode < 3; mode++) {
		struct afeed *a = afeed_new();
		struct strobe_page_feed f;
		struct strobe_stream *s;
		int r;

		afeed_page(a, t0, 3, 0, 0);
		afeed_page(a, t1, 2, 0, 0);
		f = feed_of(a, 0, 0);
		s = open_stream(&f, 1, NULL, 0);
		REQUIRE(s);
		memset(&c, 0, sizeof(c));
		c.stop_at = mode == 1 ? 4 : 0;
		c.fail_at = mode == 2 ? 2 : 0;
		r = strobe_stream_iterate(s, iter_cb, &c, NULL, &err);
		if (mode == 0) {
			CHECK_EQ(r, STROBE_ITER_END);
			CHECK_EQ(c.n, 5);
		} else if (mode == 1) {
			CHECK_EQ(r, STROBE_ITER_STOPPED);
			CHECK_EQ(c.n, 4);
		} else {
			CHECK_EQ(r, -EIO);
			CHECK_EQ(c.n, 2);
			CHECK(strstr(err.msg, "callback") != NULL);
		}
		strobe_stream_close(s);
	}
}

static void test_stream_iterate_file_stream_stops_on_the_flag(void)
{
	static const uint64_t t0[] = { 1, 2, 3 };
	volatile sig_atomic_t stop = 1;
	struct strobe_iterate_opts o = { sizeof(o), 0, 0, &stop, NULL };
	struct strobe_error err = { 0 };
	struct iter_count c = { 0, 0, 0 };
	struct afeed *a = afeed_new();
	struct strobe_page_feed f;
	struct strobe_stream *s;

	afeed_page(a, t0, 3, 0, 0);
	a->avail = 1;		/* live-like: then nothing more for now */
	f = feed_of(a, 0, 0);
	s = open_stream(&f, 1, NULL, 0);
	REQUIRE(s);
	/* the flag is looked at once the stream has nothing to hand out */
	CHECK_EQ(strobe_stream_iterate(s, iter_cb, &c, &o, &err), STROBE_ITER_SIGNAL);
	CHECK_EQ(c.n, 3);
	strobe_stream_close(s);
}

static void test_stream_volume_sixteen_feeds_stay_ordered(void)
{
	struct strobe_page_feed feeds[16];
	struct strobe_error err = { 0 };
	struct strobe_stream *s;
	struct strobe_event ev;
	struct gen_feed *g[16];
	uint64_t last = 0, n = 0, want = 0;
	int i, r, bad = 0;

	for (i = 0; i < 16; i++) {
		g[i] = calloc(1, sizeof(*g[i]));
		g[i]->page = calloc(1, PS);
		g[i]->ts = 1000 + (uint64_t)i;
		g[i]->step = 3 + (uint32_t)i % 5;	/* many equal times */
		g[i]->pages_left = 2000;
		g[i]->cpu = i;
		feeds[i] = (struct strobe_page_feed){ .next_page = gen_next,
			.close = gen_close, .ctx = g[i], .cpu = i };
	}
	s = open_stream(feeds, 16, NULL, 0);
	REQUIRE(s);
	while ((r = strobe_stream_next(s, &ev, &err)) == 1) {
		if (ev.ts < last || ev.type != ev.cpu || ev.pid != ev.cpu)
			bad++;
		last = ev.ts;
		n++;
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(bad, 0);
	for (i = 0; i < 16; i++)
		want += g[i]->events;
	CHECK_EQ(n, want);
	CHECK_EQ(n, 16 * 2000 * 19);
	strobe_stream_close(s);
}

TESTS(T(test_stream_merges_three_cpus_by_time_ties_in_feed_order),
      T(test_stream_file_offset_points_at_record),
      T(test_stream_missed_reported_on_first_event_of_page),
      T(test_stream_ts_offset_added),
      T(test_stream_large_deltas_use_time_extend),
      T(test_stream_bad_page_reported_then_skipped),
      T(test_stream_bad_first_page_zeroed_page_and_bad_header_skipped),
      T(test_stream_feed_error_ends_that_feed_only),
      T(test_stream_open_rejects_bad_arguments_and_closes_feeds),
      T(test_stream_format_lookup_by_type),
      T(test_fields_fixed_ints_arrays_and_signs),
      T(test_fields_data_loc_and_rel_loc_strings),
      T(test_stream_common_offsets_taken_from_formats),
      T(test_stream_live_hands_out_only_up_to_the_idle_watermark),
      T(test_stream_live_feed_without_watermark_holds_the_stream),
      T(test_stream_live_lost_events_reach_the_next_event),
      T(test_stream_iterate_ends_stops_and_fails_as_asked),
      T(test_stream_iterate_file_stream_stops_on_the_flag),
      T(test_stream_volume_sixteen_feeds_stay_ordered));
