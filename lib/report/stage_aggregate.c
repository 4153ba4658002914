/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregation stage (pipeline_priv.h): a named and judged sample
 * in, one stack of the profile model out (profile_stack_add(), with
 * the sample's weight).  agg_accept() first keeps the samples that are
 * the user's program's and in the filter (pids, tids, a time window),
 * counting those the filter leaves out; agg_task() takes the sample's
 * thread and, by the grouping asked, its task.  agg_add() folds what
 * is the interpreter's own work into the Python function it runs, then
 * builds the view's stack: every frame (all), Python frames only
 * (python), or without the call plumbing and start-up frames (mixed),
 * root first, under the pseudo frame of a cut or start-up stack.
 */
#include "compat.h"
#include <ctype.h>
#include "alloc.h"
#include "report/pipeline_priv.h"
#include "report/stage_aggregate_waitclass.h"
#include <linux/types.h>
#include "walker/walker_abi.h"

static int pid_in(const pid_t *v, size_t n, pid_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* The time window, from the session's first sample, whichever. */
static void window_init(struct loader *l, const struct sample *s)
{
	const struct profile_filter *f = l->f;

	if (l->have_first)
		return;
	l->have_first = 1;
	l->first_ns = s->time_ns;
	if (f->time_from > 0)
		l->from_ns = s->time_ns + (uint64_t)(f->time_from * 1e9);
	if (f->time_to >= 0)
		l->to_ns = s->time_ns + (uint64_t)(f->time_to * 1e9);
}

/* The profile's clock, and the unit it weighs in. */
void agg_set_clock(struct loader *l, enum profile_clock c)
{
	l->p->clock = c;
	l->p->unit = c == PROFILE_CLOCK_CPU ? UNIT_SAMPLES : UNIT_NS;
}

/*
 * The sample as the clock weighs it, or NULL when the clock leaves it
 * out (not counted as dropped: another clock's).  cpu: the on-CPU
 * samples as they are.  off-cpu: the intervals.  wall: both, an
 * on-CPU sample weighing its period (nanoseconds of cpu-clock).  An
 * interval in part inside the time window counts for that part.
 */
const struct sample *agg_clock(struct loader *l, const struct sample *s,
			       struct sample *copy)
{
	enum profile_clock c = l->p->clock;

	if (s->offcpu ? c == PROFILE_CLOCK_CPU : c == PROFILE_CLOCK_OFFCPU)
		return NULL;
	/*
	 * A wall session's stacks at switch-out, from a source that gives
	 * them as samples (perf script): not on-CPU time.
	 */
	if (l->wall_session && s->event.len >= 16 &&
	    (!memcmp(s->event.s, "sched:sched_switch", 18 <= s->event.len ?
		     18 : s->event.len) ||
	     !memcmp(s->event.s, "context-switches", 16)))
		return NULL;
	if (c == PROFILE_CLOCK_CPU)
		return s;
	*copy = *s;
	if (!s->offcpu) {
		copy->weight = s->period;
		copy->unit = UNIT_NS;
		return copy;
	}
	/*
	 * An interval has no CPU time: the stacks' period (the CPU time of
	 * clock events, pprof's "cpu" beside the wall "time") stays the
	 * on-CPU samples'.
	 */
	copy->period = 0;
	if (!s->time_ns) {
		/* perf --off-cpu's accumulated intervals: no time */
		l->p->quality.offcpu_notime++;
		if (l->f->time_from > 0 || l->f->time_to >= 0) {
			l->p->dropped++;
			return NULL;
		}
		return copy;
	}
	window_init(l, s);
	{
		uint64_t end = s->time_ns, start = end - s->weight;

		if (end < s->weight)
			start = 0;
		if (l->from_ns && start < l->from_ns && end > l->from_ns)
			start = l->from_ns;
		if (l->f->time_to >= 0 && end > l->to_ns && start < l->to_ns)
			end = l->to_ns;
		copy->time_ns = end;
		copy->weight = end - start;
	}
	return copy;
}

/*
 * 1 when the sample goes into the profile; 0 when it is not the
 * program's or the filter leaves it out (counted in p->dropped).  The
 * time window starts at the session's first sample, whichever.
 */
int agg_accept(struct loader *l, const struct sample *s)
{
	struct profile *p = l->p;
	const struct profile_filter *f = l->f;

	window_init(l, s);
	/*
	 * record's exec helper and the program's process before its exec
	 * (report/src_owntasks.h): not the user's, so not counted anywhere in
	 * the profile, not even as dropped.
	 */
	if (s->own)
		return 0;
	if ((f->nr_pids && !pid_in(f->pids, f->nr_pids, s->pid)) ||
	    (f->nr_tids && !pid_in(f->tids, f->nr_tids, s->tid)) ||
	    (l->from_ns && s->time_ns < l->from_ns) ||
	    (f->time_to >= 0 && s->time_ns > l->to_ns)) {
		p->dropped++;
		return 0;
	}
	if (s->time_ns) {
		double t = (double)s->time_ns / 1e9;

		if (!p->first_time || t < p->first_time)
			p->first_time = t;
		if (t > p->last_time)
			p->last_time = t;
	}
	return 1;
}

/* The sample's thread (its weight added), and its task by f->group. */
uint32_t agg_task(struct loader *l, const struct sample *s)
{
	struct profile *p = l->p;
	uint32_t task = PROFILE_NO_TASK, th;
	/* a thread: "NAME (comm)" when Python's name of it is known */
	char label[256];
	struct sample_str tl = s->comm;

	if (s->thread_name.len) {
		int n = snprintf(label, sizeof(label), "%.*s (%.*s)",
				 (int)s->thread_name.len, s->thread_name.s,
				 (int)s->comm.len, s->comm.s);

		tl.s = label;
		tl.len = n < 0 ? 0 : (size_t)n < sizeof(label) ? (size_t)n :
			sizeof(label) - 1;
	}
	th = prof_thread_intern(p, s->pid, s->tid, tl.s, tl.len);
	p->threads[th].weight += s->weight;
	p->threads[th].count++;
	l->cur_thread = th;
	if (l->f->group == PROFILE_BY_THREAD) {
		task = prof_task_intern_len(p, s->pid, s->tid, tl.s, tl.len);
	} else if (l->f->group == PROFILE_BY_PROCESS) {
		int main_thread = s->pid == s->tid;

		task = prof_task_intern_len(p, s->pid, s->pid,
					    main_thread ? s->comm.s : NULL,
					    main_thread ? s->comm.len : 0);
		if (!p->tasks[task].comm)
			p->tasks[task].comm = xstrndup(s->comm.s,
						       s->comm.len);
	}
	return task;
}

/*
 * Unnamed code below the innermost Python frame (inner) whose nearest
 * named caller is that frame (through the eval loop and other
 * plumbing) is the interpreter running that function (a stripped
 * build's static helpers: dict lookups, .cold parts of the eval loop):
 * the function's own time, as plumbing is.  Only the interpreter's own
 * object: an extension's unnamed code stays visible.  Unnamed code
 * under a named C function (gc_collect_main under PyType_GenericAlloc)
 * is shown as unnamed, never credited to that function, and counted.
 */
static void fold_unnamed(struct loader *l, size_t n, size_t inner)
{
	const struct profile *p = l->p;
	size_t i;

	if (inner < n) {
		int py_owned = 1;

		for (i = inner; i-- > 0;) {
			if (l->unnamed[i] &&
			    p->frames[l->ids[i]].native == NATIVE_LIBPYTHON) {
				if (py_owned)
					l->cls[i] = C_PLUMB;
			} else if (l->cls[i] != C_PLUMB) {
				py_owned = 0;
			}
		}
	}
	for (i = 0; i < inner; i++)
		if (l->unnamed[i] && l->cls[i] != C_PLUMB) {
			l->p->quality.unnamed++;
			if (l->unnamed_example == HTAB_NONE)
				l->unnamed_example = l->ids[i];
			break;
		}
}

/* python: the Python frames, or where the sample ran without any. */
static size_t view_python(struct loader *l, size_t n, size_t d,
			  enum stack_cut cut)
{
	size_t i;

	for (i = n; i-- > 0;)
		if (l->cls[i] == C_PY)
			l->out[d++] = l->ids[i];
	if (d == (cut != CUT_NONE)) {
		int user = 0;

		for (i = 0; i < n; i++)
			if (l->cls[i] != C_KERNEL)
				user = 1;
		l->out[d++] = user || !n ? l->pseudo_native : l->pseudo_kernel;
	}
	return d;
}

/*
 * mixed: drop plumbing; below the outermost Python frame also drop
 * interpreter / libc start-up frames; unnamed code between Python
 * frames is plumbing too, elsewhere one frame per run of unnamed code
 * in one object.
 */
static size_t view_mixed(struct loader *l, const struct named *nm,
			 size_t inner, size_t d)
{
	size_t n = nm->n, outer = n, start = d, i;

	if (nm->any_py) {
		for (i = n; i-- > 0;)
			if (l->cls[i] == C_PY) {
				outer = i;
				break;
			}
	}
	for (i = n; i-- > 0;) {
		if (l->cls[i] == C_PLUMB)
			continue;
		if (i > outer && l->startup[i])
			continue;
		if (l->unnamed[i] && i > inner)
			continue;
		if (l->unnamed[i] && d > start && l->out[d - 1] == l->ids[i])
			continue;
		l->out[d++] = l->ids[i];
	}
	if (d == start && n)
		l->out[d++] = l->ids[0];
	return d;
}

/* What the interval s says of its wait, for waitclass(). */
static void wait_facts_of(const struct sample *s, struct wait_facts *wf)
{
	memset(wf, 0, sizeof(*wf));
	wf->preempt = s->preempt;
	wf->have_state = s->have_state;
	wf->prev_state = s->prev_state;
}

/*
 * An off-CPU interval: its reason (stage_aggregate_waitclass.h, on
 * every frame named, before a view drops some), counted for its thread
 * and the warnings; returns the "[off-cpu REASON]" frame its stack ends
 * in.
 */
static uint32_t offcpu_leaf(struct loader *l, const struct sample *s,
			    size_t n, int *reason)
{
	struct profile *p = l->p;
	struct wait_facts wf;
	enum wait_reason r;
	int inferred = 0, variant = 0;

	wait_facts_of(s, &wf);
	if (s->stack_inferred) {
		/* the stack is where it last ran, not where it waits */
		r = s->preempt ? WAIT_RUNQUEUE : WAIT_OTHER;
		variant = 2;
		p->quality.offcpu_nostack++;
		p->quality.offcpu_nostack_ns += s->weight;
	} else {
		r = waitclass(p, l->ids, n, &wf, &inferred);
		if (inferred) {
			variant = 1;
			p->quality.gil_inferred++;
			p->quality.gil_inferred_ns += s->weight;
		}
	}
	*reason = (int)r;
	p->quality.offcpu++;
	p->quality.offcpu_ns += s->weight;
	/*
	 * record -p: a wait under way at the attach, its time from the
	 * attach on (it was longer): said in its frame and counted
	 */
	if (s->before_attach) {
		p->quality.before_attach++;
		p->quality.before_attach_ns += s->weight;
	}
	p->threads[l->cur_thread].offcpu[r] += s->weight;
	if (l->offcpu_frame[r][variant][s->before_attach] == HTAB_NONE) {
		char name[80];

		snprintf(name, sizeof(name), "[off-cpu %s%s%s]",
			 wait_reason_name(r),
			 variant == 1 ? ", inferred" :
			 variant == 2 ? ", stack inferred" : "",
			 s->before_attach ? ", from the attach" : "");
		l->offcpu_frame[r][variant][s->before_attach] =
			profile_frame_intern(p, FRAME_UNKNOWN, NATIVE_NONE,
					     name, NULL, NULL, NULL);
	}
	return l->offcpu_frame[r][variant][s->before_attach];
}

/* The sample's span: when its thread ran (reason -1) or waited. */
static void add_span(struct loader *l, const struct sample *s,
		     uint32_t stack, int reason)
{
	struct profile *p = l->p;
	struct profile_span *sp;

	ALLOC_GROW(p->spans, p->nr_spans + 1, p->alloc_spans);
	sp = &p->spans[p->nr_spans++];
	sp->dur = s->weight;
	sp->start = s->time_ns > s->weight ? s->time_ns - s->weight : 0;
	sp->thread = l->cur_thread;
	sp->stack = stack;
	sp->reason = reason;
	sp->waker = 0;
	/* a wait's waker, when a watched thread's (the timeline links it) */
	if (reason >= 0 && l->wakers_source) {
		struct umap_ent *e = umap_find(&l->wakers, (uint32_t)s->tid);
		const struct waker_stash *w = e ? e->val : NULL;

		if (w && w->time == s->time_ns)
			sp->waker = w->waker_tid;
	}
}

/*
 * The sample's stack as the view shows it into l->out, root first:
 * under the pseudo frame of a cut or start-up stack.  Returns its
 * length.
 */
static size_t agg_view(struct loader *l, const struct named *nm,
		       enum stack_cut cut)
{
	size_t n = nm->n, inner = n, d = 0, i;

	if (nm->startup)
		l->out[d++] = l->startup_frame;
	/* the innermost Python frame: unnamed code above it is plumbing */
	for (i = 0; i < n; i++)
		if (l->cls[i] == C_PY) {
			inner = i;
			break;
		}
	fold_unnamed(l, n, inner);
	if (cut != CUT_NONE)
		l->out[d++] = l->cut_frame[cut];
	switch (l->f->view) {
	case PROFILE_VIEW_ALL:
		for (i = n; i-- > 0;)
			l->out[d++] = l->ids[i];
		break;
	case PROFILE_VIEW_PYTHON:
		d = view_python(l, n, d, cut);
		break;
	default:
		d = view_mixed(l, nm, inner, d);
		break;
	}
	return d;
}

/* 1 when frame id's name is one of the kernel's timer callbacks. */
static int timer_frame(const struct profile *p, uint32_t id)
{
	static const char *const timers[] = {
		"hrtimer_wakeup", "process_timeout", "call_timer_fn",
	};
	const char *name = p->frames[id].name;
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(timers); i++)
		if (!strcmp(name, timers[i]))
			return 1;
	return 0;
}

/*
 * Whether the sample's named frames (l->ids[0..n), every one, before a
 * view drops some) hold a native frame of one of these names: the
 * interpreter's calls around the GIL are exported names, there in
 * stripped interpreters too.
 */
static int named_has(const struct loader *l, size_t n,
		     const char *const *names)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct frame *f = &l->p->frames[l->ids[i]];

		if (f->kind != FRAME_NATIVE || !f->name)
			continue;
		for (k = 0; names[k]; k++)
			if (!strcmp(f->name, names[k]))
				return 1;
	}
	return 0;
}

