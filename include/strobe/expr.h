/*
 * expr.h - the expression language of filters and periods: lttng-analyses'
 * matching expressions (its --period and --period-captures syntax), parsed
 * once into a compiled form that is evaluated per event without string
 * work.  (Implemented in lib/expr/; the language is described in
 * strobe-expr(7).)
 *
 *     $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0
 *     $evt.$name =* "irq_*_entry" && $evt.cpu_id == $parent.$begin.$evt.cpu_id
 *     $evt.container == "web" && !($evt.procname =* "kworker*")
 *
 * How evaluation stays cheap: every field reference ($evt.fd, $begin.$evt.
 * next_tid, $evt.$name ...) is resolved against an event type the first
 * time an event of that type reaches it (format field offsets through
 * strobe_field_resolve, LTTng names mapped to ftrace ones, syscall argument
 * positions for raw_syscalls records) and the result is cached in the
 * expression per event type; later events of that type cost a cache
 * lookup and the field reads.  Names compared with a literal are decided
 * per type (and, for raw_syscalls records, per syscall number) at that
 * point, so `$evt.$name == "sched_switch"` is a table lookup per event.
 *
 * A reference that names nothing on an event (no such field, no such task
 * information, no $begin event) makes every comparison that uses it false,
 * as in lttng-analyses; `!` of such a comparison is true.  A string is
 * never equal to a number.
 *
 * Threads: an expression holds its cache, so one expression is evaluated
 * by one thread at a time.  Parsing does no I/O.
 */
#ifndef STROBE_EXPR_H
#define STROBE_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_event;
struct strobe_model;
struct strobe_format;
struct strobe_formats;

/* ---- syscall argument table ------------------------------------------------
 * raw_syscalls:sys_enter records carry the syscall number and six raw
 * argument words; which word is `fd` or `count` comes from the kernel's
 * syscalls:sys_enter_<name> formats.  This table holds, per syscall name,
 * the argument names in order and how to read each word.  A recorder
 * stores its text form in the trace file; readers load it back, or build it
 * from the machine's tracefs or from the syscalls:* formats a file holds.
 */
struct strobe_syscall_args;

/* How an argument word is read (from the C type in the format). */
enum strobe_sysarg_kind {
	STROBE_SYSARG_U64 = 0,	/* unsigned long, size_t, pointers ... */
	STROBE_SYSARG_I64,	/* long, loff_t, off_t, ssize_t ... */
	STROBE_SYSARG_I32,	/* int, pid_t, clockid_t ...: low 32 bits, signed */
	STROBE_SYSARG_U32,	/* unsigned int, uid_t, umode_t ...: low 32 bits */
	STROBE_SYSARG_PTR,	/* a user pointer (its address, not what it points to) */
};

int strobe_syscall_args_new(struct strobe_syscall_args **out);
void strobe_syscall_args_free(struct strobe_syscall_args *t);	/* NULL ok */
/* Number of syscalls in the table. */
int strobe_syscall_args_count(const struct strobe_syscall_args *t);

/*
 * Add one syscall from the text of a syscalls:sys_enter_<name> format file
 * (len bytes; "name: sys_enter_openat\n ... field:int dfd; ...").  Pure.
 * Fields after __syscall_nr are the arguments, in offset order; common_*
 * fields are skipped.  Replaces an entry of the same name.  Returns 0,
 * -EINVAL when the text is not a sys_enter_ format (*err says why), or
 * -ENOMEM.
 */
int strobe_syscall_args_add_format(struct strobe_syscall_args *t, const char *text,
				   size_t len, struct strobe_error *err);
/*
 * Add every <events_dir>/syscalls/sys_enter_<name>/format (events_dir NULL
 * means /sys/kernel/tracing/events).  Returns the number added, -ENOENT
 * when there is no syscalls directory (kernel without syscall
 * tracepoints), or another -errno; a format that does not parse is
 * skipped.
 */
