/*
 * owners.c - who a measurement belongs to: the group key of a task under
 * --group-by (thread, process, container, CPU, PID namespace, or all as
 * one), the owner saved with each
 * aggregate, and the owner columns and values of the result tables.
 *
 * Group keys of threads and processes are the task model's instance
 * serials (strobe_task.serial), not tids, so a tid reused by a new thread
 * starts a new row.  An owner copies what it shows (tid, pid, comm, container index)
 * because a row must survive its thread's exit and the model's reuse of
 * the tid; ana_owner_refresh() keeps its comm current across an exec.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyses/analysis-int.h"

const char *ana_container_name(struct ana_core *c, int index)
{
	const struct strobe_container *ct = strobe_model_container(c->model, index);

	return ct ? ct->name : "unknown";
}

uint64_t ana_group_key_other(struct ana_core *c, const struct strobe_task *t, int cpu)
{
	const struct strobe_task *l;

	switch (c->opts.group_by) {
	case STROBE_GROUP_ALL:
		return 0;
	case STROBE_GROUP_PIDNS:
		return t->pidns;
	case STROBE_GROUP_CPU:
		return (uint64_t)(uint32_t)cpu;
	case STROBE_GROUP_CONTAINER:
		return (uint64_t)(uint32_t)t->container->index;
	case STROBE_GROUP_PROCESS:
		if (t->tgid >= 0 && t->tgid != t->tid) {
			l = ana_task(c, t->tgid);	/* the leader's instance */
			return l ? l->serial : (uint64_t)(uint32_t)t->tgid;
		}
		/* a leader, or an unknown process: the thread stands for it */
		/* fall through */
	case STROBE_GROUP_THREAD:
	default:
		return t->serial;
	}
}

void ana_owner_set(struct ana_core *c, struct ana_owner *o, const struct strobe_task *t,
		   int cpu)
{
	o->tid = t->tid;
	o->pid = t->tgid;
	o->cpu = cpu;
	o->container = t->container->index;
	o->pidns = t->pidns;
	memcpy(o->comm, t->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = '\0';
	if (c->opts.group_by == STROBE_GROUP_PROCESS && t->tgid >= 0 && t->tgid != t->tid) {
		int tgid = t->tgid;
		const struct strobe_task *l = ana_task(c, tgid);	/* t may move */

		if (l && l->comm[0] && l->comm[0] != '<')
			memcpy(o->comm, l->comm, sizeof(o->comm));
		o->comm[sizeof(o->comm) - 1] = '\0';
	}
}

void ana_owner_refresh(struct ana_core *c, struct ana_owner *o,
		       const struct strobe_task *t)
{
	bool mine;

	switch (c->opts.group_by) {
	case STROBE_GROUP_THREAD:
		mine = t->tid == o->tid;
		break;
	case STROBE_GROUP_PROCESS:
		mine = t->tid == t->tgid && t->tgid == o->pid;
		break;
	default:
		return;
	}
	if (mine && t->comm[0] != '<' && memcmp(o->comm, t->comm, sizeof(o->comm) - 1)) {
		memcpy(o->comm, t->comm, sizeof(o->comm) - 1);
		o->comm[sizeof(o->comm) - 1] = '\0';
	}
}

int ana_task_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= tbl_col(t, "tid", "TID", STROBE_COL_INT);
	ret |= tbl_col(t, "pid", "PID", STROBE_COL_INT);
	ret |= tbl_col(t, "comm", "Comm", STROBE_COL_STR);
	ret |= tbl_col(t, "container", "Container", STROBE_COL_STR);
	return ret ? -ENOMEM : 0;
}

void ana_owner_desc(struct ana_core *c, const struct ana_owner *o, char *buf, size_t size)
{
	switch (c->opts.group_by) {
	case STROBE_GROUP_ALL:
		snprintf(buf, size, "all tasks");
		break;
	case STROBE_GROUP_PIDNS:
		snprintf(buf, size, "pidns %llu", (unsigned long long)o->pidns);
		break;
	case STROBE_GROUP_CPU:
		snprintf(buf, size, "CPU %d", o->cpu);
		break;
	case STROBE_GROUP_CONTAINER:
		snprintf(buf, size, "container %s", ana_container_name(c, o->container));
		break;
	case STROBE_GROUP_PROCESS:
		snprintf(buf, size, "pid %d (%s)", o->pid, o->comm);
		break;
	case STROBE_GROUP_THREAD:
	default:
		snprintf(buf, size, "tid %d (%s)", o->tid, o->comm);
		break;
	}
}

