/*
 * fastfmt.c - struct strobe_format_cache: per-file state that speeds up
 * formatting (a pid -> comm table with each pid's "comm-pid" columns, each
 * event type's name column, each event type's JSON keys escaped once in
 * json.c, and the verified fast path for the "info" part of text lines
 * described here).
 *
 * tep_print_event() interprets an event's print format on every call:
 * it walks the argument tree, rebuilds a printf format per conversion and
 * calls vsnprintf for each, which is about two thirds of the time
 * `strobe report` spends per event.  Most events' formats are simple,
 * though: literal text and conversions like %d, %lx or %08lx of a plain
 * field (REC->x, (unsigned long)(REC->x)), %s of a char array or of
 * __get_str().  For those this file compiles the format once per event
 * type into a short list of operations and runs them with its own integer
 * printing.  Also taken: %s of REC->x ? "a" : "b", and integers of the
 * form (unsigned int)(REC->x >> N) or (REC->x & MASK) (MAJOR() and
 * MINOR() of a dev_t in the block events).  A format's ops run without a
 * bounds check each when the payload holds every field they read and the
 * output buffer has room for the most they write (nearly always); short
 * literals are copied 16 bytes at a time and fused into the 64-bit number
 * that follows them (sys_enter's ", %lx").
 *
 * The sched plugin (plugin_sched_switch.so) prints sched_switch,
 * sched_wakeup and sched_wakeup_new by its own handlers, through
 * trace_seq_printf: those are written here by hand to the same text, and
 * each comm they show is given to tep_register_comm() as the plugin does
 * (once per pid: libtraceevent keeps a pid's first comm), so that a pid
 * the file's saved comms lack gets the same comm in later lines as under
 * trace-cmd.
 *
 * Exactness is kept by construction and by checking: anything outside
 * the small subset (plugins with their own handlers, flags, symbols,
 * precision, '-' or '#' flags, h/hh/z modifiers, other casts, helper
 * functions, escapes) is not compiled and goes to libtraceevent; and the
 * first events of each type, then one in every 1024, are formatted both
 * ways and compared.  One difference disables the fast path for that type
 * for good, so a mistake here costs speed, never correctness of output
 * that was checked.
 *
 * The rules copied from libtraceevent 1.7: a field is read zero-extended
 * whatever its signedness; a conversion without length modifier prints
 * the low 32 bits (so a -3 in an s16 prints 65533, a -1 in an int -1),
 * 'l' and 'll' print all 64 bits; a char-array %s stops at the first NUL
 * or the field's end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <strobe/output.h>
#include <strobe/stream.h>

#include "format/format-int.h"
#include "output/output-int.h"

#define NR_IDS		65536
#define COMM_SLOTS	1024
#define VERIFY_FIRST	16
#define VERIFY_EVERY	1024

enum op_kind { OP_LIT, OP_INT, OP_STR_ARRAY, OP_STR_DYN,
	       OP_STR_COND };	/* %s of REC->x ? "a" : "b" (lit, lit2) */

/* What a prog runs: its ops (a print format compiled), or the hand-written
 * equivalent of plugin_sched_switch.so's handler for that event. */
enum prog_kind { PROG_OPS, PROG_SWITCH, PROG_WAKEUP };

/* A field as the sched plugin reads it (offset, size; size 0: absent). */
struct sfield {
	uint16_t offset, size;
};

/* How run_unchecked() runs an op: its kind, or one of these shortcuts. */
enum { FK_LIT_SHORT = 8, FK_X64, FK_D64, FK_U64,
       FK_LX64, FK_LD64, FK_LU64 };	/* a short literal (lit, len) and then
					 * the number (pre: FK_X64 ...) */

struct op {
	uint8_t kind;
	uint8_t fk;		/* the kind or a shortcut, see prog_bounds() */
	uint8_t conv;		/* 'd', 'u', 'x', 'X' */
	uint8_t wide;		/* 1: print 64 bits ('l', 'll'), 0: low 32 */
	uint8_t zero;		/* '0' flag */
	uint8_t width;		/* minimum width */
	uint8_t size;		/* field bytes: 1, 2, 4, 8 (OP_INT) */
	uint16_t offset;	/* field offset in the payload */
	uint16_t len;		/* field bytes (strings), literal length */
	uint32_t lit;		/* literal: offset in prog->lits */
	uint32_t lit2;		/* OP_STR_COND: the second literal */
	uint16_t len2;
	uint8_t xform;		/* OP_INT: the value is (field >> shift) & mask */
	uint8_t shift;
	uint64_t mask;
};

struct prog {
	uint8_t kind;		/* enum prog_kind */
	/* PROG_SWITCH: prev_pid, prev_comm, prev_prio, prev_state, next_pid,
	 * next_comm, next_prio; PROG_WAKEUP: pid, comm, prio, success,
	 * target_cpu */
	struct sfield sf[7];
	struct op *ops;
	size_t nr_ops;
	char *lits;		/* 16 bytes of slack after the last literal */
	size_t data_end;	/* the payload bytes fixed-offset ops read */
	size_t out_max;		/* bytes the ops write, but __get_str()s */
	uint64_t uses;
};

enum { ST_UNTRIED = 0, ST_FAST, ST_SLOW };

