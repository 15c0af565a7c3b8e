/*
 * stats.c - latency statistics: count, total, min, max and the exact
 * integer sums the variance comes from (so that two parts merge into the
 * whole, ana_stats_merge), plus the histograms of the FREQ view and the
 * tables they are emitted as.
 *
 * ana_stats_add() is called once per measurement, so it keeps O(1) state
 * and allocates nothing unless a histogram was asked for.  The histogram
 * keeps three resolutions at once: bcc's log2 of microseconds (the default
 * --freq table, same slots as bcc), of milliseconds (bcc's -m) and 16
 * linear slices per power of two
 * of nanoseconds, from which --freq-resolution N re-buckets linearly over
 * [min, max] at finish time without a second pass over the trace.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analyses/analysis-int.h"

static inline int log2_bucket(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* bcc's slot: 0 and 1 in slot 0, then [2^k, 2^(k+1)) in slot k. */
static inline int bcc_slot(uint64_t v)
{
	return v > 1 ? 63 - __builtin_clzll(v) : 0;
}

static inline unsigned __int128 sq_get(const struct ana_stats *st)
{
	return (unsigned __int128)st->sq_hi << 64 | st->sq_lo;
}

static inline void sq_set(struct ana_stats *st, unsigned __int128 v)
{
	st->sq_lo = (uint64_t)v;
	st->sq_hi = (uint64_t)(v >> 64);
}

void ana_stats_add(struct ana_stats *st, uint64_t ns, bool want_hist)
{
	uint64_t d;
	unsigned __int128 sq;

	if (!st->count) {
		st->min = ns;
		st->shift = ns;
	} else if (ns < st->min) {
		st->min = ns;
	}
	if (ns > st->max)
		st->max = ns;
	st->count++;
	st->total += ns;
	d = ns >= st->shift ? ns - st->shift : st->shift - ns;
	sq = (unsigned __int128)d * d;
	st->sq_lo += (uint64_t)sq;
	st->sq_hi += (uint64_t)(sq >> 64) + (st->sq_lo < (uint64_t)sq);
	if (want_hist) {
		int o, sub;

		if (!st->hist) {
			st->hist = calloc(1, sizeof(*st->hist));
			if (!st->hist)
				return;
		}
		st->hist->us_log2[bcc_slot(ns / 1000)]++;
		st->hist->ms_log2[bcc_slot(ns / 1000000)]++;
		o = log2_bucket(ns);
		/* octave o holds [2^(o-1), 2^o): its 16 equal slices */
		sub = o >= 5 ? (int)((ns >> (o - 5)) & (ANA_FINE_SUB - 1))
			     : (o ? (int)((ns - (1ULL << (o - 1))) & (ANA_FINE_SUB - 1)) : 0);
		st->hist->fine[o > 63 ? 63 : o][sub]++;
	}
}

/* sum of (ns - shift) over st's durations, in the ring of 2^128 */
static inline unsigned __int128 dev_sum(const struct ana_stats *st)
{
	return (unsigned __int128)st->total -
	       (unsigned __int128)st->count * st->shift;
}

/*
 * How it works: x's squares are taken from x->shift; from y->shift they are
 * sum (v - xs + delta)^2 = sq_x + 2 delta dev_sum(x) + n_x delta^2 with
 * delta = xs - ys.  Computed modulo 2^128, the result is exact whenever
 * the true sum fits, however the terms overflow on the way.
 */
void ana_stats_merge(struct ana_stats *y, const struct ana_stats *x)
{
	unsigned __int128 delta, sq;

	if (!x->count)
		return;
	if (!y->count) {
		struct ana_hist *h = y->hist;

		*y = *x;
		y->hist = h;
		return;
	}
	delta = (unsigned __int128)x->shift - (unsigned __int128)y->shift;
	sq = sq_get(x) + 2 * delta * dev_sum(x) + (unsigned __int128)x->count * delta * delta;
	sq_set(y, sq_get(y) + sq);
	y->count += x->count;
	y->total += x->total;
	if (x->min < y->min)
		y->min = x->min;
	if (x->max > y->max)
		y->max = x->max;
}

double ana_stats_stddev(const struct ana_stats *st)
{
	long double n, s1, ss;

	if (st->count < 2)
		return 0.0;
	n = (long double)st->count;
	s1 = (long double)(__int128)dev_sum(st);
	ss = (long double)sq_get(st) - s1 * s1 / n;
	return ss > 0 ? (double)sqrtl(ss / (n - 1)) : 0.0;
}

void ana_stats_free(struct ana_stats *st)
{
	free(st->hist);
	st->hist = NULL;
}

