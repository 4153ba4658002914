/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_ABI_H
#define PPR_WALKER_ABI_H
/*
 * What the in-kernel frame walker (walker.bpf.c) and its user side
 * (lib/walker/) share: the interpreter layouts and processes the user
 * side writes into the BPF maps, and the events the BPF programs write
 * into the ring buffer.  Included by BPF C (after vmlinux.h) and by
 * user C (after <linux/types.h>): only __u8.. __u64 types, no
 * pointers, explicit padding, every struct a multiple of 8 bytes.
 *
 * Little-endian x86-64 only (the machine this is built for); the user
 * side decodes events bounds-checked (walker/event.c), never by casting
 * a length it did not check.
 */

#define WALKER_ABI_VERSION	1

#define WALKER_MAX_PY_FRAMES	2048	/* frames walked per sample */
#define WALKER_MAX_KSTACK	127	/* kernel frames (perf's default cap) */
#define WALKER_USTACK_MAX	32768	/* user stack bytes copied, at most */
/* ... for a switch-out (--wall): at tens of thousands a second the
   copy is most of the walker's cost and fills its ring buffer */
#define WALKER_OFFCPU_USTACK	8192
#define WALKER_MAX_LAYOUTS	16
#define WALKER_NR_REGS		20	/* perf's x86-64 user regs, mask 0xff0fff */

/*
 * How an interpreter's frames are laid out and linked.
 *
 *   FRAMEOBJ  3.8-3.10: PyFrameObject, f_back; f_lasti an int (3.8, 3.9:
 *             bytes; 3.10: 2-byte code units); every frame is its own
 *             _PyEval_EvalFrameDefault call (an entry frame)
 *   IFRAME    3.11+: _PyInterpreterFrame, `previous`; the instruction a
 *             pointer into the code object's co_code_adaptive; entry
 *             frames marked by an is_entry byte (3.11) or by a shim
 *             frame below them, of owner `owner_cstack` (3.12, 3.13)
 *             or `owner_interpreter` (3.14+); 3.14+ tag f_executable
 *             (`code_tag_bits`)
 */
enum walker_frame_kind {
	WALKER_FRAMEOBJ = 1,
	WALKER_IFRAME = 2,
};

/* How the current frame is found from a PyThreadState. */
enum walker_tstate_kind {
	WALKER_TS_DIRECT = 1,	/* *(tstate + tstate_frame): 3.8-3.10 frame,
				   3.13+ current_frame */
	WALKER_TS_CFRAME = 2,	/* *(*(tstate + tstate_frame) +
				   cframe_current_frame): 3.11, 3.12 */
};

/* Offsets in bytes; 0xffffffff: the field does not exist. */
#define WALKER_NO_FIELD 0xffffffffu

struct walker_layout {
	__u32 frame_kind;		/* enum walker_frame_kind */
	__u32 tstate_kind;		/* enum walker_tstate_kind */
	/* _PyRuntime -> interpreters -> threads */
	__u32 runtime_interp_head;	/* _PyRuntime.interpreters.head */
	__u32 interp_tstate_head;	/* PyInterpreterState: first tstate */
	__u32 tstate_next;
	__u32 tstate_thread_id;		/* pthread_self() of the thread (its
					   fsbase on x86-64 glibc) */
	__u32 tstate_frame;		/* see walker_tstate_kind */
	__u32 cframe_current_frame;
	/* a frame */
	__u32 frame_code;		/* f_code / f_executable */
	__u32 frame_back;		/* f_back / previous */
	__u32 frame_instr;		/* f_lasti (int) / prev_instr, instr_ptr */
	__u32 frame_is_entry;		/* 3.11: is_entry (u8) */
	__u32 frame_owner;		/* 3.12+: owner (u8) */
	__u32 frame_read_size;		/* bytes read per frame: covers the above */
	__u32 owner_cstack;		/* shim frames: skipped, mark an entry
					   (3.12-3.14; NO_FIELD on 3.15) */
	__u32 owner_interpreter;	/* 3.14+: the entry frame's owner, the
					   same (NO_FIELD before) */
	/* a code object */
	__u32 code_adaptive;		/* 3.11+: co_code_adaptive */
	__u32 code_firstlineno;		/* read as the frame's tag */
	__u32 lasti_units;		/* bytes per f_lasti unit: 1 (3.8,
					   3.9), 2 (3.10: 2-byte code units);
					   0 for IFRAME (no f_lasti) */
	__u32 code_tag_bits;		/* 3.14+: the mask of f_executable's
					   tag bits, cleared (3; 0 before) */
	__u32 code_filename;		/* co_filename: read into the tag;
					   0 (reserved before) or NO_FIELD:
					   the tag is the first line's */
	__u32 code_name;		/* co_name: its hash read into the
					   tag; 0 (reserved before) or
					   NO_FIELD: not */
	__u32 str_hash;			/* a str's hash from its start;
					   0 or NO_FIELD: the name's address
					   is read into the tag instead */
	__u32 code_read;		/* the window of the code object the
					   walker reads the three fields of
					   the tag in: offset | length << 16
					   (length <= WALKER_CODE_SPAN, every
					   field read inside it); 0 (reserved
					   before): the first line alone */
};

