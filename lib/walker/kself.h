/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_KSELF_H
#define PPR_WALKER_KSELF_H
/*
 * The walker's own BPF programs in the kernel stacks it records.  A
 * tracepoint program (walker_switch, walker_exit ...) that asks for the
 * kernel stack gets its own frames first: the JIT-compiled program
 * (outside the kernel's text: no symbol, named by the last one before
 * it) and the kernel's dispatcher, bpf_trace_runN, above the traced
 * function (__schedule for a switch).  A cpu-clock sample that hits
 * while one of the programs runs has the same frames on top of the
 * task's own.  The dispatcher's address range is read from
 * /proc/kallsyms (once, at the first kernel stack).
 */
#include "compat.h"

struct kself {
	uint64_t start[16], end[16];	/* bpf_trace_run1..12 */
	size_t n;
	int loaded;
};

/* The dispatchers' ranges from kallsyms (a path); 0, or -1 (none found). */
int kself_load(struct kself *k, const char *kallsyms);

/*
 * How many frames at the top (leaf first) of stack (n little-endian
 * u64, as the event holds them) are the walker's own
 * program: up to and including a dispatcher frame among the first 16;
 * 0 when there is none (a stack of the task alone).
 */
unsigned kself_own(const struct kself *k, const unsigned char *stack,
		   unsigned n);

#endif
