/*
 * test_why.c - strobe why on synthetic event sequences with hand-computed
 * breakdowns: a two-hop critical path (the target waits on B, B on C:
 * charged to C's running, not B's blocked time), an own event that ends
 * a block whose wake-up was not recorded, a waker that
 * wakes many, lost events in the middle, interrupts, timers, disk and
 * network as causes, a futex wake-up as a lock, a task exiting mid-chain,
 * and who ran while the target waited for a CPU.
 *
 * The target is tid 100 (--tid); B = 200, C = 300, another target 101,
 * a hog 400.  Times are ns.  Events go through the feeder of
 * analysis_fixture.h; common_flags (payload byte 2) mark interrupt
 * context.
 */
#include <errno.h>

#include "analyses/analysis-int.h"
#include "analysis_fixture.h"

enum { ID_HRT_IN = 710, ID_HRT_OUT = 711, ID_SIRQ_IN = 712, ID_SIRQ_OUT = 713,
       ID_BLK_ISSUE = 714, ID_BLK_DONE = 715 };

static const char fmt_hrt_in[] = "name: hrtimer_expire_entry\nID: 710\nformat:\n" FMT_COMMON
	"\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 now;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"hrtimer=%p\", REC->hrtimer\n";
static const char fmt_hrt_out[] = "name: hrtimer_expire_exit\nID: 711\nformat:\n" FMT_COMMON
	"\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"hrtimer=%p\", REC->hrtimer\n";
static const char fmt_sirq_in[] = "name: softirq_entry\nID: 712\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_sirq_out[] = "name: softirq_exit\nID: 713\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_blk_issue[] = "name: block_rq_issue\nID: 714\nformat:\n" FMT_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%d\", REC->dev\n";
static const char fmt_blk_done[] = "name: block_rq_complete\nID: 715\nformat:\n" FMT_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%d\", REC->dev\n";

#define HARDIRQ 0x08
#define SOFTIRQ 0x10
#define S 1	/* prev_state: interruptible */
#define D 2	/* uninterruptible */
#define X 0x10	/* dead */

static int tids[] = { 100, 101 };

static bool start_with(struct feeder *f, int ntids, bool causes, const char *period)
{
	static const struct fixture_fmt fm[] = {
		{ fmt_switch, "sched" }, { fmt_waking, "sched" },
		{ fmt_enter, "raw_syscalls" }, { fmt_exit, "raw_syscalls" },
		{ fmt_irq_entry, "irq" }, { fmt_irq_exit, "irq" },
		{ fmt_hrt_in, "timer" }, { fmt_hrt_out, "timer" },
		{ fmt_sirq_in, "irq" }, { fmt_sirq_out, "irq" },
		{ fmt_blk_issue, "block" }, { fmt_blk_done, "block" },
	};
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP | STROBE_VIEW_STATS,
					  .tids = tids, .nr_tids = ntids, .top = 0 };
	struct strobe_error err = { 0 };
	const char *defs[1] = { period };

	if (period) {
		o.periods = defs;
		o.nr_periods = 1;
	}

	memset(f, 0, sizeof(*f));
	f->tep = fixture_tep(fm, causes ? 12 : 2);
	if (!f->tep || strobe_analysis_new("why", &o, &f->a, &err) < 0)
		return false;
	if (strobe_analysis_attach(f->a, fixture_fmts(f), NULL, &err) < 0) {
		fprintf(stderr, "  attach: %s\n", err.msg);
		return false;
	}
	return true;
}

static bool start(struct feeder *f, int ntids, bool causes)
{
	return start_with(f, ntids, causes, NULL);
}

static void wake(struct feeder *f, int waker, int cpu, uint64_t ts, int pid, int flags)
{
	put32(f->d + 24, (uint32_t)pid);
	put32(f->d + 28, 120);
	put32(f->d + 32, (uint32_t)cpu);
	f->d[2] = (uint8_t)flags;
	feed(f, ID_WAKING, waker, cpu, ts, 0);
}

static void ev(struct feeder *f, int id, int pid, int cpu, uint64_t ts, int flags,
	       uint64_t a8, uint64_t a16)
{
	if (id == ID_BLK_ISSUE || id == ID_BLK_DONE || id == ID_SIRQ_IN || id == ID_IRQ_ENTRY)
		put32(f->d + 8, (uint32_t)a8);
	else
		put64(f->d + 8, a8);
	put64(f->d + 16, a16);
	f->d[2] = (uint8_t)flags;
	feed(f, id, pid, cpu, ts, 0);
}

