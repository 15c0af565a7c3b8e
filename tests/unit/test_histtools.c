/*
 * test_histtools.c - the runqlat and biolatency analyses (the histograms
 * of strobe-runqlat(1) and strobe-biolatency(1)) on synthetic event
 * sequences with hand-computed buckets: runqlat measures from
 * sched_wakeup, never sched_waking, and folds preempted waits into the
 * same histogram, so on a trace without sched_waking it is schedlat's
 * wake-up plus preempted histograms, bucket for bucket; msecs buckets
 * (-m) and their LAMI bounds; one group (all) and PID namespaces;
 * biolatency counts each request once, per disk and per rwbs flags,
 * from block_rq_insert with queued (-Q), and refuses a PID-filtered
 * recording instead of printing an empty histogram.
 */
#include <errno.h>

#include "analysis_fixture.h"
#include "buf_of.h"

enum { ID_WAKEUP = 707, ID_WAKEUP_NEW = 708, ID_ISSUE = 720, ID_COMPLETE = 721,
       ID_INSERT = 722 };

#define WAKEUP_FIELDS \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: \"pid=%d\", REC->pid\n"
static const char fmt_wakeup[] = "name: sched_wakeup\nID: 707\nformat:\n" FMT_COMMON
	WAKEUP_FIELDS;
static const char fmt_wakeup_new[] = "name: sched_wakeup_new\nID: 708\nformat:\n" FMT_COMMON
	WAKEUP_FIELDS;
#define BLK_FIELDS \
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n" \
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n" \
	"\tfield:char rwbs[8];\toffset:32;\tsize:8;\tsigned:0;\n\n" \
	"print fmt: \"sector=%llu\", REC->sector\n"
static const char fmt_issue[] = "name: block_rq_issue\nID: 720\nformat:\n" FMT_COMMON
	BLK_FIELDS;
static const char fmt_complete[] = "name: block_rq_complete\nID: 721\nformat:\n" FMT_COMMON
	BLK_FIELDS;
static const char fmt_insert[] = "name: block_rq_insert\nID: 722\nformat:\n" FMT_COMMON
	BLK_FIELDS;

static struct strobe_analysis *start(struct feeder *f, const char *names,
				     const struct strobe_analysis_opts *o, bool with_waking)
{
	const struct fixture_fmt fm[] = {
		{ fmt_switch, "sched" }, { fmt_fork, "sched" }, { fmt_wakeup, "sched" },
		{ fmt_wakeup_new, "sched" }, { fmt_issue, "block" }, { fmt_complete, "block" },
		{ fmt_insert, "block" }, { fmt_waking, "sched" },
	};
	struct strobe_error err = { 0 };

	memset(f, 0, sizeof(*f));
	f->tep = fixture_tep(fm, with_waking ? 8 : 7);
	if (!f->tep || strobe_analysis_new(names, o, &f->a, &err) < 0)
		return NULL;
	if (strobe_analysis_attach(f->a, fixture_fmts(f), NULL, &err) < 0) {
		fprintf(stderr, "  attach: %s\n", err.msg);
		return NULL;
	}
	return f->a;
}

static void wake(struct feeder *f, int id, int waker, int cpu, uint64_t ts, int pid)
{
	put32(f->d + 24, (uint32_t)pid);
	put32(f->d + 28, 120);
	put32(f->d + 32, (uint32_t)cpu);
	feed(f, id, waker, cpu, ts, 0);
}

static void blk(struct feeder *f, int id, int pid, uint64_t ts, uint32_t dev, uint64_t sector,
		const char *rwbs)
{
	put32(f->d + 8, dev);
	put64(f->d + 16, sector);
	put32(f->d + 24, 8);
	put32(f->d + 28, 4096);
	memcpy(f->d + 32, rwbs, strlen(rwbs));
	feed(f, id, pid, 0, ts, 0);
}

/* {lo: count} of the histograms called name (all of them summed) as
 * "lo:count lo:count"; with the label key=val only (NULL: all). */
static const char *hist(struct strobe_analysis *a, const char *name, const char *key,
			const char *val)
{
	static char out[512];
	int64_t sum[64] = { 0 }, lo[64] = { 0 };
	int i, j, n = 0;
	size_t r, len = 0;

	for (i = 0; i < strobe_analysis_nr_tables(a); i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);
		bool match = !key;

		if (strcmp(strobe_table_name(t), name))
			continue;
		for (j = 0; key && j < strobe_table_nr_labels(t); j++)
			if (!strcmp(strobe_table_label_column(t, j)->key, key) &&
			    !strcmp(strobe_table_label(t, j)->s, val))
				match = true;
		if (!match)
			continue;
		for (r = 0; r < strobe_table_nr_rows(t); r++) {
			const union strobe_value *v = strobe_table_row(t, r);

			for (j = 0; j < n && lo[j] != v[0].i; j++)
				;
			if (j == n && n < 64)
				lo[n++] = v[0].i;
			if (j < 64)
				sum[j] += v[2].i;
		}
	}
	out[0] = '\0';
	for (j = 0; j < n; j++)
		if (sum[j])
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%lld:%lld",
						len ? " " : "", (long long)lo[j],
						(long long)sum[j]);
	return out;
}

