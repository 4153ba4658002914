/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The quality warnings (pipeline_priv.h): once every sample is in, the
 * counts the stages kept (struct profile_quality: stacks cut and why,
 * unnamed code, start-up stacks, the context cap, damaged tables and
 * names, samples perf lost) out as sentences in the profile's
 * warnings, with the advice a diagnosis supports (a dump size that
 * would complete the stacks, debug symbols).  Never a silent wrong
 * answer: what is dropped, cut or unnamed is said, and how much.
 */
#include "compat.h"
#include "alloc.h"
#include "perfdata.h"
#include "report/pipeline_priv.h"

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

/* "41%", or "<1%" for a share that rounds to nothing. */
static const char *pct_str(uint64_t part, uint64_t whole, char *buf,
			   size_t len)
{
	double v = whole ? 100.0 * (double)part / (double)whole : 0;

	if (part && v < 0.5)
		snprintf(buf, len, "<1%%");
	else
		snprintf(buf, len, "%.0f%%", v);
	return buf;
}

/* Incomplete stacks: how many, and why, for each reason. */
static void quality_cuts(struct profile *p)
{
	const struct profile_quality *q = &p->quality;
	char a[32], b[32], pc[16];
	int r;

	for (r = CUT_DUMP; r < CUT_NR; r++) {
		const char *why = NULL;
		char *extra = NULL;

		if (!q->cut[r])
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
		profile_warn(p, "%s of samples (%s of %s) have incomplete "
			     "stacks: %s; they are under %s",
			     pct_str(q->cut[r], q->judged, pc, sizeof(pc)),
			     count_str(q->cut[r], a, sizeof(a)),
			     count_str(q->judged, b, sizeof(b)),
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
	if (q->cut[CUT_DUMP] && q->dump_known &&
	    (double)q->cut[CUT_DUMP] >= CUT_ADVICE_SHARE * (double)q->judged) {
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
		profile_warn(p, "%s of the frame walker's Python frames (%s of "
			     "%s) are unnamed: their code object could not be "
			     "read while the process ran (freed, or the "
			     "process ended first); they are under [unnamed "
			     "Python code]",
			     pct_str(q->walker_unnamed, q->walker_py_frames,
				     pc, sizeof(pc)),
			     count_str(q->walker_unnamed, a, sizeof(a)),
			     count_str(q->walker_py_frames, b, sizeof(b)));
	if (q->walker_native_short)
		profile_warn(p, "%s of the frame walker's samples (%s of %s) "
			     "have more Python calls than the copied stack "
			     "could unwind: every Python frame is there, but "
			     "the C functions between the outer Python calls "
			     "(a C extension calling back into Python) are "
			     "not; a bigger --stack-size would show them",
			     pct_str(q->walker_native_short, q->walker_samples,
				     pc, sizeof(pc)),
			     count_str(q->walker_native_short, a, sizeof(a)),
			     count_str(q->walker_samples, b, sizeof(b)));
}

/* The warnings a reader needs to trust the numbers (see profile.h). */
void quality_warnings(struct profile *p, const char *unnamed_example)
{
	const struct profile_quality *q = &p->quality;
	char a[32], pc[16];

	quality_cuts(p);
	quality_dump_advice(p);
	/*
	 * These counts are samples, shared of the profile's count of
	 * samples (total_count), never of its weight: in the wall clock a
	 * weight is nanoseconds.
	 */
	if (q->unnamed)
		profile_warn(p, "%s of samples (%s) ran in code without "
			     "symbols, shown as the object's name in brackets "
			     "(e.g. %s), not credited to a named caller; "
			     "debug symbols would name it",
			     pct_str(q->unnamed, p->total_count, pc,
				     sizeof(pc)),
			     count_str(q->unnamed, a, sizeof(a)),
			     unnamed_example);
	if (q->startup_cut)
		profile_warn(p, "%s of samples (%s) ran in the interpreter's "
			     "start-up, before the trampoline started: their "
			     "native stacks may be cut at the stack dump; they "
			     "are under [python start-up]",
			     pct_str(q->startup_cut, p->total_count, pc,
				     sizeof(pc)),
			     count_str(q->startup_cut, a, sizeof(a)));
	if (q->ctx_unknown)
		profile_warn(p, "%s of samples (%s) reached the trampoline's "
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
		profile_warn(p, "%s of off-CPU time (%.3f s in %s interval%s) "
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
		profile_warn(p, "%s of off-CPU time (%.3f s in %s interval%s) "
			     "is called a GIL wait from the interpreter's "
			     "exported callers over a condition wait, not seen "
			     "in take_gil (no symbol for it: debug symbols "
			     "would show it): under [off-cpu gil, inferred]",
			     pct_str(q->gil_inferred_ns, q->offcpu_ns, pc,
				     sizeof(pc)),
			     (double)q->gil_inferred_ns / 1e9,
			     count_str(q->gil_inferred, a, sizeof(a)),
			     q->gil_inferred == 1 ? "" : "s");
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
	profile_warn(p, "perf lost %s of %s samples (%s): it could not keep "
		     "up (a busy machine, or stack dumps too big for its "
		     "buffers), so what ran then is under-counted",
		     count_str(lost, a, sizeof(a)),
		     count_str(lost + recorded, b, sizeof(b)),
		     pct_str(lost, lost + recorded, pc, sizeof(pc)));
}
