/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_WALKMERGE_H
#define PPR_REPORT_WALKMERGE_H
/*
 * A sample of the in-kernel frame walker (record --mode bpf) carries
 * its Python frames in perf.data's raw field (walker/walker_abi.h,
 * struct walker_raw): code object addresses and instruction offsets,
 * innermost first, each C-level call of the eval loop's first frame
 * marked ENTRY.  The native reader unwinds the native part as for any
 * DWARF sample; walkmerge() then replaces each eval-loop native frame
 * by the Python frames it was running (one ENTRY group each), names
 * them from the session's code objects (walker/pycode.h) with their
 * lines, and keeps every other native and kernel frame exact.  Python
 * frames the native unwinding did not reach (a stack deeper than its
 * copy) follow at the root end: the Python stack is whole, and the
 * native frames between those Python calls are said to be missing.
 */
#include "compat.h"
#include "report/sample.h"

struct pycode_cache;

struct walkmerge_stats {
	uint64_t samples;	/* walker samples seen */
	uint64_t py_frames;	/* Python frames put in */
	uint64_t unnamed;	/* ... whose code object was not named */
	uint64_t no_python;	/* samples without Python frames (a thread
				   not running Python, or no thread state) */
	uint64_t py_cut;	/* walks cut (frame cap or a failed read) */
	/*
	 * Python frames appended past the end of the native unwinding,
	 * counted by walkmerge()'s caller: native_short when the stack
	 * copy was full (the stack went on past it), native_stopped when
	 * the whole stack was copied and the unwinding stopped inside it
	 * (code without unwind information).
	 */
	uint64_t native_short, native_stopped;
	uint64_t native_nostack;	/* of native_stopped: a copy of 0
					   bytes (the kernel could copy
					   none of the stack) */
};

/* What walkmerge() says of one sample. */
struct walkmerge_result {
	size_t n;		/* frames in out */
	unsigned walker : 1;	/* a walker sample (raw field ours) */
	unsigned py_whole : 1;	/* the Python walk reached the thread's
				   first frame */
	unsigned native_short : 1;
	uint64_t prev_state;	/* offcpu-time samples */
	uint32_t flags;		/* the walker's WALKER_F_* */
};

/*
 * Merge: in[n] (leaf first, as unwound) and the raw field (raw NULL or
 * not the walker's: out is in, r->walker 0).  out has room for max
 * frames.  Names point into the cache (valid while it lives) or to
 * static strings.
 */
void walkmerge(struct pycode_cache *c, pid_t pid, const unsigned char *raw,
	       uint32_t raw_size, const struct sample_frame *in, size_t n,
	       struct sample_frame *out, size_t max,
	       struct walkmerge_result *r, struct walkmerge_stats *st);

/*
 * A walker sample unwound as it was recorded (walker_abi.h,
 * WALKER_F_UNWOUND): what its stack copy was, for judging its stack as
 * the copy would be judged.
 */
struct walkmerge_unwound {
	uint64_t sp;		/* the user stack pointer (0: none) */
	uint32_t asked, copied;	/* bytes */
	uint32_t stop;		/* lib/unwind's enum unwind_stop */
	int full;		/* the copy was full: the stack may go on */
};

/*
 * The raw field's offset after the walker's struct walker_raw, Python
 * frames and (WALKER_F_UNWOUND) struct walker_raw_unwound, which goes
 * to *u when u is not NULL (u->asked 0: none): where a waker's struct
 * walker_raw_wake begins.  0: not a walker raw field, or cut short.
 */
uint64_t walkmerge_tail(const unsigned char *raw, uint32_t raw_size,
			struct walkmerge_unwound *u);

/* Is sym the eval loop's function (the frames Python calls run in)? */
int walkmerge_is_eval(const char *sym, size_t len);

#endif
