/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "numparse.h"

#include <ctype.h>

int parse_long(const char *s, int base, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, base); /* the one call site */
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_ulong(const char *s, int base, unsigned long max,
		unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_uint_prefix(const char *s, unsigned long *out, const char **end)
{
	unsigned long v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (~0UL - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		p++;
	}
	*out = v;
	*end = p;
	return 0;
}

int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
