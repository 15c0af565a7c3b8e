/*
 * err.c - filling struct strobe_error.  Messages are truncated to fit the
 * fixed buffer rather than allocated, so error paths never fail themselves.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

const char *strobe_version(void)
{
	return STROBE_VERSION;
}

int strobe_err(struct strobe_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void strobe_err_prefix(struct strobe_error *err, const char *fmt, ...)
{
	char prefix[256];
	size_t plen, mlen, cap = sizeof(err->msg) - 1;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	plen = strlen(prefix);
	if (plen + 2 > cap)
		plen = cap - 2;
	mlen = strnlen(err->msg, cap);
	if (plen + 2 + mlen > cap)
		mlen = cap - plen - 2;
	/* Shift the old message right, then put "prefix: " in front. */
	memmove(err->msg + plen + 2, err->msg, mlen);
	memcpy(err->msg, prefix, plen);
	err->msg[plen] = ':';
	err->msg[plen + 1] = ' ';
	err->msg[plen + 2 + mlen] = '\0';
}
