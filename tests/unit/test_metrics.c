/*
 * test_metrics.c - the Prometheus registry (lib/metrics/): the exact
 * exposition text of known updates and of synthetic strobe top intervals,
 * escaping, counters that only grow, groups that expire and come back as
 * new series, the series cap and its dropped count, the bound on syscall
 * label values, histogram buckets equal to the engine's slots, the web
 * configuration parser and bcrypt check, address checks of the server,
 * and updates racing scrapes (under ASan).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strobe/strobe.h>
#include <strobe/metrics.h>
#include <strobe/top.h>

#include "metrics/metrics-int.h"
#include "test.h"

#define S 1000000000ULL

/* The registry's own families, as every exposition starts. */
#define HEAD \
	"# HELP strobe_build_info strobe's version (the value is always 1)\n" \
	"# TYPE strobe_build_info gauge\n" \
	"strobe_build_info{version=\"" STROBE_VERSION "\"} 1\n" \
	"# HELP strobe_metrics_dropped_series_total Series not created because the " \
	"registry held its most series\n" \
	"# TYPE strobe_metrics_dropped_series_total counter\n" \
	"strobe_metrics_dropped_series_total %d\n" \
	"# HELP strobe_scrape_duration_seconds How long the previous scrape of this " \
	"endpoint took to serve\n" \
	"# TYPE strobe_scrape_duration_seconds gauge\n"

static char *expo(struct strobe_metrics *m)
{
	struct strobe_buf *b = strobe_buf_new();
	char *s;

	if (!b || strobe_metrics_write(m, b) < 0)
		return NULL;
	s = strdup(strobe_buf_data(b));
	strobe_buf_free(b);
	return s;
}

static char *head(int dropped)
{
	static char h[1024];

	snprintf(h, sizeof(h), HEAD, dropped);
	return h;
}

/* The value on the line that starts with `series ` (-1: no such line). */
static double value_of(const char *text, const char *series)
{
	size_t n = strlen(series);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static void test_metrics_exposition_exact(void)
{
	static const char *const ab[] = { "a", "b" };
	static const uint64_t bounds[] = { 1000, 5000 };
	struct strobe_metrics *m;
	int c, g, h;
	char *t, want[4096];

	REQUIRE(strobe_metrics_new(NULL, &m, NULL) == 0);
	c = strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"t_requests_total", "Requests", STROBE_METRIC_COUNTER, ab, 2, 0, NULL, 0 }, NULL);
	g = strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"t_temp", "Temperature", STROBE_METRIC_GAUGE, NULL, 0, 3, NULL, 0 }, NULL);
	h = strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"t_lat_seconds", "Latency", STROBE_METRIC_HISTOGRAM, ab, 1, 6, bounds, 2 }, NULL);
	REQUIRE(c >= 0 && g >= 0 && h >= 0);
	CHECK_EQ(strobe_metrics_counter_add(m, c, NULL, (const char *[]){ "x", "y" }, 3), 0);
	CHECK_EQ(strobe_metrics_counter_add(m, c, NULL, (const char *[]){ "x", "" }, 1), 0);
	CHECK_EQ(strobe_metrics_counter_add(m, c, NULL, (const char *[]){ "x", "y" }, 4), 0);
	CHECK_EQ(strobe_metrics_gauge_set(m, g, NULL, NULL, -1500), 0);
	CHECK_EQ(strobe_metrics_histogram_add(m, h, NULL, (const char *[]){ "q" },
					      (const uint64_t[]){ 2, 0, 1 }, 7000123), 0);
	CHECK_EQ(strobe_metrics_histogram_add(m, h, NULL, (const char *[]){ "q" },
					      (const uint64_t[]){ 0, 5, 0 }, 10), 0);
	/* wrong type */
	CHECK_EQ(strobe_metrics_gauge_set(m, c, NULL, (const char *[]){ "x", "y" }, 1), -EINVAL);
	CHECK_EQ(strobe_metrics_counter_add(m, 99, NULL, NULL, 1), -EINVAL);
	t = expo(m);
	snprintf(want, sizeof(want), "%s%s", head(0),
		 "# HELP t_requests_total Requests\n"
		 "# TYPE t_requests_total counter\n"
		 "t_requests_total{a=\"x\",b=\"y\"} 7\n"
		 "t_requests_total{a=\"x\",b=\"\"} 1\n"
		 "# HELP t_temp Temperature\n"
		 "# TYPE t_temp gauge\n"
		 "t_temp -1.5\n"
		 "# HELP t_lat_seconds Latency\n"
		 "# TYPE t_lat_seconds histogram\n"
		 "t_lat_seconds_bucket{a=\"q\",le=\"0.001\"} 2\n"
		 "t_lat_seconds_bucket{a=\"q\",le=\"0.005\"} 7\n"
		 "t_lat_seconds_bucket{a=\"q\",le=\"+Inf\"} 8\n"
		 "t_lat_seconds_sum{a=\"q\"} 7.000133\n"
		 "t_lat_seconds_count{a=\"q\"} 8\n");
	CHECK_STR(t, want);
	free(t);
	strobe_metrics_free(m);
}

