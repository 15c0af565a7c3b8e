/*
 * live.c - per-CPU reader threads for a tracefs instance (see live.h).
 *
 * How a reader works: trace_pipe_raw is opened non-blocking and poll()ed
 * together with a wake-up pipe.  The kernel reports it readable once the
 * CPU's buffer reaches the instance's buffer_percent watermark; the reader
 * then splices whole pages into a private pipe and from the pipe into the
 * sink until the kernel has no full page left.  A page queue alone (a
 * live stream) takes them by readv() from the pipe straight into free
 * queue slots, a batch per call (pageq.h), so a page is copied once, by
 * the kernel, with one system call, one lock and at most one wake-up of
 * the consumer per batch; measured on the getppid storm this cut the
 * readers' CPU time by ~40% against a read() per page into a buffer and a
 * copy into the queue.  At stop the reader drains
 * the full pages and then read()s the last, partial page (the kernel
 * hands it out whole, with its commit length) so no event is left behind.
 * A read() or splice() that finds nothing returns EAGAIN or 0, which here
 * always means "nothing now", never end of file.
 *
 * Live streams (flush_ms > 0): poll() also times out every flush_ms, and
 * the reader then takes the CPU's partial page with read() (the kernel
 * copies out what was committed since the last read; the writer goes on
 * in the same page, so nothing is read twice).  Just before that read it
 * reads the CPU's "now ts" from per_cpu/cpuN/stats, the ring buffer's own
 * clock: once the read has taken everything, no event older than that
 * (less a margin for an event reserved but not yet committed) can
 * follow, and the queue publishes it as the CPU's idle watermark.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "pageq.h"
#include "ring.h"
#include "util/thread.h"

/* Events reserved before "now ts" may commit a little later: by the
 * time an interrupt takes, or, in a virtual machine, the time the host
 * stops the virtual CPU in the middle of a write (1 ms was seen to be too
 * little on a loaded 2-CPU VM: one event in 150 000 out of order).  It
 * delays a quiet CPU's events by as much, far below the ~100 ms asked. */
#define IDLE_MARGIN_NS 10000000ULL

struct live_cpu {
	struct strobe_live *l;
	int cpu;
	int fd;			/* trace_pipe_raw, O_NONBLOCK */
	int sink;		/* caller's fd, or -1 */
	struct strobe_pageq *q;	/* page queue, or NULL */
	struct strobe_ring *ring;	/* flight recorder's ring, or NULL */
	int stats_fd;		/* per_cpu/cpuN/stats (flush_ms only), or -1 */
	uint64_t last_flush;	/* CLOCK_MONOTONIC ns of the last flush */
	int pipe[2];		/* splice staging */
	int pipe_size;
	bool use_splice;	/* sink accepts splice; else read+write */
	bool direct;		/* a queue alone: pipe -> queue slots by readv */
	struct iovec *iov;	/* direct: pipe_size / page_size entries */
	uint8_t **slots;	/* direct: the reserved slots, as many */
	pthread_t thread;
	bool started;
	pid_t tid;		/* atomic: the thread's id once it runs, else 0 */
	uint64_t bytes;		/* atomic: written into sink */
	int error;		/* atomic: first -errno */
	char *buf;		/* buf_size bytes, for read() paths */
	size_t buf_size;	/* a page; with a ring the pipe's size, so
				 * one read takes every page the pipe holds */
};

struct strobe_live {
	int nr_cpus;
	unsigned page_size;
	unsigned flush_ms;
	int wake[2];		/* written once at stop: every reader drains */
	bool running;
	struct live_cpu *cpus;
};

static void set_error(struct live_cpu *c, int e)
{
	int zero = 0;

	__atomic_compare_exchange_n(&c->error, &zero, e, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
}

static int write_all(int fd, const char *b, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, b, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += w;
		n -= w;
	}
	return 0;
}

/* Hand r bytes of whole pages (or one partial page) to every sink. */
static int deliver(struct live_cpu *c, const char *b, size_t r)
{
	size_t ps = c->l->page_size, off;
	int e;

	if (c->sink >= 0) {
		e = write_all(c->sink, b, r);
		if (e < 0)
			return e;
	}
	for (off = 0; c->q && off < r; off += ps) {
		e = strobe_pageq_push(c->q, (const uint8_t *)b + off, r - off < ps ? r - off : ps);
		if (e < 0)
			return e;
	}
	for (off = 0; c->ring && off < r; off += ps)
		strobe_ring_push(c->ring, (const uint8_t *)b + off, r - off < ps ? r - off : ps);
	__atomic_add_fetch(&c->bytes, (uint64_t)r, __ATOMIC_RELAXED);
	return 0;
}

