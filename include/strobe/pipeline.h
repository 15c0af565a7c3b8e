/*
 * pipeline.h - the one event loop: sources in, task models updated,
 * consumers out (lib/pipeline/).
 *
 * Every command, the Python module and the exporters run through a
 * pipeline, as perf's tools run through perf_session: a command is a
 * consumer, never a loop of its own.  A pipeline owns
 *
 *   - its sources: one trace file; several files merged on one timeline
 *     by their host clocks (strobe_merge); a live stream of a capture;
 *     and sources of records that are not ftrace pages (a BPF ring
 *     buffer, perf samples, synthetic records in tests), each merged in
 *     time order into the timeline of the host it belongs to;
 *   - one task model per host, updated by every event before any
 *     consumer sees it (loaded from the file's process table, or the
 *     live session's);
 *   - the stop conditions: end of input, a duration, a target process's
 *     exit, a signal flag, every consumer done, strobe_pipeline_stop();
 *   - pauses: a consumer may ask the run to return to its caller (a batch
 *     is full, a live input is idle) and the caller runs it again to go
 *     on, so a binding can fill batches in the loop and hand them out
 *     between runs (the Python module does);
 *   - ticks every tick_ns of trace time (files and live alike; live, a
 *     quiet machine still ticks about every tick_ns of wall time);
 *   - the damage policy (strobe-damage(7)): damaged or unreachable data is
 *     skipped and counted, each source's diagnostics say what and where
 *     (strobe_pipeline_diag), and the run completes; with `strict` the
 *     first damage fails the run instead.
 *
 * Consumers share one interface: start (told every source's formats,
 * model and recording), event, tick, finish.  Analyses
 * (strobe_analysis_consumer, analysis.h), report writers, the SQL and
 * ClickHouse sinks and callbacks are consumers.
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_PIPELINE_H
#define STROBE_PIPELINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <strobe/stream.h>
#include <strobe/tracefile.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_capture;
struct strobe_model;
struct strobe_pipeline;

/* ---- what consumers are told ------------------------------------------ */

/* One source as consumers see it (index = the `source` of each event). */
struct strobe_pipeline_source {
	int index;
	const char *host;		/* host name (files: strobe_merge_host
					 * rules; live: NULL) */
	struct strobe_tracefile *tf;	/* its file, NULL when live */
	struct strobe_formats *formats;	/* its event formats (records of
					 * its record sources included) */
	struct strobe_model *model;	/* its task model, updated before each
					 * event reaches a consumer; NULL when
					 * no consumer asked for one */
	bool live;
};

/* What strobe_consumer.event (and .idle) return besides 0 (go on) and
 * -errno. */
#define STROBE_CONSUMER_DONE 1	/* this consumer wants no more events */
#define STROBE_CONSUMER_YIELD 2	/* pause: once every consumer has this event,
				 * strobe_pipeline_run returns
				 * STROBE_PIPELINE_YIELD; run it again to go
				 * on with the next event */

/* A consumer needs the task model (STROBE_CONSUMER_MODEL in flags). */
#define STROBE_CONSUMER_MODEL 0x1u
/* Events reach this consumer with ev->ts in their own source's trace
 * clock (as a run over that file alone gives them), not on the merged
 * timeline: for a consumer that measures one host (an analysis per
 * source).  The order is still the timeline's; ticks are on the
 * timeline.  Nothing changes with one file, live, or raw_time. */
#define STROBE_CONSUMER_SOURCE_TIME 0x2u

