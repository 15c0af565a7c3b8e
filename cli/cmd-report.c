/*
 * cmd-report.c - `strobe report`: print the events of a trace file.
 *
 * The default text is line for line what `trace-cmd report` prints, so
 * existing scripts, diffs and habits keep working; --json prints one
 * object per event for programs.  The command is a thin loop over the
 * library: open the file, compile the selection once (one expression:
 * --filter and the options as sugar, struct strobe_expr_filter),
 * pull events from the merged stream, format each into one strobe_buf that
 * is written out in large chunks.  Lost events and incomplete recordings
 * are reported on stderr after the events, so stdout stays comparable.
 *
 * Containers: when asked for (a selection that reads task information
 * such as --container or --comm, --columns container) and for JSON, a
 * task model (model.h) loaded from the file's strobe table sees every
 * event before the selection, so each event's container is known;
 * the default text never changes.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli.h"

#define CMD		"report"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe report [options] [FILE]\n"
		"\n"
		"Print the events of a trace file (default trace.dat), as the same\n"
		"text as 'trace-cmd report' or as JSON, one object per line.\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE    trace file to read (default: trace.dat); several\n"
		"                      -i merge files of several hosts on one timeline,\n"
		"                      each line led by its host (JSON: \"host\")\n"
		"  -e, --event EVENT   only these events: system:event, event or system,\n"
		"                      globs allowed (sched:sched_wak*); repeatable,\n"
		"                      or comma-separated\n"
		"      --cpu LIST      only events of these CPUs, e.g. 0,2-3\n"
		"      --pid LIST      only events of these thread ids (common_pid)\n"
		"      --comm LIST     only events of tasks with these command names\n"
		"                      (globs allowed); --pid and --comm add up\n"
		"      --container NAME  only events of tasks of this container (name,\n"
		"                      ID or ID prefix; \"host\" for the host); repeatable\n"
		"      --filter EXPR   only events for which EXPR holds ($evt scope, see\n"
		"                      strobe-expr(7)); repeatable, ANDed with each other\n"
		"                      and with the options above, which are shorthands\n"
		"                      for such expressions\n"
		"      --columns LIST  extra leading columns, comma-separated; now only\n"
		"                      \"container\" (the container's name); text only,\n"
		"                      JSON objects carry a \"container\" key\n"
		"      --json          one JSON object per event (see strobe-report(1));\n"
		"                      \"container\" is its container's name when known\n"
		"  -t, --ns            timestamps with nanoseconds (like trace-cmd report -t)\n"
		"  -h, --help          show this help\n"
		"\n"
		"Warnings about lost events and incomplete recordings go to stderr.\n"
		"\n"
		"Examples:\n"
		"  strobe report                          all events of ./trace.dat\n"
		"  strobe report -i run.dat -e sched      scheduler events only\n"
		"  strobe report --pid 1234 -e 'syscalls:sys_enter_*'\n"
		"  strobe report --json --cpu 0 | jq .fields.next_comm\n"
		"  strobe report --container web --columns container\n"
		"  strobe report -i web.dat -i db.dat     two hosts on one timeline\n"
		"  strobe report --filter '$evt.$name == \"sched_switch\" && $evt.prev_state == 0'\n");
}

struct report_args {
	const char *input;
	const char **inputs;	/* every -i, in order */
	int nr_inputs;
	const char **events, **cpus, **pids, **comms, **conts, **filters;
	int nr_events, nr_cpus, nr_pids, nr_comms, nr_conts, nr_filters;
	bool json;
	bool col_container;	/* --columns container */
	bool nsecs;
};

/*
 * Add "container" to the JSON object just appended to s (which ends in
 * "}\n"), unless the container is unknown.
 */