/* A thread's release of the GIL around I/O or a C call... */
static const char *const gil_release[] = {
	"PyEval_SaveThread", "PyEval_ReleaseThread", NULL
};
/* ...and its taking the GIL back after one */
static const char *const gil_retake[] = {
	"PyEval_RestoreThread", "PyEval_AcquireThread", NULL
};

/*
 * A waker sample (the wakers view): its "[woken by ...]" frame and its
 * stack in the view, innermost frame first (as offwaketime draws it:
 * the waker's leaf meets the waiter's), kept for the interval of
 * wake.wakee_tid that comes next, at the same time.
 */
void agg_waker(struct loader *l, const struct sample *s,
	       const struct named *nm)
{
	struct profile *p = l->p;
	struct umap_ent *e;
	struct waker_stash *w;
	char label[128];
	const char *how, *shared;
	size_t d, i;
	int timer = 0;

	d = agg_view(l, nm, CUT_NONE);
	for (i = 0; i < d; i++)
		timer |= timer_frame(p, l->out[i]);
	/* a watched thread whose exit ended the wait, one wakeup of several */
	how = s->wake.flags & WALKER_WAKE_F_EXITING ? ", exiting" : "";
	shared = s->wake.flags & WALKER_WAKE_F_SHARED ? ", shared" : "";
	if (s->wake.context != WALKER_WAKE_TASK)
		snprintf(label, sizeof(label), timer ? "[woken by timer]" :
			 s->wake.context == WALKER_WAKE_SOFTIRQ ?
			 "[woken by irq (softirq)]" : "[woken by irq]");
	else if (s->wake.flags & WALKER_WAKE_F_UNWATCHED)
		snprintf(label, sizeof(label),
			 "[woken by an unwatched process %s-%d]",
			 s->wake.comm, (int)s->pid);
	else if (s->thread_name.len)
		/*
		 * Python's name of the waker: the kernel's comm is at most
		 * 15 bytes, and 3.14 sets it from that name, cut ("Thread-1
		 * (round")
		 */
		snprintf(label, sizeof(label), "[woken by %.*s, %d/%d%s%s]",
			 (int)(s->thread_name.len > 80 ? 80 :
			       s->thread_name.len), s->thread_name.s,
			 (int)s->pid, (int)s->tid, how, shared);
	else
		snprintf(label, sizeof(label), "[woken by %s-%d/%d%s%s]",
			 s->wake.comm, (int)s->pid, (int)s->tid, how, shared);
	e = umap_get(&l->wakers, (uint32_t)s->wake.wakee_tid, NULL);
	if (!e->val)
		e->val = xcalloc(1, sizeof(struct waker_stash));
	w = e->val;
	w->time = s->time_ns;
	w->flags = s->wake.flags;
	w->context = s->wake.context;
	w->timer = timer;
	w->waker_tid = s->wake.context == WALKER_WAKE_TASK &&
		       !(s->wake.flags & WALKER_WAKE_F_UNWATCHED) ? s->tid : 0;
	w->wake_ns = s->wake.time_ns;
	/*
	 * a drop of the GIL in the eval loop at another thread's request,
	 * not a release around I/O or a C call
	 */
	w->gil_forced = !named_has(l, nm->n, gil_release);
	ALLOC_GROW(w->ids, d + 1, w->alloc);
	w->ids[0] = profile_frame_intern(p, FRAME_UNKNOWN, NATIVE_NONE, label,
					 NULL, NULL, NULL);
	for (i = 0; i < d; i++)
		w->ids[1 + i] = l->out[d - 1 - i];
	w->n = d + 1;
}

