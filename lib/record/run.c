/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pipeline of `pyperf-run record` (see run.h): prepare, execute,
 * finish.  Messages go to the caller's callback; nothing prints.
 */
#include "compat.h"
#include "record/run.h"
#include "alloc.h"
#include "probecache.h"
#include "embedded.h"
#include "fileio.h"
#include "numparse.h"
#include "paths.h"
#include "perfcmd.h"
#include "route.h"
#include "record/checks.h"
#include "record/collect.h"
#include "record/cuts.h"
#include "record/jitdump.h"
#include "record/pycache.h"
#include "record/status.h"
#include "report/profile.h"
#include "spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Fewer samples than this show nothing worth a warning. */
#define JUDGE_MIN_SAMPLES 50
/* How much of perf record's stderr is kept, and of a helper's. */
#define PERF_STDERR_MAX (1 << 20)
/* How long to wait between looks at an orphaned exec helper (ns). */
#define HELPER_POLL_NS 100000000L
/* Disk space set aside for the metadata: RESERVE_CHUNKS of zeros. */
#define RESERVE_CHUNK 16384
#define RESERVE_CHUNKS 4
#define PERF_PROGRESS_PREFIX "[ perf record: "

/* --- the commands -------------------------------------------------------- */

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
	spec.wall = r->wall;
	perfcmd_session_argv(&spec, &r->perf_argv, &r->inject_argv);
}

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
	strvec_init(&r->target);
	strvec_init(&r->env_set);
	strvec_init(&r->env);
	strvec_init(&r->perf_argv);
	strvec_init(&r->inject_argv);
	strvec_init(&r->unnamed_objects);
	session_meta_init(&r->meta);
	perfdata_scan_init(&r->scan);
}

/* perf's event check and its --no-bpf-event answer, started. */
static void start_perf_checks(struct record_run *r, struct event_check *ev,
			      const char *event)
{
	record_check_event_start(ev, r->perf, event);
	perfcmd_record_takes_start(&r->bpf_ask, r->perf,
				   PERFCMD_NO_BPF_EVENT_OPT);
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
	struct route_problem p;

	memset(&f, 0, sizeof(f));
	f.py = r->have_py ? &r->py : NULL;
	f.walker = record_walker_here(r);
	if (route_bpf(a, &f, &r->mode, &p)) {
		record_say(r, RECORD_MSG_ERROR, "%s", p.text);
		if (p.hint[0])
			record_say(r, RECORD_MSG_HINT, "%s", p.hint);
		return RECORD_FAILED;
	}
	record_cap_frequency(r, want);
	return RECORD_OK;
}

