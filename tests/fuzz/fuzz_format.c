/*
 * fuzz_format.c - libFuzzer harness for event format text, the part of a
 * trace file that goes to libtraceevent's parser.
 *
 * libtraceevent 1.7 is not hardened against damaged formats (it divides
 * by zero, dereferences NULL and reads out of bounds on some), so the
 * trace file reader first passes every format through strobe's own check
 * (lib/format/fmtcheck.c).  This harness holds the pair to the promise
 * the reader relies on: whatever the check accepts, libtraceevent parses
 * without crashing, and events of that format print as text (with and
 * without the format cache) and as JSON without crashing, whatever their
 * payload.
 *
 * Input: the format text itself, so seeds in corpus/fuzz_format/ are
 * kernel format files as tracefs shows them.  Each accepted format is
 * printed with three payloads: all zeros (divisors are 0), all 0xff
 * (lengths and offsets huge), and bytes taken from the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <strobe/strobe.h>
#include "format/fmtcheck.h"
#include "../unit/formats_of.h"
#include "../unit/buf_of.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:tep_parse_event\nleak:tep_load_plugins\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tep_handle *new_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	return tep;
}

static void print_all(struct tep_handle *tep, const struct strobe_format *fmt,
		      const uint8_t *payload, uint32_t size)
{
	struct strobe_format_cache *cache = strobe_format_cache_new(formats_of(tep));
	struct strobe_event ev;
	struct trace_seq s;
	uint8_t *copy = malloc(size);
	int i;

	if (!copy) {
		strobe_format_cache_free(cache);
		return;
	}
	memcpy(copy, payload, size);
	if (size >= 2) {	/* common_type must name the format */
		copy[0] = (uint8_t)strobe_format_id(fmt);
		copy[1] = (uint8_t)(strobe_format_id(fmt) >> 8);
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts = 1234567890;
	ev.data = copy;
	ev.size = size;
	ev.type = strobe_format_id(fmt);
	ev.pid = 1;
	ev.format = fmt;
	trace_seq_init(&s);
	/* twice with the cache: its first use compares both paths */
	for (i = 0; i < 2; i++) {
		strobe_format_event_text(formats_of(tep), &ev, NULL, NULL, buf_of(&s));
		if (cache) {
			struct strobe_text_opts o = { .cache = cache };

			strobe_format_event_text(formats_of(tep), &ev, NULL, &o, buf_of(&s));
		}
		strobe_format_event_json(formats_of(tep), &ev, NULL, cache, buf_of(&s));
		trace_seq_reset(&s);
	}
	trace_seq_destroy(&s);
	strobe_format_cache_free(cache);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t zeros[4096], ones[4096];
	struct tep_handle *tep;
	const struct strobe_format *fmt = NULL;
	uint8_t mixed[256];
	const char *why;
	size_t i;

	if (size > 64 * 1024)
		return 0;
	if (!strobe_format_check((const char *)data, size, &why))
		return 0;
	tep = new_tep();
	if (!tep)
		return 0;
	if (tep_parse_event(tep, (const char *)data, size, "fz") == 0 &&
	    tep_get_events_count(tep) > 0)
		fmt = strobe_formats_by_id(formats_of(tep), tep_get_event(tep, 0)->id);
	if (fmt) {
		memset(ones, 0xff, sizeof(ones));
		for (i = 0; i < sizeof(mixed); i++)
			mixed[i] = data[(i * 7919) % size];
		print_all(tep, fmt, zeros, sizeof(zeros));
		print_all(tep, fmt, ones, sizeof(ones));
		print_all(tep, fmt, mixed, sizeof(mixed));
		print_all(tep, fmt, zeros, 8);
	}
	free_tep(tep);
	return 0;
}
