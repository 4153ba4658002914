/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record through perf record (run_priv.h's record_perf_backend): the
 * trampoline's environment, perf record with the program under the
 * exec helper, perf inject when the mode needs it, the map and dump
 * files into the session.
 */
#include "compat.h"
#include "record/run_priv.h"
#include "alloc.h"
#include "embedded.h"
#include "perfcmd.h"
#include "record/checks.h"
#include "record/collect.h"
#include "record/jitdump.h"
#include "spawn.h"
#include "sysprobe.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The perf record commands of r's session (see perfcmd_session_argv()). */
static void perf_commands(struct record_run *r, const char *const *target)
{
	struct perfcmd_session spec;

	memset(&spec, 0, sizeof(spec));
	spec.perf = r->perf;
	spec.mode = &r->mode;
	spec.freq = r->freq;
	spec.event = r->o->event;
	spec.extra = r->o->perf_args;
	spec.session = r->abs_tmp;
	spec.target = target;
	spec.no_bpf_event = r->no_bpf_event;
	spec.compress = perfcmd_compress_decide(&r->mode, r->pv.zstd,
						r->takes_buildid_mmap,
						sysprobe_mmap_build_id(),
						r->py_root != NULL,
						r->o->perf_args);
	spec.wall = r->wall;
	spec.max_size = r->o->max_size;
	perfcmd_session_argv(&spec, &r->perf_argv, &r->inject_argv);
}

/*
 * The session directory exists: the trampoline's environment, and perf
 * record's commands with the exec helper as perf's workload.
 */
static enum record_outcome perf_prepare(struct record_run *r)
{
	struct strvec work = STRVEC_INIT;
	char err[PPR_ERR_LEN];

	/*
	 * perf inject --jit finds the jitdump by its marker's mmap record;
	 * in a compressed recording (perf 6.1 and 6.12 tried) it finds
	 * none and writes no jitted code: the Python frames would be
	 * unnamed and most stacks cut.  Refused before the program runs.
	 */
	if (mode_needs_inject(&r->mode) &&
	    perfcmd_args_compress(r->o->perf_args)) {
		record_say(r, RECORD_MSG_ERROR, "--perf-arg: perf inject "
			   "--jit, which this jit mode needs, does not read "
			   "the jitdump of a compressed recording (-z): the "
			   "Python frames would be unnamed");
		record_say(r, RECORD_MSG_HINT, "leave -z and "
			   "--compression-level out of --perf-arg");
		return RECORD_FAILED;
	}
	if (r->mode.trampoline == TRAMPOLINE_EMBEDDED) {
		/* see record_jit_dir(): libdw-unwinding perfs need it */
		if (mode_needs_inject(&r->mode)) {
			r->jit_dir = record_jit_dir(err, sizeof(err));
			if (!r->jit_dir)
				record_say(r, RECORD_MSG_WARNING, "%s: a perf "
					   "that unwinds with libdw will miss "
					   "the Python frames", err);
		}
		r->dump_dir = r->jit_dir ? xstrdup(r->jit_dir) :
			xasprintf("%s/%s", r->abs_tmp,
				  mode_needs_inject(&r->mode) ? "jit"
								: "maps");
		r->srcdirs[1] = r->dump_dir;
		/*
		 * Context trampolines write perf maps in both modes: jit
		 * mode only needs perf to unwind native code up to them.
		 */
		if (embedded_prepare(&r->py, r->mode.contexts ? MODE_PERF :
				     r->mode.name, r->dump_dir, &r->env_set,
				     err, sizeof(err))) {
			record_say(r, RECORD_MSG_ERROR, "cannot prepare the "
				   "embedded trampoline: %s", err);
			return RECORD_FAILED;
		}
		if (r->mode.contexts)
			strvec_push(&r->env_set, EMBEDDED_CONTEXTS_ENV);
	} else {
		perfcmd_python_switches(r->mode.name, NULL, &r->env_set);
		/* CPython writes its map or jitdump in the root's /tmp */
		if (r->py_root) {
			r->root_tmp = xasprintf("%s/tmp", r->py_root);
			r->srcdirs[1] = r->root_tmp;
		}
	}
	/*
	 * perf puts its own directories before the caller's PATH (its
	 * perf-core and bin directories) in what its workload inherits:
	 * the exec helper gives the program the PATH record was given.
	 */
	if (getenv("PATH"))
		strvec_pushf(&r->env_set, RECORD_PATH_ENV "=%s", getenv("PATH"));
	spawn_env_build(&r->env, r->env_set.v);

	r->errfd = fcntl(STDERR_FILENO, F_DUPFD, 10);
	if (r->errfd < 0) {
		record_say(r, RECORD_MSG_ERROR, "cannot duplicate stderr: %s",
		    strerror(errno));
		return RECORD_FAILED;
	}
	strvec_push(&work, r->self);
	strvec_push(&work, "record");
	strvec_push(&work, RECORD_INTERNAL_EXEC);
	strvec_push(&work, r->statusf);
	strvec_pushf(&work, "%d", r->errfd);
	strvec_push(&work, r->program_path);
	strvec_push(&work, "--");
	strvec_pushv(&work, r->target.v);

	perf_commands(r, (const char *const *)work.v);
	strvec_clear(&work);
	return RECORD_OK;
}

/*
 * perf record with the program under the exec helper; the program's
 * status from the helper's file, perf's words said, perf.data recovered
 * when perf did not finish it, then perf inject when the mode needs it.
 */
static enum record_outcome perf_execute(struct record_run *r)
{
	const struct record_options *o = r->o;
	const char *output = mode_needs_inject(&r->mode) ? r->raw : r->data;
	struct strbuf perr = STRBUF_INIT;
	enum record_status_kind kind;
	enum record_outcome ret = RECORD_FAILED;
	char err[PPR_ERR_LEN];
	long long recovered;
	int st, value = 0;

	/* so that a helper orphaned by a dying perf is still ours */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r->start = record_now();
	st = record_run_perf(r, &perr, err, sizeof(err));
	r->end = record_now();
	record_drop_perf_progress(&perr);
	close(r->errfd);
	r->errfd = -1;
	if (st < 0) {
		record_say(r, RECORD_MSG_ERROR, "%s", err);
		goto out;
	}
	kind = record_status_read(r->statusf, &value, &r->helper_pid,
				  &r->program_pid);
	if (kind == RECORD_STATUS_NONE && r->helper_pid > 0) {
		/*
		 * perf ended (killed?) while the program runs on: wait for
		 * it, so that its status is still ours, and keep what perf
		 * wrote.
		 */
		char desc[128];

		spawn_describe_status(st, desc, sizeof(desc));
		record_say(r, RECORD_MSG_WARNING, "perf record %s before the "
			   "program ended: the recording stops there", desc);
		kind = record_wait_helper(r->statusf, r->helper_pid, &value);
	}
	unlink(r->statusf);
	if (kind == RECORD_STATUS_NONE) {
		ret = record_explain_perf_failure(r, st, perr.buf);
		goto out;
	}
	if (kind == RECORD_STATUS_ERRNO) {
		record_say(r, RECORD_MSG_ERROR, "cannot run '%s': %s",
			   r->target.v[0], strerror(value));
		ret = value == ENOENT ? RECORD_NOT_FOUND : RECORD_CANNOT_EXEC;
		goto out;
	}
	r->wait_status = value;
	if (r->max_size_stop > 0) {
		/* perf stopped writing there, and waited for the program */
		struct stat sb;

		if (!stat(output, &sb))
			r->max_size_bytes = (uint64_t)sb.st_size;
		record_say_max_size_stop(r, ": the program ran on to its end, "
					 "not recorded");
		record_drop_perf_lost_warning(&perr);
	}
	r->nospace = strstr(perr.buf, strerror(ENOSPC)) != NULL;
	if (r->nospace) {
		record_say(r, RECORD_MSG_ERROR, "perf record could not write "
		    "'%s/perf.data': %s", o->output, strerror(ENOSPC));
		record_say(r, RECORD_MSG_HINT, "free some space there, or "
			   "record into another file system with -o");
	} else if (perr.len) {
		record_say(r, RECORD_MSG_NOTE, "perf record said:");
		record_say_output(r, perr.buf);
	}
	/*
	 * perf record ended before finishing its file (killed, or out of
	 * space): its header says there is no data.  Count the records
	 * that did reach the file.
	 */
	recovered = perfdata_recover(output);
	if (recovered > 0)
		record_say(r, RECORD_MSG_WARNING, "perf record did not finish "
		    "'%s/perf.data'%s: keeping the %lld bytes of samples it "
		    "wrote", o->output, r->nospace ? " (no space left)" :
		    (WIFSIGNALED(st) ? " (it was killed)" : ""), recovered);

	if (access(output, F_OK) < 0) {
		record_say(r, RECORD_MSG_ERROR, "perf record wrote no data");
		record_say_output(r, perr.buf);
		goto out;
	}
	if (r->py_root) {
		unsigned n;
		int e = perfdata_root_paths(output, r->py_root, &n);

		/* see perfdata_root_paths(): perf inject needs it too */
		if (e < 0)
			record_say(r, RECORD_MSG_WARNING, "cannot name the "
				   "files of the program in '%s' by their path "
				   "here: %s: its stacks and jitted code will "
				   "be missing", r->py_root,
				   e == -ENOTSUP ? "the data are compressed"
						 : strerror(-e));
		else if (!n)
			record_say(r, RECORD_MSG_WARNING, "no process of the "
				   "recording ran in '%s' after chroot: the "
				   "files of the program there were looked for "
				   "here, its stacks and jitted code may be "
				   "missing", r->py_root);
	}
	if (mode_needs_inject(&r->mode))
		record_inject(r);
	ret = RECORD_OK;
out:
	strbuf_release(&perr);
	return ret;
}

/* The run's map and dump files into the session; the jit directory gone. */
static void perf_collect(struct record_run *r)
{
	char err[PPR_ERR_LEN];
	unsigned moved = 0;

	if (record_collect(r->abs_tmp, r->srcdirs, r->scan.pids,
			   r->scan.nr_pids, r->start, &moved, err,
			   sizeof(err)))
		record_say(r, RECORD_MSG_WARNING, "%s", err);
	if (r->mode.contexts) {
		char *maps = xasprintf("%s/maps", r->abs_tmp);
		unsigned packed;

		if (record_pack_contexts(maps, &packed, err, sizeof(err)))
			record_say(r, RECORD_MSG_WARNING, "%s", err);
		free(maps);
	}
	if (r->jit_dir && record_jit_dir_remove(r->jit_dir) < 0)
		record_say(r, RECORD_MSG_WARNING, "cannot remove '%s'",
			   r->jit_dir);
}

const struct record_backend record_perf_backend = {
	.prepare = perf_prepare,
	.execute = perf_execute,
	.collect = perf_collect,
};
