/*
 * _strobe.c - the C half of the `strobe` Python module: a thin layer over
 * libstrobe's public C API (session.h, capture.h, stream.h, tracefile.h,
 * model.h, analysis.h).  It never touches tracefs itself: whatever the
 * module needs from the kernel goes through lib/session and lib/source.
 *
 * How events reach Python cheaply:
 *   - a consumer (iterate_trace's loop, a read_trace iterator) fills a
 *     batch with the GIL released: up to BATCH_EVENTS events pulled from
 *     the stream, each copied (header + payload) into one arena, the task
 *     model updated and the task's tgid, comm and container noted as they
 *     are at that event;
 *   - then, holding the GIL, each record becomes an Event: one Python
 *     object carrying the payload inline.  An Event nobody kept (its
 *     reference count is back to 1 when the callback returns) is reused
 *     for the next record, so a no-op callback allocates nothing;
 *   - fields are decoded only when asked for, through accessors resolved
 *     once per event type (struct ftype, cached in the Source by type id).
 *
 * A Source owns what events point into (the stream and its formats, the
 * task model, the trace file) and lives as long as any Event of it.
 * Instance wraps a session (a tracefs instance).  Errors are Python
 * exceptions with the library's message: OSError with the errno, and
 * ValueError for an unknown event or a filter the kernel refused.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>

#define BATCH_EVENTS 1024
#define BATCH_BYTES (256 * 1024)
#define MAX_PAYLOAD 65536	/* an event never exceeds a ring-buffer page */
#define WAIT_MS 100		/* longest wait without looking at signals */

static PyObject *Stop;		/* strobe.STOP */

/* ---- errors ------------------------------------------------------------- */

