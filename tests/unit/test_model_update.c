/*
 * test_model_update.c - the task model over synthetic events: fork, exec,
 * exit, rename and cgroup attach sequences, threads versus processes, PID
 * reuse, the "appeared during the recording" records, container lookup,
 * and the stored table's round trip and robustness.
 *
 * Events are built byte by byte on the formats of Linux 6.18 (as in
 * /sys/kernel/tracing/events/.../format), parsed by libtraceevent.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>

#include "format/format-int.h"
#include "formats.h"
#include "test.h"

#define COMMON "format:\n" FMT_COMMON

enum { ID_NEWTASK = 10, ID_FORK, ID_EXEC, ID_EXIT, ID_RENAME, ID_ATTACH, ID_SWITCH,
       ID_OTHER };

static const struct {
	const char *system, *text;
} formats[] = {
	{ "task", "name: task_newtask\nID: 10\n" COMMON
	  "\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	  "\tfield:u64 clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:short oom_score_adj;\toffset:40;\tsize:2;\tsigned:1;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
	{ "sched", "name: sched_process_fork\nID: 11\n" COMMON
	  "\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"pid=%d child_pid=%d\", REC->parent_pid, REC->child_pid\n" },
	{ "sched", "name: sched_process_exec\nID: 12\n" COMMON
	  "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
	{ "sched", "name: sched_process_exit\nID: 13\n" COMMON
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:bool group_dead;\toffset:32;\tsize:1;\tsigned:0;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
	{ "task", "name: task_rename\nID: 14\n" COMMON
	  "\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:char oldcomm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	  "\tfield:char newcomm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	  "\tfield:short oom_score_adj;\toffset:44;\tsize:2;\tsigned:1;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
	{ "cgroup", "name: cgroup_attach_task\nID: 15\n" COMMON
	  "\tfield:int dst_root;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int dst_level;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:u64 dst_id;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] dst_path;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc char[] comm;\toffset:32;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
	{ "sched", "name: sched_switch\nID: 16\n" COMMON FMT_SWITCH_FIELDS
	  "print fmt: \"prev_pid=%d\", REC->prev_pid\n" },
	{ "syscalls", "name: sys_enter_getppid\nID: 17\n" COMMON
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"\"\n" },
};

static const uint32_t fixed_size[] = {
	[ID_NEWTASK] = 48, [ID_FORK] = 24, [ID_EXEC] = 20, [ID_EXIT] = 36,
	[ID_RENAME] = 48, [ID_ATTACH] = 36, [ID_SWITCH] = 64, [ID_OTHER] = 12,
};

static struct tep_handle *tep;
static struct strobe_formats *fmts;

#define ID64A "f307780c078fc996856e2eb488c7e31491df6908a83915cdf55ba9a46158d944"
#define ID64B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* One event under construction. */
struct evb {
	struct strobe_event ev;
	uint8_t buf[512];
	uint32_t size;
};

static int setup(void);

static void ev_start(struct evb *b, int id, int pid, uint64_t ts)
{
	if (!tep)
		setup();
	memset(b, 0, sizeof(*b));
	b->size = fixed_size[id];
	b->buf[0] = (uint8_t)id;
	memcpy(b->buf + 4, &pid, 4);
	b->ev.ts = ts;
	b->ev.type = id;
	b->ev.pid = pid;
	b->ev.data = b->buf;
	b->ev.format = strobe_formats_by_id(fmts, id);
}

static void ev_i32(struct evb *b, unsigned off, int v)
{
	memcpy(b->buf + off, &v, 4);
}

static void ev_u64(struct evb *b, unsigned off, uint64_t v)
{
	memcpy(b->buf + off, &v, 8);
}

static void ev_comm(struct evb *b, unsigned off, const char *s)
{
	strncpy((char *)b->buf + off, s, 16);
}

/* A __data_loc string at the end of the payload. */
static void ev_loc(struct evb *b, unsigned off, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1, loc = (len << 16) | b->size;

	memcpy(b->buf + b->size, s, len);
	b->size += len;
	memcpy(b->buf + off, &loc, 4);
}

static void feed(struct strobe_model *m, struct evb *b)
{
	b->ev.size = b->size;
	strobe_model_update(m, &b->ev);
}

