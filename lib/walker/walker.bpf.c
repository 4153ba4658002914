// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-kernel frame walker: BPF programs that sample the watched
 * processes and walk their Python frames where the sample was taken.
 * Compiled by clang's BPF target against the kernel's vmlinux.h (CO-RE),
 * loaded by walker.c through its bpftool skeleton.  What the maps and
 * events hold is walker_abi.h.
 *
 *   walker_sample   cpu-clock perf event, one per CPU: a WALKER_EV_SAMPLE
 *                   for each sample of a watched process
 *   walker_switch   tp_btf/sched_switch (config.wall): OFFCPU for a watched
 *                   prev, ONCPU for a watched next
 *   walker_fork     tp_btf/sched_process_fork: a watched parent's child is
 *                   watched too (config.follow_children), FORK
 *   walker_exec     tp_btf/sched_process_exec: EXEC, the runtime forgotten
 *   walker_exit     tp_btf/sched_process_exit: EXIT for a watched thread,
 *                   which is kept in exiting
 *   walker_waking   tp_btf/sched_waking (config.wakers): WAKING for a
 *                   watched wakee, in the waker's context
 *   walker_sys_exit tp_btf/sys_exit (attached only when the user side
 *                   put threads into preattach): the OFFCPU of a wait
 *                   that began before the attach (walker_abi.h, struct
 *                   walker_preattach)
 *
 * Kept for the verifier of kernel 6.x with clang 14: the frame walk is a
 * bpf_loop() callback (a plain loop of 1024 frames exceeds the verifier's
 * 1M-instruction budget), every variable offset into the scratch buffer
 * is bounded by an explicit test just before its use, no signed
 * division, and the perf event's registers are read as 8-byte fields.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "walker/walker_abi.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Where the parts of an event go in the scratch buffer (walker_abi.h).
 * A waking's header (walker_waking) is HDR_SLACK bytes longer than a
 * sample's, and the parts after it are laid out alike: a sample is
 * built HDR_SLACK bytes in, a waking at 0, so that both put their
 * registers, kernel, Python and user stacks at the same offsets and
 * share one walk.
 */
#define HDR_SLACK	((__u32)(sizeof(struct walker_waking) - \
				 sizeof(struct walker_sample)))
#define REGS_OFF	((__u32)sizeof(struct walker_waking))
#define KSTACK_OFF	(REGS_OFF + WALKER_NR_REGS * 8)
#define KSTACK_BYTES	(WALKER_MAX_KSTACK * 8)
#define PY_OFF_MAX	(KSTACK_OFF + KSTACK_BYTES)
#define PYF_SIZE	((__u32)sizeof(struct walker_py_frame))
#define USTACK_OFF_MAX	(PY_OFF_MAX + WALKER_MAX_PY_FRAMES * PYF_SIZE)
#define EV_MAX		(USTACK_OFF_MAX + WALKER_USTACK_MAX)
/* One frame as read from the target: walker.c refuses larger layouts. */
#define FBUF_MAX	256
/* the most of a code object py_step() reads at once (<= FBUF_MAX) */
#define CODE_SPAN	WALKER_CODE_SPAN

#define PAGE		4096ull
#define PF_EXITING	0x00000004	/* include/linux/sched.h */
#define PF_KTHREAD	0x00200000

/* A sample being built, and the frame just read (per CPU, see scratch). */
struct scratch {
	__u8 ev[EV_MAX];
	__u8 fbuf[FBUF_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WALKER_MAX_LAYOUTS);
	__type(key, __u32);
	__type(value, struct walker_layout);
} layouts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct walker_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walker_config);
} wconfig SEC(".maps");

/* pid_tgid -> PyThreadState address, re-checked at every use. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} tstates SEC(".maps");

/*
 * Four slots per CPU: [4 * cpu] for the perf event, [4 * cpu + 1] for
 * sched_switch, [4 * cpu + 2] for sched_waking, [4 * cpu + 3] for
 * sys_exit.  A per-CPU array cannot hold values this big (32 KiB is its
 * limit); walker.c sets max_entries to four times the possible CPUs.
 * sched_switch runs with interrupts off, so the cpu-clock program
 * cannot interrupt it on its CPU, but each has its own slot all the
 * same; a sched_waking in task context can be interrupted by the
 * cpu-clock program (its own slot) and by another waking, which the
 * kernel does not run (a tracing program does not nest in itself on a
 * CPU: counted as missed by the kernel).  sys_exit has its own slot:
 * where the system call tracepoints may fault (newer kernels' faultable
 * tracepoints), its program may be preempted, and a switch on its CPU
 * would then share sched_switch's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} ring SEC(".maps");

/*
 * pid_tgid -> where its user stack was seen to end (the end of the run
 * of readable pages from sp), with the thread's start_time.  A stack's
 * end does not move: once known, a copy that would pass it is asked for
 * up to it only, and succeeds at once; unknown, the copy of the whole
 * size fails near the top of a stack (shallow stacks: most samples),
 * the kernel clears what it asked, and the pages are probed one by one
 * before a second copy (about 2.5 us of a 5.6 us sample).  Dropped at
 * the thread's exit and its process's exec; start_time tells a reused
 * tid apart.
 */
struct ustack_end {
	__u64 start_time;
	__u64 end;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct ustack_end);
} ustack_ends SEC(".maps");

/*
 * tid -> start_time of each watched thread that has passed
 * sched_process_exit.  do_exit() wakes others after that: exit_files()
 * closing a pipe, exit_notify() waking the parent in waitpid; by then the
 * recorder may have taken the process out of procs (the EXIT event
 * wakes it), so the waking tells a watched waker from this.  An LRU:
 * an entry is needed for the microseconds the exit takes; start_time
 * tells a reused tid apart.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} exiting SEC(".maps");

/*
 * tid -> struct walker_preattach: the threads of an attached process
 * blocked in a system call at the attach (walker_abi.h).  Filled by the
 * user side before the programs are attached; BPF only changes entries
 * in place and deletes them.  A thread past the map's size is not
 * followed (the user side counts it).
 */
