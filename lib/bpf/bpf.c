/*
 * bpf.c - the BPF source (bpf.h): load and attach the snoop programs
 * (snoop.bpf.c, embedded as a bpftool skeleton), and hand their ring
 * buffer's records to the pipeline in time order.
 *
 * The lifecycle is libbpf-tools': open the skeleton, set the read-only
 * filters (targets, -x, the clock), load, attach each program (a
 * tracepoint this kernel lacks, such as open(2) on arm64, is skipped
 * unless the source has no other way to see the calls), then poll the
 * ring buffer.  Nothing is pinned: every program, map and link is a
 * file descriptor of this process, so strobe_bpf_close, exit or SIGKILL
 * removes them all.
 *
 * Order: the ring buffer is one queue for every CPU in the order records
 * were submitted, and a record's time is read a little before its
 * submission; so the source drains the ring into a queue, sorts what is
 * new, and hands out only what is older than the clock's reading before
 * the drain minus HOLD_NS: a record still on its way cannot be older
 * than that.  The pipeline waits for the tracefs stream's CPUs the same
 * way (idle_until tells it how far this source has come).
 *
 * libbpf's messages go to a buffer, never to the terminal: the last one
 * ends an error message that needs it (a verifier's refusal).
 *
 * Without STROBE_HAVE_BPF (the build found no libbpf, clang, bpftool or
 * BTF) the same functions exist and strobe_bpf_open says BPF support was
 * not built.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/pipeline.h>
#include <strobe/bpf.h>

#include "../util/err.h"
#include "../util/opts.h"
#include "snoop.h"
#include "bpf-int.h"

#ifdef STROBE_HAVE_BPF
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "snoop.skel.h"
#endif

#define HOLD_NS 2000000ull

struct qrec {
	uint64_t ts;
	uint64_t seq;		/* arrival: ties keep it */
	size_t off;		/* payload in data */
	uint32_t size;
	int cpu;
};

struct strobe_bpf {
	unsigned programs;
	clockid_t clock;
	int ids[BPF_NR_KINDS];	/* declared format ids, -1 none */
	bool declared;
#ifdef STROBE_HAVE_BPF
	struct strobe_snoop *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	int nr_links;
	/* the "lost" map as last read (per CPU), and what is still to be
	 * said as a record's ev->missed on that CPU */
	__u64 *lost_seen, *lost_now;
	int64_t *lost_due;
	int lost_n;
	uint64_t lost_at;	/* when it was read (the clock's ns), 0 never */
#endif
	/* records drained from the ring, not handed out yet: q[qhead..nq) */
	struct qrec *q;
	size_t nq, qhead, qcap;
	uint8_t *data;
	size_t dlen, dcap;
	uint64_t seq;
	uint64_t safe;		/* handed out up to here (the clock's ns) */
	uint64_t since;		/* records before this are dropped */
	uint64_t records, bad;
	int last_decode;	/* the last record's decode answer */
};

bool strobe_bpf_built(void)
{
#ifdef STROBE_HAVE_BPF
	return true;
#else
	return false;
#endif
}

int strobe_bpf_declare(struct strobe_bpf *b, struct strobe_formats *f,
		       struct strobe_error *err)
{
	int ids[BPF_NR_KINDS], r, i;

	if (!f)
		return strobe_err(err, -EINVAL, "no catalogue to declare BPF formats into");
	r = bpf_declare_programs(f, b ? b->programs : STROBE_BPF_ALL, ids, err);
	if (r < 0 || !b)
		return r;
	for (i = 0; i < BPF_NR_KINDS; i++)
		b->ids[i] = ids[i];
	b->declared = true;
	return 0;
}

#ifdef STROBE_HAVE_BPF

/* ---- the queue ------------------------------------------------------------ */

