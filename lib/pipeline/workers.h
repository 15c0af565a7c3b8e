/*
 * workers.h - the pipeline's worker threads (internal; workers.c): with
 * strobe_pipeline_opts.jobs > 1 the driver's own thread reads and merges
 * the inputs and hands every event, copied into batches, to worker
 * threads that each run a share of the consumers over a task model of
 * their own.  pipeline.c is the only user.
 */
#ifndef STROBE_PIPELINE_WORKERS_H
#define STROBE_PIPELINE_WORKERS_H

#include <stdbool.h>
#include <stdint.h>

#include <strobe/pipeline.h>

struct strobe_workers;

/*
 * Workers for consumers cons[0..nr_cons) (borrowed; their event and tick
 * hooks run on the workers, in this order within each): at most jobs
 * threads (and no more than consumers), consumers spread by their cost.
 * srcs (nr_srcs) as consumers see them: the first worker gets them as
 * they are (their models included); with need_model every other worker
 * gets a copy whose models it makes (loaded from each source's file)
 * and frees.  The threads start at strobe_workers_go.  0 or -errno.
 */
int strobe_workers_new(struct strobe_workers **out, int jobs,
		       const struct strobe_consumer *const *cons, int nr_cons,
		       const struct strobe_pipeline_source *srcs, int nr_srcs,
		       bool need_model, struct strobe_error *err);
/*
 * Before go: the file stream s (the run's one input) keeps its pages
 * valid until the workers are done with them, so events are handed over
 * without copying their payloads.  1 done, 0 s cannot (not a file's
 * stream: payloads are copied).  The workers must be ended (end or
 * free) before s is closed.
 */
int strobe_workers_hold(struct strobe_workers *w, struct strobe_stream *s);
/* The sources consumer i is started with (its worker's view). */
const struct strobe_pipeline_source *strobe_workers_sources(const struct strobe_workers *w,
							    int i);
/* Start the threads; active[i]: consumer i started and takes events. */
int strobe_workers_go(struct strobe_workers *w, const bool *active,
		      struct strobe_error *err);

/*
 * The driver's side, on its own thread.  event: ev (its payload copied)
 * from source src, raw its time in its source's clock; tick: a tick at
 * ts.  0, or -errno with *err set when a worker failed (a consumer
 * answered -errno, or YIELD): the threads are stopped then and the
 * error is the one of the earliest event.
 */
int strobe_workers_event(struct strobe_workers *w, const struct strobe_event *ev, int src,
			 uint64_t raw, struct strobe_error *err);
int strobe_workers_tick(struct strobe_workers *w, uint64_t ts, struct strobe_error *err);
/* Wait until the workers went through every event handed to them so far
 * (rare: at damage).  Returns the consumers still active then, or a
 * worker's -errno as for event. */
int strobe_workers_sync(struct strobe_workers *w, struct strobe_error *err);
/* Consumers not done yet (read without a lock). */
int strobe_workers_active(const struct strobe_workers *w);
/* The input ended (or the run stops): hand out what is batched, wait
 * for the workers.  0 or a worker's -errno as for event.  abort: the
 * run failed; the workers stop without the rest. */
int strobe_workers_end(struct strobe_workers *w, bool abort, struct strobe_error *err);
/* Stops the threads if still running; frees the models it made.  NULL ok. */
void strobe_workers_free(struct strobe_workers *w);

/* Threads a run used (for tests and messages): 0 before go. */
int strobe_workers_nr(const struct strobe_workers *w);

#endif