/* The facts and the decision: nothing is created yet. */
static enum record_outcome decide(struct record_run *r)
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
	if (record_probe_python(r->python, &r->py, &r->probed, err,
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
	if (r->py.executable[0] && !access(r->py.executable, X_OK)) {
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
	fix = perf_version_jit_fix(&r->pv, why, sizeof(why));
	if (fix == TRI_UNKNOWN) {
		/* what `doctor --probe` proved about this perf binary */
		struct probe_verdict v;

		if (!probe_cache_get(r->perf, r->perf_line, &v) &&
		    v.jit_fix != TRI_UNKNOWN)
			fix = v.jit_fix;
	}
	r->fix = fix;
	embedded_ready = embedded_available(&r->py);
	facts.perf = &r->pv;
	facts.jit_fix = fix;
	facts.embedded_ready = embedded_ready;
	route_perf(&ask, &facts, &r->mode);
	if (r->mode.problem[0]) {
		record_say(r, RECORD_MSG_ERROR,
			   "Python frames are not available: %s",
			   r->mode.problem);
		if (mode_embedded_supports(&r->py, why, sizeof(why)) &&
		    !embedded_ready && embedded_check(&r->py, why,
						      sizeof(why)) == 0)
			record_say(r, RECORD_MSG_HINT, "%s", why);
		record_say(r, RECORD_MSG_HINT, "'pyperf-run doctor --python "
			   "%s' explains the setup", r->python);
		return RECORD_FAILED;
	}
	/*
	 * When neither perf's version nor a probe tells whether it unwinds
	 * through jitted code, the recording does: see judge_session().
	 */
	if (r->mode.warning[0] &&
	    !(r->mode.name == MODE_JIT && fix == TRI_UNKNOWN))
		record_say(r, RECORD_MSG_WARNING, "%s", r->mode.warning);
	/* The automatic choice fell back to CPython's own trampoline. */
	if (o->trampoline == TRAMPOLINE_AUTO &&
	    r->mode.trampoline == TRAMPOLINE_NATIVE &&
	    mode_embedded_supports(&r->py, why, sizeof(why)) &&
	    !embedded_check(&r->py, why, sizeof(why)))
		record_say(r, RECORD_MSG_WARNING, "using CPython's own "
			   "trampoline: the embedded one cannot be used: %s",
			   why);
	if (o->stack_size && r->mode.name == MODE_PERF)
		record_say(r, RECORD_MSG_WARNING,
		    "--stack-size only matters in jit mode");
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
	return RECORD_OK;
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
	struct strvec work = STRVEC_INIT;
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
	if (r->mode.name == MODE_BPF) {
		/* the program gets our environment as it is */
		spawn_env_build(&r->env, NULL);
		return RECORD_OK;
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

/* --- execute ------------------------------------------------------------- */

static volatile sig_atomic_t forward_sig;

static void note_signal(int sig)
{
	forward_sig = sig;
}

/* Pass a SIGTERM/SIGHUP we got on to the exec helper, hence the program. */
static void forward_to_program(const char *statusf, pid_t perf_pid)
{
	int value, sig = forward_sig;
	pid_t exec_pid = 0;

	if (!sig)
		return;
	forward_sig = 0;
	record_status_read(statusf, &value, &exec_pid, NULL);
	if (exec_pid > 0)
		kill(exec_pid, sig);
	else
		kill(perf_pid, sig);	/* not started yet: stop perf */
}

/*
 * The exec helper outlived perf: it is our child now (we are a child
 * subreaper), or at least still there.  Wait for it and read the
 * program's status.
 */
static enum record_status_kind wait_for_program(const char *statusf,
						pid_t exec_pid, int *value)
{
	enum record_status_kind kind;
	int st;

	while (waitpid(exec_pid, &st, 0) < 0 && errno == EINTR)
		;
	while (kill(exec_pid, 0) == 0) {
		struct timespec ts = { 0, HELPER_POLL_NS };

		nanosleep(&ts, NULL);
		/* a zombie that is not ours still answers kill() */
		kind = record_status_read(statusf, value, NULL, NULL);
		if (kind != RECORD_STATUS_NONE)
			return kind;
	}
	return record_status_read(statusf, value, NULL, NULL);
}

/*
 * Run perf record with its stderr into perr; returns its wait status or
 * -errno.  Ctrl-C is for the program (and perf): we ignore it; a
 * SIGTERM/SIGHUP sent to us alone is passed to perf, which stops and
 * passes it on to the program.
 */
static int run_perf(const char *const *argv, const char *const *env,
		    const char *statusf, struct strbuf *perr,
		    char *err, size_t errlen)
{
	struct spawn sp = SPAWN_INIT;
	struct sigaction sa, old_term, old_hup;
	int r, fd;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/*
	 * SIGINT and SIGQUIT stay ignored afterwards: a late Ctrl-C must
	 * not lose the recording half-processed (the helpers that follow
	 * run in their own process group and do not get it either).
	 */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = note_signal;	/* no SA_RESTART: read() returns */
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);

	sp.argv = argv;
	sp.env = env;
	sp.err = SPAWN_PIPE;
	sp.flags = SPAWN_DEFAULT_SIGS;
	r = spawn_start(&sp, err, errlen);
	if (r < 0)
		goto out;
	fd = sp.err;
	for (;;) {
		char buf[4096];
		ssize_t n;

		forward_to_program(statusf, sp.pid);
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (perr->len < PERF_STDERR_MAX)
			strbuf_add(perr, buf, (size_t)n);
	}
	close(fd);
	r = spawn_finish(&sp);
out:
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return r;
}

/*
 * Run a helper perf command (its output dropped, its stderr into
 * errout), not on the tty's process group so that a late Ctrl-C does
 * not cut it short.
 */
static int run_quiet(const char *const *argv, struct strbuf *errout)
{
	struct spawn sp = SPAWN_INIT;
	char err[PPR_ERR_LEN];
	int r;

	sp.argv = argv;
	sp.in = SPAWN_DEVNULL;
	sp.out = SPAWN_DEVNULL;
	sp.err = SPAWN_PIPE;
	sp.flags = SPAWN_NEW_PGRP;
	r = spawn_start(&sp, err, sizeof(err));
	if (r < 0) {
		if (errout)
			strbuf_addstr(errout, err);
		return r;
	}
	record_read_all(sp.err, errout, RECORD_HELPER_STDERR_MAX);
	close(sp.err);
	return spawn_finish(&sp);
}

/* Drop perf record's "[ perf record: ... ]" progress lines. */
static void drop_perf_progress(struct strbuf *perr)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = perr->buf;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (strncmp(p, PERF_PROGRESS_PREFIX,
			    strlen(PERF_PROGRESS_PREFIX)))
			strbuf_add(&out, p, n + (p[n] == '\n'));
		p += n + (p[n] == '\n');
	}
	strbuf_reset(perr);
	strbuf_add(perr, out.buf, out.len);
	strbuf_release(&out);
}

/*
 * CPython 3.13.0's jitdump breaks when the process forks (see
 * record_repair_jitdump()): mend, before perf inject reads them, the
 * dumps written during the run by our processes that have ended.  A
 * dump of another run is mended correctly too, so no pid list is
 * needed; one still being written is left alone.
 */
static void repair_dumps(struct record_run *r)
{
	size_t j;

	for (j = 0; r->srcdirs[j]; j++) {
		DIR *d = opendir(r->srcdirs[j]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d))) {
			unsigned long v;
			const char *end;
			struct stat st;
			char *path;
			long dropped;

			if (strncmp(de->d_name, "jit-", 4) ||
			    parse_uint_prefix(de->d_name + 4, &v, &end) ||
			    strcmp(end, ".dump") || !v || v > INT32_MAX)
				continue;
			if (kill((pid_t)v, 0) == 0 || errno != ESRCH)
				continue;
			path = xasprintf("%s/%s", r->srcdirs[j], de->d_name);
			if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    st.st_uid == geteuid() &&
			    st.st_mtim.tv_sec + 1 >= (time_t)r->start) {
				dropped = record_repair_jitdump(path,
							       (pid_t)v);
				if (dropped < 0)
					record_say(r, RECORD_MSG_WARNING,
					    "cannot repair '%s': %s", path,
					    strerror((int)-dropped));
			}
			free(path);
		}
		closedir(d);
	}
}