static void newtask(struct strobe_model *m, uint64_t ts, int parent, int child,
		    const char *comm, uint64_t flags)
{
	struct evb b;

	ev_start(&b, ID_NEWTASK, parent, ts);
	ev_i32(&b, 8, child);
	ev_comm(&b, 12, comm);
	ev_u64(&b, 32, flags);
	feed(m, &b);
}

static void fork_ev(struct strobe_model *m, uint64_t ts, int parent, int child,
		    const char *comm)
{
	struct evb b;

	ev_start(&b, ID_FORK, parent, ts);
	ev_loc(&b, 8, comm);
	ev_i32(&b, 12, parent);
	ev_loc(&b, 16, comm);
	ev_i32(&b, 20, child);
	feed(m, &b);
}

static void exec_ev(struct strobe_model *m, uint64_t ts, int pid, int old,
		    const char *file)
{
	struct evb b;

	ev_start(&b, ID_EXEC, pid, ts);
	ev_loc(&b, 8, file);
	ev_i32(&b, 12, pid);
	ev_i32(&b, 16, old);
	feed(m, &b);
}

static void exit_ev(struct strobe_model *m, uint64_t ts, int pid, const char *comm)
{
	struct evb b;

	ev_start(&b, ID_EXIT, pid, ts);
	ev_comm(&b, 8, comm);
	ev_i32(&b, 24, pid);
	feed(m, &b);
}

static void rename_ev(struct strobe_model *m, uint64_t ts, int pid, const char *comm)
{
	struct evb b;

	ev_start(&b, ID_RENAME, pid, ts);
	ev_i32(&b, 8, pid);
	ev_comm(&b, 28, comm);
	feed(m, &b);
}

static void attach_ev(struct strobe_model *m, uint64_t ts, int pid, int root,
		      const char *path)
{
	struct evb b;

	ev_start(&b, ID_ATTACH, pid, ts);
	ev_i32(&b, 8, root);
	ev_i32(&b, 24, pid);
	ev_loc(&b, 28, path);
	ev_loc(&b, 32, "runc");
	feed(m, &b);
}

static void switch_ev(struct strobe_model *m, uint64_t ts, int prev, const char *pc,
		      int next, const char *nc)
{
	struct evb b;

	ev_start(&b, ID_SWITCH, prev, ts);
	ev_comm(&b, 8, pc);
	ev_i32(&b, 24, prev);
	ev_comm(&b, 40, nc);
	ev_i32(&b, 56, next);
	feed(m, &b);
}

static void other_ev(struct strobe_model *m, uint64_t ts, int pid)
{
	struct evb b;

	ev_start(&b, ID_OTHER, pid, ts);
	feed(m, &b);
}

/* A model holding a host shell (tid 100, host PID namespace) and a task
 * of container alpha (tid 500, PID 1 inside), from a stored table. */
static const char base_table[] =
	"strobe-model 1\n"
	"C\t2\tpodman\t" ID64A "\talpha\t\n"
	"T\t100\t100\t1\tbash\t1\t100\t100\t4026531836\t4026531832\t4026531835\t5\t/user.slice\n"
	"T\t500\t500\t90\tsh\t2\t500,1\t500,1\t4026532000\t4026532001\t0\t9\t"
	"/libpod_parent/libpod-" ID64A "\n";

static struct strobe_model *base_model(void)
{
	struct strobe_model *m = NULL;

	if (strobe_model_new(&m, NULL) < 0)
		return NULL;
	if (strobe_model_table_load(m, base_table, sizeof(base_table) - 1, NULL) < 0) {
		strobe_model_free(m);
		return NULL;
	}
	return m;
}

#define S 1000000000ull

