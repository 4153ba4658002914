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
 * /proc/kallsyms: record reads it once, in a thread begun as the
 * walker's programs load, for these ranges, the interrupt ranges
 * (kself_irq()) and the session's copy.
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
	struct kself_range *r;	/* sorted by start (kself_end()) */
	size_t n, alloc;
	int loaded;
	int open_range;		/* kself_line(): the last range ends at the
				   next symbol */
	/* kself_irq()'s ranges, found by kself_line() on the way */
	uint64_t hard_lo, hard_hi, soft_lo[2], soft_hi[2];
	int open_soft;		/* the softirq loop ending at the next
				   symbol, + 1; 0: none */
};

/* The ranges from kallsyms (a path); 0, or -1 (no dispatcher found). */
int kself_load(struct kself *k, const char *kallsyms);

/*
 * The same from kallsyms' lines as another reader goes through them
 * (record reads the file once, for the session's copy too):
 * kself_begin(), kself_line() for each line in the file's order (with
 * or without its newline), kself_end(): 0, or -1 (no dispatcher).
 */
void kself_begin(struct kself *k);
void kself_line(struct kself *k, const char *line);
int kself_end(struct kself *k);

/*
 * One of the walker's programs at [start, end), from the kernel's own
 * account of its JIT-compiled code (walker_prog_ranges()): kallsyms
 * read before the programs were loaded does not list them.  Then
 * kself_end() again.
 */
void kself_add_own(struct kself *k, uint64_t start, uint64_t end);

/* dst as a copy of src (dst released first). */
void kself_copy(struct kself *dst, const struct kself *src);

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
/*
 * The same from the lines a kself was given (kself_begin() ...
 * kself_end(), or its copy): record reads kallsyms once for both.
 */
int kself_irq(const struct kself *k, uint64_t *hard_lo, uint64_t *hard_hi,
	      uint64_t soft_lo[2], uint64_t soft_hi[2]);

#endif