/* the most of a code object the walker reads at once (code_read) */
#define WALKER_CODE_SPAN 128u

/* What the user side knows of one process (map key: its tgid). */
struct walker_proc {
	__u64 runtime;			/* address of _PyRuntime (0: none yet) */
	__u32 layout;			/* index into the layouts map */
	__u32 flags;			/* WALKER_PROC_* */
};

#define WALKER_PROC_WATCHED	1u	/* sample it (its runtime may be 0) */
#define WALKER_PROC_INHERITED	2u	/* copied from its parent at fork by
					   BPF: the user side re-checks it */

/* Set by the user side in the config map (key 0). */
struct walker_config {
	__u32 ustack_bytes;		/* user stack to copy, <= WALKER_USTACK_MAX,
					   a multiple of 8 */
	__u32 max_py_frames;		/* <= WALKER_MAX_PY_FRAMES */
	__u32 follow_children;		/* watch the children of a watched tgid */
	__u32 wall;			/* emit switch-out / switch-in events */
	__u32 wakers;			/* emit WALKER_EV_WAKING (with wall) */
	__u32 pad;
	/*
	 * Where a waking's kernel stack says it ran in interrupt context:
	 * a return address in [hardirq_lo, hardirq_hi) (the interrupt
	 * entries, __irqentry_text) is a hard interrupt's, one in a
	 * softirq_lo/hi range (handle_softirqs, __do_softirq) a soft
	 * interrupt's; the innermost found decides.  From /proc/kallsyms
	 * (kself_irq_ranges()); 0, 0: none.
	 */
	__u64 hardirq_lo, hardirq_hi;
	__u64 softirq_lo[2], softirq_hi[2];
};

enum walker_event_type {
	WALKER_EV_SAMPLE = 1,		/* a cpu-clock sample (walker_sample) */
	WALKER_EV_OFFCPU = 2,		/* a switch-out: a walker_sample with
					   prev_state and the stack it left from */
	WALKER_EV_ONCPU = 3,		/* a switch-in (walker_task) */
	WALKER_EV_FORK = 4,		/* walker_task: pid/tid the child */
	WALKER_EV_EXEC = 5,		/* walker_task: comm the new program */
	WALKER_EV_EXIT = 6,		/* walker_task: a thread exited */
	WALKER_EV_LOST = 7,		/* walker_lost: events the ring dropped */
	WALKER_EV_WAKING = 8,		/* walker_waking: a watched thread
					   woken, in the waker's context */
};

/* Every event starts with this. */
struct walker_ev_hdr {
	__u32 type;			/* enum walker_event_type */
	__u32 size;			/* of the whole event, bytes */
	__u64 time_ns;			/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 pid;			/* tgid */
	__u32 tid;
	__u32 cpu;
	__u32 flags;			/* WALKER_F_* */
};

