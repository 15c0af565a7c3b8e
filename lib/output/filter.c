/*
 * filter.c - selecting events by CPU, task and event type (strobe_filter).
 *
 * Everything the user typed is resolved once, when added: event patterns
 * become a bitmap indexed by event id (common_type is 16 bits, so 8 KiB),
 * CPU lists a boolean array (also handed to the stream so unselected CPUs
 * are never even read), PIDs a sorted array.  Matching an event is then a
 * few loads.  Command names are the exception: they are matched against
 * the comm of the event's pid through a small direct-mapped cache, so
 * globs work and each pid's comm is looked up about once.
 *
 * PIDs and comms both name tasks, so they form one criterion (a task
 * passes if its pid or its comm was named); CPUs, tasks and events are
 * combined with AND.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/output.h>
#include <strobe/stream.h>

#include "../stream/format-int.h"
#include "output/output-int.h"

#define NR_EVENT_IDS	65536
#define MAX_CPUS	8192
#define COMM_CACHE	1024

struct comm_slot {
	int pid;		/* key; valid only if `state` != 0 */
	int8_t state;		/* 0 empty, 1 match, -1 no match */
};

struct strobe_filter {
	struct tep_handle *tep;
	uint8_t *types;		/* NR_EVENT_IDS bits, NULL: every event */
	bool *cpus;		/* nr_cpus entries, NULL: every CPU */
	int nr_cpus;
	bool tasks;		/* a pid or comm was added */
	int *pids;		/* sorted ascending */
	size_t nr_pids;
	char **comms;
	size_t nr_comms;
	/* Per-pid comm verdicts; mutable cache behind a const match(). */
	struct comm_slot *comm_cache;
};

int strobe_filter_new(struct strobe_formats *fmts, struct strobe_filter **out)
{
	struct tep_handle *tep = strobe_formats_tep(fmts);
	struct strobe_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->tep = tep;
	*out = f;
	return 0;
}

void strobe_filter_free(struct strobe_filter *f)
{
	size_t i;

	if (!f)
		return;
	free(f->types);
	free(f->cpus);
	free(f->pids);
	for (i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	free(f->comms);
	free(f->comm_cache);
	free(f);
}

/* Split a comma-separated list; calls fn for each non-empty item. */
static int for_each_item(const char *list, int (*fn)(void *ctx, const char *item),
			 void *ctx)
{
	char *copy, *item, *save = NULL;
	int ret = 0;

	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save))
		ret = fn(ctx, item);
	free(copy);
	return ret;
}

/* ---- events --------------------------------------------------------- */

struct event_ctx {
	struct strobe_filter *f;
	struct strobe_error *err;
};

static int add_event_pattern(void *ctx, const char *pat)
{
	struct event_ctx *c = ctx;
	struct strobe_filter *f = c->f;
	struct tep_event **events;
	const char *colon = strchr(pat, ':');
	char sys[256];
	const char *name;
	int i, found = 0;

	if (colon) {
		if ((size_t)(colon - pat) >= sizeof(sys))
			return strobe_err(c->err, -EINVAL, "event pattern too long: '%s'", pat);
		memcpy(sys, pat, colon - pat);
		sys[colon - pat] = '\0';
		name = colon + 1;
		if (!*name)
			name = "*";
	} else {
		sys[0] = '\0';
		name = pat;
	}
	events = tep_list_events(f->tep, TEP_EVENT_SORT_ID);
	for (i = 0; events && events[i]; i++) {
		struct tep_event *e = events[i];
		const char *esys = e->system ? e->system : "";
		bool hit;

		if (colon)
			hit = !fnmatch(*sys ? sys : "*", esys, 0) &&
			      !fnmatch(name, e->name, 0);
		else
			hit = !fnmatch(name, e->name, 0) || !fnmatch(name, esys, 0);
		if (hit && e->id >= 0 && e->id < NR_EVENT_IDS) {
			f->types[e->id / 8] |= 1u << (e->id % 8);
			found = 1;
		}
	}
	if (!found)
		return strobe_err(c->err, -ENOENT, "no event in the file matches '%s'", pat);
	return 0;
}

int strobe_filter_add_events(struct strobe_filter *f, const char *patterns,
			     struct strobe_error *err)
{
	struct event_ctx c = { f, err };

	if (!f->types) {
		f->types = calloc(NR_EVENT_IDS / 8, 1);
		if (!f->types)
			return strobe_err(err, -ENOMEM, "out of memory");
	}
	return for_each_item(patterns, add_event_pattern, &c);
}

/* ---- CPUs ----------------------------------------------------------- */

/* Strict non-negative decimal at *p, advancing it; -1 if none or >= max. */
static long parse_num(const char **p, int max)
{
	const char *s = *p;
	long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s++ - '0');
		if (v >= max)
			return -1;
	}
	*p = s;
	return v;
}

struct cpu_ctx {
	bool *mask;
	int max;
	struct strobe_error *err;
};

static int add_cpu_item(void *ctx, const char *item)
{
	struct cpu_ctx *c = ctx;
	const char *p = item;
	long a, b, i;

	a = b = parse_num(&p, c->max);
	if (a >= 0 && *p == '-') {
		p++;
		b = parse_num(&p, c->max);
	}
	if (a < 0 || b < 0 || *p || b < a)
		return strobe_err(c->err, -EINVAL,
				  "bad CPU list item '%s' (expected N or N-M, N < %d)",
				  item, c->max);
	for (i = a; i <= b; i++)
		c->mask[i] = true;
	return 0;
}

