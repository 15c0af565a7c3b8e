/*
 * svg.c - strobe's one XML/SVG writer (svg.h): elements, attributes and
 * text appended to a strobe_buf, with every value escaped here and only
 * here, so a command name such as `a<b&"c"` or a byte that is not UTF-8
 * can never break a picture's markup.
 *
 * Escaping works on runs: bytes that need nothing are appended in one
 * write, so a long text costs a scan and a copy.  UTF-8 is checked as
 * XML needs it (no overlong forms, no surrogates, nothing above U+10FFFF,
 * not U+FFFE/U+FFFF); anything else becomes U+FFFD.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "util/buf.h"

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

/* Length of the valid UTF-8 sequence XML allows at p (n bytes left), 0
 * if there is none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		if (n < 2 || (p[1] & 0xc0) != 0x80)
			return 0;
		return 2;
	}
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		c = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
		if (c < 0x800 || (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		c = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
		    (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
		if (c < 0x10000 || c > 0x10ffff)
			return 0;
		return 4;
	}
	return 0;
}

int strobe_xml_escape(struct strobe_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *run = p, *end = p + len;
	const char *rep;
	size_t k;

	while (p < end) {
		rep = NULL;
		k = 1;
		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case '\t': rep = "&#9;"; break;		/* kept through attribute */
		case '\n': rep = "&#10;"; break;	/* value normalisation */
		case '\r': rep = "&#13;"; break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				rep = replacement;
			else if (*p >= 0x80 && !(k = utf8_len(p, (size_t)(end - p)))) {
				rep = replacement;
				k = 1;
			}
		}
		if (!rep) {
			p += k;
			continue;
		}
		if (p > run)
			strobe_buf_write(b, run, (size_t)(p - run));
		strobe_buf_puts(b, rep);
		p += k;
		run = p;
	}
	if (p > run)
		strobe_buf_write(b, run, (size_t)(p - run));
	return strobe_buf_status(b);
}

void strobe_xml_init(struct strobe_xml *x, struct strobe_buf *b)
{
	memset(x, 0, sizeof(*x));
	x->b = b;
}

static bool bad_name(const char *name)
{
	const char *c;

	if (!name || !*name || (*name >= '0' && *name <= '9') || *name == '-' || *name == '.')
		return true;
	for (c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == ':' ||
		      *c == '.'))
			return true;
	return false;
}

static bool ok(struct strobe_xml *x)
{
	if (!x->err && strobe_buf_failed(x->b))
		x->err = -ENOMEM;
	return !x->err;
}

/* Close a start tag left open: its content begins. */
static void close_tag(struct strobe_xml *x)
{
	if (x->in_tag) {
		strobe_buf_putc(x->b, '>');
		x->in_tag = false;
	}
}

void strobe_xml_start(struct strobe_xml *x, const char *name)
{
	if (!ok(x))
		return;
	if (bad_name(name)) {
		x->err = -EINVAL;
		return;
	}
	if (x->depth >= STROBE_XML_DEPTH) {
		x->err = -E2BIG;
		return;
	}
	close_tag(x);
	strobe_buf_putc(x->b, '<');
	strobe_buf_puts(x->b, name);
	x->open[x->depth++] = name;
	x->in_tag = true;
}

void strobe_xml_attr(struct strobe_xml *x, const char *name, const char *value)
{
	if (!ok(x))
		return;
	if (!x->in_tag || bad_name(name)) {
		x->err = -EINVAL;
		return;
	}
	strobe_buf_putc(x->b, ' ');
	strobe_buf_puts(x->b, name);
	strobe_buf_puts(x->b, "=\"");
	if (value)
		strobe_xml_escape(x->b, value, strlen(value));
	strobe_buf_putc(x->b, '"');
}

