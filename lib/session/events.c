/*
 * events.c - the event catalogue: presets, listing the kernel's events,
 * expanding "system:event" globs and presets into event names, and "did
 * you mean" suggestions.  Everything here except strobe_events_list() is
 * pure (no I/O), so tests/unit/test_session.c covers it without a kernel.
 *
 * Presets name small, cheap sets: the analyses need them, and every
 * enabled event costs about 300 ns each time it fires on every task, so a
 * preset never enables a whole busy system (syscalls uses the two
 * raw_syscalls events rather than ~700 syscalls:* events).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>

#include "internal.h"

static const char *const preset_sched[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
	"sched:sched_wakeup_new", "sched:sched_process_fork",
	"sched:sched_process_exec", "sched:sched_process_exit",
	"sched:sched_process_free", "sched:sched_migrate_task", NULL,
};
static const char *const preset_syscalls[] = {
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", NULL,
};
static const char *const preset_io[] = {
	"block:block_rq_insert", "block:block_rq_issue",
	"block:block_rq_complete", "block:block_rq_requeue",
	"block:block_rq_error", "block:block_bio_queue",
	"writeback:writeback_dirty_folio", "writeback:writeback_single_inode",
	"writeback:writeback_single_inode_start", "writeback:writeback_dirty_inode",
	"writeback:writeback_dirty_inode_enqueue",
	NULL,
};
static const char *const preset_irq[] = {
	"irq:irq_handler_entry", "irq:irq_handler_exit",
	"irq:softirq_raise", "irq:softirq_entry", "irq:softirq_exit",
	"irq:tasklet_entry", "irq:tasklet_exit",
	"ipi:ipi_send_cpu", "ipi:ipi_send_cpumask", NULL,
};
static const char *const preset_net[] = {
	"net:net_dev_queue", "net:net_dev_xmit", "net:netif_receive_skb",
	"net:netif_rx", "napi:napi_poll", "skb:kfree_skb",
	"sock:inet_sock_set_state", "tcp:tcp_retransmit_skb",
	"tcp:tcp_send_reset", "tcp:tcp_receive_reset",
	"tcp:tcp_destroy_sock", NULL,
};
static const char *const preset_mem[] = {
	"kmem:mm_page_alloc", "kmem:mm_page_free",
	"kmem:mm_page_free_batched", "kmem:rss_stat",
	"vmscan:mm_vmscan_direct_reclaim_begin",
	"vmscan:mm_vmscan_direct_reclaim_end", "oom:mark_victim", NULL,
};

static const char *const preset_faults[] = {
	"exceptions:page_fault_user", "exceptions:page_fault_kernel", NULL,
};

/* strobe why: who ran, who woke whom and from what context (interrupts,
 * softirqs, timers, disk completions), and the system call a task blocked
 * in (futex: a lock); recorded on the whole machine, since the chains
 * cross containers */
static const char *const preset_why[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
	"sched:sched_wakeup_new", "sched:sched_process_fork",
	"sched:sched_process_exec", "sched:sched_process_exit",
	"sched:sched_process_free", "sched:sched_migrate_task",
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
	"irq:irq_handler_entry", "irq:irq_handler_exit",
	"irq:softirq_entry", "irq:softirq_exit",
	"timer:hrtimer_expire_entry", "timer:hrtimer_expire_exit",
	"timer:timer_expire_entry", "timer:timer_expire_exit",
	"block:block_rq_issue", "block:block_rq_complete", NULL,
};

static const struct strobe_preset presets[] = {
	{ "sched", "scheduling: switches, wake-ups, fork/exec/exit, migrations", preset_sched },
	{ "syscalls", "every system call entry and exit (raw_syscalls, cheap)", preset_syscalls },
	{ "io", "block requests (queue, insert, issue, complete) and writeback", preset_io },
	{ "irq", "hard and soft interrupts, tasklets, IPIs", preset_irq },
	{ "net", "packets in and out, drops, TCP state changes and retransmits", preset_net },
	{ "mem", "page allocations and frees, RSS changes, direct reclaim, OOM kills", preset_mem },
	{ "faults", "page faults in user and kernel mode (x86 exceptions; costly on "
	  "busy machines)", preset_faults },
	{ "why", "strobe why: scheduling, system calls, interrupts, timers and block "
	  "completions", preset_why },
	{ NULL, NULL, NULL },
};

