/*
 * write.c - writing trace-cmd version 6 files in three steps (open,
 * add_cpu per CPU, close), see include/strobe/tracefile.h.
 *
 * Everything before the CPU data is assembled in memory and written at
 * open; the options whose content is only known at the end (per-CPU
 * statistics, strobe's info) get fixed room that close rewrites in place,
 * as does the flyrecord table.  No step after open needs more disk space
 * than the CPU data itself, so a disk that fills up during add_cpu still
 * leaves a file that close can finish and every reader can read.
 *
 * Layout of the reserved room (checked with trace-cmd 3.1.6 report and
 * report --stat): each CPU gets 6 + TF_CPUSTAT_ROOM bytes holding a
 * CPUSTAT option with the exact text (so trace-cmd's concatenated stats
 * are not cut by padding NULs) followed by a strobe "pad" option
 * (TF_OPT_STROBE_PAD, an id trace-cmd skips silently) filling the rest;
 * STROBE_INFO is one option of TF_INFO_ROOM bytes, text then NULs.
 *
 * Instance buffers (tf_writer_open_buffers: the records of sources that
 * are not ftrace pages, see pack.c) are laid out as trace-cmd record -B
 * writes them in v6: a BUFFER option (u64 offset, name) pointing at the
 * buffer's own "flyrecord\0" + per-CPU table + clock.  Their tables sit
 * in the header, after the top buffer's, zero until close like it; their
 * CPU data is appended after whatever was added before.
 *
 * CPU data is copied with copy_file_range (read/write where that is not
 * possible), whole pages only, optionally punching the copied ranges out
 * of the source so assembling costs almost no extra disk space.
 *
 * The file is created under a random name next to the output
 * (lib/util/file.h: O_EXCL, mode 0600, never through a symlink) and
 * renamed over the output at commit: an existing file, or a symlink
 * someone planted at the output's name, stays as it was until then, and
 * is then replaced as a name (a symlink's target is never written).
 * A little room past the header is preallocated at open (and given back
 * at close), so that on a nearly full disk the first CPU data still fits.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefile-int.h"
#include "../util/file.h"

#define COPY_CHUNK	(8u << 20)
#define CPUSTAT_SLOT	(6 + TF_CPUSTAT_ROOM)
#define INFO_SLOT	(6 + TF_INFO_ROOM)
#define RESERVE_BYTES	(2u << 20)	/* preallocated past the header */

struct strobe_tf_writer {
	int fd;
	char *path;		/* the output's final name */
	char *tmp;		/* the name it is written under; NULL once
				 * committed (renamed to path) */
	unsigned page_size;
	int nr_cpus;
	int next_cpu;		/* add_cpu must be called in CPU order */
	uint64_t *cpu_off;	/* nr_cpus entries */
	uint64_t *cpu_size;
	uint64_t cpustat_off;	/* file offset of CPU 0's CPUSTAT slot */
	uint64_t info_off;	/* file offset of the STROBE_INFO option */
	uint64_t model_opt_off;	/* file offset of the STROBE_MODEL payload */
	uint64_t model_off, model_size;	/* the appended table, 0 none */
	uint64_t table_off;	/* file offset of the flyrecord table */
	uint64_t end;		/* end of the data so far, page aligned */
	int nr_bufs;		/* instance buffers */
	struct wbuffer {
		char *name;
		uint64_t table_off;	/* file offset of its flyrecord table */
		uint64_t *cpu_off;	/* nr_cpus entries, 0 until added */
		uint64_t *cpu_size;
	} *bufs;
};

/* ---- in-memory assembly ------------------------------------------------ */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void put(struct wbuf *b, const void *data, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void put_le(struct wbuf *b, uint64_t v, int n)
{
	uint8_t x[8];
	int i;

	for (i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, (size_t)n);
}

static void put_zeros(struct wbuf *b, size_t n)
{
	static const uint8_t z[256];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(b, z, k);
		n -= k;
	}
}

