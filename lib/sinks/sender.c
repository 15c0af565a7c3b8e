/*
 * sender.c - the one sender of batches (sender.h): delivering them
 * without ever holding up the thread that makes them (a live
 * recording's): a queue in memory, a sender thread, and a bounded spool
 * file for what the server could not take yet.  The ClickHouse sink
 * (ch-sender.c) and the OTLP exporter (otlp.c) are its two users; what
 * differs between them is struct strobe_sender_ops.
 *
 * How it works:
 *
 *  - strobe_sender_send (the producer) copies a batch into the memory
 *    queue; when the queue holds mem_max bytes it appends the batch to
 *    the spool itself (a local disk write, never a network wait); when
 *    the spool is full too, the batch is dropped and counted.
 *  - The thread delivers the spool's oldest record first, else the
 *    queue's head, compressing it first when the ops say so.  A failure
 *    sets the next attempt backoff seconds ahead (0.5 s doubling to
 *    30 s), or the server's Retry-After when it gave one; while it waits
 *    the thread moves the memory queue into the spool (compressed), so
 *    memory stays small however long the outage.
 *  - Two locks: mu for the queue, the counters and the thread's state;
 *    smu for the spool's offsets and appends.  mu may be held while
 *    taking smu, never the reverse.  A record at the spool's head is
 *    complete (appends finish under smu before `end` moves) and only
 *    the thread reads or removes it, so it reads it without a lock.
 *  - Close: an immediate last attempt, attempts until the deadline,
 *    then the memory queue goes to the spool; a request still running
 *    at the deadline (plus a second) is aborted through the ops'
 *    abort flag.  A spool left with records is kept and named.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <zlib.h>

#include <strobe/strobe.h>

#include "sinks/sender.h"
#include "sinks/sinks-int.h"
#include "util/err.h"
#include "util/thread.h"

#define SPOOL_MAGIC_V1	"strobe-ch-spool1"	/* 16 bytes, no NUL in the file */
#define SPOOL_NAME	"strobe-spool"		/* 12 bytes, then version and kind */
#define SPOOL_VERSION	2
#define HDR_SIZE	32
#define REC_MAGIC	0x52435353u
#define REC_FIXED	28
#define F_GZIP		1
#define DEF_SPOOL_MAX	(1ULL << 30)
#define DEF_MEM_MAX	(64ULL << 20)

