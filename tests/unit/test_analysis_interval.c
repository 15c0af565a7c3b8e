/*
 * test_analysis_interval.c - snapshot and reset (strobe_analysis_snapshot,
 * strobe_analysis_reset) for every analysis: one synthetic trace fed in
 * one run, in three intervals (a snapshot and a reset at t1 and at t2,
 * finish after), and as three runs windowed to the intervals' times
 * (opts.begin, opts.end), all with the top, stats, freq and log views.
 *
 * The trace is a small simulated machine, seeded so every run sees the
 * same events: three CPUs and ten tasks that make system calls (read,
 * accept4 and nanosleep may block until another task, or idle, wakes
 * them), get preempted, allocate and free pages, issue block requests
 * completed later, with hard IRQs and softirqs that stay in flight a
 * while, and periods (a connection from accept4 to its close, its reads
 * as children); events are lost once between t1 and t2.  t1 and t2 are
 * chosen where a measurement of every kind straddles them: a call entered
 * before exits after, a task runs across, a wake-up before is switched in
 * after, a request, a handler, a softirq and a period are in flight.
 *
 * What is checked, for every analysis:
 *  (a) the three intervals' tables add up to the one run's, row by row:
 *      counts, totals, bytes and pages sum, min and max combine (every
 *      table but the rankings of single measurements, whose rows are each
 *      in the ranking of the interval they ended in); the intervals' log
 *      rows are the one run's, and so are the measurements dropped for the
 *      lost events; each snapshot's window is its interval;
 *  (b) an interval's table holds exactly the measurements that ended in
 *      it: per group its counts and totals are those of its log rows
 *      (cputop: at least, the CPU time of running tasks being shared
 *      out), and a measurement that began and ended inside it comes in
 *      its log and no other;
 *  (c) the windowed runs log exactly the interval's measurements that
 *      began inside it (a period: its parents too) and their tables hold
 *      exactly those; a group whose measurements in the interval all
 *      began inside it has the same row in both.
 * Also: (a) for every analysis at once under every --group-by;
 * snapshots alone change nothing (a run with a snapshot every 97
 * events and no reset finishes with the one run's tables and log), a
 * snapshot taken twice at one time gives the same tables, the times of
 * snapshots and resets (0, earlier than the last event, past --end), the
 * errors, and a hand-computed cputop split.
 */
#include <errno.h>

#include "analysis_fixture.h"

enum { ID_ALLOC = 704, ID_FREE = 708, ID_RAISE = 709, ID_SOFT_ENTRY = 710,
       ID_SOFT_EXIT = 711, ID_ISSUE = 720, ID_COMPLETE = 721 };

static const char fmt_alloc[] = "name: mm_page_alloc\nID: 704\nformat:\n" FMT_COMMON
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"order=%d\", REC->order\n";
static const char fmt_free[] = "name: mm_page_free\nID: 708\nformat:\n" FMT_COMMON
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"order=%d\", REC->order\n";
#define SOFTIRQ(name, id) "name: " name "\nID: " id "\nformat:\n" FMT_COMMON \
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n" \
	"print fmt: \"vec=%u\", REC->vec\n"
static const char fmt_raise[] = SOFTIRQ("softirq_raise", "709");
static const char fmt_soft_entry[] = SOFTIRQ("softirq_entry", "710");
static const char fmt_soft_exit[] = SOFTIRQ("softirq_exit", "711");
#define BLK_COMMON FMT_COMMON \
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
static const char fmt_issue[] = "name: block_rq_issue\nID: 720\nformat:\n" BLK_COMMON
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%u %llu\", REC->bytes, REC->sector\n";
static const char fmt_complete[] = "name: block_rq_complete\nID: 721\nformat:\n" BLK_COMMON
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%llu\", REC->sector\n";
/* syscalls:sys_enter_close, for the argument name of raw close records */
static const char fmt_close[] = "name: sys_enter_close\nID: 800\nformat:\n" FMT_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";

/* x86_64 syscall numbers */
enum { NR_READ = 0, NR_WRITE = 1, NR_CLOSE = 3, NR_NANOSLEEP = 35, NR_GETPPID = 110,
       NR_ACCEPT4 = 288 };

static const char *const PERIODS[] = {
	"req : $evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0 : "
	"$evt.$name == \"syscall_entry_close\" && $evt.fd == $begin.$evt.ret && "
	"$evt.tid == $begin.$evt.tid",
	"rd(req) : $evt.$name == \"syscall_entry_read\" && "
	"$evt.tid == $parent.$begin.$evt.tid : "
	"$evt.$name == \"syscall_exit_read\" && $evt.tid == $begin.$evt.tid",
};

#define ALL "cputop,syscalls,schedlat,io,irq,mem,periods"
#define DISK ((8u << 20) | 16)

/* ---- the trace ------------------------------------------------------------ */

struct sev {
	uint64_t ts;
	int64_t missed;
	int type, pid, cpu;
	uint8_t d[64];
};

#define NR_EVENTS 4000
#define NCPU 3
#define NTASK 10
#define NRQ 6

static struct sev trace[NR_EVENTS + 64];
static size_t nr_trace;
static uint64_t now;
static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

enum tstate { T_RUNNABLE, T_RUNNING, T_SLEEPING };

static struct task {
	int tid;
	enum tstate st;
	int sys;		/* the call in flight, -1 none */
	int conn;		/* accept4's fd until its close, -1 */
	char comm[16];
} tasks[NTASK];

static struct scpu {
	int cur;		/* tid running, 0 idle */
	int irq, soft, raised;	/* in flight / pending, -1 none */
} cpus[NCPU];

static struct {
	uint64_t sector;
	bool busy;
} rqs[NRQ];
static uint64_t next_sector = 2048;

/* A new event at the next time (even nanoseconds: t1 and t2 are odd). */
static struct sev *ev_new(int type, int pid, int cpu)
{
	struct sev *e = &trace[nr_trace++];

	now += 2 * (1 + rnd(300));
	memset(e, 0, sizeof(*e));
	e->ts = now;
	e->type = type;
	e->pid = pid;
	e->cpu = cpu;
	e->d[0] = (uint8_t)type;
	e->d[1] = (uint8_t)(type >> 8);
	put32(e->d + 4, (uint32_t)pid);
	return e;
}

static struct task *task_of(int tid)
{
	return tid > 0 ? &tasks[tid - 101] : NULL;
}

static const char *comm_of(int tid)
{
	return tid > 0 ? task_of(tid)->comm : "swapper/0";
}

static void ev_switch(int cpu, int prev, long state, int next)
{
	struct sev *e = ev_new(ID_SWITCH, prev, cpu);

	snprintf((char *)e->d + 8, 16, "%s", comm_of(prev));
	put32(e->d + 24, (uint32_t)prev);
	put64(e->d + 32, (uint64_t)state);
	snprintf((char *)e->d + 40, 16, "%s", comm_of(next));
	put32(e->d + 56, (uint32_t)next);
	if (prev > 0)
		task_of(prev)->st = state ? T_SLEEPING : T_RUNNABLE;
	if (next > 0)
		task_of(next)->st = T_RUNNING;
	cpus[cpu].cur = next;
}

