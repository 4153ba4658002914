/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top's program (see top.h, and top_priv.h for the parts): started
 * stopped before its exec, the event opened on it (src_ring.c), then
 * let go; its processes, its end.  Without libperf, the stubs that say
 * top is not available.
 */
#include "compat.h"
#include "top/top_priv.h"

#ifdef PPR_HAVE_LIBPERF
#include "alloc.h"
#include "spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int top_available(void)
{
	return 1;
}

int top_poll(struct top *t, int timeout_ms)
{
	if (t->o.nr_attach) {
		if (!t->exited && spawn_all_gone(t->o.attach,
						 (size_t)t->o.nr_attach))
			t->exited = 1;
		walker_src_poll(t, t->exited ? 0 : timeout_ms);
		return t->exited;
	}
	if (!t->exited) {
		int st;
		pid_t w = waitpid(t->pid, &st, WNOHANG);

		if (w == t->pid) {
			t->exited = 1;
			t->wait_status = st;
		}
	}
	if (t->wrec)
		walker_src_poll(t, t->exited ? 0 : timeout_ms);
	else
		ring_poll(t, t->exited ? 0 : timeout_ms);
	return t->exited;
}

void top_stop_program(struct top *t)
{
	/* attached processes are never ours to stop: top detaches */
	if (t->o.nr_attach)
		t->exited = 1;
	else if (!t->exited)
		kill(t->pid, SIGTERM);
}

pid_t top_pid(const struct top *t)
{
	return t->pid;
}

int top_wait_status(const struct top *t)
{
	return t->wait_status;
}

const pid_t *top_pids(const struct top *t, size_t *nr)
{
	*nr = t->nr_pids;
	return t->pids;
}

void top_stats(const struct top *t, struct top_stats *st)
{
	struct rusage ru;
	struct timespec now;

	*st = t->st;
	if (!getrusage(RUSAGE_SELF, &ru))
		st->cpu_seconds = (double)ru.ru_utime.tv_sec +
			(double)ru.ru_utime.tv_usec / 1e6 +
			(double)ru.ru_stime.tv_sec +
			(double)ru.ru_stime.tv_usec / 1e6;
	clock_gettime(CLOCK_MONOTONIC, &now);
	st->elapsed = (double)(now.tv_sec - t->start.tv_sec) +
		(double)(now.tv_nsec - t->start.tv_nsec) / 1e9;
}

/* Sampling could not start: the waiting child never runs the program. */
static int abandon(struct top *t, struct spawn_gate *g)
{
	spawn_gated_abandon(g);
	t->exited = 1;
	top_free(t);
	return -1;
}

int top_start(struct top **out, const struct top_opts *o, struct profile *p,
	      int *exec_errno, char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct spawn_gate g;
	struct top *t;
	int e;

	*out = NULL;
	*exec_errno = 0;
	t = xcalloc(1, sizeof(*t));
	t->o = *o;
	t->p = p;
	ring_init(&a, o);
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	if (o->nr_attach) {
		int i;

		/* the frame walker on running processes: nothing to start */
		if (walker_src_open(t, err, errlen) < 0)
			goto fail;
		for (i = 0; i < o->nr_attach; i++)
			if (walker_src_watch(t, o->attach[i], 0, err,
					     errlen) < 0)
				goto fail;
		if (walker_src_attach(t, err, errlen) < 0 ||
		    profile_live_new(&t->lv, p, o->filter, NULL, 1) < 0)
			goto fail;
		t->pid = o->attach[0];
		*out = t;
		return 0;
fail:
		t->exited = 1;
		top_free(t);
		return -1;
	}
	if (spawn_gated_start(&g, o->path, o->argv, o->envp, err, errlen)) {
		free(t);
		return -1;
	}
	t->pid = g.pid;
	top_note_pid(t, t->pid);
	if (o->bpf) {
		if (walker_src_open(t, err, errlen) < 0 ||
		    walker_src_watch(t, t->pid, 1, err, errlen) < 0 ||
		    walker_src_attach(t, err, errlen) < 0 ||
		    profile_live_new(&t->lv, p, o->filter, NULL, 1) < 0)
			return abandon(t, &g);
	} else if (ring_open(t, &a, err, errlen) < 0 ||
		   profile_live_new(&t->lv, p, o->filter, o->dirs,
				    o->jit) < 0) {
		return abandon(t, &g);
	}
	/* go: the event is enabled by the exec */
	e = spawn_gated_go(&g, &t->wait_status);
	if (e) {
		t->exited = 1;
		*exec_errno = e;
		top_free(t);
		return set_err(err, errlen, "cannot run '%s': %s",
			       o->argv[0], strerror(e));
	}
	*out = t;
	return 0;
}

void top_free(struct top *t)
{
	if (!t)
		return;
	walker_src_close(t);
	ring_close(t);
	profile_live_free(t->lv);
	free(t->pend);
	free(t->frames);
	free(t->pids);
	free(t);
}

#else	/* !PPR_HAVE_LIBPERF */

int top_available(void)
{
	return 0;
}

int top_start(struct top **out, const struct top_opts *o, struct profile *p,
	      int *exec_errno, char *err, size_t errlen)
{
	(void)o;
	(void)p;
	*out = NULL;
	*exec_errno = 0;
	return set_err(err, errlen, "this pyperf-run was built without "
		       "libperf");
}

int top_poll(struct top *t, int timeout_ms)
{
	(void)t;
	(void)timeout_ms;
	return 1;
}

void top_update(struct top *t, int final)
{
	(void)t;
	(void)final;
}

void top_stop_program(struct top *t)
{
	(void)t;
}

pid_t top_pid(const struct top *t)
{
	(void)t;
	return 0;
}

int top_wait_status(const struct top *t)
{
	(void)t;
	return 0;
}

const pid_t *top_pids(const struct top *t, size_t *nr)
{
	(void)t;
	*nr = 0;
	return NULL;
}

void top_stats(const struct top *t, struct top_stats *st)
{
	(void)t;
	memset(st, 0, sizeof(*st));
}

void top_free(struct top *t)
{
	(void)t;
}

#endif