#define PREATTACH_MAX 2048
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PREATTACH_MAX);
	__type(key, __u32);
	__type(value, struct walker_preattach);
} preattach SEC(".maps");

/* The entries of preattach not done yet (0: nothing to look up). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} preattach_left SEC(".maps");

/* Events the ring buffer refused. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/*
 * Copies of a user stack that probed its pages one by one (the whole
 * size did not read and the thread's stack end was not known yet):
 * once a thread, and again when its stack is no longer what it was
 * (walker_ustack_probes()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ustack_probes SEC(".maps");

static __always_inline void count_lost(void)
{
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &k);

	if (n)
		*n += 1;
}

/*
 * Into the ring.  Waking the reader costs an interrupt per event (3 us
 * per sample measured in a VM): it is woken only once a quarter of the
 * ring is full, and otherwise reads what is there when its poll times
 * out (walker_poll()).
 */
static __always_inline void output(void *data, __u64 size)
{
	const struct walker_ev_hdr *h = data;
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) >=
	    bpf_ringbuf_query(&ring, BPF_RB_RING_SIZE) / 4)
		flags = BPF_RB_FORCE_WAKEUP;
	/*
	 * What the reader must act on at once wakes it: a process's fork,
	 * exec or exit, and a watched process whose interpreter it has not
	 * found yet (every sample until then has no Python frames; rare
	 * and short, at a program's start).
	 */
	if ((h->type >= WALKER_EV_FORK && h->type <= WALKER_EV_EXIT) ||
	    (h->flags & WALKER_F_NO_PROC))
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&ring, data, size, flags))
		count_lost();
}

static __always_inline void fill_hdr(struct walker_ev_hdr *h, __u32 type,
				     __u32 size, __u32 tgid, __u32 tid)
{
	h->type = type;
	h->size = size;
	h->time_ns = bpf_ktime_get_ns();
	h->pid = tgid;
	h->tid = tid;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
}

/* --- reading the frame buffer at offsets from the layout ---------------- */

static __always_inline __u64 rd64(const __u8 *b, __u32 off)
{
	if (off > FBUF_MAX - 8)
		return 0;
	return *(const __u64 *)(b + off);
}

static __always_inline __u32 rd32(const __u8 *b, __u32 off)
{
	if (off > FBUF_MAX - 4)
		return 0;
	return *(const __u32 *)(b + off);
}

static __always_inline __u8 rd8(const __u8 *b, __u32 off)
{
	if (off > FBUF_MAX - 1)
		return 0;
	return b[off];
}

/* --- the thread state ----------------------------------------------------- */

struct ts_walk {
	__u64 ts;		/* the thread state being looked at */
	__u64 want;		/* the thread's pthread_self() */
	__u32 off_id;
	__u32 off_next;
	__u64 found;
};

static long ts_step(__u32 i, void *data)
{
	struct ts_walk *w = data;
	__u64 id = 0, next = 0;

	if (!w->ts)
		return 1;
	if (bpf_probe_read_user(&id, sizeof(id), (void *)(w->ts + w->off_id)))
		return 1;
	if (id == w->want) {
		w->found = w->ts;
		return 1;
	}
	if (bpf_probe_read_user(&next, sizeof(next), (void *)(w->ts + w->off_next)))
		return 1;
	w->ts = next;
	return 0;
}

/*
 * The thread's PyThreadState: the cached one when its thread_id is still
 * this thread's fsbase (pthread_self() on x86-64 glibc), else found from
 * _PyRuntime's first interpreter's list of threads.  0: none.
 */
static __always_inline __u64 find_tstate(__u64 pid_tgid, __u64 runtime,
					 const struct walker_layout *l,
					 __u64 fsbase)
{
	__u64 *cached = bpf_map_lookup_elem(&tstates, &pid_tgid);
	struct ts_walk w = { .want = fsbase, .off_id = l->tstate_thread_id,
			     .off_next = l->tstate_next };
	__u64 interp = 0, id = 0;

	if (cached && *cached &&
	    !bpf_probe_read_user(&id, sizeof(id),
				 (void *)(*cached + l->tstate_thread_id)) &&
	    id == fsbase)
		return *cached;
	if (bpf_probe_read_user(&interp, sizeof(interp),
				(void *)(runtime + l->runtime_interp_head)) ||
	    !interp)
		return 0;
	if (bpf_probe_read_user(&w.ts, sizeof(w.ts),
				(void *)(interp + l->interp_tstate_head)))
		return 0;
	bpf_loop(1024, ts_step, &w, 0);
	if (w.found)
		bpf_map_update_elem(&tstates, &pid_tgid, &w.found, BPF_ANY);
	return w.found;
}

/* --- the frame walk --------------------------------------------------------- */

struct py_walk {
	struct scratch *s;
	const struct walker_layout *l;
	__u64 frame;		/* next frame to read; 0: the chain ended */
	__u32 pyoff;		/* where frame 0 goes in s->ev */
	__u32 n;		/* frames emitted */
	__u32 max;
	__u32 flags;		/* WALKER_F_PY_* */
};

