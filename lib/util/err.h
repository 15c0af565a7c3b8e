/*
 * err.h - helpers to fill a struct strobe_error (internal).
 *
 * strobe_err() formats a message into *err (if err is not NULL) and
 * returns `code` (a negative errno) so callers can write
 *     return strobe_err(err, -EINVAL, "bad page size %u", n);
 */
#ifndef STROBE_UTIL_ERR_H
#define STROBE_UTIL_ERR_H

#include <strobe/strobe.h>

#define STROBE_HIDDEN __attribute__((visibility("hidden")))

int strobe_err(struct strobe_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))) STROBE_HIDDEN;

/* Prefix an existing message with "prefix: " (keeps code). */
void strobe_err_prefix(struct strobe_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) STROBE_HIDDEN;

/* Reset to "no error". */
static inline void strobe_err_clear(struct strobe_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

#endif