/* The wake-ups and preemptions of tid 20 the runqlat tests feed:
 * wake-up 50 ns, preempted 5 us, wake-up 3 ms (sched_waking before each
 * wake-up when the trace has it). */
static void waits(struct feeder *f, bool with_waking)
{
	if (with_waking)
		feed(f, ID_WAKING, 21, 0, 100, 0);	/* payload empty: pid 0 */
	if (with_waking) {
		put32(f->d + 24, 20);
		feed(f, ID_WAKING, 21, 0, 110, 0);
	}
	wake(f, ID_WAKEUP_NEW, 21, 1, 300, 20);
	sched_switch(f, 1, 350, 0, 0, 20);		/* 50 ns */
	sched_switch(f, 1, 1000, 20, 0, 22);		/* preempted */
	sched_switch(f, 1, 6000, 22, 1, 20);		/* 5 us */
	sched_switch(f, 1, 7000, 20, 1, 0);		/* asleep */
	if (with_waking) {
		put32(f->d + 24, 20);
		feed(f, ID_WAKING, 21, 0, 9000, 0);
	}
	wake(f, ID_WAKEUP, 21, 1, 10000, 20);
	sched_switch(f, 1, 3010000, 0, 0, 20);		/* 3 ms */
}

static void test_runqlat_from_wakeup_with_preempted_waits_folded_in(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_FREQ | STROBE_VIEW_STATS,
					  .group_by = STROBE_GROUP_ALL };
	const struct strobe_table *s;
	struct feeder f;

	REQUIRE(start(&f, "runqlat", &o, true));
	waits(&f, true);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_STR(hist(f.a, "runqlat.freq", NULL, NULL), "0:1 4:1 2048:1");
	s = table(f.a, "runqlat.stats");
	REQUIRE(s && strobe_table_nr_rows(s) == 1);
	CHECK_EQ(strobe_table_nr_columns(s), 6);	/* all: no owner columns */
	CHECK_EQ(strobe_table_row(s, 0)[col(s, "count")].i, 3);
	CHECK_EQ(strobe_table_row(s, 0)[col(s, "max")].u, 3000000);
	stop(&f);
}

/* Without sched_waking, schedlat's two histograms add up to runqlat's. */
static void test_runqlat_is_schedlat_wakeups_plus_preempted(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_FREQ, .top = 0,
					  .group_by = STROBE_GROUP_CONTAINER };
	struct feeder f;

	REQUIRE(start(&f, "schedlat,runqlat", &o, false));
	waits(&f, false);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_STR(hist(f.a, "schedlat.freq", NULL, NULL), "0:1 2048:1");
	CHECK_STR(hist(f.a, "schedlat.preempt_freq", NULL, NULL), "4:1");
	CHECK_STR(hist(f.a, "runqlat.freq", NULL, NULL), "0:1 4:1 2048:1");
	stop(&f);
}

/* -m: the same waits in log2 buckets of ms; LAMI bounds in ns. */
static void test_runqlat_milliseconds_and_lami_bounds(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_FREQ,
					  .group_by = STROBE_GROUP_ALL, .freq_msecs = true };
	const struct strobe_table *t = NULL;
	struct strobe_buf *b = strobe_buf_new();
	struct feeder f;
	int i;

	REQUIRE(b && start(&f, "runqlat", &o, false));
	waits(&f, false);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_STR(hist(f.a, "runqlat.freq", NULL, NULL), "0:2 2:1");
	for (i = 0; i < strobe_analysis_nr_tables(f.a); i++)
		if (strobe_table_nr_rows(strobe_analysis_table(f.a, i)))
			t = strobe_analysis_table(f.a, i);
	REQUIRE(t);
	CHECK_STR(strobe_table_unit(t), "msecs");
	REQUIRE(strobe_table_nr_rows(t) == 2);
	strobe_lami_write_row(t, strobe_table_row(t, 1), b);
	CHECK(strstr(strobe_buf_data(b), "{\"class\":\"duration\",\"value\":2000000}") != NULL);
	CHECK(strstr(strobe_buf_data(b), "{\"class\":\"duration\",\"value\":3999999}") == NULL);
	strobe_buf_free(b);
	stop(&f);
}

