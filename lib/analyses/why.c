/*
 * why.c - where the selected tasks' time goes and whom they wait for,
 * across container boundaries (strobe why).
 *
 * Every task of the trace, not only the selected ones, is a small state
 * machine fed by sched_switch and the wake-ups:
 *   RUN     switched in, until its switch-out;
 *   RUNQ    woken (or preempted: switched out in state R), until its
 *           switch-in: waiting for a CPU;
 *   BLOCK   switched out in state D (uninterruptible) or S (any other
 *           sleeping state: S, I, T, ...), until its wake-up;
 *   UNKNOWN before its first event, after lost events, or a switch-in
 *           with no wake-up recorded.
 * Each task keeps its last WHY_HIST closed segments with, for a block,
 * what ended it (the cause):
 *   task     the waker task (sched_waking, else sched_wakeup, in process
 *            context);
 *   lock     the same, when the blocked task was in futex(2): the holder
 *            woke it;
 *   disk     a wake-up in interrupt context right after a block request
 *            completed on that CPU (block_rq_complete, by device, with
 *            the request's issue-to-completion latency);
 *   network  a wake-up in the NET_RX/NET_TX softirq;
 *   timer    a wake-up from an expiring hrtimer or timer (hardirq inside
 *            hrtimer_expire_entry/exit, or the TIMER/HRTIMER softirq):
 *            sleeps, timeouts;
 *   irq      another hard interrupt (named by irq_handler_entry);
 *   softirq  another softirq;
 *   unknown  the waker is not known (woken by the idle task in process
 *            context; a block whose wake-up was not recorded).
 * Interrupt context comes from common_flags (hardirq 0x08, softirq 0x10,
 * NMI 0x40), as schedlat tells it.
 *
 * The critical path: a selected task's block [t0, t1) woken by task W is
 * charged backwards from t1 along W's own history: the pieces where W
 * ran are W's running time, where W waited for a CPU W's waiting, where
 * W was itself blocked the rule recurses into what ended W's block (a
 * task: its history inside that piece; anything else: that cause), at
 * most WHY_DEPTH hops deep and never into a task already on the path (a
 * cycle); what no history covers (older than WHY_HIST segments, before
 * the trace, a task that exited) is "unknown" with the reason.  This is
 * Giraldeau and Dagenais' active path, simplified to one waker per block
 * (the last, the one that made the task runnable).
 *
 * The figures are of the selected tasks (the task filters: --container,
 * --pid, --tid, --comm, --filter) and, in a PID-filtered recording, of
 * the traced tasks only; the other tasks are followed for the paths.
 * Tables: why.summary (the selected tasks' wall time by state), why.waits
 * (blocked time by the first hop: what ended the block), why.path (the
 * same time by the end of its critical path, under its first hop),
 * why.runq (who ran on the CPU while a selected task waited for it), and
 * with the STATS view why.threads (the split per selected thread).
 * why.answer is the same in sentences, ranked.
 *
 * Intervals: a segment counts in the interval where it ends; a snapshot
 * or the finish adds the segments still open (up to its time) to the
 * summary and shows blocks still open as "not woken yet", without
 * changing what later events, snapshots or the finish see.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/expr.h>

#include "analyses/analysis-int.h"
#include "expr/expr-int.h"
#include "format/format-int.h"
#include "util/intern.h"

#define WHY_HIST 48		/* closed segments kept per task */
#define WHY_DEPTH 8		/* hops of a critical path */
#define WHY_RAN 32		/* on-CPU intervals kept per CPU */
#define WHY_LEAVES 12		/* path ends kept per first hop (then "other") */
#define WHY_FRAMES 64		/* kernel frames kept of a switch's stack */
#define WHY_STACK_OWNERS 5	/* wakers whose blocking stacks are listed */
#define WHY_STACKS_EACH 3	/* stacks listed per waker */
#define WHY_STACK_TARGET 0	/* the owner key of the selected tasks' stacks */

#define TRACE_FLAG_HARDIRQ 0x08
#define TRACE_FLAG_SOFTIRQ 0x10
#define TRACE_FLAG_NMI 0x40

enum wstate { WS_UNKNOWN = 0, WS_RUN, WS_RUNQ, WS_BLOCK_S, WS_BLOCK_D, WS_NR };

/* What ended a block, or where a path ends. */
enum wkind {
	K_NONE = 0, K_TASK, K_LOCK, K_DISK, K_NET, K_TIMER, K_IRQ, K_SOFTIRQ,
	K_RUN, K_RUNQ, K_UNKNOWN, K_OPEN, K_OTHER, K_NR
};
static const char *const kind_names[K_NR] = {
	"", "task", "lock", "disk", "network", "timer", "irq", "softirq",
	"running", "waiting for a CPU", "unknown", "not woken yet", "other",
};

/* Reasons for K_UNKNOWN (the id) */
enum {
	U_NOWAKE = 1, U_WAKER, U_LOST, U_HISTORY, U_DEPTH, U_CYCLE, U_STATE, U_NOSWITCH,
	U_NR
};
static const char *const unknown_why[U_NR] = {
	"", "no wake-up recorded", "woken by the idle task", "lost events",
	"waker's history too short", "path deeper than 8 hops", "cycle",
	"state not known", "switch-in not recorded",
};

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

struct seg {
	uint64_t t0, t1;
	uint8_t state;		/* enum wstate */
	uint8_t ckind;		/* BLOCK: enum wkind of its cause */
	int cid;		/* cause: waker tid, device, irq, vector, reason */
	uint64_t clat;		/* disk: the request's latency */
	uint32_t kst;		/* BLOCK: its switch-out's kernel stack id + 1, 0 none */
};

struct wtask {
	uint8_t state;
	uint8_t unknown;	/* UNKNOWN: the reason (U_*) */
	uint8_t listed;		/* in why.known since the last lost events */
	int sys1;		/* the system call it is in plus 1; 0: none or not known */
	uint64_t since;
	uint32_t kst;		/* BLOCK: the open block's kernel stack id + 1 */
	int n, head;		/* history: h[head-1] newest, n kept */
	struct seg h[WHY_HIST];
};

struct ran {
	int tid;
	uint64_t t0, t1;
};

struct wcpu {
	int irq;		/* in a hard irq: its number, else -1 */
	int softirq;		/* in a softirq: its vector, else -1 */
	int hrtimer;		/* inside hrtimer/timer expiry (depth) */
	uint64_t blk_ts;	/* the latest block completion here */
	int blk_dev;
	uint64_t blk_lat;
	int cur;		/* running tid, -1 unknown */
	int pend;		/* switched out to a block here: its stack record
				 * comes next (--stacks), 0 none */
	uint64_t cur_since;
	int rn, rh;
	struct ran ran[WHY_RAN];
};

/* A thing time is charged to: a first hop or a path's end. */
struct who {
	uint8_t kind;
	int id;			/* task kinds: tgid; disk: dev; irq; vector; reason */
	int container;		/* task kinds */
	char comm[16];		/* task kinds: the process's name; irq: its name */
};

struct leaf {
	struct who w;
	uint64_t ns;
};

struct hop {
	struct who w;
	uint64_t ns;
	uint64_t count;		/* blocks it ended */
	uint64_t lat_total, lat_count;	/* disk: request latencies */
	int nl;
	struct leaf leaves[WHY_LEAVES];
	uint64_t other;		/* path ends beyond WHY_LEAVES */
};

struct runner {
	struct who w;
	uint64_t ns;
};

struct stack_sum {
	struct who w;		/* the owner (a waker), or kind K_NONE: the target */
	uint32_t kst;
	uint64_t ns;
};

struct thread_sum {
	struct ana_owner o;
	uint64_t ns[WS_NR];
};

/* Per request (--period): a period's owner thread over the period. */
struct pwhy {
	uint64_t dur;		/* the ranking key */
	uint64_t begin;
	int def;
	struct ana_owner o;
	uint64_t ns[WS_NR];
	struct who top;		/* what ended most of its blocked time */
	uint64_t top_ns;
};

struct psum {
	uint64_t count, dur;
	uint64_t ns[WS_NR];
};

