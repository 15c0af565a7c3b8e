/*
 * demo_work - the demo workload of `make demo`: a little of everything the
 * analyses look at, in about half a second.
 *   - 1000 getppid calls                      (syscalls)
 *   - a two-thread pipe ping-pong, 2000 trips (wake-ups, scheduling latency)
 *   - 1 MiB written to a temporary file, fsync'd, read back   (IO)
 *   - 100 ms of busy CPU                      (cputop)
 *   - one fork+exit child                     (process model)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRIPS 2000

static int ping[2], pong[2];

static void *ponger(void *arg)
{
	char c;
	int i;

	for (i = 0; i < TRIPS; i++) {
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	}
	return arg;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	static char buf[65536];
	char path[] = "/tmp/strobe-demo.XXXXXX";
	pthread_t t;
	volatile unsigned long spin = 0;
	double end;
	pid_t pid;
	int i, fd;
	char c = 'x';

	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, ponger, NULL)) {
		perror("demo_work: pipe/thread");
		return 1;
	}
	for (i = 0; i < TRIPS; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
	pthread_join(t, NULL);

	fd = mkstemp(path);
	if (fd < 0) {
		perror("demo_work: mkstemp");
		return 1;
	}
	memset(buf, 'a', sizeof(buf));
	for (i = 0; i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			break;
	fsync(fd);
	lseek(fd, 0, SEEK_SET);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	unlink(path);

	end = now() + 0.1;
	while (now() < end)
		spin++;

	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	printf("demo_work: done (%d round trips, 1 MiB written)\n", TRIPS);
	return 0;
}
