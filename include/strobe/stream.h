/*
 * stream.h - one time-ordered stream of events merged across CPUs (and
 * across the buffers of a trace file).
 *
 * The stream pulls raw ring-buffer pages from per-CPU feeds (a trace file's
 * CPU cursors today; live tracefs readers and the flight recorder later),
 * decodes the page framing itself (time extends, absolute timestamps,
 * padding, lost-event flags) and merges the CPUs by timestamp with a small
 * heap.  Events are handed out as pointers into the page: no copy and no
 * heap allocation per event.  Field values are read through accessors that
 * the caller resolves once per event type (strobe_field_resolve).
 */
#ifndef STROBE_STREAM_H
#define STROBE_STREAM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_tracefile;

/*
 * Event formats.  A trace file and a live capture each have a catalogue
 * of event formats (struct strobe_formats: strobe_tracefile_formats(),
 * strobe_stream_formats()); each event type has one struct strobe_format,
 * owned by the catalogue and valid as long as its source is open.  Field
 * offsets are resolved once per type (strobe_field_resolve) and then read
 * from each event with the accessors below.  Not thread-safe: use a
 * catalogue from one thread at a time.
 */
struct strobe_formats;
struct strobe_format;

/* One decoded event.  Pointers are valid until the next strobe_stream_next. */
struct strobe_event {
	uint64_t ts;		/* timestamp in trace clock units (ns for "local") */
	const void *data;	/* payload: common fields first (common_type u16 ...) */
	uint32_t size;		/* payload length, bytes */
	int cpu;		/* real CPU number */
	int buffer;		/* feed's buffer index (trace file buffer) */
	int type;		/* common_type: the event id */
	int pid;		/* common_pid */
	const struct strobe_format *format; /* event type, NULL if the id is unknown */
	/*
	 * Events lost on this CPU just before this one, as the ring-buffer page
	 * header says: 0 none, > 0 that many, -1 some (count unknown).
	 */
	int64_t missed;
	uint64_t file_offset;	/* offset of the record in its source, for messages */
};

/*
 * A source of ring-buffer pages for one CPU (a trace file's CPU cursor, a
 * live capture's per-CPU queue, synthetic pages in tests).
 *
 * next_page returns 1 and sets *page (page_size bytes, valid until the
 * next call), 0 at the end, -EAGAIN when a live feed has no page ready
 * yet (not an error and not the end: the stream asks again later), or
 * another -errno on error (the feed is then ended).
 *
 * idle_until (live feeds; NULL for files) returns a timestamp, in the
 * feed's clock before ts_offset, below which the feed will produce no
 * further event: the CPU's buffer was found empty at that time.  While a
 * feed is waiting (-EAGAIN), the stream hands out other feeds' events
 * only up to that time, so events stay in timestamp order across CPUs.
 * A waiting feed without idle_until holds the stream back until it has
 * a page.
 */
struct strobe_page_feed {
	int (*next_page)(void *ctx, const uint8_t **page, uint64_t *offset,
			 struct strobe_error *err);
	uint64_t (*idle_until)(void *ctx);
	/* Live feeds, may be NULL: the stream is held up by this waiting
	 * feed; ask its producer for pages and a fresh watermark now
	 * rather than at its next periodic flush. */
	void (*kick)(void *ctx);
	void (*close)(void *ctx);
	void *ctx;
	int cpu;		/* real CPU number */
	int buffer;		/* buffer index reported in events */
};

struct strobe_stream;

struct strobe_stream_opts {
	size_t size;		/* sizeof(struct strobe_stream_opts), or 0 */
	int buffer;		/* -1: every buffer of the file; else that index */
	/* Only these CPUs if cpu_mask != NULL (cpu_mask[cpu] true = keep),
	 * cpu_mask has nr_cpu_mask entries. */
	const bool *cpu_mask;
	int nr_cpu_mask;
};

