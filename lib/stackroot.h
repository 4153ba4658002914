/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_STACKROOT_H
#define PPR_STACKROOT_H

/*
 * Where a stack starts: a stack is whole when its outermost user frame
 * is one of these symbols (report's judgement of every sample's stack,
 * lib/report/profile.h's enum stack_cut).
 */

/* Is frame symbol sym (a version suffix "@..." ignored) where a process
 * or thread starts? */
int stack_is_root_symbol(const char *sym);

#endif
