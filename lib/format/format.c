/*
 * format.c - the event-format catalogue: public handles over
 * libtraceevent's tep_handle and tep_event (see format-int.h).
 *
 * Look-ups by id are the hot path (once per event in the stream): an array
 * indexed by id, filled on first look-up, answers them.  Field lists for
 * strobe_format_field() are made once per type, on first use.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format-int.h"

/* Event ids are 16-bit in the ring buffer. */
#define MAX_EVENT_IDS 65536u

char strobe_formats_absent_mark;

struct strobe_formats *strobe_formats_new(struct tep_handle *tep)
{
	struct strobe_formats *f = calloc(1, sizeof(*f));

	if (f)
		f->tep = tep;
	return f;
}

struct strobe_formats *strobe_formats_adopt(struct tep_handle *tep)
{
	struct strobe_formats *f;

	if (!tep)
		return NULL;
	f = strobe_formats_new(tep);
	if (!f)
		tep_free(tep);
	else
		f->owns_tep = true;
	return f;
}

void strobe_formats_free(struct strobe_formats *f)
{
	uint32_t i;

	if (!f)
		return;
	if (f->owns_tep)
		tep_free(f->tep);
	for (i = 0; i < f->nr_ids; i++) {
		if (f->by_id[i] && f->by_id[i] != FORMATS_ABSENT) {
			free(f->by_id[i]->fields);
			free(f->by_id[i]->text);
			free(f->by_id[i]);
		}
	}
	free(f->by_id);
	free(f);
}

/* by_id covers id: the whole table at once (512 KiB of which only the
 * pages of ids in use are ever touched), so it never moves under a
 * reader.  0 or -ENOMEM. */
