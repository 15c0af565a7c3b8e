/*
 * record.c - strobe_record(): one recording from start to finished file.
 *
 * It only orchestrates the layers below it: session (tracefs control), a
 * capture (capture.h: per-CPU splice readers into unnamed files) and the
 * tracefile writer (trace.dat v6), then counts events and lost events per
 * CPU from the captured page headers with the stream layer's page decoder.
 *
 * Order matters for correctness:
 *   - events, filters and PIDs are set while tracing is off; the buffers
 *     are cleared and tracing turned on only then, and a traced command is
 *     released (it waits on a pipe after fork) only once tracing is on and
 *     its PID is in set_event_pid with event-fork, so its first system
 *     call is seen;
 *   - the writer is opened before tracing starts, reserving the file's
 *     metadata: if the disk fills up later the file is still completed
 *     from whatever pages were captured, and marked incomplete;
 *   - at the end tracing is turned off before the readers drain, so the
 *     drain terminates, and the readers are closed before the instance is
 *     removed (tracefs refuses to remove an instance with open files).
 *
 * Files: the output is written under a random name next to it and renamed
 * into place only when finished (tracefile writer), so a failed recording
 * leaves an older file as it was; the per-CPU files are created the same
 * way (never through a planted symlink, mode 0600) and unlinked at once:
 * only their descriptors name them.
 *
 * SIGKILL: a guardian child, forked before the reader threads start
 * (while the process is single-threaded), holds copies of the per-CPU
 * descriptors and of the writer, and waits on a pipe only strobe can
 * write.  A byte means strobe finished; end-of-file means it died.  The
 * guardian then turns tracing off, removes the instance (strobe's reader
 * descriptors died with it) and assembles what the readers had captured
 * into the output, marked incomplete, within a second or so.
 *
 * The process and container table (lib/model) is a /proc snapshot taken
 * before tracing starts, completed while recording by a /proc scan every
 * MODEL_SCAN_S seconds (CONTAINER_SCAN_S with -c, whose scan also adds
 * tasks that entered a target container to set_event_pid) and a last one
 * at the end; it is appended after the CPU data.  Names of containers are
 * looked up when a scan first meets them, while their metadata exists.
 * A container that lives between two scans is caught by the model's
 * watcher (lib/model/watch.c: inotify on the cgroup trees, names looked up
 * the moment a container's cgroup appears), started once the guardian
 * exists (it is a thread) and applied to the table at every loop turn.
 *
 * A live consumer (opts->on_event) gets the capture's live stream too:
 * instead of the wait loop, a pipeline (pipeline.h) runs with the stream
 * as its source, a model of its own (loaded from /proc like the table's,
 * then fed by the events only, so the file's table is exactly what it
 * would be without a consumer), on_event as its consumer and the
 * recorder's own work (end conditions, scans, on_tick) as its poll hook.  The capture makes
 * the stream lossy when it also writes files (capture.h), so a slow
 * consumer costs the stream pages, never the file.  With no_output there
 * are neither temporary files nor a writer, and the guardian only
 * removes the instance.  Without on_event nothing of this runs: no
 * stream, the readers splice as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>
#include <strobe/probe.h>

#include "../model/model-int.h"
#include "../util/opts.h"
#include "../session/internal.h"
#include "../stream/page.h"
#include "../util/file.h"
#include "../source/capture-int.h"
#include "../source/ring.h"
#include "../tracefile/tracefile-int.h"
#include "flight.h"

/* One instance buffer of the output: the records of one system. */
struct rec_buf {
	char *system;		/* "strobe_bpf", "strobe_perf", ... */
	struct tf_packer *pk;
};

struct rec {
	const struct strobe_record_opts *o;	/* &oc */
	struct strobe_record_source rs;	/* add_records' (rs.next NULL: none) */
	struct strobe_record_opts oc;	/* the caller's, as this library knows them */
	struct strobe_record_result *res;
	const char *out;
	struct strobe_session *s;
	struct strobe_session_meta *meta;
	struct strobe_tf_writer *w;
	struct strobe_capture *cap;
	int nr_cpus;
	int *fds;		/* per-CPU page files (unlinked: no names) */
	char **stats;
	pid_t guard;		/* the guardian, or 0 */
	int guard_fd;		/* write end of its pipe, or -1 */
	pid_t child;
	int go_fd;		/* write end: releases the child */
	int exec_fd;		/* read end: errno from a failed exec */
	bool child_reaped;
	char *extra_cmdlines;
	struct strobe_model *model;	/* NULL with no_model and no -c */
	struct model_watch *watch;	/* NULL if the watcher could not start */
	double next_scan;
	/* with on_event */
	struct strobe_stream *st;
	struct strobe_model *live_model;	/* the consumer's (see the head comment) */
	struct strobe_error pipe_err;	/* a failure in opts->consumers or the
					 * pipeline itself: its message */
	int consumer_err;	/* the consumer's negative return, or 0 */
	double next_tick;
	double next_progress;	/* the next on_progress call */
	double t0;		/* when tracing went on */
	bool ended;		/* an end condition was met */
	int cap_err;		/* the capture's error, when it failed */
	struct strobe_flight *flight;	/* --flight-recorder, or NULL */
	/* "clock_sync_start=...\n", "clock_sync_end=...\n" or "" */
	char clock_sync[2][112];
	/*
	 * add_records with a file: each record the pipeline hands out from
	 * the record source is packed into the buffer of its format's
	 * system (in order of first record); the declared formats are
	 * copied (owned) before the stream that holds them closes.  After a
	 * packing failure (pack_err, its message in pack_msg) no more
	 * records are packed and the file is written without them.
	 */
	struct rec_buf *bufs;
	int nr_bufs;
	struct strobe_tf_format *decl;
	size_t nr_decl;
	int pack_err;
	struct strobe_error pack_msg;
};

#define TICK_S 0.1
#define PROGRESS_S 0.25	/* on_progress's interval */
#define LIVE(o) ((o)->on_event || (o)->nr_consumers)
/* a live stream: for a consumer, or to merge records into the file */
#define STREAM(o) (LIVE(o) || (o)->add_records)
#define FLIGHT(o) ((o)->flight_size > 0)
#define WAIT_S 0.02

#define MODEL_SCAN_S 0.25
#define CONTAINER_SCAN_S 0.1

/* The events that keep the model current (absent ones are skipped). */
static const char *const model_events[] = {
	"sched:sched_process_fork", "sched:sched_process_exec",
	"sched:sched_process_exit", "task:task_newtask", "task:task_rename",
	"cgroup:cgroup_attach_task",
};

/*
 * Open the writer with an info block that says the file is unfinished:
 * close() replaces it, so only a recording that never finished (strobe
 * killed, machine down) keeps it, and every reader then says so.
 */
static int open_writer(struct rec *r, const struct strobe_session_meta *meta,
		       struct strobe_error *err)
{
	struct strobe_tf_meta m = *strobe_session_meta_tf(meta);
	struct strobe_tf_format *all = NULL;
	const char **names = NULL;
	int i, e;

