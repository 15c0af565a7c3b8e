/*
 * cmd-profile.c - `strobe profile`: where the CPU time of the system, a
 * container, a process or a command goes, by function and stack.
 *
 * A consumer of one pipeline like every command: the perf sampling
 * source (profile.h: cpu-clock at -F Hz with kernel and user call
 * chains) is merged into a live recording (strobe_record with
 * add_records, no file) whose tracefs events are only the task model's,
 * so comms and container names come from the same model as everywhere
 * else; the session runs on the "mono" trace clock, the clock the
 * samples carry.  The profile consumer names the frames (symbols.h:
 * through each process's own root, so a binary that exists only in a
 * container is named) and folds them.
 *
 * Output: the top functions (self and total samples) through the table
 * writer; --folded stacks; -o OUT.svg, a flame graph through the one
 * flame-graph writer (containers at the root when grouping by
 * container); --json.  --interval SECS refreshes like `strobe top`: the
 * profile consumer hands over what each interval of trace time folded
 * at the pipeline's tick and starts again, and each interval's table
 * (or JSON document, or folded block) is printed then; --count N stops
 * after N of them.
 *
 * -i FILE reads the samples of a recording instead (strobe record
 * --profile stores them in its strobe_perf buffer, with the mappings,
 * execs and forks the perf source saw, which name user frames after the
 * processes are gone).  The run, live or from a file, is the library's
 * (strobe_profile_run, shared with strobe.profile()); this file parses
 * the options and writes what the run folded.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>
#include <strobe/model.h>
#include <strobe/output.h>
#include <strobe/pictures.h>
#include <strobe/pipeline.h>
#include <strobe/profile.h>
#include <strobe/record.h>
#include <strobe/symbols.h>
#include <strobe/table.h>

#include "cli.h"

#define CMD "profile"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe profile [options] [-c NAME|ID ... | -p PID | -- CMD [ARGS]]\n"
		"\n"
		"Sample where the CPU time goes (perf_event_open, cpu-clock, kernel and user\n"
		"call chains through frame pointers) on the whole system, in containers, in a\n"
		"process and its descendants, or in a command; name the functions through\n"
		"each process's own root file system (binaries that exist only in a\n"
		"container are named) and print the top functions, folded stacks or a\n"
		"flame graph.\n"
		"\n"
		"Target (one of; none: the whole system):\n"
		"  -c, --container NAME|ID  the tasks of this container (repeatable)\n"
		"  -p, --pid PID            this process and what it starts\n"
		"  -- CMD [ARGS]            run CMD and profile it until it exits\n"
		"\n"
		"Options:\n"
		"  -F, --freq HZ            samples per second per CPU (default 99)\n"
		"  -d, --duration S         stop after S seconds (else at Ctrl-C or the\n"
		"                           command's exit)\n"
		"  -e, --event EVENT        cpu-clock (default) or cycles (hardware)\n"
		"  -g, --group-by G         root frames: container (default: container;comm),\n"
		"                           process (comm), thread (comm-TID), none\n"
		"      --no-kernel          leave kernel frames out\n"
		"  -n, --top N              functions in the table (default 20, 0: all)\n"
		"      --folded             print folded stacks (flamegraph.pl's input)\n"
		"  -o, --output FILE.svg    write a flame graph\n"
		"      --title TEXT         the flame graph's title\n"
		"      --json               one JSON object: samples, functions, stacks\n"
		"  -i, --input FILE         the samples of a recording (strobe record\n"
		"                           --profile) instead of sampling now\n"
		"      --interval SECS      refresh: print each interval's profile (its own\n"
		"                           samples only) every SECS seconds (0.1 to 3600)\n"
		"      --count N            with --interval: stop after N refreshes\n"
		"  -q, --quiet              no summary on stderr\n"
		"  -h, --help               this help\n"
		"\n"
		"Call chains use frame pointers (--call-graph dwarf is not done yet): code\n"
		"built without them shows its innermost function only.\n"
		"\n"
		"Examples:\n"
		"  strobe profile -c web -d 10\n"
		"  strobe profile -c web -d 10 -o web.svg\n"
		"  strobe profile -F 999 --folded -- ./bench > out.folded\n"
		"  strobe profile -c web --interval 2 --count 5 -n 10\n"
		"  strobe record --profile -o t.dat -- ./bench; strobe profile -i t.dat\n");
}

static int write_out(const char *path, struct strobe_buf *b)
{
	FILE *f;
	size_t n = strobe_buf_len(b);

	if (!path)
		return cli_flush(b) ? 0 : -EIO;
	f = fopen(path, "we");
	if (!f) {
		cli_error(CMD, "cannot create '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (fwrite(strobe_buf_data(b), 1, n, f) != n || fclose(f) != 0) {
		int e = errno;

		cli_error(CMD, "cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/* {PREFIX"samples":N,"lost":L,"freq":F,"functions":TABLE,
 *  "stacks":[{"stack":..,"samples":n}]}; prefix "" or members ending in ',' */
