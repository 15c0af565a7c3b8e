/*
 * test_analysis_core.c - the analyses on synthetic event sequences with
 * hand-computed results: syscalls (exit without entry at the start, entry
 * without exit at the end, errno split, lost events inside a call dropped
 * and counted, PID reuse), cputop (time before the first sched_switch on
 * a CPU, CPU migration, idle excluded, a run crossing --begin), schedlat (wake-up latency with
 * waker/prio/target, wakers in interrupt context, preempted-runnable
 * time, lost events), mem, irq,
 * the hash map, the writers (text, JSON, LAMI) and unknown names.
 *
 * Formats are copied from a 6.x kernel's tracefs and parsed with
 * tep_parse_event(); payloads are little-endian byte arrays; events are
 * fed with strobe_analysis_feed() (internal model) through the feeder of
 * analysis_fixture.h.
 */
#include <errno.h>

#include <traceevent/trace-seq.h>

#include "analyses/analysis-int.h"
#include "analysis_fixture.h"
#include "buf_of.h"

static const char fmt_alloc[] = "name: mm_page_alloc\nID: 704\nformat:\n" FMT_COMMON
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"order=%d\", REC->order\n";

enum { ID_WAKEUP = 707 };
static const char fmt_wakeup[] = "name: sched_wakeup\nID: 707\nformat:\n" FMT_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"pid=%d\", REC->pid\n";

static struct tep_handle *make_tep(bool with_irq_mem)
{
	static const struct fixture_fmt f[] = {
		{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" },
		{ fmt_exit, "raw_syscalls" }, { fmt_waking, "sched" }, { fmt_fork, "sched" },
		{ fmt_wakeup, "sched" },
		{ fmt_alloc, "kmem" }, { fmt_irq_entry, "irq" }, { fmt_irq_exit, "irq" },
	};

	return fixture_tep(f, with_irq_mem ? 9 : 6);
}

static void sys_enter(struct feeder *f, int tid, int cpu, uint64_t ts, int nr, int64_t missed)
{
	put64(f->d + 8, (uint64_t)nr);
	feed(f, ID_ENTER, tid, cpu, ts, missed);
}

static void sys_exit(struct feeder *f, int tid, int cpu, uint64_t ts, int nr, int64_t ret)
{
	put64(f->d + 8, (uint64_t)nr);
	put64(f->d + 16, (uint64_t)ret);
	feed(f, ID_EXIT, tid, cpu, ts, 0);
}

static void waking(struct feeder *f, int waker, int cpu, uint64_t ts, int pid, int prio,
		   int target, int64_t missed)
{
	put32(f->d + 24, (uint32_t)pid);
	put32(f->d + 28, (uint32_t)prio);
	put32(f->d + 32, (uint32_t)target);
	feed(f, ID_WAKING, waker, cpu, ts, missed);
}

static void wakeup(struct feeder *f, int waker, int cpu, uint64_t ts, int pid, int target)
{
	put32(f->d + 24, (uint32_t)pid);
	put32(f->d + 28, 120);
	put32(f->d + 32, (uint32_t)target);
	feed(f, ID_WAKEUP, waker, cpu, ts, 0);
}

/* Row of t whose string column skey equals sval (and int column ikey ==
 * ival when ikey), NULL if none. */
static const union strobe_value *find_row(const struct strobe_table *t, const char *skey,
					  const char *sval, const char *ikey, int64_t ival,
					  int nth)
{
	size_t r;
	int sc = skey ? col(t, skey) : -1, ic = ikey ? col(t, ikey) : -1;

	for (r = 0; r < strobe_table_nr_rows(t); r++) {
		const union strobe_value *v = strobe_table_row(t, r);

		if (sc >= 0 && strcmp(v[sc].s, sval))
			continue;
		if (ic >= 0 && v[ic].i != ival)
			continue;
		if (nth-- == 0)
			return v;
	}
	return NULL;
}

/* cputop's CPU time of tid in table t; 0 when it has no row. */
static uint64_t tid_cpu_time(const struct strobe_table *t, int tid)
{
	const union strobe_value *v = find_row(t, NULL, NULL, "tid", tid, 0);

	return v ? v[col(t, "cpu_time")].u : 0;
}

static struct strobe_analysis *start(struct feeder *f, const char *names,
				     const struct strobe_analysis_opts *o, bool irq_mem)
{
	struct strobe_error err = { 0 };

	memset(f, 0, sizeof(*f));
	f->tep = make_tep(irq_mem);
	if (!f->tep || strobe_analysis_new(names, o, &f->a, &err) < 0)
		return NULL;
	if (strobe_analysis_attach(f->a, fixture_fmts(f), NULL, &err) < 0) {
		fprintf(stderr, "  attach: %s\n", err.msg);
		return NULL;
	}
	return f->a;
}

static void test_syscalls_edges_errno_and_lost_events(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP | STROBE_VIEW_STATS };
	struct feeder f;
	const struct strobe_table *t, *e;
	const union strobe_value *v;

