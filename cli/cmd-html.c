/*
 * cmd-html.c - `strobe html`: one self-contained HTML page about a trace
 * file (the recording's summary, every analysis it has the events for,
 * per container, with histograms, a system-call heat map and an off-CPU
 * flame graph when the data allows).  The library builds the page
 * (strobe_html_report, pictures.h) from one pass of the pipeline; this
 * file parses options and writes the page (to a temporary file renamed
 * over -o at the end, so a failure leaves no half page).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strobe/pictures.h>

#include "cli.h"

#define CMD "html"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe html [-i FILE] -o OUT.html [options]\n"
		"\n"
		"Write one self-contained HTML page about a trace file: the recording's\n"
		"summary, then per container the tables of every analysis the file has\n"
		"the events for (cputop, syscalls, schedlat, io, irq) with their\n"
		"histograms, a heat map of system call latency and an off-CPU flame\n"
		"graph when the data allows.  Nothing is fetched when it is opened.\n"
		"See strobe-html(1).\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE        trace file (default trace.dat)\n"
		"  -o, --output FILE       the page (- for standard output; required)\n"
		"      --title TEXT        the page's title\n"
		"      --top N             rows per ranking table (default 20)\n"
		"      --histograms N|all  histograms drawn per analysis (default 6; the\n"
		"                          others are named in the page)\n"
		"      --strict            fail on damaged data instead of skipping it\n"
		"      --jobs N            threads (default: the CPUs strobe may use; 1: one)\n"
		"  -q, --quiet             no summary on stderr\n"
		"  -h, --help              this help\n"
		"\n"
		"Examples:\n"
		"  strobe html -i web.dat -o web.html\n");
}

/* b into path (- : stdout) through a temporary file.  0 or -1 (printed). */
static int write_page(const char *path, struct strobe_buf *b)
{
	size_t n = strobe_buf_len(b);
	char *tmp = NULL;
	FILE *f;

	if (!strcmp(path, "-"))
		return cli_flush(b) ? 0 : -1;
	if (asprintf(&tmp, "%s.tmp-%d", path, (int)getpid()) < 0) {
		cli_error(CMD, "out of memory");
		return -1;
	}
	f = fopen(tmp, "we");
	if (!f) {
		cli_error(CMD, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (fwrite(strobe_buf_data(b), 1, n, f) != n || fclose(f) != 0) {
		cli_error(CMD, "cannot write '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		cli_error(CMD, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int cmd_html(int argc, char **argv)
{
	enum { OPT_TOP = 256, OPT_HISTS };
	static const struct option longopts[] = {
		CLI_PICTURE_LONGOPTS,
		{ "top", required_argument, NULL, OPT_TOP },
		{ "histograms", required_argument, NULL, OPT_HISTS },
		{ NULL, 0, NULL, 0 }
	};
	struct strobe_html_opts ho = { .size = sizeof(ho) };
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf = NULL;
	struct strobe_buf *b = NULL;
	struct cli_picture pc;
	const char *input, *output;
	int c, i, r, status = CLI_USAGE;
	enum strobe_tf_diag_kind kind;

	if (cli_picture_init(&pc, CMD, argc) < 0) {
		cli_picture_free(&pc);
		return CLI_FAIL;
	}

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:qh", longopts, NULL)) != -1) {
		r = cli_picture_opt(&pc, CMD, c, optarg, usage, &status);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_TOP:
			if (cli_parse_int(optarg, 1, 1000000, &ho.top) < 0) {
				cli_error(CMD, "bad --top '%s' (1 or more)", optarg);
				goto out;
			}
			break;
		case OPT_HISTS:
			if (!strcmp(optarg, "all")) {
				ho.histograms = -1;
			} else if (cli_parse_int(optarg, 1, 1000000, &ho.histograms) < 0) {
				cli_error(CMD, "bad --histograms '%s' (1 or more, or all)", optarg);
				goto out;
			}
			break;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (cli_picture_end(&pc, CMD, argc, argv) < 0)
		goto out;
	ho.title = pc.title;
	ho.jobs = cli_jobs(pc.jobs);
	output = pc.output;
	if (!output) {
		cli_error(CMD, "where to? -o OUT.html (- for standard output)");
		goto out;
	}
	status = CLI_FAIL;
	input = pc.inputs[0];
	if (cli_open_one_file(CMD, pc.inputs, pc.ninputs, &tf) < 0)
		goto out;
	b = cli_buf_new();
	if (strobe_html_report(tf, &ho, b, &err) < 0) {
		cli_warn_diags(CMD, tf);
		cli_error(CMD, "%s: %s", input, err.msg);
		goto out;
	}
	/* strobe-damage(7): with --strict the first damage fails the page
	 * (none is written); else the page, then what was skipped */
	for (i = 0; pc.strict && i < strobe_tracefile_nr_diags(tf); i++) {
		const char *msg = strobe_tracefile_diag(tf, i, &kind);

		if (strobe_tf_diag_is_damage(kind)) {
			cli_error(CMD, "damaged data (strict): %s", msg);
			goto out;
		}
	}
	if (write_page(output, b) < 0)
		goto out;
	if (!pc.quiet && strcmp(output, "-"))
		fprintf(stderr, "strobe html: '%s' written (%.1f KiB)\n", output,
			(double)strobe_buf_len(b) / 1024);
	cli_warn_diags(CMD, tf);
	status = CLI_OK;
out:
	strobe_buf_free(b);
	strobe_tracefile_close(tf);
	cli_picture_free(&pc);
	return status;
}
