/*
 * test_perfetto.c - the Perfetto / Chrome trace-event exporter
 * (lib/sinks/perfetto.c) on trace files made here: a known little
 * schedule (a web container's nginx thread blocking in read, woken by a
 * host bash, a db container's postgres in a call that never returns)
 * goes through a pipeline into the exporter, whose JSON is checked
 *
 *   - against the trace-event format, by a schema check written here: the
 *     whole document parses as JSON (a small strict parser), every record
 *     has the keys its phase needs (ph, pid, tid, ts; dur for X; name; id
 *     for flows and async slices; args.name for names), B and E balance
 *     per thread, never end what did not begin and name the B they end
 *     (speedscope ignores an E that does not), slice starts never go
 *     backwards per track, X slices nest, flows and async slices pair;
 *   - for exact facts: container names as process names, timestamps as
 *     microseconds with the nanoseconds kept, the running pieces inside
 *     the read call (named apart from those outside), the CPU tracks, the wake-up arrow, the counters' values, the period,
 *     the window, the container filter, the origin of far timestamps;
 *   - for errors: a failing write fails the run with its message, a bad
 *     filter names its column.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <strobe/strobe.h>
#include <strobe/perfetto.h>

#include "test.h"
#include "tracefile_fixture.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

enum { ID_SWITCH = 372, ID_WAKING = 702 };

static const char fmt_switch[] = "name: sched_switch\nID: 372\nformat:\n" FMT_COMMON
	FMT_SWITCH_FIELDS "print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";
static const char fmt_waking[] = "name: sched_waking\nID: 702\nformat:\n" FMT_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"pid=%d\", REC->pid\n";

static const struct strobe_tf_format formats[] = {
	{ "raw_syscalls", fx_fmt_sys_enter, sizeof(fx_fmt_sys_enter) - 1 },
	{ "raw_syscalls", fx_fmt_sys_exit, sizeof(fx_fmt_sys_exit) - 1 },
	{ "sched", fmt_switch, sizeof(fmt_switch) - 1 },
	{ "sched", fmt_waking, sizeof(fmt_waking) - 1 },
};

#define ID64A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID64B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define TASK(tid, tgid, ppid, comm, ci) \
	"T\t" #tid "\t" #tgid "\t" #ppid "\t" comm "\t" #ci "\t\t\t0\t0\t0\t0\t\n"

static const char table[] =
	"strobe-model 1\n"
	"C\t2\tpodman\t" ID64A "\tweb\t\n"
	"C\t3\tpodman\t" ID64B "\tdb \"main\"\t\n"
	TASK(100, 100, 1, "nginx", 2)
	TASK(200, 200, 1, "bash", 1)
	TASK(300, 300, 1, "postgres", 3);

/* ---- the schedule ------------------------------------------------------ */

#define US 1000ULL
#define MS 1000000ULL

struct evs {
	struct fx_event e[64];
	int n;
};

static const char *comm_of(int tid)
{
	return tid == 100 ? "nginx" : tid == 200 ? "bash" : tid == 300 ? "postgres" : "swapper/0";
}

static void sw(struct evs *v, uint64_t ts, int cpu, int prev, int next)
{
	struct fx_event *e = fx_payload(&v->e[v->n++], ts, cpu, ID_SWITCH, prev, 64);

	strcpy((char *)e->data + 8, comm_of(prev));
	fx_put32(e->data + 24, (uint32_t)prev);
	fx_put64(e->data + 32, prev ? 1 : 0);
	strcpy((char *)e->data + 40, comm_of(next));
	fx_put32(e->data + 56, (uint32_t)next);
}

static void enter(struct evs *v, uint64_t ts, int cpu, int pid, long nr)
{
	struct fx_event *e = fx_payload(&v->e[v->n++], ts, cpu, FX_ID_SYS_ENTER, pid, 64);

	fx_put64(e->data + 8, (uint64_t)nr);
}

static void leave(struct evs *v, uint64_t ts, int cpu, int pid, long nr, long ret)
{
	struct fx_event *e = fx_payload(&v->e[v->n++], ts, cpu, FX_ID_SYS_EXIT, pid, 24);

	fx_put64(e->data + 8, (uint64_t)nr);
	fx_put64(e->data + 16, (uint64_t)ret);
}

static void waking(struct evs *v, uint64_t ts, int cpu, int waker, int wakee)
{
	struct fx_event *e = fx_payload(&v->e[v->n++], ts, cpu, ID_WAKING, waker, 36);

	strcpy((char *)e->data + 8, comm_of(wakee));
	fx_put32(e->data + 24, (uint32_t)wakee);
}

