// SPDX-License-Identifier: GPL-2.0
/*
 * snoop.bpf.c - the kernel side of strobe's snoop tools (opensnoop,
 * execsnoop, syncsnoop, tcpretrans): tracepoint programs that read what
 * ftrace's events cannot (paths and argument vectors live in user memory,
 * the file behind a descriptor and the cgroup owning a socket in kernel
 * structures) and put one record per call into a ring buffer (snoop.h
 * says the layout).
 *
 * Only tracepoints (syscalls:sys_enter_* and sys_exit_*, sched:sched_
 * process_fork and _exit, tcp:tcp_retransmit_skb) and CO-RE field
 * relocations against the kernel's BTF: no kprobes, no fentry, nothing
 * that needs kernel headers.
 *
 * Filtering happens here, so the machine's other work costs one map
 * lookup per call: a task is traced when its cgroup (v2) or an ancestor
 * of it is one of targ_cgroup_ids (-c), or its process is in `pids`
 * (-p, -- CMD; children are added at fork), or when neither filter is
 * set; strobe's own process never is.  failed_only (-x) drops successful
 * calls before they reach the ring.
 *
 * Records are submitted without a wake-up (BPF_RB_NO_WAKEUP): user space
 * polls the ring on its own schedule (bpf.c), and a wake-up per record
 * (an irq_work each) was a good part of what a traced call cost.
 *
 * Paths are read at the call's exit, when the kernel has just copied
 * them, so their pages are resident (a read at entry can meet a page not
 * yet faulted in and return nothing).  Arguments of execve are read at
 * entry: after a successful exec the old memory is gone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "snoop.h"

char LICENSE[] SEC("license") = "GPL";

/* set by user space before load */
const volatile __u32 self_tgid = 0;
const volatile bool filter_pids = false;
const volatile __u32 nr_cgroups = 0;
const volatile __u64 targ_cgroup_ids[SNOOP_CGROUPS_MAX] = {};
const volatile __u32 targ_cgroup_levels[SNOOP_CGROUPS_MAX] = {};
const volatile bool failed_only = false;
/* opensnoop -F: a relative path joined to the directory it is relative
 * to (the working directory, or dfd's), up to the task's own root */
const volatile bool full_path = false;
const volatile bool boot_clock = false;
/* a sync record's path: the file's mount and dentry walked up to the
 * root, at most this many components */
#define SYNC_PATH_DEPTH 40

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

/* The current task's comm into dst (16 bytes): two loads through the
 * task's BTF pointer.  bpf_get_current_comm copies it with strscpy_pad,
 * which cost about 100 ns a call here (bpf_stats), an eighth of the
 * openat program.  A rename racing with the copy may mix two names, as
 * it may for the helper; the kernel keeps the name NUL-terminated. */
