/*
 * test_clickhouse.c - the ClickHouse sink (lib/sinks/clickhouse.c)
 * without a server: synthetic events of known formats go through the
 * sink, whose batches reach a sender that decodes the RowBinary bytes as
 * ClickHouse would (column by column, by the schema of clickhouse.h) and
 * must consume each batch exactly.  Checked: every event becomes one row
 * with its values, fields JSON as strobe report --json writes it, batch
 * sizes, the per-second aggregates (on-CPU time split at second
 * boundaries, syscall counts, errors, latency buckets), a refused batch
 * counted and sticky, the wall-clock offset read from a file's close
 * time and clock, and the client's argument checks and error
 * messages (a real connection to a closed loopback port), which never
 * show the password.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/clickhouse.h>

#include "formats.h"
#include "formats_of.h"
#include "test.h"
#include "tracefile_fixture.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

enum { ID_SWITCH = 316, ID_ENTER = 443, ID_EXIT = 444, ID_NOFORMAT = 999 };

static const char fmt_switch[] = "name: sched_switch\nID: 316\nformat:\n" FMT_COMMON
	FMT_SWITCH_FIELDS "print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";

#define NSEC 1000000000ULL

static struct tep_handle *make_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, fmt_switch, sizeof(fmt_switch) - 1, "sched") ||
	    tep_parse_event(tep, fx_fmt_sys_enter, sizeof(fx_fmt_sys_enter) - 1, "raw_syscalls") ||
	    tep_parse_event(tep, fx_fmt_sys_exit, sizeof(fx_fmt_sys_exit) - 1, "raw_syscalls")) {
		free_tep(tep);
		return NULL;
	}
	return tep;
}

static void put16(uint8_t *p, unsigned v) { p[0] = v; p[1] = v >> 8; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, v >> 32); }

/* An event of type id by pid at ts on cpu; payload in buf (64 bytes). */
static struct strobe_event mk(struct tep_handle *tep, uint8_t *buf, int id, int pid,
			      uint64_t ts, int cpu)
{
	struct strobe_event ev = { .ts = ts, .data = buf, .size = 64, .cpu = cpu,
				   .type = id, .pid = pid };

	memset(buf, 0, 64);
	put16(buf, (unsigned)id);
	put32(buf + 4, (uint32_t)pid);
	ev.format = strobe_formats_by_id(formats_of(tep), id);
	return ev;
}

static struct strobe_event sys_enter(struct tep_handle *tep, uint8_t *buf, int pid,
				     uint64_t ts, long nr)
{
	struct strobe_event ev = mk(tep, buf, ID_ENTER, pid, ts, 1);
	int i;

	put64(buf + 8, (uint64_t)nr);
	for (i = 0; i < 6; i++)
		put64(buf + 16 + 8 * i, (uint64_t)i + 1);
	return ev;
}

static struct strobe_event sys_exit(struct tep_handle *tep, uint8_t *buf, int pid,
				    uint64_t ts, long nr, long ret)
{
	struct strobe_event ev = mk(tep, buf, ID_EXIT, pid, ts, 1);

	put64(buf + 8, (uint64_t)nr);
	put64(buf + 16, (uint64_t)ret);
	return ev;
}

static struct strobe_event sched_switch(struct tep_handle *tep, uint8_t *buf, int cpu,
					uint64_t ts, int prev, int next)
{
	struct strobe_event ev = mk(tep, buf, ID_SWITCH, prev, ts, cpu);

	memcpy(buf + 8, "prev", 5);
	put32(buf + 24, (uint32_t)prev);
	memcpy(buf + 40, "next", 5);
	put32(buf + 56, (uint32_t)next);
	return ev;
}

/* ---- a RowBinary reader, as ClickHouse parses the batches ---- */

struct rd {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static uint64_t rd_le(struct rd *r, int n)
{
	uint64_t v = 0;
	int i;