/*
 * CPU 0: nginx (web, tid 100) runs from T0, enters read at +1 us, blocks at
 * +2 us; bash (host, 200) runs, wakes nginx at +2.5 us, switches to it at
 * +3 us; read returns 42 at +4 us; getpid +5..+5.5 us; nginx runs until
 * +6 ms.  CPU 1: postgres (db, 300) enters futex at +12 ms (never
 * returns); it wakes nginx at +25 ms, the last event.
 */
static void schedule(struct evs *v, uint64_t t0)
{
	v->n = 0;
	sw(v, t0, 0, 0, 100);
	enter(v, t0 + 1 * US, 0, 100, 0);
	sw(v, t0 + 2 * US, 0, 100, 200);
	waking(v, t0 + 2 * US + 500, 0, 200, 100);
	sw(v, t0 + 3 * US, 0, 200, 100);
	leave(v, t0 + 4 * US, 0, 100, 0, 42);
	enter(v, t0 + 5 * US, 0, 100, 39);
	leave(v, t0 + 5 * US + 500, 0, 100, 39, 100);
	sw(v, t0 + 6 * MS, 0, 100, 0);
	enter(v, t0 + 12 * MS, 1, 300, 202);
	waking(v, t0 + 25 * MS, 1, 300, 100);
}

/* The schedule at t0 as a trace file with the model table and the
 * strobe info `info` (may be NULL); its path (malloc'd), NULL on failure. */
static char *write_file_info(uint64_t t0, const char *info)
{
	struct evs v;
	struct strobe_tf_meta m;
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	char *path = strdup("/tmp/strobe-px-XXXXXX.dat");
	int fd;

	schedule(&v, t0);
	if (!path || (fd = mkstemps(path, 4)) < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	fx_meta(&m);
	m.formats = formats;
	m.nr_formats = sizeof(formats) / sizeof(formats[0]);
	m.strobe_info = info;
	if (strobe_tf_writer_open(path, &m, 2, &w, &err) || fx_add_cpus(w, v.e, v.n, 2, &err) ||
	    strobe_tf_writer_add_model(w, table, sizeof(table) - 1, &err)) {
		fprintf(stderr, "  fixture: %s\n", err.msg);
		strobe_tf_writer_close(w, NULL, NULL, NULL);
		unlink(path);
		free(path);
		return NULL;
	}
	if (strobe_tf_writer_close(w, NULL, info, &err)) {
		fprintf(stderr, "  fixture: %s\n", err.msg);
		free(path);
		return NULL;
	}
	return path;
}

static char *write_file(uint64_t t0)
{
	return write_file_info(t0, NULL);
}

/* ---- the export into memory ---------------------------------------------- */

struct mem {
	char *p;
	size_t len, cap;
	int fail;		/* write returns this when non-zero */
	int writes;
};

static int mem_write(void *arg, const void *buf, size_t len, struct strobe_error *err)
{
	struct mem *m = arg;

	m->writes++;
	if (m->fail) {
		snprintf(err->msg, sizeof(err->msg), "test: disk full");
		err->code = m->fail;
		return m->fail;
	}
	if (m->len + len + 1 > m->cap) {
		m->cap = (m->len + len + 1) * 2;
		m->p = realloc(m->p, m->cap);
		if (!m->p)
			return -ENOMEM;
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	m->p[m->len] = '\0';
	return 0;
}

/* Export path with opts (write set here) into out; the run's return. */
static int export(const char *path, struct strobe_perfetto_opts *o, struct mem *out,
		  struct strobe_perfetto_stats *st, struct strobe_error *err)
{
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_perfetto *x = NULL;
	struct strobe_consumer c;
	int ret;

	o->size = sizeof(*o);
	o->write = mem_write;
	o->write_arg = out;
	ret = strobe_tracefile_open(path, &tf, err);
	if (!ret)
		ret = strobe_pipeline_new(NULL, &p, err);
	if (!ret)
		ret = strobe_pipeline_add_file(p, tf, NULL, err);
	if (ret >= 0)
		ret = strobe_perfetto_new(o, &x, err);
	if (!ret) {
		strobe_perfetto_consumer(x, &c);
		ret = strobe_pipeline_add_consumer(p, &c, err);
	}
	if (!ret)
		ret = strobe_pipeline_run(p, err);
	if (x && st)
		strobe_perfetto_stats(x, st);
	strobe_perfetto_free(x);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	return ret;
}

/* ---- a strict little JSON parser --------------------------------------------- */

#define MAX_KEYS 32

/* One record: its keys (args' as "args.KEY") and their values' text
 * (strings unescaped when plain, numbers as written). */
struct rec {
	int n;
	char key[MAX_KEYS][48];
	char val[MAX_KEYS][256];
	bool is_str[MAX_KEYS];
};

struct js {
	const char *p, *end;
	int depth;
};

static void ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

/* A string: into out (size n, escapes kept as two bytes but \" and \\ as
 * one); false when malformed. */
static bool jstr(struct js *j, char *out, size_t n)
{
	size_t k = 0;

	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end && *j->p != '"'; j->p++) {
		char c = *j->p;

		if ((unsigned char)c < 0x20)
			return false;
		if (c == '\\') {
			if (++j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p))
				return false;
			c = *j->p;
			if (c == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (j->p + i >= j->end || !strchr("0123456789abcdefABCDEF",
									   j->p[i]) || !j->p[i])
						return false;
				j->p += 4;
				c = '?';
			}
		}
		if (out && k + 1 < n)
			out[k++] = c;
	}
	if (j->p >= j->end)
		return false;
	j->p++;
	if (out)
		out[k] = '\0';
	return true;
}

