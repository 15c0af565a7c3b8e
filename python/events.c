/*
 * events.c - events on their way to Python: event types with their
 * fields resolved once (struct ftype, the only code that enumerates a
 * format's fields), the Source that owns what events point into, the
 * pipeline consumer that fills batches without the GIL, the Event object
 * (payload inline, fields decoded on access, reused when nobody kept
 * it), and a pipeline's diagnostics as Python sees them (a list, warnings,
 * strict=True's exception).  See _strobe.c's head comment for the whole
 * path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_strobe.h"

/* ---- errors ------------------------------------------------------------- */

/* OSError(errno, message): Python picks the subclass (PermissionError ...). */
PyObject *raise_os(int code, const char *msg)
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
PyObject *raise_ev(int code, const struct strobe_error *err)
{
	if (code == -ENOENT || code == -EINVAL) {
		PyErr_SetString(PyExc_ValueError, err->msg[0] ? err->msg : strerror(-code));
		return NULL;
	}
	return raise_os(code, err->msg);
}

/* ---- event types: names and fields, resolved once per type ------------- */

/* What one field is, as the format describes it. */
struct fdesc {
	const char *name;
	int offset, size;
	bool is_signed, is_array, is_dynamic, is_string, common;
	int elem;		/* element size of arrays, 0 unknown */
	int arraylen;
};

/* Element size of a dynamic array from its type ("__data_loc u32[]"),
 * the JSON writer's rule, when the format does not say. */
static int type_elem_size(const char *t)
{
	return strstr(t, "long long") || strstr(t, "64") ? 8 :
	       strstr(t, "long") ? (int)sizeof(long) :
	       strstr(t, "short") || strstr(t, "16") ? 2 :
	       strstr(t, "char") || strstr(t, "8") || strstr(t, "bool") ? 1 :
	       strstr(t, "int") || strstr(t, "32") || strstr(t, "pid_t") ? 4 : 1;
}

/*
 * Every field of format `fmt`, the common ones first, from the format
 * catalogue (strobe_format_field; the common fields by name).  Fills at
 * most max entries and returns how many there are.
 */
static int format_fields(const struct strobe_format *fmt, struct fdesc *out, int max)
{
	static const char *const common[] = {
		"common_type", "common_flags", "common_preempt_count", "common_pid",
	};
	struct strobe_field_info in;
	struct strobe_field f;
	int n = 0, i, nr;
	size_t k;

	for (k = 0; k < sizeof(common) / sizeof(common[0]) && n < max; k++) {
		if (strobe_field_resolve(fmt, common[k], &f) < 0)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].name = common[k];
		out[n].offset = f.offset;
		out[n].size = f.size;
		out[n].is_signed = f.is_signed;
		out[n].common = true;
		n++;
	}
	nr = strobe_format_nr_fields(fmt);
	for (i = 0; i < nr && n < max; i++) {
		struct fdesc *d = &out[n];
		const char *br;

		if (strobe_format_field(fmt, i, &in) < 0)
			continue;
		memset(d, 0, sizeof(*d));
		d->name = in.name;
		d->offset = in.field.offset;
		d->size = in.field.size;
		d->is_signed = in.field.is_signed;
		d->is_dynamic = in.field.is_dynamic;
		d->is_array = in.is_array;
		d->is_string = in.is_string || (in.type && strstr(in.type, "char"));
		d->elem = in.elem_size;
		/* "unsigned long[6]": the element count, when the format gave
		 * no element size */
		br = in.type ? strrchr(in.type, '[') : NULL;
		d->arraylen = br ? atoi(br + 1) : 0;
		if (d->is_array && d->elem == in.field.size) {
			if (d->is_dynamic)
				d->elem = in.type ? type_elem_size(in.type) : 1;
			else if (d->arraylen > 0)
				d->elem = d->size / d->arraylen;
		}
		n++;
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
	Py_XDECREF(s->host);
	Py_TYPE(s)->tp_free((PyObject *)s);
}

PyTypeObject SourceType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe._Source",
	.tp_basicsize = sizeof(SourceObject),
	.tp_dealloc = (destructor)Source_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "What events point into: a stream, its formats, the task model.",
};

/* A new, empty Source (every pointer NULL). */
SourceObject *source_new(void)
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
		s->host = Py_NewRef(Py_None);
	}
	return s;
}

