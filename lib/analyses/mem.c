/*
 * mem.c - pages allocated and freed per thread, process or container,
 * from kmem:mm_page_alloc / mm_page_free / mm_page_free_batched, and page
 * faults from exceptions:page_fault_user / page_fault_kernel (the
 * "faults" preset), each charged to the task that faulted.
 *
 * An allocation or free of order N counts 2^N pages (mm_page_free_batched
 * frees one order-0 page per event) and is charged to the task current
 * when the event fired: allocations to the task that faulted or asked,
 * frees to the task that freed, which for reclaim, RCU or a kworker is not
 * the task that allocated.  No per-page state is kept, so memory follows
 * the number of groups.  Bytes use the trace's page size.
 *
 * --log: one row per event (time, task, CPU, alloc or free, order, pages,
 * bytes, and an allocation's gfp_flags in hex when the format has them).
 * Nothing here has a duration, so --min/--max do not apply, and nothing
 * is in flight: a reset (strobe_analysis_reset) drops the groups.
 */
#include <stdio.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format/format-int.h"
#include "analyses/analysis-int.h"

enum { ALLOC, FREE, FREE_BATCHED, FAULT };

struct group {
	struct ana_owner o;
	uint64_t alloc_pages, free_pages, allocs, frees, faults;
};

struct mem {
	struct strobe_field a_order, f_order, a_gfp;
	uint64_t page_size;
	struct ana_map groups;
	struct strobe_table *top, *log;
};

/* The log row of one allocation or free (order -1: a batched free). */
static void log_event(struct ana *a, const struct strobe_event *ev, int cookie, int order,
		      uint64_t pages)
{
	struct mem *p = a->priv;
	struct ana_core *c = a->core;
	const struct strobe_task *t = ana_task(c, ev->pid);	/* again: it may move */
	union strobe_value v[11];
	char gfp[24] = "";

	if (!t)
		return;
	if (cookie == ALLOC && p->a_gfp.valid)
		snprintf(gfp, sizeof(gfp), "0x%llx",
			 (unsigned long long)strobe_field_uint(ev, &p->a_gfp));
	v[0].u = ev->ts;
	v[1].i = t->tid;
	v[2].i = t->tgid;
	v[3].s = t->comm;
	v[4].s = ana_container_name(c, t->container->index);
	v[5].i = ev->cpu;
	v[6].s = cookie == ALLOC ? "alloc" : "free";
	v[7].i = order < 0 ? 0 : order;
	v[8].i = (int64_t)pages;
	v[9].u = pages * p->page_size;
	v[10].s = gfp;
	c->opts.log(c->opts.log_arg, p->log, v);
}

static void on_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct mem *p = a->priv;
	struct ana_core *c = a->core;
	const struct strobe_task *t;
	struct group *g;
	uint64_t pages = 1;
	bool created;
	int order = -1;

	if (cookie != FREE_BATCHED && cookie != FAULT) {
		order = (int)strobe_field_int(ev, cookie == ALLOC ? &p->a_order : &p->f_order);
		if (order < 0 || order > 20)
			return;
		pages = 1ULL << order;
	}
	t = ana_task(c, ev->pid);
	if (!t || !ana_task_selected(c, t))
		return;
	g = ana_map_put(&p->groups, ana_group_key(c, t, ev->cpu), &created);
	if (!g)
		return;
	if (created)
		ana_owner_set(c, &g->o, t, ev->cpu);
	else
		ana_owner_refresh(c, &g->o, t);
	if (cookie == FAULT) {
		g->faults++;
		return;
	}
	if (cookie == ALLOC) {
		g->alloc_pages += pages;
		g->allocs++;
	} else {
		g->free_pages += pages;
		g->frees++;
	}
	if (p->log && c->opts.log)
		log_event(a, ev, cookie, order, pages);
}

static const struct ana_sub subs[] = {
	{ "kmem", "mm_page_alloc", on_event, ALLOC },
	{ "kmem", "mm_page_free", on_event, FREE },
	{ "kmem", "mm_page_free_batched", on_event, FREE_BATCHED },
	{ "exceptions", "page_fault_user", on_event, FAULT },
	{ "exceptions", "page_fault_kernel", on_event, FAULT },
	{ NULL, NULL, NULL, 0 }
};

