/*
 * svg.h - strobe's one XML/SVG writer (internal): flame graphs, heat maps
 * and the HTML report write their markup through it, so escaping lives
 * in one place and no picture pastes strings together.
 *
 * A struct strobe_xml appends to a caller's struct strobe_buf.  Element
 * and attribute names are the program's own (checked: letters, digits,
 * '-', '_', ':', '.'); every value and text, which may come from a trace
 * (command names, container names, function names), is escaped here:
 * & < > " ' become entities, bytes that XML 1.0 forbids (control
 * characters other than tab, newline and carriage return) and bytes that
 * are not valid UTF-8 become U+FFFD, so the output is always well-formed
 * whatever the input.  Errors are sticky: the first one (bad name,
 * unbalanced end, too deep, out of memory) is kept and returned by
 * strobe_xml_finish(), and later calls do nothing.
 *
 *     struct strobe_xml x;
 *     strobe_xml_init(&x, buf);
 *     strobe_svg_begin(&x, 1200, 600);
 *     strobe_xml_start(&x, "rect");
 *     strobe_xml_attr_num(&x, "width", 10.5);
 *     strobe_xml_end(&x);                      -> <rect width="10.5"/>
 *     strobe_xml_end(&x);                      -> </svg>
 *     r = strobe_xml_finish(&x);
 */
#ifndef STROBE_OUTPUT_SVG_H
#define STROBE_OUTPUT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

struct strobe_buf;

#define STROBE_XML_DEPTH 32

struct strobe_xml {
	struct strobe_buf *b;		/* borrowed */
	const char *open[STROBE_XML_DEPTH];	/* element names (static strings) */
	int depth;
	bool in_tag;			/* "<name attr=..." not closed by '>' yet */
	int err;			/* first error, 0 */
};

void strobe_xml_init(struct strobe_xml *x, struct strobe_buf *b) STROBE_HIDDEN;

/* Append s[0..len) escaped for an attribute value or text (see above).
 * 0 or -ENOMEM. */
int strobe_xml_escape(struct strobe_buf *b, const char *s, size_t len) STROBE_HIDDEN;

/* "<name" (closing a start tag left open first).  name must outlive the
 * element (a string literal). */
void strobe_xml_start(struct strobe_xml *x, const char *name) STROBE_HIDDEN;
/* name="value" on the open start tag: value escaped (NULL: "") */
void strobe_xml_attr(struct strobe_xml *x, const char *name, const char *value) STROBE_HIDDEN;
/* the same formatted with printf's fmt, then escaped */
void strobe_xml_attrf(struct strobe_xml *x, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))) STROBE_HIDDEN;
/* a number with at most 2 decimals, no trailing zeros ("10", "0.25") */
void strobe_xml_attr_num(struct strobe_xml *x, const char *name, double v) STROBE_HIDDEN;
/* Text content, escaped. */
void strobe_xml_text(struct strobe_xml *x, const char *s, size_t len) STROBE_HIDDEN;
void strobe_xml_textf(struct strobe_xml *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) STROBE_HIDDEN;
/* Script or style content the program wrote (not from a trace) as a
 * CDATA section ("]]>" inside is split so it cannot end it early). */
void strobe_xml_cdata(struct strobe_xml *x, const char *s) STROBE_HIDDEN;
/* End the innermost element: "/>" when it has no content, else
 * "</name>". */
void strobe_xml_end(struct strobe_xml *x) STROBE_HIDDEN;
/* A whole element with text: <name>text</name>. */
void strobe_xml_elem_text(struct strobe_xml *x, const char *name, const char *text) STROBE_HIDDEN;
/* 0 when every element was ended and nothing failed, else the first
 * error (-EINVAL: a bad name or an unbalanced document, -E2BIG: nested
 * too deep, -ENOMEM). */
int strobe_xml_finish(struct strobe_xml *x) STROBE_HIDDEN;

/* The XML declaration and the open <svg> root of a width x height
 * picture (user units = pixels), with the SVG and XLink namespaces. */
void strobe_svg_begin(struct strobe_xml *x, double width, double height) STROBE_HIDDEN;

#endif
