/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_SESSION_H
#define PPR_SESSION_H
#include "compat.h"
#include "strbuf.h"

#include <sys/types.h>

/*
 * The session directory `pyperf-run record` writes and `report` reads
 * Layout (mode 0700):
 *
 *   perf.data   the recording; in jit mode already `perf inject --jit`ed
 *   meta        key=value lines (see below)
 *   maps/       perf-<pid>.map of every process of the run
 *   jit/        jit-<pid>.dump and jitted-<pid>-<n>.so of every process
 *   buildid/    perf's --buildid-dir for this session: only the jitted
 *               objects (`perf --buildid-dir DIR/buildid script -i
 *               DIR/perf.data` resolves Python frames with it)
 *
 * A session is built in a temporary directory next to its final place
 * ("<dir>.tmp-XXXXXX") and renamed into place when complete; an
 * existing session there is first renamed to "<dir>.old" (replacing an
 * older "<dir>.old"), as perf does with perf.data.
 *
 * meta: one "key=value" line each, in the order written; keys are
 * [a-z0-9_]; in values a backslash is written "\\" and a newline "\n",
 * so a value always stays on its line.  Keys written by record: format
 * (1), mode, trampoline, python, python_version, perf_version,
 * call_graph, stack_size, frequency, event, command (shell-quoted, for
 * display), exit_status, start_time, end_time (UNIX seconds with
 * decimals), samples, max_stack (kernel.perf_event_max_stack when
 * recording: the frame cap of frame-pointer chains), truncated (share
 * of the judged samples whose stacks are cut, 0..1, as profile_load()
 * judges them: written when the session is complete, just before it is
 * committed, by rewriting meta atomically), perf (the absolute path of
 * the perf that recorded it), pids (space-separated: the program's
 * processes), helper_pid (the pid of pyperf-run's own exec helper,
 * which perf records too: its samples are not the program's),
 * program_pid (the program's first process, which the helper starts:
 * its samples before its exec, under the helper's comm, are the
 * helper's vfork and execve, not the program's), cwd, max_size
 * (--max-size, bytes) and max_size_stop (seconds after start_time
 * when perf.data reached it and recording stopped; the program ran on
 * to end_time unrecorded).
 */

#define SESSION_DEFAULT_DIR "pyperf.data"
#define SESSION_META_FORMAT 1

struct session_meta {
	struct strvec keys;
	struct strvec values;
};

#define SESSION_META_INIT { STRVEC_INIT, STRVEC_INIT }

void session_meta_init(struct session_meta *m);
void session_meta_release(struct session_meta *m);
/* Set (replace or append) key to the formatted value. */
void session_meta_set(struct session_meta *m, const char *key,
		      const char *fmt, ...) PPR_PRINTF(3, 4);
/* The value of key, or NULL.  Owned by m. */
const char *session_meta_get(const struct session_meta *m, const char *key);

/* Append m to out as the meta file's text (escaped as above). */
void session_meta_format(const struct session_meta *m, struct strbuf *out);
/* Write m to fp (escaped as above).  Returns 0 or -1 on a write error. */
int session_meta_print(const struct session_meta *m, FILE *fp);
/*
 * Parse meta text into m (appending).  Empty lines and lines starting
 * with '#' are skipped; lines without '=' or with a bad key are errors.
 * Returns 0, or -1 with err filled.
 */
int session_meta_parse(struct session_meta *m, const char *text,
		       size_t len, char *err, size_t errlen);
/*
 * Write DIR/meta atomically (a temporary file, fsync, rename), mode 0600.
 * Returns 0, or -1 with err filled.
 */
int session_meta_write(const char *dir, const struct session_meta *m,
		       char *err, size_t errlen);
/*
 * An open session, for report and the profile loader: the directory
 * checked, its meta read and its format checked, and the paths of its
 * parts.
 */
struct session {
	char *dir;		/* as given to session_open() */
	char *perf_data;	/* DIR/perf.data: a regular file, not empty */
	off_t perf_data_size;
	char *buildid;		/* DIR/buildid, or NULL when it is not a
				   directory (perf's --buildid-dir) */
	char *maps;		/* DIR/maps (perf-<pid>.map files; may be
				   missing) */
	struct session_meta meta;	/* DIR/meta */
};

/*
 * session_open() flags.  SESSION_ANY_META: a missing, unreadable or
 * foreign meta file is no error (s->meta is then empty): for running
 * perf report, which reads any perf.data.
 */
#define SESSION_ANY_META 1u

/*
 * Open the session at dir: a directory with a non-empty perf.data and a
 * meta file of format SESSION_META_FORMAT.  Returns 0, or a negative
 * errno (-ENOENT: no such directory) with err filled ("'dir' is not a
 * pyperf-run session (no meta file)", "session 'dir' has format 2;
 * ...").  Release with session_close(), also after a failure.
 */
int session_open(struct session *s, const char *dir, unsigned flags,
		 char *err, size_t errlen);
void session_close(struct session *s);

/*
 * Can a new session be put at dir?  Yes when nothing is there, or when
 * it is a directory holding a session (meta or perf.data) or nothing;
 * then *exists says whether it will be rotated to <dir>.old.  Anything
 * else (a file, a directory with other contents) is refused, so that
 * `-o src` never moves a user's directory away.  Returns 0, or -1 with
 * err filled.
 */
int session_check_target(const char *dir, int *exists,
			 char *err, size_t errlen);

/*
 * Create the temporary session directory next to dir, with maps/, jit/
 * and buildid/, mode 0700.  *tmp (caller owns it) is its path.  Returns
 * 0, or -1 with err filled.
 */
int session_create_tmp(const char *dir, char **tmp, char *err,
		       size_t errlen);

/*
 * Put the finished tmp in place of dir, keeping an existing session as
 * <dir>.old.  Returns 0, or -1 with err filled (tmp is then left where
 * it is, for the caller to remove or point at).
 */
int session_commit(const char *tmp, const char *dir, char *err,
		   size_t errlen);

#endif
