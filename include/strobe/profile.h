/*
 * profile.h - CPU profiles: perf_event_open sampling with call chains as
 * a record source of the one pipeline (lib/source/perf.c), and the
 * profile consumer that names the samples' frames and folds them into
 * stacks and a table of functions (lib/pictures/profile.c).
 *
 * The perf source samples a clock (cpu-clock, or hardware cycles where
 * the machine has them) at a frequency, each sample carrying its task,
 * its time (CLOCK_MONOTONIC: the "mono" trace clock, so samples and
 * tracepoint events share one timeline) and its kernel and user call
 * chain (frame pointers).  It covers the whole system, the tasks of
 * cgroups (perf's cgroup events: the containers of `-c`), or one process
 * and its descendants.  Each CPU has its own ring; the source drains
 * them, sorts what it read and hands out, in time order, samples as
 * records of the declared format strobe_perf:sample (tgid, period,
 * callchain), which every consumer sees next to the ftrace events.  The
 * side-band records (MMAP2, COMM at exec, FORK) go to a symbol finder
 * (symbols.h) as they are read, so a process that exits before its
 * samples are named still has its maps.
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_PROFILE_H
#define STROBE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <strobe/pictures.h>
#include <strobe/record.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_profile;
struct strobe_formats;
struct strobe_record_source;
struct strobe_symbols;
struct strobe_table;

/* ---- the perf sampling source ----------------------------------------- */

struct strobe_perf_opts {
	size_t size;		/* sizeof(struct strobe_perf_opts), or 0 */
	unsigned freq;		/* samples per second per CPU (0: 99) */
	/* "cpu-clock" (NULL) or "cycles" (hardware; -ENOENT where the
	 * machine has no such counter) */
	const char *event;
	/* > 0: every thread of this process, and what it forks later
	 * (inherit).  A process stopped before its exec (strobe_record's
	 * child) is followed through the exec. */
	pid_t pid;
	/* Else cgroup v2 directories ("/sys/fs/cgroup/unified/..."): their
	 * tasks only (strobe_perf_cgroup_dir finds a task's). */
	const char *const *cgroups;
	int nr_cgroups;
	/* Else (no pid, no cgroups): the whole system. */
	unsigned ring_pages;	/* data pages per CPU ring (a power of 2;
				 * 0: 128) */
	/* Fed with the processes' maps, execs and forks (borrowed, may be
	 * NULL). */
	struct strobe_symbols *symbols;
};

struct strobe_perf;

/* Open the events (disabled) and their rings.  0, or -errno with a
 * message (-EACCES/-EPERM: perf_event_paranoid; -ENOENT: no such event;
 * -ESRCH: no such process).  Free with strobe_perf_close. */
int strobe_perf_open(const struct strobe_perf_opts *o, struct strobe_perf **out,
		     struct strobe_error *err);
/* Start sampling.  0 or -errno. */
int strobe_perf_enable(struct strobe_perf *p, struct strobe_error *err);
void strobe_perf_close(struct strobe_perf *p);	/* NULL ok; stops sampling */

/* Declare strobe_perf:sample into catalogue f.  0 or -errno. */
int strobe_perf_declare(struct strobe_perf *p, struct strobe_formats *f,
			struct strobe_error *err);
/* Fill *rs to hand the samples to a pipeline (strobe_pipeline_add_records
 * or strobe_record_opts.add_records; rs->close is NULL: the caller
 * closes p after the run). */
void strobe_perf_records(struct strobe_perf *p, struct strobe_record_source *rs);

struct strobe_perf_stats {
	uint64_t samples;	/* handed out */
	uint64_t lost;		/* the kernel's PERF_RECORD_LOST counts */
	uint64_t bad;		/* records not understood (skipped) */
	int events;		/* perf events open */
};
void strobe_perf_stats(const struct strobe_perf *p, struct strobe_perf_stats *st);

/* The cgroup v2 directory of process pid (the "0::" line of
 * /proc/PID/cgroup under the cgroup2 mount).  0 or -errno. */
int strobe_perf_cgroup_dir(pid_t pid, char *out, size_t size, struct strobe_error *err);

