/*
 * stream-int.h - what the live capture and the file stream need of the
 * stream (internal).
 */
#ifndef STROBE_STREAM_INT_H
#define STROBE_STREAM_INT_H

#include <strobe/stream.h>
#include "../util/err.h"

/*
 * Attach the stream to its owner (a live capture): wake_fd is the fd
 * that strobe_stream_fd() returns and strobe_stream_wait() polls (an
 * eventfd, read to reset it); close_fn(ctx) runs in strobe_stream_close()
 * after the feeds are closed.  wake_fd -1: none.
 */
void strobe_stream_set_owner(struct strobe_stream *s, int wake_fd,
			     void (*close_fn)(void *ctx), void *ctx) STROBE_HIDDEN;

/*
 * A live stream, after strobe_stream_next() answered -EAGAIN: a time
 * below which every event has been handed out (its idle watermark), so
 * a consumer may treat that time as passed; 0 when not known yet.
 */
uint64_t strobe_stream_safe_ts(const struct strobe_stream *s) STROBE_HIDDEN;

/* Page bytes the stream has fetched so far (whole pages); may be read
 * from another thread while the stream runs (a progress display). */
uint64_t strobe_stream_bytes(const struct strobe_stream *s) STROBE_HIDDEN;

/* The event strobe_merge_next handed out last: its ts before it was put
 * on the merge's timeline (its own file's trace clock, as a stream of
 * that file alone gives it). */
uint64_t strobe_merge_last_raw(const struct strobe_merge *m) STROBE_HIDDEN;

/*
 * hook(ctx, ev) is told of each record shorter than its format's fields
 * reach (format-int.h: reach), the stream's one per-event check of
 * format damage; the file stream tells its file (a diagnostic).
 */
void strobe_stream_set_short_hook(struct strobe_stream *s,
				  void (*hook)(void *ctx, const struct strobe_event *ev),
				  void *ctx) STROBE_HIDDEN;

/*
 * The file stream's page feed (stream-file.c): its errors are the trace
 * file cursor's, which name the file and the CPU themselves, so the
 * stream does not put "cpu N: " before them as it does for other feeds.
 */
int strobe_file_feed_next(void *ctx, const uint8_t **page, uint64_t *offset,
			  struct strobe_error *err) STROBE_HIDDEN;

/*
 * A file stream whose pages stay valid as hold says (tracefile-int.h:
 * strobe_page_hold; borrowed, it must outlive the reading): an event's
 * data then lives until the hand-off it went into is released, not only
 * until the next strobe_stream_next.  0, or -ENOTSUP when a feed is not
 * a file's (nothing changed then).
 */
struct strobe_page_hold;
int strobe_stream_set_hold(struct strobe_stream *s, const struct strobe_page_hold *hold)
	STROBE_HIDDEN;
void strobe_file_feed_hold(void *ctx, const struct strobe_page_hold *hold) STROBE_HIDDEN;

#endif
