/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_PYTHREADS_H
#define PPR_WALKER_PYTHREADS_H
/*
 * The names Python gives its threads (threading.Thread.name:
 * "MainThread", "Thread-3 (work)", or the program's own), read from
 * outside the process: CPython 3.8-3.13 leave the OS thread's name as
 * the program's (the comm), so a profile's threads would be told apart
 * by number only.  Read through pyobj.h: sys.modules["threading"],
 * its _active dict (ident -> Thread), each Thread's _name by its
 * _native_id (the OS thread id, set when the thread starts; 3.8+).
 * Threads the threading module does not know (started with _thread, or
 * by C code) have no name here.
 */
#include "compat.h"
#include "walker/pycode.h"
#include "walker/pytarget.h"

/*
 * Read the names of t's threads into c (pycode_thread_set()).  Returns
 * how many threads were named that had no name before.
 */
size_t pythreads_read(struct pycode_cache *c, const struct pytarget *t);

#endif
