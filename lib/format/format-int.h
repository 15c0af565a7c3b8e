/*
 * format-int.h - the event-format catalogue behind the public
 * struct strobe_formats / struct strobe_format handles (internal).
 *
 * libtraceevent's tep_handle stays inside the library: the public API
 * hands out a catalogue that wraps it, and one small object per event
 * type that wraps its tep_event.  Wrappers are made on first look-up and
 * live as long as the catalogue, so a pointer handed out stays valid.
 *
 * lib/format/ is the layer below the trace-file reader and the stream,
 * which both include it: this catalogue (format.c), the field accessors
 * (field.c), and the tep_handle built from metadata texts (tep.c, with
 * fmtcheck.c's validation of format texts).
 */
#ifndef STROBE_FORMAT_FORMAT_INT_H
#define STROBE_FORMAT_FORMAT_INT_H

#include <endian.h>
#include <string.h>

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
	/* strobe_event_callchain(): 0 not looked up, 1 none, 2 found */
	uint8_t chain_state;
	struct strobe_field chain;
	char *text;		/* declared formats: their format text */
	/* Bytes a record of this type needs for its fields (the furthest
	 * offset + size; arrays count from their offset only, as the kernel
	 * shortens a trailing one, kernel_stack's): a shorter record has a
	 * format that does not describe it (strobe_tracefile_see_event). */
	uint32_t reach;
};

struct strobe_formats {
	struct tep_handle *tep;
	/* Per event id, filled on demand: NULL = not looked up yet,
	 * FORMATS_ABSENT = no such id.  Allocated whole (every 16-bit id)
	 * on the first look-up, so it never moves: the reading thread fills
	 * it while the pipeline's workers read it (an entry is published
	 * with a release store, under strobe_tep_lock). */
	struct strobe_format **by_id;
	uint32_t nr_ids;
	bool owns_tep;		/* tep_free()d with the catalogue */
	/* strobe_fgraph_set_leaf: the exit the next funcgraph_entry printed
	 * is a leaf with (NULL: none) */
	const struct strobe_event *fgraph_leaf;
	/* function_graph's formats, looked up once (fgraph.c in output/):
	 * ids (-1 none) and their func fields */
	bool fg_looked;
	int fg_entry, fg_exit;
	struct strobe_field fg_entry_func, fg_exit_func;
};

/* Catalogue over tep (borrowed: must outlive it).  NULL when out of
 * memory. */
struct strobe_formats *strobe_formats_new(struct tep_handle *tep) STROBE_HIDDEN;
void strobe_formats_free(struct strobe_formats *f) STROBE_HIDDEN;	/* NULL ok */
/* The same, owning tep (freed with the catalogue, also when this fails:
 * NULL).  For formats built by hand (tests, fuzzers). */
struct strobe_formats *strobe_formats_adopt(struct tep_handle *tep) STROBE_HIDDEN;

/* The field of fmt that needs the most bytes of a record (fmt->reach):
 * its name and *end (offset + size); NULL when fmt has no fields. */
const char *strobe_format_reach_field(const struct strobe_format *fmt,
				      uint32_t *end) STROBE_HIDDEN;

/* Events of id have no format from now on (two formats claim it, say),
 * whatever libtraceevent holds: before the id was looked up.  0, -EBUSY
 * (already handed out), -EINVAL, -ENOMEM. */
int strobe_formats_refuse(struct strobe_formats *f, uint32_t id) STROBE_HIDDEN;

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
	if (__builtin_expect((uint32_t)id < __atomic_load_n(&f->nr_ids, __ATOMIC_ACQUIRE), 1)) {
		fm = __atomic_load_n(&f->by_id[id], __ATOMIC_ACQUIRE);
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

/* The kernel function holding addr in the file's or the machine's
 * kallsyms, or NULL (ksym.c). */
const char *strobe_formats_ksym(const struct strobe_formats *f, uint64_t addr) STROBE_HIDDEN;
/* The index of the first frame of a kernel stack record (innermost
 * first) past the tracing machinery that took it (the stacktrace
 * trigger's own frames at the top of a switch's stack); n when none. */
int strobe_kstack_skip(const struct strobe_formats *f, const uint64_t *addrs, int n) STROBE_HIDDEN;

/* Raw bits of a fixed 1/2/4/8-byte field, and whether it could be read. */
static inline int strobe_field_read_raw(const struct strobe_event *e,
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

/* strobe_field_int(), inline for the library's per-event paths. */
static inline int64_t strobe_field_int_inline(const struct strobe_event *e,
					       const struct strobe_field *f)
{
	uint64_t v;
	int n;

	/* 8 bytes (raw_syscalls' id and ret, most pointers and counts):
	 * signed or not, the value is the same */
	if (f->size == 8 && f->valid && !f->is_dynamic && (uint32_t)f->offset + 8 <= e->size) {
		memcpy(&v, (const uint8_t *)e->data + f->offset, 8);
		return (int64_t)le64toh(v);
	}
	n = strobe_field_read_raw(e, f, &v);
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

/* libtraceevent's comm table (tep_register_comm, the plugins' sched_switch
 * handler through tep_print_event, and the lazy sort of its first look-up)
 * and its function look-up (the answer kept in the handle; kallsyms parsed
 * on the first one) are not thread-safe, and the pipeline's workers each keep a model over
 * the one tep_handle: every comm or function look-up, comm registration
 * and tep_print_event holds this one process-wide lock (uncontended: a few
 * tens of ns, and the hot paths cache comms per pid). */
void strobe_tep_lock(void) STROBE_HIDDEN;
void strobe_tep_unlock(void) STROBE_HIDDEN;
/* tep_data_comm_from_pid under the lock */
const char *strobe_tep_comm(struct tep_handle *tep, int pid) STROBE_HIDDEN;

#endif
