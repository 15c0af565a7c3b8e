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
 * The perf source as a recording's records: strobe_record_opts.add_records
 * with records_arg a struct strobe_profile_records (po filled; follow_child
 * when the recording runs a command, whose PID becomes po.pid).  Opens,
 * declares and enables the source into r->perf, which the caller closes
 * (strobe_perf_close) after the recording.
 */
struct strobe_profile_records {
	struct strobe_perf_opts po;
	bool follow_child;
	struct strobe_perf *perf;	/* set by the call */
};
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

#ifdef __cplusplus
}
#endif

#endif
