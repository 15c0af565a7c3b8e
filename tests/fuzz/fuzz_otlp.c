/*
 * fuzz_otlp.c - libFuzzer harness for what the OTLP exporter reads from
 * outside: a W3C traceparent inside a captured string (the trace's,
 * written by an application), OTEL_EXPORTER_OTLP_HEADERS and
 * OTEL_RESOURCE_ATTRIBUTES lists (the environment), a collector's
 * Retry-After header (the network), and the span encoder fed what those
 * parsers return (strings from the trace end up in the JSON).
 *
 * Byte 0 picks the parser: 't' traceparent, 'k' key=value list, 'r'
 * Retry-After, anything else all three.  Checked: a traceparent found
 * has neither id all zeros and its hex text occurs in the input; every
 * pair has a non-empty key; a Retry-After is -1 or finite and >= 0 (the
 * sender cuts it to its maximum); the
 * span JSON holds the ids' hex and balanced braces outside strings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/otlp.h>

#include "sinks/sender.h"

static void hex(const uint8_t *p, int n, char *out)
{
	int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static int on_pair(void *arg, const char *key, const char *value)
{
	int *n = arg;

	if (!*key || !value)
		__builtin_trap();
	(*n)++;
	return 0;
}

/* Braces balance outside strings (escapes honoured). */
static void check_json(const char *s, size_t len)
{
	int depth = 0, in = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (in) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in = 0;
			else if ((unsigned char)c < 0x20)
				__builtin_trap();	/* a raw control character */
		} else if (c == '"') {
			in = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth < 0)
				__builtin_trap();
		}
	}
	if (depth || in)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, th[33], sh[17];
	uint8_t t[16], sp[8];
	int mode, n = 0;
	double ra;

	if (!size)
		return 0;
	mode = data[0];
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (mode == 't' || (mode != 'k' && mode != 'r')) {
		if (strobe_otlp_traceparent_parse((const char *)data + 1, size - 1, t, sp) == 0) {
			struct strobe_otlp_attr a = { .key = "strobe.capture.tp", .s = s };
			struct strobe_otlp_span span = { .name = s, .attrs = &a, .nr_attrs = 1,
							 .has_parent = true };
			char *buf = NULL;
			size_t len = 0, cap = 0;

			hex(t, 16, th);
			hex(sp, 8, sh);
			if (!memmem(data + 1, size - 1, th, 32) || !memmem(data + 1, size - 1, sh, 16))
				__builtin_trap();
			memcpy(span.trace_id, t, 16);
			memcpy(span.span_id, sp, 8);
			memcpy(span.parent_id, sp, 8);
			if (strobe_otlp_span_json(&span, &buf, &len, &cap) == 0) {
				if (!memmem(buf, len, th, 32))
					__builtin_trap();
				check_json(buf, len);
			}
			free(buf);
		}
	}
	if (mode == 'k' || (mode != 't' && mode != 'r'))
		strobe_otlp_kv_parse(s, on_pair, &n);
	if (mode == 'r' || (mode != 't' && mode != 'k')) {
		ra = strobe_retry_after_parse((const char *)data + 1, size - 1, 1e9);
		if (ra != -1 && !(ra >= 0 && ra < 1e300))
			__builtin_trap();
	}
	free(s);
	return 0;
}
