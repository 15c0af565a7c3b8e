/*
 * analysis-int.h - what the analyses share (internal): the analysis
 * interface (a table of event handlers plus init/lost/finish hooks), the
 * core that dispatches the one event stream to them, owners (who a
 * measurement belongs to, by the --group-by rule), an open-addressing
 * hash map for per-thread and per-group state, result tables, and
 * latency statistics with histograms.
 *
 * How dispatch works: at attach, every subscription of every analysis
 * ("sched:sched_switch", "syscalls:sys_enter_*") is matched against the
 * tep_handle's events once; the core keeps an array indexed by event id
 * whose entries list (handler, analysis, cookie).  Per event the core
 * does one array index and calls the handlers: no string compares, no
 * allocation.  Handlers read fields through strobe_field accessors their
 * analysis resolved in its resolve hook.
 *
 * Where each part lives: the analysis object, dispatch, gaps, the window
 * and thread instances in core.c; the building of result tables,
 * snapshots and resets (intervals) in interval.c; the hash map in
 * hash.c; result tables and rankings in tables.c; latency statistics and
 * histograms in stats.c; owners and group keys in owners.c; which tasks
 * count (the recording's target, the task filters) in targets.c.  This header is the one place
 * for their cross-file declarations; what runs per event and is a line or
 * two (ana_task, ana_inst_get, the window and filter tests) is inline here
 * so splitting the files costs no call.
 */
#ifndef STROBE_ANALYSES_INT_H
#define STROBE_ANALYSES_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/analysis.h>

#include "format/format-int.h"
#include "syscalls/syscalls.h"
#include "table/table-int.h"
#include "util/err.h"

struct ana;
struct ana_core;

/* ---- hash map: uint64 key -> fixed-size value, open addressing -------- */

/*
 * Linear probing with backward-shift deletion (no tombstones), grows at
 * 3/4 load, never shrinks below its peak (bounded by the peak number of
 * live keys).  The key ANA_MAP_EMPTY is reserved.  Value pointers are
 * valid until the next put or del on the map.
 */
#define ANA_MAP_EMPTY UINT64_MAX
struct ana_map {
	uint64_t *keys;
	uint8_t *vals;
	size_t cap;		/* power of two, or 0 */
	size_t n;
	size_t vsize;
};
void ana_map_init(struct ana_map *m, size_t vsize) STROBE_HIDDEN;
void ana_map_free(struct ana_map *m) STROBE_HIDDEN;
/* Remove every entry, keeping the capacity (values owning memory are the
 * caller's to free first). */
void ana_map_clear(struct ana_map *m) STROBE_HIDDEN;
/* dst (uninitialised) becomes a copy of src, values copied bytewise;
 * 0 or -ENOMEM (dst then empty). */
int ana_map_copy(struct ana_map *dst, const struct ana_map *src) STROBE_HIDDEN;
void *ana_map_get(const struct ana_map *m, uint64_t key) STROBE_HIDDEN;
/* Double the capacity (64 first); 0 or -ENOMEM. */
int ana_map_grow(struct ana_map *m) STROBE_HIDDEN;

static inline size_t ana_map_slot(uint64_t key, size_t cap)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 32;
	return (size_t)key & (cap - 1);
}

/* Do n more keys fit without the map growing (growing moves every value,
 * so a caller holding pointers into it asks first)? */
static inline bool ana_map_fits(const struct ana_map *m, size_t n)
{
	return (m->n + n) * 4 <= m->cap * 3;
}

/* Value of key, inserted zero-filled if absent (*created = true);
 * NULL when out of memory. created may be NULL. */
static inline void *ana_map_put(struct ana_map *m, uint64_t key, bool *created)
{
	size_t i;

	if (created)
		*created = false;
	if (key == ANA_MAP_EMPTY)
		return NULL;
	if (!ana_map_fits(m, 1) && ana_map_grow(m) < 0)
		return NULL;
	for (i = ana_map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals + i * m->vsize;
		if (m->keys[i] == ANA_MAP_EMPTY)
			break;
	}
	m->keys[i] = key;
	memset(m->vals + i * m->vsize, 0, m->vsize);
	m->n++;
	if (created)
		*created = true;
	return m->vals + i * m->vsize;
}
void ana_map_del(struct ana_map *m, uint64_t key) STROBE_HIDDEN;
/* Delete the entry whose value is val (from a get or put on m since its
 * last change): a del without probing for the key again. */
