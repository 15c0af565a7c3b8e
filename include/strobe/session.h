/*
 * session.h - tracefs control: strobe's own tracefs instance, events,
 * filters, target PIDs, buffer size, clock, and the metadata a trace file
 * needs.  (Implemented in lib/session/.)
 *
 * A session owns one tracefs instance named "strobe-<pid>" (or
 * "strobe-<pid>-<n>" when a process opens several, or a name the caller
 * gives; it may also attach to an existing instance by name and leave it
 * in place at close: STROBE_SESSION_ATTACH, STROBE_SESSION_KEEP).  Everything strobe
 * changes is inside that instance: the top-level tracing_on, current_tracer,
 * set_event, buffer_size_kb, trace_clock and options are never written, so
 * two strobe sessions (and trace-cmd) can trace at the same time without
 * disturbing each other.  strobe_session_close() removes the instance.
 *
 * Lifecycle:
 *
 *     strobe_session_open()        instance created, tracing off
 *     strobe_session_enable() ...  events (+ kernel filters)
 *     strobe_session_set_pids()    optional: only these tasks (+ children)
 *     strobe_session_start()       buffers cleared, tracing on
 *     ... read per_cpu/cpuN/trace_pipe_raw (see lib/source) ...
 *     strobe_session_stop()        tracing off (data stays readable)
 *     strobe_session_close()       instance removed, memory freed
 *
 * Event specifications (strobe_session_enable, strobe_events_match):
 *   "system:event"   either part may be a glob ("sched:sched_wak*",
 *                    "syscalls:sys_enter_open*", "sched:*", "sched:")
 *   "NAME"           a preset if NAME is one (see strobe_presets()),
 *                    else every event of system NAME ("block"),
 *                    else an event called NAME in any system
 *                    ("sched_switch"); globs allowed.
 * A specification that matches nothing is an error whose message carries
 * up to three close names ("did you mean ...").
 *
 * The library never installs signal handlers and never prints; errors are
 * -errno plus a one-line message in struct strobe_error (may be NULL).
 */
#ifndef STROBE_SESSION_H
#define STROBE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_tf_meta;

/* ---- tracefs ------------------------------------------------------------ */

/*
 * Path of the mounted tracefs ("/sys/kernel/tracing" or
 * "/sys/kernel/debug/tracing"), mounting it at /sys/kernel/tracing when
 * it is not mounted.  The string is static.  Returns 0, -EACCES/-EPERM
 * ("permission denied: strobe must run as root ...") or -ENODEV
 * ("no tracefs ...") with *err set.
 */
int strobe_tracefs_dir(const char **dir, struct strobe_error *err);

/*
 * Remove "strobe-<pid>[-n]" instances whose process no longer exists
 * (left behind by a SIGKILLed strobe), then the uprobe definitions of
 * groups "strobe_<pid>" whose process no longer exists (see
 * strobe_session_add_uprobe).  *removed (may be NULL) receives how many
 * instances and definitions were removed.  Returns 0 or -errno.
 */
int strobe_session_cleanup_stale(int *removed, struct strobe_error *err);

/* ---- presets ------------------------------------------------------------ */

struct strobe_preset {
	const char *name;		/* "sched" */
	const char *summary;		/* one line: what it is for */
	const char *const *events;	/* "system:event" specs, NULL-terminated;
					 * events this kernel lacks are skipped */
};

/* The preset table, terminated by an entry whose name is NULL.  Static. */
const struct strobe_preset *strobe_presets(void);
/* Preset called `name`, or NULL. */
const struct strobe_preset *strobe_preset_find(const char *name);

/* ---- event catalogue ---------------------------------------------------- */

/* A list of "system:event" strings; free with strobe_strv_free(). */
struct strobe_strv {
	char **v;
	size_t n;
};
void strobe_strv_free(struct strobe_strv *sv);	/* frees the strings; NULL ok */

/*
 * Available events of this kernel (tracefs available_events) matching a
 * glob over "system:event" (NULL = all), sorted.  Returns 0 or -errno.
 */
int strobe_events_list(const char *glob, struct strobe_strv *out,
		       struct strobe_error *err);

/*
 * Expand one event specification (see the top of this file) against
 * `avail` (from strobe_events_list(NULL, ...)) into *out, appending
 * without duplicates.  Returns the number of events added (>= 0, 0 when
 * all were already there), or -ENOENT with a message such as
 *   "unknown event 'sched:sched_swich' (did you mean sched:sched_switch?)"
 * Pure: no tracefs access.
 */
int strobe_events_expand(const struct strobe_strv *avail, const char *spec,
			 struct strobe_strv *out, struct strobe_error *err);