/* The type of events with this id and format, made on first sight. */
static struct ftype *source_type(SourceObject *s, int id, const struct strobe_format *format)
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
		e.format = format;
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

/* ---- the batch consumer: events copied out of a pipeline without the GIL */

int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t rec_bytes(uint32_t size)
{
	return (sizeof(struct rec) + size + 7) & ~(size_t)7;
}

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

static int fill_start(const struct strobe_pipeline_source *srcs, int nr, void *arg,
		      struct strobe_error *err)
{
	struct filler *f = arg;

	f->srcs = srcs;
	f->nr_srcs = nr;
	f->model = nr == 1 ? srcs[0].model : NULL;
	return 0;
}

/*
 * Without the GIL: the pipeline updated the source's model with ev; copy
 * ev into the batch (the model's own events of a live loop feed the
 * model only), and pause the run when the batch is full.  Kept short:
 * reading a file costs this per event.
 */
static int fill_event(const struct strobe_event *ev, int source, void *arg,
		      struct strobe_error *err)
{
	struct filler *f = arg;
	struct batch *b = &f->b;
	const struct strobe_task *t = NULL;
	struct strobe_model *m;
	struct rec *rc;
	uint32_t size;

	if (__builtin_expect(!f->plain, 0)) {
		if (f->ending)
			return STROBE_CONSUMER_DONE;
		if (f->shown && !is_shown(f->shown, ev))
			return 0;
		if (!f->copy) {
			/* counted alone (no callback): batches still pause the
			 * run now and then, so that Python sees signals */
			f->events++;
			return ++b->n >= BATCH_EVENTS ? STROBE_CONSUMER_YIELD : 0;
		}
	}
	f->events++;
	size = ev->size > MAX_PAYLOAD ? MAX_PAYLOAD : ev->size;
	rc = (struct rec *)(b->buf + b->used);
	rc->ts = ev->ts;
	rc->missed = ev->missed;
	rc->format = ev->format;
	rc->cpu = ev->cpu;
	rc->pid = ev->pid;
	rc->type = ev->type;
	rc->buffer = ev->buffer;
	rc->size = size;
	rc->source = source;
	memcpy(rc + 1, ev->data, size);
	m = f->model ? f->model : source < f->nr_srcs ? f->srcs[source].model : NULL;
	if (m)
		t = strobe_model_task(m, ev->pid);
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
	b->used += rec_bytes(size);
	if (++b->n >= BATCH_EVENTS || b->used > BATCH_BYTES - rec_bytes(MAX_PAYLOAD))
		return STROBE_CONSUMER_YIELD;
	return 0;
}

/* The live input is idle: hand out what the batch holds, and look at
 * signals every IDLE_YIELD_MS. */
static int fill_idle(void *arg, struct strobe_error *err)
{
	struct filler *f = arg;

	if (f->ending)
		return STROBE_CONSUMER_DONE;
	if (f->b.n || mono_ms() >= f->idle_until)
		return STROBE_CONSUMER_YIELD;
	return 0;
}

void filler_end(struct filler *f)
{
	f->ending = true;
	f->plain = false;
}

void filler_consumer(struct filler *f, struct strobe_consumer *c)
{
	f->plain = f->copy && !f->shown && !f->ending;
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->name = "the Python module";
	c->start = fill_start;
	c->event = fill_event;
	c->idle = fill_idle;
	c->arg = f;
}

void batch_reset(struct batch *b)
{
	b->used = b->pos = 0;
	b->n = 0;
}

/* The next filled record, or NULL. */
const struct rec *batch_next(struct batch *b)
{
	const struct rec *r;

	if (b->pos >= b->used)
		return NULL;
	r = (const struct rec *)(b->buf + b->pos);
	b->pos += rec_bytes(r->size);
	return r;
}

/* ---- diagnostics: a list, warnings, strict's exception ------------------- */

/* Diagnostic i of p as {"kind", "message", "source"}; its kind and source. */
static PyObject *diag_dict(const struct strobe_pipeline *p, int i, SourceObject **srcs, int nr,
			   enum strobe_tf_diag_kind *kind, int *src)
{
	const char *msg, *path;

	*kind = 0;
	*src = -1;
	msg = strobe_pipeline_diag(p, i, kind, src);
	path = *src >= 0 && *src < nr && srcs[*src]->tf ? strobe_tracefile_path(srcs[*src]->tf)
							: NULL;
	return Py_BuildValue("{sssssz}", "kind", strobe_tf_diag_name(*kind), "message",
			     msg ? msg : "", "source", path);
}

