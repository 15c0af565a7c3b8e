/*
 * top.h - the live view's engine (lib/top/): the analyses read every
 * interval with snapshot and reset, folded into one row per container,
 * pod, process or thread; the rows of `strobe top` and the figures its
 * Prometheus metrics count.
 *
 * An engine runs one analysis object ("cputop,syscalls,schedlat,io,..."
 * as the shown columns need) grouped by thread, so that the grouping, the
 * sort, a name filter and one container's drill-down can change between
 * refreshes without losing anything: each interval's thread rows are kept
 * and folded again.  It is a consumer of the one pipeline
 * (strobe_top_consumer): events are fed to the analysis; every tick (the
 * interval, in trace time) takes a snapshot, folds it into the table of
 * rows, resets the analysis and calls on_interval.
 *
 * The rows' keys are the analyses' --json keys where one exists
 * (container, pod, namespace, pid, tid, comm, cpu_pct: 100 = one core)
 * and say their unit otherwise:
 *
 *   cpu_pct         CPU share, percent of one core            (cputop)
 *   syscalls_ps     system calls ended per second              (syscalls)
 *   errors_ps       of which failed, per second                (syscalls)
 *   runq_p50, runq_p99, runq_max   run-queue (wake-up to run) latency, ns
 *                                                              (schedlat)
 *   read_bps, write_bps   block IO bytes per second, issued by the group
 *                         or written back for it             (io)
 *   blkio_p99       block request latency p99, ns              (io)
 *   switches_ps     context switches (switch-ins) per second   (cputop)
 *   mem_bytes       the container's cgroup memory usage, read from its
 *                   cgroup files each interval (containers and pods only)
 *   faults_ps       page faults per second, where recorded     (mem)
 *   tasks           threads of the group alive at the refresh (the model)
 *
 * Percentiles come from the analyses' log2 histograms (bcc's slots of
 * microseconds), interpolated linearly inside the slot that holds them,
 * as Prometheus' histogram_quantile does.  A column whose events the
 * kernel or the input lacks is "unavailable": its cells have no value
 * (strobe_value_none, table.h) and strobe_top_unavailable says why.
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_TOP_H
#define STROBE_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <strobe/table.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_consumer;
struct strobe_top;

enum strobe_top_group {
	STROBE_TOP_CONTAINER = 0,	/* one row per container ("host" for
					 * the rest) */
	STROBE_TOP_POD,			/* Kubernetes pod, else the container */
	STROBE_TOP_PROCESS,
	STROBE_TOP_THREAD,
};

/* One interval's figures for one container, for the metrics: counts and
 * histograms of the interval only (the caller accumulates).  Histogram
 * slots are bcc's log2 of microseconds: slot 0 holds [0, 2) us, slot k
 * [2^k, 2^(k+1)) us; STROBE_TOP_SLOTS of them. */
#define STROBE_TOP_SLOTS 32
struct strobe_top_hist {
	uint64_t slot[STROBE_TOP_SLOTS];
	uint64_t count;
	uint64_t sum_ns;	/* of every measurement in the histogram */
};

struct strobe_top_syscall {
	const char *name;	/* "read", or "other" for the rest */
	uint64_t count, errors;
};

struct strobe_top_errno {
	const char *syscall;	/* as above */
	const char *error;	/* "ENOENT" */
	uint64_t count;
};

struct strobe_top_container {
	const char *name;	/* "host" for tasks in no container */
	const char *id;		/* full ID, "" for host */
	const char *pod, *ns;	/* "" when not known */
	uint64_t cpu_ns;	/* CPU time in the interval */
	uint64_t switches;
	const struct strobe_top_syscall *syscalls;	/* the top ones and
							 * "other" */
	int nr_syscalls;
	const struct strobe_top_errno *errnos;
	int nr_errnos;
	struct strobe_top_hist syscall_lat, runq_lat, blkio_lat;
	uint64_t read_bytes, write_bytes;
	int64_t mem_bytes;	/* -1: unknown */
	int tasks;
};

struct strobe_top_interval {
	uint64_t begin, end;		/* trace clock ns */
	double seconds;			/* end - begin */
	const struct strobe_top_container *containers;	/* every container
							 * with a figure */
	int nr_containers;
	uint64_t events;		/* events fed in the interval */
	uint64_t lost;			/* events lost in it (the pipeline's
					 * count of missed ones) */
	uint64_t gaps;			/* lost-event marks in it: also those
					 * whose count the ring buffer did not
					 * store (a full page), which lost
					 * cannot add up; > 0: figures there
					 * are short of what happened */
};