const struct strobe_preset *strobe_presets(void)
{
	return presets;
}

const struct strobe_preset *strobe_preset_find(const char *name)
{
	const struct strobe_preset *p;

	for (p = presets; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

void strobe_strv_free(struct strobe_strv *sv)
{
	size_t i;

	if (!sv)
		return;
	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

/* Append a copy of s unless present.  1 added, 0 present, -ENOMEM. */
static int strv_add(struct strobe_strv *sv, const char *s)
{
	char **nv;
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 0;
	if ((sv->n & (sv->n - 1)) == 0 || sv->n == 0) {
		nv = realloc(sv->v, (sv->n ? sv->n * 2 : 8) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		sv->v = nv;
	}
	sv->v[sv->n] = strdup(s);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->n++;
	return 1;
}

bool strobe_glob_match(const char *glob, const char *s)
{
	return fnmatch(glob, s, 0) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int strobe_events_list(const char *glob, struct strobe_strv *out,
		       struct strobe_error *err)
{
	const char *dir;
	char path[256], *buf, *line, *save = NULL;
	int r;

	out->v = NULL;
	out->n = 0;
	r = strobe_tracefs_dir(&dir, err);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/available_events", dir);
	r = strobe_fs_read(path, &buf, NULL);
	if (r < 0)
		return strobe_err(err, r, "cannot read %s: %s", path, strerror(-r));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!*line || (glob && !strobe_glob_match(glob, line)))
			continue;
		/* available_events has no duplicates: append directly. */
		if ((out->n & (out->n - 1)) == 0) {
			char **nv = realloc(out->v, (out->n ? out->n * 2 : 8) * sizeof(*nv));

			if (!nv)
				goto nomem;
			out->v = nv;
		}
		out->v[out->n] = strdup(line);
		if (!out->v[out->n])
			goto nomem;
		out->n++;
	}
	free(buf);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
nomem:
	free(buf);
	strobe_strv_free(out);
	return strobe_err(err, -ENOMEM, "out of memory");
}

struct cand {
	const char *name;
	size_t dist;
};

size_t strobe_events_suggest(const struct strobe_strv *avail, const char *spec,
			     const char **best, size_t max)
{
	struct cand top[8];
	size_t ntop = 0, i, j, d, limit, slen;
	const char *colon = strchr(spec, ':');

	if (max > 8)
		max = 8;
	slen = strlen(spec);
	limit = slen / 3 > 2 ? slen / 3 : 2;
	for (i = 0; i < avail->n; i++) {
		const char *name = avail->v[i];
		const char *ev = strchr(name, ':');

		d = strobe_edit_distance(spec, name);
		if (!colon && ev) {
			size_t d2 = strobe_edit_distance(spec, ev + 1);

			if (d2 < d)
				d = d2;
		}
		if (d > limit)
			continue;
		/* insertion into a small sorted array, stable by name order */
		for (j = ntop; j > 0 && top[j - 1].dist > d; j--)
			if (j < max)
				top[j] = top[j - 1];
		if (j < max) {
			top[j].name = name;
			top[j].dist = d;
			if (ntop < max)
				ntop++;
		}
	}
	for (i = 0; i < ntop; i++)
		best[i] = top[i].name;
	return ntop;
}

/* Also offer system names ("shced" -> "sched") for a bare word. */
static size_t suggest_system(const struct strobe_strv *avail, const char *spec,
			     char *buf, size_t size)
{
	size_t i, best = (size_t)-1, len;
	char sys[128];

	buf[0] = '\0';
	for (i = 0; i < avail->n; i++) {
		const char *c = strchr(avail->v[i], ':');
		size_t d;

		if (!c || (size_t)(c - avail->v[i]) >= sizeof(sys))
			continue;
		len = c - avail->v[i];
		memcpy(sys, avail->v[i], len);
		sys[len] = '\0';
		d = strobe_edit_distance(spec, sys);
		if (d < best && d <= 2) {
			best = d;
			snprintf(buf, size, "%s", sys);
		}
	}
	return best;
}

static int no_match(const struct strobe_strv *avail, const char *spec,
		    struct strobe_error *err)
{
	const char *best[3];
	char sys[128], list[400];
	size_t n, i, off = 0;

	n = strobe_events_suggest(avail, spec, best, 3);
	list[0] = '\0';
	if (!strchr(spec, ':') && suggest_system(avail, spec, sys, sizeof(sys)) <= 2)
		off += snprintf(list + off, sizeof(list) - off, "%s", sys);
	for (i = 0; i < n && off < sizeof(list); i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%s",
				off ? ", " : "", best[i]);
	if (off)
		return strobe_err(err, -ENOENT, "unknown event '%s' (did you mean %s?)",
				  spec, list);
	return strobe_err(err, -ENOENT,
			  "unknown event '%s' (see 'strobe list events')", spec);
}

/* Add every available event whose system and name match the globs. */
static int add_matching(const struct strobe_strv *avail, const char *sysg,
			const char *evg, struct strobe_strv *out, int *matched)
{
	char sys[256];
	size_t i, len;
	int added = 0, r;

	for (i = 0; i < avail->n; i++) {
		const char *name = avail->v[i], *c = strchr(name, ':');

		if (!c)
			continue;
		len = c - name;
		if (len >= sizeof(sys))
			continue;
		memcpy(sys, name, len);
		sys[len] = '\0';
		if (sysg && !strobe_glob_match(sysg, sys))
			continue;
		if (evg && !strobe_glob_match(evg, c + 1))
			continue;
		(*matched)++;
		r = strv_add(out, name);
		if (r < 0)
			return r;
		added += r;
	}
	return added;
}

int strobe_events_expand(const struct strobe_strv *avail, const char *spec,
			 struct strobe_strv *out, struct strobe_error *err)
{
	const struct strobe_preset *p;
	char buf[512], *colon;
	int matched = 0, added = 0, r;
	size_t i;

	if (!spec || !*spec)
		return strobe_err(err, -EINVAL, "empty event name");
	if (strlen(spec) >= sizeof(buf))
		return strobe_err(err, -EINVAL, "event name too long: '%.40s...'", spec);
	strcpy(buf, spec);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		r = add_matching(avail, *buf ? buf : "*",
				 colon[1] ? colon + 1 : "*", out, &matched);
		if (r < 0)
			return strobe_err(err, r, "out of memory");
		if (!matched)
			return no_match(avail, spec, err);
		return r;
	}
	p = strobe_preset_find(spec);
	if (p) {
		for (i = 0; p->events[i]; i++) {
			char one[256], *c;

			snprintf(one, sizeof(one), "%s", p->events[i]);
			c = strchr(one, ':');
			*c = '\0';
			r = add_matching(avail, one, c + 1, out, &matched);
			if (r < 0)
				return strobe_err(err, r, "out of memory");
			added += r;
		}
		if (!matched)
			return strobe_err(err, -ENOENT,
					  "preset '%s': none of its events exist on this kernel",
					  spec);
		return added;
	}
	r = add_matching(avail, spec, NULL, out, &matched);
	if (r < 0)
		return strobe_err(err, r, "out of memory");
	if (matched)
		return r;
	r = add_matching(avail, NULL, spec, out, &matched);
	if (r < 0)
		return strobe_err(err, r, "out of memory");
	if (matched)
		return r;
	return no_match(avail, spec, err);
}
