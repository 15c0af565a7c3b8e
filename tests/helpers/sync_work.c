/*
 * sync_work - a workload of exactly known sync calls, for syncsnoop's
 * tests (tests/kernel/82-bpf-tools.sh), static so it also runs in a
 * busybox container:
 *
 *   sync_work FILE [GO]
 *
 * waits for the path GO to exist (when given: the test starts tracing
 * first), creates FILE (4 KiB), then makes exactly
 *   3 fsync(fd), 2 fdatasync(fd), 1 sync(), 1 syncfs(fd),
 *   1 msync of a shared mapping of FILE, 1 sync_file_range(fd),
 *   1 fsync(-1) that fails with EBADF
 * and exits 0 (1 when a call that should succeed failed, with a message).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int check(int r, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "sync_work: %s: %s\n", what, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char block[4096];
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int fd, i, bad = 0;
	void *m;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: sync_work FILE [GO]\n");
		return 2;
	}
	while (argc == 3 && access(argv[2], F_OK) != 0)
		nanosleep(&ts, NULL);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, block, sizeof(block)) != (ssize_t)sizeof(block)) {
		perror("sync_work: FILE");
		return 1;
	}
	for (i = 0; i < 3; i++)
		bad |= check(fsync(fd), "fsync");
	for (i = 0; i < 2; i++)
		bad |= check(fdatasync(fd), "fdatasync");
	sync();
	bad |= check(syncfs(fd), "syncfs");
	m = mmap(NULL, sizeof(block), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("sync_work: mmap");
		return 1;
	}
	((char *)m)[0] = 1;
	bad |= check(msync(m, sizeof(block), MS_SYNC), "msync");
	munmap(m, sizeof(block));
	bad |= check(sync_file_range(fd, 0, sizeof(block), SYNC_FILE_RANGE_WRITE),
		     "sync_file_range");
	if (fsync(-1) == 0 || errno != EBADF) {
		fprintf(stderr, "sync_work: fsync(-1) did not fail with EBADF\n");
		bad = 1;
	}
	close(fd);
	return bad;
}
