/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/hmap's u64 map: umap_del() (backward shift, no
 * tombstones) against a plain array, through collisions, wrap-around
 * and growth.
 */
#include "compat.h"
#include "hmap.h"
#include "tap.h"

#define KEYS 4000

/* Does m hold exactly the keys marked in want, each with val key + 1? */
static int same(const struct umap *m, const unsigned char *want)
{
	size_t n = 0, i;

	for (i = 0; i < KEYS; i++) {
		const struct umap_ent *e = umap_find(m, i * 7919u);

		if (!want[i] != !e)
			return 0;
		if (e && e->val != (void *)(uintptr_t)(i + 1))
			return 0;
		n += want[i];
	}
	return m->nr == n;
}

int main(void)
{
	struct umap m = { NULL, 0, 0 };
	unsigned char want[KEYS] = { 0 };
	uint64_t x = 88172645463325252ull;	/* xorshift64 */
	size_t i, step, bad = 0;

	TAP_INT(umap_del(&m, 1), 0, "an empty map has nothing to delete");
	for (step = 0; step < 200000; step++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		i = (size_t)(x % KEYS);
		if (x & (1ull << 40)) {
			umap_get(&m, i * 7919u, NULL)->val =
				(void *)(uintptr_t)(i + 1);
			want[i] = 1;
		} else {
			if (umap_del(&m, i * 7919u) != want[i])
				bad++;
			want[i] = 0;
		}
		if (step % 997 == 0 && !same(&m, want))
			bad++;
	}
	TAP_INT(bad, 0, "200,000 random adds and deletes agree with an array");
	TAP_OK(same(&m, want), "the final contents agree");
	for (i = 0; i < KEYS; i++)
		umap_del(&m, i * 7919u);
	TAP_INT(m.nr, 0, "deleting every key empties it");
	umap_release(&m);
	return tap_done();
}
