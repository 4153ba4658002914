/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run record: run a Python program under perf record with Python
 * frames, and leave a self-contained session directory behind.
 *
 * Processes:
 *   pyperf-run record          (us: waits, then injects and collects)
 *     perf record ...          (stderr captured, for its messages)
 *       pyperf-run record --internal-exec STATUS ERRFD -- PROG...
 *         PROG...              (the user's program, stdio untouched)
 *
 * The internal exec helper is perf's workload: it starts the program,
 * waits for it and writes its wait status to the STATUS file, because
 * perf record's own exit status does not tell the program's.  It puts
 * our original stderr (ERRFD) back as the program's fd 2.
 */
#include "compat.h"
#include "alloc.h"
#include "embedded.h"
#include "mode.h"
#include "numparse.h"
#include "paths.h"
#include "perfcmd.h"
#include "perfversion.h"
#include "doctor/probecache.h"
#include "report/profile.h"
#include "pyinfo.h"
#include "record/record.h"
#include "session.h"
#include "spawn.h"
#include "strbuf.h"
#include "sysprobe.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define INTERNAL_EXEC "--internal-exec"
#define MAX_STACK_PATH "/proc/sys/kernel/perf_event_max_stack"
#define MAX_RATE_PATH "/proc/sys/kernel/perf_event_max_sample_rate"
#define JUDGE_MIN_SAMPLES 50

static const char *const record_synopsis[] = {
	"pyperf-run record [<options>] <script.py> [<args>...]",
	"pyperf-run record [<options>] -m <module> [<args>...]",
	"pyperf-run record [<options>] -c <code> [<args>...]",
	"pyperf-run record [<options>] -- <command> [<args>...]",
	NULL
};

static const char record_options[] =
"    -o, --output <dir>     the session directory (default: pyperf.data;\n"
"                           an existing one is kept as <dir>.old)\n"
"    --python <path>        the interpreter (default: python3 on PATH)\n"
"    --perf <path>          the perf to record with (default: $PYPERF_PERF,\n"
"                           or perf on PATH); report uses it too\n"
"    --mode auto|perf|jit   how to get Python frames (default: auto, the\n"
"                           mode 'pyperf-run doctor' shows)\n"
"    --trampoline auto|native|embedded\n"
"                           whose trampoline: pyperf-run's (embedded,\n"
"                           CPython 3.8-3.13) or CPython's own -X perf\n"
"                           (native, 3.12+); auto: embedded, else native\n"
"    -F, --freq <hz>        samples per second (default: 999; at most the\n"
"                           kernel's perf_event_max_sample_rate)\n"
"    --stack-size <bytes>   jit mode: stack bytes saved per sample, a\n"
"                           multiple of 8, at most 65528 (default: by build)\n"
"    -e, --event <event>    the perf event (default: cpu-clock)\n"
"    --perf-arg <arg>       pass <arg> to perf record (repeatable)\n"
"    -q, --quiet            print only errors and warnings\n"
"    -h, --help             print this help\n";

const struct usage record_usage = { record_synopsis, record_options };

enum target_kind {
	TARGET_SCRIPT,
	TARGET_MODULE,
	TARGET_CODE,
	TARGET_COMMAND,
};

struct record_opts {
	const char *output;
	const char *python;
	const char *perf;	/* --perf, or NULL */
	enum mode_name mode;
	enum mode_trampoline trampoline;	/* --trampoline */
	unsigned long freq;
	unsigned long stack_size;
	const char *event;
	struct strvec perf_args;
	int quiet;
	enum target_kind kind;
	const char *what;	/* script, module, code or command */
	char **args;		/* the rest */
	int nr_args;
};

/* --- the internal exec helper ------------------------------------------ */

static volatile sig_atomic_t exec_child;
static volatile sig_atomic_t exec_pending;

static void exec_on_term(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/*
	 * perf answers Ctrl-C (and its own SIGTERM) with SIGTERM to its
	 * workload, us, at once: the program has its SIGINT already and
	 * must be let finish handling it, so perf's is dropped.  Signals
	 * from anyone else (pyperf-run passing on a SIGTERM it got) go on
	 * to the program.
	 */
	if (si && si->si_code == SI_USER && si->si_pid == getppid())
		return;
	if (exec_child > 0)
		kill((pid_t)exec_child, sig);
	else
		exec_pending = sig;
}

static int record_internal_exec(int argc, char **argv)
{
	struct spawn sp = SPAWN_INIT;
	struct sigaction sa;
	char err[PPR_ERR_LEN];
	long errfd;
	int fd, st, r;

	/* argv: --internal-exec STATUS ERRFD -- PROG [ARGS...] */
	if (argc < 6 || strcmp(argv[4], "--") ||
	    parse_long(argv[3], 10, 0, 1 << 20, &errfd))
		return error("bad internal invocation"), EXIT_INTERNAL;
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		  O_CLOEXEC, 0600);
	if (fd < 0)
		return error_errno("cannot create '%s'", argv[2]),
		       EXIT_INTERNAL;
	if (errfd != 2) {
		if (dup2((int)errfd, 2) < 0)
			return error_errno("cannot restore stderr"),
			       EXIT_INTERNAL;
		close((int)errfd);
	}

	record_status_write(fd, RECORD_STATUS_PID, (int)getpid());
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* Ctrl-C and Ctrl-\\ are for the program, in our process group */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = exec_on_term;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_DFL);

	sp.argv = (const char *const *)argv + 5;
	sp.flags = SPAWN_DEFAULT_SIGS;
	r = spawn_start(&sp, err, sizeof(err));
	if (r < 0) {
		record_status_write(fd, RECORD_STATUS_ERRNO, -r);
		close(fd);
		return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
	exec_child = sp.pid;
	if (exec_pending)
		kill(sp.pid, exec_pending);
	st = spawn_finish(&sp);
	if (st < 0)
		st = 0x7f00; /* cannot happen: report "exited 127" */
	record_status_write(fd, RECORD_STATUS_WAIT, st);
	close(fd);
	return spawn_exit_code(st);
}