static void ev_sys(int tid, int cpu, bool enter, int nr, int64_t v)
{
	struct sev *e = ev_new(enter ? ID_ENTER : ID_EXIT, tid, cpu);

	put64(e->d + 8, (uint64_t)nr);
	put64(e->d + 16, (uint64_t)v);	/* args[0], or ret */
}

static void ev_waking(int waker, int cpu, int tid)
{
	struct sev *e = ev_new(ID_WAKING, waker, cpu);

	snprintf((char *)e->d + 8, 16, "%s", comm_of(tid));
	put32(e->d + 24, (uint32_t)tid);
	put32(e->d + 28, 120);
	put32(e->d + 32, (uint32_t)rnd(NCPU));
	task_of(tid)->st = T_RUNNABLE;
}

static void ev_irq(int cpu, bool entry, int irq)
{
	struct sev *e = ev_new(entry ? ID_IRQ_ENTRY : ID_IRQ_EXIT, cpus[cpu].cur, cpu);

	put32(e->d + 8, (uint32_t)irq);
	if (entry) {
		put32(e->d + 12, (8u << 16) | 48);	/* __data_loc: 8 bytes at 48 */
		snprintf((char *)e->d + 48, 8, "%s", irq == 11 ? "eth0" : "ahci");
	} else {
		put32(e->d + 12, 1);
	}
	cpus[cpu].irq = entry ? irq : -1;
}

static void ev_soft(int type, int cpu, int vec)
{
	struct sev *e = ev_new(type, cpus[cpu].cur, cpu);

	put32(e->d + 8, (uint32_t)vec);
}

static void ev_page(int type, int tid, int cpu, int order)
{
	struct sev *e = ev_new(type, tid, cpu);

	put64(e->d + 8, 0x100000 + rnd(1 << 20));
	put32(e->d + 16, (uint32_t)order);
}

static void ev_block(int type, int pid, int cpu, uint64_t sector)
{
	struct sev *e = ev_new(type, pid, cpu);

	put32(e->d + 8, DISK);
	put64(e->d + 16, sector);
	put32(e->d + 24, 8);
	if (type == ID_ISSUE)
		put32(e->d + 28, 4096);
}

/* A task in state st, chosen at random; NULL if none. */
static struct task *pick(enum tstate st)
{
	int i, k = (int)rnd(NTASK);

	for (i = 0; i < NTASK; i++) {
		struct task *t = &tasks[(k + i) % NTASK];

		if (t->st == st)
			return t;
	}
	return NULL;
}

/* What the running task t does next on cpu. */
static void task_step(struct task *t, int cpu)
{
	unsigned r = rnd(100);
	struct task *o;
	int nr, i;

	if (t->sys >= 0) {
		bool blocks = t->sys == NR_READ || t->sys == NR_ACCEPT4 ||
			      t->sys == NR_NANOSLEEP;
		int64_t ret = 0;

		if (blocks && r < 40) {		/* sleeps inside the call */
			o = pick(T_RUNNABLE);
			ev_switch(cpu, t->tid, 1, o ? o->tid : 0);
			return;
		}
		switch (t->sys) {
		case NR_READ:
			ret = rnd(8) ? (int64_t)rnd(8192) : -11;
			break;
		case NR_WRITE:
			ret = 1 + rnd(4096);
			break;
		case NR_GETPPID:
			ret = 1;
			break;
		case NR_ACCEPT4:
			ret = 10 + rnd(20);
			t->conn = (int)ret;
			break;
		case NR_CLOSE:
			t->conn = -1;
			break;
		}
		ev_sys(t->tid, cpu, false, t->sys, ret);
		t->sys = -1;
		return;
	}
	if (r < 36) {
		int64_t arg = 0;

		if (t->conn >= 0 && rnd(4) == 0) {
			nr = NR_CLOSE;
			arg = t->conn;
		} else {
			static const int pool[] = { NR_READ, NR_READ, NR_WRITE, NR_GETPPID,
						    NR_NANOSLEEP, NR_ACCEPT4 };

			nr = pool[rnd(6)];
			if (nr == NR_ACCEPT4 && t->conn >= 0)
				nr = NR_GETPPID;
			arg = nr == NR_READ ? (t->conn >= 0 ? t->conn : 0) : nr == NR_WRITE ? 1 : 0;
		}
		ev_sys(t->tid, cpu, true, nr, arg);
		t->sys = nr;
	} else if (r < 46) {
		ev_page(ID_ALLOC, t->tid, cpu, (int)rnd(3));
	} else if (r < 53) {
		ev_page(ID_FREE, t->tid, cpu, (int)rnd(2));
	} else if (r < 63) {
		if ((o = pick(T_RUNNABLE)))
			ev_switch(cpu, t->tid, 0, o->tid);	/* preempted */
	} else if (r < 82) {
		if ((o = pick(T_SLEEPING)))
			ev_waking(t->tid, cpu, o->tid);
	} else if (r < 90) {
		for (i = 0; i < NRQ && rqs[i].busy; i++)
			;
		if (i < NRQ) {
			rqs[i].busy = true;
			rqs[i].sector = next_sector;
			next_sector += 8;
			ev_block(ID_ISSUE, t->tid, cpu, rqs[i].sector);
		}
	}
}

/* The simulated machine's events, once. */
static void make_trace(void)
{
	int i, c;

	if (nr_trace)
		return;
	now = 1000000000;
	for (i = 0; i < NTASK; i++) {
		struct task *t = &tasks[i];
		struct sev *e;

		t->tid = 101 + i;
		t->sys = t->conn = -1;
		t->st = i < NCPU ? T_RUNNING : i % 2 ? T_SLEEPING : T_RUNNABLE;
		snprintf(t->comm, sizeof(t->comm), "w%d", t->tid);
		/* the model learns the comm from the fork */
		e = ev_new(ID_FORK, 1, 0);
		put32(e->d + 24, 1);
		snprintf((char *)e->d + 28, 16, "%s", t->comm);
		put32(e->d + 44, (uint32_t)t->tid);
	}
	for (c = 0; c < NCPU; c++) {
		cpus[c].cur = 101 + c;
		cpus[c].irq = cpus[c].soft = cpus[c].raised = -1;
	}
	while (nr_trace < NR_EVENTS) {
		struct scpu *cp = &cpus[c = (int)rnd(NCPU)];
		unsigned r = rnd(100);
		struct task *t;

		if (cp->irq >= 0) {		/* a handler runs a while */
			if (r < 25)
				ev_irq(c, false, cp->irq);
		} else if (cp->soft >= 0) {
			if (r < 25) {
				ev_soft(ID_SOFT_EXIT, c, cp->soft);
				cp->soft = -1;
			}
		} else if (r < 3) {
			ev_irq(c, true, rnd(2) ? 11 : 14);
		} else if (r < 6) {
			int vec = rnd(2) ? 1 : 3;

			ev_soft(ID_RAISE, c, vec);
			if (cp->raised < 0)
				cp->raised = vec;
		} else if (r < 9) {
			if (cp->raised >= 0) {
				ev_soft(ID_SOFT_ENTRY, c, cp->raised);
				cp->soft = cp->raised;
				cp->raised = -1;
			}
		} else if (r < 12) {
			int k = (int)rnd(NRQ);

			if (rqs[k].busy) {
				ev_block(ID_COMPLETE, cp->cur, c, rqs[k].sector);
				rqs[k].busy = false;
			}
		} else if (!cp->cur) {		/* idle: run or wake someone */
			if ((t = pick(T_RUNNABLE)))
				ev_switch(c, 0, 0, t->tid);
			else if ((t = pick(T_SLEEPING)))
				ev_waking(0, c, t->tid);
		} else {
			task_step(task_of(cp->cur), c);
		}
	}
	/* events lost between t1 and t2: the measurements they cut are
	 * dropped, in every interval as in one run */
	trace[NR_EVENTS * 55 / 100].missed = 7;
}

