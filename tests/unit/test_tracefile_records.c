/*
 * test_tracefile_records.c - records that are not ftrace pages stored in
 * a trace.dat (lib/tracefile/pack.c, the instance buffers of write.c):
 * a synthetic record source with declared formats (one with a call
 * chain, one with a payload too long for a short header) is written
 * beside an ftrace trace into one file, and the file read back through
 * the pipeline gives exactly what the pipeline gave from the trace file
 * and the source themselves: the same events in the same time order,
 * the same fx_syscalls, payloads and call chains; with gaps that need time
 * extends, many pages, lost records marked as the kernel marks them, and
 * a damaged page of the records skipped like any damaged page; what a
 * file cannot hold (a bad CPU, a record earlier than its CPU's last, one
 * larger than a page, a declared id a kernel format of the file has,
 * buffer names alike) is refused with a reason.
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
#include "tracefile/tracefile-int.h"

/* libtraceevent leaks on some format texts; not ours to fix. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

#define ID_ENTER FX_ID_SYS_ENTER
#define ID_EXIT FX_ID_SYS_EXIT
#define MS 1000000ull
#define NR_CPUS 2

/* "strobe_test:sample": a perf-like sample with a call chain of 1 to 8
 * addresses; "strobe_test:note": 120 bytes of text (a long payload:
 * type_len 0 with a length word). */
static const struct strobe_field_decl sample_fields[] = {
	{ "u32", "seq", 8, 4, false },
	{ "s32", "tid", 12, 4, true },
	{ "u64", "period", 16, 8, false },
	{ "__data_loc u64[]", "callchain", 24, 4, false },
};
static const struct strobe_field_decl note_fields[] = {
	{ "u32", "seq", 8, 4, false },
	{ "char[120]", "text", 12, 120, false },
};
#define SAMPLE_HDR 28
#define NOTE_SIZE 132

/* The synthetic source: record i on CPU i % 2, every `step` ns from t0 +
 * 333 (never at an ftrace event's time), with a gap of `gap` ns after
 * record gap_at; every 5th a note, the rest samples whose chain has
 * 1 + i % 8 addresses. */
struct synth {
	int sample_id, note_id;
	int i, n, gap_at;
	uint64_t t0, step, gap;
	uint8_t buf[256];
};

static int synth_next(void *ctx, struct strobe_event *ev, struct strobe_error *err)
{
	struct synth *s = ctx;
	uint64_t ts;
	int i = s->i, k, depth;

	if (i >= s->n)
		return 0;
	ts = s->t0 + 333 + (uint64_t)i * s->step + (i > s->gap_at ? s->gap : 0);
	memset(s->buf, 0, sizeof(s->buf));
	fx_put32(s->buf + 4, (uint32_t)(100 + i % 3));
	fx_put32(s->buf + 8, (uint32_t)i);
	if (i % 5 == 4) {
		fx_put16(s->buf, (uint16_t)s->note_id);
		snprintf((char *)s->buf + 12, 120, "note %d: %.100s", i,
			 "a long payload that does not fit the 112 bytes of a short "
			 "ring-buffer header so it carries its length");
		ev->size = NOTE_SIZE;
	} else {
		depth = 1 + i % 8;
		fx_put16(s->buf, (uint16_t)s->sample_id);
		fx_put32(s->buf + 12, (uint32_t)-(100 + i % 3));
		fx_put64(s->buf + 16, 10007ull * (uint64_t)i);
		fx_put32(s->buf + 24, (uint32_t)SAMPLE_HDR | (uint32_t)(8 * depth) << 16);
		for (k = 0; k < depth; k++)
			fx_put64(s->buf + SAMPLE_HDR + 8 * k, 0xffffffff81000000ull + 16 * (uint64_t)(i + k));
		ev->size = SAMPLE_HDR + 8 * depth;	/* 36 .. 92: some not a multiple of 8 */
	}
	ev->ts = ts;
	ev->data = s->buf;
	ev->cpu = (uint32_t)(i % NR_CPUS);
	s->i++;
	return 1;
}

/* What a pipeline handed out, event by event. */
struct got {
	int n, cap;
	struct ev_copy {
		uint64_t ts;
		int cpu, buffer;
		int64_t missed;
		char name[32], system[32];
		uint32_t size;
		uint8_t data[256];
		int nr_ips;
		uint64_t ips[8];
	} *v;
};

