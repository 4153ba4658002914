/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_OWNTASKS_H
#define PPR_REPORT_OWNTASKS_H
/*
 * pyperf-run's own tasks in a recording, which are not the user's
 * program: record's exec helper (meta helper_pid, perf's workload),
 * and every task an own task starts, until that task execs.  The
 * program's first process is such a task: forked by the helper, it
 * runs pyperf-run's code until it execs the program (and under
 * LeakSanitizer the helper starts a task of its own at exit).
 *
 * A source follows the task records in time order (FORK, COMM with
 * the exec flag, EXIT) and marks each sample of an own task
 * (struct sample's own), which the aggregation stage leaves out.
 * The comm cannot tell: a program may be called pyperf-run too.
 * Every source that reads a recording of record's uses this one set.
 */
#include "compat.h"

struct own_tasks {
	pid_t helper;		/* 0: none (a session not from record) */
	pid_t *tids;		/* started by an own task, not exec'ed */
	size_t nr, alloc;
};

void own_tasks_init(struct own_tasks *o, pid_t helper_pid);
void own_tasks_release(struct own_tasks *o);
/* A task tid started by ptid (a process or a thread). */
void own_tasks_fork(struct own_tasks *o, pid_t ptid, pid_t tid);
/* tid exec'ed a program, or exited: no longer ours (the helper stays). */
void own_tasks_exec(struct own_tasks *o, pid_t tid);
int own_tasks_has(const struct own_tasks *o, pid_t tid);

#endif
