/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pipeline's loader and its one sample through the stages (see
 * pipeline_priv.h): the state the stages share (struct loader), made
 * and released by profile_load.c for a session and by profile_live.c
 * for top, and pipeline_sample(), the sample_fn every source calls.
 * The sources call into this file, never into profile_load.c, which
 * calls them.
 */
#include "compat.h"
#include "alloc.h"
#include "numparse.h"
#include "report/pipeline_priv.h"
#include "sysprobe.h"

void loader_init(struct loader *l, struct profile *p,
		 const struct profile_filter *f)
{
	name_init();
	profile_init(p);
	p->view = f->view;
	p->group = f->group;
	memset(l, 0, sizeof(*l));
	l->p = p;
	l->f = f;
	l->unnamed_example = HTAB_NONE;
	memset(l->offcpu_frame, 0xff, sizeof(l->offcpu_frame));
	l->waker_unknown_frame = HTAB_NONE;
	l->chain_frame = HTAB_NONE;
	htab_init(&l->raw_tab);
	l->clock_defaulted = !f->clock;
	agg_set_clock(l, f->clock ? (enum profile_clock)(f->clock - 1) :
		      PROFILE_CLOCK_CPU);
}

/* The pseudo frames, and the callchain cap (after the meta is set). */
void loader_frames(struct loader *l)
{
	struct profile *p = l->p;
	size_t i;
	long ms;

	l->unknown_frame = profile_frame_intern(p, FRAME_UNKNOWN, NATIVE_NONE,
						NULL, NULL, NULL, NULL);
	if (l->f->view == PROFILE_VIEW_PYTHON) {
		l->pseudo_native = profile_frame_intern(p, FRAME_NATIVE,
							NATIVE_NONE,
							"[native]", NULL,
							NULL, NULL);
		l->pseudo_kernel = profile_frame_intern(p, FRAME_KERNEL,
							NATIVE_NONE,
							"[kernel]", NULL,
							NULL, NULL);
	}
	l->startup_frame = profile_frame_intern(p, FRAME_UNKNOWN, NATIVE_NONE,
						"[python start-up]", NULL,
						NULL, NULL);
	for (i = CUT_DUMP; i < CUT_NR; i++)
		l->cut_frame[i] = profile_frame_intern(p, FRAME_UNKNOWN,
						       NATIVE_NONE,
						       judge_cut_names[i],
						       NULL, NULL, NULL);
	/* the callchain cap frame-pointer chains were recorded with */
	if (!parse_long(profile_meta_get(p, "max_stack"), 10, 1, INT32_MAX,
			&ms) ||
	    !sysprobe_read_long("/proc/sys/kernel/perf_event_max_stack", &ms))
		p->quality.max_stack = (unsigned)ms;
}

void loader_release(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->wakers.cap; i++) {
		struct waker_stash *w = l->wakers.ents[i].val;

		if (l->wakers.ents[i].used && w) {
			free(w->ids);
			free(w);
		}
	}
	umap_release(&l->wakers);
	for (i = 0; i < l->chains.cap; i++) {
		struct chain_tails *c = l->chains.ents[i].val;
		unsigned k;

		if (l->chains.ents[i].used && c) {
			for (k = 0; k < CHAIN_KEEP; k++)
				free(c->t[k].ids);
			free(c);
		}
	}
	umap_release(&l->chains);
	for (i = 0; i < l->gil_timed.cap; i++)
		if (l->gil_timed.ents[i].used)
			free(l->gil_timed.ents[i].val);
	umap_release(&l->gil_timed);
	for (i = 0; i < l->gil_since.cap; i++)
		if (l->gil_since.ents[i].used)
			free(l->gil_since.ents[i].val);
	umap_release(&l->gil_since);
	smap_release(&l->wake_rows, NULL);
	smap_release(&l->gil_holds, NULL);
	free(l->wake_out);
	name_release(l);
	free(l->dumps);
	free(l->tops);
	free(l->cut_dumps);
	free(l->qprocs);
}

/*
 * One sample through the stages (a sample_fn: every source calls it).
 * The stack dump's facts are taken from every sample, accepted or not;
 * naming runs on the sample as the context tables rebuild it.
 */
int pipeline_sample(void *data, const struct sample *s)
{
	struct loader *l = data;
	struct sample rebuilt, clocked;
	struct named nm;
	enum stack_cut cut;
	uint32_t task;
	int accepted, named = 0;
	uint64_t judged = l->p->quality.judged;
	uint64_t unnamed = l->p->quality.unnamed;

	/*
	 * a waker: only the wakers view reads it, for the next interval;
	 * the perf-script reader's (event "waker", not decoded) never
	 */
	if (!s->waker && s->event.len == 5 && !memcmp(s->event.s, "waker", 5))
		return 0;
	if (s->waker) {
		/* kept for the wakers view, its table, or the spans' links */
		if (!(l->f->wakers || l->f->wake_table ||
		      (l->f->spans && l->wakers_source)) || s->own)
			return 0;
		s = name_rebuild(l, s, &rebuilt, &nm);
		name_frames(l, s, &nm);
		agg_waker(l, s, &nm);
		return 0;
	}
	judge_observe(l, s);
	s = agg_clock(l, s, &clocked);
	if (!s)
		return 0;
	agg_gil_note(l, s);
	accepted = agg_accept(l, s);
	if (l->f->wake_chain > 1 && s->offcpu) {
		/*
		 * --chain reads every interval's reason, in the filter or
		 * not (a waker's waits are often another thread's): named
		 * here, its naming's counts kept only when the view counts it
		 */
		struct profile_quality keep = l->p->quality;

		s = name_rebuild(l, s, &rebuilt, &nm);
		name_frames(l, s, &nm);
		named = 1;
		if (!accepted)
			l->p->quality = keep;
		agg_chain_note(l, s, nm.n);
	}
	if (!accepted)
		return 0;
	if (!named) {
		s = name_rebuild(l, s, &rebuilt, &nm);
		name_frames(l, s, &nm);
	}
	task = agg_task(l, s);
	cut = judge_sample(l, s, &nm);
	if (l->tap)
		l->tap(l->tap_data, s, cut);
	agg_add(l, s, &nm, cut, task);
	quality_sample(l, s, &nm, l->p->quality.judged != judged, cut,
		       l->p->quality.unnamed != unnamed);
	return 0;
}