static void put_str(struct wbuf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

/* Length of text cut to at most `room` bytes, at a line end if it must be cut. */
static size_t cut_lines(const char *text, size_t len, size_t room)
{
	size_t n;

	if (len <= room)
		return len;
	for (n = room; n > 0; n--)
		if (text[n - 1] == '\n')
			return n;
	return room;
}

/* One CPU's CPUSTAT slot: the option with the exact text, then a pad. */
static void fill_cpustat(uint8_t slot[CPUSTAT_SLOT], int cpu, const char *text)
{
	struct wbuf b = { slot, 0, CPUSTAT_SLOT, false };
	char prefix[32] = "";
	size_t plen, len, room;

	if (!text) {
		put_le(&b, TF_OPT_STROBE_PAD, 2);
		put_le(&b, TF_CPUSTAT_ROOM, 4);
		put_zeros(&b, TF_CPUSTAT_ROOM);
		return;
	}
	/* trace-cmd stores "CPU: N" ahead of the tracefs stats text. */
	if (strncmp(text, "CPU:", 4))
		snprintf(prefix, sizeof(prefix), "CPU: %d\n", cpu);
	plen = strlen(prefix);
	room = TF_CPUSTAT_ROOM - 6 - 1 - plen;	/* NUL and pad header */
	len = cut_lines(text, strlen(text), room);
	put_le(&b, STROBE_TFO_CPUSTAT, 2);
	put_le(&b, plen + len + 1, 4);
	put(&b, prefix, plen);
	put(&b, text, len);
	put_le(&b, 0, 1);
	put_le(&b, TF_OPT_STROBE_PAD, 2);
	put_le(&b, TF_CPUSTAT_ROOM - 6 - (plen + len + 1), 4);
	put_zeros(&b, CPUSTAT_SLOT - b.len);
}

static void fill_info(uint8_t slot[INFO_SLOT], const char *text)
{
	struct wbuf b = { slot, 0, INFO_SLOT, false };
	size_t len = text ? cut_lines(text, strlen(text), TF_INFO_ROOM - 1) : 0;

	put_le(&b, STROBE_TFO_STROBE_INFO, 2);
	put_le(&b, TF_INFO_ROOM, 4);
	put(&b, text, len);
	put_zeros(&b, INFO_SLOT - b.len);
}

static void put_formats(struct wbuf *b, const struct strobe_tf_meta *m)
{
	size_t i, j, nsys = 0, count;

	count = 0;
	for (i = 0; i < m->nr_formats; i++)
		count += !strcmp(m->formats[i].system, "ftrace");
	put_le(b, count, 4);
	for (i = 0; i < m->nr_formats; i++) {
		if (strcmp(m->formats[i].system, "ftrace"))
			continue;
		put_le(b, m->formats[i].len, 8);
		put(b, m->formats[i].text, m->formats[i].len);
	}

	/* Systems in order of first appearance, each with all its formats. */
	for (i = 0; i < m->nr_formats; i++) {
		const char *sys = m->formats[i].system;

		if (!strcmp(sys, "ftrace"))
			continue;
		for (j = 0; j < i && strcmp(m->formats[j].system, sys); j++)
			;
		nsys += j == i;
	}
	put_le(b, nsys, 4);
	for (i = 0; i < m->nr_formats; i++) {
		const char *sys = m->formats[i].system;

		if (!strcmp(sys, "ftrace"))
			continue;
		for (j = 0; j < i && strcmp(m->formats[j].system, sys); j++)
			;
		if (j < i)
			continue;	/* written with its first format */
		put_str(b, sys);
		count = 0;
		for (j = i; j < m->nr_formats; j++)
			count += !strcmp(m->formats[j].system, sys);
		put_le(b, count, 4);
		for (j = i; j < m->nr_formats; j++) {
			if (strcmp(m->formats[j].system, sys))
				continue;
			put_le(b, m->formats[j].len, 8);
			put(b, m->formats[j].text, m->formats[j].len);
		}
	}
}

static int check_meta(const char *path, const struct strobe_tf_meta *m,
		      int nr_cpus, struct strobe_error *err)
{
	size_t i;

	if (!m || nr_cpus < 0 || nr_cpus > TF_MAX_CPUS)
		return strobe_err(err, -EINVAL, "%s: bad CPU count %d", path, nr_cpus);
	if (m->page_size < 256 || (m->page_size & (m->page_size - 1)))
		return strobe_err(err, -EINVAL, "%s: bad page size %u", path, m->page_size);
	if (m->long_size != 4 && m->long_size != 8)
		return strobe_err(err, -EINVAL, "%s: bad long size %u", path, m->long_size);
	if (!m->header_page.data || !m->header_page.len)
		return strobe_err(err, -EINVAL, "%s: header_page text missing", path);
	if (m->kallsyms.len > UINT32_MAX || m->printk.len > UINT32_MAX)
		return strobe_err(err, -EINVAL, "%s: kallsyms or printk text too large", path);
	for (i = 0; i < m->nr_formats; i++)
		if (!m->formats[i].system || !m->formats[i].text)
			return strobe_err(err, -EINVAL, "%s: format %zu has no system or text",
					  path, i);
	return 0;
}

static void writer_free(struct strobe_tf_writer *w);

/* Instance names: non-empty, printable, no two alike. */
static int check_names(const char *path, const char *const *names, int nr,
		       struct strobe_error *err)
{
	int i, j;

	if (nr < 0 || (nr && !names))
		return strobe_err(err, -EINVAL, "%s: bad buffer list", path);
	for (i = 0; i < nr; i++) {
		const char *c;

		if (!names[i] || !*names[i] || strlen(names[i]) > 255)
			return strobe_err(err, -EINVAL, "%s: a buffer needs a name of 1 to 255 "
					  "bytes", path);
		for (c = names[i]; *c; c++)
			if ((unsigned char)*c <= ' ' || *c == '/' || *c == 0x7f)
				return strobe_err(err, -EINVAL, "%s: bad buffer name '%s'",
						  path, names[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]))
				return strobe_err(err, -EINVAL, "%s: buffer '%s' named twice",
						  path, names[i]);
	}
	return 0;
}

