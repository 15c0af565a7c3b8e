/*
 * top.c - strobe top's interval figures (top.h) as Prometheus families:
 * the mapping strobe_metrics_add_top_interval documents in metrics.h.
 *
 * Why these shapes: every container family has the same three labels
 * (container, pod, namespace; "" when unknown) so one PromQL selector or
 * `by (pod)` reads them all alike; each container is one registry group,
 * keyed by those three values, so a container's series live and expire
 * together.  The engine hands its top N system calls per interval, and
 * which ones changes over time: the registry keeps at most
 * syscall_labels names per container and family, then counts further
 * names under "other", so a container holds a bounded number of series
 * however long it runs.  A series that would only say zero (no system
 * call, no IO, no latency measured yet) is not created until something is
 * counted, so a container whose IO is never seen shows no IO families.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <strobe/top.h>

#include "metrics-int.h"

enum {
	F_CPU, F_SWITCHES, F_SYSCALLS, F_ERRORS, F_SYSLAT, F_RUNQ, F_BIO_BYTES, F_BIO_LAT,
	F_MEM, F_TASKS, F_EVENTS, F_LOST, F_NR
};

#define NBOUNDS (STROBE_METRICS_TOP_MAX_SLOT + 1)

static const char *const c_labels[] = { "container", "pod", "namespace", "syscall", "errno" };
static const char *const io_labels[] = { "container", "pod", "namespace", "op" };

static int add_families(struct strobe_metrics *m, int *ids)
{
	static uint64_t bounds[NBOUNDS];
	struct {
		const char *name, *help;
		enum strobe_metric_type type;
		const char *const *labels;
		int nr_labels, decimals;
	} defs[F_NR] = {
		[F_CPU] = { "strobe_container_cpu_seconds_total",
			    "CPU time the container's tasks ran", STROBE_METRIC_COUNTER,
			    c_labels, 3, 9 },
		[F_SWITCHES] = { "strobe_container_context_switches_total",
				 "Context switches to the container's tasks",
				 STROBE_METRIC_COUNTER, c_labels, 3, 0 },
		[F_SYSCALLS] = { "strobe_container_syscalls_total",
				 "System calls the container's tasks ended (the top ones per "
				 "container, the rest as syscall=\"other\")",
				 STROBE_METRIC_COUNTER, c_labels, 4, 0 },
		[F_ERRORS] = { "strobe_container_syscall_errors_total",
			       "System calls that failed, by error", STROBE_METRIC_COUNTER,
			       c_labels, 5, 0 },
		[F_SYSLAT] = { "strobe_container_syscall_latency_seconds",
			       "Time from a system call's entry to its exit",
			       STROBE_METRIC_HISTOGRAM, c_labels, 3, 9 },
		[F_RUNQ] = { "strobe_container_runqueue_latency_seconds",
			     "Time from a task's wake-up to its run on a CPU",
			     STROBE_METRIC_HISTOGRAM, c_labels, 3, 9 },
		[F_BIO_BYTES] = { "strobe_container_block_io_bytes_total",
				  "Block IO bytes issued by the container or written back for it",
				  STROBE_METRIC_COUNTER, io_labels, 4, 0 },
		[F_BIO_LAT] = { "strobe_container_block_io_latency_seconds",
				"Time from a block request's issue to its completion",
				STROBE_METRIC_HISTOGRAM, c_labels, 3, 9 },
		[F_MEM] = { "strobe_container_memory_bytes",
			    "The container's cgroup memory usage", STROBE_METRIC_GAUGE,
			    c_labels, 3, 0 },
		[F_TASKS] = { "strobe_container_tasks",
			      "Threads of the container seen alive in the last interval",
			      STROBE_METRIC_GAUGE, c_labels, 3, 0 },
		[F_EVENTS] = { "strobe_events_total", "Trace events strobe read",
			       STROBE_METRIC_COUNTER, NULL, 0, 0 },
		[F_LOST] = { "strobe_lost_events_total",
			     "Trace events the kernel dropped before strobe read them",
			     STROBE_METRIC_COUNTER, NULL, 0, 0 },
	};
	int i;

	for (i = 0; i < NBOUNDS; i++)
		bounds[i] = 2000ULL << i;	/* 2^(i+1) us, in ns */
	for (i = 0; i < F_NR; i++) {
		struct strobe_metrics_family_def d = {
			defs[i].name, defs[i].help, defs[i].type, defs[i].labels,
			defs[i].nr_labels, defs[i].decimals, bounds, NBOUNDS
		};
		int r = strobe_metrics_family_add_locked(m, &d, NULL);

		if (r < 0)
			return r;
		ids[i] = r;
	}
	return 0;
}

static int add_hist(struct strobe_metrics *m, int fam, const char *group, const char *const *v,
		    const struct strobe_top_hist *h)
{
	uint64_t counts[NBOUNDS + 1] = { 0 }, slots = 0;
	int k;

	if (!h->count && !strobe_metrics_has_locked(m, fam, group, v))
		return 0;
	for (k = 0; k < STROBE_TOP_SLOTS; k++) {
		counts[k < NBOUNDS ? k : NBOUNDS] += h->slot[k];
		slots += h->slot[k];
	}
	/* _count is the histogram's count; +Inf must equal it */
	if (h->count > slots)
		counts[NBOUNDS] += h->count - slots;
	return strobe_metrics_add_locked(m, fam, group, v, STROBE_METRIC_HISTOGRAM, 0, counts,
					 h->sum_ns);
}

