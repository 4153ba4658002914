/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: perf_version_parse() and what is computed from its
 * result (`make fuzz`).
 */
#include "compat.h"
#include "perfversion.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct perf_version v;
	char buf[128], why[256];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&v, 0, sizeof(v));
	if (!perf_version_parse(text, &v)) {
		if (memchr(v.extra, '\0', sizeof(v.extra)) == NULL)
			__builtin_trap();	/* extra must be terminated */
		perf_version_format(&v, buf, sizeof(buf));
		perf_version_format(&v, buf, 4);
		(void)perf_version_jit_fix(&v, why, sizeof(why));
		(void)perf_version_jit_fix(&v, why, 1);
	}
	free(text);
	return 0;
}
