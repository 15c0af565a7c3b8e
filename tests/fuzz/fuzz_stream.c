/*
 * fuzz_stream.c - libFuzzer harness for what `strobe report` does with a
 * trace file from elsewhere: open it, merge every CPU of every buffer
 * into one stream, and format each event as trace-cmd text (with and
 * without the format cache) and as JSON.
 *
 * The input is a whole trace file, put in a memfd so the reader opens it
 * like a real file.  Opening must fail cleanly or succeed; the stream
 * must end (each call consumes a record or a page, so the number of calls
 * is bounded by the file size); formatting must never read outside the
 * mapping.  Seeds in corpus/fuzz_stream/ are small recordings: strobe's
 * v6 writer and trace-cmd's v7 conversions, with sched and syscall
 * events whose print formats use most of libtraceevent's helpers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <strobe/strobe.h>
#include "../unit/buf_of.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:tep_parse_event\nleak:tep_load_plugins\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void stream_all(struct strobe_tracefile *tf, size_t size)
{
	struct strobe_formats *fmts = strobe_tracefile_formats(tf);
	struct strobe_format_cache *cache = strobe_format_cache_new(fmts);
	struct strobe_text_opts plain = { 0 }, cached = { .cache = cache };
	struct strobe_stream_stats st;
	struct strobe_stream *s;
	struct strobe_error err;
	struct strobe_event ev;
	struct trace_seq seq;
	struct strobe_event held;
	uint8_t held_data[256];
	bool have = false;
	uint64_t steps = 0, limit = size / 4 + 1024;
	int r;

	if (strobe_stream_open_file(tf, NULL, &s, &err) < 0) {
		strobe_format_cache_free(cache);
		return;
	}
	trace_seq_init(&seq);
	while ((r = strobe_stream_next(s, &ev, &err)) != 0) {
		if (++steps > limit)
			__builtin_trap();	/* the stream does not advance */
		if (r < 0)
			continue;
		/* report's function_graph leaf rule (output.h) */
		if (have && strobe_fgraph_leaf(fmts, &held, &ev)) {
			strobe_fgraph_set_leaf(fmts, &ev);
			strobe_format_event_text(fmts, &held, NULL, &plain, buf_of(&seq));
			strobe_fgraph_set_leaf(fmts, NULL);
		}
		have = strobe_fgraph_is_entry(fmts, &ev) && ev.size <= sizeof(held_data);
		if (have) {
			held = ev;
			memcpy(held_data, ev.data, ev.size);
			held.data = held_data;
		}
		strobe_format_event_text(fmts, &ev, NULL, &plain, buf_of(&seq));
		strobe_format_event_text(fmts, &ev, "buf", &cached, buf_of(&seq));
		strobe_format_event_json(fmts, &ev, NULL, cache, buf_of(&seq));
		strobe_format_event_json(fmts, &ev, "buf", NULL, buf_of(&seq));
		if (seq.len > (1u << 20))
			trace_seq_reset(&seq);
	}
	strobe_stream_stats(s, &st);
	trace_seq_destroy(&seq);
	strobe_stream_close(s);
	strobe_format_cache_free(cache);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_error err;
	struct strobe_tracefile *tf;
	char path[64];
	int fd;

	if (size > (4 << 20))
		return 0;
	fd = memfd_create("fuzz_stream", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (strobe_tracefile_open(path, &tf, &err) == 0) {
		stream_all(tf, size);
		strobe_tracefile_close(tf);
	}
	close(fd);
	return 0;
}
