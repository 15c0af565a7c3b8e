/*
 * pipeline.c - the one event loop (include/strobe/pipeline.h).
 *
 * A pipeline gathers sources (trace files, one live stream, record
 * sources that are not ftrace pages), opens their streams when it runs
 * (one file: its stream; several: a strobe_merge, so hosts share one
 * timeline), and hands each event to its consumers after updating the
 * task model of the event's host.  Inputs are what yields events in time
 * order: the file stream, the merge or the live stream first, then one
 * input per record source; with one input the loop calls it directly
 * (the usual case costs one indirect call per consumer and event more
 * than a hand-written loop), with several it keeps each input's head and
 * hands out the earliest.
 *
 * The damage policy lives here and nowhere else: an input that answers
 * an error other than -EAGAIN has skipped damaged data (a page the stream
 * could not decode, a record too short to be one); the pipeline notes it
 * on the source's file (strobe_tracefile_note_bad_data, so every command
 * shows the same diagnostic) or, live, in its own list, and goes on;
 * strict mode fails the run on the first damage instead, also on damage
 * the file reader found at open (truncation, damaged formats).
 *
 * Stop conditions are checked whenever the input has nothing to hand out
 * and at least every CHECK_EVERY events, so a flood of events cannot hide
 * a timeout or a signal.  A live capture is stopped at most once; what it
 * still holds drains through the consumers and the stream ends by
 * itself.
 *
 * A run can pause (a consumer returns STROBE_CONSUMER_YIELD from event or
 * idle) and go on when strobe_pipeline_run is called again: everything
 * the loop must remember between two calls (the deadline, why it is
 * stopping, whether the capture was stopped) lives in the pipeline, not
 * on the loop's stack, and the loop starts again by asking the input for
 * its next event, as it does after any event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>

#include "../stream/stream-int.h"
#include "../util/err.h"
#include "../util/opts.h"
#include "workers.h"

#define CHECK_EVERY 4096
#define WAIT_MS 100
#define TARGET_WAIT_MS 20
#define TARGET_CHECK_MS 10
#define IDLE_PAUSE_MS 10
#define MAX_TICKS_AT_ONCE 1000

enum in_kind { IN_STREAM, IN_MERGE, IN_RECORDS };

/* Something that yields events in time order. */
struct input {
	enum in_kind kind;
	int source;			/* IN_STREAM, IN_RECORDS: its source */
	struct strobe_stream *s;	/* IN_STREAM (owned unless borrowed) */
	bool borrowed;
	struct strobe_merge *m;		/* IN_MERGE (owned) */
	struct strobe_record_source rs;	/* IN_RECORDS (ctx owned) */
	/* several inputs: the head waiting to be handed out */
	struct strobe_event head;
	int head_src;
	uint64_t key;			/* head's time on the timeline */
	uint64_t head_raw;		/* head's time in its source's clock */
	bool has_head, done, waiting;
	uint64_t records;		/* IN_RECORDS: handed out */
};

struct src {
	struct strobe_stream_opts sopts;	/* files: as given (cpu mask copied) */
	bool *cpu_mask;
	dev_t dev;
	ino_t ino;
	bool own_model;
	uint64_t bad;			/* live: damage skipped */
	char bad_first[320];
};

struct live_diag {
	enum strobe_tf_diag_kind kind;
	int source;
	char *msg;
};

struct cons {
	struct strobe_consumer c;
	bool started, active;
};

/* fast_loop's answer when the general loop must take over (not an enum
 * strobe_pipeline_end, not -errno) */
#define TAKE_OVER 100

struct strobe_pipeline {
	struct strobe_pipeline_opts o;
	struct strobe_pipeline_source *pub;	/* nr_srcs, what consumers see */
	struct src *srcs;
	int nr_srcs, nr_files;
	bool live, ran;
	bool paused;			/* the last run returned YIELD */
	bool resuming;			/* this run goes on after a pause */
	struct strobe_capture *cap;
	struct strobe_stream *given;		/* add_stream's (borrowed) */
	struct input *in;
	int nr_in;
	struct strobe_merge *merge;
	uint64_t bytes_total;		/* the files' trace data (progress) */
	int inputs_ready;		/* atomic: in[] is built (progress) */
	struct cons *cons;
	int nr_cons, nr_active;
	bool source_time;		/* a consumer wants STROBE_CONSUMER_SOURCE_TIME */
	uint64_t raw_ts;		/* source_time: the event's ts in its
					 * source's own clock */
	volatile sig_atomic_t stop_req;
	struct live_diag *diags;		/* live sources' own */
	int nr_diags;
	char host_buf[256];
	/* ticks */
	uint64_t next_tick;			/* 0: not started */
	/* the loop's state across pauses */
	int64_t deadline;			/* mono ms; 0: no timeout */
	int64_t next_target_check;		/* mono ms */
	enum strobe_pipeline_end why;		/* a stop condition held */
	bool stopping;				/* ... and the capture was stopped */
	int64_t next_poll;			/* opts.poll: when it is due */
	struct strobe_workers *wk;		/* jobs > 1: the consumers' threads */
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Has pid exited?  A child is looked at without being reaped. */
static bool exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		return si.si_pid == pid;
	if (errno == ECHILD)
		return kill(pid, 0) < 0 && errno == ESRCH;
	return false;
}

/* ---- building ----------------------------------------------------------- */

int strobe_pipeline_new(const struct strobe_pipeline_opts *opts,
			struct strobe_pipeline **out, struct strobe_error *err)
{
	struct strobe_pipeline *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return strobe_err(err, -ENOMEM, "out of memory");
	strobe_opts_copy(&p->o, sizeof(p->o), opts);
	*out = p;
	return 0;
}

