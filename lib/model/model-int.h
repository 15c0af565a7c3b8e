/*
 * model-int.h - internals of lib/model shared with the fuzz harness and
 * unit tests (not installed).
 */
#ifndef STROBE_MODEL_INT_H
#define STROBE_MODEL_INT_H

#include <stddef.h>

#include <strobe/model.h>

#include "util/err.h"

/* The kinds of runtime metadata file runtime.c understands. */
enum strobe_meta_kind {
	STROBE_META_DOCKER_CONFIG,	/* docker's config.v2.json */
	STROBE_META_STORAGE_LIST,	/* containers/storage's containers.json */
	STROBE_META_OCI_CONFIG,		/* an OCI bundle's config.json */
};

/*
 * Parse one metadata file's text (`len` bytes, need not be NUL-terminated)
 * into out->name/pod/pod_ns; `id` (64 hex) selects the entry of a
 * containers.json and is ignored otherwise.  Pure and bounded: no
 * recursion, no allocation.  Fields not found are left as they are.
 * Returns 1 if a name or pod was found, 0 if not (or malformed JSON).
 */
int strobe_meta_parse(enum strobe_meta_kind kind, const char *text, size_t len,
		      const char *id, struct strobe_container_meta *out)
	STROBE_HIDDEN;

/* ---- docker's data roots (runtime.c) ---- */

#define STROBE_DOCKER_ROOT_MAX		256	/* longest data root + 1 */
#define STROBE_DOCKERD_MAX		8	/* dockerd processes looked at */
#define STROBE_DOCKERD_ARGS_MAX		512	/* arguments of one read */
#define STROBE_DOCKERD_CMDLINE_MAX	(64u << 10)	/* bytes of one read */

/* What a dockerd command line says of where its data lies. */
struct strobe_dockerd_args {
	char data_root[STROBE_DOCKER_ROOT_MAX];	/* --data-root, -g, --graph;
						 * "" if absent */
	char config_file[256];			/* --config-file; "" if absent */
};

/*
 * Parse a dockerd command line as /proc/PID/cmdline gives it (`len`
 * bytes of NUL-separated arguments, argv[0] first; need not end in NUL;
 * at most STROBE_DOCKERD_ARGS_MAX arguments are read) into *out (reset
 * first): "--data-root X", "--data-root=X", the older "-g X", "-gX",
 * "-g=X", "--graph X", "--graph=X", and "--config-file X" / "=X"; the last
 * one wins, as for dockerd; nothing after "--".  Values must be absolute
 * paths that fit, else they count as absent.  Returns 1 if either was
 * found, 0 if not, -ENOMEM.
 */
int strobe_dockerd_parse_cmdline(const char *cmdline, size_t len,
				 struct strobe_dockerd_args *out) STROBE_HIDDEN;

/*
 * The data root a daemon.json text (`len` bytes) sets: its "data-root"
 * string, or the older "graph", copied to data_root[size] if absolute and
 * it fits.  Returns 1 if so, 0 if not (data_root untouched).
 */
int strobe_docker_daemon_parse(const char *text, size_t len, char *data_root,
			       size_t size) STROBE_HIDDEN;

/*
 * A Kubernetes pod's own cgroup (no container ID): namespace and pod name
 * from the kubelet's /var/log/pods/<namespace>_<pod>_<uid>/ under root
 * (NULL or "/": the real one).  *out is reset first.  Returns 1 if found
 * (out->pod, out->pod_ns), 0 if not, -EINVAL for a malformed UID.
 */
int strobe_pod_lookup(const char *root, const char *pod_uid,
		      struct strobe_container_meta *out) STROBE_HIDDEN;

/* The display name of a lookup's answer into name[size]: "ns/pod/name"
 * for Kubernetes containers, "ns/pod" for a pod, else the name. */
void strobe_meta_display(const struct strobe_container_meta *m, char *name,
			 size_t size) STROBE_HIDDEN;


/* ---- the task model's internals (model.c, update.c, table.c) ------------- */

#include <stdbool.h>
#include <stdint.h>

struct strobe_formats;

/* Flags of a task entry. */
enum {
	MT_EXITED = 1 << 0,	/* sched_process_exit/free seen */
	MT_NEWTASK = 1 << 1,	/* created by task_newtask; its
				 * sched_process_fork has not come yet */
	MT_LATE = 1 << 2,	/* an "appeared during the recording" record
				 * (lives in the late table) */
	MT_NS_GUESS = 1 << 3,	/* NSpid assumed from a host parent's at a
				 * fork, never read: wrong if the parent had
				 * joined or unshared a PID namespace */
};

