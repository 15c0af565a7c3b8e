/*
 * test_sql.c - the SQLite sink (lib/sinks/sqlite.c) on a synthetic trace
 * file: strobe's own v6 writer makes a trace.dat whose pages are built
 * byte by byte (sys_enter/sys_exit pairs of a known process, a
 * sched_waking whose fields clash with the task columns, two systems
 * sharing an event name, an event named like a reserved table, a
 * 70-field event, a __data_loc string and an event id with no format),
 * with a model table naming the process's container.  The database must
 * hold exactly those events with typed columns, its events view must
 * give the same fields as strobe report --json for every event, and a
 * kept database must be reused only while it is current.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <strobe/strobe.h>

#include "formats.h"
#include "test.h"
#include "buf_of.h"
#include "tracefile_fixture.h"

#define PS	4096u

/* libtraceevent leaks on some format texts; not ours to fix. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

enum { ID_ENTER = 443, ID_EXIT = 444, ID_WAKING = 702, ID_ADUP = 801, ID_BDUP = 802,
       ID_WEIRD = 803, ID_WIDE = 804, ID_IRQ = 805, ID_TOP = 806, ID_NOFORMAT = 999 };

#define TID	1234
#define NPAIRS	150	/* more than one 64-row batch, plus a remainder */
#define NWIDE	70	/* fields of the wide event: past one json_object() */

static const char fmt_waking[] = "name: sched_waking\nID: 702\nformat:\n" FMT_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";
static const char fmt_adup[] = "name: dup\nID: 801\nformat:\n" FMT_COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";
static const char fmt_bdup[] = "name: dup\nID: 802\nformat:\n" FMT_COMMON
	"\tfield:__data_loc char[] msg;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"msg=%s\", __get_str(msg)\n";
static const char fmt_weird[] = "name: events\nID: 803\nformat:\n" FMT_COMMON
	"\tfield:unsigned long seq;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:s8 small;\toffset:16;\tsize:1;\tsigned:1;\n"
	"\tfield:u16 mid;\toffset:18;\tsize:2;\tsigned:0;\n"
	"\tfield:u16 pair[2];\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"seq=%lu\", REC->seq\n";

/* irq_* is no strobe table (irq_top would be); syscalls_top is one */
static const char fmt_irq[] = "name: irq_handler_entry\nID: 805\nformat:\n" FMT_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d\", REC->irq\n";
static const char fmt_top[] = "name: syscalls_top\nID: 806\nformat:\n" FMT_COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";

static char fmt_wide[8192];

static const char model_table[] =
	"strobe-model 1\n"
	"C\t2\tpodman\taaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\tweb\t\n"
	"T\t1234\t1234\t1\tgetppid_n\t2\t\t\t0\t0\t0\t0\t\n"
	"T\t77\t77\t1\twaker\t1\t\t\t0\t0\t0\t0\t\n";

static const char cmdlines[] = "1234 getppid_n\n77 waker\n";


/* Ring-buffer pages of one CPU, filled event by event. */
struct pages {
	uint8_t *p;		/* np pages */
	int np;
	size_t len;		/* bytes used in the last page's data */
	uint64_t last_ts;
};

/* Append one event (payload: common header + fields, plen bytes). */
static void add_event(struct pages *pg, uint64_t ts, uint8_t *payload, size_t plen,
		      int type, int pid)
{
	size_t body = (plen + 3) & ~(size_t)3;
	size_t need = (plen <= 112 ? 4 : 8) + body;
	uint8_t *page, *ev;

	fx_put16(payload, (uint16_t)type);
	payload[2] = 0;
	payload[3] = 0;
	fx_put32(payload + 4, (uint32_t)pid);
	if (!pg->np || 16 + pg->len + need > PS) {
		pg->p = realloc(pg->p, (size_t)(pg->np + 1) * PS);
		page = pg->p + (size_t)pg->np * PS;
		memset(page, 0, PS);
		fx_put64(page, ts);
		pg->np++;
		pg->len = 0;
		pg->last_ts = ts;
	}
	page = pg->p + (size_t)(pg->np - 1) * PS;
	ev = page + 16 + pg->len;
	if (plen <= 112) {
		fx_put32(ev, (uint32_t)(body / 4) | (uint32_t)(ts - pg->last_ts) << 5);
		memcpy(ev + 4, payload, plen);
	} else {
		fx_put32(ev, (uint32_t)(ts - pg->last_ts) << 5);
		fx_put32(ev + 4, (uint32_t)(plen + 4));
		memcpy(ev + 8, payload, plen);
	}
	pg->last_ts = ts;
	pg->len += need;
	fx_put64(page + 8, pg->len);
}

