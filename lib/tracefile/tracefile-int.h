/*
 * tracefile-int.h - trace-cmd file format constants and the reader's private
 * state, shared by the files of lib/tracefile (internal).
 *
 * The facts below were checked against files written by trace-cmd 3.1.6
 * (extract, convert --file-version 6/7, --compression none/zstd):
 *
 *   v6:  magic, "6\0", endian, long size, page size, then header_page,
 *        header_event, ftrace formats, event systems, kallsyms (u32 size),
 *        printk (u32 size), cmdlines (u64 size), u32 cpus, optionally
 *        "options  \0" + options (u16 id, u32 size, data; the list ends
 *        with a bare u16 0), then "flyrecord\0" + cpus x (u64 offset,
 *        u64 size).  If a TRACECLOCK option exists, the table is followed
 *        by u64 size + the clock text ("[local]", no NUL).  A v6 BUFFER
 *        option is u64 offset + name; at that offset the same
 *        "flyrecord\0" + table (+ clock) follows for the instance.
 *   v7:  magic, "7\0", endian, long size, page size, "algo\0version\0",
 *        u64 offset of the first options section, then sections: u16 id,
 *        u16 flags (1 = compressed), u32 string id, u64 size.  A
 *        compressed section holds u32 compressed size, u32 uncompressed
 *        size, data.  Options end with DONE (size 8: u64 offset of the
 *        next options section, 0 = none).  A v7 BUFFER option is u64
 *        section offset, name, clock, u32 page size, u32 cpus, cpus x
 *        (u32 cpu id, u64 offset, u64 size).  Compressed CPU data at
 *        `offset`: u32 chunk count, then per chunk u32 compressed size,
 *        u32 uncompressed size (page multiple), data; `size` counts the
 *        bytes after the chunk count.
 *   CPUSTAT options come in order: the top buffer's CPUs, then for each
 *        instance one CPUSTAT "\nBuffer: NAME\n\n" followed by its CPUs.
 *   Unknown option ids are skipped silently by trace-cmd report (3.1.6),
 *        and trace-cmd convert carries them over to v7.
 */
#ifndef STROBE_TRACEFILE_INT_H
#define STROBE_TRACEFILE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <strobe/tracefile.h>

#include "../util/err.h"
#include "format/tep.h"

#define TF_MAGIC		"\x17\x08\x44" "tracing"
#define TF_MAGIC_LEN		10
#define TF_SEC_HDR_LEN		16	/* u16 id, u16 flags, u32 string, u64 size */
#define TF_SEC_FL_COMPRESS	1

/* v7 section ids equal the option ids that point at them. */
#define TF_SEC_OPTIONS		0
#define TF_SEC_BUFFER		3

/* strobe's filler option: fills reserved room after a rewritten option. */
#define TF_OPT_STROBE_PAD	STROBE_TFO_STROBE_PAD

/* Reserved room for options the writer rewrites at close (payload bytes). */
#define TF_CPUSTAT_ROOM		2048
#define TF_INFO_ROOM		4096

/* Limits that keep hostile files from making us allocate absurd amounts. */
#define TF_MAX_SECTION_SIZE	(256u << 20)	/* uncompressed metadata section */
#define TF_MAX_CHUNK_SIZE	(64u << 20)	/* uncompressed data chunk */
#define TF_MAX_CPUS		8192

/* A bounds-checked little-endian reader over a byte range of the file or
 * of a decompressed section.  Errors name the section and the offset. */
struct tf_rd {
	const uint8_t *p;	/* start of the range */
	size_t len;		/* bytes in the range */
	size_t pos;		/* next byte to read */
	uint64_t file_off;	/* file offset of p[0] (for messages) */
	bool inflated;		/* p is decompressed: offsets are approximate */
	const char *section;	/* section name for messages */
	const char *path;
	struct strobe_error *err;
	/* p lies in tf's file image: bytes are read in from the file as the
	 * cursor reaches them (tf_load).  NULL: p is in memory already (a
	 * decompressed section, an option's payload). */
	struct strobe_tracefile *tf;
};

struct tf_option {
	uint16_t id;
	uint32_t size;
	const uint8_t *data;	/* in the mapping or a decompressed section */
};

