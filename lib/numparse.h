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
/* A hex digit's value (0-9, a-f, A-F), or -1. */
int hexval(int c);

#endif