struct why {
	struct strobe_field prev_pid, prev_state, next_pid;
	struct strobe_field wk_pid, wk_flags, wu_pid, wu_flags;
	struct strobe_field irq_nr, irq_name, sirq_vec, blk_dev, blk_sector;
	struct ana_sysdec sys;
	bool have_waking, have_sys, have_irq, have_blk;
	int futex_nr, sleep_nr[2];	/* futex; nanosleep, clock_nanosleep */
	struct ana_map tasks;	/* tid -> struct wtask */
	int *known;		/* tids that entered a known state since the
				 * last lost events (each once: wtask.listed) */
	size_t nr_known, cap_known;
	bool oom_known;		/* a tid could not be listed: look at all */
	struct ana_map issued;	/* (dev, sector) -> issue ts */
	struct wcpu *cpus;
	int nr_cpus;
	/* the selected tasks' figures (this interval) */
	uint64_t ns[WS_NR];
	struct ana_map hops;	/* who key -> struct hop */
	struct ana_map runners;	/* who key -> struct runner */
	struct ana_map threads;	/* group key -> struct thread_sum */
	int irq_names_n;
	struct { int nr; char name[16]; } irq_names[32];
	struct strobe_table *answer, *summary, *waits, *path, *runq, *per_thread;
	/* --stacks recordings: the kernel stack of each switch-out into a
	 * block, interned; blocked time per (owner, stack): the selected
	 * tasks (WHY_STACK_TARGET) and, on their critical paths, each waker
	 * process (its tgid) */
	bool have_kstack;
	struct strobe_field ks_size, ks_caller;
	const struct strobe_formats *fmts;
	struct strobe_intern kstacks;
	struct ana_map stacks;	/* owner << 32 | stack id -> struct stack_sum */
	struct strobe_table *stack_table;
	/* per request, with --period: the engine, per definition sums, the
	 * slowest --top */
	struct strobe_periods *eng;
	struct strobe_syscall_args *sysargs;
	int nr_defs;
	struct psum *psums;
	struct ana_topn slow;
	bool pfailed;
	struct strobe_table *ptable, *pslow;
};

enum {
	EV_SWITCH = ANA_SYS_NR_COOKIES, EV_WAKING, EV_WAKEUP, EV_WAKEUP_NEW,
	EV_IRQ_IN, EV_IRQ_OUT, EV_SIRQ_IN, EV_SIRQ_OUT, EV_TIMER_IN, EV_TIMER_OUT,
	EV_BLK_ISSUE, EV_BLK_DONE, EV_KSTACK,
};

static uint64_t who_key(const struct who *w)
{
	return ((uint64_t)w->kind << 32) | (uint32_t)w->id;
}

static struct wcpu *get_cpu(struct why *p, int cpu)
{
	if (cpu < 0 || cpu > 4095)
		return NULL;
	if (cpu >= p->nr_cpus) {
		int i, n = cpu + 8;
		struct wcpu *c = realloc(p->cpus, (size_t)n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + p->nr_cpus, 0, (size_t)(n - p->nr_cpus) * sizeof(*c));
		for (i = p->nr_cpus; i < n; i++) {
			c[i].irq = -1;
			c[i].softirq = -1;
			c[i].cur = -1;
		}
		p->cpus = c;
		p->nr_cpus = n;
	}
	return &p->cpus[cpu];
}

/* Is tid one whose figures count (a selected task, traced)? */
static bool selected(struct ana *a, int tid)
{
	const struct strobe_task *t;

	if (tid <= 0 || !ana_tid_traced(a->core, tid))
		return false;
	t = ana_task(a->core, tid);
	return t && ana_task_selected(a->core, t);
}

/* A task's identity as a process: tgid, the leader's name, container. */
static void who_task(struct ana *a, struct who *w, int kind, int tid)
{
	const struct strobe_task *t = tid > 0 ? ana_task(a->core, tid) : NULL;
	const struct strobe_task *l;

	memset(w, 0, sizeof(*w));
	w->kind = (uint8_t)kind;
	if (!t) {
		w->id = tid;
		w->container = -1;
		snprintf(w->comm, sizeof(w->comm), "%s", tid == 0 ? "<idle>" : "?");
		return;
	}
	w->id = t->tgid > 0 ? t->tgid : t->tid;
	w->container = t->container->index;
	l = t->tgid > 0 && t->tgid != t->tid ? ana_task(a->core, t->tgid) : NULL;
	memcpy(w->comm, l && l->comm[0] != '<' ? l->comm : t->comm, sizeof(w->comm));
	w->comm[15] = '\0';
}

static const char *irq_name(struct why *p, int nr)
{
	int i;

	for (i = 0; i < p->irq_names_n; i++)
		if (p->irq_names[i].nr == nr)
			return p->irq_names[i].name;
	return NULL;
}

static void who_of(struct ana *a, struct who *w, int kind, int id)
{
	struct why *p = a->priv;
	const char *s;

	if (kind == K_TASK || kind == K_LOCK || kind == K_RUN || kind == K_RUNQ) {
		who_task(a, w, kind, id);
		return;
	}
	memset(w, 0, sizeof(*w));
	w->kind = (uint8_t)kind;
	w->id = id;
	w->container = -1;
	switch (kind) {
	case K_IRQ:
		s = irq_name(p, id);
		if (s)
			snprintf(w->comm, sizeof(w->comm), "%s", s);
		break;
	case K_SOFTIRQ:
		if (id >= 0 && id < (int)(sizeof(softirq_names) / sizeof(*softirq_names)))
			snprintf(w->comm, sizeof(w->comm), "%s", softirq_names[id]);
		break;
	}
}

/* ---- charging ------------------------------------------------------------ */

static void leaf_add(struct hop *h, const struct who *w, uint64_t ns)
{
	int i;

	if (!ns)
		return;
	for (i = 0; i < h->nl; i++)
		if (h->leaves[i].w.kind == w->kind && h->leaves[i].w.id == w->id) {
			h->leaves[i].ns += ns;
			return;
		}
	if (h->nl < WHY_LEAVES) {
		h->leaves[h->nl].w = *w;
		h->leaves[h->nl++].ns = ns;
	} else {
		h->other += ns;
	}
}

static struct wtask *task_get(struct why *p, int tid)
{
	return tid > 0 ? ana_map_get(&p->tasks, (uint64_t)(uint32_t)tid) : NULL;
}

/* ns of blocked time in kernel stack kst (id + 1; 0: none recorded) to
 * owner w (NULL: the selected tasks). */
static void stack_add(struct ana *a, const struct who *w, uint32_t kst, uint64_t ns)
{
	struct why *p = a->priv;
	struct stack_sum *g;
	bool created;

	if (!kst || !ns)
		return;
	g = ana_map_put(&p->stacks, ((uint64_t)(uint32_t)(w ? w->id : WHY_STACK_TARGET) << 32) |
				    kst, &created);
	if (!g)
		return;
	if (created) {
		if (w)
			g->w = *w;
		else
			g->w.kind = K_NONE;
		g->kst = kst;
	}
	g->ns += ns;
}

/*
 * A walk back through a task's history inside [t0, t1): its open segment
 * (up to now, with the cause open_kind/open_cid) and then its closed ones,
 * newest first.  walk_next gives each piece [*lo, *hi) of a segment that
 * lies in the window, non-empty; NULL at the end, when k->cur is where
 * the covered part begins (t0 when the history covers it all).
 */
struct walk {
	const struct wtask *w;
	uint64_t t0, cur;
	int i;
	struct seg open;
};

static void walk_init(struct walk *k, const struct wtask *w, uint64_t t0, uint64_t t1,
		      uint8_t open_kind, int open_cid)
{
	memset(k, 0, sizeof(*k));
	k->w = w;
	k->t0 = t0;
	k->cur = t1;
	k->i = -1;
	if (w) {
		k->open.t0 = w->since;
		k->open.t1 = UINT64_MAX;
		k->open.state = w->state;
		k->open.ckind = open_kind;
		k->open.cid = open_cid;
		k->open.kst = w->kst;
	}
}

static const struct seg *walk_next(struct walk *k, uint64_t *lo, uint64_t *hi)
{
	const struct wtask *w = k->w;

	for (; w && k->i < w->n && k->cur > k->t0; k->i++) {
		const struct seg *sp;

		if (k->i < 0) {
			if (!w->since)
				continue;	/* exited, or never seen in a state */
			sp = &k->open;
		} else {
			sp = &w->h[(w->head - 1 - k->i + WHY_HIST) % WHY_HIST];
		}
		if (sp->t0 >= k->cur)
			continue;
		*lo = sp->t0 > k->t0 ? sp->t0 : k->t0;
		*hi = sp->t1 < k->cur ? sp->t1 : k->cur;
		k->cur = *lo;
		if (*hi > *lo) {
			k->i++;
			return sp;
		}
	}
	return NULL;
}

/*
 * Charge [t0, t1) of a path through task tid, walking its history back
 * from t1 (the rule at the top).  vis holds the tasks on the path.
 */
