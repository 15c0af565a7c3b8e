/*
 * formats_of.h - the public format catalogue over a test's hand-made
 * tep_handle, for tests and fuzzers that build formats with libtraceevent
 * and call the public API (which takes struct strobe_formats).
 *
 * formats_of(tep) makes the catalogue on first use and remembers it for
 * that tep; free_tep() frees both.  One tep at a time per program (the
 * tests make one, use it, free it).
 */
#ifndef STROBE_TEST_FORMATS_OF_H
#define STROBE_TEST_FORMATS_OF_H

#include <traceevent/event-parse.h>

#include "format/format-int.h"

static struct {
	struct tep_handle *tep;
	struct strobe_formats *f;
} formats_of_cache;

static inline struct strobe_formats *formats_of(struct tep_handle *tep)
{
	if (formats_of_cache.tep != tep) {
		strobe_formats_free(formats_of_cache.f);
		formats_of_cache.f = tep ? strobe_formats_new(tep) : NULL;
		formats_of_cache.tep = tep;
	}
	return formats_of_cache.f;
}

static inline void free_tep(struct tep_handle *tep)
{
	if (tep && formats_of_cache.tep == tep) {
		strobe_formats_free(formats_of_cache.f);
		formats_of_cache.f = NULL;
		formats_of_cache.tep = NULL;
	}
	tep_free(tep);
}

#endif
