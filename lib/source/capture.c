/*
 * capture.c - a session's per-CPU readers feeding files and a live stream
 * (see include/strobe/capture.h).
 *
 * It ties the pieces together: source/live.c (reader threads and their
 * sinks), source/pageq.c (per-CPU page queues, one per stream feed),
 * tracefile/tep.c (event formats from the session's metadata, owned by
 * the stream) and stream/stream.c (the merge).  The stream owns what it
 * needs to outlive the capture: its queues' feed-side references, the
 * eventfd the readers wake it with (closed only after every queue was
 * abandoned, so no reader writes to it afterwards), and the formats.
 *
 * A capture that writes files and feeds a stream never lets the stream
 * hold the files up: its queues are lossy (pageq.h), so a consumer that
 * falls behind loses pages of the stream only (marked as lost events on
 * the stream), while the files get every page the kernel gave.  A
 * stream alone keeps the waiting queues: there a slow consumer fills the
 * kernel's buffer and the kernel counts what it drops.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/capture.h>

#include "../session/internal.h"
#include "../stream/stream-int.h"
#include "format/tep.h"
#include "capture-int.h"
#include "live.h"
#include "pageq.h"
#include "ring.h"

#define DEFAULT_FLUSH_MS 50
#define MAX_EXTRA_TIDS 16

struct strobe_capture {
	struct strobe_session *s;
	const struct strobe_session_meta *meta;	/* borrowed or own_meta */
	struct strobe_session_meta *own_meta;
	int nr_cpus;
	unsigned flush_ms, queue_pages;
	int *fds;			/* NULL: no file sinks */
	struct strobe_pageq **queues;	/* NULL: no stream */
	struct strobe_ring **rings;	/* NULL: no flight recorder (borrowed) */
	struct strobe_live *live;
	bool started, stopped;
	bool queues_given;		/* the readers hold the queues' 2nd refs */
	bool keep_self;			/* opts->keep_self: no exclude_self */
	pid_t extra_tids[MAX_EXTRA_TIDS];	/* strobe_capture_exclude_tids */
	size_t nr_extra_tids;
};

/* opts->field is there if the caller's struct is long enough for it. */
#define HAS(o, field) ((o) && offsetof(struct strobe_capture_opts, field) + \
	sizeof((o)->field) <= ((o)->size ? (o)->size : sizeof(*(o))))

/* What a live stream owns (freed by strobe_stream_close). */
struct live_owner {
	int wake_fd;
	struct strobe_tep tep;
};

struct queue_feed {
	struct strobe_pageq *q;
	uint64_t next_off;
	unsigned page_size;
};

static int queue_feed_next(void *ctx, const uint8_t **page, uint64_t *offset,
			   struct strobe_error *err)
{
	struct queue_feed *f = ctx;
	int r = strobe_pageq_next(f->q, page);

	if (r > 0) {
		*offset = f->next_off;
		f->next_off += f->page_size;
	}
	return r;
}

static uint64_t queue_feed_idle(void *ctx)
{
	return strobe_pageq_idle_until(((struct queue_feed *)ctx)->q);
}

static void queue_feed_kick(void *ctx)
{
	strobe_pageq_kick(((struct queue_feed *)ctx)->q);
}

static void queue_feed_close(void *ctx)
{
	struct queue_feed *f = ctx;

	strobe_pageq_abandon(f->q);
	strobe_pageq_put(f->q);
	free(f);
}

static void owner_close(void *ctx)
{
	struct live_owner *o = ctx;

	if (o->wake_fd >= 0)
		close(o->wake_fd);
	strobe_tep_release(&o->tep);
	free(o);
}

int strobe_capture_open(struct strobe_session *s, const struct strobe_capture_opts *opts,
			struct strobe_capture **out, struct strobe_error *err)
{
	struct strobe_capture *c;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return strobe_err(err, -ENOMEM, "out of memory");
	c->s = s;
	c->nr_cpus = strobe_session_nr_cpus(s);
	c->flush_ms = HAS(opts, flush_ms) && opts->flush_ms ? opts->flush_ms : DEFAULT_FLUSH_MS;
	c->queue_pages = HAS(opts, queue_pages) && opts->queue_pages ? opts->queue_pages
								      : STROBE_CAPTURE_QUEUE_PAGES;
	c->keep_self = HAS(opts, keep_self) && opts->keep_self;
	if (HAS(opts, meta))
		c->meta = opts->meta;
	*out = c;
	return 0;
}

