/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walker's events into perf.data records (see wconv.h): a queue
 * of event copies sorted at each flush (wconv_queue.c), per-process
 * state (the interpreter's version, the executable mappings written so
 * far) and per-thread state (seen, an off-CPU interval open), kept by
 * wconv_proc.c.
 *
 * Two moments: when an event arrives (wconv_event) the hooks are
 * called and what needs the living process is read at once,
 * /proc/PID/comm and maps (wconv_proc.c), because a short-lived
 * process is gone by the time its events are written; the records made
 * of them are queued as internal events next to the event, and sorted
 * with it.  When the events are written (in time order, at a flush)
 * samples are made and off-CPU intervals paired.
 */
#include "compat.h"
#include "walker/wconv.h"
#include "alloc.h"
#include "byteorder.h"
#include "walker/wconv_priv.h"
#include "unwind/unwind.h"

#include <time.h>		/* CLOCK_MONOTONIC */

/*
 * A sample record's bytes besides its callchain, raw data, registers and
 * stack dump (header, ids, times, the sizes of those parts), with room
 * to spare: the kept dump is cut so that the record fits PW_RECORD_MAX.
 */
#define WCONV_SAMPLE_FIXED 256u

static void attrs(const struct wconv_opts *o, struct perf_event_attr *cpu,
		  struct perf_event_attr *off)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->type = PERF_TYPE_SOFTWARE;
	cpu->config = PERF_COUNT_SW_CPU_CLOCK;
	cpu->freq = 1;
	cpu->sample_freq = o->freq;
	cpu->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	cpu->sample_max_stack = WALKER_MAX_KSTACK;
	if (o->keep_stack_copy || o->v1_layout) {
		/* the copy for report to unwind, as perf's DWARF mode */
		cpu->sample_type |= PERF_SAMPLE_REGS_USER |
				    PERF_SAMPLE_STACK_USER;
		cpu->sample_regs_user = USER_REGS_MASK;
		cpu->sample_stack_user = o->ustack_bytes;
		cpu->exclude_callchain_user = 1;
	}
	cpu->sample_id_all = 1;
	cpu->mmap = cpu->mmap2 = cpu->comm = cpu->comm_exec = 1;
	cpu->mmap_data = 1;
	cpu->task = 1;
	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC */
	cpu->use_clockid = 1;
	cpu->clockid = CLOCK_MONOTONIC;
	/* perf record --off-cpu's event: a BPF output event of that name */
	*off = *cpu;
	off->config = PERF_COUNT_SW_BPF_OUTPUT;
	off->freq = 0;
	off->sample_period = 1;
	off->mmap = off->mmap2 = off->comm = off->comm_exec = 0;
	off->mmap_data = off->task = 0;
}

int wconv_new(struct wconv **out, const struct wconv_opts *o, char *err,
	      size_t errlen)
{
	struct wconv *c;
	struct perf_event_attr ca, oa;

	*out = NULL;
	if (o->ustack_bytes % 8 || o->ustack_bytes > WALKER_USTACK_MAX)
		return set_err(err, errlen, "stack dump of %u bytes (a "
			       "multiple of 8 up to %u)", o->ustack_bytes,
			       WALKER_USTACK_MAX);
	c = xcalloc(1, sizeof(*c));
	c->proc_root = xstrdup(o->proc_root ? o->proc_root : "/proc");
	c->kallsyms = o->kallsyms ? xstrdup(o->kallsyms) : NULL;
	c->ustack_bytes = o->ustack_bytes;
	c->start_ns = o->start_ns;
	c->hold_ns = o->hold_ns ? o->hold_ns : DEFAULT_HOLD_NS;
	c->max_bytes = o->max_bytes;
	c->period_ns = o->freq ? (1000000000ull + o->freq / 2) / o->freq : 1;
	c->maps_every_ns = o->maps_every_ns ? o->maps_every_ns :
			   DEFAULT_MAPS_EVERY_NS;
	c->hooks = o->hooks;
	c->wall = o->wall;
	c->wakers = o->wall && o->wakers;
	strbuf_init(&c->raw, 0);
	/* (with the copies kept too: the two can be compared) */
	c->keep_stack_copy = o->keep_stack_copy || o->v1_layout;
	c->v1_layout = o->v1_layout;
	if (unwind_new(&c->uw, NULL, NULL, err, errlen) < 0) {
		wconv_free(c);
		return -1;
	}
	c->pcs = xcalloc(UNWIND_USER_MAX, sizeof(*c->pcs));
	c->chain = xcalloc(2 + WALKER_MAX_KSTACK + UNWIND_USER_MAX,
			   sizeof(*c->chain));
	attrs(o, &ca, &oa);
	if (o->record_fn)
		perfwrite_open_stream(&c->pw, o->record_fn, o->record_data);
	if ((!o->record_fn &&
	     perfwrite_open(&c->pw, o->perf_data, err, errlen) < 0) ||
	    perfwrite_add_attr(c->pw, &ca, "cpu-clock", &c->cpu_id, err,
			       errlen) < 0 ||
	    /* only a wall recording has off-CPU intervals (and reads in
	       the wall clock by default, the event says so to report) */
	    (o->wall && perfwrite_add_attr(c->pw, &oa, "offcpu-time",
					   &c->off_id, err, errlen) < 0) ||
	    /* the wakers: samples of the waker's stack (cpu-clock's form) */
	    (o->wall && o->wakers &&
	     perfwrite_add_attr(c->pw, &ca, "waker", &c->wake_id, err,
				errlen) < 0)) {
		wconv_free(c);
		return -1;
	}
	if (o->cmdline)
		perfwrite_set_cmdline(c->pw, o->cmdline);
	/*
	 * a file is zstd-compressed, as perf record -z writes it, where
	 * libzstd is built in: a sample's stack repeats the last ones'
	 * (about 20-45 bytes a sample, not 300-800; perf reads it too)
	 */
	if (!o->record_fn && !o->v1_layout)
		perfwrite_compress(c->pw, WCONV_ZSTD_LEVEL);
	*out = c;
	return 0;
}

