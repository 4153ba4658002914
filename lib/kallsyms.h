/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_KALLSYMS_H
#define PPR_KALLSYMS_H
/*
 * The lines of /proc/kallsyms (and of a session's copy of it):
 * "ADDR TYPE NAME", then "\t[MODULE]" for a module's symbol.  The one
 * reader of such a line, for report's kernel symbols (unwind/symbols.c),
 * the walker's own ranges (walker/kself.c) and record's copy of the
 * symbols a session names (record/collect.c).
 */
#include "compat.h"

struct kallsyms_line {
	uint64_t addr;		/* 0: hidden (kptr_restrict) */
	char type;		/* nm's: 't' or 'T' a function, ... */
	const char *name;	/* name_len bytes, not NUL-terminated */
	size_t name_len;
	const char *mod;	/* "[MODULE]" (mod_len bytes), or NULL */
	size_t mod_len;
};

/*
 * The line from p up to its newline, or end (end NULL: up to a NUL):
 * 0 with *l, or -1 when it is not such a line.  *next, when next is not
 * NULL: past the newline (or the end).
 */
int kallsyms_parse(const char *p, const char *end, struct kallsyms_line *l,
		   const char **next);

/* A function's symbol: text, or a weak one. */
static inline int kallsyms_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

#endif
