/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_TEST_WALKER_EVENTS_H
#define PPR_TEST_WALKER_EVENTS_H
/*
 * The walker's events built by hand with the ABI's structs, as the BPF
 * program writes them into its ring buffer (walker_abi.h), for the
 * unit tests of the recording (t-wrecord.c, t-wrecord-loop.c).
 */
#include "compat.h"
#include "byteorder.h"

#include <linux/types.h>
#include "walker/walker_abi.h"

struct ev {
	uint64_t *buf;		/* 8-byte aligned, as the ring buffer's */
	size_t len;
};

static inline void ev_free(struct ev *e)
{
	free(e->buf);
	e->buf = NULL;
}

static inline struct walker_ev_hdr ev_hdr(uint32_t type, uint64_t time,
					  uint32_t pid, uint32_t tid,
					  uint32_t flags)
{
	struct walker_ev_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.time_ns = time;
	h.pid = pid;
	h.tid = tid;
	h.cpu = 1;
	h.flags = flags;
	return h;
}

struct sample_spec {
	uint32_t type, pid, tid, flags;
	uint64_t time, prev_state;
	const uint64_t *regs;		/* WALKER_NR_REGS, or NULL: a pattern */
	unsigned nk, npy;
	const void *ustack;
	uint32_t ulen, asked;
};

static const uint64_t kframes[3] = {
	0xffffffff81000100ull, 0xffffffff81000200ull, 0xffffffff81000300ull,
};

static inline struct ev ev_sample(const struct sample_spec *sp)
{
	struct walker_sample s;
	struct walker_py_frame f;
	size_t len = sizeof(s) + 8 * WALKER_NR_REGS + 8 * sp->nk +
		     sizeof(f) * sp->npy + sp->ulen;
	unsigned char *p;
	struct ev e;
	unsigned i;

	e.len = (len + 7) & ~(size_t)7;
	e.buf = calloc(1, e.len);
	p = (unsigned char *)e.buf;
	memset(&s, 0, sizeof(s));
	s.hdr = ev_hdr(sp->type, sp->time, sp->pid, sp->tid, sp->flags);
	s.hdr.size = (uint32_t)len;
	s.prev_state = sp->prev_state;
	s.nr_kstack = (uint16_t)sp->nk;
	s.nr_py = (uint16_t)sp->npy;
	s.ustack_len = sp->ulen;
	s.ustack_asked = sp->asked;
	memcpy(p, &s, sizeof(s));
	p += sizeof(s);
	for (i = 0; i < WALKER_NR_REGS; i++)
		put_le64(p + 8 * i, sp->regs ? sp->regs[i] : 0x1000 + i);
	p += 8 * WALKER_NR_REGS;
	for (i = 0; i < sp->nk; i++)
		put_le64(p + 8 * i, kframes[i]);
	p += 8 * sp->nk;
	for (i = 0; i < sp->npy; i++) {
		memset(&f, 0, sizeof(f));
		f.code = 0x7f0000500000ull + 0x100 * i;
		f.instr = 10 * i;
		f.tag = (uint16_t)(40 + i);
		f.flags = i == sp->npy - 1 ? WALKER_PYF_ENTRY : 0;
		memcpy(p, &f, sizeof(f));
		p += sizeof(f);
	}
	if (sp->ulen)
		memcpy(p, sp->ustack, sp->ulen);
	return e;
}

/*
 * A waking of wakee (pid, tid) by the waker in sp (pid, tid, time, nk,
 * npy, regs: NULL for none, as for an interrupt or an unwatched
 * waker), in context.
 */
static inline struct ev ev_waking(const struct sample_spec *sp,
				  uint32_t wakee_pid, uint32_t wakee_tid,
				  uint32_t context, const char *comm)
{
	struct walker_waking w;
	struct walker_py_frame f;
	size_t len = sizeof(w) + 8 * WALKER_NR_REGS + 8 * sp->nk +
		     sizeof(f) * sp->npy;
	unsigned char *p;
	struct ev e;
	unsigned i;

	e.len = (len + 7) & ~(size_t)7;
	e.buf = calloc(1, e.len);
	p = (unsigned char *)e.buf;
	memset(&w, 0, sizeof(w));
	w.hdr = ev_hdr(WALKER_EV_WAKING, sp->time, sp->pid, sp->tid,
		       WALKER_F_KERNEL_MODE);
	w.hdr.size = (uint32_t)len;
	w.wakee_pid = wakee_pid;
	w.wakee_tid = wakee_tid;
	w.context = context;
	w.softirq = 0xffffffffu;
	memcpy(w.comm, comm, strnlen(comm, sizeof(w.comm) - 1));
	w.nr_kstack = (uint16_t)sp->nk;
	w.nr_py = (uint16_t)sp->npy;
	memcpy(p, &w, sizeof(w));
	p += sizeof(w);
	for (i = 0; i < WALKER_NR_REGS; i++)
		put_le64(p + 8 * i, sp->regs ? sp->regs[i] : 0);
	p += 8 * WALKER_NR_REGS;
	for (i = 0; i < sp->nk; i++)
		put_le64(p + 8 * i, kframes[i]);
	p += 8 * sp->nk;
	for (i = 0; i < sp->npy; i++) {
		memset(&f, 0, sizeof(f));
		f.code = 0x7f0000600000ull + 0x100 * i;
		f.tag = (uint16_t)(60 + i);
		f.flags = i == sp->npy - 1 ? WALKER_PYF_ENTRY : 0;
		memcpy(p, &f, sizeof(f));
		p += sizeof(f);
	}
	return e;
}

static inline struct ev ev_task(uint32_t type, uint64_t time, uint32_t pid,
			 uint32_t tid, uint32_t ppid, uint32_t ptid,
			 const char *comm)
{
	struct walker_task t;
	struct ev e;

	memset(&t, 0, sizeof(t));
	t.hdr = ev_hdr(type, time, pid, tid, 0);
	t.hdr.size = sizeof(t);
	t.ppid = ppid;
	t.ptid = ptid;
	if (comm)
		memcpy(t.comm, comm, strnlen(comm, sizeof(t.comm) - 1));
	e.len = sizeof(t);
	e.buf = calloc(1, e.len);
	memcpy(e.buf, &t, sizeof(t));
	return e;
}

/* The EXIT of a process's last thread (walker_exit's WALKER_F_GROUP_DEAD). */
static inline struct ev ev_exit_last(uint64_t time, uint32_t pid,
				     uint32_t tid, uint32_t ppid,
				     uint32_t ptid)
{
	struct ev e = ev_task(WALKER_EV_EXIT, time, pid, tid, ppid, ptid,
			      NULL);

	((struct walker_task *)e.buf)->hdr.flags = WALKER_F_GROUP_DEAD;
	return e;
}

static inline struct ev ev_lost(uint64_t time, uint64_t n)
{
	struct walker_lost l;
	struct ev e;

	memset(&l, 0, sizeof(l));
	l.hdr = ev_hdr(WALKER_EV_LOST, time, 0, 0, 0);
	l.hdr.size = sizeof(l);
	l.lost = n;
	e.len = sizeof(l);
	e.buf = calloc(1, e.len);
	memcpy(e.buf, &l, sizeof(l));
	return e;
}

#endif