static int got_event(const struct strobe_event *ev, int source, void *arg,
		     struct strobe_error *err)
{
	struct got *g = arg;
	struct ev_copy *c;

	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->v = realloc(g->v, (size_t)g->cap * sizeof(*g->v));
		if (!g->v)
			return -ENOMEM;
	}
	c = &g->v[g->n++];
	memset(c, 0, sizeof(*c));
	c->ts = ev->ts;
	c->cpu = (int)ev->cpu;
	c->buffer = ev->buffer;
	c->missed = ev->missed;
	snprintf(c->name, sizeof(c->name), "%s", ev->format ? strobe_format_name(ev->format) : "?");
	snprintf(c->system, sizeof(c->system), "%s",
		 ev->format ? strobe_format_system(ev->format) : "?");
	c->size = ev->size;
	memcpy(c->data, ev->data, ev->size < sizeof(c->data) ? ev->size : sizeof(c->data));
	c->nr_ips = strobe_event_callchain(ev, c->ips, 8);
	return 0;
}

/* Run a pipeline over tf (and rs, when given) into *g.  Returns its end. */
static int run(struct strobe_tracefile *tf, struct strobe_record_source *rs, bool strict,
	       struct got *g, struct strobe_error *err)
{
	struct strobe_pipeline_opts o = { .size = sizeof(o), .strict = strict };
	struct strobe_consumer k = { .size = sizeof(k), .name = "got", .event = got_event, .arg = g };
	struct strobe_pipeline *p = NULL;
	int r;

	if (strobe_pipeline_new(&o, &p, err))
		return -1;
	strobe_pipeline_add_file(p, tf, NULL, err);
	if (rs)
		strobe_pipeline_add_records(p, 0, rs, err);
	strobe_pipeline_add_consumer(p, &k, err);
	r = strobe_pipeline_run(p, err);
	strobe_pipeline_free(p);
	return r;
}

/* Declare the two formats into f; the source's ids set. */
static void declare(struct strobe_formats *f, struct synth *s)
{
	struct strobe_format_decl ds = { sizeof(ds), "strobe_test", "sample", sample_fields, 4 };
	struct strobe_format_decl dn = { sizeof(dn), "strobe_test", "note", note_fields, 2 };
	struct strobe_error err = { 0 };

	s->sample_id = strobe_formats_declare(f, &ds, NULL, &err);
	s->note_id = strobe_formats_declare(f, &dn, NULL, &err);
	CHECK(s->sample_id > ID_EXIT && s->note_id > s->sample_id);
}

/*
 * Write path: the ftrace events of ev[] on NR_CPUS CPUs, with the formats
 * of the catalogue f (the fixture's plus those declared into it), and the
 * records of s packed into buffer "strobe_test" (after lost_before[cpu]
 * records lost on that CPU before its first, when given).  Returns the
 * new file's path (malloc'd) or NULL.
 */
static char *write_with_records(const struct fx_event *ev, int n, struct strobe_formats *f,
				struct synth *s, const int64_t *lost_before)
{
	struct strobe_tf_meta m = { 0 };
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	struct tf_packer *pk = NULL;
	struct strobe_tf_format *all = NULL;
	const char *names[] = { "strobe_test" };
	char *path = strdup("/tmp/strobe-rec-XXXXXX.dat");
	struct strobe_event e;
	size_t nr_all = 0;
	int fd, cpu, r;

	if (!path || (fd = mkstemps(path, 4)) < 0)
		return NULL;
	close(fd);
	fx_meta(&m);
	m.formats = fx_syscalls;
	m.nr_formats = 2;
	if (tf_formats_with_declared(&m, f, &all, &nr_all, &err))
		goto fail;
	m.formats = all;
	m.nr_formats = nr_all;
	if (tf_writer_open_buffers(path, &m, NR_CPUS, names, 1, &w, &err) ||
	    fx_add_cpus(w, ev, n, NR_CPUS, &err))
		goto fail;
	if (tf_packer_new(path, FX_PS, 8, NR_CPUS, &pk, &err))
		goto fail;
	for (cpu = 0; lost_before && cpu < NR_CPUS; cpu++)
		if (tf_packer_lost(pk, cpu, lost_before[cpu], &err))
			goto fail;
	s->i = 0;
	while ((r = synth_next(s, &e, &err)) == 1)
		if (tf_packer_add(pk, (int)e.cpu, e.ts, e.data, e.size, &err))
			goto fail;
	CHECK_EQ(tf_packer_records(pk), s->n);
	if (tf_packer_add_to(pk, w, 0, &err))
		goto fail;
	tf_packer_free(pk);
	free(all);
	if (strobe_tf_writer_close(w, NULL, NULL, &err)) {
		w = NULL;
		goto fail;
	}
	return path;
fail:
	fprintf(stderr, "  write: %s\n", err.msg);
	tf_packer_free(pk);
	free(all);
	strobe_tf_writer_discard(w);
	unlink(path);
	free(path);
	return NULL;
}