/* Where one CPU's data lives in the file. */
struct tf_cpu_data {
	int cpu;		/* real CPU number */
	uint64_t offset;	/* file offset of the data (or of the chunk count) */
	uint64_t size;		/* bytes in the file (after the chunk count) */
	uint64_t data_size;	/* uncompressed bytes */
	uint32_t nr_chunks;	/* compressed: chunks at offset + 4 */
};

struct tf_buffer {
	char *name;
	char *clock;
	bool compressed;
	int nr_cpus;
	struct tf_cpu_data *cpus;
	uint64_t data_size;
};

struct tf_cpustat {
	int buffer;		/* index in bufs, -1 if the name is unknown */
	int cpu;
	int64_t overrun;
};

/*
 * The file image: tf->data is an anonymous, lazily filled mapping as
 * large as the file was at open.  Only bytes the parsers reach are read
 * in (pread, TF_LOAD_BLOCK at a time, tf->loaded says which); CPU data is
 * never read in there (the cursors of cpu.c pread it into windows of their
 * own).  Nothing is ever mapped from the file itself, so a file that
 * shrinks while it is read gives an error (a short read), never SIGBUS.
 */
#define TF_LOAD_BLOCK		4096u

struct strobe_tracefile {
	char *path;
	const uint8_t *data;	/* the file image (see above), or NULL */
	size_t len;		/* file size at open */
	size_t map_len;		/* bytes mapped at data */
	int fd;
	uint8_t *loaded;	/* bitmap: TF_LOAD_BLOCK blocks read in */
	int version;
	int long_size;
	unsigned page_size;
	char *compression;	/* "none" or the algorithm name */
	/* event formats (format/tep.h): commit size and damaged formats too */
	struct strobe_tep t;
	int64_t ts_offset;

	struct tf_option *opts;
	size_t nr_opts, cap_opts;
	void **blocks;		/* decompressed sections we own */
	size_t nr_blocks;

	struct tf_buffer *bufs;	/* bufs[0] is the top buffer "" */
	int nr_bufs;

	struct tf_cpustat *stats;
	size_t nr_stats;

	unsigned nr_bad_formats; /* formats skipped (fmtcheck or libtraceevent) */
	char bad_names[256];	/* "system:name, ..." of the first of them */
	/* diag.c: what is wrong with the file, in the order found */
	struct tf_diag {
		enum strobe_tf_diag_kind kind;
		char *msg;
	} *diags;
	int nr_diags;
	bool events_done;	/* strobe_tracefile_events_done() was called */
	uint64_t max_ts;	/* latest event time seen */
	uint64_t backwards;	/* events seen earlier than an event before them */
	uint64_t back_ts, back_by;	/* the first of those, and by how much */
	int back_cpu;
	/* records shorter than their format's fields reach (told by the
	 * file's streams: tf_note_short_record) */
	uint64_t short_records;
	const struct strobe_format *short_fmt;	/* the first's format */
	uint32_t short_size;			/* and its size and CPU */
	int short_cpu;
	bool short_more;			/* other formats had some too */
	char damage[512];	/* "" or why only part of the data is read */
	uint64_t bad_data;	/* damaged pages/chunks skipped by readers */
	char bad_first[320];	/* the first of them, as the reader said */
	char *info;		/* STROBE_INFO text, lines split by NULs */
	size_t info_len;
};

/* ---- cpu.c ---- */
/*
 * Pages handed out by the cursors of one reading thread that other
 * threads go on using after the cursor moved on (the pipeline's
 * workers, lib/pipeline/workers.c): the reading thread numbers its
 * hand-offs (taken: the one being filled, written by it alone); the
 * other threads say how far they are done (released: every hand-off
 * below it, written atomically).  A cursor given a hold keeps each
 * window (or inflated chunk) it leaves, tagged with taken, until
 * released passes the tag, then reuses or frees it: a page stays valid
 * until the hand-off it went into is released.
 */
struct strobe_page_hold {
	uint64_t taken;
	uint64_t released;
};
/* The cursor's pages stay valid as hold says (borrowed; it outlives the
 * cursor's reading, NULL: until the next call, as without). */
void tf_cpu_set_hold(struct strobe_tf_cpu *c, const struct strobe_page_hold *h) STROBE_HIDDEN;

/* ---- read.c ---- */
/* The file's tep_handle, for the library's own formatting. */
struct tep_handle *strobe_tracefile_tep(struct strobe_tracefile *tf) STROBE_HIDDEN;

