/*
 * tracefile.h - reading and writing trace-cmd "trace.dat" files.
 *
 * Reading: versions 6 and 7 (v7 sections, optionally compressed with zstd),
 * the top-level buffer and named instance buffers.  The file is mapped
 * where possible; per-CPU data is handed out one ring-buffer page at a time
 * so the stream layer can decode straight from the mapping (v6, or
 * uncompressed v7) or from a small decompression window (compressed v7).
 *
 * Writing: version 6, the format every trace-cmd and KernelShark reads.
 * The writer does no tracefs I/O: the caller hands it the metadata texts
 * (header_page, formats, kallsyms, ...) and one file descriptor per CPU
 * holding that CPU's raw ring-buffer pages.
 *
 * Errors: see strobe.h.  A corrupted or truncated file never crashes or
 * loops; the message names the section and the file offset.
 */
#ifndef STROBE_TRACEFILE_H
#define STROBE_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_formats;

/* ---- reading --------------------------------------------------------- */

struct strobe_tracefile;	/* opaque: an open trace.dat */
struct strobe_tf_cpu;		/* opaque: a per-CPU page cursor */

/* Option ids of trace-cmd files that strobe understands or writes. */
enum strobe_tf_option {
	STROBE_TFO_DONE = 0,
	STROBE_TFO_DATE = 1,
	STROBE_TFO_CPUSTAT = 2,
	STROBE_TFO_BUFFER = 3,
	STROBE_TFO_TRACECLOCK = 4,
	STROBE_TFO_UNAME = 5,
	STROBE_TFO_HOOK = 6,
	STROBE_TFO_OFFSET = 7,
	STROBE_TFO_CPUCOUNT = 8,
	STROBE_TFO_VERSION = 9,
	STROBE_TFO_PROCMAPS = 10,
	STROBE_TFO_TRACEID = 11,
	STROBE_TFO_TIME_SHIFT = 12,
	STROBE_TFO_GUEST = 13,
	STROBE_TFO_TSC2NSEC = 14,
	STROBE_TFO_STRINGS = 15,
	STROBE_TFO_HEADER_INFO = 16,
	STROBE_TFO_FTRACE_EVENTS = 17,
	STROBE_TFO_EVENT_FORMATS = 18,
	STROBE_TFO_KALLSYMS = 19,
	STROBE_TFO_PRINTK = 20,
	STROBE_TFO_CMDLINES = 21,
	STROBE_TFO_BUFFER_TEXT = 22,
	/* strobe's own options: trace-cmd skips ids it does not know. */
	STROBE_TFO_STROBE_INFO = 0x5301,	/* "key=value\n" text, see below */
	/* Filler after a rewritten CPUSTAT in the writer's reserved room;
	 * its payload means nothing (readers skip it). */
	STROBE_TFO_STROBE_PAD = 0x5302,
	/* Where strobe's model table lies: u64 file offset, u64 size (both
	 * 0: none).  The table itself is appended after the last CPU data,
	 * where trace-cmd does not look; see strobe_tracefile_model_table. */
	STROBE_TFO_STROBE_MODEL = 0x5303,
};

struct strobe_tf_buffer_info {
	const char *name;	/* "" for the top-level buffer, else instance name */
	const char *clock;	/* trace clock, e.g. "local"; never NULL */
	int nr_cpus;		/* number of per-CPU data streams (may be 0) */
	uint64_t data_size;	/* sum of the (uncompressed) per-CPU data sizes */
};

/*
 * Open and parse a trace file's metadata.  On success *out owns the
 * file and an event-format catalogue (strobe_tracefile_formats) loaded
 * with the file's formats, kallsyms, printk formats, saved cmdlines and
 * libtraceevent's plugins.
 * Free with strobe_tracefile_close().  Returns 0 or -errno with *err set
 * (e.g. "x.dat: not a trace-cmd file (bad magic)").
 */
int strobe_tracefile_open(const char *path, struct strobe_tracefile **out,
			  struct strobe_error *err);
void strobe_tracefile_close(struct strobe_tracefile *tf);	/* NULL ok */
/* The path it was opened with (owned by tf). */
const char *strobe_tracefile_path(const struct strobe_tracefile *tf);

int strobe_tracefile_version(const struct strobe_tracefile *tf);	/* 6 or 7 */
unsigned strobe_tracefile_page_size(const struct strobe_tracefile *tf);
/* Size of the "commit" field of ring-buffer page headers (4 or 8). */
unsigned strobe_tracefile_commit_size(const struct strobe_tracefile *tf);
/* "none" or the compression algorithm name, e.g. "zstd". */
const char *strobe_tracefile_compression(const struct strobe_tracefile *tf);
/* Event formats of the file that were damaged and skipped (their events
 * have no format: ev->format NULL). */