static void test_runqlat_per_pid_namespace(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_FREQ | STROBE_VIEW_STATS,
					  .group_by = STROBE_GROUP_PIDNS };
	const struct strobe_table *s;
	struct feeder f;

	REQUIRE(start(&f, "runqlat", &o, false));
	waits(&f, false);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	s = table(f.a, "runqlat.stats");
	REQUIRE(s && strobe_table_nr_rows(s) == 1);
	CHECK(col(s, "pidns") == 0);		/* the internal model knows none: 0 */
	CHECK_EQ(strobe_table_row(s, 0)[0].i, 0);
	CHECK_STR(hist(f.a, "runqlat.freq", NULL, NULL), "0:1 4:1 2048:1");
	stop(&f);
}

#define DEV_A ((8u << 20) | 0)
#define DEV_B ((8u << 20) | 16)

/* Three requests: A/WS 20 us (inserted 80 us before its issue), A/R
 * 3 us, B/WS 100 us; one issued and never completed. */
static void requests(struct feeder *f)
{
	blk(f, ID_INSERT, 30, 1000, DEV_A, 100, "WS");
	blk(f, ID_ISSUE, 30, 81000, DEV_A, 100, "WS");
	blk(f, ID_ISSUE, 30, 82000, DEV_A, 200, "R");
	blk(f, ID_COMPLETE, 0, 85000, DEV_A, 200, "R");
	blk(f, ID_COMPLETE, 0, 101000, DEV_A, 100, "WS");
	blk(f, ID_ISSUE, 31, 200000, DEV_B, 100, "WS");
	blk(f, ID_COMPLETE, 0, 300000, DEV_B, 100, "WS");
	blk(f, ID_ISSUE, 31, 400000, DEV_B, 500, "WS");
}

static void test_biolatency_once_per_request_per_disk_and_flags(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_FREQ, .group_by = STROBE_GROUP_ALL };
	struct feeder f;

	REQUIRE(start(&f, "biolatency", &o, false));
	requests(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_STR(hist(f.a, "biolatency.freq", NULL, NULL), "2:1 16:1 64:1");
	stop(&f);

	o.per_disk = true;
	REQUIRE(start(&f, "biolatency", &o, false));
	requests(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_STR(hist(f.a, "biolatency.freq", "disk", "8:0"), "2:1 16:1");
	CHECK_STR(hist(f.a, "biolatency.freq", "disk", "8:16"), "64:1");
	stop(&f);

	o.per_disk = false;
	o.per_flags = true;
	REQUIRE(start(&f, "biolatency", &o, false));
	requests(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_STR(hist(f.a, "biolatency.freq", "flags", "WS"), "16:1 64:1");
	CHECK_STR(hist(f.a, "biolatency.freq", "flags", "R"), "2:1");
	stop(&f);

	/* -Q: the WS request of disk A from its insert: 100 us */
	o.per_flags = false;
	o.queued = true;
	REQUIRE(start(&f, "biolatency", &o, false));
	requests(&f);
	REQUIRE(strobe_analysis_finish(f.a, NULL) == 0);
	CHECK_STR(hist(f.a, "biolatency.freq", NULL, NULL), "2:1 64:2");
	stop(&f);
}

/* A PID-filtered recording: attach fails with a note, no empty result. */
static void test_biolatency_refuses_a_pid_filtered_recording(void)
{
	struct strobe_analysis_opts o = { .views = STROBE_VIEW_FREQ };
	const struct fixture_fmt fm[] = {
		{ fmt_switch, "sched" }, { fmt_issue, "block" }, { fmt_complete, "block" },
	};
	struct strobe_error err = { 0 };
	struct feeder f;
	int i;
	bool said = false;

	memset(&f, 0, sizeof(f));
	f.tep = fixture_tep(fm, 3);
	REQUIRE(f.tep && strobe_analysis_new("biolatency", &o, &f.a, &err) == 0);
	REQUIRE(strobe_analysis_set_target(f.a, "pid", "30", NULL, &err) == 0);
	CHECK_EQ(strobe_analysis_attach(f.a, fixture_fmts(&f), NULL, &err), -ENOENT);
	for (i = 0; i < strobe_analysis_nr_notes(f.a); i++)
		said |= strstr(strobe_analysis_note(f.a, i), "PID-filtered") != NULL;
	CHECK(said);
	stop(&f);
}

TESTS(T(test_runqlat_from_wakeup_with_preempted_waits_folded_in),
      T(test_runqlat_is_schedlat_wakeups_plus_preempted),
      T(test_runqlat_milliseconds_and_lami_bounds),
      T(test_runqlat_per_pid_namespace),
      T(test_biolatency_once_per_request_per_disk_and_flags),
      T(test_biolatency_refuses_a_pid_filtered_recording))
