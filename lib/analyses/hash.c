/*
 * hash.c - the open-addressing hash map every analysis keeps its
 * per-thread, per-request and per-group state in.
 *
 * Why this shape: analyses look up state on nearly every event, so the
 * map is a flat array probed linearly (one cache line usually answers),
 * values live inline next to nothing else (keys in their own array so a
 * probe touches 8 bytes per slot), and deletion shifts the following
 * entries back instead of leaving tombstones, so a map whose keys come
 * and go (in-flight syscalls) never degrades.  It grows at 3/4 load and
 * never shrinks: its size follows the peak number of live keys.  Put is
 * inline (analysis-int.h): it runs on nearly every event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis-int.h"

static inline size_t slot_of(uint64_t key, size_t cap)
{
	return ana_map_slot(key, cap);
}

void ana_map_init(struct ana_map *m, size_t vsize)
{
	memset(m, 0, sizeof(*m));
	m->vsize = vsize ? vsize : 1;
}

void ana_map_free(struct ana_map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

void ana_map_clear(struct ana_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		m->keys[i] = ANA_MAP_EMPTY;
	m->n = 0;
}

int ana_map_copy(struct ana_map *dst, const struct ana_map *src)
{
	ana_map_init(dst, src->vsize);
	if (!src->cap)
		return 0;
	dst->keys = malloc(src->cap * sizeof(*dst->keys));
	dst->vals = malloc(src->cap * src->vsize);
	if (!dst->keys || !dst->vals) {
		ana_map_free(dst);
		return -ENOMEM;
	}
	memcpy(dst->keys, src->keys, src->cap * sizeof(*dst->keys));
	memcpy(dst->vals, src->vals, src->cap * src->vsize);
	dst->cap = src->cap;
	dst->n = src->n;
	return 0;
}

void *ana_map_get(const struct ana_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals + i * m->vsize;
		if (m->keys[i] == ANA_MAP_EMPTY)
			return NULL;
	}
}

int ana_map_grow(struct ana_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i, j;
	uint64_t *keys = malloc(ncap * sizeof(*keys));
	uint8_t *vals = calloc(ncap, m->vsize);

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < ncap; i++)
		keys[i] = ANA_MAP_EMPTY;
	for (i = 0; i < m->cap; i++) {
		if (m->keys[i] == ANA_MAP_EMPTY)
			continue;
		for (j = slot_of(m->keys[i], ncap); keys[j] != ANA_MAP_EMPTY;
		     j = (j + 1) & (ncap - 1))
			;
		keys[j] = m->keys[i];
		memcpy(vals + j * m->vsize, m->vals + i * m->vsize, m->vsize);
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
	return 0;
}

/* Delete the entry in slot i. */
static void del_slot(struct ana_map *m, size_t i)
{
	size_t j, k, mask = m->cap - 1;

	/* Backward shift: move later entries of the cluster into the hole
	 * when their home slot does not lie cyclically in (hole, j]. */
	for (j = i;;) {
		j = (j + 1) & mask;
		if (m->keys[j] == ANA_MAP_EMPTY)
			break;
		k = slot_of(m->keys[j], m->cap);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->keys[i] = m->keys[j];
		memcpy(m->vals + i * m->vsize, m->vals + j * m->vsize, m->vsize);
		i = j;
	}
	m->keys[i] = ANA_MAP_EMPTY;
	m->n--;
}

void ana_map_del(struct ana_map *m, uint64_t key)
{
	size_t i, mask = m->cap - 1;

	if (!m->cap)
		return;
	for (i = slot_of(key, m->cap);; i = (i + 1) & mask) {
		if (m->keys[i] == ANA_MAP_EMPTY)
			return;
		if (m->keys[i] == key)
			break;
	}
	del_slot(m, i);
}

void ana_map_del_val(struct ana_map *m, void *val)
{
	del_slot(m, (size_t)((uint8_t *)val - m->vals) / m->vsize);
}

void *ana_map_next(const struct ana_map *m, size_t *pos, uint64_t *key)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->keys[*pos] != ANA_MAP_EMPTY) {
			if (key)
				*key = m->keys[*pos];
			return m->vals + (*pos)++ * m->vsize;
		}
	}
	return NULL;
}