static void path(struct ana *a, struct hop *h, int tid, uint64_t t0, uint64_t t1, int depth,
		 int *vis)
{
	struct why *p = a->priv;
	struct wtask *w = task_get(p, tid);
	const struct seg *sp;
	struct walk k;
	struct who x;
	uint64_t lo, hi;

	if (!w) {
		who_of(a, &x, K_UNKNOWN, U_HISTORY);
		leaf_add(h, &x, t1 - t0);
		return;
	}
	vis[depth] = tid;
	walk_init(&k, w, t0, t1, K_UNKNOWN, U_STATE);
	while ((sp = walk_next(&k, &lo, &hi))) {
		switch (sp->state) {
		case WS_RUN:
			who_task(a, &x, K_RUN, tid);
			leaf_add(h, &x, hi - lo);
			break;
		case WS_RUNQ:
			who_task(a, &x, K_RUNQ, tid);
			leaf_add(h, &x, hi - lo);
			break;
		case WS_BLOCK_S:
		case WS_BLOCK_D:
			if (p->have_kstack) {	/* a waker blocked on the path */
				who_task(a, &x, K_TASK, tid);
				stack_add(a, &x, sp->kst, hi - lo);
			}
			if (sp->ckind == K_TASK || sp->ckind == K_LOCK) {
				int d, next = sp->cid;

				for (d = 0; d <= depth && vis[d] != next; d++)
					;
				if (d <= depth) {
					who_of(a, &x, K_UNKNOWN, U_CYCLE);
					leaf_add(h, &x, hi - lo);
				} else if (depth + 1 >= WHY_DEPTH) {
					who_of(a, &x, K_UNKNOWN, U_DEPTH);
					leaf_add(h, &x, hi - lo);
				} else {
					path(a, h, next, lo, hi, depth + 1, vis);
				}
			} else {
				who_of(a, &x, sp->ckind, sp->cid);
				leaf_add(h, &x, hi - lo);
			}
			break;
		default:
			who_of(a, &x, K_UNKNOWN, sp->ckind == K_UNKNOWN ? sp->cid : U_STATE);
			leaf_add(h, &x, hi - lo);
			break;
		}
	}
	if (k.cur > t0) {
		who_of(a, &x, K_UNKNOWN, U_HISTORY);
		leaf_add(h, &x, k.cur - t0);
	}
}

static struct hop *hop_get(struct ana *a, const struct who *w)
{
	struct why *p = a->priv;
	bool created;
	struct hop *h = ana_map_put(&p->hops, who_key(w), &created);

	if (h && created)
		h->w = *w;
	return h;
}

/* A selected task's closed segment: its figures. */
static void account(struct ana *a, int tid, const struct seg *s, int cpu)
{
	struct why *p = a->priv;
	struct ana_core *c = a->core;
	uint64_t ns = s->t1 - s->t0;
	const struct strobe_task *t;

	if (!ns || !selected(a, tid))
		return;
	p->ns[s->state] += ns;
	if (p->per_thread && (t = ana_task(c, tid))) {
		bool created;
		struct thread_sum *g = ana_map_put(&p->threads, ana_group_key(c, t, cpu),
						   &created);

		if (g) {
			if (created)
				ana_owner_set(c, &g->o, t, cpu);
			else
				ana_owner_refresh(c, &g->o, t);
			g->ns[s->state] += ns;
		}
	}
	if (s->state == WS_BLOCK_S || s->state == WS_BLOCK_D) {
		struct who w;
		struct hop *h;
		int vis[WHY_DEPTH];

		who_of(a, &w, s->ckind, s->cid);
		if (p->have_kstack)
			stack_add(a, NULL, s->kst, ns);
		h = hop_get(a, &w);
		if (!h)
			return;
		h->ns += ns;
		h->count++;
		if (s->ckind == K_DISK) {
			h->lat_total += s->clat;
			h->lat_count++;
		}
		if (s->ckind == K_TASK || s->ckind == K_LOCK) {
			vis[0] = tid;
			path(a, h, s->cid, s->t0, s->t1, 1, vis);
		} else {
			leaf_add(h, &w, ns);
		}
	}
}

/* Who ran on cpu during [t0, t1) while a selected task waited for it. */
static void account_runq(struct ana *a, int cpu, uint64_t t0, uint64_t t1)
{
	struct why *p = a->priv;
	struct wcpu *c = get_cpu(p, cpu);
	uint64_t covered = 0;
	struct who w;
	int i;

	if (!c)
		return;
	for (i = 0; i < c->rn; i++) {
		const struct ran *r = &c->ran[(c->rh - 1 - i + WHY_RAN) % WHY_RAN];
		uint64_t lo = r->t0 > t0 ? r->t0 : t0, hi = r->t1 < t1 ? r->t1 : t1;
		struct runner *u;
		bool created;

		if (r->t1 <= t0)
			break;
		if (hi <= lo)
			continue;
		who_task(a, &w, K_RUN, r->tid);
		u = ana_map_put(&p->runners, who_key(&w), &created);
		if (u) {
			if (created)
				u->w = w;
			u->ns += hi - lo;
		}
		covered += hi - lo;
	}
	if (t1 - t0 > covered) {
		struct runner *u;
		bool created;

		who_of(a, &w, K_UNKNOWN, U_HISTORY);
		u = ana_map_put(&p->runners, who_key(&w), &created);
		if (u) {
			if (created)
				u->w = w;
			u->ns += t1 - t0 - covered;
		}
	}
}

/* ---- the state machines ---------------------------------------------------- */

static struct wtask *task_put(struct why *p, int tid)
{
	struct wtask *w;
	bool created;

	if (tid <= 0)
		return NULL;
	w = ana_map_put(&p->tasks, (uint64_t)(uint32_t)tid, &created);
	return w;
}

/* Close tid's open segment at ts (with the cause, for a block) and open
 * the next one in state `next` from ts. */
static void transition(struct ana *a, int tid, struct wtask *w, uint64_t ts, int next,
		       int ckind, int cid, uint64_t clat, int cpu)
{
	struct seg *s;

	if (ts < w->since)
		ts = w->since;
	if (w->since && ts > w->since) {
		s = &w->h[w->head];
		s->t0 = w->since;
		s->t1 = ts;
		s->state = w->state;
		if (w->state == WS_UNKNOWN) {
			s->ckind = K_UNKNOWN;
			s->cid = w->unknown ? w->unknown : U_STATE;
		} else {
			s->ckind = (uint8_t)ckind;
			s->cid = cid;
		}
		s->clat = clat;
		s->kst = w->state == WS_BLOCK_S || w->state == WS_BLOCK_D ? w->kst : 0;
		w->head = (w->head + 1) % WHY_HIST;
		if (w->n < WHY_HIST)
			w->n++;
		account(a, tid, s, cpu);
	}
	w->state = (uint8_t)next;
	w->unknown = next == WS_UNKNOWN ? U_STATE : 0;
	w->since = ts;
	w->kst = 0;
	if (next != WS_UNKNOWN && !w->listed) {
		struct why *p = a->priv;

		if (p->nr_known == p->cap_known) {
			size_t n = p->cap_known ? p->cap_known * 2 : 256;
			int *k = realloc(p->known, n * sizeof(*k));

			if (!k) {
				p->oom_known = true;	/* lost() looks at every task */
				return;
			}
			p->known = k;
			p->cap_known = n;
		}
		p->known[p->nr_known++] = tid;
		w->listed = 1;
	}
}

static void on_switch(struct ana *a, const struct strobe_event *ev)
{
	struct why *p = a->priv;
	int prev = (int)strobe_field_int(ev, &p->prev_pid);
	int next = (int)strobe_field_int(ev, &p->next_pid);
	int64_t st = strobe_field_int(ev, &p->prev_state);
	struct wcpu *c = get_cpu(p, ev->cpu);
	struct wtask *w;

	if (c)
		c->pend = 0;
	if (prev > 0 && (w = task_put(p, prev))) {
		int ns;

		if ((st & 0xff) == 0)
			ns = WS_RUNQ;
		else if (st & 0x30)	/* EXIT_DEAD, EXIT_ZOMBIE */
			ns = WS_UNKNOWN;
		else if (st & 0x02)
			ns = WS_BLOCK_D;
		else
			ns = WS_BLOCK_S;
		if (w->state == WS_RUNQ && c && c->cur == 0 && c->cur_since <= w->since) {
			/* woken while this CPU was idle, switched in with no
			 * sched_switch recorded (some kernels skip the one out
			 * of idle): it ran from the wake-up */
			transition(a, prev, w, w->since, WS_RUN, 0, 0, 0, ev->cpu);
		} else if (w->state != WS_RUN) {
			/* its switch-in was not recorded: since when it ran
			 * is not known */
			if (w->state != WS_UNKNOWN) {
				w->state = WS_UNKNOWN;
				w->unknown = U_NOSWITCH;
			}
			transition(a, prev, w, ev->ts, WS_RUN, 0, 0, 0, ev->cpu);
		}
		if (c && c->cur == prev && c->cur_since <= ev->ts) {
			c->ran[c->rh].tid = prev;
			c->ran[c->rh].t0 = c->cur_since;
			c->ran[c->rh].t1 = ev->ts;
			c->rh = (c->rh + 1) % WHY_RAN;
			if (c->rn < WHY_RAN)
				c->rn++;
		}
		transition(a, prev, w, ev->ts, ns, 0, 0, 0, ev->cpu);
		if (ns == WS_UNKNOWN)	/* exited: a reused tid starts afresh */
			w->since = 0;
		else if (c && (ns == WS_BLOCK_S || ns == WS_BLOCK_D))
			c->pend = prev;
	} else if (prev == 0 && c && c->cur == 0) {
		c->ran[c->rh].tid = 0;
		c->ran[c->rh].t0 = c->cur_since;
		c->ran[c->rh].t1 = ev->ts;
		c->rh = (c->rh + 1) % WHY_RAN;
		if (c->rn < WHY_RAN)
			c->rn++;
	}
	if (c) {
		c->cur = next;
		c->cur_since = ev->ts;
	}
	if (next > 0 && (w = task_put(p, next))) {
		uint64_t since = w->since;
		int old = w->state;

		if (old == WS_BLOCK_S || old == WS_BLOCK_D)
			transition(a, next, w, ev->ts, WS_RUN, K_UNKNOWN, U_NOWAKE, 0, ev->cpu);
		else
			transition(a, next, w, ev->ts, WS_RUN, 0, 0, 0, ev->cpu);
		if (old == WS_RUNQ && since && since < ev->ts && selected(a, next))
			account_runq(a, ev->cpu, since, ev->ts);
	}
}