int strobe_capture_add_fds(struct strobe_capture *c, const int *fds, struct strobe_error *err)
{
	if (c->started)
		return strobe_err(err, -EBUSY, "the capture has started");
	free(c->fds);
	c->fds = malloc(c->nr_cpus * sizeof(*c->fds));
	if (!c->fds)
		return strobe_err(err, -ENOMEM, "out of memory");
	memcpy(c->fds, fds, c->nr_cpus * sizeof(*c->fds));
	return 0;
}

int strobe_capture_add_rings(struct strobe_capture *c, struct strobe_ring *const *rings,
			     struct strobe_error *err)
{
	if (c->started)
		return strobe_err(err, -EBUSY, "the capture has started");
	free(c->rings);
	c->rings = malloc(c->nr_cpus * sizeof(*c->rings));
	if (!c->rings)
		return strobe_err(err, -ENOMEM, "out of memory");
	memcpy(c->rings, rings, c->nr_cpus * sizeof(*c->rings));
	return 0;
}

static int need_meta(struct strobe_capture *c, struct strobe_error *err)
{
	if (c->meta)
		return 0;
	int e = strobe_session_meta_collect(c->s, NULL, &c->own_meta, err);

	if (e < 0)
		return e;
	c->meta = c->own_meta;
	return 0;
}

int strobe_capture_stream(struct strobe_capture *c, struct strobe_stream **out,
			  struct strobe_error *err)
{
	struct strobe_page_feed *feeds = NULL;
	struct live_owner *o = NULL;
	const struct strobe_tf_meta *m;
	int i, e, n = 0;

	*out = NULL;
	if (c->started)
		return strobe_err(err, -EBUSY, "the capture has started");
	if (c->queues)
		return strobe_err(err, -EBUSY, "the capture has a stream already");
	e = need_meta(c, err);
	if (e < 0)
		return e;
	m = strobe_session_meta_tf(c->meta);
	o = calloc(1, sizeof(*o));
	feeds = calloc(c->nr_cpus, sizeof(*feeds));
	c->queues = calloc(c->nr_cpus, sizeof(*c->queues));
	if (!o || !feeds || !c->queues) {
		e = strobe_err(err, -ENOMEM, "out of memory");
		goto fail;
	}
	o->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (o->wake_fd < 0) {
		e = strobe_err(err, -errno, "eventfd: %s", strerror(errno));
		goto fail;
	}
	e = strobe_tep_from_meta(&o->tep, m, err);
	if (e < 0)
		goto fail;
	for (n = 0; n < c->nr_cpus; n++) {
		struct queue_feed *f = calloc(1, sizeof(*f));

		c->queues[n] = f ? strobe_pageq_new(m->page_size, c->queue_pages, o->wake_fd)
				 : NULL;
		if (!c->queues[n]) {
			free(f);
			e = strobe_err(err, -ENOMEM, "out of memory");
			goto fail;
		}
		f->q = c->queues[n];
		f->page_size = m->page_size;
		feeds[n].next_page = queue_feed_next;
		feeds[n].idle_until = queue_feed_idle;
		feeds[n].kick = queue_feed_kick;
		feeds[n].close = queue_feed_close;
		feeds[n].ctx = f;
		feeds[n].cpu = n;
	}
	/* from here the stream owns the feeds (closed on failure too) */
	e = strobe_stream_open_feeds(feeds, n, m->page_size, o->tep.commit_size, o->tep.formats,
				     0, out, err);
	free(feeds);
	feeds = NULL;
	n = 0;
	if (e < 0) {
		/* the feeds dropped their references; the readers' go too */
		for (i = 0; i < c->nr_cpus; i++)
			strobe_pageq_put(c->queues[i]);
		free(c->queues);
		c->queues = NULL;
		owner_close(o);
		return e;
	}
	strobe_stream_set_owner(*out, o->wake_fd, owner_close, o);
	return 0;
fail:
	for (i = 0; i < n; i++) {
		queue_feed_close(feeds[i].ctx);		/* the feed's reference */
		strobe_pageq_put(c->queues[i]);		/* the reader's */
	}
	free(feeds);
	free(c->queues);
	c->queues = NULL;
	if (o)
		owner_close(o);
	return e;
}

