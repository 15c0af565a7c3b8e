/*
 * _strobe.h - what the C files of the strobe Python module share: the
 * objects (Source, Event, Instance), the batch records events travel in,
 * the consumer that fills batches inside a pipeline, the live loop, and
 * the functions one file calls in another.
 *
 *   events.c    event types and their fields, Source, the batch consumer,
 *               Event, diagnostics as warnings and exceptions
 *   instance.c  Instance and the verbs on it (events, filters, hooks)
 *   live.c      the live loop: iterate_trace, trace_process
 *   files.c     read_trace, analyze
 *   sql.c       sql: SQL over trace files, guarded as strobe sql --safe
 *   analysis.c  Analysis: fed Events, read per interval (snapshot, reset)
 *   profile.c   profile: a CPU profile (perf samples) live or from a file
 *   record.c    record: a trace file, with uprobes and USDT probes
 *   args.c      argument checks: TypeError and ValueError naming them
 *   _strobe.c   the module: its function table and initialisation
 *
 * Everything here is internal to the extension (hidden by its version
 * script); only PyInit__strobe is exported.
 */
#ifndef STROBE_PY_H
#define STROBE_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <strobe/strobe.h>

#define BATCH_EVENTS 1024
#define BATCH_BYTES (256 * 1024)
#define MAX_PAYLOAD 65536	/* an event never exceeds a ring-buffer page */
#define IDLE_YIELD_MS 50	/* live: back in Python at least this often */

extern PyObject *Stop;		/* strobe.STOP */
/* strobe.TraceWarning (a diagnostic), strobe.DamagedDataWarning (damage
 * skipped, a TraceWarning), strobe.DamagedDataError (strict=True: an
 * OSError with errno EBADMSG) */
extern PyObject *TraceWarning, *DamagedDataWarning, *DamagedDataError;

/* ---- args.c ------------------------------------------------------------ */

/*
 * Each checks argument `name` of function `fn` (for the message), and
 * returns 0, or -1 with TypeError or ValueError raised naming both.  An
 * absent argument (o NULL) is left as the caller set its default.
 *   arg_str      a str without NUL (none_ok: or None, *out NULL)
 *   arg_path     str, bytes or os.PathLike without NUL: *bytes, a new bytes
 *   arg_strs     a list or tuple of str (one_ok: or one str; none_ok: or
 *                None, *n 0): *out (PyMem_Malloc'd) points into *keep
 *   arg_int      an int (not a bool) from min to max
 *   arg_bool     a bool (or the int 0 or 1)
 *   arg_seconds  None (*out -1), or an int or float from 0 to 1e9
 *   arg_callable callable (none_ok: or None)
 */
int arg_str(const char *fn, const char *name, PyObject *o, bool none_ok, const char **out);
int arg_path(const char *fn, const char *name, PyObject *o, PyObject **bytes);
int arg_strs(const char *fn, const char *name, PyObject *o, bool one_ok, bool none_ok,
	     PyObject **keep, const char ***out, int *n);
int arg_int(const char *fn, const char *name, PyObject *o, long long min, long long max,
	    long long *out);
int arg_bool(const char *fn, const char *name, PyObject *o, int *out);
int arg_seconds(const char *fn, const char *name, PyObject *o, double *out);
int arg_callable(const char *fn, const char *name, PyObject *o, bool none_ok);

/* ---- events.c ---------------------------------------------------------- */

enum fkind { F_NONE, F_INT, F_UINT, F_STR, F_ARRAY };

struct pyfield {
	PyObject *name;		/* str */
	struct strobe_field acc;
	uint8_t kind;		/* enum fkind */
	uint8_t elem;		/* F_ARRAY: element size 1, 2, 4 or 8 */
	uint8_t elem_signed;
	uint8_t common;		/* common_*: in ev[...] but not ev.fields */
	uint8_t rest;		/* "char x[]" of size 0: the rest of the payload */
};

