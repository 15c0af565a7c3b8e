/*
 * stats.c - latency statistics: count, total, min, max and a running
 * (Welford) mean and variance per aggregate, plus the histograms of the
 * FREQ view and the tables they are emitted as.
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

void ana_stats_add(struct ana_stats *st, uint64_t ns, bool want_hist)
{
	double d;

	if (!st->count || ns < st->min)
		st->min = ns;
	if (ns > st->max)
		st->max = ns;
	st->count++;
	st->total += ns;
	d = (double)ns - st->mean;
	st->mean += d / (double)st->count;
	st->m2 += d * ((double)ns - st->mean);
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

double ana_stats_stddev(const struct ana_stats *st)
{
	return st->count > 1 ? sqrt(st->m2 / (double)(st->count - 1)) : 0.0;
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
