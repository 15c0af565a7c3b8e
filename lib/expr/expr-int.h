/*
 * expr-int.h - the compiled form of expressions, shared by the parser
 * (parse.c), the evaluator (eval.c), the period definitions (period-def.c)
 * and the LTTng name mapping (names.c).  Internal.
 *
 * An expression is an array of nodes.  && and || are n-ary (a chain
 * `a && b && c` is one node with three children linked through `next`),
 * so evaluation recursion is bounded by the parenthesis and `!` nesting,
 * which the parser limits to EXPR_MAX_DEPTH.  Every field reference and
 * every comparison of $name with a literal owns a "slot": the per-event-
 * type cache (struct tcache) holds one resolved slot per slot index.
 */
#ifndef STROBE_EXPR_INT_H
#define STROBE_EXPR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <strobe/expr.h>
#include <strobe/stream.h>

#include "util/err.h"

#define EXPR_MAX_DEPTH 128	/* nesting of ( and ! a user may write */
/* strobe_expr_parse flag for texts strobe builds from checked ones (a
 * filter's terms in parentheses, their canonical print): the depth limit
 * is EXPR_MAX_DEPTH_BUILT, so that the wrapping never refuses what the
 * user's term was allowed (evaluation recursion stays bounded). */
#define EXPR_BUILT (1u << 30)
#define EXPR_MAX_DEPTH_BUILT (4 * EXPR_MAX_DEPTH + 8)
#define EXPR_MAX_NR 1024	/* syscall numbers mapped per type (x86_64 < 512) */

enum xkind { X_OR, X_AND, X_NOT, X_CMP, X_REF };
enum xop { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_GLOB };
enum xscope { SC_EVT, SC_BEGIN, SC_PARENT, SC_NR };
enum xdyn { DYN_AUTO, DYN_PAYLOAD, DYN_CTX, DYN_HEADER, DYN_STREAM_CTX, DYN_PKT_CTX,
	    DYN_PKT_HEADER };

struct xref {
	uint8_t scope;		/* enum xscope */
	uint8_t dyn;		/* enum xdyn */
	bool is_name;		/* $name (field is NULL) */
	char *field;		/* owned */
	int slot;
	int col;		/* 1-based column of its first token */
};

struct xoperand {
	bool is_ref;
	struct xref ref;
	struct strobe_expr_value lit;	/* literal (STR: lit.s owned, unescaped) */
	char *text;		/* literal as written (owned), for printing */
	int col;		/* 1-based column of the operand */
};

struct xnode {
	uint8_t kind;		/* enum xkind */
	uint8_t op;		/* enum xop (X_CMP) */
	int col;		/* 1-based column of the node's first token */
	int child;		/* X_OR/X_AND: first child; X_NOT: operand; -1 */
	int next;		/* next sibling in an X_OR/X_AND chain, -1 */
	int name_slot;		/* X_CMP of $name with a string literal: the
				 * slot deciding it per type; else -1 */
	int name_side;		/* which operand is the $name reference (0 lhs) */
	struct xoperand lhs, rhs;	/* X_CMP; X_REF uses lhs */
};

/* What a slot is, for resolving it against a new event type. */
struct xslot {
	int node;		/* node holding it */
	int side;		/* 0 lhs, 1 rhs */
	bool name_cmp;		/* a name_slot (else an operand's reference) */
};

/* ---- per-type resolution --------------------------------------------------- */

enum rkind {
	R_MISSING = 0,
	R_INT,			/* f */
	R_STR,			/* f */
	R_TID, R_PID, R_PPID, R_VTID, R_VPID, R_PROCNAME, R_CONTAINER, R_CONTAINER_ID,
	R_CPU, R_TS, R_TYPEID,
	R_NAME,			/* the type's LTTng name (raw: per syscall nr) */
	R_SYSARG,		/* raw_syscalls:sys_enter argument by name */
	R_NEEDARGS,		/* missing: a name on raw_syscalls:sys_enter
				 * records with no syscall argument table
				 * (reported when an evaluation reaches it) */
	V_FALSE, V_TRUE,	/* name comparisons decided by the type */
	V_NRMAP,		/* ... decided per syscall number (map) */
};

