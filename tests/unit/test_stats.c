/*
 * test_stats.c - the latency statistics every analysis keeps
 * (lib/analyses/stats.c): the standard deviation of hand-computed series,
 * one far from 0 (where a plain sum of squares loses the variance), and
 * ana_stats_merge() giving exactly what one ana_stats fed the whole
 * series counts, wherever the series is cut (what lets parts of a trace
 * be analysed apart and merged).
 */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "analyses/analysis-int.h"

static struct ana_stats of(const uint64_t *v, int n)
{
	struct ana_stats st = { 0 };

	for (int i = 0; i < n; i++)
		ana_stats_add(&st, v[i], false);
	return st;
}

static void test_stddev_of_known_series(void)
{
	static const uint64_t two[] = { 100, 300 };
	static const uint64_t same[] = { 7, 7, 7, 7 };
	static const uint64_t ramp[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct ana_stats st;

	st = of(two, 2);
	CHECK_EQ(llround(ana_stats_stddev(&st)), 141);		/* sqrt(20000) */
	st = of(same, 4);
	CHECK(ana_stats_stddev(&st) == 0.0);
	st = of(ramp, 8);						/* sqrt(32/7) */
	CHECK(fabs(ana_stats_stddev(&st) - 2.138089935) < 1e-8);
	st = of(two, 1);
	CHECK(ana_stats_stddev(&st) == 0.0);
	CHECK_EQ(st.min, 100);
	CHECK_EQ(st.max, 100);
}

/* 10^15 ns (11.6 days) plus 0..9: sample deviation sqrt(55/6). */
static void test_stddev_far_from_zero(void)
{
	uint64_t v[10];
	struct ana_stats st;

	for (int i = 0; i < 10; i++)
		v[i] = 1000000000000000ull + (uint64_t)(9 - i);
	st = of(v, 10);
	CHECK(fabs(ana_stats_stddev(&st) - 3.027650354) < 1e-8);
	CHECK_EQ(st.total, 10000000000000045ull);
}

/* Cut a series of 1000 pseudo-random durations (1 ns .. 1 s) in two at
 * every 37th place and in three: the merge counts what the whole did. */
static void test_merge_equals_the_whole(void)
{
	enum { N = 1000 };
	uint64_t v[N], x = 88172645463325252ull;
	struct ana_stats whole;
	int cuts = 0;

	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = 1 + x % (i % 3 ? 1000000000ull : 5000ull);
	}
	whole = of(v, N);
	for (int a = 0; a <= N; a += 37) {
		for (int b = a; b <= N; b += 211) {
			struct ana_stats p = of(v, a), q = of(v + a, b - a),
					 r = of(v + b, N - b);

			ana_stats_merge(&p, &q);
			ana_stats_merge(&p, &r);
			CHECK_EQ(p.count, whole.count);
			CHECK_EQ(p.total, whole.total);
			CHECK_EQ(p.min, whole.min);
			CHECK_EQ(p.max, whole.max);
			CHECK(ana_stats_stddev(&p) == ana_stats_stddev(&whole) ||
			      fabs(ana_stats_stddev(&p) / ana_stats_stddev(&whole) - 1) < 1e-15);
			cuts++;
		}
	}
	CHECK(cuts > 50);
}

/* Merging into an empty ana_stats copies; merging an empty one changes
 * nothing. */
static void test_merge_with_empty(void)
{
	static const uint64_t v[] = { 5, 10, 15 };
	struct ana_stats st = of(v, 3), none = { 0 }, into = { 0 };

	ana_stats_merge(&st, &none);
	CHECK_EQ(st.count, 3);
	CHECK_EQ(llround(ana_stats_stddev(&st)), 5);
	ana_stats_merge(&into, &st);
	CHECK_EQ(into.count, 3);
	CHECK_EQ(into.total, 30);
	CHECK_EQ(into.min, 5);
	CHECK_EQ(into.max, 15);
	CHECK(ana_stats_stddev(&into) == ana_stats_stddev(&st));
}

TESTS(T(test_stddev_of_known_series), T(test_stddev_far_from_zero),
      T(test_merge_equals_the_whole), T(test_merge_with_empty));