/*
 * Stream over a trace file.  opts may be NULL (all buffers, all CPUs).
 * The stream borrows tf (which must outlive it).  Returns 0 or -errno.
 */
int strobe_stream_open_file(struct strobe_tracefile *tf,
			    const struct strobe_stream_opts *opts,
			    struct strobe_stream **out, struct strobe_error *err);

/*
 * Stream over arbitrary feeds (taken over: closed by strobe_stream_close).
 * page_size and commit_size as in the ring buffer's header_page; formats
 * (borrowed, may be NULL) maps event ids to formats.  ts_offset is added
 * to every timestamp.
 */
int strobe_stream_open_feeds(struct strobe_page_feed *feeds, int nr_feeds,
			     unsigned page_size, unsigned commit_size,
			     struct strobe_formats *formats, int64_t ts_offset,
			     struct strobe_stream **out, struct strobe_error *err);

/*
 * Next event in timestamp order (ties: lower feed index first, then file
 * order).  Returns 1 with *ev filled, 0 at the end, -EAGAIN when a live
 * stream has nothing that can be handed out yet (wait with
 * strobe_stream_wait, then call again), other -errno on corruption
 * (with *err naming the CPU and file offset); after an error the stream
 * may be continued: the bad page is skipped.
 */
int strobe_stream_next(struct strobe_stream *s, struct strobe_event *ev,
		       struct strobe_error *err);

/*
 * Live streams: a file descriptor that becomes readable when new pages
 * may have arrived (for poll/epoll loops), or -1 for a file stream.
 */
int strobe_stream_fd(const struct strobe_stream *s);

/*
 * Wait up to timeout_ms (-1: no limit) for new pages of a live stream.
 * Returns 1 when something may be ready, 0 on timeout, -EINTR when a
 * signal interrupted the wait; a file stream returns 1 at once.
 */
int strobe_stream_wait(struct strobe_stream *s, int timeout_ms);

/* Totals so far: events returned and events reported lost (known counts),
 * and the number of "lost, count unknown" marks. */
struct strobe_stream_stats {
	uint64_t events;
	uint64_t missed;
	uint64_t missed_unknown;
};
void strobe_stream_stats(const struct strobe_stream *s,
			 struct strobe_stream_stats *st);

void strobe_stream_close(struct strobe_stream *s);	/* NULL ok */

/* The stream's format catalogue (NULL if it has none); owned by its
 * source (the trace file or the capture). */
struct strobe_formats *strobe_stream_formats(const struct strobe_stream *s);

/* ---- several trace files on one timeline ------------------------------- */

/*
 * A merge hands out the events of several trace files (of several hosts,
 * say) in time order, each tagged with its source: the index of its file
 * in the array given to strobe_merge_open.  Each file keeps its own
 * stream, formats and task model (TIDs repeat across hosts: look an
 * event up in its own file's model).
 *
 * The timeline: when every file carries strobe record's clock pairings
 * (strobe info "clock_sync_start"/"clock_sync_end", see
 * strobe_session_clock_sync), event timestamps are mapped to wall-clock
 * time, ns since the epoch: the trace time plus the file's offset to
 * CLOCK_REALTIME, interpolated between the start and end pairings.
 * Otherwise (a file without pairings, or opts->raw) every event keeps its
 * file's raw timestamp and strobe_merge_wall() is false: the order is
 * then only meaningful when the files share a clock.
 */
struct strobe_merge;

struct strobe_merge_opts {
	size_t size;		/* sizeof(struct strobe_merge_opts), or 0 */
	bool raw;		/* keep raw timestamps even when pairings exist */
};

/*
 * Open a merge over nr trace files (borrowed: they must outlive the
 * merge).  opts (may be NULL) applies to each file's stream (CPU mask,
 * buffer); mopts may be NULL.  Returns 0 or -errno with *err set; free
 * with strobe_merge_close.
 */