/*
 * A Python frame of the standard library: its file in the interpreter's
 * own lib/pythonX.Y/ (not its site-packages or dist-packages), or one of
 * its frozen modules ("<frozen importlib._bootstrap>").
 */
static int stdlib_frame(const struct frame *f)
{
	const char *p = f->file, *q;

	if (f->kind != FRAME_PYTHON || !p)
		return 0;
	if (!strncmp(p, "<frozen ", 8))
		return 1;
	for (q = strstr(p, "/lib/python"); q; q = strstr(q + 1, "/lib/python")) {
		p = q + 11;
		if (!isdigit((unsigned char)*p))
			continue;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p++ != '.' || !isdigit((unsigned char)*p))
			continue;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == 't')		/* a free-threaded build's */
			p++;
		if (*p++ != '/')
			continue;
		return strncmp(p, "site-packages/", 14) &&
		       strncmp(p, "dist-packages/", 14);
	}
	return 0;
}

/*
 * Who made whom wait: the blocked stack's frame (l->out[0..d), root
 * first): its innermost Python frame of the program's own code, where
 * the standard library's (queue.get, Condition.wait, a Connection's
 * recv) is innermost; its innermost Python frame when the stack has no
 * other; else its innermost named native frame, else its innermost
 * frame, else "[unknown]".
 */
