/*
 * names.c - LTTng event and field names on ftrace events, and globbing.
 *
 * lttng-analyses expressions name events as LTTng's kernel tracer does;
 * strobe reads ftrace events.  Most names are the same (sched_switch,
 * irq_handler_entry, block_rq_issue); these differ:
 *
 *   syscalls:sys_enter_X / sys_exit_X    syscall_entry_X / syscall_exit_X
 *   raw_syscalls:sys_enter / sys_exit    syscall_entry_X / syscall_exit_X
 *                                        by the record's syscall number
 *                                        (x86_64 table, lib/syscalls;
 *                                        stat also as newstat ...)
 *   irq:softirq_*                        irq_softirq_*
 *   timer:hrtimer_*, timer:itimer_*      timer_hrtimer_*, timer_itimer_*
 *   kmem:mm_page_*, kmalloc, kfree ...   kmem_mm_page_*, kmem_kmalloc ...
 *   power:cpu_idle, cpu_frequency        power_cpu_idle, power_cpu_frequency
 *   net:netif_receive_skb                net_if_receive_skb
 *   irq_vectors:X                        x86_irq_vectors_X
 *
 * A literal name matches an event when it equals (or globs) its ftrace
 * name, its "system:name" or its LTTng name; $evt.$name as a value is the
 * LTTng name.  Field names: LTTng's sched_* events say tid where ftrace
 * says pid (prev_tid, next_tid, tid, parent_tid, child_tid, old_tid); on
 * those events $evt.pid is the process id of the current task, as in
 * LTTng, and $evt.$payload.pid the ftrace field.
 */
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format/format-int.h"
#include "expr/expr-int.h"
#include "syscalls/syscalls.h"