static bool jnum(struct js *j, char *out, size_t n)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return false;
	if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9')
		return false;	/* no leading zeros */
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return false;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (out) {
		size_t len = (size_t)(j->p - s) < n - 1 ? (size_t)(j->p - s) : n - 1;

		memcpy(out, s, len);
		out[len] = '\0';
	}
	return true;
}

static bool jvalue(struct js *j, struct rec *r, const char *prefix);

/* An object; its members into r (NULL: parsed only) as prefix.KEY. */
static bool jobject(struct js *j, struct rec *r, const char *prefix)
{
	char key[48];

	if (++j->depth > 16 || *j->p != '{')
		return false;
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		char full[48];

		ws(j);
		if (!jstr(j, key, sizeof(key)))
			return false;
		ws(j);
		if (j->p >= j->end || *j->p++ != ':')
			return false;
		ws(j);
		snprintf(full, sizeof(full), "%s%s", prefix, key);
		if (r && j->p < j->end && *j->p != '{' && *j->p != '[' && r->n < MAX_KEYS) {
			snprintf(r->key[r->n], sizeof(r->key[0]), "%s", full);
			r->is_str[r->n] = *j->p == '"';
			if (*j->p == '"' ? !jstr(j, r->val[r->n], sizeof(r->val[0]))
					 : !jvalue(j, r, ""))
				return false;
			if (!r->is_str[r->n] && r->val[r->n][0] == '\0')
				return false;
			r->n++;
		} else if (j->p < j->end && *j->p == '{' && r && !prefix[0]) {
			char sub[64];

			snprintf(sub, sizeof(sub), "%s.", key);
			if (!jobject(j, r, sub))
				return false;
		} else if (!jvalue(j, NULL, "")) {
			return false;
		}
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			j->depth--;
			return true;
		}
		return false;
	}
}

/* Any value; a scalar's text into r->val[r->n] when r is given. */
static bool jvalue(struct js *j, struct rec *r, const char *prefix)
{
	char *out = r ? r->val[r->n] : NULL;
	size_t n = r ? sizeof(r->val[0]) : 0;

	ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return jobject(j, NULL, prefix);
	case '[':
		if (++j->depth > 16)
			return false;
		j->p++;
		ws(j);
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			j->depth--;
			return true;
		}
		for (;;) {
			if (!jvalue(j, NULL, ""))
				return false;
			ws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == ']') {
				j->p++;
				j->depth--;
				return true;
			}
			return false;
		}
	case '"':
		return jstr(j, out, n);
	case 't':
	case 'f':
	case 'n': {
		const char *w = *j->p == 't' ? "true" : *j->p == 'f' ? "false" : "null";

		if ((size_t)(j->end - j->p) < strlen(w) || memcmp(j->p, w, strlen(w)))
			return false;
		j->p += strlen(w);
		if (out)
			snprintf(out, n, "%s", w);
		return true;
	}
	default:
		return jnum(j, out, n);
	}
}

static const char *get(const struct rec *r, const char *key)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->key[i], key))
			return r->val[i];
	return NULL;
}

/* "1234.567" microseconds -> ns, exactly (-1: not that form). */
static int64_t us_ns(const char *s)
{
	const char *dot = s ? strchr(s, '.') : NULL;
	char *end;
	long long whole, frac;

	if (!dot || strlen(dot) != 4)
		return -1;
	whole = strtoll(s, &end, 10);
	if (end != dot)
		return -1;
	frac = strtoll(dot + 1, &end, 10);
	if (*end)
		return -1;
	return whole * 1000 + frac;
}

/* ---- the schema check ----------------------------------------------------------- */

#define MAX_RECS 4096
#define MAX_TRACKS 64

struct doc {
	struct rec r[MAX_RECS];
	int n;
};

struct track {
	long long pid, tid;
	int open;		/* B not yet ended */
	char names[8][48];	/* ... their names, innermost last */
	int64_t last;		/* latest slice start */
	int64_t xend[16];	/* ends of the X slices enclosing the latest */
	int nx;
};

