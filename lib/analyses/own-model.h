/*
 * own-model.h - what the pipeline layer needs of an analysis object
 * beyond the public API (internal).
 */
#ifndef STROBE_ANALYSES_OWN_MODEL_H
#define STROBE_ANALYSES_OWN_MODEL_H

#include <strobe/analysis.h>
#include <strobe/model.h>
#include "../util/err.h"

/* a frees m with itself (strobe_analysis_free) and no longer updates it
 * in strobe_analysis_feed: its pipeline does.  For result tables that
 * point into m and must outlive the pipeline (strobe_analysis_run_file). */
void ana_own_model(struct strobe_analysis *a, struct strobe_model *m) STROBE_HIDDEN;

#endif
