/*
 * test_analysis_log.c - --log of cputop, io, irq and mem on synthetic
 * event sequences: the exact rows each delivers to the callback (one per
 * occurrence, as it happens), --min/--max and the task filters selecting
 * them, no callback without the log view, traced tasks only in a
 * PID-filtered recording, and the LAMI writers for log rows.
 *
 * Formats are copied from a 6.x kernel's tracefs and parsed with
 * tep_parse_event(); payloads are little-endian byte arrays; events are
 * fed with strobe_analysis_feed() (internal model) through the feeder of
 * analysis_fixture.h.
 */
#include <errno.h>

#include <traceevent/trace-seq.h>

#include <strobe/strobe.h>

#include "analyses/analysis-int.h"

/* ---- the log rows the callback received --------------------------------- */

#define MAX_ROWS 32
#define MAX_COLS 16

struct row {
	char table[32];
	union strobe_value v[MAX_COLS];
	char str[MAX_COLS][32];		/* copies of the string cells */
};

struct rows {
	const struct strobe_table *t[MAX_ROWS];
	struct row r[MAX_ROWS];
	int n;
};

#define FIXTURE_FEEDER_EXTRA struct rows rows;
#include "analysis_fixture.h"
#include "buf_of.h"

enum { ID_ALLOC = 704, ID_FREE = 707, ID_RAISE = 708, ID_SOFT_ENTRY = 709,
       ID_SOFT_EXIT = 710, ID_ISSUE = 711, ID_COMPLETE = 712 };

static const char fmt_alloc[] = "name: mm_page_alloc\nID: 704\nformat:\n" FMT_COMMON
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int migratetype;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"order=%d\", REC->order\n";
static const char fmt_free[] = "name: mm_page_free\nID: 707\nformat:\n" FMT_COMMON
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"order=%d\", REC->order\n";
static const char fmt_raise[] = "name: softirq_raise\nID: 708\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_soft_entry[] = "name: softirq_entry\nID: 709\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_soft_exit[] = "name: softirq_exit\nID: 710\nformat:\n" FMT_COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_issue[] = "name: block_rq_issue\nID: 711\nformat:\n" FMT_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"sector=%llu\", REC->sector\n";
static const char fmt_complete[] = "name: block_rq_complete\nID: 712\nformat:\n" FMT_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"sector=%llu\", REC->sector\n";

