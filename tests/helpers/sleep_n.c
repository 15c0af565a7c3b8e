/*
 * sleep_n - N sleeps of MS milliseconds each (nanosleep), nothing else:
 * a workload whose off-CPU time is known, for the off-CPU flame graph
 * test.  At the end it prints slept_ns=, the wall time its nanosleep
 * calls took (CLOCK_MONOTONIC around each): N x MS on a quiet machine, more
 * on a loaded one, where a woken sleeper waits for a CPU before its call
 * returns (time still off CPU with the nanosleep stack).
 *
 *   sleep_n N MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	long long slept = 0, t;
	long n, ms, i;

	if (argc != 3 || (n = atol(argv[1])) < 0 || (ms = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: sleep_n N MS\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		t = now_ns();
		while (nanosleep(&ts, &ts))
			;
		slept += now_ns() - t;
	}
	printf("slept_ns=%lld\n", slept);
	return 0;
}
