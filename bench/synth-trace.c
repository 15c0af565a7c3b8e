/*
 * synth-trace.c - a synthetic, deterministic trace.dat for make bench-instr
 * (bench/instr) and the damaged-file fixtures (tests/damage/): the same
 * bytes for the same arguments on every machine, made without root or
 * tracefs.
 *
 *     build/bench/synth-trace [-n EVENTS] [-c CPUS] [-s SEED] [-r RECORDS] OUT.dat
 *
 * It simulates a small machine (CPUS CPUs, default 4) running a few
 * workloads for as long as it takes to write EVENTS events (default
 * 1,000,000), and writes what a recording of strobe's sched and syscalls
 * presets, plus irq and block events, would hold, in strobe's own v6
 * writer (lib/tracefile/write.c) with a model table (three containers),
 * clock pairings and target=system:
 *
 *   - nginx (container web): threads doing accept4 (blocking or not, some
 *     failing with EAGAIN), a read, a write and close of the accepted fd:
 *     the request period of bench/run and strobe-periods(1) matches them;
 *   - postgres (container db): pread64/pwrite64 that hit the cache or go
 *     to the disk (block_rq_issue, then a completion interrupt with
 *     block_rq_complete that wakes the reader), fdatasync, futex waits;
 *   - redis (container cache): epoll_wait, read, write;
 *   - a getppid storm (the workload of make bench) with short sleeps;
 *   - a shell that forks children (sched_process_fork, task_newtask,
 *     sched_wakeup_new) which exec (sched_process_exec, task_rename), make
 *     a few dozen syscalls, exit (sched_process_exit) and are reaped by
 *     wait4 (sched_process_free);
 *   - a kworker (no syscalls) and a timer interrupt now and then.
 *
 * The scheduler is simple but consistent: a task runs on one CPU at a
 * time, blocks inside a syscall (sys_enter, sched_switch with S or D,
 * sched_waking/sched_wakeup later, switched in, sys_exit), is preempted
 * after 4 ms when others wait, and migrates (sched_migrate_task) to an
 * idle CPU when woken while its own is busy.  Timestamps of a CPU never
 * go backwards; gaps of 134 ms or more get time-extend records.  The
 * syscalls:sys_enter_* formats of the syscalls the period uses are in
 * the file (no events of theirs), so argument names on raw_syscalls
 * records resolve from the file and not from this machine's tracefs.
 *
 * With -r, the file also holds RECORDS records that are not ftrace
 * events, stored as strobe stores a BPF or perf source's
 * (strobe-tracefile(3), RECORDS BEYOND FTRACE PAGES): two declared
 * formats, strobe_synth:sample (a perf-like sample with a call chain of
 * 1 to 4 addresses) and strobe_synth:open (a return value and a path),
 * packed into ring-buffer pages of an instance buffer "strobe_synth",
 * spread evenly over the trace's time on every CPU.
 *
 * The pseudo-random generator is xorshift64* from a fixed seed; nothing
 * depends on the time, the machine or the environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "format/tep.h"
#include "tracefile/tracefile-int.h"

#define PS		4096u
#define MAX_CPUS	64
#define MAX_TASKS	16384
#define RQ_SIZE		256

/* ---- formats (as a 6.18 kernel's tracefs prints them) ---------------- */

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define WAKE_FIELDS \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, " \
	"REC->prio, REC->target_cpu\n"
#define STATES "{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, " \
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, " \
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }"
#define MASK "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | " \
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"
#define MAX_BIT "(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | " \
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1)"

enum {
	ID_RENAME = 204, ID_NEWTASK = 205, ID_EXEC = 365, ID_FORK = 366, ID_EXIT = 369,
	ID_FREE = 370, ID_MIGRATE = 371, ID_SWITCH = 372, ID_WAKEUP_NEW = 373,
	ID_WAKEUP = 374, ID_WAKING = 375, ID_SYS_EXIT = 442, ID_SYS_ENTER = 443,
	ID_IRQ_EXIT = 139, ID_IRQ_ENTRY = 140, ID_RQ_ISSUE = 1181, ID_RQ_COMPLETE = 1183,
};

static const char f_sys_enter[] = "name: sys_enter\nID: 443\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], "
	"REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";
static const char f_sys_exit[] = "name: sys_exit\nID: 442\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";
static const char f_switch[] = "name: sched_switch\nID: 372\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, (REC->prev_state & " MASK ") ? __print_flags(REC->prev_state & "
	MASK ", \"|\", " STATES ") : \"R\", REC->prev_state & " MAX_BIT " ? \"+\" : \"\", "
	"REC->next_comm, REC->next_pid, REC->next_prio\n";
static const char f_wakeup[] = "name: sched_wakeup\nID: 374\nformat:\n" COMMON WAKE_FIELDS;
static const char f_waking[] = "name: sched_waking\nID: 375\nformat:\n" COMMON WAKE_FIELDS;
static const char f_wakeup_new[] = "name: sched_wakeup_new\nID: 373\nformat:\n" COMMON
	WAKE_FIELDS;
static const char f_fork[] = "name: sched_process_fork\nID: 366\nformat:\n" COMMON
	"\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", __get_str(parent_comm), "
	"REC->parent_pid, __get_str(child_comm), REC->child_pid\n";
static const char f_exec[] = "name: sched_process_exec\nID: 365\nformat:\n" COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, "
	"REC->old_pid\n";
static const char f_exit[] = "name: sched_process_exit\nID: 369\nformat:\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:bool group_dead;\toffset:32;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, REC->pid, "
	"REC->prio, REC->group_dead ? \"true\" : \"false\"\n";
static const char f_free[] = "name: sched_process_free\nID: 370\nformat:\n" COMMON
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d\", __get_str(comm), REC->pid, REC->prio\n";
static const char f_migrate[] = "name: sched_migrate_task\nID: 371\nformat:\n" COMMON
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int orig_cpu;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int dest_cpu;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", __get_str(comm), "
	"REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu\n";
static const char f_newtask[] = "name: task_newtask\nID: 205\nformat:\n" COMMON
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:u64 clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:40;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"pid=%d comm=%s clone_flags=%llx oom_score_adj=%hd\", REC->pid, "
	"REC->comm, REC->clone_flags, REC->oom_score_adj\n";
static const char f_rename[] = "name: task_rename\nID: 204\nformat:\n" COMMON
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char oldcomm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:char newcomm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:44;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd\", REC->pid, "
	"REC->oldcomm, REC->newcomm, REC->oom_score_adj\n";
