/*
 * files.c - trace files: read_trace's iterator and analyze() over a file
 * or live over an Instance, returning the result tables as dicts.
 *
 * read_trace is a pipeline (strobe-pipeline(3)) over one file or several
 * merged on one timeline (the same file twice is read once, with a
 * notice), with the batch consumer (events.c): each __next__ that finds
 * the batch empty runs the pipeline, with the GIL released, until the
 * batch is full (the run pauses) or the files end; the two Events handed
 * out last are reused when the loop dropped them.  The damage policy is
 * the pipeline's (strobe-damage(7)): damaged data is skipped and counted,
 * `diagnostics` lists what the pipeline says, each diagnostic is a
 * warning once (those known at open at once, the rest at the end), and
 * strict=True raises DamagedDataError instead.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "_strobe.h"

/* ---- read_trace: trace files' events ------------------------------------ */

typedef struct {
	PyObject_HEAD
	SourceObject **src;	/* strong; src[i] is the pipeline's source i */
	int nr_src;
	int *warned;		/* per source: diagnostics warned so far */
	struct strobe_pipeline *p;
	struct filler f;
	EventObject *slot[2];	/* events handed out last; reused when
				 * nobody else holds them */
	int k;
	bool ended;		/* the run is over (the batch may still hold events) */
	bool finished;		/* ... and said so: warnings, or the error */
	bool busy;		/* a thread is running the pipeline */
	bool strict;		/* damage raises DamagedDataError */
	int fail;		/* the run's -errno, raised once the batch is out */
	struct strobe_error err;
} ReaderObject;

static void Reader_dealloc(ReaderObject *r)
{
	int i;

	Py_XDECREF(r->slot[0]);
	Py_XDECREF(r->slot[1]);
	strobe_pipeline_free(r->p);	/* before the files it reads */
	for (i = 0; i < r->nr_src; i++)
		Py_XDECREF(r->src[i]);
	PyMem_Free(r->src);
	PyMem_Free(r->warned);
	PyMem_RawFree(r->f.b.buf);
	Py_TYPE(r)->tp_free((PyObject *)r);
}

/* The run is over and the batch handed out: the failure, damage found
 * at the end with strict (time going backwards, say: as the commands'
 * --strict), or the diagnostics not warned yet.  NULL (StopIteration, or
 * raised). */
static PyObject *reader_finish(ReaderObject *r)
{
	PyMem_RawFree(r->f.b.buf);	/* the files are read: drop the batch */
	r->f.b.buf = NULL;
	batch_reset(&r->f.b);
	if (r->finished)
		return NULL;
	r->finished = true;
	if (r->fail)
		return raise_run(r->fail, &r->err);
	if (r->strict && strict_damage(r->p) < 0)
		return NULL;
	warn_diags(r->p, r->src, r->warned, r->nr_src);
	return NULL;
}

/* After the first run: each source's host, as the pipeline names it
 * (strobe_merge_host: the file's host name, "?" when it has none, "#2"
 * added to a name met before), as the commands' host column. */
static void reader_hosts(ReaderObject *r)
{
	int i;

	for (i = 0; i < r->nr_src; i++) {
		const struct strobe_pipeline_source *ps = strobe_pipeline_source(r->p, i);
		PyObject *h;

		if (r->src[i]->host != Py_None || !ps || !ps->host)
			continue;
		h = PyUnicode_DecodeUTF8(ps->host, (Py_ssize_t)strlen(ps->host), "replace");
		if (h)
			Py_SETREF(r->src[i]->host, h);
		else
			PyErr_Clear();
	}
}

