/*
 * test_analysis_filtered.c - the analyses on PID-filtered recordings
 * (strobe record -- CMD, -p PID, -c NAME), on synthetic event sequences.
 *
 * Such a recording holds the traced tasks' own events plus the switches
 * and wake-ups they share with untraced tasks: an untraced task switched
 * in by a traced one and out to a traced one may have shared that time
 * with any number of unrecorded tasks.  Each test feeds a sequence that
 * misleads an analysis in exactly that way, once as a whole-system trace
 * (the wrong figure appears: the bug this guards against) and once with
 * the target set (strobe_analysis_set_target): then only traced tasks are
 * measured.  Which tasks are traced: the targets and their threads, tasks
 * forked by traced ones (a fork in the trace), with -- CMD descendants
 * through the model's ppid chain, with -c the target containers' tasks;
 * a -p process's children that existed before the recording are not.
 *
 * The model is loaded from a stored table (tasks alive at the start:
 * strobe 5 and its reader thread 6, the command 10 with a thread 11 and a
 * pre-existing child 30, an unrelated process 20, tasks 40 and 41 of
 * containers alpha and beta) and updated before each event, as a caller
 * with its own model does.
 */
#include <errno.h>

#include "analysis_fixture.h"

enum { ID_RAISE = 710, ID_SOFT_ENTRY = 711, ID_SOFT_EXIT = 712, ID_ISSUE = 720,
       ID_COMPLETE = 721 };

static const char fmt_raise[] = "name: softirq_raise\nID: 710\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_soft_entry[] = "name: softirq_entry\nID: 711\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_soft_exit[] = "name: softirq_exit\nID: 712\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_issue[] = "name: block_rq_issue\nID: 720\nformat:\n" FMT_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"sector=%llu\", REC->sector\n";
static const char fmt_complete[] = "name: block_rq_complete\nID: 721\nformat:\n" FMT_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"sector=%llu\", REC->sector\n";

#define ID64A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID64B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define TASK(tid, tgid, ppid, comm, ci) \
	"T\t" #tid "\t" #tgid "\t" #ppid "\t" comm "\t" #ci "\t\t\t0\t0\t0\t0\t\n"

static const char table_text[] =
	"strobe-model 1\n"
	"C\t2\tpodman\t" ID64A "\talpha\t\n"
	"C\t3\tpodman\t" ID64B "\tbeta\t\n"
	TASK(5, 5, 1, "strobe", 1)
	TASK(6, 5, 1, "strobe", 1)	/* strobe's reader thread */
	TASK(10, 10, 5, "work", 1)	/* the command / -p process */
	TASK(11, 10, 5, "work", 1)	/* its thread */
	TASK(30, 30, 10, "kid", 1)	/* a child it had before the recording */
	TASK(20, 20, 1, "other", 1)
	TASK(40, 40, 1, "a", 2)
	TASK(41, 41, 1, "b", 3);

