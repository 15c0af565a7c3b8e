/*
 * _strobe.c - the C half of the `strobe` Python module: a thin layer over
 * libstrobe's public C API (session.h, capture.h, stream.h, tracefile.h,
 * model.h, analysis.h).  It never touches tracefs itself: whatever the
 * module needs from the kernel goes through lib/session and lib/source.
 *
 * How events reach Python cheaply:
 *   - every read (read_trace, analyze, iterate_trace, trace_process) is a
 *     pipeline (strobe-pipeline(3)): the one event loop of libstrobe, with
 *     its stop conditions, waiting and damage policy;
 *   - its consumer (events.c) fills a batch with the GIL released: up to
 *     BATCH_EVENTS events, each copied (header + payload) into one arena,
 *     the task's tgid, comm and container noted as the model (updated by
 *     the pipeline) knows them at that event; a full batch, or an idle
 *     live capture, pauses the run (STROBE_CONSUMER_YIELD);
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
 * ValueError for an unknown event or a filter the kernel refused.  The
 * pipeline's diagnostics are warnings (TraceWarning; DamagedDataWarning
 * for damaged data skipped); strict=True makes damage DamagedDataError.
 */
#include <string.h>

#include "_strobe.h"

PyObject *Stop;		/* strobe.STOP */
PyObject *TraceWarning, *DamagedDataWarning, *DamagedDataError;

/* ---- module ------------------------------------------------------------- */

