/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PERFVERSION_H
#define PPR_PERFVERSION_H
#include "compat.h"

/*
 * `perf version` output, parsed.  Distro strings are many:
 *   "perf version 6.1.187"              -> 6.1.187
 *   "perf version 6.7-3"                -> 6.7, patch unknown ("-3" is a
 *                                          distro revision, not 6.7.3)
 *   "perf version 6.8.0-rc1"            -> 6.8.0, extra "-rc1"
 *   "perf version 6.11.4-200.fc40.x86_64" -> 6.11.4
 *   "perf version 5.15.167.4-microsoft-standard-WSL2" -> 5.15.167
 */
enum tristate {
	TRI_NO = 0,
	TRI_YES = 1,
	TRI_UNKNOWN = 2,
};

struct perf_version {
	int major, minor;
	int patch;		/* -1 when the string does not give one */
	char extra[64];		/* what follows the numbers, e.g. "-rc1" */
	/*
	 * Built with libunwind ("libunwind: [ on ]" in `perf version
	 * --build-options`): TRI_NO means a perf that unwinds DWARF with
	 * libdw (Fedora's), TRI_UNKNOWN that it was not asked.
	 */
	enum tristate libunwind;
	/*
	 * Built with zstd ("zstd: [ on ]"): perf record -z compresses.
	 * TRI_UNKNOWN when not asked.
	 */
	enum tristate zstd;
};

/*
 * "NAME: [ on" / "[ OFF" in `perf version --build-options` output: 1,
 * 0, or -1 when NAME is not listed.
 */
int perf_build_option(const char *text, const char *name);

/* "yes", "no", "unknown" */
const char *tristate_name(enum tristate t);

/*
 * Parse the output of `perf version` (with or without the "perf version"
 * prefix and trailing newline).  Returns 0 or -EINVAL.
 */
int perf_version_parse(const char *text, struct perf_version *v);

/* Format as "6.1.187" or "6.7" (plus extra) into buf. */
void perf_version_format(const struct perf_version *v, char *buf,
			 size_t len);

/*
 * Does this perf carry the fixes that let DWARF unwinding cross jitted
 * code (v6.8-rc1; stable backports 6.7.2, 6.6.14 and 6.1.91)?  TRI_YES
 * from those versions on; anything older is TRI_UNKNOWN, never TRI_NO:
 * distributions backport fixes, so only a probe recording can say no.
 * why gets a one-line explanation.
 */
enum tristate perf_version_jit_fix(const struct perf_version *v,
				   char *why, size_t whylen);

#endif
