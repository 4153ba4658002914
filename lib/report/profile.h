/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PROFILE_H
#define PPR_PROFILE_H
/*
 * The profile data model every report format writes from: interned
 * frames, unique stacks (root first) with their weights, the tasks
 * (processes / threads) they were taken in, and the session metadata.
 * A weight is in the profile's unit (enum weight_unit): a count of
 * samples for what perf sampled, nanoseconds for intervals.
 *
 * A profile is built by profile_load() from a session directory (it
 * runs `perf script`, parses the stream, resolves perf-map addresses,
 * classifies and folds frames, aggregates stacks; memory grows with the
 * number of distinct stacks, not with samples), or by hand with
 * profile_init() / profile_frame_intern() / profile_task_intern() /
 * profile_stack_add() (tests, the diff, other sources).
 *
 * Ownership: everything a profile points to is owned by it and freed by
 * profile_release().  Writers take a `const struct profile *`.
 */
#include "compat.h"
#include "perfdata.h"

/* What a frame is; the views and the colours of the formats follow it. */
enum frame_kind {
	FRAME_PYTHON = 0,	/* a Python function: qualname + file */
	FRAME_NATIVE,		/* user-space machine code: C extensions,
				   libpython, libc, the executable... */
	FRAME_KERNEL,		/* kernel code ([kernel.kallsyms], modules) */
	FRAME_PLUMBING,		/* the interpreter's own call machinery
				   between Python frames (eval loop,
				   vectorcall, trampolines): present only
				   in the "all" view */
	FRAME_UNKNOWN,		/* no symbol and no object file */
	FRAME_KIND_NR
};

/* For FRAME_NATIVE and FRAME_PLUMBING: where the code lives. */
enum native_class {
	NATIVE_NONE = 0,	/* not native (python, kernel, unknown) */
	NATIVE_LIBPYTHON,	/* libpython*.so or a static python binary */
	NATIVE_EXTENSION,	/* a CPython extension module (*.cpython-*.so,
				   lib-dynload, site-packages .so) */
	NATIVE_SYSTEM,		/* libc, libm, ld.so, libpthread, ... */
	NATIVE_OTHER		/* any other executable or shared object,
				   including our embedded trampoline */
};

/* "python", "native", "kernel", "plumbing", "unknown". */
const char *frame_kind_name(enum frame_kind kind);

/*
 * What the weights of a profile measure: every stack, task, thread,
 * total and call-tree node (calltree.h) carries a weight in its
 * profile's unit (profile->unit).  A sample of perf weighs 1 in
 * UNIT_SAMPLES; an off-CPU interval its length in UNIT_NS.
 */
enum weight_unit {
	UNIT_SAMPLES = 0,	/* samples (the default, profile_init()) */
	UNIT_NS,		/* nanoseconds */
	UNIT_EVENTS,		/* events a counter counted (its periods) */
	UNIT_NR
};

/*
 * The names of a unit, as the formats write them; the one table of
 * them is in profile.c.
 */
struct weight_unit_info {
	const char *name;	/* "samples", "nanoseconds", "events": the
				   text header's label, the JSON keys
				   ("samples", "self_samples", ...), the
				   flame graphs' unit */
	const char *column;	/* the text tables' column title (at most
				   9 characters): "Samples", "Time" (fmt_weight()
				   shows nanoseconds as a time) */
	const char *pprof_type;	/* pprof's first sample type and its */
	const char *pprof_unit;	/*   unit: "samples" and "count" */
	const char *speedscope;	/* speedscope's unit: "none" for a count,
				   "nanoseconds" */
};

/* The names of u (those of UNIT_SAMPLES when u is out of range). */
const struct weight_unit_info *weight_unit_info(enum weight_unit u);

/*
 * What a profile's weights add up: PROFILE_CLOCK_CPU, the on-CPU
 * samples (one sample each, as always); PROFILE_CLOCK_OFFCPU, the
 * off-CPU intervals, each its length in nanoseconds, on the stack the
 * thread left the CPU with; PROFILE_CLOCK_WALL, both, the on-CPU
 * samples weighing their period (nanoseconds of a clock event): per
 * thread, its lifetime.  The last two are in UNIT_NS.
 */