struct strobe_consumer {
	size_t size;		/* sizeof(struct strobe_consumer) */
	const char *name;	/* for messages: "cputop,syscalls", "report" */
	unsigned flags;		/* STROBE_CONSUMER_* */
	/* Once, before the first event: every source (borrowed for the
	 * run).  0 or -errno (the run fails with *err). May be NULL. */
	int (*start)(const struct strobe_pipeline_source *sources, int nr,
		     void *arg, struct strobe_error *err);
	/* Every event in timeline order (ev->ts on the timeline: raw trace
	 * time for one file or live, wall-clock ns for several files with
	 * clock pairings), `source` its source's index.  Returns 0,
	 * STROBE_CONSUMER_DONE, STROBE_CONSUMER_YIELD or -errno (the run
	 * fails: fill *err, or the pipeline says which consumer failed). */
	int (*event)(const struct strobe_event *ev, int source, void *arg,
		     struct strobe_error *err);
	/* Every tick_ns of trace time: everything up to ts (timeline) was
	 * handed out.  0 or -errno.  May be NULL. */
	int (*tick)(uint64_t ts, void *arg, struct strobe_error *err);
	/* Once, after the last event (also when the run stopped early),
	 * unless start failed.  Diagnostics of the sources are complete by
	 * then.  0 or -errno.  May be NULL. */
	int (*finish)(void *arg, struct strobe_error *err);
	void *arg;
	/* Whenever the input has nothing ready (a live stream waiting for
	 * its CPUs, a record source answering -EAGAIN), after the stop
	 * conditions were checked and before the pipeline waits (up to
	 * 100 ms) for more.  Returns 0 (wait), STROBE_CONSUMER_YIELD (return
	 * to the caller now: events held back are handed out, signals
	 * looked at), STROBE_CONSUMER_DONE or -errno.  May be NULL; files
	 * never wait. */
	int (*idle)(void *arg, struct strobe_error *err);
	/* With jobs > 1: this consumer's share of the work per event, for
	 * spreading consumers over the worker threads (0: 1). */
	unsigned cost;
	/*
	 * Parts, with jobs > 1 over a file: a consumer whose work on an
	 * event depends only on that event, its source and the task model
	 * (strobe report, which prints each event; not one that measures
	 * between events) runs as one part on every worker thread (jobs - 1
	 * of them: the calling thread reads), and part
	 * k of nr takes the events of batches k, k + nr, k + 2 nr, ... (a
	 * batch: up to a thousand events in timeline order).  part_new(arg,
	 * k, nr, sources, nr_sources, err) makes part k (1 <= k < nr) after
	 * start, for a worker whose view of the sources (its own task
	 * models) is given: its arg for event, or NULL and *err.  Part 0 is
	 * arg itself.  part_flush(part, keep) follows each batch a part went
	 * through, in the batches' order across the parts: write out what
	 * the part made of the batch, or with keep false drop it (the part
	 * went ahead while another part answered DONE in an earlier batch,
	 * after which one thread would have given it nothing).  Returns 0,
	 * STROBE_CONSUMER_DONE or -errno.  part_free frees a part (after
	 * finish).  start, idle and finish run
	 * on arg alone; a consumer with a tick hook is not split.  All three
	 * NULL: one part (the calling order of every event, as ever).
	 */
	void *(*part_new)(void *arg, int k, int nr, const struct strobe_pipeline_source *sources,
			  int nr_sources, struct strobe_error *err);
	int (*part_flush)(void *part, bool keep, struct strobe_error *err);
	void (*part_free)(void *part);
};

/* ---- the pipeline ------------------------------------------------------- */

struct strobe_pipeline_opts {
	size_t size;		/* sizeof(struct strobe_pipeline_opts), or 0 */
	/* Live: stop after this long (0: no limit). */
	int timeout_ms;
	/* > 0: stop when this process exits (a child is not reaped). */
	pid_t target;
	/* Stop when *stop becomes non-zero (a signal handler sets it). */
	volatile sig_atomic_t *stop;
	/* Ticks every tick_ns of trace time (0: none). */
	uint64_t tick_ns;
	/* Any damage fails the run at once (-EBADMSG) instead of being
	 * skipped with a diagnostic: damage found at open before any
	 * consumer starts, a damaged page when it is met, and damage only
	 * the whole run shows (time going backwards, records shorter than
	 * their format) after the last event, before any finish. */
	bool strict;
	/* Timeline: keep raw timestamps even when several files carry clock
	 * pairings (strobe_merge_opts.raw). */
	bool raw_time;
	/*
	 * Housekeeping on the calling thread about every poll_ms of wall
	 * time (0: 100), between events and while waiting for them: a
	 * recorder's /proc scans, wall-clock refreshes.  poll returns 0, > 0
	 * to end the run (a live capture is stopped and drained first; the
	 * run then returns STROBE_PIPELINE_DONE) or -errno to fail it.
	 * Called while draining too.  May be NULL.
	 */
	unsigned poll_ms;
	int (*poll)(void *arg, struct strobe_error *err);
	void *poll_arg;
	/*
	 * Threads for a run over files (0 or 1: the calling thread alone,
	 * as before).  With jobs > 1 the calling thread reads and merges
	 * the files (the stop conditions, the damage policy, diagnostics
	 * stay there) and copies each event into batches; up to jobs worker
	 * threads each run a share of the consumers, in the calling order,
	 * with a task model of their own updated by every event.  Every
	 * consumer sees every event, tick and model state in the same order
	 * as with one thread, so results are the same.  Consumers' event
	 * and tick hooks then run on a worker thread (start and finish on
	 * the caller's): they must not share mutable state with other
	 * consumers or the caller during the run, and must not answer
	 * STROBE_CONSUMER_YIELD (the run fails with -EINVAL).  Live streams
	 * and record sources run on the calling thread alone whatever jobs
	 * says.  strobe_cpus_usable's count is a good value
	 * (strobe-pipeline(3)).
	 */
	int jobs;
};