void wconv_free(struct wconv *c)
{
	if (!c)
		return;
	perfwrite_abort(c->pw);
	wconv_procs_release(c);
	strbuf_release(&c->raw);
	free(c->arena);
	timeq_release(&c->q);
	free(c->proc_root);
	free(c->kallsyms);
	kself_release(&c->kself);
	umap_release(&c->kpcs);
	unwind_free(c->uw);
	free(c->pcs);
	free(c->chain);
	free(c);
}

const struct wconv_stats *wconv_stats(const struct wconv *c)
{
	return &c->st;
}

size_t wconv_kernel_pcs(const struct wconv *c, uint64_t **out)
{
	size_t i, n = 0;

	*out = xcalloc(c->kpcs.nr + 1, sizeof(**out));
	for (i = 0; i < c->kpcs.cap; i++)
		if (c->kpcs.ents[i].used)
			(*out)[n++] = c->kpcs.ents[i].key;
	return n;
}

int wconv_image(const struct wconv *c, unsigned char **buf, size_t *len,
		char *err, size_t errlen)
{
	if (!c->pw)
		return set_err(err, errlen, "the recording is finished");
	return perfwrite_image(c->pw, buf, len, err, errlen);
}

void wconv_set_version(struct wconv *c, pid_t pid, unsigned hexversion)
{
	/* a process not seen yet keeps its version until it is */
	wconv_proc_new(c, pid)->hexversion = hexversion;
}

void wconv_set_attach(struct wconv *c, uint64_t attach_ns)
{
	c->attach_ns = attach_ns;
}

void wconv_lost(struct wconv *c, uint64_t lost)
{
	c->pending_lost += lost;
}

int wconv_event(struct wconv *c, const void *ev, size_t len)
{
	struct walker_decoded d;
	struct walker_ev_hdr h;
	struct walker_task tk;
	char why[sizeof(c->st.first_bad)];
	size_t at = c->arena_len;
	uint64_t ip = 0;
	unsigned i;

	if (c->st.stopped)
		return 0;
	/* copied first: the copy is 8-byte aligned whatever ev is */
	if (len > SIZE_MAX / 2)
		len = SIZE_MAX / 2;
	ALLOC_GROW(c->arena, at + len + 8, c->arena_alloc);
	memcpy(c->arena + at, ev, len);
	if (walker_decode(c->arena + at, len, &d, why, sizeof(why)) < 0) {
		if (!c->st.bad++)
			memcpy(c->st.first_bad, why, sizeof(why));
		return -1;
	}
	/* what is needed of it: the arena moves as records are queued */
	memset(&tk, 0, sizeof(tk));
	h = *d.hdr;
	if (d.task)
		tk = *d.task;
	if (d.sample || d.waking) {
		ip = get_le64(d.regs + 8 * REG_IP);
		/* named now, while the code objects most likely live */
		for (i = 0; c->hooks.py_frame && i < d.nr_py; i++) {
			struct walker_py_frame f;

			walker_py_frame_at(&d, i, &f);
			c->hooks.py_frame(c->hooks.data, (pid_t)h.pid, &f);
		}
	}
	c->arena_len = at + ((h.size + 7u) & ~(size_t)7);
	switch (h.type) {
	case WALKER_EV_SAMPLE:
	case WALKER_EV_OFFCPU:
		wconv_arrive_sample(c, &h, ip);	/* queued before it */
		wconv_enqueue(c, at, h.size, h.time_ns);
		if (h.type == WALKER_EV_SAMPLE &&
		    (h.flags & WALKER_F_NO_PROC) && c->hooks.no_proc)
			c->hooks.no_proc(c->hooks.data, (pid_t)h.pid);
		break;
	case WALKER_EV_FORK:
		wconv_arrive_fork(c, &h, &tk);
		wconv_enqueue(c, at, h.size, h.time_ns);
		if (h.pid != tk.ppid && c->hooks.fork)
			c->hooks.fork(c->hooks.data, (pid_t)tk.ppid,
				      (pid_t)h.pid);
		break;
	case WALKER_EV_EXEC:
		wconv_enqueue(c, at, h.size, h.time_ns);	/* its COMM first */
		wconv_arrive_exec(c, &h);
		if (c->hooks.exec)
			c->hooks.exec(c->hooks.data, (pid_t)h.pid);
		break;
	case WALKER_EV_EXIT:
		wconv_enqueue(c, at, h.size, h.time_ns);
		/* its last thread, not its first: see WALKER_F_GROUP_DEAD */
		if ((h.flags & WALKER_F_GROUP_DEAD) && c->hooks.exit)
			c->hooks.exit(c->hooks.data, (pid_t)h.pid);
		break;
	case WALKER_EV_WAKING:
		/* a watched waker's maps, as for its samples */
		if (ip && d.nr_py + d.ustack_len)
			wconv_arrive_sample(c, &h, ip);
		wconv_enqueue(c, at, h.size, h.time_ns);
		break;
	default:
		wconv_enqueue(c, at, h.size, h.time_ns);
		break;
	}
	return 0;
}