int strobe_merge_open(struct strobe_tracefile *const *tfs, int nr,
		      const struct strobe_stream_opts *opts,
		      const struct strobe_merge_opts *mopts,
		      struct strobe_merge **out, struct strobe_error *err);
/*
 * Next event on the timeline (ties: lower source first): 1 with *ev
 * filled (ev->ts on the merge's timeline, ev->format in its own file's
 * catalogue) and *source (may be NULL) its file's index, 0 at the end,
 * -errno on a corrupt page of file *source (*err says where; the next
 * call goes on after the bad page).  *ev stays valid until the next call.
 */
int strobe_merge_next(struct strobe_merge *m, struct strobe_event *ev, int *source,
		      struct strobe_error *err);
int strobe_merge_nr_sources(const struct strobe_merge *m);
/* The host name of a source: the file's strobe info "host" (else the node
 * name of trace-cmd's UNAME, else "?"), made unique with "#N" (N = index
 * + 1) when two files name the same host.  NULL for a bad index. */
const char *strobe_merge_host(const struct strobe_merge *m, int source);
/* A source's stream (for strobe_stream_stats, strobe_tracefile_events_done),
 * owned by the merge; NULL for a bad index. */
struct strobe_stream *strobe_merge_stream(const struct strobe_merge *m, int source);
/* true when timestamps are wall-clock ns (every file has pairings). */
bool strobe_merge_wall(const struct strobe_merge *m);
/* A timestamp of source's file (as its own stream gives it: analysis
 * results, say) on the merge's timeline; unchanged when not wall or for a
 * bad index. */
uint64_t strobe_merge_map_ts(const struct strobe_merge *m, int source, uint64_t ts);

/* What a source's pairings say about its clock. */
struct strobe_merge_clock {
	int nr_sync;		/* pairings found: 0 (no offset known), 1 or 2 */
	int64_t offset_ns;	/* wall clock - trace clock at the first pairing */
	uint64_t error_ns;	/* the widest bracket of its pairings (+-) */
	int64_t drift_ns;	/* offset at the end pairing - offset_ns (2 only) */
	uint64_t span_ns;	/* trace time between the two pairings (2 only) */
	uint64_t start_trace_ns;	/* trace time of the first pairing */
	int64_t file_ts_offset;	/* the file's OFFSET option, in event ts */
};
/*
 * So an event of that source at ts (as its file's stream gives it) lies,
 * on a wall-clock timeline, at: raw = ts - file_ts_offset; raw +
 * offset_ns + drift_ns * (clamp(raw, start_trace_ns, start_trace_ns +
 * span_ns) - start_trace_ns) / span_ns (the last term 0 unless
 * nr_sync == 2), as strobe_merge_next computes it.
 */
/* Fill *out for a source: 0 or -EINVAL (bad index). */
int strobe_merge_clock(const struct strobe_merge *m, int source,
		       struct strobe_merge_clock *out);
void strobe_merge_close(struct strobe_merge *m);	/* NULL ok */

/* ---- iteration with a callback ------------------------------------------ */

struct strobe_capture;

/* What ended strobe_stream_iterate(). */
enum strobe_iter_end {
	STROBE_ITER_END = 0,	/* the stream ended (file read, capture drained) */
	STROBE_ITER_STOPPED,	/* the callback asked to stop */
	STROBE_ITER_TIMEOUT,	/* timeout_ms passed (the capture was drained) */
	STROBE_ITER_TARGET_EXIT,	/* the target exited (the capture was drained) */
	STROBE_ITER_SIGNAL,	/* *stop was set (the capture was drained) */
};

/* The callback returns 0 to go on, STROBE_ITER_STOP to stop at once,
 * or a negative errno (iteration stops and returns it). */
#define STROBE_ITER_STOP 1
typedef int (*strobe_event_cb)(const struct strobe_event *ev, void *arg);

