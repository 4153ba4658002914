/* SPDX-License-Identifier: GPL-2.0-only */
/* The walker's own BPF programs in kernel stacks (kself.h). */
#include "compat.h"
#include "walker/kself.h"
#include "byteorder.h"

#include <inttypes.h>

#define TOP_FRAMES 16

/* "ffffffff814ca4d0 T bpf_trace_run4": the address and name, or -1. */
static int parse(const char *line, uint64_t *addr, const char **name)
{
	char *end;
	const char *p;

	*addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return -1;
	p = end + 3;
	*name = p;
	return 0;
}

int kself_load(struct kself *k, const char *kallsyms)
{
	FILE *f = fopen(kallsyms, "re");
	char line[512];
	int open_range = 0;

	memset(k, 0, sizeof(*k));
	k->loaded = 1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *name;
		uint64_t addr;

		if (parse(line, &addr, &name) || !addr)
			continue;
		/* the next symbol ends the dispatcher before it */
		if (open_range) {
			k->end[k->n - 1] = addr;
			open_range = 0;
		}
		if (strncmp(name, "bpf_trace_run", 13) ||
		    name[13] < '1' || name[13] > '9' ||
		    k->n == ARRAY_SIZE(k->start))
			continue;
		k->start[k->n++] = addr;
		open_range = 1;
	}
	fclose(f);
	if (open_range)
		k->n--;		/* the last symbol: no end known */
	return k->n ? 0 : -1;
}

unsigned kself_own(const struct kself *k, const unsigned char *stack,
		   unsigned n)
{
	unsigned i;
	size_t j;
	uint64_t a;

	for (i = 0; i < n && i < TOP_FRAMES; i++) {
		a = get_le64(stack + 8 * (size_t)i);
		for (j = 0; j < k->n; j++)
			if (a >= k->start[j] && a < k->end[j])
				return i + 1;
	}
	return 0;
}