struct strobe_format_cache {
	struct tep_handle *tep;
	bool fast_ok;		/* file endianness and long size allow it */
	uint8_t *state;		/* NR_IDS entries */
	struct prog **progs;	/* NR_IDS entries, allocated on first use */
	struct strobe_json_type **json;	/* NR_IDS entries, built on first use */
	bool native;		/* file byte order == host byte order */
	struct comm_slot {
		int pid;
		unsigned len;		/* strlen(comm) */
		const char *comm;	/* NULL: empty slot */
		unsigned col_len;	/* 0: no col (a comm over 16 bytes) */
		char col[48];		/* "%16s-%-5d " of comm and pid, and slack
					 * for a copy of 32 bytes */
	} comms[COMM_SLOTS];
	int registered[COMM_SLOTS];	/* pids the sched fast path gave to
					 * tep_register_comm (0: none) */
	char **heads;		/* NR_IDS: " NAME: " padded, built on first use */
	struct trace_seq check;	/* scratch for verification */
	uint64_t fast, slow, disabled;	/* counters, for tests */
	struct strobe_ts_memo ts_memo;	/* the time column's second */
};

struct strobe_format_cache *strobe_format_cache_new(struct strobe_formats *fmts)
{
	struct tep_handle *tep = strobe_formats_tep(fmts);
	struct strobe_format_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->tep = tep;
	c->state = calloc(NR_IDS, 1);
	c->progs = calloc(NR_IDS, sizeof(*c->progs));
	c->json = calloc(NR_IDS, sizeof(*c->json));
	c->heads = calloc(NR_IDS, sizeof(*c->heads));
	if (!c->state || !c->progs || !c->json || !c->heads) {
		free(c->heads);
		free(c->state);
		free(c->progs);
		free(c->json);
		free(c);
		return NULL;
	}
	c->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	c->fast_ok = c->native && tep_get_long_size(tep) == 8 && sizeof(long) == 8;
	trace_seq_init(&c->check);
	return c;
}

static void prog_free(struct prog *p)
{
	if (p) {
		free(p->ops);
		free(p->lits);
		free(p);
	}
}

void strobe_format_cache_free(struct strobe_format_cache *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < NR_IDS; i++) {
		prog_free(c->progs[i]);
		free(c->json[i]);
		free(c->heads[i]);
	}
	free(c->heads);
	free(c->progs);
	free(c->json);
	free(c->state);
	trace_seq_destroy(&c->check);
	free(c);
}

STROBE_HIDDEN const char *strobe_cache_comm_len(struct strobe_format_cache *c, int pid,
					      size_t *len)
{
	struct comm_slot *slot = &c->comms[(unsigned)pid % COMM_SLOTS];

	if (!slot->comm || slot->pid != pid) {
		slot->pid = pid;
		slot->comm = strobe_tep_comm(c->tep, pid);
		slot->len = (unsigned)strlen(slot->comm);
		slot->col_len = 0;
		if (slot->len <= 16) {
			char tmp[24], *d, *o = slot->col;
			size_t n;

			memset(o, ' ', 16 - slot->len);
			o += 16 - slot->len;
			memcpy(o, slot->comm, slot->len);
			o += slot->len;
			*o++ = '-';
			d = strobe_utoa_rev(tmp + sizeof(tmp),
					    pid < 0 ? 0ULL - (uint64_t)(int64_t)pid : (uint64_t)pid);
			if (pid < 0)
				*--d = '-';
			n = (size_t)(tmp + sizeof(tmp) - d);
			memcpy(o, d, n);
			o += n;
			while (n++ < 5)
				*o++ = ' ';
			*o++ = ' ';
			slot->col_len = (unsigned)(o - slot->col);
		}
	}
	*len = slot->len;
	return slot->comm;
}

STROBE_HIDDEN const char *strobe_cache_task_col(struct strobe_format_cache *c, int pid,
					      size_t *len, const char **comm, size_t *comm_len)
{
	struct comm_slot *slot = &c->comms[(unsigned)pid % COMM_SLOTS];

	if (!slot->comm || slot->pid != pid)
		strobe_cache_comm_len(c, pid, comm_len);
	*comm = slot->comm;
	*comm_len = slot->len;
	*len = slot->col_len;
	return slot->col_len ? slot->col : NULL;
}

STROBE_HIDDEN const char *strobe_cache_comm(struct strobe_format_cache *c, int pid)
{
	size_t len;

	return strobe_cache_comm_len(c, pid, &len);
}

STROBE_HIDDEN const char *strobe_cache_head(struct strobe_format_cache *c,
					  const struct tep_event *event, size_t *len)
{
	int id = event->id;
	size_t n;
	char *h;

	if (id < 0 || id >= NR_IDS)
		return NULL;
	h = c->heads[id];
	if (!h) {
		/* " %s: " and the name padded to 20 columns, after a length byte */
		n = strlen(event->name);
		if (n > 100)
			return NULL;
		h = malloc(n + 24 + 2 < 48 ? 48 : n + 24 + 2);	/* 32-byte copies */
		if (!h)
			return NULL;
		h[1] = ' ';
		memcpy(h + 2, event->name, n);
		h[n + 2] = ':';
		h[n + 3] = ' ';
		n += 3;
		while (n < 23)
			h[++n] = ' ';
		h[0] = (char)n;		/* n bytes from h + 1 */
		c->heads[id] = h;
	}
	*len = (unsigned char)h[0];
	return h + 1;
}

STROBE_HIDDEN bool strobe_cache_native(const struct strobe_format_cache *c)
{
	return c->native;
}