	REQUIRE(start(&f, "syscalls", &o, false));
	sys_exit(&f, 10, 0, 100, 39, 5);		/* exit without entry: ignored */
	sys_enter(&f, 10, 0, 200, 110, 0);		/* getppid: 100 ns */
	sys_exit(&f, 10, 0, 300, 110, 7);
	sys_enter(&f, 10, 0, 400, 2, 0);		/* open: ENOENT, 50 ns */
	sys_exit(&f, 10, 0, 450, 2, -ENOENT);
	sys_enter(&f, 11, 1, 500, 0, 0);		/* read on CPU 1 ... */
	sys_enter(&f, 12, 1, 600, 39, 5);		/* ... 5 events lost here */
	sys_exit(&f, 11, 1, 700, 0, 10);		/* read: dropped, counted */
	sys_enter(&f, 10, 0, 800, 110, 0);		/* never exits: not counted */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);

	t = table(f.a, "syscalls.stats");
	REQUIRE(t);
	v = find_row(t, "syscall", "getppid", NULL, 0, 0);
	REQUIRE(v);
	CHECK_EQ(v[col(t, "tid")].i, 10);
	CHECK_EQ(v[col(t, "count")].i, 1);
	CHECK_EQ(v[col(t, "total")].u, 100);
	CHECK_EQ(v[col(t, "min")].u, 100);
	CHECK_EQ(v[col(t, "max")].u, 100);
	CHECK_EQ(v[col(t, "errors")].i, 0);
	v = find_row(t, "syscall", "open", NULL, 0, 0);
	REQUIRE(v);
	CHECK_EQ(v[col(t, "count")].i, 1);
	CHECK_EQ(v[col(t, "total")].u, 50);
	CHECK_EQ(v[col(t, "errors")].i, 1);
	CHECK(find_row(t, "syscall", "read", NULL, 0, 0) == NULL);
	CHECK(find_row(t, "syscall", "getpid", NULL, 0, 0) == NULL);
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	CHECK_EQ(strobe_table_dropped(t), 1);
	e = table(f.a, "syscalls.errors");
	REQUIRE(e);
	v = find_row(e, "error", "ENOENT", NULL, 0, 0);
	REQUIRE(v);
	CHECK_STR(v[col(e, "syscall")].s, "open");
	CHECK_EQ(v[col(e, "count")].i, 1);
	CHECK(strobe_analysis_nr_notes(f.a) >= 1);
	stop(&f);
}

