/*
 * test_fault_format.c - damaged event formats and records never reach the
 * parts of libtraceevent that crash on them.
 *
 * Two guards are tested: lib/format/fmtcheck.c, which refuses format
 * text libtraceevent cannot parse safely (each reject case below is a
 * construct fuzzing found crashing, or its close relative), and
 * lib/output/bounds.c, which refuses records whose fields, strings or
 * data-dependent lengths reach past their end.  Every format of the
 * running kernel must pass the first guard, or strobe would print its
 * events as unknown: that part runs when tracefs is readable.
 */
#include <glob.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include "format/format-int.h"
#include "output/output-int.h"
#include "format/fmtcheck.h"
#include "formats.h"
#include "test.h"

#define HEAD "name: fz\nID: 7\nformat:\n" FMT_COMMON \
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned int len;\toffset:12;\tsize:4;\tsigned:0;\n" \
	"\tfield:__data_loc char[] name;\toffset:16;\tsize:4;\tsigned:0;\n" \
	"\tfield:unsigned long arr[4];\toffset:24;\tsize:32;\tsigned:0;\n" \
	"\tfield:u8 buf[8];\toffset:56;\tsize:8;\tsigned:0;\n\n"

static bool ok(const char *text)
{
	return strobe_format_check(text, strlen(text), NULL);
}

static void test_accepts_kernel_shapes(void)
{
	CHECK(ok(HEAD "print fmt: \"a=%d\", REC->a\n"));
	CHECK(ok(HEAD "print fmt: \"just text\"\n"));
	CHECK(ok(HEAD "print fmt: \"%s %d\" \"more\", __get_str(name), REC->a / 1000L\n"));
	CHECK(ok(HEAD "print fmt: \"%lu\", (unsigned long)(REC)->arr[3]\n"));
	CHECK(ok(HEAD "print fmt: \"%s\", __print_flags(REC->a, \"|\", { 1, \"A\" }, { 2, \"B\" })\n"));
	CHECK(ok(HEAD "print fmt: \"%s\", __print_symbolic(REC->a, { 0, \"x\" \"y\" }, { -1, ((void *)0) }, { })\n"));
	CHECK(ok(HEAD "print fmt: \"%s\", __print_hex(REC->buf, REC->len)\n"));
	CHECK(ok(HEAD "print fmt: \"%s\", __print_array(__get_dynamic_array(name), "
		    "__get_dynamic_array_len(name) / sizeof(unsigned int), sizeof(unsigned int))\n"));
	CHECK(ok(HEAD "print fmt: \"%d\", ({ int x = (REC->a); x < 3 ? x : 3; })\n"));
	CHECK(ok(HEAD "print fmt: \"line\nbreak %d\", REC->a\n"));
}

static void test_rejects_crashing_constructs(void)
{
	static const char *const bad[] = {
		/* found by fuzz_format: NULL strtoul in libtraceevent */
		HEAD "print fmt: \"%s\", REC->a ? \"x\" :sizeof( \"y\", REC->a\n",
		/* found by fuzz_format: SIGFPE at print time */
		HEAD "print fmt: \"%d\", REC->a / 0999L\n",
		HEAD "print fmt: \"%d\", REC->a % pUogical\n",
		HEAD "print fmt: \"%d\", REC->a / 0\n",
		/* found by fuzz_format: NULL dereference in libtraceevent */
		HEAD "print fmt: \"%lu %lu\", REC->arr[1]. (void *)REC->arr[2]\n",
		HEAD "print fmt: \"%lu\", REC->arr[1].x\n",
		HEAD "print fmt: \"%d\", REC->a / (0)\n",
		HEAD "print fmt: \"%d\", REC->a % REC->len\n",
		HEAD "print fmt: \"%s\", __print_flags(REC->a, \"|\", { 1 / 0, \"A\" })\n",
		/* references to nothing */
		HEAD "print fmt: \"%d\", REC->nosuch\n",
		HEAD "print fmt: \"%s\", __get_str(nosuch)\n",
		HEAD "print fmt: \"%s\", __get_str(a)\n",		/* not __data_loc */
		HEAD "print fmt: \"%d\", REC\n",
		HEAD "print fmt: \"%d\", x->a\n",
		/* broken structure */
		HEAD "print fmt: \"%d\", (REC->a\n",
		HEAD "print fmt: \"%d\", REC->a)\n",
		HEAD "print fmt: \"%d\", { 1, \"a\" }\n",
		HEAD "print fmt: \"%d, REC->a\n",
		HEAD "print fmt: %d, REC->a\n",
		HEAD "print fmt: \"%d\" REC->a\n",
		HEAD "print fmt: \"%d\", REC->a @ 2\n",
		HEAD "print fmt: \"%s\", __print_hex(REC->buf)\n",
		HEAD "print fmt: \"%s\", __print_array(REC->buf, 2)\n",
		HEAD "print fmt: \"%s\", __print_flags(REC->a)\n",
		HEAD "print fmt: \"%s\", __print_symbolic(REC->a, { 1, \"a\", 2 })\n",
		HEAD "print fmt: \"%s\", sizeof(REC->a)\n",
		HEAD "print fmt: \"%lu\", REC->arr[4]\n",
		HEAD "print fmt: \"%lu\", REC->arr[REC->a]\n",
		HEAD "print fmt: \"%d\", ((((((((((((((((((((((((((((((((((REC->a))))))))))))))))))))))))))))))))))\n",
		/* damaged header and fields */
		HEAD,
		"name: fz\nformat:\n" "print fmt: \"x\"\n",
		"name: fz\nID: 99999\nformat:\nprint fmt: \"x\"\n",
		"name: fz\nID: 7\nformat:\n\tfield:int a;\toffset:65535;\tsize:8;\tsigned:1;\nprint fmt: \"x\"\n",
		"name: fz\nID: 7\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:7;\nprint fmt: \"x\"\n",
		"name: fz\nID: 7\nformat:\n\tfield:int a[3];\toffset:8;\tsize:4;\tsigned:1;\nprint fmt: \"x\"\n",
		"name: fz\nID: 7\nformat:\n\tfield:int a[0];\toffset:8;\tsize:0;\tsigned:1;\nprint fmt: \"x\"\n",
		"name: fz\nID: 7\nformat:\n\tfield:;\toffset:8;\tsize:4;\tsigned:1;\nprint fmt: \"x\"\n",
		"name: fz\nID: 7\nformat:\n\tfield:int a\toffset:8;\tsize:4;\n;print fmt: \"x\"\n",
		"name: fz\nID: 7\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1; junk\nprint fmt: \"x\"\n",
		"name: f\x80z\nID: 7\nformat:\nprint fmt: \"x\"\n",
	};
	size_t i;
	const char *why;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (strobe_format_check(bad[i], strlen(bad[i]), &why)) {
			fprintf(stderr, "  accepted bad format %zu: %s\n", i,
				strstr(bad[i], "print fmt") ? strstr(bad[i], "print fmt") : bad[i]);
			test_failed_checks++;
		} else {
			CHECK(why && *why);
		}
	}
}

