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
		"      --info          print what strobe record stored about the recording\n"
		"                      (key=value lines: host, target, command, a flight\n"
		"                      recorder's trigger, reason and trimming) and exit\n"
		"      --strict        fail on damaged data instead of skipping it with a\n"
		"                      warning (strobe-damage(7))\n"
		"      --jobs N        threads (default: the CPUs strobe may use; 1: one)\n"
		"  -h, --help          show this help\n"
		"\n"
		"Warnings about lost events, incomplete recordings and damaged data go to\n"
		"stderr, after the events.\n"
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
	bool strict;		/* --strict: damage fails (strobe-damage(7)) */
	int jobs;		/* --jobs (0: the CPUs strobe may use) */
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
static void warn_filter(void *input, const char *msg)
{
	if (input)
		cli_warn(CMD, "%s: %s", (const char *)input, msg);
	else
		cli_warn(CMD, "%s", msg);
}

static int compile_filter(const struct report_args *a, struct strobe_formats *fmts,
			  const char *input, struct strobe_expr_filter **out,
			  struct strobe_error *errp)
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
	for (i = 0; !ret && i < a->nr_filters; i++)
		ret = strobe_expr_filter_add(f, a->filters[i], &err);
	if (!ret)
		ret = strobe_expr_filter_compile(f, &err);
	if (!ret)	/* what the file holds: fields, kinds, event names */
		ret = strobe_expr_filter_check(f, fmts, 0, warn_filter, (void *)input, &err);
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
	int r = compile_filter(a, fmts, NULL, out, &err);

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
	bool fgraph;			/* the file has function_graph entries */
	/* a function_graph entry held until the next event (text only: the
	 * leaf rule, strobe_fgraph_leaf): a copy of it and its task */
	bool has_pend;
	struct strobe_event pend;
	const struct strobe_task *pend_task;
	uint8_t pend_data[256];
};

/* r's task look-ups for its selection (r->renv allocated): procname from
 * the file's command lines, the rest from r's model when it has one. */
static void task_env(struct report_src *r, struct strobe_formats *fmts)
{
	if (strobe_expr_filter_needs_task(r->filter)) {
		r->renv->fmts = fmts;
		r->env.task = report_task;
		r->env.arg = r->renv;
	}
	if (r->model)
		strobe_expr_env_model(&r->renv->model, r->model);
}

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
		r = compile_filter(&af, fmts, a->inputs[f], &src[f].filter, &err);
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
			task_env(&src[f], fmts);
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

/* ---- the run: one pipeline, this command its consumer ------------------ */

struct report_ctx {
	const struct report_args *a;
	struct strobe_pipeline *p;
	struct report_src *src;		/* per source */
	const char **paths;		/* per source: the first -i naming it */
	int n;				/* sources */
	int hw;				/* several: width of the host column */
	struct strobe_buf *s;
	bool stdout_failed;
	/* run as parts, one per worker (report_part_new): each flushes its
	 * buffer after its batches only, in turn; root: the run's context
	 * (NULL in the run's context itself) */
	bool parts;
	struct report_ctx *root;
};

/* Before the first event: time styles (wall clock for several hosts with
 * clock pairings) and the header lines. */
static int report_start(const struct strobe_pipeline_source *ps, int nr, void *arg,
			struct strobe_error *err)
{
	struct report_ctx *c = arg;
	bool wall = strobe_pipeline_wall(c->p);
	int i, b, width;

	for (i = 0; i < c->n; i++) {
		struct report_src *r = &c->src[i];

		for (b = 0, width = 0; b < r->nbuf; b++) {
			struct strobe_tf_buffer_info info;

			if (strobe_tracefile_buffer(r->tf, b, &info) < 0)
				continue;
			r->names[b] = info.name;
			/* several hosts' wall-clock ns: seconds since the epoch */
			r->topts[b].ts_style = c->a->nsecs ? STROBE_TS_NSECS
					: wall ? STROBE_TS_USECS : strobe_ts_style_for_clock(info.clock);
			if ((int)strlen(info.name) > width)
				width = (int)strlen(info.name);
		}
		for (b = 0; b < r->nbuf; b++) {
			r->topts[b].buffer_width = width;
			r->topts[b].cache = r->cache;
		}
	}
	if (c->n > 1) {
		for (i = 0; i < nr; i++)
			if ((int)strlen(ps[i].host) > c->hw)
				c->hw = (int)strlen(ps[i].host);
		cli_merge_clock_note(CMD, strobe_pipeline_merge(c->p), c->paths);
	}
	if (c->a->json)
		return 0;
	if (c->n == 1)
		return strobe_buf_printf(c->s, "cpus=%d\n", file_cpus(c->src[0].tf)) < 0 ? -ENOMEM : 0;
	for (i = 0; i < nr; i++)
		strobe_buf_printf(c->s, "host=%s cpus=%d file=%s\n", ps[i].host,
				  file_cpus(c->src[i].tf), c->paths[i]);
	return strobe_buf_failed(c->s) ? -ENOMEM : 0;
}

