/*
 * workers.c - the pipeline's worker threads (workers.h): --jobs.
 *
 * Why this shape: the driver's work is reading and merging the files
 * (about a third of an analysis run), the task model and the consumers
 * (the rest).  The driver's thread keeps the first part and everything
 * that decides how the run goes (stop conditions, the damage policy,
 * diagnostics); the consumers move to worker threads.  Each worker owns
 * a share of the consumers and a task model per source, updated from
 * every event before its consumers see it, so each consumer sees every
 * event, every tick and the model state in exactly the order it does
 * with one thread: the results are the same by construction, with no
 * merging of partial results and no lock on any consumer's state.
 *
 * How it works: events are copied (struct strobe_event and its payload,
 * into a byte arena; the format pointers are shared, read-only) into
 * batches of up to BATCH_EVENTS events or BATCH_BYTES bytes.  A ring of
 * NR_BATCHES batches is the queue: the driver fills ring[seq % NR], then
 * publishes it (seq++); every worker goes through every batch in order
 * and counts it down; the driver reuses a batch once every worker is
 * done with it, so memory stays bounded and a slow worker holds the
 * driver back rather than letting batches pile up.  One mutex and two
 * condition variables serve the ring: they are taken once a batch.
 *
 * Consumers go to workers by cost (the heaviest first, each to the
 * least loaded worker); within a worker they keep the calling order.  A
 * consumer that fails (or answers YIELD, which a parallel run cannot
 * honour) stops its worker's share; the driver sees the flag, stops the
 * rest and reports the failure of the earliest event.
 *
 * A consumer with parts (strobe_consumer.part_new: one whose work on an
 * event needs nothing of the events before it but the task model, as a
 * report's) runs on every worker instead: worker k's part takes batches
 * k, k + nr, ... (every worker still updates its models from every
 * event), and after each of its batches it waits for its turn, the
 * batch before having been flushed by its part, to flush what it made
 * (turn: the batches flushed so far).  So the parts format side by side
 * and their output comes out in the order of the batches, which is the
 * events' order.  The first part to answer DONE ends them all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>

#include "workers.h"
#include "../stream/stream-int.h"
#include "../tracefile/tracefile-int.h"
#include "../util/err.h"
#include "../util/thread.h"

#define BATCH_EVENTS 1024
#define BATCH_BYTES (256u << 10)
#define NR_BATCHES 16
/* a thread that waits for the ring sleeps until half of it is ready: one
 * wake-up per NR_BATCHES / 2 batches, not one per batch, which on a
 * loaded machine costs a scheduling delay each */
#define HALF (NR_BATCHES / 2)

struct item {
	struct strobe_event ev;	/* ev.data: in the file's page (held), or the
				 * payload's offset in the arena until the
				 * batch is published */
	uint64_t raw;		/* ts in its source's own clock */
	int src;		/* -1: a tick at ev.ts */
};

struct batch {
	struct item *it;
	int n;
	uint8_t *arena;
	size_t len, cap;
	/* workers still to go through it (atomic): on a cache line of its
	 * own, since the workers write it while the driver fills the next */
	int pending __attribute__((aligned(64)));
};

/* A consumer as a worker runs it. */
struct wcons {
	int ci;			/* its index */
	void *arg;		/* its arg, or its part's (part_new's) */
	bool part;		/* one of its parts: this worker's batches only */
	bool made;		/* arg is a part this worker made (part_free) */
	bool started;		/* the consumer started: flushed in turn */
	bool active;		/* started, not done, not failed */
};

struct worker {
	struct strobe_workers *w;
	int index;
	pthread_t th;
	bool running;
	struct wcons *cons;	/* calling order */
	int nr_cons, nr_active;
	int nr_parts;		/* of cons: parts */
	bool has_models;	/* a source has a task model to update */
	uint64_t load;
	struct strobe_pipeline_source *srcs;	/* index 0: the caller's */
	bool own_models;
	/* its failure: at batch seq, item idx */
	int code;
	struct strobe_error err;
	uint64_t fail_seq;
	int fail_idx;
};

