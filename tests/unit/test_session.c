/*
 * test_session.c - the pure parts of the session layer: glob matching,
 * event specification expansion (systems, globs, presets, bare event
 * names), "did you mean" suggestions, the preset table.  A fixed event
 * list stands in for the kernel's available_events.
 */
#include <errno.h>

#include <strobe/strobe.h>

#include "test.h"

static char *fake[] = {
	"block:block_rq_complete", "block:block_rq_issue",
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
	"syscalls:sys_enter_getppid", "syscalls:sys_enter_open",
	"syscalls:sys_enter_openat", "syscalls:sys_exit_getppid",
};
static const struct strobe_strv avail = { fake, sizeof(fake) / sizeof(fake[0]) };

static int expand(const char *spec, struct strobe_strv *out, struct strobe_error *err)
{
	return strobe_events_expand(&avail, spec, out, err);
}

static void test_glob_match(void)
{
	CHECK(strobe_glob_match("sched:*", "sched:sched_switch"));
	CHECK(strobe_glob_match("sys_enter_open*", "sys_enter_openat"));
	CHECK(!strobe_glob_match("sys_enter_open", "sys_enter_openat"));
	CHECK(strobe_glob_match("sched_wak?ng", "sched_waking"));
}

static void test_expand_system_event_glob(void)
{
	struct strobe_strv out = { NULL, 0 };
	struct strobe_error err = { 0, "" };

	CHECK_EQ(expand("syscalls:sys_enter_open*", &out, &err), 2);
	CHECK_EQ(expand("sched:", &out, &err), 3);
	CHECK_EQ(expand("sched:*", &out, &err), 0);	/* no duplicates */
	CHECK_EQ(out.n, 5);
	strobe_strv_free(&out);
}

static void test_expand_bare_names(void)
{
	struct strobe_strv out = { NULL, 0 };
	struct strobe_error err = { 0, "" };

	CHECK_EQ(expand("block", &out, &err), 2);		/* a system */
	CHECK_EQ(expand("sched_switch", &out, &err), 1);	/* an event */
	CHECK_STR(out.v[2], "sched:sched_switch");
	strobe_strv_free(&out);
}

static void test_expand_preset_skips_missing(void)
{
	struct strobe_strv out = { NULL, 0 };
	struct strobe_error err = { 0, "" };

	/* sched preset: only 3 of its events exist in the fake list */
	CHECK_EQ(expand("sched", &out, &err), 3);
	CHECK_EQ(expand("syscalls", &out, &err), 2);
	CHECK_STR(out.v[3], "raw_syscalls:sys_enter");
	strobe_strv_free(&out);
	CHECK_EQ(expand("net", &out, &err), -ENOENT);
	CHECK(strstr(err.msg, "preset 'net'") != NULL);
	strobe_strv_free(&out);
}

static void test_unknown_event_suggestions(void)
{
	struct strobe_strv out = { NULL, 0 };
	struct strobe_error err = { 0, "" };

	CHECK_EQ(expand("sched:sched_swich", &out, &err), -ENOENT);
	CHECK_STR(err.msg, "unknown event 'sched:sched_swich' "
		  "(did you mean sched:sched_switch, sched:sched_waking?)");
	CHECK_EQ(expand("shced", &out, &err), -ENOENT);
	CHECK(strstr(err.msg, "did you mean sched") != NULL);
	CHECK_EQ(expand("zzzzzzzzzzzz:qqqqqqq", &out, &err), -ENOENT);
	CHECK(strstr(err.msg, "strobe list events") != NULL);
	CHECK_EQ(out.n, 0);
}

static void test_suggest_bare_event_name(void)
{
	const char *best[3];
	size_t n = strobe_events_suggest(&avail, "sys_enter_getpid", best, 3);

	REQUIRE(n >= 1);
	CHECK_STR(best[0], "syscalls:sys_enter_getppid");
}

static void test_preset_table(void)
{
	const struct strobe_preset *p;
	int n = 0;

	for (p = strobe_presets(); p->name; p++, n++)
		CHECK(p->events[0] != NULL && p->summary != NULL);
	CHECK_EQ(n, 8);
	CHECK(strobe_preset_find("io") != NULL);
	CHECK(strobe_preset_find("faults") != NULL);
	CHECK(strobe_preset_find("why") != NULL);
	CHECK(strobe_preset_find("bogus") == NULL);
}

TESTS(T(test_glob_match), T(test_expand_system_event_glob), T(test_expand_bare_names),
      T(test_expand_preset_skips_missing), T(test_unknown_event_suggestions),
      T(test_suggest_bare_event_name), T(test_preset_table));