	if (r->off + (size_t)n > r->len) {
		r->bad = true;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->off + (size_t)i] << (8 * i);
	r->off += (size_t)n;
	return v;
}

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (r->off < r->len && shift < 64) {
		uint8_t b = r->p[r->off++];

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
	r->bad = true;
	return 0;
}

/* A String column into out (NUL-terminated, cut at size). */
static void rd_str(struct rd *r, char *out, size_t size)
{
	uint64_t n = rd_varint(r);

	if (r->bad || r->off + n > r->len) {
		r->bad = true;
		out[0] = '\0';
		return;
	}
	snprintf(out, size, "%.*s", (int)n, (const char *)r->p + r->off);
	r->off += n;
}

struct erow {
	char host[32];
	uint64_t ts;
	uint32_t time;
	int cpu, tid, pid;
	char comm[32], container[32], system[32], event[32], fields[1024];
};

struct arow {
	uint32_t time;
	char container[32];
	uint64_t cpu_ns, syscalls, errors, syscall_ns, lat[STROBE_CH_LAT_BUCKETS];
};

#define MAX_ROWS 2000
struct got {
	struct erow ev[MAX_ROWS];
	int nev;
	struct arow ag[64];
	int nag;
	int batches, event_batches;
	uint64_t batch_rows[16];
	int fail_at;		/* refuse the fail_at-th call (1-based), 0 never */
	bool bad;		/* a batch did not decode exactly */
};

static int sender(void *arg, const char *table, const void *data, size_t len, uint64_t rows,
		  struct strobe_error *err)
{
	struct got *g = arg;
	struct rd r = { data, len, 0, false };
	uint64_t i;
	int j;