int strobe_syscall_args_load_tracefs(struct strobe_syscall_args *t, const char *events_dir,
				     struct strobe_error *err);
/* Add the syscalls:sys_enter_* formats of a catalogue (e.g. a trace
 * file's, strobe_tracefile_formats()).  Returns the number added or
 * -ENOMEM. */
int strobe_syscall_args_add_formats(struct strobe_syscall_args *t,
				    struct strobe_formats *fmts);

/*
 * Text form, for storing in trace files:
 *     strobe-syscall-args 1
 *     openat<TAB>dfd:i32<TAB>filename:ptr<TAB>flags:i32<TAB>mode:u32
 * one line per syscall, sorted by name.  _write allocates *out
 * (NUL-terminated, *len bytes; free() it).  _parse merges a text into t;
 * it is outside input: malformed lines are skipped.  Returns 0, -ENOMEM,
 * or for _parse -EPROTO when the first line is not "strobe-syscall-args"
 * with major version 1.
 */
int strobe_syscall_args_write(const struct strobe_syscall_args *t, char **out, size_t *len,
			      struct strobe_error *err);
int strobe_syscall_args_parse(struct strobe_syscall_args *t, const char *text, size_t len,
			      struct strobe_error *err);
/*
 * Position (0-5) of argument `arg` of syscall `name` ("openat", not
 * "sys_enter_openat"), with its kind in *kind (may be NULL); -ENOENT if
 * the table does not know that syscall or argument.
 */
int strobe_syscall_args_lookup(const struct strobe_syscall_args *t, const char *name,
			       const char *arg, enum strobe_sysarg_kind *kind);

/* ---- values and evaluation context ----------------------------------------- */

enum strobe_expr_value_type {
	STROBE_EXPR_VAL_NONE = 0,	/* missing: no such field or information */
	STROBE_EXPR_VAL_INT,	/* i (u when is_unsigned) */
	STROBE_EXPR_VAL_DOUBLE,	/* d (literals only: 1.5, 7.2e9) */
	STROBE_EXPR_VAL_STR,	/* s, len bytes, not NUL-terminated */
};

struct strobe_expr_value {
	enum strobe_expr_value_type type;
	bool is_unsigned;	/* INT: the 64 bits are unsigned (u) */
	union {
		int64_t i;
		uint64_t u;
		double d;
	};
	const char *s;		/* STR: valid until the next event (points into
				 * the payload, the task, or the expression) */
	size_t len;
};

/* What the task model says about the thread of an event. */
struct strobe_expr_task {
	int tid;		/* always known (the event's common_pid) */
	int pid;		/* thread group id, -1 unknown */
	int ppid;		/* -1 unknown */
	int vtid, vpid;		/* innermost PID namespace ids, -1 unknown */
	const char *procname;	/* comm, NULL unknown */
	const char *container;	/* container name ("host" for none), NULL unknown */
	const char *container_id;	/* its full ID, NULL for the host or unknown */
};

/*
 * Where $evt.procname, .pid, .container ... come from.  task() fills *t
 * for thread `tid` (t->tid is preset and the rest set to unknown before
 * the call); it returns 0, or < 0 when nothing is known (then only tid
 * is).  task == NULL: only tid, cpu and event fields are known.  The
 * strings must stay valid until the next event.
 */
struct strobe_expr_env {
	int (*task)(void *arg, int tid, struct strobe_expr_task *t);
	void *arg;
};

/* env->task answering from a task model (strobe_model_task): pid, ppid,
 * vtid, vpid, comm and container name.  The model must outlive env. */
void strobe_expr_env_model(struct strobe_expr_env *env, struct strobe_model *m);

/* One event as an expression sees it. */
struct strobe_expr_scope {
	const struct strobe_event *ev;	/* NULL: no such event (references
					 * to it are missing) */
	/* Task information captured when the event was seen (a period's
	 * begin event, evaluated later); NULL: ask env->task when needed. */
	const struct strobe_expr_task *task;
};