static const char f_irq_entry[] = "name: irq_handler_entry\nID: 140\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";
static const char f_irq_exit[] = "name: irq_handler_exit\nID: 139\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n";
static const char f_rq_issue[] = "name: block_rq_issue\nID: 1181\nformat:\n" COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[8];\toffset:34;\tsize:8;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:42;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%d,%d %s %u (%s) %llu + %u [%s]\", ((unsigned int) ((REC->dev) >> 20)), "
	"((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, REC->bytes, "
	"__get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, REC->comm\n";
static const char f_rq_complete[] = "name: block_rq_complete\nID: 1183\nformat:\n" COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[8];\toffset:34;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:44;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%d,%d %s (%s) %llu + %u [%d]\", ((unsigned int) ((REC->dev) >> 20)), "
	"((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, __get_str(cmd), "
	"(unsigned long long)REC->sector, REC->nr_sector, REC->error\n";
/* argument names for raw_syscalls records (no events of these types) */
static const char f_enter_accept4[] = "name: sys_enter_accept4\nID: 1501\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:struct sockaddr * upeer_sockaddr;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int * upeer_addrlen;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx, upeer_sockaddr: 0x%08lx, upeer_addrlen: 0x%08lx, "
	"flags: 0x%08lx\", ((unsigned long)(REC->fd)), ((unsigned long)(REC->upeer_sockaddr)), "
	"((unsigned long)(REC->upeer_addrlen)), ((unsigned long)(REC->flags))\n";
static const char f_exit_accept4[] = "name: sys_exit_accept4\nID: 1500\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"0x%lx\", REC->ret\n";
static const char f_enter_close[] = "name: sys_enter_close\nID: 1503\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";
static const char f_enter_read[] = "name: sys_enter_read\nID: 1505\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx\", ((unsigned long)(REC->fd)), "
	"((unsigned long)(REC->buf)), ((unsigned long)(REC->count))\n";
static const char f_enter_write[] = "name: sys_enter_write\nID: 1507\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx\", ((unsigned long)(REC->fd)), "
	"((unsigned long)(REC->buf)), ((unsigned long)(REC->count))\n";