	g->batches++;
	if (g->fail_at && g->batches == g->fail_at) {
		snprintf(err->msg, sizeof(err->msg), "refused by the test");
		err->code = -EIO;
		return -EIO;
	}
	if (!strcmp(table, "events")) {
		if (g->event_batches < 16)
			g->batch_rows[g->event_batches] = rows;
		g->event_batches++;
		for (i = 0; i < rows && g->nev < MAX_ROWS; i++) {
			struct erow *e = &g->ev[g->nev++];

			rd_str(&r, e->host, sizeof(e->host));
			e->ts = rd_le(&r, 8);
			e->time = (uint32_t)rd_le(&r, 4);
			e->cpu = (int)rd_le(&r, 2);
			e->tid = (int)(int32_t)rd_le(&r, 4);
			e->pid = (int)(int32_t)rd_le(&r, 4);
			rd_str(&r, e->comm, sizeof(e->comm));
			rd_str(&r, e->container, sizeof(e->container));
			rd_str(&r, e->system, sizeof(e->system));
			rd_str(&r, e->event, sizeof(e->event));
			rd_str(&r, e->fields, sizeof(e->fields));
		}
	} else if (!strcmp(table, "container_seconds")) {
		for (i = 0; i < rows && g->nag < 64; i++) {
			struct arow *a = &g->ag[g->nag++];
			char host[32];

			rd_str(&r, host, sizeof(host));
			a->time = (uint32_t)rd_le(&r, 4);
			rd_str(&r, a->container, sizeof(a->container));
			a->cpu_ns = rd_le(&r, 8);
			a->syscalls = rd_le(&r, 8);
			a->errors = rd_le(&r, 8);
			a->syscall_ns = rd_le(&r, 8);
			if (rd_varint(&r) != STROBE_CH_LAT_BUCKETS)
				r.bad = true;
			for (j = 0; j < STROBE_CH_LAT_BUCKETS; j++)
				a->lat[j] = rd_le(&r, 8);
		}
	} else {
		r.bad = true;
	}
	if (r.bad || r.off != len)
		g->bad = true;
	return 0;
}

static void test_clickhouse_every_event_is_one_row_with_its_values(void)
{
	static struct got g;
	struct tep_handle *tep = make_tep();
	struct strobe_ch_sink_opts o = { .host = "alpha", .wall_offset_ns = 5 * NSEC,
					 .batch_rows = 100 };
	struct strobe_ch_sink *k = NULL;
	struct strobe_ch_stats st;
	struct strobe_error err = { 0 };
	struct strobe_event ev;
	uint8_t buf[64];
	int i, n = 0;

	memset(&g, 0, sizeof(g));
	REQUIRE(tep);
	REQUIRE(strobe_ch_sink_new(formats_of(tep), NULL, &o, sender, &g, &k, &err) == 0);
	for (i = 0; i < 120; i++) {	/* 240 rows: batches of 100, 100, 40 + 1 */
		ev = sys_enter(tep, buf, 1234, 1000 + 10 * (uint64_t)i, 110);
		CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
		ev = sys_exit(tep, buf, 1234, 1005 + 10 * (uint64_t)i, 110, i == 7 ? -2 : 1);
		CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
		n += 2;
	}
	ev = mk(tep, buf, ID_NOFORMAT, 77, 3 * NSEC, 0);
	CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
	n++;
	CHECK_EQ(strobe_ch_sink_finish(k, &err), 0);
	strobe_ch_sink_stats(k, &st);
	CHECK_EQ(st.events, n);
	CHECK_EQ(st.rows_sent, n);
	CHECK_EQ(st.rows_failed, 0);
	CHECK(!g.bad);
	CHECK_EQ(g.nev, n);
	CHECK_EQ(g.event_batches, 3);
	CHECK_EQ(g.batch_rows[0], 100);
	CHECK_EQ(g.batch_rows[1], 100);
	CHECK_EQ(g.batch_rows[2], 41);
	CHECK_STR(g.ev[0].host, "alpha");
	CHECK_EQ(g.ev[0].ts, 1000);
	CHECK_EQ(g.ev[0].time, 5);		/* (ts + offset) / 1 s */
	CHECK_EQ(g.ev[0].cpu, 1);
	CHECK_EQ(g.ev[0].tid, 1234);
	CHECK_EQ(g.ev[0].pid, -1);		/* no model: unknown */
	CHECK_STR(g.ev[0].system, "raw_syscalls");
	CHECK_STR(g.ev[0].event, "sys_enter");
	CHECK_STR(g.ev[0].fields, "{\"id\":110,\"args\":[1,2,3,4,5,6]}");
	CHECK_STR(g.ev[15].event, "sys_exit");
	CHECK_STR(g.ev[15].fields, "{\"id\":110,\"ret\":-2}");
	CHECK_EQ(g.ev[n - 1].time, 8);
	CHECK_STR(g.ev[n - 1].event, "");		/* no format */
	CHECK_STR(g.ev[n - 1].fields, "{}");
	CHECK_EQ(g.ev[n - 1].tid, 77);
	strobe_ch_sink_free(k);
	free_tep(tep);
}

/* ---- the fields column for values that are easy to get wrong ---- */

enum { ID_TRICKY = 500 };

/* Every way a field is decoded: strings (fixed, __data_loc, __rel_loc),
 * signed and unsigned integers of each size at their extremes, arrays
 * (fixed, dynamic), an odd size, a field beyond the record (null). */
static const char fmt_tricky[] = "name: tricky\nID: 500\nformat:\n" FMT_COMMON
	"\tfield:char name[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:s8 sc;\toffset:24;\tsize:1;\tsigned:1;\n"
	"\tfield:u8 uc;\toffset:25;\tsize:1;\tsigned:0;\n"
	"\tfield:short ss;\toffset:26;\tsize:2;\tsigned:1;\n"
	"\tfield:int si;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:s64 sl;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:u64 ul;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] path;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc u32[] vals;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:short arr[3];\toffset:56;\tsize:6;\tsigned:1;\n"
	"\tfield:u8 odd;\toffset:62;\tsize:3;\tsigned:0;\n"
	"\tfield:u32 u32max;\toffset:72;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rel;\toffset:76;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] badloc;\toffset:65;\tsize:4;\tsigned:0;\n"
	"\tfield:int beyond;\toffset:400;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"sc=%d\", REC->sc\n";

#define TRICKY_FIELDS "{\"name\":\"q\\\"b\\\\s\\n\\t\\u0001\",\"sc\":-128,\"uc\":255," \
	"\"ss\":-2,\"si\":-2147483648,\"sl\":-9223372036854775808," \
	"\"ul\":18446744073709551615,\"path\":\"a\\\"b\\\\c\\u007f\\u00ff\xc3\xa9/\\r\"," \
	"\"vals\":[0,4294967295,7],\"arr\":[-1,32767,-32768],\"odd\":[1,2,3]," \
	"\"u32max\":4294967295,\"rel\":\"rel\",\"badloc\":null,\"beyond\":null}"

/* Store v in n bytes at p, big-endian or little-endian. */
static void put_n(uint8_t *p, uint64_t v, int n, bool big)
{
	int i;

	for (i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static struct tep_handle *tricky_tep(bool big)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, fmt_tricky, sizeof(fmt_tricky) - 1, "test")) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

/* The tricky event's record (128 bytes in buf) in the file's byte order. */
static struct strobe_event tricky_event(struct tep_handle *tep, uint8_t *buf, bool big)
{
	static const char path[] = "a\"b\\c\x7f\xff\xc3\xa9/\r";
	struct strobe_event ev = { .ts = 42, .data = buf, .size = 128, .cpu = 3,
				   .type = ID_TRICKY, .pid = 4321 };

