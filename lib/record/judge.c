/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The finished session read back as report reads it, judged: its
 * warnings, the hints the judgement backs, the share of cut stacks
 * (see run_priv.h).  record -> report, one way.
 */
#include "compat.h"
#include "record/run_priv.h"
#include "record/checks.h"
#include "record/cuts.h"
#include "report/profile.h"
#include "report/stage_quality.h"

#include <sys/stat.h>

/* Fewer samples than this show nothing worth a warning. */
#define JUDGE_MIN_SAMPLES 50

/* The dump-size facts of profile_load()'s judgement. */
static void dump_facts(const struct profile *p, struct record_cut_facts *f)
{
	const struct profile_quality *q = &p->quality;

	f->dump_measured = q->dump_known;
	f->dump_fixable = q->dump_fixable;
	f->dump_needed = q->dump_need99;
	if (!f->max_stack)
		f->max_stack = q->max_stack;
}

/*
 * --wall: the switches' share of perf.data, said when the data grew
 * faster than WALL_BYTES_RATE_MAX (a program switching tens of
 * thousands of times a second, each switch with its stack).
 */
#define WALL_BYTES_RATE_MAX 8000000u	/* bytes per second */

static void wall_volume(struct record_run *r, const struct profile *p)
{
	struct stat st;
	double secs = r->end - r->start, rate, per;

	if (r->wall == PERFCMD_WALL_NONE || secs <= 0 || !p->quality.offcpu ||
	    stat(r->data, &st) < 0)
		return;
	rate = (double)st.st_size / secs;
	per = (double)st.st_size / (double)(p->quality.offcpu +
					    p->total_count);
	session_meta_set(&r->meta, "switches", "%llu",
			 (unsigned long long)p->quality.offcpu);
	if (rate <= WALL_BYTES_RATE_MAX)
		return;
	record_say(r, RECORD_MSG_WARNING, "--wall: the recording grew by "
		   "%.1f MB/s (%.0f context switches/s, about %.0f bytes "
		   "each with its stack), above the %u MB/s this stays "
		   "usable at: a program that switches this often makes "
		   "big sessions and slow reports",
		   rate / 1e6, (double)p->quality.offcpu / secs, per,
		   WALL_BYTES_RATE_MAX / 1000000);
}

/*
 * Read the finished session (still in r->tmp) back as report does
 * (profile_load(), which judges every sample's stack and leaves the
 * report cache behind, so that the first report is fast), say its
 * warnings and the hints the judgement backs, and keep the share of cut
 * stacks in meta.
 */
void record_judge_session(struct record_run *r)
{
	struct profile_filter f_load = PROFILE_FILTER_INIT;
	struct profile p;
	struct record_cut_facts f;
	struct strvec hints = STRVEC_INIT;
	char err[PPR_ERR_LEN];
	size_t i;
	int c;

	r->complete = -1.0;
	/* by process: the Python program's part is told apart */
	f_load.group = PROFILE_BY_PROCESS;
	if (profile_load(&p, r->tmp, &f_load, err, sizeof(err))) {
		record_say(r, RECORD_MSG_WARNING, "cannot read the recording "
			   "back to check its stacks: %s", err);
		profile_release(&p);
		return;
	}
	memset(&f, 0, sizeof(f));
	f.jit = mode_copies_stacks(&r->mode);
	f.stack_size = r->mode.stack_size;
	f.max_stack = r->kernel.max_stack.have &&
		      r->kernel.max_stack.value > 0 ?
		      (unsigned)r->kernel.max_stack.value : 0;
	f.judged = p.quality.judged;
	for (c = 0; c < CUT_NR; c++)
		f.cut[c] = p.quality.cut[c];
	dump_facts(&p, &f);
	f.jit_fix_known = r->fix == TRI_YES;

	/*
	 * A handful of samples shows nothing worth a warning (a program
	 * that ran for milliseconds); report still shows them all.
	 */
	if (p.total_count >= JUDGE_MIN_SAMPLES) {
		/*
		 * The report's warnings are already only what bears on
		 * the Python program's answer (1 % of its samples or more;
		 * the rest are notes, said with -v): say each.
		 */
		for (i = 0; i < p.nr_warnings; i++)
			/* --max-size's: said (record_say_max_size_stop()) */
			if (strncmp(p.warnings[i], QUALITY_MAX_SIZE_WARNING,
				    strlen(QUALITY_MAX_SIZE_WARNING)))
				record_say(r, RECORD_MSG_WARNING, "%s",
					   p.warnings[i]);
		if (p.quality.unnamed) {
			quality_unnamed_objects(&p, 1, &r->program_unnamed, 3);
			quality_unnamed_objects(&p, 0, &r->unnamed_objects, 3);
		}
		record_cut_hints(&f, &hints);
		for (i = 0; i < hints.nr; i++)
			record_say(r, RECORD_MSG_HINT, "%s", hints.v[i]);
	}

	for (i = 0; i < p.nr_notes; i++)
		strvec_push(&r->notes, p.notes[i]);
	wall_volume(r, &p);
	r->complete = p.quality.judged ?
		(double)p.quality.cut[CUT_NONE] / p.quality.judged : -1.0;
	session_meta_set(&r->meta, "truncated", "%.4f", record_cut_share(&f));
	if (session_meta_write(r->tmp, &r->meta, err, sizeof(err)))
		record_say(r, RECORD_MSG_WARNING, "%s", err);
	strvec_clear(&hints);
	profile_release(&p);
}
