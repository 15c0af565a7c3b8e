// SPDX-License-Identifier: GPL-2.0
/*
 * snoop.bpf.c - the kernel side of strobe's snoop tools (opensnoop,
 * execsnoop): tracepoint programs that read what ftrace's system-call
 * events cannot (paths and argument vectors live in user memory) and put
 * one record per call into a ring buffer (snoop.h says the layout).
 *
 * Only tracepoints (syscalls:sys_enter_* and sys_exit_*, sched:sched_
 * process_fork and _exit) and CO-RE field relocations against the
 * kernel's BTF: no kprobes, no fentry, nothing that needs kernel headers.
 *
 * Filtering happens here, so the machine's other work costs one map
 * lookup per call: a task is traced when its cgroup (v2) or an ancestor
 * of it is one of targ_cgroup_ids (-c), or its process is in `pids`
 * (-p, -- CMD; children are added at fork), or when neither filter is
 * set; strobe's own process never is.  failed_only (-x) drops successful
 * calls before they reach the ring.
 *
 * Paths are read at the call's exit, when the kernel has just copied
 * them, so their pages are resident (a read at entry can meet a page not
 * yet faulted in and return nothing).  Arguments of execve are read at
 * entry: after a successful exec the old memory is gone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "snoop.h"

char LICENSE[] SEC("license") = "GPL";

/* set by user space before load */
const volatile __u32 self_tgid = 0;
const volatile bool filter_pids = false;
const volatile __u32 nr_cgroups = 0;
const volatile __u64 targ_cgroup_ids[SNOOP_CGROUPS_MAX] = {};
const volatile __u32 targ_cgroup_levels[SNOOP_CGROUPS_MAX] = {};
const volatile bool failed_only = false;
const volatile bool boot_clock = false;

/* processes (tgids) traced with filter_pids */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} events SEC(".maps");

/* an open call between its entry and its exit, by thread */
struct open_start {
	__u64 path;		/* user pointer */
	__u64 flags;
	__u32 mode;
	__s32 dfd;
	__u32 call;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct open_start);
} opens SEC(".maps");

/* an exec call's record, filled at entry, sent at exit, by thread */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct snoop_exec);
} execs SEC(".maps");

/* per-CPU room to build an open record (too big for the stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct snoop_open);
} open_scratch SEC(".maps");

static const struct snoop_exec empty_exec = {};

/* records the ring buffer had no room for, per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}


static __always_inline __u64 now(void)
{
	return boot_clock ? bpf_ktime_get_boot_ns() : bpf_ktime_get_ns();
}

static __always_inline bool traced(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 i;

	if (tgid == self_tgid)
		return false;
	if (filter_pids && bpf_map_lookup_elem(&pids, &tgid))
		return true;
	for (i = 0; i < SNOOP_CGROUPS_MAX; i++) {
		if (i >= nr_cgroups)
			break;
		if (bpf_get_current_ancestor_cgroup_id(targ_cgroup_levels[i]) ==
		    targ_cgroup_ids[i])
			return true;
	}
	return !filter_pids && !nr_cgroups;
}

static __always_inline int open_enter(__u64 path, __u64 flags, __u32 mode, __s32 dfd,
				      __u32 call)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct open_start st = {
		.path = path, .flags = flags, .mode = mode, .dfd = dfd, .call = call,
	};

	if (!traced())
		return 0;
	bpf_map_update_elem(&opens, &tid, &st, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_openat")
int open_at(struct trace_event_raw_sys_enter *ctx)
{
	return open_enter(ctx->args[1], ctx->args[2], (__u32)ctx->args[3], (__s32)ctx->args[0],
			  SNOOP_CALL_OPENAT);
}

SEC("tracepoint/syscalls/sys_enter_openat2")
int open_at2(struct trace_event_raw_sys_enter *ctx)
{
	struct open_how how = {};

	bpf_probe_read_user(&how, sizeof(how), (void *)ctx->args[2]);
	return open_enter(ctx->args[1], how.flags, (__u32)how.mode, (__s32)ctx->args[0],
			  SNOOP_CALL_OPENAT2);
}

SEC("tracepoint/syscalls/sys_enter_open")
int open_plain(struct trace_event_raw_sys_enter *ctx)
{
	return open_enter(ctx->args[0], ctx->args[1], (__u32)ctx->args[2], -100,
			  SNOOP_CALL_OPEN);
}

SEC("tracepoint/syscalls/sys_enter_creat")
int open_creat(struct trace_event_raw_sys_enter *ctx)
{
	/* creat(p, m) is open(p, O_CREAT|O_WRONLY|O_TRUNC, m) */
	return open_enter(ctx->args[0], 01 | 0100 | 01000, (__u32)ctx->args[1], -100,
			  SNOOP_CALL_CREAT);
}

