/*
 * record.h - recording a trace into a trace.dat file (lib/record/).
 *
 * strobe_record() runs a whole recording: it opens a session (session.h),
 * enables the events, optionally forks the command to trace, captures
 * every CPU's ring buffer with one splice-based reader thread per CPU into
 * unnamed per-CPU files in the output's folder (a capture, capture.h),
 * and at the end
 * assembles a trace-cmd v6 file with the tracefile writer.  The file's
 * header is reserved at start so that a disk that fills up later still
 * leaves a readable (shorter) file, marked "incomplete=disk full".
 *
 * A live consumer (on_event) may get every event as it is captured, in
 * timestamp order, from the same capture: the recording then tees its
 * pages into a live stream (capture.h) as well as into the file, or,
 * with no_output, into the stream only.  `strobe syscalls -- CMD` and
 * the other analysis commands run live this way.
 *
 * The library never installs signal handlers: the caller points `stop` at
 * a flag its handler sets (SIGINT, SIGTERM, SIGHUP); strobe_record() polls
 * it, stops cleanly and writes the file.  Reader threads block every
 * signal so that signals reach the caller's thread.
 */
#ifndef STROBE_RECORD_H
#define STROBE_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_event;
struct strobe_model;

/* One -e (or --preset entry) with its optional -f filter. */
struct strobe_record_event {
	const char *spec;	/* event specification, see session.h */
	const char *filter;	/* kernel filter or NULL */
};

struct strobe_consumer;
struct strobe_flight;		/* a running flight recorder (opaque) */
struct strobe_flight_snapshot;
struct strobe_formats;
struct strobe_record_source;

/*
 * A recording's figures so far (strobe_record_opts.on_progress): events
 * the kernel's buffers took (read out and still waiting), events lost
 * (the buffers' overrun and dropped counts), bytes of trace data
 * written to the file so far (0 without a file), seconds since tracing
 * went on.
 */
struct strobe_record_progress {
	size_t size;			/* sizeof(struct strobe_record_progress) */
	uint64_t events;
	uint64_t lost;
	uint64_t bytes;
	double elapsed;
};