static struct tep_handle *make_tep(void)
{
	static const struct fixture_fmt f[] = {
		{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" },
		{ fmt_exit, "raw_syscalls" }, { fmt_waking, "sched" }, { fmt_fork, "sched" },
		{ fmt_raise, "irq" }, { fmt_soft_entry, "irq" }, { fmt_soft_exit, "irq" },
		{ fmt_issue, "block" }, { fmt_complete, "block" },
	};

	return fixture_tep(f, sizeof(f) / sizeof(f[0]));
}

/*
 * Analyses `names` over the stored table; target NULL: a whole-system
 * trace.  false (and a message) on failure.
 */
static bool start(struct feeder *f, const char *names, enum strobe_group_by g,
		  const char *target, const char *pids, const char *conts)
{
	struct strobe_analysis_opts o = { .group_by = g,
					  .views = STROBE_VIEW_TOP | STROBE_VIEW_STATS };
	struct strobe_error err = { 0 };

	memset(f, 0, sizeof(*f));
	f->tep = make_tep();
	if (!f->tep || strobe_model_new(&f->m, &err) < 0 ||
	    strobe_model_table_load(f->m, table_text, sizeof(table_text) - 1, &err) < 0 ||
	    strobe_analysis_new(names, &o, &f->a, &err) < 0 ||
	    strobe_analysis_set_target(f->a, target, pids, conts, &err) < 0 ||
	    strobe_analysis_attach(f->a, fixture_fmts(f), f->m, &err) < 0) {
		fprintf(stderr, "  start: %s\n", err.msg);
		return false;
	}
	return true;
}

static void sys_enter(struct feeder *f, int tid, int cpu, uint64_t ts)
{
	put64(f->d + 8, 39);
	feed(f, ID_ENTER, tid, cpu, ts, 0);
}

static void waking(struct feeder *f, int waker, int cpu, uint64_t ts, int pid)
{
	put32(f->d + 24, (uint32_t)pid);
	put32(f->d + 28, 120);
	put32(f->d + 32, (uint32_t)cpu);
	feed(f, ID_WAKING, waker, cpu, ts, 0);
}

static void softirq(struct feeder *f, int type, int pid, int cpu, uint64_t ts, unsigned vec)
{
	put32(f->d + 8, vec);
	feed(f, type, pid, cpu, ts, 0);
}

static void block(struct feeder *f, int type, int pid, int cpu, uint64_t ts, uint64_t sector)
{
	put32(f->d + 8, 0x800010);
	put64(f->d + 16, sector);
	put32(f->d + 24, 8);
	put32(f->d + 28, 4096);
	feed(f, type, pid, cpu, ts, 0);
}

/* Column vkey of the row of t whose int column ikey is ival; -1 if none. */
static int64_t cell(const struct strobe_table *t, const char *ikey, int64_t ival,
		    const char *vkey)
{
	size_t r;
	int ic = col(t, ikey), vc = col(t, vkey);

	if (ic < 0 || vc < 0)
		return -1;
	for (r = 0; r < strobe_table_nr_rows(t); r++)
		if (strobe_table_row(t, r)[ic].i == ival)
			return strobe_table_row(t, r)[vc].i;
	return -1;
}

static bool has_note(struct strobe_analysis *a, const char *s)
{
	int i;

	for (i = 0; i < strobe_analysis_nr_notes(a); i++)
		if (strstr(strobe_analysis_note(a, i), s))
			return true;
	return false;
}

/*
 * The reported bug: strobe's reader thread 6 is switched in by the
 * command 10 and, 8 us later, out to 10 again; in between idle and 20 ran
 * unrecorded.  10 forks 12 (traced through its fork).
 */
static void cputop_sequence(struct feeder *f)
{
	sys_enter(f, 10, 0, 1000);
	sched_switch(f, 0, 2000, 10, 1, 6);	/* 10: 1000..2000 */
	/* unrecorded: 6 -> idle -> 20 -> 6 */
	sched_switch(f, 0, 10000, 6, 1, 10);	/* 6 "ran" 2000..10000 */
	fork_ev(f, 10, 0, 10500, 12);
	sched_switch(f, 0, 11000, 10, 0, 12);	/* 10: 10000..11000 */
	sched_switch(f, 0, 12000, 12, 1, 0);	/* 12: 11000..12000 */
	/* unrecorded: idle -> 20 -> idle */
	sched_switch(f, 0, 20000, 0, 0, 10);
	sys_enter(f, 10, 0, 21000);		/* 10: 20000..21000 */
}

static void test_cputop_whole_system_charges_the_untraced_gap(void)
{
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "cputop", STROBE_GROUP_THREAD, NULL, NULL, NULL));
	cputop_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	CHECK_EQ(cell(t, "tid", 6, "cpu_time"), 8000);	/* what a filtered file must not say */
	CHECK_EQ(cell(t, "tid", 10, "cpu_time"), 3000);
	CHECK(!has_note(f.a, "PID-filtered"));
	stop(&f);
	/* "system" is the same as no target */
	REQUIRE(start(&f, "cputop", STROBE_GROUP_THREAD, "system", "10", NULL));
	cputop_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_EQ(cell(table(f.a, "cputop.top"), "tid", 6, "cpu_time"), 8000);
	stop(&f);
}

