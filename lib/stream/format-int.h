/*
 * format-int.h - the event-format catalogue behind the public
 * struct strobe_formats / struct strobe_format handles (internal).
 *
 * libtraceevent's tep_handle stays inside the library: the public API
 * hands out a catalogue that wraps it, and one small object per event
 * type that wraps its tep_event.  Wrappers are made on first look-up and
 * live as long as the catalogue, so a pointer handed out stays valid.
 */
#ifndef STROBE_STREAM_FORMAT_INT_H
#define STROBE_STREAM_FORMAT_INT_H

#include <strobe/stream.h>
#include "../util/err.h"

struct tep_event;
struct tep_handle;

struct strobe_format {
	struct tep_event *tep;
	struct strobe_formats *owner;
	int id;
	/* strobe_format_field(): the payload fields (not the common ones),
	 * made on first use; nr_fields < 0 = not made yet. */
	struct strobe_field_info *fields;
	int nr_fields;
};

struct strobe_formats {
	struct tep_handle *tep;
	/* Per event id, grown on demand: NULL = not looked up yet,
	 * FORMATS_ABSENT = no such id. */
	struct strobe_format **by_id;
	uint32_t nr_ids;
	bool owns_tep;		/* tep_free()d with the catalogue */
};

/* Catalogue over tep (borrowed: must outlive it).  NULL when out of
 * memory. */
struct strobe_formats *strobe_formats_new(struct tep_handle *tep) STROBE_HIDDEN;
void strobe_formats_free(struct strobe_formats *f) STROBE_HIDDEN;	/* NULL ok */
/* The same, owning tep (freed with the catalogue, also when this fails:
 * NULL).  For formats built by hand (tests, fuzzers). */
struct strobe_formats *strobe_formats_adopt(struct tep_handle *tep) STROBE_HIDDEN;

/* Slow path of strobe_formats_by_id: look the id up and remember it. */
const struct strobe_format *strobe_formats_lookup(struct strobe_formats *f,
						  uint32_t id) STROBE_HIDDEN;

extern char strobe_formats_absent_mark STROBE_HIDDEN;
#define FORMATS_ABSENT ((struct strobe_format *)(void *)&strobe_formats_absent_mark)

/* The format of event id `id`, NULL if there is none.  Inline: the
 * stream does this once per event. */
static inline const struct strobe_format *strobe_formats_get(struct strobe_formats *f,
							     int id)
{
	struct strobe_format *fm;

	if (!f || id < 0)
		return NULL;
	if (__builtin_expect((uint32_t)id < f->nr_ids, 1)) {
		fm = f->by_id[id];
		if (fm == FORMATS_ABSENT)
			return NULL;
		if (fm)
			return fm;
	}
	return strobe_formats_lookup(f, (uint32_t)id);
}

/* libtraceevent views of the handles, for the library's own formatting. */
static inline struct tep_event *strobe_format_tep(const struct strobe_format *f)
{
	return f ? f->tep : NULL;
}

static inline struct tep_handle *strobe_formats_tep(const struct strobe_formats *f)
{
	return f ? f->tep : NULL;
}

#endif