static void test_syscalls_pid_reuse_gives_separate_rows(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_STATS };
	struct feeder f;
	const struct strobe_table *t;
	const union strobe_value *a, *b;

	REQUIRE(start(&f, "syscalls", &o, false));
	sys_enter(&f, 7, 0, 100, 110, 0);
	sys_exit(&f, 7, 0, 150, 110, 1);		/* first thread 7: 50 ns */
	fork_ev(&f, 1, 0, 200, 7);			/* tid 7 reused */
	sys_enter(&f, 7, 1, 300, 110, 0);
	sys_exit(&f, 7, 1, 370, 110, 1);		/* second thread 7: 70 ns */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "syscalls.stats");
	REQUIRE(t);
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	a = find_row(t, "syscall", "getppid", "tid", 7, 0);
	b = find_row(t, "syscall", "getppid", "tid", 7, 1);
	REQUIRE(a && b);
	CHECK_EQ(a[col(t, "count")].i, 1);
	CHECK_EQ(b[col(t, "count")].i, 1);
	CHECK_EQ(a[col(t, "total")].u + b[col(t, "total")].u, 120);
	stop(&f);
}

static void test_cputop_first_switch_and_migration(void)
{
	struct strobe_analysis_opts o = { 0 };
	struct feeder f;
	const struct strobe_table *t, *c;
	const union strobe_value *v;

	REQUIRE(start(&f, "cputop", &o, false));
	sys_enter(&f, 5, 0, 1000, 39, 0);		/* window starts at 1000 */
	sched_switch(&f, 0, 1500, 5, 1, 6);		/* 5 ran 1000..1500 on CPU 0 */
	sched_switch(&f, 1, 2000, 0, 0, 5);		/* idle -> 5 on CPU 1: migration */
	sched_switch(&f, 0, 3000, 6, 1, 0);		/* 6 ran 1500..3000 */
	sys_enter(&f, 5, 1, 4000, 39, 0);		/* window ends; 5 runs 2000..4000 */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	v = strobe_table_row(t, 0);
	REQUIRE(v);
	CHECK_EQ(v[col(t, "tid")].i, 5);
	CHECK_EQ(v[col(t, "cpu_time")].u, 2500);
	CHECK(v[col(t, "cpu_pct")].d > 83.33 && v[col(t, "cpu_pct")].d < 83.34);
	v = strobe_table_row(t, 1);
	REQUIRE(v);
	CHECK_EQ(v[col(t, "tid")].i, 6);
	CHECK_EQ(v[col(t, "cpu_time")].u, 1500);
	c = table(f.a, "cputop.cpus");
	REQUIRE(c && strobe_table_nr_rows(c) == 2);
	CHECK_EQ(strobe_table_row(c, 0)[1].u, 2000);	/* CPU 0: 500 + 1500 */
	CHECK_EQ(strobe_table_row(c, 1)[1].u, 2000);	/* CPU 1: idle excluded */
	stop(&f);
}

static void test_cputop_lost_events_charge_nothing_unknown(void)
{
	struct strobe_analysis_opts o = { .group_by = STROBE_GROUP_CPU };
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "cputop", &o, false));
	sched_switch(&f, 0, 1000, 0, 0, 5);		/* 5 from 1000 */
	sys_enter(&f, 5, 0, 1200, 39, 0);		/* last known event before the gap */
	sys_enter(&f, 9, 0, 2000, 39, -1);		/* gap: unknown who ran */
	sched_switch(&f, 0, 2500, 9, 1, 0);		/* 9 charged from 2000 */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t && strobe_table_nr_rows(t) == 1);
	CHECK_EQ(strobe_table_row(t, 0)[0].i, 0);	/* CPU 0 */
	CHECK_EQ(strobe_table_row(t, 0)[1].u, 200 + 500);
	stop(&f);
}

/*
 * A task switched in before --begin and out inside the window is charged
 * from the window's start: the core keeps each CPU's latest switch-in
 * from before the window.  Here the switch to 5 is in a kworker's (9)
 * context and 5 itself records nothing until its switch-out, as a
 * spinner does (strobe cputop --begin once charged it nothing).  A gap
 * after the switch-in makes it no evidence.
 */
