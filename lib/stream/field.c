/*
 * field.c - reading event fields through offsets resolved once per event
 * type.
 *
 * strobe_field_resolve() asks libtraceevent where a field lives (once, at
 * set-up); the accessors then read straight from the payload with a bounds
 * check each, so a corrupt or short record yields 0 / NULL rather than a
 * read past the record.  Values are little endian, as the ring buffer of
 * every kernel strobe records on.
 *
 * Dynamic fields: __data_loc is a u32 at the field's offset, low 16 bits
 * the data's offset in the payload, high 16 bits its length; __rel_loc is
 * the same but the offset counts from the end of that u32.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "format-int.h"

int strobe_field_resolve(const struct strobe_format *fmt, const char *name,
			 struct strobe_field *f)
{
	struct tep_event *ev = strobe_format_tep(fmt);
	struct tep_format_field *fl;

	memset(f, 0, sizeof(*f));
	if (!ev || !name)
		return -ENOENT;
	/* libtraceevent's lookups take a non-const event but do not modify it. */
	fl = tep_find_any_field((struct tep_event *)ev, name);
	if (!fl || fl->offset < 0 || fl->size < 0 ||
	    fl->offset > UINT16_MAX || fl->size > UINT16_MAX)
		return -ENOENT;
	f->offset = (uint16_t)fl->offset;
	f->size = (uint16_t)fl->size;
	f->is_signed = !!(fl->flags & TEP_FIELD_IS_SIGNED);
	f->is_dynamic = !!(fl->flags & TEP_FIELD_IS_DYNAMIC);
	f->is_relative = !!(fl->flags & TEP_FIELD_IS_RELATIVE);
	if (f->is_relative)
		f->is_dynamic = 1;
	f->valid = 1;
	return 0;
}

/* Raw bits of a fixed 1/2/4/8-byte field, and whether it could be read. */
static inline int read_raw(const struct strobe_event *e,
			   const struct strobe_field *f, uint64_t *v)
{
	const uint8_t *p;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (!f->valid || f->is_dynamic ||
	    (uint32_t)f->offset + f->size > e->size)
		return 0;
	p = (const uint8_t *)e->data + f->offset;
	switch (f->size) {
	case 1:
		*v = p[0];
		return 1;
	case 2:
		memcpy(&v16, p, 2);
		*v = le16toh(v16);
		return 2;
	case 4:
		memcpy(&v32, p, 4);
		*v = le32toh(v32);
		return 4;
	case 8:
		memcpy(&v64, p, 8);
		*v = le64toh(v64);
		return 8;
	default:
		return 0;
	}
}

int64_t strobe_field_int(const struct strobe_event *e, const struct strobe_field *f)
{
	uint64_t v;
	int n = read_raw(e, f, &v);

	if (!n)
		return 0;
	if (!f->is_signed)
		return (int64_t)v;
	switch (n) {
	case 1:
		return (int8_t)v;
	case 2:
		return (int16_t)v;
	case 4:
		return (int32_t)v;
	default:
		return (int64_t)v;
	}
}

uint64_t strobe_field_uint(const struct strobe_event *e, const struct strobe_field *f)
{
	uint64_t v;

	return read_raw(e, f, &v) ? v : 0;
}

const char *strobe_field_str(const struct strobe_event *e,
			     const struct strobe_field *f, uint32_t *len)
{
	uint32_t off, n, loc;

	if (len)
		*len = 0;
	if (!f->valid)
		return NULL;
	if (f->is_dynamic) {
		if ((uint32_t)f->offset + 4 > e->size)
			return NULL;
		memcpy(&loc, (const uint8_t *)e->data + f->offset, 4);
		loc = le32toh(loc);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->is_relative)
			off += (uint32_t)f->offset + 4;
	} else {
		off = f->offset;
		n = f->size;
	}
	if (off > e->size || n > e->size - off)
		return NULL;
	if (len)
		*len = n;
	return (const char *)e->data + off;
}

const char *strobe_event_name(const struct strobe_event *e)
{
	return strobe_format_name(e->format);
}

const char *strobe_event_system(const struct strobe_event *e)
{
	return strobe_format_system(e->format);
}
