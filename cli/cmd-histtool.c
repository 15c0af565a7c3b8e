/*
 * cmd-histtool.c - `strobe runqlat` and `strobe biolatency`: bcc's two
 * histogram tools, per container, at the end or every --interval.
 *
 * Each is one analysis of libstrobe run as the consumer of one pipeline
 * (never a loop of its own): runqlat is schedlat's pairing measured as
 * bcc's runqlat (the "runqlat" analysis, lib/analyses/schedlat.c), and
 * biolatency io's block-request pairing measured as bcc's biolatency
 * (the "biolatency" analysis, lib/analyses/io.c), so on the same events
 * they agree bucket for bucket with `strobe schedlat` and `strobe io`.
 * Their events come from tracefs, not BPF maps: the same events a
 * recording holds, so a live run and a file recorded over the same
 * seconds give the same figures (strobe-runqlat(1) says why).
 *
 * Inputs: live (strobe_record with the consumer, no file unless -o), or
 * a recording (-i FILE).  Live, both record the whole machine and select
 * in user space: -c is the analysis' --container filter, -p PID and
 * -- CMD its "command-all" target (the process or command and what it
 * forks).  The kernel's PID filter would not do: a block request is
 * issued and completed in whatever task's context the CPU is in, and
 * with set_event_pid this kernel drops some switch-ins out of idle to a
 * traced task (a sleepy container lost about one wait in eight), which
 * are exactly the waits runqlat measures.  With -i, -c and -p are
 * filters (-p: that process's threads).
 *
 * Every --interval of trace time the consumer takes a snapshot of the
 * analysis, prints its histograms and resets it (a wait or a request
 * counts in the interval it ends in); --count N stops after N.  Output
 * through the one table writer: bcc's log2 histograms as text, or JSON
 * lines, one histogram per line.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>
#include <strobe/pipeline.h>
#include <strobe/model.h>

#include "cli.h"

enum tool { T_RUNQ, T_BIO };

/* Fill *err (code, message); returns code. */
static int fail(struct strobe_error *err, int code, const char *msg)
{
	err->code = code;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	return code;
}

struct hist_run {
	const char *cmd;
	enum tool tool;
	struct strobe_analysis *an;
	struct strobe_consumer inner;	/* strobe_analysis_consumer's */
	const struct cli_target *live;	/* NULL: a file */
	const struct strobe_record_result *res;
	int pid;			/* live -p */
	bool json, times;
	int count;			/* intervals to print, 0 = no limit */
	int printed;			/* intervals printed */
	bool interval;			/* --interval given */
	bool stopping;			/* --count reached */
	uint64_t measured;		/* measurements in what was printed */
	struct strobe_buf *out;
};

/* Print the histograms of a's latest build (a snapshot or finish). */
static int print_hists(struct hist_run *h)
{
	int i, n = strobe_analysis_nr_tables(h->an);
	uint64_t here = 0;
	size_t r;

	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(h->an, i);

		if (strobe_table_view(t) != STROBE_VIEW_FREQ)
			continue;	/* no rows: the schema of the histograms */
		for (r = 0; r < strobe_table_nr_rows(t); r++)
			here += (uint64_t)strobe_table_row(t, r)[2].i;
	}
	if (h->times && !h->json) {
		time_t now = time(NULL);
		struct tm tm;
		char buf[32];

		localtime_r(&now, &tm);
		strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		strobe_buf_printf(h->out, "%s\n", buf);
	}
	for (i = 0; i < n; i++) {
		const struct strobe_table *t = strobe_analysis_table(h->an, i);

		if (strobe_table_view(t) != STROBE_VIEW_FREQ || !strobe_table_nr_rows(t))
			continue;
		if (h->json) {
			size_t len;

			strobe_table_write_json(t, h->out);
			len = strobe_buf_len(h->out);
			if (h->interval && len >= 2) {	/* ...}\n: one more key */
				strobe_buf_truncate(h->out, len - 2);
				strobe_buf_printf(h->out, ",\"interval\":%d}\n", h->printed + 1);
			}
		} else {
			strobe_table_write_text(t, h->out);
		}
	}
	if (!here && !h->json && h->interval)
		strobe_buf_printf(h->out, "(nothing measured in this interval)\n\n");
	h->measured += here;
	h->printed++;
	if (strobe_buf_failed(h->out))
		return -ENOMEM;
	return cli_flush(h->out) && !fflush(stdout) ? 0 : -EPIPE;
}

