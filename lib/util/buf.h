/*
 * buf.h - struct strobe_buf is a libtraceevent trace_seq inside (internal).
 *
 * The library's writers (event text through tep_print_event, JSON, tables)
 * append to a trace_seq; the public API hands out struct strobe_buf so
 * that libtraceevent's type stays out of include/strobe/.  Writers take a
 * strobe_buf and work on strobe_buf_seq(b).
 */
#ifndef STROBE_UTIL_BUF_H
#define STROBE_UTIL_BUF_H

#include <errno.h>

#include <traceevent/trace-seq.h>

#include <strobe/strobe.h>

struct strobe_buf {
	struct trace_seq s;
};

static inline struct trace_seq *strobe_buf_seq(struct strobe_buf *b)
{
	return &b->s;
}

/* 0, or -ENOMEM once the buffer failed to grow. */
static inline int strobe_buf_status(const struct strobe_buf *b)
{
	return b->s.state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}

#endif