/* n getppid enter/exit pairs, alternating CPUs, every step from t0. */
static int make_syscalls(struct fx_event *ev, uint64_t t0, uint64_t step, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		struct fx_event *e = fx_payload(&ev[k++], t0 + (uint64_t)i * step, i % 2, ID_ENTER,
						77, 64);

		fx_put64(e->data + 8, 110);
		e = fx_payload(&ev[k++], t0 + (uint64_t)i * step + 1000, i % 2, ID_EXIT, 77, 24);
		fx_put64(e->data + 8, 110);
		fx_put64(e->data + 16, 7);
	}
	return k;
}

/* Time-extend records (type_len 30) in the pages of buffer b's CPU cpu. */
static int count_time_extends(struct strobe_tracefile *tf, int b, int cpu, int *pages)
{
	struct strobe_error err = { 0 };
	struct strobe_tf_cpu *c = NULL;
	const uint8_t *pg;
	int n = 0;

	*pages = 0;
	if (strobe_tf_cpu_open(tf, b, cpu, &c, &err))
		return -1;
	while (strobe_tf_cpu_next_page(c, &pg, &err) == 1) {
		uint32_t len, pos = 0;
		uint64_t commit;

		memcpy(&commit, pg + 8, 8);
		len = (uint32_t)(commit & ((1u << 27) - 1));
		(*pages)++;
		while (pos + 4 <= len) {
			uint32_t h, tl;

			memcpy(&h, pg + 16 + pos, 4);
			tl = h & 31;
			if (tl == 30) {
				n++;
				pos += 8;
			} else if (tl == 0) {
				uint32_t a0;

				memcpy(&a0, pg + 16 + pos + 4, 4);
				pos += 4 + a0;
			} else {
				pos += 4 + 4 * tl;
			}
		}
	}
	strobe_tf_cpu_close(c);
	return n;
}

static bool same_event(const struct ev_copy *a, const struct ev_copy *b)
{
	uint32_t padded = (a->size + 3) & ~3u;

	/* stored records come back padded with zeros to 4 bytes, as every
	 * ring-buffer record */
	return a->ts == b->ts && a->cpu == b->cpu && !strcmp(a->name, b->name) &&
	       !strcmp(a->system, b->system) && b->size == padded &&
	       !memcmp(a->data, b->data, a->size) && a->nr_ips == b->nr_ips &&
	       !memcmp(a->ips, b->ips, sizeof(a->ips));
}

static bool same_fields(const struct strobe_format *a, const struct strobe_format *b)
{
	int i;

	if (!a || !b || strobe_format_nr_fields(a) != strobe_format_nr_fields(b) ||
	    strobe_format_id(a) != strobe_format_id(b))
		return false;
	for (i = 0; i < strobe_format_nr_fields(a); i++) {
		struct strobe_field_info x, y;

		if (strobe_format_field(a, i, &x) || strobe_format_field(b, i, &y) ||
		    strcmp(x.name, y.name) || strcmp(x.type, y.type) || x.field.offset != y.field.offset ||
		    x.field.size != y.field.size)
			return false;
	}
	return true;
}