/* Live, the whole machine is recorded: a command or -p's process is the
 * analysis' "command-all" target (it and what it forks, selected in user
 * space); -c is a filter. */
static int live_target(struct hist_run *h, struct strobe_error *err)
{
	char pids[32];

	if (!h->live->o.argv && h->pid <= 0)
		return 0;
	snprintf(pids, sizeof(pids), "%d", h->live->o.argv ? (int)h->res->child_pid : h->pid);
	return strobe_analysis_set_target(h->an, "command-all", pids, NULL, err);
}

static int run_start(const struct strobe_pipeline_source *src, int nr, void *arg,
		     struct strobe_error *err)
{
	struct hist_run *h = arg;
	int ret;

	if (h->live && nr > 0) {
		ret = live_target(h, err);
		if (ret < 0)
			return ret;
	}
	return h->inner.start(src, nr, h->inner.arg, err);
}

static int run_event(const struct strobe_event *ev, int source, void *arg,
		     struct strobe_error *err)
{
	struct hist_run *h = arg;

	if (h->stopping)
		return STROBE_CONSUMER_DONE;
	return h->inner.event(ev, source, h->inner.arg, err);
}

/* Every --interval: the interval's histograms, then a new interval. */
static int run_tick(uint64_t ts, void *arg, struct strobe_error *err)
{
	struct hist_run *h = arg;
	int ret;

	if (h->stopping)
		return 0;
	ret = strobe_analysis_snapshot(h->an, ts, err);
	if (ret == -EINVAL)
		return 0;	/* no event yet: nothing attached */
	if (ret < 0)
		return ret;
	ret = print_hists(h);
	if (ret < 0)
		return fail(err, ret, strerror(-ret));
	ret = strobe_analysis_reset(h->an, ts, err);
	if (ret < 0)
		return ret;
	if (h->count && h->printed >= h->count) {
		h->stopping = true;
		if (h->live)
			*cli_target_stop_flag() = SIGINT;
	}
	return 0;
}

static int run_finish(void *arg, struct strobe_error *err)
{
	struct hist_run *h = arg;
	int ret = h->inner.finish(h->inner.arg, err);

	if (ret < 0 || h->stopping)
		return ret;
	ret = print_hists(h);	/* the whole run, or the last interval */
	return ret < 0 ? fail(err, ret, strerror(-ret)) : 0;
}

static void make_consumer(struct hist_run *h, struct strobe_consumer *c)
{
	strobe_analysis_consumer(h->an, 0, &h->inner);
	*c = h->inner;
	c->name = h->cmd;
	c->start = run_start;
	c->event = run_event;
	c->tick = run_tick;
	c->finish = run_finish;
	c->arg = h;
}