/* ---- rows: table and log rows as text, kept after their tables go ----------- */

#define MAX_COLS 24

struct row {
	int iv;				/* interval (0, 1, 2) */
	char *table, *title;
	enum strobe_view view;
	int n;
	char *col[MAX_COLS];
	char *val[MAX_COLS];		/* "" for a percentage (not compared) */
	char *text;			/* every cell but percentages */
	char *full;			/* every cell */
};

struct rows {
	struct row *r;
	size_t n, cap;
};

static void rows_add(struct rows *rs, int iv, const struct strobe_table *t,
		     const union strobe_value *v)
{
	struct row *r;
	char buf[64], text[4096] = "", full[4096] = "";
	size_t tl = 0, fl = 0;
	int c;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 256;
		rs->r = realloc(rs->r, rs->cap * sizeof(*rs->r));
	}
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->iv = iv;
	r->table = strdup(strobe_table_name(t));
	r->title = strdup(strobe_table_title(t));
	r->view = strobe_table_view(t);
	r->n = strobe_table_nr_columns(t) < MAX_COLS ? strobe_table_nr_columns(t) : MAX_COLS;
	for (c = 0; c < r->n; c++) {
		const struct strobe_column *col = strobe_table_column(t, c);
		const char *s = buf;

		switch (col->type) {
		case STROBE_COL_STR:
			s = v[c].s ? v[c].s : "";
			break;
		case STROBE_COL_INT:
			snprintf(buf, sizeof(buf), "%lld", (long long)v[c].i);
			break;
		case STROBE_COL_PERCENT:
			snprintf(buf, sizeof(buf), "%.9f", v[c].d);
			break;
		default:
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v[c].u);
			break;
		}
		r->col[c] = strdup(col->key);
		r->val[c] = strdup(col->type == STROBE_COL_PERCENT ? "" : s);
		if (col->type != STROBE_COL_PERCENT)
			tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%s=%s|", col->key, s);
		fl += (size_t)snprintf(full + fl, sizeof(full) - fl, "%s=%s|", col->key, s);
	}
	r->text = strdup(text);
	r->full = strdup(full);
}

static void rows_free(struct rows *rs)
{
	size_t i;
	int c;

	for (i = 0; i < rs->n; i++) {
		for (c = 0; c < rs->r[i].n; c++) {
			free(rs->r[i].col[c]);
			free(rs->r[i].val[c]);
		}
		free(rs->r[i].table);
		free(rs->r[i].title);
		free(rs->r[i].text);
		free(rs->r[i].full);
	}
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

/* The cell of column key, NULL if none. */
static const char *cell(const struct row *r, const char *key)
{
	int c;

	for (c = 0; c < r->n; c++)
		if (!strcmp(r->col[c], key))
			return r->val[c];
	return NULL;
}

static uint64_t cell_u(const struct row *r, const char *key)
{
	const char *s = key ? cell(r, key) : NULL;

	return s ? strtoull(s, NULL, 10) : 0;
}

/* ---- facts: the figures of rows, to add up -------------------------------------- */

struct fact {
	char *key;		/* table|title|key cells#column */
	int kind;
	uint64_t v;
};

struct facts {
	struct fact *f;
	size_t n, cap;
};

static void fact_add(struct facts *fs, const char *key, int kind, uint64_t v)
{
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 1024;
		fs->f = realloc(fs->f, fs->cap * sizeof(*fs->f));
	}
	fs->f[fs->n].key = strdup(key);
	fs->f[fs->n].kind = kind;
	fs->f[fs->n++].v = v;
}

enum { F_SUM, F_MIN, F_MAX };

static void facts_free(struct facts *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->f[i].key);
	free(fs->f);
	memset(fs, 0, sizeof(*fs));
}

/* ---- runs ------------------------------------------------------------------- */

static struct tep_handle *tep;
static struct strobe_formats *fmts;

struct run {
	struct strobe_analysis *a;
	int iv;			/* the interval being fed */
	struct rows tabs;	/* every table row of every interval */
	struct rows logs;	/* every log row, tagged with its interval */
	struct rows snaps;	/* snapshot-only runs: their snapshots' rows */
	struct facts drops;	/* per table: measurements dropped */
};

static void on_log(void *arg, const struct strobe_table *t, const union strobe_value *v)
{
	struct run *r = arg;

	rows_add(&r->logs, r->iv, t, v);
}

/* The rows of a's tables, and (drops not NULL) how many measurements
 * each analysis dropped (every table of an analysis says it). */
static void add_tables(struct rows *rs, int iv, struct strobe_analysis *a, struct facts *drops)
{
	char last[64] = "", key[64];
	int i;
	size_t k;

	for (i = 0; i < strobe_analysis_nr_tables(a); i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);
		const char *name = strobe_table_name(t);
		int len = (int)strcspn(name, ".");

		for (k = 0; k < strobe_table_nr_rows(t); k++)
			rows_add(rs, iv, t, strobe_table_row(t, k));
		snprintf(key, sizeof(key), "%.*s#dropped", len, name);
		if (drops && strcmp(key, last)) {
			fact_add(drops, key, F_SUM, strobe_table_dropped(t));
			snprintf(last, sizeof(last), "%s", key);
		}
	}
}

