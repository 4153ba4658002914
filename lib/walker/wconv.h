/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_WCONV_H
#define PPR_WALKER_WCONV_H
/*
 * The frame walker's events (walker_abi.h) turned into a session's
 * perf.data (perfwrite.h): the pure part of the recording, with no BPF
 * and no polling, so that it is tested with events built by hand
 * (tests/unit/t-wrecord.c).  walker/wrecord.h drives it from the
 * walker's ring buffer.
 *
 * What goes into perf.data:
 *   - two events: "cpu-clock" (on-CPU samples, period 1e9 / freq
 *     nanoseconds, as perf's cpu-clock) and
 *     "offcpu-time" (one off-CPU interval of a thread, period = its
 *     nanoseconds, the sample's time its end), both with sample_type
 *     IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN|RAW|REGS_USER|
 *     STACK_USER, user registers 0xff0fff, the stack dump the walker
 *     copied, exclude_callchain_user (the call chain holds only the
 *     kernel's frames after PERF_CONTEXT_KERNEL, as perf writes it for
 *     --call-graph dwarf), so that perf and lib/unwind unwind the
 *     native part from the dump; RAW holds struct walker_raw and the
 *     Python frames, innermost first;
 *   - the kernel's map (from kallsyms), COMM and MMAP2 records of each
 *     process when it is first seen (from /proc/PID/comm and maps:
 *     executable mappings with their offsets, device, inode,
 *     protection and flags, and the files' other mappings, through
 *     which perf's unwinder reads .eh_frame), again after an exec, and
 *     re-read every maps_every_ns and when a sample's address is in no
 *     known mapping (at most every 50 ms): only mappings not written
 *     before are written;
 *   - with wakers, a third event, "waker": each interval's waker
 *     (the last waking of the thread before it ran again) just before
 *     the interval's record (walker_abi.h, struct walker_raw_wake);
 *   - FORK, EXIT and COMM (exec) records from the task events, a COMM
 *     for each thread first seen without its fork, LOST records for
 *     the events the ring buffer dropped.
 *
 * /proc is read when an event arrives (wconv_event()), not when it is
 * written, so that a short-lived process is read while it lives.  The
 * records made of it carry the event's time (re-reads, exec) or, for a
 * process or thread first seen, a time hold_ns earlier (not before what
 * is already written), so that they come before its events still to
 * arrive, which are at most that much out of order.
 *
 * Order: events are queued as they come, and each flush writes, sorted
 * by time, those at least hold_ns older than the newest queued, then a
 * FINISHED_ROUND.  The ring buffer is one buffer for all CPUs, filled
 * in the order the BPF programs reserve their records, and a program
 * takes its time stamp shortly before it reserves: two events of
 * different CPUs can be out of order by that delay (microseconds; a
 * deep walk between the two adds at most ~150 us), never by more.  A
 * batch handed to a reader in one poll can end anywhere, so sorting
 * each batch alone is not enough: an event taken just before a
 * batch's end can be reserved after it.  Holding back the newest
 * hold_ns (20 ms, a hundred times the worst delay) makes every round
 * start after the previous one ends, so the file is in time order
 * throughout, for perf's reader and ours (which sort within rounds).
 * An event older than one already written is written anyway in its
 * round and counted (late).
 */
#include "compat.h"
#include <linux/types.h>
#include "walker/walker_abi.h"

struct wconv;
struct kself;

/*
 * What the conversion tells the side that knows the processes (the
 * loop: walker/wrecord.c).  Called from wconv_event() as each event
 * arrives (not when it is written, up to hold_ns later), so that code
 * objects are named and processes inspected while they live; each may
 * be NULL.  A hook may call wconv_set_version().
 */
struct wconv_hooks {
	void *data;
	/* a sample of pid without its interpreter (WALKER_F_NO_PROC) */
	void (*no_proc)(void *data, pid_t pid);
	/* pid exec'ed a new program: its interpreter is gone */
	void (*exec)(void *data, pid_t pid);
	/* a new process: child forked by parent (threads not included) */
	void (*fork)(void *data, pid_t parent, pid_t child);
	/* pid's last thread exited: the process is gone */
	void (*exit)(void *data, pid_t pid);
	/* each Python frame of each sample (and switch-out), to name it */
	void (*py_frame)(void *data, pid_t pid,
			 const struct walker_py_frame *f);
	/*
	 * The walker's own frames' ranges (kself.h), asked for at the
	 * first kernel stack: 0 with *out filled, or -1 (or no hook):
	 * the conversion reads them from kallsyms then.
	 */
	int (*kself)(void *data, struct kself *out);
};