static void test_cputop_run_crossing_window_begin(void)
{
	struct strobe_analysis_opts o = { .begin = 2000, .end = 6000 };
	struct feeder f;
	const struct strobe_table *t;
	const union strobe_value *v;

	REQUIRE(start(&f, "cputop", &o, false));
	sched_switch(&f, 0, 1000, 9, 1, 5);		/* 5 in on CPU 0, before */
	sched_switch(&f, 1, 1100, 0, 0, 6);		/* 6 in on CPU 1, before */
	sys_enter(&f, 6, 1, 1500, 39, 0);		/* and an event of its own */
	sched_switch(&f, 2, 1200, 0, 0, 8);		/* 8 in on CPU 2, before */
	sys_enter(&f, 9, 2, 2500, 39, -1);		/* a gap on CPU 2 */
	sched_switch(&f, 0, 3000, 5, 1, 7);		/* 5: 2000..3000 */
	sched_switch(&f, 2, 3500, 8, 1, 0);		/* 8: unknown after the gap */
	sched_switch(&f, 1, 4000, 6, 1, 0);		/* 6: 2000..4000 */
	sched_switch(&f, 0, 5000, 7, 1, 0);		/* 7: 3000..5000 */
	sys_enter(&f, 0, 0, 6000, 39, 0);		/* the window ends */
	sys_enter(&f, 0, 0, 6500, 39, 0);		/* after it */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	v = find_row(t, NULL, NULL, "tid", 5, 0);
	REQUIRE(v);
	CHECK_EQ(v[col(t, "cpu_time")].u, 1000);
	CHECK(v[col(t, "cpu_pct")].d > 24.99 && v[col(t, "cpu_pct")].d < 25.01);
	CHECK_EQ(tid_cpu_time(t, 6), 2000);
	CHECK_EQ(tid_cpu_time(t, 7), 2000);
	CHECK_EQ(tid_cpu_time(t, 8), 0);
	stop(&f);
}

static void test_schedlat_wakeup_preempt_and_lost(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP | STROBE_VIEW_STATS };
	struct feeder f;
	const struct strobe_table *t, *s, *p;
	const union strobe_value *v;

	REQUIRE(start(&f, "schedlat", &o, false));
	waking(&f, 21, 0, 100, 20, 120, 1, 0);
	sched_switch(&f, 1, 350, 0, 0, 20);		/* 20 waited 250 */
	waking(&f, 21, 0, 400, 22, 110, 0, 0);
	sys_enter(&f, 21, 0, 450, 39, 3);		/* lost events inside */
	sched_switch(&f, 0, 500, 21, 1, 22);		/* dropped */
	sched_switch(&f, 1, 600, 20, 0, 0);		/* 20 preempted (R) */
	sched_switch(&f, 1, 900, 0, 0, 20);		/* runnable 300 */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "schedlat.top");
	REQUIRE(t && strobe_table_nr_rows(t) == 1);
	v = strobe_table_row(t, 0);
	CHECK_EQ(v[col(t, "latency")].u, 250);
	CHECK_EQ(v[col(t, "tid")].i, 20);
	CHECK_EQ(v[col(t, "waker_tid")].i, 21);
	CHECK_EQ(v[col(t, "prio")].i, 120);
	CHECK_EQ(v[col(t, "target_cpu")].i, 1);
	CHECK_EQ(v[col(t, "cpu")].i, 1);
	CHECK_EQ(strobe_table_dropped(t), 1);
	s = table(f.a, "schedlat.stats");
	REQUIRE(s && strobe_table_nr_rows(s) == 1);
	CHECK_EQ(strobe_table_row(s, 0)[col(s, "count")].i, 1);
	p = table(f.a, "schedlat.preempt");
	REQUIRE(p && strobe_table_nr_rows(p) == 1);
	CHECK_EQ(strobe_table_row(p, 0)[col(p, "total")].u, 300);
	stop(&f);
}

/*
 * Wakers in interrupt context: common_flags 0x08 (hardirq) or 0x10
 * (softirq) mean the event's task was only interrupted: the waker is
 * "irq" or "softirq" (tid -1); a hardirq nested in a softirq is "irq";
 * bottom halves disabled (0x80) is task context.
 */