static bool formats(void)
{
	static const struct fixture_fmt f[] = {
		{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" },
		{ fmt_exit, "raw_syscalls" }, { fmt_waking, "sched" }, { fmt_fork, "sched" },
		{ fmt_irq_entry, "irq" }, { fmt_irq_exit, "irq" }, { fmt_alloc, "kmem" },
		{ fmt_free, "kmem" }, { fmt_raise, "irq" }, { fmt_soft_entry, "irq" },
		{ fmt_soft_exit, "irq" }, { fmt_issue, "block" }, { fmt_complete, "block" },
		{ fmt_close, "syscalls" },
	};

	if (!tep) {
		tep = fixture_tep(f, sizeof(f) / sizeof(f[0]));
		fmts = tep ? strobe_formats_new(tep) : NULL;
	}
	return fmts != NULL;
}

enum mode { ONE_RUN, INTERVALS, SNAPSHOTS };

/*
 * Feed the trace to analyses `names`: in one run (begin, end: the
 * window), in intervals cut at cuts[] (a snapshot and a reset at each),
 * or with a snapshot every 97 events and none at the cuts (its rows in
 * r->snaps, interval 0).  The tables go to r->tabs, the log rows to
 * r->logs, each tagged with its interval.  false on failure.
 */
static bool feed_trace(struct run *r, const char *names, enum strobe_group_by g,
		       uint64_t begin, uint64_t end, const uint64_t *cuts, int nr_cuts,
		       enum mode mode)
{
	struct strobe_analysis_opts o = {
		.size = sizeof(o), .group_by = g, .begin = begin, .end = end,
		.views = STROBE_VIEW_TOP | STROBE_VIEW_STATS | STROBE_VIEW_FREQ | STROBE_VIEW_LOG,
		.log = on_log, .log_arg = r, .periods = PERIODS, .nr_periods = 2,
	};
	struct strobe_error err = { 0 };
	size_t i;

	memset(r, 0, sizeof(*r));
	make_trace();
	if (!formats() || strobe_analysis_new(names, &o, &r->a, &err) < 0 ||
	    strobe_analysis_attach(r->a, fmts, NULL, &err) < 0) {
		fprintf(stderr, "  run: %s\n", err.msg);
		return false;
	}
	for (i = 0; i < nr_trace; i++) {
		const struct sev *s = &trace[i];
		struct strobe_event ev = { 0 };

		while (mode == INTERVALS && r->iv < nr_cuts && s->ts > cuts[r->iv]) {
			uint64_t b, e;

			if (strobe_analysis_snapshot(r->a, cuts[r->iv], &err) < 0) {
				fprintf(stderr, "  run: %s\n", err.msg);
				return false;
			}
			add_tables(&r->tabs, r->iv, r->a, &r->drops);
			/* the interval: from the first event or the reset before */
			strobe_analysis_window(r->a, &b, &e);
			CHECK_EQ(b, r->iv ? cuts[r->iv - 1] : trace[0].ts);
			CHECK_EQ(e, cuts[r->iv]);
			if (strobe_analysis_reset(r->a, cuts[r->iv], &err) < 0) {
				fprintf(stderr, "  run: %s\n", err.msg);
				return false;
			}
			r->iv++;
		}
		if (mode == SNAPSHOTS && i && i % 97 == 0) {
			struct rows again = { 0 };
			size_t k, before = r->snaps.n;

			/* twice at one time: the same tables */
			if (strobe_analysis_snapshot(r->a, s->ts - 1, &err) < 0)
				return false;
			add_tables(&r->snaps, 0, r->a, NULL);
			if (strobe_analysis_snapshot(r->a, s->ts - 1, &err) < 0)
				return false;
			add_tables(&again, 0, r->a, NULL);
			CHECK_EQ(again.n, r->snaps.n - before);
			for (k = 0; k < again.n && before + k < r->snaps.n; k++)
				CHECK_STR(again.r[k].full, r->snaps.r[before + k].full);
			rows_free(&again);
		}
		ev.ts = s->ts;
		ev.data = (void *)s->d;
		ev.size = sizeof(s->d);
		ev.cpu = s->cpu;
		ev.type = s->type;
		ev.pid = s->pid;
		ev.missed = s->missed;
		ev.format = strobe_formats_by_id(fmts, s->type);
		strobe_analysis_feed(r->a, &ev);
	}
	if (strobe_analysis_finish(r->a, &err) < 0)
		return false;
	add_tables(&r->tabs, r->iv, r->a, &r->drops);
	return true;
}

static void run_free(struct run *r)
{
	strobe_analysis_free(r->a);
	rows_free(&r->tabs);
	rows_free(&r->logs);
	rows_free(&r->snaps);
	facts_free(&r->drops);
}

/* ---- (a): sums -------------------------------------------------------------- */

/* Columns that add up over intervals. */
static bool is_sum(const char *k)
{
	static const char *const sums[] = {
		"count", "total", "errors", "cpu_time", "busy", "read_bytes", "write_bytes",
		"reads", "writes", "bytes", "direct_bytes", "writeback_bytes", "charged_bytes",
		"unattributed_bytes", "unknown_dirtier_bytes", "lost_events_bytes", "requests",
		"alloc_pages", "free_pages", "alloc_bytes", "free_bytes", "allocs", "frees", "switches", "faults",
		"children", "self", "parents", NULL
	};
	int i;

	for (i = 0; sums[i]; i++)
		if (!strcmp(k, sums[i]))
			return true;
	return false;
}

/* Rankings of single measurements, and periods still open at the end. */
static bool is_ranking(const char *table)
{
	return !strcmp(table, "schedlat.top") || !strcmp(table, "periods.top") ||
	       !strcmp(table, "periods.open");
}

/*
 * The facts of the rows of interval iv (-1: all), keyed by table, title
 * (histograms: which group) and key cells.  io.freq's titles name a
 * container's or a CPU's group by the task that made it ("pid 12 (sh)"),
 * which an interval may see first: left out under those groupings.
 */
static void facts_of(struct facts *fs, const struct rows *rs, int iv, enum strobe_group_by g)
{
	size_t i;
	int c;

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];
		char key[2048];
		size_t kl = 0;

		if ((iv >= 0 && r->iv != iv) || r->view == STROBE_VIEW_LOG || is_ranking(r->table))
			continue;
		if (!strcmp(r->table, "io.freq") && (g == STROBE_GROUP_CONTAINER ||
						     g == STROBE_GROUP_CPU))
			continue;
		kl += (size_t)snprintf(key, sizeof(key), "%s|%s|", r->table,
				       r->view == STROBE_VIEW_FREQ ? r->title : "");
		for (c = 0; c < r->n; c++)
			if (!is_sum(r->col[c]) && strcmp(r->col[c], "min") &&
			    strcmp(r->col[c], "max") && r->val[c][0] &&
			    strcmp(r->col[c], "avg") && strcmp(r->col[c], "stddev"))
				kl += (size_t)snprintf(key + kl, sizeof(key) - kl, "%s=%s|",
						       r->col[c], r->val[c]);
		for (c = 0; c < r->n; c++) {
			int kind = is_sum(r->col[c]) ? F_SUM : !strcmp(r->col[c], "min") ? F_MIN
				 : !strcmp(r->col[c], "max") ? F_MAX : -1;
			char k2[2200];

			if (kind < 0)
				continue;
			snprintf(k2, sizeof(k2), "%s#%s", key, r->col[c]);
			fact_add(fs, k2, kind, strtoull(r->val[c], NULL, 10));
		}
	}
}

static int fact_cmp(const void *x, const void *y)
{
	return strcmp(((const struct fact *)x)->key, ((const struct fact *)y)->key);
}

