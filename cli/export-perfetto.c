/*
 * export-perfetto.c - `strobe export --format perfetto`: trace files (or
 * a live recording) as Chrome trace-event JSON for Perfetto UI,
 * chrome://tracing and speedscope.  The library's exporter
 * (strobe_perfetto_*, perfetto.h) does the work as a consumer of one
 * pipeline; this file parses the options, runs the pipeline over the
 * files (several -i: one timeline, damage as strobe-damage(7) says) or
 * strobe_record's live stream (-c NAME, -p PID, -- CMD, -d SECS), writes
 * the JSON into a temporary file renamed over -o at the end (a failed
 * export leaves no half file; -o - writes to stdout) and says what was
 * written.  cmd-export.c hands it the whole command line when the format
 * is perfetto.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <strobe/perfetto.h>

#include "cli.h"
#include "export-run.h"

#define CMD "export"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe export --format perfetto -o OUT.json [options] [-i FILE]...\n"
		"       strobe export --format perfetto -o OUT.json [options] (-c NAME | -p PID |\n"
		"                     -d SECS | -- CMD [ARGS])\n"
		"\n"
		"Write a trace as Chrome trace-event JSON, which Perfetto UI\n"
		"(ui.perfetto.dev), chrome://tracing and speedscope open: a process per\n"
		"container (named by the container) and per host process, a track per\n"
		"CPU, threads with running slices and system calls, wake-ups as arrows,\n"
		"periods as async slices, each container's CPU use as a counter.  From\n"
		"trace files (default trace.dat; several -i on one timeline) or live.\n"
		"See strobe-export(1).\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE        trace file to read (default: trace.dat); several\n"
		"                          -i: every host on one timeline\n"
		"  -o, --output OUT        the JSON file (- for stdout; required)\n"
		"      --begin T, --end T  window in trace seconds (366.2), or +SECONDS\n"
		"                          from the first event\n"
		"      --tid LIST          only these threads\n"
		"      --pid LIST          only these processes (thread group ids)\n"
		"      --comm LIST         only tasks with these command names (globs)\n"
		"      --container LIST    only tasks of these containers (name or id)\n"
		"      --filter EXPR       only threads for which EXPR holds (strobe-expr(7));\n"
		"                          repeatable, ANDed\n"
		"      --period DEF        periods as async slices (strobe-periods(1));\n"
		"                          repeatable; --period-captures CAPS too\n"
		"      --counter-interval SECONDS  CPU counters' interval (default 0.01)\n"
		"      --strict            fail on damaged data instead of skipping it with\n"
		"                          a warning (strobe-damage(7))\n"
		"      --jobs N            threads (default: the CPUs strobe may use; 1: one)\n"
		"  -q, --quiet             no summary\n"
		"  -h, --help              show this help\n"
		"\n"
		"Live (what strobe record takes; nothing is written but the JSON):\n"
		"  -c NAME                 trace every task of a container; repeatable\n"
		"  -p PID                  trace a process and its children\n"
		"  -d, --duration SECS     stop after SECS\n"
		"  -e EVENT, --preset LIST  events (default: the sched and syscalls presets)\n"
		"  -b KIB                  per-CPU buffer\n"
		"  -- CMD [ARGS]           run CMD and trace it\n"
		"\n"
		"Examples:\n"
		"  strobe export --format perfetto -i trace.dat -o trace.json\n"
		"  strobe export --format perfetto --container web --begin +2 --end +3 -o web.json\n"
		"  strobe export --format perfetto -c web -d 5 -o web.json\n");
}

/* Trace time "366.25" or "+1.5" (relative). */
static int parse_time(const char *s, uint64_t *ns, bool *relative)
{
	double secs;

	*relative = *s == '+';
	if (*relative)
		s++;
	if (cli_parse_seconds(s, &secs) < 0)
		return -EINVAL;
	*ns = (uint64_t)(secs * 1e9 + 0.5);
	return 0;
}

/* "a" then ",b": a comma list of repeated options (kept by the caller). */
static int add_list(char **list, const char *v)
{
	size_t n = *list ? strlen(*list) : 0;
	char *l = realloc(*list, n + strlen(v) + 2);

	if (!l)
		return -ENOMEM;
	if (n)
		l[n++] = ',';
	strcpy(l + n, v);
	*list = l;
	return 0;
}

struct out {
	int fd;
	const char *path;	/* -o */
	char *tmp;		/* what is written, renamed to path at the end */
	bool direct;		/* path itself is written (not a regular file) */
};