	memset(buf, 0, 128);
	put_n(buf, ID_TRICKY, 2, big);
	put_n(buf + 4, 4321, 4, big);
	memcpy(buf + 8, "q\"b\\s\n\t\x01", 8);
	put_n(buf + 24, 0x80, 1, big);
	put_n(buf + 25, 0xff, 1, big);
	put_n(buf + 26, (uint64_t)-2, 2, big);
	put_n(buf + 28, 0x80000000u, 4, big);
	put_n(buf + 32, 1ULL << 63, 8, big);
	put_n(buf + 40, UINT64_MAX, 8, big);
	put_n(buf + 48, (uint64_t)(sizeof(path) << 16 | 84), 4, big);	/* path at 84 */
	memcpy(buf + 84, path, sizeof(path));
	put_n(buf + 52, 12 << 16 | 100, 4, big);			/* vals at 100 */
	put_n(buf + 100, 0, 4, big);
	put_n(buf + 104, UINT32_MAX, 4, big);
	put_n(buf + 108, 7, 4, big);
	put_n(buf + 56, 0xffff, 2, big);
	put_n(buf + 58, 32767, 2, big);
	put_n(buf + 60, 0x8000, 2, big);
	buf[62] = 1, buf[63] = 2, buf[64] = 3;
	put_n(buf + 65, 200u << 16 | 120, 4, big);	/* 200 bytes: beyond the record */
	put_n(buf + 72, UINT32_MAX, 4, big);
	put_n(buf + 76, 4 << 16 | 32, 4, big);		/* rel: 32 after its end: 112 */
	memcpy(buf + 112, "rel", 4);
	ev.format = strobe_formats_by_id(formats_of(tep), ID_TRICKY);
	return ev;
}

/* The "fields" object of strobe report --json's line for ev. */
static void report_fields(struct tep_handle *tep, const struct strobe_event *ev, char *out,
			  size_t size)
{
	struct strobe_buf *b = strobe_buf_new();
	const char *s, *f;
	size_t len;

	out[0] = '\0';
	if (!b || strobe_format_event_json(formats_of(tep), ev, NULL, NULL, b) < 0) {
		strobe_buf_free(b);
		return;
	}
	s = strobe_buf_data(b);
	len = strobe_buf_len(b);
	f = strstr(s, ",\"fields\":");
	if (f && len >= 3)
		snprintf(out, size, "%.*s", (int)(s + len - 2 - (f + 10)), f + 10);
	strobe_buf_free(b);
}

static void tricky_fields_pinned(bool big)
{
	static struct got g;
	struct tep_handle *tep = tricky_tep(big);
	struct strobe_ch_sink_opts o = { .host = "h" };
	struct strobe_ch_sink *k = NULL;
	struct strobe_error err = { 0 };
	struct strobe_event ev;
	uint8_t buf[128];
	char want[1024];
	int i;

	memset(&g, 0, sizeof(g));
	REQUIRE(tep);
	REQUIRE(strobe_ch_sink_new(formats_of(tep), NULL, &o, sender, &g, &k, &err) == 0);
	ev = tricky_event(tep, buf, big);
	for (i = 0; i < 3; i++)		/* the first and the later events of a type */
		CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
	ev.size = 60;			/* cut inside arr: arr, odd, ... are null */
	CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
	CHECK_EQ(strobe_ch_sink_finish(k, &err), 0);
	CHECK(!g.bad);
	REQUIRE(g.nev == 4);
	CHECK_STR(g.ev[0].system, "test");
	CHECK_STR(g.ev[0].event, "tricky");
	for (i = 0; i < 3; i++)
		CHECK_STR(g.ev[i].fields, TRICKY_FIELDS);
	CHECK_STR(g.ev[3].fields, "{\"name\":\"q\\\"b\\\\s\\n\\t\\u0001\",\"sc\":-128,\"uc\":255,"
		  "\"ss\":-2,\"si\":-2147483648,\"sl\":-9223372036854775808,"
		  "\"ul\":18446744073709551615,\"path\":null,\"vals\":null,\"arr\":null,"
		  "\"odd\":null,\"u32max\":null,\"rel\":null,\"badloc\":null,\"beyond\":null}");
	/* and the same text as strobe report --json */
	report_fields(tep, &ev, want, sizeof(want));
	CHECK_STR(g.ev[3].fields, want);
	ev.size = 128;
	report_fields(tep, &ev, want, sizeof(want));
	CHECK_STR(g.ev[0].fields, want);
	strobe_ch_sink_free(k);
	free_tep(tep);
}

static void test_clickhouse_fields_json_of_tricky_values_is_pinned(void)
{
	tricky_fields_pinned(false);
}

static void test_clickhouse_fields_json_of_a_big_endian_file_is_the_same(void)
{
	tricky_fields_pinned(true);
}

static const struct arow *agg_at(const struct got *g, uint32_t sec, uint64_t *cpu,
				 uint64_t *sys)
{
	const struct arow *last = NULL;
	int i;

	*cpu = *sys = 0;
	for (i = 0; i < g->nag; i++)
		if (g->ag[i].time == sec) {
			*cpu += g->ag[i].cpu_ns;
			*sys += g->ag[i].syscalls;
			last = &g->ag[i];
		}
	return last;
}

static void test_clickhouse_aggregates_per_second(void)
{
	static struct got g;
	struct tep_handle *tep = make_tep();
	struct strobe_ch_sink_opts o = { .host = "h" };
	struct strobe_ch_sink *k = NULL;
	struct strobe_error err = { 0 };
	struct strobe_event ev;
	const struct arow *a;
	uint64_t cpu, sys;
	uint8_t buf[64];
	int i;

	memset(&g, 0, sizeof(g));
	REQUIRE(tep);
	REQUIRE(strobe_ch_sink_new(formats_of(tep), NULL, &o, sender, &g, &k, &err) == 0);
	/* cpu 0: idle until 0.5 s, task 1234 runs 0.5 .. 2.25 s, then idle */
	ev = sched_switch(tep, buf, 0, NSEC / 2, 0, 1234);
	CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
	/* seconds 0 and 1: 3 calls of 1000 ns, one failing, and one of 3 ns */
	for (i = 0; i < 3; i++) {
		ev = sys_enter(tep, buf, 1234, NSEC / 2 + 10000 * (uint64_t)i + 1, 39);
		strobe_ch_sink_feed(k, &ev, &err);
		ev = sys_exit(tep, buf, 1234, NSEC / 2 + 10000 * (uint64_t)i + 1001, 39,
			      i == 1 ? -11 : 5);
		strobe_ch_sink_feed(k, &ev, &err);
	}
	ev = sys_enter(tep, buf, 1234, NSEC + 100, 39);
	strobe_ch_sink_feed(k, &ev, &err);
	ev = sys_exit(tep, buf, 1234, NSEC + 103, 39, 0);
	strobe_ch_sink_feed(k, &ev, &err);
	/* an exit whose entry was not recorded: counted, no latency */
	ev = sys_exit(tep, buf, 1234, NSEC + 200, 39, 0);
	strobe_ch_sink_feed(k, &ev, &err);
	ev = sched_switch(tep, buf, 0, 2 * NSEC + NSEC / 4, 1234, 0);
	CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
	ev = sched_switch(tep, buf, 0, 3 * NSEC, 0, 1234);	/* idle time: not counted */
	CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), 0);
	CHECK_EQ(strobe_ch_sink_finish(k, &err), 0);
	CHECK(!g.bad);
	a = agg_at(&g, 0, &cpu, &sys);
	REQUIRE(a);
	CHECK_EQ(cpu, NSEC / 2);
	CHECK_EQ(sys, 3);
	CHECK_EQ(a->errors, 1);
	CHECK_EQ(a->syscall_ns, 3000);
	CHECK_EQ(a->lat[9], 3);			/* 512 <= 1000 < 1024 */
	CHECK_STR(a->container, "");		/* no model: unknown */
	a = agg_at(&g, 1, &cpu, &sys);
	REQUIRE(a);
	CHECK_EQ(cpu, NSEC);
	CHECK_EQ(sys, 2);
	CHECK_EQ(a->errors, 0);
	CHECK_EQ(a->syscall_ns, 3);
	CHECK_EQ(a->lat[1], 1);			/* 2 <= 3 < 4 */
	a = agg_at(&g, 2, &cpu, &sys);
	REQUIRE(a);
	CHECK_EQ(cpu, NSEC / 4);
	CHECK_EQ(sys, 0);
	CHECK(!agg_at(&g, 3, &cpu, &sys));
	strobe_ch_sink_free(k);
	free_tep(tep);
}