struct wconv_opts {
	const char *perf_data;		/* the file written, or: */
	/*
	 * records handed to record_fn in time order instead (top: into
	 * native_stream_record(), decoded with wconv_image()'s attrs)
	 */
	int (*record_fn)(void *data, const void *rec, size_t len);
	void *record_data;
	const char *proc_root;		/* "/proc" when NULL (tests: a tree
					   of PID/maps, PID/comm and
					   PID/task/TID/comm files) */
	const char *kallsyms;		/* for the kernel's map; NULL: none */
	unsigned freq;			/* cpu-clock samples a second */
	unsigned ustack_bytes;		/* stack bytes asked per sample, a
					   multiple of 8 */
	int wall;			/* off-CPU intervals: the
					   "offcpu-time" event (without it,
					   switch events are dropped) */
	int wakers;			/* with wall: each interval's waker,
					   the "waker" event (walker_abi.h) */
	const char *const *cmdline;	/* HEADER_CMDLINE (may be NULL) */
	uint64_t start_ns;		/* CLOCK_MONOTONIC at the start */
	uint64_t hold_ns;		/* 0: 20 ms */
	uint64_t maps_every_ns;		/* 0: 1 s */
	/*
	 * record --max-size: once the data written reaches this many
	 * bytes, nothing more is written (stats: stopped); 0: no limit.
	 * It is looked at before each record, so the data ends at most
	 * one record past it, and wconv_finish() adds the off-CPU
	 * intervals still open then (one per waiting thread, ended at
	 * the stop) and the header.
	 */
	uint64_t max_bytes;
	/*
	 * record --keep-stack-copy: each sample's copy of the user stack
	 * written as it is (with its registers), for report to unwind;
	 * else the recorder unwinds it at once, with the live mappings,
	 * and writes the frames (walker_abi.h, WALKER_F_UNWOUND)
	 */
	int keep_stack_copy;
	/*
	 * The layout sessions had before the recorder unwound: the copies
	 * only, no frames unwound as recorded, not compressed (tests: such
	 * a session still reads)
	 */
	int v1_layout;
	struct wconv_hooks hooks;
};

/* Why samples have no Python frame (nr_py == 0). */
enum wconv_no_py {
	WCONV_NOPY_NO_PROC,		/* interpreter not known yet */
	WCONV_NOPY_NO_TSTATE,		/* not a Python thread (yet) */
	WCONV_NOPY_READ,		/* the first frame could not be read */
	WCONV_NOPY_IDLE,		/* a Python thread outside any frame */
	WCONV_NOPY_NR
};

