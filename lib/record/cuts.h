/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_CUTS_H
#define PPR_RECORD_CUTS_H
#include "compat.h"
#include "report/profile.h"
#include "strbuf.h"

/*
 * Cut stacks: the hints record gives from profile_load()'s judgement of
 * a session's stacks (lib/report/profile.h; where a stack starts is
 * stackroot.h's).
 */

/*
 * What the hints after a recording are made from: the mode and its
 * limits at record time, and profile_load()'s counts of cut stacks
 * (struct profile_quality) with the facts behind them.  Unknown facts
 * are 0.
 */
struct record_cut_facts {
	int jit;		/* jit mode (else perf mode) */
	unsigned stack_size;	/* jit: bytes dumped per sample */
	unsigned max_stack;	/* kernel.perf_event_max_stack, 0 unknown */
	uint64_t judged;	/* samples with user frames */
	uint64_t cut[CUT_NR];	/* by enum stack_cut */
	/*
	 * Dump cuts: how many have a measure of the stack they needed,
	 * how many of those a 65528-byte dump would complete, and the
	 * dump size that completes 99 % of them (may exceed 65528; 0
	 * unknown).
	 */
	uint64_t dump_measured;
	uint64_t dump_fixable;
	uint64_t dump_needed;
	/* Frame-cap cuts: the cap a complete chain needs (0 unknown). */
	unsigned depth_needed;
	/* Unwinder cuts: how many stopped at a Python (jitted) frame. */
	uint64_t unwind_at_python;
	int unwind_known;	/* unwind_at_python was counted */
	int jit_fix_known;	/* perf is known to unwind jitted code */
};

/*
 * The hints (one line each, without "hint: ") that would help with the
 * cut stacks f describes, appended to out; none when nothing would.
 * Only advice the facts back: a --stack-size only when the dump was
 * full and the measured size (at most 65528) completes most of the
 * cut stacks; never a size for unwinder cuts, and a newer perf only
 * when most of them were counted stopping at a Python (jitted) frame
 * (unwind_known); the kernel's cap or jit
 * mode for frame-cap cuts; jit mode for chains broken by code without
 * frame pointers.  Returns the number appended.
 */
size_t record_cut_hints(const struct record_cut_facts *f, struct strvec *out);

/* The share (0..1) of judged samples with cut stacks. */
double record_cut_share(const struct record_cut_facts *f);

#endif
