/*
 * model.c - the task model: who every event belongs to (thread, process,
 * container), kept in memory bounded by the live tasks.
 *
 * Tasks are entries in a slab (stable addresses, so pointers handed out
 * stay valid while other tasks come and go) found by tid through an
 * open-addressing hash table.  Exited tasks stay for a grace period of
 * trace time (their last sched_switch comes after sched_process_exit) on
 * a FIFO list and are then dropped, so a reused PID gets a fresh entry and
 * memory does not grow with the trace.
 *
 * Containers are decided from cgroup paths (cgroup.c) and live as long as
 * the model: index 0 "unknown", 1 "host", then in order of discovery.
 * Cgroup paths are interned once with the container they name, so the
 * rare cgroup_attach_task event costs one hash lookup after the first.
 *
 * The event handlers are in update.c, the stored table in table.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "model-int.h"

#define SLAB_CHUNK 256
/* Trace time an exited task stays findable. */

/* ---- tid table ------------------------------------------------------------ */

static size_t tid_hash(int tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

struct mtask *mtask_find(struct mtable *t, int tid)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = tid_hash(tid, t->cap); t->slot[i]; i = (i + 1) & (t->cap - 1))
		if (t->slot[i]->t.tid == tid)
			return t->slot[i];
	return NULL;
}