void ana_map_del_val(struct ana_map *m, void *val) STROBE_HIDDEN;
/* Iterate: for (i = 0; (v = ana_map_next(m, &i, &key)); ) */
void *ana_map_next(const struct ana_map *m, size_t *pos, uint64_t *key) STROBE_HIDDEN;

static inline uint64_t ana_key2(uint64_t hi, uint32_t lo)
{
	return (hi << 20) ^ lo;		/* lo < 2^20 */
}

/* ---- owners ----------------------------------------------------------- */

/* Who a measurement is accounted to, saved with each aggregate so rows
 * survive the thread's exit. */
struct ana_owner {
	int tid;		/* -1 when grouping coarser than threads */
	int pid;		/* tgid, -1 unknown */
	int cpu;		/* -1 unless grouping by CPU */
	int container;		/* model container index */
	uint64_t pidns;		/* PID namespace inode, 0 unknown */
	char comm[16];
};

/* ---- latency statistics ------------------------------------------------ */

#define ANA_FINE_SUB 16		/* linear sub-buckets per octave */
struct ana_hist {
	uint32_t us_log2[64];	/* bcc: slot 0 holds 0-1 us, slot k [2^k, 2^(k+1)) */
	uint32_t ms_log2[64];	/* the same of milliseconds (bcc's -m) */
	uint32_t fine[64][ANA_FINE_SUB];	/* ns: octave, 1/16th of it */
};

/*
 * Exact integer sums, so that two ana_stats of parts of a trace merge into
 * what one would have counted (ana_stats_merge) and adding a duration costs
 * no division: the deviations are taken from `shift`, the first duration
 * (a shifted sum of squares keeps the variance precise when the durations
 * are far from 0 and close to each other).  Sums wrap as total does.
 */
struct ana_stats {
	uint64_t count;
	uint64_t total;		/* sum of durations; sum of (ns - shift) is
				 * total - count * shift */
	uint64_t min, max;
	uint64_t shift;		/* the first duration added */
	uint64_t sq_lo, sq_hi;	/* sum of (ns - shift)^2, 128 bits */
	struct ana_hist *hist;	/* only with the FREQ view */
};
/* Add one duration; allocates the histogram on first use when want_hist. */
void ana_stats_add(struct ana_stats *st, uint64_t ns, bool want_hist) STROBE_HIDDEN;
/* Fold x's count, sums, min and max into y (not the histogram). */
void ana_stats_merge(struct ana_stats *y, const struct ana_stats *x) STROBE_HIDDEN;
/* The sample standard deviation (n - 1), 0 below two durations. */
double ana_stats_stddev(const struct ana_stats *st) STROBE_HIDDEN;
void ana_stats_free(struct ana_stats *st) STROBE_HIDDEN;

/* The name of the i-th analysis a runs ("cputop"), NULL past the last. */
const char *ana_name_at(const struct strobe_analysis *a, int i) STROBE_HIDDEN;

/* ---- the analysis interface ------------------------------------------- */

typedef void (*ana_handler)(struct ana *a, const struct strobe_event *ev, int cookie);

struct ana_sub {
	const char *system;	/* glob */
	const char *event;	/* glob */
	ana_handler fn;
	int cookie;		/* passed to fn */
};