/* map bytes for R_SYSARG: 0x80 | kind << 3 | position (0 = not an argument) */
#define SYSARG_OK 0x80

struct rslot {
	uint8_t kind;		/* enum rkind */
	uint8_t raw;		/* R_NAME/V_NRMAP: 1 raw sys_enter, 2 raw sys_exit */
	uint8_t map_other;	/* V_NRMAP: verdict for numbers beyond the map */
	struct strobe_field f;	/* R_INT/R_STR; R_SYSARG: args[] */
	struct strobe_field id;	/* raw_syscalls: the id field */
	uint8_t *map;		/* R_SYSARG / V_NRMAP: EXPR_MAX_NR bytes, owned */
};

struct tcache {
	const struct strobe_format *fmt;
	int type;
	struct tcache *next;
	uint8_t raw;		/* 1 raw_syscalls:sys_enter, 2 sys_exit, 0 */
	int8_t verdict;		/* what the type alone decides as $evt:
				 * 0 false, 1 true, 2 depends, VERDICT_UNSET */
	char name[64];		/* LTTng name (not raw) */
	struct rslot slots[];	/* nr_slots */
};

#define TC_BUCKETS 256
#define VERDICT_UNSET (-1)

struct strobe_expr {
	struct xnode *nodes;
	int nr_nodes, cap_nodes;
	int root;
	bool is_ref;		/* a single reference (captures) */
	struct xslot *slots;
	int nr_slots;
	const struct strobe_syscall_args *sysargs;
	struct tcache *buckets[TC_BUCKETS];
	struct tcache *last[SC_NR];	/* last type met per scope */
	bool again;		/* a period's end compiled again from its begin
				 * text (no END_EXPR given) */
	int err_code;		/* first resolution problem */
	char err_msg[256];
};

/* ---- parse.c ------------------------------------------------------------- */

/*
 * Parse an expression (or a single reference when ref_only) from
 * text[*pos, len) and stop at the first token that cannot continue it
 * (':' ',' or the end): the caller checks what follows.  Columns in
 * messages count from text.  has_parent: whether $parent may be used.
 */
int expr_parse_at(const char *text, size_t len, size_t *pos, unsigned flags,
		  bool ref_only, struct strobe_expr **out, struct strobe_error *err) STROBE_HIDDEN;
/* Skip blanks from *pos; returns the character there or 0 at the end. */
char expr_skip_space(const char *text, size_t len, size_t *pos) STROBE_HIDDEN;
/* An identifier at *pos ([A-Za-z_][A-Za-z0-9_]*), copied; NULL if none. */
char *expr_take_ident(const char *text, size_t len, size_t *pos) STROBE_HIDDEN;
/* "'x'" / "end of text": a description of what is at pos, for messages
 * (one token, a number whole, as expr_quote writes it). */
void expr_describe(const char *text, size_t len, size_t pos, char *buf, size_t size)
	STROBE_HIDDEN;
/*
 * s[len] for a message into buf[size] (always NUL-terminated): UTF-8
 * kept, control characters, DEL and bytes that are not UTF-8 escaped
 * (\n, \t, \xHH), cut at a character after max bytes of input with
 * "..." added.  Returns buf.
 */
char *expr_quote(const char *s, size_t len, size_t max, char *buf, size_t size) STROBE_HIDDEN;

/* The text of one reference, snprintf semantics. */
size_t expr_print_ref(const struct xref *r, char *buf, size_t size) STROBE_HIDDEN;

/* ---- names.c ---------------------------------------------------------------- */

