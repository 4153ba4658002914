/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_UTF8_H
#define PPR_UTF8_H
#include "compat.h"

/*
 * Length of the valid UTF-8 sequence at s (looking at most n bytes, n > 0),
 * or 0 when it is not one (bad lead or continuation byte, overlong form,
 * surrogate, beyond U+10FFFF).  Escapers use it to pass text through and
 * to replace broken bytes with U+FFFD.
 */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/*
 * Is [s, s + len) valid UTF-8 without control characters (C0, DEL,
 * C1)?  What a frame name must be to be shown: names failing it come
 * from damaged map or dump records.
 */
int utf8_is_clean(const char *s, size_t len);

#endif
