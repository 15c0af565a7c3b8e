/*
 * read-v7.c - version 7 trace files: sections, the chain of options
 * sections, BUFFER options with per-CPU data, and decompression.
 *
 * A v7 file is a list of sections found through options: the initial
 * header points at the first options section, each options section ends
 * with a DONE option pointing at the next, and options 16..21 point at
 * the metadata sections (layout in tracefile-int.h).  Compressed metadata
 * sections are inflated whole into blocks owned by the tracefile (capped
 * at TF_MAX_SECTION_SIZE); compressed CPU data is only checked here
 * (chunk headers walked and bounded) and inflated chunk by chunk by the
 * per-CPU cursor (cpu.c).  Only zstd is supported, as it is the only
 * algorithm trace-cmd 3.1 uses by default; others are rejected by name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "tracefile-int.h"

#define MAX_OPTION_SECTIONS	1024

int tf_inflate(const char *algo, const uint8_t *src, size_t csize,
	       size_t usize, uint8_t **out)
{
	unsigned long long fsize;
	uint8_t *dst;
	size_t n;

	*out = NULL;
	if (strcmp(algo, "zstd"))
		return -EOPNOTSUPP;
	fsize = ZSTD_getFrameContentSize(src, csize);
	if (fsize == ZSTD_CONTENTSIZE_ERROR)
		return -EINVAL;
	if (fsize != ZSTD_CONTENTSIZE_UNKNOWN && fsize != usize)
		return -EINVAL;
	dst = malloc(usize ? usize : 1);
	if (!dst)
		return -ENOMEM;
	n = ZSTD_decompress(dst, usize, src, csize);
	if (ZSTD_isError(n) || n != usize) {
		free(dst);
		return -EINVAL;
	}
	*out = dst;
	return 0;
}

static int keep_block(struct strobe_tracefile *tf, uint8_t *block,
		      struct strobe_error *err)
{
	void **b = realloc(tf->blocks, (tf->nr_blocks + 1) * sizeof(*b));

	if (!b) {
		free(block);
		return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	}
	tf->blocks = b;
	tf->blocks[tf->nr_blocks++] = block;
	return 0;
}

/*
 * Open the section at `off`, which must have id `want`, and point *r at
 * its (uncompressed) content.  *flags receives the section flags.
 */
static int open_section(struct strobe_tracefile *tf, uint64_t off, uint16_t want,
			const char *name, struct tf_rd *r, uint16_t *flags,
			struct strobe_error *err)
{
	uint16_t id, fl;
	uint32_t str, csize, usize;
	uint64_t size;
	uint8_t *block;
	const uint8_t *p;
	int ret;

	if (off >= tf->len)
		return strobe_err(err, -EINVAL,
				  "%s: truncated in section '%s' at offset %" PRIu64,
				  tf->path, name, off);
	tf_rd_file(r, tf, off, tf->len, name, err);
	if ((ret = tf_u16(r, &id)) || (ret = tf_u16(r, &fl)) ||
	    (ret = tf_u32(r, &str)) || (ret = tf_u64(r, &size)))
		return ret;
	if (id != want)
		return strobe_err(err, -EINVAL,
				  "%s: bad section id %u (expected %u) in section '%s' at offset %"
				  PRIu64, tf->path, id, want, name, off);
	if (flags)
		*flags = fl;
	if (want == TF_SEC_BUFFER) {
		/* Flyrecord data is described by its BUFFER option, not here. */
		r->pos = r->len;
		return 0;
	}
	if (size > r->len - r->pos)
		return tf_rd_fail(r, SIZE_MAX);
	tf_rd_file(r, tf, off + TF_SEC_HDR_LEN, off + TF_SEC_HDR_LEN + size, name, err);
	if (!(fl & TF_SEC_FL_COMPRESS))
		return 0;

