/*
 * perfetto.c - the stream as Chrome trace-event JSON for Perfetto UI,
 * chrome://tracing and speedscope (include/strobe/perfetto.h says what
 * the document holds; strobe-perfetto(3)).
 *
 * A pipeline consumer that writes as events come, so memory stays
 * bounded by what is live (threads, CPUs, containers, open periods) and
 * the output goes out in ~1 MiB pieces through the caller's write
 * function.  Each JSON record is formatted by hand into that buffer
 * (integers and the "us.nnn" timestamps by a digit loop, never printf):
 * at millions of events a second printf would be most of the cost.
 * Every string from the trace (command names, container names, period
 * names and captures) goes through strobe_json_escape_buf, the one JSON
 * escaper; a thread keeps its escaped name until its comm changes.
 *
 * How it works, per source (file or live capture):
 *   - each CPU remembers who runs there since when (from sched_switch, or
 *     any event's common_pid when no switch was seen): a switch ends the
 *     CPU track's slice of the task switched out and begins the next
 *     ("B"/"E", name = comm);
 *   - each thread remembers whether it runs and its open system call: a
 *     switch out, a sys_enter and a sys_exit end the running piece ("B"/
 *     "E" "running"), so running pieces nest inside the call's "B"/"E"
 *     pair and never cross it; the tracks of a thread stay properly
 *     nested, as Perfetto and speedscope need, and every E names its B;
 *   - a wake-up writes a flow start ("s") on the waker's thread and a
 *     flow end ("f", bound to the wakee's next slice) on the wakee's;
 *   - CPU time is charged per CPU to the running task's container and
 *     written as counters ("C") every counter_ns when it changed;
 *   - periods come from the engine when they end: "b" and "e" at once.
 * The threads live in the analyses' hash map (analysis-int.h, ana_map);
 * px_event makes room for the threads one event may add before handling
 * it, so pointers to threads stay valid while it is handled.  At the end
 * the threads' open slices are closed in tid order.
 * Every slice is a B/E pair written in time order, never an X: viewers
 * compute an X's end in floating point, which may cross the next slice.
 *
 * Process ids in the document: a host process keeps its tgid, a thread
 * its tid (plus source * 4194304 for the second and later files, whose
 * ids may repeat); container groups, the "CPUs" group and its per-CPU
 * tracks take ids above 2^30, which no Linux pid reaches.  A thread that
 * moves into a container (runc init, podman exec) closes its slices in
 * the old group and opens them again in the new one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/expr.h>
#include <strobe/model.h>
#include <strobe/perfetto.h>
#include <strobe/pipeline.h>
#include <strobe/stream.h>
#include <strobe/output.h>

#include "analyses/analysis-int.h"
#include "sinks/sinks-int.h"
#include "syscalls/syscalls.h"
#include "util/err.h"

#define OUT_CAP		(1u << 20)	/* output buffer */
#define LINE_MAX_BYTES	8192		/* room asked for one record */
#define PID_SPAN	4194304		/* PID_MAX_LIMIT: ids of one source */
#define GROUP_CONT	0x40000000	/* + source * 65536 + container index */
#define GROUP_CPUS	0x60000000	/* + source */
#define TID_CPU		0x68000000	/* + source * 4096 + cpu */
#define ORIGIN_LIMIT	2000000000000000ULL	/* 2e15 ns */
#define NR_SYSNAMES	1024
#define ESC_COMM	(16 * 6 + 3)	/* an escaped comm, quotes and NUL */

enum kind {
	K_UNRESOLVED = 0, K_OTHER, K_SWITCH, K_WAKE, K_WAKE_NEW, K_EXIT, K_EXEC,
	K_RAW_ENTER, K_RAW_EXIT, K_SYS_ENTER, K_SYS_EXIT,
};

struct ttype {
	uint8_t kind;
	int8_t period;			/* periods may match: -1 unknown, 0, 1 */
	struct strobe_field a, b;	/* switch: prev_pid, next_pid; wake: pid;
					 * exit: pid; raw: id (a), ret (b);
					 * sys_exit_X: ret (b) */
	char *name;			/* syscalls:sys_enter_X: "\"X\"" */
};

struct thr {
	int tid;			/* its key in src.thr */
	int group;			/* document pid */
	int jtid;			/* document tid */
	int cidx;			/* container index (counters) */
	uint64_t serial;		/* the model's task instance */
	int cpu;
	int sys_nr;			/* open call's number (in_sys) */
	const char *ename;		/* ... its name, escaped (the exporter's) */
	uint8_t on_cpu, in_sys, sel, named, exiting, proc_named, fresh;
	uint8_t run_open;		/* a running piece's B is written, not
					 * ended: 1 "running", 2 "running (in
					 * call)" */
	char comm[16];
	char ecomm[ESC_COMM];		/* comm escaped, quotes included */
	char head[48];			/* ',"pid":G,"tid":T' */
	uint8_t head_len;
};

struct cpu {
	int cur;			/* tid running, -1 unknown */
	uint64_t since;			/* ... since */
	uint64_t charged;		/* CPU time charged up to */
	int cidx;			/* its container index, -1 none */
	bool named;
	bool open;			/* a B of the CPU track is not ended */
	char ename[ESC_COMM];		/* ... its name */
	int open_tid, open_group;	/* ... its args */
};

struct src {
	int index;
	struct strobe_formats *fmts;
	struct strobe_model *m;
	struct strobe_expr_env env;
	struct strobe_expr_filter *filter;	/* NULL: every thread */
	struct strobe_periods *per;
	struct strobe_syscall_args *sysargs;
	struct ttype *types;
	int nr_types;
	bool have_waking;
	struct ana_map thr;			/* tid -> struct thr (the analyses'
						 * hash map) */
	struct cpu *cpus;
	int nr_cpus;
	uint64_t *cont_ns;			/* per container index: this interval */
	int64_t *cont_last;			/* last value written (milli-CPUs), -1 */
	uint8_t *cont_named;
	int nr_cont;
	const char *host;			/* for group names with several sources */
	int64_t id_base;			/* source * PID_SPAN */
	struct strobe_perfetto *x;
};

struct strobe_perfetto {
	struct strobe_perfetto_opts o;
	struct src *src;
	int nr_src;
	bool started, have_first, done, failed;
	uint64_t begin, end;		/* the window (absolute) */
	uint64_t origin;
	uint64_t last_ts;
	uint64_t next_tick, tick_start;
	uint64_t flow_id;
	char *out;
	size_t used;
	bool first_rec;
	char sysname[NR_SYSNAMES][40];	/* escaped names by number, "" unset */
	uint64_t ts_last;		/* put_ts's cache: the last time ... */
	char ts_text[32];		/* ... its text (ts_len bytes) */
	uint8_t ts_len;
	struct strobe_perfetto_stats st;
	struct strobe_error werr;
};