/* --- option parsing ------------------------------------------------------ */

static PPR_NORETURN void bad_usage(const char *fmt, const char *arg)
{
	usage_error(&record_usage, EXIT_INTERNAL, fmt, arg);
}

static void parse_options(int argc, char **argv, struct record_opts *o)
{
	enum { OPT_PYTHON = 256, OPT_MODE, OPT_STACK, OPT_PERF_ARG, OPT_PERF,
	       OPT_TRAMPOLINE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "python", required_argument, NULL, OPT_PYTHON },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "trampoline", required_argument, NULL, OPT_TRAMPOLINE },
		{ "freq", required_argument, NULL, 'F' },
		{ "stack-size", required_argument, NULL, OPT_STACK },
		{ "event", required_argument, NULL, 'e' },
		{ "perf-arg", required_argument, NULL, OPT_PERF_ARG },
		{ "perf", required_argument, NULL, OPT_PERF },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, stop = 0;

	opterr = 0;
	optind = 1;
	while (!stop &&
	       (c = getopt_long(argc, argv, "+:o:F:e:qhm:c:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_PYTHON:
			o->python = optarg;
			break;
		case OPT_MODE:
			if (mode_parse(optarg, &o->mode))
				bad_usage("--mode must be auto, perf or jit, "
					  "not '%s'", optarg);
			break;
		case OPT_TRAMPOLINE:
			if (mode_trampoline_parse(optarg, &o->trampoline))
				bad_usage("--trampoline must be auto, native "
					  "or embedded, not '%s'", optarg);
			break;
		case 'F':
			if (parse_ulong(optarg, 10, 1000000, &o->freq) ||
			    !o->freq)
				bad_usage("-F needs a frequency in Hz "
					  "(1 to 1000000), not '%s'", optarg);
			break;
		case OPT_STACK:
			if (parse_ulong(optarg, 10, PERF_STACK_DUMP_MAX,
					&o->stack_size) ||
			    !o->stack_size || o->stack_size % 8)
				bad_usage("--stack-size needs a multiple of "
					  "8 from 8 to 65528, not '%s'",
					  optarg);
			break;
		case 'e':
			if (!*optarg)
				bad_usage("-e needs an event%s", "");
			o->event = optarg;
			break;
		case OPT_PERF_ARG:
			strvec_push(&o->perf_args, optarg);
			break;
		case OPT_PERF:
			if (!*optarg)
				bad_usage("--perf needs a path%s", "");
			o->perf = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage_print(&record_usage, stdout);
			exit(fflush(stdout) ? EXIT_INTERNAL : EXIT_OK);
		case 'm':
		case 'c':
			o->kind = c == 'm' ? TARGET_MODULE : TARGET_CODE;
			o->what = optarg;
			stop = 1;
			break;
		case ':':
			bad_usage("option '%s' needs a value",
				  argv[optind - 1]);
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, 0 };

				bad_usage("unknown option '%s'", opt);
			}
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->kind == TARGET_MODULE || o->kind == TARGET_CODE) {
		o->args = argv + optind;
		o->nr_args = argc - optind;
		return;
	}
	if (optind >= argc)
		bad_usage("nothing to record%s: give a script, -m, -c or "
			  "-- and a command", "");
	if (!strcmp(argv[optind - 1], "--") && optind > 1) {
		o->kind = TARGET_COMMAND;
	} else {
		o->kind = TARGET_SCRIPT;
	}
	o->what = argv[optind];
	o->args = argv + optind + 1;
	o->nr_args = argc - optind - 1;
}

/* --- checks before recording --------------------------------------------- */

/* 0, or the exit code after printing why the script cannot run. */
static int check_script(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		int e = errno;

		error_code(-e, "cannot open '%s'", path);
		return e == ENOENT || e == ENOTDIR ? EXIT_NOT_FOUND
						   : EXIT_CANNOT_EXEC;
	}
	if (fstat(fd, &st) < 0) {
		error_errno("cannot stat '%s'", path);
		close(fd);
		return EXIT_CANNOT_EXEC;
	}
	close(fd);
	if (S_ISDIR(st.st_mode)) {
		error("cannot run '%s': it is a directory", path);
		hint("give a Python script, or '-m <module>'");
		return EXIT_CANNOT_EXEC;
	}
	return 0;
}

