/* SPDX-License-Identifier: GPL-2.0-only */
/* The session's meta file: what was recorded, how and when (see run_priv.h). */
#include "compat.h"
#include "record/run_priv.h"

#include <stdlib.h>
#include <unistd.h>

void record_write_meta(struct record_run *r)
{
	struct session_meta *m = &r->meta;
	struct strbuf sb = STRBUF_INIT;
	char pv[64], cwd[4096];
	char *abs;
	size_t i;

	if (r->perf)
		perf_version_format(&r->pv, pv, sizeof(pv));
	else
		pv[0] = '\0';
	session_meta_set(m, "format", "%d", SESSION_META_FORMAT);
	session_meta_set(m, "mode", "%s", mode_name_str(r->mode.name));
	session_meta_set(m, "trampoline", "%s",
			 mode_trampoline_str(r->mode.trampoline));
	if (r->python)
		session_meta_set(m, "python", "%s", r->python);
	if (r->have_py)
		session_meta_set(m, "python_version", "%s", r->py.version);
	if (r->perf) {
		session_meta_set(m, "perf_version", "%s", pv);
		/* absolute, so that report finds it from anywhere */
		abs = realpath(r->perf, NULL);
		session_meta_set(m, "perf", "%s", abs ? abs : r->perf);
		free(abs);
	}
	session_meta_set(m, "call_graph", "%s", r->mode.call_graph);
	session_meta_set(m, "stack_size", "%u", r->mode.stack_size);
	session_meta_set(m, "frequency", "%u", r->freq);
	session_meta_set(m, "event", "%s",
			 r->o->event ? r->o->event : PERFCMD_EVENT_DEFAULT);
	/* a wall session: how its off-CPU intervals were recorded */
	if (r->wall != PERFCMD_WALL_NONE)
		session_meta_set(m, "wall", "%s", perfcmd_wall_name(r->wall));
	else if (r->backend == &record_walker_backend && r->o->wall)
		session_meta_set(m, "wall", "walker");
	if (r->o->kind == RECORD_TARGET_PIDS) {
		for (i = 0; i < (size_t)r->o->nr_pids; i++)
			strbuf_addf(&sb, "%s%d", i ? "," : "-p ",
				    (int)r->o->pids[i]);
		session_meta_set(m, "attached", "%s", sb.buf + 3);
	} else {
		perfcmd_quote_argv(&sb, NULL,
				   (const char *const *)r->target.v);
	}
	session_meta_set(m, "command", "%s", sb.buf);
	strbuf_reset(&sb);
	if (r->o->kind != RECORD_TARGET_PIDS)
		session_meta_set(m, "exit_status", "%d",
				 spawn_exit_code(r->wait_status));
	session_meta_set(m, "start_time", "%.6f", r->start);
	session_meta_set(m, "end_time", "%.6f", r->end);
	session_meta_set(m, "samples", "%lu", r->scan.samples);
	/*
	 * --max-size: the limit, and when it was reached (seconds after
	 * start_time): the samples end there, the program ran on to
	 * end_time (report says so, stage_quality.c)
	 */
	if (r->o->max_size)
		session_meta_set(m, "max_size", "%llu",
				 (unsigned long long)r->o->max_size);
	if (r->max_size_stop > 0)
		session_meta_set(m, "max_size_stop", "%.3f",
				 r->max_size_stop - r->start);
	if (r->kernel.max_stack.have && r->kernel.max_stack.value > 0)
		session_meta_set(m, "max_stack", "%ld",
				 r->kernel.max_stack.value);
	for (i = 0; i < r->scan.nr_pids; i++)
		if (r->scan.pids[i] != r->helper_pid)
			strbuf_addf(&sb, "%s%d", sb.len ? " " : "",
				    (int)r->scan.pids[i]);
	session_meta_set(m, "pids", "%s", sb.buf);
	if (r->helper_pid > 0)
		session_meta_set(m, "helper_pid", "%d", (int)r->helper_pid);
	/*
	 * The program's first process: from its start to its exec it ran
	 * the helper's last lines (vfork, execve), under the helper's comm;
	 * the report drops its samples taken before that exec.
	 */
	if (r->program_pid > 0)
		session_meta_set(m, "program_pid", "%d", (int)r->program_pid);
	if (getcwd(cwd, sizeof(cwd)))
		session_meta_set(m, "cwd", "%s", cwd);
	strbuf_release(&sb);
}
