/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_COMPAT_H
#define PPR_COMPAT_H
/*
 * The one place that picks the feature macros and the common system
 * headers.  Every lib/ and cmd/ source file includes this first.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Error buffers filled by lib/ functions for cmd/ to print. */
#define PPR_ERR_LEN 512

#if defined(__GNUC__)
#define PPR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PPR_NORETURN __attribute__((noreturn))
#else
#define PPR_PRINTF(f, a)
#define PPR_NORETURN
#endif

/*
 * Fill a caller-owned error buffer; returns -1 so lib/ code can write
 * "return set_err(err, errlen, ...)".  Never prints.
 */
int set_err(char *err, size_t errlen, const char *fmt, ...) PPR_PRINTF(3, 4);

#include "banned.h"

#endif