struct ana_ops {
	const char *name;
	const char *summary;
	const char *needs;	/* events it needs, for the user */
	const char *preset;	/* "syscalls" */
	size_t priv_size;
	/* Declare the result tables (schemas only) from a->core->opts. */
	int (*init)(struct ana *a);
	/* Subscriptions, terminated by a zero entry (may be NULL). */
	const struct ana_sub *subs;
	/* Per-instance subscriptions (may be NULL): asked at attach, after
	 * resolve, for every event type of the trace; returns the handler for
	 * events of type e (and its cookie) or NULL. */
	ana_handler (*subscribe)(struct ana *a, const struct strobe_format *e, int *cookie);
	/* Resolve fields in the file's formats; return 0 if the analysis can
	 * run, -ENOENT if required events are missing. */
	int (*resolve)(struct ana *a, struct strobe_formats *fmts);
	/* Check the analysis' own expressions against the formats, after
	 * resolve (may be NULL): 0, or -errno with *err saying what;
	 * warnings as notes (ana_check_warn). */
	int (*check)(struct ana *a, struct strobe_formats *fmts, struct strobe_error *err);
	/* Events were lost on `cpu` just before ts: forget in-flight state
	 * that lives on that CPU (per-thread state is checked with
	 * ana_gap_since()). */
	void (*lost)(struct ana *a, int cpu, uint64_t ts);
	/* Fill the tables: the last interval, to the window's end (what is
	 * still running is charged up to there). */
	int (*finish)(struct ana *a);
	/* Fill the tables for a snapshot at ts (interval.c): the interval's
	 * figures, what is in flight left out except time-sharing figures
	 * (CPU time of running tasks), charged up to ts without changing
	 * anything later events, snapshots or finish see.  NULL: finish
	 * changes nothing and serves. */
	int (*snapshot)(struct ana *a, uint64_t ts);
	/* A new interval begins at ts (interval.c): drop the interval's
	 * counters, statistics, rankings and rows; keep what is in flight
	 * (running tasks, from ts on; calls entered, wake-ups, requests,
	 * open periods) and who things belong to. */
	void (*reset)(struct ana *a, uint64_t ts);
	void (*free)(struct ana *a);
};

/* One running analysis. */
struct ana {
	const struct ana_ops *ops;
	struct ana_core *core;
	struct strobe_table **tables;	/* declared in init, filled in finish */
	int nr_tables;
	int nr_declared;	/* tables declared in init; those after them are
				 * per-group histograms a build added
				 * (ana_emit_hist), dropped by the next build */
	void *priv;
	bool active;		/* its events are present */
	uint64_t dropped;	/* measurements dropped: lost events */
};

/* Declare a result table of a; returns it (NULL on ENOMEM). */
struct strobe_table *ana_add_table(struct ana *a, const char *name, const char *title,
				   enum strobe_view view) STROBE_HIDDEN;
/* Add a note (printf-style) to the analysis object. */
void ana_note(struct ana_core *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) STROBE_HIDDEN;

/* ---- the core ------------------------------------------------------------- */

struct ana_core {
	struct strobe_analysis_opts opts;
	struct strobe_model *model;
	struct strobe_formats *fmts;
	bool live;		/* fmts are a live kernel's (unknown event names
				 * in expressions are errors) */
	uint64_t first_ts, last_ts;	/* events seen inside the window */
	uint64_t win_begin, win_end;	/* after finish or a snapshot */
	uint64_t ival_begin;	/* the latest strobe_analysis_reset's ts, 0 none */
	bool built;		/* tables built once (a snapshot or finish) */
	int nr_base_notes;	/* notes before the first build (attach's): the
				 * later ones are the build's, replaced by the next */
	uint64_t last_gap_any;	/* ts of the latest event after a gap */
	uint64_t *gap_end;	/* per CPU: ts of the latest event after a gap */
	uint64_t *cpu_last;	/* per CPU: ts of the latest event (before the
				 * current one while lost() hooks run) */
	/* per CPU: who runs there and since when, as far as the events say,
	 * before and inside the window: the next_pid of the latest
	 * sched_switch from its time, or, when an event in another task's
	 * context came after it (a switch not recorded) or after a gap, that
	 * task from its first event.  Evidence of who ran on a CPU before its
	 * first switch in the window, an interval or after a gap. */
	int *cpu_pid;
	uint64_t *cpu_pid_since;
	int switch_type;	/* sched_switch's type id (valid: switch_next) */
	struct strobe_field switch_next;	/* its next_pid */
	int nr_cpus;		/* entries of the per-CPU arrays */
	bool want_hist;
	/* PID-filtered traces: tid -> struct ana_inst, what was decided
	 * about each thread instance.  (Instances themselves, PID reuse
	 * included, are the task model's: strobe_task.serial.) */
	struct ana_map inst;
	uint64_t sweep_ts;	/* last sweep of exited entries */
	/* The selection (--tid/--pid/--comm/--container/--cpu/--filter as
	 * one expression; NULL: everything) and whether it has terms beyond
	 * its CPU mask; cur is the event being dispatched (NULL outside). */
	struct strobe_expr_filter *filter;
	bool task_filter;
	struct strobe_expr_env env;
	const struct strobe_event *cur;
	/*
	 * A PID-filtered recording (strobe record -- CMD, -p PID, -c NAME:
	 * set_event_pid with event-fork).  Its events are the traced tasks'
	 * own, plus the sched_switch and wake-ups they share with untraced
	 * tasks (the kernel records a switch when prev or next is traced, a
	 * wake-up when waker or wakee is): what an untraced task did between
	 * them is not in the trace.  Set by strobe_analysis_set_target().
	 */
	bool filtered;
	/* ... or the whole machine recorded with a command's tasks as the
	 * target, selected in user space (strobe why -- CMD: target
	 * "command-all"): filtered and descendants as for -- CMD, though
	 * the other tasks' events are all there */
	bool whole;
	const char *target;	/* "-- CMD", "-p PID" or "-c NAME" (static) */
	bool by_container;	/* -c: traced = in a target container */
	bool descendants;	/* -- CMD: every task whose parent chain leads
				 * to the command was forked while traced */
	int *target_pids;	/* the command / -p process */
	int nr_target_pids;
	char **target_conts;	/* -c: the containers' full IDs */
	int nr_target_conts;
	signed char *cont_traced;	/* per container index: 0 unknown, 1, -1 */
	int nr_cont_traced;
	char **notes;
	int nr_notes;
};