static void test_metrics_escaping(void)
{
	static const char *const l[] = { "v" };
	struct strobe_metrics *m;
	int c;
	char *t;

	REQUIRE(strobe_metrics_new(NULL, &m, NULL) == 0);
	c = strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"t_total", "a \\ b\nc \"d\"", STROBE_METRIC_COUNTER, l, 1, 0, NULL, 0 }, NULL);
	REQUIRE(c >= 0);
	strobe_metrics_counter_add(m, c, NULL, (const char *[]){ "x\\y\"z\nw" }, 2);
	/* bytes that are not UTF-8 become U+FFFD; UTF-8 stays */
	strobe_metrics_counter_add(m, c, NULL, (const char *[]){ "a\xff" "b\xc3\xa9\xe2\x82" }, 1);
	t = expo(m);
	CHECK(t && strstr(t, "t_total{v=\"a\xef\xbf\xbd" "b\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\"} 1\n"));
	CHECK(t && strstr(t, "# HELP t_total a \\\\ b\\nc \"d\"\n"));
	CHECK(t && strstr(t, "t_total{v=\"x\\\\y\\\"z\\nw\"} 2\n"));
	free(t);
	strobe_metrics_free(m);
}

static void test_metrics_family_errors(void)
{
	static const char *const le[] = { "le" }, *const dup[] = { "a", "a" },
		*const under[] = { "__x" }, *const digit[] = { "1a" };
	static const uint64_t down[] = { 5, 1 };
	struct strobe_metrics *m;
	struct strobe_error err;

	REQUIRE(strobe_metrics_new(NULL, &m, NULL) == 0);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"9bad", "", STROBE_METRIC_COUNTER, NULL, 0, 0, NULL, 0 }, &err), -EINVAL);
	CHECK(strstr(err.msg, "9bad"));
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"a-b", "", STROBE_METRIC_COUNTER, NULL, 0, 0, NULL, 0 }, &err), -EINVAL);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"x", "", STROBE_METRIC_COUNTER, le, 1, 0, NULL, 0 }, &err), -EINVAL);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"x", "", STROBE_METRIC_COUNTER, dup, 2, 0, NULL, 0 }, &err), -EINVAL);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"x", "", STROBE_METRIC_COUNTER, under, 1, 0, NULL, 0 }, &err), -EINVAL);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"x", "", STROBE_METRIC_COUNTER, digit, 1, 0, NULL, 0 }, &err), -EINVAL);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"x", "", STROBE_METRIC_HISTOGRAM, NULL, 0, 0, down, 2 }, &err), -EINVAL);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"x", "", STROBE_METRIC_HISTOGRAM, NULL, 0, 0, NULL, 0 }, &err), -EINVAL);
	CHECK_EQ(strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"strobe_build_info", "", STROBE_METRIC_GAUGE, NULL, 0, 0, NULL, 0 }, &err), -EEXIST);
	strobe_metrics_free(m);
}

/* A synthetic interval: container "web" (pod p, namespace ns) and the
 * host. */
struct fixture {
	struct strobe_top_syscall sys[3];
	struct strobe_top_errno err[2];
	struct strobe_top_container c[2];
	struct strobe_top_interval iv;
};

