/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small open-addressing hash maps (see hmap.h).
 */
#include "compat.h"
#include "alloc.h"
#include "hmap.h"

uint64_t hash_mem(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL), w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h ^= w * 0xbf58476d1ce4e5b9ULL;
		h = (h << 27 | h >> 37) * 0x94d049bb133111ebULL;
		p += 8;
		len -= 8;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h ^= w * 0xbf58476d1ce4e5b9ULL;
		h = (h << 27 | h >> 37) * 0x94d049bb133111ebULL;
	}
	h ^= h >> 31;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

uint64_t hash_str(const char *s, uint64_t seed)
{
	return s ? hash_mem(s, strlen(s), seed) : seed * 31 + 7;
}

static char *memdup0(const char *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/*
 * Eight bytes at a time (stack keys are arrays of pointers, kilobytes
 * long), then the tail; a final mix so the low bits spread.
 */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	for (; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static uint64_t hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ULL;
	return v ^ (v >> 33);
}

static void smap_grow(struct smap *m)
{
	struct smap_ent *old = m->ents;
	size_t i, oldcap = m->cap;

	m->cap = oldcap ? oldcap * 2 : 64;
	m->ents = xcalloc(m->cap, sizeof(*m->ents));
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = old[i].hash & (m->cap - 1); m->ents[j].key;
		     j = (j + 1) & (m->cap - 1))
			;
		m->ents[j] = old[i];
	}
	free(old);
}

struct smap_ent *smap_get(struct smap *m, const char *key, size_t len,
			  int *added)
{
	uint64_t h = hash_bytes(key, len);
	size_t j;

	if (2 * (m->nr + 1) > m->cap)
		smap_grow(m);
	for (j = h & (m->cap - 1); m->ents[j].key; j = (j + 1) & (m->cap - 1))
		if (m->ents[j].hash == h && m->ents[j].len == len &&
		    !memcmp(m->ents[j].key, key, len)) {
			if (added)
				*added = 0;
			return &m->ents[j];
		}
	m->ents[j].key = memdup0(key, len);
	m->ents[j].len = len;
	m->ents[j].hash = h;
	m->nr++;
	if (added)
		*added = 1;
	return &m->ents[j];
}

void smap_release(struct smap *m, void (*free_val)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->ents[i].key) {
			free(m->ents[i].key);
			if (free_val)
				free_val(m->ents[i].val);
		}
	free(m->ents);
	memset(m, 0, sizeof(*m));
}

static void umap_grow(struct umap *m)
{
	struct umap_ent *old = m->ents;
	size_t i, oldcap = m->cap;

	m->cap = oldcap ? oldcap * 2 : 64;
	m->ents = xcalloc(m->cap, sizeof(*m->ents));
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = hash_u64(old[i].key) & (m->cap - 1); m->ents[j].used;
		     j = (j + 1) & (m->cap - 1))
			;
		m->ents[j] = old[i];
	}
	free(old);
}

struct umap_ent *umap_find(const struct umap *m, uint64_t key)
{
	size_t j;

	if (!m->cap)
		return NULL;
	for (j = hash_u64(key) & (m->cap - 1); m->ents[j].used;
	     j = (j + 1) & (m->cap - 1))
		if (m->ents[j].key == key)
			return &m->ents[j];
	return NULL;
}

struct umap_ent *umap_get(struct umap *m, uint64_t key, int *added)
{
	struct umap_ent *e = umap_find(m, key);
	size_t j;

	if (e) {
		if (added)
			*added = 0;
		return e;
	}
	if (2 * (m->nr + 1) > m->cap)
		umap_grow(m);
	for (j = hash_u64(key) & (m->cap - 1); m->ents[j].used;
	     j = (j + 1) & (m->cap - 1))
		;
	m->ents[j].used = 1;
	m->ents[j].key = key;
	m->ents[j].val = NULL;
	m->nr++;
	if (added)
		*added = 1;
	return &m->ents[j];
}

int umap_del(struct umap *m, uint64_t key)
{
	struct umap_ent *e = umap_find(m, key);
	size_t mask = m->cap - 1, i, j, home;

	if (!e)
		return 0;
	/*
	 * Backward shift: each later entry of the run that may sit in the
	 * hole (its home slot is not cyclically in (hole, its slot])
	 * moves into it, and its slot becomes the hole; the run's end (an
	 * unused slot) ends it.
	 */
	i = (size_t)(e - m->ents);
	for (j = (i + 1) & mask; m->ents[j].used; j = (j + 1) & mask) {
		home = hash_u64(m->ents[j].key) & mask;
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;	/* it must stay after its home */
		m->ents[i] = m->ents[j];
		i = j;
	}
	memset(&m->ents[i], 0, sizeof(m->ents[i]));
	m->nr--;
	return 1;
}

void umap_release(struct umap *m)
{
	free(m->ents);
	memset(m, 0, sizeof(*m));
}
