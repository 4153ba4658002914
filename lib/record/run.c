/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pipeline of `pyperf-run record` (see run.h): prepare, execute,
 * finish.  Messages go to the caller's callback; nothing prints.
 */
#include "compat.h"
#include "record/run_priv.h"
#include "alloc.h"
#include "embedded.h"
#include "fileio.h"
#include "paths.h"
#include "perfcmd.h"
#include "probecache.h"
#include "record/checks.h"
#include "record/collect.h"
#include "record/jitdump.h"
#include "record/pycache.h"
#include "route.h"
#include "spawn.h"

#include <fcntl.h>
#include <unistd.h>

/* Disk space set aside for the metadata: RESERVE_CHUNKS of zeros. */
#define RESERVE_CHUNK 16384
#define RESERVE_CHUNKS 4

/* The program's argv: the interpreter's, or the command's. */
static void target_argv(const struct record_options *o, const char *python,
			struct strvec *argv)
{
	int i;

	if (o->kind == RECORD_TARGET_COMMAND) {
		strvec_push(argv, o->what);
	} else {
		strvec_push(argv, python);
		if (o->kind == RECORD_TARGET_MODULE)
			strvec_push(argv, "-m");
		else if (o->kind == RECORD_TARGET_CODE)
			strvec_push(argv, "-c");
		strvec_push(argv, o->what);
	}
	for (i = 0; i < o->nr_args; i++)
		strvec_push(argv, o->args[i]);
}

static char *absolute(const char *path)
{
	char *r = realpath(path, NULL);

	return r ? r : xstrdup(path);
}

static char *self_exe(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* --- prepare ------------------------------------------------------------- */

void record_init(struct record_run *r, const struct record_options *o,
		 record_msg_fn *msg, void *msg_data)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->msg = msg;
	r->msg_data = msg_data;
	r->errfd = -1;
	r->complete = -1.0;
	r->bpf_ask = (struct spawn)SPAWN_INIT;
	r->max_size_ask = (struct spawn)SPAWN_INIT;
	r->buildid_mmap_ask = (struct spawn)SPAWN_INIT;
	strvec_init(&r->target);
	strvec_init(&r->env_set);
	strvec_init(&r->env);
	strvec_init(&r->perf_argv);
	strvec_init(&r->inject_argv);
	strvec_init(&r->unnamed_objects);
	strvec_init(&r->program_unnamed);
	strvec_init(&r->notes);
	record_kallsyms_init(&r->kallsyms);
	session_meta_init(&r->meta);
	perfdata_scan_init(&r->scan);
}

/*
 * perf's event check and its --no-bpf-event and --buildid-mmap
 * answers, started; and with --max-size, whether perf takes its own.
 */
static void start_perf_checks(struct record_run *r, struct event_check *ev,
			      const char *event)
{
	record_check_event_start(ev, r->perf, event);
	perfcmd_record_takes_start(&r->bpf_ask, r->perf,
				   PERFCMD_NO_BPF_EVENT_OPT);
	perfcmd_record_takes_start(&r->buildid_mmap_ask, r->perf,
				   PERFCMD_BUILDID_MMAP_OPT);
	if (r->o->max_size)
		perfcmd_record_takes_start(&r->max_size_ask, r->perf,
					   PERFCMD_MAX_SIZE_OPT "=1B");
}

/* What the command line asks of the decision (route.h). */
static void route_ask_of(const struct record_options *o,
			 struct route_ask *a)
{
	const char *env = getenv("PYPERF_PERF");

	memset(a, 0, sizeof(*a));
	a->mode = o->mode;
	a->trampoline = o->trampoline;
	a->trampoline_given = o->trampoline_given;
	a->event = o->event;
	a->perf_args = o->perf_args != NULL;
	a->perf_named = (o->perf && *o->perf) || (env && *env);
	a->stack_size = o->stack_size;
	if (o->kind == RECORD_TARGET_PIDS)
		a->nr_pids = o->nr_pids;
}