/* --- records written in time order ------------------------------------- */

static int write_comm(struct wconv *c, pid_t pid, pid_t tid,
		      const char *comm, int exec, uint64_t time, uint32_t cpu,
		      char *err, size_t errlen)
{
	struct pw_id id = { (uint32_t)pid, (uint32_t)tid, time, cpu };

	c->st.comms++;
	return perfwrite_comm(c->pw, (uint32_t)pid, (uint32_t)tid, comm, exec,
			      &id, err, errlen);
}

/* --- samples ------------------------------------------------------------- */

static void count_sample(struct wconv *c, const struct walker_decoded *d)
{
	uint32_t f = d->hdr->flags;
	unsigned i;

	if (!c->st.samples++ && d->hdr->time_ns > c->start_ns)
		c->st.first_sample_ns = d->hdr->time_ns - c->start_ns;
	for (i = 0; i < 8; i++)
		if (f & (1u << i))
			c->st.flags[i]++;
	if (d->nr_py) {
		c->st.samples_py++;
		if (f & (WALKER_F_PY_CUT | WALKER_F_PY_READ))
			c->st.py_cut++;
	} else if (f & WALKER_F_NO_PROC) {
		c->st.no_py[WCONV_NOPY_NO_PROC]++;
	} else if (f & WALKER_F_NO_TSTATE) {
		c->st.no_py[WCONV_NOPY_NO_TSTATE]++;
	} else if (f & WALKER_F_PY_READ) {
		c->st.no_py[WCONV_NOPY_READ]++;
	} else {
		c->st.no_py[WCONV_NOPY_IDLE]++;
	}
}

/*
 * Where the kernel stack of d starts once the walker's own program's
 * frames are left out (kself.h), and *nk its frames from there: a
 * switch-out's stack starts at the function the program traced
 * (__schedule); a sample taken while one of the programs ran keeps the
 * dispatcher (bpf_trace_runN) as its leaf frame and is counted as the
 * walker's cost (walker_own), which record names once.  Such a sample
 * whose kernel stack is only the program's (the kernel's unwinder
 * stopped in it) gets a dispatcher's address as its one kernel frame,
 * in *leaf (0: none to put).
 */
static unsigned kstack_start(struct wconv *c, const struct walker_decoded *d,
			     unsigned *nk, uint64_t *leaf)
{
	unsigned own, above;

	*leaf = 0;
	*nk = d->nr_kstack;
	if (!*nk || !c->kallsyms)
		return 0;
	if (!c->kself.loaded &&
	    (!c->hooks.kself || c->hooks.kself(c->hooks.data, &c->kself) < 0))
		kself_load(&c->kself, c->kallsyms);
	own = kself_own(&c->kself, d->kstack, *nk, &above);
	if (!own)
		return 0;
	if (d->hdr->type == WALKER_EV_SAMPLE) {
		c->st.walker_own++;
		if (above == KSELF_CUT) {
			*leaf = kself_dispatcher(&c->kself);
			*nk = *leaf ? 1 : 0;
			return 0;
		}
		own = above;
	} else if (above == KSELF_CUT) {
		*nk = 0;
		return 0;
	}
	*nk -= own;
	return own;
}

/*
 * The record-time unwinding of d's user stack (its registers regs, any
 * of them set; asked bytes asked, the copy full or not) into c->pcs:
 * their number, with what the copy was in *uw; -1 when d has no user
 * part to unwind (no registers or no copy: a kernel thread, an exiting
 * waker), written as before, with its kernel frames only.
 */
static int unwind_now(struct wconv *c, const struct walker_decoded *d,
		      const uint64_t *regs, int any, uint32_t asked, int full,
		      struct walker_raw_unwound *uw)
{
	static const struct pd_attr attr = {
		.sample_regs_user = USER_REGS_MASK,
		.sample_stack_user = 1,
	};
	struct pd_sample s;
	struct unwind_result res;
	int n;

	if (!any || !d->ustack_len)
		return -1;
	memset(&s, 0, sizeof(s));
	s.attr = &attr;
	s.pid = (pid_t)d->hdr->pid;
	s.tid = (pid_t)d->hdr->tid;
	s.regs = (const unsigned char *)regs;
	s.nr_regs = WALKER_NR_REGS;
	s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s.user_sp = regs[REG_SP];
	s.have_sp = 1;
	s.stack = d->ustack;
	s.dyn_size = d->ustack_len;
	s.stack_size = asked;
	s.have_stack = 1;
	n = unwind_user(c->uw, &s, c->pcs, UNWIND_USER_MAX, &res);
	memset(uw, 0, sizeof(*uw));
	uw->magic = WALKER_RAW_UNWOUND_MAGIC;
	uw->stop = (uint32_t)res.stop;
	uw->sp = regs[REG_SP];
	uw->asked = asked;
	uw->copied = d->ustack_len;
	uw->full = (uint32_t)full;
	return n;
}

/*
 * One sample record from a decoded SAMPLE, OFFCPU or WAKING event: of
 * event ev_id, at time, with period; tail (tail_len bytes) after the
 * Python frames in the raw field.
 */
