/*
 * test_pipeline.c - the one event loop (lib/pipeline/) on files the test
 * writes: every event reaches every consumer once, in time order, with
 * its source and an updated model; ticks every interval of trace time;
 * consumers that are done drop out and the run ends when all are; a file
 * given twice is read once with a notice; a damaged page is skipped and
 * said (strict mode fails instead); and a source of records that are not
 * ftrace pages (a synthetic one, with a declared format and call chains)
 * is merged in time order with a trace file and read by the periods
 * analysis and by the text printer; a consumer can pause the run (a
 * full batch, an idle input) and the run goes on where it paused.  With
 * jobs > 1 the consumers run on worker threads and see what they see on
 * one: every event and tick in order, a model of their own; the first
 * failure (by event) fails the run, and a pause is refused; a consumer
 * with parts prints on every worker, byte for byte as one thread does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>

#include "formats.h"
#include "test.h"
#include "tracefile_fixture.h"

/* libtraceevent leaks on some format texts; not ours to fix. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

#define ID_ENTER FX_ID_SYS_ENTER
#define ID_EXIT FX_ID_SYS_EXIT
#define MS 1000000ull


/* n getppid enter/exit pairs by pid, alternating CPUs 0 and 1, the
 * i-th entering at t0 + i * step and leaving 1 us later. */
static int make_syscalls(struct fx_event *ev, uint64_t t0, uint64_t step, int n, int pid)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		struct fx_event *e = fx_payload(&ev[k++], t0 + (uint64_t)i * step, i % 2, ID_ENTER,
						pid, 64);

		fx_put64(e->data + 8, 110);
		e = fx_payload(&ev[k++], t0 + (uint64_t)i * step + 1000, i % 2, ID_EXIT, pid, 24);
		fx_put64(e->data + 8, 110);
		fx_put64(e->data + 16, 7);
	}
	return k;
}

/* A consumer that remembers what it was given. */
struct seen {
	int starts, finishes, nr_sources;
	uint64_t events, ticks, last_ts, first_tick, last_tick;
	bool out_of_order, model_given;
	int done_after;		/* > 0: done after this many events */
	int fail_after;		/* > 0: -EIO at this event */
	int yield_every;	/* > 0: pause after every this many events */
	int idle_ret;		/* what idle returns */
	struct strobe_pipeline *stop;	/* stopped after stop_after events */
	int stop_after;
	uint64_t idles;
	int per_source[4];
	uint64_t tick_ts[64];
};

static int seen_start(const struct strobe_pipeline_source *s, int nr, void *arg,
		      struct strobe_error *err)
{
	struct seen *c = arg;
	int i;

	c->starts++;
	c->nr_sources = nr;
	c->model_given = true;
	for (i = 0; i < nr; i++)
		if (!s[i].model || !s[i].formats || s[i].index != i)
			c->model_given = false;
	return 0;
}

static int seen_event(const struct strobe_event *ev, int source, void *arg,
		      struct strobe_error *err)
{
	struct seen *c = arg;

	if (ev->ts < c->last_ts)
		c->out_of_order = true;
	c->last_ts = ev->ts;
	c->events++;
	if (source >= 0 && source < 4)
		c->per_source[source]++;
	if (c->stop && (int)c->events == c->stop_after)
		strobe_pipeline_stop(c->stop);
	if (c->yield_every && c->events % (uint64_t)c->yield_every == 0)
		return STROBE_CONSUMER_YIELD;
	if (c->fail_after && (int)c->events == c->fail_after)
		return -EIO;
	return c->done_after && (int)c->events >= c->done_after ? STROBE_CONSUMER_DONE : 0;
}

static int seen_idle(void *arg, struct strobe_error *err)
{
	struct seen *c = arg;

	c->idles++;
	return c->idle_ret;
}

static int seen_tick(uint64_t ts, void *arg, struct strobe_error *err)
{
	struct seen *c = arg;

	if (c->ticks < 64)
		c->tick_ts[c->ticks] = ts;
	c->ticks++;
	if (ts < c->last_ts)
		c->out_of_order = true;	/* a tick after a later event */
	return 0;
}

static int seen_finish(void *arg, struct strobe_error *err)
{
	((struct seen *)arg)->finishes++;
	return 0;
}

static struct strobe_consumer seen_consumer(struct seen *c)
{
	struct strobe_consumer k = {
		.size = sizeof(k), .name = "test", .flags = STROBE_CONSUMER_MODEL,
		.start = seen_start, .event = seen_event, .tick = seen_tick,
		.finish = seen_finish, .arg = c, .idle = seen_idle,
	};
	return k;
}