static struct track *track(struct track *t, int *nt, long long pid, long long tid)
{
	int i;

	for (i = 0; i < *nt; i++)
		if (t[i].pid == pid && t[i].tid == tid)
			return &t[i];
	if (*nt == MAX_TRACKS)
		return NULL;
	memset(&t[*nt], 0, sizeof(t[0]));
	t[*nt].pid = pid;
	t[*nt].tid = tid;
	t[*nt].last = -1;
	return &t[(*nt)++];
}

/*
 * Parse and check the whole document; the records into d.  Returns the
 * number of problems found (each printed).
 */
static int check_doc(const char *text, size_t len, struct doc *d)
{
	static struct track tr[MAX_TRACKS];
	struct js j = { text, text + len, 0 };
	const char *head = "{\"traceEvents\":[\n", *p, *q;
	int probs = 0, nt = 0, i, k, flows = 0, asyncs = 0;
	char flow_id[MAX_RECS][24], async_id[MAX_RECS][40];
	int nf = 0, na = 0;

#define PROB(...) do { probs++; fprintf(stderr, "  schema: " __VA_ARGS__); \
	fputc('\n', stderr); } while (0)
	if (!jvalue(&j, NULL, "") || (ws(&j), j.p != j.end)) {
		PROB("not one JSON value (at byte %ld)", (long)(j.p - text));
		return probs;
	}
	if (strncmp(text, head, strlen(head)))
		PROB("does not start with the traceEvents array");
	if (!strstr(text, "\"displayTimeUnit\":\"ns\""))
		PROB("no displayTimeUnit");
	d->n = 0;
	for (p = text + strlen(head); *p && *p != ']'; p = q + 1) {
		struct rec *r;
		struct js lj;
		const char *ph, *ts;

		q = strchr(p, '\n');
		if (!q)
			break;
		if (q == p)
			continue;
		if (d->n == MAX_RECS) {
			PROB("more than %d records", MAX_RECS);
			break;
		}
		r = &d->r[d->n++];
		memset(r, 0, sizeof(*r));
		lj.p = p;
		lj.end = q[-1] == ',' ? q - 1 : q;
		lj.depth = 0;
		if (!jobject(&lj, r, "") || lj.p != lj.end) {
			PROB("record %d is not one object: %.80s", d->n - 1, p);
			continue;
		}
		ph = get(r, "ph");
		if (!ph || strlen(ph) != 1 || !strchr("XBEMCsfbe", ph[0])) {
			PROB("record %d: phase %s", d->n - 1, ph ? ph : "missing");
			continue;
		}
		if (!get(r, "pid") || (ph[0] != 'C' && !get(r, "tid")))
			PROB("record %d (%s): no pid/tid", d->n - 1, ph);
		ts = get(r, "ts");
		if (ph[0] != 'M' && us_ns(ts) < 0)
			PROB("record %d (%s): ts '%s' is not us.nnn", d->n - 1, ph, ts ? ts : "");
		if (strchr("XBMCsfbe", ph[0]) && !get(r, "name"))
			PROB("record %d (%s): no name", d->n - 1, ph);
		if (strchr("sfbe", ph[0]) && !get(r, "id"))
			PROB("record %d (%s): no id", d->n - 1, ph);
		if (ph[0] == 'M' && !get(r, "args.name") && !get(r, "args.sort_index"))
			PROB("record %d: metadata without args", d->n - 1);
		if (ph[0] == 'X' && us_ns(get(r, "dur")) < 0)
			PROB("record %d: X without dur", d->n - 1);
		if (ph[0] == 'C' && !get(r, "args.cpus"))
			PROB("record %d: counter without a value", d->n - 1);
		if (strchr("XBE", ph[0])) {
			struct track *t = track(tr, &nt, atoll(get(r, "pid") ? get(r, "pid") : "0"),
						atoll(get(r, "tid") ? get(r, "tid") : "0"));
			int64_t s = us_ns(ts);

			if (!t)
				continue;
			if (s < t->last)
				PROB("record %d: %s starts before the track's previous slice",
				     d->n - 1, ph);
			t->last = s;
			while (t->nx && t->xend[t->nx - 1] <= s)
				t->nx--;
			if (ph[0] == 'B' && t->open < 8)
				snprintf(t->names[t->open], sizeof(t->names[0]), "%s", get(r, "name"));
			if (ph[0] == 'B')
				t->open++;
			if (ph[0] == 'E' && --t->open < 0)
				PROB("record %d: E without B", d->n - 1);
			else if (ph[0] == 'E' && t->open < 8 &&
				 (!get(r, "name") || strcmp(get(r, "name"), t->names[t->open])))
				PROB("record %d: E does not name the B it ends", d->n - 1);
			if (ph[0] == 'X') {
				int64_t e = s + us_ns(get(r, "dur"));

				if (t->nx && e > t->xend[t->nx - 1])
					PROB("record %d: X crosses the end of its parent", d->n - 1);
				if (t->nx < 16)
					t->xend[t->nx++] = e;
			}
		}
		if (ph[0] == 's' && nf < MAX_RECS) {
			snprintf(flow_id[nf++], sizeof(flow_id[0]), "%s", get(r, "id"));
			flows++;
		}
		if (ph[0] == 'f') {
			for (k = 0; k < nf && strcmp(flow_id[k], get(r, "id")); k++)
				;
			if (k == nf)
				PROB("record %d: flow end without start", d->n - 1);
			else
				flow_id[k][0] = '\0', flows--;
		}
		if (ph[0] == 'b' && na < MAX_RECS) {
			snprintf(async_id[na++], sizeof(async_id[0]), "%s", get(r, "id"));
			asyncs++;
		}
		if (ph[0] == 'e') {
			for (k = 0; k < na && strcmp(async_id[k], get(r, "id")); k++)
				;
			if (k == na)
				PROB("record %d: async end without begin", d->n - 1);
			else
				async_id[k][0] = '\0', asyncs--;
		}
	}
	for (i = 0; i < nt; i++)
		if (tr[i].open)
			PROB("track %lld/%lld: %d B never ended", tr[i].pid, tr[i].tid, tr[i].open);
	if (flows)
		PROB("%d flows never ended", flows);
	if (asyncs)
		PROB("%d async slices never ended", asyncs);
	return probs;
}

