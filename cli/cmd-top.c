/*
 * cmd-top.c - `strobe top`: a live, refreshing view of the machine, a
 * container, a process or a command, one row per container, pod, process
 * or thread.
 *
 * The command is a recording with one consumer: the top engine
 * (lib/top, top.h) reads the analyses with snapshot and reset every
 * --interval seconds of trace time and hands over the rows.  Batch mode
 * (--batch, or when stdout is not a terminal) prints them as a text table
 * or one JSON document per refresh, --iterations times; the interactive
 * view (top-tui.c) draws them in the terminal.  -o FILE keeps the trace
 * of what was watched, as strobe record writes it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <strobe/pipeline.h>
#include <strobe/record.h>
#include <strobe/strobe.h>
#include <strobe/top.h>
#include <strobe/metrics.h>

#include "cli.h"
#include "top-tui.h"

#define CMD "top"

struct top_run {
	struct strobe_top *top;
	struct strobe_buf *s;
	bool json;
	int iterations;		/* 0: until stopped */
	int done;		/* refreshes printed */
	bool warned;		/* unavailable columns said once */
	bool failed_out;	/* stdout failed */
	const char *group_name;
	struct top_tui *tui;	/* the interactive view, NULL in batch mode */
	struct strobe_metrics *metrics;	/* --metrics: the registry served */
	bool quiet;		/* --quiet: metrics only, no view */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe top [options] [-c NAME|ID | -p PID | -- CMD [ARGS...]]\n"
		"\n"
		"A live view of what the machine (default), a container, a process or a\n"
		"command does, refreshed every interval: CPU, system calls and errors,\n"
		"run-queue latency, block IO, context switches, memory, page faults and\n"
		"tasks, one row per container (default), pod, process or thread.\n"
		"\n"
		"Options:\n"
		"      --batch             print each refresh (text or --json) instead of\n"
		"                          the interactive view (the default when stdout\n"
		"                          is not a terminal)\n"
		"  -n, --iterations N      stop after N refreshes (default: until Ctrl-C)\n"
		"      --interval SECS     seconds between refreshes (default 1)\n"
		"      --group-by WHAT     container (default), pod, process or thread\n"
		"      --sort KEY          a shown column (default cpu_pct), descending\n"
		"      --columns LIST      the columns to show, comma-separated (default:\n"
		"                          all): cpu_pct, syscalls_ps, errors_ps, runq_p50,\n"
		"                          runq_p99, runq_max, read_bps, write_bps,\n"
		"                          blkio_p99, switches_ps, mem_bytes, faults_ps,\n"
		"                          tasks; only their events are enabled\n"
		"      --json              one JSON document per refresh\n"
		"      --metrics ADDR:PORT serve Prometheus metrics at /metrics (':9800' is\n"
		"                          127.0.0.1:9800; beyond loopback needs --web-config\n"
		"                          with TLS or basic auth, or --metrics-insecure)\n"
		"      --web-config FILE   node exporter's web config: tls_server_config,\n"
		"                          basic_auth_users (bcrypt)\n"
		"      --quiet             with --metrics: no view, a metrics daemon\n"
		"\n"
		"What to watch (as strobe record):\n"
		"  -c NAME|ID              a container's tasks (repeatable)\n"
		"  -p PID                  a process and its future children\n"
		"  -- CMD [ARGS...]        run CMD and watch it until it exits\n"
		"  -d, --duration SECS     stop after SECS\n"
		"  -o, --output FILE       also keep the trace of what was watched\n"
		"  -b, --buffer KB         per-CPU kernel buffer (default 8192)\n"
		"  -e, --event SPEC, --preset LIST   more events (for -o's file)\n"
		"  -h, --help              show this help\n"
		"\n"
		"Examples:\n"
		"  strobe top                                 the machine, per container\n"
		"  strobe top --batch -n 3 --json             three refreshes as JSON\n"
		"  strobe top -c web --group-by process       the processes of container web\n"
		"  strobe top --columns cpu_pct,runq_p99 --sort runq_p99\n"
		"\n"
		"See strobe-top(1).\n");
}

static const char *group_names[] = { "container", "pod", "process", "thread" };

static int parse_group(const char *s, enum strobe_top_group *g)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(s, group_names[i])) {
			*g = (enum strobe_top_group)i;
			return 0;
		}
	return -EINVAL;
}