unsigned strobe_tracefile_bad_formats(const struct strobe_tracefile *tf);
/*
 * NULL, or a one-line description of damage the reader worked around by
 * reading only part of the data, e.g. a file cut short inside a CPU's
 * data: only the whole pages present are read, and the message names the
 * section and offset.  Owned by tf.
 */
const char *strobe_tracefile_damage(const struct strobe_tracefile *tf);
/*
 * Diagnostics: what is wrong with the file, one sentence each, in the
 * order found.  Every command that reads a file prints each once on
 * stderr ("strobe CMD: warning: ...") and puts them in its JSON; a file
 * with diagnostics is still usable (exit status 0).  Known at open:
 * damaged formats, truncation, an incomplete recording, a missing
 * process table.  Known once the events are read: lost events and time
 * going backwards; whoever reads the events (strobe_analysis_run_file
 * does it itself) passes each to strobe_tracefile_see_event() and then
 * calls strobe_tracefile_events_done() once.
 */
enum strobe_tf_diag_kind {
	STROBE_TF_DIAG_BAD_FORMATS = 1,	/* event formats damaged and skipped:
					 * their events are not decoded */
	STROBE_TF_DIAG_TRUNCATED,	/* cut short: only part of the data read */
	STROBE_TF_DIAG_INCOMPLETE,	/* the recording says it stopped early */
	STROBE_TF_DIAG_NO_MODEL,	/* strobe's process and container table
					 * is missing or damaged */
	STROBE_TF_DIAG_LOST_EVENTS,	/* the ring buffer lost events */
	STROBE_TF_DIAG_TIME_BACKWARDS,	/* events earlier than one before them */
	STROBE_TF_DIAG_BAD_DATA,	/* damaged pages or chunks skipped */
	STROBE_TF_DIAG_SAME_FILE,	/* a notice: the file was given twice
					 * and is read once */
};
int strobe_tracefile_nr_diags(const struct strobe_tracefile *tf);
/* Message idx (0 .. nr-1) and its kind (kind may be NULL); NULL if out of
 * range.  Owned by tf. */
const char *strobe_tracefile_diag(const struct strobe_tracefile *tf, int idx,
				  enum strobe_tf_diag_kind *kind);
/* A short name for JSON: "bad_formats", "truncated", "incomplete",
 * "no_process_table", "lost_events", "time_backwards", "bad_data",
 * "same_file". */
const char *strobe_tf_diag_name(enum strobe_tf_diag_kind kind);
/*
 * Is a diagnostic of this kind damage in the sense of strobe-damage(7)
 * (data damaged or unreachable, skipped: bad formats, truncation, bad
 * data, time going backwards, a damaged process table)?  Lost events, an
 * incomplete recording and notices are not: they describe what was
 * recorded, not harm done to the file.
 */
bool strobe_tf_diag_is_damage(enum strobe_tf_diag_kind kind);
/*
 * Note damaged data that a reader of the file's events skipped (a page
 * the stream refused, say): msg (the stream's error message) is kept for
 * the first one, all are counted, and strobe_tracefile_events_done()
 * turns them into one STROBE_TF_DIAG_BAD_DATA diagnostic.
 */
void strobe_tracefile_note_bad_data(struct strobe_tracefile *tf, const char *msg);
/* How many were noted. */
uint64_t strobe_tracefile_bad_data(const struct strobe_tracefile *tf);
/* Add a diagnostic of the reader's own (kind, one sentence).  0 or
 * -ENOMEM. */
int strobe_tracefile_add_diag(struct strobe_tracefile *tf, enum strobe_tf_diag_kind kind,
			      const char *msg);

struct strobe_event;
struct strobe_stream_stats;
struct strobe_stream_opts;
/* Note one event of the file's stream (in stream order): cheap, for every
 * event.  Counts events whose time is before that of an event before. */
void strobe_tracefile_see_event(struct strobe_tracefile *tf,
				const struct strobe_event *ev);
/*
 * After the last event: add the diagnostics of what the events showed.
 * st: the stream's totals (lost-event marks in the pages; NULL none);
 * opts: the stream's options (only the selected CPUs' overrun statistics
 * count; NULL all).  Only the first call does anything.  Returns 0 or
 * -ENOMEM.
 */
int strobe_tracefile_events_done(struct strobe_tracefile *tf,
				 const struct strobe_stream_stats *st,
				 const struct strobe_stream_opts *opts);