/*
 * A queue alone: read whole pages from the pipe straight into free queue
 * slots, one readv per batch (see pageq.h).  Returns the bytes moved, 0
 * if this path cannot take them (the consumer has gone, a lossy queue, a
 * partial page: the copying path then does), or -errno.
 */
static ssize_t pipe_to_slots(struct live_cpu *c, size_t n)
{
	size_t ps = c->l->page_size;
	int k, i;
	ssize_t r;

	if (n < ps)
		return 0;
	k = strobe_pageq_reserve(c->q, c->slots, n / ps < (size_t)c->pipe_size / ps ?
				 (unsigned)(n / ps) : (unsigned)(c->pipe_size / ps));
	if (k == -EINVAL)
		c->direct = false;
	if (k <= 0)
		return k == -ENOMEM ? k : 0;
	for (i = 0; i < k; i++) {
		c->iov[i].iov_base = c->slots[i];
		c->iov[i].iov_len = ps;
	}
	do
		r = readv(c->pipe[0], c->iov, k);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		strobe_pageq_commit(c->q, 0);
		return r < 0 ? -errno : -EIO;
	}
	strobe_pageq_commit(c->q, (size_t)r);
	__atomic_add_fetch(&c->bytes, (uint64_t)r, __ATOMIC_RELAXED);
	return r;
}

/* Move n bytes staged in the pipe into the sinks. */
static int pipe_to_sink(struct live_cpu *c, size_t n)
{
	ssize_t r;
	int e;

	while (n) {
		if (c->direct) {
			r = pipe_to_slots(c, n);
			if (r < 0)
				return (int)r;
			if (r > 0) {
				n -= r;
				continue;
			}
		}
		if (c->use_splice && !c->q && !c->ring) {
			r = splice(c->pipe[0], NULL, c->sink, NULL, n, SPLICE_F_MOVE);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
				c->use_splice = false;
				continue;
			}
			if (r < 0)
				return -errno;
			if (r == 0)
				return -EIO;
		} else {
			size_t want = n < c->buf_size ? n : c->buf_size;

			r = read(c->pipe[0], c->buf, want);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return r < 0 ? -errno : -EIO;
			e = deliver(c, c->buf, r);
			if (e < 0)
				return e;
			n -= r;
			continue;
		}
		n -= r;
		__atomic_add_fetch(&c->bytes, (uint64_t)r, __ATOMIC_RELAXED);
	}
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The CPU's ring-buffer clock now ("now ts:" in its stats), or 0. */
static uint64_t buffer_now(struct live_cpu *c)
{
	char b[512], *p, *end;
	unsigned long long sec, frac = 0;
	ssize_t n;
	int digits;

	n = pread(c->stats_fd, b, sizeof(b) - 1, 0);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	p = strstr(b, "now ts:");
	if (!p)
		return 0;
	sec = strtoull(p + 7, &end, 10);
	if (*end != '.')
		return sec;	/* a clock not in ns (counter, x86-tsc): raw */
	p = end + 1;
	frac = strtoull(p, &end, 10);
	for (digits = (int)(end - p); digits < 9; digits++)
		frac *= 10;
	return sec * 1000000000ULL + frac;
}

/* read() one partial page (nothing if the CPU's buffer is empty). */
static int read_partial(struct live_cpu *c, bool *got)
{
	ssize_t r;

	*got = false;
	for (;;) {
		r = read(c->fd, c->buf, c->l->page_size);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;	/* EAGAIN or 0: empty */
		*got = true;
		return deliver(c, c->buf, r);
	}
}

/* Live: the partial page, then the idle watermark (see the head comment). */
static int flush(struct live_cpu *c)
{
	uint64_t now = buffer_now(c);
	bool got;
	int e;

	e = read_partial(c, &got);
	if (e < 0)
		return e;
	if (c->q && now > IDLE_MARGIN_NS)
		strobe_pageq_idle(c->q, now - IDLE_MARGIN_NS);
	c->last_flush = mono_ns();
	return 0;
}