/* What woke a task at ev (the cause of its block's end). */
static void cause_of(struct ana *a, const struct strobe_event *ev, uint64_t flags, int wakee,
		     int *kind, int *id, uint64_t *lat)
{
	struct why *p = a->priv;
	struct wcpu *c = get_cpu(p, ev->cpu);
	struct wtask *w;

	*lat = 0;
	w = task_get(p, wakee);
	if (flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_NMI)) {
		if ((c && c->hrtimer > 0) ||
		    /* no timer events (a PID-filtered file): a sleep's end */
		    (w && w->sys1 && (w->sys1 - 1 == p->sleep_nr[0] || w->sys1 - 1 == p->sleep_nr[1]) &&
		     (!c || c->irq < 0))) {
			*kind = K_TIMER;
			*id = 0;
		} else if (c && c->blk_ts && c->irq >= 0 && ev->ts - c->blk_ts < 1000000) {
			*kind = K_DISK;
			*id = c->blk_dev;
			*lat = c->blk_lat;
		} else {
			*kind = K_IRQ;
			*id = c ? c->irq : -1;
		}
		return;
	}
	if (flags & TRACE_FLAG_SOFTIRQ) {
		int v = c ? c->softirq : -1;

		if (v == 2 || v == 3) {
			*kind = K_NET;
			*id = 0;
		} else if (v == 1 || v == 8) {
			*kind = K_TIMER;
			*id = 0;
		} else if (v == 4 || (c && c->blk_ts && ev->ts - c->blk_ts < 1000000)) {
			*kind = K_DISK;
			*id = c ? c->blk_dev : 0;
			*lat = c ? c->blk_lat : 0;
		} else {
			*kind = K_SOFTIRQ;
			*id = v;
		}
		return;
	}
	if (ev->pid <= 0) {
		*kind = K_UNKNOWN;
		*id = U_WAKER;
		return;
	}
	*kind = w && w->sys1 && w->sys1 - 1 == p->futex_nr ? K_LOCK : K_TASK;
	*id = ev->pid;
}

static void on_wake(struct ana *a, const struct strobe_event *ev, int tid,
		    const struct strobe_field *fl)
{
	struct why *p = a->priv;
	struct wtask *w = task_put(p, tid);
	int kind, id;
	uint64_t lat;

	if (!w)
		return;
	if (w->state == WS_RUN || w->state == WS_RUNQ)
		return;		/* already runnable: not the end of a block */
	cause_of(a, ev, strobe_field_uint(ev, fl), tid, &kind, &id, &lat);
	transition(a, tid, w, ev->ts, WS_RUNQ, kind, id, lat, ev->cpu);
}

/* A switch-out's kernel stack (ftrace:kernel_stack, from the stacktrace
 * trigger of record --stacks): the open block's. */
static void on_kstack(struct ana *a, const struct strobe_event *ev)
{
	struct why *p = a->priv;
	struct wtask *w = task_get(p, ev->pid);
	uint64_t addrs[WHY_FRAMES], v;
	uint32_t i, n, room;
	int64_t id;

	if (!w || (w->state != WS_BLOCK_S && w->state != WS_BLOCK_D) || w->kst)
		return;
	/* the kernel writes `size` callers and shortens the record to them */
	room = p->ks_caller.offset < ev->size ? (ev->size - p->ks_caller.offset) / 8 : 0;
	n = (uint32_t)strobe_field_int(ev, &p->ks_size);
	if (n > room)
		n = room;
	if (n > WHY_FRAMES)
		n = WHY_FRAMES;
	for (i = 0; i < n; i++) {
		memcpy(&v, (const char *)ev->data + p->ks_caller.offset + 8 * i, 8);
		v = le64toh(v);
		if (v == 0 || v == UINT64_MAX)
			break;
		addrs[i] = v;
	}
	if (!i)
		return;
	id = strobe_intern_add(&p->kstacks, addrs, i * sizeof(*addrs), NULL);
	if (id >= 0)
		w->kst = (uint32_t)id + 1;
}

static void on_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct why *p = a->priv;
	struct wcpu *c;
	int nr;
	int64_t ret;

	if (cookie != EV_SWITCH && cookie != EV_KSTACK && ev->pid > 0) {
		struct wtask *o = task_get(p, ev->pid);

		/* an event of its own: it runs, though its switch-in was not
		 * recorded (this kernel drops some switches out of idle under
		 * set_event_pid); a block that ends so has no known waker */
		if (o && o->since && ev->ts > o->since &&
		    (o->state == WS_RUNQ || o->state == WS_BLOCK_S || o->state == WS_BLOCK_D))
			transition(a, ev->pid, o, ev->ts, WS_RUN,
				   o->state == WS_RUNQ ? 0 : K_UNKNOWN,
				   o->state == WS_RUNQ ? 0 : U_NOWAKE, 0, ev->cpu);
	}
	switch (cookie) {
	case ANA_SYS_ENTER_RAW:
	case ANA_SYS_EXIT_RAW:
	case ANA_SYS_ENTER_NAMED:
	case ANA_SYS_EXIT_NAMED: {
		int k = ana_sysdec(&p->sys, ev, cookie, &nr, &ret);
		struct wtask *w;

		if (k == ANA_SYS_IGNORE || ev->pid <= 0 || !(w = task_put(p, ev->pid)))
			return;
		w->sys1 = k == ANA_SYS_ENTRY && nr >= 0 ? nr + 1 : 0;
		return;
	}
	case EV_SWITCH:
		on_switch(a, ev);
		return;
	case EV_WAKING:
		on_wake(a, ev, (int)strobe_field_int(ev, &p->wk_pid), &p->wk_flags);
		return;
	case EV_WAKEUP:
		if (p->have_waking)
			return;
		/* fall through */
	case EV_WAKEUP_NEW:
		on_wake(a, ev, (int)strobe_field_int(ev, &p->wu_pid), &p->wu_flags);
		return;
	}
	if (!(c = get_cpu(p, ev->cpu)))
		return;
	switch (cookie) {
	case EV_IRQ_IN: {
		int n = (int)strobe_field_int(ev, &p->irq_nr);
		uint32_t len;
		const char *s;

		c->irq = n;
		if (!irq_name(p, n) && p->irq_names_n < 32 &&
		    (s = strobe_field_str(ev, &p->irq_name, &len))) {
			p->irq_names[p->irq_names_n].nr = n;
			snprintf(p->irq_names[p->irq_names_n].name, 16, "%.*s",
				 (int)strnlen(s, len), s);
			p->irq_names_n++;
		}
		break;
	}
	case EV_IRQ_OUT:
		c->irq = -1;
		c->blk_ts = 0;
		break;
	case EV_SIRQ_IN:
		c->softirq = (int)strobe_field_int(ev, &p->sirq_vec);
		break;
	case EV_SIRQ_OUT:
		c->softirq = -1;
		c->blk_ts = 0;
		break;
	case EV_TIMER_IN:
		c->hrtimer++;
		break;
	case EV_TIMER_OUT:
		if (c->hrtimer > 0)
			c->hrtimer--;
		break;
	case EV_KSTACK:
		/* the stack of the switch-out just before, in its context */
		if (c->pend > 0 && c->pend == ev->pid)
			on_kstack(a, ev);
		c->pend = 0;
		break;
	case EV_BLK_ISSUE:
	case EV_BLK_DONE: {
		uint64_t key = ana_key2((uint64_t)strobe_field_uint(ev, &p->blk_sector),
					(uint32_t)strobe_field_uint(ev, &p->blk_dev) & 0xfffff);
		uint64_t *t;

		if (cookie == EV_BLK_ISSUE) {
			if ((t = ana_map_put(&p->issued, key, NULL)))
				*t = ev->ts;
			break;
		}
		c->blk_ts = ev->ts;
		c->blk_dev = (int)strobe_field_uint(ev, &p->blk_dev);
		c->blk_lat = 0;
		if ((t = ana_map_get(&p->issued, key))) {
			c->blk_lat = ev->ts > *t ? ev->ts - *t : 0;
			ana_map_del(&p->issued, key);
		}
		break;
	}
	}
}

static void to_unknown(struct ana *a, int tid, struct wtask *w, uint64_t ts, int cpu)
{
	transition(a, tid, w, ts, WS_UNKNOWN, K_UNKNOWN, U_LOST, 0, cpu);
	w->unknown = U_LOST;
}