static void test_records_stored_in_their_buffer_read_back_as_the_source_gave_them(void)
{
	static struct fx_event ev[400];
	struct strobe_record_source rs = { .size = sizeof(rs), .name = "synthetic",
					   .next = synth_next };
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL, *tf2 = NULL;
	struct strobe_tf_buffer_info bi;
	struct got want = { 0 }, got = { 0 };
	/* 6000 records over 0.6 s of 200 syscalls, a 3 s gap after the 3000th */
	struct synth s = { .n = 6000, .t0 = 1000 * MS, .step = 100000, .gap_at = 2999,
			   .gap = 3000 * MS };
	int n = make_syscalls(ev, 1000 * MS, 3 * MS, 200), i, records = 0, mism = -1;
	int ext0, ext1, pages0, pages1;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, NR_CPUS), *path2;

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	declare(strobe_tracefile_formats(tf), &s);

	/* what the pipeline makes of the file and the source */
	rs.ctx = &s;
	CHECK_EQ(run(tf, &rs, false, &want, &err), STROBE_PIPELINE_END);
	CHECK_EQ(want.n, n + s.n);

	/* stored, then read back alone */
	path2 = write_with_records(ev, n, strobe_tracefile_formats(tf), &s, NULL);
	REQUIRE(path2);
	REQUIRE(strobe_tracefile_open(path2, &tf2, &err) == 0);
	CHECK_EQ(strobe_tracefile_nr_diags(tf2), 0);
	CHECK_EQ(strobe_tracefile_nr_buffers(tf2), 2);
	CHECK_EQ(strobe_tracefile_buffer(tf2, 1, &bi), 0);
	CHECK_STR(bi.name, "strobe_test");
	CHECK_STR(bi.clock, "local");
	CHECK_EQ(bi.nr_cpus, NR_CPUS);
	CHECK_EQ(run(tf2, NULL, true, &got, &err), STROBE_PIPELINE_END);
	if (err.code)
		fprintf(stderr, "  %s\n", err.msg);
	CHECK_EQ(got.n, want.n);
	for (i = 0; i < got.n && i < want.n; i++) {
		if (mism < 0 && !same_event(&want.v[i], &got.v[i]))
			mism = i;
		if (!strcmp(got.v[i].system, "strobe_test")) {
			records++;
			CHECK(got.v[i].buffer == 1);
		}
	}
	if (mism >= 0)
		fprintf(stderr, "  event %d differs: %s at %llu vs %s at %llu\n", mism,
			want.v[mism].name, (unsigned long long)want.v[mism].ts, got.v[mism].name,
			(unsigned long long)got.v[mism].ts);
	CHECK_EQ(mism, -1);
	CHECK_EQ(records, s.n);
	CHECK_EQ(strobe_tracefile_nr_diags(tf2), 0);

	/* the same formats: names, ids, fields */
	CHECK(same_fields(strobe_formats_find(strobe_tracefile_formats(tf), "strobe_test", "sample"),
			  strobe_formats_find(strobe_tracefile_formats(tf2), "strobe_test", "sample")));
	CHECK(same_fields(strobe_formats_find(strobe_tracefile_formats(tf), "strobe_test", "note"),
			  strobe_formats_find(strobe_tracefile_formats(tf2), "strobe_test", "note")));
	CHECK(same_fields(strobe_formats_find(strobe_tracefile_formats(tf), "raw_syscalls", "sys_exit"),
			  strobe_formats_find(strobe_tracefile_formats(tf2), "raw_syscalls", "sys_exit")));

	/* the 3 s gap took one time extend per CPU; 3000 records a CPU took
	 * many pages */
	ext0 = count_time_extends(tf2, 1, 0, &pages0);
	ext1 = count_time_extends(tf2, 1, 1, &pages1);
	CHECK_EQ(ext0, 1);
	CHECK_EQ(ext1, 1);
	CHECK(pages0 >= 40 && pages1 >= 40);
	CHECK_EQ(bi.data_size, (uint64_t)(pages0 + pages1) * FX_PS);

	free(want.v);
	free(got.v);
	strobe_tracefile_close(tf2);
	strobe_tracefile_close(tf);
	unlink(path2);
	unlink(path);
	free(path2);
	free(path);
}