static void test_cputop_command_target_charges_traced_tasks_only(void)
{
	struct feeder f;
	const struct strobe_table *t, *c;

	REQUIRE(start(&f, "cputop", STROBE_GROUP_THREAD, "command", "10", NULL));
	cputop_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	CHECK_EQ(cell(t, "tid", 10, "cpu_time"), 3000);
	CHECK_EQ(cell(t, "tid", 12, "cpu_time"), 1000);	/* forked by 10 */
	CHECK_EQ(cell(t, "tid", 6, "cpu_time"), -1);
	c = table(f.a, "cputop.cpus");
	REQUIRE(c && strobe_table_nr_rows(c) == 1);
	CHECK_EQ(strobe_table_row(c, 0)[1].u, 4000);
	CHECK(has_note(f.a, "cputop: the recording was PID-filtered (strobe record -- CMD)"));
	CHECK(has_note(f.a, "other tasks' CPU time is not known"));
	stop(&f);
	/* by process and by container: the untraced strobe process has no row */
	REQUIRE(start(&f, "cputop", STROBE_GROUP_PROCESS, "command", "10", NULL));
	cputop_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	CHECK_EQ(cell(t, "pid", 5, "cpu_time"), -1);
	CHECK_EQ(cell(t, "pid", 10, "cpu_time"), 3000);
	stop(&f);
}

/*
 * -p 10: its thread 11 (alive at the start, no fork in the trace) is
 * traced, a child 13 that 11 forks is, its older child 30 is not.  With
 * -- CMD the same parent chain would count (a command has no older
 * children), as would a task whose fork was lost.
 */
static void pid_sequence(struct feeder *f)
{
	sched_switch(f, 0, 1000, 0, 0, 11);
	sched_switch(f, 0, 2000, 11, 1, 30);	/* 11: 1000..2000 */
	sched_switch(f, 0, 3000, 30, 1, 10);	/* 30 "ran" 2000..3000 */
	sched_switch(f, 0, 4000, 10, 1, 11);	/* 10: 3000..4000 */
	fork_ev(f, 11, 0, 4500, 13);
	sched_switch(f, 0, 5000, 11, 1, 13);	/* 11: 4000..5000 */
	sched_switch(f, 0, 6000, 13, 1, 0);	/* 13: 5000..6000 */
}

static void test_cputop_pid_target_threads_forks_not_older_children(void)
{
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "cputop", STROBE_GROUP_THREAD, "pid", "10", NULL));
	pid_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	CHECK_EQ(strobe_table_nr_rows(t), 3);
	CHECK_EQ(cell(t, "tid", 11, "cpu_time"), 2000);
	CHECK_EQ(cell(t, "tid", 10, "cpu_time"), 1000);
	CHECK_EQ(cell(t, "tid", 13, "cpu_time"), 1000);
	CHECK_EQ(cell(t, "tid", 30, "cpu_time"), -1);
	CHECK(has_note(f.a, "(strobe record -p PID)"));
	stop(&f);
	REQUIRE(start(&f, "cputop", STROBE_GROUP_THREAD, "command", "10", NULL));
	pid_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_EQ(cell(table(f.a, "cputop.top"), "tid", 30, "cpu_time"), 1000);
	stop(&f);
}

