/*
 * one-file.c - what the commands that draw one picture from one trace
 * file share (strobe flamegraph, strobe heatmap): open the file, run one
 * consumer over it through a pipeline (the damage policy's strict as
 * asked), and write the result to -o FILE or to stdout.  One place for
 * the messages of those steps, so every such command says the same.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

int cli_run_one_consumer(const char *cmd, const char *input, bool strict,
			 int (*consumer)(void *arg, int source, struct strobe_consumer *c),
			 void *arg, struct strobe_pipeline **pp, struct strobe_tracefile **tfp)
{
	struct strobe_pipeline_opts po = { .size = sizeof(po), .strict = strict };
	struct strobe_error err = { 0, "" };
	struct strobe_consumer c;
	int src;

	*pp = NULL;
	*tfp = NULL;
	if (strobe_tracefile_open(input, tfp, &err) < 0 ||
	    strobe_pipeline_new(&po, pp, &err) < 0) {
		cli_error_e(cmd, &err);
		return -1;
	}
	src = strobe_pipeline_add_file(*pp, *tfp, NULL, &err);
	if (src < 0 || consumer(arg, src, &c) < 0 ||
	    strobe_pipeline_add_consumer(*pp, &c, &err) < 0 ||
	    strobe_pipeline_run(*pp, &err) < 0) {
		cli_error_e(cmd, &err);
		return -1;
	}
	return 0;
}
