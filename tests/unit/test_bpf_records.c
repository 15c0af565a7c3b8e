/*
 * test_bpf_records.c - the BPF source's records without a kernel: the
 * formats it declares (strobe_bpf_declare) and the decoding of ring-buffer
 * records as the kernel side (lib/bpf/snoop.bpf.c) lays them out
 * (strobe_bpf_decode), good ones field by field through the ordinary
 * accessors and bad ones (short, unknown kind, a string that points
 * outside the record or lacks its NUL) skipped, never read past.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/bpf.h>

#include "format/format-int.h"
#include "bpf/snoop.h"
#include "formats.h"
#include "test.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static const char fmt_switch[] =
	"name: sched_switch\nID: 316\nformat:\n" FMT_COMMON FMT_SWITCH_FIELDS
	"print fmt: \"prev_pid=%d\", REC->prev_pid\n";

/* A catalogue holding one kernel format (id 316), as a live session's. */
static struct strobe_formats *catalogue(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, fmt_switch, sizeof(fmt_switch) - 1, "sched")) {
		tep_free(tep);
		return NULL;
	}
	return strobe_formats_adopt(tep);
}

/* An open record as snoop.bpf.c sends it; returns its length. */
static size_t open_rec(struct snoop_open *r, const char *path, long ret)
{
	size_t n = strlen(path) + 1;

	memset(r, 0, sizeof(*r));
	r->ts = 123456789;
	r->cpu = 1;
	r->c.common_type = SNOOP_KIND_OPEN;
	r->c.common_pid = 4242;
	r->tgid = 4240;
	r->uid = 1000;
	r->ret = ret;
	r->flags = 0100 | 01;
	r->mode = 0644;
	r->dfd = -100;
	r->cgroup = 77;
	snprintf(r->comm, sizeof(r->comm), "cat");
	r->call = SNOOP_CALL_OPENAT;
	memcpy(r->path, path, n);
	r->path_loc = (uint32_t)n << 16 | SNOOP_OPEN_FIXED;
	return SNOOP_PREFIX + SNOOP_OPEN_FIXED + n;
}

/* An event over a decoded payload, as the pipeline makes it. */
static void as_event(struct strobe_formats *f, struct strobe_event *ev, const uint8_t *out,
		     uint32_t size, uint64_t ts, int cpu)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts = ts;
	ev->cpu = cpu;
	ev->data = out;
	ev->size = size;
	ev->type = out[0] | out[1] << 8;
	ev->pid = (int)(out[4] | out[5] << 8 | out[6] << 16 | (uint32_t)out[7] << 24);
	ev->format = strobe_formats_by_id(f, ev->type);
}

static void test_bpf_declare_gives_formats_above_the_kernels(void)
{
	struct strobe_formats *f = catalogue();
	struct strobe_error err = { 0, "" };
	const struct strobe_format *o, *x;
	struct strobe_field_info fi;
	struct strobe_field fd;

	REQUIRE(f);
	CHECK_EQ(strobe_bpf_declare(NULL, f, &err), 0);
	o = strobe_formats_find(f, "strobe_bpf", "open");
	x = strobe_formats_find(f, "strobe_bpf", "exec");
	REQUIRE(o && x);
	CHECK(strobe_format_id(o) > 316 && strobe_format_id(x) > 316);
	CHECK(strobe_format_id(o) != strobe_format_id(x));
	CHECK_EQ(strobe_format_nr_fields(o), 10);
	CHECK_EQ(strobe_format_nr_fields(x), 9);
	CHECK_EQ(strobe_format_field(o, 9, &fi), 0);
	CHECK_STR(fi.name, "path");
	CHECK(fi.is_string && fi.field.is_dynamic);
	CHECK_EQ(strobe_field_resolve(o, "ret", &fd), 0);
	CHECK(fd.is_signed && fd.size == 8 && fd.offset == 16);
	CHECK_EQ(strobe_field_resolve(x, "args", &fd), 0);
	CHECK(fd.is_dynamic && fd.offset == SNOOP_EXEC_FIXED - 4);
	/* the format text is tracefs's, so a trace file can carry it */
	CHECK(strstr(strobe_format_text(o), "field:__data_loc char[] path;"));
	/* twice: the names are taken */
	CHECK_EQ(strobe_bpf_declare(NULL, f, &err), -EEXIST);
	strobe_formats_free(f);
}