static void test_model_fork_exec_exit_process(void)
{
	struct strobe_model *m = base_model();
	const struct strobe_task *t;
	struct strobe_task_info ti;

	REQUIRE(m);
	newtask(m, 1 * S, 100, 101, "bash", 0x1200011);
	fork_ev(m, 1 * S + 5, 100, 101, "bash");
	t = strobe_model_task(m, 101);
	REQUIRE(t);
	CHECK_EQ(t->tgid, 101);
	CHECK_EQ(t->ppid, 100);
	CHECK_EQ(t->nstid, 101);	/* host namespace: same number */
	CHECK_EQ(t->container->index, STROBE_CONTAINER_HOST);
	CHECK_STR(t->comm, "bash");
	CHECK_EQ(t->pidns, 4026531836ull);
	exec_ev(m, 2 * S, 101, 101, "/usr/bin/getppid_n");
	CHECK_STR(strobe_model_task(m, 101)->comm, "getppid_n");
	exit_ev(m, 3 * S, 101, "getppid_n");
	REQUIRE(strobe_model_task_info(m, 101, &ti) == 0);
	CHECK(ti.exited);
	CHECK_STR(ti.cgroup_path, "/user.slice");
	/* its last sched_switch, within the grace period: still known */
	switch_ev(m, 3 * S + 10, 101, "getppid_n", 0, "swapper/0");
	CHECK_STR(strobe_model_task(m, 101)->comm, "getppid_n");
	/* long after: dropped, a later sighting is a new unknown task */
	other_ev(m, 10 * S, 100);
	t = strobe_model_task(m, 101);
	CHECK_EQ(t->container->index, STROBE_CONTAINER_UNKNOWN);
	CHECK_STR(t->comm, "<...>");
	CHECK_EQ(t->tgid, -1);
	strobe_model_free(m);
}

static void test_model_threads_vs_processes(void)
{
	struct strobe_model *m = base_model();
	const struct strobe_task *t;

	REQUIRE(m);
	/* CLONE_THREAD: same tgid, parent's parent */
	newtask(m, 1 * S, 500, 501, "sh", 0x3d0f00);
	fork_ev(m, 1 * S + 1, 500, 501, "sh");
	t = strobe_model_task(m, 501);
	CHECK_EQ(t->tgid, 500);
	CHECK_EQ(t->ppid, 90);
	CHECK_EQ(t->nstgid, 1);
	CHECK_EQ(t->nstid, -1);		/* inside a container: not derivable */
	CHECK_STR(t->container->name, "alpha");
	/* a thread of the thread: still the same process */
	newtask(m, 1 * S + 2, 501, 502, "sh", 0x3d0f00);
	CHECK_EQ(strobe_model_task(m, 502)->tgid, 500);
	/* fork alone (no task_newtask recorded): thread or process unknown */
	fork_ev(m, 1 * S + 3, 500, 503, "sh");
	t = strobe_model_task(m, 503);
	CHECK_EQ(t->tgid, -1);
	CHECK_EQ(t->ppid, -1);
	CHECK_STR(t->container->name, "alpha");
	/* ... until it execs: then it leads its own thread group */
	exec_ev(m, 1 * S + 4, 503, 503, "/bin/true");
	CHECK_EQ(strobe_model_task(m, 503)->tgid, 503);
	/* a non-leader thread that execs takes over the leader's tid */
	exec_ev(m, 1 * S + 5, 500, 501, "/bin/busybox");
	CHECK_STR(strobe_model_task(m, 500)->comm, "busybox");
	strobe_model_free(m);
}

static void test_model_new_pid_namespace_child(void)
{
	struct strobe_model *m = base_model();
	const struct strobe_task *t;

	REQUIRE(m);
	newtask(m, 1 * S, 100, 150, "unshare", 0x20000000 | 0x11);
	t = strobe_model_task(m, 150);
	CHECK_EQ(t->nstid, 1);
	CHECK_EQ(t->pidns, 0);		/* a new namespace, inode unknown */
	CHECK_EQ(t->tgid, 150);
	strobe_model_free(m);
}

static void test_model_attach_moves_into_container(void)
{
	struct strobe_model *m = base_model();
	const struct strobe_task *t;
	struct strobe_task_info ti;

	REQUIRE(m);
	/* runc init: forked on the host, then attached on two hierarchies */
	newtask(m, 1 * S, 100, 200, "runc", 0x11);
	CHECK_EQ(strobe_model_task(m, 200)->container->index, STROBE_CONTAINER_HOST);
	attach_ev(m, 1 * S + 1, 200, 0, "/libpod_parent/libpod-" ID64B);
	attach_ev(m, 1 * S + 2, 200, 3, "/");	/* a v1 hierarchy left at root */
	t = strobe_model_task(m, 200);
	REQUIRE(t->container->index >= 2);
	CHECK_STR(t->container->id, ID64B);
	CHECK_STR(t->container->name, "0123456789ab");	/* no metadata: short ID */
	CHECK_EQ(t->container->runtime, STROBE_RT_PODMAN);
	/* its children inherit */
	newtask(m, 2 * S, 200, 201, "sh", 0x11);
	CHECK(strobe_model_task(m, 201)->container == t->container);
	REQUIRE(strobe_model_task_info(m, 201, &ti) == 0);
	CHECK_STR(ti.cgroup_path, "/libpod_parent/libpod-" ID64B);
	/* leaving on the hierarchy it came from goes back to the host */
	attach_ev(m, 3 * S, 201, 0, "/user.slice");
	CHECK_EQ(strobe_model_task(m, 201)->container->index, STROBE_CONTAINER_HOST);
	CHECK_EQ(strobe_model_nr_containers(m), 4);
	strobe_model_free(m);
}