static uint32_t waiter_frame(const struct loader *l, size_t d)
{
	const struct frame *fr = l->p->frames;
	size_t i;

	for (i = d; i-- > 0;)
		if (fr[l->out[i]].kind == FRAME_PYTHON &&
		    !stdlib_frame(&fr[l->out[i]]))
			return l->out[i];
	for (i = d; i-- > 0;)
		if (fr[l->out[i]].kind == FRAME_PYTHON)
			return l->out[i];
	for (i = d; i-- > 0;)
		if (fr[l->out[i]].kind == FRAME_NATIVE && fr[l->out[i]].func)
			return l->out[i];
	return d ? l->out[d - 1] : l->unknown_frame;
}

/*
 * A hold of the GIL [start, end) that ended when holder (a frame)
 * handed it to a waiter, into its spans: disjoint and in time order,
 * an interval merged with those it overlaps.  The samples come in time
 * order, so the scan from the end is short.
 */
static void gil_hold_add(struct loader *l, uint32_t holder, uint64_t start,
			 uint64_t end)
{
	struct profile *p = l->p;
	struct profile_gil_hold *h;
	struct smap_ent *e;
	size_t i, j;

	e = smap_get(&l->gil_holds, (const char *)&holder, sizeof(holder),
		     NULL);
	if (!e->count) {
		ALLOC_GROW(p->gil_holds, p->nr_gil_holds + 1,
			   p->alloc_gil_holds);
		memset(&p->gil_holds[p->nr_gil_holds], 0, sizeof(*h));
		p->gil_holds[p->nr_gil_holds].holder = holder;
		e->count = ++p->nr_gil_holds;
	}
	h = &p->gil_holds[e->count - 1];
	/* [i, j): the spans it overlaps or touches */
	for (i = h->nr; i > 0 && h->spans[i - 1][1] >= start; i--)
		;
	for (j = i; j < h->nr && h->spans[j][0] <= end; j++)
		;
	if (i == j) {
		ALLOC_GROW(h->spans, h->nr + 1, h->alloc);
		memmove(h->spans + i + 1, h->spans + i,
			(h->nr - i) * sizeof(*h->spans));
		h->spans[i][0] = start;
		h->spans[i][1] = end;
		h->nr++;
		return;
	}
	if (h->spans[i][0] < start)
		start = h->spans[i][0];
	if (h->spans[j - 1][1] > end)
		end = h->spans[j - 1][1];
	h->spans[i][0] = start;
	h->spans[i][1] = end;
	memmove(h->spans + i + 1, h->spans + j,
		(h->nr - j) * sizeof(*h->spans));
	h->nr -= j - i - 1;
}