struct ftype {
	const struct strobe_format *format;	/* NULL: unknown id */
	PyObject *name, *system;	/* str, or None for an unknown id */
	int nr_fields;		/* -1 until the fields are first asked for */
	struct pyfield *fields;
	PyObject *index;	/* dict: name -> position in fields */
};

typedef struct {
	PyObject_HEAD
	struct strobe_tracefile *tf;	/* a file's (read_trace) */
	struct strobe_stream *st;	/* live: the capture's stream */
	struct strobe_model *model;
	PyObject *host;			/* str, or None (live, unknown) */
	struct ftype **types;		/* by type id */
	int nr_types;
	PyObject **buffers;		/* file: buffer names (None: top level) */
	int nr_buffers;
} SourceObject;

/* One event as the consumer saw it; the payload follows, 8-byte aligned. */
struct rec {
	uint64_t ts;
	int64_t missed;
	const struct strobe_format *format;
	const struct strobe_container *cont;	/* NULL: no model */
	int32_t cpu, pid, tgid, type, buffer;
	uint32_t size;
	int32_t source;			/* the pipeline's source index */
	char comm[16];
};

struct batch {
	uint8_t *buf;
	size_t used;		/* bytes filled */
	size_t pos;		/* next record to hand out */
	int n;			/* records filled */
};

/*
 * Which event types a live loop hands to Python: those the user enabled,
 * not the ones the loop enabled for the task model (fork, exec, exit ...).
 * vis[id]: 0 not decided yet, 1 shown, -1 hidden.
 */
struct shown {
	const struct strobe_strv *user;	/* "system:event" the user enabled */
	int8_t vis[65536];
};

typedef struct {
	PyObject_VAR_HEAD		/* ob_size: room for the payload */
	SourceObject *src;		/* strong */
	struct ftype *ft;		/* owned by src */
	struct rec r;			/* as in the batch */
	uint8_t data[];			/* r.size bytes of payload */
} EventObject;

extern PyTypeObject SourceType, EventType;

/* OSError(errno, msg); for calls naming events or filters, ValueError for
 * an unknown event (-ENOENT) or a refused filter (-EINVAL).  NULL. */
PyObject *raise_os(int code, const char *msg);
PyObject *raise_ev(int code, const struct strobe_error *err);

/* A new, empty Source. */
SourceObject *source_new(void);

/*
 * The consumer that fills a batch inside a pipeline (events.c), run with
 * the GIL released: each event the callback should see is copied into
 * the batch with its task's tgid, comm and container as the model knows
 * them at that event; a full batch pauses the run (STROBE_CONSUMER_YIELD),
 * and so does an idle live input when the batch holds events or
 * idle_until has passed, so the caller hands the batch to Python and
 * looks at signals between runs.
 */
struct filler {
	struct batch b;			/* b.buf: BATCH_BYTES, the caller's */
	const struct strobe_pipeline_source *srcs;	/* from start */
	int nr_srcs;
	struct strobe_model *model;	/* one source: its model (else NULL) */
	struct shown *shown;		/* live: the user's events only */
	bool copy;			/* false: counted, not copied (no callback) */
	bool ending;			/* filler_end: done at the next call */
	bool plain;			/* copy, every event, not ending */
	int64_t idle_until;		/* mono ms */
	uint64_t events;		/* events the callback was to see */
};
/* The consumer for f (shown and copy set before). */
void filler_consumer(struct filler *f, struct strobe_consumer *c);
/* No more events wanted: the consumer is done at its next call. */
void filler_end(struct filler *f);
void batch_reset(struct batch *b);
const struct rec *batch_next(struct batch *b);
int64_t mono_ms(void);

