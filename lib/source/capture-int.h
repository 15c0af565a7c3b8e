/*
 * capture-int.h - what the recorder tells a capture beyond the public
 * API (include/strobe/capture.h).  Internal.
 */
#ifndef STROBE_SOURCE_CAPTURE_INT_H
#define STROBE_SOURCE_CAPTURE_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "../util/err.h"

struct strobe_capture;

/*
 * Before start: more of strobe's own threads (the recorder's /proc
 * watcher) to leave out of the system-call events with the capture's own
 * (see strobe_capture_start; nothing with keep_self).  At most 16 in all;
 * 0, -EBUSY after start, or -ENOSPC.
 */
int strobe_capture_exclude_tids(struct strobe_capture *c, const pid_t *tids,
				size_t n) STROBE_HIDDEN;

#endif