/* OSError(errno, message): Python picks the subclass (PermissionError ...). */
static PyObject *raise_os(int code, const char *msg)
{
	PyObject *args;

	if (code < 0)
		code = -code;
	args = Py_BuildValue("(is)", code, msg && *msg ? msg : strerror(code));
	if (args) {
		PyErr_SetObject(PyExc_OSError, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* For calls that name events or filters: an unknown event (-ENOENT) or a
 * refused filter (-EINVAL) is a ValueError, the rest OSError. */
static PyObject *raise_ev(int code, const struct strobe_error *err)
{
	if (code == -ENOENT || code == -EINVAL) {
		PyErr_SetString(PyExc_ValueError, err->msg[0] ? err->msg : strerror(-code));
		return NULL;
	}
	return raise_os(code, err->msg);
}

/* ---- event types: names and fields, resolved once per type ------------- */

enum fkind { F_NONE, F_INT, F_UINT, F_STR, F_ARRAY };

struct pyfield {
	PyObject *name;		/* str */
	struct strobe_field acc;
	uint8_t kind;		/* enum fkind */
	uint8_t elem;		/* F_ARRAY: element size 1, 2, 4 or 8 */
	uint8_t elem_signed;
	uint8_t common;		/* common_*: in ev[...] but not ev.fields */
	uint8_t rest;		/* "char x[]" of size 0: the rest of the payload */
};

struct ftype {
	const void *format;	/* the stream's event format, NULL unknown */
	PyObject *name, *system;	/* str, or None for an unknown id */
	int nr_fields;		/* -1 until the fields are first asked for */
	struct pyfield *fields;
	PyObject *index;	/* dict: name -> position in fields */
};

/* What one field is, as the format describes it. */
struct fdesc {
	const char *name;
	int offset, size;
	bool is_signed, is_array, is_dynamic, is_string, common;
	int elem;		/* element size of arrays, 0 unknown */
	int arraylen;
};

/*
 * The one place that looks inside libtraceevent's format description:
 * every field of format `fmt`, common ones first.  Fills at most max
 * entries and returns how many there are.  (When include/strobe gets
 * format accessors, this is the function to switch.)
 */
#include <traceevent/event-parse.h>
static int format_fields(const void *fmt, struct fdesc *out, int max)
{
	const struct tep_event *e = fmt;
	const struct tep_format_field *f;
	int n = 0, pass;

	for (pass = 0; pass < 2; pass++) {
		for (f = pass ? e->format.fields : e->format.common_fields; f; f = f->next, n++) {
			struct fdesc *d;

			if (n >= max)
				continue;
			d = &out[n];
			d->name = f->name;
			d->offset = f->offset;
			d->size = f->size;
			d->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
			d->is_array = f->flags & TEP_FIELD_IS_ARRAY;
			d->is_dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
			d->is_string = (f->flags & TEP_FIELD_IS_STRING) ||
				       (f->type && strstr(f->type, "char"));
			d->common = !pass;
			d->arraylen = f->arraylen;
			d->elem = f->elementsize;
			if (!d->elem && d->is_dynamic && f->type) {
				/* the JSON writer's rule for "__data_loc u32[]" */
				const char *t = f->type;

				d->elem = strstr(t, "long long") || strstr(t, "64") ? 8 :
					  strstr(t, "long") ? (int)sizeof(long) :
					  strstr(t, "short") || strstr(t, "16") ? 2 :
					  strstr(t, "char") || strstr(t, "8") || strstr(t, "bool") ? 1 :
					  strstr(t, "int") || strstr(t, "32") || strstr(t, "pid_t") ? 4 : 1;
			}
		}
	}
	return n;
}

static void ftype_free(struct ftype *t)
{
	int i;

	if (!t)
		return;
	Py_XDECREF(t->name);
	Py_XDECREF(t->system);
	for (i = 0; i < t->nr_fields; i++)
		Py_XDECREF(t->fields[i].name);
	PyMem_Free(t->fields);
	Py_XDECREF(t->index);
	PyMem_Free(t);
}

/* Resolve every field of t once: accessors, kinds, the name index. */
static int ftype_fields(struct ftype *t)
{
	struct fdesc d[512];
	int n, i;

	if (t->nr_fields >= 0)
		return 0;
	t->index = PyDict_New();
	if (!t->index)
		return -1;
	n = t->format ? format_fields(t->format, d, 512) : 0;
	if (n > 512)
		n = 512;
	t->fields = PyMem_Calloc(n ? n : 1, sizeof(*t->fields));
	if (!t->fields)
		return PyErr_NoMemory(), -1;
	for (i = 0; i < n; i++) {
		struct pyfield *f = &t->fields[i];
		PyObject *pos;

		f->name = PyUnicode_InternFromString(d[i].name);
		if (!f->name)
			goto fail;
		t->nr_fields = i + 1;
		if (d[i].offset < 0 || d[i].size < 0 ||
		    strobe_field_resolve(t->format, d[i].name, &f->acc) < 0) {
			f->kind = F_NONE;
		} else if (d[i].is_dynamic) {
			f->kind = d[i].is_string ? F_STR : F_ARRAY;
			f->elem = (uint8_t)d[i].elem;
		} else if (d[i].is_array) {
			f->kind = d[i].is_string ? F_STR : F_ARRAY;
			f->elem = (uint8_t)(d[i].elem ? d[i].elem :
					    d[i].arraylen ? d[i].size / d[i].arraylen : 1);
			f->rest = d[i].size == 0 && d[i].arraylen == 0;
		} else if (d[i].size == 1 || d[i].size == 2 || d[i].size == 4 || d[i].size == 8) {
			f->kind = d[i].is_signed ? F_INT : F_UINT;
		} else {
			f->kind = F_ARRAY;	/* odd sizes: bytes, as the JSON writer */
			f->elem = 1;
			d[i].is_signed = false;
		}
		if (f->elem != 1 && f->elem != 2 && f->elem != 4 && f->elem != 8)
			f->elem = 1;
		f->elem_signed = d[i].is_signed;
		f->common = d[i].common;
		pos = PyLong_FromLong(i);
		if (!pos || PyDict_SetItem(t->index, f->name, pos) < 0) {
			Py_XDECREF(pos);
			goto fail;
		}
		Py_DECREF(pos);
	}
	t->nr_fields = n;
	return 0;
fail:
	return -1;
}

/* ---- Source: what events point into ----------------------------------- */

typedef struct {
	PyObject_HEAD
	struct strobe_tracefile *tf;	/* read_trace: the file */
	struct strobe_stream *st;
	struct strobe_model *model;
	struct ftype **types;		/* by type id */
	int nr_types;
	PyObject **buffers;		/* file: buffer names (None: top level) */
	int nr_buffers;
} SourceObject;

static void Source_dealloc(SourceObject *s)
{
	int i;

	for (i = 0; i < s->nr_types; i++)
		ftype_free(s->types[i]);
	PyMem_Free(s->types);
	for (i = 0; i < s->nr_buffers; i++)
		Py_XDECREF(s->buffers[i]);
	PyMem_Free(s->buffers);
	strobe_model_free(s->model);
	strobe_stream_close(s->st);
	strobe_tracefile_close(s->tf);
	Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyTypeObject SourceType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe._Source",
	.tp_basicsize = sizeof(SourceObject),
	.tp_dealloc = (destructor)Source_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "What events point into: a stream, its formats, the task model.",
};

/* A new, empty Source (every pointer NULL). */
static SourceObject *source_new(void)
{
	SourceObject *s = PyObject_New(SourceObject, &SourceType);

	if (s) {
		s->tf = NULL;
		s->st = NULL;
		s->model = NULL;
		s->types = NULL;
		s->nr_types = 0;
		s->buffers = NULL;
		s->nr_buffers = 0;
	}
	return s;
}

/* The type of events with this id and format, made on first sight. */
static struct ftype *source_type(SourceObject *s, int id, const void *format)
{
	struct ftype *t;

	if (id < 0 || id > 65535)
		id = 65535;
	if (id >= s->nr_types) {
		int n = id + 64;
		struct ftype **nv = PyMem_Realloc(s->types, n * sizeof(*nv));

		if (!nv)
			return PyErr_NoMemory(), NULL;
		memset(nv + s->nr_types, 0, (n - s->nr_types) * sizeof(*nv));
		s->types = nv;
		s->nr_types = n;
	}
	t = s->types[id];
	if (t && t->format == format)
		return t;
	if (t) {		/* not expected: one format per id and source */
		ftype_free(t);
		s->types[id] = NULL;
	}
	t = PyMem_Calloc(1, sizeof(*t));
	if (!t)
		return PyErr_NoMemory(), NULL;
	t->format = format;
	t->nr_fields = -1;
	if (format) {
		struct strobe_event e;
		const char *name, *sys;

		memset(&e, 0, sizeof(e));
		e.type = id;
		e.format = (void *)format;
		name = strobe_event_name(&e);
		sys = strobe_event_system(&e);
		t->name = name ? PyUnicode_InternFromString(name) : Py_NewRef(Py_None);
		t->system = sys ? PyUnicode_InternFromString(sys) : Py_NewRef(Py_None);
	} else {
		t->name = Py_NewRef(Py_None);
		t->system = Py_NewRef(Py_None);
	}
	/* fields resolved now, in the consuming thread: the format catalogue
	 * is never touched later, when another thread reads the event */
	if (!t->name || !t->system || ftype_fields(t) < 0) {
		ftype_free(t);
		return NULL;
	}
	s->types[id] = t;
	return t;
}

/* ---- batches: events copied out of the stream without the GIL --------- */

/* One event as the consumer saw it; the payload follows, 8-byte aligned. */
struct rec {
	uint64_t ts;
	int64_t missed;
	const void *format;
	const struct strobe_container *cont;	/* NULL: no model */
	int32_t cpu, pid, tgid, type, buffer;
	uint32_t size;
	char comm[16];
};

struct batch {
	uint8_t *buf;
	size_t used;		/* bytes filled */
	size_t pos;		/* next record to hand out */
	int n;			/* records filled */
};

static size_t rec_bytes(uint32_t size)
{
	return (sizeof(struct rec) + size + 7) & ~(size_t)7;
}

/*
 * Without the GIL: append events of st to b until it is full, the stream
 * has nothing ready (-EAGAIN), ends (0) or fails (-errno).  Returns 1 when
 * the batch is full.  The model (may be NULL) sees every event first,
 * then the analysis (may be NULL); a trace file's diagnostics (tf, may be
 * NULL) note each.
 */
/*
 * Which event types a live loop hands to Python: those the user enabled,
 * not the ones the loop enabled for the task model (fork, exec, exit ...).
 * vis[id]: 0 not decided yet, 1 shown, -1 hidden.
 */
struct shown {
	const struct strobe_strv *user;	/* "system:event" the user enabled */
	int8_t vis[65536];
};

static bool is_shown(struct shown *sh, const struct strobe_event *ev)
{
	const char *name, *sys;
	char full[256];
	size_t i;
	int id = ev->type & 0xffff;

	if (sh->vis[id])
		return sh->vis[id] > 0;
	name = strobe_event_name(ev);
	sys = strobe_event_system(ev);
	sh->vis[id] = 1;
	if (name && sys) {
		snprintf(full, sizeof(full), "%s:%s", sys, name);
		sh->vis[id] = -1;
		for (i = 0; i < sh->user->n; i++)
			if (!strcmp(sh->user->v[i], full))
				sh->vis[id] = 1;
	}
	return sh->vis[id] > 0;
}

static int batch_fill(struct batch *b, struct strobe_stream *st, struct strobe_model *m,
		      struct strobe_analysis *an, struct shown *sh, struct strobe_tracefile *tf,
		      struct strobe_error *err)
{
	struct strobe_event ev;
	int r;

	for (;;) {
		struct rec *rc;

		if (b->n >= BATCH_EVENTS || b->used + rec_bytes(MAX_PAYLOAD) > BATCH_BYTES)
			return 1;
		r = strobe_stream_next(st, &ev, err);
		if (r != 1)
			return r;
		if (tf)
			strobe_tracefile_see_event(tf, &ev);
		if (sh && !is_shown(sh, &ev)) {
			/* the model's own events: they feed the model only */
			if (m)
				strobe_model_update(m, &ev);
			if (an)
				strobe_analysis_feed(an, &ev);
			continue;
		}
		if (ev.size > MAX_PAYLOAD)
			ev.size = MAX_PAYLOAD;
		rc = (struct rec *)(b->buf + b->used);
		rc->ts = ev.ts;
		rc->missed = ev.missed;
		rc->format = ev.format;
		rc->cpu = ev.cpu;
		rc->pid = ev.pid;
		rc->type = ev.type;
		rc->buffer = ev.buffer;
		rc->size = ev.size;
		memcpy(rc + 1, ev.data, ev.size);
		if (m) {
			const struct strobe_task *t;

			strobe_model_update(m, &ev);
			if (an)
				strobe_analysis_feed(an, &ev);
			t = strobe_model_task(m, ev.pid);
			if (t) {
				rc->tgid = t->tgid;
				rc->cont = t->container;
				memcpy(rc->comm, t->comm, sizeof(rc->comm));
				rc->comm[sizeof(rc->comm) - 1] = '\0';
			} else {
				rc->tgid = -1;
				rc->cont = NULL;
				rc->comm[0] = '\0';
			}
		} else {
			rc->tgid = -1;
			rc->cont = NULL;
			rc->comm[0] = '\0';
		}
		b->used += rec_bytes(ev.size);
		b->n++;
	}
}

static void batch_reset(struct batch *b)
{
	b->used = b->pos = 0;
	b->n = 0;
}

/* The next filled record, or NULL. */
static const struct rec *batch_next(struct batch *b)
{
	const struct rec *r;

	if (b->pos >= b->used)
		return NULL;
	r = (const struct rec *)(b->buf + b->pos);
	b->pos += rec_bytes(r->size);
	return r;
}

/* ---- Event ------------------------------------------------------------ */

typedef struct {
	PyObject_VAR_HEAD		/* ob_size: room for the payload */
	SourceObject *src;		/* strong */
	struct ftype *ft;		/* owned by src */
	struct rec r;			/* as in the batch */
	uint8_t data[];			/* r.size bytes of payload */
} EventObject;

static PyTypeObject EventType;

static void Event_dealloc(EventObject *e)
{
	Py_XDECREF(e->src);
	Py_TYPE(e)->tp_free((PyObject *)e);
}

/*
 * An Event for record r of src: `reuse` when only the caller holds it
 * and the payload fits, else a new one.  Returns a new reference.
 */
static EventObject *event_make(SourceObject *src, const struct rec *r, EventObject *reuse)
{
	EventObject *e;
	struct ftype *ft = NULL;

	if (src->nr_types > r->type && r->type >= 0) {
		ft = src->types[r->type];
		if (ft && ft->format != r->format)
			ft = NULL;
	}
	if (!ft) {
		ft = source_type(src, r->type, r->format);
		if (!ft)
			return NULL;
	}
	if (reuse && Py_REFCNT(reuse) == 1 && Py_SIZE(reuse) >= (Py_ssize_t)r->size) {
		e = reuse;
		Py_INCREF(e);
		if (e->src != src) {
			Py_SETREF(e->src, (SourceObject *)Py_NewRef(src));
		}
	} else {
		Py_ssize_t cap = r->size < 192 ? 192 : (Py_ssize_t)r->size;

		e = PyObject_NewVar(EventObject, &EventType, cap);
		if (!e)
			return NULL;
		e->src = (SourceObject *)Py_NewRef(src);
	}
	e->ft = ft;
	e->r = *r;
	memcpy(e->data, r + 1, r->size);
	return e;
}

/* The payload as the stream handed it out, for the field accessors. */
static void event_view(const EventObject *e, struct strobe_event *v)
{
	memset(v, 0, sizeof(*v));
	v->ts = e->r.ts;
	v->data = e->data;
	v->size = e->r.size;
	v->cpu = e->r.cpu;
	v->type = e->r.type;
	v->pid = e->r.pid;
	v->format = (void *)e->r.format;
}

/* A str from bytes that may not be UTF-8 (then read as Latin-1, as the
 * JSON writer escapes invalid bytes). */
static PyObject *str_from(const char *p, size_t n)
{
	PyObject *s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, NULL);

	if (!s && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
		PyErr_Clear();
		s = PyUnicode_DecodeLatin1(p, (Py_ssize_t)n, NULL);
	}
	return s;
}

static PyObject *read_elem(const uint8_t *p, int size, bool is_signed)
{
	uint64_t v = 0;

	memcpy(&v, p, size);	/* little endian host and trace */
	if (is_signed && size < 8) {
		int shift = 64 - 8 * size;

		return PyLong_FromLongLong((long long)(v << shift) >> shift);
	}
	return is_signed ? PyLong_FromLongLong((long long)v) : PyLong_FromUnsignedLongLong(v);
}

/* Value of field f of e, as `strobe report --json` writes it. */
static PyObject *field_value(const EventObject *e, const struct pyfield *f)
{
	struct strobe_event v;
	const char *p;
	uint32_t len;

	if (f->kind == F_NONE ||
	    (!f->acc.is_dynamic && (uint32_t)f->acc.offset + f->acc.size > e->r.size))
		Py_RETURN_NONE;
	event_view(e, &v);
	switch (f->kind) {
	case F_INT:
		return PyLong_FromLongLong(strobe_field_int(&v, &f->acc));
	case F_UINT:
		return PyLong_FromUnsignedLongLong(strobe_field_uint(&v, &f->acc));
	default:
		break;
	}
	if (f->rest) {
		p = (const char *)e->data + f->acc.offset;
		len = e->r.size - f->acc.offset;
	} else {
		p = strobe_field_str(&v, &f->acc, &len);
		if (!p)
			Py_RETURN_NONE;
	}
	if (f->kind == F_STR)
		return str_from(p, strnlen(p, len));
	{
		uint32_t i, n = len / f->elem;
		PyObject *l = PyList_New(n), *x;

		for (i = 0; l && i < n; i++) {
			x = read_elem((const uint8_t *)p + (size_t)i * f->elem, f->elem,
				      f->elem_signed);
			if (!x) {
				Py_CLEAR(l);
				break;
			}
			PyList_SET_ITEM(l, i, x);
		}
		return l;
	}
}

static PyObject *Event_getitem(EventObject *e, PyObject *key)
{
	PyObject *pos;

	if (ftype_fields(e->ft) < 0)
		return NULL;
	pos = PyDict_GetItemWithError(e->ft->index, key);
	if (!pos) {
		if (!PyErr_Occurred())
			PyErr_SetObject(PyExc_KeyError, key);
		return NULL;
	}
	return field_value(e, &e->ft->fields[PyLong_AsLong(pos)]);
}

static int Event_contains(EventObject *e, PyObject *key)
{
	if (ftype_fields(e->ft) < 0)
		return -1;
	return PyDict_Contains(e->ft->index, key);
}

static PyObject *Event_get(EventObject *e, PyObject *args)
{
	PyObject *key, *dflt = Py_None, *pos;

	if (!PyArg_ParseTuple(args, "O|O:get", &key, &dflt))
		return NULL;
	if (ftype_fields(e->ft) < 0)
		return NULL;
	pos = PyDict_GetItemWithError(e->ft->index, key);
	if (!pos)
		return PyErr_Occurred() ? NULL : Py_NewRef(dflt);
	return field_value(e, &e->ft->fields[PyLong_AsLong(pos)]);
}

/* Every non-common field, in format order, decoded: a new dict. */
static PyObject *Event_fields(EventObject *e, void *c)
{
	PyObject *d, *v;
	int i;

	if (ftype_fields(e->ft) < 0)
		return NULL;
	d = PyDict_New();
	for (i = 0; d && i < e->ft->nr_fields; i++) {
		const struct pyfield *f = &e->ft->fields[i];

		if (f->common)
			continue;
		v = field_value(e, f);
		if (!v || PyDict_SetItem(d, f->name, v) < 0) {
			Py_XDECREF(v);
			Py_CLEAR(d);
			break;
		}
		Py_DECREF(v);
	}
	return d;
}

static PyObject *Event_keys(EventObject *e, PyObject *unused)
{
	PyObject *l;
	int i;

	if (ftype_fields(e->ft) < 0)
		return NULL;
	l = PyList_New(0);
	for (i = 0; l && i < e->ft->nr_fields; i++)
		if (!e->ft->fields[i].common && PyList_Append(l, e->ft->fields[i].name) < 0)
			Py_CLEAR(l);
	return l;
}

static PyObject *Event_name(EventObject *e, void *c) { return Py_NewRef(e->ft->name); }
static PyObject *Event_system(EventObject *e, void *c) { return Py_NewRef(e->ft->system); }
static PyObject *Event_ts(EventObject *e, void *c) { return PyLong_FromUnsignedLongLong(e->r.ts); }
static PyObject *Event_cpu(EventObject *e, void *c) { return PyLong_FromLong(e->r.cpu); }
static PyObject *Event_pid(EventObject *e, void *c) { return PyLong_FromLong(e->r.pid); }
static PyObject *Event_id(EventObject *e, void *c) { return PyLong_FromLong(e->r.type); }
static PyObject *Event_missed(EventObject *e, void *c) { return PyLong_FromLongLong(e->r.missed); }

static PyObject *Event_tgid(EventObject *e, void *c)
{
	if (e->r.tgid < 0)
		Py_RETURN_NONE;
	return PyLong_FromLong(e->r.tgid);
}

static PyObject *Event_comm(EventObject *e, void *c)
{
	if (!e->r.comm[0] || !strcmp(e->r.comm, "<...>"))
		Py_RETURN_NONE;
	return str_from(e->r.comm, strnlen(e->r.comm, sizeof(e->r.comm)));
}

/* The container's name (its short ID when no runtime named it), None on
 * the host or when nothing is known. */
static PyObject *Event_container(EventObject *e, void *c)
{
	const struct strobe_container *k = e->r.cont;

	if (!k || k->index == STROBE_CONTAINER_HOST || k->index == STROBE_CONTAINER_UNKNOWN)
		Py_RETURN_NONE;
	return str_from(k->name[0] ? k->name : k->short_id,
			strlen(k->name[0] ? k->name : k->short_id));
}

static PyObject *Event_container_id(EventObject *e, void *c)
{
	const struct strobe_container *k = e->r.cont;

	if (!k || !k->id[0])
		Py_RETURN_NONE;
	return PyUnicode_FromString(k->id);
}

static PyObject *Event_buffer(EventObject *e, void *c)
{
	SourceObject *s = e->src;

	if (e->r.buffer >= 0 && e->r.buffer < s->nr_buffers && s->buffers[e->r.buffer])
		return Py_NewRef(s->buffers[e->r.buffer]);
	Py_RETURN_NONE;
}

static PyObject *Event_raw(EventObject *e, void *c)
{
	return PyBytes_FromStringAndSize((const char *)e->data, e->r.size);
}

/* "comm-pid [cpu] secs: name: field=value ...", close to report's lines. */
static PyObject *Event_str(EventObject *e)
{
	PyObject *fields = Event_fields(e, NULL), *parts, *k, *v, *sep, *body, *out;
	Py_ssize_t pos = 0;
	char head[160];

	if (!fields)
		return NULL;
	parts = PyList_New(0);
	while (parts && PyDict_Next(fields, &pos, &k, &v)) {
		PyObject *item = PyUnicode_FromFormat("%U=%S", k, v);

		if (!item || PyList_Append(parts, item) < 0)
			Py_CLEAR(parts);
		Py_XDECREF(item);
	}
	Py_DECREF(fields);
	if (!parts)
		return NULL;
	sep = PyUnicode_FromString(" ");
	body = sep ? PyUnicode_Join(sep, parts) : NULL;
	Py_XDECREF(sep);
	Py_DECREF(parts);
	if (!body)
		return NULL;
	snprintf(head, sizeof(head), "%16.16s-%-5d [%03d] %llu.%06llu: ",
		 e->r.comm[0] ? e->r.comm : "<...>", e->r.pid, e->r.cpu,
		 (unsigned long long)(e->r.ts / 1000000000ULL),
		 (unsigned long long)((e->r.ts % 1000000000ULL) / 1000ULL));
	if (e->ft->name == Py_None)
		out = PyUnicode_FromFormat("%s[UNKNOWN TYPE %d] %U", head, e->r.type, body);
	else
		out = PyUnicode_FromFormat("%s%U: %U", head, e->ft->name, body);
	Py_DECREF(body);
	return out;
}

static PyObject *Event_repr(EventObject *e)
{
	return PyUnicode_FromFormat("<strobe.Event %S ts=%llu cpu=%d pid=%d>", e->ft->name,
				    (unsigned long long)e->r.ts, e->r.cpu, e->r.pid);
}

static PyGetSetDef Event_getset[] = {
	{ "name", (getter)Event_name, NULL, "event name (\"sched_switch\"), None if unknown" },
	{ "system", (getter)Event_system, NULL, "event system (\"sched\"), None if unknown" },
	{ "ts", (getter)Event_ts, NULL, "timestamp in trace clock units (ns)" },
	{ "cpu", (getter)Event_cpu, NULL, "CPU the event happened on" },
	{ "pid", (getter)Event_pid, NULL, "thread ID (common_pid)" },
	{ "tid", (getter)Event_pid, NULL, "thread ID, the same as pid" },
	{ "tgid", (getter)Event_tgid, NULL, "process ID (thread group), None if unknown" },
	{ "comm", (getter)Event_comm, NULL, "thread name at this event, None if unknown" },
	{ "container", (getter)Event_container, NULL,
	  "container name (or short ID), None on the host or if unknown" },
	{ "container_id", (getter)Event_container_id, NULL, "full container ID, or None" },
	{ "buffer", (getter)Event_buffer, NULL,
	  "instance buffer of a trace file, None for the top level" },
	{ "id", (getter)Event_id, NULL, "event type id (common_type)" },
	{ "missed", (getter)Event_missed, NULL,
	  "events lost on this CPU just before this one (-1: some, count unknown)" },
	{ "fields", (getter)Event_fields, NULL,
	  "every field but the common ones, decoded, as a dict" },
	{ "raw", (getter)Event_raw, NULL, "the payload as bytes" },
	{ NULL },
};

static PyMethodDef Event_methods[] = {
	{ "get", (PyCFunction)Event_get, METH_VARARGS,
	  "get(field, default=None): a field's value, or default" },
	{ "keys", (PyCFunction)Event_keys, METH_NOARGS, "names of the non-common fields" },
	{ NULL },
};

static PyMappingMethods Event_mapping = {
	.mp_subscript = (binaryfunc)Event_getitem,
};

static PySequenceMethods Event_sequence = {
	.sq_contains = (objobjproc)Event_contains,
};

static PyTypeObject EventType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe.Event",
	.tp_basicsize = offsetof(EventObject, data),
	.tp_itemsize = 1,
	.tp_dealloc = (destructor)Event_dealloc,
	.tp_repr = (reprfunc)Event_repr,
	.tp_str = (reprfunc)Event_str,
	.tp_as_mapping = &Event_mapping,
	.tp_as_sequence = &Event_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One kernel event.  ev[\"field\"] decodes a field (KeyError if the\n"
		  "event has none of that name), ev.fields all of them; name, system,\n"
		  "ts (ns), cpu, pid (thread), tgid, comm and container say what and who.\n"
		  "Fields are decoded only when asked for.",
	.tp_getset = Event_getset,
	.tp_methods = Event_methods,
};

/* ---- Instance: a tracefs instance (a session) --------------------------- */

typedef struct InstanceObject {
	PyObject_HEAD
	struct strobe_session *s;	/* NULL once destroyed */
	bool detached;			/* left in place at exit */
	bool busy;			/* being iterated */
	char **containers;		/* hook2container targets, for rescans */
	int nr_containers;
	struct strobe_model *hook_model;	/* their tasks, rescanned */
	struct InstanceObject *next, *prev;	/* every open Instance */
} InstanceObject;

static PyTypeObject InstanceType;
static InstanceObject *open_instances;

static void instance_unlink(InstanceObject *i)
{
	if (i->prev)
		i->prev->next = i->next;
	else if (open_instances == i)
		open_instances = i->next;
	if (i->next)
		i->next->prev = i->prev;
	i->next = i->prev = NULL;
}

/* Close the session: the instance is removed if `remove`, or unless it
 * is detached/attached when not.  Idempotent. */
static int instance_close(InstanceObject *i, bool remove)
{
	int r = 0, k;

	if (i->s) {
		if (remove)
			strobe_session_set_keep(i->s, false);
		r = strobe_session_close(i->s);
		i->s = NULL;
		instance_unlink(i);
	}
	for (k = 0; k < i->nr_containers; k++)
		free(i->containers[k]);
	free(i->containers);
	i->containers = NULL;
	i->nr_containers = 0;
	strobe_model_free(i->hook_model);
	i->hook_model = NULL;
	return r;
}

static void Instance_dealloc(InstanceObject *i)
{
	instance_close(i, false);
	Py_TYPE(i)->tp_free((PyObject *)i);
}

static InstanceObject *instance_wrap(struct strobe_session *s, bool detached)
{
	InstanceObject *i = PyObject_New(InstanceObject, &InstanceType);

	if (!i) {
		strobe_session_close(s);
		return NULL;
	}
	i->s = s;
	i->detached = detached;
	i->busy = false;
	i->containers = NULL;
	i->nr_containers = 0;
	i->hook_model = NULL;
	i->prev = NULL;
	i->next = open_instances;
	if (open_instances)
		open_instances->prev = i;
	open_instances = i;
	return i;
}

/* The open session behind an `instance=` argument, or NULL (raised). */
static struct strobe_session *session_of(PyObject *o)
{
	if (!o || o == Py_None) {
		PyErr_SetString(PyExc_TypeError,
				"an instance is needed (strobe never changes the top-level "
				"tracing instance): use create_instance()");
		return NULL;
	}
	if (!PyObject_TypeCheck(o, &InstanceType)) {
		PyErr_Format(PyExc_TypeError, "instance must be a strobe.Instance, not %s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (!((InstanceObject *)o)->s) {
		PyErr_SetString(PyExc_ValueError, "the instance was destroyed");
		return NULL;
	}
	return ((InstanceObject *)o)->s;
}

static PyObject *Instance_name(InstanceObject *i, void *c)
{
	if (!i->s)
		Py_RETURN_NONE;
	return PyUnicode_FromString(strobe_session_name(i->s));
}

static PyObject *Instance_dir(InstanceObject *i, void *c)
{
	if (!i->s)
		Py_RETURN_NONE;
	return PyUnicode_FromString(strobe_session_dir(i->s));
}

static PyObject *Instance_detached(InstanceObject *i, void *c)
{
	return PyBool_FromLong(i->detached);
}

static PyObject *Instance_events(InstanceObject *i, void *c)
{
	const struct strobe_strv *sv;
	PyObject *l;
	size_t k;

	if (!i->s)
		return PyList_New(0);
	sv = strobe_session_events(i->s);
	l = PyList_New(0);
	for (k = 0; l && k < sv->n; k++) {
		PyObject *x = PyUnicode_FromString(sv->v[k]);

		if (!x || PyList_Append(l, x) < 0)
			Py_CLEAR(l);
		Py_XDECREF(x);
	}
	return l;
}

static PyObject *Instance_destroy(InstanceObject *i, PyObject *unused)
{
	int r;

	if (i->busy) {
		PyErr_SetString(PyExc_RuntimeError, "the instance is being iterated");
		return NULL;
	}
	r = instance_close(i, true);
	if (r < 0)
		return raise_os(r, "cannot remove the tracefs instance");
	Py_RETURN_NONE;
}

static PyObject *Instance_enter(InstanceObject *i, PyObject *unused)
{
	return Py_NewRef(i);
}

/* Leaving a with block closes the instance: removed unless detached. */
static PyObject *Instance_exit(InstanceObject *i, PyObject *args)
{
	if (!i->busy)
		instance_close(i, false);
	Py_RETURN_FALSE;
}

static PyObject *Instance_repr(InstanceObject *i)
{
	if (!i->s)
		return PyUnicode_FromString("<strobe.Instance (destroyed)>");
	return PyUnicode_FromFormat("<strobe.Instance %s%s>", strobe_session_name(i->s),
				    i->detached ? " (detached)" : "");
}

static PyGetSetDef Instance_getset[] = {
	{ "name", (getter)Instance_name, NULL, "the tracefs instance's name" },
	{ "dir", (getter)Instance_dir, NULL, "the instance's directory in tracefs" },
	{ "detached", (getter)Instance_detached, NULL,
	  "True if the instance stays when Python exits" },
	{ "events", (getter)Instance_events, NULL, "events enabled, as \"system:event\"" },
	{ NULL },
};

static PyMethodDef Instance_methods[] = {
	{ "destroy", (PyCFunction)Instance_destroy, METH_NOARGS,
	  "destroy(): remove the tracefs instance (even a detached one)" },
	{ "__enter__", (PyCFunction)Instance_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)Instance_exit, METH_VARARGS,
	  "close the instance: removed unless detached" },
	{ NULL },
};

static PyTypeObject InstanceType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe.Instance",
	.tp_basicsize = sizeof(InstanceObject),
	.tp_dealloc = (destructor)Instance_dealloc,
	.tp_repr = (reprfunc)Instance_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A tracefs instance of strobe's (create_instance, find_instance).\n"
		  "Usable as a context manager: leaving the block removes it unless\n"
		  "it was created with detach=True.",
	.tp_getset = Instance_getset,
	.tp_methods = Instance_methods,
};

static PyObject *py_create_instance(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "name", "tracing_on", "detach", NULL };
	const char *name = NULL;
	int tracing_on = 1, detach = 0, r;
	struct strobe_error err = { 0, "" };
	struct strobe_session *s;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|zpp:create_instance", kwl, &name,
					 &tracing_on, &detach))
		return NULL;
	if (name && !*name)
		name = NULL;
	if (detach && !name) {
		PyErr_SetString(PyExc_ValueError, "detach=True needs a name to find the instance by");
		return NULL;
	}
	if (!name)
		strobe_session_cleanup_stale(NULL, NULL);
	r = strobe_session_open_named(name, detach ? STROBE_SESSION_KEEP : 0, NULL, &s, &err);
	if (r == -EINVAL && name) {
		PyErr_SetString(PyExc_ValueError, err.msg);
		return NULL;
	}
	if (r < 0)
		return raise_os(r, err.msg);
	if (tracing_on && (r = strobe_session_set_tracing(s, true, &err)) < 0) {
		strobe_session_close(s);
		return raise_os(r, err.msg);
	}
	return (PyObject *)instance_wrap(s, detach);
}