/* ---- read.c: shared helpers ---- */
/* CPU data past the end of the file: keep its whole pages, note the damage. */
void tf_clamp_cpu(struct strobe_tracefile *tf, struct tf_cpu_data *c,
		  const char *section, uint64_t at) STROBE_HIDDEN;
int tf_rd_fail(struct tf_rd *r, size_t need) STROBE_HIDDEN;
int tf_u16(struct tf_rd *r, uint16_t *v) STROBE_HIDDEN;
int tf_u32(struct tf_rd *r, uint32_t *v) STROBE_HIDDEN;
int tf_u64(struct tf_rd *r, uint64_t *v) STROBE_HIDDEN;
int tf_bytes(struct tf_rd *r, size_t n, const uint8_t **out) STROBE_HIDDEN;
/* A NUL-terminated string inside the range; *out points into it. */
int tf_str(struct tf_rd *r, const char **out) STROBE_HIDDEN;
/*
 * Read the file's bytes [off, off + n) into the image (clamped to the
 * size at open).  Returns 0 or -errno with *err set; -EIO "the file
 * shrank while being read" when the file ended early.
 */
int tf_load(struct strobe_tracefile *tf, uint64_t off, uint64_t n,
	    struct strobe_error *err) STROBE_HIDDEN;
/* Step over n bytes without reading them in (bounds checked). */
int tf_skip(struct tf_rd *r, size_t n) STROBE_HIDDEN;
/* Start reading the file at `off` up to its end (or `end` if smaller). */
void tf_rd_file(struct tf_rd *r, struct strobe_tracefile *tf, uint64_t off,
		uint64_t end, const char *section, struct strobe_error *err)
	STROBE_HIDDEN;

/* Metadata parsers shared by v6 and v7 (they feed tf->t). */
int tf_parse_headers(struct strobe_tracefile *tf, struct tf_rd *r) STROBE_HIDDEN;
int tf_parse_ftrace(struct strobe_tracefile *tf, struct tf_rd *r) STROBE_HIDDEN;
int tf_parse_systems(struct strobe_tracefile *tf, struct tf_rd *r) STROBE_HIDDEN;
int tf_parse_kallsyms(struct strobe_tracefile *tf, struct tf_rd *r) STROBE_HIDDEN;
int tf_parse_printk(struct strobe_tracefile *tf, struct tf_rd *r) STROBE_HIDDEN;
int tf_parse_cmdlines(struct strobe_tracefile *tf, struct tf_rd *r) STROBE_HIDDEN;

int tf_add_option(struct strobe_tracefile *tf, uint16_t id, uint32_t size,
		  const uint8_t *data, struct strobe_error *err) STROBE_HIDDEN;
/* Append a buffer; takes ownership of nothing, copies name and clock. */
struct tf_buffer *tf_add_buffer(struct strobe_tracefile *tf, const char *name,
				size_t name_len, const char *clock,
				size_t clock_len, struct strobe_error *err)
	STROBE_HIDDEN;

/* ---- diag.c ---- */
/* A damaged format skipped (text as in the file): count it, keep its name. */
void tf_diag_bad_format(struct strobe_tracefile *tf, const char *system,
			const char *text, size_t len) STROBE_HIDDEN;
/* Add the diagnostics known once the metadata is read (end of open). */
/* A record of this file shorter than its format's fields reach: counted,
 * the first kept, one diagnostic at strobe_tracefile_events_done (a
 * stream hook: ctx is the tracefile). */
struct strobe_event;
void tf_note_short_record(void *ctx, const struct strobe_event *ev) STROBE_HIDDEN;
int tf_diag_open(struct strobe_tracefile *tf, const char *model_problem,
		 struct strobe_error *err) STROBE_HIDDEN;
void tf_diag_free(struct strobe_tracefile *tf) STROBE_HIDDEN;

/* ---- write.c: instance buffers ---- */
/*
 * As strobe_tf_writer_open, with instance buffers names[0..nr_names) in
 * the file besides the top one (v6 BUFFER options and flyrecord tables,
 * as trace-cmd record -B writes them; each has nr_cpus CPUs, its tables
 * are zero until close).  Their data comes from tf_writer_add_buffer_cpu.
 */
int tf_writer_open_buffers(const char *path, const struct strobe_tf_meta *meta, int nr_cpus,
			   const char *const *names, int nr_names,
			   struct strobe_tf_writer **out, struct strobe_error *err) STROBE_HIDDEN;