static void test_schedlat_waker_in_interrupt_context(void)
{
	static const struct { uint8_t flags; int tid; const char *comm; } want[] = {
		{ 0x08, -1, "irq" }, { 0x10, -1, "softirq" }, { 0x18, -1, "irq" },
		{ 0x81, 21, NULL }, { 0x00, 0, "<idle>" },
	};
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP };
	struct feeder f;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct strobe_table *t;
		const union strobe_value *v;
		int waker = want[i].tid ? 21 : 0;

		REQUIRE(start(&f, "schedlat", &o, false));
		f.d[2] = want[i].flags;		/* common_flags */
		waking(&f, waker, 0, 100, 20, 120, 1, 0);
		sched_switch(&f, 1, 350, 0, 0, 20);
		REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
		t = table(f.a, "schedlat.top");
		REQUIRE(t && strobe_table_nr_rows(t) == 1);
		v = strobe_table_row(t, 0);
		CHECK_EQ(v[col(t, "waker_tid")].i, want[i].tid);
		if (want[i].comm)
			CHECK_STR(v[col(t, "waker_comm")].s, want[i].comm);
		else
			CHECK(strcmp(v[col(t, "waker_comm")].s, "irq") &&
			      strcmp(v[col(t, "waker_comm")].s, "softirq"));
		stop(&f);
	}
}

static void test_mem_and_irq(void)
{
	struct strobe_analysis_opts o = { 0 };
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "mem,irq", &o, true));
	put32(f.d + 16, 2);
	feed(&f, 704, 30, 0, 100, 0);			/* 4 pages */
	put32(f.d + 16, 0);
	feed(&f, 704, 30, 0, 110, 0);			/* 1 page */
	put32(f.d + 8, 19);
	feed(&f, ID_IRQ_ENTRY, 0, 1, 200, 0);		/* IRQ 19 on CPU 1 ... */
	put32(f.d + 8, 19);
	feed(&f, ID_IRQ_EXIT, 0, 1, 230, 0);		/* ... 30 ns */
	put32(f.d + 8, 19);
	feed(&f, ID_IRQ_ENTRY, 0, 1, 300, 0);
	put32(f.d + 8, 19);
	feed(&f, ID_IRQ_EXIT, 0, 1, 400, 2);		/* lost inside: dropped */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "mem.top");
	REQUIRE(t && strobe_table_nr_rows(t) == 1);
	CHECK_EQ(strobe_table_row(t, 0)[col(t, "alloc_pages")].i, 5);
	CHECK_EQ(strobe_table_row(t, 0)[col(t, "alloc_bytes")].u, 5 * 4096);
	t = table(f.a, "irq.hard");
	REQUIRE(t && strobe_table_nr_rows(t) == 1);
	CHECK_EQ(strobe_table_row(t, 0)[col(t, "irq")].i, 19);
	CHECK_EQ(strobe_table_row(t, 0)[col(t, "count")].i, 1);
	CHECK_EQ(strobe_table_row(t, 0)[col(t, "total")].u, 30);
	CHECK_EQ(strobe_table_dropped(t), 1);
	stop(&f);
}

static void test_missing_events_and_unknown_names(void)
{
	struct strobe_error err = { 0 };
	struct strobe_analysis *a = NULL;
	struct tep_handle *tep = make_tep(false);
	struct strobe_formats *fmts = tep ? strobe_formats_new(tep) : NULL;

	REQUIRE(fmts);
	CHECK_EQ(strobe_analysis_new("cputop,nope", NULL, &a, &err), -EINVAL);
	CHECK(strstr(err.msg, "nope") != NULL);
	REQUIRE(strobe_analysis_new("mem", NULL, &a, &err) == 0);
	CHECK_EQ(strobe_analysis_attach(a, fmts, NULL, &err), -ENOENT);
	CHECK(strstr(err.msg, "--preset mem") != NULL);
	strobe_analysis_free(a);
	/* one of two missing: a note, not an error */
	REQUIRE(strobe_analysis_new("cputop,irq", NULL, &a, &err) == 0);
	CHECK_EQ(strobe_analysis_attach(a, fmts, NULL, &err), 0);
	CHECK_EQ(strobe_analysis_nr_notes(a), 1);
	CHECK(strstr(strobe_analysis_note(a, 0), "--preset irq") != NULL);
	strobe_analysis_free(a);
	strobe_formats_free(fmts);
	tep_free(tep);
}