static PyObject *Reader_next(ReaderObject *r)
{
	const struct rec *rc;
	EventObject *e;
	bool first;
	int n;

	while (!(rc = batch_next(&r->f.b))) {
		if (r->ended)
			return reader_finish(r);
		if (r->busy) {
			PyErr_SetString(PyExc_RuntimeError, "the reader is in use by another thread");
			return NULL;
		}
		batch_reset(&r->f.b);
		first = !r->f.srcs;
		r->busy = true;
		Py_BEGIN_ALLOW_THREADS
		n = strobe_pipeline_run(r->p, &r->err);
		Py_END_ALLOW_THREADS
		r->busy = false;
		if (first)
			reader_hosts(r);
		if (n == STROBE_PIPELINE_YIELD)
			continue;	/* the batch is full */
		r->ended = true;
		if (n < 0)
			r->fail = n;	/* after the events before it */
	}
	e = event_make(r->src[rc->source], rc, r->slot[r->k]);
	if (!e)
		return NULL;
	Py_XSETREF(r->slot[r->k], (EventObject *)Py_NewRef(e));
	r->k ^= 1;
	return (PyObject *)e;
}

static PyObject *Reader_errors(ReaderObject *r, void *c)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < r->nr_src; i++)
		n += strobe_tracefile_bad_data(r->src[i]->tf);
	return PyLong_FromUnsignedLongLong(n);
}

static PyObject *Reader_diagnostics(ReaderObject *r, void *c)
{
	return diags_list(r->p, r->src, r->nr_src);
}

static PyGetSetDef Reader_getset[] = {
	{ "errors", (getter)Reader_errors, NULL,
	  "damaged pages (or chunks) skipped so far" },
	{ "diagnostics", (getter)Reader_diagnostics, NULL,
	  "what is wrong with the files, as [{\"kind\", \"message\", \"source\"}]\n"
	  "(source: the file's path): known at open (damage, an incomplete\n"
	  "recording, a file given twice), and once every event was read (damaged\n"
	  "data skipped, lost events, time going backwards); each is also a\n"
	  "warning (strobe.DamagedDataWarning for damage, else strobe.TraceWarning)" },
	{ NULL },
};

PyTypeObject ReaderType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe.TraceReader",
	.tp_basicsize = sizeof(ReaderObject),
	.tp_dealloc = (destructor)Reader_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Iterator over trace files' events, in time order (read_trace).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)Reader_next,
	.tp_getset = Reader_getset,
};

/* Open a trace file into a new Source (its model loaded from the file's
 * process table, its buffers' names); fn's argument arg names it. */
