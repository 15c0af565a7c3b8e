/*
 * analysis.h - analyses as objects: cputop, syscalls, schedlat, io, irq
 * and mem over one event stream, in one pass, with results as tables.
 *
 * An analysis object runs one or more named analyses ("cputop,syscalls")
 * over the same events: create it with options (grouping, window,
 * filters, views), attach it to a file's event formats (which resolve each
 * analysis' event types and fields once), feed it events in stream order
 * (or let strobe_analysis_run_file() do the loop), finish it, and read
 * the results as tables of typed cells; a live view reads the tables of
 * each interval as it goes (strobe_analysis_snapshot, _reset).  Grouping
 * by thread, process, container or CPU goes through the task model
 * (strobe_model_*), which the caller feeds or which run_file creates.
 *
 * Results are tables: a table has a stable name ("syscalls.stats"), a
 * title, a view (top, stats, freq, log), typed columns with stable keys
 * (the JSON keys: "tid", "pid", "comm", "container", "cpu", "syscall",
 * "count", durations in ns ...) and rows.  Log rows (one per occurrence)
 * are not stored: they go to a callback as they happen, so memory stays
 * bounded by live threads and in-flight requests, never by trace length.
 *
 * Tables and their writers (text, JSON, LAMI rows) are table.h's; the
 * writers at the end of this file write an analysis' results as one
 * document (LAMI 1.0 results, the --json summary).
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_ANALYSIS_H
#define STROBE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <strobe/table.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_event;
struct strobe_model;
struct strobe_stream;
struct strobe_tracefile;
struct strobe_formats;
struct strobe_buf;
struct strobe_merge;

/* ---- analyses ------------------------------------------------------- */

enum strobe_group_by {
	STROBE_GROUP_THREAD = 0,
	STROBE_GROUP_PROCESS,
	STROBE_GROUP_CONTAINER,
	STROBE_GROUP_CPU,
	STROBE_GROUP_ALL,	/* one group: everything selected (runqlat's and
				 * biolatency's default, as bcc) */
	STROBE_GROUP_PIDNS,	/* per PID namespace (the model's pidns
				 * inode, 0 unknown) */
};

/*
 * Options; zero-initialised means: group by thread, the whole trace, all
 * rows, top view only, log2 histograms, no filters.
 */
struct strobe_analysis_opts {
	size_t size;		/* sizeof(struct strobe_analysis_opts), or 0 */
	enum strobe_group_by group_by;
	/* Window in trace clock ns: 0 = from the first / to the last event. */
	uint64_t begin, end;
	/* Latency analyses ignore occurrences shorter than min_ns or longer
	 * than max_ns (0 = no bound). */
	uint64_t min_ns, max_ns;
	int top;		/* rows per ranking table; 0 = all */
	unsigned views;		/* enum strobe_view bits; 0 = TOP */
	int freq_resolution;	/* 0: log2 buckets; N > 0: N linear buckets
				 * between each group's min and max */
	/* Filters on the task a measurement belongs to (NULL/0 = all): sugar
	 * for expressions (strobe_expr_option_text), compiled with `filters`
	 * into one strobe_expr_filter. */
	const int *tids;
	int nr_tids;
	const int *pids;	/* thread group ids */
	int nr_pids;
	const char *const *comms;	/* globs */
	int nr_comms;
	const char *const *containers;	/* names, ids or id prefixes */
	int nr_containers;
	const bool *cpu_mask;	/* cpu_mask[cpu] true = keep */
	int nr_cpu_mask;
	/* STROBE_VIEW_LOG: called for every occurrence with one row of the
	 * log table `t` (the row is valid during the call only). */
	void (*log)(void *arg, const struct strobe_table *t,
		    const union strobe_value *row);
	void *log_arg;
	/* The periods analysis (strobe-periods(1)): --period definitions and
	 * --period-captures arguments, in order (strobe_periods_define and
	 * _capture of expr.h); period_group_by: NULL (one row per period
	 * name), "thread", "process", "container" or a capture key;
	 * aggregate_by: a period name whose children are summed per period
	 * of it (log rows of periods.aggregated instead of periods.log). */
	const char *const *periods;
	int nr_periods;
	const char *const *period_captures;
	int nr_period_captures;
	const char *period_group_by;
	const char *aggregate_by;
	/* --filter expressions ($evt scope, strobe-expr(7)), ANDed with each
	 * other and with the filters above.  $evt's task references (tid,
	 * pid, procname, container ...) read the task a measurement is
	 * attributed to (a wake-up's target, a block request's issuer); the
	 * others read the event that makes the measurement. */
	const char *const *filters;
	int nr_filters;
	/* log2 histograms (--freq) of milliseconds, unit "msecs" (bcc's
	 * -m), instead of microseconds */
	bool freq_msecs;
	/* The biolatency analysis (strobe-biolatency(1)): a histogram per
	 * disk (-D) and per I/O flags (-F: the block events' rwbs text), and
	 * latency from block_rq_insert instead of block_rq_issue (-Q). */
	bool per_disk, per_flags, queued;
};