static void test_log2_histogram_slots_match_bcc(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_FREQ };
	static const uint64_t us[] = { 0, 1, 1, 2, 3, 4, 7, 8, 1000 };
	struct feeder f;
	const struct strobe_table *t;
	size_t i;

	REQUIRE(start(&f, "syscalls", &o, false));
	for (i = 0; i < sizeof(us) / sizeof(us[0]); i++) {
		uint64_t t0 = 1000 + (uint64_t)i * 2000000;

		sys_enter(&f, 10, 0, t0, 110, 0);
		sys_exit(&f, 10, 0, t0 + us[i] * 1000 + 500, 110, 0);
	}
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "syscalls.freq");
	REQUIRE(t);
	/* bcc's print_log2_hist rows: 0 -> 1, 2 -> 3, 4 -> 7, 8 -> 15, ... */
	REQUIRE(find_row(t, NULL, NULL, "lo", 0, 0) != NULL);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 0, 0)[1].i, 1);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 0, 0)[2].i, 3);
	REQUIRE(find_row(t, NULL, NULL, "lo", 2, 0) != NULL);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 2, 0)[1].i, 3);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 2, 0)[2].i, 2);
	REQUIRE(find_row(t, NULL, NULL, "lo", 4, 0) != NULL);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 4, 0)[2].i, 2);
	REQUIRE(find_row(t, NULL, NULL, "lo", 8, 0) != NULL);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 8, 0)[2].i, 1);
	REQUIRE(find_row(t, NULL, NULL, "lo", 512, 0) != NULL);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 512, 0)[1].i, 1023);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 512, 0)[2].i, 1);
	CHECK(find_row(t, NULL, NULL, "lo", 1, 0) == NULL);
	stop(&f);
}

/*
 * Some kernels record no sched_switch out of idle.  A task switched out
 * of a CPU that was idle is charged from the wake-up that put it there;
 * one with no such evidence is charged nothing.  A wake-up recorded on
 * its target CPU in the idle task's context is that evidence also before
 * the CPU's first switch; one from another CPU is not.
 */
static void test_cputop_missing_switch_in_from_idle(void)
{
	struct strobe_analysis_opts o = { 0 };
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "cputop", &o, false));
	sched_switch(&f, 1, 1000, 7, 1, 0);	/* CPU 1 idle from 1000 */
	sched_switch(&f, 0, 1000, 9, 1, 0);	/* CPU 0 idle from 1000 */
	wakeup(&f, 9, 0, 2000, 5, 1);	/* 5 woken onto CPU 1 */
	/* (idle -> 5 on CPU 1 not recorded) */
	sched_switch(&f, 1, 5000, 5, 1, 0);	/* 5 ran 2000..5000 */
	sched_switch(&f, 0, 4000, 6, 1, 0);	/* 6: no evidence, nothing */
	sched_switch(&f, 1, 6000, 0, 0, 8);
	wakeup(&f, 0, 2, 2500, 11, 2);	/* from CPU 2's idle, onto CPU 2 */
	wakeup(&f, 9, 0, 2500, 12, 3);	/* from CPU 0, onto CPU 3 */
	sched_switch(&f, 2, 4500, 11, 1, 0);	/* 11 ran 2500..4500 */
	sched_switch(&f, 3, 4500, 12, 1, 0);	/* 12: CPU 3 unknown, nothing */
	sys_enter(&f, 8, 1, 7000, 39, 0);	/* window ends */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	CHECK_EQ(tid_cpu_time(t, 5), 3000);
	CHECK_EQ(tid_cpu_time(t, 6), 0);
	CHECK_EQ(tid_cpu_time(t, 8), 1000);
	CHECK_EQ(tid_cpu_time(t, 11), 2000);
	CHECK_EQ(tid_cpu_time(t, 12), 0);
	stop(&f);
}

