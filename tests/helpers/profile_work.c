/*
 * profile_work.c - a CPU-bound workload of known shape for strobe profile
 * (tests/kernel/86-profile.sh): for S seconds (default 10) it runs rounds
 * of the same loop in three functions, hot_loop 70%, warm_loop 20% and
 * cool_loop 10% of the iterations, so a profile should find about those
 * shares of samples in them.  Built with frame pointers in every
 * function that calls another (the Makefile's profile_work rule), static, so it runs inside a
 * busybox container.
 *
 *   profile_work [SECONDS [ROUNDS]]
 *
 * With ROUNDS (> 0) it runs exactly that many rounds whatever the time
 * (a fixed amount of work, for make bench's profile overhead: the
 * slowdown is its wall time under a profiler against bare).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/* called after each loop so that no loop function is a leaf (gcc leaves
 * leaf functions without a frame, and their callers out of the chain) */
__attribute__((noinline)) static void keep(uint64_t x)
{
	sink = x;
}

#define LOOP(name, n)                                                   \
	__attribute__((noinline)) static uint64_t name(uint64_t x)      \
	{                                                               \
		for (int i = 0; i < (n); i++)                           \
			x = x * 6364136223846793005ull + 1442695040888963407ull; \
		keep(x);                                                \
		return x;                                               \
	}
LOOP(hot_loop, 7000)
LOOP(warm_loop, 2000)
LOOP(cool_loop, 1000)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 10.0);
	unsigned long rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	uint64_t x = 1;
	unsigned long r = 0;

	while (rounds ? r++ < rounds : (++r % 64 || now() < end)) {
		x = hot_loop(x);
		x = warm_loop(x);
		x = cool_loop(x);
	}
	sink = x;
	return 0;
}