static int counter(struct strobe_metrics *m, int fam, const char *group, const char *const *v,
		   uint64_t n, bool always)
{
	if (!n && !always && !strobe_metrics_has_locked(m, fam, group, v))
		return 0;
	return strobe_metrics_add_locked(m, fam, group, v, STROBE_METRIC_COUNTER,
					 n > INT64_MAX ? INT64_MAX : (int64_t)n, NULL, 0);
}

/* The syscall label value under which `name` counts in family fam of the
 * group: itself if it has a series or there is room, "other" else. */
static const char *syscall_label(struct strobe_metrics *m, int fam, const char *group,
				 const char **v, int at, const char *name, int room)
{
	v[at] = name;
	if (!strcmp(name, "other") || strobe_metrics_has_locked(m, fam, group, v) ||
	    strobe_metrics_group_count_locked(m, fam, group) < room)
		return name;
	return "other";
}

/* Keep the first -ENOMEM of a container's updates; -ENOSPC (a series
 * over the cap) is counted by the registry and is no failure. */
#define ADD(call) do { int e_ = (call); if (e_ == -ENOMEM) r = e_; } while (0)

static int add_container(struct strobe_metrics *m, const int *ids,
			 const struct strobe_top_container *c, uint64_t now_ns)
{
	int room = strobe_metrics_syscall_labels(m);
	const char *name = c->name && *c->name ? c->name : "host";
	const char *pod = c->pod ? c->pod : "", *ns = c->ns ? c->ns : "";
	const char *v[5] = { name, pod, ns, NULL, NULL };
	char group[3 * 1024 + 3];
	int r = 0, i;

	/* the group is the label identity: two groups never hold a series
	 * of the same labels */
	snprintf(group, sizeof(group), "%.1024s\x1f%.1024s\x1f%.1024s", name, pod, ns);
	if (strobe_metrics_alive_locked(m, group, now_ns) < 0)
		return -ENOMEM;
	ADD(counter(m, ids[F_CPU], group, v, c->cpu_ns, true));
	ADD(counter(m, ids[F_SWITCHES], group, v, c->switches, true));
	for (i = 0; c->syscalls && i < c->nr_syscalls; i++) {
		const struct strobe_top_syscall *s = &c->syscalls[i];

		if (!s->name)
			continue;
		v[3] = syscall_label(m, ids[F_SYSCALLS], group, v, 3, s->name, room);
		ADD(counter(m, ids[F_SYSCALLS], group, v, s->count, false));
	}
	for (i = 0; c->errnos && i < c->nr_errnos; i++) {
		const struct strobe_top_errno *e = &c->errnos[i];
		const char *sys;

		if (!e->syscall || !e->error)
			continue;
		/* the syscall label as the syscalls family has it */
		v[4] = NULL;
		sys = syscall_label(m, ids[F_SYSCALLS], group, v, 3, e->syscall, 0);
		v[3] = sys;
		v[4] = e->error;
		if (!strobe_metrics_has_locked(m, ids[F_ERRORS], group, v) &&
		    strobe_metrics_group_count_locked(m, ids[F_ERRORS], group) >= 2 * room) {
			v[3] = "other";
			v[4] = "other";
		}
		ADD(counter(m, ids[F_ERRORS], group, v, e->count, false));
	}
	ADD(add_hist(m, ids[F_SYSLAT], group, v, &c->syscall_lat));
	ADD(add_hist(m, ids[F_RUNQ], group, v, &c->runq_lat));
	ADD(add_hist(m, ids[F_BIO_LAT], group, v, &c->blkio_lat));
	v[3] = "read";
	ADD(counter(m, ids[F_BIO_BYTES], group, v, c->read_bytes, false));
	v[3] = "write";
	ADD(counter(m, ids[F_BIO_BYTES], group, v, c->write_bytes, false));
	if (c->mem_bytes >= 0)
		ADD(strobe_metrics_add_locked(m, ids[F_MEM], group, v, STROBE_METRIC_GAUGE,
					       c->mem_bytes, NULL, 0));
	ADD(strobe_metrics_add_locked(m, ids[F_TASKS], group, v, STROBE_METRIC_GAUGE,
				       c->tasks, NULL, 0));
	return r;
}

int strobe_metrics_add_top_interval(struct strobe_metrics *m, const struct strobe_top_interval *iv,
				    uint64_t now_ns)
{
	int nr, *ids = strobe_metrics_top_ids(m, &nr), i, r = 0, bad = 0;

	if (!iv || (iv->nr_containers && !iv->containers))
		return -EINVAL;
	strobe_metrics_lock(m);
	if (ids[0] < 0 && (r = add_families(m, ids)) < 0)
		goto out;
	for (i = 0; i < iv->nr_containers; i++) {
		if (add_container(m, ids, &iv->containers[i], now_ns) < 0)
			bad = 1;
	}
	counter(m, ids[F_EVENTS], NULL, NULL, iv->events, true);
	counter(m, ids[F_LOST], NULL, NULL, iv->lost, true);
	strobe_metrics_expire_locked(m, now_ns);
	r = bad ? -ENOMEM : 0;
out:
	strobe_metrics_unlock(m);
	return r;
}