static char *tmp_path(const char *suffix)
{
	char *path = NULL;
	int fd;

	if (asprintf(&path, "/tmp/strobe-sql-XXXXXX%s", suffix) < 0)
		return NULL;
	fd = mkstemps(path, (int)strlen(suffix));
	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/*
 * The fixture: its events, in time order, land on two CPUs.  cpu0 has
 * sys_enter at 1 s + 1.5 us * i and sys_exit 1 us later; cpu1's events
 * start 0.7 us in and follow each other by 10 us, so the weird:events
 * event (the fourth on cpu1) comes after 21 enters, 20 exits and 3 other
 * events: its seq is 45.
 */
static void make_events(struct pages *cpu0, struct pages *cpu1)
{
	uint8_t d[512];
	uint64_t ts = 1000000000ull;
	int i;

	/* cpu0: getppid (110) enter/exit pairs of the traced process */
	for (i = 0; i < NPAIRS; i++) {
		memset(d, 0, sizeof(d));
		fx_put64(d + 8, 110);
		fx_put64(d + 16, (uint64_t)i);		/* args[0] = i */
		fx_put64(d + 24, 7);			/* args[1] */
		add_event(cpu0, ts, d, 64, ID_ENTER, TID);
		ts += 1000;
		memset(d, 0, sizeof(d));
		fx_put64(d + 8, 110);
		fx_put64(d + 16, 1);			/* ret */
		add_event(cpu0, ts, d, 24, ID_EXIT, TID);
		ts += 500;
	}
	/* cpu1: one of each other kind */
	ts = 1000000000ull + 700;
	memset(d, 0, sizeof(d));
	memcpy(d + 8, "getppid_n", 10);
	fx_put32(d + 24, TID);
	fx_put32(d + 28, 120);
	fx_put32(d + 32, 0);
	add_event(cpu1, ts, d, 36, ID_WAKING, 77);
	ts += 10000;
	memset(d, 0, sizeof(d));
	fx_put32(d + 8, (uint32_t)-42);
	add_event(cpu1, ts, d, 12, ID_ADUP, 77);
	ts += 10000;
	memset(d, 0, sizeof(d));
	fx_put32(d + 8, 12u | (6u << 16));		/* __data_loc: offset 12, length 6 */
	memcpy(d + 12, "hello", 6);
	add_event(cpu1, ts, d, 18, ID_BDUP, 77);
	ts += 10000;
	memset(d, 0, sizeof(d));
	fx_put64(d + 8, 99);
	d[16] = (uint8_t)-5;
	fx_put16(d + 18, 65535);
	fx_put16(d + 20, 3);
	fx_put16(d + 22, 4);
	add_event(cpu1, ts, d, 24, ID_WEIRD, 77);
	ts += 10000;
	memset(d, 0, sizeof(d));
	for (i = 0; i < NWIDE; i++)
		fx_put32(d + 8 + 4 * i, (uint32_t)(i * 3));
	add_event(cpu1, ts, d, 8 + 4 * NWIDE, ID_WIDE, 77);
	ts += 10000;
	memset(d, 0, sizeof(d));
	fx_put32(d + 8, 0xdeadbeef);
	add_event(cpu1, ts, d, 12, ID_NOFORMAT, 77);
	ts += 10000;
	memset(d, 0, sizeof(d));
	fx_put32(d + 8, 24);
	add_event(cpu1, ts, d, 12, ID_IRQ, 77);
	ts += 10000;
	memset(d, 0, sizeof(d));
	fx_put32(d + 8, 5);
	add_event(cpu1, ts, d, 12, ID_TOP, 77);
}

#define NR_OTHER	8	/* events on cpu1 */

static int cpu_file(const struct pages *pg)
{
	char *path = tmp_path("");
	int fd = path ? open(path, O_RDWR) : -1;

	if (path)
		unlink(path);
	free(path);
	if (fd >= 0 && write(fd, pg->p, (size_t)pg->np * PS) != (ssize_t)((size_t)pg->np * PS)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A page no reader can take (its commit is larger than the page) put
 * between cpu0's first two pages. */
static void insert_bad_page(struct pages *pg)
{
	uint8_t *page;

	pg->p = realloc(pg->p, (size_t)(pg->np + 1) * PS);
	memmove(pg->p + 2 * (size_t)PS, pg->p + PS, (size_t)(pg->np - 1) * PS);
	page = pg->p + PS;
	memset(page, 0x5a, PS);
	fx_put64(page, 1000000000ull);
	fx_put64(page + 8, 0xfff0);
	pg->np++;
}

/* Write the fixture file; info: the STROBE_INFO text.  Returns its path. */
static char *write_fixture_bad(const char *info, bool bad_page)
{
	struct strobe_tf_format formats[] = {
		{ "raw_syscalls", fx_fmt_sys_enter, sizeof(fx_fmt_sys_enter) - 1 },
		{ "raw_syscalls", fx_fmt_sys_exit, sizeof(fx_fmt_sys_exit) - 1 },
		{ "sched", fmt_waking, sizeof(fmt_waking) - 1 },
		{ "alpha", fmt_adup, sizeof(fmt_adup) - 1 },
		{ "beta", fmt_bdup, sizeof(fmt_bdup) - 1 },
		{ "weird", fmt_weird, sizeof(fmt_weird) - 1 },
		{ "irq", fmt_irq, sizeof(fmt_irq) - 1 },
		{ "weird", fmt_top, sizeof(fmt_top) - 1 },
		{ "many", fmt_wide, 0 },
	};
	struct strobe_tf_meta m = { 0 };
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	struct pages pg[2] = { { 0 }, { 0 } };
	char *path = tmp_path(".dat");
	size_t n;
	int cpu, i;

	n = (size_t)snprintf(fmt_wide, sizeof(fmt_wide), "name: wide\nID: 804\nformat:\n%s",
			     FMT_COMMON);
	for (i = 0; i < NWIDE; i++)
		n += (size_t)snprintf(fmt_wide + n, sizeof(fmt_wide) - n,
				      "\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n",
				      i, 8 + 4 * i);
	n += (size_t)snprintf(fmt_wide + n, sizeof(fmt_wide) - n,
			      "\nprint fmt: \"f0=%%d\", REC->f0\n");
	formats[8].len = n;
	if (!path)
		return NULL;
	make_events(&pg[0], &pg[1]);
	if (bad_page)
		insert_bad_page(&pg[0]);
	fx_meta(&m);	/* its uname is strobe's: no node name */
	m.formats = formats;
	m.nr_formats = sizeof(formats) / sizeof(formats[0]);
	m.cmdlines = (struct strobe_tf_blob){ cmdlines, sizeof(cmdlines) - 1 };
	if (!info)
		m.uname = "Linux node7 6.1.0 x86_64";	/* trace-cmd's */
	m.strobe_info = info;
	if (strobe_tf_writer_open(path, &m, 2, &w, &err))
		goto fail;
	for (cpu = 0; cpu < 2; cpu++) {
		int fd = cpu_file(&pg[cpu]);

		if (fd < 0 || strobe_tf_writer_add_cpu(w, cpu, fd, UINT64_MAX, false, &err)) {
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		close(fd);
	}
	if (strobe_tf_writer_add_model(w, model_table, sizeof(model_table) - 1, &err))
		goto fail;
	if (strobe_tf_writer_close(w, NULL, info, &err)) {
		w = NULL;
		goto fail;
	}
	free(pg[0].p);
	free(pg[1].p);
	return path;
fail:
	fprintf(stderr, "  fixture: %s\n", err.msg);
	if (w)
		strobe_tf_writer_close(w, NULL, NULL, NULL);
	free(pg[0].p);
	free(pg[1].p);
	unlink(path);
	free(path);
	return NULL;
}

static char *write_fixture(const char *info)
{
	return write_fixture_bad(info, false);
}

static void drop(char *path)
{
	if (path)
		unlink(path);
	free(path);
}

/* The first column of the first row of `sql` as text ("" for NULL, "ERR"
 * on error) in buf. */
static const char *q(sqlite3 *db, const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *st;

	snprintf(buf, size, "ERR");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "  %s: %s\n", sql, sqlite3_errmsg(db));
		return buf;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, size, "%s", sqlite3_column_type(st, 0) == SQLITE_NULL ? ""
			 : (const char *)sqlite3_column_text(st, 0));
	else
		snprintf(buf, size, "NOROW");
	sqlite3_finalize(st);
	return buf;
}

static long long qi(sqlite3 *db, const char *sql)
{
	char buf[64];

	return strtoll(q(db, sql, buf, sizeof(buf)), NULL, 10);
}

#define QSTR(db, sql, want) do { char qbuf_[1024]; CHECK_STR(q(db, sql, qbuf_, sizeof(qbuf_)), want); } \
	while (0)

static sqlite3 *open_fixture(const char *path, const struct strobe_sql_opts *o,
			     struct strobe_sql_stats *st)
{
	struct strobe_error err = { 0 };
	sqlite3 *db = NULL;

	if (strobe_sql_open(path, NULL, o, &db, st, &err) < 0)
		fprintf(stderr, "  strobe_sql_open: %s\n", err.msg);
	return db;
}

/* ---- tests --------------------------------------------------------------- */

static void test_sql_loads_every_event_into_a_table_per_type(void)
{
	char *path = write_fixture("strobe_version=0.1.0\nhost=testhost\n");
	struct strobe_sql_stats st;
	sqlite3 *db;

	REQUIRE(path);
	db = open_fixture(path, NULL, &st);
	if (!db) {
		drop(path);
		REQUIRE(db);
	}
	CHECK(!st.reused);
	CHECK_EQ(st.events, 2 * NPAIRS + NR_OTHER);
	CHECK_EQ(st.nr_event_tables, 10);
	CHECK_EQ(qi(db, "SELECT count(*) FROM events"), 2 * NPAIRS + NR_OTHER);
	CHECK_EQ(qi(db, "SELECT count(*) FROM sys_enter"), NPAIRS);
	CHECK_EQ(qi(db, "SELECT count(*) FROM sys_exit"), NPAIRS);
	/* names: a shared event name gets its system, so does a reserved one */
	CHECK_EQ(qi(db, "SELECT count(*) FROM alpha_dup"), 1);
	CHECK_EQ(qi(db, "SELECT count(*) FROM beta_dup"), 1);
	CHECK_EQ(qi(db, "SELECT count(*) FROM weird_events"), 1);
	CHECK_EQ(qi(db, "SELECT count(*) FROM wide"), 1);
	CHECK_EQ(qi(db, "SELECT count(*) FROM unknown_events"), 1);
	CHECK_EQ(qi(db, "SELECT irq FROM irq_handler_entry"), 24);
	CHECK_EQ(qi(db, "SELECT x FROM weird_syscalls_top"), 5);
	/* every documented table and view */
	CHECK_EQ(qi(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('events', 'tasks', "
		    "'containers', 'meta', 'syscalls', 'syscalls_top', 'syscalls_stats', "
		    "'syscalls_errors', 'cputop', 'cputop_top', 'cputop_cpus', 'schedlat', "
		    "'schedlat_top', 'schedlat_stats', 'schedlat_preempt')"), 15);
	/* in stream order: seq counts events, ts never goes back */
	CHECK_EQ(qi(db, "SELECT max(seq) FROM events"), 2 * NPAIRS + NR_OTHER);
	CHECK_EQ(qi(db, "SELECT count(*) FROM (SELECT ts, lag(ts) OVER (ORDER BY seq) AS prev "
		    "FROM events) WHERE ts < prev"), 0);
	CHECK_EQ(qi(db, "PRAGMA user_version"), STROBE_SQL_SCHEMA_VERSION);
	sqlite3_close(db);
	drop(path);
}

static void test_sql_columns_are_typed_and_clashing_fields_renamed(void)
{
	char *path = write_fixture("strobe_version=0.1.0\nhost=testhost\n");
	sqlite3 *db;

	REQUIRE(path);
	db = open_fixture(path, NULL, NULL);
	if (!db) {
		drop(path);
		REQUIRE(db);
	}
	/* integers are INTEGER, strings TEXT, arrays JSON text */
	QSTR(db, "SELECT typeof(id) || ' ' || typeof(args) FROM sys_enter LIMIT 1",
	     "integer text");
	CHECK_EQ(qi(db, "SELECT sum(json_extract(args, '$[0]')) FROM sys_enter"),
		 NPAIRS * (NPAIRS - 1) / 2);
	QSTR(db, "SELECT args FROM sys_enter ORDER BY seq DESC LIMIT 1", "[149,7,0,0,0,0]");
	CHECK_EQ(qi(db, "SELECT count(*) FROM sys_exit WHERE id = 110 AND ret = 1"), NPAIRS);
	/* the task columns come from the model table: process and container */
	QSTR(db, "SELECT tid || ' ' || pid || ' ' || comm || ' ' || container FROM sys_enter "
	     "LIMIT 1", "1234 1234 getppid_n web");
	/* sched_waking's own pid and comm become field_pid and field_comm */
	QSTR(db, "SELECT tid || ' ' || comm || ' ' || field_pid || ' ' || field_comm || ' ' || "
	     "prio || ' ' || target_cpu || ' ' || container FROM sched_waking",
	     "77 waker 1234 getppid_n 120 0 host");
	CHECK_EQ(qi(db, "SELECT x FROM alpha_dup"), -42);
	QSTR(db, "SELECT msg || '/' || typeof(msg) FROM beta_dup", "hello/text");
	/* signed and unsigned small integers, an unsigned array, a field
	 * named like a common column */
	QSTR(db, "SELECT field_seq || ' ' || small || ' ' || mid || ' ' || pair || ' ' || seq "
	     "FROM weird_events", "99 -5 65535 [3,4] 45");
	CHECK_EQ(qi(db, "SELECT f69 FROM wide"), 69 * 3);
	QSTR(db, "SELECT hex(data) FROM unknown_events", "E70300004D000000EFBEADDE");
	QSTR(db, "SELECT type FROM unknown_events", "999");
	/* the model's tables */
	QSTR(db, "SELECT pid || ' ' || ppid || ' ' || comm || ' ' || container FROM tasks "
	     "WHERE tid = 1234", "1234 1 getppid_n web");
	QSTR(db, "SELECT runtime || ' ' || short_id FROM containers WHERE name = 'web'",
	     "podman aaaaaaaaaaaa");
	sqlite3_close(db);
	drop(path);
}

/*
 * Every event's row in the events view says what strobe report --json
 * says: ts, cpu, tid, event, system and the fields object, byte for byte.
 */
static void test_sql_events_view_matches_report_json(void)
{
	char *path = write_fixture("strobe_version=0.1.0\n");
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_stream *s = NULL;
	struct strobe_event ev;
	struct trace_seq ts;
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	int n = 0, bad = 0;

	REQUIRE(path);
	db = open_fixture(path, NULL, NULL);
	if (!db) {
		drop(path);
		REQUIRE(db);
	}
	trace_seq_init(&ts);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	CHECK_EQ(sqlite3_prepare_v2(db, "SELECT ts, cpu, tid, coalesce(system, 'null'), "
				    "coalesce(event, 'null'), fields, host FROM events ORDER BY seq",
				    -1, &st, NULL), SQLITE_OK);
	if (tf && st && strobe_stream_open_file(tf, NULL, &s, &err) == 0) {
		while (strobe_stream_next(s, &ev, &err) > 0) {
			char want[4096], *f;
			int len;

			trace_seq_reset(&ts);
			strobe_format_event_json(strobe_tracefile_formats(tf), &ev, NULL, NULL, buf_of(&ts));
			trace_seq_terminate(&ts);
			if (sqlite3_step(st) != SQLITE_ROW) {
				bad++;
				break;
			}
			n++;
			f = strstr(ts.buffer, ",\"fields\":");
			len = snprintf(want, sizeof(want), "%s", f ? f + 10 : "");
			while (len > 0 && (want[len - 1] == '\n' || want[len - 1] == '}'))
				want[--len] = '\0';
			strcat(want, "}");
			if ((uint64_t)sqlite3_column_int64(st, 0) != ev.ts ||
			    sqlite3_column_int(st, 1) != ev.cpu ||
			    sqlite3_column_int(st, 2) != ev.pid ||
			    strcmp((const char *)sqlite3_column_text(st, 5), want) ||
			    strcmp((const char *)sqlite3_column_text(st, 6), "")) {
				bad++;
				fprintf(stderr, "  event %d: json %s\n    sql %s\n", n, ts.buffer,
					(const char *)sqlite3_column_text(st, 5));
			}
			if (ev.format && (strcmp((const char *)sqlite3_column_text(st, 3),
						 strobe_format_system(ev.format)) ||
					  strcmp((const char *)sqlite3_column_text(st, 4),
						 strobe_format_name(ev.format))))
				bad++;
		}
		CHECK_EQ(sqlite3_step(st), SQLITE_DONE);
	}
	CHECK_EQ(n, 2 * NPAIRS + NR_OTHER);
	CHECK_EQ(bad, 0);
	sqlite3_finalize(st);
	strobe_stream_close(s);
	strobe_tracefile_close(tf);
	trace_seq_destroy(&ts);
	sqlite3_close(db);
	drop(path);
}

static void test_sql_host_from_recording_or_option(void)
{
	char *path = write_fixture("strobe_version=0.1.0\nhost=testhost\n");
	struct strobe_sql_opts o = { .host = "db-node-2" };
	sqlite3 *db;

	REQUIRE(path);
	db = open_fixture(path, NULL, NULL);
	if (db) {
		QSTR(db, "SELECT DISTINCT host FROM events", "testhost");
		QSTR(db, "SELECT value FROM meta WHERE key = 'host'", "testhost");
		sqlite3_close(db);
	}
	db = open_fixture(path, &o, NULL);
	if (db) {
		QSTR(db, "SELECT DISTINCT host FROM events", "db-node-2");
		CHECK_EQ(qi(db, "SELECT count(DISTINCT host) FROM events"), 1);
		sqlite3_close(db);
	}
	CHECK(db != NULL);
	drop(path);
	/* a strobe file without a host key: none; trace-cmd's: its node name */
	path = write_fixture("strobe_version=0.1.0\n");
	REQUIRE(path);
	db = open_fixture(path, NULL, NULL);
	if (db) {
		QSTR(db, "SELECT DISTINCT host FROM events", "");
		sqlite3_close(db);
	}
	drop(path);
	path = write_fixture(NULL);
	REQUIRE(path);
	db = open_fixture(path, NULL, NULL);
	if (db) {
		QSTR(db, "SELECT DISTINCT host FROM events", "node7");
		sqlite3_close(db);
	}
	CHECK(db != NULL);
	drop(path);
}

static void test_sql_analysis_results_are_tables(void)
{
	char *path = write_fixture("strobe_version=0.1.0\n");
	struct strobe_sql_opts none = { .analyses = "" }, logs = { .logs = true };
	sqlite3 *db;

	REQUIRE(path);
	db = open_fixture(path, NULL, NULL);
	if (db) {
		/* per thread and syscall, the keys of syscalls --json */
		QSTR(db, "SELECT tid || ' ' || comm || ' ' || count || ' ' || min || ' ' || max "
		     "|| ' ' || errors FROM syscalls WHERE syscall = 'getppid'",
		     "1234 getppid_n 150 1000 1000 0");
		CHECK_EQ(qi(db, "SELECT total FROM syscalls_top WHERE syscall = 'getppid'"),
			 NPAIRS * 1000);
		/* no sched_switch: empty but present, with a note why */
		CHECK_EQ(qi(db, "SELECT count(*) FROM cputop"), 0);
		CHECK_EQ(qi(db, "SELECT count(*) FROM meta WHERE key = 'note' AND "
			    "value LIKE 'cputop:%'"), 1);
		sqlite3_close(db);
	}
	db = open_fixture(path, &logs, NULL);
	if (db) {
		/* every call, with its duration, as syscalls --log prints it */
		CHECK_EQ(qi(db, "SELECT count(*) FROM syscalls_log WHERE syscall = 'getppid' "
			    "AND duration = 1000 AND tid = 1234 AND ret = 1"), NPAIRS);
		CHECK_EQ(qi(db, "SELECT count(*) FROM sqlite_master WHERE name IN "
			    "('cputop_log', 'schedlat_log')"), 2);
		QSTR(db, "SELECT value FROM meta WHERE key = 'logs'", "1");
		sqlite3_close(db);
	}
	db = open_fixture(path, NULL, NULL);
	if (db) {
		CHECK_EQ(qi(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_log'"), 0);
		sqlite3_close(db);
	}
	db = open_fixture(path, &none, NULL);
	if (db) {
		CHECK_EQ(qi(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'syscalls%'"),
			 0);
		CHECK_EQ(qi(db, "SELECT count(*) FROM events"), 2 * NPAIRS + NR_OTHER);
		sqlite3_close(db);
	}
	CHECK(db != NULL);
	drop(path);
}

static bool file_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static void test_sql_kept_db_reused_only_while_current(void)
{
	char *path = write_fixture("strobe_version=0.1.0\n");
	char *dbp = tmp_path(".sqlite");
	struct strobe_sql_stats st;
	struct strobe_error err = { 0 };
	struct strobe_sql_opts host = { .host = "h2" };
	struct timespec times[2];
	char tmpname[512];
	sqlite3 *db = NULL;

	REQUIRE(path && dbp);
	unlink(dbp);
	CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, &st, &err), 0);
	CHECK(!st.reused);
	CHECK(st.db_bytes > 0);
	sqlite3_close(db);
	snprintf(tmpname, sizeof(tmpname), "%s.tmp-%d", dbp, (int)getpid());
	CHECK(!file_exists(tmpname));

	/* current: reused, same answer */
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, &st, &err), 0);
	CHECK(st.reused);
	CHECK_EQ(st.events, 2 * NPAIRS + NR_OTHER);
	if (db)
		CHECK_EQ(qi(db, "SELECT count(*) FROM sys_enter"), NPAIRS);
	/* another schema version: rebuilt */
	if (db)
		sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL);
	sqlite3_close(db);
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, &st, &err), 0);
	CHECK(!st.reused);
	if (db)
		CHECK_EQ(qi(db, "PRAGMA user_version"), STROBE_SQL_SCHEMA_VERSION);
	sqlite3_close(db);

	/* a trace newer than the database: rebuilt */
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_sec += 100;
	times[1] = times[0];
	CHECK_EQ(utimensat(AT_FDCWD, path, times, 0), 0);
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, &st, &err), 0);
	CHECK(!st.reused);
	sqlite3_close(db);
	/* a trace put back in time: the database is newer but was made from
	 * another state of the file (its recorded mtime): rebuilt, then reused */
	times[0].tv_sec -= 300;
	times[1] = times[0];
	CHECK_EQ(utimensat(AT_FDCWD, path, times, 0), 0);
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, &st, &err), 0);
	CHECK(!st.reused);
	sqlite3_close(db);
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, &st, &err), 0);
	CHECK(st.reused);
	sqlite3_close(db);
	/* a database older than its trace: rebuilt */
	times[0].tv_sec -= 100;
	times[1] = times[0];
	CHECK_EQ(utimensat(AT_FDCWD, dbp, times, 0), 0);
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, &st, &err), 0);
	CHECK(!st.reused);
	sqlite3_close(db);

	/* other options: rebuilt; --rebuild: rebuilt */
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, &host, &db, &st, &err), 0);
	CHECK(!st.reused);
	if (db)
		QSTR(db, "SELECT DISTINCT host FROM events", "h2");
	sqlite3_close(db);
	host.rebuild = true;
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, &host, &db, &st, &err), 0);
	CHECK(!st.reused);
	sqlite3_close(db);
	host.rebuild = false;
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, &host, &db, &st, &err), 0);
	CHECK(st.reused);
	sqlite3_close(db);
	host.logs = true;
	db = NULL;
	CHECK_EQ(strobe_sql_open(path, dbp, &host, &db, &st, &err), 0);
	CHECK(!st.reused);
	sqlite3_close(db);

	drop(dbp);
	drop(path);
}