struct strobe_workers {
	const struct strobe_consumer **cons;	/* the pointers copied */
	int nr_cons;
	int *owner;		/* per consumer: its worker (parts: 0, whose
				 * part is the consumer's own arg) */
	bool *parted;		/* per consumer: runs as parts */
	int nr_parted;
	uint64_t *parts_done;	/* per consumer (atomic): 1 + the batch in which
				 * a part answered DONE (0: none); no batch
				 * after it is flushed */
	uint64_t turn __attribute__((aligned(64)));	/* batches flushed by their
				 * parts (atomic) */
	pthread_cond_t turned;	/* signalled under mu when turn moves */
	int nr_srcs;
	struct worker *wk;
	int nr_wk;
	bool go;
	/* the driver's alone, on a line of its own: the batch being filled
	 * (NULL: none) */
	struct batch *cur __attribute__((aligned(64)));
	/* the rest is shared */
	pthread_mutex_t mu __attribute__((aligned(64)));
	pthread_cond_t more, room;
	struct batch ring[NR_BATCHES];
	/* produced, completed, room_at and more_at are atomic (sequentially
	 * consistent: a thread going to sleep stores its *_at, then looks at
	 * the counter again under mu; the other side moves the counter, then
	 * looks at *_at and takes mu to wake it) */
	uint64_t produced __attribute__((aligned(64)));	/* batches published */
	uint64_t more_at;	/* a worker waits until produced >= this (0: none) */
	uint64_t completed __attribute__((aligned(64)));	/* batches every worker went
				 * through: each below it is done */
	uint64_t room_at;	/* the driver waits until completed >= this (0: not) */
	bool end, abort;	/* under mu */
	int nr_active;		/* consumers not done (atomic) */
	int failed;		/* a worker failed (atomic) */
	/* held: the file's pages stay valid until the batch an event went
	 * into is done (hold.taken: produced; hold.released: completed), so
	 * items point into them; else payloads are copied into the arena */
	bool held;
	struct strobe_page_hold hold;
};

/* ---- the workers ------------------------------------------------------ */

static void fail(struct worker *k, uint64_t seq, int idx, int code, const char *name)
{
	if (!k->err.code)
		strobe_err(&k->err, code, "%s failed: %s", name ? name : "a consumer",
			   strerror(-code));
	k->code = code;
	k->fail_seq = seq;
	k->fail_idx = idx;
	k->nr_active = 0;
	__atomic_store_n(&k->w->failed, 1, __ATOMIC_RELEASE);
}

/* This worker stops running wc (done, or its parts are). */
static void retire(struct worker *k, struct wcons *wc)
{
	if (wc->active) {
		wc->active = false;
		k->nr_active--;
	}
}

/* A part of consumer ci answered DONE in batch seq: parts_done is the
 * earliest such batch.  True the first time. */
