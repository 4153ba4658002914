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

/* parse_size()'s suffixes, each 1024 times the one before */
static const char size_suffix[] = "KMGT";

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *p = s, *suf;
	uint64_t n = 0;
	unsigned shift = 0;
	int over = 0;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (n > (UINT64_MAX - d) / 10)
			over = 1;
		else
			n = n * 10 + d;
	}
	if (*p) {
		if (p[1] || !(suf = strchr(size_suffix,
					   toupper((unsigned char)*p))))
			return -EINVAL;
		shift = 10 * (unsigned)(suf - size_suffix + 1);
	}
	if (over || (shift && n > (UINT64_MAX >> shift)))
		return -ERANGE;
	n <<= shift;
	if (n < min || n > max)
		return -ERANGE;
	*out = n;
	return 0;
}

void size_text(uint64_t n, char *buf, size_t len)
{
	size_t i = 0;

	while (n && i < sizeof(size_suffix) - 1 && !(n & 1023)) {
		n >>= 10;
		i++;
	}
	if (i)
		snprintf(buf, len, "%llu%c", (unsigned long long)n,
			 size_suffix[i - 1]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
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