STROBE_HIDDEN const struct strobe_json_type *
strobe_cache_json_type(struct strobe_format_cache *c, struct tep_event *event)
{
	int id = event->id;

	if (id < 0 || id >= NR_IDS)
		return NULL;
	if (!c->json[id])
		c->json[id] = strobe_json_type_new(event, tep_get_long_size(c->tep));	/* NULL: slow path */
	return c->json[id];
}

/* ---- compiling ------------------------------------------------------ */

struct builder {
	struct prog *p;
	size_t cap_ops, cap_lits, nr_lits;
	bool bad;
};

static struct op *add_op(struct builder *b)
{
	struct op *n;

	if (b->p->nr_ops == b->cap_ops) {
		b->cap_ops = b->cap_ops ? 2 * b->cap_ops : 8;
		n = realloc(b->p->ops, b->cap_ops * sizeof(*n));
		if (!n) {
			b->bad = true;
			return NULL;
		}
		b->p->ops = n;
	}
	n = &b->p->ops[b->p->nr_ops++];
	memset(n, 0, sizeof(*n));
	return n;
}

/* Store len bytes in the prog's literals; their offset, or -1. */
static long store_lit(struct builder *b, const char *s, size_t len)
{
	size_t at = b->nr_lits;
	char *n;

	if (len > 0xffff) {
		b->bad = true;
		return -1;
	}
	if (b->nr_lits + len > b->cap_lits) {
		b->cap_lits = 2 * (b->nr_lits + len) + 16;
		n = realloc(b->p->lits, b->cap_lits + 16);	/* + slack */
		if (!n) {
			b->bad = true;
			return -1;
		}
		b->p->lits = n;
	}
	memcpy(b->p->lits + at, s, len);
	b->nr_lits += len;
	return (long)at;
}

static void add_lit(struct builder *b, const char *s, size_t len)
{
	struct op *o;
	char *n;

	if (!len)
		return;
	if (b->nr_lits + len > b->cap_lits) {
		b->cap_lits = 2 * (b->nr_lits + len) + 16;
		n = realloc(b->p->lits, b->cap_lits + 16);	/* + slack */
		if (!n) {
			b->bad = true;
			return;
		}
		b->p->lits = n;
	}
	memcpy(b->p->lits + b->nr_lits, s, len);
	o = add_op(b);
	if (!o)
		return;
	o->kind = OP_LIT;
	o->lit = (uint32_t)b->nr_lits;
	o->len = (uint16_t)len;
	b->nr_lits += len;
	if (len > 0xffff)
		b->bad = true;
}

/* The only casts taken: those that leave a 64-bit value unchanged. */
static bool neutral_cast(const char *type)
{
	return !strcmp(type, "unsigned long") || !strcmp(type, "unsigned long long") ||
	       !strcmp(type, "u64") || !strcmp(type, "__u64");
}

static bool plain_field(const struct tep_format_field *f)
{
	return f && !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC |
				  TEP_FIELD_IS_STRING | TEP_FIELD_IS_RELATIVE)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
	       f->offset >= 0 && f->offset < 0xffff;
}

static struct tep_format_field *arg_field(struct tep_event *event,
					  struct tep_format_field *f, const char *name)
{
	/* libtraceevent may resolve fields lazily, at the first print */
	if (!f && name)
		f = tep_find_field(event, name);
	return f;
}

/*
 * Where the integer an argument names lives: a plain field, a neutral
 * cast of one, or REC->array[N].  Returns false for anything else.
 */
static bool int_arg(struct tep_event *event, struct tep_print_arg *a,
		    unsigned *offset, unsigned *size)
{
	struct tep_format_field *f;
	char *end;
	unsigned long idx;

	if (a && a->type == TEP_PRINT_TYPE && neutral_cast(a->typecast.type))
		a = a->typecast.item;
	if (!a)
		return false;
	if (a->type == TEP_PRINT_FIELD) {
		f = arg_field(event, a->field.field, a->field.name);
		if (!plain_field(f))
			return false;
		*offset = (unsigned)f->offset;
		*size = (unsigned)f->size;
		return true;
	}
	if (a->type == TEP_PRINT_OP && a->op.op && !strcmp(a->op.op, "[") &&
	    a->op.left && a->op.left->type == TEP_PRINT_FIELD &&
	    a->op.right && a->op.right->type == TEP_PRINT_ATOM) {
		f = arg_field(event, a->op.left->field.field, a->op.left->field.name);
		if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) ||
		    (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING |
				 TEP_FIELD_IS_RELATIVE)) ||
		    (f->elementsize != 1 && f->elementsize != 2 &&
		     f->elementsize != 4 && f->elementsize != 8) || f->offset < 0)
			return false;
		idx = strtoul(a->op.right->atom.atom, &end, 0);
		if (*end || idx >= f->arraylen ||
		    f->offset + (idx + 1) * f->elementsize > (unsigned)f->offset + f->size ||
		    f->offset + idx * f->elementsize >= 0xffff)
			return false;
		*offset = (unsigned)(f->offset + idx * f->elementsize);
		*size = f->elementsize;
		return true;
	}
	return false;
}

/* A constant expression of numbers ("1U", "20") and << >> - + & |, as
 * libtraceevent evaluates it (strtoull of each number, 64-bit
 * arithmetic). */
