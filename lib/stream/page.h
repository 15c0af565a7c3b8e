/*
 * page.h - decoding one ftrace ring-buffer page (sub-buffer), internal.
 *
 * Layout (events/header_page, events/header_event):
 *   u64 timestamp               absolute time of the page's first event
 *   local_t commit              bytes of event data (4 or 8 bytes wide);
 *                               bit 31: events were lost before this page,
 *                               bit 30: the lost count is stored after the
 *                               data (a local_t at data + commit)
 *   data[]                      events, each a u32 header
 *                               { type_len:5, time_delta:27 } then array[]
 *     type_len 0                length in array[0], payload at array[1]
 *     type_len 1..28            payload of type_len*4 bytes at array[0]
 *     type_len 29 (padding)     array[0] = length of padding; with
 *                               time_delta 0 it runs to the page's end
 *     type_len 30 (time extend) delta = time_delta | array[0] << 27
 *     type_len 31 (time stamp)  absolute: time_delta | array[0] << 27,
 *                               the top 5 bits kept from the current time
 *
 * The decoder is pure (no I/O, no allocation), bounds-checks everything
 * against the page, and is fuzzed (tests/fuzz/fuzz_page.c).
 */
#ifndef STROBE_STREAM_PAGE_H
#define STROBE_STREAM_PAGE_H

#include <stdint.h>

#include "../util/err.h"

struct strobe_page {
	const uint8_t *page;	/* start of the page */
	const uint8_t *data;	/* start of event data */
	uint32_t len;		/* committed data bytes (flags stripped), <= room */
	uint32_t pos;		/* offset of the next event header in data */
	uint64_t ts;		/* time of the last event decoded */
	int64_t missed;		/* lost before this page: 0, >0 count, -1 unknown */
};

/* One raw event decoded from a page. */
struct strobe_page_rec {
	uint64_t ts;
	const uint8_t *data;	/* payload */
	uint32_t size;		/* payload bytes */
	uint32_t offset;	/* offset of the event header from page start */
};

/*
 * Start decoding `page` of `page_size` bytes whose commit field is
 * `commit_size` (4 or 8) bytes wide.  Returns 0, or -EINVAL with *err set
 * if the header is impossible (commit larger than the page, bad sizes).
 */
int strobe_page_init(struct strobe_page *p, const uint8_t *page,
		     uint32_t page_size, unsigned commit_size,
		     struct strobe_error *err) STROBE_HIDDEN;

/*
 * Next event with a payload: returns 1 and fills *rec, 0 at the end of the
 * page, or -EINVAL with *err set on a malformed event header (the rest of
 * the page is then unusable).  Padding and time records are consumed.
 */
int strobe_page_next(struct strobe_page *p, struct strobe_page_rec *rec,
		     struct strobe_error *err) STROBE_HIDDEN;

#endif
