/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The internal exec helper, perf record's workload (see run.h): it runs
 * the program, passes on the signals meant for it, and writes the
 * program's wait status to the status file (record/status.h).
 */
#include "compat.h"
#include "record/run.h"
#include "record/status.h"
#include "spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

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

enum record_outcome record_exec_program(const char *statusf, int errfd,
					const char *file, char *const *argv,
					int *wait_status, record_msg_fn *msg,
					void *msg_data)
{
	struct spawn sp = SPAWN_INIT;
	struct sigaction sa;
	char err[PPR_ERR_LEN];
	int fd, st, r;

	fd = open(statusf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		  O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, sizeof(err), "cannot create '%s': %s", statusf,
			 strerror(errno));
		msg(msg_data, RECORD_MSG_ERROR, err);
		return RECORD_FAILED;
	}
	if (errfd != STDERR_FILENO) {
		if (dup2(errfd, STDERR_FILENO) < 0) {
			snprintf(err, sizeof(err), "cannot restore stderr: %s",
				 strerror(errno));
			msg(msg_data, RECORD_MSG_ERROR, err);
			close(fd);
			return RECORD_FAILED;
		}
		close(errfd);
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

	/*
	 * The program's PATH is the one record was given, not perf's
	 * (record found the program in it already: file).
	 */
	if (getenv(RECORD_PATH_ENV))
		setenv("PATH", getenv(RECORD_PATH_ENV), 1);
	else
		unsetenv("PATH");
	unsetenv(RECORD_PATH_ENV);
	sp.argv = (const char *const *)argv;
	sp.file = file;
	sp.flags = SPAWN_DEFAULT_SIGS;
	r = spawn_start(&sp, err, sizeof(err));
	if (r < 0) {
		record_status_write(fd, RECORD_STATUS_ERRNO, -r);
		close(fd);
		return r == -ENOENT ? RECORD_NOT_FOUND : RECORD_CANNOT_EXEC;
	}
	exec_child = sp.pid;
	record_status_write(fd, RECORD_STATUS_PROGRAM, (int)sp.pid);
	if (exec_pending)
		kill(sp.pid, exec_pending);
	st = spawn_finish(&sp);
	if (st < 0)
		st = 0x7f00; /* cannot happen: report "exited 127" */
	record_status_write(fd, RECORD_STATUS_WAIT, st);
	close(fd);
	*wait_status = st;
	return RECORD_OK;
}