static int write_json(struct strobe_profile *prof, const struct strobe_table *tab,
		      uint64_t lost, unsigned freq, const char *prefix, struct strobe_buf *b)
{
	struct strobe_buf *folded = cli_buf_new(), *tj = cli_buf_new();
	const char *p, *end, *nl;
	bool first = true;
	size_t tl;
	int r;

	r = strobe_flame_write_folded(strobe_profile_flame(prof), folded);
	if (r == 0)
		r = strobe_table_write_json(tab, tj);
	if (r < 0)
		goto out;
	tl = strobe_buf_len(tj);
	while (tl && strobe_buf_data(tj)[tl - 1] == '\n')
		tl--;
	/* freq 0: a recording's samples, whose rate the file does not say */
	strobe_buf_printf(b, "{%s\"samples\":%llu,\"lost\":%llu,\"freq\":", prefix,
			  (unsigned long long)strobe_profile_samples(prof),
			  (unsigned long long)lost);
	if (freq)
		strobe_buf_printf(b, "%u", freq);
	else
		strobe_buf_printf(b, "null");
	strobe_buf_printf(b, ",\"functions\":%.*s,\"stacks\":[", (int)tl, strobe_buf_data(tj));
	p = strobe_buf_data(folded);
	end = p + strobe_buf_len(folded);
	for (; p < end; p = nl + 1) {
		const char *sp;
		char esc[16384];

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		sp = nl;
		while (sp > p && sp[-1] != ' ')
			sp--;
		if (sp <= p)
			continue;
		strobe_json_escape_buf(esc, sizeof(esc), p, (size_t)(sp - 1 - p));
		strobe_buf_printf(b, "%s{\"stack\":%s,\"samples\":%.*s}", first ? "" : ",", esc,
				  (int)(nl - sp), sp);
		first = false;
	}
	strobe_buf_printf(b, "]}\n");
out:
	strobe_buf_free(folded);
	strobe_buf_free(tj);
	return r;
}

/* --interval: what the refreshes need and count */
struct refresh {
	bool folded, json;
	int top, freq;
	int count;			/* stop after this many (0: no limit) */
	int done;			/* refreshes printed */
	uint64_t shown;			/* samples of the refreshes printed */
	uint64_t lost_before;		/* lost samples up to the last refresh */
	struct strobe_buf *b;
	bool failed_out;
};

/* The profile consumer's on_interval: print this interval's profile. */
static int on_refresh(struct strobe_profile *prof, uint64_t start, uint64_t end, bool final,
		      void *arg)
{
	struct refresh *rf = arg;
	struct strobe_table *tab = NULL;
	struct strobe_error err = { 0, "" };
	uint64_t n = strobe_profile_samples(prof), lost;
	double secs = start && end > start ? (double)(end - start) / 1e9 : 0;
	char prefix[128];
	int r;

	if (rf->count && rf->done >= rf->count)
		return 0;
	rf->shown += n;
	lost = strobe_profile_lost(prof) - rf->lost_before;
	rf->lost_before += lost;
	r = strobe_profile_table(prof, rf->json ? 0 : rf->top, &tab, &err);
	if (r < 0)
		return r;
	rf->done++;
	if (rf->folded) {
		strobe_buf_printf(rf->b, "%s# interval %d: %llu samples%s\n", rf->done > 1 ? "\n" : "",
				  rf->done, (unsigned long long)n, final ? " (the last, partial)" : "");
		r = strobe_flame_write_folded(strobe_profile_flame(prof), rf->b);
	} else if (rf->json) {
		snprintf(prefix, sizeof(prefix), "\"interval\":%d,\"final\":%s,", rf->done,
			 final ? "true" : "false");
		r = write_json(prof, tab, lost, (unsigned)rf->freq, prefix, rf->b);
	} else {
		strobe_buf_printf(rf->b, "interval %d", rf->done);
		if (secs > 0)
			strobe_buf_printf(rf->b, "  %.2f s", secs);
		strobe_buf_printf(rf->b, "  %llu samples at %d Hz, %llu lost%s\n",
				  (unsigned long long)n, rf->freq, (unsigned long long)lost,
				  final ? " (the last, partial interval)" : "");
		r = strobe_table_write_text(tab, rf->b);
	}
	strobe_table_free(tab);
	if (r < 0)
		return r;
	if (!cli_flush(rf->b) || fflush(stdout)) {
		rf->failed_out = true;
		return -EPIPE;
	}
	if (rf->count && rf->done >= rf->count)
		*cli_target_stop_flag() = -1;	/* the recording ends, drained */
	return 0;
}

