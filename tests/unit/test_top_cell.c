/*
 * test_top_cell.c - the cells of `strobe top`'s interactive view
 * (top_tui_cell, cli/top-cell.c): each column type as the view prints
 * it, the unit steps (ns/us/ms/s, K/M/G, k/M), and "-" for cells with no
 * value (strobe_value_none: NaN, INT64_MIN, UINT64_MAX) and negative
 * figures.  The CLI file is compiled
 * in here: it is pure, and the unit tests link only libstrobe.
 */
#include <math.h>
#include <stdint.h>

#include "test.h"
#include "../../cli/top-cell.c"

static const char *fmt(enum strobe_col_type type, const char *key, union strobe_value v)
{
	static char buf[64];
	struct strobe_column c = { key, key, type };

	return top_tui_cell(buf, sizeof(buf), &c, &v);
}

#define D(ns) fmt(STROBE_COL_DURATION, "runq_p99", (union strobe_value){ .u = (ns) })
#define B(b, key) fmt(STROBE_COL_BYTES, key, (union strobe_value){ .u = (b) })
#define I(x, key) fmt(STROBE_COL_INT, key, (union strobe_value){ .i = (x) })
#define P(x) fmt(STROBE_COL_PERCENT, "cpu_pct", (union strobe_value){ .d = (x) })
#define R(x, key) fmt(STROBE_COL_RATE, key, (union strobe_value){ .d = (x) })
#define S(x) fmt(STROBE_COL_STR, "container", (union strobe_value){ .s = (x) })

static void test_durations_step_ns_us_ms_s(void)
{
	CHECK_STR(D(0), "0");
	CHECK_STR(D(850), "850ns");
	CHECK_STR(D(999), "999ns");
	CHECK_STR(D(1000), "1.0us");
	CHECK_STR(D(3400), "3.4us");
	CHECK_STR(D(12000), "12us");
	CHECK_STR(D(12499), "12us");
	CHECK_STR(D(999499), "999us");
	CHECK_STR(D(999500), "1.0ms");	/* not "1000us" */
	CHECK_STR(D(3400000), "3.4ms");
	CHECK_STR(D(250000000), "250ms");
	CHECK_STR(D(1200000000), "1.2s");
	CHECK_STR(D(95000000000ULL), "95s");
	CHECK_STR(D(STROBE_VALUE_NONE_U), "-");
}

static void test_bytes_in_binary_units(void)
{
	CHECK_STR(B(0, "read_bps"), "0");
	CHECK_STR(B(512, "read_bps"), "512");
	CHECK_STR(B(1023, "read_bps"), "1023");
	CHECK_STR(B(1024, "read_bps"), "1.0K");
	CHECK_STR(B(1536, "write_bps"), "1.5K");
	CHECK_STR(B(12 << 20, "write_bps"), "12M");
	CHECK_STR(B(1048064, "read_bps"), "1.0M");	/* 1023.5 K: not "1024K" */
	CHECK_STR(B(3ULL << 30, "mem_bytes"), "3.0G");
	CHECK_STR(B(5ULL << 40, "mem_bytes"), "5.0T");
	CHECK_STR(B(STROBE_VALUE_NONE_U, "mem_bytes"), "-");
	CHECK_STR(B((uint64_t)-1, "read_bps"), "-");
}

static void test_counts_per_second_and_ids(void)
{
	CHECK_STR(I(0, "syscalls_ps"), "0");
	CHECK_STR(I(950, "syscalls_ps"), "950");
	CHECK_STR(I(99999, "syscalls_ps"), "99999");
	CHECK_STR(I(123456, "syscalls_ps"), "123k");
	CHECK_STR(I(1234567, "switches_ps"), "1.2M");
	CHECK_STR(I(-1, "faults_ps"), "-");
	/* ids and task counts in full, however large */
	CHECK_STR(I(4194304, "pid"), "4194304");
	CHECK_STR(I(123456, "tasks"), "123456");
	CHECK_STR(I(-1, "tasks"), "-");
	CHECK_STR(I(STROBE_VALUE_NONE_I, "tasks"), "-");
}

static void test_rates_counts_and_bytes_per_second(void)
{
	CHECK_STR(R(0, "syscalls_ps"), "0");
	CHECK_STR(R(0.5, "errors_ps"), "0.5");
	CHECK_STR(R(9.96, "errors_ps"), "10");
	CHECK_STR(R(950.4, "syscalls_ps"), "950");
	CHECK_STR(R(99999.4, "syscalls_ps"), "99999");
	CHECK_STR(R(99999.6, "syscalls_ps"), "100k");
	CHECK_STR(R(1234567, "switches_ps"), "1.2M");
	CHECK_STR(R(NAN, "faults_ps"), "-");
	/* bytes per second: binary units */
	CHECK_STR(R(0, "read_bps"), "0");
	CHECK_STR(R(511.6, "read_bps"), "512");
	CHECK_STR(R(1536, "write_bps"), "1.5K");
	CHECK_STR(R(12.0 * 1048576, "write_bps"), "12M");
	CHECK_STR(R(NAN, "read_bps"), "-");
}

static void test_percent_one_decimal(void)
{
	CHECK_STR(P(0), "0.0");
	CHECK_STR(P(99.96), "100.0");
	CHECK_STR(P(12.345), "12.3");
	CHECK_STR(P(250), "250.0");	/* more than one core */
	CHECK_STR(P(NAN), "-");
}

static void test_strings_printable_or_dash(void)
{
	CHECK_STR(S("web"), "web");
	CHECK_STR(S(""), "-");
	CHECK_STR(S(NULL), "-");
	CHECK_STR(S("a\tb\x1b[2J"), "a?b?[2J");	/* no escape reaches the terminal */
}

static void test_cut_to_the_buffer(void)
{
	char buf[4];
	struct strobe_column c = { "container", "CONTAINER", STROBE_COL_STR };
	union strobe_value v = { .s = "abcdef" };

	CHECK_STR(top_tui_cell(buf, sizeof(buf), &c, &v), "abc");
	c.type = STROBE_COL_DURATION;
	v.u = 3400000;
	CHECK_STR(top_tui_cell(buf, sizeof(buf), &c, &v), "3.4");
	CHECK(top_tui_cell(buf, 0, &c, &v) == buf);
}

TESTS(T(test_durations_step_ns_us_ms_s), T(test_bytes_in_binary_units),
      T(test_counts_per_second_and_ids), T(test_rates_counts_and_bytes_per_second),
      T(test_percent_one_decimal),
      T(test_strings_printable_or_dash), T(test_cut_to_the_buffer));