enum profile_clock {
	PROFILE_CLOCK_CPU = 0,
	PROFILE_CLOCK_WALL,
	PROFILE_CLOCK_OFFCPU,
	PROFILE_CLOCK_NR
};

/* "cpu", "wall", "off-cpu"; and back: 0, or -1 for another word. */
const char *profile_clock_name(enum profile_clock c);
int profile_clock_parse(const char *s, enum profile_clock *c);

/*
 * Why a thread was off CPU (lib/report/stage_aggregate_waitclass.c
 * classifies an interval from its stack; its table is documented in
 * pyperf-run-report(1)).  Each off-CPU stack ends in one frame
 * "[off-cpu NAME]".
 */
enum wait_reason {
	WAIT_SLEEP = 0,		/* nanosleep, clock_nanosleep */
	WAIT_IO,		/* read/write/recv/send/accept/connect, poll
				   on fds, fsync, D state */
	WAIT_LOCK,		/* futex of a mutex, condition, semaphore */
	WAIT_GIL,		/* waiting to take the GIL */
	WAIT_IDLE,		/* an event loop waiting for any event */
	WAIT_RUNQUEUE,		/* preempted, runnable: waiting for a CPU */
	WAIT_CHILD,		/* waiting for a child process to end (wait4,
				   waitid, waitpid: do_wait) */
	WAIT_OTHER,
	WAIT_NR
};

/* "sleep", "io", "lock", "gil", "idle", "runqueue", "other". */
const char *wait_reason_name(enum wait_reason r);

/*
 * One interned frame.  Frames are identified by their index in
 * profile->frames (a frame id).  Two frames never have the same
 * (kind, func, file, dso).
 *
 * name: the display name, also used by the collapsed format (without
 *   the kernel suffix, see fmt_collapsed_name()):
 *     python  "qualname (filename)"   e.g. "Foo.bar (/src/app.py)"
 *     native  "symbol"                or "[libfoo.so.1]" (dso basename)
 *                                     when perf has no symbol
 *     kernel  "symbol"
 *     unknown "[unknown]"
 *   Names never contain ';', '\n' or '\r' (replaced by '_' on intern).
 * func: python qualname / native or kernel symbol (NULL when unknown).
 * file: python: the code object's file name as Python recorded it (may
 *   be relative or "<string>"); NULL otherwise.
 * dso:  native/kernel/plumbing: the object file as perf named it
 *   ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]");
 *   NULL for python and unknown frames.
 */
struct frame {
	const char *name;
	const char *func;
	const char *file;
	const char *dso;
	enum frame_kind kind;
	enum native_class native;
	/*
	 * A Python frame's line, when its source knew it (the in-kernel
	 * frame walker reads it from the code object's line table): one
	 * frame per line, named "func (file:line)"; 0 otherwise.
	 */
	uint32_t line;
};

/*
 * A process or thread the samples came from.  profile->tasks are what
 * stacks are grouped by: empty with PROFILE_MERGED, one entry per
 * process with PROFILE_BY_PROCESS (tid == pid, comm of the main thread
 * when known), one per thread with PROFILE_BY_THREAD.  profile->threads
 * always lists every thread with kept samples, whatever the grouping
 * (for headers and per-thread summaries).
 */
struct task {
	pid_t pid;
	pid_t tid;
	const char *comm;	/* last command name perf reported */
	uint64_t weight;	/* of the stacks kept after filtering, in
				   profile->unit */
	uint64_t count;		/* samples and off-CPU intervals in it */
	/*
	 * profile->threads only, wall and off-cpu clocks: nanoseconds
	 * off CPU by reason (the rest of weight, in the wall clock, is
	 * the time it ran).
	 */
	uint64_t offcpu[WAIT_NR];
};

#define PROFILE_NO_TASK UINT32_MAX

/*
 * A unique stack: frame ids root first (frames[0] is the outermost
 * caller, frames[depth - 1] the leaf where the sample hit).  depth may
 * be 0 only if every frame was filtered away (never stored: such
 * samples are counted in profile->dropped).
 */
