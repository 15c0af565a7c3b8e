/*
 * test_analysis_periods.c - the periods analysis (lib/analyses/periods.c)
 * through the public analysis API, on synthetic event sequences: the
 * request example's rows (owner, begin, end, duration, captures), nested
 * children and the parent's breakdown, a child without a parent,
 * overlapping periods in two processes, PID reuse, periods open at the
 * end kept apart, lost events inside a period (on an event type the
 * periods do not read), grouping by a capture key, --aggregate-by,
 * --min, --tid, time going backwards, one pass with syscalls, and a bad --period.
 */
#include <errno.h>
#include <stdlib.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "analysis_fixture.h"

/* x86_64 syscall numbers */
enum { NR_CLOSE = 3, NR_NANOSLEEP = 35, NR_ACCEPT4 = 288 };

/* syscalls:sys_enter_close, only for its argument names (raw_syscalls
 * records are fed) */
static const char fmt_close[] = "name: sys_enter_close\nID: 800\nformat:\n" FMT_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";

static const char *const REQ =
	"req : $evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0 : "
	"$evt.$name == \"syscall_entry_close\" && $evt.fd == $begin.$evt.ret && "
	"$evt.tid == $begin.$evt.tid";
static const char *const SLEEP =
	"sleep(req) : $evt.$name == \"syscall_entry_nanosleep\" && "
	"$evt.tid == $parent.$begin.$evt.tid : "
	"$evt.$name == \"syscall_exit_nanosleep\" && $evt.tid == $begin.$evt.tid";
static const char *const CAPS = "req : fd = $evt.ret, who = $evt.procname : closed = $evt.fd";

/* Log rows received, as text "table name status begin-end dur tid ..." */
struct logged {
	char text[8192];
	size_t n;
	int rows;
};

static void on_log(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct logged *l = arg;
	int i;

	l->rows++;
	l->n += (size_t)snprintf(l->text + l->n, sizeof(l->text) - l->n, "%s", strobe_table_name(t));
	for (i = 0; i < strobe_table_nr_columns(t); i++) {
		const struct strobe_column *c = strobe_table_column(t, i);

		if (c->type == STROBE_COL_STR)
			l->n += (size_t)snprintf(l->text + l->n, sizeof(l->text) - l->n, " %s=%s",
						 c->key, row[i].s);
		else if (c->type == STROBE_COL_INT)
			l->n += (size_t)snprintf(l->text + l->n, sizeof(l->text) - l->n, " %s=%lld",
						 c->key, (long long)row[i].i);
		else if (c->type != STROBE_COL_PERCENT)
			l->n += (size_t)snprintf(l->text + l->n, sizeof(l->text) - l->n, " %s=%llu",
						 c->key, (unsigned long long)row[i].u);
	}
	l->n += (size_t)snprintf(l->text + l->n, sizeof(l->text) - l->n, "\n");
}

struct setup {
	const char *names;
	const char *periods[4];
	const char *captures[4];
	unsigned views;
	const char *group_by, *aggregate_by;
	uint64_t min_ns;
	const int *tids;
	int nr_tids;
};