static bool mark_done(struct strobe_workers *w, int ci, uint64_t seq)
{
	uint64_t cur = __atomic_load_n(&w->parts_done[ci], __ATOMIC_ACQUIRE);

	while (!cur || seq + 1 < cur)
		if (__atomic_compare_exchange_n(&w->parts_done[ci], &cur, seq + 1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return !cur;
	return false;
}

/* What a consumer's hook answered, for item idx of batch seq. */
static void answer(struct worker *k, struct wcons *wc, int r, uint64_t seq, int idx)
{
	struct strobe_workers *w = k->w;
	const char *name = w->cons[wc->ci]->name;

	if (r == STROBE_CONSUMER_DONE) {
		retire(k, wc);
		/* a consumer with parts is done once, whichever part says so
		 * first; its batch is the earliest one a part said so in (a
		 * part ahead may say so first of a later batch) */
		if (!wc->part || mark_done(w, wc->ci, seq))
			__atomic_fetch_sub(&w->nr_active, 1, __ATOMIC_RELEASE);
		return;
	}
	if (r == STROBE_CONSUMER_YIELD) {
		strobe_err(&k->err, -EINVAL, "%s paused the run, which only a run on one "
			   "thread (jobs 1) can do", name ? name : "a consumer");
		fail(k, seq, idx, -EINVAL, name);
	} else if (r < 0) {
		fail(k, seq, idx, r, name);
	} else {
		return;
	}
	/* the other parts flush nothing after a failing one, as one thread
	 * would have stopped there (the run fails) */
	if (wc->part)
		mark_done(w, wc->ci, seq);
}

/* Batch seq comes after the one in which a part of wc's consumer
 * answered DONE: nothing of it is wanted. */
static bool after_done(const struct worker *k, const struct wcons *wc, uint64_t seq)
{
	uint64_t done = __atomic_load_n(&k->w->parts_done[wc->ci], __ATOMIC_ACQUIRE);

	return done && seq >= done;
}

/* Parts whose consumer another part found done before batch seq: this
 * worker's are done too. */
static void parts_done(struct worker *k, uint64_t seq)
{
	int j;

	for (j = 0; j < k->nr_cons; j++)
		if (k->cons[j].part && k->cons[j].active && after_done(k, &k->cons[j], seq))
			retire(k, &k->cons[j]);
}

static void run_batch(struct worker *k, const struct batch *b, uint64_t seq)
{
	struct strobe_workers *w = k->w;
	bool mine = seq % (uint64_t)w->nr_wk == (uint64_t)k->index;
	struct strobe_event own;
	int i, j, r;

	if (k->nr_parts) {
		parts_done(k, seq);
		/* another part's batch, and no model to keep up: nothing here */
		if (!mine && k->nr_parts == k->nr_cons && !k->has_models)
			return;
	}
	for (i = 0; i < b->n && k->nr_active > 0; i++) {
		const struct item *it = &b->it[i];

		if (it->src < 0) {
			for (j = 0; j < k->nr_cons && k->nr_active > 0; j++) {
				struct wcons *wc = &k->cons[j];
				const struct strobe_consumer *c = w->cons[wc->ci];

				if (!wc->active || wc->part || !c->tick)
					continue;
				r = c->tick(it->ev.ts, wc->arg, &k->err);
				if (r < 0) {
					if (!k->err.code)
						strobe_err(&k->err, r, "%s: %s",
							   c->name ? c->name : "consumer",
							   strerror(-r));
					fail(k, seq, i, r, c->name);
				}
			}
			continue;
		}
		if (k->srcs[it->src].model)
			strobe_model_update(k->srcs[it->src].model, &it->ev);
		for (j = 0; j < k->nr_cons && k->nr_active > 0; j++) {
			struct wcons *wc = &k->cons[j];
			const struct strobe_consumer *c = w->cons[wc->ci];

			if (!wc->active || (wc->part && !mine))
				continue;
			if ((c->flags & STROBE_CONSUMER_SOURCE_TIME) && it->raw != it->ev.ts) {
				own = it->ev;
				own.ts = it->raw;
				r = c->event(&own, it->src, wc->arg, &k->err);
			} else {
				r = c->event(&it->ev, it->src, wc->arg, &k->err);
			}
			if (__builtin_expect(r != 0, 0))
				answer(k, wc, r, seq, i);
		}
	}
}

/* Spin this long (pause instructions: tens of microseconds) for the other
 * side before sleeping on a condition variable: a batch takes about as
 * long to fill as to go through, and a sleep and wake-up costs a context
 * switch each (slow on a virtual machine). */
#define SPINS 2000

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Wait until batch next is published: true, or false when the run ends
 * without it (or aborts). */
static bool wait_batch(struct strobe_workers *w, uint64_t next)
{
	uint64_t want = next + HALF;
	bool ok;
	int i;

	for (i = 0; i < SPINS; i++) {
		if (__atomic_load_n(&w->produced, __ATOMIC_ACQUIRE) > next)
			return true;
		relax();
	}
	pthread_mutex_lock(&w->mu);
	for (;;) {
		uint64_t at = __atomic_load_n(&w->more_at, __ATOMIC_SEQ_CST);

		if (!at || at > want)
			__atomic_store_n(&w->more_at, want, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&w->produced, __ATOMIC_SEQ_CST) > next || w->end || w->abort)
			break;
		pthread_cond_wait(&w->more, &w->mu);
	}
	ok = !w->abort && __atomic_load_n(&w->produced, __ATOMIC_SEQ_CST) > next;
	pthread_mutex_unlock(&w->mu);
	return ok;
}

/* Batch seq is done by this worker. */
static void done_batch(struct strobe_workers *w, struct batch *b)
{
	uint64_t c, at;

	if (__atomic_sub_fetch(&b->pending, 1, __ATOMIC_SEQ_CST) > 0)
		return;
	c = __atomic_add_fetch(&w->completed, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->hold.released, c, __ATOMIC_RELEASE);
	at = __atomic_load_n(&w->room_at, __ATOMIC_SEQ_CST);
	if (at && c >= at) {
		pthread_mutex_lock(&w->mu);
		at = __atomic_load_n(&w->room_at, __ATOMIC_SEQ_CST);
		if (at && __atomic_load_n(&w->completed, __ATOMIC_SEQ_CST) >= at) {
			__atomic_store_n(&w->room_at, 0, __ATOMIC_SEQ_CST);
			pthread_cond_signal(&w->room);
		}
		pthread_mutex_unlock(&w->mu);
	}
}

/* Wait until the batches before seq are flushed: false when the run
 * aborts meanwhile. */
static bool wait_turn(struct strobe_workers *w, uint64_t seq)
{
	bool ok;
	int i;

	for (i = 0; i < SPINS; i++) {
		if (__atomic_load_n(&w->turn, __ATOMIC_ACQUIRE) >= seq)
			return true;
		relax();
	}
	pthread_mutex_lock(&w->mu);
	while (__atomic_load_n(&w->turn, __ATOMIC_ACQUIRE) < seq && !w->abort)
		pthread_cond_wait(&w->turned, &w->mu);
	ok = !w->abort;
	pthread_mutex_unlock(&w->mu);
	return ok;
}

/* Batch seq (n items) is this worker's: its parts flush what they made
 * of it, in turn.  The turn moves on also when they are done or failed. */
static void flush_parts(struct worker *k, uint64_t seq, int n)
{
	struct strobe_workers *w = k->w;
	int j, r;

	if (!wait_turn(w, seq))
		return;
	for (j = 0; j < k->nr_cons; j++) {
		struct wcons *wc = &k->cons[j];
		bool keep;

		if (!wc->part || !wc->started)
			continue;
		/* what a part made of the batch it answered DONE in is kept, as
		 * one thread has the events before; nothing after it */
		keep = !after_done(k, wc, seq);
		if (!keep)
			retire(k, wc);
		r = w->cons[wc->ci]->part_flush(wc->arg, keep, &k->err);
		if (r && keep)
			answer(k, wc, r, seq, n);
	}
	pthread_mutex_lock(&w->mu);
	__atomic_store_n(&w->turn, seq + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&w->turned);
	pthread_mutex_unlock(&w->mu);
}

static void *worker_main(void *arg)
{
	struct worker *k = arg;
	struct strobe_workers *w = k->w;
	uint64_t next = 0;
	struct batch *b;

	while (wait_batch(w, next)) {
		b = &w->ring[next % NR_BATCHES];
		if (k->nr_active > 0)
			run_batch(k, b, next);
		if (k->nr_parts && next % (uint64_t)w->nr_wk == (uint64_t)k->index)
			flush_parts(k, next, b->n);
		done_batch(w, b);
		next++;
	}
	return NULL;
}

/* ---- building ---------------------------------------------------------- */

static int copy_models(struct worker *k, const struct strobe_pipeline_source *srcs,
		       int nr, struct strobe_error *err)
{
	int i, r;

	k->own_models = true;
	for (i = 0; i < nr; i++) {
		k->srcs[i].model = NULL;
		if (!srcs[i].model)
			continue;
		r = strobe_model_new(&k->srcs[i].model, err);
		if (r < 0)
			return r;
		if (srcs[i].tf && (r = strobe_model_load_file(k->srcs[i].model, srcs[i].tf, err)) < 0)
			return r;
	}
	return 0;
}

int strobe_workers_new(struct strobe_workers **out, int jobs,
		       const struct strobe_consumer *const *cons, int nr_cons,
		       const struct strobe_pipeline_source *srcs, int nr_srcs,
		       bool need_model, struct strobe_error *err)
{
	struct strobe_workers *w = calloc(1, sizeof(*w));
	int *order = NULL;
	int i, j, r = -ENOMEM;

	*out = NULL;
	if (!w)
		return strobe_err(err, -ENOMEM, "out of memory");
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->room, NULL);
	pthread_cond_init(&w->turned, NULL);
	w->cons = calloc((size_t)nr_cons + 1, sizeof(*w->cons));
	w->parted = calloc((size_t)nr_cons + 1, sizeof(*w->parted));
	w->parts_done = calloc((size_t)nr_cons + 1, sizeof(*w->parts_done));
	if (!w->cons || !w->parted || !w->parts_done)
		goto fail;
	memcpy(w->cons, cons, (size_t)nr_cons * sizeof(*cons));
	w->nr_cons = nr_cons;
	w->nr_srcs = nr_srcs;
	/* parts: a consumer whose events need nothing of the ones before
	 * (part hooks) and no ticks */
	for (i = 0; i < nr_cons; i++) {
		w->parted[i] = jobs > 1 && cons[i]->part_new && cons[i]->part_flush &&
			cons[i]->part_free && !cons[i]->tick;
		w->nr_parted += w->parted[i];
	}
	/* with parts, as many threads as jobs, the calling thread's reading
	 * included: the parts' work spreads over the rest */
	w->nr_wk = w->nr_parted ? jobs - 1 : jobs < nr_cons ? jobs : nr_cons;
	if (w->nr_wk < 1)
		w->nr_wk = 1;
	/* a part on another worker needs that worker's own models */
	for (i = 0; w->nr_parted && i < nr_srcs; i++)
		need_model |= srcs[i].model != NULL;
	w->wk = calloc((size_t)w->nr_wk, sizeof(*w->wk));
	w->owner = calloc((size_t)nr_cons + 1, sizeof(*w->owner));
	order = calloc((size_t)nr_cons + 1, sizeof(*order));
	if (!w->wk || !w->owner || !order)
		goto fail;
	for (i = 0; i < NR_BATCHES; i++) {
		w->ring[i].it = malloc(BATCH_EVENTS * sizeof(*w->ring[i].it));
		if (!w->ring[i].it)
			goto fail;
	}
	/* the heaviest consumer first (stable), each to the least loaded worker */
	for (i = 0; i < nr_cons; i++) {
		unsigned ci = cons[i]->cost ? cons[i]->cost : 1;

		for (j = i; j > 0; j--) {
			unsigned cj = cons[order[j - 1]]->cost ? cons[order[j - 1]]->cost : 1;

			if (cj >= ci)
				break;
			order[j] = order[j - 1];
		}
		order[j] = i;
	}
	for (i = 0; i < nr_cons; i++) {
		int best = 0;

		if (w->parted[order[i]])
			continue;	/* on every worker, its arg on the first */
		for (j = 1; j < w->nr_wk; j++)
			if (w->wk[j].load < w->wk[best].load)
				best = j;
		w->owner[order[i]] = best;
		w->wk[best].load += cons[order[i]]->cost ? cons[order[i]]->cost : 1;
	}
	for (j = 0; j < w->nr_wk; j++) {
		struct worker *k = &w->wk[j];

		k->w = w;
		k->index = j;
		k->cons = calloc((size_t)nr_cons, sizeof(*k->cons));
		k->srcs = malloc((size_t)(nr_srcs > 0 ? nr_srcs : 1) * sizeof(*k->srcs));
		if (!k->cons || !k->srcs)
			goto fail;
		for (i = 0; i < nr_cons; i++) {
			if (!w->parted[i] && w->owner[i] != j)
				continue;
			k->cons[k->nr_cons].ci = i;
			k->cons[k->nr_cons].arg = cons[i]->arg;
			k->cons[k->nr_cons].part = w->parted[i];
			k->nr_parts += w->parted[i];
			k->nr_cons++;
		}
		memcpy(k->srcs, srcs, (size_t)nr_srcs * sizeof(*srcs));
		for (i = 0; i < nr_srcs; i++)
			k->has_models |= srcs[i].model != NULL;
		if (j > 0 && need_model && (r = copy_models(k, srcs, nr_srcs, err)) < 0)
			goto fail;
	}
	free(order);
	*out = w;
	return 0;
fail:
	free(order);
	strobe_workers_free(w);
	return r == -ENOMEM && (!err || !err->code) ? strobe_err(err, -ENOMEM, "out of memory")
						    : r;
}