static char *vformat(const char *fmt, va_list ap, char *tmp, size_t size)
{
	va_list aq;
	char *big;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(tmp, size, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	if ((size_t)n < size)
		return tmp;
	big = malloc((size_t)n + 1);
	if (big)
		vsnprintf(big, (size_t)n + 1, fmt, ap);
	return big;
}

void strobe_xml_attrf(struct strobe_xml *x, const char *name, const char *fmt, ...)
{
	char tmp[256], *s;
	va_list ap;

	if (!ok(x))
		return;
	va_start(ap, fmt);
	s = vformat(fmt, ap, tmp, sizeof(tmp));
	va_end(ap);
	if (!s) {
		x->err = -ENOMEM;
		return;
	}
	strobe_xml_attr(x, name, s);
	if (s != tmp)
		free(s);
}

void strobe_xml_attr_num(struct strobe_xml *x, const char *name, double v)
{
	char tmp[64];
	int n;

	if (!isfinite(v))
		v = 0;
	n = snprintf(tmp, sizeof(tmp), "%.2f", v);
	/* "10.50" -> "10.5", "10.00" -> "10" */
	while (n > 0 && tmp[n - 1] == '0')
		tmp[--n] = '\0';
	if (n > 0 && tmp[n - 1] == '.')
		tmp[--n] = '\0';
	if (!strcmp(tmp, "-0"))
		strcpy(tmp, "0");
	strobe_xml_attr(x, name, tmp);
}

void strobe_xml_text(struct strobe_xml *x, const char *s, size_t len)
{
	if (!ok(x))
		return;
	if (!x->depth) {
		x->err = -EINVAL;	/* text outside the root */
		return;
	}
	close_tag(x);
	strobe_xml_escape(x->b, s, len);
}

void strobe_xml_textf(struct strobe_xml *x, const char *fmt, ...)
{
	char tmp[256], *s;
	va_list ap;

	if (!ok(x))
		return;
	va_start(ap, fmt);
	s = vformat(fmt, ap, tmp, sizeof(tmp));
	va_end(ap);
	if (!s) {
		x->err = -ENOMEM;
		return;
	}
	strobe_xml_text(x, s, strlen(s));
	if (s != tmp)
		free(s);
}

void strobe_xml_cdata(struct strobe_xml *x, const char *s)
{
	const char *end;

	if (!ok(x))
		return;
	if (!x->depth) {
		x->err = -EINVAL;
		return;
	}
	close_tag(x);
	strobe_buf_puts(x->b, "<![CDATA[");
	/* "]]>" would end the section: split it over two sections */
	while ((end = strstr(s, "]]>"))) {
		strobe_buf_write(x->b, s, (size_t)(end - s) + 2);
		strobe_buf_puts(x->b, "]]><![CDATA[");
		s = end + 2;
	}
	strobe_buf_puts(x->b, s);
	strobe_buf_puts(x->b, "]]>");
}

void strobe_xml_end(struct strobe_xml *x)
{
	if (!ok(x))
		return;
	if (!x->depth) {
		x->err = -EINVAL;
		return;
	}
	x->depth--;
	if (x->in_tag) {
		strobe_buf_puts(x->b, "/>");
		x->in_tag = false;
	} else {
		strobe_buf_puts(x->b, "</");
		strobe_buf_puts(x->b, x->open[x->depth]);
		strobe_buf_putc(x->b, '>');
	}
	if (!x->depth)
		strobe_buf_putc(x->b, '\n');
}

void strobe_xml_elem_text(struct strobe_xml *x, const char *name, const char *text)
{
	strobe_xml_start(x, name);
	strobe_xml_text(x, text ? text : "", text ? strlen(text) : 0);
	strobe_xml_end(x);
}

int strobe_xml_finish(struct strobe_xml *x)
{
	if (ok(x) && (x->depth || x->in_tag))
		x->err = -EINVAL;
	return x->err;
}

void strobe_svg_begin(struct strobe_xml *x, double width, double height)
{
	if (!ok(x))
		return;
	if (x->depth) {
		x->err = -EINVAL;
		return;
	}
	strobe_buf_puts(x->b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	strobe_xml_start(x, "svg");
	strobe_xml_attr(x, "version", "1.1");
	strobe_xml_attr(x, "xmlns", "http://www.w3.org/2000/svg");
	strobe_xml_attr(x, "xmlns:xlink", "http://www.w3.org/1999/xlink");
	strobe_xml_attr_num(x, "width", width);
	strobe_xml_attr_num(x, "height", height);
	strobe_xml_attrf(x, "viewBox", "0 0 %.0f %.0f", width, height);
}
