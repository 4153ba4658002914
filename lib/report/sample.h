/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_SAMPLE_H
#define PPR_REPORT_SAMPLE_H
/*
 * The sample: what every source of the report's pipeline gives and
 * every stage takes (lib/README.md draws the pipeline).
 *
 *   sources                     stages (pipeline_priv.h)
 *   src_native.c  (perf.data)   stage_name.c       frames -> profile frames
 *   src_perfscript.c            stage_judge.c      complete, or why cut
 *   top/src_ring.c (libperf)    stage_aggregate.c  -> the profile model
 *
 * A source fills a struct sample (sample_init() first: one sample of
 * weight 1, cpu unknown) and hands it to a sample_fn.  Strings and
 * frames belong to the source and live until the callback returns.
 */
#include "compat.h"
#include "report/profile.h"

/* A string of the source's (not NUL-terminated). */
struct sample_str {
	const char *s;
	size_t len;
};

/*
 * What a frame is.  An address still to be named: the naming stage
 * classifies it by symbol and object, and looks anonymous code up in
 * the session's perf maps.  Or a Python frame already named by its
 * source (an in-kernel frame walker reads the function, file and line
 * from the interpreter): interned as a Python frame as it is.
 */
enum sample_frame_kind {
	SAMPLE_FRAME_ADDR = 0,	/* ip, sym, dso */
	SAMPLE_FRAME_PYTHON,	/* sym: the qualname; dso: the file; line */
};

struct sample_frame {
	uint64_t ip;		/* ADDR: the address (PYTHON: 0) */
	/*
	 * ADDR: the symbol and the object, perf script's names:
	 * "[unknown]" when there is none.  PYTHON: the qualified name
	 * and the source file ("" when unknown).
	 */
	struct sample_str sym;
	struct sample_str dso;
	uint32_t line;		/* PYTHON: the line (0: unknown) */
	uint8_t kind;		/* enum sample_frame_kind */
};

/*
 * What a sample weighs is in the model's units (report/profile.h, enum
 * weight_unit, with the one table of their names): UNIT_SAMPLES for one
 * sample of a clock or event (every source today), UNIT_NS for an
 * interval (off-CPU time), UNIT_EVENTS for the events a sample stands for.
 */

struct sample {
	uint64_t time_ns;	/* perf's clock, nanoseconds (0: unknown) */
	pid_t pid;
	pid_t tid;
	int32_t cpu;		/* -1: unknown */
	struct sample_str comm;
	/*
	 * Python's name of the thread (threading.Thread.name), when the
	 * recording read it (bpf mode: walker/pythreads.h); len 0 otherwise.
	 * Per-thread views show "NAME (comm)".
	 */
	struct sample_str thread_name;
	uint64_t weight;	/* in unit: 1 for one sample */
	enum weight_unit unit;
	uint64_t period;	/* the event's period (perf's) */
	struct sample_str event;	/* without perf script's ':' */
	/*
	 * The user stack copy (jit mode), when the source has it (perf
	 * script does not print it: the perf-script source reads it apart).
	 * dump_full: the kernel copied all it was asked (the stack may go
	 * on); dump_sp: the sample's sp (0: unknown); dump_len: the bytes
	 * copied, of dump_asked.  The frame walker's samples unwound as
	 * they were recorded say what their copy was (walkmerge_tail()).
	 */
	unsigned dump_known : 1, dump_full : 1;
	uint64_t dump_sp, dump_len, dump_asked;
	/*
	 * pyperf-run's own task, not the user's program (report/
	 * src_owntasks.h): the source says, the aggregation stage leaves it out.
	 */
	unsigned own : 1;
	/*
	 * The source walked the Python frames up to the thread's first
	 * (the in-kernel frame walker): the stack is whole at the Python
	 * level even where the native unwinding stopped short of the root
	 * (report/src_native_walkmerge.h says how often).
	 */
	unsigned py_whole : 1;
	/* ... or cut it: 1 at the frame cap, 2 at a frame it could not read */
	unsigned py_cut : 2;
	/*
	 * The frame walker's sample of a Python process taken before the
	 * walker had read its interpreter (the start-up's first imports):
	 * no Python frames could be read, and the native ones go only as
	 * deep as the stack copy
	 */
	unsigned py_startup : 1;
	/*
	 * An off-CPU interval (event "offcpu-time", whoever wrote it:
	 * built from switch records here, perf --off-cpu, the frame
	 * walker): weight = its nanoseconds (UNIT_NS), ending at time_ns
	 * (0: perf --off-cpu's accumulated samples have no time); frames:
	 * the stack it left the CPU with.  preempt: it left runnable;
	 * have_state: prev_state is the kernel's task state at the switch
	 * (0 runnable, 1 interruptible, 2 uninterruptible (D), ...);
	 * stack_inferred: no stack was taken at the switch, frames are the
	 * thread's last sampled stack.
	 */
	unsigned offcpu : 1, preempt : 1, have_state : 1, stack_inferred : 1;
	uint64_t prev_state;
	/*
	 * record -p: the wait began before the recorder attached (the
	 * frame walker's WALKER_F_BEFORE_ATTACH), and is counted from the
	 * attach: weight is the time from the attach to its end.
	 */
	unsigned before_attach : 1;
	/*
	 * The waker of the offcpu-time sample of thread wake.wakee_tid
	 * that follows (event "waker", record --wakers: walker_abi.h's
	 * struct walker_raw_wake): frames are the waker's stack, pid/tid
	 * the waker's (0 in interrupt context).  Not a sample of any
	 * clock: only the wakers view reads it.
	 */
	unsigned waker : 1;
	struct sample_wake {
		uint32_t flags;		/* WALKER_WAKE_F_* */
		uint32_t context;	/* enum walker_wake_context */
		pid_t wakee_tid;
		uint64_t time_ns;	/* the wakeup's own time (0: not known) */
		char comm[17];
	} wake;
	const struct sample_frame *frames;	/* leaf first */
	size_t nr_frames;
};

/* Return 0 to go on, anything else to stop the source (returned). */
typedef int (*sample_fn)(void *data, const struct sample *s);

/* An empty sample: weight one sample, cpu unknown, no frames. */
static inline void sample_init(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	s->cpu = -1;
	s->weight = 1;
	s->unit = UNIT_SAMPLES;
}

#endif
