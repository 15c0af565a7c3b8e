/*
 * interval.c - an analysis' intervals: the one builder of result tables
 * (a snapshot's and finish's), snapshots (the figures up to a time,
 * nothing ended) and resets (a new interval; what is in flight kept), so
 * that a live view can read an analysis every second.
 *
 * How it works: every analysis keeps two kinds of state.  What an
 * interval counted (per-group counters, statistics, histograms, the
 * --top rankings) is dropped by its reset hook; what is in flight (a task
 * running on a CPU, a call entered, a wake-up not yet followed by a
 * switch-in, a block request issued, an open period) and who things
 * belong to (file and IRQ names, the dirtiers of an inode) is kept, so a
 * measurement that began before a reset is counted, whole, in the
 * interval where it ends.  The intervals thus split the whole run's
 * measurements, and their counts and totals add up to the whole run's.
 * CPU time is the one figure that is shared out rather than counted at
 * the end: a task running at a reset is charged up to it in the interval
 * before and from it in the next (cputop's reset moves its running start).
 *
 * A build fills the tables each analysis declared at init: the first
 * build notes how many there are and which notes attach made; later ones
 * empty those tables (tbl_clear), free the per-group histograms the
 * previous build added after them, and drop the notes it made, so a
 * snapshot every second neither grows nor repeats anything.  Nothing here
 * runs per event.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyses/analysis-int.h"

/* The previous build's tables and notes, gone: declared tables empty. */
static void unbuild(struct strobe_analysis *a)
{
	struct ana_core *c = &a->core;
	int i, j;

	if (!c->built) {
		c->built = true;
		c->nr_base_notes = c->nr_notes;
		for (i = 0; i < a->nr_anas; i++)
			a->anas[i].nr_declared = a->anas[i].nr_tables;
		return;
	}
	for (i = 0; i < a->nr_anas; i++) {
		struct ana *an = &a->anas[i];

		for (j = an->nr_declared; j < an->nr_tables; j++)
			tbl_free(an->tables[j]);
		an->nr_tables = an->nr_declared;
		for (j = 0; j < an->nr_tables; j++)
			tbl_clear(an->tables[j]);
	}
	for (i = c->nr_base_notes; i < c->nr_notes; i++)
		free(c->notes[i]);
	c->nr_notes = c->nr_base_notes;
	free(a->all_tables);
	a->all_tables = NULL;
	a->nr_all_tables = 0;
}

/* Where the current interval begins: the window's start or the first
 * event, or the latest reset when later. */
static uint64_t interval_begin(const struct ana_core *c)
{
	uint64_t b = c->opts.begin ? c->opts.begin : c->first_ts;

	return c->ival_begin > b ? c->ival_begin : b;
}

int ana_build(struct strobe_analysis *a, bool last, uint64_t ts, struct strobe_error *err)
{
	struct ana_core *c = &a->core;
	int i, j, n = 0;

	unbuild(a);
	c->win_begin = interval_begin(c);
	if (last) {
		c->win_end = c->opts.end && c->opts.end < c->last_ts ? c->opts.end : c->last_ts;
		if (c->opts.end && !c->last_ts)
			c->win_end = c->opts.end;
	} else {
		c->win_end = ts;
	}
	if (c->win_end < c->win_begin)
		c->win_end = c->win_begin;
	for (i = 0; i < a->nr_anas; i++) {
		struct ana *an = &a->anas[i];
		int ret = 0;

		if (an->active && !last && an->ops->snapshot)
			ret = an->ops->snapshot(an, c->win_end);
		else if (an->active && an->ops->finish)
			ret = an->ops->finish(an);
		if (ret < 0)
			return strobe_err(err, -ENOMEM, "out of memory");
		for (j = 0; j < an->nr_tables; j++)
			an->tables[j]->dropped = an->dropped;
		if (an->active && an->dropped)
			ana_note(c, "%s: %llu measurements dropped because events were lost "
				 "inside them", an->ops->name, (unsigned long long)an->dropped);
		n += an->nr_tables;
	}
	a->all_tables = calloc((size_t)(n ? n : 1), sizeof(*a->all_tables));
	if (!a->all_tables)
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < a->nr_anas; i++)
		for (j = 0; j < a->anas[i].nr_tables; j++)
			if (a->anas[i].active && !a->anas[i].tables[j]->schema_only)
				a->all_tables[a->nr_all_tables++] = a->anas[i].tables[j];
	return 0;
}

/* The time of a snapshot or reset: ts, 0 meaning the last event fed; never
 * before that event or the interval's start (figures counted cannot be
 * taken back), never past the window's end. */
static uint64_t interval_ts(const struct ana_core *c, uint64_t ts)
{
	if (!ts || ts < c->last_ts)
		ts = c->last_ts;
	if (ts < c->ival_begin)
		ts = c->ival_begin;
	if (c->opts.end && ts > c->opts.end)
		ts = c->opts.end;
	return ts;
}

static int check_state(const struct strobe_analysis *a, struct strobe_error *err)
{
	if (!a->attached)
		return strobe_err(err, -EINVAL, "the analysis is not attached to any events yet");
	if (a->finished)
		return strobe_err(err, -EINVAL, "the analysis is finished");
	return 0;
}

int strobe_analysis_snapshot(struct strobe_analysis *a, uint64_t ts, struct strobe_error *err)
{
	int ret = check_state(a, err);

	return ret < 0 ? ret : ana_build(a, false, interval_ts(&a->core, ts), err);
}

int strobe_analysis_reset(struct strobe_analysis *a, uint64_t ts, struct strobe_error *err)
{
	struct ana_core *c = &a->core;
	int i, ret = check_state(a, err);

	if (ret < 0)
		return ret;
	ts = interval_ts(c, ts);
	for (i = 0; i < a->nr_anas; i++) {
		struct ana *an = &a->anas[i];

		if (an->active && an->ops->reset)
			an->ops->reset(an, ts);
		an->dropped = 0;
	}
	c->ival_begin = ts;
	return 0;
}
