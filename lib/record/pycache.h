/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_PYCACHE_H
#define PPR_RECORD_PYCACHE_H
#include "compat.h"

struct pyinfo;

/*
 * pyinfo_probe() with a per-user cache (next to paths_cache_dir(), in
 * "probe/"): running the interpreter costs 50-100 ms per record.  An
 * entry is used only for the same path, the same executable (device,
 * inode, size, modification time), the same PYTHONHOME and PYTHONPATH
 * and the same pyvenv.cfg; and only while Python.h is still there (or
 * still missing) as the probe said.  Failures, and launchers that are
 * not the interpreter they run (sys.executable is another file, e.g. a
 * pyenv shim), are never cached; a cache that cannot be read or written
 * is skipped silently.  *fresh is 1 when the interpreter was run.
 */
int record_probe_python(const char *python, struct pyinfo *info,
			int *fresh, char *err, size_t errlen);
/*
 * Keep a probe (*fresh was 1) for the next time; record calls it once
 * the recording succeeded, so that a failed run leaves nothing behind.
 */
void record_probe_remember(const char *python, const struct pyinfo *info);

#endif