/* Sort and fold facts of equal keys (sums added, min and max kept). */
static void facts_fold(struct facts *fs)
{
	size_t i, o = 0;

	if (fs->n)
		qsort(fs->f, fs->n, sizeof(*fs->f), fact_cmp);
	for (i = 0; i < fs->n; i++) {
		struct fact *p = o ? &fs->f[o - 1] : NULL;

		if (p && !strcmp(p->key, fs->f[i].key)) {
			uint64_t v = fs->f[i].v;

			if (p->kind == F_SUM)
				p->v += v;
			else if (p->kind == F_MIN ? v < p->v : v > p->v)
				p->v = v;
			free(fs->f[i].key);
			continue;
		}
		fs->f[o++] = fs->f[i];
	}
	fs->n = o;
}

/* The facts of `whole` (folded) and of the intervals (folded together)
 * are the same: prints the first differences; the number of them. */
static int compare_facts(const char *what, struct facts *whole, struct facts *parts)
{
	size_t i = 0, j = 0;
	int bad = 0;

	facts_fold(whole);
	facts_fold(parts);
	while (i < whole->n || j < parts->n) {
		int c = i == whole->n ? 1 : j == parts->n ? -1
			: strcmp(whole->f[i].key, parts->f[j].key);

		if ((c || whole->f[i].v != parts->f[j].v) && bad++ < 5) {
			char a[32] = "none", b[32] = "none";

			if (c <= 0)
				snprintf(a, sizeof(a), "%llu", (unsigned long long)whole->f[i].v);
			if (c >= 0)
				snprintf(b, sizeof(b), "%llu", (unsigned long long)parts->f[j].v);
			fprintf(stderr, "  %s: %s: one run %s, intervals %s\n", what,
				c <= 0 ? whole->f[i].key : parts->f[j].key, a, b);
		}
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	return bad;
}

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The rows of a (interval iv, -1 any; table t, NULL any) as sorted texts. */
static char **texts(const struct rows *a, int iv, const char *t, size_t *n, bool full)
{
	char **v = calloc(a->n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < a->n; i++)
		if ((iv < 0 || a->r[i].iv == iv) && (!t || !strcmp(a->r[i].table, t)))
			v[(*n)++] = full ? a->r[i].full : a->r[i].text;
	qsort(v, *n, sizeof(*v), str_cmp);
	return v;
}

/* Same multiset of rows; the first difference printed. */
static bool same_rows(const char *what, const struct rows *a, int ia, const struct rows *b,
		      int ib, const char *t, bool full)
{
	size_t na, nb, i;
	char **x = texts(a, ia, t, &na, full), **y = texts(b, ib, t, &nb, full);
	bool ok = na == nb;

	for (i = 0; ok && i < na; i++)
		ok = !strcmp(x[i], y[i]);
	if (!ok) {
		for (i = 0; i < na && i < nb && !strcmp(x[i], y[i]); i++)
			;
		fprintf(stderr, "  %s: %zu rows against %zu; first difference:\n    %s\n    %s\n",
			what, na, nb, i < na ? x[i] : "(none)", i < nb ? y[i] : "(none)");
	}
	free(x);
	free(y);
	return ok;
}

/* ---- (b) and (c): measurements, through the log rows --------------------------- */

/* A log table and the result table that counts its rows. */
struct link {
	const char *log, *table;
	const char *fcol, *fval;	/* the log rows where fcol is fval */
	const char *keys[6];		/* the group: columns of both */
	const char *begin, *dur, *end;	/* log columns (dur and end NULL: instant) */
	const char *value;		/* log column summed into total */
	const char *count, *total;	/* table columns (count NULL: none) */
	bool exact;			/* the table is its log rows; else (cputop's
					 * time) at least their parts in the interval */
};

#define OWNER "tid", "pid", "comm", "container"
static const struct link links[] = {
	{ "cputop.log", "cputop.top", NULL, NULL, { OWNER }, "ts", "duration", NULL,
	  "duration", NULL, "cpu_time", false },
	{ "syscalls.log", "syscalls.stats", NULL, NULL, { OWNER, "syscall" }, "ts", "duration",
	  NULL, "duration", "count", "total", true },
	{ "schedlat.log", "schedlat.stats", NULL, NULL, { OWNER }, "ts", "latency", NULL,
	  "latency", "count", "total", true },
	{ "io.log", "io.latency", NULL, NULL, { OWNER, "syscall" }, "ts", "duration", NULL,
	  "duration", "count", "total", true },
	{ "io.block_log", "io.disks", NULL, NULL, { "disk" }, "ts", "latency", NULL, "latency",
	  "count", "total", true },
	{ "irq.log", "irq.hard", "type", "hard", { "name" }, "ts", "duration", NULL, "duration",
	  "count", "total", true },
	{ "irq.log", "irq.soft", "type", "soft", { "name" }, "ts", "duration", NULL, "duration",
	  "count", "total", true },
	{ "mem.log", "mem.top", "op", "alloc", { OWNER }, "ts", NULL, NULL, "pages", "allocs",
	  "alloc_pages", true },
	{ "mem.log", "mem.top", "op", "free", { OWNER }, "ts", NULL, NULL, "pages", "frees",
	  "free_pages", true },
	{ "periods.log", "periods.stats", "status", "closed", { "name" }, "begin", NULL, "end",
	  "duration", "count", "total", true },
};
#define NR_LINKS (sizeof(links) / sizeof(links[0]))

static bool of_link(const struct link *l, const struct row *r)
{
	return !strcmp(r->table, l->log) && (!l->fcol || !strcmp(cell(r, l->fcol), l->fval));
}

static void group_of(const struct link *l, const struct row *r, char *buf, size_t size)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < 6 && l->keys[k]; k++)
		n += (size_t)snprintf(buf + n, size - n, "%s|", cell(r, l->keys[k]));
}

static uint64_t begin_of(const struct link *l, const struct row *r)
{
	return cell_u(r, l->begin);
}

static uint64_t end_of(const struct link *l, const struct row *r)
{
	return l->end ? cell_u(r, l->end) : cell_u(r, l->begin) + cell_u(r, l->dur);
}

/*
 * Did the measurement of log row r (of run rs) begin at or after t?  A
 * period only when its parents did too (a child begins only inside its
 * parent: a run that missed the parent never sees it).  Parents are
 * found among rs' log rows and its periods.open rows.
 */
static bool began_after(const struct link *l, const struct rows *logs,
			const struct rows *tabs, const struct row *r, uint64_t t)
{
	const char *pid;
	size_t i;
	int depth;

	if (begin_of(l, r) < t)
		return false;
	for (depth = 0; depth < 8 && (pid = cell(r, "parent_id")) && strcmp(pid, "0"); depth++) {
		const struct row *p = NULL;

		for (i = 0; i < logs->n && !p; i++)
			if (!strcmp(logs->r[i].table, "periods.log") &&
			    !strcmp(cell(&logs->r[i], "id"), pid))
				p = &logs->r[i];
		for (i = 0; i < tabs->n && !p; i++)
			if (!strcmp(tabs->r[i].table, "periods.open") &&
			    !strcmp(cell(&tabs->r[i], "id"), pid))
				p = &tabs->r[i];
		if (!p || cell_u(p, "begin") < t)
			return false;
		r = p;
	}
	return true;
}

