/*
 * capture.h - live capture of a session's per-CPU ring buffers, into
 * files (the recorder) and/or a live event stream (analyses, callbacks,
 * `strobe top`, the Python module), from one set of reader threads.
 *
 * A capture reads the tracefs instance of a session (session.h): one
 * thread per CPU moves whole ring-buffer pages to the capture's sinks.
 *
 *   strobe_session_open(), _enable(), _set_pids() ...   what to trace
 *   strobe_capture_open(session, opts, &cap)
 *   strobe_capture_add_fds(cap, fds)        raw pages into per-CPU files
 *   strobe_capture_stream(cap, &stream)     and/or a live event stream
 *   strobe_capture_start(cap)               readers run, tracing on
 *   loop: strobe_stream_next() -> 1 event | -EAGAIN: strobe_stream_wait()
 *   strobe_capture_stop(cap)                tracing off, readers drain:
 *                                           files get every page, the
 *                                           stream hands out the rest and
 *                                           then ends (returns 0)
 *   strobe_stream_close(stream); strobe_capture_free(cap);
 *   strobe_session_close(session)           removes the instance
 *
 * The live stream is the same stream a trace file gives (stream.h): the
 * same events, decoded from the same pages, in timestamp order across
 * CPUs.  A quiet CPU's partial page is handed over every flush_ms, so an
 * event reaches the consumer within about 2 * flush_ms; a CPU that is
 * still busy holds back only events newer than its last page.  A consumer
 * that falls behind fills its queue, then the kernel's buffer; the kernel
 * then drops events, and the stream reports them as lost (strobe_event
 * .missed on the next event of that CPU, and strobe_stream_stats).
 * A capture that also writes files never waits for its stream: a full
 * queue drops that page for the stream only (reported the same way, as
 * a count on the CPU's next event), so the files lose nothing to a slow
 * consumer.
 *
 * The stream may be closed before or after the capture is freed; the
 * capture must not be freed before the session is stopped using it.
 * Threads: every call on one thread (the reader threads are internal).
 */
#ifndef STROBE_CAPTURE_H
#define STROBE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_session;
struct strobe_session_meta;
struct strobe_stream;
struct strobe_capture;	/* opaque */

/* Pages queued per CPU by default: 8 MiB with 4 KiB pages.  The stream
 * hands out a busy CPU's events only once every other CPU is known to
 * have nothing older; an idle CPU tells that with its ring buffer's clock
 * less 10 ms (events reserved earlier may commit later), so the queue
 * must hold 10 ms and more of the busiest CPU's events: on the 2-CPU VM's
 * getppid storm, about 100 MB/s a CPU, 10 ms is 1 MiB, the whole of the
 * old default's 256 pages, and a live no-op consumer lost 90 000 to
 * 290 000 of 4 M events at the kernel's default buffer where recording
 * to a file lost none. */
#define STROBE_CAPTURE_QUEUE_PAGES 2048

struct strobe_capture_opts {
	size_t size;		/* sizeof(struct strobe_capture_opts) */
	/* Live stream: hand over quiet CPUs' partial pages this often.
	 * 0 = 50 ms. */
	unsigned flush_ms;
	/* Live stream: pages queued per CPU between reader and consumer
	 * before the reader waits (the kernel's buffer then fills), or,
	 * with files too, drops pages for the stream.
	 * 0 = STROBE_CAPTURE_QUEUE_PAGES.  A page's memory is taken only
	 * once the queue first holds that many pages. */
	unsigned queue_pages;
	/* Event formats etc. for the stream; NULL = collected by
	 * strobe_capture_stream() from the session.  Borrowed: must outlive
	 * the capture. */
	const struct strobe_session_meta *meta;
	/* Do not leave the capture's own threads out of the trace
	 * (strobe_record_opts.keep_self). */
	bool keep_self;
};

/* A capture of session s (borrowed: must outlive the capture); opts may
 * be NULL (defaults).  0 or -errno with *err set. */
int strobe_capture_open(struct strobe_session *s, const struct strobe_capture_opts *opts,
			struct strobe_capture **out, struct strobe_error *err);

/* Before start: CPU i's raw pages are appended to fds[i] (nr_cpus of the
 * session; borrowed, must stay open until strobe_capture_stop).  Whole
 * pages only, except the last partial page of each CPU at stop. */
int strobe_capture_add_fds(struct strobe_capture *c, const int *fds,
			   struct strobe_error *err);

/* Before start: the live event stream of this capture (at most one).
 * Close it with strobe_stream_close(). */
int strobe_capture_stream(struct strobe_capture *c, struct strobe_stream **out,
			  struct strobe_error *err);

/* Start the readers, keep strobe's own threads (the readers and the
 * calling thread) out of the trace, clear the buffers and turn tracing
 * on.  0 or -errno with *err set. */
int strobe_capture_start(struct strobe_capture *c, struct strobe_error *err);

/* 0 while all is well, else a reader's -errno (e.g. -ENOSPC: a file
 * sink is full).  Cheap; call while running. */
int strobe_capture_error(const struct strobe_capture *c);

/* Turn tracing off and let the readers drain everything to the sinks.
 * Returns 0 or a reader's -errno with *err set.  Idempotent. */
int strobe_capture_stop(struct strobe_capture *c, struct strobe_error *err);

/* Events the kernel lost on CPU cpu so far (overwritten: "overrun", or
 * dropped when full, from per_cpu/cpuN/stats): the exact count behind
 * the stream's "lost, count unknown" marks.  0 or -errno. */
int strobe_capture_lost(struct strobe_capture *c, int cpu, uint64_t *lost,
			struct strobe_error *err);

/* Bytes of raw pages captured so far on CPU cpu. */
uint64_t strobe_capture_bytes(const struct strobe_capture *c, int cpu);

/* Stop if running, free.  NULL ok. */
void strobe_capture_free(struct strobe_capture *c);

#ifdef __cplusplus
}
#endif

#endif