static void fixture_init(struct fixture *f, uint64_t scale)
{
	int k;

	memset(f, 0, sizeof(*f));
	f->sys[0] = (struct strobe_top_syscall){ "read", 100 * scale, 2 * scale };
	f->sys[1] = (struct strobe_top_syscall){ "openat", 10 * scale, 3 * scale };
	f->sys[2] = (struct strobe_top_syscall){ "other", 5 * scale, 0 };
	f->err[0] = (struct strobe_top_errno){ "read", "EAGAIN", 2 * scale };
	f->err[1] = (struct strobe_top_errno){ "openat", "ENOENT", 3 * scale };
	f->c[0] = (struct strobe_top_container){ .name = "web", .id = "abc", .pod = "p",
		.ns = "ns", .cpu_ns = 250000000 * scale, .switches = 40 * scale,
		.syscalls = f->sys, .nr_syscalls = 3, .errnos = f->err, .nr_errnos = 2,
		.read_bytes = 4096 * scale, .write_bytes = 0, .mem_bytes = 1 << 20, .tasks = 3 };
	for (k = 0; k < STROBE_TOP_SLOTS; k++) {
		f->c[0].syscall_lat.slot[k] = k < 4 ? (k + 1) * scale : 0;
		f->c[0].runq_lat.slot[k] = k == 30 ? scale : k == 2 ? 7 * scale : 0;
	}
	f->c[0].syscall_lat.count = 10 * scale;	/* 1+2+3+4 */
	f->c[0].syscall_lat.sum_ns = 33000 * scale;
	f->c[0].runq_lat.count = 8 * scale;
	f->c[0].runq_lat.sum_ns = 1100000000000ULL * scale;
	f->c[1] = (struct strobe_top_container){ .name = "host", .id = "", .pod = "", .ns = "",
		.cpu_ns = 1000000000 * scale, .mem_bytes = -1, .tasks = 50 };
	f->iv = (struct strobe_top_interval){ .begin = 0, .end = S, .seconds = 1,
		.containers = f->c, .nr_containers = 2, .events = 1234 * scale, .lost = scale };
}

#define WEB "container=\"web\",pod=\"p\",namespace=\"ns\""
#define HOST "container=\"host\",pod=\"\",namespace=\"\""