struct strobe_record_opts {
	size_t size;			/* sizeof(struct strobe_record_opts), or 0 */
	const char *output;		/* NULL = "trace.dat" */
	const struct strobe_record_event *events;
	size_t nr_events;		/* 0 = presets "sched" and "syscalls" */
	unsigned buffer_kb;		/* per-CPU buffer, 0 = kernel default */
	const char *clock;		/* NULL = "local" */
	/*
	 * Target, at most one of: argv (fork and exec argv[0] from PATH once
	 * tracing is on, trace it and its descendants, stop when it exits),
	 * pid (every thread of process pid and its future children, until
	 * it exits), neither (the whole system).
	 */
	char *const *argv;
	pid_t pid;
	/*
	 * Or containers (name, full ID or ID prefix of at least 4 hex digits,
	 * as strobe_container_matches): every task of each, those created
	 * later included (followed at fork, and found by a /proc scan every
	 * 100 ms when they enter by other paths, e.g. podman exec).  Not with
	 * argv or pid.  -ESRCH "no running container 'x' (running: ...)".
	 */
	const char *const *containers;
	size_t nr_containers;
	/*
	 * Unless no_model is set, the file also gets strobe's process and
	 * container table (model.h): a snapshot of /proc at the start, the
	 * tasks that appeared during the recording (a /proc scan every
	 * 250 ms) and the containers' names; and the events that keep it
	 * current are enabled too: sched_process_fork/exec/exit,
	 * task_newtask, task_rename, cgroup_attach_task.
	 */
	bool no_model;
	double duration;		/* seconds, 0 = until stop / target exit */
	volatile sig_atomic_t *stop;	/* set non-zero to stop; may be NULL */
	/* Called once, on the calling thread, when tracing is on and before
	 * the command is released.  May be NULL. */
	void (*on_tracing)(void *arg);
	void *arg;
	const char *command_line;	/* stored as "command=" in the file */
	/*
	 * Live consumer (may be NULL): every captured event, in timestamp
	 * order, from the capture's live stream, with the task model m
	 * already updated by that event; called on the thread that called
	 * strobe_record().  A negative return stops the recording and
	 * strobe_record() returns it (with *err as the consumer left it in
	 * event_err, or a generic message).  When the consumer falls behind,
	 * pages are dropped for the stream only (the next event of that CPU
	 * has ev->missed set; counted in the result), never for the file.
	 *
	 * Each CPU's stream queue holds as much as its kernel buffer
	 * (buffer_kb) before it drops, so the bursts the file rides out
	 * cost the consumer nothing.
	 *
	 * m is a model of its own, loaded from /proc when tracing starts and
	 * fed only by the stream's events (names of containers looked up as
	 * they appear), not the one stored in the file.  The formats of the
	 * events, to attach analyses or sinks to before feeding them, are
	 * strobe_format_catalogue(ev->format) of the first event.  The
	 * stream's own events are enabled by the caller (events / presets)
	 * plus, unless no_model, the model's.  m is freed before
	 * strobe_record() returns: what points into it (analysis tables:
	 * strobe_analysis_finish) is finished in on_tick(true).
	 */
	int (*on_event)(const struct strobe_event *ev, struct strobe_model *m, void *arg);
	/* Called at least every 100 ms on the same thread while recording,
	 * and once with final = true after the last event.  May be NULL. */
	int (*on_tick)(bool final, void *arg);
	void *event_arg;
	struct strobe_error *event_err;	/* where on_event/on_tick put their message; may be NULL */
	bool no_output;			/* no trace file: the consumer only */
	/*
	 * Consumers of the live stream (pipeline.h), beside on_event or
	 * instead of it (either makes the recording live): started with the
	 * capture's formats and the live task model (m above), fed every
	 * event after on_event, ticked every tick_ns of trace time (0: no
	 * ticks; a quiet machine still ticks), finished after the last
	 * event, while the model still exists.  A consumer that fails
	 * stops the recording; strobe_record() returns its error (and its
	 * message in *err).  The array and what it points to are borrowed.
	 */
	const struct strobe_consumer *consumers;
	size_t nr_consumers;
	uint64_t tick_ns;
	/* stored as "host=" in the file (at most 64 bytes are kept); NULL =
	 * the node name (uname -n) */
	const char *host_name;
	/*
	 * Off-CPU stacks (strobe-flamegraph(1)): stacks records the kernel
	 * stack at every context switch, a stacktrace trigger on
	 * sched:sched_switch (enabled with it) that writes an
	 * ftrace:kernel_stack record just before each switch's record, on
	 * its CPU, in the context of the task switched out.  user_stacks
	 * (implies stacks) also turns on the instance's userstacktrace
	 * option: an ftrace:user_stack record after *every* event the
	 * instance records (not only switches), which costs a user-stack
	 * walk per event.  Both are removed with the instance at the end.
	 */
	bool stacks;
	bool user_stacks;
	/*
	 * Flight recorder (strobe-record(3), "Flight recorder"): with
	 * flight_size, nothing is written while recording; each CPU's pages
	 * go to a ring of flight_size bytes in strobe's memory (the last
	 * flight_size of that CPU's events), and a trigger writes a snapshot:
	 * a complete trace file named OUTPUT.SEQ-TIME-TRIGGER.EXT, trimmed to
	 * the span every CPU's ring covers.  Not with no_output.
	 */
	uint64_t flight_size;		/* ring bytes per CPU; 0: no flight recorder */
	double flight_span;		/* > 0: keep only this many seconds back */
	double flight_post;		/* seconds after a trigger also kept */
	double flight_min_interval;	/* seconds between two snapshots' triggers */
	unsigned flight_max_snapshots;	/* 0: no limit */
	bool flight_on_exit;		/* one more snapshot at the end ("exit") */
	/* Each increment is a trigger "signal" (a SIGUSR1 handler adds 1;
	 * strobe_record only reads it).  May be NULL. */
	volatile sig_atomic_t *flight_signal;
	/* Directory of the control FIFO `strobe trigger` writes to
	 * (DIR/flight-PID, made at start, removed at the end); NULL: none. */
	const char *flight_control_dir;
	/* Called on the recording's thread once the flight recorder runs
	 * (f is valid until strobe_record returns: strobe_flight_trigger may
	 * be called from any thread meanwhile), and after each snapshot or
	 * failed snapshot.  Either may be NULL; arg is event_arg.  on_flight
	 * is called once more with f NULL just before f is freed (also when
	 * the recording failed before it ran): a caller that triggers from
	 * other threads holds a lock around strobe_flight_trigger and takes
	 * it there, so that no trigger reaches a freed f. */
	void (*on_flight)(struct strobe_flight *f, void *arg);
	void (*on_snapshot)(const struct strobe_flight_snapshot *s, void *arg);
	/*
	 * Records that are not ftrace pages (a BPF ring buffer, bpf.h; perf
	 * samples, profile.h), merged into the live stream's timeline and,
	 * with an output file, stored in it (strobe-tracefile(3), "Records
	 * beyond ftrace pages"): each record packed into an instance buffer
	 * named by its format's system (strobe_bpf, strobe_perf), the
	 * declared formats in the file's event-format section, a record's
	 * ev->missed as the lost-events mark of the next page.  A file
	 * makes the recording live (a stream) even without a consumer.
	 * Pages are written to unlinked temporary files next to the output
	 * as they fill (one page of memory per CPU and system).  The
	 * records' times must be on the recording's clock: set clock to the
	 * source's ("mono" for BPF and perf).  Not with flight_size
	 * (-ENOTSUP).  A record earlier than the one before it on its CPU
	 * or larger than a page is left out and counted as lost there
	 * (res->records_left_out); a write error ends the storing: the file
	 * is written with the tracefs events only and strobe_record returns
	 * that error.  A SIGKILLed recording's guardian saves the tracefs
	 * events only.
	 * Called once on the calling thread before tracing starts, when the
	 * live stream's formats exist and the command (argv) is forked but
	 * not released (child: its PID, else 0): declare the records'
	 * formats into f and fill *rs (borrowed by the recording: rs->ctx
	 * outlives strobe_record; close is not called).  0, or -errno with
	 * *err to fail the recording.  May be NULL.  Once the capture was
	 * stopped and drained, the source ends when it has nothing ready.
	 */
	int (*add_records)(struct strobe_formats *f, pid_t child,
			   struct strobe_record_source *rs, void *arg,
			   struct strobe_error *err);
	void *records_arg;
	/*
	 * With argv: trace the whole machine, not only the command and its
	 * descendants (no kernel PID filter); the command is still started
	 * once tracing is on and the recording ends when it exits, and the
	 * file says "target=system" with the command's PID as
	 * "command_pid=".  For consumers that select the command's tasks
	 * themselves and need the others' events (strobe why -- CMD: its
	 * wakers outside it).
	 */
	bool argv_whole_system;
	/*
	 * A tracer in the instance (strobe_session_set_tracer: "function",
	 * "function_graph"), with its function filters (NULL lists: none):
	 * its records (ftrace:function, ftrace:funcgraph_entry/exit) go into
	 * the file with the events.  NULL: none (nop).
	 */
	const char *tracer;
	const char *const *ftrace_filter;	/* -l */
	size_t nr_ftrace_filter;
	const char *const *ftrace_notrace;	/* -n */
	size_t nr_ftrace_notrace;
	const char *const *graph_function;	/* -g */
	size_t nr_graph_function;
	/*
	 * User-space probes (probe.h, strobe_probe_add), recorded as events
	 * "strobe_<pid>:NAME" filtered to the target's tasks like every
	 * event: uprobes "PATH:FUNCTION[%return] [ARGS...]" and usdt
	 * "PATH:PROVIDER:NAME", PATH resolved in the root of the target (-p's
	 * process, a task of each target container; a command or the whole
	 * system: strobe's own).  Their definitions are removed at the end,
	 * whatever way it comes (the guardian after a SIGKILL).
	 */
	const char *const *uprobes;
	size_t nr_uprobes;
	const char *const *usdt;
	size_t nr_usdt;
	/*
	 * Record strobe's own threads' system calls too.  By default they
	 * are left out (a "common_pid != T" clause in each syscall event's
	 * filter), so that they do not fill a whole-system recording; their
	 * other events, and interrupts that arrive while they run (a disk's
	 * completion), are recorded either way.
	 */
	bool keep_self;
	/*
	 * Progress while recording, for a display such as strobe's
	 * (events and lost events so far on a terminal): called on the
	 * recording's thread about every 250 ms from when tracing is on,
	 * and once more with last = true when the recording ends, before
	 * strobe_record() returns.  Cheap (it reads the per-CPU stats of
	 * strobe's instance); NULL = never.
	 */
	void (*on_progress)(const struct strobe_record_progress *pg, bool last, void *arg);
	void *progress_arg;
};

