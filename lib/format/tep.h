/*
 * tep.h - the event-format handle (libtraceevent's tep_handle) built in
 * one place for every source: the trace-file reader feeds it the texts it
 * finds in a file, a live capture the texts a session collected from
 * tracefs (strobe_session_meta).  Both get the same checks (formats that
 * could crash libtraceevent are skipped and counted, printk lines are
 * cleaned), the same plugins and the same commit-size rule.
 */
#ifndef STROBE_FORMAT_TEP_H
#define STROBE_FORMAT_TEP_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

struct tep_handle;
struct tep_plugin_list;
struct strobe_tf_meta;
struct strobe_formats;

struct strobe_ksyms;

struct strobe_tep {
	struct tep_handle *tep;
	/* kallsyms texts not parsed yet: parsed on the first address lookup
	 * (tep.c), so readers that never print a function skip the work */
	struct strobe_ksyms *ksyms;
	struct strobe_formats *formats;	/* the public catalogue over tep */
	struct tep_plugin_list *plugins;
	unsigned commit_size;	/* ring-buffer page commit field: 4 or 8 */
	unsigned nr_bad_formats;	/* formats skipped as damaged */
	/* Formats whose ID a format registered before has (a damaged ID:
	 * events of that ID are not decoded, strobe_formats_refuse). */
	unsigned nr_id_clashes;
	int clash_id;			/* the first clash's ID */
	char clash_names[240];		/* its two formats, "sys:a, sys:b" */
};

/* The print handler of ftrace:kernel_stack (registered by
 * strobe_tep_init): trace-cmd's text, reading only the record's bytes. */
struct trace_seq;
struct tep_record;
struct tep_event;
int strobe_tep_kernel_stack(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context) STROBE_HIDDEN;

/* Allocate the handle (little endian, plugins loaded) and its catalogue.
 * 0 or -ENOMEM. */
int strobe_tep_init(struct strobe_tep *t, unsigned long_size, unsigned page_size) STROBE_HIDDEN;

/* events/header_page text (text need not be NUL-terminated): sets
 * commit_size (from libtraceevent, else the text, else long_size). */
int strobe_tep_header_page(struct strobe_tep *t, const char *text, size_t n,
			   unsigned long_size) STROBE_HIDDEN;

/* One event format of `system`.  A format that fails fmtcheck, or that
 * libtraceevent refuses outright, is skipped and counted in
 * nr_bad_formats: false.  True when it was registered (one whose ID an
 * earlier format has too is registered, counted in nr_id_clashes, and
 * that ID decodes no event). */
bool strobe_tep_format(struct strobe_tep *t, const char *text, size_t n,
		       const char *system) STROBE_HIDDEN;

/* Text blobs, copied and NUL-terminated here; empty ones are ignored.
 * kallsyms is kept and parsed only when libtraceevent first looks up a
 * function address (its results are the same as with an eager parse). */
int strobe_tep_kallsyms(struct strobe_tep *t, const char *text, size_t n) STROBE_HIDDEN;
int strobe_tep_printk(struct strobe_tep *t, const char *text, size_t n) STROBE_HIDDEN;
int strobe_tep_cmdlines(struct strobe_tep *t, const char *text, size_t n) STROBE_HIDDEN;

/* Everything a session collected (headers, formats, kallsyms, printk,
 * cmdlines).  0 or -errno with *err set; on failure *t is released. */
int strobe_tep_from_meta(struct strobe_tep *t, const struct strobe_tf_meta *m,
			 struct strobe_error *err) STROBE_HIDDEN;

void strobe_tep_release(struct strobe_tep *t) STROBE_HIDDEN;	/* zeroes *t */

#endif
