/*
 * test_expr.c - the expression language (lib/expr): parse/print round
 * trips of lttng-analyses' documented examples, precedence, errors with
 * their columns, period and capture definitions, and evaluation on
 * synthetic events (ftrace formats as a 6.x kernel prints them): LTTng
 * names on ftrace events, raw_syscalls argument names through the
 * syscall argument table, scopes, missing fields, numbers and durations.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/expr.h>

#include "analysis_fixture.h"

/* ---- fixtures ------------------------------------------------------------ */

enum { ID_CLOSE = 800, ID_X_ACCEPT4 = 801, ID_OPENAT = 802, ID_PROBE = 900 };

static const char fmt_close[] = "name: sys_enter_close\nID: 800\nformat:\n" FMT_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";
static const char fmt_x_accept4[] = "name: sys_exit_accept4\nID: 801\nformat:\n" FMT_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"0x%lx\", REC->ret\n";
static const char fmt_openat[] = "name: sys_enter_openat\nID: 802\nformat:\n" FMT_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))\n";
static const char fmt_read[] = "name: sys_enter_read\nID: 842\nformat:\n" FMT_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";
/* a made-up event with fields of every kind */
static const char fmt_probe[] = "name: probe\nID: 900\nformat:\n" FMT_COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int y;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int z;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long big;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:char s[16];\toffset:32;\tsize:16;\tsigned:0;\n"
	"\tfield:char t[16];\toffset:48;\tsize:16;\tsigned:0;\n\n"
	"print fmt: \"x=%d\", REC->x\n";