struct strobe_iterate_opts {
	size_t size;		/* sizeof(struct strobe_iterate_opts) */
	int timeout_ms;		/* > 0: stop after this long; 0 = no limit */
	pid_t target;		/* > 0: stop when this process exits (a child
				 * is not reaped: waitpid() it afterwards) */
	volatile sig_atomic_t *stop;	/* stop when *stop becomes non-zero
				 * (set it from a signal handler) */
	/* Live: the stream's capture.  On a timeout, target exit or *stop
	 * it is stopped and the rest of its events still go through the
	 * callback, so nothing captured is lost.  NULL for file streams. */
	struct strobe_capture *capture;
};

/*
 * Hand every event of s to cb, in order, until the stream ends or a stop
 * condition of opts (may be NULL) holds; a live stream is waited on
 * without spinning.  Returns an enum strobe_iter_end, or -errno (a failed
 * stop, or the callback's own; a damaged page is skipped, strobe-damage(7)) with *err set.
 */
int strobe_stream_iterate(struct strobe_stream *s, strobe_event_cb cb, void *arg,
			  const struct strobe_iterate_opts *opts, struct strobe_error *err);

/* ---- event identity and formats ----------------------------------------- */

/* The event's name ("sched_switch") and system ("sched"), or NULL when
 * its id has no known format.  Valid as long as the stream is open. */
const char *strobe_event_name(const struct strobe_event *e);
const char *strobe_event_system(const struct strobe_event *e);

/* The format of `system`:`name` ("sched", "sched_switch"; system NULL =
 * any system), or of event id `id`; NULL when the catalogue has none. */
const struct strobe_format *strobe_formats_find(struct strobe_formats *f,
						const char *system, const char *name);
const struct strobe_format *strobe_formats_by_id(struct strobe_formats *f, int id);
/* The highest event id with a format, -1 if none. */
int strobe_formats_max_id(struct strobe_formats *f);

/* Every format of the catalogue, in id order, through cb (which returns 0
 * to go on, anything else to stop and have that returned). */
int strobe_formats_each(struct strobe_formats *f,
			int (*cb)(const struct strobe_format *fmt, void *arg), void *arg);

/* A saved command name of pid (the trace's saved_cmdlines), or NULL. */
const char *strobe_formats_comm(struct strobe_formats *f, int pid);

const char *strobe_format_name(const struct strobe_format *fmt);
const char *strobe_format_system(const struct strobe_format *fmt);
int strobe_format_id(const struct strobe_format *fmt);
/* The catalogue fmt belongs to (NULL if fmt is NULL): what a consumer
 * that is handed events, not their stream (strobe_record's on_event),
 * attaches analyses or sinks to. */
struct strobe_formats *strobe_format_catalogue(const struct strobe_format *fmt);

/*
 * Formats of records that are not ftrace events (a BPF program's, perf
 * samples', a test's: see strobe_record_source in pipeline.h), declared
 * into a catalogue so that their records share the timeline, the model
 * and every consumer with the ftrace events.  A declared format is an
 * ftrace format like any other: strobe writes its text as tracefs would
 * (the 8-byte common header, common_type u16 at 0, common_flags and
 * common_preempt_count u8 at 2 and 3, common_pid s32 at 4, then the
 * fields as declared) with a print format that prints `field=value ...`,
 * so reports, filters, trace.dat files and trace-cmd read it.
 *
 * A field named "callchain" of type "__data_loc u64[]" holds the record's
 * call chain (strobe_event_callchain).
 */
