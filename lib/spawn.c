/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "spawn.h"
#include "alloc.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int is_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

char *spawn_which(const char *prog)
{
	const char *path, *p;
	int found_noexec = 0;

	if (!prog || !*prog) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(prog, '/')) {
		int r = is_executable(prog);

		if (r < 0) {
			errno = -r;
			return NULL;
		}
		return xstrdup(prog);
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; ) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *cand;
		int r;

		if (n == 0)
			cand = xasprintf("./%s", prog);
		else
			cand = xasprintf("%.*s/%s", (int)n, p, prog);
		r = is_executable(cand);
		if (!r)
			return cand;
		if (r == -EACCES)
			found_noexec = 1;
		free(cand);
		if (!colon)
			break;
		p = colon + 1;
	}
	errno = found_noexec ? EACCES : ENOENT;
	return NULL;
}

void spawn_env_build(struct strvec *out, const char *const *set)
{
	char **e;
	size_t i;

	strvec_init(out);
	for (e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
		int drop = 0;

		for (i = 0; set && set[i]; i++) {
			const char *seq = strchr(set[i], '=');
			size_t sn = seq ? (size_t)(seq - set[i]) : strlen(set[i]);

			if (sn == n && !strncmp(set[i], *e, n)) {
				drop = 1;
				break;
			}
		}
		if (!drop)
			strvec_push(out, *e);
	}
	for (i = 0; set && set[i]; i++)
		if (strchr(set[i], '='))
			strvec_push(out, set[i]);
}

static int setup_fd(int want, int target, int pipe_end, int devnull)
{
	int src = -1;

	if (want == SPAWN_INHERIT)
		return 0;
	if (want == SPAWN_DEVNULL)
		src = devnull;
	else if (want == SPAWN_PIPE)
		src = pipe_end;
	else if (want == SPAWN_TO_STDERR)
		src = 2;
	else
		src = want;
	if (src == target)
		return fcntl(src, F_SETFD, 0);
	return dup2(src, target) < 0 ? -1 : 0;
}

/*
 * The vfork()ed child, in our memory and on our stack until it execs:
 * system calls only, every signal blocked until the exec (a handler of
 * ours would run on our data), errno into *err on failure.
 */
static PPR_NORETURN void spawn_child(const struct spawn *sp,
				     const char *path, const int *ends,
				     int devnull, const sigset_t *mask,
				     volatile int *err)
{
	struct sigaction dfl, cur;
	int sig;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	/* the handlers are ours: the program starts with the defaults */
	for (sig = 1; sig < NSIG; sig++)
		if (!sigaction(sig, NULL, &cur) &&
		    cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN)
			sigaction(sig, &dfl, NULL);
	if (sp->flags & SPAWN_DEFAULT_SIGS) {
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGQUIT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGPIPE, &dfl, NULL);
	}
	if (((sp->flags & SPAWN_NEW_PGRP) && setpgid(0, 0) < 0) ||
	    setup_fd(sp->in, 0, ends[0], devnull) < 0 ||
	    setup_fd(sp->out, 1, ends[1], devnull) < 0 ||
	    setup_fd(sp->err, 2, ends[2], devnull) < 0 ||
	    (sp->dir && chdir(sp->dir) < 0))
		goto fail;
	sigprocmask(SIG_SETMASK, mask, NULL);
	execve(path, (char *const *)sp->argv,
	       sp->env ? (char *const *)sp->env : environ);
fail:
	*err = errno ? errno : EINVAL;
	_exit(127);
}

/*
 * vfork(): the child shares our memory until it execs, so starting it
 * copies nothing and it takes no copy-on-write page faults; the few
 * system calls before its exec are all of pyperf-run that runs in it.
 * That matters where perf already samples the child (the exec helper's
 * program: its pid is the program's), and it is cheaper for every
 * command.  We stay suspended until it has exec'd or failed, so *err is
 * final when this returns.  Returns the pid, or -1 with errno set.
 */
static pid_t vfork_exec(const struct spawn *sp, const char *path,
			const int *ends, int devnull, volatile int *err)
{
	sigset_t all, old;
	pid_t pid;
	int e;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = vfork();
	if (pid == 0)
		spawn_child(sp, path, ends, devnull, &old, err);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return pid;
}

int spawn_start(struct spawn *sp, char *err, size_t errlen)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int devnull = -1, ret = 0, ends[3];
	volatile int child_err = 0;
	char *path = NULL;
	pid_t pid;

	path = spawn_which(sp->file ? sp->file : sp->argv[0]);
	if (!path) {
		ret = -errno;
		set_err(err, errlen, "cannot run '%s': %s", sp->argv[0],
			strerror(errno));
		goto out;
	}
	if ((sp->in == SPAWN_PIPE && pipe2(pin, O_CLOEXEC) < 0) ||
	    (sp->out == SPAWN_PIPE && pipe2(pout, O_CLOEXEC) < 0) ||
	    (sp->err == SPAWN_PIPE && pipe2(perr, O_CLOEXEC) < 0)) {
		ret = -errno;
		set_err(err, errlen, "cannot create a pipe: %s",
			strerror(errno));
		goto out;
	}
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0) {
		ret = -errno;
		set_err(err, errlen, "cannot open '/dev/null': %s",
			strerror(errno));
		goto out;
	}
	ends[0] = pin[0];
	ends[1] = pout[1];
	ends[2] = perr[1];
	pid = vfork_exec(sp, path, ends, devnull, &child_err);
	if (pid < 0) {
		ret = -errno;
		set_err(err, errlen, "cannot fork: %s", strerror(errno));
		goto out;
	}
	sp->pid = pid;
	if (child_err) {
		int st;

		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		sp->pid = -1;
		ret = -child_err;
		set_err(err, errlen, "cannot run '%s': %s", sp->argv[0],
			strerror(child_err));
		goto out;
	}
	if (sp->in == SPAWN_PIPE) {
		sp->in = pin[1];
		pin[1] = -1;
	}
	if (sp->out == SPAWN_PIPE) {
		sp->out = pout[0];
		pout[0] = -1;
	}
	if (sp->err == SPAWN_PIPE) {
		sp->err = perr[0];
		perr[0] = -1;
	}
