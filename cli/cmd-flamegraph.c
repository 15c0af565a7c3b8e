/*
 * cmd-flamegraph.c - `strobe flamegraph`: off-CPU time by stack from a
 * recording made with `strobe record --stacks`, as folded stacks
 * (Brendan Gregg's format, for flamegraph.pl, speedscope, ...) or as one
 * self-contained interactive SVG.  The folding is the library's
 * (strobe_offcpu_*, a consumer of the one pipeline), the drawing its one
 * flame-graph writer (strobe_flame_write_svg); this file parses options,
 * runs the pipeline over the file and writes the result.  On-CPU flame
 * graphs are drawn from the perf samples of a recording made with
 * `strobe record --profile`: --on-cpu hands the file to strobe profile -i.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strobe/pictures.h>
#include <strobe/profile.h>
#include <strobe/symbols.h>

#include "cli.h"

#define CMD "flamegraph"

/*
 * --on-cpu: the perf samples of a recording (strobe record --profile),
 * named and folded by the profile consumer (strobe_profile_run reads the
 * file), drawn by the same flame-graph writer in warm colours, weights
 * in samples.  Returns the exit status.
 */
static int on_cpu_graph(const char *input, const char *output, bool folded, const char *title,
			struct strobe_flame_svg_opts *so, enum strobe_flame_group group, bool quiet)
{
	struct strobe_profile_opts pro = { .size = sizeof(pro), .group_by = group };
	struct strobe_profile_run_opts ro = { .size = sizeof(ro), .input = input };
	struct strobe_profile_run_result res = { 0 };
	struct strobe_error err = { 0, "" };
	struct strobe_symbols *syms = NULL;
	struct strobe_profile *prof = NULL;
	struct strobe_buf *b = NULL;
	char subtitle[512];
	uint64_t lost = 0;
	int r, status = CLI_FAIL;

	if (strobe_symbols_new(NULL, &syms, &err) < 0 ||
	    (pro.symbols = syms, strobe_profile_new(&pro, &prof, &err) < 0)) {
		cli_error_e(CMD, &err);
		goto out;
	}
	r = strobe_profile_run(prof, &ro, &res, &err);
	if (res.pipeline)	/* what the file's reading skipped */
		cli_pipeline_diags(CMD, res.pipeline, false);
	if (r < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	lost = res.lost;
	b = cli_buf_new();
	if (folded) {
		if (strobe_flame_write_folded(strobe_profile_flame(prof), b) < 0) {
			cli_error(CMD, "out of memory");
			goto out;
		}
	} else {
		snprintf(subtitle, sizeof(subtitle), "%s: %llu samples, %llu lost", input,
			 (unsigned long long)strobe_profile_samples(prof),
			 (unsigned long long)lost);
		so->title = title ? title : "CPU Flame Graph";
		so->subtitle = subtitle;
		so->unit = NULL;
		so->colors = STROBE_FLAME_ONCPU;
		so->root_levels = group == STROBE_FLAME_BY_CONTAINER ? 2 :
				  group == STROBE_FLAME_BY_NONE ? 0 : 1;
		if (strobe_flame_write_svg(strobe_profile_flame(prof), so, b, &err) < 0) {
			cli_error(CMD, "%s: %s", input, err.msg);
			goto out;
		}
	}
	if (cli_write_buf(CMD, output, b) < 0)
		goto out;
	if (!quiet)
		fprintf(stderr, "strobe flamegraph: %llu samples on CPU, %zu stacks, %llu lost%s%s\n",
			(unsigned long long)strobe_profile_samples(prof),
			strobe_flame_nr_stacks(strobe_profile_flame(prof)),
			(unsigned long long)lost, output ? ": " : "", output ? output : "");
	status = CLI_OK;
out:
	strobe_profile_run_result_free(&res);
	strobe_buf_free(b);
	strobe_profile_free(prof);
	strobe_symbols_free(syms);
	return status;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe flamegraph [--off-cpu] [options] [-i FILE]\n"
		"\n"
		"Where threads wait: the time each thread spends off CPU (blocked or\n"
		"waiting to run), from its switch-out to its next switch-in, added to\n"
		"the kernel stack it left the CPU with, per container and command.\n"
		"Needs a recording made with 'strobe record --stacks'.  Writes an\n"
		"interactive SVG flame graph (click to zoom, Search or Ctrl-F to\n"
		"highlight) or, with --folded, one line per stack:\n"
		"container;comm;frame;...;frame NANOSECONDS.  See strobe-flamegraph(1).\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE        trace file (default trace.dat)\n"
		"  -o, --output FILE       write to FILE (default: standard output)\n"
		"      --off-cpu           off-CPU time by stack (the default)\n"
		"      --on-cpu            on-CPU samples: where the CPU time went, from a\n"
		"                          recording made with 'strobe record --profile'\n"
		"                          (the same as strobe profile -i FILE -o SVG)\n"
		"      --folded            folded stacks instead of the SVG\n"
		"  -c, --container NAME    only tasks of this container (name, ID or ID\n"
		"                          prefix); repeatable\n"
		"  -p, --pid PID           only threads of process PID; repeatable\n"
		"      --group-by KEY      root frames: container (container;comm, the\n"
		"                          default), process (comm), thread (comm-TID),\n"
		"                          none\n"
		"      --min USECS         only off-CPU periods at least this long\n"
		"      --no-user           leave user stacks (--user-stacks) out\n"
		"      --title TEXT        the SVG's title\n"
		"      --width PIXELS      the SVG's width (default 1200)\n"
		"      --strict            fail on damaged data instead of skipping it\n"
		"      --jobs N            threads (default: the CPUs strobe may use; 1: one)\n"
		"  -q, --quiet             no summary on stderr\n"
		"  -h, --help              this help\n"
		"\n"
		"Examples:\n"
		"  strobe record --stacks -c web -d 10 -o web.dat\n"
		"  strobe flamegraph -i web.dat -o web-offcpu.svg\n"
		"  strobe flamegraph -i web.dat --folded | sort -k2 -n | tail\n");
}

