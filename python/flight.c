/*
 * flight.c - strobe.FlightRecorder: `strobe record --flight-recorder`
 * from Python.  The recording (strobe_record with flight_size,
 * strobe-record(3)) runs on a thread of its own, which never touches
 * Python: the recent past stays in the library's per-CPU rings, and
 * rec.trigger(reason) from any Python thread calls strobe_flight_trigger,
 * after which the recording's thread writes a snapshot within ~20 ms.
 * Snapshots are collected (on_snapshot) under a mutex and handed out as
 * dicts; stop() ends the recording and returns the summary.
 *
 * Why a thread rather than a callback loop like iterate_trace: a flight
 * recorder is meant to run beside the program that decides when
 * something went wrong, and that program keeps its own main loop.  The
 * object owns the thread: dropping it stops the recording.  The
 * mutex also guards the library's handle: on_flight(NULL) says it goes,
 * and trigger() holds the mutex around strobe_flight_trigger, so no
 * trigger ever reaches a freed recorder.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "_strobe.h"

enum fr_state { FR_NEW, FR_STARTING, FR_RUNNING, FR_DONE };

typedef struct {
	PyObject_HEAD
	/* what the options point into, for the recording's life */
	PyObject *out_bytes, *ev_keep, *cmd_keep, *ct_keep;
	const char **ev_names, **cmd, **cts;
	int nr_ev, nr_cmd, nr_cts;
	char **argv;				/* cmd, NULL-terminated */
	struct strobe_record_event *events;
	struct strobe_record_opts o;
	volatile sig_atomic_t stop;
	/* the recording's thread */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;			/* state changes */
	enum fr_state state;			/* under lock */
	struct strobe_flight *f;		/* under lock; NULL once it goes */
	struct strobe_flight_snapshot *snaps;	/* under lock, as they come */
	size_t nr_snaps;
	int rc;					/* strobe_record's, once FR_DONE */
	struct strobe_error err;
	struct strobe_record_result res;
	bool joined;
} FlightObject;

/* ---- the recording's thread (no Python here) ---------------------------- */

