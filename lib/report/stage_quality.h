/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_QUALITY_H
#define PPR_REPORT_QUALITY_H
/*
 * What the quality warnings (quality.c) know about the user's Python
 * program, for the commands that advise on it (record's debug-symbol
 * hints).
 */
#include "compat.h"
#include "strbuf.h"
#include "report/profile.h"

/*
 * The objects whose code without symbols the samples show (native
 * frames "[object]": no symbol, a file), by the samples showing them,
 * most first, at most max, each in 1 % or more of the samples counted,
 * appended to out; returns how many.  program: count only the Python
 * program's samples, the processes with a Python frame (all when none
 * has one), so p must be loaded with its stacks by process
 * (PROFILE_BY_PROCESS): a shell's or sleep's unnamed code is not the
 * program's, and no hint can change its answer.  Otherwise every
 * sample counts (record -v's hints).
 */
/*
 * How the warning that record --max-size stopped the recording begins
 * (stage_quality.c): record says that itself, as it happens, and leaves
 * this one out of the report's warnings it repeats.
 */
#define QUALITY_MAX_SIZE_WARNING "recording stopped at --max-size "
/*
 * That warning added to p when its meta says record --max-size stopped
 * the recording (profile_load() calls it; report's perf-data export,
 * which writes no warnings, on a profile of the session's meta alone).
 */
void quality_max_size(struct profile *p);

size_t quality_unnamed_objects(const struct profile *p, int program,
			       struct strvec *out, size_t max);

#endif
