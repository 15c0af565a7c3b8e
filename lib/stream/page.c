/*
 * page.c - decoding one ftrace ring-buffer page (see page.h for the
 * layout and the exact timestamp rules).
 *
 * The record loop lives inline in page.h so that the stream's hot loop
 * compiles it in place; this file holds the page header check, the cold
 * error path, and the out-of-line entry point used by tests and fuzzing.
 */
#include <errno.h>

#include "page.h"

int strobe_page_bad(struct strobe_page *p, uint32_t pos, const char *what,
		    struct strobe_error *err)
{
	uint32_t off = (uint32_t)(p->data - p->page) + pos;
	uint32_t hdr = p->len - pos >= 4 ? strobe_rd32(p->data + pos) : 0;

	p->pos = p->len;
	return strobe_err(err, -EINVAL,
			  "%s at page offset %u (type_len %u, commit %u)",
			  what, off, hdr & 31, p->len);
}

int strobe_page_init(struct strobe_page *p, const uint8_t *page,
		     uint32_t page_size, unsigned commit_size,
		     struct strobe_error *err)
{
	uint32_t hdr_size = 8 + commit_size;
	uint32_t room;
	uint64_t commit, missed;

	p->page = page;
	p->data = page;
	p->len = 0;
	p->pos = 0;
	p->ts = 0;
	p->missed = 0;
	if (commit_size != 4 && commit_size != 8)
		return strobe_err(err, -EINVAL, "bad commit field size %u",
				  commit_size);
	if (!page || page_size <= hdr_size)
		return strobe_err(err, -EINVAL, "bad page size %u", page_size);
	room = page_size - hdr_size;
	p->data = page + hdr_size;
	p->ts = strobe_rd64(page);
	commit = commit_size == 8 ? strobe_rd64(page + 8) : strobe_rd32(page + 8);
	if ((commit & STROBE_RB_COMMIT_MASK) > room)
		return strobe_err(err, -EINVAL,
				  "commit %u larger than the page's %u data bytes",
				  (unsigned)(commit & STROBE_RB_COMMIT_MASK), room);
	p->len = commit & STROBE_RB_COMMIT_MASK;
	if (commit & STROBE_RB_MISSED_EVENTS) {
		if (!(commit & STROBE_RB_MISSED_STORED)) {
			p->missed = -1;
			return 0;
		}
		if (room - p->len < commit_size) {
			p->len = 0;
			return strobe_err(err, -EINVAL,
					  "lost-event count stored past the page end");
		}
		missed = commit_size == 8 ? strobe_rd64(p->data + p->len) :
					    strobe_rd32(p->data + p->len);
		p->missed = missed > INT64_MAX ? INT64_MAX : (int64_t)missed;
	}
	return 0;
}

int strobe_page_next(struct strobe_page *p, struct strobe_page_rec *rec,
		     struct strobe_error *err)
{
	return strobe_page_next_fast(p, rec, err);
}