static __always_inline void current_comm(char *dst)
{
	const __u64 *src = (const __u64 *)bpf_get_current_task_btf()->comm;
	__u64 *d = (__u64 *)dst;

	d[0] = src[0];
	d[1] = src[1];
	dst[15] = '\0';
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

static __always_inline __u32 full_open_path(struct snoop_open *r, __u32 n, __s32 dfd);

/* Send the record of an open call that returned ret. */
static __always_inline void open_send(const struct open_start *st, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, zero = 0;
	struct snoop_open *r;
	long n;

	r = bpf_map_lookup_elem(&open_scratch, &zero);
	if (!r)
		return;
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
	current_comm(r->comm);
	n = bpf_probe_read_user_str(r->path, sizeof(r->path), (void *)st->path);
	if (n < 0) {
		r->path[0] = '\0';
		n = 1;
	}
	if (full_path)
		n = full_open_path(r, (__u32)n, st->dfd);
	n &= SNOOP_PATH_MAX * 2 - 1;
	if (n > SNOOP_PATH_MAX)
		n = SNOOP_PATH_MAX;
	r->path_loc = ((__u32)n << 16) | SNOOP_OPEN_FIXED;
	if (bpf_ringbuf_output(&events, r, SNOOP_PREFIX + SNOOP_OPEN_FIXED + n, BPF_RB_NO_WAKEUP))
		count_lost();
}

static __always_inline int open_exit(long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct open_start *st;

	st = bpf_map_lookup_elem(&opens, &tid);
	if (!st)
		return 0;
	if (!failed_only || ret < 0)
		open_send(st, ret);
	bpf_map_delete_elem(&opens, &tid);
	return 0;
}

/*
 * openat, the call that matters (glibc's open() is openat), needs no
 * entry program: at its exit the caller's registers still hold the
 * arguments (the syscall ABI's, by bpf_tracing.h's macros: plain loads
 * through bpf_task_pt_regs' BTF pointer, not four bpf_probe_read_kernel
 * calls, 4% of the storm's time; on arm64 the first is a CO-RE read of
 * orig_x0), so a traced call costs one program and no map update and
 * delete, which were most of its cost.
 */
SEC("tracepoint/syscalls/sys_exit_openat")
int open_at_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct task_struct *task;
	struct pt_regs *regs;
	struct open_start st = { .call = SNOOP_CALL_OPENAT };
	long ret = ctx->ret;

	if ((failed_only && ret >= 0) || !traced())
		return 0;
	task = bpf_get_current_task_btf();
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	st.dfd = (__s32)PT_REGS_PARM1_SYSCALL(regs);
	st.path = (__u64)PT_REGS_PARM2_SYSCALL(regs);
	st.flags = (__u64)PT_REGS_PARM3_SYSCALL(regs);
	st.mode = (__u32)PT_REGS_PARM4_SYSCALL(regs);
	open_send(&st, ret);
	return 0;
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
	current_comm(r->comm);
	len = (r->args_loc >> 16) & (SNOOP_ARGS_BYTES * 2 - 1);
	if (len > SNOOP_ARGS_BYTES)
		len = SNOOP_ARGS_BYTES;
	if (bpf_ringbuf_output(&events, r, SNOOP_PREFIX + SNOOP_EXEC_FIXED + len, BPF_RB_NO_WAKEUP))
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


/* ---- syncsnoop -------------------------------------------------------------- */

/* a sync call between its entry and its exit, by thread */
struct sync_start {
	__u64 ts;
	__u64 addr;		/* msync's */
	__s32 fd;
	__u32 call;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct sync_start);
} syncs SEC(".maps");

/* per-CPU room to build a sync record, and its path right to left */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct snoop_sync);
} sync_scratch SEC(".maps");
struct path_buf {
	char b[SNOOP_PATH_MAX * 2];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct path_buf);
} path_scratch SEC(".maps");

#define container_of_core(ptr, type, member) \
	((type *)((void *)(ptr) - bpf_core_field_offset(type, member)))

/* the walk of file_path, one step per bpf_loop call (a loop the
 * verifier checks once, not once per path through it) */
struct walk {
	struct dentry *d;
	struct vfsmount *vm;
	struct mount *mnt;
	__u32 pos;		/* the path starts at b[pos] */
	__u32 cut;
	/* stop here too (the task's root, for opensnoop -F); NULL: at the
	 * top of the mount tree */
	struct dentry *root_d;
	struct vfsmount *root_vm;
};

static long walk_step(__u64 i, void *data)
{
	struct walk *w = data;
	struct dentry *d = w->d, *parent, *root;
	struct vfsmount *vm = w->vm;
	struct mount *mnt = w->mnt, *mp;
	struct path_buf *pb;
	const unsigned char *name;
	__u32 zero = 0, len, pos = w->pos;

	pb = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!pb)
		return 1;
	if (w->root_d && d == w->root_d && vm == w->root_vm)
		return 1;	/* the task's own root */
	root = BPF_CORE_READ(vm, mnt_root);
	parent = BPF_CORE_READ(d, d_parent);
	if (d == root || d == parent) {
		mp = BPF_CORE_READ(mnt, mnt_parent);
		if (!mp || mp == mnt)
			return 1;	/* the top */
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = mp;
		w->vm = (struct vfsmount *)((void *)mp + bpf_core_field_offset(struct mount, mnt));
		return 0;
	}
	len = BPF_CORE_READ(d, d_name.len);
	name = BPF_CORE_READ(d, d_name.name);
	if (len > 255 || len + 2 > pos || pos >= SNOOP_PATH_MAX) {
		w->cut = 1;
		return 1;
	}
	pos -= len;
	bpf_probe_read_kernel(&pb->b[pos & (SNOOP_PATH_MAX - 1)], len & 255, name);
	pos--;
	pb->b[pos & (SNOOP_PATH_MAX - 1)] = '/';
	w->pos = pos;
	w->d = parent;
	return 0;
}