/*
 * Up to `max` names of `avail` closest to `spec` by edit distance (only
 * reasonably close ones), written as pointers into avail.  Returns how
 * many.  Pure.
 */
size_t strobe_events_suggest(const struct strobe_strv *avail, const char *spec,
			     const char **best, size_t max);

/* fnmatch-style glob match ('*', '?', '[...]') of a whole string.  Pure. */
bool strobe_glob_match(const char *glob, const char *s);

/* ---- sessions ----------------------------------------------------------- */

struct strobe_session;	/* opaque */

struct strobe_session_opts {
	size_t size;		/* sizeof(struct strobe_session_opts), or 0 */
	unsigned buffer_kb;	/* per-CPU buffer size in KiB; 0 = kernel default */
	const char *clock;	/* trace clock; NULL = "local" (attached:
				 * the instance's own) */
};

/*
 * Create the instance (tracing off, event-fork off, no events) with the
 * given clock and buffer size.  opts may be NULL.  Free with
 * strobe_session_close().  Returns 0 or -errno: -EINVAL "unknown trace
 * clock 'x' (available: local global ...)", -ENOMEM for a buffer the
 * kernel cannot allocate, and the errors of strobe_tracefs_dir().
 */
int strobe_session_open(const struct strobe_session_opts *opts,
			struct strobe_session **out, struct strobe_error *err);

/* Use the existing instance `name` (-ENOENT if there is none) as it is:
 * its events, filters, PIDs and tracing_on stay until changed, and
 * close leaves it in place unless strobe_session_set_keep(s, false). */
#define STROBE_SESSION_ATTACH	(1u << 0)
/* strobe_session_close() leaves the instance in place (detached), as it
 * is: events, filters, PIDs and tracing_on. */
#define STROBE_SESSION_KEEP	(1u << 1)

/*
 * strobe_session_open() with an instance name of the caller's (a single
 * path component of at most 63 bytes; NULL = "strobe-<pid>[-n]") and
 * flags (STROBE_SESSION_*, which need a name).  Without ATTACH the
 * instance must not exist yet (-EEXIST); with it, it must (-ENOENT), and
 * opts' clock and buffer size change it only when given.  -EINVAL for a
 * bad name.  Instances named "strobe-<pid>" are removed by
 * strobe_session_cleanup_stale() once that process is gone.
 */
int strobe_session_open_named(const char *name, unsigned flags,
			      const struct strobe_session_opts *opts,
			      struct strobe_session **out, struct strobe_error *err);

/* The instance's name ("strobe-42", or the name given). */
const char *strobe_session_name(const struct strobe_session *s);

/* Whether strobe_session_close() leaves the instance in place (true) or
 * removes it (false: the default for instances this session created). */
void strobe_session_set_keep(struct strobe_session *s, bool keep);

/*
 * Enable the events of `spec` (see above) in the instance; if `filter`
 * is not NULL, set it as the kernel filter of each of them first.  A
 * filter the kernel rejects gives -EINVAL with the kernel's own text from
 * error_log, e.g. "filter 'pidd == 1' for sched:sched_switch: Field not
 * found (at 'pidd')".  Returns the number of events enabled or -errno.
 */
int strobe_session_enable(struct strobe_session *s, const char *spec,
			  const char *filter, struct strobe_error *err);

/*
 * Disable the events of `spec` (as strobe_session_enable) in the
 * instance.  Their filters stay.  Returns the number of events disabled
 * or -errno (-ENOENT with close names for an unknown event).
 */
int strobe_session_disable(struct strobe_session *s, const char *spec,
			   struct strobe_error *err);

/*
 * Set the kernel filter of the events of `spec` without enabling them;
 * filter NULL clears it.  A filter the kernel rejects gives -EINVAL with
 * the kernel's error_log text, as strobe_session_enable.  Returns the
 * number of events changed or -errno.
 */
int strobe_session_set_filter(struct strobe_session *s, const char *spec,
			      const char *filter, struct strobe_error *err);

/*
 * Add an event trigger (tracefs events/SYS/EVENT/trigger: "stacktrace",
 * "traceoff", ...) to the events of `spec` in the instance: a stacktrace
 * trigger on sched:sched_switch records the kernel stack (an
 * ftrace:kernel_stack record) just before each context switch's record.
 * strobe_session_close() removes every trigger set here, whatever way
 * the session ends (a kept instance included); after a SIGKILL the
 * stale instance's removal drops them with it.  Returns the number of
 * events changed, or -EINVAL for a trigger the kernel does not offer
 * (message says so), -errno.
 */
int strobe_session_set_trigger(struct strobe_session *s, const char *spec,
			       const char *trigger, struct strobe_error *err);