static void lost(struct ana *a, int cpu, uint64_t ts)
{
	struct why *p = a->priv;
	struct wtask *w;
	uint64_t key;
	size_t pos = 0, i;

	if (p->eng)
		strobe_periods_note_lost(p->eng);
	/* a state may have changed unseen: every task's is unknown from the
	 * gap to its next event (the lost events' CPU is not enough: tasks
	 * migrate and wake each other across CPUs).  Only the tasks that
	 * entered a known state since the last gap can be in one. */
	if (p->oom_known) {
		while ((w = ana_map_next(&p->tasks, &pos, &key)))
			if (w->state != WS_UNKNOWN && w->since)
				to_unknown(a, (int)key, w, ts, cpu);
		p->oom_known = false;
	}
	for (i = 0; i < p->nr_known; i++) {
		w = task_get(p, p->known[i]);
		if (w && w->state != WS_UNKNOWN && w->since)
			to_unknown(a, p->known[i], w, ts, cpu);
	}
	for (i = 0; i < p->nr_known; i++)
		if ((w = task_get(p, p->known[i])))
			w->listed = 0;
	p->nr_known = 0;
	{
		struct wcpu *c = get_cpu(p, cpu);

		if (c) {
			c->cur = -1;
			c->rn = 0;
			c->irq = c->softirq = -1;
			c->hrtimer = 0;
			c->blk_ts = 0;
		}
	}
}

/* ---- per request (--period) ------------------------------------------------ */

static double pct(uint64_t part, uint64_t whole);
static void who_phrase(struct ana *a, const struct who *w, char *buf, size_t size);

/* tid's states over [t0, t1) from its history (its open state included),
 * summed into ns; the blocked pieces by what ended them into h. */
static void breakdown(struct ana *a, int tid, uint64_t t0, uint64_t t1, uint64_t *ns,
		      struct hop *h)
{
	struct why *p = a->priv;
	const struct seg *sp;
	uint64_t lo, hi;
	struct walk k;
	struct who x;

	walk_init(&k, task_get(p, tid), t0, t1, K_OPEN, 0);
	while ((sp = walk_next(&k, &lo, &hi))) {
		ns[sp->state] += hi - lo;
		if (sp->state != WS_BLOCK_S && sp->state != WS_BLOCK_D)
			continue;
		if (sp->ckind == K_OPEN) {
			memset(&x, 0, sizeof(x));
			x.kind = K_OPEN;
			x.container = -1;
		} else {
			who_of(a, &x, sp->ckind, sp->cid);
		}
		leaf_add(h, &x, hi - lo);
	}
	if (k.cur > t0)
		ns[WS_UNKNOWN] += k.cur - t0;
}

static void on_period(void *arg, const struct strobe_period *pd)
{
	struct ana *a = arg;
	struct why *p = a->priv;
	struct ana_core *c = a->core;
	const struct strobe_task *t;
	struct pwhy x, *slot;
	struct hop h;
	bool evict;
	int i;

	if (pd->status != STROBE_PERIOD_CLOSED || pd->end_ts <= pd->begin_ts ||
	    pd->def < 0 || pd->def >= p->nr_defs || !selected(a, pd->owner.tid) ||
	    !(t = ana_task(c, pd->owner.tid)))
		return;
	memset(&x, 0, sizeof(x));
	memset(&h, 0, sizeof(h));
	x.dur = pd->end_ts - pd->begin_ts;
	x.begin = pd->begin_ts;
	x.def = pd->def;
	ana_owner_set(c, &x.o, t, pd->begin_cpu);
	x.o.tid = t->tid;
	breakdown(a, t->tid, pd->begin_ts, pd->end_ts, x.ns, &h);
	for (i = 0; i < h.nl; i++)
		if (h.leaves[i].ns > x.top_ns) {
			x.top = h.leaves[i].w;
			x.top_ns = h.leaves[i].ns;
		}
	p->psums[pd->def].count++;
	p->psums[pd->def].dur += x.dur;
	for (i = 0; i < WS_NR; i++)
		p->psums[pd->def].ns[i] += x.ns[i];
	if ((slot = ana_topn_slot(&p->slow, x.dur, &evict))) {
		*slot = x;
		ana_topn_push(&p->slow, evict);
	}
}

static void on_period_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct why *p = a->priv;

	if (strobe_periods_feed(p->eng, ev) < 0)
		p->pfailed = true;
}

static ana_handler subscribe(struct ana *a, const struct strobe_format *e, int *cookie)
{
	struct why *p = a->priv;

	return p->eng && strobe_periods_may_match(p->eng, e) ? on_period_event : NULL;
}

static int check(struct ana *a, struct strobe_formats *fmts, struct strobe_error *err)
{
	struct why *p = a->priv;

	if (!p->eng)
		return 0;
	return strobe_periods_check(p->eng, fmts, a->core->live ? STROBE_EXPR_CHECK_LIVE : 0,
				    ana_check_warn, a->core, err);
}

/* The per-request tables: per definition, and the slowest --top. */
static int period_tables(struct ana *a)
{
	struct why *p = a->priv;
	struct ana_core *c = a->core;
	struct pwhy *v;
	int i, k, n = p->slow.n;

	if (p->pfailed)
		ana_note(c, "why: a period expression failed on some events (see strobe-periods(1))");
	for (i = 0; i < p->nr_defs; i++) {
		union strobe_value *r;

		if (!p->psums[i].count)
			continue;
		if (!(r = tbl_row(p->ptable)))
			return -ENOMEM;
		r[0].s = tbl_str(p->ptable, strobe_periods_def_path(p->eng, i));
		r[1].i = (int64_t)p->psums[i].count;
		r[2].u = p->psums[i].dur;
		r[3].u = p->psums[i].ns[WS_RUN];
		r[4].u = p->psums[i].ns[WS_RUNQ];
		r[5].u = p->psums[i].ns[WS_BLOCK_D];
		r[6].u = p->psums[i].ns[WS_BLOCK_S];
		r[7].u = p->psums[i].ns[WS_UNKNOWN];
	}
	if (!(v = malloc(((size_t)n + 1) * sizeof(*v))))
		return -ENOMEM;
	memcpy(v, p->slow.v, (size_t)n * sizeof(*v));
	for (i = 0; i < n; i++)	/* slowest first */
		for (k = i + 1; k < n; k++)
			if (v[k].dur > v[i].dur) {
				struct pwhy tmp = v[i];

				v[i] = v[k];
				v[k] = tmp;
			}
	for (i = 0; i < n; i++) {
		union strobe_value *r = tbl_row(p->pslow);
		char cause[160];
		int j;

		if (!r) {
			free(v);
			return -ENOMEM;
		}
		r[0].s = tbl_str(p->pslow, strobe_periods_def_path(p->eng, v[i].def));
		r[1].u = v[i].begin;
		r[2].u = v[i].dur;
		j = 3 + ana_owner_vals(c, p->pslow, r + 3, &v[i].o);
		r[j].u = v[i].ns[WS_RUN];
		r[j + 1].u = v[i].ns[WS_RUNQ];
		r[j + 2].u = v[i].ns[WS_BLOCK_D] + v[i].ns[WS_BLOCK_S];
		r[j + 3].u = v[i].ns[WS_UNKNOWN];
		if (v[i].top_ns)
			who_phrase(a, &v[i].top, cause, sizeof(cause));
		else
			cause[0] = '\0';
		r[j + 4].s = tbl_str(p->pslow, cause);
		r[j + 5].d = pct(v[i].top_ns, v[i].dur);
	}
	free(v);
	return 0;
}

static const struct ana_sub subs[] = {
	ANA_SYSCALL_SUBS(on_event),
	{ "sched", "sched_switch", on_event, EV_SWITCH },
	{ "sched", "sched_waking", on_event, EV_WAKING },
	{ "sched", "sched_wakeup", on_event, EV_WAKEUP },
	{ "sched", "sched_wakeup_new", on_event, EV_WAKEUP_NEW },
	{ "irq", "irq_handler_entry", on_event, EV_IRQ_IN },
	{ "irq", "irq_handler_exit", on_event, EV_IRQ_OUT },
	{ "irq", "softirq_entry", on_event, EV_SIRQ_IN },
	{ "irq", "softirq_exit", on_event, EV_SIRQ_OUT },
	{ "timer", "hrtimer_expire_entry", on_event, EV_TIMER_IN },
	{ "timer", "hrtimer_expire_exit", on_event, EV_TIMER_OUT },
	{ "timer", "timer_expire_entry", on_event, EV_TIMER_IN },
	{ "timer", "timer_expire_exit", on_event, EV_TIMER_OUT },
	{ "block", "block_rq_issue", on_event, EV_BLK_ISSUE },
	{ "block", "block_rq_complete", on_event, EV_BLK_DONE },
	{ "ftrace", "kernel_stack", on_event, EV_KSTACK },
	{ NULL, NULL, NULL, 0 }
};

/* ---- tables ---------------------------------------------------------------- */

/* The columns of a who (kind, pid, comm, container, what), or with via
 * those of a path's first hop (keys via_kind, ...; the table's own keys
 * and titles are kept by pointer, so they are static here). */
