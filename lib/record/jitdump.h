/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_JITDUMP_H
#define PPR_RECORD_JITDUMP_H
#include "compat.h"

/* Jitdump files: their repair and the directory they are written to. */

/*
 * Repair a jitdump file in place when records are followed by garbage:
 * CPython 3.13.0 writes its jitdump through a stdio buffer that a
 * fork()ed child flushes a second time, leaving a stray fragment after
 * which perf inject stops reading.  The fragments are dropped and the
 * valid records kept (found again by their headers); a code load
 * seen twice is dropped with its unwinding record (perf would rewrite
 * the object without the unwinding information).  A dump without even
 * a header (a process that ended with _exit() before its buffer was
 * flushed) gets an empty header for process pid, because perf inject
 * fails on the whole recording otherwise.  Only call it when no
 * process writes the file any more.  Returns the number of bytes
 * dropped (0: the file was fine and is untouched), or -errno.
 */
long record_repair_jitdump(const char *path, pid_t pid);

/*
 * A private directory for the embedded trampoline's jitdump while the
 * program runs, named "/tmp/jitted-pyperf-run.XXXXXX" (mode 0700):
 * perf inject names the objects it writes after the dump's directory,
 * and perf's libdw unwinder only treats an object whose path begins
 * with "/tmp/jitted-" as jitted code (its load address is the map's
 * start); anywhere else every Python frame is lost.  Returns the path
 * (free it), or NULL with err filled when /tmp cannot hold it (not
 * writable, or mounted noexec: the dump must be mapped executable).
 */
char *record_jit_dir(char *err, size_t errlen);

/* Empty (files only: nothing else is made there) and remove it. */
int record_jit_dir_remove(const char *dir);

#endif
