/*
 * test_svg.c - strobe's one XML/SVG writer (lib/output/svg.c): values and
 * texts with markup characters, quotes, control characters and bytes
 * that are not UTF-8 come out escaped so the document stays well-formed;
 * names are checked; unbalanced documents, too deep nesting and text
 * outside the root are errors; CDATA cannot be ended early; numbers are
 * written short.
 */
#include <errno.h>

#include <strobe/strobe.h>

#include "output/svg.h"
#include "test.h"

static const char *esc(struct strobe_buf *b, const char *s, size_t n)
{
	strobe_buf_reset(b);
	strobe_xml_escape(b, s, n);
	return strobe_buf_data(b);
}

static void test_svg_escape_markup_quotes_and_bytes(void)
{
	struct strobe_buf *b = strobe_buf_new();
	static const char bad[] = "a\x01" "b\xff" "c\xc3";	/* control, invalid, cut */

	REQUIRE(b);
	CHECK_STR(esc(b, "a<b&\"c\"'>", 9), "a&lt;b&amp;&quot;c&quot;&#39;&gt;");
	CHECK_STR(esc(b, "plain", 5), "plain");
	CHECK_STR(esc(b, "t\tn\nr\r", 6), "t&#9;n&#10;r&#13;");
	CHECK_STR(esc(b, bad, sizeof(bad) - 1), "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd");
	/* valid UTF-8 is kept; overlong, surrogate and U+FFFE are not */
	CHECK_STR(esc(b, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5", 9), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5");
	CHECK_STR(esc(b, "\xc0\xaf", 2), "\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(esc(b, "\xed\xa0\x80", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(esc(b, "\xef\xbf\xbe", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* a NUL inside the counted text is a control character too */
	CHECK_STR(esc(b, "x\0y", 3), "x\xef\xbf\xbdy");
	strobe_buf_free(b);
}

static void test_svg_document_elements_attributes_text(void)
{
	struct strobe_buf *b = strobe_buf_new();
	struct strobe_xml x;

	REQUIRE(b);
	strobe_xml_init(&x, b);
	strobe_svg_begin(&x, 100, 50.5);
	strobe_xml_start(&x, "g");
	strobe_xml_attr(&x, "data-name", "a<\"b\"&c");
	strobe_xml_start(&x, "title");
	strobe_xml_text(&x, "x<y", 3);
	strobe_xml_textf(&x, " (%d%%)", 5);
	strobe_xml_end(&x);
	strobe_xml_start(&x, "rect");
	strobe_xml_attr_num(&x, "x", 10.0);
	strobe_xml_attr_num(&x, "width", 0.254);
	strobe_xml_attr_num(&x, "y", -0.001);
	strobe_xml_end(&x);
	strobe_xml_end(&x);
	strobe_xml_start(&x, "script");
	strobe_xml_cdata(&x, "if (a[b[0]] > 1) x();");
	strobe_xml_end(&x);
	strobe_xml_end(&x);
	CHECK_EQ(strobe_xml_finish(&x), 0);
	CHECK_STR(strobe_buf_data(b),
		  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		  "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		  "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"100\" height=\"50.5\" "
		  "viewBox=\"0 0 100 50\">"
		  "<g data-name=\"a&lt;&quot;b&quot;&amp;c\"><title>x&lt;y (5%)</title>"
		  "<rect x=\"10\" width=\"0.25\" y=\"0\"/></g>"
		  "<script><![CDATA[if (a[b[0]] > 1) x();]]></script></svg>\n");
	strobe_buf_free(b);
}

static void test_svg_cdata_cannot_end_early(void)
{
	struct strobe_buf *b = strobe_buf_new();
	struct strobe_xml x;

	REQUIRE(b);
	strobe_xml_init(&x, b);
	strobe_xml_start(&x, "s");
	strobe_xml_cdata(&x, "a]]>b");
	strobe_xml_end(&x);
	CHECK_EQ(strobe_xml_finish(&x), 0);
	CHECK_STR(strobe_buf_data(b), "<s><![CDATA[a]]]]><![CDATA[>b]]></s>\n");
	strobe_buf_free(b);
}

static void test_svg_errors_are_sticky(void)
{
	struct strobe_buf *b = strobe_buf_new();
	struct strobe_xml x;
	int i;

	REQUIRE(b);
	/* a bad element name */
	strobe_xml_init(&x, b);
	strobe_xml_start(&x, "a b");
	CHECK_EQ(strobe_xml_finish(&x), -EINVAL);
	/* a bad attribute name, and an attribute after content */
	strobe_buf_reset(b);
	strobe_xml_init(&x, b);
	strobe_xml_start(&x, "a");
	strobe_xml_attr(&x, "x=\"1\" onload", "y");
	CHECK_EQ(strobe_xml_finish(&x), -EINVAL);
	strobe_buf_reset(b);
	strobe_xml_init(&x, b);
	strobe_xml_start(&x, "a");
	strobe_xml_text(&x, "t", 1);
	strobe_xml_attr(&x, "x", "1");
	CHECK_EQ(strobe_xml_finish(&x), -EINVAL);
	/* unbalanced: one end too few, one too many */
	strobe_buf_reset(b);
	strobe_xml_init(&x, b);
	strobe_xml_start(&x, "a");
	CHECK_EQ(strobe_xml_finish(&x), -EINVAL);
	strobe_xml_init(&x, b);
	strobe_xml_end(&x);
	CHECK_EQ(strobe_xml_finish(&x), -EINVAL);
	/* text outside the root */
	strobe_xml_init(&x, b);
	strobe_xml_text(&x, "t", 1);
	CHECK_EQ(strobe_xml_finish(&x), -EINVAL);
	/* too deep */
	strobe_xml_init(&x, b);
	for (i = 0; i <= STROBE_XML_DEPTH; i++)
		strobe_xml_start(&x, "g");
	CHECK_EQ(strobe_xml_finish(&x), -E2BIG);
	strobe_buf_free(b);
}

TESTS(T(test_svg_escape_markup_quotes_and_bytes), T(test_svg_document_elements_attributes_text),
      T(test_svg_cdata_cannot_end_early), T(test_svg_errors_are_sticky));
