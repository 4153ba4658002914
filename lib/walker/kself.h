/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_KSELF_H
#define PPR_WALKER_KSELF_H
/*
 * The walker's own BPF programs in the kernel stacks it records.  A
 * tracepoint program (walker_switch, walker_exit ...) that asks for the
 * kernel stack gets its own frames first: the JIT-compiled program
 * (outside the kernel's text: no symbol, named by the last one before
 * it), the kernel's dispatcher bpf_trace_runN, and the tracepoint's
 * plumbing (__bpf_trace_TP, __traceiter_TP: usually tail calls, not
 * always), all above the traced function (__schedule for a switch).  A
 * cpu-clock sample that hits while one of the programs runs has the same
 * frames on top of the task's own.  The address ranges come from
 * /proc/kallsyms (read once, at the first kernel stack).
 */
#include "compat.h"

struct kself_range {
	uint64_t start, end;
	int dispatcher;		/* bpf_trace_runN; else plumbing */
	int own;		/* one of the walker's JIT-compiled programs
				   (bpf_prog_TAG_NAME); another BPF program's
				   range only bounds the one before it */
};

struct kself {
	struct kself_range *r;	/* sorted by start */
	size_t n, alloc;
	int loaded;
};

/* The ranges from kallsyms (a path); 0, or -1 (no dispatcher found). */
int kself_load(struct kself *k, const char *kallsyms);

/* A dispatcher's address (0: none known), for a stack that lost it. */
uint64_t kself_dispatcher(const struct kself *k);
void kself_release(struct kself *k);

/*
 * The walker's own frames at the top (leaf first) of stack, n
 * little-endian u64 as the event holds them: returns how many frames
 * are the program's whole own stack (up to a dispatcher frame among the
 * first 16, and the tracepoint plumbing right below it), 0 when there is
 * no dispatcher (a stack of the task alone); *above: the frames above
 * the dispatcher (the program itself).  A stack that is only the
 * walker's program (the kernel's unwinder stopped in it: a bpf_loop()
 * callback's) is all its own: n, *above KSELF_CUT.
 */
#define KSELF_CUT (~0u)
unsigned kself_own(const struct kself *k, const unsigned char *stack,
		   unsigned n, unsigned *above);

/*
 * Where the kernel runs interrupts, for the walker's wakings
 * (walker_config): the interrupt entries [__irqentry_text_start,
 * __irqentry_text_end) in *hard_lo, *hard_hi, and the softirq loops
 * (handle_softirqs since 6.2, __do_softirq; each to the next symbol) in
 * soft_lo[0..1], soft_hi[0..1] (0, 0 when absent).  0, or -1 when the
 * entries or both loops are not found (no kallsyms, addresses hidden).
 */
int kself_irq_ranges(const char *kallsyms, uint64_t *hard_lo,
		     uint64_t *hard_hi, uint64_t soft_lo[2],
		     uint64_t soft_hi[2]);

#endif