/* Malformed list entries are skipped; unknown targets refused. */
static void test_set_target_lists_and_errors(void)
{
	struct strobe_error err = { 0 };
	struct strobe_analysis *a = NULL;
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "cputop", STROBE_GROUP_THREAD, "pid", "x,,-3,12abc,99999999999,11", NULL));
	pid_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t);
	CHECK_EQ(strobe_table_nr_rows(t), 2);	/* 11 and its child 13 */
	CHECK_EQ(cell(t, "tid", 11, "cpu_time"), 2000);
	CHECK_EQ(cell(t, "tid", 13, "cpu_time"), 1000);
	CHECK_EQ(strobe_analysis_set_target(f.a, "command", "10", NULL, &err), -EINVAL);
	stop(&f);
	REQUIRE(strobe_analysis_new("cputop", NULL, &a, &err) == 0);
	CHECK_EQ(strobe_analysis_set_target(a, "cgroup", NULL, NULL, &err), -EINVAL);
	CHECK(strstr(err.msg, "'cgroup'") != NULL);
	CHECK_EQ(strobe_analysis_set_target(a, "container", NULL, ",,", &err), 0);
	strobe_analysis_free(a);
}

static void test_cputop_container_target(void)
{
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "cputop", STROBE_GROUP_CONTAINER, "container", NULL, "x," ID64A));
	sched_switch(&f, 0, 1000, 0, 0, 40);
	sched_switch(&f, 0, 2000, 40, 1, 41);	/* alpha: 1000 */
	sched_switch(&f, 0, 9000, 41, 1, 40);	/* beta "ran" 7000: not traced */
	fork_ev(&f, 40, 0, 9500, 42);		/* inherits alpha */
	sched_switch(&f, 0, 10000, 40, 1, 42);	/* alpha: 1000 */
	sched_switch(&f, 0, 10500, 42, 1, 0);	/* alpha: 500 */
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "cputop.top");
	REQUIRE(t && strobe_table_nr_rows(t) == 1);
	CHECK_STR(strobe_table_row(t, 0)[col(t, "container")].s, "alpha");
	CHECK_EQ(strobe_table_row(t, 0)[col(t, "cpu_time")].u, 2500);
	CHECK(has_note(f.a, "(strobe record -c NAME)"));
	stop(&f);
}

/*
 * schedlat: 10 wakes the untraced 6, which runs unrecorded; 6 is switched
 * in by 10 much later (a later wake-up by an untraced task was not
 * recorded) and switched out runnable to the traced 12 and in again by
 * it later still: neither is a latency.  10's own wake-up is measured.
 */
static void schedlat_sequence(struct feeder *f)
{
	fork_ev(f, 10, 1, 500, 12);
	waking(f, 10, 0, 1000, 6);
	sched_switch(f, 1, 50000, 10, 1, 6);	/* "waited" 49 us */
	waking(f, 6, 1, 60000, 10);		/* recorded: 10 is traced */
	sched_switch(f, 0, 60300, 0, 0, 10);	/* 10 waited 300 ns */
	sched_switch(f, 1, 61000, 6, 0, 12);	/* 6 preempted (R) ... */
	sched_switch(f, 1, 90000, 12, 1, 6);	/* ... "runnable" 29 us */
}

static void test_schedlat_measures_traced_tasks_only(void)
{
	struct feeder f;
	const struct strobe_table *s, *p;

	REQUIRE(start(&f, "schedlat", STROBE_GROUP_THREAD, NULL, NULL, NULL));
	schedlat_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	s = table(f.a, "schedlat.stats");
	p = table(f.a, "schedlat.preempt");
	REQUIRE(s && p);
	CHECK_EQ(cell(s, "tid", 6, "max"), 49000);	/* wrong in a filtered trace */
	CHECK_EQ(cell(p, "tid", 6, "total"), 29000);
	stop(&f);

	REQUIRE(start(&f, "schedlat", STROBE_GROUP_THREAD, "command", "10", NULL));
	schedlat_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	s = table(f.a, "schedlat.stats");
	p = table(f.a, "schedlat.preempt");
	REQUIRE(s && p);
	CHECK_EQ(strobe_table_nr_rows(s), 1);
	CHECK_EQ(cell(s, "tid", 10, "count"), 1);
	CHECK_EQ(cell(s, "tid", 10, "max"), 300);
	CHECK_EQ(strobe_table_nr_rows(p), 0);
	s = table(f.a, "schedlat.top");
	REQUIRE(s && strobe_table_nr_rows(s) == 1);
	CHECK_EQ(strobe_table_row(s, 0)[col(s, "waker_tid")].i, 6);
	CHECK(has_note(f.a, "schedlat: the recording was PID-filtered"));
	stop(&f);
}

