/*
 * test_flame.c - folded stacks and flame graphs (lib/pictures): the
 * trie adds up equal stacks and writes sorted folded lines; the SVG holds
 * every frame with names escaped (<, &, quotes) and widths in proportion;
 * and off-CPU folding over synthetic switches and stack records (the
 * order the kernel writes them: switch, user stack, kernel stack on the
 * same CPU) gives the hand-computed weights: each switch-out to the
 * thread's next switch-in, on the stack recorded after the switch-out,
 * the tracing frames trimmed, a switch without a stack as "[no stack]",
 * a thread never switched back in not counted, a stack of another task
 * or after another event not paired, selection by process.
 */
#include <errno.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/pictures.h>

#include "format/format-int.h"
#include "formats.h"
#include "test.h"

static void test_flame_adds_equal_stacks_and_folds_sorted(void)
{
	struct strobe_flame *f;
	struct strobe_buf *b = strobe_buf_new();
	const char *s1[] = { "host", "sh", "b;x", "c" }, *s2[] = { "host", "sh", "a" },
		   *s3[] = { "host", "sh", "b;x", "c" }, *s4[] = { "host", "sh", "b;x" },
		   *p[] = { "host", "sh", "b;x" };

	REQUIRE(b && strobe_flame_new(&f) == 0);
	CHECK_EQ(strobe_flame_add(f, s1, 4, 10), 0);
	CHECK_EQ(strobe_flame_add(f, s2, 3, 5), 0);
	CHECK_EQ(strobe_flame_add(f, s3, 4, 7), 0);
	CHECK_EQ(strobe_flame_add(f, s4, 3, 1), 0);
	CHECK_EQ(strobe_flame_add(f, s4, 0, 1), -EINVAL);
	CHECK_EQ(strobe_flame_total(f), 23);
	CHECK_EQ(strobe_flame_nr_stacks(f), 3);
	CHECK_EQ(strobe_flame_weight(f, p, 3), 18);
	CHECK_EQ(strobe_flame_weight(f, p, 1), 23);
	CHECK_EQ(strobe_flame_write_folded(f, b), 0);
	CHECK_STR(strobe_buf_data(b), "host;sh;a 5\nhost;sh;b_x 1\nhost;sh;b_x;c 17\n");
	strobe_flame_free(f);
	strobe_buf_free(b);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static void test_flame_svg_escapes_names_and_scales_widths(void)
{
	struct strobe_flame_svg_opts o = { .size = sizeof(o), .unit = "ns", .width = 1020,
					   .title = "t<&>\"", .root_levels = 1 };
	struct strobe_error err = { 0, "" };
	struct strobe_flame *f;
	struct strobe_buf *b = strobe_buf_new();
	const char *s1[] = { "web<1>", "a&\"b\"", "leaf'q" }, *s2[] = { "web<1>", "z" };
	const char *svg;

	REQUIRE(b && strobe_flame_new(&f) == 0);
	CHECK_EQ(strobe_flame_write_svg(f, &o, b, &err), -EINVAL);	/* empty */
	strobe_flame_add(f, s1, 3, 750000000);
	strobe_flame_add(f, s2, 2, 250000000);
	CHECK_EQ(strobe_flame_write_svg(f, &o, b, &err), 0);
	svg = strobe_buf_data(b);
	CHECK(!strncmp(svg, "<?xml", 5));
	CHECK(strstr(svg, "</svg>\n") != NULL);
	CHECK(strstr(svg, ">t&lt;&amp;&gt;&quot;</text>") != NULL);
	CHECK(strstr(svg, "data-name=\"web&lt;1&gt;\"") != NULL);
	CHECK(strstr(svg, "data-name=\"a&amp;&quot;b&quot;\"") != NULL);
	CHECK(strstr(svg, "<title>leaf&#39;q (750.000 ms, 75.00%)</title>") != NULL);
	CHECK(strstr(svg, "<title>web&lt;1&gt; (1.000 s, 100.00%)</title>") != NULL);
	/* 1000 px for the whole, root at the bottom (y 90 of 140): the root
	 * 1000 wide, a 750, z 250 from x 760 one level up */
	CHECK(strstr(svg, "x=\"10\" y=\"90\" width=\"1000\"") != NULL);
	CHECK(strstr(svg, "width=\"750\"") != NULL);
	CHECK(strstr(svg, "x=\"760\" y=\"74\" width=\"250\"") != NULL);
	CHECK_EQ(count(svg, "<g class=\"f\""), 4);
	/* nothing unescaped from the names made it into the markup */
	CHECK(strstr(svg, "web<1>") == NULL);
	CHECK(strstr(svg, "a&\"b") == NULL);
	/* no external resources: no href, no url() */
	CHECK(strstr(svg, "href=") == NULL);
	CHECK(strstr(svg, "url(") == NULL);
	strobe_flame_free(f);
	strobe_buf_free(b);
}

/* ---- off-CPU folding ---------------------------------------------------- */

enum { ID_SWITCH = 372, ID_KSTACK = 4, ID_USTACK = 13, ID_OTHER = 500, ID_FORK = 703 };

static const char fmt_fork[] = "name: sched_process_fork\nID: 703\nformat:\n" FMT_COMMON
	"\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"child_pid=%d\", REC->child_pid\n";

static const char fmt_switch[] = "name: sched_switch\nID: 372\nformat:\n"
	FMT_COMMON FMT_SWITCH_FIELDS
	"print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";
static const char fmt_kstack[] = "name: kernel_stack\nID: 4\nformat:\n" FMT_COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";
static const char fmt_ustack[] = "name: user_stack\nID: 13\nformat:\n" FMT_COMMON
	"\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";
static const char fmt_other[] = "name: other\nID: 500\nformat:\n" FMT_COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";

static char kallsyms[] =
	"ffffffff81000100 T entry_SYSCALL_64\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffff81002000 T do_nanosleep\n"
	"ffffffff81003000 T schedule\n"
	"ffffffff81004000 T __schedule\n"
	"ffffffff81005000 T __traceiter_sched_switch\n"
	"ffffffff81006000 T trace_event_raw_event_sched_switch\n"
	"ffffffff81007000 T io_schedule\n"
	"ffffffff81008000 T zz_end\n";

struct off {
	struct tep_handle *tep;
	struct strobe_formats *fmts;
	struct strobe_offcpu *oc;
	uint8_t d[128];
};

static void off_open(struct off *o, const struct strobe_offcpu_opts *opts)
{
	memset(o, 0, sizeof(*o));
	o->tep = tep_alloc();
	tep_set_long_size(o->tep, 8);
	tep_set_file_bigendian(o->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(o->tep, TEP_LITTLE_ENDIAN);
	tep_parse_event(o->tep, fmt_switch, strlen(fmt_switch), "sched");
	tep_parse_event(o->tep, fmt_kstack, strlen(fmt_kstack), "ftrace");
	tep_parse_event(o->tep, fmt_ustack, strlen(fmt_ustack), "ftrace");
	tep_parse_event(o->tep, fmt_other, strlen(fmt_other), "test");
	tep_parse_event(o->tep, fmt_fork, strlen(fmt_fork), "sched");
	tep_parse_kallsyms(o->tep, kallsyms);
	o->fmts = strobe_formats_adopt(o->tep);
	strobe_offcpu_new(opts, &o->oc, NULL);
}

static void off_close(struct off *o)
{
	strobe_offcpu_free(o->oc);
	strobe_formats_free(o->fmts);
}

static void emit(struct off *o, int type, int pid, int cpu, uint64_t ts, uint32_t size)
{
	struct strobe_event ev = { 0 };

	o->d[0] = (uint8_t)type;
	o->d[1] = (uint8_t)(type >> 8);
	memcpy(o->d + 4, &pid, 4);
	ev.ts = ts;
	ev.data = o->d;
	ev.size = size;
	ev.cpu = cpu;
	ev.type = type;
	ev.pid = pid;
	ev.format = strobe_formats_by_id(o->fmts, type);
	CHECK_EQ(strobe_offcpu_feed(o->oc, &ev, NULL), 0);
	memset(o->d, 0, sizeof(o->d));
}

static void sw(struct off *o, int cpu, uint64_t ts, int prev, const char *comm, int next)
{
	memcpy(o->d + 8, comm, strlen(comm));
	memcpy(o->d + 24, &prev, 4);
	memcpy(o->d + 56, &next, 4);
	emit(o, ID_SWITCH, prev, cpu, ts, 64);
}

/* the kernel's order: innermost first, as many callers as the stack has */
static void kstack(struct off *o, int cpu, uint64_t ts, int pid, const uint64_t *a, int n)
{
	memcpy(o->d + 8, &n, 4);
	memcpy(o->d + 16, a, (size_t)n * 8);
	emit(o, ID_KSTACK, pid, cpu, ts, 16 + (uint32_t)n * 8);
}

static void ustack(struct off *o, int cpu, uint64_t ts, int pid, const uint64_t *a, int n)
{
	memcpy(o->d + 16, a, (size_t)n * 8);	/* the rest stays 0 */
	emit(o, ID_USTACK, pid, cpu, ts, 80);
}

static const uint64_t nsleep[] = { 0xffffffff81006010, 0xffffffff81005010, 0xffffffff81004010,
				   0xffffffff81003010, 0xffffffff81002010, 0xffffffff81001010,
				   0xffffffff81000110 };
static const uint64_t io[] = { 0xffffffff81006010, 0xffffffff81005010, 0xffffffff81004020,
			       0xffffffff81007010, 0xffffffff81001010 };

static void test_offcpu_folds_time_off_cpu_by_stack(void)
{
	struct strobe_offcpu_opts opts = { .size = sizeof(opts) };
	struct strobe_error err = { 0, "" };
	struct strobe_offcpu_stats st;
	const uint64_t user[] = { 0x401000, 0x402000 };
	struct strobe_buf *b = strobe_buf_new();
	struct off o;

	REQUIRE(b);
	off_open(&o, &opts);
	REQUIRE(o.oc && o.fmts);
	/* 100 sleeps 1000..5000 on cpu 0 (4000 ns) and 6000..7500 (1500) */
	sw(&o, 0, 1000, 100, "a<b&\"c\"", 0);
	kstack(&o, 0, 1001, 100, nsleep, 7);
	sw(&o, 0, 5000, 0, "swapper/0", 100);
	sw(&o, 0, 6000, 100, "a<b&\"c\"", 0);
	kstack(&o, 0, 6001, 100, nsleep, 7);
	sw(&o, 1, 7500, 0, "swapper/1", 100);	/* back in on the other CPU */
	/* 200 waits for I/O 2000..2600 with a user stack, the user stack
	 * first as the kernel writes it */
	sw(&o, 1, 2000, 200, "io", 0);
	ustack(&o, 1, 2001, 200, user, 2);
	kstack(&o, 1, 2002, 200, io, 5);
	sw(&o, 1, 2600, 0, "swapper/1", 200);
	/* 300 is preempted 3000..3300 and its stack is lost: [no stack] */
	sw(&o, 0, 3000, 300, "nostack", 400);
	/* a stack of 300 after another event is not the switch's */
	emit(&o, ID_OTHER, 400, 0, 3100, 12);
	kstack(&o, 0, 3101, 300, io, 5);
	/* a stack of another task right after the switch is not paired */
	sw(&o, 0, 3300, 400, "x", 300);
	kstack(&o, 0, 3301, 999, io, 5);
	/* 400 never comes back: not counted */
	CHECK_EQ(strobe_offcpu_done(o.oc, &err), 0);
	CHECK_EQ(strobe_flame_write_folded(strobe_offcpu_flame(o.oc), b), 0);
	CHECK_STR(strobe_buf_data(b),
		  "host;a<b&\"c\";entry_SYSCALL_64;do_syscall_64;do_nanosleep;schedule;"
		  "__schedule 5500\n"
		  "host;io;0x402000;0x401000;do_syscall_64;io_schedule;__schedule 600\n"
		  "host;nostack;[no stack] 300\n");
	strobe_offcpu_stats(o.oc, &st);
	CHECK_EQ(st.switches, 5);
	CHECK_EQ(st.kernel_stacks, 3);
	CHECK_EQ(st.user_stacks, 1);
	CHECK_EQ(st.periods, 4);
	CHECK_EQ(st.no_stack, 1);
	CHECK_EQ(st.still_off, 1);
	CHECK_EQ(st.off_ns, 6400);
	off_close(&o);
	strobe_buf_free(b);
}

static void test_offcpu_selects_and_groups(void)
{
	struct strobe_offcpu_opts opts = { .size = sizeof(opts), .group_by = STROBE_FLAME_BY_THREAD,
					   .min_ns = 1000, .no_user = true };
	const int pids[] = { 100 };
	struct strobe_error err = { 0, "" };
	const uint64_t user[] = { 0x401000 };
	struct strobe_buf *b = strobe_buf_new();
	struct off o;

	REQUIRE(b);
	opts.pids = pids;
	opts.nr_pids = 1;
	off_open(&o, &opts);
	REQUIRE(o.oc);
	sw(&o, 0, 1000, 100, "sl", 0);
	ustack(&o, 0, 1001, 100, user, 1);
	kstack(&o, 0, 1002, 100, nsleep, 7);
	sw(&o, 0, 3000, 0, "swapper/0", 100);	/* 2000 */
	sw(&o, 0, 3500, 100, "sl", 0);
	kstack(&o, 0, 3501, 100, nsleep, 7);
	sw(&o, 0, 4000, 0, "swapper/0", 100);	/* 500 < min */
	sw(&o, 1, 1000, 200, "other", 0);	/* not selected */
	kstack(&o, 1, 1001, 200, io, 5);
	sw(&o, 1, 9000, 0, "swapper/1", 200);
	CHECK_EQ(strobe_offcpu_done(o.oc, &err), 0);
	strobe_flame_write_folded(strobe_offcpu_flame(o.oc), b);
	CHECK_STR(strobe_buf_data(b), "sl-100;entry_SYSCALL_64;do_syscall_64;do_nanosleep;"
		  "schedule;__schedule 2000\n");
	off_close(&o);
	strobe_buf_free(b);
}

static void test_offcpu_without_stacks_says_how_to_record_them(void)
{
	struct strobe_error err = { 0, "" };
	struct off o;

	off_open(&o, NULL);
	REQUIRE(o.oc);
	sw(&o, 0, 1000, 100, "sl", 0);
	sw(&o, 0, 3000, 0, "swapper/0", 100);
	CHECK_EQ(strobe_offcpu_done(o.oc, &err), -ENOENT);
	CHECK(strstr(err.msg, "strobe record --stacks") != NULL);
	off_close(&o);
}

/* A recording of a command: its task and what it forks count, another
 * task met in a switch does not (its switch-in may not be recorded). */
static void test_offcpu_restricted_recording_counts_traced_tasks(void)
{
	struct strobe_error err = { 0, "" };
	struct strobe_buf *b = strobe_buf_new();
	struct off o;
	int v;

	REQUIRE(b);
	off_open(&o, NULL);
	REQUIRE(o.oc);
	CHECK_EQ(strobe_offcpu_set_target(o.oc, "bogus", NULL, NULL, &err), -EINVAL);
	CHECK_EQ(strobe_offcpu_set_target(o.oc, "command", "100", NULL, &err), 0);
	v = 100;
	memcpy(o.d + 24, &v, 4);
	v = 300;
	memcpy(o.d + 44, &v, 4);
	emit(&o, ID_FORK, 100, 0, 500, 48);
	sw(&o, 0, 1000, 100, "cmd", 200);
	kstack(&o, 0, 1001, 100, nsleep, 7);
	sw(&o, 0, 2000, 200, "other", 300);	/* 200: not traced */
	kstack(&o, 0, 2001, 200, io, 5);
	sw(&o, 0, 2500, 300, "child", 100);	/* 100 back: 1500 */
	kstack(&o, 0, 2501, 300, io, 5);
	sw(&o, 1, 9000, 0, "swapper/1", 300);	/* 300 back: 6500 */
	sw(&o, 1, 9500, 0, "swapper/1", 200);
	CHECK_EQ(strobe_offcpu_done(o.oc, &err), 0);
	strobe_flame_write_folded(strobe_offcpu_flame(o.oc), b);
	CHECK_STR(strobe_buf_data(b),
		  "host;child;do_syscall_64;io_schedule;__schedule 6500\n"
		  "host;cmd;entry_SYSCALL_64;do_syscall_64;do_nanosleep;schedule;__schedule 1500\n");
	off_close(&o);
	strobe_buf_free(b);
}

TESTS(T(test_offcpu_restricted_recording_counts_traced_tasks),
      T(test_flame_adds_equal_stacks_and_folds_sorted),
      T(test_flame_svg_escapes_names_and_scales_widths),
      T(test_offcpu_folds_time_off_cpu_by_stack), T(test_offcpu_selects_and_groups),
      T(test_offcpu_without_stacks_says_how_to_record_them));