/*
 * One task.  The public part comes first so a struct strobe_task pointer
 * handed out is the entry itself.  Entries come from a slab (stable
 * addresses) and are found by tid through an open-addressing table.
 */
struct mtask {
	struct strobe_task t;
	struct mtask *gc_next, *gc_prev;	/* exited list, oldest first */
	uint64_t exit_ts;	/* trace time of the exit (MT_EXITED) */
	uint64_t mntns, cgroupns;
	uint64_t starttime;	/* /proc/<pid>/stat field 22, 0 unknown */
	const char *cgpath;	/* interned cgroup path, NULL unknown */
	int *ns;		/* nr_nspid NSpid values then nr_nstgid NStgid
				 * values (malloc'd), NULL when both are 0 */
	uint8_t nr_nspid, nr_nstgid;
	uint8_t flags;
	int cg_root;		/* cgroup hierarchy (dst_root) the container
				 * came from; -1 from /proc or a table */
};

/* Open-addressing table tid -> entry (linear probing, backward-shift
 * deletion); cap is a power of two, at most half full. */
struct mtable {
	struct mtask **slot;
	size_t cap, nr;
};

/* An interned cgroup path and the container it names. */
struct mpath {
	uint32_t hash;
	const struct strobe_container *c;
	char s[];
};

struct mcont {
	struct strobe_container c;
	bool named;		/* name from metadata or a table, not the
				 * short-ID fallback */
};

struct strobe_model {
	struct mtable tasks;	/* live and recently exited tasks */
	struct mtable late;	/* tasks a recording saw appear (L records) */
	struct mtask *gc_head, *gc_tail;
	uint64_t next_serial;	/* strobe_task.serial of the next entry */
	/* slab */
	struct mtask *free_list;
	void **chunks;
	size_t nr_chunks;
	/* containers: index 0 unknown, 1 host */
	struct mcont **conts;
	int nr_conts, cap_conts;
	/* interned paths */
	struct mpath **paths;
	size_t paths_cap, paths_nr;
	struct strobe_formats *fmts;	/* a loaded file's cmdlines, may be NULL */
	bool live;		/* read /proc for tasks met for the first time */
	bool lookup_names;	/* ask runtime metadata for new containers */
	bool keep_exited;	/* never drop exited tasks (strobe ps -i) */
	uint64_t pidns_host;	/* pid namespace of the /proc reader, 0 */
	char proc_root[256];	/* "" = /proc */
	char meta_root[256];	/* "" = / */
	/* update.c: event kinds by common_type, and resolved fields */
	uint8_t *kind_by_type;	/* 65536 entries, lazily allocated */
	void *fields;		/* struct model_fields, update.c */
};

struct mtask *mtask_find(struct mtable *t, int tid) STROBE_HIDDEN;
/* A fresh entry for tid in table t (an old one with that tid is freed).
 * NULL on ENOMEM. */
struct mtask *mtask_new(struct strobe_model *m, struct mtable *t, int tid)
	STROBE_HIDDEN;
void mtask_drop(struct strobe_model *m, struct mtable *t, struct mtask *e)
	STROBE_HIDDEN;
/* Move e out of table `from` (without freeing it) and into `to`. */
int mtask_move(struct strobe_model *m, struct mtable *from, struct mtable *to,
	       struct mtask *e) STROBE_HIDDEN;
/* Copy the NSpid/NStgid lists (may be NULL with 0 entries). -ENOMEM. */
int mtask_set_ns(struct mtask *e, const int *nspid, int nr_nspid,
		 const int *nstgid, int nr_nstgid) STROBE_HIDDEN;
/*
 * The task's namespaced PIDs as shown (t.nstid, t.nstgid) from its lists:
 * the innermost level, except for a task in a container whose list has
 * only the reader's level (a runtime's helper such as runc init's first
 * stages, in the container's cgroup but the host's PID namespace): it has
 * no PID inside the container, and -1 says so rather than the host PID.
 * Call after the container or the lists changed (mtask_set_ns does).
 */
void mtask_ns_view(struct mtask *e) STROBE_HIDDEN;
/* Copy everything but the tid, the serial and the table links from src
 * to dst (a new serial when that changes dst's known tgid). */
int mtask_copy_info(struct strobe_model *m, struct mtask *dst, const struct mtask *src)
	STROBE_HIDDEN;

/* Set e's tgid; a known tgid that changes means the tid is another
 * task's now (its reuse went unseen): a new serial. */