int tf_writer_open_buffers(const char *path, const struct strobe_tf_meta *meta, int nr_cpus,
			   const char *const *names, int nr_names,
			   struct strobe_tf_writer **out, struct strobe_error *err)
{
	const char *clock = meta && meta->clock && *meta->clock ? meta->clock : "local";
	struct strobe_tf_writer *w = NULL;
	struct wbuf b = { 0 };
	char clock_text[128];
	size_t *opt_at = NULL;	/* where each BUFFER option's offset goes */
	int cpu, ret, n, i;

	*out = NULL;
	strobe_err_clear(err);
	if ((ret = check_meta(path, meta, nr_cpus, err)) ||
	    (ret = check_names(path, names, nr_names, err)))
		return ret;
	n = snprintf(clock_text, sizeof(clock_text), "[%s]", clock);
	if (n < 0 || (size_t)n >= sizeof(clock_text))
		return strobe_err(err, -EINVAL, "%s: clock name too long", path);

	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path)) ||
	    !(w->cpu_off = calloc((size_t)nr_cpus + 1, sizeof(uint64_t))) ||
	    !(w->cpu_size = calloc((size_t)nr_cpus + 1, sizeof(uint64_t)))) {
		ret = strobe_err(err, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	w->fd = -1;
	w->page_size = meta->page_size;
	w->nr_cpus = nr_cpus;
	if (nr_names &&
	    (!(w->bufs = calloc((size_t)nr_names, sizeof(*w->bufs))) ||
	     !(opt_at = calloc((size_t)nr_names, sizeof(*opt_at))))) {
		ret = strobe_err(err, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	for (i = 0; i < nr_names; i++, w->nr_bufs++) {
		struct wbuffer *wb = &w->bufs[i];

		if (!(wb->name = strdup(names[i])) ||
		    !(wb->cpu_off = calloc((size_t)nr_cpus + 1, sizeof(uint64_t))) ||
		    !(wb->cpu_size = calloc((size_t)nr_cpus + 1, sizeof(uint64_t)))) {
			w->nr_bufs++;
			ret = strobe_err(err, -ENOMEM, "%s: out of memory", path);
			goto fail;
		}
	}

	/* initial format */
	put(&b, TF_MAGIC, TF_MAGIC_LEN);
	put_str(&b, "6");
	put_le(&b, 0, 1);			/* little endian */
	put_le(&b, meta->long_size, 1);
	put_le(&b, meta->page_size, 4);
	/* header info */
	put(&b, "header_page", 12);
	put_le(&b, meta->header_page.len, 8);
	put(&b, meta->header_page.data, meta->header_page.len);
	put(&b, "header_event", 13);
	put_le(&b, meta->header_event.len, 8);
	put(&b, meta->header_event.data, meta->header_event.len);
	put_formats(&b, meta);
	put_le(&b, meta->kallsyms.len, 4);
	put(&b, meta->kallsyms.data, meta->kallsyms.len);
	put_le(&b, meta->printk.len, 4);
	put(&b, meta->printk.data, meta->printk.len);
	put_le(&b, meta->cmdlines.len, 8);
	put(&b, meta->cmdlines.data, meta->cmdlines.len);
	put_le(&b, (uint64_t)nr_cpus, 4);

	/* options */
	put(&b, "options  ", 10);
	put_le(&b, STROBE_TFO_TRACECLOCK, 2);
	put_le(&b, strlen(clock_text) + 2, 4);
	put(&b, clock_text, strlen(clock_text));
	put(&b, "\n", 2);
	if (meta->uname) {
		put_le(&b, STROBE_TFO_UNAME, 2);
		put_le(&b, strlen(meta->uname) + 1, 4);
		put_str(&b, meta->uname);
	}
	w->cpustat_off = b.len;
	put_zeros(&b, (size_t)nr_cpus * CPUSTAT_SLOT);
	w->info_off = b.len;
	put_zeros(&b, INFO_SLOT);
	put_le(&b, STROBE_TFO_STROBE_MODEL, 2);
	put_le(&b, 16, 4);
	w->model_opt_off = b.len;
	put_zeros(&b, 16);
	for (i = 0; i < nr_names; i++) {
		put_le(&b, STROBE_TFO_BUFFER, 2);
		put_le(&b, 8 + strlen(names[i]) + 1, 4);
		opt_at[i] = b.len;
		put_zeros(&b, 8);
		put_str(&b, names[i]);
	}
	put_le(&b, STROBE_TFO_DONE, 2);

	/* flyrecord table (zero until close) and the clock, as trace-cmd */
	put(&b, "flyrecord", 10);
	w->table_off = b.len;
	put_zeros(&b, (size_t)nr_cpus * 16);
	put_le(&b, strlen(clock_text), 8);
	put(&b, clock_text, strlen(clock_text));
	/* each instance's table (zero until close) and clock */
	for (i = 0; i < nr_names; i++) {
		uint64_t at = b.len;
		int k;

		for (k = 0; k < 8 && !b.oom; k++)
			b.p[opt_at[i] + k] = (uint8_t)(at >> (8 * k));
		put(&b, "flyrecord", 10);
		w->bufs[i].table_off = b.len;
		put_zeros(&b, (size_t)nr_cpus * 16);
		put_le(&b, strlen(clock_text), 8);
		put(&b, clock_text, strlen(clock_text));
	}
	put_zeros(&b, (meta->page_size - b.len % meta->page_size) % meta->page_size);
	if (b.oom) {
		ret = strobe_err(err, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	for (cpu = 0; cpu < nr_cpus; cpu++)
		fill_cpustat(b.p + w->cpustat_off + (size_t)cpu * CPUSTAT_SLOT, cpu,
			     meta->cpustats ? meta->cpustats[cpu] : NULL);
	fill_info(b.p + w->info_off, meta->strobe_info);
	w->end = b.len;

	w->fd = strobe_file_create_tmp(path, &w->tmp, err);
	if (w->fd < 0) {
		ret = w->fd;
		goto fail;
	}
	if ((ret = strobe_file_pwrite_all(w->fd, b.p, b.len, 0))) {
		if (ret == -EFBIG || ret == -EDQUOT)
			ret = -ENOSPC;
		strobe_err(err, ret, "%s: cannot write the file header (%zu bytes): %s",
			   path, b.len, strerror(-ret));
		goto fail;
	}
	free(b.p);
	free(opt_at);
	/* disk-full insurance; best effort (tmpfs, old kernels: no room kept) */
	(void)!fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)w->end, RESERVE_BYTES);
	*out = w;
	return 0;
fail:
	free(b.p);
	free(opt_at);
	if (w) {
		if (w->fd >= 0)
			close(w->fd);
		if (w->tmp)
			unlink(w->tmp);
		writer_free(w);
	}
	return ret;
}

int strobe_tf_writer_open(const char *path, const struct strobe_tf_meta *meta,
			  int nr_cpus, struct strobe_tf_writer **out,
			  struct strobe_error *err)
{
	return tf_writer_open_buffers(path, meta, nr_cpus, NULL, 0, out, err);
}

int tf_writer_nr_cpus(const struct strobe_tf_writer *w)
{
	return w->nr_cpus;
}

/* ---- CPU data ------------------------------------------------------------ */

static bool no_space(int e)
{
	return e == ENOSPC || e == EFBIG || e == EDQUOT;
}

/* read/write copy for sources or targets copy_file_range cannot handle. */
static ssize_t copy_rw(int in, off_t *in_off, int out, off_t *out_off, size_t n,
		       uint8_t *buf, size_t bufsize)
{
	ssize_t r, w;

	if (n > bufsize)
		n = bufsize;
	do
		r = pread(in, buf, n, *in_off);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r;
	do
		w = pwrite(out, buf, (size_t)r, *out_off);
	while (w < 0 && errno == EINTR);
	if (w <= 0)
		return w < 0 ? -1 : (errno = EIO, -1);
	*in_off += w;
	*out_off += w;
	return w;
}

/*
 * Append `size` bytes (UINT64_MAX: to its end) of fd at w->end, whole
 * pages only; *kept receives what was kept.  Returns 0 or -errno (a
 * failed copy keeps the whole pages copied) with *err naming `what`.
 */
static int append_data(struct strobe_tf_writer *w, const char *what, int fd, uint64_t size,
		       bool punch, uint64_t *kept, struct strobe_error *err)
{
	uint64_t want, copied = 0, punched = 0, at = w->end;
	off_t in_off = 0, out_off;
	bool use_cfr = true;
	uint8_t *buf = NULL;
	int saved = 0;
	const size_t bufsize = 1 << 20;

	*kept = 0;
	if (size == UINT64_MAX) {
		struct stat st;

		if (fstat(fd, &st) < 0)
			return strobe_err(err, -errno, "%s: cannot stat %s data: %s",
					  w->path, what, strerror(errno));
		want = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	} else {
		want = size;
	}
	if (want != UINT64_MAX)
		want -= want % w->page_size;
	out_off = (off_t)w->end;

	while (copied < want) {
		uint64_t left = want - copied;
		size_t n = left < COPY_CHUNK ? (size_t)left : COPY_CHUNK;
		ssize_t r;

		if (use_cfr) {
			r = copy_file_range(fd, &in_off, w->fd, &out_off, n, 0);
			if (r < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP || errno == EBADF)) {
				use_cfr = false;
				continue;
			}
		} else {
			if (!buf && !(buf = malloc(bufsize))) {
				saved = ENOMEM;
				break;
			}
			r = copy_rw(fd, &in_off, w->fd, &out_off, n, buf, bufsize);
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			saved = errno;
			break;
		}
		if (r == 0)
			break;	/* source ended early */
		copied += (uint64_t)r;
		if (punch) {
			uint64_t upto = copied - copied % w->page_size;

			if (upto > punched &&
			    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      (off_t)punched, (off_t)(upto - punched)) == 0)
				punched = upto;
			else if (upto > punched)
				punch = false;	/* not supported here: just copy */
		}
	}
	free(buf);

	*kept = copied - copied % w->page_size;
	if (*kept != copied || saved)
		(void)!ftruncate(w->fd, (off_t)(w->end + *kept));
	w->end += *kept;

	if (saved && no_space(saved))
		return strobe_err(err, -ENOSPC,
				  "%s: no space left while writing %s data at offset %" PRIu64
				  " (%s): kept %" PRIu64 " bytes", w->path, what,
				  w->end, strerror(saved), *kept);
	if (saved)
		return strobe_err(err, -saved,
				  "%s: cannot copy %s data at offset %" PRIu64 ": %s",
				  w->path, what, at + *kept, strerror(saved));
	return 0;
}

int strobe_tf_writer_add_cpu(struct strobe_tf_writer *w, int cpu, int fd,
			     uint64_t size, bool punch, struct strobe_error *err)
{
	char what[32];
	uint64_t at = w->end, kept;
	int r;

	if (cpu != w->next_cpu || cpu >= w->nr_cpus)
		return strobe_err(err, -EINVAL, "%s: CPU %d added out of order (expected %d of %d)",
				  w->path, cpu, w->next_cpu, w->nr_cpus);
	snprintf(what, sizeof(what), "CPU %d", cpu);
	r = append_data(w, what, fd, size, punch, &kept, err);
	w->cpu_off[cpu] = at;
	w->cpu_size[cpu] = kept;
	w->next_cpu++;
	return r;
}

int tf_writer_add_buffer_cpu(struct strobe_tf_writer *w, int buffer, int cpu, int fd,
			     uint64_t size, bool punch, struct strobe_error *err)
{
	char what[300];
	struct wbuffer *wb;
	uint64_t at = w->end, kept;
	int r;

	if (buffer < 0 || buffer >= w->nr_bufs || cpu < 0 || cpu >= w->nr_cpus)
		return strobe_err(err, -EINVAL, "%s: no buffer %d CPU %d to add", w->path,
				  buffer, cpu);
	wb = &w->bufs[buffer];
	if (wb->cpu_size[cpu])
		return strobe_err(err, -EINVAL, "%s: buffer %s CPU %d added twice", w->path,
				  wb->name, cpu);
	snprintf(what, sizeof(what), "buffer %s CPU %d", wb->name, cpu);
	r = append_data(w, what, fd, size, punch, &kept, err);
	wb->cpu_off[cpu] = kept ? at : 0;
	wb->cpu_size[cpu] = kept;
	return r;
}

uint64_t strobe_tf_writer_cpu_size(const struct strobe_tf_writer *w, int cpu)
{
	if (!w || cpu < 0 || cpu >= w->nr_cpus)
		return 0;
	return w->cpu_size[cpu];
}

int strobe_tf_writer_add_model(struct strobe_tf_writer *w, const char *text,
			       size_t len, struct strobe_error *err)
{
	int ret;

	if (w->next_cpu != w->nr_cpus || w->model_size)
		return strobe_err(err, -EINVAL, "%s: model table added before the CPU data "
				  "or twice", w->path);
	if (!len)
		return 0;
	ret = strobe_file_pwrite_all(w->fd, text, len, w->end);
	if (ret) {
		(void)!ftruncate(w->fd, (off_t)w->end);
		if (ret == -EFBIG || ret == -EDQUOT)
			ret = -ENOSPC;
		return strobe_err(err, ret, "%s: cannot write the model table (%zu bytes): %s",
				  w->path, len, strerror(-ret));
	}
	w->model_off = w->end;
	w->model_size = len;
	return 0;
}

int strobe_tf_writer_commit(struct strobe_tf_writer *w, struct strobe_error *err)
{
	if (!w->tmp)
		return 0;
	if (rename(w->tmp, w->path) < 0)
		return strobe_err(err, -errno, "%s: cannot put the new file in place "
				  "(rename from %s): %s", w->path, w->tmp, strerror(errno));
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

static void writer_free(struct strobe_tf_writer *w)
{
	int i;

	for (i = 0; i < w->nr_bufs; i++) {
		free(w->bufs[i].name);
		free(w->bufs[i].cpu_off);
		free(w->bufs[i].cpu_size);
	}
	free(w->bufs);
	free(w->cpu_off);
	free(w->cpu_size);
	free(w->path);
	free(w->tmp);
	free(w);
}

void strobe_tf_writer_discard(struct strobe_tf_writer *w)
{
	if (!w)
		return;
	close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	writer_free(w);
}

int strobe_tf_writer_close(struct strobe_tf_writer *w,
			   const char *const *cpustats, const char *strobe_info,
			   struct strobe_error *err)
{
	struct stat st;

	uint8_t slot[INFO_SLOT > CPUSTAT_SLOT ? INFO_SLOT : CPUSTAT_SLOT];
	uint8_t *table = NULL;
	int cpu, i, ret = 0;

	if (!w)
		return 0;
	for (cpu = 0; cpu < w->nr_cpus && cpustats && !ret; cpu++) {
		fill_cpustat(slot, cpu, cpustats[cpu]);
		ret = strobe_file_pwrite_all(w->fd, slot, CPUSTAT_SLOT,
				 w->cpustat_off + (uint64_t)cpu * CPUSTAT_SLOT);
	}
	if (!ret && strobe_info) {
		fill_info(slot, strobe_info);
		ret = strobe_file_pwrite_all(w->fd, slot, INFO_SLOT, w->info_off);
	}
	if (!ret) {
		struct wbuf b = { 0 };

		for (cpu = 0; cpu < w->nr_cpus; cpu++) {
			put_le(&b, w->cpu_off[cpu], 8);
			put_le(&b, w->cpu_size[cpu], 8);
		}
		/* then the model option's payload, right after in b */
		put_le(&b, w->model_off, 8);
		put_le(&b, w->model_size, 8);
		table = b.p;
		if (b.oom)
			ret = -ENOMEM;
		else if (b.len > 16)
			ret = strobe_file_pwrite_all(w->fd, b.p, b.len - 16, w->table_off);
		if (!ret && !b.oom && w->model_size)
			ret = strobe_file_pwrite_all(w->fd, b.p + b.len - 16, 16, w->model_opt_off);
	}
	free(table);
	for (i = 0; i < w->nr_bufs && !ret; i++) {
		struct wbuf b = { 0 };

		for (cpu = 0; cpu < w->nr_cpus; cpu++) {
			put_le(&b, w->bufs[i].cpu_off[cpu], 8);
			put_le(&b, w->bufs[i].cpu_size[cpu], 8);
		}
		if (b.oom)
			ret = -ENOMEM;
		else if (b.len)
			ret = strobe_file_pwrite_all(w->fd, b.p, b.len, w->bufs[i].table_off);
		free(b.p);
	}
	if (ret)
		strobe_err(err, ret, "%s: cannot finish the file: %s", w->path, strerror(-ret));
	/* give back what is left of the room preallocated at open */
	if (fstat(w->fd, &st) == 0)
		(void)!ftruncate(w->fd, st.st_size);
	if (close(w->fd) < 0 && !ret)
		ret = strobe_err(err, -errno, "%s: cannot close: %s", w->path, strerror(errno));
	w->fd = -1;
	if (!ret)
		ret = strobe_tf_writer_commit(w, err);
	if (ret && w->tmp)
		unlink(w->tmp);		/* unfinished: the old file stays */
	writer_free(w);
	return ret;
}
