/*
 * merge.c - several trace files (of several hosts) on one timeline.
 *
 * Each file keeps its own stream (its own formats, CPUs, buffers); the
 * merge hands out the event with the lowest timeline timestamp of the
 * files' next events (ties: the lower source index), so events come in
 * time order across files as the stream orders them across CPUs.
 *
 * The timeline is wall-clock time when every file carries strobe
 * record's clock pairings ("clock_sync_start", "clock_sync_end": a trace
 * clock reading and CLOCK_REALTIME at the same moment, see
 * strobe_session_clock_sync): an event at trace time t gets t plus the
 * file's offset (realtime - trace), interpolated linearly between the two
 * pairings when both exist (the trace clock and the wall clock run at
 * slightly different rates), the nearer one outside them.  When a file
 * has no pairing (older strobe, trace-cmd), every file keeps its raw
 * timestamps and strobe_merge_wall() says so: ordering then only means
 * something for files whose clocks agree (the "mono" clock of one boot).
 *
 * The handed-out event's data points into its file's stream, so a
 * source's next event is read only when the merge is asked for the next
 * one (lazy refill), keeping the previous event valid until then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>
#include "../util/err.h"
#include "../util/opts.h"

struct merge_src {
	struct strobe_tracefile *tf;	/* borrowed */
	struct strobe_stream *s;
	char host[256];
	int64_t ts_offset;		/* the file's OFFSET option (in the stream's ts) */
	struct strobe_clock_sync sync[2];	/* start, end */
	int nr_sync;			/* 0, 1 (start or end only), 2 */
	struct strobe_event head;	/* next event, mapped ts */
	uint64_t head_raw;		/* its ts before mapping */
	int state;			/* HEAD_*, below */
};

enum { HEAD_EMPTY, HEAD_READY, HEAD_END };

struct strobe_merge {
	struct merge_src *src;
	int n;
	bool wall;			/* every source has a pairing: wall clock */
	uint64_t last_raw;		/* the last event handed out: its ts
					 * in its own stream's clock */
};

static void load_sync(struct merge_src *ms)
{
	static const char *const keys[2] = { "clock_sync_start", "clock_sync_end" };
	int i;

	ms->nr_sync = 0;
	for (i = 0; i < 2; i++)
		if (strobe_clock_sync_parse(strobe_tracefile_info(ms->tf, keys[i]),
					    &ms->sync[ms->nr_sync]) == 0)
			ms->nr_sync++;
	/* two pairings must be in order to interpolate; else keep the first */
	if (ms->nr_sync == 2 && ms->sync[1].trace_ns <= ms->sync[0].trace_ns)
		ms->nr_sync = 1;
}

static int64_t sync_offset(const struct strobe_clock_sync *cs)
{
	return cs->realtime_ns - (int64_t)cs->trace_ns;
}

/* The file's wall-clock offset at raw trace time t. */
static int64_t offset_at(const struct merge_src *ms, uint64_t t)
{
	const struct strobe_clock_sync *a = &ms->sync[0], *b = &ms->sync[1];
	int64_t oa = sync_offset(a), ob;

	if (ms->nr_sync < 2 || t <= a->trace_ns)
		return oa;
	ob = sync_offset(b);
	if (t >= b->trace_ns)
		return ob;
	return oa + (int64_t)((__int128)(ob - oa) * (__int128)(t - a->trace_ns) /
			      (__int128)(b->trace_ns - a->trace_ns));
}

static uint64_t map_ts(const struct strobe_merge *m, const struct merge_src *ms, uint64_t ts)
{
	uint64_t raw = ts - (uint64_t)ms->ts_offset;

	if (!m->wall)
		return ts;
	return (uint64_t)((int64_t)raw + offset_at(ms, raw));
}

int strobe_merge_open(struct strobe_tracefile *const *tfs, int nr,
		      const struct strobe_stream_opts *opts, const struct strobe_merge_opts *mopts,
		      struct strobe_merge **out, struct strobe_error *err)
{
	struct strobe_merge_opts mo;
	struct strobe_merge *m;
	int i, j, r;

