/*
 * record.c - strobe.record(): write a trace file as `strobe record` does
 * (strobe_record, record.h), from Python: a command argv (run until it
 * exits), a process pid and its children, a container, or the whole
 * system; the events by name or preset; user-space probes (uprobes=
 * "PATH:FUNCTION[%return] [ARGS]", usdt= "PATH:PROVIDER:NAME", resolved
 * in the target's mount namespace) recorded as ordinary events of the
 * file; profile=HZ: perf samples of the same target with their call
 * chains, stored next to the tracepoint events as `strobe record
 * --profile` stores them (the library's strobe_profile_records_setup,
 * profile.h).  The file is then read with strobe.read_trace(),
 * strobe.profile(source=...) or analysed like any recording.
 *
 * The result is a dict: "output" (the file written), "events" and "lost"
 * (the per-CPU counts added up), "duration" (seconds tracing was on),
 * "exit_status" (the command's, None without argv or when it did not
 * exit), "incomplete" ("" or why the file was cut short), and with
 * profile= "samples", "samples_lost" (the perf source's counts) and
 * "records" (the perf records stored in the file; None without profile).
 *
 * The GIL is released while recording; the recording's tick (every
 * 100 ms, on this thread) takes it back to look at signals: Ctrl-C ends
 * the recording (the file is written), another exception raised by a
 * signal handler ends it and propagates.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <strobe/profile.h>
#include <strobe/record.h>

#include "_strobe.h"

#define FN "record"

/* Every 100 ms on the recording's thread: signals (Ctrl-C ends it). */
static int on_tick(bool final, void *arg)
{
	struct py_rec_run *rr = arg;
	PyGILState_STATE g;

	if (final || rr->stop)
		return 0;
	g = PyGILState_Ensure();
	if (PyErr_CheckSignals() < 0) {
		if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
			PyErr_Clear();
		else
			rr->raised = true;
		rr->stop = 1;
	}
	PyGILState_Release(g);
	return 0;
}

int py_record_target(struct strobe_record_opts *o, const char **av, int nav, const char **cname,
		     long long pid, double secs, struct py_rec_run *rr, char ***args_z)
{
	int i;

	*args_z = NULL;
	if (nav) {
		if (!(*args_z = calloc((size_t)nav + 1, sizeof(**args_z)))) {
			PyErr_NoMemory();
			return -1;
		}
		for (i = 0; i < nav; i++)
			(*args_z)[i] = (char *)av[i];
		o->argv = *args_z;
	}
	if (*cname) {
		o->containers = cname;
		o->nr_containers = 1;
	}
	o->pid = (pid_t)pid;
	o->duration = secs > 0 ? secs : 0;
	o->on_tick = on_tick;
	o->event_arg = rr;
	o->stop = &rr->stop;
	return 0;
}

int py_record_ended(const struct py_rec_run *rr, int r, const struct strobe_error *err)
{
	if (rr->raised)
		return -1;	/* the exception a signal handler raised */
	if (r < 0) {
		raise_os(r, err->msg);
		return -1;
	}
	return 0;
}

static PyObject *result(const struct strobe_record_result *res,
			const struct strobe_profile_records *prof)
{
	unsigned long long events = 0, lost = 0;
	struct strobe_perf_stats st = { 0 };
	PyObject *status, *samples, *slost, *records;
	int i;

	for (i = 0; i < res->nr_cpus; i++) {
		events += res->cpus[i].events;
		lost += res->cpus[i].lost;
	}
	if (res->child_exited && WIFEXITED(res->child_status))
		status = PyLong_FromLong(WEXITSTATUS(res->child_status));
	else if (res->child_exited && WIFSIGNALED(res->child_status))
		status = PyLong_FromLong(-WTERMSIG(res->child_status));
	else
		status = Py_NewRef(Py_None);
	if (!status)
		return NULL;
	if (prof && prof->perf)
		strobe_perf_stats(prof->perf, &st);
	if (prof) {
		samples = PyLong_FromUnsignedLongLong(st.samples);
		slost = PyLong_FromUnsignedLongLong(st.lost);
		records = PyLong_FromUnsignedLongLong(res->records);
	} else {
		samples = Py_NewRef(Py_None);
		slost = Py_NewRef(Py_None);
		records = Py_NewRef(Py_None);
	}
	return Py_BuildValue("{s:s,s:K,s:K,s:d,s:N,s:s,s:N,s:N,s:N}", "output", res->output,
			     "events", events, "lost", lost, "duration", res->duration,
			     "exit_status", status, "incomplete", res->incomplete,
			     "samples", samples, "samples_lost", slost, "records", records);
}