static void usage(FILE *f, const char *cmd, enum tool tool)
{
	if (tool == T_RUNQ)
		fprintf(f,
			"usage: strobe runqlat [options] [-- COMMAND [ARGS...]]\n"
			"       strobe runqlat -i FILE [options]\n"
			"\n"
			"Run-queue latency as bcc's runqlat, per container: how long tasks wait\n"
			"for a CPU, from sched_wakeup or sched_wakeup_new, or from a switch-out\n"
			"while runnable (preempted), to the next switch-in; log2 histograms at the\n"
			"end or every --interval.  From tracefs: the same figures as 'strobe\n"
			"schedlat' (wake-ups plus preempted waits) on a file of the same events.\n"
			"The whole machine's scheduler events are traced; -c, -p and a command\n"
			"select the tasks.\n"
			"\n"
			"Options:\n"
			"  -m, --milliseconds       histograms of milliseconds (msecs)\n"
			"  -P, --pids               a histogram per process\n"
			"  -L, --tids               a histogram per thread\n"
			"      --pidnss             a histogram per PID namespace\n"
			"      --per-container      a histogram per container\n"
			"  -c, --container NAME|ID  only this container's tasks (repeatable)\n"
			"  -p, --pid PID            only this process and what it forks from now on\n"
			"                           (with -i: only its threads)\n");
	else
		fprintf(f,
			"usage: strobe biolatency [options] [-- COMMAND [ARGS...]]\n"
			"       strobe biolatency -i FILE [options]\n"
			"\n"
			"Block request latency as bcc's biolatency, per container: from\n"
			"block_rq_issue (or block_rq_insert with -Q) to block_rq_complete; log2\n"
			"histograms at the end or every --interval.  A request is charged to the\n"
			"task that queued it, as 'strobe io' charges it: the same figures as\n"
			"'strobe io' on a file of the same events.  The whole machine is traced\n"
			"(block requests complete in any task's context); -c, -p and a command\n"
			"select the requests' owners.\n"
			"\n"
			"Options:\n"
			"  -m, --milliseconds       histograms of milliseconds (msecs)\n"
			"  -D, --disks              a histogram per disk (major:minor)\n"
			"  -F, --flags              a histogram per I/O flags (rwbs: R, WS, FWS ...)\n"
			"  -Q, --queued             include the time queued in the kernel (from\n"
			"                           block_rq_insert)\n"
			"      --per-container      a histogram per container of the requests' owners\n"
			"  -c, --container NAME|ID  only requests of this container (repeatable)\n"
			"  -p, --pid PID            only requests of this process and what it forks\n"
			"                           from now on (with -i: only its threads)\n");
	fprintf(f,
		"  -T, --timestamp          print the time of each interval\n"
		"      --interval SECS      print every SECS of trace time (then reset)\n"
		"      --count N            stop after N intervals\n"
		"  -d, --duration SECS      stop after SECS\n"
		"  -o, --output FILE        keep the trace in FILE too (default: no file)\n"
		"      --json               JSON lines: one histogram per line\n"
		"  -i, --input FILE         read a recording instead of tracing\n"
		"      --strict             fail on damaged data (strobe-damage(7))\n"
		"  -h, --help               this help\n"
		"\n"
		"Examples:\n");
	if (tool == T_RUNQ)
		fprintf(f,
			"  strobe runqlat -c web -d 10           container web, 10 s\n"
			"  strobe runqlat --per-container --interval 1 --count 5\n"
			"  strobe runqlat -P --json -i run.dat   per process, of a recording\n");
	else
		fprintf(f,
			"  strobe biolatency -D -d 10            per disk, 10 s\n"
			"  strobe biolatency -c db -Q --interval 1 --count 5\n"
			"  strobe biolatency --per-container --json -i run.dat\n");
}