/* perf inject --jit: raw into data, or raw kept as data on failure. */
static void inject(struct record_run *r)
{
	struct strbuf ierr = STRBUF_INIT;
	int st;

	repair_dumps(r);
	st = run_quiet(r->inject_argv.v, &ierr);
	if (st != 0) {
		if (strstr(ierr.buf, strerror(ENOSPC)) || r->nospace)
			record_say(r, RECORD_MSG_WARNING, "no space left for "
				   "perf inject --jit in '%s': Python frames "
				   "will be missing", r->o->output);
		else
			record_say(r, RECORD_MSG_WARNING, "perf inject --jit "
				   "failed: Python frames will be missing");
		record_say_output(r, ierr.buf);
		unlink(r->data);
		if (rename(r->raw, r->data) < 0)
			record_say(r, RECORD_MSG_ERROR,
				   "cannot rename '%s': %s", r->raw,
				   strerror(errno));
	} else {
		unlink(r->raw);
	}
	strbuf_release(&ierr);
}

enum record_outcome record_execute(struct record_run *r)
{
	const struct record_options *o = r->o;
	const char *output = mode_needs_inject(&r->mode) ? r->raw : r->data;
	struct strbuf perr = STRBUF_INIT;
	enum record_status_kind kind;
	enum record_outcome ret = RECORD_FAILED;
	char err[PPR_ERR_LEN];
	long long recovered;
	int st, value = 0;

	if (r->mode.name == MODE_BPF)
		return record_bpf_execute(r);
	/* so that a helper orphaned by a dying perf is still ours */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r->start = record_now();
	st = run_perf((const char *const *)r->perf_argv.v,
		      (const char *const *)r->env.v, r->statusf, &perr, err,
		      sizeof(err));
	r->end = record_now();
	drop_perf_progress(&perr);
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
		kind = wait_for_program(r->statusf, r->helper_pid, &value);
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
	if (mode_needs_inject(&r->mode))
		inject(r);
	ret = RECORD_OK;
out:
	strbuf_release(&perr);
	return ret;
}