/*
 * Set the instance's trace option `name` (options/NAME, e.g.
 * "userstacktrace": a user-space stack, an ftrace:user_stack record,
 * after every event of the instance) on or off.  Options belong to the
 * instance, so they go with it at close.  0 or -errno (-ENOENT: this
 * kernel has no such option).
 */
int strobe_session_set_option(struct strobe_session *s, const char *name, bool on,
			      struct strobe_error *err);

/*
 * The instance's tracer (current_tracer), as trace-cmd record -p sets
 * it: "function" (every kernel function entry, an ftrace:function
 * record: costly), "function_graph" (entries and returns with their
 * durations), "nop".  Before it, the functions to trace or leave out
 * (set_ftrace_filter, set_ftrace_notrace: globs, trace-cmd's -l and -n)
 * and, for function_graph, the functions whose calls to follow
 * (set_graph_function: trace-cmd's -g); each list may be NULL.  The
 * instance's removal at close takes the tracer and its filters with it.
 * Returns 0 or -errno with a message that names the file or tracer the
 * kernel lacks or refuses: -ENOENT (no such tracer: the available ones
 * are listed; or no such filter file), -EPERM or -EACCES (the kernel
 * refuses it in an instance), -EINVAL (a bad name or a function it
 * does not know).
 */
int strobe_session_set_tracer(struct strobe_session *s, const char *tracer,
			      const char *const *filter, size_t nr_filter,
			      const char *const *notrace, size_t nr_notrace,
			      const char *const *graph, size_t nr_graph,
			      struct strobe_error *err);

/*
 * User-space probes (uprobes).  The kernel keeps their definitions in
 * the top-level uprobe_events (instances have none), so this is the one
 * thing a session writes outside its instance: each probe is defined in
 * the group "strobe_<pid>" of the calling process (never touching other
 * groups), enabled in the session's instance like any event, and
 * removed from uprobe_events by strobe_session_close() (also in a
 * recorder's guardian after a SIGKILL); definitions of dead processes
 * go at the next strobe_session_cleanup_stale().
 *
 * One probe may have several places (the same function in the files of
 * several containers): each is a definition of the same event.
 */
struct strobe_uprobe_place {
	const char *path;		/* the file as the kernel opens it: absolute,
					 * no blanks or ':' ("/proc/42/root/bin/app") */
	uint64_t offset;		/* file offset of the instruction */
	uint64_t ref_ctr_offset;	/* file offset of a USDT semaphore the kernel
					 * counts up while the probe is on; 0: none */
};
struct strobe_uprobe {
	const char *name;		/* event name: [A-Za-z_][A-Za-z0-9_]*, at most
					 * 48 bytes; "_2", "_3" ... is appended when
					 * this process has one of that name already */
	bool ret;			/* a return probe (the function's return) */
	const char *args;		/* fetch-args as uprobe_events takes them
					 * ("n=%di:s32 s=+0(%si):string"), NULL: none */
	const struct strobe_uprobe_place *places;
	size_t nr_places;		/* >= 1 */
};

/*
 * Define u and enable it in the instance; its "system:event" name
 * ("strobe_1234:work") is written to event (size bytes; may be NULL).
 * Returns 0, -EINVAL with the kernel's own error_log text for a
 * definition it refuses ("cannot define probe strobe_1234:work at
 * /bin/app:0x1139: Invalid fetch argument (near '%zz')"), -ENOENT for a
 * kernel without uprobes, or -errno.
 */
int strobe_session_add_uprobe(struct strobe_session *s, const struct strobe_uprobe *u,
			      char *event, size_t size, struct strobe_error *err);

/* The events enabled so far, as "system:event"; owned by s. */
const struct strobe_strv *strobe_session_events(const struct strobe_session *s);

/*
 * Trace only these tasks (set_event_pid); with follow_fork, also every
 * task they create later (options/event-fork).  May be called again to
 * add tasks.  Returns 0 or -errno (-ESRCH when a task is already gone).
 */
int strobe_session_set_pids(struct strobe_session *s, const pid_t *pids,
			    size_t n, bool follow_fork, struct strobe_error *err);

/*
 * Never trace events in the context of these tasks
 * (set_event_notrace_pid): strobe's own threads, so that a whole-system
 * recording does not record itself.  A sched_switch to or from such a
 * task is still recorded when the other side is traced.  Adds to what is
 * there; returns 0 or -errno.
 */
int strobe_session_set_notrace_pids(struct strobe_session *s, const pid_t *pids,
				    size_t n, struct strobe_error *err);

/*
 * Every thread of process `pid` (from /proc/PID/task) into *out (malloc'd,
 * caller frees), count in *n.  Returns 0 or -ESRCH "no process PID".
 */
int strobe_proc_threads(pid_t pid, pid_t **out, size_t *n,
			struct strobe_error *err);

