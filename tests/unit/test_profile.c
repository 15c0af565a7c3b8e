/*
 * test_profile.c - the profile consumer (profile.h) on synthetic
 * strobe_perf:sample records: a call chain (perf's context markers, the
 * kernel part then the user part, innermost first) becomes the stack
 * [container;]comm;user frames outermost first;kernel frames; user
 * frames are named from a perf-PID.map in a fake /proc (and "[unknown]
 * (module)" from a mapping with no symbols), kernel frames from kallsyms
 * text; self counts the innermost frame, total each function once per
 * sample (recursion too); the table is sorted by self; other events are
 * ignored; the groupings.  No kernel, no compiler.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/table.h>
#include <strobe/symbols.h>
#include <strobe/profile.h>

#include "test.h"
#include "tracefile_fixture.h"

static char dir[256];

static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

struct fixture {
	struct strobe_tracefile *tf;
	char *path;
	const struct strobe_format *fmt;
	struct strobe_symbols *syms;
};

static int setup(struct fixture *fx)
{
	static const struct strobe_field_decl fields[] = {
		{ "s32", "tgid", 8, 4, true },
		{ "__data_loc u64[]", "callchain", 12, 4, false },
		{ "u64", "period", 16, 8, false },
	};
	struct strobe_format_decl d = { .size = sizeof(d), .system = "strobe_perf",
					.name = "sample", .fields = fields, .nr_fields = 3 };
	struct strobe_symbols_opts so = { .size = sizeof(so) };
	struct strobe_error err = { 0 };
	char proc[300], cmd[600];

	memset(fx, 0, sizeof(*fx));
	snprintf(dir, sizeof(dir), "/tmp/strobe-test-profile-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc/77/root/tmp", dir);
	if (system(cmd) != 0)
		return -1;
	put("proc/77/status", "Name:\tapp\nNSpid:\t77\t3\n");
	put("proc/77/maps", "7f0000000000-7f0000100000 r-xp 00000000 00:00 0 \n"
	    "7f1000000000-7f1000100000 r-xp 00000000 00:00 0 /lib/libnosyms.so\n");
	put("proc/77/root/tmp/perf-3.map", "7f0000001000 100 main\n7f0000002000 100 outer\n"
	    "7f0000003000 100 inner\n");
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	so.proc = proc;
	so.kallsyms = "ffffffff81000000 T _stext\nffffffff81000100 T sys_call\n"
		      "ffffffff81000200 T do_work\nffffffff81000300 T zz_end\n";
	if (strobe_symbols_new(&so, &fx->syms, &err) < 0)
		return -1;
	fx->path = fx_write_file(NULL, fx_syscalls, 2, NULL, 0, 1);
	if (!fx->path || strobe_tracefile_open(fx->path, &fx->tf, &err) < 0)
		return -1;
	if (strobe_formats_declare(strobe_tracefile_formats(fx->tf), &d, &fx->fmt, &err) < 0)
		return -1;
	return 0;
}

static void teardown(struct fixture *fx)
{
	char cmd[600];

	strobe_tracefile_close(fx->tf);
	if (fx->path) {
		unlink(fx->path);
		free(fx->path);
	}
	strobe_symbols_free(fx->syms);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "  cannot remove %s\n", dir);
}

/* Feed one sample of tid/tgid with chain ips[0..n). */
static int feed(struct strobe_profile *p, const struct fixture *fx, int tid, int tgid,
		const uint64_t *ips, int n)
{
	uint8_t buf[24 + 64 * 8];
	struct strobe_event ev;
	uint16_t type = (uint16_t)strobe_format_id(fx->fmt);
	uint32_t loc = ((uint32_t)n * 8) << 16 | 24;
	int32_t v;
	uint64_t period = 1;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &type, 2);
	v = tid;
	memcpy(buf + 4, &v, 4);
	v = tgid;
	memcpy(buf + 8, &v, 4);
	memcpy(buf + 12, &loc, 4);
	memcpy(buf + 16, &period, 8);
	memcpy(buf + 24, ips, (size_t)n * 8);
	memset(&ev, 0, sizeof(ev));
	ev.data = buf;
	ev.size = 24 + (uint32_t)n * 8;
	ev.type = type;
	ev.pid = tid;
	ev.format = fx->fmt;
	return strobe_profile_feed(p, &ev, NULL);
}

