/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_WRECORD_H
#define PPR_WALKER_WRECORD_H
/*
 * A recording with the in-kernel frame walker, for record (and top):
 * the walker loaded and attached (walker.h), each process inspected
 * (pytarget.h) and its layout handed to BPF, the events turned into the
 * session's perf.data (walker/wconv.h), the code objects named while
 * the processes live (pycode.h) and saved into the session ("pycode"):
 * a process's as it exits, the rest at the end, so that the loop's
 * memory holds only the living processes' state (a recording of hours
 * of processes and threads that come and go levels off).
 *
 *	struct wrec *w;
 *	wrec_start(&w, &opts, &errnum, err, sizeof(err));
 *	wrec_add_pid(w, child, WREC_BEFORE_EXEC, err, sizeof(err));
 *	wrec_attach(w, err, sizeof(err));
 *	(let the child exec)
 *	while (child runs)
 *		wrec_poll(w, 100, err, sizeof(err));
 *	wrec_finish(w, err, sizeof(err));
 *	wrec_stats(w, &st);   (print them)
 *	wrec_free(w);
 *
 * Processes: one added before it execs (record's own child) is watched
 * with no interpreter known (its samples have WALKER_F_NO_PROC and
 * native stacks); each such sample retries the inspection, at most
 * every 5 ms doubling to 1 s per process, until the interpreter is
 * set up.  Children are inherited by BPF (follow_children) with their
 * parent's interpreter; an exec forgets it and starts the retries
 * again.  A process that is not a supported Python is noted with why
 * and not retried.
 *
 * top: the same with record_fn set: the records go, in time order,
 * into a native stream (report/src_native.h) made on wrec_image()'s
 * attrs, and wrec_codes() names the Python frames of their raw part
 * (pycode_find()) while the recording runs.
 *
 * Silent: errors through err; what record should say is in the stats
 * (wrec_describe()).
 */
#include "compat.h"
#include <linux/types.h>
#include "walker/pycode.h"
#include "walker/pytarget.h"

struct kself;
#include "strbuf.h"
#include "walker/wconv.h"

struct wrec;

struct wrec_opts {
	const char *session_dir;	/* perf.data and pycode go here */
	/*
	 * top: the records handed to record_fn in time order instead of
	 * perf.data (into native_stream_record(), decoded with the attrs
	 * of wrec_image()); pycode is still saved into session_dir
	 */
	int (*record_fn)(void *data, const void *rec, size_t len);
	void *record_data;
	unsigned freq;			/* samples a second (cpu-clock) */
	unsigned ustack_bytes;		/* user stack per sample, a multiple
					   of 8, <= WALKER_USTACK_MAX */
	unsigned max_py_frames;		/* <= WALKER_MAX_PY_FRAMES */
	int follow_children;
	int wall;			/* off-CPU intervals too */
	int wakers;			/* with wall: each interval's waker */
	int keep_stack_copy;		/* wconv_opts' */
	size_t ring_bytes;		/* 0: the walker's default */
	uint64_t max_bytes;		/* record --max-size: perf.data's
					   data stops there (wconv.h); 0:
					   no limit */
	const char *const *cmdline;	/* perf.data's HEADER_CMDLINE */
	/*
	 * The kernel's ranges of the tracepoint plumbing (kself.h) from a
	 * reading of kallsyms the caller does anyway (record: for the
	 * session's copy, begun before the walker loads): 0 with *out
	 * filled, waiting for it if need be, or -1.  The walker's own
	 * programs are added from their program info.  NULL, or -1: the
	 * conversion reads kallsyms itself at its first kernel stack.
	 */
	int (*kself_base)(void *data, struct kself *out);
	void *kself_data;
};

/* What became of a process the recording inspected. */
struct wrec_proc {
	pid_t pid;
	enum pytarget_status status;	/* the last inspection's */
	char version[32];		/* "3.11.2" when known */
	char why[PPR_ERR_LEN];		/* when status is not OK */
	unsigned inspections;
};

