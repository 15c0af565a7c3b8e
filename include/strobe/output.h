/*
 * output.h - turning events into text: trace-cmd compatible lines, JSON
 * objects, and the event selection (CPU, PID, comm, event name) that
 * `strobe report` and later commands share.
 *
 * Formatting appends to a caller-owned `struct strobe_buf` (strobe.h; or,
 * for JSON strings, a caller buffer); nothing here writes to a file
 * descriptor or to stdout.  A caller typically keeps one buffer for the
 * whole run, appends many events and writes them out in large chunks
 * with strobe_buf_flush().  Per event, nothing is allocated except when
 * the buffer itself has to grow (a strobe_format_cache
 * allocates once per event type, on first use).
 *
 * Text lines are byte-for-byte what `trace-cmd report` (3.1.x) prints:
 *
 *   [<buffer>: ]<comm>-<pid> [<cpu>] <time>: <name>: <info>
 *
 * with comm right-aligned in 16 columns, pid left-aligned in 5, cpu as
 * three digits, the time as seconds.microseconds (rounded) for nanosecond
 * clocks, and the event name padded to 20 columns.  <info> comes from the
 * event's print format through libtraceevent (and its plugins, when the
 * source has them loaded).
 */
#ifndef STROBE_OUTPUT_H
#define STROBE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_event;
struct strobe_formats;
struct strobe_buf;
struct strobe_tracefile;

/* ---- trace-cmd compatible text -------------------------------------- */

/* How the time column is printed. */
enum strobe_ts_style {
	STROBE_TS_USECS = 0,	/* "   366.971494": seconds.usecs, rounded to
				 * the nearest usec (nanosecond clocks) */
	STROBE_TS_NSECS,	/* "366.971494123": seconds.nsecs (report -t) */
	STROBE_TS_RAW,		/* "%12llu" raw clock value (counter, x86-tsc,
				 * boot: clocks trace-cmd does not scale) */
};

/* The style trace-cmd report uses for a trace clock name such as "local"
 * (NULL is treated as "local"). */
enum strobe_ts_style strobe_ts_style_for_clock(const char *clock);

struct strobe_format_cache;	/* see strobe_format_cache_new() */

struct strobe_text_opts {
	enum strobe_ts_style ts_style;
	/*
	 * Width of the buffer-name column.  0: no column (the file has no
	 * instance buffers).  Otherwise every line starts with the buffer name
	 * right-aligned to this width and ": " ("probe1: "); lines of the
	 * top-level buffer get blanks instead, as trace-cmd does.  Use the
	 * length of the longest instance name.
	 */
	int buffer_width;
	/* Optional (NULL ok): makes formatting several times faster. */
	struct strobe_format_cache *cache;
};

/*
 * Per-file state that makes formatting many events of one source
 * several times faster, for text and JSON alike: cached comm lookups,
 * each event type's JSON keys escaped once, and each type's print format
 * compiled to a few operations when it is one of the simple formats most
 * events have (plain integer and string fields).  The output is the same
 * as without it: formats outside that subset go to libtraceevent, and the
 * first events of each type (then one in 1024) are formatted both ways
 * and compared, a difference switching the type back to libtraceevent.
 * Comms are cached: create the cache after the source's command lines
 * are loaded, and drop it if they change.  Not thread-safe: one cache
 * per thread.  Returns NULL when out of memory (formatting then works
 * without).  Free with strobe_format_cache_free().
 */
struct strobe_format_cache *strobe_format_cache_new(struct strobe_formats *fmts);
void strobe_format_cache_free(struct strobe_format_cache *c);	/* NULL ok */
/* Text infos printed by the fast path, by libtraceevent, and the number
 * of event types switched back to libtraceevent by the check.  Any of the
 * out pointers may be NULL. */
void strobe_format_cache_stats(const struct strobe_format_cache *c, uint64_t *fast,
			       uint64_t *slow, uint64_t *disabled);

/*
 * Append `ev` as trace-cmd report prints it, newline included.  When
 * ev->missed is non-zero, a line "CPU:N [M EVENTS DROPPED]" (or
 * "CPU:N [EVENTS DROPPED]" when the count is unknown) comes first; like
 * trace-cmd, the buffer column then precedes only that line.
 * buffer_name is the instance name, or NULL/"" for the top-level buffer.
 * opts may be NULL (usecs, no buffer column).  ev->format NULL (unknown
 * event id) prints "[UNKNOWN TYPE id]" and the payload bytes in hex.
 * Returns 0, or -ENOMEM when s could not grow.
 */