struct disp;

/* The analysis object (core.c; interval.c builds its results). */
struct strobe_analysis {
	struct ana_core core;
	struct ana *anas;
	int nr_anas;
	struct disp *disp;	/* indexed by event id */
	int nr_disp;
	struct strobe_model *own_model;
	bool attached, finished;
	const struct strobe_table **all_tables;	/* the latest build's */
	int nr_all_tables;
	/* the core's own events */
	struct strobe_field f_fork_child, f_fork_parent, f_exit_pid;
	uint64_t nr_events;
	int source;		/* as a pipeline consumer: the source it reads */
	bool model_external;	/* own_model is fed by its pipeline, not feed */
};

/*
 * Build the result tables (interval.c): those of a snapshot at ts, or
 * with last (strobe_analysis_finish) those of the last interval up to the
 * window's end.  The previous build's rows, histograms and notes are
 * dropped first.  0 or -ENOMEM.
 */
int ana_build(struct strobe_analysis *a, bool last, uint64_t ts,
	      struct strobe_error *err) STROBE_HIDDEN;

/*
 * What a PID-filtered trace decided about a thread: the entry of c->inst
 * for a tid, valid for the model's task instance `serial` (the model says
 * when a tid is reused: strobe_task.serial); traced caches
 * ana_tid_traced()'s answer.  Unfiltered traces keep none.
 */
struct ana_inst {
	uint64_t serial;
	uint64_t exit_ts;	/* 0: alive; swept a second after */
	signed char traced;	/* 0 not decided yet, 1, -1 */
};

/* The entry of task t, reset when t is another instance than the one it
 * was decided for; NULL on ENOMEM. */
static inline struct ana_inst *ana_inst_get(struct ana_core *c, const struct strobe_task *t)
{
	bool created;
	struct ana_inst *e = ana_map_put(&c->inst, (uint64_t)(uint32_t)t->tid, &created);

	if (e && (created || e->serial != t->serial)) {
		e->serial = t->serial;
		e->exit_ts = 0;
		e->traced = 0;
	}
	return e;
}

/* The owning task (never NULL except on ENOMEM) and whether it passes the
 * --tid/--pid/--comm/--container filters. */
static inline const struct strobe_task *ana_task(struct ana_core *c, int tid)
{
	return strobe_model_task(c->model, tid);
}
/* ana_task_selected() with a task filter given: does t pass it? */
bool ana_task_filter_match(struct ana_core *c, const struct strobe_task *t) STROBE_HIDDEN;
/* Compile the options' filters into c->filter (at strobe_analysis_new);
 * -EINVAL names the bad option or --filter. */
