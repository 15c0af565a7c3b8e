/*
 * watch.c - the watcher: containers named the moment they appear, so a
 * container that lives a fraction of a second (a job, a CI step, a crash
 * loop, `podman run --rm`) keeps its name in a recording after its
 * runtime deleted the metadata.
 *
 * Why not the recorder's /proc scans alone: they run every 250 ms and see
 * a container only while one of its tasks is alive at a scan; a short
 * container falls between two scans and its runtime removes the metadata
 * (`--rm`) before anyone reads it.  The recorder does not see its events
 * live either (it splices pages into files), so cgroup:cgroup_mkdir is no
 * help while recording.
 *
 * How it works: a thread of its own holds an inotify watch on every
 * directory of one or two cgroup hierarchies (the v2 tree and one v1
 * tree: on a hybrid host a cgroupfs runtime may create its cgroup in
 * either first).  Every runtime creates the container's cgroup with
 * mkdir(2), which inotify reports as IN_CREATE in the parent; the kernel
 * queues these events, so none is missed however short the container,
 * and the thread wakes at once.  A new directory whose path names a
 * container (cgroup.c) is looked up in the runtime metadata right away
 * (runtime.c): podman, docker, containerd and CRI-O write it before the
 * cgroup exists and delete it only after the container stopped, so it is
 * there.  A lookup that finds nothing yet is retried every tick for a few
 * seconds.  Other new directories (slices, Kubernetes pod and QoS
 * cgroups) are watched in turn, and read once after the watch is added, so
 * a child created in between is not missed; should the kernel's event
 * queue overflow, the trees are walked again.  Directories inside a
 * container are not watched: the outermost container cgroup names it.
 *
 * During a container's first seconds its cgroup.procs is read every tick
 * (10 ms) and each new task in it is read from /proc (NSpid, namespaces)
 * while it lives: the container's init, which execs the job, usually waits
 * there for tens of milliseconds before the runtime starts it.  After
 * that, every 100 ms (a few microseconds per container), for the tasks a
 * container forks later.
 *
 * The thread never touches a model: it keeps what it found (containers,
 * tasks) under a mutex, and model_watch_apply moves it into a model on the
 * caller's thread.  Memory: one entry per watched directory and per
 * container met, as the model itself keeps its containers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "model-int.h"
#include "util/thread.h"

#define TICK_MS 10
#define YOUNG_S 3.0		/* read cgroup.procs and retry names this long */
#define SLOW_S 0.1		/* then read cgroup.procs this often */
#define MAX_WATCHES 16384	/* directories watched, all roots together */
#define MAX_DEPTH 12		/* cgroup nesting followed below a root */
#define MAX_ROOTS 2
#define CGROUP2_MAGIC 0x63677270
#define CGROUP1_MAGIC 0x27e0eb

/* One watched directory. */
struct wdir {
	int wd;
	int root;		/* index into roots[] */
	int depth;
	char *path;		/* relative to the root, "" for the root, else
				 * "/a/b" */
};

/* A container met by the watcher. */
struct wcont {
	struct strobe_cgroup_id id;
	char name[256];
	bool named;		/* name from metadata */
	bool dirty;		/* not yet given to model_watch_apply */
	bool gone;		/* its directory was removed */
	int root;
	char *path;		/* its cgroup, relative to the root */
	double first;		/* when met (CLOCK_MONOTONIC seconds) */
	double next;		/* next slow read of cgroup.procs */
	bool seeded;		/* tids holds what was there (a container met
				 * in the first walk: those the /proc snapshot
				 * read are not read again) */
	int *tids;		/* its tasks at the last read */
	size_t nr_tids, cap_tids;
};

/* A task read while it lived, waiting for model_watch_apply. */
struct wtask {
	struct strobe_proc_info pi;
	uint64_t starttime;
	char *cgpath;
};