static int grow_sources(struct strobe_pipeline *p, struct strobe_error *err)
{
	struct strobe_pipeline_source *pub;
	struct src *s;
	int i, n = p->nr_srcs + 1;

	pub = realloc(p->pub, (size_t)n * sizeof(*pub));
	if (!pub)
		return strobe_err(err, -ENOMEM, "out of memory");
	p->pub = pub;
	s = realloc(p->srcs, (size_t)n * sizeof(*s));
	if (!s)
		return strobe_err(err, -ENOMEM, "out of memory");
	p->srcs = s;
	memset(&pub[n - 1], 0, sizeof(*pub));
	memset(&s[n - 1], 0, sizeof(*s));
	pub[n - 1].index = n - 1;
	for (i = 0; i < n; i++)
		pub[i].index = i;
	p->nr_srcs = n;
	return n - 1;
}

/* The trace data of tf's buffers (buffer >= 0: that one), uncompressed. */
static uint64_t file_bytes(struct strobe_tracefile *tf, int buffer)
{
	struct strobe_tf_buffer_info info;
	uint64_t n = 0;
	int b;

	for (b = 0; b < strobe_tracefile_nr_buffers(tf); b++)
		if ((buffer < 0 || b == buffer) && strobe_tracefile_buffer(tf, b, &info) == 0)
			n += info.data_size;
	return n;
}

int strobe_pipeline_add_file(struct strobe_pipeline *p, struct strobe_tracefile *tf,
			     const struct strobe_stream_opts *sopts, struct strobe_error *err)
{
	const char *path = strobe_tracefile_path(tf);
	struct stat st;
	struct src *s;
	int i, r;

	if (p->ran || p->given)
		return strobe_err(err, -EINVAL, "%s", p->ran ? "the pipeline has run"
					: "a pipeline with a stream takes no trace file");
	memset(&st, 0, sizeof(st));
	if (path && stat(path, &st) == 0) {
		for (i = 0; i < p->nr_srcs; i++) {
			char msg[1100];

			if (p->srcs[i].dev != st.st_dev || p->srcs[i].ino != st.st_ino)
				continue;
			snprintf(msg, sizeof(msg), "%s is the same file as %s: it is read once",
				 path, strobe_tracefile_path(p->pub[i].tf));
			if (strobe_tracefile_add_diag(p->pub[i].tf, STROBE_TF_DIAG_SAME_FILE,
						      msg) < 0)
				return strobe_err(err, -ENOMEM, "out of memory");
			return i;
		}
	}
	r = grow_sources(p, err);
	if (r < 0)
		return r;
	s = &p->srcs[r];
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->sopts.buffer = -1;
	if (sopts) {
		strobe_opts_copy(&s->sopts, sizeof(s->sopts), sopts);
		if (sopts->cpu_mask && sopts->nr_cpu_mask > 0) {
			s->cpu_mask = malloc((size_t)sopts->nr_cpu_mask);
			if (!s->cpu_mask)
				return strobe_err(err, -ENOMEM, "out of memory");
			memcpy(s->cpu_mask, sopts->cpu_mask, (size_t)sopts->nr_cpu_mask);
			s->sopts.cpu_mask = s->cpu_mask;
		} else {
			s->sopts.cpu_mask = NULL;
			s->sopts.nr_cpu_mask = 0;
		}
	}
	s->sopts.size = sizeof(s->sopts);
	p->bytes_total += file_bytes(tf, s->sopts.buffer);
	p->pub[r].tf = tf;
	p->pub[r].formats = strobe_tracefile_formats(tf);
	p->nr_files++;
	return r;
}

int strobe_pipeline_add_stream(struct strobe_pipeline *p, struct strobe_stream *st,
			       struct strobe_capture *cap, struct strobe_model *model,
			       struct strobe_error *err)
{
	int r;

	if (p->ran || p->nr_srcs)
		return strobe_err(err, -EINVAL, "%s", p->ran ? "the pipeline has run"
					: "a pipeline takes one live stream and no file");
	r = grow_sources(p, err);
	if (r < 0)
		return r;
	p->live = strobe_stream_fd(st) >= 0;
	p->cap = cap;
	p->given = st;
	p->pub[r].live = p->live;
	p->pub[r].formats = strobe_stream_formats(st);
	p->pub[r].model = model;
	return r;
}

static int add_input(struct strobe_pipeline *p, const struct input *in,
		     struct strobe_error *err)
{
	struct input *n = realloc(p->in, (size_t)(p->nr_in + 1) * sizeof(*n));

	if (!n)
		return strobe_err(err, -ENOMEM, "out of memory");
	p->in = n;
	n[p->nr_in++] = *in;
	return 0;
}

int strobe_pipeline_add_records(struct strobe_pipeline *p, int source,
				const struct strobe_record_source *rs, struct strobe_error *err)
{
	struct input in;

	if (p->ran)
		return strobe_err(err, -EINVAL, "the pipeline has run");
	if (source < 0 || source >= p->nr_srcs)
		return strobe_err(err, -EINVAL, "no source %d to add records to", source);
	if (!rs || !rs->next)
		return strobe_err(err, -EINVAL, "a record source needs a next function");
	memset(&in, 0, sizeof(in));
	in.kind = IN_RECORDS;
	in.source = source;
	strobe_opts_copy(&in.rs, sizeof(in.rs), rs);
	return add_input(p, &in, err);
}

int strobe_pipeline_add_consumer(struct strobe_pipeline *p, const struct strobe_consumer *c,
				 struct strobe_error *err)
{
	struct cons *n;

	if (p->ran)
		return strobe_err(err, -EINVAL, "the pipeline has run");
	if (!c || !c->event)
		return strobe_err(err, -EINVAL, "a consumer needs an event function");
	n = realloc(p->cons, (size_t)(p->nr_cons + 1) * sizeof(*n));
	if (!n)
		return strobe_err(err, -ENOMEM, "out of memory");
	p->cons = n;
	memset(&n[p->nr_cons], 0, sizeof(n[0]));
	strobe_opts_copy(&n[p->nr_cons].c, sizeof(n[0].c), c);
	if (n[p->nr_cons].c.flags & STROBE_CONSUMER_SOURCE_TIME)
		p->source_time = true;
	p->nr_cons++;
	return 0;
}

