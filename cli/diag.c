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

bool cli_diag_kind_is_damage(const char *name)
{
	enum strobe_tf_diag_kind k;

	for (k = STROBE_TF_DIAG_BAD_FORMATS; k <= STROBE_TF_DIAG_SAME_FILE; k++)
		if (!strcmp(strobe_tf_diag_name(k), name))
			return strobe_tf_diag_is_damage(k);
	return false;
}

int cli_pipeline_diags(const char *cmd, const struct strobe_pipeline *p, bool strict)
{
	enum strobe_tf_diag_kind k;
	const char *msg, *first = NULL;
	int i;

	for (i = 0; i < strobe_pipeline_nr_diags(p); i++) {
		msg = strobe_pipeline_diag(p, i, &k, NULL);
		if (strict && strobe_tf_diag_is_damage(k)) {
			if (!first)
				first = msg;
			continue;
		}
		cli_warn(cmd, "%s", msg);
	}
	if (first) {
		cli_error(cmd, "damaged data (strict): %s", first);
		return CLI_FAIL;
	}
	return CLI_OK;
}
