/*
 * update.c - keeping the task model current from the event stream.
 *
 * Each event type is classified once (by system and name) on first sight
 * and its fields resolved once; afterwards an event costs one array
 * lookup, and the few kinds the model cares about a hash lookup or two.
 *
 * What each event says:
 *   task:task_newtask        parent (common_pid) cloned `pid` with
 *                            clone_flags: CLONE_THREAD tells a thread from
 *                            a process, CLONE_NEWPID a new PID namespace
 *   sched:sched_process_fork parent_pid cloned child_pid (no flags: when no
 *                            task_newtask came first, thread or process is
 *                            known only from a stored "appeared" record,
 *                            else the child's tgid stays unknown)
 *   sched:sched_process_exec pid now runs filename (comm = its basename,
 *                            the task leads its thread group); a
 *                            non-leader thread that execs takes over the
 *                            leader's tid (old_pid != pid)
 *   sched:sched_process_exit / sched_process_free   the task is gone
 *   task:task_rename, sched:sched_switch             comms
 *   cgroup:cgroup_attach_task  pid moved to dst_path: how a task forked on
 *                            the host (runc init, podman exec) enters a
 *                            container
 * A child inherits its parent's container, cgroup path and namespaces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "model-int.h"

#define CLONE_THREAD_FLAG 0x00010000ull
#define CLONE_NEWPID_FLAG 0x20000000ull

enum {
	K_NONE,
	K_NEWTASK,
	K_FORK,
	K_EXEC,
	K_EXIT,
	K_FREE,
	K_RENAME,
	K_SWITCH,
	K_ATTACH,
	K_NR,
	K_UNRESOLVED = 0xff,
};

struct model_fields {
	bool resolved[K_NR];
	struct strobe_field nt_pid, nt_comm, nt_flags;
	struct strobe_field fk_parent, fk_child, fk_comm;
	struct strobe_field ex_pid, ex_old, ex_file;
	struct strobe_field xt_pid, xt_comm;
	struct strobe_field fr_pid;
	struct strobe_field rn_pid, rn_comm;
	struct strobe_field sw_prev_pid, sw_prev_comm, sw_next_pid, sw_next_comm;
	struct strobe_field at_pid, at_path, at_root;
};

static const struct {
	const char *system, *name;
	int kind;
} kinds[] = {
	{ "task", "task_newtask", K_NEWTASK },
	{ "sched", "sched_process_fork", K_FORK },
	{ "sched", "sched_process_exec", K_EXEC },
	{ "sched", "sched_process_exit", K_EXIT },
	{ "sched", "sched_process_free", K_FREE },
	{ "task", "task_rename", K_RENAME },
	{ "sched", "sched_switch", K_SWITCH },
	{ "cgroup", "cgroup_attach_task", K_ATTACH },
};

static void resolve_fields(struct model_fields *f, int kind,
			   const struct strobe_format *ev)
{
	switch (kind) {
	case K_NEWTASK:
		strobe_field_resolve(ev, "pid", &f->nt_pid);
		strobe_field_resolve(ev, "comm", &f->nt_comm);
		strobe_field_resolve(ev, "clone_flags", &f->nt_flags);
		break;
	case K_FORK:
		strobe_field_resolve(ev, "parent_pid", &f->fk_parent);
		strobe_field_resolve(ev, "child_pid", &f->fk_child);
		strobe_field_resolve(ev, "child_comm", &f->fk_comm);
		break;
	case K_EXEC:
		strobe_field_resolve(ev, "pid", &f->ex_pid);
		strobe_field_resolve(ev, "old_pid", &f->ex_old);
		strobe_field_resolve(ev, "filename", &f->ex_file);
		break;
	case K_EXIT:
		strobe_field_resolve(ev, "pid", &f->xt_pid);
		strobe_field_resolve(ev, "comm", &f->xt_comm);
		break;
	case K_FREE:
		strobe_field_resolve(ev, "pid", &f->fr_pid);
		break;
	case K_RENAME:
		strobe_field_resolve(ev, "pid", &f->rn_pid);
		strobe_field_resolve(ev, "newcomm", &f->rn_comm);
		break;
	case K_SWITCH:
		strobe_field_resolve(ev, "prev_pid", &f->sw_prev_pid);
		strobe_field_resolve(ev, "prev_comm", &f->sw_prev_comm);
		strobe_field_resolve(ev, "next_pid", &f->sw_next_pid);
		strobe_field_resolve(ev, "next_comm", &f->sw_next_comm);
		break;
	case K_ATTACH:
		strobe_field_resolve(ev, "pid", &f->at_pid);
		strobe_field_resolve(ev, "dst_path", &f->at_path);
		strobe_field_resolve(ev, "dst_root", &f->at_root);
		break;
	}
	f->resolved[kind] = true;
}

/* The kind of ev's type, classified on first sight.  K_NONE on ENOMEM. */
static int event_kind(struct strobe_model *m, const struct strobe_event *ev)
{
	const struct strobe_format *fmt = ev->format;
	struct model_fields *f;
	size_t i;
	int kind = K_NONE;

	if (ev->type < 0 || ev->type > 0xffff)
		return K_NONE;
	if (!m->kind_by_type) {
		m->kind_by_type = malloc(0x10000);
		m->fields = calloc(1, sizeof(struct model_fields));
		if (!m->kind_by_type || !m->fields) {
			free(m->kind_by_type);
			free(m->fields);
			m->kind_by_type = NULL;
			m->fields = NULL;
			return K_NONE;
		}
		memset(m->kind_by_type, K_UNRESOLVED, 0x10000);
	}
	if (m->kind_by_type[ev->type] != K_UNRESOLVED)
		return m->kind_by_type[ev->type];
	f = m->fields;
	if (strobe_format_system(fmt) && strobe_format_name(fmt))
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(strobe_format_system(fmt), kinds[i].system) &&
			    !strcmp(strobe_format_name(fmt), kinds[i].name)) {
				kind = kinds[i].kind;
				if (!f->resolved[kind])
					resolve_fields(f, kind, fmt);
				break;
			}
	m->kind_by_type[ev->type] = (uint8_t)kind;
	return kind;
}

