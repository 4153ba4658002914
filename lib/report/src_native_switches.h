/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_SWITCHES_H
#define PPR_REPORT_SWITCHES_H
/*
 * Off-CPU intervals from a `record --wall` perf.data (the native
 * source's part of the wall clock): each time one of the program's
 * threads leaves a CPU (PERF_RECORD_SWITCH out, its preempt bit) and
 * comes back (switch in), one struct sample of the event
 * "offcpu-time": weight = the nanoseconds between the two, time = the
 * switch-in, frames = the stack the thread left with.  That stack is
 * the one of the switch sample (a context-switches sample, or a
 * sched:sched_switch one, whose prev_state is read with libtraceevent)
 * taken at that switch-out; without one (perf_event_paranoid 2 gives
 * switch records but no such samples), the thread's last on-CPU
 * sample's stack, marked stack_inferred.
 *
 * Records come in time order (the native source sorts them).  Frames
 * are copied (their strings are the unwinder's, interned until it is
 * freed).
 */
#include "compat.h"
#include "perfdata.h"
#include "report/sample.h"
#include "hmap.h"

/* What a sample's event is to the wall clock. */
enum switch_event {
	SWEV_ONCPU = 0,		/* an on-CPU sample (cpu-clock, ...) */
	SWEV_CTXSW,		/* context-switches: a stack at switch-out */
	SWEV_SCHED,		/* sched:sched_switch: the same + prev_state */
	SWEV_OFFCPU,		/* offcpu-time: an interval already */
	SWEV_WAKER,		/* waker: the next interval's waker */
};

struct tracedata;

struct switches {
	const struct perfdata *d;
	struct tracedata *td;	/* the file's tracepoint formats, or NULL */
	struct umap threads;	/* tid -> struct sw_thread * */
	struct sample_frame *out;	/* the last interval's frames */
	size_t out_alloc;
	int records;		/* the file has switch records: keep each
				   thread's last on-CPU stack */
	uint64_t switch_records;	/* switch records read */
	uint64_t switch_samples;	/* stacks at switch-out read */
	uint64_t broken;	/* intervals left out: a switch record
				   missing (perf lost it) */
};

/* d must outlive sw. */
void switches_init(struct switches *sw, const struct perfdata *d);
void switches_release(struct switches *sw);

/* The event of a sample's attr (its name: perf's, else its type). */
enum switch_event switches_event(const struct switches *sw,
				 const struct pd_attr *a);

/*
 * A switch sample (SWEV_CTXSW / SWEV_SCHED) of s, unwound to
 * frames[n]: kept as the stack of the thread's next switch-out.
 */
void switches_stack(struct switches *sw, const struct pd_sample *s,
		    enum switch_event ev, const struct sample_frame *f,
		    size_t n);

/*
 * An on-CPU sample's stack (taken at time, 0 unknown): the thread's
 * last one.  A thread seen on CPU between a switch-out and the next
 * switch-in lost switch records: that interval is left out (broken).
 */
void switches_oncpu(struct switches *sw, pid_t tid, uint64_t time,
		    const struct sample_frame *f, size_t n);

/*
 * The on-CPU samples' weight in a wall session.  perf's per-thread
 * cpu-clock does not keep each thread's own count: when two threads of
 * one process switch on a CPU, the kernel swaps their inherited event
 * contexts whole (perf_event_context_sched_out()), so one thread's
 * progress towards its next sample goes on in the other, is lost with
 * a thread that exits, and a new thread's fresh context restarts the
 * count.  Measured on an urllib client of a threaded http.server
 * (tests/fixtures/wall-urllib.py, 900 fetches, beside a busy loop):
 * its main thread was on CPU 759 ms by its switch records and had 545
 * samples of 1 ms (16 to 28 % short in other runs); the wall clock then
 * gave its CPU work that much too little beside its waits, which the
 * switch records time exactly.
 *
 * So a first pass over the session counts, per thread, the time on CPU
 * between a switch-in and a switch-out and the periods of the on-CPU
 * samples taken in those stretches (switches_count()); the second pass
 * weighs each of the thread's samples by their ratio
 * (switches_scale_from(), switches_period()): each thread's samples
 * then add up to its time on CPU, shared as they fell.
 */
void switches_count(struct switches *sw, pid_t tid, uint64_t time,
		    uint64_t period);
/* dst's threads take counted's ratios; 1 when any thread has one. */
int switches_scale_from(struct switches *dst, const struct switches *counted);
/* An on-CPU sample's period, scaled when its thread has a ratio. */
uint64_t switches_period(const struct switches *sw, pid_t tid,
			 uint64_t period);

/*
 * A switch record: 1 when it ends an interval, out filled (pid, tid,
 * time, weight, unit, offcpu, preempt, prev_state, frames; the caller
 * sets comm and own), 0 otherwise.  out's frames are valid until the
 * next call.
 */
int switches_record(struct switches *sw, const struct pd_switch *r,
		    struct sample *out);

/*
 * The state at switch-out carried by a frame walker's offcpu-time
 * sample (lib/walker/walker_abi.h, struct walker_raw): 1 with *state
 * set, 0 when raw is not the walker's.
 */
int switches_walker_state(const unsigned char *raw, size_t len,
			  uint64_t *state);

/* perf --off-cpu's time for samples that have none (sorted last). */
#define OFFCPU_NO_TIMESTAMP (~0ULL << 32)

#endif