static int queue_add(struct strobe_bpf *b, const void *rec, size_t len)
{
	uint64_t ts;
	uint32_t size;
	int cpu, r;

	if (b->nq == b->qcap) {
		size_t n = b->qcap ? b->qcap * 2 : 256;
		struct qrec *q = realloc(b->q, n * sizeof(*q));

		if (!q)
			return -ENOMEM;
		b->q = q;
		b->qcap = n;
	}
	if (b->dlen + len > b->dcap) {
		size_t n = b->dcap ? b->dcap : 65536;
		uint8_t *d;

		while (n < b->dlen + len)
			n *= 2;
		d = realloc(b->data, n);
		if (!d)
			return -ENOMEM;
		b->data = d;
		b->dcap = n;
	}
	r = bpf_decode_with(b->ids, rec, len, b->data + b->dlen, b->dcap - b->dlen, &ts, &cpu,
			    &size);
	b->last_decode = r;
	if (r <= 0) {
		b->bad++;
		return 0;	/* not one of ours: skipped, counted */
	}
	if (ts < b->since)
		return 0;	/* from before strobe_bpf_records */
	b->q[b->nq++] = (struct qrec){ ts, b->seq++, b->dlen, size, cpu };
	b->dlen += (size + 7) & ~7u;
	return 0;
}

static int qrec_cmp(const void *a, const void *b)
{
	const struct qrec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* libbpf's last message, for errors (libbpf prints nothing itself). */
static __thread char libbpf_msg[256];

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(libbpf_msg, sizeof(libbpf_msg), fmt, ap);
	n = strlen(libbpf_msg);
	while (n && (libbpf_msg[n - 1] == '\n' || libbpf_msg[n - 1] == ' '))
		libbpf_msg[--n] = '\0';
	return 0;
}

static int on_sample(void *ctx, void *data, size_t len)
{
	return queue_add(ctx, data, len);
}

#define LOST_CHECK_NS 100000000ull

/*
 * Records the kernel side could not reserve (the "lost" map, per CPU),
 * read at most every LOST_CHECK_NS: what is new is said as the next
 * handed-out record's ev->missed on that CPU, so a recording marks the
 * page it lands on (strobe-tracefile(3)).
 */
static void check_lost(struct strobe_bpf *b, uint64_t now)
{
	__u32 zero = 0;
	int i;

	if (b->lost_at && now - b->lost_at < LOST_CHECK_NS)
		return;
	b->lost_at = now;
	if (!b->lost_n) {
		int n = libbpf_num_possible_cpus();

		if (n <= 0)
			return;
		b->lost_seen = calloc((size_t)n, sizeof(*b->lost_seen));
		b->lost_now = calloc((size_t)n, sizeof(*b->lost_now));
		b->lost_due = calloc((size_t)n, sizeof(*b->lost_due));
		if (!b->lost_seen || !b->lost_now || !b->lost_due)
			return;
		b->lost_n = n;
	}
	if (bpf_map__lookup_elem(b->skel->maps.lost, &zero, sizeof(zero), b->lost_now,
				 (size_t)b->lost_n * sizeof(*b->lost_now), 0) != 0)
		return;
	for (i = 0; i < b->lost_n; i++)
		if (b->lost_now[i] > b->lost_seen[i]) {
			b->lost_due[i] += (int64_t)(b->lost_now[i] - b->lost_seen[i]);
			b->lost_seen[i] = b->lost_now[i];
		}
}

/* Drain the ring into the queue and sort what is new.  0 or -errno. */
static int refill(struct strobe_bpf *b, struct strobe_error *err)
{
	uint64_t before = clock_ns(b->clock);
	size_t first;
	int r;

	/* drop what was handed out */
	if (b->qhead == b->nq) {
		b->nq = b->qhead = 0;
		b->dlen = 0;
	} else if (b->qhead > 0) {
		size_t base = b->q[b->qhead].off, i;

		for (i = b->qhead; i < b->nq; i++)
			if (b->q[i].off < base)
				base = b->q[i].off;
		memmove(b->data, b->data + base, b->dlen - base);
		b->dlen -= base;
		memmove(b->q, b->q + b->qhead, (b->nq - b->qhead) * sizeof(*b->q));
		b->nq -= b->qhead;
		b->qhead = 0;
		for (i = 0; i < b->nq; i++)
			b->q[i].off -= base;
	}
	first = b->nq;
	r = ring_buffer__consume(b->rb);
	if (r < 0)
		return strobe_err(err, r, "reading the BPF ring buffer: %s", strerror(-r));
	if (b->nq > first || first)
		qsort(b->q, b->nq, sizeof(*b->q), qrec_cmp);
	check_lost(b, before);
	if (before > HOLD_NS && before - HOLD_NS > b->safe)
		b->safe = before - HOLD_NS;
	return 0;
}

