/*
 * targets.c - which tasks count: what a PID-filtered recording traced
 * (strobe record -- CMD, -p PID, -c NAME) and what the user selected with
 * --tid/--pid/--comm/--container/--cpu/--filter.
 *
 * The recording's target comes from the trace file's info (target,
 * target_pids, target_containers).  In such a trace an untraced task shows
 * up only in the sched_switch and wake-ups it shares with a traced one, so
 * analyses ask ana_tid_traced() before charging a task for anything.  The
 * answer is decided once per thread instance (from the targets, the forks
 * seen in the trace and the model's tgid/ppid chain) and cached in the
 * instance entry, or once per container index with -c, so per event it is
 * a hash lookup.  The user's selection is one expression filter
 * (lib/expr/filter.c): the options are sugar for it, and a measurement
 * counts when the filter holds for the task it is attributed to.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis-int.h"
#include "expr/expr-int.h"

/* ---- the user's selection: --tid/--pid/--comm/--container/--cpu/--filter -- */

/* Add one option's values (ints as a comma list) as a term. */
static int add_ints(struct strobe_expr_filter *f, enum strobe_expr_option opt, const int *v,
		    int n, struct strobe_error *err)
{
	char *list, *p;
	int i, r;

	if (!n)
		return 0;
	list = malloc((size_t)n * 12 + 1);
	if (!list)
		return strobe_err(err, -ENOMEM, "out of memory");
	p = list;
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%d", i ? "," : "", v[i]);
	r = strobe_expr_filter_add_option(f, opt, list, err);
	free(list);
	return r;
}

static int add_strs(struct strobe_expr_filter *f, enum strobe_expr_option opt,
		    const char *const *v, int n, struct strobe_error *err)
{
	size_t len = 1;
	char *list;
	int i, r;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	list = malloc(len);
	if (!list)
		return strobe_err(err, -ENOMEM, "out of memory");
	list[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(list, ",");
		strcat(list, v[i]);
	}
	r = strobe_expr_filter_add_option(f, opt, list, err);
	free(list);
	return r;
}

/* The CPUs of the mask as a list ("0,2-3"). */
static int add_cpus(struct strobe_expr_filter *f, const bool *mask, int n,
		    struct strobe_error *err)
{
	char *list = malloc((size_t)n * 12 + 2), *p = list;
	int i = 0, j, r;

	if (!list)
		return strobe_err(err, -ENOMEM, "out of memory");
	*p = '\0';
	while (i < n) {
		if (!mask[i]) {
			i++;
			continue;
		}
		for (j = i; j + 1 < n && mask[j + 1]; j++)
			;
		p += sprintf(p, p == list ? "%d" : ",%d", i);
		if (j > i)
			p += sprintf(p, "-%d", j);
		i = j + 1;
	}
	if (p == list)		/* no CPU: nothing passes */
		r = strobe_expr_filter_add(f, "$evt.$ctx.cpu < 0", err);
	else
		r = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_CPU, list, err);
	free(list);
	return r;
}