/* The CPUs this process may use: its affinity mask's count, capped by
 * its cgroup v2 cpu.max quota (and its ancestors'), rounded up; >= 1.
 * The CLI's default for jobs (lib/util/cpus.c). */
int strobe_cpus_usable(void);

/* New, empty pipeline (opts may be NULL).  0 or -ENOMEM. */
int strobe_pipeline_new(const struct strobe_pipeline_opts *opts,
			struct strobe_pipeline **out, struct strobe_error *err);
/* Closes what the pipeline took over (streams, record sources, models it
 * made), not the trace files.  NULL ok. */
void strobe_pipeline_free(struct strobe_pipeline *p);

/*
 * Add a trace file (borrowed: it must outlive the pipeline); sopts (may
 * be NULL: every buffer and CPU) as for strobe_stream_open_file.
 * Several files are merged on one timeline (strobe_merge).  A file that
 * is the same as one added before (same device and inode, through a link
 * say) is read once: the earlier source's index is returned and a notice
 * (STROBE_TF_DIAG_SAME_FILE) is added.  Returns the source index (>= 0)
 * or -errno.  Not with a live stream.
 */
int strobe_pipeline_add_file(struct strobe_pipeline *p, struct strobe_tracefile *tf,
			     const struct strobe_stream_opts *sopts,
			     struct strobe_error *err);

/*
 * Add a stream the caller opened (borrowed: close it after the pipeline),
 * usually the live stream of capture cap (borrowed, may be NULL): on a
 * timeout, target exit, *stop or strobe_pipeline_stop() the capture is
 * stopped and what it captured still goes to the consumers before the
 * run ends.  model (borrowed, may be NULL) is the task model to update
 * (strobe_model_load_proc, say); the pipeline makes an empty one when a
 * consumer needs it and none is given.  One stream per pipeline, not
 * with files.  Returns its source index.
 */
int strobe_pipeline_add_stream(struct strobe_pipeline *p, struct strobe_stream *s,
			       struct strobe_capture *cap, struct strobe_model *model,
			       struct strobe_error *err);

/*
 * Use model m (borrowed) as source `source`'s task model instead of one
 * the pipeline would make (for a file: loaded from its process table),
 * so that it outlives the pipeline (tables of analyses point into it).
 * Before the run.  0 or -EINVAL.
 */
int strobe_pipeline_set_model(struct strobe_pipeline *p, int source, struct strobe_model *m,
			      struct strobe_error *err);

/*
 * Records that are not ftrace pages (see strobe_formats_declare for
 * their formats): next() hands out one record at a time, in time order
 * for this source, filling ev->ts (the host's trace clock), ev->data and
 * ev->size (the payload: the 8-byte common header of strobe_formats_
 * declare first, common_type holding the declared format's id), ev->cpu;
 * the pipeline fills type, pid and format from the payload.  It returns
 * 1, 0 at the end, -EAGAIN when a live source has nothing yet, or
 * -errno (damage: skipped and counted unless strict).  *ev's pointers
 * stay valid until the next call.  idle_until (may be NULL) as for page
 * feeds.  close (may be NULL) runs at strobe_pipeline_free.  Live, once
 * the capture was stopped and its stream has ended, a record source
 * that answers -EAGAIN has ended too (what it holds came after the
 * stop).
 */
struct strobe_record_source {
	size_t size;		/* sizeof(struct strobe_record_source) */
	const char *name;	/* for messages: "bpf", "perf", "synthetic" */
	int (*next)(void *ctx, struct strobe_event *ev, struct strobe_error *err);
	uint64_t (*idle_until)(void *ctx);
	void (*close)(void *ctx);
	void *ctx;
};
/* Merge records of rs (copied; ctx taken over) into the timeline of
 * source `source` (its formats and model).  0 or -errno. */
