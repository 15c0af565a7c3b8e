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
 *     type_len 29 (padding)     array[0] = bytes after the header word
 *                               (array[0] itself included); with
 *                               time_delta 0 it runs to the page's end
 *     type_len 30 (time extend) delta = time_delta | array[0] << 27
 *     type_len 31 (time stamp)  absolute: time_delta | array[0] << 27,
 *                               the top 5 bits kept from the current time
 *
 * The decoder is pure (no I/O, no allocation), bounds-checks everything
 * against the page, and is fuzzed (tests/fuzz/fuzz_page.c).
 *
 * Timestamps and sizes follow libtraceevent's kbuffer (what trace-cmd
 * report prints), checked against its kbuffer-parse.c:
 *   - commit: the length is the low 27 bits; bits 31 and 30 are flags;
 *   - every record's delta, including a discarded event's (padding with a
 *     non-zero time_delta), is added to the running time;
 *   - a data record's time is the running time after its own delta;
 *   - type_len 0: array[0] counts the payload plus itself (4 bytes); the
 *     payload size is array[0] - 4 rounded up to a multiple of 4;
 *   - a time stamp record replaces the running time, keeping its top
 *     5 bits (59..63).
 * Where kbuffer would read garbage we stop: padding with time_delta 0
 * ends the page (the kernel's own reader does the same), and a padding
 * record running past the commit ends the page quietly (nothing of it is
 * read).  A data or time record that does not fit the commit is an error.
 *
 * strobe_page_next() is also provided inline (strobe_page_next_fast) for
 * the stream's hot loop; both are the same code.
 */
#ifndef STROBE_STREAM_PAGE_H
#define STROBE_STREAM_PAGE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

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

/* ---- the decoder itself, inline for the stream's hot loop ------------- */

#define STROBE_RB_TYPE_DATA_MAX		28
#define STROBE_RB_TYPE_PADDING		29
#define STROBE_RB_TYPE_TIME_EXTEND	30
#define STROBE_RB_TYPE_TIME_STAMP	31
#define STROBE_RB_TS_SHIFT		27
#define STROBE_RB_TS_MSB		(0x1fULL << 59)
#define STROBE_RB_COMMIT_MASK		((1U << 27) - 1)
#define STROBE_RB_MISSED_EVENTS		(1U << 31)
#define STROBE_RB_MISSED_STORED		(1U << 30)

static inline uint32_t strobe_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t strobe_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/*
 * Report a malformed record at data offset `pos` and make the rest of the
 * page unusable.  Returns -EINVAL.  Out of line: it is the cold path.
 */
int strobe_page_bad(struct strobe_page *p, uint32_t pos, const char *what,
		    struct strobe_error *err) STROBE_HIDDEN;

/*
 * Same contract as strobe_page_next().  Every iteration of the loop moves
 * `pos` forward by at least 4 bytes, and every read is checked against
 * p->len (which strobe_page_init() checked against the page size).
 */
static inline int strobe_page_next_fast(struct strobe_page *p,
					struct strobe_page_rec *rec,
					struct strobe_error *err)
{
	const uint8_t *d = p->data;
	uint32_t len = p->len;
	uint32_t pos = p->pos;
	uint64_t ts = p->ts;
	uint32_t hdr, type_len, delta, a0, size, left, hlen;

	while (pos < len) {
		left = len - pos;
		if (left < 4)
			return strobe_page_bad(p, pos, "truncated event header", err);
		hdr = strobe_rd32(d + pos);
		type_len = hdr & 31;
		delta = hdr >> 5;
		if (type_len - 1 < STROBE_RB_TYPE_DATA_MAX) {
			hlen = 4;
			size = type_len << 2;
		} else if (type_len == STROBE_RB_TYPE_PADDING) {
			if (delta == 0 || left < 8)
				break;		/* the rest of the page is padding */
			ts += delta;		/* a discarded event keeps its delta */
			a0 = strobe_rd32(d + pos + 4);
			if (a0 > left - 4)
				break;
			pos += 4 + a0;
			continue;
		} else {
			if (left < 8)
				return strobe_page_bad(p, pos, "truncated event header", err);
			a0 = strobe_rd32(d + pos + 4);
			if (type_len == STROBE_RB_TYPE_TIME_EXTEND) {
				ts += ((uint64_t)a0 << STROBE_RB_TS_SHIFT) + delta;
				pos += 8;
				continue;
			}
			if (type_len == STROBE_RB_TYPE_TIME_STAMP) {
				ts = (((uint64_t)a0 << STROBE_RB_TS_SHIFT) + delta) |
				     (ts & STROBE_RB_TS_MSB);
				pos += 8;
				continue;
			}
			/* type_len 0: the length is in array[0] */
			if (a0 < 4)
				return strobe_page_bad(p, pos, "bad event length", err);
			hlen = 8;
			size = ((a0 - 4) + 3) & ~3U;
		}
		/* a data record: hlen header bytes, then size payload bytes */
		if (left - hlen < size)
			return strobe_page_bad(p, pos, "event runs past the commit", err);
		ts += delta;
		rec->ts = ts;
		rec->data = d + pos + hlen;
		rec->size = size;
		rec->offset = (uint32_t)(d - p->page) + pos;
		p->pos = pos + hlen + size;
		p->ts = ts;
		return 1;
	}
	p->pos = len;
	p->ts = ts;
	return 0;
}

#endif