static const struct strobe_tf_format formats[] = {
	{ "raw_syscalls", f_sys_enter, sizeof(f_sys_enter) - 1 },
	{ "raw_syscalls", f_sys_exit, sizeof(f_sys_exit) - 1 },
	{ "sched", f_switch, sizeof(f_switch) - 1 },
	{ "sched", f_wakeup, sizeof(f_wakeup) - 1 },
	{ "sched", f_waking, sizeof(f_waking) - 1 },
	{ "sched", f_wakeup_new, sizeof(f_wakeup_new) - 1 },
	{ "sched", f_fork, sizeof(f_fork) - 1 },
	{ "sched", f_exec, sizeof(f_exec) - 1 },
	{ "sched", f_exit, sizeof(f_exit) - 1 },
	{ "sched", f_free, sizeof(f_free) - 1 },
	{ "sched", f_migrate, sizeof(f_migrate) - 1 },
	{ "task", f_newtask, sizeof(f_newtask) - 1 },
	{ "task", f_rename, sizeof(f_rename) - 1 },
	{ "irq", f_irq_entry, sizeof(f_irq_entry) - 1 },
	{ "irq", f_irq_exit, sizeof(f_irq_exit) - 1 },
	{ "block", f_rq_issue, sizeof(f_rq_issue) - 1 },
	{ "block", f_rq_complete, sizeof(f_rq_complete) - 1 },
	{ "syscalls", f_enter_accept4, sizeof(f_enter_accept4) - 1 },
	{ "syscalls", f_exit_accept4, sizeof(f_exit_accept4) - 1 },
	{ "syscalls", f_enter_close, sizeof(f_enter_close) - 1 },
	{ "syscalls", f_enter_read, sizeof(f_enter_read) - 1 },
	{ "syscalls", f_enter_write, sizeof(f_enter_write) - 1 },
};

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* ---- pseudo-random numbers -------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* uniform in [lo, hi] */
static uint64_t between(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

/* true with probability pct % */
static bool chance(unsigned pct)
{
	return rnd() % 100 < pct;
}

/* ---- ring-buffer pages, one CPU each ---------------------------------- */

struct cpu_out {
	uint8_t page[PS];
	size_t len;		/* data bytes used in page */
	bool open;		/* page holds a header */
	uint64_t last_ts;
	int fd;			/* the CPU's pages so far (an unlinked file) */
	uint64_t events;
};

static struct cpu_out out[MAX_CPUS];
static uint64_t nr_events;

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void flush_page(struct cpu_out *o)
{
	if (!o->open)
		return;
	put64(o->page + 8, o->len);
	if (write(o->fd, o->page, PS) != (ssize_t)PS) {
		perror("synth-trace: write");
		exit(1);
	}
	o->open = false;
}

/* One event of `type` by `pid` on `cpu` at ts (clamped to the CPU's last
 * time): payload d of plen bytes, its common header filled here. */
static void emit(int cpu, uint64_t ts, uint8_t *d, size_t plen, int type, int pid)
{
	struct cpu_out *o = &out[cpu];
	size_t body = (plen + 3) & ~(size_t)3;
	size_t need = (plen <= 112 ? 4 : 8) + body;
	uint64_t delta;
	uint8_t *ev;

	if (o->open && ts < o->last_ts)
		ts = o->last_ts;
	put16(d, (uint16_t)type);
	d[2] = 0;
	d[3] = 0;
	put32(d + 4, (uint32_t)pid);
	delta = o->open ? ts - o->last_ts : 0;
	if (o->open && 16 + o->len + need + (delta >> 27 ? 8 : 0) > PS)
		flush_page(o);
	if (!o->open) {
		memset(o->page, 0, PS);
		put64(o->page, ts);
		o->open = true;
		o->len = 0;
		o->last_ts = ts;
		delta = 0;
	}
	ev = o->page + 16 + o->len;
	if (delta >> 27) {	/* time extend: delta = time_delta | array[0] << 27 */
		put32(ev, 30u | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
		put32(ev + 4, (uint32_t)(delta >> 27));
		o->len += 8;
		ev += 8;
		delta = 0;
	}
	if (plen <= 112) {
		put32(ev, (uint32_t)(body / 4) | (uint32_t)delta << 5);
		memcpy(ev + 4, d, plen);
	} else {
		put32(ev, (uint32_t)delta << 5);
		put32(ev + 4, (uint32_t)(body + 4));
		memcpy(ev + 8, d, plen);
	}
	o->len += need;
	o->last_ts = ts;
	o->events++;
	nr_events++;
}

/* ---- tasks ------------------------------------------------------------ */

enum kind { K_IDLE, K_SERVER, K_DB, K_CACHE, K_STORM, K_SHELL, K_CHILD, K_KWORKER };
enum tstate { T_RUNNING, T_QUEUED, T_SLEEPING, T_IO, T_ZOMBIE, T_GONE };

struct task {
	int tid, tgid, prio, cpu;
	char comm[16];
	enum kind kind;
	enum tstate st;
	uint64_t wake_at;	/* T_SLEEPING */
	uint64_t ran_since;	/* T_RUNNING: switched in at */
	uint64_t runnable_at;	/* T_QUEUED: woken at (not switched in before) */
	long sys_nr;		/* >= 0: inside this syscall (blocked) */
	int64_t sys_ret;	/* its return value once woken */
	int step;		/* position in the kind's script */
	int fd;			/* server: the accepted connection, -1 none */
	int left;		/* child: syscalls left before exit */
	int child;		/* shell: the child waited for (task index), -1 */
	int parent;		/* child: its shell (task index) */
};

static struct task tasks[MAX_TASKS];
static int nr_tasks;
/* indices of the tasks not gone, rebuilt when one goes (next_thing scans
 * them at every step) */
static int live[MAX_TASKS];
static int nr_live;
static bool live_dirty = true;

struct cpu {
	uint64_t now;
	int cur;		/* task index, -1: idle */
	bool busy;		/* has something to do at now */
	int rq[RQ_SIZE];	/* runnable tasks, FIFO */
	int rq_head, rq_len;
};

static struct cpu cpus[MAX_CPUS];
static int nr_cpus = 4;

struct io {
	uint64_t at;
	int task;
	uint64_t sector;
	unsigned nr_sector;
	bool write;
};
#define MAX_IO 256
static struct io ios[MAX_IO];
static int nr_ios;

static int add_task(int tid, int tgid, const char *comm, enum kind kind, int prio, int cpu)
{
	struct task *t = &tasks[nr_tasks];

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tgid;
	t->prio = prio;
	t->cpu = cpu;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->kind = kind;
	t->sys_nr = -1;
	t->fd = -1;
	t->child = -1;
	t->parent = -1;
	live_dirty = true;
	return nr_tasks++;
}

static void rq_push(struct cpu *c, int ti)
{
	c->rq[(c->rq_head + c->rq_len) % RQ_SIZE] = ti;
	c->rq_len++;
}

static int rq_pop(struct cpu *c)
{
	int ti;

	if (!c->rq_len)
		return -1;
	ti = c->rq[c->rq_head];
	c->rq_head = (c->rq_head + 1) % RQ_SIZE;
	c->rq_len--;
	return ti;
}

/* ---- event builders --------------------------------------------------- */

static int cur_pid(int cpu)
{
	return cpus[cpu].cur >= 0 ? tasks[cpus[cpu].cur].tid : 0;
}

static void ev_sys_enter(int cpu, uint64_t ts, const struct task *t, long nr, uint64_t a0,
			 uint64_t a1, uint64_t a2)
{
	uint8_t d[64] = { 0 };

	put64(d + 8, (uint64_t)nr);
	put64(d + 16, a0);
	put64(d + 24, a1);
	put64(d + 32, a2);
	emit(cpu, ts, d, 64, ID_SYS_ENTER, t->tid);
}

static void ev_sys_exit(int cpu, uint64_t ts, const struct task *t, long nr, int64_t ret)
{
	uint8_t d[24] = { 0 };

	put64(d + 8, (uint64_t)nr);
	put64(d + 16, (uint64_t)ret);
	emit(cpu, ts, d, 24, ID_SYS_EXIT, t->tid);
}

static void idle_comm(int cpu, char *buf)
{
	snprintf(buf, 16, "swapper/%d", cpu);
}

/* sched_switch on cpu from prev (-1 idle) to next (-1 idle) */
static void ev_switch(int cpu, uint64_t ts, int prev, long state, int next)
{
	uint8_t d[64] = { 0 };

	if (prev >= 0) {
		memcpy(d + 8, tasks[prev].comm, 16);
		put32(d + 24, (uint32_t)tasks[prev].tid);
		put32(d + 28, (uint32_t)tasks[prev].prio);
	} else {
		idle_comm(cpu, (char *)d + 8);
		put32(d + 28, 120);
	}
	put64(d + 32, (uint64_t)state);
	if (next >= 0) {
		memcpy(d + 40, tasks[next].comm, 16);
		put32(d + 56, (uint32_t)tasks[next].tid);
		put32(d + 60, (uint32_t)tasks[next].prio);
	} else {
		idle_comm(cpu, (char *)d + 40);
		put32(d + 60, 120);
	}
	emit(cpu, ts, d, 64, ID_SWITCH, prev >= 0 ? tasks[prev].tid : 0);
}

static void ev_wake(int cpu, uint64_t ts, int type, const struct task *t, int target)
{
	uint8_t d[36] = { 0 };

	memcpy(d + 8, t->comm, 16);
	put32(d + 24, (uint32_t)t->tid);
	put32(d + 28, (uint32_t)t->prio);
	put32(d + 32, (uint32_t)target);
	emit(cpu, ts, d, 36, type, cur_pid(cpu));
}

/* a __data_loc string at *off of d: offset | length << 16 (NUL counted) */
static void put_str(uint8_t *d, int field, size_t *off, const char *s)
{
	size_t n = strlen(s) + 1;

	put32(d + field, (uint32_t)*off | (uint32_t)n << 16);
	memcpy(d + *off, s, n);
	*off += n;
}

static void ev_migrate(int cpu, uint64_t ts, const struct task *t, int from, int to)
{
	uint8_t d[64] = { 0 };
	size_t off = 28;

	put_str(d, 8, &off, t->comm);
	put32(d + 12, (uint32_t)t->tid);
	put32(d + 16, (uint32_t)t->prio);
	put32(d + 20, (uint32_t)from);
	put32(d + 24, (uint32_t)to);
	emit(cpu, ts, d, off, ID_MIGRATE, cur_pid(cpu));
}

static void ev_irq_entry(int cpu, uint64_t ts, int irq, const char *name)
{
	uint8_t d[48] = { 0 };
	size_t off = 16;

	put32(d + 8, (uint32_t)irq);
	put_str(d, 12, &off, name);
	emit(cpu, ts, d, off, ID_IRQ_ENTRY, cur_pid(cpu));
}

static void ev_irq_exit(int cpu, uint64_t ts, int irq)
{
	uint8_t d[16] = { 0 };

	put32(d + 8, (uint32_t)irq);
	put32(d + 12, 1);
	emit(cpu, ts, d, 16, ID_IRQ_EXIT, cur_pid(cpu));
}

/* an interrupt that does nothing we trace */
static void ev_irq(int cpu, uint64_t ts, int irq, const char *name, uint64_t dur)
{
	ev_irq_entry(cpu, ts, irq, name);
	ev_irq_exit(cpu, ts + dur, irq);
}

#define DEV_NVME ((259u << 20) | 0u)

static void ev_rq_issue(int cpu, uint64_t ts, const struct task *t, const struct io *io)
{
	uint8_t d[80] = { 0 };
	size_t off = 64;

	put32(d + 8, DEV_NVME);
	put64(d + 16, io->sector);
	put32(d + 24, io->nr_sector);
	put32(d + 28, io->nr_sector * 512);
	memcpy(d + 34, io->write ? "WS" : "R", io->write ? 3 : 2);
	memcpy(d + 42, t->comm, 16);
	put_str(d, 60, &off, "");
	emit(cpu, ts, d, off, ID_RQ_ISSUE, t->tid);
}

static void ev_rq_complete(int cpu, uint64_t ts, const struct io *io)
{
	uint8_t d[64] = { 0 };
	size_t off = 48;

	put32(d + 8, DEV_NVME);
	put64(d + 16, io->sector);
	put32(d + 24, io->nr_sector);
	memcpy(d + 34, io->write ? "WS" : "R", io->write ? 3 : 2);
	put_str(d, 44, &off, "");
	emit(cpu, ts, d, off, ID_RQ_COMPLETE, cur_pid(cpu));
}

/* ---- the scheduler ---------------------------------------------------- */

static int idle_cpu(void)
{
	int i;

	for (i = 0; i < nr_cpus; i++)
		if (cpus[i].cur < 0 && !cpus[i].rq_len)
			return i;
	return -1;
}

/* Make task ti runnable, the wake-up told on cpu `on` at ts (type:
 * sched_wakeup or sched_wakeup_new). */
static void wake(int on, uint64_t ts, int ti, int type)
{
	struct task *t = &tasks[ti];
	struct cpu *c;
	int target = t->cpu, other;

	if (cpus[target].cur >= 0 && (other = idle_cpu()) >= 0) {
		ev_migrate(on, ts, t, target, other);
		target = other;
		t->cpu = other;
	}
	if (type == ID_WAKEUP)
		ev_wake(on, ts, ID_WAKING, t, target);
	ev_wake(on, ts + 120, type, t, target);
	t->st = T_QUEUED;
	t->runnable_at = out[on].last_ts + 500;
	c = &cpus[target];
	rq_push(c, ti);
	if (!c->busy) {
		c->busy = true;
		if (c->now < ts + 2000)
			c->now = ts + 2000;	/* the idle CPU wakes up */
	}
}

static void resume(int ci);

/* The running task of cpu c leaves it (state: prev_state) for the next
 * runnable one, or idle. */
static void switch_out(int ci, long state)
{
	struct cpu *c = &cpus[ci];
	int prev = c->cur, next = rq_pop(c);

	if (next >= 0 && tasks[next].runnable_at > c->now)
		c->now = tasks[next].runnable_at;
	ev_switch(ci, c->now, prev, state, next);
	c->now += between(600, 1500);
	c->cur = next;
	if (next >= 0) {
		tasks[next].st = T_RUNNING;
		tasks[next].ran_since = c->now;
		resume(ci);
	} else {
		c->busy = false;
	}
}

/* Block the running task inside syscall nr until `until`; it returns ret. */
static void block(int ci, long nr, int64_t ret, uint64_t until, long state)
{
	struct task *t = &tasks[cpus[ci].cur];

	t->sys_nr = nr;
	t->sys_ret = ret;
	t->wake_at = until;
	t->st = state == 2 ? T_IO : T_SLEEPING;
	cpus[ci].now += between(500, 2000);
	switch_out(ci, state);
}

/* A syscall that does not block: enter now, exit after dur. */
static void quick(int ci, long nr, uint64_t a0, uint64_t a1, uint64_t a2, int64_t ret,
		  uint64_t dur)
{
	struct cpu *c = &cpus[ci];
	struct task *t = &tasks[c->cur];

	ev_sys_enter(ci, c->now, t, nr, a0, a1, a2);
	c->now += dur;
	ev_sys_exit(ci, c->now, t, nr, ret);
	c->now += between(200, 2500);		/* user space between calls */
}

enum { NR_READ = 0, NR_WRITE = 1, NR_CLOSE = 3, NR_FSTAT = 5, NR_LSEEK = 8, NR_MMAP = 9,
       NR_SIGPROCMASK = 14, NR_PREAD = 17, NR_PWRITE = 18, NR_NANOSLEEP = 35,
       NR_SENDTO = 44, NR_RECVFROM = 45, NR_CLONE = 56, NR_EXECVE = 59, NR_WAIT4 = 61,
       NR_FDATASYNC = 75, NR_GETPPID = 110, NR_FUTEX = 202, NR_EPOLL_WAIT = 232,
       NR_EXIT_GROUP = 231, NR_OPENAT = 257, NR_ACCEPT4 = 288 };

static void start_io(int ci, long nr, bool wr)
{
	struct cpu *c = &cpus[ci];
	struct io *io;

	if (nr_ios == MAX_IO) {
		quick(ci, nr, 7, 0, 8192, 8192, between(2000, 8000));
		return;
	}
	io = &ios[nr_ios++];
	io->task = c->cur;
	io->sector = between(0, 1u << 26) & ~7ull;
	io->nr_sector = wr ? 16 : 8 * (unsigned)between(1, 4);
	io->write = wr;
	ev_sys_enter(ci, c->now, &tasks[c->cur], nr, 7, 0, io->nr_sector * 512);
	c->now += between(1500, 4000);
	ev_rq_issue(ci, c->now, &tasks[c->cur], io);
	c->now += 800;
	io->at = c->now + between(60000, 900000);
	block(ci, nr, io->nr_sector * 512, UINT64_MAX, 2);
}

/* The next step of the running task's script. */
static void act(int ci)
{
	struct cpu *c = &cpus[ci];
	int ti = c->cur;
	struct task *t = &tasks[ti];
	int64_t ret;

	switch (t->kind) {
	case K_SERVER:
		if (t->fd < 0) {
			/* accept4(listen fd 6): a connection is there, or not yet
			 * (block), or the socket is non-blocking (EAGAIN) */
			if (chance(15)) {
				quick(ci, NR_ACCEPT4, 6, 0x7ffd0000, 0x80800, -11,
				      between(800, 2000));
				if (chance(60)) {
					ev_sys_enter(ci, c->now, t, NR_EPOLL_WAIT, 9, 0x7ffd1000, 512);
					block(ci, NR_EPOLL_WAIT, 1, c->now + between(20000, 400000), 1);
				}
				return;
			}
			t->fd = 10 + (int)between(0, 200);
			if (chance(50)) {
				ev_sys_enter(ci, c->now, t, NR_ACCEPT4, 6, 0x7ffd0000, 0x80800);
				block(ci, NR_ACCEPT4, t->fd, c->now + between(10000, 300000), 1);
			} else {
				quick(ci, NR_ACCEPT4, 6, 0x7ffd0000, 0x80800, t->fd,
				      between(2000, 6000));
			}
			t->step = 0;
			return;
		}
		switch (t->step++) {
		case 0:
			quick(ci, NR_RECVFROM, (uint64_t)t->fd, 0x5600, 4096, between(200, 900),
			      between(1500, 5000));
			return;
		case 1:	/* the file served: from the cache */
			quick(ci, NR_OPENAT, (uint64_t)-100, 0x5610, 0, chance(5) ? -2 : 8,
			      between(3000, 9000));
			return;
		case 2:
			quick(ci, NR_FSTAT, 8, 0x7ffd2000, 0, 0, between(500, 1500));
			return;
		case 3:
			quick(ci, NR_READ, 8, 0x5700, 65536, between(100, 65536),
			      between(2000, 12000));
			return;
		case 4:
			quick(ci, NR_CLOSE, 8, 0, 0, 0, between(400, 1200));
			return;
		case 5:
			quick(ci, NR_WRITE, (uint64_t)t->fd, 0x5800, 16384, chance(3) ? -32 : 16384,
			      between(4000, 20000));
			return;
		default:
			quick(ci, NR_CLOSE, (uint64_t)t->fd, 0, 0, 0, between(1000, 3000));
			t->fd = -1;
			return;
		}
	case K_DB:
		switch (between(0, 19)) {
		case 0: case 1:
			start_io(ci, NR_PREAD, false);
			return;
		case 2:
			start_io(ci, NR_FDATASYNC, true);
			return;
		case 3: case 4:
			ev_sys_enter(ci, c->now, t, NR_FUTEX, 0x7f0000 + (uint64_t)t->tid, 0x80, 0);
			block(ci, NR_FUTEX, 0, c->now + between(5000, 200000), 1);
			return;
		case 5:
			ev_sys_enter(ci, c->now, t, NR_RECVFROM, 11, 0x5600, 8192);
			block(ci, NR_RECVFROM, between(40, 800), c->now + between(30000, 800000), 1);
			return;
		case 6: case 7:
			quick(ci, NR_PWRITE, 7, 0x6000, 8192, 8192, between(3000, 9000));
			return;
		case 8:
			quick(ci, NR_LSEEK, 7, 0, 2, between(1 << 20, 1 << 30), between(300, 700));
			return;
		case 9:
			quick(ci, NR_FUTEX, 0x7f0000, 0x81, 1, between(0, 1), between(700, 2000));
			return;
		default:
			quick(ci, NR_PREAD, 7, 0x6000, 8192, 8192, between(1500, 5000));
			return;
		}
	case K_CACHE:
		switch (t->step++ % 3) {
		case 0:
			ev_sys_enter(ci, c->now, t, NR_EPOLL_WAIT, 5, 0x7ffe0000, 128);
			block(ci, NR_EPOLL_WAIT, (int64_t)between(1, 4),
			      c->now + between(20000, 500000), 1);
			return;
		case 1:
			quick(ci, NR_READ, 12, 0x9000, 16384, chance(10) ? -11 : 64,
			      between(800, 2500));
			return;
		default:
			quick(ci, NR_WRITE, 12, 0x9100, 128, 128, between(2500, 7000));
			return;
		}
	case K_STORM:
		if (++t->step % 400 == 0) {
			ev_sys_enter(ci, c->now, t, NR_NANOSLEEP, 0x7ffc0000, 0, 0);
			block(ci, NR_NANOSLEEP, 0, c->now + between(200000, 2000000), 1);
			return;
		}
		ev_sys_enter(ci, c->now, t, NR_GETPPID, 0, 0, 0);
		c->now += between(180, 400);
		ev_sys_exit(ci, c->now, t, NR_GETPPID, 1);
		c->now += between(60, 200);
		return;
	case K_SHELL:
		switch (t->step++ % 3) {
		case 0:
			ev_sys_enter(ci, c->now, t, NR_READ, 0, 0x7ffb0000, 1);
			block(ci, NR_READ, 1, c->now + between(1000000, 6000000), 1);
			return;
		case 1: {
			int ch = nr_tasks < MAX_TASKS - 1 ? nr_tasks : -1;
			uint8_t d[64] = { 0 };
			size_t off = 24;
			int tid = 20000 + nr_tasks;

			ev_sys_enter(ci, c->now, t, NR_CLONE, 0x1200011, 0, 0);
			c->now += between(20000, 60000);
			if (ch < 0) {
				ev_sys_exit(ci, c->now, t, NR_CLONE, -11);
				return;
			}
			add_task(tid, tid, t->comm, K_CHILD, 120, ci);
			tasks[ch].parent = ti;
			tasks[ch].left = (int)between(10, 60);
			put_str(d, 8, &off, t->comm);
			put32(d + 12, (uint32_t)t->tid);
			put_str(d, 16, &off, t->comm);
			put32(d + 20, (uint32_t)tid);
			emit(ci, c->now, d, off, ID_FORK, t->tid);
			memset(d, 0, sizeof(d));
			put32(d + 8, (uint32_t)tid);
			memcpy(d + 12, t->comm, 16);
			put64(d + 32, 0x1200011);
			emit(ci, c->now + 300, d, 42, ID_NEWTASK, t->tid);
			wake(ci, c->now + 2000, ch, ID_WAKEUP_NEW);
			c->now += 5000;
			ev_sys_exit(ci, c->now, t, NR_CLONE, tid);
			c->now += between(2000, 5000);
			t->child = ch;
			return;
		}
		default:
			if (t->child < 0) {
				quick(ci, NR_SIGPROCMASK, 0, 0x7ffb2000, 0, 0, between(300, 800));
				return;
			}
			ev_sys_enter(ci, c->now, t, NR_WAIT4, (uint64_t)-1, 0x7ffb1000, 0);
			if (tasks[t->child].st != T_ZOMBIE) {
				block(ci, NR_WAIT4, tasks[t->child].tid, UINT64_MAX, 1);
				return;
			}
			t->sys_nr = NR_WAIT4;	/* reaped at once */
			t->sys_ret = tasks[t->child].tid;
			resume(ci);
			return;
		}
	case K_CHILD:
		if (t->step++ == 0) {
			uint8_t d[64] = { 0 };
			size_t off = 20;
			static const char *const progs[][2] = {
				{ "/usr/bin/ls", "ls" }, { "/usr/bin/cat", "cat" },
				{ "/usr/bin/grep", "grep" }, { "/usr/bin/date", "date" },
			};
			int p = (int)between(0, 3);

			ev_sys_enter(ci, c->now, t, NR_EXECVE, 0x5a00, 0x5b00, 0x5c00);
			c->now += between(80000, 200000);
			put_str(d, 8, &off, progs[p][0]);
			put32(d + 12, (uint32_t)t->tid);
			put32(d + 16, (uint32_t)t->tid);
			emit(ci, c->now, d, off, ID_EXEC, t->tid);
			memset(d, 0, sizeof(d));
			put32(d + 8, (uint32_t)t->tid);
			memcpy(d + 12, t->comm, 16);
			snprintf(t->comm, sizeof(t->comm), "%s", progs[p][1]);
			memcpy(d + 28, t->comm, 16);
			emit(ci, c->now + 200, d, 46, ID_RENAME, t->tid);
			c->now += 1000;
			ev_sys_exit(ci, c->now, t, NR_EXECVE, 0);
			c->now += 3000;
			return;
		}
		if (--t->left > 0) {
			static const long calls[] = { NR_OPENAT, NR_READ, NR_FSTAT, NR_MMAP,
						      NR_CLOSE, NR_WRITE, NR_READ };
			long nr = calls[between(0, 6)];

			ret = nr == NR_OPENAT ? (chance(20) ? -2 : 3) : nr == NR_MMAP ?
			      0x7f1200000000ll : nr == NR_READ ? (int64_t)between(0, 4096) : 0;
			quick(ci, nr, 3, 0x5d00, 4096, ret, between(700, 15000));
			return;
		}
		{
			uint8_t d[36] = { 0 };
			struct task *p = &tasks[t->parent];

			ev_sys_enter(ci, c->now, t, NR_EXIT_GROUP, 0, 0, 0);
			c->now += between(10000, 40000);
			memcpy(d + 8, t->comm, 16);
			put32(d + 24, (uint32_t)t->tid);
			put32(d + 28, 120);
			d[32] = 1;
			emit(ci, c->now, d, 33, ID_EXIT, t->tid);
			c->now += 3000;
			t->st = T_ZOMBIE;
			if (p->st == T_SLEEPING && p->sys_nr == NR_WAIT4) {
				p->wake_at = c->now;
			}
			switch_out(ci, 16);
		}
		return;
	case K_KWORKER:
		c->now += between(3000, 20000);
		t->sys_nr = -1;
		t->wake_at = c->now + between(1000000, 4000000);
		t->st = T_SLEEPING;
		switch_out(ci, 0x80);
		return;
	case K_IDLE:
		break;
	}
}

/* A task switched in: finish the syscall it blocked in. */
static void resume(int ci)
{
	struct cpu *c = &cpus[ci];
	struct task *t = &tasks[c->cur];

	if (t->sys_nr < 0)
		return;
	c->now += between(400, 1500);
	ev_sys_exit(ci, c->now, t, t->sys_nr, t->sys_ret);
	c->now += between(300, 1500);
	if (t->sys_nr == NR_WAIT4 && t->child >= 0) {
		uint8_t d[48] = { 0 };
		size_t off = 20;
		struct task *ch = &tasks[t->child];

		put_str(d, 8, &off, ch->comm);
		put32(d + 12, (uint32_t)ch->tid);
		put32(d + 16, 120);
		emit(ci, c->now, d, off, ID_FREE, t->tid);
		c->now += 500;
		ch->st = T_GONE;
		live_dirty = true;
		t->child = -1;
	}
	t->sys_nr = -1;
}

/* One step of cpu ci at its time. */
static void cpu_step(int ci)
{
	struct cpu *c = &cpus[ci];
	struct task *t;

	if (c->cur < 0) {
		int next = rq_pop(c);

		if (next < 0) {
			c->busy = false;
			return;
		}
		if (tasks[next].runnable_at > c->now)
			c->now = tasks[next].runnable_at;
		ev_switch(ci, c->now, -1, 0, next);
		c->now += between(500, 1200);
		c->cur = next;
		tasks[next].st = T_RUNNING;
		tasks[next].ran_since = c->now;
		resume(ci);
		return;
	}
	t = &tasks[c->cur];
	if (c->rq_len && c->now - t->ran_since > 4000000) {	/* preempted */
		int prev = c->cur;

		t->st = T_QUEUED;
		rq_push(c, prev);
		switch_out(ci, 0);
		return;
	}
	if (chance(1) && chance(20)) {		/* a network interrupt */
		ev_irq(ci, c->now, 33, "eth0-rx-0", between(1500, 6000));
		c->now += 8000;
	}
	act(ci);
}

/* ---- the run ---------------------------------------------------------- */

static void setup(void)
{
	int i, ci = 0;

	/* nginx: a master (sleeping, never runs) and 4 workers */
	add_task(2100, 2100, "nginx", K_IDLE, 120, 0);
	for (i = 0; i < 4; i++)
		add_task(2101 + i, 2101 + i, "nginx", K_SERVER, 120, ci++ % nr_cpus);
	/* postgres: 4 backends */
	for (i = 0; i < 4; i++)
		add_task(3101 + i, 3101 + i, "postgres", K_DB, 120, ci++ % nr_cpus);
	/* redis: one event loop, two io threads */
	for (i = 0; i < 3; i++)
		add_task(4100 + i, 4100, i ? "io_thd" : "redis-server", K_CACHE, 120,
			 ci++ % nr_cpus);
	add_task(5100, 5100, "getppid_n", K_STORM, 120, ci++ % nr_cpus);
	add_task(6100, 6100, "bash", K_SHELL, 120, ci++ % nr_cpus);
	add_task(77, 77, "kworker/u8:1", K_KWORKER, 120, ci++ % nr_cpus);
	for (i = 0; i < nr_tasks; i++) {
		struct task *t = &tasks[i];

		if (t->kind == K_IDLE) {
			t->st = T_GONE;
			continue;
		}
		/* everyone starts asleep, waking within the first 2 ms */
		t->st = T_SLEEPING;
		t->wake_at = 1000000000ull + between(1000, 2000000);
	}
	for (i = 0; i < nr_cpus; i++) {
		cpus[i].now = 1000000000ull;
		cpus[i].cur = -1;
	}
}

/* The next thing to happen: a busy CPU's step (*kind 0, *who = cpu), a
 * sleeper's wake-up (1, task) or an I/O completion (2, io index). */
static uint64_t next_thing(int *kind, int *who)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < nr_cpus; i++)
		if (cpus[i].busy && cpus[i].now < best) {
			best = cpus[i].now;
			*kind = 0;
			*who = i;
		}
	if (live_dirty) {
		for (nr_live = 0, i = 0; i < nr_tasks; i++)
			if (tasks[i].st != T_GONE)
				live[nr_live++] = i;
		live_dirty = false;
	}
	for (i = 0; i < nr_live; i++)
		if (tasks[live[i]].st == T_SLEEPING && tasks[live[i]].wake_at < best) {
			best = tasks[live[i]].wake_at;
			*kind = 1;
			*who = live[i];
		}
	for (i = 0; i < nr_ios; i++)
		if (ios[i].at < best) {
			best = ios[i].at;
			*kind = 2;
			*who = i;
		}
	return best;
}