static int json_container(struct strobe_buf *s, const struct strobe_task *t)
{
	size_t len = strobe_buf_len(s);
	const char *d = strobe_buf_data(s);

	if (t->container->index == STROBE_CONTAINER_UNKNOWN || len < 2 ||
	    d[len - 2] != '}' || d[len - 1] != '\n')
		return 0;
	strobe_buf_truncate(s, len - 2);
	strobe_buf_puts(s, ",\"container\":");
	if (strobe_json_escape(s, t->container->name, strlen(t->container->name)) < 0)
		return -ENOMEM;
	strobe_buf_puts(s, "}\n");
	return strobe_buf_failed(s) ? -ENOMEM : 0;
}

/*
 * One event as report prints it: text (after the container column when
 * asked) or JSON (with "container" when known, and "host" when host is
 * not NULL: several files).  names and topts per buffer (nbuf of them).
 */
/* (inlined: called per event from two loops, a call cost 1.7% of report's
 * instructions, callgrind) */
static inline __attribute__((always_inline)) int
print_event(const struct report_args *a, struct strobe_formats *fmts, const char **names,
	    struct strobe_text_opts *topts, int nbuf, struct strobe_format_cache *cache,
	    const struct strobe_event *ev, const struct strobe_task *task, const char *host,
	    struct strobe_buf *s)
{
	bool known = ev->buffer >= 0 && ev->buffer < nbuf;
	int r;

	if (a->col_container && !a->json)	/* JSON has a "container" key */
		strobe_buf_printf(s, "%-16.16s ", task->container->name);
	if (a->json)
		r = strobe_format_event_json(fmts, ev, known ? names[ev->buffer] : NULL, cache, s);
	else
		r = strobe_format_event_text(fmts, ev, known ? names[ev->buffer] : NULL,
					     known ? &topts[ev->buffer] : NULL, s);
	if (r == 0 && a->json && task)
		r = json_container(s, task);
	if (r == 0 && a->json && host)
		r = cli_json_add_key(s, "host", host);
	return r;
}

/* The values of a repeatable option as one comma list (malloc'd); NULL
 * when it was not given or out of memory (*nomem then set). */
static char *join_values(const char **v, int n, bool *nomem)
{
	size_t len = 0;
	char *s;
	int i;

	if (!n)
		return NULL;
	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	s = malloc(len + 1);
	if (!s) {
		*nomem = true;
		return NULL;
	}
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, v[i]);
	}
	return s;
}

/*
 * Compile the selection: the options, each kind one term (its values add
 * up; --pid and --comm together name tasks), and each --filter, ANDed.
 * Returns an exit status.
 */
static int compile_filter(const struct report_args *a, struct strobe_formats *fmts,
			  struct strobe_expr_filter **out, struct strobe_error *errp)
{
	struct strobe_error err = { 0 };
	struct strobe_expr_filter *f;
	enum strobe_expr_option kinds[2];
	const char *vals[2];
	bool nomem = false;
	char *cpus = join_values(a->cpus, a->nr_cpus, &nomem);
	char *pids = join_values(a->pids, a->nr_pids, &nomem);
	char *comms = join_values(a->comms, a->nr_comms, &nomem);
	char *conts = join_values(a->conts, a->nr_conts, &nomem);
	char *events = join_values(a->events, a->nr_events, &nomem);
	int i, n = 0, ret = 0;