static void test_metrics_top_interval_exact(void)
{
	struct strobe_metrics *m;
	struct fixture f;
	char *t, line[256];
	uint64_t cum = 0;
	int k;

	REQUIRE(strobe_metrics_new(NULL, &m, NULL) == 0);
	fixture_init(&f, 1);
	CHECK_EQ(strobe_metrics_add_top_interval(m, &f.iv, 10 * S), 0);
	t = expo(m);
	REQUIRE(t);
	CHECK(strstr(t, "\n# HELP strobe_container_cpu_seconds_total CPU time the container's "
		     "tasks ran\n# TYPE strobe_container_cpu_seconds_total counter\n"
		     "strobe_container_cpu_seconds_total{" WEB "} 0.25\n"
		     "strobe_container_cpu_seconds_total{" HOST "} 1\n"));
	CHECK(strstr(t, "\nstrobe_container_context_switches_total{" WEB "} 40\n"
		     "strobe_container_context_switches_total{" HOST "} 0\n"));
	CHECK(strstr(t, "\nstrobe_container_syscalls_total{" WEB ",syscall=\"read\"} 100\n"
		     "strobe_container_syscalls_total{" WEB ",syscall=\"openat\"} 10\n"
		     "strobe_container_syscalls_total{" WEB ",syscall=\"other\"} 5\n#"));
	CHECK(strstr(t, "\nstrobe_container_syscall_errors_total{" WEB
		     ",syscall=\"read\",errno=\"EAGAIN\"} 2\n"
		     "strobe_container_syscall_errors_total{" WEB
		     ",syscall=\"openat\",errno=\"ENOENT\"} 3\n#"));
	CHECK(strstr(t, "\nstrobe_container_block_io_bytes_total{" WEB ",op=\"read\"} 4096\n#"));
	CHECK(strstr(t, "\nstrobe_container_memory_bytes{" WEB "} 1048576\n#"));
	CHECK(strstr(t, "\nstrobe_container_tasks{" WEB "} 3\n"
		     "strobe_container_tasks{" HOST "} 50\n"));
	CHECK(strstr(t, "\n# TYPE strobe_events_total counter\nstrobe_events_total 1234\n"));
	CHECK(strstr(t, "\n# TYPE strobe_lost_events_total counter\nstrobe_lost_events_total 1\n"));
	/* no zero series for what was never seen: no write bytes, no block
	 * IO latency, no host syscalls, no host memory (unknown) */
	CHECK(!strstr(t, "op=\"write\""));
	CHECK(!strstr(t, "strobe_container_block_io_latency_seconds_bucket"));
	CHECK(strstr(t, "# TYPE strobe_container_block_io_latency_seconds histogram\n"));
	CHECK(!strstr(t, "strobe_container_syscalls_total{" HOST));
	CHECK(!strstr(t, "strobe_container_memory_bytes{" HOST));
	/* buckets: le = 2^(k+1) us, cumulative sums of the slots */
	for (k = 0; k <= STROBE_METRICS_TOP_MAX_SLOT; k++) {
		uint64_t us = 2ULL << k;

		cum += f.c[0].syscall_lat.slot[k];
		snprintf(line, sizeof(line),
			 "strobe_container_syscall_latency_seconds_bucket{" WEB ",le=\"%s%llu.%06llu\"}",
			 "", (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000));
		/* the text has no trailing zeros: trim them in the expected */
		{
			char *q = strstr(line, "le=\"") + 4, *e = strchr(q, '"');

			while (e[-1] == '0')
				memmove(e - 1, e, strlen(e) + 1), e--;
			if (e[-1] == '.')
				memmove(e - 1, e, strlen(e) + 1);
		}
		CHECK_EQ(value_of(t, line), cum);
	}
	CHECK(strstr(t, "\nstrobe_container_syscall_latency_seconds_bucket{" WEB
		     ",le=\"0.000002\"} 1\n"));
	CHECK(strstr(t, "\nstrobe_container_syscall_latency_seconds_bucket{" WEB
		     ",le=\"33.554432\"} 10\n"
		     "strobe_container_syscall_latency_seconds_bucket{" WEB ",le=\"+Inf\"} 10\n"
		     "strobe_container_syscall_latency_seconds_sum{" WEB "} 0.000033\n"
		     "strobe_container_syscall_latency_seconds_count{" WEB "} 10\n"));
	/* slot 30 (beyond 33.55 s) only in +Inf */
	CHECK(strstr(t, "\nstrobe_container_runqueue_latency_seconds_bucket{" WEB
		     ",le=\"33.554432\"} 7\n"
		     "strobe_container_runqueue_latency_seconds_bucket{" WEB ",le=\"+Inf\"} 8\n"
		     "strobe_container_runqueue_latency_seconds_sum{" WEB "} 1100\n"
		     "strobe_container_runqueue_latency_seconds_count{" WEB "} 8\n"));
	CHECK(strstr(t, "le=\"0.000008\"} 7\n"));	/* runq slot 2 = [4,8) us */
	free(t);
	strobe_metrics_free(m);
}

static void test_metrics_counters_only_grow(void)
{
	struct strobe_metrics *m;
	struct fixture f;
	double prev = -1, prev_bucket = -1;
	int i;

	REQUIRE(strobe_metrics_new(NULL, &m, NULL) == 0);
	for (i = 1; i <= 5; i++) {
		char *t;
		double v, b;

		fixture_init(&f, i);
		CHECK_EQ(strobe_metrics_add_top_interval(m, &f.iv, i * S), 0);
		t = expo(m);
		v = value_of(t, "strobe_container_syscalls_total{" WEB ",syscall=\"read\"}");
		b = value_of(t, "strobe_container_syscall_latency_seconds_bucket{" WEB
			     ",le=\"+Inf\"}");
		CHECK(v > prev && b > prev_bucket);
		CHECK_EQ(v, 100 * i * (i + 1) / 2);	/* 100 + 200 + ... */
		CHECK_EQ(b, 10 * i * (i + 1) / 2);
		CHECK_EQ(value_of(t, "strobe_events_total"), 1234 * i * (i + 1) / 2);
		prev = v;
		prev_bucket = b;
		free(t);
	}
	strobe_metrics_free(m);
}