/* The run, as cli_target_run's recording (signals stop it). */
struct live_run {
	struct strobe_profile *prof;
	struct strobe_profile_run_opts ro;
	struct strobe_profile_run_result *res;
};

static int run_live(const struct strobe_record_opts *o, void *arg, struct strobe_error *err)
{
	struct live_run *lr = arg;

	lr->ro.record = o;
	return strobe_profile_run(lr->prof, &lr->ro, lr->res, err);
}

int cmd_profile(int argc, char **argv)
{
	enum { O_FOLDED = 256, O_JSON, O_NO_KERNEL, O_TITLE, O_INTERVAL, O_COUNT };
	static const struct option longopts[] = {
		{ "container", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "freq", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "event", required_argument, NULL, 'e' },
		{ "group-by", required_argument, NULL, 'g' },
		{ "no-kernel", no_argument, NULL, O_NO_KERNEL },
		{ "top", required_argument, NULL, 'n' },
		{ "folded", no_argument, NULL, O_FOLDED },
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, O_TITLE },
		{ "json", no_argument, NULL, O_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "input", required_argument, NULL, 'i' },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "count", required_argument, NULL, O_COUNT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = NULL;
	struct cli_target t;
	struct strobe_profile_run_result res;
	struct live_run lr = { .ro = { .size = sizeof(lr.ro) }, .res = &res };
	struct strobe_error err = { 0, "" };
	const char *event = NULL;
	struct strobe_symbols *syms = NULL;
	struct strobe_profile *prof = NULL;
	struct strobe_profile_opts pro = { .size = sizeof(pro) };
	struct strobe_flame_svg_opts so = { .size = sizeof(so), .colors = STROBE_FLAME_ONCPU };
	struct strobe_table *tab = NULL;
	struct strobe_buf *b = NULL;
	const char *output = NULL, *title = NULL;
	char **target_argv = NULL;
	bool folded = false, json = false, quiet = false;
	int ch, r, ret = CLI_FAIL, freq = 99, top = 20, count = -1;
	double interval = 0;
	struct refresh rf;
	char subtitle[512];

	memset(&t, 0, sizeof(t));
	memset(&res, 0, sizeof(res));
	memset(&rf, 0, sizeof(rf));
	pro.group_by = STROBE_FLAME_BY_CONTAINER;
	target_argv = cli_split_command(&argc, argv);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+c:p:F:d:e:g:n:o:qi:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			input = optarg;
			break;
		case 'F':
			if (cli_parse_int(optarg, 1, 100000, &freq) < 0) {
				cli_error(CMD, "bad frequency '%s' (samples per second, 1-100000)",
					  optarg);
				ret = CLI_USAGE;
				goto out;
			}
			break;
		case 'e':
			if (strcmp(optarg, "cpu-clock") && strcmp(optarg, "cycles")) {
				cli_error(CMD, "unknown event '%s' (cpu-clock or cycles)", optarg);
				ret = CLI_USAGE;
				goto out;
			}
			event = optarg;
			break;
		case 'g':
			if (!strcmp(optarg, "container"))
				pro.group_by = STROBE_FLAME_BY_CONTAINER;
			else if (!strcmp(optarg, "process"))
				pro.group_by = STROBE_FLAME_BY_PROCESS;
			else if (!strcmp(optarg, "thread"))
				pro.group_by = STROBE_FLAME_BY_THREAD;
			else if (!strcmp(optarg, "none"))
				pro.group_by = STROBE_FLAME_BY_NONE;
			else {
				cli_error(CMD, "unknown grouping '%s' (container, process, thread, "
					  "none)", optarg);
				ret = CLI_USAGE;
				goto out;
			}
			break;
		case 'n':
			if (cli_parse_int(optarg, 0, 1 << 30, &top) < 0) {
				cli_error(CMD, "bad number of functions '%s'", optarg);
				ret = CLI_USAGE;
				goto out;
			}
			break;
		case O_NO_KERNEL:
			pro.no_kernel = true;
			break;
		case O_FOLDED:
			folded = true;
			break;
		case 'o':
			if (!*optarg) {
				cli_error(CMD, "empty output file name");
				ret = CLI_USAGE;
				goto out;
			}
			output = optarg;
			break;
		case O_TITLE:
			title = optarg;
			break;
		case O_JSON:
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case O_INTERVAL:
			if (cli_parse_seconds(optarg, &interval) < 0 || interval < 0.1 ||
			    interval > 3600) {
				cli_error(CMD, "bad interval '%s' (seconds, 0.1 to 3600)", optarg);
				ret = CLI_USAGE;
				goto out;
			}
			break;
		case O_COUNT:
			if (cli_parse_int(optarg, 1, 1 << 30, &count) < 0) {
				cli_error(CMD, "bad count '%s' (refreshes, 1 or more)", optarg);
				ret = CLI_USAGE;
				goto out;
			}
			break;
		case 'h':
			usage(stdout);
			ret = CLI_OK;
			goto out;
		case 'c':
		case 'p':
		case 'd':
			r = cli_target_option(&t, CMD, ch, optarg);
			if (r < 0) {
				ret = CLI_USAGE;
				goto out;
			}
			break;
		default:
			usage(stderr);
			ret = CLI_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		cli_error(CMD, "unexpected argument '%s' (a command goes after --)", argv[optind]);
		ret = CLI_USAGE;
		goto out;
	}
	if (target_argv && !target_argv[0]) {
		cli_error(CMD, "no command after --");
		ret = CLI_USAGE;
		goto out;
	}
	if ((folded && json) || (folded && output) || (json && output)) {
		cli_error(CMD, "give one of --folded, --json and -o");
		ret = CLI_USAGE;
		goto out;
	}
	if (count > 0 && interval <= 0) {
		cli_error(CMD, "--count needs --interval");
		ret = CLI_USAGE;
		goto out;
	}
	if (interval > 0 && (output || input)) {
		cli_error(CMD, "--interval prints each refresh: not with %s",
			  output ? "-o (one flame graph of the whole run)" : "-i (a recording)");
		ret = CLI_USAGE;
		goto out;
	}
	if (input && (t.given || target_argv)) {
		cli_error(CMD, "-i reads a recording: no -c, -p, -d or command with it");
		ret = CLI_USAGE;
		goto out;
	}
	if (!input && cli_target_finish(&t, CMD, target_argv) < 0) {
		ret = CLI_USAGE;
		goto out;
	}
	if (strobe_symbols_new(NULL, &syms, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	pro.symbols = syms;
	if (interval > 0) {
		rf.folded = folded;
		rf.json = json;
		rf.top = top;
		rf.freq = freq;
		rf.count = count > 0 ? count : 0;
		rf.b = b = cli_buf_new();
		pro.on_interval = on_refresh;
		pro.arg = &rf;
		t.o.tick_ns = (uint64_t)(interval * 1e9);
	}
	if (strobe_profile_new(&pro, &prof, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	lr.prof = prof;
	lr.ro.input = input;
	lr.ro.freq = (unsigned)freq;
	lr.ro.event = event;
	if (input)
		r = strobe_profile_run(prof, &lr.ro, &res, &err);
	else
		r = cli_target_run(&t, run_live, &lr, &err);
	if (rf.b)
		cli_flush(rf.b);
	if (rf.failed_out)
		goto out;	/* main says stdout failed */
	if (res.pipeline)	/* what the file's reading skipped */
		cli_pipeline_diags(CMD, res.pipeline, false);
	if (r < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	if (interval > 0) {
		if (!res.samples) {
			cli_error(CMD, "no samples (the target used no CPU%s)",
				  t.o.duration > 0 ? " in that time" : "");
			goto out;
		}
		if (!quiet) {
			/* the perf source's count: the refreshes add up to it,
			 * unless --count ended the run (the rest is not shown) */
			fprintf(stderr, "strobe profile: %llu samples in %d refreshes, %llu lost",
				(unsigned long long)res.samples, rf.done,
				(unsigned long long)res.lost);
			if (res.samples > rf.shown)
				fprintf(stderr, "; %llu after the last refresh not shown",
					(unsigned long long)(res.samples - rf.shown));
			fprintf(stderr, "\n");
		}
		if (res.lost)
			cli_warn(CMD, "%llu samples lost: the perf rings were full",
				 (unsigned long long)res.lost);
		ret = CLI_OK;
		goto out;
	}
	if (!strobe_profile_samples(prof)) {
		cli_error(CMD, "no samples (the target used no CPU%s)",
			  t.o.duration > 0 ? " in that time" : "");
		goto out;
	}
	b = cli_buf_new();
	if (strobe_profile_table(prof, json ? 0 : top, &tab, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	if (folded) {
		r = strobe_flame_write_folded(strobe_profile_flame(prof), b);
	} else if (json) {
		r = write_json(prof, tab, res.lost, input ? 0 : (unsigned)freq, "", b);
	} else if (output) {
		if (input)
			snprintf(subtitle, sizeof(subtitle), "%llu samples of %s",
				 (unsigned long long)strobe_profile_samples(prof), input);
		else
			snprintf(subtitle, sizeof(subtitle), "%llu samples at %d Hz%s%s",
				 (unsigned long long)strobe_profile_samples(prof), freq,
				 t.o.nr_containers ? ", container " : "",
				 t.o.nr_containers ? t.o.containers[0] : "");
		so.title = title ? title : "CPU Flame Graph";
		so.subtitle = subtitle;
		so.root_levels = pro.group_by == STROBE_FLAME_BY_CONTAINER ? 2 :
				 pro.group_by == STROBE_FLAME_BY_NONE ? 0 : 1;
		r = strobe_flame_write_svg(strobe_profile_flame(prof), &so, b, &err);
		if (r < 0) {
			cli_error_e(CMD, &err);
			goto out;
		}
	} else {
		if (input)
			strobe_buf_printf(b, "%llu samples of %s, %llu lost\n",
					  (unsigned long long)strobe_profile_samples(prof), input,
					  (unsigned long long)res.lost);
		else
			strobe_buf_printf(b, "%llu samples at %d Hz, %llu lost\n",
					  (unsigned long long)strobe_profile_samples(prof), freq,
					  (unsigned long long)res.lost);
		r = strobe_table_write_text(tab, b);
	}
	if (r < 0) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	if (write_out(output, b) < 0)
		goto out;
	if (!quiet && (folded || json || output)) {
		struct strobe_symbols_stats ss;

		strobe_symbols_stats(syms, &ss);
		fprintf(stderr, "strobe profile: %llu samples, %zu stacks, %llu lost; %llu files "
			"read for symbols (%llu debug files, %llu perf maps, %llu unreadable); "
			"%llu processes' maps, %llu dropped after exit%s%s\n",
			(unsigned long long)strobe_profile_samples(prof),
			strobe_flame_nr_stacks(strobe_profile_flame(prof)),
			(unsigned long long)res.lost, (unsigned long long)ss.files,
			(unsigned long long)ss.debug_files, (unsigned long long)ss.perf_maps,
			(unsigned long long)ss.files_failed, (unsigned long long)ss.processes,
			(unsigned long long)ss.processes_dropped, output ? ": " : "",
			output ? output : "");
	}
	if (res.lost)
		cli_warn(CMD, "%llu samples lost: the perf rings were full",
			 (unsigned long long)res.lost);
	ret = CLI_OK;
out:
	strobe_profile_run_result_free(&res);
	strobe_table_free(tab);
	strobe_buf_free(b);
	strobe_profile_free(prof);
	strobe_symbols_free(syms);
	cli_target_free(&t);
	return ret;
}
