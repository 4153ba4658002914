/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: pyinfo_parse() (the interpreter probe's key=value
 * output) and pyinfo_parse_cflags().
 */
#include "compat.h"
#include "pyinfo.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct pyinfo info;
	struct cflag_facts cf;
	char err[256];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&info, 0, sizeof(info));
	if (!pyinfo_parse(text, &info, err, sizeof(err))) {
		(void)pyinfo_is_cpython(&info);
		(void)pyinfo_cmp(&info, 3, 12);
	}
	pyinfo_release(&info);
	pyinfo_parse_cflags(text, &cf);
	free(text);
	return 0;
}
