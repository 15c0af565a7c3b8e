/*
 * cmd-report.c - `strobe report`: print the events of a trace file.
 *
 * The default text is line for line what `trace-cmd report` prints, so
 * existing scripts, diffs and habits keep working; --json prints one
 * object per event for programs.  The command is a thin loop over the
 * library: open the file, resolve the selection once (strobe_filter),
 * pull events from the merged stream, format each into one strobe_buf that
 * is written out in large chunks.  Lost events and incomplete recordings
 * are reported on stderr after the events, so stdout stays comparable.
 *
 * Containers: when asked for (--container, --columns container) and for
 * JSON, a task model (model.h) loaded from the file's strobe table sees
 * every event before the selection, so each event's container is known;
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
		"  strobe report -i web.dat -i db.dat     two hosts on one timeline\n");
}

struct report_args {
	const char *input;
	const char **inputs;	/* every -i, in order */
	int nr_inputs;
	const char **events, **cpus, **pids, **comms, **conts;
	int nr_events, nr_cpus, nr_pids, nr_comms, nr_conts;
	bool json;
	bool col_container;	/* --columns container */
	bool nsecs;
};

/* Does the event's task belong to one of the --container arguments? */
static bool container_match(const struct report_args *a, const struct strobe_task *t)
{
	int i;

	for (i = 0; i < a->nr_conts; i++)
		if (strobe_container_matches(t->container, a->conts[i]))
			return true;
	return false;
}

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

/* Build the selection from the command line; returns an exit status. */
static int build_filter(const struct report_args *a, struct strobe_formats *fmts,
			struct strobe_filter **out)
{
	struct strobe_error err = { 0 };
	struct strobe_filter *f;
	int i, ret = 0;

	*out = NULL;
	if (strobe_filter_new(fmts, &f) < 0) {
		cli_error(CMD, "out of memory");
		return CLI_FAIL;
	}
	for (i = 0; !ret && i < a->nr_cpus; i++)
		ret = strobe_filter_add_cpus(f, a->cpus[i], &err);
	for (i = 0; !ret && i < a->nr_pids; i++)
		ret = strobe_filter_add_pids(f, a->pids[i], &err);
	for (i = 0; !ret && i < a->nr_comms; i++)
		ret = strobe_filter_add_comms(f, a->comms[i], &err);
	for (i = 0; !ret && i < a->nr_events; i++)
		ret = strobe_filter_add_events(f, a->events[i], &err);
	if (ret < 0) {
		cli_error_e(CMD, &err);
		strobe_filter_free(f);
		return ret == -EINVAL ? CLI_USAGE : CLI_FAIL;
	}
	*out = f;
	return CLI_OK;
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
	struct strobe_filter *filter = NULL;
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
	bool known;