static int init(struct ana *a)
{
	struct mem *p = a->priv;
	int ret = 0;

	ana_map_init(&p->groups, sizeof(struct group));
	if (!ana_view(a->core, STROBE_VIEW_TOP | STROBE_VIEW_STATS))
		goto log;
	p->top = ana_add_table(a, "mem.top", "Pages allocated and freed",
			       ana_view(a->core, STROBE_VIEW_TOP) ? STROBE_VIEW_TOP
								  : STROBE_VIEW_STATS);
	if (!p->top)
		return -ENOMEM;
	ret |= ana_owner_cols(a->core, p->top);
	ret |= tbl_col(p->top, "alloc_pages", "Alloc pages", STROBE_COL_INT);
	ret |= tbl_col(p->top, "free_pages", "Freed pages", STROBE_COL_INT);
	ret |= tbl_col(p->top, "alloc_bytes", "Alloc bytes", STROBE_COL_BYTES);
	ret |= tbl_col(p->top, "free_bytes", "Freed bytes", STROBE_COL_BYTES);
	ret |= tbl_col(p->top, "allocs", "Allocs", STROBE_COL_INT);
	ret |= tbl_col(p->top, "frees", "Frees", STROBE_COL_INT);
	ret |= tbl_col(p->top, "faults", "Faults", STROBE_COL_INT);
log:
	if (ana_view(a->core, STROBE_VIEW_LOG)) {
		p->log = ana_add_table(a, "mem.log", "Page allocations and frees",
				       STROBE_VIEW_LOG);
		if (!p->log)
			return -ENOMEM;
		ret |= tbl_col(p->log, "ts", "Time", STROBE_COL_TIMESTAMP);
		ret |= ana_task_cols(p->log);
		ret |= tbl_col(p->log, "cpu", "CPU", STROBE_COL_INT);
		ret |= tbl_col(p->log, "op", "Op", STROBE_COL_STR);
		ret |= tbl_col(p->log, "order", "Order", STROBE_COL_INT);
		ret |= tbl_col(p->log, "pages", "Pages", STROBE_COL_INT);
		ret |= tbl_col(p->log, "bytes", "Bytes", STROBE_COL_BYTES);
		ret |= tbl_col(p->log, "gfp_flags", "GFP flags", STROBE_COL_STR);
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct mem *p = a->priv;
	const struct strobe_format *al = strobe_formats_find(fmts, "kmem", "mm_page_alloc");
	const struct strobe_format *fr = strobe_formats_find(fmts, "kmem", "mm_page_free");
	int ps = tep_get_page_size(strobe_formats_tep(fmts));

	p->page_size = ps > 0 ? (uint64_t)ps : 4096;
	if (fr)
		strobe_field_resolve(fr, "order", &p->f_order);
	if (!al || strobe_field_resolve(al, "order", &p->a_order))
		return strobe_formats_find(fmts, "exceptions", "page_fault_user") ||
		       strobe_formats_find(fmts, "exceptions", "page_fault_kernel") ? 0 : -ENOENT;
	strobe_field_resolve(al, "gfp_flags", &p->a_gfp);	/* optional, for --log */
	return 0;
}

static int finish(struct ana *a)
{
	struct mem *p = a->priv;
	struct ana_core *c = a->core;
	struct ana_rank *r;
	struct group *g;
	size_t n, i;

	if (!p->top)
		return 0;
	if (ana_rank_map(&p->groups, offsetof(struct group, alloc_pages), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < ana_top_n(c, n); i++) {
		union strobe_value *v = tbl_row(p->top);
		int k;

		if (!v) {
			free(r);
			return -ENOMEM;
		}
		g = r[i].item;
		k = ana_owner_vals(c, p->top, v, &g->o);
		v[k++].i = (int64_t)g->alloc_pages;
		v[k++].i = (int64_t)g->free_pages;
		v[k++].u = g->alloc_pages * p->page_size;
		v[k++].u = g->free_pages * p->page_size;
		v[k++].i = (int64_t)g->allocs;
		v[k++].i = (int64_t)g->frees;
		v[k++].i = (int64_t)g->faults;
	}
	free(r);
	return 0;
}

static void reset(struct ana *a, uint64_t ts)
{
	struct mem *p = a->priv;

	ana_map_clear(&p->groups);
}

static void fini(struct ana *a)
{
	struct mem *p = a->priv;

	ana_map_free(&p->groups);
}

const struct ana_ops ana_mem_ops = {
	.name = "mem",
	.summary = "pages allocated and freed, and page faults, per thread, process and container",
	.needs = "kmem:mm_page_alloc (and mm_page_free, mm_page_free_batched) or "
		 "exceptions:page_fault_user",
	.preset = "mem",
	.priv_size = sizeof(struct mem),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.finish = finish,
	.reset = reset,
	.free = fini,
};
