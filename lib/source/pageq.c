/*
 * pageq.c - the page queue between a live reader and a stream feed (see
 * pageq.h).  A ring of page pointers under one mutex: pages are copied
 * outside the lock, so the lock is held only to move indices.  Page
 * buffers are allocated as the ring first fills and then reused.
 *
 * The reader of a stream alone reserves free slots and reads pages from
 * its pipe straight into them (strobe_pageq_reserve/commit: one readv
 * for a batch of pages, one lock and at most one wake-up per batch, no
 * copy); the other producers copy pages in with strobe_pageq_push.
 *
 * A lossy queue (the stream of a capture that also writes files) drops
 * a page instead of waiting when it is full and counts the page's
 * events; before the next page it queues an empty page carrying that
 * count (the ring buffer's own "events missed before this page" mark,
 * see stream/page.h), so the stream reports the gap on the CPU's next
 * event as it reports the kernel's losses.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "pageq.h"
#include "../stream/page.h"

struct strobe_pageq {
	pthread_mutex_t lock;
	pthread_cond_t space;	/* signalled when a slot frees up */
	uint8_t **slots;	/* cap entries; page buffers, NULL until used */
	unsigned cap;		/* slots (grows only while draining) */
	uint64_t head, tail;	/* pushed, released; head - tail <= cap */
	bool held;		/* the consumer holds slots[tail % cap] */
	bool draining, ended, abandoned;
	uint64_t idle;		/* producer's watermark */
	uint64_t idle_seen;	/* watermark as of the consumer's last -EAGAIN */
	uint64_t dropped;
	unsigned page_size;
	unsigned commit_size;	/* lossy queues: the page header's commit
				 * field width; 0 = waits when full */
	int64_t lost_pending;	/* lossy: events dropped since the last
				 * queued page (-1: some, count unknown) */
	uint64_t lost_pages, lost_events;	/* lossy: totals dropped */
	int wake_fd;
	int kick_fd;		/* eventfd the consumer kicks the producer with */
	bool kicked;		/* a kick is pending */
	int refs;
};

/* Lock held: so that after strobe_pageq_abandon() returns nothing writes
 * to wake_fd any more, and its owner may close it. */
static void wake(struct strobe_pageq *q)
{
	uint64_t one = 1;

	if (q->wake_fd >= 0 && !q->abandoned)
		(void)!write(q->wake_fd, &one, sizeof(one));
}

struct strobe_pageq *strobe_pageq_new(unsigned page_size, unsigned nr_pages, int wake_fd)
{
	struct strobe_pageq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	if (nr_pages < 2)
		nr_pages = 2;
	q->slots = calloc(nr_pages, sizeof(*q->slots));
	if (!q->slots) {
		free(q);
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->space, NULL);
	q->cap = nr_pages;
	q->page_size = page_size;
	q->wake_fd = wake_fd;
	q->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->refs = 2;
	return q;
}

/* Double the ring, keeping the order of the queued pages (lock held). */
static int grow(struct strobe_pageq *q)
{
	unsigned ncap = q->cap * 2, i;
	uint8_t **ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 0; i < q->cap; i++)
		ns[i] = q->slots[(q->tail + i) % q->cap];
	free(q->slots);
	q->slots = ns;
	q->head -= q->tail;
	q->tail = 0;
	q->cap = ncap;
	return 0;
}

void strobe_pageq_set_lossy(struct strobe_pageq *q, unsigned commit_size)
{
	pthread_mutex_lock(&q->lock);
	q->commit_size = commit_size == 4 || commit_size == 8 ? commit_size : 0;
	pthread_mutex_unlock(&q->lock);
}

/* Events in a page the queue drops (-1 if it cannot be decoded). */
static int64_t page_events(const struct strobe_pageq *q, const uint8_t *page, size_t len)
{
	struct strobe_page_rec rec;
	struct strobe_page p;
	int64_t n = 0;
	int r;

	if (len < q->page_size ||
	    strobe_page_init(&p, page, q->page_size, q->commit_size, NULL) < 0)
		return -1;
	while ((r = strobe_page_next(&p, &rec, NULL)) == 1)
		n++;
	return r < 0 ? -1 : n;
}

static void lost_add(int64_t *acc, int64_t n)
{
	if (n < 0 || *acc < 0)
		*acc = -1;
	else
		*acc += n;
}

/*
 * An empty page that says only "lost events were dropped before the next
 * page": the ring buffer's own mark (commit flags, the count stored after
 * the data, see stream/page.h), so the stream reports the gap as it
 * reports the kernel's losses.  A page of its own, because a full page
 * from the kernel has no room left for the count.
 */