static void test_clickhouse_refused_batch_is_counted_and_sticky(void)
{
	static struct got g;
	struct tep_handle *tep = make_tep();
	struct strobe_ch_sink_opts o = { .batch_rows = 10, .no_aggregates = true };
	struct strobe_ch_sink *k = NULL;
	struct strobe_error err = { 0 };
	struct strobe_ch_stats st;
	struct strobe_event ev;
	uint8_t buf[64];
	int i, ret = 0, fed = 0;

	memset(&g, 0, sizeof(g));
	g.fail_at = 2;
	REQUIRE(tep);
	REQUIRE(strobe_ch_sink_new(formats_of(tep), NULL, &o, sender, &g, &k, &err) == 0);
	for (i = 0; i < 25 && ret == 0; i++, fed++) {
		ev = sys_enter(tep, buf, 1, (uint64_t)i, 1);
		ret = strobe_ch_sink_feed(k, &ev, &err);
	}
	CHECK_EQ(ret, -EIO);
	CHECK_EQ(fed, 20);			/* the 20th row filled the refused batch */
	CHECK_STR(err.msg, "refused by the test");
	ev = sys_enter(tep, buf, 1, 99, 1);
	CHECK_EQ(strobe_ch_sink_feed(k, &ev, &err), -EIO);
	CHECK_EQ(strobe_ch_sink_finish(k, &err), -EIO);
	strobe_ch_sink_stats(k, &st);
	CHECK_EQ(st.rows_sent, 10);
	CHECK_EQ(st.rows_failed, 10);
	CHECK_EQ(g.batches, 2);
	strobe_ch_sink_free(k);
	free_tep(tep);
}