static void test_metrics_group_expires_and_restarts(void)
{
	struct strobe_metrics_opts o = { .size = sizeof(o), .keep_ns = 10 * S };
	struct strobe_metrics *m;
	struct fixture f, host_only;
	char *t;
	int s0, s1;

	REQUIRE(strobe_metrics_new(&o, &m, NULL) == 0);
	fixture_init(&f, 1);
	fixture_init(&host_only, 1);
	host_only.iv.containers = &host_only.c[1];
	host_only.iv.nr_containers = 1;
	s0 = strobe_metrics_series(m);
	CHECK_EQ(strobe_metrics_add_top_interval(m, &f.iv, 100 * S), 0);
	CHECK_EQ(strobe_metrics_add_top_interval(m, &f.iv, 101 * S), 0);
	s1 = strobe_metrics_series(m);
	/* gone, but within keep_ns: its series stay, unchanged */
	CHECK_EQ(strobe_metrics_add_top_interval(m, &host_only.iv, 111 * S), 0);
	t = expo(m);
	CHECK_EQ(value_of(t, "strobe_container_cpu_seconds_total{" WEB "}"), 0.5);
	free(t);
	CHECK_EQ(strobe_metrics_series(m), s1);
	/* past keep_ns: dropped with every series */
	CHECK_EQ(strobe_metrics_add_top_interval(m, &host_only.iv, 112 * S), 0);
	t = expo(m);
	CHECK(!strstr(t, "container=\"web\""));
	CHECK(strstr(t, "strobe_container_cpu_seconds_total{" HOST "} 4\n"));
	free(t);
	CHECK(strobe_metrics_series(m) < s1 && strobe_metrics_series(m) > s0);
	/* back: new series from zero (a counter reset) */
	CHECK_EQ(strobe_metrics_add_top_interval(m, &f.iv, 113 * S), 0);
	t = expo(m);
	CHECK_EQ(value_of(t, "strobe_container_cpu_seconds_total{" WEB "}"), 0.25);
	CHECK_EQ(value_of(t, "strobe_container_syscalls_total{" WEB ",syscall=\"read\"}"), 100);
	free(t);
	CHECK_EQ(strobe_metrics_series(m), s1);
	/* the generic API: a group marked alive stays */
	CHECK_EQ(strobe_metrics_group_alive(m, "web\x1fp\x1fns", 200 * S), 0);
	CHECK_EQ(strobe_metrics_expire(m, 205 * S), 1);		/* host */
	CHECK_EQ(strobe_metrics_expire(m, 211 * S), 1);		/* web */
	CHECK_EQ(strobe_metrics_series(m), s0 + 2);		/* events, lost */
	strobe_metrics_free(m);
}

static void test_metrics_series_cap_counts_dropped(void)
{
	struct strobe_metrics_opts o = { .size = sizeof(o), .max_series = 10 };
	static const char *const l[] = { "n" };
	struct strobe_metrics *m;
	struct fixture f;
	char name[16], *t;
	int c, i, r, ok = 0, nospc = 0;

	REQUIRE(strobe_metrics_new(&o, &m, NULL) == 0);
	c = strobe_metrics_family_add(m, &(struct strobe_metrics_family_def){
		"t_total", "", STROBE_METRIC_COUNTER, l, 1, 0, NULL, 0 }, NULL);
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		r = strobe_metrics_counter_add(m, c, NULL, (const char *[]){ name }, 1);
		ok += r == 0;
		nospc += r == -ENOSPC;
	}
	CHECK_EQ(ok, 8);	/* 10 minus build_info and the dropped count */
	CHECK_EQ(nospc, 12);
	CHECK_EQ(strobe_metrics_series(m), 10);
	/* an existing series still counts */
	CHECK_EQ(strobe_metrics_counter_add(m, c, NULL, (const char *[]){ "s0" }, 1), 0);
	t = expo(m);
	CHECK(strstr(t, "strobe_metrics_dropped_series_total 12\n"));
	CHECK(strstr(t, "t_total{n=\"s0\"} 2\n"));
	CHECK(!strstr(t, "s8"));
	free(t);
	/* a whole interval over the cap: no failure, counted */
	fixture_init(&f, 1);
	CHECK_EQ(strobe_metrics_add_top_interval(m, &f.iv, S), 0);
	CHECK_EQ(strobe_metrics_series(m), 10);
	t = expo(m);
	CHECK(value_of(t, "strobe_metrics_dropped_series_total") > 12);
	free(t);
	strobe_metrics_free(m);
}