static struct tep_handle *make_tep(void)
{
	static const struct fixture_fmt f[] = {
		{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" },
		{ fmt_exit, "raw_syscalls" }, { fmt_fork, "sched" }, { fmt_alloc, "kmem" },
		{ fmt_free, "kmem" }, { fmt_irq_entry, "irq" }, { fmt_irq_exit, "irq" },
		{ fmt_raise, "irq" }, { fmt_soft_entry, "irq" }, { fmt_soft_exit, "irq" },
		{ fmt_issue, "block" }, { fmt_complete, "block" },
	};

	return fixture_tep(f, sizeof(f) / sizeof(f[0]));
}

static void on_log(void *arg, const struct strobe_table *t, const union strobe_value *v)
{
	struct rows *rs = arg;
	struct row *r;
	int i;

	if (rs->n == MAX_ROWS)
		return;
	rs->t[rs->n] = t;
	r = &rs->r[rs->n++];
	snprintf(r->table, sizeof(r->table), "%s", strobe_table_name(t));
	for (i = 0; i < strobe_table_nr_columns(t) && i < MAX_COLS; i++) {
		r->v[i] = v[i];
		if (strobe_table_column(t, i)->type == STROBE_COL_STR) {
			snprintf(r->str[i], sizeof(r->str[i]), "%s", v[i].s ? v[i].s : "(null)");
			r->v[i].s = r->str[i];
		}
	}
}

/* Index of column key of t; complains and gives an unused slot if none. */
static int row_col(const struct strobe_table *t, const char *key)
{
	int i;

	for (i = 0; i < strobe_table_nr_columns(t); i++)
		if (!strcmp(strobe_table_column(t, i)->key, key))
			return i;
	fprintf(stderr, "  no column %s in %s\n", key, strobe_table_name(t));
	return MAX_COLS - 1;
}

/* Cell `key` of received row i. */
static int64_t I(const struct rows *rs, int i, const char *key)
{
	return rs->r[i].v[row_col(rs->t[i], key)].i;
}

static uint64_t U(const struct rows *rs, int i, const char *key)
{
	return rs->r[i].v[row_col(rs->t[i], key)].u;
}

static const char *S(const struct rows *rs, int i, const char *key)
{
	return rs->r[i].v[row_col(rs->t[i], key)].s;
}

/* ---- feeding ------------------------------------------------------------ */

static void sys_enter(struct feeder *f, int tid, uint64_t ts, int nr, int fd)
{
	put64(f->d + 8, (uint64_t)nr);
	put64(f->d + 16, (uint64_t)(int64_t)fd);	/* args[0] */
	feed(f, ID_ENTER, tid, 0, ts, 0);
}

static void sys_exit(struct feeder *f, int tid, uint64_t ts, int nr, int64_t ret)
{
	put64(f->d + 8, (uint64_t)nr);
	put64(f->d + 16, (uint64_t)ret);
	feed(f, ID_EXIT, tid, 0, ts, 0);
}

/* sched_switch to next, named next_comm. */
static void switch_to(struct feeder *f, int cpu, uint64_t ts, int prev, long state, int next,
		      const char *next_comm)
{
	memcpy(f->d + 40, next_comm, strlen(next_comm) + 1);
	sched_switch(f, cpu, ts, prev, state, next);
}

static void vec_ev(struct feeder *f, int id, int cpu, uint64_t ts, int vec)
{
	put32(f->d + 8, (uint32_t)vec);
	feed(f, id, 0, cpu, ts, 0);
}

static void irq_entry(struct feeder *f, int cpu, uint64_t ts, int irq, const char *name)
{
	put32(f->d + 8, (uint32_t)irq);
	put32(f->d + 12, (uint32_t)((strlen(name) + 1) << 16 | 40));	/* __data_loc */
	memcpy(f->d + 40, name, strlen(name) + 1);
	feed(f, ID_IRQ_ENTRY, 0, cpu, ts, 0);
}

static void rq_ev(struct feeder *f, int id, int pid, uint64_t ts, uint32_t dev,
		  uint64_t sector, uint32_t bytes)
{
	put32(f->d + 8, dev);
	put64(f->d + 16, sector);
	put32(f->d + 24, bytes / 512);
	if (id == ID_ISSUE)
		put32(f->d + 28, bytes);
	feed(f, id, pid, 0, ts, 0);
}

static void page_ev(struct feeder *f, int id, int pid, uint64_t ts, int order, uint64_t gfp)
{
	put32(f->d + 16, (uint32_t)order);
	if (id == ID_ALLOC)
		put64(f->d + 24, gfp);
	feed(f, id, pid, 1, ts, 0);
}

/* New analysis `names` with options o (the log callback: on_log into
 * f->rows unless o has one), attached;
 * target: a PID-filtered recording of that command pid (0: whole system). */
static struct strobe_analysis *start(struct feeder *f, const char *names,
				     struct strobe_analysis_opts *o, const char *target_pid)
{
	struct strobe_error err = { 0 };