static bool start(struct feeder *f, struct logged *l, const struct setup *s)
{
	static const struct fixture_fmt fm[] = {
		{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" },
		{ fmt_exit, "raw_syscalls" }, { fmt_fork, "sched" }, { fmt_waking, "sched" },
		{ fmt_close, "syscalls" },
	};
	struct strobe_analysis_opts o = { 0 };
	struct strobe_error err = { 0 };
	int n;

	memset(f, 0, sizeof(*f));
	memset(l, 0, sizeof(*l));
	for (n = 0; n < 4 && s->periods[n]; n++)
		;
	o.periods = s->periods;
	o.nr_periods = n;
	for (n = 0; n < 4 && s->captures[n]; n++)
		;
	o.period_captures = s->captures;
	o.nr_period_captures = n;
	o.views = s->views ? s->views : STROBE_VIEW_TOP | STROBE_VIEW_STATS | STROBE_VIEW_LOG;
	o.period_group_by = s->group_by;
	o.aggregate_by = s->aggregate_by;
	o.min_ns = s->min_ns;
	o.tids = s->tids;
	o.nr_tids = s->nr_tids;
	o.log = on_log;
	o.log_arg = l;
	f->tep = fixture_tep(fm, sizeof(fm) / sizeof(fm[0]));
	if (!f->tep)
		return false;
	if (strobe_analysis_new(s->names ? s->names : "periods", &o, &f->a, &err) < 0 ||
	    strobe_analysis_attach(f->a, fixture_fmts(f), NULL, &err) < 0) {
		fprintf(stderr, "  %s\n", err.msg);
		return false;
	}
	return true;
}

static void sys_enter(struct feeder *f, int tid, uint64_t ts, long nr, uint64_t a0)
{
	put64(f->d + 8, (uint64_t)nr);
	put64(f->d + 16, a0);
	feed(f, ID_ENTER, tid, 0, ts, 0);
}

static void sys_exit(struct feeder *f, int tid, uint64_t ts, long nr, int64_t ret)
{
	put64(f->d + 8, (uint64_t)nr);
	put64(f->d + 16, (uint64_t)ret);
	feed(f, ID_EXIT, tid, 0, ts, 0);
}

/* A request of tid on fd from t0 to t1, with a nanosleep [s0, s1] inside
 * when s0. */
static void request(struct feeder *f, int tid, int fd, uint64_t t0, uint64_t s0, uint64_t s1,
		    uint64_t t1)
{
	sys_exit(f, tid, t0, NR_ACCEPT4, fd);
	if (s0) {
		sys_enter(f, tid, s0, NR_NANOSLEEP, 0);
		sys_exit(f, tid, s1, NR_NANOSLEEP, 0);
	}
	sys_enter(f, tid, t1, NR_CLOSE, (uint64_t)fd);
}

static bool finished(struct feeder *f)
{
	struct strobe_error err = { 0 };

	return strobe_analysis_finish(f->a, &err) == 0;
}

/* Cell (row r, column key) of table name: integer or string. */
static long long cell(struct feeder *f, const char *name, size_t r, const char *key)
{
	const struct strobe_table *t = table(f->a, name);
	int c = t ? col(t, key) : -1;

	if (c < 0 || r >= strobe_table_nr_rows(t))
		return -999;
	return strobe_table_row(t, r)[c].i;
}

static const char *cells(struct feeder *f, const char *name, size_t r, const char *key)
{
	const struct strobe_table *t = table(f->a, name);
	int c = t ? col(t, key) : -1;

	if (c < 0 || r >= strobe_table_nr_rows(t))
		return "(none)";
	return strobe_table_row(t, r)[c].s;
}

static long long rows(struct feeder *f, const char *name)
{
	const struct strobe_table *t = table(f->a, name);

	return t ? (long long)strobe_table_nr_rows(t) : -1;
}

static bool has_note(struct feeder *f, const char *part)
{
	int i;

	for (i = 0; i < strobe_analysis_nr_notes(f->a); i++)
		if (strstr(strobe_analysis_note(f->a, i), part))
			return true;
	return false;
}

static void test_periods_request_row_has_owner_begin_end_duration_and_captures(void)
{
	struct setup s = { .periods = { REQ }, .captures = { CAPS } };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	fork_ev(&f, 1, 0, 100, 11);			/* tid 11 is "nginx" */
	sched_switch(&f, 0, 150, 1, 1, 11);
	sys_exit(&f, 11, 200, NR_ACCEPT4, -11);	/* EAGAIN: no request */
	sys_exit(&f, 11, 1000, NR_ACCEPT4, 5);
	sys_enter(&f, 11, 1500, NR_CLOSE, 6);		/* another fd */
	sys_enter(&f, 12, 1600, NR_CLOSE, 5);		/* another thread */
	sys_enter(&f, 11, 4000, NR_CLOSE, 5);
	REQUIRE(finished(&f));
	CHECK_EQ(l.rows, 1);
	CHECK(strstr(l.text, "periods.log begin=1000 end=4000 duration=3000 name=req id=1 "
		     "parent_id=0 tid=11 pid=") != NULL);
	CHECK(strstr(l.text, "status=closed begin_captures=fd = 5, who = ") != NULL);
	CHECK(strstr(l.text, "end_captures=closed = 5\n") != NULL);
	CHECK_EQ(rows(&f, "periods.stats"), 1);
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 1);
	CHECK_EQ(cell(&f, "periods.stats", 0, "max"), 3000);
	CHECK_EQ(cell(&f, "periods.top", 0, "duration"), 3000);
	CHECK_EQ(cell(&f, "periods.top", 0, "tid"), 11);
	CHECK_EQ(rows(&f, "periods.open"), -1);	/* none: left out */
	stop(&f);
}