struct model_watch {
	int ifd;		/* inotify */
	int stop_fd[2];		/* a byte (or EOF) stops the thread */
	pthread_t thread;
	bool started;
	int tid;		/* the thread's, set by it first (atomic) */
	char roots[MAX_ROOTS][256];
	int nr_roots;
	char proc_root[256];
	char meta_root[256];
	bool initial;		/* the first walk: containers that exist already
				 * are named, not polled (the recorder's /proc
				 * snapshot has their tasks) */
	/* thread-only: directories by wd (sorted: wds only grow) */
	struct wdir *dirs;
	size_t nr_dirs, cap_dirs;
	/* shared with model_watch_apply, under lock */
	pthread_mutex_t lock;
	struct wcont **conts;
	size_t nr_conts, cap_conts;
	struct wtask *tasks;
	size_t nr_tasks, cap_tasks;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool grow(void **v, size_t *cap, size_t nr, size_t size)
{
	size_t n;
	void *p;

	if (nr < *cap)
		return true;
	n = *cap ? *cap * 2 : 16;
	p = realloc(*v, n * size);
	if (!p)
		return false;
	*v = p;
	*cap = n;
	return true;
}

/* ---- directories ---------------------------------------------------------- */

static struct wdir *dir_find(struct model_watch *w, int wd)
{
	size_t lo = 0, hi = w->nr_dirs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->dirs[mid].wd == wd)
			return w->dirs[mid].path ? &w->dirs[mid] : NULL;
		if (w->dirs[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Forget a removed directory; compact when half the entries are dead. */
static void dir_forget(struct model_watch *w, struct wdir *d)
{
	size_t i, n = 0;

	free(d->path);
	d->path = NULL;
	for (i = 0; i < w->nr_dirs; i++)
		n += w->dirs[i].path != NULL;
	if (n * 2 >= w->nr_dirs)
		return;
	for (i = 0, n = 0; i < w->nr_dirs; i++)
		if (w->dirs[i].path)
			w->dirs[n++] = w->dirs[i];
	w->nr_dirs = n;
}

/* root/rel into buf; false if it does not fit. */
static bool full_path(const struct model_watch *w, int root, const char *rel,
		      const char *leaf, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s%s%s%s", w->roots[root], rel,
			 leaf ? "/" : "", leaf ? leaf : "");

	return n > 0 && (size_t)n < size;
}

static void new_dir(struct model_watch *w, int root, const char *rel, int depth);

/* Watch root/rel, then look at the children it already has. */
static void add_dir(struct model_watch *w, int root, const char *rel, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct wdir *d;
	DIR *dir;
	int wd;

	if (depth > MAX_DEPTH || w->nr_dirs >= MAX_WATCHES ||
	    !full_path(w, root, rel, NULL, path, sizeof(path)))
		return;
	wd = inotify_add_watch(w->ifd, path, IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF |
			       IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK);
	if (wd < 0)
		return;
	if (!dir_find(w, wd)) {
		if (w->nr_dirs && w->dirs[w->nr_dirs - 1].wd >= wd)
			return;	/* wds grow; an old one reused: not expected */
		if (!grow((void **)&w->dirs, &w->cap_dirs, w->nr_dirs, sizeof(*w->dirs)))
			return;
		d = &w->dirs[w->nr_dirs];
		d->path = strdup(rel);
		if (!d->path)
			return;
		d->wd = wd;
		d->root = root;
		d->depth = depth;
		w->nr_dirs++;
	}
	/* children made before the watch existed */
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char child[PATH_MAX];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", rel, de->d_name) >=
		    (int)sizeof(child))
			continue;
		new_dir(w, root, child, depth + 1);
	}
	closedir(dir);
}

/* By container ID, or for a pod's own cgroup (no ID) by pod UID. */
static struct wcont *cont_find(struct model_watch *w, const struct strobe_cgroup_id *id)
{
	size_t i;

	for (i = 0; i < w->nr_conts; i++) {
		const struct strobe_cgroup_id *k = &w->conts[i]->id;

		if (id->id[0] ? !strcmp(k->id, id->id)
			      : !k->id[0] && !strcmp(k->pod_uid, id->pod_uid))
			return w->conts[i];
	}
	return NULL;
}