static PyObject *py_find_instance(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "name", NULL };
	struct strobe_error err = { 0, "" };
	struct strobe_session *s;
	const char *name;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s:find_instance", kwl, &name))
		return NULL;
	r = strobe_session_open_named(name, STROBE_SESSION_ATTACH, NULL, &s, &err);
	if (r == -EINVAL) {
		PyErr_SetString(PyExc_ValueError, err.msg);
		return NULL;
	}
	if (r < 0)
		return raise_os(r, err.msg);
	return (PyObject *)instance_wrap(s, true);
}

static PyObject *py_destroy_instance(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", NULL };
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:destroy_instance", kwl, &o))
		return NULL;
	if (!session_of(o))
		return NULL;
	return Instance_destroy((InstanceObject *)o, NULL);
}

/* "system:event" from trace-cruncher's pair; None or "all" = every one. */
static void event_spec(char *buf, size_t size, const char *system, const char *event)
{
	if (!system || !strcmp(system, "all"))
		system = "*";
	if (!event || !strcmp(event, "all"))
		event = "*";
	snprintf(buf, size, "%s:%s", system, event);
}

enum ev_op { OP_ENABLE, OP_DISABLE, OP_FILTER, OP_CLEAR };

static PyObject *event_op(struct strobe_session *s, enum ev_op op, const char *system,
			  const char *event, const char *filter)
{
	struct strobe_error err = { 0, "" };
	char spec[512];
	int r;

	event_spec(spec, sizeof(spec), system, event);
	switch (op) {
	case OP_ENABLE:
		r = strobe_session_enable(s, spec, NULL, &err);
		break;
	case OP_DISABLE:
		r = strobe_session_disable(s, spec, &err);
		break;
	case OP_FILTER:
		r = strobe_session_set_filter(s, spec, filter, &err);
		break;
	default:
		r = strobe_session_set_filter(s, spec, NULL, &err);
		break;
	}
	if (r < 0)
		return raise_ev(r, &err);
	Py_RETURN_NONE;
}