/* The first record with ph and key=val (key NULL: any), from index from. */
static const struct rec *find(const struct doc *d, const char *ph, const char *key,
			      const char *val)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(get(&d->r[i], "ph"), ph) &&
		    (!key || (get(&d->r[i], key) && !strcmp(get(&d->r[i], key), val))))
			return &d->r[i];
	return NULL;
}

static int count(const struct doc *d, const char *ph, const char *key, const char *val)
{
	int i, n = 0;

	for (i = 0; i < d->n; i++)
		if (!strcmp(get(&d->r[i], "ph"), ph) &&
		    (!key || (get(&d->r[i], key) && !strcmp(get(&d->r[i], key), val))))
			n++;
	return n;
}

static struct doc doc;

#define T0 1000000000000ULL	/* 1000 s */

/* ---- the tests ------------------------------------------------------------------- */

static void test_perfetto_schema_and_facts(void)
{
	struct strobe_perfetto_opts o = { 0 };
	struct strobe_perfetto_stats st;
	struct strobe_error err = { 0 };
	struct mem out = { 0 };
	char *path = write_file(T0);
	const struct rec *r;
	int ret;

	REQUIRE(path);
	ret = export(path, &o, &out, &st, &err);
	unlink(path);
	free(path);
	if (ret < 0)
		fprintf(stderr, "  %s\n", err.msg);
	REQUIRE(ret >= 0 && out.p);
	if (getenv("PX_DUMP"))
		fputs(out.p, stderr);
	CHECK_EQ(check_doc(out.p, out.len, &doc), 0);
	/* containers are process groups by name, the host process by its own */
	r = find(&doc, "M", "args.name", "web");
	REQUIRE(r);
	CHECK_STR(get(r, "name"), "process_name");
	CHECK_STR(get(r, "pid"), "1073741826");		/* 2^30 + index 2 */
	r = find(&doc, "M", "args.name", "db \"main\"");
	CHECK(r != NULL);			/* escaped by the JSON writer */
	CHECK(strstr(out.p, "\"args\":{\"name\":\"db \\\"main\\\"\"}"));
	r = find(&doc, "M", "args.name", "bash");
	REQUIRE(r);
	CHECK_STR(get(r, "pid"), "200");
	CHECK(find(&doc, "M", "args.name", "CPUs"));
	CHECK(find(&doc, "M", "args.name", "CPU 0") && find(&doc, "M", "args.name", "CPU 1"));
	/* the read call: B at +1 us, E at +4 us with its return value */
	r = find(&doc, "B", "name", "read");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000001.000");
	CHECK_STR(get(r, "tid"), "100");
	CHECK_STR(get(r, "pid"), "1073741826");
	CHECK_STR(get(r, "cat"), "syscall");
	r = find(&doc, "E", "args.ret", "42");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000004.000");
	r = find(&doc, "E", "args.ret", "100");		/* getpid, 500 ns */
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000005.500");
	/* the open futex of postgres ends at the last event, without ret */
	CHECK_EQ(count(&doc, "B", "name", "futex"), 1);
	CHECK_EQ(count(&doc, "B", "cat", "syscall"), 3);
	CHECK_EQ(count(&doc, "E", "name", "futex"), 1);
	/* nginx's running pieces: cut at the call's edges and the switch,
	 * in file order: B 0, E 1, [B read 1], B 1, E 2 (blocked), B 3
	 * (woken), E 4, [E read 4], B 4, E 5, [B getpid], B 5, E 5.5, [E
	 * getpid], B 5.5, E 6000 us */
	{
		static const char *const want[] = {
			"B1000000000.000", "E1000000001.000", "B1000000001.000 in call",
			"E1000000002.000 in call", "B1000000003.000 in call",
			"E1000000004.000 in call", "B1000000004.000", "E1000000005.000",
			"B1000000005.000 in call", "E1000000005.500 in call",
			"B1000000005.500", "E1000006000.000" };
		int i, k = 0;

		for (i = 0; i < doc.n && k < 12; i++) {
			const struct rec *q = &doc.r[i];
			char got[40];

			if (strncmp(get(q, "name") ? get(q, "name") : "", "running", 7) ||
			    strcmp(get(q, "tid"), "100"))
				continue;
			snprintf(got, sizeof(got), "%s%s%s", get(q, "ph"), get(q, "ts"),
				 strstr(get(q, "name"), "in call") ? " in call" : "");
			CHECK_STR(got, want[k]);
			k++;
		}
		CHECK_EQ(k, 12);
		CHECK_EQ(count(&doc, "B", "name", "running"), count(&doc, "E", "name", "running"));
		CHECK_EQ(count(&doc, "B", "name", "running (in call)"),
			 count(&doc, "E", "name", "running (in call)"));
	}
	/* the CPU track: bash between nginx's two runs, ends named and with
	 * the args of their beginnings */
	r = find(&doc, "B", "name", "bash");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000002.000");
	CHECK_STR(get(r, "pid"), "1610612736");
	CHECK_STR(get(r, "tid"), "1744830464");
	CHECK_STR(get(r, "cat"), "cpu");
	CHECK_STR(get(r, "args.tid"), "200");
	r = find(&doc, "E", "name", "bash");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000003.000");
	CHECK_STR(get(r, "args.tid"), "200");
	CHECK_EQ(count(&doc, "B", "cat", "cpu"), 4);	/* nginx, bash, nginx, postgres */
	CHECK_EQ(count(&doc, "X", NULL, NULL), 0);
	/* the wake-up: bash's flow start, nginx's flow end, one id */
	r = find(&doc, "s", NULL, NULL);
	REQUIRE(r);
	CHECK_STR(get(r, "tid"), "200");
	CHECK_STR(get(r, "ts"), "1000000002.500");
	r = find(&doc, "f", NULL, NULL);
	REQUIRE(r);
	CHECK_STR(get(r, "tid"), "100");
	CHECK_STR(get(r, "id"), get(find(&doc, "s", NULL, NULL), "id"));
	/* counters every 10 ms: web 5.999 ms of the first (0.600 CPUs), then
	 * none; db 8 ms of the second, all of the last 5 ms */
	r = find(&doc, "C", "pid", "1073741826");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000000.000");
	CHECK_STR(get(r, "args.cpus"), "0.600");
	CHECK(find(&doc, "C", "args.cpus", "0.000"));
	CHECK(find(&doc, "C", "args.cpus", "0.800") &&
	      !strcmp(get(find(&doc, "C", "args.cpus", "0.800"), "ts"), "1000010000.000"));
	CHECK(find(&doc, "C", "args.cpus", "1.000") &&
	      !strcmp(get(find(&doc, "C", "args.cpus", "1.000"), "pid"), "1073741827"));
	CHECK(strstr(out.p, "\"ts_origin_ns\":0,"));
	CHECK_EQ(st.events, 11);
	CHECK_EQ(st.syscalls, 3);
	CHECK_EQ(st.flows, 2);
	CHECK_EQ(st.bytes, out.len);
	free(out.p);
}