int ana_stats_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= tbl_col(t, "count", "Count", STROBE_COL_INT);
	ret |= tbl_col(t, "total", "Total(us)", STROBE_COL_DURATION);
	ret |= tbl_col(t, "min", "Min(us)", STROBE_COL_DURATION);
	ret |= tbl_col(t, "avg", "Avg(us)", STROBE_COL_DURATION);
	ret |= tbl_col(t, "max", "Max(us)", STROBE_COL_DURATION);
	ret |= tbl_col(t, "stddev", "Stdev(us)", STROBE_COL_DURATION);
	return ret ? -ENOMEM : 0;
}

void ana_stats_vals(union strobe_value *v, const struct ana_stats *st)
{
	v[0].i = (int64_t)st->count;
	v[1].u = st->total;
	v[2].u = st->count ? st->min : 0;
	v[3].u = st->count ? st->total / st->count : 0;
	v[4].u = st->max;
	v[5].u = (uint64_t)llround(ana_stats_stddev(st));
}

/* Lower bound (ns) of fine bucket (octave o, slice s). */
static uint64_t fine_lo(int o, int s)
{
	if (!o)
		return 0;
	if (o >= 5)
		return (1ULL << (o - 1)) + ((uint64_t)s << (o - 5));
	return (1ULL << (o - 1)) + (uint64_t)s;
}

static uint64_t fine_width(int o)
{
	if (!o)
		return 1;
	return o >= 5 ? 1ULL << (o - 5) : 1;
}

/* The columns of a histogram table: bucket bounds and count. */
static int hist_cols(struct strobe_table *t)
{
	int ret = 0;

	ret |= tbl_col(t, "lo", "Low", STROBE_COL_INT);
	ret |= tbl_col(t, "hi", "High", STROBE_COL_INT);
	ret |= tbl_col(t, "count", "Count", STROBE_COL_INT);
	return ret ? -ENOMEM : 0;
}

struct strobe_table *ana_add_freq_schema(struct ana *a, const char *name, const char *title)
{
	struct strobe_table *t = ana_add_table(a, name, title, STROBE_VIEW_FREQ);

	if (!t || hist_cols(t))
		return NULL;
	t->schema_only = true;
	return t;
}

int ana_emit_hist(struct ana *a, const char *name, const char *title,
		  const struct ana_stats *st, const struct ana_owner *o,
		  const char *key, const char *val)
{
	struct ana_core *c = a->core;
	struct strobe_table *t;
	union strobe_value *v;
	int i, s, last = -1, nb = c->opts.freq_resolution;

	if (!st->hist || !st->count)
		return 0;
	t = ana_add_table(a, name, title, STROBE_VIEW_FREQ);
	if (!t || hist_cols(t))
		return -ENOMEM;
	t->lami_class = name;
	if ((o && ana_owner_labels(c, t, o) < 0) ||
	    (key && tbl_label(t, key, key, STROBE_COL_STR, (union strobe_value){ .s = val }) < 0))
		return -ENOMEM;
	if (nb <= 0) {
		/* log2 of microseconds (or milliseconds), as bcc: "0 -> 1",
		 * then [2^k, 2^(k+1) - 1] */
		const uint32_t *slot = c->opts.freq_msecs ? st->hist->ms_log2
							  : st->hist->us_log2;

		t->unit = c->opts.freq_msecs ? "msecs" : "usecs";
		for (i = 0; i < 64; i++)
			if (slot[i])
				last = i;
		for (i = 0; i <= last; i++) {
			if (!(v = tbl_row(t)))
				return -ENOMEM;
			v[0].i = i ? (int64_t)(1ULL << i) : 0;
			v[1].i = i < 63 ? (int64_t)((1ULL << (i + 1)) - 1) : INT64_MAX;
			v[2].i = slot[i];
		}
		if (!i) {	/* all zero-length: one bucket */
			if (!(v = tbl_row(t)))
				return -ENOMEM;
			v[1].i = 1;
		}
		return 0;
	} else {
		/* nb linear buckets over [min, max] ns; each fine slice's count
		 * goes to the bucket holding the slice's middle (clamped). */
		uint64_t lo = st->min, span = st->max - st->min + 1;
		size_t first = t->nr_rows;

		t->unit = "nsecs";
		for (i = 0; i < nb; i++) {
			if (!(v = tbl_row(t)))
				return -ENOMEM;
			v[0].i = (int64_t)(lo + span * (uint64_t)i / (uint64_t)nb);
			v[1].i = (int64_t)(lo + span * (uint64_t)(i + 1) / (uint64_t)nb) - 1;
		}
		for (i = 0; i < 64; i++)
			for (s = 0; s < ANA_FINE_SUB; s++) {
				uint64_t mid, n = st->hist->fine[i][s];
				int b;

				if (!n)
					continue;
				mid = fine_lo(i, s) + fine_width(i) / 2;
				if (mid < lo)
					mid = lo;
				b = (int)((mid - lo) * (uint64_t)nb / span);
				if (b >= nb)
					b = nb - 1;
				t->cells[(first + (size_t)b) * 3 + 2].i += (int64_t)n;
			}
		return 0;
	}
}
