/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: ctx_db_add() on a context table, then
 * ctx_db_rebuild() of samples whose return addresses walk the table's
 * slots.  The rebuilt stack must be finite (no cycle through parents)
 * and hold only frames with names.
 */
#include "compat.h"
#include "report/stage_name_contexts.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx_db *db = NULL;
	struct sample_frame f[16];
	struct sample in, out;
	uint64_t base = 0;
	size_t i, k;

	ctx_db_add(&db, data, size);
	if (!db)
		return 0;
	/* the first arena's start, if the input has one where expected */
	if (size >= 16 + 24 && data[16] == 3)
		memcpy(&base, data + 24, 8);
	for (k = 0; k < 8; k++) {
		for (i = 0; i < 16; i++) {
			f[i].ip = base + 16 * (k * 16 + i) + 6;
			f[i].sym.s = "[unknown]";
			f[i].sym.len = 9;
			f[i].dso.s = "//anon";
			f[i].dso.len = 6;
		}
		memset(&in, 0, sizeof(in));
		if (size >= 12)
			memcpy(&in.pid, data + 8, 4);	/* the table's pid */
		in.frames = f;
		in.nr_frames = 16;
		if (ctx_db_rebuild(db, &in, &out) == CTX_NONE)
			continue;
		if (out.nr_frames > 16 + (1u << 22))
			__builtin_trap();
		for (i = 0; i < out.nr_frames; i++)
			if (!out.frames[i].sym.s || !out.frames[i].sym.len)
				__builtin_trap();
	}
	ctx_db_free(db);
	return 0;
}