	if ((ret = tf_u32(r, &csize)) || (ret = tf_u32(r, &usize)))
		return ret;
	if (csize > r->len - r->pos)
		return tf_rd_fail(r, csize);
	if (usize > TF_MAX_SECTION_SIZE)
		return strobe_err(err, -EINVAL,
				  "%s: bad uncompressed size %u in section '%s' at offset %" PRIu64,
				  tf->path, usize, name, off + TF_SEC_HDR_LEN + 4);
	tf_bytes(r, csize, &p);
	ret = tf_inflate(tf->compression, p, csize, usize, &block);
	if (ret == -ENOMEM)
		return strobe_err(err, ret, "%s: out of memory", tf->path);
	if (ret)
		return strobe_err(err, ret,
				  "%s: cannot decompress section '%s' at offset %" PRIu64
				  " (%s, %u -> %u bytes)", tf->path, name,
				  off + TF_SEC_HDR_LEN + 8, tf->compression, csize, usize);
	if ((ret = keep_block(tf, block, err)))
		return ret;
	r->p = block;
	r->len = usize;
	r->pos = 0;
	r->file_off = off;
	r->inflated = true;
	return 0;
}

/* Parse one options section's options into tf; *next = next section. */
static int read_options(struct strobe_tracefile *tf, uint64_t off, uint64_t *next,
			struct strobe_error *err)
{
	struct tf_rd r;
	int ret;

	*next = 0;
	if ((ret = open_section(tf, off, TF_SEC_OPTIONS, "options", &r, NULL, err)))
		return ret;
	while (r.pos < r.len) {
		const uint8_t *p;
		uint16_t id;
		uint32_t size;

		if ((ret = tf_u16(&r, &id)) || (ret = tf_u32(&r, &size)) ||
		    (ret = tf_bytes(&r, size, &p)))
			return ret;
		if (id == STROBE_TFO_DONE) {
			if (size >= 8) {
				struct tf_rd d = { p, 8, 0, 0, false, "options", tf->path, err, NULL };

				tf_u64(&d, next);
			}
			return 0;
		}
		if ((ret = tf_add_option(tf, id, size, p, err)))
			return ret;
	}
	return 0;
}

static const struct {
	uint16_t id;
	const char *name;
	int (*parse)(struct strobe_tracefile *tf, struct tf_rd *r);
} meta_sections[] = {
	{ STROBE_TFO_HEADER_INFO,	"header_page",		tf_parse_headers },
	{ STROBE_TFO_FTRACE_EVENTS,	"ftrace formats",	tf_parse_ftrace },
	{ STROBE_TFO_EVENT_FORMATS,	"event formats",	tf_parse_systems },
	{ STROBE_TFO_KALLSYMS,		"kallsyms",		tf_parse_kallsyms },
	{ STROBE_TFO_PRINTK,		"printk formats",	tf_parse_printk },
	{ STROBE_TFO_CMDLINES,		"cmdlines",		tf_parse_cmdlines },
};

static int read_meta(struct strobe_tracefile *tf, struct strobe_error *err)
{
	size_t i;
	int ret;

	for (i = 0; i < sizeof(meta_sections) / sizeof(meta_sections[0]); i++) {
		size_t size;
		const uint8_t *p = strobe_tracefile_option(tf, meta_sections[i].id, &size);
		struct tf_rd o = { p, p ? size : 0, 0, 0, false, "options", tf->path, err,
				   NULL };
		struct tf_rd r;
		uint64_t off;

		if (!p) {
			if (meta_sections[i].id == STROBE_TFO_HEADER_INFO)
				return strobe_err(err, -EINVAL,
						  "%s: no header_page section (HEADER_INFO option missing)",
						  tf->path);
			continue;
		}
		o.file_off = (uint64_t)(p - tf->data);
		if ((ret = tf_u64(&o, &off)))
			return ret;
		ret = open_section(tf, off, meta_sections[i].id, meta_sections[i].name,
				   &r, NULL, err);
		if (ret || (ret = meta_sections[i].parse(tf, &r)))
			return ret;
	}
	return 0;
}

/*
 * Check one compressed CPU stream and sum its uncompressed size.  The
 * stream is a chunk count, then the chunks (u32 compressed and
 * uncompressed sizes, the zstd frame); the BUFFER option's size for the
 * CPU is the bytes after the count.  Chunks that end 8 bytes or more
 * before it (room for at least another chunk's header) mean a damaged
 * count: what the count reaches is read, the rest is said (a diagnostic,
 * strobe-damage(7)), as trace-cmd reads it but without its silence.
 */
static int walk_chunks(struct strobe_tracefile *tf, const char *bname,
		       struct tf_cpu_data *c, struct strobe_error *err)
{
	struct tf_rd r;
	uint32_t n, i;
	int ret;

