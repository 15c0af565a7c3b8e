/*
 * profile_libc.c - a CPU-bound workload that spends its time inside libc
 * (qsort of S seconds' worth of small arrays, default 5), built
 * dynamically (the Makefile's profile_libc rule): a `strobe profile --
 * CMD` of it must name libc's frames through the process's maps
 * (tests/kernel/86-profile.sh).
 */
#include <stdlib.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 5.0);
	static int v[4096];
	unsigned seed = 1;
	int i;

	while (now() < end) {
		for (i = 0; i < 4096; i++)
			v[i] = (int)(rand_r(&seed) & 0xffff);
		qsort(v, 4096, sizeof(v[0]), cmp);
	}
	return v[0] > v[4095];
}
