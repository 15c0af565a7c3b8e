/*
 * ring.c - a flight recorder's per-CPU ring of pages (see ring.h).
 *
 * How it works: slots[seq % nr_pages] holds page seq.  The reader pushes
 * at head; when the ring is full the push overwrites page first (first
 * moves on), unless a snapshot pinned it, in which case the push waits on
 * `moved` until the snapshot released it or the ring was closed.  The
 * memory is mmap'd once (MAP_NORESERVE, anonymous, transparent huge
 * pages asked for): the kernel gives it pages (2 MiB ones where it can) as
 * the ring first writes them, so an idle recorder costs what it received,
 * rounded up to a huge page, never more than nr_pages * page_size.
 *
 * Flushes use a generation count: strobe_ring_flush asks for generation
 * asked+1 (eventfd write), the reader answers by setting done = asked
 * after it pushed its partial page.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"
#include "../stream/page.h"

struct strobe_ring {
	pthread_mutex_t lock;
	pthread_cond_t moved;		/* a pin moved or went, or closed */
	pthread_cond_t flushed;		/* done moved on, or closed */
	unsigned page_size, commit_size;
	size_t nr_pages;
	uint8_t *mem;			/* nr_pages * page_size, mmap'd */
	size_t map_len;
	uint64_t first, head;		/* held: [first, head) */
	bool pinned;
	uint64_t pin;			/* with pinned: first page kept */
	bool closed;
	int kick_fd;			/* eventfd: a flush is wanted */
	uint64_t asked, done;		/* flush generations */
	struct strobe_ring_stats st;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct strobe_ring *strobe_ring_new(unsigned page_size, unsigned commit_size,
				    size_t nr_pages)
{
	struct strobe_ring *r;

	if (!page_size || !nr_pages || (commit_size != 4 && commit_size != 8) ||
	    nr_pages > SIZE_MAX / page_size)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->page_size = page_size;
	r->commit_size = commit_size;
	r->nr_pages = nr_pages;
	r->map_len = nr_pages * page_size;
	r->mem = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	/* huge pages where the kernel allows them (THP "madvise"): the first
	 * pass over a ring otherwise takes a page fault every 4 KiB, which
	 * was the flight recorder's main cost over strobe record's splice */
	if (r->mem != MAP_FAILED)
		(void)madvise(r->mem, r->map_len, MADV_HUGEPAGE);
	r->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->mem == MAP_FAILED || r->kick_fd < 0) {
		if (r->mem != MAP_FAILED)
			munmap(r->mem, r->map_len);
		if (r->kick_fd >= 0)
			close(r->kick_fd);
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->moved, NULL);
	pthread_cond_init(&r->flushed, NULL);
	return r;
}

void strobe_ring_free(struct strobe_ring *r)
{
	if (!r)
		return;
	munmap(r->mem, r->map_len);
	close(r->kick_fd);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->moved);
	pthread_cond_destroy(&r->flushed);
	free(r);
}

unsigned strobe_ring_page_size(const struct strobe_ring *r)
{
	return r->page_size;
}

size_t strobe_ring_nr_pages(const struct strobe_ring *r)
{
	return r->nr_pages;
}

int strobe_ring_push(struct strobe_ring *r, const uint8_t *page, size_t len)
{
	uint8_t *slot;
	uint64_t t0 = 0;

	if (len > r->page_size)
		len = r->page_size;
	pthread_mutex_lock(&r->lock);
	/* full, and the page to forget is pinned: wait for the snapshot */
	while (!r->closed && r->head - r->first == r->nr_pages && r->pinned &&
	       r->pin <= r->first) {
		if (!t0) {
			t0 = mono_ns();
			r->st.waits++;
		}
		pthread_cond_wait(&r->moved, &r->lock);
	}
	if (t0)
		r->st.wait_ns += mono_ns() - t0;
	if (r->head - r->first == r->nr_pages) {
		if (r->pinned && r->pin <= r->first) {
			/* closed while pinned: the snapshot keeps its page;
			 * this one is not kept (the capture is ending) */
			pthread_mutex_unlock(&r->lock);
			return 0;
		}
		r->first++;
		r->st.overwritten++;
	}
	slot = r->mem + (size_t)(r->head % r->nr_pages) * r->page_size;
	/* the copy under the lock: a snapshot reads slots under it too */
	memcpy(slot, page, len);
	if (len < r->page_size)
		memset(slot + len, 0, r->page_size - len);
	if (r->head < r->nr_pages)
		r->st.resident += r->page_size;
	r->head++;
	r->st.pushed++;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

int strobe_ring_kick_fd(const struct strobe_ring *r)
{
	return r->kick_fd;
}

void strobe_ring_flushed(struct strobe_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->done = r->asked;
	pthread_cond_broadcast(&r->flushed);
	pthread_mutex_unlock(&r->lock);
}

int strobe_ring_flush(struct strobe_ring *r, unsigned timeout_ms)
{
	uint64_t one = 1, gen;
	struct timespec dl;
	int e = 0;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&r->lock);
	gen = ++r->asked;
	if (!r->closed && write(r->kick_fd, &one, sizeof(one)) < 0)
		e = -errno;
	while (e == 0 && !r->closed && r->done < gen)
		if (pthread_cond_timedwait(&r->flushed, &r->lock, &dl) == ETIMEDOUT)
			e = -ETIMEDOUT;
	pthread_mutex_unlock(&r->lock);
	return e;
}

