/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_XML_H
#define PPR_XML_H
#include "compat.h"

/*
 * Write [s, s + len) escaped for XML text and attribute values ('<',
 * '>', '&' and both quotes as entities); control characters XML 1.0
 * does not allow become '?' (TAB and LF a space), invalid UTF-8
 * U+FFFD.
 */
void xml_escape(FILE *fp, const char *s, size_t len);

#endif