int strobe_workers_hold(struct strobe_workers *w, struct strobe_stream *s)
{
	if (w->go)
		return -EBUSY;
	if (strobe_stream_set_hold(s, &w->hold) < 0)
		return 0;
	w->held = true;
	return 1;
}

const struct strobe_pipeline_source *strobe_workers_sources(const struct strobe_workers *w,
							    int i)
{
	return w->wk[w->owner[i]].srcs;
}

int strobe_workers_nr(const struct strobe_workers *w)
{
	return w && w->go ? w->nr_wk : 0;
}

int strobe_workers_go(struct strobe_workers *w, const bool *active, struct strobe_error *err)
{
	int i, j, r;

	w->nr_active = 0;
	for (i = 0; i < w->nr_cons; i++)
		w->nr_active += active[i];
	for (j = 0; j < w->nr_wk; j++) {
		struct worker *k = &w->wk[j];

		for (i = 0; i < k->nr_cons; i++) {
			struct wcons *wc = &k->cons[i];
			const struct strobe_consumer *c = w->cons[wc->ci];

			wc->active = wc->started = active[wc->ci];
			if (wc->active && wc->part && j > 0) {
				wc->arg = c->part_new(c->arg, j, w->nr_wk, k->srcs, w->nr_srcs, err);
				if (!wc->arg) {
					if (err && !err->code)
						strobe_err(err, -ENOMEM, "%s: out of memory",
							   c->name ? c->name : "consumer");
					return err ? err->code : -ENOMEM;
				}
				wc->made = true;
			}
			k->nr_active += wc->active;
		}
	}
	w->go = true;
	for (j = 0; j < w->nr_wk; j++) {
		r = strobe_thread_start(&w->wk[j].th, worker_main, &w->wk[j]);
		if (r) {
			strobe_workers_end(w, true, NULL);
			return strobe_err(err, -r, "cannot start a worker thread: %s", strerror(r));
		}
		w->wk[j].running = true;
	}
	return 0;
}

