/*
 * offcpu.c - off-CPU time by stack (pictures.h, strobe_offcpu_*): a
 * consumer of the one pipeline that folds the time threads spend off CPU
 * by the kernel (and user) stack they left it with, for flame graphs.
 *
 * How it works.  `strobe record --stacks` sets a stacktrace trigger on
 * sched_switch: the kernel writes the switch's record, then (same CPU,
 * same tracepoint call, interrupts off, so nothing comes between) an
 * ftrace:kernel_stack record in the context of the task switched out;
 * with --user-stacks an ftrace:user_stack record comes between them.  So
 * per CPU the folder remembers which thread the last switch took off it
 * (`pend`), and a stack record of that thread right after belongs to
 * that switch.  Per thread it keeps the switch-out time, its group
 * (container and comm at the switch) and its stacks as small ids: each
 * distinct stack (the raw addresses) and group is interned once.  At the
 * thread's next switch-in the time off CPU is added to the triple (group,
 * user stack, kernel stack) - one hash of 12 bytes.  Only at the end are
 * the distinct triples turned into frame names (kallsyms through the
 * source's formats) and added to a struct strobe_flame, so the cost per
 * event is a comparison of its type for most events and a few hash
 * look-ups for switches and stacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/model.h>
#include <strobe/pictures.h>
#include <strobe/pipeline.h>
#include <strobe/stream.h>

#include "format/format-int.h"
#include "util/intern.h"
#include "util/opts.h"

#define NONE UINT32_MAX
#define MAX_FRAMES 128		/* kernel + user frames of one stack */
#define MAX_TID (1 << 22)	/* the kernel's PID_MAX_LIMIT */

struct thr {
	uint64_t start;		/* switch-out */
	uint32_t group, kst, ust;
	/* the last stacks and tuple interned for the thread, which its next
	 * switch-out most often repeats: compared, not hashed again */
	uint32_t kst_seen, ust_seen;	/* their ids + 1; 0 none */
	uint32_t tup_key[3], tup_seen;	/* the tuple's key; its id + 1 */
	uint8_t off;		/* off CPU since start */
	uint8_t traced;		/* forked by a traced task (restricted recordings) */
	uint8_t has_group;	/* group below is that of (serial, comm) */
	uint64_t serial;	/* the model's task instance the group is of */
	char comm[16];
};

struct strobe_offcpu {
	struct strobe_offcpu_opts o;
	struct strobe_flame *flame;
	struct strobe_formats *fmts;
	struct strobe_model *model;
	int source;
	bool attached, done;
	int sw_id, ks_id, us_id, fork_id;	/* event ids, -1 absent */
	struct strobe_field fork_parent, fork_child;
	/*
	 * What the recording traced (its strobe info): a recording of a
	 * command, a process or containers holds the switches its tasks
	 * share with others, so another task's switch-in may be missing and
	 * its time off CPU unknown: only traced tasks count then.
	 */
	enum { TGT_SYSTEM, TGT_PIDS, TGT_CONTAINERS } target;
	int *tgt_pids;
	int nr_tgt_pids;
	char **tgt_conts;
	int nr_tgt_conts;
	struct strobe_field prev_pid, next_pid, prev_comm, ks_caller, ks_size, us_caller;
	struct thr *thr;
	size_t nr_thr;
	int *pend;			/* per CPU: tid switched out last, -1 */
	int nr_pend;
	struct strobe_intern kstacks, ustacks, groups, tuples;
	uint64_t *weights;		/* per tuple id */
	size_t nr_weights;
	struct strobe_offcpu_stats st;
	int err;			/* -ENOMEM met while feeding */
};

int strobe_offcpu_new(const struct strobe_offcpu_opts *o, struct strobe_offcpu **out,
		      struct strobe_error *err)
{
	struct strobe_offcpu *oc = calloc(1, sizeof(*oc));

