/*
 * test_funcgraph.c - function and function_graph records printed as
 * trace-cmd report prints them (format/tep.c's handlers, output/fgraph.c's
 * leaf rule; libtraceevent's function plugin for ftrace:function, as for
 * trace-cmd): an entry with its own exit next as one
 * leaf line "func();" with the duration and overhead mark; nested entries
 * "func() {" and exits "}" with indentation by depth; unknown addresses
 * in hex.
 *
 * `test_funcgraph --write PATH` writes the fixture file instead (for
 * tests/cli/08-funcgraph.sh, which compares strobe report with trace-cmd
 * report on it line for line).
 */
#include <errno.h>

#include <strobe/output.h>

#include "test.h"
#include "tracefile_fixture.h"

enum { ID_FUNC = 1, ID_FG_EXIT = 10, ID_FG_ENTRY = 11 };

static struct strobe_tf_format fmts[] = {
	{ "ftrace", "name: function\nID: 1\nformat:\n" FMT_COMMON
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n", 0 },
	{ "ftrace", "name: funcgraph_exit\nID: 10\nformat:\n" FMT_COMMON
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, "
	  "REC->depth, REC->calltime, REC->rettime, REC->depth\n", 0 },
	{ "ftrace", "name: funcgraph_entry\nID: 11\nformat:\n" FMT_COMMON
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n", 0 },
};

static const char kallsyms[] =
	"ffffffff81100000 T do_sys_openat2\n"
	"ffffffff81100400 T getname_flags\n"
	"ffffffff81100800 T do_filp_open\n"
	"ffffffff81100c00 T path_openat\n"
	"ffffffff81101000 T ksys_read\n"
	"ffffffff81101400 T vfs_read\n"
	"ffffffff81101800 T schedule\n"
	"ffffffff81101c00 T _etext\n";
static const char cmdlines[] = "100 worker\n200 other\n";

#define T0 1000000000000ull	/* 1000 s */
#define F(x) (0xffffffff81100000ull + (x))

static int n_ev;
static struct fx_event evs[64];

static void entry(uint64_t ts, int cpu, int pid, uint64_t func, int depth)
{
	struct fx_event *e = fx_payload(&evs[n_ev++], ts, cpu, ID_FG_ENTRY, pid, 24);

	fx_put64(e->data + 8, func);
	fx_put32(e->data + 16, (uint32_t)depth);
}

static void exit_(uint64_t ts, int cpu, int pid, uint64_t func, int depth, uint64_t call)
{
	struct fx_event *e = fx_payload(&evs[n_ev++], ts, cpu, ID_FG_EXIT, pid, 40);

	fx_put64(e->data + 8, func);
	fx_put32(e->data + 16, (uint32_t)depth);
	fx_put64(e->data + 24, call);
	fx_put64(e->data + 32, ts);
}

/* The events, in time order: a call tree of worker (100) on CPU 0 with
 * leaves, nesting, the overhead marks and an unknown address; a function
 * record; an entry followed by another task's event (not a leaf); an
 * entry whose exit comes after another record of its own task. */
static void build(void)
{
	uint64_t t = T0;
	struct fx_event *e;

	n_ev = 0;
	entry(t + 100, 0, 100, F(0x000), 0);		/* do_sys_openat2() { */
	entry(t + 200, 0, 100, F(0x400), 1);		/*   getname_flags(); */
	exit_(t + 1432, 0, 100, F(0x400), 1, t + 200);
	entry(t + 2000, 0, 100, F(0x800), 1);		/*   do_filp_open() { */
	entry(t + 2100, 0, 100, F(0xc00), 2);		/*     path_openat(); 15 us */
	exit_(t + 17100, 0, 100, F(0xc00), 2, t + 2100);
	entry(t + 17200, 0, 100, 0xffffffff80000010ull, 2);	/* unknown, 150 us */
	exit_(t + 167200, 0, 100, 0xffffffff80000010ull, 2, t + 17200);
	exit_(t + 170000, 0, 100, F(0x800), 1, t + 2000);	/*   } 168 us */
	exit_(t + 2170000, 0, 100, F(0x000), 0, t + 100);	/* } 2.17 ms */
	e = fx_payload(&evs[n_ev++], t + 2200000, 0, ID_FUNC, 100, 24);
	fx_put64(e->data + 8, F(0x1400));
	fx_put64(e->data + 16, F(0x1000));
	e = fx_payload(&evs[n_ev++], t + 2200100, 0, ID_FUNC, 100, 24);
	fx_put64(e->data + 8, 0xffffffff80000020ull);	/* unknown ip */
	fx_put64(e->data + 16, F(0x1000));
	entry(t + 2300000, 0, 100, F(0x1000), 0);	/* ksys_read() {: other's */
	entry(t + 2300100, 0, 200, F(0x1800), 0);	/* event comes next */
	exit_(t + 2300500, 0, 200, F(0x1800), 0, t + 2300100);
	exit_(t + 1002300600ull, 0, 100, F(0x1000), 0, t + 2300000);	/* } 1 s: "$ " */
	entry(t + 1002400000ull, 0, 100, F(0x1400), 0);	/* the last record: nested */
}

static int write_fixture(const char *path)
{
	struct strobe_tf_meta m;
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	size_t i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		fmts[i].len = strlen(fmts[i].text);
	build();
	fx_meta(&m);
	m.formats = fmts;
	m.nr_formats = sizeof(fmts) / sizeof(fmts[0]);
	m.kallsyms = (struct strobe_tf_blob){ kallsyms, sizeof(kallsyms) - 1 };
	m.cmdlines = (struct strobe_tf_blob){ cmdlines, sizeof(cmdlines) - 1 };
	if (strobe_tf_writer_open(path, &m, 1, &w, &err) || fx_add_cpus(w, evs, n_ev, 1, &err) ||
	    strobe_tf_writer_close(w, NULL, NULL, &err)) {
		fprintf(stderr, "fixture: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* Each event's text line, as strobe report would print it with the leaf
 * rule applied by hand. */
static void test_lines_as_trace_cmd_prints_them(void)
{
	char path[] = "/tmp/strobe-fg-XXXXXX.dat";
	struct strobe_tracefile *tf = NULL;
	struct strobe_stream *st = NULL;
	struct strobe_error err = { 0 };
	struct strobe_formats *f;
	struct strobe_event ev, held;
	struct strobe_buf *b = strobe_buf_new();
	uint8_t hd[256];
	bool have = false;
	int fd = mkstemps(path, 4), r;

	REQUIRE(fd >= 0 && b);
	close(fd);
	REQUIRE(write_fixture(path) == 0);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	f = strobe_tracefile_formats(tf);
	REQUIRE(strobe_stream_open_file(tf, NULL, &st, &err) == 0);
	while ((r = strobe_stream_next(st, &ev, &err)) > 0) {
		if (have) {
			bool leaf = strobe_fgraph_leaf(f, &held, &ev);

			have = false;
			strobe_fgraph_set_leaf(f, leaf ? &ev : NULL);
			strobe_format_event_text(f, &held, NULL, NULL, b);
			strobe_fgraph_set_leaf(f, NULL);
			if (leaf)
				continue;
		}
		if (strobe_fgraph_is_entry(f, &ev)) {
			held = ev;
			memcpy(hd, ev.data, ev.size);
			held.data = hd;
			have = true;
			continue;
		}
		strobe_format_event_text(f, &ev, NULL, NULL, b);
	}
	if (have)
		strobe_format_event_text(f, &held, NULL, NULL, b);
	CHECK_EQ(r, 0);
	CHECK_STR(strobe_buf_data(b),
		  "          worker-100   [000]  1000.000000: funcgraph_entry:                   |  do_sys_openat2() {\n"
		  "          worker-100   [000]  1000.000000: funcgraph_entry:        1.232 us   |    getname_flags();\n"
		  "          worker-100   [000]  1000.000002: funcgraph_entry:                   |    do_filp_open() {\n"
		  "          worker-100   [000]  1000.000002: funcgraph_entry:      + 15.000 us  |      path_openat();\n"
		  "          worker-100   [000]  1000.000017: funcgraph_entry:      ! 150.000 us |      ffffffff80000010();\n"
		  "          worker-100   [000]  1000.000170: funcgraph_exit:       ! 168.000 us |    }\n"
		  "          worker-100   [000]  1000.002170: funcgraph_exit:       # 2169.900 us |  }\n"
		  "          worker-100   [000]  1000.002200: function:             vfs_read\n"
		  "          worker-100   [000]  1000.002200: function:             0xffffffff80000020\n"
		  "          worker-100   [000]  1000.002300: funcgraph_entry:                   |  ksys_read() {\n"
		  "           other-200   [000]  1000.002300: funcgraph_entry:        0.400 us   |  schedule();\n"
		  "          worker-100   [000]  1001.002301: funcgraph_exit:       $ 1000000 us |  }\n"
		  "          worker-100   [000]  1001.002400: funcgraph_entry:                   |  vfs_read() {\n");
	strobe_stream_close(st);
	strobe_tracefile_close(tf);
	strobe_buf_free(b);
	unlink(path);
}

static const struct test_case test_cases[] = {
	T(test_lines_as_trace_cmd_prints_them),
};

int main(int argc, char **argv)
{
	size_t i, n = sizeof(test_cases) / sizeof(test_cases[0]);

	if (argc == 3 && !strcmp(argv[1], "--write"))
		return write_fixture(argv[2]) == 0 ? 0 : 1;
	for (i = 0; i < n; i++) {
		int before = test_failed_checks;

		test_cases[i].fn();
		printf("%s %s\n", test_failed_checks != before ? "FAIL" : "PASS",
		       test_cases[i].name);
	}
	return test_failed_checks ? 1 : 0;
}