static long py_step(__u32 i, void *data)
{
	struct py_walk *w = data;
	struct scratch *s = w->s;
	const struct walker_layout *l = w->l;
	struct walker_py_frame *f;
	__u64 frame = w->frame, code, back, base, ip, filename = 0, name = 0;
	__u32 rlen, roff;
	__s64 hash;
	__u32 rs, n, off, instr, tag = 0, pflags = 0;
	__u8 owner;

	if (!s || !l || !frame)
		return 1;
	rs = l->frame_read_size;
	if (rs == 0 || rs > FBUF_MAX) {
		w->flags |= WALKER_F_PY_READ;
		return 1;
	}
	if (bpf_probe_read_user(s->fbuf, rs, (void *)frame)) {
		w->flags |= WALKER_F_PY_READ;
		return 1;
	}
	back = rd64(s->fbuf, l->frame_back);
	n = w->n;
	if (n > WALKER_MAX_PY_FRAMES)
		return 1;

	if (l->frame_kind == WALKER_IFRAME && l->frame_owner != WALKER_NO_FIELD) {
		owner = rd8(s->fbuf, l->frame_owner);
		if ((l->owner_cstack != WALKER_NO_FIELD && owner == l->owner_cstack) ||
		    (l->owner_interpreter != WALKER_NO_FIELD &&
		     owner == l->owner_interpreter)) {
			/*
			 * A shim frame on the C stack below the first frame
			 * of a _PyEval_EvalFrameDefault call (3.12, 3.13:
			 * owned by CSTACK; 3.14+: by INTERPRETER): not a
			 * Python function; the frame walked before it is
			 * that call's entry frame.
			 */
			if (n > 0) {
				off = w->pyoff + (n - 1) * PYF_SIZE;
				if (off <= USTACK_OFF_MAX - PYF_SIZE) {
					f = (void *)(s->ev + off);
					f->flags |= WALKER_PYF_ENTRY;
				}
			}
			w->frame = back;
			return 0;
		}
	}
	if (n >= w->max || n >= WALKER_MAX_PY_FRAMES) {
		/* a real frame past the last one asked for */
		w->flags |= WALKER_F_PY_CUT;
		return 1;
	}

	code = rd64(s->fbuf, l->frame_code) & ~(__u64)l->code_tag_bits;
	if (l->frame_kind == WALKER_FRAMEOBJ) {
		/* f_lasti: an int, -1 before the first instruction */
		__s32 lasti = (__s32)rd32(s->fbuf, l->frame_instr);
		/* lasti_units: bytes per unit of f_lasti (3.10: 2; 0 or 1: bytes) */
		__u32 unit = l->lasti_units >= 2 ? l->lasti_units : 1;

		instr = lasti < 0 ? 0xffffffffu : (__u32)lasti * unit;
		pflags = WALKER_PYF_ENTRY;
	} else {
		/* a pointer into co_code_adaptive; below it: not started */
		ip = rd64(s->fbuf, l->frame_instr);
		base = code + l->code_adaptive;
		instr = ip >= base && ip - base < 0xffffffffull ?
			(__u32)(ip - base) : 0xffffffffu;
		if (l->frame_is_entry != WALKER_NO_FIELD &&
		    rd8(s->fbuf, l->frame_is_entry))
			pflags = WALKER_PYF_ENTRY;
	}
	/*
	 * co_firstlineno, co_filename and co_name (walker_code_tag()), in
	 * one read of the code object: the window code_read gives (the
	 * user side made it cover the three).  A read costs some 60 to 70
	 * ns, and three were most of a frame's walk; one window, not a
	 * choice made here, keeps the verifier's paths few (it had twice
	 * the instructions to check).  fbuf's frame is read out by now; a
	 * field outside the window reads as 0 (rd32(), rd64()).  Without a
	 * window (a layout from before it): the first line alone.
	 */
	rlen = l->code_read >> 16;
	roff = l->code_read & 0xffff;
	if (code && rlen && rlen <= CODE_SPAN) {
		if (!bpf_probe_read_user(s->fbuf, rlen, (void *)(code + roff))) {
			tag = rd32(s->fbuf, l->code_firstlineno - roff);
			filename = rd64(s->fbuf, l->code_filename - roff);
			name = rd64(s->fbuf, l->code_name - roff);
		}
	} else if (code && l->code_firstlineno != WALKER_NO_FIELD) {
		bpf_probe_read_user(&tag, sizeof(tag),
				    (void *)(code + l->code_firstlineno));
	}

	off = w->pyoff + n * PYF_SIZE;
	if (off > USTACK_OFF_MAX - PYF_SIZE)
		return 1;
	f = (void *)(s->ev + off);
	f->code = code;
	f->instr = instr;
	f->flags = pflags;
	/* co_name's hash, or its address (walker_code_tag()) */
	if (name && l->str_hash && l->str_hash != WALKER_NO_FIELD &&
	    !bpf_probe_read_user(&hash, sizeof(hash),
				 (void *)(name + l->str_hash)) && hash != -1)
		name = (__u64)hash;
	f->tag = walker_code_tag(tag, filename, name);
	w->n = n + 1;
	w->frame = back;
	return 0;
}

/*
 * The first frame to walk from a thread state, in *frame (0: no Python
 * frame is running).  -1 when the thread state cannot be read.
 */
static __always_inline int current_frame(__u64 ts,
					 const struct walker_layout *l,
					 __u64 *frame)
{
	__u64 p = 0;

	*frame = 0;
	if (bpf_probe_read_user(&p, sizeof(p), (void *)(ts + l->tstate_frame)))
		return -1;
	if (l->tstate_kind != WALKER_TS_CFRAME) {
		*frame = p;
		return 0;
	}
	/* 3.11, 3.12: the running _PyCFrame (always set while Python runs) */
	if (!p || bpf_probe_read_user(frame, sizeof(*frame),
				      (void *)(p + l->cframe_current_frame)))
		return -1;
	return 0;
}

/* --- the user stack --------------------------------------------------------- */