/* The row of table name whose string column k1 is v1 and, when k2, whose
 * string column k2 is v2 and (ipid >= 0) int column "pid" is ipid. */
static const union strobe_value *row(struct strobe_analysis *a, const char *name,
				     const char *k1, const char *v1, const char *k2,
				     const char *v2, int ipid)
{
	const struct strobe_table *t = table(a, name);
	size_t r;

	if (!t)
		return NULL;
	for (r = 0; r < strobe_table_nr_rows(t); r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		if (strcmp(v[col(t, k1)].s, v1))
			continue;
		if (k2 && strcmp(v[col(t, k2)].s, v2))
			continue;
		if (ipid >= 0 && v[col(t, "pid")].i != ipid)
			continue;
		return v;
	}
	return NULL;
}

static uint64_t cell_u(struct strobe_analysis *a, const char *name, const union strobe_value *v,
		       const char *key)
{
	return v ? v[col(table(a, name), key)].u : UINT64_MAX;
}

/* Sum of column key over the rows of table name. */
static uint64_t sum(struct strobe_analysis *a, const char *name, const char *key)
{
	const struct strobe_table *t = table(a, name);
	uint64_t s = 0;
	size_t r;

	for (r = 0; t && r < strobe_table_nr_rows(t); r++)
		s += strobe_table_row(t, r)[col(t, key)].u;
	return s;
}

/*
 * T runs [1000, 2000), blocks (S); B runs [2000, 3000) and blocks; C runs
 * [2500, 6500) on CPU 1 and wakes B at 6000; B waits for CPU 0 until
 * 6200, runs, wakes T at 7000, blocks at 7100; T runs to 8000.  T's block
 * [2000, 7000): B running 800 + 1000, B waiting 200, C running 3000.
 */
