/*
 * fuzz_expr.c - libFuzzer harness for the expression language
 * (lib/expr): expressions, references, --period and --period-captures
 * definitions typed by users, and the syscall argument table stored in
 * trace files (outside input) or read from format texts.
 *
 * The first byte picks what the rest is parsed as.  What parses must
 * print, and its printed form must parse again and print the same text;
 * an expression is evaluated on synthetic events of every fixture type
 * whose payload is the input itself (so field reads, __data_loc offsets
 * and syscall numbers are arbitrary), and strobe_expr_may_match() must
 * never say "no" for a type on which the expression holds, nor
 * strobe_expr_event_names() leave such a type unnamed.  A syscall
 * table that loads must write out and load back to the same text.
 * An input starting with 'P' runs the periods engine: definitions and
 * captures ("C NAME : ...") one per line up to a blank line, then events
 * made from the remaining bytes; every period begun must be reported once
 * (closed, cut, owner gone or open at the end), after a parent that began
 * no later than it, never ending before it began.
 * An input starting with 'F' builds a selection filter
 * (strobe_expr_filter): one term per line, "0".."5" then an option's
 * value (tid, pid, comm, container, cpu, event) or else a --filter
 * expression; once compiled, its fast paths (CPU mask, thread-id set,
 * per-type verdicts) must agree on every fixture event with plain
 * evaluation of its printed expression.
 * An expression or reference that strobe_expr_check accepts for the
 * fixture catalogue never fails at evaluation for a field-or-type reason:
 * every $evt field it compares has, on some fixture type its name
 * comparisons allow (strobe_expr_event_names), a value of the kind the
 * other side needs (a string for =* and string literals, a number for
 * numbers), read with the public strobe_expr_value from a reference
 * parsed from its printed text; and evaluating it leaves no resolution
 * error (strobe_expr_error).
 * Seeds in corpus/fuzz_expr/ are lttng-analyses' documented examples and
 * table texts, each prefixed with its mode byte.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/expr.h>

#include "../unit/formats.h"
#include "../unit/formats_of.h"
#include "expr/expr-int.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:tep_parse_event\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[][2] = {
	{ "sched", "name: sched_switch\nID: 372\nformat:\n" FMT_COMMON FMT_SWITCH_FIELDS
	  "print fmt: \"prev_pid=%d\", REC->prev_pid\n" },
	{ "raw_syscalls", "name: sys_enter\nID: 443\nformat:\n" FMT_COMMON FMT_SYS_ENTER_FIELDS
	  "print fmt: \"NR %ld\", REC->id\n" },
	{ "raw_syscalls", "name: sys_exit\nID: 444\nformat:\n" FMT_COMMON FMT_SYS_EXIT_FIELDS
	  "print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n" },
	{ "sched", "name: sched_waking\nID: 702\nformat:\n" FMT_COMMON
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
	{ "irq", "name: irq_handler_entry\nID: 705\nformat:\n" FMT_COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"irq=%d\", REC->irq\n" },
	{ "sched", "name: sched_process_fork\nID: 703\nformat:\n" FMT_COMMON
	  "\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"child_pid=%d\", REC->child_pid\n" },
	{ "syscalls", "name: sys_enter_openat\nID: 802\nformat:\n" FMT_COMMON
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))\n" },
};
#define NR_FORMATS (int)(sizeof(formats) / sizeof(formats[0]))

static struct tep_handle *tep;
static struct strobe_formats *catalogue;
static const struct strobe_format *fmts[NR_FORMATS];
static struct strobe_syscall_args *sysargs;

static void setup(void)
{
	int i;

	if (tep)
		return;
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_page_size(tep, 4096);
	catalogue = strobe_formats_new(tep);
	for (i = 0; i < NR_FORMATS; i++) {
		struct tep_event *ev = NULL;

		if (tep_parse_format(tep, &ev, formats[i][1], strlen(formats[i][1]),
				     formats[i][0]))
			__builtin_trap();
		fmts[i] = strobe_formats_by_id(catalogue, ev->id);
	}
	strobe_syscall_args_new(&sysargs);
	strobe_syscall_args_add_formats(sysargs, catalogue);
}

static int task(void *arg, int tid, struct strobe_expr_task *t)
{
	(void)arg;
	if (tid & 1)
		return -1;
	t->pid = tid | 1;
	t->procname = "fuzz";
	t->container = tid & 2 ? "web" : "host";
	return 0;
}

static void round_trip(struct strobe_expr *e, bool ref)
{
	struct strobe_expr *e2 = NULL;
	size_t n = strobe_expr_print(e, NULL, 0);
	char *a = malloc(n + 1), *b;

	if (!a)
		return;
	if (strobe_expr_print(e, a, n + 1) != n || strlen(a) != n)
		__builtin_trap();
	if ((ref ? strobe_expr_parse_ref(a, 0, &e2, NULL) : strobe_expr_parse(a, 0, &e2, NULL)) < 0)
		__builtin_trap();	/* what prints must parse */
	b = malloc(n + 1);
	if (b && (strobe_expr_print(e2, b, n + 1) != n || strcmp(a, b)))
		__builtin_trap();	/* ... to the same text */
	free(a);
	free(b);
	strobe_expr_free(e2);
}