static void on_flight(struct strobe_flight *f, void *arg)
{
	FlightObject *r = arg;

	pthread_mutex_lock(&r->lock);
	r->f = f;
	if (f && r->state == FR_STARTING)
		r->state = FR_RUNNING;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void on_snapshot(const struct strobe_flight_snapshot *s, void *arg)
{
	FlightObject *r = arg;
	struct strobe_flight_snapshot *n;

	pthread_mutex_lock(&r->lock);
	n = realloc(r->snaps, (r->nr_snaps + 1) * sizeof(*n));
	if (n) {	/* on ENOMEM the result's list still has it */
		r->snaps = n;
		r->snaps[r->nr_snaps++] = *s;
	}
	pthread_mutex_unlock(&r->lock);
}

static void *run(void *arg)
{
	FlightObject *r = arg;
	int rc = strobe_record(&r->o, &r->res, &r->err);

	pthread_mutex_lock(&r->lock);
	r->rc = rc;
	r->f = NULL;
	r->state = FR_DONE;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ---- Python side ------------------------------------------------------- */

/* "64M", "1G", "8192", or an int of bytes; at least 8 KiB. */
static int arg_size(PyObject *o, uint64_t *out)
{
	unsigned long long v;
	const char *s;
	char *end;
	int shift = 0;

	if (PyLong_Check(o) && !PyBool_Check(o)) {
		v = PyLong_AsUnsignedLongLong(o);
		if (PyErr_Occurred())
			PyErr_Clear();
		else if (v >= 8192 && v <= (1ull << 40))
			goto ok;
	} else if (PyUnicode_Check(o) && (s = PyUnicode_AsUTF8(o)) && *s && *s != '-') {
		errno = 0;
		v = strtoull(s, &end, 10);
		switch (*end) {
		case 'K': case 'k': shift = 10; end++; break;
		case 'M': case 'm': shift = 20; end++; break;
		case 'G': case 'g': shift = 30; end++; break;
		}
		if (!errno && end != s && !*end && v <= (1ull << (40 - shift)) &&
		    (v << shift) >= 8192) {
			v <<= shift;
			goto ok;
		}
	}
	PyErr_Clear();
	PyErr_Format(PyExc_ValueError, "FlightRecorder() argument 'size' must be bytes per CPU "
		     "(an int, or a str such as '64M'), at least 8 KiB, not %R", o);
	return -1;
ok:
	*out = v;
	return 0;
}

static void Flight_dealloc(FlightObject *r);

static PyObject *Flight_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "output", "size", "span", "events", "command", "pid",
			       "containers", "post", "min_interval", "max_snapshots",
			       "snapshot_on_exit", "duration", NULL };
	PyObject *output, *size = NULL, *span = Py_None, *events = Py_None, *cmd = Py_None,
		*pid = Py_None, *cts = Py_None, *post = Py_None, *mi = Py_None,
		*maxs = Py_None, *on_exit = NULL, *dur = Py_None;
	const char *fn = "FlightRecorder";
	long long n;
	double d;
	int b, i;
	FlightObject *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOOOOOOOOO:FlightRecorder", kwl, &output,
					 &size, &span, &events, &cmd, &pid, &cts, &post, &mi,
					 &maxs, &on_exit, &dur))
		return NULL;
	r = (FlightObject *)type->tp_alloc(type, 0);
	if (!r)
		return NULL;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->o.size = sizeof(r->o);
	r->o.stop = &r->stop;
	r->o.on_flight = on_flight;
	r->o.on_snapshot = on_snapshot;
	r->o.event_arg = r;
	r->o.flight_size = 64ull << 20;
	r->o.flight_control_dir = "/run/strobe";	/* strobe trigger finds it */
	if (arg_path(fn, "output", output, &r->out_bytes) < 0)
		goto fail;
	r->o.output = PyBytes_AS_STRING(r->out_bytes);
	if (size && arg_size(size, &r->o.flight_size) < 0)
		goto fail;
	if (arg_seconds(fn, "span", span, &d) < 0)
		goto fail;
	if (d > 0)
		r->o.flight_span = d;
	if (arg_strs(fn, "events", events, true, true, &r->ev_keep, &r->ev_names, &r->nr_ev) < 0 ||
	    arg_strs(fn, "command", cmd, false, true, &r->cmd_keep, &r->cmd, &r->nr_cmd) < 0 ||
	    arg_strs(fn, "containers", cts, true, true, &r->ct_keep, &r->cts, &r->nr_cts) < 0)
		goto fail;
	if (r->nr_ev) {
		r->events = calloc((size_t)r->nr_ev, sizeof(*r->events));
		if (!r->events)
			goto nomem;
		for (i = 0; i < r->nr_ev; i++)
			r->events[i].spec = r->ev_names[i];
		r->o.events = r->events;
		r->o.nr_events = (size_t)r->nr_ev;
	}
	if (r->nr_cmd) {
		r->argv = calloc((size_t)r->nr_cmd + 1, sizeof(*r->argv));
		if (!r->argv)
			goto nomem;
		for (i = 0; i < r->nr_cmd; i++)
			r->argv[i] = (char *)r->cmd[i];
		r->o.argv = r->argv;
	}
	if (pid != Py_None) {
		if (arg_int(fn, "pid", pid, 1, INT32_MAX, &n) < 0)
			goto fail;
		r->o.pid = (pid_t)n;
	}
	r->o.containers = r->cts;
	r->o.nr_containers = (size_t)r->nr_cts;
	if (!!r->o.argv + !!r->o.pid + !!r->o.nr_containers > 1) {
		PyErr_SetString(PyExc_ValueError, "FlightRecorder(): give command, pid or "
				"containers, not two");
		goto fail;
	}
	if (arg_seconds(fn, "post", post, &d) < 0)
		goto fail;
	r->o.flight_post = d > 0 ? d : 0;
	if (arg_seconds(fn, "min_interval", mi, &d) < 0)
		goto fail;
	r->o.flight_min_interval = d > 0 ? d : 0;
	if (maxs != Py_None) {
		if (arg_int(fn, "max_snapshots", maxs, 1, 1000000, &n) < 0)
			goto fail;
		r->o.flight_max_snapshots = (unsigned)n;
	}
	b = 0;
	if (arg_bool(fn, "snapshot_on_exit", on_exit, &b) < 0)
		goto fail;
	r->o.flight_on_exit = b;
	if (arg_seconds(fn, "duration", dur, &d) < 0)
		goto fail;
	r->o.duration = d > 0 ? d : 0;
	return (PyObject *)r;