static void test_sql_errors_name_the_file_and_leave_nothing(void)
{
	char *path = write_fixture("strobe_version=0.1.0\n");
	char *text = tmp_path(".dat");
	struct strobe_error err = { 0 };
	sqlite3 *db = NULL;
	FILE *f;

	REQUIRE(path && text);
	CHECK_EQ(strobe_sql_open("/nonexistent/x.dat", NULL, NULL, &db, NULL, &err), -ENOENT);
	CHECK(strstr(err.msg, "/nonexistent/x.dat") != NULL);
	CHECK(db == NULL);

	f = fopen(text, "w");
	if (f) {
		fputs("not a trace\n", f);
		fclose(f);
	}
	err.msg[0] = '\0';
	CHECK(strobe_sql_open(text, NULL, NULL, &db, NULL, &err) < 0);
	CHECK(strstr(err.msg, text) != NULL);
	CHECK(db == NULL);

	err.msg[0] = '\0';
	CHECK(strobe_sql_open(path, "/nonexistent/dir/x.sqlite", NULL, &db, NULL, &err) < 0);
	CHECK(err.msg[0] != '\0');
	CHECK(db == NULL);

	/* --db never replaces what is not an SQLite database (a mistyped
	 * path), least of all the trace itself */
	{
		char *dbp = tmp_path(".sqlite");
		char buf[16] = "";
		struct stat sb;

		REQUIRE(dbp);
		f = fopen(dbp, "w");
		if (f) {
			fputs("precious", f);
			fclose(f);
		}
		CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, NULL, &err), -EEXIST);
		CHECK(strstr(err.msg, "not an SQLite database") != NULL);
		f = fopen(dbp, "r");
		CHECK(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "precious"));
		if (f)
			fclose(f);
		CHECK(db == NULL);
		CHECK_EQ(stat(path, &sb), 0);
		CHECK_EQ(strobe_sql_open(path, path, NULL, &db, NULL, &err), -EINVAL);
		CHECK(strstr(err.msg, "trace file itself") != NULL);
		CHECK(db == NULL);
		/* an empty file is fine */
		f = fopen(dbp, "w");
		if (f)
			fclose(f);
		CHECK_EQ(strobe_sql_open(path, dbp, NULL, &db, NULL, &err), 0);
		if (db)
			CHECK_EQ(qi(db, "SELECT count(*) FROM sys_exit"), NPAIRS);
		sqlite3_close(db);
		db = NULL;
		/* and the trace was not touched */
		CHECK_EQ(stat(path, &sb), 0);
		CHECK(sb.st_size > 0);
		drop(dbp);
	}
	drop(text);
	drop(path);
}