static int write_sample(struct wconv *c, const struct walker_decoded *d,
			const struct wproc *p, uint64_t ev_id, uint64_t time,
			uint64_t period, const void *tail, size_t tail_len,
			char *err, size_t errlen)
{
	const struct walker_ev_hdr *h = d->hdr;
	uint32_t asked = d->sample ? d->sample->ustack_asked :
			 d->waking ? d->waking->ustack_asked : 0;
	uint64_t regs[WALKER_NR_REGS], leaf;
	uint64_t *chain = c->chain;
	struct walker_raw raw;
	struct walker_raw_unwound uw;
	struct pw_sample ps;
	unsigned i, k0, nk;
	int any = 0, full, nu;

	memcpy(regs, d->regs, sizeof(regs));
	for (i = 0; i < WALKER_NR_REGS; i++)
		any |= regs[i] != 0;
	memset(&ps, 0, sizeof(ps));
	ps.id = ev_id;
	ps.pid = h->pid;
	ps.tid = h->tid;
	ps.time = time;
	ps.cpu = h->cpu;
	ps.period = period;
	k0 = kstack_start(c, d, &nk, &leaf);
	if (nk) {
		chain[0] = CTX_KERNEL;
		memcpy(chain + 1, d->kstack + 8 * (size_t)k0, 8 * (size_t)nk);
		if (leaf)
			chain[1] = leaf;
		ps.callchain = chain;
		ps.nr_callchain = 1 + (uint64_t)nk;
		for (i = 1; i <= nk; i++)
			umap_get(&c->kpcs, chain[i], NULL);
	}
	if (h->flags & WALKER_F_KERNEL_MODE) {
		ps.misc = PERF_RECORD_MISC_KERNEL;
		ps.ip = nk ? chain[1] : regs[REG_IP];
		if (!nk)	/* else kept with the chain above */
			umap_get(&c->kpcs, ps.ip, NULL);
	} else {
		ps.misc = PERF_RECORD_MISC_USER;
		ps.ip = regs[REG_IP];
	}
	memset(&raw, 0, sizeof(raw));
	raw.magic = WALKER_RAW_MAGIC;
	raw.version = WALKER_ABI_VERSION;
	raw.flags = h->flags;
	raw.nr_py = d->nr_py;
	raw.prev_state = d->sample ? d->sample->prev_state : 0;
	raw.layout_version = p ? p->hexversion : 0;
	full = (h->flags & WALKER_F_USTACK_FULL) || d->ustack_len >= asked;
	/* the user frames now, from the copy and the live maps */
	nu = c->v1_layout ? -1 :
	     unwind_now(c, d, regs, any, asked, full, &uw);
	if (nu >= 0) {
		raw.flags |= WALKER_F_UNWOUND;
		chain[ps.nr_callchain++] = CTX_USER;
		memcpy(chain + ps.nr_callchain, c->pcs,
		       (size_t)nu * sizeof(*chain));
		ps.nr_callchain += (uint64_t)nu;
		ps.callchain = chain;
	}
	strbuf_reset(&c->raw);
	strbuf_add(&c->raw, &raw, sizeof(raw));
	strbuf_add(&c->raw, d->py,
		   (size_t)d->nr_py * sizeof(struct walker_py_frame));
	if (raw.flags & WALKER_F_UNWOUND)
		strbuf_add(&c->raw, &uw, sizeof(uw));
	if (tail_len)
		strbuf_add(&c->raw, tail, tail_len);
	ps.raw = c->raw.buf;
	ps.raw_len = (uint32_t)c->raw.len;
	if (!c->keep_stack_copy)
		return perfwrite_sample(c->pw, &ps, err, errlen);
	if (any) {
		ps.regs_abi = PERF_SAMPLE_REGS_ABI_64;
		ps.regs = regs;
	}
	/*
	 * The dump: what was copied, and room for 8 bytes more when the
	 * copy stopped short of what was asked (the stack ended), so that
	 * readers see dyn_size < size, as the kernel writes it; a full
	 * copy is a full dump (the stack may go on past it).
	 */
	if (any && d->ustack_len) {
		/*
		 * perf's records hold 64 KiB: a 32 KiB copy under 2048 Python
		 * frames does not fit.  The kept dump is then cut to what
		 * does (from sp: the innermost frames stay), a full dump to
		 * readers; the frames unwound now came from the whole copy.
		 */
		uint64_t room = PW_RECORD_MAX - WCONV_SAMPLE_FIXED -
				c->raw.len - 8 * ps.nr_callchain -
				8 * (uint64_t)WALKER_NR_REGS;
		uint64_t len = d->ustack_len;

		room &= ~7ull;
		if (len + 8 > room) {
			len = room;
			full = 1;
			c->st.kept_copies_cut++;
		}
		ps.stack = d->ustack;
		ps.dyn_size = len;
		ps.stack_size = (len + 7) & ~7ull;
		if (!full)
			ps.stack_size += 8;
	}
	return perfwrite_sample(c->pw, &ps, err, errlen);
}

/* --- events in time order ------------------------------------------------ */

static int close_interval(struct wconv *c, struct wthread *t, uint64_t end,
			  char *err, size_t errlen);

/*
 * t, off CPU since its switch-out, is seen running at time now (a sample
 * of it, its next switch-out, its exit): its switch-in was lost (the
 * kernel ran it without the walker's switch event).  The interval ends
 * no later than now: closed there, and counted, rather than dropped,
 * since a wait of seconds lost whole would be a silent hole in the wall
 * clock.  It is too long by the time the thread ran before now, which
 * is short: no sample of it fell in that time, or this is that sample.
 */
static int close_late(struct wconv *c, struct wthread *t, uint64_t now,
		      char *err, size_t errlen)
{
	int r;

	c->st.offcpu_late++;
	r = close_interval(c, t, now, err, errlen);
	/* a waking is the waker of the wait that ended, or of none */
	free(t->wake);
	t->wake = NULL;
	return r;
}