struct strobe_top_opts {
	size_t size;		/* sizeof(struct strobe_top_opts), or 0 */
	enum strobe_top_group group_by;
	/* Comma-separated column keys to show (NULL: the default set, every
	 * column above); unknown keys fail strobe_top_new with -EINVAL. */
	const char *columns;
	/* Sort key (a shown column, descending; group keys ascending);
	 * NULL: cpu_pct. */
	const char *sort;
	/* Show only tasks of these targets (as the analyses' opts:
	 * containers by name/ID prefix, processes); NULL/0 = all. */
	const char *const *containers;
	int nr_containers;
	const int *pids;
	int nr_pids;
	/* Syscall label values kept per container in the metrics figures
	 * (top by count; the rest summed as "other").  0: 10. */
	int top_syscalls;
	/* After each interval's rows are built (on the pipeline's thread).
	 * A negative return fails the run.  May be NULL. */
	int (*on_interval)(struct strobe_top *t, const struct strobe_top_interval *iv,
			   void *arg);
	void *arg;
	/* Root of the cgroup file system for mem_bytes (NULL:
	 * "/sys/fs/cgroup"; tests give another). */
	const char *cgroup_root;
};

/* Every column key, in the default order, NULL-terminated. */
const char *const *strobe_top_column_keys(void);
/* The preset (session.h) a column needs, NULL when none (mem_bytes reads
 * cgroup files) or unknown. */
const char *strobe_top_column_preset(const char *key);

/* New engine (opts copied; its arrays borrowed until free).  0, -EINVAL
 * (unknown column or sort key: *err says which) or -ENOMEM. */
int strobe_top_new(const struct strobe_top_opts *opts, struct strobe_top **out,
		   struct strobe_error *err);
void strobe_top_free(struct strobe_top *t);	/* NULL ok */

/* The presets the shown columns need, comma-separated ("sched,syscalls"),
 * owned by t: what a live run enables. */
const char *strobe_top_presets(const struct strobe_top *t);

/* The engine as a consumer of source `source` of a pipeline: fills *out
 * (arg = t; needs the model; tick: snapshot, fold, reset, on_interval).
 * The pipeline's tick_ns is the interval.  At the end of the run, what
 * came after the last tick is a last, shorter interval (on_interval
 * once more), so that the intervals add up to the whole run. */
int strobe_top_consumer(struct strobe_top *t, int source, struct strobe_consumer *out);

/* Tell the engine how many events the source lost so far (a live
 * stream's missed count), for the interval's `lost`. */
void strobe_top_set_lost(struct strobe_top *t, uint64_t lost_total);

/*
 * The rows of the latest interval (NULL before the first), sorted, as a
 * table named "top.container" / "top.pod" / "top.process" /
 * "top.thread" with the group's key columns then the shown columns.
 * Owned by t; valid until the next interval or a strobe_top_set_* call.
 */
const struct strobe_table *strobe_top_table(const struct strobe_top *t);
/* Why column `key` is unavailable (its events missing: "needs the io
 * preset: block:block_rq_issue is not in this kernel"), NULL when it is
 * available. */
const char *strobe_top_unavailable(const struct strobe_top *t, const char *key);

/*
 * Change the view between refreshes; the table is rebuilt at once from
 * the latest interval's figures (no events needed).  group: as opts;
 * sort: a shown column key (-EINVAL otherwise); filter: show only groups
 * whose name (container, pod, comm) contains this text (NULL/"" = all);
 * drill: show only the processes of this container name (NULL = off;
 * the grouping is then process).  0, -EINVAL or -ENOMEM.
 */
int strobe_top_set_group(struct strobe_top *t, enum strobe_top_group group,
			 struct strobe_error *err);
int strobe_top_set_sort(struct strobe_top *t, const char *key, struct strobe_error *err);
int strobe_top_set_filter(struct strobe_top *t, const char *text, struct strobe_error *err);
int strobe_top_set_drill(struct strobe_top *t, const char *container,
			 struct strobe_error *err);
enum strobe_top_group strobe_top_group(const struct strobe_top *t);
const char *strobe_top_sort(const struct strobe_top *t);
const char *strobe_top_filter(const struct strobe_top *t);	/* NULL: none */
const char *strobe_top_drill(const struct strobe_top *t);	/* NULL: none */

#ifdef __cplusplus
}
#endif

#endif
