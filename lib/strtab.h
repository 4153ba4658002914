/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_STRTAB_H
#define PPR_STRTAB_H
#include "compat.h"

/*
 * A table of distinct strings, each with a small id in insertion order,
 * as string tables in output formats need (pprof's string_table, the
 * html writer's name table).  Id 0 is always the empty string; NULL and
 * "" map to it.  The strings are borrowed: they must outlive the table.
 *
 *   struct strtab st;
 *   strtab_init(&st);
 *   id = strtab_id(&st, name);      // st.v[id] == name, st.nr entries
 *   strtab_release(&st);
 */
struct strtab {
	const char **v;		/* v[id]; v[0] == "" */
	size_t nr, alloc;
	const char **keys;	/* open addressing on the contents */
	uint32_t *ids;
	size_t cap;		/* a power of two, or 0 */
};

void strtab_init(struct strtab *st);
/* The id of s, adding it when new. */
uint32_t strtab_id(struct strtab *st, const char *s);
void strtab_release(struct strtab *st);

#endif