	memset(f, 0, sizeof(*f));
	if (!o->log) {
		o->log = on_log;
		o->log_arg = &f->rows;
	}
	f->tep = make_tep();
	if (!f->tep || strobe_analysis_new(names, o, &f->a, &err) < 0)
		return NULL;
	if (target_pid && strobe_analysis_set_target(f->a, "command", target_pid, NULL, &err))
		return NULL;
	if (strobe_analysis_attach(f->a, fixture_fmts(f), NULL, &err) < 0) {
		fprintf(stderr, "  attach: %s\n", err.msg);
		return NULL;
	}
	return f->a;
}

/* ---- cputop ------------------------------------------------------------- */

/* CPU 0: 5 runs 1000..1500 (500 ns), 6 runs 1500..3000 (1500 ns); CPU 1:
 * 7 ran since before the trace (partial: no row), then 8 from 400 is
 * still running at the end (no row). */
static void cputop_sequence(struct feeder *f)
{
	fork_ev(f, 1, 0, 50, 5);
	fork_ev(f, 1, 0, 60, 6);
	sys_enter(f, 7, 100, 39, 0);
	feed(f, ID_ENTER, 7, 1, 200, 0);
	switch_to(f, 1, 400, 7, 1, 8, "eight");
	switch_to(f, 0, 1000, 0, 0, 5, "five");
	switch_to(f, 0, 1500, 5, 1, 6, "six");
	switch_to(f, 0, 3000, 6, 1, 0, "swapper/0");
	feed(f, ID_ENTER, 8, 1, 4000, 0);
}

static void test_cputop_log_rows_are_complete_intervals(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP | STROBE_VIEW_LOG };
	struct feeder f;
	struct rows *r = &f.rows;

	REQUIRE(start(&f, "cputop", &o, NULL));
	cputop_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	REQUIRE(r->n == 2);
	CHECK_STR(r->r[0].table, "cputop.log");
	CHECK_EQ(U(r, 0, "ts"), 1000);
	CHECK_EQ(U(r, 0, "duration"), 500);
	CHECK_EQ(I(r, 0, "tid"), 5);
	CHECK_EQ(I(r, 0, "cpu"), 0);
	CHECK_EQ(I(r, 0, "next_tid"), 6);
	CHECK_STR(S(r, 0, "next_comm"), "six");
	CHECK_STR(S(r, 0, "container"), "unknown");	/* no model info */
	CHECK_EQ(U(r, 1, "ts"), 1500);
	CHECK_EQ(U(r, 1, "duration"), 1500);
	CHECK_EQ(I(r, 1, "tid"), 6);
	CHECK_EQ(I(r, 1, "next_tid"), 0);
	CHECK_STR(S(r, 1, "next_comm"), "swapper/0");
	stop(&f);
}

static void test_cputop_log_min_max_and_task_filters(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG, .min_ns = 1000 };
	const int tids[] = { 5 };
	struct feeder f;
	const struct strobe_table *t;

	REQUIRE(start(&f, "cputop", &o, NULL));
	cputop_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	REQUIRE(f.rows.n == 1);
	CHECK_EQ(I(&f.rows, 0, "tid"), 6);
	/* --log alone: no cputop.top */
	REQUIRE(strobe_analysis_nr_tables(f.a) == 1);
	t = strobe_analysis_table(f.a, 0);
	CHECK_STR(strobe_table_name(t), "cputop.log");
	stop(&f);

	o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .max_ns = 1000 };
	REQUIRE(start(&f, "cputop", &o, NULL));
	cputop_sequence(&f);
	REQUIRE(f.rows.n == 1);
	CHECK_EQ(I(&f.rows, 0, "tid"), 5);
	stop(&f);

	o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .tids = tids, .nr_tids = 1 };
	REQUIRE(start(&f, "cputop", &o, NULL));
	cputop_sequence(&f);
	REQUIRE(f.rows.n == 1);
	CHECK_EQ(I(&f.rows, 0, "tid"), 5);
	stop(&f);

	/* --filter: the task's tid, as --tid does; the switch's own fields */
	{
		static const char *const by_tid[] = { "$evt.tid == 5" };
		static const char *const by_switch[] = { "$evt.next_tid == 0",
							 "$evt.next_comm =* \"swap*\"" };
		static const char *const bad[] = { "$evt.tid == 5", "$evt.tid ==" };
		struct strobe_analysis *a = NULL;
		struct strobe_error err = { 0 };

		o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .filters = by_tid,
						   .nr_filters = 1 };
		REQUIRE(start(&f, "cputop", &o, NULL));
		cputop_sequence(&f);
		REQUIRE(f.rows.n == 1);
		CHECK_EQ(I(&f.rows, 0, "tid"), 5);
		stop(&f);
		o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .filters = by_switch,
						   .nr_filters = 2 };
		REQUIRE(start(&f, "cputop", &o, NULL));
		cputop_sequence(&f);
		REQUIRE(f.rows.n == 1);
		CHECK_EQ(I(&f.rows, 0, "tid"), 6);	/* the run the switch to idle ended */
		stop(&f);
		o = (struct strobe_analysis_opts){ .filters = bad, .nr_filters = 2 };
		CHECK_EQ(strobe_analysis_new("cputop", &o, &a, &err), -EINVAL);
		CHECK_STR(err.msg, "--filter '$evt.tid ==': column 12: expected a value ($evt "
			  "reference, number, duration or string), found end of text");
		CHECK(a == NULL);
	}

	/* the window: only the switch at 3000 is inside [2000, 5000] but the
	 * interval it ends began before: no complete interval */
	o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .begin = 2000, .end = 5000 };
	REQUIRE(start(&f, "cputop", &o, NULL));
	cputop_sequence(&f);
	CHECK_EQ(f.rows.n, 0);
	stop(&f);
}

