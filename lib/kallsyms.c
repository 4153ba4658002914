/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A line of /proc/kallsyms (kallsyms.h).
 */
#include "compat.h"
#include "kallsyms.h"
#include "numparse.h"

int kallsyms_parse(const char *p, const char *end, struct kallsyms_line *l,
		   const char **next)
{
	const char *nl, *q, *tab;
	int digits = 0, v;

	nl = end ? memchr(p, '\n', (size_t)(end - p)) : strchr(p, '\n');
	if (!nl)
		nl = end ? end : p + strlen(p);
	if (next)
		*next = (end ? nl < end : *nl == '\n') ? nl + 1 : nl;
	memset(l, 0, sizeof(*l));
	for (q = p; q < nl && (v = hexval(*q)) >= 0; q++, digits++)
		l->addr = l->addr << 4 | (uint64_t)v;
	/* " T name": a type letter between two spaces, a name after */
	if (!digits || nl - q < 4 || q[0] != ' ' || q[1] == ' ' ||
	    q[2] != ' ')
		return -1;
	l->type = q[1];
	l->name = q + 3;
	tab = memchr(l->name, '\t', (size_t)(nl - l->name));
	l->name_len = (size_t)((tab ? tab : nl) - l->name);
	if (tab) {
		l->mod = tab + 1;
		l->mod_len = (size_t)(nl - l->mod);
	}
	return l->name_len ? 0 : -1;
}
