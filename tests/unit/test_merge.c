/*
 * test_merge.c - several trace files on one timeline (lib/stream/merge.c)
 * on synthetic files: strobe's v6 writer makes trace.dat files whose
 * sys_enter events carry, as their first argument, the wall-clock time
 * (ns) they stand for, and whose strobe info holds clock pairings that
 * map each file's trace clock to that wall clock.  Merged, the events
 * must come in wall-clock order with each event's mapped ts equal to
 * that argument and the right source and host; files without pairings
 * keep their raw timestamps (and say so); the clock summary gives the
 * offsets, drift and error the pairings imply; the writers of several
 * hosts' analysis results put their windows on the merged timeline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "analyses/analysis-int.h"
#include "test.h"
#include "tracefile_fixture.h"

/* libtraceevent leaks on some format texts; not ours to fix. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

/*
 * A file of n sys_enter events by pid on CPU 0 at trace times ts[i], each
 * with args[0] = wall[i] (tracefile_fixture.h), and the strobe info
 * `info`; its path (malloc'd) or NULL.
 */
static char *write_file(const char *info, const uint64_t *ts, const uint64_t *wall, int n,
			int pid)
{
	struct fx_event ev[8];
	int i;

	if (n > 8)
		return NULL;
	for (i = 0; i < n; i++) {
		struct fx_event *e = fx_payload(&ev[i], ts[i], 0, FX_ID_SYS_ENTER, pid, 64);

		fx_put64(e->data + 8, 110);		/* id: getppid */
		fx_put64(e->data + 16, wall[i]);	/* args[0] */
	}
	/* sys_exit too, with no events: the syscalls analysis attaches
	 * (the results' writers) */
	return fx_write_file(info, fx_syscalls, 2, ev, n, 1);
}

#define W0	1795545551000000000ull	/* a wall-clock second, ns */

struct two {
	char *path[2];
	struct strobe_tracefile *tf[2];
};

static int open_two(struct two *t, const char *info_a, const char *info_b)
{
	/*
	 * Host a's trace clock reads 1000 s at W0 (offset W0 - 1000 s), and
	 * runs 1 ppm slow against the wall clock: its end pairing, 1 s of
	 * trace time later, is at W0 + 1 s + 1 us.  Host b's clock reads
	 * 5 s at W0 (offset W0 - 5 s), no drift.  Their events interleave
	 * on the wall clock: a at +10, +30, +50 ms (+ its drift), b at
	 * +20, +40 ms.
	 */
	uint64_t ta[3] = { 1000010000000ull, 1000030000000ull, 1000050000000ull };
	uint64_t wa[3] = { W0 + 10000000ull + 10, W0 + 30000000ull + 30,
			   W0 + 50000000ull + 50 };
	uint64_t tb[2] = { 5020000000ull, 5040000000ull };
	uint64_t wb[2] = { W0 + 20000000ull, W0 + 40000000ull };
	struct strobe_error err = { 0 };
	int i;

	/* a's events sit 10/30/50 ms after its start pairing, so the
	 * 1 us drift over 1 s adds 10/30/50 ns */
	memset(t, 0, sizeof(*t));
	t->path[0] = write_file(info_a, ta, wa, 3, 4242);
	t->path[1] = write_file(info_b, tb, wb, 2, 4242);
	for (i = 0; i < 2; i++)
		if (!t->path[i] || strobe_tracefile_open(t->path[i], &t->tf[i], &err) < 0)
			return -1;
	return 0;
}

static void close_two(struct two *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		strobe_tracefile_close(t->tf[i]);
		if (t->path[i])
			unlink(t->path[i]);
		free(t->path[i]);
	}
}


