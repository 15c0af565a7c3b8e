/*
 * run-file.c - strobe_analysis_run_file() (analysis.h): the whole job of
 * an analysis on one trace file, as one pipeline with one consumer.
 *
 * It lives in the pipeline layer, above the analyses, because it runs a
 * pipeline; the model is the caller's side of it (loaded here, then
 * owned by the analysis), because the result tables point into it and
 * outlive the pipeline.
 */
#include <errno.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>

#include "../analyses/own-model.h"

int strobe_analysis_run_file(struct strobe_analysis *a, struct strobe_tracefile *tf,
			     struct strobe_error *err)
{
	struct strobe_stream_opts sopts = { .size = sizeof(sopts), .buffer = -1 };
	struct strobe_pipeline *p = NULL;
	struct strobe_model *m = NULL;
	struct strobe_consumer c;
	int ret, src;

	ret = strobe_model_new(&m, err);
	if (ret < 0)
		return ret;
	ret = strobe_model_load_file(m, tf, err);
	if (ret < 0) {
		strobe_model_free(m);
		return ret;
	}
	ana_own_model(a, m);	/* freed with a */
	ret = strobe_pipeline_new(NULL, &p, err);
	if (ret < 0)
		return ret;
	sopts.nr_cpu_mask = strobe_analysis_cpu_mask(a, &sopts.cpu_mask);
	src = strobe_pipeline_add_file(p, tf, &sopts, err);
	ret = src;
	if (src >= 0)
		ret = strobe_pipeline_set_model(p, src, m, err);
	if (ret >= 0)
		ret = strobe_analysis_consumer(a, src, &c);
	if (ret >= 0)
		ret = strobe_pipeline_add_consumer(p, &c, err);
	if (ret >= 0)
		ret = strobe_pipeline_run(p, err);
	strobe_pipeline_free(p);
	return ret < 0 ? ret : 0;
}