/* Columns that cannot be shown, once, on stderr. */
static void warn_unavailable(struct top_run *r)
{
	const struct strobe_table *t = strobe_top_table(r->top);
	int i;

	if (r->warned || !t)
		return;
	r->warned = true;
	for (i = 0; i < strobe_table_nr_columns(t); i++) {
		const char *key = strobe_table_column(t, i)->key;
		const char *why = strobe_top_unavailable(r->top, key);

		if (why)
			cli_warn(CMD, "%s: %s: shown as '-'", key, why);
	}
}

/* "N lost", or "N lost in G gaps" when events were lost: a gap whose
 * size the ring buffer did not store adds to G but not to N. */
static void lost_text(char *b, size_t n, const struct strobe_top_interval *iv)
{
	int k = snprintf(b, n, "%" PRIu64 " lost", iv->lost);

	if (iv->gaps && k > 0 && (size_t)k < n)
		snprintf(b + k, n - (size_t)k, " in %" PRIu64 " gap%s", iv->gaps,
			 iv->gaps == 1 ? "" : "s");
}

static int print_text(struct top_run *r, const struct strobe_top_interval *iv)
{
	const struct strobe_table *t = strobe_top_table(r->top);
	char when[32] = "", lost[64];
	time_t now = time(NULL);
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	lost_text(lost, sizeof(lost), iv);
	strobe_buf_printf(r->s, "%sstrobe top  %s  interval %.2f s  %" PRIu64 " events  %s"
			  "  sorted by %s\n", r->done ? "\n" : "", when,
			  iv->seconds, iv->events, lost,
			  strobe_top_sort(r->top) ? strobe_top_sort(r->top) : "name");
	return t ? strobe_table_write_text(t, r->s) : 0;
}

static int print_json(struct top_run *r, const struct strobe_top_interval *iv)
{
	const struct strobe_table *t = strobe_top_table(r->top);
	struct strobe_buf *b;
	const char *text, *sort = strobe_top_sort(r->top);
	size_t len;
	int i, n = 0, ret;

	if (!t)
		return 0;
	b = cli_buf_new();
	ret = strobe_table_write_json(t, b);
	text = strobe_buf_data(b);
	len = strobe_buf_len(b);
	/* the table's object, and the refresh's own keys before its end */
	if (ret == 0 && len >= 2 && text[len - 2] == '}') {
		strobe_buf_printf(r->s, "%.*s,\"begin\":%" PRIu64 ",\"end\":%" PRIu64
				  ",\"seconds\":%.6f,\"events\":%" PRIu64 ",\"lost\":%" PRIu64
				  ",\"gaps\":%" PRIu64 ",\"group_by\":\"%s\",\"sort\":", (int)(len - 2),
				  text, iv->begin, iv->end, iv->seconds, iv->events, iv->lost, iv->gaps,
				  r->group_name);
		if (sort)
			strobe_buf_printf(r->s, "\"%s\"", sort);
		else
			strobe_buf_printf(r->s, "null");
		strobe_buf_printf(r->s, ",\"unavailable\":{");
		for (i = 0; i < strobe_table_nr_columns(t); i++) {
			const char *key = strobe_table_column(t, i)->key;
			const char *why = strobe_top_unavailable(r->top, key);

			if (why)
				strobe_buf_printf(r->s, "%s\"%s\":\"%s\"", n++ ? "," : "", key, why);
		}
		strobe_buf_printf(r->s, "}}\n");
	}
	strobe_buf_free(b);
	return ret;
}

/* ---- the interactive view (top-tui.c) --------------------------------- */

/* What is watched, for the view's title line. */
static char *tui_title(const struct cli_target *t)
{
	struct strobe_buf *b = strobe_buf_new();
	char *s;
	size_t i;

	if (!b)
		return NULL;
	if (t->o.argv) {
		strobe_buf_puts(b, "command:");
		for (i = 0; t->o.argv[i]; i++)
			strobe_buf_printf(b, " %s", t->o.argv[i]);
	} else if (t->o.nr_containers) {
		strobe_buf_puts(b, t->o.nr_containers > 1 ? "containers " : "container ");
		for (i = 0; i < t->o.nr_containers; i++)
			strobe_buf_printf(b, "%s%s", i ? ", " : "", t->o.containers[i]);
	} else if (t->o.pid > 0) {
		strobe_buf_printf(b, "process %d", (int)t->o.pid);
	} else {
		strobe_buf_puts(b, "the whole machine");
	}
	s = strobe_buf_failed(b) ? NULL : strdup(strobe_buf_data(b));
	strobe_buf_free(b);
	return s;
}

static void tui_refresh(struct top_run *r, const struct strobe_top_interval *iv)
{
	char status[256], when[32] = "", lost[64];
	time_t now = time(NULL);
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	lost_text(lost, sizeof(lost), iv);
	snprintf(status, sizeof(status), "%s  interval %.2f s  %.0f events/s  %s",
		 when, iv->seconds, iv->seconds > 0 ? (double)iv->events / iv->seconds : 0.0,
		 lost);
	top_tui_draw(r->tui, status);
}

