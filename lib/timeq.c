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
	size_t a, b, k, head = q->sorted;

	if (head > q->nr)
		head = 0;
	if (q->nr - head > 1)
		qsort(q->e + head, q->nr - head, sizeof(*q->e), ent_cmp);
	/* the two runs in order already: the usual case */
	if (head && head < q->nr && ent_cmp(&q->e[head - 1], &q->e[head]) > 0) {
		ALLOC_GROW(q->tmp, head, q->tmp_alloc);
		memcpy(q->tmp, q->e, head * sizeof(*q->e));
		a = 0;
		b = head;
		k = 0;
		while (a < head && b < q->nr)
			q->e[k++] = ent_cmp(&q->tmp[a], &q->e[b]) <= 0 ?
				    q->tmp[a++] : q->e[b++];
		while (a < head)
			q->e[k++] = q->tmp[a++];
	}
	q->sorted = q->nr;
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
		q->sorted = 0;
		return;
	}
	memmove(q->e, q->e + n, (q->nr - n) * sizeof(*q->e));
	q->nr -= n;
	q->sorted = q->sorted > n ? q->sorted - n : 0;
}

void timeq_release(struct timeq *q)
{
	free(q->e);
	free(q->tmp);
	q->e = q->tmp = NULL;
	q->nr = q->alloc = q->sorted = q->tmp_alloc = 0;
}