int ana_owner_cols(struct ana_core *c, struct strobe_table *t)
{
	int ret = 0;

	switch (c->opts.group_by) {
	case STROBE_GROUP_ALL:
		return 0;
	case STROBE_GROUP_PIDNS:
		return tbl_col(t, "pidns", "PID ns", STROBE_COL_INT);
	case STROBE_GROUP_CPU:
		return tbl_col(t, "cpu", "CPU", STROBE_COL_INT);
	case STROBE_GROUP_CONTAINER:
		return tbl_col(t, "container", "Container", STROBE_COL_STR);
	case STROBE_GROUP_PROCESS:
		ret |= tbl_col(t, "pid", "PID", STROBE_COL_INT);
		break;
	case STROBE_GROUP_THREAD:
	default:
		ret |= tbl_col(t, "tid", "TID", STROBE_COL_INT);
		ret |= tbl_col(t, "pid", "PID", STROBE_COL_INT);
		break;
	}
	ret |= tbl_col(t, "comm", "Comm", STROBE_COL_STR);
	ret |= tbl_col(t, "container", "Container", STROBE_COL_STR);
	return ret ? -ENOMEM : 0;
}

int ana_owner_vals(struct ana_core *c, struct strobe_table *t, union strobe_value *v,
		   const struct ana_owner *o)
{
	int n = 0;

	switch (c->opts.group_by) {
	case STROBE_GROUP_ALL:
		return 0;
	case STROBE_GROUP_PIDNS:
		v[0].i = (int64_t)o->pidns;
		return 1;
	case STROBE_GROUP_CPU:
		v[0].i = o->cpu;
		return 1;
	case STROBE_GROUP_CONTAINER:
		v[0].s = tbl_str(t, ana_container_name(c, o->container));
		return 1;
	case STROBE_GROUP_PROCESS:
		v[n++].i = o->pid >= 0 ? o->pid : o->tid;
		break;
	case STROBE_GROUP_THREAD:
	default:
		v[n++].i = o->tid;
		v[n++].i = o->pid;
		break;
	}
	v[n++].s = tbl_str(t, o->comm);
	v[n++].s = tbl_str(t, ana_container_name(c, o->container));
	return n;
}

int ana_owner_labels(struct ana_core *c, struct strobe_table *t, const struct ana_owner *o)
{
	int ret = 0;

	switch (c->opts.group_by) {
	case STROBE_GROUP_ALL:
		return 0;
	case STROBE_GROUP_PIDNS:
		return tbl_label(t, "pidns", "PID ns", STROBE_COL_INT,
				 (union strobe_value){ .i = (int64_t)o->pidns });
	case STROBE_GROUP_CPU:
		return tbl_label(t, "cpu", "CPU", STROBE_COL_INT, (union strobe_value){ .i = o->cpu });
	case STROBE_GROUP_CONTAINER:
		return tbl_label(t, "container", "Container", STROBE_COL_STR,
				 (union strobe_value){ .s = ana_container_name(c, o->container) });
	case STROBE_GROUP_PROCESS:
		ret |= tbl_label(t, "pid", "PID", STROBE_COL_INT,
				 (union strobe_value){ .i = o->pid >= 0 ? o->pid : o->tid });
		break;
	case STROBE_GROUP_THREAD:
	default:
		ret |= tbl_label(t, "tid", "TID", STROBE_COL_INT, (union strobe_value){ .i = o->tid });
		ret |= tbl_label(t, "pid", "PID", STROBE_COL_INT, (union strobe_value){ .i = o->pid });
		break;
	}
	ret |= tbl_label(t, "comm", "Comm", STROBE_COL_STR, (union strobe_value){ .s = o->comm });
	ret |= tbl_label(t, "container", "Container", STROBE_COL_STR,
			 (union strobe_value){ .s = ana_container_name(c, o->container) });
	return ret;
}
