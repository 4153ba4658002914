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
	      "ffffffff81f00000 T __schedule\n"
	      "ffffffff81f00200 T schedule\n"
	      /* JIT-compiled programs: last, out of address order */
	      "ffffffffc0030000 t bpf_prog_0123456789abcdef_other\t[bpf]\n"
	      "ffffffffc00269a0 t bpf_prog_ecca940703ef60d7_py_step\t[bpf]\n",
	      f);
	fclose(f);
	TAP_INT(kself_load(&k, path), 0, "the dispatchers are found");
	TAP_INT((long)k.n, 5, "bpf_trace_run1 and 4, the iterator, the "
		"two programs");
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
	unlink(path);
	TAP_INT(kself_load(&k, path), -1, "no kallsyms: nothing found");
	TAP_INT(own(&k, sw, 4), 0, "then no frame is taken for ours");
	kself_release(&k);
	return tap_done();
}
