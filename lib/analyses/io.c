/*
 * io.c - I/O seen from system calls and from the block layer.
 *
 * Syscalls: the read family (read, pread64, readv, preadv, preadv2,
 * recvfrom, recvmsg), the write family (write, pwrite64, writev, pwritev,
 * pwritev2, sendto, sendmsg), transfers (sendfile64, splice, tee,
 * copy_file_range: bytes count as read from the input fd and written to
 * the output fd) and syncs (fsync, fdatasync, sync_file_range, sync,
 * syncfs, msync).  Bytes are the non-negative return values, charged to
 * the owner and to the (owner, fd); latency is entry to exit, per
 * syscall.  Per thread the state is IDLE or IN_IO(nr, fds, since), as in
 * syscalls.c, both decoding syscall events through sysdec.c.  fd numbers
 * come from raw_syscalls' args[] or the syscalls:* "fd" fields.  File
 * names need the open's path: raw_syscalls carries no strings and on most
 * kernels syscalls:sys_enter_openat's filename is a user pointer, not a
 * string; when it is a string (a __data_loc field), fds are named from
 * openat/open/creat and forgotten at close.
 *
 * Block: a request's owner is the task that queued its first bio
 * (block_bio_queue) or inserted it (block_rq_insert), else the task
 * current at block_rq_issue; latency is issue to complete, per disk
 * (major:minor) and per owner.  State: requests in flight keyed by
 * (dev, sector), plus recent bio owners (capped at 64 Ki entries: bios
 * merged into other requests never come back).
 *
 * Writeback: a request whose bio a flusher queued inside its
 * writeback_single_inode window is not the flusher's: writeback.c shares
 * it among the tasks that dirtied the inode, by bytes dirtied (a write
 * call's bytes reach it at the call's exit); io.block shows direct and
 * written-back bytes per owner, io.writeback per disk how much of the
 * kernel's writeback was charged and why the rest could not be.
 *
 * In a PID-filtered recording (strobe record -- CMD, -p, -c) the syscall
 * side is exact (a traced task's own events are all there), but block
 * requests are issued and completed in whatever context the CPU is in
 * (kworkers, interrupts over untraced tasks): an issue whose completion
 * was not recorded would pair with a later request's completion at the
 * same sector.  Block events are then ignored, with a note.
 *
 * --log: io.log has a row per read, write, transfer or sync call at its
 * exit (entry time, latency, task, syscall, fd and file name when known,
 * bytes, errno name), io.block_log one per block request at its
 * completion (issue time, latency, disk, sector, bytes, the owner as
 * above).  --min/--max select rows by latency; a request whose owner is
 * unknown is a row (tid -1) unless task filters are given.
 *
 * A reset (strobe_analysis_reset) drops the per-owner, per-file, per-disk
 * figures and keeps what is in flight and who things belong to: calls
 * entered, bios and requests with their owners, file names, the dirtiers
 * of inodes; a call or request counts in the interval it ends in.
 *
 * The biolatency analysis (ana_biolatency_ops, strobe-biolatency(1)) is
 * this same code measuring as bcc's biolatency: every block request once,
 * issue (or with opts.queued, its block_rq_insert when there was one) to
 * complete, in one log2 histogram per group (biolatency.freq): the
 * grouping (--group-by: all, container, ...) of its owner as io charges
 * it, times its disk (opts.per_disk) and its rwbs flags (opts.per_flags).
 * A request written back for several owners counts once per owner group
 * it has a part of, as io.block charges it (once with all as one group).
 * A request of no known owner counts unless task filters are given.  So
 * on the same events, a group's histogram is io.block's of that owner
 * group (io.block_freq).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyses/analysis-int.h"
#include "analyses/writeback.h"

enum io_class { C_NONE = 0, C_READ, C_WRITE, C_XFER, C_SYNC, C_OPEN, C_CLOSE };
enum { BIO_QUEUE = ANA_SYS_NR_COOKIES, RQ_INSERT, RQ_ISSUE,
       RQ_COMPLETE, WB_FOLIO, WB_DIRTY_INODE, WB_ENQUEUE, WB_START, WB_END };

#define MAX_NR 1024
#define NAME_LEN 64

static const struct { const char *name; enum io_class cls; int in, out; } io_calls[] = {
	{ "read", C_READ, 0, -1 }, { "pread64", C_READ, 0, -1 }, { "readv", C_READ, 0, -1 },
	{ "preadv", C_READ, 0, -1 }, { "preadv2", C_READ, 0, -1 },
	{ "recvfrom", C_READ, 0, -1 }, { "recvmsg", C_READ, 0, -1 },
	{ "write", C_WRITE, -1, 0 }, { "pwrite64", C_WRITE, -1, 0 }, { "writev", C_WRITE, -1, 0 },
	{ "pwritev", C_WRITE, -1, 0 }, { "pwritev2", C_WRITE, -1, 0 },
	{ "sendto", C_WRITE, -1, 0 }, { "sendmsg", C_WRITE, -1, 0 },
	{ "sendfile64", C_XFER, 1, 0 }, { "sendfile", C_XFER, 1, 0 },
	{ "splice", C_XFER, 0, 2 }, { "tee", C_XFER, 0, 1 },
	{ "copy_file_range", C_XFER, 0, 2 },
	{ "fsync", C_SYNC, 0, -1 }, { "fdatasync", C_SYNC, 0, -1 },
	{ "sync_file_range", C_SYNC, 0, -1 }, { "sync", C_SYNC, -1, -1 },
	{ "syncfs", C_SYNC, 0, -1 }, { "msync", C_SYNC, -1, -1 },
	{ "open", C_OPEN, -1, -1 }, { "openat", C_OPEN, -1, -1 }, { "openat2", C_OPEN, -1, -1 },
	{ "creat", C_OPEN, -1, -1 }, { "close", C_CLOSE, 0, -1 },
};

struct nrinfo {
	uint8_t cls;
	int8_t in, out;		/* argument index of the in/out fd, -1 none */
};

struct inflight {
	uint64_t since;
	int nr;
	int fd_in, fd_out;
	char name[NAME_LEN];	/* open's path, when the trace has it */
	uint64_t wb_ikey;	/* the inode a write call dirtied, 0 none */
	uint64_t wb_credited;	/* bytes credited for it so far (pages) */
};

struct group {
	struct ana_owner o;
	uint64_t rbytes, wbytes, reads, writes;
};

struct fdgroup {
	struct ana_owner o;
	int fd;
	char name[NAME_LEN];
	uint64_t rbytes, wbytes;
};

struct latgroup {
	struct ana_owner o;
	int nr;
	struct ana_stats st;
};

struct fdname {
	char name[NAME_LEN];
};

struct rq {
	uint32_t dev;
	uint64_t sector;
	uint64_t since;
	uint64_t bytes;
	uint64_t key;		/* owner's group key (direct requests) */
	struct ana_owner o;
	struct wb_tag wb;	/* written back for whom (writeback.c) */
	bool write;		/* rwbs has W (a write, a flush with data) */
	char rwbs[8];		/* biolatency's flags */
	uint64_t queued;	/* biolatency -Q: block_rq_insert's ts, 0 none */
	bool have_owner;
	bool log_ok;		/* a log row: owner selected, or unknown and no
				 * task filters */
};

struct disk {
	uint32_t dev;
	uint64_t bytes;
	struct ana_stats st;
};