/*
 * The path of file f from the root of the mount tree strobe's walk can
 * reach (the host's, for a container's file: d_path without its
 * locks), into r->path; sets r->cut; returns the string's bytes, NUL
 * included.  A file on a mount outside the tree (pipes, sockets) gets
 * its names up to that mount's root.
 */
static __always_inline __u32 file_path(struct file *f, struct snoop_sync *r)
{
	struct path_buf *pb;
	struct walk w = { .pos = SNOOP_PATH_MAX - 1 };
	__u32 zero = 0, pos, n;
	long steps;

	r->cut = 0;
	pb = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!pb || !f)
		goto none;
	w.d = BPF_CORE_READ(f, f_path.dentry);
	w.vm = BPF_CORE_READ(f, f_path.mnt);
	if (!w.d || !w.vm)
		goto none;
	w.mnt = container_of_core(w.vm, struct mount, mnt);
	pb->b[SNOOP_PATH_MAX - 1] = '\0';
	steps = bpf_loop(SYNC_PATH_DEPTH, walk_step, &w, 0);
	if (steps >= SYNC_PATH_DEPTH)
		w.cut = 1;
	r->cut = w.cut;
	pos = w.pos;
	if (pos >= SNOOP_PATH_MAX)
		goto none;
	if (pos == SNOOP_PATH_MAX - 1) {
		pos--;
		pb->b[pos] = '/';
	}
	n = SNOOP_PATH_MAX - pos;
	bpf_probe_read_kernel(r->path, n & (SNOOP_PATH_MAX * 2 - 1),
			      &pb->b[pos & (SNOOP_PATH_MAX - 1)]);
	return n;
none:
	r->path[0] = '\0';
	return 1;
}

/* The file behind descriptor fd of the current process, or NULL. */
static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt;
	struct file **fds;
	struct file *f = NULL;

	if (fd < 0)
		return NULL;
	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || (__u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/*
 * opensnoop -F: r->path (n bytes, NUL included) made absolute when it is
 * relative: the directory it is relative to (the working directory for
 * AT_FDCWD, else dfd's file) walked up to the task's own root (a
 * container's path inside the container) and joined to it, as bcc's
 * opensnoop -F shows it.  Returns the new length; the path unchanged
 * when the walk is cut or the result would not fit.
 */
static __always_inline __u32 full_open_path(struct snoop_open *r, __u32 n, __s32 dfd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct walk w = {};
	struct path_buf *pb;
	struct file *f;
	__u32 zero = 0, pos, m;
	long steps;

	if (n <= 1 || n > SNOOP_PATH_MAX - 2 || r->path[0] == '/')
		return n;
	pb = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!pb)
		return n;
	if (dfd == -100) {	/* AT_FDCWD */
		w.d = BPF_CORE_READ(task, fs, pwd.dentry);
		w.vm = BPF_CORE_READ(task, fs, pwd.mnt);
	} else if (dfd >= 0) {
		f = fd_file(dfd);
		if (!f)
			return n;
		w.d = BPF_CORE_READ(f, f_path.dentry);
		w.vm = BPF_CORE_READ(f, f_path.mnt);
	}
	if (!w.d || !w.vm)
		return n;
	w.root_d = BPF_CORE_READ(task, fs, root.dentry);
	w.root_vm = BPF_CORE_READ(task, fs, root.mnt);
	w.mnt = container_of_core(w.vm, struct mount, mnt);
	/* the relative path at the end of the buffer, a '/' before it */
	pos = SNOOP_PATH_MAX - n;
	barrier_var(pos);	/* keep the masks: the verifier needs them */
	bpf_probe_read_kernel(&pb->b[pos & (SNOOP_PATH_MAX - 1)], n & (SNOOP_PATH_MAX - 1), r->path);
	pos--;
	barrier_var(pos);
	pb->b[pos & (SNOOP_PATH_MAX - 1)] = '/';
	w.pos = pos;
	steps = bpf_loop(SYNC_PATH_DEPTH, walk_step, &w, 0);
	if (w.cut || steps >= SYNC_PATH_DEPTH)
		return n;
	pos = w.pos;
	if (pos < 1 || pos >= SNOOP_PATH_MAX)
		return n;
	m = SNOOP_PATH_MAX - pos;
	barrier_var(m);
	bpf_probe_read_kernel(r->path, m & (SNOOP_PATH_MAX - 1), &pb->b[pos & (SNOOP_PATH_MAX - 1)]);
	return m;
}

