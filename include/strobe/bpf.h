/*
 * bpf.h - a BPF source of records (lib/bpf/): eBPF tracepoint programs
 * that read what ftrace's events cannot (paths, argument vectors: user
 * memory), merged into the pipeline's timeline beside the tracefs
 * events.
 *
 * A strobe_bpf is one loaded and attached set of programs (libbpf, CO-RE
 * against the kernel's BTF, objects compiled at build time and embedded
 * in the library) with one ring buffer.  Its records have formats of
 * their own, declared into a catalogue (strobe_bpf_declare), system
 * "strobe_bpf":
 *
 *   strobe_bpf:open  one per open, openat, openat2 or creat that returned:
 *                    tgid, uid, ret (fd or -errno), flags, mode, dfd,
 *                    cgroup, comm, call (0 openat, 1 openat2, 2 open,
 *                    3 creat), path (up to STROBE_BPF_PATH_MAX bytes)
 *   strobe_bpf:exec  one per execve or execveat that returned: tgid,
 *                    uid, ret (0 or -errno), ppid, argc, cgroup, comm
 *                    (after the exec), cut (1: arguments left out),
 *                    args (argv[0] NUL argv[1] NUL ..., at most
 *                    STROBE_BPF_ARGS_MAX arguments and
 *                    STROBE_BPF_ARGS_BYTES bytes)
 *   strobe_bpf:sync  one per fsync, fdatasync, sync, syncfs, msync or
 *                    sync_file_range that returned: tgid, uid, ret, lat
 *                    (ns from entry to exit), cgroup, comm, call (0 fsync,
 *                    1 fdatasync, 2 sync, 3 syncfs, 4 msync,
 *                    5 sync_file_range), fd (-1 for sync and msync), cut
 *                    (1: the path lost its start), path (the file of the
 *                    descriptor or of msync's mapping from the root of the
 *                    mount tree, "" when there is none or it is unknown)
 *   strobe_bpf:tcp_retransmit  one per tcp:tcp_retransmit_skb: tgid (of
 *                    whatever ran: a timer or softirq, usually 0), state
 *                    (TCP_ESTABLISHED 1 ...), family (2 or 10), sport,
 *                    dport, saddr_hi and saddr_lo, daddr_hi and
 *                    daddr_lo (each address's 16 bytes as the kernel
 *                    keeps them, network order, IPv4 in the first 4, in
 *                    two u64 halves read in host order), cgroup (the socket's: its owner's container),
 *                    netns (the socket's network namespace inode), err
 *
 * so every consumer (reports, filters, analyses, SQL) reads them like
 * any event; common_pid is the thread.  Their times are on the trace
 * clock named in the options ("mono" or "boot"): a session on that clock
 * merges them with its events in order.
 *
 * Every program, map and link is held by file descriptor only (nothing
 * is pinned): strobe_bpf_close removes them, and a process that dies
 * takes them with it.
 *
 * Errors: -errno and a struct strobe_error message.  A library built
 * without BPF support (no libbpf, clang, bpftool or BTF at build time)
 * answers -ENOTSUP from strobe_bpf_open.
 */
#ifndef STROBE_BPF_H
#define STROBE_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_formats;
struct strobe_record_source;
struct strobe_bpf;

/* Programs to load (strobe_bpf_opts.programs). */
#define STROBE_BPF_OPEN 0x1u	/* strobe_bpf:open */
#define STROBE_BPF_EXEC 0x2u	/* strobe_bpf:exec */
#define STROBE_BPF_SYNC 0x4u	/* strobe_bpf:sync */
#define STROBE_BPF_TCP 0x8u	/* strobe_bpf:tcp_retransmit */
#define STROBE_BPF_ALL 0xfu

#define STROBE_BPF_PATH_MAX 4096	/* path bytes kept, NUL included */
#define STROBE_BPF_ARGS_MAX 128		/* execve arguments kept */
#define STROBE_BPF_ARGS_BYTES 4096	/* ... and their bytes, NULs included */
#define STROBE_BPF_CGROUPS_MAX 8	/* cgroups to filter on */