static void test_records_lost_before_are_marked_as_the_kernel_marks_them(void)
{
	static struct fx_event ev[40];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL, *tf2 = NULL;
	struct strobe_stream_stats st;
	struct got got = { 0 };
	struct synth s = { .n = 40, .t0 = 1000 * MS, .step = MS, .gap_at = 1000 };
	const int64_t lost[NR_CPUS] = { 12, -1 };
	int n = make_syscalls(ev, 1000 * MS, 3 * MS, 10), i, first[NR_CPUS] = { -1, -1 };
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, NR_CPUS), *path2;
	struct strobe_pipeline *p = NULL;
	struct strobe_consumer k = { .size = sizeof(k), .name = "got", .event = got_event,
				     .arg = &got };
	bool said = false;

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	declare(strobe_tracefile_formats(tf), &s);
	path2 = write_with_records(ev, n, strobe_tracefile_formats(tf), &s, lost);
	REQUIRE(path2);
	REQUIRE(strobe_tracefile_open(path2, &tf2, &err) == 0);
	REQUIRE(strobe_pipeline_new(NULL, &p, &err) == 0);
	strobe_pipeline_add_file(p, tf2, NULL, &err);
	strobe_pipeline_add_consumer(p, &k, &err);
	CHECK_EQ(strobe_pipeline_run(p, &err), STROBE_PIPELINE_END);
	strobe_pipeline_stats(p, &st);
	for (i = 0; i < got.n; i++)
		if (got.v[i].buffer == 1 && first[got.v[i].cpu] < 0)
			first[got.v[i].cpu] = i;
	REQUIRE(first[0] >= 0 && first[1] >= 0);
	CHECK_EQ(got.v[first[0]].missed, 12);	/* the count stored after the data */
	CHECK_EQ(got.v[first[1]].missed, -1);	/* some, count unknown */
	CHECK_EQ(got.n, n + s.n);
	for (i = 0; i < strobe_pipeline_nr_diags(p); i++) {
		enum strobe_tf_diag_kind kind;
		const char *msg = strobe_pipeline_diag(p, i, &kind, NULL);

		if (kind == STROBE_TF_DIAG_LOST_EVENTS && msg)
			said = true;
	}
	CHECK(said);
	CHECK(!strobe_pipeline_damaged(p));
	strobe_pipeline_free(p);
	free(got.v);
	strobe_tracefile_close(tf2);
	strobe_tracefile_close(tf);
	unlink(path2);
	unlink(path);
	free(path2);
	free(path);
}

static void test_records_damaged_page_is_skipped_and_said_strict_fails(void)
{
	static struct fx_event ev[40];
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL, *tf2 = NULL;
	struct got got = { 0 };
	struct synth s = { .n = 2000, .t0 = 1000 * MS, .step = 50000, .gap_at = 5000 };
	int n = make_syscalls(ev, 1000 * MS, 3 * MS, 10), i, records = 0, fd;
	char *path = fx_write_file(NULL, fx_syscalls, 2, ev, n, NR_CPUS), *path2;
	uint64_t off, bad = 0xfff0;	/* a commit larger than the page */
	bool said = false;

	REQUIRE(path);
	REQUIRE(strobe_tracefile_open(path, &tf, &err) == 0);
	declare(strobe_tracefile_formats(tf), &s);
	path2 = write_with_records(ev, n, strobe_tracefile_formats(tf), &s, NULL);
	REQUIRE(path2);
	/* the commit word of the records' CPU 1, page 2 */
	REQUIRE(strobe_tracefile_open(path2, &tf2, &err) == 0);
	REQUIRE(tf2->nr_bufs == 2 && tf2->bufs[1].cpus[1].size >= 3 * FX_PS);
	off = tf2->bufs[1].cpus[1].offset + 2 * FX_PS + 8;
	strobe_tracefile_close(tf2);
	tf2 = NULL;
	fd = open(path2, O_WRONLY);
	REQUIRE(fd >= 0);
	CHECK(pwrite(fd, &bad, 8, (off_t)off) == 8);
	close(fd);

	REQUIRE(strobe_tracefile_open(path2, &tf2, &err) == 0);
	CHECK_EQ(run(tf2, NULL, false, &got, &err), STROBE_PIPELINE_END);
	for (i = 0; i < got.n; i++)
		records += !strcmp(got.v[i].system, "strobe_test");
	/* one page of CPU 1's records is gone, the rest is there */
	CHECK(records < s.n && records > s.n - 200);
	CHECK_EQ(got.n - records, n);
	for (i = 0; i < strobe_tracefile_nr_diags(tf2); i++) {
		enum strobe_tf_diag_kind kind;
		const char *msg = strobe_tracefile_diag(tf2, i, &kind);

		if (kind == STROBE_TF_DIAG_BAD_DATA && strstr(msg, "buffer 1 cpu 1"))
			said = true;
	}
	CHECK(said);
	strobe_tracefile_close(tf2);

	/* strict: the run fails at that page */
	got.n = 0;
	REQUIRE(strobe_tracefile_open(path2, &tf2, &err) == 0);
	CHECK_EQ(run(tf2, NULL, true, &got, &err), -EBADMSG);
	CHECK(strstr(err.msg, "buffer 1 cpu 1"));
	strobe_tracefile_close(tf2);

	free(got.v);
	strobe_tracefile_close(tf);
	unlink(path2);
	unlink(path);
	free(path2);
	free(path);
}

