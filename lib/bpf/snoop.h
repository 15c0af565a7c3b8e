/*
 * snoop.h - the records the snoop BPF programs (snoop.bpf.c) put into
 * their ring buffer, shared by the kernel side and the user side
 * (bpf.c, records.c).
 *
 * Each ring-buffer record is a u64 time (bpf_ktime_get_ns or _boot_ns,
 * as the session's trace clock) and a u32 CPU (SNOOP_PREFIX bytes with
 * padding), followed by the payload strobe hands to
 * the pipeline unchanged but for common_type: the 8-byte common header
 * of a declared format (strobe_formats_declare), then the fields at the
 * offsets below, then the variable part a __data_loc word points to.  So
 * the user side copies, sets the format id and is done: no field is
 * decoded on the way in.  A record without a string (tcp_retransmit)
 * ends with its fixed fields.  The offsets are the format declarations in
 * bpf.c; a static assertion there keeps the two in step.
 */
#ifndef STROBE_BPF_SNOOP_H
#define STROBE_BPF_SNOOP_H

#define SNOOP_KIND_OPEN 1
#define SNOOP_KIND_EXEC 2
#define SNOOP_KIND_SYNC 3
#define SNOOP_KIND_TCP 4

/* Paths: at most this many bytes, NUL included (PATH_MAX). */
#define SNOOP_PATH_MAX 4096
/* execve: at most SNOOP_ARGS_MAX arguments and SNOOP_ARGS_BYTES bytes of
 * them (NULs included); more is cut and the record says so. */
#define SNOOP_ARGS_MAX 128
#define SNOOP_ARGS_BYTES 4096
/* Container filters: at most this many cgroups. */
#define SNOOP_CGROUPS_MAX 8

/* The system calls of an open record's `call` field. */
#define SNOOP_CALL_OPENAT 0
#define SNOOP_CALL_OPENAT2 1
#define SNOOP_CALL_OPEN 2
#define SNOOP_CALL_CREAT 3

struct snoop_common {
	__u16 common_type;	/* the kind (SNOOP_KIND_*); user space puts
				 * the declared format's id here */
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;	/* the thread */
};

/* strobe_bpf:open, one per open-family call that returned */
#define SNOOP_PREFIX 16u

struct snoop_open {
	__u64 ts;
	__u32 cpu;
	__u32 pad;
	struct snoop_common c;
	__s32 tgid;		/* 8 */
	__u32 uid;		/* 12 */
	__s64 ret;		/* 16: fd, or -errno */
	__u64 flags;		/* 24 */
	__u32 mode;		/* 32 */
	__s32 dfd;		/* 36: AT_FDCWD for open/creat */
	__u64 cgroup;		/* 40: cgroup v2 id */
	char comm[16];		/* 48 */
	__u32 call;		/* 64: SNOOP_CALL_* */
	__u32 path_loc;		/* 68: __data_loc char[] path */
	char path[SNOOP_PATH_MAX];	/* 72 */
};
#define SNOOP_OPEN_FIXED 72u	/* payload bytes before the path */

/* strobe_bpf:exec, one per execve/execveat that returned */
struct snoop_exec {
	__u64 ts;
	__u32 cpu;
	__u32 pad;
	struct snoop_common c;
	__s32 tgid;		/* 8 */
	__u32 uid;		/* 12 */
	__s64 ret;		/* 16: 0, or -errno */
	__s32 ppid;		/* 24: the parent's tgid */
	__u32 argc;		/* 28: arguments read */
	__u64 cgroup;		/* 32 */
	char comm[16];		/* 40: after the exec */
	__u32 cut;		/* 56: 1 when arguments were left out */
	__u32 args_loc;		/* 60: __data_loc char[] args: argv[0],
				 * NUL, argv[1], NUL, ... */
	char args[SNOOP_ARGS_BYTES * 2];	/* 64: the second half only
						 * lets the verifier see
						 * every read in bounds */
};
#define SNOOP_EXEC_FIXED 64u

/* The system calls of a sync record's `call` field. */
#define SNOOP_CALL_FSYNC 0
#define SNOOP_CALL_FDATASYNC 1
#define SNOOP_CALL_SYNC 2
#define SNOOP_CALL_SYNCFS 3
#define SNOOP_CALL_MSYNC 4
#define SNOOP_CALL_SYNC_FILE_RANGE 5

/* strobe_bpf:sync, one per sync-family call that returned */
struct snoop_sync {
	__u64 ts;
	__u32 cpu;
	__u32 pad;
	struct snoop_common c;
	__s32 tgid;		/* 8 */
	__u32 uid;		/* 12 */
	__s64 ret;		/* 16: 0, or -errno */
	__u64 lat;		/* 24: ns from entry to exit */
	__u64 cgroup;		/* 32 */
	char comm[16];		/* 40 */
	__u32 call;		/* 56: SNOOP_CALL_FSYNC ... */
	__s32 fd;		/* 60: -1 for sync and msync */
	__u32 cut;		/* 64: 1 when the path lost its start */
	__u32 path_loc;		/* 68: __data_loc char[] path: the file (of
				 * the fd, of msync's mapping), "" unknown */
	char path[SNOOP_PATH_MAX * 2];	/* 72 */
};
#define SNOOP_SYNC_FIXED 72u

/* strobe_bpf:tcp_retransmit, one per tcp:tcp_retransmit_skb */
struct snoop_tcp {
	__u64 ts;
	__u32 cpu;
	__u32 pad;
	struct snoop_common c;
	__s32 tgid;		/* 8: of whatever ran (a timer, softirq: 0) */
	__s32 state;		/* 12: TCP_ESTABLISHED ... */
	__u16 family;		/* 16: AF_INET, AF_INET6 */
	__u16 sport;		/* 18 */
	__u16 dport;		/* 20 */
	__u16 pad2;		/* 22 */
	__u8 saddr[16];		/* 24: IPv4 in the first 4 bytes */
	__u8 daddr[16];		/* 40 */
	__u64 cgroup;		/* 56: the socket's cgroup v2 id (its owner's) */
	__u64 netns;		/* 64: the socket's network namespace inode */
	__s32 err;		/* 72: the retransmission's error, 0 sent */
	__u32 pad3;		/* 76 */
};
#define SNOOP_TCP_FIXED 80u

#endif