/* One wait (or the parts of one) into p->wakes; see struct profile_wake. */
struct wake_key {
	uint32_t waiter, waker, thread, reason, timed;
};

/*
 * A thread's last times of taking the GIL and of dropping it, as far as
 * its intervals tell, oldest first: a wakeup is seen after the waker's
 * own intervals that ended before the woken thread ran, so the time
 * that counts for it is the last one before the wakeup, a few back at
 * most.
 */
#define GIL_SINCE_KEEP 8

struct gil_since {
	uint64_t t[GIL_SINCE_KEEP];
	/*
	 * 1: took it; 2: dropped it on another thread's request, running
	 * Python, so taking it back at once (with no wait when the GIL is
	 * free again first); 0: released it (for I/O, a C call)
	 */
	unsigned char took[GIL_SINCE_KEEP];
	unsigned n;
};

/* Add time t (took: as struct gil_since's) to tid's times. */
static void gil_since_add(struct loader *l, pid_t tid, uint64_t t, int took)
{
	struct umap_ent *e = umap_get(&l->gil_since, (uint32_t)tid, NULL);
	struct gil_since *g;
	unsigned i;

	if (!e->val)
		e->val = xcalloc(1, sizeof(struct gil_since));
	g = e->val;
	if (g->n == GIL_SINCE_KEEP) {
		if (t < g->t[0])
			return;
		memmove(g->t, g->t + 1, (GIL_SINCE_KEEP - 1) * sizeof(*g->t));
		memmove(g->took, g->took + 1, GIL_SINCE_KEEP - 1);
		g->n--;
	}
	for (i = g->n; i > 0 && g->t[i - 1] > t; i--) {
		g->t[i] = g->t[i - 1];
		g->took[i] = g->took[i - 1];
	}
	g->t[i] = t;
	g->took[i] = (unsigned char)took;
	g->n++;
}

/*
 * tid's last time of taking or dropping the GIL at or before t (0: not
 * known), and in *took which.
 */
static uint64_t gil_since_at(struct loader *l, pid_t tid, uint64_t t,
			     int *took)
{
	struct umap_ent *e = umap_find(&l->gil_since, (uint32_t)tid);
	const struct gil_since *g = e ? e->val : NULL;
	unsigned i;

	*took = 0;
	for (i = g ? g->n : 0; i > 0; i--)
		if (g->t[i - 1] <= t) {
			*took = g->took[i - 1];
			return g->t[i - 1];
		}
	return 0;
}

/*
 * For every interval of the clock, in or out of the filter (a holder
 * is often a thread --tid leaves out): a thread that waited, other than
 * preempted, had dropped the GIL or never held it, and runs Python
 * again only once it holds it: from the interval's end, as near as the
 * intervals tell (a wait for the GIL ends there; another wait ends
 * with, at most, a short wait for the GIL that no interval shows).  A
 * thread preempted while it held the GIL holds it still.
 */
void agg_gil_note(struct loader *l, const struct sample *s)
{
	if (!(l->f->wakers || l->f->wake_table) || !s->offcpu || s->tid <= 0 ||
	    (s->have_state && !s->prev_state))
		return;
	gil_since_add(l, s->tid, s->time_ns, 1);
}

/*
 * The thread that ended a wait, as a holder of the GIL: its tid (0: not
 * a watched thread), the wakeup's own time (0: not known), and whether
 * it dropped the GIL on request (in the eval loop) rather than released
 * it (PyEval_SaveThread(), for I/O or a C call).
 */
struct gil_drop {
	pid_t tid;
	uint64_t wake;
	int forced;
};

/*
 * A gil wait that a Python frame of the holder (drop; NULL: not known)
 * ended: the holder held the GIL from when it last took it (or last
 * handed it on) to the wakeup, when it dropped it; when that is not
 * known, from this wait's start, the time it surely held it while this
 * thread waited.
 */
