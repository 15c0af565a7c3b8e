/*
 * test_top.c - strobe top's engine (lib/top) on synthetic events fed
 * through its pipeline consumer, with hand-computed figures: a thread
 * spinning on CPU 0 for the whole interval (100% CPU, one switch-out at
 * the end of the second interval), a thread making 100 system calls of
 * which 10 fail, woken 4 times with known run-queue latencies; the rows
 * under each grouping, the sort, the filter and the drill-down rebuilt
 * from the same figures; the interval's per-container figures (what the
 * metrics count); the percentile interpolation and the cgroup memory file
 * of /proc/PID/cgroup texts (v1, v2, hybrid).
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/pipeline.h>
#include <strobe/top.h>

#include "analysis_fixture.h"
#include "top/top-int.h"

static const struct fixture_fmt fmts[] = {
	{ fmt_switch, "sched" }, { fmt_enter, "raw_syscalls" }, { fmt_exit, "raw_syscalls" },
	{ fmt_waking, "sched" },
};

struct rig {
	struct tep_handle *tep;
	struct strobe_formats *f;
	struct strobe_model *m;
	struct strobe_top *top;
	struct strobe_consumer c;
	uint8_t d[64];
	int intervals;
	struct strobe_top_interval last;
	uint64_t cont_cpu_ns, cont_sys, cont_err, cont_rq;
	int cont_nsys;
	int64_t missed;	/* the next event's ev.missed */
};

static void ev(struct rig *r, int type, int pid, int cpu, uint64_t ts)
{
	struct strobe_event e = { 0 };
	struct strobe_error err = { 0, "" };

	r->d[0] = (uint8_t)type;
	r->d[1] = (uint8_t)(type >> 8);
	put32(r->d + 4, (uint32_t)pid);
	e.ts = ts;
	e.data = r->d;
	e.size = 64;
	e.cpu = cpu;
	e.type = type;
	e.pid = pid;
	e.missed = r->missed;
	r->missed = 0;
	e.format = strobe_formats_by_id(r->f, type);
	strobe_model_update(r->m, &e);
	CHECK_EQ(r->c.event(&e, 0, r->c.arg, &err), 0);
	memset(r->d, 0, sizeof(r->d));
}

static void sw(struct rig *r, int cpu, uint64_t ts, int prev, int next)
{
	put32(r->d + 24, (uint32_t)prev);
	put64(r->d + 32, 1);	/* S */
	put32(r->d + 56, (uint32_t)next);
	ev(r, ID_SWITCH, prev, cpu, ts);
}

static void sys(struct rig *r, int tid, uint64_t ts, long nr, long ret)
{
	put64(r->d + 8, (uint64_t)nr);
	ev(r, ID_ENTER, tid, 1, ts);
	put64(r->d + 8, (uint64_t)nr);
	put64(r->d + 16, (uint64_t)ret);
	ev(r, ID_EXIT, tid, 1, ts + 1000);
}

static void waking(struct rig *r, int waker, int tid, uint64_t ts)
{
	put32(r->d + 24, (uint32_t)tid);
	put32(r->d + 32, 1);
	ev(r, ID_WAKING, waker, 1, ts);
}

static int on_interval(struct strobe_top *t, const struct strobe_top_interval *iv, void *arg)
{
	struct rig *r = arg;
	int i, k;

	r->intervals++;
	r->last = *iv;
	r->cont_cpu_ns = r->cont_sys = r->cont_err = r->cont_rq = 0;
	r->cont_nsys = 0;
	for (i = 0; i < iv->nr_containers; i++) {
		r->cont_cpu_ns += iv->containers[i].cpu_ns;
		r->cont_rq += iv->containers[i].runq_lat.count;
		for (k = 0; k < iv->containers[i].nr_syscalls; k++) {
			r->cont_sys += iv->containers[i].syscalls[k].count;
			r->cont_err += iv->containers[i].syscalls[k].errors;
		}
		r->cont_nsys += iv->containers[i].nr_syscalls;
	}
	return 0;
}