/* Add the events of tool to t (those this kernel has, for writeback). */
static int add_events(struct cli_target *t, enum tool tool)
{
	static const char *const runq[] = { "sched:sched_switch", "sched:sched_wakeup",
					    "sched:sched_wakeup_new", NULL };
	static const char *const bio[] = {
		"block:block_rq_issue", "block:block_rq_complete", "block:block_rq_insert",
		"block:block_bio_queue", "writeback:writeback_dirty_folio",
		"writeback:writeback_dirty_inode", "writeback:writeback_dirty_inode_enqueue",
		"writeback:writeback_single_inode_start", "writeback:writeback_single_inode",
		NULL };
	const char *const *e;
	char path[160];
	int i = 0;

	for (e = tool == T_RUNQ ? runq : bio; *e; e++, i++) {
		const char *colon = strchr(*e, ':');

		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%.*s/%s",
			 (int)(colon - *e), *e, colon + 1);
		if (i >= 2 && access(path, F_OK) != 0)
			continue;	/* the pairing's own two are required */
		if (cli_target_add_event(t, *e) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int hist_main(const char *cmd, enum tool tool, int argc, char **argv)
{
	enum { O_JSON = 256, O_STRICT, O_PIDNSS, O_PER_CONT, O_INTERVAL, O_COUNT };
	static const struct option longopts[] = {
		{ "milliseconds", no_argument, NULL, 'm' },
		{ "pids", no_argument, NULL, 'P' },
		{ "tids", no_argument, NULL, 'L' },
		{ "pidnss", no_argument, NULL, O_PIDNSS },
		{ "disks", no_argument, NULL, 'D' },
		{ "flags", no_argument, NULL, 'F' },
		{ "queued", no_argument, NULL, 'Q' },
		{ "per-container", no_argument, NULL, O_PER_CONT },
		{ "container", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "count", required_argument, NULL, O_COUNT },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, O_JSON },
		{ "input", required_argument, NULL, 'i' },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strobe_analysis_opts o = { .size = sizeof(o), .views = STROBE_VIEW_FREQ,
					  .group_by = STROBE_GROUP_ALL };
	struct hist_run h = { .cmd = cmd, .tool = tool };
	struct cli_target t = { 0 };
	struct strobe_record_result res;
	struct strobe_error err = { 0, "" };
	struct strobe_consumer c;
	const char *input = NULL, *conts[64];
	int nconts = 0, pids[1], grouped = 0, ch, r, i, ret = CLI_USAGE;
	double interval = 0;
	bool strict = false;
	char **target_argv = NULL;
	const char *shorts = tool == T_RUNQ ? "+mPLc:p:Td:o:i:h" : "+mDFQc:p:Td:o:i:h";

	memset(&res, 0, sizeof(res));
	target_argv = cli_split_command(&argc, argv);
	optind = 1;
	while ((ch = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		bool runq_only = ch == 'P' || ch == 'L' || ch == O_PIDNSS;
		bool bio_only = ch == 'D' || ch == 'F' || ch == 'Q';

		if ((tool == T_RUNQ && bio_only) || (tool == T_BIO && runq_only)) {
			cli_error(cmd, "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
		switch (ch) {
		case 'm':
			o.freq_msecs = true;
			break;
		case 'P':
			o.group_by = STROBE_GROUP_PROCESS;
			grouped++;
			break;
		case 'L':
			o.group_by = STROBE_GROUP_THREAD;
			grouped++;
			break;
		case O_PIDNSS:
			o.group_by = STROBE_GROUP_PIDNS;
			grouped++;
			break;
		case O_PER_CONT:
			o.group_by = STROBE_GROUP_CONTAINER;
			grouped++;
			break;
		case 'D':
			o.per_disk = true;
			break;
		case 'F':
			o.per_flags = true;
			break;
		case 'Q':
			o.queued = true;
			break;
		case 'T':
			h.times = true;
			break;
		case O_JSON:
			h.json = true;
			break;
		case O_STRICT:
			strict = true;
			break;
		case 'i':
			input = optarg;
			break;
		case O_INTERVAL:
			if (cli_parse_seconds(optarg, &interval) < 0 || interval < 0.001) {
				cli_error(cmd, "bad value '%s' for --interval (seconds, at least "
					  "0.001)", optarg);
				goto out;
			}
			h.interval = true;
			break;
		case O_COUNT:
			if (cli_parse_int(optarg, 1, 1 << 30, &h.count) < 0) {
				cli_error(cmd, "bad value '%s' for --count", optarg);
				goto out;
			}
			break;
		case 'h':
			usage(stdout, cmd, tool);
			ret = CLI_OK;
			goto out;
		case 'c':	/* a filter: see the head */
			if (nconts == 64) {
				cli_error(cmd, "at most 64 containers");
				goto out;
			}
			conts[nconts++] = optarg;
			break;
		case 'p':
			if (h.pid || cli_parse_int(optarg, 1, 1 << 30, &h.pid) < 0) {
				cli_error(cmd, "bad value '%s' for -p (one PID)", optarg);
				goto out;
			}
			break;
		case 'd':
		case 'o':
			r = cli_target_option(&t, cmd, ch, optarg);
			if (r < 0) {
				ret = r == -ENOMEM ? CLI_FAIL : CLI_USAGE;
				goto out;
			}
			break;
		default:
			usage(stderr, cmd, tool);
			goto out;
		}
	}
	if (optind < argc) {
		cli_error(cmd, "unexpected argument '%s' (a command goes after --)", argv[optind]);
		goto out;
	}
	if (grouped > 1) {
		cli_error(cmd, "one of %s at most", tool == T_RUNQ
			  ? "-P, -L, --pidnss and --per-container" : "--per-container");
		goto out;
	}
	if (h.count && !h.interval) {
		cli_error(cmd, "--count needs --interval");
		goto out;
	}
	if (target_argv && !target_argv[0]) {
		cli_error(cmd, "no command after --");
		goto out;
	}
	if (nconts) {
		o.containers = conts;
		o.nr_containers = nconts;
	}
	if (input && (t.given || target_argv)) {
		cli_error(cmd, "-i reads a recording: no -d, -o or command with it");
		goto out;
	}
	if (h.pid && target_argv) {
		cli_error(cmd, "either a command or -p PID");
		goto out;
	}
	if (input && h.pid) {	/* a file: that process's threads */
		pids[0] = h.pid;
		o.pids = pids;
		o.nr_pids = 1;
	}
	ret = CLI_FAIL;
	r = strobe_analysis_new(tool == T_RUNQ ? "runqlat" : "biolatency", &o, &h.an, &err);
	if (r < 0) {
		cli_error_e(cmd, &err);
		goto out;
	}
	h.out = cli_buf_new();
	make_consumer(&h, &c);
	if (input) {
		struct strobe_pipeline_opts po = {
			.size = sizeof(po), .strict = strict,
			.tick_ns = (uint64_t)llround(interval * 1e9),
		};

		if (cli_run_file(cmd, input, &po, &c) < 0)
			goto out;
	} else {
		pid_t cont_pids[64];

		/* -c: the container must run now (the filter would else
		 * match nothing, silently) */
		if (nconts && cli_container_pids(cmd, conts, (size_t)nconts, cont_pids) < 0)
			goto out;
		if (h.pid && kill(h.pid, 0) < 0 && errno == ESRCH) {
			cli_error(cmd, "no process %d", h.pid);
			goto out;
		}
		if (cli_target_finish(&t, cmd, target_argv) < 0) {
			ret = CLI_USAGE;
			goto out;
		}
		t.o.argv_whole_system = true;	/* see the head */
		t.o.keep_self = true;		/* no syscall events: none to leave out */
		if (add_events(&t, tool) < 0) {
			cli_error(cmd, "out of memory");
			goto out;
		}
		t.o.events = t.ev;
		t.o.nr_events = t.nev;
		t.o.no_output = !t.o.output;	/* -o FILE: the trace is kept too */
		t.o.consumers = &c;
		t.o.nr_consumers = 1;
		t.o.tick_ns = (uint64_t)llround(interval * 1e9);
		h.live = &t;
		h.res = &res;
		r = cli_target_record(&t, &res, &err);
		if (r < 0 && res.exec_errno) {
			cli_error_e(cmd, &err);
			ret = res.exec_errno == ENOENT ? 127 : 126;
			goto out;
		}
		if (r < 0) {
			if (r != -EPIPE)
				cli_error_e(cmd, &err);
			goto out;
		}
		if (res.stream_missed)
			cli_warn(cmd, "%llu events were lost (the kernel's buffer or strobe fell "
				 "behind): the histograms are short of them; a bigger -b may help",
				 (unsigned long long)res.stream_missed);
	}
	for (i = 0; i < strobe_analysis_nr_notes(h.an); i++)
		cli_warn(cmd, "%s", strobe_analysis_note(h.an, i));
	if (!h.printed) {
		cli_error(cmd, "no events were read: nothing measured");
		goto out;
	}
	if (!h.measured)
		cli_warn(cmd, "nothing was measured: %s", tool == T_RUNQ
			 ? "no traced task waited for a CPU (no wake-up or preemption was "
			   "followed by its switch-in)"
			 : "no block request of the selected tasks completed");
	ret = CLI_OK;
out:
	strobe_record_result_free(&res);
	strobe_analysis_free(h.an);
	if (h.out)
		strobe_buf_free(h.out);
	cli_target_free(&t);
	return ret;
}

int cmd_runqlat(int argc, char **argv)
{
	return hist_main("runqlat", T_RUNQ, argc, argv);
}

int cmd_biolatency(int argc, char **argv)
{
	return hist_main("biolatency", T_BIO, argc, argv);
}