static int on_sample(struct wconv *c, const struct walker_decoded *d,
		     char *err, size_t errlen)
{
	struct wproc *p = wconv_proc_find(c, (pid_t)d->hdr->pid);
	struct umap_ent *e;
	struct wthread *t;

	count_sample(c, d);
	if (c->wall && (e = umap_find(&c->threads, d->hdr->tid)) &&
	    (t = e->val)) {
		t->seen_at = d->hdr->time_ns;
		if (t->off && close_late(c, t, d->hdr->time_ns, err,
					 errlen) < 0)
			return -1;
	}
	return write_sample(c, d, p, c->cpu_id, d->hdr->time_ns,
			    c->period_ns, NULL, 0, err, errlen);
}

/*
 * A wait that began before the attach (WALKER_F_BEFORE_ATTACH,
 * walker_abi.h's struct walker_preattach): the event's time is the
 * switch-in that ended it, its stacks the ones the thread waited with.
 * It is the interval from the attach to that switch-in, closed at once
 * as on_oncpu() closes one, with the waker that ended it.  BPF sends
 * none for a thread whose switch-out it saw first; a thread with an
 * interval open (not expected) or no attach time leaves it out
 * (counted).  A sample of the thread may have been written before it
 * (it came later than the hold): that is no reason to drop it.
 */
static int on_preattach(struct wconv *c, const struct walker_decoded *d,
			char *err, size_t errlen)
{
	struct wthread *t = wconv_thread_get(c, (pid_t)d->hdr->pid,
					     (pid_t)d->hdr->tid);
	uint64_t end = d->hdr->time_ns;
	int r;

	if (t->off || !c->attach_ns || end < c->attach_ns) {
		c->st.preattach_dropped++;
		return 0;
	}
	t->off = xmalloc(d->hdr->size);
	memcpy(t->off, d->hdr, d->hdr->size);
	t->off_len = d->hdr->size;
	c->st.preattach++;
	c->st.preattach_ns += end - c->attach_ns;
	r = close_interval(c, t, end, err, errlen);
	t->seen_at = end;
	/* as at a switch-in: the waking was the waker of this wait */
	free(t->wake);
	t->wake = NULL;
	return r;
}

/* A switch-out: kept (a copy) until the thread runs again. */
static int on_offcpu(struct wconv *c, const struct walker_decoded *d,
		     char *err, size_t errlen)
{
	struct wthread *t;

	if (d->hdr->flags & WALKER_F_BEFORE_ATTACH)
		return on_preattach(c, d, err, errlen);

	/*
	 * A thread's last switch-out, as it exits (TASK_DEAD, after its
	 * exit event): no wait, it never runs again.
	 */
	if (d->sample && (d->sample->prev_state & WCONV_TASK_DEAD)) {
		c->st.offcpu_exited++;
		return 0;
	}
	t = wconv_thread_get(c, (pid_t)d->hdr->pid, (pid_t)d->hdr->tid);
	t->seen_at = d->hdr->time_ns;
	/* its switch-in was lost: it ran before this switch-out */
	if (t->off && close_late(c, t, d->hdr->time_ns, err, errlen) < 0)
		return -1;
	t->off = xmalloc(d->hdr->size);
	memcpy(t->off, d->hdr, d->hdr->size);
	t->off_len = d->hdr->size;
	return 0;
}

/*
 * The waker of t's interval (its last waking), as a "waker" sample at
 * end, the interval's own time, just before it; an interval left
 * runnable (preempted) has none.  Counted with the interval's length.
 */
static int write_waker(struct wconv *c, struct wthread *t,
		       const struct walker_decoded *od, uint64_t end,
		       uint64_t len, char *err, size_t errlen)
{
	const struct walker_waking *wk;
	struct walker_raw_wake rw;
	struct walker_decoded wd;
	char why[PPR_ERR_LEN];

	if (!t->wake || !od->sample || !od->sample->prev_state ||
	    walker_decode(t->wake, t->wake_len, &wd, why, sizeof(why)) < 0 ||
	    !wd.waking)
		return 0;
	wk = wd.waking;
	memset(&rw, 0, sizeof(rw));
	rw.magic = WALKER_RAW_WAKE_MAGIC;
	rw.wake_flags = t->wake_flags;
	rw.wakee_pid = od->hdr->pid;
	rw.wakee_tid = od->hdr->tid;
	rw.waker_pid = wd.hdr->pid;
	rw.waker_tid = wd.hdr->tid;
	rw.context = wk->context;
	rw.softirq = wk->softirq;
	rw.wake_time_ns = wd.hdr->time_ns;
	memcpy(rw.comm, wk->comm, sizeof(rw.comm));
	c->st.woken++;
	c->st.woken_ns += len;
	if (t->wake_flags & WALKER_WAKE_F_SHARED) {
		c->st.woken_shared++;
		c->st.woken_shared_ns += len;
	}
	if (wk->context != WALKER_WAKE_TASK) {
		c->st.woken_irq++;
		c->st.woken_irq_ns += len;
	}
	return write_sample(c, &wd, wconv_proc_find(c, (pid_t)wd.hdr->pid),
			    c->wake_id, end, 1, &rw, sizeof(rw), err, errlen);
}