static PyObject *one_event(PyObject *args, PyObject *kw, enum ev_op op, const char *fn)
{
	static char *kwl4[] = { "instance", "system", "event", "filter", NULL };
	static char *kwl3[] = { "instance", "system", "event", NULL };
	char **kwl = op == OP_FILTER ? kwl4 : kwl3;
	PyObject *inst = NULL;
	const char *system = NULL, *event = NULL, *filter = NULL;
	struct strobe_session *s;
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "|Ozz%s:%s", op == OP_FILTER ? "z" : "", fn);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwl, &inst, &system, &event, &filter))
		return NULL;
	s = session_of(inst);
	if (!s)
		return NULL;
	if (op == OP_FILTER && !filter) {
		PyErr_SetString(PyExc_TypeError, "set_event_filter needs filter=");
		return NULL;
	}
	return event_op(s, op, system, event, filter);
}

static PyObject *py_enable_event(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_ENABLE, "enable_event");
}

static PyObject *py_disable_event(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_DISABLE, "disable_event");
}

static PyObject *py_set_event_filter(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_FILTER, "set_event_filter");
}

static PyObject *py_clear_event_filter(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_CLEAR, "clear_event_filter");
}

/* enable_events(instance=, systems=[...], events=[[...], ...]) */
static PyObject *many_events(PyObject *args, PyObject *kw, enum ev_op op, const char *fn)
{
	static char *kwl[] = { "instance", "systems", "events", NULL };
	PyObject *inst = NULL, *systems = Py_None, *events = Py_None, *r;
	struct strobe_session *s;
	Py_ssize_t i, j, n;
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "|OOO:%s", fn);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwl, &inst, &systems, &events))
		return NULL;
	s = session_of(inst);
	if (!s)
		return NULL;
	if (systems == Py_None)
		return event_op(s, op, NULL, NULL, NULL);
	if (PyUnicode_Check(systems) || !PySequence_Check(systems)) {
		PyErr_SetString(PyExc_TypeError, "systems must be a list of system names");
		return NULL;
	}
	n = PySequence_Size(systems);
	for (i = 0; i < n; i++) {
		PyObject *sys = PySequence_GetItem(systems, i), *evs = NULL;
		const char *sysname;

		if (!sys)
			return NULL;
		sysname = PyUnicode_AsUTF8(sys);
		if (!sysname) {
			Py_DECREF(sys);
			return NULL;
		}
		if (events != Py_None) {
			evs = PySequence_GetItem(events, i);
			if (!evs) {
				Py_DECREF(sys);
				return NULL;
			}
		}
		if (!evs || evs == Py_None) {
			r = event_op(s, op, sysname, NULL, NULL);
			if (!r) {
				Py_DECREF(sys);
				Py_XDECREF(evs);
				return NULL;
			}
			Py_DECREF(r);
		} else {
			Py_ssize_t m = PySequence_Size(evs);

			for (j = 0; j < m; j++) {
				PyObject *ev = PySequence_GetItem(evs, j);
				const char *evname = ev ? PyUnicode_AsUTF8(ev) : NULL;

				r = evname ? event_op(s, op, sysname, evname, NULL) : NULL;
				Py_XDECREF(ev);
				if (!r) {
					Py_DECREF(sys);
					Py_DECREF(evs);
					return NULL;
				}
				Py_DECREF(r);
			}
		}
		Py_DECREF(sys);
		Py_XDECREF(evs);
	}
	Py_RETURN_NONE;
}

static PyObject *py_enable_events(PyObject *self, PyObject *a, PyObject *k)
{
	return many_events(a, k, OP_ENABLE, "enable_events");
}

static PyObject *py_disable_events(PyObject *self, PyObject *a, PyObject *k)
{
	return many_events(a, k, OP_DISABLE, "disable_events");
}

/* Every thread of process pid, followed at fork when asked. */
static int hook_pid(struct strobe_session *s, long pid, bool fork_follow)
{
	struct strobe_error err = { 0, "" };
	pid_t *tids = NULL, one = (pid_t)pid;
	size_t n = 0;
	int r;

	if (pid <= 0) {
		PyErr_Format(PyExc_ValueError, "bad pid %ld", pid);
		return -1;
	}
	/* a thread ID is not in /proc's listing: hook it alone */
	if (strobe_proc_threads(one, &tids, &n, NULL) < 0) {
		tids = NULL;
		n = 0;
	}
	r = strobe_session_set_pids(s, n ? tids : &one, n ? n : 1, fork_follow, &err);
	free(tids);
	if (r < 0) {
		raise_os(r, err.msg);
		return -1;
	}
	return 0;
}

static PyObject *py_hook2pid(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", "pid", "fork", NULL };
	PyObject *inst = NULL, *pid = NULL;
	struct strobe_session *s;
	int fork_follow = 1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|p:hook2pid", kwl, &inst, &pid,
					 &fork_follow))
		return NULL;
	s = session_of(inst);
	if (!s)
		return NULL;
	if (PyLong_Check(pid)) {
		long p = PyLong_AsLong(pid);

		if (p == -1 && PyErr_Occurred())
			return NULL;
		if (hook_pid(s, p, fork_follow) < 0)
			return NULL;
	} else {
		PyObject *it = PyObject_GetIter(pid), *x;

		if (!it)
			return NULL;
		while ((x = PyIter_Next(it))) {
			long p = PyLong_AsLong(x);

			Py_DECREF(x);
			if ((p == -1 && PyErr_Occurred()) || hook_pid(s, p, fork_follow) < 0) {
				Py_DECREF(it);
				return NULL;
			}
		}
		Py_DECREF(it);
		if (PyErr_Occurred())
			return NULL;
	}
	Py_RETURN_NONE;
}

static bool is_target_container(InstanceObject *i, const struct strobe_container *c)
{
	int k;

	if (!c || c->index < 2)
		return false;
	for (k = 0; k < i->nr_containers; k++)
		if (strobe_container_matches(c, i->containers[k]))
			return true;
	return false;
}

/* Hook a task that entered a target container (from a rescan). */
static void on_new_task(const struct strobe_task *t, void *arg)
{
	InstanceObject *i = arg;
	pid_t tid = t->tid;

	if (i->s && is_target_container(i, t->container))
		strobe_session_set_pids(i->s, &tid, 1, true, NULL);
}

static PyObject *py_hook2container(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", "container", NULL };
	struct strobe_error err = { 0, "" };
	const struct strobe_task *t;
	PyObject *inst = NULL;
	InstanceObject *i;
	const char *name;
	struct strobe_session *s;
	char **nv;
	size_t cur = 0;
	int k, r, n = 0, found = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Os:hook2container", kwl, &inst, &name))
		return NULL;
	s = session_of(inst);
	if (!s)
		return NULL;
	i = (InstanceObject *)inst;
	nv = realloc(i->containers, (i->nr_containers + 1) * sizeof(*nv));
	if (!nv)
		return PyErr_NoMemory();
	i->containers = nv;
	if (!(nv[i->nr_containers] = strdup(name)))
		return PyErr_NoMemory();
	i->nr_containers++;
	if (!i->hook_model) {
		r = strobe_model_new(&i->hook_model, &err);
		if (r == 0) {
			strobe_model_set_options(i->hook_model, STROBE_MODEL_NAMES);
			Py_BEGIN_ALLOW_THREADS
			r = strobe_model_load_proc(i->hook_model, &err);
			Py_END_ALLOW_THREADS
		}
		if (r < 0)
			goto fail;
	} else {
		Py_BEGIN_ALLOW_THREADS
		strobe_model_rescan_proc(i->hook_model, NULL, NULL, NULL);
		Py_END_ALLOW_THREADS
	}
	for (k = 2; k < strobe_model_nr_containers(i->hook_model); k++)
		found |= strobe_container_matches(strobe_model_container(i->hook_model, k), name);
	if (!found) {
		r = -ESRCH;
		snprintf(err.msg, sizeof(err.msg), "no running container '%s'", name);
		goto fail;
	}
	while ((t = strobe_model_next_task(i->hook_model, &cur))) {
		pid_t tid = t->tid;

		if (!strobe_container_matches(t->container, name) || t->container->index < 2)
			continue;
		/* a task may exit meanwhile: skip the gone */
		r = strobe_session_set_pids(s, &tid, 1, true, &err);
		if (r < 0 && r != -ESRCH)
			goto fail;
		n += r == 0;
	}
	if (!n) {
		r = -ESRCH;
		snprintf(err.msg, sizeof(err.msg), "container '%s' has no tasks", name);
		goto fail;
	}
	Py_RETURN_NONE;
fail:
	free(i->containers[--i->nr_containers]);
	return raise_os(r, err.msg);
}

