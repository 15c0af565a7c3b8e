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

/* The file diagnostic i of p is about, when p merges several and the
 * message does not name it already (at its start, or anywhere: a file
 * given twice is named with its other path); NULL otherwise. */
static const char *diag_file(const struct strobe_pipeline *p, int src, const char *msg)
{
	const struct strobe_pipeline_source *s = strobe_pipeline_source(p, src);
	const char *path = s && s->tf ? strobe_tracefile_path(s->tf) : NULL;

	if (strobe_pipeline_nr_sources(p) < 2 || !path || strstr(msg, path))
		return NULL;
	return path;
}

int cli_pipeline_diags(const char *cmd, const struct strobe_pipeline *p, bool strict)
{
	enum strobe_tf_diag_kind k;
	const char *msg, *first = NULL, *first_file = NULL, *file;
	int i, src;

	for (i = 0; i < strobe_pipeline_nr_diags(p); i++) {
		src = -1;
		msg = strobe_pipeline_diag(p, i, &k, &src);
		file = diag_file(p, src, msg);
		if (strict && strobe_tf_diag_is_damage(k)) {
			if (!first) {
				first = msg;
				first_file = file;
			}
			continue;
		}
		cli_warn(cmd, "%s%s%s", file ? file : "", file ? ": " : "", msg);
	}
	if (first) {
		cli_error(cmd, "damaged data (strict): %s%s%s", first_file ? first_file : "",
			  first_file ? ": " : "", first);
		return CLI_FAIL;
	}
	return CLI_OK;
}
