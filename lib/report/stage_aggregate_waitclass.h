/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_WAITCLASS_H
#define PPR_REPORT_WAITCLASS_H
/*
 * Why a thread was off CPU: the one classification of an off-CPU
 * interval (enum wait_reason, report/profile.h), from its stack at the
 * switch-out and the switch's facts.  The table and its rules are in
 * stage_aggregate_waitclass.c, and documented in pyperf-run-report(1)
 * (WAIT REASONS).
 */
#include "compat.h"
#include "report/profile.h"

struct wait_facts {
	unsigned preempt : 1;	/* left runnable (switch record) */
	unsigned have_state : 1;	/* prev_state known (sched_switch,
					   the frame walker) */
	uint64_t prev_state;	/* 0 runnable, 2 uninterruptible (D) */
};

/*
 * The reason of an interval whose stack is ids[0..n) (profile frame
 * ids of p, leaf first, before any view drops frames).  *inferred: the
 * reason was guessed from the interpreter's exported callers (the GIL
 * on a python without take_gil's symbol), not seen.
 */
enum wait_reason waitclass(const struct profile *p, const uint32_t *ids,
			   size_t n, const struct wait_facts *wf,
			   int *inferred);

#endif