struct blkgroup {
	struct ana_owner o;
	uint64_t bytes;		/* direct + wb */
	uint64_t direct;	/* requests its own tasks queued */
	uint64_t wb;		/* its part of requests written back for it */
	uint64_t read, write;	/* bytes by direction (wb: written) */
	struct ana_stats st;	/* requests that carried its bytes */
};

/* biolatency: one histogram's group (its key mixes the three) */
struct blgroup {
	struct ana_owner o;
	bool have_owner;
	uint32_t dev;		/* opts.per_disk */
	char rwbs[8];		/* opts.per_flags */
	struct ana_stats st;
};

struct bio_own {	/* a queued bio, until its request is issued */
	int tid;
	struct wb_tag wb;
};

/* The latest bios queued, by sector range: a bio larger than a request
 * is split, and the requests after the first start inside it. */
#define NR_RECENT 256
#define RECENT_NS 10000000000ull
struct bio_range {
	uint32_t dev;
	uint64_t ts;		/* queued then; older than RECENT_NS: ignored */
	uint64_t start, end;	/* sectors [start, end) */
	struct bio_own own;
};

struct wbdisk {		/* requests written back by the kernel, per disk */
	uint32_t dev;
	uint64_t bytes, charged, requests;
	struct wb_why why;
};

struct named {		/* per syscalls:* event id */
	struct strobe_field fd, fd_in, fd_out, filename;
};

struct io {
	struct ana_sysdec dec;
	struct strobe_field bq_dev, bq_sector, bq_nr_sector, ri_dev, ri_sector, is_dev, is_sector,
		is_bytes, is_rwbs, is_nr_sector, co_dev, co_sector;
	bool have_names, have_block, have_wb;
	struct nrinfo info[MAX_NR];
	struct named *named;	/* indexed by event id */
	int nr_named;
	struct ana_map inflight, groups, fds, lats, fdnames, bio_owner, rqs, disks, blk, wbdisks;
	struct ana_wb wb;
	struct bio_range recent[NR_RECENT];
	unsigned nr_recent;	/* bios queued; recent[nr_recent % NR_RECENT] next */
	struct strobe_table *top, *files, *lat, *disk_t, *blk_t, *wb_t, *log, *blk_log;
	/* biolatency: see the head */
	bool biolat;
	struct ana_map bl;		/* group key -> struct blgroup */
	struct ana_map inserted;	/* opts.queued: rq_key -> insert ts */
	struct strobe_table *bl_stats;
};

static uint64_t rq_key(uint32_t dev, uint64_t sector)
{
	return (sector * 0x9e3779b97f4a7c15ULL) ^ dev;
}

static const char *nr_name(int nr, char *buf, size_t size)
{
	const char *n = strobe_syscall_name(nr);

	if (n)
		return n;
	snprintf(buf, size, "sys_%d", nr);
	return buf;
}

static struct group *owner_group(struct ana *a, const struct strobe_task *t, int cpu,
				 uint64_t *key)
{
	struct io *p = a->priv;
	struct group *g;
	bool created;

	*key = ana_group_key(a->core, t, cpu);
	g = ana_map_put(&p->groups, *key, &created);
	if (g && created)
		ana_owner_set(a->core, &g->o, t, cpu);
	else if (g)
		ana_owner_refresh(a->core, &g->o, t);
	return g;
}

static void add_fd(struct ana *a, const struct strobe_task *t, uint64_t key, int fd,
		   uint64_t r, uint64_t w, int cpu)
{
	struct io *p = a->priv;
	struct fdgroup *f;
	bool created;

	if (fd < 0)
		return;
	f = ana_map_put(&p->fds, ana_key2(key, (uint32_t)fd & 0xfffff), &created);
	if (!f)
		return;
	if (created) {
		struct fdname *n = ana_map_get(&p->fdnames,
					       ((uint64_t)(uint32_t)t->tgid << 32) | (uint32_t)fd);

		ana_owner_set(a->core, &f->o, t, cpu);
		f->fd = fd;
		if (n)
			memcpy(f->name, n->name, NAME_LEN);
	}
	f->rbytes += r;
	f->wbytes += w;
}

static void enter(struct ana *a, const struct strobe_event *ev, int nr, int fd_in, int fd_out,
		  const struct strobe_field *fname)
{
	struct io *p = a->priv;
	struct inflight *f = ana_map_put(&p->inflight, (uint64_t)(uint32_t)ev->pid, NULL);

	if (!f)
		return;
	f->since = ev->ts;
	f->nr = nr;
	f->fd_in = fd_in;
	f->fd_out = fd_out;
	f->name[0] = '\0';
	f->wb_ikey = 0;
	f->wb_credited = 0;
	if (fname && fname->valid && fname->is_dynamic) {
		uint32_t len;
		const char *s = strobe_field_str(ev, fname, &len);

		if (s)
			snprintf(f->name, NAME_LEN, "%.*s", (int)strnlen(s, len), s);
	}
}

/* The io.log row of a read/write/transfer/sync call that exited at ev. */
static void log_call(struct ana *a, const struct strobe_event *ev, const struct inflight *f,
		     int cls, int64_t ret)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	const struct strobe_task *t = ana_task(c, ev->pid);	/* again: it may move */
	const struct fdname *n = NULL;
	int fd = f->fd_in >= 0 ? f->fd_in : f->fd_out;
	const char *e = ret < 0 && ret > -4096 ? strobe_errno_name((int)-ret) : NULL;
	union strobe_value v[11];
	char buf[32];

	if (!t)
		return;
	if (fd >= 0 && t->tgid >= 0 && p->fdnames.n)
		n = ana_map_get(&p->fdnames, ((uint64_t)(uint32_t)t->tgid << 32) | (uint32_t)fd);
	v[0].u = f->since;
	v[1].u = ev->ts - f->since;
	v[2].i = t->tid;
	v[3].i = t->tgid;
	v[4].s = t->comm;
	v[5].s = ana_container_name(c, t->container->index);
	v[6].s = nr_name(f->nr, buf, sizeof(buf));
	v[7].i = fd;
	v[8].s = n ? n->name : "";
	v[9].u = ret > 0 && cls != C_SYNC ? (uint64_t)ret : 0;
	v[10].s = e ? e : "";
	c->opts.log(c->opts.log_arg, p->log, v);
}

