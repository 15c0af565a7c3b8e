/*
 * multi.c - what the commands that read several trace files at once
 * (strobe report -i A -i B, strobe sql, the analyses) share: the one
 * stderr note on how the files' clocks were put on one timeline, and how
 * far that can be trusted.
 *
 * The uncertainty a merge can state: each file's pairings of its trace
 * clock with its host's wall clock were taken between two wall-clock
 * reads (the bracket, +- error), and the offset moved between the start
 * and end pairings (drift, interpolated away but a sign of how steady the
 * clocks were).  What no recording can see is how far the hosts' wall
 * clocks themselves disagree (NTP, PTP): the note says so.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ns as a short human quantity ("1.4 us", "2.50 ms"). */
static const char *human_ns(char *b, size_t size, double ns)
{
	if (ns < 0)
		ns = -ns;
	if (ns < 1000)
		snprintf(b, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(b, size, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(b, size, "%.2f ms", ns / 1e6);
	else
		snprintf(b, size, "%.3f s", ns / 1e9);
	return b;
}

void cli_merge_clock_note(const char *cmd, const struct strobe_merge *m,
			  const char *const *paths)
{
	int i, n = strobe_merge_nr_sources(m);
	char e[32], d[32], sp[32];

	if (!strobe_merge_wall(m)) {
		for (i = 0; i < n; i++) {
			struct strobe_merge_clock c;

			strobe_merge_clock(m, i, &c);
			if (!c.nr_sync)
				cli_warn(cmd, "%s (host %s) has no clock offsets (recorded by an "
					 "older strobe or by trace-cmd)", paths[i],
					 strobe_merge_host(m, i));
		}
		cli_warn(cmd, "the %d files are merged on their raw trace clocks: the order "
			 "across hosts is right only if they share one clock", n);
		return;
	}
	fprintf(stderr, "strobe %s: %d hosts on one timeline, wall-clock time "
		"(CLOCK_REALTIME) of each host; clock uncertainty:\n", cmd, n);
	for (i = 0; i < n; i++) {
		struct strobe_merge_clock c;

		strobe_merge_clock(m, i, &c);
		if (c.nr_sync == 2)
			fprintf(stderr, "  %s: +-%s (offset to the wall clock drifted %s over %s, "
				"interpolated)\n", strobe_merge_host(m, i),
				human_ns(e, sizeof(e), (double)c.error_ns),
				human_ns(d, sizeof(d), (double)c.drift_ns),
				human_ns(sp, sizeof(sp), (double)c.span_ns));
		else
			fprintf(stderr, "  %s: +-%s (one pairing only: drift unknown)\n",
				strobe_merge_host(m, i), human_ns(e, sizeof(e), (double)c.error_ns));
	}
	fprintf(stderr, "  plus however far the hosts' wall clocks disagree (NTP), which a "
		"recording cannot see\n");
}