/* ---- the driver's side -------------------------------------------------- */

static void publish(struct strobe_workers *w)
{
	struct batch *b = w->cur;
	uint64_t p, at;
	int i;

	if (!w->held)
		for (i = 0; i < b->n; i++)
			if (b->it[i].src >= 0)
				b->it[i].ev.data = b->arena + (uintptr_t)b->it[i].ev.data;
	w->cur = NULL;
	__atomic_store_n(&b->pending, w->nr_wk, __ATOMIC_RELAXED);
	p = __atomic_add_fetch(&w->produced, 1, __ATOMIC_SEQ_CST);
	w->hold.taken = p;	/* read by this thread only */
	at = __atomic_load_n(&w->more_at, __ATOMIC_SEQ_CST);
	if (at && p >= at) {
		pthread_mutex_lock(&w->mu);
		at = __atomic_load_n(&w->more_at, __ATOMIC_SEQ_CST);
		if (at && p >= at) {
			__atomic_store_n(&w->more_at, 0, __ATOMIC_SEQ_CST);
			pthread_cond_broadcast(&w->more);
		}
		pthread_mutex_unlock(&w->mu);
	}
}

/* Sleep until completed >= want (or a worker failed). */
static void wait_room(struct strobe_workers *w, uint64_t want)
{
	pthread_mutex_lock(&w->mu);
	for (;;) {
		__atomic_store_n(&w->room_at, want, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&w->completed, __ATOMIC_SEQ_CST) >= want ||
		    __atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
			break;
		pthread_cond_wait(&w->room, &w->mu);
	}
	__atomic_store_n(&w->room_at, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&w->mu);
}