static bool const_arg(const struct tep_print_arg *a, uint64_t *v)
{
	uint64_t l, r;
	const char *op;
	char *end;

	if (!a)
		return false;
	if (a->type == TEP_PRINT_ATOM) {
		if (!a->atom.atom || a->atom.atom[0] < '0' || a->atom.atom[0] > '9')
			return false;
		*v = strtoull(a->atom.atom, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		return !*end;
	}
	if (a->type != TEP_PRINT_OP || !(op = a->op.op) ||
	    !const_arg(a->op.left, &l) || !const_arg(a->op.right, &r))
		return false;
	if (!strcmp(op, "<<") && r < 64)
		*v = l << r;
	else if (!strcmp(op, ">>") && r < 64)
		*v = l >> r;
	else if (!strcmp(op, "-"))
		*v = l - r;
	else if (!strcmp(op, "+"))
		*v = l + r;
	else if (!strcmp(op, "&"))
		*v = l & r;
	else if (!strcmp(op, "|"))
		*v = l | r;
	else
		return false;
	return true;
}

/*
 * int_arg() and also (unsigned int)(REC->x >> N), (unsigned int)(REC->x &
 * MASK) of an unsigned field x (MAJOR() and MINOR() of a dev_t, say):
 * the value is ((x >> *shift) & *mask), cut to 32 bits when *trunc.
 */
static bool int_arg_x(struct tep_event *event, struct tep_print_arg *a,
		      unsigned *offset, unsigned *size, unsigned *shift,
		      uint64_t *mask, bool *trunc)
{
	struct tep_format_field *f;
	uint64_t c;

	*shift = 0;
	*mask = ~0ULL;
	*trunc = false;
	if (a && a->type == TEP_PRINT_TYPE && a->typecast.type &&
	    (!strcmp(a->typecast.type, "unsigned int") || !strcmp(a->typecast.type, "u32"))) {
		*trunc = true;
		a = a->typecast.item;
	}
	if (a && a->type == TEP_PRINT_OP && a->op.op &&
	    (!strcmp(a->op.op, ">>") || !strcmp(a->op.op, "&")) &&
	    a->op.left && a->op.left->type == TEP_PRINT_FIELD &&
	    const_arg(a->op.right, &c)) {
		f = arg_field(event, a->op.left->field.field, a->op.left->field.name);
		if (!plain_field(f) || (f->flags & TEP_FIELD_IS_SIGNED))
			return false;
		if (a->op.op[0] == '>') {
			if (c >= 64)
				return false;
			*shift = (unsigned)c;
		} else {
			*mask = c;
		}
		*offset = (unsigned)f->offset;
		*size = (unsigned)f->size;
		return true;
	}
	if (*trunc)
		return false;	/* a cast of something else: not taken */
	return int_arg(event, a, offset, size);
}

/*
 * plugin_sched_switch.so's handlers (libtraceevent 1.7) read their fields
 * with tep_get_field_val() (zero-extended, 1, 2, 4 or 8 bytes) and the
 * comms with tep_find_any_field() ("%.*s" of the array); such a field
 * here, or false.  A missing optional field is size 0.
 */
static bool sched_field(struct tep_event *event, const char *name, bool comm,
			bool optional, struct sfield *out)
{
	struct tep_format_field *f = comm ? tep_find_any_field(event, name)
					  : tep_find_field(event, name);

	out->offset = out->size = 0;
	if (!f)
		return optional;
	if (comm) {
		if (f->offset < 0 || f->size <= 0 || f->size > 256 ||
		    f->offset + f->size >= 0xffff)
			return false;
	} else if (!plain_field(f)) {
		return false;
	}
	out->offset = (uint16_t)f->offset;
	out->size = (uint16_t)f->size;
	return true;
}

/* The sched plugin's events, when their fields are the usual ones. */
static struct prog *compile_sched(struct tep_event *event)
{
	struct prog *p;
	bool ok;

	if (!event->system || strcmp(event->system, "sched") || !event->name)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (!strcmp(event->name, "sched_switch")) {
		p->kind = PROG_SWITCH;
		ok = sched_field(event, "prev_pid", false, false, &p->sf[0]) &&
		     sched_field(event, "prev_comm", true, false, &p->sf[1]) &&
		     sched_field(event, "prev_prio", false, false, &p->sf[2]) &&
		     sched_field(event, "prev_state", false, false, &p->sf[3]) &&
		     sched_field(event, "next_pid", false, false, &p->sf[4]) &&
		     sched_field(event, "next_comm", true, false, &p->sf[5]) &&
		     sched_field(event, "next_prio", false, false, &p->sf[6]);
	} else if (!strcmp(event->name, "sched_wakeup") ||
		   !strcmp(event->name, "sched_wakeup_new")) {
		p->kind = PROG_WAKEUP;
		ok = sched_field(event, "pid", false, false, &p->sf[0]) &&
		     sched_field(event, "comm", true, false, &p->sf[1]) &&
		     sched_field(event, "prio", false, false, &p->sf[2]) &&
		     sched_field(event, "success", false, true, &p->sf[3]) &&
		     sched_field(event, "target_cpu", false, true, &p->sf[4]);
	} else {
		ok = false;
	}
	if (!ok) {
		free(p);
		return NULL;
	}
	return p;
}

/* p's data_end and out_max, for run_unchecked(). */
static void prog_bounds(struct prog *p)
{
	size_t i, j, end;

	for (i = 0; i < p->nr_ops; i++) {
		struct op *o = &p->ops[i];

		o->fk = o->kind;
		if (o->kind == OP_LIT && o->len <= 16)
			o->fk = FK_LIT_SHORT;
		if (o->kind == OP_INT && o->size == 8 && o->wide && !o->width && !o->xform)
			o->fk = o->conv == 'x' ? FK_X64 : o->conv == 'd' ? FK_D64 :
				o->conv == 'u' ? FK_U64 : o->kind;
		switch (o->kind) {
		case OP_LIT:
			end = 0;
			p->out_max += o->len;
			break;
		case OP_INT:
			end = (size_t)o->offset + o->size;
			p->out_max += 24 + o->width;
			break;
		case OP_STR_ARRAY:
			end = (size_t)o->offset + o->len;
			p->out_max += o->len;
			break;
		case OP_STR_COND:
			end = (size_t)o->offset + o->size;
			p->out_max += o->len > o->len2 ? o->len : o->len2;
			break;
		default:	/* OP_STR_DYN: at most the payload's size */
			end = (size_t)o->offset + 4;
			break;
		}
		if (end > p->data_end)
			p->data_end = end;
	}
	/* fuse each short literal into the 64-bit number after it */
	for (i = j = 0; i < p->nr_ops; i++, j++) {
		struct op *o = &p->ops[i];

		if (o->fk == FK_LIT_SHORT && i + 1 < p->nr_ops &&
		    p->ops[i + 1].fk >= FK_X64 && p->ops[i + 1].fk <= FK_U64) {
			uint32_t lit = o->lit;		/* o may be ops[j] */
			uint16_t len = o->len;

			p->ops[j] = p->ops[i + 1];
			p->ops[j].fk += FK_LX64 - FK_X64;
			p->ops[j].lit = lit;
			p->ops[j].len = len;
			i++;
		} else if (j != i) {
			p->ops[j] = *o;
		}
	}
	p->nr_ops = j;
}

/* %s of REC->field ? "a" : "b", the condition a plain field's value. */
static void cond_arg(struct builder *b, struct tep_event *event, struct tep_print_arg *arg)
{
	struct tep_print_arg *alt = arg->op.right, *a, *c;
	struct op *o;
	unsigned offset, size;
	long l1, l2;

	if (!alt || alt->type != TEP_PRINT_OP || !alt->op.op || strcmp(alt->op.op, ":") ||
	    !(a = alt->op.left) || !(c = alt->op.right) ||
	    a->type != TEP_PRINT_ATOM || c->type != TEP_PRINT_ATOM ||
	    !a->atom.atom || !c->atom.atom ||
	    !arg->op.left || arg->op.left->type != TEP_PRINT_FIELD ||
	    !int_arg(event, arg->op.left, &offset, &size)) {
		b->bad = true;
		return;
	}
	l1 = store_lit(b, a->atom.atom, strlen(a->atom.atom));
	l2 = store_lit(b, c->atom.atom, strlen(c->atom.atom));
	if (l1 < 0 || l2 < 0)
		return;
	o = add_op(b);
	if (!o)
		return;
	o->kind = OP_STR_COND;
	o->offset = (uint16_t)offset;
	o->size = (uint8_t)size;
	o->lit = (uint32_t)l1;
	o->len = (uint16_t)strlen(a->atom.atom);
	o->lit2 = (uint32_t)l2;
	o->len2 = (uint16_t)strlen(c->atom.atom);
}

static struct prog *compile(struct tep_event *event)
{
	struct builder b = { 0 };
	struct tep_print_arg *arg = event->print_fmt.args;
	const char *f = event->print_fmt.format, *lit;

	if (event->handler && !(event->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_NOHANDLE |
						TEP_EVENT_FL_PRINTRAW)))
		return compile_sched(event);
	if (!f || event->handler ||
	    (event->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW |
			     TEP_EVENT_FL_ISFTRACE | TEP_EVENT_FL_ISPRINT |
			     TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_ISFUNCENT |
			     TEP_EVENT_FL_ISFUNCRET | TEP_EVENT_FL_NOHANDLE)))
		return NULL;
	b.p = calloc(1, sizeof(*b.p));
	if (!b.p)
		return NULL;

	lit = f;
	while (*f && !b.bad) {
		struct op *o;
		int width = 0, lmod = 0;
		bool zero = false;
		char conv;

		if (*f == '\\') {		/* escapes: leave to libtraceevent */
			b.bad = true;
			break;
		}
		if (*f != '%') {
			f++;
			continue;
		}
		add_lit(&b, lit, f - lit);
		f++;
		if (*f == '%') {
			lit = f++;	/* the second '%' starts the next literal */
			continue;
		}
		if (*f == '0') {
			zero = true;
			f++;
		}
		while (*f >= '0' && *f <= '9' && width < 64)
			width = width * 10 + (*f++ - '0');
		if (*f == 'L') {	/* %Lu: long long */
			lmod = 2;
			f++;
		} else {
			while (*f == 'l' && lmod < 2) {
				lmod++;
				f++;
			}
		}
		conv = *f;
		if (!conv) {
			b.bad = true;
			break;
		}
		lit = ++f;
		if (!arg) {
			b.bad = true;
			break;
		}
		switch (conv) {
		case 'd': case 'i': case 'u': case 'x': case 'X': {
			unsigned offset, size, shift;
			uint64_t mask;
			bool trunc;

			if (!int_arg_x(event, arg, &offset, &size, &shift, &mask, &trunc)) {
				b.bad = true;
				break;
			}
			o = add_op(&b);
			if (!o)
				break;
			o->kind = OP_INT;
			o->conv = conv == 'i' ? 'd' : (uint8_t)conv;
			o->wide = lmod > 0;
			o->zero = zero;
			o->width = (uint8_t)width;
			o->size = (uint8_t)size;
			o->offset = (uint16_t)offset;
			o->shift = (uint8_t)shift;
			o->mask = trunc ? (mask & 0xffffffffULL) : mask;
			o->xform = shift || o->mask != ~0ULL;
			break;
		}
		case 's': {
			struct tep_format_field *fl = NULL;

			if (width || zero || lmod) {
				b.bad = true;
				break;
			}
			if (arg->type == TEP_PRINT_FIELD)
				fl = arg_field(event, arg->field.field, arg->field.name);
			else if (arg->type == TEP_PRINT_STRING)
				fl = arg_field(event, arg->string.field, arg->string.string);
			if (arg->type == TEP_PRINT_OP && arg->op.op && !strcmp(arg->op.op, "?")) {
				cond_arg(&b, event, arg);
				break;
			}
			if (!fl || fl->offset < 0 || fl->offset >= 0xffff ||
			    fl->size < 0 || fl->size > 0xffff) {
				b.bad = true;
				break;
			}
			o = add_op(&b);
			if (!o)
				break;
			o->offset = (uint16_t)fl->offset;
			o->len = (uint16_t)fl->size;
			if (arg->type == TEP_PRINT_STRING &&
			    (fl->flags & TEP_FIELD_IS_DYNAMIC) && fl->size == 4 &&
			    !(fl->flags & TEP_FIELD_IS_RELATIVE))
				o->kind = OP_STR_DYN;
			else if (arg->type == TEP_PRINT_FIELD &&
				 (fl->flags & TEP_FIELD_IS_ARRAY) &&
				 !(fl->flags & TEP_FIELD_IS_DYNAMIC) &&
				 strstr(fl->type, "char") && fl->size > 0)
				o->kind = OP_STR_ARRAY;
			else
				b.bad = true;
			break;
		}
		default:
			b.bad = true;
		}
		arg = arg->next;
	}
	if (!b.bad)
		add_lit(&b, lit, f - lit);
	if (b.bad || arg) {
		prog_free(b.p);
		return NULL;
	}
	prog_bounds(b.p);
	return b.p;
}