/*
 * The run of readable pages from sp, up to want bytes: each page's end
 * above sp checked by its last 8 bytes (a bpf_loop() callback, checked
 * once by the verifier, not once an iteration).
 */
struct probe_pages {
	__u64 sp, want;
	__u64 end;	/* the next page end to check */
	__u64 len;	/* readable from sp so far */
};

static long probe_step(__u32 i, void *data)
{
	struct probe_pages *p = data;
	__u64 v;

	if (p->end - p->sp > p->want ||
	    bpf_probe_read_user(&v, sizeof(v), (void *)(p->end - 8)))
		return 1;
	p->len = p->end - p->sp;
	p->end += PAGE;
	return 0;
}

/*
 * Copy want bytes of user stack from sp to s->ev + off.  Near the top of
 * the stack the copy fails as a whole: then the longest run of readable
 * pages from sp is copied instead, and where it ended is kept for the
 * thread's next copies (ustack_ends).  Returns the bytes copied.
 */
static __always_inline __u32 copy_ustack(struct scratch *s, __u64 off, __u64 sp,
					 __u64 want, __u32 *flags,
					 __u64 pid_tgid, __u64 start)
{
	struct ustack_end *known, seen;
	struct probe_pages pc;
	__u64 end, len, *n;
	__u32 k0 = 0;
	int cut = 0;

	if (off > USTACK_OFF_MAX || want == 0 || !sp)
		return 0;
	known = bpf_map_lookup_elem(&ustack_ends, &pid_tgid);
	if (known && known->start_time == start && known->end > sp &&
	    known->end - sp < want) {
		/* the stack ends before want: the copy up to its end */
		want = known->end - sp;
		cut = 1;
	}
	if (want > WALKER_USTACK_MAX)
		want = WALKER_USTACK_MAX;
	/* the bounded copy is the one passed on (clang may keep another) */
	barrier_var(want);
	if (!bpf_probe_read_user(s->ev + off, want, (void *)sp)) {
		if (!cut)
			*flags |= WALKER_F_USTACK_FULL;
		return want;
	}
	/* page ends above sp, each checked by its last 8 bytes */
	n = bpf_map_lookup_elem(&ustack_probes, &k0);
	if (n)
		*n += 1;
	pc.sp = sp;
	pc.want = want;
	pc.end = (sp + PAGE) & ~(PAGE - 1);
	pc.len = 0;
	bpf_loop(WALKER_USTACK_MAX / PAGE + 1, probe_step, &pc, 0);
	end = pc.end;
	len = pc.len;
	if (len > WALKER_USTACK_MAX)
		len = WALKER_USTACK_MAX;
	barrier_var(len);
	if (!len || bpf_probe_read_user(s->ev + off, len, (void *)sp)) {
		*flags |= WALKER_F_USTACK_ERR;
		return 0;
	}
	/*
	 * the run ended at an unreadable page, not at want: its end (after
	 * a copy up to a known end that failed too: the stack's new end)
	 */
	if (end - sp <= want) {
		seen.start_time = start;
		seen.end = sp + len;
		bpf_map_update_elem(&ustack_ends, &pid_tgid, &seen, BPF_ANY);
	}
	return len;
}

/* --- a whole sample ------------------------------------------------------- */

/*
 * cs and ss as 8-byte reads (the verifier refuses narrower reads of the
 * perf event's context), of which the selector is the low 16 bits: since
 * FRED (6.9) they are u16 in a union with the 64-bit csx / ssx, whose
 * high bits hold other state.
 */
#define SEG(p, f) (*(volatile const __u64 *)&(p)->f & 0xffff)

#define COPY_REGS(r, p) do {						\
	(r)[0] = (p)->ax; (r)[1] = (p)->bx; (r)[2] = (p)->cx;		\
	(r)[3] = (p)->dx; (r)[4] = (p)->si; (r)[5] = (p)->di;		\
	(r)[6] = (p)->bp; (r)[7] = (p)->sp; (r)[8] = (p)->ip;		\
	(r)[9] = (p)->flags; (r)[10] = SEG(p, cs); (r)[11] = SEG(p, ss); \
	(r)[12] = (p)->r8; (r)[13] = (p)->r9; (r)[14] = (p)->r10;	\
	(r)[15] = (p)->r11; (r)[16] = (p)->r12; (r)[17] = (p)->r13;	\
	(r)[18] = (p)->r14; (r)[19] = (p)->r15;				\
} while (0)

/* The user registers saved when task entered the kernel (0: none). */
static __always_inline void task_regs(__u64 *r, struct task_struct *task)
{
	struct pt_regs regs;
	int i;

	if ((task->flags & PF_KTHREAD) || !task->mm ||
	    bpf_probe_read_kernel(&regs, sizeof(regs),
				  (void *)bpf_task_pt_regs(task))) {
		for (i = 0; i < WALKER_NR_REGS; i++)
			r[i] = 0;
		return;
	}
	COPY_REGS(r, &regs);
}

/* The kernel stack into s->ev at KSTACK_OFF: its frames (flags on error). */
static __always_inline __u32 take_kstack(void *ctx, struct scratch *s,
					 __u32 *flags)
{
	long r = bpf_get_stack(ctx, s->ev + KSTACK_OFF, KSTACK_BYTES, 0);

	if (r < 0) {
		*flags |= WALKER_F_KSTACK_ERR;
		return 0;
	}
	r /= 8;
	return r > WALKER_MAX_KSTACK ? WALKER_MAX_KSTACK : (__u32)r;
}

/* What walk_user() put after the kernel stack. */
struct user_parts {
	__u32 nr_py, ulen, want;
	__u64 end;		/* the event's end in s->ev; 0: too big */
};

