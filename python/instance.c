/*
 * instance.c - strobe.Instance (a session: one tracefs instance) and the
 * trace-cruncher verbs on it: create/find/destroy, events and filters,
 * hook2pid, hook2container, tracing on/off.  Every open Instance is on a
 * list so the module can close them when Python exits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "_strobe.h"

/* ---- Instance: a tracefs instance (a session) --------------------------- */

InstanceObject *open_instances;

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
int instance_close(InstanceObject *i, bool remove)
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
struct strobe_session *session_of(const char *fn, PyObject *o)
{
	if (!o || o == Py_None) {
		PyErr_Format(PyExc_TypeError,
			     "%s() argument 'instance' is needed (strobe never changes the "
			     "top-level tracing instance): use create_instance()", fn);
		return NULL;
	}
	if (!PyObject_TypeCheck(o, &InstanceType)) {
		PyErr_Format(PyExc_TypeError, "%s() argument 'instance' must be a strobe.Instance, "
			     "not %.100s", fn, Py_TYPE(o)->tp_name);
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

PyTypeObject InstanceType = {
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

PyObject *py_create_instance(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "name", "tracing_on", "detach", NULL };
	PyObject *pname = NULL, *pon = NULL, *pdetach = NULL;
	const char *name = NULL;
	int tracing_on = 1, detach = 0, r;
	struct strobe_error err = { 0, "" };
	struct strobe_session *s;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO:create_instance", kwl, &pname, &pon,
					 &pdetach) ||
	    arg_str("create_instance", "name", pname, true, &name) < 0 ||
	    arg_bool("create_instance", "tracing_on", pon, &tracing_on) < 0 ||
	    arg_bool("create_instance", "detach", pdetach, &detach) < 0)
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

PyObject *py_find_instance(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "name", NULL };
	struct strobe_error err = { 0, "" };
	struct strobe_session *s;
	const char *name;
	PyObject *pname;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:find_instance", kwl, &pname) ||
	    arg_str("find_instance", "name", pname, false, &name) < 0)
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

PyObject *py_destroy_instance(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", NULL };
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:destroy_instance", kwl, &o))
		return NULL;
	if (!session_of("destroy_instance", o))
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
	PyObject *inst = NULL, *psys = NULL, *pev = NULL, *pfilter = NULL;
	const char *system = NULL, *event = NULL, *filter = NULL;
	struct strobe_session *s;
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "|OOO%s:%s", op == OP_FILTER ? "O" : "", fn);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwl, &inst, &psys, &pev, &pfilter) ||
	    arg_str(fn, "system", psys, true, &system) < 0 ||
	    arg_str(fn, "event", pev, true, &event) < 0 ||
	    arg_str(fn, "filter", pfilter, true, &filter) < 0)
		return NULL;
	if (op == OP_FILTER && !filter) {
		PyErr_Format(PyExc_TypeError, "%s() argument 'filter' is needed (a str)", fn);
		return NULL;
	}
	s = session_of(fn, inst);
	if (!s)
		return NULL;
	return event_op(s, op, system, event, filter);
}

PyObject *py_enable_event(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_ENABLE, "enable_event");
}

PyObject *py_disable_event(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_DISABLE, "disable_event");
}

PyObject *py_set_event_filter(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_FILTER, "set_event_filter");
}

PyObject *py_clear_event_filter(PyObject *self, PyObject *a, PyObject *k)
{
	return one_event(a, k, OP_CLEAR, "clear_event_filter");
}

/* enable_events(instance=, systems=[...], events=[[...], ...]): every
 * argument checked before any event changes. */
static PyObject *many_events(PyObject *args, PyObject *kw, enum ev_op op, const char *fn)
{
	static char *kwl[] = { "instance", "systems", "events", NULL };
	PyObject *inst = NULL, *systems = Py_None, *events = Py_None, *skeep = NULL, *ekeep = NULL,
		*r = NULL;
	PyObject **keeps = NULL;
	const char **sys = NULL, ***evs = NULL;
	int *nr_evs = NULL, n = 0, i, j;
	struct strobe_session *s;
	char fmt[64], what[48];

	snprintf(fmt, sizeof(fmt), "|OOO:%s", fn);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwl, &inst, &systems, &events) ||
	    arg_strs(fn, "systems", systems, false, true, &skeep, &sys, &n) < 0)
		goto out;
	if (events != Py_None) {
		if (!PyList_Check(events) && !PyTuple_Check(events)) {
			PyErr_Format(PyExc_TypeError, "%s() argument 'events' must be a list (one "
				     "list of str or None per system), not %.100s", fn,
				     Py_TYPE(events)->tp_name);
			goto out;
		}
		if (!(ekeep = PySequence_Tuple(events)))
			goto out;
		if (PyTuple_GET_SIZE(ekeep) != n) {
			PyErr_Format(PyExc_ValueError, "%s() argument 'events' has %zd items, one "
				     "per system of 'systems' (%d)", fn, PyTuple_GET_SIZE(ekeep), n);
			goto out;
		}
	}
	keeps = PyMem_Calloc((size_t)n + 1, sizeof(*keeps));
	evs = PyMem_Calloc((size_t)n + 1, sizeof(*evs));
	nr_evs = PyMem_Calloc((size_t)n + 1, sizeof(*nr_evs));
	if (!keeps || !evs || !nr_evs) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; ekeep && i < n; i++) {
		snprintf(what, sizeof(what), "events[%d]", i);
		if (arg_strs(fn, what, PyTuple_GET_ITEM(ekeep, i), false, true, &keeps[i], &evs[i],
			     &nr_evs[i]) < 0)
			goto out;
	}
	s = session_of(fn, inst);
	if (!s)
		goto out;
	if (systems == Py_None) {
		r = event_op(s, op, NULL, NULL, NULL);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!keeps[i]) {	/* the whole system */
			if (!(r = event_op(s, op, sys[i], NULL, NULL)))
				goto out;
			Py_CLEAR(r);
		}
		for (j = 0; j < nr_evs[i]; j++) {
			if (!(r = event_op(s, op, sys[i], evs[i][j], NULL)))
				goto out;
			Py_CLEAR(r);
		}
	}
	r = Py_NewRef(Py_None);
