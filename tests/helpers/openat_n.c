/*
 * openat_n - exactly N openat(2) calls of a missing path (each fails with
 * ENOENT), for the snoop tools' overhead rows in `make bench` (bench/run,
 * BENCH_ONLY=bpf): the workload of bcc's and bpftrace's opensnoop at its
 * most demanding, one traced call after another.
 *
 *   openat_n N PATH   exit 0 when every call failed with ENOENT, else 1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i, bad = 0;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: openat_n N PATH\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (*end || n < 0) {
		fprintf(stderr, "openat_n: bad count '%s'\n", argv[1]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, argv[2], O_RDONLY);

		if (fd >= 0) {
			close(fd);
			bad++;
		} else if (errno != ENOENT) {
			bad++;
		}
	}
	if (bad)
		fprintf(stderr, "openat_n: %ld calls did not fail with ENOENT\n", bad);
	return bad ? 1 : 0;
}
