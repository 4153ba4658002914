/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report --wakers's tables (wakers.h): who made whom wait, and the
 * GIL's holders, from the profile's wake entries.
 */
#include "compat.h"
#include "alloc.h"
#include "report/wakers.h"

/* A wake entry with its waiting frame by function. */
struct went {
	uint32_t waiter, waker, thread, fn;
	int reason, timed;
	uint64_t ns, count;
};

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* rows: by (waiter, reason, waker, thread) */
static int by_row_key(const void *a, const void *b)
{
	const struct went *x = a, *y = b;
	int c;

	if ((c = cmp_u32(x->waiter, y->waiter)))
		return c;
	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	if ((c = cmp_u32(x->waker, y->waker)))
		return c;
	if (x->timed != y->timed)
		return x->timed < y->timed ? -1 : 1;
	return cmp_u32(x->thread, y->thread);
}

/* holders: by (the waker's function, its frame, thread) */
static int by_holder_key(const void *a, const void *b)
{
	const struct went *x = a, *y = b;
	int c;

	if ((c = cmp_u32(x->fn, y->fn)))
		return c;
	if ((c = cmp_u32(x->waker, y->waker)))
		return c;
	return cmp_u32(x->thread, y->thread);
}

static int by_row_ns(const void *a, const void *b)
{
	const struct wakers_row *x = a, *y = b;
	int c;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if ((c = cmp_u32(x->waiter, y->waiter)))
		return c;
	if ((c = cmp_u32(x->waker, y->waker)))
		return c;
	if (x->timed != y->timed)
		return x->timed < y->timed ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

static int by_holder_ns(const void *a, const void *b)
{
	const struct wakers_holder *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return cmp_u32(x->holder, y->holder);
}

static int by_u32(const void *a, const void *b)
{
	return cmp_u32(*(const uint32_t *)a, *(const uint32_t *)b);
}

static int by_span_start(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The distinct values of v[0..n) (sorted in place). */
static uint32_t distinct(uint32_t *v, size_t n)
{
	uint32_t d = 0;
	size_t i;

	qsort(v, n, sizeof(*v), by_u32);
	for (i = 0; i < n; i++)
		if (!i || v[i] != v[i - 1])
			d++;
	return d;
}

/*
 * The time function fn (map) held the GIL before handing it on: the
 * union of its frames' spans.
 */
static uint64_t held_ns(const struct profile *p, const uint32_t *map,
			uint32_t fn)
{
	uint64_t (*sp)[2] = NULL, end = 0, ns = 0;
	size_t n = 0, alloc = 0, i, j;

	for (i = 0; i < p->nr_gil_holds; i++) {
		const struct profile_gil_hold *h = &p->gil_holds[i];

		if (map[h->holder] != fn)
			continue;
		ALLOC_GROW(sp, n + h->nr, alloc);
		for (j = 0; j < h->nr; j++) {
			sp[n][0] = h->spans[j][0];
			sp[n++][1] = h->spans[j][1];
		}
	}
	if (n)
		qsort(sp, n, sizeof(*sp), by_span_start);
	for (i = 0; i < n; i++) {
		uint64_t s = sp[i][0] > end ? sp[i][0] : end;

		if (sp[i][1] > s)
			ns += sp[i][1] - s;
		if (sp[i][1] > end)
			end = sp[i][1];
	}
	free(sp);
	return ns;
}

/* The rows: entries merged by (waiting function, reason, waker). */
static void rows(struct wakers_table *t, struct went *e, size_t n)
{
	struct wakers_row *r = NULL;
	size_t i;

	qsort(e, n, sizeof(*e), by_row_key);
	t->rows = xcalloc(n, sizeof(*t->rows));
	for (i = 0; i < n; i++) {
		if (!i || e[i].waiter != e[i - 1].waiter ||
		    e[i].reason != e[i - 1].reason ||
		    e[i].waker != e[i - 1].waker ||
		    e[i].timed != e[i - 1].timed) {
			r = &t->rows[t->nr_rows++];
			r->waiter = e[i].waiter;
			r->waker = e[i].waker;
			r->reason = e[i].reason;
			r->timed = e[i].timed;
			r->threads = 1;
		} else if (e[i].thread != e[i - 1].thread) {
			r->threads++;
		}
		r->ns += e[i].ns;
		r->count += e[i].count;
	}
	qsort(t->rows, t->nr_rows, sizeof(*t->rows), by_row_ns);
}

/* One holder: the entries e[0..n) of one function. */
static void holder(const struct profile *p, const uint32_t *map,
		   struct wakers_holder *h, const struct went *e, size_t n)
{
	uint32_t *th = xmalloc(n * sizeof(*th));
	uint64_t line_ns = 0, best = 0;
	size_t i;

	memset(h, 0, sizeof(*h));
	h->holder = e[0].fn;
	h->line = e[0].waker;
	for (i = 0; i < n; i++) {
		if (i && e[i].waker != e[i - 1].waker)
			line_ns = 0;
		if (!i || e[i].waker != e[i - 1].waker)
			h->lines++;
		line_ns += e[i].ns;
		if (line_ns > best) {
			best = line_ns;
			h->line = e[i].waker;
		}
		h->ns += e[i].ns;
		h->count += e[i].count;
		th[i] = e[i].thread;
	}
	h->threads = distinct(th, n);
	h->held_ns = held_ns(p, map, h->holder);
	free(th);
}

/*
 * The GIL's holders: the gil waits a Python frame ended, by its
 * function; the rest of the gil wait time by why no function ended it.
 */
static void holders(const struct profile *p, const uint32_t *map,
		    struct wakers_table *t, struct went *e, size_t n)
{
	uint32_t *th = xmalloc((n ? n : 1) * sizeof(*th));
	size_t i, k = 0, nth = 0, start;

	for (i = 0; i < n; i++) {
		const struct frame *w = &p->frames[e[i].waker];

		if (e[i].reason != WAIT_GIL)
			continue;
		t->gil_ns += e[i].ns;
		if (e[i].timed)
			t->gil_timed_ns += e[i].ns;
		th[nth++] = e[i].thread;
		if (w->kind == FRAME_PYTHON) {
			e[k] = e[i];
			e[k++].fn = map[e[i].waker];
		} else if (w->kind == FRAME_UNKNOWN && w->name &&
			   !strcmp(w->name, "[waker unknown]")) {
			t->gil_unknown_ns += e[i].ns;
		} else {
			t->gil_other_ns += e[i].ns;
		}
	}
	t->gil_threads = distinct(th, nth);
	free(th);
	qsort(e, k, sizeof(*e), by_holder_key);
	t->holders = xcalloc(k ? k : 1, sizeof(*t->holders));
	for (start = 0, i = 1; i <= k; i++)
		if (i == k || e[i].fn != e[start].fn) {
			holder(p, map, &t->holders[t->nr_holders++],
			       e + start, i - start);
			start = i;
		}
	qsort(t->holders, t->nr_holders, sizeof(*t->holders), by_holder_ns);
}

void wakers_table(const struct profile *p, struct wakers_table *t)
{
	struct went *e;
	uint32_t *map;
	size_t i, n = p->nr_wakes;

	memset(t, 0, sizeof(*t));
	if (!n)
		return;
	map = profile_function_map(p);
	e = xmalloc(n * sizeof(*e));
	for (i = 0; i < n; i++) {
		const struct profile_wake *w = &p->wakes[i];

		e[i].waiter = map[w->waiter];
		e[i].waker = w->waker;
		e[i].thread = w->thread;
		e[i].fn = 0;
		e[i].reason = w->reason;
		e[i].timed = w->timed != 0;
		e[i].ns = w->ns;
		e[i].count = w->count;
		t->ns += w->ns;
	}
	rows(t, e, n);
	holders(p, map, t, e, n);
	free(e);
	free(map);
}

void wakers_table_release(struct wakers_table *t)
{
	free(t->rows);
	free(t->holders);
	memset(t, 0, sizeof(*t));
}