struct strobe_analysis;

/* Names of the analyses, NULL-terminated: "cputop", "syscalls", ... */
const char *const *strobe_analysis_names(void);
/* One-line summary of analysis `name`, NULL if unknown. */
const char *strobe_analysis_summary(const char *name);
/* The presets (session.h, comma-separated: "syscalls,io") that enable
 * the events analysis `name` needs, NULL if unknown: what a live run
 * (strobe_record with on_event) enables for it. */
const char *strobe_analysis_preset(const char *name);

/*
 * New analysis object running the analyses named in `names` (comma
 * separated, e.g. "cputop,syscalls,schedlat") in one pass.  opts may be
 * NULL (defaults); it is copied, but the arrays it points to are
 * borrowed until strobe_analysis_free().  Returns 0 or -EINVAL (unknown
 * name, err says which) / -ENOMEM.  Free with strobe_analysis_free().
 */
int strobe_analysis_new(const char *names, const struct strobe_analysis_opts *opts,
			struct strobe_analysis **out, struct strobe_error *err);
void strobe_analysis_free(struct strobe_analysis *a);	/* NULL ok */

/*
 * What a strobe recording traced, as its file info says: `strobe record`
 * stores target=system|command|pid|container, target_pids=PID,... (the
 * command it ran, or -p's process) and target_containers=ID,... (-c's
 * containers, full IDs); strobe_analysis_run_file() passes them on.
 * target NULL or "system" means the whole system (the default, also for
 * files other tools wrote).  A recording restricted to some tasks has
 * their own events plus the context switches and wake-ups they share
 * with untraced tasks, so an untraced task's time between two of those
 * is unknown: the analyses then measure traced tasks only (a target, a
 * thread of one, a task forked by a traced task, a task of a target
 * container) and add a note saying so.  target "command-all" (pids: the
 * command's) selects a command's tasks in the same way on a recording of
 * the whole machine (strobe_record_opts.argv_whole_system), with no
 * note.  pids and containers may be NULL;
 * malformed entries are skipped.  Call before attach.  Returns 0,
 * -EINVAL (an unknown target: nothing changed, *err says which) or
 * -ENOMEM.
 */
int strobe_analysis_set_target(struct strobe_analysis *a, const char *target,
			       const char *pids, const char *containers,
			       struct strobe_error *err);

/*
 * Resolve the event types and fields of every analysis against `fmts`
 * (borrowed) and use model `m` (borrowed; may be NULL: an internal model
 * is created, which knows comms only from the events).  When an analysis
 * finds none of the events it needs, a note says which events and which
 * `strobe record --preset` provides them; the call fails with -ENOENT
 * (that note in *err) only when every requested analysis lacks its
 * events.  Call once, before feeding.
 */
int strobe_analysis_attach(struct strobe_analysis *a, struct strobe_formats *fmts,
			   struct strobe_model *m, struct strobe_error *err);

/* The same for the events of stream s (a file's or a live capture's):
 * its event formats are used.  s must outlive a's feeding. */
int strobe_analysis_attach_stream(struct strobe_analysis *a, struct strobe_stream *s,
				  struct strobe_model *m, struct strobe_error *err);

/*
 * Feed one event, in stream order.  When the caller passed its own model
 * to attach, it must call strobe_model_update(m, ev) first; an internal
 * model (attach with m NULL) is updated here.  No allocation except when
 * a new thread, group or in-flight request appears.
 */
void strobe_analysis_feed(struct strobe_analysis *a, const struct strobe_event *ev);

/*
 * Build the result tables: those of the whole window, or after a reset
 * those of the last interval (from the latest reset to the end).  Tasks
 * still running are charged up to the window's end; snapshots and resets
 * fail after it.  A second call does nothing.  Returns 0 or
 * -ENOMEM.
 */
int strobe_analysis_finish(struct strobe_analysis *a, struct strobe_error *err);

/* ---- intervals: snapshot and reset ---------------------------------- */