static SourceObject *open_file(const char *fn, const char *arg, PyObject *path)
{
	struct strobe_error err = { 0, "" };
	SourceObject *src;
	PyObject *b = NULL;
	int r, i;

	if (arg_path(fn, arg, path, &b) < 0)
		return NULL;
	src = source_new();
	if (!src) {
		Py_DECREF(b);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	r = strobe_tracefile_open(PyBytes_AS_STRING(b), &src->tf, &err);
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

/* path: one path-like, or a list (tuple) of them; a new tuple. */
static PyObject *path_tuple(PyObject *path)
{
	PyObject *t;

	if (PyUnicode_Check(path) || PyBytes_Check(path) || PyObject_HasAttrString(path,
										    "__fspath__"))
		return PyTuple_Pack(1, path);
	if (!PyList_Check(path) && !PyTuple_Check(path)) {
		PyErr_Format(PyExc_TypeError, "read_trace() argument 'path' must be a path or a "
			     "list of paths, not %.100s", Py_TYPE(path)->tp_name);
		return NULL;
	}
	t = PySequence_Tuple(path);
	if (t && PyTuple_GET_SIZE(t) == 0) {
		Py_DECREF(t);
		PyErr_SetString(PyExc_ValueError, "read_trace() argument 'path' is an empty list");
		return NULL;
	}
	return t;
}

PyObject *py_read_trace(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "path", "strict", NULL };
	struct strobe_pipeline_opts po = { .size = sizeof(po) };
	struct strobe_consumer c;
	ReaderObject *r;
	PyObject *path, *paths, *pstrict = NULL;
	Py_ssize_t i, n;
	int strict = 0, idx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:read_trace", kwl, &path, &pstrict) ||
	    arg_bool("read_trace", "strict", pstrict, &strict) < 0)
		return NULL;
	paths = path_tuple(path);
	if (!paths)
		return NULL;
	n = PyTuple_GET_SIZE(paths);
	r = PyObject_New(ReaderObject, &ReaderType);
	if (!r) {
		Py_DECREF(paths);
		return NULL;
	}
	r->src = PyMem_Calloc((size_t)n, sizeof(*r->src));
	r->warned = PyMem_Calloc((size_t)n, sizeof(*r->warned));
	r->nr_src = 0;
	r->p = NULL;
	memset(&r->f, 0, sizeof(r->f));
	r->slot[0] = r->slot[1] = NULL;
	r->k = 0;
	r->ended = r->finished = r->busy = false;
	r->strict = strict;
	r->fail = 0;
	memset(&r->err, 0, sizeof(r->err));
	r->f.copy = true;
	r->f.b.buf = PyMem_RawMalloc(BATCH_BYTES);
	po.strict = strict;
	if (!r->src || !r->warned || !r->f.b.buf) {
		PyErr_NoMemory();
		goto fail;
	}
	if (strobe_pipeline_new(&po, &r->p, &r->err) < 0) {
		raise_os(-ENOMEM, r->err.msg);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		SourceObject *src;
		char what[32];

		if (PyList_Check(path) || PyTuple_Check(path))
			snprintf(what, sizeof(what), "path[%zd]", i);
		else
			snprintf(what, sizeof(what), "path");
		src = open_file("read_trace", what, PyTuple_GET_ITEM(paths, i));

		if (!src)
			goto fail;
		idx = strobe_pipeline_add_file(r->p, src->tf, NULL, &r->err);
		if (idx < 0) {
			Py_DECREF(src);
			raise_os(idx, r->err.msg);
			goto fail;
		}
		if (idx < r->nr_src) {	/* the same file as source idx: read once */
			Py_DECREF(src);
			continue;
		}
		r->src[r->nr_src++] = src;
		strobe_pipeline_set_model(r->p, idx, src->model, NULL);
	}
	filler_consumer(&r->f, &c);
	if (strobe_pipeline_add_consumer(r->p, &c, &r->err) < 0) {
		raise_os(-ENOMEM, r->err.msg);
		goto fail;
	}
	/* what opening found: damage fails now with strict, the rest is
	 * warned now */
	if ((strict && strict_damage(r->p) < 0) ||
	    warn_diags(r->p, r->src, r->warned, r->nr_src) < 0)
		goto fail;
	Py_DECREF(paths);
	return (PyObject *)r;
fail:
	Py_DECREF(paths);
	Py_DECREF(r);
	return NULL;
}

/* ---- analyze ------------------------------------------------------------ */