/* *ev: an event of fixture type i (NR_FORMATS: an unknown type) whose
 * payload (PAYLOAD bytes, the input's first bytes) starts with its type. */
#define PAYLOAD 128
static void fixture_event(struct strobe_event *ev, uint8_t *payload, int i, size_t size)
{
	memset(ev, 0, sizeof(*ev));
	ev->format = i < NR_FORMATS ? fmts[i] : NULL;
	ev->type = ev->format ? strobe_format_id(ev->format) : 4242;
	payload[0] = (uint8_t)ev->type;
	payload[1] = (uint8_t)(ev->type >> 8);
	ev->data = payload;
	ev->size = (uint32_t)(size < PAYLOAD ? (size < 8 ? 8 : size) : PAYLOAD);
}

/* The names strobe_expr_event_names reported. */
struct names {
	const char *lit[32];
	bool glob[32];
	int n;
	bool overflow;
};

static int note_name(void *arg, const char *lit, bool glob)
{
	struct names *nm = arg;

	if (nm->n == 32) {
		nm->overflow = true;
		return 0;
	}
	nm->lit[nm->n] = lit;
	nm->glob[nm->n++] = glob;
	return 0;
}

/* An expression that says it holds only for the events it names must
 * name every (non-raw) event it holds for: a live run enables those. */
static bool named(const struct names *nm, const struct strobe_format *fmt)
{
	const char *sys = fmt ? strobe_format_system(fmt) : NULL;
	int i;

	if (!fmt || nm->overflow || (sys && !strcmp(sys, "raw_syscalls")))
		return true;	/* raw records: named per syscall number */
	for (i = 0; i < nm->n; i++)
		if (strobe_expr_name_matches(sys, strobe_format_name(fmt), nm->lit[i], nm->glob[i]))
			return true;
	return false;
}

static void evaluate(struct strobe_expr *e, const uint8_t *data, size_t size)
{
	struct names nm = { .n = 0 };
	bool determined = strobe_expr_event_names(e, note_name, &nm) == 1;
	struct strobe_expr_env env = { task, NULL };
	uint8_t payload[PAYLOAD];
	struct strobe_event ev;
	struct strobe_expr_match m;
	struct strobe_expr_value v;
	char buf[64];
	int i;

	memset(payload, 0, sizeof(payload));
	memcpy(payload, data, size < sizeof(payload) ? size : sizeof(payload));
	for (i = 0; i <= NR_FORMATS; i++) {
		bool hit;

		fixture_event(&ev, payload, i, size);
		ev.pid = (int)size;
		ev.cpu = (int)(size & 3);
		ev.ts = size * 1000;
		memset(&m, 0, sizeof(m));
		m.evt.ev = &ev;
		m.begin.ev = &ev;
		m.parent_begin.ev = size & 1 ? &ev : NULL;
		strobe_expr_value(e, &env, &m, &v, buf, sizeof(buf));
		if (v.type == STROBE_EXPR_VAL_STR && v.len && !v.s)
			__builtin_trap();
		hit = strobe_expr_match_event(e, size & 2 ? &env : NULL, &ev);
		if (hit && !strobe_expr_may_match(e, ev.format))
			__builtin_trap();	/* a subscription would miss this event */
		if (hit && determined && !named(&nm, ev.format))
			__builtin_trap();	/* a live run would not enable this event */
		strobe_expr_eval(e, &env, &m);
	}
}

/* Every task detail known (so that a context name always has a value). */
static int full_task(void *arg, int tid, struct strobe_expr_task *t)
{
	(void)arg;
	t->pid = t->ppid = t->vtid = t->vpid = tid;
	t->procname = "fuzz";
	t->container = "web";
	t->container_id = "abcdef";
	return 0;
}