static void leave(struct ana *a, const struct strobe_event *ev, int nr, int64_t ret)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	struct inflight *fp = ana_map_get(&p->inflight, (uint64_t)(uint32_t)ev->pid);
	struct inflight f;
	const struct strobe_task *t;
	struct latgroup *l;
	struct group *g;
	uint64_t key, dur;
	bool created;
	int cls;

	if (!fp || fp->nr != nr)
		return;
	f = *fp;
	ana_map_del(&p->inflight, (uint64_t)(uint32_t)ev->pid);
	cls = nr >= 0 && nr < MAX_NR ? p->info[nr].cls : C_NONE;
	/* the pages it dirtied: credit what it wrote (writeback.c) */
	if (f.wb_ikey && ret > 0 && (uint64_t)ret > f.wb_credited)
		wb_credit(a, &p->wb, f.wb_ikey, ev->pid, ev->cpu, (uint64_t)ret - f.wb_credited);
	t = ana_task(c, ev->pid);
	if (!t)
		return;
	if (cls == C_OPEN || cls == C_CLOSE) {
		uint64_t k;

		if (t->tgid < 0)
			return;
		if (cls == C_OPEN && ret >= 0 && f.name[0]) {
			struct fdname *n;

			k = ((uint64_t)(uint32_t)t->tgid << 32) | (uint32_t)ret;
			n = ana_map_put(&p->fdnames, k, NULL);
			if (n)
				memcpy(n->name, f.name, NAME_LEN);
		} else if (cls == C_CLOSE && f.fd_in >= 0) {
			k = ((uint64_t)(uint32_t)t->tgid << 32) | (uint32_t)f.fd_in;
			ana_map_del(&p->fdnames, k);
		}
		return;
	}
	if (ana_gap_since(c, f.since)) {
		a->dropped++;
		return;
	}
	if (!ana_task_selected(c, t))
		return;
	dur = ev->ts - f.since;
	g = owner_group(a, t, ev->cpu, &key);
	if (!g)
		return;
	if (ret > 0 && cls != C_SYNC) {
		uint64_t b = (uint64_t)ret;

		if (cls == C_READ || cls == C_XFER) {
			g->rbytes += b;
			g->reads++;
			add_fd(a, t, key, f.fd_in, b, 0, ev->cpu);
		}
		if (cls == C_WRITE || cls == C_XFER) {
			g->wbytes += b;
			g->writes++;
			add_fd(a, t, key, f.fd_out, 0, b, ev->cpu);
		}
	}
	if (!ana_duration_ok(c, dur))
		return;
	l = ana_map_put(&p->lats, ana_key2(key, (uint32_t)nr & 0xfffff), &created);
	if (l) {
		if (created) {
			l->o = g->o;
			l->nr = nr;
		}
		ana_stats_add(&l->st, dur, c->want_hist);
	}
	if (p->log && c->opts.log)
		log_call(a, ev, &f, cls, ret);
}

static int arg_fd(const struct strobe_event *ev, const struct strobe_field *args, int idx)
{
	struct strobe_field f = *args;

	if (idx < 0 || !args->valid)
		return -1;
	f.offset = (uint16_t)(args->offset + 8 * idx);
	f.size = 8;
	f.is_signed = 1;
	return (int)strobe_field_int(ev, &f);
}

/* Who queued the bio holding (dev, sector): the bio that starts there,
 * else a recent one that covers it (a split); NULL if none. */
static const struct bio_own *bio_of(struct io *p, uint32_t dev, uint64_t sector,
				    uint64_t now)
{
	const struct bio_own *b = ana_map_get(&p->bio_owner, rq_key(dev, sector));
	unsigned i, n = p->nr_recent < NR_RECENT ? p->nr_recent : NR_RECENT;

	if (b)
		return b;
	for (i = 1; i <= n; i++) {	/* newest first */
		const struct bio_range *r = &p->recent[(p->nr_recent - i) % NR_RECENT];

		if (r->ts + RECENT_NS < now)
			break;
		if (r->dev == dev && sector >= r->start && sector < r->end)
			return &r->own;
	}
	return NULL;
}

/* block_bio_queue (queue: the bio's owner is this task) or
 * block_rq_insert (the inserter only when no bio is known) */
static void block_owner(struct ana *a, const struct strobe_event *ev, uint32_t dev,
			uint64_t sector, uint64_t nr_sector, bool queue)
{
	struct io *p = a->priv;
	const struct bio_own *known = queue ? NULL : bio_of(p, dev, sector, ev->ts);
	struct bio_own own, *b;

	if (known) {
		own = *known;
	} else {
		own.tid = ev->pid;
		own.wb = wb_tag_of(a, &p->wb, ev->pid);
	}
	if (queue && nr_sector) {
		struct bio_range *r = &p->recent[p->nr_recent++ % NR_RECENT];

		r->dev = dev;
		r->ts = ev->ts;
		r->start = sector;
		r->end = sector + nr_sector;
		r->own = own;
	}
	if (p->bio_owner.n > 65536) {	/* merged bios never come back: cap */
		ana_map_free(&p->bio_owner);
		ana_map_init(&p->bio_owner, sizeof(struct bio_own));
	}
	b = ana_map_put(&p->bio_owner, rq_key(dev, sector), NULL);
	if (b)
		*b = own;
}

static void on_issue(struct ana *a, const struct strobe_event *ev)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	uint32_t dev = (uint32_t)strobe_field_uint(ev, &p->is_dev);
	uint64_t sector = strobe_field_uint(ev, &p->is_sector), k = rq_key(dev, sector);
	const struct bio_own *owner = bio_of(p, dev, sector, ev->ts);
	int tid = owner ? owner->tid : ev->pid;
	struct wb_tag wb = owner ? owner->wb : wb_tag_of(a, &p->wb, ev->pid);
	const struct strobe_task *t;
	struct rq *r;

	ana_map_del(&p->bio_owner, k);
	r = ana_map_put(&p->rqs, k, NULL);
	if (!r)
		return;
	r->dev = dev;
	r->sector = sector;
	r->since = ev->ts;
	r->bytes = p->is_bytes.valid ? strobe_field_uint(ev, &p->is_bytes)
				     : strobe_field_uint(ev, &p->is_nr_sector) * 512;
	r->have_owner = false;
	r->wb = wb;
	r->write = false;
	r->rwbs[0] = '\0';
	r->queued = 0;
	if (p->is_rwbs.valid) {
		uint32_t len;
		const char *rw = strobe_field_str(ev, &p->is_rwbs, &len);

		r->write = rw && memchr(rw, 'W', strnlen(rw, len)) != NULL;
		if (rw)
			snprintf(r->rwbs, sizeof(r->rwbs), "%.*s", (int)strnlen(rw, len), rw);
	}
	if (p->biolat && c->opts.queued) {
		uint64_t *q = ana_map_get(&p->inserted, k);

		if (q) {
			r->queued = *q;
			ana_map_del(&p->inserted, k);
		}
	}
	if (wb.kind != WB_DIRECT) {
		r->log_ok = true;	/* decided at completion */
		return;
	}
	t = tid > 0 ? ana_task(c, tid) : NULL;
	if (t && ana_task_selected(c, t)) {
		r->key = ana_group_key(c, t, ev->cpu);
		ana_owner_set(c, &r->o, t, ev->cpu);
		r->have_owner = true;
	}
	r->log_ok = r->have_owner || (!t && !ana_task_filters(c));
}

/* The io.block_log row of request r, completed at ev. */
static void log_request(struct ana *a, const struct strobe_event *ev, const struct rq *r)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	union strobe_value v[10];
	char disk[24];

	snprintf(disk, sizeof(disk), "%u:%u", r->dev >> 20, r->dev & 0xfffff);
	v[0].u = r->since;
	v[1].u = ev->ts - r->since;
	v[2].s = disk;
	v[3].i = (int64_t)r->sector;
	v[4].u = r->bytes;
	v[5].i = r->have_owner ? r->o.tid : -1;
	v[6].i = r->have_owner ? r->o.pid : -1;
	v[7].s = r->have_owner ? r->o.comm : "";
	v[8].s = r->have_owner ? ana_container_name(c, r->o.container) : "";
	v[9].s = r->wb.kind != WB_DIRECT ? "writeback" : "";
	c->opts.log(c->opts.log_arg, p->blk_log, v);
}

/* The owner row of key in io.block, made from o if new; NULL on ENOMEM. */
static struct blkgroup *blk_row(struct io *p, uint64_t key, const struct ana_owner *o)
{
	bool created;
	struct blkgroup *b = ana_map_put(&p->blk, key, &created);

