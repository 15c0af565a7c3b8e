/*
 * test_otlp.c - the OTLP exporter's pieces that need no collector
 * (lib/sinks/otlp.c): the Span JSON (OTLP/JSON's proto3 mapping: hex ids,
 * int64 as strings, kind, status, typed attributes, escaped strings),
 * W3C traceparent parsing (inside a captured string; invalid ones
 * refused), the OTEL_* key=value lists (trimmed, percent-decoded), and
 * the exporter's option checks.  tests/kernel/84-otlp.sh sends real
 * spans to a real HTTP receiver.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <strobe/strobe.h>
#include <strobe/otlp.h>

#include "test.h"

static void test_span_json_is_otlp_json(void)
{
	struct strobe_otlp_attr a[] = {
		{ .key = "process.pid", .type = 1, .i = 4242 },
		{ .key = "container.name", .s = "we\"b\n" },
		{ .key = "strobe.capture.ratio", .type = 2, .d = 0.5 },
		{ .key = "strobe.flag", .type = 3, .i = 1 },
		{ .key = "strobe.capture.ret", .type = 1, .i = -11 },
	};
	struct strobe_otlp_span s = {
		.trace_id = { 0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
			      0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36 },
		.span_id = { 0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7 },
		.parent_id = { 1, 2, 3, 4, 5, 6, 7, 0xff },
		.has_parent = true,
		.name = "req/sleep",
		.start_ns = 1795732213250925424ULL,
		.end_ns = 1795732213271784957ULL,
		.attrs = a,
		.nr_attrs = 5,
	};
	char *buf = NULL;
	size_t len = 0, cap = 0;

	REQUIRE(strobe_otlp_span_json(&s, &buf, &len, &cap) == 0);
	CHECK_STR(buf,
		  "{\"traceId\":\"4bf92f3577b34da6a3ce929d0e0e4736\",\"spanId\":\"00f067aa0ba902b7\","
		  "\"parentSpanId\":\"01020304050607ff\",\"name\":\"req/sleep\",\"kind\":1,"
		  "\"startTimeUnixNano\":\"1795732213250925424\","
		  "\"endTimeUnixNano\":\"1795732213271784957\",\"attributes\":["
		  "{\"key\":\"process.pid\",\"value\":{\"intValue\":\"4242\"}},"
		  "{\"key\":\"container.name\",\"value\":{\"stringValue\":\"we\\\"b\\n\"}},"
		  "{\"key\":\"strobe.capture.ratio\",\"value\":{\"doubleValue\":0.5}},"
		  "{\"key\":\"strobe.flag\",\"value\":{\"boolValue\":true}},"
		  "{\"key\":\"strobe.capture.ret\",\"value\":{\"intValue\":\"-11\"}}],"
		  "\"status\":{}}");
	CHECK_EQ(len, strlen(buf));
	/* a root span with an error status, appended after the first */
	s.has_parent = false;
	s.error = true;
	s.nr_attrs = 0;
	s.name = "syscall read";
	REQUIRE(strobe_otlp_span_json(&s, &buf, &len, &cap) == 0);
	CHECK(strstr(buf, "}{\"traceId\"") != NULL);
	CHECK(strstr(strstr(buf, "}{") + 1, "parentSpanId") == NULL);
	CHECK(strstr(buf, "\"attributes\":[],\"status\":{\"code\":2}}") != NULL);
	free(buf);
}

static void test_traceparent_found_in_text_and_invalid_ones_refused(void)
{
	static const struct {
		const char *s;
		int ret;
	} t[] = {
		{ "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", 0 },
		{ "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00\r\n", 0 },
		{ "/tmp/x/tp=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01/req", 0 },
		/* a future version may carry more after the flags */
		{ "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds", 0 },
		{ "00-00000000000000000000000000000000-00f067aa0ba902b7-01", -ENOENT },
		{ "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", -ENOENT },
		{ "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", -ENOENT },
		{ "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", -ENOENT },
		{ "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", -ENOENT },
		{ "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", -ENOENT },
		{ "", -ENOENT },
	};
	static const uint8_t want_t[16] = { 0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
					    0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36 };
	static const uint8_t want_s[8] = { 0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7 };
	uint8_t tr[16], sp[8];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret = strobe_otlp_traceparent_parse(t[i].s, strlen(t[i].s), tr, sp);

		if (ret != t[i].ret)
			fprintf(stderr, "  '%s': %d, want %d\n", t[i].s, ret, t[i].ret);
		CHECK_EQ(ret, t[i].ret);
		if (!ret) {
			CHECK(!memcmp(tr, want_t, 16));
			CHECK(!memcmp(sp, want_s, 8));
		}
	}
}

struct pairs {
	char text[512];
};

static int add_pair(void *arg, const char *key, const char *value)
{
	struct pairs *p = arg;
	size_t n = strlen(p->text);

	snprintf(p->text + n, sizeof(p->text) - n, "[%s|%s]", key, value);
	return 0;
}

static void test_kv_lists_trimmed_and_percent_decoded(void)
{
	struct pairs p = { "" };

	CHECK_EQ(strobe_otlp_kv_parse(" api-key = s%3Dcr%2Ct ,x-tenant=a%20b,,k=", add_pair, &p), 0);
	CHECK_STR(p.text, "[api-key|s=cr,t][x-tenant|a b][k|]");
	p.text[0] = '\0';
	CHECK_EQ(strobe_otlp_kv_parse("a=1,novalue", add_pair, &p), -EINVAL);
	CHECK_EQ(strobe_otlp_kv_parse("=1", add_pair, &p), -EINVAL);
	p.text[0] = '\0';
	CHECK_EQ(strobe_otlp_kv_parse("bad%zz=%4", add_pair, &p), 0);
	CHECK_STR(p.text, "[bad%zz|%4]");
	CHECK_EQ(strobe_otlp_kv_parse("", add_pair, &p), 0);
}

static void test_exporter_options_checked(void)
{
	struct strobe_otlp_opts o = { .size = sizeof(o), .url = "ftp://x/v1/traces" };
	const char *bad_hdr[] = { "no colon here" };
	struct strobe_error err = { 0, "" };
	struct strobe_otlp *x = NULL;

	CHECK_EQ(strobe_otlp_new(&o, &x, &err), -EINVAL);
	CHECK(strstr(err.msg, "not an http(s) URL") != NULL);
	o.url = "http://127.0.0.1:9/v1/traces";
	o.headers = bad_hdr;
	o.nr_headers = 1;
	CHECK_EQ(strobe_otlp_new(&o, &x, &err), -EINVAL);
	CHECK(strstr(err.msg, "no name: value") != NULL);
	o.nr_headers = 0;
	o.resource_attributes = "a=b,broken";
	CHECK_EQ(strobe_otlp_new(&o, &x, &err), -EINVAL);
	CHECK(x == NULL);
	o.resource_attributes = "deployment.environment=test";
	CHECK_EQ(strobe_otlp_new(&o, &x, &err), 0);
	strobe_otlp_free(x);
}

TESTS(T(test_span_json_is_otlp_json),
      T(test_traceparent_found_in_text_and_invalid_ones_refused),
      T(test_kv_lists_trimmed_and_percent_decoded),
      T(test_exporter_options_checked));
