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
struct strobe_session *session_of(PyObject *o)
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

PyObject *py_find_instance(PyObject *self, PyObject *args, PyObject *kw)
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

PyObject *py_destroy_instance(PyObject *self, PyObject *args, PyObject *kw)
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

PyObject *py_hook2pid(PyObject *self, PyObject *args, PyObject *kw)
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
	s = session_of(inst);
	if (!s)
		return NULL;
	r = strobe_session_tracing(s, &err);
	if (r < 0)
		return raise_os(r, err.msg);
	return PyBool_FromLong(r);
}