	if (b && created)
		b->o = *o;
	return b;
}

/* Request r, written back by the kernel for the owners of its pages,
 * completed at ev after lat: the owners' parts, the rest unattributed. */
static void written_back(struct ana *a, const struct strobe_event *ev, struct rq *r,
			 uint64_t lat)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	struct wb_part parts[WB_SHARES];
	struct wb_why why = { 0, 0, 0 };
	struct blkgroup *b;
	struct wbdisk *wd;
	uint64_t charged = 0;
	bool created;
	int n, i;

	n = wb_shares(a, &p->wb, &r->wb, r->bytes, parts, &why);
	for (i = 0; i < n; i++) {
		b = blk_row(p, parts[i].key, parts[i].o);
		if (!b)
			continue;
		memcpy(b->o.comm, parts[i].o->comm, sizeof(b->o.comm));	/* its latest */
		b->bytes += parts[i].bytes;
		b->wb += parts[i].bytes;
		b->write += parts[i].bytes;
		ana_stats_add(&b->st, lat, c->want_hist);
		charged += parts[i].bytes;
	}
	wd = ana_map_put(&p->wbdisks, r->dev, &created);
	if (wd) {
		wd->dev = r->dev;
		wd->bytes += r->bytes;
		wd->charged += charged;
		wd->requests++;
		wd->why.unknown += why.unknown;
		wd->why.cut += why.cut;
		wd->why.other += why.other;
	}
	/* the log row (and biolatency) name the largest part */
	r->have_owner = n > 0;
	if (n) {
		r->o = *parts[0].o;
		r->key = parts[0].key;
	}
	if (!p->blk_log || !c->opts.log || (!n && ana_task_filters(c)))
		return;
	log_request(a, ev, r);
}

/* ---- biolatency ------------------------------------------------------ */

static void biolat_insert(struct io *p, const struct strobe_event *ev)
{
	uint32_t dev = (uint32_t)strobe_field_uint(ev, &p->ri_dev);
	uint64_t *q;

	if (p->inserted.n > 65536) {	/* merged requests never issue: cap */
		ana_map_free(&p->inserted);
		ana_map_init(&p->inserted, sizeof(uint64_t));
	}
	q = ana_map_put(&p->inserted, rq_key(dev, strobe_field_uint(ev, &p->ri_sector)), NULL);
	if (q)
		*q = ev->ts;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/* One count of lat in the histogram of (owner key, r's disk and flags);
 * o NULL: the owner is unknown. */
static void biolat_add(struct ana *a, const struct rq *r, uint64_t key,
		       const struct ana_owner *o, uint64_t lat)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	struct blgroup *g;
	bool created;

	key = mix(c->opts.group_by == STROBE_GROUP_ALL ? 0 : o ? key : ~0ULL,
		  c->opts.per_disk ? r->dev : 0);
	if (c->opts.per_flags) {
		uint64_t f = 0;

		memcpy(&f, r->rwbs, sizeof(f));
		key = mix(key, f);
	}
	if (key == ANA_MAP_EMPTY)
		key = 0;
	g = ana_map_put(&p->bl, key, &created);
	if (!g)
		return;
	if (created) {
		g->have_owner = o != NULL;
		g->o = o ? *o : (struct ana_owner){ .tid = -1, .pid = -1, .cpu = -1 };
		g->dev = r->dev;
		memcpy(g->rwbs, r->rwbs, sizeof(g->rwbs));
	}
	ana_stats_add(&g->st, lat, c->want_hist);
}

/*
 * Request r completed at ev: one count in its group's histogram.  A
 * request written back for several owners counts once per owner group
 * of it, as io.block charges it (once in all with --group-by all).
 */
static void biolat_complete(struct ana *a, const struct strobe_event *ev, struct rq *r)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	uint64_t since = c->opts.queued && r->queued ? r->queued : r->since, lat;
	struct wb_part parts[WB_SHARES];
	struct wb_why why = { 0, 0, 0 };
	int n, i;

	if (ana_gap_since(c, since)) {
		a->dropped++;
		return;
	}
	lat = ev->ts - since;
	if (!ana_duration_ok(c, lat))
		return;
	if (r->wb.kind == WB_DIRECT) {
		if (r->have_owner)
			biolat_add(a, r, r->key, &r->o, lat);
		else if (!ana_task_filters(c))
			biolat_add(a, r, 0, NULL, lat);
		return;
	}
	n = wb_shares(a, &p->wb, &r->wb, r->bytes, parts, &why);
	if (!n && !ana_task_filters(c))
		biolat_add(a, r, 0, NULL, lat);
	for (i = 0; i < n && (i == 0 || c->opts.group_by != STROBE_GROUP_ALL); i++)
		biolat_add(a, r, parts[i].key, parts[i].o, lat);
}

static int biolat_init(struct ana *a)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	int ret = 0;

	if (ana_view(c, STROBE_VIEW_TOP | STROBE_VIEW_STATS)) {
		p->bl_stats = ana_add_table(a, "biolatency.stats", "Block request latency",
					    ana_view(c, STROBE_VIEW_STATS) ? STROBE_VIEW_STATS
									  : STROBE_VIEW_TOP);
		if (!p->bl_stats)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->bl_stats);
		if (c->opts.per_disk)
			ret |= tbl_col(p->bl_stats, "disk", "Disk", STROBE_COL_STR);
		if (c->opts.per_flags)
			ret |= tbl_col(p->bl_stats, "flags", "Flags", STROBE_COL_STR);
		ret |= ana_stats_cols(p->bl_stats);
	}
	if (ana_view(c, STROBE_VIEW_FREQ)) {
		struct strobe_table *t = ana_add_freq_schema(a, "biolatency.freq",
							     "Block request latency distribution");

		if (!t)
			return -ENOMEM;
		t->unit = c->opts.freq_resolution > 0 ? "nsecs"
			  : c->opts.freq_msecs ? "msecs" : "usecs";
	}
	return ret ? -ENOMEM : 0;
}

/* "owner, disk = 8:0, flags = WS" for a histogram's title */
static void biolat_desc(struct ana_core *c, const struct blgroup *g, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (c->opts.group_by != STROBE_GROUP_ALL) {
		if (g->have_owner)
			ana_owner_desc(c, &g->o, buf, size);
		else
			snprintf(buf, size, "owner unknown");
		n = strlen(buf);
	}
	if (c->opts.per_disk && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%sdisk = %u:%u", n ? ", " : "",
				      g->dev >> 20, g->dev & 0xfffff);
	if (c->opts.per_flags && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%sflags = %s", n ? ", " : "",
				      g->rwbs[0] ? g->rwbs : "-");
	if (!n)
		snprintf(buf, size, "all requests");
}