static void test_records_packer_and_writer_refuse_what_the_file_cannot_hold(void)
{
	struct strobe_tf_meta m = { 0 };
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	struct tf_packer *pk = NULL;
	uint8_t rec[FX_PS] = { 0 };
	const char *twice[] = { "a", "a" }, *bad[] = { "a b" };
	char path[] = "/tmp/strobe-recw-XXXXXX";
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(tf_packer_new(path, FX_PS, 8, 2, &pk, &err) == 0);
	CHECK_EQ(tf_packer_add(pk, 2, 100, rec, 8, &err), -EINVAL);
	CHECK(strstr(err.msg, "CPU 2"));
	CHECK_EQ(tf_packer_add(pk, 0, 100, rec, 4, &err), -EINVAL);
	CHECK_EQ(tf_packer_add(pk, 0, 100, rec, FX_PS - 16, &err), -EMSGSIZE);
	CHECK_EQ(tf_packer_add(pk, 0, 100, rec, FX_PS - 16 - 24, &err), 0);	/* the largest */
	CHECK_EQ(tf_packer_add(pk, 0, 200, rec, 8, &err), 0);
	CHECK_EQ(tf_packer_add(pk, 0, 199, rec, 8, &err), -EINVAL);
	CHECK(strstr(err.msg, "earlier"));
	CHECK_EQ(tf_packer_add(pk, 1, 199, rec, 8, &err), 0);	/* another CPU: fine */
	CHECK_EQ(tf_packer_records(pk), 3);
	tf_packer_free(pk);
	CHECK_EQ(tf_packer_new(path, FX_PS, 6, 2, &pk, &err), -EINVAL);

	/* a declared format whose id a kernel format of the file has */
	{
		static struct fx_event ev[4];
		static const char clash[] = "name: other\nID: 445\nformat:\n" FMT_COMMON
			"print fmt: \"\"\n";
		const struct strobe_tf_format with_clash[] = { fx_syscalls[0], fx_syscalls[1],
							       { "other", clash, sizeof(clash) - 1 } };
		struct strobe_tf_format *all = NULL;
		struct strobe_tracefile *tf = NULL;
		struct synth s = { 0 };
		size_t nr = 0;
		int n = make_syscalls(ev, 1000 * MS, MS, 2);
		char *fpath = fx_write_file(NULL, fx_syscalls, 2, ev, n, NR_CPUS);

		REQUIRE(fpath && strobe_tracefile_open(fpath, &tf, &err) == 0);
		declare(strobe_tracefile_formats(tf), &s);
		REQUIRE(s.sample_id == 445);
		fx_meta(&m);
		m.formats = fx_syscalls;
		m.nr_formats = 2;
		CHECK_EQ(tf_formats_with_declared(&m, strobe_tracefile_formats(tf), &all, &nr, &err), 0);
		CHECK_EQ(nr, 4);
		free(all);
		fx_meta(&m);
		m.formats = with_clash;
		m.nr_formats = 3;
		CHECK_EQ(tf_formats_with_declared(&m, strobe_tracefile_formats(tf), &all, &nr, &err),
			 -EEXIST);
		CHECK(strstr(err.msg, "strobe_test:sample") && !all);
		strobe_tracefile_close(tf);
		unlink(fpath);
		free(fpath);
	}
	fx_meta(&m);
	CHECK_EQ(tf_writer_open_buffers(path, &m, 2, twice, 2, &w, &err), -EINVAL);
	CHECK(strstr(err.msg, "twice"));
	CHECK_EQ(tf_writer_open_buffers(path, &m, 2, bad, 1, &w, &err), -EINVAL);
	CHECK(!w);
	unlink(path);
}

TESTS(T(test_records_stored_in_their_buffer_read_back_as_the_source_gave_them),
      T(test_records_lost_before_are_marked_as_the_kernel_marks_them),
      T(test_records_damaged_page_is_skipped_and_said_strict_fails),
      T(test_records_packer_and_writer_refuse_what_the_file_cannot_hold));