int ana_filter_build(struct ana_core *c, struct strobe_error *err) STROBE_HIDDEN;
bool ana_cpu_selected(struct ana_core *c, int cpu) STROBE_HIDDEN;
/*
 * Was task tid traced?  Always true unless the recording was PID-filtered
 * (c->filtered); then true for a target (the command, the -p process, a
 * thread of one), a task forked by a traced task (its fork is in the
 * trace: event-fork followed it; for a command also a descendant whose
 * fork was lost, through the model's ppid chain), or with -c a task of a
 * target container.  Decided once per thread instance (a container
 * target once per container) and cached, so per event it costs a hash
 * lookup; false for tid <= 0 (idle) in a filtered trace.  Call it before
 * ana_task(): it may create model entries for ancestors.
 */
bool ana_tid_traced(struct ana_core *c, int tid) STROBE_HIDDEN;
/* A fork of parent made child in a trace filtered by -- CMD or -p: is the
 * child traced?  (a target itself, or the parent is traced) */
bool ana_fork_traced(struct ana_core *c, int child, int parent) STROBE_HIDDEN;
/* The recording's target from the file's info ("command", "pid",
 * "container" or "system"/NULL, with the comma-separated PIDs or container
 * IDs); 0, -EINVAL for an unknown target, -ENOMEM. */
int ana_set_target(struct ana_core *c, const char *target, const char *pids,
		   const char *containers, struct strobe_error *err) STROBE_HIDDEN;
/* Forget the target: a whole-system recording again. */
void ana_targets_free(struct ana_core *c) STROBE_HIDDEN;
/* In a PID-filtered trace, add the note "NAME: the recording was
 * PID-filtered (strobe record -p PID): WHAT". */
/* A strobe_expr_warn_fn adding the warning as a note of core c. */
void ana_check_warn(void *c, const char *msg) STROBE_HIDDEN;
void ana_note_filtered(struct ana_core *c, const char *name, const char *what) STROBE_HIDDEN;
/* The group key of (task, cpu) under --group-by, and its identity; the
 * default grouping (threads) inline, the others in owners.c. */
uint64_t ana_group_key_other(struct ana_core *c, const struct strobe_task *t,
			     int cpu) STROBE_HIDDEN;
static inline uint64_t ana_group_key(struct ana_core *c, const struct strobe_task *t, int cpu)
{
	if (c->opts.group_by == STROBE_GROUP_THREAD)
		return t->serial;
	return ana_group_key_other(c, t, cpu);
}
/*
 * Keep a row's comm current: a thread that execs after its row was made
 * shows its new name (as ps would), not the name it had at fork.  A
 * thread row follows its thread, a process row its leader.
 */
void ana_owner_refresh(struct ana_core *c, struct ana_owner *o,
		       const struct strobe_task *t) STROBE_HIDDEN;
void ana_owner_set(struct ana_core *c, struct ana_owner *o, const struct strobe_task *t,
		   int cpu) STROBE_HIDDEN;
/* Who o is under --group-by, for titles: "tid 12 (comm)", "pid 12 (comm)",
 * "CPU 3" or "container NAME". */
void ana_owner_desc(struct ana_core *c, const struct ana_owner *o, char *buf,
		    size_t size) STROBE_HIDDEN;
/* Owner columns for the grouping ("tid","pid","comm","container" /
 * "cpu"), and their values for an owner. */
int ana_owner_cols(struct ana_core *c, struct strobe_table *t) STROBE_HIDDEN;
int ana_owner_vals(struct ana_core *c, struct strobe_table *t, union strobe_value *row,
		   const struct ana_owner *o) STROBE_HIDDEN;
/* The same as the labels of a per-group table (strobe_table_label). */
int ana_owner_labels(struct ana_core *c, struct strobe_table *t,
		     const struct ana_owner *o) STROBE_HIDDEN;
/* Columns "tid","pid","comm","container" of a single task (log rows, the
 * worst wake-ups); 0 or -ENOMEM. */
