/*
 * test_expr_periods.c - the periods engine (lib/expr/periods.c) on
 * synthetic event sequences: begin/end matching with captures, the talk's
 * request example (accept4 returning an fd to close of that fd in the
 * same process), overlapping periods in two processes, nested children
 * and a child without a parent, lttng's "no END_EXPR" rule, parents that
 * end first, PID reuse, periods open at the end, lost events inside a
 * period, limits, and definition errors.
 */
#include <errno.h>
#include <stdlib.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/expr.h>

#include "analysis_fixture.h"

/* x86_64 syscall numbers */
enum { NR_CLOSE = 3, NR_NANOSLEEP = 35, NR_ACCEPT4 = 288 };

static struct strobe_formats *fmts_all(void)
{
	static const struct fixture_fmt f[] = {
		{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" },
		{ fmt_exit, "raw_syscalls" }, { fmt_fork, "sched" },
		{ fmt_irq_entry, "irq" }, { fmt_irq_exit, "irq" }, { fmt_waking, "sched" },
	};

	return strobe_formats_adopt(fixture_tep(f, sizeof(f) / sizeof(f[0])));
}

static int fake_task(void *arg, int tid, struct strobe_expr_task *t)
{
	(void)arg;
	t->pid = tid < 1000 ? tid - tid % 10 : tid;	/* 10, 11 -> process 10 */
	t->procname = tid / 10 == 1 ? "nginx" : tid / 10 == 2 ? "bash" : "other";
	t->container = tid / 10 == 1 ? "web" : "host";
	return 0;
}

/* What the callback saw, one line per period, and the engine's stats. */
struct run {
	struct strobe_periods *p;
	struct strobe_formats *fmts;
	char log[4096];
	size_t n;
	int nr;
	uint8_t d[64];
	uint64_t ts;
};

static void value_text(const struct strobe_expr_value *v, char *buf, size_t size)
{
	switch (v->type) {
	case STROBE_EXPR_VAL_INT:
		snprintf(buf, size, "%lld", (long long)v->i);
		break;
	case STROBE_EXPR_VAL_STR:
		snprintf(buf, size, "%.*s", (int)v->len, v->s);
		break;
	default:
		snprintf(buf, size, "?");
	}
}

static const char *const status_names[] = { "closed", "open", "cut", "gone" };

static void on_period(void *arg, const struct strobe_period *per)
{
	struct run *r = arg;
	char caps[256] = "";
	size_t c = 0;
	int i;

	for (i = 0; i < per->nr_begin_captures + per->nr_end_captures; i++) {
		const struct strobe_period_value *v = i < per->nr_begin_captures ?
			&per->begin_captures[i] : &per->end_captures[i - per->nr_begin_captures];
		char val[64];

		value_text(&v->v, val, sizeof(val));
		c += (size_t)snprintf(caps + c, sizeof(caps) - c, " %s=%s", v->key, val);
	}
	r->n += (size_t)snprintf(r->log + r->n, sizeof(r->log) - r->n,
				 "%s#%llu %s %llu-%llu tid=%d pid=%d %s %s%s%s%s\n",
				 per->path, (unsigned long long)per->id, status_names[per->status],
				 (unsigned long long)per->begin_ts, (unsigned long long)per->end_ts,
				 per->owner.tid, per->owner.pid,
				 per->owner.procname ? per->owner.procname : "-",
				 per->owner.container ? per->owner.container : "-",
				 per->lost ? " LOST" : "", caps,
				 per->nr_children ? "" : "");
	if (per->nr_children)
		r->n += (size_t)snprintf(r->log + r->n, sizeof(r->log) - r->n,
					 "  children=%d in %llu\n", per->nr_children,
					 (unsigned long long)per->children_ns);
	if (per->parent)
		r->n += (size_t)snprintf(r->log + r->n, sizeof(r->log) - r->n,
					 "  parent #%llu\n", (unsigned long long)per->parent->id);
	r->nr++;
}

static bool start(struct run *r, const char *const *defs, const char *const *caps)
{
	static const struct strobe_expr_env env = { fake_task, NULL };
	struct strobe_error err = { 0 };

	memset(r, 0, sizeof(*r));
	r->fmts = fmts_all();
	if (!r->fmts || strobe_periods_new(on_period, r, &r->p) < 0)
		return false;
	strobe_periods_set_env(r->p, &env);
	for (; defs && *defs; defs++)
		if (strobe_periods_define(r->p, *defs, &err) < 0) {
			fprintf(stderr, "  define: %s\n", err.msg);
			return false;
		}
	for (; caps && *caps; caps++)
		if (strobe_periods_capture(r->p, *caps, &err) < 0) {
			fprintf(stderr, "  capture: %s\n", err.msg);
			return false;
		}
	return true;
}

static void finish(struct run *r)
{
	strobe_periods_free(r->p);
	strobe_formats_free(r->fmts);
}

/* Feed the event in r->d; time advances by 100 per event. */
static void feed_ev(struct run *r, int type, int tid, int cpu, int64_t missed)
{
	struct strobe_event ev = { 0 };

	r->d[0] = (uint8_t)type;
	r->d[1] = (uint8_t)(type >> 8);
	put32(r->d + 4, (uint32_t)tid);
	r->ts += 100;
	ev.ts = r->ts;
	ev.data = r->d;
	ev.size = sizeof(r->d);
	ev.cpu = cpu;
	ev.type = type;
	ev.pid = tid;
	ev.missed = missed;
	ev.format = strobe_formats_by_id(r->fmts, type);
	CHECK_EQ(strobe_periods_feed(r->p, &ev), 0);
	memset(r->d, 0, sizeof(r->d));
}

static void sys_enter(struct run *r, int tid, long nr, uint64_t a0)
{
	put64(r->d + 8, (uint64_t)nr);
	put64(r->d + 16, a0);
	feed_ev(r, ID_ENTER, tid, 0, 0);
}

static void sys_exit(struct run *r, int tid, long nr, int64_t ret)
{
	put64(r->d + 8, (uint64_t)nr);
	put64(r->d + 16, (uint64_t)ret);
	feed_ev(r, ID_EXIT, tid, 0, 0);
}

static void fork_to(struct run *r, int parent, int child)
{
	put32(r->d + 24, (uint32_t)parent);
	put32(r->d + 44, (uint32_t)child);
	feed_ev(r, ID_FORK, parent, 0, 0);
}

static void switch_to(struct run *r, int cpu, int prev, int next)
{
	put32(r->d + 24, (uint32_t)prev);
	put32(r->d + 56, (uint32_t)next);
	feed_ev(r, ID_SWITCH, prev, cpu, 0);
}

static struct strobe_periods_stats stats(struct run *r)
{
	struct strobe_periods_stats st;