struct strobe_bpf_opts {
	size_t size;		/* sizeof(struct strobe_bpf_opts), or 0 */
	unsigned programs;	/* STROBE_BPF_*; 0: every one */
	/* The trace clock the records' times are on: "mono" (NULL) or
	 * "boot".  -EINVAL for others (their BPF reading does not exist). */
	const char *clock;
	/*
	 * Targets, checked in the kernel (no target: every task but the
	 * calling process).  A task is traced when it is in, or below, the
	 * cgroup v2 of one of the tasks in cgroup_of (a container's, -c;
	 * for tcp_retransmit the socket's cgroup), or, with pids, when its process was added by strobe_bpf_add_pid
	 * or forked (after the add) from one that was.
	 */
	const pid_t *cgroup_of;
	size_t nr_cgroup_of;	/* at most STROBE_BPF_CGROUPS_MAX */
	bool pids;
	/* Only calls that failed (ret < 0), dropped in the kernel. */
	bool failed_only;
	/* The ring buffer's size in KiB (a power of two; 0: 16384). */
	unsigned ring_kb;
	/* Open records: a relative path joined to the directory it is
	 * relative to (the working directory, or the dfd's), walked up to the
	 * task's own root, as bcc's opensnoop -F shows it. */
	bool full_path;
};

/* Was the library built with BPF support? */
bool strobe_bpf_built(void);

/*
 * Load the programs opts asks for, set their filters, attach them.  The
 * records start flowing at once (they wait in the ring buffer until the
 * pipeline reads them).  -ENOTSUP (built without BPF), -EPERM (not
 * allowed to load BPF), -ENOENT (a tracepoint this kernel lacks), -EINVAL
 * (options), -ESRCH (a cgroup_of task is gone); *err says which program
 * or task.  Free with strobe_bpf_close.
 */
int strobe_bpf_open(const struct strobe_bpf_opts *opts, struct strobe_bpf **out,
		    struct strobe_error *err);

/* With opts.pids: trace process pid (and, from now on, its children).
 * 0 or -errno. */
int strobe_bpf_add_pid(struct strobe_bpf *b, pid_t pid, struct strobe_error *err);

/*
 * Declare the formats of b's records into catalogue f (the one of the
 * source they are merged into), once, before strobe_bpf_records' source
 * runs.  b may be NULL: declare every format (for a reader that only
 * needs to recognise them).  0 or -errno (-EEXIST when f holds them).
 */
int strobe_bpf_declare(struct strobe_bpf *b, struct strobe_formats *f,
		       struct strobe_error *err);

/*
 * A record source (pipeline.h) reading b's ring buffer, for
 * strobe_pipeline_add_records or strobe_record_opts.add_records: b is
 * borrowed (close it after the pipeline), records come out in time
 * order (those of the last 2 ms wait for the next poll, so a call still
 * on its way to the ring cannot come out of order), from the time of
 * this call on: what the programs saw before (while a recording was
 * being set up, its task model not yet fed) is dropped.
 */
void strobe_bpf_records(struct strobe_bpf *b, struct strobe_record_source *rs);

/* Records handed out, and those the ring buffer had no room for. */
struct strobe_bpf_stats {
	uint64_t records;
	uint64_t lost;
};
void strobe_bpf_stats(const struct strobe_bpf *b, struct strobe_bpf_stats *st);

/* Detach and unload everything of b, free it.  NULL ok. */
void strobe_bpf_close(struct strobe_bpf *b);

/*
 * The decoding of one ring-buffer record (no kernel needed; what the
 * record source does with each, exposed for tests and fuzzing): check
 * rec[0..len) is a well-formed record of a format declared into f by
 * strobe_bpf_declare, and copy its payload into out[0..cap) with its
 * format's id, setting *ts, *cpu and *size.  1 on success, 0 when the
 * record is not one (a bad kind, length or string: it is skipped), -errno
 * (-ENOENT: f lacks the formats, -ENOSPC: cap too small).
 */
int strobe_bpf_decode(struct strobe_formats *f, const void *rec, size_t len, uint8_t *out,
		      size_t cap, uint64_t *ts, int *cpu, uint32_t *size);

#ifdef __cplusplus
}
#endif

#endif