struct wrec_stats {
	struct wconv_stats conv;	/* samples, why no Python, cuts,
					   off-CPU, lost, bytes, time to
					   the first sample */
	uint64_t events;		/* from the ring buffer */
	uint64_t inspections;		/* pytarget_inspect() calls */
	uint64_t frames;		/* Python frames named */
	uint64_t frames_unnamed;	/* ... whose code object could not
					   be read (freed, process gone) */
	size_t unqualified;		/* code objects named by co_name alone
					   (3.8-3.10, see pyqual.h) */
	const char *unqualified_example;
	const struct wrec_proc *procs;	/* each process inspected */
	size_t nr_procs;
	/*
	 * record -p --wall: threads blocked in a system call at the
	 * attach, whose wait the walker counts from it (conv.preattach:
	 * those that ended while attached), and those of them it could
	 * not follow (its map full)
	 */
	uint64_t preattach_threads, preattach_unfollowed;
	/*
	 * ... and those whose wait is not in the profile (still blocked
	 * at the end: the recording's whole time each), their waits' time
	 */
	uint64_t preattach_unended, preattach_unended_ns;
	/*
	 * ... and the threads whose system call could not be read (no
	 * ptrace access): not followed, whatever they were doing
	 */
	uint64_t preattach_unread;
	/*
	 * The walker's programs' own time in the kernel and their runs
	 * (walker_cost(), at wrec_finish()); cost_known: it was timed.
	 */
	uint64_t cost_ns, cost_runs;
	int cost_known;
	uint64_t ustack_probes;		/* walker_ustack_probes() */
};

/*
 * Load the walker (nothing attached yet) and open the session's
 * perf.data.  -1 with err and *errnum (the walker's: missing
 * privileges, BPF unavailable) on failure.
 */
int wrec_start(struct wrec **out, const struct wrec_opts *o, int *errnum,
	       char *err, size_t errlen);

/* wrec_add_pid() flags */
#define WREC_BEFORE_EXEC 1u	/* our child, not yet the program: watch it
				   with no interpreter until it is one */

/*
 * Watch pid: inspect it and hand its layout to BPF.  -1 with err when
 * it cannot be walked (not Python, unsupported, no access) unless
 * WREC_BEFORE_EXEC.
 */
int wrec_add_pid(struct wrec *w, pid_t pid, unsigned flags, char *err,
		 size_t errlen);

int wrec_attach(struct wrec *w, char *err, size_t errlen);

/*
 * Wait up to timeout_ms (1 ms for a while after a poll that read new
 * code objects: see WREC_QUICK_MS) for events, convert them, write what
 * is old enough (wconv_flush()).  0, or -1 with err (a write error: the
 * recording cannot go on).  An interrupted wait is not an error.  Once
 * max_bytes is reached (wrec_stats()' conv.stopped) nothing more is
 * written: the caller finishes.
 */
int wrec_poll(struct wrec *w, int timeout_ms, char *err, size_t errlen);

/*
 * Drain the ring buffer, write the rest and perf.data's header, save
 * the code objects into session_dir/pycode, detach.  0, or -1 with err.
 */
int wrec_finish(struct wrec *w, char *err, size_t errlen);

/* max_bytes was reached: the recording has stopped writing. */
int wrec_stopped(const struct wrec *w);

/* The events' attrs as a perf.data image (wconv_image()), for top. */
int wrec_image(const struct wrec *w, unsigned char **buf, size_t *len,
	       char *err, size_t errlen);

/* The code objects named so far (owned by w). */
const struct pycode_cache *wrec_codes(const struct wrec *w);
/* wconv_kernel_pcs() of the recording's samples */
size_t wrec_kernel_pcs(const struct wrec *w, uint64_t **out);

/* The counts so far (procs owned by w, valid until wrec_free()). */
void wrec_stats(const struct wrec *w, struct wrec_stats *st);

/*
 * What record should say of a recording, one line each (appended to
 * lines, without the command's prefix): the samples and why some have
 * no Python frames, cut walks, frames left unnamed, lost and undecoded
 * events, off-CPU intervals (and those still open at the end), the
 * processes that were not walked and why, the file's size per sample
 * and the time to the first sample.  Only what happened is said: a
 * clean recording gives the counts line and the size line.
 */
void wrec_describe(const struct wrec_stats *st, struct strvec *lines);

void wrec_free(struct wrec *w);

#endif