struct stack {
	const uint32_t *frames;
	uint32_t depth;
	uint32_t task;		/* index in profile->tasks, or PROFILE_NO_TASK
				   when merged */
	uint64_t weight;	/* in profile->unit: with UNIT_SAMPLES, the
				   number of samples */
	uint64_t count;		/* samples (and off-CPU intervals) in it,
				   whatever the unit (style.md 10) */
	uint64_t period;	/* sum of the samples' periods (event units:
				   nanoseconds for cpu-clock/task-clock) */
};

enum profile_view {
	PROFILE_VIEW_MIXED = 0,	/* default: Python + native + kernel,
				   plumbing folded away */
	PROFILE_VIEW_PYTHON,	/* only Python frames (a sample with no
				   Python frame is kept as one frame naming
				   where it was: "[native]" / "[kernel]") */
	PROFILE_VIEW_ALL	/* every frame as perf reported it */
};

enum profile_group {
	PROFILE_MERGED = 0,	/* one set of stacks for the whole session */
	PROFILE_BY_PROCESS,	/* stacks keyed by (stack, pid) */
	PROFILE_BY_THREAD	/* stacks keyed by (stack, pid, tid) */
};

/* What to load and how; PROFILE_FILTER_INIT gives the defaults. */
struct profile_filter {
	enum profile_view view;
	enum profile_group group;
	const pid_t *pids;	/* keep only these processes (nr_pids > 0) */
	size_t nr_pids;
	const pid_t *tids;	/* keep only these threads (nr_tids > 0) */
	size_t nr_tids;
	/*
	 * Time window in seconds relative to the first sample of the
	 * session; a negative value means unbounded.
	 */
	double time_from;
	double time_to;
	/*
	 * Progress callback (may be NULL): called now and then while
	 * loading with the number of bytes of perf script output parsed
	 * and the samples seen so far.
	 */
	void (*progress)(void *data, uint64_t bytes, uint64_t samples);
	void *progress_data;
	/*
	 * The perf program (a --perf option), or NULL: then $PYPERF_PERF,
	 * else the perf that recorded the session (meta "perf") when it
	 * is still there, else "perf" (perfcmd_perf()).
	 */
	const char *perf;
	/*
	 * How perf.data is read: PROFILE_READER_NATIVE (lib/report/
	 * src_native.h) or PROFILE_READER_PERF_SCRIPT (`perf script` with
	 * the perf above, parsed; kept to cross-check the native one).
	 */
	enum profile_reader {
		PROFILE_READER_NATIVE = 0,
		PROFILE_READER_PERF_SCRIPT,
		/* native, the user frames as bpf mode unwound them */
		PROFILE_READER_RECORDED,
	} reader;
	/*
	 * The clock (enum profile_clock) plus one: 0 takes the session's
	 * own (wall for a `record --wall` session, else cpu).
	 */
	int clock;
	/* wall and off-cpu clocks: keep every sample's span (p->spans) */
	int spans;
	/*
	 * the wakers view (off-cpu clock): each interval's stack followed
	 * by its "[woken by ...]" frame and its waker's stack
	 */
	int wakers;
	/*
	 * --chain: the wakers view follows a waker that had itself just
	 * waited (its wait ended at most PROFILE_CHAIN_GAP_NS before it
	 * woke the thread) to its own waker, up to this many waits in all
	 * (0: the waker only)
	 */
	int wake_chain;
	/*
	 * who made whom wait (p->wakes, lib/report/wakers.h) counted in any
	 * clock, the stacks left as they are (top --wakers: the wall
	 * clock's table, then the wakers tables)
	 */
	int wake_table;
};

#define PROFILE_FILTER_INIT { PROFILE_VIEW_MIXED, PROFILE_MERGED, \
			      NULL, 0, NULL, 0, -1.0, -1.0, NULL, NULL, NULL, \
			      PROFILE_READER_NATIVE, 0, 0, 0, 0, 0 }

/* --chain: "just waited", a wait ended at most this long before */
#define PROFILE_CHAIN_GAP_NS 10000000ull

/* "native" / "perf-script" -> 0 with *r set, -1 otherwise. */
int profile_reader_parse(const char *s, enum profile_reader *r);

/*
 * Why a sample's stack is incomplete.  profile_load() judges every
 * sample that has user-space frames: complete when its outermost user
 * frame is where a process or thread starts (stack_is_root_symbol()).
 * A cut stack is kept under one pseudo root frame naming the reason
 * ("[incomplete stack: ...]", FRAME_UNKNOWN), never merged with the
 * complete ones, so that no format shows a made-up root.
 */