static void test_writers_text_json_lami_and_histogram(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP | STROBE_VIEW_FREQ };
	struct feeder f;
	struct trace_seq s;
	const struct strobe_table *t;
	int i;

	REQUIRE(start(&f, "syscalls", &o, false));
	for (i = 0; i < 10; i++) {
		sys_enter(&f, 10, 0, 1000 + (uint64_t)i * 10000, 110, 0);
		sys_exit(&f, 10, 0, 1000 + (uint64_t)i * 10000 + 3000, 110, 0);	/* 3 us */
	}
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "syscalls.freq");
	REQUIRE(t);
	CHECK_STR(strobe_table_unit(t), "usecs");
	/* bucket "2 -> 3" holds the ten 3 us calls */
	CHECK(find_row(t, NULL, NULL, "lo", 2, 0) != NULL);
	CHECK_EQ(find_row(t, NULL, NULL, "lo", 2, 0)[2].i, 10);
	trace_seq_init(&s);
	CHECK_EQ(strobe_table_write_text(t, buf_of(&s)), 0);
	trace_seq_terminate(&s);
	CHECK(strstr(s.buffer, "usecs") != NULL);
	CHECK(strstr(s.buffer, "2 -> 3") != NULL);
	CHECK(strstr(s.buffer, "|****************************************|") != NULL);
	trace_seq_reset(&s);
	CHECK_EQ(strobe_table_write_json(table(f.a, "syscalls.top"), buf_of(&s)), 0);
	trace_seq_terminate(&s);
	CHECK(strstr(s.buffer, "\"syscall\":\"getppid\",\"count\":10") != NULL);
	trace_seq_reset(&s);
	CHECK_EQ(strobe_lami_write_results(f.a, buf_of(&s)), 0);
	trace_seq_terminate(&s);
	CHECK(strstr(s.buffer, "{\"results\":[{\"time-range\":{\"class\":\"time-range\"") != NULL);
	CHECK(strstr(s.buffer, "\"inherit\":\"syscalls.freq\"") != NULL);
	trace_seq_reset(&s);
	CHECK_EQ(strobe_lami_write_metadata("syscalls", &o, buf_of(&s)), 0);
	trace_seq_terminate(&s);
	CHECK(strstr(s.buffer, "\"mi-version\":{\"major\":1,\"minor\":0}") != NULL);
	CHECK(strstr(s.buffer, "\"syscalls.freq\":{\"title\"") != NULL);
	trace_seq_destroy(&s);
	stop(&f);
}

static void test_hash_map_backward_shift(void)
{
	struct ana_map m;
	uint64_t k;
	int *v;

	ana_map_init(&m, sizeof(int));
	for (k = 0; k < 5000; k++) {
		v = ana_map_put(&m, k * 64, NULL);	/* clustered keys */
		REQUIRE(v);
		*v = (int)k;
	}
	for (k = 0; k < 5000; k += 2)
		ana_map_del(&m, k * 64);
	CHECK_EQ(m.n, 2500);
	for (k = 0; k < 5000; k++) {
		v = ana_map_get(&m, k * 64);
		if (k % 2)
			CHECK(v && *v == (int)k);
		else
			CHECK(v == NULL);
	}
	ana_map_free(&m);
}

TESTS(T(test_syscalls_edges_errno_and_lost_events),
      T(test_syscalls_pid_reuse_gives_separate_rows),
      T(test_cputop_first_switch_and_migration),
      T(test_cputop_lost_events_charge_nothing_unknown),
      T(test_cputop_missing_switch_in_from_idle),
      T(test_cputop_run_crossing_window_begin),
      T(test_schedlat_wakeup_preempt_and_lost),
      T(test_schedlat_waker_in_interrupt_context),
      T(test_mem_and_irq),
      T(test_missing_events_and_unknown_names),
      T(test_writers_text_json_lami_and_histogram),
	  T(test_log2_histogram_slots_match_bcc),
      T(test_hash_map_backward_shift));
