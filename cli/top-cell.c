/*
 * top-cell.c - one cell of `strobe top`'s interactive view as text
 * (top_tui_cell, top-tui.h): short, by the column's type, so that a row
 * of a dozen columns fits a terminal; "-" where the engine says a figure
 * is unavailable.  Pure (no ncurses, no state) and in a file of its own
 * so that tests/unit/test_top_cell.c checks it without a terminal.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "top-tui.h"

static int ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* x in a unit: one decimal below 10, none above ("3.4", "12") */
static void scaled(char *buf, size_t n, double x, const char *unit)
{
	if (x < 9.95)
		snprintf(buf, n, "%.1f%s", x, unit);
	else
		snprintf(buf, n, "%.0f%s", x, unit);
}

static void duration(char *buf, size_t n, uint64_t ns)
{
	if (ns == 0)
		snprintf(buf, n, "0");
	else if (ns < 1000)
		snprintf(buf, n, "%uns", (unsigned)ns);
	else if (ns < 999500)
		scaled(buf, n, ns / 1e3, "us");
	else if (ns < 999500000)
		scaled(buf, n, ns / 1e6, "ms");
	else
		scaled(buf, n, ns / 1e9, "s");
}

static void bytes(char *buf, size_t n, uint64_t b)
{
	static const char units[] = "KMGTPE";
	double x = (double)b;
	int u = -1;

	if (b < 1024) {
		snprintf(buf, n, "%u", (unsigned)b);
		return;
	}
	while (x >= 1023.5 && u < 5) {
		x /= 1024;
		u++;
	}
	char unit[2] = { units[u], 0 };
	scaled(buf, n, x, unit);
}

/* a count per second: in full up to 99999 (one decimal below 10), then
 * 123k, 1.2M */
static void rate(char *buf, size_t n, double x)
{
	static const char units[] = "kMGTPE";
	int u = -1;

	if (x == 0) {
		snprintf(buf, n, "0");
		return;
	}
	if (x < 99999.5) {
		scaled(buf, n, x, "");
		return;
	}
	while (x >= 999.5 && u < 5) {
		x /= 1000;
		u++;
	}
	char unit[2] = { units[u], 0 };
	scaled(buf, n, x, unit);
}

const char *top_tui_cell(char *buf, size_t n, const struct strobe_column *c,
			 const union strobe_value *v)
{
	if (!n)
		return buf;
	buf[0] = 0;
	if (strobe_value_none(c->type, v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	switch (c->type) {
	case STROBE_COL_STR: {
		const char *s = v->s;
		size_t i;

		if (!s || !*s)
			s = "-";
		for (i = 0; s[i] && i + 1 < n; i++)
			buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
		buf[i] = 0;
		break;
	}
	case STROBE_COL_INT:
		if (v->i < 0)
			snprintf(buf, n, "-");
		else if (ends_with(c->key, "_ps"))
			rate(buf, n, (double)v->i);
		else
			snprintf(buf, n, "%lld", (long long)v->i);
		break;
	case STROBE_COL_RATE:
		if (v->d < 0)
			snprintf(buf, n, "-");
		else if (ends_with(c->key, "_bps"))
			bytes(buf, n, (uint64_t)llround(v->d));
		else
			rate(buf, n, v->d);
		break;
	case STROBE_COL_DURATION:
		duration(buf, n, v->u);
		break;
	case STROBE_COL_TIMESTAMP:
		snprintf(buf, n, "%llu.%06llu", (unsigned long long)(v->u / 1000000000),
			 (unsigned long long)(v->u % 1000000000 / 1000));
		break;
	case STROBE_COL_BYTES:
		if ((int64_t)v->u < 0)
			snprintf(buf, n, "-");
		else
			bytes(buf, n, v->u);
		break;
	case STROBE_COL_PERCENT:
		if (v->d < 0)
			snprintf(buf, n, "-");
		else
			snprintf(buf, n, "%.1f", v->d);
		break;
	default:
		snprintf(buf, n, "?");
	}
	return buf;
}