/* bpf mode's settings (route_bpf()), or its problem said. */
static enum record_outcome decide_bpf(struct record_run *r,
				      const struct route_ask *a,
				      unsigned long want)
{
	struct route_facts f;
	struct problem p;

	memset(&f, 0, sizeof(f));
	f.py = r->have_py ? &r->py : NULL;
	f.walker = record_walker_here(r);
	if (route_bpf(a, &f, &r->mode, &p)) {
		record_say(r, RECORD_MSG_ERROR, "%s", p.text);
		if (p.hint[0])
			record_say(r, RECORD_MSG_HINT, "%s", p.hint);
		return RECORD_FAILED;
	}
	r->backend = &record_walker_backend;
	record_cap_frequency(r, want);
	return RECORD_OK;
}

/*
 * The facts and the decision: nothing is created yet.  cmd_py: the
 * words that run a command's interpreter (pyinfo_command_python()).
 */
static enum record_outcome decide_with(struct record_run *r,
				       struct strvec *cmd_py)
{
	const struct record_options *o = r->o;
	char err[PPR_ERR_LEN], why[PPR_ERR_LEN];
	enum tristate fix;
	enum record_outcome ret;
	int embedded_ready = 0, perf_errno, walker = 0;
	const char *py = o->python ? o->python : "python3";
	const char *event = o->event ? o->event : PERFCMD_EVENT_DEFAULT;
	unsigned long want = o->freq ? o->freq : PERFCMD_FREQ_DEFAULT;
	struct event_check ev;
	struct route_ask ask;
	struct route_facts facts;

	memset(&ev, 0, sizeof(ev));
	memset(&facts, 0, sizeof(facts));
	route_ask_of(o, &ask);

	/* attaching: nothing to run, no perf, the processes say the rest */
	if (o->kind == RECORD_TARGET_PIDS)
		return decide_bpf(r, &ask, want);

	/* The target first: the clearest message wins. */
	if (o->kind == RECORD_TARGET_SCRIPT &&
	    (ret = record_check_script(r, o->what)))
		return ret;
	if (o->kind == RECORD_TARGET_COMMAND &&
	    (ret = record_check_command(r, o->what)))
		return ret;

	/*
	 * --mode auto takes the frame walker where it can run and nothing
	 * asks for perf (route_auto_walker()); the interpreter has the
	 * last word, once probed.
	 */
	if (o->mode == MODE_AUTO) {
		facts.walker = record_walker_here(r);
		walker = route_auto_walker(&ask, &facts, why, sizeof(why));
	}
	/*
	 * perf's event check, and whether it takes --no-bpf-event, run
	 * while the interpreter is probed (not when the walker will
	 * likely record: then after the probe, if at all).
	 */
	r->perf = record_is_bpf(o) ? NULL :
		spawn_which(perfcmd_perf(o->perf, NULL));
	perf_errno = errno;
	if (r->perf && !walker)
		start_perf_checks(r, &ev, event);

	/*
	 * A command that runs a Python (python3.14 prog.py, chroot ROOT
	 * /usr/bin/python3.14 prog.py): that interpreter is the one the
	 * decision is about, not PATH's; one in another root is probed
	 * there, through the command's own chroot.
	 */
	if (o->kind == RECORD_TARGET_COMMAND && !o->python &&
	    pyinfo_command_python(o->what, o->args, o->nr_args, cmd_py,
				  &r->py_root)) {
		if (r->py_root)
			r->python = xstrdup(cmd_py->v[cmd_py->nr - 1]);
		else
			py = cmd_py->v[0];
	}
	if (!r->python)
		r->python = spawn_which(py);
	if (!r->python) {
		int e = errno;

		record_check_event_abandon(&ev);
		record_say(r, RECORD_MSG_ERROR,
			   "cannot run the interpreter '%s': %s", py,
			   strerror(e));
		if (!o->python)
			record_say(r, RECORD_MSG_HINT,
				   "name one with --python PATH");
		if (o->kind == RECORD_TARGET_COMMAND)
			return RECORD_FAILED;
		return e == ENOENT ? RECORD_NOT_FOUND : RECORD_CANNOT_EXEC;
	}
	if (r->py_root ? pyinfo_probe_argv(cmd_py->v, &r->py, err,
					   sizeof(err)) :
	    record_probe_python(r->python, &r->py, &r->probed, err,
				sizeof(err))) {
		record_check_event_abandon(&ev);
		record_say(r, RECORD_MSG_ERROR, "%s", err);
		/* the probe may have filled some fields before failing */
		pyinfo_release(&r->py);
		return RECORD_FAILED;
	}
	r->have_py = 1;
	facts.py = &r->py;
	/*
	 * Run the interpreter itself, not a launcher in front of it (pyenv's
	 * shims are shell scripts that would be profiled too).
	 */
	if (!r->py_root && r->py.executable[0] &&
	    !access(r->py.executable, X_OK)) {
		free(r->python);
		r->python = xstrdup(r->py.executable);
	}