/* Copy a comm field (fixed char[16] or __data_loc string) if it changed. */
static void set_comm(struct mtask *e, const struct strobe_event *ev,
		     const struct strobe_field *f)
{
	uint32_t len = 0;
	const char *s = strobe_field_str(ev, f, &len);
	size_t n;

	if (!s)
		return;
	/* the same 16 bytes as kept (comm holds a NUL in them): unchanged,
	 * the case of almost every switch */
	if (len >= sizeof(e->t.comm) && !memcmp(e->t.comm, s, sizeof(e->t.comm)))
		return;
	n = strnlen(s, len);
	if (n > 15)
		n = 15;
	/* the record's bytes past the NUL kept too, for the comparison above */
	memcpy(e->t.comm, s, len >= sizeof(e->t.comm) ? sizeof(e->t.comm) : n);
	e->t.comm[n] = '\0';
}

/*
 * A clone: `thread` is 1 (CLONE_THREAD), 0 (a process) or -1 (unknown).
 * Returns the child's fresh entry, NULL on ENOMEM.
 */
static struct mtask *do_clone(struct strobe_model *m, int parent_tid, int child_tid,
			      int thread, bool newpid)
{
	struct mtask *p = model_task_get(m, parent_tid);
	struct mtask *l = m->late.nr ? mtask_find(&m->late, child_tid) : NULL;
	struct mtask *c;

	if (child_tid <= 0)
		return NULL;
	c = mtask_new(m, &m->tasks, child_tid);
	if (!c)
		return NULL;
	/* a stored "appeared" record of this tid, unless it contradicts */
	if (l && thread >= 0 && (l->t.tgid != child_tid) != (thread == 1))
		l = NULL;
	if (l && thread < 0)
		thread = l->t.tgid != child_tid;
	if (p) {
		c->t.container = p->t.container;
		c->cgpath = p->cgpath;
		c->cg_root = p->cg_root;
		c->t.pidns = newpid ? 0 : p->t.pidns;
		c->mntns = p->mntns;
		c->cgroupns = p->cgroupns;
		memcpy(c->t.comm, p->t.comm, sizeof(c->t.comm));
	}
	if (thread == 1 && p) {
		c->t.tgid = p->t.tgid;
		c->t.ppid = p->t.ppid;
		if (p->nr_nspid == 1 && p->nr_nstgid == 1) {
			int tgid = p->ns[1];

			/* a thread shares its process' namespace */
			mtask_set_ns(c, &child_tid, 1, &tgid, 1);
			c->flags |= p->flags & MT_NS_GUESS;
		} else {
			c->t.nstgid = p->t.nstgid;
		}
	} else if (thread == 0) {
		c->t.tgid = child_tid;
		c->t.ppid = p ? p->t.tgid : -1;
		/*
		 * A process is born in its parent's namespace for children,
		 * which the parent may have changed (unshare, setns: a
		 * container runtime's init does so, in the container's
		 * cgroup already); a host task's child keeps the host
		 * namespace unless it moves into a container (on_attach).
		 */
		if (p && p->nr_nspid == 1 &&
		    (newpid || p->t.container->index == STROBE_CONTAINER_HOST)) {
			int ids[2] = { child_tid, 1 };

			if (newpid)
				mtask_set_ns(c, ids, 2, ids, 2);
			else
				mtask_set_ns(c, ids, 1, ids, 1);
			if (!newpid || (p->flags & MT_NS_GUESS))
				c->flags |= MT_NS_GUESS;
		} else if (newpid) {
			c->t.nstid = c->t.nstgid = 1;
		}
	}
	if (l) {
		struct strobe_task keep = c->t;
		const char *cgpath = c->cgpath;
		int cg_root = c->cg_root;

		if (mtask_copy_info(m, c, l) == 0) {
			c->flags &= (uint8_t)~MT_NS_GUESS;	/* read while it lived */
			memcpy(c->t.comm, keep.comm, sizeof(c->t.comm));
			if (keep.container->index != STROBE_CONTAINER_UNKNOWN) {
				c->t.container = keep.container;
				c->cgpath = cgpath;
				c->cg_root = cg_root;
			}
			mtask_ns_view(c);
		}
		mtask_drop(m, &m->late, l);
	}
	return c;
}