int strobe_cpu_list_parse(const char *list, bool *mask, int max, struct strobe_error *err)
{
	struct cpu_ctx c = { mask, max, err };
	int r;

	if (!list || !*list)
		return strobe_err(err, -EINVAL, "empty CPU list");
	r = for_each_item(list, add_cpu_item, &c);
	return r == -ENOMEM ? strobe_err(err, r, "out of memory") : r;
}

int strobe_filter_add_cpus(struct strobe_filter *f, const char *list,
			   struct strobe_error *err)
{
	bool *mask = calloc(MAX_CPUS, sizeof(*mask));
	int i, r, hi = -1;

	if (!mask)
		return strobe_err(err, -ENOMEM, "out of memory");
	r = strobe_cpu_list_parse(list, mask, MAX_CPUS, err);
	for (i = 0; r == 0 && i < MAX_CPUS; i++)
		if (mask[i])
			hi = i;
	if (r == 0 && hi >= f->nr_cpus) {
		bool *n = realloc(f->cpus, ((size_t)hi + 1) * sizeof(*n));

		if (!n) {
			free(mask);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
		memset(n + f->nr_cpus, 0, ((size_t)hi + 1 - (size_t)f->nr_cpus) * sizeof(*n));
		f->cpus = n;
		f->nr_cpus = hi + 1;
	}
	for (i = 0; r == 0 && i <= hi; i++)
		f->cpus[i] |= mask[i];
	free(mask);
	return r;
}

int strobe_filter_cpu_mask(const struct strobe_filter *f, const bool **mask)
{
	*mask = f->cpus;
	return f->cpus ? f->nr_cpus : 0;
}

/* ---- tasks ---------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int add_pid_item(void *ctx, const char *item)
{
	struct event_ctx *c = ctx;
	struct strobe_filter *f = c->f;
	char *end;
	long v;
	int *n;

	errno = 0;
	v = strtol(item, &end, 10);
	if (*item < '0' || *item > '9' || *end || errno || v > 0x7fffffff)
		return strobe_err(c->err, -EINVAL, "bad pid '%s'", item);
	n = realloc(f->pids, (f->nr_pids + 1) * sizeof(*n));
	if (!n)
		return strobe_err(c->err, -ENOMEM, "out of memory");
	f->pids = n;
	f->pids[f->nr_pids++] = (int)v;
	qsort(f->pids, f->nr_pids, sizeof(*f->pids), cmp_int);
	f->tasks = true;
	return 0;
}

int strobe_filter_add_pids(struct strobe_filter *f, const char *list,
			   struct strobe_error *err)
{
	struct event_ctx c = { f, err };

	if (!*list)
		return strobe_err(err, -EINVAL, "empty pid list");
	return for_each_item(list, add_pid_item, &c);
}

static int add_comm_item(void *ctx, const char *item)
{
	struct event_ctx *c = ctx;
	struct strobe_filter *f = c->f;
	char **n;

	/* A plain name must be known; a glob may legitimately match later. */
	if (!strpbrk(item, "*?[") && !tep_data_pid_from_comm(f->tep, item, NULL))
		return strobe_err(c->err, -ENOENT,
				  "no task named '%s' in the file's command lines", item);
	n = realloc(f->comms, (f->nr_comms + 1) * sizeof(*n));
	if (!n)
		return strobe_err(c->err, -ENOMEM, "out of memory");
	f->comms = n;
	f->comms[f->nr_comms] = strdup(item);
	if (!f->comms[f->nr_comms])
		return strobe_err(c->err, -ENOMEM, "out of memory");
	f->nr_comms++;
	f->tasks = true;
	return 0;
}

int strobe_filter_add_comms(struct strobe_filter *f, const char *list,
			    struct strobe_error *err)
{
	struct event_ctx c = { f, err };

	if (!*list)
		return strobe_err(err, -EINVAL, "empty command name list");
	if (!f->comm_cache) {
		f->comm_cache = calloc(COMM_CACHE, sizeof(*f->comm_cache));
		if (!f->comm_cache)
			return strobe_err(err, -ENOMEM, "out of memory");
	}
	/* Names added later change verdicts: forget the cached ones. */
	memset(f->comm_cache, 0, COMM_CACHE * sizeof(*f->comm_cache));
	return for_each_item(list, add_comm_item, &c);
}

static bool comm_match(const struct strobe_filter *f, int pid)
{
	struct comm_slot *slot = &f->comm_cache[(unsigned)pid % COMM_CACHE];
	const char *comm;
	size_t i;

	if (slot->state && slot->pid == pid)
		return slot->state > 0;
	comm = tep_data_comm_from_pid(f->tep, pid);
	slot->pid = pid;
	slot->state = -1;
	for (i = 0; i < f->nr_comms; i++) {
		if (!fnmatch(f->comms[i], comm, 0)) {
			slot->state = 1;
			break;
		}
	}
	return slot->state > 0;
}

static bool task_match(const struct strobe_filter *f, int pid)
{
	if (f->nr_pids && bsearch(&pid, f->pids, f->nr_pids, sizeof(int), cmp_int))
		return true;
	return f->nr_comms && comm_match(f, pid);
}

bool strobe_filter_match(const struct strobe_filter *f, const struct strobe_event *ev)
{
	if (!f)
		return true;
	if (f->cpus && (ev->cpu < 0 || ev->cpu >= f->nr_cpus || !f->cpus[ev->cpu]))
		return false;
	if (f->types && (ev->type < 0 || ev->type >= NR_EVENT_IDS ||
			 !(f->types[ev->type / 8] & (1u << (ev->type % 8)))))
		return false;
	if (f->tasks && !task_match(f, ev->pid))
		return false;
	return true;
}