	s = cli_buf_new();
	if (strobe_tracefile_open(a->input, &tf, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	fmts = strobe_tracefile_formats(tf);
	status = build_filter(a, fmts, &filter);
	if (status != CLI_OK)
		goto out;
	status = CLI_FAIL;
	if (a->nr_conts || a->col_container || a->json) {
		if (strobe_model_new(&model, &err) < 0 ||
		    strobe_model_load_file(model, tf, &err) < 0) {
			cli_error(CMD, "%s: %s", a->input, err.msg);
			goto out;
		}
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

	sopts.nr_cpu_mask = strobe_filter_cpu_mask(filter, &sopts.cpu_mask);
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
			if (a->nr_conts && !container_match(a, task))
				continue;
		}
		if (!strobe_filter_match(filter, &ev))
			continue;
		if (a->col_container && !a->json)	/* JSON has a "container" key */
			strobe_buf_printf(s, "%-16.16s ", task->container->name);
		known = ev.buffer >= 0 && ev.buffer < nbuf;
		if (a->json)
			fret = strobe_format_event_json(fmts, &ev, known ? names[ev.buffer] : NULL,
							cache, s);
		else
			fret = strobe_format_event_text(fmts, &ev, known ? names[ev.buffer] : NULL,
							known ? &topts[ev.buffer] : NULL, s);
		if (fret == 0 && a->json && task)
			fret = json_container(s, task);
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
	strobe_filter_free(filter);
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
	struct strobe_filter *filter;
	struct strobe_model *model;
	struct strobe_format_cache *cache;
	const char **names;		/* buffer names */
	struct strobe_text_opts *topts;	/* per buffer */
	int nbuf;
	bool none;			/* the selection names nothing of this file */
};

/*
 * The selection of each file.  Each comma-separated item is added on its
 * own: an event or comm that one host's file does not have selects
 * nothing there (the union of the rest stays exact); an item no file has
 * is an error, as with one file.  A file where every item of a kind
 * selects nothing contributes no event (->none).
 */
static int build_filters_multi(const struct report_args *a, struct report_src *src, int n)
{
	struct { const char **v; int nr; int kind; } kinds[4] = {
		{ a->cpus, a->nr_cpus, 0 }, { a->pids, a->nr_pids, 1 },
		{ a->comms, a->nr_comms, 2 }, { a->events, a->nr_events, 3 },
	};
	struct strobe_error err = { 0 };
	int f, k, i, r = 0;

	for (f = 0; f < n; f++)
		if (strobe_filter_new(strobe_tracefile_formats(src[f].tf), &src[f].filter) < 0) {
			cli_error(CMD, "out of memory");
			return CLI_FAIL;
		}
	for (k = 0; k < 4; k++) {
		int *added = calloc((size_t)n, sizeof(*added));

		if (!added) {
			cli_error(CMD, "out of memory");
			return CLI_FAIL;
		}
		for (i = 0; i < kinds[k].nr; i++) {
			char *dup = strdup(kinds[k].v[i]), *save = NULL, *t;

			for (t = dup ? strtok_r(dup, ",", &save) : NULL; t;
			     t = strtok_r(NULL, ",", &save)) {
				int ok = 0;

				for (f = 0; f < n; f++) {
					struct strobe_filter *fl = src[f].filter;

					r = k == 0 ? strobe_filter_add_cpus(fl, t, &err)
					  : k == 1 ? strobe_filter_add_pids(fl, t, &err)
					  : k == 2 ? strobe_filter_add_comms(fl, t, &err)
						   : strobe_filter_add_events(fl, t, &err);
					if (r == 0) {
						ok = 1;
						added[f] = 1;
					} else if (r != -ENOENT) {
						break;
					}
				}
				if (!ok) {
					cli_error_e(CMD, &err);
					free(dup);
					free(added);
					return r == -EINVAL ? CLI_USAGE : CLI_FAIL;
				}
			}
			free(dup);
		}
		for (f = 0; f < n && kinds[k].nr; f++)
			if (!added[f])
				src[f].none = true;
		free(added);
	}
	return CLI_OK;
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
		if ((a->nr_conts || a->col_container || a->json) &&
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
	/* the same --cpu list in every file: the first file's mask */
	sopts.nr_cpu_mask = strobe_filter_cpu_mask(src[0].filter, &sopts.cpu_mask);
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
		bool known;

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
			if (a->nr_conts && !container_match(a, task))
				continue;
		}
		if (r->none || !strobe_filter_match(r->filter, &ev))
			continue;
		if (!a->json)
			strobe_buf_printf(s, "%-*s ", hw, host);
		if (a->col_container && !a->json)
			strobe_buf_printf(s, "%-16.16s ", task->container->name);
		known = ev.buffer >= 0 && ev.buffer < r->nbuf;
		if (a->json)
			fret = strobe_format_event_json(strobe_tracefile_formats(r->tf), &ev,
							known ? r->names[ev.buffer] : NULL, r->cache, s);
		else
			fret = strobe_format_event_text(strobe_tracefile_formats(r->tf), &ev,
							known ? r->names[ev.buffer] : NULL,
							known ? &r->topts[ev.buffer] : NULL, s);
		if (fret == 0 && a->json && task)
			fret = json_container(s, task);
		if (fret == 0 && a->json)
			fret = cli_json_add_key(s, "host", host);
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
		strobe_filter_free(src[i].filter);
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
	enum { OPT_CPU = 256, OPT_PID, OPT_COMM, OPT_JSON, OPT_CONTAINER, OPT_COLUMNS };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "event", required_argument, NULL, 'e' },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "container", required_argument, NULL, OPT_CONTAINER },
		{ "columns", required_argument, NULL, OPT_COLUMNS },
		{ "ns", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_args a = { 0 };
	const char **lists;
	int c, status;

	/* Every repeatable option's values fit in argc slots each. */
	lists = calloc(6 * (size_t)argc + 6, sizeof(*lists));
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

	status = a.nr_inputs > 1 ? report_multi(&a) : report(&a);
	free(lists);
	return status;
}