static void test_two_hop_chain_is_charged_to_the_end_of_the_path(void)
{
	struct feeder f;
	const union strobe_value *v;

	REQUIRE(start(&f, 1, false));
	sched_switch(&f, 0, 1000, 0, 0, 100);
	sched_switch(&f, 0, 2000, 100, S, 200);
	sched_switch(&f, 1, 2500, 0, 0, 300);
	sched_switch(&f, 0, 3000, 200, S, 0);
	wake(&f, 300, 1, 6000, 200, 0);
	sched_switch(&f, 0, 6200, 0, 0, 200);
	sched_switch(&f, 1, 6500, 300, S, 0);
	wake(&f, 200, 0, 7000, 100, 0);
	sched_switch(&f, 0, 7100, 200, S, 100);
	ev(&f, ID_ENTER, 100, 0, 8000, 0, 39, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	v = row(f.a, "why.summary", "state", "running", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.summary", v, "time"), 1900);
	v = row(f.a, "why.summary", "state", "waiting for a CPU", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.summary", v, "time"), 100);
	v = row(f.a, "why.summary", "state", "blocked (S, interruptible)", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.summary", v, "time"), 5000);
	v = row(f.a, "why.waits", "kind", "task", NULL, NULL, 200);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 5000);
	CHECK(v && v[col(table(f.a, "why.waits"), "count")].i == 1);
	v = row(f.a, "why.path", "kind", "running", "via_kind", "task", 300);
	CHECK_EQ(cell_u(f.a, "why.path", v, "time"), 3000);
	v = row(f.a, "why.path", "kind", "running", "via_kind", "task", 200);
	CHECK_EQ(cell_u(f.a, "why.path", v, "time"), 1800);
	v = row(f.a, "why.path", "kind", "waiting for a CPU", NULL, NULL, 200);
	CHECK_EQ(cell_u(f.a, "why.path", v, "time"), 200);
	CHECK_EQ(sum(f.a, "why.path", "time"), 5000);
	/* the answer names B first, then where its time went */
	v = row(f.a, "why.answer", "answer", strobe_table_row(table(f.a, "why.answer"), 0)[2].s,
		NULL, NULL, -1);
	REQUIRE(v);
	CHECK(strstr(v[2].s, "100% of the blocked time") != NULL);
	CHECK(strstr(v[2].s, "(PID 300, unknown) running 60%") != NULL);
	stop(&f);
}

/* An event of the target's own while it is blocked (here it wakes B, in
 * process context) means it runs: its switch-in and its wake-up were
 * not recorded, so the block ends there with no known waker, and the
 * later wake-up by B does not end a block (no cycle T -> B -> T). */
static void test_own_event_ends_a_block_with_no_waker(void)
{
	struct feeder f;
	const union strobe_value *v;

	REQUIRE(start(&f, 1, false));
	sched_switch(&f, 0, 500, 0, 0, 200);
	sched_switch(&f, 0, 1000, 200, S, 100);	/* B blocks, T runs */
	sched_switch(&f, 0, 1500, 100, S, 0);	/* T blocks */
	wake(&f, 100, 1, 4500, 200, 0);		/* by T: T runs again */
	sched_switch(&f, 1, 4600, 0, 0, 200);
	wake(&f, 200, 1, 5000, 100, 0);		/* T runs already */
	sched_switch(&f, 1, 5100, 200, S, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	v = row(f.a, "why.waits", "kind", "unknown", "what", "no wake-up recorded", -1);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 3000);
	CHECK_EQ(sum(f.a, "why.waits", "time"), 3000);
	CHECK(row(f.a, "why.path", "kind", "unknown", "what", "cycle", -1) == NULL);
	v = row(f.a, "why.summary", "state", "running", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.summary", v, "time"), 1100);
	stop(&f);
}

/* One waker that wakes two targets: both blocks are charged to its
 * running time, each in full. */
static void test_waker_that_wakes_many(void)
{
	struct feeder f;
	const union strobe_value *v;

	REQUIRE(start(&f, 2, false));
	sched_switch(&f, 0, 1000, 100, S, 0);
	sched_switch(&f, 1, 1000, 101, S, 200);	/* B runs from 1000 */
	wake(&f, 200, 1, 3000, 100, 0);
	wake(&f, 200, 1, 3000, 101, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	v = row(f.a, "why.waits", "kind", "task", NULL, NULL, 200);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 4000);
	CHECK(v && v[col(table(f.a, "why.waits"), "count")].i == 2);
	v = row(f.a, "why.path", "kind", "running", NULL, NULL, 200);
	CHECK_EQ(cell_u(f.a, "why.path", v, "time"), 4000);
	stop(&f);
}

/* Lost events end every known state: the block in flight is unknown (lost
 * events) from the gap, and its wake-up after the gap has no block to
 * end. */
static void test_lost_events_in_the_middle(void)
{
	struct feeder f;
	const union strobe_value *v;

	REQUIRE(start(&f, 1, false));
	sched_switch(&f, 0, 1000, 100, S, 0);
	put32(f.d + 8, 0);
	feed(&f, ID_ENTER, 300, 1, 4000, 5);	/* 5 events lost before 4000 */
	wake(&f, 300, 1, 5000, 100, 0);
	sched_switch(&f, 0, 5100, 0, 0, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	v = row(f.a, "why.waits", "kind", "unknown", "what", "lost events", -1);
	REQUIRE(v);
	v = row(f.a, "why.summary", "state", "unknown", NULL, NULL, -1);
	REQUIRE(v);
	stop(&f);
}

/* Causes: a timer (hardirq inside an hrtimer expiry), a disk (hardirq
 * right after a block completion, with its latency), the network (NET_RX
 * softirq), another interrupt (named), and a futex wake-up as a lock. */
static void test_causes_timer_disk_network_irq_lock(void)
{
	struct feeder f;
	const union strobe_value *v;
	uint8_t name[32];

	REQUIRE(start(&f, 1, true));
	sched_switch(&f, 0, 1000, 100, S, 0);
	ev(&f, ID_HRT_IN, 0, 0, 2000, HARDIRQ, 0xffff, 0);
	wake(&f, 0, 0, 2000, 100, HARDIRQ);			/* timer: 1000 */
	ev(&f, ID_HRT_OUT, 0, 0, 2000, HARDIRQ, 0xffff, 0);
	sched_switch(&f, 0, 2100, 0, 0, 100);
	sched_switch(&f, 0, 2200, 100, D, 0);
	ev(&f, ID_BLK_ISSUE, 100, 0, 2150, 0, (8u << 20) | 16, 4096);
	/* irq 11 "ahci" completes the request at 4200, wakes T */
	put32(f.d + 8, 11);
	put32(f.d + 12, (uint32_t)(4u << 16) | 40u);	/* __data_loc: 4 bytes at 40 */
	memcpy(f.d + 40, "ahci", 4);
	f.d[2] = HARDIRQ;
	feed(&f, ID_IRQ_ENTRY, 0, 0, 4190, 0);
	ev(&f, ID_BLK_DONE, 0, 0, 4200, HARDIRQ, (8u << 20) | 16, 4096);
	wake(&f, 0, 0, 4210, 100, HARDIRQ);			/* disk: 2010 */
	ev(&f, ID_IRQ_EXIT, 0, 0, 4220, HARDIRQ, 11, 0);
	sched_switch(&f, 0, 4300, 0, 0, 100);
	sched_switch(&f, 0, 4400, 100, S, 0);
	ev(&f, ID_SIRQ_IN, 0, 0, 5000, SOFTIRQ, 3, 0);
	wake(&f, 0, 0, 5400, 100, SOFTIRQ);			/* network: 1000 */
	ev(&f, ID_SIRQ_OUT, 0, 0, 5500, SOFTIRQ, 3, 0);
	sched_switch(&f, 0, 5500, 0, 0, 100);
	sched_switch(&f, 0, 5600, 100, S, 0);
	put32(f.d + 8, 11);
	put32(f.d + 12, (uint32_t)(4u << 16) | 40u);
	memcpy(f.d + 40, "ahci", 4);
	f.d[2] = HARDIRQ;
	feed(&f, ID_IRQ_ENTRY, 0, 0, 6000, 0);
	wake(&f, 0, 0, 6100, 100, HARDIRQ);			/* irq 11: 500 */
	ev(&f, ID_IRQ_EXIT, 0, 0, 6200, HARDIRQ, 11, 0);
	sched_switch(&f, 0, 6300, 0, 0, 100);
	ev(&f, ID_ENTER, 100, 0, 6400, 0, 202, 0);		/* futex */
	sched_switch(&f, 0, 6500, 100, S, 300);
	wake(&f, 300, 0, 7500, 100, 0);				/* lock: 1000 */
	sched_switch(&f, 0, 7600, 300, S, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	v = row(f.a, "why.waits", "kind", "timer", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 1000);
	v = row(f.a, "why.waits", "kind", "disk", "what", "8:16", -1);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 2010);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "latency"), 2050);
	v = row(f.a, "why.waits", "kind", "network", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 1000);
	v = row(f.a, "why.waits", "kind", "irq", "what", "irq 11 (ahci)", -1);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 500);
	v = row(f.a, "why.waits", "kind", "lock", NULL, NULL, 300);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 1000);
	v = row(f.a, "why.summary", "state", "blocked (D, uninterruptible)", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.summary", v, "time"), 2010);
	(void)name;
	stop(&f);
}

/* C wakes B and exits; B wakes T later: C's history stays on the path. */
static void test_task_exiting_mid_chain(void)
{
	struct feeder f;
	const union strobe_value *v;

	REQUIRE(start(&f, 1, false));
	sched_switch(&f, 0, 1000, 100, S, 200);
	sched_switch(&f, 0, 1500, 200, S, 0);	/* B blocks */
	sched_switch(&f, 1, 1000, 0, 0, 300);	/* C runs */
	wake(&f, 300, 1, 4000, 200, 0);
	sched_switch(&f, 1, 4100, 300, X, 0);	/* C exits */
	sched_switch(&f, 0, 4200, 0, 0, 200);
	wake(&f, 200, 0, 5000, 100, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	/* T's block [1000, 5000): B running 500 + 800, waiting 200, C 2500 */
	v = row(f.a, "why.path", "kind", "running", NULL, NULL, 300);
	CHECK_EQ(cell_u(f.a, "why.path", v, "time"), 2500);
	v = row(f.a, "why.path", "kind", "running", NULL, NULL, 200);
	CHECK_EQ(cell_u(f.a, "why.path", v, "time"), 1300);
	CHECK_EQ(sum(f.a, "why.path", "time"), 4000);
	stop(&f);
}

/* The target woken while a hog runs on its CPU: the wait is the hog's. */
static void test_who_ran_while_waiting_for_a_cpu(void)
{
	struct feeder f;
	const union strobe_value *v;

	REQUIRE(start(&f, 1, false));
	sched_switch(&f, 0, 500, 0, 0, 400);	/* the hog */
	sched_switch(&f, 1, 500, 100, S, 0);
	wake(&f, 0, 1, 1000, 100, HARDIRQ);	/* onto CPU 0, busy */
	sched_switch(&f, 0, 3000, 400, 0, 100);
	sched_switch(&f, 0, 3500, 100, S, 400);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	v = row(f.a, "why.summary", "state", "waiting for a CPU", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.summary", v, "time"), 2000);
	v = row(f.a, "why.runq", "kind", "running", NULL, NULL, 400);
	CHECK_EQ(cell_u(f.a, "why.runq", v, "time"), 2000);
	stop(&f);
}

/* Intervals: a reset drops the figures, keeps the states; a block that
 * ends in the second interval is counted there. */
static void test_intervals(void)
{
	struct feeder f;
	const union strobe_value *v;
	struct strobe_error err = { 0 };

	REQUIRE(start(&f, 1, false));
	sched_switch(&f, 0, 1000, 0, 0, 100);
	sched_switch(&f, 0, 2000, 100, S, 200);
	REQUIRE(strobe_analysis_snapshot(f.a, 3000, &err) == 0);
	v = row(f.a, "why.waits", "kind", "not woken yet", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 1000);
	REQUIRE(strobe_analysis_reset(f.a, 3000, &err) == 0);
	wake(&f, 200, 0, 4000, 100, 0);
	sched_switch(&f, 0, 4100, 200, S, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	v = row(f.a, "why.waits", "kind", "task", NULL, NULL, 200);
	CHECK_EQ(cell_u(f.a, "why.waits", v, "time"), 2000);
	v = row(f.a, "why.summary", "state", "running", NULL, NULL, -1);
	CHECK_EQ(cell_u(f.a, "why.summary", v, "time"), 0);
	stop(&f);
}

/* Per request: a getppid "request" [1000, 6000) of T that blocks on B:
 * running 500 + 1000, waiting for a CPU 500, blocked 3000, mostly on B. */
static void test_per_request(void)
{
	struct feeder f;
	const union strobe_value *v;
	const struct strobe_table *t;

	REQUIRE(start_with(&f, 1, true, "r : $evt.$name == \"syscall_entry_getppid\" : "
			   "$evt.$name == \"syscall_exit_getppid\" && $evt.tid == $begin.$evt.tid"));
	sched_switch(&f, 0, 500, 0, 0, 100);
	ev(&f, ID_ENTER, 100, 0, 1000, 0, 110, 0);
	sched_switch(&f, 0, 1500, 100, S, 200);
	wake(&f, 200, 0, 4500, 100, 0);
	sched_switch(&f, 0, 5000, 200, S, 100);
	ev(&f, ID_EXIT, 100, 0, 6000, 0, 110, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "why.slowest");
	REQUIRE(t && strobe_table_nr_rows(t) == 1);
	v = strobe_table_row(t, 0);
	CHECK_EQ(v[col(t, "duration")].u, 5000);
	CHECK_EQ(v[col(t, "running")].u, 1500);
	CHECK_EQ(v[col(t, "runq")].u, 500);
	CHECK_EQ(v[col(t, "blocked")].u, 3000);
	CHECK(strstr(v[col(t, "cause")].s, "(PID 200,") != NULL);
	CHECK(v[col(t, "cause_pct")].d > 59.9 && v[col(t, "cause_pct")].d < 60.1);
	t = table(f.a, "why.periods");
	REQUIRE(t && strobe_table_nr_rows(t) == 1);
	CHECK_EQ(strobe_table_row(t, 0)[col(t, "count")].i, 1);
	stop(&f);
}

/* --stacks recordings: the kernel stack after each switch-out */
static const char fmt_kstack[] = "name: kernel_stack\nID: 716\nformat:\n" FMT_COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";
static char kallsyms[] =
	"ffffffff81001000 T stacktrace_trigger\n"
	"ffffffff81002000 T __schedule\n"
	"ffffffff81003000 T schedule\n"
	"ffffffff81004000 T pipe_read\n"
	"ffffffff81005000 T do_nanosleep\n"
	"ffffffff81006000 T ksys_read\n"
	"ffffffff81007000 T _etext\n";

static void kstack(struct feeder *f, int pid, int cpu, uint64_t ts, const char *const *fns, int n)
{
	int i;

	put32(f->d + 8, (uint32_t)n);
	for (i = 0; i < n; i++) {
		unsigned long long a = 0;
		char needle[64];

		snprintf(needle, sizeof(needle), " T %s\n", fns[i]);
		sscanf(strstr(kallsyms, needle) - 16, "%llx", &a);
		put64(f->d + 16 + 8 * i, a + 8);
	}
	feed(f, 716, pid, cpu, ts, 0);
}

/*
 * T (100) runs [1000, 2000) and blocks in pipe_read (a stack record after
 * its switch-out, under the tracing frame); B (200) runs [2000, 3000),
 * blocks in do_nanosleep until a hard irq wakes it at 6000, runs, wakes T
 * at 6500.  T's 4500 ns blocked are in pipe_read's stack; on its path B
 * blocked 3000 ns in do_nanosleep's; a block with no stack record adds
 * nothing.
 */
static void test_blocking_kernel_stacks_of_target_and_waker(void)
{
	static const char *const a[] = { "stacktrace_trigger", "__schedule", "schedule",
					 "pipe_read", "ksys_read" };
	static const char *const b[] = { "stacktrace_trigger", "__schedule", "schedule",
					 "do_nanosleep" };
	static const struct fixture_fmt fm[] = {
		{ fmt_switch, "sched" }, { fmt_waking, "sched" },
		{ fmt_enter, "raw_syscalls" }, { fmt_exit, "raw_syscalls" },
		{ fmt_kstack, "ftrace" },
	};
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP, .tids = tids, .nr_tids = 1 };
	struct strobe_error err = { 0 };
	const struct strobe_table *t;
	const union strobe_value *v;
	struct feeder f;
	size_t r;
	int found = 0;

	memset(&f, 0, sizeof(f));
	f.tep = fixture_tep(fm, 5);
	REQUIRE(f.tep);
	tep_parse_kallsyms(f.tep, kallsyms);
	REQUIRE(strobe_analysis_new("why", &o, &f.a, &err) == 0);
	REQUIRE(strobe_analysis_attach(f.a, fixture_fmts(&f), NULL, &err) == 0);
	sched_switch(&f, 0, 1000, 0, 0, 100);
	sched_switch(&f, 0, 2000, 100, S, 200);
	kstack(&f, 100, 0, 2000, a, 5);
	sched_switch(&f, 0, 3000, 200, S, 0);
	kstack(&f, 200, 0, 3000, b, 4);
	wake(&f, 0, 0, 6000, 200, HARDIRQ);
	sched_switch(&f, 0, 6000, 0, 0, 200);
	wake(&f, 200, 0, 6500, 100, 0);
	sched_switch(&f, 0, 6600, 200, S, 100);
	sched_switch(&f, 0, 7000, 100, S, 0);	/* no stack record */
	wake(&f, 0, 0, 7500, 100, HARDIRQ);
	sched_switch(&f, 0, 7500, 0, 0, 100);
	ev(&f, ID_ENTER, 100, 0, 8000, 0, 39, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "why.stacks");
	REQUIRE(t);
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	for (r = 0; r < strobe_table_nr_rows(t); r++) {
		v = strobe_table_row(t, r);
		if (!strcmp(v[col(t, "whose")].s, "selected")) {
			CHECK_EQ(v[col(t, "time")].u, 4500);
			CHECK_STR(v[col(t, "stack")].s, "__schedule <- schedule <- pipe_read <- ksys_read");
			found |= 1;
		} else {
			CHECK_STR(v[col(t, "whose")].s, "waker");
			CHECK_EQ(v[col(t, "pid")].i, 200);
			CHECK_EQ(v[col(t, "time")].u, 3000);
			CHECK_STR(v[col(t, "stack")].s, "__schedule <- schedule <- do_nanosleep");
			found |= 2;
		}
	}
	CHECK_EQ(found, 3);
	/* the answer names the stack */
	t = table(f.a, "why.answer");
	for (r = 0, found = 0; t && r < strobe_table_nr_rows(t); r++)
		found |= strstr(strobe_table_row(t, r)[2].s,
				"in the kernel stack __schedule <- schedule <- pipe_read") != NULL;
	CHECK(found);
	stop(&f);
}

/* Without stack records in the file, no why.stacks table. */
static void test_no_stacks_table_without_stack_events(void)
{
	struct feeder f;

	REQUIRE(start(&f, 1, false));
	sched_switch(&f, 0, 1000, 0, 0, 100);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK(table(f.a, "why.stacks") == NULL);
	stop(&f);
}

TESTS(T(test_two_hop_chain_is_charged_to_the_end_of_the_path),
      T(test_blocking_kernel_stacks_of_target_and_waker),
      T(test_no_stacks_table_without_stack_events),
      T(test_per_request),
      T(test_own_event_ends_a_block_with_no_waker),
      T(test_waker_that_wakes_many),
      T(test_lost_events_in_the_middle),
      T(test_causes_timer_disk_network_irq_lock),
      T(test_task_exiting_mid_chain),
      T(test_who_ran_while_waiting_for_a_cpu),
      T(test_intervals))