/* ---- running -------------------------------------------------------- */

/*
 * o's number raw as text ending at end (the digits only: 20 at most);
 * returns its first character, *neg whether a '-' goes before it.
 */
static inline char *num_digits(const struct op *o, uint64_t raw, char *end, bool *neg)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	char *d = end;
	uint64_t v = raw;

	*neg = false;
	if (!o->wide)
		v = (uint32_t)v;
	if (o->conv == 'd') {
		int64_t sv = o->wide ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;

		if (sv < 0) {
			*neg = true;
			v = 0ULL - (uint64_t)sv;
		} else {
			v = (uint64_t)sv;
		}
	}
	if (o->conv == 'x' || o->conv == 'X') {
		const char *digits = o->conv == 'x' ? lower : upper;

		do {
			*--d = digits[v & 15];
			v >>= 4;
		} while (v);
	} else {
		d = strobe_utoa_rev(d, v);
	}
	return d;
}

/* The sign and the padding to o's width before n digits. */
static inline char *num_pad(char *p, const struct op *o, int n, bool neg)
{
	int pad = o->width - n - (neg ? 1 : 0);

	if (o->zero) {
		if (neg)
			*p++ = '-';
		while (pad-- > 0)
			*p++ = '0';
	} else {
		while (pad-- > 0)
			*p++ = ' ';
		if (neg)
			*p++ = '-';
	}
	return p;
}