/* --- finish -------------------------------------------------------------- */

static void write_meta(struct record_run *r)
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
	else if (r->mode.name == MODE_BPF && r->o->wall)
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

/* The dump-size facts of profile_load()'s judgement. */
static void dump_facts(const struct profile *p, struct record_cut_facts *f)
{
	const struct profile_quality *q = &p->quality;

	f->dump_measured = q->dump_known;
	f->dump_fixable = q->dump_fixable;
	f->dump_needed = q->dump_need99;
	if (!f->max_stack)
		f->max_stack = q->max_stack;
}

/* Is anything wrong with 1 % or more of the samples? */
static int significant(const struct profile *p)
{
	const struct profile_quality *q = &p->quality;
	uint64_t cut = q->judged - q->cut[CUT_NONE];

	return q->bad_names ||
	       (q->judged && (cut * 100 >= q->judged ||
			      q->unnamed * 100 >= q->judged));
}

/*
 * The objects whose code without symbols the samples show (native
 * frames "[object]": no symbol, a file), by the samples showing them,
 * at most max, each in at least min samples, into out.
 */
static void unnamed_objects(const struct profile *p, struct strvec *out,
			    size_t max, uint64_t min)
{
	struct { const char *dso; uint64_t samples; } obj[64];
	size_t nr = 0, i, j, k;

	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *s = &p->stacks[i];

		for (j = 0; j < s->depth; j++) {
			const struct frame *f = &p->frames[s->frames[j]];

			if (f->kind != FRAME_NATIVE || f->func || !f->dso ||
			    f->dso[0] != '/')
				continue;
			for (k = 0; k < nr && strcmp(obj[k].dso, f->dso); k++)
				;
			if (k == nr) {
				if (nr == ARRAY_SIZE(obj))
					continue;
				obj[nr].dso = f->dso;
				obj[nr++].samples = 0;
			}
			/* a recording's profile is in samples */
			obj[k].samples += s->weight;
		}
	}
	while (out->nr < max && nr) {
		for (k = 0, j = 1; j < nr; j++)
			if (obj[j].samples > obj[k].samples)
				k = j;
		if (obj[k].samples < min)
			break;
		strvec_push(out, obj[k].dso);
		obj[k] = obj[--nr];
	}
}

/*
 * --wall: the switches' share of perf.data, said when the data grew
 * faster than WALL_BYTES_RATE_MAX (a program switching tens of
 * thousands of times a second, each switch with its stack).
 */
#define WALL_BYTES_RATE_MAX 8000000u	/* bytes per second */

static void wall_volume(struct record_run *r, const struct profile *p)
{
	struct stat st;
	double secs = r->end - r->start, rate, per;

	if (r->wall == PERFCMD_WALL_NONE || secs <= 0 || !p->quality.offcpu ||
	    stat(r->data, &st) < 0)
		return;
	rate = (double)st.st_size / secs;
	per = (double)st.st_size / (double)(p->quality.offcpu +
					    p->total_count);
	session_meta_set(&r->meta, "switches", "%llu",
			 (unsigned long long)p->quality.offcpu);
	if (rate <= WALL_BYTES_RATE_MAX)
		return;
	record_say(r, RECORD_MSG_WARNING, "--wall: the recording grew by "
		   "%.1f MB/s (%.0f context switches/s, about %.0f bytes "
		   "each with its stack), above the %u MB/s this stays "
		   "usable at: a program that switches this often makes "
		   "big sessions and slow reports",
		   rate / 1e6, (double)p->quality.offcpu / secs, per,
		   WALL_BYTES_RATE_MAX / 1000000);
}

/*
 * Read the finished session (still in r->tmp) back as report does
 * (profile_load(), which judges every sample's stack and leaves the
 * report cache behind, so that the first report is fast), say its
 * warnings and the hints the judgement backs, and keep the share of cut
 * stacks in meta.
 */