/* One event of source r, selected or not, printed. */
static int report_one(struct report_ctx *c, struct report_src *r, int source,
		      const struct strobe_event *ev, const struct strobe_task *task)
{
	const char *host = NULL;

	if (r->none || !strobe_expr_filter_match(r->filter, &r->env, ev))
		return 0;
	if (c->n > 1) {
		host = strobe_pipeline_source(c->p, source)->host;
		if (!c->a->json)
			strobe_buf_printf(c->s, "%-*s ", c->hw, host);
	}
	if (print_event(c->a, strobe_tracefile_formats(r->tf), r->names, r->topts, r->nbuf,
			r->cache, ev, task, host, c->s) < 0)
		return -ENOMEM;
	if (!c->parts && strobe_buf_len(c->s) >= CLI_FLUSH_BYTES && !cli_flush(c->s)) {
		c->stdout_failed = true;	/* main reports it */
		return STROBE_CONSUMER_DONE;
	}
	return 0;
}

/* The held function_graph entry of r, printed: a leaf when next (may be
 * NULL: the end) is its own exit, then *consumed.  report_one's return. */
static int report_pending(struct report_ctx *c, struct report_src *r, int source,
			  const struct strobe_event *next, bool *consumed)
{
	struct strobe_formats *fmts = strobe_tracefile_formats(r->tf);
	bool leaf = next && strobe_fgraph_leaf(fmts, &r->pend, next);
	int ret;

	r->has_pend = false;
	strobe_fgraph_set_leaf(fmts, leaf ? next : NULL);
	ret = report_one(c, r, source, &r->pend, r->pend_task);
	strobe_fgraph_set_leaf(fmts, NULL);
	*consumed = leaf;
	return ret;
}

static int report_event(const struct strobe_event *ev, int source, void *arg,
			struct strobe_error *err)
{
	struct report_ctx *c = arg;
	struct report_src *r = &c->src[source];
	const struct strobe_task *task = NULL;
	bool consumed = false;
	int ret;

	if (r->model && !(task = strobe_model_task(r->model, ev->pid)))
		return -ENOMEM;
	if (r->has_pend && ((ret = report_pending(c, r, source, ev, &consumed)) || consumed))
		return ret;
	/* trace-cmd peeks at the record after an entry: hold it one event */
	if (r->fgraph && !c->a->json && ev->size <= sizeof(r->pend_data) &&
	    strobe_fgraph_is_entry(strobe_tracefile_formats(r->tf), ev)) {
		r->pend = *ev;
		memcpy(r->pend_data, ev->data, ev->size);
		r->pend.data = r->pend_data;
		r->pend_task = task;
		r->has_pend = true;
		return 0;
	}
	return report_one(c, r, source, ev, task);
}

/* The end: an entry still held is printed (nested). */
static int report_finish(void *arg, struct strobe_error *err)
{
	struct report_ctx *c = arg;
	bool consumed;
	int i, ret;

	for (i = 0; i < c->n; i++)
		if (c->src[i].has_pend &&
		    (ret = report_pending(c, &c->src[i], i, NULL, &consumed)) < 0)
			return ret;
	return 0;
}

/*
 * Parts (strobe_consumer.part_new; jobs > 1, one file without
 * function_graph entries, whose lines need the next event): each worker
 * prints its share of the batches into a buffer of its own, written out
 * in turn.  A part is a copy of the run's context with what printing
 * writes made anew (the buffer, the format cache and the text options
 * that point to it, the selection, whose type verdicts are a cache, and
 * its task look-ups) and its worker's task model; the file, the buffer
 * names and the arguments are shared, read-only.
 */
static void *part_fail(struct strobe_error *err, int code, const char *msg)
{
	if (err) {
		err->code = code;
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
	}
	return NULL;
}