	tf_rd_file(&r, tf, c->offset, c->offset + 4 + c->size, "buffer flyrecord", err);
	if ((ret = tf_u32(&r, &n)))
		return ret;
	if (n > (r.len - r.pos) / 8)
		return strobe_err(err, -EINVAL,
				  "%s: bad chunk count %u of CPU %d in section 'buffer flyrecord %s'"
				  " at offset %" PRIu64, tf->path, n, c->cpu, bname, c->offset);
	for (i = 0; i < n; i++) {
		uint32_t csize, usize;

		if ((ret = tf_u32(&r, &csize)) || (ret = tf_u32(&r, &usize)))
			return ret;
		if (usize > TF_MAX_CHUNK_SIZE) {
			r.pos -= 4;
			return strobe_err(err, -EINVAL,
					  "%s: bad chunk size %u of CPU %d in section 'buffer flyrecord %s'"
					  " at offset %" PRIu64, tf->path, usize, c->cpu, bname,
					  r.file_off + r.pos);
		}
		if ((ret = tf_skip(&r, csize)))	/* not read in: cpu.c reads it */
			return ret;
		c->data_size += usize;
	}
	c->nr_chunks = n;
	if (r.len - r.pos >= 8) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s: CPU %d of buffer '%s': its chunk count at offset %"
			 PRIu64 " says %u chunk%s, which hold %zu of its %" PRIu64 " bytes of "
			 "compressed data: the other %zu bytes are not read (a damaged chunk "
			 "count; the events in them are missing)", tf->path, c->cpu, bname,
			 c->offset, n, n == 1 ? "" : "s", r.pos - 4, c->size, r.len - r.pos);
		if (strobe_tracefile_add_diag(tf, STROBE_TF_DIAG_BAD_DATA, msg) < 0)
			return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	}
	return 0;
}

static int read_buffer_option(struct strobe_tracefile *tf, const struct tf_option *o,
			      struct strobe_error *err)
{
	struct tf_rd r = { o->data, o->size, 0, (uint64_t)(o->data - tf->data), false,
			   "options", tf->path, err, NULL };
	const char *name, *clock;
	struct tf_buffer *b;
	uint64_t off;
	uint32_t ps, cpus, i;
	uint16_t flags = 0;
	int ret;