static void test_pipeline_one_file_every_event_once_in_order_with_model(void)
{
	static struct fx_event ev[400];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_stream_stats st;
	struct seen c = { 0 };
	struct strobe_consumer k = seen_consumer(&c);
	int n = make_syscalls(ev, 1000 * MS, MS, 200, 4242);
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	CHECK_EQ(strobe_pipeline_add_file(p, tf, NULL, &err), 0);
	CHECK_EQ(strobe_pipeline_add_consumer(p, &k, &err), 0);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	CHECK_EQ(c.starts, 1);
	CHECK_EQ(c.finishes, 1);
	CHECK_EQ(c.nr_sources, 1);
	CHECK(c.model_given);
	CHECK_EQ(c.events, 400);
	CHECK_EQ(c.per_source[0], 400);
	CHECK(!c.out_of_order);
	strobe_pipeline_stats(p, &st);
	CHECK_EQ(st.events, 400);
	CHECK_EQ(strobe_pipeline_nr_diags(p), 0);
	CHECK(!strobe_pipeline_damaged(p));
	/* the model saw the events: the task is known */
	CHECK(strobe_model_task(strobe_pipeline_source(p, 0)->model, 4242) != NULL);
	/* a pipeline runs once */
	CHECK_EQ(strobe_pipeline_run(p, &err), -EINVAL);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

static void test_pipeline_ticks_every_interval_of_trace_time(void)
{
	static struct fx_event ev[100];
	struct strobe_pipeline_opts po = { .size = sizeof(po), .tick_ns = 10 * MS };
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct seen c = { 0 };
	struct strobe_consumer k = seen_consumer(&c);
	/* 50 syscalls, one every 2 ms from 1 s: the last enters at 1.098 s */
	int n = make_syscalls(ev, 1000 * MS, 2 * MS, 50, 7), i;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_pipeline_new(&po, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &k, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	/* ticks at 1.010, 1.020 ... 1.090: every boundary crossed by an event */
	CHECK_EQ(c.ticks, 9);
	for (i = 0; i < 9 && i < (int)c.ticks; i++)
		CHECK_EQ(c.tick_ts[i], 1000 * MS + (uint64_t)(i + 1) * 10 * MS);
	CHECK(!c.out_of_order);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

static void test_pipeline_ends_when_every_consumer_is_done(void)
{
	static struct fx_event ev[200];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct seen a = { .done_after = 10 }, b = { .done_after = 30 };
	struct strobe_consumer ka = seen_consumer(&a), kb = seen_consumer(&b);
	int n = make_syscalls(ev, 1000 * MS, MS, 100, 7);
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &ka, &err);
	strobe_pipeline_add_consumer(p, &kb, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_DONE);
	CHECK_EQ(a.events, 10);
	CHECK_EQ(b.events, 30);		/* the other went on alone */
	CHECK_EQ(a.finishes, 1);
	CHECK_EQ(b.finishes, 1);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

static void test_pipeline_same_file_twice_is_read_once_with_a_notice(void)
{
	static struct fx_event ev[40];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL, *tf2 = NULL;
	struct strobe_pipeline *p = NULL;
	enum strobe_tf_diag_kind kind = 0;
	struct seen c = { 0 };
	struct strobe_consumer k = seen_consumer(&c);
	int n = make_syscalls(ev, 1000 * MS, MS, 20, 7);
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2), link[64];
	const char *msg;

	REQUIRE(path);
	snprintf(link, sizeof(link), "/tmp/strobe-fx-link-%d.dat", (int)getpid());
	unlink(link);
	REQUIRE(symlink(path, link) == 0);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_tracefile_open(link, &tf2, &err) == 0);
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	CHECK_EQ(strobe_pipeline_add_file(p, tf, NULL, &err), 0);
	CHECK_EQ(strobe_pipeline_add_file(p, tf2, NULL, &err), 0);	/* the same source */
	CHECK_EQ(strobe_pipeline_nr_sources(p), 1);
	strobe_pipeline_add_consumer(p, &k, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	CHECK_EQ(c.events, 40);
	REQUIRE(strobe_pipeline_nr_diags(p) == 1);
	msg = strobe_pipeline_diag(p, 0, &kind, NULL);
	CHECK_EQ(kind, STROBE_TF_DIAG_SAME_FILE);
	CHECK(msg && strstr(msg, "read once") && strstr(msg, link));
	CHECK(!strobe_pipeline_damaged(p));	/* a notice, not damage */
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	strobe_tracefile_close(tf2);
	unlink(link);
	unlink(path);
	free(path);
}

/* A file whose CPU 0 holds two pages, the second with a commit field
 * larger than a page: the stream refuses that page. */
static char *damaged_file(int *events_in_first_page)
{
	static struct fx_event ev[600];
	struct stat st;
	int n = 0, i, fd, len = 0;
	char *path;
	uint64_t off = 0;

	for (i = 0; i < 150; i++) {	/* 68 bytes each: 60 fit a page */
		struct fx_event *e = fx_payload(&ev[n++], 1000 * MS + (uint64_t)i * MS, 0,
						ID_ENTER, 7, 64);

		fx_put64(e->data + 8, 110);
	}
	/* as fx_write_cpu fills a page: room for the event and an extend */
	for (*events_in_first_page = 0; 16 + len + 76 <= (int)FX_PS; len += 68)
		(*events_in_first_page)++;
	path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 1);
	/* v6: the one CPU's three pages end the file */
	if (!path || stat(path, &st) < 0 || st.st_size < 3 * (off_t)FX_PS)
		return path;
	off = (uint64_t)st.st_size - 3 * FX_PS;
	fd = open(path, O_WRONLY);
	if (fd >= 0 && off) {
		uint64_t bad = 0xfffffff0;

		if (pwrite(fd, &bad, 8, (off_t)(off + FX_PS + 8)) != 8)
			off = 0;
	}
	if (fd >= 0)
		close(fd);
	return off ? path : NULL;
}

static void test_pipeline_damaged_page_is_skipped_and_said_strict_fails(void)
{
	struct strobe_pipeline_opts strict = { .size = sizeof(strict), .strict = true };
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	enum strobe_tf_diag_kind kind = 0;
	struct seen c = { 0 }, c2 = { 0 };
	struct strobe_consumer k = seen_consumer(&c), k2 = seen_consumer(&c2);
	int first = 0, i, bad = 0;
	char *path = damaged_file(&first);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &k, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	/* the first and third pages' events: the second is skipped */
	CHECK_EQ(c.events, 150 - (150 - 2 * first > 0 ? first : 0));
	CHECK_EQ(c.finishes, 1);
	CHECK(strobe_pipeline_damaged(p));
	for (i = 0; i < strobe_pipeline_nr_diags(p); i++) {
		const char *m = strobe_pipeline_diag(p, i, &kind, NULL);

		if (kind == STROBE_TF_DIAG_BAD_DATA) {
			bad++;
			CHECK(strstr(m, "damaged data was skipped: 1 page"));
			CHECK(strstr(m, "cpu 0: bad ring-buffer page"));
		}
	}
	CHECK_EQ(bad, 1);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);

	/* strict: the first damage fails the run, finish is not called */
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	REQUIRE(strobe_pipeline_new(&strict, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &k2, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), -EBADMSG);
	/* one prefix, the file named once, then the stream's own words */
	CHECK(strstr(err.msg, "damaged data (strict): ") == err.msg);
	CHECK(!strstr(err.msg + 1, "damaged data (strict)"));
	CHECK(!strncmp(err.msg + strlen("damaged data (strict): "), path, strlen(path)));
	CHECK(strstr(err.msg, ": cpu 0: bad ring-buffer page at offset"));
	CHECK_EQ(c2.events, first);
	CHECK_EQ(c2.finishes, 0);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

/* ---- records that are not ftrace pages ------------------------------------ */

/* Payload of the declared "synthetic:req" format. */
#define REQ_SIZE 32
static const struct strobe_field_decl req_fields[] = {
	{ "u32", "req_id", 8, 4, false },
	{ "s32", "status", 12, 4, true },
	{ "char[8]", "verb", 16, 8, false },
	{ "__data_loc u64[]", "callchain", 24, 4, false },
};

struct synth {
	int id;			/* the declared format's id */
	int i, n;
	bool again;		/* every other call answers -EAGAIN */
	int calls;
	uint64_t t0, step;
	int pid;
	uint8_t buf[REQ_SIZE + 3 * 8];
	bool closed;
};

/* Record i: a "req" at t0 + i * step + 500 us, call chain {i, 0x1000, 0x2000}. */
static int synth_next(void *ctx, struct strobe_event *ev, struct strobe_error *err)
{
	struct synth *s = ctx;
	uint64_t chain[3] = { (uint64_t)s->i, 0x1000, 0x2000 };

	if (s->i >= s->n)
		return 0;
	if (s->again && s->calls++ % 2 == 0)
		return -EAGAIN;
	memset(s->buf, 0, sizeof(s->buf));
	fx_put16(s->buf, (uint16_t)s->id);
	fx_put32(s->buf + 4, (uint32_t)s->pid);
	fx_put32(s->buf + 8, (uint32_t)s->i);
	fx_put32(s->buf + 12, (uint32_t)-s->i);
	memcpy(s->buf + 16, "GET", 3);
	fx_put32(s->buf + 24, (uint32_t)REQ_SIZE | (uint32_t)(3 * 8) << 16);
	memcpy(s->buf + REQ_SIZE, chain, sizeof(chain));
	ev->ts = s->t0 + (uint64_t)s->i * s->step + 500000;
	ev->data = s->buf;
	ev->size = sizeof(s->buf);
	ev->cpu = 0;
	s->i++;
	return 1;
}

static void synth_close(void *ctx)
{
	((struct synth *)ctx)->closed = true;
}

/* Text lines and names, in order, of what reaches this consumer. */
struct lines {
	struct strobe_formats *fmts;
	struct strobe_buf *text;
	char order[256];	/* 'e' sys_enter, 'x' sys_exit, 'r' req */
	int n, chains_ok, reqs;
};

static int lines_start(const struct strobe_pipeline_source *s, int nr, void *arg,
		       struct strobe_error *err)
{
	((struct lines *)arg)->fmts = s[0].formats;
	return 0;
}

static int lines_event(const struct strobe_event *ev, int source, void *arg,
		       struct strobe_error *err)
{
	struct lines *l = arg;
	const char *name = strobe_event_name(ev);
	uint64_t ips[4];

	if (l->n < (int)sizeof(l->order) - 1)
		l->order[l->n++] = !name ? '?' : !strcmp(name, "req") ? 'r' :
				   !strcmp(name, "sys_enter") ? 'e' : 'x';
	if (name && !strcmp(name, "req")) {
		l->reqs++;
		if (strobe_event_callchain(ev, ips, 4) == 3 && ips[1] == 0x1000 &&
		    ips[2] == 0x2000)
			l->chains_ok++;
		if (l->reqs == 2)
			strobe_format_event_text(l->fmts, ev, NULL, NULL, l->text);
	} else if (strobe_event_callchain(ev, ips, 4) != 0) {
		l->chains_ok = -1000;	/* a kernel event has no chain */
	}
	return 0;
}

static void test_pipeline_record_source_merges_with_a_file_for_analyses_and_report(void)
{
	static struct fx_event ev[40];
	struct strobe_format_decl d = {
		.size = sizeof(d), .system = "synthetic", .name = "req",
		.fields = req_fields, .nr_fields = 4,
	};
	struct strobe_analysis_opts ao = { .size = sizeof(ao) };
	const char *defs[] = { "req:$evt.$name == \"req\":$evt.$name == \"sys_exit\"" };
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_analysis *a = NULL;
	const struct strobe_format *fmt = NULL;
	const struct strobe_table *t;
	struct strobe_consumer ka, kl = { .size = sizeof(kl), .name = "lines" };
	struct strobe_record_source rs = { .size = sizeof(rs), .name = "synthetic" };
	struct lines l = { 0 };
	struct synth s = { 0 };
	/* 10 syscalls by pid 7, one every 1 ms from 1 s, each 1 us long */
	int n = make_syscalls(ev, 1000 * MS, MS, 10, 7), id, i, cnt = -1, row;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	/* a bad declaration is refused with a reason */
	{
		struct strobe_field_decl badf = { "u32", "x", 4, 4, false };
		struct strobe_format_decl bad = { sizeof(bad), "synthetic", "bad", &badf, 1 };

		CHECK_EQ(strobe_formats_declare(strobe_tracefile_formats(tf), &bad, NULL, &err),
			 -EINVAL);
		CHECK(strstr(err.msg, "outside the payload"));
	}
	id = strobe_formats_declare(strobe_tracefile_formats(tf), &d, &fmt, &err);
	REQUIRE(id > ID_EXIT);
	CHECK(fmt && strobe_format_id(fmt) == id);
	CHECK(strobe_formats_find(strobe_tracefile_formats(tf), "synthetic", "req") == fmt);
	CHECK(strstr(strobe_format_text(fmt), "field:u32 req_id;\toffset:8;\tsize:4;\tsigned:0;"));
	CHECK_EQ(strobe_formats_declare(strobe_tracefile_formats(tf), &d, NULL, &err), -EEXIST);

	s.id = id;
	s.n = 10;
	s.t0 = 1000 * MS;
	s.step = MS;
	s.pid = 7;
	rs.next = synth_next;
	rs.close = synth_close;
	rs.ctx = &s;
	l.text = strobe_buf_new();
	kl.start = lines_start;
	kl.event = lines_event;
	kl.arg = &l;
	ao.periods = defs;
	ao.nr_periods = 1;
	REQUIRE(strobe_analysis_new("periods", &ao, &a, &err) == 0);
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	CHECK_EQ(strobe_pipeline_add_file(p, tf, NULL, &err), 0);
	CHECK_EQ(strobe_pipeline_add_records(p, 0, &rs, &err), 0);
	strobe_analysis_consumer(a, 0, &ka);
	CHECK_EQ(strobe_pipeline_add_consumer(p, &ka, &err), 0);
	CHECK_EQ(strobe_pipeline_add_consumer(p, &kl, &err), 0);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	if (err.code)
		fprintf(stderr, "  %s\n", err.msg);
	/* enter (t), exit (t + 1 us), req (t + 500 us), ten times */
	CHECK_EQ(l.n, 30);
	for (i = 0; i < 10; i++) {
		CHECK_EQ(l.order[3 * i], 'e');
		CHECK_EQ(l.order[3 * i + 1], 'x');
		CHECK_EQ(l.order[3 * i + 2], 'r');
	}
	CHECK_EQ(l.chains_ok, 10);
	CHECK(strstr(strobe_buf_data(l.text), " 1.001500: req: "));
	CHECK(strstr(strobe_buf_data(l.text), "req_id=1 status=-1 verb=GET callchain=1 4096 8192\n"));
	/* each req opens a period that the next sys_exit closes: 9 */
	t = NULL;
	for (i = 0; i < strobe_analysis_nr_tables(a); i++)
		if (!strcmp(strobe_table_name(strobe_analysis_table(a, i)), "periods.stats"))
			t = strobe_analysis_table(a, i);
	REQUIRE(t);
	row = strobe_table_nr_rows(t) == 1 ? 0 : -1;

	REQUIRE(row == 0);
	for (i = 0; i < strobe_table_nr_columns(t); i++)
		if (!strcmp(strobe_table_column(t, i)->key, "count"))
			cnt = (int)strobe_table_row(t, 0)[i].i;
	CHECK_EQ(cnt, 9);
	strobe_pipeline_free(p);
	CHECK(s.closed);
	strobe_analysis_free(a);
	strobe_buf_free(l.text);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

/* Run p until it returns anything but YIELD; *pauses counts the YIELDs. */
static int run_through(struct strobe_pipeline *p, int *pauses, struct strobe_error *err)
{
	int r;

	*pauses = 0;
	while ((r = strobe_pipeline_run(p, err)) == STROBE_PIPELINE_YIELD)
		(*pauses)++;
	return r;
}

static void test_pipeline_yield_pauses_the_run_and_the_next_run_goes_on(void)
{
	static struct fx_event ev[400];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct seen a = { .yield_every = 7 }, b = { 0 }, c = { .yield_every = 50 };
	struct strobe_consumer ka = seen_consumer(&a), kb = seen_consumer(&b),
			       kc = seen_consumer(&c);
	int n = make_syscalls(ev, 1000 * MS, MS, 200, 4242), pauses = 0, r;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);

	/* one consumer (the tight loop): every event once, in order, one
	 * start and one finish over 57 pauses */
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &ka, &err);
	CHECK_EQ(run_through(p, &pauses, &err), STROBE_PIPELINE_END);
	CHECK_EQ(pauses, 400 / 7);
	CHECK_EQ(a.events, 400);
	CHECK(!a.out_of_order);
	CHECK_EQ(a.starts, 1);
	CHECK_EQ(a.finishes, 1);
	CHECK_EQ(strobe_pipeline_run(p, &err), -EINVAL);	/* over, not paused */
	strobe_pipeline_free(p);

	/* two consumers: the other one has the event that paused the run */
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &kc, &err);
	strobe_pipeline_add_consumer(p, &kb, &err);
	while ((r = strobe_pipeline_run(p, &err)) == STROBE_PIPELINE_YIELD) {
		pauses++;
		CHECK_EQ(b.events, c.events);
		CHECK_EQ(c.events % 50, 0);
	}
	CHECK_EQ(r, STROBE_PIPELINE_END);
	CHECK_EQ(b.events, 400);
	CHECK_EQ(c.events, 400);
	CHECK_EQ(b.finishes, 1);
	strobe_pipeline_free(p);

	/* stopped while paused: the next run hands out nothing more */
	memset(&a, 0, sizeof(a));
	a.yield_every = 100;
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &ka, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_YIELD);
	strobe_pipeline_stop(p);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_DONE);
	CHECK_EQ(a.events, 100);
	CHECK_EQ(a.finishes, 1);
	strobe_pipeline_free(p);

	/* stopped from the callback (the tight loop): not one event more */
	memset(&a, 0, sizeof(a));
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	a.stop = p;
	a.stop_after = 33;
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &ka, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_DONE);
	CHECK_EQ(a.events, 33);
	strobe_pipeline_free(p);

	/* freed while paused: no finish */
	memset(&a, 0, sizeof(a));
	a.yield_every = 100;
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_consumer(p, &ka, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_YIELD);
	strobe_pipeline_free(p);
	CHECK_EQ(a.finishes, 0);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

