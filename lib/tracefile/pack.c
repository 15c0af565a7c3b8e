/*
 * pack.c - records that are not ftrace pages (a BPF ring buffer's, perf
 * samples', a test's) packed into ftrace ring-buffer pages, one page
 * stream per CPU, for an instance buffer of a trace file (the storage
 * scheme of strobe-tracefile(3), "RECORDS BEYOND FTRACE PAGES").
 *
 * The pages are the kernel's own layout (events/header_page and
 * header_event, see lib/stream/page.h for the reader's side): a page
 * header (u64 time stamp of the page's first record, a commit word of 4
 * or 8 bytes), then records, each a u32 header { type_len:5,
 * time_delta:27 } and the payload padded to 4 bytes: type_len 1..28 for
 * payloads up to 112 bytes, else type_len 0 with the length (payload + 4)
 * in the next word.  A delta of 2^27 ns or more is carried by a time
 * extend record (type_len 30: the low 27 bits in the header, the rest in
 * the next word); a delta that does not fit 59 bits starts a new page.
 * Lost records (lost()) mark the next page's commit word as the kernel
 * does: bit 31, and bit 30 with the count stored right after the data.
 *
 * So trace-cmd reads the buffer with its kbuffer like any instance, and
 * strobe's reader through the same page path as ftrace data: there is no
 * second reader.  Full pages are written to a temporary file per CPU
 * (made next to the output, unlinked at once) as they fill, so memory
 * stays at one page per CPU however many records come.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefile-int.h"
#include "../util/file.h"

/* Ring-buffer event types (include/linux/ring_buffer.h; page.h reads them). */
#define RB_TYPE_DATA_MAX	28
#define RB_TYPE_TIME_EXTEND	30
#define RB_DELTA_BITS		27
#define RB_MISSED_EVENTS	(1ull << 31)
#define RB_MISSED_STORED	(1ull << 30)

struct pk_cpu {
	int fd;			/* -1 until the first page is written */
	uint8_t *page;		/* the page being filled, NULL before any */
	uint32_t len;		/* data bytes in it */
	bool open;		/* page holds a time stamp (and maybe data) */
	bool any;		/* a record was packed on this CPU */
	uint64_t last;		/* time of the last record packed */
	int64_t missed;		/* lost before the next page: 0, > 0, -1 unknown */
	uint64_t size;		/* bytes written to fd */
};

struct tf_packer {
	char *near;		/* temporary files are made next to this path */
	unsigned page_size;
	unsigned commit_size;	/* 4 or 8 */
	int nr_cpus;
	uint64_t records;
	struct pk_cpu *cpus;
};

int tf_packer_new(const char *near, unsigned page_size, unsigned commit_size, int nr_cpus,
		  struct tf_packer **out, struct strobe_error *err)
{
	struct tf_packer *pk;
	int i;

