/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top's refresh loop (top_priv.h): the samples the source gives wait
 * in a queue until top_update() has read the program's perf maps and
 * context tables again: what a sample names was written before the
 * sample was taken, so a read after it always finds it.  Then they go
 * into the live profile (report/profile.h: profile_live_*, the
 * report's pipeline).
 */
#include "compat.h"
#include "top/top_priv.h"

#ifdef PPR_HAVE_LIBPERF
#include "alloc.h"

/* The stream's samples: kept until top_update(). */
int top_keep_sample(void *data, const struct sample *s)
{
	struct top *t = data;
	struct pending *pe;

	ALLOC_GROW(t->pend, t->nr_pend + 1, t->pend_alloc);
	pe = &t->pend[t->nr_pend++];
	pe->s = *s;
	pe->s.frames = NULL;
	pe->first = t->nr_frames;
	ALLOC_GROW(t->frames, t->nr_frames + s->nr_frames, t->frames_alloc);
	if (s->nr_frames)
		memcpy(t->frames + t->nr_frames, s->frames,
		       s->nr_frames * sizeof(*s->frames));
	t->nr_frames += s->nr_frames;
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void top_update(struct top *t, int final)
{
	double t0 = now_seconds(), cost;
	size_t i;

	/*
	 * Reading the maps and context tables again costs in proportion
	 * to their size: keep it under 5% of a core by waiting 20 times
	 * as long as the last read took (the samples wait with it).
	 */
	if (!final && t0 < t->next_refresh)
		return;
	t->st.damaged = profile_live_refresh(t->lv);
	cost = now_seconds() - t0;
	t->next_refresh = t0 + 20 * cost;
	t->st.refresh_seconds = cost;
	for (i = 0; i < t->nr_pend; i++) {
		t->pend[i].s.frames = t->frames + t->pend[i].first;
		profile_live_sample(t->lv, &t->pend[i].s);
	}
	t->st.samples += t->nr_pend;
	t->nr_pend = 0;
	t->nr_frames = 0;
}

#endif