static void test_periods_children_nest_and_the_parent_breaks_down_into_them(void)
{
	struct setup s = { .periods = { REQ, SLEEP } };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	request(&f, 11, 5, 1000, 1100, 1700, 2000);	/* 1000 long, 600 asleep */
	request(&f, 11, 5, 3000, 3500, 5500, 6000);	/* 3000 long, 2000 asleep */
	sys_enter(&f, 11, 7000, NR_NANOSLEEP, 0);	/* a sleep outside a request */
	sys_exit(&f, 11, 7100, NR_NANOSLEEP, 0);
	REQUIRE(finished(&f));
	/* children end first; each names its parent */
	CHECK(strstr(l.text, "periods.log begin=1100 end=1700 duration=600 name=req/sleep id=2 "
		     "parent_id=1 ") != NULL);
	CHECK(strstr(l.text, "periods.log begin=1000 end=2000 duration=1000 name=req id=1 "
		     "parent_id=0 ") != NULL);
	CHECK(strstr(l.text, "children=600 status=closed") != NULL);
	CHECK_EQ(l.rows, 4);	/* no sleep period without a request */
	CHECK_STR(cells(&f, "periods.stats", 0, "name"), "req");
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 2);
	CHECK_EQ(cell(&f, "periods.stats", 0, "total"), 4000);
	CHECK_EQ(cell(&f, "periods.stats", 0, "children"), 2600);
	CHECK_EQ(cell(&f, "periods.stats", 0, "self"), 1400);
	CHECK_STR(cells(&f, "periods.stats", 1, "name"), "req/sleep");
	CHECK_EQ(cell(&f, "periods.stats", 1, "count"), 2);
	/* breakdown: the sleeps, then the rest */
	CHECK_EQ(rows(&f, "periods.breakdown"), 2);
	CHECK_STR(cells(&f, "periods.breakdown", 0, "child"), "req/sleep");
	CHECK_EQ(cell(&f, "periods.breakdown", 0, "parents"), 2);
	CHECK_EQ(cell(&f, "periods.breakdown", 0, "total"), 2600);
	CHECK_STR(cells(&f, "periods.breakdown", 1, "child"), "(self)");
	CHECK_EQ(cell(&f, "periods.breakdown", 1, "total"), 1400);
	CHECK_EQ(cell(&f, "periods.breakdown", 1, "min"), 400);
	CHECK_EQ(cell(&f, "periods.breakdown", 1, "max"), 1000);
	stop(&f);
}

static void test_periods_overlapping_requests_of_two_processes_stay_apart(void)
{
	struct setup s = { .periods = { REQ }, .group_by = "process" };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	fork_ev(&f, 1, 0, 10, 10);
	fork_ev(&f, 1, 0, 20, 20);
	sys_exit(&f, 10, 1000, NR_ACCEPT4, 5);
	sys_exit(&f, 20, 1100, NR_ACCEPT4, 5);		/* the same fd number */
	sys_exit(&f, 10, 1200, NR_ACCEPT4, 7);
	sys_enter(&f, 20, 1300, NR_CLOSE, 5);		/* 200 */
	sys_enter(&f, 10, 1500, NR_CLOSE, 7);		/* 300 */
	sys_enter(&f, 10, 2000, NR_CLOSE, 5);		/* 1000 */
	REQUIRE(finished(&f));
	CHECK_EQ(l.rows, 3);
	CHECK(strstr(l.text, "begin=1100 end=1300 duration=200 name=req id=2 parent_id=0 "
		     "tid=20 ") != NULL);
	CHECK(strstr(l.text, "begin=1200 end=1500 duration=300 name=req id=3 parent_id=0 "
		     "tid=10 ") != NULL);
	CHECK(strstr(l.text, "begin=1000 end=2000 duration=1000 name=req id=1 parent_id=0 "
		     "tid=10 ") != NULL);
	CHECK_EQ(rows(&f, "periods.stats"), 2);
	/* ranked by total time: process 10 (1300) first */
	CHECK_EQ(cell(&f, "periods.stats", 0, "pid"), 10);
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 2);
	CHECK_EQ(cell(&f, "periods.stats", 0, "total"), 1300);
	CHECK_EQ(cell(&f, "periods.stats", 1, "pid"), 20);
	CHECK_EQ(cell(&f, "periods.stats", 1, "total"), 200);
	stop(&f);
}