/* Which value kinds (1 number, 2 string) reference r of e has on the
 * fixture types the name comparisons allow, raw syscall records read
 * as read (0) and openat (257). */
static unsigned kinds_on_fixtures(const struct strobe_expr *e, const struct xref *r,
				  const struct names *nm, bool determined, bool *any)
{
	struct strobe_expr_env env = { full_task, NULL };
	uint8_t payload[PAYLOAD];
	struct strobe_expr *ref = NULL;
	struct strobe_expr_match m;
	struct strobe_expr_value v;
	struct strobe_event ev;
	char text[200], buf[64];
	unsigned kinds = 0;
	int i, nr;

	expr_print_ref(r, text, sizeof(text));
	if (strobe_expr_parse_ref(text, 0, &ref, NULL) < 0)
		__builtin_trap();	/* a printed reference parses */
	strobe_expr_set_syscall_args(ref, e->sysargs);
	*any = false;
	for (i = 0; i < NR_FORMATS; i++) {
		const char *sys = strobe_format_system(fmts[i]);

		if (determined && !named(nm, fmts[i]))
			continue;
		/* raw records count as named (per syscall number): they
		 * alone do not say the check had a type to look at */
		*any |= !determined || !sys || strcmp(sys, "raw_syscalls");
		for (nr = 0; nr <= 257; nr += 257) {
			memset(payload, 0, sizeof(payload));
			fixture_event(&ev, payload, i, PAYLOAD);
			payload[8] = (uint8_t)nr;	/* raw_syscalls' id */
			payload[9] = (uint8_t)(nr >> 8);
			ev.pid = 2;
			memset(&m, 0, sizeof(m));
			m.evt.ev = m.begin.ev = &ev;
			strobe_expr_value(ref, &env, &m, &v, buf, sizeof(buf));
			kinds |= v.type == STROBE_EXPR_VAL_STR ? 2 : v.type == STROBE_EXPR_VAL_NONE ?
				 0 : 1;
		}
	}
	strobe_expr_free(ref);
	return kinds;
}

/* The checker's promise (see the head). */
static void checked(const char *text, bool is_ref, const uint8_t *data, size_t size)
{
	struct strobe_expr_check_opts o = { .size = sizeof(o) };
	struct strobe_error err = { 0 };
	struct strobe_expr *e = NULL;
	struct names nm = { .n = 0 };
	bool determined, any;
	int i, side;

	if ((is_ref ? strobe_expr_parse_ref(text, 0, &e, NULL) :
	     strobe_expr_parse(text, 0, &e, NULL)) < 0)
		return;
	strobe_expr_set_syscall_args(e, sysargs);
	if (strobe_expr_check(e, catalogue, &o, &err) < 0) {
		if (err.code != -ENOMEM && !err.msg[0])
			__builtin_trap();	/* a refusal says why */
		strobe_expr_free(e);
		return;
	}
	determined = !is_ref && strobe_expr_event_names(e, note_name, &nm) == 1;
	for (i = 0; i < e->nr_nodes; i++) {
		const struct xnode *n = &e->nodes[i];

		if (n->kind != X_CMP && n->kind != X_REF)
			continue;
		for (side = 0; side < (n->kind == X_CMP ? 2 : 1); side++) {
			const struct xoperand *x = side ? &n->rhs : &n->lhs;
			const struct xoperand *y = side ? &n->lhs : &n->rhs;
			unsigned k, need;

			if (!x->is_ref || x->ref.is_name || x->ref.scope != SC_EVT)
				continue;
			k = kinds_on_fixtures(e, &x->ref, &nm, determined, &any);
			need = n->kind == X_REF || y->is_ref ? 3 : n->op == OP_GLOB ||
			       y->lit.type == STROBE_EXPR_VAL_STR ? 2 : 1;
			/* a field none of its types has, or never of the kind
			 * the comparison needs, is what the check refuses (when
			 * its names allow no type, nothing is compared) */
			if (any && !(k & need))
				__builtin_trap();
		}
	}
	evaluate(e, data, size);
	if (strobe_expr_error(e, &err) < 0 && err.code != -ENOMEM)
		__builtin_trap();	/* resolution failed on an accepted one */
	strobe_expr_free(e);
}

