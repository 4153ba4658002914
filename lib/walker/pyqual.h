/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_PYQUAL_H
#define PPR_WALKER_PYQUAL_H
/*
 * Qualified names for the code objects of CPython 3.8-3.10, which hold
 * only co_name ("method", not "Delta.method"): found from outside the
 * process the way the trampoline finds them from inside
 * (trampoline/_pyperf_trampoline.c, entry_name() and name_children()),
 * so that both routes give a function the same name:
 *
 *   - a function object in a module's dict, or in a class there (also
 *     behind staticmethod, classmethod, property; classes nested two
 *     deep), names its code with its __qualname__;
 *   - the code objects among a named code object's constants are named
 *     as the compiler names them: "Q.<locals>.child" below a function
 *     (not a comprehension), "Q.child" below a class body or a
 *     comprehension.  These lexical names win over a function's
 *     __qualname__ (which functools.wraps may have changed), as the
 *     trampoline's do once the enclosing code has run.
 *
 * Only the modules whose __file__ is the code object's co_filename are
 * walked (each module's __file__ is read once; for "<frozen NAME>" code,
 * the module NAME without one, or importlib's _frozen_importlib and
 * _frozen_importlib_external): a walk reads one module's objects, not
 * the whole program's.  They are walked again when
 * a code object of that file is asked for that the last walk did not
 * name, at most every 20 ms doubling to 8 s per file while walks find
 * nothing new: code whose function no module reaches (a lambda passed at
 * module level, a function deleted, code compiled from a string) stays
 * unqualified, and says so (struct pycode's qualified).
 */
#include "compat.h"
#include "walker/pytarget.h"

struct pyqual;

struct pyqual *pyqual_new(void);
void pyqual_free(struct pyqual *q);

/*
 * The qualified name of the code object at code, of source file file
 * (its co_filename), in t's process (owned by q), or NULL when none is
 * known; walks the file's modules when due (see above).  now_ns:
 * CLOCK_MONOTONIC.
 */
const char *pyqual_lookup(struct pyqual *q, const struct pytarget *t,
			  uint64_t code, const char *file, uint64_t now_ns);

/* Forget pid (an exec: a new program; an exit). */
void pyqual_forget(struct pyqual *q, pid_t pid);

/* Module walks done, for the tests and record's -v. */
uint64_t pyqual_walks(const struct pyqual *q);

#endif
