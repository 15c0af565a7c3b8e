/*
 * perf.c - the perf sampling source (profile.h): perf_event_open events
 * with call chains, one mmap ring per CPU, drained into a time-ordered
 * queue of strobe_perf:sample records for the pipeline.
 *
 * Events: one per CPU for the whole system or per (cgroup, CPU) with
 * PERF_FLAG_PID_CGROUP; for a process, one per (thread, CPU) with
 * inherit, so its future threads and children are sampled too (an
 * inherited per-task event needs a CPU to be mmapped).  Every event of a
 * CPU writes into that CPU's first event's ring (PERF_EVENT_IOC_SET_OUTPUT).
 * Samples are stamped with CLOCK_MONOTONIC (use_clockid), the clock of
 * strobe's "mono" trace clock.
 *
 * Order: each ring is in time order, the rings together are not; so, as
 * the BPF source does, the source notes the clock before draining every
 * ring, sorts what is new, and hands out only what is older than that
 * reading minus HOLD_NS (a sample stamped earlier is in its ring by then).
 *
 * Side-band records (MMAP2, COMM of an exec, FORK) go to the symbol
 * finder as they are drained, and (sample_id_all stamps them) become
 * records too, strobe_perf:mmap, strobe_perf:exec and strobe_perf:fork,
 * in the same time order as the samples: stored in a recording
 * (strobe record --profile) they let a reader of the file name user
 * frames after the processes are gone (strobe_profile_opts.replay_maps).
 * LOST records are counted, and their count is the next record's
 * ev->missed on that CPU (a stored recording marks its page).
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/pipeline.h>
#include <strobe/profile.h>
#include <strobe/symbols.h>

#include "util/err.h"

#define HOLD_NS 20000000ull	/* 20 ms */
#define MAX_CHAIN 512u
#define PAYLOAD_FIXED 24u	/* header 8, tgid 4, callchain loc 4, period 8 */

static const struct strobe_field_decl sample_fields[] = {
	{ "s32", "tgid", 8, 4, true },
	{ "__data_loc u64[]", "callchain", 12, 4, false },
	{ "u64", "period", 16, 8, false },
};

/* Side-band records as records: a mapping, an exec, a fork. */
static const struct strobe_field_decl mmap_fields[] = {
	{ "s32", "tgid", 8, 4, true },
	{ "__data_loc char[]", "path", 12, 4, false },
	{ "u64", "start", 16, 8, false },
	{ "u64", "len", 24, 8, false },
	{ "u64", "pgoff", 32, 8, false },
	{ "u64", "ino", 40, 8, false },
};
static const struct strobe_field_decl exec_fields[] = {
	{ "s32", "tgid", 8, 4, true },
};
static const struct strobe_field_decl fork_fields[] = {
	{ "s32", "tgid", 8, 4, true },
	{ "s32", "parent", 12, 4, true },
};
/* sample_id_all's trailer with our sample_type: pid, tid, time, cpu, res */
#define SAMPLE_ID_SIZE 24u

struct qrec {
	uint64_t ts;
	size_t off;		/* in data */
	uint32_t size;
	int cpu;
};

struct ring {
	int fd;			/* the CPU's first event: owns the ring */
	void *base;		/* header page + data */
	size_t data_size;
	int cpu;
};

struct strobe_perf {
	struct strobe_perf_opts o;
	int *fds;
	int nfds, fds_cap;
	struct ring *rings;
	int nrings;
	int format_id;
	int mmap_id, exec_id, fork_id;	/* -1: not declared */
	int64_t *lost;		/* per CPU: for the next record's ev->missed */
	struct qrec *q;
	size_t nq, qcap, qhead;
	uint8_t *data;
	size_t dlen, dcap;
	uint8_t *tmp;		/* a record that wraps the ring */
	size_t tmp_cap;
	uint64_t safe;
	struct strobe_perf_stats st;
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, a, pid, cpu, group, flags);
}

static int add_fd(struct strobe_perf *p, int fd)
{
	if (p->nfds == p->fds_cap) {
		int cap = p->fds_cap ? p->fds_cap * 2 : 16;
		int *v = realloc(p->fds, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->fds = v;
		p->fds_cap = cap;
	}
	p->fds[p->nfds++] = fd;
	return 0;
}

static void fill_attr(const struct strobe_perf *p, struct perf_event_attr *a, bool inherit)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (p->o.event && !strcmp(p->o.event, "cycles")) {
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
	}
	a->freq = 1;
	a->sample_freq = p->o.freq ? p->o.freq : 99;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
	a->inherit = inherit;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->wakeup_events = 1;
}