/*
 * Append CPU cpu's pages (size bytes of fd from offset 0, or to its end
 * with UINT64_MAX; whole pages) as that CPU's data of instance buffer
 * `buffer` (an index into open's names), once per buffer and CPU, in any
 * order and at any time before close.  punch and ENOSPC as for
 * strobe_tf_writer_add_cpu.  Returns 0 or -errno.
 */
int tf_writer_add_buffer_cpu(struct strobe_tf_writer *w, int buffer, int cpu, int fd,
			     uint64_t size, bool punch, struct strobe_error *err) STROBE_HIDDEN;
int tf_writer_nr_cpus(const struct strobe_tf_writer *w) STROBE_HIDDEN;

/* ---- pack.c: records packed into ring-buffer pages ---- */
/*
 * The storage of records that are not ftrace pages (strobe-tracefile(3),
 * RECORDS BEYOND FTRACE PAGES): a packer turns records (ts, cpu, payload)
 * into ftrace ring-buffer pages, one page stream per CPU in a temporary
 * file made next to `near` (the output), that tf_packer_add_to hands to
 * a writer as an instance buffer's CPU data.  Payloads are ftrace
 * payloads (the 8-byte common header first, common_type a format the
 * file holds); timestamps are on the file's trace clock, never earlier
 * than the CPU's previous record.  Memory: one page per CPU used.
 */
struct tf_packer;
/* page_size and commit_size (4 or 8) as the file's header_page says;
 * nr_cpus: the file's.  Free with tf_packer_free (NULL ok).  0 or -errno. */
int tf_packer_new(const char *near, unsigned page_size, unsigned commit_size, int nr_cpus,
		  struct tf_packer **out, struct strobe_error *err) STROBE_HIDDEN;
void tf_packer_free(struct tf_packer *pk) STROBE_HIDDEN;
/*
 * Pack one record of `size` bytes (>= 8; stored padded with zeros to a
 * multiple of 4, as every ring-buffer record) at ts on cpu.  Returns 0,
 * -EINVAL (a bad CPU, a record earlier than the CPU's last, shorter than
 * its header), -EMSGSIZE (larger than a page can hold), or a write error.
 */
int tf_packer_add(struct tf_packer *pk, int cpu, uint64_t ts, const void *data,
		  uint32_t size, struct strobe_error *err) STROBE_HIDDEN;
/* count records were lost on cpu before the next one (-1: an unknown
 * number): the next page carries the ring buffer's lost-events mark, as
 * the kernel's own.  0 or -errno. */
int tf_packer_lost(struct tf_packer *pk, int cpu, int64_t count,
		   struct strobe_error *err) STROBE_HIDDEN;
/* Write the pages still being filled.  0 or -errno.  Records may follow
 * (on new pages). */
int tf_packer_finish(struct tf_packer *pk, struct strobe_error *err) STROBE_HIDDEN;
/* Records packed so far. */
uint64_t tf_packer_records(const struct tf_packer *pk) STROBE_HIDDEN;
/* Finish, then add every CPU's pages to w as instance buffer `buffer`
 * (tf_writer_add_buffer_cpu, the temporary files punched as they are
 * copied).  Once per packer.  0 or -errno. */
int tf_packer_add_to(struct tf_packer *pk, struct strobe_tf_writer *w, int buffer,
		     struct strobe_error *err) STROBE_HIDDEN;

/*
 * The formats a file with records of declared formats holds: m's (the
 * kernel's) followed by every format declared into f
 * (strobe_formats_declare; their system is the declared one).  *out is
 * a new array (caller frees it; the texts stay f's and m's).  -EEXIST
 * when a declared format has the ID of one of m's (declared before the
 * kernel's formats were all known), -ENOMEM.
 */
struct strobe_tf_format;
int tf_formats_with_declared(const struct strobe_tf_meta *m, struct strobe_formats *f,
			     struct strobe_tf_format **out, size_t *nr,
			     struct strobe_error *err) STROBE_HIDDEN;

/* ---- read-v7.c ---- */
int tf_read_v7(struct strobe_tracefile *tf, struct tf_rd *r) STROBE_HIDDEN;

/* Compression: uncompress one block of `csize` bytes into a new buffer of
 * exactly `usize` bytes (malloc, caller frees).  Returns 0 or -errno. */
int tf_inflate(const char *algo, const uint8_t *src, size_t csize,
	       size_t usize, uint8_t **out) STROBE_HIDDEN;

#endif