static void test_perfetto_window_and_container_filter(void)
{
	struct strobe_perfetto_opts o = { .end = 3 * US, .end_relative = true };
	struct strobe_error err = { 0 };
	struct mem out = { 0 };
	char *path = write_file(T0);
	int i;

	REQUIRE(path);
	REQUIRE(export(path, &o, &out, NULL, &err) >= 0);
	CHECK_EQ(check_doc(out.p, out.len, &doc), 0);
	for (i = 0; i < doc.n; i++) {
		const char *ts = get(&doc.r[i], "ts");

		CHECK(!ts || us_ns(ts) <= (int64_t)((T0 + 3 * US) / 1000 * 1000));
	}
	/* read is cut at the window's end */
	CHECK(find(&doc, "B", "name", "read"));
	CHECK(find(&doc, "E", "ts", "1000000003.000"));
	CHECK(!find(&doc, "B", "name", "futex"));
	free(out.p);

	memset(&out, 0, sizeof(out));
	memset(&o, 0, sizeof(o));
	o.containers = ID64B;
	REQUIRE(export(path, &o, &out, NULL, &err) >= 0);
	CHECK_EQ(check_doc(out.p, out.len, &doc), 0);
	CHECK(!strstr(out.p, "nginx") && !strstr(out.p, "bash"));
	CHECK(find(&doc, "B", "name", "futex"));
	CHECK(find(&doc, "M", "args.name", "postgres"));
	CHECK(!find(&doc, "s", NULL, NULL));
	free(out.p);

	memset(&out, 0, sizeof(out));
	memset(&o, 0, sizeof(o));
	o.tids = "100";
	REQUIRE(export(path, &o, &out, NULL, &err) >= 0);
	CHECK_EQ(check_doc(out.p, out.len, &doc), 0);
	CHECK(strstr(out.p, "nginx") && !strstr(out.p, "postgres"));
	CHECK(!find(&doc, "s", NULL, NULL));	/* its waker is not selected */
	free(out.p);
	unlink(path);
	free(path);
}