double strobe_sender_backoff(double prev, double min, double max)
{
	double next = prev <= 0 ? min : prev * 2;

	return next > max ? max : next;
}

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = pwrite(fd, b, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int pread_all(int fd, void *p, size_t n, uint64_t off)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = pread(fd, b, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EBADMSG;	/* short: truncated */
		b += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* ---- batches ------------------------------------------------------- */

struct batch {
	struct batch *next;
	size_t cap;		/* bytes data[] has room for */
	bool pooled;		/* may go back to the sender's pool when done */
	char table[64];
	uint64_t rows;
	size_t len;		/* bytes of data */
	size_t raw_len;		/* RowBinary bytes before compression */
	bool gz;		/* data is gzip */
	uint8_t data[];
};

/* b's data gzip-compressed (as the client does, strobe_ch_gzip), in a
 * new batch; NULL when out of memory. */
static struct batch *batch_gzip(const struct batch *b)
{
	struct batch *z;
	uint8_t *data;
	size_t len;

	if (strobe_ch_gzip(b->data, b->len, &data, &len) < 0)
		return NULL;
	z = malloc(sizeof(*z) + len);
	if (!z) {
		free(data);
		return NULL;
	}
	*z = *b;
	z->next = NULL;
	z->cap = len;
	z->pooled = false;
	memcpy(z->data, data, len);
	z->len = len;
	z->gz = true;
	free(data);
	return z;
}

/* gunzip data into *out (malloc'd, *out_len bytes).  0, -ENOMEM or
 * -EBADMSG. */
static int gunzip(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len)
{
	size_t cap = len * 4 + 4096;
	uint8_t *p = malloc(cap), *np;
	z_stream zs;
	int rc;

	if (!p)
		return -ENOMEM;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(p);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	for (;;) {
		zs.next_out = p + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		rc = inflate(&zs, Z_FINISH);
		if (rc == Z_STREAM_END)
			break;
		if ((rc != Z_BUF_ERROR && rc != Z_OK) || zs.avail_in == 0) {
			inflateEnd(&zs);
			free(p);
			return -EBADMSG;
		}
		np = realloc(p, cap * 2);
		if (!np) {
			inflateEnd(&zs);
			free(p);
			return -ENOMEM;
		}
		p = np;
		cap *= 2;
	}
	*out = p;
	*out_len = zs.total_out;
	inflateEnd(&zs);
	return 0;
}

/* ---- the spool file -------------------------------------------------- */

struct spool {
	char *want;		/* the path asked for */
	char path[4096];	/* the file created, "" none yet */
	int fd;			/* -1: none */
	uint64_t head, end;	/* first undelivered record, end of the records */
	uint64_t recs;		/* records in [head, end) */
	uint64_t rows[2];	/* their rows: events, other tables */
	uint64_t max;
	bool no_punch;		/* delivered space cannot be released */
	int werr;		/* the last write error, 0 none */
	enum strobe_spool_kind kind;	/* written in the header */
	int (*klass)(const char *table);	/* NULL: every record class 0 */
};

static int klass_of(int (*klass)(const char *), const char *table)
{
	return klass && klass(table) ? 1 : 0;
}

static uint64_t spool_used(const struct spool *sp)
{
	return sp->fd < 0 ? 0 : sp->end - (sp->no_punch ? HDR_SIZE : sp->head);
}

static int spool_set_head(struct spool *sp)
{
	uint8_t h[8];

	put_le(h, sp->head, 8);
	return pwrite_all(sp->fd, h, 8, 16);
}

static int spool_create(struct spool *sp)
{
	uint8_t h[HDR_SIZE] = { 0 };
	int i, fd = -1, ret;

	for (i = 0; i < 100 && fd < 0; i++) {
		if (i)
			snprintf(sp->path, sizeof(sp->path), "%s.%d", sp->want, i);
		else
			snprintf(sp->path, sizeof(sp->path), "%s", sp->want);
		fd = open(sp->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = -errno;
		sp->path[0] = '\0';
		return ret;
	}
	memcpy(h, SPOOL_NAME, 12);
	put_le(h + 12, SPOOL_VERSION, 2);
	put_le(h + 14, sp->kind, 2);
	put_le(h + 16, HDR_SIZE, 8);
	ret = pwrite_all(fd, h, sizeof(h), 0);
	if (ret < 0) {
		close(fd);
		unlink(sp->path);
		sp->path[0] = '\0';
		return ret;
	}
	sp->fd = fd;
	sp->head = sp->end = HDR_SIZE;
	return 0;
}

/* Append a record; -ENOSPC when the bound would be passed, -errno when
 * the file cannot be written (nothing is appended then).  Under smu. */
static int spool_append(struct spool *sp, const char *table, uint64_t rows, bool gz,
			const void *data, size_t len)
{
	size_t tlen = strlen(table);
	uint64_t size = REC_FIXED + tlen + len;
	uint8_t h[REC_FIXED] = { 0 };
	struct iovec iov[3];
	ssize_t w;
	int ret;

	if (spool_used(sp) + size > sp->max)
		return -ENOSPC;
	if (sp->fd < 0) {
		ret = spool_create(sp);
		if (ret < 0)
			return sp->werr = ret;
	}
	put_le(h, REC_MAGIC, 4);
	h[4] = gz ? F_GZIP : 0;
	h[5] = (uint8_t)tlen;
	put_le(h + 8, crc32(crc32(0L, Z_NULL, 0), data, (uInt)len), 4);
	put_le(h + 12, rows, 8);
	put_le(h + 20, len, 8);
	iov[0] = (struct iovec){ h, sizeof(h) };
	iov[1] = (struct iovec){ (void *)(uintptr_t)table, tlen };
	iov[2] = (struct iovec){ (void *)(uintptr_t)data, len };
	w = pwritev(sp->fd, iov, 3, (off_t)sp->end);
	if (w != (ssize_t)size) {	/* failed or short (a full disk): undo */
		ret = w < 0 ? -errno : -ENOSPC;
		if (ftruncate(sp->fd, (off_t)sp->end) < 0) {
			/* the record stays invisible all the same: end did not move */
		}
		return sp->werr = ret;
	}
	sp->end += size;
	sp->recs++;
	sp->rows[klass_of(sp->klass, table)] += rows;
	return 0;
}

/* Read the record at the head into *out (a batch), its size in the file
 * into *size, its rows into *nrows and its class into *agg (also for a
 * damaged body).  -EBADMSG: damaged (*size 0 when
 * even its header is), -ENOMEM. */
static int spool_read(const struct spool *sp, struct batch **out, uint64_t *size,
		      uint64_t *nrows, int *agg)
{
	uint8_t h[REC_FIXED];
	char table[64];
	struct batch *b;
	uint64_t len, rows;
	int ret, tlen;

	*out = NULL;
	*size = 0;
	ret = pread_all(sp->fd, h, sizeof(h), sp->head);
	if (ret < 0)
		return ret;
	if (get_le(h, 4) != REC_MAGIC)
		return -EBADMSG;
	tlen = h[5];
	rows = get_le(h + 12, 8);
	len = get_le(h + 20, 8);
	if (sp->head + REC_FIXED + tlen + len > sp->end || tlen == 0 || tlen >= 64)
		return -EBADMSG;
	ret = pread_all(sp->fd, table, (size_t)tlen, sp->head + REC_FIXED);
	if (ret < 0)
		return ret;
	table[tlen] = '\0';
	*size = REC_FIXED + (uint64_t)tlen + len;
	*nrows = rows;
	*agg = klass_of(sp->klass, table);
	b = malloc(sizeof(*b) + len);
	if (!b)
		return -ENOMEM;
	ret = pread_all(sp->fd, b->data, len, sp->head + REC_FIXED + (uint64_t)tlen);
	if (ret < 0 || crc32(crc32(0L, Z_NULL, 0), b->data, (uInt)len) != get_le(h + 8, 4)) {
		free(b);
		return ret < 0 ? ret : -EBADMSG;
	}
	b->next = NULL;
	b->cap = len;
	b->pooled = false;
	memcpy(b->table, table, sizeof(b->table));
	b->rows = rows;
	b->len = b->raw_len = len;
	b->gz = h[4] & F_GZIP;
	*out = b;
	return 0;
}

/* The head record (size bytes, rows of class agg) is gone: delivered or
 * dropped.  Under smu. */
static void spool_pop(struct spool *sp, uint64_t size, int agg, uint64_t rows)
{
	uint64_t old = sp->head;

	sp->head += size;
	if (sp->head > sp->end)
		sp->head = sp->end;
	if (sp->recs)
		sp->recs--;
	sp->rows[agg] -= rows;
	if (!sp->recs || sp->head >= sp->end) {
		sp->recs = 0;
		sp->rows[0] = sp->rows[1] = 0;
		if (ftruncate(sp->fd, HDR_SIZE) == 0)
			sp->head = sp->end = HDR_SIZE;
		spool_set_head(sp);
		return;
	}
	spool_set_head(sp);
	if (!sp->no_punch && fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				       (off_t)old, (off_t)(sp->head - old)) < 0)
		sp->no_punch = true;
}

/* ---- the sender ---------------------------------------------------- */

struct strobe_sender {
	const struct strobe_sender_ops *ops;
	void *arg;		/* the ops' */
	pthread_t thread;
	bool started, joined;
	pthread_mutex_t mu, smu;
	pthread_cond_t cv;
	struct batch *qhead, **qtail;	/* the memory queue (mu) */
	struct batch *pool;		/* batches done with, for reuse (mu) */
	int npool;
	uint64_t qbytes, mem_max;
	struct spool sp;		/* (smu) */
	double bmin, bmax, backoff, next_try;	/* (mu) */
	double ramax;		/* a Retry-After is cut to this */
	bool closing;
	double deadline;
	volatile int abort_req;		/* curl: give up the running request */
	volatile sig_atomic_t *stop;	/* opts.stop */
	struct strobe_sender_stats st;	/* (mu) */
};

static void lock(pthread_mutex_t *m) { pthread_mutex_lock(m); }
static void unlock(pthread_mutex_t *m) { pthread_mutex_unlock(m); }

/*
 * The producer's copies come from a small pool of batches done with:
 * a batch of megabytes freshly malloc'd is fresh mmap'd memory, and
 * faulting its pages in cost the producer more than the copy itself.
 */
#define POOL_MAX	2
#define POOL_ROUND	(1u << 20)

static struct batch *take(struct strobe_sender *s, const char *table, const void *data,
			  size_t len, uint64_t rows)
{
	struct batch *b, **pp;
	size_t cap;

	lock(&s->mu);
	for (pp = &s->pool; (b = *pp) && b->cap < len; pp = &b->next)
		;
	if (b) {
		*pp = b->next;
		s->npool--;
	}
	unlock(&s->mu);
	if (!b) {
		cap = (len + POOL_ROUND - 1) / POOL_ROUND * POOL_ROUND;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->pooled = true;
	}
	b->next = NULL;
	snprintf(b->table, sizeof(b->table), "%s", table);
	b->rows = rows;
	b->len = b->raw_len = len;
	b->gz = false;
	if (len)
		memcpy(b->data, data, len);
	return b;
}

/* Done with b (NULL ok): back to the pool, or freed.  With mu held when
 * locked. */
static void recycle(struct strobe_sender *s, struct batch *b, bool locked)
{
	if (!b)
		return;
	if (!b->pooled) {
		free(b);
		return;
	}
	if (!locked)
		lock(&s->mu);
	if (s->npool < POOL_MAX) {
		b->next = s->pool;
		s->pool = b;
		s->npool++;
		b = NULL;
	}
	if (!locked)
		unlock(&s->mu);
	free(b);
}

/* A batch of `rows` rows of table could not be spooled (ret): dropped.
 * Under mu. */
static void count_drop(struct strobe_sender *s, const char *table, uint64_t rows,
		       uint64_t bytes, int ret)
{
	int agg = klass_of(s->ops->klass, table);

	s->st.pending[agg] -= rows;
	s->st.dropped[agg] += rows;
	s->st.bytes_dropped += bytes;
	if (ret != -ENOSPC)
		snprintf(s->st.spool_error, sizeof(s->st.spool_error), "cannot write the spool "
			 "'%.200s': %s", s->sp.want, strerror(-ret));
}

/* Batch b, pending, into the spool (or dropped, counted); frees b.
 * Called without a lock. */
static void spill(struct strobe_sender *s, struct batch *b, bool compress)
{
	struct batch *z = compress && !b->gz ? batch_gzip(b) : NULL;
	const struct batch *w = z ? z : b;
	int agg = klass_of(s->ops->klass, b->table);
	int ret;

	lock(&s->smu);
	ret = spool_append(&s->sp, w->table, w->rows, w->gz, w->data, w->len);
	unlock(&s->smu);
	lock(&s->mu);
	if (ret == 0)
		s->st.spooled[agg] += b->rows;
	else
		count_drop(s, b->table, b->rows, b->raw_len, ret);
	unlock(&s->mu);
	free(z);
	recycle(s, b, false);
}

/* One delivery attempt of b (compressing it first when the client
 * gzips); mu is not held.  0 or -errno with e set. */
static int deliver(struct strobe_sender *s, struct batch **bp, long cap_ms,
		   double *retry_after, struct strobe_error *e)
{
	struct batch *b = *bp;

	if (!b->gz && s->ops->gzips && s->ops->gzips(s->arg)) {
		struct batch *z = batch_gzip(b);

		if (z) {
			recycle(s, b, false);
			*bp = b = z;
		}
	}
	return s->ops->deliver(s->arg, b->table, b->data, b->len, b->gz, b->rows, cap_ms,
			       retry_after, e);
}

static void *run(void *arg)
{
	struct strobe_sender *s = arg;
	struct strobe_error e;
	struct batch *b;
	uint64_t recsize, recs;
	struct spool snap = { .fd = -1 };	/* the spool's fd, head, end as of recs */
	bool from_spool;
	double now, ra;
	long cap;
	int ret;

	lock(&s->mu);
	for (;;) {
		lock(&s->smu);
		recs = s->sp.recs;
		snap.fd = s->sp.fd;
		snap.klass = s->sp.klass;
		snap.head = s->sp.head;
		snap.end = s->sp.end;
		unlock(&s->smu);
		if (!s->qhead && !recs) {
			if (s->closing)
				break;
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		now = mono();
		if (s->closing && now >= s->deadline)
			break;
		if (now < s->next_try) {
			double until = s->next_try;
			struct timespec ts;

			if (s->qhead) {	/* while waiting: memory into the spool */
				b = s->qhead;
				s->qhead = b->next;
				if (!s->qhead)
					s->qtail = &s->qhead;
				s->qbytes -= b->len;
				unlock(&s->mu);
				spill(s, b, true);
				lock(&s->mu);
				continue;
			}
			if (s->closing && s->deadline < until)
				until = s->deadline;
			clock_gettime(CLOCK_REALTIME, &ts);
			until = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + (until - now);
			ts.tv_sec = (time_t)until;
			ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
			continue;
		}
		/* an attempt: the spool's oldest record first */
		from_spool = recs > 0;
		b = NULL;
		recsize = 0;
		if (!from_spool) {
			b = s->qhead;
			s->qhead = b->next;
			if (!s->qhead)
				s->qtail = &s->qhead;
			s->qbytes -= b->len;
		}
		cap = s->closing ? (long)((s->deadline - now) * 1000) + 1 : 0;
		unlock(&s->mu);
		e.code = 0;
		e.msg[0] = '\0';
		if (from_spool) {
			uint64_t nrows = 0, r[2];
			int agg = 0;

			ret = spool_read(&snap, &b, &recsize, &nrows, &agg);
			if (ret < 0) {	/* damaged: drop it (or, headless, the rest) */
				lock(&s->smu);
				r[0] = s->sp.rows[0];
				r[1] = s->sp.rows[1];
				if (recsize)
					spool_pop(&s->sp, recsize, agg, nrows);
				else
					spool_pop(&s->sp, s->sp.end - s->sp.head, false, 0);
				r[0] -= s->sp.rows[0];
				r[1] -= s->sp.rows[1];
				unlock(&s->smu);
				lock(&s->mu);
				s->st.pending[0] -= r[0];
				s->st.pending[1] -= r[1];
				s->st.dropped[0] += r[0];
				s->st.dropped[1] += r[1];
				snprintf(s->st.last_error, sizeof(s->st.last_error),
					 "spool '%.200s': a damaged record was skipped", s->sp.path);
				continue;
			}
		}
		ra = 0;
		ret = deliver(s, &b, cap, &ra, &e);
		if (ret == 0) {
			int agg = klass_of(s->ops->klass, b->table);

			if (from_spool) {
				lock(&s->smu);
				spool_pop(&s->sp, recsize, agg, b->rows);
				unlock(&s->smu);
			}
			lock(&s->mu);
			s->st.pending[agg] -= b->rows;
			s->st.delivered[agg] += b->rows;
			s->st.batches_delivered++;
			s->backoff = 0;
			s->next_try = 0;
			recycle(s, b, true);
			continue;
		}
		if (from_spool)
			free(b);
		else
			spill(s, b, false);	/* already compressed by deliver() */
		lock(&s->mu);
		s->st.failures++;
		snprintf(s->st.last_error, sizeof(s->st.last_error), "%.*s",
			 (int)sizeof(s->st.last_error) - 1, e.msg);
		s->backoff = strobe_sender_backoff(s->backoff, s->bmin, s->bmax);
		if (ra > 0) {	/* the server said when: that, not our guess */
			s->st.retry_afters++;
			s->next_try = mono() + (ra < s->ramax ? ra : s->ramax);
		} else {
			s->next_try = mono() + s->backoff;
		}
	}
	/* closing: what is left in memory goes to the spool */
	while (s->qhead) {
		b = s->qhead;
		s->qhead = b->next;
		s->qbytes -= b->len;
		unlock(&s->mu);
		spill(s, b, true);
		lock(&s->mu);
	}
	s->qtail = &s->qhead;
	unlock(&s->mu);
	return NULL;
}

int strobe_sender_new(const struct strobe_sender_ops *ops, void *arg,
		      const struct strobe_sender_opts *opts, struct strobe_sender **out,
		      struct strobe_error *err)
{
	struct strobe_sender_opts none = { 0 };
	struct strobe_sender *s;
	char def[4096];
	const char *tmp;
	int ret;

	*out = NULL;
	if (!opts)
		opts = &none;
	s = calloc(1, sizeof(*s));
	if (!s)
		return strobe_err(err, -ENOMEM, "out of memory");
	s->ops = ops;
	s->arg = arg;
	s->qtail = &s->qhead;
	s->mem_max = opts->mem_max ? opts->mem_max : DEF_MEM_MAX;
	s->bmin = opts->backoff_min_s > 0 ? opts->backoff_min_s : 0.5;
	s->bmax = opts->backoff_max_s > 0 ? opts->backoff_max_s : 30;
	if (s->bmax < s->bmin)
		s->bmax = s->bmin;
	s->ramax = opts->retry_after_max_s > 0 ? opts->retry_after_max_s : 60;
	s->stop = opts->stop;
	s->sp.fd = -1;
	s->sp.kind = ops->kind;
	s->sp.klass = ops->klass;
	s->sp.max = opts->spool_max ? opts->spool_max : DEF_SPOOL_MAX;
	s->st.spool_max = s->sp.max;
	if (!opts->spool_path) {
		tmp = getenv("TMPDIR");
		snprintf(def, sizeof(def), "%s/strobe-%s-spool-%d",
			 tmp && *tmp ? tmp : "/tmp",
			 ops->kind == STROBE_SPOOL_CLICKHOUSE ? "ch" : ops->what, (int)getpid());
	}
	s->sp.want = strdup(opts->spool_path ? opts->spool_path : def);
	if (!s->sp.want) {
		free(s);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->smu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (ops->abort_flag)
		ops->abort_flag(arg, &s->abort_req);
	ret = strobe_thread_start(&s->thread, run, s);
	if (ret) {
		if (ops->abort_flag)
			ops->abort_flag(arg, NULL);
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		pthread_mutex_destroy(&s->smu);
		free(s->sp.want);
		free(s);
		return strobe_err(err, -ret, "%s: cannot start the sender thread: %s", ops->what,
				  strerror(ret));
	}
	s->started = true;
	*out = s;
	return 0;
}

int strobe_sender_send(struct strobe_sender *s, const char *table, const void *data, size_t len,
		       uint64_t rows, struct strobe_error *err)
{
	struct batch *b = NULL;
	bool room;
	int agg, ret;

	if (!rows)
		return 0;
	agg = klass_of(s->ops->klass, table);
	lock(&s->mu);
	if (s->closing) {
		unlock(&s->mu);
		return strobe_err(err, -EINVAL, "%s: the sender is closed", s->ops->what);
	}
	s->st.pending[agg] += rows;
	room = !s->qhead || s->qbytes + len <= s->mem_max;
	if (room)
		s->qbytes += len;	/* reserved */
	unlock(&s->mu);
	if (room)
		b = take(s, table, data, len, rows);
	lock(&s->mu);
	if (b) {
		*s->qtail = b;
		s->qtail = &b->next;
		pthread_cond_signal(&s->cv);
		unlock(&s->mu);
		return 0;
	}
	if (room)
		s->qbytes -= len;
	unlock(&s->mu);
	/* memory is full (or out): straight into the spool, as it is */
	lock(&s->smu);
	ret = spool_append(&s->sp, table, rows, false, data, len);
	unlock(&s->smu);
	lock(&s->mu);
	if (ret == 0) {
		s->st.spooled[agg] += rows;
		pthread_cond_signal(&s->cv);
	} else {
		count_drop(s, table, rows, len, ret);
	}
	unlock(&s->mu);
	return 0;
}

void strobe_sender_stats(struct strobe_sender *s, struct strobe_sender_stats *st)
{
	lock(&s->mu);
	*st = s->st;
	lock(&s->smu);
	st->spool_bytes = spool_used(&s->sp);
	snprintf(st->spool_path, sizeof(st->spool_path), "%s", s->sp.path);
	unlock(&s->smu);
	unlock(&s->mu);
}

/* "N rows" or, when class 1 was used (ClickHouse's aggregates), "N event
 * rows and M aggregate rows" of counts c, into buf. */
static const char *counts(const struct strobe_sender *s, const uint64_t c[2], bool two,
			  char *buf, size_t size)
{
	if (two)
		snprintf(buf, size, "%llu event %s and %llu aggregate %s",
			 (unsigned long long)c[0], s->ops->unit, (unsigned long long)c[1],
			 s->ops->unit);
	else
		snprintf(buf, size, "%llu %s", (unsigned long long)c[0], s->ops->unit);
	return buf;
}

int strobe_sender_close(struct strobe_sender *s, double timeout_s, struct strobe_sender_stats *st,
			struct strobe_error *err)
{
	struct strobe_sender_stats mine;
	uint64_t pend, drop;
	struct timespec ts;
	char what[128];
	bool two;

	if (!st)
		st = &mine;
	lock(&s->mu);
	if (!s->closing) {
		s->closing = true;
		s->deadline = mono() + (timeout_s > 0 ? timeout_s : 0);
		s->next_try = 0;	/* a last attempt at once */
		pthread_cond_broadcast(&s->cv);
	}
	unlock(&s->mu);
	if (s->started && !s->joined) {
		/* a request still running a second after the deadline is
		 * aborted; *stop set ends the attempts at once */
		double end = mono() + (timeout_s > 0 ? timeout_s : 0) + 1;
		bool stopped = false;

		for (;;) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (pthread_timedjoin_np(s->thread, NULL, &ts) == 0)
				break;
			if (!stopped && s->stop && *s->stop) {
				stopped = true;
				lock(&s->mu);
				s->deadline = 0;
				pthread_cond_broadcast(&s->cv);
				unlock(&s->mu);
				s->abort_req = 1;
			} else if (mono() > end) {
				s->abort_req = 1;
				pthread_join(s->thread, NULL);
				break;
			}
		}
		s->joined = true;
		if (s->ops->abort_flag)
			s->ops->abort_flag(s->arg, NULL);
	}
	lock(&s->smu);
	if (s->sp.fd >= 0) {
		if (!s->sp.recs) {
			close(s->sp.fd);
			unlink(s->sp.path);
			s->sp.fd = -1;
			s->sp.path[0] = '\0';
		} else {
			fdatasync(s->sp.fd);
		}
	}
	unlock(&s->smu);
	strobe_sender_stats(s, st);
	pend = st->pending[0] + st->pending[1];
	drop = st->dropped[0] + st->dropped[1];
	two = s->ops->klass != NULL;
	if (pend)
		return strobe_err(err, -ETIMEDOUT, "%s: %s not delivered (%s), kept in spool "
				  "'%s'%s", s->ops->what, counts(s, st->pending, two, what,
								  sizeof(what)),
				  st->last_error[0] ? st->last_error : "no attempt",
				  st->spool_path, drop ? "; more were dropped" : "");
	if (drop)
		return strobe_err(err, -ENOSPC, "%s: %s dropped: the spool (at most %llu bytes) "
				  "was full or could not be written%s%s", s->ops->what,
				  counts(s, st->dropped, two, what, sizeof(what)),
				  (unsigned long long)st->spool_max, st->spool_error[0] ? ": " : "",
				  st->spool_error);
	return 0;
}

void strobe_sender_free(struct strobe_sender *s)
{
	struct batch *b;

	if (!s)
		return;
	strobe_sender_close(s, 0, NULL, NULL);
	while ((b = s->qhead)) {
		s->qhead = b->next;
		free(b);
	}
	while ((b = s->pool)) {
		s->pool = b->next;
		free(b);
	}
	if (s->sp.fd >= 0)
		close(s->sp.fd);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->smu);
	free(s->sp.want);
	free(s);
}

/* ---- replaying a kept spool ------------------------------------------ */

/* The header h (HDR_SIZE bytes) of a spool: its kind, or 0 when it is
 * not a spool. */
static int header_kind(const uint8_t *h)
{
	if (!memcmp(h, SPOOL_MAGIC_V1, 16))
		return STROBE_SPOOL_CLICKHOUSE;
	if (memcmp(h, SPOOL_NAME, 12) || get_le(h + 12, 2) != SPOOL_VERSION)
		return 0;
	return (int)get_le(h + 14, 2);
}

int strobe_spool_kind(const char *path, enum strobe_spool_kind *kind)
{
	uint8_t h[HDR_SIZE];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, k;

	if (fd < 0)
		return -errno;
	ret = pread_all(fd, h, sizeof(h), 0);
	close(fd);
	if (ret < 0)
		return ret;
	k = header_kind(h);
	if (k != STROBE_SPOOL_CLICKHOUSE && k != STROBE_SPOOL_OTLP)
		return -EBADMSG;
	*kind = (enum strobe_spool_kind)k;
	return 0;
}

int strobe_spool_replay(const char *path, enum strobe_spool_kind kind, int (*klass)(const char *),
			strobe_spool_fn send, void *arg, uint64_t rows[2],
			struct strobe_error *err)
{
	struct spool sp = { .fd = -1, .klass = klass };
	uint8_t h[HDR_SIZE];
	struct stat sb;
	uint64_t dummy[2];
	int ret;

	if (!rows)
		rows = dummy;
	rows[0] = rows[1] = 0;
	sp.fd = open(path, O_RDWR | O_CLOEXEC);
	if (sp.fd < 0)
		return strobe_err(err, -errno, "cannot open spool '%s': %s", path, strerror(errno));
	if (fstat(sp.fd, &sb) < 0 || pread_all(sp.fd, h, sizeof(h), 0) < 0 ||
	    header_kind(h) != (int)kind) {
		close(sp.fd);
		return strobe_err(err, -EBADMSG, "'%s' is not a strobe %s spool file", path,
				  kind == STROBE_SPOOL_OTLP ? "OTLP" : "ClickHouse");
	}
	sp.head = get_le(h + 16, 8);
	sp.end = (uint64_t)sb.st_size;
	sp.no_punch = true;	/* a replay only moves the head */
	if (sp.head < HDR_SIZE)
		sp.head = sp.end + 1;	/* damaged: caught below */
	ret = 0;
	while (sp.head < sp.end) {
		struct batch *b;
		uint64_t size, nrows;
		uint8_t *raw = NULL;
		size_t rlen;
		int agg;

		ret = spool_read(&sp, &b, &size, &nrows, &agg);
		if (ret < 0) {
			ret = strobe_err(err, ret, "spool '%s': %s at offset %llu", path,
					 ret == -EBADMSG ? "a damaged record" : strerror(-ret),
					 (unsigned long long)sp.head);
			break;
		}
		if (b->gz) {
			ret = gunzip(b->data, b->len, &raw, &rlen);
			if (ret < 0) {
				free(b);
				ret = strobe_err(err, ret, "spool '%s': a damaged record at offset "
						 "%llu", path, (unsigned long long)sp.head);
				break;
			}
		}
		ret = send(arg, b->table, raw ? raw : b->data, raw ? rlen : b->len, b->rows, err);
		free(raw);
		if (ret < 0) {
			free(b);
			break;
		}
		rows[agg] += b->rows;
		free(b);
		sp.head += size;
		ret = spool_set_head(&sp);
		if (ret < 0) {
			ret = strobe_err(err, ret, "spool '%s': %s", path, strerror(-ret));
			break;
		}
	}
	if (sp.head > sp.end && !ret)
		ret = strobe_err(err, -EBADMSG, "spool '%s': a damaged header", path);
	close(sp.fd);
	if (!ret && unlink(path) < 0)
		ret = strobe_err(err, -errno, "cannot remove spool '%s': %s", path, strerror(errno));
	return ret;
}

/* ---- Retry-After ------------------------------------------------------ */

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* Days from 1970-01-01 to y-m-d (m 1..12), proleptic Gregorian. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

double strobe_retry_after_parse(const char *v, size_t len, double now_epoch)
{
	char buf[64], mon[4], wd[4], tz[4];
	unsigned long long secs = 0;
	int d, y, hh, mm, ss, n = 0, m;
	size_t i = 0;
	double t;

	while (len && (v[len - 1] == ' ' || v[len - 1] == '\t' || v[len - 1] == '\r' ||
		       v[len - 1] == '\n'))
		len--;
	while (i < len && (v[i] == ' ' || v[i] == '\t'))
		i++;
	v += i;
	len -= i;
	if (!len || len >= sizeof(buf))
		return -1;
	for (i = 0; i < len && v[i] >= '0' && v[i] <= '9'; i++) {
		if (secs > 100000000ULL)
			return -1;
		secs = secs * 10 + (unsigned)(v[i] - '0');
	}
	if (i == len)
		return (double)secs;	/* delay-seconds */
	/* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" */
	memcpy(buf, v, len);
	buf[len] = '\0';
	if (sscanf(buf, "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d %3[A-Z]%n", wd, &d, mon, &y,
		   &hh, &mm, &ss, tz, &n) != 8 || (size_t)n != len || strcmp(tz, "GMT"))
		return -1;
	for (m = 0; m < 12 && strcmp(mon, months[m]); m++)
		;
	if (m == 12 || d < 1 || d > 31 || y < 1970 || hh > 23 || mm > 59 || ss > 60)
		return -1;
	t = (double)(days_from_civil(y, (unsigned)m + 1, (unsigned)d) * 86400 + hh * 3600 +
		     mm * 60 + ss);
	return t > now_epoch ? t - now_epoch : 0;
}