static void wake_add(struct loader *l, const struct wake_key *k, uint64_t ns,
		     uint64_t count, uint64_t start, uint64_t end,
		     const struct gil_drop *drop)
{
	struct profile *p = l->p;
	struct profile_wake *w;
	struct smap_ent *e;

	e = smap_get(&l->wake_rows, (const char *)k, sizeof(*k), NULL);
	if (!e->count) {
		ALLOC_GROW(p->wakes, p->nr_wakes + 1, p->alloc_wakes);
		w = &p->wakes[p->nr_wakes];
		memset(w, 0, sizeof(*w));
		w->waiter = k->waiter;
		w->waker = k->waker;
		w->thread = k->thread;
		w->reason = (int32_t)k->reason;
		w->timed = k->timed;
		e->count = ++p->nr_wakes;
	}
	w = &p->wakes[e->count - 1];
	w->ns += ns;
	w->count += count;
	if (k->reason == WAIT_GIL && p->frames[k->waker].kind == FRAME_PYTHON &&
	    end) {
		pid_t holder = drop ? drop->tid : 0;
		uint64_t at = drop && drop->wake && drop->wake <= end ?
			      drop->wake : end, from = 0;
		int took;

		/*
		 * from its last taking, or its last dropping on request
		 * (it took the GIL back with no wait to show it); after a
		 * release for I/O or a C call, it took it back at a time
		 * no interval shows: no earlier than this wait's start
		 */
		if (holder > 0)
			from = gil_since_at(l, holder, at, &took);
		if (from && !took && start > from)
			from = start;
		if (!from)
			from = start < at ? start : at;
		if (holder > 0)
			gil_since_add(l, holder, at, drop->forced ? 2 : 0);
		gil_hold_add(l, k->waker, from, at);
	}
}

/*
 * A thread's gil wait that a timer ended (its timed wait ran out), and
 * the parts of it so far: the thread's next interval, when it waits
 * for the GIL again within GIL_TIMED_GAP, is the same wait.
 */
struct gil_timed {
	struct wake_key key;	/* its waker: the timer's frame */
	uint64_t ns, count, start, end;
	int pending;
};

/* between a timed-out gil wait's end and its next part, at most */
#define GIL_TIMED_GAP 1000000ull

static void gil_timed_flush(struct loader *l, struct gil_timed *g)
{
	if (g->pending)
		wake_add(l, &g->key, g->ns, g->count, g->start, g->end, NULL);
	g->pending = 0;
}

/*
 * Who made whom wait: the interval s, of reason, ended by waker (its
 * frame, as struct profile_wake says; timer: a timer's, the interval
 * a timed wait that ran out) while the stack in l->out[0..d) waited,
 * into p->wakes (and a gil wait into its holder's spans).  A gil wait
 * a timer ended waits for the thread's next interval: when that
 * goes on waiting for the GIL, the parts are one wait, credited to
 * the frame that ends the last.  drop: the waker as a holder of the
 * GIL (NULL: not a watched thread).
 */
static void wake_row(struct loader *l, const struct sample *s, size_t d,
		     int reason, uint32_t waker, int timer,
		     const struct gil_drop *drop)
{
	struct wake_key k;
	struct umap_ent *e;
	struct gil_timed *g;
	uint64_t end = s->time_ns;
	uint64_t start = end > s->weight ? end - s->weight : 0;

	memset(&k, 0, sizeof(k));
	k.waiter = waiter_frame(l, d);
	k.waker = waker;
	k.thread = l->cur_thread;
	k.reason = (uint32_t)reason;
	e = umap_get(&l->gil_timed, l->cur_thread, NULL);
	if (!e->val)
		e->val = xcalloc(1, sizeof(struct gil_timed));
	g = e->val;
	if (g->pending) {
		int goes_on = reason == WAIT_GIL && end &&
			      g->key.waiter == k.waiter &&
			      start <= g->end + GIL_TIMED_GAP;

		if (goes_on && timer) {
			g->ns += s->weight;
			g->count++;
			g->end = end;
			return;
		}
		if (goes_on && l->p->frames[waker].kind == FRAME_PYTHON) {
			k.timed = 1;
			wake_add(l, &k, g->ns + s->weight, g->count + 1,
				 g->start, end, drop);
			g->pending = 0;
			return;
		}
		gil_timed_flush(l, g);
	}
	if (reason == WAIT_GIL && timer && end) {
		g->key = k;
		g->ns = s->weight;
		g->count = 1;
		g->start = start;
		g->end = end;
		g->pending = 1;
		return;
	}
	wake_add(l, &k, s->weight, 1, start, end, drop);
}

void agg_finish(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->gil_timed.cap; i++)
		if (l->gil_timed.ents[i].used && l->gil_timed.ents[i].val)
			gil_timed_flush(l, l->gil_timed.ents[i].val);
}

/*
 * Whether the interval s (its named frames l->ids[0..n)) is a gil wait
 * to take the GIL back after a blocking call: the second half of that
 * call's wait, not a wait of its own.
 */
static int gil_retake_wait(struct loader *l, const struct sample *s,
			   size_t n)
{
	struct wait_facts wf;
	int inferred;

	if (s->stack_inferred)
		return 0;
	wait_facts_of(s, &wf);
	return waitclass(l->p, l->ids, n, &wf, &inferred) == WAIT_GIL &&
	       named_has(l, n, gil_retake);
}

/*
 * The wait of tails ct whose end is the latest at or before at, and
 * not after before (0: any); NULL: none.
 */
static struct chain_last *chain_at(struct chain_tails *ct, uint64_t at,
				   const struct chain_last *before)
{
	struct chain_last *wc = NULL;
	unsigned k;

	for (k = 0; ct && k < CHAIN_KEEP; k++)
		if (ct->t[k].end && ct->t[k].end <= at &&
		    &ct->t[k] != before &&
		    (!before || ct->t[k].end <= before->start) &&
		    (!wc || ct->t[k].end > wc->end))
			wc = &ct->t[k];
	return wc;
}