	*out = NULL;
	if (!oc || strobe_flame_new(&oc->flame) < 0) {
		free(oc);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	strobe_opts_copy(&oc->o, sizeof(oc->o), o);
	if (oc->o.group_by > STROBE_FLAME_BY_NONE) {
		strobe_offcpu_free(oc);
		return strobe_err(err, -EINVAL, "unknown grouping %d", (int)o->group_by);
	}
	oc->sw_id = oc->ks_id = oc->us_id = oc->fork_id = -1;
	*out = oc;
	return 0;
}

void strobe_offcpu_free(struct strobe_offcpu *oc)
{
	if (!oc)
		return;
	strobe_flame_free(oc->flame);
	free(oc->thr);
	free(oc->pend);
	free(oc->tgt_pids);
	while (oc->nr_tgt_conts > 0)
		free(oc->tgt_conts[--oc->nr_tgt_conts]);
	free(oc->tgt_conts);
	strobe_intern_free(&oc->kstacks);
	strobe_intern_free(&oc->ustacks);
	strobe_intern_free(&oc->groups);
	strobe_intern_free(&oc->tuples);
	free(oc->weights);
	free(oc);
}

static void attach(struct strobe_offcpu *oc, struct strobe_formats *fmts)
{
	const struct strobe_format *f;

	oc->attached = true;
	oc->fmts = fmts;
	f = strobe_formats_find(fmts, "sched", "sched_switch");
	if (f && !strobe_field_resolve(f, "prev_pid", &oc->prev_pid) &&
	    !strobe_field_resolve(f, "next_pid", &oc->next_pid)) {
		oc->sw_id = strobe_format_id(f);
		strobe_field_resolve(f, "prev_comm", &oc->prev_comm);
	}
	f = strobe_formats_find(fmts, "ftrace", "kernel_stack");
	if (f && !strobe_field_resolve(f, "caller", &oc->ks_caller)) {
		oc->ks_id = strobe_format_id(f);
		strobe_field_resolve(f, "size", &oc->ks_size);
	}
	f = strobe_formats_find(fmts, "sched", "sched_process_fork");
	if (f && !strobe_field_resolve(f, "parent_pid", &oc->fork_parent) &&
	    !strobe_field_resolve(f, "child_pid", &oc->fork_child))
		oc->fork_id = strobe_format_id(f);
	f = strobe_formats_find(fmts, "ftrace", "user_stack");
	if (f && !strobe_field_resolve(f, "caller", &oc->us_caller))
		oc->us_id = strobe_format_id(f);
}

static struct thr *thread(struct strobe_offcpu *oc, int tid);

/* A task the recording traced (always, for a whole-system recording). */
static bool traced(struct strobe_offcpu *oc, const struct strobe_task *t, int tid)
{
	int i;

	switch (oc->target) {
	case TGT_SYSTEM:
		return true;
	case TGT_CONTAINERS:
		for (i = 0; t && i < oc->nr_tgt_conts; i++)
			if (t->container->id[0] && !strcmp(t->container->id, oc->tgt_conts[i]))
				return true;
		return false;
	case TGT_PIDS:
		for (i = 0; i < oc->nr_tgt_pids; i++)
			if (oc->tgt_pids[i] == tid || (t && t->tgid == oc->tgt_pids[i]))
				return true;
		return (size_t)tid < oc->nr_thr && oc->thr[tid].traced;
	}
	return true;
}

static bool selected(struct strobe_offcpu *oc, const struct strobe_task *t, int tid)
{
	int i;

	if (!traced(oc, t, tid))
		return false;

	if (oc->o.nr_containers) {
		if (!t)
			return false;
		for (i = 0; i < oc->o.nr_containers; i++)
			if (strobe_container_matches(t->container, oc->o.containers[i]))
				break;
		if (i == oc->o.nr_containers)
			return false;
	}
	if (oc->o.nr_pids) {
		int pid = t && t->tgid > 0 ? t->tgid : tid;

		for (i = 0; i < oc->o.nr_pids; i++)
			if (oc->o.pids[i] == pid)
				break;
		if (i == oc->o.nr_pids)
			return false;
	}
	return true;
}

/* The group key of task tid: "container\0comm", "comm", "comm-tid" or "". */
static int64_t group_of(struct strobe_offcpu *oc, const struct strobe_task *t, int tid,
			const struct strobe_event *ev)
{
	char key[320], comm[17] = "";
	const char *c;
	uint32_t len;
	int n = 0;

	if (t && t->comm[0] && strcmp(t->comm, "<...>")) {
		snprintf(comm, sizeof(comm), "%s", t->comm);
	} else if ((c = strobe_field_str(ev, &oc->prev_comm, &len))) {
		len = (uint32_t)strnlen(c, len < 16 ? len : 16);
		memcpy(comm, c, len);
		comm[len] = '\0';
	}
	if (!comm[0])
		snprintf(comm, sizeof(comm), "%d", tid);
	switch (oc->o.group_by) {
	case STROBE_FLAME_BY_CONTAINER:
		n = snprintf(key, sizeof(key), "%s", t ? t->container->name : "host");
		n++;	/* the NUL separates the two frames */
		n += snprintf(key + n, sizeof(key) - (size_t)n, "%s", comm);
		break;
	case STROBE_FLAME_BY_PROCESS:
		n = snprintf(key, sizeof(key), "%s", comm);
		break;
	case STROBE_FLAME_BY_THREAD:
		n = snprintf(key, sizeof(key), "%s-%d", comm, tid);
		break;
	case STROBE_FLAME_BY_NONE:
		break;
	}
	return strobe_intern_add(&oc->groups, key, (size_t)n, NULL);
}

static struct thr *thread(struct strobe_offcpu *oc, int tid)
{
	size_t n;
	struct thr *t;