nomem:
	PyErr_NoMemory();
fail:
	Py_DECREF(r);
	return NULL;
}

/* Stop the recording (if asked) and wait for its thread, GIL released. */
static void join(FlightObject *r, bool stop)
{
	if (r->state == FR_NEW || r->joined)
		return;
	if (stop)
		r->stop = 1;
	Py_BEGIN_ALLOW_THREADS
	pthread_join(r->thread, NULL);
	Py_END_ALLOW_THREADS
	r->joined = true;
}

static void Flight_dealloc(FlightObject *r)
{
	join(r, true);
	if (r->state == FR_DONE)
		strobe_record_result_free(&r->res);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r->snaps);
	free(r->events);
	free(r->argv);
	PyMem_Free(r->ev_names);
	PyMem_Free(r->cmd);
	PyMem_Free(r->cts);
	Py_XDECREF(r->out_bytes);
	Py_XDECREF(r->ev_keep);
	Py_XDECREF(r->cmd_keep);
	Py_XDECREF(r->ct_keep);
	Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyObject *snapshot_dict(const struct strobe_flight_snapshot *s)
{
	if (s->error)
		return Py_BuildValue("{sIsssssdsiss}", "seq", s->seq, "trigger", s->trigger,
				     "reason", s->reason, "time", s->time, "error", -s->error,
				     "message", s->msg);
	return Py_BuildValue("{sIsssssssdsKsKsKsKsK}", "seq", s->seq, "path", s->path,
			     "trigger", s->trigger, "reason", s->reason, "time", s->time,
			     "events", (unsigned long long)s->events,
			     "lost", (unsigned long long)s->lost,
			     "trimmed", (unsigned long long)s->trimmed,
			     "first_ts", (unsigned long long)s->first_ts,
			     "last_ts", (unsigned long long)s->last_ts);
}

static PyObject *snapshots_list(const struct strobe_flight_snapshot *s, size_t n)
{
	PyObject *l = PyList_New(0);
	size_t i;

	for (i = 0; l && i < n; i++) {
		PyObject *d = snapshot_dict(&s[i]);

		if (!d || PyList_Append(l, d) < 0)
			Py_CLEAR(l);
		Py_XDECREF(d);
	}
	return l;
}

/* The finished recording's summary, or OSError if it failed. */
static PyObject *result(FlightObject *r)
{
	const struct strobe_flight_result *f = &r->res.flight;
	PyObject *snaps, *d;
	uint64_t lost = 0;
	int c;

	if (r->rc < 0 && r->rc != -ENOSPC)
		return raise_os(r->rc, r->err.msg);
	for (c = 0; c < r->res.nr_cpus; c++)
		lost += r->res.cpus[c].overrun;
	snaps = snapshots_list(f->snapshots, f->nr_snapshots);
	if (!snaps)
		return NULL;
	d = Py_BuildValue("{sNsKsKsKsKsKsdsKsN}", "snapshots", snaps,
			  "triggers", (unsigned long long)f->triggers,
			  "suppressed_interval", (unsigned long long)f->suppressed_interval,
			  "suppressed_limit", (unsigned long long)f->suppressed_limit,
			  "suppressed_busy", (unsigned long long)f->suppressed_busy,
			  "lost", (unsigned long long)lost, "duration", r->res.duration,
			  "ring_bytes", (unsigned long long)f->ring_bytes,
			  "child_status", r->res.child_exited ? PyLong_FromLong(r->res.child_status)
							      : Py_NewRef(Py_None));
	return d;
}

