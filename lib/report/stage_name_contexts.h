/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_CONTEXTS_H
#define PPR_REPORT_CONTEXTS_H
/*
 * The context tables of a session (SESSION/maps/ctx-<pid>.tab[.gz],
 * written by the embedded trampoline's context trampolines, format in
 * trampoline/README.md), and the rebuild of a sample's Python stack
 * from them: the innermost context trampoline a sample holds names
 * every Python caller, however much of the stack perf copied.
 *
 * The rebuilt sample keeps the native frames the sample holds: below
 * the innermost Python frame, between two Python frames whose
 * trampolines it holds, and outside the outermost one when it reaches
 * that far; otherwise the frames outside the root seen on an earlier
 * sample of the same process and root context are used.  Context
 * trampoline frames become Python frames ("py::QUALNAME:FILE") in the
 * object CTX_DSO.
 */
#include "compat.h"
#include "report/sample.h"

/* The object rebuilt Python frames are put in (never a perf map). */
#define CTX_DSO "[pyperf contexts]"

struct ctx_db;

/*
 * Read every ctx-<pid>.tab (or .tab.gz) in dir.  *out is NULL when
 * there is none.  A damaged table is read up to the damage (*damaged
 * counts such tables); -1 with err only for what stops the report
 * (out of file descriptors...).
 */
int ctx_db_load(struct ctx_db **out, const char *dir, unsigned *damaged,
		char *err, size_t errlen);
void ctx_db_free(struct ctx_db *db);

/* Parse one table from memory (tests, fuzzing); 0, or -1 if damaged. */
int ctx_db_add(struct ctx_db **db, const unsigned char *buf, size_t len);

enum ctx_result {
	CTX_NONE = 0,	/* no context trampoline: the sample as it is */
	CTX_ROOT,	/* rebuilt up to a root: the Python stack is whole */
	CTX_UNKNOWN,	/* rebuilt up to a context whose parent is unknown
			   (the context cap): the sample's own frames above */
};

/*
 * Rebuild sample in into *out (its frames live in db's scratch until
 * the next call).  in is not changed.
 */
enum ctx_result ctx_db_rebuild(struct ctx_db *db, const struct sample *in,
			       struct sample *out);

/*
 * Did the sample at time_ns (perf's clock: CLOCK_MONOTONIC in jit mode,
 * recorded with -k 1) run before pid's trampoline started, in the
 * interpreter's start-up?  0 when not known.
 */
int ctx_db_before_start(struct ctx_db *db, pid_t pid, uint64_t time_ns);

/* Counts, for tests and messages. */
struct ctx_db_stats {
	size_t tables;
	size_t contexts;
	size_t functions;
};
void ctx_db_stats(const struct ctx_db *db, struct ctx_db_stats *st);

#endif
