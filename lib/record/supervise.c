/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf and its helpers run under record (see run_priv.h): SIGTERM and
 * SIGHUP passed on to the program, Ctrl-C left to it, the exec helper
 * waited for when it outlives perf, stderr captured.
 */
#include "compat.h"
#include "record/run_priv.h"
#include "record/checks.h"
#include "record/collect.h"
#include "record/status.h"
#include "numparse.h"
#include "spawn.h"

#include <poll.h>
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

/* --duration's end of a launched program (run_priv.h) */

double record_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void record_say_duration_stop(struct record_run *r, pid_t pid)
{
	record_say(r, RECORD_MSG_NOTE, "--duration %g s: the program (pid %d) "
		   "gets SIGINT, as from Ctrl-C%s", r->o->duration, (int)pid,
		   r->backend == &record_walker_backend ?
		   "; recording stopped" : "");
}

void record_say_duration_term(struct record_run *r, pid_t pid)
{
	record_say(r, RECORD_MSG_WARNING, "the program (pid %d) still ran "
		   "%d s after --duration's SIGINT: SIGTERM sent to it",
		   (int)pid, RECORD_DURATION_GRACE);
}

void record_say_max_size_stop(struct record_run *r, const char *after)
{
	char size[32];

	size_text(r->o->max_size, size, sizeof(size));
	record_say(r, RECORD_MSG_NOTE, "recording stopped at --max-size %s "
		   "after %.1f s, perf.data holding %llu bytes%s", size,
		   r->max_size_stop - r->start,
		   (unsigned long long)r->max_size_bytes,
		   r->o->kind == RECORD_TARGET_PIDS ?
		   ": detached, the processes run on" : after);
}

/*
 * --duration with a program, perf record's route: the clock starts when
 * the program does (its pid in statusf, written by the exec helper);
 * at the end, SIGINT to the program; RECORD_DURATION_GRACE seconds
 * later, SIGTERM to a program that still runs.  perf records on until
 * the program has ended, as its workload: a SIGINT to perf too (what
 * Ctrl-C does) does not stop the kernel's samples, only perf's reading
 * of them, and perf 6.1 still writes what fits in its buffers once the
 * program has ended, then counts the rest as lost (57 % of a 3 s grace).
 */
struct duration_stop {
	int on;			/* --duration with a program */
	double stop_at;		/* 0: the program has not started yet */
	double term_at;		/* 0: SIGINT not sent yet */
	int done;		/* SIGTERM sent, or the program ended */
};

/* One look; returns how long to wait for the next one (ms), or -1. */
static int duration_tick(struct record_run *r, struct duration_stop *d)
{
	enum record_status_kind kind;
	pid_t prog = 0;
	double now, at;
	int value;

	if (!d->on || d->done)
		return -1;
	now = record_mono_now();
	at = d->term_at ? d->term_at : d->stop_at;
	if (at && now < at)
		goto wait;
	kind = record_status_read(r->statusf, &value, NULL, &prog);
	if (kind != RECORD_STATUS_NONE) {	/* it ended (or never ran) */
		d->done = 1;
		return -1;
	}
	if (prog <= 0)
		return 20;	/* not started yet */
	if (!d->stop_at) {
		d->stop_at = now + r->o->duration;
	} else if (!d->term_at) {
		kill(prog, SIGINT);
		record_say_duration_stop(r, prog);
		d->term_at = now + RECORD_DURATION_GRACE;
	} else {
		kill(prog, SIGTERM);
		record_say_duration_term(r, prog);
		d->done = 1;
		return -1;
	}
	at = d->term_at ? d->term_at : d->stop_at;
wait:
	/* to the deadline, looking at least every 100 ms */
	return at - now > 0.1 ? 100 : (int)((at - now) * 1000) + 1;
}

/*
 * Run perf record with its stderr into perr; returns its wait status or
 * -errno.  Ctrl-C is for the program (and perf): we ignore it; a
 * SIGTERM/SIGHUP sent to us alone is passed to perf, which stops and
 * passes it on to the program.  --duration: duration_tick().
 */
int record_run_perf(struct record_run *r, struct strbuf *perr,
		    char *err, size_t errlen)
{
	struct spawn sp = SPAWN_INIT;
	struct sigaction sa, old_term, old_hup;
	struct duration_stop d = { 0, 0, 0, 0 };
	const char *statusf = r->statusf;
	int ret, fd;

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

	sp.argv = (const char *const *)r->perf_argv.v;
	sp.env = (const char *const *)r->env.v;
	sp.err = SPAWN_PIPE;
	sp.flags = SPAWN_DEFAULT_SIGS;
	ret = spawn_start(&sp, err, errlen);
	if (ret < 0)
		goto out;
	d.on = r->o->duration > 0 && r->o->kind != RECORD_TARGET_PIDS;
	fd = sp.err;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		char buf[4096];
		ssize_t n;
		int wait_ms;

		forward_to_program(statusf, sp.pid);
		wait_ms = duration_tick(r, &d);
		if (wait_ms >= 0) {
			int p = poll(&pfd, 1, wait_ms);

			if (p == 0 || (p < 0 && errno == EINTR))
				continue;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (perr->len < PERF_STDERR_MAX) {
			/* the line may have come in two reads */
			size_t from = perr->len > sizeof(buf) ?
				      perr->len - sizeof(buf) : 0;

			strbuf_add(perr, buf, (size_t)n);
			if (r->o->max_size && !r->max_size_stop &&
			    strstr(perr->buf + from,
				   RECORD_PERF_MAX_SIZE_LINE))
				r->max_size_stop = record_now();
		}
	}
	close(fd);
	ret = spawn_finish(&sp);
out:
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return ret;
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
