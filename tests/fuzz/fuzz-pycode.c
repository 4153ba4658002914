/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: pycode_load_buf() (the session's code-object file),
 * then every loaded entry's line lookups at a few offsets and a save of
 * what loaded: the line-table decoders run on whatever the file holds.
 */
#include "compat.h"
#include "walker/pycode.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pycode_cache *c = pycode_cache_new();
	char err[256];
	const char *p = (const char *)data;
	size_t off;

	(void)pycode_load_buf(c, p, size, err, sizeof(err));
	/* look up every "c PID ADDR TAG" the input names */
	for (off = 0; off < size; off++) {
		unsigned pid, tag;
		unsigned long long addr;
		char line[128];
		size_t n = size - off < sizeof(line) - 1 ? size - off :
			sizeof(line) - 1;
		const struct pycode *pc;
		uint32_t i;

		if (p[off] != 'c' || (off && p[off - 1] != '\n'))
			continue;
		memcpy(line, p + off, n);
		line[n] = '\0';
		if (sscanf(line, "c %u %llx %u", &pid, &addr, &tag) != 3)
			continue;
		pc = pycode_find(c, (pid_t)pid, addr, (uint16_t)tag);
		for (i = 0; pc && i < 64; i += 2)
			(void)pycode_line(c, pc, i);
		if (pc)
			(void)pycode_line(c, pc, 0xffffffffu);
	}
	pycode_cache_free(c);
	return 0;
}