static PyObject *tracing_set(PyObject *args, PyObject *kw, bool on, const char *fn)
{
	static char *kwl[] = { "instance", NULL };
	struct strobe_error err = { 0, "" };
	PyObject *inst = NULL;
	struct strobe_session *s;
	char fmt[64];
	int r;

	snprintf(fmt, sizeof(fmt), "|O:%s", fn);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwl, &inst))
		return NULL;
	s = session_of(inst);
	if (!s)
		return NULL;
	r = strobe_session_set_tracing(s, on, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	Py_RETURN_NONE;
}

static PyObject *py_tracing_ON(PyObject *self, PyObject *a, PyObject *k)
{
	return tracing_set(a, k, true, "tracing_ON");
}

static PyObject *py_tracing_OFF(PyObject *self, PyObject *a, PyObject *k)
{
	return tracing_set(a, k, false, "tracing_OFF");
}

static PyObject *py_is_tracing_ON(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", NULL };
	struct strobe_error err = { 0, "" };
	PyObject *inst = NULL;
	struct strobe_session *s;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:is_tracing_ON", kwl, &inst))
		return NULL;
	s = session_of(inst);
	if (!s)
		return NULL;
	r = strobe_session_tracing(s, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	return PyBool_FromLong(r);
}

/* ---- the live loop: iterate_trace, trace_process, live analyze ---------- */

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Has our child pid exited?  Looked at without reaping it. */
static bool exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		return si.si_pid == pid;
	return errno == ECHILD && kill(pid, 0) < 0 && errno == ESRCH;
}

enum why { W_END, W_STOP, W_TIMEOUT, W_TARGET, W_INTERRUPT, W_ERROR };

#define CONTAINER_SCAN_MS 100
#define TARGET_CHECK_MS 10
#define COALESCE_MS 2

struct loop {
	struct strobe_session *s;
	InstanceObject *inst;		/* for container rescans; may be NULL */
	PyObject *cb;			/* may be NULL (events only counted) */
	struct strobe_analysis *an;	/* live analyze: fed every event */
	int64_t deadline;		/* mono ms; 0 none */
	pid_t target;			/* stop when it exits; 0 none */
	struct strobe_capture *cap;
	struct strobe_stream *st;
	SourceObject *src;
	struct batch b;
	struct strobe_strv user;	/* events the user enabled */
	struct strobe_strv added;	/* model events the loop enabled */
	struct shown *shown;
	bool stopping;			/* capture stopped: draining */
	enum why why;
	int was_on;			/* tracing_on before the loop */
	int64_t next_scan;
	int64_t next_target_check;
	uint64_t events, batches;
	struct strobe_error err;
};

/* The events that keep the task model current (as strobe record's). */
static const char *const model_events[] = {
	"sched:sched_process_fork", "sched:sched_process_exec",
	"sched:sched_process_exit", "task:task_newtask", "task:task_rename",
	"cgroup:cgroup_attach_task",
};

static int strv_add(struct strobe_strv *sv, const char *s)
{
	char **nv = realloc(sv->v, (sv->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	sv->v = nv;
	if (!(nv[sv->n] = strdup(s)))
		return -ENOMEM;
	sv->n++;
	return 0;
}

/* Note what the user enabled, and enable the model's events besides
 * (hidden from the callback, disabled again at the end). */
static int loop_model_events(struct loop *l)
{
	const struct strobe_strv *ev = strobe_session_events(l->s);
	size_t i, j;

	for (i = 0; i < ev->n; i++)
		if (strv_add(&l->user, ev->v[i]) < 0)
			return -ENOMEM;
	for (i = 0; i < sizeof(model_events) / sizeof(model_events[0]); i++) {
		for (j = 0; j < l->user.n && strcmp(l->user.v[j], model_events[i]); j++)
			;
		if (j < l->user.n)
			continue;
		if (strobe_session_enable(l->s, model_events[i], NULL, NULL) > 0 &&
		    strv_add(&l->added, model_events[i]) < 0)
			return -ENOMEM;
	}
	l->shown = calloc(1, sizeof(*l->shown));
	if (!l->shown)
		return -ENOMEM;
	l->shown->user = &l->user;
	return 0;
}

/* Set up capture, stream, model and source; tracing still off.  -1 raised. */
static int loop_open(struct loop *l, struct strobe_session *s)
{
	int r;

	l->s = s;
	l->was_on = strobe_session_tracing(s, NULL);
	l->src = source_new();
	if (!l->src)
		return -1;
	if (loop_model_events(l) < 0) {
		PyErr_NoMemory();
		return -1;
	}
	l->b.buf = PyMem_RawMalloc(BATCH_BYTES);
	if (!l->b.buf) {
		PyErr_NoMemory();
		return -1;
	}
	batch_reset(&l->b);
	r = strobe_capture_open(s, NULL, &l->cap, &l->err);
	if (r == 0)
		r = strobe_capture_stream(l->cap, &l->st, &l->err);
	/* the stream goes to the source, which events keep alive */
	l->src->st = l->st;
	if (r == 0)
		r = strobe_model_new(&l->src->model, &l->err);
	if (r < 0) {
		raise_os(r, l->err.msg);
		return -1;
	}
	/* the tasks alive now, then tasks met for the first time are read
	 * from /proc; containers named */
	strobe_model_set_options(l->src->model, STROBE_MODEL_LIVE | STROBE_MODEL_NAMES);
	Py_BEGIN_ALLOW_THREADS
	strobe_model_load_proc(l->src->model, NULL);
	Py_END_ALLOW_THREADS
	return 0;
}

static int loop_start(struct loop *l)
{
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = strobe_capture_start(l->cap, &l->err);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		raise_os(r, l->err.msg);
		return -1;
	}
	l->next_scan = mono_ms() + CONTAINER_SCAN_MS;
	return 0;
}

/* What the last loop did, for benchmarks: events, batches, lost. */
static uint64_t last_events, last_batches, last_lost;

/* Tracing off and the capture freed; the session as it was before. */
static void loop_close(struct loop *l)
{
	struct strobe_stream_stats st;

	last_events = l->events;
	last_batches = l->batches;
	last_lost = 0;
	if (l->st) {
		strobe_stream_stats(l->st, &st);
		last_lost = st.missed;
	}
	Py_BEGIN_ALLOW_THREADS
	if (l->cap) {
		strobe_capture_stop(l->cap, NULL);
		strobe_capture_free(l->cap);
	}
	Py_END_ALLOW_THREADS
	l->cap = NULL;
	if (l->was_on == 1 && l->s)
		strobe_session_set_tracing(l->s, true, NULL);
	for (size_t i = 0; l->s && i < l->added.n; i++)
		strobe_session_disable(l->s, l->added.v[i], NULL);
	strobe_strv_free(&l->added);
	strobe_strv_free(&l->user);
	free(l->shown);
	l->shown = NULL;
	if (!l->src)
		strobe_stream_close(l->st);
	l->st = NULL;
	Py_CLEAR(l->src);
	PyMem_RawFree(l->b.buf);
	l->b.buf = NULL;
}

/* Without the GIL: a timeout or the target's exit stops the capture;
 * what it captured still drains through the callback. */
static void loop_check(struct loop *l)
{
	enum why w = W_END;

	if (l->stopping)
		return;
	int64_t now = mono_ms();

	if (l->deadline && now >= l->deadline) {
		w = W_TIMEOUT;
	} else if (l->target > 0 && now >= l->next_target_check) {
		/* a syscall: at most every TARGET_CHECK_MS */
		l->next_target_check = now + TARGET_CHECK_MS;
		if (exited(l->target))
			w = W_TARGET;
	}
	if (w == W_END)
		return;
	l->why = w;
	l->stopping = true;
	strobe_capture_stop(l->cap, NULL);
}

/* Without the GIL: fill a batch, waiting up to WAIT_MS when there is
 * nothing yet.  Returns what batch_fill returned last. */
static int loop_step(struct loop *l)
{
	int r, ms;

	batch_reset(&l->b);
	loop_check(l);
	if (l->inst && l->inst->nr_containers && l->inst->hook_model && !l->stopping &&
	    mono_ms() >= l->next_scan) {
		strobe_model_rescan_proc(l->inst->hook_model, on_new_task, l->inst, NULL);
		l->next_scan = mono_ms() + CONTAINER_SCAN_MS;
	}
	r = batch_fill(&l->b, l->st, l->src->model, l->an, l->shown, NULL, &l->err);
	/* a small batch while events flow: give the readers a moment to
	 * bring more, rather than a round trip through Python per page */
	if (r == -EAGAIN && l->b.n && l->b.n < BATCH_EVENTS / 4 && !l->stopping) {
		strobe_stream_wait(l->st, COALESCE_MS);
		r = batch_fill(&l->b, l->st, l->src->model, l->an, l->shown, NULL, &l->err);
	}
	if (r != -EAGAIN || l->b.n)
		return r;
	ms = WAIT_MS;
	if (l->deadline && !l->stopping) {
		int64_t left = l->deadline - mono_ms();

		ms = left < 1 ? 1 : left < ms ? (int)left : ms;
	}
	if (l->target > 0 && !l->stopping && ms > 20)
		ms = 20;
	strobe_stream_wait(l->st, ms);
	loop_check(l);
	return batch_fill(&l->b, l->st, l->src->model, l->an, l->shown, NULL, &l->err);
}

/*
 * Hand every event to the callback until the stream ends, a stop
 * condition holds, the callback returns STOP or raises, or Ctrl-C.
 * KeyboardInterrupt ends the loop cleanly (not raised); any other
 * exception is left set and -1 returned.
 */
static int loop_run(struct loop *l)
{
	EventObject *spare = NULL;
	const struct rec *rc;
	int r, ret = 0;
	bool done = false;

	while (!done) {
		Py_BEGIN_ALLOW_THREADS
		r = loop_step(l);
		Py_END_ALLOW_THREADS
		l->batches++;
		while ((rc = batch_next(&l->b))) {
			EventObject *e;
			PyObject *res;

			l->events++;
			if (!l->cb)
				continue;
			e = event_make(l->src, rc, spare);
			if (!e) {
				ret = -1;
				done = true;
				break;
			}
			Py_XDECREF(spare);
			spare = e;
			res = PyObject_CallOneArg(l->cb, (PyObject *)e);
			if (!res) {
				if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
					PyErr_Clear();
					l->why = W_INTERRUPT;
				} else {
					l->why = W_ERROR;
					ret = -1;
				}
				done = true;
				break;
			}
			if (res == Stop) {
				l->why = W_STOP;
				done = true;
			}
			Py_DECREF(res);
			if (done)
				break;
		}
		if (done)
			break;
		if (PyErr_CheckSignals() < 0) {
			if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
				PyErr_Clear();
				l->why = W_INTERRUPT;
			} else {
				l->why = W_ERROR;
				ret = -1;
			}
			break;
		}
		if (r == 0) {
			if (!l->stopping)
				l->why = W_END;
			break;
		}
		if (r < 0 && r != -EAGAIN) {
			raise_os(r, l->err.msg);
			l->why = W_ERROR;
			ret = -1;
			break;
		}
	}
	Py_XDECREF(spare);
	return ret;
}

