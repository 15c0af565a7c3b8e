/*
 * top-int.h - lib/top's own: the columns, the engine's state shared by
 * its three files (top.c: the engine as a consumer, its columns, options
 * and intervals; figures.c: what each interval's tables say, per thread
 * and per container, and the cgroup memory; view.c: the rows folded under
 * the grouping, sort, filter and drill-down), and the pure helpers its
 * unit tests call.
 */
#ifndef STROBE_TOP_INT_H
#define STROBE_TOP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <strobe/table.h>
#include <strobe/top.h>

struct strobe_analysis;
struct strobe_model;
struct strobe_formats;

#include "util/err.h"

/* ---- the columns (top.c) ---------------------------------------------- */

enum top_col {
	C_CPU, C_SYS, C_ERR, C_RQ50, C_RQ99, C_RQMAX, C_RD, C_WR, C_BLK99, C_SW, C_MEM,
	C_FAULT, C_TASKS, NR_COLS
};

/* What a column needs: the analyses it reads and the events they read. */
enum top_need { N_CPU = 1, N_SYS = 2, N_SCHED = 4, N_BLOCK = 8, N_FAULT = 16, N_NONE = 0 };

struct top_coldef {
	const char *key, *title;
	enum strobe_col_type type;
	unsigned need;		/* enum top_need */
	const char *preset;
};
extern const struct top_coldef top_cols[NR_COLS] STROBE_HIDDEN;
/* The column keyed key[0..len), -1 if none. */
int top_col_of(const char *key, size_t len) STROBE_HIDDEN;

/* ---- the engine's state: figures (figures.c) and view (view.c) ------- */

struct tfig {
	int tid, pid;
	char comm[16];
	int cont;		/* index into t->conts */
	uint64_t cpu_ns, switches, sys, errs, rd, wr, faults;
	uint64_t rq_max, blk_max;
	struct strobe_top_hist rq, blk;
};

struct sysfig {		/* a container's figures for one syscall */
	char name[32];
	uint64_t count, errors;
};

struct errfig {
	char syscall[32], error[24];
	uint64_t count;
};

struct cfig {		/* one container's figures in the interval */
	char name[256], id[65], pod[256], ns[256];
	int model_index;	/* in the model, -1 unknown */
	int any_tid;		/* a live task of it, for its cgroup; 0 none */
	int tasks;
	int64_t mem;
	struct sysfig *sys;
	int nr_sys, cap_sys;
	struct errfig *errs;
	int nr_errs, cap_errs;
	struct strobe_top_hist sys_lat;
	/* the figures handed to on_interval */
	struct strobe_top_syscall *out_sys;
	struct strobe_top_errno *out_errs;
};

struct strobe_top {
	struct strobe_top_opts o;
	bool show[NR_COLS];
	int order[NR_COLS], nr_order;	/* shown columns, in order */
	unsigned needs;			/* enum need bits of the analyses run */
	char names[64];			/* the analyses */
	char presets[64];
	char *why[NR_COLS];		/* unavailable: why */
	int source;
	struct strobe_analysis *an;
	struct strobe_model *model;
	struct strobe_formats *fmts;
	bool attached;
	uint64_t begin;			/* the current interval's start */
	uint64_t last_ts;
	uint64_t events, lost, gaps, lost_ext, lost_ext_prev;
	double seconds;			/* of the latest interval */
	/* the latest interval's figures */
	struct tfig *th;
	size_t nr_th, cap_th;
	int *th_hash;			/* open addressing, tid -> index + 1 */
	size_t hash_cap;
	struct cfig *conts;
	int nr_conts, cap_conts;
	struct strobe_top_container *out_conts;
	/* the view */
	enum strobe_top_group group;
	int sort;			/* column, or -1: the group key */
	char *filter, *drill;
	struct strobe_table *table;
	bool have_interval;
	struct strobe_error err;
};

/* ---- figures.c: the interval's figures from the analyses' tables ------- */

/* Drop the latest interval's figures (capacity kept). */
void top_figures_clear(struct strobe_top *t) STROBE_HIDDEN;
/* Read one table of a snapshot into the figures.  0 or -ENOMEM. */
int top_read_table(struct strobe_top *t, const struct strobe_table *tb) STROBE_HIDDEN;
/* The containers of the model's live tasks (a row each), their task
 * counts and cgroup memory.  0 or -ENOMEM. */
int top_model_tasks(struct strobe_top *t) STROBE_HIDDEN;
/* The per-container figures of iv (owned by t).  0 or -ENOMEM. */
int top_build_interval(struct strobe_top *t, struct strobe_top_interval *iv) STROBE_HIDDEN;
void top_hist_merge(struct strobe_top_hist *d, const struct strobe_top_hist *s) STROBE_HIDDEN;

/* ---- view.c: the rows under the grouping ------------------------------- */

/* The table of the latest interval under the current view.  0 or
 * -ENOMEM (the previous table stays). */
int top_rebuild(struct strobe_top *t) STROBE_HIDDEN;

/* The q-quantile (0..1) of h in ns: linear inside bcc's log2 slot of
 * microseconds that holds it, capped at max_ns (0: no cap);
 * STROBE_VALUE_NONE_U when h is empty. */
uint64_t top_hist_quantile(const struct strobe_top_hist *h, double q,
			   uint64_t max_ns) STROBE_HIDDEN;
/* The memory usage file of the cgroup named in cgroup_text (the text of
 * /proc/PID/cgroup) under root: the v1 memory controller's
 * memory.usage_in_bytes, else v2's memory.current (under root/unified
 * when that exists, a hybrid layout).  0, -ENOENT (no such line) or
 * -ENAMETOOLONG.  Pure but for one access() of root/unified. */
int top_cgroup_memory_file(const char *cgroup_text, const char *root, char *out,
			   size_t size) STROBE_HIDDEN;

#endif
