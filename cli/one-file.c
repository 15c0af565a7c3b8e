/*
 * one-file.c - what the commands that draw one picture from one trace
 * file share (strobe flamegraph, strobe heatmap): open the file, run one
 * consumer over it through a pipeline (the damage policy's strict as
 * asked), and write the result to -o FILE or to stdout.  One place for
 * the messages of those steps, so every such command says the same (and
 * what strobe-damage(7) asks of every command: a file given twice is said
 * and read once; what was skipped is said even when nothing could be
 * drawn).  cli_run_file is the plainer run of one consumer over one file
 * for the commands that print as they read (strobe runqlat, biolatency,
 * the snoop tools with -i).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <strobe/pipeline.h>
#include <strobe/strobe.h>
#include <strobe/tracefile.h>

#include "../lib/util/buf.h"
#include "cli.h"

int cli_write_buf(const char *cmd, const char *path, struct strobe_buf *b)
{
	size_t n = strobe_buf_len(b);
	FILE *f;

	if (!path)
		return cli_flush(b) ? 0 : -EIO;
	f = fopen(path, "we");
	if (!f) {
		int e = errno;

		cli_error(cmd, "cannot create '%s': %s", path, strerror(e));
		return -e;
	}
	if (fwrite(strobe_buf_data(b), 1, n, f) != n || fclose(f) != 0) {
		int e = errno ? errno : EIO;

		cli_error(cmd, "cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int cli_open_one_file(const char *cmd, const char *const *inputs, int n,
		      struct strobe_tracefile **tfp)
{
	struct strobe_error err = { 0, "" };
	struct stat st0, st;
	int i;

	*tfp = NULL;
	if (strobe_tracefile_open(inputs[0], tfp, &err) < 0) {
		cli_error_e(cmd, &err);
		return -1;
	}
	for (i = 1; i < n; i++) {
		char msg[1100];

		if (stat(inputs[0], &st0) < 0 || stat(inputs[i], &st) < 0) {
			cli_error(cmd, "cannot open '%s': %s", inputs[i], strerror(errno));
			return -1;
		}
		if (st.st_dev != st0.st_dev || st.st_ino != st0.st_ino) {
			cli_error(cmd, "one trace file only: '%s' and '%s' are two", inputs[0],
				  inputs[i]);
			return -1;
		}
		/* the pipeline's words for a file given twice */
		snprintf(msg, sizeof(msg), "%s is the same file as %s: it is read once",
			 inputs[i], strobe_tracefile_path(*tfp));
		if (strobe_tracefile_add_diag(*tfp, STROBE_TF_DIAG_SAME_FILE, msg) < 0) {
			cli_error(cmd, "out of memory");
			return -1;
		}
	}
	return 0;
}

int cli_run_one_consumer(const char *cmd, const char *const *inputs, int n, bool strict,
			 int jobs, int (*consumer)(void *arg, int source, struct strobe_consumer *c),
			 void *arg, struct strobe_pipeline **pp, struct strobe_tracefile **tfp)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict,
					   .jobs = cli_jobs(jobs) };
	struct strobe_error err = { 0, "" };
	struct strobe_consumer c;
	int src;

	*pp = NULL;
	if (cli_open_one_file(cmd, inputs, n, tfp) < 0)
		return -1;
	if (strobe_pipeline_new(&po, pp, &err) < 0) {
		cli_error_e(cmd, &err);
		return -1;
	}
	src = strobe_pipeline_add_file(*pp, *tfp, NULL, &err);
	if (src < 0 || consumer(arg, src, &c) < 0 ||
	    strobe_pipeline_add_consumer(*pp, &c, &err) < 0 ||
	    strobe_pipeline_run(*pp, &err) < 0) {
		if (strict)	/* the damage, if that is it, is the error */
			cli_error_e(cmd, &err);
		else
			cli_one_fail(cmd, *pp, false, "%s", err.msg);
		return -1;
	}
	return 0;
}

int cli_run_file(const char *cmd, const char *path, const struct strobe_pipeline_opts *po,
		 const struct strobe_consumer *c)
{
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf = NULL;
	struct strobe_pipeline *p = NULL;
	int r;

	r = strobe_tracefile_open(path, &tf, &err);
	if (r < 0) {
		cli_error(cmd, "cannot open '%s': %s", path, err.msg);
		return r;
	}
	r = strobe_pipeline_new(po, &p, &err);
	if (r >= 0)
		r = strobe_pipeline_add_file(p, tf, NULL, &err);
	if (r >= 0)
		r = strobe_pipeline_add_consumer(p, c, &err);
	if (r >= 0)
		r = strobe_pipeline_run(p, &err);
	if (r < 0 && r != -EPIPE)
		cli_error_e(cmd, &err);
	if (r >= 0 && cli_pipeline_diags(cmd, p, po->strict) < 0)
		r = -EBADMSG;
	strobe_pipeline_free(p);
	strobe_tracefile_close(tf);
	return r < 0 ? r : 0;
}

void cli_one_fail(const char *cmd, const struct strobe_pipeline *p, bool strict,
		  const char *fmt, ...)
{
	char msg[1200];
	va_list ap;

	/* what was skipped may be why nothing came of it: said first (with
	 * strict, damage is the error) */
	if (p && cli_pipeline_diags(cmd, p, strict) != CLI_OK)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_error(cmd, "%s", msg);
}