enum stack_cut {
	CUT_NONE = 0,	/* complete */
	CUT_DUMP,	/* jit mode: the user stack dump was full: the
			   stack is deeper than the dump size */
	CUT_UNWIND,	/* jit mode: the unwinder stopped inside the dump
			   (a jitted frame it could not step, missing CFI) */
	CUT_DEPTH,	/* a frame cap: the kernel's perf_event_max_stack
			   (frame-pointer chains) */
	CUT_NOROOT,	/* perf mode: the frame-pointer chain ended before
			   a root (code built without frame pointers);
			   jit mode: cut, and perf.data did not say why */
	CUT_NR
};
/*
 * Below this share of the judged samples a reason for cut stacks gets
 * no advice (report's warnings, record's hints).
 */
#define CUT_ADVICE_SHARE 0.05


/*
 * Counts behind the warnings; every format reports p->warnings.  They
 * count samples, whatever the profile's unit.
 *
 * A stack is judged by its outermost user frame; the reason a cut one
 * is cut comes from perf.data itself (lib/perfdata.h): in jit mode
 * whether the kernel's copy of the user stack was full (CUT_DUMP) or
 * not (CUT_UNWIND); in frame-pointer mode whether the chain is as long
 * as the kernel's cap (CUT_DEPTH) or not (CUT_NOROOT).  CUT_NOROOT in
 * jit mode: perf.data could not be read to tell.
 *
 * For CUT_DUMP samples the bytes each would have needed are estimated
 * as (stack top - sp), the thread's stack top being where the copies
 * that were not full stopped (the end of the stack's mapping): an
 * upper bound (it includes argv and the environment above the first
 * frame).  dump_known samples have an estimate (threads whose copies
 * were always full have none).
 */
