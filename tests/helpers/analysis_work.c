/*
 * analysis_work - workloads of exactly known behaviour for the analysis
 * kernel tests.  Each mode prints "tid=<tid>" lines (and facts it
 * measured itself) on stdout, so a test can compare strobe's figures with
 * the truth:
 *
 *   analysis_work syscalls N M    N getppid calls, then M open() calls of
 *                                 a missing file (ENOENT), from one thread
 *   analysis_work pingpong R      two threads bounce a byte over two pipes
 *                                 R round trips; before it writes, each
 *                                 side waits until /proc shows the peer
 *                                 switched out asleep (in its read()), so
 *                                 every write wakes it and it must be
 *                                 switched back in: exactly 2R pipe
 *                                 wake-ups, each with a latency
 *   analysis_work write FILE B    write exactly B bytes to FILE (64 KiB
 *                                 write() calls), fsync, close
 *   analysis_work busy MS         spin on the CPU for about MS ms, then
 *                                 print "cpu_ns=<utime+stime>" from
 *                                 /proc/self/task/<tid>/stat
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int tid(void)
{
	return (int)syscall(SYS_gettid);
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0) {
		fprintf(stderr, "analysis_work: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int p1[2], p2[2];
static long rounds;

static pid_t main_tid, pong_tid;	/* atomic */
static unsigned long main_seen, pong_seen;	/* each read by one thread only */

/*
 * Wait until thread t has really left the CPU to sleep: /proc shows it
 * asleep ('S') and its voluntary context switches went past *seen.  A
 * task that only set its state but is still on its CPU would be woken
 * without a switch-in, which has no run-queue latency to measure.
 */
static void wait_asleep(pid_t t, unsigned long *seen)
{
	char path[64], buf[2048], *st, *vc;
	unsigned long n_sw;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)t);
	for (;;) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			exit(1);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			exit(1);
		buf[n] = '\0';
		st = strstr(buf, "\nState:\t");
		vc = strstr(buf, "\nvoluntary_ctxt_switches:\t");
		if (st && vc && st[8] == 'S') {
			n_sw = strtoul(vc + 26, NULL, 10);
			if (n_sw > *seen) {
				*seen = n_sw;
				return;
			}
		}
		sched_yield();
	}
}

static void *pong(void *arg)
{
	char c;
	long i;

	printf("tid=%d\n", tid());
	fflush(stdout);
	__atomic_store_n(&pong_tid, tid(), __ATOMIC_RELEASE);
	for (i = 0; i < rounds; i++) {
		if (read(p1[0], &c, 1) != 1)
			exit(1);
		wait_asleep(main_tid, &main_seen);
		if (write(p2[1], &c, 1) != 1)
			exit(1);
	}
	return arg;
}

static int busy(long ms)
{
	struct timespec t0, t;
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	volatile unsigned long x = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int i;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid());
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		return 1;
	fclose(f);
	p = strrchr(buf, ')');
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime: fields 3..15 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return 1;
	printf("tid=%d\ncpu_ns=%llu\nthread_cputime_ns=%llu\n", tid(),
	       (ut + st) * (1000000000ULL / (unsigned long long)hz),
	       (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec);
	return 0;
}

int main(int argc, char **argv)
{
	long i;

	if (argc < 3) {
		fprintf(stderr, "usage: analysis_work syscalls N M | pingpong R | "
			"write FILE BYTES | busy MS\n");
		return 2;
	}
	if (!strcmp(argv[1], "syscalls") && argc == 4) {
		long n = num(argv[2]), m = num(argv[3]);

		printf("tid=%d\n", tid());
		fflush(stdout);
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		for (i = 0; i < m; i++)
			if (open("/nonexistent-strobe-test/file", O_RDONLY) >= 0 || errno != ENOENT)
				return 1;
		return 0;
	}
	if (!strcmp(argv[1], "pingpong")) {
		pthread_t th;
		char c = 'x';

		rounds = num(argv[2]);
		if (pipe(p1) || pipe(p2))
			return 1;
		printf("tid=%d\n", tid());
		fflush(stdout);
		main_tid = tid();
		pthread_create(&th, NULL, pong, NULL);
		while (!__atomic_load_n(&pong_tid, __ATOMIC_ACQUIRE))
			sched_yield();
		for (i = 0; i < rounds; i++) {
			wait_asleep(pong_tid, &pong_seen);
			if (write(p1[1], &c, 1) != 1 || read(p2[0], &c, 1) != 1)
				return 1;
		}
		pthread_join(th, NULL);
		return 0;
	}
	if (!strcmp(argv[1], "write") && argc == 4) {
		static char buf[65536];
		long left = num(argv[3]);
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			return 1;
		printf("tid=%d\n", tid());
		fflush(stdout);
		memset(buf, 'a', sizeof(buf));
		while (left > 0) {
			ssize_t w = write(fd, buf, left < (long)sizeof(buf) ? (size_t)left : sizeof(buf));

			if (w <= 0)
				return 1;
			left -= w;
		}
		fsync(fd);
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "busy"))
		return busy(num(argv[2]));
	fprintf(stderr, "analysis_work: unknown mode '%s'\n", argv[1]);
	return 2;
}