static void make_lost_page(const struct strobe_pageq *q, uint8_t *page, int64_t lost)
{
	const uint32_t missed = 1U << 31, stored = 1U << 30;
	unsigned cs = q->commit_size;
	uint64_t c64, n64;
	uint32_t c32, n32;

	memset(page, 0, q->page_size);
	if (cs == 8) {
		c64 = htole64(lost < 0 ? missed : missed | stored);
		n64 = htole64(lost < 0 ? 0 : (uint64_t)lost);
		memcpy(page + 8, &c64, 8);
		memcpy(page + 16, &n64, 8);
	} else {
		c32 = htole32(lost < 0 ? missed : missed | stored);
		n32 = htole32(lost < 0 ? 0 : lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost);
		memcpy(page + 8, &c32, 4);
		memcpy(page + 12, &n32, 4);
	}
}

/* Lock held: a free slot's buffer (allocated on first use), or NULL. */
static uint8_t *head_slot(struct strobe_pageq *q)
{
	uint8_t **slot = &q->slots[q->head % q->cap];

	if (!*slot)
		*slot = malloc(q->page_size);
	return *slot;
}

/* Lock held: the slot at head is filled; hand it over. */
static void publish(struct strobe_pageq *q)
{
	/* wake the consumer only when it may have found this queue empty:
	 * a consumer still working through queued pages needs no system
	 * call and no context switch per page */
	if (q->head - q->tail == (q->held ? 1u : 0u))
		wake(q);
	q->head++;
	q->kicked = false;
}

/* Lock held, and released: a lossy queue drops the page, counted. */
static int drop(struct strobe_pageq *q, const uint8_t *page, size_t len)
{
	int64_t lost;

	pthread_mutex_unlock(&q->lock);
	lost = page_events(q, page, len);
	pthread_mutex_lock(&q->lock);
	lost_add(&q->lost_pending, lost);
	q->lost_pages++;
	if (lost > 0)
		q->lost_events += (uint64_t)lost;
	pthread_mutex_unlock(&q->lock);
	return 0;
}