static int rig_start(struct rig *r, const char *columns, enum strobe_top_group g)
{
	struct strobe_top_opts o = { .size = sizeof(o), .group_by = g, .columns = columns,
				     .on_interval = on_interval, .arg = r, .top_syscalls = 1 };
	struct strobe_pipeline_source src = { 0 };
	struct strobe_error err = { 0, "" };

	memset(r, 0, sizeof(*r));
	o.arg = r;
	r->tep = fixture_tep(fmts, sizeof(fmts) / sizeof(fmts[0]));
	if (!r->tep || !(r->f = strobe_formats_new(r->tep)) || strobe_model_new(&r->m, &err))
		return -1;
	if (strobe_top_new(&o, &r->top, &err) < 0)
		return -1;
	strobe_top_consumer(r->top, 0, &r->c);
	src.formats = r->f;
	src.model = r->m;
	return r->c.start(&src, 1, r->c.arg, &err);
}

static void rig_stop(struct rig *r)
{
	strobe_top_free(r->top);
	strobe_model_free(r->m);
	strobe_formats_free(r->f);
	tep_free(r->tep);
}

static int tick(struct rig *r, uint64_t ts)
{
	struct strobe_error err = { 0, "" };

	return r->c.tick(ts, r->c.arg, &err);
}

/* The value of column key in the row whose first cell is the number id. */
static const union strobe_value *cell_of(const struct strobe_table *t, int64_t id, const char *key)
{
	size_t i;
	int c = col(t, key);

	for (i = 0; c >= 0 && i < strobe_table_nr_rows(t); i++)
		if (strobe_table_row(t, i)[0].i == id)
			return &strobe_table_row(t, i)[c];
	return NULL;
}

#define S 1000000000ULL

/* Second 0..1: tid 100 spins on CPU 0 (switched in at 0), tid 200 makes
 * 100 calls on CPU 1, 10 failing; wake-ups of 200 at 4 latencies. */
static void workload(struct rig *r)
{
	static const uint64_t lat_us[4] = { 3, 10, 10, 100 };
	int i;

	sw(r, 0, 1, 0, 100);
	for (i = 0; i < 4; i++) {
		uint64_t t0 = 100000000ULL * (uint64_t)(i + 1);

		sw(r, 1, t0 - 1000, 200, 0);
		waking(r, 300, 200, t0);
		sw(r, 1, t0 + lat_us[i] * 1000, 0, 200);
	}
	for (i = 0; i < 100; i++)
		sys(r, 200, 500000000ULL + (uint64_t)i * 10000, 39, i < 10 ? -2 : 5);
}

static void test_top_rows_per_thread_from_one_interval(void)
{
	struct rig r;
	const struct strobe_table *t;
	const union strobe_value *v;

	REQUIRE(rig_start(&r, NULL, STROBE_TOP_THREAD) == 0);
	workload(&r);
	CHECK_EQ(tick(&r, S + 1), 0);
	CHECK_EQ(r.intervals, 1);
	CHECK_EQ(r.last.begin, 1);
	CHECK_EQ(r.last.end, S + 1);
	t = strobe_top_table(r.top);
	REQUIRE(t);
	CHECK_STR(strobe_table_name(t), "top.thread");
	CHECK_STR(strobe_table_column(t, 0)->key, "tid");
	CHECK_STR(strobe_table_column(t, 2)->key, "comm");
	CHECK_STR(strobe_table_column(t, 3)->key, "container");
	CHECK_STR(strobe_table_column(t, 4)->key, "cpu_pct");
	/* sorted by CPU: the spinner first */
	CHECK_EQ(strobe_table_row(t, 0)[0].i, 100);
	v = cell_of(t, 100, "cpu_pct");
	REQUIRE(v);
	CHECK(fabs(v->d - 100.0) < 0.001);
	v = cell_of(t, 200, "syscalls_ps");
	REQUIRE(v);
	CHECK(fabs(v->d - 100.0) < 0.001);
	CHECK(fabs(cell_of(t, 200, "errors_ps")->d - 10.0) < 0.001);
	/* 4 wake-ups of 3, 10, 10, 100 us: slot 1 [2,4) once, slot 3 [8,16)
	 * twice, slot 6 [64,128) once; p50 is in slot 3 at target 2 of 4:
	 * 8 + 8 * (2 - 1) / 2 = 12 us; the max is exact */
	CHECK_EQ(cell_of(t, 200, "runq_p50")->u, 12000);
	CHECK_EQ(cell_of(t, 200, "runq_max")->u, 100000);
	CHECK(cell_of(t, 200, "runq_p99")->u <= 100000);
	CHECK(cell_of(t, 200, "runq_p99")->u > 64000);
	/* 4 switch-outs of 200, one of the idle task (not counted) */
	CHECK(fabs(cell_of(t, 200, "switches_ps")->d - 4.0) < 0.001);
	/* no block events in this input: the columns say so */
	CHECK(strobe_value_none(STROBE_COL_RATE, cell_of(t, 200, "read_bps")));
	CHECK(strobe_top_unavailable(r.top, "read_bps") != NULL);
	CHECK(strobe_top_unavailable(r.top, "cpu_pct") == NULL);
	CHECK(strobe_top_unavailable(r.top, "faults_ps") != NULL);
	/* the interval's container figures: every thread in "unknown" */
	/* 100: [1, S + 1); 200: from each switch-in to its next switch-out,
	 * the last up to the tick */
	CHECK_EQ(r.cont_cpu_ns, S + 900000001ULL - 126000);
	CHECK_EQ(r.cont_sys, 100);
	CHECK_EQ(r.cont_err, 10);
	CHECK_EQ(r.cont_rq, 4);
	rig_stop(&r);
}