/* Per group: count and sum of value, of a link's log rows or its table. */
struct tally {
	char group[128];
	uint64_t count, total;
	bool straddles;		/* a log row began before the interval */
	const struct row *row;	/* the table's row */
};

struct tallies {
	struct tally t[256];
	int n;
};

static struct tally *tally_find(const struct tallies *ts, const char *g)
{
	int i;

	for (i = 0; i < ts->n; i++)
		if (!strcmp(ts->t[i].group, g))
			return (struct tally *)&ts->t[i];
	return NULL;
}

/* The tally of group g, made if new (NULL when full). */
static struct tally *tally_of(struct tallies *ts, const char *g)
{
	struct tally *t = tally_find(ts, g);

	if (t)
		return t;
	if (ts->n == 256)
		return NULL;
	memset(&ts->t[ts->n], 0, sizeof(ts->t[0]));
	snprintf(ts->t[ts->n].group, sizeof(ts->t[0].group), "%s", g);
	return &ts->t[ts->n++];
}

/* The log rows of l in interval iv of run r (only those that began at or
 * after `from` when inside), per group. */
static void tally_logs(struct tallies *ts, const struct link *l, const struct run *r, int iv,
		       bool inside, uint64_t from)
{
	size_t i;
	char g[256];

	memset(ts, 0, sizeof(*ts));
	for (i = 0; i < r->logs.n; i++) {
		const struct row *x = &r->logs.r[i];
		struct tally *t;
		bool in;

		if (x->iv != iv || !of_link(l, x))
			continue;
		in = began_after(l, &r->logs, &r->tabs, x, from);
		if (inside && !in)
			continue;
		group_of(l, x, g, sizeof(g));
		if (!(t = tally_of(ts, g)))
			continue;
		t->count++;
		t->total += cell_u(x, l->value);
		if (!l->exact && begin_of(l, x) < from)	/* shared out at the cut */
			t->total -= from - begin_of(l, x);
		t->straddles |= !in;
	}
}

static void tally_table(struct tallies *ts, const struct link *l, const struct rows *rs,
			int iv)
{
	size_t i;
	char g[256];

	memset(ts, 0, sizeof(*ts));
	for (i = 0; i < rs->n; i++) {
		const struct row *x = &rs->r[i];
		struct tally *t;

		if (x->iv != iv || strcmp(x->table, l->table))
			continue;
		group_of(l, x, g, sizeof(g));
		if (!(t = tally_of(ts, g)))
			continue;
		t->count += l->count ? cell_u(x, l->count) : 0;
		t->total += cell_u(x, l->total);
		t->row = x;
	}
}

/* Table tallies tb against log tallies lg: equal (exact), or tb at least
 * lg; groups of the table without log rows have zero counts.  The number
 * of differences. */
static int compare_tallies(const char *what, const struct link *l, const struct tallies *tb,
			   const struct tallies *lg, bool exact)
{
	int i, bad = 0;

	for (i = 0; i < lg->n; i++) {
		const struct tally *t = tally_find(tb, lg->t[i].group);
		bool ok = t && (exact ? t->count == lg->t[i].count && t->total == lg->t[i].total
				      : t->total >= lg->t[i].total);

		if (!ok && bad++ < 5)
			fprintf(stderr, "  %s %s group %s: table %llu/%llu, log rows %llu/%llu\n",
				what, l->table, lg->t[i].group,
				t ? (unsigned long long)t->count : 0ull,
				t ? (unsigned long long)t->total : 0ull,
				(unsigned long long)lg->t[i].count,
				(unsigned long long)lg->t[i].total);
	}
	for (i = 0; exact && i < tb->n; i++)
		if (!tally_find(lg, tb->t[i].group) && (tb->t[i].count || tb->t[i].total) &&
		    bad++ < 5)
			fprintf(stderr, "  %s %s group %s: in the table (%llu), no log row\n", what,
				l->table, tb->t[i].group, (unsigned long long)tb->t[i].count);
	return bad;
}

/* The link's log rows of run r (interval iv, inside: began at or after
 * from) as "group|begin|value" texts, sorted. */
static char **projected(const struct link *l, const struct run *r, int iv, bool inside,
			uint64_t from, size_t *n)
{
	char **v = calloc(r->logs.n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < r->logs.n; i++) {
		const struct row *x = &r->logs.r[i];
		char g[256], buf[400];

		if (x->iv != iv || !of_link(l, x) ||
		    (inside && !began_after(l, &r->logs, &r->tabs, x, from)))
			continue;
		group_of(l, x, g, sizeof(g));
		snprintf(buf, sizeof(buf), "%s%llu|%llu", g, (unsigned long long)begin_of(l, x),
			 (unsigned long long)cell_u(x, l->value));
		v[(*n)++] = strdup(buf);
	}
	qsort(v, *n, sizeof(*v), str_cmp);
	return v;
}

static void free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- the tests ------------------------------------------------------------------ */

/* t1 and t2: odd times between events, where a measurement of every kind
 * of link (but mem's, instant) straddles, found in the one run's logs
 * (and, for a task running across, in cputop.log).  0 when none. */
static uint64_t straddled_cut(const struct run *one, size_t from, size_t to)
{
	size_t i, k, j;

	for (i = from; i < to; i++) {
		uint64_t t = trace[i].ts + 1;
		bool all = true;

		for (k = 0; k < NR_LINKS && all; k++) {
			bool found = false;

			if (!links[k].dur && !links[k].end)
				continue;
			for (j = 0; j < one->logs.n && !found; j++) {
				const struct row *x = &one->logs.r[j];

				found = of_link(&links[k], x) && begin_of(&links[k], x) < t &&
					end_of(&links[k], x) > t;
			}
			all = found;
		}
		if (all)
			return t;
	}
	return 0;
}

static uint64_t cuts[2];

/* t1 and t2, found once in a run of every analysis. */
static bool find_cuts(void)
{
	struct run one;

	if (!cuts[0] && feed_trace(&one, ALL, STROBE_GROUP_THREAD, 0, 0, NULL, 0, ONE_RUN)) {
		cuts[0] = straddled_cut(&one, NR_EVENTS / 4, NR_EVENTS / 2);
		cuts[1] = straddled_cut(&one, NR_EVENTS * 3 / 5, NR_EVENTS * 9 / 10);
		run_free(&one);
	}
	CHECK(cuts[0] && cuts[1]);
	return cuts[0] && cuts[1];
}

/* Which interval a measurement that ended at `end` counts in. */
static int interval_of(uint64_t end)
{
	return end < cuts[0] ? 0 : end < cuts[1] ? 1 : 2;
}

