/*
 * pingpong - a two-thread pipe ping-pong of exactly N round trips
 * (default 1000), the context-switch-heavy workload of `make bench`.
 *
 *   pingpong N [--split]
 *
 * --split pins the main thread to CPU 0 and the echo thread to CPU 1, so
 * every round trip crosses CPUs (live-stream ordering tests).
 *
 * The main thread writes a byte to pipe A and waits for it on pipe B; the
 * second thread echoes every byte from A to B.  Each round trip is two
 * writes, two reads and (on one CPU, or when the peer sleeps) two
 * wake-ups and context switches.  Exits 0, non-zero if a pipe fails.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 1000;
static int split;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *echo(void *arg)
{
	char c;
	long i;

	if (split)
		pin(1);
	for (i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(3);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c = 'x';
	char *end;
	long i;

	if (argc > 2 && !strcmp(argv[2], "--split"))
		split = 1;
	if (split)
		pin(0);
	if (argc > 1) {
		rounds = strtol(argv[1], &end, 10);
		if (*end || end == argv[1] || rounds < 0) {
			fprintf(stderr, "pingpong: bad number '%s'\n", argv[1]);
			return 2;
		}
	}
	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL)) {
		perror("pingpong");
		return 1;
	}
	for (i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 3;
	pthread_join(t, NULL);
	return 0;
}