static void test_pipeline_idle_input_asks_consumers_and_they_may_pause(void)
{
	static struct fx_event ev[40];
	struct strobe_format_decl d = {
		.size = sizeof(d), .system = "synthetic", .name = "req",
		.fields = req_fields, .nr_fields = 4,
	};
	struct strobe_record_source rs = { .size = sizeof(rs), .name = "synthetic",
					   .next = synth_next };
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct seen c = { .idle_ret = STROBE_CONSUMER_YIELD };
	struct strobe_consumer k = seen_consumer(&c);
	struct synth s = { .n = 10, .t0 = 1000 * MS, .step = MS, .pid = 7, .again = true };
	int n = make_syscalls(ev, 1000 * MS, MS, 10, 7), pauses = 0;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	s.id = strobe_formats_declare(strobe_tracefile_formats(tf), &d, NULL, &err);
	REQUIRE(s.id > 0);
	rs.ctx = &s;

	/* each -EAGAIN of the records: the consumer is asked, and pauses */
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_records(p, 0, &rs, &err);
	strobe_pipeline_add_consumer(p, &k, &err);
	CHECK_EQ(run_through(p, &pauses, &err), STROBE_PIPELINE_END);
	CHECK_EQ(c.idles, 10);
	CHECK_EQ(pauses, 10);
	CHECK_EQ(c.events, 30);
	CHECK(!c.out_of_order);
	CHECK_EQ(c.finishes, 1);
	strobe_pipeline_free(p);

	/* idle returning 0: the pipeline waits and asks again, no pause */
	memset(&c, 0, sizeof(c));
	s.i = s.calls = 0;
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_records(p, 0, &rs, &err);
	strobe_pipeline_add_consumer(p, &k, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	CHECK_EQ(c.idles, 10);
	CHECK_EQ(c.events, 30);
	strobe_pipeline_free(p);

	/* idle returning DONE: the only consumer is done, the run ends */
	memset(&c, 0, sizeof(c));
	c.idle_ret = STROBE_CONSUMER_DONE;
	s.i = s.calls = 0;
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf, NULL, &err);
	strobe_pipeline_add_records(p, 0, &rs, &err);
	strobe_pipeline_add_consumer(p, &k, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_DONE);
	CHECK_EQ(c.idles, 1);
	CHECK_EQ(c.finishes, 1);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	unlink(path);
	free(path);
}