static void test_cputop_log_filtered_recording_traced_tasks_only(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG };
	struct feeder f;

	/* a recording of command 5: 6 (not forked by 5) is not traced */
	REQUIRE(start(&f, "cputop", &o, "5"));
	switch_to(&f, 0, 1000, 0, 0, 5, "five");
	switch_to(&f, 0, 1500, 5, 1, 6, "six");
	switch_to(&f, 0, 3000, 6, 1, 5, "five");
	switch_to(&f, 0, 3100, 5, 1, 0, "swapper/0");
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	REQUIRE(f.rows.n == 2);
	CHECK_EQ(I(&f.rows, 0, "tid"), 5);
	CHECK_EQ(U(&f.rows, 0, "duration"), 500);
	CHECK_EQ(I(&f.rows, 1, "tid"), 5);
	CHECK_EQ(U(&f.rows, 1, "duration"), 100);
	stop(&f);
}

static void test_no_callback_without_the_log_view(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_TOP | STROBE_VIEW_STATS };
	struct feeder f;

	REQUIRE(start(&f, "cputop,io,irq,mem", &o, NULL));
	cputop_sequence(&f);
	sys_enter(&f, 5, 5000, 1, 3);
	sys_exit(&f, 5, 5100, 1, 10);
	page_ev(&f, ID_ALLOC, 5, 5200, 0, 0);
	vec_ev(&f, ID_SOFT_ENTRY, 0, 5300, 1);
	vec_ev(&f, ID_SOFT_EXIT, 0, 5400, 1);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_EQ(f.rows.n, 0);
	stop(&f);
}

/* ---- io ----------------------------------------------------------------- */

/* tid 5: write(3) 4096 bytes in 100 ns, read(4) EAGAIN in 2000 ns,
 * getppid (not I/O), fsync(3) in 5000 ns; a block request of 8192 bytes
 * on 8:16 sector 1234 issued by 5 and completed 30000 ns later. */
static void io_sequence(struct feeder *f)
{
	fork_ev(f, 1, 0, 50, 5);
	sys_enter(f, 5, 1000, 1, 3);
	sys_exit(f, 5, 1100, 1, 4096);
	sys_enter(f, 5, 2000, 0, 4);
	sys_exit(f, 5, 4000, 0, -EAGAIN);
	sys_enter(f, 5, 4100, 110, 0);
	sys_exit(f, 5, 4200, 110, 1);
	sys_enter(f, 5, 5000, 74, 3);
	rq_ev(f, ID_ISSUE, 5, 6000, (8u << 20) | 16, 1234, 8192);
	sys_exit(f, 5, 10000, 74, 0);
	rq_ev(f, ID_COMPLETE, 0, 36000, (8u << 20) | 16, 1234, 8192);
}

