/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "strtab.h"
#include "alloc.h"

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

void strtab_init(struct strtab *st)
{
	memset(st, 0, sizeof(*st));
	ALLOC_GROW(st->v, 1, st->alloc);
	st->v[0] = "";
	st->nr = 1;
}

static void rehash(struct strtab *st, size_t cap)
{
	size_t h, i;

	free(st->keys);
	free(st->ids);
	st->keys = xcalloc(cap, sizeof(*st->keys));
	st->ids = xcalloc(cap, sizeof(*st->ids));
	st->cap = cap;
	for (i = 1; i < st->nr; i++) {
		h = str_hash(st->v[i]) & (cap - 1);
		while (st->keys[h])
			h = (h + 1) & (cap - 1);
		st->keys[h] = st->v[i];
		st->ids[h] = (uint32_t)i;
	}
}

uint32_t strtab_id(struct strtab *st, const char *s)
{
	size_t h;

	if (!s || !*s)
		return 0;
	if ((st->nr + 1) * 2 > st->cap)
		rehash(st, st->cap ? st->cap * 2 : 1024);
	h = str_hash(s) & (st->cap - 1);
	while (st->keys[h]) {
		if (!strcmp(st->keys[h], s))
			return st->ids[h];
		h = (h + 1) & (st->cap - 1);
	}
	ALLOC_GROW(st->v, st->nr + 1, st->alloc);
	st->v[st->nr] = s;
	st->keys[h] = s;
	st->ids[h] = (uint32_t)st->nr;
	return (uint32_t)st->nr++;
}

void strtab_release(struct strtab *st)
{
	free(st->v);
	free(st->keys);
	free(st->ids);
	memset(st, 0, sizeof(*st));
}