struct profile_quality {
	uint64_t judged;	/* samples with user frames (kept ones) */
	uint64_t cut[CUT_NR];	/* by reason; cut[CUT_NONE] = complete */
	uint64_t unnamed;	/* samples showing code without a symbol
				   (outside the call machinery between
				   Python frames, which is folded) */
	uint64_t bad_names;	/* damaged map/dump/symbol names dropped
				   (each distinct name once) */
	unsigned max_stack;	/* the kernel's callchain cap used to tell
				   CUT_DEPTH (meta max_stack, else the
				   event's own cap, else this machine's
				   kernel.perf_event_max_stack); 0 unknown */
	uint64_t dump_size;	/* jit: bytes dumped per sample; 0 unknown */
	uint64_t dump_known;	/* CUT_DUMP samples with a size estimate */
	uint64_t dump_fixable;	/* ...that a PERF_STACK_DUMP_MAX dump would
				   complete */
	uint64_t dump_need99;	/* the dump size (multiple of 8) that
				   completes 99% of dump_known; may exceed
				   PERF_STACK_DUMP_MAX (then no size helps
				   that many); 0 unknown */
	/* context trampolines (lib/report/stage_name_contexts.h) */
	uint64_t ctx_rebuilt;	/* samples whose Python stack was rebuilt */
	uint64_t ctx_unknown;	/* ...only up to the context cap */
	uint64_t startup_cut;	/* samples before the trampoline started
				   (or the frame walker read the
				   interpreter) that did not reach a root:
				   not judged, under "[python start-up]" */
	uint64_t startup_walker;	/* ...of them, the walker's */
	unsigned ctx_damaged;	/* context tables read only up to damage */
	/* the in-kernel frame walker's samples (report/src_native_walkmerge.h) */
	uint64_t walker_samples;
	uint64_t walker_py_frames;	/* Python frames it gave */
	uint64_t walker_unnamed;	/* ... whose code object was not named */
	uint64_t walker_no_python;	/* samples with no Python frame */
	uint64_t walker_cut_cap;	/* judged cut: deeper than its cap */
	uint64_t walker_cut_read;	/* ... a frame it could not read */
	uint64_t unwind_nostack;	/* CUT_UNWIND with a dump of 0 bytes:
					   the kernel could copy none */
	uint64_t walker_native_short;	/* Python frames past the native
					   unwinding: the C frames between
					   those calls are missing (the
					   stack copy was full) */
	uint64_t walker_native_stopped;	/* ... (the unwinding stopped
					   inside a whole copy) */
	uint64_t walker_native_nostack;	/* ... of them, a copy of 0 bytes */
	/* off-CPU intervals (wall and off-cpu clocks) */
	uint64_t offcpu;	/* intervals kept */
	uint64_t offcpu_ns;	/* ...their nanoseconds */
	uint64_t offcpu_nostack;	/* ...with no stack at the switch
					   (put on the thread's last
					   sampled stack: inferred) */
	uint64_t offcpu_nostack_ns;
	uint64_t gil_inferred;	/* ...called gil from the interpreter's
				   exported callers (no take_gil symbol) */
	uint64_t gil_inferred_ns;
	uint64_t before_attach;	/* ...that began before the attach
				   (record -p), counted from it */
	uint64_t before_attach_ns;
	/*
	 * report --wakers: intervals whose waker is a watched thread
	 * (woken), one woken with others by one wakeup (shared), woken in
	 * an interrupt (irq), by an unwatched process, or with no waker
	 * recorded (unknown); each with its nanoseconds
	 */
	uint64_t woken, woken_ns, woken_shared, woken_shared_ns;
	uint64_t woken_irq, woken_irq_ns, woken_unwatched, woken_unwatched_ns;
	uint64_t woken_unknown, woken_unknown_ns;
	uint64_t offcpu_notime;	/* perf --off-cpu's accumulated samples:
				   no time of their own */
	uint64_t offcpu_broken;	/* intervals left out: perf lost one of
				   their switch records */
	/*
	 * the frame walker's waits whose switch-out was lost (record's
	 * meta): left out, at most walker_broken_ns in all
	 */
	uint64_t walker_broken, walker_broken_ns;
	/*
	 * The user's Python program: the processes with a Python frame in
	 * any sample (every process when none has one).  Its counts say
	 * which quality sentences are warnings (they bear on its answer)
	 * and which are notes (quality.c).
	 */
	uint64_t py_count;	/* its samples and off-CPU intervals */
	uint64_t py_judged;	/* ...judged */
	uint64_t py_cut[CUT_NR];	/* ...cut, by reason */
	uint64_t py_unnamed;	/* ...showing code without a symbol */
	unsigned py_procs;	/* its processes */
	unsigned other_procs;	/* the other processes (a shell, sleep) */
};

/*
 * When a thread ran or waited (the wall and off-cpu clocks, with
 * profile_filter.spans): an on-CPU sample stands for the period before
 * its time, an off-CPU interval for its own length; stack is the
 * stack (index in p->stacks) it was added to.
 */
struct profile_span {
	uint64_t start;		/* perf clock, nanoseconds */
	uint64_t dur;		/* nanoseconds */
	uint32_t thread;	/* index in p->threads */
	uint32_t stack;
	int32_t reason;		/* enum wait_reason, or -1: running */
	int32_t waker;		/* a wait's waker, a watched thread: its
				   tid (record --wakers); else 0 */
};

/*
 * report --wakers: who made whom wait, as the intervals were added
 * (lib/report/wakers.h reads them into tables).  One entry per
 * (waiting frame, reason, waking frame, waiting thread) with the
 * nanoseconds and the count of its intervals.  The waiting frame is
 * the innermost Python frame of the blocked stack, else its innermost
 * named native frame, else its innermost frame ("[unknown]" for a
 * stack that says nothing but its reason); the waking frame is the
 * innermost Python frame of the waker's stack (with its line, as the
 * frames carry it), else its "[woken by ...]" frame (an interrupt, an
 * unwatched process, a thread with no Python frame) or "[waker
 * unknown]".  An interval left runnable (preempted) has no waker and
 * no entry.
 */
struct profile_wake {
	uint32_t waiter;	/* frame ids */
	uint32_t waker;
	uint32_t thread;	/* index in p->threads */
	int32_t reason;		/* enum wait_reason */
	/*
	 * gil waits whose timed wait ran out first (woken by a timer,
	 * then waiting again right away, as take_gil() does every
	 * switch interval to ask the holder to drop it): the parts are
	 * one wait, credited to the frame that ended the last part
	 */
	uint32_t timed;
	uint64_t ns;
	uint64_t count;
};