/*
 * The cgroup v2 directory of running container name (a name, full ID or
 * ID prefix; found through a /proc snapshot of the model, the directory
 * of its lowest live PID): a cgroup for strobe_perf_opts.cgroups, in
 * malloc'd *out (free()).  0, -ESRCH "no running container 'NAME'", or
 * -errno with a message.
 */
int strobe_profile_container_cgroup(const char *name, char **out, struct strobe_error *err);

/*
 * The perf source of a recording's target as its records: what `strobe
 * record --profile`, `strobe profile`, strobe.record(profile=) and
 * strobe.profile() share.  Fill r->po's freq, event and symbols (size
 * too), then strobe_profile_records_setup(r, o) completes r from o's
 * target (o->pid; the cgroup v2 directories of o->containers, found with
 * strobe_profile_container_cgroup; a command o->argv is followed through
 * its exec) and o to take the samples: o->clock "mono" (the clock the
 * samples carry; -EINVAL when o asks for another), o->add_records
 * strobe_profile_add_records with o->records_arg r.  The recording opens,
 * declares and enables the source into r->perf.  After the recording,
 * strobe_profile_records_release closes r->perf and frees the cgroups
 * (r stays valid for another setup).  0, or -errno with a message
 * (-ESRCH "no running container 'NAME'").
 */
struct strobe_record_opts;
struct strobe_profile_records {
	struct strobe_perf_opts po;
	bool follow_child;
	struct strobe_perf *perf;	/* set by the recording */
	char **cgroup_dirs;		/* set by setup: owned, nr in po.nr_cgroups */
};
int strobe_profile_records_setup(struct strobe_profile_records *r, struct strobe_record_opts *o,
				 struct strobe_error *err);
void strobe_profile_records_release(struct strobe_profile_records *r);	/* NULL ok */
/* strobe_record_opts.add_records with records_arg a struct
 * strobe_profile_records (set by strobe_profile_records_setup). */
struct strobe_record_source;
int strobe_profile_add_records(struct strobe_formats *f, pid_t child,
			       struct strobe_record_source *rs, void *arg,
			       struct strobe_error *err);

/* ---- the profile: samples named and folded -------------------------------- */

struct strobe_profile_opts {
	size_t size;		/* sizeof(struct strobe_profile_opts), or 0 */
	/* Root frames: container;comm (the default), comm, comm-TID, none. */
	enum strobe_flame_group group_by;
	/* Names frames (borrowed: the perf source's, so it knows the maps;
	 * required). */
	struct strobe_symbols *symbols;
	bool no_kernel;		/* leave kernel frames out */
	/*
	 * Reading a recording (strobe record --profile): feed its
	 * strobe_perf:mmap, exec and fork records to the symbol finder as
	 * they come, so that user frames of processes that are gone are
	 * named (their files read from the host when the inode matches).
	 * Live, the perf source feeds the finder itself: leave it false.
	 */
	bool replay_maps;
	/*
	 * Refreshes: with the pipeline ticking (tick_ns), called at every
	 * tick with what was folded since the last one (start and end on
	 * the timeline; start 0 for the first), then the profile is reset
	 * (strobe_profile_reset); called once more at the finish with the
	 * rest (final true, called only when there were samples since the
	 * last tick).  So the refreshes' samples add up to every sample
	 * the consumer saw.  0 or -errno (the run fails).  May be NULL.
	 */
	int (*on_interval)(struct strobe_profile *p, uint64_t start, uint64_t end, bool final,
			   void *arg);
	void *arg;
};

struct strobe_profile;

int strobe_profile_new(const struct strobe_profile_opts *o, struct strobe_profile **out,
		       struct strobe_error *err);
void strobe_profile_free(struct strobe_profile *p);	/* NULL ok */

/*
 * As a pipeline consumer of source `source` (needs the model for comms
 * and containers): every strobe_perf:sample becomes one stack, root
 * first: [container;]comm, the user frames, the kernel frames; a frame
 * is its function's name, or "[unknown] (MODULE)" (or "[unknown]" when
 * no mapping holds the address).  Other events are ignored.
 */
