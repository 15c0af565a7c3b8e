/*
 * flight.c - the flight recorder: keep the recent past of every CPU in
 * strobe's memory and write it to a trace file when a trigger fires
 * (strobe record --flight-recorder; strobe-record(1), strobe-record(3)).
 *
 * This kernel has no ftrace snapshot buffer, so the capture's readers
 * copy each page into a per-CPU ring of strobe's own (lib/source/ring.c)
 * and nothing reaches the disk while no trigger fires.
 *
 * Triggers come from three places, all handled on the recording's thread
 * by flight_poll (called every ~20 ms by the recorder's loop):
 *   - the caller's SIGUSR1 counter (opts->flight_signal: each increment
 *     is one trigger "signal");
 *   - the control FIFO DIR/flight-PID that `strobe trigger` writes lines
 *     "REALTIME_NS REASON\n" to (a FIFO rather than the tracefs instance
 *     name, because every strobe record has an instance but only a flight
 *     recorder may take a trigger, and because a line carries a reason
 *     and the sender's time; a FIFO nobody reads refuses writers with
 *     ENXIO, so a dead recorder's FIFO is never mistaken for a live one);
 *   - strobe_flight_trigger() from any thread (a queue under a mutex).
 * Rate limits apply in trigger time order: within min_interval of the
 * last snapshot's trigger, after max_snapshots, or while a snapshot's
 * --post still runs, a trigger is counted as suppressed, never dropped
 * silently.
 *
 * A snapshot: ask every reader for its partial page (strobe_ring_flush),
 * pin each ring's oldest page, find the span every CPU covers (the latest
 * of the CPUs' oldest events, among the rings that already forgot pages;
 * with a time span also newest - span), then copy the pages out oldest
 * first into unlinked temporary files next to the output, trimming the
 * first page of each CPU to that start (strobe_ring_trim_page) and moving
 * the pin along, so the readers never wait unless they catch up with the
 * copy.  With --post the copy goes on at every poll until the post time
 * is over; then a last flush and the file is assembled by the tracefile
 * writer: the session's formats, the process and container table, the
 * per-CPU stats and an info block saying which trigger, why, when and what
 * was trimmed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "flight.h"
#include "../model/model-int.h"
#include "../session/internal.h"
#include "../source/ring.h"
#include "../stream/page.h"
#include "../util/file.h"

#define FLUSH_TIMEOUT_MS 500
#define MAX_PENDING 4096

struct pending {
	char trigger[16];
	char reason[256];
	double time;			/* CLOCK_REALTIME seconds */
};

