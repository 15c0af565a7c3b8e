/*
 * model.h - container attribution foundations: which container a task
 * belongs to (from its cgroup path), its host and namespaced PIDs (from
 * /proc/<pid>/status), and the container's human name (from the
 * runtimes' on-disk metadata).  (Implemented in lib/model/.)
 *
 * Three layers, from pure to I/O:
 *
 *   strobe_cgroup_parse_path/_proc   pure parsers: no I/O, no allocation,
 *                                    bounded by the input length; they fill
 *                                    a caller-provided struct.
 *   strobe_proc_parse_status         pure parser of /proc/<pid>/status.
 *   strobe_proc_read                 thin reader of /proc/<pid>/status,
 *                                    cgroup and ns links, on the parsers.
 *   strobe_container_lookup/_name    reads runtime metadata files (docker,
 *                                    podman, cri-o, containerd) when they
 *                                    are readable; never talks to a socket.
 *
 * Container identity is decided from the cgroup path alone, so it also
 * works on a trace file from another machine.  The rules, in short:
 * the outermost path component that names a container wins (a sub-cgroup
 * such as /docker/<id>/init.scope, podman's .../libpod-<id>.scope/container
 * or a nested engine's cgroups belong to the outer container, the one the
 * host's runtime knows); Kubernetes pod UID and QoS class come from the
 * kubepods components above it.  Runtime metadata only adds names.
 *
 * Errors are negative errno values; the readers also fill a
 * struct strobe_error (may be NULL) with a one-line message.
 */
#ifndef STROBE_MODEL_H
#define STROBE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;

/* ---- cgroup path -> container identity ----------------------------------- */

enum strobe_runtime {
	STROBE_RT_HOST = 0,	/* not in a container */
	STROBE_RT_DOCKER,	/* docker-<id>.scope, /docker/<id> */
	STROBE_RT_CONTAINERD,	/* cri-containerd-<id>.scope, :cri-containerd:<id> */
	STROBE_RT_CRIO,		/* crio-<id>.scope, crio-conmon-<id>.scope */
	STROBE_RT_PODMAN,	/* libpod-<id>[.scope], libpod-conmon-<id>.scope */
	STROBE_RT_KUBEPODS,	/* under a Kubernetes pod, runtime not named in
				 * the path (cgroupfs driver: .../pod<uid>/<id>) */
	STROBE_RT_LXC,		/* /lxc/<name>, /lxc.payload.<name> */
	STROBE_RT_UNKNOWN,	/* a 64-hex container ID under an unknown prefix */
	STROBE_RT_NR
};

enum strobe_qos {
	STROBE_QOS_NONE = 0,	/* not a Kubernetes pod */
	STROBE_QOS_GUARANTEED,	/* pod directly under kubepods */
	STROBE_QOS_BURSTABLE,
	STROBE_QOS_BESTEFFORT,
};

/* Longest cgroup path the parsers accept (the kernel's PATH_MAX). */
#define STROBE_CGROUP_PATH_MAX 4096

/* Who a cgroup path belongs to.  All strings are NUL-terminated; "" = none. */
struct strobe_cgroup_id {
	enum strobe_runtime runtime;	/* STROBE_RT_HOST iff not a container */
	enum strobe_qos qos;		/* != NONE only when pod_uid is set */
	bool conmon;		/* the runtime's monitor (crio-conmon-, libpod-
				 * conmon-, lxc.monitor.), not the container */
	int rootless_uid;	/* N from a user@N.service component, else -1 */
	char id[65];		/* 64 lowercase hex digits; for LXC the name
				 * (at most 64 bytes); "" for host and pod-level
				 * cgroups */
	char short_id[13];	/* first 12 bytes of id */
	char pod_uid[37];	/* Kubernetes pod UID with dashes
				 * (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx), or 32
				 * hex digits for static pods; "" */
};

/*
 * Identify the container of one cgroup path ("/system.slice/docker-<id>.
 * scope"), `len` bytes, need not be NUL-terminated.  Pure.  *out is always
 * reset first.  Returns 1 if the path is in a container or pod, 0 if it is
 * a host cgroup, -EINVAL if it is not an absolute path or holds a NUL or
 * newline, -ENAMETOOLONG if longer than STROBE_CGROUP_PATH_MAX.
 */
int strobe_cgroup_parse_path(const char *path, size_t len,
			     struct strobe_cgroup_id *out);