int strobe_profile_consumer(struct strobe_profile *p, int source, struct strobe_consumer *out);
/* Feed one event directly (m may be NULL: comms unknown, "host"). */
struct strobe_event;
struct strobe_model;
int strobe_profile_feed(struct strobe_profile *p, const struct strobe_event *ev,
			struct strobe_model *m);

/* Forget every sample (stacks, functions, counts) and start again; the
 * symbol finder and the formats seen are kept.  0, or -ENOMEM (p
 * unchanged). */
int strobe_profile_reset(struct strobe_profile *p);

/* The folded stacks (owned by p; weights are sample counts). */
const struct strobe_flame *strobe_profile_flame(const struct strobe_profile *p);
uint64_t strobe_profile_samples(const struct strobe_profile *p);

/*
 * The functions as a table "profile.functions" (view top): function,
 * module, self (samples whose innermost frame it is), self_pct, total
 * (samples with it anywhere in the stack, once per sample), total_pct;
 * sorted by self, then total, then name; the first `top` rows (0: all).
 * The table is the caller's (strobe_table_free).  0 or -ENOMEM.
 */
int strobe_profile_table(const struct strobe_profile *p, int top, struct strobe_table **out,
			 struct strobe_error *err);

/* Samples lost so far: live (during and after strobe_profile_run), the
 * kernel's count of the perf source; from a recording or fed, the counts
 * its strobe_perf pages carry (ev->missed).  Not reset by
 * strobe_profile_reset: an interval's are the difference. */
uint64_t strobe_profile_lost(const struct strobe_profile *p);

/* ---- one run: a recording's samples, or sampling live ------------------------ */

/*
 * What `strobe profile` and strobe.profile() do with a profile, in one
 * place: read the samples a recording holds, or sample a target live
 * into it, with the profile's refreshes (on_interval) at the ticks.
 */
struct strobe_profile_run_opts {
	size_t size;		/* sizeof(struct strobe_profile_run_opts), or 0 */
	/*
	 * A recording (strobe record --profile): its samples through a
	 * pipeline of that one file, the mappings, execs and forks it holds
	 * replayed to the profile's symbol finder.  -ENOENT "'PATH' holds no
	 * perf samples (...)" when it has none.
	 */
	const char *input;
	/*
	 * Else live, the target and how the recording runs (may be NULL:
	 * the whole system until stopped): argv, pid, containers, duration,
	 * stop, on_tick and event_arg, on_progress, tick_ns (the profile's
	 * refreshes).  The run records from a copy, without a file, with
	 * the task model's events only (the samples come from perf), on a
	 * 1 MiB buffer per CPU and the "mono" clock, and the profile as its
	 * consumer.
	 */
	const struct strobe_record_opts *record;
	unsigned freq;		/* live: samples per second per CPU (0: 99) */
	const char *event;	/* live: "cpu-clock" (NULL) or "cycles" */
};

struct strobe_pipeline;
struct strobe_tracefile;
struct strobe_profile_run_result {
	uint64_t samples;	/* live: the perf source's; a file: the profile's */
	uint64_t lost;		/* strobe_profile_lost at the end */
	/* live: the recording's (child_started, stopped, exec_errno...) */
	struct strobe_record_result record;
	/* a file: the pipeline that read it (its diagnostics,
	 * strobe_pipeline_nr_diags), and the file; NULL when the reading
	 * failed before its end */
	struct strobe_pipeline *pipeline;
	struct strobe_tracefile *file;
};

/*
 * Run o into p (made without replay_maps: the run sets it as the source
 * needs).  *res is filled whatever the outcome (zero it first); free it
 * with strobe_profile_run_result_free.  0, or -errno with a message:
 * the file's or the recording's errors, "cannot run 'CMD'" (-ENOEXEC),
 * -ENOENT for a recording without samples.  A live run that ran and
 * sampled nothing is not an error: strobe_profile_samples says 0.
 */
int strobe_profile_run(struct strobe_profile *p, const struct strobe_profile_run_opts *o,
		       struct strobe_profile_run_result *res, struct strobe_error *err);
void strobe_profile_run_result_free(struct strobe_profile_run_result *res);	/* NULL ok */

#ifdef __cplusplus
}
#endif

#endif
