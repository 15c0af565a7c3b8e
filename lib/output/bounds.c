/*
 * bounds.c - can libtraceevent print this record without reading past it?
 *
 * libtraceevent prints a record by reading its fields at the offsets the
 * format gives, at the offsets and lengths stored in __data_loc and
 * __rel_loc words, with "%s" up to a NUL, and with lengths, counts and
 * array indices computed from field values (__print_hex(REC->buf,
 * REC->len), REC->caller[i]) - all without comparing them with the
 * record's size.  The kernel never writes a record that breaks these
 * assumptions, but a damaged or hostile trace file can, and then
 * libtraceevent reads past the record, the page and the mapping.
 * (Formats that would crash its parser are refused earlier, by
 * lib/format/fmtcheck.c.)
 *
 * The text path asks strobe_event_fits() before it hands a record to
 * libtraceevent and prints a short note instead when the answer is no.
 * JSON and the fast text path read fields themselves and check each read.
 * The check runs only on that slow path, and walks the parsed print
 * arguments only for the constructs whose reach depends on the data.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <strobe/stream.h>

#include "format/format-int.h"
#include "format/tep.h"
#include "output/output-int.h"

#define MAX_WALK 65536	/* argument nodes visited per record: a bound on time */

struct walk {
	const struct tep_event *event;
	const uint8_t *d;
	uint64_t size;
	int long_size;
	int budget;
};

/* Little-endian: the reader refuses other files. */
static uint64_t rd(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Data offset and length of a dynamic field (already bounds-checked). */
static void dyn_loc(const struct walk *w, const struct tep_format_field *f,
		    uint64_t *off, uint64_t *len)
{
	uint32_t word = (uint32_t)rd(w->d + f->offset, 4);

	*len = word >> 16;
	*off = (f->flags & TEP_FIELD_IS_RELATIVE) ? (uint64_t)f->offset + 4 + (word & 0xffff)
						  : (word & 0xffff);
}

/* Integer value of an argument as libtraceevent would compute it; false
 * when it is beyond this simple evaluator (the caller then refuses). */
static bool eval(struct walk *w, const struct tep_print_arg *a, int64_t *v)
{
	int64_t l, r;

	if (!a || --w->budget < 0)
		return false;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*v = (int64_t)strtoull(a->atom.atom, NULL, 0);
		return true;
	case TEP_PRINT_FIELD: {
		const struct tep_format_field *f = a->field.field;

		if (!f || f->size <= 0 || f->size > 8)
			return false;
		*v = (int64_t)rd(w->d + f->offset, f->size);
		if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 &&
		    (*v >> (8 * f->size - 1)) & 1)
			*v -= (int64_t)1 << (8 * f->size);
		return true;
	}
	case TEP_PRINT_TYPE:
		return eval(w, a->typecast.item, v);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN: {
		uint64_t off, len;

		if (!a->dynarray.field)
			return false;
		dyn_loc(w, a->dynarray.field, &off, &len);
		*v = (int64_t)len;
		return true;
	}
	case TEP_PRINT_OP:
		if (!a->op.op || !a->op.left || !a->op.right ||
		    !eval(w, a->op.left, &l) || !eval(w, a->op.right, &r))
			return false;
		switch (a->op.op[0] | (a->op.op[1] << 8)) {
		case '+': *v = (int64_t)((uint64_t)l + (uint64_t)r); return true;
		case '-': *v = (int64_t)((uint64_t)l - (uint64_t)r); return true;
		case '*': *v = (int64_t)((uint64_t)l * (uint64_t)r); return true;
		case '/': if (!r) return false; *v = (int64_t)((uint64_t)l / (uint64_t)r); return true;
		case '&': *v = l & r; return true;
		case '|': *v = l | r; return true;
		case '<' | '<' << 8: *v = r >= 0 && r < 64 ? (int64_t)((uint64_t)l << r) : 0; return true;
		case '>' | '>' << 8: *v = r >= 0 && r < 64 ? (int64_t)((uint64_t)l >> r) : 0; return true;
		}
		return false;
	default:
		return false;
	}
}

/* Start and bytes available of the array a data-dependent reader reads. */
static bool array_room(const struct walk *w, const struct tep_print_arg *a,
		       uint64_t *start, uint64_t *room)
{
	uint64_t off, len;

	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	if (!a)
		return false;
	if (a->type == TEP_PRINT_DYNAMIC_ARRAY && a->dynarray.field) {
		dyn_loc(w, a->dynarray.field, &off, &len);
		*start = off;
		*room = len;
		return true;
	}
	if (a->type == TEP_PRINT_FIELD && a->field.field) {
		*start = (uint64_t)a->field.field->offset;
		*room = w->size - *start;
		return true;
	}
	return false;
}

static bool within(const struct walk *w, uint64_t start, uint64_t room, int64_t n)
{
	return n >= 0 && (uint64_t)n <= room && start + (uint64_t)n <= w->size;
}

