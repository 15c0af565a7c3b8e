/*
 * files.c - trace files: read_trace's iterator (batches filled without
 * the GIL, the two Events handed out last reused when the loop dropped
 * them, the file's diagnostics), and analyze() over a file or live over
 * an Instance, returning the result tables as dicts.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "_strobe.h"

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

PyTypeObject ReaderType = {
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

PyObject *py_read_trace(PyObject *self, PyObject *args, PyObject *kw)
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
PyObject *tables_dict(const struct strobe_analysis *a)
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

int parse_group(const char *g, enum strobe_group_by *out)
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
int parse_views(PyObject *o, unsigned *views)
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

/* filter: None, one expression or a sequence of them (ANDed, as several
 * --filter options).  *keep holds the strings that *out points into;
 * *out is PyMem_Malloc'd. */
int parse_filters(PyObject *filter, PyObject **keep, const char ***out, int *n)
{
	Py_ssize_t i, len;

	*keep = NULL;
	*out = NULL;
	*n = 0;
	if (!filter || filter == Py_None)
		return 0;
	if (PyUnicode_Check(filter))
		*keep = PyTuple_Pack(1, filter);
	else
		*keep = PySequence_Tuple(filter);
	if (!*keep) {
		PyErr_Clear();
		PyErr_SetString(PyExc_TypeError, "filter must be a string or a list of strings");
		return -1;
	}
	len = PyTuple_GET_SIZE(*keep);
	*out = PyMem_Malloc((size_t)(len ? len : 1) * sizeof(**out));
	if (!*out) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < len; i++) {
		PyObject *x = PyTuple_GET_ITEM(*keep, i);

		if (!PyUnicode_Check(x)) {
			PyErr_SetString(PyExc_TypeError, "filter must be a string or a list of strings");
			return -1;
		}
		if (!((*out)[i] = PyUnicode_AsUTF8(x)))
			return -1;
	}
	*n = (int)len;
	return 0;
}

PyObject *py_analyze(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "source", "analyses", "group_by", "top", "views", "timeout",
			       "filter", NULL };
	PyObject *source, *names = NULL, *views = Py_None, *timeout = Py_None, *joined = NULL,
		*out = NULL, *filter = Py_None, *fkeep = NULL;
	const char *group = "thread", *cnames, **filters = NULL;
	struct strobe_analysis_opts o;
	struct strobe_error err = { 0, "" };
	struct strobe_analysis *a = NULL;
	int top = 0, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|siOOO:analyze", kwl, &source, &names,
					 &group, &top, &views, &timeout, &filter))
		return NULL;
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	if (parse_group(group, &o.group_by) < 0 || parse_views(views, &o.views) < 0)
		return NULL;
	if (parse_filters(filter, &fkeep, &filters, &o.nr_filters) < 0)
		goto out;
	o.filters = filters;
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
		if (timeout_ms(timeout, &l.limit) < 0)
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
	PyMem_Free(filters);
	Py_XDECREF(fkeep);
	return out;
}

PyObject *py_analysis_names(PyObject *self, PyObject *unused)
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
