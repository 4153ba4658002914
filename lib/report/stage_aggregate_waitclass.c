/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The classification of off-CPU intervals
 * (stage_aggregate_waitclass.h): one table of the functions a wait goes
 * through, searched from the leaf outwards, so that the kernel's stack,
 * innermost, decides first; then two refinements from the user's part
 * of the stack: a futex wait is the GIL's when the interpreter's GIL
 * code called it, and a poll is an event loop's idle wait when
 * asyncio's or selectors' Python frames called it.
 * pyperf-run-report(1) documents the same table.
 */
#include "compat.h"
#include "report/stage_aggregate_waitclass.h"

/* What a frame of the table says. */
enum wclass {
	W_SLEEP,	/* -> sleep */
	W_IO,		/* -> io */
	W_POLL,		/* -> idle under an event loop, else io */
	W_FUTEX,	/* -> gil when the GIL's code waits, else lock */
	W_LOCK,		/* a user-space lock: -> lock */
	W_COND,		/* a condition variable wait (user space): the GIL
			   when the interpreter's GIL callers are above */
	W_MUTEX,	/* a pthread mutex: the GIL's own mutex when only the
			   interpreter's unnamed helpers lead to a GIL
			   caller (take_gil locks it first), else a lock */
	W_GIL,		/* take_gil: -> gil, seen */
	W_GILCALLER,	/* exported callers of take_gil: gil, inferred,
			   when the wait below is a condition wait */
	W_SLEEPER,	/* time.sleep's C function: a poll or select it
			   calls (with no fds, before 3.11) sleeps */
	W_RUNQ,		/* preemption points: -> runqueue */
	W_CHILD,	/* waiting for a child process: -> child */
	W_OTHER,	/* a known wait of no class above: -> other */
};

enum wmatch { M_EXACT, M_PREFIX };

struct wentry {
	enum frame_kind kind;	/* FRAME_KERNEL, or FRAME_NATIVE (user) */
	enum wmatch match;
	const char *name;
	enum wclass cls;
};

