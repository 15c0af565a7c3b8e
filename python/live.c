/*
 * live.c - the live loop behind iterate_trace, trace_process and live
 * analyze: a pipeline (strobe-pipeline(3)) over the instance's capture,
 * whose stop conditions (a timeout, the target's exit, Ctrl-C through
 * the pipeline's stop flag) and waiting are the pipeline's own; the
 * batch consumer (events.c) fills batches with the GIL released and
 * pauses the run when one is full or the capture is idle, and the loop
 * hands each event to the callback between runs (STOP, an exception or
 * Ctrl-C end it).  The model's own events are enabled and hidden
 * meanwhile.  At the end the pipeline's diagnostics (lost events, damage
 * skipped) become warnings; with strict=True damage raises instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "_strobe.h"

/* ---- the live loop: iterate_trace, trace_process, live analyze ---------- */

#define CONTAINER_SCAN_MS 100

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

/* The pipeline: the stream, the analysis (live analyze), the batches. */
static int loop_pipeline(struct loop *l)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po) };
	struct strobe_consumer c;
	int r;

	/* timeout=0 stops at once (the pipeline's 0 is "no limit") */
	po.timeout_ms = l->limit < 0 ? 0 : l->limit == 0 ? 1 :
			l->limit > INT32_MAX ? INT32_MAX : (int)l->limit;
	po.target = l->target;
	po.stop = &l->stop;
	po.strict = l->strict;
	r = strobe_pipeline_new(&po, &l->p, &l->err);
	if (r >= 0)
		r = strobe_pipeline_add_stream(l->p, l->st, l->cap, l->src->model, &l->err);
	if (r >= 0 && l->an) {
		r = strobe_analysis_consumer(l->an, 0, &c);
		if (r >= 0)
			r = strobe_pipeline_add_consumer(l->p, &c, &l->err);
	}
	l->f.shown = l->shown;
	l->f.copy = l->cb != NULL;
	filler_consumer(&l->f, &c);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(l->p, &c, &l->err);
	return r;
}

/* Set up capture, stream, model, source and pipeline; tracing still off.
 * -1 raised. */
int loop_open(struct loop *l, struct strobe_session *s)
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
	l->f.b.buf = PyMem_RawMalloc(BATCH_BYTES);
	if (!l->f.b.buf) {
		PyErr_NoMemory();
		return -1;
	}
	batch_reset(&l->f.b);
	/* the formats without kallsyms: events are decoded, never printed
	 * with kernel symbols, and kallsyms is most of the start-up time */
	r = strobe_session_meta_collect_flags(s, NULL, STROBE_META_NO_KALLSYMS, &l->meta,
					      &l->err);
	if (r == 0) {
		struct strobe_capture_opts co = { .size = sizeof(co), .meta = l->meta };

		r = strobe_capture_open(s, &co, &l->cap, &l->err);
	}
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
	r = loop_pipeline(l);
	if (r < 0) {
		raise_os(r, l->err.msg);
		return -1;
	}
	return 0;
}

int loop_start(struct loop *l)
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

/* What the last loop did (events, batches, lost, and gaps: lost marks
 * whose count is unknown), for benchmarks. */
uint64_t last_events, last_batches, last_lost, last_gaps;

/* Tracing off and the capture freed; the session as it was before. */
void loop_close(struct loop *l)
{
	struct strobe_stream_stats st;

	last_events = l->f.events;
	last_batches = l->batches;
	last_lost = 0;
	last_gaps = 0;
	if (l->p) {
		strobe_pipeline_stats(l->p, &st);
		last_lost = st.missed;
		last_gaps = st.missed_unknown;
	}
	strobe_pipeline_free(l->p);	/* it borrows the stream and capture */
	l->p = NULL;
	Py_BEGIN_ALLOW_THREADS
	if (l->cap) {
		strobe_capture_stop(l->cap, NULL);
		strobe_capture_free(l->cap);
	}
	Py_END_ALLOW_THREADS
	l->cap = NULL;
	strobe_session_meta_free(l->meta);	/* after the capture */
	l->meta = NULL;
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
	PyMem_RawFree(l->f.b.buf);
	l->f.b.buf = NULL;
}

/*
 * Without the GIL: run the pipeline until it pauses (a full batch, or an
 * idle capture) or ends.  (Waiting a moment after a small batch for more,
 * as this loop once did, only asked the stream again sooner: each time it
 * has nothing it kicks the CPU it waits for into reading a partial page,
 * three times as often, and cost more CPU than the round trips through
 * Python it saved.)
 */
static int loop_step(struct loop *l)
{
	if (l->inst && l->inst->nr_containers && !l->f.ending && mono_ms() >= l->next_scan) {
		/*
		 * One rescan, into the events' model: a task that entered a
		 * hooked container from outside (podman exec) is hooked by
		 * on_new_task, and its events and those of its short-lived
		 * children keep the container's name even when they are gone
		 * from /proc by the time the stream hands them out.
		 */
		strobe_model_rescan_proc(l->src->model, on_new_task, l->inst, NULL);
		l->next_scan = mono_ms() + CONTAINER_SCAN_MS;
	}
	batch_reset(&l->f.b);
	l->f.idle_until = mono_ms() + IDLE_YIELD_MS;
	return strobe_pipeline_run(l->p, &l->err);
}