	m.strobe_info = "strobe_version=" STROBE_VERSION "\n"
		"incomplete=the recording did not finish (strobe was killed or "
		"the machine stopped before the file was completed)\n";
	if (!r->nr_decl && !r->nr_bufs)
		return strobe_tf_writer_open(r->out, &m, r->nr_cpus, &r->w, err);
	/* the kernel's formats, the declared ones, a buffer per system */
	all = malloc((m.nr_formats + r->nr_decl) * sizeof(*all));
	names = calloc((size_t)r->nr_bufs + 1, sizeof(*names));
	if (!all || !names) {
		free(all);
		free(names);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	if (m.nr_formats)
		memcpy(all, m.formats, m.nr_formats * sizeof(*all));
	if (r->nr_decl)
		memcpy(all + m.nr_formats, r->decl, r->nr_decl * sizeof(*all));
	m.formats = all;
	m.nr_formats += r->nr_decl;
	for (i = 0; i < r->nr_bufs; i++)
		names[i] = r->bufs[i].system;
	e = tf_writer_open_buffers(r->out, &m, r->nr_cpus, names, r->nr_bufs, &r->w, err);
	free(all);
	free(names);
	return e;
}

/*
 * A record of the record source (ev->buffer -1), with a file: into the
 * packer of its format's system, made at its first record.  A record
 * whose format is unknown is not stored (it cannot be read back).  The
 * source's lost-record count (ev->missed) marks the next page.
 */
static int pack_record(struct rec *r, const struct strobe_event *ev)
{
	const struct strobe_tf_meta *m = strobe_session_meta_tf(r->meta);
	struct strobe_error *err = &r->pack_msg;
	const char *sys;
	struct rec_buf *b = NULL, *nb;
	int i, e;

	if (r->pack_err || !ev->format)
		return 0;
	sys = strobe_format_system(ev->format);
	for (i = 0; i < r->nr_bufs && !b; i++)
		if (!strcmp(r->bufs[i].system, sys))
			b = &r->bufs[i];
	if (!b) {
		nb = realloc(r->bufs, ((size_t)r->nr_bufs + 1) * sizeof(*nb));
		if (!nb)
			return r->pack_err = strobe_err(err, -ENOMEM, "out of memory");
		r->bufs = nb;
		b = &r->bufs[r->nr_bufs];
		memset(b, 0, sizeof(*b));
		if (!(b->system = strdup(sys)))
			return r->pack_err = strobe_err(err, -ENOMEM, "out of memory");
		r->nr_bufs++;
		e = tf_packer_new(r->out, m->page_size, strobe_session_meta_commit_size(r->meta),
				  r->nr_cpus, &b->pk, err);
		if (e < 0)
			return r->pack_err = e;
	}
	e = 0;
	if (ev->missed)
		e = tf_packer_lost(b->pk, ev->cpu, ev->missed, err);
	if (e == 0)
		e = tf_packer_add(b->pk, ev->cpu, ev->ts, ev->data, ev->size, err);
	if (e == -EINVAL || e == -EMSGSIZE) {
		/* this record only (earlier than its CPU's last, too large for
		 * a page, a CPU the file lacks): left out, said as a loss */
		e = tf_packer_lost(b->pk, ev->cpu, 1, err);
		if (e == -EINVAL)
			e = 0;
		if (!e)
			strobe_err_clear(err);
		r->res->records_left_out++;
	} else if (e == 0) {
		r->res->records++;
	}
	if (e < 0)
		r->pack_err = e;
	return e;
}

/* Keep copies of the formats declared into the stream's catalogue
 * (tf_formats_with_declared: those past the kernel's), before the
 * stream, which owns them, is closed. */
static int keep_declared(struct rec *r, struct strobe_error *err)
{
	const struct strobe_tf_meta *m = strobe_session_meta_tf(r->meta);
	struct strobe_tf_format *all = NULL;
	size_t n = 0, i;
	int e;

	e = tf_formats_with_declared(m, strobe_stream_formats(r->st), &all, &n, err);
	if (e < 0)
		return e;
	r->decl = calloc(n - m->nr_formats + 1, sizeof(*r->decl));
	if (!r->decl) {
		free(all);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	for (i = m->nr_formats; i < n; i++) {
		struct strobe_tf_format *d = &r->decl[r->nr_decl];

		d->system = strdup(all[i].system);
		d->text = strndup(all[i].text, all[i].len);
		d->len = all[i].len;
		r->nr_decl++;
		if (!d->system || !d->text) {
			free(all);
			return strobe_err(err, -ENOMEM, "out of memory");
		}
	}
	free(all);
	return 0;
}

static void free_records(struct rec *r)
{
	size_t k;
	int i;

	for (i = 0; i < r->nr_bufs; i++) {
		tf_packer_free(r->bufs[i].pk);	/* its temporary files go */
		free(r->bufs[i].system);
	}
	free(r->bufs);
	r->bufs = NULL;
	r->nr_bufs = 0;
	for (k = 0; k < r->nr_decl; k++) {
		free((char *)r->decl[k].system);
		free((char *)r->decl[k].text);
	}
	free(r->decl);
	r->decl = NULL;
	r->nr_decl = 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/*
 * Fork the command; it blocks reading go_fd until released, then execs.
 * An exec failure travels back as an int errno on a close-on-exec pipe:
 * EOF on that pipe means the exec succeeded.
 */
static int spawn_child(struct rec *r, struct strobe_error *err)
{
	int go[2], ex[2];
	char c;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0)
		return strobe_err(err, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return strobe_err(err, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		int e;

		close(go[1]);
		close(ex[0]);
		ssize_t n;

		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);	/* strobe gave up before starting us */
		close(go[0]);
		execvp(r->o->argv[0], r->o->argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	r->child = pid;
	r->res->child_pid = pid;
	r->go_fd = go[1];
	r->exec_fd = ex[0];
	return 0;
}

/* Wait for the child: if it is still running after `grace` seconds of
 * SIGTERM, SIGKILL it. */
static void reap_child(struct rec *r, int sig)
{
	double end;
	int st;

	if (r->child <= 0 || r->child_reaped)
		return;
	if (sig)
		kill(r->child, sig);
	end = now_s() + 2.0;
	for (;;) {
		pid_t p = waitpid(r->child, &st, WNOHANG);

		if (p == r->child || (p < 0 && errno != EINTR))
			break;
		if (now_s() > end) {
			kill(r->child, SIGKILL);
			waitpid(r->child, &st, 0);
			break;
		}
		sleep_s(0.01);
	}
	r->child_reaped = true;
}

/* "pid comm\n" for the tasks we know: the child, or -p's threads. */
static int known_comms(struct rec *r, const pid_t *tids, size_t n)
{
	size_t cap = 64 + n * 40, off = 0, i;
	char *b = malloc(cap);

	if (!b)
		return -ENOMEM;
	b[0] = '\0';
	if (r->child > 0) {
		const char *base = strrchr(r->o->argv[0], '/');

		base = base ? base + 1 : r->o->argv[0];
		/* exec names the task after the file, cut to 15 bytes */
		off += snprintf(b + off, cap - off, "%d %.15s\n", (int)r->child, base);
	}
	for (i = 0; i < n; i++) {
		char p[64], *comm, *nl;

		snprintf(p, sizeof(p), "/proc/%d/task/%d/comm", (int)r->o->pid, (int)tids[i]);
		if (strobe_fs_read(p, &comm, NULL) < 0)
			continue;
		nl = strchr(comm, '\n');
		if (nl)
			*nl = '\0';
		off += snprintf(b + off, cap - off, "%d %.15s\n", (int)tids[i], comm);
		free(comm);
		if (off >= cap)
			break;
	}
	r->extra_cmdlines = b;
	return 0;
}

static int open_tmp_files(struct rec *r, struct strobe_error *err)
{
	char *name;
	int i;

	r->fds = malloc(r->nr_cpus * sizeof(*r->fds));
	r->stats = calloc(r->nr_cpus, sizeof(*r->stats));
	if (!r->fds || !r->stats)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < r->nr_cpus; i++)
		r->fds[i] = -1;
	for (i = 0; i < r->nr_cpus; i++) {
		r->fds[i] = strobe_file_create_tmp(r->out, &name, err);
		if (r->fds[i] < 0)
			return r->fds[i];
		unlink(name);
		free(name);
	}
	return 0;
}

/* Count events and lost events in the whole pages of one temp file. */
static void count_cpu(struct rec *r, int cpu, struct strobe_record_cpu *st)
{
	const struct strobe_tf_meta *m = strobe_session_meta_tf(r->meta);
	unsigned ps = m->page_size, cs = strobe_session_meta_commit_size(r->meta);
	struct strobe_page_rec pr;
	struct strobe_page p;
	uint8_t *buf;
	off_t off;

	buf = malloc(ps);
	if (!buf)
		return;
	for (off = 0;; off += ps) {
		ssize_t n = pread(r->fds[cpu], buf, ps, off);

		if (n != (ssize_t)ps)
			break;
		st->bytes += ps;
		if (strobe_page_init(&p, buf, ps, cs, NULL) < 0)
			continue;
		if (p.missed > 0)
			st->lost += p.missed;
		else if (p.missed < 0)
			st->lost_unknown = true;
		while (strobe_page_next(&p, &pr, NULL) == 1)
			st->events++;
	}
	free(buf);
}

static int enable_events(struct rec *r, struct strobe_error *err)
{
	const struct strobe_record_opts *o = r->o;
	size_t i;
	int n;

	if (!o->nr_events) {
		n = strobe_session_enable(r->s, "sched", NULL, err);
		if (n >= 0)
			n = strobe_session_enable(r->s, "syscalls", NULL, err);
		return n < 0 ? n : 0;
	}
	for (i = 0; i < o->nr_events; i++) {
		n = strobe_session_enable(r->s, o->events[i].spec, o->events[i].filter, err);
		if (n < 0)
			return n;
	}
	return 0;
}

/* --stacks, --user-stacks: the kernel stack at each context switch (a
 * stacktrace trigger on sched_switch, which is enabled for it) and the
 * user stack after each event; the session removes both at close. */
static int enable_stacks(struct rec *r, struct strobe_error *err)
{
	const struct strobe_record_opts *o = r->o;
	int n;

	if (!o->stacks && !o->user_stacks)
		return 0;
	n = strobe_session_enable(r->s, "sched:sched_switch", NULL, err);
	if (n >= 0)
		n = strobe_session_set_trigger(r->s, "sched:sched_switch", "stacktrace", err);
	if (n >= 0 && o->user_stacks)
		n = strobe_session_set_option(r->s, "userstacktrace", true, err);
	return n < 0 ? n : 0;
}

static bool is_target(const struct rec *r, const struct strobe_container *c)
{
	size_t i;

	if (c->index < 2)
		return false;
	for (i = 0; i < r->o->nr_containers; i++)
		if (strobe_container_matches(c, r->o->containers[i]))
			return true;
	return false;
}

/* "alpha, beta" or "none": the containers running now, for messages. */
static void running_list(struct rec *r, char *buf, size_t size)
{
	size_t off = 0;
	int i, n = strobe_model_nr_containers(r->model);

	snprintf(buf, size, "none");
	for (i = 2; i < n && off < size; i++) {
		const struct strobe_container *c = strobe_model_container(r->model, i);

		off += (size_t)snprintf(buf + off, size - off, "%s%s (%s)", off ? ", " : "",
					c->name, c->short_id);
	}
}

/* -c: every task of the target containers, followed at fork. */
static int set_containers(struct rec *r, struct strobe_error *err)
{
	const struct strobe_container *c;
	pid_t *tids = NULL, *nv;
	size_t n = 0, cap = 0, cur = 0, i;
	const struct strobe_task *t;
	char list[1024];
	int e = 0, k;

	for (i = 0; i < r->o->nr_containers; i++) {
		bool found = false;

		for (k = 2; k < strobe_model_nr_containers(r->model) && !found; k++)
			found = strobe_container_matches(strobe_model_container(r->model, k),
							 r->o->containers[i]);
		if (!found) {
			running_list(r, list, sizeof(list));
			return strobe_err(err, -ESRCH, "no running container '%s' (running: %s)",
					  r->o->containers[i], list);
		}
	}
	while ((t = strobe_model_next_task(r->model, &cur))) {
		c = t->container;
		if (!is_target(r, c))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(tids, cap * sizeof(*nv));
			if (!nv) {
				free(tids);
				return strobe_err(err, -ENOMEM, "out of memory");
			}
			tids = nv;
		}
		tids[n++] = t->tid;
	}
	if (!n)
		e = strobe_err(err, -ESRCH, "container '%s' has no tasks", r->o->containers[0]);
	/* a task may exit meanwhile: add one by one, skipping the gone */
	for (i = 0; i < n && e == 0; i++) {
		e = strobe_session_set_pids(r->s, &tids[i], 1, true, err);
		if (e == -ESRCH)
			e = 0;
	}
	free(tids);
	if (e < 0)
		return e;
	return known_comms(r, NULL, 0);
}

static void on_new_task(const struct strobe_task *t, void *arg)
{
	struct rec *r = arg;
	pid_t tid = t->tid;

	if (r->o->nr_containers && is_target(r, t->container))
		strobe_session_set_pids(r->s, &tid, 1, true, NULL);
}

/* The periodic /proc scan: the model's table, and -c's new tasks. */
static void model_scan(struct rec *r, bool force)
{
	double now;

	if (!r->model)
		return;
	model_watch_apply(r->watch, r->model, on_new_task, r);
	now = now_s();
	if (!force && now < r->next_scan)
		return;
	strobe_model_rescan_proc(r->model, on_new_task, r, NULL);
	/* the consumer's model too: a task that entered a target container
	 * from outside (podman exec) has no event saying so */
	if (r->live_model && r->o->nr_containers)
		strobe_model_rescan_proc(r->live_model, NULL, NULL, NULL);
	r->next_scan = now_s() + (r->o->nr_containers ? CONTAINER_SCAN_S : MODEL_SCAN_S);
}

static int open_model(struct rec *r, struct strobe_error *err)
{
	const struct strobe_record_opts *o = r->o;
	size_t i;
	int e;

	if (!o->no_model) {
		for (i = 0; i < sizeof(model_events) / sizeof(model_events[0]); i++) {
			e = strobe_session_enable(r->s, model_events[i], NULL, NULL);
			if (e < 0 && e != -ENOENT)
				return strobe_err(err, e, "cannot enable %s: %s", model_events[i],
						  strerror(-e));
		}
	}
	/* the table's model: for the file, and -c's tasks */
	if ((o->no_model || o->no_output) && !o->nr_containers)
		return 0;
	e = strobe_model_new(&r->model, err);
	if (e < 0)
		return e;
	e = strobe_model_load_proc(r->model, err);
	if (e < 0)
		return e;
	r->next_scan = now_s() + CONTAINER_SCAN_S;
	return 0;
}

static int set_target(struct rec *r, struct strobe_error *err)
{
	const struct strobe_record_opts *o = r->o;
	pid_t *tids = NULL;
	size_t n = 0;
	int e;

	if (o->argv && o->argv[0]) {
		e = spawn_child(r, err);
		if (e < 0)
			return e;
		if (!o->argv_whole_system) {
			e = strobe_session_set_pids(r->s, &r->child, 1, true, err);
			if (e < 0)
				return e;
		}
		return known_comms(r, NULL, 0);
	}
	if (o->pid > 0) {
		e = strobe_proc_threads(o->pid, &tids, &n, err);
		if (e < 0)
			return e;
		e = strobe_session_set_pids(r->s, tids, n, true, err);
		if (e == 0)
			e = known_comms(r, tids, n);
		free(tids);
		return e;
	}
	if (o->nr_containers)
		return set_containers(r, err);
	return known_comms(r, NULL, 0);
}

/*
 * --uprobe, --usdt: each probe with PATH resolved in the target's root:
 * -p's process, one task of each target container, or (a command, the
 * whole system) strobe's own.  After set_target (the containers' tasks
 * are known), before the metadata (the probes' formats go in the file).
 */
static int add_probes(struct rec *r, struct strobe_error *err)
{
	const struct strobe_record_opts *o = r->o;
	const struct strobe_task *t;
	pid_t *roots = NULL;
	size_t nr = 0, cur = 0, i, k;
	int e = 0;

	if (!o->nr_uprobes && !o->nr_usdt)
		return 0;
	if (o->pid > 0) {
		roots = malloc(sizeof(*roots));
		if (roots)
			roots[nr++] = o->pid;
	} else if (o->nr_containers && r->model) {
		int nc = strobe_model_nr_containers(r->model);
		bool *seen = calloc((size_t)(nc > 0 ? nc : 1), sizeof(*seen));

		roots = calloc((size_t)(nc > 0 ? nc : 1), sizeof(*roots));
		while (seen && roots && (t = strobe_model_next_task(r->model, &cur)))
			if (is_target(r, t->container) && t->container->index < nc &&
			    !seen[t->container->index] && t->tgid > 0) {
				seen[t->container->index] = true;
				roots[nr++] = t->tgid;
			}
		free(seen);
	} else {
		roots = malloc(sizeof(*roots));
	}
	if (!roots)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (k = 0; k < 2 && e == 0; k++) {
		const char *const *v = k ? o->usdt : o->uprobes;
		size_t n = k ? o->nr_usdt : o->nr_uprobes;

		for (i = 0; i < n && e == 0; i++)
			e = strobe_probe_add(r->s, v[i], k ? STROBE_PROBE_USDT : 0, roots, nr,
					     NULL, 0, err);
	}
	free(roots);
	return e;
}

/* Release the child; 0 if it exec'd, else -errno of the failed exec. */
static int release_child(struct rec *r, struct strobe_error *err)
{
	ssize_t n;
	int e = 0;

	if (r->child <= 0)
		return 0;
	if (write(r->go_fd, "g", 1) < 0)
		return strobe_err(err, -errno, "cannot start the command: %s", strerror(errno));
	close(r->go_fd);
	r->go_fd = -1;
	do
		n = read(r->exec_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(r->exec_fd);
	r->exec_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		reap_child(r, 0);
		r->res->exec_errno = e;
		return strobe_err(err, -e, "cannot run '%s': %s", r->o->argv[0],
				  strerror(e));
	}
	r->res->child_started = true;
	return 0;
}

static bool is_disk_full(int e)
{
	return e == -ENOSPC || e == -EFBIG || e == -EDQUOT;
}

/* The consumer failed (rc < 0): remember it; no more events for it. */
static void consumer_failed(struct rec *r, int rc)
{
	if (!r->consumer_err)
		r->consumer_err = rc;
}

static void tick(struct rec *r, bool final)
{
	int rc;

	r->next_tick = now_s() + TICK_S;
	if (!r->o->on_tick || r->consumer_err)
		return;
	rc = r->o->on_tick(final, r->o->event_arg);
	if (rc < 0)
		consumer_failed(r, rc);
}

/* A number after "name:" in a per_cpu stats text; 0 without it. */
static uint64_t stat_value(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

/*
 * on_progress (record.h) about every PROGRESS_S, and once with last:
 * events the buffers took (read out plus waiting), lost ones (overrun
 * plus dropped), bytes in the per-CPU files so far.
 */
static void progress(struct rec *r, bool last)
{
	const struct strobe_record_opts *o = r->o;
	struct strobe_record_progress pg = { .size = sizeof(pg) };
	double t = now_s();
	struct stat sb;
	int i;

	if (!o->on_progress || !r->s || (!last && t < r->next_progress))
		return;
	r->next_progress = t + PROGRESS_S;
	for (i = 0; i < r->nr_cpus; i++) {
		char *text = NULL;
		unsigned long long ov = 0;

		if (strobe_session_cpu_stats(r->s, i, &text, &ov, NULL) == 0 && text) {
			pg.events += stat_value(text, "read events:") + stat_value(text, "entries:");
			pg.lost += ov + stat_value(text, "dropped events:");
		}
		free(text);
		if (r->fds && r->fds[i] >= 0 && fstat(r->fds[i], &sb) == 0)
			pg.bytes += (uint64_t)sb.st_size;
	}
	pg.elapsed = t - r->t0;
	o->on_progress(&pg, last, o->progress_arg);
}

/*
 * Has the recording reached its end (a stop request, --duration, the
 * command or -p's process exited, the capture failed)?  0 not yet; 1 yes,
 * with r->cap_err set when the capture failed.
 */
static int check_end(struct rec *r)
{
	const struct strobe_record_opts *o = r->o;
	int st, e;

	progress(r, false);
	if (o->stop && *o->stop) {
		r->res->stopped = true;
		return 1;
	}
	if (o->duration > 0 && now_s() - r->t0 >= o->duration)
		return 1;
	if (r->child > 0) {
		pid_t p = waitpid(r->child, &st, WNOHANG);

		if (p == r->child) {
			r->child_reaped = true;
			r->res->child_exited = true;
			r->res->child_status = st;
			return 1;
		}
	} else if (o->pid > 0 && kill(o->pid, 0) < 0 && errno == ESRCH) {
		return 1;
	}
	e = strobe_capture_error(r->cap);
	if (e) {
		r->cap_err = e;
		return 1;
	}
	return 0;
}

/* Without a live consumer: wait until the end; returns the capture error
 * (0 if none). */
static int wait_for_end(struct rec *r)
{
	const struct strobe_record_opts *o = r->o;
	double left;

	while (!check_end(r)) {
		model_scan(r, false);
		flight_poll(r->flight);
		left = o->duration > 0 ? o->duration - (now_s() - r->t0) : 1;
		sleep_s(left > WAIT_S ? WAIT_S : left > 0 ? left : 0);
	}
	return r->cap_err;
}

/*
 * With a live consumer the recording runs as a pipeline (pipeline.h):
 * the capture's stream its source, the task model r->live_model updated
 * by it, the caller's on_event its consumer, and the recorder's own work
 * (the end conditions, /proc scans, on_tick every TICK_S) its poll hook.
 * At the end the pipeline stops the capture and drains it through the
 * consumer, unless the capture failed for another reason than a full
 * disk.
 */
static int live_event(const struct strobe_event *ev, int source, void *arg,
		      struct strobe_error *err)
{
	struct rec *r = arg;
	struct strobe_record_result *res = r->res;
	int rc;

	if (ev->buffer < 0 && r->fds)
		pack_record(r, ev);	/* a failure is said at the end */
	if (r->o->no_output && ev->cpu >= 0 && ev->cpu < r->nr_cpus) {
		res->cpus[ev->cpu].events++;
		if (ev->missed > 0)
			res->cpus[ev->cpu].lost += (uint64_t)ev->missed;
		else if (ev->missed < 0)
			res->cpus[ev->cpu].lost_unknown = true;
	}
	if (!r->o->on_event)
		return 0;
	rc = r->o->on_event(ev, r->live_model, r->o->event_arg);
	if (rc < 0)
		consumer_failed(r, rc);
	return rc < 0 ? rc : 0;
}

static int live_poll(void *arg, struct strobe_error *err)
{
	struct rec *r = arg;

	if (!r->ended && check_end(r)) {
		r->ended = true;
		flight_end(r->flight);	/* before the pipeline stops the capture */
		if (r->cap_err && !is_disk_full(r->cap_err))
			return r->cap_err;	/* nothing to drain */
		return 1;	/* the pipeline stops the capture and drains it */
	}
	model_scan(r, false);
	flight_poll(r->flight);
	if (now_s() >= r->next_tick)
		tick(r, false);
	return r->consumer_err;
}

/* The live part of a recording; returns the capture error (0 if none). */
static int run_live(struct rec *r)
{
	struct strobe_pipeline_opts po = {
		.size = sizeof(po), .poll_ms = (unsigned)(WAIT_S * 1000), .poll = live_poll,
		.poll_arg = r, .tick_ns = r->o->tick_ns,
	};
	struct strobe_consumer c = {
		.size = sizeof(c), .name = "the live consumer", .event = live_event, .arg = r,
	};
	struct strobe_error e2 = { 0, "" };
	struct strobe_stream_stats st;
	struct strobe_pipeline *p = NULL;
	size_t i;
	int e;

	e = strobe_pipeline_new(&po, &p, &e2);
	if (e >= 0)
		e = strobe_pipeline_add_stream(p, r->st, r->cap, r->live_model, &e2);
	if (e >= 0 && r->rs.next)
		e = strobe_pipeline_add_records(p, e, &r->rs, &e2);
	if (e >= 0)
		e = strobe_pipeline_add_consumer(p, &c, &e2);
	for (i = 0; e >= 0 && i < r->o->nr_consumers; i++)
		e = strobe_pipeline_add_consumer(p, &r->o->consumers[i], &e2);
	if (e >= 0)
		e = strobe_pipeline_run(p, &e2);
	strobe_pipeline_stats(p, &st);
	r->res->stream_events = st.events;
	r->res->stream_missed = st.missed;
	strobe_pipeline_free(p);
	if (e < 0 && !r->consumer_err && !r->cap_err) {
		/* one of opts->consumers, or the pipeline's own failure */
		r->pipe_err = e2;
		if (r->o->nr_consumers)
			r->consumer_err = e;
		else
			r->cap_err = e;
	}
	if (!r->ended)	/* the consumer stopped it: the reason is still due */
		check_end(r);
	return r->cap_err;
}

/*
 * In the guardian, once strobe died: what strobe_record would have done
 * with what the readers had written (see the head comment).  Only the
 * guardian's own copies are used; nothing here can reach strobe.
 */
/* In the guardian: what the kernel still holds, into the CPU files. */
static void guardian_drain(struct rec *r)
{
	unsigned ps = strobe_session_meta_tf(r->meta)->page_size;
	uint8_t *buf = malloc(ps);
	char path[512];
	ssize_t n;
	int i, fd;

	for (i = 0; buf && i < r->nr_cpus; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw",
			 strobe_session_dir(r->s), i);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		lseek(r->fds[i], 0, SEEK_END);	/* after what the readers wrote */
		while ((n = read(fd, buf, ps)) > 0)
			if (write(r->fds[i], buf, (size_t)n) != n)
				break;
		close(fd);
	}
	free(buf);
}

static void guardian_recover(struct rec *r)
{
	char *table = NULL;
	size_t len = 0;
	int i;

	strobe_session_stop(r->s, NULL);	/* tracing off first */
	if (flight_fifo(r->flight))
		unlink(flight_fifo(r->flight));
	if (!r->w) {			/* no_output, a flight recorder: nothing to save */
		strobe_session_close(r->s);
		return;
	}
	guardian_drain(r);
	strobe_session_close(r->s);	/* instance removed */
	for (i = 0; i < r->nr_cpus; i++)
		strobe_tf_writer_add_cpu(r->w, i, r->fds[i], UINT64_MAX, false, NULL);
	/* the table as strobe knew it when the guardian was made */
	if (r->model && !r->o->no_model &&
	    strobe_model_table_write(r->model, &table, &len, NULL) == 0)
		strobe_tf_writer_add_model(r->w, table, len, NULL);
	strobe_tf_writer_close(r->w, NULL, "strobe_version=" STROBE_VERSION "\n"
			       "incomplete=strobe record was killed; its guardian saved what "
			       "had been captured\n", NULL);
}

static int start_guardian(struct rec *r, struct strobe_error *err)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return strobe_err(err, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return strobe_err(err, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		ssize_t n;
		char c;

		close(p[1]);
		/* ended only by strobe's pipe: a Ctrl-C is strobe's to handle */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		prctl(PR_SET_NAME, "strobe-guard");
		if (r->go_fd >= 0)
			close(r->go_fd);	/* the command waits on strobe only */
		flight_close_fifo(r->flight);
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			guardian_recover(r);
		_exit(0);
	}
	close(p[0]);
	r->guard = pid;
	r->guard_fd = p[1];
	return 0;
}

/* strobe is done (with or without a file): the guardian may go. */
static void stop_guardian(struct rec *r)
{
	if (r->guard_fd >= 0) {
		(void)!write(r->guard_fd, "d", 1);
		close(r->guard_fd);
		r->guard_fd = -1;
	}
	if (r->guard > 0) {
		waitpid(r->guard, NULL, 0);
		r->guard = 0;
	}
}

static void cleanup(struct rec *r, bool keep_output)
{
	int i;

	strobe_stream_close(r->st);
	strobe_capture_free(r->cap);
	r->cap = NULL;
	flight_free(r->flight);		/* after the readers that fill it */
	r->flight = NULL;
	if (r->go_fd >= 0)
		close(r->go_fd);	/* an unreleased child sees EOF and exits */
	if (r->exec_fd >= 0)
		close(r->exec_fd);
	if (r->child > 0 && !r->child_reaped)
		reap_child(r, r->res->child_started ? SIGTERM : 0);
	for (i = 0; r->fds && i < r->nr_cpus; i++)
		if (r->fds[i] >= 0)
			close(r->fds[i]);
	for (i = 0; r->stats && i < r->nr_cpus; i++)
		free(r->stats[i]);
	free(r->fds);
	free(r->stats);
	/* a failed recording: an older file at the output stays as it was */
	if (r->w && keep_output)
		strobe_tf_writer_close(r->w, NULL, NULL, NULL);
	else
		strobe_tf_writer_discard(r->w);
	strobe_session_meta_free(r->meta);
	strobe_session_close(r->s);
	stop_guardian(r);
	model_watch_free(r->watch);
	free(r->extra_cmdlines);
	strobe_model_free(r->model);
	strobe_model_free(r->live_model);
	free_records(r);
}

/*
 * What was traced, for the analyses (strobe_analysis_set_target): a
 * recording restricted by set_event_pid has an untraced task's switches
 * and wake-ups only when it shares them with a traced one.  Lines
 * target=system|command|pid|container, then target_pids=PID[,TGID] (the
 * command's child, or -p's task and its process) or target_containers=ID,..
 * (full IDs of the target containers met, at most MAX_INFO_CONTS so the
 * info fits its 4 KiB slot); a command run with argv_whole_system is
 * target=system with command_pid=PID.  NULL on ENOMEM.
 */
#define MAX_INFO_CONTS 48
static char *target_info(struct rec *r)
{
	const struct strobe_record_opts *o = r->o;
	size_t off, cap = 64 + MAX_INFO_CONTS * 66;
	char *s = NULL;
	int i, n = 0;

	if (r->child > 0 && o->argv_whole_system)
		return asprintf(&s, "target=system\ncommand_pid=%d\n", (int)r->child) < 0
		       ? NULL : s;
	if (r->child > 0)
		return asprintf(&s, "target=command\ntarget_pids=%d\n", (int)r->child) < 0
		       ? NULL : s;
	if (o->pid > 0) {
		const struct strobe_task *t = r->model ? strobe_model_task(r->model, o->pid)
						       : NULL;
		int tgid = t && t->tgid > 0 && t->tgid != o->pid ? t->tgid : 0;

		if (tgid)
			return asprintf(&s, "target=pid\ntarget_pids=%d,%d\n", (int)o->pid,
					tgid) < 0 ? NULL : s;
		return asprintf(&s, "target=pid\ntarget_pids=%d\n", (int)o->pid) < 0 ? NULL : s;
	}
	if (!o->nr_containers || !r->model)
		return strdup("target=system\n");
	s = malloc(cap);
	if (!s)
		return NULL;
	off = (size_t)snprintf(s, cap, "target=container\ntarget_containers=");
	for (i = 2; i < strobe_model_nr_containers(r->model) && n < MAX_INFO_CONTS; i++) {
		const struct strobe_container *c = strobe_model_container(r->model, i);

		if (c && c->id[0] && is_target(r, c))
			off += (size_t)snprintf(s + off, cap - off, "%s%s", n++ ? "," : "", c->id);
	}
	snprintf(s + off, cap - off, "\n");
	return s;
}

/* Pair the trace clock with the wall clock (0: start, 1: end) for the
 * info block; a clock that cannot be paired leaves no line. */
static void clock_sync_info(struct rec *r, int which)
{
	struct strobe_clock_sync cs;
	char nums[80];

	r->clock_sync[which][0] = '\0';
	if (strobe_session_clock_sync(r->s, &cs, NULL) < 0)
		return;
	strobe_clock_sync_format(&cs, nums, sizeof(nums));
	snprintf(r->clock_sync[which], sizeof(r->clock_sync[which]), "clock_sync_%s=%s\n",
		 which ? "end" : "start", nums);
}

/* Assemble the file from the temp files and finish it. */
static int finish_file(struct rec *r, int cap_err, struct strobe_error *err)
{
	struct strobe_record_result *res = r->res;
	struct strobe_error e2 = { 0, "" };
	char *info = NULL, *target;
	struct utsname un;
	struct stat st;
	int i, e, ret = 0, pack_fail = r->pack_err;

	if (is_disk_full(cap_err) || is_disk_full(pack_fail))
		snprintf(res->incomplete, sizeof(res->incomplete), "disk full");
	/*
	 * Records go into buffers the header declares: not after a full
	 * disk (the header reserved at start has none) nor after a packing
	 * failure; the file then holds the ftrace data only.
	 */
	if (pack_fail || res->incomplete[0]) {
		free_records(r);
		res->records = 0;
	}
	for (i = 0; i < r->nr_cpus; i++) {
		unsigned long long ov = 0;

		if (strobe_session_cpu_stats(r->s, i, &r->stats[i], &ov, NULL) == 0)
			res->cpus[i].overrun = ov;
		count_cpu(r, i, &res->cpus[i]);
	}
	/*
	 * No space problem: rewrite the header with fresh task names (tasks
	 * born during the recording are in saved_cmdlines only now; the rest
	 * of the metadata is as collected at start).  After a full disk, keep
	 * the header reserved at start.
	 */
	if (!res->incomplete[0] &&
	    (strobe_session_meta_refresh_cmdlines(r->s, r->extra_cmdlines, r->meta) == 0 ||
	     r->nr_decl || r->nr_bufs)) {
		strobe_tf_writer_discard(r->w);	/* never committed: nothing replaced */
		r->w = NULL;
		e = open_writer(r, r->meta, err);
		if (e < 0)
			return e;
	}
	for (i = 0; i < r->nr_cpus; i++) {
		e = strobe_tf_writer_add_cpu(r->w, i, r->fds[i], UINT64_MAX, true, &e2);
		if (e < 0) {
			if (is_disk_full(e)) {
				snprintf(res->incomplete, sizeof(res->incomplete), "disk full");
				continue;
			}
			if (!ret)
				ret = strobe_err(err, e, "%s", e2.msg);
		}
	}
	/* the records' buffers, in the order the header names them */
	for (i = 0; i < r->nr_bufs && !res->incomplete[0]; i++) {
		e = tf_packer_add_to(r->bufs[i].pk, r->w, i, &e2);
		if (is_disk_full(e))
			snprintf(res->incomplete, sizeof(res->incomplete), "disk full");
		else if (e < 0 && !ret)
			ret = strobe_err(err, e, "%s", e2.msg);
	}
	if (r->model && !r->o->no_model && !res->incomplete[0]) {
		char *table = NULL;
		size_t len = 0;

		e = strobe_model_table_write(r->model, &table, &len, &e2);
		if (e == 0)
			e = strobe_tf_writer_add_model(r->w, table, len, &e2);
		free(table);
		if (is_disk_full(e))
			snprintf(res->incomplete, sizeof(res->incomplete), "disk full");
		else if (e < 0 && !ret)
			ret = strobe_err(err, e, "%s", e2.msg);
	}
	/* the target before the command line, which the slot may cut */
	target = target_info(r);
	/* command= last: the info slot is cut at a line boundary, and a long
	 * command line must not push out the facts before it */
	/* host= (the node name) lets strobe sql and strobe export tell hosts
	 * apart without a --host-name */
	if (uname(&un) < 0)
		un.nodename[0] = '\0';
	if (r->o->host_name && r->o->host_name[0])
		snprintf(un.nodename, sizeof(un.nodename), "%s", r->o->host_name);
	if (asprintf(&info, "strobe_version=%s\n%s%s%s%s%s%s%s%s%scommand=%s\n", STROBE_VERSION,
		     un.nodename[0] ? "host=" : "", un.nodename, un.nodename[0] ? "\n" : "",
		     r->clock_sync[0], r->clock_sync[1],
		     target ? target : "",
		     res->incomplete[0] ? "incomplete=" : "", res->incomplete,
		     res->incomplete[0] ? "\n" : "",
		     r->o->command_line ? r->o->command_line : "") < 0)
		info = NULL;
	free(target);
	e = strobe_tf_writer_close(r->w, (const char *const *)r->stats, info, &e2);
	r->w = NULL;
	free(info);
	if (e < 0 && !ret)
		ret = strobe_err(err, e, "%s", e2.msg);
	if (stat(r->out, &st) == 0)
		res->file_size = st.st_size;
	if (!ret && res->incomplete[0])
		ret = strobe_err(err, -ENOSPC,
				 "%s: disk full: recording stopped early; the file holds what was captured",
				 r->out);
	if (!ret && pack_fail)
		ret = strobe_err(err, pack_fail, "%s: the records of %s were not stored (the "
				 "file holds the tracefs events only): %s", r->out,
				 r->rs.name ? r->rs.name : "the record source", r->pack_msg.msg);
	return ret;
}

/* The consumer's model: the tasks alive now, then what the events say
 * (and /proc for tasks met for the first time; containers named). */
static int open_live_model(struct rec *r, struct strobe_error *err)
{
	int e = strobe_model_new(&r->live_model, err);

	if (e < 0)
		return e;
	strobe_model_set_options(r->live_model, STROBE_MODEL_LIVE | STROBE_MODEL_NAMES);
	strobe_model_load_proc(r->live_model, NULL);
	if (r->child > 0)
		model_rescan_tid(r->live_model, r->child);
	return 0;
}

/* no_output: the per-CPU figures the file would have given, from the
 * kernel's stats (events and lost were counted from the stream). */
static void finish_live(struct rec *r)
{
	int i;

	for (i = 0; i < r->nr_cpus; i++) {
		unsigned long long ov = 0;
		char *text = NULL;

		if (strobe_session_cpu_stats(r->s, i, &text, &ov, NULL) == 0)
			r->res->cpus[i].overrun = ov;
		free(text);
	}
}

/* The consumer's error as strobe_record's: its message, or a generic one. */
static int consumer_error(struct rec *r, struct strobe_error *err)
{
	const struct strobe_error *ce = r->o->event_err;

	if (r->pipe_err.msg[0])
		return strobe_err(err, r->consumer_err, "%s", r->pipe_err.msg);
	if (ce && ce->msg[0])
		return strobe_err(err, r->consumer_err, "%s", ce->msg);
	return strobe_err(err, r->consumer_err, "the live consumer stopped the recording: %s",
			  strerror(-r->consumer_err));
}

/* A flight recorder's snapshot: the lines finish_file's info starts
 * with (the end pairing taken now), command= left to flight.c. */
static char *flight_base_info(void *arg)
{
	struct rec *r = arg;
	struct utsname un;
	char *info = NULL, *target;

	clock_sync_info(r, 1);
	target = target_info(r);
	if (uname(&un) < 0)
		un.nodename[0] = '\0';
	if (r->o->host_name && r->o->host_name[0])
		snprintf(un.nodename, sizeof(un.nodename), "%s", r->o->host_name);
	if (asprintf(&info, "strobe_version=%s\n%s%s%s%s%s%s", STROBE_VERSION,
		     un.nodename[0] ? "host=" : "", un.nodename, un.nodename[0] ? "\n" : "",
		     r->clock_sync[0], r->clock_sync[1], target ? target : "") < 0)
		info = NULL;
	free(target);
	return info;
}

static int open_flight(struct rec *r, struct strobe_error *err)
{
	struct flight_ctx fc = {
		.o = r->o, .s = r->s, .meta = r->meta, .model = r->model,
		.extra_cmdlines = r->extra_cmdlines, .out = r->out, .nr_cpus = r->nr_cpus,
		.base_info = flight_base_info, .arg = r,
	};

	return flight_open(&fc, &r->flight, err);
}

int strobe_record(const struct strobe_record_opts *opts,
		  struct strobe_record_result *resp, struct strobe_error *err)
{
	struct strobe_record_result dummy;
	struct strobe_session_opts so = { .size = sizeof(so) };
	struct rec r;
	const char *dir;
	double t0, t1;
	int e, cap_err;

	memset(&r, 0, sizeof(r));
	strobe_opts_copy(&r.oc, sizeof(r.oc), opts);
	opts = r.o = &r.oc;
	r.res = resp ? resp : &dummy;
	memset(r.res, 0, sizeof(*r.res));
	r.go_fd = r.exec_fd = r.guard_fd = -1;
	r.out = opts->output ? opts->output : "trace.dat";
	if (!opts->no_output && !FLIGHT(opts))
		snprintf(r.res->output, sizeof(r.res->output), "%s", r.out);
	strobe_err_clear(err);
	if (opts->no_output && !LIVE(opts))
		return strobe_err(err, -EINVAL, "no output file and no live consumer: "
				  "nothing to record into");

	if (FLIGHT(opts) && opts->no_output)
		return strobe_err(err, -EINVAL, "a flight recorder writes snapshot files: "
				  "not with no output");
	if (FLIGHT(opts) && opts->add_records)
		return strobe_err(err, -ENOTSUP, "the flight recorder does not keep records "
				  "beyond ftrace pages (BPF records, perf samples) yet");
	if (opts->argv && opts->argv[0] && opts->pid > 0)
		return strobe_err(err, -EINVAL, "give either a command or -p PID, not both");
	if (opts->nr_containers && ((opts->argv && opts->argv[0]) || opts->pid > 0))
		return strobe_err(err, -EINVAL, "give containers, a command or -p PID, not two");
	e = strobe_tracefs_dir(&dir, err);
	if (e < 0)
		return e;
	strobe_session_cleanup_stale(NULL, NULL);

	so.buffer_kb = opts->buffer_kb;
	so.clock = opts->clock;
	e = strobe_session_open(&so, &r.s, err);
	if (e < 0)
		goto fail_nofile;
	r.nr_cpus = strobe_session_nr_cpus(r.s);
	r.res->nr_cpus = r.nr_cpus;
	r.res->cpus = calloc(r.nr_cpus, sizeof(*r.res->cpus));
	if (!r.res->cpus) {
		e = strobe_err(err, -ENOMEM, "out of memory");
		goto fail_nofile;
	}
	e = enable_events(&r, err);
	if (e >= 0)
		e = enable_stacks(&r, err);
	if (e >= 0 && opts->tracer)
		e = strobe_session_set_tracer(r.s, opts->tracer, opts->ftrace_filter,
					      opts->nr_ftrace_filter, opts->ftrace_notrace,
					      opts->nr_ftrace_notrace, opts->graph_function,
					      opts->nr_graph_function, err);
	if (e < 0)
		goto fail_nofile;
	e = open_model(&r, err);
	if (e < 0)
		goto fail_nofile;
	e = set_target(&r, err);
	if (e >= 0)
		e = add_probes(&r, err);
	if (e < 0)
		goto fail_nofile;
	/*
	 * The command's child exists now (waiting to exec): put it in the
	 * table.  With -c, a full scan adds the tasks that entered a target
	 * container since the snapshot to set_event_pid.
	 */
	if (r.model && r.child > 0)
		model_rescan_tid(r.model, r.child);
	else if (opts->nr_containers)
		model_scan(&r, true);
	/* kallsyms (most of the start-up time) only for a file: a live
	 * consumer decodes events, it never prints kernel symbols */
	e = strobe_session_meta_collect_flags(r.s, r.extra_cmdlines,
					      opts->no_output ? STROBE_META_NO_KALLSYMS : 0,
					      &r.meta, err);
	if (e < 0)
		goto fail_nofile;
	if (FLIGHT(opts)) {
		e = open_flight(&r, err);
		if (e < 0)
			goto fail_nofile;
	} else if (!opts->no_output) {
		e = open_tmp_files(&r, err);
		if (e < 0)
			goto fail_nofile;
		e = open_writer(&r, r.meta, err);
		if (e < 0)
			goto fail_nofile;
	}
	if (STREAM(opts)) {
		e = open_live_model(&r, err);
		if (e < 0)
			goto fail_nofile;
	}
	e = start_guardian(&r, err);	/* before any thread exists */
	if (e < 0)
		goto fail;
	/* short-lived containers' names; without it the scans still work */
	if (r.model)
		model_watch_start(&r.watch, NULL, NULL, NULL, NULL);
	{
		struct strobe_capture_opts co = { sizeof(co), 0, 0, r.meta, opts->keep_self };
		unsigned ps = strobe_session_meta_tf(r.meta)->page_size;

		/* A stream beside the file drops pages rather than wait
		 * (capture.h): give it the slack the kernel's buffer gives
		 * the file, so bursts the file rides out cost it nothing. */
		if (LIVE(opts) && !opts->no_output && ps &&
		    (uint64_t)opts->buffer_kb * 1024 / ps > STROBE_CAPTURE_QUEUE_PAGES)
			co.queue_pages = (unsigned)((uint64_t)opts->buffer_kb * 1024 / ps);

		e = strobe_capture_open(r.s, &co, &r.cap, err);
	}
	/* the watcher's reads stay out of the trace, as the capture's own
	 * threads' do (see keep_self, record.h) */
	if (e == 0 && r.watch && model_watch_tid(r.watch) > 0) {
		pid_t wt = model_watch_tid(r.watch);

		strobe_capture_exclude_tids(r.cap, &wt, 1);
	}
	if (e == 0 && r.fds)
		e = strobe_capture_add_fds(r.cap, r.fds, err);
	if (e == 0 && r.flight)
		e = strobe_capture_add_rings(r.cap, flight_rings(r.flight), err);
	if (e == 0 && STREAM(opts))
		e = strobe_capture_stream(r.cap, &r.st, err);
	/* with a file, the records go into it too (pack_record) */
	if (e == 0 && opts->add_records)
		e = opts->add_records(strobe_stream_formats(r.st), r.child, &r.rs,
				      opts->records_arg, err);
	if (e == 0)
		e = strobe_capture_start(r.cap, err);
	if (e < 0)
		goto fail;
	t0 = r.t0 = now_s();
	r.next_tick = t0 + TICK_S;
	clock_sync_info(&r, 0);
	if (opts->on_tracing)
		opts->on_tracing(opts->arg);
	if (r.flight && opts->on_flight)
		opts->on_flight(r.flight, opts->event_arg);
	e = release_child(&r, err);
	if (e < 0) {
		strobe_session_stop(r.s, NULL);
		goto fail;
	}

	/* with a live consumer, what the readers drained at stop went to it */
	cap_err = r.st ? run_live(&r) : wait_for_end(&r);
	flight_end(r.flight);	/* a --post ends before the readers drain */
	e = strobe_capture_stop(r.cap, NULL);
	progress(&r, true);
	model_scan(&r, true);
	t1 = now_s();
	clock_sync_info(&r, 1);
	r.res->duration = t1 - t0;
	if (!cap_err)
		cap_err = e;
	if (r.st) {
		tick(&r, true);	/* the last one */
		if (r.fds && opts->add_records && !r.pack_err)
			r.pack_err = keep_declared(&r, &r.pack_msg);
		strobe_stream_close(r.st);
		r.st = NULL;
	}
	if (cap_err && !is_disk_full(cap_err)) {
		e = strobe_err(err, cap_err, "capture failed: %s", strerror(-cap_err));
		goto fail;
	}
	/* the command, if still running (stopped by a signal or --duration) */
	if (r.child > 0 && !r.child_reaped)
		reap_child(&r, SIGTERM);
	strobe_capture_free(r.cap);
	r.cap = NULL;
	if (r.flight) {
		flight_exit(r.flight);	/* the rings hold everything now */
		flight_result(r.flight, &r.res->flight);
		finish_live(&r);
		e = 0;
	} else if (opts->no_output) {
		finish_live(&r);
		e = 0;
	} else {
		e = finish_file(&r, cap_err, err);
	}
	if (r.consumer_err && (e == 0 || e == -ENOSPC))
		e = consumer_error(&r, err);
	cleanup(&r, true);
	return e;
fail:
	cleanup(&r, false);
	return e;
fail_nofile:
	cleanup(&r, true);	/* the output was not touched */
	return e;
}

void strobe_record_result_free(struct strobe_record_result *res)
{
	if (!res)
		return;
	free(res->flight.snapshots);
	res->flight.snapshots = NULL;
	res->flight.nr_snapshots = 0;
	free(res->cpus);
	res->cpus = NULL;
	res->nr_cpus = 0;
}