	if (walker) {
		/* the same question, now with the interpreter */
		walker = route_auto_walker(&ask, &facts, why, sizeof(why));
		if (walker) {
			/* route_bpf() gives the reason */
			free(r->perf);
			r->perf = NULL;
		} else if (r->perf) {
			start_perf_checks(r, &ev, event);
		}
	}
	if (record_is_bpf(o) || walker) {
		/* the walker: no perf, no trampoline */
		target_argv(o, r->python, &r->target);
		if (!r->program_path)
			r->program_path = xstrdup(r->python);
		return decide_bpf(r, &ask, want);
	}
	/*
	 * --wakers: the waker is read in the kernel at each wakeup, by the
	 * frame walker only; perf record's routes have no such event.
	 */
	if (o->wakers) {
		record_check_event_abandon(&ev);
		if (o->mode != MODE_AUTO) {
			record_say(r, RECORD_MSG_ERROR, "--wakers needs bpf "
				   "mode (the frame walker reads each waker in "
				   "the kernel), not --mode %s",
				   mode_name_str(o->mode));
			record_say(r, RECORD_MSG_HINT, "leave --mode out (as "
				   "root it takes bpf mode), or give --mode "
				   "bpf");
		} else {
			record_say(r, RECORD_MSG_ERROR, "--wakers needs bpf "
				   "mode (the frame walker reads each waker in "
				   "the kernel), and this recording would take "
				   "perf record's route: %s", why);
			/* the walker's own problem has the fix (privileges) */
			if (facts.walker && !facts.walker->ready &&
			    facts.walker->why.hint[0])
				record_say(r, RECORD_MSG_HINT, "%s; plain "
					   "--wall works without --wakers",
					   facts.walker->why.hint);
			else
				record_say(r, RECORD_MSG_HINT, "leave out what "
					   "asks for perf record, said above; "
					   "plain --wall works without "
					   "--wakers");
		}
		return RECORD_FAILED;
	}
	if (!r->perf) {
		record_say(r, RECORD_MSG_ERROR, "cannot run '%s': %s",
		    perfcmd_perf(o->perf, NULL), strerror(perf_errno));
		record_say(r, RECORD_MSG_HINT, "install perf (Debian/Ubuntu: "
		    "linux-perf or linux-tools-$(uname -r); Fedora: perf)");
		return RECORD_FAILED;
	}
	if (record_perf_version(r->perf, &r->pv, r->perf_line,
			    sizeof(r->perf_line))) {
		record_check_event_abandon(&ev);
		record_say(r, RECORD_MSG_ERROR, "cannot tell the version of "
			   "'%s' ('perf version' failed)", r->perf);
		return RECORD_FAILED;
	}
	if ((ret = record_check_event_finish(r, &ev, event)))
		return ret;
	r->no_bpf_event = perfcmd_record_takes_finish(&r->bpf_ask);
	r->takes_buildid_mmap =
		perfcmd_record_takes_finish(&r->buildid_mmap_ask);
	if (o->max_size && !perfcmd_record_takes_finish(&r->max_size_ask)) {
		record_say(r, RECORD_MSG_ERROR, "--max-size: perf record "
			   "writes this recording, and '%s' (%s) does not "
			   "take its --max-size", r->perf, r->perf_line);
		record_say(r, RECORD_MSG_HINT, "name a perf that takes it "
			   "with --perf, or record in bpf mode (--mode bpf, "
			   "as root)");
		return RECORD_FAILED;
	}
	fix = perf_version_jit_fix(&r->pv, why, sizeof(why));
	if (fix == TRI_UNKNOWN) {
		/* what `doctor --probe` proved about this perf binary */
		struct probe_verdict v;

		if (!probe_cache_get(r->perf, r->perf_line, &v) &&
		    v.jit_fix != TRI_UNKNOWN)
			fix = v.jit_fix;
	}
	r->fix = fix;
	/*
	 * The embedded trampoline is loaded from our files (PYTHONPATH),
	 * which a chrooted interpreter cannot see: CPython's own serves
	 * it where there is one (3.12+).
	 */
	embedded_ready = r->py_root ? 0 : embedded_available(&r->py);
	facts.perf = &r->pv;
	facts.jit_fix = fix;
	facts.embedded_ready = embedded_ready;
	route_perf(&ask, &facts, &r->mode);
	if (r->mode.problem[0]) {
		record_say(r, RECORD_MSG_ERROR,
			   "Python frames are not available: %s",
			   r->mode.problem);
		if (r->py_root && mode_embedded_supports(&r->py, why,
							 sizeof(why)))
			record_say(r, RECORD_MSG_HINT, "the interpreter runs "
				   "in the root '%s', where the embedded "
				   "trampoline's files are not",
				   r->py_root);
		else if (mode_embedded_supports(&r->py, why, sizeof(why)) &&
		    !embedded_ready && embedded_check(&r->py, why,
						      sizeof(why)) == 0)
			record_say(r, RECORD_MSG_HINT, "%s", why);
		record_say(r, RECORD_MSG_HINT, "'pyperf-run doctor --python "
			   "%s' explains the setup", r->python);
		return RECORD_FAILED;
	}
	/*
	 * When neither perf's version nor a probe tells whether it unwinds
	 * through jitted code, the recording does: see record_judge_session().
	 */
	if (r->mode.warning[0] &&
	    !(r->mode.name == MODE_JIT && fix == TRI_UNKNOWN))
		record_say(r, RECORD_MSG_WARNING, "%s", r->mode.warning);
	/* The automatic choice fell back to CPython's own trampoline. */
	if (o->trampoline == TRAMPOLINE_AUTO &&
	    r->mode.trampoline == TRAMPOLINE_NATIVE && r->py_root &&
	    mode_embedded_supports(&r->py, why, sizeof(why)))
		record_say(r, RECORD_MSG_WARNING, "using CPython's own "
			   "trampoline: the embedded one's files are not "
			   "in the root '%s' the interpreter runs in",
			   r->py_root);
	else if (o->trampoline == TRAMPOLINE_AUTO &&
	    r->mode.trampoline == TRAMPOLINE_NATIVE &&
	    mode_embedded_supports(&r->py, why, sizeof(why)) &&
	    !embedded_check(&r->py, why, sizeof(why)))
		record_say(r, RECORD_MSG_WARNING, "using CPython's own "
			   "trampoline: the embedded one cannot be used: %s",
			   why);
	if (o->stack_size && r->mode.name == MODE_PERF)
		record_say(r, RECORD_MSG_WARNING,
		    "--stack-size only matters in jit mode");
	if (o->keep_stack_copy)
		record_say(r, RECORD_MSG_WARNING, "--keep-stack-copy only "
			   "matters in bpf mode: perf record's routes keep "
			   "their stack copies");
	record_cap_frequency(r, want);
	if (o->wall) {
		const char *wev = o->event ? o->event : PERFCMD_EVENT_DEFAULT,
			   *wwhy = NULL;

		/* wall time adds up periods: they must be nanoseconds */
		if (strcmp(wev, "cpu-clock") && strcmp(wev, "task-clock")) {
			record_say(r, RECORD_MSG_ERROR, "--wall needs a clock "
				   "event (cpu-clock or task-clock), not '%s': "
				   "its periods are the on-CPU time", wev);
			return RECORD_FAILED;
		}
		r->wall = route_wall(&r->kernel, &wwhy);
		/*
		 * Measured (wall-truth.py, frame-pointer CPython 3.11):
		 * a Lock's and the GIL's waits lost every Python caller
		 * in perf mode, in glibc's futex code.
		 */
		if (r->mode.name == MODE_PERF)
			record_say(r, RECORD_MSG_WARNING, "--wall in perf "
				   "mode: waits inside the C library's lock "
				   "code (threading locks, the GIL) lose their "
				   "Python callers, since the C library has no "
				   "frame pointers; jit mode (--mode jit) "
				   "unwinds through it");
		if (wwhy) {
			record_say(r, RECORD_MSG_WARNING, "--wall: %s", wwhy);
			record_say(r, RECORD_MSG_HINT, "as root: 'sysctl "
				   "kernel.perf_event_paranoid=1', or record "
				   "as root (sudo) or with CAP_PERFMON, for "
				   "the stack each thread waits on");
		}
	}
	target_argv(o, r->python, &r->target);
	if (!r->program_path)
		r->program_path = xstrdup(r->python);
	r->backend = &record_perf_backend;
	return RECORD_OK;
}