/*
 * NSpid is shown only when read from /proc or certain: runc init forked by
 * a host task, moved into a container's cgroup, unshares the PID
 * namespace and forks the container's init (no CLONE_NEWPID in the
 * clone): none of them may show a host PID as the namespaced one.  A host
 * task's child that stays on the host, and its threads, keep theirs.
 */
static void test_model_nspid_unknown_rather_than_host_pid(void)
{
	struct strobe_model *m = base_model();
	struct strobe_task_info ti;

	REQUIRE(m);
	newtask(m, 1 * S, 100, 200, "runc:[0:PARENT]", 0x11);
	CHECK_EQ(strobe_model_task(m, 200)->nstid, 200);	/* on the host so far */
	attach_ev(m, 1 * S + 1, 200, 0, "/libpod_parent/libpod-" ID64B);
	CHECK_EQ(strobe_model_task(m, 200)->nstid, -1);
	CHECK_EQ(strobe_model_task(m, 200)->nstgid, -1);
	REQUIRE(strobe_model_task_info(m, 200, &ti) == 0);
	CHECK_EQ(ti.nr_nspid, 0);
	newtask(m, 1 * S + 2, 200, 201, "runc:[1:CHILD]", 0x11);
	CHECK_EQ(strobe_model_task(m, 201)->nstid, -1);
	newtask(m, 1 * S + 3, 201, 202, "runc:[2:INIT]", 0x11);	/* pid 1, really */
	CHECK_EQ(strobe_model_task(m, 202)->nstid, -1);
	CHECK_EQ(strobe_model_task(m, 202)->nstgid, -1);
	newtask(m, 1 * S + 4, 202, 203, "runc:[2:INIT]", 0x3d0f00);	/* a thread */
	CHECK_EQ(strobe_model_task(m, 203)->nstid, -1);
	/* a host task's child on the host, and its thread */
	newtask(m, 2 * S, 100, 300, "make", 0x11);
	CHECK_EQ(strobe_model_task(m, 300)->nstid, 300);
	newtask(m, 2 * S + 1, 300, 301, "make", 0x3d0f00);
	CHECK_EQ(strobe_model_task(m, 301)->nstid, 301);
	CHECK_EQ(strobe_model_task(m, 301)->nstgid, 300);
	/* a host child that later enters a container forgets the guess */
	attach_ev(m, 3 * S, 300, 0, "/libpod_parent/libpod-" ID64B);
	CHECK_EQ(strobe_model_task(m, 300)->nstid, -1);
	/* a host task's child in a new PID namespace is 1 there, certainly */
	newtask(m, 4 * S, 100, 400, "unshare", 0x20000000 | 0x11);
	attach_ev(m, 4 * S + 1, 400, 0, "/libpod_parent/libpod-" ID64B);
	CHECK_EQ(strobe_model_task(m, 400)->nstid, 1);
	strobe_model_free(m);
}

static void test_model_pid_reuse_gets_fresh_entry(void)
{
	struct strobe_model *m = base_model();
	const struct strobe_task *t;

	uint64_t first, second;

	REQUIRE(m);
	newtask(m, 1 * S, 500, 300, "sh", 0x11);
	CHECK_STR(strobe_model_task(m, 300)->container->name, "alpha");
	first = strobe_model_task(m, 300)->serial;
	rename_ev(m, 1 * S + 5, 300, "sh2");	/* the same task: the same instance */
	CHECK_EQ(strobe_model_task(m, 300)->serial, first);
	exit_ev(m, 2 * S, 300, "sh");
	/* the host reuses 300 within the grace period */
	newtask(m, 2 * S + 100, 100, 300, "bash", 0x11);
	t = strobe_model_task(m, 300);
	CHECK_EQ(t->container->index, STROBE_CONTAINER_HOST);
	CHECK_EQ(t->ppid, 100);
	/* another instance: analyses never merge the two threads' rows */
	second = t->serial;
	CHECK(second != first);
	CHECK(second != strobe_model_task(m, 100)->serial);
	/* and the old exit does not drop the new task later */
	other_ev(m, 20 * S, 100);
	CHECK_EQ(strobe_model_task(m, 300)->container->index, STROBE_CONTAINER_HOST);
	CHECK_EQ(strobe_model_task(m, 300)->serial, second);
	strobe_model_free(m);
}