/* [row dicts with the --json keys] of table t; NULL with an exception. */
PyObject *table_rows(const struct strobe_table *t)
{
	PyObject *rows, *keys;
	int c, nc = strobe_table_nr_columns(t);
	size_t r, nr = strobe_table_nr_rows(t);

	rows = PyList_New((Py_ssize_t)nr);
	keys = PyTuple_New(nc);
	for (c = 0; keys && c < nc; c++) {
		PyObject *k = PyUnicode_InternFromString(strobe_table_column(t, c)->key);

		if (!k)
			Py_CLEAR(keys);
		else
			PyTuple_SET_ITEM(keys, c, k);
	}
	if (!keys)
		Py_CLEAR(rows);
	for (r = 0; rows && r < nr; r++) {
		const union strobe_value *v = strobe_table_row(t, r);
		PyObject *row = PyDict_New(), *x;

		for (c = 0; row && c < nc; c++) {
			if (strobe_value_none(strobe_table_column(t, c)->type, &v[c])) {
				if (PyDict_SetItem(row, PyTuple_GET_ITEM(keys, c), Py_None) < 0)
					Py_CLEAR(row);
				continue;
			}
			switch (strobe_table_column(t, c)->type) {
			case STROBE_COL_STR:
				x = PyUnicode_FromString(v[c].s ? v[c].s : "");
				break;
			case STROBE_COL_INT:
				x = PyLong_FromLongLong(v[c].i);
				break;
			case STROBE_COL_RATE:
				x = PyFloat_FromDouble(v[c].d);
				break;
			case STROBE_COL_PERCENT:
				/* --json writes four decimals */
				x = PyFloat_FromDouble((double)llround(v[c].d * 10000.0) / 10000.0);
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
	return rows;
}

/* {table name: [row dicts with the --json keys]} */
PyObject *tables_dict(const struct strobe_analysis *a)
{
	PyObject *out = PyDict_New();
	int i;

	for (i = 0; out && i < strobe_analysis_nr_tables(a); i++) {
		const struct strobe_table *t = strobe_analysis_table(a, i);
		PyObject *rows = table_rows(t);

		if (!rows || PyDict_SetItemString(out, strobe_table_name(t), rows) < 0)
			Py_CLEAR(out);
		Py_XDECREF(rows);
	}
	return out;
}

static int parse_group(const char *fn, PyObject *o, enum strobe_group_by *out)
{
	static const struct { const char *name; enum strobe_group_by g; } tab[] = {
		{ "thread", STROBE_GROUP_THREAD }, { "tid", STROBE_GROUP_THREAD },
		{ "process", STROBE_GROUP_PROCESS }, { "pid", STROBE_GROUP_PROCESS },
		{ "container", STROBE_GROUP_CONTAINER }, { "cpu", STROBE_GROUP_CPU },
	};
	const char *g;
	size_t i;

	if (!o)
		return 0;
	if (arg_str(fn, "group_by", o, false, &g) < 0)
		return -1;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(g, tab[i].name)) {
			*out = tab[i].g;
			return 0;
		}
	PyErr_Format(PyExc_ValueError,
		     "%s() argument 'group_by' must be thread, process, container or cpu, not %R",
		     fn, o);
	return -1;
}

/* "stats", "top,freq" or ["top", "freq"] -> enum strobe_view bits */
static int parse_views(const char *fn, PyObject *o, unsigned *views)
{
	static const struct { const char *name; unsigned v; } tab[] = {
		{ "top", STROBE_VIEW_TOP }, { "stats", STROBE_VIEW_STATS },
		{ "freq", STROBE_VIEW_FREQ },
	};
	PyObject *keep = NULL, *seq = NULL, *sep;
	const char **v = NULL;
	int i, n, ret = -1;
	size_t k;

	*views = 0;
	if (!o || o == Py_None)
		return 0;
	if (PyUnicode_Check(o)) {	/* "top,freq", as --views */
		sep = PyUnicode_FromString(",");
		seq = sep ? PyUnicode_Split(o, sep, -1) : NULL;
		Py_XDECREF(sep);
		if (!seq)
			return -1;
		o = seq;
	}
	if (arg_strs(fn, "views", o, true, false, &keep, &v, &n) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		for (k = 0; k < sizeof(tab) / sizeof(tab[0]) && strcmp(v[i], tab[k].name); k++)
			;
		if (k == sizeof(tab) / sizeof(tab[0])) {
			PyErr_Format(PyExc_ValueError, "%s() argument 'views' holds '%s': the views "
				     "are top, stats and freq", fn, v[i]);
			goto out;
		}
		*views |= tab[k].v;
	}
	ret = 0;
out:
	PyMem_Free(v);
	Py_XDECREF(keep);
	Py_XDECREF(seq);
	return ret;
}

/* Whether the comma-separated list names the periods analysis. */
static bool names_periods(const char *names)
{
	size_t n;

	for (; *names; names += n + (names[n] == ',')) {
		n = strcspn(names, ",");
		if (n == 7 && !strncmp(names, "periods", 7))
			return true;
	}
	return false;
}

int an_args_parse(const char *fn, struct an_args *a, PyObject *names, PyObject *group,
		  PyObject *top, PyObject *views, PyObject *filter, PyObject *periods,
		  PyObject *captures)
{
	PyObject *nkeep = NULL;
	const char **nv = NULL;
	long long t = 0;
	size_t len = 0;
	int i, n;

	memset(a, 0, sizeof(*a));
	a->o.size = sizeof(a->o);
	a->o.group_by = STROBE_GROUP_THREAD;
	if (arg_strs(fn, "analyses", names, true, false, &nkeep, &nv, &n) < 0)
		goto fail;
	for (i = 0; i < n; i++)
		len += strlen(nv[i]) + 1;
	a->names = PyMem_Malloc(len + 1);
	if (!a->names) {
		PyErr_NoMemory();
		goto fail;
	}
	a->names[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(a->names, ",");
		strcat(a->names, nv[i]);
	}
	if (parse_group(fn, group, &a->o.group_by) < 0 ||
	    arg_int(fn, "top", top, 0, INT32_MAX, &t) < 0 ||
	    parse_views(fn, views, &a->o.views) < 0 ||
	    arg_strs(fn, "filter", filter, true, true, &a->fkeep, &a->filters,
		     &a->o.nr_filters) < 0 ||
	    arg_strs(fn, "periods", periods, true, true, &a->pkeep, &a->periods,
		     &a->o.nr_periods) < 0 ||
	    arg_strs(fn, "period_captures", captures, true, true, &a->ckeep, &a->captures,
		     &a->o.nr_period_captures) < 0)
		goto fail;
	a->o.top = (int)t;
	a->o.filters = a->filters;
	a->o.periods = a->periods;
	a->o.period_captures = a->captures;
	if (names_periods(a->names) && !a->o.nr_periods) {
		PyErr_Format(PyExc_ValueError, "%s(): the periods analysis needs period definitions: "
			     "periods=['NAME : BEGIN_EXPR : END_EXPR', ...] as strobe periods' "
			     "--period (strobe-periods(1))", fn);
		goto fail;
	}
	if (!names_periods(a->names) && (a->o.nr_periods || a->o.nr_period_captures)) {
		PyErr_Format(PyExc_ValueError, "%s() argument '%s' is for the periods analysis, "
			     "which 'analyses' does not name", fn,
			     a->o.nr_periods ? "periods" : "period_captures");
		goto fail;
	}
	PyMem_Free(nv);
	Py_XDECREF(nkeep);
	return 0;
fail:
	PyMem_Free(nv);
	Py_XDECREF(nkeep);
	an_args_free(a);
	return -1;
}

void an_args_free(struct an_args *a)
{
	PyMem_Free(a->names);
	PyMem_Free(a->filters);
	PyMem_Free(a->periods);
	PyMem_Free(a->captures);
	Py_CLEAR(a->fkeep);
	Py_CLEAR(a->pkeep);
	Py_CLEAR(a->ckeep);
	memset(a, 0, sizeof(*a));
}

/*
 * analyze() over one file: a pipeline with the analysis as its consumer,
 * run with the GIL released; the model is ours, so that the tables (which
 * point into it) outlive the pipeline: *keep (the file's Source) holds
 * it, to be dropped after the analysis is freed.  The diagnostics become
 * warnings (strict: damage raises).  The tables, or NULL with an
 * exception.
 */
static PyObject *analyze_file(struct strobe_analysis *a, PyObject *path, bool strict,
			      SourceObject **keep)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict };
	struct strobe_stream_opts sopts = { .size = sizeof(sopts), .buffer = -1 };
	struct strobe_error err = { 0, "" };
	struct strobe_pipeline *p = NULL;
	struct strobe_consumer c;
	SourceObject *src;
	PyObject *out = NULL;
	int r, idx, warned = 0;

	src = *keep = open_file("analyze", "source", path);
	if (!src)
		return NULL;
	r = strobe_pipeline_new(&po, &p, &err);
	if (r == 0) {
		sopts.nr_cpu_mask = strobe_analysis_cpu_mask(a, &sopts.cpu_mask);
		r = idx = strobe_pipeline_add_file(p, src->tf, &sopts, &err);
		if (idx >= 0)
			r = strobe_pipeline_set_model(p, idx, src->model, &err);
		if (r >= 0)
			r = strobe_analysis_consumer(a, idx, &c);
		if (r >= 0)
			r = strobe_pipeline_add_consumer(p, &c, &err);
	}
	if (r >= 0) {
		Py_BEGIN_ALLOW_THREADS
		r = strobe_pipeline_run(p, &err);
		Py_END_ALLOW_THREADS
	}
	if (r < 0)
		raise_run(r, &err);
	else if ((!strict || strict_damage(p) == 0) && warn_diags(p, &src, &warned, 1) == 0)
		out = tables_dict(a);
	strobe_pipeline_free(p);
	return out;
}

