/*
 * profile-records.c - what `strobe profile` and the commands that read or
 * make its samples share (cli.h): the perf sampling source of a target
 * as a recording's records (strobe_record_opts.add_records, the "mono"
 * trace clock the samples carry; strobe profile live without a file,
 * strobe record --profile into its file), and the profile of a
 * recording's stored samples (strobe profile -i, strobe flamegraph
 * --on-cpu).  A shared file, so that command files stay leaves.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/model.h>
#include <strobe/pipeline.h>
#include <strobe/profile.h>
#include <strobe/record.h>

#include "cli.h"

struct cli_profile_records {
	/* the source's options; its perf, opened by add_records */
	struct strobe_profile_records rec;
	char **cgroups;			/* -c: the containers' cgroup directories */
	size_t nr_cgroups;
};

/* The cgroup directory of each -c container (strobe_profile_container_cgroup). */
static int container_cgroups(const char *cmd, const char *const *names, size_t n,
			     char ***out)
{
	struct strobe_error err = { 0, "" };
	char **dirs = calloc(n ? n : 1, sizeof(*dirs));
	size_t i;
	int r = 0;

	*out = NULL;
	if (!dirs) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; r == 0 && i < n; i++)
		r = strobe_profile_container_cgroup(names[i], &dirs[i], &err);
	if (r < 0) {
		cli_error_e(cmd, &err);
		for (i = 0; i < n; i++)
			free(dirs[i]);
		free(dirs);
		return r;
	}
	*out = dirs;
	return 0;
}

/* ---- the perf source as a recording's records ------------------------------ */

int cli_profile_records(struct cli_target *t, const char *cmd, unsigned freq,
			const char *event, struct strobe_symbols *syms,
			struct cli_profile_records **out)
{
	struct cli_profile_records *pr = calloc(1, sizeof(*pr));

	*out = NULL;
	if (!pr) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	if (t->o.clock && strcmp(t->o.clock, "mono")) {
		cli_error(cmd, "perf samples are stamped with the mono clock: not with "
			  "--clock %s", t->o.clock);
		free(pr);
		return -EINVAL;
	}
	if (t->o.nr_containers && container_cgroups(cmd, t->o.containers,
						    t->o.nr_containers, &pr->cgroups) < 0) {
		free(pr);
		return -ESRCH;
	}
	pr->nr_cgroups = t->o.nr_containers;
	pr->rec.po.size = sizeof(pr->rec.po);
	pr->rec.po.freq = freq;
	pr->rec.po.event = event;
	pr->rec.po.symbols = syms;
	pr->rec.po.pid = t->o.pid;
	pr->rec.po.cgroups = (const char *const *)pr->cgroups;
	pr->rec.po.nr_cgroups = (int)pr->nr_cgroups;
	pr->rec.follow_child = t->o.argv != NULL;	/* -- CMD: sample the child */
	t->o.clock = "mono";
	t->o.add_records = strobe_profile_add_records;
	t->o.records_arg = &pr->rec;
	*out = pr;
	return 0;
}

void cli_profile_records_stats(const struct cli_profile_records *pr, uint64_t *samples,
			       uint64_t *lost)
{
	struct strobe_perf_stats st = { 0 };

	if (pr && pr->rec.perf)
		strobe_perf_stats(pr->rec.perf, &st);
	*samples = st.samples;
	*lost = st.lost;
}

void cli_profile_records_free(struct cli_profile_records *pr)
{
	size_t i;

	if (!pr)
		return;
	strobe_perf_close(pr->rec.perf);
	for (i = 0; pr->cgroups && i < pr->nr_cgroups; i++)
		free(pr->cgroups[i]);
	free(pr->cgroups);
	free(pr);
}

/* ---- -i FILE ------------------------------------------------------------------ */

/* Samples lost, as the recording's strobe_perf pages say. */
static int lost_event(const struct strobe_event *ev, int source, void *arg,
		      struct strobe_error *err)
{
	uint64_t *lost = arg;

	if (ev->missed > 0 && ev->format &&
	    !strcmp(strobe_format_system(ev->format), "strobe_perf"))
		*lost += (uint64_t)ev->missed;
	return 0;
}

int cli_profile_file(const char *cmd, const char *path, struct strobe_profile *prof,
		     uint64_t *lost)
{
	struct strobe_consumer c, cl = {
		.size = sizeof(cl), .name = "lost samples", .event = lost_event, .arg = lost,
	};
	struct strobe_pipeline_opts po = { .size = sizeof(po) };
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	int r;

	r = strobe_tracefile_open(path, &tf, &err);
	if (r < 0) {
		cli_error(cmd, "cannot open '%s': %s", path, err.msg);
		return r;
	}
	strobe_profile_consumer(prof, 0, &c);
	r = strobe_pipeline_new(&po, &p, &err);
	if (r >= 0)
		r = strobe_pipeline_add_file(p, tf, NULL, &err);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(p, &c, &err);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(p, &cl, &err);
	if (r >= 0)
		r = strobe_pipeline_run(p, &err);
	if (r < 0)
		cli_error_e(cmd, &err);
	else if (cli_pipeline_diags(cmd, p, false) < 0)
		r = -EBADMSG;
	if (r >= 0 && !strobe_formats_find(strobe_tracefile_formats(tf), "strobe_perf",
					   "sample")) {
		cli_error(cmd, "'%s' holds no perf samples (record them with strobe record "
			  "--profile)", path);
		r = -ENOENT;
	}
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	return r < 0 ? r : 0;
}