static void test_periods_pid_reuse_ends_the_old_owners_period_outside_the_stats(void)
{
	struct setup s = { .periods = { REQ } };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	sys_exit(&f, 30, 1000, NR_ACCEPT4, 5);		/* tid 30 exits unseen ... */
	fork_ev(&f, 1, 0, 2000, 30);			/* ... and 30 is a new task */
	sys_enter(&f, 30, 2500, NR_CLOSE, 5);		/* not the old request's end */
	REQUIRE(finished(&f));
	CHECK_EQ(l.rows, 1);
	CHECK(strstr(l.text, "begin=1000 end=2000 duration=1000 name=req id=1 ") != NULL);
	CHECK(strstr(l.text, "status=pid-reused") != NULL);
	CHECK_EQ(rows(&f, "periods.stats"), 0);
	CHECK_EQ(rows(&f, "periods.top"), 0);
	CHECK(has_note(&f, "1 periods ended because their thread's TID went to a new task"));
	stop(&f);
}

static void test_periods_open_at_the_end_are_reported_apart(void)
{
	struct setup s = { .periods = { REQ, SLEEP } };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	request(&f, 11, 5, 1000, 0, 0, 2000);		/* closed */
	sys_exit(&f, 12, 3000, NR_ACCEPT4, 6);		/* never closed */
	sys_enter(&f, 12, 3500, NR_NANOSLEEP, 0);	/* its sleep, still on */
	sys_enter(&f, 11, 5000, NR_CLOSE, 9);		/* the last event */
	REQUIRE(finished(&f));
	CHECK_EQ(l.rows, 1);				/* the log has the closed one */
	CHECK_EQ(rows(&f, "periods.open"), 2);
	/* longest first; open until the last event */
	CHECK_STR(cells(&f, "periods.open", 0, "name"), "req");
	CHECK_EQ(cell(&f, "periods.open", 0, "begin"), 3000);
	CHECK_EQ(cell(&f, "periods.open", 0, "end"), 5000);
	CHECK_STR(cells(&f, "periods.open", 0, "status"), "open");
	CHECK_STR(cells(&f, "periods.open", 1, "name"), "req/sleep");
	CHECK_EQ(cell(&f, "periods.open", 1, "parent_id"), cell(&f, "periods.open", 0, "id"));
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 1);	/* never mixed */
	CHECK_EQ(cell(&f, "periods.stats", 0, "max"), 1000);
	CHECK_EQ(rows(&f, "periods.top"), 1);
	CHECK(has_note(&f, "2 periods still open at the end"));
	stop(&f);
}

static void test_periods_lost_events_inside_mark_the_period_and_keep_it_out(void)
{
	struct setup s = { .periods = { REQ } };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	request(&f, 11, 5, 1000, 0, 0, 2000);		/* clean */
	sys_exit(&f, 11, 3000, NR_ACCEPT4, 5);
	/* a gap on an event the periods do not read */
	put32(f.d + 24, 0);
	put32(f.d + 56, 11);
	feed(&f, ID_SWITCH, 0, 1, 3500, 12);
	sys_enter(&f, 11, 4000, NR_CLOSE, 5);
	request(&f, 11, 5, 5000, 0, 0, 5500);		/* after the gap: clean */
	REQUIRE(finished(&f));
	CHECK_EQ(l.rows, 3);
	CHECK(strstr(l.text, "begin=3000 end=4000 duration=1000 name=req id=2 ") != NULL);
	CHECK(strstr(l.text, "status=lost") != NULL);
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 2);
	CHECK_EQ(cell(&f, "periods.stats", 0, "total"), 1500);
	CHECK_EQ(strobe_table_dropped(table(f.a, "periods.stats")), 1);
	stop(&f);
}