	*out = NULL;
	if (commit_size != 4 && commit_size != 8)
		return strobe_err(err, -EINVAL, "bad commit field size %u", commit_size);
	if (page_size < 256 || (page_size & (page_size - 1)))
		return strobe_err(err, -EINVAL, "bad page size %u", page_size);
	if (nr_cpus < 1 || nr_cpus > TF_MAX_CPUS)
		return strobe_err(err, -EINVAL, "bad CPU count %d", nr_cpus);
	pk = calloc(1, sizeof(*pk));
	if (!pk || !(pk->near = strdup(near)) ||
	    !(pk->cpus = calloc((size_t)nr_cpus, sizeof(*pk->cpus)))) {
		tf_packer_free(pk);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	pk->page_size = page_size;
	pk->commit_size = commit_size;
	pk->nr_cpus = nr_cpus;
	for (i = 0; i < nr_cpus; i++)
		pk->cpus[i].fd = -1;
	*out = pk;
	return 0;
}

void tf_packer_free(struct tf_packer *pk)
{
	int i;

	if (!pk)
		return;
	for (i = 0; pk->cpus && i < pk->nr_cpus; i++) {
		if (pk->cpus[i].fd >= 0)
			close(pk->cpus[i].fd);
		free(pk->cpus[i].page);
	}
	free(pk->cpus);
	free(pk->near);
	free(pk);
}

static void put32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_word(uint8_t *p, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Data bytes a page may hold: less the stored lost count when it has one. */
static uint32_t room(const struct tf_packer *pk, const struct pk_cpu *c)
{
	return pk->page_size - 8 - pk->commit_size - (c->missed > 0 ? pk->commit_size : 0);
}

/* Write CPU cpu's open page (its commit word filled in) and close it. */
static int flush(struct tf_packer *pk, int cpu, struct strobe_error *err)
{
	struct pk_cpu *c = &pk->cpus[cpu];
	uint64_t commit = c->len;
	int r;

	if (!c->open)
		return 0;
	if (c->missed) {
		commit |= RB_MISSED_EVENTS;
		if (c->missed > 0) {
			commit |= RB_MISSED_STORED;
			put_word(c->page + 8 + pk->commit_size + c->len, (uint64_t)c->missed,
				 pk->commit_size);
		}
	}
	put_word(c->page + 8, commit, pk->commit_size);
	if (c->fd < 0) {
		char *name = NULL;

		c->fd = strobe_file_create_tmp(pk->near, &name, err);
		if (c->fd < 0)
			return c->fd;
		unlink(name);
		free(name);
	}
	r = strobe_file_pwrite_all(c->fd, c->page, pk->page_size, c->size);
	if (r < 0)
		return strobe_err(err, r, "%s: cannot write CPU %d's records: %s", pk->near, cpu,
				  strerror(-r));
	c->size += pk->page_size;
	c->open = false;
	c->missed = 0;
	return 0;
}

/* Start a new page on c whose first record is at ts. */
static void start(struct tf_packer *pk, struct pk_cpu *c, uint64_t ts)
{
	memset(c->page, 0, pk->page_size);
	put_word(c->page, ts, 8);
	c->len = 0;
	c->open = true;
}

int tf_packer_add(struct tf_packer *pk, int cpu, uint64_t ts, const void *data,
		  uint32_t size, struct strobe_error *err)
{
	uint32_t asize = (size + 3) & ~3u, hlen = asize <= RB_TYPE_DATA_MAX * 4 ? 4 : 8;
	uint64_t delta;
	struct pk_cpu *c;
	uint8_t *p;
	int r;

	if (cpu < 0 || cpu >= pk->nr_cpus)
		return strobe_err(err, -EINVAL, "a record on CPU %d: the file has CPUs 0 to %d",
				  cpu, pk->nr_cpus - 1);
	if (size < 8 || !data)
		return strobe_err(err, -EINVAL, "a record of %u bytes is shorter than its "
				  "8-byte header", size);
	/* one record, a time extend and the stored lost count fit any page */
	if (size > pk->page_size || asize > pk->page_size - 8 - 2 * pk->commit_size - 8 - hlen)
		return strobe_err(err, -EMSGSIZE, "a record of %u bytes does not fit a "
				  "page of %u", size, pk->page_size);
	c = &pk->cpus[cpu];
	if (c->any && ts < c->last)
		return strobe_err(err, -EINVAL, "a record on CPU %d at %" PRIu64 " is earlier "
				  "than the one before it (%" PRIu64 ")", cpu, ts, c->last);
	if (!c->page && !(c->page = malloc(pk->page_size)))
		return strobe_err(err, -ENOMEM, "out of memory");
	delta = c->open ? ts - c->last : 0;
	if (c->open && (delta >> (RB_DELTA_BITS + 32) ||
			c->len + (delta >> RB_DELTA_BITS ? 8 : 0) + hlen + asize > room(pk, c))) {
		if ((r = flush(pk, cpu, err)) < 0)
			return r;
		delta = 0;
	}
	if (!c->open)
		start(pk, c, ts);
	p = c->page + 8 + pk->commit_size + c->len;
	if (delta >> RB_DELTA_BITS) {
		put32(p, RB_TYPE_TIME_EXTEND | (uint32_t)(delta & ((1u << RB_DELTA_BITS) - 1)) << 5);
		put32(p + 4, (uint32_t)(delta >> RB_DELTA_BITS));
		p += 8;
		c->len += 8;
		delta = 0;
	}
	if (hlen == 4) {
		put32(p, asize / 4 | (uint32_t)delta << 5);
	} else {
		put32(p, (uint32_t)delta << 5);		/* type_len 0 */
		put32(p + 4, asize + 4);
	}
	memcpy(p + hlen, data, size);	/* the padding is zero (start) */
	c->len += hlen + asize;
	c->last = ts;
	c->any = true;
	pk->records++;
	return 0;
}

int tf_packer_lost(struct tf_packer *pk, int cpu, int64_t count, struct strobe_error *err)
{
	struct pk_cpu *c;
	int r;

	if (cpu < 0 || cpu >= pk->nr_cpus)
		return strobe_err(err, -EINVAL, "lost records on CPU %d: the file has CPUs 0 to %d",
				  cpu, pk->nr_cpus - 1);
	c = &pk->cpus[cpu];
	if (!count)
		return 0;
	if ((r = flush(pk, cpu, err)) < 0)	/* the loss is before the next page */
		return r;
	if (count < 0 || c->missed < 0)
		c->missed = -1;
	else
		c->missed = c->missed > INT64_MAX - count ? INT64_MAX : c->missed + count;
	return 0;
}

int tf_packer_finish(struct tf_packer *pk, struct strobe_error *err)
{
	int i, r;

	for (i = 0; i < pk->nr_cpus; i++) {
		struct pk_cpu *c = &pk->cpus[i];

		/* a loss after the last record: an empty page says it */
		if (!c->open && c->missed) {
			if (!c->page && !(c->page = malloc(pk->page_size)))
				return strobe_err(err, -ENOMEM, "out of memory");
			start(pk, c, c->last);
		}
		if ((r = flush(pk, i, err)) < 0)
			return r;
	}
	return 0;
}

uint64_t tf_packer_records(const struct tf_packer *pk)
{
	return pk ? pk->records : 0;
}

int tf_packer_add_to(struct tf_packer *pk, struct strobe_tf_writer *w, int buffer,
		     struct strobe_error *err)
{
	int i, r;

	if (pk->nr_cpus > tf_writer_nr_cpus(w))
		return strobe_err(err, -EINVAL, "records on %d CPUs, the file has %d",
				  pk->nr_cpus, tf_writer_nr_cpus(w));
	if ((r = tf_packer_finish(pk, err)) < 0)
		return r;
	for (i = 0; i < pk->nr_cpus; i++) {
		struct pk_cpu *c = &pk->cpus[i];

		if (c->fd < 0)
			continue;
		r = tf_writer_add_buffer_cpu(w, buffer, i, c->fd, c->size, true, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- the formats the file holds ---------------------------------------- */

struct with_declared {
	struct strobe_tf_format *v;
	size_t n, cap;
	const struct strobe_tf_meta *m;
	struct strobe_error *err;
};

/* The "ID: n" line of a format text, or -1. */
static long text_id(const char *text, size_t len)
{
	const char *p = memmem(text, len, "\nID: ", 5);

	return p ? strtol(p + 5, NULL, 10) : -1;
}

static int add_declared(const struct strobe_format *fmt, void *arg)
{
	struct with_declared *wd = arg;
	const char *text = strobe_format_text(fmt);
	int id = strobe_format_id(fmt);
	size_t i;

	if (!text)
		return 0;	/* the kernel's or a file's: in meta already */
	for (i = 0; i < wd->m->nr_formats; i++)
		if (text_id(wd->m->formats[i].text, wd->m->formats[i].len) == id)
			return strobe_err(wd->err, -EEXIST, "declared format %s:%s has the ID "
					  "%d of a format the file holds already (declare "
					  "after every kernel format is known)",
					  strobe_format_system(fmt), strobe_format_name(fmt), id);
	if (wd->n == wd->cap) {
		size_t cap = wd->cap ? 2 * wd->cap : 16;
		struct strobe_tf_format *v = realloc(wd->v, cap * sizeof(*v));

		if (!v)
			return strobe_err(wd->err, -ENOMEM, "out of memory");
		wd->v = v;
		wd->cap = cap;
	}
	wd->v[wd->n++] = (struct strobe_tf_format){ strobe_format_system(fmt), text,
						    strlen(text) };
	return 0;
}

int tf_formats_with_declared(const struct strobe_tf_meta *m, struct strobe_formats *f,
			     struct strobe_tf_format **out, size_t *nr,
			     struct strobe_error *err)
{
	struct with_declared wd = { NULL, 0, 0, m, err };
	int r;

	*out = NULL;
	*nr = 0;
	wd.cap = m->nr_formats + 16;
	if (!(wd.v = malloc(wd.cap * sizeof(*wd.v))))
		return strobe_err(err, -ENOMEM, "out of memory");
	if (m->nr_formats)
		memcpy(wd.v, m->formats, m->nr_formats * sizeof(*wd.v));
	wd.n = m->nr_formats;
	r = strobe_formats_each(f, add_declared, &wd);
	if (r) {
		free(wd.v);
		return r < 0 ? r : -EINVAL;
	}
	*out = wd.v;
	*nr = wd.n;
	return 0;
}