/* at, or cpu ci's time if later (its events' times never go backwards) */
static uint64_t later(uint64_t at, int ci)
{
	if (at < cpus[ci].now)
		at = cpus[ci].now;
	if (out[ci].open && at < out[ci].last_ts)
		at = out[ci].last_ts;
	return at;
}

static void run(uint64_t want)
{
	int kind = 0, who = 0;
	uint64_t at;

	while (nr_events < want) {
		at = next_thing(&kind, &who);
		if (at == UINT64_MAX)
			break;
		if (kind == 0) {
			cpu_step(who);
		} else if (kind == 1) {
			struct task *t = &tasks[who];
			int ci = t->cpu;
			uint64_t ts = later(at, ci);

			if (chance(2))		/* the local timer */
				ev_irq(ci, ts, 236, "timer", between(800, 3000));
			wake(ci, ts + 4000, who, ID_WAKEUP);
			if (cpus[ci].busy && cpus[ci].now < ts + 5000)
				cpus[ci].now = ts + 5000;
		} else {
			struct io io = ios[who];
			int ci = 0;
			uint64_t ts = later(at, ci);

			ios[who] = ios[--nr_ios];
			ev_irq_entry(ci, ts, 24, "nvme0q1");
			ev_rq_complete(ci, ts + 1500, &io);
			wake(ci, ts + 2500, io.task, ID_WAKEUP);
			ev_irq_exit(ci, ts + 4000, 24);
			if (cpus[ci].busy && cpus[ci].now < ts + 6000)
				cpus[ci].now = ts + 6000;
		}
	}
}

