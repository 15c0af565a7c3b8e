/*
 * profile-run.c - one profile run (profile.h), what `strobe profile`,
 * `strobe flamegraph --on-cpu`, `strobe record --profile` and the Python
 * module's profile() and record(profile=) share, so that each of them is
 * a thin caller: the perf source of a recording's target as its records
 * (the containers' cgroups, the command followed through its exec, the
 * "mono" clock the samples carry), and a run that reads a recording's
 * samples or samples a target live into a profile, with its refreshes at
 * the ticks and its lost samples counted.
 *
 * Live, the run is a recording without a file (strobe_record with
 * add_records) whose tracefs events are only the task model's, so comms
 * and container names come from the same model as everywhere else; the
 * profile consumer names the frames through the symbol finder the perf
 * source feeds.  From a file, the run is a pipeline of that one file and
 * the profile consumer, which replays the mappings the file holds.
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
#include <strobe/tracefile.h>

#include "util/err.h"
#include "profile-int.h"

/* ---- the perf source of a recording's target ------------------------------- */

int strobe_profile_container_cgroup(const char *name, char **out, struct strobe_error *err)
{
	struct strobe_model *m = NULL;
	const struct strobe_task *t;
	char dir[4096];
	size_t cur = 0;
	pid_t pid = 0;
	int r;

	*out = NULL;
	r = strobe_model_new(&m, err);
	if (r == 0)
		r = strobe_model_load_proc(m, err);
	while (r == 0 && (t = strobe_model_next_task(m, &cur)))
		if (t->container && t->container->index >= 2 &&
		    strobe_container_matches(t->container, name) && (!pid || t->tid < pid) &&
		    kill(t->tid, 0) == 0)
			pid = t->tid;
	strobe_model_free(m);
	if (r < 0)
		return r;
	if (!pid)
		return strobe_err(err, -ESRCH, "no running container '%s'", name);
	r = strobe_perf_cgroup_dir(pid, dir, sizeof(dir), err);
	if (r == 0 && !(*out = strdup(dir)))
		r = strobe_err(err, -ENOMEM, "out of memory");
	return r;
}

int strobe_profile_records_setup(struct strobe_profile_records *r, struct strobe_record_opts *o,
				 struct strobe_error *err)
{
	size_t i, n = o->nr_containers;
	int ret = 0;

	strobe_profile_records_release(r);
	if (o->clock && strcmp(o->clock, "mono"))
		return strobe_err(err, -EINVAL, "perf samples are stamped with the mono clock: "
				  "not with --clock %s", o->clock);
	if (n && !(r->cgroup_dirs = calloc(n, sizeof(*r->cgroup_dirs))))
		return strobe_err(err, -ENOMEM, "out of memory");
	for (i = 0; ret == 0 && i < n; i++)
		ret = strobe_profile_container_cgroup(o->containers[i], &r->cgroup_dirs[i], err);
	r->po.nr_cgroups = (int)n;
	if (ret < 0) {
		strobe_profile_records_release(r);
		return ret;
	}
	r->po.cgroups = (const char *const *)r->cgroup_dirs;
	r->po.pid = o->pid;
	r->follow_child = o->argv != NULL;	/* a command: sample the child */
	o->clock = "mono";
	o->add_records = strobe_profile_add_records;
	o->records_arg = r;
	return 0;
}

void strobe_profile_records_release(struct strobe_profile_records *r)
{
	int i;

	if (!r)
		return;
	strobe_perf_close(r->perf);
	r->perf = NULL;
	for (i = 0; r->cgroup_dirs && i < r->po.nr_cgroups; i++)
		free(r->cgroup_dirs[i]);
	free(r->cgroup_dirs);
	r->cgroup_dirs = NULL;
	r->po.cgroups = NULL;
	r->po.nr_cgroups = 0;
}

int strobe_profile_add_records(struct strobe_formats *f, pid_t child,
			       struct strobe_record_source *rs, void *arg,
			       struct strobe_error *err)
{
	struct strobe_profile_records *pr = arg;
	int r;

	if (pr->follow_child && child > 0)
		pr->po.pid = child;
	r = strobe_perf_open(&pr->po, &pr->perf, err);
	if (r == 0)
		r = strobe_perf_declare(pr->perf, f, err);
	if (r == 0)
		r = strobe_perf_enable(pr->perf, err);
	if (r < 0)
		return r;
	strobe_perf_records(pr->perf, rs);
	return 0;
}