static struct strobe_formats *fmts_all(void)
{
	static const struct fixture_fmt f[] = {
		{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" },
		{ fmt_exit, "raw_syscalls" }, { fmt_waking, "sched" },
		{ fmt_irq_entry, "irq" }, { fmt_irq_exit, "irq" }, { fmt_fork, "sched" },
		{ fmt_close, "syscalls" }, { fmt_x_accept4, "syscalls" },
		{ fmt_openat, "syscalls" }, { fmt_probe, "test" },
	};

	return strobe_formats_adopt(fixture_tep(f, sizeof(f) / sizeof(f[0])));
}

/* One synthetic event: payload in d, common fields set by mk(). */
struct evb {
	uint8_t d[128];
	struct strobe_event ev;
};

static struct strobe_event *mk(struct evb *b, struct strobe_formats *fmts, int type, int pid)
{
	b->d[0] = (uint8_t)type;
	b->d[1] = (uint8_t)(type >> 8);
	put32(b->d + 4, (uint32_t)pid);
	memset(&b->ev, 0, sizeof(b->ev));
	b->ev.data = b->d;
	b->ev.size = sizeof(b->d);
	b->ev.type = type;
	b->ev.pid = pid;
	b->ev.cpu = 1;
	b->ev.ts = 1000;
	b->ev.format = strobe_formats_by_id(fmts, type);
	return &b->ev;
}

static struct strobe_event *ev_switch(struct evb *b, struct strobe_formats *fmts, int prev,
				      const char *prev_comm, int next, const char *next_comm)
{
	memset(b->d, 0, sizeof(b->d));
	strncpy((char *)b->d + 8, prev_comm, 15);
	put32(b->d + 24, (uint32_t)prev);
	strncpy((char *)b->d + 40, next_comm, 15);
	put32(b->d + 56, (uint32_t)next);
	return mk(b, fmts, ID_SWITCH, prev);
}

static struct strobe_event *ev_raw(struct evb *b, struct strobe_formats *fmts, bool enter, int pid,
				   long nr, uint64_t a0, uint64_t a1)
{
	memset(b->d, 0, sizeof(b->d));
	put64(b->d + 8, (uint64_t)nr);
	put64(b->d + 16, a0);	/* args[0], or ret */
	if (enter)
		put64(b->d + 24, a1);
	return mk(b, fmts, enter ? ID_ENTER : ID_EXIT, pid);
}

static struct strobe_event *ev_probe(struct evb *b, struct strobe_formats *fmts, int x, int y, int z)
{
	memset(b->d, 0, sizeof(b->d));
	put32(b->d + 8, (uint32_t)x);
	put32(b->d + 12, (uint32_t)y);
	put32(b->d + 16, (uint32_t)z);
	return mk(b, fmts, ID_PROBE, 77);
}

/* A caller-supplied context: tasks 10 (nginx in container "web") and 20. */
static int fake_task(void *arg, int tid, struct strobe_expr_task *t)
{
	(void)arg;
	if (tid == 10 || tid == 11) {
		t->pid = 10;
		t->ppid = 1;
		t->vtid = tid - 9;
		t->vpid = 1;
		t->procname = "nginx";
		t->container = "web";
		return 0;
	}
	if (tid == 20) {
		t->pid = 20;
		t->procname = "bash";
		t->container = "host";
		return 0;
	}
	return -ENOENT;
}

static const struct strobe_expr_env fake_env = { fake_task, NULL };

/* Parse text (flags) and evaluate it on ev; -1 when it does not parse. */
static int eval1(const char *text, unsigned flags, const struct strobe_event *ev,
		 const struct strobe_syscall_args *sa)
{
	struct strobe_expr *e = NULL;
	struct strobe_error err = { 0 };
	int r;

	if (strobe_expr_parse(text, flags, &e, &err) < 0) {
		fprintf(stderr, "  parse '%s': %s\n", text, err.msg);
		return -1;
	}
	strobe_expr_set_syscall_args(e, sa);
	r = strobe_expr_match_event(e, &fake_env, ev);
	/* a second evaluation goes through the per-type cache */
	if (strobe_expr_match_event(e, &fake_env, ev) != r)
		r = -2;
	strobe_expr_free(e);
	return r;
}

/* ---- parse and print -------------------------------------------------------- */

/*
 * lttng-analyses' documented matching expressions (README.rst, "Period
 * options", "Matching expression" and "Examples"), each with the
 * canonical text strobe prints.
 */
static const struct {
	const char *in, *out;
} round_trips[] = {
	{ "$evt.$name == \"sched_switch\"", NULL },
	{ "$evt.$name == \"sched_switch\" &&\n        $evt.next_tid != 0",
	  "$evt.$name == \"sched_switch\" && $evt.next_tid != 0" },
	{ "$evt.$name == \"sched_switch\" &&\n        $evt.prev_tid == $begin.$evt.next_tid &&\n"
	  "        $evt.cpu_id == $begin.$evt.cpu_id",
	  "$evt.$name == \"sched_switch\" && $evt.prev_tid == $begin.$evt.next_tid && "
	  "$evt.cpu_id == $begin.$evt.cpu_id" },
	{ "$evt.$name =* \"irq_*_entry\" &&\n        $evt.cpu_id == $parent.$begin.$evt.cpu_id",
	  "$evt.$name =* \"irq_*_entry\" && $evt.cpu_id == $parent.$begin.$evt.cpu_id" },
	{ "$evt.$name =* \"hello*\" &&\n        $evt.$name != \"hello world\"",
	  "$evt.$name =* \"hello*\" && $evt.$name != \"hello world\"" },
	{ "$evt.$name == $begin.$evt.$name &&\n        $evt.$header.theid <= 231",
	  "$evt.$name == $begin.$evt.$name && $evt.$header.theid <= 231" },
	{ "$evt.$name == \"sched_switch\" && $evt.next_tid == $begin.$evt.$payload.tid", NULL },
	/* the VALUE examples */
	{ "$evt.x == 23", NULL },
	{ "$evt.x == -18.28", NULL },
	{ "$evt.x == 7.2e9", NULL },
	{ "$evt.s == \"hello, world!\"", NULL },
	{ "$evt.s == \"here's another \\\"quoted\\\" string\"", NULL },
	/* every scope and operator */
	{ "$evt.$payload.a < 1 || $evt.$ctx.b <= 2 || $evt.$stream_ctx.c > 3 || "
	  "$evt.$pkt_ctx.d >= 4 || $evt.$pkt_header.e != 5", NULL },
	/* precedence: && binds tighter than ||, ! tightest */
	{ "$evt.a == 1 || $evt.b == 2 && $evt.c == 3", NULL },
	{ "($evt.a == 1 || $evt.b == 2) && $evt.c == 3", NULL },
	{ "(($evt.a == 1))", "$evt.a == 1" },
	{ "($evt.a == 1 && $evt.b == 2) || $evt.c == 3", "$evt.a == 1 && $evt.b == 2 || $evt.c == 3" },
	{ "!$evt.a == 1 && $evt.b == 2", "!($evt.a == 1) && $evt.b == 2" },
	{ "!($evt.a == 1 && $evt.b == 2)", NULL },
	{ "!!$evt.a == 1", "!!($evt.a == 1)" },
	/* strobe's own: durations, hexadecimal, container */
	{ "$evt.delay > 10ms && $evt.d < 1.5s || $evt.e >= 200us", NULL },
	{ "$evt.flags == 0x80 && $evt.container == \"web\"", NULL },
	{ "1 < $evt.x", NULL },
	/* strobe-expr(7)'s filter examples */
	{ "$evt.container == \"web\" && $evt.$name =* \"syscall_exit_*\" && $evt.ret < 0", NULL },
	{ "$evt.$name == \"sched_switch\" && $evt.prev_state == 0 && $evt.cpu != 0", NULL },
	{ "$evt.  x\t==1", "$evt.x == 1" },
};

static void test_expr_print_round_trips_lttng_examples(void)
{
	size_t i;

	for (i = 0; i < sizeof(round_trips) / sizeof(round_trips[0]); i++) {
		struct strobe_expr *e = NULL, *e2 = NULL;
		struct strobe_error err = { 0 };
		const char *want = round_trips[i].out ? round_trips[i].out : round_trips[i].in;
		char buf[512], buf2[512];

		if (strobe_expr_parse(round_trips[i].in, 0, &e, &err) < 0) {
			fprintf(stderr, "  '%s': %s\n", round_trips[i].in, err.msg);
			CHECK(0);
			continue;
		}
		CHECK_EQ(strobe_expr_print(e, buf, sizeof(buf)), strlen(want));
		CHECK_STR(buf, want);
		REQUIRE(strobe_expr_parse(buf, 0, &e2, &err) == 0);
		strobe_expr_print(e2, buf2, sizeof(buf2));
		CHECK_STR(buf2, buf);
		/* truncation keeps the snprintf contract */
		CHECK_EQ(strobe_expr_print(e, buf2, 5), strlen(want));
		CHECK_EQ(strlen(buf2), 4);
		strobe_expr_free(e);
		strobe_expr_free(e2);
	}
}

/* Every combination of three comparisons against C's own precedence. */
static int p0(int a, int b, int c) { return a || (b && c); }
static int p1(int a, int b, int c) { return (a && b) || c; }
static int p2(int a, int b, int c) { return (a || b) && c; }
static int p3(int a, int b, int c) { (void)c; return !a || b; }
static int p4(int a, int b, int c) { return !(a || b) && c; }
static int p5(int a, int b, int c) { return (!a && !b) || c; }
static int p6(int a, int b, int c) { return a || b || (c && !a); }

static void test_expr_precedence_matches_c(void)
{
	static const struct {
		const char *text;
		int (*fn)(int a, int b, int c);
	} cases[] = {
		{ "$evt.x == 1 || $evt.y == 1 && $evt.z == 1", p0 },
		{ "$evt.x == 1 && $evt.y == 1 || $evt.z == 1", p1 },
		{ "($evt.x == 1 || $evt.y == 1) && $evt.z == 1", p2 },
		{ "!$evt.x == 1 || $evt.y == 1", p3 },
		{ "!($evt.x == 1 || $evt.y == 1) && $evt.z == 1", p4 },
		{ "$evt.x != 1 && !($evt.y == 1) || !!($evt.z == 1)", p5 },
		{ "$evt.x == 1 || $evt.y == 1 || $evt.z == 1 && $evt.x == 0", p6 },
	};
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	size_t i;
	int m;

	REQUIRE(fmts);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (m = 0; m < 8; m++) {
			int a = m & 1, bb = (m >> 1) & 1, c = (m >> 2) & 1;
			int got = eval1(cases[i].text, 0, ev_probe(&b, fmts, a, bb, c), NULL);

			if (got != cases[i].fn(a, bb, c))
				fprintf(stderr, "  '%s' with %d%d%d: %d\n", cases[i].text, a, bb, c, got);
			CHECK_EQ(got, cases[i].fn(a, bb, c));
		}
	strobe_formats_free(fmts);
}

static const struct {
	const char *text;
	unsigned flags;
	const char *msg;
} parse_errors[] = {
	{ "", 0, "column 1: expected an expression, found end of text" },
	{ "   ", 0, "column 4: expected an expression, found end of text" },
	{ "$evt.x", 0, "column 7: expected a comparison operator (==, !=, <, <=, >, >=, =*), "
		       "found end of text" },
	{ "$evt.x = 1", 0, "column 8: expected a comparison operator (==, !=, <, <=, >, >=, =*), "
			   "found '='" },
	{ "$evt.x == ", 0, "column 11: expected a value ($evt reference, number, duration or "
			   "string), found end of text" },
	{ "$evt.x == 1 &&", 0, "column 15: expected a value ($evt reference, number, duration "
			       "or string), found end of text" },
	{ "($evt.x == 1", 0, "column 13: expected ')' or an operator (&&, ||), found end of text" },
	{ "$evt.x == 1)", 0, "column 12: expected an operator (&&, ||) or the end, found ')'" },
	{ "$evt.x == 1 $evt.y == 2", 0, "column 13: expected an operator (&&, ||) or the end, "
					"found '$evt'" },
	{ "$evt.x == 1 & $evt.y == 2", 0, "column 13: expected an operator (&&, ||) or the end, "
					  "found '&'" },
	{ "$evt.$name == 1", 0, "column 1: $name compares with a string" },
	{ "$evt.$name < \"a\"", 0, "column 12: $name compares with ==, != or =* only" },
	{ "$evt.x =* 3", 0, "column 8: '=*' takes a string pattern on its right" },
	{ "$evt.x =* $evt.y", 0, "column 8: '=*' takes a string pattern on its right" },
	{ "$evt.x < \"a\"", 0, "column 8: '<' compares numbers: expected a number or a "
			       "reference, not a string" },
	{ "1 == 2", 0, "column 1: a comparison needs an $evt reference on one side" },
	{ "$evt.x == \"abc", 0, "column 11: expected a value ($evt reference, number, duration "
				"or string), found an unterminated string" },
	{ "$evt.x == 10xs", 0, "column 11: expected a number or a duration (ns, us, ms, s), "
			       "found '10xs'" },
	{ "$evt.x == 1.2.3", 0, "column 11: expected a number or a duration (ns, us, ms, s), "
				"found '1.2.3'" },
	{ "$evt.x == 0xzz", 0, "column 11: expected a number, found '0xzz'" },
	{ "$foo.x == 1", 0, "column 1: expected '$evt', '$begin' or '$parent', found '$foo'" },
	{ "x == 1", 0, "column 1: expected a value ($evt reference, number, duration or string), "
		       "found 'x'" },
	{ "$begin.x == 1", 0, "column 8: expected '$evt', found 'x'" },
	{ "$evt x == 1", 0, "column 6: expected '.' after '$evt', found 'x'" },
	{ "$evt.$bogus.x == 1", 0, "column 6: expected a field name, '$name' or a scope ($payload, "
				   "$ctx, $header, $stream_ctx, $pkt_ctx, $pkt_header), found "
				   "'$bogus'" },
	{ "$evt.$ctx.$name == \"a\"", 0, "column 11: expected a field name, found '$name'" },
	{ "$evt.1 == 1", 0, "column 6: expected a field name or '$name', found '1'" },
	{ "$parent.$evt.x == 1", 0, "column 9: expected '$begin' after '$parent.' (a parent is "
				    "seen through its begin event), found '$evt'" },
	{ "$begin.$evt.x == 1", STROBE_EXPR_EVT_ONLY,
	  "column 1: $begin is not allowed here (only $evt)" },
	{ "$evt.x == 1 || $parent.$begin.$evt.x == 1", STROBE_EXPR_EVT_ONLY,
	  "column 16: $parent is not allowed here (only $evt)" },
	{ "$evt.x == 1 || $parent.$begin.$evt.x == 1", STROBE_EXPR_NO_PARENT,
	  "column 16: $parent needs a period with a parent (NAME(PARENT) : ...)" },
	{ "$evt.x == 1 || !", 0, "column 17: expected a value ($evt reference, number, duration "
				 "or string), found end of text" },
	{ "$evt.x == 1 ||| $evt.y == 1", 0, "column 15: expected a value ($evt reference, number, "
					    "duration or string), found '|'" },
	{ "$evt.x == 1e", 0, "column 11: expected a number or a duration (ns, us, ms, s), found "
			     "'1e'" },
	{ "$evt.x == 1e999", 0, "column 11: expected a finite number, found '1e999'" },
};

static void test_expr_errors_name_column_and_expectation(void)
{
	size_t i;

	for (i = 0; i < sizeof(parse_errors) / sizeof(parse_errors[0]); i++) {
		struct strobe_expr *e = (struct strobe_expr *)&e;	/* must be reset */
		struct strobe_error err = { 0 };

		CHECK_EQ(strobe_expr_parse(parse_errors[i].text, parse_errors[i].flags, &e, &err),
			 -EINVAL);
		CHECK(e == NULL);
		CHECK_EQ(err.code, -EINVAL);
		CHECK_STR(err.msg, parse_errors[i].msg);
	}
}

static void test_expr_nesting_is_bounded(void)
{
	char text[8192];
	struct strobe_expr *e = NULL;
	struct strobe_error err = { 0 };
	size_t n = 0;
	int i;

	/* 100 levels parse, 200 do not (and nothing recurses without bound) */
	for (i = 0; i < 100; i++)
		text[n++] = '(';
	n += (size_t)sprintf(text + n, "$evt.x == 1");
	for (i = 0; i < 100; i++)
		text[n++] = ')';
	text[n] = '\0';
	REQUIRE(strobe_expr_parse(text, 0, &e, &err) == 0);
	strobe_expr_free(e);
	n = 0;
	for (i = 0; i < 200; i++)
		text[n++] = i % 2 ? '!' : '(';
	text[n] = '\0';
	CHECK_EQ(strobe_expr_parse(text, 0, &e, &err), -EINVAL);
	CHECK(strstr(err.msg, "nested more than 128 levels deep") != NULL);
	/* a long && chain is one node, evaluated without recursion per term */
	n = 0;
	for (i = 0; i < 250; i++)
		n += (size_t)sprintf(text + n, "%s$evt.x == 1", i ? " && " : "");
	REQUIRE(strobe_expr_parse(text, 0, &e, &err) == 0);
	strobe_expr_free(e);
}

/* ---- period definitions and captures ------------------------------------------ */

/* lttng-analyses README examples, as given to --period. */
static void test_period_defs_parse_lttng_examples(void)
{
	static const struct {
		const char *text, *name, *parent, *begin, *end;
	} defs[] = {
		{ "switch : $evt.$name == \"sched_switch\"", "switch", NULL,
		  "$evt.$name == \"sched_switch\"", "$evt.$name == \"sched_switch\"" },
		{ "switch\n      : $evt.$name == \"sched_switch\" &&\n        $evt.next_tid != 0\n"
		  "      : $evt.$name == \"sched_switch\" &&\n        $evt.prev_tid == "
		  "$begin.$evt.next_tid &&\n        $evt.cpu_id == $begin.$evt.cpu_id",
		  "switch", NULL, "$evt.$name == \"sched_switch\" && $evt.next_tid != 0",
		  "$evt.$name == \"sched_switch\" && $evt.prev_tid == $begin.$evt.next_tid && "
		  "$evt.cpu_id == $begin.$evt.cpu_id" },
		{ "irq(switch)\n      : $evt.$name =* \"irq_*_entry\" &&\n        $evt.cpu_id == "
		  "$parent.$begin.$evt.cpu_id\n      : $evt.$name == \"irq_handler_exit\" &&\n"
		  "        $evt.cpu_id == $begin.$evt.cpu_id", "irq", "switch",
		  "$evt.$name =* \"irq_*_entry\" && $evt.cpu_id == $parent.$begin.$evt.cpu_id",
		  "$evt.$name == \"irq_handler_exit\" && $evt.cpu_id == $begin.$evt.cpu_id" },
		{ "hello\n      : $evt.$name =* \"hello*\" &&\n        $evt.$name != \"hello world\"\n"
		  "      : $evt.$name == $begin.$evt.$name &&\n        $evt.$header.theid <= 231",
		  "hello", NULL, "$evt.$name =* \"hello*\" && $evt.$name != \"hello world\"",
		  "$evt.$name == $begin.$evt.$name && $evt.$header.theid <= 231" },
		{ "wake : $evt.$name == \"sched_waking\" : $evt.$name == \"sched_switch\" && "
		  "$evt.next_tid == $begin.$evt.$payload.tid", "wake", NULL,
		  "$evt.$name == \"sched_waking\"",
		  "$evt.$name == \"sched_switch\" && $evt.next_tid == $begin.$evt.$payload.tid" },
		{ "open(switch) : $evt.$name == \"syscall_entry_open\" && $parent.$begin.$evt.cpu_id "
		  "== $evt.cpu_id : $evt.$name == \"syscall_exit_open\" && $begin.$evt.cpu_id == "
		  "$evt.cpu_id", "open", "switch",
		  "$evt.$name == \"syscall_entry_open\" && $parent.$begin.$evt.cpu_id == $evt.cpu_id",
		  "$evt.$name == \"syscall_exit_open\" && $begin.$evt.cpu_id == $evt.cpu_id" },
		{ "alloc(open) : $evt.$name == \"kmem_cache_alloc\" && $parent.$begin.$evt.cpu_id == "
		  "$evt.cpu_id : $evt.$name == \"kmem_cache_free\" && $evt.ptr == $begin.$evt.ptr",
		  "alloc", "open",
		  "$evt.$name == \"kmem_cache_alloc\" && $parent.$begin.$evt.cpu_id == $evt.cpu_id",
		  "$evt.$name == \"kmem_cache_free\" && $evt.ptr == $begin.$evt.ptr" },
		/* strobe-expr(7): the request's child */
		{ "sleep(request) : $evt.$name == \"syscall_entry_nanosleep\" &&\n"
		  "                 $evt.tid == $parent.$begin.$evt.tid\n"
		  "               : $evt.$name == \"syscall_exit_nanosleep\" &&\n"
		  "                 $evt.tid == $begin.$evt.tid", "sleep", "request",
		  "$evt.$name == \"syscall_entry_nanosleep\" && $evt.tid == $parent.$begin.$evt.tid",
		  "$evt.$name == \"syscall_exit_nanosleep\" && $evt.tid == $begin.$evt.tid" },
		/* unnamed, as the README's syntax allows */
		{ ": $evt.$name == \"sched_switch\"", NULL, NULL, "$evt.$name == \"sched_switch\"",
		  "$evt.$name == \"sched_switch\"" },
		/* the request of the talk: accept4 returning to close of that fd */
		{ "request : $evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0 : "
		  "$evt.$name == \"syscall_entry_close\" && $evt.fd == $begin.$evt.ret && "
		  "$evt.pid == $begin.$evt.pid", "request", NULL,
		  "$evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0",
		  "$evt.$name == \"syscall_entry_close\" && $evt.fd == $begin.$evt.ret && "
		  "$evt.pid == $begin.$evt.pid" },
	};
	size_t i;

	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		struct strobe_period_def *d = NULL;
		struct strobe_error err = { 0 };
		char buf[512];

		if (strobe_period_def_parse(defs[i].text, &d, &err) < 0) {
			fprintf(stderr, "  '%s': %s\n", defs[i].text, err.msg);
			CHECK(0);
			continue;
		}
		if (defs[i].name)
			CHECK_STR(d->name, defs[i].name);
		else
			CHECK(d->name == NULL);
		if (defs[i].parent)
			CHECK_STR(d->parent, defs[i].parent);
		else
			CHECK(d->parent == NULL);
		REQUIRE(d->begin && d->end && d->begin != d->end);
		strobe_expr_print(d->begin, buf, sizeof(buf));
		CHECK_STR(buf, defs[i].begin);
		strobe_expr_print(d->end, buf, sizeof(buf));
		CHECK_STR(buf, defs[i].end);
		strobe_period_def_free(d);
	}
}