/*
 * The holds of the GIL that a Python frame ended (it woke a thread that
 * waited for the GIL, or began to wait for it itself): from its thread's
 * taking of the GIL to the drop, as disjoint spans in time order (perf
 * clock, nanoseconds, [start, end)).
 */
struct profile_gil_hold {
	uint32_t holder;	/* frame id */
	uint64_t (*spans)[2];
	size_t nr, alloc;
};

/* One key=value line of the session's meta file. */
struct meta_entry {
	const char *key;
	const char *value;
};

struct profile {
	struct frame *frames;
	size_t nr_frames;
	struct stack *stacks;
	size_t nr_stacks;
	struct task *tasks;
	size_t nr_tasks;
	struct task *threads;
	size_t nr_threads;

	enum profile_view view;
	enum profile_group group;
	enum weight_unit unit;	/* of every weight below and in stacks,
				   tasks and threads */
	enum profile_clock clock;	/* what the weights add up */

	uint64_t total_weight;	/* sum of stacks[].weight */
	uint64_t total_count;	/* sum of stacks[].count */
	uint64_t total_period;	/* sum of stacks[].period */
	uint64_t dropped;	/* samples filtered out (pid/tid/time): a
				   count, whatever the unit */
	double first_time;	/* perf time of the first/last kept sample */
	double last_time;	/*   (seconds; 0 when unknown: report asks
				   perf for times only with a time window) */

	/*
	 * Session metadata (from SESSION/meta), all may be NULL: command
	 * (shell-quoted for display), mode ("perf"/"jit"), python (path),
	 * python_version, perf_version, event (e.g. "cpu-clock"),
	 * frequency (Hz), duration (seconds, end - start; < 0 unknown).
	 */
	const char *command;
	const char *mode;
	const char *python;
	const char *python_version;
	const char *perf_version;
	const char *event;
	unsigned long frequency;
	double duration;
	/*
	 * record --max-size (0: none), and when perf.data reached it and
	 * recording stopped, in seconds after the start (< 0: it did not):
	 * the samples end there, the program ran on to the duration.
	 */
	uint64_t max_size;
	double max_size_stop;
	/* Every meta line, in file order (including the ones above). */
	struct meta_entry *meta;
	size_t nr_meta;

	const char *session;	/* the session directory, or NULL */

	struct profile_quality quality;
	/*
	 * What a reader must know to trust the numbers (cut stacks,
	 * unnamed code, dropped records), one sentence each, without a
	 * trailing period or newline.  Every format shows all of them.
	 */
	char **warnings;
	size_t nr_warnings;
	/*
	 * The same kind of sentence, for what cannot change the Python
	 * program's answer: under 1 % of its samples, or outside it (a
	 * shell's or sleep's unnamed code).  json lists them; text,
	 * collapsed and record with -v; html and svg below the header,
	 * never as a warning.
	 */
	char **notes;
	size_t nr_notes;

	/* profile_filter.wakers: struct profile_wake, profile_gil_hold */
	struct profile_wake *wakes;
	size_t nr_wakes, alloc_wakes;
	struct profile_gil_hold *gil_holds;
	size_t nr_gil_holds, alloc_gil_holds;

	/* profile_filter.spans: in the order read (not sorted) */
	struct profile_span *spans;
	size_t nr_spans, alloc_spans;

	void *priv;		/* interning tables (profile.c) */
};

/* An empty profile (for building by hand), in UNIT_SAMPLES. */
void profile_init(struct profile *p);
void profile_release(struct profile *p);

/*
 * Load SESSION (a pyperf-run session directory) into p (initialised
 * here).  f may be NULL (defaults).  Returns 0, or -1 with err filled
 * ("'dir' is not a pyperf-run session (no meta file)", "perf script
 * failed: ...", ...).  The perf executable is $PYPERF_PERF or "perf".
 */
int profile_load(struct profile *p, const char *session,
		 const struct profile_filter *f, char *err, size_t errlen);