	*out = NULL;
	if (nomem || strobe_expr_filter_new(&f) < 0) {
		free(cpus), free(pids), free(comms), free(conts), free(events);
		snprintf(errp->msg, sizeof(errp->msg), "out of memory");
		return -ENOMEM;
	}
	strobe_expr_filter_set_formats(f, fmts);
	if (cpus)
		ret = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_CPU, cpus, &err);
	if (pids) {
		kinds[n] = STROBE_EXPR_OPT_TID;
		vals[n++] = pids;
	}
	if (comms) {
		kinds[n] = STROBE_EXPR_OPT_COMM;
		vals[n++] = comms;
	}
	if (!ret && n)
		ret = strobe_expr_filter_add_any(f, kinds, vals, n, &err);
	if (!ret && conts)
		ret = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_CONTAINER, conts, &err);
	if (!ret && events)
		ret = strobe_expr_filter_add_option(f, STROBE_EXPR_OPT_EVENT, events, &err);
	for (i = 0; !ret && i < a->nr_filters; i++) {
		ret = strobe_expr_filter_add(f, a->filters[i], &err);
		if (ret == -EINVAL) {	/* name the expression its column counts in */
			char msg[sizeof(err.msg)];

			snprintf(msg, sizeof(msg), "--filter '%.60s': %.400s", a->filters[i],
				 err.msg);
			memcpy(err.msg, msg, sizeof(msg));
		}
	}
	if (!ret)
		ret = strobe_expr_filter_compile(f, &err);
	free(cpus), free(pids), free(comms), free(conts), free(events);
	if (ret < 0) {
		*errp = err;
		strobe_expr_filter_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

/* The same, saying what is wrong; an exit status. */
static int build_filter(const struct report_args *a, struct strobe_formats *fmts,
			struct strobe_expr_filter **out)
{
	struct strobe_error err = { 0 };
	int r = compile_filter(a, fmts, out, &err);

	if (r < 0)
		cli_error_e(CMD, &err);
	return r == 0 ? CLI_OK : r == -EINVAL ? CLI_USAGE : CLI_FAIL;
}

/*
 * What the selection knows of an event's task: the model's pid, container
 * ..., and as procname the command name the line prints (the file's saved
 * command line, "<...>" when none), so --comm selects what one reads.
 */
#define COMM_CACHE 1024

struct report_env {
	struct strobe_expr_env model;
	struct strobe_formats *fmts;
	struct {
		int tid;
		const char *comm;	/* the file's, valid while it is open */
	} cache[COMM_CACHE];	/* per tid, direct-mapped: one look-up each */
};

static int report_task(void *arg, int tid, struct strobe_expr_task *t)
{
	struct report_env *r = arg;
	unsigned slot = (unsigned)tid % COMM_CACHE;
	const char *comm;

	if (r->cache[slot].comm && r->cache[slot].tid == tid) {
		comm = r->cache[slot].comm;
	} else {
		comm = strobe_formats_comm(r->fmts, tid);
		comm = comm ? comm : "<...>";
		r->cache[slot].tid = tid;
		r->cache[slot].comm = comm;
	}

	if (r->model.task && r->model.task(r->model.arg, tid, t) < 0)
		return -ENOENT;
	t->procname = comm;
	return 0;
}

/* Does the selection read what only the model knows (pid, container ...)? */
static bool model_needed(const struct strobe_expr_filter *f)
{
	static const char *const names[] = { "pid", "ppid", "vtid", "vpid", "container",
					     "container_id" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strobe_expr_filter_reads(f, names[i]))
			return true;
	return false;
}

/* The "cpus=N" of trace-cmd: the file's CPU count (CPUCOUNT option in
 * v7 files, whose top-level buffer may have no data), else the largest
 * per-buffer count. */
static int file_cpus(struct strobe_tracefile *tf)
{
	struct strobe_tf_buffer_info info;
	const void *opt;
	size_t size = 0;
	int i, n = 0;
	uint32_t v;

	opt = strobe_tracefile_option(tf, STROBE_TFO_CPUCOUNT, &size);
	if (opt && size >= 4) {
		memcpy(&v, opt, 4);
		return (int)le32toh(v);	/* trace files are little endian */
	}
	for (i = 0; i < strobe_tracefile_nr_buffers(tf); i++)
		if (!strobe_tracefile_buffer(tf, i, &info) && info.nr_cpus > n)
			n = info.nr_cpus;
	return n;
}

/*
 * After the events: what is wrong with the file (lost events, overruns,
 * incomplete recordings, damage), once each on stderr; with --json also
 * as a last line {"diagnostics":[...]} when there is any.
 */
static int warn_diags(struct strobe_tracefile *tf, struct strobe_stream *stream,
		      const struct strobe_stream_opts *sopts, bool json, struct strobe_buf *s)
{
	struct strobe_stream_stats st;

	strobe_stream_stats(stream, &st);
	if (strobe_tracefile_events_done(tf, &st, sopts) < 0)
		return -ENOMEM;
	if (json && strobe_tracefile_nr_diags(tf)) {
		strobe_buf_puts(s, "{\"diagnostics\":");
		strobe_tracefile_write_json_diags(tf, s);
		strobe_buf_puts(s, "}\n");
		if (strobe_buf_failed(s))
			return -ENOMEM;
		cli_flush(s);
	}
	cli_warn_diags(CMD, tf);
	return 0;
}

static int report(const struct report_args *a)
{
	struct strobe_error err = { 0 };
	struct strobe_tracefile *tf = NULL;
	struct strobe_stream *stream = NULL;
	struct strobe_expr_filter *filter = NULL;
	struct strobe_expr_env env = { 0 };
	struct report_env *renv = calloc(1, sizeof(*renv));	/* 16 KiB of cache */
	struct strobe_stream_opts sopts = { .buffer = -1 };
	struct strobe_event ev;
	struct strobe_formats *fmts;
	struct strobe_buf *s;
	const char **names = NULL;
	struct strobe_text_opts *topts = NULL;
	struct strobe_format_cache *cache = NULL;
	struct strobe_model *model = NULL;
	const struct strobe_task *task = NULL;
	int nbuf, i, width = 0, ncpus, ret = 0, fret, status = CLI_FAIL;

	s = cli_buf_new();
	if (!renv) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	if (strobe_tracefile_open(a->input, &tf, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	fmts = strobe_tracefile_formats(tf);
	status = build_filter(a, fmts, &filter);
	if (status != CLI_OK)
		goto out;
	status = CLI_FAIL;
	/* procname comes from the file's command lines: no model for it */
	if (strobe_expr_filter_needs_task(filter)) {
		renv->fmts = fmts;
		env.task = report_task;
		env.arg = renv;
	}
	if (model_needed(filter) || a->col_container || a->json) {
		if (strobe_model_new(&model, &err) < 0 ||
		    strobe_model_load_file(model, tf, &err) < 0) {
			cli_error(CMD, "%s: %s", a->input, err.msg);
			goto out;
		}
		strobe_expr_env_model(&renv->model, model);
	}

	/* Per buffer: its name and time style; the name column's width. */
	nbuf = strobe_tracefile_nr_buffers(tf);
	names = calloc(nbuf > 0 ? nbuf : 1, sizeof(*names));
	topts = calloc(nbuf > 0 ? nbuf : 1, sizeof(*topts));
	if (!names || !topts) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	for (i = 0; i < nbuf; i++) {
		struct strobe_tf_buffer_info info;

		if (strobe_tracefile_buffer(tf, i, &info) < 0)
			continue;
		names[i] = info.name;
		topts[i].ts_style = a->nsecs ? STROBE_TS_NSECS
					     : strobe_ts_style_for_clock(info.clock);
		if ((int)strlen(info.name) > width)
			width = (int)strlen(info.name);
	}
	cache = strobe_format_cache_new(fmts);	/* NULL: just slower */
	for (i = 0; i < nbuf; i++) {
		topts[i].buffer_width = width;
		topts[i].cache = cache;
	}
	ncpus = file_cpus(tf);

	sopts.nr_cpu_mask = strobe_expr_filter_cpu_mask(filter, &sopts.cpu_mask);
	if (strobe_stream_open_file(tf, &sopts, &stream, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}

	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (!a->json)
		strobe_buf_printf(s, "cpus=%d\n", ncpus);

	for (;;) {
		ret = strobe_stream_next(stream, &ev, &err);
		if (ret <= 0)
			break;
		strobe_tracefile_see_event(tf, &ev);
		if (model) {
			strobe_model_update(model, &ev);
			task = strobe_model_task(model, ev.pid);
			if (!task) {
				cli_error(CMD, "out of memory");
				goto out;
			}
		}
		if (!strobe_expr_filter_match(filter, &env, &ev))
			continue;
		fret = print_event(a, fmts, names, topts, nbuf, cache, &ev, task, NULL, s);
		if (fret < 0) {
			cli_flush(s);
			cli_error(CMD, "out of memory");
			goto out;
		}
		if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s))
			break;	/* stdout failed: main reports it */
	}
	if (!cli_flush(s)) {
		status = CLI_OK;	/* main reports the write error */
		goto out;
	}
	if (ret < 0) {
		/* a corrupt page: what came before it is printed, then we stop */
		if (strncmp(err.msg, a->input, strlen(a->input)))
			cli_error(CMD, "%s: %s", a->input,
				  err.msg[0] ? err.msg : strerror(-ret));
		else
			cli_error_e(CMD, &err);
		goto out;
	}
	if (warn_diags(tf, stream, &sopts, a->json, s) < 0) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	status = CLI_OK;
out:
	strobe_buf_free(s);
	strobe_stream_close(stream);
	strobe_expr_filter_free(filter);
	free(renv);
	strobe_format_cache_free(cache);
	strobe_model_free(model);
	strobe_tracefile_close(tf);
	free(names);
	free(topts);
	return status;
}

/* ---- several files: one timeline with a host column ------------------ */

/* One input of a merged report: its file and everything read through it
 * (formats, selection, task model: TIDs repeat across hosts). */
struct report_src {
	struct strobe_tracefile *tf;
	struct strobe_expr_filter *filter;
	struct strobe_expr_env env;	/* what the selection knows of tasks */
	struct report_env *renv;
	struct strobe_model *model;
	struct strobe_format_cache *cache;
	const char **names;		/* buffer names */
	struct strobe_text_opts *topts;	/* per buffer */
	int nbuf;
	bool none;			/* the selection names nothing of this file */
};

/*
 * The selection of each file.  Each comma-separated -e and --comm item is
 * kept for the files that have it: an event or comm that one host's file
 * does not have selects nothing there (the union of the rest stays
 * exact); an item no file has is an error, as with one file.  A file
 * where every item of a kind selects nothing contributes no event
 * (->none).  The rest (--cpu, --pid, -c, --filter) is the same for all.
 */
static int build_filters_multi(const struct report_args *a, struct report_src *src, int n)
{
	struct { const char **v; int nr; enum strobe_expr_option opt; } kinds[2] = {
		{ a->events, a->nr_events, STROBE_EXPR_OPT_EVENT },
		{ a->comms, a->nr_comms, STROBE_EXPR_OPT_COMM },
	};
	struct strobe_error err = { 0 };
	char **items[2] = { NULL, NULL };
	int nitems[2] = { 0, 0 }, f, k, i, r, status = CLI_FAIL;
	const char **kept = NULL;
	bool *had = NULL;

	/* every item of each kind, split at commas */
	for (k = 0; k < 2; k++)
		for (i = 0; i < kinds[k].nr; i++) {
			char *dup = strdup(kinds[k].v[i]), *save = NULL, *t, **nv;

			if (!dup)
				goto oom;
			for (t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				nv = realloc(items[k], (nitems[k] + 1) * sizeof(*nv));
				if (!nv || !(nv[nitems[k]] = strdup(t))) {
					if (nv)
						items[k] = nv;
					free(dup);
					goto oom;
				}
				items[k] = nv;
				nitems[k]++;
			}
			free(dup);
		}
	kept = calloc((size_t)(nitems[0] + nitems[1] + 1), sizeof(*kept));
	had = calloc((size_t)(nitems[0] + nitems[1] + 1), sizeof(*had));
	if (!kept || !had)
		goto oom;
	for (f = 0; f < n; f++) {
		struct strobe_formats *fmts = strobe_tracefile_formats(src[f].tf);
		struct report_args af = *a;
		int nk[2] = { 0, 0 }, base = 0;

		for (k = 0; k < 2; k++) {
			const char **mine = kept + base;

			for (i = 0; i < nitems[k]; i++) {
				struct strobe_expr_filter *t = NULL;

				r = strobe_expr_filter_new(&t);
				if (r == 0) {
					strobe_expr_filter_set_formats(t, fmts);
					r = strobe_expr_filter_add_option(t, kinds[k].opt, items[k][i],
									  &err);
				}
				strobe_expr_filter_free(t);
				if (r == 0) {
					mine[nk[k]++] = items[k][i];
					had[base + i] = true;
				} else if (r != -ENOENT) {
					cli_error_e(CMD, &err);
					status = r == -EINVAL ? CLI_USAGE : CLI_FAIL;
					goto out;
				}
			}
			if (nitems[k] && !nk[k])
				src[f].none = true;
			base += nitems[k];
		}
		if (src[f].none)
			continue;
		af.events = kept;
		af.nr_events = nk[0];
		af.comms = kept + nitems[0];
		af.nr_comms = nk[1];
		r = compile_filter(&af, fmts, &src[f].filter, &err);
		if (r < 0) {
			cli_error(CMD, "%s: %s", a->inputs[f], err.msg);
			status = r == -EINVAL ? CLI_USAGE : CLI_FAIL;
			goto out;
		}
		/* as with one file: procname from the file's command lines,
		 * the rest from its own model */
		if (strobe_expr_filter_needs_task(src[f].filter)) {
			src[f].renv = calloc(1, sizeof(*src[f].renv));
			if (!src[f].renv)
				goto oom;
			src[f].renv->fmts = fmts;
			if (src[f].model)
				strobe_expr_env_model(&src[f].renv->model, src[f].model);
			src[f].env.task = report_task;
			src[f].env.arg = src[f].renv;
		}
	}
	/* an item no file has is an error, as with one file */
	for (k = 0, i = 0; k < 2; i += nitems[k], k++) {
		int j;

		for (j = 0; j < nitems[k]; j++)
			if (!had[i + j]) {
				cli_error(CMD, k == 0 ? "no event in any file matches '%s'"
					  : "no task named '%s' in any file's command lines",
					  items[k][j]);
				goto out;
			}
	}
	status = CLI_OK;
	goto out;
oom:
	cli_error(CMD, "out of memory");
out:
	for (k = 0; k < 2; k++) {
		for (i = 0; i < nitems[k]; i++)
			free(items[k][i]);
		free(items[k]);
	}
	free(kept);
	free(had);
	return status;
}

static int report_multi(const struct report_args *a)
{
	struct strobe_error err = { 0 };
	struct strobe_stream_opts sopts = { .buffer = -1 };
	struct strobe_tracefile **tfs = NULL;
	struct strobe_merge *m = NULL;
	struct report_src *src;
	struct strobe_event ev;
	struct strobe_buf *s;
	const struct strobe_task *task = NULL;
	int n = a->nr_inputs, i, b, hw = 0, ret = 0, fret, status = CLI_FAIL, at = 0;
	bool wall;

	s = cli_buf_new();
	src = calloc((size_t)n, sizeof(*src));
	tfs = calloc((size_t)n, sizeof(*tfs));
	if (!src || !tfs) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (strobe_tracefile_open(a->inputs[i], &src[i].tf, &err) < 0) {
			cli_error_e(CMD, &err);
			goto out;
		}
		tfs[i] = src[i].tf;
		/* a model for -c, the container column and JSON, and for
		 * whatever the selection reads of tasks */
		if ((a->nr_conts || a->nr_filters || a->col_container || a->json) &&
		    (strobe_model_new(&src[i].model, &err) < 0 ||
		     strobe_model_load_file(src[i].model, src[i].tf, &err) < 0)) {
			cli_error(CMD, "%s: %s", a->inputs[i], err.msg);
			goto out;
		}
	}
	status = build_filters_multi(a, src, n);
	if (status != CLI_OK)
		goto out;
	status = CLI_FAIL;
	/* the same --cpu list in every file: the first selecting file's mask */
	for (i = 0; i < n && !src[i].filter; i++)
		;
	if (i < n)
		sopts.nr_cpu_mask = strobe_expr_filter_cpu_mask(src[i].filter, &sopts.cpu_mask);
	if (strobe_merge_open(tfs, n, &sopts, NULL, &m, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	wall = strobe_merge_wall(m);
	for (i = 0; i < n; i++) {
		int width = 0;

		if ((int)strlen(strobe_merge_host(m, i)) > hw)
			hw = (int)strlen(strobe_merge_host(m, i));
		src[i].nbuf = strobe_tracefile_nr_buffers(src[i].tf);
		src[i].names = calloc(src[i].nbuf > 0 ? src[i].nbuf : 1, sizeof(*src[i].names));
		src[i].topts = calloc(src[i].nbuf > 0 ? src[i].nbuf : 1, sizeof(*src[i].topts));
		if (!src[i].names || !src[i].topts) {
			cli_error(CMD, "out of memory");
			goto out;
		}
		src[i].cache = strobe_format_cache_new(strobe_tracefile_formats(src[i].tf));
		for (b = 0; b < src[i].nbuf; b++) {
			struct strobe_tf_buffer_info info;

			if (strobe_tracefile_buffer(src[i].tf, b, &info) < 0)
				continue;
			src[i].names[b] = info.name;
			/* wall-clock ns: seconds since the epoch */
			src[i].topts[b].ts_style = a->nsecs ? STROBE_TS_NSECS
					: wall ? STROBE_TS_USECS : strobe_ts_style_for_clock(info.clock);
			if ((int)strlen(info.name) > width)
				width = (int)strlen(info.name);
		}
		for (b = 0; b < src[i].nbuf; b++) {
			src[i].topts[b].buffer_width = width;
			src[i].topts[b].cache = src[i].cache;
		}
	}
	cli_merge_clock_note(CMD, m, a->inputs);

	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (!a->json)
		for (i = 0; i < n; i++)
			strobe_buf_printf(s, "host=%s cpus=%d file=%s\n", strobe_merge_host(m, i),
					  file_cpus(src[i].tf), a->inputs[i]);
	for (;;) {
		struct report_src *r;
		const char *host;

		ret = strobe_merge_next(m, &ev, &at, &err);
		if (ret <= 0)
			break;
		r = &src[at];
		host = strobe_merge_host(m, at);
		strobe_tracefile_see_event(r->tf, &ev);
		if (r->model) {
			strobe_model_update(r->model, &ev);
			task = strobe_model_task(r->model, ev.pid);
			if (!task) {
				cli_error(CMD, "out of memory");
				goto out;
			}
		}
		if (r->none || !strobe_expr_filter_match(r->filter, &r->env, &ev))
			continue;
		if (!a->json)
			strobe_buf_printf(s, "%-*s ", hw, host);
		fret = print_event(a, strobe_tracefile_formats(r->tf), r->names, r->topts, r->nbuf,
				   r->cache, &ev, task, host, s);
		if (fret < 0) {
			cli_flush(s);
			cli_error(CMD, "out of memory");
			goto out;
		}
		if (strobe_buf_len(s) >= CLI_FLUSH_BYTES && !cli_flush(s))
			break;	/* stdout failed: main reports it */
	}
	if (!cli_flush(s)) {
		status = CLI_OK;	/* main reports the write error */
		goto out;
	}
	if (ret < 0) {
		cli_error(CMD, "%s: %s", a->inputs[at], err.msg[0] ? err.msg : strerror(-ret));
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct strobe_stream_stats st;

		strobe_stream_stats(strobe_merge_stream(m, i), &st);
		if (strobe_tracefile_events_done(src[i].tf, &st, &sopts) < 0) {
			cli_error(CMD, "out of memory");
			goto out;
		}
		if (a->json && strobe_tracefile_nr_diags(src[i].tf)) {
			strobe_buf_puts(s, "{\"diagnostics\":");
			strobe_tracefile_write_json_diags(src[i].tf, s);
			strobe_buf_puts(s, "}\n");
			cli_json_add_key(s, "host", strobe_merge_host(m, i));
			cli_flush(s);
		}
		cli_warn_diags(CMD, src[i].tf);
	}
	status = CLI_OK;
out:
	strobe_buf_free(s);
	strobe_merge_close(m);
	for (i = 0; src && i < n; i++) {
		strobe_expr_filter_free(src[i].filter);
		free(src[i].renv);
		strobe_format_cache_free(src[i].cache);
		strobe_model_free(src[i].model);
		strobe_tracefile_close(src[i].tf);
		free(src[i].names);
		free(src[i].topts);
	}
	free(src);
	free(tfs);
	return status;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_CPU = 256, OPT_PID, OPT_COMM, OPT_JSON, OPT_CONTAINER, OPT_COLUMNS,
	       OPT_FILTER };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "event", required_argument, NULL, 'e' },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "container", required_argument, NULL, OPT_CONTAINER },
		{ "columns", required_argument, NULL, OPT_COLUMNS },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "ns", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_args a = { 0 };
	const char **lists;
	int c, status;

	/* Every repeatable option's values fit in argc slots each. */
	lists = calloc(7 * (size_t)argc + 7, sizeof(*lists));
	if (!lists) {
		cli_error(CMD, "out of memory");
		return CLI_FAIL;
	}
	a.events = lists;
	a.cpus = lists + argc + 1;
	a.pids = lists + 2 * (argc + 1);
	a.comms = lists + 3 * (argc + 1);
	a.conts = lists + 4 * (argc + 1);
	a.inputs = lists + 5 * (argc + 1);
	a.filters = lists + 6 * (argc + 1);

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:e:th", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			a.input = optarg;
			a.inputs[a.nr_inputs++] = optarg;
			break;
		case 'e':
			a.events[a.nr_events++] = optarg;
			break;
		case OPT_CPU:
			a.cpus[a.nr_cpus++] = optarg;
			break;
		case OPT_PID:
			a.pids[a.nr_pids++] = optarg;
			break;
		case OPT_COMM:
			a.comms[a.nr_comms++] = optarg;
			break;
		case OPT_JSON:
			a.json = true;
			break;
		case OPT_CONTAINER:
			a.conts[a.nr_conts++] = optarg;
			break;
		case OPT_FILTER:
			a.filters[a.nr_filters++] = optarg;
			break;
		case OPT_COLUMNS: {
			char *dup = strdup(optarg), *save = NULL, *t;
			bool ok = dup != NULL;

			for (t = dup ? strtok_r(dup, ",", &save) : NULL; t;
			     t = strtok_r(NULL, ",", &save)) {
				if (!strcmp(t, "container")) {
					a.col_container = true;
				} else {
					cli_error(CMD, "unknown column '%s' (known: container)", t);
					ok = false;
					break;
				}
			}
			free(dup);
			if (!ok) {
				free(lists);
				return CLI_USAGE;
			}
			break;
		}
		case 't':
			a.nsecs = true;
			break;
		case 'h':
			usage(stdout);
			free(lists);
			return CLI_OK;
		default:
			usage(stderr);
			free(lists);
			return CLI_USAGE;
		}
	}
	if (optind < argc) {
		if (a.input || optind + 1 < argc) {
			cli_error(CMD, "one input file only (got '%s')", argv[argc - 1]);
			free(lists);
			return CLI_USAGE;
		}
		a.input = argv[optind];
	}
	if (!a.input)
		a.input = "trace.dat";
	for (c = 0; c < a.nr_filters; c++) {	/* a syntax error is a usage error */
		struct strobe_expr *fe = NULL;
		struct strobe_error err = { 0 };

		if (strobe_expr_parse(a.filters[c], STROBE_EXPR_EVT_ONLY, &fe, &err) < 0) {
			cli_error(CMD, "--filter '%.60s': %.400s", a.filters[c], err.msg);
			free(lists);
			return CLI_USAGE;
		}
		strobe_expr_free(fe);
	}

	status = a.nr_inputs > 1 ? report_multi(&a) : report(&a);
	free(lists);
	return status;
}