int strobe_pageq_push(struct strobe_pageq *q, const uint8_t *page, size_t len)
{
	uint8_t *buf;

	if (len > q->page_size)
		len = q->page_size;
	pthread_mutex_lock(&q->lock);
	/* room for the page, and for the mark of pages dropped before it */
	while (q->head - q->tail + (q->lost_pending ? 2 : 1) > q->cap && !q->abandoned) {
		if (q->draining) {
			if (grow(q) < 0) {
				pthread_mutex_unlock(&q->lock);
				return -ENOMEM;
			}
			continue;
		}
		if (q->commit_size)	/* lossy: never wait */
			return drop(q, page, len);
		pthread_cond_wait(&q->space, &q->lock);
	}
	if (q->abandoned) {
		q->dropped++;
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	if (q->lost_pending) {
		buf = head_slot(q);
		if (!buf) {
			pthread_mutex_unlock(&q->lock);
			return -ENOMEM;
		}
		make_lost_page(q, buf, q->lost_pending);
		q->lost_pending = 0;
		publish(q);
	}
	buf = head_slot(q);
	if (!buf) {
		pthread_mutex_unlock(&q->lock);
		return -ENOMEM;
	}
	/* the consumer never touches slots in [tail+held, head): copy unlocked;
	 * a grow happens only on this thread, so the buffer stays put */
	pthread_mutex_unlock(&q->lock);
	memcpy(buf, page, len);
	if (len < q->page_size)
		memset(buf + len, 0, q->page_size - len);
	pthread_mutex_lock(&q->lock);
	publish(q);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

int strobe_pageq_reserve(struct strobe_pageq *q, uint8_t **bufs, unsigned max)
{
	unsigned n, i;

	if (q->commit_size)
		return -EINVAL;
	pthread_mutex_lock(&q->lock);
	while (q->head - q->tail >= q->cap && !q->abandoned) {
		if (q->draining) {
			if (grow(q) < 0) {
				pthread_mutex_unlock(&q->lock);
				return -ENOMEM;
			}
			continue;
		}
		pthread_cond_wait(&q->space, &q->lock);
	}
	if (q->abandoned) {
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	n = q->cap - (unsigned)(q->head - q->tail);
	if (n > max)
		n = max;
	/* the consumer never touches slots in [head, tail + cap): the
	 * buffers stay put until the commit (a grow moves only pointers,
	 * and only this thread grows) */
	for (i = 0; i < n; i++) {
		uint8_t **slot = &q->slots[(q->head + i) % q->cap];

		if (!*slot)
			*slot = malloc(q->page_size);
		if (!*slot)
			break;
		bufs[i] = *slot;
	}
	pthread_mutex_unlock(&q->lock);
	return i ? (int)i : -ENOMEM;
}

void strobe_pageq_commit(struct strobe_pageq *q, size_t len)
{
	size_t n = (len + q->page_size - 1) / q->page_size;

	if (!n)
		return;
	if (len % q->page_size) {
		uint8_t *last = q->slots[(q->head + n - 1) % q->cap];

		memset(last + len % q->page_size, 0, q->page_size - len % q->page_size);
	}
	pthread_mutex_lock(&q->lock);
	if (q->abandoned) {
		q->dropped += n;
	} else {
		if (q->head - q->tail == (q->held ? 1u : 0u))
			wake(q);	/* see publish() */
		q->head += n;
		q->kicked = false;
	}
	pthread_mutex_unlock(&q->lock);
}

void strobe_pageq_idle(struct strobe_pageq *q, uint64_t ts)
{
	pthread_mutex_lock(&q->lock);
	if (ts > q->idle)
		q->idle = ts;
	q->kicked = false;
	wake(q);
	pthread_mutex_unlock(&q->lock);
}

void strobe_pageq_drain(struct strobe_pageq *q)
{
	pthread_mutex_lock(&q->lock);
	q->draining = true;
	pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->lock);
}

void strobe_pageq_end(struct strobe_pageq *q)
{
	uint8_t *buf;

	pthread_mutex_lock(&q->lock);
	/* pages dropped with no page after them: their mark still goes */
	if (q->lost_pending && !q->abandoned &&
	    (q->head - q->tail < q->cap || grow(q) == 0) && (buf = head_slot(q))) {
		make_lost_page(q, buf, q->lost_pending);
		q->lost_pending = 0;
		publish(q);
	}
	q->ended = true;
	wake(q);
	pthread_mutex_unlock(&q->lock);
}

int strobe_pageq_next(struct strobe_pageq *q, const uint8_t **page)
{
	int r;

	pthread_mutex_lock(&q->lock);
	if (q->held) {
		q->held = false;
		q->tail++;
		pthread_cond_signal(&q->space);
	}
	if (q->head == q->tail) {
		q->idle_seen = q->idle;
		r = q->ended ? 0 : -EAGAIN;
	} else {
		*page = q->slots[q->tail % q->cap];
		q->held = true;
		r = 1;
	}
	pthread_mutex_unlock(&q->lock);
	return r;
}

uint64_t strobe_pageq_idle_until(struct strobe_pageq *q)
{
	uint64_t v;

	pthread_mutex_lock(&q->lock);
	v = q->idle_seen;
	pthread_mutex_unlock(&q->lock);
	return v;
}

void strobe_pageq_abandon(struct strobe_pageq *q)
{
	pthread_mutex_lock(&q->lock);
	q->abandoned = true;
	pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->lock);
}

void strobe_pageq_kick(struct strobe_pageq *q)
{
	uint64_t one = 1;

	pthread_mutex_lock(&q->lock);
	if (!q->kicked && !q->ended && q->kick_fd >= 0) {
		q->kicked = true;
		(void)!write(q->kick_fd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&q->lock);
}

int strobe_pageq_kick_fd(const struct strobe_pageq *q)
{
	return q->kick_fd;
}

uint64_t strobe_pageq_dropped(struct strobe_pageq *q)
{
	uint64_t v;

	pthread_mutex_lock(&q->lock);
	v = q->dropped;
	pthread_mutex_unlock(&q->lock);
	return v;
}

void strobe_pageq_lost(struct strobe_pageq *q, uint64_t *pages, uint64_t *events)
{
	pthread_mutex_lock(&q->lock);
	*pages = q->lost_pages;
	*events = q->lost_events;
	pthread_mutex_unlock(&q->lock);
}

void strobe_pageq_put(struct strobe_pageq *q)
{
	unsigned i;
	int left;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	left = --q->refs;
	pthread_mutex_unlock(&q->lock);
	if (left > 0)
		return;
	for (i = 0; i < q->cap; i++)
		free(q->slots[i]);
	free(q->slots);
	if (q->kick_fd >= 0)
		close(q->kick_fd);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->space);
	free(q);
}