static __always_inline int open_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, zero = 0;
	struct open_start *st;
	struct snoop_open *r;
	long n;

	st = bpf_map_lookup_elem(&opens, &tid);
	if (!st)
		return 0;
	if (failed_only && ret >= 0)
		goto out;
	r = bpf_map_lookup_elem(&open_scratch, &zero);
	if (!r)
		goto out;
	r->ts = now();
	r->cpu = bpf_get_smp_processor_id();
	r->c.common_type = SNOOP_KIND_OPEN;
	r->c.common_flags = 0;
	r->c.common_preempt_count = 0;
	r->c.common_pid = (__s32)tid;
	r->tgid = (__s32)(id >> 32);
	r->uid = (__u32)bpf_get_current_uid_gid();
	r->ret = ret;
	r->flags = st->flags;
	r->mode = st->mode;
	r->dfd = st->dfd;
	r->call = st->call;
	r->cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	n = bpf_probe_read_user_str(r->path, sizeof(r->path), (void *)st->path);
	if (n < 0) {
		r->path[0] = '\0';
		n = 1;
	}
	n &= SNOOP_PATH_MAX * 2 - 1;
	if (n > SNOOP_PATH_MAX)
		n = SNOOP_PATH_MAX;
	r->path_loc = ((__u32)n << 16) | SNOOP_OPEN_FIXED;
	if (bpf_ringbuf_output(&events, r, SNOOP_PREFIX + SNOOP_OPEN_FIXED + n, 0))
		count_lost();
out:
	bpf_map_delete_elem(&opens, &tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int open_at_exit(struct trace_event_raw_sys_exit *ctx)
{
	return open_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int open_at2_exit(struct trace_event_raw_sys_exit *ctx)
{
	return open_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_open")
int open_plain_exit(struct trace_event_raw_sys_exit *ctx)
{
	return open_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_creat")
int open_creat_exit(struct trace_event_raw_sys_exit *ctx)
{
	return open_exit(ctx->ret);
}

static __always_inline int exec_enter(const char *const *argv)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, off = 0, i;
	struct task_struct *task;
	struct snoop_exec *r;
	const char *arg;
	long n;

	if (!traced())
		return 0;
	if (bpf_map_update_elem(&execs, &tid, &empty_exec, BPF_ANY))
		return 0;
	r = bpf_map_lookup_elem(&execs, &tid);
	if (!r)
		return 0;
	r->c.common_type = SNOOP_KIND_EXEC;
	r->c.common_pid = (__s32)tid;
	r->tgid = (__s32)(id >> 32);
	r->uid = (__u32)bpf_get_current_uid_gid();
	task = (struct task_struct *)bpf_get_current_task();
	r->ppid = BPF_CORE_READ(task, real_parent, tgid);
	for (i = 0; i < SNOOP_ARGS_MAX; i++) {
		if (bpf_probe_read_user(&arg, sizeof(arg), &argv[i]) || !arg)
			goto done;
		if (off >= SNOOP_ARGS_BYTES) {
			r->cut = 1;
			goto done;
		}
		n = bpf_probe_read_user_str(&r->args[off & (SNOOP_ARGS_BYTES - 1)],
					    SNOOP_ARGS_BYTES, arg);
		if (n <= 0)
			goto done;
		if (off + n > SNOOP_ARGS_BYTES) {
			/* this argument ran past the limit: keep what fits */
			r->cut = 1;
			off = SNOOP_ARGS_BYTES;
			r->args[SNOOP_ARGS_BYTES - 1] = '\0';
			r->argc = i + 1;
			goto done;
		}
		off += n;
		r->argc = i + 1;
	}
	/* SNOOP_ARGS_MAX read: is there one more? */
	if (!bpf_probe_read_user(&arg, sizeof(arg), &argv[SNOOP_ARGS_MAX]) && arg)
		r->cut = 1;
done:
	r->args_loc = ((off & (SNOOP_ARGS_BYTES * 2 - 1)) << 16) | SNOOP_EXEC_FIXED;
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_execve")
int exec_ve(struct trace_event_raw_sys_enter *ctx)
{
	return exec_enter((const char *const *)ctx->args[1]);
}

SEC("tracepoint/syscalls/sys_enter_execveat")
int exec_veat(struct trace_event_raw_sys_enter *ctx)
{
	return exec_enter((const char *const *)ctx->args[2]);
}

static __always_inline int exec_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, len;
	struct snoop_exec *r;

	r = bpf_map_lookup_elem(&execs, &tid);
	if (!r)
		return 0;
	if (failed_only && ret >= 0)
		goto out;
	r->ts = now();
	r->cpu = bpf_get_smp_processor_id();
	r->ret = ret;
	r->cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	len = (r->args_loc >> 16) & (SNOOP_ARGS_BYTES * 2 - 1);
	if (len > SNOOP_ARGS_BYTES)
		len = SNOOP_ARGS_BYTES;
	if (bpf_ringbuf_output(&events, r, SNOOP_PREFIX + SNOOP_EXEC_FIXED + len, 0))
		count_lost();
out:
	bpf_map_delete_elem(&execs, &tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_execve")
int exec_ve_exit(struct trace_event_raw_sys_exit *ctx)
{
	return exec_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_execveat")
int exec_veat_exit(struct trace_event_raw_sys_exit *ctx)
{
	return exec_exit(ctx->ret);
}

/* -p, -- CMD: a traced process's children are traced */
SEC("tracepoint/sched/sched_process_fork")
int fork_follow(struct trace_event_raw_sched_process_fork *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, child;
	__u8 one = 1;

	if (!filter_pids || !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	child = (__u32)ctx->child_pid;
	bpf_map_update_elem(&pids, &child, &one, BPF_ANY);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int exit_forget(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	/* the process's entry goes with its leader; a thread's own entry
	 * (fork_follow cannot tell a thread from a process) with it */
	if (filter_pids)
		bpf_map_delete_elem(&pids, &tid);
	return 0;
}