/* Clear the instance's buffers and turn tracing on / off. */
int strobe_session_start(struct strobe_session *s, struct strobe_error *err);
int strobe_session_stop(struct strobe_session *s, struct strobe_error *err);
/* Turn the instance's tracing_on on or off without clearing anything
 * (strobe_session_stop is set_tracing(s, false)).  0 or -errno. */
int strobe_session_set_tracing(struct strobe_session *s, bool on,
			       struct strobe_error *err);
/* 1 if the instance's tracing_on is on, 0 if off, or -errno. */
int strobe_session_tracing(struct strobe_session *s, struct strobe_error *err);

/* The instance's directory ("/sys/kernel/tracing/instances/strobe-42"). */
const char *strobe_session_dir(const struct strobe_session *s);
/* Number of per-CPU buffers (highest possible CPU + 1). */
int strobe_session_nr_cpus(const struct strobe_session *s);
/* Trace clock in use ("local"). */
const char *strobe_session_clock(const struct strobe_session *s);

/*
 * Text of per_cpu/cpuN/stats (malloc'd, caller frees) and its "overrun"
 * value.  Returns 0 or -errno.
 */
int strobe_session_cpu_stats(struct strobe_session *s, int cpu, char **text,
			     unsigned long long *overrun, struct strobe_error *err);

/*
 * One reading of the trace clock paired with wall-clock time: at trace
 * clock trace_ns it was realtime_ns (CLOCK_REALTIME, ns since the epoch)
 * give or take error_ns.  strobe record stores one taken at the start and
 * one at the end of a recording in the file's strobe info
 * ("clock_sync_start", "clock_sync_end": the three numbers as
 * strobe_clock_sync_format writes them), which strobe_merge uses to put
 * several files on one timeline.
 */
struct strobe_clock_sync {
	uint64_t trace_ns;
	int64_t realtime_ns;
	uint64_t error_ns;
};
/* Take one now (the narrowest bracket of a few tries; see strobe-merge(3)
 * for how each clock is read).  Returns 0, or -ENOTSUP for counter
 * clocks (counter, x86-tsc), -errno with *err set. */
int strobe_session_clock_sync(struct strobe_session *s, struct strobe_clock_sync *out,
			      struct strobe_error *err);
/* "TRACE_NS REALTIME_NS ERROR_NS" into buf (snprintf's contract). */
int strobe_clock_sync_format(const struct strobe_clock_sync *cs, char *buf, size_t size);
/* The reverse: 0, or -EINVAL when text (NULL ok) is not that. */
int strobe_clock_sync_parse(const char *text, struct strobe_clock_sync *cs);

/*
 * Turn tracing off, remove the instance, free s; a kept instance
 * (STROBE_SESSION_KEEP, ATTACH, strobe_session_set_keep) is left as it is
 * and only s is freed.  Safe at any point of the lifecycle and with NULL.
 * Returns 0 or -errno if the instance could not be removed (s is freed
 * anyway).
 */
int strobe_session_close(struct strobe_session *s);

/* ---- metadata for trace files ------------------------------------------ */

struct strobe_session_meta;	/* opaque: owns every text it points to */

/*
 * Collect what a trace.dat needs besides the data: header_page,
 * header_event, the formats of ftrace internal events and of every
 * enabled event, /proc/kallsyms, printk_formats, saved_cmdlines plus
 * `extra_cmdlines` ("pid comm\n" lines, may be NULL), the clock, uname.
 * Free with strobe_session_meta_free().  Returns 0 or -errno.
 */
int strobe_session_meta_collect(struct strobe_session *s,
				const char *extra_cmdlines,
				struct strobe_session_meta **out,
				struct strobe_error *err);
/*
 * The same, with flags: STROBE_META_NO_KALLSYMS leaves /proc/kallsyms out
 * (megabytes, most of the time collecting takes): enough to decode the
 * events of a live stream (strobe_capture_opts.meta), not to print kernel
 * addresses as symbols.
 */
#define STROBE_META_NO_KALLSYMS	(1u << 0)
int strobe_session_meta_collect_flags(struct strobe_session *s,
				      const char *extra_cmdlines, unsigned flags,
				      struct strobe_session_meta **out,
				      struct strobe_error *err);
/* The collected metadata in the writer's form; owned by m. */
const struct strobe_tf_meta *strobe_session_meta_tf(const struct strobe_session_meta *m);
/* Width of a page header's commit field (4 or 8), from header_page. */
unsigned strobe_session_meta_commit_size(const struct strobe_session_meta *m);
void strobe_session_meta_free(struct strobe_session_meta *m);	/* NULL ok */

#ifdef __cplusplus
}
#endif

#endif