/* Look the name up; under lock only for the result. */
static void lookup(struct model_watch *w, struct wcont *c)
{
	struct strobe_container_meta *meta = malloc(sizeof(*meta));
	char name[sizeof(c->name)];

	if (!meta)
		return;
	if ((c->id.id[0] ? strobe_container_lookup(w->meta_root[0] ? w->meta_root : NULL,
						   &c->id, meta)
			 : strobe_pod_lookup(w->meta_root[0] ? w->meta_root : NULL,
					     c->id.pod_uid, meta)) == 1) {
		strobe_meta_display(meta, name, sizeof(name));
		pthread_mutex_lock(&w->lock);
		if (name[0]) {
			memcpy(c->name, name, sizeof(c->name));
			c->named = true;
			c->dirty = true;
		}
		pthread_mutex_unlock(&w->lock);
	}
	free(meta);
}

/*
 * Read the container's cgroup.procs; read the tasks that were not there
 * at the last read from /proc (all of them the first time, unless the
 * container was met in the first walk).  c->tids becomes the current list,
 * so it stays as small as the container.
 */
static void read_procs(struct model_watch *w, struct wcont *c)
{
	char path[PATH_MAX], buf[8192];
	struct strobe_proc_info pi;
	int *now = NULL;
	size_t nr_now = 0, cap_now = 0;
	bool fetch = c->seeded;
	ssize_t n;
	char *p, *end;
	int fd;

	if (!full_path(w, c->root, c->path, "cgroup.procs", path, sizeof(path)))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		struct stat st;

		if (errno == ENOENT && full_path(w, c->root, c->path, NULL, path, sizeof(path)) &&
		    stat(path, &st) < 0 && errno == ENOENT)
			c->gone = true;
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return;
	buf[n] = '\0';
	for (p = buf; *p; p = end) {
		long tid = strtol(p, &end, 10);
		uint64_t start;
		size_t i;
		struct wtask *t;

		if (end == p)
			break;
		while (*end == '\n')
			end++;
		if (tid <= 0 || tid > INT_MAX)
			continue;
		if (!grow((void **)&now, &cap_now, nr_now, sizeof(int)))
			break;
		now[nr_now++] = (int)tid;
		for (i = 0; i < c->nr_tids && c->tids[i] != (int)tid; i++)
			;
		if (i < c->nr_tids || !fetch)
			continue;
		if (strobe_proc_read(w->proc_root[0] ? w->proc_root : NULL, (int)tid, &pi,
				     NULL) < 0)
			continue;
		start = model_read_starttime(w->proc_root[0] ? w->proc_root : "/proc",
					     (int)tid);
		pthread_mutex_lock(&w->lock);
		if (grow((void **)&w->tasks, &w->cap_tasks, w->nr_tasks, sizeof(*w->tasks))) {
			t = &w->tasks[w->nr_tasks];
			t->pi = pi;
			t->cgpath = strdup(c->path);
			t->starttime = start;
			if (t->cgpath)
				w->nr_tasks++;
		}
		pthread_mutex_unlock(&w->lock);
	}
	free(c->tids);
	c->tids = now;
	c->nr_tids = nr_now;
	c->cap_tids = cap_now;
	c->seeded = true;
}

/* A directory appeared (or was found at start) at root/rel. */
static void new_dir(struct model_watch *w, int root, const char *rel, int depth)
{
	struct strobe_cgroup_id id;
	struct wcont *c;
	int r = strobe_cgroup_parse_path(rel, strlen(rel), &id);

	if (r < 0)
		return;
	if (r == 0 || !id.id[0] || id.runtime == STROBE_RT_UNKNOWN) {
		/* not (surely) a container: a slice, a pod, a parent */
		add_dir(w, root, rel, depth);
		/* a pod's own cgroup is named too (its sandbox's tasks) */
		if (r == 0 || id.id[0] || !id.pod_uid[0])
			return;
	}
	if (id.conmon)
		return;
	pthread_mutex_lock(&w->lock);
	c = cont_find(w, &id);
	if (!c && grow((void **)&w->conts, &w->cap_conts, w->nr_conts, sizeof(*w->conts))) {
		c = calloc(1, sizeof(*c));
		if (c) {
			c->path = strdup(rel);
			if (!c->path) {
				free(c);
				c = NULL;
			}
		}
		if (c) {
			c->id = id;
			c->root = root;
			c->first = mono_s() - (w->initial ? YOUNG_S + 1 : 0);
			c->seeded = !w->initial;
			c->dirty = true;
			if (id.id[0])
				snprintf(c->name, sizeof(c->name), "%s", id.short_id);
			w->conts[w->nr_conts++] = c;
		} else {
			pthread_mutex_unlock(&w->lock);
			return;
		}
	} else if (c && c->gone && c->root == root && !strcmp(c->path, rel)) {
		c->gone = false;	/* made again (a restart) */
		c->first = mono_s();
	} else {
		c = NULL;	/* known, or ENOMEM */
	}
	pthread_mutex_unlock(&w->lock);
	if (!c)
		return;
	if (!c->named)
		lookup(w, c);
	read_procs(w, c);	/* in the first walk: only what is there */
}