static void test_io_log_syscalls_and_block_requests(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG };
	struct feeder f;
	struct rows *r = &f.rows;

	REQUIRE(start(&f, "io", &o, NULL));
	io_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	REQUIRE(r->n == 4);
	CHECK_STR(r->r[0].table, "io.log");
	CHECK_EQ(U(r, 0, "ts"), 1000);
	CHECK_EQ(U(r, 0, "duration"), 100);
	CHECK_EQ(I(r, 0, "tid"), 5);
	CHECK_STR(S(r, 0, "syscall"), "write");
	CHECK_EQ(I(r, 0, "fd"), 3);
	CHECK_STR(S(r, 0, "file"), "");
	CHECK_EQ(U(r, 0, "bytes"), 4096);
	CHECK_STR(S(r, 0, "error"), "");
	CHECK_STR(S(r, 1, "syscall"), "read");
	CHECK_EQ(I(r, 1, "fd"), 4);
	CHECK_EQ(U(r, 1, "duration"), 2000);
	CHECK_EQ(U(r, 1, "bytes"), 0);
	CHECK_STR(S(r, 1, "error"), "EAGAIN");
	CHECK_STR(S(r, 2, "syscall"), "fsync");
	CHECK_EQ(U(r, 2, "duration"), 5000);
	CHECK_EQ(U(r, 2, "bytes"), 0);
	CHECK_STR(r->r[3].table, "io.block_log");
	CHECK_EQ(U(r, 3, "ts"), 6000);
	CHECK_EQ(U(r, 3, "latency"), 30000);
	CHECK_STR(S(r, 3, "disk"), "8:16");
	CHECK_EQ(I(r, 3, "sector"), 1234);
	CHECK_EQ(U(r, 3, "bytes"), 8192);
	CHECK_EQ(I(r, 3, "tid"), 5);
	stop(&f);
}

static void test_io_log_min_max(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG, .min_ns = 2000,
					  .max_ns = 10000 };
	struct feeder f;

	REQUIRE(start(&f, "io", &o, NULL));
	io_sequence(&f);
	REQUIRE(f.rows.n == 2);
	CHECK_STR(S(&f.rows, 0, "syscall"), "read");
	CHECK_STR(S(&f.rows, 1, "syscall"), "fsync");
	stop(&f);

	/* a request whose issuer is filtered out is no row; the calls of a
	 * task not selected neither */
	{
		const int tids[] = { 6 };

		o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .tids = tids,
						   .nr_tids = 1 };
		REQUIRE(start(&f, "io", &o, NULL));
		io_sequence(&f);
		CHECK_EQ(f.rows.n, 0);
		stop(&f);
	}
}

/* ---- irq ---------------------------------------------------------------- */

static void irq_sequence(struct feeder *f)
{
	irq_entry(f, 1, 1000, 19, "eth0");
	vec_ev(f, ID_RAISE, 1, 1200, 3);		/* NET_RX raised ... */
	put32(f->d + 8, 19);
	feed(f, ID_IRQ_EXIT, 0, 1, 1300, 0);		/* IRQ 19: 300 ns */
	vec_ev(f, ID_SOFT_ENTRY, 1, 1400, 3);		/* ... 200 ns before entry */
	vec_ev(f, ID_SOFT_EXIT, 1, 3400, 3);		/* ran 2000 ns */
	vec_ev(f, ID_SOFT_ENTRY, 0, 5000, 1);		/* TIMER, raise not seen */
	vec_ev(f, ID_SOFT_EXIT, 0, 5050, 1);		/* ran 50 ns */
}

