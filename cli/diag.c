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
