/*
 * cmd-trigger.c - `strobe trigger [--reason TEXT] [PID]`: make running
 * flight recorders (strobe record --flight-recorder) write a snapshot.
 *
 * A flight recorder makes a FIFO REC_FLIGHT_DIR/flight-PID while it runs
 * and reads trigger lines from it (lib/record/flight.c says why a FIFO
 * and not the tracefs instance strobe-PID: every recording has an
 * instance, only a flight recorder takes triggers, and a line carries a
 * reason and the time it was sent).  Without PID every running flight
 * recorder gets the trigger; --list only lists them.
 *
 * Exit status: 0 when every trigger was delivered, 1 when none runs (or
 * PID is not one) or a write failed, 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record-flight.h"

static const char *const cmd = "trigger";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strobe trigger [--reason TEXT] [PID]\n"
		"       strobe trigger --list\n"
		"\n"
		"Make running flight recorders (strobe record --flight-recorder) write\n"
		"a snapshot of the recent past now: PID's, or every one running.  The\n"
		"reason is stored in the snapshot (strobe report --info shows it).\n"
		"\n"
		"Options:\n"
		"  -r, --reason TEXT     why (at most 200 bytes, one line)\n"
		"  -l, --list            list the running flight recorders' PIDs\n"
		"  -h, --help            this help\n"
		"\n"
		"Examples:\n"
		"  strobe trigger --reason 'slow checkout at 14:02'\n"
		"  strobe trigger 4242\n"
		"\n"
		"See strobe-trigger(1).\n");
}

int cmd_trigger(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strobe_error err = { 0, "" };
	const char *reason = NULL;
	bool list = false;
	pid_t *pids = NULL, one;
	size_t n = 0, i;
	int c, pid = 0, status = CLI_OK, e;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+r:lh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strlen(optarg) > 200 || strchr(optarg, '\n')) {
				cli_error(cmd, "a reason is at most 200 bytes, on one line");
				goto usage_err;
			}
			reason = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			if (optopt == 'r')
				cli_error(cmd, "option --reason needs an argument");
			else if (optopt)
				cli_error(cmd, "unknown option -%c", optopt);
			else
				cli_error(cmd, "unknown option '%s'", argv[optind - 1]);
			goto usage_err;
		}
	}
	if (optind < argc) {
		if (optind + 1 < argc || list) {
			cli_error(cmd, "too many arguments");
			goto usage_err;
		}
		if (cli_parse_int(argv[optind], 1, 0x7fffffff, &pid) < 0) {
			cli_error(cmd, "bad PID '%s'", argv[optind]);
			goto usage_err;
		}
	}
	if (pid) {
		one = (pid_t)pid;
		pids = &one;
		n = 1;
	} else {
		e = strobe_flight_list(REC_FLIGHT_DIR, &pids, &n, &err);
		if (e < 0) {
			cli_error_e(cmd, &err);
			return CLI_FAIL;
		}
		if (!n) {
			cli_error(cmd, "no flight recorder is running (strobe record "
				  "--flight-recorder)");
			return CLI_FAIL;
		}
	}
	for (i = 0; i < n; i++) {
		if (list) {
			printf("%d\n", (int)pids[i]);
			continue;
		}
		e = strobe_flight_send(REC_FLIGHT_DIR, pids[i], reason, &err);
		if (e < 0) {
			cli_error_e(cmd, &err);
			status = CLI_FAIL;
		} else {
			fprintf(stderr, "strobe trigger: triggered the flight recorder %d\n",
				(int)pids[i]);
		}
	}
	if (pids != &one)
		free(pids);
	return status;
usage_err:
	fprintf(stderr, "See 'strobe trigger --help'.\n");
	return CLI_USAGE;
}
