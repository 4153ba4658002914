/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cut stacks: the share of cut ones, and the hints record gives from
 * profile_load()'s judgement (see cuts.h).
 */
#include "compat.h"
#include "record/cuts.h"
#include "perfdata.h"

double record_cut_share(const struct record_cut_facts *f)
{
	uint64_t cut = 0;
	int i;

	if (!f->judged)
		return 0.0;
	for (i = CUT_DUMP; i < CUT_NR; i++)
		cut += f->cut[i];
	return (double)cut / (double)f->judged;
}

static double cut_share(const struct record_cut_facts *f, enum stack_cut c)
{
	return f->judged ? (double)f->cut[c] / (double)f->judged : 0.0;
}

static void dump_hint(const struct record_cut_facts *f, struct strvec *out)
{
	double share = cut_share(f, CUT_DUMP);
	uint64_t need = f->dump_needed;

	/* without a measure of the stacks' size, no size is advised */
	if (!f->dump_measured)
		return;
	if (f->dump_fixable * 2 >= f->dump_measured) {
		/* most fit in what perf can copy: the size 99 % need */
		if (!need || need > PERF_STACK_DUMP_MAX)
			need = PERF_STACK_DUMP_MAX;
		need = (need + 7u) / 8u * 8u;
		if (need > PERF_STACK_DUMP_MAX)
			need = PERF_STACK_DUMP_MAX;
		if (need <= f->stack_size)
			return;
		strvec_pushf(out, "record again with --stack-size %u: %.0f%% "
			     "of the stacks were deeper than the %u-byte "
			     "dump, and %u bytes hold %s of them (the session "
			     "grows about %.1f times)", (unsigned)need,
			     share * 100, f->stack_size, (unsigned)need,
			     f->dump_needed &&
			     f->dump_needed <= PERF_STACK_DUMP_MAX ?
			     "99%" : "most",
			     (double)need / f->stack_size);
		return;
	}
	strvec_pushf(out, "%.0f%% of the stacks are deeper than the %u "
		     "bytes perf can copy per sample: a bigger --stack-size "
		     "would not help", share * 100, PERF_STACK_DUMP_MAX);
}

size_t record_cut_hints(const struct record_cut_facts *f, struct strvec *out)
{
	size_t before = out->nr;

	if (!f->judged)
		return 0;
	if (f->jit && cut_share(f, CUT_DUMP) >= CUT_ADVICE_SHARE)
		dump_hint(f, out);
	/*
	 * Unwinder cuts: the dump held more, so a bigger one cannot help.
	 * Stops at Python frames are an old perf's missing unwinding of
	 * jitted code: said only when the stops were counted there (a
	 * hint comes from a diagnosis).  Unwinder cuts elsewhere, and the
	 * frame walker's (bpf mode does not run perf), get none.
	 */
	if (f->jit && cut_share(f, CUT_UNWIND) >= CUT_ADVICE_SHARE &&
	    f->unwind_known &&
	    f->unwind_at_python * 2 > f->cut[CUT_UNWIND] &&
	    !f->jit_fix_known)
		strvec_push(out, "perf 6.8 or later (or 6.1.91+, 6.6.14+, "
			    "6.7.2+) unwinds jitted code; 'pyperf-run doctor "
			    "--probe' checks this perf");
	if (!f->jit && cut_share(f, CUT_NOROOT) >= CUT_ADVICE_SHARE)
		strvec_pushf(out, "record again with --mode jit: %.0f%% of "
			     "the stacks broke off in code built without "
			     "frame pointers (C extensions, BLAS), which jit "
			     "mode unwinds through",
			     cut_share(f, CUT_NOROOT) * 100);
	if (!f->jit && cut_share(f, CUT_DEPTH) >= CUT_ADVICE_SHARE) {
		char now[40] = "";

		if (f->max_stack)
			snprintf(now, sizeof(now), ", now %u", f->max_stack);
		if (f->depth_needed > f->max_stack)
			strvec_pushf(out, "record again with --mode jit, which "
				     "has no frame cap, or raise the kernel's "
				     "(as root: sysctl -w kernel.perf_event_"
				     "max_stack=%u%s)", f->depth_needed, now);
		else
			strvec_pushf(out, "record again with --mode jit, which "
				     "has no frame cap (raising kernel.perf_"
				     "event_max_stack%s, as root, helps too)",
				     now);
	}
	return out->nr - before;
}
