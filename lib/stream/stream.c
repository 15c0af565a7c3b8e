/*
 * stream.c - merging per-CPU ring-buffer page feeds into one stream of
 * events in timestamp order.
 *
 * How it works: every feed keeps one current page and the next record
 * decoded from it (its "head").  Feeds with a head sit in a binary
 * min-heap keyed on (head time, feed index), so equal times come out in
 * feed order and, within a feed, in page order.  strobe_stream_next()
 * hands out the top feed's head and leaves that feed on top; the next
 * call decodes the feed's following record and sifts the top down (one
 * sift instead of a pop and a push).  Pages are fetched, and feeds first
 * decoded, only when needed, so opening a stream reads nothing.
 *
 * The hot path is: inline page decoding, a sift-down over a small array
 * of (ts, index) pairs, and filling the event from precomputed common
 * field offsets.  The only indirect call is the feed's next_page, once
 * per page; there is no allocation per event (the format cache grows only
 * when a new event id appears).
 *
 * Live feeds (-EAGAIN from next_page) are "waiting": out of the heap, on
 * a short list that each call polls again.  The top of the heap is handed
 * out only when no waiting feed could still produce an earlier event:
 * every waiting feed's idle_until() must be at or past it.  File streams
 * never have waiting feeds, so their hot path is unchanged.
 *
 * Errors: a bad page (header or record) fails the call that meets it with
 * -EINVAL and "cpu N: bad ring-buffer page at offset X: ..."; that page
 * has then been consumed, so the next call goes on with the feed's next
 * page.  A feed whose next_page fails is ended (an I/O or decompression
 * error might repeat forever), and the stream goes on with the others.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include "page.h"
#include "format/format-int.h"
#include "stream-int.h"


/* One per-CPU feed and its decoding state. */
struct feed {
	struct strobe_page pg;		/* current page (len 0 when none) */
	struct strobe_page_rec rec;	/* head record, valid while in the heap */
	int64_t head_missed;		/* lost events reported for rec */
	int64_t missed_pending;		/* lost marks of pages with no event yet */
	uint64_t page_off;		/* source offset of the current page */
	struct strobe_page_feed src;
	int index;			/* position in the feeds array */
	bool done;			/* source exhausted or failed */
	bool waiting;			/* live: no page yet (-EAGAIN) */
};

struct heap_ent {
	uint64_t ts;
	int idx;
};

struct strobe_stream {
	struct feed *feeds;
	int nr_feeds;
	int primed;			/* feeds [0, primed) have been started */
	bool top_consumed;		/* heap[0]'s head was handed out */
	struct heap_ent *heap;
	int heap_n;
	unsigned page_size;
	unsigned commit_size;
	int64_t ts_offset;
	struct strobe_formats *fmts;
	/* Common field offsets, and the payload size needed to read them. */
	uint32_t type_off, type_end;
	uint32_t pid_off, pid_end;
	struct strobe_stream_stats stats;
	uint64_t bytes;			/* page bytes fetched (relaxed atomic:
					 * read by progress displays) */
	/* Live feeds without a page: indices into feeds, nr_waiting used. */
	int *waiting;
	int nr_waiting;
	/* At the last -EAGAIN: every event below this was handed out (the
	 * lowest idle watermark of the waiting feeds, or the held-back head's
	 * time); 0 before any. */
	uint64_t safe_ts;
	/* Records shorter than their format's fields reach: told to this
	 * hook (a file stream's: its file's diagnostics), may be NULL. */
	void (*short_hook)(void *ctx, const struct strobe_event *ev);
	void *short_ctx;
	/* Live streams: the owner's wake-up fd and clean-up (stream-int.h). */
	int wake_fd;
	void (*owner_close)(void *ctx);
	void *owner;
};


static inline bool ent_less(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->idx < b->idx);
}

static inline void heap_sift_down(struct heap_ent *h, int n, int i)
{
	struct heap_ent e = h[i];
	int c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ent_less(&h[c + 1], &h[c]))
			c++;
		if (!ent_less(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

static void heap_push(struct strobe_stream *s, uint64_t ts, int idx)
{
	struct heap_ent *h = s->heap;
	int i = s->heap_n++, parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!(ts < h[parent].ts || (ts == h[parent].ts && idx < h[parent].idx)))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i].ts = ts;
	h[i].idx = idx;
}

static int feed_bad_page(struct feed *f, struct strobe_error *err)
{
	f->pg.len = 0;
	f->pg.pos = 0;
	if (f->src.buffer)
		strobe_err_prefix(err, "buffer %d cpu %d: bad ring-buffer page at offset %llu",
				  f->src.buffer, f->src.cpu,
				  (unsigned long long)f->page_off);
	else
		strobe_err_prefix(err, "cpu %d: bad ring-buffer page at offset %llu",
				  f->src.cpu, (unsigned long long)f->page_off);
	return -EINVAL;
}

