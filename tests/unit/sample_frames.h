/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_TESTS_SAMPLE_FRAMES_H
#define PPR_TESTS_SAMPLE_FRAMES_H
/*
 * The unit tests' hand-made sample frames (report/sample.h), as a
 * source gives them to the pipeline: a Python frame already named
 * (function, file, line), or an address frame still to be named.
 * The strings are the callers': they must outlive the samples.
 */
#include <string.h>
#include "report/sample.h"

static inline struct sample_str str(const char *s)
{
	struct sample_str r = { s, strlen(s) };

	return r;
}

static inline struct sample_frame py(const char *func,
				     const char *file, uint32_t line)
{
	struct sample_frame f;

	memset(&f, 0, sizeof(f));
	f.kind = SAMPLE_FRAME_PYTHON;
	f.sym = str(func);
	f.dso = str(file);
	f.line = line;
	return f;
}

static inline struct sample_frame addr(uint64_t ip, const char *sym,
				       const char *dso)
{
	struct sample_frame f;

	memset(&f, 0, sizeof(f));
	f.kind = SAMPLE_FRAME_ADDR;
	f.ip = ip;
	f.sym = str(sym);
	f.dso = str(dso);
	return f;
}

#endif