static enum record_outcome decide(struct record_run *r)
{
	struct strvec cmd_py = STRVEC_INIT;
	enum record_outcome ret = decide_with(r, &cmd_py);

	strvec_clear(&cmd_py);
	return ret;
}

/*
 * Set some disk space aside in the session, freed before the metadata is
 * written: when the program's recording fills the file system, the
 * session can still be completed with what perf wrote.
 */
static void reserve_space(const char *path)
{
	char zeros[RESERVE_CHUNK];
	int fd, i;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return;
	memset(zeros, 0, sizeof(zeros));
	for (i = 0; i < RESERVE_CHUNKS; i++)
		if (write_in_full(fd, zeros, sizeof(zeros)) < 0)
			break;
	close(fd);
}

enum record_outcome record_prepare(struct record_run *r)
{
	const struct record_options *o = r->o;
	enum record_outcome ret;
	char err[PPR_ERR_LEN];
	int exists;

	sysprobe_limits(&r->kernel);
	ret = decide(r);
	if (ret)
		return ret;
	if (session_check_target(o->output, &exists, err, sizeof(err))) {
		record_say(r, RECORD_MSG_ERROR, "%s", err);
		record_say(r, RECORD_MSG_HINT,
			   "choose another directory with -o");
		return RECORD_FAILED;
	}
	r->self = self_exe();
	if (!r->self) {
		record_say(r, RECORD_MSG_ERROR,
			   "cannot find my own executable: %s",
			   strerror(errno));
		return RECORD_FAILED;
	}
	if (session_create_tmp(o->output, &r->tmp, err, sizeof(err))) {
		record_say(r, RECORD_MSG_ERROR, "%s", err);
		return RECORD_FAILED;
	}
	r->abs_tmp = absolute(r->tmp);
	r->bid = xasprintf("%s/buildid", r->abs_tmp);
	r->statusf = xasprintf("%s/.status", r->abs_tmp);
	r->reserve = xasprintf("%s/.reserve", r->abs_tmp);
	reserve_space(r->reserve);
	r->raw = xasprintf("%s/perf.raw", r->abs_tmp);
	r->data = xasprintf("%s/perf.data", r->abs_tmp);
	r->srcdirs[0] = "/tmp";
	return r->backend->prepare(r);
}