/* The table (pyperf-run-report(1), WAIT REASONS, lists it too). */
static const struct wentry table[] = {
	/* kernel: sleeping */
	{ FRAME_KERNEL, M_EXACT, "do_nanosleep", W_SLEEP },
	{ FRAME_KERNEL, M_EXACT, "hrtimer_nanosleep", W_SLEEP },
	{ FRAME_KERNEL, M_PREFIX, "__x64_sys_clock_nanosleep", W_SLEEP },
	{ FRAME_KERNEL, M_PREFIX, "__x64_sys_nanosleep", W_SLEEP },
	/* kernel: locks (futexes) */
	{ FRAME_KERNEL, M_PREFIX, "futex_wait", W_FUTEX },
	{ FRAME_KERNEL, M_EXACT, "do_futex", W_FUTEX },
	/* kernel: polling, the event loops' waits */
	{ FRAME_KERNEL, M_EXACT, "ep_poll", W_POLL },
	{ FRAME_KERNEL, M_EXACT, "do_epoll_wait", W_POLL },
	{ FRAME_KERNEL, M_EXACT, "do_sys_poll", W_POLL },
	{ FRAME_KERNEL, M_EXACT, "do_select", W_POLL },
	{ FRAME_KERNEL, M_EXACT, "core_sys_select", W_POLL },
	/* kernel: I/O */
	{ FRAME_KERNEL, M_PREFIX, "pipe_read", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "pipe_write", W_IO },
	{ FRAME_KERNEL, M_EXACT, "anon_pipe_read", W_IO },
	{ FRAME_KERNEL, M_EXACT, "anon_pipe_write", W_IO },
	{ FRAME_KERNEL, M_EXACT, "sk_wait_data", W_IO },
	{ FRAME_KERNEL, M_EXACT, "sk_stream_wait_memory", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "tcp_recvmsg", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "tcp_sendmsg", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "udp_recvmsg", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "unix_stream_read", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "unix_dgram_recvmsg", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "sock_recvmsg", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "sock_sendmsg", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "__skb_wait_for_more_packets", W_IO },
	{ FRAME_KERNEL, M_EXACT, "inet_csk_accept", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "inet_wait_for_connect", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "__inet_stream_connect", W_IO },
	{ FRAME_KERNEL, M_EXACT, "io_schedule", W_IO },
	{ FRAME_KERNEL, M_EXACT, "io_schedule_timeout", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "folio_wait_bit", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "wait_on_page_bit", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "jbd2_", W_IO },
	{ FRAME_KERNEL, M_EXACT, "file_write_and_wait_range", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "__x64_sys_fsync", W_IO },
	{ FRAME_KERNEL, M_PREFIX, "__x64_sys_fdatasync", W_IO },
	{ FRAME_KERNEL, M_EXACT, "n_tty_read", W_IO },
	{ FRAME_KERNEL, M_EXACT, "wait_woken", W_IO },
	/* kernel: preempted where the kernel lets go of the CPU */
	{ FRAME_KERNEL, M_EXACT, "__cond_resched", W_RUNQ },
	{ FRAME_KERNEL, M_EXACT, "preempt_schedule_common", W_RUNQ },
	{ FRAME_KERNEL, M_EXACT, "preempt_schedule_irq", W_RUNQ },
	{ FRAME_KERNEL, M_EXACT, "exit_to_user_mode_loop", W_RUNQ },
	{ FRAME_KERNEL, M_EXACT, "irqentry_exit_to_user_mode", W_RUNQ },
	/* kernel: waiting for a child process (wait4, waitid, waitpid) */
	{ FRAME_KERNEL, M_EXACT, "do_wait", W_CHILD },
	{ FRAME_KERNEL, M_EXACT, "kernel_wait4", W_CHILD },
	{ FRAME_KERNEL, M_EXACT, "kernel_waitid", W_CHILD },
	{ FRAME_KERNEL, M_PREFIX, "__do_sys_wait4", W_CHILD },
	{ FRAME_KERNEL, M_PREFIX, "__x64_sys_wait4", W_CHILD },
	{ FRAME_KERNEL, M_PREFIX, "__do_sys_waitid", W_CHILD },
	{ FRAME_KERNEL, M_PREFIX, "__x64_sys_waitid", W_CHILD },
	/* kernel: other known waits */
	{ FRAME_KERNEL, M_EXACT, "do_sigtimedwait", W_OTHER },
	/* user space: the GIL (CPython's ceval_gil.c) */
	{ FRAME_NATIVE, M_EXACT, "take_gil", W_GIL },
	/* a thread asked to drop the GIL waits in drop_gil until another
	   has taken it (FORCE_SWITCHING): a GIL handoff, not a lock */
	{ FRAME_NATIVE, M_EXACT, "drop_gil", W_GIL },
	{ FRAME_NATIVE, M_EXACT, "PyEval_RestoreThread", W_GILCALLER },
	{ FRAME_NATIVE, M_EXACT, "PyEval_AcquireThread", W_GILCALLER },
	{ FRAME_NATIVE, M_EXACT, "_PyEval_AcquireLock", W_GILCALLER },
	{ FRAME_NATIVE, M_EXACT, "PyGILState_Ensure", W_GILCALLER },
	/* the eval loop itself waits on a condition only to retake the
	   GIL it was asked to drop (its static helpers stripped away) */
	{ FRAME_NATIVE, M_EXACT, "_PyEval_EvalFrameDefault", W_GILCALLER },
	/* user space: time.sleep (pysleep() selects with no fds, 3.10-) */
	{ FRAME_NATIVE, M_EXACT, "pysleep", W_SLEEPER },
	{ FRAME_NATIVE, M_EXACT, "time_sleep", W_SLEEPER },
	/* user space: locks and conditions */
	{ FRAME_NATIVE, M_EXACT, "PyThread_acquire_lock_timed", W_LOCK },
	{ FRAME_NATIVE, M_EXACT, "PyThread_acquire_lock", W_LOCK },
	{ FRAME_NATIVE, M_PREFIX, "sem_", W_LOCK },
	{ FRAME_NATIVE, M_PREFIX, "__new_sem_wait", W_LOCK },
	{ FRAME_NATIVE, M_PREFIX, "do_futex_wait", W_LOCK },
	{ FRAME_NATIVE, M_PREFIX, "pthread_mutex_lock", W_MUTEX },
	{ FRAME_NATIVE, M_PREFIX, "___pthread_mutex_lock", W_MUTEX },
	{ FRAME_NATIVE, M_PREFIX, "__lll_lock_wait", W_MUTEX },
	{ FRAME_NATIVE, M_PREFIX, "__GI___lll_lock_wait", W_MUTEX },
	{ FRAME_NATIVE, M_PREFIX, "pthread_cond_", W_COND },
	{ FRAME_NATIVE, M_PREFIX, "___pthread_cond_", W_COND },
	{ FRAME_NATIVE, M_PREFIX, "__pthread_cond_", W_COND },
	/* user space without a kernel stack: the syscall wrappers */
	{ FRAME_NATIVE, M_PREFIX, "__GI___clock_nanosleep", W_SLEEP },
	{ FRAME_NATIVE, M_PREFIX, "__clock_nanosleep", W_SLEEP },
	{ FRAME_NATIVE, M_EXACT, "clock_nanosleep", W_SLEEP },
	{ FRAME_NATIVE, M_PREFIX, "__GI___wait4", W_CHILD },
	{ FRAME_NATIVE, M_PREFIX, "__wait4", W_CHILD },
	{ FRAME_NATIVE, M_PREFIX, "__waitid", W_CHILD },
	{ FRAME_NATIVE, M_PREFIX, "__GI___waitpid", W_CHILD },
	{ FRAME_NATIVE, M_PREFIX, "__waitpid", W_CHILD },
	{ FRAME_NATIVE, M_PREFIX, "__GI___libc_read", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "__libc_read", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "__libc_recv", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "__libc_send", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "__libc_write", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "__GI___libc_write", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "fdatasync", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "fsync", W_IO },
	{ FRAME_NATIVE, M_PREFIX, "epoll_wait", W_POLL },
	{ FRAME_NATIVE, M_PREFIX, "__GI_epoll_wait", W_POLL },
	{ FRAME_NATIVE, M_PREFIX, "__poll", W_POLL },
	{ FRAME_NATIVE, M_PREFIX, "__select", W_POLL },
};

