/*
 * ring.h - a flight recorder's per-CPU ring of whole ring-buffer pages in
 * strobe's own memory (internal; ring.c).
 *
 * This kernel has no ftrace snapshot buffer, so strobe keeps the recent
 * past itself: a live reader thread (live.c) copies each page it reads
 * into its CPU's ring, which holds the newest nr_pages pages and forgets
 * the oldest.  Memory is one allocation of nr_pages * page_size made at
 * creation (anonymous memory: resident only once written), never more.
 *
 * Pages are numbered per CPU from 0 in the order pushed (seq); the ring
 * holds [first, head) with head - first <= nr_pages.
 *
 * A snapshot reads the ring while the reader goes on pushing: it pins
 * the oldest page it still needs (strobe_ring_pin), copies pages out in
 * order and moves the pin forward as it goes (strobe_ring_release).  A
 * push that would overwrite a pinned page waits until the snapshot moved
 * past it (the kernel's own buffer then absorbs the events, and beyond
 * that the kernel drops them and counts them, as per_cpu/cpuN/stats
 * overrun); the wait is counted (strobe_ring_stats).  Once the ring is
 * closed (strobe_ring_close: the capture is ending) pushes never wait.
 *
 * Flush: the snapshot needs the CPU's partial page too.  strobe_ring_flush
 * asks the reader (through kick_fd, which the reader polls) to read it
 * now, and waits until the reader said it did (strobe_ring_flushed).
 *
 * Threads: one producer (the reader), any number of other threads for the
 * rest; every call takes the ring's lock, except strobe_ring_kick_fd.
 */
#ifndef STROBE_SOURCE_RING_H
#define STROBE_SOURCE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

struct strobe_ring;

struct strobe_ring_stats {
	uint64_t pushed;	/* pages pushed since creation */
	uint64_t overwritten;	/* pages forgotten to make room */
	uint64_t waits;		/* pushes that waited for a snapshot */
	uint64_t wait_ns;	/* time they waited */
	uint64_t resident;	/* bytes of the ring ever written (its RSS) */
};

/* A ring of nr_pages pages of page_size bytes (commit_size: the page
 * header's commit field width, 4 or 8).  NULL on ENOMEM/EINVAL. */
struct strobe_ring *strobe_ring_new(unsigned page_size, unsigned commit_size,
				    size_t nr_pages) STROBE_HIDDEN;
/* NULL ok.  No thread may use r any more. */
void strobe_ring_free(struct strobe_ring *r) STROBE_HIDDEN;

unsigned strobe_ring_page_size(const struct strobe_ring *r) STROBE_HIDDEN;
size_t strobe_ring_nr_pages(const struct strobe_ring *r) STROBE_HIDDEN;

/* Producer: copy one page in (len <= page_size; the rest is zeroed),
 * forgetting the oldest page when full; waits while that page is pinned
 * (see the head comment).  Always 0 (nothing can fail once made). */
int strobe_ring_push(struct strobe_ring *r, const uint8_t *page, size_t len) STROBE_HIDDEN;

/* The eventfd a reader polls: readable when a flush is asked for.  The
 * reader reads it, pushes its partial page and calls strobe_ring_flushed. */
int strobe_ring_kick_fd(const struct strobe_ring *r) STROBE_HIDDEN;
void strobe_ring_flushed(struct strobe_ring *r) STROBE_HIDDEN;

/* Ask the reader for its partial page and wait up to timeout_ms for it.
 * 0, or -ETIMEDOUT.  A closed ring answers 0 at once (its reader drained
 * everything before it ended). */
int strobe_ring_flush(struct strobe_ring *r, unsigned timeout_ms) STROBE_HIDDEN;

/* Producer gone or going: pushes never wait from now on; flush answers 0. */
void strobe_ring_close(struct strobe_ring *r) STROBE_HIDDEN;

/* Pages held now: [*first, *head). */
void strobe_ring_span(struct strobe_ring *r, uint64_t *first, uint64_t *head) STROBE_HIDDEN;

/* Pin the oldest page held: returns its seq (the ring then keeps every
 * page from it on until released).  One pin at a time. */
uint64_t strobe_ring_pin(struct strobe_ring *r) STROBE_HIDDEN;
/* Copy page seq (first <= seq < head, and seq >= the pin) into out
 * (page_size bytes).  Returns 0, or -ESRCH if seq is not held. */
int strobe_ring_copy(struct strobe_ring *r, uint64_t seq, uint8_t *out) STROBE_HIDDEN;
/* Move the pin to seq (pages before it may be overwritten again). */
void strobe_ring_release(struct strobe_ring *r, uint64_t seq) STROBE_HIDDEN;
void strobe_ring_unpin(struct strobe_ring *r) STROBE_HIDDEN;

void strobe_ring_stats(struct strobe_ring *r, struct strobe_ring_stats *st) STROBE_HIDDEN;

/*
 * Trimming a snapshot to the span every CPU covers (pure, no ring).
 *
 * strobe_ring_page_times: the time of the first and last event of a page
 * (0 and 0 when it has none).  Returns 1 with events, 0 without, -EINVAL
 * if the page is malformed.
 *
 * strobe_ring_trim_page: rewrite `page` in place so that it starts at its
 * first event at or after from_ts: the header's timestamp becomes the
 * running time just before that event and the data before it is cut
 * (time records before it are folded into that timestamp, so every
 * remaining event keeps its time).  A lost-events mark goes with the cut
 * part.  *dropped counts the events removed.  Returns 1 if events remain,
 * 0 if none do (the page should be left out), -EINVAL if malformed.
 */
int strobe_ring_page_times(const uint8_t *page, unsigned page_size, unsigned commit_size,
			   uint64_t *first, uint64_t *last) STROBE_HIDDEN;
int strobe_ring_trim_page(uint8_t *page, unsigned page_size, unsigned commit_size,
			  uint64_t from_ts, uint64_t *dropped) STROBE_HIDDEN;

/*
 * Before start: CPU i's pages are also copied into rings[i] (nr_cpus of
 * the session; borrowed: they must outlive the capture's readers, i.e.
 * until strobe_capture_stop).  Defined in capture.c.
 */
struct strobe_capture;
int strobe_capture_add_rings(struct strobe_capture *c, struct strobe_ring *const *rings,
			     struct strobe_error *err) STROBE_HIDDEN;

#endif