static void report_part_free(void *part)
{
	struct report_ctx *pc = part;

	if (!pc)
		return;
	if (pc->src) {
		strobe_expr_filter_free(pc->src->filter);
		free(pc->src->renv);
		strobe_format_cache_free(pc->src->cache);
		free(pc->src->topts);
		free(pc->src);
	}
	strobe_buf_free(pc->s);
	free(pc);
}

static void *report_part_new(void *arg, int k, int nr, const struct strobe_pipeline_source *ps,
			     int nr_sources, struct strobe_error *err)
{
	struct report_ctx *c = arg, *pc = calloc(1, sizeof(*pc));
	const struct report_src *from = &c->src[0];
	struct strobe_formats *fmts = strobe_tracefile_formats(from->tf);
	struct report_src *r;
	int b;

	c->parts = true;	/* before the copy: the parts' too */
	if (!pc)
		goto oom;
	*pc = *c;
	pc->root = c;
	pc->s = cli_buf_new();
	pc->src = r = calloc(1, sizeof(*r));
	if (!pc->s || !r)
		goto oom;
	r->tf = from->tf;
	r->names = from->names;
	r->nbuf = from->nbuf;
	r->none = from->none;
	r->model = nr_sources > 0 ? ps[0].model : NULL;
	r->cache = strobe_format_cache_new(fmts);
	r->topts = calloc(r->nbuf > 0 ? r->nbuf : 1, sizeof(*r->topts));
	r->renv = calloc(1, sizeof(*r->renv));
	if (!r->cache || !r->topts || !r->renv)
		goto oom;
	for (b = 0; b < r->nbuf; b++) {
		r->topts[b] = from->topts[b];
		r->topts[b].cache = r->cache;
	}
	if (from->filter && build_filter(c->a, fmts, &r->filter) != CLI_OK) {
		report_part_free(pc);
		return part_fail(err, -EINVAL, "cannot make the selection again for a thread");
	}
	task_env(r, fmts);
	return pc;
oom:
	report_part_free(pc);
	return part_fail(err, -ENOMEM, "out of memory");
}

/* After each of a part's batches, in turn: write out what it printed (or
 * drop it: a batch after the end). */
