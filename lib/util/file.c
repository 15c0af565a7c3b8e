/*
 * file.c - safe creation of output files and safe opening of inputs
 * other users control; the rules are in file.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"

int strobe_file_create_tmp(const char *path, char **tmp_path,
			   struct strobe_error *err)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dlen = slash ? (int)(slash - path + 1) : 0;
	char *tmpl;
	int fd, e;

	*tmp_path = NULL;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return strobe_err(err, -EISDIR, "%s: cannot create: is a directory", path);
	if (asprintf(&tmpl, "%.*s.%s.XXXXXX", dlen, path, base) < 0)
		return strobe_err(err, -ENOMEM, "%s: out of memory", path);
	/* mkostemp: O_CREAT|O_EXCL (a symlink at the name fails, it is never
	 * followed), mode 0600, a name nobody can guess in advance */
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(tmpl);
		return strobe_err(err, -e, "%s: cannot create: %s", path, strerror(e));
	}
	*tmp_path = tmpl;
	return fd;
}

const char *strobe_file_kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symlink";
	default: return "not a regular file";
	}
}

int strobe_file_open_regular(const char *path, int flags, uint64_t max_size,
			     struct stat *st, struct strobe_error *err)
{
	int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	int fd, e;

	if (flags & STROBE_FILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP && (flags & STROBE_FILE_NOFOLLOW))
			return strobe_err(err, -ELOOP, "%s: is a symlink (not followed)", path);
		return strobe_err(err, -e, "%s: cannot open: %s", path, strerror(e));
	}
	if (fstat(fd, st) < 0) {
		e = errno;
		close(fd);
		return strobe_err(err, -e, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return strobe_err(err, -EINVAL, "%s: not a regular file (%s)", path,
				  strobe_file_kind(st));
	}
	if (max_size && (uint64_t)st->st_size > max_size) {
		close(fd);
		return strobe_err(err, -EFBIG, "%s: too large (%lld bytes, at most %llu)",
				  path, (long long)st->st_size, (unsigned long long)max_size);
	}
	/* regular files ignore O_NONBLOCK, but do not hand it on */
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int strobe_file_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENODATA;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int strobe_file_pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
	const char *p = buf;

	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}