static void test_bpf_decode_open_record_reads_as_an_event(void)
{
	struct strobe_formats *f = catalogue();
	struct snoop_open *r = calloc(1, sizeof(*r));
	uint8_t out[8192];
	struct strobe_event ev;
	struct strobe_field fd;
	const char *s;
	uint64_t ts;
	uint32_t size, n;
	int cpu;
	size_t len;

	REQUIRE(f && r);
	REQUIRE(strobe_bpf_declare(NULL, f, NULL) == 0);
	len = open_rec(r, "/missing/path", -2);
	CHECK_EQ(strobe_bpf_decode(f, r, len, out, sizeof(out), &ts, &cpu, &size), 1);
	CHECK_EQ(ts, 123456789);
	CHECK_EQ(cpu, 1);
	CHECK_EQ(size, SNOOP_OPEN_FIXED + 14);
	as_event(f, &ev, out, size, ts, cpu);
	REQUIRE(ev.format);
	CHECK_STR(strobe_format_name(ev.format), "open");
	CHECK_EQ(ev.pid, 4242);
	strobe_field_resolve(ev.format, "ret", &fd);
	CHECK_EQ(strobe_field_int(&ev, &fd), -2);
	strobe_field_resolve(ev.format, "tgid", &fd);
	CHECK_EQ(strobe_field_int(&ev, &fd), 4240);
	strobe_field_resolve(ev.format, "flags", &fd);
	CHECK_EQ(strobe_field_uint(&ev, &fd), 0101);
	strobe_field_resolve(ev.format, "dfd", &fd);
	CHECK_EQ(strobe_field_int(&ev, &fd), -100);
	strobe_field_resolve(ev.format, "path", &fd);
	s = strobe_field_str(&ev, &fd, &n);
	REQUIRE(s);
	CHECK_EQ(n, 14);
	CHECK_STR(s, "/missing/path");
	strobe_field_resolve(ev.format, "comm", &fd);
	CHECK_STR(strobe_field_str(&ev, &fd, NULL), "cat");
	/* a path of the longest length the kernel side sends */
	memset(r->path, 'a', SNOOP_PATH_MAX - 1);
	r->path[SNOOP_PATH_MAX - 1] = '\0';
	r->path_loc = (uint32_t)SNOOP_PATH_MAX << 16 | SNOOP_OPEN_FIXED;
	CHECK_EQ(strobe_bpf_decode(f, r, SNOOP_PREFIX + SNOOP_OPEN_FIXED + SNOOP_PATH_MAX, out,
				   sizeof(out), &ts, &cpu, &size), 1);
	CHECK_EQ(size, SNOOP_OPEN_FIXED + SNOOP_PATH_MAX);
	free(r);
	strobe_formats_free(f);
}

static void test_bpf_decode_exec_record_keeps_argv_and_cut(void)
{
	static const char args[] = "/bin/busybox\0echo\0two words\0";
	struct strobe_formats *f = catalogue();
	struct snoop_exec *r = calloc(1, sizeof(*r));
	uint8_t out[8192];
	struct strobe_event ev;
	struct strobe_field fd;
	const char *s;
	uint64_t ts;
	uint32_t size, n;
	int cpu;

	REQUIRE(f && r);
	REQUIRE(strobe_bpf_declare(NULL, f, NULL) == 0);
	r->ts = 5;
	r->c.common_type = SNOOP_KIND_EXEC;
	r->c.common_pid = 7;
	r->tgid = 7;
	r->ppid = 1;
	r->argc = 3;
	r->cut = 1;
	memcpy(r->args, args, sizeof(args) - 1);
	r->args_loc = (uint32_t)(sizeof(args) - 1) << 16 | SNOOP_EXEC_FIXED;
	CHECK_EQ(strobe_bpf_decode(f, r, SNOOP_PREFIX + SNOOP_EXEC_FIXED + sizeof(args) - 1, out,
				   sizeof(out), &ts, &cpu, &size), 1);
	as_event(f, &ev, out, size, ts, cpu);
	REQUIRE(ev.format);
	CHECK_STR(strobe_format_name(ev.format), "exec");
	strobe_field_resolve(ev.format, "args", &fd);
	s = strobe_field_str(&ev, &fd, &n);
	REQUIRE(s);
	CHECK_EQ(n, sizeof(args) - 1);
	CHECK(!memcmp(s, args, n));
	strobe_field_resolve(ev.format, "cut", &fd);
	CHECK_EQ(strobe_field_uint(&ev, &fd), 1);
	strobe_field_resolve(ev.format, "argc", &fd);
	CHECK_EQ(strobe_field_uint(&ev, &fd), 3);
	free(r);
	strobe_formats_free(f);
}