/* The loop ends from Python's side (STOP, an exception, Ctrl-C): the
 * batch consumer is done at its next call; live analyze's pipeline
 * drains the capture into the analysis first (stop flag). */
static void loop_end(struct loop *l, enum why why)
{
	l->why = why;
	filler_end(&l->f);
	l->stop = 1;
}

/* An exception raised by the callback or a signal handler: Ctrl-C ends
 * the loop cleanly (cleared); any other is left set.  0 or -1. */
static int loop_exception(struct loop *l)
{
	if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
		PyErr_Clear();
		loop_end(l, W_INTERRUPT);
		return 0;
	}
	loop_end(l, W_ERROR);
	return -1;
}

/*
 * Hand every event to the callback until the pipeline ends (a stop
 * condition, the end of the stream), the callback returns STOP or
 * raises, or Ctrl-C.  KeyboardInterrupt ends the loop cleanly (not
 * raised); any other exception is left set and -1 returned.  Then the
 * diagnostics: warnings, or DamagedDataError with strict.
 */
int loop_run(struct loop *l)
{
	EventObject *spare = NULL;
	const struct rec *rc;
	int r, ret = 0, warned = 0;

	for (;;) {
		Py_BEGIN_ALLOW_THREADS
		r = loop_step(l);
		Py_END_ALLOW_THREADS
		l->batches++;
		while (l->cb && !l->f.ending && (rc = batch_next(&l->f.b))) {
			EventObject *e = event_make(l->src, rc, spare);
			PyObject *res;

			if (!e) {
				loop_end(l, W_ERROR);
				ret = -1;
				break;
			}
			Py_XDECREF(spare);
			spare = e;
			res = PyObject_CallOneArg(l->cb, (PyObject *)e);
			if (!res) {
				ret = loop_exception(l);
				break;
			}
			if (res == Stop)
				loop_end(l, W_STOP);
			Py_DECREF(res);
		}
		if (!l->f.ending && PyErr_CheckSignals() < 0)
			ret = loop_exception(l);
		if (r != STROBE_PIPELINE_YIELD)
			break;
		if (l->f.ending) {
			/* what is left: the consumer is done at once, an
			 * analysis drains the capture */
			Py_BEGIN_ALLOW_THREADS
			do
				r = strobe_pipeline_run(l->p, &l->err);
			while (r == STROBE_PIPELINE_YIELD);
			Py_END_ALLOW_THREADS
			break;
		}
	}
	Py_XDECREF(spare);
	if (!l->f.ending) {
		l->why = r == STROBE_PIPELINE_TIMEOUT ? W_TIMEOUT :
			 r == STROBE_PIPELINE_TARGET_EXIT ? W_TARGET :
			 r == STROBE_PIPELINE_SIGNAL ? W_INTERRUPT :
			 r == STROBE_PIPELINE_DONE ? W_STOP : W_END;
	}
	if (ret < 0)
		return -1;	/* the callback's exception goes first */
	if (r < 0) {
		l->why = W_ERROR;
		raise_run(r, &l->err);
		return -1;
	}
	if ((l->strict && strict_damage(l->p) < 0) || warn_diags(l->p, &l->src, &warned, 1) < 0) {
		l->why = W_ERROR;
		return -1;
	}
	return 0;
}

int timeout_ms(const char *fn, PyObject *timeout, int64_t *ms)
{
	double t;

	*ms = -1;
	if (arg_seconds(fn, "timeout", timeout, &t) < 0)
		return -1;
	if (t >= 0)
		*ms = (int64_t)(t * 1000.0 + 0.5);
	return 0;
}

