/*
 * live.h - live capture of a tracefs instance's per-CPU ring buffers
 * (internal).  One reader thread per CPU moves whole pages from
 * per_cpu/cpuN/trace_pipe_raw into its sinks: a file descriptor (with
 * splice(2), so page data never passes through user space when that is
 * the only sink: the recorder's temporary files) and/or a page queue
 * (pageq.h: a live event stream).  With flush_ms, each reader also takes
 * the partial page of its CPU every flush_ms and publishes how long the
 * CPU has been idle, so a live stream sees a quiet CPU's events soon and
 * can order the busy CPUs' events against it.
 *
 * Lifecycle: strobe_live_open() (opens the per-CPU files) ->
 * strobe_live_start() (threads) -> tracing runs -> turn tracing off ->
 * strobe_live_stop() (readers drain what is left, including the last
 * partial page of each CPU, and exit) -> strobe_live_free().
 */
#ifndef STROBE_SOURCE_LIVE_H
#define STROBE_SOURCE_LIVE_H

#include <stdint.h>
#include <sys/types.h>

#include "../util/err.h"

struct strobe_live;
struct strobe_pageq;
struct strobe_ring;

/* Where each CPU's pages go (either or both). */
struct strobe_live_sinks {
	const int *fds;		/* per CPU: raw pages appended (not owned;
				 * must stay open until _stop); NULL: none */
	struct strobe_pageq *const *queues;	/* per CPU: pages copied in;
				 * the reader drops its reference at free */
	unsigned flush_ms;	/* 0: full pages only until stop; else also
				 * partial pages and idle watermarks */
	struct strobe_ring *const *rings;	/* per CPU: a flight recorder's
				 * ring (ring.h; pages copied in, partial
				 * page on its flush request; closed when the
				 * reader ends; not owned); NULL: none */
};

/*
 * Open the readers of `nr_cpus` CPUs of the instance at `instance_dir`.
 * page_size is the ring buffer's sub-buffer size.  Free with
 * strobe_live_free().  Returns 0 or -errno with *err set.
 */
int strobe_live_open(const char *instance_dir, int nr_cpus,
		     const struct strobe_live_sinks *sinks, unsigned page_size,
		     struct strobe_live **out, struct strobe_error *err) STROBE_HIDDEN;

/* Start one thread per CPU (all signals blocked in them).  0 or -errno. */
int strobe_live_start(struct strobe_live *l, struct strobe_error *err) STROBE_HIDDEN;

/*
 * Thread ids of the running readers (at most max, into tids), so the
 * recorder can keep its own threads out of the trace.  Returns the count.
 */
int strobe_live_tids(const struct strobe_live *l, pid_t *tids, int max) STROBE_HIDDEN;

/*
 * 0 while every reader is fine, else the first reader's -errno (e.g.
 * -ENOSPC: its sink is full and it stopped).  Cheap; call while running.
 */
int strobe_live_error(const struct strobe_live *l) STROBE_HIDDEN;

/*
 * Wake the readers, let each drain what its buffer still holds (call
 * after tracing is off so the drain ends) and join them.  Returns 0 or the
 * first reader's -errno with *err set ("cpu1: No space left on device").
 */
int strobe_live_stop(struct strobe_live *l, struct strobe_error *err) STROBE_HIDDEN;

/* Bytes written so far into CPU cpu's sink. */
uint64_t strobe_live_bytes(const struct strobe_live *l, int cpu) STROBE_HIDDEN;

/* Stop if running, close the per-CPU files, free.  NULL ok. */
void strobe_live_free(struct strobe_live *l) STROBE_HIDDEN;

#endif