/* Move every full page the kernel has now.  Returns 0 or -errno. */
static int move_pages(struct live_cpu *c, bool *moved)
{
	ssize_t r;
	int e;

	for (;;) {
		r = splice(c->fd, NULL, c->pipe[1], NULL, c->pipe_size,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		*moved = true;
		e = pipe_to_sink(c, r);
		if (e < 0)
			return e;
	}
}

/* After tracing is off: the last pages, then the partial one via read(). */
static int drain(struct live_cpu *c)
{
	bool moved = false;
	int e;

	if (c->q)
		strobe_pageq_drain(c->q);
	e = move_pages(c, &moved);
	if (e < 0)
		return e;
	do
		e = read_partial(c, &moved);
	while (e == 0 && moved);
	return e;
}

static void *reader(void *arg)
{
	struct live_cpu *c = arg;
	unsigned fl = c->l->flush_ms;
	struct pollfd pfd[4];
	bool moved, kicked, ring_kick;
	uint64_t v;
	int e, r;

	__atomic_store_n(&c->tid, gettid(), __ATOMIC_RELEASE);
	pfd[0].fd = c->fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = c->l->wake[0];
	pfd[1].events = POLLIN;
	/* a stream held up by this CPU asks for its pages now */
	pfd[2].fd = c->q ? strobe_pageq_kick_fd(c->q) : -1;
	pfd[2].events = POLLIN;
	pfd[2].revents = 0;
	/* a flight recorder's snapshot asks for the partial page */
	pfd[3].fd = c->ring ? strobe_ring_kick_fd(c->ring) : -1;
	pfd[3].events = POLLIN;
	pfd[3].revents = 0;
	for (;;) {
		r = poll(pfd, 4, fl ? (int)fl : -1);
		if (r < 0 && errno != EINTR) {
			set_error(c, -errno);
			goto out;
		}
		if (r > 0 && (pfd[1].revents & POLLIN))
			break;
		kicked = r > 0 && (pfd[2].revents & POLLIN);
		if (kicked)
			(void)!read(pfd[2].fd, &v, sizeof(v));
		ring_kick = r > 0 && (pfd[3].revents & POLLIN);
		if (ring_kick)
			(void)!read(pfd[3].fd, &v, sizeof(v));
		moved = false;
		e = move_pages(c, &moved);
		if (e == 0 && fl && (kicked || ring_kick ||
				     mono_ns() - c->last_flush >= fl * 1000000ULL))
			e = flush(c);
		else if (e == 0 && ring_kick)
			e = read_partial(c, &moved);
		if (ring_kick)
			strobe_ring_flushed(c->ring);
		if (e < 0) {
			set_error(c, e);
			goto out;
		}
		if (!moved && r > 0 && !kicked && !ring_kick) {
			/* readable without a full page: do not spin */
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	e = drain(c);
	if (e < 0)
		set_error(c, e);
out:
	if (c->q)
		strobe_pageq_end(c->q);
	if (c->ring)
		strobe_ring_close(c->ring);
	return NULL;
}

int strobe_live_open(const char *instance_dir, int nr_cpus,
		     const struct strobe_live_sinks *sinks, unsigned page_size,
		     struct strobe_live **out, struct strobe_error *err)
{
	struct strobe_live *l;
	char path[512];
	int i, r;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return strobe_err(err, -ENOMEM, "out of memory");
	l->wake[0] = l->wake[1] = -1;
	l->nr_cpus = nr_cpus;
	l->page_size = page_size;
	l->flush_ms = sinks->flush_ms;
	l->cpus = calloc(nr_cpus, sizeof(*l->cpus));
	if (!l->cpus) {
		free(l);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	for (i = 0; i < nr_cpus; i++) {
		l->cpus[i].fd = l->cpus[i].pipe[0] = l->cpus[i].pipe[1] = -1;
		l->cpus[i].stats_fd = -1;
		/* the queue reference is the reader's from here on */
		l->cpus[i].q = sinks->queues ? sinks->queues[i] : NULL;
		l->cpus[i].ring = sinks->rings ? sinks->rings[i] : NULL;
	}
	if (pipe2(l->wake, O_CLOEXEC) < 0) {
		r = strobe_err(err, -errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	for (i = 0; i < nr_cpus; i++) {
		struct live_cpu *c = &l->cpus[i];

		c->l = l;
		c->cpu = i;
		c->sink = sinks->fds ? sinks->fds[i] : -1;
		c->use_splice = true;
		if (l->flush_ms) {
			snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", instance_dir, i);
			c->stats_fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw",
			 instance_dir, i);
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0) {
			r = strobe_err(err, -errno, "cannot open %s: %s", path,
				       strerror(errno));
			goto fail;
		}
		if (pipe2(c->pipe, O_CLOEXEC) < 0) {
			r = strobe_err(err, -errno, "pipe: %s", strerror(errno));
			goto fail;
		}
		/* A bigger pipe moves more pages per system call. */
		fcntl(c->pipe[0], F_SETPIPE_SZ, 256 * 1024);
		c->pipe_size = fcntl(c->pipe[0], F_GETPIPE_SZ);
		if (c->pipe_size < (int)page_size)
			c->pipe_size = page_size;
		c->buf_size = page_size;
		if (c->ring && !c->q && c->pipe_size > (int)page_size)
			c->buf_size = (size_t)c->pipe_size / page_size * page_size;
		c->buf = malloc(c->buf_size);
		c->direct = c->q && c->sink < 0 && !c->ring;
		if (c->direct) {
			c->iov = calloc((size_t)c->pipe_size / page_size, sizeof(*c->iov));
			c->slots = calloc((size_t)c->pipe_size / page_size, sizeof(*c->slots));
		}
		if (!c->buf || (c->direct && (!c->iov || !c->slots))) {
			r = strobe_err(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	*out = l;
	return 0;
fail:
	strobe_live_free(l);
	return r;
}

int strobe_live_start(struct strobe_live *l, struct strobe_error *err)
{
	int i, r;

	for (i = 0; i < l->nr_cpus; i++) {
		r = strobe_thread_start(&l->cpus[i].thread, reader, &l->cpus[i]);
		if (r) {
			l->running = true;
			strobe_live_stop(l, NULL);
			return strobe_err(err, -r, "cannot start reader thread: %s",
					  strerror(r));
		}
		l->cpus[i].started = true;
	}
	l->running = true;
	return 0;
}

int strobe_live_tids(const struct strobe_live *l, pid_t *tids, int max)
{
	struct timespec nap = { 0, 100000 };
	int i, n = 0, tries;
	pid_t t;

	for (i = 0; i < l->nr_cpus && n < max; i++) {
		if (!l->cpus[i].started)
			continue;
		/* a thread publishes its id first thing; wait up to ~1 s */
		for (tries = 0; !(t = __atomic_load_n(&l->cpus[i].tid, __ATOMIC_ACQUIRE)) &&
		     tries < 10000; tries++)
			nanosleep(&nap, NULL);
		if (t)
			tids[n++] = t;
	}
	return n;
}

int strobe_live_error(const struct strobe_live *l)
{
	int i, e;

	for (i = 0; i < l->nr_cpus; i++) {
		e = __atomic_load_n(&l->cpus[i].error, __ATOMIC_RELAXED);
		if (e)
			return e;
	}
	return 0;
}

int strobe_live_stop(struct strobe_live *l, struct strobe_error *err)
{
	int i, e, first = 0;

	if (!l->running)
		return 0;
	/* a reader waiting for room in a full queue grows it from now on */
	for (i = 0; i < l->nr_cpus; i++)
		if (l->cpus[i].q)
			strobe_pageq_drain(l->cpus[i].q);
	if (write(l->wake[1], "x", 1) < 0)
		first = -errno;
	for (i = 0; i < l->nr_cpus; i++) {
		if (!l->cpus[i].started)
			continue;
		pthread_join(l->cpus[i].thread, NULL);
		l->cpus[i].started = false;
		e = l->cpus[i].error;
		if (e && !first)
			first = strobe_err(err, e, "cpu%d: %s", i, strerror(-e));
	}
	l->running = false;
	return first;
}

uint64_t strobe_live_bytes(const struct strobe_live *l, int cpu)
{
	return __atomic_load_n(&l->cpus[cpu].bytes, __ATOMIC_RELAXED);
}

void strobe_live_free(struct strobe_live *l)
{
	int i;

	if (!l)
		return;
	strobe_live_stop(l, NULL);
	for (i = 0; i < l->nr_cpus; i++) {
		struct live_cpu *c = &l->cpus[i];

		if (c->fd >= 0)
			close(c->fd);
		if (c->stats_fd >= 0)
			close(c->stats_fd);
		if (c->q) {
			strobe_pageq_end(c->q);	/* a reader that never ran */
			strobe_pageq_put(c->q);
		}
		if (c->pipe[0] >= 0)
			close(c->pipe[0]);
		if (c->pipe[1] >= 0)
			close(c->pipe[1]);
		free(c->buf);
		free(c->iov);
		free(c->slots);
	}
	if (l->wake[0] >= 0)
		close(l->wake[0]);
	if (l->wake[1] >= 0)
		close(l->wake[1]);
	free(l->cpus);
	free(l);
}
