/*
 * timed - run a command and report its own wall time, so that benchmarks
 * measure the workload and not the start-up and tear-down of the tracer
 * around it.
 *
 *   timed CMD [ARGS...]   run CMD, then print "elapsed_ns=N" on stderr;
 *                         exit with CMD's status (128+sig if killed)
 *   timed --stamp         print "stamp_ns=N", CLOCK_REALTIME in ns, on
 *                         stdout: a program started by a tracer once
 *                         tracing is on tells when that was
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long t0;
	pid_t pid;
	int st;

	if (argc == 2 && !strcmp(argv[1], "--stamp")) {
		printf("stamp_ns=%lld\n", ns(CLOCK_REALTIME));
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: timed CMD [ARGS...] | timed --stamp\n");
		return 2;
	}
	t0 = ns(CLOCK_MONOTONIC);
	pid = fork();
	if (pid < 0) {
		perror("timed: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("timed: exec");
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("timed: waitpid");
		return 1;
	}
	fprintf(stderr, "elapsed_ns=%lld\n", ns(CLOCK_MONOTONIC) - t0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