int strobe_capture_exclude_tids(struct strobe_capture *c, const pid_t *tids, size_t n)
{
	if (c->started)
		return -EBUSY;
	if (n > MAX_EXTRA_TIDS - c->nr_extra_tids)
		return -ENOSPC;
	memcpy(c->extra_tids + c->nr_extra_tids, tids, n * sizeof(*tids));
	c->nr_extra_tids += n;
	return 0;
}

/* The text of a small tracefs file, its first line only (malloc'd;
 * NULL when it cannot be read). */
static char *first_line(const char *path)
{
	char *b = NULL;

	if (strobe_fs_read(path, &b, NULL) < 0)
		return NULL;
	b[strcspn(b, "\n")] = '\0';
	return b;
}

/* AND `clause` into the filter of every enabled event of subsystem
 * `sys` of the instance at dir (best effort). */
static void and_filters(const char *dir, const char *sys, const char *clause)
{
	char path[512], *en, *cur, *f;
	struct dirent *de;
	DIR *d;

	if (strobe_fs_path(path, sizeof(path), "%s/events/%s", dir, sys) < 0 ||
	    !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strobe_fs_path(path, sizeof(path), "%s/events/%s/%s/enable", dir, sys,
				   de->d_name) < 0)
			continue;
		en = first_line(path);
		if (!en || en[0] != '1') {
			free(en);
			continue;
		}
		free(en);
		snprintf(path + strlen(path) - strlen("enable"), strlen("filter") + 1, "filter");
		cur = first_line(path);
		if (!cur)
			continue;
		if (!strcmp(cur, "none") ? asprintf(&f, "%s", clause) >= 0
					 : asprintf(&f, "(%s) && %s", cur, clause) >= 0) {
			(void)strobe_fs_write(path, f, 0);
			free(f);
		}
		free(cur);
	}
	closedir(d);
}

/* Does the instance's set_event_pid hold some PIDs and none of tids[]?
 * Then the kernel already drops these threads' events (each event checks
 * the running task against the list; threads strobe creates later are not
 * children of a listed task, so event-fork never adds them). */
static bool pids_exclude(const char *dir, const pid_t *tids, int n)
{
	char path[512], *text = NULL, *p, *end;
	bool some = false, ours = false;
	pid_t self = getpid();
	long v;
	int i;

	if (strobe_fs_path(path, sizeof(path), "%s/set_event_pid", dir) < 0 ||
	    strobe_fs_read(path, &text, NULL) < 0)
		return false;
	for (p = text; *p && !ours; p = end) {
		v = strtol(p, &end, 10);
		if (end == p) {
			end = p + 1;
			continue;
		}
		some = true;
		ours = v == self;
		for (i = 0; i < n && !ours; i++)
			ours = v == tids[i];
	}
	free(text);
	return some && !ours;
}

/*
 * Keep strobe's own threads (this one, the readers and those the
 * recorder named) out of the system-call events: their splice, poll and
 * /proc work would otherwise fill a whole-system recording.  An event
 * filter (common_pid != T), not set_event_notrace_pid: that one also
 * drops every event in interrupt context that arrives while one of these
 * threads runs (a disk's completion, a timer's wake-up of another task),
 * while system calls run only in their own task's context.  Their other
 * events (a reader's context switches, its wake-ups) are recorded: the
 * machine did that work.  Best effort: an event whose filter the kernel
 * refuses records them.  Not when a PID list already leaves them out
 * (a command, -p, a container): a filter costs every event of the
 * system-call tracepoints a copy through the kernel's filter buffer:
 * 2 M getppid under `strobe record -e sched -e syscalls -- CMD` took
 * 2.05 s with the filter and 1.85 s without, the capture floor 1.79 s
 * (medians of 5 interleaved runs on the 2-CPU VM).
 */
