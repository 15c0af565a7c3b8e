/*
 * fuzz_bpf_record.c - libFuzzer harness for the decoding of the BPF
 * source's ring-buffer records (strobe_bpf_decode, lib/bpf/records.c):
 * whatever bytes a record holds, decoding reads only inside it, and a
 * record it accepts is an event whose every field (the path or the
 * argument vector a __data_loc word points at included) lies inside the
 * payload and prints as text and JSON without reading past it.
 *
 * Input: the record itself (the u64 time and u32 CPU prefix, then the
 * payload as snoop.h lays it out), copied to a heap block of exactly its
 * size.  Seeds in corpus/fuzz_bpf_record/ are an open, an exec, a sync
 * and a tcp_retransmit record.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/output.h>
#include <strobe/bpf.h>
#include "format/format-int.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:tep_parse_event\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct strobe_formats *cat;

static struct strobe_formats *catalogue(void)
{
	struct tep_handle *tep;

	if (cat)
		return cat;
	tep = tep_alloc();
	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	cat = strobe_formats_adopt(tep);
	if (cat && strobe_bpf_declare(NULL, cat, NULL) < 0) {
		strobe_formats_free(cat);
		cat = NULL;
	}
	return cat;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_formats *f = catalogue();
	uint8_t *rec, *out;
	struct strobe_event ev;
	struct strobe_buf *b;
	uint64_t ts;
	uint32_t psize;
	int cpu, r, i, n;

	if (!f)
		return 0;
	rec = malloc(size ? size : 1);
	if (!rec)
		return 0;
	memcpy(rec, data, size);
	r = strobe_bpf_decode(f, rec, size, NULL, 0, &ts, &cpu, &psize);
	if (r == 1)
		__builtin_trap();	/* accepted with no room to copy into */
	r = strobe_bpf_decode(f, rec, size, (out = malloc(size + 1)), size + 1, &ts, &cpu,
			      &psize);
	if (r == 1) {
		if (psize > size)
			__builtin_trap();
		/* exactly the payload, so ASan sees a read past it */
		memset(&ev, 0, sizeof(ev));
		ev.data = out;
		ev.size = psize;
		ev.type = out[0] | out[1] << 8;
		ev.format = strobe_formats_by_id(f, ev.type);
		if (!ev.format)
			__builtin_trap();
		n = strobe_format_nr_fields(ev.format);
		for (i = 0; i < n; i++) {
			struct strobe_field_info fi;
			uint32_t len = 0;
			const char *s;

			if (strobe_format_field(ev.format, i, &fi) < 0)
				continue;
			if (fi.is_string) {
				s = strobe_field_str(&ev, &fi.field, &len);
				if (s && (s < (const char *)out || s + len > (const char *)out + psize))
					__builtin_trap();
			} else {
				(void)strobe_field_int(&ev, &fi.field);
			}
		}
		b = strobe_buf_new();
		if (b) {
			strobe_format_event_json(f, &ev, NULL, NULL, b);
			strobe_buf_free(b);
		}
	}
	free(out);
	free(rec);
	return 0;
}