	if (tid <= 0 || tid >= MAX_TID)
		return NULL;
	if ((size_t)tid >= oc->nr_thr) {
		n = oc->nr_thr ? oc->nr_thr : 4096;
		while (n <= (size_t)tid)
			n *= 2;
		t = realloc(oc->thr, n * sizeof(*t));
		if (!t) {
			oc->err = -ENOMEM;
			return NULL;
		}
		memset(t + oc->nr_thr, 0, (n - oc->nr_thr) * sizeof(*t));
		oc->thr = t;
		oc->nr_thr = n;
	}
	return &oc->thr[tid];
}

static int *pend_of(struct strobe_offcpu *oc, int cpu)
{
	int n, *p, i;

	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu >= oc->nr_pend) {
		n = cpu + 16;
		p = realloc(oc->pend, (size_t)n * sizeof(*p));
		if (!p) {
			oc->err = -ENOMEM;
			return NULL;
		}
		for (i = oc->nr_pend; i < n; i++)
			p[i] = -1;
		oc->pend = p;
		oc->nr_pend = n;
	}
	return &oc->pend[cpu];
}

static void add_weight(struct strobe_offcpu *oc, struct thr *t, uint64_t w)
{
	uint32_t key[3] = { t->group, t->kst, t->ust };
	int64_t id;

	if (t->tup_seen && !memcmp(key, t->tup_key, sizeof(key))) {
		id = t->tup_seen - 1;
	} else {
		id = strobe_intern_add(&oc->tuples, key, sizeof(key), NULL);
		if (id < 0) {
			oc->err = (int)id;
			return;
		}
		memcpy(t->tup_key, key, sizeof(key));
		t->tup_seen = (uint32_t)id + 1;
	}
	if ((size_t)id >= oc->nr_weights) {
		size_t n = oc->nr_weights ? oc->nr_weights * 2 : 1024;
		uint64_t *p = realloc(oc->weights, n * sizeof(*p));

		if (!p) {
			oc->err = -ENOMEM;
			return;
		}
		memset(p + oc->nr_weights, 0, (n - oc->nr_weights) * sizeof(*p));
		oc->weights = p;
		oc->nr_weights = n;
	}
	oc->weights[id] += w;
	oc->st.periods++;
	oc->st.off_ns += w;
	if (t->kst == NONE)
		oc->st.no_stack++;
}

static void on_switch(struct strobe_offcpu *oc, const struct strobe_event *ev,
		      struct strobe_model *m)
{
	int prev = (int)strobe_field_int(ev, &oc->prev_pid);
	int next = (int)strobe_field_int(ev, &oc->next_pid);
	const struct strobe_task *task;
	int *pend = pend_of(oc, ev->cpu);
	struct thr *t;
	int64_t g;