/* --- execute ------------------------------------------------------------- */

enum record_outcome record_execute(struct record_run *r)
{
	return r->backend->execute(r);
}

/* --- finish -------------------------------------------------------------- */

enum record_outcome record_finish(struct record_run *r)
{
	const struct record_options *o = r->o;
	char err[PPR_ERR_LEN], vdso_id[130];
	int st;

	/*
	 * Before anything reads it: see perfdata_fix_exec_forks().  The
	 * same pass finds the run's pids and counts the samples, in both
	 * modes.
	 */
	st = perfdata_fix_exec_forks(r->data, &r->scan,
				     r->backend == &record_perf_backend, NULL);
	if (st < 0)
		record_say(r, RECORD_MSG_WARNING, "cannot update '%s': %s",
			   r->data, strerror(-st));

	if (r->backend->collect)
		r->backend->collect(r);
	if (record_prune_buildid(r->bid) < 0)
		record_say(r, RECORD_MSG_WARNING,
			   "cannot trim the build-id cache " "'%s'", r->bid);
	/*
	 * The vDSO is in no file: its copy names its functions and holds
	 * its unwinding tables.  A compressed recording (perf record -z)
	 * has no build-id table for perf to find the copy by: it gets one
	 * (perfdata_add_buildid(); one that has a table keeps it).
	 */
	if ((st = record_save_vdso(r->bid, vdso_id, sizeof(vdso_id))) < 0)
		record_say(r, RECORD_MSG_WARNING, "cannot save the vDSO in "
			   "'%s': %s: samples in it will stop there", r->bid,
			   strerror(-st));
	else if (r->backend == &record_perf_backend &&
		 (st = perfdata_add_buildid(r->data, "[vdso]", vdso_id)) < 0)
		record_say(r, RECORD_MSG_WARNING, "cannot name the vDSO's "
			   "build-id in '%s': %s: perf's stacks of samples in "
			   "it will stop there", r->data, strerror(-st));