/* 1 raw_syscalls:sys_enter, 2 raw_syscalls:sys_exit, 0 other. */
int expr_raw_kind(const char *sys, const char *name) STROBE_HIDDEN;
/* LTTng name of a static (non-raw) type into buf. */
void expr_type_name(const char *sys, const char *name, char *buf, size_t size) STROBE_HIDDEN;
/* LTTng name of raw syscall record (raw 1/2) of number nr into buf. */
void expr_raw_name(int raw, long nr, char *buf, size_t size) STROBE_HIDDEN;
/* The other LTTng name of raw record nr (syscall_entry_newfstat for fstat)
 * into buf; false when it has none. */
bool expr_raw_name_alt(int raw, long nr, char *buf, size_t size) STROBE_HIDDEN;
/* Does a literal name (op OP_EQ/OP_NE: equality, OP_GLOB: pattern) name
 * this static type: its ftrace name, "system:name" or LTTng name? */
bool expr_type_name_matches(const struct strobe_format *fmt, const char *lttng, int op,
			    const char *lit) STROBE_HIDDEN;
/* The ftrace payload field an LTTng field name stands for on this type
 * (sched_switch next_tid -> next_pid, ...), or NULL; *shadow set when
 * `name` is an ftrace field LTTng calls otherwise ("pid" on sched_waking,
 * which LTTng names tid: $evt.pid there is the process id). */
const char *expr_field_alias(const struct strobe_format *fmt, const char *name, bool *shadow)
	STROBE_HIDDEN;
/* fnmatch-like glob (*, ?, [...], [!...]) of pat over s[len]. */
bool expr_glob(const char *pat, const char *s, size_t len) STROBE_HIDDEN;
/* Syscall name of x86_64 number nr, NULL unknown. */
const char *expr_syscall_name(long nr) STROBE_HIDDEN;

/* ---- sysargs.c ------------------------------------------------------------- */

/* Position and kind (map byte as R_SYSARG's) of arg of syscall name, 0 if
 * unknown. */
uint8_t expr_sysarg_code(const struct strobe_syscall_args *t, const char *name,
			 const char *arg) STROBE_HIDDEN;

/* The argument table of raw_syscalls records for a trace (strobe-expr(7)
 * SYSCALL ARGUMENTS), made in *out: fmts' syscalls:sys_enter_* formats,
 * else this machine's tracefs.  Returns how many syscalls it names (0: an
 * empty table) or -ENOMEM (*out NULL). */
int expr_sysargs_for(struct strobe_formats *fmts,
		     struct strobe_syscall_args **out) STROBE_HIDDEN;

/* How a syscall argument of C type `type` is read. */
enum strobe_sysarg_kind expr_sysarg_kind_of(const char *type) STROBE_HIDDEN;

/* ---- eval.c ---------------------------------------------------------------- */

void expr_cache_clear(struct strobe_expr *e) STROBE_HIDDEN;
/* Every slot of e resolved against type fmt (id type), outside e's cache:
 * free with expr_tc_free.  NULL when out of memory. */
struct tcache *expr_tc_build(struct strobe_expr *e, const struct strobe_format *fmt, int type)
	STROBE_HIDDEN;
void expr_tc_free(const struct strobe_expr *e, struct tcache *t) STROBE_HIDDEN;
/* What the $evt.$name comparisons of e alone decide for type t: 0 never
 * true, 1 always, 2 it depends (a single reference: 2). */
int expr_name_verdict(struct strobe_expr *e, struct tcache *t) STROBE_HIDDEN;
/* What the type of fmt (id type) alone decides of e as $evt: 0 never
 * true, 1 always true, 2 it depends on the event. */
int expr_type_verdict(struct strobe_expr *e, const struct strobe_format *fmt, int type)
	STROBE_HIDDEN;
/* Context kind (enum rkind) of a context name ("tid", "procname" ...),
 * R_MISSING when it is none. */
int expr_ctx_kind(const char *name) STROBE_HIDDEN;
struct strobe_task;
/* The expression's view of a model task. */
void expr_task_of(const struct strobe_task *k, struct strobe_expr_task *t) STROBE_HIDDEN;

/* The canonical text of node i of e (as strobe_expr_print). */
size_t expr_print_node(const struct strobe_expr *e, int i, char *buf, size_t size) STROBE_HIDDEN;

#endif