#define K ((uint64_t)PERF_CONTEXT_KERNEL)
#define U ((uint64_t)PERF_CONTEXT_USER)

static void test_profile_stacks_self_and_total(void)
{
	struct fixture fx;
	struct strobe_profile_opts o = { .size = sizeof(o), .group_by = STROBE_FLAME_BY_CONTAINER };
	struct strobe_profile *p = NULL;
	struct strobe_table *t = NULL;
	struct strobe_buf *b = strobe_buf_new();
	/* in the kernel: do_work <- sys_call, called from inner <- outer <- main */
	const uint64_t a[] = { K, 0xffffffff81000210, 0xffffffff81000110, U, 0x7f0000003010,
			       0x7f0000002010, 0x7f0000001010 };
	/* in user space: inner <- inner (recursion) <- outer <- main */
	const uint64_t c[] = { U, 0x7f0000003020, 0x7f0000003030, 0x7f0000002020,
			       0x7f0000001020 };
	/* in a library without symbols, called from where nothing is mapped */
	const uint64_t e[] = { U, 0x7f1000000500, 0x10 };
	const union strobe_value *row;
	int i;

	REQUIRE(b);
	if (setup(&fx) < 0) {
		teardown(&fx);
		strobe_buf_free(b);
		REQUIRE(0);
	}
	o.symbols = fx.syms;
	REQUIRE(strobe_profile_new(&o, &p, NULL) == 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(feed(p, &fx, 78, 77, a, 7), 0);
	CHECK_EQ(feed(p, &fx, 77, 77, c, 5), 0);
	CHECK_EQ(feed(p, &fx, 77, 77, e, 3), 0);
	CHECK_EQ(strobe_profile_samples(p), 5);
	CHECK_EQ(strobe_flame_write_folded(strobe_profile_flame(p), b), 0);
	CHECK_STR(strobe_buf_data(b),
		  "host;77;[unknown];[unknown] (libnosyms.so) 1\n"
		  "host;77;main;outer;inner;inner 1\n"
		  "host;78;main;outer;inner;sys_call;do_work 3\n");
	CHECK_EQ(strobe_profile_table(p, 0, &t, NULL), 0);
	REQUIRE(t);
	CHECK_STR(strobe_table_name(t), "profile.functions");
	/* do_work 3 self; inner 1 self, 4 total (recursion once); main 0 self 4 total */
	row = strobe_table_row(t, 0);
	CHECK_STR(row[0].s, "do_work");
	CHECK_STR(row[1].s, "[kernel.kallsyms]");
	CHECK_EQ(row[2].i, 3);
	CHECK(row[3].d > 59.9 && row[3].d < 60.1);
	CHECK_EQ(row[4].i, 3);
	for (i = 0; i < (int)strobe_table_nr_rows(t); i++) {
		row = strobe_table_row(t, (size_t)i);
		if (!strcmp(row[0].s, "inner")) {
			CHECK_EQ(row[2].i, 1);
			CHECK_EQ(row[4].i, 4);
			CHECK_STR(row[1].s, "perf-77.map");
		} else if (!strcmp(row[0].s, "main")) {
			CHECK_EQ(row[2].i, 0);
			CHECK_EQ(row[4].i, 4);
			CHECK(row[5].d > 79.9 && row[5].d < 80.1);
		} else if (!strcmp(row[0].s, "[unknown] (libnosyms.so)")) {
			CHECK_EQ(row[2].i, 1);
			CHECK_STR(row[1].s, "libnosyms.so");
		}
	}
	/* ranked by self: do_work 3, then the 1s (by total, then name) */
	CHECK_STR(strobe_table_row(t, 1)[0].s, "inner");
	CHECK_STR(strobe_table_row(t, 2)[0].s, "[unknown] (libnosyms.so)");
	strobe_table_free(t);
	t = NULL;
	CHECK_EQ(strobe_profile_table(p, 2, &t, NULL), 0);
	CHECK_EQ(strobe_table_nr_rows(t), 2);
	strobe_table_free(t);
	strobe_profile_free(p);
	strobe_buf_free(b);
	teardown(&fx);
}

static void test_profile_groupings_and_other_events(void)
{
	struct fixture fx;
	struct strobe_profile_opts o = { .size = sizeof(o), .group_by = STROBE_FLAME_BY_THREAD,
					 .no_kernel = true };
	struct strobe_profile *p = NULL;
	struct strobe_buf *b = strobe_buf_new();
	const uint64_t a[] = { K, 0xffffffff81000210, U, 0x7f0000002010, 0x7f0000001010 };
	const uint64_t k[] = { K, 0xffffffff81000110 };
	struct strobe_event other;
	uint8_t payload[16] = { 0 };

	REQUIRE(b);
	if (setup(&fx) < 0) {
		teardown(&fx);
		strobe_buf_free(b);
		REQUIRE(0);
	}
	o.symbols = fx.syms;
	REQUIRE(strobe_profile_new(&o, &p, NULL) == 0);
	CHECK_EQ(feed(p, &fx, 78, 77, a, 5), 0);
	/* kernel only, kernel frames left out: no stack */
	CHECK_EQ(feed(p, &fx, 78, 77, k, 2), 0);
	/* an event of another format is not a sample */
	memset(&other, 0, sizeof(other));
	other.data = payload;
	other.size = sizeof(payload);
	other.format = strobe_formats_find(strobe_tracefile_formats(fx.tf), NULL, "sys_enter");
	other.type = other.format ? strobe_format_id(other.format) : 443;
	CHECK_EQ(strobe_profile_feed(p, &other, NULL), 0);
	CHECK_EQ(strobe_profile_samples(p), 2);
	CHECK_EQ(strobe_flame_write_folded(strobe_profile_flame(p), b), 0);
	CHECK_STR(strobe_buf_data(b), "78-78;[no stack] 1\n78-78;main;outer 1\n");
	strobe_profile_free(p);
	/* bad options */
	o.symbols = NULL;
	CHECK_EQ(strobe_profile_new(&o, &p, NULL), -EINVAL);
	o.symbols = fx.syms;
	o.group_by = (enum strobe_flame_group)42;
	CHECK_EQ(strobe_profile_new(&o, &p, NULL), -EINVAL);
	strobe_buf_free(b);
	teardown(&fx);
}

/* A side-band record of the recording (strobe_perf:mmap, exec, fork) as
 * the perf source writes it: tgid at 8; mmap's path __data_loc at 12,
 * start, len, pgoff, ino at 16..47, the path at 48; fork's parent at 12. */
static int feed_side(struct strobe_profile *p, const struct strobe_format *fmt, int tgid,
		     uint64_t start, uint64_t len, const char *path, int parent)
{
	uint8_t buf[128];
	struct strobe_event ev;
	uint16_t type = (uint16_t)strobe_format_id(fmt);
	int32_t v = tgid;
	uint32_t size = 12;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &type, 2);
	memcpy(buf + 4, &v, 4);
	memcpy(buf + 8, &v, 4);
	if (path) {
		uint32_t plen = (uint32_t)strlen(path) + 1, loc = plen << 16 | 48;

		memcpy(buf + 12, &loc, 4);
		memcpy(buf + 16, &start, 8);
		memcpy(buf + 24, &len, 8);
		memcpy(buf + 48, path, plen);
		size = 48 + plen;
	} else if (parent) {
		v = parent;
		memcpy(buf + 12, &v, 4);
		size = 16;
	}
	memset(&ev, 0, sizeof(ev));
	ev.data = buf;
	ev.size = size;
	ev.type = type;
	ev.pid = tgid;
	ev.format = fmt;
	return strobe_profile_feed(p, &ev, NULL);
}