/* Two hosts' files with clock pairings: the timeline is wall-clock time,
 * but a consumer asking for its source's own time gets each event's ts
 * as a run over that file alone gives it, in the timeline's order. */
struct own_time {
	uint64_t first[2], last[2], events[2], last_timeline;
	bool out_of_order;
};

static int own_event(const struct strobe_event *ev, int source, void *arg,
		     struct strobe_error *err)
{
	struct own_time *o = arg;

	if (!o->events[source])
		o->first[source] = ev->ts;
	o->last[source] = ev->ts;
	o->events[source]++;
	return 0;
}

static int timeline_event(const struct strobe_event *ev, int source, void *arg,
			  struct strobe_error *err)
{
	struct own_time *o = arg;

	if (ev->ts < o->last_timeline)
		o->out_of_order = true;
	o->last_timeline = ev->ts;
	return own_event(ev, source, arg, err);
}

static void test_pipeline_source_time_consumer_gets_each_files_own_clock(void)
{
	static struct fx_event ev_a[40], ev_b[40];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf[2] = { NULL, NULL };
	struct strobe_pipeline *p = NULL;
	struct own_time own = { 0 }, line = { 0 };
	struct strobe_consumer ko = {
		.size = sizeof(ko), .name = "own", .flags = STROBE_CONSUMER_SOURCE_TIME,
		.event = own_event, .arg = &own,
	}, kt = {
		.size = sizeof(kt), .name = "timeline", .event = timeline_event, .arg = &line,
	};
	int na = make_syscalls(ev_a, 1000000000000ull + 100 * MS, 3 * MS, 20, 11);
	int nb = make_syscalls(ev_b, 5000000000ull + 101 * MS, 3 * MS, 20, 12);
	char *pa = fx_write_file(fx_info_web, fx_syscalls, 2, ev_a, na, 2);
	char *pb = fx_write_file(fx_info_db, fx_syscalls, 2, ev_b, nb, 2);
	int i;

	REQUIRE(pa && pb);
	REQUIRE(strobe_tracefile_open(pa, &tf[0], &err) == 0);
	REQUIRE(strobe_tracefile_open(pb, &tf[1], &err) == 0);
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	CHECK_EQ(strobe_pipeline_add_file(p, tf[0], NULL, &err), 0);
	CHECK_EQ(strobe_pipeline_add_file(p, tf[1], NULL, &err), 1);
	CHECK_EQ(strobe_pipeline_add_consumer(p, &kt, &err), 0);
	CHECK_EQ(strobe_pipeline_add_consumer(p, &ko, &err), 0);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	CHECK(strobe_pipeline_wall(p));
	CHECK(!line.out_of_order);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(own.events[i], 40);
		CHECK_EQ(line.events[i], 40);
	}
	/* own time: the files' raw trace clocks */
	CHECK_EQ(own.first[0], 1000000000000ull + 100 * MS);
	CHECK_EQ(own.last[0], 1000000000000ull + 100 * MS + 19 * 3 * MS + 1000);
	CHECK_EQ(own.first[1], 5000000000ull + 101 * MS);
	CHECK_EQ(own.last[1], 5000000000ull + 101 * MS + 19 * 3 * MS + 1000);
	/* the timeline: wall-clock ns, near both pairings' wall times */
	CHECK(line.first[0] > 1795545551000000000ull && line.first[0] < 1795545552000000000ull);
	CHECK(line.first[1] > 1795545551000000000ull && line.first[1] < 1795545552000000000ull);
	strobe_pipeline_free(p);
	for (i = 0; i < 2; i++)
		strobe_tracefile_close(tf[i]);
	unlink(pa);
	unlink(pb);
	free(pa);
	free(pb);
}