/* When the measurement of a ranking's row ended. */
static uint64_t ranked_end(const struct row *x)
{
	return strcmp(x->table, "schedlat.top") ? cell_u(x, "end")
		: cell_u(x, "ts") + cell_u(x, "latency");
}

/*
 * (b) and (c) for link l in interval iv: the interval's table against its
 * log rows, the one run's measurements inside the interval in its log,
 * and the windowed run win against the measurements that began inside.
 * Returns how many groups had the same row in both.
 */
static int check_link(const struct link *l, int iv, const struct run *one,
		      const struct run *parts, const struct run *win)
{
	uint64_t from = iv ? cuts[iv - 1] : 0, to = iv < 2 ? cuts[iv] : UINT64_MAX;
	struct tallies tb, lg, wt, wl;
	char what[64], **x, **y;
	size_t nx, ny, j, m;
	int g, compared = 0;

	snprintf(what, sizeof(what), "interval %d", iv);
	/* (b) the interval's table is the measurements that ended in it */
	tally_table(&tb, l, &parts->tabs, iv);
	tally_logs(&lg, l, parts, iv, false, from);
	CHECK_EQ(compare_tallies(what, l, &tb, &lg, l->exact), 0);
	for (j = 0; j < one->logs.n; j++) {
		const struct row *r = &one->logs.r[j];
		bool found = false;

		if (!of_link(l, r) || begin_of(l, r) < from || end_of(l, r) > to)
			continue;
		for (m = 0; m < parts->logs.n && !found; m++)
			found = parts->logs.r[m].iv == iv &&
				!strcmp(parts->logs.r[m].full, r->full);
		CHECK(found);
	}
	/* (c) the windowed run: the measurements that began inside */
	x = projected(l, win, 0, false, 0, &nx);
	y = projected(l, parts, iv, true, from, &ny);
	CHECK_EQ(nx, ny);
	for (j = 0; j < nx && j < ny && !strcmp(x[j], y[j]); j++)
		;
	if (j < nx || j < ny) {
		fprintf(stderr, "  %s windowed %s: %s, interval: %s\n", what, l->log,
			j < nx ? x[j] : "(none)", j < ny ? y[j] : "(none)");
		CHECK(0);
	}
	free_strv(x, nx);
	free_strv(y, ny);
	tally_table(&wt, l, &win->tabs, 0);
	tally_logs(&wl, l, parts, iv, true, from);
	if (l->exact)
		CHECK_EQ(compare_tallies("windowed", l, &wt, &wl, true), 0);
	/* groups with nothing from before the interval: the same row */
	for (g = 0; g < tb.n; g++) {
		const struct tally *a = &tb.t[g], *lt = tally_find(&lg, a->group), *w;

		if (!lt || lt->straddles || !a->row)
			continue;
		if (!l->exact && (lt->total != a->total || !lt->count))
			continue;	/* a share of a running task's time */
		w = tally_find(&wt, a->group);
		compared++;
		if (!w || !w->row || strcmp(w->row->text, a->row->text)) {
			fprintf(stderr, "  %s %s: windowed %s\n    interval %s\n", what, l->table,
				w && w->row ? w->row->text : "(none)", a->row->text);
			CHECK(0);
		}
	}
	return compared;
}

/* (a) for analysis `name`: the sums, the dropped counts, the rankings, the
 * log rows and periods.open. */
static void check_sums(const char *name, struct run *one, struct run *parts)
{
	struct facts fw = { 0 }, fp = { 0 };
	size_t i, k;

	facts_of(&fw, &one->tabs, -1, STROBE_GROUP_THREAD);
	facts_of(&fp, &parts->tabs, -1, STROBE_GROUP_THREAD);
	CHECK(fw.n > 0);
	CHECK_EQ(compare_facts(name, &fw, &fp), 0);
	CHECK_EQ(compare_facts("dropped", &one->drops, &parts->drops), 0);
	facts_free(&fw);
	facts_free(&fp);
	CHECK(same_rows("log rows", &one->logs, -1, &parts->logs, -1, NULL, true));
	CHECK(same_rows("periods.open", &one->tabs, -1, &parts->tabs, 2, "periods.open", true));
	for (i = 0; i < parts->tabs.n; i++) {	/* a ranking ranks its interval's */
		const struct row *x = &parts->tabs.r[i];

		if (!strcmp(x->table, "schedlat.top") || !strcmp(x->table, "periods.top"))
			CHECK_EQ(interval_of(ranked_end(x)), x->iv);
	}
	for (i = 0; i < one->tabs.n; i++) {	/* and holds the one run's */
		const struct row *x = &one->tabs.r[i];
		bool found = false;
		int iv;

		if (strcmp(x->table, "schedlat.top") && strcmp(x->table, "periods.top"))
			continue;
		iv = interval_of(ranked_end(x));
		for (k = 0; k < parts->tabs.n && !found; k++)
			found = parts->tabs.r[k].iv == iv &&
				!strcmp(parts->tabs.r[k].full, x->full);
		if (!found)
			fprintf(stderr, "  %s: not in interval %d's: %s\n", x->table, iv, x->full);
		CHECK(found);
	}
}

static void check_analysis(const char *name)
{
	struct run one, parts, win[3];
	int iv, compared = 0;
	size_t k;

	REQUIRE(find_cuts());
	REQUIRE(feed_trace(&one, name, STROBE_GROUP_THREAD, 0, 0, NULL, 0, ONE_RUN));
	REQUIRE(feed_trace(&parts, name, STROBE_GROUP_THREAD, 0, 0, cuts, 2, INTERVALS));
	CHECK_EQ(parts.iv, 2);
	check_sums(name, &one, &parts);
	for (iv = 0; iv < 3; iv++) {
		REQUIRE(feed_trace(&win[iv], name, STROBE_GROUP_THREAD, iv ? cuts[iv - 1] : 0,
				   iv < 2 ? cuts[iv] : 0, NULL, 0, ONE_RUN));
		for (k = 0; k < NR_LINKS; k++)
			if (!strncmp(links[k].log, name, strlen(name)) &&
			    links[k].log[strlen(name)] == '.')
				compared += check_link(&links[k], iv, &one, &parts, &win[iv]);
	}
	CHECK(compared > 0);
	for (iv = 0; iv < 3; iv++)
		run_free(&win[iv]);
	run_free(&one);
	run_free(&parts);
}

static void test_cputop_intervals_add_up_and_match_windows(void)
{
	check_analysis("cputop");
}

static void test_syscalls_intervals_add_up_and_match_windows(void)
{
	check_analysis("syscalls");
}

static void test_schedlat_intervals_add_up_and_match_windows(void)
{
	check_analysis("schedlat");
}

static void test_io_intervals_add_up_and_match_windows(void)
{
	check_analysis("io");
}

static void test_irq_intervals_add_up_and_match_windows(void)
{
	check_analysis("irq");
}

static void test_mem_intervals_add_up_and_match_windows(void)
{
	check_analysis("mem");
}