/* 'F': terms one per line; fast paths == the printed expression. */
static void run_filter(char *text, const uint8_t *data, size_t size)
{
	struct strobe_expr_env env = { task, NULL };
	struct strobe_expr_filter *f = NULL;
	struct strobe_expr *e = NULL;
	struct strobe_error err;
	char *line, *save = NULL, *printed;
	uint8_t payload[PAYLOAD];
	struct strobe_event ev;
	size_t need;
	int i, cpu;

	if (strobe_expr_filter_new(&f) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] >= '0' && line[0] <= '5')
			strobe_expr_filter_add_option(f, (enum strobe_expr_option)(line[0] - '0'),
						      line + 1, &err);
		else
			strobe_expr_filter_add(f, line, &err);
	}
	if (strobe_expr_filter_compile(f, &err) < 0)
		goto out;
	need = strobe_expr_filter_print(f, NULL, 0) + 1;
	printed = malloc(need);
	if (!printed)
		goto out;
	strobe_expr_filter_print(f, printed, need);
	if (need > 1 && strobe_expr_parse(printed, STROBE_EXPR_EVT_ONLY, &e, &err) < 0)
		__builtin_trap();	/* the compiled text must parse */
	free(printed);
	memset(payload, 0, sizeof(payload));
	memcpy(payload, data, size < sizeof(payload) ? size : sizeof(payload));
	for (i = 0; i <= NR_FORMATS; i++) {
		for (cpu = -1; cpu < 4; cpu++) {
			struct strobe_expr_task t = { .tid = (int)(size % 7), .pid = 3, .ppid = -1,
						      .vtid = -1, .vpid = -1, .procname = "nginx",
						      .container = "web" };
			bool want, got;

			fixture_event(&ev, payload, i, size);
			ev.pid = (int)(size % 5);
			ev.cpu = cpu;
			want = e ? strobe_expr_match_event(e, &env, &ev) : true;
			got = strobe_expr_filter_match(f, &env, &ev);
			if (want != got)
				__builtin_trap();	/* a fast path disagrees */
			strobe_expr_filter_match_task(f, &env, &ev, &t);
		}
	}
out:
	strobe_expr_free(e);
	strobe_expr_filter_free(f);
}

static void sysargs_round_trip(struct strobe_syscall_args *t)
{
	struct strobe_syscall_args *t2 = NULL;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;

	if (strobe_syscall_args_write(t, &a, &la, NULL) < 0 || strobe_syscall_args_new(&t2) < 0)
		goto out;
	if (strobe_syscall_args_parse(t2, a, la, NULL) < 0)
		__builtin_trap();
	if (strobe_syscall_args_count(t2) != strobe_syscall_args_count(t))
		__builtin_trap();
	if (strobe_syscall_args_write(t2, &b, &lb, NULL) < 0)
		goto out;
	if (la != lb || memcmp(a, b, la))
		__builtin_trap();
out:
	free(a);
	free(b);
	strobe_syscall_args_free(t2);
}

struct prun {
	uint64_t reported, last_ts;
	int depth_bad;
};

static void on_period(void *arg, const struct strobe_period *per)
{
	struct prun *r = arg;

	r->reported++;
	if (per->end_ts < per->begin_ts || (per->depth > 0) != (per->parent != NULL) ||
	    (per->parent && per->parent->begin_ts > per->begin_ts) ||
	    per->nr_begin_captures < 0 || per->nr_end_captures < 0 ||
	    (per->status != STROBE_PERIOD_CLOSED && per->nr_end_captures) ||
	    !per->name || !per->path)
		__builtin_trap();
}