static int report_part_flush(void *part, bool keep, struct strobe_error *err)
{
	struct report_ctx *pc = part;

	if (!keep) {
		strobe_buf_reset(pc->s);
		return 0;
	}
	if (strobe_buf_failed(pc->s)) {
		part_fail(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	if (!cli_flush(pc->s)) {
		(pc->root ? pc->root : pc)->stdout_failed = true;	/* main reports it */
		return STROBE_CONSUMER_DONE;
	}
	return 0;
}

/* The selection of a single file, and the model it (or the output) needs. */
static int setup_one(const struct report_args *a, struct report_src *r)
{
	struct strobe_error err = { 0 };
	struct strobe_formats *fmts = strobe_tracefile_formats(r->tf);
	int status = build_filter(a, fmts, &r->filter);

	if (status != CLI_OK)
		return status;
	r->renv = calloc(1, sizeof(*r->renv));	/* 16 KiB of cache */
	if (!r->renv) {
		cli_error(CMD, "out of memory");
		return CLI_FAIL;
	}
	/* procname comes from the file's command lines: no model for it */
	if (model_needed(r->filter) || a->col_container || a->json) {
		if (strobe_model_new(&r->model, &err) < 0 ||
		    strobe_model_load_file(r->model, r->tf, &err) < 0) {
			cli_error(CMD, "%s: %s", a->input, err.msg);
			return CLI_FAIL;
		}
	}
	task_env(r, fmts);
	return CLI_OK;
}

/* Several files: a model each for -c, the container column, JSON and the
 * selection's task reads; then each file's selection. */
static int setup_many(const struct report_args *a, struct report_src *src, int n)
{
	struct strobe_error err = { 0 };
	int i;

	for (i = 0; i < n; i++)
		if ((a->nr_conts || a->nr_filters || a->col_container || a->json) &&
		    (strobe_model_new(&src[i].model, &err) < 0 ||
		     strobe_model_load_file(src[i].model, src[i].tf, &err) < 0)) {
			cli_error(CMD, "%s: %s", a->inputs[i], err.msg);
			return CLI_FAIL;
		}
	return build_filters_multi(a, src, n);
}

/* The CPUs --cpu keeps, as stream options (the same for every file). */
static int cpu_stream_opts(const struct report_args *a, struct strobe_formats *fmts,
			   struct strobe_expr_filter **f, struct strobe_stream_opts *sopts)
{
	struct report_args cpu_only = { .cpus = a->cpus, .nr_cpus = a->nr_cpus };
	struct strobe_error err = { 0 };

	sopts->size = sizeof(*sopts);
	sopts->buffer = -1;
	if (!a->nr_cpus)
		return CLI_OK;
	if (compile_filter(&cpu_only, fmts, NULL, f, &err) < 0) {
		cli_error_e(CMD, &err);
		return CLI_USAGE;
	}
	sopts->nr_cpu_mask = strobe_expr_filter_cpu_mask(*f, &sopts->cpu_mask);
	return CLI_OK;
}

/* JSON: the diagnostics as a last line (per host with several). */
static void json_diags(struct report_ctx *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		if (!strobe_tracefile_nr_diags(c->src[i].tf))
			continue;
		strobe_buf_puts(c->s, "{\"diagnostics\":");
		strobe_tracefile_write_json_diags(c->src[i].tf, c->s);
		strobe_buf_puts(c->s, "}\n");
		if (c->n > 1)
			cli_json_add_key(c->s, "host", strobe_pipeline_source(c->p, i)->host);
	}
}

static int report_files(const struct report_args *a)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = a->strict,
					   .jobs = cli_jobs(a->jobs) };
	struct report_ctx c = { .a = a };
	struct strobe_consumer cons = {
		.size = sizeof(cons), .name = "report", .start = report_start,
		.event = report_event, .finish = report_finish, .arg = &c,
	};
	struct strobe_error err = { 0 };
	struct strobe_stream_opts sopts = { 0 };
	struct strobe_expr_filter *cpus = NULL;
	struct strobe_tracefile **tfs;
	struct report_args one = *a;
	struct cli_progress *pr;
	const char *only[1];
	int n = a->nr_inputs ? a->nr_inputs : 1, i, r, status = CLI_FAIL;

	c.s = cli_buf_new();
	tfs = calloc((size_t)n, sizeof(*tfs));
	c.paths = calloc((size_t)n, sizeof(*c.paths));
	if (!tfs || !c.paths) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (strobe_tracefile_open(a->nr_inputs ? a->inputs[i] : a->input, &tfs[i],
					  &err) < 0) {
			cli_error_e(CMD, &err);
			goto out;
		}
	}
	status = cpu_stream_opts(a, strobe_tracefile_formats(tfs[0]), &cpus, &sopts);
	if (status != CLI_OK)
		goto out;
	status = CLI_FAIL;
	if (strobe_pipeline_new(&po, &c.p, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	/* a file given twice (through a link, say) is one source, read once */
	for (i = 0; i < n; i++) {
		r = strobe_pipeline_add_file(c.p, tfs[i], &sopts, &err);
		if (r < 0) {
			cli_error_e(CMD, &err);
			goto out;
		}
		if (r == strobe_pipeline_nr_sources(c.p) - 1 && !c.paths[r])
			c.paths[r] = a->nr_inputs ? a->inputs[i] : a->input;
	}
	c.n = strobe_pipeline_nr_sources(c.p);
	c.src = calloc((size_t)c.n, sizeof(*c.src));
	if (!c.src) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	for (i = 0; i < c.n; i++) {
		c.src[i].tf = strobe_pipeline_source(c.p, i)->tf;
		c.src[i].fgraph = strobe_formats_find(strobe_tracefile_formats(c.src[i].tf),
						      "ftrace", "funcgraph_entry") != NULL;
	}
	if (c.n == 1) {
		only[0] = c.paths[0];
		one.input = c.paths[0];
		one.inputs = only;
		one.nr_inputs = 1;
		status = setup_one(&one, &c.src[0]);
	} else {
		one.inputs = c.paths;
		one.nr_inputs = c.n;
		status = setup_many(&one, c.src, c.n);
	}
	if (status != CLI_OK)
		goto out;
	status = CLI_FAIL;
	for (i = 0; i < c.n; i++) {
		struct report_src *rs = &c.src[i];

		rs->nbuf = strobe_tracefile_nr_buffers(rs->tf);
		rs->names = calloc(rs->nbuf > 0 ? rs->nbuf : 1, sizeof(*rs->names));
		rs->topts = calloc(rs->nbuf > 0 ? rs->nbuf : 1, sizeof(*rs->topts));
		if (!rs->names || !rs->topts) {
			cli_error(CMD, "out of memory");
			goto out;
		}
		rs->cache = strobe_format_cache_new(strobe_tracefile_formats(rs->tf));
		/* the pipeline updates each model before the event reaches us */
		if (rs->model && strobe_pipeline_set_model(c.p, i, rs->model, &err) < 0) {
			cli_error_e(CMD, &err);
			goto out;
		}
	}
	/* function_graph lines need the event after (report_event): one part */
	if (c.n == 1 && !c.src[0].fgraph) {
		cons.part_new = report_part_new;
		cons.part_flush = report_part_flush;
		cons.part_free = report_part_free;
	}
	if (strobe_pipeline_add_consumer(c.p, &cons, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	pr = cli_progress_start(CMD, c.p, false, true);
	r = strobe_pipeline_run(c.p, &err);
	cli_progress_stop(pr);
	if (!cli_flush(c.s) || c.stdout_failed) {
		status = CLI_OK;	/* main reports the write error */
		goto out;
	}
	if (r < 0) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : strerror(-r));
		goto out;
	}
	if (a->json) {
		json_diags(&c);
		if (strobe_buf_failed(c.s)) {
			cli_error(CMD, "out of memory");
			goto out;
		}
		cli_flush(c.s);
	}
	status = cli_pipeline_diags(CMD, c.p, a->strict);
out:
	strobe_buf_free(c.s);
	strobe_pipeline_free(c.p);
	strobe_expr_filter_free(cpus);
	for (i = 0; c.src && i < c.n; i++) {
		strobe_expr_filter_free(c.src[i].filter);
		free(c.src[i].renv);
		strobe_format_cache_free(c.src[i].cache);
		strobe_model_free(c.src[i].model);
		free(c.src[i].names);
		free(c.src[i].topts);
	}
	for (i = 0; tfs && i < n; i++)
		strobe_tracefile_close(tfs[i]);
	free(c.src);
	free(c.paths);
	free(tfs);
	return status;
}

/* --info: the file's strobe info block as it is stored (text up to its
 * first NUL: the writer reserves room after it). */
static int print_info(const char *path)
{
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf = NULL;
	const char *t;
	size_t size = 0;

	if (strobe_tracefile_open(path, &tf, &err) < 0) {
		cli_error_e(CMD, &err);
		return CLI_FAIL;
	}
	t = strobe_tracefile_option(tf, STROBE_TFO_STROBE_INFO, &size);
	if (!t || !size)
		cli_error(CMD, "%s: no strobe info (not recorded by strobe record)", path);
	else
		printf("%.*s", (int)strnlen(t, size), t);
	strobe_tracefile_close(tf);
	return t && size ? CLI_OK : CLI_FAIL;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_CPU = 256, OPT_PID, OPT_COMM, OPT_JSON, OPT_CONTAINER, OPT_COLUMNS,
	       OPT_FILTER, OPT_STRICT, OPT_INFO, OPT_JOBS };
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
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_args a = { 0 };
	const char **lists;
	bool info = false;
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
		case OPT_STRICT:
			a.strict = true;
			break;
		case OPT_INFO:
			info = true;
			break;
		case OPT_JOBS:
			if (cli_parse_int(optarg, 1, CLI_MAX_JOBS, &a.jobs) < 0) {
				cli_error(CMD, "bad --jobs '%s' (1 to %d)", optarg, CLI_MAX_JOBS);
				free(lists);
				return CLI_USAGE;
			}
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
	if (info) {
		free(lists);
		return print_info(a.input);
	}
	for (c = 0; c < a.nr_filters; c++) {	/* a syntax error is a usage error */
		struct strobe_expr_filter *fe = NULL;
		struct strobe_error err = { 0 };
		int r = strobe_expr_filter_new(&fe);

		if (r == 0)
			r = strobe_expr_filter_add(fe, a.filters[c], &err);
		strobe_expr_filter_free(fe);
		if (r < 0) {
			cli_error_e(CMD, &err);
			free(lists);
			return r == -EINVAL ? CLI_USAGE : CLI_FAIL;
		}
	}

	status = report_files(&a);
	free(lists);
	return status;
}
