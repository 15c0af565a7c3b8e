/*
 * intern.c - dense ids for byte strings (util/intern.h): names of
 * frames, whole stacks of addresses, group keys.  One hash per key, keys
 * copied once into an arena.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/intern.h"

/* FNV-1a over 8 bytes at a time, then mixed: keys are short (names) or
 * arrays of addresses (stacks). */
uint32_t strobe_intern_hash(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ull, w;

	while (n >= 8) {
		memcpy(&w, c, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
		c += 8;
		n -= 8;
	}
	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static int64_t lookup(const struct strobe_intern *t, const void *key, size_t n, uint32_t h,
		      size_t *slot)
{
	size_t i, mask = t->cap - 1;
	uint32_t id;

	if (!t->cap) {
		*slot = 0;
		return -1;
	}
	for (i = h & mask;; i = (i + 1) & mask) {
		if (!t->slots[i]) {
			*slot = i;
			return -1;
		}
		id = t->slots[i] - 1;
		if (t->hashes[id] == h && t->len[id] == n && !memcmp(t->arena + t->off[id], key, n))
			return id;
	}
}

int64_t strobe_intern_find(const struct strobe_intern *t, const void *key, size_t n)
{
	size_t slot;

	return lookup(t, key, n, strobe_intern_hash(key, n), &slot);
}

static int grow_slots(struct strobe_intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i, j;
	uint32_t *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		for (j = t->hashes[i] & (cap - 1); s[j]; j = (j + 1) & (cap - 1))
			;
		s[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
	return 0;
}

int64_t strobe_intern_add(struct strobe_intern *t, const void *key, size_t n, int *added)
{
	uint32_t h = strobe_intern_hash(key, n);
	size_t slot;
	int64_t id;

	if (added)
		*added = 0;
	id = lookup(t, key, n, h, &slot);
	if (id >= 0)
		return id;
	if (n > UINT32_MAX || t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((size_t)(t->n + 1) * 2 > t->cap) {
		if (grow_slots(t) < 0)
			return -ENOMEM;
		lookup(t, key, n, h, &slot);
	}
	if (t->n == t->nr_alloc) {
		size_t na = t->nr_alloc ? t->nr_alloc * 2 : 256;
		uint32_t *hs = realloc(t->hashes, na * sizeof(*hs));
		size_t *off;
		uint32_t *len;

		if (!hs)
			return -ENOMEM;
		t->hashes = hs;
		off = realloc(t->off, na * sizeof(*off));
		if (!off)
			return -ENOMEM;
		t->off = off;
		len = realloc(t->len, na * sizeof(*len));
		if (!len)
			return -ENOMEM;
		t->len = len;
		t->nr_alloc = na;
	}
	if (t->arena_len + n + 1 > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap : 4096;
		char *a;

		while (t->arena_len + n + 1 > cap)
			cap *= 2;
		a = realloc(t->arena, cap);
		if (!a)
			return -ENOMEM;
		t->arena = a;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_len, key, n);
	t->arena[t->arena_len + n] = '\0';
	id = t->n++;
	t->off[id] = t->arena_len;
	t->len[id] = (uint32_t)n;
	t->hashes[id] = h;
	t->arena_len += n + 1;
	t->slots[slot] = (uint32_t)id + 1;
	if (added)
		*added = 1;
	return id;
}

void strobe_intern_free(struct strobe_intern *t)
{
	free(t->slots);
	free(t->hashes);
	free(t->off);
	free(t->len);
	free(t->arena);
	memset(t, 0, sizeof(*t));
}
