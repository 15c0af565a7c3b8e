/*
 * inputs.c - what the commands that read trace files share about their
 * input: the timestamp of a file's first event, the origin of
 * --begin/--end +SECONDS (cmd-analyze.c for one file, multi.c for each
 * of several).
 */
#include <stdint.h>

#include "cli.h"

uint64_t cli_first_ts(struct strobe_tracefile *tf)
{
	struct strobe_stream *st;
	struct strobe_event ev;
	uint64_t ts = 0;

	if (strobe_stream_open_file(tf, NULL, &st, NULL) < 0)
		return 0;
	if (strobe_stream_next(st, &ev, NULL) > 0)
		ts = ev.ts;
	strobe_stream_close(st);
	return ts;
}
