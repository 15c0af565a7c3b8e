/*
 * test_flight_ring.c - the flight recorder's ring (lib/source/ring.c)
 * without a kernel: bounded memory (the newest pages kept, the oldest
 * forgotten, nothing resident beyond the ring), a pin that keeps the pages
 * a snapshot still copies while the producer goes on (the producer waits
 * only when it would overwrite one), flush requests answered by the
 * "reader", and trimming pages to a start time with every remaining
 * event's time kept exactly.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "source/ring.h"
#include "stream/page.h"

#define PS 256u		/* page size: small pages, many of them */
#define CS 8u		/* commit field width */

/* A page whose events are 4-byte payloads at the given times (with a
 * time-extend record where a delta needs more than 27 bits). */
static void make_page(uint8_t *pg, const uint64_t *ts, int n, uint32_t payload0)
{
	uint32_t pos = 16, hdr;
	uint64_t cur = ts[0], c;
	int i;

	memset(pg, 0, PS);
	memcpy(pg, &cur, 8);
	for (i = 0; i < n; i++) {
		uint64_t d = ts[i] - cur;

		if (d >= (1u << 27)) {
			hdr = 30 | (uint32_t)((d & ((1u << 27) - 1)) << 5);
			memcpy(pg + pos, &hdr, 4);
			hdr = (uint32_t)(d >> 27);
			memcpy(pg + pos + 4, &hdr, 4);
			pos += 8;
			d = 0;
		}
		hdr = 1 | (uint32_t)(d << 5);	/* type_len 1: 4 bytes of payload */
		memcpy(pg + pos, &hdr, 4);
		hdr = payload0 + (uint32_t)i;
		memcpy(pg + pos + 4, &hdr, 4);
		pos += 8;
		cur = ts[i];
	}
	c = pos - 16;
	memcpy(pg + 8, &c, 8);
}

/* The times and payloads of a page's events. */
static int read_page(const uint8_t *pg, uint64_t *ts, uint32_t *pl, int max)
{
	struct strobe_page p;
	struct strobe_page_rec rec;
	int n = 0;

	if (strobe_page_init(&p, pg, PS, CS, NULL) < 0)
		return -1;
	while (n < max && strobe_page_next(&p, &rec, NULL) == 1) {
		ts[n] = rec.ts;
		memcpy(&pl[n], rec.data, 4);
		n++;
	}
	return n;
}

static void push_n(struct strobe_ring *r, int from, int n)
{
	uint8_t pg[PS];
	uint64_t ts;
	int i;

	for (i = from; i < from + n; i++) {
		ts = 1000 + (uint64_t)i * 10;
		make_page(pg, &ts, 1, (uint32_t)i);
		strobe_ring_push(r, pg, PS);
	}
}

static void test_ring_keeps_the_newest_pages_within_its_size(void)
{
	struct strobe_ring *r = strobe_ring_new(PS, CS, 8);
	struct strobe_ring_stats st;
	uint64_t first, head, ts[4];
	uint32_t pl[4];
	uint8_t out[PS];

	REQUIRE(r);
	push_n(r, 0, 3);
	strobe_ring_span(r, &first, &head);
	CHECK_EQ(first, 0);
	CHECK_EQ(head, 3);
	strobe_ring_stats(r, &st);
	CHECK_EQ(st.resident, 3 * PS);
	push_n(r, 3, 97);		/* 100 pages through a ring of 8 */
	strobe_ring_span(r, &first, &head);
	CHECK_EQ(first, 92);
	CHECK_EQ(head, 100);
	strobe_ring_stats(r, &st);
	CHECK_EQ(st.pushed, 100);
	CHECK_EQ(st.overwritten, 92);
	CHECK_EQ(st.resident, 8 * PS);	/* never more than the ring */
	CHECK_EQ(strobe_ring_copy(r, 91, out), -ESRCH);
	REQUIRE(strobe_ring_copy(r, 92, out) == 0);
	CHECK_EQ(read_page(out, ts, pl, 4), 1);
	CHECK_EQ(pl[0], 92);
	REQUIRE(strobe_ring_copy(r, 99, out) == 0);
	read_page(out, ts, pl, 4);
	CHECK_EQ(pl[0], 99);
	CHECK(strobe_ring_new(PS, 5, 8) == NULL);
	CHECK(strobe_ring_new(PS, CS, 0) == NULL);
	strobe_ring_free(r);
}