out:
	for (i = 0; keeps && i < n; i++) {
		Py_XDECREF(keeps[i]);
		PyMem_Free(evs[i]);
	}
	PyMem_Free(keeps);
	PyMem_Free(evs);
	PyMem_Free(nr_evs);
	PyMem_Free(sys);
	Py_XDECREF(skeep);
	Py_XDECREF(ekeep);
	return r;
}

PyObject *py_enable_events(PyObject *self, PyObject *a, PyObject *k)
{
	return many_events(a, k, OP_ENABLE, "enable_events");
}

PyObject *py_disable_events(PyObject *self, PyObject *a, PyObject *k)
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

PyObject *py_hook2pid(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", "pid", "fork", NULL };
	PyObject *inst = NULL, *pid = NULL, *pfork = NULL, *keep = NULL;
	struct strobe_session *s;
	int fork_follow = 1;
	Py_ssize_t i, n;
	long long *pids = NULL;
	char what[32];

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:hook2pid", kwl, &inst, &pid, &pfork) ||
	    arg_bool("hook2pid", "fork", pfork, &fork_follow) < 0)
		return NULL;
	if (PyLong_Check(pid) && !PyBool_Check(pid))
		keep = PyTuple_Pack(1, pid);
	else if (PyList_Check(pid) || PyTuple_Check(pid))
		keep = PySequence_Tuple(pid);
	else
		return PyErr_Format(PyExc_TypeError, "hook2pid() argument 'pid' must be an int or "
				    "a list of int, not %.100s", Py_TYPE(pid)->tp_name);
	if (!keep)
		return NULL;
	n = PyTuple_GET_SIZE(keep);
	pids = PyMem_Calloc((size_t)n + 1, sizeof(*pids));
	if (!pids) {
		Py_DECREF(keep);
		return PyErr_NoMemory();
	}
	for (i = 0; i < n; i++) {
		if (PyTuple_Check(pid) || PyList_Check(pid))
			snprintf(what, sizeof(what), "pid[%zd]", i);
		else
			snprintf(what, sizeof(what), "pid");
		if (arg_int("hook2pid", what, PyTuple_GET_ITEM(keep, i), 1, INT32_MAX,
			    &pids[i]) < 0)
			goto fail;
	}
	s = session_of("hook2pid", inst);
	if (!s)
		goto fail;
	for (i = 0; i < n; i++)
		if (hook_pid(s, (long)pids[i], fork_follow) < 0)
			goto fail;
	Py_DECREF(keep);
	PyMem_Free(pids);
	Py_RETURN_NONE;
fail:
	Py_DECREF(keep);
	PyMem_Free(pids);
	return NULL;
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
void on_new_task(const struct strobe_task *t, void *arg)
{
	InstanceObject *i = arg;
	pid_t tid = t->tid;

	if (i->s && is_target_container(i, t->container))
		strobe_session_set_pids(i->s, &tid, 1, true, NULL);
}

PyObject *py_hook2container(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", "container", NULL };
	struct strobe_error err = { 0, "" };
	const struct strobe_task *t;
	PyObject *inst = NULL;
	InstanceObject *i;
	PyObject *pname = NULL;
	const char *name;
	struct strobe_session *s;
	char **nv;
	size_t cur = 0;
	int k, r, n = 0, found = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:hook2container", kwl, &inst, &pname) ||
	    arg_str("hook2container", "container", pname, false, &name) < 0)
		return NULL;
	s = session_of("hook2container", inst);
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
	s = session_of(fn, inst);
	if (!s)
		return NULL;
	r = strobe_session_set_tracing(s, on, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	Py_RETURN_NONE;
}

PyObject *py_tracing_ON(PyObject *self, PyObject *a, PyObject *k)
{
	return tracing_set(a, k, true, "tracing_ON");
}

PyObject *py_tracing_OFF(PyObject *self, PyObject *a, PyObject *k)
{
	return tracing_set(a, k, false, "tracing_OFF");
}

PyObject *py_is_tracing_ON(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", NULL };
	struct strobe_error err = { 0, "" };
	PyObject *inst = NULL;
	struct strobe_session *s;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:is_tracing_ON", kwl, &inst))
		return NULL;
	s = session_of("is_tracing_ON", inst);
	if (!s)
		return NULL;
	r = strobe_session_tracing(s, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	return PyBool_FromLong(r);
}
