/*
 * test_api_handles.c - the public handles that keep libtraceevent out of
 * include/strobe/: the format catalogue (struct strobe_formats, struct
 * strobe_format, field lists) and the text buffer writers append to
 * (struct strobe_buf).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "formats.h"
#include "test.h"
#include "format/format-int.h"
#include "util/opts.h"

static const char fmt_switch[] =
	"name: sched_switch\nID: 372\nformat:\n" FMT_COMMON FMT_SWITCH_FIELDS
	"print fmt: \"prev_pid=%d\", REC->prev_pid\n";
static const char fmt_enter[] =
	"name: sys_enter\nID: 21\nformat:\n" FMT_COMMON FMT_SYS_ENTER_FIELDS
	"print fmt: \"NR %ld\", REC->id\n";
static const char fmt_exec[] =
	"name: sched_process_exec\nID: 310\nformat:\n" FMT_COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:const char * ptr;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"filename=%s\", __get_str(filename)\n";

static struct strobe_formats *catalogue(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, fmt_switch, sizeof(fmt_switch) - 1, "sched") ||
	    tep_parse_event(tep, fmt_enter, sizeof(fmt_enter) - 1, "raw_syscalls") ||
	    tep_parse_event(tep, fmt_exec, sizeof(fmt_exec) - 1, "sched")) {
		tep_free(tep);
		return NULL;
	}
	tep_register_comm(tep, "bash", 1234);
	return strobe_formats_adopt(tep);
}

static int count_each(const struct strobe_format *fmt, void *arg)
{
	int *ids = arg;

	ids[ids[0] + 1] = strobe_format_id(fmt);
	ids[0]++;
	return ids[0] == 2 ? 7 : 0;	/* stop after two: 7 comes back */
}

static void test_formats_find_by_name_and_id(void)
{
	struct strobe_formats *f = catalogue();
	const struct strobe_format *sw, *en;
	int ids[4] = { 0 };

	REQUIRE(f);
	sw = strobe_formats_find(f, "sched", "sched_switch");
	REQUIRE(sw);
	CHECK_STR(strobe_format_name(sw), "sched_switch");
	CHECK_STR(strobe_format_system(sw), "sched");
	CHECK_EQ(strobe_format_id(sw), 372);
	/* one handle per type: by id gives the same pointer, every time */
	CHECK(strobe_formats_by_id(f, 372) == sw);
	CHECK(strobe_formats_find(f, NULL, "sched_switch") == sw);
	en = strobe_formats_by_id(f, 21);
	CHECK(en && !strcmp(strobe_format_system(en), "raw_syscalls"));
	CHECK(strobe_formats_find(f, "sched", "sys_enter") == NULL);
	CHECK(strobe_formats_by_id(f, 22) == NULL);
	CHECK(strobe_formats_by_id(f, 22) == NULL);	/* remembered as absent */
	CHECK(strobe_formats_by_id(f, -1) == NULL);
	CHECK(strobe_formats_by_id(f, 70000) == NULL);
	CHECK_EQ(strobe_formats_max_id(f), 372);
	CHECK_EQ(strobe_formats_each(f, count_each, ids), 7);
	CHECK_EQ(ids[0], 2);
	CHECK_EQ(ids[1], 21);	/* id order */
	CHECK_EQ(ids[2], 310);
	CHECK_STR(strobe_formats_comm(f, 1234), "bash");
	CHECK(strobe_formats_comm(f, 4321) == NULL);
	/* NULL handles are answered, not crashed on */
	CHECK(strobe_format_name(NULL) == NULL);
	CHECK_EQ(strobe_format_id(NULL), -1);
	CHECK_EQ(strobe_formats_max_id(NULL), -1);
	CHECK(strobe_formats_find(NULL, "sched", "sched_switch") == NULL);
	strobe_formats_free(f);
}

