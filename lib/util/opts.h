/*
 * opts.h - options structs that can grow without breaking callers
 * (internal).
 *
 * A public options struct starts with `size_t size`: the caller's
 * sizeof(struct ...), or 0 for "the struct of this library".  The library
 * copies what the caller has into its own full struct, so a program built
 * against an older, shorter struct gets zeros (defaults) for the fields
 * added since, and one built against a newer struct has the fields this
 * library does not know ignored.  Callers zero the whole struct first
 * (= { 0 } or memset: its padding is copied too).  The Python module and
 * other bindings rely on this.
 */
#ifndef STROBE_UTIL_OPTS_H
#define STROBE_UTIL_OPTS_H

#include <stddef.h>
#include <string.h>

/* Copy *src (may be NULL: all defaults) into *dst of dst_size bytes; the
 * copy's size field says dst_size. */
static inline void strobe_opts_copy(void *dst, size_t dst_size, const void *src)
{
	size_t n = 0;

	memset(dst, 0, dst_size);
	if (src) {
		memcpy(&n, src, sizeof(n));
		if (n == 0 || n > dst_size)
			n = dst_size;		/* ours, or a newer caller's */
		else if (n < sizeof(size_t))
			n = sizeof(size_t);	/* nothing but the size */
		memcpy(dst, src, n);
	}
	memcpy(dst, &dst_size, sizeof(dst_size));
}

#endif