	*out = NULL;
	strobe_opts_copy(&mo, sizeof(mo), mopts);
	if (nr <= 0 || !tfs)
		return strobe_err(err, -EINVAL, "no trace files to merge");
	m = calloc(1, sizeof(*m));
	if (m)
		m->src = calloc((size_t)nr, sizeof(*m->src));
	if (!m || !m->src) {
		free(m);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	m->n = nr;
	m->wall = !mo.raw;
	for (i = 0; i < nr; i++) {
		struct merge_src *ms = &m->src[i];
		char buf[256];
		const char *h;
		int dup = 0;

		ms->tf = tfs[i];
		r = strobe_stream_open_file(ms->tf, opts, &ms->s, err);
		if (r < 0) {
			strobe_merge_close(m);
			return r;
		}
		ms->ts_offset = strobe_tracefile_ts_offset(ms->tf);
		load_sync(ms);
		if (!ms->nr_sync)
			m->wall = false;
		h = strobe_tracefile_host(ms->tf, buf, sizeof(buf));
		snprintf(ms->host, sizeof(ms->host), "%s", h && h[0] ? h : "?");
		/* two files of one host name stay apart: "web", "web#2" */
		for (j = 0; j < i; j++)
			if (!strcmp(m->src[j].host, ms->host))
				dup = 1;
		if (dup) {
			size_t len = strnlen(ms->host, sizeof(ms->host) - 16);

			snprintf(ms->host + len, sizeof(ms->host) - len, "#%d", i + 1);
		}
	}
	*out = m;
	return 0;
}

int strobe_merge_next(struct strobe_merge *m, struct strobe_event *ev, int *source,
		      struct strobe_error *err)
{
	int i, best = -1, r;

	for (i = 0; i < m->n; i++) {
		struct merge_src *ms = &m->src[i];

		if (ms->state == HEAD_EMPTY) {
			r = strobe_stream_next(ms->s, &ms->head, err);
			if (r < 0) {
				if (source)
					*source = i;
				return r;	/* the stream skips the bad page next time */
			}
			if (r == 0) {
				ms->state = HEAD_END;
				continue;
			}
			ms->head_raw = ms->head.ts;
			ms->head.ts = map_ts(m, ms, ms->head.ts);
			ms->state = HEAD_READY;
		}
		if (ms->state == HEAD_READY && (best < 0 || ms->head.ts < m->src[best].head.ts))
			best = i;
	}
	if (best < 0)
		return 0;
	*ev = m->src[best].head;
	m->last_raw = m->src[best].head_raw;
	m->src[best].state = HEAD_EMPTY;
	if (source)
		*source = best;
	return 1;
}

int strobe_merge_nr_sources(const struct strobe_merge *m)
{
	return m->n;
}

const char *strobe_merge_host(const struct strobe_merge *m, int source)
{
	return source >= 0 && source < m->n ? m->src[source].host : NULL;
}

struct strobe_stream *strobe_merge_stream(const struct strobe_merge *m, int source)
{
	return source >= 0 && source < m->n ? m->src[source].s : NULL;
}

uint64_t strobe_merge_last_raw(const struct strobe_merge *m)
{
	return m->last_raw;
}

uint64_t strobe_merge_map_ts(const struct strobe_merge *m, int source, uint64_t ts)
{
	if (source < 0 || source >= m->n)
		return ts;
	return map_ts(m, &m->src[source], ts);
}

bool strobe_merge_wall(const struct strobe_merge *m)
{
	return m->wall;
}

int strobe_merge_clock(const struct strobe_merge *m, int source, struct strobe_merge_clock *out)
{
	const struct merge_src *ms;

	memset(out, 0, sizeof(*out));
	if (source < 0 || source >= m->n)
		return -EINVAL;
	ms = &m->src[source];
	out->nr_sync = ms->nr_sync;
	out->file_ts_offset = ms->ts_offset;
	if (!ms->nr_sync)
		return 0;
	out->offset_ns = sync_offset(&ms->sync[0]);
	out->start_trace_ns = ms->sync[0].trace_ns;
	out->error_ns = ms->sync[0].error_ns;
	if (ms->nr_sync == 2) {
		int64_t d = sync_offset(&ms->sync[1]) - out->offset_ns;

		out->drift_ns = d;
		if (ms->sync[1].error_ns > out->error_ns)
			out->error_ns = ms->sync[1].error_ns;
		out->span_ns = ms->sync[1].trace_ns - ms->sync[0].trace_ns;
	}
	return 0;
}

void strobe_merge_close(struct strobe_merge *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; m->src && i < m->n; i++)
		strobe_stream_close(m->src[i].s);
	free(m->src);
	free(m);
}