static void test_metrics_syscall_labels_bounded(void)
{
	struct strobe_metrics_opts o = { .size = sizeof(o), .syscall_labels = 3 };
	static const char *const names[] = { "a", "b", "c", "d", "e", "f", "g" };
	struct strobe_metrics *m;
	struct fixture f;
	char *t, *p;
	int i, n = 0;

	REQUIRE(strobe_metrics_new(&o, &m, NULL) == 0);
	fixture_init(&f, 1);
	f.iv.nr_containers = 1;
	f.c[0].nr_syscalls = 1;
	f.c[0].nr_errnos = 1;
	for (i = 0; i < 7; i++) {
		f.sys[0].name = names[i];
		f.err[0].syscall = names[i];
		f.err[0].error = names[i];
		CHECK_EQ(strobe_metrics_add_top_interval(m, &f.iv, (i + 1) * S), 0);
	}
	t = expo(m);
	for (p = t; (p = strstr(p, "strobe_container_syscalls_total{")); p++)
		n++;
	CHECK_EQ(n, 4);		/* a, b, c and other */
	CHECK_EQ(value_of(t, "strobe_container_syscalls_total{" WEB ",syscall=\"other\"}"), 400);
	CHECK_EQ(value_of(t, "strobe_container_syscalls_total{" WEB ",syscall=\"c\"}"), 100);
	/* errors of a syscall counted as other are under syscall="other" */
	CHECK_EQ(value_of(t, "strobe_container_syscall_errors_total{" WEB
			  ",syscall=\"other\",errno=\"d\"}"), 2);
	CHECK_EQ(value_of(t, "strobe_container_syscall_errors_total{" WEB
			  ",syscall=\"a\",errno=\"a\"}"), 2);
	free(t);
	strobe_metrics_free(m);
}

static const char bcrypt_secret[] =
	"$2y$04$XbjjHHXN3N3cpYqt3DGK6OkqwsoT53b3YWSwQ.G2QudfCzpxdeese";