static int cover(struct strobe_formats *f, uint32_t id)
{
	struct strobe_format **n;

	if (id < f->nr_ids)
		return 0;
	n = calloc(MAX_EVENT_IDS, sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->by_id = n;
	__atomic_store_n(&f->nr_ids, MAX_EVENT_IDS, __ATOMIC_RELEASE);
	return 0;
}

int strobe_formats_refuse(struct strobe_formats *f, uint32_t id)
{
	if (!f || id >= MAX_EVENT_IDS)
		return -EINVAL;
	if (cover(f, id) < 0)
		return -ENOMEM;
	if (f->by_id[id] && f->by_id[id] != FORMATS_ABSENT)
		return -EBUSY;	/* handed out already: too late */
	f->by_id[id] = FORMATS_ABSENT;
	return 0;
}

/* Bytes field fl needs: arrays from their offset only (a trailing one
 * may be shorter than declared). */
static uint32_t field_end(const struct tep_format_field *fl)
{
	if (fl->offset < 0 || fl->size < 0)
		return 0;
	if (fl->flags & TEP_FIELD_IS_ARRAY && !(fl->flags & TEP_FIELD_IS_DYNAMIC))
		return (uint32_t)fl->offset;
	return (uint32_t)fl->offset + (uint32_t)fl->size;
}

/* The field of ev that reaches furthest into a record (NULL: none). */
static const struct tep_format_field *furthest(const struct tep_event *ev)
{
	const struct tep_format_field *fl, *best = NULL;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (fl = pass ? ev->format.fields : ev->format.common_fields; fl; fl = fl->next)
			if (!best || field_end(fl) > field_end(best))
				best = fl;
	return best;
}

const char *strobe_format_reach_field(const struct strobe_format *fmt, uint32_t *end)
{
	const struct tep_format_field *fl = fmt && fmt->tep ? furthest(fmt->tep) : NULL;

	*end = fl ? field_end(fl) : 0;
	return fl ? fl->name : NULL;
}

/* Under strobe_tep_lock: libtraceevent's tep_find_event keeps the last
 * answer in the handle, which a worker's tep_print_event reads. */
static const struct strobe_format *lookup_locked(struct strobe_formats *f, uint32_t id)
{
	const struct tep_format_field *fl;
	struct strobe_format *fm;
	struct tep_event *ev;

	if (cover(f, id) < 0)
		return NULL;
	fm = f->by_id[id];
	if (fm)
		return fm == FORMATS_ABSENT ? NULL : fm;
	ev = tep_find_event(f->tep, (int)id);
	if (!ev) {
		__atomic_store_n(&f->by_id[id], FORMATS_ABSENT, __ATOMIC_RELEASE);
		return NULL;
	}
	fm = calloc(1, sizeof(*fm));
	if (!fm)
		return NULL;	/* not remembered: asked again next time */
	fm->tep = ev;
	fm->owner = f;
	fm->id = (int)id;
	fm->nr_fields = -1;
	fl = furthest(ev);
	fm->reach = fl ? field_end(fl) : 0;
	__atomic_store_n(&f->by_id[id], fm, __ATOMIC_RELEASE);
	return fm;
}

const struct strobe_format *strobe_formats_lookup(struct strobe_formats *f, uint32_t id)
{
	const struct strobe_format *fm;

	if (!f || !f->tep || id >= MAX_EVENT_IDS)
		return NULL;
	strobe_tep_lock();
	fm = lookup_locked(f, id);
	strobe_tep_unlock();
	return fm;
}

const struct strobe_format *strobe_formats_by_id(struct strobe_formats *f, int id)
{
	return strobe_formats_get(f, id);
}

const struct strobe_format *strobe_formats_find(struct strobe_formats *f,
						const char *system, const char *name)
{
	struct tep_event *ev;

	if (!f || !f->tep || !name)
		return NULL;
	strobe_tep_lock();	/* the last answer is kept in the handle */
	ev = tep_find_event_by_name(f->tep, system, name);
	strobe_tep_unlock();
	return ev ? strobe_formats_get(f, ev->id) : NULL;
}

int strobe_formats_max_id(struct strobe_formats *f)
{
	struct tep_event *ev;
	int i, n, max = -1;

	if (!f || !f->tep)
		return -1;
	/* tep_get_event, not tep_list_events: the latter's sorted list is
	 * cached and misses formats declared after it was made */
	n = tep_get_events_count(f->tep);
	for (i = 0; i < n; i++)
		if ((ev = tep_get_event(f->tep, i)) && ev->id > max)
			max = ev->id;
	return max;
}

int strobe_formats_each(struct strobe_formats *f,
			int (*cb)(const struct strobe_format *fmt, void *arg), void *arg)
{
	const struct strobe_format *fm;
	struct tep_event *ev;
	int i, n, r;

	if (!f || !f->tep)
		return 0;
	n = tep_get_events_count(f->tep);	/* kept in id order */
	for (i = 0; i < n; i++) {
		ev = tep_get_event(f->tep, i);
		fm = ev ? strobe_formats_get(f, ev->id) : NULL;
		if (fm && (r = cb(fm, arg)) != 0)
			return r;
	}
	return 0;
}

static pthread_mutex_t tep_mutex = PTHREAD_MUTEX_INITIALIZER;

void strobe_tep_lock(void)
{
	pthread_mutex_lock(&tep_mutex);
}

void strobe_tep_unlock(void)
{
	pthread_mutex_unlock(&tep_mutex);
}

const char *strobe_tep_comm(struct tep_handle *tep, int pid)
{
	const char *comm;

	strobe_tep_lock();
	comm = tep_data_comm_from_pid(tep, pid);
	strobe_tep_unlock();
	return comm;
}

const char *strobe_formats_comm(struct strobe_formats *f, int pid)
{
	const char *comm = NULL;

	if (!f || !f->tep)
		return NULL;
	strobe_tep_lock();
	if (tep_is_pid_registered(f->tep, pid))
		comm = tep_data_comm_from_pid(f->tep, pid);
	strobe_tep_unlock();
	return comm;
}

const char *strobe_format_name(const struct strobe_format *fmt)
{
	return fmt ? fmt->tep->name : NULL;
}

const char *strobe_format_system(const struct strobe_format *fmt)
{
	return fmt ? fmt->tep->system : NULL;
}

int strobe_format_id(const struct strobe_format *fmt)
{
	return fmt ? fmt->id : -1;
}

struct strobe_formats *strobe_format_catalogue(const struct strobe_format *fmt)
{
	return fmt ? fmt->owner : NULL;
}

static int make_fields(struct strobe_format *fm)
{
	struct tep_format_field *fl;
	struct strobe_field_info *v;
	int n = 0;

	for (fl = fm->tep->format.fields; fl; fl = fl->next)
		n++;
	v = calloc(n ? (size_t)n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (fl = fm->tep->format.fields; fl; fl = fl->next) {
		struct strobe_field_info *in = &v[n];

		if (strobe_field_resolve(fm, fl->name, &in->field) < 0)
			continue;	/* offsets out of range: not readable */
		in->name = fl->name;
		in->type = fl->type;
		in->is_array = !!(fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC));
		in->is_string = !!(fl->flags & TEP_FIELD_IS_STRING);
		in->is_pointer = !!(fl->flags & TEP_FIELD_IS_POINTER);
		in->elem_size = (uint16_t)(in->is_array && fl->elementsize > 0 &&
					   fl->elementsize <= UINT16_MAX ?
					   fl->elementsize : in->field.size);
		n++;
	}
	fm->fields = v;
	__atomic_store_n(&fm->nr_fields, n, __ATOMIC_RELEASE);
	return 0;
}

/* The field list, made on first use (under the lock: workers may ask at
 * the same time).  0 or -ENOMEM. */
static int ensure_fields(struct strobe_format *fm)
{
	int r = 0;

	if (__atomic_load_n(&fm->nr_fields, __ATOMIC_ACQUIRE) >= 0)
		return 0;
	strobe_tep_lock();
	if (fm->nr_fields < 0)
		r = make_fields(fm);
	strobe_tep_unlock();
	return r;
}

int strobe_format_nr_fields(const struct strobe_format *fmt)
{
	/* The list is made on first use; the handle is the catalogue's. */
	struct strobe_format *fm = (struct strobe_format *)fmt;

	if (!fm || ensure_fields(fm) < 0)
		return 0;
	return fm->nr_fields;
}

int strobe_format_field(const struct strobe_format *fmt, int i,
			struct strobe_field_info *out)
{
	struct strobe_format *fm = (struct strobe_format *)fmt;

	if (!fm)
		return -ENOENT;
	if (ensure_fields(fm) < 0)
		return -ENOMEM;
	if (i < 0 || i >= fm->nr_fields)
		return -ENOENT;
	*out = fm->fields[i];
	return 0;
}
