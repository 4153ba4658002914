/* SPDX-License-Identifier: GPL-2.0-only */
/* pyperf-run's own tasks in a recording (report/src_owntasks.h). */
#include "compat.h"
#include "alloc.h"
#include "report/src_owntasks.h"

void own_tasks_init(struct own_tasks *o, pid_t helper_pid)
{
	memset(o, 0, sizeof(*o));
	o->helper = helper_pid > 0 ? helper_pid : 0;
}

void own_tasks_release(struct own_tasks *o)
{
	free(o->tids);
	memset(o, 0, sizeof(*o));
}

int own_tasks_has(const struct own_tasks *o, pid_t tid)
{
	size_t i;

	if (o->helper && tid == o->helper)
		return 1;
	/* a handful at most: the program's first process, a helper thread */
	for (i = 0; i < o->nr; i++)
		if (o->tids[i] == tid)
			return 1;
	return 0;
}

void own_tasks_fork(struct own_tasks *o, pid_t ptid, pid_t tid)
{
	if (!o->helper || tid == ptid || !own_tasks_has(o, ptid) ||
	    own_tasks_has(o, tid))
		return;
	ALLOC_GROW(o->tids, o->nr + 1, o->alloc);
	o->tids[o->nr++] = tid;
}

void own_tasks_exec(struct own_tasks *o, pid_t tid)
{
	size_t i;

	/*
	 * The helper's own exec is perf starting it (pyperf-run itself):
	 * it stays ours; it never execs the program.
	 */
	for (i = 0; i < o->nr; i++)
		if (o->tids[i] == tid) {
			o->tids[i] = o->tids[--o->nr];
			return;
		}
}
