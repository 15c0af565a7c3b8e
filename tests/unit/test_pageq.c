/*
 * test_pageq.c - the live page queue (lib/source/pageq.c) without a
 * kernel: the zero-copy path (strobe_pageq_reserve/commit: free slots in
 * queue order, a partial last page zero-filled, one wake-up of the
 * consumer per batch, mixed with copied pages in order), a full queue
 * that grows once draining, a consumer that has gone, and a lossy queue
 * that refuses the path.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "test.h"
#include "source/pageq.h"

#define PS 64u

/* Wake-ups written to the eventfd since the last call. */
static uint64_t wakes(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static void fill(uint8_t *p, size_t len, uint8_t tag)
{
	memset(p, tag, len);
}

static void test_reserve_commit_in_order_one_wake(void)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	struct strobe_pageq *q = strobe_pageq_new(PS, 8, fd);
	const uint8_t *pg;
	uint8_t *bufs[8], page[PS];
	int n, i;

	REQUIRE(q && fd >= 0);
	n = strobe_pageq_reserve(q, bufs, 3);
	CHECK_EQ(n, 3);
	for (i = 0; i < n; i++)
		fill(bufs[i], PS, (uint8_t)(1 + i));
	/* nothing visible before the commit */
	CHECK_EQ(strobe_pageq_next(q, &pg), -EAGAIN);
	strobe_pageq_commit(q, 3 * PS);
	CHECK_EQ(wakes(fd), 1);
	/* a copied page after them */
	fill(page, PS, 9);
	CHECK_EQ(strobe_pageq_push(q, page, PS), 0);
	for (i = 0; i < 3; i++) {
		REQUIRE(strobe_pageq_next(q, &pg) == 1);
		CHECK_EQ(pg[0], 1 + i);
		CHECK_EQ(pg[PS - 1], 1 + i);
	}
	REQUIRE(strobe_pageq_next(q, &pg) == 1);
	CHECK_EQ(pg[0], 9);
	CHECK_EQ(strobe_pageq_next(q, &pg), -EAGAIN);
	strobe_pageq_end(q);
	CHECK_EQ(strobe_pageq_next(q, &pg), 0);
	strobe_pageq_put(q);
	strobe_pageq_put(q);
	close(fd);
}

static void test_partial_last_page_zero_filled(void)
{
	struct strobe_pageq *q = strobe_pageq_new(PS, 4, -1);
	const uint8_t *pg;
	uint8_t *bufs[4];
	int n;

	REQUIRE(q);
	n = strobe_pageq_reserve(q, bufs, 4);
	REQUIRE(n == 4);
	fill(bufs[0], PS, 7);
	fill(bufs[1], PS, 7);
	strobe_pageq_commit(q, PS + 10);	/* one page and 10 bytes */
	REQUIRE(strobe_pageq_next(q, &pg) == 1);
	CHECK_EQ(pg[PS - 1], 7);
	REQUIRE(strobe_pageq_next(q, &pg) == 1);
	CHECK_EQ(pg[9], 7);
	CHECK_EQ(pg[10], 0);
	CHECK_EQ(pg[PS - 1], 0);
	CHECK_EQ(strobe_pageq_next(q, &pg), -EAGAIN);
	/* a commit of 0 gives every slot back: nothing queued */
	n = strobe_pageq_reserve(q, bufs, 4);
	CHECK(n >= 1);
	strobe_pageq_commit(q, 0);
	CHECK_EQ(strobe_pageq_next(q, &pg), -EAGAIN);
	strobe_pageq_end(q);
	strobe_pageq_put(q);
	strobe_pageq_put(q);
}

/* Free slots only: the one the consumer holds is not handed out; once
 * draining a full queue grows instead of waiting. */
static void test_full_queue_holds_slots_then_grows_when_draining(void)
{
	struct strobe_pageq *q = strobe_pageq_new(PS, 4, -1);
	const uint8_t *pg, *held;
	uint8_t *bufs[16];
	int n, i;

	REQUIRE(q);
	CHECK_EQ(strobe_pageq_reserve(q, bufs, 16), 4);
	for (i = 0; i < 4; i++)
		fill(bufs[i], PS, (uint8_t)(10 + i));
	strobe_pageq_commit(q, 4 * PS);
	REQUIRE(strobe_pageq_next(q, &held) == 1);
	strobe_pageq_drain(q);
	n = strobe_pageq_reserve(q, bufs, 16);
	CHECK(n >= 1);
	for (i = 0; i < n; i++) {
		CHECK(bufs[i] != held);
		fill(bufs[i], PS, (uint8_t)(20 + i));
	}
	CHECK_EQ(held[0], 10);		/* untouched by the producer */
	strobe_pageq_commit(q, (size_t)n * PS);
	for (i = 1; i < 4; i++) {
		REQUIRE(strobe_pageq_next(q, &pg) == 1);
		CHECK_EQ(pg[0], 10 + i);
	}
	for (i = 0; i < n; i++) {
		REQUIRE(strobe_pageq_next(q, &pg) == 1);
		CHECK_EQ(pg[0], 20 + i);
	}
	strobe_pageq_end(q);
	CHECK_EQ(strobe_pageq_next(q, &pg), 0);
	strobe_pageq_put(q);
	strobe_pageq_put(q);
}

static void test_abandoned_and_lossy(void)
{
	struct strobe_pageq *q = strobe_pageq_new(PS, 4, -1);
	uint8_t *bufs[4];

	REQUIRE(q);
	strobe_pageq_abandon(q);
	CHECK_EQ(strobe_pageq_reserve(q, bufs, 4), 0);
	strobe_pageq_put(q);
	strobe_pageq_put(q);

	q = strobe_pageq_new(PS, 4, -1);
	REQUIRE(q);
	strobe_pageq_set_lossy(q, 8);
	CHECK_EQ(strobe_pageq_reserve(q, bufs, 4), -EINVAL);
	strobe_pageq_end(q);
	strobe_pageq_put(q);
	strobe_pageq_put(q);
}

TESTS(T(test_reserve_commit_in_order_one_wake), T(test_partial_last_page_zero_filled),
      T(test_full_queue_holds_slots_then_grows_when_draining), T(test_abandoned_and_lossy));
