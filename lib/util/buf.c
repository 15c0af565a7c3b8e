/*
 * buf.c - the public growable text buffer (struct strobe_buf) over
 * libtraceevent's trace_seq, and writing it out to a file descriptor.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"

struct strobe_buf *strobe_buf_new(void)
{
	struct strobe_buf *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	trace_seq_init(&b->s);
	if (!b->s.buffer) {
		free(b);
		return NULL;
	}
	return b;
}

void strobe_buf_free(struct strobe_buf *b)
{
	if (!b)
		return;
	trace_seq_destroy(&b->s);
	free(b);
}

const char *strobe_buf_data(struct strobe_buf *b)
{
	trace_seq_terminate(&b->s);
	return b->s.buffer;
}

size_t strobe_buf_len(const struct strobe_buf *b)
{
	return b->s.len;
}

void strobe_buf_reset(struct strobe_buf *b)
{
	trace_seq_reset(&b->s);
	b->s.state = TRACE_SEQ__GOOD;
}

void strobe_buf_truncate(struct strobe_buf *b, size_t len)
{
	if (len < b->s.len)
		b->s.len = (unsigned int)len;
}

bool strobe_buf_failed(const struct strobe_buf *b)
{
	return strobe_buf_status(b) < 0;
}

/* Room for n more bytes and the NUL trace_seq_terminate puts after them:
 * then an append is a copy (trace_seq's fields are public; it has no
 * counted append of its own, and its putc is a call per character). */
static inline bool room(const struct strobe_buf *b, size_t n)
{
	return b->s.state == TRACE_SEQ__GOOD && n < b->s.buffer_size - b->s.len;
}

int strobe_buf_printf(struct strobe_buf *b, const char *fmt, ...)
{
	char tmp[512], *big;
	va_list ap;
	int n;

	/* Not trace_seq_vprintf: it reuses its va_list when the buffer has
	 * to grow, printing garbage at every growth.  Format here, then
	 * append the bytes. */
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(tmp)) {
		/* the common case, no NUL inside: one append, not a second
		 * formatting pass through strobe_buf_write */
		if (strlen(tmp) == (size_t)n)
			return strobe_buf_puts(b, tmp);
		return strobe_buf_write(b, tmp, (size_t)n);
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		b->s.state = TRACE_SEQ__MEM_ALLOC_FAILED;
		return -ENOMEM;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	strobe_buf_write(b, big, (size_t)n);
	free(big);
	return strobe_buf_status(b);
}

int strobe_buf_puts(struct strobe_buf *b, const char *s)
{
	return strobe_buf_write(b, s, strlen(s));
}

int strobe_buf_putc(struct strobe_buf *b, char c)
{
	if (room(b, 1)) {
		b->s.buffer[b->s.len++] = c;
		return 0;
	}
	trace_seq_putc(&b->s, (unsigned char)c);
	return strobe_buf_status(b);
}

int strobe_buf_write(struct strobe_buf *b, const void *p, size_t n)
{
	const char *c = p;
	size_t k;

	if (room(b, n)) {
		memcpy(b->s.buffer + b->s.len, p, n);
		b->s.len += (unsigned int)n;
		return 0;
	}

	/* trace_seq has no counted append: runs without a NUL go through
	 * printf's %.*s (which would stop at a NUL), NULs one by one. */
	while (n) {
		k = strnlen(c, n < 65536 ? n : 65536);
		if (k) {
			trace_seq_printf(&b->s, "%.*s", (int)k, c);
		} else {
			trace_seq_putc(&b->s, 0);
			k = 1;
		}
		c += k;
		n -= k;
	}
	return strobe_buf_status(b);
}

int strobe_buf_flush(struct strobe_buf *b, int fd)
{
	const char *p = b->s.buffer;
	size_t n = b->s.len;
	ssize_t w;

	if (strobe_buf_failed(b))
		return -ENOMEM;
	while (n) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	strobe_buf_reset(b);
	return 0;
}