static void test_metrics_webconf(void)
{
	static const struct { const char *text; const char *err; } bad[] = {
		{ "http_server_config:\n  http2: false\n", "line 1: 'http_server_config' is not" },
		{ "basic_auth_users:\n  a: x\n  a: y\n", "line 3: a user given twice" },
		{ "tls_server_config:\n  cert_file: c\n", "needs both" },
		{ "tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS13\n",
		  "line 4: tls_server_config: 'min_version' is not supported" },
		{ "basic_auth_users:\n  a: x\n   b: y\n", "line 3: indentation differs" },
		{ "basic_auth_users:\n  a: \"x\n", "line 2: a quote is not closed" },
		{ "basic_auth_users:\n  a: &anchor x\n", "line 2: only plain or quoted" },
		{ "basic_auth_users:\n\ta: x\n", "line 2: a tab" },
		{ "  a: x\n", "line 1: an indented line outside a section" },
		{ "basic_auth_users: x\n", "line 1: a section holds a mapping" },
		{ "basic_auth_users:\n  a:\n", "line 2: a value is missing" },
		{ "basic_auth_users\n", "line 1: expected 'key: value'" },
		{ "basic_auth_users:\nbasic_auth_users:\n", "line 2: a section given twice" },
		{ "a\0b", "NUL byte" },
	};
	const char *good =
		"---\n# strobe's metrics\n"
		"tls_server_config:\n"
		"    cert_file: \"/etc/c.pem\"   # quoted\n"
		"    key_file: '/etc/k.pem'\r\n"
		"\n"
		"basic_auth_users:\n"
		"  alice: $2y$04$XbjjHHXN3N3cpYqt3DGK6OkqwsoT53b3YWSwQ.G2QudfCzpxdeese\n"
		"  bob: \"$2b$04$.YvRXTQBv.3b4UkMRZkbSe8d.PSNJnBfimM9ieuvcfaG74J3mK2eG\" # x\n";
	struct strobe_webconf *c;
	struct strobe_error err;
	size_t i;

	REQUIRE(strobe_webconf_parse(good, strlen(good), &c, &err) == 0);
	CHECK_STR(c->cert_file, "/etc/c.pem");
	CHECK_STR(c->key_file, "/etc/k.pem");
	CHECK(c->has_tls);
	CHECK_EQ(c->nr_users, 2);
	CHECK_STR(c->users[0].name, "alice");
	CHECK_STR(c->users[0].hash, bcrypt_secret);
	CHECK(strobe_webconf_check(c, "alice", "secret"));
	CHECK(strobe_webconf_check(c, "bob", "secret"));
	CHECK(!strobe_webconf_check(c, "alice", "secreT"));
	CHECK(!strobe_webconf_check(c, "alice", ""));
	CHECK(!strobe_webconf_check(c, "carol", "secret"));
	strobe_webconf_free(c);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = i == sizeof(bad) / sizeof(bad[0]) - 1 ? 3 : strlen(bad[i].text);

		err.msg[0] = '\0';
		CHECK_EQ(strobe_webconf_parse(bad[i].text, len, &c, &err), -EINVAL);
		if (!strstr(err.msg, bad[i].err)) {
			fprintf(stderr, "  case %zu: '%s' lacks '%s'\n", i, err.msg, bad[i].err);
			CHECK(0);
		}
	}
	/* empty sections */
	REQUIRE(strobe_webconf_parse("basic_auth_users: {}\n", 21, &c, &err) == 0);
	CHECK_EQ(c->nr_users, 0);
	CHECK(!strobe_webconf_check(c, "a", "b"));
	strobe_webconf_free(c);
}

static int open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A success is remembered: the same password again costs a cheap digest,
 * not bcrypt; a wrong one still costs bcrypt and fails. */
static void test_metrics_webconf_remembers_success(void)
{
	const char *text = "basic_auth_users:\n"
		"  alice: $2y$10$ADhz6nxooMpKz9qpV.nk0OHFZ2ugrprY6glBVcb3n6JvZfYpOKZvC\n";
	struct strobe_webconf *c;
	double t0, first, again, wrong;

	REQUIRE(strobe_webconf_parse(text, strlen(text), &c, NULL) == 0);
	t0 = now_s();
	CHECK(strobe_webconf_check(c, "alice", "secret"));
	first = now_s() - t0;
	CHECK(c->users[0].ok_digest[0] == '$');
	CHECK(!strstr(c->users[0].ok_digest, "secret"));
	t0 = now_s();
	CHECK(strobe_webconf_check(c, "alice", "secret"));
	again = now_s() - t0;
	t0 = now_s();
	CHECK(!strobe_webconf_check(c, "alice", "secreT"));
	wrong = now_s() - t0;
	CHECK(!strobe_webconf_check(c, "bob", "secret"));
	CHECK(again * 4 < first);
	CHECK(wrong * 4 > first);
	if (getenv("STROBE_TEST_SHOW") || !(again * 4 < first) || !(wrong * 4 > first))
		fprintf(stderr, "  bcrypt %.1f ms, remembered %.1f ms, wrong %.1f ms\n",
			first * 1e3, again * 1e3, wrong * 1e3);
	strobe_webconf_free(c);
}