	if (next > 0 && (size_t)next < oc->nr_thr && oc->thr[next].off) {
		t = &oc->thr[next];
		t->off = 0;
		if (ev->ts >= t->start && ev->ts - t->start >= oc->o.min_ns)
			add_weight(oc, t, ev->ts - t->start);
	}
	if (pend)
		*pend = -1;
	if (prev <= 0)
		return;		/* the idle task */
	task = m ? strobe_model_task(m, prev) : NULL;
	if (!selected(oc, task, prev))
		return;
	t = thread(oc, prev);
	if (!t)
		return;
	/* the group (container, comm) of the thread's last switch-out again,
	 * unless the task or its comm changed: no formatting, no hashing */
	if (!task || !t->has_group || t->serial != task->serial ||
	    memcmp(t->comm, task->comm, sizeof(t->comm))) {
		g = group_of(oc, task, prev, ev);
		if (g < 0) {
			oc->err = (int)g;
			return;
		}
		t->group = (uint32_t)g;
		t->has_group = task != NULL;
		if (task) {
			t->serial = task->serial;
			memcpy(t->comm, task->comm, sizeof(t->comm));
		}
	}
	t->start = ev->ts;
	t->kst = t->ust = NONE;
	t->off = 1;
	oc->st.switches++;
	if (pend)
		*pend = prev;
}