/* Why a sample's Python part is what it is (flags). */
#define WALKER_F_NO_PROC	0x01u	/* watched, runtime not known yet */
#define WALKER_F_NO_TSTATE	0x02u	/* no thread state for this thread
					   (not a Python thread, or not yet) */
#define WALKER_F_PY_CUT		0x04u	/* more frames than max_py_frames */
#define WALKER_F_PY_READ	0x08u	/* a frame could not be read: cut */
#define WALKER_F_KSTACK_ERR	0x10u	/* bpf_get_stack failed for the kernel */
#define WALKER_F_USTACK_ERR	0x20u	/* the user stack could not be copied */
#define WALKER_F_USTACK_FULL	0x40u	/* ustack_bytes copied: may go on */
#define WALKER_F_KERNEL_MODE	0x80u	/* interrupted in the kernel */
#define WALKER_F_EXITING	0x100u	/* WAKING: the waker is a watched
					   thread in do_exit(); past exit_mm()
					   it has no registers, Python frames
					   or user stack */
#define WALKER_F_GROUP_DEAD	0x400u	/* EXIT: the process's last thread
					   (its signal->live at 0): the
					   process is gone, whichever thread
					   its first was */
/*
 * The recorder's, in a sample record's struct walker_raw (never the
 * kernel's): its user frames were unwound as it was recorded, from the
 * walker's copy of the stack, and are in the record's callchain after
 * PERF_CONTEXT_USER (the pcs perf script shows: callers at their return
 * address - 1); the copy itself is not kept, and struct
 * walker_raw_unwound follows the Python frames in the raw field.
 */
#define WALKER_F_UNWOUND	0x8000u

/* One Python frame, innermost first. */
struct walker_py_frame {
	__u64 code;			/* PyCodeObject address (tag bits cleared) */
	__u32 instr;			/* byte offset of the instruction in the
					   bytecode (f_lasti scaled; pointer -
					   (code + code_adaptive)); 0xffffffff:
					   not started (3.8-3.10 f_lasti -1) */
	__u16 flags;			/* WALKER_PYF_* */
	__u16 tag;			/* walker_code_tag(): a freed address
					   reused by another code object is
					   told apart by it */
};

/*
 * A frame's tag: co_firstlineno mixed with the address of co_filename
 * (a str object, 16-byte aligned) and with name: co_name's hash (a
 * str's hash is its text's; -1 until computed, and every code object's
 * name is interned, which computes it), else its address when the hash
 * is -1 or cannot be read, or 0 when the layout reads no name.
 * Module bodies all start at line 1 and each is freed once its module
 * is imported, so the next one is often allocated at the same address:
 * with the line alone, 40 modules imported in turn were all named after
 * the first.  Each module's file name is its own object, alive with the
 * module.  Functions made by exec() in turn share the file name object
 * ("<string>") and the first line, and their names' objects are freed
 * and allocated again at the same few addresses: with the file name's
 * address, 30 of them were all named after the first; their names'
 * hashes differ.
 */
static inline __u16 walker_code_tag(__u32 firstlineno, __u64 filename,
				    __u64 name)
{
	__u64 n = name ^ (name >> 4);

	return (__u16)(firstlineno ^ (__u32)(filename >> 4) ^
		       (__u32)(filename >> 20) ^ (__u32)(filename >> 36) ^
		       n ^ (n >> 16) ^ (n >> 32) ^ (n >> 48));
}

#define WALKER_PYF_ENTRY	1u	/* the first frame of a C-level
					   _PyEval_EvalFrameDefault call */

/*
 * WALKER_EV_SAMPLE / _OFFCPU, followed by:
 *   __u64 regs[WALKER_NR_REGS]   (perf's x86-64 order: ax bx cx dx si di
 *                                 bp sp ip flags cs ss r8..r15; all 0
 *                                 when interrupted with no user context)
 *   __u64 kstack[nr_kstack]      (leaf first)
 *   struct walker_py_frame py[nr_py]   (innermost first)
 *   __u8 ustack[ustack_len]      (from regs sp), padded to 8 bytes
 */
