/*
 * why_work - the workloads of the `strobe why` tests: a client whose
 * requests block on a server it talks to through two FIFOs, a relay in
 * the middle for a two-hop chain, and a CPU hog for run-queue contention.
 * Static, so the same binary runs inside a busybox container while its
 * server runs on the host (the FIFOs sit in the container's rootfs).
 *
 *   why_work serve REQ REP N sleep|burn MS [PID...]
 *         N times: read one byte from FIFO REQ, sleep MS milliseconds
 *         (nanosleep) or burn MS milliseconds of CPU, write one byte to
 *         FIFO REP; prints pid= at the start, and at the end burned_ns=
 *         (the CPU time of the burns, its own thread clock) and cpu_ns=
 *         (all its CPU time).  With PIDs, each burn starts only once every
 *         PID is blocked (state S or D in /proc/PID/stat, polled with
 *         sched_yield): the chain of a two-hop test (client, relay) is
 *         then blocked on this helper for the whole burn, however a
 *         loaded machine schedules them
 *   why_work relay REQ REP UP_REQ UP_REP N
 *         N times: read a byte from REQ, write it to UP_REQ, read the
 *         answer from UP_REP, write it to REP (blocked on its upstream
 *         all the while); prints pid=
 *   why_work client REQ REP N [GO]
 *         N requests: write a byte to REQ, read the answer from REP;
 *         prints pid=, waited_ns= (the sum of the round trips), and over
 *         the same loop what the kernel counted of it: runq_ns= (time
 *         runnable but waiting for a CPU, /proc/thread-self/schedstat)
 *         and oncpu_ns= (its CPU time), so that the time it was blocked
 *         is waited - runq - oncpu even on a loaded machine; with GO,
 *         first waits for a byte from that FIFO (after opening REQ, REP)
 *   why_work hog CPU MS      burn MS milliseconds of CPU pinned to CPU
 *   why_work tick CPU N MS [GO]   pinned to CPU: N times burn 1 ms then
 *                            sleep MS milliseconds; prints pid= and cpu_ns=
 *                            (its CPU time); with GO, first waits for a
 *                            byte from that FIFO
 * FIFOs are made by the caller (mkfifo) or by the first user here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void burn_ms(int ms)
{
	unsigned long long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + (unsigned long long)ms * 1000000ULL;
	volatile unsigned long x = 0;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
}

/* The time this thread waited on a run queue (schedstat's second field). */
static unsigned long long runq_ns(void)
{
	unsigned long long run = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2) {
		fprintf(stderr, "why_work: cannot read /proc/thread-self/schedstat\n");
		exit(1);
	}
	fclose(f);
	return wait;
}

/* Is PID blocked (state S or D)? */
static int blocked(const char *pid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the comm may hold spaces */
	return p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int open_fifo(const char *path, int flags)
{
	int fd;

	if (mkfifo(path, 0666) < 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	fd = open(path, flags);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void xread(int fd, char *c)
{
	if (read(fd, c, 1) != 1) {
		fprintf(stderr, "why_work: short read\n");
		exit(1);
	}
}

static void xwrite(int fd, char c)
{
	if (write(fd, &c, 1) != 1) {
		fprintf(stderr, "why_work: short write\n");
		exit(1);
	}
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s) < 0)
		perror("sched_setaffinity");
}

int main(int argc, char **argv)
{
	char c = 'x';
	int i, n;

	if (argc >= 7 && !strcmp(argv[1], "serve")) {
		/* open order: REQ for reading, then REP for writing (the
		 * client opens REQ for writing first, then REP for reading) */
		int rq = open_fifo(argv[2], O_RDONLY), rp = open_fifo(argv[3], O_WRONLY);
		int ms = atoi(argv[6]);
		int burn = !strcmp(argv[5], "burn");
		unsigned long long burned = 0, t;

		printf("pid=%d\n", getpid());
		fflush(stdout);
		n = atoi(argv[4]);
		for (i = 0; i < n; i++) {
			xread(rq, &c);
			if (burn) {
				for (int k = 7; k < argc; k++)
					while (!blocked(argv[k]))
						sched_yield();
				t = now_ns(CLOCK_THREAD_CPUTIME_ID);
				burn_ms(ms);
				burned += now_ns(CLOCK_THREAD_CPUTIME_ID) - t;
			} else {
				sleep_ms(ms);
			}
			xwrite(rp, c);
		}
		printf("burned_ns=%llu\ncpu_ns=%llu\n", burned, now_ns(CLOCK_THREAD_CPUTIME_ID));
		return 0;
	}
	if (argc >= 7 && !strcmp(argv[1], "relay")) {
		int rq = open_fifo(argv[2], O_RDONLY), rp = open_fifo(argv[3], O_WRONLY);
		int uq = open_fifo(argv[4], O_WRONLY), up = open_fifo(argv[5], O_RDONLY);

		printf("pid=%d\n", getpid());
		fflush(stdout);
		n = atoi(argv[6]);
		for (i = 0; i < n; i++) {
			xread(rq, &c);
			xwrite(uq, c);
			xread(up, &c);
			xwrite(rp, c);
		}
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "client")) {
		int rq = open_fifo(argv[2], O_WRONLY), rp = open_fifo(argv[3], O_RDONLY);
		unsigned long long waited = 0, t, q0, c0;

		if (argc >= 6)
			xread(open_fifo(argv[5], O_RDONLY), &c);
		n = atoi(argv[4]);
		q0 = runq_ns();
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (i = 0; i < n; i++) {
			t = now_ns(CLOCK_MONOTONIC);
			xwrite(rq, c);
			xread(rp, &c);
			waited += now_ns(CLOCK_MONOTONIC) - t;
		}
		printf("pid=%d\nwaited_ns=%llu\nrunq_ns=%llu\noncpu_ns=%llu\n", getpid(), waited,
		       runq_ns() - q0, now_ns(CLOCK_THREAD_CPUTIME_ID) - c0);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "hog")) {
		pin(atoi(argv[2]));
		printf("pid=%d\n", getpid());
		fflush(stdout);
		burn_ms(atoi(argv[3]));
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "tick")) {
		int ms = atoi(argv[4]);

		if (argc >= 6)
			xread(open_fifo(argv[5], O_RDONLY), &c);
		pin(atoi(argv[2]));
		n = atoi(argv[3]);
		for (i = 0; i < n; i++) {
			burn_ms(1);
			sleep_ms(ms);
		}
		printf("pid=%d\ncpu_ns=%llu\n", getpid(), now_ns(CLOCK_THREAD_CPUTIME_ID));
		return 0;
	}
	fprintf(stderr, "usage: why_work serve REQ REP N sleep|burn MS [PID...] | relay REQ REP UP_REQ "
		"UP_REP N | client REQ REP N [GO] | hog CPU MS | tick CPU N MS\n");
	return 2;
}
