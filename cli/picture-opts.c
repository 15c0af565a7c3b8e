/*
 * picture-opts.c - the options the picture commands share (strobe
 * flamegraph, heatmap, html): -i (repeatable, default trace.dat), -o,
 * -c and -p (repeatable), --title, --width, --strict, --jobs, -q and -h, parsed
 * in one place so that each command's getopt switch holds only its own
 * options and the three say the same thing for the same mistake.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_picture_init(struct cli_picture *pc, const char *cmd, int argc)
{
	memset(pc, 0, sizeof(*pc));
	pc->inputs = calloc((size_t)argc + 2, sizeof(*pc->inputs));
	pc->conts = calloc((size_t)argc + 1, sizeof(*pc->conts));
	pc->pids = calloc((size_t)argc + 1, sizeof(*pc->pids));
	if (!pc->inputs || !pc->conts || !pc->pids) {
		cli_error(cmd, "out of memory");
		return -1;
	}
	return 0;
}

int cli_picture_opt(struct cli_picture *pc, const char *cmd, int opt, const char *arg,
		    void (*usage)(FILE *f), int *status)
{
	int v;

	switch (opt) {
	case 'i':
		pc->inputs[pc->ninputs++] = arg;
		return 1;
	case 'o':
		pc->output = arg;
		return 1;
	case 'c':
		pc->conts[pc->nconts++] = arg;
		return 1;
	case 'p':
		if (cli_parse_int(arg, 1, 1 << 22, &v) < 0) {
			cli_error(cmd, "bad PID '%s'", arg);
			*status = CLI_USAGE;
			return -1;
		}
		pc->pids[pc->npids++] = v;
		return 1;
	case CLI_PIC_TITLE:
		pc->title = arg;
		return 1;
	case CLI_PIC_WIDTH:
		if (cli_parse_int(arg, pc->min_width, 100000, &pc->width) < 0) {
			cli_error(cmd, "bad --width '%s' (%d to 100000 pixels)", arg,
				  pc->min_width);
			*status = CLI_USAGE;
			return -1;
		}
		return 1;
	case CLI_PIC_STRICT:
		pc->strict = true;
		return 1;
	case CLI_PIC_JOBS:
		if (cli_parse_int(arg, 1, CLI_MAX_JOBS, &pc->jobs) < 0) {
			cli_error(cmd, "bad --jobs '%s' (1 to %d)", arg, CLI_MAX_JOBS);
			*status = CLI_USAGE;
			return -1;
		}
		return 1;
	case 'q':
		pc->quiet = true;
		return 1;
	case 'h':
		usage(stdout);
		*status = CLI_OK;
		return -1;
	case '?':
	case ':':
		usage(stderr);
		*status = CLI_USAGE;
		return -1;
	}
	return 0;
}

int cli_picture_end(struct cli_picture *pc, const char *cmd, int argc, char **argv)
{
	if (optind < argc) {
		cli_error(cmd, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (!pc->ninputs)
		pc->inputs[pc->ninputs++] = "trace.dat";
	return 0;
}

void cli_picture_free(struct cli_picture *pc)
{
	free(pc->inputs);
	free(pc->conts);
	free(pc->pids);
	memset(pc, 0, sizeof(*pc));
}