/* One run of consumers cs (n of them) over path with jobs threads and
 * ticks every 5 ms; returns the run's answer. */
static int run_jobs(const char *path, int jobs, struct seen *cs, const char **names, int n,
		    struct strobe_error *err)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .tick_ns = 5 * MS, .jobs = jobs };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	int i, r;

	if (strobe_tracefile_open(path, &tf, err) < 0)
		return -1000;
	r = strobe_pipeline_new(&po, &p, err);
	if (r == 0)
		r = strobe_pipeline_add_file(p, tf, NULL, err);
	for (i = 0; r >= 0 && i < n; i++) {
		struct strobe_consumer k = seen_consumer(&cs[i]);

		k.name = names[i];
		k.cost = (unsigned)(n - i);
		r = strobe_pipeline_add_consumer(p, &k, err);
	}
	if (r >= 0)
		r = strobe_pipeline_run(p, err);
	/* every consumer's model knows the task */
	for (i = 0; r >= 0 && i < n; i++)
		if (!cs[i].model_given)
			r = -1001;
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	return r;
}

static void test_pipeline_jobs_consumers_on_workers_see_what_one_thread_gives(void)
{
	static struct fx_event ev[6000];
	const char *names[3] = { "a", "b", "c" };
	struct strobe_error err = { 0 };
	struct seen one[3], two[3];
	int n = make_syscalls(ev, 1000 * MS, 100000, 3000, 7), i, j;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	memset(one, 0, sizeof(one));
	memset(two, 0, sizeof(two));
	two[1].done_after = one[1].done_after = 2500;	/* done inside a batch */
	CHECK_EQ(run_jobs(path, 1, one, names, 3, &err), STROBE_PIPELINE_END);
	CHECK_EQ(run_jobs(path, 2, two, names, 3, &err), STROBE_PIPELINE_END);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(two[i].events, one[i].events);
		CHECK_EQ(two[i].starts, 1);
		CHECK_EQ(two[i].finishes, 1);
		CHECK_EQ(two[i].ticks, one[i].ticks);
		CHECK_EQ(two[i].last_ts, one[i].last_ts);
		CHECK(!two[i].out_of_order);
		for (j = 0; j < 64 && j < (int)one[i].ticks; j++)
			CHECK_EQ(two[i].tick_ts[j], one[i].tick_ts[j]);
	}
	CHECK_EQ(two[0].events, 6000);
	CHECK_EQ(two[1].events, 2500);
	CHECK_EQ(one[0].ticks, 59);	/* 1.000 to 1.2999: a tick every 5 ms */
	unlink(path);
	free(path);
}