static char *put_num(char *p, const struct op *o, uint64_t raw)
{
	char tmp[24];
	bool neg;
	char *d = num_digits(o, raw, tmp + sizeof(tmp), &neg);
	int n = (int)(tmp + sizeof(tmp) - d);

	p = num_pad(p, o, n, neg);
	memcpy(p, d, n);
	return p + n;
}

/* "00".."ff": two hex digits at a time */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* put_num() for run_unchecked(): 24 bytes of room after the number. */
static inline char *put_num_fast(char *p, const struct op *o, uint64_t raw)
{
	char tmp[48];
	bool neg;
	char *d = num_digits(o, raw, tmp + 24, &neg);
	int n = (int)(tmp + 24 - d);

	if (neg || o->width > n)
		p = num_pad(p, o, n, neg);
	memcpy(p, d, 24);	/* n <= 20: one fixed-size copy */
	return p + n;
}

/*
 * run() without a check per op, for an event whose payload holds every
 * fixed-offset field (data_end) into a buffer with room for out_max, the
 * payload (the __get_str()s) and 32 bytes of slack.
 */
static int run_unchecked(const struct prog *p, const struct strobe_event *ev, char *buf)
{
	const uint8_t *data = ev->data;
	const struct op *op = p->ops, *last = p->ops + p->nr_ops;
	char *o = buf;
	size_t off, len;

	for (; op < last; op++) {
		uint64_t v;

		switch (op->fk) {
		case FK_LIT_SHORT:
			memcpy(o, p->lits + op->lit, 16);	/* lits has slack */
			o += op->len;
			break;
		case OP_LIT:
			memcpy(o, p->lits + op->lit, op->len);
			o += op->len;
			break;
		case FK_LX64:
			memcpy(o, p->lits + op->lit, 16);	/* lits has slack */
			o += op->len;
			/* fall through */
		case FK_X64: {
			int n;
			char *d;

			memcpy(&v, data + op->offset, 8);
			n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
			d = o + n;
			o = d;
			for (; n >= 2; n -= 2, v >>= 8) {
				d -= 2;
				memcpy(d, hex_pairs + 2 * (v & 0xff), 2);
			}
			if (n)
				*--d = "0123456789abcdef"[v & 15];
			break;
		}
		case FK_LD64:
			memcpy(o, p->lits + op->lit, 16);
			o += op->len;
			/* fall through */
		case FK_D64:
			memcpy(&v, data + op->offset, 8);
			if ((int64_t)v < 0) {
				*o++ = '-';
				v = 0ULL - v;
			}
			o = strobe_put_u64(o, v);
			break;
		case FK_LU64:
			memcpy(o, p->lits + op->lit, 16);
			o += op->len;
			/* fall through */
		case FK_U64:
			memcpy(&v, data + op->offset, 8);
			o = strobe_put_u64(o, v);
			break;
		case OP_STR_COND:
			if (strobe_read_native(data + op->offset, op->size)) {
				memcpy(o, p->lits + op->lit, op->len);
				o += op->len;
			} else {
				memcpy(o, p->lits + op->lit2, op->len2);
				o += op->len2;
			}
			break;
		case OP_INT:
			v = strobe_read_native(data + op->offset, op->size);
			if (op->xform)
				v = (v >> op->shift) & op->mask;
			o = put_num_fast(o, op, v);
			break;
		case OP_STR_ARRAY:
			len = strnlen((const char *)data + op->offset, op->len);
			memcpy(o, data + op->offset, len);
			o += len;
			break;
		case OP_STR_DYN: {
			uint32_t w;

			memcpy(&w, data + op->offset, 4);
			off = w & 0xffff;
			len = w >> 16;
			if (off > ev->size || len > ev->size - off)
				return -1;
			len = strnlen((const char *)data + off, len);
			memcpy(o, data + off, len);
			o += len;
			break;
		}
		}
	}
	*o = '\0';
	return (int)(o - buf);
}