static void test_period_def_errors(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "", "column 1: expected a period name or ':', found end of text" },
		{ "req", "column 4: expected '(PARENT)' or ':' before the begin expression, found "
			 "end of text" },
		{ "req(", "column 5: expected a parent period name, found end of text" },
		{ "req(par : $evt.x == 1", "column 9: expected ')' after the parent name, found ':'" },
		{ "req(par) $evt.x == 1", "column 10: expected ':' before the begin expression, "
					  "found '$evt'" },
		{ "req(req) : $evt.x == 1", "period 'req' cannot be its own parent" },
		{ "req :", "column 6: expected an expression, found end of text" },
		{ "req : $evt.x == 1 :", "column 20: expected an expression, found end of text" },
		{ "req : $evt.x == 1 : $evt.y == 2 : $evt.z == 3",
		  "column 33: expected an operator (&&, ||) or the end, found ':'" },
		{ "req : $evt.x == 1 )", "column 19: expected an operator (&&, ||), ':' or the end, "
					 "found ')'" },
		{ "req : $parent.$begin.$evt.x == 1",
		  "column 7: $parent needs a period with a parent (NAME(PARENT) : ...)" },
		{ "req(p) : $evt.x == 1 : $parent.$evt.x == 1",
		  "column 32: expected '$begin' after '$parent.' (a parent is seen through its "
		  "begin event), found '$evt'" },
		{ "9req : $evt.x == 1", "column 1: expected a period name or ':', found '9req'" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strobe_period_def *d = (struct strobe_period_def *)&d;
		struct strobe_error err = { 0 };

		CHECK_EQ(strobe_period_def_parse(bad[i].text, &d, &err), -EINVAL);
		CHECK(d == NULL);
		CHECK_STR(err.msg, bad[i].msg);
	}
}

static void test_period_captures_parse_lttng_examples(void)
{
	static const struct {
		const char *text, *name;
		const char *begin[4], *end[4];	/* "key=ref" */
	} caps[] = {
		{ "wake : waker = $evt.procname, prio = $evt.prio : wakee = $evt.next_comm, "
		  "cpu = $evt.cpu_id", "wake",
		  { "waker=$evt.procname", "prio=$evt.prio" },
		  { "wakee=$evt.next_comm", "cpu=$evt.cpu_id" } },
		{ "irq : name = $evt.name, irq = $evt.irq, current = $parent.$begin.$evt.next_comm",
		  "irq", { "name=$evt.name", "irq=$evt.irq",
			   "current=$parent.$begin.$evt.next_comm" }, { NULL } },
		{ "switch : comm = $evt.next_comm, cpu = $evt.cpu_id, tid = $evt.next_tid", "switch",
		  { "comm=$evt.next_comm", "cpu=$evt.cpu_id", "tid=$evt.next_tid" }, { NULL } },
		{ "open : filename = $evt.filename : fd = $evt.ret", "open",
		  { "filename=$evt.filename" }, { "fd=$evt.ret" } },
		{ "alloc : ptr = $evt.ptr", "alloc", { "ptr=$evt.ptr" }, { NULL } },
		/* keys default to the reference's text; either side may be empty */
		{ "req : $evt.ret, $evt.$name : $begin.$evt.$ctx.tid", "req",
		  { "$evt.ret=$evt.ret", "$evt.$name=$evt.$name" },
		  { "$begin.$evt.$ctx.tid=$begin.$evt.$ctx.tid" } },
		{ "req : : fd = $evt.fd", "req", { NULL }, { "fd=$evt.fd" } },
		{ "req :", "req", { NULL }, { NULL } },
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct strobe_period_captures *c = NULL;
		struct strobe_error err = { 0 };
		char buf[256], ref[200];

		if (strobe_period_captures_parse(caps[i].text, &c, &err) < 0) {
			fprintf(stderr, "  '%s': %s\n", caps[i].text, err.msg);
			CHECK(0);
			continue;
		}
		CHECK_STR(c->name, caps[i].name);
		for (k = 0; k < 4 && caps[i].begin[k]; k++) {
			REQUIRE(k < c->nr_begin);
			strobe_expr_print(c->begin[k].ref, ref, sizeof(ref));
			snprintf(buf, sizeof(buf), "%s=%s", c->begin[k].key, ref);
			CHECK_STR(buf, caps[i].begin[k]);
		}
		CHECK_EQ(c->nr_begin, k);
		for (k = 0; k < 4 && caps[i].end[k]; k++) {
			REQUIRE(k < c->nr_end);
			strobe_expr_print(c->end[k].ref, ref, sizeof(ref));
			snprintf(buf, sizeof(buf), "%s=%s", c->end[k].key, ref);
			CHECK_STR(buf, caps[i].end[k]);
		}
		CHECK_EQ(c->nr_end, k);
		strobe_period_captures_free(c);
	}
}

static void test_period_captures_errors(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "", "column 1: expected a period name, found end of text" },
		{ "req = $evt.x", "column 5: expected ':' after the period name, found '='" },
		{ "req : a = $evt.x, a = $evt.y", "column 23: duplicate capture name 'a'" },
		{ "req : $evt.x, $evt.x", "column 15: duplicate capture name '$evt.x'" },
		{ "req : a == $evt.x", "column 9: expected '=' after the capture name, found '=='" },
		{ "req : a = 1", "column 11: expected a reference such as $evt.FIELD, found '1'" },
		{ "req : a = $evt.x == 1", "column 18: expected ',', ':' or the end, found '=='" },
		{ "req : a = $evt.x : b = $evt.y : c = $evt.z",
		  "column 31: expected ',', ':' or the end, found ':'" },
		{ "req : 1", "column 7: expected a capture (KEY = $evt.FIELD or $evt.FIELD), found '1'" },
		{ "req : a = $parent.$evt.x", "column 19: expected '$begin' after '$parent.' (a parent "
					      "is seen through its begin event), found '$evt'" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strobe_period_captures *c = (struct strobe_period_captures *)&c;
		struct strobe_error err = { 0 };

		CHECK_EQ(strobe_period_captures_parse(bad[i].text, &c, &err), -EINVAL);
		CHECK(c == NULL);
		CHECK_STR(err.msg, bad[i].msg);
	}
}

/* ---- evaluation ----------------------------------------------------------------- */

