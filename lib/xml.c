/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "xml.h"
#include "utf8.h"

void xml_escape(FILE *fp, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, l;

	while (i < n) {
		unsigned char c = s[i];

		switch (c) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		case '\'':
			fputs("&#39;", fp);
			break;
		default:
			if (c < 0x20) {
				/* not allowed in XML 1.0, except TAB/LF/CR */
				fputc(c == '\t' || c == '\n' ? ' ' : '?', fp);
			} else if (c < 0x80) {
				fputc(c, fp);
			} else {
				l = utf8_seq_len(s + i, n - i);
				if (!l) {
					fputs("\xef\xbf\xbd", fp);
				} else {
					fwrite(s + i, 1, l, fp);
					i += l;
					continue;
				}
			}
		}
		i++;
	}
}