static void test_metrics_serve_addresses(void)
{
	int fds = open_fds();
	struct strobe_metrics_web insecure = { .size = sizeof(insecure), .insecure = true };
	struct strobe_metrics_server *s;
	struct strobe_metrics *m;
	struct strobe_error err;
	static const char *const bad[] = { "9100", ":", ":99999", ":9x", "1.2.3:80",
					   "[::1:80", "::1:80", "host.example:80", ":-1" };
	size_t i;

	REQUIRE(strobe_metrics_new(NULL, &m, NULL) == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(strobe_metrics_serve(m, bad[i], NULL, &s, &err), -EINVAL);
		CHECK(s == NULL);
	}
	/* beyond loopback: refused without TLS, authentication or insecure */
	CHECK_EQ(strobe_metrics_serve(m, "0.0.0.0:0", NULL, &s, &err), -EPERM);
	CHECK(strstr(err.msg, "beyond loopback"));
	CHECK_EQ(strobe_metrics_serve(m, "[::]:0", NULL, &s, &err), -EPERM);
	CHECK_EQ(strobe_metrics_serve(m, ":0", NULL, &s, &err), 0);
	CHECK(strobe_metrics_server_port(s) > 0);
	strobe_metrics_server_stop(s);
	CHECK_EQ(strobe_metrics_serve(m, "[::1]:0", NULL, &s, &err), 0);
	strobe_metrics_server_stop(s);
	CHECK_EQ(strobe_metrics_serve(m, "0.0.0.0:0", &insecure, &s, &err), 0);
	strobe_metrics_server_stop(s);
	insecure.config_file = "/nonexistent/web.yml";
	CHECK_EQ(strobe_metrics_serve(m, ":0", &insecure, &s, &err), -ENOENT);
	CHECK(strstr(err.msg, "/nonexistent/web.yml"));
	/* a port taken: the bind's error */
	CHECK_EQ(strobe_metrics_serve(m, ":0", NULL, &s, &err), 0);
	{
		char addr[32];
		struct strobe_metrics_server *s2;

		snprintf(addr, sizeof(addr), "127.0.0.1:%d", strobe_metrics_server_port(s));
		CHECK_EQ(strobe_metrics_serve(m, addr, NULL, &s2, &err), -EADDRINUSE);
		CHECK(strstr(err.msg, "cannot listen"));
	}
	strobe_metrics_server_stop(s);
	strobe_metrics_server_stop(NULL);
	strobe_metrics_free(m);
	CHECK_EQ(open_fds(), fds);	/* every socket closed */
}

struct race {
	struct strobe_metrics *m;
	int done;
};

static void *updater(void *arg)
{
	struct race *r = arg;
	struct fixture f;
	int i;

	for (i = 1; i <= 300; i++) {
		fixture_init(&f, 1);
		if (i % 3 == 0)
			f.iv.nr_containers = 1;
		strobe_metrics_add_top_interval(r->m, &f.iv, i * S);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_metrics_updates_race_scrapes(void)
{
	struct strobe_metrics_opts o = { .size = sizeof(o), .keep_ns = 2 * S };
	struct race r = { 0 };
	pthread_t t;
	int scrapes = 0, bad = 0;

	REQUIRE(strobe_metrics_new(&o, &r.m, NULL) == 0);
	REQUIRE(pthread_create(&t, NULL, updater, &r) == 0);
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) || scrapes < 10) {
		char *s = expo(r.m);
		double web = s ? value_of(s, "strobe_container_cpu_seconds_total{" WEB "}") : -2;
		double ev = s ? value_of(s, "strobe_events_total") : -2;

		/* whole intervals only: web's CPU (0.25 s in each) and the
		 * events (1234 in each) move together */
		if (!s || (ev >= 0 && web * 4 != ev / 1234)) {
			fprintf(stderr, "  scrape %d: web %g, events %g\n", scrapes, web, ev);
			bad++;
		}
		free(s);
		scrapes++;
	}
	pthread_join(t, NULL);
	CHECK_EQ(bad, 0);
	strobe_metrics_free(r.m);
}

TESTS(T(test_metrics_exposition_exact), T(test_metrics_escaping), T(test_metrics_family_errors),
      T(test_metrics_top_interval_exact), T(test_metrics_counters_only_grow),
      T(test_metrics_group_expires_and_restarts), T(test_metrics_series_cap_counts_dropped),
      T(test_metrics_syscall_labels_bounded), T(test_metrics_webconf),
      T(test_metrics_webconf_remembers_success),
      T(test_metrics_serve_addresses), T(test_metrics_updates_race_scrapes));