static void test_bpf_decode_sync_record_names_call_and_file(void)
{
	struct strobe_formats *f = catalogue();
	struct snoop_sync *r = calloc(1, sizeof(*r));
	static const char path[] = "/var/lib/db/wal";
	uint8_t out[8192];
	struct strobe_event ev;
	struct strobe_field fd;
	uint64_t ts;
	uint32_t size, n;
	int cpu;

	REQUIRE(f && r);
	REQUIRE(strobe_bpf_declare(NULL, f, NULL) == 0);
	r->ts = 5;
	r->cpu = 0;
	r->c.common_type = SNOOP_KIND_SYNC;
	r->c.common_pid = 77;
	r->tgid = 70;
	r->ret = 0;
	r->lat = 1500000;
	r->call = SNOOP_CALL_FDATASYNC;
	r->fd = 7;
	memcpy(r->path, path, sizeof(path));
	r->path_loc = (uint32_t)sizeof(path) << 16 | SNOOP_SYNC_FIXED;
	CHECK_EQ(strobe_bpf_decode(f, r, SNOOP_PREFIX + SNOOP_SYNC_FIXED + sizeof(path), out,
				   sizeof(out), &ts, &cpu, &size), 1);
	CHECK_EQ(size, SNOOP_SYNC_FIXED + sizeof(path));
	as_event(f, &ev, out, size, ts, cpu);
	REQUIRE(ev.format);
	CHECK_STR(strobe_format_name(ev.format), "sync");
	CHECK_EQ(ev.pid, 77);
	strobe_field_resolve(ev.format, "call", &fd);
	CHECK_EQ(strobe_field_uint(&ev, &fd), SNOOP_CALL_FDATASYNC);
	strobe_field_resolve(ev.format, "fd", &fd);
	CHECK_EQ(strobe_field_int(&ev, &fd), 7);
	strobe_field_resolve(ev.format, "lat", &fd);
	CHECK_EQ(strobe_field_uint(&ev, &fd), 1500000);
	strobe_field_resolve(ev.format, "path", &fd);
	CHECK_STR(strobe_field_str(&ev, &fd, &n), path);
	CHECK_EQ(n, sizeof(path));
	/* a path without its NUL is not one the kernel side made */
	r->path[sizeof(path) - 1] = 'x';
	CHECK_EQ(strobe_bpf_decode(f, r, SNOOP_PREFIX + SNOOP_SYNC_FIXED + sizeof(path), out,
				   sizeof(out), &ts, &cpu, &size), 0);
	free(r);
	strobe_formats_free(f);
}

static void test_bpf_decode_tcp_record_is_its_fixed_part(void)
{
	struct strobe_formats *f = catalogue();
	struct snoop_tcp r;
	uint8_t out[256], b[16];
	struct strobe_event ev;
	struct strobe_field lo, hi;
	uint64_t ts, v[2];
	uint32_t size;
	int cpu;

	REQUIRE(f);
	REQUIRE(strobe_bpf_declare(NULL, f, NULL) == 0);
	memset(&r, 0, sizeof(r));
	r.ts = 9;
	r.c.common_type = SNOOP_KIND_TCP;
	r.family = 10;
	r.state = 1;
	r.sport = 43512;
	r.dport = 5432;
	r.daddr[15] = 1;		/* ::1 */
	r.cgroup = 1234;
	CHECK_EQ(strobe_bpf_decode(f, &r, SNOOP_PREFIX + SNOOP_TCP_FIXED, out, sizeof(out), &ts,
				   &cpu, &size), 1);
	CHECK_EQ(size, SNOOP_TCP_FIXED);
	as_event(f, &ev, out, size, ts, cpu);
	REQUIRE(ev.format);
	CHECK_STR(strobe_format_name(ev.format), "tcp_retransmit");
	strobe_field_resolve(ev.format, "dport", &lo);
	CHECK_EQ(strobe_field_uint(&ev, &lo), 5432);
	strobe_field_resolve(ev.format, "cgroup", &lo);
	CHECK_EQ(strobe_field_uint(&ev, &lo), 1234);
	/* the address's bytes come back from the two halves */
	strobe_field_resolve(ev.format, "daddr_hi", &hi);
	strobe_field_resolve(ev.format, "daddr_lo", &lo);
	v[0] = strobe_field_uint(&ev, &hi);
	v[1] = strobe_field_uint(&ev, &lo);
	memcpy(b, v, 16);
	CHECK_EQ(memcmp(b, r.daddr, 16), 0);
	/* one byte more or less is not a record the kernel side made */
	CHECK_EQ(strobe_bpf_decode(f, &r, SNOOP_PREFIX + SNOOP_TCP_FIXED - 1, out, sizeof(out),
				   &ts, &cpu, &size), 0);
	CHECK_EQ(strobe_bpf_decode(f, &r, SNOOP_PREFIX + SNOOP_TCP_FIXED + 1, out, sizeof(out),
				   &ts, &cpu, &size), 0);
	strobe_formats_free(f);
}