/* The open interval of t, written as ending at end. */
static int close_interval(struct wconv *c, struct wthread *t, uint64_t end,
			  char *err, size_t errlen)
{
	struct walker_decoded od;
	char why[PPR_ERR_LEN];
	uint64_t start, len;
	int r;

	r = walker_decode(t->off, t->off_len, &od, why, sizeof(why));
	if (r == 0) {
		/* a wait that began before the attach: counted from it */
		start = od.hdr->flags & WALKER_F_BEFORE_ATTACH ? c->attach_ns :
			od.hdr->time_ns;
		len = end > start ? end - start : 0;
		if (c->wakers)
			r = write_waker(c, t, &od, end, len, err, errlen);
		if (r == 0)
			r = write_sample(c, &od,
					 wconv_proc_find(c, (pid_t)od.hdr->pid),
					 c->off_id, end, len, NULL, 0, err,
					 errlen);
		c->st.offcpu++;
		c->st.offcpu_ns += len;
	}
	free(t->off);
	t->off = NULL;
	return r;
}

/*
 * A waking: kept as the wakee's last (the last before it runs again is
 * the one that ended its wait).  The same waker thread waking another
 * thread within WAKE_SHARED_NS is one wakeup of several waiters (a
 * notify_all, a futex wake of N): both marked shared.
 */
static int on_waking(struct wconv *c, const struct walker_decoded *d)
{
	const struct walker_waking *wk = d->waking;
	struct wthread *t, *w, *prev;
	struct umap_ent *e;
	uint32_t flags = 0;
	unsigned i;
	int regs = 0, exiting;

	c->st.wakings++;
	if (!c->wakers)
		return 0;
	for (i = 0; i < 8 * WALKER_NR_REGS; i++)
		regs |= d->regs[i];
	/*
	 * A watched thread in do_exit() has no registers either once its
	 * memory is gone: it is the exiting thread, not an unwatched one
	 */
	exiting = wk->context == WALKER_WAKE_TASK &&
		  (d->hdr->flags & WALKER_F_EXITING);
	if (exiting)
		flags |= WALKER_WAKE_F_EXITING;
	else if (wk->context == WALKER_WAKE_TASK && !regs)
		flags |= WALKER_WAKE_F_UNWATCHED;
	if (wk->context == WALKER_WAKE_TASK && d->hdr->tid) {
		/* an exited waker's state went with its EXIT: not made anew */
		e = umap_find(&c->threads, (uint32_t)d->hdr->tid);
		w = e ? e->val : exiting ? NULL :
		    wconv_thread_get(c, (pid_t)d->hdr->pid, (pid_t)d->hdr->tid);
	} else {
		w = NULL;
	}
	if (w) {
		if (w->woke_tid && w->woke_tid != (pid_t)wk->wakee_tid &&
		    d->hdr->time_ns - w->woke_time <= WAKE_SHARED_NS) {
			flags |= WALKER_WAKE_F_SHARED;
			e = umap_find(&c->threads, (uint32_t)w->woke_tid);
			prev = e ? e->val : NULL;
			if (prev && prev->wake)
				prev->wake_flags |= WALKER_WAKE_F_SHARED;
		}
		w->woke_time = d->hdr->time_ns;
		w->woke_tid = (pid_t)wk->wakee_tid;
	}
	t = wconv_thread_get(c, (pid_t)wk->wakee_pid, (pid_t)wk->wakee_tid);
	free(t->wake);
	t->wake = xmalloc(d->hdr->size);
	memcpy(t->wake, d->hdr, d->hdr->size);
	t->wake_len = d->hdr->size;
	t->wake_flags = flags;
	return 0;
}

static int on_oncpu(struct wconv *c, const struct walker_decoded *d,
		    char *err, size_t errlen)
{
	struct wthread *t = wconv_thread_get(c, (pid_t)d->hdr->pid,
					     (pid_t)d->hdr->tid);
	int r = 0;

	if (!t->off) {
		c->st.oncpu_unpaired++;
		/*
		 * it switched or ran before: the switch-out of this wait
		 * was lost; the wait began after the thread's last event
		 */
		if (t->seen_at) {
			c->st.offcpu_unopened++;
			if (d->hdr->time_ns > t->seen_at)
				c->st.offcpu_unopened_ns += d->hdr->time_ns -
							    t->seen_at;
		}
	} else {
		r = close_interval(c, t, d->hdr->time_ns, err, errlen);
	}
	t->seen_at = d->hdr->time_ns;
	/* a waking is the waker of the wait that ends here, or of none */
	free(t->wake);
	t->wake = NULL;
	return r;
}

/* Does pid have a thread not yet exited (seen, its exit not)? */
static int process_threads(const struct wconv *c, pid_t pid)
{
	size_t i;

	for (i = 0; i < c->threads.cap; i++) {
		const struct wthread *t = c->threads.ents[i].val;

		if (c->threads.ents[i].used && t && t->pid == pid)
			return 1;
	}
	return 0;
}

