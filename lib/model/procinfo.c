/*
 * procinfo.c - what /proc says about one task: IDs, parent, name, the PID
 * in every PID namespace (NSpid/NStgid), namespace inodes and cgroup.
 *
 * The parser (strobe_proc_parse_status) is pure and bounded so it can be
 * fuzzed and unit-tested on byte-level fixtures; strobe_proc_read is a
 * thin reader on top that takes a /proc root so tests can point it at a
 * fixture directory.  The model layer calls the reader once per task it
 * meets that it has not seen fork (tasks alive before tracing started).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/model.h>

#include "util/err.h"

/* /proc/<pid>/status is ~1.5 KiB, /proc/<pid>/cgroup a few lines of paths. */
#define STATUS_MAX	(64 * 1024)
#define CGROUP_MAX	(64 * 1024)

/* Parse a decimal int >= 0 filling [p, end).  Returns false if malformed. */
static bool parse_uint(const char *p, const char *end, int *out)
{
	long v = 0;

	if (p >= end)
		return false;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
		if (v > 0x7fffffff)
			return false;
	}
	*out = (int)v;
	return true;
}

/* A tab- or space-separated list of PIDs ("4242\t17\t1"). */
static int parse_pid_list(const char *p, const char *end, int *vals, int *nr)
{
	int n = 0;

	while (p < end) {
		const char *s;

		while (p < end && (*p == '\t' || *p == ' '))
			p++;
		if (p == end)
			break;
		s = p;
		while (p < end && *p != '\t' && *p != ' ')
			p++;
		if (n == STROBE_PIDNS_LEVELS || !parse_uint(s, p, &vals[n]))
			return -EINVAL;
		n++;
	}
	*nr = n;
	return 0;
}

/*
 * "Name:" as the kernel writes it: '\n' and '\\' escaped with a backslash
 * (newer kernels: ESCAPE_SPACE|ESCAPE_SPECIAL), at most 15 bytes once
 * unescaped.  Unknown escapes are kept as they are.
 */
static void parse_comm(const char *p, const char *end, char comm[16])
{
	size_t n = 0;

	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	while (p < end && n < 15) {
		char c = *p++;

		if (c == '\\' && p < end) {
			switch (*p) {
			case 'n': c = '\n'; p++; break;
			case 't': c = '\t'; p++; break;
			case 'r': c = '\r'; p++; break;
			case 'f': c = '\f'; p++; break;
			case 'v': c = '\v'; p++; break;
			case 'a': c = '\a'; p++; break;
			case 'e': c = '\033'; p++; break;
			case '\\': c = '\\'; p++; break;
			case '"': c = '"'; p++; break;
			default: break;
			}
		}
		comm[n++] = c;
	}
	comm[n] = '\0';
}

int strobe_proc_parse_status(const char *text, size_t len,
			     struct strobe_proc_info *out)
{
	const char *p = text, *end = text + len;
	bool have_pid = false;

	memset(out, 0, sizeof(*out));
	out->cgroup.rootless_uid = -1;
	if (!text)
		return -EINVAL;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *colon, *v;
		size_t klen;
		int r = 0;

		if (!eol)
			eol = end;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon)
			goto next;
		klen = (size_t)(colon - p);
		v = colon + 1;
		if (klen == 4 && !memcmp(p, "Name", 4)) {
			parse_comm(v, eol, out->comm);
			goto next;
		}
		while (v < eol && (*v == '\t' || *v == ' '))
			v++;
#define KEY(s) (klen == sizeof(s) - 1 && !memcmp(p, s, sizeof(s) - 1))
		if (KEY("Pid")) {
			r = parse_uint(v, eol, &out->tid) ? 0 : -EINVAL;
			have_pid = r == 0;
		} else if (KEY("Tgid")) {
			r = parse_uint(v, eol, &out->tgid) ? 0 : -EINVAL;
		} else if (KEY("PPid")) {
			r = parse_uint(v, eol, &out->ppid) ? 0 : -EINVAL;
		} else if (KEY("NSpid")) {
			r = parse_pid_list(v, eol, out->nspid, &out->nr_nspid);
		} else if (KEY("NStgid")) {
			r = parse_pid_list(v, eol, out->nstgid, &out->nr_nstgid);
		}