	/* kernel frames keep their names wherever the session goes */
	record_kallsyms_keep(&r->kallsyms, r->tmp);
	/* room for meta when perf filled the disk */
	unlink(r->reserve);
	record_write_meta(r);
	if (session_meta_write(r->tmp, &r->meta, err, sizeof(err))) {
		record_say(r, RECORD_MSG_ERROR, "%s", err);
		return RECORD_FAILED;
	}
	/*
	 * Judged before it is committed: once renamed into place, another
	 * record into the same directory may move it to <dir>.old.
	 */
	record_judge_session(r);
	if (session_commit(r->tmp, o->output, err, sizeof(err))) {
		record_say(r, RECORD_MSG_ERROR, "%s", err);
		record_say(r, RECORD_MSG_HINT, "the recording is in '%s'",
			   r->tmp);
		r->keep_tmp = 1;
		return RECORD_FAILED;
	}
	free(r->tmp);
	r->tmp = NULL;		/* committed */
	if (r->probed)
		record_probe_remember(r->py.path, &r->py);
	r->nr_procs = r->scan.nr_pids - (r->helper_pid > 0 &&
					 r->scan.nr_pids > 0);
	return RECORD_OK;
}

void record_release(struct record_run *r)
{
	/* its thread may still read (a recording that failed) */
	record_kallsyms_release(&r->kallsyms);
	/* a prepare that failed early leaves the question unanswered */
	perfcmd_record_takes_finish(&r->bpf_ask);
	perfcmd_record_takes_finish(&r->buildid_mmap_ask);
	perfcmd_record_takes_finish(&r->max_size_ask);
	if (r->tmp && !r->keep_tmp)
		paths_remove_tree(r->tmp);
	if (r->errfd >= 0)
		close(r->errfd);
	if (r->have_py)
		pyinfo_release(&r->py);
	free(r->perf);
	free(r->python);
	free(r->py_root);
	free(r->root_tmp);
	free(r->program_path);
	free(r->tmp);
	free(r->abs_tmp);
	free(r->self);
	free(r->statusf);
	free(r->reserve);
	free(r->raw);
	free(r->data);
	free(r->bid);
	free(r->dump_dir);
	if (r->jit_dir) {
		record_jit_dir_remove(r->jit_dir);
		free(r->jit_dir);
	}
	strvec_clear(&r->target);
	strvec_clear(&r->env_set);
	strvec_clear(&r->env);
	strvec_clear(&r->perf_argv);
	strvec_clear(&r->inject_argv);
	strvec_clear(&r->unnamed_objects);
	strvec_clear(&r->program_unnamed);
	strvec_clear(&r->notes);
	session_meta_release(&r->meta);
	perfdata_scan_release(&r->scan);
}
