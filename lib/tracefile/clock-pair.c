/*
 * clock-pair.c - the text of a clock pairing (struct strobe_clock_sync,
 * session.h) as a trace file's strobe info stores it: "clock_sync_start"
 * and "clock_sync_end" hold "TRACE_NS REALTIME_NS ERROR_NS".
 *
 * The session takes the pairing (lib/session/clocksync.c), strobe record
 * writes it with strobe_clock_sync_format, and readers of the file (the
 * merge of several files, the ClickHouse loader) parse it back.  It lives
 * with the file's reader so that readers need nothing of the session.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <strobe/strobe.h>

int strobe_clock_sync_format(const struct strobe_clock_sync *cs, char *buf, size_t size)
{
	return snprintf(buf, size, "%" PRIu64 " %" PRId64 " %" PRIu64, cs->trace_ns,
			cs->realtime_ns, cs->error_ns);
}

int strobe_clock_sync_parse(const char *text, struct strobe_clock_sync *cs)
{
	unsigned long long t, e;
	long long r;
	int n = 0;

	if (!text || sscanf(text, "%llu %lld %llu%n", &t, &r, &e, &n) != 3 ||
	    (text[n] && text[n] != '\n'))
		return -EINVAL;
	cs->trace_ns = t;
	cs->realtime_ns = r;
	cs->error_ns = e;
	return 0;
}
