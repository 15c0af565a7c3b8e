/*
 * top-int.h - lib/top's pure helpers, visible to its unit tests.
 */
#ifndef STROBE_TOP_INT_H
#define STROBE_TOP_INT_H

#include <stddef.h>
#include <stdint.h>

#include <strobe/top.h>

#include "util/opts.h"

/* The q-quantile (0..1) of h in ns: linear inside bcc's log2 slot of
 * microseconds that holds it, capped at max_ns (0: no cap);
 * STROBE_VALUE_NONE_U when h is empty. */
uint64_t top_hist_quantile(const struct strobe_top_hist *h, double q,
			   uint64_t max_ns) STROBE_HIDDEN;
/* The memory usage file of the cgroup named in cgroup_text (the text of
 * /proc/PID/cgroup) under root: the v1 memory controller's
 * memory.usage_in_bytes, else v2's memory.current (under root/unified
 * when that exists, a hybrid layout).  0, -ENOENT (no such line) or
 * -ENAMETOOLONG.  Pure but for one access() of root/unified. */
int top_cgroup_memory_file(const char *cgroup_text, const char *root, char *out,
			   size_t size) STROBE_HIDDEN;

#endif