static int biolat_finish(struct ana *a)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	struct ana_rank *r;
	struct strobe_table *t;
	union strobe_value *v;
	size_t n, i;
	char title[200], disk[24];
	int k;

	if (ana_rank_map(&p->bl, offsetof(struct blgroup, st.count), &r, &n) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct blgroup *g = r[i].item;

		snprintf(disk, sizeof(disk), "%u:%u", g->dev >> 20, g->dev & 0xfffff);
		if (p->bl_stats && i < ana_top_n(c, n)) {
			if (!(v = tbl_row(p->bl_stats)))
				goto nomem;
			k = ana_owner_vals(c, p->bl_stats, v, &g->o);	/* unknown: tid -1 */
			if (c->opts.per_disk)
				v[k++].s = tbl_str(p->bl_stats, disk);
			if (c->opts.per_flags)
				v[k++].s = tbl_str(p->bl_stats, g->rwbs);
			ana_stats_vals(v + k, &g->st);
		}
		if (!g->st.hist)
			continue;
		k = snprintf(title, sizeof(title), "block request latency: ");
		biolat_desc(c, g, title + k, sizeof(title) - (size_t)k);
		if (ana_emit_hist(a, "biolatency.freq", title, &g->st,
				  c->opts.group_by == STROBE_GROUP_ALL ? NULL : &g->o,
				  c->opts.per_disk ? "disk" : NULL, disk) < 0)
			goto nomem;
		t = a->tables[a->nr_tables - 1];
		if (c->opts.per_flags &&
		    tbl_label(t, "flags", "flags", STROBE_COL_STR,
			      (union strobe_value){ .s = g->rwbs }) < 0)
			goto nomem;
	}
	free(r);
	return 0;
nomem:
	free(r);
	return -ENOMEM;
}

static void on_complete(struct ana *a, const struct strobe_event *ev)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	uint32_t dev = (uint32_t)strobe_field_uint(ev, &p->co_dev);
	uint64_t sector = strobe_field_uint(ev, &p->co_sector), k = rq_key(dev, sector), lat;
	struct rq *rp = ana_map_get(&p->rqs, k), r;
	struct disk *d;
	struct blkgroup *b;
	bool created;

	if (!rp || rp->dev != dev || rp->sector != sector)
		return;
	r = *rp;
	ana_map_del(&p->rqs, k);
	if (p->biolat) {
		biolat_complete(a, ev, &r);
		return;
	}
	if (ana_gap_since(c, r.since)) {
		a->dropped++;
		return;
	}
	lat = ev->ts - r.since;
	if (!ana_duration_ok(c, lat))
		return;
	d = ana_map_put(&p->disks, dev, &created);
	if (d) {
		d->dev = dev;
		d->bytes += r.bytes;
		ana_stats_add(&d->st, lat, false);
	}
	if (r.wb.kind != WB_DIRECT) {
		written_back(a, ev, &r, lat);
		return;
	}
	if (r.log_ok && p->blk_log && c->opts.log)
		log_request(a, ev, &r);
	if (!r.have_owner)
		return;
	b = blk_row(p, r.key, &r.o);
	if (b) {
		memcpy(b->o.comm, r.o.comm, sizeof(b->o.comm));	/* its latest */
		b->bytes += r.bytes;
		b->direct += r.bytes;
		if (r.write)
			b->write += r.bytes;
		else
			b->read += r.bytes;
		ana_stats_add(&b->st, lat, c->want_hist);
	}
}

/* A task dirtied a folio (or an inode's metadata): inside a write call,
 * the call tops the credit up to its bytes at exit. */
static void on_dirty(struct ana *a, const struct strobe_event *ev, bool folio)
{
	struct io *p = a->priv;
	uint64_t ikey = wb_dirty(a, &p->wb, ev, folio);
	struct inflight *f;
	int cls;

	if (!ikey || !folio)
		return;
	f = ana_map_get(&p->inflight, (uint64_t)(uint32_t)ev->pid);
	if (!f || f->nr < 0 || f->nr >= MAX_NR)
		return;
	cls = p->info[f->nr].cls;
	if ((cls == C_WRITE || cls == C_XFER) && (!f->wb_ikey || f->wb_ikey == ikey)) {
		f->wb_ikey = ikey;
		f->wb_credited += p->wb.page_size;
	}
}

static void on_event(struct ana *a, const struct strobe_event *ev, int cookie)
{
	struct io *p = a->priv;
	int64_t ret = 0;
	int nr, kind;

	switch (cookie) {
	case ANA_SYS_ENTER_RAW:
	case ANA_SYS_EXIT_RAW:
	case ANA_SYS_ENTER_NAMED:
	case ANA_SYS_EXIT_NAMED:
		kind = ana_sysdec(&p->dec, ev, cookie, &nr, &ret);
		if (kind == ANA_SYS_IGNORE || nr < 0 || nr >= MAX_NR || !p->info[nr].cls)
			break;
		if (kind == ANA_SYS_EXIT) {
			leave(a, ev, nr, ret);
		} else if (cookie == ANA_SYS_ENTER_RAW) {
			enter(a, ev, nr, arg_fd(ev, &p->dec.raw_args, p->info[nr].in),
			      arg_fd(ev, &p->dec.raw_args, p->info[nr].out), NULL);
		} else if (ev->type < p->nr_named) {
			const struct named *n = &p->named[ev->type];
			int in = n->fd.valid ? (int)strobe_field_int(ev, &n->fd) : -1;
			int out = in;

			if (n->fd_in.valid)
				in = (int)strobe_field_int(ev, &n->fd_in);
			if (n->fd_out.valid)
				out = (int)strobe_field_int(ev, &n->fd_out);
			enter(a, ev, nr, in, out, &n->filename);
		}
		break;
	case BIO_QUEUE:
		if (a->core->filtered)
			break;	/* and the other block events: see the head */
		block_owner(a, ev, (uint32_t)strobe_field_uint(ev, &p->bq_dev),
			    strobe_field_uint(ev, &p->bq_sector),
			    strobe_field_uint(ev, &p->bq_nr_sector), true);
		break;
	case RQ_INSERT:
		if (a->core->filtered)
			break;
		block_owner(a, ev, (uint32_t)strobe_field_uint(ev, &p->ri_dev),
			    strobe_field_uint(ev, &p->ri_sector), 0, false);
		if (p->biolat && a->core->opts.queued)
			biolat_insert(p, ev);
		break;
	case RQ_ISSUE:
		if (!a->core->filtered)
			on_issue(a, ev);
		break;
	case RQ_COMPLETE:
		if (!a->core->filtered)
			on_complete(a, ev);
		break;
	case WB_FOLIO:
	case WB_DIRTY_INODE:
		if (!a->core->filtered && p->have_wb)
			on_dirty(a, ev, cookie == WB_FOLIO);
		break;
	case WB_ENQUEUE:
		if (!a->core->filtered && p->have_wb && p->wb.have_enqueue)
			wb_enqueue(a, &p->wb, ev);
		break;
	case WB_START:
	case WB_END:
		if (!a->core->filtered && p->have_wb)
			wb_window(a, &p->wb, ev, cookie == WB_START);
		break;
	}
}

static const struct ana_sub subs[] = {
	ANA_SYSCALL_SUBS(on_event),
	{ "block", "block_bio_queue", on_event, BIO_QUEUE },
	{ "block", "block_rq_insert", on_event, RQ_INSERT },
	{ "block", "block_rq_issue", on_event, RQ_ISSUE },
	{ "block", "block_rq_complete", on_event, RQ_COMPLETE },
	{ "writeback", "writeback_dirty_folio", on_event, WB_FOLIO },
	{ "writeback", "writeback_dirty_inode", on_event, WB_DIRTY_INODE },
	{ "writeback", "writeback_dirty_inode_enqueue", on_event, WB_ENQUEUE },
	{ "writeback", "writeback_single_inode_start", on_event, WB_START },
	{ "writeback", "writeback_single_inode", on_event, WB_END },
	{ NULL, NULL, NULL, 0 }
};

