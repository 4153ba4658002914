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

#endif