static int table_grow(struct mtable *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i;
	struct mtask **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slot[i])
			continue;
		for (j = tid_hash(t->slot[i]->t.tid, cap); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

static int table_insert(struct mtable *t, struct mtask *e)
{
	size_t i;

	if ((t->nr + 1) * 2 > t->cap && table_grow(t) < 0)
		return -ENOMEM;
	for (i = tid_hash(e->t.tid, t->cap); t->slot[i]; i = (i + 1) & (t->cap - 1))
		;
	t->slot[i] = e;
	t->nr++;
	return 0;
}

/* Remove e (which must be in t) keeping every probe chain intact. */
static void table_remove(struct mtable *t, struct mtask *e)
{
	size_t i, j, mask = t->cap - 1;

	if (!t->cap)
		return;
	for (i = tid_hash(e->t.tid, t->cap); t->slot[i] != e; i = (i + 1) & mask)
		if (!t->slot[i])
			return;
	t->slot[i] = NULL;
	t->nr--;
	for (j = (i + 1) & mask; t->slot[j]; j = (j + 1) & mask) {
		size_t home = tid_hash(t->slot[j]->t.tid, t->cap);

		/* move slot j back to the hole if its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			t->slot[i] = t->slot[j];
			t->slot[j] = NULL;
			i = j;
		}
	}
}

/* ---- entries -------------------------------------------------------------- */

static struct mtask *slab_get(struct strobe_model *m)
{
	struct mtask *e;

	if (!m->free_list) {
		struct mtask *chunk = calloc(SLAB_CHUNK, sizeof(*chunk));
		void **chunks;
		size_t i;

		if (!chunk)
			return NULL;
		chunks = realloc(m->chunks, (m->nr_chunks + 1) * sizeof(*chunks));
		if (!chunks) {
			free(chunk);
			return NULL;
		}
		m->chunks = chunks;
		m->chunks[m->nr_chunks++] = chunk;
		for (i = 0; i < SLAB_CHUNK; i++) {
			chunk[i].gc_next = m->free_list;
			m->free_list = &chunk[i];
		}
	}
	e = m->free_list;
	m->free_list = e->gc_next;
	memset(e, 0, sizeof(*e));
	return e;
}

static void gc_unlink(struct strobe_model *m, struct mtask *e)
{
	if (!(e->flags & MT_EXITED) || (!e->gc_prev && m->gc_head != e))
		return;
	if (e->gc_prev)
		e->gc_prev->gc_next = e->gc_next;
	else
		m->gc_head = e->gc_next;
	if (e->gc_next)
		e->gc_next->gc_prev = e->gc_prev;
	else
		m->gc_tail = e->gc_prev;
	e->gc_next = e->gc_prev = NULL;
}

void mtask_drop(struct strobe_model *m, struct mtable *t, struct mtask *e)
{
	gc_unlink(m, e);
	table_remove(t, e);
	free(e->ns);
	e->ns = NULL;
	e->gc_next = m->free_list;
	m->free_list = e;
}

static void task_reset(struct strobe_model *m, struct mtask *e, int tid)
{
	e->t.tid = tid;
	e->t.serial = ++m->next_serial;
	e->t.tgid = -1;
	e->t.ppid = -1;
	strcpy(e->t.comm, "<...>");
	e->t.nstid = -1;
	e->t.nstgid = -1;
	e->t.pidns = 0;
	e->t.container = &m->conts[STROBE_CONTAINER_UNKNOWN]->c;
	e->cg_root = -1;
}

struct mtask *mtask_new(struct strobe_model *m, struct mtable *t, int tid)
{
	struct mtask *e = mtask_find(t, tid);

	if (e)
		mtask_drop(m, t, e);
	e = slab_get(m);
	if (!e)
		return NULL;
	task_reset(m, e, tid);
	if (table_insert(t, e) < 0) {
		e->gc_next = m->free_list;
		m->free_list = e;
		return NULL;
	}
	return e;
}

int mtask_move(struct strobe_model *m, struct mtable *from, struct mtable *to,
	       struct mtask *e)
{
	struct mtask *old = mtask_find(to, e->t.tid);

	if (old)
		mtask_drop(m, to, old);
	gc_unlink(m, e);
	table_remove(from, e);
	e->flags &= (uint8_t)~MT_EXITED;
	return table_insert(to, e);
}

int mtask_set_ns(struct mtask *e, const int *nspid, int nr_nspid,
		 const int *nstgid, int nr_nstgid)
{
	int *ns = NULL;

	if (nr_nspid < 0 || nr_nspid > STROBE_PIDNS_LEVELS)
		nr_nspid = 0;
	if (nr_nstgid < 0 || nr_nstgid > STROBE_PIDNS_LEVELS)
		nr_nstgid = 0;
	if (nr_nspid + nr_nstgid) {
		ns = malloc((size_t)(nr_nspid + nr_nstgid) * sizeof(int));
		if (!ns)
			return -ENOMEM;
		if (nr_nspid)
			memcpy(ns, nspid, (size_t)nr_nspid * sizeof(int));
		if (nr_nstgid)
			memcpy(ns + nr_nspid, nstgid, (size_t)nr_nstgid * sizeof(int));
	}
	free(e->ns);
	e->ns = ns;
	e->nr_nspid = (uint8_t)nr_nspid;
	e->nr_nstgid = (uint8_t)nr_nstgid;
	e->t.nstid = nr_nspid ? ns[nr_nspid - 1] : -1;
	e->t.nstgid = nr_nstgid ? ns[nr_nspid + nr_nstgid - 1] : -1;
	mtask_ns_view(e);
	return 0;
}

void mtask_ns_view(struct mtask *e)
{
	bool ctr = e->t.container && e->t.container->index >= 2;

	if (e->nr_nspid)
		e->t.nstid = ctr && e->nr_nspid == 1 ? -1 : e->ns[e->nr_nspid - 1];
	if (e->nr_nstgid)
		e->t.nstgid = ctr && e->nr_nstgid == 1 ? -1
						       : e->ns[e->nr_nspid + e->nr_nstgid - 1];
}

int mtask_copy_info(struct strobe_model *m, struct mtask *dst, const struct mtask *src)
{
	int tid = dst->t.tid, nstid = src->t.nstid, nstgid = src->t.nstgid, tgid = dst->t.tgid;
	uint64_t serial = dst->t.serial;
	int r = mtask_set_ns(dst, src->ns, src->nr_nspid,
			     src->ns ? src->ns + src->nr_nspid : NULL, src->nr_nstgid);

	if (r < 0)
		return r;
	dst->t = src->t;
	dst->t.tid = tid;
	dst->t.serial = serial;
	dst->t.tgid = tgid;
	mtask_set_tgid(m, dst, src->t.tgid);	/* another task now if it changed */
	if (!src->nr_nspid)
		dst->t.nstid = nstid;
	if (!src->nr_nstgid)
		dst->t.nstgid = nstgid;
	dst->mntns = src->mntns;
	dst->cgroupns = src->cgroupns;
	dst->starttime = src->starttime;
	dst->cgpath = src->cgpath;
	dst->cg_root = src->cg_root;
	return 0;
}

void mtask_exited(struct strobe_model *m, struct mtask *e, uint64_t ts)
{
	if (e->flags & MT_EXITED)
		return;
	e->flags |= MT_EXITED;
	e->exit_ts = ts;
	if (m->keep_exited)
		return;
	e->gc_prev = m->gc_tail;
	e->gc_next = NULL;
	if (m->gc_tail)
		m->gc_tail->gc_next = e;
	else
		m->gc_head = e;
	m->gc_tail = e;
}

void model_gc(struct strobe_model *m, uint64_t now)
{
	while (m->gc_head && m->gc_head->exit_ts + EXIT_GRACE_NS < now)
		mtask_drop(m, &m->tasks, m->gc_head);
}

/* ---- containers and paths ------------------------------------------------- */

static struct mcont *cont_add(struct strobe_model *m)
{
	struct mcont *c;

	if (m->nr_conts == m->cap_conts) {
		int cap = m->cap_conts ? m->cap_conts * 2 : 16;
		struct mcont **v = realloc(m->conts, (size_t)cap * sizeof(*v));

		if (!v)
			return NULL;
		m->conts = v;
		m->cap_conts = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->c.index = m->nr_conts;
	m->conts[m->nr_conts++] = c;
	return c;
}

/* "namespace/pod" of a pod-level cgroup from the kubelet's files. */
static bool pod_name(struct strobe_model *m, const char *uid, char *name, size_t size)
{
	struct strobe_container_meta *meta = malloc(sizeof(*meta));
	bool found = meta && strobe_pod_lookup(m->meta_root[0] ? m->meta_root : NULL, uid,
					       meta) == 1;

	if (found)
		strobe_meta_display(meta, name, size);
	free(meta);
	return found;
}

const struct strobe_container *model_container(struct strobe_model *m,
					       const struct strobe_cgroup_id *id,
					       int r, const char *name)
{
	struct mcont *c;
	int i;

	if (r < 0)
		return &m->conts[STROBE_CONTAINER_UNKNOWN]->c;
	if (r == 0 || id->conmon || (!id->id[0] && !id->pod_uid[0]))
		return &m->conts[STROBE_CONTAINER_HOST]->c;
	for (i = 2; i < m->nr_conts; i++) {
		c = m->conts[i];
		if (id->id[0] ? !strcmp(c->c.id, id->id)
			      : (!c->c.id[0] && !strcmp(c->c.pod_uid, id->pod_uid))) {
			if (name && *name && !c->named) {
				snprintf(c->c.name, sizeof(c->c.name), "%s", name);
				c->named = true;
			}
			return &c->c;
		}
	}
	c = cont_add(m);
	if (!c)
		return NULL;
	c->c.runtime = id->runtime;
	memcpy(c->c.id, id->id, sizeof(c->c.id));
	memcpy(c->c.short_id, id->short_id, sizeof(c->c.short_id));
	memcpy(c->c.pod_uid, id->pod_uid, sizeof(c->c.pod_uid));
	if (name && *name) {
		snprintf(c->c.name, sizeof(c->c.name), "%s", name);
		c->named = true;
	} else if (m->lookup_names && id->id[0] &&
		   strobe_container_name(m->meta_root[0] ? m->meta_root : NULL, id,
					 c->c.name, sizeof(c->c.name)) == 1) {
		c->named = true;
	} else if (id->id[0]) {
		snprintf(c->c.name, sizeof(c->c.name), "%s", id->short_id);
	} else if (m->lookup_names && pod_name(m, id->pod_uid, c->c.name,
						sizeof(c->c.name))) {
		c->named = true;
	} else {
		snprintf(c->c.name, sizeof(c->c.name), "pod-%s", id->pod_uid);
	}
	return &c->c;
}

static uint32_t str_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

const struct mpath *model_path(struct strobe_model *m, const char *path,
			       size_t len)
{
	struct strobe_cgroup_id id;
	struct mpath *p;
	uint32_t h;
	size_t i;
	int r;

	len = strnlen(path, len);
	h = str_hash(path, len);
	if (m->paths_cap) {
		for (i = h & (m->paths_cap - 1); m->paths[i];
		     i = (i + 1) & (m->paths_cap - 1))
			if (m->paths[i]->hash == h && !strncmp(m->paths[i]->s, path, len) &&
			    !m->paths[i]->s[len])
				return m->paths[i];
	}
	r = strobe_cgroup_parse_path(path, len, &id);
	if (r < 0)
		return NULL;
	if ((m->paths_nr + 1) * 2 > m->paths_cap) {
		size_t cap = m->paths_cap ? m->paths_cap * 2 : 64;
		struct mpath **v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (i = 0; i < m->paths_cap; i++) {
			size_t j;

			if (!m->paths[i])
				continue;
			for (j = m->paths[i]->hash & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
				;
			v[j] = m->paths[i];
		}
		free(m->paths);
		m->paths = v;
		m->paths_cap = cap;
	}
	p = malloc(sizeof(*p) + len + 1);
	if (!p)
		return NULL;
	p->hash = h;
	memcpy(p->s, path, len);
	p->s[len] = '\0';
	p->c = model_container(m, &id, r, NULL);
	if (!p->c) {
		free(p);
		return NULL;
	}
	for (i = h & (m->paths_cap - 1); m->paths[i]; i = (i + 1) & (m->paths_cap - 1))
		;
	m->paths[i] = p;
	m->paths_nr++;
	return p;
}

/* ---- life cycle ----------------------------------------------------------- */

int strobe_model_new(struct strobe_model **out, struct strobe_error *err)
{
	struct strobe_model *m = calloc(1, sizeof(*m));
	struct mcont *u, *h;

	*out = NULL;
	if (!m)
		return strobe_err(err, -ENOMEM, "out of memory");
	u = cont_add(m);
	h = u ? cont_add(m) : NULL;
	if (!h) {
		strobe_model_free(m);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	u->c.runtime = STROBE_RT_UNKNOWN;
	strcpy(u->c.name, "unknown");
	u->named = true;
	h->c.runtime = STROBE_RT_HOST;
	strcpy(h->c.name, "host");
	h->named = true;
	*out = m;
	return 0;
}

void strobe_model_free(struct strobe_model *m)
{
	size_t i;
	int c;

	if (!m)
		return;
	for (i = 0; i < m->tasks.cap; i++)
		if (m->tasks.slot[i])
			free(m->tasks.slot[i]->ns);
	for (i = 0; i < m->late.cap; i++)
		if (m->late.slot[i])
			free(m->late.slot[i]->ns);
	free(m->tasks.slot);
	free(m->late.slot);
	for (i = 0; i < m->nr_chunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	for (c = 0; c < m->nr_conts; c++)
		free(m->conts[c]);
	free(m->conts);
	for (i = 0; i < m->paths_cap; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->kind_by_type);
	free(m->fields);
	free(m);
}

void strobe_model_set_options(struct strobe_model *m, unsigned flags)
{
	m->live = flags & STROBE_MODEL_LIVE;
	m->lookup_names = flags & STROBE_MODEL_NAMES;
	m->keep_exited = flags & STROBE_MODEL_KEEP_EXITED;
}

int strobe_model_set_roots(struct strobe_model *m, const char *proc_root,
			   const char *meta_root)
{
	if ((proc_root && strlen(proc_root) >= sizeof(m->proc_root)) ||
	    (meta_root && strlen(meta_root) >= sizeof(m->meta_root)))
		return -ENAMETOOLONG;
	snprintf(m->proc_root, sizeof(m->proc_root), "%s", proc_root ? proc_root : "");
	snprintf(m->meta_root, sizeof(m->meta_root), "%s", meta_root ? meta_root : "");
	return 0;
}

/* ---- /proc ---------------------------------------------------------------- */

static const char *proc_root(const struct strobe_model *m)
{
	return m->proc_root[0] ? m->proc_root : "/proc";
}

/* starttime (field 22 of /proc/<tid>/stat), 0 if unreadable. */
uint64_t model_read_starttime(const char *root, int tid)
{
	char path[512], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "%s/%d/stat", root, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');		/* comm may hold spaces and ')' */
	if (!p)
		return 0;
	/* field 2 ends at p; fields 3.. follow, space separated */
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field != 22 || sscanf(p, "%llu", &v) != 1)
		return 0;
	return v;
}

/*
 * (Re)read the cgroup of task tid into e: interned path and container.
 * Returns 1 if the container changed, 0 if not, -errno.
 */
static int read_cgroup(struct strobe_model *m, struct mtask *e, int tid)
{
	char fn[512], *text = malloc(65536 + STROBE_CGROUP_PATH_MAX + 1);
	char *path = text ? text + 65536 : NULL;
	const struct mpath *mp = NULL;
	struct strobe_cgroup_id id;
	ssize_t n = -1;
	int fd, r = -ENOENT;

	if (!text)
		return -ENOMEM;
	snprintf(fn, sizeof(fn), "%s/%d/cgroup", proc_root(m), tid);
	fd = open(fn, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd >= 0) {
		n = read(fd, text, 65535);
		close(fd);
	}
	if (n > 0 && strobe_cgroup_parse_proc(text, (size_t)n, path,
					      STROBE_CGROUP_PATH_MAX + 1, &id) >= 0) {
		mp = model_path(m, path, strlen(path));
		r = mp ? 0 : -ENOMEM;
	}
	free(text);
	if (!mp)
		return r;
	e->cgpath = mp->s;
	e->cg_root = -1;
	if (e->t.container == mp->c)
		return 0;
	e->t.container = mp->c;
	mtask_ns_view(e);
	return 1;
}

int model_read_proc(struct strobe_model *m, struct mtask *e, int tid,
		    struct strobe_error *err)
{
	struct strobe_proc_info pi;
	int r = strobe_proc_read(proc_root(m), tid, &pi, err);

	if (r < 0)
		return r;
	mtask_set_tgid(m, e, pi.tgid);
	/* PPid is the parent *process*; for threads /proc says the same */
	e->t.ppid = pi.ppid;
	memcpy(e->t.comm, pi.comm, sizeof(e->t.comm));
	e->t.pidns = pi.pidns;
	e->mntns = pi.mntns;
	e->cgroupns = pi.cgroupns;
	r = mtask_set_ns(e, pi.nspid, pi.nr_nspid, pi.nstgid, pi.nr_nstgid);
	if (r < 0)
		return strobe_err(err, r, "out of memory");
	if (!pi.nr_nspid) {
		e->t.nstid = tid;
		e->t.nstgid = pi.tgid;
	}
	e->starttime = model_read_starttime(proc_root(m), tid);
	r = read_cgroup(m, e, tid);
	if (r == -ENOMEM)
		return strobe_err(err, r, "out of memory");
	if (r < 0)
		return strobe_err(err, r, "%s/%d: task gone", proc_root(m), tid);
	return 0;
}

/* Call fn for every task id under /proc (threads included). */
static int for_each_tid(struct strobe_model *m,
			int (*fn)(struct strobe_model *m, int tid, void *arg),
			void *arg, struct strobe_error *err)
{
	DIR *d = opendir(proc_root(m));
	struct dirent *de;
	int r = 0;

	if (!d)
		return strobe_err(err, -errno, "cannot open %s: %s", proc_root(m),
				  strerror(errno));
	while (r >= 0 && (de = readdir(d))) {
		char path[512];
		struct dirent *te;
		DIR *td;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > 0x7fffffff)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/task", proc_root(m), pid);
		td = opendir(path);
		if (!td) {
			r = fn(m, (int)pid, arg);	/* fixtures without task/ */
			continue;
		}
		while (r >= 0 && (te = readdir(td))) {
			long tid = strtol(te->d_name, &end, 10);

			if (*end || tid <= 0 || tid > 0x7fffffff)
				continue;
			r = fn(m, (int)tid, arg);
		}
		closedir(td);
	}
	closedir(d);
	if (r < 0)
		return strobe_err(err, r, "out of memory");
	return 0;
}

static int load_one(struct strobe_model *m, int tid, void *arg)
{
	struct mtask *e = mtask_new(m, &m->tasks, tid);
	int r;

	(void)arg;
	if (!e)
		return -ENOMEM;
	r = model_read_proc(m, e, tid, NULL);
	if (r < 0)
		mtask_drop(m, &m->tasks, e);	/* gone meanwhile: not an error */
	return r == -ENOMEM ? r : 0;
}

int strobe_model_load_proc(struct strobe_model *m, struct strobe_error *err)
{
	struct strobe_proc_info self;

	m->live = true;
	m->lookup_names = true;
	if (strobe_proc_read(proc_root(m), (int)getpid(), &self, NULL) == 0)
		m->pidns_host = self.pidns;
	return for_each_tid(m, load_one, NULL, err);
}

struct rescan {
	void (*fn)(const struct strobe_task *t, void *arg);
	void *arg;
	int added;
};

static int rescan_one(struct strobe_model *m, int tid, void *arg)
{
	struct rescan *rs = arg;
	struct mtask *e;
	int r;

	if (mtask_find(&m->tasks, tid))
		return 0;
	e = mtask_find(&m->late, tid);
	if (e) {
		/* born on the host, maybe on its way into a container (runc
		 * init, podman exec): look again while it is not in one */
		if (e->t.container->index >= 2)
			return 0;
		r = read_cgroup(m, e, tid);
		if (r == 1 && rs->fn)
			rs->fn(&e->t, rs->arg);
		return r == -ENOMEM ? r : 0;
	}
	e = mtask_new(m, &m->late, tid);
	if (!e)
		return -ENOMEM;
	e->flags |= MT_LATE;
	r = model_read_proc(m, e, tid, NULL);
	if (r < 0) {
		mtask_drop(m, &m->late, e);
		return r == -ENOMEM ? r : 0;
	}
	rs->added++;
	if (rs->fn)
		rs->fn(&e->t, rs->arg);
	return 0;
}

int strobe_model_rescan_proc(struct strobe_model *m,
			     void (*fn)(const struct strobe_task *t, void *arg),
			     void *arg, struct strobe_error *err)
{
	struct rescan rs = { fn, arg, 0 };
	int r;

	m->lookup_names = true;
	r = for_each_tid(m, rescan_one, &rs, err);
	return r < 0 ? r : rs.added;
}

int model_rescan_tid(struct strobe_model *m, int tid)
{
	struct rescan rs = { NULL, NULL, 0 };
	int r;

	m->lookup_names = true;
	r = rescan_one(m, tid, &rs);
	return r < 0 ? r : rs.added;
}

int model_add_seen(struct strobe_model *m, const struct strobe_proc_info *pi,
		   uint64_t starttime, const char *cgpath,
		   const struct strobe_task **added)
{
	const struct mpath *mp = model_path(m, cgpath, strlen(cgpath));
	int tid = pi->tid;
	struct mtask *e;

	if (!mp)
		return 0;	/* ENOMEM or a path the parser refuses */
	if (tid <= 0 || mtask_find(&m->tasks, tid))
		return 0;
	e = mtask_find(&m->late, tid);
	if (e && e->t.container->index >= 2)
		return 0;
	if (!e) {
		e = mtask_new(m, &m->late, tid);
		if (!e)
			return -ENOMEM;
		e->flags |= MT_LATE;
	}
	e->t.tgid = pi->tgid;
	e->t.ppid = pi->ppid;
	memcpy(e->t.comm, pi->comm, sizeof(e->t.comm));
	e->t.pidns = pi->pidns;
	e->mntns = pi->mntns;
	e->cgroupns = pi->cgroupns;
	if (mtask_set_ns(e, pi->nspid, pi->nr_nspid, pi->nstgid, pi->nr_nstgid) < 0)
		return -ENOMEM;
	if (!pi->nr_nspid) {
		e->t.nstid = tid;
		e->t.nstgid = pi->tgid;
	}
	e->starttime = starttime;
	e->cgpath = mp->s;
	e->cg_root = -1;
	e->t.container = mp->c;
	mtask_ns_view(e);
	*added = &e->t;
	return 1;
}

/* ---- lookups -------------------------------------------------------------- */

/* Fill a task met for the first time from a late record, /proc or the
 * file's cmdlines. */
static void first_sight(struct strobe_model *m, struct mtask *e)
{
	struct mtask *l = m->late.nr ? mtask_find(&m->late, e->t.tid) : NULL;

	if (l) {
		mtask_copy_info(m, e, l);
		mtask_ns_view(e);
		mtask_drop(m, &m->late, l);
		return;
	}
	if (m->live && e->t.tid > 0 && model_read_proc(m, e, e->t.tid, NULL) == 0)
		return;
	if (m->fmts) {
		/* A file's saved cmdlines; "<...>" as trace-cmd prints an
		 * unknown one. */
		const char *comm = strobe_formats_comm(m->fmts, e->t.tid);

		snprintf(e->t.comm, sizeof(e->t.comm), "%s", comm ? comm : "<...>");
	}
}

struct mtask *model_task_get(struct strobe_model *m, int tid)
{
	struct mtask *e = mtask_find(&m->tasks, tid);

	if (e || tid < 0)
		return e;
	e = mtask_new(m, &m->tasks, tid);
	if (!e)
		return NULL;
	if (tid == 0) {
		/* the idle tasks: the kernel's, never in a container */
		strcpy(e->t.comm, "<idle>");
		e->t.tgid = 0;
		e->t.ppid = 0;
		e->t.container = &m->conts[STROBE_CONTAINER_HOST]->c;
		return e;
	}
	first_sight(m, e);
	return e;
}

const struct strobe_task *strobe_model_task(struct strobe_model *m, int tid)
{
	struct mtask *e = model_task_get(m, tid);

	return e ? &e->t : NULL;
}

int strobe_model_nr_containers(const struct strobe_model *m)
{
	return m->nr_conts;
}

const struct strobe_container *strobe_model_container(const struct strobe_model *m,
						      int index)
{
	if (index < 0 || index >= m->nr_conts)
		return NULL;
	return &m->conts[index]->c;
}

static bool is_hex_prefix(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && n <= 64 && strspn(s, "0123456789abcdef") == n;
}

const struct strobe_container *strobe_model_find_container(const struct strobe_model *m,
							   const char *name_or_id)
{
	const struct strobe_container *found = NULL;
	int i, nr = 0;

	if (!name_or_id || !*name_or_id)
		return NULL;
	for (i = 0; i < m->nr_conts; i++)
		if (!strcmp(m->conts[i]->c.name, name_or_id)) {
			found = &m->conts[i]->c;
			nr++;
		}
	if (nr)
		return nr == 1 ? found : NULL;
	for (i = 2; i < m->nr_conts; i++)
		if (m->conts[i]->c.id[0] && !strcmp(m->conts[i]->c.id, name_or_id))
			return &m->conts[i]->c;
	if (!is_hex_prefix(name_or_id))
		return NULL;
	for (i = 2; i < m->nr_conts; i++)
		if (!strncmp(m->conts[i]->c.id, name_or_id, strlen(name_or_id))) {
			found = &m->conts[i]->c;
			nr++;
		}
	return nr == 1 ? found : NULL;
}

bool strobe_container_matches(const struct strobe_container *c,
			      const char *name_or_id)
{
	size_t n;

	if (!c || !name_or_id || !*name_or_id)
		return false;
	if (!strcmp(c->name, name_or_id) || (c->id[0] && !strcmp(c->id, name_or_id)))
		return true;
	n = strlen(name_or_id);
	return c->id[0] && is_hex_prefix(name_or_id) && !strncmp(c->id, name_or_id, n);
}

int strobe_model_task_info(struct strobe_model *m, int tid,
			   struct strobe_task_info *out)
{
	struct mtask *e = model_task_get(m, tid);

	memset(out, 0, sizeof(*out));
	if (!e)
		return tid < 0 ? -EINVAL : -ENOMEM;
	out->task = &e->t;
	out->nr_nspid = e->nr_nspid;
	if (e->nr_nspid)
		memcpy(out->nspid, e->ns, e->nr_nspid * sizeof(int));
	out->nr_nstgid = e->nr_nstgid;
	if (e->nr_nstgid)
		memcpy(out->nstgid, e->ns + e->nr_nspid, e->nr_nstgid * sizeof(int));
	out->mntns = e->mntns;
	out->cgroupns = e->cgroupns;
	out->starttime = e->starttime;
	out->cgroup_path = e->cgpath ? e->cgpath : "";
	out->exited = e->flags & MT_EXITED;
	return 0;
}

const struct strobe_task *strobe_model_next_task(const struct strobe_model *m,
						 size_t *cursor)
{
	for (; *cursor < m->tasks.cap; (*cursor)++)
		if (m->tasks.slot[*cursor])
			return &m->tasks.slot[(*cursor)++]->t;
	return NULL;
}
