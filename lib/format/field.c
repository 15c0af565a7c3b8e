/*
 * field.c - reading event fields through offsets resolved once per event
 * type.
 *
 * strobe_field_resolve() asks libtraceevent where a field lives (once, at
 * set-up); the accessors then read straight from the payload with a bounds
 * check each, so a corrupt or short record yields 0 / NULL rather than a
 * read past the record.  Values are little endian, as the ring buffer of
 * every kernel strobe records on.  The fixed-size readers are inline in
 * format-int.h, so the analyses' per-event decoding costs no call.
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

int64_t strobe_field_int(const struct strobe_event *e, const struct strobe_field *f)
{
	return strobe_field_int_inline(e, f);
}

uint64_t strobe_field_uint(const struct strobe_event *e, const struct strobe_field *f)
{
	uint64_t v;

	return strobe_field_read_raw(e, f, &v) ? v : 0;
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