static void test_format_field_list(void)
{
	struct strobe_formats *f = catalogue();
	const struct strobe_format *sw, *ex;
	struct strobe_field_info fi;
	struct strobe_field fl;

	REQUIRE(f);
	sw = strobe_formats_find(f, "sched", "sched_switch");
	ex = strobe_formats_find(f, "sched", "sched_process_exec");
	REQUIRE(sw && ex);
	CHECK_EQ(strobe_format_nr_fields(sw), 7);	/* common_* left out */
	CHECK_EQ(strobe_format_field(sw, 0, &fi), 0);
	CHECK_STR(fi.name, "prev_comm");
	CHECK(fi.is_string && fi.is_array && !fi.is_pointer);
	CHECK_EQ(fi.field.offset, 8);
	CHECK_EQ(fi.field.size, 16);
	CHECK_EQ(fi.elem_size, 1);
	CHECK_EQ(strobe_format_field(sw, 3, &fi), 0);
	CHECK_STR(fi.name, "prev_state");
	CHECK_STR(fi.type, "long");
	CHECK(fi.field.is_signed && !fi.is_array && !fi.is_string);
	CHECK_EQ(fi.elem_size, 8);
	CHECK_EQ(strobe_format_field(sw, 7, &fi), -ENOENT);
	CHECK_EQ(strobe_format_field(sw, -1, &fi), -ENOENT);

	CHECK_EQ(strobe_format_nr_fields(ex), 3);
	CHECK_EQ(strobe_format_field(ex, 0, &fi), 0);
	CHECK_STR(fi.name, "filename");
	CHECK(fi.is_string && fi.field.is_dynamic);
	CHECK_EQ(strobe_format_field(ex, 2, &fi), 0);
	CHECK(fi.is_pointer && !fi.is_string);

	/* common fields resolve, unknown ones do not */
	CHECK_EQ(strobe_field_resolve(sw, "common_pid", &fl), 0);
	CHECK_EQ(fl.offset, 4);
	CHECK_EQ(strobe_field_resolve(sw, "nope", &fl), -ENOENT);
	CHECK(!fl.valid);
	CHECK_EQ(strobe_field_resolve(NULL, "prev_pid", &fl), -ENOENT);
	CHECK_EQ(strobe_format_nr_fields(NULL), 0);
	strobe_formats_free(f);
}

static void test_buf_appends_truncates_and_flushes(void)
{
	struct strobe_buf *b = strobe_buf_new();
	static const char bytes[] = { 'a', 0, 'b' };
	char got[64];
	int p[2];
	ssize_t n;

	REQUIRE(b);
	CHECK_EQ(strobe_buf_len(b), 0);
	CHECK_STR(strobe_buf_data(b), "");
	CHECK_EQ(strobe_buf_printf(b, "%d-%s", 42, "x"), 0);
	CHECK_EQ(strobe_buf_puts(b, "yz"), 0);
	CHECK_EQ(strobe_buf_putc(b, '!'), 0);
	CHECK_STR(strobe_buf_data(b), "42-xyz!");
	strobe_buf_truncate(b, 3);
	CHECK_STR(strobe_buf_data(b), "42-");
	strobe_buf_truncate(b, 100);	/* longer: nothing changes */
	CHECK_EQ(strobe_buf_len(b), 3);
	CHECK_EQ(strobe_buf_write(b, bytes, sizeof(bytes)), 0);
	CHECK_EQ(strobe_buf_len(b), 6);
	CHECK(!memcmp(strobe_buf_data(b), "42-a\0b", 6));
	CHECK(!strobe_buf_failed(b));

	REQUIRE(pipe(p) == 0);
	CHECK_EQ(strobe_buf_flush(b, p[1]), 0);
	CHECK_EQ(strobe_buf_len(b), 0);	/* flushed and emptied */
	n = read(p[0], got, sizeof(got));
	CHECK_EQ(n, 6);
	CHECK(!memcmp(got, "42-a\0b", 6));
	close(p[0]);
	strobe_buf_puts(b, "more");
	CHECK_EQ(strobe_buf_flush(b, p[0]), -EBADF);	/* a closed fd: its errno */
	CHECK_EQ(strobe_buf_len(b), 4);	/* kept for another try */
	close(p[1]);
	strobe_buf_reset(b);
	CHECK_EQ(strobe_buf_len(b), 0);
	strobe_buf_free(b);
	strobe_buf_free(NULL);
}

/* Appends that make the buffer grow keep every value (libtraceevent's
 * trace_seq_vprintf reuses its va_list on growth and prints garbage). */