/*
 * Identify the container of a whole /proc/<pid>/cgroup text (or one line
 * of it, or a bare path starting with '/').  Lines are
 * "hierarchy:controllers:path"; the path may itself hold ':'.  The line
 * used is the best-ranked one that names a container, ranks being
 * "0::" (v2), then the v1 controllers pids, cpu (cpu,cpuacct), memory,
 * name=systemd, then any other; if none names a container, the best-ranked
 * line is used (so a hybrid host whose "0::/" is empty while v1 lines say
 * "/docker/<id>" still resolves).  Malformed lines are skipped.
 *
 * path_out (may be NULL when path_size is 0) receives the chosen path,
 * NUL-terminated.  Returns 1 (container) or 0 (host) as
 * strobe_cgroup_parse_path, -EINVAL if no line is usable, -ENOBUFS if the
 * chosen path does not fit path_out (then *out is still filled and
 * path_out holds "").
 */
int strobe_cgroup_parse_proc(const char *text, size_t len,
			     char *path_out, size_t path_size,
			     struct strobe_cgroup_id *out);

/* "host", "docker", "containerd", "cri-o", "podman", "kubepods", "lxc",
 * "unknown"; "?" out of range.  Static strings. */
const char *strobe_runtime_name(enum strobe_runtime rt);
/* "", "guaranteed", "burstable", "besteffort"; "?" out of range.  Static. */
const char *strobe_qos_name(enum strobe_qos qos);

/* ---- /proc/<pid> ---------------------------------------------------------- */

/* Deepest PID namespace nesting the kernel allows (MAX_PID_NS_LEVEL). */
#define STROBE_PIDNS_LEVELS 32

struct strobe_proc_info {
	int tid;		/* "Pid:", in the reader's PID namespace */
	int tgid;		/* "Tgid:" */
	int ppid;		/* "PPid:" (0 when the parent is outside the
				 * reader's namespace) */
	char comm[16];		/* "Name:", kernel escapes undone */
	/*
	 * "NSpid:"/"NStgid:": the PID in each namespace from the reader's
	 * (index 0, equal to tid/tgid) down to the task's own (last index,
	 * the PID the container sees).  nr_* is 0 on kernels without them.
	 */
	int nr_nspid;
	int nspid[STROBE_PIDNS_LEVELS];
	int nr_nstgid;
	int nstgid[STROBE_PIDNS_LEVELS];
	/* Namespace inode numbers (as in "pid:[4026531836]"), 0 if unknown. */
	uint64_t pidns, mntns, cgroupns;
	struct strobe_cgroup_id cgroup;	/* from /proc/<pid>/cgroup (reader
					 * only; the status parser leaves it
					 * as runtime HOST) */
};

/*
 * Parse the text of /proc/<pid>/status (`len` bytes) into *out (reset
 * first; only tid, tgid, ppid, comm, nspid and nstgid are set).  Pure.
 * Returns 0, or -EINVAL when there is no valid "Pid:" line or a known
 * field is malformed (more than STROBE_PIDNS_LEVELS levels included).
 */
int strobe_proc_parse_status(const char *text, size_t len,
			     struct strobe_proc_info *out);

/*
 * Read what strobe knows about task `pid` from <proc_root>/<pid>/ (NULL
 * means "/proc"; tests point it at a fixture directory): status (required),
 * cgroup (required) and the ns/pid, ns/mnt, ns/cgroup links (optional:
 * left 0 when unreadable, e.g. without ptrace rights).  Works for thread
 * IDs too.  Returns 0, -ENOENT when the task does not exist (or exited
 * while being read), -EACCES, -EINVAL for unparsable files; *err names the
 * file.
 */
int strobe_proc_read(const char *proc_root, int pid,
		     struct strobe_proc_info *out, struct strobe_error *err);

/* ---- container names from runtime metadata -------------------------------- */

struct strobe_container_meta {
	enum strobe_runtime runtime;	/* runtime whose metadata answered
					 * (may refine KUBEPODS/UNKNOWN) */
	char name[256];		/* container name ("probe", "web", the pod's
				 * container name "nginx"); the short ID when
				 * no metadata was found; "" for a pod sandbox */
	char pod[256];		/* Kubernetes pod name, "" */
	char pod_ns[256];	/* Kubernetes namespace, "" */
	char source[512];	/* metadata file that answered, "" */
	char warning[512];	/* "" or why a metadata file that exists was
				 * skipped ("PATH: not a regular file (a
				 * FIFO): skipped"); the lookup never prints */
};