static int on_task(struct wconv *c, const struct walker_decoded *d,
		   char *err, size_t errlen)
{
	const struct walker_ev_hdr *h = d->hdr;
	const struct walker_task *tk = d->task;
	struct pw_id id = { h->pid, h->tid, h->time_ns, h->cpu };
	struct umap_ent *e;
	struct wthread *t;
	struct wproc *p;
	char comm[sizeof(tk->comm) + 1];

	memcpy(comm, tk->comm, sizeof(tk->comm));
	comm[sizeof(tk->comm)] = '\0';
	switch (h->type) {
	case WALKER_EV_FORK:
		c->st.tasks++;
		if (perfwrite_task(c->pw, PERF_RECORD_FORK, h->pid, tk->ppid,
				   h->tid, tk->ptid, &id, err, errlen) < 0)
			return -1;
		/* perf gives the child its parent's comm and maps */
		unwind_fork(c->uw, (pid_t)tk->ppid, (pid_t)h->pid);
		return 0;
	case WALKER_EV_EXEC:
		/* its mappings were read when it arrived (queued after it) */
		if (write_comm(c, (pid_t)h->pid, (pid_t)h->tid, comm, 1,
			       h->time_ns, h->cpu, err, errlen) < 0)
			return -1;
		unwind_exec(c->uw, (pid_t)h->pid);
		return 0;
	case WALKER_EV_EXIT:
		c->st.tasks++;
		if (perfwrite_task(c->pw, PERF_RECORD_EXIT, h->pid, tk->ppid,
				   h->tid, tk->ptid, &id, err, errlen) < 0)
			return -1;
		/*
		 * Its state goes with it (a reused tid starts afresh), entry
		 * and all: a recording of hours of threads and processes
		 * that come and go keeps only the living ones' state.
		 */
		e = umap_find(&c->threads, h->tid);
		t = e ? e->val : NULL;
		if (t) {
			/* a thread exits on CPU: its switch-in was lost */
			if (t->off && close_late(c, t, h->time_ns, err,
						 errlen) < 0)
				return -1;
			free(t->off);
			free(t->wake);
			free(t);
		}
		umap_del(&c->threads, h->tid);
		/*
		 * The process goes (its mappings, its interpreter) with its
		 * last thread, not with its first: in an exit_group() the
		 * others are killed after the first has exited, and a thread
		 * still running may end 25 ms later on a loaded machine
		 * (t3513 found such a thread's wait unwound to one frame,
		 * its process's mappings forgotten).
		 */
		e = umap_find(&c->procs, h->pid);
		p = e ? e->val : NULL;
		if (h->tid == h->pid && p)
			p->leader_gone = 1;
		if ((h->tid != h->pid && (!p || !p->leader_gone)) ||
		    process_threads(c, (pid_t)h->pid))
			return 0;
		unwind_forget(c->uw, (pid_t)h->pid);
		if (p)
			wconv_proc_free(p);
		umap_del(&c->procs, h->pid);
		return 0;
	}
	return 0;
}

static int write_mmap2(struct wconv *c, const struct int_rec *ir,
		       char *err, size_t errlen)
{
	struct pw_id id = { ir->hdr.pid, ir->hdr.tid, ir->hdr.time_ns,
			    ir->hdr.cpu };
	struct pw_mmap2 m;

	memset(&m, 0, sizeof(m));
	m.pid = ir->hdr.pid;
	m.tid = ir->hdr.tid;
	m.start = ir->start;
	m.len = ir->len;
	m.pgoff = ir->pgoff;
	m.maj = ir->maj;
	m.min = ir->min;
	m.ino = ir->ino;
	m.prot = ir->prot;
	m.flags = ir->flags;
	m.filename = ir->name;
	if (ir->prot & 4) {
		const struct wproc *p = wconv_proc_find(c, (pid_t)ir->hdr.pid);

		unwind_map(c->uw, (pid_t)ir->hdr.pid, ir->start, ir->len,
			   ir->pgoff, ir->name, p ? p->root : NULL);
	}
	/* the kernel's mark of a mapping that is not code */
	m.misc = PERF_RECORD_MISC_USER |
		 (ir->prot & 4 ? 0 : PERF_RECORD_MISC_MMAP_DATA);
	c->st.mmaps++;
	return perfwrite_mmap2(c->pw, &m, &id, err, errlen);
}

static int write_lost(struct wconv *c, uint64_t lost, uint64_t time,
		      char *err, size_t errlen)
{
	struct pw_id id = { 0, 0, time, 0 };

	c->st.lost += lost;
	return perfwrite_lost(c->pw, c->cpu_id, lost, &id, err, errlen);
}

static int process(struct wconv *c, const struct tq_ent *q, char *err,
		   size_t errlen)
{
	const struct int_rec *ir = (const void *)(c->arena + q->off);
	struct walker_decoded d;
	char why[PPR_ERR_LEN];

	if (c->written_any && q->time < c->last_written)
		c->st.late++;
	if (!c->written_any || q->time > c->last_written)
		c->last_written = q->time;
	c->written_any = 1;
	if (ir->hdr.type == INT_COMM)
		return write_comm(c, (pid_t)ir->hdr.pid, (pid_t)ir->hdr.tid,
				  ir->name, 0, q->time, ir->hdr.cpu, err,
				  errlen);
	if (ir->hdr.type == INT_MMAP2)
		return write_mmap2(c, ir, err, errlen);
	/* checked when queued: cannot fail here */
	if (walker_decode(c->arena + q->off, (size_t)q->len, &d, why,
			  sizeof(why)) < 0)
		return 0;
	switch (d.hdr->type) {
	case WALKER_EV_SAMPLE:
		return on_sample(c, &d, err, errlen);
	case WALKER_EV_OFFCPU:
		return on_offcpu(c, &d, err, errlen);
	case WALKER_EV_ONCPU:
		return on_oncpu(c, &d, err, errlen);
	case WALKER_EV_LOST:
		return write_lost(c, d.lost, q->time, err, errlen);
	case WALKER_EV_WAKING:
		return on_waking(c, &d);
	default:
		return on_task(c, &d, err, errlen);
	}
}

/* The kernel's map, once, before any other record. */
static int start(struct wconv *c, char *err, size_t errlen)
{
	/* time 0, as perf's synthesized records: before everything */
	struct pw_id id = { (uint32_t)-1, 0, 0, 0 };
	uint64_t text;

	if (c->started)
		return 0;
	c->started = 1;
	if (!c->kallsyms || perfwrite_kernel_text(c->kallsyms, &text) < 0)
		return 0;
	c->st.kernel_map = 1;
	return perfwrite_kernel_mmap(c->pw, text, &id, err, errlen);
}