/*
 * A printer with parts: each part writes "ts cpu pid comm" lines of its
 * events into a buffer of its own and flushes it into the root's output
 * (the turn makes those flushes one at a time, in order); done when an
 * event at done_ts or later was printed, -EIO at fail_ts.
 */
struct printer {
	struct printer *root;
	const struct strobe_pipeline_source *srcs;
	char *buf;		/* this part's, then (root) the output */
	size_t len, cap;
	char *out;
	size_t out_len, out_cap;
	uint64_t events, flushes, done_ts, fail_ts;
	int parts_made, parts_freed, finishes;
};

static void put_text(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*b = realloc(*b, *cap);
		if (!*b)
			abort();
	}
	memcpy(*b + *len, s, n);
	*len += n;
	(*b)[*len] = '\0';
}

static int printer_start(const struct strobe_pipeline_source *s, int nr, void *arg,
			 struct strobe_error *err)
{
	struct printer *p = arg;

	p->srcs = s;
	return 0;
}

static int printer_event(const struct strobe_event *ev, int source, void *arg,
			 struct strobe_error *err)
{
	struct printer *p = arg;
	const struct strobe_task *t = p->srcs[source].model ?
		strobe_model_task(p->srcs[source].model, ev->pid) : NULL;
	char line[96];
	int n;