struct strobe_field_decl {
	const char *type;	/* as a tracefs format says it: "u32", "s64",
				 * "pid_t", "char[16]", "__data_loc char[]",
				 * "__data_loc u64[]" */
	const char *name;	/* [A-Za-z_][A-Za-z0-9_]* */
	uint16_t offset;	/* in the payload, at least 8 (after the header) */
	uint16_t size;		/* bytes; 4 for __data_loc fields */
	bool is_signed;
};
struct strobe_format_decl {
	size_t size;		/* sizeof(struct strobe_format_decl) */
	const char *system;	/* "strobe_bpf" */
	const char *name;	/* "execve" */
	const struct strobe_field_decl *fields;
	int nr_fields;
};
/*
 * Declare a format into catalogue f: it gets the next free event id
 * (above every id the catalogue holds) and is found by name and id like
 * every other.  *out (may be NULL) is the new format, owned by f.
 * Returns the id (>= 0) or -EINVAL (a bad name, type or layout; *err
 * says which), -EEXIST (system:name is taken), -ENOMEM.
 */
int strobe_formats_declare(struct strobe_formats *f, const struct strobe_format_decl *d,
			   const struct strobe_format **out, struct strobe_error *err);
/* A declared format's text, as a tracefs format file would hold it (for
 * storing in a trace file); NULL for other formats (their text is the
 * kernel's or the file's).  Owned by the catalogue. */
const char *strobe_format_text(const struct strobe_format *fmt);

/*
 * The call chain of an event: copies up to max addresses (innermost
 * first) into ips (may be NULL when max is 0) and returns how many the
 * event holds (more than max: cut), 0 when its format has no "callchain"
 * field.
 */
int strobe_event_callchain(const struct strobe_event *e, uint64_t *ips, int max);

/* ---- field accessors ------------------------------------------------- */

/* A field's place in the payload, resolved once per event type. */
struct strobe_field {
	uint16_t offset;
	uint16_t size;		/* bytes; for __data_loc fields 4 */
	uint8_t is_signed;
	uint8_t is_dynamic;	/* __data_loc: offset/len word at `offset` */
	uint8_t valid;		/* 0 if the field was not found */
	uint8_t is_relative;	/* __rel_loc: data offset counts from the end
				 * of the offset/len word (offset + 4) */
};

/* Resolve `name` in format `fmt` (which may be NULL: result invalid).
 * Common fields (common_pid ...) are found too.  Returns 0 or -ENOENT. */
int strobe_field_resolve(const struct strobe_format *fmt, const char *name,
			 struct strobe_field *f);

/* What a format says about one of its payload fields. */
struct strobe_field_info {
	const char *name;	/* "prev_comm" */
	const char *type;	/* as declared: "char[16]", "__data_loc char[]" */
	struct strobe_field field;	/* where it is (valid = 1) */
	uint16_t elem_size;	/* arrays: bytes per element; else size */
	uint8_t is_array;	/* fixed or dynamic array (strings included) */
	uint8_t is_string;	/* char array or __data_loc/__rel_loc string */
	uint8_t is_pointer;	/* a kernel or user address */
};

/* Number of payload fields (the common_* fields excluded), and field i of
 * them in declaration order.  The info's texts belong to the format.
 * strobe_format_field returns 0, or -ENOENT for i out of range, -ENOMEM. */
int strobe_format_nr_fields(const struct strobe_format *fmt);
int strobe_format_field(const struct strobe_format *fmt, int i,
			struct strobe_field_info *out);

/* Integer value of a fixed field of 1, 2, 4 or 8 bytes: strobe_field_int
 * sign-extends signed fields, strobe_field_uint returns the raw bits
 * zero-extended.  0 if the field is invalid, dynamic, of another size, or
 * lies outside the payload. */
int64_t strobe_field_int(const struct strobe_event *e, const struct strobe_field *f);
uint64_t strobe_field_uint(const struct strobe_event *e, const struct strobe_field *f);
/* String/array field: pointer into the payload and its length (bounded by
 * the payload); NULL if invalid or out of bounds.  The length is the
 * field's bytes (fixed arrays: the array size; __data_loc/__rel_loc: the
 * stored length), so strings may include their NUL: use strnlen(p, len).
 * len may be NULL. */
const char *strobe_field_str(const struct strobe_event *e,
			     const struct strobe_field *f, uint32_t *len);

#ifdef __cplusplus
}
#endif

#endif