static int timeout_ms(PyObject *timeout, int64_t *deadline)
{
	double t;

	*deadline = 0;
	if (!timeout || timeout == Py_None)
		return 0;
	t = PyFloat_AsDouble(timeout);
	if (t == -1.0 && PyErr_Occurred())
		return -1;
	if (t < 0) {
		PyErr_SetString(PyExc_ValueError, "timeout must be >= 0 seconds");
		return -1;
	}
	*deadline = mono_ms() + (int64_t)(t * 1000.0 + 0.5);
	if (*deadline == 0)
		*deadline = 1;
	return 0;
}

static PyObject *py_iterate_trace(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", "callback", "timeout", NULL };
	PyObject *inst = NULL, *cb = NULL, *timeout = Py_None;
	struct loop l;
	struct strobe_session *s;
	InstanceObject *i;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:iterate_trace", kwl, &inst, &cb,
					 &timeout))
		return NULL;
	s = session_of(inst);
	if (!s)
		return NULL;
	if (!PyCallable_Check(cb)) {
		PyErr_SetString(PyExc_TypeError, "callback must be callable");
		return NULL;
	}
	i = (InstanceObject *)inst;
	if (i->busy) {
		PyErr_SetString(PyExc_RuntimeError, "the instance is being iterated already");
		return NULL;
	}
	memset(&l, 0, sizeof(l));
	if (timeout_ms(timeout, &l.deadline) < 0)
		return NULL;
	l.cb = cb;
	l.inst = i;
	i->busy = true;
	Py_INCREF(inst);
	ret = loop_open(&l, s);
	if (ret == 0)
		ret = loop_start(&l);
	if (ret == 0)
		ret = loop_run(&l);
	loop_close(&l);
	i->busy = false;
	Py_DECREF(inst);
	if (ret < 0)
		return NULL;
	Py_RETURN_NONE;
}

/* ---- trace_process ----------------------------------------------------- */

static void free_argv(char **argv)
{
	char **p;

	for (p = argv; p && *p; p++)
		PyMem_Free(*p);
	PyMem_Free(argv);
}

/* A sequence of str/bytes/path-like into a NULL-terminated argv. */
static char **make_argv(PyObject *seq)
{
	Py_ssize_t n, i;
	char **argv;

	if (PyUnicode_Check(seq) || PyBytes_Check(seq) || !PySequence_Check(seq)) {
		PyErr_SetString(PyExc_TypeError, "argv must be a list of strings");
		return NULL;
	}
	n = PySequence_Size(seq);
	if (n <= 0) {
		PyErr_SetString(PyExc_ValueError, "argv is empty");
		return NULL;
	}
	argv = PyMem_Calloc(n + 1, sizeof(*argv));
	if (!argv)
		return (char **)PyErr_NoMemory();
	for (i = 0; i < n; i++) {
		PyObject *x = PySequence_GetItem(seq, i), *b = NULL;

		if (!x || !PyUnicode_FSConverter(x, &b)) {
			Py_XDECREF(x);
			free_argv(argv);
			return NULL;
		}
		Py_DECREF(x);
		argv[i] = PyMem_Malloc(PyBytes_GET_SIZE(b) + 1);
		if (!argv[i]) {
			Py_DECREF(b);
			free_argv(argv);
			return (char **)PyErr_NoMemory();
		}
		memcpy(argv[i], PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b) + 1);
		Py_DECREF(b);
	}
	return argv;
}

/*
 * Fork the command; it waits on *go (write end) until released, then
 * execs.  A failed exec writes its errno to *ex (read end; EOF means the
 * exec happened).
 */