/* ---- the run ------------------------------------------------------------------ */

static int run_file(struct strobe_profile *p, const char *path,
		    struct strobe_profile_run_result *res, struct strobe_error *err)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po) };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *pl = NULL;
	struct strobe_consumer c;
	int r;

	r = strobe_tracefile_open(path, &tf, err);
	if (r < 0) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		return strobe_err(err, r, "cannot open '%s': %s", path, msg);
	}
	/* the formats say it before a single page is read */
	if (!strobe_formats_find(strobe_tracefile_formats(tf), "strobe_perf", "sample")) {
		strobe_tracefile_close(tf);
		return strobe_err(err, -ENOENT, "'%s' holds no perf samples (record them with "
				  "strobe record --profile)", path);
	}
	profile_run_begin(p, NULL);
	strobe_profile_consumer(p, 0, &c);
	r = strobe_pipeline_new(&po, &pl, err);
	if (r >= 0)
		r = strobe_pipeline_add_file(pl, tf, NULL, err);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(pl, &c, err);
	if (r >= 0)
		r = strobe_pipeline_run(pl, err);
	if (r < 0) {
		strobe_pipeline_free(pl);
		strobe_tracefile_close(tf);
		return r;
	}
	res->pipeline = pl;
	res->file = tf;
	res->samples = strobe_profile_samples(p);
	res->lost = strobe_profile_lost(p);
	return 0;
}

static int run_live(struct strobe_profile *p, const struct strobe_profile_run_opts *o,
		    struct strobe_profile_run_result *res, struct strobe_error *err)
{
	static const struct strobe_record_event model_ev = { "sched:sched_process_fork", NULL };
	struct strobe_record_opts ro = { .size = sizeof(ro) };
	struct strobe_profile_records rec;
	struct strobe_perf_stats st;
	struct strobe_consumer c;
	int r;

	if (o->record)
		memcpy(&ro, o->record, o->record->size && o->record->size < sizeof(ro) ?
		       o->record->size : sizeof(ro));
	ro.size = sizeof(ro);
	memset(&rec, 0, sizeof(rec));
	rec.po.size = sizeof(rec.po);
	rec.po.freq = o->freq ? o->freq : 99;
	rec.po.event = o->event;
	rec.po.symbols = profile_symbols(p);
	r = strobe_profile_records_setup(&rec, &ro, err);
	if (r < 0)
		return r;
	profile_run_begin(p, &rec);
	strobe_profile_consumer(p, 0, &c);
	ro.no_output = true;
	ro.output = NULL;
	ro.buffer_kb = 1024;
	/* only the model's events from tracefs: the samples come from perf */
	ro.events = &model_ev;
	ro.nr_events = 1;
	ro.consumers = &c;
	ro.nr_consumers = 1;
	r = strobe_record(&ro, &res->record, err);
	memset(&st, 0, sizeof(st));
	if (rec.perf)
		strobe_perf_stats(rec.perf, &st);
	profile_run_end(p);
	res->samples = st.samples;
	res->lost = strobe_profile_lost(p);
	strobe_profile_records_release(&rec);
	if (r == 0 && ro.argv && !res->record.child_started)
		r = strobe_err(err, -ENOEXEC, "cannot run '%s'", ro.argv[0]);
	return r;
}

int strobe_profile_run(struct strobe_profile *p, const struct strobe_profile_run_opts *o,
		       struct strobe_profile_run_result *res, struct strobe_error *err)
{
	struct strobe_profile_run_opts ro = { .size = sizeof(ro) };

	if (o)
		memcpy(&ro, o, o->size && o->size < sizeof(ro) ? o->size : sizeof(ro));
	if (ro.input)
		return run_file(p, ro.input, res, err);
	return run_live(p, &ro, res, err);
}

void strobe_profile_run_result_free(struct strobe_profile_run_result *res)
{
	if (!res)
		return;
	strobe_record_result_free(&res->record);
	strobe_pipeline_free(res->pipeline);
	strobe_tracefile_close(res->file);
	res->pipeline = NULL;
	res->file = NULL;
}