int ana_filter_build(struct ana_core *c, struct strobe_error *err)
{
	const struct strobe_analysis_opts *o = &c->opts;
	struct strobe_expr_filter *f;
	int i, r;

	if (!o->nr_tids && !o->nr_pids && !o->nr_comms && !o->nr_containers && !o->cpu_mask &&
	    !o->nr_filters)
		return 0;
	if (strobe_expr_filter_new(&f) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	r = add_ints(f, STROBE_EXPR_OPT_TID, o->tids, o->nr_tids, err);
	if (!r)
		r = add_ints(f, STROBE_EXPR_OPT_PID, o->pids, o->nr_pids, err);
	if (!r)
		r = add_strs(f, STROBE_EXPR_OPT_COMM, o->comms, o->nr_comms, err);
	if (!r)
		r = add_strs(f, STROBE_EXPR_OPT_CONTAINER, o->containers, o->nr_containers, err);
	if (!r && o->cpu_mask)
		r = add_cpus(f, o->cpu_mask, o->nr_cpu_mask, err);
	for (i = 0; !r && i < o->nr_filters; i++)
		r = strobe_expr_filter_add(f, o->filters[i], err);
	if (!r)
		r = strobe_expr_filter_compile(f, err);
	if (r < 0) {
		strobe_expr_filter_free(f);
		return r;
	}
	c->filter = f;
	c->task_filter = strobe_expr_filter_selects_tasks(f);
	return 0;
}

bool ana_task_filter_match(struct ana_core *c, const struct strobe_task *t)
{
	static const struct strobe_event no_event = { .cpu = -1, .buffer = -1, .type = -1 };
	struct strobe_expr_task et;

	expr_task_of(t, &et);
	return strobe_expr_filter_match_task(c->filter, &c->env, c->cur ? c->cur : &no_event, &et);
}

bool ana_cpu_selected(struct ana_core *c, int cpu)
{
	const bool *mask;
	int n = strobe_expr_filter_cpu_mask(c->filter, &mask);

	return !mask || (cpu >= 0 && cpu < n && mask[cpu]);
}

/* ---- PID-filtered recordings ---------------------------------------------- */

#define TRACED_MAX_DEPTH 64	/* tgid/ppid links followed at most */
#define MAX_TARGET_PIDS 4096
#define MAX_TARGET_CONTS 256

static bool is_target_pid(const struct ana_core *c, int pid)
{
	int i;

	for (i = 0; i < c->nr_target_pids; i++)
		if (c->target_pids[i] == pid)
			return true;
	return false;
}

/* -c: is container ct a target?  Decided once per container index. */
static bool cont_traced(struct ana_core *c, const struct strobe_container *ct)
{
	int i, idx = ct->index;

	if (idx < 2)		/* unknown, host */
		return false;
	if (idx >= c->nr_cont_traced) {
		int n = idx + 16;
		signed char *s = realloc(c->cont_traced, (size_t)n);

		if (!s)
			return false;
		memset(s + c->nr_cont_traced, 0, (size_t)(n - c->nr_cont_traced));
		c->cont_traced = s;
		c->nr_cont_traced = n;
	}
	if (!c->cont_traced[idx]) {
		c->cont_traced[idx] = -1;
		for (i = 0; i < c->nr_target_conts; i++)
			if (strobe_container_matches(ct, c->target_conts[i]))
				c->cont_traced[idx] = 1;
	}
	return c->cont_traced[idx] > 0;
}

/*
 * -- CMD / -p: tid is traced if it is a target or a thread of one; else a
 * thread is traced with its process, and with -- CMD a process whose
 * parent is (the command and its descendants are the only tasks that
 * appeared under it).  A task forked in the trace got its answer from its
 * parent in core_fork already.  Each answer is kept in the thread's
 * instance entry; depth bounds the walk (a malformed table may loop).
 */
static bool pid_traced(struct ana_core *c, int tid, int depth)
{
	const struct strobe_task *t;
	struct ana_inst *e;
	int tgid, ppid;
	bool yes;

	if (tid <= 0)
		return false;
	t = ana_task(c, tid);
	if (!t)
		return false;	/* ENOMEM: undecided, not kept */
	e = ana_map_get(&c->inst, (uint64_t)(uint32_t)tid);
	if (e && e->serial == t->serial && e->traced)
		return e->traced > 0;
	tgid = t->tgid;
	ppid = t->ppid;
	yes = is_target_pid(c, tid) || (tgid > 0 && is_target_pid(c, tgid));
	if (!yes && depth < TRACED_MAX_DEPTH) {
		if (tgid > 0 && tgid != tid)
			yes = pid_traced(c, tgid, depth + 1);
		else if (c->descendants && ppid > 0 && ppid != tid)
			yes = pid_traced(c, ppid, depth + 1);
	}
	t = ana_task(c, tid);	/* the walk may have moved it */
	e = t ? ana_inst_get(c, t) : NULL;
	if (e)
		e->traced = yes ? 1 : -1;
	return yes;
}

bool ana_tid_traced(struct ana_core *c, int tid)
{
	const struct strobe_task *t;

	if (!c->filtered)
		return true;
	if (tid <= 0)
		return false;
	if (c->by_container) {
		t = ana_task(c, tid);
		return t && cont_traced(c, t->container);
	}
	return pid_traced(c, tid, 0);
}

void ana_note_filtered(struct ana_core *c, const char *name, const char *what)
{
	if (c->filtered && !c->whole)
		ana_note(c, "%s: the recording was PID-filtered (strobe record %s): %s",
			 name, c->target, what);
}

void ana_targets_free(struct ana_core *c)
{
	int i;

	for (i = 0; i < c->nr_target_conts; i++)
		free(c->target_conts[i]);
	free(c->target_conts);
	free(c->target_pids);
	c->target_conts = NULL;
	c->target_pids = NULL;
	c->nr_target_conts = c->nr_target_pids = 0;
	c->filtered = c->by_container = c->descendants = c->whole = false;
	c->target = NULL;
}

/* The comma-separated list s: positive PIDs into c (malformed skipped). */
static int parse_pids(struct ana_core *c, const char *s)
{
	while (s && *s && c->nr_target_pids < MAX_TARGET_PIDS) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (end != s && !errno && v > 0 && v <= INT32_MAX && (*end == ',' || !*end)) {
			if (!c->target_pids) {
				c->target_pids = calloc(MAX_TARGET_PIDS, sizeof(int));
				if (!c->target_pids)
					return -ENOMEM;
			}
			c->target_pids[c->nr_target_pids++] = (int)v;
		}
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return 0;
}

/* The comma-separated container IDs of s into c (1..64 printable bytes). */
static int parse_conts(struct ana_core *c, const char *s)
{
	while (s && *s && c->nr_target_conts < MAX_TARGET_CONTS) {
		size_t len = strcspn(s, ","), i;
		bool ok = len >= 1 && len <= 64;

		for (i = 0; ok && i < len; i++)
			ok = (unsigned char)s[i] > ' ' && (unsigned char)s[i] < 0x7f;
		if (ok) {
			if (!c->target_conts) {
				c->target_conts = calloc(MAX_TARGET_CONTS, sizeof(char *));
				if (!c->target_conts)
					return -ENOMEM;
			}
			c->target_conts[c->nr_target_conts] = strndup(s, len);
			if (!c->target_conts[c->nr_target_conts])
				return -ENOMEM;
			c->nr_target_conts++;
		}
		s += len;
		if (*s)
			s++;
	}
	return 0;
}


int ana_set_target(struct ana_core *c, const char *target, const char *pids,
		   const char *containers, struct strobe_error *err)
{
	static const struct { const char *name, *desc; } kinds[] = {
		{ "command", "-- CMD" }, { "pid", "-p PID" }, { "container", "-c NAME" },
		{ "command-all", "-- CMD" },
	};
	size_t i;

	if (!target || !strcmp(target, "system")) {
		ana_targets_free(c);
		return 0;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(target, kinds[i].name))
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return strobe_err(err, -EINVAL, "unknown recording target '%.40s'", target);
	ana_targets_free(c);
	c->filtered = true;
	c->target = kinds[i].desc;
	c->by_container = i == 2;
	c->descendants = i == 0 || i == 3;
	c->whole = i == 3;
	if ((!c->by_container && parse_pids(c, pids) < 0) ||
	    (c->by_container && parse_conts(c, containers) < 0)) {
		ana_targets_free(c);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	return 0;
}

bool ana_fork_traced(struct ana_core *c, int child, int parent)
{
	return is_target_pid(c, child) || pid_traced(c, parent, 0);
}
