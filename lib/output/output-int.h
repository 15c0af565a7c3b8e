/*
 * output-int.h - what the files of lib/output share and nothing else
 * needs (internal, hidden from libstrobe.so's exports).
 */
#ifndef STROBE_OUTPUT_INT_H
#define STROBE_OUTPUT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/trace-seq.h>

#include <strobe/output.h>
#include "util/buf.h"
#include "util/err.h"

struct tep_event;
struct tep_format_field;
struct tep_record;
struct trace_seq;

/* Element size of a dynamic array from its type, e.g. "__data_loc u32[]":
 * one rule for the JSON writer and the SQL sink, so both agree. */
static inline int strobe_type_elem_size(int long_size, const char *type)
{
	if (strstr(type, "long long") || strstr(type, "64"))
		return 8;
	if (strstr(type, "long"))
		return long_size ? long_size : 8;
	if (strstr(type, "short") || strstr(type, "16"))
		return 2;
	if (strstr(type, "char") || strstr(type, "8") || strstr(type, "bool"))
		return 1;
	if (strstr(type, "int") || strstr(type, "32") || strstr(type, "pid_t"))
		return 4;
	return 1;
}

/* The zero-extended value of a field of 1, 2, 4 or 8 bytes (any other
 * size reads 8) stored in the host's byte order. */
