/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The time-ordered queue (see timeq.h).
 */
#include "compat.h"
#include "alloc.h"
#include "timeq.h"

struct tq_ent *timeq_push(struct timeq *q, uint64_t time, uint64_t off)
{
	struct tq_ent *e;

	ALLOC_GROW(q->e, q->nr + 1, q->alloc);
	e = &q->e[q->nr++];
	memset(e, 0, sizeof(*e));
	e->time = time;
	e->seq = q->seq++;
	e->off = off;
	return e;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct tq_ent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

void timeq_sort(struct timeq *q)
{
	if (q->nr > 1)
		qsort(q->e, q->nr, sizeof(*q->e), ent_cmp);
}

size_t timeq_due(const struct timeq *q, uint64_t limit)
{
	size_t n = 0;

	while (n < q->nr && q->e[n].time <= limit)
		n++;
	return n;
}

void timeq_drop(struct timeq *q, size_t n)
{
	if (n >= q->nr) {
		q->nr = 0;
		return;
	}
	memmove(q->e, q->e + n, (q->nr - n) * sizeof(*q->e));
	q->nr -= n;
}

void timeq_release(struct timeq *q)
{
	free(q->e);
	q->e = NULL;
	q->nr = q->alloc = 0;
}