/* ---- output ---------------------------------------------------------- */

static int flush(struct strobe_perfetto *x, struct strobe_error *err)
{
	int ret;

	if (!x->used)
		return 0;
	ret = x->o.write(x->o.write_arg, x->out, x->used, err);
	x->st.bytes += x->used;
	x->used = 0;
	if (ret < 0) {
		x->failed = true;
		if (err && !err->code)
			strobe_err(err, ret, "perfetto: write failed: %s", strerror(-ret));
		if (err)
			x->werr = *err;
	}
	return ret;
}

/* Room for one record; a record's pointer (NULL when the write failed). */
static char *rec(struct strobe_perfetto *x)
{
	char *p;

	if (x->failed)
		return NULL;
	if (x->used + LINE_MAX_BYTES > OUT_CAP && flush(x, &x->werr) < 0)
		return NULL;
	p = x->out + x->used;
	if (!x->first_rec) {
		*p++ = ',';
		*p++ = '\n';
	}
	x->first_rec = false;
	x->st.records++;
	return p;
}

static void done(struct strobe_perfetto *x, char *p)
{
	x->used = (size_t)(p - x->out);
}

#define LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

static char *put_raw(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v in decimal, two digits a step (a division per digit is most of the
 * cost of a record otherwise). */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[24], *e = tmp + sizeof(tmp), *q = e;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digits2 + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* ns as microseconds with three decimals: 1234567 -> "1234.567". */
static char *put_us(char *p, uint64_t ns)
{
	unsigned f = (unsigned)(ns % 1000);

	p = put_u64(p, ns / 1000);
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	memcpy(p + 2, digits2 + 2 * (f % 100), 2);
	return p + 4;
}

/* A timestamp; the last one's text is kept, since the records of one
 * event (a call's end, the pieces around it) share it. */
static char *put_ts(struct strobe_perfetto *x, char *p, uint64_t ts)
{
	if (ts != x->ts_last || !x->ts_len) {
		x->ts_last = ts;
		x->ts_len = (uint8_t)(put_us(x->ts_text, ts >= x->origin ? ts - x->origin : 0) -
				      x->ts_text);
	}
	memcpy(p, x->ts_text, sizeof(x->ts_text));	/* fixed size: one move */
	return p + x->ts_len;
}

/* s[0..len) as a JSON string of at most max bytes escaped (cut at the
 * last whole escape that fits). */
static char *put_str(char *p, const char *s, size_t len, size_t max)
{
	size_t n = strobe_json_escape_buf(p, max, s, len);

	if (n < max)
		return p + n;
	/* cut: find a length that fits */
	while (len && strobe_json_escape_buf(p, max, s, len) >= max)
		len = len * 3 / 4;
	return p + strobe_json_escape_buf(p, max, s, len);
}

static char *put_cstr(char *p, const char *s, size_t max)
{
	return put_str(p, s, strlen(s), max);
}

/* ---- ids and names ------------------------------------------------------- */

static int64_t cont_group(const struct src *s, int cidx)
{
	return GROUP_CONT + (int64_t)s->index * 65536 + cidx;
}

static int64_t jid(const struct src *s, int id)
{
	return s->id_base + id;
}

/* Process and thread names: '{"ph":"M",...}' records. */
static void meta_name(struct strobe_perfetto *x, const char *what, int64_t pid, int64_t tid,
		      const char *name, const char *host)
{
	char *p = rec(x);

	if (!p)
		return;
	p = LIT(p, "{\"ph\":\"M\",\"name\":\"");
	p = put_raw(p, what);
	p = LIT(p, "\",\"pid\":");
	p = put_i64(p, pid);
	p = LIT(p, ",\"tid\":");
	p = put_i64(p, tid);
	p = LIT(p, ",\"args\":{\"name\":");
	if (host && x->nr_src > 1) {
		char buf[600];

		snprintf(buf, sizeof(buf), "%s (%s)", name, host);
		p = put_cstr(p, buf, 1024);
	} else {
		p = put_cstr(p, name, 1024);
	}
	p = LIT(p, "}}");
	done(x, p);
}

static void meta_sort(struct strobe_perfetto *x, int64_t pid, int idx)
{
	char *p = rec(x);

	if (!p)
		return;
	p = LIT(p, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
	p = put_i64(p, pid);
	p = LIT(p, ",\"tid\":");
	p = put_i64(p, pid);
	p = LIT(p, ",\"args\":{\"sort_index\":");
	p = put_i64(p, idx);
	p = LIT(p, "}}");
	done(x, p);
}

static bool grow(void **arr, int *nr, int want, size_t elem)
{
	int n = *nr ? *nr : 8;
	void *a;

	while (n <= want)
		n *= 2;
	a = realloc(*arr, (size_t)n * elem);
	if (!a)
		return false;
	memset((char *)a + (size_t)*nr * elem, 0, (size_t)(n - *nr) * elem);
	*arr = a;
	*nr = n;
	return true;
}

/* Container cidx's bookkeeping (counters, group name); false: ENOMEM. */
static bool cont_ensure(struct src *s, int cidx)
{
	int old = s->nr_cont, n = old, i;

	if (cidx < old)
		return true;
	if (!grow((void **)&s->cont_ns, &n, cidx, sizeof(*s->cont_ns)))
		return false;
	n = old;
	if (!grow((void **)&s->cont_named, &n, cidx, sizeof(*s->cont_named)))
		return false;
	n = old;
	if (!grow((void **)&s->cont_last, &n, cidx, sizeof(*s->cont_last)))
		return false;
	for (i = old; i < n; i++)
		s->cont_last[i] = -1;
	s->nr_cont = n;
	return true;
}

static void name_cpus_group(struct strobe_perfetto *x, struct src *s)
{
	/* cont_named[1], the host's slot, says the group is named */
	if (s->cont_named && s->nr_cont > 1 && s->cont_named[1])
		return;
	if (!cont_ensure(s, 1))
		return;
	s->cont_named[1] = 1;
	meta_name(x, "process_name", GROUP_CPUS + s->index, GROUP_CPUS + s->index, "CPUs",
		  s->host);
	meta_sort(x, GROUP_CPUS + s->index, -2);
}

static void name_container(struct strobe_perfetto *x, struct src *s, int cidx)
{
	const struct strobe_container *c;
	int64_t g = cont_group(s, cidx);

	if (!cont_ensure(s, cidx) || s->cont_named[cidx])
		return;
	s->cont_named[cidx] = 1;
	c = s->m ? strobe_model_container(s->m, cidx) : NULL;
	meta_name(x, "process_name", g, g, c ? c->name : "?", s->host);
	meta_sort(x, g, -1);
}

/* ---- threads ------------------------------------------------------------- */

static struct thr *thr_find(struct src *s, int tid)
{
	return ana_map_get(&s->thr, (uint64_t)(uint32_t)tid);
}

/* Remove an entry (the map shifts later ones back: pointers to threads
 * are not kept across it). */
static void thr_remove(struct src *s, struct thr *t)
{
	ana_map_del_val(&s->thr, t);
}

static void task_info(struct src *s, int tid, struct strobe_expr_task *t)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = t->ppid = t->vtid = t->vpid = -1;
	if (s->env.task && s->env.task(s->env.arg, tid, t) < 0) {
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->pid = t->ppid = t->vtid = t->vpid = -1;
	}
}

static void thr_set_identity(struct src *s, struct thr *t, const struct strobe_task *k,
			     const struct strobe_event *ev)
{
	int cidx = k && k->container ? k->container->index : STROBE_CONTAINER_UNKNOWN;
	int tgid = k && k->tgid > 0 ? k->tgid : t->tid;

	if (cidx >= 65536)		/* cont_group leaves 65536 a source */
		cidx = STROBE_CONTAINER_HOST;
	t->cidx = cidx;
	t->group = (int)(cidx > STROBE_CONTAINER_HOST ? cont_group(s, cidx) : jid(s, tgid));
	t->jtid = (int)jid(s, t->tid);
	{
		char *h = LIT(t->head, ",\"pid\":");

		h = put_i64(h, t->group);
		h = LIT(h, ",\"tid\":");
		h = put_i64(h, t->jtid);
		t->head_len = (uint8_t)(h - t->head);
	}
	if (k)
		memcpy(t->comm, k->comm, sizeof(t->comm));
	else
		snprintf(t->comm, sizeof(t->comm), "<...>");
	t->comm[15] = '\0';
	strobe_json_escape_buf(t->ecomm, sizeof(t->ecomm), t->comm, strnlen(t->comm, 16));
	t->named = 0;
	if (s->filter) {
		struct strobe_expr_task ti;

		task_info(s, t->tid, &ti);
		t->sel = strobe_expr_filter_match_task(s->filter, &s->env, ev, &ti);
	} else {
		t->sel = 1;
	}
}

static struct thr *thr_get(struct src *s, int tid, const struct strobe_event *ev)
{
	struct thr *t;
	bool created;

	if (!ana_map_fits(&s->thr, 1))	/* px_event keeps room: a put never moves */
		return NULL;
	t = ana_map_put(&s->thr, (uint64_t)(uint32_t)tid, &created);
	if (!t || !created)
		return t;
	t->tid = tid;
	t->cpu = -1;
	if (s->thr.n > s->x->st.peak_threads)
		s->x->st.peak_threads = s->thr.n;
	t->fresh = 1;
	return t;
}

/* ---- records of a thread ------------------------------------------------ */

static char *thr_head(struct strobe_perfetto *x, const struct thr *t, char *p, const char *ph)
{
	p = LIT(p, "{\"ph\":\"");
	*p++ = ph[0];
	*p++ = '"';
	memcpy(p, t->head, t->head_len);
	return p + t->head_len;
}

/*
 * A "running" piece of a thread: B where it starts (a switch in, the
 * edges of a system call), E where it ends.  B/E rather than one X at the
 * end: a piece that ends with its call then carries the very timestamp
 * text of the call's E, where an X's end would be ts + dur computed in
 * floating point by the viewer, which may land after the call's end
 * (speedscope then ends the call inside the piece and stacks everything
 * after it).  Pieces inside a call are named apart ("running (in call)")
 * so that no piece ends where one of the same name begins: speedscope,
 * at one timestamp, takes a B before an E of the same name.
 */
static void run_begin(struct strobe_perfetto *x, struct thr *t, uint64_t ts)
{
	char *p;

	if (!t->on_cpu || t->run_open || !t->sel || !(p = rec(x)))
		return;
	p = thr_head(x, t, p, "B");
	p = t->in_sys ? LIT(p, ",\"name\":\"running (in call)\",\"cat\":\"sched\",\"ts\":")
		      : LIT(p, ",\"name\":\"running\",\"cat\":\"sched\",\"ts\":");
	p = put_ts(x, p, ts);
	p = LIT(p, "}");
	done(x, p);
	t->run_open = t->in_sys ? 2 : 1;
}

static void run_end(struct strobe_perfetto *x, struct thr *t, uint64_t ts)
{
	char *p;

	uint8_t kind = t->run_open;

	if (!kind)
		return;
	t->run_open = 0;
	if (!(p = rec(x)))
		return;
	p = thr_head(x, t, p, "E");
	p = kind == 2 ? LIT(p, ",\"name\":\"running (in call)\",\"ts\":")
		      : LIT(p, ",\"name\":\"running\",\"ts\":");
	p = put_ts(x, p, ts);
	p = LIT(p, "}");
	done(x, p);
	x->st.slices++;
}

static const char *sys_name(struct strobe_perfetto *x, int nr)
{
	const char *n;
	char buf[32];

	if (nr < 0 || nr >= NR_SYSNAMES) {
		static char other[] = "\"syscall\"";
		return other;
	}
	if (!x->sysname[nr][0]) {
		n = strobe_syscall_name(nr);
		if (!n) {
			snprintf(buf, sizeof(buf), "syscall_%d", nr);
			n = buf;
		}
		strobe_json_escape_buf(x->sysname[nr], sizeof(x->sysname[nr]), n, strlen(n));
	}
	return x->sysname[nr];
}

static void sys_begin(struct strobe_perfetto *x, struct thr *t, uint64_t ts, const char *ename)
{
	char *p;

	if (!t->sel || !(p = rec(x)))
		return;
	p = thr_head(x, t, p, "B");
	p = LIT(p, ",\"name\":");
	p = put_raw(p, ename);
	p = LIT(p, ",\"cat\":\"syscall\",\"ts\":");
	p = put_ts(x, p, ts);
	p = LIT(p, "}");
	done(x, p);
	x->st.syscalls++;
}

static void sys_end(struct strobe_perfetto *x, struct thr *t, uint64_t ts, bool have_ret,
		    int64_t ret)
{
	char *p;

	if (!t->sel || !(p = rec(x)))
		return;
	/* E names its B: speedscope ignores an E whose name is not the
	 * open slice's */
	p = thr_head(x, t, p, "E");
	p = LIT(p, ",\"name\":");
	p = put_raw(p, t->ename ? t->ename : "\"syscall\"");
	p = LIT(p, ",\"ts\":");
	p = put_ts(x, p, ts);
	if (have_ret) {
		p = LIT(p, ",\"args\":{\"ret\":");
		p = put_i64(p, ret);
		p = LIT(p, "}}");
	} else {
		p = LIT(p, "}");
	}
	done(x, p);
}

/* The thread's process group and thread names, once (again after a
 * rename or a move). */
static void thr_name(struct strobe_perfetto *x, struct src *s, struct thr *t)
{
	if (t->named || !t->sel)
		return;
	t->named = 1;
	if (t->cidx > STROBE_CONTAINER_HOST) {
		name_container(x, s, t->cidx);
	} else {
		/* the host process: named by its leader's comm */
		const struct strobe_task *k = s->m ? strobe_model_task(s->m, t->tid) : NULL;
		int tgid = k && k->tgid > 0 ? k->tgid : t->tid;
		struct thr *l = tgid == t->tid ? t : thr_find(s, tgid);

		if (!l || !l->proc_named) {
			const struct strobe_task *lk = s->m ? strobe_model_task(s->m, tgid) : NULL;
			char comm[17];

			snprintf(comm, sizeof(comm), "%s", lk ? lk->comm : t->comm);
			meta_name(x, "process_name", t->group, t->group, comm, s->host);
			if (l)
				l->proc_named = 1;
		}
	}
	{
		char *p = rec(x);

		if (!p)
			return;
		p = LIT(p, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
		p = put_i64(p, t->group);
		p = LIT(p, ",\"tid\":");
		p = put_i64(p, t->jtid);
		p = LIT(p, ",\"args\":{\"name\":");
		p = put_raw(p, t->ecomm);
		p = LIT(p, "}}");
		done(x, p);
		x->st.threads++;
	}
}

/* Close the thread's open slices at ts (before a move, at the end). */
static void thr_close(struct strobe_perfetto *x, struct thr *t, uint64_t ts)
{
	run_end(x, t, ts);
	if (t->in_sys)
		sys_end(x, t, ts, false, 0);
}

/* strncmp(a, b, 15) == 0, the equal bytes (nearly always) tried first */
static bool same_comm(const char *a, const char *b)
{
	return !memcmp(a, b, 15) || !strncmp(a, b, 15);
}

/*
 * The thread of tid as the model has it now, its names written: created
 * on first sight; when the model's task changed identity (a new task on
 * the tid, a rename, a move into a container) its slices are closed
 * under the old identity and opened again under the new one.
 */
static struct thr *thread(struct strobe_perfetto *x, struct src *s, int tid, uint64_t ts,
			  const struct strobe_event *ev)
{
	const struct strobe_task *k = s->m ? strobe_model_task(s->m, tid) : NULL;
	struct thr *t = thr_get(s, tid, ev);
	int cidx;

	if (!t)
		return NULL;
	cidx = k && k->container ? k->container->index : STROBE_CONTAINER_UNKNOWN;
	if (cidx >= 65536)
		cidx = STROBE_CONTAINER_HOST;
	if (t->fresh) {
		t->fresh = 0;
		t->serial = k ? k->serial : 0;
		thr_set_identity(s, t, k, ev);
	} else if (k && k->serial != t->serial) {	/* a new task on the tid */
		thr_close(x, t, ts);
		t->serial = k->serial;
		thr_set_identity(s, t, k, ev);
		t->in_sys = 0;
		t->on_cpu = 0;
	} else if (k && (cidx != t->cidx || !same_comm(k->comm, t->comm))) {
		struct thr nw = *t;

		thr_set_identity(s, &nw, k, ev);
		if (nw.group != t->group || nw.sel != t->sel) {
			/* another track (a move into a container), or in or
			 * out of the selection: close there, open here */
			thr_close(x, t, ts);
			nw.run_open = 0;
			*t = nw;
			thr_name(x, s, t);
			if (t->in_sys)
				sys_begin(x, t, ts, t->ename);
			run_begin(x, t, ts);
		} else {
			/* a rename (exec): the same track, slices go on
			 * (closing them would tie a B and an E of one name at
			 * one time, which speedscope misreads); new names */
			*t = nw;
		}
	}
	thr_name(x, s, t);
	return t;
}

/* ---- CPUs ------------------------------------------------------------------ */

static struct cpu *cpu_of(struct src *s, int cpu)
{
	int old = s->nr_cpus, i;

	if (cpu < 0 || cpu >= 4096)	/* TID_CPU leaves 4096 a source */
		return NULL;
	if (cpu >= old) {
		if (!grow((void **)&s->cpus, &s->nr_cpus, cpu, sizeof(*s->cpus)))
			return NULL;
		for (i = old; i < s->nr_cpus; i++) {
			s->cpus[i].cur = -1;
			s->cpus[i].cidx = -1;
		}
	}
	return &s->cpus[cpu];
}

/* Charge CPU c's running task up to ts (counters). */
static void charge(struct src *s, struct cpu *c, uint64_t ts)
{
	if (c->cidx >= 0 && ts > c->charged && c->cidx < s->nr_cont)
		s->cont_ns[c->cidx] += ts - c->charged;
	if (ts > c->charged)
		c->charged = ts;
}

/*
 * The CPU track's slice of a run: B at the switch in, named by the
 * task's comm (args: its tid and process), E at the switch out with the
 * same name and args.  B/E, not X, for the reason run_begin says; the
 * same args on both ends make a zero-length run one slice in speedscope
 * (at one time it takes a B before an E of the same name and args) and
 * keep two same-named tasks that meet apart (their tids differ).
 */
static void cpu_open(struct strobe_perfetto *x, struct src *s, struct cpu *c, int n,
		     const struct thr *t, uint64_t ts)
{
	char *p;

	if (!c->named) {
		char name[32];

		c->named = true;
		name_cpus_group(x, s);
		snprintf(name, sizeof(name), "CPU %d", n);
		meta_name(x, "thread_name", GROUP_CPUS + s->index,
			  TID_CPU + (int64_t)s->index * 4096 + n, name, NULL);
	}
	if (!(p = rec(x)))
		return;
	p = LIT(p, "{\"ph\":\"B\",\"pid\":");
	p = put_i64(p, GROUP_CPUS + s->index);
	p = LIT(p, ",\"tid\":");
	p = put_i64(p, TID_CPU + (int64_t)s->index * 4096 + n);
	p = LIT(p, ",\"name\":");
	p = put_raw(p, t->ecomm);
	p = LIT(p, ",\"cat\":\"cpu\",\"ts\":");
	p = put_ts(x, p, ts);
	p = LIT(p, ",\"args\":{\"tid\":");
	p = put_i64(p, t->tid);
	p = LIT(p, ",\"pid\":");
	p = put_i64(p, t->group);
	p = LIT(p, "}}");
	done(x, p);
	memcpy(c->ename, t->ecomm, sizeof(c->ename));
	c->open_tid = t->tid;
	c->open_group = t->group;
	c->open = true;
}

static void cpu_close(struct strobe_perfetto *x, struct src *s, struct cpu *c, int n,
		      uint64_t ts)
{
	char *p;

	if (!c->open)
		return;
	c->open = false;
	if (!(p = rec(x)))
		return;
	p = LIT(p, "{\"ph\":\"E\",\"pid\":");
	p = put_i64(p, GROUP_CPUS + s->index);
	p = LIT(p, ",\"tid\":");
	p = put_i64(p, TID_CPU + (int64_t)s->index * 4096 + n);
	p = LIT(p, ",\"name\":");
	p = put_raw(p, c->ename);
	p = LIT(p, ",\"ts\":");
	p = put_ts(x, p, ts);
	p = LIT(p, ",\"args\":{\"tid\":");
	p = put_i64(p, c->open_tid);
	p = LIT(p, ",\"pid\":");
	p = put_i64(p, c->open_group);
	p = LIT(p, "}}");
	done(x, p);
	x->st.slices++;
}

/* tid runs on CPU n from ts (a switch in, or an event of it where
 * another was thought to run): the old one's slices end there. */
static void cpu_set(struct strobe_perfetto *x, struct src *s, struct cpu *c, int n, int tid,
		    uint64_t ts, const struct strobe_event *ev)
{
	struct thr *t;

	if (c->cur > 0) {
		cpu_close(x, s, c, n, ts);
		t = thr_find(s, c->cur);
		if (t && t->on_cpu && t->cpu == n) {
			run_end(x, t, ts);
			t->on_cpu = 0;
		}
	}
	charge(s, c, ts);
	c->cur = tid;
	c->since = ts;
	c->cidx = -1;
	if (tid <= 0)
		return;
	t = thread(x, s, tid, ts, ev);
	if (!t)
		return;
	if (t->on_cpu && t->cpu != n)	/* a switch out elsewhere was lost */
		run_end(x, t, ts);
	t->on_cpu = 1;
	t->cpu = n;
	run_begin(x, t, ts);
	if (t->sel)
		cpu_open(x, s, c, n, t, ts);
	if (t->sel && cont_ensure(s, t->cidx))
		c->cidx = t->cidx;
}

/* ---- counters ----------------------------------------------------------------- */

static void counter(struct strobe_perfetto *x, struct src *s, int cidx, uint64_t ts,
		    int64_t milli)
{
	int64_t g = cidx > STROBE_CONTAINER_HOST ? cont_group(s, cidx) : GROUP_CPUS + s->index;
	char *p;

	if (cidx > STROBE_CONTAINER_HOST)
		name_container(x, s, cidx);
	else
		name_cpus_group(x, s);
	if (!(p = rec(x)))
		return;
	p = LIT(p, "{\"ph\":\"C\",\"pid\":");
	p = put_i64(p, g);
	p = cidx > STROBE_CONTAINER_HOST ? LIT(p, ",\"name\":\"CPU usage\",\"ts\":")
					 : LIT(p, ",\"name\":\"host CPU usage\",\"ts\":");
	p = put_ts(x, p, ts);
	p = LIT(p, ",\"args\":{\"cpus\":");
	p = put_u64(p, (uint64_t)milli / 1000);
	*p++ = '.';
	*p++ = (char)('0' + milli / 100 % 10);
	*p++ = (char)('0' + milli / 10 % 10);
	*p++ = (char)('0' + milli % 10);
	p = LIT(p, "}}");
	done(x, p);
	x->st.counters++;
}

/* The interval [x->tick_start, end) is over: each container's CPU use
 * there, written when it changed.  Host and unknown share one counter. */
static bool close_interval(struct strobe_perfetto *x, uint64_t end)
{
	uint64_t len = end - x->tick_start;
	bool busy = false;
	int i, k;

	for (i = 0; i < x->nr_src; i++) {
		struct src *s = &x->src[i];

		for (k = 0; k < s->nr_cpus; k++) {
			charge(s, &s->cpus[k], end);
			busy |= s->cpus[k].cidx >= 0;
		}
		if (s->nr_cont > 1) {
			s->cont_ns[1] += s->cont_ns[0];
			s->cont_ns[0] = 0;
		}
		for (k = 1; k < s->nr_cont; k++) {
			int64_t milli = (int64_t)((s->cont_ns[k] * 1000 + len / 2) / len);

			if (milli != s->cont_last[k] && (s->cont_last[k] >= 0 || milli > 0)) {
				counter(x, s, k, x->tick_start, milli);
				s->cont_last[k] = milli;
			}
			busy |= milli > 0;
			s->cont_ns[k] = 0;
		}
	}
	x->tick_start = end;
	return busy;
}

static void ticks(struct strobe_perfetto *x, uint64_t ts)
{
	uint64_t step = x->o.counter_ns;

	while (ts >= x->next_tick) {
		bool busy = close_interval(x, x->next_tick);

		if (!busy && ts >= x->next_tick + step) {
			/* nothing ran: skip to ts's interval at once */
			x->next_tick += (ts - x->next_tick) / step * step;
			x->tick_start = x->next_tick;
		}
		x->next_tick += step;
	}
}

/* ---- events ----------------------------------------------------------------- */

static bool is(const char *sys, const char *name, const char *s2, const char *n2)
{
	return !strcmp(sys, s2) && !strcmp(name, n2);
}

static void resolve(struct src *s, struct ttype *t, const struct strobe_format *f)
{
	const char *sys = strobe_format_system(f), *name = strobe_format_name(f);

	t->kind = K_OTHER;
	if (!sys || !name)
		return;
	if (is(sys, name, "sched", "sched_switch")) {
		if (!strobe_field_resolve(f, "prev_pid", &t->a) &&
		    !strobe_field_resolve(f, "next_pid", &t->b))
			t->kind = K_SWITCH;
	} else if (is(sys, name, "sched", s->have_waking ? "sched_waking" : "sched_wakeup")) {
		if (!strobe_field_resolve(f, "pid", &t->a))
			t->kind = K_WAKE;
	} else if (is(sys, name, "sched", "sched_wakeup_new")) {
		if (!strobe_field_resolve(f, "pid", &t->a))
			t->kind = K_WAKE_NEW;
	} else if (is(sys, name, "sched", "sched_process_exit")) {
		if (!strobe_field_resolve(f, "pid", &t->a))
			t->kind = K_EXIT;
	} else if (is(sys, name, "raw_syscalls", "sys_enter")) {
		if (!strobe_field_resolve(f, "id", &t->a))
			t->kind = K_RAW_ENTER;
	} else if (is(sys, name, "raw_syscalls", "sys_exit")) {
		if (!strobe_field_resolve(f, "id", &t->a) && !strobe_field_resolve(f, "ret", &t->b))
			t->kind = K_RAW_EXIT;
	} else if (!strcmp(sys, "syscalls") && !strncmp(name, "sys_enter_", 10)) {
		size_t n = strlen(name + 10) * 6 + 3;

		t->name = malloc(n);
		if (t->name) {
			strobe_json_escape_buf(t->name, n, name + 10, strlen(name + 10));
			t->kind = K_SYS_ENTER;
			strobe_field_resolve(f, "__syscall_nr", &t->a);
		}
	} else if (!strcmp(sys, "syscalls") && !strncmp(name, "sys_exit_", 9)) {
		if (!strobe_field_resolve(f, "ret", &t->b))
			t->kind = K_SYS_EXIT;
	}
}

static void on_switch(struct strobe_perfetto *x, struct src *s, struct ttype *ty,
		      const struct strobe_event *ev, struct cpu *c)
{
	int prev = (int)strobe_field_int(ev, &ty->a), next = (int)strobe_field_int(ev, &ty->b);
	struct thr *t;

	if (prev > 0 && c->cur != prev && c->cur > 0)	/* a switch was lost: */
		cpu_set(x, s, c, ev->cpu, 0, ev->ts, ev);	/* end who ran */
	t = prev > 0 ? thr_find(s, prev) : NULL;
	cpu_set(x, s, c, ev->cpu, next, ev->ts, ev);
	if (t && t->on_cpu && t->cpu == ev->cpu && t->tid != next) {
		run_end(x, t, ev->ts);
		t->on_cpu = 0;
	}
	if (t && t->exiting) {
		thr_close(x, t, ev->ts);
		thr_remove(s, t);
	}
}

static void on_wake(struct strobe_perfetto *x, struct src *s, struct ttype *ty,
		    const struct strobe_event *ev)
{
	int tid = (int)strobe_field_int(ev, &ty->a);
	struct thr *w, *t;
	char *p;

	if (ev->pid <= 0 || tid <= 0 || tid == ev->pid)
		return;
	w = thread(x, s, ev->pid, ev->ts, ev);
	t = thread(x, s, tid, ev->ts, ev);
	if (!w || !t || !w->sel || !t->sel)
		return;
	x->flow_id++;
	if (!(p = rec(x)))
		return;
	p = thr_head(x, w, p, "s");
	p = LIT(p, ",\"name\":\"wakeup\",\"cat\":\"sched\",\"id\":");
	p = put_u64(p, x->flow_id);
	p = LIT(p, ",\"ts\":");
	p = put_ts(x, p, ev->ts);
	p = LIT(p, "}");
	done(x, p);
	if (!(p = rec(x)))
		return;
	p = thr_head(x, t, p, "f");
	p = LIT(p, ",\"name\":\"wakeup\",\"cat\":\"sched\",\"id\":");
	p = put_u64(p, x->flow_id);
	p = LIT(p, ",\"ts\":");
	p = put_ts(x, p, ev->ts);
	p = LIT(p, "}");
	done(x, p);
	x->st.flows++;
}

static void on_enter(struct strobe_perfetto *x, struct thr *t, uint64_t ts, int nr,
		     const char *ename)
{
	run_end(x, t, ts);
	if (t->in_sys)			/* its exit was lost */
		sys_end(x, t, ts, false, 0);
	t->ename = ename;
	sys_begin(x, t, ts, ename);
	t->in_sys = 1;
	t->sys_nr = nr;
	run_begin(x, t, ts);
}

static void on_exit_call(struct strobe_perfetto *x, struct thr *t, uint64_t ts, int64_t ret)
{
	if (!t->in_sys)
		return;		/* entered before the window or the trace */
	run_end(x, t, ts);
	sys_end(x, t, ts, true, ret);
	t->in_sys = 0;
	run_begin(x, t, ts);
}

/* ---- periods ------------------------------------------------------------------ */

static char *put_value(char *p, const struct strobe_expr_value *v)
{
	char buf[64];

	switch (v->type) {
	case STROBE_EXPR_VAL_INT:
		return v->is_unsigned ? put_u64(p, v->u) : put_i64(p, v->i);
	case STROBE_EXPR_VAL_DOUBLE:
		snprintf(buf, sizeof(buf), "%.17g", v->d);
		if (!strpbrk(buf, "0123456789") || strpbrk(buf, "ni"))	/* nan, inf */
			return LIT(p, "null");
		return put_raw(p, buf);
	case STROBE_EXPR_VAL_STR:
		return put_str(p, v->s, v->len, 1024);
	default:
		return LIT(p, "null");
	}
}

static const char *status_name(const struct strobe_period *p)
{
	switch (p->status) {
	case STROBE_PERIOD_CLOSED:
		return p->lost ? "lost" : "closed";
	case STROBE_PERIOD_OPEN:
		return "open";
	case STROBE_PERIOD_CUT:
		return "cut";
	case STROBE_PERIOD_OWNER_GONE:
		return "pid-reused";
	}
	return "?";
}

static void on_period(void *arg, const struct strobe_period *pd)
{
	struct src *s = arg;
	struct strobe_perfetto *x = s->x;
	struct thr *t = thr_find(s, pd->owner.tid);
	uint64_t id = ((uint64_t)s->index << 48) | pd->id;
	int64_t group, tid;
	char *p;
	int i, ph;

	if (s->filter && (!t || !t->sel))
		return;
	if (t && !t->fresh) {
		group = t->group;
		tid = t->jtid;
	} else {
		group = jid(s, pd->owner.pid > 0 ? pd->owner.pid : pd->owner.tid);
		tid = jid(s, pd->owner.tid);
	}
	for (ph = 0; ph < 2; ph++) {
		if (!(p = rec(x)))
			return;
		p = ph ? LIT(p, "{\"ph\":\"e\",\"pid\":") : LIT(p, "{\"ph\":\"b\",\"pid\":");
		p = put_i64(p, group);
		p = LIT(p, ",\"tid\":");
		p = put_i64(p, tid);
		p = LIT(p, ",\"name\":");
		p = put_cstr(p, pd->path && pd->path[0] ? pd->path : "period", 512);
		p = LIT(p, ",\"cat\":\"period\",\"id\":\"0x");
		{
			char hex[20];
			int n = snprintf(hex, sizeof(hex), "%" PRIx64, id);

			memcpy(p, hex, (size_t)n);
			p += n;
		}
		p = LIT(p, "\",\"ts\":");
		p = put_ts(x, p, ph ? (pd->end_ts > pd->begin_ts ? pd->end_ts : pd->begin_ts)
				    : pd->begin_ts);
		if (!ph) {
			p = LIT(p, ",\"args\":{\"status\":\"");
			p = put_raw(p, status_name(pd));
			p = LIT(p, "\",\"owner_tid\":");
			p = put_i64(p, pd->owner.tid);
			for (i = 0; i < pd->nr_begin_captures + pd->nr_end_captures; i++) {
				const struct strobe_period_value *v = i < pd->nr_begin_captures ?
					&pd->begin_captures[i] :
					&pd->end_captures[i - pd->nr_begin_captures];

				if ((size_t)(p - (x->out + x->used)) > LINE_MAX_BYTES - 2200)
					break;	/* the record's room is spent */
				*p++ = ',';
				p = put_cstr(p, v->key, 128);
				*p++ = ':';
				p = put_value(p, &v->v);
			}
			p = LIT(p, "}");
		}
		p = LIT(p, "}");
		done(x, p);
	}
	x->st.periods++;
}

/* ---- the consumer ---------------------------------------------------------------- */

static void warn_drop(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static int make_filter(struct strobe_perfetto *x, struct src *s, struct strobe_error *err)
{
	const struct strobe_perfetto_opts *o = &x->o;
	struct strobe_expr_filter *f;
	int i, ret = 0;

	if (!o->tids && !o->pids && !o->comms && !o->containers && !o->nr_filters)
		return 0;
	if (strobe_expr_filter_new(&f) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	strobe_expr_filter_set_formats(f, s->fmts);
	if (o->tids)
		ret = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_TID, o->tids, err);
	if (!ret && o->pids)
		ret = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_PID, o->pids, err);
	if (!ret && o->comms)
		ret = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_COMM, o->comms, err);
	if (!ret && o->containers)
		ret = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_CONTAINER, o->containers,
						    err);
	for (i = 0; !ret && i < o->nr_filters; i++)
		ret = strobe_expr_filter_add(f, o->filters[i], err);
	if (!ret)
		ret = strobe_expr_filter_compile(f, err);
	if (!ret)
		ret = strobe_expr_filter_check(f, s->fmts, 0, warn_drop, NULL, err);
	if (ret < 0) {
		strobe_expr_filter_free(f);
		return ret;
	}
	s->filter = f;
	return 0;
}

