/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_STATUS_H
#define PPR_RECORD_STATUS_H
#include "compat.h"

/*
 * The internal exec helper's status file, one "key=value" line each:
 * "exec=<pid>" (the helper's own pid, first), "program=<pid>" (the
 * program's, once started: until its exec that process still runs the
 * helper's code, see meta program_pid in session.h), then
 * "status=<wait status>" once the program has ended, or
 * "error=<errno>" when it could not be started.
 */
enum record_status_kind {
	RECORD_STATUS_NONE = 0,	/* no status: the program never started */
	RECORD_STATUS_WAIT,	/* value is a wait status */
	RECORD_STATUS_ERRNO,	/* value is the exec errno */
	RECORD_STATUS_PID,	/* only for writing the exec= line */
	RECORD_STATUS_PROGRAM,	/* only for writing the program= line */
};
/* Append one line to fd.  Returns 0 or -errno. */
int record_status_write(int fd, enum record_status_kind kind, int value);
/*
 * Read the file; *exec_pid and *program_pid (each when not NULL) get
 * the helper's and the program's pid, or 0.
 */
enum record_status_kind record_status_read(const char *path, int *value,
					   pid_t *exec_pid,
					   pid_t *program_pid);

#endif