/* The events of one evaluation: $evt, $begin.$evt, $parent.$begin.$evt.
 * In a begin expression (and a plain filter) begin is the event itself. */
struct strobe_expr_match {
	struct strobe_expr_scope evt, begin, parent_begin;
};

/* ---- expressions ------------------------------------------------------------ */

struct strobe_expr;

/* strobe_expr_parse flags */
#define STROBE_EXPR_EVT_ONLY	(1u << 0)	/* only $evt (a filter): reject
						 * $begin and $parent */
#define STROBE_EXPR_NO_PARENT	(1u << 1)	/* reject $parent (a period
						 * without a parent) */

/*
 * Compile `text`.  On a syntax error returns -EINVAL with *err "column N:
 * expected X, found Y" (N counts bytes from 1).  -ENOMEM.  *out is freed
 * with strobe_expr_free.
 */
int strobe_expr_parse(const char *text, unsigned flags, struct strobe_expr **out,
		      struct strobe_error *err);
void strobe_expr_free(struct strobe_expr *e);	/* NULL ok */

/*
 * The canonical text of e into buf[size] (snprintf semantics: returns the
 * length it needs, NUL-terminates when size > 0).  Operators are spaced,
 * parentheses only where precedence needs them, literals as written, so
 * parsing the result prints the same text again.
 */
size_t strobe_expr_print(const struct strobe_expr *e, char *buf, size_t size);

/*
 * Use table t for syscall argument names on raw_syscalls records (t is
 * borrowed and must outlive e; NULL: none).  Clears the per-type cache.
 */
void strobe_expr_set_syscall_args(struct strobe_expr *e, const struct strobe_syscall_args *t);

/*
 * Does the expression hold for these events?  env may be NULL (no task
 * information).  m->evt.ev must not be NULL.  Never fails: on allocation
 * failure while caching a new event type the comparisons that needed it
 * are false and strobe_expr_error() says so.
 */
bool strobe_expr_eval(struct strobe_expr *e, const struct strobe_expr_env *env,
		      const struct strobe_expr_match *m);
/* strobe_expr_eval with $begin.$evt = $evt and no parent (filters). */
bool strobe_expr_match_event(struct strobe_expr *e, const struct strobe_expr_env *env,
			     const struct strobe_event *ev);

/*
 * Could an event of type fmt make e true as $evt (knowing only its type:
 * names compared with literals, fields that do not exist)?  false means
 * never, so a caller need not subscribe to the type.  fmt NULL: an
 * unknown event type.
 */
bool strobe_expr_may_match(struct strobe_expr *e, const struct strobe_format *fmt);
/*
 * The event names e needs, before any event type is known (what a live
 * command should enable): calls fn(arg, lit, glob) for each string that
 * $evt.$name is compared with by == (glob false) or =* (glob true), and
 * returns 1 when e can hold only for events that one of them names, 0
 * when it can also hold for others (e.g. `$evt.procname == "nginx"`: the
 * names reported, if any, are then not all it needs), or fn's negative
 * return.  strobe_expr_name_matches tells which events a name names.
 */
int strobe_expr_event_names(const struct strobe_expr *e,
			    int (*fn)(void *arg, const char *lit, bool glob), void *arg);

/*
 * The first problem met while resolving references (a syscall argument
 * name on raw_syscalls records with no argument table, out of memory), as
 * -errno with *err naming the reference; 0 when there was none.
 */
int strobe_expr_error(const struct strobe_expr *e, struct strobe_error *err);