static int entry_match(const struct wentry *e, const struct frame *f)
{
	size_t len;

	if (!f->func)
		return 0;
	/* user-space entries: native code and the call plumbing */
	if (e->kind == FRAME_KERNEL ? f->kind != FRAME_KERNEL :
	    (f->kind != FRAME_NATIVE && f->kind != FRAME_PLUMBING))
		return 0;
	len = strlen(e->name);
	if (strncmp(f->func, e->name, len))
		return 0;
	/*
	 * M_EXACT: the name, or the name of a copy GCC made of it: a dot
	 * and a suffix (take_gil.lto_priv.0 in an LTO build such as
	 * Debian's python3.14, .constprop.0, .isra.0, .part.0, .cold); no
	 * C name has a dot
	 */
	return e->match == M_PREFIX || f->func[len] == '\0' ||
		f->func[len] == '.';
}

/* The table's class of frame f, or -1. */
static int class_of(const struct frame *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (entry_match(&table[i], f))
			return (int)table[i].cls;
	return -1;
}

/* time.sleep's C function is a caller of frame i. */
static int under_sleep(const struct profile *p, const uint32_t *ids,
		       size_t n, size_t i)
{
	for (; i < n; i++) {
		if (class_of(&p->frames[ids[i]]) == W_SLEEPER)
			return 1;
		if (p->frames[ids[i]].kind == FRAME_PYTHON)
			return 0;
	}
	return 0;
}

