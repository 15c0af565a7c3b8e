/*
 * clocksync.c - pair a reading of a session's trace clock with wall-clock
 * time (CLOCK_REALTIME), so that trace files of several hosts can be put
 * on one timeline (strobe_merge, stream.h).
 *
 * How: the trace clock is read between two CLOCK_REALTIME reads; the pair
 * is (trace value, midpoint of the two realtime reads) and its error the
 * half-width of that bracket, plus the trace reading's own resolution.
 * The narrowest of a few tries is kept (a preemption between the reads
 * only widens one try).
 *
 *  - "mono", "mono_raw", "boot" are the kernel's CLOCK_MONOTONIC,
 *    CLOCK_MONOTONIC_RAW and CLOCK_BOOTTIME: clock_gettime reads them
 *    directly, to the nanosecond.
 *  - every other nanosecond clock ("local", "global", "perf", ...): the
 *    ring buffer's own clock as per_cpu/cpuN/stats prints it ("now ts:
 *    SECS.USECS", ring_buffer_time_stamp(), i.e. exactly the clock the
 *    events are stamped with), truncated to the microsecond: the pair
 *    takes the middle of that microsecond and 500 ns more error.  "local"
 *    is sched_clock, not CLOCK_MONOTONIC (they drift apart), hence no
 *    shortcut for it.
 *  - counter clocks ("counter", "x86-tsc": stats print a raw count) have
 *    no relation to time: -ENOTSUP.
 *
 * The pairing's text, as a trace file's strobe info holds it, is written
 * and parsed by lib/tracefile/clock-pair.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "internal.h"
#include "session_priv.h"

#define TRIES 8

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* "now ts: SECS.USECS" of a stats text, in ns (start of the usec), or -1
 * when absent or not a nanosecond clock. */
static int64_t stats_now(const char *b)
{
	const char *p = strstr(b, "now ts:");
	unsigned long long sec, usec;
	int n = 0;

	if (!p || sscanf(p + 7, " %llu.%llu%n", &sec, &usec, &n) != 2 || !n)
		return -1;
	return (int64_t)(sec * 1000000000ULL + usec * 1000ULL);
}

int strobe_session_clock_sync(struct strobe_session *s, struct strobe_clock_sync *out,
			      struct strobe_error *err)
{
	const char *clock = strobe_session_clock(s);
	clockid_t id = -1;
	char path[512], b[1024];
	int fd = -1, i, ok = 0;
	int64_t best = INT64_MAX;

	memset(out, 0, sizeof(*out));
	if (!strcmp(clock, "mono"))
		id = CLOCK_MONOTONIC;
	else if (!strcmp(clock, "mono_raw"))
		id = CLOCK_MONOTONIC_RAW;
	else if (!strcmp(clock, "boot"))
		id = CLOCK_BOOTTIME;
	else if (!strcmp(clock, "counter") || !strcmp(clock, "x86-tsc"))
		return strobe_err(err, -ENOTSUP, "trace clock '%s' counts, it does not tell time",
				  clock);
	if (id == (clockid_t)-1) {
		strobe_fs_path(path, sizeof(path), "%s/per_cpu/cpu0/stats", s->dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return strobe_err(err, -errno, "cannot open %s: %s", path, strerror(errno));
	}
	for (i = 0; i < TRIES; i++) {
		int64_t r0, r1, t;

		if (fd >= 0) {
			ssize_t n;

			r0 = now_ns(CLOCK_REALTIME);
			n = pread(fd, b, sizeof(b) - 1, 0);
			r1 = now_ns(CLOCK_REALTIME);
			if (n <= 0)
				continue;
			b[n] = '\0';
			t = stats_now(b);
			if (t < 0)
				break;	/* not a nanosecond clock */
			t += 500;	/* the middle of the printed microsecond */
		} else {
			r0 = now_ns(CLOCK_REALTIME);
			t = now_ns(id);
			r1 = now_ns(CLOCK_REALTIME);
		}
		if (r1 < r0)
			continue;	/* the wall clock was set between the reads */
		if (r1 - r0 < best) {
			best = r1 - r0;
			out->trace_ns = (uint64_t)t;
			out->realtime_ns = r0 + (r1 - r0) / 2;
			out->error_ns = (uint64_t)((r1 - r0 + 1) / 2) + (fd >= 0 ? 500 : 0);
			ok = 1;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!ok)
		return strobe_err(err, -ENOTSUP, "cannot read trace clock '%s' against the wall clock",
				  clock);
	return 0;
}
