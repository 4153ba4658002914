/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: perfmap_parse() and perfmap_lookup().
 * Checks the lookup's result against a linear scan: the
 * returned entry must cover the address, and an address some entry
 * covers must find one.
 */
#include "compat.h"
#include "report/stage_name_perfmap.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct perfmap *m, uint64_t addr)
{
	const struct perfmap_entry *e = perfmap_lookup(m, addr);
	size_t i;

	if (e) {
		if (addr < e->start || addr >= e->end)
			__builtin_trap();
		if (strlen(e->name) > (size_t)-1 / 2)
			__builtin_trap();
		return;
	}
	for (i = 0; i < m->nr; i++)
		if (addr >= m->entries[i].start && addr < m->entries[i].end)
			__builtin_trap();	/* covered, but not found */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap m;
	size_t i;

	perfmap_init(&m);
	perfmap_parse(&m, (const char *)data, size);
	for (i = 0; i < m.nr && i < 64; i++) {
		check(&m, m.entries[i].start);
		check(&m, m.entries[i].end - 1);
		check(&m, m.entries[i].end);
		check(&m, m.entries[i].start - 1);
	}
	check(&m, 0);
	check(&m, UINT64_MAX);
	perfmap_release(&m);
	return 0;
}