/*
 * A waker's user stack, at most: the native frames it is read for lie
 * at its top (the wakeup's futex call, the lock's release, the GIL's
 * drop_gil() and PyEval_SaveThread() around a blocking call) and its
 * Python frames are walked whatever its size; the sample's whole copy
 * made --wakers's wakings three times as large (6 KB each).
 */
#define WAKER_USTACK 2048u

/*
 * A switch-out's user stack, at most (--wall): WALKER_OFFCPU_USTACK,
 * what a sample copied before the copies were unwound as they are
 * recorded (the default is now twice that).
 */
#define OFFCPU_USTACK ((__u32)WALKER_OFFCPU_USTACK)

/* walk_user()'s scalar arguments. */
struct walk_in {
	__u64 pid_tgid;
	__u64 fsbase, start_time;	/* the task's */
	__u32 nk;
	int full;
	__u32 flags;			/* WALKER_F_*, added to */
	__u32 pad;
};

/*
 * The Python frames and the user stack of the thread whose registers
 * are in place in s->ev, after nk kernel frames: the one walk a sample,
 * a switch-out and a waking share.  full 0: neither (the end only); 1:
 * the configured copy of the user stack; 2: a waker's (WAKER_USTACK); 3:
 * a switch-out's (OFFCPU_USTACK).
 *
 * A global function: the verifier checks it once, on its own, and each
 * caller's paths only against its signature.  Inlined, it was checked
 * again on every path to each call: sched_switch's program, which calls
 * it twice, took 45,875 instructions and 75 ms to load.  Its pointers
 * may be NULL to the verifier: checked first.  A BPF function takes five
 * arguments at most: the scalars come in struct walk_in, and what it
 * writes in *out is unknown to its callers' verification (they bound
 * what they use of it again).
 */
__noinline int walk_user(struct scratch *s, const struct walker_proc *proc,
			 struct walk_in *in, struct user_parts *out)
{
	const __u64 *regs;
	struct walker_config *cfg;
	const struct walker_layout *l;
	struct py_walk w = { .s = s };
	__u32 k0 = 0, pyoff, uoff, ulen, want, max, nk;
	__u64 ts, size, pid_tgid;
	int full;

	if (!s || !proc || !in || !out)
		return 0;
	pid_tgid = in->pid_tgid;
	nk = in->nk;
	full = in->full;
	regs = (const __u64 *)(s->ev + REGS_OFF);
	out->nr_py = out->ulen = out->want = 0;
	out->end = 0;
	cfg = bpf_map_lookup_elem(&wconfig, &k0);
	if (!cfg)
		return 0;
	if (nk > WALKER_MAX_KSTACK)
		nk = WALKER_MAX_KSTACK;
	pyoff = KSTACK_OFF + nk * 8;

	if (!full) {
		;
	} else if (!proc->runtime) {
		in->flags |= WALKER_F_NO_PROC;
	} else {
		__u32 li = proc->layout;

		l = bpf_map_lookup_elem(&layouts, &li);
		ts = l ? find_tstate(pid_tgid, proc->runtime, l,
				     in->fsbase) : 0;
		if (!l || !ts) {
			in->flags |= WALKER_F_NO_TSTATE;
		} else {
			max = cfg->max_py_frames;
			if (max > WALKER_MAX_PY_FRAMES)
				max = WALKER_MAX_PY_FRAMES;
			w.l = l;
			if (current_frame(ts, l, &w.frame))
				w.flags |= WALKER_F_PY_READ;
			w.pyoff = pyoff;
			w.max = max;
			bpf_loop(2 * WALKER_MAX_PY_FRAMES + 2, py_step, &w, 0);
			if (w.frame && !(w.flags & (WALKER_F_PY_READ | WALKER_F_PY_CUT)))
				w.flags |= WALKER_F_PY_CUT;
			in->flags |= w.flags;
		}
	}
	if (w.n > WALKER_MAX_PY_FRAMES)
		w.n = WALKER_MAX_PY_FRAMES;
	uoff = pyoff + w.n * PYF_SIZE;

	want = full ? cfg->ustack_bytes & ~7u : 0;
	if (full == 2 && want > WAKER_USTACK)
		want = WAKER_USTACK;
	if (full == 3 && want > OFFCPU_USTACK)
		want = OFFCPU_USTACK;
	ulen = 0;
	if (full && uoff <= USTACK_OFF_MAX)
		ulen = copy_ustack(s, uoff, regs[7], want, &in->flags,
				   pid_tgid, in->start_time);
	if (ulen > WALKER_USTACK_MAX)
		ulen = WALKER_USTACK_MAX;
	if (ulen & 7) {
		/* the padding: nothing of an earlier sample */
		__u32 pad = uoff + (ulen & ~7u);

		if (pad <= EV_MAX - 8)
			*(__u64 *)(s->ev + pad) = 0;
	}
	size = (__u64)uoff + ((ulen + 7) & ~7u);
	if (size > EV_MAX)
		return 0;
	out->nr_py = w.n;
	out->ulen = ulen;
	out->want = want;
	out->end = size;
	return 0;
}

/* walk_user() for task, with the scalars packed; *flags added to. */
static __always_inline void walk(struct scratch *s,
				 const struct walker_proc *proc,
				 struct task_struct *task, __u64 pid_tgid,
				 __u32 nk, int full, __u32 *flags,
				 struct user_parts *out)
{
	struct walk_in in = {
		.pid_tgid = pid_tgid,
		.fsbase = task->thread.fsbase,
		.start_time = task->start_time,
		.nk = nk,
		.full = full,
		.flags = *flags,
	};

	walk_user(s, proc, &in, out);
	*flags = in.flags;
}

/*
 * The header of the SAMPLE or OFFCPU event in s->ev that walk_user()
 * finished (u): its size into *size (the bytes from HDR_SLACK); 0, or -1
 * when it does not fit (nothing to send).
 */
