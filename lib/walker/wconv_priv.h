/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_WCONV_PRIV_H
#define PPR_WALKER_WCONV_PRIV_H
/*
 * What the conversion's three files share (walker/wconv.h), each
 * calling only the ones after it:
 *
 *   wconv.c        events in, records written in time order at a flush
 *   wconv_proc.c   the processes' and threads' state, and what is read
 *                  from /proc when an event arrives
 *   wconv_queue.c  the queue: event and record copies in an arena
 */
#include "compat.h"
#include "perfwrite.h"
#include "strbuf.h"
#include "hmap.h"
#include "timeq.h"
#include "walker/walker.h"
#include "walker/wconv.h"
#include "walker/kself.h"

#define DEFAULT_HOLD_NS 20000000ull		/* 20 ms */
#define DEFAULT_MAPS_EVERY_NS 1000000000ull	/* 1 s */
#define MAPS_MISS_NS 50000000ull		/* 50 ms */
/* The kernel's TASK_DEAD state bit: an exiting task's last switch-out. */
#define WCONV_TASK_DEAD 0x80u
/*
 * After an exec the dynamic loader maps the program's libraries within
 * milliseconds, but the exec's event may be read before it has: the
 * mappings are read again every MAPS_EXEC_EVERY_NS for MAPS_EXEC_NS,
 * what is new written as of the exec (a library mapped then cannot
 * hold an address sampled before it was), so that the first samples'
 * return addresses into libc resolve.
 */
#define MAPS_EXEC_NS 200000000ull		/* 200 ms */
#define MAPS_EXEC_EVERY_NS 2000000ull		/* 2 ms */
#define MAPS_MAX_BYTES (64u << 20)
#define USER_REGS_MASK 0xff0fffull
#define REG_SP 7				/* in perf's x86-64 order */
#define REG_IP 8
#define CTX_KERNEL ((uint64_t)-128)		/* PERF_CONTEXT_KERNEL */
#define CTX_USER ((uint64_t)-512)		/* PERF_CONTEXT_USER */
/* zstd's level for a file (perf record -z's default is 1) */
#define WCONV_ZSTD_LEVEL 3
/* Wakings of one waker this close are one wakeup of several waiters. */
#define WAKE_SHARED_NS 1000ull

/*
 * Records read from /proc when an event arrived, queued as internal
 * events (types after the walker's): a mapping, or a comm.
 */
#define INT_MMAP2 0x1001u
#define INT_COMM 0x1002u

struct int_rec {
	struct walker_ev_hdr hdr;
	uint64_t start, len, pgoff, ino;
	uint32_t maj, min, prot, flags;
	uint32_t exec, pad;
	char name[];		/* NUL-terminated; hdr.size covers it */
};

/* A mapping written into perf.data (see parse_map()). */
struct wmap {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	char *name;
};

struct wproc {
	pid_t pid;
	unsigned hexversion;
	struct wmap *maps;	/* sorted by start */
	size_t nr_maps, alloc_maps;
	uint64_t maps_time;	/* event time of the last read */
	uint64_t exec_time;	/* of its exec, when seen (0: none) */
	int maps_read;		/* read at least once */
	char *root;		/* where its files are seen from here (the
				   record-time unwinder's; NULL: not read) */
	int leader_gone;	/* its first thread exited: it goes with its
				   last (wconv_task()) */
};

struct wthread {
	pid_t pid;		/* its process (0: not known yet) */
	int seen;		/* its COMM or FORK is in the file */
	unsigned char *off;	/* the switch-out event of an open
				   off-CPU interval (a copy), or NULL */
	size_t off_len;
	/*
	 * --wall: the time of its last switch or sample (0: none yet).  A
	 * switch-in without a switch-out after one is a lost switch-out,
	 * a wait that began after it (the first switch-in of a thread off
	 * CPU when watching began is not)
	 */
	uint64_t seen_at;
	/*
	 * --wakers: the last waking of this thread not yet followed by a
	 * switch-in (a copy), its WALKER_WAKE_F_* flags; as a waker, the
	 * time and wakee of its last waking (a wakeup of several waiters)
	 */
	unsigned char *wake;
	size_t wake_len;
	uint32_t wake_flags;
	uint64_t woke_time;
	pid_t woke_tid;
};