static void judge_session(struct record_run *r)
{
	struct profile p;
	struct record_cut_facts f;
	struct strvec hints = STRVEC_INIT;
	char err[PPR_ERR_LEN];
	size_t i;
	int c;

	r->complete = -1.0;
	if (profile_load(&p, r->tmp, NULL, err, sizeof(err))) {
		record_say(r, RECORD_MSG_WARNING, "cannot read the recording "
			   "back to check its stacks: %s", err);
		profile_release(&p);
		return;
	}
	memset(&f, 0, sizeof(f));
	f.jit = r->mode.name == MODE_JIT || r->mode.name == MODE_BPF;
	f.stack_size = r->mode.stack_size;
	f.max_stack = r->kernel.max_stack.have &&
		      r->kernel.max_stack.value > 0 ?
		      (unsigned)r->kernel.max_stack.value : 0;
	f.judged = p.quality.judged;
	for (c = 0; c < CUT_NR; c++)
		f.cut[c] = p.quality.cut[c];
	dump_facts(&p, &f);
	f.jit_fix_known = r->fix == TRI_YES;

	/*
	 * A handful of samples shows nothing worth a warning (a program
	 * that ran for milliseconds); report still shows them all.
	 */
	if (p.total_count >= JUDGE_MIN_SAMPLES) {
		/*
		 * Below 1 % nothing changes a conclusion: the summary line
		 * gives the complete share and every report format still
		 * carries each warning.
		 */
		if (significant(&p))
			for (i = 0; i < p.nr_warnings; i++)
				record_say(r, RECORD_MSG_WARNING, "%s",
				    p.warnings[i]);
		if (p.quality.unnamed &&
		    p.quality.unnamed * 100 >= p.quality.judged)
			unnamed_objects(&p, &r->unnamed_objects, 3,
					(p.quality.judged + 99) / 100);
		record_cut_hints(&f, &hints);
		for (i = 0; i < hints.nr; i++)
			record_say(r, RECORD_MSG_HINT, "%s", hints.v[i]);
	}

	wall_volume(r, &p);
	r->complete = p.quality.judged ?
		(double)p.quality.cut[CUT_NONE] / p.quality.judged : -1.0;
	session_meta_set(&r->meta, "truncated", "%.4f", record_cut_share(&f));
	if (session_meta_write(r->tmp, &r->meta, err, sizeof(err)))
		record_say(r, RECORD_MSG_WARNING, "%s", err);
	strvec_clear(&hints);
	profile_release(&p);
}

enum record_outcome record_finish(struct record_run *r)
{
	const struct record_options *o = r->o;
	char err[PPR_ERR_LEN];
	unsigned moved = 0;
	int st;

	/*
	 * Before anything reads it: see perfdata_fix_exec_forks().  The
	 * same pass finds the run's pids and counts the samples, in both
	 * modes.
	 */
	st = perfdata_fix_exec_forks(r->data, &r->scan, NULL);
	if (st < 0)
		record_say(r, RECORD_MSG_WARNING, "cannot update '%s': %s",
			   r->data, strerror(-st));

	if (r->mode.name != MODE_BPF &&
	    record_collect(r->abs_tmp, r->srcdirs, r->scan.pids,
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
	if (record_prune_buildid(r->bid) < 0)
		record_say(r, RECORD_MSG_WARNING,
			   "cannot trim the build-id cache " "'%s'", r->bid);
	if ((r->mode.name == MODE_JIT || r->mode.name == MODE_BPF) &&
	    (st = record_save_vdso(r->bid, NULL, 0)) < 0)
		record_say(r, RECORD_MSG_WARNING, "cannot save the vDSO in "
			   "'%s': %s: samples in it will stop there", r->bid,
			   strerror(-st));

	/* kernel frames keep their names wherever the session goes; a
	   kernel that hides its addresses leaves them to the report's
	   machine */
	record_save_kallsyms(r->tmp);
	/* room for meta when perf filled the disk */
	unlink(r->reserve);
	write_meta(r);
	if (session_meta_write(r->tmp, &r->meta, err, sizeof(err))) {
		record_say(r, RECORD_MSG_ERROR, "%s", err);
		return RECORD_FAILED;
	}
	/*
	 * Judged before it is committed: once renamed into place, another
	 * record into the same directory may move it to <dir>.old.
	 */
	judge_session(r);
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
	/* a prepare that failed early leaves the question unanswered */
	perfcmd_record_takes_finish(&r->bpf_ask);
	if (r->tmp && !r->keep_tmp)
		paths_remove_tree(r->tmp);
	if (r->errfd >= 0)
		close(r->errfd);
	if (r->have_py)
		pyinfo_release(&r->py);
	free(r->perf);
	free(r->python);
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
	session_meta_release(&r->meta);
	perfdata_scan_release(&r->scan);
}