PyObject *diags_list(const struct strobe_pipeline *p, SourceObject **srcs, int nr)
{
	PyObject *l = PyList_New(0);
	enum strobe_tf_diag_kind kind;
	int i, src;

	for (i = 0; l && i < strobe_pipeline_nr_diags(p); i++) {
		PyObject *d = diag_dict(p, i, srcs, nr, &kind, &src);

		if (!d || PyList_Append(l, d) < 0)
			Py_CLEAR(l);
		Py_XDECREF(d);
	}
	return l;
}

/* warnings.warn(cls(message)) at the caller's line, the warning
 * carrying the diagnostic dict as its `diagnostic` attribute. */
int warn_one(PyObject *cls, PyObject *diag)
{
	PyObject *w = PyObject_CallOneArg(cls, PyDict_GetItemString(diag, "message"));
	PyObject *mod = NULL, *res = NULL;

	if (w && PyObject_SetAttrString(w, "diagnostic", diag) == 0)
		mod = PyImport_ImportModule("warnings");
	if (mod)
		res = PyObject_CallMethod(mod, "warn", "Oi", w, 1);
	Py_XDECREF(mod);
	Py_XDECREF(w);
	if (!res)
		return -1;
	Py_DECREF(res);
	return 0;
}

int warn_diags(const struct strobe_pipeline *p, SourceObject **srcs, int *warned, int nr)
{
	enum strobe_tf_diag_kind kind;
	int i, src, cur = -1, k = 0, r;

	for (i = 0; i < strobe_pipeline_nr_diags(p); i++) {
		PyObject *d = diag_dict(p, i, srcs, nr, &kind, &src);

		if (!d)
			return -1;
		/* diagnostics come in source order: k is i's place in its source */
		k = src == cur ? k + 1 : 0;
		cur = src;
		r = 0;
		if (src >= 0 && src < nr && k >= warned[src]) {
			warned[src] = k + 1;
			r = warn_one(strobe_tf_diag_is_damage(kind) ? DamagedDataWarning
								    : TraceWarning, d);
		}
		Py_DECREF(d);
		if (r < 0)
			return -1;
	}
	return 0;
}

int strict_damage(const struct strobe_pipeline *p)
{
	int i, n = strobe_pipeline_nr_diags(p);

	for (i = 0; i < n; i++) {
		enum strobe_tf_diag_kind kind = 0;
		const char *msg = strobe_pipeline_diag(p, i, &kind, NULL);
		struct strobe_error e = { -EBADMSG, "" };

		if (!strobe_tf_diag_is_damage(kind))
			continue;
		snprintf(e.msg, sizeof(e.msg), "damaged data (strict): %s", msg ? msg : "");
		raise_run(-EBADMSG, &e);
		return -1;
	}
	return 0;
}

PyObject *raise_run(int code, const struct strobe_error *err)
{
	PyObject *args;

	if (code == -ENOENT || code == -EINVAL) {	/* an unknown name, an expression
							 * the trace cannot satisfy */
		PyErr_SetString(PyExc_ValueError, err->msg[0] ? err->msg : strerror(-code));
		return NULL;
	}
	if (code != -EBADMSG)
		return raise_os(code, err->msg);
	args = Py_BuildValue("(is)", EBADMSG, err->msg[0] ? err->msg : strerror(EBADMSG));
	if (args) {
		PyErr_SetObject(DamagedDataError, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* ---- Event ------------------------------------------------------------ */

static void Event_dealloc(EventObject *e)
{
	Py_XDECREF(e->src);
	Py_TYPE(e)->tp_free((PyObject *)e);
}

/*
 * An Event for record r of src: `reuse` when only the caller holds it
 * and the payload fits, else a new one.  Returns a new reference.
 */
EventObject *event_make(SourceObject *src, const struct rec *r, EventObject *reuse)
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
	v->format = e->r.format;
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

static PyObject *Event_host(EventObject *e, void *c)
{
	return Py_NewRef(e->src->host);
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
	{ "host", (getter)Event_host, NULL,
	  "host of the trace file the event comes from, as strobe's host column\n"
	  "names it (\"?\" when the file does not say, \"NAME#2\" for a second\n"
	  "file of one host); None live" },
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

PyTypeObject EventType = {
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
