/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_NUMPARSE_H
#define PPR_NUMPARSE_H
#include "compat.h"

/*
 * The one way to turn text into numbers: the whole string must be a
 * number in [min, max].  Returns 0, or -EINVAL (not a number) or
 * -ERANGE (out of range); *out is untouched on error.
 */
int parse_long(const char *s, int base, long min, long max, long *out);
int parse_ulong(const char *s, int base, unsigned long max,
		unsigned long *out);
/* Parse a decimal prefix of s; *end points past it.  -EINVAL if none. */
int parse_uint_prefix(const char *s, unsigned long *out, const char **end);
/*
 * A size in bytes: decimal digits, then optionally one of K, M, G, T
 * (either case) for KiB, MiB, GiB, TiB, as perf record's --max-size
 * counts them.  The whole string, in [min, max]; -EINVAL or -ERANGE
 * (a product past 2^64 too), *out untouched on error.
 */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * n as parse_size() reads it back, shortest first: "10M" for 10 MiB,
 * "1536K", "1000" (no suffix: bytes).
 */
void size_text(uint64_t n, char *buf, size_t len);
/* A hex digit's value (0-9, a-f, A-F), or -1. */
int hexval(int c);

#endif