struct walker_sample {
	struct walker_ev_hdr hdr;
	__u64 prev_state;		/* OFFCPU: the task's state at switch-out
					   (0: runnable, i.e. preempted) */
	__u16 nr_kstack;
	__u16 nr_py;
	__u32 ustack_len;
	__u32 ustack_asked;		/* bytes asked for */
	__u32 pad;
};

/*
 * WALKER_EV_WAKING (lib/walker/EVENTS-v2.md section 1): sched_waking of
 * a watched thread (the wakee), taken in the waker's context: hdr.pid,
 * tid and cpu are the waker's (current), or pid 0, tid 0 in interrupt
 * context.  Followed by the waker's stack parts laid out as a sample's
 * (walker_sample above): regs, kstack, py, ustack.  The Python frames
 * and the user stack (and the registers) only when the waker is a
 * thread of a watched process in task context that still has its
 * memory; else nr_py and ustack_len are 0 and the registers zeros.  A
 * watched waker in do_exit() (it woke its parent's waitpid, closed a
 * pipe) has WALKER_F_EXITING in hdr.flags.
 */
enum walker_wake_context {
	WALKER_WAKE_TASK = 0,
	WALKER_WAKE_HARDIRQ = 1,
	WALKER_WAKE_SOFTIRQ = 2,
	WALKER_WAKE_NMI = 3,		/* not told apart today */
};

struct walker_waking {
	struct walker_ev_hdr hdr;
	__u32 wakee_pid, wakee_tid;
	__u32 context;			/* enum walker_wake_context */
	__u32 softirq;			/* the softirq vector when known, else
					   0xffffffff (not read today) */
	char comm[16];			/* the waker's comm (the interrupted
					   task's in irq context) */
	__u16 nr_kstack;		/* as in walker_sample */
	__u16 nr_py;			/* 0 unless a watched waker in task
					   context */
	__u32 ustack_len;		/* likewise */
	__u32 ustack_asked;
	__u32 pad;
};

/*
 * record -p: a thread of an attached process that was blocked in a
 * system call when the walker attached.  Its wait began before the
 * attach, so no switch-out of it was seen; without this its first wait
 * would be lost whole.  The user side puts each such thread into the
 * "preattach" map (key: its tid) before the programs are attached, and
 * sets preattach_left (an array of one __u64) to their number.  Then:
 *
 *   - its first switch-out seen, before any switch-in: the entry goes
 *     (that wait is seen whole; it was running at the attach);
 *   - its first switch-in: in_ns, cpu and the kernel stack it waited
 *     with (bpf_get_task_stack() of the task not yet running) are kept
 *     here, and no ONCPU is sent;
 *   - its return from the system call (sys_exit, in its own context:
 *     its user stack and Python frames are still the waiting ones), or
 *     a switch-out before that (a wait that sleeps again in the same
 *     call): an OFFCPU event with WALKER_F_BEFORE_ATTACH, whose time is
 *     in_ns (the wait's END: the recorder counts it from the attach),
 *     its prev_state `state`, its kernel stack the one kept here; the
 *     entry goes.
 *
 * An entry that goes is counted off preattach_left; at 0 the programs
 * look no further (sys_exit returns at once).
 */
#define WALKER_F_BEFORE_ATTACH	0x200u	/* OFFCPU: a wait that began before
					   the walker attached (as above):
					   time is its switch-in, its end */

struct walker_preattach {
	__u64 state;			/* the task state it waited in, from
					   /proc: 1 interruptible (S), 2
					   uninterruptible (D), 0 runnable */
	__u64 in_ns;			/* its first switch-in; 0: not yet */
	__u32 cpu;			/* ... on this CPU */
	__u32 nr_kstack;
	__u32 flags;			/* WALKER_F_KSTACK_ERR */
	__u32 pad;
	__u64 kstack[WALKER_MAX_KSTACK];	/* leaf first */
};