static PyObject *py_last_loop(PyObject *self, PyObject *unused)
{
	return Py_BuildValue("{sKsKsKsK}", "events", (unsigned long long)last_events, "batches",
			     (unsigned long long)last_batches, "lost",
			     (unsigned long long)last_lost, "gaps", (unsigned long long)last_gaps);
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
	PyObject *l, *pat = NULL;
	size_t k;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:available_events", kwl, &pat) ||
	    arg_str("available_events", "pattern", pat, true, &glob) < 0)
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
	  "iterate_trace($module, /, instance, callback, timeout=None, strict=False)\n--\n\n"
	  "Trace live and call callback(event) for every event, in time order,\n"
	  "from now until callback returns strobe.STOP, timeout seconds of tracing\n"
	  "pass (the events captured until then are still delivered), or Ctrl-C (ends the\n"
	  "iteration without raising).  An exception in the callback stops\n"
	  "tracing and propagates.  Events are delivered in batches; the GIL is\n"
	  "released while waiting and decoding.  Lost events and damaged pages\n"
	  "skipped are warnings at the end (strobe.TraceWarning, DamagedDataWarning);\n"
	  "strict=True raises strobe.DamagedDataError on damage instead." },
	{ "trace_process", KW py_trace_process, METH_VARARGS | METH_KEYWORDS,
	  "trace_process($module, /, argv, callback=None, events=None, filters=None,"
	  " timeout=None, strict=False)\n--\n\n"
	  "Run a command traced from its first instruction, children followed,\n"
	  "calling callback(event) for its events until it exits; returns its\n"
	  "exit status (-N when killed by signal N).  On timeout the command is\n"
	  "sent SIGTERM, on Ctrl-C SIGINT; after STOP it runs to its end.\n"
	  "events: specs such as \"sched\", \"syscalls:sys_enter_read\" (default:\n"
	  "sched and syscalls); filters: {\"syscalls:sys_enter_read\": \"fd == 0\"}.\n"
	  "Warnings and strict= as for iterate_trace." },
	{ "read_trace", KW py_read_trace, METH_VARARGS | METH_KEYWORDS,
	  "read_trace($module, /, path, strict=False)\n--\n\n"
	  "An iterator over every Event of a trace.dat file (v6 or v7, every\n"
	  "buffer), in time order, with threads, processes and containers from\n"
	  "the file's table.  path may be a list of files: their events come on\n"
	  "one timeline (wall-clock ns when every file has clock pairings), each\n"
	  "with its file's host; a file given twice is read once.  Damaged data\n"
	  "is skipped: the reader's diagnostics say what, each diagnostic is a\n"
	  "warning (strobe.DamagedDataWarning for damage, else strobe.TraceWarning);\n"
	  "with strict=True damage raises strobe.DamagedDataError instead (after\n"
	  "the events before it)." },
	{ "analyze", KW py_analyze, METH_VARARGS | METH_KEYWORDS,
	  "analyze($module, /, source, analyses, group_by='thread', top=0, views=None,"
	  " timeout=None, filter=None, strict=False, periods=None, period_captures=None,"
	  " target=None)"
	  "\n--\n\n"
	  "Run analyses (\"syscalls\", [\"cputop\", \"schedlat\"], ...) over a trace file\n"
	  "(a path) or live over an Instance (for timeout seconds, or until Ctrl-C)\n"
	  "and return {table name: [row dicts]} with the keys of --json.\n"
	  "group_by: thread, process, container or cpu; views: top, stats, freq;\n"
	  "filter: an expression or a list of them (ANDed), as the CLI's --filter\n"
	  "(strobe-expr(7)): only what it holds for is analysed, e.g.\n"
	  "'$evt.container == \"web\"'.  A bad one raises ValueError with its position.\n"
	  "periods: the period definitions of the periods analysis, as strobe periods'\n"
	  "--period ('NAME : BEGIN_EXPR : END_EXPR', strobe-periods(1)), one or a list;\n"
	  "period_captures: its --period-captures.\n"
	  "target: a container's name or ID (str) or a process ID (int): the tasks\n"
	  "the figures are of, as the CLI's -c and -p of strobe why (the other\n"
	  "tasks are still followed, for why's wake-up chains).\n"
	  "Damaged data is skipped with a warning (strict=True: DamagedDataError)." },
	{ "record", KW py_record, METH_VARARGS | METH_KEYWORDS,
	  "record($module, /, output, argv=None, pid=None, container=None, events=None,"
	  " duration=None, uprobes=None, usdt=None, profile=None)\n--\n\n"
	  "Write a trace file as `strobe record -o output` does: of a command argv\n"
	  "(run until it exits), a process pid and its children, a container (name\n"
	  "or ID), or the whole system, for duration seconds or until the command\n"
	  "exits or Ctrl-C (the file is written).  events: event names or presets\n"
	  "(None: the sched and syscalls presets).  uprobes: 'PATH:FUNCTION[%return]\n"
	  "[ARGS]' (ARGS: ftrace fetch-args or arg1..argN), usdt: 'PATH:PROVIDER:NAME',\n"
	  "PATH resolved in the target's mount namespace; their hits are events\n"
	  "'strobe_<pid>:NAME' of the file.  profile: HZ, perf samples of the same\n"
	  "target with call chains stored next to the events (strobe record\n"
	  "--profile -F HZ; profile(output) folds them).  Returns {\"output\",\n"
	  "\"events\", \"lost\", \"duration\", \"exit_status\", \"incomplete\",\n"
	  "\"samples\", \"samples_lost\", \"records\"} (the last three None without\n"
	  "profile).  Read the file with read_trace()." },
	{ "profile", KW py_profile, METH_VARARGS | METH_KEYWORDS,
	  "profile($module, /, source=None, argv=None, pid=None, container=None,"
	  " duration=None, freq=99, group_by='container', kernel=True, top=0)\n--\n\n"
	  "A CPU profile, as `strobe profile` makes it: perf samples with kernel and\n"
	  "user call chains (frame pointers) at freq Hz per CPU, of a command argv\n"
	  "(run until it exits), a process pid and its children, a container (name\n"
	  "or ID), or the whole system, for duration seconds or until the command\n"
	  "exits or Ctrl-C (which returns the samples so far); or the samples of a\n"
	  "recording made with `strobe record --profile` (source: its path).\n"
	  "Returns {\"samples\": n, \"lost\": n, \"folded\": {\"root;...;leaf\": samples},\n"
	  "\"functions\": [rows with function, module, self, self_pct, total,\n"
	  "total_pct]} (sorted by self; top > 0: only that many).  group_by: the\n"
	  "root frames, container (container;comm), process, thread or none;\n"
	  "kernel=False leaves kernel frames out.  Sampling needs root (or\n"
	  "kernel.perf_event_paranoid <= 1): PermissionError otherwise." },
	{ "sql", KW py_sql, METH_VARARGS | METH_KEYWORDS,
	  "sql($module, /, source, query, db=None, analyses=None, logs=False, rebuild=False,"
	  " safe=False, timeout=None, strict=False)\n--\n\n"
	  "Run an SQL query over a trace file (a path, or a list of files of several\n"
	  "hosts) as `strobe sql` does, with the tables of strobe-sql(1): one per\n"
	  "event type, the events view, tasks, containers, meta and the analyses'\n"
	  "results (analyses: names, default syscalls, cputop and schedlat; [] none;\n"
	  "logs=True: their <analysis>_log tables too).  Returns the rows of the\n"
	  "last statement that has columns, as dicts {column: value}.  The database\n"
	  "is built in memory, or kept at db and reused while current (rebuild=True:\n"
	  "built again).  A query you did not write yourself should run with\n"
	  "safe=True: the database read-only, ATTACH, PRAGMA settings and every\n"
	  "statement that writes (VACUUM INTO ...) refused (PermissionError), and\n"
	  "the query bounded to 512 MiB of memory and 60 s; timeout= bounds its\n"
	  "seconds (TimeoutError).  A query SQLite refuses raises ValueError with\n"
	  "SQLite's message.  Damaged data and lost events are warnings\n"
	  "(strict=True: DamagedDataError)." },
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
	    PyType_Ready(&StopType) < 0 || PyType_Ready(&AnalysisType) < 0 ||
	    PyType_Ready(&FlightType) < 0)
		return NULL;
	m = PyModule_Create(&module);
	if (!m)
		return NULL;
	Stop = (PyObject *)PyObject_New(StopObject, &StopType);
	TraceWarning = PyErr_NewExceptionWithDoc(
		"strobe.TraceWarning",
		"What a trace says about itself that a reader should know (strobe's\n"
		"diagnostics: lost events, an incomplete recording, a file given twice,\n"
		"damaged data skipped).  The warning's `diagnostic` attribute holds the\n"
		"diagnostic as {\"kind\", \"message\", \"source\"}.", PyExc_UserWarning, NULL);
	DamagedDataWarning = TraceWarning ? PyErr_NewExceptionWithDoc(
		"strobe.DamagedDataWarning",
		"Damaged or unreachable trace data was skipped (strobe-damage(7)): a\n"
		"page that cannot be decoded, a file cut short, a damaged format.  The\n"
		"rest was read; strict=True raises DamagedDataError instead.",
		TraceWarning, NULL) : NULL;
	DamagedDataError = PyErr_NewExceptionWithDoc(
		"strobe.DamagedDataError",
		"strict=True met damaged trace data (strobe-damage(7)): an OSError with\n"
		"errno EBADMSG whose message names the file, CPU and offset.",
		PyExc_OSError, NULL);
	if (!Stop || !TraceWarning || !DamagedDataWarning || !DamagedDataError ||
	    PyModule_AddObjectRef(m, "STOP", Stop) < 0 ||
	    PyModule_AddObjectRef(m, "TraceWarning", TraceWarning) < 0 ||
	    PyModule_AddObjectRef(m, "DamagedDataWarning", DamagedDataWarning) < 0 ||
	    PyModule_AddObjectRef(m, "DamagedDataError", DamagedDataError) < 0 ||
	    PyModule_AddObjectRef(m, "Event", (PyObject *)&EventType) < 0 ||
	    PyModule_AddObjectRef(m, "Instance", (PyObject *)&InstanceType) < 0 ||
	    PyModule_AddObjectRef(m, "TraceReader", (PyObject *)&ReaderType) < 0 ||
	    PyModule_AddObjectRef(m, "Analysis", (PyObject *)&AnalysisType) < 0 ||
	    PyModule_AddObjectRef(m, "FlightRecorder", (PyObject *)&FlightType) < 0 ||
	    PyModule_AddStringConstant(m, "version", strobe_version()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