	if (p->root->fail_ts && ev->ts >= p->root->fail_ts)
		return -EIO;
	n = snprintf(line, sizeof(line), "%llu %d %d %s\n", (unsigned long long)ev->ts, ev->cpu,
		     ev->pid, t ? t->comm : "?");
	put_text(&p->buf, &p->len, &p->cap, line, (size_t)n);
	p->events++;
	return p->root->done_ts && ev->ts >= p->root->done_ts ? STROBE_CONSUMER_DONE : 0;
}

static int printer_flush(void *part, bool keep, struct strobe_error *err)
{
	struct printer *p = part, *r = p->root;

	if (keep)
		put_text(&r->out, &r->out_len, &r->out_cap, p->buf ? p->buf : "", p->len);
	p->len = 0;
	p->flushes++;
	return 0;
}

static void *printer_part_new(void *arg, int k, int nr, const struct strobe_pipeline_source *s,
			      int nr_sources, struct strobe_error *err)
{
	struct printer *root = arg, *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->root = root;
	p->srcs = s;
	root->parts_made++;
	return p;
}

static void printer_part_free(void *part)
{
	struct printer *p = part;

	p->root->parts_freed++;
	/* the counts stay readable: added to the root's */
	p->root->events += 0;
	free(p->buf);
	free(p);
}

static int printer_finish(void *arg, struct strobe_error *err)
{
	struct printer *p = arg;

	p->finishes++;
	/* one thread: the root's own buffer holds everything */
	if (p->len)
		printer_flush(p, true, err);
	return 0;
}

/* One run of a printer (with parts) over path with jobs threads; the
 * root's events: *root_events (those of part 0). */
static int run_printer(const char *path, int jobs, struct printer *p, struct strobe_error *err)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .jobs = jobs };
	struct strobe_consumer k = {
		.size = sizeof(k), .name = "printer", .flags = STROBE_CONSUMER_MODEL,
		.start = printer_start, .event = printer_event, .finish = printer_finish,
		.part_new = printer_part_new, .part_flush = printer_flush,
		.part_free = printer_part_free, .arg = p,
	};
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *pl = NULL;
	int r;

	p->root = p;
	if (strobe_tracefile_open(path, &tf, err) < 0)
		return -1000;
	r = strobe_pipeline_new(&po, &pl, err);
	if (r == 0)
		r = strobe_pipeline_add_file(pl, tf, NULL, err);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(pl, &k, err);
	if (r >= 0)
		r = strobe_pipeline_run(pl, err);
	strobe_pipeline_free(pl);
	strobe_tracefile_close(tf);
	return r;
}

static void printer_clear(struct printer *p)
{
	free(p->buf);
	free(p->out);
	memset(p, 0, sizeof(*p));
}

/*
 * A consumer with parts on two workers (jobs 3: the calling thread
 * reads): both print (part 0 a share of the batches, part 1 the rest),
 * and the output is byte for byte what one thread prints, also when a
 * part is done in the middle of a batch and when a part fails; with
 * jobs 2, one worker prints it all.
 */
