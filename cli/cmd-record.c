/*
 * cmd-record.c - `strobe record`: parse options into a
 * struct strobe_record_opts (the target options through cli/target.c,
 * which the analysis commands share), run strobe_record() between the
 * signal handlers that stop a recording cleanly (the library never
 * installs handlers) and print a per-CPU summary on stderr.
 *
 * --profile adds perf samples with call chains (the library's
 * strobe_profile_records_setup: the record source of strobe profile)
 * stored in the file's strobe_perf buffer next to the tracefs events.
 *
 * Exit status: the traced command's own status (128+N if a signal killed
 * it), 127/126 when it cannot be run, 1 on any error (including a full
 * disk, which still leaves a readable file), 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <strobe/profile.h>

#include "cli.h"
#include "record-sink.h"
#include "record-flight.h"

static const char *const cmd = "record";

static void usage(FILE *f)
{
	const struct strobe_preset *p;

	fprintf(f,
		"usage: strobe record [options] [--] [CMD [ARGS...]]\n"
		"\n"
		"Record kernel events into a trace.dat file (trace-cmd format).  Traces\n"
		"CMD and its descendants, a running process with -p, or the whole\n"
		"system until Ctrl-C or --duration.\n"
		"\n"
		"Options:\n"
		"  -e, --event SPEC      enable events; repeatable.  SPEC is a preset,\n"
		"                        SYSTEM:EVENT with globs (sched:sched_wak*,\n"
		"                        syscalls:sys_enter_open*, block:*), a system\n"
		"                        name, or an event name.  Default: sched,syscalls\n"
		"  -f, --filter EXPR     kernel filter for the events of the preceding -e\n"
		"                        (e.g. 'prev_pid == 42', 'id == 39')\n"
		"      --preset LIST     comma-separated presets, same as -e for each\n"
		"  -o, --output FILE     output file (default trace.dat)\n"
		"  -b, --buffer KB       per-CPU ring buffer size in KiB (default 8192,\n"
		"                        at most 256 MiB over all CPUs)\n"
		"  -C, --clock CLOCK     trace clock (default local; see trace_clock)\n"
		"  -p, --pid PID         trace process PID (all threads) and its future\n"
		"                        children, until it exits\n"
		"  -c, --container NAME  trace every task of a container (name, ID or ID\n"
		"                        prefix), including tasks created later; repeatable\n"
		"      --no-model        do not store the process/container table (nor\n"
		"                        enable the fork/exec/exit events that update it)\n"
		"  -d, --duration SECS   stop after SECS seconds (fractions allowed)\n"
		"      --host-name NAME  the host name stored in the file (default: the\n"
		"                        node name); names the host when files of\n"
		"                        several hosts are merged (report -i A -i B)\n"
		"      --sink URL        also send every event, as it is captured, to\n"
		"                        ClickHouse: clickhouse://[USER[:PASS]@]HOST[:PORT]\n"
		"                        /DATABASE[?host=NAME] (credentials: better\n"
		"                        $CLICKHOUSE_USER, $CLICKHOUSE_PASSWORD)\n"
		"      --sink-spool FILE where rows wait while the server is slow or down\n"
		"                        (default OUTPUT.ch-spool; kept if not delivered)\n"
		"      --sink-spool-max SIZE  its bound (default 1G; K, M, G suffixes)\n"
		"      --sink-timeout SECS    last delivery attempts at the end (default 30)\n"
		"      --stacks          also record the kernel stack at every context\n"
		"                        switch (for strobe flamegraph --off-cpu)\n"
		"      --user-stacks     and the user stack after every event (a user\n"
		"                        stack walk per event: costly; frame pointers only)\n"
		"      --tracer NAME     also the instance's tracer: function (every kernel\n"
		"                        function entry: costly) or function_graph\n"
		"  -l, --ftrace-filter FUNC   trace only functions matching FUNC (a glob)\n"
		"  -n, --ftrace-notrace FUNC  leave out functions matching FUNC\n"
		"  -g, --graph-function FUNC  function_graph: follow the calls of FUNC\n"
		"      --profile         also sample the CPU (perf, cpu-clock, kernel and\n"
		"                        user call chains) into the file, next to the\n"
		"                        events (strobe profile -i FILE reads them); the\n"
		"                        trace clock is then mono\n"
		"  -F, --freq HZ         --profile's samples per second per CPU (default 99)\n"
		"      --uprobe 'PATH:FUNC[%%return] [ARGS...]'  a user-space probe on FUNC\n"
		"                        of PATH as the target sees it (a container's\n"
		"                        own file); ARGS: fetch-args (%%di, +0(%%si):string,\n"
		"                        $retval, NAME=...:TYPE) and arg1..arg6; repeatable\n"
		"      --usdt PATH:PROVIDER:NAME  a USDT probe of PATH (see strobe probe)\n"
		REC_FLIGHT_USAGE
		"  -q, --quiet           no summary\n"
		"  -h, --help            this help\n"
		"\n"
		"Presets:\n");
	for (p = strobe_presets(); p->name; p++)
		fprintf(f, "  %-10s %s\n", p->name, p->summary);
	fprintf(f,
		"\n"
		"Examples:\n"
		"  strobe record -- make -j2                   sched+syscalls of a build\n"
		"  strobe record -e syscalls:sys_enter_getppid -- ./a.out\n"
		"  strobe record -e sched:sched_switch -f 'prev_state == 2' -d 5\n"
		"  strobe record --preset sched,io -p 1234 -o io.dat\n"
		"  strobe record -c web -d 5                   one container, 5 s\n"
		"  strobe record -d 10 -b 8192                 whole system, 10 s\n"
		"  strobe record --sink clickhouse://db1:8123/strobe -c web -d 60\n"
		"  strobe record --stacks -c web -d 10         off-CPU stacks of a container\n"
		"  strobe record --profile -c web -d 10        a CPU profile with the events\n"
		"  strobe record --uprobe '/usr/sbin/nginx:ngx_http_process_request arg1' -c web\n"
		"                                              a function inside a container\n"
		"  strobe record --flight-recorder 64M -c web -o web.dat\n"
		"                                              snapshots on SIGUSR1 or\n"
		"                                              strobe trigger\n"
		"\n"
		"See strobe-record(1).\n");
}

static void human_size(uint64_t b, char *buf, size_t size)
{
	if (b >= 10ull << 20)
		snprintf(buf, size, "%.1f MiB", b / 1048576.0);
	else if (b >= 10ull << 10)
		snprintf(buf, size, "%.1f KiB", b / 1024.0);
	else
		snprintf(buf, size, "%" PRIu64 " bytes", b);
}

static void summary(const struct strobe_record_result *res)
{
	uint64_t ev = 0, lost = 0;
	char sz[32];
	int i;

	for (i = 0; i < res->nr_cpus; i++) {
		ev += res->cpus[i].events;
		lost += res->cpus[i].lost > res->cpus[i].overrun ?
			res->cpus[i].lost : res->cpus[i].overrun;
	}
	human_size(res->file_size, sz, sizeof(sz));
	fprintf(stderr, "strobe record: %s: %s, %.3f s, %" PRIu64 " events, %" PRIu64
		" lost%s\n", res->output, sz, res->duration, ev, lost,
		res->incomplete[0] ? " (incomplete)" : "");
	for (i = 0; i < res->nr_cpus; i++) {
		const struct strobe_record_cpu *c = &res->cpus[i];

		fprintf(stderr, "  cpu%-3d %10" PRIu64 " events  %8" PRIu64
			" lost (page headers %" PRIu64 "%s, kernel overrun %" PRIu64 ")  %8" PRIu64 " KiB\n",
			i, c->events, c->lost > c->overrun ? c->lost : c->overrun,
			c->lost, c->lost_unknown ? "+?" : "", c->overrun, c->bytes >> 10);
	}
}

static void on_tracing(void *arg)
{
	const struct strobe_record_opts *o = arg;

	if (!o->argv && o->pid <= 0 && !o->nr_containers && o->duration <= 0 && isatty(2))
		fprintf(stderr, "strobe record: tracing the whole system; press Ctrl-C to stop\n");
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "preset", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "clock", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "container", required_argument, NULL, 'c' },
		{ "no-model", no_argument, NULL, 'M' },
		{ "host-name", required_argument, NULL, 'H' },
		{ "duration", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "sink", required_argument, NULL, 256 },
		{ "sink-spool", required_argument, NULL, 257 },
		{ "sink-spool-max", required_argument, NULL, 258 },
		{ "sink-timeout", required_argument, NULL, 259 },
		/* off-CPU stacks */
		{ "stacks", no_argument, NULL, 320 },
		{ "user-stacks", no_argument, NULL, 321 },
		/* kernel function tracing */
		{ "tracer", required_argument, NULL, 340 },
		{ "ftrace-filter", required_argument, NULL, 'l' },
		{ "ftrace-notrace", required_argument, NULL, 'n' },
		{ "graph-function", required_argument, NULL, 'g' },
		/* perf samples in the file */
		{ "profile", no_argument, NULL, 360 },
		{ "freq", required_argument, NULL, 'F' },
		/* user-space probes */
		{ "uprobe", required_argument, NULL, 362 },
		{ "usdt", required_argument, NULL, 363 },
		REC_FLIGHT_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct strobe_profile_records prof = { .po = { .size = sizeof(prof.po) } };
	bool profile = false;
	int freq = 0;
	struct cli_target t;
	struct strobe_record_opts *o = &t.o;
	struct rec_sink_opts sko = { .timeout_s = -1 };
	struct rec_sink *sink = NULL;
	struct strobe_error sink_err = { 0, "" };
	char *sink_url = NULL;
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	char *cmdline = NULL;
	bool quiet = false;
	struct rec_flight fl = { 0 };
	const char **ffilter = calloc((size_t)argc + 1, sizeof(char *));
	const char **fnotrace = calloc((size_t)argc + 1, sizeof(char *));
	const char **fgraph = calloc((size_t)argc + 1, sizeof(char *));
	const char **uprobes = calloc((size_t)argc + 1, sizeof(char *));
	const char **usdt = calloc((size_t)argc + 1, sizeof(char *));
	int c, r, status = CLI_FAIL;

	memset(&t, 0, sizeof(t));
	if (!ffilter || !fnotrace || !fgraph || !uprobes || !usdt) {
		cli_error(cmd, "out of memory");
		goto out;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:f:o:b:C:p:c:d:qhl:n:g:F:", longopts, NULL)) != -1) {
		switch (c) {
		case 360:
			profile = true;
			break;
		case 'F':
			if (cli_parse_int(optarg, 1, 100000, &freq) < 0) {
				cli_error(cmd, "bad frequency '%s' (samples per second, 1-100000)",
					  optarg);
				goto usage_err;
			}
			break;
		case 340:
			o->tracer = optarg;
			break;
		case 'l':
			ffilter[o->nr_ftrace_filter++] = optarg;
			break;
		case 'n':
			fnotrace[o->nr_ftrace_notrace++] = optarg;
			break;
		case 'g':
			fgraph[o->nr_graph_function++] = optarg;
			break;
		case 362:
			uprobes[o->nr_uprobes++] = optarg;
			break;
		case 363:
			usdt[o->nr_usdt++] = optarg;
			break;
		case 'H':
			if (!optarg[0] || strlen(optarg) > 64 || strpbrk(optarg, "\n\t")) {
				cli_error(cmd, "bad host name '%s' (1 to 64 bytes, no tab or newline)",
					  optarg);
				goto usage_err;
			}
			o->host_name = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			status = CLI_OK;
			goto out;
		case 256:
			sink_url = optarg;
			break;
		case 257:
			sko.spool = optarg;
			break;
		case 258:
			if (cli_parse_size(optarg, &sko.spool_max) < 0) {
				cli_error(cmd, "bad --sink-spool-max '%s' (bytes, e.g. 512M or 2G)",
					  optarg);
				goto usage_err;
			}
			break;
		case 259:
			if (cli_parse_seconds(optarg, &sko.timeout_s) < 0) {
				cli_error(cmd, "bad --sink-timeout '%s' (seconds, e.g. 30)", optarg);
				goto usage_err;
			}
			break;
		case 320:	/* --stacks */
			o->stacks = true;
			break;
		case 321:	/* --user-stacks */
			o->stacks = o->user_stacks = true;
			break;
		case '?':
		case ':':
			if (optopt == 'H')
				cli_error(cmd, "option --host-name needs an argument");
			else if (optopt >= 256)
				cli_error(cmd, "option %s needs an argument", argv[optind - 1]);
			else if (optopt && strchr("efobCpcdlngF", optopt))
				cli_error(cmd, "option -%c needs an argument", optopt);
			else if (optopt)
				cli_error(cmd, "unknown option -%c", optopt);
			else
				cli_error(cmd, "unknown option '%s'", argv[optind - 1]);
			goto usage_err;
		case REC_FLIGHT_OPT: case REC_FLIGHT_POST: case REC_FLIGHT_ON_EXIT:
		case REC_FLIGHT_MIN_INTERVAL: case REC_FLIGHT_MAX: case REC_FLIGHT_TRIGGER_ON:
		case REC_FLIGHT_TRIGGER_OOM: case REC_FLIGHT_TRIGGER_EXIT: case REC_FLIGHT_PERIOD:
		case REC_FLIGHT_TRIGGER:
			if (rec_flight_option(&fl, o, c, optarg) < 0)
				goto usage_err;
			break;
		default:
			r = cli_target_option(&t, cmd, c, optarg);
			if (r == -ENOMEM)
				goto out;
			if (r <= 0)
				goto usage_err;
		}
	}
	if ((o->nr_ftrace_filter || o->nr_ftrace_notrace || o->nr_graph_function) &&
	    !o->tracer) {
		cli_error(cmd, "-l, -n and -g filter a tracer's functions: which tracer? "
			  "--tracer function or --tracer function_graph");
		goto usage_err;
	}
	o->ftrace_filter = ffilter;
	o->ftrace_notrace = fnotrace;
	o->graph_function = fgraph;
	o->uprobes = uprobes;
	o->usdt = usdt;
	if (cli_target_finish(&t, cmd, optind < argc ? &argv[optind] : NULL) < 0)
		goto usage_err;
	if (freq && !profile) {
		cli_error(cmd, "-F sets --profile's sampling frequency: add --profile");
		goto usage_err;
	}
	if (profile) {
		prof.po.freq = freq ? (unsigned)freq : 99;
		r = strobe_profile_records_setup(&prof, o, &err);
		if (r < 0)
			cli_error_e(cmd, &err);
		if (r == -EINVAL)
			goto usage_err;
		if (r < 0)
			goto out;
	}
	if ((sko.spool || sko.spool_max || sko.timeout_s >= 0) && !sink_url) {
		cli_error(cmd, "--sink-spool, --sink-spool-max and --sink-timeout go with --sink");
		goto usage_err;
	}
	if (sink_url) {
		bool bad_usage;

		/* before the command line is stored: this hides the password */
		sink = rec_sink_open(&sko, sink_url, o->output, &bad_usage);
		if (!sink) {
			if (bad_usage)
				goto usage_err;
			goto out;
		}
		o->on_event = rec_sink_on_event;
		o->on_tick = rec_sink_on_tick;
		o->event_arg = sink;
		o->event_err = &sink_err;
	}
	/* the flight recorder (record-flight.c) */
	fl.quiet = quiet;
	if (rec_flight_finish(&fl, o) < 0)
		goto usage_err;
	if (rec_flight_add_events(&fl, &t) < 0)
		goto out;
	o->on_tracing = on_tracing;
	o->arg = o;
	cmdline = cli_join_args(argc - 1, argv + 1);
	o->command_line = cmdline;

	cli_target_progress(&t, "record", quiet);
	fl.progress = &t.progress;
	rec_flight_arm(&fl, o);
	r = cli_target_record(&t, &res, &err);
	rec_flight_disarm(&fl);

	if (r < 0 && res.exec_errno) {
		cli_error_e(cmd, &err);
		status = res.exec_errno == ENOENT ? 127 : 126;
		goto out_res;
	}
	if (r < 0 && r != -ENOSPC) {
		cli_error_e(cmd, &err);
		status = CLI_FAIL;
		goto out_res;
	}
	if (fl.given)
		rec_flight_summary(&fl, o, &res, res.stopped ? t.stop_signal : 0);
	else if (!quiet)
		summary(&res);
	if (profile && !quiet) {
		struct strobe_perf_stats st = { 0 };

		if (prof.perf)
			strobe_perf_stats(prof.perf, &st);
		fprintf(stderr, "strobe record: %" PRIu64 " perf records stored (%" PRIu64
			" samples, %" PRIu64 " lost)\n", res.records, st.samples, st.lost);
		if (res.records_left_out)
			cli_warn(cmd, "%" PRIu64 " perf records out of time order left out "
				 "(lost records of the file)", res.records_left_out);
	}
	if (sink) {	/* the file is complete whatever the sink says */
		rec_sink_close(sink, res.stream_missed, quiet);
		sink = NULL;
	}
	if (r == -ENOSPC) {
		cli_error_e(cmd, &err);
		status = CLI_FAIL;
	} else if (res.child_exited) {
		if (WIFEXITED(res.child_status))
			status = WEXITSTATUS(res.child_status);
		else if (WIFSIGNALED(res.child_status))
			status = 128 + WTERMSIG(res.child_status);
		else
			status = CLI_FAIL;
	} else if (res.stopped && o->argv) {
		status = 128 + t.stop_signal;	/* the command was interrupted */
	} else {
		status = CLI_OK;
	}
out_res:
	strobe_record_result_free(&res);
	goto out;
usage_err:
	fprintf(stderr, "See 'strobe record --help'.\n");
	status = CLI_USAGE;
out:
	if (sink)	/* the recording failed: say what happened to what was sent */
		rec_sink_close(sink, 0, quiet);
	cli_target_free(&t);
	strobe_profile_records_release(&prof);
	rec_flight_free(&fl);
	free(cmdline);
	free(ffilter);
	free(fnotrace);
	free(fgraph);
	free(uprobes);
	free(usdt);
	return status;
}