int strobe_pipeline_set_model(struct strobe_pipeline *p, int source, struct strobe_model *m,
			      struct strobe_error *err)
{
	if (p->ran || source < 0 || source >= p->nr_srcs)
		return strobe_err(err, -EINVAL, "%s", p->ran ? "the pipeline has run"
					: "no such source");
	if (p->srcs[source].own_model)
		strobe_model_free(p->pub[source].model);
	p->srcs[source].own_model = false;
	p->pub[source].model = m;
	return 0;
}

void strobe_pipeline_stop(struct strobe_pipeline *p)
{
	p->stop_req = 1;
}

void strobe_pipeline_free(struct strobe_pipeline *p)
{
	int i;

	if (!p)
		return;
	strobe_workers_end(p->wk, true, NULL);	/* they may read the inputs' pages */
	for (i = 0; i < p->nr_in; i++) {
		struct input *in = &p->in[i];

		if (in->kind == IN_STREAM && !in->borrowed)
			strobe_stream_close(in->s);
		else if (in->kind == IN_MERGE)
			strobe_merge_close(in->m);
		else if (in->rs.close)
			in->rs.close(in->rs.ctx);
	}
	free(p->in);
	for (i = 0; i < p->nr_srcs; i++) {
		if (p->srcs[i].own_model)
			strobe_model_free(p->pub[i].model);
		free(p->srcs[i].cpu_mask);
	}
	strobe_workers_free(p->wk);	/* before the models: its first worker's */
	for (i = 0; i < p->nr_diags; i++)
		free(p->diags[i].msg);
	free(p->diags);
	free(p->srcs);
	free(p->pub);
	free(p->cons);
	free(p);
}

/* ---- opening, at run ------------------------------------------------------ */

