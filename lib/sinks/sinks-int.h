/*
 * sinks-int.h - what the sinks (sqlite.c, clickhouse.c) share and
 * nothing else needs (internal, hidden from libstrobe.so's exports).
 */
#ifndef STROBE_SINKS_INT_H
#define STROBE_SINKS_INT_H

#include <stddef.h>

#include "util/err.h"

struct strobe_tracefile;

/*
 * The host a file was recorded on: strobe's info "host" key when a
 * recording stored one; else, for files strobe did not write, the node
 * name in trace-cmd's UNAME option ("sysname nodename release machine";
 * strobe's own UNAME has no node name); else "".  The result is tf's
 * string or buf (size bytes).
 */
const char *strobe_sink_file_host(struct strobe_tracefile *tf, char *buf,
				  size_t size) STROBE_HIDDEN;

#endif
