/*
 * analysis.c - strobe.Analysis: an analysis object fed Events one at a
 * time (from read_trace or an iterate_trace callback), whose figures are
 * read per interval (snapshot, reset) or at the end (finish), as
 * strobe_analysis_snapshot and _reset do in C (strobe-analysis(3)).
 *
 * Why an object and not a callback of analyze(): the caller decides when
 * an interval ends (every second of trace time, at a marker event, when a
 * pipe is read) and can feed the same events to its own code too.  The
 * first event fed binds the object to its Source: the analysis is
 * attached to that source's event formats and to a task model of its own
 * (loaded from the file's table for read_trace, from /proc for a live
 * source), which it updates with every event before the analysis sees it;
 * the source's own model runs a batch ahead of the events handed out, so
 * it cannot serve.  Tables are returned as analyze() returns them.
 */
#include <errno.h>
#include <string.h>

#include "_strobe.h"

typedef struct {
	PyObject_HEAD
	struct strobe_analysis *a;
	SourceObject *src;		/* bound by the first feed; strong */
	struct strobe_model *model;	/* the analysis' own, updated here */
	struct an_args args;		/* the strings the options point into */
	bool finished;
} AnalysisObject;

static void Analysis_dealloc(AnalysisObject *o)
{
	strobe_analysis_free(o->a);
	strobe_model_free(o->model);
	Py_XDECREF(o->src);
	an_args_free(&o->args);
	Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *Analysis_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "analyses", "group_by", "top", "views", "filter", "periods",
			       "period_captures", NULL };
	PyObject *names, *group = NULL, *top = NULL, *views = Py_None, *filter = Py_None,
		*periods = Py_None, *captures = Py_None;
	struct strobe_error err = { 0, "" };
	AnalysisObject *o;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOOOO:Analysis", kwl, &names, &group,
					 &top, &views, &filter, &periods, &captures))
		return NULL;
	o = (AnalysisObject *)type->tp_alloc(type, 0);
	if (!o)
		return NULL;
	if (an_args_parse("Analysis", &o->args, names, group, top, views, filter, periods,
			  captures) < 0)
		goto fail;
	r = strobe_analysis_new(o->args.names, &o->args.o, &o->a, &err);
	if (r == -EINVAL) {
		PyErr_SetString(PyExc_ValueError, err.msg);
		goto fail;
	}
	if (r < 0) {
		raise_os(r, err.msg);
		goto fail;
	}
	return (PyObject *)o;
fail:
	Py_DECREF(o);
	return NULL;
}

/* Attach to src's formats with a model of our own, as a file's analysis
 * (strobe_analysis_run_file) or a live loop's model would be made. */
static int bind(AnalysisObject *o, SourceObject *src)
{
	struct strobe_error err = { 0, "" };
	struct strobe_formats *fmts;
	int r;

	fmts = src->tf ? strobe_tracefile_formats(src->tf)
		       : src->st ? strobe_stream_formats(src->st) : NULL;
	if (!fmts) {
		PyErr_SetString(PyExc_ValueError, "the event's source has no event formats");
		return -1;
	}
	r = strobe_model_new(&o->model, &err);
	if (r == 0 && src->tf) {
		r = strobe_model_load_file(o->model, src->tf, &err);
		/* an unknown target: analysed as the whole system, as the CLI */
		if (r == 0)
			strobe_analysis_set_target(o->a, strobe_tracefile_info(src->tf, "target"),
						   strobe_tracefile_info(src->tf, "target_pids"),
						   strobe_tracefile_info(src->tf,
									 "target_containers"),
						   NULL);
	} else if (r == 0) {
		strobe_model_set_options(o->model, STROBE_MODEL_LIVE | STROBE_MODEL_NAMES);
		strobe_model_load_proc(o->model, NULL);
	}
	if (r == 0)
		r = strobe_analysis_attach(o->a, fmts, o->model, &err);
	if (r < 0) {
		if (r == -ENOENT)
			PyErr_SetString(PyExc_ValueError, err.msg);
		else
			raise_os(r, err.msg);
		return -1;
	}
	o->src = (SourceObject *)Py_NewRef(src);
	return 0;
}

static PyObject *finished_error(void)
{
	PyErr_SetString(PyExc_RuntimeError, "the analysis is finished");
	return NULL;
}

