/*
 * sleep_n - N sleeps of MS milliseconds each (nanosleep), nothing else:
 * a workload whose off-CPU time is known (N x MS ms in nanosleep), for
 * the off-CPU flame graph test.
 *
 *   sleep_n N MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	long n, ms, i;

	if (argc != 3 || (n = atol(argv[1])) < 0 || (ms = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: sleep_n N MS\n");
		return 2;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	for (i = 0; i < n; i++)
		while (nanosleep(&ts, &ts))
			;
	return 0;
}