int strobe_pipeline_add_records(struct strobe_pipeline *p, int source,
				const struct strobe_record_source *rs,
				struct strobe_error *err);

/* Add a consumer (copied; arg borrowed), in calling order.  0 or -errno. */
int strobe_pipeline_add_consumer(struct strobe_pipeline *p, const struct strobe_consumer *c,
				 struct strobe_error *err);

/* What ended strobe_pipeline_run(). */
enum strobe_pipeline_end {
	STROBE_PIPELINE_END = 0,	/* the input ended (files read, capture
					 * drained) */
	STROBE_PIPELINE_DONE,		/* every consumer was done, or
					 * strobe_pipeline_stop() */
	STROBE_PIPELINE_TIMEOUT,	/* timeout_ms passed (drained) */
	STROBE_PIPELINE_TARGET_EXIT,	/* the target exited (drained) */
	STROBE_PIPELINE_SIGNAL,		/* *stop was set (drained) */
	STROBE_PIPELINE_YIELD,		/* paused: a consumer returned
					 * STROBE_CONSUMER_YIELD; not ended */
};

/*
 * Run: start every consumer, hand out every event, tick, finish every
 * consumer that started.  Returns an enum strobe_pipeline_end, or -errno
 * with *err set: a consumer failed, a live capture failed, damage in
 * strict mode (-EBADMSG, naming the source, CPU and offset), out of
 * memory.  Damage outside strict mode is not an error: the run goes on
 * and the sources' diagnostics say what was skipped.  Once per pipeline,
 * except that after STROBE_PIPELINE_YIELD the run is paused, not over:
 * calling strobe_pipeline_run again goes on from the next event (no
 * consumer is started again; the timeout counts from the first call),
 * until it returns anything else.  A paused pipeline may also be freed:
 * its consumers are not finished then.
 */
int strobe_pipeline_run(struct strobe_pipeline *p, struct strobe_error *err);

/* Ask a running pipeline to end (from a consumer's callback, or another
 * thread: async-signal-safe): live, the capture drains first. */
void strobe_pipeline_stop(struct strobe_pipeline *p);

/* ---- after (or during) the run ----------------------------------------- */

int strobe_pipeline_nr_sources(const struct strobe_pipeline *p);
/* Source i as consumers see it; NULL for a bad index.  Owned by p. */
const struct strobe_pipeline_source *strobe_pipeline_source(const struct strobe_pipeline *p,
							    int i);
/* true when timestamps are wall-clock ns (several files with pairings). */
bool strobe_pipeline_wall(const struct strobe_pipeline *p);
/* The merge of several files (timeline mapping, clocks), else NULL. */
struct strobe_merge *strobe_pipeline_merge(const struct strobe_pipeline *p);

/* Events handed out and events reported lost, over every source. */
void strobe_pipeline_stats(const struct strobe_pipeline *p, struct strobe_stream_stats *st);

/*
 * How far a run has read, for a progress display: bytes_done of the
 * files' trace data (uncompressed page bytes, all CPUs) out of
 * bytes_total (0 when not known: live).  May be called from another
 * thread while the pipeline runs (the figures are read without locks and
 * may lag by a page).  out->size: sizeof(struct strobe_pipeline_progress)
 * (or 0); the fields a caller's struct has are filled.
 */
struct strobe_pipeline_progress {
	size_t size;
	uint64_t bytes_done;
	uint64_t bytes_total;
};
void strobe_pipeline_progress(const struct strobe_pipeline *p,
			      struct strobe_pipeline_progress *out);

/*
 * Diagnostics of every source, in source order (each source's as
 * strobe_tracefile_diag lists them; a live source's lost events and
 * damage are kept by the pipeline): message i, its kind and its source
 * (either may be NULL); NULL out of range.  Complete after the run.
 */
int strobe_pipeline_nr_diags(const struct strobe_pipeline *p);
const char *strobe_pipeline_diag(const struct strobe_pipeline *p, int i,
				 enum strobe_tf_diag_kind *kind, int *source);
/* Did any source have damaged data (strobe_tf_diag_is_damage)? */
bool strobe_pipeline_damaged(const struct strobe_pipeline *p);

#ifdef __cplusplus
}
#endif

#endif