/* 'P' inputs: definitions, a blank line, then 6 bytes per event. */
static void run_periods(const char *text, size_t size)
{
	struct strobe_expr_env env = { task, NULL };
	struct strobe_periods *p = NULL;
	struct strobe_periods_stats st;
	struct prun r = { 0 };
	const char *end = strstr(text, "\n\n"), *line = text;
	const uint8_t *ev_bytes;
	size_t nev, i;
	uint64_t ts = 0;

	if (strobe_periods_new(on_period, &r, &p) < 0)
		return;
	strobe_periods_set_env(p, &env);
	strobe_periods_set_syscall_args(p, sysargs);
	strobe_periods_set_max_open(p, 64);
	while (line && (!end || line < end)) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char *one = strndup(line, n);

		if (one) {
			if (one[0] == 'C' && one[1] == ' ')
				strobe_periods_capture(p, one + 2, NULL);
			else
				strobe_periods_define(p, one, NULL);
			free(one);
		}
		line = nl ? nl + 1 : NULL;
	}
	ev_bytes = end ? (const uint8_t *)end + 2 : NULL;
	nev = ev_bytes ? (size - (size_t)((const char *)ev_bytes - text)) / 6 : 0;
	for (i = 0; i < nev; i++) {
		const uint8_t *b = ev_bytes + 6 * i;
		uint8_t payload[64];
		struct strobe_event ev;

		memset(payload, 0, sizeof(payload));
		memset(&ev, 0, sizeof(ev));
		ev.format = fmts[b[0] % NR_FORMATS];
		ev.type = strobe_format_id(ev.format);
		payload[0] = (uint8_t)ev.type;
		payload[1] = (uint8_t)(ev.type >> 8);
		ev.pid = b[1] % 8;
		payload[4] = (uint8_t)ev.pid;
		/* syscall number / irq / prev_comm bytes; then an argument, ret,
		 * prev or child pid */
		payload[8] = b[2];
		payload[9] = b[3] & 1;
		payload[16] = b[4] % 8;
		payload[24] = b[4] % 8;
		payload[44] = b[4] % 8;
		payload[56] = b[5] % 8;
		ev.data = payload;
		ev.size = sizeof(payload);
		ev.cpu = b[5] & 1;
		ev.missed = (b[5] & 0xf0) == 0xf0;
		ts += b[5] >> 4;
		ev.ts = ts;
		strobe_periods_feed(p, &ev);
	}
	strobe_periods_finish(p);
	strobe_periods_stats(p, &st);
	if (st.open_now || r.reported != st.begun ||
	    st.begun != st.closed + st.open_at_end + st.cut + st.owner_gone)
		__builtin_trap();
	strobe_periods_error(p, NULL);
	strobe_periods_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_error err;
	char *text;
	int mode, i;

	if (!size)
		return 0;
	setup();
	if (data[0] == 'P') {
		text = malloc(size);
		if (text) {
			memcpy(text, data + 1, size - 1);
			text[size - 1] = '\0';
			run_periods(text, size - 1);
			free(text);
		}
		return 0;
	}
	if (data[0] == 'F') {
		text = malloc(size);
		if (text) {
			memcpy(text, data + 1, size - 1);
			text[size - 1] = '\0';
			run_filter(text, data + 1, size - 1);
			free(text);
		}
		return 0;
	}
	mode = data[0] % 6;
	data++;
	size--;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	switch (mode) {
	case 0:
	case 1: {
		struct strobe_expr *e = NULL;
		bool ref = mode == 1;

		if ((ref ? strobe_expr_parse_ref(text, 0, &e, &err) :
		     strobe_expr_parse(text, 0, &e, &err)) < 0) {
			if (err.code >= 0 || !err.msg[0])
				__builtin_trap();
			break;
		}
		round_trip(e, ref);
		evaluate(e, data, size);
		strobe_expr_set_syscall_args(e, sysargs);
		evaluate(e, data, size);
		checked(text, ref, data, size);
		strobe_expr_error(e, &err);
		strobe_expr_free(e);
		break;
	}
	case 2: {
		struct strobe_period_def *d = NULL;

		if (strobe_period_def_parse(text, &d, &err) < 0)
			break;
		if (!d->begin || !d->end || (d->parent && !d->name))
			__builtin_trap();
		round_trip(d->begin, false);
		round_trip(d->end, false);
		evaluate(d->end, data, size);
		strobe_period_def_free(d);
		break;
	}
	case 3: {
		struct strobe_period_captures *c = NULL;
		int k;

		if (strobe_period_captures_parse(text, &c, &err) < 0)
			break;
		for (i = 0; i < c->nr_begin; i++) {
			round_trip(c->begin[i].ref, true);
			for (k = 0; k < i; k++)
				if (!strcmp(c->begin[k].key, c->begin[i].key))
					__builtin_trap();
		}
		for (i = 0; i < c->nr_end; i++)
			evaluate(c->end[i].ref, data, size);
		strobe_period_captures_free(c);
		break;
	}
	case 4: {
		struct strobe_syscall_args *t = NULL;

		if (strobe_syscall_args_new(&t) < 0)
			break;
		if (strobe_syscall_args_parse(t, text, size, &err) == 0)
			sysargs_round_trip(t);
		strobe_syscall_args_free(t);
		break;
	}
	case 5: {
		struct strobe_syscall_args *t = NULL;

		if (strobe_syscall_args_new(&t) < 0)
			break;
		if (strobe_syscall_args_add_format(t, text, size, &err) == 0) {
			if (strobe_syscall_args_count(t) != 1)
				__builtin_trap();
			sysargs_round_trip(t);
		}
		strobe_syscall_args_free(t);
		break;
	}
	}
	free(text);
	return 0;
}