static int init(struct ana *a)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	size_t i;
	int ret = 0, nr;

	ana_map_init(&p->inflight, sizeof(struct inflight));
	ana_map_init(&p->groups, sizeof(struct group));
	ana_map_init(&p->fds, sizeof(struct fdgroup));
	ana_map_init(&p->lats, sizeof(struct latgroup));
	ana_map_init(&p->fdnames, sizeof(struct fdname));
	ana_map_init(&p->bio_owner, sizeof(struct bio_own));
	ana_map_init(&p->rqs, sizeof(struct rq));
	ana_map_init(&p->disks, sizeof(struct disk));
	ana_map_init(&p->blk, sizeof(struct blkgroup));
	ana_map_init(&p->wbdisks, sizeof(struct wbdisk));
	ana_map_init(&p->bl, sizeof(struct blgroup));
	ana_map_init(&p->inserted, sizeof(uint64_t));
	wb_init(&p->wb);
	for (i = 0; i < sizeof(io_calls) / sizeof(io_calls[0]); i++) {
		nr = strobe_syscall_nr(io_calls[i].name);
		if (nr < 0 || nr >= MAX_NR)
			continue;
		p->info[nr].cls = (uint8_t)io_calls[i].cls;
		p->info[nr].in = (int8_t)io_calls[i].in;
		p->info[nr].out = (int8_t)io_calls[i].out;
	}
	p->biolat = a->ops == &ana_biolatency_ops;
	if (p->biolat)
		return biolat_init(a);
	if (ana_view(c, STROBE_VIEW_TOP)) {
		p->top = ana_add_table(a, "io.top", "I/O bytes from system calls", STROBE_VIEW_TOP);
		p->files = ana_add_table(a, "io.files", "I/O bytes per file descriptor",
					 STROBE_VIEW_TOP);
		if (!p->top || !p->files)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->top);
		ret |= tbl_col(p->top, "read_bytes", "Read", STROBE_COL_BYTES);
		ret |= tbl_col(p->top, "write_bytes", "Written", STROBE_COL_BYTES);
		ret |= tbl_col(p->top, "reads", "Reads", STROBE_COL_INT);
		ret |= tbl_col(p->top, "writes", "Writes", STROBE_COL_INT);
		ret |= ana_owner_cols(c, p->files);
		ret |= tbl_col(p->files, "fd", "FD", STROBE_COL_INT);
		ret |= tbl_col(p->files, "file", "File", STROBE_COL_STR);
		ret |= tbl_col(p->files, "read_bytes", "Read", STROBE_COL_BYTES);
		ret |= tbl_col(p->files, "write_bytes", "Written", STROBE_COL_BYTES);
	}
	if (ana_view(c, STROBE_VIEW_TOP | STROBE_VIEW_STATS)) {
		enum strobe_view v = ana_view(c, STROBE_VIEW_STATS) ? STROBE_VIEW_STATS
								    : STROBE_VIEW_TOP;

		p->lat = ana_add_table(a, "io.latency", "I/O system call latency", v);
		p->disk_t = ana_add_table(a, "io.disks", "Block request latency per disk", v);
		p->blk_t = ana_add_table(a, "io.block", "Block requests per owner (issued by "
					 "its tasks, or written back by the kernel for them)", v);
		p->wb_t = ana_add_table(a, "io.writeback", "Block requests written back by the "
					"kernel, per disk", v);
		if (!p->lat || !p->disk_t || !p->blk_t || !p->wb_t)
			return -ENOMEM;
		ret |= ana_owner_cols(c, p->lat);
		ret |= tbl_col(p->lat, "syscall", "Syscall", STROBE_COL_STR);
		ret |= ana_stats_cols(p->lat);
		ret |= tbl_col(p->disk_t, "disk", "Disk", STROBE_COL_STR);
		ret |= tbl_col(p->disk_t, "bytes", "Bytes", STROBE_COL_BYTES);
		ret |= ana_stats_cols(p->disk_t);
		ret |= ana_owner_cols(c, p->blk_t);
		ret |= tbl_col(p->blk_t, "bytes", "Bytes", STROBE_COL_BYTES);
		ret |= tbl_col(p->blk_t, "direct_bytes", "Direct", STROBE_COL_BYTES);
		ret |= tbl_col(p->blk_t, "writeback_bytes", "Writeback", STROBE_COL_BYTES);
		ret |= tbl_col(p->blk_t, "read_bytes", "Read", STROBE_COL_BYTES);
		ret |= tbl_col(p->blk_t, "write_bytes", "Written", STROBE_COL_BYTES);
		ret |= ana_stats_cols(p->blk_t);
		ret |= tbl_col(p->wb_t, "disk", "Disk", STROBE_COL_STR);
		ret |= tbl_col(p->wb_t, "bytes", "Bytes", STROBE_COL_BYTES);
		ret |= tbl_col(p->wb_t, "charged_bytes", "Charged", STROBE_COL_BYTES);
		ret |= tbl_col(p->wb_t, "unattributed_bytes", "Unattributed",
				     STROBE_COL_BYTES);
		ret |= tbl_col(p->wb_t, "unknown_dirtier_bytes", "No dirtier",
				     STROBE_COL_BYTES);
		ret |= tbl_col(p->wb_t, "lost_events_bytes", "Lost events",
				     STROBE_COL_BYTES);
		ret |= tbl_col(p->wb_t, "requests", "Requests", STROBE_COL_INT);
	}
	if (ana_view(c, STROBE_VIEW_FREQ)) {
		if (!ana_add_freq_schema(a, "io.freq", "I/O system call latency distribution") ||
		    !ana_add_freq_schema(a, "io.block_freq", "Block request latency distribution"))
			return -ENOMEM;
	}
	if (ana_view(c, STROBE_VIEW_LOG)) {
		p->log = ana_add_table(a, "io.log", "I/O system calls", STROBE_VIEW_LOG);
		p->blk_log = ana_add_table(a, "io.block_log", "Block requests", STROBE_VIEW_LOG);
		if (!p->log || !p->blk_log)
			return -ENOMEM;
		ret |= tbl_col(p->log, "ts", "Begin", STROBE_COL_TIMESTAMP);
		ret |= tbl_col(p->log, "duration", "Duration(us)", STROBE_COL_DURATION);
		ret |= ana_task_cols(p->log);
		ret |= tbl_col(p->log, "syscall", "Syscall", STROBE_COL_STR);
		ret |= tbl_col(p->log, "fd", "FD", STROBE_COL_INT);
		ret |= tbl_col(p->log, "file", "File", STROBE_COL_STR);
		ret |= tbl_col(p->log, "bytes", "Bytes", STROBE_COL_BYTES);
		ret |= tbl_col(p->log, "error", "Error", STROBE_COL_STR);
		ret |= tbl_col(p->blk_log, "ts", "Issued", STROBE_COL_TIMESTAMP);
		ret |= tbl_col(p->blk_log, "latency", "Latency(us)", STROBE_COL_DURATION);
		ret |= tbl_col(p->blk_log, "disk", "Disk", STROBE_COL_STR);
		ret |= tbl_col(p->blk_log, "sector", "Sector", STROBE_COL_INT);
		ret |= tbl_col(p->blk_log, "bytes", "Bytes", STROBE_COL_BYTES);
		ret |= ana_task_cols(p->blk_log);
		ret |= tbl_col(p->blk_log, "via", "Via", STROBE_COL_STR);
	}
	return ret ? -ENOMEM : 0;
}