static inline uint64_t strobe_read_native(const void *p, unsigned size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

/* "00".."99": two decimal digits at a time (text.c). */
extern const char strobe_digit_pairs[200] STROBE_HIDDEN;

/* Decimal digits of v written backwards ending at end; returns their
 * start (at most 20 bytes before end). */
static inline char *strobe_utoa_rev(char *end, uint64_t v)
{
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, strobe_digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, strobe_digit_pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* Decimal digits in v (1 for 0). */
static inline unsigned strobe_u64_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	/* bits * log10(2) (at most 19), then one up where v reaches the
	 * next power of ten; v | 1 has v's digits, and one for 0 */
	uint64_t w = v | 1;
	unsigned d = ((64 - (unsigned)__builtin_clzll(w)) * 1233) >> 12;

	return d + (w >= pow10[d]);
}

/* "%llu" of v at p, which has 24 bytes of room; returns the new end.
 * The digits go straight to their place, counted first, rather than into
 * a buffer copied with one wide load right after its two-byte stores
 * (a load that cannot be served from several pending stores waits).
 * strobe report on 10 M events: user time median 1.04 s against 1.11 s
 * (7 interleaved runs each), for 0.6% more instructions. */
static inline char *strobe_put_u64(char *p, uint64_t v)
{
	char *end = p + strobe_u64_digits(v);

	strobe_utoa_rev(end, v);
	return end;
}

/* Room strobe_cache_info() wants for an info part (it gives up on longer
 * ones). */
#define STROBE_INFO_MAX 2048

/* Make room for n more bytes after s->len in the trace_seq's buffer, the
 * way trace_seq_puts() grows it (realloc of the malloc'd buffer), so a
 * writer can fill s->buffer + s->len directly and then add to s->len.
 * false when out of memory or s already failed (its state says so). */
static inline bool strobe_seq_reserve(struct trace_seq *s, size_t n)
{
	size_t size;
	char *b;

	if (s->state != TRACE_SEQ__GOOD)
		return false;
	if (s->buffer_size - s->len > n)
		return true;
	size = s->buffer_size;
	while (size - s->len <= n)
		size *= 2;
	if (size > 0xffffffffU) {
		s->state = TRACE_SEQ__MEM_ALLOC_FAILED;
		return false;
	}
	b = realloc(s->buffer, size);
	if (!b) {
		s->state = TRACE_SEQ__MEM_ALLOC_FAILED;
		return false;
	}
	s->buffer = b;
	s->buffer_size = (unsigned)size;
	return true;
}

/* Append the time column (" %6.1000d:" and friends, see text.c) at p;
 * needs at most 40 bytes.  Returns the new end. */
char *strobe_put_time(char *p, unsigned long long ts,
		      enum strobe_ts_style style) STROBE_HIDDEN;

/*
 * The time column's second, kept from line to line: most lines share it
 * with the line before, so the microseconds are all that is formatted
 * (strobe report: 72 instructions a line down to about 30).
 */
struct strobe_ts_memo {
	uint64_t lo, span;	/* ts - lo < span: ts is in the second below
				 * (span 0: nothing kept yet) */
	uint64_t us0;		/* that second's first microsecond */
	char txt[8];		/* its " %5llu." (7 bytes) */
};
/* The memo of cache c (one per cache, for the time column of its lines). */
struct strobe_ts_memo *strobe_cache_ts_memo(struct strobe_format_cache *c) STROBE_HIDDEN;

/* A tep_record describing ev (borrowed pointers), for libtraceevent. */
void strobe_fill_record(struct tep_record *rec,
			const struct strobe_event *ev) STROBE_HIDDEN;

/* Does ev's record hold every field of its format, including the data
 * of __data_loc/__rel_loc fields?  (bounds.c; false if no format) */
bool strobe_event_fits(const struct strobe_event *ev) STROBE_HIDDEN;

/* strobe_json_escape() on the trace_seq inside a strobe_buf. */
struct trace_seq;
int json_escape_seq(struct trace_seq *s, const char *str, size_t len) STROBE_HIDDEN;
/* The note printed instead of the info of a record that does not. */
void strobe_put_bad_record(struct trace_seq *s, const struct strobe_event *ev) STROBE_HIDDEN;

/* Comm of pid through the cache's small table (and its strlen). */
const char *strobe_cache_comm(struct strobe_format_cache *c, int pid) STROBE_HIDDEN;
const char *strobe_cache_comm_len(struct strobe_format_cache *c, int pid,
				  size_t *len) STROBE_HIDDEN;
/* The "%16s-%-5d " columns of pid's lines (comm and pid), *len bytes
 * readable as 32 (slack); NULL when the comm is longer than 16 bytes.
 * *comm and *comm_len: the comm, as strobe_cache_comm_len() gives. */
const char *strobe_cache_task_col(struct strobe_format_cache *c, int pid,
				  size_t *len, const char **comm, size_t *comm_len) STROBE_HIDDEN;
/* The name column of event's lines, " NAME: " padded to 20 columns for
 * the name, *len bytes (not NUL-terminated, readable as 32 at least);
 * NULL for an absurd name. */
const char *strobe_cache_head(struct strobe_format_cache *c, const struct tep_event *event,
			      size_t *len) STROBE_HIDDEN;
/* ev's info part written at buf (cap bytes, at least STROBE_INFO_MAX;
 * NUL-terminated) by the fast path: its length, or -1 when the caller
 * must use libtraceevent instead. */
int strobe_cache_info(struct strobe_format_cache *c, const struct strobe_event *ev,
		      char *buf, size_t cap) STROBE_HIDDEN;

/* How json.c writes one field: kind, where it is, its elements. */
enum strobe_field_plan_kind {
	FP_NULL,	/* never inside a record: null */
	FP_NUMBER,	/* 1, 2, 4 or 8 bytes */
	FP_STRING,	/* a char array, up to its first NUL */
	FP_ARRAY,	/* numbers of elem bytes (also a field of odd size) */
	FP_DYN_STRING,	/* __data_loc / __rel_loc char[] */
	FP_DYN_ARRAY,	/* __data_loc / __rel_loc numbers */
};
struct strobe_field_plan {
	uint8_t kind;	/* enum strobe_field_plan_kind */
	bool is_signed;
	bool relative;	/* __rel_loc: the offset counts from the field's end */
	bool rest;	/* "char buf[]": the array runs to the record's end */
	int elem;	/* array element bytes */
	int offset, size;
};
struct strobe_field_plan strobe_field_plan(const struct tep_format_field *f,
					   int long_size) STROBE_HIDDEN;

/* ev's fields as the JSON object strobe_format_event_json() writes as
 * "fields" ({} without a format) into dst: snprintf's contract (at most
 * size - 1 bytes and a NUL; returns the whole length).  cache may be NULL. */
size_t strobe_json_fields(struct strobe_formats *fmts, const struct strobe_event *ev,
			  struct strobe_format_cache *cache, char *dst, size_t size) STROBE_HIDDEN;

/* An event type's constant JSON text, escaped once (one allocation,
 * free() it). */
struct strobe_json_type {
	const char *head;	/* ,"event":"NAME","system":"SYS" */
	size_t head_len;
	size_t nr_fields;
	struct {
		const struct tep_format_field *field;
		struct strobe_field_plan plan;
		const char *key;	/* "name": with a leading ',' but the first */
		size_t key_len;
	} fields[];
};
struct strobe_json_type *strobe_json_type_new(const struct tep_event *event,
					      int long_size) STROBE_HIDDEN;
/* The cache's strobe_json_type for event (built on first use), or NULL. */
const struct strobe_json_type *strobe_cache_json_type(struct strobe_format_cache *c,
						       struct tep_event *event) STROBE_HIDDEN;
/* True when the file's byte order is the host's (fields read directly). */
bool strobe_cache_native(const struct strobe_format_cache *c) STROBE_HIDDEN;

#endif
