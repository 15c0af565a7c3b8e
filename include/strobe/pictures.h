/*
 * pictures.h - flame graphs and latency heat maps (lib/pictures/).
 *
 * A flame graph (Brendan Gregg's) shows where time goes by stack: each
 * stack's frames from the root up, each frame as wide as the time of the
 * stacks through it.  struct strobe_flame holds folded stacks (frames as
 * names, root first, with a weight) from any source: off-CPU time from
 * context switches with their kernel stacks (strobe_offcpu below, a
 * consumer of the one pipeline), and later on-CPU samples (strobe
 * profile).  It writes them as folded text ("root;child;leaf 1234\n",
 * flamegraph.pl's input) or as one self-contained interactive SVG (zoom
 * on click, search, no external resources).
 *
 * A heat map (strobe_heatmap) shows latency over time: time on x, the
 * latency in log2 buckets on y, the number of measurements as colour.
 * Its measurements are the analyses' own (the log rows of syscalls,
 * schedlat, io, irq and periods: analysis.h), so a heat map and
 * `strobe syscalls --log` count the same things.
 *
 * Pictures are written through strobe's one SVG writer (escaping in one
 * place): names from a trace (commands, containers, functions) with <, &
 * or quotes, or bytes that are not UTF-8, cannot break the markup.
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_PICTURES_H
#define STROBE_PICTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_buf;
struct strobe_consumer;
struct strobe_error;
struct strobe_analysis_opts;

/* ---- folded stacks and flame graphs ------------------------------------ */

struct strobe_flame;

/* An empty set of stacks.  0 or -ENOMEM.  Free with strobe_flame_free. */
int strobe_flame_new(struct strobe_flame **out);
void strobe_flame_free(struct strobe_flame *f);	/* NULL ok */

/*
 * Add weight to the stack frames[0..n) (root first; names are copied; a
 * ';' or newline in a name is written as '_' in folded output, as
 * flamegraph.pl's tools do).  Stacks with the same frames add up.
 * 0, -EINVAL (n < 1, a NULL name) or -ENOMEM.
 */
int strobe_flame_add(struct strobe_flame *f, const char *const *frames, int n,
		     uint64_t weight);
/* The sum of every weight added. */
uint64_t strobe_flame_total(const struct strobe_flame *f);
/* Number of distinct stacks (leaves with weight of their own). */
size_t strobe_flame_nr_stacks(const struct strobe_flame *f);
/* The weight of the stacks that pass through frames[0..n) (root first),
 * 0 if none. */
uint64_t strobe_flame_weight(const struct strobe_flame *f, const char *const *frames, int n);

/* Every stack as one folded line "root;...;leaf WEIGHT\n", sorted by
 * frames.  0 or -ENOMEM. */
int strobe_flame_write_folded(const struct strobe_flame *f, struct strobe_buf *b);

enum strobe_flame_colors {
	STROBE_FLAME_OFFCPU = 0,	/* blues: time blocked */
	STROBE_FLAME_ONCPU,		/* warm: time running */
};

struct strobe_flame_svg_opts {
	size_t size;		/* sizeof(struct strobe_flame_svg_opts), or 0 */
	const char *title;	/* NULL: "Flame Graph" */
	const char *subtitle;	/* NULL: none */
	/* What a weight is: "ns" (shown as ms/s) or NULL: a count
	 * ("samples"). */
	const char *unit;
	enum strobe_flame_colors colors;
	/* Frames whose root is one of the first `root_levels` levels are
	 * drawn in a colour of their own (containers, processes). */
	int root_levels;
	int width;		/* pixels, 0: 1200 */
};

/*
 * The flame graph as one SVG document (root at the bottom, children
 * sorted by name, frames narrower than 0.1 pixel left out and counted in
 * their parent): hovering a frame shows its name, time and share;
 * clicking zooms into it, the "Reset Zoom" text or Escape zooms out;
 * "Search" (or Ctrl-F) takes a regular expression and highlights the
 * frames it matches with their share of the total.  The script is
 * embedded; nothing is fetched.  0, -ENOMEM, or -EINVAL (no stacks:
 * *err says so).
 */
int strobe_flame_write_svg(const struct strobe_flame *f, const struct strobe_flame_svg_opts *o,
			   struct strobe_buf *b, struct strobe_error *err);

/* ---- off-CPU time by stack ---------------------------------------------- */

