/*
 * pageq.c - the page queue between a live reader and a stream feed (see
 * pageq.h).  A ring of page pointers under one mutex: pages are copied
 * outside the lock, so the lock is held only to move indices.  Page
 * buffers are allocated as the ring first fills and then reused.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "pageq.h"

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

int strobe_pageq_push(struct strobe_pageq *q, const uint8_t *page, size_t len)
{
	uint8_t **slot;

	if (len > q->page_size)
		len = q->page_size;
	pthread_mutex_lock(&q->lock);
	while (q->head - q->tail == q->cap && !q->abandoned) {
		if (q->draining) {
			if (grow(q) < 0) {
				pthread_mutex_unlock(&q->lock);
				return -ENOMEM;
			}
			break;
		}
		pthread_cond_wait(&q->space, &q->lock);
	}
	if (q->abandoned) {
		q->dropped++;
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	slot = &q->slots[q->head % q->cap];
	if (!*slot && !(*slot = malloc(q->page_size))) {
		pthread_mutex_unlock(&q->lock);
		return -ENOMEM;
	}
	/* the consumer never touches slots in [tail+held, head): copy unlocked;
	 * a grow happens only on this thread, so the buffer stays put */
	pthread_mutex_unlock(&q->lock);
	memcpy(*slot, page, len);
	if (len < q->page_size)
		memset(*slot + len, 0, q->page_size - len);
	pthread_mutex_lock(&q->lock);
	/* wake the consumer only when it may have found this queue empty:
	 * a consumer still working through queued pages needs no system
	 * call and no context switch per page */
	if (q->head - q->tail == (q->held ? 1u : 0u))
		wake(q);
	q->head++;
	q->kicked = false;
	pthread_mutex_unlock(&q->lock);
	return 0;
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
	pthread_mutex_lock(&q->lock);
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
