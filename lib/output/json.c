/*
 * json.c - events as one JSON object per line, and the JSON string
 * escaper every command that writes JSON uses.
 *
 * Fields are decoded straight from the format description (struct
 * tep_format_field) rather than through print formats, so the output
 * keeps every value with its type (numbers stay numbers, strings are
 * strings) whatever the kernel's print fmt does with it.  Every read is
 * bounded by the payload size: a field that lies outside it is written as
 * null, never read.  How a field is decoded (struct strobe_field_plan)
 * is worked out from its description once per event type when a format
 * cache is given, per event otherwise, by the same function.
 *
 * Output goes through a small staging buffer (struct sink) that is
 * flushed into the caller's trace_seq in large pieces; the same sink in
 * "counting" mode backs strobe_json_escape_buf()'s snprintf semantics and
 * strobe_json_fields() (the ClickHouse sink's fields column).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <strobe/output.h>
#include <strobe/stream.h>

#include "format/format-int.h"
#include "output/output-int.h"

/*
 * Either appends to a trace_seq (s != NULL; buf is a staging area flushed
 * when full) or writes into a fixed buffer of cap bytes and counts what
 * did not fit (s == NULL).  `len` is the logical length written so far.
 */
struct sink {
	struct trace_seq *s;
	char *buf;
	size_t cap;	/* bytes usable in buf (fixed mode: without the NUL) */
	size_t used;	/* bytes in buf */
	size_t len;	/* logical length (fixed mode: may exceed cap) */
};

/*
 * libtraceevent exports no "append n bytes" for trace_seq, only puts, so
 * the staging buffer keeps one byte for a NUL.  What is staged never
 * contains a NUL itself: escape() writes NUL bytes as \u0000.
 */
static void sink_flush(struct sink *k)
{
	if (k->s && k->used) {
		k->buf[k->used] = '\0';
		trace_seq_puts(k->s, k->buf);
		k->used = 0;
	}
}

static void sink_put_slow(struct sink *k, const char *p, size_t n)
{
	k->len += n;
	if (!k->s) {
		size_t room = k->cap > k->used ? k->cap - k->used : 0;
		size_t c = n < room ? n : room;

		if (c)
			memcpy(k->buf + k->used, p, c);
		k->used += c;
		return;
	}
	while (n) {
		size_t room = k->cap - k->used;
		size_t c = n < room ? n : room;

		memcpy(k->buf + k->used, p, c);
		k->used += c;
		p += c;
		n -= c;
		if (k->used == k->cap)
			sink_flush(k);
	}
}

/* The fast path serves both modes: what fits is copied, the rest (a
 * flush, or counting what does not fit) is sink_put_slow's. */
static inline void sink_put(struct sink *k, const char *p, size_t n)
{
	if (k->used + n < k->cap) {
		memcpy(k->buf + k->used, p, n);
		k->used += n;
		k->len += n;
		return;
	}
	sink_put_slow(k, p, n);
}

static inline void sink_putc(struct sink *k, char c)
{
	if (k->used + 1 < k->cap) {
		k->buf[k->used++] = c;
		k->len++;
		return;
	}
	sink_put(k, &c, 1);
}

#define sink_lit(k, str) sink_put((k), (str), sizeof(str) - 1)

/* Decimal, two digits per division (pointers and timestamps have 15 to
 * 20 digits). */