/* A stack record right after its switch: the addresses, interned. */
static void on_stack(struct strobe_offcpu *oc, const struct strobe_event *ev, bool user)
{
	const struct strobe_field *f = user ? &oc->us_caller : &oc->ks_caller;
	int *pend = pend_of(oc, ev->cpu);
	uint64_t addrs[MAX_FRAMES], a;
	uint32_t i, n, room, *seen;
	struct strobe_intern *tab;
	struct thr *t;
	int64_t id;

	if (!pend || *pend != ev->pid || *pend <= 0)
		return;
	t = &oc->thr[ev->pid];
	if (!t->off || (user ? t->ust : t->kst) != NONE)
		return;
	/* the kernel writes `size` callers and shortens the record to them */
	room = f->offset < ev->size ? (ev->size - f->offset) / 8 : 0;
	n = user ? 8 : (uint32_t)strobe_field_int(ev, &oc->ks_size);
	if (n > room)
		n = room;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	tab = user ? &oc->ustacks : &oc->kstacks;
	seen = user ? &t->ust_seen : &t->kst_seen;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * The thread's last stack again (most switch-outs repeat it): its
	 * key holds n callers, none 0 or ~0, so a record whose first n
	 * callers are those bytes decodes to it - one comparison of the
	 * payload, no copy.
	 */
	if (*seen && strobe_intern_key_len(tab, *seen - 1) == n * sizeof(*addrs) &&
	    !memcmp(strobe_intern_key(tab, *seen - 1), (const char *)ev->data + f->offset,
		    n * sizeof(*addrs))) {
		id = *seen - 1;
		goto found;
	}
#endif
	for (i = 0; i < n; i++) {
		memcpy(&a, (const char *)ev->data + f->offset + 8 * i, 8);
		a = le64toh(a);
		if (a == 0 || a == UINT64_MAX)
			break;
		addrs[i] = a;
	}
	if (*seen && strobe_intern_key_len(tab, *seen - 1) == i * sizeof(*addrs) &&
	    !memcmp(strobe_intern_key(tab, *seen - 1), addrs, i * sizeof(*addrs))) {
		id = *seen - 1;
	} else {
		id = strobe_intern_add(tab, addrs, i * sizeof(*addrs), NULL);
		if (id < 0) {
			oc->err = (int)id;
			return;
		}
		*seen = (uint32_t)id + 1;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
found:
#endif
	if (user) {
		t->ust = (uint32_t)id;
		oc->st.user_stacks++;
	} else {
		t->kst = (uint32_t)id;
		oc->st.kernel_stacks++;
	}
}

int strobe_offcpu_feed(struct strobe_offcpu *oc, const struct strobe_event *ev,
		       struct strobe_model *m)
{
	int *pend;

	if (!oc->attached) {
		if (!ev->format)
			return 0;
		attach(oc, strobe_format_catalogue(ev->format));
	}
	if (ev->type != oc->sw_id && ev->type != oc->ks_id && ev->type != oc->us_id &&
	    ev->pid > 0 && (size_t)ev->pid < oc->nr_thr && oc->thr[ev->pid].off) {
		/*
		 * An event of its own: it runs again, and its switch-in was not
		 * recorded (this kernel drops some switches out of idle to a
		 * task under set_event_pid): that event ends its time off CPU,
		 * the nearest evidence after the switch-in.
		 */
		struct thr *t = &oc->thr[ev->pid];

		t->off = 0;
		if (ev->ts >= t->start && ev->ts - t->start >= oc->o.min_ns)
			add_weight(oc, t, ev->ts - t->start);
	}
	if (ev->type == oc->sw_id) {
		on_switch(oc, ev, m);
	} else if (ev->type == oc->fork_id && oc->target == TGT_PIDS) {
		int parent = (int)strobe_field_int(ev, &oc->fork_parent);
		int child = (int)strobe_field_int(ev, &oc->fork_child);
		struct thr *t;

		if (traced(oc, m ? strobe_model_task(m, parent) : NULL, parent) &&
		    (t = thread(oc, child)))
			t->traced = 1;
		if (ev->cpu < oc->nr_pend)
			oc->pend[ev->cpu] = -1;
	} else if (ev->type == oc->ks_id) {
		on_stack(oc, ev, false);
	} else if (ev->type == oc->us_id) {
		/* also with no_user: it is part of the switch, not another event */
		if (!oc->o.no_user)
			on_stack(oc, ev, true);
	} else if (ev->cpu < oc->nr_pend) {
		pend = &oc->pend[ev->cpu];
		*pend = -1;
	}
	return oc->err;
}

/* ---- the end: distinct triples into frame names -------------------------- */

static int fold_tuple(struct strobe_offcpu *oc, uint32_t id, char *names, size_t names_size)
{
	const uint32_t *key = (const uint32_t *)(const void *)strobe_intern_key(&oc->tuples, id);
	const char *frames[MAX_FRAMES * 2 + 4];
	uint64_t addrs[MAX_FRAMES];
	uint32_t grp, kst, ust, len, i, k;
	const char *g, *fn;
	size_t used = 0;
	int n = 0, first;

	memcpy(&grp, &key[0], 4);
	memcpy(&kst, &key[1], 4);
	memcpy(&ust, &key[2], 4);
	g = strobe_intern_key(&oc->groups, grp);
	len = strobe_intern_key_len(&oc->groups, grp);
	/* the group's frames: its NUL-separated parts */
	for (i = 0; i < len; i += (uint32_t)strlen(g + i) + 1)
		frames[n++] = g + i;
	if (ust != NONE) {
		k = strobe_intern_key_len(&oc->ustacks, ust) / 8;
		memcpy(addrs, strobe_intern_key(&oc->ustacks, ust), (size_t)k * 8);
		for (i = k; i-- > 0;) {
			int w = snprintf(names + used, names_size - used, "0x%llx",
					 (unsigned long long)addrs[i]);

			if (w < 0 || (size_t)w >= names_size - used)
				break;
			frames[n++] = names + used;
			used += (size_t)w + 1;
		}
	}
	if (kst == NONE) {
		frames[n++] = "[no stack]";
	} else {
		k = strobe_intern_key_len(&oc->kstacks, kst) / 8;
		memcpy(addrs, strobe_intern_key(&oc->kstacks, kst), (size_t)k * 8);
		/* innermost first in the record: skip the tracing frames there */
		first = strobe_kstack_skip(oc->fmts, addrs, (int)k);
		for (i = k; i-- > (uint32_t)first;) {
			fn = strobe_formats_ksym(oc->fmts, addrs[i]);
			if (!fn) {
				int w = snprintf(names + used, names_size - used, "0x%llx",
						 (unsigned long long)addrs[i]);

				if (w < 0 || (size_t)w >= names_size - used)
					break;
				fn = names + used;
				used += (size_t)w + 1;
			}
			frames[n++] = fn;
		}
		if (first == (int)k)
			frames[n++] = "[no stack]";
	}
	if (!n)
		frames[n++] = "[no stack]";
	return strobe_flame_add(oc->flame, frames, n, oc->weights[id]);
}

int strobe_offcpu_done(struct strobe_offcpu *oc, struct strobe_error *err)
{
	char names[MAX_FRAMES * 24];
	uint32_t i;
	size_t t;
	int r;

	if (oc->done)
		return 0;
	oc->done = true;
	if (oc->err)
		return strobe_err(err, oc->err, "out of memory");
	for (t = 0; t < oc->nr_thr; t++)
		if (oc->thr[t].off)
			oc->st.still_off++;
	if (oc->ks_id < 0 || !oc->st.kernel_stacks)
		return strobe_err(err, -ENOENT, "the trace holds no kernel stacks of context "
				  "switches%s: record them with 'strobe record --stacks'",
				  oc->sw_id < 0 ? " (nor sched_switch events)" : "");
	for (i = 0; i < oc->tuples.n; i++) {
		r = fold_tuple(oc, i, names, sizeof(names));
		if (r < 0)
			return strobe_err(err, r, "out of memory");
	}
	return 0;
}

const struct strobe_flame *strobe_offcpu_flame(const struct strobe_offcpu *oc)
{
	return oc ? oc->flame : NULL;
}

void strobe_offcpu_stats(const struct strobe_offcpu *oc, struct strobe_offcpu_stats *st)
{
	*st = oc->st;
}

/* ---- as a pipeline consumer -------------------------------------------- */

/* "a,b,c" into strings (conts) or numbers (pids); malformed entries
 * skipped. */
static int parse_list(struct strobe_offcpu *oc, const char *text, bool pids)
{
	const char *p = text, *e;
	size_t n;

	while (p && *p) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n && n < 128) {
			char item[128];

			memcpy(item, p, n);
			item[n] = '\0';
			if (pids) {
				int *v = realloc(oc->tgt_pids, (oc->nr_tgt_pids + 1) * sizeof(*v));
				long x = strtol(item, NULL, 10);

				if (!v)
					return -ENOMEM;
				oc->tgt_pids = v;
				if (x > 0 && x < MAX_TID)
					oc->tgt_pids[oc->nr_tgt_pids++] = (int)x;
			} else {
				char **v = realloc(oc->tgt_conts, (oc->nr_tgt_conts + 1) * sizeof(*v));

				if (!v)
					return -ENOMEM;
				oc->tgt_conts = v;
				if (!(v[oc->nr_tgt_conts] = strdup(item)))
					return -ENOMEM;
				oc->nr_tgt_conts++;
			}
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int strobe_offcpu_set_target(struct strobe_offcpu *oc, const char *target, const char *pids,
			     const char *containers, struct strobe_error *err)
{
	int r = 0;

	if (!target || !strcmp(target, "system")) {
		oc->target = TGT_SYSTEM;
	} else if (!strcmp(target, "command") || !strcmp(target, "pid")) {
		oc->target = TGT_PIDS;
		r = parse_list(oc, pids, true);
	} else if (!strcmp(target, "container")) {
		oc->target = TGT_CONTAINERS;
		r = parse_list(oc, containers, false);
	} else {
		return strobe_err(err, -EINVAL, "unknown recording target '%s'", target);
	}
	return r < 0 ? strobe_err(err, r, "out of memory") : 0;
}

static int c_start(const struct strobe_pipeline_source *sources, int nr, void *arg,
		   struct strobe_error *err)
{
	struct strobe_offcpu *oc = arg;
	struct strobe_tracefile *tf;
	int i, r;

	for (i = 0; i < nr; i++) {
		if (sources[i].index != oc->source)
			continue;
		tf = sources[i].tf;
		if (tf) {
			r = strobe_offcpu_set_target(oc, strobe_tracefile_info(tf, "target"),
						     strobe_tracefile_info(tf, "target_pids"),
						     strobe_tracefile_info(tf, "target_containers"),
						     err);
			if (r < 0)
				return r;
		}
		oc->model = sources[i].model;
		attach(oc, sources[i].formats);
		return 0;
	}
	return strobe_err(err, -EINVAL, "no source %d", oc->source);
}

static int c_event(const struct strobe_event *ev, int source, void *arg,
		   struct strobe_error *err)
{
	struct strobe_offcpu *oc = arg;

	if (source != oc->source)
		return 0;
	if (strobe_offcpu_feed(oc, ev, oc->model) < 0)
		return strobe_err(err, oc->err, "off-CPU folding: out of memory");
	return 0;
}

static int c_finish(void *arg, struct strobe_error *err)
{
	return strobe_offcpu_done(arg, err);
}

int strobe_offcpu_consumer(struct strobe_offcpu *oc, int source, struct strobe_consumer *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->name = "flamegraph";
	out->flags = STROBE_CONSUMER_MODEL;
	out->start = c_start;
	out->event = c_event;
	out->finish = c_finish;
	out->arg = oc;
	oc->source = source;
	return 0;
}