/* Open one event (pid/cgroup fd, cpu) and route it to the CPU's ring. */
static int open_one(struct strobe_perf *p, pid_t pid, int cpu, unsigned long flags,
		    bool inherit, struct ring *ring, struct strobe_error *err)
{
	struct perf_event_attr a;
	int fd, r;

	fill_attr(p, &a, inherit);
	fd = sys_perf_event_open(&a, pid, cpu, -1, flags | PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = add_fd(p, fd);
	if (r < 0) {
		close(fd);
		return strobe_err(err, r, "out of memory");
	}
	if (ring->fd < 0) {
		size_t pages = p->o.ring_pages ? p->o.ring_pages : 128;
		long psz = sysconf(_SC_PAGESIZE);
		void *base = mmap(NULL, (pages + 1) * (size_t)psz, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, 0);

		if (base == MAP_FAILED)
			return strobe_err(err, -errno, "mapping the perf ring of CPU %d: %s", cpu,
					  strerror(errno));
		ring->fd = fd;
		ring->base = base;
		ring->data_size = pages * (size_t)psz;
		ring->cpu = cpu;
		return 0;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) < 0)
		return strobe_err(err, -errno, "sharing the perf ring of CPU %d: %s", cpu,
				  strerror(errno));
	return 0;
}

static int nr_cpus_possible(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

static int open_error(int r, const char *what, struct strobe_error *err)
{
	switch (r) {
	case -EACCES:
	case -EPERM:
		return strobe_err(err, r, "perf_event_open for %s: %s (root, or "
				  "kernel.perf_event_paranoid <= 1, is needed)", what, strerror(-r));
	case -ENOENT:
	case -EOPNOTSUPP:
		return strobe_err(err, -ENOENT, "perf_event_open for %s: this machine has no "
				  "such event (try cpu-clock)", what);
	case -ESRCH:
		return strobe_err(err, r, "perf_event_open for %s: no such process", what);
	default:
		return strobe_err(err, r, "perf_event_open for %s: %s", what, strerror(-r));
	}
}

int strobe_perf_open(const struct strobe_perf_opts *o, struct strobe_perf **out,
		     struct strobe_error *err)
{
	struct strobe_perf *p;
	int ncpu = nr_cpus_possible(), cpu, i, r = 0;
	char what[128];

	*out = NULL;
	if (o && o->event && strcmp(o->event, "cpu-clock") && strcmp(o->event, "cycles"))
		return strobe_err(err, -EINVAL, "unknown sampling event '%s' (cpu-clock or cycles)",
				  o->event);
	if (o && o->ring_pages && (o->ring_pages & (o->ring_pages - 1)))
		return strobe_err(err, -EINVAL, "ring pages must be a power of 2");
	p = calloc(1, sizeof(*p));
	if (!p)
		return strobe_err(err, -ENOMEM, "out of memory");
	if (o)
		memcpy(&p->o, o, o->size && o->size < sizeof(p->o) ? o->size : sizeof(p->o));
	p->format_id = p->mmap_id = p->exec_id = p->fork_id = -1;
	p->rings = calloc((size_t)ncpu, sizeof(*p->rings));
	p->lost = calloc((size_t)ncpu, sizeof(*p->lost));
	if (!p->rings || !p->lost) {
		free(p->rings);
		free(p->lost);
		free(p);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		p->rings[cpu].fd = -1;
	p->nrings = ncpu;
	for (cpu = 0; cpu < ncpu && r == 0; cpu++) {
		struct ring *ring = &p->rings[cpu];
		struct strobe_error e2 = { 0, "" };

		if (p->o.pid > 0) {
			char path[64];
			struct dirent *d;
			DIR *dir;
			int n = 0;

			snprintf(what, sizeof(what), "process %d", (int)p->o.pid);
			snprintf(path, sizeof(path), "/proc/%d/task", (int)p->o.pid);
			dir = opendir(path);
			if (!dir)
				r = -ESRCH;
			while (dir && r == 0 && (d = readdir(dir))) {
				int tid = atoi(d->d_name);

				if (tid <= 0)
					continue;
				r = open_one(p, tid, cpu, 0, true, ring, &e2);
				if (r == -ESRCH)	/* a thread that just exited */
					r = 0;
				else if (r == 0)
					n++;
			}
			if (dir)
				closedir(dir);
			if (r == 0 && !n)
				r = -ESRCH;
		} else if (p->o.nr_cgroups > 0) {
			for (i = 0; i < p->o.nr_cgroups && r == 0; i++) {
				int cfd = open(p->o.cgroups[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

				snprintf(what, sizeof(what), "cgroup %s", p->o.cgroups[i]);
				if (cfd < 0) {
					r = strobe_err(&e2, -errno, "cannot open cgroup '%s': %s",
						       p->o.cgroups[i], strerror(errno));
					break;
				}
				r = open_one(p, cfd, cpu, PERF_FLAG_PID_CGROUP, false, ring, &e2);
				close(cfd);
			}
		} else {
			snprintf(what, sizeof(what), "the whole system");
			r = open_one(p, -1, cpu, 0, false, ring, &e2);
		}
		/* a CPU that is not online has no events */
		if (r == -ENODEV && !e2.msg[0]) {
			r = 0;
			continue;
		}
		if (r < 0) {
			if (e2.msg[0])
				strobe_err(err, r, "%s", e2.msg);
			else
				open_error(r, what, err);
		}
	}
	if (r < 0) {
		strobe_perf_close(p);
		return r;
	}
	p->st.events = p->nfds;
	*out = p;
	return 0;
}

int strobe_perf_enable(struct strobe_perf *p, struct strobe_error *err)
{
	int i;

	for (i = 0; i < p->nfds; i++)
		if (ioctl(p->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return strobe_err(err, -errno, "enabling a perf event: %s", strerror(errno));
	return 0;
}

void strobe_perf_close(struct strobe_perf *p)
{
	long psz = sysconf(_SC_PAGESIZE);
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nfds; i++)
		ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < p->nrings; i++)
		if (p->rings[i].base)
			munmap(p->rings[i].base, p->rings[i].data_size + (size_t)psz);
	for (i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	free(p->fds);
	free(p->rings);
	free(p->lost);
	free(p->q);
	free(p->data);
	free(p->tmp);
	free(p);
}

/* Declare strobe_perf:NAME into f (or find it there): its id, or -errno. */
static int declare_one(struct strobe_formats *f, const char *name,
		       const struct strobe_field_decl *fields, int n, struct strobe_error *err)
{
	struct strobe_format_decl d = {
		.size = sizeof(d), .system = "strobe_perf", .name = name,
		.fields = fields, .nr_fields = n,
	};
	const struct strobe_format *fmt = strobe_formats_find(f, "strobe_perf", name);

	if (fmt)
		return strobe_format_id(fmt);
	return strobe_formats_declare(f, &d, NULL, err);
}

#define NF(a) ((int)(sizeof(a) / sizeof((a)[0])))

int strobe_perf_declare(struct strobe_perf *p, struct strobe_formats *f,
			struct strobe_error *err)
{
	if ((p->format_id = declare_one(f, "sample", sample_fields, NF(sample_fields), err)) < 0)
		return p->format_id;
	if ((p->mmap_id = declare_one(f, "mmap", mmap_fields, NF(mmap_fields), err)) < 0)
		return p->mmap_id;
	if ((p->exec_id = declare_one(f, "exec", exec_fields, NF(exec_fields), err)) < 0)
		return p->exec_id;
	if ((p->fork_id = declare_one(f, "fork", fork_fields, NF(fork_fields), err)) < 0)
		return p->fork_id;
	return 0;
}

void strobe_perf_stats(const struct strobe_perf *p, struct strobe_perf_stats *st)
{
	*st = p->st;
}

/* ---- draining ------------------------------------------------------------ */

/* Room for a record of size bytes at ts on cpu at the queue's end. */
static uint8_t *queue_room(struct strobe_perf *p, uint64_t ts, int cpu, uint32_t size)
{
	if (p->nq == p->qcap) {
		size_t cap = p->qcap ? p->qcap * 2 : 1024;
		struct qrec *q = realloc(p->q, cap * sizeof(*q));

		if (!q)
			return NULL;
		p->q = q;
		p->qcap = cap;
	}
	if (p->dlen + size > p->dcap) {
		size_t cap = p->dcap ? p->dcap : 65536;
		uint8_t *d;

		while (cap < p->dlen + size)
			cap *= 2;
		if (!(d = realloc(p->data, cap)))
			return NULL;
		p->data = d;
		p->dcap = cap;
	}
	p->q[p->nq].ts = ts;
	p->q[p->nq].off = p->dlen;
	p->q[p->nq].size = size;
	p->q[p->nq].cpu = cpu;
	p->nq++;
	p->dlen += size;
	return p->data + p->dlen - size;
}

static int queue_sample(struct strobe_perf *p, const uint8_t *rec, size_t len)
{
	/* ip, pid, tid, time, cpu, res, period, nr, ips[nr] */
	const uint8_t *b = rec + sizeof(struct perf_event_header);
	size_t body = len - sizeof(struct perf_event_header);
	uint32_t pid, tid, cpu, loc, size;
	uint64_t ts, period, nr;
	uint8_t *out;
	uint16_t type = (uint16_t)p->format_id;
	int32_t s;

	if (body < 48)
		return -EBADMSG;
	memcpy(&pid, b + 8, 4);
	memcpy(&tid, b + 12, 4);
	memcpy(&ts, b + 16, 8);
	memcpy(&cpu, b + 24, 4);
	memcpy(&period, b + 32, 8);
	memcpy(&nr, b + 40, 8);
	if (nr > (body - 48) / 8)
		return -EBADMSG;
	if (nr > MAX_CHAIN)
		nr = MAX_CHAIN;
	size = PAYLOAD_FIXED + (uint32_t)nr * 8;
	if (!(out = queue_room(p, ts, (int)cpu, size)))
		return -ENOMEM;
	memset(out, 0, PAYLOAD_FIXED);
	memcpy(out, &type, 2);
	s = (int32_t)tid;
	memcpy(out + 4, &s, 4);
	s = (int32_t)pid;
	memcpy(out + 8, &s, 4);
	loc = ((uint32_t)nr * 8) << 16 | PAYLOAD_FIXED;
	memcpy(out + 12, &loc, 4);
	memcpy(out + 16, &period, 8);
	memcpy(out + PAYLOAD_FIXED, b + 48, (size_t)nr * 8);
	/* the process's maps while it runs (it may exec or exit before its
	 * samples are named) */
	if (p->o.symbols && nr && (int32_t)pid > 0)
		strobe_symbols_touch(p->o.symbols, (pid_t)pid);
	return 0;
}

/* A side-band record as a record of format id: the common header, tgid
 * at 8, then the fixed fields at 12; with a path, its __data_loc word at
 * 12, the fixed fields at 16 and the path after them. */
static void queue_side(struct strobe_perf *p, int id, const uint8_t *rec, size_t len,
		       uint32_t tgid, const void *fixed, uint32_t fixed_size,
		       const char *path)
{
	uint32_t plen = path ? (uint32_t)strlen(path) + 1 : 0, size, tail, cpu, loc;
	uint8_t *out;
	uint64_t ts;
	int32_t t = (int32_t)tgid;

	if (id < 0 || len < sizeof(struct perf_event_header) + SAMPLE_ID_SIZE)
		return;
	tail = (uint32_t)len - SAMPLE_ID_SIZE;	/* pid, tid, time, cpu, res */
	memcpy(&ts, rec + tail + 8, 8);
	memcpy(&cpu, rec + tail + 16, 4);
	if (cpu >= (uint32_t)p->nrings)
		return;
	size = 12 + (path ? 4 : 0) + fixed_size + plen;
	if (!(out = queue_room(p, ts, (int)cpu, size))) {
		p->st.bad++;
		return;
	}
	memset(out, 0, size);
	memcpy(out, &(uint16_t){ (uint16_t)id }, 2);
	memcpy(out + 4, &t, 4);
	memcpy(out + 8, &t, 4);
	if (path) {
		loc = plen << 16 | (16 + fixed_size);
		memcpy(out + 12, &loc, 4);
		memcpy(out + 16 + fixed_size, path, plen);
	}
	if (fixed_size)
		memcpy(out + (path ? 16 : 12), fixed, fixed_size);
}

/* A side-band record: maps, execs, forks, losses. */
static void side_band(struct strobe_perf *p, const struct perf_event_header *h,
		      const uint8_t *rec, size_t len, int ring_cpu)
{
	const uint8_t *b = rec + sizeof(*h);
	size_t body = len - sizeof(*h);
	uint32_t pid, ppid;
	uint64_t v[4], lost;

	/* every side-band record ends with the sample_id_all trailer */
	if (body < SAMPLE_ID_SIZE)
		return;
	body -= SAMPLE_ID_SIZE;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		/* pid tid addr len pgoff maj min ino ino_gen prot flags name */
		if (body < 65 || (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			break;
		memcpy(&pid, b, 4);
		memcpy(v, b + 8, 24);
		memcpy(&v[3], b + 40, 8);	/* ino */
		if (!memchr(b + 64, '\0', body - 64))
			break;
		if (p->o.symbols)
			strobe_symbols_mmap(p->o.symbols, (pid_t)pid, v[0], v[1], v[2], v[3],
					    (const char *)b + 64);
		queue_side(p, p->mmap_id, rec, len, pid, v, 32, (const char *)b + 64);
		break;
	case PERF_RECORD_COMM:
		if (body < 8 || !(h->misc & PERF_RECORD_MISC_COMM_EXEC))
			break;
		memcpy(&pid, b, 4);
		memcpy(&ppid, b + 4, 4);	/* tid */
		if (pid != ppid)
			break;
		if (p->o.symbols)
			strobe_symbols_exec(p->o.symbols, (pid_t)pid);
		queue_side(p, p->exec_id, rec, len, pid, NULL, 0, NULL);
		break;
	case PERF_RECORD_FORK:
		if (body < 8)
			break;
		memcpy(&pid, b, 4);
		memcpy(&ppid, b + 4, 4);
		if (pid == ppid)
			break;		/* a thread */
		if (p->o.symbols)
			strobe_symbols_fork(p->o.symbols, (pid_t)ppid, (pid_t)pid);
		queue_side(p, p->fork_id, rec, len, pid, &ppid, 4, NULL);
		break;
	case PERF_RECORD_EXIT:
		/* pid ppid tid ptid time: a process's last word (its leader's
		 * exit); the finder drops its maps once its samples are named */
		if (body < 24)
			break;
		memcpy(&pid, b, 4);
		memcpy(&ppid, b + 8, 4);	/* tid */
		memcpy(&v[0], b + 16, 8);
		if (pid == ppid && p->o.symbols)
			strobe_symbols_exit(p->o.symbols, (pid_t)pid, v[0]);
		break;
	case PERF_RECORD_LOST:
		if (body >= 16) {
			memcpy(&lost, b + 8, 8);
			p->st.lost += lost;
			if (ring_cpu >= 0 && ring_cpu < p->nrings)
				p->lost[ring_cpu] += (int64_t)lost;
		}
		break;
	default:
		break;
	}
}

static int drain_ring(struct strobe_perf *p, struct ring *ring)
{
	struct perf_event_mmap_page *mp = ring->base;
	uint8_t *data = (uint8_t *)ring->base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	size_t mask = ring->data_size - 1;
	int r = 0;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = (size_t)(tail & mask);
		const uint8_t *rec;

		if (head - tail < sizeof(h))
			break;
		if (off + sizeof(h) <= ring->data_size) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			size_t first = ring->data_size - off;

			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail) {
			p->st.bad++;
			tail = head;
			break;
		}
		if (off + h.size <= ring->data_size) {
			rec = data + off;
		} else {
			size_t first = ring->data_size - off;

			if (h.size > p->tmp_cap) {
				uint8_t *t = realloc(p->tmp, h.size);

				if (!t) {
					r = -ENOMEM;
					break;
				}
				p->tmp = t;
				p->tmp_cap = h.size;
			}
			memcpy(p->tmp, data + off, first);
			memcpy(p->tmp + first, data, h.size - first);
			rec = p->tmp;
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			int e = queue_sample(p, rec, h.size);

			if (e == -ENOMEM) {
				r = e;
				break;
			}
			if (e < 0)
				p->st.bad++;
		} else {
			side_band(p, &h, rec, h.size, ring->cpu);
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return r;
}

static int qrec_cmp(const void *a, const void *b)
{
	const struct qrec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int refill(struct strobe_perf *p, struct strobe_error *err)
{
	uint64_t before = mono_ns();
	size_t first;
	int i, r;

	/* drop what was handed out */
	if (p->qhead == p->nq) {
		p->nq = p->qhead = 0;
		p->dlen = 0;
	} else if (p->qhead > 0) {
		size_t base = p->q[p->qhead].off, k;

		for (k = p->qhead; k < p->nq; k++)
			if (p->q[k].off < base)
				base = p->q[k].off;
		memmove(p->data, p->data + base, p->dlen - base);
		p->dlen -= base;
		memmove(p->q, p->q + p->qhead, (p->nq - p->qhead) * sizeof(*p->q));
		p->nq -= p->qhead;
		p->qhead = 0;
		for (k = 0; k < p->nq; k++)
			p->q[k].off -= base;
	}
	first = p->nq;
	for (i = 0; i < p->nrings; i++) {
		if (!p->rings[i].base)
			continue;
		r = drain_ring(p, &p->rings[i]);
		if (r < 0)
			return strobe_err(err, r, "out of memory reading perf samples");
	}
	if (p->nq > first)
		qsort(p->q, p->nq, sizeof(*p->q), qrec_cmp);
	if (before > HOLD_NS && before - HOLD_NS > p->safe)
		p->safe = before - HOLD_NS;
	return 0;
}

static int rs_next(void *ctx, struct strobe_event *ev, struct strobe_error *err)
{
	struct strobe_perf *p = ctx;
	struct qrec *q;
	int r;

	if (p->qhead == p->nq || p->q[p->qhead].ts > p->safe) {
		r = refill(p, err);
		if (r < 0)
			return r;
	}
	if (p->qhead == p->nq || p->q[p->qhead].ts > p->safe)
		return -EAGAIN;
	q = &p->q[p->qhead++];
	memset(ev, 0, sizeof(*ev));
	ev->ts = q->ts;
	ev->cpu = q->cpu;
	ev->data = p->data + q->off;
	ev->size = q->size;
	if (p->lost[q->cpu]) {
		ev->missed = p->lost[q->cpu];
		p->lost[q->cpu] = 0;
	}
	if (!memcmp(ev->data, &(uint16_t){ (uint16_t)p->format_id }, 2))
		p->st.samples++;
	return 1;
}

static uint64_t rs_idle_until(void *ctx)
{
	struct strobe_perf *p = ctx;

	return p->qhead < p->nq && p->q[p->qhead].ts <= p->safe ? p->q[p->qhead].ts : p->safe;
}

void strobe_perf_records(struct strobe_perf *p, struct strobe_record_source *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->size = sizeof(*rs);
	rs->name = "perf";
	rs->next = rs_next;
	rs->idle_until = rs_idle_until;
	rs->ctx = p;
	p->safe = mono_ns();
}

/* ---- cgroups --------------------------------------------------------------- */

int strobe_perf_cgroup_dir(pid_t pid, char *out, size_t size, struct strobe_error *err)
{
	char path[64], line[4096], mnt[4096] = "";
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return strobe_err(err, -errno, "cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			memmove(line, line + 3, strlen(line + 3) + 1);
			found = true;
			break;
		}
	fclose(f);
	if (!found)
		return strobe_err(err, -ENOENT, "process %d is in no cgroup v2 group", (int)pid);
	/* the root group holds every task: no scope at all */
	if (!strcmp(line, "/"))
		return strobe_err(err, -ENOENT, "process %d is in the root cgroup v2 group: "
				  "its tasks cannot be told from the host's", (int)pid);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return strobe_err(err, -errno, "cannot read /proc/self/mountinfo: %s",
				  strerror(errno));
	while (fgets(mnt, sizeof(mnt), f)) {
		char *sep = strstr(mnt, " - cgroup2 ");
		char *p = mnt;
		int i;

		if (!sep)
			continue;
		for (i = 0; i < 4 && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (!p)
			continue;
		p[strcspn(p, " ")] = '\0';
		if ((size_t)snprintf(out, size, "%s%s", p, strcmp(line, "/") ? line : "") >= size) {
			fclose(f);
			return strobe_err(err, -ENAMETOOLONG, "cgroup path too long");
		}
		fclose(f);
		return 0;
	}
	fclose(f);
	return strobe_err(err, -ENOENT, "no cgroup2 file system is mounted");
}