static void test_every_kernel_format_passes(void)
{
	glob_t g;
	size_t i, n = 0, bad = 0;

	if (glob("/sys/kernel/tracing/events/*/*/format", 0, NULL, &g) != 0) {
		printf("(no readable tracefs: kernel formats not checked)\n");
		return;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		static char buf[1 << 16];
		const char *why = NULL;
		FILE *f = fopen(g.gl_pathv[i], "r");
		size_t len;

		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		n++;
		if (!strobe_format_check(buf, len, &why)) {
			fprintf(stderr, "  %s: %s\n", g.gl_pathv[i], why);
			bad++;
		}
	}
	globfree(&g);
	CHECK(n > 0);
	CHECK_EQ(bad, 0);
}

/* ---- records against their format (bounds.c) ---- */

static struct tep_handle *tep;
static struct strobe_formats *fmts;
static const struct strobe_format *fmt;

static bool fits(const uint8_t *rec, uint32_t size)
{
	struct strobe_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.data = rec;
	ev.size = size;
	ev.format = fmt;
	return strobe_event_fits(&ev);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void test_record_bounds(void)
{
	static const char text[] = HEAD
		"print fmt: \"%s %s %lu\", __get_str(name), __print_hex(REC->buf, REC->len), REC->arr[2]\n";
	uint8_t rec[80];

	tep = tep_alloc();
	REQUIRE(tep);
	tep_set_long_size(tep, 8);
	REQUIRE(strobe_format_check(text, sizeof(text) - 1, NULL));
	REQUIRE(tep_parse_event(tep, text, sizeof(text) - 1, "fz") == 0);
	fmts = strobe_formats_new(tep);
	fmt = strobe_formats_by_id(fmts, 7);
	REQUIRE(fmt);

	memset(rec, 0, sizeof(rec));
	put32(rec + 12, 8);			/* len: the whole buf */
	put32(rec + 16, 64 | 6u << 16);		/* name at 64, 6 bytes */
	memcpy(rec + 64, "hello", 6);
	CHECK(fits(rec, sizeof(rec)));
	CHECK(!fits(rec, 60));			/* shorter than the fields */
	CHECK(!fits(rec, 66));			/* name's bytes cut */
	memcpy(rec + 64, "hellox", 6);		/* no NUL in the string */
	CHECK(!fits(rec, sizeof(rec)));
	memcpy(rec + 64, "hello", 6);
	put32(rec + 16, 200 | 6u << 16);	/* name outside */
	CHECK(!fits(rec, sizeof(rec)));
	put32(rec + 16, 64 | 6u << 16);
	put32(rec + 12, 4096);			/* __print_hex length past the end */
	CHECK(!fits(rec, sizeof(rec)));
	put32(rec + 12, 24);			/* up to the record's end: fine */
	CHECK(fits(rec, sizeof(rec)));
	strobe_formats_free(fmts);
	tep_free(tep);
}

TESTS(T(test_accepts_kernel_shapes), T(test_rejects_crashing_constructs),
      T(test_every_kernel_format_passes), T(test_record_bounds));