enum strobe_flame_group {
	STROBE_FLAME_BY_CONTAINER = 0,	/* container;comm;stack */
	STROBE_FLAME_BY_PROCESS,	/* comm;stack (offcputime's) */
	STROBE_FLAME_BY_THREAD,		/* comm-TID;stack */
	STROBE_FLAME_BY_NONE,		/* stack */
};

struct strobe_offcpu_opts {
	size_t size;		/* sizeof(struct strobe_offcpu_opts), or 0 */
	enum strobe_flame_group group_by;
	/* Only tasks of these containers (names, ids, id prefixes as
	 * strobe_container_matches) / processes (tgids); NULL/0: all. */
	const char *const *containers;
	int nr_containers;
	const int *pids;
	int nr_pids;
	/* Only off-CPU periods at least this long (0: all). */
	uint64_t min_ns;
	/* Leave user stacks out even when the trace has them. */
	bool no_user;
};

struct strobe_offcpu;

/*
 * Off-CPU time by stack, from a recording made with `strobe record
 * --stacks`: each context switch's kernel stack (ftrace:kernel_stack, and
 * ftrace:user_stack with --user-stacks, which the kernel writes just
 * after the switch on its CPU in the context of the task switched out)
 * is paired with that switch; the time from the switch-out to the next
 * switch-in of that thread is added to the stack
 * [container;]comm;[user frames;]kernel frames.  The innermost kernel
 * frames that are the tracing machinery itself (trace_event_raw_event_*,
 * __traceiter_*) are left out, so stacks end in __schedule.  The idle
 * task is never counted; a thread still off CPU when the trace ends is
 * not counted (its time has no end); a switch-out whose stack is missing
 * counts under "[no stack]".  Kernel addresses are named from the file's
 * kallsyms; user addresses are shown as hex (no symbols yet).
 * Memory: one entry per thread id seen and per distinct stack.
 * 0, -EINVAL, -ENOMEM.  Free with strobe_offcpu_free.
 */
int strobe_offcpu_new(const struct strobe_offcpu_opts *o, struct strobe_offcpu **out,
		      struct strobe_error *err);
void strobe_offcpu_free(struct strobe_offcpu *oc);	/* NULL ok */

/*
 * As a pipeline consumer (needs the task model) of source `source`;
 * fills *out (arg = oc).  Its finish fails with -ENOENT when the trace
 * holds no kernel stacks (message: record with strobe record --stacks).
 */
int strobe_offcpu_consumer(struct strobe_offcpu *oc, int source, struct strobe_consumer *out);

/*
 * What the recording traced, as strobe_analysis_set_target takes it
 * (analysis.h; the consumer reads it from the file's strobe info): for a
 * command, a process ("command", "pid": target_pids and their
 * descendants) or containers ("container": target_containers, full
 * IDs), only those tasks count, as other tasks' switches are recorded
 * only when they meet a traced one.  NULL or "system": every task.
 * 0, -EINVAL (unknown target), -ENOMEM.
 */
int strobe_offcpu_set_target(struct strobe_offcpu *oc, const char *target, const char *pids,
			     const char *containers, struct strobe_error *err);

/* Feed one event directly (tests, callers with their own loop): the
 * catalogue of its format is looked up on the first event; the task
 * model may be NULL (then comms come from the switch's fields and every
 * task is "host"). */
struct strobe_event;
struct strobe_model;
int strobe_offcpu_feed(struct strobe_offcpu *oc, const struct strobe_event *ev,
		       struct strobe_model *m);

/* The folded stacks (owned by oc), complete after finish
 * (strobe_offcpu_done when fed directly: 0 or -ENOENT as above). */
int strobe_offcpu_done(struct strobe_offcpu *oc, struct strobe_error *err);
const struct strobe_flame *strobe_offcpu_flame(const struct strobe_offcpu *oc);

struct strobe_offcpu_stats {
	uint64_t switches;		/* switch-outs of selected tasks */
	uint64_t kernel_stacks;		/* paired with a switch */
	uint64_t user_stacks;
	uint64_t periods;		/* off-CPU periods counted */
	uint64_t no_stack;		/* ... of which without a stack */
	uint64_t still_off;		/* threads off CPU at the end (not counted) */
	uint64_t off_ns;		/* total counted */
};
void strobe_offcpu_stats(const struct strobe_offcpu *oc, struct strobe_offcpu_stats *st);

/* ---- latency heat maps ---------------------------------------------------- */

