/*
 * export-run.h - what the exports that feed one consumer from trace
 * files or from a live capture share (strobe export --format perfetto,
 * --format otlp): export-run.c.
 */
#ifndef STROBE_CLI_EXPORT_RUN_H
#define STROBE_CLI_EXPORT_RUN_H

#include <stdbool.h>

struct cli_target;
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

#endif