static int resolve(struct ana *a, struct strobe_formats *fmts)
{
	struct io *p = a->priv;
	const struct strobe_format *e, *ex;
	bool named, use_raw;
	int i, max_id = -1;

	ana_sysdec_resolve(&p->dec, fmts);
	use_raw = p->dec.use_raw;
	named = p->dec.named;
	max_id = named ? strobe_formats_max_id(fmts) : -1;
	if (max_id >= 0) {
		p->named = calloc((size_t)max_id + 1, sizeof(*p->named));
		if (!p->named)
			return -ENOMEM;
		p->nr_named = max_id + 1;
		for (i = 0; i <= max_id; i++) {
			const char *ename;
			struct named *n;

			e = strobe_formats_by_id(fmts, i);
			if (!e || strcmp(strobe_format_system(e), "syscalls"))
				continue;
			ename = strobe_format_name(e);
			n = &p->named[i];
			if (!strncmp(ename, "sys_enter_", 10)) {
				strobe_field_resolve(e, "fd", &n->fd);
				if (strobe_field_resolve(e, "fd_in", &n->fd_in))
					strobe_field_resolve(e, "in_fd", &n->fd_in);
				if (strobe_field_resolve(e, "fd_out", &n->fd_out))
					strobe_field_resolve(e, "out_fd", &n->fd_out);
				if (!strobe_field_resolve(e, "filename", &n->filename) &&
				    n->filename.is_dynamic)
					p->have_names = true;
			}
		}
	}
	e = strobe_formats_find(fmts, "block", "block_bio_queue");
	if (e) {
		strobe_field_resolve(e, "dev", &p->bq_dev);
		strobe_field_resolve(e, "sector", &p->bq_sector);
		strobe_field_resolve(e, "nr_sector", &p->bq_nr_sector);
	}
	e = strobe_formats_find(fmts, "block", "block_rq_insert");
	if (e) {
		strobe_field_resolve(e, "dev", &p->ri_dev);
		strobe_field_resolve(e, "sector", &p->ri_sector);
	}
	e = strobe_formats_find(fmts, "block", "block_rq_issue");
	ex = strobe_formats_find(fmts, "block", "block_rq_complete");
	if (e && ex && !strobe_field_resolve(e, "dev", &p->is_dev) &&
	    !strobe_field_resolve(e, "sector", &p->is_sector) &&
	    !strobe_field_resolve(ex, "dev", &p->co_dev) &&
	    !strobe_field_resolve(ex, "sector", &p->co_sector)) {
		strobe_field_resolve(e, "bytes", &p->is_bytes);
		strobe_field_resolve(e, "nr_sector", &p->is_nr_sector);
		strobe_field_resolve(e, "rwbs", &p->is_rwbs);
		p->have_block = true;
		p->have_wb = wb_resolve(&p->wb, fmts);
	}
	if (p->biolat) {
		if (!p->have_block)
			return -ENOENT;
		if (a->core->filtered) {
			ana_note(a->core, "biolatency: the recording was PID-filtered (%s): "
				 "block requests are issued and completed in untraced tasks' "
				 "context too, so they cannot be measured (record the whole "
				 "system)", a->core->target ? a->core->target : "");
			return -ENOENT;
		}
		if (!p->have_wb)
			ana_note(a->core, "biolatency: no writeback events: requests the "
				 "kernel's flushers write back are the flusher's");
		if (a->core->opts.queued && !p->ri_dev.valid)
			ana_note(a->core, "biolatency: no block:block_rq_insert events: "
				 "latency from issue (-Q needs them)");
		return 0;
	}
	if (!use_raw && !named && !p->have_block)
		return -ENOENT;
	if (!p->have_block)
		ana_note(a->core, "io: no block:block_rq_issue/complete events: no disk latency "
			 "(record with 'strobe record --preset io')");
	else if (!p->have_wb)
		ana_note(a->core, "io: no writeback:writeback_single_inode_start/"
			 "writeback_single_inode events: block writes the kernel's flushers "
			 "issue are charged to the flusher, not to who dirtied the pages "
			 "(record with 'strobe record --preset io')");
	else if (!p->wb.have_dirty)
		ana_note(a->core, "io: no writeback:writeback_dirty_folio events: block "
			 "writes by the kernel's flushers cannot be charged to who dirtied "
			 "the pages (record with 'strobe record --preset io')");
	if (!use_raw && !named)
		ana_note(a->core, "io: no syscall events: no per-process bytes "
			 "(record with 'strobe record --preset syscalls')");
	else if (!p->have_names)
		ana_note(a->core, "io: file names unavailable: %s", use_raw
			 ? "raw_syscalls events carry no strings"
			 : "this kernel's open events carry a pointer, not the path");
	return 0;
}

