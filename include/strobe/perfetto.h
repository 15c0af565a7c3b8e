/*
 * perfetto.h - a trace as Chrome trace-event JSON, the format Perfetto UI
 * (ui.perfetto.dev), chrome://tracing and speedscope open
 * (lib/sinks/perfetto.c; strobe-perfetto(3), strobe-export(1)).
 *
 * The exporter is a consumer of the one pipeline (pipeline.h): files,
 * several files on one timeline, or a live capture.  It writes, as events
 * come, one JSON document:
 *
 *   - a process group per container (its process name is the container's
 *     name) holding the threads of its tasks; host tasks under their own
 *     process (named by the process's command name);
 *   - a group "CPUs" with one track per CPU: what ran there (a slice per
 *     task between its context switches, named by its command name);
 *   - per thread: "running" slices from sched_switch, and system calls as
 *     slices (sys_enter to sys_exit) with the running pieces inside them,
 *     so a blocked call shows where it ran and where it slept;
 *   - wake-ups (sched_waking, else sched_wakeup; sched_wakeup_new) as flow
 *     arrows from the waker's slice to the wakee's next slice;
 *   - --period definitions (strobe-expr(7), the periods engine of expr.h)
 *     as async slices on their owner's process, with their captures;
 *   - each container's CPU use (CPUs busy, averaged over counter_ns) as a
 *     counter track of its group; the host's on the "CPUs" group.
 *
 * Timestamps are microseconds with three decimals, printed from integer
 * nanoseconds, so no precision is lost ("ts":366971494.123).  They are
 * the timeline's (pipeline.h) less an origin: 0 when the first event's
 * time is below 2e15 ns, else that time cut to the whole second (the
 * wall-clock timeline of several files), where a double could not hold
 * nanoseconds; "otherData" says which ("ts_origin_ns").
 *
 * Memory is bounded by live threads, CPUs, containers and open periods,
 * never by the trace's length: the JSON goes to the caller's write
 * function in pieces of about 1 MiB.
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_PERFETTO_H
#define STROBE_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_consumer;
struct strobe_perfetto;

struct strobe_perfetto_opts {
	size_t size;		/* sizeof(struct strobe_perfetto_opts), or 0 */
	/* Where the JSON goes, in order: len bytes at buf.  Returns 0, or
	 * -errno with *err set (the run then fails with it).  Required. */
	int (*write)(void *arg, const void *buf, size_t len, struct strobe_error *err);
	void *write_arg;
	/* Window on the timeline, ns (0: from the first / to the last
	 * event); relative: from the first event's time instead. */
	uint64_t begin, end;
	bool begin_relative, end_relative;
	/*
	 * Which threads are written (NULL/0: all): option values as
	 * strobe_expr_option_text takes them ("1,2"; names or globs; names,
	 * IDs or ID prefixes) and --filter expressions ($evt scope), ANDed.
	 * A thread is selected or not at its first event (the filter's
	 * $evt task references read the thread, the rest that event), again
	 * when its command name or container changes.  CPU tracks and
	 * counters show selected threads only; a flow needs both ends.
	 */
	const char *tids, *pids, *comms, *containers;
	const char *const *filters;
	int nr_filters;
	/* --period definitions and --period-captures arguments (expr.h),
	 * written as async slices. */
	const char *const *periods;
	int nr_periods;
	const char *const *period_captures;
	int nr_period_captures;
	/* Interval of the CPU counters, ns (0: 10 ms). */
	uint64_t counter_ns;
};

/* New exporter (opts copied; the strings and arrays it points to are
 * borrowed until strobe_perfetto_free).  0, -EINVAL (no write function,
 * *err says so) or -ENOMEM. */
int strobe_perfetto_new(const struct strobe_perfetto_opts *opts,
			struct strobe_perfetto **out, struct strobe_error *err);
/* NULL ok.  Open threads and periods are dropped unwritten when the
 * consumer did not finish. */
void strobe_perfetto_free(struct strobe_perfetto *x);

/*
 * The exporter as a pipeline consumer (fills *c, arg = x; it needs the
 * task model).  start checks the filters and periods against each
 * source's formats (-EINVAL, -ENOENT with *err: "--filter 'x': column
 * 3: ..."); events write the document; finish closes what is open at the
 * last event (or the window's end) and ends the document.  A pipeline
 * runs it once.
 */
void strobe_perfetto_consumer(struct strobe_perfetto *x, struct strobe_consumer *c);

struct strobe_perfetto_stats {
	uint64_t events;	/* events handed to the exporter */
	uint64_t records;	/* JSON trace events written */
	uint64_t bytes;		/* bytes of JSON written */
	uint64_t slices;	/* complete slices (running, CPU) */
	uint64_t syscalls;	/* system call slices */
	uint64_t flows;		/* wake-up arrows */
	uint64_t periods;	/* period async slices */
	uint64_t counters;	/* counter values */
	uint64_t threads;	/* thread tracks named */
	uint64_t peak_threads;	/* most threads tracked at once */
};
void strobe_perfetto_stats(const struct strobe_perfetto *x, struct strobe_perfetto_stats *st);

#ifdef __cplusplus
}
#endif

#endif
