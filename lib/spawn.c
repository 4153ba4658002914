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

static void child_fail(int fd, int code)
{
	ssize_t r;

	do {
		r = write(fd, &code, sizeof(code));
	} while (r < 0 && errno == EINTR);
	_exit(127);
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

int spawn_start(struct spawn *sp, char *err, size_t errlen)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int ep[2] = { -1, -1 };
	int devnull = -1, code = 0, ret = 0;
	char *path = NULL;
	pid_t pid;
	ssize_t n;

	path = spawn_which(sp->argv[0]);
	if (!path) {
		ret = -errno;
		set_err(err, errlen, "cannot run '%s': %s", sp->argv[0],
			strerror(errno));
		goto out;
	}
	if ((sp->in == SPAWN_PIPE && pipe2(pin, O_CLOEXEC) < 0) ||
	    (sp->out == SPAWN_PIPE && pipe2(pout, O_CLOEXEC) < 0) ||
	    (sp->err == SPAWN_PIPE && pipe2(perr, O_CLOEXEC) < 0) ||
	    pipe2(ep, O_CLOEXEC) < 0) {
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
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		set_err(err, errlen, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (sp->flags & SPAWN_NEW_PGRP)
			setpgid(0, 0);
		if (sp->flags & SPAWN_DEFAULT_SIGS) {
			signal(SIGINT, SIG_DFL);
			signal(SIGQUIT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGPIPE, SIG_DFL);
		}
		if (setup_fd(sp->in, 0, pin[0], devnull) < 0 ||
		    setup_fd(sp->out, 1, pout[1], devnull) < 0 ||
		    setup_fd(sp->err, 2, perr[1], devnull) < 0)
			child_fail(ep[1], errno);
		if (sp->dir && chdir(sp->dir) < 0)
			child_fail(ep[1], errno);
		execve(path, (char *const *)sp->argv,
		       sp->env ? (char *const *)sp->env : environ);
		child_fail(ep[1], errno);
	}
	sp->pid = pid;
	close(ep[1]);
	ep[1] = -1;
	do {
		n = read(ep[0], &code, sizeof(code));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(code)) {
		int st;

		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		sp->pid = -1;
		ret = -code;
		set_err(err, errlen, "cannot run '%s': %s", sp->argv[0],
			strerror(code));
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
			      perr[1], ep[0], ep[1], devnull };
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