/* ---- checking an expression against a trace ------------------------------------
 * What the trace holds decides whether an expression can mean anything:
 * checked once, before the first event, a typo is an error rather than an
 * empty result.  With the catalogue of a file, or of a live session (the
 * kernel's events):
 *
 *   - the event types an expression can match are those its $evt.$name
 *     comparisons allow (all, when it has none);
 *   - every field it reads ($evt.X, $begin.$evt.X ...) must exist, as a
 *     payload field, a common field, a context name (tid, pid, ppid,
 *     vtid, vpid, procname, comm, cpu, cpu_id, container, container_id)
 *     or a header name (timestamp, id), in at least one of the types its
 *     scope can be: else -EINVAL "column N: no field 'X' in the events it
 *     can match; did you mean 'x'?" (close names: the same letters in
 *     another case, or a few edits away);
 *   - a field compared with a literal of the other kind (`$evt.tid ==
 *     "1"`, `$evt.procname > 5`), a glob on a number field, or two
 *     fields of different kinds: -EINVAL naming the column;
 *   - a name compared with $evt.$name that no event of the catalogue
 *     has: a warning with the close names (the file may simply not hold
 *     that event); with STROBE_EXPR_CHECK_LIVE (the catalogue is the
 *     kernel's) -ENOENT.
 *
 * An expression the check accepts never compares a field that none of its
 * events has, nor a value of the wrong kind, when it is evaluated over
 * events of that catalogue.
 */
#define STROBE_EXPR_CHECK_LIVE	(1u << 0)	/* fmts is a live kernel's: an
						 * unknown event name is an error */

/* A warning of a check (msg valid during the call). */
typedef void (*strobe_expr_warn_fn)(void *arg, const char *msg);

struct strobe_expr_check_opts {
	size_t size;		/* sizeof(struct strobe_expr_check_opts), or 0 */
	unsigned flags;		/* STROBE_EXPR_CHECK_* */
	/* Put before every message: "--filter '$evt.x == 1'", "--period
	 * req begin" (NULL: nothing).  Columns count in the text e was
	 * parsed from. */
	const char *what;
	/* The event types each scope can be, as the types an expression may
	 * match: $evt (NULL: e's own; every type for a reference), $begin.
	 * $evt (NULL: as $evt: a begin expression or a filter), $parent.
	 * $begin.$evt (NULL: every type).  Borrowed for the call. */
	struct strobe_expr *evt, *begin, *parent_begin;
	strobe_expr_warn_fn warn;	/* NULL: warnings are dropped */
	void *warn_arg;
};

/*
 * Check e (an expression or a reference) against catalogue fmts (opts may
 * be NULL).  Returns 0 (warnings, if any, went to opts->warn), -EINVAL or
 * -ENOENT with *err saying what and where ("WHAT: column N: ..."), or
 * -ENOMEM.  The catalogue's syscall argument names count when
 * strobe_expr_set_syscall_args was called first.
 */
int strobe_expr_check(struct strobe_expr *e, struct strobe_formats *fmts,
		      const struct strobe_expr_check_opts *opts, struct strobe_error *err);

/* ---- value references (captures) --------------------------------------------- */

/*
 * A single reference such as `$evt.next_comm` or `$begin.$evt.$name` is
 * itself an expression (parsed with strobe_expr_parse_ref); its value is
 * read with strobe_expr_value.  Strings point into the event or the task
 * and are valid until the next event.
 */
int strobe_expr_parse_ref(const char *text, unsigned flags, struct strobe_expr **out,
			  struct strobe_error *err);
/* Value of a reference expression; STROBE_EXPR_VAL_NONE when missing or when
 * e is not a single reference.  buf (>= 64 bytes) may receive a name built
 * for raw_syscalls records (syscall_entry_<name>): s may point into it. */
void strobe_expr_value(struct strobe_expr *e, const struct strobe_expr_env *env,
		       const struct strobe_expr_match *m, struct strobe_expr_value *v,
		       char *buf, size_t bufsize);

/* ---- filters: --filter and the selection options ----------------------------
 * One compiled selection per run: every --filter EXPR and every selection
 * option (--tid, --pid, --comm, --container, --cpu, -e) becomes a term of
 * one expression, the terms ANDed.  The options are sugar: each has an
 * expression text (strobe_expr_option_text, documented in strobe-expr(7)),
 * so `strobe report --pid 7` is `strobe report --filter '$evt.$ctx.tid ==
 * 7'`.  Compiling keeps fast paths for the common terms: a term that is a
 * set of CPUs becomes a mask (strobe_expr_filter_cpu_mask, which a stream
 * uses to skip whole CPUs), a set of thread ids a sorted array, and what
 * the event type alone decides a per-type table, so selecting costs a
 * few loads on events that do not match.
 */
