/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Off-CPU intervals from switch records and the stacks taken at
 * switch-out (see src_native_switches.h).
 */
#include "compat.h"
#include "alloc.h"
#include "byteorder.h"
#include "report/src_native_switches.h"
#include "tracedata.h"
#include <linux/types.h>
#include "walker/walker_abi.h"

#include <stddef.h>

/* perf's HEADER_TRACING_DATA feature: the tracepoints' formats */
#define FEAT_TRACING_DATA 1

/* One thread's switches so far. */
struct sw_thread {
	uint64_t out_time;	/* its last switch-out (0: running) */
	unsigned preempt : 1;	/* ...left runnable */
	unsigned seen_in : 1;	/* a switch-in was read */
	/* the stack of the last switch sample, and when it was taken */
	struct sample_frame *stack;
	size_t nr_stack, stack_alloc;
	uint64_t stack_time;
	unsigned have_stack : 1, have_state : 1;
	uint64_t prev_state;
	uint64_t oncpu_time;	/* of the last on-CPU sample */
	/*
	 * The first pass's count (switches_count()): on CPU since in_at (0:
	 * not in a stretch that began with a switch-in), the periods of
	 * the samples in that stretch so far; the stretches ended by a
	 * switch-out: ran_ns on CPU, sampled_ns of samples' periods.
	 */
	uint64_t in_at, stretch_ns, ran_ns, sampled_ns;
	/* the second pass's ratio (have_scale) */
	double scale;
	unsigned have_scale : 1;
	/* the last on-CPU sample's stack */
	struct sample_frame *last;
	size_t nr_last, last_alloc;
};

void switches_init(struct switches *sw, const struct perfdata *d)
{
	const unsigned char *p;
	size_t len;
	char err[PPR_ERR_LEN];
	size_t i;

	memset(sw, 0, sizeof(*sw));
	sw->d = d;
	/* attr.context_switch: bit 26 of the flag word */
	for (i = 0; i < d->nr_attrs; i++)
		if (d->attrs[i].flags & (1ULL << 26))
			sw->records = 1;
	for (i = 0; i < d->nr_attrs; i++)
		if (switches_event(sw, &d->attrs[i]) == SWEV_SCHED)
			break;
	/* a damaged or absent section leaves prev_state unknown */
	if (i < d->nr_attrs &&
	    perfdata_feature(d, FEAT_TRACING_DATA, &p, &len) == 1)
		sw->td = tracedata_new(p, len, err, sizeof(err));
}

void switches_release(struct switches *sw)
{
	size_t i;

	for (i = 0; i < sw->threads.cap; i++) {
		struct sw_thread *t = sw->threads.ents[i].val;

		if (!sw->threads.ents[i].used || !t)
			continue;
		free(t->stack);
		free(t->last);
		free(t);
	}
	umap_release(&sw->threads);
	if (sw->td)
		tracedata_free(sw->td);
	free(sw->out);
	memset(sw, 0, sizeof(*sw));
}

enum switch_event switches_event(const struct switches *sw,
				 const struct pd_attr *a)
{
	/* perf's numbers: PERF_TYPE_SOFTWARE 1, its context-switches 3 */
	if (a->name) {
		if (!strcmp(a->name, "offcpu-time"))
			return SWEV_OFFCPU;
		if (!strcmp(a->name, "waker"))
			return SWEV_WAKER;
		if (!strcmp(a->name, "sched:sched_switch"))
			return SWEV_SCHED;
	}
	if (a->type == 1 && a->config == 3)
		return SWEV_CTXSW;
	/* perf --off-cpu's event is a bpf-output (10) it renames */
	if (!a->name && a->type == 1 && a->config == 10)
		return SWEV_OFFCPU;
	if (a->type == 2 && sw->td) {
		const struct tracedata_event *ev =
			tracedata_event(sw->td, a->config);

		if (ev && !strcmp(tracedata_event_system(ev), "sched") &&
		    !strcmp(tracedata_event_name(ev), "sched_switch"))
			return SWEV_SCHED;
	}
	return SWEV_ONCPU;
}

static struct sw_thread *thread_of(struct switches *sw, pid_t tid)
{
	struct umap_ent *e = umap_get(&sw->threads, (uint64_t)(uint32_t)tid,
				      NULL);

	if (!e->val)
		e->val = xcalloc(1, sizeof(struct sw_thread));
	return e->val;
}

static void copy_frames(struct sample_frame **dst, size_t *nr,
			size_t *alloc, const struct sample_frame *f,
			size_t n)
{
	ALLOC_GROW(*dst, n ? n : 1, *alloc);
	if (n)
		memcpy(*dst, f, n * sizeof(*f));
	*nr = n;
}

void switches_stack(struct switches *sw, const struct pd_sample *s,
		    enum switch_event ev, const struct sample_frame *f,
		    size_t n)
{
	struct sw_thread *t;
	uint64_t state;

	if (!s->have_tid)
		return;
	t = thread_of(sw, s->tid);
	sw->switch_samples++;
	copy_frames(&t->stack, &t->nr_stack, &t->stack_alloc, f, n);
	t->stack_time = s->have_time ? s->time : 0;
	t->have_stack = 1;
	t->have_state = 0;
	if (ev == SWEV_SCHED && sw->td && s->raw) {
		const struct tracedata_event *tev =
			tracedata_event(sw->td, s->attr->config);
		uint64_t pid;

		/* the sample is the outgoing task's: check it is */
		if (!tracedata_get_num(sw->td, tev, "prev_state", s->raw,
				       s->raw_size, &state) &&
		    !tracedata_get_num(sw->td, tev, "prev_pid", s->raw,
				       s->raw_size, &pid) &&
		    (pid_t)pid == s->tid) {
			t->prev_state = state;
			t->have_state = 1;
		}
	}
}