static void test_expr_eval_sched_switch_fields_and_lttng_aliases(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	struct strobe_event *ev;

	REQUIRE(fmts);
	ev = ev_switch(&b, fmts, 10, "nginx", 20, "bash");
	CHECK_EQ(eval1("$evt.$name == \"sched_switch\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"sched:sched_switch\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"sched_wakeup\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$name =* \"sched_*\"", 0, ev, NULL), 1);
	/* LTTng's next_tid/prev_tid are ftrace's next_pid/prev_pid */
	CHECK_EQ(eval1("$evt.$name == \"sched_switch\" && $evt.next_tid != 0", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.next_tid == 20 && $evt.prev_tid == 10", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.next_pid == 20 && $evt.$payload.prev_pid == 10", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.prev_comm == \"nginx\" && $evt.next_comm =* \"ba?h\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.prev_comm == \"nginx2\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.prev_comm == \"ngin\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.prev_comm < $evt.next_comm", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.prev_comm > $evt.next_comm", 0, ev, NULL), 1);
	/* context: the current task (common_pid 10) through the env */
	CHECK_EQ(eval1("$evt.procname == \"nginx\" && $evt.container == \"web\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.tid == 10 && $evt.pid == 10 && $evt.ppid == 1", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.vtid == 1 && $evt.vpid == 1 && $evt.comm == \"nginx\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.cpu == 1 && $evt.cpu_id == 1 && $evt.$pkt_ctx.cpu_id == 1", 0, ev,
		       NULL), 1);
	CHECK_EQ(eval1("$evt.$header.timestamp == 1000 && $evt.$header.id == 372", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.timestamp == 1000", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$ctx.tid == 10", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$ctx.next_pid == 20", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$payload.procname == \"nginx\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$stream_ctx.cpu_id == 1 || $evt.$pkt_header.magic == 1", 0, ev, NULL),
		 0);
	/* a task the context does not know: only tid is */
	ev = ev_switch(&b, fmts, 99, "x", 0, "swapper/1");
	CHECK_EQ(eval1("$evt.tid == 99", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.pid == 99", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.procname =* \"*\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$name == \"sched_switch\" && $evt.next_tid != 0", 0, ev, NULL), 0);
	strobe_formats_free(fmts);
}

static void test_expr_eval_sched_waking_tid_is_payload_pid_is_process(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	struct strobe_event *ev;

	REQUIRE(fmts);
	memset(b.d, 0, sizeof(b.d));
	strcpy((char *)b.d + 8, "bash");
	put32(b.d + 24, 20);	/* the woken task */
	ev = mk(&b, fmts, ID_WAKING, 11);	/* woken by nginx's thread 11 */
	/* LTTng's sched_waking payload says tid: the woken task */
	CHECK_EQ(eval1("$evt.tid == 20", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$payload.tid == 20", 0, ev, NULL), 1);
	/* $evt.pid is the current process, as LTTng's context pid */
	CHECK_EQ(eval1("$evt.pid == 10", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$payload.pid == 20", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$ctx.tid == 11", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.comm == \"bash\"", 0, ev, NULL), 1);	/* payload first */
	strobe_formats_free(fmts);
}

static void test_expr_eval_missing_fields_follow_lttng(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	struct strobe_event *ev;

	REQUIRE(fmts);
	ev = ev_probe(&b, fmts, 1, 2, 3);
	CHECK_EQ(eval1("$evt.nope == 1", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.nope < 1 || $evt.nope >= 1", 0, ev, NULL), 0);
	/* lttng: != is !(==), so true when the field is missing */
	CHECK_EQ(eval1("$evt.nope != 1", 0, ev, NULL), 1);
	CHECK_EQ(eval1("!($evt.nope == 1)", 0, ev, NULL), 1);
	/* a string never equals a number, in both orders */
	CHECK_EQ(eval1("$evt.s == 0", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.x == \"1\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.x =* \"1\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.s == $evt.x", 0, ev, NULL), 0);
	/* no $begin event: references to it are missing */
	CHECK_EQ(eval1("$evt.x == 1 && $parent.$begin.$evt.x == 1", 0, ev, NULL), 0);
	/* a payload shorter than the field */
	ev->size = 12;
	CHECK_EQ(eval1("$evt.z == 3", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.x == 1", 0, ev, NULL), 1);
	/* an event whose format is unknown: only context and header */
	ev = ev_probe(&b, fmts, 1, 2, 3);
	ev->format = NULL;
	ev->type = 4242;
	CHECK_EQ(eval1("$evt.x == 1", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$name == \"probe\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.tid == 77 && $evt.$header.id == 4242", 0, ev, NULL), 1);
	strobe_formats_free(fmts);
}

static void test_expr_eval_numbers_durations_and_lttng_truncation(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	struct strobe_event *ev;

	REQUIRE(fmts);
	ev = ev_probe(&b, fmts, 10000000, -5, 1500000000);
	put64(b.d + 24, 0xfffffffffffffff0ull);	/* big: beyond int64 */
	CHECK_EQ(eval1("$evt.x == 10ms && $evt.x == 10000us && $evt.x == 10000000ns", 0, ev, NULL),
		 1);
	CHECK_EQ(eval1("$evt.z == 1.5s && $evt.z > 1s && $evt.z < 2s", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.x == 0.01s && $evt.x == 1e7", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.y == -5 && $evt.y < 0 && $evt.y > -6 && -5 == $evt.y", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.y == +5", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.y < -4.5 && $evt.y >= -5.9", 0, ev, NULL), 1);	/* -4, -5 */
	/* lttng compares an integer field with a real's integer part */
	ev = ev_probe(&b, fmts, 1, 2, 3);
	CHECK_EQ(eval1("$evt.x >= 1.5", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.x == 1.9", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.x < 1e30", 0, ev, NULL), 1);	/* beyond int64: as reals */
	/* 64-bit unsigned fields keep their value */
	put64(b.d + 24, 0xfffffffffffffff0ull);
	CHECK_EQ(eval1("$evt.big == 0xfffffffffffffff0", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.big == 18446744073709551600", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.big > 0 && $evt.big > 9223372036854775807", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.big == -16", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.x == 0x1 && $evt.y == 0X2 && $evt.z == -0x0", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.x == 0x1 && $evt.y == 0X2 && $evt.z == 0x3", 0, ev, NULL), 1);
	strobe_formats_free(fmts);
}

static void test_expr_eval_globs(void)
{
	static const struct {
		const char *pat, *s;
		bool match;
	} g[] = {
		{ "*", "", true }, { "*", "abc", true }, { "a*", "abc", true }, { "*c", "abc", true },
		{ "a*c", "ac", true }, { "a*c", "abcbc", true }, { "a*c", "abcb", false },
		{ "?", "", false }, { "??", "ab", true }, { "a?c", "abc", true },
		{ "[ab]x", "bx", true }, { "[!ab]x", "bx", false }, { "[!ab]x", "cx", true },
		{ "[a-c]", "b", true }, { "[a-c]", "d", false }, { "[]]", "]", true },
		{ "[", "[", true }, { "[x", "[x", true }, { "irq_*_entry", "irq_nmi_entry", true },
		{ "irq_*_entry", "irq__entry", true }, { "irq_*_entry", "irq_nmi_exit", false },
		{ "**a**", "bab", true }, { "*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
		{ "\\*", "\\x", true },	/* no escapes, as Python's fnmatch */
		{ "abc", "abcd", false }, { "abcd", "abc", false },
	};
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	size_t i;

	REQUIRE(fmts);
	for (i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		char text[128];
		struct strobe_event *ev = ev_probe(&b, fmts, 0, 0, 0);

		strcpy((char *)b.d + 32, g[i].s);
		snprintf(text, sizeof(text), "$evt.s =* \"%s\"", g[i].pat);
		if (eval1(text, 0, ev, NULL) != g[i].match)
			fprintf(stderr, "  glob '%s' on '%s'\n", g[i].pat, g[i].s);
		CHECK_EQ(eval1(text, 0, ev, NULL), g[i].match);
	}
	strobe_formats_free(fmts);
}

static void test_expr_eval_data_loc_strings(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	struct strobe_event *ev;

	REQUIRE(fmts);
	memset(b.d, 0, sizeof(b.d));
	put32(b.d + 8, 41);
	put32(b.d + 12, (5u << 16) | 16);	/* __data_loc: 5 bytes at 16 */
	memcpy(b.d + 16, "ahci", 5);
	ev = mk(&b, fmts, ID_IRQ_ENTRY, 0);
	CHECK_EQ(eval1("$evt.$name =* \"irq_*_entry\" && $evt.name == \"ahci\" && $evt.irq == 41",
		       0, ev, NULL), 1);
	/* a location beyond the payload reads as missing */
	put32(b.d + 12, (5u << 16) | 126);
	CHECK_EQ(eval1("$evt.name == \"ahci\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.name != \"ahci\"", 0, ev, NULL), 1);
	strobe_formats_free(fmts);
}

static struct strobe_syscall_args *fixture_sysargs(void)
{
	struct strobe_syscall_args *t = NULL;

	if (strobe_syscall_args_new(&t) < 0)
		return NULL;
	if (strobe_syscall_args_add_format(t, fmt_close, strlen(fmt_close), NULL) < 0 ||
	    strobe_syscall_args_add_format(t, fmt_openat, strlen(fmt_openat), NULL) < 0 ||
	    strobe_syscall_args_add_format(t, fmt_read, strlen(fmt_read), NULL) < 0) {
		strobe_syscall_args_free(t);
		return NULL;
	}
	return t;
}

static void test_expr_eval_lttng_syscall_names_on_raw_syscalls(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct evb b;
	struct strobe_event *ev;
	char buf[64];

	REQUIRE(fmts);
	ev = ev_raw(&b, fmts, true, 10, 3, 7, 0);	/* close(7) */
	CHECK_EQ(eval1("$evt.$name == \"syscall_entry_close\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"syscall_entry_read\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$name != \"syscall_entry_read\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_close\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$name =* \"syscall_entry_c*\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name =* \"syscall_entry_r*\"", 0, ev, NULL), 0);
	CHECK_EQ(eval1("$evt.$name == \"sys_enter\" && $evt.id == 3", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"raw_syscalls:sys_enter\"", 0, ev, NULL), 1);
	CHECK_STR(strobe_expr_lttng_name(strobe_event_system(ev), strobe_event_name(ev), 3, buf, sizeof(buf)), "syscall_entry_close");
	ev = ev_raw(&b, fmts, false, 10, 288, 5, 0);	/* accept4() = 5 */
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_accept\"", 0, ev, NULL), 0);
	CHECK_STR(strobe_expr_lttng_name(strobe_event_system(ev), strobe_event_name(ev), 288, buf, sizeof(buf)),
		  "syscall_exit_accept4");
	/* fstat's raw records answer to LTTng's (and syscalls:*'s) newfstat too */
	ev = ev_raw(&b, fmts, false, 10, 5, 0, 0);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_newfstat\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_fstat\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_newstat\"", 0, ev, NULL), 0);
	/* numbers beyond the table are syscall_*_unknown, as LTTng names them */
	ev = ev_raw(&b, fmts, false, 10, 5000, 0, 0);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_unknown\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_close\"", 0, ev, NULL), 0);
	ev = ev_raw(&b, fmts, false, 10, -1, 0, 0);
	CHECK_EQ(eval1("$evt.$name =* \"syscall_exit_unk*\"", 0, ev, NULL), 1);
	/* the syscalls:* events carry the same LTTng names */
	memset(b.d, 0, sizeof(b.d));
	put64(b.d + 16, 4);
	ev = mk(&b, fmts, ID_CLOSE, 10);
	CHECK_EQ(eval1("$evt.$name == \"syscall_entry_close\" && $evt.fd == 4", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"sys_enter_close\"", 0, ev, NULL), 1);
	CHECK_EQ(eval1("$evt.$name == \"syscalls:sys_enter_close\"", 0, ev, NULL), 1);
	memset(b.d, 0, sizeof(b.d));
	put64(b.d + 16, (uint64_t)-11);
	ev = mk(&b, fmts, ID_X_ACCEPT4, 10);
	CHECK_EQ(eval1("$evt.$name == \"syscall_exit_accept4\" && $evt.ret == -11", 0, ev, NULL), 1);
	/* int arguments of syscalls:* formats read as ints (8 bytes stored) */
	memset(b.d, 0, sizeof(b.d));
	put64(b.d + 16, 0xffffff9c);	/* AT_FDCWD as the kernel stores it */
	ev = mk(&b, fmts, ID_OPENAT, 10);
	CHECK_EQ(eval1("$evt.dfd == -100 && $evt.mode == 0", 0, ev, NULL), 1);
	strobe_formats_free(fmts);
}

static void test_expr_eval_raw_syscall_argument_names(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct strobe_syscall_args *sa = fixture_sysargs();
	struct strobe_expr *e = NULL;
	struct strobe_error err = { 0 };
	struct evb b;
	struct strobe_event *ev;

	REQUIRE(fmts && sa);
	ev = ev_raw(&b, fmts, true, 10, 3, 7, 0);	/* close(7) */
	CHECK_EQ(eval1("$evt.fd == 7", 0, ev, sa), 1);
	CHECK_EQ(eval1("$evt.$payload.fd == 7", 0, ev, sa), 1);
	CHECK_EQ(eval1("$evt.fd == 8", 0, ev, sa), 0);
	CHECK_EQ(eval1("$evt.count == 0", 0, ev, sa), 0);	/* close has no count */
	ev = ev_raw(&b, fmts, true, 10, 0, 3, 0x1000);	/* read(3, 0x1000, ...) */
	put64(b.d + 32, 4096);				/* count */
	CHECK_EQ(eval1("$evt.fd == 3 && $evt.buf == 0x1000 && $evt.count == 4096", 0, ev, sa), 1);
	ev = ev_raw(&b, fmts, true, 10, 257, 0xffffffffffffff9cull, 0);	/* openat(AT_FDCWD) */
	CHECK_EQ(eval1("$evt.dfd == -100", 0, ev, sa), 1);
	ev = ev_raw(&b, fmts, true, 10, 257, 0x00000000ffffff9cull, 0);
	CHECK_EQ(eval1("$evt.dfd == -100", 0, ev, sa), 1);
	/* an argument name that is also context: context for other syscalls */
	ev = ev_raw(&b, fmts, true, 10, 3, 7, 0);
	CHECK_EQ(eval1("$evt.pid == 10", 0, ev, sa), 1);
	/* without a table: false, and the expression says why */
	REQUIRE(strobe_expr_parse("$evt.fd == 7", 0, &e, &err) == 0);
	CHECK_EQ(strobe_expr_match_event(e, &fake_env, ev), 0);
	CHECK_EQ(strobe_expr_error(e, &err), -ENOENT);
	CHECK(strstr(err.msg, "$evt.fd on raw_syscalls:sys_enter records needs the syscall "
		      "argument table") != NULL);
	strobe_expr_set_syscall_args(e, sa);	/* clears the cache and the error */
	CHECK_EQ(strobe_expr_error(e, NULL), 0);
	CHECK_EQ(strobe_expr_match_event(e, &fake_env, ev), 1);
	CHECK_EQ(strobe_expr_error(e, NULL), 0);
	strobe_expr_free(e);
	strobe_syscall_args_free(sa);
	strobe_formats_free(fmts);
}

static void test_expr_eval_begin_and_parent_scopes(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct strobe_expr *e = NULL;
	struct evb b1, b2, b3;
	struct strobe_expr_match m;
	struct strobe_expr_task snap = { .tid = 10, .pid = 10, .ppid = -1, .vtid = -1, .vpid = -1,
					 .procname = "old-name", .container = "web" };

	REQUIRE(fmts);
	REQUIRE(strobe_expr_parse("$evt.$name == \"sched_switch\" && $evt.prev_tid == "
				  "$begin.$evt.next_tid && $evt.cpu_id == $begin.$evt.cpu_id && "
				  "$parent.$begin.$evt.x == 1", 0, &e, NULL) == 0);
	memset(&m, 0, sizeof(m));
	m.begin.ev = ev_switch(&b1, fmts, 20, "bash", 10, "nginx");
	m.evt.ev = ev_switch(&b2, fmts, 10, "nginx", 20, "bash");
	m.parent_begin.ev = ev_probe(&b3, fmts, 1, 0, 0);
	CHECK_EQ(strobe_expr_eval(e, &fake_env, &m), 1);
	b2.ev.cpu = 0;
	CHECK_EQ(strobe_expr_eval(e, &fake_env, &m), 0);
	b2.ev.cpu = 1;
	m.parent_begin.ev = NULL;
	CHECK_EQ(strobe_expr_eval(e, &fake_env, &m), 0);
	strobe_expr_free(e);
	/* $begin.$evt's context comes from the snapshot given with it */
	REQUIRE(strobe_expr_parse("$begin.$evt.procname == \"old-name\" && $evt.procname == "
				  "\"nginx\" && $begin.$evt.$name == $evt.$name", 0, &e, NULL) == 0);
	m.begin.ev = ev_switch(&b1, fmts, 10, "nginx", 20, "bash");
	m.begin.task = &snap;
	CHECK_EQ(strobe_expr_eval(e, &fake_env, &m), 1);
	m.begin.task = NULL;
	CHECK_EQ(strobe_expr_eval(e, &fake_env, &m), 0);
	strobe_expr_free(e);
	strobe_formats_free(fmts);
}

static void test_expr_value_of_references(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct strobe_expr *r = NULL;
	struct strobe_expr_value v;
	struct strobe_expr_match m;

	memset(&m, 0, sizeof(m));
	struct evb b;
	char buf[64];

	REQUIRE(fmts);
	m.evt.ev = ev_raw(&b, fmts, false, 10, 288, 6, 0);
	REQUIRE(strobe_expr_parse_ref("$evt.$name", 0, &r, NULL) == 0);
	strobe_expr_value(r, NULL, &m, &v, buf, sizeof(buf));
	CHECK_EQ(v.type, STROBE_EXPR_VAL_STR);
	CHECK_EQ(v.len, strlen("syscall_exit_accept4"));
	CHECK(v.s && !memcmp(v.s, "syscall_exit_accept4", v.len));
	/* a reference is not a condition */
	CHECK_EQ(strobe_expr_eval(r, NULL, &m), 0);
	strobe_expr_free(r);
	REQUIRE(strobe_expr_parse_ref("$evt.ret", 0, &r, NULL) == 0);
	strobe_expr_value(r, NULL, &m, &v, buf, sizeof(buf));
	CHECK_EQ(v.type, STROBE_EXPR_VAL_INT);
	CHECK_EQ(v.i, 6);
	strobe_expr_free(r);
	REQUIRE(strobe_expr_parse_ref("$evt.procname", 0, &r, NULL) == 0);
	strobe_expr_value(r, &fake_env, &m, &v, buf, sizeof(buf));
	CHECK_EQ(v.type, STROBE_EXPR_VAL_STR);
	CHECK(v.s && v.len == 5 && !memcmp(v.s, "nginx", 5));
	strobe_expr_value(r, NULL, &m, &v, buf, sizeof(buf));	/* no context */
	CHECK_EQ(v.type, STROBE_EXPR_VAL_NONE);
	strobe_expr_free(r);
	REQUIRE(strobe_expr_parse_ref("$begin.$evt.nope", 0, &r, NULL) == 0);
	m.begin.ev = m.evt.ev;
	strobe_expr_value(r, NULL, &m, &v, buf, sizeof(buf));
	CHECK_EQ(v.type, STROBE_EXPR_VAL_NONE);
	strobe_expr_free(r);
	/* an expression is not a reference */
	CHECK_EQ(strobe_expr_parse_ref("$evt.x == 1", 0, &r, NULL), -EINVAL);
	REQUIRE(strobe_expr_parse("$evt.x == 1", 0, &r, NULL) == 0);
	strobe_expr_value(r, NULL, &m, &v, buf, sizeof(buf));
	CHECK_EQ(v.type, STROBE_EXPR_VAL_NONE);
	strobe_expr_free(r);
	strobe_formats_free(fmts);
}

static void test_expr_may_match_decides_subscriptions_by_type(void)
{
	static const struct {
		const char *text;
		bool sw, enter, exit, close, probe, unknown;
	} cases[] = {
		{ "$evt.$name == \"sched_switch\" && $evt.next_tid != 0", 1, 0, 0, 0, 0, 0 },
		{ "$evt.$name == \"syscall_entry_close\"", 0, 1, 0, 1, 0, 0 },
		{ "$evt.$name =* \"syscall_*\"", 0, 1, 1, 1, 0, 0 },
		{ "$evt.$name != \"sched_switch\"", 0, 1, 1, 1, 1, 1 },
		{ "!($evt.$name == \"sched_switch\") && $evt.x == 1", 0, 0, 0, 0, 1, 0 },
		{ "$evt.fd == 3", 0, 1, 0, 1, 0, 0 },	/* raw enter: an argument maybe */
		{ "$evt.tid == 3", 1, 1, 1, 1, 1, 1 },
		{ "$evt.x == 1 || $begin.$evt.x == 1", 1, 1, 1, 1, 1, 1 },
		{ "$evt.$name == \"sched_switch\" || $evt.$name == \"probe\"", 1, 0, 0, 0, 1, 0 },
	};
	struct strobe_formats *fmts = fmts_all();
	struct strobe_syscall_args *sa = fixture_sysargs();
	size_t i;

	REQUIRE(fmts && sa);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strobe_expr *e = NULL;

		REQUIRE(strobe_expr_parse(cases[i].text, 0, &e, NULL) == 0);
		strobe_expr_set_syscall_args(e, sa);
		CHECK_EQ(strobe_expr_may_match(e, strobe_formats_by_id(fmts, ID_SWITCH)), cases[i].sw);
		CHECK_EQ(strobe_expr_may_match(e, strobe_formats_by_id(fmts, ID_ENTER)), cases[i].enter);
		CHECK_EQ(strobe_expr_may_match(e, strobe_formats_by_id(fmts, ID_EXIT)), cases[i].exit);
		CHECK_EQ(strobe_expr_may_match(e, strobe_formats_by_id(fmts, ID_CLOSE)), cases[i].close);
		CHECK_EQ(strobe_expr_may_match(e, strobe_formats_by_id(fmts, ID_PROBE)), cases[i].probe);
		CHECK_EQ(strobe_expr_may_match(e, NULL), cases[i].unknown);
		strobe_expr_free(e);
	}
	strobe_syscall_args_free(sa);
	strobe_formats_free(fmts);
}

static void test_expr_lttng_names_of_ftrace_events(void)
{
	static const struct {
		const char *sys, *name, *lttng;
	} n[] = {
		{ "sched", "sched_switch", "sched_switch" },
		{ "syscalls", "sys_enter_openat", "syscall_entry_openat" },
		{ "syscalls", "sys_exit_openat", "syscall_exit_openat" },
		{ "irq", "softirq_entry", "irq_softirq_entry" },
		{ "irq", "irq_handler_entry", "irq_handler_entry" },
		{ "timer", "hrtimer_start", "timer_hrtimer_start" },
		{ "timer", "timer_start", "timer_start" },
		{ "kmem", "mm_page_alloc", "kmem_mm_page_alloc" },
		{ "kmem", "kmem_cache_alloc", "kmem_cache_alloc" },
		{ "power", "cpu_idle", "power_cpu_idle" },
		{ "net", "netif_receive_skb", "net_if_receive_skb" },
		{ "block", "block_rq_issue", "block_rq_issue" },
		{ "irq_vectors", "local_timer_entry", "x86_irq_vectors_local_timer_entry" },
	};
	size_t i;

	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		char buf[64];

		CHECK_STR(strobe_expr_lttng_name(n[i].sys, n[i].name, 0, buf, sizeof(buf)),
			  n[i].lttng);
	}
}

static void test_expr_env_from_task_model(void)
{
	static const char tab[] =
		"strobe-model 1\n"
		"C\t2\tpodman\tf307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944"
		"\talpha\t\n"
		"T\t500\t500\t90\tsh\t2\t500,1\t500,1\t4026532000\t4026532001\t0\t9\t/x\n"
		"T\t501\t500\t90\tsh\t2\t501,2\t500,1\t4026532000\t4026532001\t0\t9\t/x\n";
	struct strobe_formats *fmts = fmts_all();
	struct strobe_model *m = NULL;
	struct strobe_expr_env env;
	struct strobe_expr *e = NULL;
	struct evb b;

	REQUIRE(fmts);
	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(strobe_model_table_load(m, tab, sizeof(tab) - 1, NULL) == 0);
	strobe_expr_env_model(&env, m);
	REQUIRE(strobe_expr_parse("$evt.container == \"alpha\" && $evt.pid == 500 && "
				  "$evt.tid == 501 && $evt.vtid == 2 && $evt.vpid == 1 && "
				  "$evt.procname == \"sh\" && $evt.ppid == 90", 0, &e, NULL) == 0);
	CHECK_EQ(strobe_expr_match_event(e, &env, ev_probe(&b, fmts, 0, 0, 0)), 0);
	b.ev.pid = 501;
	CHECK_EQ(strobe_expr_match_event(e, &env, &b.ev), 1);
	strobe_expr_free(e);
	strobe_model_free(m);
	strobe_formats_free(fmts);
}

/* ---- filters: the options as sugar, fast paths, tasks (lib/expr/filter.c) ---- */

static void test_filter_options_compile_to_expressions(void)
{
	static const struct {
		enum strobe_expr_option opt;
		const char *value, *text;
	} cases[] = {
		{ STROBE_EXPR_OPT_TID, "7", "$evt.$ctx.tid == 7" },
		{ STROBE_EXPR_OPT_TID, "1,2", "$evt.$ctx.tid == 1 || $evt.$ctx.tid == 2" },
		{ STROBE_EXPR_OPT_PID, "300", "$evt.$ctx.pid == 300" },
		{ STROBE_EXPR_OPT_COMM, "nginx,kworker/*",
		  "$evt.$ctx.procname == \"nginx\" || $evt.$ctx.procname =* \"kworker/*\"" },
		{ STROBE_EXPR_OPT_CONTAINER, "web",
		  "$evt.$ctx.container == \"web\" || $evt.$ctx.container_id == \"web\"" },
		{ STROBE_EXPR_OPT_CONTAINER, "f307",
		  "$evt.$ctx.container == \"f307\" || $evt.$ctx.container_id =* \"f307*\"" },
		{ STROBE_EXPR_OPT_CONTAINER, "a\"b",
		  "$evt.$ctx.container == \"a\\\"b\" || $evt.$ctx.container_id == \"a\\\"b\"" },
		{ STROBE_EXPR_OPT_CPU, "3", "$evt.$ctx.cpu == 3" },
		{ STROBE_EXPR_OPT_CPU, "0,2-3,5",
		  "$evt.$ctx.cpu == 0 || $evt.$ctx.cpu >= 2 && $evt.$ctx.cpu <= 3 || "
		  "$evt.$ctx.cpu == 5" },
		{ STROBE_EXPR_OPT_EVENT, "sched:sched_switch", "$evt.$name == \"sched:sched_switch\"" },
		{ STROBE_EXPR_OPT_EVENT, "sched:sched_wak*", "$evt.$name =* \"sched:sched_wak*\"" },
		{ STROBE_EXPR_OPT_EVENT, "sched:", "$evt.$name =* \"sched:*\"" },
		{ STROBE_EXPR_OPT_EVENT, "sched", "$evt.$name =* \"*:sched\" || $evt.$name =* \"sched:*\"" },
	};
	struct strobe_error err = { 0 };
	struct strobe_expr *e;
	char *text, buf[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		text = NULL;
		CHECK_EQ(strobe_expr_option_text(cases[i].opt, cases[i].value, &text, &err), 0);
		REQUIRE(text);
		e = NULL;
		CHECK_EQ(strobe_expr_parse(text, STROBE_EXPR_EVT_ONLY, &e, &err), 0);
		strobe_expr_print(e, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].text);
		strobe_expr_free(e);
		free(text);
	}
	text = NULL;
	CHECK_EQ(strobe_expr_option_text(STROBE_EXPR_OPT_PID, "1,x", &text, &err), -EINVAL);
	CHECK_STR(err.msg, "bad pid 'x'");
	CHECK_EQ(strobe_expr_option_text(STROBE_EXPR_OPT_CPU, "9-2", &text, &err), -EINVAL);
	CHECK_STR(err.msg, "bad CPU list item '9-2' (expected N or N-M, N < 8192)");
	CHECK_EQ(strobe_expr_option_text(STROBE_EXPR_OPT_COMM, "", &text, &err), -EINVAL);
	CHECK_STR(err.msg, "empty command name list");
	CHECK(text == NULL);
}

static void test_filter_terms_and_with_their_fast_paths(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct strobe_expr_filter *f = NULL;
	struct strobe_error err = { 0 };
	const bool *mask;
	char buf[512];
	struct evb b;

	REQUIRE(fmts);
	REQUIRE(strobe_expr_filter_new(&f) == 0);
	/* no terms: everything passes */
	CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
	CHECK(strobe_expr_filter_match(f, NULL, ev_probe(&b, fmts, 0, 0, 0)));
	CHECK_EQ(strobe_expr_filter_print(f, buf, sizeof(buf)), 0);
	CHECK_EQ(strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_CPU, "1", &err), 0);
	CHECK_EQ(strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_TID, "10,11", &err), 0);
	CHECK_EQ(strobe_expr_filter_add(f, "$evt.procname == \"nginx\" || $evt.x > 4", &err), 0);
	/* a syntax error names the column in its own text */
	CHECK_EQ(strobe_expr_filter_add(f, "$evt.tid == ", &err), -EINVAL);
	CHECK_STR(err.msg, "--filter '$evt.tid == ': column 13: expected a value ($evt "
		  "reference, number, duration or string), found end of text");
	CHECK_EQ(strobe_expr_filter_add(f, "$begin.$evt.tid == 1", &err), -EINVAL);
	CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
	strobe_expr_filter_print(f, buf, sizeof(buf));
	CHECK_STR(buf, "$evt.$ctx.cpu == 1 && ($evt.$ctx.tid == 10 || $evt.$ctx.tid == 11) && "
		  "($evt.procname == \"nginx\" || $evt.x > 4)");
	CHECK_EQ(strobe_expr_filter_cpu_mask(f, &mask), 2);
	CHECK(mask && !mask[0] && mask[1]);
	CHECK(strobe_expr_filter_needs_task(f));
	CHECK(strobe_expr_filter_selects_tasks(f));
	/* ev_probe: pid 77, cpu 1, x given */
	CHECK(!strobe_expr_filter_match(f, &fake_env, ev_probe(&b, fmts, 9, 0, 0)));
	b.ev.pid = 10;
	CHECK(strobe_expr_filter_match(f, &fake_env, &b.ev));	/* nginx */
	b.ev.pid = 11;
	CHECK(strobe_expr_filter_match(f, &fake_env, &b.ev));
	b.ev.cpu = 0;
	CHECK(!strobe_expr_filter_match(f, &fake_env, &b.ev));	/* CPU 0 */
	b.ev.cpu = 1;
	b.ev.pid = 20;
	CHECK(!strobe_expr_filter_match(f, &fake_env, &b.ev));	/* not a tid named */
	/* an analysis' task: the tid and procname are the task's, x the event's;
	 * the CPU mask is the stream's business */
	{
		struct strobe_expr_task t = { .tid = 11, .pid = 10, .ppid = -1, .vtid = -1,
					      .vpid = -1, .procname = "bash" };

		b.ev.cpu = 0;
		CHECK(strobe_expr_filter_match_task(f, NULL, &b.ev, &t));	/* x 9 > 4 */
		ev_probe(&b, fmts, 1, 0, 0);
		CHECK(!strobe_expr_filter_match_task(f, NULL, &b.ev, &t));
		t.procname = "nginx";
		CHECK(strobe_expr_filter_match_task(f, NULL, &b.ev, &t));
		t.tid = 12;
		CHECK(!strobe_expr_filter_match_task(f, NULL, &b.ev, &t));
	}
	strobe_expr_filter_free(f);

	/* a set of process ids: the task's, through env (unknown: no match) */
	REQUIRE(strobe_expr_filter_new(&f) == 0);
	CHECK_EQ(strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_PID, "10,30", &err), 0);
	CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
	CHECK(strobe_expr_filter_selects_tasks(f));
	ev_probe(&b, fmts, 0, 0, 0);
	b.ev.pid = 11;
	CHECK(strobe_expr_filter_match(f, &fake_env, &b.ev));
	CHECK(!strobe_expr_filter_match(f, NULL, &b.ev));
	b.ev.pid = 20;
	CHECK(!strobe_expr_filter_match(f, &fake_env, &b.ev));
	b.ev.pid = 30;	/* unknown to fake_env */
	CHECK(!strobe_expr_filter_match(f, &fake_env, &b.ev));
	{
		struct strobe_expr_task t = { .tid = 99, .pid = 30, .ppid = -1, .vtid = -1,
					      .vpid = -1 };

		CHECK(strobe_expr_filter_match_task(f, NULL, &b.ev, &t));
		t.pid = -1;
		CHECK(!strobe_expr_filter_match_task(f, NULL, &b.ev, &t));
		/* and a set of command names */
		CHECK_EQ(strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_COMM, "ng*x,sh", &err),
			 0);
		CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
		t.pid = 30;
		CHECK(!strobe_expr_filter_match_task(f, NULL, &b.ev, &t));	/* no name */
		t.procname = "nginx";
		CHECK(strobe_expr_filter_match_task(f, NULL, &b.ev, &t));
		t.procname = "shx";
		CHECK(!strobe_expr_filter_match_task(f, NULL, &b.ev, &t));
		b.ev.pid = 10;
		CHECK(strobe_expr_filter_match(f, &fake_env, &b.ev));	/* nginx, pid 10 */
	}
	strobe_expr_filter_free(f);

	/* an event term is decided by the type alone */
	REQUIRE(strobe_expr_filter_new(&f) == 0);
	CHECK_EQ(strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_EVENT, "test", &err), 0);
	CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
	CHECK(!strobe_expr_filter_needs_task(f));
	CHECK_EQ(strobe_expr_filter_cpu_mask(f, &mask), 0);
	CHECK(strobe_expr_filter_match(f, NULL, ev_probe(&b, fmts, 0, 0, 0)));
	CHECK(!strobe_expr_filter_match(f, NULL, ev_switch(&b, fmts, 1, "a", 2, "b")));
	strobe_expr_filter_free(f);
	strobe_formats_free(fmts);
}