static void sink_u64(struct sink *k, unsigned long long v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536"
		"37383940414243444546474849505152535455565758596061626364656667686970717273"
		"74757677787980818283848586878889909192939495969798" "99";
	char tmp[24];
	char *p = tmp + sizeof(tmp);

	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;

		v /= 100;
		*--p = pairs[i + 1];
		*--p = pairs[i];
	}
	if (v >= 10) {
		*--p = pairs[v * 2 + 1];
		*--p = pairs[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	sink_put(k, p, tmp + sizeof(tmp) - p);
}

static void sink_i64(struct sink *k, long long v)
{
	if (v < 0) {
		sink_putc(k, '-');
		sink_u64(k, 0ULL - (unsigned long long)v);
	} else {
		sink_u64(k, (unsigned long long)v);
	}
}

/* Length of the valid UTF-8 sequence at p (n bytes available), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len, i;
	unsigned cp;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = c & (0x3f >> (len - 1));
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* overlong, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void escape(struct sink *k, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)str;
	const unsigned char *end = p + len;
	const unsigned char *run;

	sink_putc(k, '"');
	while (p < end) {
		/* copy runs of plain printable ASCII at once */
		run = p;
		while (p < end && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			sink_put(k, (const char *)run, p - run);
		if (p >= end)
			break;
		switch (*p) {
		case '"':  sink_lit(k, "\\\""); p++; continue;
		case '\\': sink_lit(k, "\\\\"); p++; continue;
		case '\n': sink_lit(k, "\\n"); p++; continue;
		case '\t': sink_lit(k, "\\t"); p++; continue;
		case '\r': sink_lit(k, "\\r"); p++; continue;
		case '\b': sink_lit(k, "\\b"); p++; continue;
		case '\f': sink_lit(k, "\\f"); p++; continue;
		}
		if (*p >= 0x80) {
			size_t n = utf8_len(p, end - p);

			if (n) {
				sink_put(k, (const char *)p, n);
				p += n;
				continue;
			}
		}
		{
			char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

			sink_put(k, u, sizeof(u));
			p++;
		}
	}
	sink_putc(k, '"');
}

int json_escape_seq(struct trace_seq *s, const char *str, size_t len)
{
	char buf[1024];
	struct sink k = { .s = s, .buf = buf, .cap = sizeof(buf) - 1 };

	escape(&k, str, len);
	sink_flush(&k);
	return s->state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}

int strobe_json_escape(struct strobe_buf *b, const char *str, size_t len)
{
	return json_escape_seq(strobe_buf_seq(b), str, len);
}

int strobe_tracefile_write_json_diags(const struct strobe_tracefile *tf, struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	enum strobe_tf_diag_kind kind;
	const char *msg;
	int i;

	trace_seq_putc(s, '[');
	for (i = 0; tf && (msg = strobe_tracefile_diag(tf, i, &kind)); i++) {
		trace_seq_printf(s, "%s{\"kind\":\"%s\",\"message\":", i ? "," : "",
				 strobe_tf_diag_name(kind));
		json_escape_seq(s, msg, strlen(msg));
		trace_seq_putc(s, '}');
	}
	trace_seq_putc(s, ']');
	return s->state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}

size_t strobe_json_escape_buf(char *dst, size_t size, const char *str, size_t len)
{
	struct sink k = { .buf = dst, .cap = size ? size - 1 : 0 };

	escape(&k, str, len);
	if (size)
		dst[k.used] = '\0';
	return k.len;
}

/* ---- fields --------------------------------------------------------- */

/* tep NULL: the file has the host's byte order, read directly. */
static unsigned long long read_uint(struct tep_handle *tep, const void *p, int size)
{
	if (tep)
		return tep_read_number(tep, p, size);
	return strobe_read_native(p, (unsigned)size);
}

static long long sign_extend(unsigned long long v, int size)
{
	int shift = 64 - 8 * size;

	if (size >= 8 || size <= 0)
		return (long long)v;
	return (long long)(v << shift) >> shift;
}

static void put_number(struct sink *k, struct tep_handle *tep, const uint8_t *p,
		       int size, bool is_signed)
{
	unsigned long long v = read_uint(tep, p, size);

	if (is_signed)
		sink_i64(k, sign_extend(v, size));
	else
		sink_u64(k, v);
}

static bool is_char_type(const char *type)
{
	return strstr(type, "char") != NULL;
}

static void put_array(struct sink *k, struct tep_handle *tep, const uint8_t *p,
		      size_t bytes, int elem, bool is_signed)
{
	size_t i;

	if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
		elem = 1;
	sink_putc(k, '[');
	for (i = 0; i + elem <= bytes; i += elem) {
		if (i)
			sink_putc(k, ',');
		put_number(k, tep, p + i, elem, is_signed);
	}
	sink_putc(k, ']');
}

/*
 * How a field is written, worked out from its description once (for an
 * event type's strobe_json_type) or per event (no cache): the same
 * function both ways, so both write the same text.
 */