static void exclude_self(struct strobe_capture *c)
{
	pid_t tids[1 + MAX_EXTRA_TIDS + 256];
	char clause[4096];
	size_t len = 0;
	int n, i;

	tids[0] = gettid();
	memcpy(tids + 1, c->extra_tids, c->nr_extra_tids * sizeof(*tids));
	n = 1 + (int)c->nr_extra_tids;
	n += strobe_live_tids(c->live, tids + n, 256);
	if (pids_exclude(strobe_session_dir(c->s), tids, n))
		return;
	clause[0] = '\0';
	for (i = 0; i < n && len < sizeof(clause) - 32; i++)
		len += (size_t)snprintf(clause + len, sizeof(clause) - len, "%scommon_pid != %d",
					i ? " && " : "", (int)tids[i]);
	and_filters(strobe_session_dir(c->s), "raw_syscalls", clause);
	and_filters(strobe_session_dir(c->s), "syscalls", clause);
}

int strobe_capture_start(struct strobe_capture *c, struct strobe_error *err)
{
	struct strobe_live_sinks sinks = { 0 };
	unsigned page_size;
	int e;

	if (c->started)
		return strobe_err(err, -EBUSY, "the capture has started");
	if (!c->fds && !c->queues && !c->rings)
		return strobe_err(err, -EINVAL, "the capture has no sink (files or a stream)");
	if (c->meta) {
		page_size = strobe_session_meta_tf(c->meta)->page_size;
	} else {
		e = need_meta(c, err);
		if (e < 0)
			return e;
		page_size = strobe_session_meta_tf(c->meta)->page_size;
	}
	if (c->fds && c->queues) {	/* the files first: see the head comment */
		unsigned cs = strobe_session_meta_commit_size(c->meta);
		int i;

		for (i = 0; i < c->nr_cpus; i++)
			strobe_pageq_set_lossy(c->queues[i], cs);
	}
	sinks.fds = c->fds;
	sinks.queues = c->queues;
	sinks.rings = c->rings;
	sinks.flush_ms = c->queues ? c->flush_ms : 0;
	c->started = true;
	/* the readers hold the queues' second references from here, even
	 * if the open fails */
	c->queues_given = true;
	e = strobe_live_open(strobe_session_dir(c->s), c->nr_cpus, &sinks, page_size,
			     &c->live, err);
	if (e < 0)
		return e;
	e = strobe_live_start(c->live, err);
	if (e < 0)
		return e;
	if (!c->keep_self)
		exclude_self(c);
	return strobe_session_start(c->s, err);
}

int strobe_capture_error(const struct strobe_capture *c)
{
	return c->live ? strobe_live_error(c->live) : 0;
}

int strobe_capture_stop(struct strobe_capture *c, struct strobe_error *err)
{
	int e;

	if (!c->started || c->stopped)
		return 0;
	c->stopped = true;
	strobe_session_stop(c->s, NULL);
	if (!c->live)
		return 0;
	e = strobe_live_stop(c->live, err);
	return e;
}

int strobe_capture_lost(struct strobe_capture *c, int cpu, uint64_t *lost,
			struct strobe_error *err)
{
	unsigned long long ov = 0;
	char *text = NULL, *d;
	int e;

	*lost = 0;
	e = strobe_session_cpu_stats(c->s, cpu, &text, &ov, err);
	if (e < 0)
		return e;
	d = strstr(text, "dropped events:");
	*lost = ov + (d ? strtoull(d + 15, NULL, 10) : 0);
	free(text);
	return 0;
}

uint64_t strobe_capture_bytes(const struct strobe_capture *c, int cpu)
{
	return c->live && cpu >= 0 && cpu < c->nr_cpus ? strobe_live_bytes(c->live, cpu) : 0;
}

void strobe_capture_free(struct strobe_capture *c)
{
	int i;

	if (!c)
		return;
	strobe_capture_stop(c, NULL);
	strobe_live_free(c->live);	/* drops the readers' queue references */
	if (c->queues && !c->queues_given) {
		for (i = 0; i < c->nr_cpus; i++) {	/* never started */
			strobe_pageq_end(c->queues[i]);
			strobe_pageq_put(c->queues[i]);
		}
	}
	free(c->queues);
	free(c->rings);
	free(c->fds);
	strobe_session_meta_free(c->own_meta);
	free(c);
}
