/*
 * fastfmt.c - struct strobe_format_cache: per-file state that speeds up
 * formatting (a pid -> comm table, each event type's JSON keys escaped
 * once in json.c, and the verified fast path for the "info" part of text
 * lines described here).
 *
 * tep_print_event() interprets an event's print format on every call:
 * it walks the argument tree, rebuilds a printf format per conversion and
 * calls vsnprintf for each, which is about two thirds of the time
 * `strobe report` spends per event.  Most events' formats are simple,
 * though: literal text and conversions like %d, %lx or %08lx of a plain
 * field (REC->x, (unsigned long)(REC->x)), %s of a char array or of
 * __get_str().  For those this file compiles the format once per event
 * type into a short list of operations and runs them with its own integer
 * printing.
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

enum op_kind { OP_LIT, OP_INT, OP_STR_ARRAY, OP_STR_DYN };

struct op {
	uint8_t kind;
	uint8_t conv;		/* 'd', 'u', 'x', 'X' */
	uint8_t wide;		/* 1: print 64 bits ('l', 'll'), 0: low 32 */
	uint8_t zero;		/* '0' flag */
	uint8_t width;		/* minimum width */
	uint8_t size;		/* field bytes: 1, 2, 4, 8 (OP_INT) */
	uint16_t offset;	/* field offset in the payload */
	uint16_t len;		/* field bytes (strings), literal length */
	uint32_t lit;		/* literal: offset in prog->lits */
};

struct prog {
	struct op *ops;
	size_t nr_ops;
	char *lits;
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
		const char *comm;	/* NULL: empty slot */
	} comms[COMM_SLOTS];
	struct trace_seq check;	/* scratch for verification */
	uint64_t fast, slow, disabled;	/* counters, for tests */
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
	if (!c->state || !c->progs || !c->json) {
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
	}
	free(c->progs);
	free(c->json);
	free(c->state);
	trace_seq_destroy(&c->check);
	free(c);
}

STROBE_HIDDEN const char *strobe_cache_comm(struct strobe_format_cache *c, int pid)
{
	struct comm_slot *slot = &c->comms[(unsigned)pid % COMM_SLOTS];

	if (!slot->comm || slot->pid != pid) {
		slot->pid = pid;
		slot->comm = tep_data_comm_from_pid(c->tep, pid);
	}
	return slot->comm;
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

static void add_lit(struct builder *b, const char *s, size_t len)
{
	struct op *o;
	char *n;

	if (!len)
		return;
	if (b->nr_lits + len > b->cap_lits) {
		b->cap_lits = 2 * (b->nr_lits + len) + 16;
		n = realloc(b->p->lits, b->cap_lits);
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

static struct prog *compile(struct tep_event *event)
{
	struct builder b = { 0 };
	struct tep_print_arg *arg = event->print_fmt.args;
	const char *f = event->print_fmt.format, *lit;

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
			unsigned offset, size;

			if (!int_arg(event, arg, &offset, &size)) {
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
	return b.p;
}

/* ---- running -------------------------------------------------------- */

static char *put_num(char *p, const struct op *o, uint64_t raw)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	char tmp[24];
	char *d = tmp + sizeof(tmp);
	bool neg = false;
	uint64_t v = raw;
	int n, pad;

	if (!o->wide)
		v = (uint32_t)v;
	if (o->conv == 'd') {
		int64_t sv = o->wide ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;

		if (sv < 0) {
			neg = true;
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
		do {
			*--d = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	n = (int)(tmp + sizeof(tmp) - d);
	pad = o->width - n - (neg ? 1 : 0);
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
	memcpy(p, d, n);
	return p + n;
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
			o = put_num(o, op, strobe_read_native(data + off, op->size));
			break;
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

STROBE_HIDDEN bool strobe_cache_info(struct strobe_format_cache *c,
				     const struct strobe_event *ev,
				     struct trace_seq *s)
{
	struct tep_event *event = strobe_format_tep(ev->format);
	struct tep_record rec;
	struct prog *p;
	char buf[2048];
	int id = ev->type, n;

	if (!c->fast_ok || !event || id < 0 || id >= NR_IDS || event->id != id)
		return false;
	if (c->state[id] == ST_UNTRIED) {
		c->progs[id] = compile(event);
		c->state[id] = c->progs[id] ? ST_FAST : ST_SLOW;
	}
	if (c->state[id] != ST_FAST) {
		c->slow++;
		return false;
	}
	p = c->progs[id];
	n = run(p, ev, buf, sizeof(buf));
	if (n < 0)
		return false;
	if (p->uses < VERIFY_FIRST || p->uses % VERIFY_EVERY == 0) {
		trace_seq_reset(&c->check);
		strobe_fill_record(&rec, ev);
		tep_print_event(c->tep, &c->check, &rec, "%s", TEP_PRINT_INFO);
		if (c->check.len != (unsigned)n || memcmp(c->check.buffer, buf, n)) {
			/* our subset was wrong for this format: never again */
			c->state[id] = ST_SLOW;
			c->disabled++;
			return false;
		}
	}
	p->uses++;
	c->fast++;
	trace_seq_puts(s, buf);
	return true;
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