static int who_cols(struct strobe_table *t, bool via)
{
	static const char *const keys[2][5] = {
		{ "kind", "pid", "comm", "container", "what" },
		{ "via_kind", "via_pid", "via_comm", "via_container", "via_what" },
	};
	static const char *const titles[2][5] = {
		{ "Kind", "PID", "Comm", "Container", "What" },
		{ "Via", "PID", "Comm", "Container", "What" },
	};
	static const enum strobe_col_type types[5] = {
		STROBE_COL_STR, STROBE_COL_INT, STROBE_COL_STR, STROBE_COL_STR, STROBE_COL_STR,
	};
	int i, ret = 0;

	for (i = 0; i < 5; i++)
		ret |= tbl_col(t, keys[via][i], titles[via][i], types[i]);
	return ret;
}

static const char *dev_name(char *buf, size_t size, int dev)
{
	snprintf(buf, size, "%d:%d", (unsigned)dev >> 20, dev & 0xfffff);
	return buf;
}

/* "what" of a who: a device, an irq, a vector, an unknown's reason. */
static const char *who_what(const struct who *w, char *buf, size_t size)
{
	switch (w->kind) {
	case K_DISK:
		return dev_name(buf, size, w->id);
	case K_IRQ:
		if (w->comm[0])
			snprintf(buf, size, "irq %d (%s)", w->id, w->comm);
		else if (w->id >= 0)
			snprintf(buf, size, "irq %d", w->id);
		else
			snprintf(buf, size, "hard irq");
		return buf;
	case K_SOFTIRQ:
		snprintf(buf, size, "%s", w->comm[0] ? w->comm : "softirq");
		return buf;
	case K_UNKNOWN:
		return w->id > 0 && w->id < U_NR ? unknown_why[w->id] : "";
	case K_TIMER:
		return "a timer or sleep";
	case K_NET:
		return "the network (softirq)";
	default:
		return "";
	}
}

static bool is_task(int kind)
{
	return kind == K_TASK || kind == K_LOCK || kind == K_RUN || kind == K_RUNQ;
}

static int who_vals(struct ana *a, struct strobe_table *t, union strobe_value *v,
		    const struct who *w)
{
	char buf[64];

	v[0].s = tbl_str(t, kind_names[w->kind]);
	v[1].i = is_task(w->kind) ? w->id : STROBE_VALUE_NONE_I;
	v[2].s = tbl_str(t, is_task(w->kind) ? w->comm : "");
	v[3].s = tbl_str(t, is_task(w->kind) && w->container >= 0
			      ? ana_container_name(a->core, w->container) : "");
	v[4].s = tbl_str(t, who_what(w, buf, sizeof(buf)));
	return v[0].s && v[2].s && v[3].s && v[4].s ? 5 : -1;
}