static void test_clickhouse_client_checks_and_errors_hide_the_password(void)
{
	struct strobe_clickhouse_opts o = { 0 };
	struct strobe_clickhouse *ch = NULL;
	struct strobe_error err = { 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char url[128];
	int fd, port;

	o.url = "ftp://x";
	CHECK_EQ(strobe_clickhouse_new(&o, &ch, &err), -EINVAL);
	CHECK(!ch);
	o.url = "http://127.0.0.1:1";
	o.database = "a;DROP";
	CHECK_EQ(strobe_clickhouse_new(&o, &ch, &err), -EINVAL);
	CHECK(strstr(err.msg, "database name"));

	/* a loopback port nobody listens on: bound, never listened to */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	REQUIRE(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	REQUIRE(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	REQUIRE(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
	port = ntohs(sa.sin_port);
	snprintf(url, sizeof(url), "http://bob:Sekr1t-pw@127.0.0.1:%d/", port);
	o.url = url;
	o.database = NULL;
	REQUIRE(strobe_clickhouse_new(&o, &ch, &err) == 0);
	CHECK_EQ(strobe_clickhouse_query(ch, "SELECT 1", NULL, NULL, &err), -ECONNREFUSED);
	CHECK(strstr(err.msg, "127.0.0.1"));
	CHECK(!strstr(err.msg, "Sekr1t"));
	CHECK(!strstr(err.msg, "bob"));
	CHECK_EQ(strobe_clickhouse_create_schema(ch, &err), -ECONNREFUSED);
	CHECK(!strstr(err.msg, "Sekr1t"));
	CHECK_EQ(strobe_clickhouse_send(ch, "events", "x", 1, 1, &err), -ECONNREFUSED);
	CHECK(!strstr(err.msg, "Sekr1t"));
	CHECK_EQ(strobe_clickhouse_send(ch, "bad table", "x", 1, 1, &err), -EINVAL);
	strobe_clickhouse_free(ch);
	close(fd);
}

/* A trace file of no events whose CPU statistics say the trace clock
 * read now_ts when it was closed, with strobe info `info`; its
 * modification time set to mtime. */
static char *wall_fixture(const char *now_ts, const char *info, const struct timespec *mtime)
{
	struct strobe_tf_format formats[] = { { "raw_syscalls", fx_fmt_sys_enter, sizeof(fx_fmt_sys_enter) - 1 } };
	struct strobe_tf_meta m = { 0 };
	struct strobe_tf_writer *w = NULL;
	struct strobe_error err = { 0 };
	char stats[256], empty[] = "/tmp/strobe-test-ch-XXXXXX", *path = NULL;
	const char *cpustats[] = { stats, NULL };
	struct timespec times[2];
	int fd;

	snprintf(stats, sizeof(stats), "CPU: 0\nentries: 0\noverrun: 0\n%s\n", now_ts);
	fd = mkstemp(empty);
	if (fd < 0 || asprintf(&path, "%s.dat", empty) < 0)
		return NULL;
	fx_meta(&m);
	m.uname = NULL;
	m.formats = formats;
	m.nr_formats = 1;
	if (strobe_tf_writer_open(path, &m, 1, &w, &err) ||
	    strobe_tf_writer_add_cpu(w, 0, fd, UINT64_MAX, false, &err) ||
	    strobe_tf_writer_close(w, cpustats, info, &err)) {
		fprintf(stderr, "  fixture: %s\n", err.msg);
		free(path);
		path = NULL;
	}
	close(fd);
	unlink(empty);
	times[0] = times[1] = *mtime;
	if (path && utimensat(AT_FDCWD, path, times, 0) < 0) {
		unlink(path);
		free(path);
		path = NULL;
	}
	return path;
}

static void test_clickhouse_wall_offset_is_the_files_close_less_its_clock(void)
{
	struct timespec mt = { .tv_sec = 1767225610, .tv_nsec = 500000000 };	/* 2026-01-01 00:00:10.5 */
	struct strobe_tracefile *tf = NULL;
	struct strobe_error err = { 0 };
	int64_t off = 0;
	char *path = wall_fixture("now ts: 100.250000", "strobe_version=test\n", &mt), *bad;

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	CHECK_EQ(strobe_ch_file_wall_offset(tf, path, &off), 0);
	CHECK_EQ(off, 1767225610500000000LL - 100250000000LL);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
	/* statistics without the clock: no estimate */
	bad = wall_fixture("oldest event ts: 5.000000", "strobe_version=test\n", &mt);
	REQUIRE(bad);
	REQUIRE(strobe_tracefile_open(bad, &tf, &err) == 0);
	CHECK_EQ(strobe_ch_file_wall_offset(tf, bad, &off), -ENOENT);
	strobe_tracefile_close(tf);
	unlink(bad);
	free(bad);
}

/* strobe record's clock pairings win over the estimate: the mean of the
 * start's and the end's offsets */
static void test_clickhouse_wall_offset_from_the_recordings_clock_pairings(void)
{
	struct timespec mt = { .tv_sec = 1767225610, .tv_nsec = 500000000 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_error err = { 0 };
	int64_t off = 0;
	char *path = wall_fixture("now ts: 100.250000",
				  "strobe_version=test\n"
				  "clock_sync_start=90000000000 1767225600000000000 1200\n"
				  "clock_sync_end=100000000000 1767225610000002000 900\n", &mt);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	CHECK_EQ(strobe_ch_file_wall_offset(tf, path, &off), 0);
	CHECK_EQ(off, 1767225600000000000LL - 90000000000LL + 1000);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
	/* only the start's */
	path = wall_fixture("oldest event ts: 5.000000",
			    "clock_sync_start=90000000000 1767225600000000000 1200\n", &mt);
	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	CHECK_EQ(strobe_ch_file_wall_offset(tf, path, &off), 0);
	CHECK_EQ(off, 1767225600000000000LL - 90000000000LL);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

TESTS(T(test_clickhouse_every_event_is_one_row_with_its_values),
      T(test_clickhouse_fields_json_of_tricky_values_is_pinned),
      T(test_clickhouse_fields_json_of_a_big_endian_file_is_the_same),
      T(test_clickhouse_wall_offset_is_the_files_close_less_its_clock),
      T(test_clickhouse_wall_offset_from_the_recordings_clock_pairings),
      T(test_clickhouse_aggregates_per_second),
      T(test_clickhouse_refused_batch_is_counted_and_sticky),
      T(test_clickhouse_client_checks_and_errors_hide_the_password));