struct wconv {
	struct perfwrite *pw;
	char *proc_root, *kallsyms;
	unsigned ustack_bytes;
	uint64_t start_ns, hold_ns, maps_every_ns;
	uint64_t max_bytes;	/* wconv_opts' (0: none) */
	uint64_t attach_ns;	/* wconv_set_attach() (0: not set) */
	/*
	 * An on-CPU sample's period: the nanoseconds it stands for at the
	 * asked frequency, as perf's cpu-clock periods are, so that the
	 * wall clock adds on-CPU samples and off-CPU intervals alike.
	 */
	uint64_t period_ns;
	struct wconv_hooks hooks;
	uint64_t cpu_id, off_id, wake_id;
	int wall, wakers;
	/*
	 * the queue (timeq.h): event copies at 8-aligned offsets (off) of
	 * arena, len bytes each
	 */
	unsigned char *arena;
	size_t arena_len, arena_alloc;
	struct timeq q;
	uint64_t newest;
	uint64_t last_written;
	uint64_t written_limit;	/* everything up to it is written */
	int written_any, started, finished;
	uint64_t pending_lost;
	struct umap procs;	/* pid -> struct wproc * */
	struct umap threads;	/* tid -> struct wthread * */
	struct strbuf raw;
	struct kself kself;	/* the walker's own frames (kself.h) */
	/*
	 * every kernel address written in a sample (key; val unused), so
	 * that record keeps only the kernel symbols the session names
	 * (wconv_kernel_pcs()); bounded by the kernel's text
	 */
	struct umap kpcs;
	/*
	 * The record-time unwinder: told of each process's mappings,
	 * forks, execs and exits as they are written; with
	 * keep_stack_copy (wconv_opts'), the copies are written too
	 */
	struct unwind *uw;
	int keep_stack_copy;
	int v1_layout;		/* wconv_opts': no record-time frames */
	uint64_t *pcs;		/* UNWIND_USER_MAX of them, and the chain */
	uint64_t *chain;
	struct wconv_stats st;
};

/* wconv_proc.c: a process's and a thread's state, found or made empty */
struct wproc *wconv_proc_find(struct wconv *c, pid_t pid);
struct wproc *wconv_proc_new(struct wconv *c, pid_t pid);
void wconv_proc_free(struct wproc *p);
/* tid's state, made when new; pid: its process, 0 when not known */
struct wthread *wconv_thread_get(struct wconv *c, pid_t pid, pid_t tid);
/* every process's and thread's state freed */
void wconv_procs_release(struct wconv *c);

/* wconv_queue.c: an event's copy, len bytes at off in the arena */
void wconv_enqueue(struct wconv *c, size_t off, size_t len, uint64_t time);
/* Queue a record read from /proc (m NULL: a comm, name the comm). */
void wconv_enqueue_int(struct wconv *c, uint32_t type, pid_t pid,
		       pid_t tid, uint64_t time, uint32_t cpu,
		       const struct wmap *m, const char *name, int exec);

/*
 * An event arrived (wconv_proc.c): a sample or switch-out of a process
 * or thread first seen, or in code loaded since; a fork; an exec.
 */
void wconv_arrive_sample(struct wconv *c, const struct walker_ev_hdr *h,
			 uint64_t ip);
void wconv_arrive_fork(struct wconv *c, const struct walker_ev_hdr *h,
		       const struct walker_task *tk);
void wconv_arrive_exec(struct wconv *c, const struct walker_ev_hdr *h);

#endif