static int init(struct ana *a)
{
	struct why *p = a->priv;
	struct ana_core *c = a->core;
	int ret = 0;

	ana_map_init(&p->tasks, sizeof(struct wtask));
	ana_map_init(&p->issued, sizeof(uint64_t));
	ana_map_init(&p->hops, sizeof(struct hop));
	ana_map_init(&p->runners, sizeof(struct runner));
	ana_map_init(&p->threads, sizeof(struct thread_sum));
	ana_map_init(&p->stacks, sizeof(struct stack_sum));
	p->futex_nr = strobe_syscall_nr("futex");
	p->sleep_nr[0] = strobe_syscall_nr("nanosleep");
	p->sleep_nr[1] = strobe_syscall_nr("clock_nanosleep");
	p->answer = ana_add_table(a, "why.answer", "Why", STROBE_VIEW_TOP);
	p->summary = ana_add_table(a, "why.summary", "Wall time of the selected tasks",
				   STROBE_VIEW_TOP);
	p->waits = ana_add_table(a, "why.waits", "Blocked time, by what ended the block",
				 STROBE_VIEW_TOP);
	p->path = ana_add_table(a, "why.path",
				"Blocked time, by where its critical path ends", STROBE_VIEW_TOP);
	p->runq = ana_add_table(a, "why.runq", "Who ran while they waited for a CPU",
				STROBE_VIEW_TOP);
	if (!p->answer || !p->summary || !p->waits || !p->path || !p->runq)
		return -ENOMEM;
	ret |= tbl_col(p->answer, "rank", "#", STROBE_COL_INT);
	ret |= tbl_col(p->answer, "pct", "Share%", STROBE_COL_PERCENT);
	ret |= tbl_col(p->answer, "answer", "Answer", STROBE_COL_STR);
	ret |= tbl_col(p->summary, "state", "State", STROBE_COL_STR);
	ret |= tbl_col(p->summary, "time", "Time(us)", STROBE_COL_DURATION);
	ret |= tbl_col(p->summary, "pct", "Share%", STROBE_COL_PERCENT);
	ret |= who_cols(p->waits, false);
	ret |= tbl_col(p->waits, "time", "Time(us)", STROBE_COL_DURATION);
	ret |= tbl_col(p->waits, "pct", "Blocked%", STROBE_COL_PERCENT);
	ret |= tbl_col(p->waits, "count", "Blocks", STROBE_COL_INT);
	ret |= tbl_col(p->waits, "latency", "Req lat(us)", STROBE_COL_DURATION);
	ret |= who_cols(p->path, true);
	ret |= who_cols(p->path, false);
	ret |= tbl_col(p->path, "time", "Time(us)", STROBE_COL_DURATION);
	ret |= tbl_col(p->path, "pct", "Blocked%", STROBE_COL_PERCENT);
	ret |= who_cols(p->runq, false);
	ret |= tbl_col(p->runq, "time", "Time(us)", STROBE_COL_DURATION);
	ret |= tbl_col(p->runq, "pct", "Waiting%", STROBE_COL_PERCENT);
	if (c->opts.nr_periods) {
		struct strobe_error err = { 0 };
		int i, r;

		if (strobe_periods_new(on_period, a, &p->eng) < 0)
			return -ENOMEM;
		for (i = 0; i < c->opts.nr_periods; i++)
			if ((r = strobe_periods_define(p->eng, c->opts.periods[i], &err)) < 0) {
				ana_note(c, "--period: %s", err.msg);
				return r;
			}
		for (i = 0; i < c->opts.nr_period_captures; i++)
			if ((r = strobe_periods_capture(p->eng, c->opts.period_captures[i],
							&err)) < 0) {
				ana_note(c, "--period-captures: %s", err.msg);
				return r;
			}
		p->nr_defs = strobe_periods_nr_defs(p->eng);
		p->psums = calloc((size_t)p->nr_defs + 1, sizeof(*p->psums));
		if (!p->psums || ana_topn_init(&p->slow, c->opts.top > 0 ? c->opts.top : 100,
					       sizeof(struct pwhy), offsetof(struct pwhy, dur)) < 0)
			return -ENOMEM;
		p->ptable = ana_add_table(a, "why.periods", "Per request: the owner's time",
					  STROBE_VIEW_TOP);
		p->pslow = ana_add_table(a, "why.slowest", "The slowest requests, and why",
					 STROBE_VIEW_TOP);
		if (!p->ptable || !p->pslow)
			return -ENOMEM;
		ret |= tbl_col(p->ptable, "period", "Period", STROBE_COL_STR);
		ret |= tbl_col(p->ptable, "count", "Count", STROBE_COL_INT);
		ret |= tbl_col(p->ptable, "total", "Total(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->ptable, "running", "Running(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->ptable, "runq", "CPU wait(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->ptable, "blocked_d", "Blocked D(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->ptable, "blocked_s", "Blocked S(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->ptable, "unknown", "Unknown(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->pslow, "period", "Period", STROBE_COL_STR);
		ret |= tbl_col(p->pslow, "begin", "Begin", STROBE_COL_TIMESTAMP);
		ret |= tbl_col(p->pslow, "duration", "Duration(us)", STROBE_COL_DURATION);
		ret |= ana_task_cols(p->pslow);
		ret |= tbl_col(p->pslow, "running", "Running(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->pslow, "runq", "CPU wait(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->pslow, "blocked", "Blocked(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->pslow, "unknown", "Unknown(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->pslow, "cause", "Mostly waiting on", STROBE_COL_STR);
		ret |= tbl_col(p->pslow, "cause_pct", "Of it%", STROBE_COL_PERCENT);
	}
	if (ana_view(c, STROBE_VIEW_STATS)) {
		p->per_thread = ana_add_table(a, "why.threads", "Wall time per thread",
					      STROBE_VIEW_STATS);
		if (!p->per_thread)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->per_thread);
		ret |= tbl_col(p->per_thread, "running", "Running(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->per_thread, "runq", "CPU wait(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->per_thread, "blocked_d", "Blocked D(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->per_thread, "blocked_s", "Blocked S(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->per_thread, "unknown", "Unknown(us)", STROBE_COL_DURATION);
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct why *p = a->priv;
	const struct strobe_format *sw = strobe_formats_find(fmts, "sched", "sched_switch");
	const struct strobe_format *wk = strobe_formats_find(fmts, "sched", "sched_waking");
	const struct strobe_format *wu = strobe_formats_find(fmts, "sched", "sched_wakeup");
	const struct strobe_format *e;

	if (!wu)
		wu = strobe_formats_find(fmts, "sched", "sched_wakeup_new");
	if (!sw || strobe_field_resolve(sw, "prev_pid", &p->prev_pid) ||
	    strobe_field_resolve(sw, "next_pid", &p->next_pid) ||
	    strobe_field_resolve(sw, "prev_state", &p->prev_state))
		return -ENOENT;
	p->have_waking = wk && !strobe_field_resolve(wk, "pid", &p->wk_pid);
	if (p->have_waking)
		strobe_field_resolve(wk, "common_flags", &p->wk_flags);
	if (wu && !strobe_field_resolve(wu, "pid", &p->wu_pid))
		strobe_field_resolve(wu, "common_flags", &p->wu_flags);
	else if (!p->have_waking)
		return -ENOENT;
	p->have_sys = ana_sysdec_resolve(&p->sys, fmts) == 0;
	if ((e = strobe_formats_find(fmts, "irq", "irq_handler_entry"))) {
		p->have_irq = !strobe_field_resolve(e, "irq", &p->irq_nr);
		strobe_field_resolve(e, "name", &p->irq_name);
	}
	if ((e = strobe_formats_find(fmts, "irq", "softirq_entry")))
		strobe_field_resolve(e, "vec", &p->sirq_vec);
	if ((e = strobe_formats_find(fmts, "block", "block_rq_complete")) &&
	    !strobe_field_resolve(e, "dev", &p->blk_dev) &&
	    !strobe_field_resolve(e, "sector", &p->blk_sector))
		p->have_blk = true;
	if ((e = strobe_formats_find(fmts, "ftrace", "kernel_stack")) &&
	    !strobe_field_resolve(e, "caller", &p->ks_caller) &&
	    !strobe_field_resolve(e, "size", &p->ks_size)) {
		p->have_kstack = true;
		p->fmts = fmts;
		if (!p->stack_table) {
			int ret = 0;

			p->stack_table = ana_add_table(a, "why.stacks",
						       "Blocked time by kernel stack (--stacks)",
						       STROBE_VIEW_TOP);
			if (!p->stack_table)
				return -ENOMEM;
			ret |= tbl_col(p->stack_table, "whose", "Whose", STROBE_COL_STR);
			ret |= who_cols(p->stack_table, false);
			ret |= tbl_col(p->stack_table, "time", "Time(us)", STROBE_COL_DURATION);
			ret |= tbl_col(p->stack_table, "pct", "Share%", STROBE_COL_PERCENT);
			ret |= tbl_col(p->stack_table, "stack", "Kernel stack (innermost first)",
				       STROBE_COL_STR);
			if (ret)
				return -ENOMEM;
		}
	}
	if (p->eng) {
		struct strobe_expr_env env;

		if (expr_sysargs_for(fmts, &p->sysargs) < 0)
			return -ENOMEM;
		strobe_periods_set_syscall_args(p->eng, p->sysargs);
		strobe_expr_env_model(&env, a->core->model);
		strobe_periods_set_env(p->eng, &env);
	}
	return 0;
}

static uint64_t total_ns(const uint64_t *ns)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < WS_NR; i++)
		s += ns[i];
	return s;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "fuse-overlayfs (PID 1638, host)", "disk 8:0", "a timer or sleep" */
static void who_phrase(struct ana *a, const struct who *w, char *buf, size_t size)
{
	char what[64];

	if (is_task(w->kind)) {
		snprintf(buf, size, "%s (PID %d, %s)", w->comm, w->id,
			 w->container >= 0 ? ana_container_name(a->core, w->container) : "unknown");
		return;
	}
	switch (w->kind) {
	case K_DISK:
		snprintf(buf, size, "disk %s", who_what(w, what, sizeof(what)));
		return;
	case K_UNKNOWN:
		snprintf(buf, size, "unknown (%s)", who_what(w, what, sizeof(what)));
		return;
	case K_OPEN:
		snprintf(buf, size, "nothing yet (still blocked at the end)");
		return;
	default:
		snprintf(buf, size, "%s", who_what(w, what, sizeof(what)));
	}
}

/* A path's end, under first hop h: "why_work (PID 12, host) running",
 * "itself waiting for a CPU", "a timer or sleep". */
static void leaf_phrase(struct ana *a, const struct who *h, const struct who *w, char *buf,
			size_t size)
{
	char who[128];

	if (is_task(w->kind) && is_task(h->kind) && w->id == h->id)
		snprintf(who, sizeof(who), "itself");
	else
		who_phrase(a, w, who, sizeof(who));
	switch (w->kind) {
	case K_RUN:
		snprintf(buf, size, "%s running", who);
		break;
	case K_RUNQ:
		snprintf(buf, size, "%s waiting for a CPU", who);
		break;
	default:
		snprintf(buf, size, "%s", who);
	}
}

static int leaf_cmp(const void *x, const void *y)
{
	const struct leaf *l = x, *r = y;

	return l->ns != r->ns ? (l->ns > r->ns ? -1 : 1) : 0;
}

/* A kernel stack (id + 1) as text: its frames innermost first, past the
 * tracing machinery's, at most `frames` of them, " <- " between. */
static void stack_text(struct why *p, uint32_t kst, int frames, char *buf, size_t size)
{
	uint64_t addrs[WHY_FRAMES];
	int n, i, first, shown = 0;
	size_t m = 0;

	buf[0] = '\0';
	if (!kst || kst > p->kstacks.n)
		return;
	n = (int)(strobe_intern_key_len(&p->kstacks, kst - 1) / 8);
	memcpy(addrs, strobe_intern_key(&p->kstacks, kst - 1), (size_t)n * 8);
	first = strobe_kstack_skip(p->fmts, addrs, n);
	for (i = first; i < n && m < size; i++) {
		const char *fn = strobe_formats_ksym(p->fmts, addrs[i]);
		int w;

		if (shown == frames) {
			snprintf(buf + m, size - m, " <- ...");
			return;
		}
		w = fn ? snprintf(buf + m, size - m, "%s%s", shown ? " <- " : "", fn)
		       : snprintf(buf + m, size - m, "%s0x%llx", shown ? " <- " : "",
				  (unsigned long long)addrs[i]);
		if (w < 0)
			return;
		m += (size_t)w;
		shown++;
	}
}

/* why.stacks: the selected tasks' blocked time by kernel stack (the top
 * --top), then the blocking stacks of the wakers on their critical paths
 * (WHY_STACK_OWNERS wakers, WHY_STACKS_EACH stacks each, wakers in the
 * order of their largest stack); shares of the selected tasks' blocked
 * time.  The answer gets the selected tasks' top stack. */
static int stack_rows(struct ana *a, uint64_t blocked, int *rank)
{
	struct why *p = a->priv;
	struct ana_core *c = a->core;
	struct ana_rank *r = NULL;
	int owners[WHY_STACK_OWNERS], shown[WHY_STACK_OWNERS] = { 0 }, no = 0, j;
	size_t n, i, tn = 0;
	char st[1024], s[1200];

	if (ana_rank_map(&p->stacks, offsetof(struct stack_sum, ns), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct stack_sum *g = r[i].item;
		union strobe_value *v;

		if (g->w.kind == K_NONE) {
			if (tn == 0 && *rank < 7 && pct(g->ns, blocked) >= 5.0) {
				stack_text(p, g->kst, 5, st, sizeof(st));
				snprintf(s, sizeof(s), "%.0f%% of the blocked time (%.3f s) was spent "
					 "in the kernel stack %s", pct(g->ns, blocked),
					 (double)g->ns / 1e9, st);
				if (!(v = tbl_row(p->answer)))
					goto nomem;
				v[0].i = ++*rank;
				v[1].d = pct(g->ns, blocked);
				v[2].s = tbl_str(p->answer, s);
			}
			if (tn++ >= ana_top_n(c, n))
				continue;
		} else {
			for (j = 0; j < no && owners[j] != g->w.id; j++)
				;
			if (j == no) {
				if (no == WHY_STACK_OWNERS)
					continue;
				owners[no++] = g->w.id;
			}
			if (shown[j]++ >= WHY_STACKS_EACH)
				continue;
		}
		stack_text(p, g->kst, WHY_FRAMES, st, sizeof(st));
		if (!(v = tbl_row(p->stack_table)))
			goto nomem;
		v[0].s = tbl_str(p->stack_table, g->w.kind == K_NONE ? "selected" : "waker");
		if (who_vals(a, p->stack_table, v + 1, &g->w) < 0)
			goto nomem;
		v[6].u = g->ns;
		v[7].d = pct(g->ns, blocked);
		v[8].s = tbl_str(p->stack_table, st);
	}
	free(r);
	return 0;
nomem:
	free(r);
	return -ENOMEM;
}

static int finish(struct ana *a)
{
	struct why *p = a->priv;
	struct ana_core *c = a->core;
	uint64_t ns[WS_NR], blocked, open_block = 0, end = c->win_end ? c->win_end : c->last_ts;
	struct ana_rank *r = NULL;
	struct wtask *w;
	uint64_t key;
	size_t pos = 0, n, i;
	int ret = 0, rank = 0, k;
	static const char *const state_names[WS_NR] = {
		"unknown", "running", "waiting for a CPU", "blocked (S, interruptible)",
		"blocked (D, uninterruptible)",
	};

	if (c->filtered)
		ana_note_filtered(c, "why", "wakers outside the target are not in the file "
				  "(record with --preset why, which records the whole machine)");
	if (!p->have_sys)
		ana_note(c, "why: no system calls in the trace: futex waits show as task "
			 "wake-ups, not locks");
	if (!p->have_irq)
		ana_note(c, "why: no irq events in the trace: interrupts, timers and disk "
			 "completions are told apart less well (--preset why records them)");
	memcpy(ns, p->ns, sizeof(ns));
	/* what is still open, up to the end, without changing anything */
	while ((w = ana_map_next(&p->tasks, &pos, &key))) {
		if (!w->since || w->since >= end || !selected(a, (int)key))
			continue;
		ns[w->state] += end - w->since;
		if (w->state == WS_BLOCK_S || w->state == WS_BLOCK_D)
			open_block += end - w->since;
	}
	blocked = ns[WS_BLOCK_S] + ns[WS_BLOCK_D];
	for (k = 1; k <= WS_NR; k++) {
		int s = k % WS_NR;	/* unknown last */
		union strobe_value *v;

		if (s == WS_UNKNOWN && !ns[s])
			continue;
		if (!(v = tbl_row(p->summary)))
			return -ENOMEM;
		v[0].s = tbl_str(p->summary, state_names[s]);
		v[1].u = ns[s];
		v[2].d = pct(ns[s], total_ns(ns));
	}
	/* first hops, ranked */
	if (ana_rank_map(&p->hops, offsetof(struct hop, ns), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct hop *h = r[i].item;
		union strobe_value *v;
		struct leaf lv[WHY_LEAVES + 1];
		int nl = h->nl, j;

		if (i < ana_top_n(c, n)) {
			if (!(v = tbl_row(p->waits)) || who_vals(a, p->waits, v, &h->w) < 0) {
				ret = -ENOMEM;
				goto out;
			}
			v[5].u = h->ns;
			v[6].d = pct(h->ns, blocked);
			v[7].i = (int64_t)h->count;
			v[8].u = h->lat_count ? h->lat_total / h->lat_count : STROBE_VALUE_NONE_U;
		}
		memcpy(lv, h->leaves, sizeof(h->leaves));
		if (h->other) {
			memset(&lv[nl], 0, sizeof(lv[nl]));
			lv[nl].w.kind = K_OTHER;
			lv[nl++].ns = h->other;
		}
		qsort(lv, (size_t)nl, sizeof(*lv), leaf_cmp);
		for (j = 0; j < nl && i < ana_top_n(c, n); j++) {
			if (!(v = tbl_row(p->path)) || who_vals(a, p->path, v, &h->w) < 0 ||
			    who_vals(a, p->path, v + 5, &lv[j].w) < 0) {
				ret = -ENOMEM;
				goto out;
			}
			v[10].u = lv[j].ns;
			v[11].d = pct(lv[j].ns, blocked);
		}
		/* the answer: "62% of the blocked time was spent waiting on X,
		 * itself waiting on disk 8:0 40%" */
		if (rank < 5 && blocked && pct(h->ns, blocked) >= 1.0) {
			char hop[160], lf[160], s[512];
			int m;

			who_phrase(a, &h->w, hop, sizeof(hop));
			m = snprintf(s, sizeof(s), "%.0f%% of the blocked time (%.3f s) was spent "
				     "waiting on %s%s", pct(h->ns, blocked), (double)h->ns / 1e9,
				     h->w.kind == K_LOCK ? "a lock held by " : "", hop);
			for (j = 0; j < nl && j < 2 && m < (int)sizeof(s); j++) {
				if (lv[j].w.kind == h->w.kind && lv[j].w.id == h->w.id &&
				    !is_task(h->w.kind))
					continue;	/* the hop is the end */
				if (pct(lv[j].ns, h->ns) < 5.0)
					break;
				leaf_phrase(a, &h->w, &lv[j].w, lf, sizeof(lf));
				m += snprintf(s + m, sizeof(s) - (size_t)m, "%s %s %.0f%%",
					      j ? "," : "; of that time:", lf, pct(lv[j].ns, h->ns));
			}
			if (!(v = tbl_row(p->answer))) {
				ret = -ENOMEM;
				goto out;
			}
			v[0].i = ++rank;
			v[1].d = pct(h->ns, blocked);
			v[2].s = tbl_str(p->answer, s);
		}
	}
	if (p->stack_table && (ret = stack_rows(a, blocked, &rank)) < 0)
		goto out;
	if (open_block) {
		union strobe_value *v = tbl_row(p->waits);
		struct who o = { .kind = K_OPEN, .container = -1 };

		if (!v || who_vals(a, p->waits, v, &o) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		v[5].u = open_block;
		v[6].d = pct(open_block, blocked);
		v[7].i = 0;
		v[8].u = STROBE_VALUE_NONE_U;
	}
	{
		uint64_t all = total_ns(ns);
		union strobe_value *v;
		char s[256];

		if (all && pct(ns[WS_RUNQ], all) >= 1.0) {
			snprintf(s, sizeof(s), "%.0f%% of the wall time (%.3f s) was spent waiting "
				 "for a CPU (who ran instead: the why.runq table)",
				 pct(ns[WS_RUNQ], all), (double)ns[WS_RUNQ] / 1e9);
			if (!(v = tbl_row(p->answer))) {
				ret = -ENOMEM;
				goto out;
			}
			v[0].i = ++rank;
			v[1].d = pct(ns[WS_RUNQ], all);
			v[2].s = tbl_str(p->answer, s);
		}
		if (all && !rank) {
			snprintf(s, sizeof(s), "the selected tasks were running %.0f%% of the "
				 "time, blocked %.0f%%", pct(ns[WS_RUN], all), pct(blocked, all));
			if (!(v = tbl_row(p->answer))) {
				ret = -ENOMEM;
				goto out;
			}
			v[0].i = ++rank;
			v[1].d = pct(ns[WS_RUN], all);
			v[2].s = tbl_str(p->answer, s);
		}
	}
	free(r);
	r = NULL;
	if (ana_rank_map(&p->runners, offsetof(struct runner, ns), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < ana_top_n(c, n); i++) {
		struct runner *u = r[i].item;
		union strobe_value *v = tbl_row(p->runq);

		if (!v || who_vals(a, p->runq, v, &u->w) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		if (u->w.kind == K_RUN && u->w.id == 0) {
			v[0].s = tbl_str(p->runq, "idle");
			v[4].s = tbl_str(p->runq, "the CPU was idle: the task waited on another "
					 "CPU or to migrate");
		}
		v[5].u = u->ns;
		v[6].d = pct(u->ns, p->ns[WS_RUNQ]);
	}
	if (p->eng && (ret = period_tables(a)) < 0)
		goto out;
	if (p->per_thread) {
		struct thread_sum *g;

		pos = 0;
		while ((g = ana_map_next(&p->threads, &pos, NULL))) {
			union strobe_value *v = tbl_row(p->per_thread);

			if (!v) {
				ret = -ENOMEM;
				goto out;
			}
			k = ana_owner_vals(c, p->per_thread, v, &g->o);
			v[k].u = g->ns[WS_RUN];
			v[k + 1].u = g->ns[WS_RUNQ];
			v[k + 2].u = g->ns[WS_BLOCK_D];
			v[k + 3].u = g->ns[WS_BLOCK_S];
			v[k + 4].u = g->ns[WS_UNKNOWN];
		}
	}
out:
	free(r);
	return ret;
}

static void reset(struct ana *a, uint64_t ts)
{
	struct why *p = a->priv;

	memset(p->ns, 0, sizeof(p->ns));
	ana_map_clear(&p->hops);
	ana_map_clear(&p->runners);
	ana_map_clear(&p->threads);
	ana_map_clear(&p->stacks);
	if (p->psums)
		memset(p->psums, 0, (size_t)p->nr_defs * sizeof(*p->psums));
	p->slow.n = 0;
}

static void fini(struct ana *a)
{
	struct why *p = a->priv;

	ana_map_free(&p->tasks);
	free(p->known);
	ana_map_free(&p->issued);
	ana_map_free(&p->hops);
	ana_map_free(&p->runners);
	ana_map_free(&p->threads);
	ana_map_free(&p->stacks);
	strobe_intern_free(&p->kstacks);
	free(p->cpus);
	strobe_periods_free(p->eng);
	strobe_syscall_args_free(p->sysargs);
	ana_topn_free(&p->slow);
	free(p->psums);
}

const struct ana_ops ana_why_ops = {
	.name = "why",
	.summary = "where the selected tasks' time goes and whom they wait for (critical path)",
	.needs = "sched:sched_switch and sched:sched_waking or sched:sched_wakeup",
	.preset = "why",
	.priv_size = sizeof(struct why),
	.init = init,
	.subs = subs,
	.subscribe = subscribe,
	.resolve = resolve,
	.check = check,
	.lost = lost,
	.finish = finish,
	.reset = reset,
	.free = fini,
};