/* One snapshot of a flight recorder (a trigger that was not suppressed). */
struct strobe_flight_snapshot {
	unsigned seq;			/* 1, 2, ... */
	char path[4096];		/* the file written */
	char trigger[16];		/* "signal", "trigger", "exit", "api", ... */
	char reason[256];		/* the trigger's text ("" if none) */
	double time;			/* the trigger's CLOCK_REALTIME, seconds */
	uint64_t events;		/* events in the file */
	uint64_t lost;			/* lost events inside its span (page headers) */
	uint64_t trimmed;		/* events left out: before the common span */
	uint64_t first_ts, last_ts;	/* trace-clock span of the file */
	uint64_t file_size;
	int error;			/* 0, or -errno: no file; see msg */
	char msg[256];
};

/* Triggers of a flight recorder that wrote no snapshot. */
struct strobe_flight_result {
	uint64_t triggers;		/* triggers seen, all kinds */
	uint64_t suppressed_interval;	/* within flight_min_interval of the last */
	uint64_t suppressed_limit;	/* after flight_max_snapshots */
	uint64_t suppressed_busy;	/* while a snapshot's --post ran */
	struct strobe_flight_snapshot *snapshots;	/* see _result_free */
	size_t nr_snapshots;
	uint64_t ring_bytes;		/* per CPU */
	uint64_t ring_resident;		/* bytes of every ring ever written */
	uint64_t ring_waits;		/* pushes that waited for a snapshot */
	double ring_wait_s;
};