int strobe_format_event_text(struct strobe_formats *fmts, const struct strobe_event *ev,
			     const char *buffer_name,
			     const struct strobe_text_opts *opts,
			     struct strobe_buf *b);

/*
 * function_graph records as trace-cmd report prints them.  An entry
 * (ftrace:funcgraph_entry) whose next record in the timeline is its own
 * exit (ftrace:funcgraph_exit of the same task and function) is printed
 * as one leaf line, "func();" with the call's duration, and that exit is
 * not printed.  A printer holds each entry (strobe_fgraph_is_entry) until
 * the next event; when strobe_fgraph_leaf(fmts, entry, next) is true it
 * calls strobe_fgraph_set_leaf(fmts, next), formats the entry, calls
 * strobe_fgraph_set_leaf(fmts, NULL) and drops next; otherwise it formats
 * the entry (a nested "func() {") and goes on with next.  next is only
 * read while set (its data must stay valid that long).
 */
bool strobe_fgraph_is_entry(struct strobe_formats *fmts, const struct strobe_event *ev);
bool strobe_fgraph_leaf(struct strobe_formats *fmts, const struct strobe_event *entry,
			const struct strobe_event *next);
void strobe_fgraph_set_leaf(struct strobe_formats *fmts, const struct strobe_event *exit);

/* ---- JSON ----------------------------------------------------------- */

/*
 * Append `ev` as one JSON object and a newline:
 *
 *   {"ts":366971494123,"cpu":0,"pid":5015,"comm":"tr","event":"sched_switch",
 *    "system":"sched","fields":{"prev_comm":"tr","prev_pid":5015,...}}
 *
 * "ts" is the timestamp in clock units (ns for nanosecond clocks).  Keys
 * added only when they apply: "buffer":"NAME" for events of an instance
 * buffer, "missed":N when the ring buffer lost N events on this CPU just
 * before this one (-1: an unknown number).  "fields" holds every
 * non-common field of the format: integers (and pointers) as numbers,
 * char arrays and __data_loc strings as strings, other arrays as arrays of
 * numbers.  An event with an unknown id has "event":null, "system":null
 * and "fields":{}.  Strings are escaped with strobe_json_escape().
 * cache may be NULL (slower, same output).
 * Returns 0, or -ENOMEM when s could not grow.
 */
int strobe_format_event_json(struct strobe_formats *fmts, const struct strobe_event *ev,
			     const char *buffer_name, struct strobe_format_cache *cache,
			     struct strobe_buf *b);

/*
 * Append str[0..len) to s as a JSON string literal, quotes included.
 * '"' and '\\' are escaped, control characters become \n, \t, ... or
 * \u00XX, valid UTF-8 is kept, and each byte of invalid UTF-8 becomes
 * \u00XX (its Latin-1 reading) so the output is always valid JSON.
 * Returns 0 or -ENOMEM.
 */
int strobe_json_escape(struct strobe_buf *b, const char *str, size_t len);

/*
 * The same into a buffer: writes at most size bytes (always
 * NUL-terminated when size > 0) and returns the length the whole literal
 * needs without the NUL, like snprintf.
 */
size_t strobe_json_escape_buf(char *dst, size_t size, const char *str, size_t len);

/*
 * What the reader found wrong with tf (strobe_tracefile_diag) as a JSON
 * array, [{"kind":"truncated","message":"..."},...]
 * (kinds: strobe_tf_diag_name); "[]" when tf is
 * NULL (a live source) or clean.  The same list every --json output ends
 * with.  Returns 0 or -ENOMEM.
 */
int strobe_tracefile_write_json_diags(const struct strobe_tracefile *tf, struct strobe_buf *b);

/* ---- CPU lists ------------------------------------------------------ */

/*
 * A CPU list like "0,2-3" into mask[0..max) (sets the CPUs named, leaves
 * the others).  Every strobe option that takes CPUs parses with this.
 * Returns 0 or -EINVAL ("bad CPU list item '9-2' (expected N or N-M,
 * N < max)", "empty CPU list"), -ENOMEM.  (Event selection is an
 * expression: struct strobe_expr_filter, expr.h.)
 */
int strobe_cpu_list_parse(const char *list, bool *mask, int max, struct strobe_error *err);

#ifdef __cplusplus
}
#endif

#endif
