/*
 * fuzz_page.c - libFuzzer harness for the ring-buffer page decoder and
 * the stream that merges pages.
 *
 * Input: byte 0 selects the layout (bit 0: commit field 4 or 8 bytes;
 * bits 1-2: stream page size 64 << n; bits 3-4: number of feeds - 1); the
 * rest is decoded twice:
 *   1. as one page of its own length, walking every record;
 *   2. split into pages of the chosen size, dealt round-robin to the
 *      feeds, through strobe_stream_next() to the end, going on after
 *      errors, with field accessors exercised on each event.
 * Pages are copied to heap blocks of exactly their size so that a read
 * past a page is caught by ASan.  Each walk is bounded: a decoder that
 * stops advancing traps.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include "stream/page.h"

#include "../unit/formats.h"
#include "../unit/formats_of.h"

#define MAX_FEEDS 4

struct fuzz_feed {
	uint8_t **pages;
	size_t n, next;
	unsigned page_size;
};

static int fuzz_next(void *ctx, const uint8_t **page, uint64_t *offset,
		     struct strobe_error *err)
{
	struct fuzz_feed *f = ctx;

	(void)err;
	if (f->next >= f->n)
		return 0;
	*offset = (uint64_t)f->next * f->page_size;
	*page = f->pages[f->next++];
	return 1;
}

static void fuzz_close(void *ctx)
{
	struct fuzz_feed *f = ctx;
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->pages[i]);
	free(f->pages);
	free(f);
}

static const char fuzz_fmt[] =
	"name: fz\n"
	"ID: 1\n"
	"format:\n"
	FMT_COMMON
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rel;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:long val;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:24;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"name=%s\", __get_str(name)\n";

static struct tep_handle *fuzz_tep(void)
{
	static struct tep_handle *tep;
	static bool tried;

	if (!tried) {
		tried = true;
		tep = tep_alloc();
		if (tep && tep_parse_event(tep, fuzz_fmt, sizeof(fuzz_fmt) - 1, "fz")) {
			free_tep(tep);
			tep = NULL;
		}
	}
	return tep;
}

static void walk_one_page(const uint8_t *data, size_t size, unsigned cs)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err;
	uint8_t *page;
	size_t steps = 0;
	int ret;

	if (size > (1U << 20))
		return;
	page = malloc(size ? size : 1);
	if (!page)
		return;
	memcpy(page, data, size);
	if (strobe_page_init(&p, page, (uint32_t)size, cs, &err) == 0) {
		while ((ret = strobe_page_next(&p, &r, &err)) == 1) {
			if (r.data < page || r.data + r.size > page + size ||
			    ++steps > size)
				__builtin_trap();
		}
		if (ret < 0 && strobe_page_next(&p, &r, &err) != 0)
			__builtin_trap();
	}
	free(page);
}

static void walk_stream(const uint8_t *data, size_t size, unsigned cs,
			unsigned page_size, int nr_feeds)
{
	struct strobe_page_feed feeds[MAX_FEEDS];
	struct fuzz_feed *ff[MAX_FEEDS];
	struct strobe_field fl[5];
	struct strobe_error err;
	struct strobe_stream *s;
	struct strobe_event ev;
	size_t nr_pages = size / page_size, i, steps = 0;
	const struct strobe_format *fmt;
	struct tep_handle *tep = fuzz_tep();
	uint32_t len;
	int k, r;

	for (k = 0; k < nr_feeds; k++) {
		ff[k] = calloc(1, sizeof(*ff[k]));
		if (ff[k])
			ff[k]->pages = calloc(nr_pages / nr_feeds + 1, sizeof(uint8_t *));
		if (!ff[k] || !ff[k]->pages)
			abort();
		ff[k]->page_size = page_size;
		feeds[k] = (struct strobe_page_feed){ .next_page = fuzz_next,
			.close = fuzz_close, .ctx = ff[k], .cpu = k, .buffer = 0 };
	}
	for (i = 0; i < nr_pages; i++) {
		struct fuzz_feed *f = ff[i % nr_feeds];
		uint8_t *pg = malloc(page_size);

		if (!pg)
			abort();
		memcpy(pg, data + i * page_size, page_size);
		f->pages[f->n++] = pg;
	}
	if (strobe_stream_open_feeds(feeds, nr_feeds, page_size, cs, formats_of(tep), 0,
				     &s, &err) < 0)
		return;
	fmt = strobe_formats_by_id(formats_of(tep), 1);
	strobe_field_resolve(fmt, "name", &fl[0]);
	strobe_field_resolve(fmt, "rel", &fl[1]);
	strobe_field_resolve(fmt, "val", &fl[2]);
	strobe_field_resolve(fmt, "comm", &fl[3]);
	strobe_field_resolve(fmt, "common_pid", &fl[4]);
	/* Each call consumes a record or a page: size/4 + pages bounds it. */
	while ((r = strobe_stream_next(s, &ev, &err)) != 0) {
		if (++steps > size / 4 + nr_pages + 4)
			__builtin_trap();
		if (r < 0)
			continue;
		for (k = 0; k < 5; k++) {
			const char *str = strobe_field_str(&ev, &fl[k], &len);

			if (str && (str < (const char *)ev.data ||
				    str + len > (const char *)ev.data + ev.size))
				__builtin_trap();
			(void)strobe_field_int(&ev, &fl[k]);
			(void)strobe_field_uint(&ev, &fl[k]);
		}
	}
	strobe_stream_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned cs, page_size;
	int nr_feeds;

	if (size < 1)
		return 0;
	cs = data[0] & 1 ? 8 : 4;
	page_size = 64U << ((data[0] >> 1) & 3);
	nr_feeds = ((data[0] >> 3) & 3) + 1;
	walk_one_page(data + 1, size - 1, cs);
	walk_stream(data + 1, size - 1, cs, page_size, nr_feeds);
	return 0;
}
