/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_H
#define PPR_WALKER_H
/*
 * The in-kernel frame walker's user side: load the BPF programs
 * (walker.bpf.c, through its bpftool skeleton), fill their maps, attach
 * them, and read their events.  Silent: errors through err.
 *
 * Built only with libbpf (PPR_HAVE_BPF); without it walker_open()
 * fails with "built without libbpf".
 */
#include "compat.h"
#include <linux/types.h>
#include "walker/walker_abi.h"
#include "walker/kself.h"

struct walker;

struct walker_opts {
	unsigned freq;			/* cpu-clock samples a second per CPU */
	unsigned ustack_bytes;		/* user stack copied per sample */
	unsigned max_py_frames;		/* <= WALKER_MAX_PY_FRAMES */
	int follow_children;
	int wall;			/* also switch-out / switch-in events */
	int wakers;			/* with wall: sched_waking events */
	size_t ring_bytes;		/* ring buffer size (0: default) */
	/*
	 * wakers: the kernel's ranges from a reading of kallsyms already
	 * under way (wrec_opts'; kself_irq()), asked for once the
	 * programs are loaded; NULL, or when it fails: /proc/kallsyms is
	 * read here (kself_irq_ranges())
	 */
	int (*kself_base)(void *data, struct kself *out);
	void *kself_data;
};

/*
 * Load and verify the programs; nothing is attached yet.  -1 with err
 * naming what is missing (privileges: CAP_BPF/CAP_PERFMON, the
 * kernel.unprivileged_bpf_disabled sysctl, BTF) and its errno in *errnum.
 */
int walker_open(struct walker **out, const struct walker_opts *o,
		int *errnum, char *err, size_t errlen);
void walker_close(struct walker *w);

/* A layout into the layouts map; its index in *id. */
int walker_add_layout(struct walker *w, const struct walker_layout *l,
		      __u32 *id, char *err, size_t errlen);
/* Watch a process (runtime 0: not known yet; set it later). */
int walker_set_proc(struct walker *w, pid_t tgid,
		    const struct walker_proc *p, char *err, size_t errlen);
int walker_del_proc(struct walker *w, pid_t tgid);

/*
 * record -p --wall: follow thread tid, blocked in a system call in
 * state (1 S, 2 D, 0 runnable) as the walker attaches, so that the wait
 * it is in is counted from the attach (walker_abi.h, struct
 * walker_preattach).  Before walker_attach() only.  -1 with err when
 * the map is full (2048 threads) or refuses it.
 */
int walker_preattach(struct walker *w, pid_t tid, uint64_t state, char *err,
		     size_t errlen);
/*
 * Once every thread walker_preattach() followed is done (its wait sent,
 * or it was seen switching out first, or it exited), the program on
 * every system call's exit is detached: called as the recording polls.
 * A thread blocked for the whole recording keeps it attached.
 */
void walker_preattach_poll(struct walker *w);
/*
 * The threads walker_preattach() followed whose wait was not sent: in
 * *n, and in *ns their waits' time from attach_ns to their switch-in,
 * or to end_ns for those still blocked (the whole recording, each).
 */
void walker_preattach_rest(const struct walker *w, uint64_t attach_ns,
			   uint64_t end_ns, uint64_t *n, uint64_t *ns);

/*
 * Attach: one cpu-clock sampling event per online CPU, the BPF program
 * on each (it keeps only watched processes), and the task tracepoints
 * (fork, exec, exit; sched_switch with opts.wall).
 */
int walker_attach(struct walker *w, char *err, size_t errlen);

/* One event, as the ring buffer holds it (decode with walker_decode()). */
typedef int (*walker_event_fn)(void *data, const void *ev, size_t len);
/*
 * Wait up to timeout_ms for events and hand each to cb.  Returns the
 * number of events, or a negative errno (-EINTR is not an error to the
 * caller's loop).
 */
int walker_poll(struct walker *w, int timeout_ms, walker_event_fn cb,
		void *data);
/* Events the ring buffer could not take (counted in BPF). */
uint64_t walker_lost(const struct walker *w);
/*
 * Copies of a user stack that probed its pages (the thread's stack end
 * was not known yet, or had changed): about one a thread.
 */
uint64_t walker_ustack_probes(const struct walker *w);

/*
 * The walker's own cost so far: the time its programs ran in the
 * kernel (*ns) and how many times they ran (*runs), from the attach,
 * on every CPU, whoever they interrupted.  0, or -1 when the kernel
 * does not time them (see walker.c: stats_fd).
 */
int walker_cost(const struct walker *w, uint64_t *ns, uint64_t *runs);

/*
 * Where the kernel put the walker's loaded programs (and their
 * subprograms), from their program info: cb(data, start, end) for
 * each; how many.  0 when none could be told (addresses hidden).
 */
int walker_prog_ranges(const struct walker *w,
		       void (*cb)(void *data, uint64_t start, uint64_t end),
		       void *data);

/* A decoded event: pointers into the event's bytes. */
struct walker_decoded {
	const struct walker_ev_hdr *hdr;	/* always */
	const struct walker_sample *sample;	/* SAMPLE / OFFCPU */
	const struct walker_task *task;		/* FORK / EXEC / EXIT / ONCPU */
	const struct walker_waking *waking;	/* WAKING */
	uint64_t lost;				/* LOST */
	const unsigned char *regs;		/* WALKER_NR_REGS LE u64 */
	const unsigned char *kstack;		/* nr_kstack LE u64 */
	const unsigned char *py;		/* nr_py walker_py_frame */
	const unsigned char *ustack;		/* ustack_len bytes */
	/* SAMPLE / OFFCPU / WAKING: the parts' counts, checked */
	unsigned nr_kstack, nr_py, ustack_len;
};
/*
 * Check an event's bytes (every length against len, the type, the
 * counts against their caps) and point into it.  0, or -1 with err.
 * Fuzzed (tests/fuzz/fuzz-walker.c).
 */
int walker_decode(const void *ev, size_t len, struct walker_decoded *out,
		  char *err, size_t errlen);
/* The i-th Python frame of a decoded sample or waking (i < nr_py). */
void walker_py_frame_at(const struct walker_decoded *d, unsigned i,
			struct walker_py_frame *out);

#endif