	if ((ret = tf_u64(&r, &off)) || (ret = tf_str(&r, &name)) ||
	    (ret = tf_str(&r, &clock)) || (ret = tf_u32(&r, &ps)) ||
	    (ret = tf_u32(&r, &cpus)))
		return ret;
	if (ps != tf->page_size)
		return strobe_err(err, -EOPNOTSUPP,
				  "%s: buffer '%s' has page size %u, the file %u: not supported",
				  tf->path, name, ps, tf->page_size);
	if (cpus > (r.len - r.pos) / 20 || cpus > TF_MAX_CPUS)
		return strobe_err(err, -EINVAL,
				  "%s: bad CPU count %u of buffer '%s' in section 'options' at offset %"
				  PRIu64, tf->path, cpus, name, r.file_off + r.pos - 4);
	if (!*name) {
		b = &tf->bufs[0];
		free(b->clock);
		b->clock = strdup(*clock ? clock : "local");
		if (!b->clock)
			return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
		if (b->cpus)	/* a second top-level BUFFER option: keep the first */
			return 0;
	} else {
		b = tf_add_buffer(tf, name, strlen(name), clock, strlen(clock), err);
		if (!b)
			return -ENOMEM;
	}
	if (cpus) {
		struct tf_rd s;

		if ((ret = open_section(tf, off, TF_SEC_BUFFER, "buffer flyrecord", &s,
					&flags, err)))
			return ret;
	}
	b->compressed = flags & TF_SEC_FL_COMPRESS;
	b->cpus = calloc(cpus ? cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	b->nr_cpus = (int)cpus;
	for (i = 0; i < cpus; i++) {
		struct tf_cpu_data *c = &b->cpus[i];
		uint32_t id;

		tf_u32(&r, &id);
		tf_u64(&r, &c->offset);
		tf_u64(&r, &c->size);
		c->cpu = id < TF_MAX_CPUS ? (int)id : -1;
		if (c->cpu < 0)
			return strobe_err(err, -EINVAL,
					  "%s: bad CPU id %u of buffer '%s' in section 'options' at offset %"
					  PRIu64, tf->path, id, name, r.file_off + r.pos - 20);
		if (!c->size) {
			c->offset = 0;
			continue;
		}
		if (!b->compressed && (c->offset > tf->len || c->size > tf->len - c->offset)) {
			tf_clamp_cpu(tf, c, "buffer flyrecord", c->offset);
			if (!c->size)
				continue;
		}
		if (c->offset > tf->len || c->size > tf->len - c->offset ||
		    (b->compressed && tf->len - c->offset - c->size < 4))
			return strobe_err(err, -EINVAL,
					  "%s: truncated in section 'buffer flyrecord %s' at offset %"
					  PRIu64 ": CPU %d data (%" PRIu64 " bytes) runs past the end"
					  " of the file (%zu bytes)", tf->path, name, c->offset,
					  c->cpu, c->size, tf->len);
		if (b->compressed) {
			if ((ret = walk_chunks(tf, name, c, err)))
				return ret;
		} else {
			c->data_size = c->size;
		}
		b->data_size += c->data_size;
	}
	/* trace-cmd's BUFFER option ends with its CPUs' entries: more room
	 * than the count covers is a damaged count (a zeroed one hides every
	 * CPU's data) */
	if (r.len - r.pos >= 20) {
		char msg[512];
		size_t more = (r.len - r.pos) / 20;

		snprintf(msg, sizeof(msg), "%s: the BUFFER option of buffer '%s' (at offset %"
			 PRIu64 ") says %u CPU%s but holds %zu more CPU entr%s: %s not read "
			 "(a damaged CPU count; the events of %s are missing)", tf->path, name,
			 r.file_off, cpus, cpus == 1 ? "" : "s", more, more == 1 ? "y" : "ies",
			 more == 1 ? "its data is" : "their data is",
			 more == 1 ? "that CPU" : "those CPUs");
		if (strobe_tracefile_add_diag(tf, STROBE_TF_DIAG_BAD_DATA, msg) < 0)
			return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	}
	return 0;
}

int tf_read_v7(struct strobe_tracefile *tf, struct tf_rd *r)
{
	struct strobe_error *err = r->err;
	uint64_t seen[MAX_OPTION_SECTIONS];
	const char *algo, *ver;
	uint64_t off;
	size_t i, n = 0;
	int ret;

	r->section = "initial header";
	if ((ret = tf_str(r, &algo)) || (ret = tf_str(r, &ver)) ||
	    (ret = tf_u64(r, &off)))
		return ret;
	if (!(tf->compression = strdup(algo)))
		return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	if (strcmp(algo, "none") && strcmp(algo, "zstd"))
		return strobe_err(err, -EOPNOTSUPP,
				  "%s: compression algorithm '%.32s' is not supported (only zstd)",
				  tf->path, algo);

	while (off) {
		for (i = 0; i < n; i++)
			if (seen[i] == off)
				return strobe_err(err, -EINVAL,
						  "%s: options sections loop back to offset %" PRIu64,
						  tf->path, off);
		if (n == MAX_OPTION_SECTIONS)
			return strobe_err(err, -EINVAL, "%s: too many options sections",
					  tf->path);
		seen[n++] = off;
		if ((ret = read_options(tf, off, &off, err)))
			return ret;
	}

	if ((ret = read_meta(tf, err)))
		return ret;

	/* bufs[0] is always the top buffer; its clock may come from TRACECLOCK. */
	{
		size_t csize = 0;
		const char *text = strobe_tracefile_option(tf, STROBE_TFO_TRACECLOCK, &csize);
		const char *open = text ? memchr(text, '[', csize) : NULL;
		const char *close = open ? memchr(open, ']', csize - (size_t)(open - text)) : NULL;

		if (!tf_add_buffer(tf, "", 0, close ? open + 1 : NULL,
				   close ? (size_t)(close - open - 1) : 0, err))
			return -ENOMEM;
	}
	for (i = 0; i < tf->nr_opts; i++) {
		if (tf->opts[i].id != STROBE_TFO_BUFFER)
			continue;
		/* copy: tf->opts may move while buffers are added */
		struct tf_option o = tf->opts[i];

		if ((ret = read_buffer_option(tf, &o, err)))
			return ret;
	}
	return 0;
}