void strobe_ring_close(struct strobe_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->closed = true;
	pthread_cond_broadcast(&r->moved);
	pthread_cond_broadcast(&r->flushed);
	pthread_mutex_unlock(&r->lock);
}

void strobe_ring_span(struct strobe_ring *r, uint64_t *first, uint64_t *head)
{
	pthread_mutex_lock(&r->lock);
	*first = r->first;
	*head = r->head;
	pthread_mutex_unlock(&r->lock);
}

uint64_t strobe_ring_pin(struct strobe_ring *r)
{
	uint64_t s;

	pthread_mutex_lock(&r->lock);
	r->pinned = true;
	s = r->pin = r->first;
	pthread_mutex_unlock(&r->lock);
	return s;
}

int strobe_ring_copy(struct strobe_ring *r, uint64_t seq, uint8_t *out)
{
	int e = 0;

	pthread_mutex_lock(&r->lock);
	if (seq < r->first || seq >= r->head)
		e = -ESRCH;
	else
		memcpy(out, r->mem + (size_t)(seq % r->nr_pages) * r->page_size, r->page_size);
	pthread_mutex_unlock(&r->lock);
	return e;
}

void strobe_ring_release(struct strobe_ring *r, uint64_t seq)
{
	pthread_mutex_lock(&r->lock);
	if (r->pinned && seq > r->pin) {
		r->pin = seq;
		pthread_cond_broadcast(&r->moved);
	}
	pthread_mutex_unlock(&r->lock);
}

void strobe_ring_unpin(struct strobe_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->pinned = false;
	pthread_cond_broadcast(&r->moved);
	pthread_mutex_unlock(&r->lock);
}

void strobe_ring_stats(struct strobe_ring *r, struct strobe_ring_stats *st)
{
	pthread_mutex_lock(&r->lock);
	*st = r->st;
	pthread_mutex_unlock(&r->lock);
}

int strobe_ring_page_times(const uint8_t *page, unsigned page_size, unsigned commit_size,
			   uint64_t *first, uint64_t *last)
{
	struct strobe_page p;
	struct strobe_page_rec rec;
	int n = 0, e;

	*first = *last = 0;
	if (strobe_page_init(&p, page, page_size, commit_size, NULL) < 0)
		return -EINVAL;
	while ((e = strobe_page_next(&p, &rec, NULL)) == 1) {
		if (!n++)
			*first = rec.ts;
		*last = rec.ts;
	}
	if (e < 0)
		return -EINVAL;
	return n > 0;
}

int strobe_ring_trim_page(uint8_t *page, unsigned page_size, unsigned commit_size,
			  uint64_t from_ts, uint64_t *dropped)
{
	struct strobe_page p;
	struct strobe_page_rec rec;
	uint32_t hdr_size = 8 + commit_size, cut, keep;
	uint64_t base, ts;
	int e;

	if (strobe_page_init(&p, page, page_size, commit_size, NULL) < 0)
		return -EINVAL;
	for (;;) {
		e = strobe_page_next(&p, &rec, NULL);
		if (e < 0)
			return -EINVAL;
		if (e == 0) {	/* every event is older */
			memset(page + 8, 0, commit_size);
			return 0;
		}
		if (rec.ts >= from_ts)
			break;
		(*dropped)++;
	}
	cut = rec.offset - hdr_size;	/* data bytes before the event */
	if (cut == 0)
		return 1;		/* nothing before it: as it was */
	/* the running time before this event: its time less its delta */
	base = rec.ts - (strobe_rd32(page + rec.offset) >> 5);
	keep = p.len - cut;
	memmove(page + hdr_size, page + rec.offset, keep);
	memset(page + hdr_size + keep, 0, page_size - hdr_size - keep);
	ts = htole64(base);
	memcpy(page, &ts, 8);
	if (commit_size == 8) {
		uint64_t c = htole64(keep);

		memcpy(page + 8, &c, 8);
	} else {
		uint32_t c = htole32(keep);

		memcpy(page + 8, &c, 4);
	}
	return 1;
}
