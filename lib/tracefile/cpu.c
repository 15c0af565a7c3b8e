/*
 * cpu.c - per-CPU page cursors over a trace file's ring-buffer data.
 *
 * Each cursor reads its CPU's data with pread into a window of its own
 * and hands pages out of it: uncompressed data (v6, v7 "none") a window
 * of WINDOW bytes at a time, compressed v7 data one chunk at a time,
 * inflated.  Memory stays at one window (or chunk) per cursor however long
 * the trace, and since nothing is mapped from the file, a file that
 * shrinks while it is read ends the cursor with an error (a short read)
 * instead of killing the process with SIGBUS.  The copy costs little
 * because the window is small enough to stay in the CPU's L2 cache for
 * the decoder that reads it next, a window per CPU of the file: 64 KiB
 * windows took a quarter less CPU than 256 KiB ones for the same analyses
 * of a 2-CPU file (about as little as mapping the file, without its
 * SIGBUS), 16 and 32 KiB no less than 64.  A trailing
 * partial page (data size not a multiple of the page size) is never
 * handed out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefile-int.h"
#include "../util/file.h"

#define WINDOW		(64u << 10)	/* uncompressed: bytes per pread */

struct strobe_tf_cpu {
	struct strobe_tracefile *tf;
	const struct tf_buffer *buf;
	struct tf_cpu_data data;
	uint64_t pos;		/* uncompressed: offset into the CPU's data */
	uint64_t win_off;	/* uncompressed: data offset of win[0] */
	/* compressed only */
	uint64_t chunk_off;	/* file offset of the next chunk header */
	uint64_t chunk_end;	/* end of this CPU's chunks in the file */
	uint32_t chunks_left;
	uint8_t *cbuf;		/* compressed bytes of the chunk */
	size_t cbuf_cap;
	/* both */
	uint8_t *win;		/* read (or inflated) data */
	size_t win_len;		/* whole pages in win */
	size_t win_pos;		/* compressed: next page in win */
	/* with a hold: windows left, oldest first, each tagged with the
	 * hand-off that was being filled when it was left */
	const struct strobe_page_hold *hold;
	struct kept { uint8_t *buf; uint64_t tag; } *kept;
	size_t nr_kept, cap_kept;
};

void tf_cpu_set_hold(struct strobe_tf_cpu *c, const struct strobe_page_hold *h)
{
	c->hold = h;
}

/* Keep buf (left by the cursor) until the hand-off being filled is
 * released.  0 or -ENOMEM (buf freed then: the caller's reading fails). */
static int keep(struct strobe_tf_cpu *c, uint8_t *buf)
{
	if (c->nr_kept == c->cap_kept) {
		size_t cap = c->cap_kept ? 2 * c->cap_kept : 8;
		struct kept *n = realloc(c->kept, cap * sizeof(*n));

		if (!n) {
			free(buf);
			return -ENOMEM;
		}
		c->kept = n;
		c->cap_kept = cap;
	}
	c->kept[c->nr_kept].buf = buf;
	c->kept[c->nr_kept].tag = c->hold->taken;
	c->nr_kept++;
	return 0;
}

/* The oldest kept buffer if it is released (taken out of the list), or NULL. */
static uint8_t *released(struct strobe_tf_cpu *c)
{
	uint8_t *buf;

	if (!c->nr_kept || c->kept[0].tag >= __atomic_load_n(&c->hold->released,
							     __ATOMIC_ACQUIRE))
		return NULL;
	buf = c->kept[0].buf;
	memmove(c->kept, c->kept + 1, --c->nr_kept * sizeof(*c->kept));
	return buf;
}

int strobe_tf_cpu_open(struct strobe_tracefile *tf, int buffer, int cpu,
		       struct strobe_tf_cpu **out, struct strobe_error *err)
{
	const struct tf_buffer *b;
	struct strobe_tf_cpu *c;

	*out = NULL;
	if (buffer < 0 || buffer >= tf->nr_bufs)
		return strobe_err(err, -EINVAL, "%s: no buffer %d", tf->path, buffer);
	b = &tf->bufs[buffer];
	if (cpu < 0 || cpu >= b->nr_cpus)
		return strobe_err(err, -EINVAL, "%s: buffer '%s' has no CPU position %d",
				  tf->path, b->name, cpu);
	c = calloc(1, sizeof(*c));
	if (!c)
		return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	c->tf = tf;
	c->buf = b;
	c->data = b->cpus[cpu];
	if (b->compressed && c->data.size) {
		c->chunk_off = c->data.offset + 4;
		c->chunk_end = c->data.offset + 4 + c->data.size;
		c->chunks_left = c->data.nr_chunks;
	}
	*out = c;
	return 0;
}

int strobe_tf_cpu_id(const struct strobe_tf_cpu *c)
{
	return c->data.cpu;
}

/* A failed pread of this CPU's data at file offset `off`. */
static int read_error(struct strobe_tf_cpu *c, int ret, uint64_t off,
		      struct strobe_error *err)
{
	const struct strobe_tracefile *tf = c->tf;