static void test_model_comm_changes(void)
{
	struct strobe_model *m = base_model();

	REQUIRE(m);
	rename_ev(m, 1 * S, 100, "worker");
	CHECK_STR(strobe_model_task(m, 100)->comm, "worker");
	switch_ev(m, 2 * S, 100, "worker2", 777, "kworker/0:1");
	CHECK_STR(strobe_model_task(m, 100)->comm, "worker2");
	CHECK_STR(strobe_model_task(m, 777)->comm, "kworker/0:1");
	CHECK_EQ(strobe_model_task(m, 777)->container->index, STROBE_CONTAINER_UNKNOWN);
	CHECK_EQ(strobe_model_task(m, 0)->container->index, STROBE_CONTAINER_HOST);
	/* a long filename is cut to comm's 15 bytes */
	exec_ev(m, 3 * S, 100, 100, "/opt/a-very-long-program-name");
	CHECK_STR(strobe_model_task(m, 100)->comm, "a-very-long-pro");
	strobe_model_free(m);
}

static void test_model_appeared_record_applies_at_fork(void)
{
	static const char late[] =
		"strobe-model 1\n"
		"C\t2\tpodman\t" ID64A "\talpha\t\n"
		"T\t500\t500\t90\tsh\t2\t500,1\t500,1\t4026532000\t4026532001\t0\t9\t/x\n"
		"A\t600\t500\t90\tsh\t2\t600,7\t500,1\t4026532000\t4026532001\t0\t12\t/x\n"
		"A\t601\t601\t500\tsleep\t2\t601,8\t601,8\t4026532000\t4026532001\t0\t12\t/x\n";
	struct strobe_model *m = NULL;
	const struct strobe_task *t;

	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(strobe_model_table_load(m, late, sizeof(late) - 1, NULL) == 0);
	/* fork without task_newtask: the record says 600 is a thread */
	fork_ev(m, 1 * S, 500, 600, "sh");
	t = strobe_model_task(m, 600);
	CHECK_EQ(t->tgid, 500);
	CHECK_EQ(t->nstid, 7);
	CHECK_STR(t->comm, "sh");
	/* first sighting without a fork: taken from the record too */
	t = strobe_model_task(m, 601);
	CHECK_EQ(t->nstid, 8);
	CHECK_STR(t->comm, "sleep");
	CHECK_STR(t->container->name, "alpha");
	strobe_model_free(m);
}

static void test_model_find_container(void)
{
	static const char tab[] =
		"strobe-model 1\n"
		"C\t2\tpodman\t" ID64A "\talpha\t\n"
		"C\t3\tdocker\t" ID64B "\tbeta\t\n"
		"C\t4\tdocker\tf3077899999999999999999999999999999999999999999999999999999999ff\tbeta\t\n";
	struct strobe_model *m = NULL;
	const struct strobe_container *c;

	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(strobe_model_table_load(m, tab, sizeof(tab) - 1, NULL) == 0);
	CHECK_EQ(strobe_model_nr_containers(m), 5);
	c = strobe_model_find_container(m, "alpha");
	REQUIRE(c);
	CHECK_STR(c->id, ID64A);
	CHECK_STR(c->short_id, "f307780c078f");
	CHECK(strobe_model_find_container(m, "beta") == NULL);		/* two */
	CHECK(strobe_model_find_container(m, "0123") == strobe_model_container(m, 3));
	CHECK(strobe_model_find_container(m, "f307") == NULL);		/* ambiguous */
	CHECK(strobe_model_find_container(m, "f307780") == strobe_model_container(m, 2));
	CHECK(strobe_model_find_container(m, "012") == NULL);		/* too short */
	CHECK(strobe_model_find_container(m, ID64B) == strobe_model_container(m, 3));
	CHECK(strobe_model_find_container(m, "host") == strobe_model_container(m, 1));
	CHECK(strobe_container_matches(strobe_model_container(m, 4), "beta"));
	CHECK(strobe_container_matches(strobe_model_container(m, 4), "f307"));
	CHECK(!strobe_container_matches(strobe_model_container(m, 4), "alpha"));
	CHECK(strobe_model_container(m, 5) == NULL);
	CHECK(strobe_model_container(m, -1) == NULL);
	strobe_model_free(m);
}