const char *expr_syscall_name(long nr)
{
	return nr >= 0 && nr < EXPR_MAX_NR ? strobe_syscall_name((int)nr) : NULL;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int expr_raw_kind(const char *sys, const char *name)
{
	if (!sys || !name || strcmp(sys, "raw_syscalls"))
		return 0;
	if (!strcmp(name, "sys_enter"))
		return 1;
	if (!strcmp(name, "sys_exit"))
		return 2;
	return 0;
}

void expr_raw_name(int raw, long nr, char *buf, size_t size)
{
	const char *n = expr_syscall_name(nr);

	snprintf(buf, size, "%s%s", raw == 1 ? "syscall_entry_" : "syscall_exit_",
		 n ? n : "unknown");
}

/* The kernel's SYSCALL_DEFINE names (which syscalls:* events and LTTng
 * use) where the uapi table differs. */
static const char *const new_names[][2] = {
	{ "stat", "newstat" }, { "fstat", "newfstat" }, { "lstat", "newlstat" },
	{ "uname", "newuname" },
};

bool expr_raw_name_alt(int raw, long nr, char *buf, size_t size)
{
	const char *n = expr_syscall_name(nr);
	size_t i;

	for (i = 0; n && i < sizeof(new_names) / sizeof(new_names[0]); i++)
		if (!strcmp(n, new_names[i][0])) {
			snprintf(buf, size, "%s%s", raw == 1 ? "syscall_entry_" : "syscall_exit_",
				 new_names[i][1]);
			return true;
		}
	return false;
}

void expr_type_name(const char *sys, const char *n, char *buf, size_t size)
{
	if (!n) {
		snprintf(buf, size, "%s", "");
		return;
	}
	if (!sys)
		sys = "";
	if (!strcmp(sys, "syscalls") && starts(n, "sys_enter_"))
		snprintf(buf, size, "syscall_entry_%s", n + 10);
	else if (!strcmp(sys, "syscalls") && starts(n, "sys_exit_"))
		snprintf(buf, size, "syscall_exit_%s", n + 9);
	else if (!strcmp(sys, "irq") && starts(n, "softirq_"))
		snprintf(buf, size, "irq_%s", n);
	else if (!strcmp(sys, "timer") && (starts(n, "hrtimer_") || starts(n, "itimer_")))
		snprintf(buf, size, "timer_%s", n);
	else if (!strcmp(sys, "kmem") && !starts(n, "kmem_"))
		snprintf(buf, size, "kmem_%s", n);
	else if (!strcmp(sys, "power") && (!strcmp(n, "cpu_idle") || !strcmp(n, "cpu_frequency")))
		snprintf(buf, size, "power_%s", n);
	else if (!strcmp(sys, "net") && !strcmp(n, "netif_receive_skb"))
		snprintf(buf, size, "net_if_receive_skb");
	else if (!strcmp(sys, "irq_vectors"))
		snprintf(buf, size, "x86_irq_vectors_%s", n);
	else
		snprintf(buf, size, "%s", n);
}

const char *strobe_expr_lttng_name(const char *system, const char *name, long nr,
				   char *buf, size_t size)
{
	int raw = expr_raw_kind(system, name);

	if (!size)
		return "";
	if (raw)
		expr_raw_name(raw, nr, buf, size);
	else
		expr_type_name(system, name, buf, size);
	return buf;
}

static bool name_is(const char *name, size_t len, int op, const char *lit)
{
	if (op == OP_GLOB)
		return expr_glob(lit, name, len);
	return strlen(lit) == len && !memcmp(name, lit, len);
}

/* Does lit name the event system:name (its LTTng name lttng)? */
static bool names_match(const char *sys, const char *name, const char *lttng, int op,
			const char *lit)
{
	char full[256];
	int n;

	if (name_is(lttng, strlen(lttng), op, lit))
		return true;
	if (!name)
		return false;
	if (name_is(name, strlen(name), op, lit))
		return true;
	n = snprintf(full, sizeof(full), "%s:%s", sys ? sys : "", name);
	return n > 0 && (size_t)n < sizeof(full) && name_is(full, (size_t)n, op, lit);
}

bool expr_type_name_matches(const struct strobe_format *fmt, const char *lttng, int op,
			    const char *lit)
{
	return names_match(fmt ? strobe_format_system(fmt) : NULL,
			   fmt ? strobe_format_name(fmt) : NULL, lttng, op, lit);
}

bool strobe_expr_name_matches(const char *system, const char *name, const char *lit, bool glob)
{
	char lttng[256];

	if (!name || !lit)
		return false;
	expr_type_name(system, name, lttng, sizeof(lttng));
	return names_match(system, name, lttng, glob ? OP_GLOB : OP_EQ, lit);
}

/* LTTng payload names of the sched_* events that ftrace calls *pid. */
static const char *const sched_tids[][2] = {
	{ "tid", "pid" }, { "prev_tid", "prev_pid" }, { "next_tid", "next_pid" },
	{ "parent_tid", "parent_pid" }, { "child_tid", "child_pid" }, { "old_tid", "old_pid" },
};

const char *expr_field_alias(const struct strobe_format *fmt, const char *name, bool *shadow)
{
	size_t i;

	*shadow = false;
	if (!fmt || !strobe_format_name(fmt) || !starts(strobe_format_name(fmt), "sched_") ||
	    (strobe_format_system(fmt) && strcmp(strobe_format_system(fmt), "sched")))
		return NULL;
	for (i = 0; i < sizeof(sched_tids) / sizeof(sched_tids[0]); i++)
		if (!strcmp(name, sched_tids[i][0]))
			return sched_tids[i][1];
	/* ftrace's "pid" is LTTng's "tid" on these events */
	if (!strcmp(name, "pid") && tep_find_field(strobe_format_tep(fmt), "pid"))
		*shadow = true;
	return NULL;
}

/* [set] at pat (after '['); returns the position after ']' and *hit, or
 * NULL when the bracket is not closed (then '[' is an ordinary character,
 * as in Python's fnmatch). */
static const char *glob_set(const char *pat, char c, bool *hit)
{
	const char *p = pat;
	bool neg = false, in = false;

	if (*p == '!') {
		neg = true;
		p++;
	}
	if (*p == ']') {		/* a leading ] is literal */
		in = c == ']';
		p++;
	}
	while (*p && *p != ']') {
		if (p[1] == '-' && p[2] && p[2] != ']') {
			if ((unsigned char)c >= (unsigned char)p[0] &&
			    (unsigned char)c <= (unsigned char)p[2])
				in = true;
			p += 3;
		} else {
			if (c == *p)
				in = true;
			p++;
		}
	}
	if (!*p)
		return NULL;
	*hit = in != neg;
	return p + 1;
}

bool expr_glob(const char *pat, const char *s, size_t len)
{
	const char *star_p = NULL;
	size_t i = 0, star_i = 0;

	/* iterative matching with backtracking to the last '*' only: linear
	 * in practice, at worst len * strlen(pat) */
	while (i < len || *pat) {
		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			star_p = pat;
			star_i = i;
			continue;
		}
		if (i < len && *pat) {
			const char *after = NULL;
			bool hit = false;

			if (*pat == '?') {
				after = pat + 1;
				hit = true;
			} else if (*pat == '[' && (after = glob_set(pat + 1, s[i], &hit))) {
				;
			} else {
				after = pat + 1;
				hit = *pat == s[i];
			}
			if (hit) {
				pat = after;
				i++;
				continue;
			}
		}
		if (!star_p || star_i >= len)
			return false;
		pat = star_p;
		i = ++star_i;
	}
	return true;
}
