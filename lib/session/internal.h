/*
 * internal.h - helpers shared by the session layer (lib/session/) and the
 * layers built on it: whole-file reads and writes of tracefs and /proc
 * files.  tracefs files report size 0, so reads loop until EOF.
 */
#ifndef STROBE_SESSION_INTERNAL_H
#define STROBE_SESSION_INTERNAL_H

#include <stddef.h>

#include "../util/err.h"

/*
 * Read the whole of `path` into a malloc'd, NUL-terminated buffer (*buf,
 * caller frees); *len (may be NULL) gets the length without the NUL.
 * Returns 0 or -errno.
 */
int strobe_fs_read(const char *path, char **buf, size_t *len) STROBE_HIDDEN;

/* Write `s` to `path` (truncating; with append, O_APPEND).  0 or -errno. */
int strobe_fs_write(const char *path, const char *s, int append) STROBE_HIDDEN;

/* snprintf into a fixed buffer; -ENAMETOOLONG if it does not fit. */
int strobe_fs_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))) STROBE_HIDDEN;

struct strobe_session;
struct strobe_session_meta;

/*
 * Re-read saved_cmdlines into m's task names (extra_cmdlines, "pid
 * comm\n" lines, first), leaving the rest of m as collected: tasks born
 * during a recording are named there only at its end.  0 or -ENOMEM (m
 * unchanged).
 */
int strobe_session_meta_refresh_cmdlines(struct strobe_session *s,
					 const char *extra_cmdlines,
					 struct strobe_session_meta *m) STROBE_HIDDEN;

/* Edit distance between a and b (pure; long strings are cut at 128). */
size_t strobe_edit_distance(const char *a, const char *b) STROBE_HIDDEN;

#endif
