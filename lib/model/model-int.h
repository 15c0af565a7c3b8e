/*
 * model-int.h - internals of lib/model shared with the fuzz harness and
 * unit tests (not installed).
 */
#ifndef STROBE_MODEL_INT_H
#define STROBE_MODEL_INT_H

#include <stddef.h>

#include <strobe/model.h>

#include "util/err.h"

/* The kinds of runtime metadata file runtime.c understands. */
enum strobe_meta_kind {
	STROBE_META_DOCKER_CONFIG,	/* docker's config.v2.json */
	STROBE_META_STORAGE_LIST,	/* containers/storage's containers.json */
	STROBE_META_OCI_CONFIG,		/* an OCI bundle's config.json */
};

/*
 * Parse one metadata file's text (`len` bytes, need not be NUL-terminated)
 * into out->name/pod/pod_ns; `id` (64 hex) selects the entry of a
 * containers.json and is ignored otherwise.  Pure and bounded: no
 * recursion, no allocation.  Fields not found are left as they are.
 * Returns 1 if a name or pod was found, 0 if not (or malformed JSON).
 */
int strobe_meta_parse(enum strobe_meta_kind kind, const char *text, size_t len,
		      const char *id, struct strobe_container_meta *out)
	STROBE_HIDDEN;

#endif
