/*
 * profile-int.h - what the profile run (profile-run.c) sets in a profile
 * (profile.c) for the time of a run: where its symbols come from (a
 * recording's replayed mappings, or the live perf source that feeds the
 * finder itself) and where its lost samples are counted.
 */
#ifndef STROBE_PICTURES_PROFILE_INT_H
#define STROBE_PICTURES_PROFILE_INT_H

#include <strobe/profile.h>

/* live NULL: a recording (replay_maps); else the perf source of a live
 * run, whose kernel count strobe_profile_lost reads. */
void profile_run_begin(struct strobe_profile *p, const struct strobe_profile_records *live);
/* The live run ended: its last count is kept. */
void profile_run_end(struct strobe_profile *p);
struct strobe_symbols *profile_symbols(const struct strobe_profile *p);

#endif
