/*
 * getppid_n - a workload of exactly known behaviour: makes exactly N
 * getppid system calls (default 1000), then exits 0.  Used by kernel and
 * container tests to check that strobe sees every one of them.
 *
 *   getppid_n [N] [--threads T]   T threads each making N calls
 *   getppid_n --fork N            fork a child that makes N calls, then
 *                                 make N calls in the parent too
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long calls = 1000;

static void *worker(void *arg)
{
	long i;

	for (i = 0; i < calls; i++)
		syscall(SYS_getppid);
	return arg;
}

static long parse(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v < 0) {
		fprintf(stderr, "getppid_n: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long threads = 1, t;
	int do_fork = 0, i;
	pthread_t tid[64];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = parse(argv[++i]);
		else if (!strcmp(argv[i], "--fork"))
			do_fork = 1;
		else
			calls = parse(argv[i]);
	}
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "getppid_n: --threads must be 1..64\n");
		return 2;
	}
	if (do_fork) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("getppid_n: fork");
			return 1;
		}
		if (pid == 0) {
			worker(NULL);
			_exit(0);
		}
		worker(NULL);
		waitpid(pid, NULL, 0);
		return 0;
	}
	if (threads == 1) {
		worker(NULL);
		return 0;
	}
	for (t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, worker, NULL);
	for (t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	return 0;
}
