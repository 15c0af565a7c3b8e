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
	struct strobe_perf_opts po;
	struct strobe_perf *perf;	/* opened by add_records */
	bool follow_child;		/* -- CMD: sample the child */
	char **cgroups;			/* -c: the containers' cgroup directories */
	size_t nr_cgroups;
};

/* A task of each -c container (for its cgroup), from a /proc snapshot. */
static int container_cgroups(const char *cmd, const char *const *names, size_t n,
			     char ***out)
{
	struct strobe_error err = { 0, "" };
	struct strobe_model *m = NULL;
	char **dirs = calloc(n ? n : 1, sizeof(*dirs));
	size_t i, cur;
	int r;

	*out = NULL;
	if (!dirs) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	r = strobe_model_new(&m, &err);
	if (r == 0)
		r = strobe_model_load_proc(m, &err);
	for (i = 0; r == 0 && i < n; i++) {
		const struct strobe_task *t;
		pid_t pid = 0;
		char dir[4096];

		for (cur = 0; (t = strobe_model_next_task(m, &cur));)
			if (t->container && t->container->index >= 2 &&
			    strobe_container_matches(t->container, names[i]) &&
			    (!pid || t->tid < pid) && kill(t->tid, 0) == 0)
				pid = t->tid;
		if (!pid) {
			snprintf(err.msg, sizeof(err.msg), "no running container '%s'", names[i]);
			r = -ESRCH;
			break;
		}
		r = strobe_perf_cgroup_dir(pid, dir, sizeof(dir), &err);
		if (r == 0 && !(dirs[i] = strdup(dir))) {
			snprintf(err.msg, sizeof(err.msg), "out of memory");
			r = -ENOMEM;
		}
	}
	strobe_model_free(m);
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

static int add_records(struct strobe_formats *f, pid_t child, struct strobe_record_source *rs,
		       void *arg, struct strobe_error *err)
{
	struct cli_profile_records *pc = arg;
	int r;

	if (pc->follow_child && child > 0)
		pc->po.pid = child;
	r = strobe_perf_open(&pc->po, &pc->perf, err);
	if (r == 0)
		r = strobe_perf_declare(pc->perf, f, err);
	if (r == 0)
		r = strobe_perf_enable(pc->perf, err);
	if (r < 0)
		return r;
	strobe_perf_records(pc->perf, rs);
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
	pr->po.size = sizeof(pr->po);
	pr->po.freq = freq;
	pr->po.event = event;
	pr->po.symbols = syms;
	pr->po.pid = t->o.pid;
	pr->po.cgroups = (const char *const *)pr->cgroups;
	pr->po.nr_cgroups = (int)pr->nr_cgroups;
	pr->follow_child = t->o.argv != NULL;
	t->o.clock = "mono";
	t->o.add_records = add_records;
	t->o.records_arg = pr;
	*out = pr;
	return 0;
}

void cli_profile_records_stats(const struct cli_profile_records *pr, uint64_t *samples,
			       uint64_t *lost)
{
	struct strobe_perf_stats st = { 0 };

	if (pr && pr->perf)
		strobe_perf_stats(pr->perf, &st);
	*samples = st.samples;
	*lost = st.lost;
}

void cli_profile_records_free(struct cli_profile_records *pr)
{
	size_t i;

	if (!pr)
		return;
	strobe_perf_close(pr->perf);
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