static void test_ring_partial_page_is_zero_filled(void)
{
	struct strobe_ring *r = strobe_ring_new(PS, CS, 4);
	uint8_t pg[PS], out[PS];
	uint64_t ts = 5, t2[2];
	uint32_t pl[2];

	REQUIRE(r);
	memset(pg, 0xee, PS);
	make_page(pg, &ts, 1, 7);
	strobe_ring_push(r, pg, 24);	/* header + one event */
	REQUIRE(strobe_ring_copy(r, 0, out) == 0);
	CHECK_EQ(read_page(out, t2, pl, 2), 1);
	CHECK_EQ(out[PS - 1], 0);
	strobe_ring_free(r);
}

struct producer {
	struct strobe_ring *r;
	int from, n;
	volatile int done;
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	push_n(p->r, p->from, p->n);
	p->done = 1;
	return NULL;
}

static void nap_ms(int ms)
{
	struct timespec t = { 0, ms * 1000000L };

	nanosleep(&t, NULL);
}

static void test_ring_pin_holds_pages_until_released(void)
{
	struct strobe_ring *r = strobe_ring_new(PS, CS, 4);
	struct producer p = { r, 4, 3, 0 };
	struct strobe_ring_stats st;
	uint64_t first, head, pin, ts[2];
	uint32_t pl[2];
	uint8_t out[PS];
	pthread_t t;

	REQUIRE(r);
	push_n(r, 0, 4);		/* full: pages 0..3 */
	pin = strobe_ring_pin(r);
	CHECK_EQ(pin, 0);
	REQUIRE(pthread_create(&t, NULL, produce, &p) == 0);
	nap_ms(50);
	CHECK_EQ(p.done, 0);		/* page 0 is pinned: the producer waits */
	strobe_ring_span(r, &first, &head);
	CHECK_EQ(first, 0);
	REQUIRE(strobe_ring_copy(r, 0, out) == 0);
	read_page(out, ts, pl, 2);
	CHECK_EQ(pl[0], 0);
	strobe_ring_release(r, 2);	/* pages 0 and 1 copied */
	nap_ms(50);
	CHECK_EQ(p.done, 0);		/* 2 pushed, the third waits for page 2 */
	strobe_ring_span(r, &first, &head);
	CHECK_EQ(first, 2);
	CHECK_EQ(head, 6);
	strobe_ring_unpin(r);
	pthread_join(t, NULL);
	CHECK_EQ(p.done, 1);
	strobe_ring_stats(r, &st);
	CHECK(st.waits >= 2);
	CHECK(st.wait_ns > 0);
	/* closed: a pinned page is kept, the push is not, nothing waits */
	strobe_ring_pin(r);
	strobe_ring_close(r);
	push_n(r, 7, 3);
	strobe_ring_span(r, &first, &head);
	CHECK_EQ(first, 3);
	CHECK_EQ(head, 7);
	CHECK_EQ(strobe_ring_flush(r, 10), 0);	/* closed: answered at once */
	strobe_ring_free(r);
}

static void *flush_reader(void *arg)
{
	struct strobe_ring *r = arg;
	uint64_t v;
	int i;

	for (i = 0; i < 200; i++) {
		if (read(strobe_ring_kick_fd(r), &v, sizeof(v)) == sizeof(v)) {
			push_n(r, 1000, 1);	/* "the partial page" */
			strobe_ring_flushed(r);
			return NULL;
		}
		nap_ms(1);
	}
	return NULL;
}

static void test_ring_flush_waits_for_the_reader(void)
{
	struct strobe_ring *r = strobe_ring_new(PS, CS, 4);
	uint64_t first, head;
	pthread_t t;

	REQUIRE(r);
	CHECK_EQ(strobe_ring_flush(r, 20), -ETIMEDOUT);	/* nobody answers */
	uint64_t v;
	(void)!read(strobe_ring_kick_fd(r), &v, sizeof(v));
	REQUIRE(pthread_create(&t, NULL, flush_reader, r) == 0);
	CHECK_EQ(strobe_ring_flush(r, 2000), 0);
	strobe_ring_span(r, &first, &head);
	CHECK_EQ(head, 1);		/* the page was there when flush returned */
	pthread_join(t, NULL);
	strobe_ring_free(r);
}