static void test_irq_log_hard_and_soft_runs(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG };
	struct feeder f;
	struct rows *r = &f.rows;

	REQUIRE(start(&f, "irq", &o, NULL));
	irq_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	REQUIRE(r->n == 3);
	CHECK_STR(r->r[0].table, "irq.log");
	CHECK_EQ(U(r, 0, "ts"), 1000);
	CHECK_EQ(U(r, 0, "duration"), 300);
	CHECK_EQ(I(r, 0, "cpu"), 1);
	CHECK_STR(S(r, 0, "type"), "hard");
	CHECK_EQ(I(r, 0, "nr"), 19);
	CHECK_STR(S(r, 0, "name"), "eth0");
	CHECK_EQ(U(r, 0, "raise_latency"), 0);
	CHECK_STR(S(r, 1, "type"), "soft");
	CHECK_EQ(I(r, 1, "nr"), 3);
	CHECK_STR(S(r, 1, "name"), "NET_RX");
	CHECK_EQ(U(r, 1, "ts"), 1400);
	CHECK_EQ(U(r, 1, "duration"), 2000);
	CHECK_EQ(U(r, 1, "raise_latency"), 200);
	CHECK_STR(S(r, 2, "name"), "TIMER");
	CHECK_EQ(I(r, 2, "cpu"), 0);
	CHECK_EQ(U(r, 2, "duration"), 50);
	CHECK_EQ(U(r, 2, "raise_latency"), 0);
	stop(&f);
}

static void test_irq_log_min_max_and_cpu(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG, .min_ns = 100,
					  .max_ns = 1000 };
	const bool cpus[] = { true, false };
	struct feeder f;

	REQUIRE(start(&f, "irq", &o, NULL));
	irq_sequence(&f);
	REQUIRE(f.rows.n == 1);
	CHECK_STR(S(&f.rows, 0, "type"), "hard");
	stop(&f);

	o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .cpu_mask = cpus,
					   .nr_cpu_mask = 2 };
	REQUIRE(start(&f, "irq", &o, NULL));
	irq_sequence(&f);
	REQUIRE(f.rows.n == 1);
	CHECK_STR(S(&f.rows, 0, "name"), "TIMER");
	stop(&f);
}

/* ---- mem ---------------------------------------------------------------- */

static void test_mem_log_allocs_and_frees(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG };
	const char *comms[] = { "seven" };
	struct feeder f;
	struct rows *r = &f.rows;

	REQUIRE(start(&f, "mem", &o, NULL));
	fork_ev(&f, 1, 0, 50, 5);
	page_ev(&f, ID_ALLOC, 5, 100, 2, 0xcc0);
	page_ev(&f, ID_FREE, 5, 200, 0, 0);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	REQUIRE(r->n == 2);
	CHECK_STR(r->r[0].table, "mem.log");
	CHECK_EQ(U(r, 0, "ts"), 100);
	CHECK_EQ(I(r, 0, "tid"), 5);
	CHECK_EQ(I(r, 0, "cpu"), 1);
	CHECK_STR(S(r, 0, "op"), "alloc");
	CHECK_EQ(I(r, 0, "order"), 2);
	CHECK_EQ(I(r, 0, "pages"), 4);
	CHECK_EQ(U(r, 0, "bytes"), 4 * 4096);
	CHECK_STR(S(r, 0, "gfp_flags"), "0xcc0");
	CHECK_STR(S(r, 1, "op"), "free");
	CHECK_EQ(I(r, 1, "pages"), 1);
	CHECK_STR(S(r, 1, "gfp_flags"), "");
	stop(&f);

	o = (struct strobe_analysis_opts){ .views = STROBE_VIEW_LOG, .comms = comms,
					   .nr_comms = 1 };
	REQUIRE(start(&f, "mem", &o, NULL));
	page_ev(&f, ID_ALLOC, 5, 100, 2, 0xcc0);
	CHECK_EQ(f.rows.n, 0);
	stop(&f);
}

/* ---- writers -------------------------------------------------------------- */

struct lami_rows {
	struct trace_seq kept;	/* the rows of the one log table */
	const struct strobe_table *t;
	int calls;
};

static void keep_lami(void *arg, const struct strobe_table *t, const union strobe_value *v)
{
	struct lami_rows *l = arg;

	if (l->kept.len)
		trace_seq_putc(&l->kept, ',');
	strobe_lami_write_row(t, v, buf_of(&l->kept));
	l->t = t;
}

