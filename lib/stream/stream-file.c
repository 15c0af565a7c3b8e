/*
 * stream-file.c - an event stream over a trace file: one page feed per
 * (buffer, CPU) of the file, wrapping the tracefile layer's CPU cursors.
 *
 * Kept apart from stream.c so that programs using only
 * strobe_stream_open_feeds() (unit tests, fuzzers) do not pull the
 * trace-file reader out of the static library.
 *
 * The tracefile cursor does not report where a page lies in the file, so
 * the offsets in events and messages count from the start of that CPU's
 * data (page number times page size).
 */
#include <errno.h>
#include <stdlib.h>

#include <strobe/strobe.h>
#include "../tracefile/tracefile-int.h"
#include "../util/err.h"
#include "../util/opts.h"
#include "stream-int.h"

struct file_feed {
	struct strobe_tf_cpu *cpu;
	uint64_t next_off;		/* offset of the next page in the CPU data */
	unsigned page_size;
};

int strobe_file_feed_next(void *ctx, const uint8_t **page, uint64_t *offset,
			  struct strobe_error *err)
{
	struct file_feed *ff = ctx;
	int r = strobe_tf_cpu_next_page(ff->cpu, page, err);

	if (r > 0) {
		*offset = ff->next_off;
		ff->next_off += ff->page_size;
	}
	return r;
}

void strobe_file_feed_hold(void *ctx, const struct strobe_page_hold *hold)
{
	struct file_feed *ff = ctx;

	tf_cpu_set_hold(ff->cpu, hold);
}

static void file_feed_close(void *ctx)
{
	struct file_feed *ff = ctx;

	strobe_tf_cpu_close(ff->cpu);
	free(ff);
}

static bool keep_cpu(const struct strobe_stream_opts *opts, int cpu)
{
	if (!opts || !opts->cpu_mask)
		return true;
	return cpu >= 0 && cpu < opts->nr_cpu_mask && opts->cpu_mask[cpu];
}

int strobe_stream_open_file(struct strobe_tracefile *tf,
			    const struct strobe_stream_opts *opts,
			    struct strobe_stream **out, struct strobe_error *err)
{
	struct strobe_stream_opts own;
	struct strobe_page_feed *feeds = NULL;
	struct strobe_tf_buffer_info info;
	struct strobe_tf_cpu *c;
	struct file_feed *ff;
	int nr_buffers, total = 0, n = 0, b, i, r;
	unsigned page_size;

	*out = NULL;
	if (!tf)
		return strobe_err(err, -EINVAL, "no trace file");
	if (opts) {
		strobe_opts_copy(&own, sizeof(own), opts);
		opts = &own;
	}
	nr_buffers = strobe_tracefile_nr_buffers(tf);
	if (opts && opts->buffer >= nr_buffers)
		return strobe_err(err, -ENOENT, "the trace file has no buffer %d "
				  "(it has %d)", opts->buffer, nr_buffers);
	page_size = strobe_tracefile_page_size(tf);
	for (b = 0; b < nr_buffers; b++) {
		if (opts && opts->buffer >= 0 && b != opts->buffer)
			continue;
		if (strobe_tracefile_buffer(tf, b, &info) == 0 && info.nr_cpus > 0)
			total += info.nr_cpus;
	}
	if (total) {
		feeds = calloc((size_t)total, sizeof(*feeds));
		if (!feeds)
			return strobe_err(err, -ENOMEM, "out of memory");
	}
	for (b = 0; b < nr_buffers; b++) {
		if (opts && opts->buffer >= 0 && b != opts->buffer)
			continue;
		if (strobe_tracefile_buffer(tf, b, &info) != 0 || info.nr_cpus <= 0)
			continue;
		for (i = 0; i < info.nr_cpus && n < total; i++) {
			r = strobe_tf_cpu_open(tf, b, i, &c, err);
			if (r < 0)
				goto fail;
			if (!keep_cpu(opts, strobe_tf_cpu_id(c))) {
				strobe_tf_cpu_close(c);
				continue;
			}
			ff = calloc(1, sizeof(*ff));
			if (!ff) {
				strobe_tf_cpu_close(c);
				r = strobe_err(err, -ENOMEM, "out of memory");
				goto fail;
			}
			ff->cpu = c;
			ff->page_size = page_size;
			feeds[n].next_page = strobe_file_feed_next;
			feeds[n].close = file_feed_close;
			feeds[n].ctx = ff;
			feeds[n].cpu = strobe_tf_cpu_id(c);
			feeds[n].buffer = b;
			n++;
		}
	}
	r = strobe_stream_open_feeds(feeds, n, page_size,
				     strobe_tracefile_commit_size(tf),
				     strobe_tracefile_formats(tf),
				     strobe_tracefile_ts_offset(tf), out, err);
	free(feeds);
	if (r == 0)	/* records that do not fit their format: the file says so */
		strobe_stream_set_short_hook(*out, tf_note_short_record, tf);
	return r;

fail:
	for (i = 0; i < n; i++)
		file_feed_close(feeds[i].ctx);
	free(feeds);
	return r;
}