static PyObject *Analysis_feed(AnalysisObject *o, PyObject *arg)
{
	const EventObject *e = (const EventObject *)arg;
	struct strobe_event ev;

	if (!PyObject_TypeCheck(arg, &EventType)) {
		PyErr_Format(PyExc_TypeError, "Analysis.feed() argument 'event' must be a "
			     "strobe.Event, not %.100s", Py_TYPE(arg)->tp_name);
		return NULL;
	}
	if (o->finished)
		return finished_error();
	if (!o->src && bind(o, e->src) < 0)
		return NULL;
	if (e->src != o->src) {
		PyErr_SetString(PyExc_ValueError, "the event comes from another trace than the "
				"events fed before");
		return NULL;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts = e->r.ts;
	ev.data = e->data;
	ev.size = e->r.size;
	ev.cpu = e->r.cpu;
	ev.buffer = e->r.buffer;
	ev.type = e->r.type;
	ev.pid = e->r.pid;
	ev.format = e->r.format;
	ev.missed = e->r.missed;
	strobe_model_update(o->model, &ev);
	strobe_analysis_feed(o->a, &ev);
	Py_RETURN_NONE;
}

/* fn's ts: None (the last event fed) or trace clock ns. */
static int parse_ts(const char *fn, PyObject *x, uint64_t *ts)
{
	long long v = 0;

	*ts = 0;
	if (!x || x == Py_None)
		return 0;
	if (arg_int(fn, "ts", x, 0, INT64_MAX, &v) < 0)
		return -1;
	*ts = (uint64_t)v;
	return 0;
}

/* A snapshot or reset before any event: there is nothing to read yet. */
static bool unbound(AnalysisObject *o)
{
	if (o->src)
		return false;
	PyErr_SetString(PyExc_RuntimeError, "no event was fed yet");
	return true;
}

static PyObject *Analysis_snapshot(AnalysisObject *o, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "ts", NULL };
	struct strobe_error err = { 0, "" };
	PyObject *x = Py_None;
	uint64_t ts;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:snapshot", kwl, &x) || parse_ts("Analysis.snapshot", x, &ts) < 0)
		return NULL;
	if (o->finished)
		return finished_error();
	if (unbound(o))
		return NULL;
	r = strobe_analysis_snapshot(o->a, ts, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	return tables_dict(o->a);
}

static PyObject *Analysis_reset(AnalysisObject *o, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "ts", NULL };
	struct strobe_error err = { 0, "" };
	PyObject *x = Py_None;
	uint64_t ts;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:reset", kwl, &x) || parse_ts("Analysis.reset", x, &ts) < 0)
		return NULL;
	if (o->finished)
		return finished_error();
	if (unbound(o))
		return NULL;
	r = strobe_analysis_reset(o->a, ts, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	Py_RETURN_NONE;
}

static PyObject *Analysis_finish(AnalysisObject *o, PyObject *unused)
{
	struct strobe_error err = { 0, "" };
	int r;

	if (o->finished)
		return finished_error();
	if (unbound(o))
		return NULL;
	o->finished = true;
	r = strobe_analysis_finish(o->a, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	return tables_dict(o->a);
}

static PyObject *Analysis_window(AnalysisObject *o, void *c)
{
	uint64_t b, e;

	strobe_analysis_window(o->a, &b, &e);
	return Py_BuildValue("(KK)", (unsigned long long)b, (unsigned long long)e);
}

static PyObject *Analysis_notes(AnalysisObject *o, void *c)
{
	PyObject *l = PyList_New(0);
	int i;

	for (i = 0; l && i < strobe_analysis_nr_notes(o->a); i++) {
		PyObject *s = PyUnicode_FromString(strobe_analysis_note(o->a, i));

		if (!s || PyList_Append(l, s) < 0)
			Py_CLEAR(l);
		Py_XDECREF(s);
	}
	return l;
}

#define KW (PyCFunction)(void (*)(void))

static PyMethodDef Analysis_methods[] = {
	{ "feed", (PyCFunction)Analysis_feed, METH_O,
	  "feed($self, event, /)\n--\n\n"
	  "Analyse one Event (from read_trace or an iterate_trace callback), in\n"
	  "time order.  The first binds the analysis to its trace: events of\n"
	  "another raise ValueError; ValueError too when the trace has none of\n"
	  "the events the analyses need." },
	{ "snapshot", KW Analysis_snapshot, METH_VARARGS | METH_KEYWORDS,
	  "snapshot($self, /, ts=None)\n--\n\n"
	  "The tables of the current interval (since the start or the last\n"
	  "reset) up to trace time ts (ns; None: the last event fed), as analyze()\n"
	  "returns them, without ending anything: what is in flight (a call\n"
	  "entered, a waiting task, an open period) counts when it ends, and\n"
	  "tasks running at ts are charged up to ts in the snapshot only." },
	{ "reset", KW Analysis_reset, METH_VARARGS | METH_KEYWORDS,
	  "reset($self, /, ts=None)\n--\n\n"
	  "Start a new interval at ts: every figure starts again from zero, what\n"
	  "is in flight is kept (and counts, whole, in the interval it ends in;\n"
	  "a running task's CPU time is split at ts)." },
	{ "finish", (PyCFunction)Analysis_finish, METH_NOARGS,
	  "finish($self, /)\n--\n\n"
	  "The tables of the last interval, up to the last event (tasks still\n"
	  "running charged up to it; periods.open lists the periods still open).\n"
	  "Nothing can be fed after." },
	{ NULL },
};

static PyGetSetDef Analysis_getset[] = {
	{ "window", (getter)Analysis_window, NULL,
	  "(begin, end) in trace clock ns of the last snapshot or finish: its interval" },
	{ "notes", (getter)Analysis_notes, NULL,
	  "notes for the user (missing events, measurements dropped), as a list" },
	{ NULL },
};

PyTypeObject AnalysisType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe.Analysis",
	.tp_basicsize = sizeof(AnalysisObject),
	.tp_dealloc = (destructor)Analysis_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Analysis(analyses, group_by='thread', top=0, views=None, filter=None,"
		  " periods=None, period_captures=None)\n"
		  "--\n\n"
		  "Analyses (\"syscalls\", [\"cputop\", \"schedlat\"] ...) fed Events one at a\n"
		  "time, whose tables are read per interval (snapshot, reset) or at the\n"
		  "end (finish).  The options are analyze()'s.",
	.tp_new = Analysis_new,
	.tp_methods = Analysis_methods,
	.tp_getset = Analysis_getset,
};