PyObject *py_iterate_trace(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "instance", "callback", "timeout", "strict", NULL };
	PyObject *inst = NULL, *cb = NULL, *timeout = Py_None, *pstrict = NULL;
	struct loop l;
	struct strobe_session *s;
	InstanceObject *i;
	int ret, strict = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:iterate_trace", kwl, &inst, &cb,
					 &timeout, &pstrict))
		return NULL;
	memset(&l, 0, sizeof(l));
	if (arg_callable("iterate_trace", "callback", cb, false) < 0 ||
	    timeout_ms("iterate_trace", timeout, &l.limit) < 0 ||
	    arg_bool("iterate_trace", "strict", pstrict, &strict) < 0)
		return NULL;
	s = session_of("iterate_trace", inst);
	if (!s)
		return NULL;
	i = (InstanceObject *)inst;
	if (i->busy) {
		PyErr_SetString(PyExc_RuntimeError, "the instance is being iterated already");
		return NULL;
	}
	l.cb = cb;
	l.inst = i;
	l.strict = strict;
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

	if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
		PyErr_Format(PyExc_TypeError, "trace_process() argument 'argv' must be a list of "
			     "str, not %.100s", Py_TYPE(seq)->tp_name);
		return NULL;
	}
	n = PySequence_Size(seq);
	if (n <= 0) {
		PyErr_SetString(PyExc_ValueError, "trace_process() argument 'argv' is empty");
		return NULL;
	}
	argv = PyMem_Calloc(n + 1, sizeof(*argv));
	if (!argv)
		return (char **)PyErr_NoMemory();
	for (i = 0; i < n; i++) {
		PyObject *x = PySequence_GetItem(seq, i), *b = NULL;
		char what[48];

		snprintf(what, sizeof(what), "argv[%zd]", i);
		if (!x || arg_path("trace_process", what, x, &b) < 0) {
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
/* trace_process's events= (None: the default) and filters=, checked
 * before anything is traced. */
struct ev_args {
	PyObject *keep;		/* what ev points into */
	const char **ev;
	int nr_ev;
	PyObject *filters;	/* a dict of str: str, or NULL */
};

static int ev_args_parse(struct ev_args *a, PyObject *events, PyObject *filters)
{
	PyObject *k, *v;
	Py_ssize_t pos = 0;
	const char *x;

	if (arg_strs("trace_process", "events", events, false, true, &a->keep, &a->ev,
		     &a->nr_ev) < 0)
		return -1;
	if (!filters || filters == Py_None)
		return 0;
	if (!PyDict_Check(filters)) {
		PyErr_Format(PyExc_TypeError, "trace_process() argument 'filters' must be a dict "
			     "{event: filter}, not %.100s", Py_TYPE(filters)->tp_name);
		return -1;
	}
	while (PyDict_Next(filters, &pos, &k, &v)) {
		if (!PyUnicode_Check(k)) {
			PyErr_Format(PyExc_TypeError, "trace_process() argument 'filters' keys must "
				     "be str (event names), not %.100s", Py_TYPE(k)->tp_name);
			return -1;
		}
		if (!PyUnicode_Check(v)) {
			PyErr_Format(PyExc_TypeError, "trace_process() argument 'filters' value for "
				     "'%U' must be a str, not %.100s", k, Py_TYPE(v)->tp_name);
			return -1;
		}
		if (arg_str("trace_process", "filters", k, false, &x) < 0 ||
		    arg_str("trace_process", "filters", v, false, &x) < 0)
			return -1;
	}
	a->filters = filters;
	return 0;
}

static void ev_args_free(struct ev_args *a)
{
	Py_CLEAR(a->keep);
	PyMem_Free(a->ev);
	a->ev = NULL;
}

static int setup_events(struct strobe_session *s, const struct ev_args *a)
{
	static const char *const dflt[] = { "sched", "syscalls" };
	struct strobe_error err = { 0, "" };
	PyObject *k, *v;
	Py_ssize_t pos = 0;
	int i, r;

	for (i = 0; i < (a->keep ? a->nr_ev : 2); i++)
		if ((r = strobe_session_enable(s, a->keep ? a->ev[i] : dflt[i], NULL, &err)) < 0)
			return raise_ev(r, &err), -1;
	while (a->filters && PyDict_Next(a->filters, &pos, &k, &v)) {
		r = strobe_session_set_filter(s, PyUnicode_AsUTF8(k), PyUnicode_AsUTF8(v), &err);
		if (r < 0)
			return raise_ev(r, &err), -1;
	}
	return 0;
}

PyObject *py_trace_process(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "argv", "callback", "events", "filters", "timeout", "strict",
			       NULL };
	PyObject *pargv, *cb = Py_None, *events = Py_None, *filters = Py_None,
		*timeout = Py_None, *pstrict = NULL;
	struct ev_args ea = { NULL, NULL, 0, NULL };
	struct strobe_error err = { 0, "" };
	struct strobe_session *s = NULL;
	struct loop l;
	char **argv;
	pid_t child;
	enum why why;
	int go = -1, ex = -1, r, st, e = 0, ret, strict = 0;
	ssize_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOOO:trace_process", kwl, &pargv, &cb,
					 &events, &filters, &timeout, &pstrict))
		return NULL;
	memset(&l, 0, sizeof(l));
	if (arg_callable("trace_process", "callback", cb, true) < 0 ||
	    timeout_ms("trace_process", timeout, &l.limit) < 0 ||
	    arg_bool("trace_process", "strict", pstrict, &strict) < 0)
		return NULL;
	argv = make_argv(pargv);
	if (!argv)
		return NULL;
	if (ev_args_parse(&ea, events, filters) < 0) {
		ev_args_free(&ea);
		free_argv(argv);
		return NULL;
	}
	strobe_session_cleanup_stale(NULL, NULL);
	r = strobe_session_open(NULL, &s, &err);
	if (r < 0) {
		ev_args_free(&ea);
		free_argv(argv);
		return raise_os(r, err.msg);
	}
	r = setup_events(s, &ea);
	ev_args_free(&ea);
	if (r < 0)
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
	l.strict = strict;
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
