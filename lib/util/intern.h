/*
 * intern.h - dense ids for byte strings (internal): names, whole stacks
 * of addresses, group keys.  The flame graph, the off-CPU folder and
 * strobe why hash each key once and then work with small integers.
 */
#ifndef STROBE_UTIL_INTERN_H
#define STROBE_UTIL_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Keys are copied into one growing arena; ids are 0..n-1 in order of
 * first sight.  Open addressing with linear probing, at most half full. */
struct strobe_intern {
	uint32_t *slots;	/* id + 1, 0 = empty */
	uint32_t *hashes;	/* per id */
	size_t cap;		/* slots, a power of two */
	uint32_t n;
	size_t *off;		/* per id: offset of the key in arena */
	uint32_t *len;		/* per id */
	size_t nr_alloc;	/* ids room */
	char *arena;
	size_t arena_len, arena_cap;
};

uint32_t strobe_intern_hash(const void *p, size_t n) STROBE_HIDDEN;
/* The id of key[0..n) (added when new; *added set then, may be NULL):
 * >= 0, or -ENOMEM.  Keys are stored with a NUL after them. */
int64_t strobe_intern_add(struct strobe_intern *t, const void *key, size_t n, int *added) STROBE_HIDDEN;
/* -1 when absent */
int64_t strobe_intern_find(const struct strobe_intern *t, const void *key, size_t n) STROBE_HIDDEN;
static inline const char *strobe_intern_key(const struct strobe_intern *t, uint32_t id)
{
	return t->arena + t->off[id];
}
static inline uint32_t strobe_intern_key_len(const struct strobe_intern *t, uint32_t id)
{
	return t->len[id];
}
void strobe_intern_free(struct strobe_intern *t) STROBE_HIDDEN;

#endif