/* ---- the thread ----------------------------------------------------------- */

static void handle_events(struct model_watch *w)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(w->ifd, buf, sizeof(buf))) > 0) {
		char *p;

		for (p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			struct wdir *d = dir_find(w, ev->wd);

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				/* events were lost: walk the trees again */
				int i;

				for (i = 0; i < w->nr_roots; i++)
					add_dir(w, i, "", 0);
				continue;
			}
			if (!d)
				continue;
			if (ev->mask & (IN_IGNORED | IN_DELETE_SELF)) {
				dir_forget(w, d);
				continue;
			}
			if ((ev->mask & IN_ISDIR) && ev->len && ev->name[0] != '.') {
				char rel[PATH_MAX];
				int depth = d->depth + 1, root = d->root;

				if (snprintf(rel, sizeof(rel), "%s/%s", d->path, ev->name) <
				    (int)sizeof(rel))
					new_dir(w, root, rel, depth);
			}
		}
	}
}

/*
 * Every tick: names still missing and the young containers' tasks; the
 * other containers' new tasks every SLOW_S (NSpid of a task forked in an
 * old container and living less than the recorder's scan interval).
 * Returns the poll timeout in ms: TICK_MS, SLOW_S, or -1 with no
 * container alive.
 */
static int tick(struct model_watch *w)
{
	double now = mono_s();
	int timeout = -1;
	size_t i, nr;

	pthread_mutex_lock(&w->lock);
	nr = w->nr_conts;
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < nr; i++) {
		struct wcont *c = w->conts[i];	/* entries never move or go */

		if (c->gone)
			continue;
		if (now - c->first <= YOUNG_S) {
			timeout = TICK_MS;
			if (!c->named)
				lookup(w, c);
			read_procs(w, c);
			continue;
		}
		if (timeout < 0)
			timeout = (int)(SLOW_S * 1000);
		if (now >= c->next) {
			read_procs(w, c);
			c->next = now + SLOW_S;
		}
	}
	return timeout;
}

static void *watch_thread(void *arg)
{
	struct model_watch *w = arg;
	int i;

	prctl(PR_SET_NAME, "strobe-watch");
	__atomic_store_n(&w->tid, (int)gettid(), __ATOMIC_RELEASE);
	w->initial = true;
	for (i = 0; i < w->nr_roots; i++)
		add_dir(w, i, "", 0);
	w->initial = false;
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = w->ifd, .events = POLLIN },
			{ .fd = w->stop_fd[0], .events = POLLIN },
		};
		int r = poll(pfd, 2, tick(w));

		if (r < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & POLLIN)
			handle_events(w);
	}
	return NULL;
}

/* ---- the caller's side ---------------------------------------------------- */

static bool is_cgroup_mount(const char *path, bool *v2)
{
	struct statfs st;

	if (statfs(path, &st) < 0)
		return false;
	if ((unsigned long)st.f_type == CGROUP2_MAGIC) {
		*v2 = true;
		return true;
	}
	*v2 = false;
	return (unsigned long)st.f_type == CGROUP1_MAGIC;
}

/* The host's roots: the v2 tree, and one v1 tree (hybrid or v1 hosts). */
static void default_roots(struct model_watch *w)
{
	static const char *const v1[] = { "pids", "memory", "cpu,cpuacct", "cpu",
					   "systemd" };
	char path[256];
	size_t i;
	bool v2;

	if (is_cgroup_mount("/sys/fs/cgroup", &v2) && v2) {
		snprintf(w->roots[w->nr_roots++], sizeof(w->roots[0]), "/sys/fs/cgroup");
		return;
	}
	if (is_cgroup_mount("/sys/fs/cgroup/unified", &v2) && v2)
		snprintf(w->roots[w->nr_roots++], sizeof(w->roots[0]),
			 "/sys/fs/cgroup/unified");
	for (i = 0; i < sizeof(v1) / sizeof(v1[0]); i++) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", v1[i]);
		if (is_cgroup_mount(path, &v2) && !v2) {
			snprintf(w->roots[w->nr_roots++], sizeof(w->roots[0]), "%s", path);
			return;
		}
	}
}