/* -c's rules (strobe_container_matches): name, full ID, a prefix of at
 * least 4 hex digits of the ID; "host" for the host. */
static void test_filter_container_sugar_matches_name_id_and_prefix(void)
{
	static const char tab[] =
		"strobe-model 1\n"
		"C\t2\tpodman\tf307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944"
		"\talpha\t\n"
		"T\t500\t500\t90\tsh\t2\t500,1\t500,1\t4026532000\t4026532001\t0\t9\t/x\n";
	static const struct {
		const char *value;
		bool in_alpha, on_host;
	} cases[] = {
		{ "alpha", 1, 0 }, { "f307", 1, 0 }, { "f307780c078f", 1, 0 },
		{ "f307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944", 1, 0 },
		{ "f30", 0, 0 }, { "F307", 0, 0 }, { "307780", 0, 0 }, { "host", 0, 1 },
		{ "beta,alpha", 1, 0 }, { "alp*", 0, 0 },
	};
	struct strobe_formats *fmts = fmts_all();
	struct strobe_model *m = NULL;
	struct strobe_expr_env env;
	struct strobe_error err = { 0 };
	struct evb b;
	size_t i;

	REQUIRE(fmts);
	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(strobe_model_table_load(m, tab, sizeof(tab) - 1, NULL) == 0);
	strobe_expr_env_model(&env, m);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strobe_expr_filter *f = NULL;

		REQUIRE(strobe_expr_filter_new(&f) == 0);
		CHECK_EQ(strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_CONTAINER,
						       cases[i].value, &err), 0);
		CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
		ev_probe(&b, fmts, 0, 0, 0);
		b.ev.pid = 500;
		CHECK_EQ(strobe_expr_filter_match(f, &env, &b.ev), cases[i].in_alpha);
		b.ev.pid = 0;	/* the idle task: the host */
		CHECK_EQ(strobe_expr_filter_match(f, &env, &b.ev), cases[i].on_host);
		strobe_expr_filter_free(f);
	}
	strobe_model_free(m);
	strobe_formats_free(fmts);
}

