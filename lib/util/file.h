/*
 * file.h - creating and opening files safely where other users can write
 * (internal).
 *
 * strobe runs as root and is pointed at folders other users own: a trace
 * output in a shared folder, container metadata under users' homes.  A
 * name there may be a symlink planted to make root overwrite a file, or
 * a FIFO or device planted to make root block or read forever.  These
 * helpers are the one place that knows the rules:
 *
 *   - new files are created under a fresh random name next to their final
 *     name (O_CREAT|O_EXCL, which never follows a symlink), mode 0600,
 *     and renamed into place by the caller once they are worth keeping
 *     (rename replaces a symlink itself, never its target);
 *   - files read on someone else's behalf are opened O_NONBLOCK (a FIFO
 *     does not block the open) and, where the name is not the user's own
 *     argument, O_NOFOLLOW; fstat must say "regular file", and the size
 *     is capped before anything is read.
 */
#ifndef STROBE_UTIL_FILE_H
#define STROBE_UTIL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "err.h"

/*
 * Create a new empty file "DIR/.BASE.XXXXXX" next to `path` (DIR/BASE),
 * opened O_RDWR|O_CLOEXEC, mode 0600, never through a symlink.  Returns
 * the descriptor and sets *tmp_path (malloc'ed, caller frees; the caller
 * renames or unlinks the file), or -errno with *err naming `path`.
 */
int strobe_file_create_tmp(const char *path, char **tmp_path,
			   struct strobe_error *err) STROBE_HIDDEN;

/* Flags for strobe_file_open_regular(). */
enum {
	STROBE_FILE_NOFOLLOW = 1,	/* the last name may not be a symlink */
};

/*
 * Open `path` read-only for a parser: O_NONBLOCK (a FIFO cannot block),
 * O_NOFOLLOW with STROBE_FILE_NOFOLLOW; the opened file must be a regular
 * file of at most `max_size` bytes (0: no cap).  Returns the descriptor
 * (O_NONBLOCK cleared again) with *st filled, or -errno with a one-line
 * reason in *err ("not a regular file (a FIFO)", "is a symlink",
 * "too large (N bytes, at most M)"):
 *   -ELOOP a symlink (NOFOLLOW), -EINVAL not a regular file, -EFBIG too
 *   large, or open's and fstat's own errors.
 */
int strobe_file_open_regular(const char *path, int flags, uint64_t max_size,
			     struct stat *st, struct strobe_error *err) STROBE_HIDDEN;

/* What kind of file st describes, for messages: "a FIFO", "a directory". */
const char *strobe_file_kind(const struct stat *st) STROBE_HIDDEN;

/*
 * pread exactly n bytes at off (retrying EINTR and short reads).  Returns
 * 0, -errno, or -ENODATA when the file ends first (it shrank).
 */
int strobe_file_pread_all(int fd, void *buf, size_t n, uint64_t off) STROBE_HIDDEN;

/* pwrite exactly n bytes at off (retrying EINTR and short writes).
 * Returns 0 or -errno (-EIO when nothing could be written). */
int strobe_file_pwrite_all(int fd, const void *buf, size_t n, uint64_t off) STROBE_HIDDEN;

#endif