enum strobe_expr_option {
	STROBE_EXPR_OPT_TID,	/* "1,2": $evt.$ctx.tid == 1 || $evt.$ctx.tid == 2 */
	STROBE_EXPR_OPT_PID,	/* thread group ids: $evt.$ctx.pid == N || ... */
	STROBE_EXPR_OPT_COMM,	/* names or globs: $evt.$ctx.procname =* "x" || ... */
	STROBE_EXPR_OPT_CONTAINER,	/* names, IDs or ID prefixes (at least 4 hex
					 * digits): $evt.$ctx.container == "x" ||
					 * $evt.$ctx.container_id =* "x*" ... */
	STROBE_EXPR_OPT_CPU,	/* "0,2-3": $evt.$ctx.cpu == 0 || $evt.$ctx.cpu >= 2
				 * && $evt.$ctx.cpu <= 3 */
	STROBE_EXPR_OPT_EVENT,	/* "sched:sched_wak*": $evt.$name =* "sched:sched_wak*";
				 * "sched": $evt.$name =* "*:sched" || $evt.$name =*
				 * "sched:*" (an event or a system) */
};

/*
 * The expression text of one option's value (a comma-separated list) into
 * *out (malloc'd, free() it).  Returns 0, -EINVAL with *err naming the bad
 * item ("bad pid '1x'", "bad CPU list item ..."), or -ENOMEM.
 */
int strobe_expr_option_text(enum strobe_expr_option opt, const char *value, char **out,
			    struct strobe_error *err);

struct strobe_expr_filter;

int strobe_expr_filter_new(struct strobe_expr_filter **out);
void strobe_expr_filter_free(struct strobe_expr_filter *f);	/* NULL ok */
/*
 * Check options against a trace's formats and command lines (borrowed,
 * must outlive the adds): then an -e pattern that names no event of the
 * file is -ENOENT ("no event in the file matches 'x'"), and so is a --comm
 * name without glob characters that no saved command line holds.
 */
void strobe_expr_filter_set_formats(struct strobe_expr_filter *f, struct strobe_formats *fmts);
/*
 * Add a term, ANDed with the others: an expression ($evt scope only), or
 * an option's value.  A syntax error is -EINVAL with *err "--filter
 * 'EXPR': column N: ..." counted in `expr`.  Terms may be added until
 * _compile.
 */
int strobe_expr_filter_add(struct strobe_expr_filter *f, const char *expr,
			   struct strobe_error *err);
int strobe_expr_filter_add_option(struct strobe_expr_filter *f, enum strobe_expr_option opt,
				  const char *value, struct strobe_error *err);
/* One term that is the || of n options' values (report's --pid and --comm
 * both name tasks: a task passes if either names it). */
int strobe_expr_filter_add_any(struct strobe_expr_filter *f, const enum strobe_expr_option *opts,
			       const char *const *values, int n, struct strobe_error *err);
/*
 * Check every --filter term (strobe_expr_filter_add) against catalogue
 * fmts (NULL: the one given to strobe_expr_filter_set_formats; none:
 * nothing is checked) as strobe_expr_check does, with "--filter 'TEXT'"
 * before each message.  flags: STROBE_EXPR_CHECK_*; warnings go to warn
 * (may be NULL).  0, -EINVAL, -ENOENT (live: an unknown event) or
 * -ENOMEM.  The option terms are checked when added (set_formats).
 */
int strobe_expr_filter_check(struct strobe_expr_filter *f, struct strobe_formats *fmts,
			     unsigned flags, strobe_expr_warn_fn warn, void *warn_arg,
			     struct strobe_error *err);