static void stop(struct strobe_workers *w, bool abort);

/*
 * The earliest failure, into *err.  The workers first go through what
 * was handed to them (the other consumers' events cost little), so that
 * a failure at an earlier event on a worker that lags behind is found:
 * the run fails at the same event whichever thread was quicker.
 */
static int failure(struct strobe_workers *w, struct strobe_error *err)
{
	struct worker *best = NULL;
	int j;

	stop(w, false);
	for (j = 0; j < w->nr_wk; j++) {
		struct worker *k = &w->wk[j];

		if (k->code && (!best || k->fail_seq < best->fail_seq ||
				(k->fail_seq == best->fail_seq && k->fail_idx < best->fail_idx)))
			best = k;
	}
	if (!best)
		return strobe_err(err, -EIO, "a worker thread failed");
	if (err)
		*err = best->err;
	return best->code;
}

/* The next batch to fill, once the workers are done with it; NULL when
 * a worker failed meanwhile. */
static struct batch *take(struct strobe_workers *w)
{
	uint64_t p = __atomic_load_n(&w->produced, __ATOMIC_RELAXED);
	struct batch *b = &w->ring[p % NR_BATCHES];
	int i;

	for (i = 0; i < SPINS && __atomic_load_n(&b->pending, __ATOMIC_ACQUIRE) > 0; i++)
		relax();
	/* sleep until half the ring is free, not just this batch */
	if (__atomic_load_n(&b->pending, __ATOMIC_ACQUIRE) > 0)
		wait_room(w, p - HALF);
	if (__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
		return NULL;
	b->n = 0;
	b->len = 0;
	w->cur = b;
	return b;
}

/* The batch being filled (taken from the ring when none is), or NULL. */
static inline struct batch *filling(struct strobe_workers *w)
{
	if (__builtin_expect(w->cur != NULL, 1))
		return w->cur;
	return take(w);
}

/* Copy ev's payload into b's arena: the item's data is its offset there
 * until the batch is published. */
static int copy_payload(struct batch *b, struct item *it, const struct strobe_event *ev,
			struct strobe_error *err)
{
	size_t need = ((size_t)ev->size + 15) & ~(size_t)7;	/* 8 spare bytes, aligned */
	uint8_t *to;

