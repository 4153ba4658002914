/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/record/cuts.c: the hints record gives from the
 * judgement of cut stacks.
 */
#include "compat.h"
#include "alloc.h"
#include "paths.h"
#include "perfdata.h"
#include "record/record.h"
#include "session.h"
#include "stackroot.h"
#include "strbuf.h"
#include "tap.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/* The hints as one string, "|"-separated, for comparing. */
static char *hints_of(const struct record_cut_facts *f)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	record_cut_hints(f, &v);
	for (i = 0; i < v.nr; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", v.v[i]);
	strvec_clear(&v);
	return strbuf_detach(&sb, NULL);
}

static int has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

static void test_hints(void)
{
	struct record_cut_facts f;
	char *h;

	TAP_OK(stack_is_root_symbol("__libc_start_main@@GLIBC_2.34"),
	       "root: versioned symbol");
	TAP_OK(!stack_is_root_symbol("_start_x"), "root: not a prefix match");

	/* jit, the dump full in 60 %, and 48 KiB would complete them */
	memset(&f, 0, sizeof(f));
	f.jit = 1;
	f.stack_size = 32768;
	f.judged = 1000;
	f.cut[CUT_NONE] = 400;
	f.cut[CUT_DUMP] = 600;
	f.dump_measured = 600;
	f.dump_fixable = 590;
	f.dump_needed = 49150;
	TAP_OK(record_cut_share(&f) > 0.599 && record_cut_share(&f) < 0.601,
	       "share: cut / judged");
	h = hints_of(&f);
	TAP_OK(has(h, "--stack-size 49152:") && has(h, "60%"),
	       "dump: the measured size, rounded to 8 (%s)", h);
	free(h);

	/* most fit in 65528 bytes, 99 % would need more: the maximum */
	f.dump_needed = 70000;
	h = hints_of(&f);
	TAP_OK(has(h, "--stack-size 65528:") && has(h, "hold most"),
	       "dump: most complete at the maximum (%s)", h);
	free(h);

	/* ...but 65528 would complete only a few: no size advice */
	f.dump_fixable = 100;
	h = hints_of(&f);
	TAP_OK(!has(h, "with --stack-size") && has(h, "would not help"),
	       "dump: deeper than perf can copy (%s)", h);
	free(h);

	/* ...and without a measure, nothing is advised */
	f.dump_measured = 0;
	h = hints_of(&f);
	TAP_STR(h, "", "dump: no facts, no hint");
	free(h);

	/* unwinder cuts: never a size */
	memset(&f, 0, sizeof(f));
	f.jit = 1;
	f.stack_size = 16384;
	f.judged = 1000;
	f.cut[CUT_UNWIND] = 500;
	f.unwind_known = 1;
	f.unwind_at_python = 450;
	h = hints_of(&f);
	TAP_OK(!has(h, "--stack-size") && has(h, "unwinds jitted code"),
	       "unwind at Python frames: the perf version (%s)", h);
	free(h);
	f.jit_fix_known = 1;
	h = hints_of(&f);
	TAP_STR(h, "", "unwind: perf known to unwind jitted code: no hint");
	free(h);
	/*
	 * ...and where the stops were not counted (bpf mode's walker
	 * sessions, perf not run; jit mode without the count): no perf
	 * version advice, it would come from no diagnosis
	 */
	f.jit_fix_known = 0;
	f.unwind_known = 0;
	f.unwind_at_python = 0;
	h = hints_of(&f);
	TAP_STR(h, "", "unwind: stops not counted at Python frames: no hint");
	free(h);
	/* ...or counted elsewhere */
	f.unwind_known = 1;
	f.unwind_at_python = 100;
	h = hints_of(&f);
	TAP_STR(h, "", "unwind: stops mostly outside Python frames: no hint");
	free(h);

	/* a few cut stacks: nothing to say */
	memset(&f, 0, sizeof(f));
	f.judged = 1000;
	f.cut[CUT_NOROOT] = 30;
	f.cut[CUT_DEPTH] = 10;
	h = hints_of(&f);
	TAP_STR(h, "", "perf: 4 %% cut gets no hint");
	free(h);

	/* perf mode: broken chains and the frame cap */
	f.cut[CUT_NOROOT] = 350;
	f.cut[CUT_DEPTH] = 600;
	f.max_stack = 127;
	h = hints_of(&f);
	TAP_OK(has(h, "--mode jit: 35% of the stacks broke off") &&
	       !has(h, "--stack-size"), "noroot: jit mode (%s)", h);
	TAP_OK(has(h, "no frame cap (raising kernel.perf_event_max_stack, "
		   "now 127"), "depth: no made-up size (%s)", h);
	free(h);
	f.depth_needed = 400;
	h = hints_of(&f);
	TAP_OK(has(h, "kernel.perf_event_max_stack=400, now 127"),
	       "depth: the needed cap when measured (%s)", h);
	free(h);
	/* perf-mode reasons never give jit-mode advice and vice versa */
	f.jit = 1;
	h = hints_of(&f);
	TAP_STR(h, "", "jit: perf-mode reasons give no hint");
	free(h);
}

int main(void)
{
	test_hints();
	return tap_done();
}