static int check_command(const char *cmd)
{
	char *p = spawn_which(cmd);
	int e = errno;

	if (p) {
		free(p);
		return 0;
	}
	error_code(-e, "cannot run '%s'", cmd);
	return e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}

static unsigned cap_frequency(unsigned long want)
{
	long max = 0;

	if (sysprobe_read_long(MAX_RATE_PATH, &max) < 0)
		max = 0;
	if (max > 0 && want > (unsigned long)max) {
		warning("-F %lu is above the kernel's maximum of %ld "
			"(kernel.perf_event_max_sample_rate): using %ld",
			want, max, max);
		return (unsigned)max;
	}
	return (unsigned)want;
}

/* perf's version, and its `perf version` line (for the probe cache). */
static int perf_version_of(const char *perf, struct perf_version *v,
			   char *line, size_t linelen)
{
	const char *argv[] = { perf, "version", NULL };
	struct strbuf out = STRBUF_INIT;
	char err[PPR_ERR_LEN];
	int st, ret = -1;

	st = spawn_capture(argv, NULL, &out, NULL, 4096, err, sizeof(err));
	if (st >= 0 && WIFEXITED(st) && !WEXITSTATUS(st) &&
	    !perf_version_parse(out.buf, v)) {
		snprintf(line, linelen, "%.*s", (int)strcspn(out.buf, "\n"),
			 out.buf);
		ret = 0;
	}
	strbuf_release(&out);
	return ret;
}

/* --- running ------------------------------------------------------------- */

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
	record_status_read(statusf, &value, &exec_pid);
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
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
		/* a zombie that is not ours still answers kill() */
		kind = record_status_read(statusf, value, NULL);
		if (kind != RECORD_STATUS_NONE)
			return kind;
	}
	return record_status_read(statusf, value, NULL);
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
	struct sigaction sa, old_int, old_quit, old_term, old_hup;
	int r, fd;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
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
		if (perr->len < (1 << 20))
			strbuf_add(perr, buf, (size_t)n);
	}
	close(fd);
	r = spawn_finish(&sp);
out:
	/*
	 * SIGINT and SIGQUIT stay ignored: a late Ctrl-C must not lose
	 * the recording half-processed (the helpers that follow run in
	 * their own process group and do not get it either).
	 */
	(void)old_int;
	(void)old_quit;
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
	for (;;) {
		char buf[4096];
		ssize_t n = read(sp.err, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (errout && errout->len < 65536)
			strbuf_add(errout, buf, (size_t)n);
	}
	close(sp.err);
	return spawn_finish(&sp);
}

static void print_indented(const char *text)
{
	const char *p = text;
	int lines = 0;

	while (*p && lines < 20) {
		size_t n = strcspn(p, "\n");

		if (n)
			fprintf(stderr, "    %.*s\n", (int)n, p);
		lines++;
		p += n;
		if (*p)
			p++;
	}
}

/* Drop perf record's "[ perf record: ... ]" progress lines. */
static void drop_perf_progress(struct strbuf *perr)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = perr->buf;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (strncmp(p, "[ perf record: ", 15))
			strbuf_add(&out, p, n + (p[n] == '\n'));
		p += n + (p[n] == '\n');
	}
	strbuf_reset(perr);
	strbuf_add(perr, out.buf, out.len);
	strbuf_release(&out);
}

static int explain_perf_failure(int st, const char *perr)
{
	char desc[128];

	if (strstr(perr, "Access to performance monitoring") ||
	    strstr(perr, "perf_event_paranoid") ||
	    strstr(perr, "Permission denied") ||
	    strstr(perr, "Operation not permitted")) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_read_file(&sb, "/proc/sys/kernel/perf_event_paranoid",
				 64);
		strbuf_rtrim(&sb);
		error("perf is not permitted to record here "
		      "(kernel.perf_event_paranoid = %s)",
		      sb.len ? sb.buf : "unknown");
		hint("as root: 'sysctl kernel.perf_event_paranoid=1' (or "
		     "-1 for kernel frames), or give perf the CAP_PERFMON "
		     "capability");
		hint("'pyperf-run doctor' checks the whole setup");
		strbuf_release(&sb);
		return EXIT_INTERNAL;
	}
	spawn_describe_status(st, desc, sizeof(desc));
	error("perf record failed (%s)", desc);
	print_indented(perr);
	return EXIT_INTERNAL;
}

/*
 * Can perf open the event at all (not permitted, not supported)?  A
 * quick `perf stat` of an empty shell command tells before anything is
 * started.  It runs while the interpreter is probed: check_event_start()
 * starts it, check_event_finish() reads its verdict.
 */
struct event_check {
	struct spawn sp;
	int started;
	char err[PPR_ERR_LEN];
};