STROBE_HIDDEN struct strobe_field_plan strobe_field_plan(const struct tep_format_field *f,
							 int long_size)
{
	struct strobe_field_plan p = { .offset = f->offset, .size = f->size,
				       .is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED) };
	bool chars = (f->flags & TEP_FIELD_IS_STRING) || is_char_type(f->type);

	if (f->offset < 0 || f->size < 0) {
		p.kind = FP_NULL;
	} else if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		p.kind = f->size != 4 ? FP_NULL : chars ? FP_DYN_STRING : FP_DYN_ARRAY;
		p.relative = !!(f->flags & TEP_FIELD_IS_RELATIVE);
		p.elem = f->elementsize ? (int)f->elementsize
			 : strobe_type_elem_size(long_size, f->type);
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		p.kind = chars ? FP_STRING : FP_ARRAY;
		p.rest = f->size == 0 && f->arraylen == 0;	/* "char buf[]" */
		p.elem = f->elementsize ? (int)f->elementsize
			 : f->arraylen ? (int)((unsigned)f->size / f->arraylen) : 1;
	} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
		p.kind = FP_NUMBER;
	} else {
		p.kind = FP_ARRAY;	/* an odd size: its bytes */
		p.elem = 1;
		p.is_signed = false;
	}
	return p;
}

/* tep: for byte swapping, NULL when the file is in host order. */
static void put_planned(struct sink *k, struct tep_handle *tep, const struct strobe_event *ev,
			const struct strobe_field_plan *f)
{
	const uint8_t *data = ev->data;
	size_t size = ev->size;
	size_t off = (size_t)f->offset, len = (size_t)f->size;

	if (f->kind == FP_NULL || off + len > size) {
		sink_lit(k, "null");
		return;
	}
	switch (f->kind) {
	case FP_NUMBER:
		put_number(k, tep, data + off, (int)len, f->is_signed);
		return;
	case FP_DYN_STRING:
	case FP_DYN_ARRAY: {
		unsigned long long w = read_uint(tep, data + off, 4);

		len = w >> 16;
		if (f->relative)
			off = off + 4 + (w & 0xffff);
		else
			off = w & 0xffff;
		if (off > size || len > size - off) {
			sink_lit(k, "null");
			return;
		}
		if (f->kind == FP_DYN_STRING)
			escape(k, (const char *)data + off, strnlen((const char *)data + off, len));
		else
			put_array(k, tep, data + off, len, f->elem, f->is_signed);
		return;
	}
	default:	/* FP_STRING, FP_ARRAY */
		if (f->rest)
			len = size - off;
		if (f->kind == FP_STRING)
			escape(k, (const char *)data + off, strnlen((const char *)data + off, len));
		else
			put_array(k, tep, data + off, len, f->elem, f->is_signed);
		return;
	}
}

/* The fields object, {"name":value,...}; {} without a format. */
static void put_fields(struct sink *k, struct tep_handle *swap, int long_size,
		       const struct strobe_event *ev, const struct tep_event *event,
		       const struct strobe_json_type *jt)
{
	size_t i;

	sink_putc(k, '{');
	if (jt) {
		for (i = 0; i < jt->nr_fields; i++) {
			sink_put(k, jt->fields[i].key, jt->fields[i].key_len);
			put_planned(k, swap, ev, &jt->fields[i].plan);
		}
	} else if (event) {
		const struct tep_format_field *f;

		for (f = event->format.fields; f; f = f->next) {
			struct strobe_field_plan plan = strobe_field_plan(f, long_size);

			if (f != event->format.fields)
				sink_putc(k, ',');
			escape(k, f->name, strlen(f->name));
			sink_putc(k, ':');
			put_planned(k, swap, ev, &plan);
		}
	}
	sink_putc(k, '}');
}