static PyObject *Flight_start(FlightObject *r, PyObject *unused)
{
	enum fr_state st;
	int e;

	if (r->state != FR_NEW) {
		PyErr_SetString(PyExc_RuntimeError, "the flight recorder was started already");
		return NULL;
	}
	r->state = FR_STARTING;
	e = pthread_create(&r->thread, NULL, run, r);
	if (e) {
		r->state = FR_NEW;
		return raise_os(-e, "cannot start the recording's thread");
	}
	/* until the recorder runs (or the recording failed to start) */
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&r->lock);
	while (r->state == FR_STARTING)
		pthread_cond_wait(&r->cond, &r->lock);
	st = r->state;
	pthread_mutex_unlock(&r->lock);
	Py_END_ALLOW_THREADS
	if (st == FR_DONE) {	/* it failed: result() raises */
		PyObject *x;

		join(r, false);
		x = result(r);
		if (!x)
			return NULL;
		Py_DECREF(x);
		return raise_os(-EIO, "the recording ended before its flight recorder ran");
	}
	Py_INCREF(r);
	return (PyObject *)r;
}

static PyObject *Flight_trigger(FlightObject *r, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "reason", "kind", NULL };
	PyObject *reason_o = Py_None, *kind_o = Py_None;
	const char *reason = NULL, *kind = "python";
	int e = -ESRCH;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:trigger", kwl, &reason_o, &kind_o) ||
	    arg_str("trigger", "reason", reason_o, true, &reason) < 0 ||
	    (kind_o != Py_None && arg_str("trigger", "kind", kind_o, false, &kind) < 0))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&r->lock);
	if (r->f)
		e = strobe_flight_trigger(r->f, kind, reason);
	pthread_mutex_unlock(&r->lock);
	Py_END_ALLOW_THREADS
	if (e == -EINVAL) {
		PyErr_Format(PyExc_ValueError, "trigger() argument 'kind' must be a word of a-z, "
			     "0-9 and '-' of at most 15 characters, not '%s'", kind);
		return NULL;
	}
	if (e == -ESRCH) {
		PyErr_SetString(PyExc_RuntimeError, "the flight recorder is not running");
		return NULL;
	}
	if (e < 0)
		return raise_os(e, NULL);
	Py_RETURN_NONE;
}

/* Stop (stop=True) or wait for the end; the summary dict. */
static PyObject *finish(FlightObject *r, bool stop)
{
	if (r->state == FR_NEW) {
		PyErr_SetString(PyExc_RuntimeError, "the flight recorder was not started");
		return NULL;
	}
	join(r, stop);
	return result(r);
}

static PyObject *Flight_stop(FlightObject *r, PyObject *unused)
{
	return finish(r, true);
}

static PyObject *Flight_wait(FlightObject *r, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "timeout", NULL };
	PyObject *to = Py_None;
	struct timespec ts;
	double t;
	bool done;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", kwl, &to) ||
	    arg_seconds("wait", "timeout", to, &t) < 0)
		return NULL;
	if (r->state == FR_NEW) {
		PyErr_SetString(PyExc_RuntimeError, "the flight recorder was not started");
		return NULL;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)t;
	ts.tv_nsec += (long)((t - (time_t)t) * 1e9);
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&r->lock);
	while (r->state != FR_DONE) {
		if (t < 0)
			pthread_cond_wait(&r->cond, &r->lock);
		else if (pthread_cond_timedwait(&r->cond, &r->lock, &ts) == ETIMEDOUT)
			break;
	}
	done = r->state == FR_DONE;
	pthread_mutex_unlock(&r->lock);
	Py_END_ALLOW_THREADS
	if (!done)
		Py_RETURN_NONE;
	return finish(r, false);
}

static PyObject *Flight_enter(FlightObject *r, PyObject *unused)
{
	return Flight_start(r, NULL);
}

