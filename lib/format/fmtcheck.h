/*
 * fmtcheck.h - strict validation of event format text before it reaches
 * libtraceevent (internal; see fmtcheck.c for why and what is checked).
 */
#ifndef STROBE_FORMAT_FMTCHECK_H
#define STROBE_FORMAT_FMTCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

/*
 * True when the n bytes at text are an event format that libtraceevent
 * can be trusted with: the layout the kernel writes, field offsets and
 * sizes that make sense, and a print format built only from constructs
 * that parse and print safely.  On false, *why (may be NULL) says what
 * was wrong, as a static string.
 */
bool strobe_format_check(const char *text, size_t n, const char **why) STROBE_HIDDEN;

#endif