/* Compile the terms into one expression and its fast paths.  A filter
 * without terms matches everything.  0, -EINVAL or -ENOMEM. */
int strobe_expr_filter_compile(struct strobe_expr_filter *f, struct strobe_error *err);
/* The compiled expression's canonical text (strobe_expr_print); "" when
 * there are no terms. */
size_t strobe_expr_filter_print(const struct strobe_expr_filter *f, char *buf, size_t size);
/*
 * The CPUs that a term of the filter restricts every match to: returns
 * the number of entries of *mask (mask[cpu] true = keep; owned by f), or
 * 0 and *mask NULL when no term does.  For struct strobe_stream_opts.
 */
int strobe_expr_filter_cpu_mask(const struct strobe_expr_filter *f, const bool **mask);
/* Does the filter read task information (pid, procname, container ...)
 * that only env->task gives?  (Then the caller needs a task model.) */
bool strobe_expr_filter_needs_task(const struct strobe_expr_filter *f);
/* Does it read this one ("procname", "pid", "container" ...: a context
 * name of $evt, or of $evt.$ctx)? */
bool strobe_expr_filter_reads(const struct strobe_expr_filter *f, const char *name);
/* Does the filter have terms other than the CPU mask's? */
bool strobe_expr_filter_selects_tasks(const struct strobe_expr_filter *f);
/* Does ev pass?  f NULL or without terms: true.  env may be NULL. */
bool strobe_expr_filter_match(struct strobe_expr_filter *f, const struct strobe_expr_env *env,
			      const struct strobe_event *ev);
/*
 * The analyses' question: does a measurement of `task` (the task it is
 * attributed to: a wake-up's target, a block request's issuer), met at
 * event ev, pass?  $evt's task references (tid, pid, procname,
 * container ...) read `task`; the rest read ev.  The CPU mask's terms are
 * left to the stream (which skipped the other CPUs).
 */
bool strobe_expr_filter_match_task(struct strobe_expr_filter *f,
				   const struct strobe_expr_env *env,
				   const struct strobe_event *ev,
				   const struct strobe_expr_task *task);

/* ---- period definitions --------------------------------------------------------- */

/* `[NAME[(PARENT)]] : BEGIN_EXPR [: END_EXPR]` */
struct strobe_period_def {
	char *name;		/* NULL when unnamed */
	char *parent;		/* NULL when no parent */
	struct strobe_expr *begin;
	struct strobe_expr *end;	/* the END_EXPR; when omitted, a second
					 * compilation of BEGIN_EXPR (lttng: the
					 * next begin match ends the period) */
};

/*
 * Parse a --period argument.  $parent references need a PARENT and must
 * be followed by $begin (lttng's rule).  Errors are -EINVAL with the
 * column in the whole text.  Free with strobe_period_def_free.
 */
int strobe_period_def_parse(const char *text, struct strobe_period_def **out,
			    struct strobe_error *err);
void strobe_period_def_free(struct strobe_period_def *d);	/* NULL ok */

struct strobe_period_capture {
	char *key;			/* KEY, or the reference's text */
	struct strobe_expr *ref;	/* a reference expression */
};

/* `NAME : [KEY =] REF, ... [: [KEY =] REF, ...]` */
struct strobe_period_captures {
	char *name;
	int nr_begin, nr_end;
	struct strobe_period_capture *begin, *end;
};

/* Parse a --period-captures argument; duplicate keys on one side are
 * -EINVAL.  Free with strobe_period_captures_free. */
int strobe_period_captures_parse(const char *text, struct strobe_period_captures **out,
				 struct strobe_error *err);
void strobe_period_captures_free(struct strobe_period_captures *c);	/* NULL ok */