static void test_bpf_decode_skips_records_it_did_not_make(void)
{
	struct strobe_formats *f = catalogue(), *bare = catalogue();
	struct snoop_open *r = calloc(1, sizeof(*r));
	uint8_t out[8192];
	uint64_t ts;
	uint32_t size;
	int cpu;
	size_t len;

	REQUIRE(f && bare && r);
	REQUIRE(strobe_bpf_declare(NULL, f, NULL) == 0);
	len = open_rec(r, "/x", -2);
#define DEC(l) strobe_bpf_decode(f, r, (l), out, sizeof(out), &ts, &cpu, &size)
	CHECK_EQ(DEC(len), 1);
	CHECK_EQ(DEC(0), 0);				/* empty */
	CHECK_EQ(DEC(SNOOP_PREFIX + 4), 0);		/* shorter than the header */
	CHECK_EQ(DEC(SNOOP_PREFIX + SNOOP_OPEN_FIXED - 1), 0);	/* cut in the fields */
	CHECK_EQ(DEC(len - 1), 0);			/* the string runs past the end */
	r->c.common_type = 99;				/* a kind it never sends */
	CHECK_EQ(DEC(len), 0);
	r->c.common_type = SNOOP_KIND_OPEN;
	r->path_loc = 3u << 16 | (SNOOP_OPEN_FIXED - 8);	/* pointing into the fields */
	CHECK_EQ(DEC(len), 0);
	r->path_loc = 0u << 16 | SNOOP_OPEN_FIXED;	/* an empty path has its NUL */
	CHECK_EQ(DEC(len), 0);
	r->path_loc = 3u << 16 | SNOOP_OPEN_FIXED;
	r->path[2] = 'y';				/* no NUL at its end */
	CHECK_EQ(DEC(len), 0);
	r->path[2] = '\0';
	CHECK_EQ(DEC(len), 1);
	CHECK_EQ(DEC(SNOOP_PREFIX + SNOOP_OPEN_FIXED + SNOOP_PATH_MAX + 1), 0);	/* too long */
	/* no room, and a catalogue without the formats */
	CHECK_EQ(strobe_bpf_decode(f, r, len, out, 10, &ts, &cpu, &size), -ENOSPC);
	CHECK_EQ(strobe_bpf_decode(bare, r, len, out, sizeof(out), &ts, &cpu, &size), -ENOENT);
#undef DEC
	free(r);
	strobe_formats_free(f);
	strobe_formats_free(bare);
}

static void test_bpf_open_answers_without_crashing(void)
{
	struct strobe_bpf_opts o = { .size = sizeof(o), .clock = "local" };
	struct strobe_error err = { 0, "" };
	struct strobe_bpf *b = (struct strobe_bpf *)1;
	int r;

	/* a clock BPF cannot read is refused before anything is loaded */
	r = strobe_bpf_open(&o, &b, &err);
	CHECK(r == -EINVAL || r == -ENOTSUP);
	CHECK(b == NULL);
	CHECK(err.msg[0]);
	if (!strobe_bpf_built())
		CHECK(strstr(err.msg, "without BPF"));
	strobe_bpf_close(NULL);
}

TESTS(T(test_bpf_declare_gives_formats_above_the_kernels),
      T(test_bpf_decode_open_record_reads_as_an_event),
      T(test_bpf_decode_exec_record_keeps_argv_and_cut),
      T(test_bpf_decode_sync_record_names_call_and_file),
      T(test_bpf_decode_tcp_record_is_its_fixed_part),
      T(test_bpf_decode_skips_records_it_did_not_make),
      T(test_bpf_open_answers_without_crashing))