/*
 * Run p on ev into buf (cap bytes, NUL-terminated).  Returns the length,
 * or -1 when the event does not fit (payload too short for a field, a
 * string longer than buf): the caller then uses libtraceevent.
 */
static int run(const struct prog *p, const struct strobe_event *ev, char *buf, size_t cap)
{
	const uint8_t *data = ev->data;
	char *o = buf, *end = buf + cap - 1;
	size_t i;

	for (i = 0; i < p->nr_ops; i++) {
		const struct op *op = &p->ops[i];
		size_t off = op->offset, len;

		if (op->fk >= FK_LX64) {	/* the literal fused into it */
			if ((size_t)(end - o) < op->len)
				return -1;
			memcpy(o, p->lits + op->lit, op->len);
			o += op->len;
		}
		switch (op->kind) {
		case OP_LIT:
			if ((size_t)(end - o) < op->len)
				return -1;
			memcpy(o, p->lits + op->lit, op->len);
			o += op->len;
			break;
		case OP_INT:
			if (off + op->size > ev->size || end - o < 24 + op->width)
				return -1;
			o = put_num(o, op, op->xform ?
				    (strobe_read_native(data + off, op->size) >> op->shift) & op->mask :
				    strobe_read_native(data + off, op->size));
			break;
		case OP_STR_COND: {
			bool yes;

			if (off + op->size > ev->size)
				return -1;
			yes = strobe_read_native(data + off, op->size) != 0;
			len = yes ? op->len : op->len2;
			if ((size_t)(end - o) < len)
				return -1;
			memcpy(o, p->lits + (yes ? op->lit : op->lit2), len);
			o += len;
			break;
		}
		case OP_STR_ARRAY:
			if (off + op->len > ev->size)
				return -1;
			len = strnlen((const char *)data + off, op->len);
			if ((size_t)(end - o) < len)
				return -1;
			memcpy(o, data + off, len);
			o += len;
			break;
		case OP_STR_DYN: {
			uint32_t w;

			if (off + 4 > ev->size)
				return -1;
			memcpy(&w, data + off, 4);
			off = w & 0xffff;
			len = w >> 16;
			if (off > ev->size || len > ev->size - off)
				return -1;
			len = strnlen((const char *)data + off, len);
			if ((size_t)(end - o) < len)
				return -1;
			memcpy(o, data + off, len);
			o += len;
			break;
		}
		}
	}
	*o = '\0';
	return (int)(o - buf);
}

/* Append the sched plugin's "%.*s" of a comm field and give it to
 * tep_register_comm() as write_and_save_comm() does: once per pid is
 * enough, since libtraceevent keeps the first comm registered for a pid
 * and ignores the others.  Returns the new end. */
static char *put_comm(struct strobe_format_cache *c, char *o, const uint8_t *data,
		      const struct sfield *f, uint64_t pid)
{
	size_t len = strnlen((const char *)data + f->offset, f->size);
	int *reg = &c->registered[(unsigned)(int)pid % COMM_SLOTS];

	memcpy(o, data + f->offset, len);
	if (*reg != (int)pid && (int)pid) {
		struct comm_slot *slot = &c->comms[(unsigned)(int)pid % COMM_SLOTS];

		o[len] = '\0';
		strobe_tep_lock();
		tep_register_comm(c->tep, o, (int)pid);
		strobe_tep_unlock();
		*reg = (int)pid;
		if (slot->pid == (int)pid)
			slot->comm = NULL;	/* "<...>" may have become the comm */
	}
	return o + len;
}

