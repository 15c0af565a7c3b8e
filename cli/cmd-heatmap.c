/*
 * cmd-heatmap.c - `strobe heatmap`: a latency heat map (Brendan Gregg's)
 * of one analysis' measurements as an SVG: time on x, latency in log2
 * buckets on y, the number of measurements as colour, one panel per
 * container with -c or --group-by container.  The measurements are the
 * analysis' own log rows (strobe_heatmap_*: the analysis run as a
 * consumer of the one pipeline, each row counted into a bounded grid);
 * this file parses options, runs the pipeline over the file and writes
 * the picture.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/analysis.h>
#include <strobe/pictures.h>

#include "cli.h"

#define CMD "heatmap"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe heatmap -a ANALYSIS [options] [-i FILE] [-o OUT.svg]\n"
		"\n"
		"A latency heat map as an SVG: time on x, latency (log2 buckets) on y,\n"
		"how many measurements fell in each cell as colour.  ANALYSIS is one of\n"
		"syscalls (each call's duration), schedlat (wake-up to run latency), io\n"
		"(I/O calls), irq (handler runs), periods (each period, with --period).\n"
		"The measurements are those 'strobe ANALYSIS --log' prints.  See\n"
		"strobe-heatmap(1).\n"
		"\n"
		"Options:\n"
		"  -a, --analysis NAME     what to draw (required)\n"
		"  -i, --input FILE        trace file (default trace.dat)\n"
		"  -o, --output FILE       write to FILE (default: standard output)\n"
		"  -c, --container NAME    only tasks of this container (name, ID or ID\n"
		"                          prefix), each in a panel of its own; repeatable\n"
		"      --group-by container  a panel per container (one colour scale)\n"
		"  -p, --pid PID           only tasks of process PID; repeatable\n"
		"      --filter EXPR       only measurements the expression holds for\n"
		"                          (strobe-expr(7)); repeatable\n"
		"      --period DEF        a period definition (strobe-periods(1)), for -a\n"
		"                          periods; repeatable\n"
		"      --title TEXT        the picture's title\n"
		"      --width PIXELS      its width (default 1200)\n"
		"      --strict            fail on damaged data instead of skipping it\n"
		"      --jobs N            threads (default: the CPUs strobe may use; 1: one)\n"
		"  -q, --quiet             no summary on stderr\n"
		"  -h, --help              this help\n"
		"\n"
		"Examples:\n"
		"  strobe heatmap -a syscalls -i web.dat -o syscalls.svg\n"
		"  strobe heatmap -a schedlat -c web -c db -o runq.svg\n");
}

static int heatmap_consumer(void *h, int source, struct strobe_consumer *c)
{
	return strobe_heatmap_consumer(h, source, c);
}

int cmd_heatmap(int argc, char **argv)
{
	enum { OPT_GROUP = 256, OPT_FILTER, OPT_PERIOD };
	static const struct option longopts[] = {
		CLI_PICTURE_LONGOPTS,
		{ "analysis", required_argument, NULL, 'a' },
		{ "container", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "group-by", required_argument, NULL, OPT_GROUP },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "period", required_argument, NULL, OPT_PERIOD },
		{ "width", required_argument, NULL, CLI_PIC_WIDTH },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_analysis_opts ao = { .size = sizeof(ao) };
	struct strobe_heatmap_opts ho = { .size = sizeof(ho) };
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	struct strobe_heatmap *h = NULL;
	struct strobe_buf *b = NULL;
	struct cli_picture pc;
	const char *input, **filters = NULL, **periods = NULL;
	int nfilters = 0, nperiods = 0, o, r, i;
	int status = CLI_USAGE;
	const struct strobe_analysis *an;

	if (cli_picture_init(&pc, CMD, argc) < 0) {
		status = CLI_FAIL;
		goto out;
	}
	filters = calloc((size_t)argc + 1, sizeof(*filters));
	periods = calloc((size_t)argc + 1, sizeof(*periods));
	if (!filters || !periods) {
		cli_error(CMD, "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	pc.min_width = 400;
	optind = 1;
	while ((o = getopt_long(argc, argv, "a:i:o:c:p:qh", longopts, NULL)) != -1) {
		r = cli_picture_opt(&pc, CMD, o, optarg, usage, &status);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		switch (o) {
		case 'a':
			ho.analysis = optarg;
			break;
		case OPT_GROUP:
			if (strcmp(optarg, "container")) {
				cli_error(CMD, "bad --group-by '%s' (container)", optarg);
				goto out;
			}
			ho.per_container = true;
			break;
		case OPT_FILTER:
			filters[nfilters++] = optarg;
			break;
		case OPT_PERIOD:
			periods[nperiods++] = optarg;
			break;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (cli_picture_end(&pc, CMD, argc, argv) < 0)
		goto out;
	ho.title = pc.title;
	ho.width = pc.width;
	if (!ho.analysis) {
		cli_error(CMD, "which measurements? -a syscalls|schedlat|io|irq|periods");
		goto out;
	}
	if (!strcmp(ho.analysis, "periods") && !nperiods) {
		cli_error(CMD, "-a periods needs --period definitions (see strobe-periods(1))");
		goto out;
	}
	ao.containers = pc.conts;
	ao.nr_containers = pc.nconts;
	ao.pids = pc.pids;
	ao.nr_pids = pc.npids;
	ao.filters = filters;
	ao.nr_filters = nfilters;
	ao.periods = periods;
	ao.nr_periods = nperiods;
	ho.analysis_opts = &ao;
	if (pc.nconts)
		ho.per_container = true;
	if (strobe_heatmap_new(&ho, &h, &err) < 0) {
		cli_error_e(CMD, &err);
		goto out;
	}

	status = CLI_FAIL;
	input = pc.inputs[0];
	if (cli_run_one_consumer(CMD, pc.inputs, pc.ninputs, pc.strict, pc.jobs, heatmap_consumer, h, &p,
				 &tf) < 0)
		goto out;
	b = cli_buf_new();
	if (strobe_heatmap_write_svg(h, b, &err) < 0) {
		cli_one_fail(CMD, p, pc.strict, "%s: %s", input, err.msg);
		goto out;
	}
	if (cli_write_buf(CMD, pc.output, b) < 0)
		goto out;
	if (!pc.quiet)
		fprintf(stderr, "strobe heatmap: %llu %s measurements%s%s\n",
			(unsigned long long)strobe_heatmap_count(h), ho.analysis,
			pc.output ? " drawn into " : "", pc.output ? pc.output : "");
	status = cli_pipeline_diags(CMD, p, pc.strict);
	/* the analysis's notes after the file's diagnostics (the first words
	 * are the file's, as every command's: strobe-damage(7)) */
	an = strobe_heatmap_analysis(h);
	for (i = 0; !pc.quiet && status == CLI_OK && i < strobe_analysis_nr_notes(an); i++)
		cli_warn(CMD, "%s", strobe_analysis_note(an, i));
out:
	strobe_buf_free(b);
	strobe_heatmap_free(h);
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	cli_picture_free(&pc);
	free(filters);
	free(periods);
	return status;
}