	if (__builtin_expect(b->len + need > b->cap, 0)) {
		size_t cap = b->cap ? b->cap : BATCH_BYTES;
		uint8_t *a;

		while (cap < b->len + need)
			cap *= 2;
		a = realloc(b->arena, cap);
		if (!a)
			return strobe_err(err, -ENOMEM, "out of memory");
		b->arena = a;
		b->cap = cap;
	}
	it->ev.data = (const void *)(uintptr_t)b->len;
	to = b->arena + b->len;
	memcpy(to, ev->data, ev->size);
	/* the 8 to 15 bytes after the payload read as zeros: a field read
	 * of 8 bytes at its end stays inside the arena */
	memset(to + ev->size, 0, 8);
	memset(to + need - 8, 0, 8);
	b->len += need;
	return 0;
}

/* Publish the batch being filled; the failure when a worker failed. */
static __attribute__((noinline)) int publish_checked(struct strobe_workers *w,
						     struct strobe_error *err)
{
	publish(w);
	if (__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
		return failure(w, err);
	return 0;
}

/* Everything but the common case (a batch is being filled and the items
 * point into the file's held pages): a ring slot to take, a payload to
 * copy.  Out of line, so that the common case saves no registers. */
static __attribute__((noinline)) int event_slow(struct strobe_workers *w,
						const struct strobe_event *ev, int src,
						uint64_t raw, struct strobe_error *err)
{
	struct batch *b = filling(w);
	struct item *it;

	if (__builtin_expect(!b, 0))
		return failure(w, err);
	it = &b->it[b->n];
	it->ev = *ev;
	it->raw = raw;
	it->src = src;
	if (!w->held && copy_payload(b, it, ev, err) < 0)
		return -ENOMEM;
	b->n++;
	if (b->n == BATCH_EVENTS || b->len >= BATCH_BYTES)
		return publish_checked(w, err);
	return 0;
}

int strobe_workers_event(struct strobe_workers *w, const struct strobe_event *ev, int src,
			 uint64_t raw, struct strobe_error *err)
{
	struct batch *b = w->cur;
	struct item *it;

	if (__builtin_expect(!b || !w->held, 0))
		return event_slow(w, ev, src, raw, err);
	it = &b->it[b->n];
	it->ev = *ev;
	it->raw = raw;
	it->src = src;
	if (__builtin_expect(++b->n == BATCH_EVENTS, 0))
		return publish_checked(w, err);
	return 0;
}

int strobe_workers_tick(struct strobe_workers *w, uint64_t ts, struct strobe_error *err)
{
	struct batch *b = filling(w);
	struct item *it;

	if (!b)
		return failure(w, err);
	it = &b->it[b->n++];
	memset(it, 0, sizeof(*it));
	it->ev.ts = ts;
	it->src = -1;
	if (b->n == BATCH_EVENTS)
		publish(w);
	return 0;
}

int strobe_workers_sync(struct strobe_workers *w, struct strobe_error *err)
{
	uint64_t p;

	if (w->cur)
		publish(w);
	p = __atomic_load_n(&w->produced, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&w->mu);	/* a worker waits for half a ring: wake it */
	if (__atomic_load_n(&w->more_at, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&w->more_at, 0, __ATOMIC_SEQ_CST);
		pthread_cond_broadcast(&w->more);
	}
	pthread_mutex_unlock(&w->mu);
	wait_room(w, p);
	if (__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
		return failure(w, err);
	return strobe_workers_active(w);
}

int strobe_workers_active(const struct strobe_workers *w)
{
	return __atomic_load_n(&w->nr_active, __ATOMIC_ACQUIRE);
}

/* End the threads: after what was handed out, or at once (abort). */
static void stop(struct strobe_workers *w, bool abort)
{
	int j;

	if (!abort && w->cur)
		publish(w);
	pthread_mutex_lock(&w->mu);
	w->end = true;
	w->abort |= abort;
	pthread_cond_broadcast(&w->more);
	pthread_cond_broadcast(&w->turned);
	pthread_mutex_unlock(&w->mu);
	for (j = 0; j < w->nr_wk; j++)
		if (w->wk[j].running) {
			pthread_join(w->wk[j].th, NULL);
			w->wk[j].running = false;
		}
}

int strobe_workers_end(struct strobe_workers *w, bool abort, struct strobe_error *err)
{
	if (!w)
		return 0;
	stop(w, abort);
	if (!abort && __atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
		return failure(w, err);
	return 0;
}

void strobe_workers_free(struct strobe_workers *w)
{
	int i, j;

	if (!w)
		return;
	strobe_workers_end(w, true, NULL);
	for (j = 0; w->wk && j < w->nr_wk; j++) {
		struct worker *k = &w->wk[j];

		for (i = 0; k->cons && i < k->nr_cons; i++)
			if (k->cons[i].made)
				w->cons[k->cons[i].ci]->part_free(k->cons[i].arg);
		for (i = 0; k->own_models && k->srcs && i < w->nr_srcs; i++)
			strobe_model_free(k->srcs[i].model);
		free(k->srcs);
		free(k->cons);
	}
	for (i = 0; i < NR_BATCHES; i++) {
		free(w->ring[i].it);
		free(w->ring[i].arena);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->more);
	pthread_cond_destroy(&w->room);
	pthread_cond_destroy(&w->turned);
	free(w->wk);
	free(w->cons);
	free(w->parted);
	free(w->parts_done);
	free(w->owner);
	free(w);
}
