/*
 * fs.c - small file helpers for tracefs and /proc (see internal.h), and
 * locating (or mounting) tracefs.  Kept apart from the session logic so
 * the pure parts of the layer stay testable without a kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "internal.h"

int strobe_fs_read(const char *path, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b, *nb;
	ssize_t r;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	b = malloc(cap);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (cap - n < 4096 + 1) {
			cap *= 2;
			nb = realloc(b, cap);
			if (!nb) {
				e = -ENOMEM;
				goto fail;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = -errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	if (len)
		*len = n;
	return 0;
fail:
	close(fd);
	free(b);
	return e;
}

int strobe_fs_write(const char *path, const char *s, int append)
{
	size_t len = strlen(s), off = 0;
	ssize_t r;
	int fd, e = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	while (off < len) {
		r = write(fd, s + off, len - off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = -errno;
			break;
		}
		off += r;
	}
	/* An empty write still truncates (clears set_event_pid, filters). */
	if (close(fd) < 0 && !e)
		e = -errno;
	return e;
}

int strobe_fs_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

size_t strobe_edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 128), lb = strnlen(b, 128), i, j;
	size_t row[129], prev, tmp, best;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

static int is_tracefs(const char *dir)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/instances", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int strobe_tracefs_dir(const char **dir, struct strobe_error *err)
{
	static const char *const cands[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	size_t i;

	if (geteuid() != 0)
		return strobe_err(err, -EPERM,
				  "permission denied: tracing needs root (run strobe as root)");
	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (is_tracefs(cands[i])) {
			*dir = cands[i];
			return 0;
		}
	if (mount("nodev", cands[0], "tracefs", 0, NULL) == 0 && is_tracefs(cands[0])) {
		*dir = cands[0];
		return 0;
	}
	return strobe_err(err, -ENODEV,
			  "no tracefs: not mounted at /sys/kernel/tracing and cannot be mounted (%s)",
			  strerror(errno));
}
