/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * walker/kself.h: the walker's own frames at the top of a kernel stack,
 * from a kallsyms of this test's making.
 */
#include "compat.h"
#include "walker/kself.h"
#include "byteorder.h"
#include "tap.h"

#include <unistd.h>

static unsigned above;

static unsigned own(const struct kself *k, const uint64_t *a, unsigned n)
{
	unsigned char b[8 * 8];
	unsigned i;

	for (i = 0; i < n; i++)
		put_le64(b + 8 * i, a[i]);
	return kself_own(k, b, n, &above);
}

int main(void)
{
	char path[64];
	FILE *f;
	struct kself k;
	/* leaf first: the JIT program, the dispatcher, __schedule, ... */
	const uint64_t sw[] = { 0xffffffffc0001234ull, 0xffffffff814ca4e7ull,
				0xffffffff81f00010ull, 0xffffffff81f00100ull };
	const uint64_t plain[] = { 0xffffffff81f00010ull,
				   0xffffffff81f00100ull };
	/* ... with the tracepoint's iterator between: not a tail call */
	const uint64_t iter[] = { 0xffffffffc0001234ull, 0xffffffff814ca4e7ull,
				  0xffffffff813a50c0ull, 0xffffffff81f00010ull };
	/*
	 * a bpf_loop() callback of the walker's, where the kernel's
	 * unwinder stopped; another program's; one past the program's
	 * end (the next program's start bounds it)
	 */
	const uint64_t cut[] = { 0xffffffffc0026a10ull };
	const uint64_t other[] = { 0xffffffffc0030010ull };
	const uint64_t probe[] = { 0xffffffffc0040010ull };
	const uint64_t walk[] = { 0xffffffffc0050010ull };
	const uint64_t wake[] = { 0xffffffffc0060010ull };
	const uint64_t past[] = { 0xffffffffc0026a10ull,
				  0xffffffffc0030010ull };

	snprintf(path, sizeof(path), "kallsyms.%d", (int)getpid());
	f = fopen(path, "w");
	fputs("ffffffff81000000 T _text\n"
	      "ffffffff813a50a0 T __pfx___traceiter_sched_switch\n"
	      "ffffffff813a50b0 T __traceiter_sched_switch\n"
	      "ffffffff813a5100 T __pfx___traceiter_sched_wakeup\n"
	      "ffffffff814c9f50 T bpf_trace_run1\n"
	      "ffffffff814ca120 T __pfx_bpf_trace_run2\n"
	      "ffffffff814ca4c0 T __pfx_bpf_trace_run4\n"
	      "ffffffff814ca4d0 T bpf_trace_run4\n"
	      "ffffffff814ca6a0 T __pfx_bpf_trace_run5\n"
	      "ffffffff81e00000 T __irqentry_text_start\n"
	      "ffffffff81e00100 T sysvec_apic_timer_interrupt\n"
	      "ffffffff81e00400 T __irqentry_text_end\n"
	      "ffffffff81e10000 T handle_softirqs\n"
	      "ffffffff81e10400 T __irq_exit_rcu\n"
	      "ffffffff81f00000 T __schedule\n"
	      "ffffffff81f00200 T schedule\n"
	      /* JIT-compiled programs: last, out of address order */
	      "ffffffffc0030000 t bpf_prog_0123456789abcdef_other\t[bpf]\n"
	      "ffffffffc00269a0 t bpf_prog_ecca940703ef60d7_py_step\t[bpf]\n"
	      "ffffffffc0040000 t bpf_prog_1111111111111111_probe_step\t[bpf]\n"
	      "ffffffffc0050000 t bpf_prog_2222222222222222_walk_user\t[bpf]\n"
	      "ffffffffc0060000 t bpf_prog_3333333333333333_wake_step\t[bpf]\n",
	      f);
	fclose(f);
	TAP_INT(kself_load(&k, path), 0, "the dispatchers are found");
	{
		uint64_t hl, hh, sl[2], sh[2];

		TAP_INT(kself_irq(&k, &hl, &hh, sl, sh), 0,
			"the interrupt ranges are found on the way");
		TAP_OK(hl == 0xffffffff81e00000ull &&
		       hh == 0xffffffff81e00400ull, "  the interrupt entries");
		TAP_OK(sl[0] == 0xffffffff81e10000ull &&
		       sh[0] == 0xffffffff81e10400ull && !sl[1] && !sh[1],
		       "  handle_softirqs, to the next symbol; no __do_softirq");
		hl = hh = 0;
		TAP_INT(kself_irq_ranges(path, &hl, &hh, sl, sh), 0,
			"kself_irq_ranges() reads the same from the file");
		TAP_OK(hl == 0xffffffff81e00000ull &&
		       sh[0] == 0xffffffff81e10400ull, "  the same ranges");
	}
	TAP_INT((long)k.n, 8, "bpf_trace_run1 and 4, the iterator, the "
		"five programs");
	TAP_INT(own(&k, probe, 1), 1, "probe_step, the stack copy's "
		"bpf_loop() callback: its own");
	TAP_INT(own(&k, walk, 1), 1, "walk_user, the programs' shared "
		"function: its own");
	TAP_INT(own(&k, wake, 1), 1, "wake_step, the waking's callback: "
		"its own");
	TAP_INT(own(&k, cut, 1), 1, "the walker's program alone: its own");
	TAP_OK(above == KSELF_CUT, "  a cut stack");
	TAP_INT(own(&k, other, 1), 0, "another BPF program's: not ours");
	TAP_INT(own(&k, past, 2), 0, "ours over another's: not all ours");
	TAP_OK(kself_dispatcher(&k) == 0xffffffff814c9f50ull,
	       "a dispatcher's address to put in its place");
	TAP_INT(own(&k, sw, 4), 2, "a switch-out's stack: 2 frames are ours");
	TAP_INT(above, 1, "  1 above the dispatcher");
	TAP_INT(own(&k, iter, 4), 3, "with the iterator: 3 frames are ours");
	TAP_INT(own(&k, plain, 2), 0, "a task's own stack: none");
	TAP_INT(own(&k, sw + 1, 3), 1, "the dispatcher alone at the top");
	TAP_INT(above, 0, "  nothing above it");
	kself_release(&k);

	/*
	 * record's way: the lines read before the walker's programs were
	 * loaded (no py_step there), its programs added from their
	 * program info (exact ends), then a copy for the loop
	 */
	{
		static const char *const lines[] = {
			"ffffffff81000000 T _text",
			"ffffffff813a50b0 T __traceiter_sched_switch",
			"ffffffff813a5100 T __pfx___traceiter_sched_wakeup",
			"ffffffff814c9f50 T bpf_trace_run1",
			"ffffffff814ca120 T __pfx_bpf_trace_run2",
			"ffffffff814ca4d0 T bpf_trace_run4\n",
			"ffffffff814ca6a0 T __pfx_bpf_trace_run5",
			"ffffffff81f00000 T __schedule",
			"ffffffffc0030000 t bpf_prog_0123456789abcdef_other\t[bpf]",
		};
		struct kself c;
		size_t i;

		memset(&c, 0, sizeof(c));
		kself_begin(&k);
		for (i = 0; i < ARRAY_SIZE(lines); i++)
			kself_line(&k, lines[i]);
		TAP_INT(kself_end(&k), 0, "lines: the dispatchers are found");
		{
			uint64_t hl, hh, sl[2], sh[2];

			TAP_INT(kself_irq(&k, &hl, &hh, sl, sh), -1,
				"lines without interrupt entries: none");
		}
		TAP_INT(own(&k, cut, 1), 0, "lines alone: the walker's "
			"callback is not known");
		kself_add_own(&k, 0xffffffffc00269a0ull, 0xffffffffc0026b00ull);
		TAP_INT(kself_end(&k), 0, "and again with a program added");
		kself_copy(&c, &k);
		kself_release(&k);
		TAP_INT(own(&c, cut, 1), 1, "the added program alone: its own");
		TAP_OK(above == KSELF_CUT, "  a cut stack");
		TAP_INT(own(&c, past, 2), 0, "the next program: not ours");
		TAP_INT(own(&c, sw, 4), 2, "a switch-out's stack: 2 frames "
			"are ours (in the copy)");
		kself_release(&c);
	}
	unlink(path);
	TAP_INT(kself_load(&k, path), -1, "no kallsyms: nothing found");
	{
		uint64_t hl, hh, sl[2], sh[2];

		TAP_INT(kself_irq_ranges(path, &hl, &hh, sl, sh), -1,
			"  and no interrupt ranges");
	}
	TAP_INT(own(&k, sw, 4), 0, "then no frame is taken for ours");
	kself_release(&k);
	return tap_done();
}