static inline void missed_add(int64_t *acc, int64_t m)
{
	if (m < 0 || *acc < 0)
		*acc = -1;
	else if (m > INT64_MAX - *acc)
		*acc = INT64_MAX;
	else
		*acc += m;
}

/*
 * Is an empty page (no commit, no lost-events mark) with timestamp 0 all
 * zeros?  The kernel stamps every page it hands out, so such a page is
 * damage (a zeroed block of the file), not a quiet moment: it is refused
 * like any bad page so that readers say so.  Only empty pages get here.
 */
static bool page_zeroed(const struct strobe_page *pg, const uint8_t *page, unsigned size)
{
	unsigned i;

	if (pg->len || pg->missed || pg->ts)
		return false;
	for (i = 0; i < size; i++)
		if (page[i])
			return false;
	return true;
}

/*
 * Load pages until one yields a record.  Returns 1 (head set), 0 (feed
 * ended) or -errno (bad page, consumed; or source error, feed ended).
 */
static int feed_refill(struct strobe_stream *s, struct feed *f,
		       struct strobe_error *err)
{
	const uint8_t *page;
	uint64_t off;
	int r;

	for (;;) {
		if (f->done)
			return 0;
		off = f->page_off;
		r = f->src.next_page(f->src.ctx, &page, &off, err);
		if (r == -EAGAIN)
			return -EAGAIN;	/* live: nothing yet, the feed stays */
		if (r <= 0) {
			f->done = true;
			f->pg.len = 0;
			f->pg.pos = 0;
			if (r < 0 && f->src.next_page != strobe_file_feed_next)
				strobe_err_prefix(err, "cpu %d", f->src.cpu);
			return r;
		}
		f->page_off = off;
		__atomic_store_n(&s->bytes, s->bytes + s->page_size, __ATOMIC_RELAXED);
		r = strobe_page_init(&f->pg, page, s->page_size, s->commit_size, err);
		if (r < 0)
			return feed_bad_page(f, err);
		if (__builtin_expect(!f->pg.len, 0) && page_zeroed(&f->pg, page, s->page_size)) {
			strobe_err(err, -EINVAL, "the page is all zeros");
			return feed_bad_page(f, err);
		}
		if (f->pg.missed) {
			if (f->pg.missed < 0)
				s->stats.missed_unknown++;
			else
				s->stats.missed += (uint64_t)f->pg.missed;
			missed_add(&f->missed_pending, f->pg.missed);
		}
		r = strobe_page_next_fast(&f->pg, &f->rec, err);
		if (r < 0)
			return feed_bad_page(f, err);
		if (r > 0) {
			f->head_missed = f->missed_pending;
			f->missed_pending = 0;
			return 1;
		}
	}
}

/* Decode the feed's next head: 1, 0 (ended) or -errno (see feed_refill). */
static inline int feed_advance(struct strobe_stream *s, struct feed *f,
			       struct strobe_error *err)
{
	int r = strobe_page_next_fast(&f->pg, &f->rec, err);

	if (__builtin_expect(r > 0, 1)) {
		f->head_missed = 0;
		return 1;
	}
	if (r < 0)
		return feed_bad_page(f, err);
	return feed_refill(s, f, err);
}

static void __attribute__((noinline, cold)) short_record(struct strobe_stream *s,
							  const struct strobe_event *ev)
{
	if (s->short_hook)
		s->short_hook(s->short_ctx, ev);
}

static inline void fill_event(struct strobe_stream *s, const struct feed *f,
			      struct strobe_event *ev)
{
	const struct strobe_format *fm;
	const uint8_t *d = f->rec.data;
	uint32_t size = f->rec.size;
	uint16_t t16;
	uint32_t p32;

	ev->ts = f->rec.ts + (uint64_t)s->ts_offset;
	ev->data = d;
	ev->size = size;
	ev->cpu = f->src.cpu;
	ev->buffer = f->src.buffer;
	ev->missed = f->head_missed;
	ev->file_offset = f->page_off + f->rec.offset;
	if (__builtin_expect(size >= s->type_end, 1)) {
		memcpy(&t16, d + s->type_off, 2);
		ev->type = le16toh(t16);
	} else {
		ev->type = -1;
	}
	if (__builtin_expect(size >= s->pid_end, 1)) {
		memcpy(&p32, d + s->pid_off, 4);
		ev->pid = (int32_t)le32toh(p32);
	} else {
		ev->pid = -1;
	}
	fm = strobe_formats_get(s->fmts, ev->type);
	ev->format = fm;
	/* a format whose fields reach past its records: a damaged format */
	if (__builtin_expect(fm && size < fm->reach, 0))
		short_record(s, ev);
}

