/*
 * pageq.h - a per-CPU queue of ring-buffer pages between a live reader
 * thread (producer) and an event stream's feed (consumer).  Internal.
 *
 * The producer copies whole pages in; the consumer takes them one at a
 * time, and the page it holds stays valid until its next call, because
 * the stream decodes events in place.  While running the queue is bounded:
 * a full queue makes the reader wait, the kernel's buffer fills, and the
 * kernel counts what it drops in the page headers, which the stream
 * reports as lost events.  Once the capture stops, the drain may grow the
 * queue instead (the consumer may be the thread that asked to stop).  If
 * the consumer goes away, pages are dropped.
 *
 * A lossy queue (strobe_pageq_set_lossy: the stream of a capture that
 * also writes files, which a slow consumer must never hold up) drops a
 * page instead of waiting, and queues before the next page an empty page
 * that carries the number of events dropped (the page header's
 * lost-events count), so the stream reports the gap on that CPU's next
 * event.
 *
 * The producer also publishes an idle watermark: after it found the CPU's
 * buffer empty at trace time T, no event older than T will follow.  The
 * consumer reads the watermark together with "empty", under one lock, so a
 * page pushed just before a new watermark is never skipped over.
 *
 * Two references (reader and feed); the last strobe_pageq_put frees.
 */
#ifndef STROBE_SOURCE_PAGEQ_H
#define STROBE_SOURCE_PAGEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

struct strobe_pageq;

/* A queue of up to nr_pages pages of page_size bytes.  After each push,
 * watermark or end it adds 1 to wake_fd (an eventfd; -1: none).  Starts
 * with two references.  Returns NULL on ENOMEM. */
struct strobe_pageq *strobe_pageq_new(unsigned page_size, unsigned nr_pages,
				      int wake_fd) STROBE_HIDDEN;

/* Before the producer starts: drop pages when full instead of waiting.
 * commit_size is the page header's commit field width (4 or 8), needed
 * to count the dropped events and mark the next page. */
void strobe_pageq_set_lossy(struct strobe_pageq *q, unsigned commit_size) STROBE_HIDDEN;

/* Producer: copy one page in (len <= page_size; the rest is zeroed).
 * Waits while the queue is full, unless draining (then it grows),
 * abandoned or lossy (then the page is dropped).  0, or -ENOMEM. */
int strobe_pageq_push(struct strobe_pageq *q, const uint8_t *page, size_t len) STROBE_HIDDEN;
/*
 * Producer, the zero-copy path of a waiting (not lossy) queue: up to max
 * free page buffers, in queue order, into bufs (each page_size bytes), so
 * the producer can read pages straight into them; waits while the queue
 * is full, unless draining (then it grows).  Returns how many (>= 1), 0
 * if the consumer has gone (read the pages elsewhere and drop them),
 * -EINVAL for a lossy queue (use strobe_pageq_push), or -ENOMEM.  The
 * buffers stay the producer's until strobe_pageq_commit.
 */
int strobe_pageq_reserve(struct strobe_pageq *q, uint8_t **bufs, unsigned max) STROBE_HIDDEN;
/* Producer: the first len bytes of the buffers reserved last are pages
 * (a last partial page is zero-filled): queue them, waking the consumer
 * once.  len 0 gives them all back. */
void strobe_pageq_commit(struct strobe_pageq *q, size_t len) STROBE_HIDDEN;
/* Producer: no event older than ts will follow. */
void strobe_pageq_idle(struct strobe_pageq *q, uint64_t ts) STROBE_HIDDEN;
/* Tracing is off: from now on pushes never wait (the queue grows). */
void strobe_pageq_drain(struct strobe_pageq *q) STROBE_HIDDEN;
/* Producer: no more pages (a lossy queue still queues the count of the
 * pages it dropped last). */
void strobe_pageq_end(struct strobe_pageq *q) STROBE_HIDDEN;

/* Consumer: release the page handed out last, then take the next one.
 * 1 (*page set), 0 after the end, -EAGAIN when empty for now. */
int strobe_pageq_next(struct strobe_pageq *q, const uint8_t **page) STROBE_HIDDEN;
/* Consumer: the watermark seen by the last -EAGAIN of strobe_pageq_next. */
uint64_t strobe_pageq_idle_until(struct strobe_pageq *q) STROBE_HIDDEN;
/* Consumer gone: drop pages from now on (and wake a waiting producer);
 * once it returns, wake_fd is never written again. */
void strobe_pageq_abandon(struct strobe_pageq *q) STROBE_HIDDEN;

/* Consumer: ask the producer for what it has now (at most once until
 * the producer next pushes or publishes a watermark). */
void strobe_pageq_kick(struct strobe_pageq *q) STROBE_HIDDEN;
/* Producer: an eventfd that becomes readable when kicked (read it to
 * reset it), or -1. */
int strobe_pageq_kick_fd(const struct strobe_pageq *q) STROBE_HIDDEN;

/* Pages dropped because the consumer had gone. */
uint64_t strobe_pageq_dropped(struct strobe_pageq *q) STROBE_HIDDEN;
/* Lossy queues: pages dropped because the queue was full, and the events
 * in them (pages that could not be decoded count no events). */
void strobe_pageq_lost(struct strobe_pageq *q, uint64_t *pages, uint64_t *events) STROBE_HIDDEN;

/* Drop one reference; the last frees.  NULL ok. */
void strobe_pageq_put(struct strobe_pageq *q) STROBE_HIDDEN;

#endif