/* The file's event formats (see stream.h); owned by tf, valid until
 * close. */
struct strobe_formats *strobe_tracefile_formats(struct strobe_tracefile *tf);

/* Timestamp offset (ns) the file asks readers to add (OFFSET option). */
int64_t strobe_tracefile_ts_offset(const struct strobe_tracefile *tf);

int strobe_tracefile_nr_buffers(const struct strobe_tracefile *tf);
/* Fill *info for buffer idx (0 .. nr_buffers-1).  Strings owned by tf. */
int strobe_tracefile_buffer(const struct strobe_tracefile *tf, int idx,
			    struct strobe_tf_buffer_info *info);

/*
 * Per-CPU statistics recorded in the file (CPUSTAT option, one text block
 * per CPU as in tracefs per_cpu/cpuN/stats).  Returns the "overrun" count
 * of that CPU (events the kernel dropped), 0 if none, or -1 if the file
 * has no statistics for it.
 */
int64_t strobe_tracefile_cpu_overrun(const struct strobe_tracefile *tf,
				     int buffer, int cpu);

/*
 * Raw option payload by id (first occurrence), or NULL.  *size receives
 * its length.  Pointer owned by tf.
 */
const void *strobe_tracefile_option(const struct strobe_tracefile *tf,
				    int id, size_t *size);

/*
 * strobe's own metadata (STROBE_TFO_STROBE_INFO, "key=value" lines), or
 * NULL when the key is absent.  Keys written by strobe record:
 *   "incomplete" = reason the recording was cut short (e.g. "disk full")
 *   "strobe_version", "command".
 */
const char *strobe_tracefile_info(const struct strobe_tracefile *tf,
				  const char *key);
/*
 * The host a file was recorded on: strobe's info "host" key when a
 * recording stored one (strobe record, --host-name); else, for files
 * strobe did not write, the node name in trace-cmd's UNAME option
 * ("sysname nodename release machine"; strobe's own UNAME has none);
 * else "".  Returns tf's string or buf (size bytes, NUL-terminated).
 */
const char *strobe_tracefile_host(const struct strobe_tracefile *tf, char *buf, size_t size);

/*
 * The model table (processes and containers, see strobe_model_load_file)
 * a strobe recording stored, or NULL when the file has none or the
 * STROBE_MODEL option points at anything else (e.g. a copy rewritten by
 * trace-cmd convert, whose offsets are stale).  *size receives its length.
 * Pointer owned by tf.
 */
const char *strobe_tracefile_model_table(const struct strobe_tracefile *tf,
					 size_t *size);

/*
 * Cursor over the pages of one CPU of one buffer.  `cpu` is the position
 * 0 .. nr_cpus-1 in that buffer; strobe_tf_cpu_id() gives the real CPU
 * number (v7 files may skip CPUs without data).
 */
int strobe_tf_cpu_open(struct strobe_tracefile *tf, int buffer, int cpu,
		       struct strobe_tf_cpu **out, struct strobe_error *err);
int strobe_tf_cpu_id(const struct strobe_tf_cpu *c);
/*
 * Hand out the next page: *page points at page_size bytes, valid until the
 * next call or close.  Returns 1 (a page), 0 (end of this CPU's data) or
 * -errno (corruption, decompression error) with *err naming the offset.
 */
int strobe_tf_cpu_next_page(struct strobe_tf_cpu *c, const uint8_t **page,
			    struct strobe_error *err);
void strobe_tf_cpu_close(struct strobe_tf_cpu *c);	/* NULL ok */

/* ---- writing (version 6) --------------------------------------------- */

/* One event format file, as read from tracefs events/<system>/<name>/format. */
struct strobe_tf_format {
	const char *system;	/* "ftrace" for ftrace internal events */
	const char *text;
	size_t len;
};

struct strobe_tf_blob {
	const char *data;
	size_t len;
};

/* Everything a v6 file needs besides the per-CPU data. */
struct strobe_tf_meta {
	unsigned page_size;		/* ring-buffer sub-buffer size, bytes */
	unsigned long_size;		/* user space long size: 4 or 8 */
	struct strobe_tf_blob header_page;	/* events/header_page */
	struct strobe_tf_blob header_event;	/* events/header_event */
	const struct strobe_tf_format *formats;	/* ftrace + event formats */
	size_t nr_formats;
	struct strobe_tf_blob kallsyms;		/* /proc/kallsyms (may be empty) */
	struct strobe_tf_blob printk;		/* printk_formats (may be empty) */
	struct strobe_tf_blob cmdlines;		/* "pid comm\n" lines */
	const char *clock;			/* e.g. "local" */
	const char *uname;			/* "sysname release version machine" or NULL */
	/* Per-CPU stats text (tracefs per_cpu/cpuN/stats) or NULL, nr_cpus entries. */
	const char *const *cpustats;
	/* "key=value\n" lines stored as STROBE_TFO_STROBE_INFO, or NULL. */
	const char *strobe_info;
};