/* FORK, EXEC, EXIT, ONCPU. */
struct walker_task {
	struct walker_ev_hdr hdr;
	__u32 ppid, ptid;		/* FORK: the parent */
	char comm[16];			/* EXEC / FORK: the task's comm */
};

struct walker_lost {
	struct walker_ev_hdr hdr;
	__u64 lost;
};

/*
 * In the session's perf.data (written by walker/wrecord.c), each sample
 * of the walker carries its Python part in PERF_SAMPLE_RAW: this header
 * then nr_py struct walker_py_frame, innermost first.  Two events:
 * "cpu-clock" (on-CPU samples, period 1 sample) and "offcpu-time" (one
 * off-CPU interval of a thread: period = nanoseconds off CPU; the
 * interval ENDS at the sample's time, when the thread ran again; its
 * stack is the one it left the CPU with; prev_state says how it left).
 * perf's own `perf record --off-cpu` samples share the event name and
 * the meaning of period.  An offcpu-time sample whose flags have
 * WALKER_F_BEFORE_ATTACH (record -p) is a wait that began before the
 * recorder attached: its period counts from the attach.
 */
#define WALKER_RAW_MAGIC 0x4b575950u	/* "PYWK" little-endian */

struct walker_raw {
	__u32 magic;
	__u32 version;			/* WALKER_ABI_VERSION */
	__u32 flags;			/* the event's WALKER_F_* */
	__u32 nr_py;
	__u64 prev_state;		/* offcpu-time: the task's state at
					   switch-out (0: preempted, runnable) */
	__u32 layout_version;		/* hexversion of the interpreter */
	__u32 pad;
};

/*
 * record --wall --wakers (EVENTS-v2.md: what is built of section 2 so
 * far): the waker of an off-CPU interval is a sample record of a third
 * event, "waker", written just before the interval's offcpu-time
 * record and at the same time (its end).  Its pid/tid are the waker's
 * (0/0 in interrupt context), its stack the waker's, as a cpu-clock
 * sample's (kernel call chain, and its user frames, unwound or as a
 * registers and stack copy, when the waker is a watched thread); its
 * raw field is struct walker_raw, the waker's Python frames, struct
 * walker_raw_unwound with WALKER_F_UNWOUND, then this.
 */
#define WALKER_RAW_WAKE_MAGIC 0x57575950u	/* "PYWW" little-endian */

struct walker_raw_wake {
	__u32 magic;
	__u32 wake_flags;		/* WALKER_WAKE_F_* */
	__u32 wakee_pid, wakee_tid;	/* the interval's thread */
	__u32 waker_pid, waker_tid;	/* 0 in interrupt context */
	__u32 context;			/* enum walker_wake_context */
	__u32 softirq;			/* as in walker_waking */
	__u64 wake_time_ns;		/* the waking's own time */
	char comm[16];			/* the waker's (interrupted task's) */
};

/*
 * What the stack copy of a sample unwound as it was recorded
 * (WALKER_F_UNWOUND) was, for judging its stack as the copy itself
 * would be judged: where the user stack pointer was, the bytes asked
 * and copied (fewer than asked: the stack ended there), and why the
 * unwinding stopped (lib/unwind's enum unwind_stop).
 */
#define WALKER_RAW_UNWOUND_MAGIC 0x55575950u	/* "PYWU" little-endian */

struct walker_raw_unwound {
	__u32 magic;
	__u32 stop;			/* enum unwind_stop */
	__u64 sp;			/* the user stack pointer (0: none) */
	__u32 asked, copied;		/* bytes of the stack */
	__u32 full;			/* the copy was full: the stack may
					   go on past it */
	__u32 pad;
};

/* One wakeup woke several waiters (same waker thread within 1 us). */
#define WALKER_WAKE_F_SHARED	1u
/* A task-context waker outside the watched processes: no user stack. */
#define WALKER_WAKE_F_UNWATCHED	2u
/*
 * A watched thread on its way out (WALKER_F_EXITING): its exit ended
 * the wait; no user stack once its memory is gone.
 */
#define WALKER_WAKE_F_EXITING	4u

#endif