static __always_inline int sample_head(struct scratch *s, __u32 type,
				       __u64 pid_tgid, __u32 flags,
				       __u64 prev_state, __u32 nk,
				       const struct user_parts *u,
				       __u64 *size)
{
	struct walker_sample *ws = (void *)(s->ev + HDR_SLACK);

	*size = u->end;
	if (*size <= HDR_SLACK || *size > EV_MAX)
		return -1;
	*size -= HDR_SLACK;
	fill_hdr(&ws->hdr, type, *size, pid_tgid >> 32, (__u32)pid_tgid);
	ws->hdr.flags = flags;
	ws->prev_state = prev_state;
	ws->nr_kstack = nk;
	ws->nr_py = u->nr_py;
	ws->ustack_len = u->ulen;
	ws->ustack_asked = u->want;
	ws->pad = 0;
	return 0;
}

/*
 * Finish the sample in s->ev whose registers are in place: the kernel
 * stack (when kernel), the Python frames, the user stack; then send it.
 */
static __always_inline void finish_sample(void *ctx, struct scratch *s,
					  __u32 type, __u64 pid_tgid,
					  const struct walker_proc *proc,
					  struct task_struct *task, int kernel,
					  __u64 prev_state)
{
	struct user_parts u = {};
	__u32 flags = 0, nk = 0;
	__u64 size;

	if (kernel) {
		flags |= WALKER_F_KERNEL_MODE;
		nk = take_kstack(ctx, s, &flags);
	}
	walk(s, proc, task, pid_tgid, nk, type == WALKER_EV_OFFCPU ? 3 : 1,
	     &flags, &u);
	if (!sample_head(s, type, pid_tgid, flags, prev_state, nk, &u, &size))
		output(s->ev + HDR_SLACK, size);
}

static __always_inline const struct walker_proc *watched(__u32 tgid)
{
	const struct walker_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	return p && (p->flags & WALKER_PROC_WATCHED) ? p : 0;
}

static __always_inline struct scratch *scratch_slot(__u32 kind)
{
	__u32 k = bpf_get_smp_processor_id() * 4 + kind;

	return bpf_map_lookup_elem(&scratch, &k);
}

SEC("perf_event")
int walker_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	const struct walker_proc *proc = watched(pid_tgid >> 32);
	struct task_struct *task;
	struct scratch *s;
	__u64 *r;
	int user;

	if (!proc)
		return 0;
	s = scratch_slot(0);
	if (!s)
		return 0;
	task = bpf_get_current_task_btf();
	r = (__u64 *)(s->ev + REGS_OFF);
	/* an 8-byte read: the verifier refuses narrower context reads */
	user = (SEG(&ctx->regs, cs) & 3) == 3;
	if (user)
		COPY_REGS(r, &ctx->regs);
	else
		task_regs(r, task);
	finish_sample(ctx, s, WALKER_EV_SAMPLE, pid_tgid, proc, task, !user, 0);
	return 0;
}

static __always_inline void emit_task(__u32 type, struct task_struct *t,
				      struct task_struct *parent, __u32 flags)
{
	struct walker_task ev = {};

	fill_hdr(&ev.hdr, type, sizeof(ev), t->tgid, t->pid);
	ev.hdr.flags = flags;
	if (parent) {
		ev.ppid = parent->tgid;
		ev.ptid = parent->pid;
	}
	bpf_probe_read_kernel(ev.comm, sizeof(ev.comm), t->comm);
	output(&ev, sizeof(ev));
}

/* --- waits that began before the attach (struct walker_preattach) ------ */

/* Whether any thread of preattach is still to be done. */
static __always_inline int preattach_on(void)
{
	__u32 k0 = 0;
	__u64 *n = bpf_map_lookup_elem(&preattach_left, &k0);

	return n && *n;
}

/*
 * tid's entry goes: counted off preattach_left when it was there.  The
 * count only ever stays too high (two CPUs' decrements cannot lose an
 * entry): then the lookups go on, nothing is missed.
 */
static __always_inline void preattach_done(__u32 tid)
{
	__u32 k0 = 0;
	__u64 *n;

	if (bpf_map_delete_elem(&preattach, &tid))
		return;
	n = bpf_map_lookup_elem(&preattach_left, &k0);
	if (n && *n)
		__sync_fetch_and_add(n, -1);
}

/*
 * The wait of task (the current task, in the system call it waited in)
 * that began before the attach, as an OFFCPU event built in s: its
 * registers, Python frames and user stack taken now (the call has not
 * returned: they are the waiting ones), its kernel stack the one kept
 * at its switch-in; time, cpu and prev_state the entry's.
 */
static __always_inline void emit_preattach(struct scratch *s, __u64 pid_tgid,
					   const struct walker_proc *proc,
					   struct task_struct *task,
					   const struct walker_preattach *pa)
{
	struct walker_sample *ws = (void *)(s->ev + HDR_SLACK);
	__u32 flags = WALKER_F_KERNEL_MODE | WALKER_F_BEFORE_ATTACH;
	__u32 nk = pa->nr_kstack;
	struct user_parts u = {};
	__u64 size;

	flags |= pa->flags & WALKER_F_KSTACK_ERR;
	if (nk > WALKER_MAX_KSTACK)
		nk = WALKER_MAX_KSTACK;
	if (bpf_probe_read_kernel(s->ev + KSTACK_OFF, KSTACK_BYTES, pa->kstack)) {
		nk = 0;
		flags |= WALKER_F_KSTACK_ERR;
	}
	task_regs((__u64 *)(s->ev + REGS_OFF), task);
	walk(s, proc, task, pid_tgid, nk, 3, &flags, &u);
	if (sample_head(s, WALKER_EV_OFFCPU, pid_tgid, flags, pa->state, nk,
			&u, &size))
		return;
	/* the switch-in's time and cpu, not now's */
	ws->hdr.time_ns = pa->in_ns;
	ws->hdr.cpu = pa->cpu;
	output(s->ev + HDR_SLACK, size);
}