/* Start feeds not yet started; a bad first page is retried next call. */
static int stream_prime(struct strobe_stream *s, struct strobe_error *err)
{
	struct feed *f;
	int r;

	while (s->primed < s->nr_feeds) {
		f = &s->feeds[s->primed];
		r = feed_refill(s, f, err);
		if (r == -EAGAIN) {
			s->primed++;
			f->waiting = true;
			s->waiting[s->nr_waiting++] = f->index;
			continue;
		}
		if (r < 0 && !f->done)
			return r;	/* bad page consumed: retry this feed */
		s->primed++;
		if (r > 0)
			heap_push(s, f->rec.ts, f->index);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Poll the waiting feeds again: those with a page go (back) into the heap.
 * Sets *limit to the lowest idle_until of the feeds still waiting
 * (UINT64_MAX if none).  Returns 0 or the first -errno met (bad page).
 */
static int poll_waiting(struct strobe_stream *s, uint64_t *limit,
			struct strobe_error *err)
{
	uint64_t lim = UINT64_MAX, t;
	int i = 0, r, ret = 0;
	struct feed *f;

	while (i < s->nr_waiting) {
		f = &s->feeds[s->waiting[i]];
		r = feed_refill(s, f, err);
		if (r == -EAGAIN) {
			t = f->src.idle_until ? f->src.idle_until(f->src.ctx) : 0;
			if (t < lim)
				lim = t;
			i++;
			continue;
		}
		if (r < 0 && !f->done) {
			/* bad page consumed: poll this feed again next call */
			if (!ret)
				ret = r;
			lim = 0;
			i++;
			continue;
		}
		f->waiting = false;
		s->waiting[i] = s->waiting[--s->nr_waiting];
		if (r > 0)
			heap_push(s, f->rec.ts, f->index);
		else if (r < 0 && !ret)
			ret = r;
	}
	*limit = lim;
	return ret;
}

int strobe_stream_next(struct strobe_stream *s, struct strobe_event *ev,
		       struct strobe_error *err)
{
	uint64_t limit;
	struct feed *f;
	int r;

	if (__builtin_expect(s->primed < s->nr_feeds, 0)) {
		r = stream_prime(s, err);
		if (r < 0)
			return r;
	}
	if (s->top_consumed) {
		f = &s->feeds[s->heap[0].idx];
		r = feed_advance(s, f, err);
		if (__builtin_expect(r > 0, 1)) {
			s->heap[0].ts = f->rec.ts;
			heap_sift_down(s->heap, s->heap_n, 0);
		} else if (r == 0 || r == -EAGAIN) {
			s->heap[0] = s->heap[--s->heap_n];
			if (s->heap_n)
				heap_sift_down(s->heap, s->heap_n, 0);
			if (r == -EAGAIN) {
				f->waiting = true;
				s->waiting[s->nr_waiting++] = f->index;
			}
		} else {
			return r;	/* the top is advanced again next call */
		}
		s->top_consumed = false;
	}
	if (__builtin_expect(s->nr_waiting > 0, 0)) {
		r = poll_waiting(s, &limit, err);
		if (r < 0)
			return r;
		if (s->nr_waiting && (!s->heap_n || s->heap[0].ts > limit)) {
			int i;

			/* Kick the waiting feeds only when they hold events
			 * back: with nothing to hand out, asking the readers
			 * again and again (each answer waking us) spins a CPU
			 * on an idle system; their periodic flush brings what
			 * comes. */
			for (i = 0; s->heap_n && i < s->nr_waiting; i++) {
				f = &s->feeds[s->waiting[i]];
				if (f->src.kick)
					f->src.kick(f->src.ctx);
			}
			if (s->heap_n && s->heap[0].ts && s->heap[0].ts - 1 < limit)
				limit = s->heap[0].ts - 1;
			if (limit != UINT64_MAX && limit > s->safe_ts)
				s->safe_ts = limit;
			return -EAGAIN;
		}
	}
	if (!s->heap_n)
		return 0;
	f = &s->feeds[s->heap[0].idx];
	fill_event(s, f, ev);
	s->top_consumed = true;
	s->stats.events++;
	return 1;
}

uint64_t strobe_stream_safe_ts(const struct strobe_stream *s)
{
	return s->safe_ts;
}

/* Offsets of common_type and common_pid from the formats, if any. */
static void resolve_common(struct strobe_stream *s)
{
	struct tep_handle *tep = strobe_formats_tep(s->fmts);
	struct tep_event *ev = tep ? tep_get_first_event(tep) : NULL;
	struct tep_format_field *fl;

	s->type_off = 0;
	s->pid_off = 4;
	if (ev) {
		fl = tep_find_common_field(ev, "common_type");
		if (fl && fl->size == 2 && fl->offset >= 0 && fl->offset < 4096)
			s->type_off = (uint32_t)fl->offset;
		fl = tep_find_common_field(ev, "common_pid");
		if (fl && fl->size == 4 && fl->offset >= 0 && fl->offset < 4096)
			s->pid_off = (uint32_t)fl->offset;
	}
	s->type_end = s->type_off + 2;
	s->pid_end = s->pid_off + 4;
}

int strobe_stream_open_feeds(struct strobe_page_feed *feeds, int nr_feeds,
			     unsigned page_size, unsigned commit_size,
			     struct strobe_formats *formats, int64_t ts_offset,
			     struct strobe_stream **out, struct strobe_error *err)
{
	struct strobe_stream *s = NULL;
	int i, r;

	*out = NULL;
	if (nr_feeds < 0 || (nr_feeds && !feeds)) {
		r = strobe_err(err, -EINVAL, "bad feed list");
		goto fail;
	}
	for (i = 0; i < nr_feeds; i++) {
		if (!feeds[i].next_page) {
			r = strobe_err(err, -EINVAL, "feed %d has no page source", i);
			goto fail;
		}
	}
	if (commit_size != 4 && commit_size != 8) {
		r = strobe_err(err, -EINVAL, "bad ring-buffer commit size %u",
			       commit_size);
		goto fail;
	}
	if (page_size <= 8 + commit_size || page_size > STROBE_RB_COMMIT_MASK) {
		r = strobe_err(err, -EINVAL, "bad ring-buffer page size %u",
			       page_size);
		goto fail;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->feeds = calloc(nr_feeds ? nr_feeds : 1, sizeof(*s->feeds))) ||
	    !(s->heap = calloc(nr_feeds ? nr_feeds : 1, sizeof(*s->heap))) ||
	    !(s->waiting = calloc(nr_feeds ? nr_feeds : 1, sizeof(*s->waiting)))) {
		r = strobe_err(err, -ENOMEM, "out of memory opening the event stream");
		goto fail;
	}
	for (i = 0; i < nr_feeds; i++) {
		s->feeds[i].src = feeds[i];
		s->feeds[i].index = i;
	}
	s->nr_feeds = nr_feeds;
	s->page_size = page_size;
	s->commit_size = commit_size;
	s->ts_offset = ts_offset;
	s->fmts = formats;
	s->wake_fd = -1;
	resolve_common(s);
	*out = s;
	return 0;

fail:
	if (s) {
		free(s->feeds);
		free(s->heap);
		free(s->waiting);
		free(s);
	}
	for (i = 0; feeds && i < nr_feeds; i++)
		if (feeds[i].close)
			feeds[i].close(feeds[i].ctx);
	return r;
}

void strobe_stream_stats(const struct strobe_stream *s,
			 struct strobe_stream_stats *st)
{
	*st = s->stats;
}

void strobe_stream_set_owner(struct strobe_stream *s, int wake_fd,
			     void (*close_fn)(void *ctx), void *ctx)
{
	s->wake_fd = wake_fd;
	s->owner_close = close_fn;
	s->owner = ctx;
}

void strobe_stream_set_short_hook(struct strobe_stream *s,
				  void (*hook)(void *ctx, const struct strobe_event *ev),
				  void *ctx)
{
	s->short_hook = hook;
	s->short_ctx = ctx;
}

struct strobe_formats *strobe_stream_formats(const struct strobe_stream *s)
{
	return s ? s->fmts : NULL;
}

int strobe_stream_fd(const struct strobe_stream *s)
{
	return s->wake_fd;
}

int strobe_stream_wait(struct strobe_stream *s, int timeout_ms)
{
	struct pollfd p;
	uint64_t v;
	int r;

	if (s->wake_fd < 0)
		return 1;
	p.fd = s->wake_fd;
	p.events = POLLIN;
	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	/* an eventfd: reset it (pipes and others are drained by the owner) */
	if (read(s->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	return 1;
}

void strobe_stream_close(struct strobe_stream *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nr_feeds; i++)
		if (s->feeds[i].src.close)
			s->feeds[i].src.close(s->feeds[i].src.ctx);
	if (s->owner_close)
		s->owner_close(s->owner);
	free(s->feeds);
	free(s->heap);
	free(s->waiting);
	free(s);
}

int strobe_stream_set_hold(struct strobe_stream *s, const struct strobe_page_hold *hold)
{
	int i;

	for (i = 0; i < s->nr_feeds; i++)
		if (s->feeds[i].src.next_page != strobe_file_feed_next)
			return -ENOTSUP;
	for (i = 0; i < s->nr_feeds; i++)
		strobe_file_feed_hold(s->feeds[i].src.ctx, hold);
	return 0;
}

uint64_t strobe_stream_bytes(const struct strobe_stream *s)
{
	return s ? __atomic_load_n(&s->bytes, __ATOMIC_RELAXED) : 0;
}
