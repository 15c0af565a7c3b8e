/*
 * pictures-int.h - what the files of lib/pictures share (internal): an
 * intern table that gives byte strings (names, stacks of addresses, group
 * keys) dense ids, so the flame graph and the off-CPU folder hash each
 * key once and then work with small integers.
 */
#ifndef STROBE_PICTURES_INT_H
#define STROBE_PICTURES_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Keys are copied into one growing arena; ids are 0..n-1 in order of
 * first sight.  Open addressing with linear probing, at most half full. */
struct pic_intern {
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

uint32_t pic_hash(const void *p, size_t n) STROBE_HIDDEN;
/* The id of key[0..n) (added when new; *added set then, may be NULL):
 * >= 0, or -ENOMEM.  Keys are stored with a NUL after them. */
int64_t pic_intern(struct pic_intern *t, const void *key, size_t n, int *added) STROBE_HIDDEN;
/* -1 when absent */
int64_t pic_find(const struct pic_intern *t, const void *key, size_t n) STROBE_HIDDEN;
static inline const char *pic_key(const struct pic_intern *t, uint32_t id)
{
	return t->arena + t->off[id];
}
static inline uint32_t pic_key_len(const struct pic_intern *t, uint32_t id)
{
	return t->len[id];
}
void pic_intern_free(struct pic_intern *t) STROBE_HIDDEN;

#endif