/*
 * --chain, for every interval of the clock, in or out of the filter (a
 * waker's own waits are often another thread's, which --tid leaves
 * out; s's named frames are l->ids[0..n)): the thread's last wait is
 * s, and what its stack has after its reason is its waker's frames (the
 * waker sample's, kept in l->wakers), then, when the waker had itself
 * waited until at most PROFILE_CHAIN_GAP_NS before this wakeup (the
 * wakeup's own time, when the session has it: the woken thread may
 * have waited for a CPU after it), "[which had just waited]" and that
 * wait's own tail, up to f->wake_chain wakers in all.  A waker whose
 * last wait was to take the GIL back after a blocking call (a lock's,
 * a queue's) had waited for that call: the chain follows the call's
 * wait, whose end the GIL's wait only put off.  A wait left runnable
 * (preempted) is no wait; one without a waker ends the chain.
 */
void agg_chain_note(struct loader *l, const struct sample *s, size_t n)
{
	struct umap_ent *e = umap_find(&l->wakers, (uint32_t)s->tid);
	struct waker_stash *w = e ? e->val : NULL;
	struct chain_tails *ct, *wct;
	struct chain_last *c, *wc, *call;
	uint64_t at;
	unsigned k;

	if (l->f->wake_chain < 2 || !s->offcpu ||
	    (s->have_state && !s->prev_state))
		return;
	e = umap_get(&l->chains, (uint32_t)s->tid, NULL);
	if (!e->val)
		e->val = xcalloc(1, sizeof(struct chain_tails));
	ct = e->val;
	ct->last = (ct->last + 1) % CHAIN_KEEP;
	c = &ct->t[ct->last];
	c->end = s->time_ns;
	c->start = s->time_ns > s->weight ? s->time_ns - s->weight : 0;
	c->retake = gil_retake_wait(l, s, n);
	c->n = 0;
	c->levels = 0;
	if (!w || !w->n || w->time != s->time_ns)
		return;
	at = w->wake_ns && w->wake_ns <= s->time_ns ? w->wake_ns : s->time_ns;
	e = w->waker_tid && w->waker_tid != s->tid ?
	    umap_find(&l->chains, (uint32_t)w->waker_tid) : NULL;
	wct = e ? e->val : NULL;
	/* the waker's last wait that ended by the wakeup */
	wc = chain_at(wct, at, NULL);
	if (wc && at - wc->end > PROFILE_CHAIN_GAP_NS)
		wc = NULL;
	/*
	 * a retaking of the GIL (in one wait or more: the condition's,
	 * then its mutex's): the blocking call's wait right before it
	 */
	for (call = wc, k = 0; call && call->retake && k < CHAIN_KEEP; k++) {
		struct chain_last *before = chain_at(wct, at, call);

		if (!before || call->start - before->end > PROFILE_CHAIN_GAP_NS)
			break;
		call = before;
	}
	if (call && !call->retake && call->n)
		wc = call;
	if (wc && (!wc->n || wc->levels + 1 > (unsigned)l->f->wake_chain))
		wc = NULL;
	ALLOC_GROW(c->ids, w->n + (wc ? 1 + wc->n : 0), c->alloc);
	memcpy(c->ids, w->ids, w->n * sizeof(*w->ids));
	c->n = w->n;
	c->levels = 1;
	if (wc) {
		if (l->chain_frame == HTAB_NONE)
			l->chain_frame = profile_frame_intern(
				l->p, FRAME_UNKNOWN, NATIVE_NONE,
				"[which had just waited]", NULL, NULL, NULL);
		c->ids[c->n++] = l->chain_frame;
		memcpy(c->ids + c->n, wc->ids, wc->n * sizeof(*wc->ids));
		c->n += wc->n;
		c->levels += wc->levels;
	}
}

/*
 * A gil wait of this thread (s: its stack as the view shows it in
 * l->out[0..d), its named frames in l->ids[0..n)): the thread
 * had dropped the GIL when the wait began, as a thread that runs Python
 * drops it when another asks for it, and waits in the eval loop to take
 * it back (no PyEval_RestoreThread() on its stack: that is a thread
 * taking the GIL back after it released it for I/O or a C call, when
 * it did not hold it).  When no wakeup shows that drop (the thread that
 * asked was running when it came, and took the GIL with no wait), the
 * thread held it from its last taking to here, or from its last drop on
 * request (after which it took it back with no wait): a hold of its
 * frame that waits.  A hold that a wakeup ended is counted
 * there (wake_add()), and the two overlap when both are seen: a frame's
 * held time is the union of its spans.
 */
static void gil_dropped(struct loader *l, const struct sample *s, size_t n,
			size_t d)
{
	uint64_t start = s->time_ns > s->weight ? s->time_ns - s->weight : 0;
	uint64_t from;
	uint32_t fr;
	int took;

	if (s->tid <= 0 || !start || named_has(l, n, gil_retake))
		return;
	from = gil_since_at(l, s->tid, start, &took);
	fr = waiter_frame(l, d);
	if (from && took && from < start &&
	    l->p->frames[fr].kind == FRAME_PYTHON)
		gil_hold_add(l, fr, from, start);
}