static void test_periods_intervals_add_up_and_match_windows(void)
{
	check_analysis("periods");
}

/* Every analysis at once, grouped by process and by CPU: the sums. */
static void test_all_in_one_pass_add_up_under_every_grouping(void)
{
	static const enum strobe_group_by gs[] = { STROBE_GROUP_THREAD, STROBE_GROUP_PROCESS,
						   STROBE_GROUP_CONTAINER, STROBE_GROUP_CPU };
	static const char *const names[] = { "thread", "process", "container", "cpu" };
	uint64_t dropped;
	size_t i, k;

	for (i = 0; i < sizeof(gs) / sizeof(gs[0]); i++) {
		struct run one, parts;
		struct facts fw = { 0 }, fp = { 0 };

		REQUIRE(find_cuts());
		REQUIRE(feed_trace(&one, ALL, gs[i], 0, 0, NULL, 0, ONE_RUN));
		REQUIRE(feed_trace(&parts, ALL, gs[i], 0, 0, cuts, 2, INTERVALS));
		facts_of(&fw, &one.tabs, -1, gs[i]);
		facts_of(&fp, &parts.tabs, -1, gs[i]);
		CHECK_EQ(compare_facts(names[i], &fw, &fp), 0);
		CHECK_EQ(compare_facts("dropped", &one.drops, &parts.drops), 0);
		for (k = 0, dropped = 0; k < one.drops.n; k++)
			dropped += one.drops.f[k].v;
		CHECK(dropped > 0);	/* the events lost cut some */
		CHECK(same_rows("log rows", &one.logs, -1, &parts.logs, -1, NULL, true));
		facts_free(&fw);
		facts_free(&fp);
		run_free(&one);
		run_free(&parts);
	}
}

/* Snapshots without a reset change nothing: finish gives the one run's
 * tables and log rows, percentages included. */
static void test_snapshots_alone_change_nothing(void)
{
	struct run one, snap;

	REQUIRE(feed_trace(&one, ALL, STROBE_GROUP_THREAD, 0, 0, NULL, 0, ONE_RUN));
	REQUIRE(feed_trace(&snap, ALL, STROBE_GROUP_THREAD, 0, 0, NULL, 0, SNAPSHOTS));
	CHECK(snap.snaps.n > 1000);
	CHECK(same_rows("tables", &one.tabs, -1, &snap.tabs, -1, NULL, true));
	CHECK(same_rows("log rows", &one.logs, -1, &snap.logs, -1, NULL, true));
	run_free(&one);
	run_free(&snap);
}

static const union strobe_value *tid_row(struct strobe_analysis *a, int tid)
{
	const struct strobe_table *t = table(a, "cputop.top");
	size_t r;

	for (r = 0; t && r < strobe_table_nr_rows(t); r++)
		if (strobe_table_row(t, r)[col(t, "tid")].i == tid)
			return strobe_table_row(t, r);
	return NULL;
}

/* By hand: a task running across a snapshot and a reset is charged up to
 * it in the first interval and from it in the second; times of 0, before
 * the last event and past --end; the calls' errors. */
static void test_cputop_split_times_and_errors(void)
{
	struct strobe_analysis_opts o = { .size = sizeof(o), .end = 9000 };
	struct strobe_error err = { 0 };
	const union strobe_value *v;
	const struct strobe_table *t;
	struct feeder f = { 0 };
	uint64_t b, e;
	int c;

	f.tep = fixture_tep((const struct fixture_fmt[]){ { fmt_switch, "sched" } }, 1);
	REQUIRE(f.tep && strobe_analysis_new("cputop", &o, &f.a, &err) == 0);
	CHECK_EQ(strobe_analysis_snapshot(f.a, 0, &err), -EINVAL);
	CHECK_EQ(strobe_analysis_reset(f.a, 0, &err), -EINVAL);
	REQUIRE(strobe_analysis_attach(f.a, fixture_fmts(&f), NULL, &err) == 0);
	sched_switch(&f, 0, 1000, 5, 1, 6);
	sched_switch(&f, 1, 1200, 0, 0, 7);
	REQUIRE(strobe_analysis_snapshot(f.a, 1500, &err) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	c = col(t, "cpu_time");
	v = tid_row(f.a, 6);
	CHECK(v && v[c].u == 500);		/* 1000 .. 1500, running */
	v = tid_row(f.a, 7);
	CHECK(v && v[c].u == 300);
	strobe_analysis_window(f.a, &b, &e);
	CHECK_EQ(b, 1000);
	CHECK_EQ(e, 1500);
	REQUIRE(strobe_analysis_reset(f.a, 1500, &err) == 0);
	/* the snapshot's tables stay until the next one */
	CHECK(tid_row(f.a, 6) && tid_row(f.a, 6)[c].u == 500);
	sched_switch(&f, 0, 2000, 6, 1, 0);
	REQUIRE(strobe_analysis_snapshot(f.a, 0, &err) == 0);	/* 0: the last event */
	strobe_analysis_window(f.a, &b, &e);
	CHECK_EQ(b, 1500);
	CHECK_EQ(e, 2000);
	v = tid_row(f.a, 6);
	CHECK(v && v[c].u == 500);		/* 1500 .. 2000 */
	v = tid_row(f.a, 7);
	CHECK(v && v[c].u == 500);
	REQUIRE(strobe_analysis_snapshot(f.a, 1700, &err) == 0);	/* before it: 2000 */
	strobe_analysis_window(f.a, &b, &e);
	CHECK_EQ(e, 2000);
	REQUIRE(strobe_analysis_reset(f.a, 50000, &err) == 0);	/* past --end: 9000 */
	sched_switch(&f, 1, 9500, 7, 1, 0);			/* outside the window */
	REQUIRE(strobe_analysis_finish(f.a, &err) == 0);
	strobe_analysis_window(f.a, &b, &e);
	CHECK_EQ(b, 9000);
	CHECK_EQ(e, 9000);
	CHECK(tid_row(f.a, 7) == NULL);	/* nothing after 9000 */
	CHECK_EQ(strobe_analysis_snapshot(f.a, 0, &err), -EINVAL);
	CHECK_EQ(strobe_analysis_reset(f.a, 0, &err), -EINVAL);
	stop(&f);
}

static void test_cleanup(void)
{
	strobe_formats_free(fmts);
	tep_free(tep);
	fmts = NULL;
	tep = NULL;
}

TESTS(T(test_cputop_intervals_add_up_and_match_windows),
      T(test_syscalls_intervals_add_up_and_match_windows),
      T(test_schedlat_intervals_add_up_and_match_windows),
      T(test_io_intervals_add_up_and_match_windows),
      T(test_irq_intervals_add_up_and_match_windows),
      T(test_mem_intervals_add_up_and_match_windows),
      T(test_periods_intervals_add_up_and_match_windows),
      T(test_all_in_one_pass_add_up_under_every_grouping),
      T(test_snapshots_alone_change_nothing),
      T(test_cputop_split_times_and_errors),
      T(test_cleanup));