/*
 * An interval runs from the start (opts->begin, else the first event) or
 * the latest reset to a snapshot.  Intervals lie inside the window: what
 * happens outside opts->begin..end is never counted.  A measurement
 * (a call, a wake-up's wait, a block request, a handler run, a period)
 * counts, whole, in the interval where it ends, whenever it began, so the
 * intervals split the measurements of one run and their counts and
 * totals add up to that run's.  CPU time is shared out instead: a task
 * running at a reset is charged up to it in the interval before and from
 * it in the next.  (A --begin/--end run over an interval's times differs
 * only by what began before them: it cannot see it.)  Log rows (opts->log)
 * come as measurements end, so each belongs to the interval it came in.
 *
 * Times are trace clock ns; 0 means the last event fed.  A time before
 * the last event fed (or the interval's start) is taken as that, one past
 * opts->end as opts->end.  Both need an attached, unfinished analysis:
 * they return 0, -EINVAL (not attached, or finished; *err says which) or
 * -ENOMEM.
 */

/*
 * Build the tables of the current interval up to ts: the same tables,
 * columns and keys as finish, without ending anything.  What is in flight
 * (a call entered, a waiting task, a request issued, a running handler,
 * an open period) is left out, to count when it ends; tasks running at ts
 * are charged up to ts in the snapshot only (the state goes on as if no
 * snapshot had been taken).  periods.open is finish's only.  The tables
 * (strobe_analysis_nr_tables, _table), the notes and the window
 * (strobe_analysis_window: the interval) stay as they are until the next
 * snapshot, finish or free: feeding and resetting leave them.  Any number
 * of times.
 */
int strobe_analysis_snapshot(struct strobe_analysis *a, uint64_t ts, struct strobe_error *err);

/*
 * Start a new interval at ts: every counter, statistic, histogram,
 * ranking and row of the interval is dropped; what is in flight is kept
 * (running tasks, from ts on; calls entered, pending wake-ups, requests in
 * flight, open periods and their parents' accumulated children) and so
 * is who things belong to (file and IRQ names, an inode's dirtiers).
 * The tables of the latest snapshot stay readable.  Take a snapshot at ts
 * first to keep the interval's figures.
 */
int strobe_analysis_reset(struct strobe_analysis *a, uint64_t ts, struct strobe_error *err);

/*
 * The analysis as a consumer of a pipeline (pipeline.h), reading the
 * events of source `source` (others are ignored): start takes the
 * recording's target from the source's file (strobe_analysis_set_target;
 * an unknown target becomes a note) and attaches to the source's formats
 * and task model; events are fed until one lies past opts.end (then the
 * consumer is done); finish finishes.  Its events come in the source's
 * own trace clock (STROBE_CONSUMER_SOURCE_TIME: over several files, the
 * window and the tables' timestamps are that file's, as with the file
 * alone).  Fills *out (arg = a).  The tables
 * point into the source's model: read them before the model is freed
 * (strobe_pipeline_set_model gives a model of the caller's).  Returns 0.
 */
struct strobe_consumer;
int strobe_analysis_consumer(struct strobe_analysis *a, int source,
			     struct strobe_consumer *out);
/*
 * Change the window (opts.begin/end, trace clock ns; 0 = open) before the
 * first event is fed: for windows relative to the first event, which a
 * consumer learns only when it comes.  0, or -EBUSY (events were fed).
 */
int strobe_analysis_set_window(struct strobe_analysis *a, uint64_t begin, uint64_t end,
			       struct strobe_error *err);
/* The CPUs a's selection keeps (--cpu): *mask (owned by a) with the
 * returned number of entries, or 0 and NULL for every CPU; for the
 * stream options of its source (cpu_mask), so other CPUs' pages are
 * skipped unread. */
int strobe_analysis_cpu_mask(const struct strobe_analysis *a, const bool **mask);

/*
 * The whole job on a trace file: load a model from tf, take the target
 * from its strobe info (strobe_analysis_set_target; an unknown target
 * becomes a note), attach, stream every event (CPUs outside
 * opts->cpu_mask skipped), finish; the events also go to
 * strobe_tracefile_see_event() and end with strobe_tracefile_events_done(),
 * so tf's diagnostics then include lost events and time going backwards.
 * Returns 0 or -errno (attach failure, corrupt page) with *err set.
 */
int strobe_analysis_run_file(struct strobe_analysis *a, struct strobe_tracefile *tf,
			     struct strobe_error *err);

/* Result tables, in analysis order, after finish or a snapshot (before:
 * the schemas, no rows). */
int strobe_analysis_nr_tables(const struct strobe_analysis *a);
const struct strobe_table *strobe_analysis_table(const struct strobe_analysis *a, int i);

/* Notes for the user (missing events, unavailable details), after attach,
 * a snapshot or finish (each replaces the notes the previous one made;
 * attach's stay); strings owned by a. */