STROBE_HIDDEN struct strobe_json_type *strobe_json_type_new(const struct tep_event *event,
							  int long_size)
{
	struct strobe_json_type *t;
	const struct tep_format_field *f;
	size_t n = 0, i = 0, bytes;
	char *p;

	for (f = event->format.fields; f; f = f->next)
		n++;
	/* escaped text is at most 6 bytes per input byte, plus quotes */
	bytes = 32 + 6 * (strlen(event->name) + strlen(event->system ? event->system : ""));
	for (f = event->format.fields; f; f = f->next)
		bytes += 6 * strlen(f->name) + 4;
	t = calloc(1, sizeof(*t) + n * sizeof(t->fields[0]) + bytes);
	if (!t)
		return NULL;
	t->nr_fields = n;
	p = (char *)(t->fields + n);

	t->head = p;
	memcpy(p, ",\"event\":", 9);
	p += 9;
	p += strobe_json_escape_buf(p, bytes, event->name, strlen(event->name));
	memcpy(p, ",\"system\":", 10);
	p += 10;
	p += strobe_json_escape_buf(p, bytes, event->system ? event->system : "",
				    event->system ? strlen(event->system) : 0);
	t->head_len = p - t->head;
	for (f = event->format.fields; f; f = f->next, i++) {
		t->fields[i].field = f;
		t->fields[i].plan = strobe_field_plan(f, long_size);
		t->fields[i].key = p;
		if (i)
			*p++ = ',';
		p += strobe_json_escape_buf(p, bytes, f->name, strlen(f->name));
		*p++ = ':';
		t->fields[i].key_len = p - t->fields[i].key;
	}
	return t;
}

int strobe_format_event_json(struct strobe_formats *fmts, const struct strobe_event *ev,
			     const char *buffer_name, struct strobe_format_cache *cache,
			     struct strobe_buf *b)
{
	struct trace_seq *s = strobe_buf_seq(b);
	struct tep_handle *tep = strobe_formats_tep(fmts);
	char buf[4096];
	struct sink k = { .s = s, .buf = buf, .cap = sizeof(buf) - 1 };
	struct tep_event *event = strobe_format_tep(ev->format);
	const struct strobe_json_type *jt = NULL;
	struct tep_handle *swap = tep;
	int long_size = tep_get_long_size(tep);
	const char *comm;

	if (cache) {
		jt = event ? strobe_cache_json_type(cache, event) : NULL;
		if (strobe_cache_native(cache))
			swap = NULL;
	}
	sink_lit(&k, "{\"ts\":");
	sink_u64(&k, ev->ts);
	sink_lit(&k, ",\"cpu\":");
	sink_i64(&k, ev->cpu);
	sink_lit(&k, ",\"pid\":");
	sink_i64(&k, ev->pid);
	sink_lit(&k, ",\"comm\":");
	comm = cache ? strobe_cache_comm(cache, ev->pid) : strobe_tep_comm(tep, ev->pid);
	escape(&k, comm, strlen(comm));
	if (jt) {
		sink_put(&k, jt->head, jt->head_len);
	} else if (event) {
		sink_lit(&k, ",\"event\":");
		escape(&k, event->name, strlen(event->name));
		sink_lit(&k, ",\"system\":");
		escape(&k, event->system ? event->system : "",
		       event->system ? strlen(event->system) : 0);
	} else {
		sink_lit(&k, ",\"event\":null,\"system\":null");
	}
	if (buffer_name && *buffer_name) {
		sink_lit(&k, ",\"buffer\":");
		escape(&k, buffer_name, strlen(buffer_name));
	}
	if (ev->missed) {
		sink_lit(&k, ",\"missed\":");
		sink_i64(&k, ev->missed < 0 ? -1 : ev->missed);
	}
	sink_lit(&k, ",\"fields\":");
	put_fields(&k, swap, long_size, ev, event, jt);
	sink_lit(&k, "}\n");
	sink_flush(&k);
	return s->state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}

STROBE_HIDDEN size_t strobe_json_fields(struct strobe_formats *fmts, const struct strobe_event *ev,
					struct strobe_format_cache *cache, char *dst, size_t size)
{
	struct tep_handle *tep = strobe_formats_tep(fmts);
	struct sink k = { .buf = dst, .cap = size ? size - 1 : 0 };
	struct tep_event *event = ev->format ? strobe_format_tep(ev->format) : NULL;
	const struct strobe_json_type *jt = NULL;
	struct tep_handle *swap = tep;

	if (cache) {
		jt = event ? strobe_cache_json_type(cache, event) : NULL;
		if (strobe_cache_native(cache))
			swap = NULL;
	}
	put_fields(&k, swap, tep_get_long_size(tep), ev, event, jt);
	if (size)
		dst[k.used] = '\0';
	return k.len;
}
