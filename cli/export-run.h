/*
 * export-run.h - what the exports that feed one consumer from trace
 * files or from a live capture share (strobe export --format perfetto,
 * --format otlp): export-run.c; the options they share: export-opts.c.
 */
#ifndef STROBE_CLI_EXPORT_RUN_H
#define STROBE_CLI_EXPORT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

struct strobe_consumer;
struct strobe_tracefile;

/* How an export reads files: opened(arg, i, tf) after file i is opened
 * (may be NULL), then consumer(arg, &c) once, after all are (each 0, or
 * -1 with the message printed); the pipeline's raw_time; merge_note: the
 * clock note of several files (cli_merge_clock_note); jobs: --jobs as
 * given (0: the CPUs strobe may use, cli_jobs). */
struct cli_export_how {
	int (*opened)(void *arg, int i, struct strobe_tracefile *tf);
	int (*consumer)(void *arg, struct strobe_consumer *c);
	void *arg;
	bool raw_time, merge_note;
	int jobs;
};

/*
 * paths[0..n) through one pipeline (strict as asked) into the consumer,
 * a progress bar unless quiet, then the files' diagnostics.  A CLI
 * status; every message printed.
 */
int cli_export_files(const char *cmd, const char **paths, int n, bool strict, bool quiet,
		     const struct cli_export_how *ec);

/* strobe record's stream of target t into consumer c (nothing written):
 * a CLI status, 127/126 when the command to trace cannot be run. */
int cli_export_live(const char *cmd, struct cli_target *t, struct strobe_consumer *c);

/*
 * The options both exports take (export-opts.c): in their getopt tables
 * as CLI_EXPORT_LONGOPTS, their short options starting with
 * CLI_EXPORT_SHORTOPTS.  cli_export_opts_init: the arrays for argc
 * arguments, format the --format the export is (-1 with the message
 * printed).  cli_export_opt: a getopt_long result the export's own switch
 * did not take (its default: case): 0 taken (a shared option or a live
 * target option), -1 the command ends with *status (-h: help on stdout
 * and CLI_OK; a bad value or an unknown option: CLI_USAGE, message or
 * usage printed).  cli_export_opts_end: no argument left over but a
 * command after "--", the live target finished (cli_target_finish); 0 or
 * -1 (printed).  cli_export_opts_sources: files or live, not both; the
 * default input trace.dat; 0 or -1 (printed).  cli_export_opts_free: the
 * arrays and the target (not the strings, argv's).
 */
enum { CLI_EXP_FORMAT = 0x4100, CLI_EXP_PERIOD, CLI_EXP_CAPS, CLI_EXP_STRICT };
#define CLI_EXPORT_SHORTOPTS "+i:qhe:f:b:C:p:c:d:"
#define CLI_EXPORT_LONGOPTS \
	{ "input", required_argument, NULL, 'i' }, \
	{ "format", required_argument, NULL, CLI_EXP_FORMAT }, \
	{ "period", required_argument, NULL, CLI_EXP_PERIOD }, \
	{ "period-captures", required_argument, NULL, CLI_EXP_CAPS }, \
	{ "strict", no_argument, NULL, CLI_EXP_STRICT }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "help", no_argument, NULL, 'h' }, \
	/* live: strobe record's target options (cli/target.c) */ \
	{ "event", required_argument, NULL, 'e' }, \
	{ "preset", required_argument, NULL, 'P' }, \
	{ "buffer", required_argument, NULL, 'b' }, \
	{ "clock", required_argument, NULL, 'C' }, \
	{ "duration", required_argument, NULL, 'd' }
struct cli_export_opts {
	const char *format;	/* what --format must say */
	const char **inputs;	/* -i, ninputs; after _sources at least 1 */
	int ninputs;
	const char **periods;	/* --period, nperiods */
	int nperiods;
	const char **caps;	/* --period-captures, ncaps */
	int ncaps;
	bool strict, quiet;
	struct cli_target t;	/* live; t.given when a target was */
};
int cli_export_opts_init(struct cli_export_opts *eo, const char *cmd, const char *format,
			 int argc);
int cli_export_opt(struct cli_export_opts *eo, const char *cmd, int opt, const char *arg,
		   void (*usage)(FILE *f), int *status);
int cli_export_opts_end(struct cli_export_opts *eo, const char *cmd, int argc, char **argv);
int cli_export_opts_sources(struct cli_export_opts *eo, const char *cmd);
void cli_export_opts_free(struct cli_export_opts *eo);
/* CLOCK_MONOTONIC in seconds (the exports' timing). */
double cli_export_now(void);

#endif
