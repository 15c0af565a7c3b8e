/*
 * export-run.c - the two ways an export runs its one consumer (strobe
 * export --format perfetto, --format otlp): trace files through one
 * pipeline, or a live capture's stream (strobe record's target options),
 * with the same messages for both formats.  export-run.h.
 */
#include <errno.h>
#include <stdlib.h>

#include <strobe/pipeline.h>
#include <strobe/record.h>
#include <strobe/tracefile.h>

#include "cli.h"
#include "export-run.h"

/* The clock note of several files, once the pipeline has run (its merge
 * is made then), each source named by its file. */
static void merge_note(const char *cmd, const struct strobe_pipeline *p)
{
	int i, n = strobe_pipeline_nr_sources(p);
	const char **paths = calloc((size_t)n, sizeof(*paths));

	if (!paths)
		return;
	for (i = 0; i < n; i++) {
		const struct strobe_pipeline_source *s = strobe_pipeline_source(p, i);

		paths[i] = s && s->tf ? strobe_tracefile_path(s->tf) : "?";
	}
	cli_merge_clock_note(cmd, strobe_pipeline_merge(p), paths);
	free(paths);
}

int cli_export_files(const char *cmd, const char **paths, int n, bool strict, bool quiet,
		     const struct cli_export_how *ec)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict,
					   .raw_time = ec->raw_time, .jobs = cli_jobs(ec->jobs) };
	struct strobe_tracefile **tfs = calloc((size_t)n, sizeof(*tfs));
	struct strobe_pipeline *p = NULL;
	struct strobe_error err = { 0, "" };
	struct cli_progress *bar = NULL;
	struct strobe_consumer c;
	int i, ret, status = CLI_FAIL;

	if (!tfs) {
		cli_error(cmd, "out of memory");
		return CLI_FAIL;
	}
	for (i = 0; i < n; i++) {
		if (strobe_tracefile_open(paths[i], &tfs[i], &err) < 0) {
			cli_error_e(cmd, &err);
			goto out;
		}
		if (ec->opened && ec->opened(ec->arg, i, tfs[i]) < 0)
			goto out;
	}
	if (ec->consumer(ec->arg, &c) < 0)
		goto out;
	if (strobe_pipeline_new(&po, &p, &err) < 0) {
		cli_error_e(cmd, &err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (strobe_pipeline_add_file(p, tfs[i], NULL, &err) < 0) {
			cli_error(cmd, "%s: %s", paths[i], err.msg);
			goto out;
		}
	}
	ret = strobe_pipeline_add_consumer(p, &c, &err);
	if (ret >= 0) {
		bar = cli_progress_start(cmd, p, quiet, false);
		ret = strobe_pipeline_run(p, &err);
		cli_progress_stop(bar);
	}
	if (ret < 0) {
		cli_error_e(cmd, &err);
		goto out;
	}
	if (ec->merge_note && strobe_pipeline_nr_sources(p) > 1)
		merge_note(cmd, p);
	status = cli_pipeline_diags(cmd, p, strict);
out:
	strobe_pipeline_free(p);
	for (i = 0; i < n; i++)
		strobe_tracefile_close(tfs[i]);
	free(tfs);
	return status;
}

int cli_export_live(const char *cmd, struct cli_target *t, struct strobe_consumer *c)
{
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	int ret, status = CLI_FAIL;

	t->o.consumers = c;
	t->o.nr_consumers = 1;
	t->o.no_output = true;
	ret = cli_target_record(t, &res, &err);
	if (ret < 0 && res.exec_errno) {
		cli_error_e(cmd, &err);
		status = res.exec_errno == ENOENT ? 127 : 126;
	} else if (ret < 0) {
		cli_error_e(cmd, &err);
	} else {
		if (res.stream_missed)
			cli_warn(cmd, "%llu events were lost (the kernel's buffer or the export "
				 "fell behind); a bigger -b may help",
				 (unsigned long long)res.stream_missed);
		status = CLI_OK;
	}
	strobe_record_result_free(&res);
	return status;
}