static void test_pipeline_jobs_parts_print_in_order_as_one_thread(void)
{
	static struct fx_event ev[40000];
	struct strobe_error err = { 0 };
	struct printer one, two;
	int n = make_syscalls(ev, 1000 * MS, 10000, 20000, 7), r;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	memset(&one, 0, sizeof(one));
	memset(&two, 0, sizeof(two));
	CHECK_EQ(run_printer(path, 1, &one, &err), STROBE_PIPELINE_END);
	CHECK_EQ(run_printer(path, 3, &two, &err), STROBE_PIPELINE_END);	/* 2 workers */
	REQUIRE(one.out && two.out);
	CHECK_EQ(one.out_len, two.out_len);
	CHECK(one.out_len > 40000 * 10);
	CHECK(strcmp(one.out, two.out) == 0);
	CHECK(strstr(one.out, " 7 ") != NULL);
	CHECK_EQ(one.parts_made, 0);
	CHECK_EQ(two.parts_made, 1);
	CHECK_EQ(two.parts_freed, 1);
	CHECK_EQ(two.finishes, 1);
	/* part 0 printed some of the batches, not all: part 1 the rest */
	CHECK(two.events > 0 && two.events < 40000);
	CHECK(two.flushes > 1);
	printer_clear(&two);
	CHECK_EQ(run_printer(path, 2, &two, &err), STROBE_PIPELINE_END);
	REQUIRE(two.out);
	CHECK(strcmp(one.out, two.out) == 0);
	CHECK_EQ(two.parts_made, 0);
	CHECK_EQ(two.events, 40000);
	printer_clear(&one);
	printer_clear(&two);

	/* done at an event in the middle of a batch: the same lines */
	one.done_ts = two.done_ts = 1000 * MS + 12345 * 10000ULL;
	CHECK_EQ(run_printer(path, 1, &one, &err), STROBE_PIPELINE_DONE);
	/* (the driver may have handed out the last batch before a part was
	 * done: the end of the input then) */
	r = run_printer(path, 3, &two, &err);
	CHECK(r == STROBE_PIPELINE_DONE || r == STROBE_PIPELINE_END);
	REQUIRE(one.out && two.out);
	CHECK_EQ(one.out_len, two.out_len);
	CHECK(strcmp(one.out, two.out) == 0);
	CHECK(one.out_len > 20000 * 10 && one.out_len < 30000 * 30);
	printer_clear(&one);
	printer_clear(&two);

	/* a part fails: the run fails with its error, and what was written
	 * out is what one thread wrote before the failing event */
	one.fail_ts = two.fail_ts = 1000 * MS + 15000 * 10000ULL;
	CHECK_EQ(run_printer(path, 1, &one, &err), -EIO);
	CHECK_EQ(run_printer(path, 3, &two, &err), -EIO);
	CHECK(strstr(err.msg, "printer failed") != NULL);
	/* (one thread's last batch, before the failure, is still in its
	 * buffer: finish does not run after a failure) */
	if (one.len)
		printer_flush(&one, true, &err);
	REQUIRE(one.out && two.out);
	CHECK_EQ(one.out_len, two.out_len);
	CHECK(strcmp(one.out, two.out) == 0);
	printer_clear(&one);
	printer_clear(&two);
	unlink(path);
	free(path);
}

static void test_pipeline_jobs_first_failure_by_event_fails_the_run(void)
{
	static struct fx_event ev[6000];
	const char *names[3] = { "a", "b", "c" };
	struct strobe_error err = { 0 };
	struct seen cs[3];
	int n = make_syscalls(ev, 1000 * MS, 100000, 3000, 7), r;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, 2);

	REQUIRE(path);
	/* a (the costliest: a worker alone) fails later than c (with b) */
	memset(cs, 0, sizeof(cs));
	cs[0].fail_after = 4000;
	cs[2].fail_after = 3000;
	r = run_jobs(path, 2, cs, names, 3, &err);
	CHECK_EQ(r, -EIO);
	CHECK(strstr(err.msg, "c failed") != NULL);
	CHECK_EQ(cs[0].finishes + cs[1].finishes + cs[2].finishes, 0);
	/* a pause cannot be honoured across threads */
	memset(cs, 0, sizeof(cs));
	cs[1].yield_every = 1500;
	r = run_jobs(path, 3, cs, names, 3, &err);
	CHECK_EQ(r, -EINVAL);
	CHECK(strstr(err.msg, "paused") != NULL);
	unlink(path);
	free(path);
}

TESTS(T(test_pipeline_one_file_every_event_once_in_order_with_model),
      T(test_pipeline_jobs_consumers_on_workers_see_what_one_thread_gives),
      T(test_pipeline_jobs_first_failure_by_event_fails_the_run),
      T(test_pipeline_jobs_parts_print_in_order_as_one_thread),
      T(test_pipeline_ticks_every_interval_of_trace_time),
      T(test_pipeline_ends_when_every_consumer_is_done),
      T(test_pipeline_same_file_twice_is_read_once_with_a_notice),
      T(test_pipeline_damaged_page_is_skipped_and_said_strict_fails),
      T(test_pipeline_record_source_merges_with_a_file_for_analyses_and_report),
      T(test_pipeline_yield_pauses_the_run_and_the_next_run_goes_on),
      T(test_pipeline_idle_input_asks_consumers_and_they_may_pause),
      T(test_pipeline_source_time_consumer_gets_each_files_own_clock));