static void test_top_second_interval_counts_only_its_own(void)
{
	struct rig r;
	const struct strobe_table *t;

	REQUIRE(rig_start(&r, "cpu_pct,syscalls_ps,switches_ps", STROBE_TOP_THREAD) == 0);
	workload(&r);
	CHECK_EQ(tick(&r, S + 1), 0);
	sys(&r, 200, S + 1000, 39, 0);
	sw(&r, 0, 2 * S + 1, 100, 0);	/* the spinner's only switch-out */
	CHECK_EQ(tick(&r, 2 * S + 1), 0);
	CHECK_EQ(r.intervals, 2);
	t = strobe_top_table(r.top);
	REQUIRE(t);
	CHECK_EQ(strobe_table_nr_columns(t), 4 + 3);
	CHECK(fabs(cell_of(t, 100, "cpu_pct")->d - 100.0) < 0.001);
	CHECK(fabs(cell_of(t, 100, "switches_ps")->d - 1.0) < 0.001);
	CHECK(fabs(cell_of(t, 200, "syscalls_ps")->d - 1.0) < 0.001);
	/* only the shown columns' analyses ran: nothing about wake-ups */
	CHECK_EQ(r.cont_rq, 0);
	rig_stop(&r);
}

static void test_top_view_changes_rebuild_from_the_same_figures(void)
{
	struct rig r;
	struct strobe_error err = { 0, "" };
	const struct strobe_table *t;

	REQUIRE(rig_start(&r, "cpu_pct,syscalls_ps,tasks", STROBE_TOP_CONTAINER) == 0);
	workload(&r);
	CHECK_EQ(tick(&r, S + 1), 0);
	t = strobe_top_table(r.top);
	REQUIRE(t);
	CHECK_STR(strobe_table_name(t), "top.container");
	CHECK_EQ(strobe_table_nr_rows(t), 1);
	CHECK_STR(strobe_table_row(t, 0)[0].s, "unknown");
	/* two threads' CPU in one row */
	CHECK(fabs(strobe_table_row(t, 0)[1].d - (double)r.cont_cpu_ns / 1e7) < 0.001);

	CHECK_EQ(strobe_top_set_group(r.top, STROBE_TOP_PROCESS, &err), 0);
	t = strobe_top_table(r.top);
	CHECK_STR(strobe_table_name(t), "top.process");
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	CHECK_EQ(strobe_table_row(t, 0)[0].i, 100);

	CHECK_EQ(strobe_top_set_sort(r.top, "syscalls_ps", &err), 0);
	CHECK_STR(strobe_top_sort(r.top), "syscalls_ps");
	CHECK_EQ(strobe_table_row(strobe_top_table(r.top), 0)[0].i, 200);
	CHECK_EQ(strobe_top_set_sort(r.top, "runq_p99", &err), -EINVAL);
	CHECK(strstr(err.msg, "not a shown column") != NULL);

	CHECK_EQ(strobe_top_set_filter(r.top, "no-such-name", &err), 0);
	CHECK_EQ(strobe_table_nr_rows(strobe_top_table(r.top)), 0);
	CHECK_EQ(strobe_top_set_filter(r.top, "unkn", &err), 0);	/* the container */
	CHECK_EQ(strobe_table_nr_rows(strobe_top_table(r.top)), 2);
	CHECK_EQ(strobe_top_set_filter(r.top, NULL, &err), 0);

	CHECK_EQ(strobe_top_set_group(r.top, STROBE_TOP_CONTAINER, &err), 0);
	CHECK_EQ(strobe_top_set_drill(r.top, "unknown", &err), 0);
	t = strobe_top_table(r.top);
	CHECK_STR(strobe_table_name(t), "top.process");
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	CHECK_EQ(strobe_top_set_drill(r.top, "web", &err), 0);
	CHECK_EQ(strobe_table_nr_rows(strobe_top_table(r.top)), 0);
	CHECK_EQ(strobe_top_set_drill(r.top, NULL, &err), 0);
	CHECK_STR(strobe_table_name(strobe_top_table(r.top)), "top.container");
	rig_stop(&r);
}