/* replay_maps (strobe profile -i): a process gone from /proc is named
 * through the recording's mapping; its forked child inherits the maps;
 * an exec drops them; without replay_maps the records are ignored. */
static void test_profile_replays_recorded_maps(void)
{
	static const struct strobe_field_decl mf[] = {
		{ "s32", "tgid", 8, 4, true },
		{ "__data_loc char[]", "path", 12, 4, false },
		{ "u64", "start", 16, 8, false },
		{ "u64", "len", 24, 8, false },
		{ "u64", "pgoff", 32, 8, false },
		{ "u64", "ino", 40, 8, false },
	};
	static const struct strobe_field_decl ef[] = { { "s32", "tgid", 8, 4, true } };
	static const struct strobe_field_decl ff[] = {
		{ "s32", "tgid", 8, 4, true }, { "s32", "parent", 12, 4, true },
	};
	struct strobe_format_decl dm = { sizeof(dm), "strobe_perf", "mmap", mf, 6 };
	struct strobe_format_decl de = { sizeof(de), "strobe_perf", "exec", ef, 1 };
	struct strobe_format_decl df = { sizeof(df), "strobe_perf", "fork", ff, 2 };
	const struct strobe_format *fm = NULL, *fe = NULL, *ffk = NULL;
	struct strobe_profile_opts o = { .size = sizeof(o), .group_by = STROBE_FLAME_BY_THREAD,
					 .no_kernel = true, .replay_maps = true };
	const uint64_t a[] = { U, 0x7f2000000010 };
	struct strobe_profile *p = NULL;
	struct strobe_buf *b = strobe_buf_new();
	struct fixture fx;
	struct strobe_formats *f;

	REQUIRE(b);
	if (setup(&fx) < 0) {
		teardown(&fx);
		strobe_buf_free(b);
		REQUIRE(0);
	}
	f = strobe_tracefile_formats(fx.tf);
	REQUIRE(strobe_formats_declare(f, &dm, &fm, NULL) >= 0);
	REQUIRE(strobe_formats_declare(f, &de, &fe, NULL) >= 0);
	REQUIRE(strobe_formats_declare(f, &df, &ffk, NULL) >= 0);
	o.symbols = fx.syms;
	REQUIRE(strobe_profile_new(&o, &p, NULL) == 0);
	/* process 90 is not in the fake /proc: only the record maps it */
	CHECK_EQ(feed_side(p, fm, 90, 0x7f2000000000, 0x100000, "/lib/libgone.so", 0), 0);
	CHECK_EQ(feed(p, &fx, 90, 90, a, 2), 0);
	CHECK_EQ(feed_side(p, ffk, 91, 0, 0, NULL, 90), 0);
	CHECK_EQ(feed(p, &fx, 91, 91, a, 2), 0);
	CHECK_EQ(feed_side(p, fe, 90, 0, 0, NULL, 0), 0);
	CHECK_EQ(feed(p, &fx, 90, 90, a, 2), 0);
	CHECK_EQ(strobe_profile_samples(p), 3);
	CHECK_EQ(strobe_flame_write_folded(strobe_profile_flame(p), b), 0);
	CHECK_STR(strobe_buf_data(b), "90-90;[unknown] 1\n90-90;[unknown] (libgone.so) 1\n"
		  "91-91;[unknown] (libgone.so) 1\n");
	strobe_profile_free(p);
	/* live (replay_maps false): the records are not the profile's */
	strobe_buf_free(b);
	REQUIRE((b = strobe_buf_new()));
	o.replay_maps = false;
	REQUIRE(strobe_profile_new(&o, &p, NULL) == 0);
	CHECK_EQ(feed_side(p, fm, 92, 0x7f2000000000, 0x100000, "/lib/libgone.so", 0), 0);
	CHECK_EQ(feed(p, &fx, 92, 92, a, 2), 0);
	CHECK_EQ(strobe_flame_write_folded(strobe_profile_flame(p), b), 0);
	CHECK_STR(strobe_buf_data(b), "92-92;[unknown] 1\n");
	strobe_profile_free(p);
	strobe_buf_free(b);
	teardown(&fx);
}

TESTS(T(test_profile_stacks_self_and_total), T(test_profile_groupings_and_other_events),
      T(test_profile_replays_recorded_maps));