void switches_oncpu(struct switches *sw, pid_t tid, uint64_t time,
		    const struct sample_frame *f, size_t n)
{
	struct sw_thread *t;

	/* a file without switch records makes no intervals */
	if (!sw->records)
		return;
	t = thread_of(sw, tid);
	t->oncpu_time = time;

	copy_frames(&t->last, &t->nr_last, &t->last_alloc, f, n);
}

void switches_count(struct switches *sw, pid_t tid, uint64_t time,
		    uint64_t period)
{
	struct sw_thread *t;

	if (!sw->records)
		return;
	t = thread_of(sw, tid);
	/*
	 * Counted inside a stretch that began with a switch-in; one while
	 * its records say off CPU means a record was lost: left out.
	 */
	if (t->in_at && time >= t->in_at)
		t->stretch_ns += period;
}

/* A switch record's part in the first pass's count. */
static void count_record(struct sw_thread *t, const struct pd_switch *r)
{
	if (!r->out) {
		/* in twice: the stretch before lost its switch-out */
		t->in_at = r->time;
		t->stretch_ns = 0;
		return;
	}
	if (t->in_at && r->time >= t->in_at) {
		t->ran_ns += r->time - t->in_at;
		t->sampled_ns += t->stretch_ns;
	}
	t->in_at = 0;
	t->stretch_ns = 0;
}

int switches_scale_from(struct switches *dst, const struct switches *counted)
{
	size_t i;
	int any = 0;

	for (i = 0; i < counted->threads.cap; i++) {
		const struct umap_ent *e = &counted->threads.ents[i];
		const struct sw_thread *c = e->val;
		struct sw_thread *t;

		/* no sample in a whole stretch: nothing to scale */
		if (!e->used || !c || !c->sampled_ns || !c->ran_ns)
			continue;
		t = thread_of(dst, (pid_t)(uint32_t)e->key);
		t->scale = (double)c->ran_ns / (double)c->sampled_ns;
		t->have_scale = 1;
		any = 1;
	}
	return any;
}

uint64_t switches_period(const struct switches *sw, pid_t tid,
			 uint64_t period)
{
	const struct umap_ent *e = umap_find(&sw->threads,
					     (uint64_t)(uint32_t)tid);
	const struct sw_thread *t = e ? e->val : NULL;

	if (!t || !t->have_scale)
		return period;
	return (uint64_t)((double)period * t->scale + 0.5);
}

int switches_record(struct switches *sw, const struct pd_switch *r,
		    struct sample *out)
{
	struct sw_thread *t;
	const struct sample_frame *f;
	size_t n;

	if (!r->have_tid || !r->have_time)
		return 0;
	sw->switch_records++;
	t = thread_of(sw, r->tid);
	count_record(t, r);
	if (r->out) {
		/* out twice: the switch-in between was lost */
		if (t->out_time)
			sw->broken++;
		t->out_time = r->time;
		t->preempt = r->preempt;
		return 0;
	}
	if (!t->out_time || r->time < t->out_time) {
		/* its first switch-in: it started; a later one: lost out */
		if (t->seen_in)
			sw->broken++;
		t->seen_in = 1;
		t->out_time = 0;
		return 0;
	}
	t->seen_in = 1;
	/*
	 * It ran in between (an on-CPU sample, or a switch sample of a
	 * later switch-out): the records of a switch-in and a switch-out
	 * were lost, and this is no one interval.
	 */
	if (t->oncpu_time > t->out_time ||
	    (t->have_stack && t->stack_time > r->time)) {
		sw->broken++;
		t->out_time = 0;
		t->have_stack = 0;
		return 0;
	}
	sample_init(out);
	out->pid = r->pid;
	out->tid = r->tid;
	out->time_ns = r->time;
	out->weight = r->time - t->out_time;
	out->unit = UNIT_NS;
	out->period = out->weight;
	out->event.s = "offcpu-time";
	out->event.len = strlen(out->event.s);
	out->offcpu = 1;
	out->preempt = t->preempt;
	/*
	 * The switch sample is taken just before the switch-out record
	 * (same switch); one older than the previous switch-in belongs to
	 * an earlier switch (a lost record).
	 */
	if (t->have_stack) {
		f = t->stack;
		n = t->nr_stack;
		out->have_state = t->have_state;
		out->prev_state = t->prev_state;
	} else {
		f = t->last;
		n = t->nr_last;
		out->stack_inferred = 1;
	}
	copy_frames(&sw->out, &n, &sw->out_alloc, f, n);
	out->frames = sw->out;
	out->nr_frames = n;
	t->have_stack = 0;
	t->have_state = 0;
	t->out_time = 0;
	return 1;
}

int switches_walker_state(const unsigned char *raw, size_t len,
			  uint64_t *state)
{
	if (!raw || len < sizeof(struct walker_raw) ||
	    get_le32(raw + offsetof(struct walker_raw, magic)) !=
	    WALKER_RAW_MAGIC)
		return 0;
	*state = get_le64(raw + offsetof(struct walker_raw, prev_state));
	return 1;
}