/*
 * The wakers view: the interval s (its stack in l->out[0..d)) followed
 * by its waker's frames, when the waker sample just before it is its
 * own (same thread, same time), else by "[waker unknown]"; each
 * counted with the interval's time (with --chain, the waker's own
 * waits after its frames: agg_chain_note()).  Returns the stack's new
 * length.
 */
static size_t add_waker(struct loader *l, const struct sample *s, size_t d,
			int reason)
{
	struct profile_quality *q = &l->p->quality;
	struct umap_ent *e = umap_find(&l->wakers, (uint32_t)s->tid);
	struct waker_stash *w = e ? e->val : NULL;
	struct chain_tails *ct;
	struct chain_last *c;
	struct gil_drop drop;
	uint32_t waker;
	size_t i;

	ALLOC_GROW(l->wake_out, d + 1 + (w ? w->n : 0), l->wake_out_alloc);
	memcpy(l->wake_out, l->out, d * sizeof(*l->out));
	/* left runnable (preempted): waiting for a CPU, not woken */
	if (s->have_state && !s->prev_state)
		return d;
	if (!w || !w->n || w->time != s->time_ns) {
		q->woken_unknown++;
		q->woken_unknown_ns += s->weight;
		if (l->waker_unknown_frame == HTAB_NONE)
			l->waker_unknown_frame = profile_frame_intern(
				l->p, FRAME_UNKNOWN, NATIVE_NONE,
				"[waker unknown]", NULL, NULL, NULL);
		wake_row(l, s, d - 1, reason, l->waker_unknown_frame, 0, NULL);
		l->wake_out[d++] = l->waker_unknown_frame;
		return d;
	}
	if (w->context != WALKER_WAKE_TASK) {
		q->woken_irq++;
		q->woken_irq_ns += s->weight;
	} else if (w->flags & WALKER_WAKE_F_UNWATCHED) {
		q->woken_unwatched++;
		q->woken_unwatched_ns += s->weight;
	} else {
		q->woken++;
		q->woken_ns += s->weight;
		if (w->flags & WALKER_WAKE_F_SHARED) {
			q->woken_shared++;
			q->woken_shared_ns += s->weight;
		}
	}
	/*
	 * the waker's innermost Python frame of the program's own code (the
	 * producer, not the standard library's Queue.put it called), else
	 * its innermost Python frame, else its "[woken by ...]"
	 */
	waker = w->ids[0];
	for (i = 1; i < w->n; i++)
		if (l->p->frames[w->ids[i]].kind == FRAME_PYTHON) {
			if (waker == w->ids[0])
				waker = w->ids[i];
			if (!stdlib_frame(&l->p->frames[w->ids[i]])) {
				waker = w->ids[i];
				break;
			}
		}
	drop.tid = w->context == WALKER_WAKE_TASK ? w->waker_tid : 0;
	drop.wake = w->wake_ns;
	drop.forced = w->gil_forced;
	wake_row(l, s, d - 1, reason, waker,
		 w->context != WALKER_WAKE_TASK && w->timer, &drop);
	/* --chain: the tail agg_chain_note() made of it, chain and all */
	e = l->f->wake_chain > 1 ? umap_find(&l->chains, (uint32_t)s->tid) :
	    NULL;
	ct = e ? e->val : NULL;
	c = ct ? &ct->t[ct->last] : NULL;
	if (c && c->n && c->end == s->time_ns) {
		ALLOC_GROW(l->wake_out, d + c->n, l->wake_out_alloc);
		memcpy(l->wake_out + d, c->ids, c->n * sizeof(*c->ids));
		d += c->n;
	} else {
		for (i = 0; i < w->n; i++)
			l->wake_out[d++] = w->ids[i];
	}
	w->n = 0;	/* one interval's */
	return d;
}

/*
 * Add the sample's stack, as the view shows it, to the profile with
 * the sample's weight (one sample, or the nanoseconds of the wall and
 * off-cpu clocks) and a count of one; an off-CPU interval's stack ends
 * in its reason's frame (and in the wakers view, its waker's).
 */
void agg_add(struct loader *l, const struct sample *s,
	     const struct named *nm, enum stack_cut cut, uint32_t task)
{
	size_t n = nm->n, d;
	int reason = -1;
	uint32_t id, *out = l->out;

	d = agg_view(l, nm, cut);
	if (s->offcpu) {
		uint32_t leaf = offcpu_leaf(l, s, n, &reason);

		/* a stack that says nothing but the reason */
		if (d == 1 && l->out[0] == l->unknown_frame)
			d = 0;
		l->out[d++] = leaf;
		/* a gil wait (not a preemption): the end of a hold */
		if ((l->f->wakers || l->f->wake_table) && reason == WAIT_GIL &&
		    !(s->have_state && !s->prev_state))
			gil_dropped(l, s, n, d - 1);
		if (l->f->wakers) {
			d = add_waker(l, s, d, reason);
			out = l->wake_out;
		} else if (l->f->wake_table) {
			/* its row only: the stack stays the interval's */
			add_waker(l, s, d, reason);
		}
	}
	if (!d)
		l->out[d++] = l->unknown_frame;
	id = profile_stack_add_n(l->p, out, (uint32_t)d, task, s->weight,
				 1, s->period);
	if (l->f->spans && l->p->clock != PROFILE_CLOCK_CPU && s->time_ns)
		add_span(l, s, id, reason);
}