/* msync's mapping: the file of the vma holding addr */
struct vma_file {
	struct file *f;
};
static long vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_file *vf = data;

	vf->f = BPF_CORE_READ(vma, vm_file);
	return 0;
}

static __always_inline int sync_enter(__s32 fd, __u32 call, __u64 addr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct sync_start st = { .ts = now(), .addr = addr, .fd = fd, .call = call };

	if (!traced())
		return 0;
	bpf_map_update_elem(&syncs, &tid, &st, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_fsync")
int sync_fsync(struct trace_event_raw_sys_enter *ctx)
{
	return sync_enter((__s32)ctx->args[0], SNOOP_CALL_FSYNC, 0);
}

SEC("tracepoint/syscalls/sys_enter_fdatasync")
int sync_fdatasync(struct trace_event_raw_sys_enter *ctx)
{
	return sync_enter((__s32)ctx->args[0], SNOOP_CALL_FDATASYNC, 0);
}

SEC("tracepoint/syscalls/sys_enter_sync")
int sync_sync(struct trace_event_raw_sys_enter *ctx)
{
	return sync_enter(-1, SNOOP_CALL_SYNC, 0);
}

SEC("tracepoint/syscalls/sys_enter_syncfs")
int sync_syncfs(struct trace_event_raw_sys_enter *ctx)
{
	return sync_enter((__s32)ctx->args[0], SNOOP_CALL_SYNCFS, 0);
}

SEC("tracepoint/syscalls/sys_enter_msync")
int sync_msync(struct trace_event_raw_sys_enter *ctx)
{
	return sync_enter(-1, SNOOP_CALL_MSYNC, ctx->args[0]);
}

SEC("tracepoint/syscalls/sys_enter_sync_file_range")
int sync_range(struct trace_event_raw_sys_enter *ctx)
{
	return sync_enter((__s32)ctx->args[0], SNOOP_CALL_SYNC_FILE_RANGE, 0);
}

static __always_inline int sync_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, zero = 0, n;
	struct sync_start *st;
	struct snoop_sync *r;
	struct file *f = NULL;

	st = bpf_map_lookup_elem(&syncs, &tid);
	if (!st)
		return 0;
	if (failed_only && ret >= 0)
		goto out;
	r = bpf_map_lookup_elem(&sync_scratch, &zero);
	if (!r)
		goto out;
	r->ts = now();
	r->cpu = bpf_get_smp_processor_id();
	r->c.common_type = SNOOP_KIND_SYNC;
	r->c.common_flags = 0;
	r->c.common_preempt_count = 0;
	r->c.common_pid = (__s32)tid;
	r->tgid = (__s32)(id >> 32);
	r->uid = (__u32)bpf_get_current_uid_gid();
	r->ret = ret;
	r->lat = r->ts - st->ts;
	r->cgroup = bpf_get_current_cgroup_id();
	current_comm(r->comm);
	r->call = st->call;
	r->fd = st->fd;
	r->cut = 0;
	if (st->call == SNOOP_CALL_MSYNC) {
		struct vma_file vf = { NULL };

		bpf_find_vma((struct task_struct *)bpf_get_current_task_btf(), st->addr, vma_cb,
			     &vf, 0);
		f = vf.f;
	} else if (st->call != SNOOP_CALL_SYNC) {
		f = fd_file(st->fd);
	}
	n = file_path(f, r);
	r->path_loc = (n << 16) | SNOOP_SYNC_FIXED;
	if (bpf_ringbuf_output(&events, r, SNOOP_PREFIX + SNOOP_SYNC_FIXED +
			       (n & (SNOOP_PATH_MAX * 2 - 1)), BPF_RB_NO_WAKEUP))
		count_lost();
out:
	bpf_map_delete_elem(&syncs, &tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_fsync")
int sync_fsync_exit(struct trace_event_raw_sys_exit *ctx)
{
	return sync_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_fdatasync")
int sync_fdatasync_exit(struct trace_event_raw_sys_exit *ctx)
{
	return sync_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_sync")
int sync_sync_exit(struct trace_event_raw_sys_exit *ctx)
{
	return sync_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_syncfs")
int sync_syncfs_exit(struct trace_event_raw_sys_exit *ctx)
{
	return sync_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_msync")
int sync_msync_exit(struct trace_event_raw_sys_exit *ctx)
{
	return sync_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_sync_file_range")
int sync_range_exit(struct trace_event_raw_sys_exit *ctx)
{
	return sync_exit(ctx->ret);
}

/* ---- tcpretrans ----------------------------------------------------------------- */

/*
 * A retransmission runs in a timer or softirq, not in its socket owner's
 * context: the container is the socket's cgroup (sk_cgrp_data, the
 * cgroup of the task that made it), and -c filters on it.
 */
SEC("tracepoint/tcp/tcp_retransmit_skb")
int tcp_retrans(struct trace_event_raw_tcp_retransmit_skb *ctx)
{
	const struct sock *sk = ctx->skaddr;
	struct snoop_tcp r = {};
	struct cgroup *cg = NULL;
	__u32 i;
	bool want = !nr_cgroups;

	if (sk)
		cg = BPF_CORE_READ(sk, sk_cgrp_data.cgroup);
	if (cg)
		r.cgroup = BPF_CORE_READ(cg, kn, id);
	for (i = 0; i < SNOOP_CGROUPS_MAX && cg; i++) {
		struct cgroup *anc;
		__u32 lvl;

		if (i >= nr_cgroups)
			break;
		lvl = targ_cgroup_levels[i];
		if ((__u32)BPF_CORE_READ(cg, level) < lvl)
			continue;
		anc = NULL;
		bpf_probe_read_kernel(&anc, sizeof(anc), &cg->ancestors[lvl & 255]);
		if (anc && BPF_CORE_READ(anc, kn, id) == targ_cgroup_ids[i]) {
			want = true;
			break;
		}
	}
	if (!want)
		return 0;
	r.ts = now();
	r.cpu = bpf_get_smp_processor_id();
	r.c.common_type = SNOOP_KIND_TCP;
	r.c.common_pid = (__s32)(__u32)bpf_get_current_pid_tgid();
	r.tgid = (__s32)(bpf_get_current_pid_tgid() >> 32);
	r.state = ctx->state;
	r.family = ctx->family;
	r.sport = ctx->sport;
	r.dport = ctx->dport;
	/* the context allows loads at fixed offsets only: its arrays are
	 * copied by a helper */
	if (ctx->family == 10) {
		bpf_probe_read_kernel(r.saddr, 16, ctx->saddr_v6);
		bpf_probe_read_kernel(r.daddr, 16, ctx->daddr_v6);
	} else {
		bpf_probe_read_kernel(r.saddr, 4, ctx->saddr);
		bpf_probe_read_kernel(r.daddr, 4, ctx->daddr);
	}
	if (sk)
		r.netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	if (bpf_core_field_exists(ctx->err))
		r.err = ctx->err;
	if (bpf_ringbuf_output(&events, &r, SNOOP_PREFIX + SNOOP_TCP_FIXED, BPF_RB_NO_WAKEUP))
		count_lost();
	return 0;
}