static int rs_next(void *ctx, struct strobe_event *ev, struct strobe_error *err)
{
	struct strobe_bpf *b = ctx;
	uint64_t bad = b->bad;
	struct qrec *q;
	int r;

	if (b->qhead == b->nq || b->q[b->qhead].ts > b->safe) {
		r = refill(b, err);
		if (r < 0)
			return r;
		if (b->bad > bad)
			return strobe_err(err, -EBADMSG, "%llu BPF record%s not understood: "
					  "skipped", (unsigned long long)(b->bad - bad),
					  b->bad - bad == 1 ? "" : "s");
	}
	if (b->qhead == b->nq || b->q[b->qhead].ts > b->safe)
		return -EAGAIN;
	q = &b->q[b->qhead++];
	memset(ev, 0, sizeof(*ev));
	ev->ts = q->ts;
	ev->cpu = q->cpu;
	ev->data = b->data + q->off;
	ev->size = q->size;
	if (q->cpu >= 0 && q->cpu < b->lost_n && b->lost_due[q->cpu]) {
		ev->missed = b->lost_due[q->cpu];
		b->lost_due[q->cpu] = 0;
	}
	b->records++;
	return 1;
}

static uint64_t rs_idle_until(void *ctx)
{
	struct strobe_bpf *b = ctx;

	return b->qhead < b->nq && b->q[b->qhead].ts <= b->safe ? b->q[b->qhead].ts : b->safe;
}

void strobe_bpf_records(struct strobe_bpf *b, struct strobe_record_source *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->size = sizeof(*rs);
	rs->name = "bpf";
	rs->next = rs_next;
	rs->idle_until = rs_idle_until;
	rs->ctx = b;
	b->since = clock_ns(b->clock);
}

/* The cgroup v2 mount point (the unified hierarchy, wherever it is). */
static int cgroup2_mount(char *out, size_t size, struct strobe_error *err)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[2048], fstype[64];
	int found = 0;

	if (!f)
		return strobe_err(err, -errno, "cannot read /proc/self/mountinfo: %s",
				  strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(dash, " - %63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %2047s", mnt) == 1) {
			snprintf(out, size, "%s", mnt);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : strobe_err(err, -ENOTSUP, "no cgroup v2 hierarchy is mounted: "
				      "containers cannot be filtered in the kernel");
}

/* The cgroup v2 id and depth of task pid. */
static int cgroup_of(pid_t pid, const char *mnt, uint64_t *id, uint32_t *level,
		     struct strobe_error *err)
{
	char path[64], line[4096], full[6144];
	const char *p, *cg = NULL;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return strobe_err(err, errno == ENOENT ? -ESRCH : -errno, "%s: %s", path,
				  strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			cg = line + 3;
			break;
		}
	fclose(f);
	if (!cg || !*cg)
		return strobe_err(err, -ENOTSUP, "task %d has no cgroup v2: its container "
				  "cannot be filtered in the kernel", (int)pid);
	if (!strcmp(cg, "/"))
		return strobe_err(err, -ENOTSUP, "task %d is in the root cgroup v2: its "
				  "container cannot be filtered in the kernel", (int)pid);
	snprintf(full, sizeof(full), "%s%s", mnt, cg);
	if (stat(full, &st) < 0)
		return strobe_err(err, -errno, "%s: %s", full, strerror(errno));
	*id = (uint64_t)st.st_ino;
	*level = 0;
	for (p = cg; *p; p++)
		if (*p == '/' && p[1])
			(*level)++;
	return 0;
}

static int fail_load(int r, const char *what, struct strobe_error *err)
{
	if (r == -EPERM || r == -EACCES)
		return strobe_err(err, -EPERM, "not allowed to %s BPF programs (root, or "
				  "CAP_BPF and CAP_PERFMON, is needed)", what);
	return strobe_err(err, r, "cannot %s the BPF programs: %s%s%s", what, strerror(-r),
			  libbpf_msg[0] ? ": libbpf: " : "", libbpf_msg);
}