/* ---- the periods engine ------------------------------------------------------------
 * lttng-analyses' period engine: definitions with parents, fed events one
 * at a time; emits every period when it ends.  Per event, in this order:
 * open periods whose end expression matches end (children before their
 * parents; a period that ends cuts its still open children), then every
 * definition whose begin expression matches opens a period (a child only
 * inside an open period of its parent, once per such parent; a child may
 * begin on the event that begins its parent).  Without an END_EXPR the
 * begin expression ends the period and begins the next.
 *
 * Cheap per event: which definitions an event type can begin or end is
 * decided once per type (strobe_expr_may_match); when an end expression
 * holds a conjunct `$evt.X == $begin.$evt.Y` (the request example's
 * `$evt.pid == $begin.$evt.pid`) open periods are indexed by their Y, so
 * an end is looked for among the periods of that owner only.
 *
 * Memory: one entry per open period (its begin event's payload, owner and
 * captures), freed when it ends; at most max_open (default 1 << 20) are
 * kept open, further begins are counted as dropped.
 */
enum strobe_period_status {
	STROBE_PERIOD_CLOSED = 0,	/* its end expression matched */
	STROBE_PERIOD_OPEN,		/* still open when the events ended */
	STROBE_PERIOD_CUT,		/* its parent ended first */
	STROBE_PERIOD_OWNER_GONE,	/* its owner's TID went to a new task
					 * (PID reuse): it cannot end any more */
};

/* A captured value; strings are copies, valid during the callback. */
struct strobe_period_value {
	const char *key;
	struct strobe_expr_value v;
};

struct strobe_period {
	uint64_t id;			/* 1, 2 ... in begin order */
	const char *name;		/* definition's name, "" when unnamed */
	const char *path;		/* "switch/open/alloc": names from the root */
	int def;			/* definition index (order of _define) */
	int depth;			/* 0 for a root definition */
	const struct strobe_period *parent;	/* its parent period (NULL for
						 * roots; its own parent is set
						 * too); valid during the call */
	enum strobe_period_status status;
	bool lost;			/* events were lost while it was open:
					 * its duration is not to be trusted */
	uint64_t begin_ts, end_ts;	/* end_ts: the ending event's time; OPEN:
					 * the last event's; CUT: the parent's end;
					 * OWNER_GONE: the new task's fork */
	int begin_cpu, end_cpu;
	struct strobe_expr_task owner;	/* the begin event's task, as the env
					 * said when it began */
	uint64_t children_ns;		/* summed durations of its CLOSED children */
	int nr_children;		/* its CLOSED children */
	int nr_begin_captures, nr_end_captures;
	const struct strobe_period_value *begin_captures, *end_captures;
};

typedef void (*strobe_period_fn)(void *arg, const struct strobe_period *p);

struct strobe_periods;

/* fn (may be NULL) receives every period when it ends. */
int strobe_periods_new(strobe_period_fn fn, void *arg, struct strobe_periods **out);
void strobe_periods_free(struct strobe_periods *p);	/* NULL ok; open periods are
							 * dropped, not reported */
/*
 * Add a --period definition (text as strobe_period_def_parse).  A parent
 * must be defined first; names are unique.  Returns the definition's
 * index, or -EINVAL (*err says why), -EBUSY once events were fed, -ENOMEM.
 */
int strobe_periods_define(struct strobe_periods *p, const char *text, struct strobe_error *err);
/* Add a --period-captures argument for a defined name (-EINVAL when there
 * is none, or its keys repeat ones given before; -EBUSY once events were
 * fed). */
int strobe_periods_capture(struct strobe_periods *p, const char *text, struct strobe_error *err);
/* Context for procname/pid/container and owners (copied; NULL: none), and
 * syscall argument names for raw_syscalls records (borrowed). */
void strobe_periods_set_env(struct strobe_periods *p, const struct strobe_expr_env *env);
void strobe_periods_set_syscall_args(struct strobe_periods *p,
				     const struct strobe_syscall_args *t);