/*
 * A pipeline's diagnostics for Python.  diags_list: [{"kind", "message",
 * "source"}] (source: the file's path, None live; srcs[i] is source i, nr
 * of them).  warn_diags: a warning per diagnostic not warned yet
 * (DamagedDataWarning for damage, TraceWarning for the others, with the
 * dict as the warning's `diagnostic` attribute); warned[i]
 * counts source i's warned so far (nr entries); 0, or -1 when a warning
 * filter raised.  strict_damage: DamagedDataError for the first damage
 * among them, -1; 0 when there is none.  raise_run: the exception for a
 * failed run (DamagedDataError for -EBADMSG, ValueError for -ENOENT: an
 * analysis lacks its events, else OSError); NULL.
 */
PyObject *diags_list(const struct strobe_pipeline *p, SourceObject **srcs, int nr);
int warn_diags(const struct strobe_pipeline *p, SourceObject **srcs, int *warned, int nr);
/* warnings.warn(cls(diag["message"])) with diag as its `diagnostic`; 0 or -1. */
int warn_one(PyObject *cls, PyObject *diag);
int strict_damage(const struct strobe_pipeline *p);
PyObject *raise_run(int code, const struct strobe_error *err);

/* An Event for record r (reusing `reuse` when nobody else holds it). */
EventObject *event_make(SourceObject *src, const struct rec *r, EventObject *reuse);

/* ---- instance.c -------------------------------------------------------- */

typedef struct InstanceObject {
	PyObject_HEAD
	struct strobe_session *s;	/* NULL once destroyed */
	bool detached;			/* left in place at exit */
	bool busy;			/* being iterated */
	char **containers;		/* hook2container targets, for rescans */
	int nr_containers;
	struct strobe_model *hook_model;	/* their tasks, rescanned */
	struct InstanceObject *next, *prev;	/* every open Instance */
} InstanceObject;

extern PyTypeObject InstanceType;
extern InstanceObject *open_instances;

/* Close the session: removed if `remove`, else unless kept. */
int instance_close(InstanceObject *i, bool remove);
/* The session behind function fn's `instance=` argument, or NULL (raised). */
struct strobe_session *session_of(const char *fn, PyObject *o);
/* strobe_model_rescan_proc's callback: hook a task that entered a
 * target container of Instance arg. */
void on_new_task(const struct strobe_task *t, void *arg);