static void test_top_metrics_figures_keep_the_top_syscalls_and_other(void)
{
	struct rig r;

	REQUIRE(rig_start(&r, "syscalls_ps", STROBE_TOP_CONTAINER) == 0);
	sys(&r, 200, 1000, 39, 0);
	sys(&r, 200, 3000, 39, -2);
	sys(&r, 200, 5000, 0, 0);	/* read */
	CHECK_EQ(tick(&r, S), 0);
	/* top_syscalls 1: getpid (39), then "other" */
	CHECK_EQ(r.cont_nsys, 2);
	CHECK_EQ(r.cont_sys, 3);
	CHECK_EQ(r.cont_err, 1);
	REQUIRE(r.last.nr_containers == 1);
	CHECK_STR(r.last.containers[0].syscalls[0].name, "getpid");
	CHECK_EQ(r.last.containers[0].syscalls[0].count, 2);
	CHECK_STR(r.last.containers[0].syscalls[1].name, "other");
	REQUIRE(r.last.containers[0].nr_errnos == 1);
	CHECK_STR(r.last.containers[0].errnos[0].error, "ENOENT");
	CHECK_STR(r.last.containers[0].errnos[0].syscall, "getpid");
	CHECK_EQ(r.last.containers[0].syscall_lat.count, 3);
	rig_stop(&r);
}

static void test_top_finish_reports_what_came_after_the_last_tick(void)
{
	struct rig r;
	struct strobe_error err = { 0, "" };

	REQUIRE(rig_start(&r, "syscalls_ps", STROBE_TOP_CONTAINER) == 0);
	sys(&r, 200, 1000, 39, 0);
	CHECK_EQ(tick(&r, S), 0);
	sys(&r, 200, S + 1000, 39, 0);
	sys(&r, 200, S + 3000, 39, 0);
	CHECK_EQ(r.c.finish(r.c.arg, &err), 0);
	CHECK_EQ(r.intervals, 2);
	CHECK_EQ(r.last.begin, S);
	CHECK_EQ(r.last.end, S + 4000);	/* the last event: an exit */
	CHECK_EQ(r.cont_sys, 2);
	CHECK_EQ(r.last.events, 4);
	/* nothing more: no third interval */
	CHECK_EQ(r.c.finish(r.c.arg, &err), 0);
	CHECK_EQ(r.intervals, 2);
	rig_stop(&r);
}

/* Lost events: counted where the ring buffer stored their number, and
 * every gap counted, also one whose size is unknown (a full page). */
static void test_top_gaps_counted_also_when_their_size_is_unknown(void)
{
	struct rig r;

	REQUIRE(rig_start(&r, "syscalls_ps", STROBE_TOP_CONTAINER) == 0);
	r.missed = 5;
	sys(&r, 200, 1000, 39, 0);
	r.missed = -1;
	sys(&r, 200, 5000, 39, 0);
	CHECK_EQ(tick(&r, S), 0);
	CHECK_EQ(r.intervals, 1);
	CHECK_EQ(r.last.lost, 5);
	CHECK_EQ(r.last.gaps, 2);
	sys(&r, 200, S + 1000, 39, 0);
	CHECK_EQ(tick(&r, 2 * S), 0);
	CHECK_EQ(r.intervals, 2);
	CHECK_EQ(r.last.lost, 0);
	CHECK_EQ(r.last.gaps, 0);
	rig_stop(&r);
}

