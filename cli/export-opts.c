/*
 * export-opts.c - the options the exports that feed one consumer share
 * (strobe export --format perfetto, --format otlp): -i (repeatable,
 * default trace.dat), --format (must name the export's own), --period and
 * --period-captures (repeatable), --strict, -q, -h and strobe record's
 * live target options (cli/target.c), parsed in one place so that each
 * export's getopt switch holds only its own options and both say the same
 * thing for the same mistake (as picture-opts.c does for the pictures).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "export-run.h"

int cli_export_opts_init(struct cli_export_opts *eo, const char *cmd, const char *format,
			 int argc)
{
	memset(eo, 0, sizeof(*eo));
	eo->format = format;
	eo->inputs = calloc((size_t)argc + 1, sizeof(*eo->inputs));
	eo->periods = calloc((size_t)argc + 1, sizeof(*eo->periods));
	eo->caps = calloc((size_t)argc + 1, sizeof(*eo->caps));
	if (!eo->inputs || !eo->periods || !eo->caps) {
		cli_error(cmd, "out of memory");
		return -1;
	}
	return 0;
}

int cli_export_opt(struct cli_export_opts *eo, const char *cmd, int opt, const char *arg,
		   void (*usage)(FILE *f), int *status)
{
	int r;

	*status = CLI_USAGE;
	switch (opt) {
	case 'i':
		eo->inputs[eo->ninputs++] = arg;
		return 0;
	case CLI_EXP_FORMAT:
		if (strcmp(arg, eo->format)) {
			cli_error(cmd, "one --format at a time");
			return -1;
		}
		return 0;
	case CLI_EXP_PERIOD:
		eo->periods[eo->nperiods++] = arg;
		return 0;
	case CLI_EXP_CAPS:
		eo->caps[eo->ncaps++] = arg;
		return 0;
	case CLI_EXP_STRICT:
		eo->strict = true;
		return 0;
	case 'q':
		eo->quiet = true;
		return 0;
	case 'h':
		usage(stdout);
		*status = CLI_OK;
		return -1;
	case '?':
		usage(stderr);
		return -1;
	}
	r = cli_target_option(&eo->t, cmd, opt, arg);
	if (r < 0)
		return -1;
	if (r == 0) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int cli_export_opts_end(struct cli_export_opts *eo, const char *cmd, int argc, char **argv)
{
	if (optind < argc && strcmp(argv[optind - 1], "--")) {
		cli_error(cmd, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return cli_target_finish(&eo->t, cmd, optind < argc ? argv + optind : NULL) < 0 ? -1 : 0;
}

int cli_export_opts_sources(struct cli_export_opts *eo, const char *cmd)
{
	if (eo->t.given && eo->ninputs) {
		cli_error(cmd, "trace files (-i) or live tracing (-c, -p, -d, -- CMD), not both");
		return -1;
	}
	if (!eo->ninputs)
		eo->inputs[eo->ninputs++] = "trace.dat";
	return 0;
}

void cli_export_opts_free(struct cli_export_opts *eo)
{
	cli_target_free(&eo->t);
	free(eo->inputs);
	free(eo->periods);
	free(eo->caps);
	memset(eo, 0, sizeof(*eo));
}

double cli_export_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
