/*
 * strobe.h - umbrella header of libstrobe, and the types every layer shares.
 *
 * libstrobe is layered (see doc/ARCHITECTURE.md): session (tracefs control),
 * source (live per-CPU capture), tracefile (trace.dat reading and writing),
 * stream (time-ordered, decoded event stream), output (text and JSON),
 * expr (filter and period expressions).
 * Include this header to get all of them.
 *
 * Error convention: functions return 0 (or a count) on success and a
 * negative errno on failure.  Functions that can fail for reasons a user
 * must see also take a `struct strobe_error *` (may be NULL) which receives
 * a one-line message naming what failed and why.  The library never prints,
 * never exits and never aborts.
 */
#ifndef STROBE_STROBE_H
#define STROBE_STROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STROBE_VERSION "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* A failure a caller can show: `code` is a negative errno (0 = no error),
 * `msg` a single line without trailing newline, e.g.
 * "trace.dat: truncated in section 'options' at offset 4123". */
struct strobe_error {
	int code;
	char msg[512];
};

/* Returns the library version string (same as STROBE_VERSION at build). */
const char *strobe_version(void);

/*
 * A growable text buffer that every writer of the library appends to
 * (event lines, JSON, tables, LAMI).  A caller keeps one for a whole run,
 * lets writers append many items, writes the content out in large chunks
 * (strobe_buf_flush) and goes on.  Appending never fails silently: when
 * memory runs out the buffer stops growing, the writer returns -ENOMEM,
 * and strobe_buf_failed() stays true until strobe_buf_reset().
 */
struct strobe_buf;	/* opaque */

struct strobe_buf *strobe_buf_new(void);	/* NULL when out of memory */
void strobe_buf_free(struct strobe_buf *b);	/* NULL ok */
/* The content, NUL-terminated (valid until the next append or reset),
 * and its length in bytes. */
const char *strobe_buf_data(struct strobe_buf *b);
size_t strobe_buf_len(const struct strobe_buf *b);
void strobe_buf_reset(struct strobe_buf *b);	/* empty again, error cleared */
/* Drop the content after its first len bytes (len >= length: nothing). */
void strobe_buf_truncate(struct strobe_buf *b, size_t len);
bool strobe_buf_failed(const struct strobe_buf *b);
/* Append; 0 or -ENOMEM. */
int strobe_buf_printf(struct strobe_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int strobe_buf_puts(struct strobe_buf *b, const char *s);
int strobe_buf_putc(struct strobe_buf *b, char c);
int strobe_buf_write(struct strobe_buf *b, const void *p, size_t n);
/* Write the content to fd (all of it, retrying short writes and EINTR)
 * and reset the buffer.  0, -ENOMEM (the buffer had failed: nothing is
 * written) or the write's -errno. */
int strobe_buf_flush(struct strobe_buf *b, int fd);

#ifdef __cplusplus
}
#endif

#include <strobe/tracefile.h>
#include <strobe/stream.h>
#include <strobe/expr.h>
#include <strobe/session.h>
#include <strobe/record.h>
#include <strobe/output.h>
#include <strobe/model.h>
#include <strobe/analysis.h>
#include <strobe/capture.h>
#include <strobe/sql.h>
#include <strobe/pipeline.h>

#endif
