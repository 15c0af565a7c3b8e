/*
 * read.c - opening trace-cmd files: the initial header, version 6 layout,
 * the metadata parsers shared with version 7 (read-v7.c), options, and
 * the getters of include/strobe/tracefile.h.
 *
 * Only regular files are read (a FIFO or a device is refused at once: a
 * pipe cannot be re-read and /dev/zero never ends).  The file is parsed
 * through an image of it that is filled in as the parsers reach its bytes
 * (tracefile-int.h), with struct tf_rd, a cursor that checks every read against
 * the end of its range; the magic and the initial header are checked
 * before anything else is read.  Every count found in
 * the file is bounded by the bytes left, so a hostile file can neither
 * make us loop nor allocate more than it is large (decompressed sections
 * are capped separately in read-v7.c).  The parsed metadata is loaded
 * into a libtraceevent tep_handle, the same way trace-cmd does it, so
 * events print exactly like `trace-cmd report`.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "tracefile-int.h"
#include "../util/file.h"

/* ---- bounds-checked reading ------------------------------------------ */

void tf_rd_file(struct tf_rd *r, struct strobe_tracefile *tf, uint64_t off,
		uint64_t end, const char *section, struct strobe_error *err)
{
	if (end > tf->len)
		end = tf->len;
	if (off > end)
		off = end;
	r->p = tf->data ? tf->data + off : NULL;	/* NULL: an empty file */
	r->len = end - off;
	r->pos = 0;
	r->file_off = off;
	r->inflated = false;
	r->section = section;
	r->path = tf->path;
	r->err = err;
	r->tf = tf;
}

static bool block_loaded(const struct strobe_tracefile *tf, uint64_t b)
{
	return tf->loaded[b / 8] & (1u << (b % 8));
}

/*
 * Large reads into the image (kallsyms, big format sections) would fault
 * its pages in one by one; map the range afresh with its pages allocated
 * in one go (a third of the cost of a 5 MiB metadata load here).  Only
 * blocks not yet read in are in the range, so nothing is lost; where
 * this cannot be done, the faults simply happen.
 */
static void populate(struct strobe_tracefile *tf, uint64_t start, uint64_t len)
{
	static long page;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	if (len < (256u << 10) || page <= 0 || start % (uint64_t)page ||
	    len % (uint64_t)page)
		return;
	(void)mmap((uint8_t *)tf->data + start, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE | MAP_POPULATE,
		   -1, 0);
}

int tf_load(struct strobe_tracefile *tf, uint64_t off, uint64_t n,
	    struct strobe_error *err)
{
	uint64_t b, e, last;
	int ret;

	if (off >= tf->len || !n || !tf->loaded)
		return 0;
	if (n > tf->len - off)
		n = tf->len - off;
	b = off / TF_LOAD_BLOCK;
	last = (off + n - 1) / TF_LOAD_BLOCK;
	for (; b <= last; b = e) {
		uint64_t start, end;

		if (block_loaded(tf, b)) {
			e = b + 1;
			continue;
		}
		for (e = b + 1; e <= last && !block_loaded(tf, e); e++)
			;
		start = b * TF_LOAD_BLOCK;
		end = e * TF_LOAD_BLOCK < tf->len ? e * TF_LOAD_BLOCK : tf->len;
		populate(tf, start, e * TF_LOAD_BLOCK - start);
		ret = strobe_file_pread_all(tf->fd, (uint8_t *)tf->data + start,
					    (size_t)(end - start), start);
		if (ret == -ENODATA)
			return strobe_err(err, -EIO, "%s: the file shrank while being read "
					  "(it had %zu bytes when opened; offset %" PRIu64
					  " is gone)", tf->path, tf->len, start);
		if (ret)
			return strobe_err(err, ret, "%s: cannot read at offset %" PRIu64 ": %s",
					  tf->path, start, strerror(-ret));
		for (; b < e; b++)
			tf->loaded[b / 8] |= (uint8_t)(1u << (b % 8));
	}
	return 0;
}

int tf_rd_fail(struct tf_rd *r, size_t need)
{
	(void)need;
	if (r->inflated)
		return strobe_err(r->err, -EINVAL,
				  "%s: truncated in section '%s' at offset %" PRIu64
				  " (byte %zu of the uncompressed section)",
				  r->path, r->section, r->file_off, r->pos);
	return strobe_err(r->err, -EINVAL,
			  "%s: truncated in section '%s' at offset %" PRIu64,
			  r->path, r->section, r->file_off + r->pos);
}

/* "bad <what>" at the cursor's position. */
static int rd_bad(struct tf_rd *r, const char *what)
{
	if (r->inflated)
		return strobe_err(r->err, -EINVAL,
				  "%s: bad %s in section '%s' at offset %" PRIu64
				  " (byte %zu of the uncompressed section)",
				  r->path, what, r->section, r->file_off, r->pos);
	return strobe_err(r->err, -EINVAL,
			  "%s: bad %s in section '%s' at offset %" PRIu64,
			  r->path, what, r->section, r->file_off + r->pos);
}

