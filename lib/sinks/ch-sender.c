/*
 * ch-sender.c - delivering ClickHouse batches without ever holding up
 * the thread that makes them (a live recording's): a queue in memory, a
 * sender thread, and a bounded spool file for what the server could not
 * take yet.  Contracts and the spool's format: include/strobe/clickhouse.h
 * ("a sender that never holds up its producer").
 *
 * How it works:
 *
 *  - strobe_ch_sender_send (the producer) copies a batch into the memory
 *    queue; when the queue holds mem_max bytes it appends the batch to
 *    the spool itself (a local disk write, never a network wait); when
 *    the spool is full too, the batch is dropped and counted.
 *  - The thread delivers the spool's oldest record first, else the
 *    queue's head, compressing it first.  A failure re-arms the schema
 *    and sets the next attempt backoff seconds ahead (0.5 s doubling to
 *    30 s); while it waits the thread moves the memory queue into the
 *    spool (compressed), so memory stays small however long the outage.
 *  - Two locks: mu for the queue, the counters and the thread's state;
 *    smu for the spool's offsets and appends.  mu may be held while
 *    taking smu, never the reverse.  A record at the spool's head is
 *    complete (appends finish under smu before `end` moves) and only
 *    the thread reads or removes it, so it reads it without a lock.
 *  - Close: an immediate last attempt, attempts until the deadline,
 *    then the memory queue goes to the spool; a request still running
 *    at the deadline (plus a second) is aborted through curl's progress
 *    callback.  A spool left with records is kept and named.
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
#include <strobe/clickhouse.h>

#include "sinks/sinks-int.h"
#include "util/err.h"
#include "util/thread.h"

#define SPOOL_MAGIC	"strobe-ch-spool1"	/* 16 bytes, no NUL in the file */
#define HDR_SIZE	32
#define REC_MAGIC	0x52435353u
#define REC_FIXED	28
#define F_GZIP		1
#define DEF_SPOOL_MAX	(1ULL << 30)
#define DEF_MEM_MAX	(64ULL << 20)
#define IS_AGG(t)	(strcmp((t), "events") != 0)

double strobe_ch_backoff(double prev, double min, double max)
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
};

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
	memcpy(h, SPOOL_MAGIC, 16);
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
	sp->rows[IS_AGG(table)] += rows;
	return 0;
}

/* Read the record at the head into *out (a batch), its size in the file
 * into *size, its rows into *nrows and whether its table is not events
 * into *agg (also for a damaged body).  -EBADMSG: damaged (*size 0 when
 * even its header is), -ENOMEM. */
static int spool_read(const struct spool *sp, struct batch **out, uint64_t *size,
		      uint64_t *nrows, bool *agg)
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
	*agg = IS_AGG(table);
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

/* The head record (size bytes, rows of events or, agg, another table) is gone: delivered or
 * dropped.  Under smu. */
static void spool_pop(struct spool *sp, uint64_t size, bool agg, uint64_t rows)
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

