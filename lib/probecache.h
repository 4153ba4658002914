/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PROBECACHE_H
#define PPR_PROBECACHE_H
#include "compat.h"
#include "perfversion.h"
#include "strbuf.h"

/*
 * What `pyperf-run doctor --probe` learnt about a perf binary, kept so
 * that record (and doctor without --probe) can trust it later.
 *
 * The cache is ${XDG_CACHE_HOME:-$HOME/.cache}/pyperf-run/probe-cache
 * (directory 0700, file 0600, replaced atomically), one line per perf:
 *   v1 <tab> SIZE <tab> MTIME_NS <tab> VERSION <tab> JIT_FIX <tab>
 *   UNWINDER <tab> WHEN <tab> PATH
 * An entry counts only while the binary at PATH (resolved with
 * realpath) still has that size, modification time and `perf version`
 * line: a perf upgraded or rebuilt in place is probed afresh.
 */

struct probe_verdict {
	enum tristate jit_fix;	/* DWARF unwinding crosses jitted code */
	char unwinder[16];	/* "libunwind", "libdw" or "" (unknown) */
	long long when;		/* UNIX time of the probe */
};

/*
 * The verdict for the perf at perf_path (a path; "perf" alone is looked
 * up in PATH) whose `perf version` first line is version_line.  Returns
 * 0 with out filled, -ENOENT when there is no valid entry, or another
 * -errno.  Never prints.
 */
int probe_cache_get(const char *perf_path, const char *version_line,
		    struct probe_verdict *out);

/*
 * Store (replace) the verdict for that perf.  Returns 0, or -1 with err
 * filled.
 */
int probe_cache_put(const char *perf_path, const char *version_line,
		    const struct probe_verdict *v, char *err, size_t errlen);

/* The cache file's path (caller frees), or NULL without a home. */
char *probe_cache_file(void);

/*
 * doctor's cache files (this one, lib/doctor/debugpkg.c's):
 * doctor_cache_file() is ${XDG_CACHE_HOME:-$HOME/.cache}/pyperf-run/NAME
 * (caller frees), or NULL without a home.  doctor_cache_read() reads
 * one into sb (at most 64 KiB) only when it is a regular file of this
 * user that nobody else can write (no symlink followed); 0 or -errno.
 */
char *doctor_cache_file(const char *name);
int doctor_cache_read(const char *file, struct strbuf *sb);

#endif
