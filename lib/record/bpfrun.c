/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record in bpf mode (run_priv.h's record_walker_backend): the in-kernel
 * frame walker (lib/walker/) instead of perf record.  The program is
 * started held back before its exec (spawn_gated_*), watched by the
 * walker, then let go; or running processes (-p) are watched as they
 * are.  The walker's events become the session's perf.data and pycode
 * file (walker/wrecord.h); the rest of the session (kallsyms, the vDSO,
 * meta, the judgement) is record's usual finish.
 */
#include "compat.h"
#include "record/run_priv.h"
#include "alloc.h"
#include "record/checks.h"
#include "record/collect.h"
#include "strbuf.h"
#include "walker/access.h"
#include "walker/wrecord.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * How often the loop reads the walker's events (ms): the BPF programs
 * do not wake the reader for each sample (a wake-up costs more than the
 * walk), and code objects are named from the process when their first
 * sample is read: a shorter wait names more of a process's last moments
 * (module teardown frees code objects) before it is gone.
 */
#define BPF_POLL_MS 20
int record_is_bpf(const struct record_options *o)
{
	return o->mode == MODE_BPF || o->kind == RECORD_TARGET_PIDS;
}

const struct route_walker *record_walker_here(struct record_run *r)
{
	struct route_walker *w = &r->walker;

	if (!r->walker_asked) {
		w->ready = access_walker_ready(w->why.text,
					       sizeof(w->why.text), w->why.hint,
					       sizeof(w->why.hint));
		w->stack_max = WALKER_USTACK_MAX;
		r->walker_asked = 1;
	}
	return w;
}

/* --- execute ------------------------------------------------------------- */

static volatile sig_atomic_t bpf_sig;

static void bpf_note_signal(int sig)
{
	bpf_sig = sig;
}

/*
 * Wait for the program to end, passing SIGTERM and SIGHUP on to it
 * (bpf_note_signal() notes them; Ctrl-C is ignored here and reaches the
 * program from the terminal).  deadline: a record_mono_now() time to
 * give up at (looking every 50 ms), 0 for none.  1 when it ended and
 * *status holds how, -1 at the deadline, 0 on an error.
 */
static int wait_program(pid_t pid, int *status, double deadline)
{
	for (;;) {
		struct timespec ts = { 0, 50000000L };
		pid_t p = waitpid(pid, status, deadline ? WNOHANG : 0);

		if (p == pid)
			return 1;
		if (p < 0 && errno != EINTR)
			return 0;
		if (bpf_sig) {
			kill(pid, bpf_sig);
			bpf_sig = 0;
		}
		if (deadline) {
			if (record_mono_now() >= deadline)
				return -1;
			nanosleep(&ts, NULL);
		}
	}
}

/*
 * --duration's end of a launched program, the recording over: SIGINT,
 * as from Ctrl-C, then SIGTERM if it still runs RECORD_DURATION_GRACE
 * seconds later, and wait for it (SIGTERM/SIGHUP to us passed on).  1
 * when it ended and *status holds how.
 */
static int end_program(struct record_run *r, pid_t pid, int *status)
{
	int ended;

	kill(pid, SIGINT);
	record_say_duration_stop(r, pid);
	ended = wait_program(pid, status,
			     record_mono_now() + RECORD_DURATION_GRACE);
	if (ended >= 0)
		return ended;
	kill(pid, SIGTERM);
	record_say_duration_term(r, pid);
	return wait_program(pid, status, 0);
}

/*
 * --max-size stopped the recording of a launched program that still
 * runs: the walker lets go of it (*w freed: the BPF programs detached,
 * so it runs at full speed), and record waits for its end, or ends it
 * at --duration's stop_at (> 0) as --duration does.  1 when it ended
 * and r->wait_status holds how; r->end is then.
 */
static int wait_after_max_size(struct record_run *r, struct wrec **w,
			       pid_t pid, double stop_at)
{
	int ended;

	wrec_free(*w);
	*w = NULL;
	ended = wait_program(pid, &r->wait_status, stop_at > 0 ? stop_at : 0);
	if (ended < 0)
		ended = end_program(r, pid, &r->wait_status);
	r->end = record_now();
	return ended;
}

/* The recording's error, and where the disk is full what to do. */
static void say_write_error(struct record_run *r, const char *err)
{
	record_say(r, RECORD_MSG_ERROR, "%s", err);
	if (strstr(err, strerror(ENOSPC)))
		record_say(r, RECORD_MSG_HINT, "free some space there, or "
			   "record into another file system with -o");
}

/* Check each process before anything is loaded: the clearest error. */
static enum record_outcome check_pids(struct record_run *r)
{
	const struct record_options *o = r->o;
	int i;

	for (i = 0; i < o->nr_pids; i++) {
		struct access_report *a = xcalloc(1, sizeof(*a));
		enum record_outcome ret = RECORD_OK;
		int n;

		if (!access_check(o->pids[i], a)) {
			ret = RECORD_FAILED;
			for (n = 0; n < ACCESS_NR; n++) {
				const struct access_item *it = &a->item[n];

				if (it->state != ACCESS_MISSING)
					continue;
				record_say(r, RECORD_MSG_ERROR,
					   "cannot attach to process %d: %s",
					   (int)o->pids[i], it->what);
				if (it->fix[0])
					record_say(r, RECORD_MSG_HINT, "%s",
						   it->fix);
				if (n == ACCESS_PROCESS)
					ret = RECORD_NOT_FOUND;
				break;
			}
		} else {
			for (n = 0; n < ACCESS_NR; n++)
				if (a->item[n].state == ACCESS_WARN)
					record_say(r, RECORD_MSG_WARNING,
						   "process %d: %s",
						   (int)o->pids[i],
						   a->item[n].what);
		}
		free(a);
		if (ret)
			return ret;
	}
	return RECORD_OK;
}

/* What the recording says of itself (wrec_describe()), and meta facts. */
static void say_stats(struct record_run *r, struct wrec *w)
{
	struct wrec_stats st;
	struct strvec lines = STRVEC_INIT;
	size_t i;

	wrec_stats(w, &st);
	wrec_describe(&st, &lines);
	for (i = 0; i < lines.nr; i++)
		record_say(r, RECORD_MSG_NOTE, "%s", lines.v[i]);
	if (st.conv.first_sample_ns)
		session_meta_set(&r->meta, "first_sample_ms", "%.1f",
				 (double)st.conv.first_sample_ns / 1e6);
	session_meta_set(&r->meta, "walker_samples", "%llu",
			 (unsigned long long)st.conv.samples);
	if (st.conv.lost)
		session_meta_set(&r->meta, "walker_lost", "%llu",
				 (unsigned long long)st.conv.lost);
	/* what the walker cost, for make bench and whoever asks */
	if (st.cost_known) {
		session_meta_set(&r->meta, "walker_kernel_ns", "%llu",
				 (unsigned long long)st.cost_ns);
		session_meta_set(&r->meta, "walker_kernel_runs", "%llu",
				 (unsigned long long)st.cost_runs);
	}
	session_meta_set(&r->meta, "walker_ustack_probes", "%llu",
			 (unsigned long long)st.ustack_probes);
	/*
	 * intervals left out (their switch-out was lost), which report's
	 * warnings count with perf's
	 */
	/*
	 * record -p --wall: waits under way at the attach that had not
	 * ended at the end, which report's warnings count
	 */
	if (st.preattach_unended) {
		session_meta_set(&r->meta, "walker_preattach_unended", "%llu",
				 (unsigned long long)st.preattach_unended);
		session_meta_set(&r->meta, "walker_preattach_unended_ns",
				 "%llu", (unsigned long long)
				 st.preattach_unended_ns);
	}
	if (st.conv.offcpu_unopened) {
		session_meta_set(&r->meta, "walker_offcpu_broken", "%llu",
				 (unsigned long long)st.conv.offcpu_unopened);
		session_meta_set(&r->meta, "walker_offcpu_broken_ns", "%llu",
				 (unsigned long long)
				 st.conv.offcpu_unopened_ns);
	}
	strvec_clear(&lines);
}

static enum record_outcome bpf_execute(struct record_run *r)
{
	const struct record_options *o = r->o;
	struct wrec_opts wo;
	struct wrec *w = NULL;
	struct spawn_gate g = { -1, -1, -1 };
	struct sigaction sa, old_int, old_term, old_hup;
	enum record_outcome ret = RECORD_FAILED;
	char err[PPR_ERR_LEN];
	double stop_at = -1;
	int exited = 0, sigs = 0, errnum = 0, failed = 0, i, e;
	int timed_out = 0;	/* --duration ended a launched program's */
	uint64_t *pcs;
	size_t n;
	struct wrec_stats st;

	if (o->kind == RECORD_TARGET_PIDS && (ret = check_pids(r)))
		return ret;
	ret = RECORD_FAILED;
	memset(&wo, 0, sizeof(wo));
	wo.session_dir = r->abs_tmp;
	wo.freq = r->freq;
	wo.ustack_bytes = r->mode.stack_size;
	wo.max_py_frames = WALKER_MAX_PY_FRAMES;
	wo.follow_children = 1;
	/* --wall: switch-out stacks and the time off CPU, walked too */
	wo.wall = o->wall;
	wo.wakers = o->wakers;	/* --wakers: each wait's waker */
	wo.keep_stack_copy = o->keep_stack_copy;
	wo.cmdline = (const char *const *)r->target.v;
	wo.max_bytes = o->max_size;
	/*
	 * The kernel's symbols, read by a thread while the walker's
	 * programs load (tens of milliseconds of the kernel's verifier,
	 * which the program waits for) and as the program runs: the
	 * session's copy, and the ranges the loop tells the walker's own
	 * kernel frames by.
	 */
	record_kallsyms_begin(&r->kallsyms);
	wo.kself_base = record_kallsyms_kself;
	wo.kself_data = &r->kallsyms;
	if (wrec_start(&w, &wo, &errnum, err, sizeof(err))) {
		record_say(r, RECORD_MSG_ERROR, "cannot start the frame "
			   "walker: %s", err);
		/* EPERM: privileges (walker.c), the fix record -p gives */
		if (errnum == EPERM)
			record_say(r, RECORD_MSG_HINT, "%s",
				   ACCESS_SETCAP_FIX);
		return RECORD_FAILED;
	}
	r->start = record_now();
	if (o->kind == RECORD_TARGET_PIDS) {
		for (i = 0; i < o->nr_pids; i++)
			if (wrec_add_pid(w, o->pids[i], 0, err, sizeof(err))) {
				record_say(r, RECORD_MSG_ERROR, "%s", err);
				goto out;
			}
		if (wrec_attach(w, err, sizeof(err))) {
			record_say(r, RECORD_MSG_ERROR, "%s", err);
			goto out;
		}
		if (o->duration > 0)
			stop_at = record_mono_now() + o->duration;
	} else {
		if (spawn_gated_start(&g, r->program_path,
				      (const char *const *)r->target.v,
				      (const char *const *)r->env.v, err,
				      sizeof(err))) {
			record_say(r, RECORD_MSG_ERROR, "%s", err);
			goto out;
		}
		r->program_pid = g.pid;
		if (wrec_add_pid(w, g.pid, WREC_BEFORE_EXEC, err,
				 sizeof(err)) ||
		    wrec_attach(w, err, sizeof(err))) {
			spawn_gated_abandon(&g);
			record_say(r, RECORD_MSG_ERROR, "%s", err);
			goto out;
		}
		e = spawn_gated_go(&g, &r->wait_status);
		if (e) {
			record_say(r, RECORD_MSG_ERROR, "cannot run '%s': %s",
				   r->target.v[0], strerror(e));
			ret = e == ENOENT ? RECORD_NOT_FOUND :
				RECORD_CANNOT_EXEC;
			goto out;
		}
		/* --duration: the program is ended then (end_program()) */
		if (o->duration > 0)
			stop_at = record_mono_now() + o->duration;
	}
	/*
	 * Signals, once the program is forked (an ignored signal would stay
	 * ignored in it across its exec).  Ctrl-C: with a program it is the
	 * program's (the terminal sends it to both; we stop when it ends);
	 * attached, it ends the recording.  SIGTERM/SIGHUP: passed on to
	 * the program, or the end of an attached recording.
	 */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = bpf_note_signal;
	bpf_sig = 0;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if (o->kind != RECORD_TARGET_PIDS)
		sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigs = 1;
	for (;;) {
		if (wrec_poll(w, BPF_POLL_MS, err, sizeof(err)) < 0) {
			say_write_error(r, err);
			failed = 1;
			break;
		}
		if (wrec_stopped(w))
			break;	/* --max-size: the program is left alone */
		if (g.pid > 0 && !exited) {
			pid_t p = waitpid(g.pid, &r->wait_status, WNOHANG);

			if (p == g.pid)
				exited = 1;
		}
		if (bpf_sig) {
			if (g.pid > 0 && !exited) {
				kill(g.pid, bpf_sig);	/* the program's */
				bpf_sig = 0;
			} else {
				break;
			}
		}
		if (exited)
			break;
		if (stop_at > 0 && record_mono_now() >= stop_at) {
			timed_out = g.pid > 0;
			break;
		}
		if (o->kind == RECORD_TARGET_PIDS &&
		    spawn_all_gone(o->pids, (size_t)o->nr_pids))
			break;
	}
	r->end = record_now();
	if (failed) {
		/*
		 * The recording is lost (a write failed: the disk is full),
		 * the program is not: the walker lets go of it, and record
		 * waits for it and ends with its status.
		 */
		wrec_free(w);
		w = NULL;
		if (g.pid > 0 && !exited) {
			record_say(r, RECORD_MSG_NOTE, "no longer recording: "
				   "waiting for the program to end");
			exited = wait_program(g.pid, &r->wait_status, 0);
		}
		r->program_ended = exited;
		goto out;
	}
	/*
	 * drains the ring buffer, writes perf.data and pycode (a program
	 * --duration ends still runs: its code objects are read from it)
	 */
	e = wrec_finish(w, err, sizeof(err));
	if (timed_out)
		exited = end_program(r, g.pid, &r->wait_status);
	if (e) {
		say_write_error(r, err);
		if (g.pid > 0 && !exited)
			exited = wait_after_max_size(r, &w, g.pid, stop_at);
		r->program_ended = exited;
		goto out;
	}
	say_stats(r, w);
	/* the session's kernel symbols: those its samples name */
	n = wrec_kernel_pcs(w, &pcs);
	record_kallsyms_used(&r->kallsyms, pcs, n);
	wrec_stats(w, &st);
	if (st.conv.stopped) {
		/* the finish's last flush may have reached it too */
		r->max_size_stop = r->start + (double)st.conv.stopped_ns / 1e9;
		r->max_size_bytes = st.conv.bytes;
		record_say_max_size_stop(r, g.pid > 0 && !exited ?
					 ": the program runs on, not recorded" :
					 "");
		if (g.pid > 0 && !exited)
			exited = wait_after_max_size(r, &w, g.pid, stop_at);
		r->program_ended = exited;
	}
	if (!st.conv.samples && !st.conv.offcpu) {
		/* an empty recording is no session to report */
		if (st.conv.stopped)
			record_say(r, RECORD_MSG_ERROR, "no samples: the "
				   "first records (the processes' mappings) "
				   "reached --max-size");
		else
			record_say(r, RECORD_MSG_ERROR, "no samples: %s did "
				   "not run on a CPU while %s",
				   o->kind == RECORD_TARGET_PIDS ?
				   "the processes" : "the program",
				   o->kind == RECORD_TARGET_PIDS ?
				   "attached" : "recorded");
		if (st.conv.stopped)
			record_say(r, RECORD_MSG_HINT, "give a larger "
				   "--max-size");
		else if (!o->wall)
			record_say(r, RECORD_MSG_HINT, "an idle "
				   "process waits: --wall records "
				   "where, and for what");
		goto out;
	}
	ret = RECORD_OK;
out:
	wrec_free(w);
	if (sigs) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
	}
	return ret;
}

/* The program gets our environment as it is. */
static enum record_outcome bpf_prepare(struct record_run *r)
{
	spawn_env_build(&r->env, NULL);
	return RECORD_OK;
}

/* The walker writes the session itself: nothing to collect. */
const struct record_backend record_walker_backend = {
	.prepare = bpf_prepare,
	.execute = bpf_execute,
	.collect = NULL,
};