static void test_merge_orders_by_wall_clock_and_tags_hosts(void)
{
	struct strobe_error err = { 0 };
	struct strobe_merge *m = NULL;
	struct strobe_event ev;
	struct two t;
	static const int want_src[5] = { 0, 1, 0, 1, 0 };
	int n = 0, src = -1, r;
	uint64_t last = 0;

	REQUIRE(open_two(&t, fx_info_web, fx_info_db) == 0);
	REQUIRE(strobe_merge_open(t.tf, 2, NULL, NULL, &m, &err) == 0);
	CHECK(strobe_merge_wall(m));
	CHECK_EQ(strobe_merge_nr_sources(m), 2);
	CHECK_STR(strobe_merge_host(m, 0), "web");
	CHECK_STR(strobe_merge_host(m, 1), "db");
	CHECK(strobe_merge_host(m, 2) == NULL);
	while ((r = strobe_merge_next(m, &ev, &src, &err)) == 1) {
		REQUIRE(n < 5);
		CHECK_EQ(src, want_src[n]);
		REQUIRE(ev.format != NULL);
		/* the format is the event's own file's */
		CHECK(ev.format == strobe_formats_find(strobe_tracefile_formats(t.tf[src]),
						       "raw_syscalls", "sys_enter"));
		CHECK_EQ(ev.ts, strobe_field_uint(&ev, &(struct strobe_field){
				 .offset = 16, .size = 8, .valid = 1 }));
		CHECK(ev.ts > last);
		CHECK_EQ(ev.pid, 4242);
		last = ev.ts;
		n++;
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(n, 5);
	strobe_merge_close(m);
	close_two(&t);
}

static void test_merge_clock_summary_gives_offset_drift_and_error(void)
{
	struct strobe_error err = { 0 };
	struct strobe_merge *m = NULL;
	struct strobe_merge_clock c;
	struct two t;

	REQUIRE(open_two(&t, fx_info_web, fx_info_db) == 0);
	REQUIRE(strobe_merge_open(t.tf, 2, NULL, NULL, &m, &err) == 0);
	CHECK_EQ(strobe_merge_clock(m, 0, &c), 0);
	CHECK_EQ(c.nr_sync, 2);
	CHECK_EQ(c.offset_ns, (long long)W0 - 1000000000000ll);
	CHECK_EQ(c.drift_ns, 1000);
	CHECK_EQ(c.error_ns, 1500);
	CHECK_EQ(c.span_ns, 1000000000ull);
	CHECK_EQ(strobe_merge_clock(m, 1, &c), 0);
	CHECK_EQ(c.drift_ns, 0);
	CHECK_EQ(c.error_ns, 800);
	CHECK_EQ(strobe_merge_clock(m, 2, &c), -EINVAL);
	strobe_merge_close(m);
	close_two(&t);
}

static void test_merge_without_offsets_keeps_raw_timestamps(void)
{
	/* b was written without pairings (an older strobe): raw order */
	static const char info_b_old[] = "strobe_version=0.1.0\nhost=db\n";
	struct strobe_error err = { 0 };
	struct strobe_merge *m = NULL;
	struct strobe_merge_clock c;
	struct strobe_event ev;
	struct two t;
	int n = 0, src = -1;
	uint64_t ts[5];
	int srcs[5];

	REQUIRE(open_two(&t, fx_info_web, info_b_old) == 0);
	REQUIRE(strobe_merge_open(t.tf, 2, NULL, NULL, &m, &err) == 0);
	CHECK(!strobe_merge_wall(m));
	CHECK_EQ(strobe_merge_clock(m, 1, &c), 0);
	CHECK_EQ(c.nr_sync, 0);
	while (n < 5 && strobe_merge_next(m, &ev, &src, &err) == 1) {
		ts[n] = ev.ts;
		srcs[n++] = src;
	}
	REQUIRE(n == 5);
	/* b's raw 5.02 s, 5.04 s come before a's raw 1000.01 s */
	CHECK_EQ(srcs[0], 1);
	CHECK_EQ(ts[0], 5020000000ull);
	CHECK_EQ(srcs[1], 1);
	CHECK_EQ(srcs[2], 0);
	CHECK_EQ(ts[2], 1000010000000ull);
	strobe_merge_close(m);

	/* the raw option does the same even when both have pairings */
	close_two(&t);
	REQUIRE(open_two(&t, fx_info_web, fx_info_db) == 0);
	{
		struct strobe_merge_opts mo = { sizeof(mo), true };

		REQUIRE(strobe_merge_open(t.tf, 2, NULL, &mo, &m, &err) == 0);
		CHECK(!strobe_merge_wall(m));
		REQUIRE(strobe_merge_next(m, &ev, &src, &err) == 1);
		CHECK_EQ(src, 1);
		CHECK_EQ(ev.ts, 5020000000ull);
		strobe_merge_close(m);
	}
	close_two(&t);
}

static void test_merge_same_host_twice_gets_told_apart(void)
{
	struct strobe_error err = { 0 };
	struct strobe_merge *m = NULL;
	struct two t;

	REQUIRE(open_two(&t, fx_info_web, fx_info_web) == 0);
	REQUIRE(strobe_merge_open(t.tf, 2, NULL, NULL, &m, &err) == 0);
	CHECK_STR(strobe_merge_host(m, 0), "web");
	CHECK_STR(strobe_merge_host(m, 1), "web#2");
	strobe_merge_close(m);
	close_two(&t);
	CHECK_EQ(strobe_merge_open(NULL, 0, NULL, NULL, &m, &err), -EINVAL);
	CHECK(m == NULL);
}

static void test_clock_sync_text_round_trips_and_rejects_junk(void)
{
	struct strobe_clock_sync a = { 123456789, 1795545551000000001ll, 42 }, b;
	char buf[96];

	strobe_clock_sync_format(&a, buf, sizeof(buf));
	CHECK_STR(buf, "123456789 1795545551000000001 42");
	CHECK_EQ(strobe_clock_sync_parse(buf, &b), 0);
	CHECK_EQ(b.trace_ns, a.trace_ns);
	CHECK_EQ(b.realtime_ns, a.realtime_ns);
	CHECK_EQ(b.error_ns, a.error_ns);
	CHECK_EQ(strobe_clock_sync_parse(NULL, &b), -EINVAL);
	CHECK_EQ(strobe_clock_sync_parse("1 2", &b), -EINVAL);
	CHECK_EQ(strobe_clock_sync_parse("1 2 3 junk", &b), -EINVAL);
}

/* A small result table as an analysis makes it: tid, comm, a timestamp. */
static struct strobe_table *result(const char *comm, int rows, uint64_t ts0, bool odd)
{
	struct strobe_table *t = tbl_new("x.top", "X", odd ? STROBE_VIEW_FREQ
								 : STROBE_VIEW_TOP);
	int i;

	tbl_col(t, "tid", "TID", STROBE_COL_INT);
	tbl_col(t, "comm", "Comm", STROBE_COL_STR);
	tbl_col(t, "when", "When", STROBE_COL_TIMESTAMP);
	for (i = 0; i < rows; i++) {
		union strobe_value *v = tbl_row(t);

		v[0].i = 4242;
		v[1].s = tbl_str(t, comm);
		v[2].u = ts0 + (uint64_t)i * 10000000ull;
	}
	return t;
}

static void test_tables_of_two_hosts_join_with_a_host_column(void)
{
	struct strobe_error err = { 0 };
	struct strobe_merge *m = NULL;
	struct strobe_table *a, *b, *out = NULL, *freq, *other;
	const struct strobe_table *in[2];
	const union strobe_value *row;
	struct two t;

	REQUIRE(open_two(&t, fx_info_web, fx_info_db) == 0);
	REQUIRE(strobe_merge_open(t.tf, 2, NULL, NULL, &m, &err) == 0);
	/* the same TID on both hosts; timestamps as the fixture's events */
	a = result("nginx", 2, 1000010000000ull, false);
	b = result("postgres", 1, 5020000000ull, false);
	in[0] = a;
	in[1] = b;
	REQUIRE(strobe_table_merge_hosts(in, 2, m, &out) == 0);
	CHECK_STR(strobe_table_name(out), "x.top");
	CHECK_EQ(strobe_table_nr_columns(out), 4);
	CHECK_STR(strobe_table_column(out, 0)->key, "host");
	CHECK_STR(strobe_table_column(out, 3)->key, "when");
	REQUIRE(strobe_table_nr_rows(out) == 3);
	row = strobe_table_row(out, 0);
	CHECK_STR(row[0].s, "web");
	CHECK_EQ(row[1].i, 4242);
	CHECK_STR(row[2].s, "nginx");
	CHECK_EQ(row[3].u, W0 + 10000000ull + 10);	/* mapped like the event */
	row = strobe_table_row(out, 1);
	CHECK_EQ(row[3].u, W0 + 20000000ull + 20);
	row = strobe_table_row(out, 2);
	CHECK_STR(row[0].s, "db");
	CHECK_STR(row[2].s, "postgres");
	CHECK_EQ(row[3].u, W0 + 20000000ull);
	strobe_table_free(out);
	/* the result owns its strings: the inputs may go */
	in[1] = NULL;
	REQUIRE(strobe_table_merge_hosts(in, 2, m, &out) == 0);
	tbl_free(a);
	CHECK_EQ(strobe_table_nr_rows(out), 2);
	CHECK_STR(strobe_table_row(out, 1)[2].s, "nginx");
	strobe_table_free(out);
	/* histograms stay per host; tables that disagree are refused */
	freq = result("x", 1, 0, true);
	other = tbl_new("x.top", "X", STROBE_VIEW_TOP);
	tbl_col(other, "cpu", "CPU", STROBE_COL_INT);
	in[0] = freq;
	CHECK_EQ(strobe_table_merge_hosts(in, 2, m, &out), -ENOTSUP);
	in[0] = b;
	in[1] = other;
	CHECK_EQ(strobe_table_merge_hosts(in, 2, m, &out), -EINVAL);
	in[0] = in[1] = NULL;
	CHECK_EQ(strobe_table_merge_hosts(in, 2, m, &out), -EINVAL);
	CHECK(out == NULL);
	tbl_free(b);
	tbl_free(freq);
	tbl_free(other);
	strobe_merge_close(m);
	close_two(&t);
}

/* The writers of several hosts' results: the JSON summary of each host
 * and one LAMI results object, windows on the merge's timeline. */
static void test_results_of_two_hosts_on_the_timeline(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_STATS };
	struct strobe_error err = { 0 };
	struct strobe_merge *m = NULL;
	struct strobe_analysis *an[2] = { NULL, NULL };
	struct strobe_buf *b = strobe_buf_new();
	char want[256];
	struct two t;
	int i;

	REQUIRE(b != NULL);
	REQUIRE(open_two(&t, fx_info_web, fx_info_db) == 0);
	REQUIRE(strobe_merge_open(t.tf, 2, NULL, NULL, &m, &err) == 0);
	for (i = 0; i < 2; i++) {
		REQUIRE(strobe_analysis_new("syscalls", &o, &an[i], &err) == 0);
		REQUIRE(strobe_analysis_run_file(an[i], t.tf[i], &err) == 0);
	}
	/* web's window: its first and last event, mapped like the events */
	REQUIRE(strobe_analysis_write_json_summary_merged(an[0], t.tf[0], m, 0, b) == 0);
	snprintf(want, sizeof(want), "{\"summary\":{\"analyses\":\"syscalls\",\"host\":\"web\","
		 "\"begin\":%llu,\"end\":%llu,\"notes\":[", (unsigned long long)(W0 + 10000010ull),
		 (unsigned long long)(W0 + 50000050ull));
	CHECK(!strncmp(strobe_buf_data(b), want, strlen(want)));
	strobe_buf_reset(b);
	/* one file: no host, the trace clock */
	REQUIRE(strobe_analysis_write_json_summary(an[1], t.tf[1], b) == 0);
	CHECK(!strncmp(strobe_buf_data(b), "{\"summary\":{\"analyses\":\"syscalls\",\"begin\":"
		       "5020000000,\"end\":5040000000,", 70));
	strobe_buf_reset(b);
	/* LAMI: the time range spans both hosts, the tables have a host
	 * column, which the metadata of several hosts declares */
	REQUIRE(strobe_lami_write_results_merged((const struct strobe_analysis *const *)an, 2, m,
						 NULL, NULL, b) == 0);
	snprintf(want, sizeof(want), "{\"results\":[{\"time-range\":{\"class\":\"time-range\","
		 "\"begin\":%llu,\"end\":%llu},\"class\":\"syscalls.stats\",\"data\":[",
		 (unsigned long long)(W0 + 10000010ull), (unsigned long long)(W0 + 50000050ull));
	CHECK(!strncmp(strobe_buf_data(b), want, strlen(want)));
	strobe_buf_reset(b);
	REQUIRE(strobe_lami_write_metadata_hosts("syscalls", &o, b) == 0);
	CHECK(strstr(strobe_buf_data(b), "\"syscalls.stats\":{\"title\":\"System call latency "
		     "statistics\",\"column-descriptions\":[{\"title\":\"Host\",\"class\":"
		     "\"string\"},{\"title\":\"TID\"") != NULL);
	CHECK_EQ(strobe_lami_write_results_merged(NULL, 0, m, NULL, NULL, b), -EINVAL);
	for (i = 0; i < 2; i++)
		strobe_analysis_free(an[i]);
	strobe_buf_free(b);
	strobe_merge_close(m);
	close_two(&t);
}

TESTS(T(test_merge_orders_by_wall_clock_and_tags_hosts),
      T(test_results_of_two_hosts_on_the_timeline),
      T(test_tables_of_two_hosts_join_with_a_host_column),
      T(test_merge_clock_summary_gives_offset_drift_and_error),
      T(test_merge_without_offsets_keeps_raw_timestamps),
      T(test_merge_same_host_twice_gets_told_apart),
      T(test_clock_sync_text_round_trips_and_rejects_junk));
