/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_HMAP_H
#define PPR_HMAP_H
/*
 * Two small open-addressing hash maps: byte-string keys (owned copies,
 * NUL bytes allowed) and u64 keys.  Values are pointers or u64 counts.
 * And the project's hash for tables kept elsewhere.
 */
#include "compat.h"

/*
 * The hash of len bytes from a seed.  Stable: the perf-script cache's
 * checksum (report/src_perfscript_cache.c) is one.
 */
uint64_t hash_mem(const void *data, size_t len, uint64_t seed);
/* A string's (NULL hashes too, to a value of the seed's). */
uint64_t hash_str(const char *s, uint64_t seed);

struct smap_ent {
	char *key;		/* NULL: empty slot */
	size_t len;
	uint64_t hash;
	void *val;
	uint64_t count;
};

struct smap {
	struct smap_ent *ents;
	size_t cap, nr;
};

/*
 * The entry for key (len bytes), added (with val NULL, count 0) when
 * missing.  *added says which.  Entries move when the map grows:
 * do not keep the pointer across calls.
 */
struct smap_ent *smap_get(struct smap *m, const char *key, size_t len,
			  int *added);
void smap_release(struct smap *m, void (*free_val)(void *));

struct umap_ent {
	uint64_t key;
	void *val;
	unsigned used : 1;
};

struct umap {
	struct umap_ent *ents;
	size_t cap, nr;
};

struct umap_ent *umap_get(struct umap *m, uint64_t key, int *added);
/* NULL when key is missing. */
struct umap_ent *umap_find(const struct umap *m, uint64_t key);
/*
 * Remove key's entry (1), or nothing when it is missing (0).  Entries
 * after it may move into its place (linear probing keeps no
 * tombstones): pointers to entries are stale afterwards.
 */
int umap_del(struct umap *m, uint64_t key);
void umap_release(struct umap *m);

#endif