void strobe_periods_set_max_open(struct strobe_periods *p, size_t max_open);
int strobe_periods_nr_defs(const struct strobe_periods *p);
/* Definition i's name ("" when unnamed), its path of names from the root
 * ("req/sleep"), its parent's index (-1 for a root); NULL or -1 when i is
 * out of range.  Strings are owned by p. */
const char *strobe_periods_def_name(const struct strobe_periods *p, int i);
const char *strobe_periods_def_path(const struct strobe_periods *p, int i);
int strobe_periods_def_parent(const struct strobe_periods *p, int i);

/* The first problem resolving a definition's references (as
 * strobe_expr_error, prefixed with the period's name); 0 when none. */
int strobe_periods_error(const struct strobe_periods *p, struct strobe_error *err);
/*
 * Check every definition (its begin and end expressions and captures)
 * against catalogue fmts as strobe_expr_check does: $begin.$evt is what
 * the begin expression can match, $parent.$begin.$evt what the parent's
 * can, a capture's $evt what its side's expression can.  Messages begin
 * with "--period NAME begin", "--period NAME end" or "--period-captures
 * NAME" (an unnamed definition: its text); columns count in that
 * argument.  After strobe_periods_set_syscall_args, so that argument
 * names on raw_syscalls records count.  0, -EINVAL, -ENOENT (flags
 * STROBE_EXPR_CHECK_LIVE: an unknown event) or -ENOMEM.
 */
int strobe_periods_check(const struct strobe_periods *p, struct strobe_formats *fmts,
			 unsigned flags, strobe_expr_warn_fn warn, void *warn_arg,
			 struct strobe_error *err);
/* Does the engine need events of type fmt (a begin or end may match, or it
 * is a fork that tells PID reuse)? */
bool strobe_periods_may_match(struct strobe_periods *p, const struct strobe_format *fmt);
/* Feed one event, in time order.  Returns 0, or -ENOMEM (that event's
 * begins were not recorded; counted as dropped). */
int strobe_periods_feed(struct strobe_periods *p, const struct strobe_event *ev);
/* Events were lost somewhere (a gap in a stream whose events are not all
 * fed here): the periods open now are marked lost. */
void strobe_periods_note_lost(struct strobe_periods *p);
/* The events ended: report every open period as STROBE_PERIOD_OPEN. */
void strobe_periods_finish(struct strobe_periods *p);

struct strobe_periods_stats {
	uint64_t begun;		/* periods opened */
	uint64_t closed;	/* ... that ended by their end expression */
	uint64_t open_at_end;	/* reported by strobe_periods_finish */
	uint64_t cut;		/* ended with their parent */
	uint64_t owner_gone;	/* ended by PID reuse */
	uint64_t lost;		/* closed ones with lost events inside */
	uint64_t dropped;	/* begins not recorded (max_open, memory) */
	uint64_t open_now;
};
void strobe_periods_stats(const struct strobe_periods *p, struct strobe_periods_stats *st);

/* ---- LTTng event names on ftrace events -------------------------------------- */

/*
 * The name lttng-analyses gives events system:name ("syscall_entry_openat"
 * for syscalls:sys_enter_openat, "irq_softirq_entry" for
 * irq:softirq_entry, else the ftrace name); raw_syscalls:sys_enter/exit
 * depend on the syscall number: pass it as nr (ignored otherwise).  Into
 * buf[size]; returns buf ("" for name NULL).
 */
const char *strobe_expr_lttng_name(const char *system, const char *name, long nr,
				   char *buf, size_t size);
/*
 * Does the name lit of an expression (equal, or a glob when glob is true)
 * name the event system:name: its ftrace name ("sched_switch"), its
 * "system:name" or its LTTng name ("irq_softirq_entry")?  For
 * raw_syscalls:sys_enter/exit, which are every syscall's, the names of
 * single syscalls (syscall_entry_openat) do not count: ask with the
 * syscalls:sys_enter_X events.
 */
bool strobe_expr_name_matches(const char *system, const char *name, const char *lit, bool glob);

#ifdef __cplusplus
}
#endif

#endif
