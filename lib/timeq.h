/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_TIMEQ_H
#define PPR_TIMEQ_H
/*
 * The one time-ordered queue of records: perf.data's reader
 * (report/src_native.c), the walker's events into perf.data
 * (walker/wconv.c) and top's ring buffers (top/src_ring.c) each queue
 * records as they come and hand them on in time order, records of equal
 * time in the order they came.  An entry holds the record's time and
 * where its owner keeps it (an offset, and a length or a pointer); the
 * owner keeps the record itself.
 */
#include "compat.h"

struct tq_ent {
	uint64_t time;
	uint64_t seq;		/* arrival order (timeq.seq when pushed) */
	uint64_t off;		/* the owner's: where the record is */
	union {			/* the owner's too */
		uint64_t len;
		void *ptr;
	};
};

struct timeq {
	struct tq_ent *e;
	size_t nr, alloc;
	uint64_t seq;		/* entries ever pushed */
	size_t sorted;		/* e[0, sorted) in order (timeq_sort()) */
	struct tq_ent *tmp;	/* timeq_sort()'s merge room */
	size_t tmp_alloc;
};

#define TIMEQ_INIT { NULL, 0, 0, 0, 0, NULL, 0 }

/* A new entry (time, off; len and ptr zero) at the end; it is valid
 * until the next push. */
struct tq_ent *timeq_push(struct timeq *q, uint64_t time, uint64_t off);

/*
 * Sort by time, then arrival.  What a sort left in order and a drop
 * kept stays sorted: only the entries pushed since are sorted, then
 * merged with it (records come nearly in order, and the ones held back
 * from one flush to the next are many: sorting them all again was most
 * of the walker's recorder's CPU at 50,000 switches a second).
 */
void timeq_sort(struct timeq *q);

/* Sorted: how many entries from the front have time <= limit. */
size_t timeq_due(const struct timeq *q, uint64_t limit);

/* The first n entries out (the owner has handed them on), the rest to
 * the front in their order. */
void timeq_drop(struct timeq *q, size_t n);

void timeq_release(struct timeq *q);

#endif