static void test_buf_printf_across_growth(void)
{
	struct strobe_buf *b = strobe_buf_new();
	char big[3000];
	const char *p;
	char *end;
	long i, bad = 0;

	REQUIRE(b);
	for (i = 0; i < 5000; i++)
		CHECK_EQ(strobe_buf_printf(b, "%ld %-16.16s|", i * 1000003, "name"), 0);
	p = strobe_buf_data(b);
	for (i = 0; i < 5000; i++) {
		bad += strtol(p, &end, 10) != i * 1000003 || strncmp(end, " name            |", 18);
		p = end + 18;
	}
	CHECK_EQ(bad, 0);
	/* one item longer than the formatting buffer */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strobe_buf_reset(b);
	CHECK_EQ(strobe_buf_printf(b, "<%s>%d", big, 7), 0);
	CHECK_EQ(strobe_buf_len(b), sizeof(big) + 2);
	CHECK(!strcmp(strobe_buf_data(b) + sizeof(big) + 1, "7"));
	strobe_buf_free(b);
}

/* Options structs from older and newer callers. */
struct opts_v2 {
	size_t size;
	int a, b;
	long c;
};
struct opts_v1 {
	size_t size;
	int a;
};

static void test_opts_copy_by_size(void)
{
	struct opts_v2 got, full = { 0, 1, 2, 3 };
	struct opts_v1 old;
	struct { struct opts_v2 v2; long extra; } newer = { { 0, 4, 5, 6 }, 99 };

	/* callers zero their struct, padding included (as libbpf's OPTS) */
	memset(&old, 0, sizeof(old));
	old.size = sizeof(old);
	old.a = 7;

	memset(&got, 0x5a, sizeof(got));
	strobe_opts_copy(&got, sizeof(got), &full);	/* size 0: ours */
	CHECK(got.size == sizeof(got) && got.a == 1 && got.b == 2 && got.c == 3);
	memset(&got, 0x5a, sizeof(got));
	strobe_opts_copy(&got, sizeof(got), &old);	/* older: the rest zero */
	CHECK(got.size == sizeof(got) && got.a == 7 && got.b == 0 && got.c == 0);
	newer.v2.size = sizeof(newer);
	strobe_opts_copy(&got, sizeof(got), &newer);	/* newer: known part */
	CHECK(got.size == sizeof(got) && got.a == 4 && got.b == 5 && got.c == 6);
	strobe_opts_copy(&got, sizeof(got), NULL);
	CHECK(got.size == sizeof(got) && got.a == 0 && got.c == 0);
	full.size = 3;					/* less than the size field */
	strobe_opts_copy(&got, sizeof(got), &full);
	CHECK(got.size == sizeof(got) && got.a == 0);
}

static void test_cpu_list_parse(void)
{
	struct strobe_error err = { 0 };
	bool m[8] = { false };

	CHECK_EQ(strobe_cpu_list_parse("0,2-3,7", m, 8, &err), 0);
	CHECK(m[0] && !m[1] && m[2] && m[3] && !m[4] && m[7]);
	CHECK_EQ(strobe_cpu_list_parse("8", m, 8, &err), -EINVAL);	/* >= max */
	CHECK_STR(err.msg, "bad CPU list item '8' (expected N or N-M, N < 8)");
	CHECK_EQ(strobe_cpu_list_parse("3-1", m, 8, &err), -EINVAL);
	CHECK_EQ(strobe_cpu_list_parse("1-", m, 8, &err), -EINVAL);
	CHECK_EQ(strobe_cpu_list_parse("+1", m, 8, &err), -EINVAL);
	CHECK_EQ(strobe_cpu_list_parse("", m, 8, &err), -EINVAL);
	CHECK_STR(err.msg, "empty CPU list");
	CHECK(!m[1] && !m[4]);	/* failures set nothing new here */
}

static void test_json_escape_into_a_buf(void)
{
	struct strobe_buf *b = strobe_buf_new();

	REQUIRE(b);
	CHECK_EQ(strobe_json_escape(b, "a\"b\n", 4), 0);
	CHECK_STR(strobe_buf_data(b), "\"a\\\"b\\n\"");
	strobe_buf_free(b);
}

TESTS(T(test_formats_find_by_name_and_id), T(test_format_field_list),
      T(test_buf_appends_truncates_and_flushes), T(test_buf_printf_across_growth),
      T(test_opts_copy_by_size), T(test_cpu_list_parse), T(test_json_escape_into_a_buf));