static void test_perfetto_periods_async(void)
{
	const char *per[] = { "call : $evt.$name == \"syscall_entry_read\" : "
			      "$evt.$name == \"syscall_exit_read\" && $evt.tid == $begin.$evt.tid" };
	const char *caps[] = { "call : cpu = $evt.cpu_id : bytes = $evt.ret" };
	struct strobe_perfetto_opts o = { .periods = per, .nr_periods = 1,
					  .period_captures = caps, .nr_period_captures = 1 };
	struct strobe_error err = { 0 };
	struct mem out = { 0 };
	char *path = write_file(T0);
	const struct rec *r;
	int ret;

	REQUIRE(path);
	ret = export(path, &o, &out, NULL, &err);
	if (ret < 0)
		fprintf(stderr, "  %s\n", err.msg);
	REQUIRE(ret >= 0);
	CHECK_EQ(check_doc(out.p, out.len, &doc), 0);
	r = find(&doc, "b", "name", "call");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000001.000");
	CHECK_STR(get(r, "cat"), "period");
	CHECK_STR(get(r, "args.status"), "closed");
	CHECK_STR(get(r, "args.bytes"), "42");
	CHECK_STR(get(r, "args.cpu"), "0");
	CHECK_STR(get(r, "pid"), "1073741826");
	r = find(&doc, "e", "name", "call");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "1000000004.000");
	free(out.p);
	unlink(path);
	free(path);
}

/* A trace clock far from 0 (the wall clock of merged files): times
 * relative to the first second, nanoseconds kept. */
static void test_perfetto_far_timestamps_keep_ns(void)
{
	struct strobe_perfetto_opts o = { 0 };
	struct strobe_error err = { 0 };
	struct mem out = { 0 };
	char *path = write_file(1795545551123456789ULL);
	const struct rec *r;

	REQUIRE(path);
	REQUIRE(export(path, &o, &out, NULL, &err) >= 0);
	CHECK_EQ(check_doc(out.p, out.len, &doc), 0);
	CHECK(strstr(out.p, "\"ts_origin_ns\":1795545551000000000,"));
	r = find(&doc, "B", "name", "read");
	REQUIRE(r);
	CHECK_STR(get(r, "ts"), "123457.789");	/* .123456789 s + 1 us */
	free(out.p);
	unlink(path);
	free(path);
}

/* Two hosts' files on one wall-clock timeline: names say the host, the
 * second file's ids move past 4194304, times count from the first second. */