/*
 * The writer works in three steps so that a recording can reserve its
 * file's metadata up front and still fill in facts known only at the end
 * (per-CPU statistics, "incomplete" marks):
 *
 *   strobe_tf_writer_open()    writes everything before the CPU data:
 *                              headers, formats, kallsyms, printk, cmdlines,
 *                              options (CPUSTAT and STROBE_INFO with room
 *                              reserved: 2 KiB per CPU, 4 KiB for info),
 *                              the flyrecord table (zeroed) and the clock;
 *   strobe_tf_writer_add_cpu() appends one CPU's raw pages, CPUs in order
 *                              0 .. nr_cpus-1, page aligned;
 *   strobe_tf_writer_close()   rewrites the reserved options and the
 *                              flyrecord table in place, and frees w.
 *
 * add_cpu copies `size` bytes (or to EOF if size is UINT64_MAX) of `fd`
 * from offset 0 with copy_file_range where possible.  If `punch` is true,
 * copied ranges are released from the source as the copy goes
 * (FALLOC_FL_PUNCH_HOLE), so assembling needs almost no extra disk space.
 * Only whole pages are copied.  On ENOSPC the CPU keeps what was copied
 * (whole pages), -ENOSPC is returned with *err set, and close still makes
 * a readable file.  A file whose writer was never closed has an all-zero
 * flyrecord table: readers see no data rather than garbage.
 *
 * Where the file is written: open creates it under a random name next to
 * `path` ("DIR/.NAME.XXXXXX": O_CREAT|O_EXCL, mode 0600, never through a
 * symlink); `path` itself is untouched until the writer is committed,
 * which renames the file onto `path` (replacing a file, or a symlink as a
 * name: its target is never written).  close commits when it finished the
 * file; discard drops the unfinished file and leaves `path` as it was.
 * A recording that must survive SIGKILL commits early (as soon as it has
 * something worth replacing an old file with): later steps keep writing
 * the same, now visible, file.
 */
struct strobe_tf_writer;

int strobe_tf_writer_open(const char *path, const struct strobe_tf_meta *meta,
			  int nr_cpus, struct strobe_tf_writer **out,
			  struct strobe_error *err);
int strobe_tf_writer_add_cpu(struct strobe_tf_writer *w, int cpu, int fd,
			     uint64_t size, bool punch, struct strobe_error *err);
/* Bytes of CPU data written so far for `cpu` (after add_cpu). */
uint64_t strobe_tf_writer_cpu_size(const struct strobe_tf_writer *w, int cpu);
/*
 * Append strobe's model table (`len` bytes of text) after the CPU data,
 * once every CPU has been added; close points the STROBE_MODEL option,
 * reserved at open, at it.  Returns 0 or -errno (-EINVAL when CPUs are
 * missing or a table was already added, -ENOSPC).
 */
int strobe_tf_writer_add_model(struct strobe_tf_writer *w, const char *text,
			       size_t len, struct strobe_error *err);
/*
 * Put the file in place now: rename it onto the `path` given at open,
 * replacing what is there.  Callable at any moment after open, once or
 * more (later calls do nothing); the writer goes on writing the same file.
 * Returns 0 or -errno (the rename's) with *err set.
 */
int strobe_tf_writer_commit(struct strobe_tf_writer *w, struct strobe_error *err);
/*
 * Finish the file.  cpustats (nr_cpus strings or NULL) and strobe_info
 * (or NULL) replace what meta gave at open; texts longer than the reserved
 * room are cut at a line boundary.  Then commit it (if not done yet).
 * Returns 0 or -errno; on error an uncommitted file is removed and `path`
 * keeps what it had.  Frees w always (NULL ok).
 */
int strobe_tf_writer_close(struct strobe_tf_writer *w,
			   const char *const *cpustats, const char *strobe_info,
			   struct strobe_error *err);
/*
 * Give up: free w, and remove the file unless it was committed (then it
 * stays as written so far: a readable file, see above).  For recordings
 * that failed before they had anything to keep (the command could not be
 * run): an older file at `path` survives.  NULL ok.
 */
void strobe_tf_writer_discard(struct strobe_tf_writer *w);

#ifdef __cplusplus
}
#endif

#endif