/*
 * Find the name of the container `id` names, looking under `root` (NULL or
 * "" means "/"; tests use a fixture tree) at, depending on id->runtime:
 *   docker      <data-root>/containers/<id>/config.v2.json: "Name" and
 *               the io.kubernetes.* labels (cri-dockerd); data-root is
 *               /var/lib/docker unless /etc/docker/daemon.json says
 *               otherwise, then those of the running dockerd
 *               processes (their /proc/PID/cmdline's --data-root, -g,
 *               --graph, or --config-file's "data-root"; the list of
 *               daemons is reused for a second, read again for a
 *               docker cgroup no known root holds)
 *   podman      containers/storage's containers.json ("names"), under
 *               /var/lib/containers/storage and /run/containers/storage,
 *               or for rootless (id->rootless_uid) the user's
 *               ~/.local/share/containers/storage and /run/user/N/containers
 *   cri-o       the container's userdata/config.json in the same stores
 *               (annotations io.kubernetes.pod.name, .pod.namespace,
 *               .container.name), then containers.json
 *   containerd  /run/containerd/io.containerd.runtime.v2.task/<ns>/<id>/
 *               config.json (annotations io.kubernetes.cri.container-name,
 *               .sandbox-name, .sandbox-namespace, or the io.kubernetes.*
 *               ones) for ns k8s.io, moby, default
 *   kubepods, unknown: each of the above in turn
 *   any container under a Kubernetes pod, when the above found nothing:
 *               the kubelet's log links /var/log/containers/<pod>_<ns>_
 *               <container>-<id>.log (names only, never followed)
 *   lxc         the name is the ID
 * A runtime that is absent or unreadable is not an error.  Reads at most a
 * few small files (each capped at 32 MiB; for docker also the comm of each
 * /proc entry, when the daemons' list is read), never blocking and never
 * through a symlink at the file's own name: a FIFO, device, symlink or
 * oversized file found at one of these paths (anyone can plant one in
 * their home) is skipped, and the first such is described in
 * out->warning for the caller to show.  *out is reset first.  Returns
 * 1 if metadata named the container, 0 if out->name fell back to the short
 * ID, -EINVAL if id has no container ID (host or pod-level cgroup).
 */
int strobe_container_lookup(const char *root, const struct strobe_cgroup_id *id,
			    struct strobe_container_meta *out);

/*
 * One display name for `id` into name[size] (truncated, NUL-terminated):
 * "<pod_ns>/<pod>/<container>" for Kubernetes containers whose metadata
 * was found, else the container name, else the 12-character short ID.
 * root as for strobe_container_lookup.  Returns 1 (from metadata), 0
 * (fallback), -EINVAL (no container ID, or size is 0; name is "" when
 * size allows) or -ENOMEM.
 */
int strobe_container_name(const char *root, const struct strobe_cgroup_id *id,
			  char *name, size_t size);

/* ---- the task model: threads, processes and containers over a stream ----
 * Appended to include/strobe/model.h.  Fed with every event of a stream in
 * order (before analyses see it); memory bounded by live tasks (entries of
 * exited tasks are dropped after their exit is processed and a grace of a
 * few events/seconds of trace time, so PID reuse gets a fresh entry).
 */
struct strobe_tracefile;
struct strobe_event;
struct strobe_model;

/* Index 0 is "unknown" (no information: e.g. a plain trace-cmd file with
 * no strobe tables and no /proc), index 1 is "host"; containers follow in
 * order of discovery.  Entries live as long as the model. */
#define STROBE_CONTAINER_UNKNOWN 0
#define STROBE_CONTAINER_HOST 1
struct strobe_container {
	int index;
	enum strobe_runtime runtime;
	char id[65];		/* "" for unknown and host */
	char short_id[13];
	char name[256];		/* runtime name; "ns/pod/container" for
				 * Kubernetes; short_id when no metadata;
				 * "host"; "unknown" */
	char pod_uid[37];
};

struct strobe_task {
	int tid;
	int tgid;		/* -1 unknown */
	int ppid;		/* -1 unknown */
	char comm[16];		/* latest comm ("<...>" unknown) */
	int nstid;		/* innermost-namespace tid, -1 unknown */
	int nstgid;		/* innermost-namespace tgid, -1 unknown */
	uint64_t pidns;		/* pid namespace inode, 0 unknown */
	const struct strobe_container *container;	/* never NULL */
	/* This task's instance, unique in the model: a tid reused by a new
	 * task (a fork naming it, a new tgid, a new entry after the old
	 * one's exit) gets a new serial.  Analyses group by it, so rows of
	 * two threads that shared a tid never merge. */
	uint64_t serial;
};

int strobe_model_new(struct strobe_model **out, struct strobe_error *err);
void strobe_model_free(struct strobe_model *m);		/* NULL ok */
/* Load the task and container tables a strobe recording stored in tf
 * (returns 0 and loads only comms from the file's cmdlines for files
 * without them). */
int strobe_model_load_file(struct strobe_model *m, struct strobe_tracefile *tf,
			   struct strobe_error *err);