static inline void mtask_set_tgid(struct strobe_model *m, struct mtask *e, int tgid)
{
	if (e->t.tgid >= 0 && tgid >= 0 && e->t.tgid != tgid)
		e->t.serial = ++m->next_serial;
	e->t.tgid = tgid;
}
/* Mark exited at ts (and queue for dropping unless keep_exited). */
void mtask_exited(struct strobe_model *m, struct mtask *e, uint64_t ts)
	STROBE_HIDDEN;
/* Drop exited entries older than the grace period before `now`. */
void model_gc(struct strobe_model *m, uint64_t now) STROBE_HIDDEN;
/* How long an exited task stays (events about it may come late). */
#define EXIT_GRACE_NS 1000000000ull
/* model_gc when the oldest exited task is due: the test inline, since
 * every event asks and a task is rarely due. */
static inline void model_gc_due(struct strobe_model *m, uint64_t now)
{
	if (__builtin_expect(m->gc_head && m->gc_head->exit_ts + EXIT_GRACE_NS < now, 0))
		model_gc(m, now);
}

/* Intern a cgroup path (len bytes) and decide its container; NULL on
 * ENOMEM or an unparsable path. */
const struct mpath *model_path(struct strobe_model *m, const char *path,
			       size_t len) STROBE_HIDDEN;
/* The container of a parsed cgroup identity (parse result r), created on
 * first sight; name may be NULL (looked up or the short ID).  NULL on
 * ENOMEM. */
const struct strobe_container *model_container(struct strobe_model *m,
					       const struct strobe_cgroup_id *id,
					       int r, const char *name)
	STROBE_HIDDEN;
/* The task entry for tid, created on first sight (see strobe_model_task). */
struct mtask *model_task_get(struct strobe_model *m, int tid) STROBE_HIDDEN;
/* Fill a task entry from /proc; 0, -ENOENT, ... */
int model_read_proc(struct strobe_model *m, struct mtask *e, int tid,
		    struct strobe_error *err) STROBE_HIDDEN;
/* strobe_model_rescan_proc for the one task tid (for the recorder's
 * command child): 1 if added, 0 if known or gone, -ENOMEM. */
int model_rescan_tid(struct strobe_model *m, int tid) STROBE_HIDDEN;

/* starttime (field 22 of <root>/<tid>/stat), 0 if unreadable. */
uint64_t model_read_starttime(const char *root, int tid) STROBE_HIDDEN;
/*
 * A task read from /proc by someone else (the watcher) while it lived:
 * added as a task that appeared during the recording (an A record), in
 * the container of cgpath, unless the model knows it already (a known
 * late task still on the host takes the new cgroup).  Returns 1 if added
 * or moved (*added is then the task), 0 if not, -ENOMEM.
 */
int model_add_seen(struct strobe_model *m, const struct strobe_proc_info *pi,
		   uint64_t starttime, const char *cgpath,
		   const struct strobe_task **added) STROBE_HIDDEN;

/* ---- the watcher (watch.c): containers named the moment they appear ------ */

struct model_watch;

/*
 * Start watching the cgroup trees for new container cgroups (inotify, in a
 * thread of its own): each one's name is looked up in the runtime metadata
 * at once, while it exists, and the tasks in it are read from /proc during
 * its first seconds (NSpid while they live).  cg_roots (NULL-terminated,
 * may be NULL) are cgroup hierarchy mount points; NULL picks the host's:
 * the v2 tree (/sys/fs/cgroup or /sys/fs/cgroup/unified) and one v1 tree.
 * proc_root and meta_root as strobe_model_set_roots (NULL or "": the real
 * ones).  The thread never touches a model: model_watch_apply does, on the
 * caller's thread.  Start it in a process that may have threads (not
 * before a fork that must be single-threaded).  Returns 0, -ENOENT when no
 * root could be watched, -errno.
 */
int model_watch_start(struct model_watch **out, const char *const *cg_roots,
		      const char *proc_root, const char *meta_root,
		      struct strobe_error *err) STROBE_HIDDEN;
/*
 * Put what the watcher found since the last call into m: containers (with
 * their names) and tasks (as late tasks); fn (may be NULL) is called for
 * each task added or moved, as strobe_model_rescan_proc's.  Returns the
 * number of containers newly named or added, or -ENOMEM.
 */
int model_watch_apply(struct model_watch *w, struct strobe_model *m,
		      void (*fn)(const struct strobe_task *t, void *arg), void *arg)
	STROBE_HIDDEN;
/* The thread's tid (named "strobe-watch"), for keeping it out of a trace;
 * waits up to a second for the thread to say it; 0 if it did not (or w is
 * NULL). */
int model_watch_tid(struct model_watch *w) STROBE_HIDDEN;
/* Stop the thread and free; NULL ok. */
void model_watch_free(struct model_watch *w) STROBE_HIDDEN;

#endif