/* A damaged page is skipped: every other event loads, meta says so with
 * the diagnostic every command prints (strobe-damage(7)). */
static void test_sql_damaged_page_skipped_and_told(void)
{
	char *path = write_fixture_bad("strobe_version=0.1.0\n", true);
	struct strobe_sql_stats st;
	sqlite3 *db;

	REQUIRE(path);
	db = open_fixture(path, NULL, &st);
	if (db) {
		CHECK_EQ(st.skipped_pages, 1);
		CHECK_EQ(st.events, 2 * NPAIRS + NR_OTHER);
		CHECK_EQ(qi(db, "SELECT count(*) FROM sys_exit"), NPAIRS);
		CHECK_EQ(qi(db, "SELECT value FROM meta WHERE key = 'skipped_pages'"), 1);
		CHECK_EQ(qi(db, "SELECT count(*) FROM meta WHERE key = 'diagnostic.bad_data' AND "
			    "value LIKE 'damaged data was skipped: 1 page%commit%'"), 1);
		sqlite3_close(db);
	}
	CHECK(db != NULL);
	drop(path);
}

/* The sink alone, over a stream the caller drives (the API for live
 * sources and bindings), into the caller's own database. */
static void test_sql_sink_over_a_callers_stream(void)
{
	char *path = write_fixture("strobe_version=0.1.0\n");
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_stream *s = NULL;
	struct strobe_model *m = NULL;
	struct strobe_sql_sink *k = NULL;
	struct strobe_event ev;
	sqlite3 *db = NULL;
	int n = 0;

	REQUIRE(path);
	CHECK_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
	CHECK_EQ(strobe_tracefile_open(path, &tf, &err), 0);
	CHECK_EQ(strobe_model_new(&m, &err), 0);
	if (tf && m && db && strobe_model_load_file(m, tf, &err) == 0 &&
	    strobe_sql_sink_new(db, strobe_tracefile_formats(tf), m, "x", &k, &err) == 0 &&
	    strobe_stream_open_file(tf, NULL, &s, &err) == 0) {
		static const char *const bufs[] = { "", "inst" };

		strobe_sql_sink_set_buffers(k, bufs, 2);
		while (strobe_stream_next(s, &ev, &err) > 0) {
			strobe_model_update(m, &ev);
			ev.buffer = ev.type == ID_EXIT;	/* as if exits came from "inst" */
			CHECK_EQ(strobe_sql_sink_feed(k, &ev, &err), 0);
			n++;
		}
		CHECK_EQ(strobe_sql_sink_finish(k, &err), 0);
		CHECK_EQ(strobe_sql_sink_finish(k, &err), -EINVAL);
		CHECK_EQ(strobe_sql_sink_events(k), (uint64_t)n);
		CHECK_EQ(qi(db, "SELECT count(*) FROM events WHERE host = 'x'"), n);
		/* autocommit: every batch committed on its own, all there */
		CHECK_EQ(qi(db, "SELECT count(*) FROM sys_enter"), NPAIRS);
		/* the buffer column names instance buffers, NULL the top level */
		CHECK_EQ(qi(db, "SELECT count(*) FROM sys_exit WHERE buffer = 'inst'"), NPAIRS);
		CHECK_EQ(qi(db, "SELECT count(*) FROM events WHERE buffer IS NULL"), n - NPAIRS);
	}
	CHECK_EQ(n, 2 * NPAIRS + NR_OTHER);
	strobe_sql_sink_free(k);
	strobe_stream_close(s);
	strobe_model_free(m);
	strobe_tracefile_close(tf);
	sqlite3_close(db);
	drop(path);
}

TESTS(T(test_sql_loads_every_event_into_a_table_per_type),
      T(test_sql_columns_are_typed_and_clashing_fields_renamed),
      T(test_sql_events_view_matches_report_json),
      T(test_sql_host_from_recording_or_option),
      T(test_sql_analysis_results_are_tables),
      T(test_sql_kept_db_reused_only_while_current),
      T(test_sql_errors_name_the_file_and_leave_nothing),
      T(test_sql_damaged_page_skipped_and_told),
      T(test_sql_sink_over_a_callers_stream));
