/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf and its helpers run under record (see run_priv.h): SIGTERM and
 * SIGHUP passed on to the program, Ctrl-C left to it, the exec helper
 * waited for when it outlives perf, stderr captured.
 */
#include "compat.h"
#include "record/run_priv.h"
#include "record/checks.h"
#include "record/status.h"
#include "spawn.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How much of perf record's stderr is kept. */
#define PERF_STDERR_MAX (1 << 20)
/* How long to wait between looks at an orphaned exec helper (ns). */
#define HELPER_POLL_NS 100000000L

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
enum record_status_kind record_wait_helper(const char *statusf,
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
int record_run_perf(const char *const *argv, const char *const *env,
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
int record_run_quiet(const char *const *argv, struct strbuf *errout)
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