static int make_periods(struct strobe_perfetto *x, struct src *s, struct strobe_error *err)
{
	const struct strobe_perfetto_opts *o = &x->o;

	return strobe_sink_periods_make(o->periods, o->nr_periods, o->period_captures,
					o->nr_period_captures, on_period, s, s->fmts, &s->env,
					&s->per, &s->sysargs, err);
}

static int px_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		    struct strobe_error *err)
{
	struct strobe_perfetto *x = arg;
	int i, ret;

	if (x->started)
		return strobe_err(err, -EINVAL, "perfetto: an export runs once");
	x->started = true;
	if (nr > 255)	/* ids: 255 sources fit below the container groups */
		return strobe_err(err, -EINVAL, "perfetto: at most 255 sources, not %d", nr);
	x->src = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*x->src));
	if (!x->src)
		return strobe_err(err, -ENOMEM, "out of memory");
	x->nr_src = nr;
	for (i = 0; i < nr; i++) {
		struct src *s = &x->src[i];

		s->x = x;
		s->index = i;
		ana_map_init(&s->thr, sizeof(struct thr));
		s->fmts = src[i].formats;
		s->m = src[i].model;
		s->host = src[i].host;
		s->id_base = (int64_t)i * PID_SPAN;
		if (s->m)
			strobe_expr_env_model(&s->env, s->m);
		s->have_waking = s->fmts && strobe_formats_find(s->fmts, "sched", "sched_waking");
		s->nr_types = s->fmts ? strobe_formats_max_id(s->fmts) + 1 : 0;
		if (s->nr_types > 0) {
			s->types = calloc((size_t)s->nr_types, sizeof(*s->types));
			if (!s->types)
				return strobe_err(err, -ENOMEM, "out of memory");
		}
		if ((ret = make_filter(x, s, err)) < 0 || (ret = make_periods(x, s, err)) < 0)
			return ret;
		if (!cont_ensure(s, 1))
			return strobe_err(err, -ENOMEM, "out of memory");
	}
	x->first_rec = true;
	memcpy(x->out, "{\"traceEvents\":[\n", 17);
	x->used = 17;
	return 0;
}