/* Sorted lines of a table, to compare tables whose order may differ. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *sorted(const char *text)
{
	char *copy = strdup(text), *lines[64], *save = NULL, *l, *out;
	size_t n = 0, i, len = strlen(text) + 2;

	out = calloc(1, len);
	for (l = strtok_r(copy, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	free(copy);
	return out;
}

static void test_model_table_round_trip(void)
{
	static const char tab[] =
		"strobe-model 1\n"
		"C\t2\tpodman\t" ID64A "\talpha \\x09tab\t\n"
		"C\t3\tkubepods\t" ID64B "\tns/pod/c\t0f8bbb32-1b9a-4d4a-8c54-9f31f2c1e9a2\n"
		"T\t100\t100\t1\tb\\x5cash\\x0a\t1\t100\t100\t1\t2\t3\t5\t/user.slice\n"
		"T\t500\t500\t90\tsh\t2\t500,17,1\t500,17,1\t4\t5\t0\t9\t/a b\n"
		"T\t700\t-1\t-1\t<...>\t0\t\t\t0\t0\t0\t0\t\n"
		"A\t600\t500\t90\tsh\t3\t600,7\t500,1\t4\t5\t0\t12\t/kubepods/x\n";
	struct strobe_model *m = NULL, *m2 = NULL;
	char *out = NULL, *out2 = NULL, *s1, *s2, *s0;
	size_t len = 0, len2 = 0;
	struct strobe_task_info ti;

	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(strobe_model_table_load(m, tab, sizeof(tab) - 1, NULL) == 0);
	REQUIRE(strobe_model_table_write(m, &out, &len, NULL) == 0);
	CHECK_EQ(len, strlen(out));
	s0 = sorted(tab);
	s1 = sorted(out);
	CHECK_STR(s1, s0);
	REQUIRE(strobe_model_new(&m2, NULL) == 0);
	REQUIRE(strobe_model_table_load(m2, out, len, NULL) == 0);
	REQUIRE(strobe_model_table_write(m2, &out2, &len2, NULL) == 0);
	s2 = sorted(out2);
	CHECK_STR(s2, s1);
	REQUIRE(strobe_model_task_info(m2, 500, &ti) == 0);
	CHECK_EQ(ti.nr_nspid, 3);
	CHECK_EQ(ti.nspid[1], 17);
	CHECK_EQ(ti.task->nstid, 1);
	CHECK_STR(ti.cgroup_path, "/a b");
	CHECK_STR(ti.task->container->name, "alpha \ttab");
	CHECK_STR(strobe_model_task(m2, 100)->comm, "b\\ash\n");
	CHECK_STR(strobe_model_container(m2, 3)->pod_uid, "0f8bbb32-1b9a-4d4a-8c54-9f31f2c1e9a2");
	free(s0);
	free(s1);
	free(s2);
	free(out);
	free(out2);
	strobe_model_free(m);
	strobe_model_free(m2);
}

static void test_model_table_rejects_and_skips(void)
{
	static const char *const bad_header[] = {
		"", "strobe-model", "strobe-model 2\n", "strobe-modelx 1\n", "hello\n",
	};
	static const char mixed[] =
		"strobe-model 1 with a future note\n"
		"C\t2\tpodman\t" ID64A "\talpha\t\n"
		"C\t9\tpodman\t" ID64B "\tout-of-order\t\n"	/* skipped */
		"Z\tsomething new\n"					/* skipped */
		"T\t1\t1\t0\tinit\t1\t1\t1\t0\t0\t0\t0\t/\textra\n"	/* extra ok */
		"T\t2\t2\t0\tbad\\q\t1\t\t\t0\t0\t0\t0\t/\n"		/* bad escape */
		"T\t3\t3\t0\tnul\\x00\t1\t\t\t0\t0\t0\t0\t/\n"		/* NUL */
		"T\t4\t4\t0\tbig\t1\t\t\t99999999999999999999999\t0\t0\t0\t/\n"
		"T\t5\t5\t0\tneg\t1\t-3\t\t0\t0\t0\t0\t/\n"
		"T\t6\t6\t0\tshort\t1\n"
		"T\t-7\t7\t0\tnegtid\t1\t\t\t0\t0\t0\t0\t/\n"
		"T\t8\t8\t0\tunknown-cont\t42\t\t\t0\t0\t0\t0\t/\n"
		"T\t9\t9\t0\tcomm-too-long-for-16\t1\t\t\t0\t0\t0\t0\t/\n"
		"T\t10\t10\t0\tnotrelative\t1\t\t\t0\t0\t0\t0\tx/y\n";
	struct strobe_model *m = NULL;
	struct strobe_error err = { 0, "" };
	size_t i;

	for (i = 0; i < sizeof(bad_header) / sizeof(bad_header[0]); i++) {
		REQUIRE(strobe_model_new(&m, NULL) == 0);
		CHECK_EQ(strobe_model_table_load(m, bad_header[i], strlen(bad_header[i]), &err),
			 -EPROTO);
		strobe_model_free(m);
	}
	REQUIRE(strobe_model_new(&m, NULL) == 0);
	REQUIRE(strobe_model_table_load(m, mixed, sizeof(mixed) - 1, &err) == 0);
	CHECK_EQ(strobe_model_nr_containers(m), 3);
	CHECK_STR(strobe_model_task(m, 1)->comm, "init");
	CHECK_STR(strobe_model_task(m, 2)->comm, "<...>");
	CHECK_STR(strobe_model_task(m, 3)->comm, "<...>");
	CHECK_STR(strobe_model_task(m, 4)->comm, "<...>");
	CHECK_STR(strobe_model_task(m, 5)->comm, "<...>");
	CHECK_STR(strobe_model_task(m, 6)->comm, "<...>");
	CHECK_STR(strobe_model_task(m, 8)->comm, "unknown-cont");
	CHECK_EQ(strobe_model_task(m, 8)->container->index, STROBE_CONTAINER_UNKNOWN);
	CHECK_STR(strobe_model_task(m, 9)->comm, "<...>");
	CHECK_STR(strobe_model_task(m, 10)->comm, "notrelative");	/* path dropped */
	strobe_model_free(m);
}