/* Is this program one the options ask for, and may it be missing? */
static bool wanted(const struct strobe_bpf *b, const char *name, bool pids, bool *optional)
{
	*optional = false;
	if (!strcmp(name, "fork_follow") || !strcmp(name, "exit_forget"))
		return pids;
	if (!strncmp(name, "open_", 5)) {
		*optional = strcmp(name, "open_at_exit");
		return b->programs & STROBE_BPF_OPEN;
	}
	if (!strncmp(name, "exec_", 5)) {
		*optional = strcmp(name, "exec_ve") && strcmp(name, "exec_ve_exit");
		return b->programs & STROBE_BPF_EXEC;
	}
	if (!strncmp(name, "sync_", 5)) {
		*optional = strcmp(name, "sync_fsync") && strcmp(name, "sync_fsync_exit");
		return b->programs & STROBE_BPF_SYNC;
	}
	if (!strcmp(name, "tcp_retrans"))
		return b->programs & STROBE_BPF_TCP;
	return false;
}

int strobe_bpf_open(const struct strobe_bpf_opts *opts, struct strobe_bpf **out,
		    struct strobe_error *err)
{
	struct strobe_bpf_opts o;
	struct strobe_bpf *b;
	struct bpf_program *prog;
	char mnt[2048];
	size_t i;
	int r, nprog = 0;

	strobe_err_clear(err);
	*out = NULL;
	memset(&o, 0, sizeof(o));
	if (opts)
		strobe_opts_copy(&o, sizeof(o), opts);
	if (o.nr_cgroup_of > SNOOP_CGROUPS_MAX)
		return strobe_err(err, -EINVAL, "at most %d containers", SNOOP_CGROUPS_MAX);
	if (o.ring_kb && (o.ring_kb & (o.ring_kb - 1)))
		return strobe_err(err, -EINVAL, "the ring buffer's size is a power of two, "
				  "not %u KiB", o.ring_kb);
	b = calloc(1, sizeof(*b));
	if (!b)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < BPF_NR_KINDS; i++)
		b->ids[i] = -1;
	b->programs = o.programs ? o.programs & STROBE_BPF_ALL : STROBE_BPF_ALL;
	if (!o.clock || !strcmp(o.clock, "mono")) {
		b->clock = CLOCK_MONOTONIC;
	} else if (!strcmp(o.clock, "boot")) {
		b->clock = CLOCK_BOOTTIME;
	} else {
		free(b);
		return strobe_err(err, -EINVAL, "BPF records cannot be on the '%s' trace clock "
				  "(mono or boot)", o.clock);
	}
	libbpf_set_print(libbpf_quiet);
	libbpf_msg[0] = '\0';
	b->skel = strobe_snoop__open();
	if (!b->skel) {
		r = fail_load(-errno, "open", err);
		goto fail;
	}
	b->skel->rodata->self_tgid = (__u32)getpid();
	b->skel->rodata->filter_pids = o.pids;
	b->skel->rodata->failed_only = o.failed_only;
	b->skel->rodata->full_path = o.full_path;
	b->skel->rodata->boot_clock = b->clock == CLOCK_BOOTTIME;
	if (o.nr_cgroup_of) {
		r = cgroup2_mount(mnt, sizeof(mnt), err);
		for (i = 0; r == 0 && i < o.nr_cgroup_of; i++) {
			uint64_t id = 0;
			uint32_t level = 0;

			r = cgroup_of(o.cgroup_of[i], mnt, &id, &level, err);
			b->skel->rodata->targ_cgroup_ids[i] = id;
			b->skel->rodata->targ_cgroup_levels[i] = level;
		}
		if (r < 0)
			goto fail;
		b->skel->rodata->nr_cgroups = (__u32)o.nr_cgroup_of;
	}
	if (o.ring_kb &&
	    (r = bpf_map__set_max_entries(b->skel->maps.events, o.ring_kb * 1024u)) < 0) {
		r = fail_load(r, "size", err);
		goto fail;
	}
	bpf_object__for_each_program(prog, b->skel->obj) {
		bool opt;

		if (!wanted(b, bpf_program__name(prog), o.pids, &opt))
			bpf_program__set_autoload(prog, false);
		else
			nprog++;
	}
	r = strobe_snoop__load(b->skel);
	if (r < 0) {
		r = fail_load(r, "load", err);
		goto fail;
	}
	b->links = calloc((size_t)nprog, sizeof(*b->links));
	if (!b->links) {
		r = strobe_err(err, -ENOMEM, "out of memory");
		goto fail;
	}
	bpf_object__for_each_program(prog, b->skel->obj) {
		struct bpf_link *l;
		bool opt;

		if (!wanted(b, bpf_program__name(prog), o.pids, &opt))
			continue;
		l = bpf_program__attach(prog);
		if (!l) {
			r = -errno;
			if (opt && r == -ENOENT)
				continue;	/* a call this kernel does not have */
			r = strobe_err(err, r, "cannot attach BPF program %s (%s): %s",
				       bpf_program__name(prog), bpf_program__section_name(prog),
				       strerror(-r));
			goto fail;
		}
		b->links[b->nr_links++] = l;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), on_sample, b, NULL);
	if (!b->rb) {
		r = strobe_err(err, -errno, "cannot open the BPF ring buffer: %s",
			       strerror(errno));
		goto fail;
	}
	*out = b;
	return 0;
