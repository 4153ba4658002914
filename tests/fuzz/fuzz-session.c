/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: session_meta_parse() and the print/parse round trip:
 * what the writer prints must parse back to the same keys and values.
 */
#include "compat.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session_meta m, back;
	char err[256];
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;

	session_meta_init(&m);
	session_meta_init(&back);
	if (session_meta_parse(&m, (const char *)data, size, err,
			       sizeof(err)))
		goto out;
	fp = open_memstream(&buf, &len);
	if (!fp)
		goto out;
	if (session_meta_print(&m, fp))
		__builtin_trap();
	fclose(fp);
	if (session_meta_parse(&back, buf, len, err, sizeof(err)))
		__builtin_trap();	/* our own output must parse */
	if (back.keys.nr != m.keys.nr)
		__builtin_trap();
	for (i = 0; i < m.keys.nr; i++) {
		if (strcmp(back.keys.v[i], m.keys.v[i]) ||
		    strcmp(back.values.v[i], m.values.v[i]))
			__builtin_trap();
	}
	for (i = 0; i < m.keys.nr; i++)
		(void)session_meta_get(&m, m.keys.v[i]);
out:
	free(buf);
	session_meta_release(&m);
	session_meta_release(&back);
	return 0;
}