static PyObject *Flight_exit(FlightObject *r, PyObject *args)
{
	PyObject *res;

	if (r->state == FR_NEW)
		Py_RETURN_FALSE;
	res = finish(r, true);
	if (!res)
		return NULL;
	Py_DECREF(res);
	Py_RETURN_FALSE;
}

static PyObject *Flight_running(FlightObject *r, void *c)
{
	bool on;

	pthread_mutex_lock(&r->lock);
	on = r->f != NULL;
	pthread_mutex_unlock(&r->lock);
	return PyBool_FromLong(on);
}

static PyObject *Flight_snapshots(FlightObject *r, void *c)
{
	PyObject *l;

	pthread_mutex_lock(&r->lock);
	l = snapshots_list(r->snaps, r->nr_snaps);
	pthread_mutex_unlock(&r->lock);
	return l;
}

#define KW (PyCFunction)(void (*)(void))

static PyMethodDef Flight_methods[] = {
	{ "start", (PyCFunction)Flight_start, METH_NOARGS,
	  "start()\n--\n\nStart recording on a thread of its own; returns once the flight\n"
	  "recorder runs (OSError if the recording cannot start).  Returns self." },
	{ "trigger", KW Flight_trigger, METH_VARARGS | METH_KEYWORDS,
	  "trigger(reason=None, kind='python')\n--\n\nA trigger, from any thread: the "
	  "recording's thread writes a snapshot\nwithin ~20 ms (OUTPUT.SEQ-TIME-KIND.EXT) "
	  "unless min_interval, max_snapshots\nor a running post suppress it (counted).  "
	  "reason is stored in the file\n(strobe report --info: flight_reason).  "
	  "RuntimeError when not running." },
	{ "stop", (PyCFunction)Flight_stop, METH_NOARGS,
	  "stop()\n--\n\nEnd the recording (a snapshot_on_exit snapshot is written) and wait "
	  "for it;\nthe summary: {snapshots: [{seq, path, trigger, reason, time, events,\n"
	  "lost, trimmed, first_ts, last_ts}], triggers, suppressed_interval,\n"
	  "suppressed_limit, suppressed_busy, lost, duration, ring_bytes, child_status}." },
	{ "wait", KW Flight_wait, METH_VARARGS | METH_KEYWORDS,
	  "wait(timeout=None)\n--\n\nWait for the recording to end by itself (the command or "
	  "process exited,\nduration); the summary as stop() returns it, or None on timeout." },
	{ "__enter__", (PyCFunction)Flight_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)Flight_exit, METH_VARARGS, NULL },
	{ NULL },
};

static PyGetSetDef Flight_getset[] = {
	{ "running", (getter)Flight_running, NULL, "True while triggers are taken" },
	{ "snapshots", (getter)Flight_snapshots, NULL,
	  "the snapshots written so far, as dicts (see stop())" },
	{ NULL },
};

PyTypeObject FlightType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "strobe.FlightRecorder",
	.tp_basicsize = sizeof(FlightObject),
	.tp_dealloc = (destructor)Flight_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "FlightRecorder(output, size='64M', span=None, events=None, command=None,"
		  " pid=None, containers=None, post=None, min_interval=None,"
		  " max_snapshots=None, snapshot_on_exit=False, duration=None)\n"
		  "--\n\n"
		  "strobe record --flight-recorder from Python (strobe-record(1), FLIGHT\n"
		  "RECORDER): the last `size` bytes of events per CPU (or the last `span`\n"
		  "seconds within it) kept in memory, nothing written until trigger()\n"
		  "writes a snapshot, a complete trace file named after output.  events:\n"
		  "\"system:event\" or presets (default: sched and syscalls); the target:\n"
		  "a command (list, run and followed), a pid or containers (names or\n"
		  "IDs), else the whole system.  Root only.\n\n"
		  "    with strobe.FlightRecorder(\"web.dat\", \"16M\", containers=[\"web\"]) as rec:\n"
		  "        ...\n"
		  "        if slow:\n"
		  "            rec.trigger(\"request 42 took 3 s\")",
	.tp_new = Flight_new,
	.tp_methods = Flight_methods,
	.tp_getset = Flight_getset,
};