static void on_attach(struct strobe_model *m, const struct strobe_event *ev,
		      const struct model_fields *f)
{
	uint32_t len = 0;
	const char *path = strobe_field_str(ev, &f->at_path, &len);
	int root = (int)strobe_field_int(ev, &f->at_root);
	const struct mpath *mp;
	struct mtask *e;

	if (!path)
		return;
	e = model_task_get(m, (int)strobe_field_int(ev, &f->at_pid));
	mp = e ? model_path(m, path, len) : NULL;
	if (!mp)
		return;
	if (mp->c->index >= 2) {
		e->t.container = mp->c;
		e->cgpath = mp->s;
		e->cg_root = root;
		if (e->flags & MT_NS_GUESS) {	/* a host PID is no container's */
			mtask_set_ns(e, NULL, 0, NULL, 0);
			e->flags &= (uint8_t)~MT_NS_GUESS;
		}
		mtask_ns_view(e);
	} else if (e->t.container->index == STROBE_CONTAINER_UNKNOWN ||
		   e->t.container->index == STROBE_CONTAINER_HOST ||
		   e->cg_root == root) {
		/* leaving a container (or a host move) on the hierarchy the
		 * container was seen on; other hierarchies of a hybrid host
		 * may keep host paths for container tasks */
		e->t.container = mp->c;
		e->cgpath = mp->s;
		e->cg_root = root;
	}
}

void strobe_model_update(struct strobe_model *m, const struct strobe_event *ev)
{
	const struct model_fields *f;
	struct mtask *e;
	int kind;

	model_gc_due(m, ev->ts);
	kind = event_kind(m, ev);
	if (kind == K_NONE)
		return;
	f = m->fields;
	switch (kind) {
	case K_NEWTASK: {
		uint64_t flags = strobe_field_uint(ev, &f->nt_flags);

		e = do_clone(m, ev->pid, (int)strobe_field_int(ev, &f->nt_pid),
			     f->nt_flags.valid ? !!(flags & CLONE_THREAD_FLAG) : -1,
			     flags & CLONE_NEWPID_FLAG);
		if (e) {
			e->flags |= MT_NEWTASK;
			set_comm(e, ev, &f->nt_comm);
		}
		break;
	}
	case K_FORK: {
		int child = (int)strobe_field_int(ev, &f->fk_child);
		int parent = f->fk_parent.valid ? (int)strobe_field_int(ev, &f->fk_parent)
						: ev->pid;

		e = mtask_find(&m->tasks, child);
		if (e && (e->flags & MT_NEWTASK))
			e->flags &= (uint8_t)~MT_NEWTASK;	/* task_newtask did it */
		else
			e = do_clone(m, parent, child, -1, false);
		if (e)
			set_comm(e, ev, &f->fk_comm);
		break;
	}
	case K_EXEC: {
		int pid = (int)strobe_field_int(ev, &f->ex_pid);
		int old = (int)strobe_field_int(ev, &f->ex_old);
		uint32_t len = 0;
		const char *file = strobe_field_str(ev, &f->ex_file, &len);

		if (old != pid && (e = mtask_find(&m->tasks, old)))
			mtask_exited(m, e, ev->ts);
		e = model_task_get(m, pid);
		if (!e)
			break;
		if (file) {
			size_t n = strnlen(file, len), i, start = 0;

			for (i = 0; i < n; i++)
				if (file[i] == '/')
					start = i + 1;
			n -= start;
			if (n > 15)
				n = 15;
			memcpy(e->t.comm, file + start, n);
			e->t.comm[n] = '\0';
		}
		mtask_set_tgid(m, e, pid);
		if (e->t.nstid >= 0)
			e->t.nstgid = e->t.nstid;
		break;
	}
	case K_EXIT:
		e = mtask_find(&m->tasks, (int)strobe_field_int(ev, &f->xt_pid));
		if (e) {
			set_comm(e, ev, &f->xt_comm);
			mtask_exited(m, e, ev->ts);
		}
		break;
	case K_FREE:
		e = mtask_find(&m->tasks, (int)strobe_field_int(ev, &f->fr_pid));
		if (e)
			mtask_exited(m, e, ev->ts);
		break;
	case K_RENAME:
		e = model_task_get(m, (int)strobe_field_int(ev, &f->rn_pid));
		if (e)
			set_comm(e, ev, &f->rn_comm);
		break;
	case K_SWITCH: {
		int prev = (int)strobe_field_int(ev, &f->sw_prev_pid);
		int next = (int)strobe_field_int(ev, &f->sw_next_pid);

		/* tid 0 is every CPU's idle task (swapper/N): keep "<idle>" */
		if (prev > 0 && (e = model_task_get(m, prev)))
			set_comm(e, ev, &f->sw_prev_comm);
		if (next > 0 && (e = model_task_get(m, next)))
			set_comm(e, ev, &f->sw_next_comm);
		break;
	}
	case K_ATTACH:
		on_attach(m, ev, f);
		break;
	}
}