static const char model_table[] =
	"strobe-model 1\n"
	"C\t2\tpodman\t1f0c6a5e6b2d4c3a9e8f7d6c5b4a39281f0c6a5e6b2d4c3a9e8f7d6c5b4a3928\tweb\t\n"
	"C\t3\tpodman\t2a1b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809\tdb\t\n"
	"C\t4\tdocker\t3b2c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a\tcache\t\n";

static char *make_model(void)
{
	size_t cap = sizeof(model_table) + (size_t)nr_tasks * 128, off;
	char *s = malloc(cap);
	int i;

	if (!s)
		return NULL;
	off = (size_t)snprintf(s, cap, "%s", model_table);
	for (i = 0; i < nr_tasks; i++) {
		const struct task *t = &tasks[i];
		int cont = t->tid >= 4100 && t->tid < 4200 ? 4 : t->tid >= 3100 && t->tid < 3200 ? 3 :
			   t->tid >= 2100 && t->tid < 2200 ? 2 : 1;

		if (t->kind == K_CHILD)
			continue;
		off += (size_t)snprintf(s + off, cap - off,
					"T\t%d\t%d\t%d\t%s\t%d\t\t\t0\t0\t0\t0\t\n", t->tid, t->tgid,
					t->kind == K_IDLE || cont == 1 ? 1 : tasks[0].tid, t->comm,
					cont);
	}
	return s;
}

