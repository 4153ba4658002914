/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/numparse's sizes: parse_size(), record --max-size's
 * parser, and size_text(), which says a size back the same way.
 */
#include "compat.h"
#include "numparse.h"
#include "tap.h"

/* parse_size(s) in [1, UINT64_MAX]: its value, or the error (< 0) */
static long long size_of(const char *s)
{
	uint64_t v = 0;
	int r = parse_size(s, 1, UINT64_MAX, &v);

	return r < 0 ? r : (long long)v;
}

static const char *text(uint64_t n)
{
	static char buf[32];

	size_text(n, buf, sizeof(buf));
	return buf;
}

int main(void)
{
	uint64_t v = 7;

	TAP_INT(size_of("4096"), 4096, "bytes without a suffix");
	TAP_INT(size_of("100K"), 102400, "K is KiB");
	TAP_INT(size_of("10m"), 10485760, "m is M, MiB");
	TAP_INT(size_of("2G"), 2147483648LL, "G is GiB");
	TAP_INT(size_of("1T"), 1099511627776LL, "T is TiB");
	TAP_INT(size_of("0"), -ERANGE, "0 is out of the range [1, ...]");
	TAP_INT(size_of("0K"), -ERANGE, "so is 0K");
	TAP_INT(size_of("-1"), -EINVAL, "a sign is not a size");
	TAP_INT(size_of("+1"), -EINVAL, "a plus sign neither");
	TAP_INT(size_of("10Q"), -EINVAL, "an unknown suffix");
	TAP_INT(size_of("10KB"), -EINVAL, "two letters");
	TAP_INT(size_of("K"), -EINVAL, "a suffix alone");
	TAP_INT(size_of(""), -EINVAL, "the empty string");
	TAP_INT(size_of(" 1"), -EINVAL, "a leading space");
	TAP_INT(size_of("1 "), -EINVAL, "a trailing space");
	TAP_INT(size_of("1.5M"), -EINVAL, "a fraction");
	TAP_OK(!parse_size("18446744073709551615", 1, UINT64_MAX, &v) &&
	       v == UINT64_MAX, "2^64 - 1 bytes");
	TAP_INT(size_of("18446744073709551616"), -ERANGE, "2^64 bytes");
	TAP_INT(size_of("16777216T"), -ERANGE, "2^64 bytes as 16777216T");
	TAP_OK(!parse_size("16777215T", 1, UINT64_MAX, &v) &&
	       v == (uint64_t)16777215 << 40, "16777215T fits");
	v = 7;
	TAP_INT(parse_size("2K", 1, 1024, &v), -ERANGE, "above max");
	TAP_INT(v, 7, "*out untouched on an error");
	TAP_STR(text(10485760), "10M", "10 MiB said as 10M");
	TAP_STR(text(1536 * 1024), "1536K", "1.5 MiB said as 1536K");
	TAP_STR(text(1000), "1000", "1000 bytes without a suffix");
	TAP_STR(text(1ULL << 50), "1024T", "T is the largest suffix");
	TAP_STR(text(0), "0", "0");
	return tap_done();
}