int ana_task_cols(struct strobe_table *t) STROBE_HIDDEN;
/* Was there a lost-events gap anywhere after ts? (drop measurements that
 * began at ts) */
static inline bool ana_gap_since(const struct ana_core *c, uint64_t ts)
{
	return c->last_gap_any > ts;
}
static inline bool ana_in_window(const struct ana_core *c, uint64_t ts)
{
	return (!c->opts.begin || ts >= c->opts.begin) && (!c->opts.end || ts <= c->opts.end);
}
/* Is any task filter (--tid/--pid/--comm/--container/--filter) given? */
static inline bool ana_task_filters(const struct ana_core *c)
{
	return c->task_filter;
}
static inline bool ana_task_selected(struct ana_core *c, const struct strobe_task *t)
{
	if (!t)
		return false;
	return !c->task_filter || ana_task_filter_match(c, t);
}
/* Is a duration inside --min/--max? */
static inline bool ana_duration_ok(const struct ana_core *c, uint64_t ns)
{
	return (!c->opts.min_ns || ns >= c->opts.min_ns) &&
	       (!c->opts.max_ns || ns <= c->opts.max_ns);
}
static inline bool ana_view(const struct ana_core *c, enum strobe_view v)
{
	return (c->opts.views ? c->opts.views : STROBE_VIEW_TOP) & v;
}
/* Container display name of an index. */
const char *ana_container_name(struct ana_core *c, int index) STROBE_HIDDEN;

/* Sort an array of pointers by a uint64 metric (descending) and then by
 * key; helper for rankings. */
/*
 * The --top largest items by a uint64_t key, kept as they come (a
 * min-heap of at most max items; the smallest kept is the one a larger
 * newcomer evicts).  Items are size bytes, their key at key_off.  Add
 * one with: slot = ana_topn_slot(h, key, &evict) (NULL: it does not make
 * it; evict: slot holds the evicted item, release what it owns), fill the
 * slot, then ana_topn_push(h, evict), or ana_topn_cancel(h, evict) when
 * the slot could not be filled.  h->v[0..h->n) are the kept items, in no
 * order (sort them at the end).
 */
struct ana_topn {
	void *v;		/* max + 1 items: the last is scratch */
	size_t size, key_off;
	int n, max;
};
int ana_topn_init(struct ana_topn *h, int max, size_t size, size_t key_off) STROBE_HIDDEN;
void ana_topn_free(struct ana_topn *h) STROBE_HIDDEN;
void *ana_topn_slot(struct ana_topn *h, uint64_t key, bool *evict) STROBE_HIDDEN;
void ana_topn_push(struct ana_topn *h, bool evict) STROBE_HIDDEN;
void ana_topn_cancel(struct ana_topn *h, bool evict) STROBE_HIDDEN;

struct ana_rank {
	uint64_t metric;
	uint64_t key;
	void *item;
};
void ana_rank_sort(struct ana_rank *r, size_t n) STROBE_HIDDEN;
/* Rank every value of m by the uint64_t at metric_off inside it: *out
 * (free() it) holds *n entries, sorted; 0 or -ENOMEM. */
int ana_rank_map(const struct ana_map *m, size_t metric_off, struct ana_rank **out,
		 size_t *n) STROBE_HIDDEN;
/* Rows to emit for a ranking of n under --top. */
size_t ana_top_n(const struct ana_core *c, size_t n) STROBE_HIDDEN;

/* Add `name`, the schema of the per-group histograms ana_emit_hist()
 * adds under that name (columns lo, hi, count; no rows: for LAMI
 * metadata).  Returns the table, owned by the analysis, or NULL when out
 * of memory. */
struct strobe_table *ana_add_freq_schema(struct ana *a, const char *name,
					 const char *title) STROBE_HIDDEN;
/* Emit a histogram table for st (FREQ view), labelled with owner o's
 * group keys (ana_owner_labels) and then key = val (both may be NULL). */
int ana_emit_hist(struct ana *a, const char *name, const char *title,
		  const struct ana_stats *st, const struct ana_owner *o,
		  const char *key, const char *val) STROBE_HIDDEN;