PyObject *py_analyze(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "source", "analyses", "group_by", "top", "views", "timeout",
			       "filter", "strict", "periods", "period_captures", "target", NULL };
	PyObject *source, *names = NULL, *group = NULL, *top = NULL, *views = Py_None,
		*timeout = Py_None, *out = NULL, *filter = Py_None, *pstrict = NULL,
		*periods = Py_None, *captures = Py_None, *target = Py_None;
	const char *target_cont = NULL;
	int target_pid = 0;
	struct an_args aa;
	struct strobe_error err = { 0, "" };
	struct strobe_analysis *a = NULL;
	SourceObject *file = NULL;
	int64_t limit;
	int r, strict = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOOOOOO:analyze", kwl, &source, &names,
					 &group, &top, &views, &timeout, &filter, &pstrict,
					 &periods, &captures, &target))
		return NULL;
	/* target: the tasks the figures are of (why), a container's name or
	 * ID, or a process ID; the others are followed all the same */
	if (target != Py_None) {
		if (PyUnicode_Check(target)) {
			target_cont = PyUnicode_AsUTF8(target);
			if (!target_cont)
				return NULL;
			if (!*target_cont)
				return PyErr_Format(PyExc_ValueError, "analyze() argument 'target' "
						    "must name a container, not ''");
		} else if (PyLong_Check(target) && !PyBool_Check(target)) {
			long v = PyLong_AsLong(target);

			if (v == -1 && PyErr_Occurred())
				return NULL;
			if (v <= 0 || v > 0x3fffffff)
				return PyErr_Format(PyExc_ValueError, "analyze() argument 'target' "
						    "must be a process ID > 0, not %ld", v);
			target_pid = (int)v;
		} else {
			return PyErr_Format(PyExc_TypeError, "analyze() argument 'target' must be "
					    "a container's name or ID (str) or a process ID (int), "
					    "not %.100s", Py_TYPE(target)->tp_name);
		}
	}
	if (!PyObject_TypeCheck(source, &InstanceType) && !PyUnicode_Check(source) &&
	    !PyBytes_Check(source) && !PyObject_HasAttrString(source, "__fspath__"))
		return PyErr_Format(PyExc_TypeError, "analyze() argument 'source' must be a trace "
				    "file's path or a strobe.Instance, not %.100s",
				    Py_TYPE(source)->tp_name);
	if (timeout_ms("analyze", timeout, &limit) < 0 ||
	    arg_bool("analyze", "strict", pstrict, &strict) < 0)
		return NULL;
	if (an_args_parse("analyze", &aa, names, group, top, views, filter, periods,
			  captures) < 0)
		return NULL;
	if (target_cont) {
		aa.o.containers = &target_cont;
		aa.o.nr_containers = 1;
	} else if (target_pid) {
		aa.o.pids = &target_pid;
		aa.o.nr_pids = 1;
	}
	r = strobe_analysis_new(aa.names, &aa.o, &a, &err);
	if (r == -EINVAL) {
		PyErr_SetString(PyExc_ValueError, err.msg);
		goto out;
	}
	if (r < 0) {
		raise_os(r, err.msg);
		goto out;
	}
	if (PyObject_TypeCheck(source, &InstanceType)) {
		struct strobe_session *s = session_of("analyze", source);
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
		l.limit = limit;
		l.inst = i;
		l.an = a;
		l.strict = strict;
		i->busy = true;
		ret = loop_open(&l, s);
		if (ret == 0)
			ret = loop_start(&l);
		if (ret == 0)
			ret = loop_run(&l);
		/* the tables point into the model: read them while it lives
		 * (the pipeline finished the analysis, unless it failed) */
		if (ret == 0 && (r = strobe_analysis_finish(a, &err)) < 0) {
			raise_os(r, err.msg);
			ret = -1;
		}
		if (ret == 0)
			out = tables_dict(a);
		loop_close(&l);
		i->busy = false;
	} else {
		out = analyze_file(a, source, strict, &file);
	}
out:
	strobe_analysis_free(a);
	Py_XDECREF(file);	/* the model the analysis used */
	an_args_free(&aa);
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