PyObject *py_create_instance(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_find_instance(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_destroy_instance(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_enable_event(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_enable_events(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_disable_event(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_disable_events(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_set_event_filter(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_clear_event_filter(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_hook2pid(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_hook2container(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_tracing_ON(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_tracing_OFF(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_is_tracing_ON(PyObject *self, PyObject *args, PyObject *kw);

/* ---- live.c ------------------------------------------------------------ */

enum why { W_END, W_STOP, W_TIMEOUT, W_TARGET, W_INTERRUPT, W_ERROR };

/*
 * A live loop: a pipeline over the capture's stream, whose stop
 * conditions (timeout, the target's exit, Ctrl-C through `stop`) and
 * waiting are the pipeline's; the batch consumer fills batches that
 * loop_run hands to the callback between runs.
 */
struct loop {
	struct strobe_session *s;
	InstanceObject *inst;		/* for container rescans; may be NULL */
	PyObject *cb;			/* may be NULL (events only counted) */
	struct strobe_analysis *an;	/* live analyze: a consumer too */
	int64_t limit;			/* timeout in ms from the capture's start; -1 none */
	pid_t target;			/* stop when it exits; 0 none */
	bool strict;			/* damage raises DamagedDataError */
	struct strobe_session_meta *meta;	/* the stream's formats' source */
	struct strobe_capture *cap;
	struct strobe_stream *st;
	struct strobe_pipeline *p;
	SourceObject *src;
	struct filler f;
	struct strobe_strv user;	/* events the user enabled */
	struct strobe_strv added;	/* model events the loop enabled */
	struct shown *shown;
	volatile sig_atomic_t stop;	/* Ctrl-C: the pipeline drains and ends */
	enum why why;
	int was_on;			/* tracing_on before the loop */
	int64_t next_scan;
	uint64_t batches;
	struct strobe_error err;
};

/* What the last loop did (events, batches, lost), for benchmarks. */
extern uint64_t last_events, last_batches, last_lost, last_gaps;

/* loop_open: capture, stream, model, pipeline (tracing still off);
 * loop_start: tracing on; loop_run: every event to the callback until
 * the run ends, then the diagnostics as warnings (or strict's error);
 * loop_close: everything as it was.  -1 with an exception raised. */
int loop_open(struct loop *l, struct strobe_session *s);
int loop_start(struct loop *l);
int loop_run(struct loop *l);
void loop_close(struct loop *l);
/* fn's timeout (seconds or None, checked) into ms (-1: none).  The loop's deadline
 * counts from the capture's start, not from the call: opening an instance
 * can take a while on a machine that never traced since boot. */
int timeout_ms(const char *fn, PyObject *timeout, int64_t *ms);

PyObject *py_iterate_trace(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_trace_process(PyObject *self, PyObject *args, PyObject *kw);

/* ---- files.c ----------------------------------------------------------- */

extern PyTypeObject ReaderType;

PyObject *py_read_trace(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_analyze(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_analysis_names(PyObject *self, PyObject *unused);
/* analyze()'s pieces, shared with Analysis: the result tables as
 * {table name: [row dicts]}; the analysis arguments of function fn,
 * checked, as options (an_args_parse: -1 with an exception set, a freed;
 * the strings a->o points into live until an_args_free). */
PyObject *tables_dict(const struct strobe_analysis *a);
struct strobe_table;
PyObject *table_rows(const struct strobe_table *t);

/* ---- profile.c --------------------------------------------------------- */

PyObject *py_profile(PyObject *self, PyObject *args, PyObject *kw);

/* ---- record.c ---------------------------------------------------------- */

PyObject *py_record(PyObject *self, PyObject *args, PyObject *kw);
/*
 * A recording from Python (record(), profile(), record.c): the target
 * of record()'s and profile()'s arguments into o: the command av[0..nav)
 * (nav 0: none; *args_z, the NULL-terminated copy o->argv points to, is
 * the caller's to free), container cname (NULL: none), pid (0: none),
 * duration secs (<= 0: none), and an on_tick that runs the signal
 * handlers every tick with the GIL taken back: Ctrl-C sets rr->stop (the
 * recording ends, its result kept), another exception a handler raised
 * sets rr->raised too (the caller returns NULL with it).  0, or -1 with
 * MemoryError.
 */
struct py_rec_run {
	volatile sig_atomic_t stop;
	bool raised;		/* a signal handler raised: propagate it */
};
int py_record_target(struct strobe_record_opts *o, const char **av, int nav, const char **cname,
		     long long pid, double secs, struct py_rec_run *rr, char ***args_z);
/* After the recording that returned r: -1 with the exception a signal
 * handler raised, or (r < 0) an OSError of err's message; else 0. */
int py_record_ended(const struct py_rec_run *rr, int r, const struct strobe_error *err);
struct an_args {
	struct strobe_analysis_opts o;
	char *names;			/* "cputop,syscalls" */
	PyObject *fkeep, *pkeep, *ckeep;	/* what the arrays point into */
	const char **filters, **periods, **captures;
};
int an_args_parse(const char *fn, struct an_args *a, PyObject *names, PyObject *group,
		  PyObject *top, PyObject *views, PyObject *filter, PyObject *periods,
		  PyObject *captures);
void an_args_free(struct an_args *a);

/* ---- sql.c ------------------------------------------------------------- */

PyObject *py_sql(PyObject *self, PyObject *args, PyObject *kw);

/* ---- analysis.c -------------------------------------------------------- */

extern PyTypeObject AnalysisType;

/* ---- flight.c ---------------------------------------------------------- */

extern PyTypeObject FlightType;

#endif