static int offcpu_consumer(void *oc, int source, struct strobe_consumer *c)
{
	return strobe_offcpu_consumer(oc, source, c);
}

static void human_ns(uint64_t ns, char *out, size_t size)
{
	if (ns >= 1000000000ull)
		snprintf(out, size, "%.3f s", ns / 1e9);
	else
		snprintf(out, size, "%.3f ms", ns / 1e6);
}

int cmd_flamegraph(int argc, char **argv)
{
	enum { OPT_OFF = 256, OPT_ON, OPT_FOLDED, OPT_GROUP, OPT_MIN, OPT_NOUSER };
	static const struct option longopts[] = {
		CLI_PICTURE_LONGOPTS,
		{ "off-cpu", no_argument, NULL, OPT_OFF },
		{ "on-cpu", no_argument, NULL, OPT_ON },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "container", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "group-by", required_argument, NULL, OPT_GROUP },
		{ "min", required_argument, NULL, OPT_MIN },
		{ "no-user", no_argument, NULL, OPT_NOUSER },
		{ "width", required_argument, NULL, CLI_PIC_WIDTH },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_offcpu_opts oo = { .size = sizeof(oo) };
	struct strobe_flame_svg_opts so = { .size = sizeof(so), .unit = "ns",
					    .colors = STROBE_FLAME_OFFCPU };
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_offcpu *oc = NULL;
	struct strobe_offcpu_stats st;
	struct strobe_buf *b = NULL;
	struct cli_picture pc;
	const char *input, *output;
	int c2, r, i, status = CLI_USAGE;
	bool folded = false, on_cpu = false;
	char subtitle[512], t1[32];
	double us;

	if (cli_picture_init(&pc, CMD, argc) < 0) {
		status = CLI_FAIL;
		goto out;
	}
	pc.min_width = 200;
	optind = 1;
	while ((c2 = getopt_long(argc, argv, "i:o:c:p:qh", longopts, NULL)) != -1) {
		r = cli_picture_opt(&pc, CMD, c2, optarg, usage, &status);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		switch (c2) {
		case OPT_OFF:
			break;
		case OPT_ON:
			on_cpu = true;
			break;
		case OPT_FOLDED:
			folded = true;
			break;
		case OPT_GROUP:
			if (!strcmp(optarg, "container"))
				oo.group_by = STROBE_FLAME_BY_CONTAINER;
			else if (!strcmp(optarg, "process"))
				oo.group_by = STROBE_FLAME_BY_PROCESS;
			else if (!strcmp(optarg, "thread"))
				oo.group_by = STROBE_FLAME_BY_THREAD;
			else if (!strcmp(optarg, "none"))
				oo.group_by = STROBE_FLAME_BY_NONE;
			else {
				cli_error(CMD, "bad --group-by '%s' (container, process, thread "
					  "or none)", optarg);
				goto out;
			}
			break;
		case OPT_MIN:
			if (cli_parse_seconds(optarg, &us) < 0) {
				cli_error(CMD, "bad --min '%s' (microseconds)", optarg);
				goto out;
			}
			oo.min_ns = (uint64_t)(us * 1000.0);
			break;
		case OPT_NOUSER:
			oo.no_user = true;
			break;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (cli_picture_end(&pc, CMD, argc, argv) < 0)
		goto out;
	so.width = pc.width;
	output = pc.output;
	input = pc.inputs[0];
	if (on_cpu && (pc.nconts || pc.npids || oo.min_ns || oo.no_user || pc.strict)) {
		cli_error(CMD, "--on-cpu draws every sample of the file: no -c, -p, --min, "
			  "--no-user or --strict");
		goto out;
	}
	if (on_cpu) {
		for (c2 = 1; c2 < pc.ninputs; c2++)
			if (strcmp(pc.inputs[c2], pc.inputs[0])) {
				cli_error(CMD, "--on-cpu draws the samples of one file ('%s' "
					  "and '%s' given)", pc.inputs[0], pc.inputs[c2]);
				goto out;
			}
		status = on_cpu_graph(input, output, folded, pc.title, &so, oo.group_by,
				      pc.quiet);
		goto out;
	}
	oo.containers = pc.conts;
	oo.nr_containers = pc.nconts;
	oo.pids = pc.pids;
	oo.nr_pids = pc.npids;
	so.root_levels = oo.group_by == STROBE_FLAME_BY_CONTAINER ? 2 :
			 oo.group_by == STROBE_FLAME_BY_NONE ? 0 : 1;

	status = CLI_FAIL;
	if (strobe_offcpu_new(&oo, &oc, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}
	if (cli_run_one_consumer(CMD, pc.inputs, pc.ninputs, pc.strict, pc.jobs, offcpu_consumer, oc, &p,
				 &tf) < 0)
		goto out;
	strobe_offcpu_stats(oc, &st);
	b = cli_buf_new();
	if (folded) {
		if (strobe_flame_write_folded(strobe_offcpu_flame(oc), b) < 0) {
			cli_error(CMD, "out of memory");
			goto out;
		}
	} else {
		size_t n;

		human_ns(st.off_ns, t1, sizeof(t1));
		n = (size_t)snprintf(subtitle, sizeof(subtitle), "%s: %s off CPU in %llu periods "
				     "of %llu switches%s", input, t1,
				     (unsigned long long)st.periods,
				     (unsigned long long)st.switches,
				     pc.nconts > 1 ? ", containers " :
				     pc.nconts ? ", container " : "");
		/* every -c named (a long list cut by the buffer) */
		for (i = 0; i < pc.nconts && n < sizeof(subtitle); i++)
			n += (size_t)snprintf(subtitle + n, sizeof(subtitle) - n, "%s%s",
					      i ? ", " : "", pc.conts[i]);
		so.title = pc.title ? pc.title : "Off-CPU Time Flame Graph";
		so.subtitle = subtitle;
		if (strobe_flame_write_svg(strobe_offcpu_flame(oc), &so, b, &err) < 0) {
			cli_one_fail(CMD, p, pc.strict, "%s: %s", input, err.msg);
			goto out;
		}
	}
	if (cli_write_buf(CMD, output, b) < 0)
		goto out;
	if (!pc.quiet) {
		human_ns(st.off_ns, t1, sizeof(t1));
		fprintf(stderr, "strobe flamegraph: %s off CPU in %llu periods, %zu stacks "
			"(%llu switch-outs, %llu kernel stacks, %llu user stacks, %llu periods "
			"without a stack, %llu threads still off CPU at the end not counted)%s%s\n",
			t1, (unsigned long long)st.periods,
			strobe_flame_nr_stacks(strobe_offcpu_flame(oc)),
			(unsigned long long)st.switches, (unsigned long long)st.kernel_stacks,
			(unsigned long long)st.user_stacks, (unsigned long long)st.no_stack,
			(unsigned long long)st.still_off, output ? ": " : "", output ? output : "");
	}
	status = cli_pipeline_diags(CMD, p, pc.strict);
out:
	strobe_buf_free(b);
	strobe_offcpu_free(oc);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	cli_picture_free(&pc);
	return status;
}