static void test_perfetto_two_hosts(void)
{
	struct strobe_perfetto_opts o = { .size = sizeof(o), .write = mem_write };
	struct strobe_tracefile *tf[2] = { NULL, NULL };
	struct strobe_pipeline *p = NULL;
	struct strobe_perfetto *x = NULL;
	struct strobe_error err = { 0 };
	struct strobe_consumer c;
	struct mem out = { 0 };
	char *path[2] = { write_file_info(T0, fx_info_web), write_file_info(5000000000ULL,
									       fx_info_db) };
	const struct rec *r;
	int i, ret = 0;

	REQUIRE(path[0] && path[1]);
	o.write_arg = &out;
	for (i = 0; i < 2 && !ret; i++)
		ret = strobe_tracefile_open(path[i], &tf[i], &err);
	if (!ret)
		ret = strobe_pipeline_new(NULL, &p, &err);
	for (i = 0; i < 2 && ret >= 0; i++)
		ret = strobe_pipeline_add_file(p, tf[i], NULL, &err);
	if (ret >= 0)
		ret = strobe_perfetto_new(&o, &x, &err);
	if (!ret) {
		strobe_perfetto_consumer(x, &c);
		ret = strobe_pipeline_add_consumer(p, &c, &err);
	}
	if (!ret)
		ret = strobe_pipeline_run(p, &err);
	if (ret < 0)
		fprintf(stderr, "  %s\n", err.msg);
	CHECK(ret >= 0);
	if (ret >= 0 && out.p) {
		CHECK_EQ(check_doc(out.p, out.len, &doc), 0);
		CHECK(find(&doc, "M", "args.name", "web (web)"));
		CHECK(find(&doc, "M", "args.name", "web (db)"));
		CHECK(find(&doc, "M", "args.name", "CPUs (db)"));
		CHECK(find(&doc, "B", "tid", "100"));
		r = find(&doc, "B", "tid", "4194404");	/* db's nginx */
		CHECK(r != NULL);
		CHECK(strstr(out.p, "\"tid\":4194404,\"name\":\"read\",\"cat\":\"syscall\""));
		CHECK(strstr(out.p, "\"ts_origin_ns\":1795545551000000000,"));
		CHECK(strstr(out.p, "\"hosts\":[\"web\",\"db\"]"));
	}
	strobe_perfetto_free(x);
	strobe_pipeline_free(p);
	for (i = 0; i < 2; i++) {
		strobe_tracefile_close(tf[i]);
		unlink(path[i]);
		free(path[i]);
	}
	free(out.p);
}

static void test_perfetto_errors(void)
{
	const char *bad[] = { "$evt.nope == 1" };
	struct strobe_perfetto_opts o = { 0 };
	struct strobe_perfetto *x = NULL;
	struct strobe_error err = { 0 };
	struct mem out = { .fail = -ENOSPC };
	char *path = write_file(T0);

	REQUIRE(path);
	CHECK_EQ(strobe_perfetto_new(&o, &x, &err), -EINVAL);	/* no write function */
	CHECK(strstr(err.msg, "no write function"));
	CHECK_EQ(export(path, &o, &out, NULL, &err), -ENOSPC);
	CHECK(strstr(err.msg, "disk full"));
	memset(&out, 0, sizeof(out));
	memset(&err, 0, sizeof(err));
	o.filters = bad;
	o.nr_filters = 1;
	CHECK_EQ(export(path, &o, &out, NULL, &err), -EINVAL);
	CHECK(strstr(err.msg, "column 1: no field 'nope'"));
	CHECK_EQ(out.writes, 0);
	free(out.p);
	unlink(path);
	free(path);
}

/* The schema check itself refuses what it must (so its passes mean
 * something): one bad document per rule. */
static void test_perfetto_schema_check_refuses(void)
{
#define HEAD "{\"traceEvents\":[\n"
#define TAIL "\n],\"displayTimeUnit\":\"ns\"}\n"
	static const char *const bad[] = {
		HEAD "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1.000}" TAIL,
		HEAD "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":1.000}" TAIL,
		HEAD "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1.000}" TAIL,
		HEAD "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":2.000,"
		"\"dur\":1.000},\n{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\","
		"\"ts\":1.000,\"dur\":1.000}" TAIL,
		HEAD "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1.000,"
		"\"dur\":2.000},\n{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"b\","
		"\"ts\":2.000,\"dur\":2.000}" TAIL,
		HEAD "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"name\":\"w\",\"id\":1,"
		"\"ts\":1.000}" TAIL,
		HEAD "{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"name\":\"p\",\"id\":\"0x1\","
		"\"ts\":1.000}" TAIL,
		HEAD "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1.5}" TAIL,
		HEAD "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\"}" TAIL,
		HEAD "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1.000" TAIL,
		HEAD "{\"ph\":\"C\",\"pid\":1,\"name\":\"c\",\"ts\":1.000,\"args\":{}}" TAIL,
		HEAD "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1.000},\n"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":2.000}" TAIL,
	};
	static const char good[] = HEAD "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"name\":\"a\","
		"\"ts\":1.000},\n{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"r\",\"ts\":1.000,"
		"\"dur\":0.500},\n{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"name\":\"a\","
		"\"ts\":2.000}" TAIL;
	size_t i;

	CHECK_EQ(check_doc(good, strlen(good), &doc), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fprintf(stderr, "  (expected:)\n");
		if (!check_doc(bad[i], strlen(bad[i]), &doc)) {
			fprintf(stderr, "  bad document %zu passed\n", i);
			CHECK(0);
		}
	}
}

TESTS(T(test_perfetto_schema_check_refuses), T(test_perfetto_schema_and_facts), T(test_perfetto_window_and_container_filter),
      T(test_perfetto_periods_async), T(test_perfetto_far_timestamps_keep_ns),
      T(test_perfetto_two_hosts), T(test_perfetto_errors));