/* Every data-dependent read in the argument list `a` stays in the record. */
static bool args_fit(struct walk *w, const struct tep_print_arg *a)
{
	uint64_t start, room;
	int64_t n, m;

	for (; a; a = a->next) {
		if (--w->budget < 0)
			return false;
		switch (a->type) {
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			if (!array_room(w, a->hex.field, &start, &room) ||
			    !eval(w, a->hex.size, &n) || !within(w, start, room, n))
				return false;
			break;
		case TEP_PRINT_INT_ARRAY:
			if (!array_room(w, a->int_array.field, &start, &room) ||
			    !eval(w, a->int_array.count, &n) || !eval(w, a->int_array.el_size, &m) ||
			    m < 0 || m > 8 || n < 0 || n > (int64_t)(1 << 16) ||
			    !within(w, start, room, n * m))
				return false;
			break;
		case TEP_PRINT_OP:
			if (a->op.op && !strcmp(a->op.op, "[")) {
				const struct tep_print_arg *l = a->op.left;
				uint64_t el = (uint64_t)w->long_size;

				while (l && l->type == TEP_PRINT_TYPE)
					l = l->typecast.item;
				if (!l || !eval(w, a->op.right, &n) || n < 0 || n > 65536 ||
				    !array_room(w, l, &start, &room))
					return false;
				if (l->type == TEP_PRINT_FIELD) {
					/* reads element n of the field */
					if (l->field.field->elementsize)
						el = l->field.field->elementsize;
					n = (int64_t)(((uint64_t)n + 1) * el);
				} else {
					/* reads at the array's start + n bytes */
					if (l->dynarray.field->elementsize)
						el = l->dynarray.field->elementsize;
					n += (int64_t)el;
				}
				if (!within(w, start, room, n))
					return false;
			}
			if (!args_fit(w, a->op.left) || !args_fit(w, a->op.right))
				return false;
			break;
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
			/* an empty mask makes libtraceevent 1.7 size its
			 * string from a negative bit count: a 3 GB malloc */
			{
				const struct tep_format_field *bf = a->bitmask.field;
				uint64_t off, len;

				if (!bf && a->bitmask.bitmask)	/* found by name when printed */
					bf = tep_find_field((struct tep_event *)w->event,
							    a->bitmask.bitmask);
				if (!bf || !(bf->flags & TEP_FIELD_IS_DYNAMIC))
					return false;
				dyn_loc(w, bf, &off, &len);
				if (!len)
					return false;
			}
			break;
		case TEP_PRINT_TYPE:
			if (!args_fit(w, a->typecast.item))
				return false;
			break;
		case TEP_PRINT_FLAGS:
			if (!args_fit(w, a->flags.field))
				return false;
			break;
		case TEP_PRINT_SYMBOL:
			if (!args_fit(w, a->symbol.field))
				return false;
			break;
		case TEP_PRINT_FUNC:
			if (!args_fit(w, a->func.args))
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

static bool has_nul(const uint8_t *p, uint64_t n)
{
	return n && memchr(p, 0, n) != NULL;
}

bool strobe_event_fits(const struct strobe_event *ev)
{
	const struct tep_event *event = strobe_format_tep(ev->format);
	const struct tep_format_field *f;
	struct walk w = { strobe_format_tep(ev->format), ev->data, ev->size, 8, MAX_WALK };
	bool failed;

	if (!event)
		return false;
	/* kernel_stack's handler reads the callers the record holds, no more */
	if (event->handler == strobe_tep_kernel_stack) {
		f = tep_find_any_field((struct tep_event *)event, "caller");
		return f && f->offset >= 8 && (uint64_t)f->offset <= w.size;
	}
	failed = event->flags & TEP_EVENT_FL_FAILED;
	if (event->tep)
		w.long_size = tep_get_long_size(event->tep);
	for (f = event->format.common_fields; f; f = f->next)
		if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + f->size > w.size)
			return false;
	for (f = event->format.fields; f; f = f->next) {
		uint64_t off = (uint64_t)f->offset, len = (uint64_t)f->size;

		if (f->offset < 0 || f->size < 0 || off + len > w.size)
			return false;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			if (len != 4)
				return false;
			dyn_loc(&w, f, &off, &len);
			if (off > w.size || len > w.size - off)
				return false;
			/* "%s" of __get_str() reads to the NUL */
			if (len && (strstr(f->type, "char") || failed) &&
			    !has_nul(w.d + off, len))
				return false;
		} else if (failed && (f->flags & TEP_FIELD_IS_STRING)) {
			/* the fields-only fallback prints strings with "%s" */
			if (!len)
				len = w.size - off;
			if (len && !has_nul(w.d + off, len))
				return false;
		}
	}
	return args_fit(&w, event->print_fmt.args);
}

void strobe_put_bad_record(struct trace_seq *s, const struct strobe_event *ev)
{
	trace_seq_printf(s, " [BAD RECORD: its %u bytes do not hold the fields of its format]",
			 (unsigned)ev->size);
}