/*
 * irq: a TIMER softirq raised while 10 runs executes after the switch to
 * the untraced 6 (ksoftirqd), unrecorded; the next recorded entry of that
 * vector must not close the raise.  Handler durations still count.
 */
static void irq_sequence(struct feeder *f)
{
	sched_switch(f, 0, 1000, 0, 0, 10);
	softirq(f, ID_RAISE, 10, 0, 1100, 1);
	sched_switch(f, 0, 1200, 10, 1, 6);
	/* unrecorded: TIMER runs in ksoftirqd */
	sched_switch(f, 0, 9000, 6, 1, 10);
	softirq(f, ID_SOFT_ENTRY, 10, 0, 9100, 1);
	softirq(f, ID_SOFT_EXIT, 10, 0, 9150, 1);
	softirq(f, ID_RAISE, 10, 0, 9200, 1);		/* raised and run while 10 runs */
	softirq(f, ID_SOFT_ENTRY, 10, 0, 9230, 1);
	softirq(f, ID_SOFT_EXIT, 10, 0, 9250, 1);
}

static void test_irq_raise_latency_not_across_untraced_time(void)
{
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "irq", STROBE_GROUP_THREAD, NULL, NULL, NULL));
	irq_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "irq.raise");
	REQUIRE(t);
	CHECK_EQ(cell(t, "vec", 1, "max"), 8000);	/* wrong in a filtered trace */
	stop(&f);

	REQUIRE(start(&f, "irq", STROBE_GROUP_THREAD, "command", "10", NULL));
	irq_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	t = table(f.a, "irq.raise");
	REQUIRE(t);
	CHECK_EQ(cell(t, "vec", 1, "count"), 1);
	CHECK_EQ(cell(t, "vec", 1, "max"), 30);
	t = table(f.a, "irq.soft");
	REQUIRE(t);
	CHECK_EQ(cell(t, "vec", 1, "count"), 2);
	CHECK_EQ(cell(t, "vec", 1, "total"), 70);
	CHECK(has_note(f.a, "irq: the recording was PID-filtered"));
	stop(&f);
}

/*
 * io: the first request's completion came while an untraced task ran
 * (unrecorded), the second request to the same sector was issued by a
 * kworker (unrecorded): its completion would close the first issue.
 */
static void test_io_ignores_block_requests_when_filtered(void)
{
	struct feeder f;
	const struct strobe_table *t;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		REQUIRE(start(&f, "io", STROBE_GROUP_THREAD, pass ? "command" : NULL, "10", NULL));
		block(&f, ID_ISSUE, 10, 0, 1000, 2048);
		block(&f, ID_COMPLETE, 10, 0, 900000, 2048);
		REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
		t = table(f.a, "io.disks");
		REQUIRE(t);
		CHECK_EQ(strobe_table_nr_rows(t), pass ? 0 : 1);
		CHECK(has_note(f.a, "io: the recording was PID-filtered") == (pass == 1));
		stop(&f);
	}
}

TESTS(T(test_cputop_whole_system_charges_the_untraced_gap),
      T(test_cputop_command_target_charges_traced_tasks_only),
      T(test_cputop_pid_target_threads_forks_not_older_children),
      T(test_set_target_lists_and_errors),
      T(test_cputop_container_target),
      T(test_schedlat_measures_traced_tasks_only),
      T(test_irq_raise_latency_not_across_untraced_time),
      T(test_io_ignores_block_requests_when_filtered));
