/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/timeq.c: the queue comes out in (time, arrival)
 * order however its sorts, drops and pushes interleave, as a flush that
 * holds some entries back from one sort to the next uses it: the new
 * entries sorted and merged with those kept (timeq_sort()).
 */
#include "compat.h"
#include "timeq.h"
#include "tap.h"

#include <stdlib.h>

/*
 * Is q in (time, seq) order, nr entries, each seq below pushed once,
 * each entry's owner field (off) still its own?
 */
static int in_order(const struct timeq *q, size_t nr, uint64_t pushed)
{
	unsigned char *seen = calloc((size_t)pushed + 1, 1);
	size_t i;
	int ok = seen != NULL && q->nr == nr;

	for (i = 0; ok && i < q->nr; i++) {
		const struct tq_ent *e = &q->e[i];

		if (e->seq >= pushed || seen[e->seq]++)
			ok = 0;
		else if (e->off != e->seq * 7)
			ok = 0;
		else if (i && (q->e[i - 1].time > e->time ||
			       (q->e[i - 1].time == e->time &&
				q->e[i - 1].seq > e->seq)))
			ok = 0;
	}
	free(seen);
	return ok;
}

/* A time near t, out of order by up to jitter, ties common. */
static uint64_t near(uint64_t t, unsigned jitter, unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return t + (*state >> 16) % (jitter + 1);
}

int main(void)
{
	struct timeq q = TIMEQ_INIT;
	unsigned st = 1;
	uint64_t t = 1000, pushed = 0;
	size_t round, k, n, queued = 0;
	int ok = 1;

	/*
	 * rounds: push (nearly in order, some far back, before entries
	 * kept from the last round), sort, hand on the older ones
	 */
	for (round = 0; round < 200; round++) {
		size_t m = 1 + round % 37;

		for (k = 0; k < m; k++) {
			uint64_t tt = near(t, 50, &st);

			if (k % 11 == 3)
				tt -= 400;	/* late */
			timeq_push(&q, tt, pushed * 7);
			pushed++;
			queued++;
			t += 5;
		}
		timeq_sort(&q);
		ok &= in_order(&q, queued, pushed);
		n = timeq_due(&q, t - 60);
		for (k = 0; k < n && ok; k++)
			ok &= q.e[k].time <= t - 60;
		ok &= n == q.nr || q.e[n].time > t - 60;
		timeq_drop(&q, n);
		queued -= n;
	}
	TAP_OK(ok, "200 rounds of pushes, sorts and drops: always in order");
	TAP_OK(queued > 0, "...with entries kept from round to round (%zu)",
	       queued);

	/* all equal times, across a drop and a merge */
	timeq_drop(&q, q.nr);
	timeq_sort(&q);
	TAP_INT(q.nr, 0, "empty: sorts to nothing");
	for (k = 0; k < 10; k++, pushed++)
		timeq_push(&q, 5, pushed * 7);
	timeq_sort(&q);
	timeq_drop(&q, 3);
	for (k = 0; k < 10; k++, pushed++)
		timeq_push(&q, 5, pushed * 7);
	timeq_sort(&q);
	ok = in_order(&q, 17, pushed);
	for (k = 0; ok && k < q.nr; k++)
		ok = q.e[k].seq == pushed - 17 + k;
	TAP_OK(ok, "equal times: in arrival order across a drop and a merge");
	timeq_release(&q);
	TAP_INT(q.nr, 0, "released");
	return tap_done();
}