struct strobe_heatmap_opts {
	size_t size;		/* sizeof(struct strobe_heatmap_opts), or 0 */
	/* "syscalls" (each call's duration), "schedlat" (wake-up to run
	 * latency), "io" (I/O calls' duration), "irq" (handler runs),
	 * "periods" (each period's duration: give its definitions in
	 * analysis_opts) */
	const char *analysis;
	/* The analysis' options (may be NULL): filters (containers, pids,
	 * comms, --filter expressions), window, periods; views and log are
	 * the heat map's. Borrowed until strobe_heatmap_free. */
	const struct strobe_analysis_opts *analysis_opts;
	/* One panel per container (in order of first measurement; at most
	 * 64), on one colour scale; else one panel for every task. */
	bool per_container;
	const char *title;	/* NULL: what is measured */
	const char *subtitle;	/* NULL: the number of measurements */
	int width;		/* pixels, 0: 1200 */
};

struct strobe_heatmap;

/*
 * A heat map of one analysis' measurements: each log row of the analysis
 * (what `strobe ANALYSIS --log` prints) is counted in the cell of its
 * timestamp (when it began: x, in columns of 1 ms doubled as needed to
 * keep at most 240) and its duration (y: log2 buckets of ns).  Memory is
 * bounded by the grid, not by the trace.  0, -EINVAL (an analysis with
 * no heat map, bad options: *err says which), -ENOMEM.
 */
int strobe_heatmap_new(const struct strobe_heatmap_opts *o, struct strobe_heatmap **out,
		       struct strobe_error *err);
void strobe_heatmap_free(struct strobe_heatmap *h);	/* NULL ok */
/* As a pipeline consumer of source `source` (the analysis' consumer,
 * analysis.h, with the heat map's counting). */
int strobe_heatmap_consumer(struct strobe_heatmap *h, int source, struct strobe_consumer *out);
/* Measurements counted so far. */
uint64_t strobe_heatmap_count(const struct strobe_heatmap *h);
/* The analysis it runs (its notes: strobe_analysis_note). */
struct strobe_analysis;
const struct strobe_analysis *strobe_heatmap_analysis(const struct strobe_heatmap *h);
/* The count of the cell holding a measurement at ts (trace clock) of
 * latency_ns, in the panel of container (NULL or ignored without
 * per_container); 0 when none. */
uint64_t strobe_heatmap_cell(const struct strobe_heatmap *h, const char *container,
			     uint64_t ts, uint64_t latency_ns);
/*
 * The heat map as one SVG: a panel per container (or one), cells
 * coloured pale yellow (1) to dark red (the largest count) on a log
 * scale, each with a tooltip (time range, latency range, count), a
 * latency axis, a time axis in seconds since the first event, and a
 * legend of the colour scale.  0, -ENOENT (nothing measured: *err says
 * so), -ENOMEM.
 */
int strobe_heatmap_write_svg(const struct strobe_heatmap *h, struct strobe_buf *b,
			     struct strobe_error *err);

/* ---- the HTML report --------------------------------------------------- */

struct strobe_tracefile;
struct strobe_html_opts {
	size_t size;		/* sizeof(struct strobe_html_opts), or 0 */
	const char *title;	/* NULL: "strobe report: FILE" */
	int top;		/* rows per ranking table; 0: 20 */
	int histograms;		/* histograms drawn per analysis (the
				 * others are named in a note); 0: 6,
				 * < 0: all */
	int jobs;		/* threads (strobe_pipeline_opts.jobs):
				 * 0 or 1 one; the page is the same */
};
/*
 * One self-contained HTML page (XHTML syntax, so it is well-formed XML;
 * no script or style is fetched) about trace file tf, appended to b: the
 * recording's summary (host, target, window, CPUs, events, what was
 * wrong with the data), then, from one pass over the file, the tables
 * of every analysis the file has the events for (cputop, syscalls,
 * schedlat, io, irq) grouped by container (rankings and statistics),
 * their histograms drawn as bars (o->histograms of each), a latency heat map of the system calls
 * per container when the file has them, and an off-CPU flame graph when
 * it has stacks at its context switches (strobe record --stacks).  An
 * analysis without its events is named in the notes, not drawn.  Every
 * string goes through strobe's one XML writer.  0 or -errno.
 */
int strobe_html_report(struct strobe_tracefile *tf, const struct strobe_html_opts *o,
		       struct strobe_buf *b, struct strobe_error *err);

#ifdef __cplusplus
}
#endif

#endif