PyObject *py_record(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "output", "argv", "pid", "container", "events", "duration",
			       "uprobes", "usdt", "profile", NULL };
	PyObject *output = NULL, *argv = Py_None, *pid = Py_None, *cont = Py_None,
		*events = Py_None, *duration = Py_None, *uprobes = Py_None, *usdt = Py_None,
		*profile = Py_None;
	PyObject *path = NULL, *keep_av = NULL, *keep_ev = NULL, *keep_up = NULL,
		*keep_us = NULL, *out = NULL;
	struct strobe_record_opts o = { .size = sizeof(o) };
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	struct strobe_record_event *ev = NULL;
	struct strobe_profile_records prof = { .po = { .size = sizeof(prof.po) } };
	struct py_rec_run rr;
	const char **av = NULL, **evs = NULL, **ups = NULL, **uss = NULL, *cname = NULL;
	char **args_z = NULL;
	int nav = 0, nev = 0, nup = 0, nus = 0, i, r;
	long long v_pid = 0, v_hz = 0;
	double secs = -1;

	memset(&rr, 0, sizeof(rr));
	memset(&res, 0, sizeof(res));
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOOOOOO:record", kwl, &output, &argv,
					 &pid, &cont, &events, &duration, &uprobes, &usdt,
					 &profile))
		return NULL;
	if (arg_path(FN, "output", output, &path) < 0)
		return NULL;
	if ((argv != Py_None && arg_strs(FN, "argv", argv, false, false, &keep_av, &av, &nav) < 0) ||
	    (pid != Py_None && arg_int(FN, "pid", pid, 1, 0x3fffffff, &v_pid) < 0) ||
	    arg_str(FN, "container", cont, true, &cname) < 0 ||
	    arg_strs(FN, "events", events, true, true, &keep_ev, &evs, &nev) < 0 ||
	    arg_seconds(FN, "duration", duration, &secs) < 0 ||
	    arg_strs(FN, "uprobes", uprobes, true, true, &keep_up, &ups, &nup) < 0 ||
	    arg_strs(FN, "usdt", usdt, true, true, &keep_us, &uss, &nus) < 0 ||
	    (profile != Py_None && arg_int(FN, "profile", profile, 1, 100000, &v_hz) < 0))
		goto out;
	if (!PyBytes_GET_SIZE(path)) {
		PyErr_SetString(PyExc_ValueError, "record() argument 'output' must name a file, "
				"not ''");
		goto out;
	}
	if (argv != Py_None && !nav) {
		PyErr_SetString(PyExc_ValueError, "record() argument 'argv' is an empty list");
		goto out;
	}
	if ((argv != Py_None) + (pid != Py_None) + (cont != Py_None) > 1) {
		PyErr_SetString(PyExc_ValueError, "record() takes one of argv, pid and container "
				"(none: the whole system)");
		goto out;
	}
	if (cname && !*cname) {
		PyErr_SetString(PyExc_ValueError, "record() argument 'container' must name a "
				"container, not ''");
		goto out;
	}
	if (events != Py_None && !nev) {
		PyErr_SetString(PyExc_ValueError, "record() argument 'events' is an empty list "
				"(None: the sched and syscalls presets)");
		goto out;
	}
	if (nev && !(ev = calloc((size_t)nev, sizeof(*ev)))) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < nev; i++)
		ev[i].spec = evs[i];
	if (py_record_target(&o, av, nav, &cname, v_pid, secs, &rr, &args_z) < 0)
		goto out;
	o.output = PyBytes_AS_STRING(path);
	o.events = ev;
	o.nr_events = (size_t)nev;
	o.uprobes = ups;
	o.nr_uprobes = (size_t)nup;
	o.usdt = uss;
	o.nr_usdt = (size_t)nus;
	prof.po.freq = (unsigned)v_hz;
	Py_BEGIN_ALLOW_THREADS
	r = v_hz ? strobe_profile_records_setup(&prof, &o, &err) : 0;
	if (r == 0)
		r = strobe_record(&o, &res, &err);
	Py_END_ALLOW_THREADS
	if (py_record_ended(&rr, r, &err) < 0)
		goto out;
	out = result(&res, v_hz ? &prof : NULL);
out:
	strobe_profile_records_release(&prof);
	strobe_record_result_free(&res);
	free(ev);
	free(args_z);
	PyMem_Free(av);
	PyMem_Free(evs);
	PyMem_Free(ups);
	PyMem_Free(uss);
	Py_XDECREF(keep_av);
	Py_XDECREF(keep_ev);
	Py_XDECREF(keep_up);
	Py_XDECREF(keep_us);
	Py_XDECREF(path);
	return out;
}