static void first_event(struct strobe_perfetto *x, uint64_t ts)
{
	x->have_first = true;
	if (x->o.begin_relative)
		x->begin = ts + x->o.begin;
	if (x->o.end_relative)
		x->end = ts + x->o.end;
	x->origin = ts < ORIGIN_LIMIT ? 0 : ts - ts % 1000000000ULL;
}

static int px_event(const struct strobe_event *ev, int source, void *arg,
		    struct strobe_error *err)
{
	struct strobe_perfetto *x = arg;
	struct src *s = &x->src[source];
	struct ttype *ty = NULL;
	struct cpu *c;
	struct thr *t;

	x->st.events++;
	if (__builtin_expect(!x->have_first, 0))
		first_event(x, ev->ts);
	if (ev->ts < x->begin)
		return 0;
	if (x->end && ev->ts > x->end) {
		x->done = true;
		return STROBE_CONSUMER_DONE;
	}
	if (__builtin_expect(!x->next_tick, 0)) {
		x->tick_start = ev->ts;
		x->next_tick = ev->ts + x->o.counter_ns;
	}
	if (ev->ts > x->last_ts)
		x->last_ts = ev->ts;
	if (ev->ts >= x->next_tick)
		ticks(x, ev->ts);
	/* room for the threads this event may add: pointers to threads stay
	 * valid while it is handled */
	if (!ana_map_fits(&s->thr, 4) && ana_map_grow(&s->thr) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	c = cpu_of(s, ev->cpu);
	if (ev->format && ev->type >= 0 && ev->type < s->nr_types) {
		ty = &s->types[ev->type];
		if (ty->kind == K_UNRESOLVED) {
			resolve(s, ty, ev->format);
			ty->period = -1;
		}
	}
	if (c && ev->pid > 0 && c->cur != ev->pid && !(ty && ty->kind == K_SWITCH))
		cpu_set(x, s, c, ev->cpu, ev->pid, ev->ts, ev);
	if (ty) {
		switch (ty->kind) {
		case K_SWITCH:
			if (c)
				on_switch(x, s, ty, ev, c);
			break;
		case K_WAKE:
		case K_WAKE_NEW:
			on_wake(x, s, ty, ev);
			break;
		case K_EXIT:
			if (ev->pid > 0 && (t = thread(x, s, ev->pid, ev->ts, ev))) {
				if (t->in_sys) {	/* exit ends no call */
					run_end(x, t, ev->ts);
					sys_end(x, t, ev->ts, false, 0);
					t->in_sys = 0;
					run_begin(x, t, ev->ts);
				}
				t->exiting = 1;
			}
			break;
		case K_RAW_ENTER:
		case K_SYS_ENTER:
			if (ev->pid > 0 && (t = thread(x, s, ev->pid, ev->ts, ev))) {
				int nr = (int)strobe_field_int(ev, &ty->a);

				on_enter(x, t, ev->ts, nr, ty->kind == K_SYS_ENTER ? ty->name
											: sys_name(x, nr));
			}
			break;
		case K_RAW_EXIT:
		case K_SYS_EXIT:
			if (ev->pid > 0 && (t = thread(x, s, ev->pid, ev->ts, ev)))
				on_exit_call(x, t, ev->ts, strobe_field_int(ev, &ty->b));
			break;
		default:
			break;
		}
		if (s->per) {
			if (ty->period < 0)
				ty->period = strobe_periods_may_match(s->per, ev->format);
			if (ty->period)
				strobe_periods_feed(s->per, ev);
		}
	} else if (s->per && strobe_periods_may_match(s->per, ev->format)) {
		strobe_periods_feed(s->per, ev);
	}
	if (ev->missed && s->per)
		strobe_periods_note_lost(s->per);
	if (x->failed) {
		if (err)
			*err = x->werr;
		return x->werr.code ? x->werr.code : -EIO;
	}
	return 0;
}

static int by_tid(const void *a, const void *b)
{
	int x = (*(struct thr *const *)a)->tid, y = (*(struct thr *const *)b)->tid;

	return (x > y) - (x < y);
}

/* End every open slice of source s at end, thread by thread in tid
 * order (not the hash map's: the document does not depend on its
 * layout); in the map's order when there is no memory to sort. */
static void close_threads(struct strobe_perfetto *x, struct src *s, uint64_t end)
{
	struct thr **v = malloc((s->thr.n + 1) * sizeof(*v)), *t;
	size_t k = 0, n = 0;

	while ((t = ana_map_next(&s->thr, &k, NULL))) {
		if (t->fresh)
			continue;
		if (v)
			v[n++] = t;
		else
			thr_close(x, t, end);
	}
	if (!v)
		return;
	qsort(v, n, sizeof(*v), by_tid);
	for (k = 0; k < n; k++)
		thr_close(x, v[k], end);
	free(v);
}

static int px_finish(void *arg, struct strobe_error *err)
{
	struct strobe_perfetto *x = arg;
	uint64_t end = x->last_ts;
	char *p;
	int i, n;

	if (x->end && x->done && x->end > end)
		end = x->end;
	for (i = 0; i < x->nr_src; i++) {
		struct src *s = &x->src[i];

		if (s->per)
			strobe_periods_finish(s->per);
		for (n = 0; n < s->nr_cpus; n++)
			cpu_close(x, s, &s->cpus[n], n, end);
		close_threads(x, s, end);
	}
	if (x->have_first && end > x->tick_start)
		close_interval(x, end);
	if (x->failed) {
		if (err)
			*err = x->werr;
		return x->werr.code ? x->werr.code : -EIO;
	}
	if (x->used + LINE_MAX_BYTES > OUT_CAP && flush(x, err) < 0)
		return -EIO;
	p = x->out + x->used;
	p = LIT(p, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"strobe ");
	p = LIT(p, STROBE_VERSION);
	p = LIT(p, "\",\"ts_origin_ns\":");
	p = put_u64(p, x->origin);
	p = LIT(p, ",\"hosts\":[");
	for (i = 0; i < x->nr_src; i++) {
		if (i)
			*p++ = ',';
		p = put_cstr(p, x->src[i].host ? x->src[i].host : "", 300);
		if ((size_t)(p - x->out) + LINE_MAX_BYTES > OUT_CAP) {
			x->used = (size_t)(p - x->out);
			if (flush(x, err) < 0)
				return err && err->code ? err->code : -EIO;
			p = x->out;
		}
	}
	p = LIT(p, "]}}\n");
	done(x, p);
	return flush(x, err);
}

/* ---- the public face ---------------------------------------------------------------- */

int strobe_perfetto_new(const struct strobe_perfetto_opts *opts, struct strobe_perfetto **out,
			struct strobe_error *err)
{
	struct strobe_perfetto *x;