static void test_periods_group_by_a_capture_key(void)
{
	struct setup s = { .periods = { REQ }, .captures = { "req : fd = $evt.ret" },
			   .group_by = "fd" };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	request(&f, 11, 5, 1000, 0, 0, 1100);
	request(&f, 11, 5, 2000, 0, 0, 2300);
	request(&f, 11, 7, 3000, 0, 0, 4000);
	REQUIRE(finished(&f));
	CHECK_EQ(rows(&f, "periods.stats"), 2);
	CHECK_STR(cells(&f, "periods.stats", 0, "fd"), "7");
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 1);
	CHECK_STR(cells(&f, "periods.stats", 1, "fd"), "5");
	CHECK_EQ(cell(&f, "periods.stats", 1, "count"), 2);
	CHECK_EQ(cell(&f, "periods.stats", 1, "total"), 400);
	stop(&f);
}

static void test_periods_aggregate_by_gives_children_stats_per_parent(void)
{
	struct setup s = { .periods = { REQ, SLEEP }, .captures = { "req : fd = $evt.ret" },
			   .aggregate_by = "req" };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	sys_exit(&f, 11, 1000, NR_ACCEPT4, 5);
	sys_enter(&f, 11, 1100, NR_NANOSLEEP, 0);
	sys_exit(&f, 11, 1200, NR_NANOSLEEP, 0);	/* 100 */
	sys_enter(&f, 11, 1300, NR_NANOSLEEP, 0);
	sys_exit(&f, 11, 1600, NR_NANOSLEEP, 0);	/* 300 */
	sys_enter(&f, 11, 2000, NR_CLOSE, 5);
	REQUIRE(finished(&f));
	CHECK_EQ(l.rows, 1);
	CHECK_STR(l.text, "periods.aggregated parent_begin=1000 parent_end=2000 "
		  "parent_duration=1000 parent=req parent_id=1 tid=11 container=unknown "
		  "child=req/sleep count=2 total=400 min=100 avg=200 max=300 stddev=141 "
		  "parent_captures=fd = 5\n");
	stop(&f);
}

static void test_periods_min_keeps_longer_periods_only(void)
{
	struct setup s = { .periods = { REQ }, .min_ns = 500 };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	request(&f, 11, 5, 1000, 0, 0, 1100);
	request(&f, 11, 5, 2000, 0, 0, 2600);
	REQUIRE(finished(&f));
	CHECK_EQ(l.rows, 1);
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 1);
	CHECK_EQ(cell(&f, "periods.stats", 0, "min"), 600);
	stop(&f);
}

static void test_periods_task_filter_keeps_the_owners_periods_only(void)
{
	static const int tids[] = { 20 };
	struct setup s = { .periods = { REQ }, .tids = tids, .nr_tids = 1 };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	request(&f, 10, 5, 1000, 0, 0, 1100);
	request(&f, 20, 5, 2000, 0, 0, 2300);
	request(&f, 20, 6, 3000, 0, 0, 3500);
	REQUIRE(finished(&f));
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 2);
	CHECK_EQ(cell(&f, "periods.stats", 0, "total"), 800);
	stop(&f);
}

static void test_periods_ending_before_they_begin_stay_out_of_the_stats(void)
{
	struct setup s = { .periods = { REQ, SLEEP } };
	struct feeder f;
	struct logged l;

	REQUIRE(start(&f, &l, &s));
	request(&f, 11, 5, 1000, 0, 0, 1500);
	/* a damaged file: time goes backwards inside a request */
	request(&f, 11, 5, 5000, 5100, 4000, 3000);
	REQUIRE(finished(&f));
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 1);
	CHECK_EQ(cell(&f, "periods.stats", 0, "total"), 500);
	CHECK_EQ(cell(&f, "periods.stats", 0, "children"), 0);
	CHECK(has_note(&f, "2 periods end before they begin"));
	stop(&f);
}