static char *make_cmdlines(void)
{
	size_t cap = (size_t)nr_tasks * 32 + 1, off = 0;
	char *s = malloc(cap);
	int i;

	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < nr_tasks; i++)
		off += (size_t)snprintf(s + off, cap - off, "%d %s\n", tasks[i].tid, tasks[i].comm);
	return s;
}

static void usage(void)
{
	fprintf(stderr, "usage: synth-trace [-n EVENTS] [-c CPUS] [-s SEED] [-r RECORDS] "
		"OUT.dat\n");
	exit(2);
}

/* ---- records that are not ftrace events (-r) --------------------------- */

static const struct strobe_field_decl sample_fields[] = {
	{ "u32", "seq", 8, 4, false },
	{ "s32", "tid", 12, 4, true },
	{ "u64", "period", 16, 8, false },
	{ "__data_loc u64[]", "callchain", 24, 4, false },
};
static const struct strobe_field_decl open_fields[] = {
	{ "u32", "seq", 8, 4, false },
	{ "s32", "ret", 12, 4, true },
	{ "__data_loc char[]", "path", 16, 4, false },
};

/* Declare the two formats into t's catalogue; their ids in ids[2]. */
static int declare_records(struct strobe_tep *t, int ids[2], struct strobe_error *err)
{
	struct strobe_format_decl ds = { sizeof(ds), "strobe_synth", "sample", sample_fields, 4 };
	struct strobe_format_decl dopen = { sizeof(dopen), "strobe_synth", "open", open_fields, 3 };

	ids[0] = strobe_formats_declare(t->formats, &ds, NULL, err);
	if (ids[0] < 0)
		return ids[0];
	ids[1] = strobe_formats_declare(t->formats, &dopen, NULL, err);
	return ids[1] < 0 ? ids[1] : 0;
}

