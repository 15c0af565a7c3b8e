/*
 * targets.c - which tasks count: what a PID-filtered recording traced
 * (strobe record -- CMD, -p PID, -c NAME) and what the user selected with
 * --tid/--pid/--comm/--container/--cpu.
 *
 * The recording's target comes from the trace file's info (target,
 * target_pids, target_containers).  In such a trace an untraced task shows
 * up only in the sched_switch and wake-ups it shares with a traced one, so
 * analyses ask ana_tid_traced() before charging a task for anything.  The
 * answer is decided once per thread instance (from the targets, the forks
 * seen in the trace and the model's tgid/ppid chain) and cached in the
 * instance entry, or once per container index with -c, so per event it is
 * a hash lookup.  The user's container selection is cached the same way.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis-int.h"

/* ---- the user's selection: --tid/--pid/--comm/--container/--cpu ------- */

static bool container_selected(struct ana_core *c, const struct strobe_container *ct)
{
	int i, idx = ct->index;

	if (idx < 0)
		return false;
	if (idx >= c->nr_cont_sel) {
		int n = idx + 16;
		signed char *s = realloc(c->cont_sel, (size_t)n);

		if (!s)
			return false;
		memset(s + c->nr_cont_sel, 0, (size_t)(n - c->nr_cont_sel));
		c->cont_sel = s;
		c->nr_cont_sel = n;
	}
	if (!c->cont_sel[idx]) {
		c->cont_sel[idx] = -1;
		for (i = 0; i < c->opts.nr_containers; i++) {
			const char *w = c->opts.containers[i];
			size_t l = strlen(w);

			if (!strcmp(w, ct->name) || !strcmp(w, ct->id) ||
			    (l >= 4 && ct->id[0] && !strncmp(w, ct->id, l)))
				c->cont_sel[idx] = 1;
		}
	}
	return c->cont_sel[idx] > 0;
}

bool ana_task_selected(struct ana_core *c, const struct strobe_task *t)
{
	const struct strobe_analysis_opts *o = &c->opts;
	int i;

	if (!t)
		return false;
	if (o->nr_tids) {
		for (i = 0; i < o->nr_tids && o->tids[i] != t->tid; i++)
			;
		if (i == o->nr_tids)
			return false;
	}
	if (o->nr_pids) {
		for (i = 0; i < o->nr_pids && o->pids[i] != t->tgid; i++)
			;
		if (i == o->nr_pids)
			return false;
	}
	if (o->nr_comms) {
		for (i = 0; i < o->nr_comms && fnmatch(o->comms[i], t->comm, 0); i++)
			;
		if (i == o->nr_comms)
			return false;
	}
	if (o->nr_containers && !container_selected(c, t->container))
		return false;
	return true;
}

bool ana_cpu_selected(struct ana_core *c, int cpu)
{
	const struct strobe_analysis_opts *o = &c->opts;

	return !o->cpu_mask || (cpu >= 0 && cpu < o->nr_cpu_mask && o->cpu_mask[cpu]);
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
	if (c->filtered)
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
	c->filtered = c->by_container = c->descendants = false;
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
	c->descendants = i == 0;
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
