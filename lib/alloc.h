/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_ALLOC_H
#define PPR_ALLOC_H
#include "compat.h"

/*
 * Allocation wrappers.  On failure they call the out-of-memory handler,
 * which cmd/ sets (it prints and exits 125); the default handler calls
 * abort().  lib/ itself never prints or exits.
 */
typedef void (*alloc_oom_fn)(size_t size);
void alloc_set_oom_handler(alloc_oom_fn fn);

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Caller owns the result; free with free(3). */
char *xasprintf(const char *fmt, ...) PPR_PRINTF(1, 2);

/* Grow *p (holding *alloc elements of size sz) to hold at least n. */
#define ALLOC_GROW(p, n, alloc)                                            \
	do {                                                               \
		if ((size_t)(n) > (alloc)) {                               \
			size_t new_alloc_ = (alloc) ? (alloc) * 2 : 16;    \
			while (new_alloc_ < (size_t)(n))                   \
				new_alloc_ *= 2;                           \
			(p) = xrealloc((p), new_alloc_ * sizeof(*(p)));    \
			(alloc) = new_alloc_;                              \
		}                                                          \
	} while (0)

#endif