fail:
	strobe_bpf_close(b);
	return r;
}

int strobe_bpf_add_pid(struct strobe_bpf *b, pid_t pid, struct strobe_error *err)
{
	__u32 key = (__u32)pid;
	__u8 one = 1;

	if (!b || pid <= 0)
		return strobe_err(err, -EINVAL, "no process to add");
	if (!b->skel->rodata->filter_pids)
		return strobe_err(err, -EINVAL, "the BPF source was opened without a PID filter");
	if (bpf_map__update_elem(b->skel->maps.pids, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY) < 0)
		return strobe_err(err, -errno, "cannot add process %d to the BPF filter: %s",
				  (int)pid, strerror(errno));
	return 0;
}

void strobe_bpf_stats(const struct strobe_bpf *b, struct strobe_bpf_stats *st)
{
	int n = libbpf_num_possible_cpus(), i;
	__u32 zero = 0;

	memset(st, 0, sizeof(*st));
	if (!b)
		return;
	st->records = b->records;
	if (n > 0 && b->skel) {
		__u64 *v = calloc((size_t)n, sizeof(*v));

		if (v && bpf_map__lookup_elem(b->skel->maps.lost, &zero, sizeof(zero), v,
					      (size_t)n * sizeof(*v), 0) == 0)
			for (i = 0; i < n; i++)
				st->lost += v[i];
		free(v);
	}
}

void strobe_bpf_close(struct strobe_bpf *b)
{
	int i;

	if (!b)
		return;
	ring_buffer__free(b->rb);
	for (i = 0; i < b->nr_links; i++)
		bpf_link__destroy(b->links[i]);
	free(b->links);
	strobe_snoop__destroy(b->skel);
	free(b->lost_seen);
	free(b->lost_now);
	free(b->lost_due);
	free(b->q);
	free(b->data);
	free(b);
}

#else	/* !STROBE_HAVE_BPF */

int strobe_bpf_open(const struct strobe_bpf_opts *opts, struct strobe_bpf **out,
		    struct strobe_error *err)
{
	(void)opts;
	*out = NULL;
	return strobe_err(err, -ENOTSUP, "strobe was built without BPF support (libbpf, "
			  "clang, bpftool or the kernel's BTF were missing)");
}

int strobe_bpf_add_pid(struct strobe_bpf *b, pid_t pid, struct strobe_error *err)
{
	(void)b;
	(void)pid;
	return strobe_err(err, -ENOTSUP, "strobe was built without BPF support");
}

static int rs_none(void *ctx, struct strobe_event *ev, struct strobe_error *err)
{
	(void)ctx;
	(void)ev;
	(void)err;
	return 0;
}

void strobe_bpf_records(struct strobe_bpf *b, struct strobe_record_source *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->size = sizeof(*rs);
	rs->name = "bpf";
	rs->next = rs_none;
	rs->ctx = b;
}

void strobe_bpf_stats(const struct strobe_bpf *b, struct strobe_bpf_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (b)
		st->records = b->records;
}

void strobe_bpf_close(struct strobe_bpf *b)
{
	if (!b)
		return;
	free(b->q);
	free(b->data);
	free(b);
}

#endif
