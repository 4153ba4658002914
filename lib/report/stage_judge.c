/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The judging stage (pipeline_priv.h): a named sample in, whether its
 * stack is complete out (enum stack_cut, counted in the profile's
 * quality), or why it is cut: the stack dump was full (a bigger one
 * would help), the unwinder stopped inside it, the frame cap, or no
 * root.  Its facts: the stack dumps (jit mode), given by the source
 * with each sample (native reader) or read apart (the perf-script
 * source's walk of perf.data, matched by time and thread), and each
 * thread's stack top, learnt from dumps that stopped short of a full
 * copy.  After the last sample, judge_dumps() works out the dump size
 * that would complete 99% of the samples whose dump was full.
 */
#include "compat.h"
#include "alloc.h"
#include "perfdata.h"
#include "report/pipeline_priv.h"

/* The pseudo frames cut stacks are put under. */
const char *const judge_cut_names[CUT_NR] = {
	NULL,
	"[incomplete stack: dump full]",
	"[incomplete stack: unwinding stopped]",
	"[incomplete stack: frame cap]",
	"[incomplete stack: no root]",
};

static int dump_cmp(const void *a, const void *b)
{
	const struct dump *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int fact_top_cmp(const void *a, const void *b)
{
	const struct report_cache_top *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->top > y->top) - (x->top < y->top);
}

/*
 * Sort stack tops by thread, each distinct top once (a thread may have
 * had several stacks: perf's child before it exec'ed the program had
 * another); returns how many are left.
 */
size_t judge_tops_sort_unique(struct report_cache_top *t, size_t n)
{
	size_t i, j;

	if (!n)
		return 0;
	qsort(t, n, sizeof(*t), fact_top_cmp);
	for (i = j = 0; i < n; i++)
		if (!j || t[j - 1].tid != t[i].tid || t[j - 1].top != t[i].top)
			t[j++] = t[i];
	return j;
}

/* Sort the loader's stack tops by thread, each distinct top once. */
static void tops_compact(struct loader *l)
{
	if (l->nr_sorted != l->nr_tops)
		l->nr_tops = l->nr_sorted = judge_tops_sort_unique(l->tops,
							     l->nr_tops);
}

/*
 * A stack top the native reader saw (a copy that stopped short).
 * Appended; compacted when the unsorted tail outgrows the rest, so the
 * array stays within about twice the distinct tops.
 */
static void add_top(struct loader *l, pid_t tid, uint64_t top)
{
	if (l->nr_tops && l->tops[l->nr_tops - 1].tid == tid &&
	    l->tops[l->nr_tops - 1].top == top)
		return;
	ALLOC_GROW(l->tops, l->nr_tops + 1, l->tops_alloc);
	l->tops[l->nr_tops].tid = tid;
	l->tops[l->nr_tops++].top = top;
	if (l->nr_tops - l->nr_sorted > l->nr_sorted + 64)
		tops_compact(l);
}

/*
 * Take the facts a source found (the perf-script source's walk of
 * perf.data, the session's cache of it, the native reader's header)
 * into the loader (data): before the first sample is judged.
 */
void judge_use_facts(void *data, const struct report_cache_facts *fa)
{
	struct loader *l = data;
	struct profile_quality *q = &l->p->quality;
	size_t i;

	/* as perf.data has them: a 16-bit cap, a 32-bit dump size */
	if (fa->max_stack && fa->max_stack <= UINT16_MAX && !q->max_stack)
		q->max_stack = (unsigned)fa->max_stack;
	if (fa->dump_size && fa->dump_size <= UINT32_MAX) {
		l->jit = 1;
		q->dump_size = fa->dump_size;
	}
	free(l->dumps);
	free(l->tops);
	l->dumps = xcalloc(fa->nr_dumps ? fa->nr_dumps : 1,
			   sizeof(*l->dumps));
	for (i = 0; i < fa->nr_dumps; i++) {
		l->dumps[i].time = fa->dumps[i].time;
		l->dumps[i].sp = fa->dumps[i].sp;
		l->dumps[i].tid = fa->dumps[i].tid;
		l->dumps[i].full = fa->dumps[i].full;
	}
	l->nr_dumps = fa->nr_dumps;
	l->tops = xcalloc(fa->nr_tops ? fa->nr_tops : 1, sizeof(*l->tops));
	if (fa->nr_tops)
		memcpy(l->tops, fa->tops, fa->nr_tops * sizeof(*l->tops));
	l->nr_tops = l->nr_sorted = fa->nr_tops;
	l->tops_alloc = fa->nr_tops ? fa->nr_tops : 1;
	l->recorded = fa->recorded;
	l->lost = fa->lost;
}

static const struct dump *find_dump(const struct loader *l, uint64_t time,
				    pid_t tid)
{
	struct dump key;

	if (!l->nr_dumps)
		return NULL;
	key.time = time;
	key.tid = tid;
	return bsearch(&key, l->dumps, l->nr_dumps, sizeof(*l->dumps),
		       dump_cmp);
}

/*
 * The end of the stack sp is on: the highest top seen for that thread
 * within a default stack limit above sp (a thread's stacks, before and
 * after an exec, lie far apart); 0 when unknown.  Not the lowest: a
 * copy can also stop short inside the stack (the kernel copies without
 * faulting pages in, and a loaded machine can have a page of the stack
 * out of reach), and such a false top would make a bigger dump look
 * like it needs only a few bytes more.
 */
static uint64_t stack_top(const struct loader *l, pid_t tid, uint64_t sp)
{
	size_t lo = 0, hi = l->nr_sorted;
	uint64_t best = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->tops[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->nr_sorted && l->tops[lo].tid == tid; lo++)
		if (l->tops[lo].top > sp &&
		    l->tops[lo].top - sp <= (8u << 20) &&
		    l->tops[lo].top > best)
			best = l->tops[lo].top;
	return best;
}

/*
 * Is the sample's stack complete?  outer_user: index of its outermost
 * user frame (SIZE_MAX: none, not judged); root: that frame is where a
 * process or thread starts.
 */
static enum stack_cut judge(struct loader *l, const struct sample *s,
			    size_t outer_user, int root)
{
	struct profile_quality *q = &l->p->quality;
	enum stack_cut cut;

	if (outer_user == SIZE_MAX)
		return CUT_NONE;
	q->judged++;
	if (s->py_cut) {
		/* the walker stopped: at its frame cap, or a failed read */
		cut = s->py_cut == 1 ? CUT_DEPTH : CUT_UNWIND;
		if (s->py_cut == 1)
			q->walker_cut_cap++;
		else
			q->walker_cut_read++;
		q->cut[cut]++;
		return cut;
	}
	if (root) {
		q->cut[CUT_NONE]++;
		return CUT_NONE;
	}
	if (l->jit || s->dump_known) {
		struct dump own;
		const struct dump *dp = NULL;

		if (s->dump_known) {
			/* the native reader says it with the sample */
			own.sp = s->dump_sp;
			own.full = s->dump_full;
			dp = &own;
		} else if (s->time_ns) {
			dp = find_dump(l, s->time_ns, s->tid);
		}
		if (!dp) {
			cut = CUT_NOROOT;
		} else if (dp->full) {
			cut = CUT_DUMP;
			/* what it needed, once every top is known */
			if (dp->sp && !l->live) {
				ALLOC_GROW(l->cut_dumps, l->nr_cut_dumps + 1,
					   l->cut_dumps_alloc);
				l->cut_dumps[l->nr_cut_dumps].tid = s->tid;
				l->cut_dumps[l->nr_cut_dumps++].sp = dp->sp;
			}
		} else {
			cut = CUT_UNWIND;
			/* a dump of nothing: no frame was there to unwind */
			if (s->dump_known && !s->dump_len)
				q->unwind_nostack++;
		}
	} else {
		cut = q->max_stack && s->nr_frames >= q->max_stack ?
			CUT_DEPTH : CUT_NOROOT;
	}
	q->cut[cut]++;
	return cut;
}

/* What a bigger dump would do for the CUT_DUMP samples. */
void judge_dumps(struct loader *l)
{
	struct profile_quality *q = &l->p->quality;
	uint64_t *needs;
	size_t i, k, n = 0;

	tops_compact(l);
	needs = xcalloc(l->nr_cut_dumps ? l->nr_cut_dumps : 1,
			sizeof(*needs));
	for (i = 0; i < l->nr_cut_dumps; i++) {
		uint64_t sp = l->cut_dumps[i].sp;
		uint64_t top = stack_top(l, l->cut_dumps[i].tid, sp);

		if (top > sp)
			needs[n++] = top - sp;
	}
	q->dump_known = n;
	if (n) {
		qsort(needs, n, sizeof(*needs), u64_cmp);
		for (i = 0; i < n; i++)
			if (needs[i] <= PERF_STACK_DUMP_MAX)
				q->dump_fixable++;
		k = (n * 99 + 99) / 100;	/* ceil(99 %) */
		q->dump_need99 = (needs[k - 1] + 7) & ~(uint64_t)7;
	}
	free(needs);
}

/*
 * Every sample's copy tells where its stack ends, filtered out or not
 * (and, unwound as it was recorded, the size copies had: no attr says).
 */
void judge_observe(struct loader *l, const struct sample *s)
{
	struct profile_quality *q = &l->p->quality;

	if (s->dump_known && !q->dump_size && s->dump_asked &&
	    s->dump_asked <= UINT32_MAX)
		q->dump_size = s->dump_asked;
	if (s->dump_known && !s->dump_full && s->dump_sp && !l->live)
		add_top(l, s->tid, s->dump_sp + s->dump_len);
}

/*
 * Judge a named sample (nm: what naming found).  A stack that began
 * before the trampoline started (the interpreter's start-up: its first
 * imports, site, the trampoline's own loading) has no context to
 * rebuild from and can be deeper than the dump: it is shown under its
 * own root (nm->startup), counted and said, not judged with the
 * program's own stacks.  So is the frame walker's sample of a Python
 * process taken before the walker had read its interpreter (no Python
 * frames yet, the native ones as deep as the stack copy).
 */
enum stack_cut judge_sample(struct loader *l, const struct sample *s,
			    struct named *nm)
{
	int tramp = nm->cr == CTX_NONE && l->jit && l->ctx &&
		    ctx_db_before_start(l->ctx, s->pid, s->time_ns);

	if (!nm->outer_root && nm->outer_user != SIZE_MAX &&
	    (tramp || s->py_startup)) {
		l->p->quality.startup_cut++;
		if (!tramp)
			l->p->quality.startup_walker++;
		nm->startup = 1;
		nm->outer_user = SIZE_MAX;
	}
	return judge(l, s, nm->outer_user, nm->outer_root);
}