/* ---- the syscall argument table -------------------------------------------------- */

static void test_sysargs_from_format_text_and_text_round_trip(void)
{
	struct strobe_syscall_args *t = fixture_sysargs(), *t2 = NULL;
	enum strobe_sysarg_kind k;
	char *out = NULL, *out2 = NULL;
	size_t len = 0, len2 = 0;
	struct strobe_error err = { 0 };

	REQUIRE(t);
	CHECK_EQ(strobe_syscall_args_count(t), 3);
	CHECK_EQ(strobe_syscall_args_lookup(t, "openat", "dfd", &k), 0);
	CHECK_EQ(k, STROBE_SYSARG_I32);
	CHECK_EQ(strobe_syscall_args_lookup(t, "openat", "filename", &k), 1);
	CHECK_EQ(k, STROBE_SYSARG_PTR);
	CHECK_EQ(strobe_syscall_args_lookup(t, "openat", "mode", &k), 3);
	CHECK_EQ(k, STROBE_SYSARG_U32);
	CHECK_EQ(strobe_syscall_args_lookup(t, "read", "count", &k), 2);
	CHECK_EQ(k, STROBE_SYSARG_U64);
	CHECK_EQ(strobe_syscall_args_lookup(t, "read", "nope", NULL), -ENOENT);
	CHECK_EQ(strobe_syscall_args_lookup(t, "nope", "fd", NULL), -ENOENT);
	REQUIRE(strobe_syscall_args_write(t, &out, &len, NULL) == 0);
	CHECK_STR(out, "strobe-syscall-args 1\n"
		  "close\tfd:u32\n"
		  "openat\tdfd:i32\tfilename:ptr\tflags:i32\tmode:u32\n"
		  "read\tfd:u32\tbuf:ptr\tcount:u64\n");
	CHECK_EQ(len, strlen(out));
	REQUIRE(strobe_syscall_args_new(&t2) == 0);
	REQUIRE(strobe_syscall_args_parse(t2, out, len, &err) == 0);
	REQUIRE(strobe_syscall_args_write(t2, &out2, &len2, NULL) == 0);
	CHECK_STR(out2, out);
	/* a replaced entry */
	CHECK_EQ(strobe_syscall_args_add_format(t, fmt_close, strlen(fmt_close), NULL), 0);
	CHECK_EQ(strobe_syscall_args_count(t), 3);
	free(out);
	free(out2);
	strobe_syscall_args_free(t);
	strobe_syscall_args_free(t2);
}

static void test_sysargs_rejects_and_skips_bad_input(void)
{
	static const char skipped[] = "strobe-syscall-args 1\n"
		"good\ta:i32\n"
		"\n"
		"bad name\ta:i32\n"
		"kinds\ta:i33\n"
		"colon\ta\n"
		"seven\ta:u64\tb:u64\tc:u64\td:u64\te:u64\tf:u64\tg:u64\n"
		"9digit\ta:u64\n"
		"ok2\tx:ptr";
	struct strobe_syscall_args *t = NULL;
	struct strobe_error err = { 0 };

	REQUIRE(strobe_syscall_args_new(&t) == 0);
	CHECK_EQ(strobe_syscall_args_parse(t, "nope\n", 5, &err), -EPROTO);
	CHECK_STR(err.msg, "not a syscall argument table (no 'strobe-syscall-args' line)");
	CHECK_EQ(strobe_syscall_args_parse(t, "strobe-syscall-args 2\n", 22, &err), -EPROTO);
	CHECK_STR(err.msg, "syscall argument table of version 2, this library reads version 1");
	CHECK_EQ(strobe_syscall_args_parse(t, "strobe-syscall-args 1.3\n", 24, &err), 0);
	CHECK_EQ(strobe_syscall_args_parse(t, "", 0, &err), -EPROTO);
	CHECK_EQ(strobe_syscall_args_parse(t, skipped, sizeof(skipped) - 1, &err), 0);
	CHECK_EQ(strobe_syscall_args_count(t), 2);
	CHECK_EQ(strobe_syscall_args_lookup(t, "ok2", "x", NULL), 0);
	/* format texts that are not sys_enter_ formats */
	CHECK_EQ(strobe_syscall_args_add_format(t, fmt_switch, strlen(fmt_switch), &err), -EINVAL);
	CHECK_STR(err.msg, "not a syscalls:sys_enter_ format (name: sched_switch)");
	CHECK_EQ(strobe_syscall_args_add_format(t, "x", 1, &err), -EINVAL);
	CHECK_STR(err.msg, "not an event format (no 'name:' line)");
	CHECK_EQ(strobe_syscall_args_add_format(t, "name: sys_enter_x\n", 18, &err), -EINVAL);
	CHECK_STR(err.msg, "sys_enter_x: no __syscall_nr field");
	strobe_syscall_args_free(t);
}

