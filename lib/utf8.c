/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int utf8_is_clean(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *e = p + len;

	while (p < e) {
		size_t n;

		if (*p < 0x20 || *p == 0x7f)
			return 0;
		n = utf8_seq_len(p, (size_t)(e - p));
		if (!n)
			return 0;
		/* U+0080..U+009F: C1 controls */
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
			return 0;
		p += n;
	}
	return 1;
}
