/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_TAP_H
#define PPR_TAP_H
/*
 * A tiny TAP producer for the C unit tests: each binary prints
 * "ok N - ..." lines and a plan, and exits non-zero on failure.
 */
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define TAP_OK(cond, ...)                                                  \
	do {                                                               \
		int tap_ok_ = !!(cond);                                     \
		tap_n++;                                                   \
		printf("%s %d - ", tap_ok_ ? "ok" : "not ok", tap_n);       \
		printf(__VA_ARGS__);                                       \
		printf("\n");                                              \
		if (!tap_ok_) {                                            \
			tap_failed++;                                      \
			printf("#   failed at %s:%d: %s\n", __FILE__,      \
			       __LINE__, #cond);                           \
		}                                                          \
	} while (0)

#define TAP_STR(got, want, ...)                                            \
	do {                                                               \
		const char *tap_g_ = (got), *tap_w_ = (want);              \
		int tap_c_ = tap_g_ && tap_w_ && !strcmp(tap_g_, tap_w_);  \
		TAP_OK(tap_c_, __VA_ARGS__);                               \
		if (!tap_c_)                                               \
			printf("#   got '%s', want '%s'\n",                \
			       tap_g_ ? tap_g_ : "(null)", tap_w_);        \
	} while (0)

#define TAP_INT(got, want, ...)                                            \
	do {                                                               \
		long long tap_g_ = (long long)(got), tap_w_ = (long long)(want); \
		TAP_OK(tap_g_ == tap_w_, __VA_ARGS__);                     \
		if (tap_g_ != tap_w_)                                      \
			printf("#   got %lld, want %lld\n", tap_g_, tap_w_); \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