/* Standard stats columns (count,total,min,avg,max,stddev) and values. */
int ana_stats_cols(struct strobe_table *t) STROBE_HIDDEN;
void ana_stats_vals(union strobe_value *v, const struct ana_stats *st) STROBE_HIDDEN;

/* The analyses. */
extern const struct ana_ops ana_cputop_ops STROBE_HIDDEN;
extern const struct ana_ops ana_syscalls_ops STROBE_HIDDEN;
extern const struct ana_ops ana_schedlat_ops STROBE_HIDDEN;
extern const struct ana_ops ana_io_ops STROBE_HIDDEN;
extern const struct ana_ops ana_irq_ops STROBE_HIDDEN;
extern const struct ana_ops ana_mem_ops STROBE_HIDDEN;
extern const struct ana_ops ana_periods_ops STROBE_HIDDEN;
extern const struct ana_ops ana_why_ops STROBE_HIDDEN;
extern const struct ana_ops ana_runqlat_ops STROBE_HIDDEN;	/* schedlat.c */
extern const struct ana_ops ana_biolatency_ops STROBE_HIDDEN;	/* io.c */

/* ---- system calls, raw or named (sysdec.c) ------------------------------- */

/* The cookies of an analysis' four syscall subscriptions (its other
 * subscriptions number from ANA_SYS_NR_COOKIES). */
enum { ANA_SYS_ENTER_RAW, ANA_SYS_EXIT_RAW, ANA_SYS_ENTER_NAMED, ANA_SYS_EXIT_NAMED,
       ANA_SYS_NR_COOKIES };
#define ANA_SYSCALL_SUBS(fn)							\
	{ "raw_syscalls", "sys_enter", fn, ANA_SYS_ENTER_RAW },			\
	{ "raw_syscalls", "sys_exit", fn, ANA_SYS_EXIT_RAW },			\
	{ "syscalls", "sys_enter_*", fn, ANA_SYS_ENTER_NAMED },			\
	{ "syscalls", "sys_exit_*", fn, ANA_SYS_EXIT_NAMED }

struct ana_sysdec {
	struct strobe_field raw_id, raw_args, raw_xid, raw_ret;	/* raw_syscalls */
	struct strobe_field nr, xnr, ret;	/* syscalls:*, one layout for all */
	bool use_raw;	/* raw_syscalls present: the named events are ignored */
	bool named;	/* no raw_syscalls, the named events are used */
};

/* Which of the two the trace's formats allow (raw first).  0 or -ENOENT
 * (neither). */
int ana_sysdec_resolve(struct ana_sysdec *d, struct strobe_formats *fmts) STROBE_HIDDEN;

enum { ANA_SYS_IGNORE, ANA_SYS_ENTRY, ANA_SYS_EXIT };

/* An event of one of the four subscriptions: ANA_SYS_ENTRY with *nr,
 * ANA_SYS_EXIT with *nr and *ret, or ANA_SYS_IGNORE (a named event of a
 * trace that has raw ones). */
static inline int ana_sysdec(const struct ana_sysdec *d, const struct strobe_event *ev,
			     int cookie, int *nr, int64_t *ret)
{
	switch (cookie) {
	case ANA_SYS_ENTER_RAW:
		*nr = (int)strobe_field_int_inline(ev, &d->raw_id);
		return ANA_SYS_ENTRY;
	case ANA_SYS_EXIT_RAW:
		*nr = (int)strobe_field_int_inline(ev, &d->raw_xid);
		*ret = strobe_field_int_inline(ev, &d->raw_ret);
		return ANA_SYS_EXIT;
	case ANA_SYS_ENTER_NAMED:
		if (d->use_raw)
			return ANA_SYS_IGNORE;
		*nr = (int)strobe_field_int_inline(ev, &d->nr);
		return ANA_SYS_ENTRY;
	case ANA_SYS_EXIT_NAMED:
		if (d->use_raw)
			return ANA_SYS_IGNORE;
		*nr = (int)strobe_field_int_inline(ev, &d->xnr);
		*ret = strobe_field_int_inline(ev, &d->ret);
		return ANA_SYS_EXIT;
	}
	return ANA_SYS_IGNORE;
}

#endif
