/*
 * diag.c - one way for every command that reads a trace file to show
 * what the library found wrong with it (strobe_tracefile_diag): each
 * diagnostic once on stderr as "strobe CMD: warning: ...", and the same
 * list in JSON output.  Such files are still usable: exit status 0.
 */
#include <string.h>


#include "cli.h"

void cli_warn_diags(const char *cmd, const struct strobe_tracefile *tf)
{
	int i;

	for (i = 0; i < strobe_tracefile_nr_diags(tf); i++)
		cli_warn(cmd, "%s", strobe_tracefile_diag(tf, i, NULL));
}

void cli_json_diags(struct strobe_buf *s, const struct strobe_tracefile *tf)
{
	enum strobe_tf_diag_kind kind;
	const char *msg;
	int i;

	strobe_buf_putc(s, '[');
	for (i = 0; (msg = strobe_tracefile_diag(tf, i, &kind)); i++) {
		strobe_buf_printf(s, "%s{\"kind\":\"%s\",\"message\":", i ? "," : "",
				 strobe_tf_diag_name(kind));
		strobe_json_escape(s, msg, strlen(msg));
		strobe_buf_putc(s, '}');
	}
	strobe_buf_putc(s, ']');
}