/* strobe_record's on_tick, every 100 ms on the pipeline's thread: keys
 * and resizes; q ends the recording as a signal would. */
static int tui_tick(bool final, void *arg)
{
	struct top_run *r = arg;

	if (!final && r->tui && top_tui_poll(r->tui))
		*cli_target_stop_flag() = -1;
	return 0;
}

/* ---- refreshes -------------------------------------------------------- */

static int on_interval(struct strobe_top *top, const struct strobe_top_interval *iv, void *arg)
{
	struct top_run *r = arg;
	int ret;

	/* the metrics first: a view that fails must not hold them back */
	if (r->metrics && (ret = strobe_metrics_add_top_interval(r->metrics, iv, iv->end)) < 0)
		return ret;
	/* the last, partial interval after -n N refreshes is counted, not
	 * shown */
	if (r->iterations && r->done >= r->iterations)
		return 0;
	if (r->quiet) {
		r->done++;
		if (r->iterations && r->done >= r->iterations)
			*cli_target_stop_flag() = -1;
		return 0;
	}
	if (r->tui) {
		tui_refresh(r, iv);
		r->done++;
		if (r->iterations && r->done >= r->iterations)
			*cli_target_stop_flag() = -1;
		return 0;
	}
	warn_unavailable(r);
	ret = r->json ? print_json(r, iv) : print_text(r, iv);
	if (ret < 0)
		return ret;
	if (!cli_flush(r->s) || fflush(stdout)) {
		r->failed_out = true;
		return -EPIPE;
	}
	r->done++;
	if (r->iterations && r->done >= r->iterations)
		*cli_target_stop_flag() = -1;	/* the recording ends, drained */
	return 0;
}

enum {
	OPT_BATCH = 256, OPT_INTERVAL, OPT_GROUP_BY, OPT_SORT, OPT_COLUMNS, OPT_JSON,
	OPT_METRICS, OPT_WEB_CONFIG, OPT_METRICS_INSECURE, OPT_QUIET,
};

int cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "iterations", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "group-by", required_argument, NULL, OPT_GROUP_BY },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "columns", required_argument, NULL, OPT_COLUMNS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "web-config", required_argument, NULL, OPT_WEB_CONFIG },
		{ "metrics-insecure", no_argument, NULL, OPT_METRICS_INSECURE },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "event", required_argument, NULL, 'e' },
		{ "preset", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_top_opts to = { .size = sizeof(to) };
	struct top_run run = { 0 };
	struct cli_target t = { 0 };
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	struct strobe_consumer cons;
	struct strobe_top *top = NULL;
	char **target_argv = NULL, *cmdline = NULL;
	double interval = 1.0;
	bool batch = false, insecure = false;
	const char *metrics_addr = NULL, *web_config = NULL;
	struct strobe_metrics_server *srv = NULL;
	int c, r, ret, status = CLI_USAGE;

	memset(&res, 0, sizeof(res));
	cmdline = cli_join_args(argc, argv);
	for (r = 1; r < argc; r++)
		if (!strcmp(argv[r], "--")) {
			target_argv = &argv[r + 1];
			argc = r;
			break;
		}
	optind = 1;
	while ((c = getopt_long(argc, argv, "hn:e:o:b:p:c:d:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BATCH:
			batch = true;
			break;
		case 'n':
			if (cli_parse_int(optarg, 1, 1 << 30, &run.iterations) < 0) {
				cli_error(CMD, "bad number of iterations '%s' (1 or more)", optarg);
				goto out;
			}
			break;
		case OPT_INTERVAL:
			if (cli_parse_seconds(optarg, &interval) < 0 || interval < 0.05 ||
			    interval > 3600) {
				cli_error(CMD, "bad interval '%s' (seconds, 0.05 to 3600)", optarg);
				goto out;
			}
			break;
		case OPT_GROUP_BY:
			if (parse_group(optarg, &to.group_by) < 0) {
				cli_error(CMD, "bad value '%s' for --group-by (container, pod, "
					  "process or thread)", optarg);
				goto out;
			}
			break;
		case OPT_SORT:
			to.sort = optarg;
			break;
		case OPT_COLUMNS:
			to.columns = optarg;
			break;
		case OPT_JSON:
			run.json = true;
			break;
		case OPT_METRICS:
			metrics_addr = optarg;
			break;
		case OPT_WEB_CONFIG:
			web_config = optarg;
			break;
		case OPT_METRICS_INSECURE:
			insecure = true;
			break;
		case OPT_QUIET:
			run.quiet = true;
			break;
		case 'h':
			usage(stdout);
			status = CLI_OK;
			goto out;
		case '?':
			fprintf(stderr, "See 'strobe top --help'.\n");
			goto out;
		default:
			ret = cli_target_option(&t, CMD, c, optarg);
			if (ret < 0)
				goto out;
			if (ret == 0) {
				usage(stderr);
				goto out;
			}
			break;
		}
	}
	if (optind < argc) {
		cli_error(CMD, "unexpected argument '%s' (a command goes after '--')",
			  argv[optind]);
		goto out;
	}
	if (target_argv && !target_argv[0]) {
		cli_error(CMD, "no command after '--'");
		goto out;
	}
	if ((web_config || insecure || run.quiet) && !metrics_addr) {
		cli_error(CMD, "%s needs --metrics ADDR:PORT", web_config ? "--web-config"
			  : insecure ? "--metrics-insecure" : "--quiet");
		goto out;
	}
	if (run.quiet && run.json) {
		cli_error(CMD, "--quiet shows nothing: not with --json");
		goto out;
	}
	if (cli_target_finish(&t, CMD, target_argv) < 0)
		goto out;
	t.o.command_line = cmdline;
	to.containers = t.o.containers;
	to.nr_containers = (int)t.o.nr_containers;
	to.on_interval = on_interval;
	to.arg = &run;
	ret = strobe_top_new(&to, &top, &err);
	if (ret < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	status = CLI_FAIL;
	run.top = top;
	run.s = cli_buf_new();
	run.group_name = group_names[to.group_by];
	if (cli_target_add_presets(&t, CMD, strobe_top_presets(top)) < 0)
		goto out;
	t.o.events = t.ev;
	t.o.nr_events = t.nev;
	t.o.no_output = !t.o.output;
	strobe_top_consumer(top, 0, &cons);
	t.o.consumers = &cons;
	t.o.nr_consumers = 1;
	t.o.tick_ns = (uint64_t)(interval * 1e9);
	if (metrics_addr) {
		struct strobe_metrics_web web = { .size = sizeof(web), .config_file = web_config,
						  .insecure = insecure };

		ret = strobe_metrics_new(NULL, &run.metrics, &err);
		if (ret == 0)
			ret = strobe_metrics_serve(run.metrics, metrics_addr, &web, &srv, &err);
		if (ret < 0) {
			cli_error(CMD, "--metrics %s: %s", metrics_addr, err.msg);
			status = ret == -EINVAL || ret == -EPERM ? CLI_USAGE : CLI_FAIL;
			goto out;
		}
		fprintf(stderr, "strobe top: metrics on port %d (%s/metrics)\n",
			strobe_metrics_server_port(srv), metrics_addr);
	}
	/* the interactive view: the default on a terminal (JSON is batch),
	 * opened last so that no message goes to its screen */
	if (!batch && !run.json && !run.quiet && isatty(STDOUT_FILENO)) {
		char *title = tui_title(&t);

		ret = top_tui_open(&run.tui, top, title ? title : "", cli_target_stop_flag(),
				   &err);
		free(title);
		if (ret < 0) {
			cli_error_e(CMD, &err);
			goto out;
		}
		t.o.on_tick = tui_tick;
		t.o.event_arg = &run;
	}
	ret = cli_target_record(&t, &res, &err);
	top_tui_close(run.tui);	/* the terminal back before any message */
	run.tui = NULL;
	cli_flush(run.s);
	if (run.failed_out) {
		status = CLI_FAIL;	/* main says stdout failed */
		goto out;
	}
	if (ret < 0 && res.exec_errno) {
		cli_error_e(CMD, &err);
		status = res.exec_errno == ENOENT ? 127 : 126;
		goto out;
	}
	if (ret < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	if (res.stream_missed)
		cli_warn(CMD, "%llu events were lost (the kernel's buffer or strobe fell "
			 "behind): the figures are short of them; a bigger -b may help",
			 (unsigned long long)res.stream_missed);
	if (!run.done)
		cli_warn(CMD, "the run ended before the first refresh (--interval %.2f s)",
			 interval);
	status = CLI_OK;
out:
	top_tui_close(run.tui);
	strobe_metrics_server_stop(srv);
	strobe_metrics_free(run.metrics);
	strobe_record_result_free(&res);
	strobe_top_free(top);
	if (run.s)
		strobe_buf_free(run.s);
	cli_target_free(&t);
	free(cmdline);
	return status;
}