/*
 * max_bytes reached: the conversion stops at the last record written
 * (its time is where the recording ends).  Called before each record.
 */
static int full(struct wconv *c)
{
	if (c->st.stopped)
		return 1;
	if (!c->max_bytes || perfwrite_data_bytes(c->pw) < c->max_bytes)
		return 0;
	c->st.stopped = 1;
	c->st.stopped_ns = c->last_written > c->start_ns ?
			   c->last_written - c->start_ns : 0;
	/* losses not written yet happened after the data ends, or near it */
	c->pending_lost = 0;
	return 1;
}

/* An event held back: where it is in the arena, and its queue entry. */
struct held {
	uint64_t off;
	size_t i;
};

static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * After a flush wrote the queue's first n entries: the events held back
 * (entries n on) move to the front of the arena, which keeps its size
 * for the next events, once the space the written ones leave is at
 * least what the held ones take.  Before, they were copied to a new
 * arena and the old one freed, so that each poll's events grew a small
 * arena again, a copy at each doubling: memmove was 27 % of the
 * recorder's CPU (perf record of it, attached to a gunicorn worker
 * under wrk).  Then they moved at every flush: with --wall at 50,000
 * switches a second a flush comes every few milliseconds, the events
 * held back (20 ms of them, each with its copy of the stack) moved
 * several times each, and memmove was most of the recorder's CPU, which
 * could not keep up (2,403 events lost).  Moved only when the free space
 * is as large, each byte queued moves at most once on average.  Moved
 * in the order of their places (not their times), each moves down and
 * never over one not yet moved.  Returns the arena's new length (len:
 * its length now).
 */
static size_t pack_held(struct wconv *c, size_t n, size_t len)
{
	size_t nk = c->q.nr - n, k, at = 0, live = 0;
	struct held *h;

	if (!nk)
		return 0;
	for (k = n; k < c->q.nr; k++)
		live += ((size_t)c->q.e[k].len + 7) & ~(size_t)7;
	if (len - live < live)
		return len;
	h = xmalloc(nk * sizeof(*h));
	for (k = 0; k < nk; k++) {
		h[k].off = c->q.e[n + k].off;
		h[k].i = n + k;
	}
	qsort(h, nk, sizeof(*h), held_cmp);
	for (k = 0; k < nk; k++) {
		struct tq_ent *q = &c->q.e[h[k].i];

		if (q->off != at)
			memmove(c->arena + at, c->arena + q->off,
				(size_t)q->len);
		q->off = at;
		at += ((size_t)q->len + 7) & ~(size_t)7;
	}
	free(h);
	return at;
}

/*
 * Write the queued events with time <= limit, in time order; all of
 * them dropped once full().
 */
static int flush_until(struct wconv *c, uint64_t limit, char *err,
		       size_t errlen)
{
	size_t n = 0, i;
	int r = 0;

	if (start(c, err, errlen) < 0)
		return -1;
	timeq_sort(&c->q);
	n = timeq_due(&c->q, limit);
	if (limit > c->written_limit)
		c->written_limit = limit;
	for (i = 0; i < n && !r; i++) {
		if (full(c)) {
			n = c->q.nr;	/* nothing is kept */
			break;
		}
		r = process(c, &c->q.e[i], err, errlen);
	}
	if (r < 0)
		return -1;
	if (c->pending_lost) {
		r = write_lost(c, c->pending_lost, c->last_written, err,
			       errlen);
		c->pending_lost = 0;
		if (r < 0)
			return -1;
	}
	if (n && perfwrite_finished_round(c->pw, err, errlen) < 0)
		return -1;
	c->arena_len = pack_held(c, n, c->arena_len);
	timeq_drop(&c->q, n);
	c->st.bytes = perfwrite_data_bytes(c->pw);
	return 0;
}

int wconv_flush(struct wconv *c, char *err, size_t errlen)
{
	if (c->finished)
		return set_err(err, errlen, "the recording is finished");
	if (c->st.stopped)
		return 0;
	if (c->newest < c->hold_ns)
		return flush_until(c, 0, err, errlen);
	return flush_until(c, c->newest - c->hold_ns, err, errlen);
}

int wconv_finish(struct wconv *c, uint64_t end_ns, char *err,
		 size_t errlen)
{
	size_t i;
	int any = 0;

	if (c->finished)
		return set_err(err, errlen, "the recording is finished");
	if (!c->st.stopped && flush_until(c, UINT64_MAX, err, errlen) < 0)
		return -1;
	/* stopped at max_bytes: the recording ends at its last record */
	if (end_ns < c->last_written || c->st.stopped)
		end_ns = c->last_written;
	/* threads still off CPU: their intervals end with the recording */
	for (i = 0; i < c->threads.cap; i++) {
		struct wthread *t = c->threads.ents[i].val;

		if (!c->threads.ents[i].used || !t || !t->off)
			continue;
		c->st.offcpu_open++;
		any = 1;
		if (close_interval(c, t, end_ns, err, errlen) < 0)
			return -1;
	}
	if (any && perfwrite_finished_round(c->pw, err, errlen) < 0)
		return -1;
	c->st.bytes = perfwrite_data_bytes(c->pw);
	c->finished = 1;
	if (perfwrite_close(c->pw, err, errlen) < 0) {
		c->pw = NULL;
		return -1;
	}
	c->pw = NULL;
	return 0;
}