struct strobe_flight {
	struct flight_ctx ctx;
	const struct strobe_record_opts *o;
	int nr_cpus;
	unsigned page_size, commit_size;
	struct strobe_ring **rings;
	char *fifo;			/* path, or NULL */
	int fifo_fd;
	char fifo_buf[4096];
	size_t fifo_len;
	sig_atomic_t signals_seen;
	pthread_mutex_t lock;		/* pending, from strobe_flight_trigger */
	struct pending *pending;
	size_t nr_pending, cap_pending;
	uint64_t pending_overflow;	/* API triggers past MAX_PENDING */
	/* results */
	struct strobe_flight_result res;
	double last_time;		/* the last snapshot's trigger time */
	/* the snapshot being taken */
	bool active;
	struct strobe_flight_snapshot cur;
	int *fds;
	uint64_t *next;
	bool *started;			/* the CPU's first page was written */
	uint64_t *cpu_trimmed, *cpu_events;
	uint64_t from_ts;
	double post_until;		/* CLOCK_MONOTONIC seconds */
	uint8_t *buf;
	char path[4096];
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool good_word(const char *w)
{
	size_t n = 0;

	for (; w[n]; n++)
		if (!((w[n] >= 'a' && w[n] <= 'z') || (w[n] >= '0' && w[n] <= '9') || w[n] == '-'))
			return false;
	return n > 0 && n < 16;
}

/* Newlines and tabs of a reason become spaces (the info is key=value lines). */
static void copy_reason(char *dst, size_t size, const char *src)
{
	size_t i;

	snprintf(dst, size, "%s", src ? src : "");
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = ' ';
}

static int add_pending(struct strobe_flight *f, const char *trigger, const char *reason,
		       double t)
{
	struct pending *p;

	pthread_mutex_lock(&f->lock);
	if (f->nr_pending == f->cap_pending) {
		size_t cap = f->cap_pending ? f->cap_pending * 2 : 16;

		p = f->nr_pending < MAX_PENDING ? realloc(f->pending, cap * sizeof(*p)) : NULL;
		if (!p) {
			/* counted, never lost silently */
			f->pending_overflow++;
			pthread_mutex_unlock(&f->lock);
			return -ENOMEM;
		}
		f->pending = p;
		f->cap_pending = cap;
	}
	p = &f->pending[f->nr_pending++];
	snprintf(p->trigger, sizeof(p->trigger), "%s", trigger);
	copy_reason(p->reason, sizeof(p->reason), reason);
	p->time = t;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

int strobe_flight_trigger(struct strobe_flight *f, const char *trigger, const char *reason)
{
	if (!f)
		return -EINVAL;
	if (!trigger)
		trigger = "api";
	if (!good_word(trigger))
		return -EINVAL;
	return add_pending(f, trigger, reason, real_s());
}

/* ---- the control FIFO ---------------------------------------------------- */

static int open_fifo(struct strobe_flight *f, const char *dir, struct strobe_error *err)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return strobe_err(err, -errno, "cannot create %s: %s", dir, strerror(errno));
	if (asprintf(&f->fifo, "%s/flight-%d", dir, (int)getpid()) < 0) {
		f->fifo = NULL;
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	unlink(f->fifo);	/* a stale one of a process that had our PID */
	if (mkfifo(f->fifo, 0600) < 0) {
		int e = -errno;

		strobe_err(err, e, "cannot create %s: %s", f->fifo, strerror(-e));
		free(f->fifo);
		f->fifo = NULL;
		return e;
	}
	/* O_RDWR: a reader that never sees end of file when writers go */
	f->fifo_fd = open(f->fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (f->fifo_fd < 0) {
		int e = -errno;

		unlink(f->fifo);
		strobe_err(err, e, "cannot open %s: %s", f->fifo, strerror(-e));
		free(f->fifo);
		f->fifo = NULL;
		return e;
	}
	return 0;
}

/* Lines "REALTIME_NS REASON\n" into pending triggers. */
static void read_fifo(struct strobe_flight *f)
{
	ssize_t n;
	char *nl, *line, *end;

	if (f->fifo_fd < 0)
		return;
	for (;;) {
		n = read(f->fifo_fd, f->fifo_buf + f->fifo_len, sizeof(f->fifo_buf) - 1 - f->fifo_len);
		if (n <= 0)
			break;
		f->fifo_len += (size_t)n;
		f->fifo_buf[f->fifo_len] = '\0';
		line = f->fifo_buf;
		while ((nl = strchr(line, '\n'))) {
			unsigned long long ns;
			double t;

			*nl = '\0';
			ns = strtoull(line, &end, 10);
			t = ns ? ns / 1e9 : real_s();
			if (*end == ' ')
				end++;
			add_pending(f, "trigger", end, t);
			line = nl + 1;
		}
		f->fifo_len -= (size_t)(line - f->fifo_buf);
		memmove(f->fifo_buf, line, f->fifo_len);
		if (f->fifo_len == sizeof(f->fifo_buf) - 1)
			f->fifo_len = 0;	/* a line too long: dropped */
	}
}

static bool name_pid(const char *name, pid_t *pid)
{
	char *end;
	long v;

	if (strncmp(name, "flight-", 7))
		return false;
	v = strtol(name + 7, &end, 10);
	if (*end || v <= 0)
		return false;
	*pid = (pid_t)v;
	return true;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

int strobe_flight_list(const char *dir, pid_t **pids, size_t *nr, struct strobe_error *err)
{
	struct dirent *de;
	size_t n = 0, cap = 0;
	pid_t *v = NULL, *nv, pid;
	DIR *d;

	*pids = NULL;
	*nr = 0;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return strobe_err(err, -errno, "cannot read %s: %s", dir, strerror(errno));
	}
	while ((de = readdir(d))) {
		char path[4096];
		int fd;

		if (!name_pid(de->d_name, &pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		/* a FIFO with no reader refuses us: its recorder is gone */
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENXIO && kill(pid, 0) < 0 && errno == ESRCH)
				unlink(path);
			continue;
		}
		close(fd);
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return strobe_err(err, -ENOMEM, "out of memory");
			}
			v = nv;
		}
		v[n++] = pid;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_pid);
	*pids = v;
	*nr = n;
	return 0;
}

int strobe_flight_send(const char *dir, pid_t pid, const char *reason, struct strobe_error *err)
{
	char path[4096], msg[256];
	struct timespec ts;
	ssize_t w;
	int fd, len;

	if (reason && (strlen(reason) > 200 || strpbrk(reason, "\n")))
		return strobe_err(err, -EINVAL, "a reason is at most 200 bytes, with no newline");
	snprintf(path, sizeof(path), "%s/flight-%d", dir, (int)pid);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENXIO)
			return strobe_err(err, -ESRCH, "process %d is not a running flight recorder",
					  (int)pid);
		return strobe_err(err, -errno, "cannot open %s: %s", path, strerror(errno));
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	len = snprintf(msg, sizeof(msg), "%llu %s\n",
		       (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec,
		       reason ? reason : "");
	/* at most PIPE_BUF: one write, never interleaved with another's */
	w = write(fd, msg, (size_t)len);
	close(fd);
	if (w != len)
		return strobe_err(err, w < 0 ? -errno : -EIO, "cannot write to %s: %s", path,
				  w < 0 ? strerror(errno) : "short write");
	return 0;
}

/* ---- open / free ----------------------------------------------------------- */

int flight_open(const struct flight_ctx *ctx, struct strobe_flight **out,
		struct strobe_error *err)
{
	const struct strobe_tf_meta *m = strobe_session_meta_tf(ctx->meta);
	struct strobe_flight *f;
	size_t pages;
	int i, e;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return strobe_err(err, -ENOMEM, "out of memory");
	f->ctx = *ctx;
	f->o = ctx->o;
	f->nr_cpus = ctx->nr_cpus;
	f->page_size = m->page_size;
	f->commit_size = strobe_session_meta_commit_size(ctx->meta);
	f->fifo_fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	if (f->o->flight_signal)
		f->signals_seen = *f->o->flight_signal;
	pages = (size_t)(f->o->flight_size / f->page_size);
	if (pages < 2) {
		e = strobe_err(err, -EINVAL, "a flight recorder needs at least 2 pages (%u bytes) "
			       "per CPU", 2 * f->page_size);
		goto fail;
	}
	f->res.ring_bytes = (uint64_t)pages * f->page_size;
	f->rings = calloc(f->nr_cpus, sizeof(*f->rings));
	f->fds = calloc(f->nr_cpus, sizeof(*f->fds));
	f->next = calloc(f->nr_cpus, sizeof(*f->next));
	f->started = calloc(f->nr_cpus, sizeof(*f->started));
	f->cpu_trimmed = calloc(f->nr_cpus, sizeof(*f->cpu_trimmed));
	f->cpu_events = calloc(f->nr_cpus, sizeof(*f->cpu_events));
	f->buf = malloc(f->page_size);
	if (!f->rings || !f->fds || !f->next || !f->started || !f->cpu_trimmed ||
	    !f->cpu_events || !f->buf) {
		e = strobe_err(err, -ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < f->nr_cpus; i++)
		f->fds[i] = -1;
	for (i = 0; i < f->nr_cpus; i++) {
		f->rings[i] = strobe_ring_new(f->page_size, f->commit_size, pages);
		if (!f->rings[i]) {
			e = strobe_err(err, -ENOMEM, "cannot map a flight recorder ring of %zu "
				       "bytes", pages * f->page_size);
			goto fail;
		}
	}
	if (f->o->flight_control_dir) {
		e = open_fifo(f, f->o->flight_control_dir, err);
		if (e < 0)
			goto fail;
	}
	*out = f;
	return 0;
fail:
	flight_free(f);
	return e;
}

struct strobe_ring *const *flight_rings(struct strobe_flight *f)
{
	return f->rings;
}

const char *flight_fifo(const struct strobe_flight *f)
{
	return f ? f->fifo : NULL;
}

void flight_close_fifo(struct strobe_flight *f)
{
	if (f && f->fifo_fd >= 0) {
		close(f->fifo_fd);
		f->fifo_fd = -1;
	}
}

static void close_tmp(struct strobe_flight *f)
{
	int i;

	for (i = 0; i < f->nr_cpus; i++) {
		if (f->fds[i] >= 0)
			close(f->fds[i]);
		f->fds[i] = -1;
	}
}

void flight_free(struct strobe_flight *f)
{
	int c;

	if (!f)
		return;
	/* the caller's last word with f: a trigger from another thread
	 * must not reach it any more */
	if (f->o && f->o->on_flight)
		f->o->on_flight(NULL, f->o->event_arg);
	for (c = 0; f->rings && c < f->nr_cpus; c++)
		strobe_ring_free(f->rings[c]);
	if (f->fds)
		close_tmp(f);
	if (f->fifo_fd >= 0)
		close(f->fifo_fd);
	if (f->fifo)
		unlink(f->fifo);
	free(f->fifo);
	free(f->rings);
	free(f->fds);
	free(f->next);
	free(f->started);
	free(f->cpu_trimmed);
	free(f->cpu_events);
	free(f->buf);
	free(f->pending);
	free(f->res.snapshots);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* ---- snapshots --------------------------------------------------------------- */

/* OUTPUT.SEQ-TIME-TRIGGER.EXT (the extension of the base name kept last). */
static void snapshot_name(struct strobe_flight *f, char *buf, size_t size)
{
	const char *out = f->ctx.out, *slash = strrchr(out, '/'), *dot;
	time_t sec = (time_t)f->cur.time;
	struct tm tm;
	char when[32];

	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	dot = strrchr(slash ? slash + 1 : out, '.');
	if (!dot || dot == (slash ? slash + 1 : out))
		dot = out + strlen(out);
	snprintf(buf, size, "%.*s.%03u-%s-%s%s", (int)(dot - out), out, f->cur.seq, when,
		 f->cur.trigger, dot);
}

/* The first and last event times of the ring's oldest / newest page with
 * events (looking at most 64 pages in). */
static bool ring_end_time(struct strobe_flight *f, int cpu, bool oldest, uint64_t *ts)
{
	uint64_t first, head, seq, a, b;
	int k;

	strobe_ring_span(f->rings[cpu], &first, &head);
	for (k = 0; k < 64 && head > first + (uint64_t)k; k++) {
		seq = oldest ? first + k : head - 1 - k;
		if (strobe_ring_copy(f->rings[cpu], seq, f->buf) < 0)
			continue;
		if (strobe_ring_page_times(f->buf, f->page_size, f->commit_size, &a, &b) == 1) {
			*ts = oldest ? a : b;
			return true;
		}
	}
	return false;
}

static void fail_snapshot(struct strobe_flight *f, int e, const char *what)
{
	f->cur.error = e;
	snprintf(f->cur.msg, sizeof(f->cur.msg), "%.200s: %s", what, strerror(-e));
}

/* Copy what the rings hold now past each CPU's cursor into the files. */
static void copy_pages(struct strobe_flight *f)
{
	struct strobe_page p;
	struct strobe_page_rec rec;
	uint64_t first, head, seq;
	int c, r;

	for (c = 0; c < f->nr_cpus; c++) {
		strobe_ring_span(f->rings[c], &first, &head);
		if (f->next[c] < first)
			f->next[c] = first;	/* cannot happen while pinned */
		for (seq = f->next[c]; seq < head; seq++) {
			if (strobe_ring_copy(f->rings[c], seq, f->buf) < 0)
				continue;
			strobe_ring_release(f->rings[c], seq + 1);
			if (!f->started[c]) {
				r = strobe_ring_trim_page(f->buf, f->page_size, f->commit_size,
							  f->from_ts, &f->cpu_trimmed[c]);
				if (r <= 0)
					continue;	/* older than the span (or bad) */
				f->started[c] = true;
			}
			if (strobe_page_init(&p, f->buf, f->page_size, f->commit_size, NULL) == 0) {
				if (p.missed > 0)
					f->cur.lost += (uint64_t)p.missed;
				while (strobe_page_next(&p, &rec, NULL) == 1) {
					f->cpu_events[c]++;
					if (!f->cur.first_ts || rec.ts < f->cur.first_ts)
						f->cur.first_ts = rec.ts;
					if (rec.ts > f->cur.last_ts)
						f->cur.last_ts = rec.ts;
				}
			}
			if (!f->cur.error && f->fds[c] >= 0 &&
			    write(f->fds[c], f->buf, f->page_size) != (ssize_t)f->page_size)
				fail_snapshot(f, errno ? -errno : -EIO, "temporary file");
		}
		f->next[c] = head;
	}
}

static void flush_all(struct strobe_flight *f)
{
	int c;

	for (c = 0; c < f->nr_cpus; c++)
		strobe_ring_flush(f->rings[c], FLUSH_TIMEOUT_MS);
}

static void begin_snapshot(struct strobe_flight *f, const struct pending *p)
{
	uint64_t common = 0, newest = 0, ts, span_ns;
	struct strobe_ring_stats st;
	char *tmp;
	int c;

	memset(&f->cur, 0, sizeof(f->cur));
	f->cur.seq = (unsigned)f->res.nr_snapshots + 1;
	snprintf(f->cur.trigger, sizeof(f->cur.trigger), "%s", p->trigger);
	snprintf(f->cur.reason, sizeof(f->cur.reason), "%s", p->reason);
	f->cur.time = p->time;
	f->last_time = p->time;
	f->active = true;
	snapshot_name(f, f->path, sizeof(f->path));
	snprintf(f->cur.path, sizeof(f->cur.path), "%s", f->path);
	flush_all(f);
	for (c = 0; c < f->nr_cpus; c++) {
		f->next[c] = strobe_ring_pin(f->rings[c]);
		f->started[c] = false;
		f->cpu_trimmed[c] = f->cpu_events[c] = 0;
		strobe_ring_stats(f->rings[c], &st);
		/* a ring that forgot pages covers only from its oldest event */
		if (st.overwritten && ring_end_time(f, c, true, &ts) && ts > common)
			common = ts;
		if (ring_end_time(f, c, false, &ts) && ts > newest)
			newest = ts;
	}
	f->from_ts = common;
	span_ns = (uint64_t)(f->o->flight_span * 1e9);
	if (span_ns && newest > span_ns && newest - span_ns > f->from_ts)
		f->from_ts = newest - span_ns;
	for (c = 0; c < f->nr_cpus; c++) {
		f->fds[c] = strobe_file_create_tmp(f->path, &tmp, NULL);
		if (f->fds[c] < 0) {
			fail_snapshot(f, f->fds[c], f->path);
			f->fds[c] = -1;
			continue;
		}
		unlink(tmp);
		free(tmp);
	}
	copy_pages(f);
	f->post_until = mono_s() + f->o->flight_post;
}

static void append(char **s, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char **s, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *n;
	int k;

	if (!*s)
		return;
	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	n = k >= 0 ? realloc(*s, *len + (size_t)k + 1) : NULL;
	if (!n) {
		free(*s);
		*s = NULL;
		return;
	}
	*s = n;
	va_start(ap, fmt);
	vsnprintf(*s + *len, (size_t)k + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)k;
}

/* The info block: the recording's lines, then the snapshot's, command= last. */
static char *snapshot_info(struct strobe_flight *f, bool cut_short)
{
	char *s = f->ctx.base_info(f->ctx.arg), when[64];
	size_t len = s ? strlen(s) : 0;
	time_t sec = (time_t)f->cur.time;
	struct tm tm;
	int c;

	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	append(&s, &len, "flight_snapshot=%u\nflight_trigger=%s\nflight_reason=%s\n"
	       "flight_trigger_time=%s.%06dZ\nflight_ring=%" PRIu64 " bytes per CPU\n",
	       f->cur.seq, f->cur.trigger, f->cur.reason, when,
	       (int)((f->cur.time - (double)sec) * 1e6), f->res.ring_bytes);
	if (f->o->flight_span > 0)
		append(&s, &len, "flight_span=%g s\n", f->o->flight_span);
	if (f->o->flight_post > 0)
		append(&s, &len, "flight_post=%g s%s\n", f->o->flight_post,
		       cut_short ? " (cut short: the recording ended)" : "");
	if (!f->from_ts) {
		append(&s, &len, "flight_trimmed=none (every CPU's ring holds the recording "
		       "from its start)");
	} else {
		append(&s, &len, "flight_trimmed=from %" PRIu64 ".%06" PRIu64 " (%s); "
		       "events left out:", f->from_ts / 1000000000, f->from_ts % 1000000000 / 1000,
		       f->o->flight_span > 0 ? "the --flight-recorder span, or the span every "
		       "CPU's ring covers" : "the span every CPU's ring covers");
		for (c = 0; c < f->nr_cpus; c++)
			append(&s, &len, " cpu%d %" PRIu64, c, f->cpu_trimmed[c]);
	}
	append(&s, &len, "\ncommand=%s\n", f->o->command_line ? f->o->command_line : "");
	return s;
}

static void finish_snapshot(struct strobe_flight *f, bool cut_short)
{
	struct strobe_tf_meta m = *strobe_session_meta_tf(f->ctx.meta);
	struct strobe_error e2 = { 0, "" };
	struct strobe_tf_writer *w = NULL;
	char **stats = NULL, *info = NULL, *table = NULL;
	size_t tlen = 0;
	struct stat st;
	int c, e;

	flush_all(f);
	copy_pages(f);
	for (c = 0; c < f->nr_cpus; c++) {
		strobe_ring_unpin(f->rings[c]);
		f->cur.events += f->cpu_events[c];
		f->cur.trimmed += f->cpu_trimmed[c];
	}
	f->active = false;
	if (f->cur.error)
		goto out;
	strobe_session_meta_refresh_cmdlines(f->ctx.s, f->ctx.extra_cmdlines, f->ctx.meta);
	m = *strobe_session_meta_tf(f->ctx.meta);
	m.strobe_info = "incomplete=the snapshot was not finished\n";
	e = strobe_tf_writer_open(f->path, &m, f->nr_cpus, &w, &e2);
	stats = calloc(f->nr_cpus, sizeof(*stats));
	for (c = 0; e == 0 && c < f->nr_cpus; c++) {
		unsigned long long ov;

		if (stats)
			strobe_session_cpu_stats(f->ctx.s, c, &stats[c], &ov, NULL);
		e = strobe_tf_writer_add_cpu(w, c, f->fds[c], UINT64_MAX, true, &e2);
	}
	if (e == 0 && f->ctx.model && !f->o->no_model &&
	    strobe_model_table_write(f->ctx.model, &table, &tlen, &e2) == 0)
		e = strobe_tf_writer_add_model(w, table, tlen, &e2);
	if (e == 0) {
		info = snapshot_info(f, cut_short);
		e = strobe_tf_writer_close(w, (const char *const *)stats, info, &e2);
		w = NULL;
	}
	if (e < 0) {
		f->cur.error = e;
		snprintf(f->cur.msg, sizeof(f->cur.msg), "%.250s", e2.msg);
		strobe_tf_writer_discard(w);
	} else if (stat(f->path, &st) == 0) {
		f->cur.file_size = (uint64_t)st.st_size;
	}
	for (c = 0; stats && c < f->nr_cpus; c++)
		free(stats[c]);
	free(stats);
	free(info);
	free(table);
out:
	close_tmp(f);
	{
		struct strobe_flight_snapshot *v =
			realloc(f->res.snapshots, (f->res.nr_snapshots + 1) * sizeof(*v));

		if (v) {
			f->res.snapshots = v;
			v[f->res.nr_snapshots++] = f->cur;
		}
	}
	if (f->o->on_snapshot)
		f->o->on_snapshot(&f->cur, f->o->event_arg);
}

static int cmp_pending(const void *a, const void *b)
{
	double x = ((const struct pending *)a)->time, y = ((const struct pending *)b)->time;

	return x < y ? -1 : x > y;
}

/* Take the pending triggers, oldest first: suppressed, or a snapshot. */
static void take_triggers(struct strobe_flight *f, bool at_exit)
{
	struct pending *v;
	size_t n, i;

	pthread_mutex_lock(&f->lock);
	v = f->pending;
	n = f->nr_pending;
	f->pending = NULL;
	f->nr_pending = f->cap_pending = 0;
	f->res.triggers += f->pending_overflow;
	f->res.suppressed_busy += f->pending_overflow;
	f->pending_overflow = 0;
	pthread_mutex_unlock(&f->lock);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_pending);
	for (i = 0; i < n; i++) {
		f->res.triggers++;
		if (f->active) {
			f->res.suppressed_busy++;
		} else if (f->o->flight_max_snapshots &&
			   f->res.nr_snapshots >= f->o->flight_max_snapshots) {
			f->res.suppressed_limit++;
		} else if (f->res.nr_snapshots && f->o->flight_min_interval > 0 &&
			   v[i].time - f->last_time < f->o->flight_min_interval) {
			f->res.suppressed_interval++;
		} else {
			begin_snapshot(f, &v[i]);
			if (f->o->flight_post <= 0 || at_exit)
				finish_snapshot(f, at_exit && f->o->flight_post > 0);
		}
	}
	free(v);
}

void flight_poll(struct strobe_flight *f)
{
	if (!f)
		return;
	if (f->o->flight_signal) {
		sig_atomic_t now = *f->o->flight_signal;

		while (f->signals_seen != now) {
			f->signals_seen++;
			add_pending(f, "signal", "SIGUSR1", real_s());
		}
	}
	read_fifo(f);
	if (f->active) {
		copy_pages(f);
		if (mono_s() >= f->post_until)
			finish_snapshot(f, false);
	}
	take_triggers(f, false);
}

void flight_end(struct strobe_flight *f)
{
	if (!f)
		return;
	flight_poll(f);
	if (f->active)
		finish_snapshot(f, true);
}

void flight_exit(struct strobe_flight *f)
{
	struct pending p = { "exit", "end of the recording", 0 };

	if (!f)
		return;
	/* triggers that came while the capture drained */
	flight_poll(f);
	take_triggers(f, true);
	if (f->active)
		finish_snapshot(f, true);
	if (f->o->flight_on_exit) {
		p.time = real_s();
		f->res.triggers++;
		begin_snapshot(f, &p);
		finish_snapshot(f, false);
	}
}

void flight_result(struct strobe_flight *f, struct strobe_flight_result *res)
{
	struct strobe_ring_stats st;
	int c;

	if (!f)
		return;
	for (c = 0; c < f->nr_cpus; c++) {
		strobe_ring_stats(f->rings[c], &st);
		f->res.ring_resident += st.resident;
		f->res.ring_waits += st.waits;
		f->res.ring_wait_s += st.wait_ns / 1e9;
	}
	*res = f->res;
	f->res.snapshots = NULL;
	f->res.nr_snapshots = 0;
}