/* The file being written, removed when a signal ends the export (a live
 * recording handles SIGINT, SIGTERM and SIGHUP itself, and finishes). */
static const char *volatile tmp_to_remove;

static void on_fatal(int sig)
{
	if (tmp_to_remove)
		unlink(tmp_to_remove);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int out_write(void *arg, const void *buf, size_t len, struct strobe_error *err)
{
	struct out *o = arg;
	const char *p = buf;

	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			if (e == EPIPE)
				cli_broken_pipe();
			snprintf(err->msg, sizeof(err->msg), "cannot write '%s': %s", o->path,
				 strerror(e));
			err->code = -e;
			return -e;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int out_open(struct out *o, const char *path)
{
	struct stat st;

	o->path = path;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a FIFO (/dev/null, a pipe): written in place,
		 * never replaced */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			cli_error(CMD, "cannot open '%s': %s", path, strerror(errno));
			return -errno;
		}
		o->direct = true;
		return 0;
	}
	if (asprintf(&o->tmp, "%s.tmp-%d", path, (int)getpid()) < 0) {
		o->tmp = NULL;
		cli_error(CMD, "out of memory");
		return -ENOMEM;
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		cli_error(CMD, "cannot create '%s': %s", o->tmp, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -errno;
	}
	tmp_to_remove = o->tmp;
	signal(SIGINT, on_fatal);
	signal(SIGTERM, on_fatal);
	signal(SIGHUP, on_fatal);
	signal(SIGPIPE, on_fatal);
	return 0;
}

/* Keep (rename over -o) or drop what was written.  0 or -1 (printed). */
static int out_close(struct out *o, bool keep)
{
	int ret = 0;

	if (o->direct) {
		o->direct = false;
		return close(o->fd) < 0 && keep ? -1 : 0;
	}
	if (!o->tmp)
		return 0;
	tmp_to_remove = NULL;
	if (close(o->fd) < 0 && keep) {
		cli_error(CMD, "cannot write '%s': %s", o->path, strerror(errno));
		keep = false;
		ret = -1;
	}
	if (keep && rename(o->tmp, o->path) < 0) {
		cli_error(CMD, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
		ret = -1;
		keep = false;
	}
	if (!keep)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return ret;
}

static void summary(const struct strobe_perfetto *x, const char *path, double el)
{
	struct strobe_perfetto_stats st;

	strobe_perfetto_stats(x, &st);
	fprintf(stderr, "strobe export: %llu events into %llu trace events (%llu slices, %llu "
		"system calls, %llu wake-ups, %llu periods, %llu counter values; %llu threads) "
		"in '%s', %.1f MiB, in %.3f s: %.0f events/s\n",
		(unsigned long long)st.events, (unsigned long long)st.records,
		(unsigned long long)st.slices, (unsigned long long)st.syscalls,
		(unsigned long long)st.flows, (unsigned long long)st.periods,
		(unsigned long long)st.counters, (unsigned long long)st.threads, path,
		(double)st.bytes / (1 << 20), el, el > 0 ? (double)st.events / el : 0.0);
}

static int perfetto_consumer(void *arg, struct strobe_consumer *c)
{
	strobe_perfetto_consumer(arg, c);
	return 0;
}

int cli_export_perfetto(int argc, char **argv)
{
	enum { OPT_BEGIN = 256, OPT_END, OPT_TID, OPT_PID, OPT_COMM, OPT_CONT, OPT_FILTER,
	       OPT_COUNTER, OPT_JOBS };
	static const struct option longopts[] = {
		CLI_EXPORT_LONGOPTS,
		{ "output", required_argument, NULL, 'O' },
		{ "begin", required_argument, NULL, OPT_BEGIN },
		{ "end", required_argument, NULL, OPT_END },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "container", required_argument, NULL, OPT_CONT },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "counter-interval", required_argument, NULL, OPT_COUNTER },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_perfetto_opts po = { .size = sizeof(po) };
	struct strobe_error err = { 0, "" };
	struct strobe_perfetto *x = NULL;
	struct cli_export_opts eo;
	struct cli_target *t = &eo.t;
	struct out out = { .fd = -1 };
	const char **filters = calloc((size_t)argc + 1, sizeof(char *));
	char *lists[5] = { NULL };	/* tid, pid, comm, container; scratch */
	const char *output = NULL, *begin = NULL, *end = NULL;
	int c, jobs = 0, status = CLI_USAGE;
	double secs, t0;

	if (cli_export_opts_init(&eo, CMD, "perfetto", argc) < 0) {
		status = CLI_FAIL;
		goto out;
	}
	if (!filters) {
		cli_error(CMD, "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, CLI_EXPORT_SHORTOPTS "o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
		case 'O':
			output = optarg;
			break;
		case OPT_BEGIN:
			begin = optarg;
			break;
		case OPT_END:
			end = optarg;
			break;
		case OPT_TID:
		case OPT_PID:
		case OPT_COMM:
		case OPT_CONT:
			if (add_list(&lists[c - OPT_TID], optarg) < 0) {
				cli_error(CMD, "out of memory");
				status = CLI_FAIL;
				goto out;
			}
			break;
		case OPT_FILTER:
			filters[po.nr_filters++] = optarg;
			break;
		case OPT_COUNTER:
			if (cli_parse_seconds(optarg, &secs) < 0 || secs < 1e-6 || secs > 3600) {
				cli_error(CMD, "bad --counter-interval '%s' (seconds, e.g. 0.01)",
					  optarg);
				goto out;
			}
			po.counter_ns = (uint64_t)(secs * 1e9 + 0.5);
			break;
		case OPT_JOBS:
			if (cli_parse_int(optarg, 1, CLI_MAX_JOBS, &jobs) < 0) {
				cli_error(CMD, "bad --jobs '%s' (1 to %d)", optarg, CLI_MAX_JOBS);
				goto out;
			}
			break;
		default:
			if (cli_export_opt(&eo, CMD, c, optarg, usage, &status) < 0)
				goto out;
			break;
		}
	}
	if (cli_export_opts_end(&eo, CMD, argc, argv) < 0)
		goto out;
	if (!output) {
		cli_error(CMD, "where to? -o OUT.json (- for stdout)");
		goto out;
	}
	if (cli_export_opts_sources(&eo, CMD) < 0)
		goto out;
	if ((begin && parse_time(begin, &po.begin, &po.begin_relative) < 0) ||
	    (end && parse_time(end, &po.end, &po.end_relative) < 0)) {
		cli_error(CMD, "bad time '%s' (seconds like 366.25, or +SECONDS)",
			  begin && parse_time(begin, &po.begin, &po.begin_relative) < 0 ? begin
											 : end);
		goto out;
	}
	if ((eo.ninputs > 1 || t->given) && ((begin && !po.begin_relative) ||
					     (end && !po.end_relative))) {
		cli_error(CMD, "with several -i or live, --begin and --end take +SECONDS (from "
			  "the first event), got '%s'", begin && !po.begin_relative ? begin : end);
		goto out;
	}
	/* live -c: the recording also holds the switches and wake-ups its
	 * containers share with other tasks; only theirs are written */
	for (c = 0; t->given && !lists[3] && c < (int)t->o.nr_containers; c++)
		if (add_list(&lists[4], t->o.containers[c]) < 0) {
			cli_error(CMD, "out of memory");
			status = CLI_FAIL;
			goto out;
		}
	if (lists[4])
		lists[3] = lists[4], lists[4] = NULL;
	po.tids = lists[0];
	po.pids = lists[1];
	po.comms = lists[2];
	po.containers = lists[3];
	po.filters = filters;
	po.periods = eo.periods;
	po.nr_periods = eo.nperiods;
	po.period_captures = eo.caps;
	po.nr_period_captures = eo.ncaps;
	po.write = out_write;
	po.write_arg = &out;
	if (strobe_perfetto_new(&po, &x, &err) < 0) {
		cli_error_e(CMD, &err);
		status = CLI_FAIL;
		goto out;
	}
	if (out_open(&out, output) < 0) {
		status = CLI_FAIL;
		goto out;
	}
	t0 = cli_export_now();
	if (t->given) {
		struct strobe_consumer cons;

		strobe_perfetto_consumer(x, &cons);
		status = cli_export_live(CMD, t, &cons);
	} else {
		struct cli_export_how how = { .consumer = perfetto_consumer, .arg = x,
					      .merge_note = true, .jobs = jobs };

		status = cli_export_files(CMD, eo.inputs, eo.ninputs, eo.strict, eo.quiet, &how);
	}
	if (out_close(&out, status == CLI_OK) < 0)
		status = CLI_FAIL;
	if (status == CLI_OK && !eo.quiet)
		summary(x, output, cli_export_now() - t0);
out:
	if (out.tmp || out.direct)
		out_close(&out, false);
	strobe_perfetto_free(x);
	cli_export_opts_free(&eo);
	free(filters);
	for (c = 0; c < 5; c++)
		free(lists[c]);
	return status;
}