static void test_model_proc_fixture(void)
{
	struct strobe_model *m = NULL;
	const struct strobe_task *t;
	size_t cur = 0, n = 0;

	REQUIRE(strobe_model_new(&m, NULL) == 0);
	/* a /proc without tasks: an empty model, not an error */
	REQUIRE(strobe_model_set_roots(m, "/nonexistent-proc", "/nonexistent") == 0);
	CHECK(strobe_model_load_proc(m, NULL) < 0);
	while ((t = strobe_model_next_task(m, &cur)))
		n++;
	CHECK_EQ(n, 0);
	/* the real /proc of this test: ourselves, on the host or in a container */
	REQUIRE(strobe_model_set_roots(m, NULL, NULL) == 0);
	REQUIRE(strobe_model_load_proc(m, NULL) == 0);
	t = strobe_model_task(m, (int)getpid());
	CHECK_EQ(t->tgid, (int)getpid());
	CHECK(t->container->index != STROBE_CONTAINER_UNKNOWN);
	strobe_model_free(m);
}

static int setup(void)
{
	size_t i;

	tep = tep_alloc();
	if (!tep)
		return -1;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (tep_parse_event(tep, formats[i].text, strlen(formats[i].text),
				    formats[i].system))
			return -1;
	fmts = strobe_formats_new(tep);
	return fmts ? 0 : -1;
}

static void test_model_setup(void)
{
	REQUIRE(setup() == 0);
}

TESTS(T(test_model_setup),
      T(test_model_fork_exec_exit_process),
      T(test_model_threads_vs_processes),
      T(test_model_new_pid_namespace_child),
      T(test_model_attach_moves_into_container),
      T(test_model_nspid_unknown_rather_than_host_pid),
      T(test_model_pid_reuse_gets_fresh_entry),
      T(test_model_comm_changes),
      T(test_model_appeared_record_applies_at_fork),
      T(test_model_find_container),
      T(test_model_table_round_trip),
      T(test_model_table_rejects_and_skips),
      T(test_model_proc_fixture));