static pid_t spawn(char **argv, int *go, int *ex)
{
	int g[2], e[2];
	pid_t pid;

	if (pipe2(g, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(e, O_CLOEXEC) < 0) {
		close(g[0]);
		close(g[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		sigset_t none;
		char c;
		ssize_t n;
		int err;

		/* Python ignores SIGPIPE; a command expects the default */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		do
			n = read(g[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		execvp(argv[0], argv);
		err = errno;
		if (write(e[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(g[0]);
	close(e[1]);
	if (pid < 0) {
		int err = errno;

		close(g[1]);
		close(e[0]);
		errno = err;
		return -1;
	}
	*go = g[1];
	*ex = e[0];
	return pid;
}

/* Reap the child; with sig, ask it to end first (SIGKILL after 2 s). */
static int reap(pid_t pid, int sig)
{
	int st = 0, i;
	pid_t r;

	if (sig)
		kill(pid, sig);
	for (i = 0; sig && i < 200; i++) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		usleep(10000);
	}
	if (sig)
		kill(pid, SIGKILL);
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	return st;
}

/* Enable each spec of a list, and set the filters of a dict. */
static int setup_events(struct strobe_session *s, PyObject *events, PyObject *filters)
{
	struct strobe_error err = { 0, "" };
	PyObject *k, *v;
	Py_ssize_t i, n, pos = 0;
	int r;

	if (!events || events == Py_None) {
		static const char *const dflt[] = { "sched", "syscalls" };

		for (i = 0; i < 2; i++)
			if ((r = strobe_session_enable(s, dflt[i], NULL, &err)) < 0)
				return raise_ev(r, &err), -1;
	} else {
		if (PyUnicode_Check(events) || !PySequence_Check(events)) {
			PyErr_SetString(PyExc_TypeError, "events must be a list of event names");
			return -1;
		}
		n = PySequence_Size(events);
		for (i = 0; i < n; i++) {
			PyObject *x = PySequence_GetItem(events, i);
			const char *spec = x ? PyUnicode_AsUTF8(x) : NULL;

			if (!spec) {
				Py_XDECREF(x);
				return -1;
			}
			r = strobe_session_enable(s, spec, NULL, &err);
			Py_DECREF(x);
			if (r < 0)
				return raise_ev(r, &err), -1;
		}
	}
	if (!filters || filters == Py_None)
		return 0;
	if (!PyDict_Check(filters)) {
		PyErr_SetString(PyExc_TypeError, "filters must be a dict {event: filter}");
		return -1;
	}
	while (PyDict_Next(filters, &pos, &k, &v)) {
		const char *spec = PyUnicode_AsUTF8(k), *f = PyUnicode_AsUTF8(v);

		if (!spec || !f)
			return -1;
		r = strobe_session_set_filter(s, spec, f, &err);
		if (r < 0)
			return raise_ev(r, &err), -1;
	}
	return 0;
}

static PyObject *py_trace_process(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "argv", "callback", "events", "filters", "timeout", NULL };
	PyObject *pargv, *cb = Py_None, *events = Py_None, *filters = Py_None,
		*timeout = Py_None;
	struct strobe_error err = { 0, "" };
	struct strobe_session *s = NULL;
	struct loop l;
	char **argv;
	pid_t child;
	enum why why;
	int go = -1, ex = -1, r, st, e = 0, ret;
	ssize_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOO:trace_process", kwl, &pargv, &cb,
					 &events, &filters, &timeout))
		return NULL;
	if (cb != Py_None && !PyCallable_Check(cb)) {
		PyErr_SetString(PyExc_TypeError, "callback must be callable or None");
		return NULL;
	}
	memset(&l, 0, sizeof(l));
	if (timeout_ms(timeout, &l.deadline) < 0)
		return NULL;
	argv = make_argv(pargv);
	if (!argv)
		return NULL;
	strobe_session_cleanup_stale(NULL, NULL);
	r = strobe_session_open(NULL, &s, &err);
	if (r < 0) {
		free_argv(argv);
		return raise_os(r, err.msg);
	}
	if (setup_events(s, events, filters) < 0)
		goto fail_session;
	child = spawn(argv, &go, &ex);
	if (child < 0) {
		raise_os(-errno, "cannot fork");
		goto fail_session;
	}
	r = strobe_session_set_pids(s, &child, 1, true, &err);
	if (r < 0) {
		raise_os(r, err.msg);
		goto fail_child;
	}
	l.cb = cb == Py_None ? NULL : cb;
	l.target = child;
	if (loop_open(&l, s) < 0 || loop_start(&l) < 0)
		goto fail_child;
	/* tracing is on: release the command, and learn whether it exec'd */
	if (write(go, "g", 1) != 1) {
		raise_os(-errno, "cannot start the command");
		goto fail_child;
	}
	close(go);
	go = -1;
	Py_BEGIN_ALLOW_THREADS
	do
		n = read(ex, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	Py_END_ALLOW_THREADS
	close(ex);
	ex = -1;
	if (n == (ssize_t)sizeof(e)) {
		char msg[600];

		snprintf(msg, sizeof(msg), "cannot run '%s': %s", argv[0], strerror(e));
		raise_os(-e, msg);
		goto fail_child;
	}
	ret = loop_run(&l);
	why = l.why;
	loop_close(&l);
	if (ret < 0) {
		/* the callback raised: the command goes too */
		Py_BEGIN_ALLOW_THREADS
		reap(child, SIGTERM);
		Py_END_ALLOW_THREADS
		strobe_session_close(s);
		free_argv(argv);
		return NULL;
	}
	/* as strobe record: a timeout ends the command, Ctrl-C passes on;
	 * otherwise (it exited, or STOP) it runs to its end */
	Py_BEGIN_ALLOW_THREADS
	st = reap(child, why == W_TIMEOUT ? SIGTERM : why == W_INTERRUPT ? SIGINT : 0);
	Py_END_ALLOW_THREADS
	strobe_session_close(s);
	free_argv(argv);
	if (WIFSIGNALED(st))
		return PyLong_FromLong(-WTERMSIG(st));
	return PyLong_FromLong(WEXITSTATUS(st));
fail_child:
	if (go >= 0)
		close(go);	/* an unreleased child sees EOF and exits */
	if (ex >= 0)
		close(ex);
	loop_close(&l);
	Py_BEGIN_ALLOW_THREADS
	reap(child, e ? 0 : SIGTERM);
	Py_END_ALLOW_THREADS
fail_session:
	strobe_session_close(s);
	free_argv(argv);
	return NULL;
}

/* ---- read_trace: a trace file's events --------------------------------- */

typedef struct {
	PyObject_HEAD
	SourceObject *src;
	struct batch b;
	EventObject *slot[2];	/* events handed out last; reused when
				 * nobody else holds them */
	int k;
	bool ended;
	bool busy;		/* a thread is filling the batch */
	uint64_t errors;	/* damaged pages skipped */
	struct strobe_error err;
} ReaderObject;

static void Reader_dealloc(ReaderObject *r)
{
	Py_XDECREF(r->slot[0]);
	Py_XDECREF(r->slot[1]);
	Py_XDECREF(r->src);
	PyMem_RawFree(r->b.buf);
	Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyObject *Reader_next(ReaderObject *r)
{
	const struct rec *rc;
	EventObject *e;
	int n;

	while (!(rc = batch_next(&r->b))) {
		if (r->ended)
			return NULL;	/* StopIteration */
		if (r->busy) {
			PyErr_SetString(PyExc_RuntimeError, "the reader is in use by another thread");
			return NULL;
		}
		batch_reset(&r->b);
		r->busy = true;
		Py_BEGIN_ALLOW_THREADS
		n = batch_fill(&r->b, r->src->st, r->src->model, NULL, NULL, r->src->tf, &r->err);
		if (n == 0) {
			struct strobe_stream_stats st;

			/* lost events and time going backwards join the diagnostics */
			strobe_stream_stats(r->src->st, &st);
			strobe_tracefile_events_done(r->src->tf, &st, NULL);
		}
		Py_END_ALLOW_THREADS
		r->busy = false;
		if (n == 0)
			r->ended = true;
		else if (n < 0 && n != -EAGAIN)
			r->errors++;	/* the bad page is skipped; go on */
		if (n == 0 && !r->b.n) {
			/* the file is read: drop it and the batch */
			PyMem_RawFree(r->b.buf);
			r->b.buf = NULL;
			batch_reset(&r->b);
			return NULL;
		}
	}
	e = event_make(r->src, rc, r->slot[r->k]);
	if (!e)
		return NULL;
	Py_XSETREF(r->slot[r->k], (EventObject *)Py_NewRef(e));
	r->k ^= 1;
	return (PyObject *)e;
}

static PyObject *Reader_errors(ReaderObject *r, void *c)
{
	return PyLong_FromUnsignedLongLong(r->errors);
}

/* [{"kind": ..., "message": ...}], as report --json's "diagnostics" */
static PyObject *Reader_diagnostics(ReaderObject *r, void *c)
{
	PyObject *l = PyList_New(0);
	int i, n = r->src ? strobe_tracefile_nr_diags(r->src->tf) : 0;

	for (i = 0; l && i < n; i++) {
		enum strobe_tf_diag_kind kind;
		const char *msg = strobe_tracefile_diag(r->src->tf, i, &kind);
		PyObject *d = Py_BuildValue("{ssss}", "kind", strobe_tf_diag_name(kind),
					    "message", msg ? msg : "");

		if (!d || PyList_Append(l, d) < 0)
			Py_CLEAR(l);
		Py_XDECREF(d);
	}
	return l;
}

static PyGetSetDef Reader_getset[] = {
	{ "errors", (getter)Reader_errors, NULL, "damaged pages skipped so far" },
	{ "diagnostics", (getter)Reader_diagnostics, NULL,
	  "what is wrong with the file, as [{\"kind\", \"message\"}]: known at open\n"
	  "(damage, an incomplete recording), and once every event was read\n"
	  "(lost events, time going backwards)" },
	{ NULL },
};

static PyTypeObject ReaderType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe.TraceReader",
	.tp_basicsize = sizeof(ReaderObject),
	.tp_dealloc = (destructor)Reader_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Iterator over a trace file's events, in time order (read_trace).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)Reader_next,
	.tp_getset = Reader_getset,
};

/* Open a trace file into a new Source (stream over every buffer, model
 * loaded from the file's process table). */
static SourceObject *open_file(PyObject *path)
{
	struct strobe_error err = { 0, "" };
	SourceObject *src;
	PyObject *b = NULL;
	int r, i;

	if (!PyUnicode_FSConverter(path, &b))
		return NULL;
	src = source_new();
	if (!src) {
		Py_DECREF(b);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	r = strobe_tracefile_open(PyBytes_AS_STRING(b), &src->tf, &err);
	if (r == 0)
		r = strobe_stream_open_file(src->tf, NULL, &src->st, &err);
	if (r == 0)
		r = strobe_model_new(&src->model, &err);
	if (r == 0)
		r = strobe_model_load_file(src->model, src->tf, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(b);
	if (r < 0) {
		Py_DECREF(src);
		return (SourceObject *)raise_os(r, err.msg);
	}
	src->nr_buffers = strobe_tracefile_nr_buffers(src->tf);
	src->buffers = PyMem_Calloc(src->nr_buffers ? src->nr_buffers : 1, sizeof(PyObject *));
	if (!src->buffers) {
		src->nr_buffers = 0;
		Py_DECREF(src);
		return (SourceObject *)PyErr_NoMemory();
	}
	for (i = 0; i < src->nr_buffers; i++) {
		struct strobe_tf_buffer_info info;

		if (strobe_tracefile_buffer(src->tf, i, &info) < 0 || !info.name || !info.name[0])
			src->buffers[i] = Py_NewRef(Py_None);
		else
			src->buffers[i] = PyUnicode_FromString(info.name);
		if (!src->buffers[i]) {
			Py_DECREF(src);
			return NULL;
		}
	}
	return src;
}

static PyObject *py_read_trace(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "path", NULL };
	ReaderObject *r;
	PyObject *path;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:read_trace", kwl, &path))
		return NULL;
	r = PyObject_New(ReaderObject, &ReaderType);
	if (!r)
		return NULL;
	r->src = NULL;
	r->slot[0] = r->slot[1] = NULL;
	r->k = 0;
	r->ended = false;
	r->busy = false;
	r->errors = 0;
	r->b.buf = PyMem_RawMalloc(BATCH_BYTES);
	batch_reset(&r->b);
	memset(&r->err, 0, sizeof(r->err));
	if (!r->b.buf) {
		Py_DECREF(r);
		return PyErr_NoMemory();
	}
	r->src = open_file(path);
	if (!r->src) {
		Py_DECREF(r);
		return NULL;
	}
	return (PyObject *)r;
}

/* ---- analyze ------------------------------------------------------------ */

/* {table name: [row dicts with the --json keys]} */
static PyObject *tables_dict(const struct strobe_analysis *a)
{
	PyObject *out = PyDict_New();
	int i, c, nc;
	size_t r, nr;

	for (i = 0; out && i < strobe_analysis_nr_tables(a); i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);
		PyObject *rows, *keys;

		nc = strobe_table_nr_columns(t);
		nr = strobe_table_nr_rows(t);
		rows = PyList_New((Py_ssize_t)nr);
		keys = PyTuple_New(nc);
		for (c = 0; keys && c < nc; c++) {
			PyObject *k = PyUnicode_InternFromString(strobe_table_column(t, c)->key);

			if (!k)
				Py_CLEAR(keys);
			else
				PyTuple_SET_ITEM(keys, c, k);
		}
		for (r = 0; rows && keys && r < nr; r++) {
			const union strobe_value *v = strobe_table_row(t, r);
			PyObject *row = PyDict_New(), *x;

			for (c = 0; row && c < nc; c++) {
				switch (strobe_table_column(t, c)->type) {
				case STROBE_COL_STR:
					x = PyUnicode_FromString(v[c].s ? v[c].s : "");
					break;
				case STROBE_COL_INT:
					x = PyLong_FromLongLong(v[c].i);
					break;
				case STROBE_COL_PERCENT:
					/* --json writes four decimals */
					x = PyFloat_FromDouble(
						(double)llround(v[c].d * 10000.0) / 10000.0);
					break;
				default:
					x = PyLong_FromUnsignedLongLong(v[c].u);
					break;
				}
				if (!x || PyDict_SetItem(row, PyTuple_GET_ITEM(keys, c), x) < 0)
					Py_CLEAR(row);
				Py_XDECREF(x);
			}
			if (!row)
				Py_CLEAR(rows);
			else
				PyList_SET_ITEM(rows, (Py_ssize_t)r, row);
		}
		Py_XDECREF(keys);
		if (!rows || PyDict_SetItemString(out, strobe_table_name(t), rows) < 0)
			Py_CLEAR(out);
		Py_XDECREF(rows);
	}
	return out;
}

static int parse_group(const char *g, enum strobe_group_by *out)
{
	static const struct { const char *name; enum strobe_group_by g; } tab[] = {
		{ "thread", STROBE_GROUP_THREAD }, { "tid", STROBE_GROUP_THREAD },
		{ "process", STROBE_GROUP_PROCESS }, { "pid", STROBE_GROUP_PROCESS },
		{ "container", STROBE_GROUP_CONTAINER }, { "cpu", STROBE_GROUP_CPU },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(g, tab[i].name)) {
			*out = tab[i].g;
			return 0;
		}
	PyErr_Format(PyExc_ValueError,
		     "group_by must be thread, process, container or cpu, not '%s'", g);
	return -1;
}

/* "stats" / ["top", "freq"] -> enum strobe_view bits */
static int parse_views(PyObject *o, unsigned *views)
{
	static const struct { const char *name; unsigned v; } tab[] = {
		{ "top", STROBE_VIEW_TOP }, { "stats", STROBE_VIEW_STATS },
		{ "freq", STROBE_VIEW_FREQ },
	};
	PyObject *seq;
	Py_ssize_t i, n;
	size_t k;

	*views = 0;
	if (!o || o == Py_None)
		return 0;
	seq = PyUnicode_Check(o) ? PyUnicode_Split(o, PyUnicode_FromString(","), -1)
				 : PySequence_List(o);
	if (!seq)
		return -1;
	n = PyList_GET_SIZE(seq);
	for (i = 0; i < n; i++) {
		const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(seq, i));

		if (!s) {
			Py_DECREF(seq);
			return -1;
		}
		for (k = 0; k < sizeof(tab) / sizeof(tab[0]) && strcmp(s, tab[k].name); k++)
			;
		if (k == sizeof(tab) / sizeof(tab[0])) {
			PyErr_Format(PyExc_ValueError, "views are top, stats and freq, not '%s'", s);
			Py_DECREF(seq);
			return -1;
		}
		*views |= tab[k].v;
	}
	Py_DECREF(seq);
	return 0;
}

static PyObject *py_analyze(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "source", "analyses", "group_by", "top", "views", "timeout", NULL };
	PyObject *source, *names = NULL, *views = Py_None, *timeout = Py_None, *joined = NULL,
		*out = NULL;
	const char *group = "thread", *cnames;
	struct strobe_analysis_opts o;
	struct strobe_error err = { 0, "" };
	struct strobe_analysis *a = NULL;
	int top = 0, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|siOO:analyze", kwl, &source, &names,
					 &group, &top, &views, &timeout))
		return NULL;
	memset(&o, 0, sizeof(o));
	if (parse_group(group, &o.group_by) < 0 || parse_views(views, &o.views) < 0)
		return NULL;
	o.top = top;
	if (PyUnicode_Check(names)) {
		joined = Py_NewRef(names);
	} else {
		PyObject *sep = PyUnicode_FromString(",");

		joined = sep ? PyUnicode_Join(sep, names) : NULL;
		Py_XDECREF(sep);
	}
	if (!joined)
		return NULL;
	cnames = PyUnicode_AsUTF8(joined);
	if (!cnames)
		goto out;
	r = strobe_analysis_new(cnames, &o, &a, &err);
	if (r == -EINVAL) {
		PyErr_SetString(PyExc_ValueError, err.msg);
		goto out;
	}
	if (r < 0) {
		raise_os(r, err.msg);
		goto out;
	}
	if (PyObject_TypeCheck(source, &InstanceType)) {
		struct strobe_session *s = session_of(source);
		InstanceObject *i = (InstanceObject *)source;
		struct loop l;
		int ret;

		if (!s)
			goto out;
		if (i->busy) {
			PyErr_SetString(PyExc_RuntimeError, "the instance is being iterated already");
			goto out;
		}
		memset(&l, 0, sizeof(l));
		if (timeout_ms(timeout, &l.deadline) < 0)
			goto out;
		l.inst = i;
		l.an = a;
		i->busy = true;
		ret = loop_open(&l, s);
		if (ret == 0) {
			r = strobe_analysis_attach_stream(a, l.st, l.src->model, &err);
			if (r < 0) {
				PyErr_SetString(r == -ENOENT ? PyExc_ValueError : PyExc_OSError, err.msg);
				ret = -1;
			}
		}
		if (ret == 0)
			ret = loop_start(&l);
		if (ret == 0)
			ret = loop_run(&l);
		/* the tables point into the model: finish while it lives */
		if (ret == 0 && (r = strobe_analysis_finish(a, &err)) < 0) {
			raise_os(r, err.msg);
			ret = -1;
		}
		if (ret == 0)
			out = tables_dict(a);
		loop_close(&l);
		i->busy = false;
		goto out;
	} else {
		SourceObject *src = open_file(source);

		if (!src)
			goto out;
		Py_BEGIN_ALLOW_THREADS
		r = strobe_analysis_run_file(a, src->tf, &err);
		Py_END_ALLOW_THREADS
		Py_DECREF(src);
		if (r < 0) {
			if (r == -ENOENT)
				PyErr_SetString(PyExc_ValueError, err.msg);
			else
				raise_os(r, err.msg);
			goto out;
		}
	}
	r = strobe_analysis_finish(a, &err);
	if (r < 0) {
		raise_os(r, err.msg);
		goto out;
	}
	out = tables_dict(a);
out:
	Py_XDECREF(joined);
	strobe_analysis_free(a);
	return out;
}

static PyObject *py_analysis_names(PyObject *self, PyObject *unused)
{
	const char *const *n = strobe_analysis_names();
	PyObject *l = PyList_New(0);

	for (; l && *n; n++) {
		PyObject *x = PyUnicode_FromString(*n);

		if (!x || PyList_Append(l, x) < 0)
			Py_CLEAR(l);
		Py_XDECREF(x);
	}
	return l;
}

/* ---- module ------------------------------------------------------------- */

static PyObject *py_last_loop(PyObject *self, PyObject *unused)
{
	return Py_BuildValue("{sKsKsK}", "events", (unsigned long long)last_events, "batches",
			     (unsigned long long)last_batches, "lost",
			     (unsigned long long)last_lost);
}

/* Instances made here go when Python exits, unless detached (atexit). */
static PyObject *py_cleanup(PyObject *self, PyObject *unused)
{
	InstanceObject *i = open_instances, *next;

	for (; i; i = next) {
		next = i->next;
		if (!i->busy)
			instance_close(i, false);
	}
	Py_RETURN_NONE;
}

static PyObject *py_available_events(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "pattern", NULL };
	struct strobe_error err = { 0, "" };
	struct strobe_strv sv = { NULL, 0 };
	const char *glob = NULL;
	PyObject *l;
	size_t k;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|z:available_events", kwl, &glob))
		return NULL;
	r = strobe_events_list(glob, &sv, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	l = PyList_New(0);
	for (k = 0; l && k < sv.n; k++) {
		PyObject *x = PyUnicode_FromString(sv.v[k]);

		if (!x || PyList_Append(l, x) < 0)
			Py_CLEAR(l);
		Py_XDECREF(x);
	}
	strobe_strv_free(&sv);
	return l;
}

typedef struct {
	PyObject_HEAD
} StopObject;

static PyObject *Stop_repr(PyObject *o)
{
	return PyUnicode_FromString("strobe.STOP");
}

static PyTypeObject StopType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe._Stop",
	.tp_basicsize = sizeof(StopObject),
	.tp_repr = Stop_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Return strobe.STOP from a callback to end the iteration.",
};

#define KW (PyCFunction)(void (*)(void))

static PyMethodDef methods[] = {
	{ "create_instance", KW py_create_instance, METH_VARARGS | METH_KEYWORDS,
	  "create_instance($module, /, name=None, tracing_on=True, detach=False)\n--\n\n"
	  "A new tracefs instance (\"strobe-<pid>\" unless named), as an Instance.\n"
	  "It is removed when the Instance is destroyed, leaves a with block, or\n"
	  "Python exits, unless created with a name and detach=True\n"
	  "(find_instance(name) finds it later).  OSError (PermissionError ...)\n"
	  "when tracefs cannot be used, FileExistsError for a name in use." },
	{ "find_instance", KW py_find_instance, METH_VARARGS | METH_KEYWORDS,
	  "find_instance($module, /, name)\n--\n\n"
	  "Attach to an existing instance, as an Instance; it is left in place at\n"
	  "exit (destroy it with destroy_instance).  FileNotFoundError if there\n"
	  "is none." },
	{ "destroy_instance", KW py_destroy_instance, METH_VARARGS | METH_KEYWORDS,
	  "destroy_instance($module, /, instance)\n--\n\n"
	  "Remove the tracefs instance, detached or not." },
	{ "enable_event", KW py_enable_event, METH_VARARGS | METH_KEYWORDS,
	  "enable_event($module, /, instance, system=None, event=None)\n--\n\n"
	  "Enable an event (globs allowed; event None: the whole system).\n"
	  "ValueError naming close events when nothing matches." },
	{ "enable_events", KW py_enable_events, METH_VARARGS | METH_KEYWORDS,
	  "enable_events($module, /, instance, systems=None, events=None)\n--\n\n"
	  "Enable events[i] (a list of names) of systems[i] (a list of systems);\n"
	  "events None or events[i] None: every event of the system." },
	{ "disable_event", KW py_disable_event, METH_VARARGS | METH_KEYWORDS,
	  "disable_event($module, /, instance, system=None, event=None)\n--\n\n"
	  "Disable an event (globs allowed; event None: the whole system)." },
	{ "disable_events", KW py_disable_events, METH_VARARGS | METH_KEYWORDS,
	  "disable_events($module, /, instance, systems=None, events=None)\n--\n\n"
	  "Disable events[i] of systems[i], as enable_events enables them." },
	{ "set_event_filter", KW py_set_event_filter, METH_VARARGS | METH_KEYWORDS,
	  "set_event_filter($module, /, instance, system, event, filter)\n--\n\n"
	  "Set a kernel filter (\"prev_pid == 42\").  ValueError with the kernel's\n"
	  "error_log text when it refuses the filter." },
	{ "clear_event_filter", KW py_clear_event_filter, METH_VARARGS | METH_KEYWORDS,
	  "clear_event_filter($module, /, instance, system, event)\n--\n\n"
	  "Remove an event's kernel filter." },
	{ "hook2pid", KW py_hook2pid, METH_VARARGS | METH_KEYWORDS,
	  "hook2pid($module, /, instance, pid, fork=True)\n--\n\n"
	  "Trace only these processes (an int or a list; every thread of each)\n"
	  "and, with fork, every task they create from now on.\n"
	  "ProcessLookupError when one is gone." },
	{ "hook2container", KW py_hook2container, METH_VARARGS | METH_KEYWORDS,
	  "hook2container($module, /, instance, container)\n--\n\n"
	  "Trace only the tasks of a running container (name, ID or ID prefix),\n"
	  "their children, and tasks that enter it later (podman exec) while\n"
	  "iterating.  ProcessLookupError when no such container runs." },
	{ "tracing_ON", KW py_tracing_ON, METH_VARARGS | METH_KEYWORDS,
	  "tracing_ON($module, /, instance)\n--\n\nTurn the instance's tracing on." },
	{ "tracing_OFF", KW py_tracing_OFF, METH_VARARGS | METH_KEYWORDS,
	  "tracing_OFF($module, /, instance)\n--\n\nTurn the instance's tracing off." },
	{ "is_tracing_ON", KW py_is_tracing_ON, METH_VARARGS | METH_KEYWORDS,
	  "is_tracing_ON($module, /, instance)\n--\n\nTrue if the instance's tracing is on." },
	{ "iterate_trace", KW py_iterate_trace, METH_VARARGS | METH_KEYWORDS,
	  "iterate_trace($module, /, instance, callback, timeout=None)\n--\n\n"
	  "Trace live and call callback(event) for every event, in time order,\n"
	  "from now until callback returns strobe.STOP, timeout seconds pass (the\n"
	  "events captured until then are still delivered), or Ctrl-C (ends the\n"
	  "iteration without raising).  An exception in the callback stops\n"
	  "tracing and propagates.  Events are delivered in batches; the GIL is\n"
	  "released while waiting and decoding." },
	{ "trace_process", KW py_trace_process, METH_VARARGS | METH_KEYWORDS,
	  "trace_process($module, /, argv, callback=None, events=None, filters=None,"
	  " timeout=None)\n--\n\n"
	  "Run a command traced from its first instruction, children followed,\n"
	  "calling callback(event) for its events until it exits; returns its\n"
	  "exit status (-N when killed by signal N).  On timeout the command is\n"
	  "sent SIGTERM, on Ctrl-C SIGINT; after STOP it runs to its end.\n"
	  "events: specs such as \"sched\", \"syscalls:sys_enter_read\" (default:\n"
	  "sched and syscalls); filters: {\"syscalls:sys_enter_read\": \"fd == 0\"}." },
	{ "read_trace", KW py_read_trace, METH_VARARGS | METH_KEYWORDS,
	  "read_trace($module, /, path)\n--\n\n"
	  "An iterator over every Event of a trace.dat file (v6 or v7, every\n"
	  "buffer), in time order, with threads, processes and containers from\n"
	  "the file's table." },
	{ "analyze", KW py_analyze, METH_VARARGS | METH_KEYWORDS,
	  "analyze($module, /, source, analyses, group_by='thread', top=0, views=None,"
	  " timeout=None)\n--\n\n"
	  "Run analyses (\"syscalls\", [\"cputop\", \"schedlat\"], ...) over a trace file\n"
	  "(a path) or live over an Instance (for timeout seconds, or until Ctrl-C)\n"
	  "and return {table name: [row dicts]} with the keys of --json.\n"
	  "group_by: thread, process, container or cpu; views: top, stats, freq." },
	{ "analysis_names", py_analysis_names, METH_NOARGS,
	  "analysis_names($module, /)\n--\n\nThe analyses analyze() knows, as a list." },
	{ "available_events", KW py_available_events, METH_VARARGS | METH_KEYWORDS,
	  "available_events($module, /, pattern=None)\n--\n\n"
	  "The kernel's events as a sorted list of \"system:event\" (a glob\n"
	  "pattern selects)." },
	{ "_cleanup", py_cleanup, METH_NOARGS, "remove this module's instances (atexit)" },
	{ "_last_loop", py_last_loop, METH_NOARGS,
	  "what the last live loop did: {events, batches, lost} (benchmarks)" },
	{ NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "strobe._strobe",
	.m_doc = "C half of the strobe module: see help(strobe).",
	.m_size = -1,
	.m_methods = methods,
};

PyMODINIT_FUNC PyInit__strobe(void)
{
	PyObject *m;

	if (PyType_Ready(&SourceType) < 0 || PyType_Ready(&EventType) < 0 ||
	    PyType_Ready(&InstanceType) < 0 || PyType_Ready(&ReaderType) < 0 ||
	    PyType_Ready(&StopType) < 0)
		return NULL;
	m = PyModule_Create(&module);
	if (!m)
		return NULL;
	Stop = (PyObject *)PyObject_New(StopObject, &StopType);
	if (!Stop || PyModule_AddObjectRef(m, "STOP", Stop) < 0 ||
	    PyModule_AddObjectRef(m, "Event", (PyObject *)&EventType) < 0 ||
	    PyModule_AddObjectRef(m, "Instance", (PyObject *)&InstanceType) < 0 ||
	    PyModule_AddObjectRef(m, "TraceReader", (PyObject *)&ReaderType) < 0 ||
	    PyModule_AddStringConstant(m, "version", strobe_version()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