out:
	{
		int fds[] = { pin[0], pin[1], pout[0], pout[1], perr[0],
			      perr[1], devnull };
		size_t i;

		for (i = 0; i < ARRAY_SIZE(fds); i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	free(path);
	return ret;
}

int spawn_finish(struct spawn *sp)
{
	int st;

	if (sp->pid <= 0)
		return -ECHILD;
	while (waitpid(sp->pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	sp->pid = -1;
	return st;
}

static void drain(int *fd, struct strbuf *sb, size_t max)
{
	char buf[8192];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (sb && (!max || sb->len < max))
		strbuf_add(sb, buf, (size_t)n);
}

int spawn_capture(const char *const *argv, const char *const *env,
		  struct strbuf *out, struct strbuf *errout, size_t max,
		  char *err, size_t errlen)
{
	struct spawn sp = SPAWN_INIT;
	int r;

	sp.argv = argv;
	sp.env = env;
	sp.in = SPAWN_DEVNULL;
	sp.out = out ? SPAWN_PIPE : SPAWN_DEVNULL;
	sp.err = errout ? SPAWN_PIPE : SPAWN_DEVNULL;
	r = spawn_start(&sp, err, errlen);
	if (r < 0)
		return r;
	{
		int ofd = out ? sp.out : -1, efd = errout ? sp.err : -1;

		while (ofd >= 0 || efd >= 0) {
			struct pollfd pf[2];
			nfds_t k = 0;

			if (ofd >= 0)
				pf[k++] = (struct pollfd){ ofd, POLLIN, 0 };
			if (efd >= 0)
				pf[k++] = (struct pollfd){ efd, POLLIN, 0 };
			if (poll(pf, k, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			k = 0;
			if (ofd >= 0 && pf[k++].revents)
				drain(&ofd, out, max);
			if (efd >= 0 && pf[k].revents)
				drain(&efd, errout, max);
		}
		if (ofd >= 0)
			close(ofd);
		if (efd >= 0)
			close(efd);
	}
	return spawn_finish(&sp);
}

void spawn_describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "stopped with wait status %#x", status);
}

int spawn_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 125;
}

/* ---- a child held back before its exec ------------------------------ */

/*
 * The gated child: wait for the go byte (or EOF: the parent gave up, and
 * then the child is killed before it reads), exec; an exec failure goes
 * back as errno through the CLOEXEC pipe.
 */
static PPR_NORETURN void gated_child(const char *path,
				     const char *const *argv,
				     const char *const *envp, int go,
				     int back)
{
	char c;
	int e;

	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	close(go);
	/* execve() takes char *const []: it changes neither */
	execve(path, (char *const *)argv, (char *const *)envp);
	e = errno;
	if (write(back, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int spawn_gated_start(struct spawn_gate *g, const char *path,
		      const char *const *argv, const char *const *envp,
		      char *err, size_t errlen)
{
	int go[2], back[2], e;

	g->pid = -1;
	g->go = g->back = -1;
	if (pipe2(go, O_CLOEXEC))
		return set_err(err, errlen, "cannot make a pipe: %s",
			       strerror(errno));
	if (pipe2(back, O_CLOEXEC)) {
		e = errno;
		close(go[0]), close(go[1]);
		return set_err(err, errlen, "cannot make a pipe: %s",
			       strerror(e));
	}
	g->pid = fork();
	if (g->pid < 0) {
		e = errno;
		close(go[0]), close(go[1]), close(back[0]), close(back[1]);
		return set_err(err, errlen, "cannot fork: %s", strerror(e));
	}
	if (!g->pid) {
		close(go[1]);
		close(back[0]);
		gated_child(path, argv, envp, go[0], back[1]);
	}
	close(go[0]);
	close(back[1]);
	g->go = go[1];
	g->back = back[0];
	return 0;
}

int spawn_gated_go(struct spawn_gate *g, int *wait_status)
{
	ssize_t n;
	int e = 0;

	if (write(g->go, "g", 1) != 1)
		e = errno;
	close(g->go);
	g->go = -1;
	while ((n = read(g->back, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(g->back);
	g->back = -1;
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(g->pid, wait_status, 0) < 0 && errno == EINTR)
			;
		return e ? e : EIO;
	}
	return 0;
}

void spawn_gated_abandon(struct spawn_gate *g)
{
	if (g->pid <= 0)
		return;
	kill(g->pid, SIGKILL);	/* before it can read EOF and exec */
	if (g->go >= 0)
		close(g->go);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (g->back >= 0)
		close(g->back);
	g->go = g->back = -1;
	g->pid = -1;
}

int spawn_all_gone(const pid_t *pids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!kill(pids[i], 0) || errno != ESRCH)
			return 0;
	return 1;
}