	if (ret == -ENODATA)
		return strobe_err(err, -EIO, "%s: the file shrank while being read: CPU %d "
				  "data of buffer '%s' at offset %" PRIu64 " is gone (the file "
				  "had %zu bytes when opened)", tf->path, c->data.cpu,
				  c->buf->name, off, tf->len);
	return strobe_err(err, ret, "%s: cannot read CPU %d data at offset %" PRIu64 ": %s",
			  tf->path, c->data.cpu, off, strerror(-ret));
}

/* Inflate the next chunk into c->win.  Returns 1, 0 at the end, -errno. */
static int next_chunk(struct strobe_tf_cpu *c, struct strobe_error *err)
{
	struct strobe_tracefile *tf = c->tf;
	uint8_t hdr[8], *win;
	uint32_t csize, usize;
	int ret;

	if (!c->chunks_left)
		return 0;
	if (c->chunk_end - c->chunk_off < 8)
		return strobe_err(err, -EINVAL, "%s: truncated in section 'buffer flyrecord' "
				  "at offset %" PRIu64, tf->path, c->chunk_off);
	if ((ret = strobe_file_pread_all(tf->fd, hdr, 8, c->chunk_off)))
		return read_error(c, ret, c->chunk_off, err);
	csize = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 |
		(uint32_t)hdr[3] << 24;
	usize = (uint32_t)hdr[4] | (uint32_t)hdr[5] << 8 | (uint32_t)hdr[6] << 16 |
		(uint32_t)hdr[7] << 24;
	/* usize is capped; csize by the file, and a compressed chunk is
	 * never much larger than what it holds */
	if (usize > TF_MAX_CHUNK_SIZE || csize > c->chunk_end - c->chunk_off - 8 ||
	    csize > usize + usize / 64 + 4096)
		return strobe_err(err, -EINVAL,
				  "%s: bad chunk size %u -> %u of CPU %d in buffer '%s' at offset %"
				  PRIu64, tf->path, csize, usize, c->data.cpu, c->buf->name,
				  c->chunk_off);
	if (csize > c->cbuf_cap) {
		uint8_t *n = realloc(c->cbuf, csize);

		if (!n)
			return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
		c->cbuf = n;
		c->cbuf_cap = csize;
	}
	if ((ret = strobe_file_pread_all(tf->fd, c->cbuf, csize, c->chunk_off + 8)))
		return read_error(c, ret, c->chunk_off + 8, err);
	ret = tf_inflate(tf->compression, c->cbuf, csize, usize, &win);
	if (ret)
		return strobe_err(err, ret,
				  "%s: cannot decompress chunk of CPU %d in buffer '%s' at offset %"
				  PRIu64 " (%s, %u -> %u bytes)", tf->path, c->data.cpu,
				  c->buf->name, c->chunk_off, tf->compression, csize, usize);
	if (c->hold && c->win) {
		uint8_t *old;

		while ((old = released(c)))
			free(old);
		if (keep(c, c->win) < 0) {
			c->win = NULL;
			free(win);
			return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
		}
	} else {
		free(c->win);
	}
	c->win = win;
	c->win_len = usize - usize % tf->page_size;
	c->win_pos = 0;
	c->chunk_off += 8 + (uint64_t)csize;
	c->chunks_left--;
	return 1;
}

/* Uncompressed: read the window that starts at c->pos. */
static int next_window(struct strobe_tf_cpu *c, struct strobe_error *err)
{
	unsigned ps = c->tf->page_size;
	size_t room = WINDOW > ps ? WINDOW - WINDOW % ps : ps;
	uint64_t left = c->data.size - c->pos;
	size_t n = left < room ? (size_t)left : room;
	int ret;

	n -= n % ps;
	if (c->hold && c->win) {
		if (keep(c, c->win) < 0) {
			c->win = NULL;
			return strobe_err(err, -ENOMEM, "%s: out of memory", c->tf->path);
		}
		c->win = released(c);
	}
	if (!c->win && !(c->win = malloc(room)))
		return strobe_err(err, -ENOMEM, "%s: out of memory", c->tf->path);
	ret = strobe_file_pread_all(c->tf->fd, c->win, n, c->data.offset + c->pos);
	if (ret) {
		c->win_len = 0;
		return read_error(c, ret, c->data.offset + c->pos, err);
	}
	c->win_off = c->pos;
	c->win_len = n;
	return 0;
}

int strobe_tf_cpu_next_page(struct strobe_tf_cpu *c, const uint8_t **page,
			    struct strobe_error *err)
{
	unsigned ps = c->tf->page_size;
	int ret;

	if (!c->buf->compressed) {
		if (c->data.size < ps || c->pos > c->data.size - ps)
			return 0;
		if (!c->win_len || c->pos + ps > c->win_off + c->win_len) {
			if ((ret = next_window(c, err)))
				return ret;
		}
		*page = c->win + (c->pos - c->win_off);
		c->pos += ps;
		return 1;
	}
	/* Each round consumes a chunk: bounded by the chunk count. */
	while (c->win_pos + ps > c->win_len) {
		ret = next_chunk(c, err);
		if (ret <= 0)
			return ret;
	}
	*page = c->win + c->win_pos;
	c->win_pos += ps;
	return 1;
}

void strobe_tf_cpu_close(struct strobe_tf_cpu *c)
{
	if (!c)
		return;
	while (c->nr_kept)
		free(c->kept[--c->nr_kept].buf);
	free(c->kept);
	free(c->win);
	free(c->cbuf);
	free(c);
}