int strobe_analysis_nr_notes(const struct strobe_analysis *a);
const char *strobe_analysis_note(const struct strobe_analysis *a, int i);

/* The window actually analysed (trace clock ns), after finish; after a
 * snapshot, its interval. */
void strobe_analysis_window(const struct strobe_analysis *a, uint64_t *begin,
			    uint64_t *end);

/* ---- writing results ------------------------------------------------ */

/*
 * The last line of every analysis' --json output, after its tables
 * (strobe_table_write_json):
 *   {"summary":{"analyses":"cputop,syscalls","begin":B,"end":E,
 *    "notes":["..."],"diagnostics":[...]}}
 * begin/end: the window analysed (strobe_analysis_window); notes: the
 * analysis' notes; diagnostics: strobe_tracefile_write_json_diags(tf),
 * tf NULL for a live source.  After finish.  Returns 0 or -ENOMEM.
 */
int strobe_analysis_write_json_summary(const struct strobe_analysis *a,
				       const struct strobe_tracefile *tf,
				       struct strobe_buf *b);
/*
 * The same for analysis a of source `source` of merge m (stream.h; each
 * file analysed in its own clock, strobe_analysis_consumer): a "host" key (strobe_merge_host) after
 * "analyses", begin/end mapped onto the merge's timeline
 * (strobe_merge_map_ts); tf is that source's file.  One line per host.
 */
int strobe_analysis_write_json_summary_merged(const struct strobe_analysis *a,
					      const struct strobe_tracefile *tf,
					      const struct strobe_merge *m, int source,
					      struct strobe_buf *b);

/*
 * LAMI 1.0 (the LTTng analyses machine interface Trace Compass runs):
 * strobe_lami_write_version() appends {"major":1,"minor":0};
 * strobe_lami_write_metadata() the metadata object of analyses `names`
 * (title, version, table-classes with column descriptions);
 * strobe_lami_write_results() the {"results":[...]} object holding every
 * table of a with the time range [begin, end].  Returns 0, -EINVAL
 * (unknown analysis) or -ENOMEM.
 */
int strobe_lami_write_version(struct strobe_buf *b);
int strobe_lami_write_metadata(const char *names, const struct strobe_analysis_opts *opts,
			       struct strobe_buf *b);
/* The metadata of the results of several hosts
 * (strobe_lami_write_results_merged): every class but the histograms'
 * has a "Host" string column first. */
int strobe_lami_write_metadata_hosts(const char *names, const struct strobe_analysis_opts *opts,
				     struct strobe_buf *b);
int strobe_lami_write_results(const struct strobe_analysis *a, struct strobe_buf *b);

/*
 * LAMI and --log: log rows are not stored, so a caller that wants them in
 * the results keeps them itself (strobe_lami_write_row() appends one row
 * as a LAMI data array, [{"class":...,"value":...},...], nothing else),
 * and strobe_lami_write_results_logs() writes every table as
 * strobe_lami_write_results() does plus each log table, whose data rows
 * log_rows(arg, t, s) appends: the rows of t, comma-separated.  log_rows
 * may flush s (write its content out and reset it) first; a negative
 * return stops the writer and is returned.  log_rows NULL: log tables
 * are left out, as strobe_lami_write_results() does.  Metadata
 * (strobe_lami_write_metadata) declares the log tables' classes when
 * opts has STROBE_VIEW_LOG.  Return 0 or -ENOMEM.
 */
int strobe_lami_write_results_logs(const struct strobe_analysis *a,
				   int (*log_rows)(void *arg, const struct strobe_table *t,
						   struct strobe_buf *b),
				   void *arg, struct strobe_buf *b);

/*
 * Several hosts: an[i] is the finished analysis of source i of merge m
 * (the same analyses and options for every source).  One results object
 * whose time range spans every host's window on the merge's timeline;
 * each table name once, as strobe_table_merge_hosts() makes it (a "host"
 * column first, timestamps mapped); histograms per host, their title
 * saying which ("... (host web)").  Log tables as in
 * strobe_lami_write_results_logs(), log_rows getting the merged table
 * (its rows are the caller's; write them with the host cell first).
 * Returns 0, -EINVAL (n < 1), -ENOMEM or log_rows' error.
 */
int strobe_lami_write_results_merged(const struct strobe_analysis *const *an, int n,
				     const struct strobe_merge *m,
				     int (*log_rows)(void *arg, const struct strobe_table *t,
						     struct strobe_buf *b),
				     void *arg, struct strobe_buf *b);

#ifdef __cplusplus
}
#endif

#endif
