/*
 * buf_of.h - a test's own trace_seq seen as the struct strobe_buf the
 * public writers take.  struct strobe_buf (lib/util/buf.h) holds exactly
 * one trace_seq as its first member, so a pointer to that trace_seq is a
 * pointer to a strobe_buf; tests keep their trace_seq to compare the
 * writers' output with libtraceevent's own printing.
 */
#ifndef STROBE_TEST_BUF_OF_H
#define STROBE_TEST_BUF_OF_H

#include <stddef.h>

#include "util/buf.h"

_Static_assert(offsetof(struct strobe_buf, s) == 0, "strobe_buf starts with its trace_seq");

static inline struct strobe_buf *buf_of(struct trace_seq *s)
{
	return (struct strobe_buf *)(void *)s;
}

#endif