static size_t rd_left(const struct tf_rd *r)
{
	return r->len - r->pos;
}

int tf_bytes(struct tf_rd *r, size_t n, const uint8_t **out)
{
	int ret;

	*out = r->p ? r->p + r->pos : NULL;	/* also on failure: never used then */
	if (n > rd_left(r))
		return tf_rd_fail(r, n);
	if (r->tf && (ret = tf_load(r->tf, r->file_off + r->pos, n, r->err)))
		return ret;
	*out = r->p + r->pos;
	r->pos += n;
	return 0;
}

int tf_skip(struct tf_rd *r, size_t n)
{
	if (n > rd_left(r))
		return tf_rd_fail(r, n);
	r->pos += n;
	return 0;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int tf_u16(struct tf_rd *r, uint16_t *v)
{
	const uint8_t *p;
	int ret = tf_bytes(r, 2, &p);

	if (!ret)
		*v = (uint16_t)le(p, 2);
	return ret;
}

int tf_u32(struct tf_rd *r, uint32_t *v)
{
	const uint8_t *p;
	int ret = tf_bytes(r, 4, &p);

	if (!ret)
		*v = (uint32_t)le(p, 4);
	return ret;
}

int tf_u64(struct tf_rd *r, uint64_t *v)
{
	const uint8_t *p;
	int ret = tf_bytes(r, 8, &p);

	if (!ret)
		*v = le(p, 8);
	return ret;
}

int tf_str(struct tf_rd *r, const char **out)
{
	const uint8_t *s = r->p ? r->p + r->pos : NULL;
	const uint8_t *nul = NULL;
	size_t at = 0;
	int ret;

	/* read the file in a block at a time until the NUL */
	while (!nul && at < rd_left(r)) {
		uint64_t off = r->file_off + r->pos + at;
		size_t n = TF_LOAD_BLOCK - (size_t)(off % TF_LOAD_BLOCK);

		if (n > rd_left(r) - at)
			n = rd_left(r) - at;
		if (r->tf && (ret = tf_load(r->tf, off, n, r->err)))
			return ret;
		nul = memchr(s + at, 0, n);
		at += n;
	}
	if (!nul)
		return tf_rd_fail(r, rd_left(r) + 1);
	*out = (const char *)s;
	r->pos += (size_t)(nul - s) + 1;
	return 0;
}

/* A u64 size followed by that many bytes. */
static int rd_blob64(struct tf_rd *r, const uint8_t **p, size_t *n)
{
	uint64_t size;
	int ret = tf_u64(r, &size);

	*p = NULL;
	*n = 0;
	if (ret)
		return ret;
	if (size > rd_left(r))
		return tf_rd_fail(r, SIZE_MAX);
	*n = (size_t)size;
	return tf_bytes(r, *n, p);
}

static int rd_blob32(struct tf_rd *r, const uint8_t **p, size_t *n)
{
	uint32_t size;
	int ret = tf_u32(r, &size);

	*p = NULL;
	*n = 0;
	if (ret)
		return ret;
	*n = size;
	return tf_bytes(r, *n, p);
}

static int oom(struct tf_rd *r)
{
	return strobe_err(r->err, -ENOMEM, "%s: out of memory in section '%s'",
			  r->path, r->section);
}

/* ---- metadata sections (same layout in v6 and v7) --------------------- */

int tf_parse_headers(struct strobe_tracefile *tf, struct tf_rd *r)
{
	const uint8_t *p;
	size_t n;
	int ret;

	if ((ret = tf_bytes(r, 12, &p)))
		return ret;
	if (memcmp(p, "header_page", 12)) {
		r->pos -= 12;
		return rd_bad(r, "header_page marker");
	}
	if ((ret = rd_blob64(r, &p, &n)))
		return ret;
	if (strobe_tep_header_page(&tf->t, (const char *)p, n, (unsigned)tf->long_size))
		return oom(r);

	if ((ret = tf_bytes(r, 13, &p)))
		return ret;
	if (memcmp(p, "header_event", 13)) {
		r->pos -= 13;
		return rd_bad(r, "header_event marker");
	}
	return rd_blob64(r, &p, &n);
}

static int parse_formats(struct strobe_tracefile *tf, struct tf_rd *r,
			 const char *system)
{
	uint32_t count, i;
	const uint8_t *p;
	size_t n;
	int ret;

	if ((ret = tf_u32(r, &count)))
		return ret;
	if (count > rd_left(r) / 8)
		return rd_bad(r, "format count");
	for (i = 0; i < count; i++) {
		if ((ret = rd_blob64(r, &p, &n)))
			return ret;
		/* as trace-cmd: a format libtraceevent refuses, or that could
		 * crash it (lib/format/fmtcheck.c), is skipped; the file says which */
		if (!strobe_tep_format(&tf->t, (const char *)p, n, system))
			tf_diag_bad_format(tf, system, (const char *)p, n);
	}
	return 0;
}

int tf_parse_ftrace(struct strobe_tracefile *tf, struct tf_rd *r)
{
	return parse_formats(tf, r, "ftrace");
}

int tf_parse_systems(struct strobe_tracefile *tf, struct tf_rd *r)
{
	uint32_t systems, i;
	const char *name;
	int ret;

	if ((ret = tf_u32(r, &systems)))
		return ret;
	if (systems > rd_left(r) / 5)
		return rd_bad(r, "system count");
	for (i = 0; i < systems; i++) {
		if ((ret = tf_str(r, &name)))
			return ret;
		if ((ret = parse_formats(tf, r, name)))
			return ret;
	}
	return 0;
}

/* Read a length-prefixed text blob (32- or 64-bit length) and hand it to
 * `parse` (tep.c), which copies it.  An empty blob is not an error. */
static int parse_text_blob(struct strobe_tracefile *tf, struct tf_rd *r, bool len64,
			   int (*parse)(struct strobe_tep *t, const char *text, size_t n))
{
	const uint8_t *p;
	size_t n;
	int ret;

	ret = len64 ? rd_blob64(r, &p, &n) : rd_blob32(r, &p, &n);
	if (ret)
		return ret;
	return parse(&tf->t, (const char *)p, n) ? oom(r) : 0;
}

int tf_parse_kallsyms(struct strobe_tracefile *tf, struct tf_rd *r)
{
	return parse_text_blob(tf, r, false, strobe_tep_kallsyms);
}

int tf_parse_printk(struct strobe_tracefile *tf, struct tf_rd *r)
{
	return parse_text_blob(tf, r, false, strobe_tep_printk);
}

int tf_parse_cmdlines(struct strobe_tracefile *tf, struct tf_rd *r)
{
	return parse_text_blob(tf, r, true, strobe_tep_cmdlines);
}

/* ---- options and buffers ---------------------------------------------- */

int tf_add_option(struct strobe_tracefile *tf, uint16_t id, uint32_t size,
		  const uint8_t *data, struct strobe_error *err)
{
	if (tf->nr_opts == tf->cap_opts) {
		size_t cap = tf->cap_opts ? tf->cap_opts * 2 : 32;
		struct tf_option *o = realloc(tf->opts, cap * sizeof(*o));

		if (!o)
			return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
		tf->opts = o;
		tf->cap_opts = cap;
	}
	tf->opts[tf->nr_opts++] = (struct tf_option){ id, size, data };
	return 0;
}

static char *strndup_or(const char *s, size_t n, const char *fallback)
{
	if (!s || !n) {
		s = fallback;
		n = strlen(fallback);
	}
	return strndup(s, n);
}

struct tf_buffer *tf_add_buffer(struct strobe_tracefile *tf, const char *name,
				size_t name_len, const char *clock,
				size_t clock_len, struct strobe_error *err)
{
	struct tf_buffer *b;

	if (tf->nr_bufs >= TF_MAX_CPUS) {
		strobe_err(err, -EINVAL, "%s: too many buffers", tf->path);
		return NULL;
	}
	b = realloc(tf->bufs, (size_t)(tf->nr_bufs + 1) * sizeof(*b));
	if (!b)
		goto nomem;
	tf->bufs = b;
	b = &tf->bufs[tf->nr_bufs];
	memset(b, 0, sizeof(*b));
	b->name = strndup_or(name, name_len, "");
	b->clock = strndup_or(clock, clock_len, "local");
	if (!b->name || !b->clock) {
		free(b->name);
		free(b->clock);
		goto nomem;
	}
	tf->nr_bufs++;
	return b;
nomem:
	strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	return NULL;
}

/* The clock name inside "[local] global ..." text, or the first word. */
static void clock_name(const char *text, size_t n, const char **name, size_t *len)
{
	const char *open = memchr(text, '[', n);
	const char *close;
	size_t i = 0;

	if (open) {
		close = memchr(open, ']', n - (size_t)(open - text));
		if (close && close > open + 1) {
			*name = open + 1;
			*len = (size_t)(close - open - 1);
			return;
		}
	}
	while (i < n && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t'))
		i++;
	*name = text + i;
	*len = 0;
	while (i + *len < n && text[i + *len] > ' ' && text[i + *len] != 0x7f)
		(*len)++;
}

static bool has_option(const struct strobe_tracefile *tf, int id)
{
	size_t i;

	for (i = 0; i < tf->nr_opts; i++)
		if (tf->opts[i].id == id)
			return true;
	return false;
}

/*
 * A v6 option list after its "options  " marker: (u16 id, u32 size, data)
 * up to id 0.  keep: add each to tf's options; else only skip them.
 */
static int read_v6_options(struct strobe_tracefile *tf, struct tf_rd *r, bool keep)
{
	const uint8_t *p;
	uint16_t id;
	uint32_t size;
	int ret;

	for (;;) {
		if ((ret = tf_u16(r, &id)))
			return ret;
		if (!id)
			return 0;
		if ((ret = tf_u32(r, &size)) || (ret = tf_bytes(r, size, &p)))
			return ret;
		if (keep && (ret = tf_add_option(tf, id, size, p, r->err)))
			return ret;
	}
}

/*
 * A v6 flyrecord table: "flyrecord\0", nr_cpus x (offset, size), and the
 * clock text when the file has a TRACECLOCK option.
 */
static int read_v6_table(struct strobe_tracefile *tf, struct tf_rd *r,
			 struct tf_buffer *b, int nr_cpus)
{
	const uint8_t *p;
	size_t n;
	int cpu, ret;

	if ((ret = tf_bytes(r, 10, &p)))
		return ret;
	if (!memcmp(p, "options  ", 10)) {
		/* An instance may carry its own options: skip them. */
		if ((ret = read_v6_options(tf, r, false)) || (ret = tf_bytes(r, 10, &p)))
			return ret;
	}
	if (!memcmp(p, "latency  ", 10))
		return strobe_err(r->err, -EOPNOTSUPP,
				  "%s: latency trace files are not supported", tf->path);
	if (memcmp(p, "flyrecord", 10)) {
		r->pos -= 10;
		return rd_bad(r, "flyrecord marker");
	}
	r->section = "flyrecord";
	if ((size_t)nr_cpus > rd_left(r) / 16)
		return tf_rd_fail(r, (size_t)nr_cpus * 16);
	b->cpus = calloc(nr_cpus ? (size_t)nr_cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return strobe_err(r->err, -ENOMEM, "%s: out of memory", tf->path);
	b->nr_cpus = nr_cpus;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct tf_cpu_data *c = &b->cpus[cpu];
		size_t at = r->pos;

		tf_u64(r, &c->offset);
		tf_u64(r, &c->size);
		c->cpu = cpu;
		if (c->size && (c->offset > tf->len || c->size > tf->len - c->offset))
			tf_clamp_cpu(tf, c, "flyrecord", r->file_off + at);
		if (!c->size)
			c->offset = 0;
		c->data_size = c->size;
		b->data_size += c->size;
	}
	if (has_option(tf, STROBE_TFO_TRACECLOCK)) {
		const char *name;
		size_t len;

		/* As trace-cmd: an unreadable clock falls back to "local". */
		if (!rd_blob64(r, &p, &n) && n) {
			clock_name((const char *)p, n, &name, &len);
			if (len) {
				char *c = strndup(name, len);

				if (!c)
					return strobe_err(r->err, -ENOMEM, "%s: out of memory",
							  tf->path);
				free(b->clock);
				b->clock = c;
			}
		}
	}
	return 0;
}

/* The sections of a v6 file before the CPU count, in file order. */
static const struct {
	const char *name;
	int (*parse)(struct strobe_tracefile *tf, struct tf_rd *r);
} v6_sections[] = {
	{ "header_page", tf_parse_headers },
	{ "ftrace formats", tf_parse_ftrace },
	{ "event formats", tf_parse_systems },
	{ "kallsyms", tf_parse_kallsyms },
	{ "printk formats", tf_parse_printk },
	{ "cmdlines", tf_parse_cmdlines },
};

static int read_v6(struct strobe_tracefile *tf, struct tf_rd *r)
{
	struct tf_buffer *top;
	const uint8_t *p;
	uint32_t cpus;
	size_t i, nr_opts;
	int ret;

	for (i = 0; i < sizeof(v6_sections) / sizeof(v6_sections[0]); i++) {
		r->section = v6_sections[i].name;
		if ((ret = v6_sections[i].parse(tf, r)))
			return ret;
	}
	r->section = "cpu count";
	if ((ret = tf_u32(r, &cpus)))
		return ret;
	if (cpus > TF_MAX_CPUS) {
		r->pos -= 4;
		return rd_bad(r, "CPU count");
	}
	r->section = "options";
	if ((ret = tf_bytes(r, 10, &p)))
		return ret;
	if (!memcmp(p, "options  ", 10)) {
		if ((ret = read_v6_options(tf, r, true)))
			return ret;
	} else {
		r->pos -= 10;
	}

	if (!(top = tf_add_buffer(tf, "", 0, NULL, 0, r->err)))
		return -ENOMEM;
	r->section = "flyrecord";
	if ((ret = read_v6_table(tf, r, top, (int)cpus)))
		return ret;

	/* Instance buffers: BUFFER options point at their own tables. */
	nr_opts = tf->nr_opts;
	for (i = 0; i < nr_opts; i++) {
		const struct tf_option *o = &tf->opts[i];
		struct tf_rd b = { o->data, o->size, 0, 0, false, "options",
				   tf->path, r->err, NULL };
		struct tf_rd t;
		struct tf_buffer *buf;
		const char *name;
		uint64_t off;

		if (o->id != STROBE_TFO_BUFFER)
			continue;
		b.file_off = (uint64_t)(o->data - tf->data);
		if ((ret = tf_u64(&b, &off)) || (ret = tf_str(&b, &name)))
			return ret;
		/* top's clock is the instance's default (v6 may omit it) */
		buf = tf_add_buffer(tf, name, strlen(name), tf->bufs[0].clock,
				    strlen(tf->bufs[0].clock), r->err);
		if (!buf)
			return -ENOMEM;
		if (off >= tf->len)
			return strobe_err(r->err, -EINVAL,
					  "%s: truncated in section 'buffer %s' at offset %" PRIu64,
					  tf->path, name, off);
		tf_rd_file(&t, tf, off, tf->len, "buffer", r->err);
		if ((ret = read_v6_table(tf, &t, buf, (int)cpus)))
			return ret;
	}
	return 0;
}

/* ---- options interpreted after parsing -------------------------------- */

/* Copy of an option's text up to its first NUL. */
static char *option_text(const struct tf_option *o)
{
	const uint8_t *nul = memchr(o->data, 0, o->size);

	return strndup((const char *)o->data, nul ? (size_t)(nul - o->data) : o->size);
}

static int buffer_index(const struct strobe_tracefile *tf, const char *name,
			size_t len)
{
	int i;

	for (i = 0; i < tf->nr_bufs; i++)
		if (strlen(tf->bufs[i].name) == len && !memcmp(tf->bufs[i].name, name, len))
			return i;
	return -1;
}

/* Value after "key:" on a line of text, or false. */
static bool stat_value(const char *text, const char *key, long long *v)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!strncmp(line, key, klen)) {
			char *end;

			errno = 0;
			*v = strtoll(line + klen, &end, 10);
			return end != line + klen && !errno;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

static int load_cpustats(struct strobe_tracefile *tf, struct strobe_error *err)
{
	int cur = 0, ordinal = 0;
	size_t i, n = 0;

	for (i = 0; i < tf->nr_opts; i++)
		n += tf->opts[i].id == STROBE_TFO_CPUSTAT;
	if (!n)
		return 0;
	tf->stats = calloc(n, sizeof(*tf->stats));
	if (!tf->stats)
		return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	for (i = 0; i < tf->nr_opts; i++) {
		const struct tf_option *o = &tf->opts[i];
		struct tf_cpustat *s;
		const char *t, *b;
		long long v;
		char *text;

		if (o->id != STROBE_TFO_CPUSTAT)
			continue;
		if (!(text = option_text(o)))
			return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
		t = text + strspn(text, " \t\n");
		if (!strncmp(t, "Buffer:", 7)) {
			size_t len;

			b = t + 7 + strspn(t + 7, " \t");
			len = strcspn(b, "\n");
			while (len && (b[len - 1] == ' ' || b[len - 1] == '\t'))
				len--;
			cur = buffer_index(tf, b, len);
			ordinal = 0;
			free(text);
			continue;
		}
		if (!*t) {	/* empty (reserved but never filled) */
			ordinal++;
			free(text);
			continue;
		}
		s = &tf->stats[tf->nr_stats++];
		s->buffer = cur;
		s->cpu = stat_value(t, "CPU:", &v) && v >= 0 && v < INT_MAX ? (int)v : ordinal;
		s->overrun = stat_value(t, "overrun:", &v) ? v : 0;
		ordinal++;
		free(text);
	}
	return 0;
}

static int load_info(struct strobe_tracefile *tf, struct strobe_error *err)
{
	const struct tf_option *o = NULL;
	size_t i, len;
	char *p;

	for (i = 0; i < tf->nr_opts && !o; i++)
		if (tf->opts[i].id == STROBE_TFO_STROBE_INFO)
			o = &tf->opts[i];
	if (!o)
		return 0;
	if (!(tf->info = option_text(o)))
		return strobe_err(err, -ENOMEM, "%s: out of memory", tf->path);
	len = strlen(tf->info);
	/* one NUL-terminated "key=value" string per line */
	for (p = tf->info; p < tf->info + len; p++)
		if (*p == '\n')
			*p = '\0';
	tf->info_len = len;
	return 0;
}

static void load_offset(struct strobe_tracefile *tf)
{
	size_t i;

	for (i = 0; i < tf->nr_opts; i++) {
		char *text;

		if (tf->opts[i].id != STROBE_TFO_OFFSET)
			continue;
		text = option_text(&tf->opts[i]);
		if (text)
			tf->ts_offset += strtoll(text, NULL, 0);
		free(text);
	}
}

/* ---- open and close --------------------------------------------------- */

/*
 * Open the file and set up its image (tracefile-int.h): nothing is read yet.
 * Regular files only, checked without blocking on a FIFO.
 */
static int load_file(struct strobe_tracefile *tf, struct strobe_error *err)
{
	struct stat st;
	size_t blocks;
	void *m;

	tf->fd = open(tf->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (tf->fd < 0)
		return strobe_err(err, -errno, "%s: cannot open: %s", tf->path,
				  strerror(errno));
	if (fstat(tf->fd, &st) < 0)
		return strobe_err(err, -errno, "%s: cannot stat: %s", tf->path,
				  strerror(errno));
	if (!S_ISREG(st.st_mode))
		return strobe_err(err, -EINVAL, "%s: not a regular file (%s): trace files "
				  "are read from regular files only", tf->path,
				  strobe_file_kind(&st));
	(void)fcntl(tf->fd, F_SETFL, fcntl(tf->fd, F_GETFL) & ~O_NONBLOCK);
	if ((uint64_t)st.st_size > SIZE_MAX / 2)
		return strobe_err(err, -EFBIG, "%s: too large", tf->path);
	tf->len = (size_t)st.st_size;
	if (!tf->len)
		return 0;
	blocks = (tf->len + TF_LOAD_BLOCK - 1) / TF_LOAD_BLOCK;
	tf->map_len = blocks * TF_LOAD_BLOCK;
	/* address space only: pages exist once bytes are read into them */
	m = mmap(NULL, tf->map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	tf->loaded = calloc(blocks / 8 + 1, 1);
	if (m == MAP_FAILED || !tf->loaded) {
		if (m != MAP_FAILED)
			munmap(m, tf->map_len);
		tf->map_len = 0;
		return strobe_err(err, -ENOMEM, "%s: out of memory (%zu bytes)", tf->path,
				  tf->len);
	}
	tf->data = m;
	return 0;
}

const char *strobe_tracefile_path(const struct strobe_tracefile *tf)
{
	return tf ? tf->path : NULL;
}

void strobe_tracefile_close(struct strobe_tracefile *tf)
{
	size_t i;
	int b;

	if (!tf)
		return;
	strobe_tep_release(&tf->t);
	for (b = 0; b < tf->nr_bufs; b++) {
		free(tf->bufs[b].name);
		free(tf->bufs[b].clock);
		free(tf->bufs[b].cpus);
	}
	free(tf->bufs);
	for (i = 0; i < tf->nr_blocks; i++)
		free(tf->blocks[i]);
	free(tf->blocks);
	free(tf->opts);
	free(tf->stats);
	free(tf->info);
	free(tf->compression);
	tf_diag_free(tf);
	if (tf->data)
		munmap((void *)tf->data, tf->map_len);
	free(tf->loaded);
	if (tf->fd >= 0)
		close(tf->fd);
	free(tf->path);
	free(tf);
}

static int read_initial(struct strobe_tracefile *tf, struct tf_rd *r)
{
	const uint8_t *p;
	const char *ver;
	char *end;
	long v;
	uint32_t ps;
	int ret;

	if (tf->len < TF_MAGIC_LEN || (ret = tf_bytes(r, TF_MAGIC_LEN, &p)) ||
	    memcmp(p, TF_MAGIC, TF_MAGIC_LEN)) {
		if (r->err && r->err->code == -EIO)
			return r->err->code;	/* could not read it */
		return strobe_err(r->err, -EINVAL, "%s: not a trace-cmd file (bad magic)",
				  tf->path);
	}
	if ((ret = tf_str(r, &ver)))
		return ret;
	v = strtol(ver, &end, 10);
	if (end == ver || *end)
		return strobe_err(r->err, -EINVAL, "%s: bad file version '%.16s'",
				  tf->path, ver);
	if (v != 6 && v != 7)
		return strobe_err(r->err, -EOPNOTSUPP,
				  "%s: trace file version %ld is not supported (only 6 and 7)",
				  tf->path, v);
	tf->version = (int)v;
	if ((ret = tf_bytes(r, 2, &p)))
		return ret;
	if (p[0] != 0)
		return strobe_err(r->err, p[0] == 1 ? -EOPNOTSUPP : -EINVAL,
				  "%s: %s", tf->path, p[0] == 1 ?
				  "big-endian trace files are not supported" :
				  "bad endianness flag in the initial header");
	if (p[1] != 4 && p[1] != 8)
		return strobe_err(r->err, -EINVAL, "%s: bad long size %u in the initial header",
				  tf->path, p[1]);
	tf->long_size = p[1];
	if ((ret = tf_u32(r, &ps)))
		return ret;
	if (ps < 256 || ps > (64u << 20) || (ps & (ps - 1)))
		return strobe_err(r->err, -EINVAL, "%s: bad page size %u in the initial header",
				  tf->path, ps);
	tf->page_size = ps;
	return 0;
}

/*
 * strobe's process and container table (STROBE_MODEL option): read it in
 * (strobe_tracefile_model_table hands it out).  A v6 file (as strobe
 * writes them) whose table lies past its end was cut short, or whose
 * table is not one: return why into why[size] ("" when all is well; files
 * converted by trace-cmd carry the option with stale offsets, their
 * version is 7, and they simply have no table).
 */
static void check_model_table(struct strobe_tracefile *tf, char *why, size_t size)
{
	static const char magic[] = "strobe-model ";
	struct strobe_error e = { 0, "" };
	size_t osize = 0;
	const uint8_t *o = strobe_tracefile_option(tf, STROBE_TFO_STROBE_MODEL, &osize);
	uint64_t off, len;

	why[0] = '\0';
	if (!o || osize < 16)
		return;
	off = le(o, 8);
	len = le(o + 8, 8);
	if (!len)
		return;		/* recorded without one */
	if (off <= tf->len && len <= tf->len - off) {
		if (tf_load(tf, off, len, &e)) {
			snprintf(why, size, "%s", e.msg);
			if (!tf->damage[0])
				snprintf(tf->damage, sizeof(tf->damage), "%s", e.msg);
		} else if (tf->version == 6 && !strobe_tracefile_model_table(tf, NULL)) {
			snprintf(why, size, "%s: the process and container table is missing: "
				 "what lies at its place (offset %" PRIu64 ", %" PRIu64 " bytes) "
				 "has no '%.12s' header; tasks and containers the events do not "
				 "name show as unknown", tf->path, off, len, magic);
		}
		return;
	}
	if (tf->version != 6)
		return;
	snprintf(why, size, "%s: truncated: the process and container table is missing "
		 "(offset %" PRIu64 ", %" PRIu64 " bytes, past the end of the file at %zu "
		 "bytes); tasks and containers the events do not name show as unknown",
		 tf->path, off, len, tf->len);
	if (!tf->damage[0])
		snprintf(tf->damage, sizeof(tf->damage), "%.500s", why);
}

int strobe_tracefile_open(const char *path, struct strobe_tracefile **out,
			  struct strobe_error *err)
{
	struct strobe_tracefile *tf;
	char model_problem[600];
	struct tf_rd r;
	int ret;

	*out = NULL;
	strobe_err_clear(err);
	tf = calloc(1, sizeof(*tf));
	if (!tf || !(tf->path = strdup(path))) {
		free(tf);
		return strobe_err(err, -ENOMEM, "%s: out of memory", path);
	}
	tf->fd = -1;
	if ((ret = load_file(tf, err)))
		goto fail;
	tf_rd_file(&r, tf, 0, tf->len, "initial header", err);
	if ((ret = read_initial(tf, &r)))
		goto fail;

	if (strobe_tep_init(&tf->t, (unsigned)tf->long_size, tf->page_size) < 0) {
		ret = strobe_err(err, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}

	if (tf->version == 6) {
		if (!(tf->compression = strdup("none"))) {
			ret = strobe_err(err, -ENOMEM, "%s: out of memory", path);
			goto fail;
		}
		ret = read_v6(tf, &r);
	} else {
		ret = tf_read_v7(tf, &r);
	}
	if (ret)
		goto fail;
	if ((ret = load_cpustats(tf, err)) || (ret = load_info(tf, err)))
		goto fail;
	load_offset(tf);
	check_model_table(tf, model_problem, sizeof(model_problem));
	if ((ret = tf_diag_open(tf, model_problem[0] ? model_problem : NULL, err)))
		goto fail;
	*out = tf;
	return 0;
fail:
	if (err && !err->code)
		strobe_err(err, ret, "%s: cannot read", path);
	strobe_tracefile_close(tf);
	return ret;
}

/* ---- getters ------------------------------------------------------------ */

int strobe_tracefile_version(const struct strobe_tracefile *tf)
{
	return tf->version;
}

unsigned strobe_tracefile_page_size(const struct strobe_tracefile *tf)
{
	return tf->page_size;
}

unsigned strobe_tracefile_commit_size(const struct strobe_tracefile *tf)
{
	return tf->t.commit_size;
}

const char *strobe_tracefile_compression(const struct strobe_tracefile *tf)
{
	return tf->compression;
}

unsigned strobe_tracefile_bad_formats(const struct strobe_tracefile *tf)
{
	return tf->nr_bad_formats;
}

const char *strobe_tracefile_damage(const struct strobe_tracefile *tf)
{
	return tf->damage[0] ? tf->damage : NULL;
}

/*
 * CPU data that runs past the end of the file (a copy or a recording cut
 * short): keep the whole pages that are there, and say so once.
 */
void tf_clamp_cpu(struct strobe_tracefile *tf, struct tf_cpu_data *c,
		  const char *section, uint64_t at)
{
	uint64_t have = c->offset < tf->len ? tf->len - c->offset : 0;

	if (tf->page_size)
		have -= have % tf->page_size;
	if (!tf->damage[0])
		snprintf(tf->damage, sizeof(tf->damage),
			 "%s: truncated in section '%s' at offset %" PRIu64 ": CPU %d data "
			 "(offset %" PRIu64 ", %" PRIu64 " bytes) runs past the end of the "
			 "file (%zu bytes); only its %" PRIu64 " whole pages are read",
			 tf->path, section, at, c->cpu, c->offset, c->size, tf->len,
			 tf->page_size ? have / tf->page_size : 0);
	c->size = have;
	if (!have)
		c->offset = 0;
}

struct tep_handle *strobe_tracefile_tep(struct strobe_tracefile *tf)
{
	return tf->t.tep;
}

struct strobe_formats *strobe_tracefile_formats(struct strobe_tracefile *tf)
{
	return tf->t.formats;
}

int64_t strobe_tracefile_ts_offset(const struct strobe_tracefile *tf)
{
	return tf->ts_offset;
}

int strobe_tracefile_nr_buffers(const struct strobe_tracefile *tf)
{
	return tf->nr_bufs;
}

int strobe_tracefile_buffer(const struct strobe_tracefile *tf, int idx,
			    struct strobe_tf_buffer_info *info)
{
	const struct tf_buffer *b;

	if (idx < 0 || idx >= tf->nr_bufs)
		return -EINVAL;
	b = &tf->bufs[idx];
	info->name = b->name;
	info->clock = b->clock;
	info->nr_cpus = b->nr_cpus;
	info->data_size = b->data_size;
	return 0;
}

int64_t strobe_tracefile_cpu_overrun(const struct strobe_tracefile *tf,
				     int buffer, int cpu)
{
	size_t i;

	for (i = 0; i < tf->nr_stats; i++)
		if (tf->stats[i].buffer == buffer && tf->stats[i].cpu == cpu)
			return tf->stats[i].overrun;
	return -1;
}

const void *strobe_tracefile_option(const struct strobe_tracefile *tf,
				    int id, size_t *size)
{
	size_t i;

	for (i = 0; i < tf->nr_opts; i++) {
		if (tf->opts[i].id == id) {
			if (size)
				*size = tf->opts[i].size;
			return tf->opts[i].data;
		}
	}
	return NULL;
}

const char *strobe_tracefile_info(const struct strobe_tracefile *tf,
				  const char *key)
{
	const char *p = tf->info, *end = tf->info ? tf->info + tf->info_len : NULL;
	size_t klen = strlen(key);

	while (p && p < end) {
		size_t len = strlen(p);

		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=')
			return p + klen + 1;
		p += len + 1;
	}
	return NULL;
}

const char *strobe_tracefile_host(const struct strobe_tracefile *tf, char *buf, size_t size)
{
	const char *h = strobe_tracefile_info(tf, "host");
	const char *u, *end;
	size_t len = 0, n;

	if (h)
		return h;
	buf[0] = '\0';
	if (strobe_tracefile_info(tf, "strobe_version"))
		return buf;
	u = strobe_tracefile_option(tf, STROBE_TFO_UNAME, &len);
	if (!u || !len)
		return buf;
	n = strnlen(u, len);
	end = u + n;
	u = memchr(u, ' ', n);
	if (!u)
		return buf;
	u++;
	n = (size_t)(end - u);
	end = memchr(u, ' ', n);
	if (!end)	/* fewer than the four words trace-cmd writes */
		return buf;
	n = (size_t)(end - u);
	if (n >= size)
		n = size - 1;
	memcpy(buf, u, n);
	buf[n] = '\0';
	return buf;
}

const char *strobe_tracefile_model_table(const struct strobe_tracefile *tf,
					 size_t *size)
{
	static const char magic[] = "strobe-model ";
	size_t osize = 0;
	const uint8_t *o = strobe_tracefile_option(tf, STROBE_TFO_STROBE_MODEL, &osize);
	uint64_t off, len;

	if (size)
		*size = 0;
	if (!o || osize < 16)
		return NULL;
	off = le(o, 8);
	len = le(o + 8, 8);
	if (!len || off > tf->len || len > tf->len - off || len < sizeof(magic) - 1 ||
	    memcmp(tf->data + off, magic, sizeof(magic) - 1))
		return NULL;
	if (size)
		*size = (size_t)len;
	return (const char *)(tf->data + off);
}
