/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_SPAWN_H
#define PPR_SPAWN_H
#include "compat.h"
#include "strbuf.h"

/*
 * Run a program from an argument vector (never through a shell).
 *
 * Protocol (git run-command style):
 *   1. struct spawn sp = SPAWN_INIT;
 *   2. fill argv (and env, dir, in/out/err as wanted);
 *   3. spawn_start(&sp, err, errlen);
 *   4. use sp.out / sp.err pipes when SPAWN_PIPE was asked for;
 *   5. spawn_finish(&sp) returns the raw wait status.
 *
 * argv[0] is looked up in PATH (spawn_which(), in the parent) unless
 * it contains a '/'.  The child is started with vfork(): it shares our
 * memory until it execs and makes only system calls before (no
 * copy-on-write faults, next to nothing of pyperf-run's own in a
 * process perf may already be sampling); an exec failure comes back
 * through that shared memory, so spawn_start() can tell "not found"
 * (-ENOENT) from "not executable" (-EACCES, -ENOEXEC...).
 */
enum {
	SPAWN_INHERIT = -1,
	SPAWN_DEVNULL = -2,
	SPAWN_PIPE = -3,
	SPAWN_TO_STDERR = -4, /* only for out: the child's stdout goes to our stderr */
};

enum spawn_flags {
	SPAWN_NEW_PGRP = (1 << 0),  /* child gets its own process group */
	SPAWN_DEFAULT_SIGS = (1 << 1), /* reset SIGINT/SIGQUIT/SIGPIPE to default */
};

struct spawn {
	const char *const *argv;
	const char *const *env;	/* NULL: inherit ours */
	const char *dir;	/* NULL: ours */
	int in, out, err;	/* SPAWN_* or an fd to dup2() into place */
	unsigned flags;
	pid_t pid;
	/*
	 * The file to run, looked up as argv[0] would be, when it is not
	 * argv[0] (NULL): a program found in PATH once (spawn_which())
	 * keeps argv[0] as the user typed it.
	 */
	const char *file;
};

#define SPAWN_INIT { NULL, NULL, NULL, SPAWN_INHERIT, SPAWN_INHERIT, \
		     SPAWN_INHERIT, 0, -1, NULL }

/*
 * Start the child.  Returns 0, or -errno: -ENOENT when argv[0] cannot be
 * found, -EACCES/-ENOEXEC... when it cannot be executed, other values for
 * pipe/fork failures.  err gets a message ("cannot run 'x': ...").
 * On success with SPAWN_PIPE, sp->in/out/err hold the parent's pipe ends
 * (the caller closes them).
 */
int spawn_start(struct spawn *sp, char *err, size_t errlen);

/* Wait for the child; returns its wait status (see waitpid(2)), or -errno. */
int spawn_finish(struct spawn *sp);

/*
 * Run argv to completion, capturing stdout into out (when not NULL) and
 * stderr into errout (when not NULL; otherwise it goes to /dev/null).
 * stdin is /dev/null.  Returns the wait status, or -errno as spawn_start().
 * Output beyond max bytes per stream (when max > 0) is read and dropped.
 */
int spawn_capture(const char *const *argv, const char *const *env,
		  struct strbuf *out, struct strbuf *errout, size_t max,
		  char *err, size_t errlen);

/*
 * Find prog in PATH (or check it when it contains '/').  Caller owns the
 * result (free(3)).  Returns NULL and sets errno (ENOENT or EACCES) when
 * there is no executable file by that name.
 */
char *spawn_which(const char *prog);

/*
 * Build an environment: a copy of environ with each "NAME=value" in set
 * replacing or adding NAME, and each bare "NAME" removing it.
 */
void spawn_env_build(struct strvec *out, const char *const *set);

/*
 * A program started held back before its exec, for a profiler that must
 * watch it from its first instruction (top's perf event, the frame
 * walker): spawn_gated_start() forks a child that waits on a pipe;
 * spawn_gated_go() lets it exec path (argv, envp as given: no PATH
 * lookup) and returns 0, or the exec's errno (the child has then
 * exited, its status in *wait_status); spawn_gated_abandon() kills a
 * child that must not run.  The pid is known from the start.
 */
struct spawn_gate {
	pid_t pid;
	int go, back;
};

int spawn_gated_start(struct spawn_gate *g, const char *path,
		      const char *const *argv, const char *const *envp,
		      char *err, size_t errlen);
int spawn_gated_go(struct spawn_gate *g, int *wait_status);
void spawn_gated_abandon(struct spawn_gate *g);

/*
 * None of these processes exists any more (kill(pid, 0) says ESRCH for
 * each): running processes a profiler attached to, and did not start,
 * have ended.
 */
int spawn_all_gone(const pid_t *pids, size_t n);

/* "exited with status 3" / "killed by signal 9 (Killed)" into buf. */
void spawn_describe_status(int status, char *buf, size_t len);

/* The shell convention: exit code, or 128+signal. */
int spawn_exit_code(int status);

#endif