/* Record i of n between first and last: every third an open, the rest
 * samples; on CPU i % nr_cpus, by a task of the simulation. */
static int pack_records(struct tf_packer *pk, const int ids[2], uint64_t n, uint64_t first,
			uint64_t last, struct strobe_error *err)
{
	static const char *const paths[] = { "/etc/hosts", "/var/lib/db/base/16384/2619",
					     "/tmp/missing" };
	uint8_t d[128];
	uint64_t i;
	int k, r;

	for (i = 0; i < n; i++) {
		uint64_t ts = first + (last - first) / (n + 1) * (i + 1) + 1;
		const struct task *t = &tasks[i % (uint64_t)nr_tasks];
		uint32_t size;

		memset(d, 0, sizeof(d));
		memcpy(d + 4, &t->tid, 4);
		memcpy(d + 8, &(uint32_t){ (uint32_t)i }, 4);
		if (i % 3 == 2) {
			const char *p = paths[i / 3 % 3];
			uint32_t len = (uint32_t)strlen(p) + 1;
			int32_t ret = i / 3 % 3 == 2 ? -2 : 3;

			memcpy(d, &(uint16_t){ (uint16_t)ids[1] }, 2);
			memcpy(d + 12, &ret, 4);
			memcpy(d + 16, &(uint32_t){ 20u | len << 16 }, 4);
			memcpy(d + 20, p, len);
			size = 20 + len;
		} else {
			int depth = 1 + (int)(i % 4);

			memcpy(d, &(uint16_t){ (uint16_t)ids[0] }, 2);
			memcpy(d + 12, &t->tid, 4);
			memcpy(d + 16, &(uint64_t){ 10101010 }, 8);
			memcpy(d + 24, &(uint32_t){ 32u | (uint32_t)(8 * depth) << 16 }, 4);
			for (k = 0; k < depth; k++)
				memcpy(d + 32 + 8 * k,
				       &(uint64_t){ 0xffffffff81000000ull + 0x100 * (i % 7) + 0x10 * (uint64_t)k }, 8);
			size = 32 + 8 * (uint32_t)depth;
		}
		r = tf_packer_add(pk, (int)(i % (uint64_t)nr_cpus), ts, d, size, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct strobe_tf_meta m = { 0 };
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	uint64_t want = 1000000, seed = 20, nr_records = 0;
	struct strobe_tep t = { 0 };
	struct tf_packer *pk = NULL;
	struct strobe_tf_format *all = NULL;
	const char *bufname = "strobe_synth";
	size_t nr_all;
	int ids[2] = { 0, 0 };
	char *cpustats[MAX_CPUS], *model, *cmdlines, info[512], *end;
	uint64_t first = 1000000000ull, last = 0;
	const char *path;
	int c, i;

	while ((c = getopt(argc, argv, "n:c:s:r:")) != -1) {
		switch (c) {
		case 'n':
			want = strtoull(optarg, &end, 10);
			if (*end || !want)
				usage();
			break;
		case 'c':
			nr_cpus = (int)strtol(optarg, &end, 10);
			if (*end || nr_cpus < 1 || nr_cpus > MAX_CPUS)
				usage();
			break;
		case 's':
			seed = strtoull(optarg, &end, 10);
			if (*end)
				usage();
			break;
		case 'r':
			nr_records = strtoull(optarg, &end, 10);
			if (*end)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	path = argv[optind];
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	for (i = 0; i < nr_cpus; i++) {
		char tmpl[] = "/tmp/strobe-synth-XXXXXX";

		out[i].fd = mkstemp(tmpl);
		if (out[i].fd < 0) {
			perror("synth-trace: mkstemp");
			return 1;
		}
		unlink(tmpl);
	}
	setup();
	run(want);
	for (i = 0; i < nr_cpus; i++) {
		if (out[i].last_ts > last)
			last = out[i].last_ts;
		flush_page(&out[i]);
	}
	for (i = 0; i < nr_cpus; i++)
		if (asprintf(&cpustats[i], "entries: 0\noverrun: 0\ncommit overrun: 0\n"
			     "bytes: 0\noldest event ts: %llu.%06llu\nnow ts: %llu.%06llu\n"
			     "dropped events: 0\nread events: %llu\n",
			     (unsigned long long)(first / 1000000000),
			     (unsigned long long)(first % 1000000000 / 1000),
			     (unsigned long long)(last / 1000000000),
			     (unsigned long long)(last % 1000000000 / 1000),
			     (unsigned long long)out[i].events) < 0)
			return 1;
	/* trace clock 1 s = wall clock 2024-06-01 12:00:00 UTC */
	snprintf(info, sizeof(info),
		 "host=synth\nclock_sync_start=%llu %llu 500\nclock_sync_end=%llu %llu 500\n"
		 "target=system\ncommand=synth-trace -n %llu -c %d -s %llu\n",
		 (unsigned long long)first, 1717243200000000000ull, (unsigned long long)last,
		 1717243200000000000ull + (last - first), (unsigned long long)want, nr_cpus,
		 (unsigned long long)seed);
	model = make_model();
	cmdlines = make_cmdlines();
	if (!model || !cmdlines)
		return 1;
	m.page_size = PS;
	m.long_size = 8;
	m.header_page = (struct strobe_tf_blob){ header_page, sizeof(header_page) - 1 };
	m.header_event = (struct strobe_tf_blob){ header_event, sizeof(header_event) - 1 };
	m.formats = formats;
	m.nr_formats = sizeof(formats) / sizeof(formats[0]);
	m.cmdlines = (struct strobe_tf_blob){ cmdlines, strlen(cmdlines) };
	m.clock = "local";
	m.uname = "Linux 6.18.0 #1 x86_64";
	m.cpustats = (const char *const *)cpustats;
	m.strobe_info = info;
	if (nr_records) {
		/* declared into a catalogue of the file's own formats, so
		 * their ids follow the file's */
		if (strobe_tep_from_meta(&t, &m, &err) || declare_records(&t, ids, &err) ||
		    tf_formats_with_declared(&m, t.formats, &all, &nr_all, &err))
			goto fail;
		m.formats = all;
		m.nr_formats = nr_all;
	}
	if (tf_writer_open_buffers(path, &m, nr_cpus, &bufname, nr_records ? 1 : 0, &w, &err))
		goto fail;
	for (i = 0; i < nr_cpus; i++)
		if (strobe_tf_writer_add_cpu(w, i, out[i].fd, UINT64_MAX, false, &err))
			goto fail;
	if (nr_records &&
	    (tf_packer_new(path, PS, 8, nr_cpus, &pk, &err) ||
	     pack_records(pk, ids, nr_records, first, last, &err) ||
	     tf_packer_add_to(pk, w, 0, &err)))
		goto fail;
	if (strobe_tf_writer_add_model(w, model, strlen(model), &err))
		goto fail;
	if (strobe_tf_writer_close(w, (const char *const *)cpustats, info, &err)) {
		w = NULL;
		goto fail;
	}
	printf("%s: %llu events on %d CPUs, %.3f s of trace time\n", path,
	       (unsigned long long)nr_events, nr_cpus, (double)(last - first) / 1e9);
	if (nr_records)
		printf("%s: %llu records in buffer %s\n", path, (unsigned long long)nr_records,
		       bufname);
	tf_packer_free(pk);
	free(all);
	strobe_tep_release(&t);
	return 0;
fail:
	fprintf(stderr, "synth-trace: %s\n", err.msg);
	strobe_tf_writer_discard(w);
	tf_packer_free(pk);
	free(all);
	strobe_tep_release(&t);
	return 1;
}