/* plugin_sched_switch.so's write_state() */
static char *put_state(char *o, int val)
{
	static const char states[] = "SDTtZXxW";
	bool found = false;
	int i;

	for (i = 0; i < (int)sizeof(states) - 1; i++) {
		if (!(val & (1 << i)))
			continue;
		if (found)
			*o++ = '|';
		found = true;
		*o++ = states[i];
	}
	if (!found)
		*o++ = 'R';
	return o;
}

static char *put_lld(char *o, uint64_t v)
{
	char tmp[24];
	char *d;
	size_t n;

	if ((int64_t)v < 0) {
		*o++ = '-';
		v = 0ULL - v;
	}
	d = strobe_utoa_rev(tmp + sizeof(tmp), v);
	n = (size_t)(tmp + sizeof(tmp) - d);
	memcpy(o, d, n);
	return o + n;
}

static char *put_lit(char *o, const char *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

#define SF(i)	strobe_read_native(data + p->sf[i].offset, p->sf[i].size)

/* The sched plugin's handlers, the same text (see compile_sched()).  buf
 * has room for 4 comms of 256 bytes and the rest. */
static int run_sched(struct strobe_format_cache *c, const struct prog *p,
		     const struct strobe_event *ev, char *buf)
{
	const uint8_t *data = ev->data;
	char *o = buf;
	uint64_t v;
	int i;

	for (i = 0; i < 7; i++)
		if (p->sf[i].offset + p->sf[i].size > ev->size)
			return -1;
	if (p->kind == PROG_SWITCH) {
		v = SF(0);
		o = put_comm(c, o, data, &p->sf[1], v);
		*o++ = ':';
		o = put_lld(o, v);
		*o++ = ' ';
		*o++ = '[';
		o = put_lld(o, (uint64_t)(int64_t)(int)SF(2));
		o = put_lit(o, "] ", 2);
		o = put_state(o, (int)SF(3));
		o = put_lit(o, " ==> ", 5);
		v = SF(4);
		o = put_comm(c, o, data, &p->sf[5], v);
		*o++ = ':';
		o = put_lld(o, v);
		o = put_lit(o, " [", 2);
		o = put_lld(o, (uint64_t)(int64_t)(int)SF(6));
		*o++ = ']';
	} else {
		v = SF(0);
		o = put_comm(c, o, data, &p->sf[1], v);
		*o++ = ':';
		o = put_lld(o, v);
		o = put_lit(o, " [", 2);
		o = put_lld(o, SF(2));
		*o++ = ']';
		if (p->sf[3].size) {
			o = put_lit(o, " success=", 9);
			o = put_lld(o, SF(3));
		}
		if (p->sf[4].size) {
			o = put_lit(o, " CPU:", 5);
			v = SF(4);
			if (v < 100)
				*o++ = '0';
			if (v < 10)
				*o++ = '0';
			o = strobe_put_u64(o, v);
		}
	}
	*o = '\0';
	return (int)(o - buf);
}

#undef SF

STROBE_HIDDEN struct strobe_ts_memo *strobe_cache_ts_memo(struct strobe_format_cache *c)
{
	return &c->ts_memo;
}

STROBE_HIDDEN int strobe_cache_info(struct strobe_format_cache *c,
				    const struct strobe_event *ev,
				    char *buf, size_t cap)
{
	struct tep_event *event = strobe_format_tep(ev->format);
	struct tep_record rec;
	struct prog *p;
	int id = ev->type, n;

	if (!c->fast_ok || !event || id < 0 || id >= NR_IDS || event->id != id ||
	    cap < STROBE_INFO_MAX)
		return -1;
	if (c->state[id] == ST_UNTRIED) {
		c->progs[id] = compile(event);
		c->state[id] = c->progs[id] ? ST_FAST : ST_SLOW;
	}
	if (c->state[id] != ST_FAST) {
		c->slow++;
		return -1;
	}
	p = c->progs[id];
	if (p->kind == PROG_OPS && ev->size >= p->data_end &&
	    p->out_max + ev->size + 32 < STROBE_INFO_MAX)
		n = run_unchecked(p, ev, buf);
	else if (p->kind == PROG_OPS)
		n = run(p, ev, buf, STROBE_INFO_MAX);
	else
		n = run_sched(c, p, ev, buf);
	if (n < 0)
		return -1;
	if (p->uses < VERIFY_FIRST || p->uses % VERIFY_EVERY == 0) {
		trace_seq_reset(&c->check);
		strobe_fill_record(&rec, ev);
		strobe_tep_lock();
		tep_print_event(c->tep, &c->check, &rec, "%s", TEP_PRINT_INFO);
		strobe_tep_unlock();
		if (c->check.len != (unsigned)n || memcmp(c->check.buffer, buf, n)) {
			/* our subset was wrong for this format: never again */
			c->state[id] = ST_SLOW;
			c->disabled++;
			return -1;
		}
	}
	p->uses++;
	c->fast++;
	return n;
}

void strobe_format_cache_stats(const struct strobe_format_cache *c, uint64_t *fast,
			     uint64_t *slow, uint64_t *disabled)
{
	if (fast)
		*fast = c->fast;
	if (slow)
		*slow = c->slow;
	if (disabled)
		*disabled = c->disabled;
}
