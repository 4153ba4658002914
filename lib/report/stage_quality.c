/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The quality warnings (pipeline_priv.h): once every sample is in, the
 * counts the stages kept (struct profile_quality: stacks cut and why,
 * unnamed code, start-up stacks, the context cap, damaged tables and
 * names, samples perf lost) out as sentences, with the advice a
 * diagnosis supports (a dump size that would complete the stacks,
 * debug symbols).  Never a silent wrong answer: what is dropped, cut
 * or unnamed is said, and how much.
 *
 * A sentence is a warning when it bears on the answer about the user's
 * Python program: the processes that ran Python code (a shell that
 * started it, or a tool it ran, are not), 1 % of their samples or
 * more.  Below that, or outside the program, it is a note: said by
 * every format, never in a warning banner (profile.notes).
 */
#include "compat.h"
#include "alloc.h"
#include "numparse.h"
#include "perfdata.h"
#include "strbuf.h"
#include "report/pipeline_priv.h"
#include "report/stage_quality.h"

#include <limits.h>
#include <linux/types.h>
#include "walker/walker_abi.h"

static char *count_str(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/*
 * "41%", or "<1%" for a share under 1 % (a note's: 0.8 % is not shown
 * as the "1%" a warning starts at).
 */
static const char *pct_str(uint64_t part, uint64_t whole, char *buf,
			   size_t len)
{
	double v = whole ? 100.0 * (double)part / (double)whole : 0;

	if (part && v < 1.0)
		snprintf(buf, len, "<1%%");
	else
		snprintf(buf, len, "%.0f%%", v);
	return buf;
}

/* Below this share of what it is counted in, a sentence is a note. */
#define QUALITY_WARN_SHARE 0.01

static int matters(uint64_t part, uint64_t whole)
{
	return part && (double)part >= QUALITY_WARN_SHARE * (double)whole;
}

/* A warning when warn, else a note. */
PPR_PRINTF(3, 4)
static void say(struct profile *p, int warn, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (warn)
		profile_warn(p, "%s", sb.buf);
	else
		profile_note(p, "%s", sb.buf);
	strbuf_release(&sb);
}

/*
 * "samples", or "the Python program's samples" when other processes
 * are in the session too (the counts are the program's).
 */
static const char *whose(const struct profile_quality *q)
{
	return q->other_procs ? "the Python program's samples" : "samples";
}

/*
 * A copy of the user stack of 0 bytes (perf script: "ustack: size 0"),
 * seen on samples taken in a page fault (t2004 7 reproduces it with new
 * threads that touch new memory).
 */
#define NOSTACK_WHY "the kernel copied none of the user stack (the sample " \
	"came in a page fault)"
/* The frame walker's native unwinding stopped inside a whole copy. */
#define STOPPED_WHY "the unwinding stopped inside the copied stack (at a " \
	"frame without unwind information, or a read outside the copy)"

/*
 * Incomplete stacks: how many, and why, for each reason, of the Python
 * program's samples.
 */
static void quality_cuts(struct profile *p)
{
	const struct profile_quality *q = &p->quality;
	char a[32], b[32], c[32], pc[16];
	int r;

	for (r = CUT_DUMP; r < CUT_NR; r++) {
		const char *why = NULL;
		char *extra = NULL;

		if (!q->py_cut[r])
			continue;
		switch (r) {
		case CUT_DUMP:
			why = "the stack dump was full (the stack is deeper "
			      "than the bytes perf copied)";
			if (q->dump_size)
				extra = xasprintf("the %llu-byte stack dump "
						  "was full (the stack is "
						  "deeper)",
						  (unsigned long long)
						  q->dump_size);
			break;
		case CUT_UNWIND:
			why = "the unwinder stopped inside the stack dump (a "
			      "frame without unwind information; a bigger "
			      "dump would not help)";
			if (q->walker_cut_read == q->cut[r])
				why = "the frame walker could not read a Python "
				      "frame (the thread's frames changed while "
				      "they were read, or memory was paged "
				      "out); the walk stopped there";
			else if (q->unwind_nostack == q->cut[r])
				why = NOSTACK_WHY "; a bigger dump would not help";
			else if (q->unwind_nostack)
				extra = xasprintf("the unwinder stopped inside the "
						  "stack dump (a frame without "
						  "unwind information), or, for "
						  "%s of them, " NOSTACK_WHY
						  "; a bigger dump would not "
						  "help",
						  count_str(q->unwind_nostack,
							    c, sizeof(c)));
			break;
		case CUT_DEPTH:
			if (q->walker_cut_cap == q->cut[r])
				extra = xasprintf("the Python stack was deeper "
						  "than the frame walker's cap "
						  "of %u frames: the outermost "
						  "frames are missing",
						  WALKER_MAX_PY_FRAMES);
			else if (q->max_stack)
				extra = xasprintf("the call chain reached the "
						  "kernel's cap of %u frames "
						  "(kernel.perf_event_max_"
						  "stack)", q->max_stack);
			else
				why = "the call chain reached the kernel's "
				      "frame cap (kernel.perf_event_max_stack)";
			break;
		default:
			why = "the call chain ended before the program's "
			      "start (code without frame pointers, or an "
			      "unreadable stack)";
			break;
		}
		say(p, matters(q->py_cut[r], q->py_judged),
		    "%s of %s (%s of %s) have incomplete stacks: %s; they are "
		    "under %s",
		    pct_str(q->py_cut[r], q->py_judged, pc, sizeof(pc)),
		    whose(q), count_str(q->py_cut[r], a, sizeof(a)),
		    count_str(q->py_judged, b, sizeof(b)),
		    extra ? extra : why, judge_cut_names[r]);
		free(extra);
	}
}

/* The stack dump size that would complete the stacks, when it matters. */
static void quality_dump_advice(struct profile *p)
{
	const struct profile_quality *q = &p->quality;
	char a[32], c[32];

	/*
	 * Advice only where it matters, as record's hints: a bigger dump
	 * for a handful of samples would multiply the data for nothing.
	 */
	if (q->py_cut[CUT_DUMP] && q->dump_known &&
	    (double)q->py_cut[CUT_DUMP] >=
	    CUT_ADVICE_SHARE * (double)q->py_judged) {
		if (q->dump_need99 && q->dump_need99 <= PERF_STACK_DUMP_MAX)
			profile_warn(p, "a %llu-byte stack dump would complete "
				     "99%% of the %s samples whose dump was "
				     "full (record with --stack-size %llu)",
				     (unsigned long long)q->dump_need99,
				     count_str(q->dump_known, c, sizeof(c)),
				     (unsigned long long)q->dump_need99);
		else
			profile_warn(p, "the largest stack dump perf can take "
				     "(%u bytes) would complete only %s of the "
				     "%s samples whose dump was full",
				     PERF_STACK_DUMP_MAX,
				     count_str(q->dump_fixable, a, sizeof(a)),
				     count_str(q->dump_known, c, sizeof(c)));
	}
}

/*
 * What the in-kernel frame walker could not give
 * (report/src_native_walkmerge.h).
 */
static void quality_walker(struct profile *p)
{
	const struct profile_quality *q = &p->quality;
	char a[32], b[32], pc[16];

	if (!q->walker_samples)
		return;
	if (q->walker_unnamed)
		say(p, matters(q->walker_unnamed, q->walker_py_frames),
			     "%s of the frame walker's Python frames (%s of "
			     "%s) are unnamed: their code object could not be "
			     "read while the process ran (freed, or the "
			     "process ended first); they are under [unnamed "
			     "Python code]",
			     pct_str(q->walker_unnamed, q->walker_py_frames,
				     pc, sizeof(pc)),
			     count_str(q->walker_unnamed, a, sizeof(a)),
			     count_str(q->walker_py_frames, b, sizeof(b)));
	if (q->walker_native_short)
		say(p, matters(q->walker_native_short, q->walker_samples),
			     "%s of the frame walker's samples (%s of %s) "
			     "have more Python calls than the copied stack "
			     "could unwind: every Python frame is there, but "
			     "the C functions between the outer Python calls "
			     "(a C extension calling back into Python) are "
			     "not; a bigger --stack-size would show them",
			     pct_str(q->walker_native_short, q->walker_samples,
				     pc, sizeof(pc)),
			     count_str(q->walker_native_short, a, sizeof(a)),
			     count_str(q->walker_samples, b, sizeof(b)));
	if (q->walker_native_stopped) {
		uint64_t nostack = q->walker_native_nostack;
		char c[32], *why;

		if (nostack == q->walker_native_stopped)
			why = xstrdup(NOSTACK_WHY);
		else if (nostack)
			why = xasprintf(STOPPED_WHY ", or, for %s of them, "
					NOSTACK_WHY,
					count_str(nostack, c, sizeof(c)));
		else
			why = xstrdup(STOPPED_WHY);
		say(p, matters(q->walker_native_stopped, q->walker_samples),
			     "%s of the frame walker's samples (%s of %s) "
			     "lack the C functions between the outer Python "
			     "calls: %s; every Python frame is there, and a "
			     "bigger --stack-size would not help",
			     pct_str(q->walker_native_stopped,
				     q->walker_samples, pc, sizeof(pc)),
			     count_str(q->walker_native_stopped, a, sizeof(a)),
			     count_str(q->walker_samples, b, sizeof(b)), why);
		free(why);
	}
}

/* The process pid's counts, added when first seen. */
static struct qproc *qproc_get(struct loader *l, pid_t pid)
{
	size_t i;

	/* samples come in runs of one process */
	if (l->last_qproc < l->nr_qprocs &&
	    l->qprocs[l->last_qproc].pid == pid)
		return &l->qprocs[l->last_qproc];
	for (i = 0; i < l->nr_qprocs; i++)
		if (l->qprocs[i].pid == pid)
			break;
	if (i == l->nr_qprocs) {
		ALLOC_GROW(l->qprocs, l->nr_qprocs + 1, l->qprocs_alloc);
		memset(&l->qprocs[i], 0, sizeof(l->qprocs[i]));
		l->qprocs[i].pid = pid;
		memset(l->qprocs[i].example, 0xff,
		       sizeof(l->qprocs[i].example));
		l->nr_qprocs++;
	}
	l->last_qproc = i;
	return &l->qprocs[i];
}

void quality_sample(struct loader *l, const struct sample *s,
		    const struct named *nm, int judged, enum stack_cut cut,
		    int unnamed)
{
	struct qproc *qp = qproc_get(l, s->pid);
	size_t i, k;

	qp->count++;
	qp->any_py |= nm->any_py != 0;
	if (judged) {
		qp->judged++;
		qp->cut[cut]++;
	}
	if (!unnamed)
		return;
	qp->unnamed++;
	/* the unnamed frame the aggregation counted (fold_unnamed()) */
	for (i = 0; i < nm->n && l->cls[i] != C_PY; i++)
		if (l->unnamed[i] && l->cls[i] != C_PLUMB)
			break;
	if (i == nm->n || l->cls[i] == C_PY)
		return;
	for (k = 0; k < ARRAY_SIZE(qp->example); k++) {
		if (qp->example[k] == HTAB_NONE)
			qp->example[k] = l->ids[i];
		if (qp->example[k] == l->ids[i]) {
			qp->example_n[k]++;
			break;
		}
	}
}

/* The frame of unnamed code a process showed most, and how often. */
static uint32_t top_example(const struct qproc *qp, uint64_t *n)
{
	uint32_t best = HTAB_NONE;
	size_t k;

	*n = 0;
	for (k = 0; k < ARRAY_SIZE(qp->example); k++)
		if (qp->example[k] != HTAB_NONE && qp->example_n[k] > *n) {
			best = qp->example[k];
			*n = qp->example_n[k];
		}
	return best;
}

/*
 * The Python program's counts (profile_quality.py_*) from the
 * processes': the ones with a Python frame, or all when none has one
 * (then nothing tells the program apart, and all of it is judged).
 */
static void python_program(struct loader *l, uint32_t *py_example,
			   uint32_t *other_example)
{
	struct profile_quality *q = &l->p->quality;
	uint64_t py_best = 0, other_best = 0, n;
	int any = 0, c;
	size_t i;

	for (i = 0; i < l->nr_qprocs; i++)
		any |= l->qprocs[i].any_py;
	*py_example = *other_example = HTAB_NONE;
	for (i = 0; i < l->nr_qprocs; i++) {
		const struct qproc *qp = &l->qprocs[i];
		uint32_t ex = top_example(qp, &n);

		if (any && !qp->any_py) {
			q->other_procs++;
			if (n > other_best) {
				*other_example = ex;
				other_best = n;
			}
			continue;
		}
		q->py_procs++;
		q->py_count += qp->count;
		q->py_judged += qp->judged;
		for (c = 0; c < CUT_NR; c++)
			q->py_cut[c] += qp->cut[c];
		q->py_unnamed += qp->unnamed;
		if (n > py_best) {
			*py_example = ex;
			py_best = n;
		}
	}
}

/*
 * The processes outside the Python program: one note with what their
 * samples lack (it changes none of the program's numbers).
 */
static void quality_others(struct profile *p, uint32_t example)
{
	const struct profile_quality *q = &p->quality;
	uint64_t cut = q->judged - q->cut[CUT_NONE] -
		       (q->py_judged - q->py_cut[CUT_NONE]);
	uint64_t unnamed = q->unnamed - q->py_unnamed;
	uint64_t count = p->total_count - q->py_count;
	char a[32], b[32], c[32];

	if (!q->other_procs || (!cut && !unnamed))
		return;
	profile_note(p, "outside the Python program (%u process%s without "
		     "Python frames, %s samples): %s ha%s incomplete stacks "
		     "and %s ran in code without symbols%s%s%s; the program's "
		     "numbers do not depend on them", q->other_procs,
		     q->other_procs == 1 ? "" : "es",
		     count_str(count, a, sizeof(a)),
		     count_str(cut, b, sizeof(b)), cut == 1 ? "s" : "ve",
		     count_str(unnamed, c, sizeof(c)),
		     example != HTAB_NONE ? " (e.g. " : "",
		     example != HTAB_NONE ? p->frames[example].name : "",
		     example != HTAB_NONE ? ")" : "");
}

/* The warnings a reader needs to trust the numbers (see profile.h). */
void quality_warnings(struct loader *l)
{
	struct profile *p = l->p;
	const struct profile_quality *q = &p->quality;
	uint32_t py_example, other_example;
	char a[32], pc[16];
	long un, un_ns;

	python_program(l, &py_example, &other_example);
	quality_cuts(p);
	quality_dump_advice(p);
	/*
	 * These counts are samples, shared of the profile's count of
	 * samples (total_count), never of its weight: in the wall clock a
	 * weight is nanoseconds.
	 */
	if (q->py_unnamed)
		say(p, matters(q->py_unnamed, q->py_count),
		    "%s of %s (%s) ran in code without symbols, shown as the "
		    "object's name in brackets (e.g. %s), not credited to a "
		    "named caller; debug symbols would name it",
		    pct_str(q->py_unnamed, q->py_count, pc, sizeof(pc)),
		    whose(q), count_str(q->py_unnamed, a, sizeof(a)),
		    py_example != HTAB_NONE ? p->frames[py_example].name :
		    "[python3]");
	quality_others(p, other_example);
	if (q->startup_cut)
		say(p, matters(q->startup_cut, q->py_count),
		    "%s of %s (%s) ran in the interpreter's "
			     "start-up, before %s: their "
			     "native stacks may be cut at the stack dump; they "
			     "are under [python start-up]",
			     pct_str(q->startup_cut, q->py_count, pc,
				     sizeof(pc)), whose(q),
			     count_str(q->startup_cut, a, sizeof(a)),
			     q->startup_walker == q->startup_cut ?
			     "the frame walker could read its Python frames" :
			     q->startup_walker ? "the trampoline started or "
			     "the frame walker could read its Python frames" :
			     "the trampoline started");
	if (q->ctx_unknown)
		say(p, matters(q->ctx_unknown, q->py_judged),
			     "%s of samples (%s) reached the trampoline's "
			     "cap on call paths (PYPERF_TRAMPOLINE_MAX_"
			     "CONTEXTS): above that point their stacks are "
			     "what perf copied, and may be cut",
			     pct_str(q->ctx_unknown, q->judged, pc, sizeof(pc)),
			     count_str(q->ctx_unknown, a, sizeof(a)));
	if (q->ctx_damaged)
		profile_warn(p, "%u context table%s damaged: read up to the "
			     "damage; later Python stacks of %s process%s "
			     "may be cut", q->ctx_damaged,
			     q->ctx_damaged == 1 ? " was" : "s were",
			     q->ctx_damaged == 1 ? "its" : "their",
			     q->ctx_damaged == 1 ? "" : "es");
	quality_walker(p);
	if (q->offcpu_nostack)
		say(p, matters(q->offcpu_nostack_ns, q->offcpu_ns),
			     "%s of off-CPU time (%.3f s in %s interval%s) "
			     "has no stack taken at the switch (switch records "
			     "only, or perf lost the switch's sample): it is "
			     "put on each thread's "
			     "last sampled stack, under [off-cpu ..., stack "
			     "inferred], not where it waited",
			     pct_str(q->offcpu_nostack_ns, q->offcpu_ns, pc,
				     sizeof(pc)),
			     (double)q->offcpu_nostack_ns / 1e9,
			     count_str(q->offcpu_nostack, a, sizeof(a)),
			     q->offcpu_nostack == 1 ? "" : "s");
	if (q->gil_inferred)
		say(p, matters(q->gil_inferred_ns, q->offcpu_ns),
			     "%s of off-CPU time (%.3f s in %s interval%s) "
			     "is called a GIL wait from the interpreter's "
			     "exported callers over a condition wait, not seen "
			     "in take_gil (no symbol for it: debug symbols "
			     "would show it): under [off-cpu gil, inferred]",
			     pct_str(q->gil_inferred_ns, q->offcpu_ns, pc,
				     sizeof(pc)),
			     (double)q->gil_inferred_ns / 1e9,
			     count_str(q->gil_inferred, a, sizeof(a)),
			     q->gil_inferred == 1 ? "" : "s");
	/*
	 * record -p: waits under way when the recorder attached.  Their
	 * time is from the attach on: each was longer, by a time nobody
	 * recorded, so that their share of the waits is low by as much
	 */
	if (q->before_attach)
		say(p, matters(q->before_attach_ns, q->offcpu_ns),
		    "%s of off-CPU time (%.3f s in %s wait%s) began before "
		    "the attach: counted from it, under [off-cpu ..., from "
		    "the attach]; %s longer",
		    pct_str(q->before_attach_ns, q->offcpu_ns, pc, sizeof(pc)),
		    (double)q->before_attach_ns / 1e9,
		    count_str(q->before_attach, a, sizeof(a)),
		    q->before_attach == 1 ? "" : "s",
		    q->before_attach == 1 ? "that wait was" :
		    "those waits were");
	/*
	 * ... and those that had not ended when the recorder detached:
	 * not in the profile at all (the recording's time, each)
	 */
	if (!parse_long(profile_meta_get(p, "walker_preattach_unended"), 10,
			1, INT32_MAX, &un) &&
	    !parse_long(profile_meta_get(p, "walker_preattach_unended_ns"),
			10, 0, LONG_MAX, &un_ns))
		profile_warn(p, "%ld thread%s blocked since before the attach "
			     "stayed blocked until the recording ended: %s "
			     "wait%s (%.3f s from the attach) %s not in the "
			     "profile", un, un == 1 ? "" : "s",
			     un == 1 ? "its" : "their", un == 1 ? "" : "s",
			     (double)un_ns / 1e9, un == 1 ? "is" : "are");
	/*
	 * report --wakers: the wait time whose waker is not a watched
	 * thread's stack, or is one wakeup's of several waiters (the last
	 * waker collects the blame), said whenever there is any
	 */
	if (q->woken_unknown || q->woken_shared || q->woken_irq ||
	    q->woken_unwatched)
		profile_warn(p, "wakers: of %.3f s off CPU, %.3f s had no "
			     "waker recorded [waker unknown], %.3f s was "
			     "ended by an interrupt (timer or irq: kernel "
			     "stack only), %.3f s by an unwatched process "
			     "(no user stack), and %.3f s by one wakeup of "
			     "several waiters (marked shared: the waker may "
			     "not be what each of them waited for)",
			     (double)q->offcpu_ns / 1e9,
			     (double)q->woken_unknown_ns / 1e9,
			     (double)q->woken_irq_ns / 1e9,
			     (double)q->woken_unwatched_ns / 1e9,
			     (double)q->woken_shared_ns / 1e9);
	if (q->offcpu_notime)
		profile_warn(p, "%s off-CPU sample%s of perf --off-cpu %s no "
			     "time of its own (perf adds short waits up and "
			     "writes them at the end): not on a timeline, "
			     "left out of a time window",
			     count_str(q->offcpu_notime, a, sizeof(a)),
			     q->offcpu_notime == 1 ? "" : "s",
			     q->offcpu_notime == 1 ? "has" : "have");
	if (q->offcpu_broken)
		profile_warn(p, "%s off-CPU interval%s left out: perf lost "
			     "the switch record%s that began or ended %s, so "
			     "the wall clock misses that waiting time",
			     count_str(q->offcpu_broken, a, sizeof(a)),
			     q->offcpu_broken == 1 ? "" : "s",
			     q->offcpu_broken == 1 ? "" : "s",
			     q->offcpu_broken == 1 ? "it" : "them");
	/* a warning when the most they could weigh is 1 % of the waits */
	if (q->walker_broken)
		say(p, matters(q->walker_broken_ns ? q->walker_broken_ns : 1,
			       q->offcpu_ns),
		    "%s off-CPU interval%s left out (at most %.3f s): the "
		    "frame walker saw %s thread%s run again without %s "
		    "switch-out, so the wall clock misses that waiting time",
		    count_str(q->walker_broken, a, sizeof(a)),
		    q->walker_broken == 1 ? "" : "s",
		    (double)q->walker_broken_ns / 1e9,
		    q->walker_broken == 1 ? "its" : "their",
		    q->walker_broken == 1 ? "" : "s",
		    q->walker_broken == 1 ? "its" : "their");
	if (q->bad_names)
		profile_warn(p, "%s damaged function name%s (invalid UTF-8, "
			     "control bytes or torn records in a perf map or "
			     "jit dump) dropped: those frames are unnamed",
			     count_str(q->bad_names, a, sizeof(a)),
			     q->bad_names == 1 ? "" : "s");
}

/*
 * perf drops samples when it cannot empty its ring buffers in time (a
 * busy machine, big stack dumps): what ran then is under-counted, and
 * perf script says nothing about it.
 */
void quality_lost(struct profile *p, uint64_t lost, uint64_t recorded)
{
	char a[32], b[32], pc[16];

	if (!lost)
		return;
	say(p, matters(lost, lost + recorded),
		     "perf lost %s of %s samples (%s): it could not keep "
		     "up (a busy machine, or stack dumps too big for its "
		     "buffers), so what ran then is under-counted",
		     count_str(lost, a, sizeof(a)),
		     count_str(lost + recorded, b, sizeof(b)),
		     pct_str(lost, lost + recorded, pc, sizeof(pc)));
}

/*
 * record --max-size stopped the recording: the samples end there, and
 * the program ran on unrecorded.  Whatever share that was, the profile
 * is of the first part of the run alone: a warning.
 */
void quality_max_size(struct profile *p)
{
	char size[32], of[64] = "";

	if (p->max_size_stop < 0)
		return;
	size_text(p->max_size, size, sizeof(size));
	if (profile_meta_get(p, "attached"))
		snprintf(of, sizeof(of), " (then detached: the processes ran "
			 "on)");
	else if (p->duration >= p->max_size_stop)
		snprintf(of, sizeof(of), " of the program's %.1f s",
			 p->duration);
	profile_warn(p, QUALITY_MAX_SIZE_WARNING "%s after %.1f s%s: what "
		     "ran after that is not in this profile", size,
		     p->max_size_stop, of);
}

/* --- the unnamed objects (stage_quality.h) ---------------------------- */

size_t quality_unnamed_objects(const struct profile *p, int program,
			       struct strvec *out, size_t max)
{
	struct { const char *dso; uint64_t count; } obj[64];
	uint8_t *py = xcalloc(p->nr_tasks + 1, 1);
	uint64_t total = 0;
	size_t nr = 0, added = 0, i, j, k;
	int any = 0;

	/* the processes with a Python frame (program: only theirs count) */
	for (i = 0; program && i < p->nr_stacks; i++) {
		const struct stack *s = &p->stacks[i];

		for (j = 0; j < s->depth && s->task < p->nr_tasks; j++)
			if (p->frames[s->frames[j]].kind == FRAME_PYTHON) {
				py[s->task] = 1;
				any = 1;
				break;
			}
	}
	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *s = &p->stacks[i];

		if (any && (s->task >= p->nr_tasks || !py[s->task]))
			continue;
		total += s->count;
		for (j = 0; j < s->depth; j++) {
			const struct frame *f = &p->frames[s->frames[j]];

			if (f->kind != FRAME_NATIVE || f->func || !f->dso ||
			    f->dso[0] != '/')
				continue;
			for (k = 0; k < nr && strcmp(obj[k].dso, f->dso); k++)
				;
			if (k == nr) {
				if (nr == ARRAY_SIZE(obj))
					continue;
				obj[nr].dso = f->dso;
				obj[nr++].count = 0;
			}
			obj[k].count += s->count;
		}
	}
	free(py);
	while (added < max && nr) {
		for (k = 0, j = 1; j < nr; j++)
			if (obj[j].count > obj[k].count)
				k = j;
		if (!matters(obj[k].count, total))
			break;
		strvec_push(out, obj[k].dso);
		added++;
		obj[k] = obj[--nr];
	}
	return added;
}