/* Snapshot the live system from /proc (for live mode and strobe ps). */
int strobe_model_load_proc(struct strobe_model *m, struct strobe_error *err);
/* Update from one event (sched_process_fork/exec/exit, task_rename,
 * sched_switch comms, cgroup_attach_task, ...); cheap for other events. */
void strobe_model_update(struct strobe_model *m, const struct strobe_event *ev);
/* The task with this host tid; created on first sight (comm from the
 * file's cmdlines if known).  Never NULL for tid >= 0 except on ENOMEM.
 * The pointer is valid until the next strobe_model_update. */
const struct strobe_task *strobe_model_task(struct strobe_model *m, int tid);
int strobe_model_nr_containers(const struct strobe_model *m);
const struct strobe_container *strobe_model_container(const struct strobe_model *m,
						      int index);
/* By exact name, full id, or unique id prefix (>= 4 hex chars); NULL if
 * none or ambiguous. */
const struct strobe_container *strobe_model_find_container(const struct strobe_model *m,
							   const char *name_or_id);

/* ---- beyond the basics: options, details, iteration, the stored table ---- */

/* strobe_model_set_options flags (default: none). */
#define STROBE_MODEL_LIVE	 (1u << 0)	/* read /proc for tasks met for
						 * the first time */
#define STROBE_MODEL_NAMES	 (1u << 1)	/* look new containers' names up
						 * in runtime metadata */
#define STROBE_MODEL_KEEP_EXITED (1u << 2)	/* never drop exited tasks (a
						 * listing of everything seen) */
void strobe_model_set_options(struct strobe_model *m, unsigned flags);
/* Read /proc and runtime metadata under other roots (tests); NULL or ""
 * restores "/proc" and "/".  Returns 0 or -ENAMETOOLONG. */
int strobe_model_set_roots(struct strobe_model *m, const char *proc_root,
			   const char *meta_root);

/* What the model knows about a task beyond struct strobe_task. */
struct strobe_task_info {
	const struct strobe_task *task;	/* valid as strobe_model_task's */
	int nr_nspid;			/* 0 unknown; else host first */
	int nspid[STROBE_PIDNS_LEVELS];
	int nr_nstgid;
	int nstgid[STROBE_PIDNS_LEVELS];
	uint64_t mntns, cgroupns;	/* 0 unknown */
	uint64_t starttime;		/* /proc/<pid>/stat starttime, 0 unknown */
	const char *cgroup_path;	/* "" unknown; owned by the model */
	bool exited;
};
/* Creates the task on first sight as strobe_model_task.  Returns 0,
 * -EINVAL (tid < 0) or -ENOMEM. */
int strobe_model_task_info(struct strobe_model *m, int tid,
			   struct strobe_task_info *out);

/* Iterate the tasks held (live and recently exited; every one seen with
 * STROBE_MODEL_KEEP_EXITED), in no particular order: start with
 * *cursor = 0; NULL at the end.  Do not update the model meanwhile. */
const struct strobe_task *strobe_model_next_task(const struct strobe_model *m,
						 size_t *cursor);

/* true if c's name or full ID is name_or_id, or name_or_id is a prefix
 * of its ID of at least 4 lowercase hex digits (a filter that, unlike
 * strobe_model_find_container, accepts several containers). */
bool strobe_container_matches(const struct strobe_container *c,
			      const char *name_or_id);

/*
 * For recorders: add the tasks in /proc the model does not know yet as
 * tasks that appeared during the recording (stored as such in the table),
 * and look again at the cgroup of such tasks that are not in a container
 * yet (a task created on the host that joins one: runc init, podman
 * exec).  fn (may be NULL) is called for each task added or moved into
 * another container.  Tasks alive at strobe_model_load_proc are not read
 * again.  Returns how many were added, or -errno.
 */
int strobe_model_rescan_proc(struct strobe_model *m,
			     void (*fn)(const struct strobe_task *t, void *arg),
			     void *arg, struct strobe_error *err);

/*
 * The table stored in trace files, as text (format: lib/model/table.c and
 * doc/ARCHITECTURE.md, "Processes and containers"): containers, the tasks known at the start, and
 * the tasks that appeared during the recording.  _write allocates *out
 * (NUL-terminated, *len bytes; free() it).  _load merges a table into m;
 * it is outside input: malformed lines are skipped, never trusted.
 * Returns 0, -ENOMEM, or for _load -EPROTO when the text is not a table
 * of a version this library reads (*err says why).
 */
int strobe_model_table_write(struct strobe_model *m, char **out, size_t *len,
			     struct strobe_error *err);
int strobe_model_table_load(struct strobe_model *m, const char *text, size_t len,
			    struct strobe_error *err);

#ifdef __cplusplus
}
#endif

#endif