	strobe_periods_stats(r->p, &st);
	return st;
}

/* The talk's request: accept4 returning an fd, to close of that fd in the
 * same process. */
static const char *const request_defs[] = {
	"request : $evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0"
	" : $evt.$name == \"syscall_entry_close\" && $evt.fd == $begin.$evt.ret && "
	"$evt.pid == $begin.$evt.pid",
	NULL,
};
static const char *const request_caps[] = {
	"request : fd = $evt.ret, who = $evt.procname : closed = $evt.fd", NULL,
};

static struct strobe_syscall_args *close_args(void)
{
	static const char fmt_close[] = "name: sys_enter_close\nID: 800\nformat:\n" FMT_COMMON
		"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";
	struct strobe_syscall_args *t = NULL;

	if (strobe_syscall_args_new(&t) == 0 &&
	    strobe_syscall_args_add_format(t, fmt_close, strlen(fmt_close), NULL) < 0) {
		strobe_syscall_args_free(t);
		t = NULL;
	}
	return t;
}

static void test_periods_request_begins_at_accept_ends_at_close_of_that_fd(void)
{
	struct strobe_syscall_args *sa = close_args();
	struct run r;

	REQUIRE(sa && start(&r, request_defs, request_caps));
	strobe_periods_set_syscall_args(r.p, sa);
	sys_exit(&r, 11, NR_ACCEPT4, -11);	/* EAGAIN: no request (100) */
	sys_exit(&r, 11, NR_ACCEPT4, 5);	/* request on fd 5 (200) */
	sys_enter(&r, 11, NR_CLOSE, 6);		/* another fd */
	sys_enter(&r, 20, NR_CLOSE, 5);		/* another process's fd 5 */
	sys_exit(&r, 11, NR_CLOSE, 0);
	CHECK_EQ(r.nr, 0);
	sys_enter(&r, 10, NR_CLOSE, 5);		/* the same process, another thread (600) */
	CHECK_STR(r.log, "request#1 closed 200-600 tid=11 pid=10 nginx web fd=5 who=nginx "
		  "closed=5\n");
	sys_enter(&r, 10, NR_CLOSE, 5);		/* no request open any more */
	CHECK_EQ(r.nr, 1);
	CHECK_EQ(stats(&r).begun, 1);
	CHECK_EQ(stats(&r).closed, 1);
	CHECK_EQ(stats(&r).open_now, 0);
	finish(&r);
	strobe_syscall_args_free(sa);
}

/* The same requests with an end expression the engine cannot index. */
static void overlapping_requests(const char *const *defs, const char *want)
{
	struct strobe_syscall_args *sa = close_args();
	struct run r;

	REQUIRE(sa && start(&r, defs, NULL));
	strobe_periods_set_syscall_args(r.p, sa);
	sys_exit(&r, 10, NR_ACCEPT4, 5);	/* 100: nginx fd 5 */
	sys_exit(&r, 20, NR_ACCEPT4, 5);	/* 200: bash fd 5 */
	sys_exit(&r, 10, NR_ACCEPT4, 7);	/* 300: nginx fd 7 */
	sys_enter(&r, 20, NR_CLOSE, 5);		/* 400: ends bash's */
	sys_enter(&r, 11, NR_CLOSE, 7);		/* 500: ends nginx fd 7 */
	sys_enter(&r, 10, NR_CLOSE, 5);		/* 600: ends nginx fd 5 */
	strobe_periods_finish(r.p);
	CHECK_STR(r.log, want);
	CHECK_EQ(stats(&r).closed, 3);
	CHECK_EQ(stats(&r).open_at_end, 0);
	finish(&r);
	strobe_syscall_args_free(sa);
}

static void test_periods_overlap_in_two_processes_end_by_owner(void)
{
	static const char *const unindexed[] = {
		"request : $evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0"
		" : $evt.$name == \"syscall_entry_close\" && ($evt.fd == $begin.$evt.ret && "
		"$evt.pid == $begin.$evt.pid || $evt.pid == -1)",
		NULL,
	};
	const char *want = "request#2 closed 200-400 tid=20 pid=20 bash host\n"
			   "request#3 closed 300-500 tid=10 pid=10 nginx web\n"
			   "request#1 closed 100-600 tid=10 pid=10 nginx web\n";

	overlapping_requests(request_defs, want);	/* indexed by $begin.$evt.ret */
	overlapping_requests(unindexed, want);
}

static void test_periods_children_nest_under_their_parent(void)
{
	static const char *const defs[] = {
		request_defs[0],
		"sleep(request) : $evt.$name == \"syscall_entry_nanosleep\" && "
		"$evt.pid == $parent.$begin.$evt.pid : $evt.$name == \"syscall_exit_nanosleep\" "
		"&& $evt.tid == $begin.$evt.tid",
		NULL,
	};
	static const char *const caps[] = { "sleep : req_fd = $parent.$begin.$evt.ret", NULL };
	struct strobe_syscall_args *sa = close_args();
	struct run r;

	REQUIRE(sa && start(&r, defs, caps));
	strobe_periods_set_syscall_args(r.p, sa);
	/* a child without a parent does not begin */
	sys_enter(&r, 10, NR_NANOSLEEP, 0);	/* 100 */
	sys_exit(&r, 10, NR_NANOSLEEP, 0);	/* 200 */
	CHECK_EQ(stats(&r).begun, 0);
	sys_exit(&r, 10, NR_ACCEPT4, 5);	/* 300: request */
	sys_enter(&r, 20, NR_NANOSLEEP, 0);	/* 400: another process: no child */
	sys_enter(&r, 11, NR_NANOSLEEP, 0);	/* 500: sleep in the request */
	sys_exit(&r, 20, NR_NANOSLEEP, 0);	/* 600 */
	sys_exit(&r, 11, NR_NANOSLEEP, 0);	/* 700: its end */
	sys_enter(&r, 10, NR_NANOSLEEP, 0);	/* 800: a second sleep */
	sys_exit(&r, 10, NR_NANOSLEEP, 0);	/* 900 */
	sys_enter(&r, 10, NR_NANOSLEEP, 0);	/* 1000: a third, cut by the end */
	sys_enter(&r, 10, NR_CLOSE, 5);		/* 1100: the request ends */
	CHECK_STR(r.log,
		  "request/sleep#2 closed 500-700 tid=11 pid=10 nginx web req_fd=5\n"
		  "  parent #1\n"
		  "request/sleep#3 closed 800-900 tid=10 pid=10 nginx web req_fd=5\n"
		  "  parent #1\n"
		  "request/sleep#4 cut 1000-1100 tid=10 pid=10 nginx web req_fd=5\n"
		  "  parent #1\n"
		  "request#1 closed 300-1100 tid=10 pid=10 nginx web\n"
		  "  children=2 in 300\n");
	CHECK_EQ(stats(&r).cut, 1);
	CHECK_EQ(stats(&r).closed, 3);
	finish(&r);
	strobe_syscall_args_free(sa);
}

/* lttng: without END_EXPR the begin expression ends a period and begins
 * the next; README's switch and irq(switch) definitions. */
static void test_periods_lttng_switch_and_irq_examples(void)
{
	static const char *const defs[] = {
		"switch : $evt.$name == \"sched_switch\" && $evt.next_tid != 0 : "
		"$evt.$name == \"sched_switch\" && $evt.prev_tid == $begin.$evt.next_tid && "
		"$evt.cpu_id == $begin.$evt.cpu_id",
		"irq(switch) : $evt.$name == \"irq_handler_entry\" && $evt.cpu_id == "
		"$parent.$begin.$evt.cpu_id : $evt.$name == \"irq_handler_exit\" && "
		"$evt.cpu_id == $begin.$evt.cpu_id",
		"any : $evt.$name == \"sched_switch\"",
		NULL,
	};
	static const char *const caps[] = {
		"irq : irq = $evt.irq, current = $parent.$begin.$evt.next_comm", NULL,
	};
	struct run r;

	REQUIRE(start(&r, defs, caps));
	strcpy((char *)r.d + 40, "nginx");
	switch_to(&r, 1, 0, 10);		/* 100: switch #1 (and any #2) on cpu 1 */
	put32(r.d + 8, 41);
	feed_ev(&r, ID_IRQ_ENTRY, 10, 0, 0);	/* 200: cpu 0: not in a switch */
	put32(r.d + 8, 42);
	feed_ev(&r, ID_IRQ_ENTRY, 10, 1, 0);	/* 300: irq #3 */
	put32(r.d + 8, 42);
	feed_ev(&r, ID_IRQ_EXIT, 10, 1, 0);	/* 400 */
	switch_to(&r, 1, 10, 0);		/* 500: ends switch #1, any #2 */
	switch_to(&r, 1, 0, 20);		/* 600: switch #4 */
	strobe_periods_finish(r.p);
	CHECK_STR(r.log,
		  "switch/irq#3 closed 300-400 tid=10 pid=10 nginx web irq=42 current=nginx\n"
		  "  parent #1\n"
		  "any#2 closed 100-500 tid=0 pid=0 other host\n"
		  "switch#1 closed 100-500 tid=0 pid=0 other host\n"
		  "  children=1 in 100\n"
		  "any#4 closed 500-600 tid=10 pid=10 nginx web\n"
		  "switch#5 open 600-600 tid=0 pid=0 other host\n"
		  "any#6 open 600-600 tid=0 pid=0 other host\n");
	CHECK_EQ(stats(&r).open_at_end, 2);
	finish(&r);
}

static void test_periods_pid_reuse_ends_the_old_owners_periods(void)
{
	struct strobe_syscall_args *sa = close_args();
	struct run r;

	REQUIRE(sa && start(&r, request_defs, NULL));
	strobe_periods_set_syscall_args(r.p, sa);
	sys_exit(&r, 30, NR_ACCEPT4, 5);	/* 100: process 30's request */
	sys_exit(&r, 20, NR_ACCEPT4, 5);	/* 200: process 20's */
	fork_to(&r, 20, 31);			/* 300: an unrelated fork */
	CHECK_EQ(r.nr, 0);
	fork_to(&r, 20, 30);			/* 400: TID 30 reused: 30 exited */
	CHECK_STR(r.log, "request#1 gone 100-400 tid=30 pid=30 other host\n");
	sys_enter(&r, 30, NR_CLOSE, 5);		/* 500: the new 30 closes its fd 5 */
	CHECK_EQ(r.nr, 1);
	sys_enter(&r, 20, NR_CLOSE, 5);		/* 600 */
	CHECK_EQ(r.nr, 2);
	CHECK_EQ(stats(&r).owner_gone, 1);
	CHECK_EQ(stats(&r).closed, 1);
	finish(&r);
	strobe_syscall_args_free(sa);
}

static void test_periods_open_at_the_end_are_reported_apart(void)
{
	static const char *const defs[] = {
		"outer : $evt.$name == \"syscall_entry_nanosleep\" : $evt.$name == "
		"\"syscall_exit_nanosleep\" && $evt.tid == $begin.$evt.tid",
		"inner(outer) : $evt.$name == \"syscall_exit_accept4\" : $evt.$name == "
		"\"syscall_exit_close\"",
		NULL,
	};
	struct run r;

	REQUIRE(start(&r, defs, NULL));
	sys_enter(&r, 10, NR_NANOSLEEP, 0);	/* 100: outer #1 */
	sys_exit(&r, 10, NR_ACCEPT4, 3);	/* 200: inner #2 */
	sys_enter(&r, 20, NR_NANOSLEEP, 0);	/* 300: outer #3 */
	sys_exit(&r, 20, NR_NANOSLEEP, 0);	/* 400: ends #3 (cuts nothing) */
	CHECK_EQ(r.nr, 1);
	strobe_periods_finish(r.p);
	CHECK_STR(r.log, "outer#3 closed 300-400 tid=20 pid=20 bash host\n"
		  "outer/inner#2 open 200-400 tid=10 pid=10 nginx web\n"
		  "  parent #1\n"
		  "outer#1 open 100-400 tid=10 pid=10 nginx web\n");
	CHECK_EQ(stats(&r).open_at_end, 2);
	CHECK_EQ(stats(&r).closed, 1);
	CHECK_EQ(stats(&r).open_now, 0);
	finish(&r);
}

static void test_periods_lost_events_inside_mark_the_period(void)
{
	static const char *const defs[] = {
		"sleep : $evt.$name == \"syscall_entry_nanosleep\" : $evt.$name == "
		"\"syscall_exit_nanosleep\" && $evt.tid == $begin.$evt.tid",
		NULL,
	};
	struct run r;

	REQUIRE(start(&r, defs, NULL));
	sys_enter(&r, 10, NR_NANOSLEEP, 0);	/* 100: #1 */
	put64(r.d + 8, 0);
	feed_ev(&r, ID_SWITCH, 0, 1, 12);	/* 200: events lost on cpu 1 */
	put64(r.d + 8, NR_NANOSLEEP);
	feed_ev(&r, ID_ENTER, 20, 1, -1);	/* 300: #2 begins after a loss */
	sys_exit(&r, 10, NR_NANOSLEEP, 0);	/* 400: #1 ends: lost inside */
	sys_exit(&r, 20, NR_NANOSLEEP, 0);	/* 500: #2 ends: nothing lost */
	CHECK_STR(r.log, "sleep#1 closed 100-400 tid=10 pid=10 nginx web LOST\n"
		  "sleep#2 closed 300-500 tid=20 pid=20 bash host\n");
	CHECK_EQ(stats(&r).lost, 1);
	finish(&r);
}

static void test_periods_max_open_drops_and_counts(void)
{
	static const char *const defs[] = {
		"s : $evt.$name == \"syscall_entry_nanosleep\" : $evt.$name == "
		"\"syscall_exit_nanosleep\" && $evt.tid == $begin.$evt.tid",
		NULL,
	};
	struct run r;

	REQUIRE(start(&r, defs, NULL));
	strobe_periods_set_max_open(r.p, 2);
	sys_enter(&r, 10, NR_NANOSLEEP, 0);
	sys_enter(&r, 20, NR_NANOSLEEP, 0);
	sys_enter(&r, 30, NR_NANOSLEEP, 0);
	CHECK_EQ(stats(&r).begun, 2);
	CHECK_EQ(stats(&r).dropped, 1);
	CHECK_EQ(stats(&r).open_now, 2);
	sys_exit(&r, 30, NR_NANOSLEEP, 0);
	CHECK_EQ(r.nr, 0);
	finish(&r);	/* open periods are freed, not reported */
	CHECK_EQ(r.nr, 0);
}

static void test_periods_subscribe_to_what_the_definitions_name(void)
{
	struct strobe_syscall_args *sa = close_args();
	struct strobe_error err = { 0 };
	struct run r;

	REQUIRE(sa && start(&r, request_defs, NULL));
	/* without the argument table $evt.fd names nothing on raw records */
	CHECK(!strobe_periods_may_match(r.p, strobe_formats_by_id(r.fmts, ID_ENTER)));
	CHECK_EQ(strobe_periods_error(r.p, &err), -ENOENT);
	CHECK_STR(err.msg, "period 'request': $evt.fd on raw_syscalls:sys_enter records needs "
		  "the syscall argument table (the file has none and the syscalls:sys_enter_* "
		  "formats are not available)");
	strobe_periods_set_syscall_args(r.p, sa);
	CHECK_EQ(strobe_periods_error(r.p, NULL), 0);
	CHECK(strobe_periods_may_match(r.p, strobe_formats_by_id(r.fmts, ID_ENTER)));
	CHECK(strobe_periods_may_match(r.p, strobe_formats_by_id(r.fmts, ID_EXIT)));
	CHECK(strobe_periods_may_match(r.p, strobe_formats_by_id(r.fmts, ID_FORK)));	/* PID reuse */
	CHECK(!strobe_periods_may_match(r.p, strobe_formats_by_id(r.fmts, ID_SWITCH)));
	CHECK(!strobe_periods_may_match(r.p, strobe_formats_by_id(r.fmts, ID_IRQ_ENTRY)));
	CHECK(!strobe_periods_may_match(r.p, NULL));
	finish(&r);
	strobe_syscall_args_free(sa);
}

static void test_periods_definition_errors(void)
{
	struct strobe_periods *p = NULL;
	struct strobe_error err = { 0 };
	struct strobe_event ev = { 0 };

	REQUIRE(strobe_periods_new(NULL, NULL, &p) == 0);
	CHECK_EQ(strobe_periods_define(p, "c(a) : $evt.x == 1", &err), -EINVAL);
	CHECK_STR(err.msg, "period 'c': no period 'a' defined before it to be its parent");
	CHECK_EQ(strobe_periods_define(p, "a : $evt.x == 1", &err), 0);
	CHECK_EQ(strobe_periods_define(p, "a : $evt.x == 2", &err), -EINVAL);
	CHECK_STR(err.msg, "period 'a' is defined twice");
	CHECK_EQ(strobe_periods_define(p, "c(a) : $evt.x == 1 : $parent.$begin.$evt.x == 1",
				       &err), 1);
	CHECK_EQ(strobe_periods_define(p, ": $evt.y == 1", &err), 2);	/* unnamed */
	CHECK_EQ(strobe_periods_define(p, ": $evt.y == 1", &err), 3);	/* unnamed too */
	CHECK_EQ(strobe_periods_define(p, "d : $evt.x ==", &err), -EINVAL);
	CHECK_STR(err.msg, "column 14: expected a value ($evt reference, number, duration or "
		  "string), found end of text");
	CHECK_EQ(strobe_periods_capture(p, "zz : k = $evt.x", &err), -EINVAL);
	CHECK_STR(err.msg, "captures for 'zz': no such period is defined");
	CHECK_EQ(strobe_periods_capture(p, "a : k = $parent.$begin.$evt.x", &err), -EINVAL);
	CHECK_STR(err.msg, "captures for 'a': k needs a period with a parent");
	CHECK_EQ(strobe_periods_capture(p, "a : k = $evt.x", &err), 0);
	CHECK_EQ(strobe_periods_capture(p, "a : k = $evt.y", &err), -EINVAL);
	CHECK_STR(err.msg, "period 'a': capture 'k' given twice");
	CHECK_EQ(strobe_periods_capture(p, "a : : k = $evt.y", &err), 0);	/* end side */
	CHECK_EQ(strobe_periods_capture(p, "c : p = $parent.$begin.$evt.x", &err), 0);
	CHECK_EQ(strobe_periods_nr_defs(p), 4);
	ev.pid = 1;
	CHECK_EQ(strobe_periods_feed(p, &ev), 0);
	CHECK_EQ(strobe_periods_define(p, "e : $evt.x == 1", &err), -EBUSY);
	CHECK_EQ(strobe_periods_capture(p, "a : z = $evt.x", &err), -EBUSY);
	strobe_periods_free(p);
	strobe_periods_free(NULL);
}

TESTS(T(test_periods_request_begins_at_accept_ends_at_close_of_that_fd),
      T(test_periods_overlap_in_two_processes_end_by_owner),
      T(test_periods_children_nest_under_their_parent),
      T(test_periods_lttng_switch_and_irq_examples),
      T(test_periods_pid_reuse_ends_the_old_owners_periods),
      T(test_periods_open_at_the_end_are_reported_apart),
      T(test_periods_lost_events_inside_mark_the_period),
      T(test_periods_max_open_drops_and_counts),
      T(test_periods_subscribe_to_what_the_definitions_name),
      T(test_periods_definition_errors));