struct strobe_ch_sender {
	struct strobe_clickhouse *ch;
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
	bool closing;
	double deadline;
	bool need_schema;		/* (the thread's) */
	volatile int abort_req;		/* curl: give up the running request */
	volatile sig_atomic_t *stop;	/* opts.stop */
	struct strobe_ch_sender_stats st;	/* (mu) */
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

static struct batch *take(struct strobe_ch_sender *s, const char *table, const void *data,
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
static void recycle(struct strobe_ch_sender *s, struct batch *b, bool locked)
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
static void count_drop(struct strobe_ch_sender *s, const char *table, uint64_t rows,
		       uint64_t bytes, int ret)
{
	bool agg = IS_AGG(table);

	*(agg ? &s->st.agg_rows_pending : &s->st.rows_pending) -= rows;
	*(agg ? &s->st.agg_rows_dropped : &s->st.rows_dropped) += rows;
	s->st.bytes_dropped += bytes;
	if (ret != -ENOSPC)
		snprintf(s->st.spool_error, sizeof(s->st.spool_error), "cannot write the spool "
			 "'%.200s': %s", s->sp.want, strerror(-ret));
}

/* Batch b, pending, into the spool (or dropped, counted); frees b.
 * Called without a lock. */
static void spill(struct strobe_ch_sender *s, struct batch *b, bool compress)
{
	struct batch *z = compress && !b->gz ? batch_gzip(b) : NULL;
	const struct batch *w = z ? z : b;
	bool agg = IS_AGG(b->table);
	int ret;

	lock(&s->smu);
	ret = spool_append(&s->sp, w->table, w->rows, w->gz, w->data, w->len);
	unlock(&s->smu);
	lock(&s->mu);
	if (ret == 0)
		*(agg ? &s->st.agg_rows_spooled : &s->st.rows_spooled) += b->rows;
	else
		count_drop(s, b->table, b->rows, b->raw_len, ret);
	unlock(&s->mu);
	free(z);
	recycle(s, b, false);
}

/* One delivery attempt of b (compressing it first when the client
 * gzips); mu is not held.  0 or -errno with e set. */
static int deliver(struct strobe_ch_sender *s, struct batch **bp, long cap_ms,
		   struct strobe_error *e)
{
	struct batch *b = *bp;
	int ret = 0;

	if (!b->gz && strobe_ch_gzips(s->ch)) {
		struct batch *z = batch_gzip(b);

		if (z) {
			recycle(s, b, false);
			*bp = b = z;
		}
	}
	strobe_ch_cap_ms(s->ch, cap_ms);
	if (s->need_schema)
		ret = strobe_clickhouse_create_schema(s->ch, e);
	if (!ret)
		ret = strobe_ch_insert(s->ch, b->table, b->data, b->len, b->gz, e);
	s->need_schema = ret < 0;
	return ret;
}

static void *run(void *arg)
{
	struct strobe_ch_sender *s = arg;
	struct strobe_error e;
	struct batch *b;
	uint64_t recsize, recs;
	struct spool snap = { .fd = -1 };	/* the spool's fd, head, end as of recs */
	bool from_spool;
	double now;
	long cap;
	int ret;

	lock(&s->mu);
	for (;;) {
		lock(&s->smu);
		recs = s->sp.recs;
		snap.fd = s->sp.fd;
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
			bool agg = false;

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
				s->st.rows_pending -= r[0];
				s->st.agg_rows_pending -= r[1];
				s->st.rows_dropped += r[0];
				s->st.agg_rows_dropped += r[1];
				snprintf(s->st.last_error, sizeof(s->st.last_error),
					 "spool '%.200s': a damaged record was skipped", s->sp.path);
				continue;
			}
		}
		ret = deliver(s, &b, cap, &e);
		if (ret == 0) {
			bool agg = IS_AGG(b->table);

			if (from_spool) {
				lock(&s->smu);
				spool_pop(&s->sp, recsize, IS_AGG(b->table), b->rows);
				unlock(&s->smu);
			}
			lock(&s->mu);
			*(agg ? &s->st.agg_rows_pending : &s->st.rows_pending) -= b->rows;
			*(agg ? &s->st.agg_rows_delivered : &s->st.rows_delivered) += b->rows;
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
		s->backoff = strobe_ch_backoff(s->backoff, s->bmin, s->bmax);
		s->next_try = mono() + s->backoff;
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

int strobe_ch_sender_new(struct strobe_clickhouse *ch, const struct strobe_ch_sender_opts *opts,
			 struct strobe_ch_sender **out, struct strobe_error *err)
{
	struct strobe_ch_sender_opts none = { 0 };
	struct strobe_ch_sender *s;
	char def[4096];
	const char *tmp;
	int ret;

	*out = NULL;
	if (!opts)
		opts = &none;
	s = calloc(1, sizeof(*s));
	if (!s)
		return strobe_err(err, -ENOMEM, "out of memory");
	s->ch = ch;
	s->qtail = &s->qhead;
	s->mem_max = opts->mem_max ? opts->mem_max : DEF_MEM_MAX;
	s->bmin = opts->backoff_min_s > 0 ? opts->backoff_min_s : 0.5;
	s->bmax = opts->backoff_max_s > 0 ? opts->backoff_max_s : 30;
	if (s->bmax < s->bmin)
		s->bmax = s->bmin;
	s->need_schema = true;
	s->stop = opts->stop;
	s->sp.fd = -1;
	s->sp.max = opts->spool_max ? opts->spool_max : DEF_SPOOL_MAX;
	s->st.spool_max = s->sp.max;
	if (!opts->spool_path) {
		tmp = getenv("TMPDIR");
		snprintf(def, sizeof(def), "%s/strobe-ch-spool-%d", tmp && *tmp ? tmp : "/tmp",
			 (int)getpid());
	}
	s->sp.want = strdup(opts->spool_path ? opts->spool_path : def);
	if (!s->sp.want) {
		free(s);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->smu, NULL);
	pthread_cond_init(&s->cv, NULL);
	strobe_ch_abort_flag(ch, &s->abort_req);
	ret = strobe_thread_start(&s->thread, run, s);
	if (ret) {
		strobe_ch_abort_flag(ch, NULL);
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		pthread_mutex_destroy(&s->smu);
		free(s->sp.want);
		free(s);
		return strobe_err(err, -ret, "clickhouse: cannot start the sender thread: %s",
				  strerror(ret));
	}
	s->started = true;
	*out = s;
	return 0;
}

int strobe_ch_sender_send(void *arg, const char *table, const void *data, size_t len,
			  uint64_t rows, struct strobe_error *err)
{
	struct strobe_ch_sender *s = arg;
	struct batch *b = NULL;
	bool agg, room;
	int ret;

	if (!strobe_ch_valid_table(table))
		return strobe_err(err, -EINVAL, "clickhouse: bad table name");
	if (!rows)
		return 0;
	agg = IS_AGG(table);
	lock(&s->mu);
	if (s->closing) {
		unlock(&s->mu);
		return strobe_err(err, -EINVAL, "clickhouse: the sender is closed");
	}
	*(agg ? &s->st.agg_rows_pending : &s->st.rows_pending) += rows;
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
		*(agg ? &s->st.agg_rows_spooled : &s->st.rows_spooled) += rows;
		pthread_cond_signal(&s->cv);
	} else {
		count_drop(s, table, rows, len, ret);
	}
	unlock(&s->mu);
	return 0;
}

void strobe_ch_sender_stats(struct strobe_ch_sender *s, struct strobe_ch_sender_stats *st)
{
	lock(&s->mu);
	*st = s->st;
	lock(&s->smu);
	st->spool_bytes = spool_used(&s->sp);
	snprintf(st->spool_path, sizeof(st->spool_path), "%s", s->sp.path);
	unlock(&s->smu);
	unlock(&s->mu);
}

int strobe_ch_sender_close(struct strobe_ch_sender *s, double timeout_s,
			   struct strobe_ch_sender_stats *st, struct strobe_error *err)
{
	struct strobe_ch_sender_stats mine;
	uint64_t pend, drop;
	struct timespec ts;

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
		strobe_ch_abort_flag(s->ch, NULL);
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
	strobe_ch_sender_stats(s, st);
	pend = st->rows_pending + st->agg_rows_pending;
	drop = st->rows_dropped + st->agg_rows_dropped;
	if (pend)
		return strobe_err(err, -ETIMEDOUT, "clickhouse: %llu event rows and %llu aggregate "
				  "rows not delivered (%s), kept in spool '%s'%s",
				  (unsigned long long)st->rows_pending,
				  (unsigned long long)st->agg_rows_pending,
				  st->last_error[0] ? st->last_error : "no attempt",
				  st->spool_path, drop ? "; more were dropped" : "");
	if (drop)
		return strobe_err(err, -ENOSPC, "clickhouse: %llu event rows and %llu aggregate "
				  "rows dropped: the spool (at most %llu bytes) was full or "
				  "could not be written%s%s", (unsigned long long)st->rows_dropped,
				  (unsigned long long)st->agg_rows_dropped,
				  (unsigned long long)st->spool_max, st->spool_error[0] ? ": " : "",
				  st->spool_error);
	return 0;
}

void strobe_ch_sender_free(struct strobe_ch_sender *s)
{
	struct batch *b;

	if (!s)
		return;
	strobe_ch_sender_close(s, 0, NULL, NULL);
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

int strobe_ch_spool_replay(const char *path, strobe_ch_send_fn send, void *arg,
			   uint64_t *rows, uint64_t *agg_rows, struct strobe_error *err)
{
	struct spool sp = { .fd = -1 };
	uint8_t h[HDR_SIZE];
	struct stat sb;
	uint64_t dummy;
	int ret;

	if (!rows)
		rows = &dummy;
	if (!agg_rows)
		agg_rows = &dummy;
	*rows = *agg_rows = 0;
	sp.fd = open(path, O_RDWR | O_CLOEXEC);
	if (sp.fd < 0)
		return strobe_err(err, -errno, "cannot open spool '%s': %s", path, strerror(errno));
	if (fstat(sp.fd, &sb) < 0 || pread_all(sp.fd, h, sizeof(h), 0) < 0 ||
	    memcmp(h, SPOOL_MAGIC, 16)) {
		close(sp.fd);
		return strobe_err(err, -EBADMSG, "'%s' is not a strobe spool file", path);
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
		bool agg;

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
		*(IS_AGG(b->table) ? agg_rows : rows) += b->rows;
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