static void test_trim_page_keeps_event_times(void)
{
	uint64_t ts[5] = { 1000, 1010, 1000 + (1ull << 28), 1000 + (1ull << 28) + 5,
			   1000 + (1ull << 28) + 9 };
	uint64_t got[5], dropped = 0, a, b;
	uint32_t pl[5];
	uint8_t pg[PS];
	int n;

	make_page(pg, ts, 5, 100);
	CHECK_EQ(strobe_ring_page_times(pg, PS, CS, &a, &b), 1);
	CHECK_EQ(a, ts[0]);
	CHECK_EQ(b, ts[4]);
	/* from before the first event: the page as it was */
	CHECK_EQ(strobe_ring_trim_page(pg, PS, CS, 900, &dropped), 1);
	CHECK_EQ(dropped, 0);
	CHECK_EQ(read_page(pg, got, pl, 5), 5);
	/* cut after a time extend: the rest keep their exact times */
	CHECK_EQ(strobe_ring_trim_page(pg, PS, CS, ts[3], &dropped), 1);
	CHECK_EQ(dropped, 3);
	n = read_page(pg, got, pl, 5);
	CHECK_EQ(n, 2);
	CHECK_EQ(got[0], ts[3]);
	CHECK_EQ(got[1], ts[4]);
	CHECK_EQ(pl[0], 103);
	CHECK_EQ(pl[1], 104);
	/* everything older: nothing left */
	dropped = 0;
	CHECK_EQ(strobe_ring_trim_page(pg, PS, CS, ts[4] + 1, &dropped), 0);
	CHECK_EQ(dropped, 2);
	CHECK_EQ(read_page(pg, got, pl, 5), 0);
	/* the cut falls right after the time extend itself */
	make_page(pg, ts, 5, 100);
	dropped = 0;
	CHECK_EQ(strobe_ring_trim_page(pg, PS, CS, ts[2], &dropped), 1);
	CHECK_EQ(dropped, 2);
	n = read_page(pg, got, pl, 5);
	CHECK_EQ(n, 3);
	CHECK_EQ(got[0], ts[2]);
	CHECK_EQ(got[2], ts[4]);
	/* an empty page and a malformed one */
	memset(pg, 0, PS);
	CHECK_EQ(strobe_ring_page_times(pg, PS, CS, &a, &b), 0);
	memset(pg + 8, 0xff, 8);
	CHECK_EQ(strobe_ring_trim_page(pg, PS, CS, 0, &dropped), -EINVAL);
}

/* Trimming a snapshot to the common span: two CPUs' rings that forgot
 * different amounts start at different times; after trimming at the
 * later start, both CPUs' first events are at or after it and nothing
 * after it was lost. */
static void test_trim_to_common_span_of_two_cpus(void)
{
	struct strobe_ring *r0 = strobe_ring_new(PS, CS, 4), *r1 = strobe_ring_new(PS, CS, 4);
	uint64_t first0, head0, first1, head1, a, b, common, ts[20], dropped = 0, kept = 0;
	uint32_t pl[20];
	uint8_t pg[PS], out[PS];
	uint64_t t;
	int i, k, n;

	REQUIRE(r0 && r1);
	/* cpu0: 10 pages of 10 events each 1 ns apart, from 0; cpu1: 3
	 * pages spanning later times only (a quiet CPU) */
	for (i = 0; i < 10; i++) {
		for (k = 0; k < 10; k++)
			ts[k] = 1000 + (uint64_t)(i * 10 + k);
		make_page(pg, ts, 10, (uint32_t)(i * 10));
		strobe_ring_push(r0, pg, PS);
	}
	for (i = 0; i < 3; i++) {
		t = 1000 + 70 + (uint64_t)i * 10;
		make_page(pg, &t, 1, 0);
		strobe_ring_push(r1, pg, PS);
	}
	strobe_ring_span(r0, &first0, &head0);
	strobe_ring_span(r1, &first1, &head1);
	CHECK_EQ(first0, 6);	/* cpu0 kept pages 6..9: from 1060 */
	CHECK_EQ(first1, 0);	/* cpu1 forgot nothing */
	REQUIRE(strobe_ring_copy(r0, first0, out) == 0);
	strobe_ring_page_times(out, PS, CS, &a, &b);
	common = a;		/* only cpu0 forgot pages */
	CHECK_EQ(common, 1060);
	/* a later start (a span): 1065, mid-page */
	for (i = (int)first0; i < (int)head0; i++) {
		strobe_ring_copy(r0, (uint64_t)i, out);
		if (strobe_ring_trim_page(out, PS, CS, 1065, &dropped) <= 0)
			continue;
		n = read_page(out, ts, pl, 20);
		for (k = 0; k < n; k++) {
			CHECK(ts[k] >= 1065);
			CHECK_EQ(pl[k], ts[k] - 1000);
			kept++;
		}
	}
	CHECK_EQ(dropped, 5);
	CHECK_EQ(kept, 35);
	strobe_ring_free(r0);
	strobe_ring_free(r1);
}

TESTS(T(test_ring_keeps_the_newest_pages_within_its_size),
      T(test_ring_partial_page_is_zero_filled),
      T(test_ring_pin_holds_pages_until_released),
      T(test_ring_flush_waits_for_the_reader),
      T(test_trim_page_keeps_event_times),
      T(test_trim_to_common_span_of_two_cpus));