/* An event loop's Python frames (asyncio, selectors) are callers. */
static int under_event_loop(const struct profile *p, const uint32_t *ids,
			    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct frame *f = &p->frames[ids[i]];

		if (f->kind != FRAME_PYTHON || !f->func)
			continue;
		if (strstr(f->func, "_run_once") ||
		    (f->file && strstr(f->file, "selectors.py") &&
		     strstr(f->func, "select")))
			return 1;
	}
	return 0;
}

/*
 * A futex or condition wait from i outwards: the GIL's when take_gil
 * is a caller (seen), or, before any other lock code, one of its
 * exported callers over a condition variable wait (inferred).
 */
static enum wait_reason futex_reason(const struct profile *p,
				     const uint32_t *ids, size_t n, size_t i,
				     int cond, int *inferred)
{
	int named_c = 0;	/* a C function of its own crossed */
	int mutex = 0;		/* a pthread mutex seen (no condition) */

	for (; i < n; i++) {
		const struct frame *f = &p->frames[ids[i]];
		int c = class_of(f);

		if (c == W_GIL)
			return WAIT_GIL;
		/*
		 * the outermost lock primitive counts: glibc's helpers
		 * between two of them (__pthread_mutex_cond_lock under a
		 * condition wait) are no C function of the program's
		 */
		if (c == W_COND || (c == W_MUTEX && !cond)) {
			if (c == W_COND)
				cond = 1;
			else
				mutex = 1;
			named_c = 0;
		} else if (c == W_LOCK)
			return WAIT_LOCK;
		else if (c == W_GILCALLER && (cond || (mutex && !named_c))) {
			*inferred = 1;
			return WAIT_GIL;
		}
		if (f->kind == FRAME_PYTHON) {
			/*
			 * A condition wait right under a Python frame, no lock
			 * code and no named C function between (only the
			 * interpreter's unnamed static helpers): the eval loop
			 * retaking the GIL (the frame walker puts the Python
			 * frames in place of _PyEval_EvalFrameDefault, the
			 * rule above)
			 */
			if ((cond || mutex) && !named_c) {
				*inferred = 1;
				return WAIT_GIL;
			}
			break;	/* beyond the C call the wait is in */
		}
		/* (glibc's own helpers under the wait do not count) */
		if ((cond || mutex) && c < 0 && f->kind == FRAME_NATIVE && f->func &&
		    f->func[0] && f->func[0] != '[' &&
		    strcmp(f->func, "[unknown]"))
			named_c = 1;
	}
	return WAIT_LOCK;
}

enum wait_reason waitclass(const struct profile *p, const uint32_t *ids,
			   size_t n, const struct wait_facts *wf,
			   int *inferred)
{
	size_t i;

	*inferred = 0;
	/* left runnable: waiting for a CPU, whatever the code was */
	if (wf->preempt || (wf->have_state && wf->prev_state == 0))
		return WAIT_RUNQUEUE;
	for (i = 0; i < n; i++) {
		int c = class_of(&p->frames[ids[i]]);

		switch (c) {
		case W_SLEEP:
			return WAIT_SLEEP;
		case W_IO:
			return WAIT_IO;
		case W_POLL:
			if (under_sleep(p, ids, n, i + 1))
				return WAIT_SLEEP;
			return under_event_loop(p, ids, n) ? WAIT_IDLE :
			       WAIT_IO;
		case W_FUTEX:
			return futex_reason(p, ids, n, i + 1, 0, inferred);
		case W_COND:
			return futex_reason(p, ids, n, i + 1, 1, inferred);
		case W_GIL:
			return WAIT_GIL;
		case W_LOCK:
		case W_MUTEX:
			return futex_reason(p, ids, n, i, 0, inferred);
		case W_RUNQ:
			return WAIT_RUNQUEUE;
		case W_CHILD:
			return WAIT_CHILD;
		case W_OTHER:
			return WAIT_OTHER;
		default:
			break;	/* W_GILCALLER alone, or no match */
		}
	}
	/* D state: the kernel waits for a device */
	if (wf->have_state && (wf->prev_state & 0x2))
		return WAIT_IO;
	return WAIT_OTHER;
}
