/*
 * cpu.c - per-CPU page cursors over a trace file's ring-buffer data.
 *
 * Uncompressed data (v6, v7 "none") is handed out as pointers into the
 * file mapping, one page at a time, with no copy.  Compressed v7 data is
 * inflated one chunk at a time into a buffer owned by the cursor, whose
 * pages are handed out in turn; memory stays at one chunk per cursor
 * however long the trace.  A trailing partial page (data size not a
 * multiple of the page size) is never handed out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format.h"

struct strobe_tf_cpu {
	struct strobe_tracefile *tf;
	const struct tf_buffer *buf;
	struct tf_cpu_data data;
	uint64_t pos;		/* uncompressed: offset into the CPU's data */
	uint64_t released;	/* mapped: data before this was dropped from RSS */
	/* compressed only */
	uint64_t chunk_off;	/* file offset of the next chunk header */
	uint64_t chunk_end;	/* end of this CPU's chunks in the file */
	uint32_t chunks_left;
	uint8_t *win;		/* inflated chunk */
	size_t win_len;		/* whole pages in win */
	size_t win_pos;
};

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

/* Inflate the next chunk into c->win.  Returns 1, 0 at the end, -errno. */
static int next_chunk(struct strobe_tf_cpu *c, struct strobe_error *err)
{
	struct strobe_tracefile *tf = c->tf;
	struct tf_rd r;
	uint32_t csize, usize;
	const uint8_t *p;
	uint8_t *win;
	int ret;

	if (!c->chunks_left)
		return 0;
	tf_rd_file(&r, tf, c->chunk_off, c->chunk_end, "buffer flyrecord", err);
	if ((ret = tf_u32(&r, &csize)) || (ret = tf_u32(&r, &usize)) ||
	    (ret = tf_bytes(&r, csize, &p)))
		return ret;
	if (usize > TF_MAX_CHUNK_SIZE)
		return strobe_err(err, -EINVAL,
				  "%s: bad chunk size %u of CPU %d in buffer '%s' at offset %" PRIu64,
				  tf->path, usize, c->data.cpu, c->buf->name, c->chunk_off + 4);
	ret = tf_inflate(tf->compression, p, csize, usize, &win);
	if (ret)
		return strobe_err(err, ret,
				  "%s: cannot decompress chunk of CPU %d in buffer '%s' at offset %"
				  PRIu64 " (%s, %u -> %u bytes)", tf->path, c->data.cpu,
				  c->buf->name, c->chunk_off, tf->compression, csize, usize);
	free(c->win);
	c->win = win;
	c->win_len = usize - usize % tf->page_size;
	c->win_pos = 0;
	c->chunk_off += 8 + (uint64_t)csize;
	c->chunks_left--;
	return 1;
}

/*
 * Pages already handed out (all before c->pos: the caller is done with
 * them) are dropped from the mapping's resident set, so reading a long
 * file keeps RSS flat.  The mapping is private and read-only, so a later
 * access simply faults the page back in from the file.
 */
#define RELEASE_BYTES (8u << 20)
static void release_consumed(struct strobe_tf_cpu *c)
{
	uintptr_t hp = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)(c->tf->data + c->data.offset + c->released);
	uintptr_t end = (uintptr_t)(c->tf->data + c->data.offset + c->pos);

	start = (start + hp - 1) & ~(hp - 1);
	end &= ~(hp - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
	c->released = c->pos;
}

int strobe_tf_cpu_next_page(struct strobe_tf_cpu *c, const uint8_t **page,
			    struct strobe_error *err)
{
	unsigned ps = c->tf->page_size;
	int ret;

	if (!c->buf->compressed) {
		if (c->data.size < ps || c->pos > c->data.size - ps)
			return 0;
		if (c->tf->mapped && c->pos - c->released >= RELEASE_BYTES)
			release_consumed(c);
		*page = c->tf->data + c->data.offset + c->pos;
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
	free(c->win);
	free(c);
}