	*out = NULL;
	if (!opts || !opts->write)
		return strobe_err(err, -EINVAL, "perfetto: no write function");
	x = calloc(1, sizeof(*x));
	if (!x || !(x->out = malloc(OUT_CAP))) {
		free(x);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	memcpy(&x->o, opts, opts->size && opts->size < sizeof(x->o) ? opts->size : sizeof(x->o));
	x->o.size = sizeof(x->o);
	if (!x->o.counter_ns)
		x->o.counter_ns = 10000000;
	x->begin = x->o.begin_relative ? 0 : x->o.begin;
	x->end = x->o.end_relative ? 0 : x->o.end;
	*out = x;
	return 0;
}

void strobe_perfetto_free(struct strobe_perfetto *x)
{
	int i, k;

	if (!x)
		return;
	for (i = 0; i < x->nr_src; i++) {
		struct src *s = &x->src[i];

		strobe_expr_filter_free(s->filter);
		strobe_periods_free(s->per);
		strobe_syscall_args_free(s->sysargs);
		for (k = 0; k < s->nr_types; k++)
			free(s->types[k].name);
		free(s->types);
		ana_map_free(&s->thr);
		free(s->cpus);
		free(s->cont_ns);
		free(s->cont_last);
		free(s->cont_named);
	}
	free(x->src);
	free(x->out);
	free(x);
}

void strobe_perfetto_consumer(struct strobe_perfetto *x, struct strobe_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->name = "the Perfetto export";
	c->flags = STROBE_CONSUMER_MODEL;
	c->start = px_start;
	c->event = px_event;
	c->finish = px_finish;
	c->arg = x;
}

void strobe_perfetto_stats(const struct strobe_perfetto *x, struct strobe_perfetto_stats *st)
{
	*st = x->st;
	st->bytes += x->used;
}