static void test_top_bad_options(void)
{
	struct strobe_top_opts o = { .size = sizeof(o), .columns = "cpu_pct,nope" };
	struct strobe_error err = { 0, "" };
	struct strobe_top *t = NULL;

	CHECK_EQ(strobe_top_new(&o, &t, &err), -EINVAL);
	CHECK(t == NULL);
	CHECK(strstr(err.msg, "unknown column 'nope'") != NULL);
	o.columns = "tasks";
	o.sort = "cpu_pct";
	CHECK_EQ(strobe_top_new(&o, &t, &err), -EINVAL);
	o.sort = NULL;
	CHECK_EQ(strobe_top_new(&o, &t, &err), 0);
	CHECK_STR(strobe_top_presets(t), "");
	strobe_top_free(t);
	CHECK_STR(strobe_top_column_preset("runq_p99"), "sched");
	CHECK(strobe_top_column_preset("mem_bytes") == NULL);
}

static void test_top_quantile_interpolates_inside_the_slot(void)
{
	struct strobe_top_hist h = { { 0 }, 0, 0 };

	CHECK(top_hist_quantile(&h, 0.5, 0) == STROBE_VALUE_NONE_U);
	h.slot[3] = 100;	/* [8, 16) us */
	CHECK_EQ(top_hist_quantile(&h, 0.5, 0), 12000);
	CHECK_EQ(top_hist_quantile(&h, 0.99, 0), 15920);
	CHECK_EQ(top_hist_quantile(&h, 0.99, 13000), 13000);	/* capped */
	h.slot[0] = 100;	/* [0, 2) us */
	CHECK_EQ(top_hist_quantile(&h, 0.25, 0), 1000);
}

static void test_top_cgroup_memory_file_v1_v2_hybrid(void)
{
	char out[512], dir[] = "/tmp/strobe-top-cg-XXXXXX", sub[600];

	CHECK_EQ(top_cgroup_memory_file("12:pids:/\n4:memory:/libpod_parent/libpod-ab\n0::/\n",
					"/sys/fs/cgroup", out, sizeof(out)), 0);
	CHECK_STR(out, "/sys/fs/cgroup/memory/libpod_parent/libpod-ab/memory.usage_in_bytes");
	CHECK_EQ(top_cgroup_memory_file("5:cpu,memory:/a\n", "/r", out, sizeof(out)), 0);
	CHECK_STR(out, "/r/memory/a/memory.usage_in_bytes");
	REQUIRE(mkdtemp(dir));
	CHECK_EQ(top_cgroup_memory_file("0::/system.slice/x.scope\n", dir, out, sizeof(out)), 0);
	snprintf(sub, sizeof(sub), "%s/system.slice/x.scope/memory.current", dir);
	CHECK_STR(out, sub);
	snprintf(sub, sizeof(sub), "%s/unified", dir);
	REQUIRE(mkdir(sub, 0700) == 0);
	CHECK_EQ(top_cgroup_memory_file("0::/x\n", dir, out, sizeof(out)), 0);
	snprintf(sub, sizeof(sub), "%s/unified/x/memory.current", dir);
	CHECK_STR(out, sub);
	snprintf(sub, sizeof(sub), "%s/unified", dir);
	rmdir(sub);
	rmdir(dir);
	CHECK_EQ(top_cgroup_memory_file("3:cpu:/a\n", "/r", out, sizeof(out)), -ENOENT);
	CHECK_EQ(top_cgroup_memory_file("", "/r", out, sizeof(out)), -ENOENT);
}

TESTS(T(test_top_rows_per_thread_from_one_interval),
      T(test_top_second_interval_counts_only_its_own),
      T(test_top_view_changes_rebuild_from_the_same_figures),
      T(test_top_metrics_figures_keep_the_top_syscalls_and_other),
      T(test_top_finish_reports_what_came_after_the_last_tick),
      T(test_top_gaps_counted_also_when_their_size_is_unknown),
      T(test_top_bad_options),
      T(test_top_quantile_interpolates_inside_the_slot),
      T(test_top_cgroup_memory_file_v1_v2_hybrid))