/*
 * A profile built while the program runs (`pyperf-run top`): samples
 * as the sources give them (struct sample, report/sample.h) go
 * through the same naming, context rebuild and views
 * as profile_load()'s.  dirs (NULL-terminated, at most 4): where the
 * program's perf-<pid>.map files and context tables (ctx-<pid>.tab) are
 * written.  jit: samples unwound from stack dumps (a stack that does
 * not reach a root is then "no root", as no dump sizes are known).
 * profile_live_refresh() reads the maps and tables again (call it
 * before the samples taken since the last call: what they name was
 * written before they were taken) and returns the number of damaged
 * tables.
 */
struct profile_live;
struct sample;
int profile_live_new(struct profile_live **out, struct profile *p,
		     const struct profile_filter *f, const char *const *dirs,
		     int jit);
unsigned profile_live_refresh(struct profile_live *lv);
void profile_live_sample(struct profile_live *lv, const struct sample *s);
void profile_live_free(struct profile_live *lv);

/* The value of a meta key, or NULL. */
const char *profile_meta_get(const struct profile *p, const char *key);

/*
 * Building by hand.  Strings are copied.  profile_frame_intern()
 * returns the id of the frame (creating it when new); name may be NULL
 * to derive it from kind/func/file/dso as described above.
 * profile_stack_add() adds weight (in p->unit: 1 for one sample) and
 * period to the stack (frames root first, copied; task PROFILE_NO_TASK
 * or an id from profile_task_intern()), to its task and to the totals.
 */
uint32_t profile_frame_intern(struct profile *p, enum frame_kind kind,
			      enum native_class native, const char *name,
			      const char *func, const char *file,
			      const char *dso);
/* The same with a Python frame's line (0: none, as above). */
uint32_t profile_frame_intern_line(struct profile *p, enum frame_kind kind,
				   enum native_class native, const char *name,
				   const char *func, const char *file,
				   const char *dso, uint32_t line);
uint32_t profile_task_intern(struct profile *p, pid_t pid, pid_t tid,
			     const char *comm);
void profile_stack_add(struct profile *p, const uint32_t *frames,
		       uint32_t depth, uint32_t task, uint64_t weight,
		       uint64_t period);
/*
 * The same with the count of samples given (profile_stack_add() counts
 * weight samples in UNIT_SAMPLES, one otherwise); returns the stack's
 * index in p->stacks.
 */
uint32_t profile_stack_add_n(struct profile *p, const uint32_t *frames,
			     uint32_t depth, uint32_t task, uint64_t weight,
			     uint64_t count, uint64_t period);
void profile_meta_set(struct profile *p, const char *key,
		      const char *value);
/* Append one warning (see struct profile). */
void profile_warn(struct profile *p, const char *fmt, ...) PPR_PRINTF(2, 3);
/* A note (profile.notes): said, but not a warning. */
void profile_note(struct profile *p, const char *fmt, ...) PPR_PRINTF(2, 3);

/*
 * Per-frame totals over every stack (sizes: p->nr_frames), in p->unit:
 * self = the weight of the stacks where the frame is the leaf; total =
 * of those where it appears at least once (recursion counted once).
 * task: only stacks of that task, or PROFILE_NO_TASK for all.
 */
void profile_frame_totals(const struct profile *p, uint32_t task,
			  uint64_t *self, uint64_t *total);

/*
 * The same, for groups of frames: map[i] is the group of frame i (a
 * frame id standing for it; NULL: every frame its own).  A stack counts
 * once in a group's total however many of its frames are in it.
 */
void profile_frame_totals_by(const struct profile *p, uint32_t task,
			     const uint32_t *map, uint64_t *self,
			     uint64_t *total);

/*
 * Frames by function (p->nr_frames entries, to free): a Python frame
 * with a line maps to the lowest-numbered frame of the same function
 * (kind, qualified name and file) whatever its line, every other frame
 * to itself.  The function tables use it: a function called from two
 * lines of its caller is one function there, and its total counts each
 * stack once.
 */
uint32_t *profile_function_map(const struct profile *p);

/*
 * Hide frames below a share: every stack prefix (call-tree node) whose
 * inclusive weight is below min_share * total_weight is cut; the
 * weight under it is kept, ending in the nearest kept ancestor
 * followed by one frame "[small frames]" (FRAME_UNKNOWN).  Totals are
 * unchanged.  min_share <= 0 does nothing.
 */
void profile_prune(struct profile *p, double min_share);

#endif