static void check_event_start(struct event_check *c, const char *perf,
			      const char *event)
{
	const char *argv[] = { perf, "stat", "-x,", "-e", event, "--",
			       "/bin/sh", "-c", ":", NULL };

	memset(c, 0, sizeof(*c));
	c->sp = (struct spawn)SPAWN_INIT;
	c->sp.argv = argv;	/* copied by the child; not used later */
	c->sp.in = SPAWN_DEVNULL;
	c->sp.out = SPAWN_DEVNULL;
	c->sp.err = SPAWN_PIPE;
	c->started = spawn_start(&c->sp, c->err, sizeof(c->err)) == 0;
	c->sp.argv = NULL;
}

/* Stop a check whose verdict is not wanted any more. */
static void check_event_abandon(struct event_check *c)
{
	if (!c->started)
		return;
	kill(c->sp.pid, SIGKILL);
	close(c->sp.err);
	spawn_finish(&c->sp);
	c->started = 0;
}

static int check_event_finish(struct event_check *c, const char *event)
{
	struct strbuf errout = STRBUF_INIT;
	int st, code = 0;

	if (!c->started) {
		error("%s", c->err);
		return EXIT_INTERNAL;
	}
	for (;;) {
		char buf[4096];
		ssize_t n = read(c->sp.err, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (errout.len < 65536)
			strbuf_add(&errout, buf, (size_t)n);
	}
	close(c->sp.err);
	st = spawn_finish(&c->sp);
	c->started = 0;
	if (st < 0) {
		error("cannot run perf stat: %s", strerror(-st));
		code = EXIT_INTERNAL;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		if (strstr(errout.buf, "Access to performance monitoring") ||
		    strstr(errout.buf, "perf_event_paranoid") ||
		    strstr(errout.buf, "ermission"))
			code = explain_perf_failure(st, errout.buf);
		else {
			error("perf cannot use the event '%s'", event);
			print_indented(errout.buf);
			hint("'perf list' shows the events this machine has; "
			     "cpu-clock works everywhere");
			code = EXIT_INTERNAL;
		}
	}
	strbuf_release(&errout);
	return code;
}

static void target_argv(const struct record_opts *o, const char *python,
			struct strvec *argv)
{
	int i;

	if (o->kind == TARGET_COMMAND) {
		strvec_push(argv, o->what);
	} else {
		strvec_push(argv, python);
		if (o->kind == TARGET_MODULE)
			strvec_push(argv, "-m");
		else if (o->kind == TARGET_CODE)
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

struct run {
	struct record_opts *o;
	struct pyinfo py;
	int have_py;
	int probed;		/* the probe ran (not from the cache) */
	struct perf_version pv;
	struct mode mode;
	char *perf;
	char *tmp;		/* the session being built */
	char *python;		/* resolved interpreter path */
	unsigned freq;
	enum tristate fix;	/* does perf unwind jitted code */
	char perf_line[128];	/* its `perf version` line */
	long max_stack;		/* kernel.perf_event_max_stack, 0 unknown */
	double complete;	/* share of judged samples with whole stacks,
				   < 0 when none were judged */
	double start, end;
	struct strvec target;
	struct strvec env_set;
	struct session_meta meta;
	struct record_scan scan;
};

static int prepare(struct run *r)
{
	struct record_opts *o = r->o;
	char err[PPR_ERR_LEN], why[PPR_ERR_LEN];
	enum tristate fix;
	int embedded_ready = 0, code, perf_errno;
	const char *py = o->python ? o->python : "python3";
	const char *event = o->event ? o->event : PERFCMD_EVENT_DEFAULT;
	struct event_check ev;

	memset(&ev, 0, sizeof(ev));

	/* The target first: the clearest message wins. */
	if (o->kind == TARGET_SCRIPT && (code = check_script(o->what)))
		return code;
	if (o->kind == TARGET_COMMAND && (code = check_command(o->what)))
		return code;

	/* perf's event check runs while the interpreter is probed */
	r->perf = spawn_which(perfcmd_perf(o->perf, NULL));
	perf_errno = errno;
	if (r->perf)
		check_event_start(&ev, r->perf, event);

	r->python = spawn_which(py);
	if (!r->python) {
		int e = errno;

		check_event_abandon(&ev);
		error_code(-e, "cannot run the interpreter '%s'", py);
		if (!o->python)
			hint("name one with --python PATH");
		if (o->kind == TARGET_COMMAND)
			return EXIT_INTERNAL;
		return e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
	if (record_probe_python(r->python, &r->py, &r->probed, err,
				sizeof(err))) {
		check_event_abandon(&ev);
		error("%s", err);
		/* the probe may have filled some fields before failing */
		pyinfo_release(&r->py);
		return EXIT_INTERNAL;
	}
	r->have_py = 1;
	/*
	 * Run the interpreter itself, not a launcher in front of it (pyenv's
	 * shims are shell scripts that would be profiled too).
	 */
	if (r->py.executable[0] && !access(r->py.executable, X_OK)) {
		free(r->python);
		r->python = xstrdup(r->py.executable);
	}

	if (!r->perf) {
		errno = perf_errno;
		error_errno("cannot run '%s'", perfcmd_perf(o->perf, NULL));
		hint("install perf (Debian/Ubuntu: linux-perf or "
		     "linux-tools-$(uname -r); Fedora: perf)");
		return EXIT_INTERNAL;
	}
	if (perf_version_of(r->perf, &r->pv, r->perf_line,
			    sizeof(r->perf_line))) {
		check_event_abandon(&ev);
		error("cannot tell the version of '%s' ('perf version' "
		      "failed)", r->perf);
		return EXIT_INTERNAL;
	}
	if ((code = check_event_finish(&ev, event)))
		return code;
	fix = perf_version_jit_fix(&r->pv, why, sizeof(why));
	if (fix == TRI_UNKNOWN) {
		/* what `doctor --probe` proved about this perf binary */
		struct probe_verdict v;

		if (!probe_cache_get(r->perf, r->perf_line, &v) &&
		    v.jit_fix != TRI_UNKNOWN)
			fix = v.jit_fix;
	}
	r->fix = fix;
	if (sysprobe_read_long(MAX_STACK_PATH, &r->max_stack) < 0 ||
	    r->max_stack < 0)
		r->max_stack = 0;
	embedded_ready = embedded_available(&r->py);
	mode_decide(&r->py, &r->pv, fix, o->mode, o->trampoline,
		    (unsigned)o->stack_size, embedded_ready, &r->mode);
	if (r->mode.problem[0]) {
		error("Python frames are not available: %s",
		      r->mode.problem);
		if (mode_embedded_supports(&r->py, why, sizeof(why)) &&
		    !embedded_ready && embedded_check(&r->py, why,
						      sizeof(why)) == 0)
			hint("%s", why);
		hint("'pyperf-run doctor --python %s' explains the setup",
		     r->python);
		return EXIT_INTERNAL;
	}
	/*
	 * When neither perf's version nor a probe tells whether it unwinds
	 * through jitted code, the recording does: see judge_session().
	 */
	if (r->mode.warning[0] &&
	    !(r->mode.name == MODE_JIT && fix == TRI_UNKNOWN))
		warning("%s", r->mode.warning);
	/* The automatic choice fell back to CPython's own trampoline. */
	if (o->trampoline == TRAMPOLINE_AUTO &&
	    r->mode.trampoline == TRAMPOLINE_NATIVE &&
	    mode_embedded_supports(&r->py, why, sizeof(why)) &&
	    !embedded_check(&r->py, why, sizeof(why)))
		warning("using CPython's own trampoline: the embedded one "
			"cannot be used: %s", why);
	if (o->stack_size && r->mode.name == MODE_PERF)
		warning("--stack-size only matters in jit mode");
	r->freq = cap_frequency(o->freq ? o->freq : PERFCMD_FREQ_DEFAULT);
	target_argv(o, r->python, &r->target);
	return 0;
}

static void write_meta(struct run *r, int status_known, int status)
{
	struct session_meta *m = &r->meta;
	struct strbuf sb = STRBUF_INIT;
	char pv[64], cwd[4096];
	size_t i;

	perf_version_format(&r->pv, pv, sizeof(pv));
	session_meta_set(m, "format", "%d", SESSION_META_FORMAT);
	session_meta_set(m, "mode", "%s", mode_name_str(r->mode.name));
	session_meta_set(m, "trampoline", "%s",
			 mode_trampoline_str(r->mode.trampoline));
	session_meta_set(m, "python", "%s", r->python);
	session_meta_set(m, "python_version", "%s", r->py.version);
	session_meta_set(m, "perf_version", "%s", pv);
	{
		/* absolute, so that report finds it from anywhere */
		char *abs = realpath(r->perf, NULL);

		session_meta_set(m, "perf", "%s", abs ? abs : r->perf);
		free(abs);
	}
	session_meta_set(m, "call_graph", "%s", r->mode.call_graph);
	session_meta_set(m, "stack_size", "%u", r->mode.stack_size);
	session_meta_set(m, "frequency", "%u", r->freq);
	session_meta_set(m, "event", "%s",
			 r->o->event ? r->o->event : PERFCMD_EVENT_DEFAULT);
	perfcmd_quote_argv(&sb, NULL, r->target.v);
	session_meta_set(m, "command", "%s", sb.buf);
	strbuf_reset(&sb);
	if (status_known)
		session_meta_set(m, "exit_status", "%d",
				 spawn_exit_code(status));
	else
		session_meta_set(m, "exit_status", "%s", "unknown");
	session_meta_set(m, "start_time", "%.6f", r->start);
	session_meta_set(m, "end_time", "%.6f", r->end);
	session_meta_set(m, "samples", "%lu", r->scan.samples);
	if (r->max_stack > 0)
		session_meta_set(m, "max_stack", "%ld", r->max_stack);
	for (i = 0; i < r->scan.nr_pids; i++)
		if (r->scan.pids[i] != r->scan.ignore_pid)
			strbuf_addf(&sb, "%s%d", sb.len ? " " : "",
				    (int)r->scan.pids[i]);
	session_meta_set(m, "pids", "%s", sb.buf);
	if (r->scan.ignore_pid > 0)
		session_meta_set(m, "helper_pid", "%d",
				 (int)r->scan.ignore_pid);
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
 * Read the finished session (still in r->tmp) back as report does
 * (profile_load(), which judges every sample's stack and leaves the
 * report cache behind, so that the first report is fast), print its
 * warnings and the hints the judgement backs, and keep the share of cut
 * stacks in meta.
 */
static void judge_session(struct run *r)
{
	struct profile p;
	struct record_cut_facts f;
	struct strvec hints = STRVEC_INIT;
	char err[PPR_ERR_LEN];
	size_t i;
	int c;

	r->complete = -1.0;
	if (profile_load(&p, r->tmp, NULL, err, sizeof(err))) {
		warning("cannot read the recording back to check its "
			"stacks: %s", err);
		return;
	}
	memset(&f, 0, sizeof(f));
	f.jit = r->mode.name == MODE_JIT;
	f.stack_size = r->mode.stack_size;
	f.max_stack = r->max_stack > 0 ? (unsigned)r->max_stack : 0;
	f.judged = p.quality.judged;
	for (c = 0; c < CUT_NR && c < RECORD_CUT_NR; c++)
		f.cut[c] = p.quality.cut[c];
	dump_facts(&p, &f);
	f.jit_fix_known = r->fix == TRI_YES;

	/*
	 * A handful of samples shows nothing worth a warning (a program
	 * that ran for milliseconds); report still shows them all.
	 */
	if (p.total_samples >= JUDGE_MIN_SAMPLES) {
		/*
		 * Below 1 % nothing changes a conclusion: the summary line
		 * gives the complete share and every report format still
		 * carries each warning.
		 */
		if (significant(&p))
			for (i = 0; i < p.nr_warnings; i++)
				warning("%s", p.warnings[i]);
		record_cut_hints(&f, &hints);
		for (i = 0; i < hints.nr; i++)
			hint("%s", hints.v[i]);
	}

	r->complete = p.quality.judged ?
		(double)p.quality.cut[CUT_NONE] / p.quality.judged : -1.0;
	session_meta_set(&r->meta, "truncated", "%.4f", record_cut_share(&f));
	if (session_meta_write(r->tmp, &r->meta, err, sizeof(err)))
		warning("%s", err);
	strvec_clear(&hints);
	profile_release(&p);
}

/*
 * CPython 3.13.0's jitdump breaks when the process forks (see
 * record_repair_jitdump()): mend, before perf inject reads them, the
 * dumps written during the run by our processes that have ended.  A
 * dump of another run is mended correctly too, so no pid list is
 * needed; one still being written is left alone.
 */
static void repair_dumps(struct run *r, const char *const *srcdirs)
{
	size_t j;

	for (j = 0; srcdirs[j]; j++) {
		DIR *d = opendir(srcdirs[j]);
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
			path = xasprintf("%s/%s", srcdirs[j], de->d_name);
			if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    st.st_uid == geteuid() &&
			    st.st_mtim.tv_sec + 1 >= (time_t)r->start) {
				dropped = record_repair_jitdump(path,
							       (pid_t)v);
				if (dropped < 0)
					warning("cannot repair '%s': %s", path,
						strerror((int)-dropped));
			}
			free(path);
		}
		closedir(d);
	}
}

/*
 * Set some disk space aside in the session, freed before the metadata is
 * written: when the program's recording fills the file system, the
 * session can still be completed with what perf wrote.
 */
static void reserve_space(const char *path)
{
	char zeros[16384];
	int fd, i;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return;
	memset(zeros, 0, sizeof(zeros));
	for (i = 0; i < 4; i++)
		if (write(fd, zeros, sizeof(zeros)) != (ssize_t)sizeof(zeros))
			break;
	close(fd);
}

static int record_run(struct record_opts *o)
{
	struct run r;
	struct perfcmd_record pc;
	struct strvec perf_argv = STRVEC_INIT, env = STRVEC_INIT;
	struct strvec work = STRVEC_INIT, cmd = STRVEC_INIT;
	struct strbuf perr = STRBUF_INIT, ierr = STRBUF_INIT;
	char err[PPR_ERR_LEN];
	char *self = NULL, *statusf = NULL, *data = NULL, *raw = NULL;
	char *abs_tmp = NULL, *bid = NULL, *dump_dir = NULL, *reserve = NULL;
	char *jit_dir = NULL;
	const char *srcdirs[] = { "/tmp", NULL, NULL };
	int exists, code = EXIT_INTERNAL, st, errfd = -1, value = 0;
	enum record_status_kind kind;
	unsigned moved = 0;
	size_t nr_procs;
	char value_buf[64];
	long long recovered;
	int nospace;

	memset(&r, 0, sizeof(r));
	r.o = o;
	strvec_init(&r.target);
	strvec_init(&r.env_set);
	session_meta_init(&r.meta);
	record_scan_init(&r.scan);

	code = prepare(&r);
	if (code)
		goto out;
	code = EXIT_INTERNAL;
	if (session_check_target(o->output, &exists, err, sizeof(err))) {
		error("%s", err);
		hint("choose another directory with -o");
		goto out;
	}
	self = self_exe();
	if (!self) {
		error_errno("cannot find my own executable");
		goto out;
	}
	if (session_create_tmp(o->output, &r.tmp, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	abs_tmp = absolute(r.tmp);
	bid = xasprintf("%s/buildid", abs_tmp);
	statusf = xasprintf("%s/.status", abs_tmp);
	reserve = xasprintf("%s/.reserve", abs_tmp);
	reserve_space(reserve);
	raw = xasprintf("%s/perf.raw", abs_tmp);
	data = xasprintf("%s/perf.data", abs_tmp);

	if (r.mode.trampoline == TRAMPOLINE_EMBEDDED) {
		/* see record_jit_dir(): libdw-unwinding perfs need it */
		if (r.mode.name == MODE_JIT) {
			jit_dir = record_jit_dir(err, sizeof(err));
			if (!jit_dir)
				warning("%s: a perf that unwinds with libdw "
					"will miss the Python frames", err);
		}
		dump_dir = jit_dir ? xstrdup(jit_dir) :
			xasprintf("%s/%s", abs_tmp,
				  r.mode.name == MODE_JIT ? "jit" : "maps");
		srcdirs[1] = dump_dir;
		if (embedded_prepare(&r.py, r.mode.name, dump_dir, &r.env_set,
				     err, sizeof(err))) {
			error("cannot prepare the embedded trampoline: %s",
			      err);
			goto fail;
		}
	} else {
		perfcmd_python_switches(r.mode.name, NULL, &r.env_set);
	}
	spawn_env_build(&env, r.env_set.v);

	errfd = fcntl(2, F_DUPFD, 10);
	if (errfd < 0) {
		error_errno("cannot duplicate stderr");
		goto fail;
	}
	strvec_push(&work, self);
	strvec_push(&work, "record");
	strvec_push(&work, INTERNAL_EXEC);
	strvec_push(&work, statusf);
	strvec_pushf(&work, "%d", errfd);
	strvec_push(&work, "--");
	strvec_pushv(&work, r.target.v);

	perfcmd_record_init(&pc);
	perfcmd_record_set_mode(&pc, &r.mode);
	pc.perf = r.perf;
	pc.frequency = r.freq;
	pc.event = o->event;
	pc.output = r.mode.name == MODE_JIT ? raw : data;
	pc.buildid_dir = bid;
	pc.extra = o->perf_args.nr ? o->perf_args.v : NULL;
	pc.target = work.v;
	/*
	 * Not -q: perf then keeps its error messages (e.g. "failed to
	 * write perf data, error: No space left on device") to itself.
	 * Its "[ perf record: ... ]" progress lines are dropped below.
	 */
	pc.flags = PERFCMD_NO_BUILDID_CACHE;
	perfcmd_record_argv(&pc, &perf_argv);

	if (!o->quiet)
		fprintf(stderr, "pyperf-run: %s mode%s (%s)\n",
			mode_name_str(r.mode.name),
			r.mode.trampoline == TRAMPOLINE_EMBEDDED ?
			", embedded trampoline" : "", r.mode.reason);

	/* so that a helper orphaned by a dying perf is still ours */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r.start = record_now();
	st = run_perf(perf_argv.v, env.v, statusf, &perr, err, sizeof(err));
	r.end = record_now();
	drop_perf_progress(&perr);
	close(errfd);
	errfd = -1;
	if (st < 0) {
		error("%s", err);
		goto fail;
	}
	kind = record_status_read(statusf, &value, &r.scan.ignore_pid);
	if (kind == RECORD_STATUS_NONE && r.scan.ignore_pid > 0) {
		/*
		 * perf ended (killed?) while the program runs on: wait for
		 * it, so that its status is still ours, and keep what perf
		 * wrote.
		 */
		char desc[128];

		spawn_describe_status(st, desc, sizeof(desc));
		warning("perf record %s before the program ended: the "
			"recording stops there", desc);
		kind = wait_for_program(statusf, r.scan.ignore_pid, &value);
	}
	unlink(statusf);
	if (kind == RECORD_STATUS_NONE) {
		code = explain_perf_failure(st, perr.buf);
		goto fail;
	}
	if (kind == RECORD_STATUS_ERRNO) {
		error_code(-value, "cannot run '%s'", r.target.v[0]);
		code = value == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
		goto fail;
	}
	code = spawn_exit_code(value);
	nospace = strstr(perr.buf, strerror(ENOSPC)) != NULL;
	if (nospace) {
		error("perf record could not write '%s/perf.data': %s",
		      o->output, strerror(ENOSPC));
		hint("free some space there, or record into another file "
		     "system with -o");
	} else if (perr.len && !o->quiet) {
		fprintf(stderr, "pyperf-run: perf record said:\n");
		print_indented(perr.buf);
	}
	/*
	 * perf record ended before finishing its file (killed, or out of
	 * space): its header says there is no data.  Count the records
	 * that did reach the file.
	 */
	recovered = record_recover_perf_data(pc.output);
	if (recovered > 0)
		warning("perf record did not finish '%s/perf.data'%s: "
			"keeping the %lld bytes of samples it wrote",
			o->output, nospace ? " (no space left)" :
			(WIFSIGNALED(st) ? " (it was killed)" : ""),
			recovered);

	if (access(pc.output, F_OK) < 0) {
		error("perf record wrote no data");
		print_indented(perr.buf);
		code = EXIT_INTERNAL;
		goto fail;
	}
	if (r.mode.name == MODE_JIT) {
		repair_dumps(&r, srcdirs);
		perfcmd_inject_argv(r.perf, bid, raw, data, &cmd);
		st = run_quiet(cmd.v, &ierr);
		if (st != 0) {
			if (strstr(ierr.buf, strerror(ENOSPC)) || nospace)
				warning("no space left for perf inject --jit "
					"in '%s': Python frames will be "
					"missing", o->output);
			else
				warning("perf inject --jit failed: Python "
					"frames will be missing");
			print_indented(ierr.buf);
			unlink(data);
			if (rename(raw, data) < 0)
				error_errno("cannot rename '%s'", raw);
		} else {
			unlink(raw);
		}
		strvec_clear(&cmd);
	}

	/*
	 * Before anything reads it: see record_fix_exec_forks().  The same
	 * pass finds the run's pids and counts the samples, in both modes.
	 */
	st = record_fix_exec_forks(data, &r.scan, NULL);
	if (st < 0)
		warning("cannot update '%s': %s", data, strerror(-st));

	if (record_collect(abs_tmp, srcdirs, r.scan.pids, r.scan.nr_pids,
			   r.start, &moved, err, sizeof(err)))
		warning("%s", err);
	if (jit_dir && record_jit_dir_remove(jit_dir) < 0)
		warning("cannot remove '%s'", jit_dir);
	if (record_prune_buildid(bid) < 0)
		warning("cannot trim the build-id cache '%s'", bid);
	if (r.mode.name == MODE_JIT && (st = record_save_vdso(bid)) < 0)
		warning("cannot save the vDSO in '%s': %s: samples in it "
			"will stop there", bid, strerror(-st));

	/* room for meta when perf filled the disk */
	unlink(reserve);
	write_meta(&r, 1, value);
	if (session_meta_write(r.tmp, &r.meta, err, sizeof(err))) {
		error("%s", err);
		code = EXIT_INTERNAL;
		goto fail;
	}
	/*
	 * Judged before it is committed: once renamed into place, another
	 * record into the same directory may move it to <dir>.old.
	 */
	judge_session(&r);
	if (session_commit(r.tmp, o->output, err, sizeof(err))) {
		error("%s", err);
		hint("the recording is in '%s'", r.tmp);
		code = EXIT_INTERNAL;
		goto out;
	}
	if (r.probed)
		record_probe_remember(r.py.path, &r.py);
	value_buf[0] = '\0';
	nr_procs = r.scan.nr_pids - (r.scan.ignore_pid > 0 &&
				     r.scan.nr_pids > 0);
	if (!o->quiet && r.complete >= 0)
		snprintf(value_buf, sizeof(value_buf),
			 " (%.1f%% with complete stacks)", 100.0 * r.complete);
	if (!o->quiet)
		fprintf(stderr, "pyperf-run: %lu samples from %zu "
			"process%s%s in '%s'; 'pyperf-run report%s%s' shows "
			"them\n", r.scan.samples, nr_procs,
			nr_procs == 1 ? "" : "es", value_buf, o->output,
			strcmp(o->output, SESSION_DEFAULT_DIR) ? " -i " : "",
			strcmp(o->output, SESSION_DEFAULT_DIR) ? o->output :
			"");
	goto out;
fail:
	if (r.tmp)
		paths_remove_tree(r.tmp);
out:
	if (errfd >= 0)
		close(errfd);
	if (r.have_py)
		pyinfo_release(&r.py);
	free(r.perf);
	free(r.python);
	free(r.tmp);
	free(self);
	free(statusf);
	free(data);
	free(raw);
	free(abs_tmp);
	free(reserve);
	free(bid);
	free(dump_dir);
	if (jit_dir) {
		record_jit_dir_remove(jit_dir);
		free(jit_dir);
	}
	strvec_clear(&perf_argv);
	strvec_clear(&env);
	strvec_clear(&work);
	strvec_clear(&cmd);
	strvec_clear(&r.target);
	strvec_clear(&r.env_set);
	strbuf_release(&perr);
	strbuf_release(&ierr);
	session_meta_release(&r.meta);
	record_scan_release(&r.scan);
	return code;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int code;

	if (argc >= 2 && !strcmp(argv[1], INTERNAL_EXEC))
		return record_internal_exec(argc, argv);
	memset(&o, 0, sizeof(o));
	o.output = SESSION_DEFAULT_DIR;
	o.mode = MODE_AUTO;
	o.trampoline = TRAMPOLINE_AUTO;
	strvec_init(&o.perf_args);
	parse_options(argc, argv, &o);
	code = record_run(&o);
	strvec_clear(&o.perf_args);
	return code;
}