static void test_sysargs_from_a_tracefs_directory_and_a_tep(void)
{
	char dir[] = "/tmp/strobe-test-sysargs-XXXXXX", path[256];
	struct strobe_syscall_args *t = NULL;
	struct strobe_error err = { 0 };
	struct strobe_formats *fmts = fmts_all();
	FILE *f;

	REQUIRE(fmts && mkdtemp(dir));
	REQUIRE(strobe_syscall_args_new(&t) == 0);
	CHECK_EQ(strobe_syscall_args_load_tracefs(t, dir, &err), -ENOENT);
	CHECK(strstr(err.msg, "/syscalls: No such file or directory") != NULL);
	snprintf(path, sizeof(path), "%s/syscalls", dir);
	REQUIRE(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/syscalls/sys_enter_read", dir);
	REQUIRE(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/syscalls/sys_enter_read/format", dir);
	REQUIRE((f = fopen(path, "w")));
	fputs(fmt_read, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/syscalls/sys_exit_read", dir);	/* not an enter */
	REQUIRE(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/syscalls/sys_enter_broken", dir);	/* no format */
	REQUIRE(mkdir(path, 0755) == 0);
	CHECK_EQ(strobe_syscall_args_load_tracefs(t, dir, &err), 1);
	CHECK_EQ(strobe_syscall_args_lookup(t, "read", "count", NULL), 2);
	/* from the syscalls:* formats a trace file holds */
	CHECK_EQ(strobe_syscall_args_add_formats(t, fmts), 2);
	CHECK_EQ(strobe_syscall_args_count(t), 3);	/* read, close, openat */
	CHECK_EQ(strobe_syscall_args_lookup(t, "openat", "flags", NULL), 2);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK_EQ(system(path), 0);
	strobe_syscall_args_free(t);
	strobe_formats_free(fmts);
}

/* The machine's own formats, when readable (not needed to pass). */
static void test_sysargs_from_this_machine_when_readable(void)
{
	struct strobe_syscall_args *t = NULL;
	int n;

	REQUIRE(strobe_syscall_args_new(&t) == 0);
	n = strobe_syscall_args_load_tracefs(t, NULL, NULL);
	if (n > 0) {
		CHECK_EQ(strobe_syscall_args_lookup(t, "close", "fd", NULL), 0);
		CHECK_EQ(strobe_syscall_args_lookup(t, "read", "count", NULL), 2);
	}
	strobe_syscall_args_free(t);
}

/* strobe_expr_event_names: the names an expression needs, before any
 * event type is known (live periods enable them) */
struct names_seen {
	char text[256];
};

static int note_name(void *arg, const char *lit, bool glob)
{
	struct names_seen *n = arg;
	size_t l = strlen(n->text);

	snprintf(n->text + l, sizeof(n->text) - l, "%s%s%s", l ? "," : "", glob ? "~" : "", lit);
	return 0;
}

static int stop_at_first(void *arg, const char *lit, bool glob)
{
	(void)arg;
	(void)lit;
	(void)glob;
	return -ECANCELED;
}

static void test_expr_event_names_tell_what_a_live_run_enables(void)
{
	static const struct {
		const char *text;
		int determined;
		const char *names;
	} cases[] = {
		{ "$evt.$name == \"sched_switch\"", 1, "sched_switch" },
		{ "\"sched_switch\" == $evt.$name", 1, "sched_switch" },
		{ "$evt.$name =* \"irq_softirq_*\" && $evt.cpu == 1", 1, "~irq_softirq_*" },
		{ "$evt.$name == \"a\" || $evt.$name == \"b:c\"", 1, "a,b:c" },
		{ "$evt.$name == \"a\" || $evt.procname == \"x\"", 0, "a" },
		{ "$evt.procname == \"nginx\"", 0, "" },
		{ "!($evt.$name == \"a\")", 0, "" },
		{ "$evt.$name != \"a\"", 0, "" },
		{ "$evt.tid == 5 && ($evt.$name == \"x\" || $evt.$name =* \"y*\")", 1, "x,~y*" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strobe_expr *e = NULL;
		struct strobe_error err = { 0 };
		struct names_seen n = { "" };

		REQUIRE(strobe_expr_parse(cases[i].text, 0, &e, &err) == 0);
		CHECK_EQ(strobe_expr_event_names(e, note_name, &n), cases[i].determined);
		CHECK_STR(n.text, cases[i].names);
		strobe_expr_free(e);
	}
	/* $begin's name is not the event's; fn's error stops the walk */
	{
		struct strobe_expr *e = NULL;
		struct strobe_error err = { 0 };
		struct names_seen n = { "" };

		REQUIRE(strobe_expr_parse("$begin.$evt.$name == \"a\"", 0, &e,
					  &err) == 0);
		CHECK_EQ(strobe_expr_event_names(e, note_name, &n), 0);
		CHECK_STR(n.text, "");
		strobe_expr_free(e);
		REQUIRE(strobe_expr_parse("$evt.$name == \"a\"", 0, &e, &err) == 0);
		CHECK_EQ(strobe_expr_event_names(e, stop_at_first, NULL), -ECANCELED);
		strobe_expr_free(e);
	}
	CHECK_EQ(strobe_expr_event_names(NULL, note_name, NULL), 0);
}

static void test_expr_name_matches_ftrace_full_and_lttng_names(void)
{
	CHECK(strobe_expr_name_matches("sched", "sched_switch", "sched_switch", false));
	CHECK(strobe_expr_name_matches("sched", "sched_switch", "sched:sched_switch", false));
	CHECK(strobe_expr_name_matches("irq", "softirq_entry", "irq_softirq_entry", false));
	CHECK(strobe_expr_name_matches("irq", "softirq_entry", "irq_softirq_*", true));
	CHECK(strobe_expr_name_matches("syscalls", "sys_enter_openat", "syscall_entry_openat",
				       false));
	CHECK(strobe_expr_name_matches("kmem", "kmalloc", "kmem_kmalloc", false));
	CHECK(!strobe_expr_name_matches("sched", "sched_switch", "sched_wakeup", false));
	CHECK(!strobe_expr_name_matches("sched", "sched_switch", "sched_*", false));
	CHECK(!strobe_expr_name_matches("raw_syscalls", "sys_enter", "syscall_entry_openat", false));
	CHECK(!strobe_expr_name_matches("sched", NULL, "x", false));
}

/* ---- checking against a catalogue --------------------------------------- */

struct warns {
	int n;
	char last[600];
};

static void take_warn(void *arg, const char *msg)
{
	struct warns *w = arg;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void test_expr_check_fields_kinds_and_names_against_the_trace(void)
{
	static const struct {
		const char *text;
		unsigned flags;
		int rc;
		const char *msg;	/* the error, or the one warning */
	} cases[] = {
		/* the five of issue 28 */
		{ "$evt.TID == 1", 0, -EINVAL,
		  "--filter: column 1: no field 'TID' in any event it can match; did you mean "
		  "'tid'?" },
		{ "$evt.nosuchfield == 1", 0, -EINVAL,
		  "--filter: column 1: no field 'nosuchfield' in any event it can match (as a "
		  "syscall argument on raw_syscalls:sys_enter records it needs the syscall "
		  "argument table, which is missing)" },
		{ "$evt.tid == \"1\"", 0, -EINVAL,
		  "--filter: column 13: $evt.tid is a number: compare it with a number, not the "
		  "string \"1\"" },
		{ "$evt.tid =* \"1*\"", 0, -EINVAL,
		  "--filter: column 13: '=*' matches strings, and $evt.tid is a number: compare "
		  "it with ==, <, ... and a number" },
		{ "$evt.$name == \"sched_swtich\"", 0, 0,
		  "--filter: column 15: no event in the trace is named 'sched_swtich'; did you "
		  "mean 'sched_switch'?" },
		/* live: the kernel's catalogue, so an unknown event is an error */
		{ "$evt.$name == \"sched_swtich\"", STROBE_EXPR_CHECK_LIVE, -ENOENT,
		  "--filter: column 15: the kernel has no event named 'sched_swtich'; did you "
		  "mean 'sched_switch'?" },
		{ "$evt.$name =* \"schde_*\"", 0, 0,
		  "--filter: column 15: no event in the trace matches 'schde_*'" },
		{ "$evt.$name == \"sched:sched_swich\"", 0, 0,
		  "--filter: column 15: no event in the trace is named 'sched:sched_swich'; did "
		  "you mean 'sched:sched_switch'?" },
		/* a field only some types have: the types the names allow decide */
		{ "$evt.$name == \"sched_switch\" && $evt.prev_comm == \"a\"", 0, 0, NULL },
		{ "$evt.$name == \"sched_waking\" && $evt.prev_comm == \"a\"", 0, -EINVAL,
		  "--filter: column 33: no field 'prev_comm' in any event it can match" },
		{ "$evt.$name == \"sched_switch\" && $evt.prev_com == \"a\"", 0, -EINVAL,
		  "--filter: column 33: no field 'prev_com' in any event it can match; did you "
		  "mean 'prev_comm'?" },
		{ "$evt.prev_comm == \"a\"", 0, 0, NULL },
		/* string fields and numbers */
		{ "$evt.procname > 5", 0, -EINVAL,
		  "--filter: column 17: $evt.procname is a string: compare it with a string, not "
		  "the number 5" },
		{ "$evt.s == 1.5", 0, -EINVAL,
		  "--filter: column 11: $evt.s is a string: compare it with a string, not the "
		  "number 1.5" },
		{ "$evt.s == $evt.x", 0, -EINVAL,
		  "--filter: column 1: $evt.s is a string and $evt.x a number: they never "
		  "compare" },
		{ "$evt.s =* \"a*\" && $evt.x < 2ms && $evt.cpu == 1", 0, 0, NULL },
		/* context, header and LTTng names all exist */
		{ "$evt.$ctx.procname == \"a\" || $evt.timestamp > 0 || $evt.next_tid == 1", 0, 0,
		  NULL },
		{ "$evt.$ctx.prev_comm == \"a\"", 0, -EINVAL,
		  "--filter: column 1: no field 'prev_comm' in any event it can match" },
		{ "$evt.$header.tid == 1", 0, -EINVAL,
		  "--filter: column 1: no field 'tid' in any event it can match; did you mean "
		  "'id'?" },
		/* a name nothing has: only the warning (nothing is compared) */
		{ "$evt.$name == \"nope\" && $evt.TID == 1", 0, 0,
		  "--filter: column 15: no event in the trace is named 'nope'" },
		/* messages escape control characters and keep UTF-8 */
		{ "$evt.$name == \"sch\x1b[31m\xc3\xa9\"", 0, 0,
		  "--filter: column 15: no event in the trace is named 'sch\\x1b[31m\xc3\xa9'" },
	};
	struct strobe_formats *fmts = fmts_all();
	struct strobe_error err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct warns w = { 0 };
		struct strobe_expr_check_opts o = { .size = sizeof(o), .flags = cases[i].flags,
						    .what = "--filter", .warn = take_warn,
						    .warn_arg = &w };
		struct strobe_expr *e = NULL;
		int rc;

		CHECK_EQ(strobe_expr_parse(cases[i].text, STROBE_EXPR_EVT_ONLY, &e, NULL), 0);
		memset(&err, 0, sizeof(err));
		rc = strobe_expr_check(e, fmts, &o, &err);
		CHECK_EQ(rc, cases[i].rc);
		if (rc < 0)
			CHECK_STR(err.msg, cases[i].msg);
		else if (cases[i].msg)
			CHECK_STR(w.last, cases[i].msg);
		else
			CHECK_EQ(w.n, 0);
		if (rc < 0 && cases[i].msg && w.n)
			CHECK_EQ(w.n, 0);	/* an error is not also a warning */
		strobe_expr_free(e);
	}
	strobe_formats_free(fmts);
}

static void test_expr_check_with_syscall_arguments_and_scopes(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct strobe_syscall_args *t = NULL;
	struct strobe_expr *e = NULL, *b = NULL;
	struct strobe_expr_check_opts o = { .size = sizeof(o) };
	struct strobe_error err = { 0 };

	/* $evt.fd on raw_syscalls records: fine once the table is there */
	CHECK_EQ(strobe_expr_parse("$evt.$name == \"syscall_entry_close\" && $evt.fd == 3", 0,
				   &e, NULL), 0);
	CHECK_EQ(strobe_expr_check(e, fmts, NULL, &err), 0);	/* syscalls:sys_enter_close */
	strobe_expr_free(e);
	CHECK_EQ(strobe_syscall_args_new(&t), 0);
	CHECK(strobe_syscall_args_add_formats(t, fmts) > 0);
	CHECK_EQ(strobe_expr_parse("$evt.$name == \"sys_enter\" && $evt.count == 3", 0, &e,
				   NULL), 0);
	CHECK_EQ(strobe_expr_check(e, fmts, NULL, &err), -EINVAL);
	CHECK_STR(err.msg, "column 30: no field 'count' in any event it can match (as a "
		  "syscall argument on raw_syscalls:sys_enter records it needs the syscall "
		  "argument table, which is missing)");
	strobe_expr_set_syscall_args(e, t);
	CHECK_EQ(strobe_expr_check(e, fmts, NULL, &err), -EINVAL);	/* no read format */
	strobe_expr_free(e);
	CHECK_EQ(strobe_expr_parse("$evt.$name == \"sys_enter\" && $evt.dfd == 3", 0, &e,
				   NULL), 0);
	strobe_expr_set_syscall_args(e, t);
	CHECK_EQ(strobe_expr_check(e, fmts, NULL, &err), 0);	/* openat's */
	strobe_expr_free(e);

	/* $begin.$evt is what the begin expression can match */
	CHECK_EQ(strobe_expr_parse("$evt.$name == \"sched_switch\"", 0, &b, NULL), 0);
	CHECK_EQ(strobe_expr_parse("$evt.pid == $begin.$evt.next_pid", 0, &e, NULL), 0);
	o.begin = b;
	CHECK_EQ(strobe_expr_check(e, fmts, &o, &err), 0);
	strobe_expr_free(e);
	CHECK_EQ(strobe_expr_parse("$evt.pid == $begin.$evt.child_pid", 0, &e, NULL), 0);
	CHECK_EQ(strobe_expr_check(e, fmts, &o, &err), -EINVAL);
	CHECK_STR(err.msg, "column 13: no field 'child_pid' in any event $begin.$evt can be");
	CHECK_EQ(strobe_expr_check(e, fmts, NULL, &err), 0);	/* itself: fork has it */
	strobe_expr_free(e);
	/* a capture (a reference): $evt is what its side can match */
	CHECK_EQ(strobe_expr_parse_ref("$evt.child_comm", 0, &e, NULL), 0);
	CHECK_EQ(strobe_expr_check(e, fmts, NULL, &err), 0);
	o.evt = b;
	CHECK_EQ(strobe_expr_check(e, fmts, &o, &err), -EINVAL);
	CHECK_STR(err.msg, "column 1: no field 'child_comm' in any event it can match");
	strobe_expr_free(e);
	strobe_expr_free(b);
	strobe_syscall_args_free(t);
	strobe_formats_free(fmts);
}

static void test_filter_and_periods_checks_name_their_option(void)
{
	struct strobe_formats *fmts = fmts_all();
	struct strobe_expr_filter *f = NULL;
	struct strobe_periods *p = NULL;
	struct strobe_error err = { 0 };
	struct warns w = { 0 };

	CHECK_EQ(strobe_expr_filter_new(&f), 0);
	CHECK_EQ(strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_TID, "1", &err), 0);
	CHECK_EQ(strobe_expr_filter_add(f, "$evt.x > 1", &err), 0);
	CHECK_EQ(strobe_expr_filter_add(f, "$evt.procname == 1", &err), 0);
	CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
	CHECK_EQ(strobe_expr_filter_check(f, NULL, 0, NULL, NULL, &err), 0);	/* no fmts */
	CHECK_EQ(strobe_expr_filter_check(f, fmts, 0, take_warn, &w, &err), -EINVAL);
	CHECK_STR(err.msg, "--filter '$evt.procname == 1': column 18: $evt.procname is a "
		  "string: compare it with a string, not the number 1");
	strobe_expr_filter_free(f);

	CHECK_EQ(strobe_periods_new(NULL, NULL, &p), 0);
	CHECK(strobe_periods_define(p, "sw : $evt.$name == \"sched_switch\" : "
				    "$evt.tid == $begin.$evt.next_pid", &err) >= 0);
	CHECK(strobe_periods_define(p, "in(sw) : $evt.$name == \"irq_handler_entry\" && "
				    "$parent.$begin.$evt.prev_pid == 1", &err) >= 0);
	CHECK_EQ(strobe_periods_capture(p, "sw : a = $evt.prev_comm : b = $begin.$evt.next_comm",
					&err), 0);
	CHECK_EQ(strobe_periods_check(p, fmts, 0, take_warn, &w, &err), 0);
	CHECK_EQ(w.n, 0);
	CHECK(strobe_periods_define(p, "bad : $evt.$name == \"sched_switch\" : "
				    "$evt.tid == $begin.$evt.irq", &err) >= 0);
	CHECK_EQ(strobe_periods_check(p, fmts, 0, take_warn, &w, &err), -EINVAL);
	CHECK_STR(err.msg, "--period bad end: column 50: no field 'irq' in any event "
		  "$begin.$evt can be");
	strobe_periods_free(p);

	CHECK_EQ(strobe_periods_new(NULL, NULL, &p), 0);
	CHECK(strobe_periods_define(p, "sw : $evt.$name == \"sched_swich\"", &err) >= 0);
	CHECK_EQ(strobe_periods_check(p, fmts, 0, take_warn, &w, &err), 0);
	CHECK_EQ(w.n, 1);	/* once: the end repeats the begin text */
	CHECK_STR(w.last, "--period sw begin: column 20: no event in the trace is named "
		  "'sched_swich'; did you mean 'sched_switch'?");
	CHECK_EQ(strobe_periods_check(p, fmts, STROBE_EXPR_CHECK_LIVE, take_warn, &w, &err),
		 -ENOENT);
	CHECK_EQ(strobe_periods_capture(p, "sw : a = $evt.prev_com", &err), 0);
	strobe_periods_free(p);

	CHECK_EQ(strobe_periods_new(NULL, NULL, &p), 0);
	CHECK(strobe_periods_define(p, "sw : $evt.$name == \"sched_switch\"", &err) >= 0);
	CHECK_EQ(strobe_periods_capture(p, "sw : a = $evt.prev_com", &err), 0);
	CHECK_EQ(strobe_periods_check(p, fmts, 0, NULL, NULL, &err), -EINVAL);
	CHECK_STR(err.msg, "--period-captures sw: column 10: no field 'prev_com' in any event "
		  "it can match; did you mean 'prev_comm'?");
	strobe_periods_free(p);
	strobe_formats_free(fmts);
}

static void test_expr_messages_quote_numbers_whole_and_escape_text(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "$evt.tid == 1.5e300s", "column 13: expected a duration within 292 years, "
		  "found '1.5e300s'" },
		{ "$evt.tid == -1e999", "column 13: expected a finite number, found '-1e999'" },
		{ "$evt.tid == 0x1g", "column 13: expected a number, found '0x1g'" },
		{ "$evt.tid == \xc3\xa9", "column 13: expected a value ($evt reference, number, "
		  "duration or string), found '\xc3\xa9'" },
		{ "$evt.tid == \x1b[31m", "column 13: expected a value ($evt reference, number, "
		  "duration or string), found '\\x1b'" },
		{ "$evt.tid == 1 \xff", "column 15: expected an operator (&&, ||) or the end, "
		  "found '\\xff'" },
		{ "$evt.tid == 1 \t\x7f", "column 16: expected an operator (&&, ||) or the end, "
		  "found '\\x7f'" },
	};
	struct strobe_error err;
	struct strobe_expr *e;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		CHECK_EQ(strobe_expr_parse(cases[i].text, 0, &e, &err), -EINVAL);
		CHECK_STR(err.msg, cases[i].msg);
	}
}

static void test_filter_allows_the_documented_nesting(void)
{
	struct strobe_expr_filter *f = NULL;
	struct strobe_error err = { 0 };
	char text[600];
	int i, n = 0;

	/* 128 levels in a --filter: wrapping it in the filter's own
	 * parentheses and printing its conjuncts must not refuse it */
	for (i = 0; i < 128; i++)
		text[n++] = '(';
	n += snprintf(text + n, sizeof(text) - (size_t)n, "$evt.tid == 1");
	for (i = 0; i < 128; i++)
		text[n++] = ')';
	text[n] = '\0';
	CHECK_EQ(strobe_expr_filter_new(&f), 0);
	CHECK_EQ(strobe_expr_filter_add(f, text, &err), 0);
	CHECK_EQ(strobe_expr_filter_add(f, "$evt.cpu == 1 || $evt.x > 1", &err), 0);
	CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
	strobe_expr_filter_free(f);
	n = 0;
	for (i = 0; i < 127; i++)
		text[n++] = '!';
	snprintf(text + n, sizeof(text) - (size_t)n, "$evt.tid == 1");
	CHECK_EQ(strobe_expr_filter_new(&f), 0);
	CHECK_EQ(strobe_expr_filter_add(f, text, &err), 0);
	CHECK_EQ(strobe_expr_filter_add(f, "$evt.x > 1", &err), 0);
	CHECK_EQ(strobe_expr_filter_compile(f, &err), 0);
	strobe_expr_filter_free(f);
	/* 129 is refused, naming the option */
	memmove(text + 2, text, strlen(text) + 1);
	text[0] = '!';
	text[1] = '!';
	CHECK_EQ(strobe_expr_filter_new(&f), 0);
	CHECK_EQ(strobe_expr_filter_add(f, text, &err), -EINVAL);
	CHECK_STR(err.msg, "--filter '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
		  "!!!!...': column 129: nested more than 128 levels deep");
	strobe_expr_filter_free(f);
}

TESTS(T(test_expr_check_fields_kinds_and_names_against_the_trace),
      T(test_expr_check_with_syscall_arguments_and_scopes),
      T(test_filter_and_periods_checks_name_their_option),
      T(test_expr_messages_quote_numbers_whole_and_escape_text),
      T(test_filter_allows_the_documented_nesting),
      T(test_expr_event_names_tell_what_a_live_run_enables),
      T(test_expr_name_matches_ftrace_full_and_lttng_names),
      T(test_expr_print_round_trips_lttng_examples),
      T(test_expr_precedence_matches_c),
      T(test_expr_errors_name_column_and_expectation),
      T(test_expr_nesting_is_bounded),
      T(test_period_defs_parse_lttng_examples),
      T(test_period_def_errors),
      T(test_period_captures_parse_lttng_examples),
      T(test_period_captures_errors),
      T(test_expr_eval_sched_switch_fields_and_lttng_aliases),
      T(test_expr_eval_sched_waking_tid_is_payload_pid_is_process),
      T(test_expr_eval_missing_fields_follow_lttng),
      T(test_expr_eval_numbers_durations_and_lttng_truncation),
      T(test_expr_eval_globs),
      T(test_expr_eval_data_loc_strings),
      T(test_expr_eval_lttng_syscall_names_on_raw_syscalls),
      T(test_expr_eval_raw_syscall_argument_names),
      T(test_expr_eval_begin_and_parent_scopes),
      T(test_expr_value_of_references),
      T(test_expr_may_match_decides_subscriptions_by_type),
      T(test_expr_lttng_names_of_ftrace_events),
      T(test_expr_env_from_task_model),
      T(test_filter_options_compile_to_expressions),
      T(test_filter_terms_and_with_their_fast_paths),
      T(test_filter_container_sugar_matches_name_id_and_prefix),
      T(test_sysargs_from_format_text_and_text_round_trip),
      T(test_sysargs_rejects_and_skips_bad_input),
      T(test_sysargs_from_a_tracefs_directory_and_a_tep),
      T(test_sysargs_from_this_machine_when_readable));