static void test_periods_run_in_one_pass_with_syscalls(void)
{
	struct setup s = { .names = "periods,syscalls", .periods = { REQ, SLEEP },
			   .views = STROBE_VIEW_STATS };
	struct feeder f;
	struct logged l;
	const struct strobe_table *t;
	size_t r;
	int c, k, sleeps = 0;

	REQUIRE(start(&f, &l, &s));
	request(&f, 11, 5, 1000, 1100, 1700, 2000);
	sys_enter(&f, 11, 2500, NR_ACCEPT4, 0);
	sys_exit(&f, 11, 3000, NR_ACCEPT4, 5);
	sys_enter(&f, 11, 3100, NR_NANOSLEEP, 0);
	sys_exit(&f, 11, 3400, NR_NANOSLEEP, 0);
	sys_enter(&f, 11, 3500, NR_CLOSE, 5);
	REQUIRE(finished(&f));
	CHECK_EQ(cell(&f, "periods.stats", 0, "count"), 2);
	CHECK_EQ(cell(&f, "periods.stats", 1, "count"), 2);
	t = table(f.a, "syscalls.stats");
	REQUIRE(t);
	c = col(t, "syscall");
	k = col(t, "count");
	for (r = 0; r < strobe_table_nr_rows(t); r++)
		if (!strcmp(strobe_table_row(t, r)[c].s, "nanosleep"))
			sleeps = (int)strobe_table_row(t, r)[k].i;
	CHECK_EQ(sleeps, 2);
	stop(&f);
}

static void test_periods_bad_definition_names_the_column(void)
{
	const char *defs[] = { "req : $evt.$name == && 1" };
	struct strobe_analysis_opts o = { .periods = defs, .nr_periods = 1 };
	struct strobe_analysis *a = NULL;
	struct strobe_error err = { 0 };

	CHECK_EQ(strobe_analysis_new("periods", &o, &a, &err), -EINVAL);
	CHECK(a == NULL);
	CHECK(strstr(err.msg, "column 21") != NULL);
	defs[0] = "child(nosuch) : $evt.$name == \"x\"";
	CHECK_EQ(strobe_analysis_new("periods", &o, &a, &err), -EINVAL);
	CHECK(strstr(err.msg, "nosuch") != NULL);
	defs[0] = REQ;
	o.period_group_by = "fd";	/* not a capture */
	CHECK_EQ(strobe_analysis_new("periods", &o, &a, &err), -EINVAL);
	CHECK(strstr(err.msg, "--group-by 'fd'") != NULL);
	o.period_group_by = NULL;
	o.nr_periods = 0;
	o.aggregate_by = "req";
	CHECK_EQ(strobe_analysis_new("periods", &o, &a, &err), -EINVAL);
	CHECK(strstr(err.msg, "--aggregate-by 'req'") != NULL);
}

TESTS(T(test_periods_request_row_has_owner_begin_end_duration_and_captures),
      T(test_periods_children_nest_and_the_parent_breaks_down_into_them),
      T(test_periods_overlapping_requests_of_two_processes_stay_apart),
      T(test_periods_pid_reuse_ends_the_old_owners_period_outside_the_stats),
      T(test_periods_open_at_the_end_are_reported_apart),
      T(test_periods_lost_events_inside_mark_the_period_and_keep_it_out),
      T(test_periods_group_by_a_capture_key),
      T(test_periods_aggregate_by_gives_children_stats_per_parent),
      T(test_periods_min_keeps_longer_periods_only),
      T(test_periods_task_filter_keeps_the_owners_periods_only),
      T(test_periods_ending_before_they_begin_stay_out_of_the_stats),
      T(test_periods_run_in_one_pass_with_syscalls),
      T(test_periods_bad_definition_names_the_column));