/*
 * prev, watched, leaves the CPU: a wait of its that began before the
 * attach and was switched in but has not returned from its system call
 * yet (it sleeps again in the same call) is sent now, from the same
 * user stack; either way its entry goes, since the walker sees this
 * wait from its switch-out.
 */
static __always_inline void preattach_out(struct scratch *s, __u64 pid_tgid,
					  const struct walker_proc *proc,
					  struct task_struct *prev)
{
	__u32 tid = (__u32)pid_tgid;
	struct walker_preattach *pa = bpf_map_lookup_elem(&preattach, &tid);

	if (!pa)
		return;
	if (pa->in_ns)
		emit_preattach(s, pid_tgid, proc, prev, pa);
	preattach_done(tid);
}

/*
 * next, watched, is switched in: when it is a thread blocked at the
 * attach, switched in for the first time, its switch-in time and the
 * kernel stack it waited with (it has not run yet) are kept.  1: the
 * ONCPU is not sent (the wait's OFFCPU, at its sys_exit, ends it).
 */
static __always_inline int preattach_in(struct task_struct *next)
{
	__u32 tid = next->pid;
	struct walker_preattach *pa = bpf_map_lookup_elem(&preattach, &tid);
	long r;

	if (!pa || pa->in_ns)
		return 0;
	pa->in_ns = bpf_ktime_get_ns();
	pa->cpu = bpf_get_smp_processor_id();
	r = bpf_get_task_stack(next, pa->kstack, sizeof(pa->kstack), 0);
	pa->nr_kstack = r > 0 ? (__u32)((__u64)r / 8) : 0;
	pa->flags = r < 0 ? WALKER_F_KSTACK_ERR : 0;
	return 1;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(walker_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	const struct walker_proc *proc;
	__u32 k0 = 0;
	struct walker_config *cfg = bpf_map_lookup_elem(&wconfig, &k0);
	struct scratch *s;
	__u64 pid_tgid;
	int pre;

	if (!cfg || !cfg->wall)
		return 0;
	pre = preattach_on();
	/* prev is the current task: its memory is the one read */
	proc = watched(prev->tgid);
	if (proc && (s = scratch_slot(1))) {
		pid_tgid = (__u64)prev->tgid << 32 | (__u32)prev->pid;
		if (pre)
			preattach_out(s, pid_tgid, proc, prev);
		task_regs((__u64 *)(s->ev + REGS_OFF), prev);
		/*
		 * prev_state as the scheduler saw it (TASK_* bits with their
		 * modifiers, e.g. TASK_INTERRUPTIBLE | TASK_FREEZABLE); a
		 * preempted task is runnable whatever it says: 0
		 */
		finish_sample(ctx, s, WALKER_EV_OFFCPU, pid_tgid, proc, prev, 1,
			      preempt ? 0 : prev_state);
	}
	if (watched(next->tgid) && !(pre && preattach_in(next)))
		emit_task(WALKER_EV_ONCPU, next, 0, 0);
	return 0;
}

/*
 * A thread blocked at the attach returns from the system call it
 * waited in, after its first switch-in (preattach_in()): its wait's
 * OFFCPU, with the stacks it waited with.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(walker_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	const struct walker_preattach *pa;
	const struct walker_proc *proc;
	struct scratch *s;

	if (!preattach_on())
		return 0;
	pa = bpf_map_lookup_elem(&preattach, &tid);
	if (!pa || !pa->in_ns)
		return 0;
	proc = watched(pid_tgid >> 32);
	if (proc && (s = scratch_slot(3)))
		emit_preattach(s, pid_tgid, proc, bpf_get_current_task_btf(),
			       pa);
	preattach_done(tid);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(walker_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 k0 = 0, ctgid;
	struct walker_config *cfg = bpf_map_lookup_elem(&wconfig, &k0);
	const struct walker_proc *proc;
	struct walker_proc np;

	if (!cfg || !cfg->follow_children)
		return 0;
	ctgid = child->tgid;
	if (ctgid == (__u32)parent->tgid)
		return 0;	/* a thread, not a process */
	proc = watched(parent->tgid);
	if (!proc)
		return 0;
	np = *proc;
	np.flags |= WALKER_PROC_INHERITED;
	bpf_map_update_elem(&procs, &ctgid, &np, BPF_ANY);
	emit_task(WALKER_EV_FORK, child, parent, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(walker_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	const struct walker_proc *proc = watched(tgid);
	struct walker_proc np;
	__u64 key = (__u64)tgid << 32 | (__u32)p->pid;

	if (!proc)
		return 0;
	/* a new stack, ending elsewhere (the start_time stays) */
	bpf_map_delete_elem(&ustack_ends, &key);
	/* a new program: its interpreter, if any, is the user side's to find */
	np = *proc;
	np.runtime = 0;
	bpf_map_update_elem(&procs, &tgid, &np, BPF_ANY);
	emit_task(WALKER_EV_EXEC, p, 0, 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(walker_exit, struct task_struct *p)
{
	__u64 key = (__u64)p->tgid << 32 | (__u32)p->pid, start;
	__u32 tid = p->pid;

	if (!watched(p->tgid))
		return 0;
	bpf_map_delete_elem(&tstates, &key);
	bpf_map_delete_elem(&ustack_ends, &key);
	/* a wait before the attach not sent yet dies with its thread */
	preattach_done(tid);
	start = p->start_time;
	bpf_map_update_elem(&exiting, &tid, &start, BPF_ANY);
	/*
	 * do_exit() counts the thread out of signal->live before this
	 * tracepoint: 0, the process's last thread (its first may have
	 * left long before, by pthread_exit()).
	 */
	emit_task(WALKER_EV_EXIT, p, 0,
		  p->signal->live.counter ? 0 : WALKER_F_GROUP_DEAD);
	return 0;
}

/* wake_context()'s walk of the kernel stack, one frame a step. */
struct wake_walk {
	const struct scratch *s;
	const struct walker_config *cfg;
	__u32 nk;
	__u32 context;
};

static long wake_step(__u32 i, void *data)
{
	struct wake_walk *w = data;
	const struct walker_config *cfg = w->cfg;
	__u64 a, off = (__u64)i * 8;

	/* the bound checked on the offset used (clang may keep two) */
	barrier_var(off);
	if (i >= w->nk || off > (WALKER_MAX_KSTACK - 1) * 8)
		return 1;
	a = *(const __u64 *)(w->s->ev + KSTACK_OFF + off);
	if (a >= cfg->hardirq_lo && a < cfg->hardirq_hi) {
		w->context = WALKER_WAKE_HARDIRQ;
		return 1;
	}
	if ((a >= cfg->softirq_lo[0] && a < cfg->softirq_hi[0]) ||
	    (a >= cfg->softirq_lo[1] && a < cfg->softirq_hi[1])) {
		w->context = WALKER_WAKE_SOFTIRQ;
		return 1;
	}
	return 0;
}

/*
 * The context a waking ran in, from its kernel stack (nk frames in
 * s->ev): the innermost return address in an interrupt entry (hard) or
 * in the softirq loop (soft) decides; none: the task's own.  A
 * bpf_loop() callback: a plain loop of WALKER_MAX_KSTACK frames was
 * checked by the verifier frame by frame.
 */
static __always_inline __u32 wake_context(const struct scratch *s, __u32 nk,
					  const struct walker_config *cfg)
{
	struct wake_walk w = { .s = s, .cfg = cfg, .nk = nk,
			       .context = WALKER_WAKE_TASK };

	bpf_loop(WALKER_MAX_KSTACK, wake_step, &w, 0);
	return w.context;
}

/*
 * Whether cur, a task in do_exit() (PF_EXITING), is a watched thread: its
 * process still in procs, or its tid in exiting with its start_time.
 */
static __always_inline int watched_exiting(struct task_struct *cur,
					   const struct walker_proc *proc)
{
	__u32 tid = cur->pid;
	__u64 *start;

	if (!(cur->flags & PF_EXITING))
		return 0;
	if (proc)
		return 1;
	start = bpf_map_lookup_elem(&exiting, &tid);
	return start && *start == cur->start_time;
}

/*
 * A watched thread woken (config.wakers): WAKING in the waker's context.
 * A thread of a watched process waking it in task context gets the walk
 * a sample gets (its registers as it entered the kernel, its Python
 * frames, its user stack); any other waker its kernel stack and comm.
 * A watched thread that wakes it on its way out (do_exit(): a parent's
 * waitpid, a pipe it held) is marked WALKER_F_EXITING: after exit_mm()
 * its memory is gone (mm 0), so it has no registers, Python frames or
 * user stack, and is no unwatched process for all that.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(walker_waking, struct task_struct *p)
{
	__u32 k0 = 0, flags = WALKER_F_KERNEL_MODE, nk, context, i;
	struct walker_config *cfg = bpf_map_lookup_elem(&wconfig, &k0);
	const struct walker_proc *proc = 0;
	struct walker_proc none = {};
	struct walker_waking *ev;
	struct task_struct *cur;
	struct user_parts u = {};
	struct scratch *s;
	__u64 pid_tgid, *r, size;

	if (!cfg || !cfg->wakers || !watched(p->tgid))
		return 0;
	s = scratch_slot(2);
	if (!s)
		return 0;
	nk = take_kstack(ctx, s, &flags);
	context = wake_context(s, nk, cfg);
	cur = bpf_get_current_task_btf();
	pid_tgid = bpf_get_current_pid_tgid();
	if (context == WALKER_WAKE_TASK) {
		proc = watched(pid_tgid >> 32);
		if (watched_exiting(cur, proc))
			flags |= WALKER_F_EXITING;
		if (!cur->mm)
			proc = 0;	/* nothing of its memory to read */
	}
	r = (__u64 *)(s->ev + REGS_OFF);
	if (proc) {
		task_regs(r, cur);
	} else {
		for (i = 0; i < WALKER_NR_REGS; i++)
			r[i] = 0;
	}
	walk(s, proc ? proc : &none, cur, pid_tgid, nk, proc ? 2 : 0, &flags,
	     &u);
	/*
	 * u is what walk_user() wrote: unknown to the verifier, so the
	 * bounded size is read once and kept in a register
	 */
	size = u.end;
	barrier_var(size);
	if (!size || size > EV_MAX)
		return 0;
	ev = (void *)s->ev;
	if (context == WALKER_WAKE_TASK)
		fill_hdr(&ev->hdr, WALKER_EV_WAKING, size, pid_tgid >> 32,
			 (__u32)pid_tgid);
	else
		fill_hdr(&ev->hdr, WALKER_EV_WAKING, size, 0, 0);
	ev->hdr.flags = flags;
	ev->wakee_pid = p->tgid;
	ev->wakee_tid = p->pid;
	ev->context = context;
	ev->softirq = 0xffffffffu;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->nr_kstack = nk;
	ev->nr_py = u.nr_py;
	ev->ustack_len = u.ulen;
	ev->ustack_asked = u.want;
	ev->pad = 0;
	output(s->ev, size);
	return 0;
}