/* bytes as "N bytes", "N.N KiB" or "N.N MiB" */
static void human(char *buf, size_t size, uint64_t bytes)
{
	if (bytes < 1024)
		snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
	else if (bytes < 1024 * 1024)
		snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
	else
		snprintf(buf, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

/* io.writeback, one row per disk, and a note on what was not charged. */
static int written_back_rows(struct ana_core *c, struct io *p)
{
	struct wbdisk *d;
	union strobe_value *v;
	uint64_t unknown = 0, cut = 0, other = 0;
	size_t pos = 0;
	char buf[32], b1[32], b2[32], b3[32];

	while ((d = ana_map_next(&p->wbdisks, &pos, NULL))) {
		if (!(v = tbl_row(p->wb_t)))
			return -ENOMEM;
		snprintf(buf, sizeof(buf), "%u:%u", d->dev >> 20, d->dev & 0xfffff);
		v[0].s = tbl_str(p->wb_t, buf);
		v[1].u = d->bytes;
		v[2].u = d->charged;
		v[3].u = d->why.unknown + d->why.cut + d->why.other;
		v[4].u = d->why.unknown;
		v[5].u = d->why.cut;
		v[6].i = (int64_t)d->requests;
		unknown += d->why.unknown;
		cut += d->why.cut;
		other += d->why.other;
	}
	if (unknown + cut + other) {
		char msg[400];
		size_t n = 0;

		if (unknown) {
			human(b1, sizeof(b1), unknown);
			n += (size_t)snprintf(msg + n, sizeof(msg) - n, "; %s of inodes whose "
					      "dirtying the trace does not hold (dirtied before "
					      "the recording)", b1);
		}
		if (cut) {
			human(b2, sizeof(b2), cut);
			n += (size_t)snprintf(msg + n, sizeof(msg) - n, "; %s by flushers whose "
					      "writeback window lost events cut", b2);
		}
		if (other) {
			human(b3, sizeof(b3), other);
			snprintf(msg + n, sizeof(msg) - n, "; %s of owners beyond %d per inode "
				 "or of an earlier generation", b3, WB_SHARES);
		}
		ana_note(c, "io: block writes by the kernel not charged to who dirtied the "
			 "pages: %s", msg + 2);
	}
	return 0;
}

static int finish(struct ana *a)
{
	struct io *p = a->priv;
	struct ana_core *c = a->core;
	struct ana_rank *r = NULL;
	union strobe_value *v;
	size_t n, i;
	char buf[32], title[160];
	int k;

	if (p->biolat)
		return biolat_finish(a);
	if (p->have_block)
		ana_note_filtered(c, "io", "block requests are issued and completed in "
				  "untraced tasks' context too, so block latency and per-disk "
				  "figures are not measured (record the whole system for them)");
	if (p->top) {
		struct group *g;
		struct fdgroup *f;

		if (ana_rank_map(&p->groups, offsetof(struct group, wbytes), &r, &n) < 0)
			return -ENOMEM;
		for (i = 0; i < n; i++) {	/* rank by read + written */
			g = r[i].item;
			r[i].metric = g->rbytes + g->wbytes;
		}
		ana_rank_sort(r, n);
		for (i = 0; i < ana_top_n(c, n); i++) {
			g = r[i].item;
			if (!(v = tbl_row(p->top)))
				goto nomem;
			k = ana_owner_vals(c, p->top, v, &g->o);
			v[k++].u = g->rbytes;
			v[k++].u = g->wbytes;
			v[k++].i = (int64_t)g->reads;
			v[k++].i = (int64_t)g->writes;
		}
		free(r);
		if (ana_rank_map(&p->fds, offsetof(struct fdgroup, wbytes), &r, &n) < 0)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			f = r[i].item;
			r[i].metric = f->rbytes + f->wbytes;
		}
		ana_rank_sort(r, n);
		for (i = 0; i < ana_top_n(c, n); i++) {
			f = r[i].item;
			if (!(v = tbl_row(p->files)))
				goto nomem;
			k = ana_owner_vals(c, p->files, v, &f->o);
			v[k++].i = f->fd;
			v[k++].s = tbl_str(p->files, f->name);
			v[k++].u = f->rbytes;
			v[k++].u = f->wbytes;
		}
		free(r);
		r = NULL;
	}
	if (p->lat) {
		struct latgroup *l;
		struct disk *d;
		struct blkgroup *b;

		if (ana_rank_map(&p->lats, offsetof(struct latgroup, st.total), &r, &n) < 0)
			return -ENOMEM;
		for (i = 0; i < ana_top_n(c, n); i++) {
			l = r[i].item;
			if (!(v = tbl_row(p->lat)))
				goto nomem;
			k = ana_owner_vals(c, p->lat, v, &l->o);
			v[k++].s = tbl_str(p->lat, nr_name(l->nr, buf, sizeof(buf)));
			ana_stats_vals(v + k, &l->st);
			if (l->st.hist) {
				snprintf(title, sizeof(title), "%s latency: %s %d (%s)",
					 nr_name(l->nr, buf, sizeof(buf)),
					 c->opts.group_by == STROBE_GROUP_THREAD ? "tid" : "pid",
					 c->opts.group_by == STROBE_GROUP_THREAD ? l->o.tid : l->o.pid,
					 l->o.comm);
				if (ana_emit_hist(a, "io.freq", title, &l->st, &l->o, "syscall",
						  nr_name(l->nr, buf, sizeof(buf))) < 0)
					goto nomem;
			}
		}
		free(r);
		if (ana_rank_map(&p->disks, offsetof(struct disk, bytes), &r, &n) < 0)
			return -ENOMEM;
		for (i = 0; i < ana_top_n(c, n); i++) {
			d = r[i].item;
			if (!(v = tbl_row(p->disk_t)))
				goto nomem;
			snprintf(buf, sizeof(buf), "%u:%u", d->dev >> 20, d->dev & 0xfffff);
			v[0].s = tbl_str(p->disk_t, buf);
			v[1].u = d->bytes;
			ana_stats_vals(v + 2, &d->st);
		}
		free(r);
		if (ana_rank_map(&p->blk, offsetof(struct blkgroup, bytes), &r, &n) < 0)
			return -ENOMEM;
		for (i = 0; i < ana_top_n(c, n); i++) {
			b = r[i].item;
			if (!(v = tbl_row(p->blk_t)))
				goto nomem;
			k = ana_owner_vals(c, p->blk_t, v, &b->o);
			v[k++].u = b->bytes;
			v[k++].u = b->direct;
			v[k++].u = b->wb;
			v[k++].u = b->read;
			v[k++].u = b->write;
			ana_stats_vals(v + k, &b->st);
			if (b->st.hist) {
				k = snprintf(title, sizeof(title), "block request latency: ");
				ana_owner_desc(c, &b->o, title + k, sizeof(title) - (size_t)k);
				if (ana_emit_hist(a, "io.block_freq", title, &b->st, &b->o, NULL,
						  NULL) < 0)
					goto nomem;
			}
		}
		free(r);
		r = NULL;
		if (written_back_rows(c, p) < 0)
			return -ENOMEM;
	}
	free(r);
	return 0;
nomem:
	free(r);
	return -ENOMEM;
}

/* Free the histograms of the latency figures. */
static void free_hists(struct io *p)
{
	struct latgroup *l;
	struct disk *d;
	struct blkgroup *b;
	struct blgroup *g;
	size_t pos = 0;

	while ((l = ana_map_next(&p->lats, &pos, NULL)))
		ana_stats_free(&l->st);
	pos = 0;
	while ((d = ana_map_next(&p->disks, &pos, NULL)))
		ana_stats_free(&d->st);
	pos = 0;
	while ((b = ana_map_next(&p->blk, &pos, NULL)))
		ana_stats_free(&b->st);
	pos = 0;
	while ((g = ana_map_next(&p->bl, &pos, NULL)))
		ana_stats_free(&g->st);
}

static void reset(struct ana *a, uint64_t ts)
{
	struct io *p = a->priv;

	free_hists(p);
	ana_map_clear(&p->groups);
	ana_map_clear(&p->fds);
	ana_map_clear(&p->lats);
	ana_map_clear(&p->disks);
	ana_map_clear(&p->blk);
	ana_map_clear(&p->wbdisks);
	ana_map_clear(&p->bl);
}

static void fini(struct ana *a)
{
	struct io *p = a->priv;

	free_hists(p);
	ana_map_free(&p->inflight);
	ana_map_free(&p->groups);
	ana_map_free(&p->fds);
	ana_map_free(&p->lats);
	ana_map_free(&p->fdnames);
	ana_map_free(&p->bio_owner);
	ana_map_free(&p->rqs);
	ana_map_free(&p->disks);
	ana_map_free(&p->blk);
	ana_map_free(&p->wbdisks);
	ana_map_free(&p->bl);
	ana_map_free(&p->inserted);
	wb_free(&p->wb);
	free(p->named);
}

const struct ana_ops ana_io_ops = {
	.name = "io",
	.summary = "I/O bytes and latency per process, container and file; block request "
		   "latency per disk and issuer",
	.needs = "raw_syscalls:sys_enter/sys_exit (or syscalls:*) and block:block_rq_issue/"
		 "block_rq_complete",
	.preset = "syscalls,io",
	.priv_size = sizeof(struct io),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.finish = finish,
	.reset = reset,
	.free = fini,
};

/* The same code measuring as bcc's biolatency: see the head. */
const struct ana_ops ana_biolatency_ops = {
	.name = "biolatency",
	.summary = "block request latency as bcc's biolatency, per container, disk or flags",
	.needs = "block:block_rq_issue/block_rq_complete",
	.preset = "io",
	.priv_size = sizeof(struct io),
	.init = init,
	.subs = subs,
	.resolve = resolve,
	.finish = finish,
	.reset = reset,
	.free = fini,
};
