/*
 * strobe.h - umbrella header of libstrobe, and the types every layer shares.
 *
 * libstrobe is layered (see doc/ARCHITECTURE.md): session (tracefs control),
 * source (live per-CPU capture), tracefile (trace.dat reading and writing),
 * stream (time-ordered, decoded event stream), output (text and JSON),
 * expr (filter and period expressions).
 * Include this header to get all of them.
 *
 * Error convention: functions return 0 (or a count) on success and a
 * negative errno on failure.  Functions that can fail for reasons a user
 * must see also take a `struct strobe_error *` (may be NULL) which receives
 * a one-line message naming what failed and why.  The library never prints,
 * never exits and never aborts.
 */
#ifndef STROBE_STROBE_H
#define STROBE_STROBE_H

#include <stddef.h>
#include <stdint.h>

#define STROBE_VERSION "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* A failure a caller can show: `code` is a negative errno (0 = no error),
 * `msg` a single line without trailing newline, e.g.
 * "trace.dat: truncated in section 'options' at offset 4123". */
struct strobe_error {
	int code;
	char msg[512];
};

/* Returns the library version string (same as STROBE_VERSION at build). */
const char *strobe_version(void);

#ifdef __cplusplus
}
#endif

#include <strobe/tracefile.h>
#include <strobe/stream.h>
#include <strobe/expr.h>
#include <strobe/session.h>
#include <strobe/record.h>
#include <strobe/output.h>
#include <strobe/model.h>
#include <strobe/analysis.h>
#include <strobe/capture.h>
#include <strobe/sql.h>

#endif