static int lami_rows(void *arg, const struct strobe_table *t, struct strobe_buf *b)
{
	struct lami_rows *l = arg;

	l->calls++;
	if (t == l->t)
		strobe_buf_putc(b, '#');	/* a marker where the rows go */
	return 0;
}

static void test_writers_for_log_rows(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_LOG };
	struct tep_handle *tep = make_tep();
	struct lami_rows l = { .calls = 0 };
	struct trace_seq s;
	struct feeder f;

	REQUIRE(tep);
	trace_seq_init(&s);
	trace_seq_init(&l.kept);
	/* metadata declares the log classes */
	CHECK_EQ(strobe_lami_write_metadata("cputop,irq", &o, buf_of(&s)), 0);
	trace_seq_terminate(&s);
	CHECK(strstr(s.buffer, "\"cputop.log\":{\"title\":\"On-CPU intervals\"") != NULL);
	CHECK(strstr(s.buffer, "\"irq.log\":{") != NULL);
	trace_seq_reset(&s);

	o.log = keep_lami;
	o.log_arg = &l;
	REQUIRE(start(&f, "cputop", &o, NULL));
	cputop_sequence(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	trace_seq_terminate(&l.kept);
	CHECK(strstr(l.kept.buffer, "[{\"class\":\"timestamp\",\"value\":1000},"
		     "{\"class\":\"duration\",\"value\":500},{\"class\":\"number\",\"value\":5},")
	      == l.kept.buffer);
	CHECK(strstr(l.kept.buffer, "]," "[{\"class\":\"timestamp\",\"value\":1500},") != NULL);
	/* without a callback log tables are left out; with one, its rows go in */
	CHECK_EQ(strobe_lami_write_results(f.a, buf_of(&s)), 0);
	trace_seq_terminate(&s);
	CHECK_STR(s.buffer, "{\"results\":[]}\n");
	trace_seq_reset(&s);
	CHECK_EQ(strobe_lami_write_results_logs(f.a, lami_rows, &l, buf_of(&s)), 0);
	trace_seq_terminate(&s);
	CHECK_EQ(l.calls, 1);
	CHECK(strstr(s.buffer, "\"class\":\"cputop.log\",\"data\":[#]}]}") != NULL);
	/* text and JSON rows */
	trace_seq_reset(&s);
	{
		union strobe_value v[9] = { { .u = 1000 }, { .u = 500 }, { .i = 5 }, { .i = 5 },
					    { .s = "five" }, { .s = "host" }, { .i = 0 },
					    { .i = 6 }, { .s = "six" } };

		CHECK_EQ(strobe_table_write_json_row(l.t, v, buf_of(&s)), 0);
		trace_seq_terminate(&s);
		CHECK_STR(s.buffer, "{\"table\":\"cputop.log\",\"ts\":1000,\"duration\":500,"
			  "\"tid\":5,\"pid\":5,\"comm\":\"five\",\"container\":\"host\",\"cpu\":0,"
			  "\"next_tid\":6,\"next_comm\":\"six\"}\n");
		trace_seq_reset(&s);
		CHECK_EQ(strobe_table_write_text_row(l.t, v, buf_of(&s)), 0);
		trace_seq_terminate(&s);
		CHECK(strstr(s.buffer, "0.000001000         0.500") != NULL);
		CHECK(strstr(s.buffer, "  six\n") != NULL);
	}
	stop(&f);
	trace_seq_destroy(&s);
	trace_seq_destroy(&l.kept);
	tep_free(tep);
}

TESTS(T(test_cputop_log_rows_are_complete_intervals),
      T(test_cputop_log_min_max_and_task_filters),
      T(test_cputop_log_filtered_recording_traced_tasks_only),
      T(test_no_callback_without_the_log_view),
      T(test_io_log_syscalls_and_block_requests),
      T(test_io_log_min_max),
      T(test_irq_log_hard_and_soft_runs),
      T(test_irq_log_min_max_and_cpu),
      T(test_mem_log_allocs_and_frees),
      T(test_writers_for_log_rows));
