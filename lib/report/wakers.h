/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_WAKERS_H
#define PPR_REPORT_WAKERS_H
/*
 * report --wakers's tables, from what the aggregation kept of each
 * interval (p->wakes, p->gil_holds: struct profile_wake in
 * report/profile.h):
 *
 * - who made whom wait: wait time per (waiting function, reason, waking
 *   frame), largest first.  The waiting side is by function (Python
 *   frames of one function at several lines are one,
 *   profile_function_map()); the waking side keeps the line the frames
 *   carry (where the waker was when it ended the wait).
 * - the GIL's holders: for gil waits (seen or inferred), per Python
 *   function of the waker (the thread that dropped the GIL), the wait
 *   time, the threads that waited and the time it held the GIL (from
 *   each taking to its handing on, the union of those spans), largest
 *   wait first; and the gil wait time no Python function ended.  A
 *   gil wait whose timed wait ran out before the holder dropped the GIL
 *   is one wait, credited to the holder (struct profile_wake's timed).
 */
#include "compat.h"
#include "report/profile.h"

struct wakers_row {
	uint32_t waiter;	/* frame id (a function's lowest) */
	uint32_t waker;		/* frame id, as p->wakes has it */
	int reason;		/* enum wait_reason */
	int timed;		/* gil waits whose timed wait ran out first
				   (struct profile_wake) */
	uint32_t threads;	/* waiting threads */
	uint64_t ns, count;	/* its intervals */
};

struct wakers_holder {
	uint32_t holder;	/* frame id (a function's lowest) */
	uint32_t line;		/* its frame that ended the most gil wait
				   time (a line of it, when frames have
				   lines) */
	uint32_t lines;		/* its frames that ended gil waits */
	uint32_t threads;	/* waiting threads */
	uint64_t ns, count;	/* the gil waits it ended */
	uint64_t held_ns;	/* the time it held the GIL (handed on) */
};

struct wakers_table {
	struct wakers_row *rows;	/* by ns, descending */
	size_t nr_rows;
	uint64_t ns;		/* every row's */
	struct wakers_holder *holders;	/* by ns, descending */
	size_t nr_holders;
	uint64_t gil_ns;	/* every gil wait with a waker entry */
	uint32_t gil_threads;	/* threads that waited for the GIL */
	uint64_t gil_timed_ns;	/* ...whose timed wait ran out first */
	uint64_t gil_unknown_ns;	/* ...no waker recorded */
	uint64_t gil_other_ns;	/* ...ended by an interrupt or timer, an
				   unwatched process or a thread without
				   a Python frame */
};

/*
 * The tables of p (empty when p has no wakes: not the wakers view).
 * Release with wakers_table_release().
 */
void wakers_table(const struct profile *p, struct wakers_table *t);
void wakers_table_release(struct wakers_table *t);

#endif