/*
 * A trigger on a running flight recorder, from any thread: trigger is a
 * short word naming the kind ("api" if NULL; [a-z0-9-], at most 15
 * bytes), reason a text stored in the file (NULL ok; cut at 255 bytes).
 * The recording's thread writes the snapshot within about 20 ms,
 * unless rate limits suppress it.  0, -EINVAL (bad trigger word) or
 * -ENOMEM.
 */
int strobe_flight_trigger(struct strobe_flight *f, const char *trigger, const char *reason);

/*
 * The running flight recorders whose control FIFOs are in dir (see
 * flight_control_dir): their PIDs, sorted, into a malloc'd *pids (free()).
 * FIFOs of processes that are gone are removed.  0 or -errno.
 */
int strobe_flight_list(const char *dir, pid_t **pids, size_t *nr, struct strobe_error *err);
/*
 * Send a trigger "trigger" with reason (NULL ok, at most 200 bytes, no
 * newline) to the flight recorder of pid through its FIFO in dir.
 * 0, -ESRCH (no such flight recorder) or -errno.
 */
int strobe_flight_send(const char *dir, pid_t pid, const char *reason,
		       struct strobe_error *err);

struct strobe_record_cpu {
	uint64_t events;	/* events in this CPU's pages */
	uint64_t lost;		/* lost events counted in page headers */
	bool lost_unknown;	/* a page said "lost" without a count */
	uint64_t overrun;	/* "overrun" of per_cpu/cpuN/stats */
	uint64_t bytes;		/* raw data bytes captured */
};

struct strobe_record_result {
	int nr_cpus;
	struct strobe_record_cpu *cpus;	/* nr_cpus entries, see _result_free */
	uint64_t file_size;		/* bytes of the output file */
	double duration;		/* seconds tracing was on */
	bool child_started;		/* argv given and the exec succeeded */
	int exec_errno;			/* argv given and its exec failed: the
					 * errno (ENOENT, EACCES, ...), else 0 */
	bool child_exited;		/* ... and it exited before we stopped */
	int child_status;		/* waitpid() status when child_exited */
	bool stopped;			/* stopped by *stop */
	char incomplete[64];		/* "" or why the file was cut short */
	char output[4096];		/* path of the file written ("" with
					 * no_output) */
	/* With on_event: events handed to it, and events the stream
	 * reported lost (the kernel's losses and pages dropped because the
	 * consumer fell behind; known counts). */
	uint64_t stream_events, stream_missed;
	/* argv given: the command's PID, set once it is forked (before
	 * on_tracing is called), so a consumer may know its target. */
	pid_t child_pid;
	/* With flight_size: the snapshots and suppressed triggers. */
	struct strobe_flight_result flight;
	/* add_records with a file: records stored in its instance buffers
	 * (0 when they could not be stored: see strobe_record's return), and
	 * records left out one by one (earlier than the one before on their
	 * CPU, larger than a page: each is a lost record of the file). */
	uint64_t records, records_left_out;
};

/*
 * Record.  Fills *res (may be NULL) even on failure as far as it got;
 * free its memory with strobe_record_result_free().  With no_output the
 * per-CPU counts (events, lost) are the stream's.  Returns:
 *   0        the file is written (or, with no_output, the stream ended);
 *   -ENOSPC  the disk filled up: capture stopped, the file holds what was
 *            captured and is marked incomplete, *err says so;
 *   -ENOEXEC / -ENOENT / -EACCES ...  the command could not be executed
 *            (message "cannot run 'x': ..."), no file is left;
 *   the consumer's negative return: it stopped the recording (the file
 *            is written all the same);
 *   other -errno with *err set (bad event, bad filter, not root, ...).
 */
int strobe_record(const struct strobe_record_opts *opts,
		  struct strobe_record_result *res, struct strobe_error *err);
void strobe_record_result_free(struct strobe_record_result *res); /* NULL ok */

#ifdef __cplusplus
}
#endif

#endif