int model_watch_start(struct model_watch **out, const char *const *cg_roots,
		      const char *proc_root, const char *meta_root,
		      struct strobe_error *err)
{
	struct model_watch *w = calloc(1, sizeof(*w));
	int e;

	*out = NULL;
	if (!w)
		return strobe_err(err, -ENOMEM, "out of memory");
	w->ifd = w->stop_fd[0] = w->stop_fd[1] = -1;
	pthread_mutex_init(&w->lock, NULL);
	snprintf(w->proc_root, sizeof(w->proc_root), "%s", proc_root ? proc_root : "");
	snprintf(w->meta_root, sizeof(w->meta_root), "%s", meta_root ? meta_root : "");
	if (cg_roots) {
		for (; *cg_roots && w->nr_roots < MAX_ROOTS; cg_roots++)
			snprintf(w->roots[w->nr_roots++], sizeof(w->roots[0]), "%s", *cg_roots);
	} else {
		default_roots(w);
	}
	if (!w->nr_roots) {
		model_watch_free(w);
		return strobe_err(err, -ENOENT, "no cgroup hierarchy to watch");
	}
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ifd < 0 || pipe2(w->stop_fd, O_CLOEXEC) < 0) {
		e = -errno;
		model_watch_free(w);
		return strobe_err(err, e, "inotify: %s", strerror(-e));
	}
	e = strobe_thread_start(&w->thread, watch_thread, w);
	if (e) {
		model_watch_free(w);
		return strobe_err(err, -e, "cannot start the container watcher: %s",
				  strerror(e));
	}
	w->started = true;
	*out = w;
	return 0;
}

int model_watch_tid(struct model_watch *w)
{
	int i, tid = 0;

	for (i = 0; w && i < 1000 && !(tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE)); i++)
		usleep(1000);
	return tid;
}

int model_watch_apply(struct model_watch *w, struct strobe_model *m,
		      void (*fn)(const struct strobe_task *t, void *arg), void *arg)
{
	struct wtask *tasks;
	size_t i, nr;
	int n = 0, e = 0;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->nr_conts; i++) {
		struct wcont *c = w->conts[i];

		if (!c->dirty)
			continue;
		if (!model_container(m, &c->id, 1, c->named ? c->name : NULL)) {
			e = -ENOMEM;
			break;
		}
		c->dirty = false;
		n++;
	}
	tasks = w->tasks;
	nr = w->nr_tasks;
	w->tasks = NULL;
	w->nr_tasks = w->cap_tasks = 0;
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < nr; i++) {
		const struct strobe_task *t = NULL;
		int r = e ? 0 : model_add_seen(m, &tasks[i].pi, tasks[i].starttime,
					       tasks[i].cgpath, &t);

		if (r < 0)
			e = r;
		else if (r == 1 && fn)
			fn(t, arg);
		free(tasks[i].cgpath);
	}
	free(tasks);
	return e ? e : n;
}

void model_watch_free(struct model_watch *w)
{
	size_t i;

	if (!w)
		return;
	if (w->started) {
		(void)!write(w->stop_fd[1], "s", 1);
		pthread_join(w->thread, NULL);
	}
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->stop_fd[0] >= 0)
		close(w->stop_fd[0]);
	if (w->stop_fd[1] >= 0)
		close(w->stop_fd[1]);
	for (i = 0; i < w->nr_dirs; i++)
		free(w->dirs[i].path);
	free(w->dirs);
	for (i = 0; i < w->nr_conts; i++) {
		free(w->conts[i]->path);
		free(w->conts[i]->tids);
		free(w->conts[i]);
	}
	free(w->conts);
	for (i = 0; i < w->nr_tasks; i++)
		free(w->tasks[i].cgpath);
	free(w->tasks);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