struct wconv_stats {
	uint64_t samples;		/* cpu-clock samples written */
	uint64_t samples_py;		/* ... with Python frames */
	uint64_t no_py[WCONV_NOPY_NR];	/* ... without, by reason */
	uint64_t py_cut;		/* walks cut (PY_CUT or PY_READ after
					   at least one frame) */
	uint64_t flags[8];		/* samples with WALKER_F_* bit i */
	uint64_t offcpu;		/* offcpu-time samples written */
	uint64_t offcpu_ns;		/* their nanoseconds */
	uint64_t offcpu_open;		/* of them, still off CPU at the end
					   (ended at the end time) */
	uint64_t offcpu_exited;		/* last switch-outs of exiting
					   threads: no wait, left out */
	uint64_t offcpu_late;		/* intervals whose switch-in was
					   lost, closed when the thread was
					   next seen running (close_late()) */
	uint64_t oncpu_unpaired;	/* switch-ins without a switch-out */
	uint64_t offcpu_unopened;	/* ... of a thread seen switching
					   before: its switch-out was lost,
					   the interval left out */
	uint64_t offcpu_unopened_ns;	/* ... at most this long in all
					   (from the thread's last event) */
	uint64_t wakings;		/* waking events */
	uint64_t woken;			/* intervals written with a waker */
	uint64_t woken_ns;		/* ... their nanoseconds */
	uint64_t woken_shared;		/* ... of them, a shared wakeup */
	uint64_t woken_shared_ns;
	uint64_t woken_irq;		/* ... in interrupt context */
	uint64_t woken_irq_ns;
	uint64_t preattach;		/* intervals that began before the
					   attach (WALKER_F_BEFORE_ATTACH):
					   written from attach_ns */
	uint64_t preattach_ns;		/* ... their nanoseconds */
	uint64_t preattach_dropped;	/* ... left out: the thread was seen
					   switching before, or no attach
					   time was set */
	uint64_t walker_own;		/* samples taken while the walker's
					   own BPF program ran (kself.h) */
	uint64_t lost;			/* events the ring buffer dropped */
	uint64_t late;			/* events written after later ones */
	uint64_t bad;			/* events that did not decode */
	char first_bad[160];		/* why the first one did not */
	uint64_t mmaps, comms, tasks;	/* records written */
	uint64_t maps_reads;		/* /proc/PID/maps read */
	uint64_t maps_unread;		/* ... and not readable (exited) */
	uint64_t kept_copies_cut;	/* --keep-stack-copy: copies cut to
					   fit perf's 64 KiB record */
	int kernel_map;			/* the kernel's map was written */
	uint64_t bytes;			/* of records (perf.data's data) */
	uint64_t first_sample_ns;	/* from start_ns to the first
					   sample's time; 0: none */
	int stopped;			/* max_bytes reached: the events
					   after it are dropped */
	uint64_t stopped_ns;		/* ...from start_ns to the last
					   record written */
};

int wconv_new(struct wconv **out, const struct wconv_opts *o, char *err,
	      size_t errlen);
/* Drop c; its perf.data is removed unless wconv_finish() wrote it. */
void wconv_free(struct wconv *c);

/* pid's interpreter (its hexversion goes into the samples' raw part). */
void wconv_set_version(struct wconv *c, pid_t pid, unsigned hexversion);

/*
 * The time (CLOCK_MONOTONIC) the walker was attached: where the off-CPU
 * intervals that began before it (OFFCPU events with
 * WALKER_F_BEFORE_ATTACH, whose time is their end) start.  Without it
 * such events are dropped (counted: preattach_dropped).
 */
void wconv_set_attach(struct wconv *c, uint64_t attach_ns);

/*
 * Queue one event, as the ring buffer gave it (copied).  An event that
 * does not decode is counted (bad) and dropped: returns -1 then.  Once
 * stopped (max_bytes), events are dropped unseen (the hooks are not
 * called): 0.
 */
int wconv_event(struct wconv *c, const void *ev, size_t len);
/* lost more events were dropped by the ring buffer (walker_lost()). */
void wconv_lost(struct wconv *c, uint64_t lost);

/*
 * Write what is older than the hold, sorted; FINISHED_ROUND.  0 / -1.
 * Reaching max_bytes stops the conversion (wconv_stats()'s stopped):
 * what is queued is dropped, and later flushes write nothing.
 */
int wconv_flush(struct wconv *c, char *err, size_t errlen);
/*
 * Write everything, end the off-CPU intervals still open at end_ns,
 * write perf.data's header and put it in place.  0, or -1 with err.
 */
int wconv_finish(struct wconv *c, uint64_t end_ns, char *err,
		 size_t errlen);

const struct wconv_stats *wconv_stats(const struct wconv *c);

/*
 * Every kernel address the samples written so far hold (their kernel
 * call chains and kernel-mode ips), each once, in no order, in *out
 * (the caller's, to free); how many.
 */
size_t wconv_kernel_pcs(const struct wconv *c, uint64_t **out);

/*
 * The perf.data image of the events' attrs (no records), to decode the
 * records with (perfdata_open_mem()); before wconv_finish().  *buf is
 * the caller's.  0, or -1 with err.
 */
int wconv_image(const struct wconv *c, unsigned char **buf, size_t *len,
		char *err, size_t errlen);

#endif