static int open_inputs(struct strobe_pipeline *p, bool need_model, struct strobe_error *err)
{
	struct input in;
	int i, r;

	memset(&in, 0, sizeof(in));
	if (p->given) {
		in.kind = IN_STREAM;
		in.s = p->given;
		in.borrowed = true;
	} else if (p->nr_files == 1) {
		in.kind = IN_STREAM;
		r = strobe_stream_open_file(p->pub[0].tf, &p->srcs[0].sopts, &in.s, err);
		if (r < 0)
			return r;
	} else if (p->nr_files > 1) {
		struct strobe_tracefile **tfs = calloc((size_t)p->nr_files, sizeof(*tfs));
		struct strobe_merge_opts mo = { sizeof(mo), p->o.raw_time };

		if (!tfs)
			return strobe_err(err, -ENOMEM, "out of memory");
		for (i = 0; i < p->nr_files; i++)
			tfs[i] = p->pub[i].tf;
		/* one set of stream options for every file: the first's */
		r = strobe_merge_open(tfs, p->nr_files, &p->srcs[0].sopts, &mo, &in.m, err);
		free(tfs);
		if (r < 0)
			return r;
		in.kind = IN_MERGE;
		p->merge = in.m;
		for (i = 0; i < p->nr_files; i++)
			p->pub[i].host = strobe_merge_host(p->merge, i);
	} else {
		return strobe_err(err, -EINVAL, "the pipeline has no source");
	}
	/* the first input: record sources added before stay behind it */
	r = add_input(p, &in, err);
	if (r < 0) {
		if (in.kind == IN_STREAM && !in.borrowed)
			strobe_stream_close(in.s);
		else
			strobe_merge_close(in.m);
		return r;
	}
	memmove(&p->in[1], &p->in[0], (size_t)(p->nr_in - 1) * sizeof(*p->in));
	p->in[0] = in;
	if (p->nr_files == 1 && !p->pub[0].host) {
		const char *h = strobe_tracefile_host(p->pub[0].tf, p->host_buf,
						      sizeof(p->host_buf));

		p->pub[0].host = h && *h ? h : "?";
	}
	if (!need_model)
		return 0;
	for (i = 0; i < p->nr_srcs; i++) {
		if (p->pub[i].model)
			continue;
		r = strobe_model_new(&p->pub[i].model, err);
		if (r < 0)
			return r;
		p->srcs[i].own_model = true;
		if (p->pub[i].tf) {
			r = strobe_model_load_file(p->pub[i].model, p->pub[i].tf, err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- damage ---------------------------------------------------------------- */

static int live_diag(struct strobe_pipeline *p, int source, enum strobe_tf_diag_kind kind,
		     const char *msg)
{
	struct live_diag *d = realloc(p->diags, (size_t)(p->nr_diags + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	p->diags = d;
	d[p->nr_diags].kind = kind;
	d[p->nr_diags].source = source;
	d[p->nr_diags].msg = strdup(msg);
	if (!d[p->nr_diags].msg)
		return -ENOMEM;
	p->nr_diags++;
	return 0;
}

/*
 * Input `in` skipped damaged data (its error in *err, source `src` when
 * known).  Strict: the run fails with it.  Else noted; 0 to go on.
 */
static int damaged(struct strobe_pipeline *p, const struct input *in, int src, int r,
		   struct strobe_error *err)
{
	char msg[sizeof(err->msg)];	/* err is written below */
	struct src *s;

	if (r == -ENOMEM)
		return r;
	snprintf(msg, sizeof(msg), "%s", err && err->msg[0] ? err->msg : strerror(-r));
	if (src < 0 || src >= p->nr_srcs)
		src = in->source;
	if (p->o.strict) {
		const char *path = strobe_tracefile_path(p->pub[src].tf);

		if (err && err->code && path && strncmp(msg, path, strlen(path)))
			return strobe_err(err, -EBADMSG, "damaged data (strict): %.200s: %.280s",
					  path, msg);
		if (err && err->code)
			return strobe_err(err, -EBADMSG, "damaged data (strict): %.480s", msg);
		return strobe_err(err, -EBADMSG, "damaged data (strict) in %s",
				  in->kind == IN_RECORDS && in->rs.name ? in->rs.name : "the trace");
	}
	if (p->pub[src].tf) {
		strobe_tracefile_note_bad_data(p->pub[src].tf, msg);
	} else {
		s = &p->srcs[src];
		if (!s->bad++)
			snprintf(s->bad_first, sizeof(s->bad_first), "%.300s", msg);
	}
	strobe_err_clear(err);
	return 0;
}

/*
 * Strict mode: damage the reader found at open, or (at the end) what the
 * events showed (time going backwards, records shorter than their
 * format), fails the run.  The message names the file unless it does.
 */
static int strict_check(struct strobe_pipeline *p, struct strobe_error *err)
{
	enum strobe_tf_diag_kind k;
	const char *msg, *path;
	int i, j;

	for (i = 0; i < p->nr_srcs; i++)
		for (j = 0; p->pub[i].tf && j < strobe_tracefile_nr_diags(p->pub[i].tf); j++) {
			msg = strobe_tracefile_diag(p->pub[i].tf, j, &k);
			if (!strobe_tf_diag_is_damage(k))
				continue;
			path = strobe_tracefile_path(p->pub[i].tf);
			if (path && strncmp(msg, path, strlen(path)))
				return strobe_err(err, -EBADMSG, "damaged data (strict): %s: %s",
						  path, msg);
			return strobe_err(err, -EBADMSG, "damaged data (strict): %s", msg);
		}
	return 0;
}

/* ---- reading ------------------------------------------------------------------ */

/* A record source's next record, with type, pid and format filled in. */
static int records_next(struct strobe_pipeline *p, struct input *in, struct strobe_event *ev,
			struct strobe_error *err)
{
	const uint8_t *d;
	uint16_t type;
	int32_t pid;
	int r;

	memset(ev, 0, sizeof(*ev));
	r = in->rs.next(in->rs.ctx, ev, err);
	if (r != 1)
		return r;
	if (!ev->data || ev->size < 8) {
		return strobe_err(err, -EBADMSG, "%s: a record of %u bytes is shorter than "
				  "its 8-byte header", in->rs.name ? in->rs.name : "records",
				  ev->size);
	}
	d = ev->data;
	memcpy(&type, d, 2);
	memcpy(&pid, d + 4, 4);
	ev->type = type;
	ev->pid = pid;
	ev->buffer = -1;
	ev->format = strobe_formats_by_id(p->pub[in->source].formats, type);
	in->records++;
	return 1;
}

/* One input's next event: 1, 0 (ended), -EAGAIN, -errno (damage skipped). */
static inline int input_next(struct strobe_pipeline *p, struct input *in,
			     struct strobe_event *ev, int *src, struct strobe_error *err)
{
	switch (in->kind) {
	case IN_STREAM:
		*src = in->source;
		return strobe_stream_next(in->s, ev, err);
	case IN_MERGE:
		return strobe_merge_next(in->m, ev, src, err);
	case IN_RECORDS:
		*src = in->source;
		return records_next(p, in, ev, err);
	}
	return 0;
}

static uint64_t on_timeline(const struct strobe_pipeline *p, const struct input *in,
			    int src, uint64_t ts)
{
	if (in->kind == IN_RECORDS && p->merge)
		return strobe_merge_map_ts(p->merge, src, ts);
	return ts;
}

/* A stopped live capture whose stream has ended: what a record source
 * has not handed out by now came after the stop. */
static bool streams_done(const struct strobe_pipeline *p)
{
	int i;

	if (!p->stopping)
		return false;
	for (i = 0; i < p->nr_in; i++)
		if (p->in[i].kind == IN_STREAM && !p->in[i].done)
			return false;
	return true;
}

/*
 * Several inputs: the earliest head.  1 with *ev and *src, 0 when all
 * ended, -EAGAIN when a waiting input may still bring something earlier,
 * or an input's -errno (*bad says which input).
 */
static int merged_next(struct strobe_pipeline *p, struct strobe_event *ev, int *src,
		       struct input **bad, struct strobe_error *err)
{
	struct input *best = NULL, *in;
	uint64_t limit = UINT64_MAX, t;
	int i, r, s;

	for (i = 0; i < p->nr_in; i++) {
		in = &p->in[i];
		if (in->done || in->has_head)
			continue;
		r = input_next(p, in, &in->head, &s, err);
		if (r == 1) {
			in->has_head = true;
			in->waiting = false;
			in->head_src = s;
			in->key = on_timeline(p, in, s, in->head.ts);
			in->head_raw = in->kind == IN_MERGE ? strobe_merge_last_raw(in->m)
				: in->head.ts;
		} else if (r == 0) {
			in->done = true;
		} else if (r == -EAGAIN && in->kind == IN_RECORDS && streams_done(p)) {
			in->done = true;	/* live: its producer stopped with the capture */
		} else if (r == -EAGAIN) {
			in->waiting = true;
			t = in->kind == IN_STREAM ? strobe_stream_safe_ts(in->s)
				: in->rs.idle_until ? in->rs.idle_until(in->rs.ctx) : 0;
			if (t < limit)
				limit = t;
		} else {
			*bad = in;
			return r;
		}
	}
	for (i = 0; i < p->nr_in; i++) {
		in = &p->in[i];
		if (in->has_head && (!best || in->key < best->key))
			best = in;
	}
	if (!best) {
		for (i = 0; i < p->nr_in; i++)
			if (!p->in[i].done)
				return -EAGAIN;
		return 0;
	}
	if (best->key > limit)
		return -EAGAIN;	/* a waiting input may still bring earlier */
	*ev = best->head;
	ev->ts = best->key;
	p->raw_ts = best->head_raw;
	*src = best->head_src;
	best->has_head = false;	/* its pointers stay valid until its next call */
	return 1;
}

/* ---- running --------------------------------------------------------------------- */

static int call_ticks(struct strobe_pipeline *p, uint64_t upto, struct strobe_error *err)
{
	int i, n = 0, r;

	while (p->next_tick <= upto) {
		if (++n > MAX_TICKS_AT_ONCE) {	/* a jump in time: catch up */
			p->next_tick = upto - (upto - p->next_tick) % p->o.tick_ns;
			continue;
		}
		if (p->wk) {	/* in order with the events, on the workers */
			r = strobe_workers_tick(p->wk, p->next_tick, err);
			if (r < 0)
				return r;
			p->next_tick += p->o.tick_ns;
			continue;
		}
		for (i = 0; i < p->nr_cons; i++) {
			struct cons *c = &p->cons[i];

			if (!c->active || !c->c.tick)
				continue;
			r = c->c.tick(p->next_tick, c->c.arg, err);
			if (r < 0)
				return err && !err->code ? strobe_err(err, r, "%s: %s", c->c.name ? c->c.name : "consumer", strerror(-r)) : r;
		}
		p->next_tick += p->o.tick_ns;
	}
	return 0;
}

static int consumer_failed(const struct cons *c, int r, struct strobe_error *err)
{
	return err && !err->code ? strobe_err(err, r, "%s failed: %s",
					      c->c.name ? c->c.name : "a consumer",
					      strerror(-r)) : r;
}

/* What a consumer's event or idle hook answered, acted on: a consumer
 * that is done drops out; 1 when it asked to pause, 0, or -errno. */
static int consumer_answer(struct strobe_pipeline *p, struct cons *c, int r,
			   struct strobe_error *err)
{
	if (r == STROBE_CONSUMER_DONE) {
		c->active = false;
		p->nr_active--;
	} else if (r == STROBE_CONSUMER_YIELD) {
		return 1;
	} else if (r < 0) {
		return consumer_failed(c, r, err);
	}
	return 0;
}

/* Every active consumer gets ev: 0, 1 when one asked to pause, -errno. */
static int deliver(struct strobe_pipeline *p, const struct strobe_event *ev, int src,
		   struct strobe_error *err)
{
	struct strobe_event own;
	int i, r, pause = 0;

	for (i = 0; i < p->nr_cons; i++) {
		struct cons *c = &p->cons[i];

		if (!c->active)
			continue;
		if (__builtin_expect(p->source_time, 0) &&
		    (c->c.flags & STROBE_CONSUMER_SOURCE_TIME) && p->raw_ts != ev->ts) {
			own = *ev;
			own.ts = p->raw_ts;
			r = c->c.event(&own, src, c->c.arg, err);
		} else {
			r = c->c.event(ev, src, c->c.arg, err);
		}
		if (__builtin_expect(r == 0, 1))
			continue;
		r = consumer_answer(p, c, r, err);
		if (r < 0)
			return r;
		pause |= r;
	}
	return pause;
}

/* The input has nothing ready: every active consumer's idle hook.  0,
 * 1 when one asked to pause, -errno. */
static int call_idle(struct strobe_pipeline *p, struct strobe_error *err)
{
	int i, r, pause = 0;

	for (i = 0; i < p->nr_cons; i++) {
		struct cons *c = &p->cons[i];

		if (!c->active || !c->c.idle)
			continue;
		r = consumer_answer(p, c, c->c.idle(c->c.arg, err), err);
		if (r < 0)
			return r;
		pause |= r;
	}
	return pause;
}

/* Live: lost events and damage of the live source, as diagnostics. */
static int live_done(struct strobe_pipeline *p)
{
	struct strobe_stream_stats st;
	char msg[600];
	struct src *s = &p->srcs[0];

	strobe_pipeline_stats(p, &st);
	if (st.missed || st.missed_unknown) {
		if (st.missed && st.missed_unknown)
			snprintf(msg, sizeof(msg), "%llu events were lost, plus %llu gap%s of "
				 "unknown size", (unsigned long long)st.missed,
				 (unsigned long long)st.missed_unknown,
				 st.missed_unknown > 1 ? "s" : "");
		else if (st.missed_unknown)
			snprintf(msg, sizeof(msg), "events were lost: %llu gap%s of unknown size",
				 (unsigned long long)st.missed_unknown,
				 st.missed_unknown > 1 ? "s" : "");
		else
			snprintf(msg, sizeof(msg), "%llu events were lost",
				 (unsigned long long)st.missed);
		if (live_diag(p, 0, STROBE_TF_DIAG_LOST_EVENTS, msg) < 0)
			return -ENOMEM;
	}
	if (s->bad) {
		snprintf(msg, sizeof(msg), "damaged data was skipped: %llu page%s could not "
			 "be read (the first: %.400s)", (unsigned long long)s->bad,
			 s->bad > 1 ? "s" : "", s->bad_first);
		if (live_diag(p, 0, STROBE_TF_DIAG_BAD_DATA, msg) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int events_done(struct strobe_pipeline *p)
{
	struct strobe_stream_stats st;
	int i;

	if (p->given)
		return live_done(p);
	for (i = 0; i < p->nr_files; i++) {
		struct strobe_stream *s = p->merge ? strobe_merge_stream(p->merge, i) : p->in[0].s;

		strobe_stream_stats(s, &st);
		if (strobe_tracefile_events_done(p->pub[i].tf, &st, &p->srcs[i].sopts) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The usual case, kept tight: one file's stream, one consumer, no ticks.
 * Returns TAKE_OVER when the general loop must take over (the stream had
 * nothing ready), else what loop() returns.
 */
static int fast_loop(struct strobe_pipeline *p, struct strobe_error *err)
{
	struct strobe_stream *s = p->in[0].s;
	struct strobe_tracefile *tf = p->pub[0].tf;
	struct strobe_model *m = p->pub[0].model;
	struct cons *c = &p->cons[0];
	int (*fn)(const struct strobe_event *, int, void *, struct strobe_error *) = c->c.event;
	void *arg = c->c.arg;
	struct strobe_event ev;
	int r;

	for (;;) {
		r = strobe_stream_next(s, &ev, err);
		if (__builtin_expect(r != 1, 0)) {
			if (r == 0)
				return STROBE_PIPELINE_END;
			if (r == -EAGAIN)
				return TAKE_OVER;
			r = damaged(p, &p->in[0], 0, r, err);
			if (r < 0)
				return r;
			continue;
		}
		strobe_tracefile_see_event(tf, &ev);
		if (m)
			strobe_model_update(m, &ev);
		r = fn(&ev, 0, arg, err);
		if (__builtin_expect(r != 0, 0)) {
			if (r == STROBE_CONSUMER_DONE) {
				c->active = false;
				p->nr_active--;
				return STROBE_PIPELINE_DONE;
			}
			if (r == STROBE_CONSUMER_YIELD)
				return STROBE_PIPELINE_YIELD;
			if (r < 0)
				return consumer_failed(c, r, err);
		}
		if (__builtin_expect(p->stop_req, 0))
			return STROBE_PIPELINE_DONE;
	}
}

/* How long to wait for a live input: at most WAIT_MS, not past the
 * deadline, and briefly while a target may exit. */
static int wait_ms(const struct strobe_pipeline *p)
{
	int ms = WAIT_MS;

	if (p->stopping)
		return ms;
	if (p->deadline) {
		int64_t left = p->deadline - mono_ms();

		ms = left < 1 ? 1 : left < ms ? (int)left : ms;
	}
	if (p->o.target > 0 && ms > TARGET_WAIT_MS)
		ms = TARGET_WAIT_MS;
	if (p->o.poll && p->o.poll_ms && ms > (int)p->o.poll_ms)
		ms = (int)p->o.poll_ms;
	return ms;
}

/* Has the target exited?  Asked the kernel at most every TARGET_CHECK_MS
 * (a syscall, and the loop comes here whenever the input is idle). */
static bool target_exited(struct strobe_pipeline *p)
{
	int64_t now = mono_ms();

	if (now < p->next_target_check)
		return false;
	p->next_target_check = now + TARGET_CHECK_MS;
	return exited(p->o.target);
}

/*
 * The stop conditions: when one holds, a live capture is stopped (its
 * events still drain through the loop) and 0 returned; without a
 * capture, how the run ends.  0 also when none holds; -errno.
 */
static int check_stop(struct strobe_pipeline *p, struct strobe_error *err)
{
	int64_t now;
	int w;

	/* the caller's housekeeping, while draining too */
	if (p->o.poll && (now = mono_ms()) >= p->next_poll) {
		p->next_poll = now + (p->o.poll_ms ? (int64_t)p->o.poll_ms : WAIT_MS);
		w = p->o.poll(p->o.poll_arg, err);
		if (w < 0)
			return err && !err->code ? strobe_err(err, w, "%s", strerror(-w)) : w;
		if (w > 0 && !p->stopping && p->why == STROBE_PIPELINE_END)
			p->stop_req = 1;
	}
	if (p->stopping)
		return 0;
	if (p->stop_req)
		p->why = STROBE_PIPELINE_DONE;
	else if (p->o.stop && *p->o.stop)
		p->why = STROBE_PIPELINE_SIGNAL;
	else if (p->deadline && mono_ms() >= p->deadline)
		p->why = STROBE_PIPELINE_TIMEOUT;
	else if (p->o.target > 0 && target_exited(p))
		p->why = STROBE_PIPELINE_TARGET_EXIT;
	if (p->why == STROBE_PIPELINE_END)
		return 0;
	if (!p->cap)
		return p->why;	/* nothing to drain */
	p->stopping = true;
	w = strobe_capture_stop(p->cap, err);
	return w < 0 ? w : 0;
}

/* The main loop; returns an enum strobe_pipeline_end or -errno. */
static int loop(struct strobe_pipeline *p, struct strobe_error *err)
{
	int64_t deadline = p->deadline;
	struct input *one = p->nr_in == 1 ? &p->in[0] : NULL, *bad;
	struct strobe_tracefile *tf1 = !p->live && p->nr_files == 1 ? p->pub[0].tf : NULL;
	struct strobe_model *m1 = p->nr_srcs == 1 ? p->pub[0].model : NULL;
	bool multi_tf = !p->live && p->nr_files > 1;
	struct strobe_event ev;
	unsigned since_check = 0;
	bool woken = false;
	int r, src = 0, w;

	/* a stop may have come during a pause (a first run looks when the
	 * input has nothing ready, as ever) */
	if (p->resuming) {
		p->resuming = false;
		r = check_stop(p, err);
		if (r)
			return r;
	}
	/* a file (no stop conditions to poll), one consumer, no ticks */
	if (!p->wk && one && one->kind == IN_STREAM && tf1 && p->nr_cons == 1 && !p->o.tick_ns &&
	    !p->o.stop && !deadline && p->o.target <= 0 && !p->o.poll) {
		r = fast_loop(p, err);
		if (r != TAKE_OVER)
			return r;
	}
	for (;;) {
		bad = one;
		r = one ? input_next(p, one, &ev, &src, err) : merged_next(p, &ev, &src, &bad, err);
		if (__builtin_expect(r == 1, 1)) {
			if (one && p->source_time)
				p->raw_ts = one->kind == IN_MERGE ? strobe_merge_last_raw(one->m)
					: ev.ts;
			if (tf1)
				strobe_tracefile_see_event(tf1, &ev);
			else if (multi_tf && p->pub[src].tf)
				strobe_tracefile_see_event(p->pub[src].tf, &ev);
			if (p->wk) {	/* the workers update their models */
				if (p->o.tick_ns) {
					if (!p->next_tick)
						p->next_tick = ev.ts + p->o.tick_ns;
					else if (ev.ts >= p->next_tick &&
						 (r = call_ticks(p, ev.ts, err)) < 0)
						return r;
				}
				r = strobe_workers_event(p->wk, &ev, src,
							 p->source_time ? p->raw_ts : ev.ts, err);
				if (r < 0)
					return r;
				if (__builtin_expect(!strobe_workers_active(p->wk), 0))
					return STROBE_PIPELINE_DONE;
				if (++since_check < CHECK_EVERY)
					continue;
				goto checks;
			}
			if (m1)
				strobe_model_update(m1, &ev);
			else if (p->nr_srcs > 1 && p->pub[src].model)
				strobe_model_update(p->pub[src].model, &ev);
			if (p->o.tick_ns) {
				if (!p->next_tick)
					p->next_tick = ev.ts + p->o.tick_ns;
				else if (ev.ts >= p->next_tick && (r = call_ticks(p, ev.ts, err)) < 0)
					return r;
			}
			r = deliver(p, &ev, src, err);
			if (__builtin_expect(r != 0, 0)) {
				if (r < 0)
					return r;
				if (p->nr_active)
					return STROBE_PIPELINE_YIELD;
			}
			if (__builtin_expect(!p->nr_active, 0))
				return STROBE_PIPELINE_DONE;
			if (++since_check < CHECK_EVERY)
				continue;
		} else if (r == 0) {
			return p->why;
		} else if (r != -EAGAIN) {
			/* with workers: damage the consumers would not have come
			 * to (every one is done by the events before it) is not
			 * noted, nor fails a strict run, as on one thread */
			if (p->wk && (w = strobe_workers_sync(p->wk, err)) <= 0)
				return w < 0 ? w : STROBE_PIPELINE_DONE;
			r = damaged(p, bad, src, r, err);
			if (r < 0)
				return r;
			continue;
		}
checks:
		/* woken by the stream, and still nothing to hand out */
		if (r == -EAGAIN && since_check)
			woken = false;
		since_check = 0;
		w = check_stop(p, err);
		if (w)
			return w;
		if (r != -EAGAIN)
			continue;
		/* Live and idle: the watermark says how far time has passed. */
		if (p->o.tick_ns && p->live) {
			uint64_t safe = strobe_stream_safe_ts(p->in[0].s);

			if (safe && !p->next_tick)
				p->next_tick = safe + p->o.tick_ns;
			else if (safe && safe >= p->next_tick && (w = call_ticks(p, safe, err)) < 0)
				return w;
		}
		w = call_idle(p, err);
		if (w < 0)
			return w;
		if (!p->nr_active)
			return STROBE_PIPELINE_DONE;
		if (w)
			return STROBE_PIPELINE_YIELD;
		if (p->in[0].kind == IN_STREAM && p->given) {
			/*
			 * Woken, and nothing came of it: the stream waits for a
			 * quiet CPU's watermark, and asking again at once only
			 * kicks that CPU's reader into answering again (a loop
			 * that keeps a CPU busy while little happens).  Pause a
			 * little; events still come within the stream's ~100 ms.
			 */
			if (woken && !p->stopping) {
				struct timespec ts = { 0, IDLE_PAUSE_MS * 1000000L };

				nanosleep(&ts, NULL);
			}
			w = strobe_stream_wait(p->in[0].s, wait_ms(p));
			if (w < 0 && w != -EINTR)
				return strobe_err(err, w, "waiting for events: %s", strerror(-w));
			woken = w > 0;
		} else {
			struct timespec ts = { 0, 5 * 1000000 };	/* record sources */

			nanosleep(&ts, NULL);
		}
	}
}

/*
 * jobs > 1 over files: the consumers go to worker threads (workers.c),
 * made before any consumer starts, since each starts with its worker's
 * view of the sources (its own task models).
 */
static int start_workers(struct strobe_pipeline *p, bool need_model, struct strobe_error *err)
{
	const struct strobe_consumer **cs = calloc((size_t)p->nr_cons, sizeof(*cs));
	int i, r;

	if (!cs)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < p->nr_cons; i++)
		cs[i] = &p->cons[i].c;
	r = strobe_workers_new(&p->wk, p->o.jobs, cs, p->nr_cons, p->pub, p->nr_srcs,
			       need_model, err);
	free(cs);	/* copied: the consumers' own addresses */
	return r;
}

static int go_workers(struct strobe_pipeline *p, struct strobe_error *err)
{
	bool *active = calloc((size_t)p->nr_cons, sizeof(*active));
	int i, r;

	if (!active)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < p->nr_cons; i++)
		active[i] = p->cons[i].active;
	r = strobe_workers_go(p->wk, active, err);
	free(active);
	return r;
}

int strobe_pipeline_run(struct strobe_pipeline *p, struct strobe_error *err)
{
	bool need_model = false;
	int i, r, ret;

	strobe_err_clear(err);
	if (p->paused) {
		p->paused = false;
		p->resuming = true;
		goto go_on;
	}
	if (p->ran)
		return strobe_err(err, -EINVAL, "a pipeline runs once");
	p->ran = true;
	for (i = 0; i < p->nr_cons; i++)
		if (p->cons[i].c.flags & STROBE_CONSUMER_MODEL)
			need_model = true;
	r = open_inputs(p, need_model, err);
	if (r < 0)
		return r;
	__atomic_store_n(&p->inputs_ready, 1, __ATOMIC_RELEASE);
	if (p->o.strict) {
		r = strict_check(p, err);
		if (r < 0)
			return r;
	}
	if (p->o.jobs > 1 && !p->given && p->nr_in == 1 && p->nr_cons > 0) {
		r = start_workers(p, need_model, err);
		if (r < 0)
			return r;
		/* one file: events go to the workers in the file's pages */
		if (p->in[0].kind == IN_STREAM)
			strobe_workers_hold(p->wk, p->in[0].s);
	}
	for (i = 0; i < p->nr_cons; i++) {
		struct cons *c = &p->cons[i];

		if (c->c.start) {
			r = c->c.start(p->wk ? strobe_workers_sources(p->wk, i) : p->pub, p->nr_srcs,
				       c->c.arg, err);
			if (r < 0) {
				if (err && !err->code)
					strobe_err(err, r, "%s: %s", c->c.name ? c->c.name : "consumer",
						   strerror(-r));
				return r;
			}
		}
		c->started = c->active = true;
		p->nr_active++;
	}
	if (!p->nr_cons)
		return strobe_err(err, -EINVAL, "the pipeline has no consumer");
	if (p->wk && (r = go_workers(p, err)) < 0)
		return r;
	p->deadline = p->o.timeout_ms > 0 ? mono_ms() + p->o.timeout_ms : 0;
go_on:
	ret = loop(p, err);
	if (ret == STROBE_PIPELINE_YIELD) {
		p->paused = true;
		return ret;
	}
	if (p->wk) {	/* what is batched still goes to the consumers */
		r = strobe_workers_end(p->wk, ret < 0, err);
		if (ret >= 0 && r < 0)
			return r;
	}
	if (ret < 0)
		return ret;
	if (events_done(p) < 0)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (p->o.strict) {	/* damage the events showed: before any finish */
		r = strict_check(p, err);
		if (r < 0)
			return r;
	}
	for (i = 0; i < p->nr_cons; i++) {
		struct cons *c = &p->cons[i];

		if (!c->started || !c->c.finish)
			continue;
		r = c->c.finish(c->c.arg, err);
		if (r < 0)
			return err && !err->code ? strobe_err(err, r, "%s: %s",
							     c->c.name ? c->c.name : "consumer",
							     strerror(-r)) : r;
	}
	return ret;
}

/* ---- after the run ------------------------------------------------------------------ */

int strobe_pipeline_nr_sources(const struct strobe_pipeline *p)
{
	return p ? p->nr_srcs : 0;
}

const struct strobe_pipeline_source *strobe_pipeline_source(const struct strobe_pipeline *p,
							    int i)
{
	return p && i >= 0 && i < p->nr_srcs ? &p->pub[i] : NULL;
}

bool strobe_pipeline_wall(const struct strobe_pipeline *p)
{
	return p && p->merge && strobe_merge_wall(p->merge);
}

struct strobe_merge *strobe_pipeline_merge(const struct strobe_pipeline *p)
{
	return p ? p->merge : NULL;
}

void strobe_pipeline_stats(const struct strobe_pipeline *p, struct strobe_stream_stats *st)
{
	struct strobe_stream_stats one;
	int i, j;

	memset(st, 0, sizeof(*st));
	for (i = 0; p && i < p->nr_in; i++) {
		const struct input *in = &p->in[i];

		if (in->kind == IN_RECORDS) {
			st->events += in->records;
			continue;
		}
		for (j = 0; j < (in->kind == IN_MERGE ? strobe_merge_nr_sources(in->m) : 1); j++) {
			strobe_stream_stats(in->kind == IN_MERGE ? strobe_merge_stream(in->m, j)
						     : in->s, &one);
			st->events += one.events;
			st->missed += one.missed;
			st->missed_unknown += one.missed_unknown;
		}
	}
}

void strobe_pipeline_progress(const struct strobe_pipeline *p,
			      struct strobe_pipeline_progress *out)
{
	struct strobe_pipeline_progress pr = { sizeof(pr), 0, 0 };
	int i, j;

	if (!p)
		return;
	pr.bytes_total = p->bytes_total;
	for (i = 0; __atomic_load_n(&p->inputs_ready, __ATOMIC_ACQUIRE) && i < p->nr_in; i++) {
		const struct input *in = &p->in[i];

		if (in->kind == IN_STREAM)
			pr.bytes_done += strobe_stream_bytes(in->s);
		for (j = 0; in->kind == IN_MERGE && j < strobe_merge_nr_sources(in->m); j++)
			pr.bytes_done += strobe_stream_bytes(strobe_merge_stream(in->m, j));
	}
	if (pr.bytes_total && pr.bytes_done > pr.bytes_total)
		pr.bytes_done = pr.bytes_total;
	/* the caller's struct may be older (shorter) or newer than ours */
	{
		size_t n = out->size && out->size < sizeof(pr) ? out->size : sizeof(pr);

		memcpy((char *)out + sizeof(size_t), (char *)&pr + sizeof(size_t),
		       n - sizeof(size_t));
	}
}

int strobe_pipeline_nr_diags(const struct strobe_pipeline *p)
{
	int i, n = 0;

	for (i = 0; p && i < p->nr_srcs; i++)
		n += strobe_tracefile_nr_diags(p->pub[i].tf);
	return p ? n + p->nr_diags : 0;
}

const char *strobe_pipeline_diag(const struct strobe_pipeline *p, int idx,
				 enum strobe_tf_diag_kind *kind, int *source)
{
	int i, n;

	if (!p || idx < 0)
		return NULL;
	for (i = 0; i < p->nr_srcs; i++) {
		n = strobe_tracefile_nr_diags(p->pub[i].tf);
		if (idx < n) {
			if (source)
				*source = i;
			return strobe_tracefile_diag(p->pub[i].tf, idx, kind);
		}
		idx -= n;
	}
	if (idx >= p->nr_diags)
		return NULL;
	if (kind)
		*kind = p->diags[idx].kind;
	if (source)
		*source = p->diags[idx].source;
	return p->diags[idx].msg;
}

bool strobe_pipeline_damaged(const struct strobe_pipeline *p)
{
	enum strobe_tf_diag_kind k;
	int i;

	for (i = 0; i < strobe_pipeline_nr_diags(p); i++)
		if (strobe_pipeline_diag(p, i, &k, NULL) && strobe_tf_diag_is_damage(k))
			return true;
	return false;
}
