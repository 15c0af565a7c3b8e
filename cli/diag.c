/*
 * diag.c - one way for every command that reads a trace file to show
 * what the library found wrong with it (strobe_tracefile_diag): each
 * diagnostic once on stderr as "strobe CMD: warning: ...", and the same
 * list in JSON output.  Such files are still usable: exit status 0.
 */
#include <string.h>

#include <traceevent/trace-seq.h>

#include "cli.h"

void cli_warn_diags(const char *cmd, const struct strobe_tracefile *tf)
{
	int i;

	for (i = 0; i < strobe_tracefile_nr_diags(tf); i++)
		cli_warn(cmd, "%s", strobe_tracefile_diag(tf, i, NULL));
}

void cli_json_diags(struct trace_seq *s, const struct strobe_tracefile *tf)
{
	enum strobe_tf_diag_kind kind;
	const char *msg;
	int i;

	trace_seq_putc(s, '[');
	for (i = 0; (msg = strobe_tracefile_diag(tf, i, &kind)); i++) {
		trace_seq_printf(s, "%s{\"kind\":\"%s\",\"message\":", i ? "," : "",
				 strobe_tf_diag_name(kind));
		strobe_json_escape(s, msg, strlen(msg));
		trace_seq_putc(s, '}');
	}
	trace_seq_putc(s, ']');
}