#undef KEY
		if (r < 0)
			return r;
next:
		p = eol + 1;
	}
	return have_pid ? 0 : -EINVAL;
}

/*
 * Read a whole small file into buf (NUL-terminated).  Returns its length,
 * -errno, or -EFBIG when it does not fit (a truncated cgroup file would
 * yield a truncated path, which is worse than no path).
 */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	/* O_NONBLOCK: a FIFO under a test or odd proc root cannot block us */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	while (n < size - 1) {
		ssize_t r = read(fd, buf + n, size - 1 - n);

		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			/* a task that exited between open and read */
			return e == ESRCH ? -ENOENT : -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n == size - 1)
		return -EFBIG;
	buf[n] = '\0';
	return (ssize_t)n;
}

/* Inode of a namespace link "pid:[4026531836]", 0 if unreadable. */
static uint64_t read_ns(const char *dir, const char *name)
{
	char path[4200], link[64], *open_br, *e;
	unsigned long long v;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/ns/%s", dir, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	open_br = strchr(link, '[');
	if (!open_br || open_br[1] < '0' || open_br[1] > '9')
		return 0;
	errno = 0;
	v = strtoull(open_br + 1, &e, 10);
	if (errno || *e != ']' || e[1])
		return 0;
	return v;
}

static int read_error(struct strobe_error *err, int code, const char *dir,
		      const char *path)
{
	if (code == -ENOENT)
		return strobe_err(err, code, "%s: no such task", dir);
	return strobe_err(err, code, "cannot read %s: %s", path, strerror(-code));
}

int strobe_proc_read(const char *proc_root, int pid,
		     struct strobe_proc_info *out, struct strobe_error *err)
{
	char dir[4096], path[4200];
	char *buf;
	ssize_t n;
	int ret;

	memset(out, 0, sizeof(*out));
	out->cgroup.rootless_uid = -1;
	if (pid <= 0)
		return strobe_err(err, -EINVAL, "invalid pid %d", pid);
	if (!proc_root || !*proc_root)
		proc_root = "/proc";
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%d", proc_root, pid) >= sizeof(dir))
		return strobe_err(err, -ENAMETOOLONG, "%s: path too long", proc_root);
	buf = malloc(STATUS_MAX > CGROUP_MAX ? STATUS_MAX : CGROUP_MAX);
	if (!buf)
		return strobe_err(err, -ENOMEM, "out of memory");

	snprintf(path, sizeof(path), "%s/status", dir);
	n = read_small(path, buf, STATUS_MAX);
	if (n < 0) {
		ret = read_error(err, (int)n, dir, path);
		goto out;
	}
	ret = strobe_proc_parse_status(buf, (size_t)n, out);
	if (ret < 0) {
		ret = strobe_err(err, ret, "%s: not a /proc status file", path);
		goto out;
	}

	snprintf(path, sizeof(path), "%s/cgroup", dir);
	n = read_small(path, buf, CGROUP_MAX);
	if (n < 0) {
		ret = read_error(err, (int)n, dir, path);
		goto out;
	}
	ret = strobe_cgroup_parse_proc(buf, (size_t)n, NULL, 0, &out->cgroup);
	if (ret < 0) {
		ret = strobe_err(err, ret, "%s: no usable cgroup line", path);
		goto out;
	}
	out->pidns = read_ns(dir, "pid");
	out->mntns = read_ns(dir, "mnt");
	out->cgroupns = read_ns(dir, "cgroup");
	ret = 0;
out:
	free(buf);
	return ret;
}
