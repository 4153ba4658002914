/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The conversion's queue (see wconv_priv.h): copies of the events and of
 * the records read from /proc, at 8-aligned offsets of one arena, in a
 * time-ordered queue (timeq.h) that wconv.c's flush writes from.
 */
#include "compat.h"
#include "alloc.h"
#include "walker/wconv_priv.h"

/* Room for len more bytes at the arena's end (8-aligned); its offset. */
static size_t arena_take(struct wconv *c, size_t len)
{
	size_t at = c->arena_len;

	ALLOC_GROW(c->arena, at + ((len + 7) & ~(size_t)7), c->arena_alloc);
	c->arena_len = at + ((len + 7) & ~(size_t)7);
	return at;
}

void wconv_enqueue(struct wconv *c, size_t off, size_t len, uint64_t time)
{
	timeq_push(&c->q, time, off)->len = len;
	if (time > c->newest)
		c->newest = time;
}

void wconv_enqueue_int(struct wconv *c, uint32_t type, pid_t pid,
		       pid_t tid, uint64_t time, uint32_t cpu,
		       const struct wmap *m, const char *name, int exec)
{
	size_t n = strlen(name) + 1, len = sizeof(struct int_rec) + n;
	size_t at = arena_take(c, len);
	struct int_rec *r = (struct int_rec *)(void *)(c->arena + at);

	memset(r, 0, sizeof(*r));
	r->hdr.type = type;
	r->hdr.size = (uint32_t)len;
	r->hdr.time_ns = time;
	r->hdr.pid = (uint32_t)pid;
	r->hdr.tid = (uint32_t)tid;
	r->hdr.cpu = cpu;
	if (m) {
		r->start = m->start;
		r->len = m->end - m->start;
		r->pgoff = m->pgoff;
		r->ino = m->ino;
		r->maj = m->maj;
		r->min = m->min;
		r->prot = m->prot;
		r->flags = m->flags;
	}
	r->exec = !!exec;
	memcpy(r->name, name, n);
	wconv_enqueue(c, at, len, time);
}
