/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PATHS_H
#define PPR_PATHS_H
#include "compat.h"

/*
 * Where pyperf-run finds its own files.
 *
 * The trampoline directory holds the embedded trampoline's sources
 * (src/, with build.sh), a SOURCE_ID file (a checksum of those sources)
 * and one prebuilt directory per interpreter (named by its key, see
 * lib/embedded.h).  It is, in this order:
 *   1. $PYPERF_LIBDIR when set (tests, relocated installs);
 *   2. <dir of the running binary>/trampoline when it holds the file
 *      .build-tree (the binary runs from its build directory);
 *   3. PPR_LIBDIR, the configured $(libdir)/pyperf-run.
 */

/* The trampoline directory (static storage; never NULL). */
const char *paths_trampoline_dir(void);

/*
 * The directory of the running executable (from /proc/self/exe), or
 * NULL when it cannot be read.  Static storage.
 */
const char *paths_self_dir(void);

/*
 * The per-user cache of first-use builds:
 * ${XDG_CACHE_HOME:-$HOME/.cache}/pyperf-run/trampoline (a relative
 * XDG_CACHE_HOME is ignored, as the XDG specification says).  Caller
 * owns the result; NULL with err filled when there is no home.
 */
char *paths_cache_dir(char *err, size_t errlen);

/*
 * mkdir -p: create path and its missing parents with mode (existing
 * directories are left as they are).  Returns 0 or -errno.
 */
int paths_mkdirs(const char *path, mode_t mode);

/*
 * Remove a directory tree (no symlink is followed).  Returns 0 or
 * -errno of the first failure.
 */
int paths_remove_tree(const char *path);

#endif
