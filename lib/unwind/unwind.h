/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_UNWIND_H
#define PPR_UNWIND_H
/*
 * The frames of perf.data samples, symbolized the way perf script
 * names them: the kernel part of the callchain, then the user part,
 * either unwound from the sample's registers and user-stack dump
 * (DWARF mode, with elfutils' libdw) or taken from the callchain
 * (frame-pointer mode).
 *
 *	u = unwind_new(&o, &perfdata, err, sizeof(err));
 *	for each record r, in time order:
 *		if (r.type == PD_RECORD_SAMPLE) {
 *			perfdata_decode_sample(&d, r.body, r.len, &s);
 *			n = unwind_sample(u, &s, frames, max, &res);
 *		} else {
 *			unwind_record(u, &r);
 *		}
 *	unwind_free(u);
 *
 * Mappings per process come from the MMAP/MMAP2 records seen so far
 * (FORK copies the parent's; COMM with the exec flag clears them).
 * Files (their bytes, libelf, .eh_frame, compiled CFI rows, sorted
 * symbols) are cached once and shared by every process; libdwfl (one
 * Dwfl per process) is used only for the frames whose CFI is not a
 * simple row.  Memory reads come from the stack dump for [SP, SP +
 * dyn_size) only, from the mapped file otherwise: CFI always comes from
 * the files, jitted code's .eh_frame included.
 *
 * Silent library code: no output, errors in err buffers.
 */
#include "compat.h"
#include "perfdata.h"

struct unwind;

struct unwind_frame {
	/*
	 * The address perf script shows: the interrupted pc for the
	 * first frame (and signal frames), the return address - 1 for
	 * the callers of a DWARF unwind (where the call is, as perf
	 * does), the callchain's entry as is for frame-pointer chains.
	 */
	uint64_t pc;
	/* interned, valid until unwind_free(); "[unknown]" when none */
	const char *sym;
	const char *dso;
	unsigned kernel : 1;
	unsigned activation : 1;	/* pc is the interrupted instruction */
	unsigned jit : 1;		/* in a jitted-*.so */
	unsigned nosym : 1;		/* no symbol found */
};

/* Why the user part stopped. */
enum unwind_stop {
	UNWIND_STOP_END = 0,	/* CFI said: outermost frame; or FP chain */
	UNWIND_STOP_NODUMP,	/* no registers or no stack dump */
	UNWIND_STOP_MEMORY,	/* a read outside the dump and the files */
	UNWIND_STOP_NOCFI,	/* a pc without a module or CFI */
	UNWIND_STOP_DEPTH,	/* max frames reached */
	UNWIND_STOP_OTHER,	/* the stack pointer did not move, ... */
};

struct unwind_result {
	enum unwind_stop stop;
	int nr_kernel;		/* frames from the kernel's callchain */
	int nr_user;
};

struct unwind_stats {
	uint64_t samples, frames;
	uint64_t dwfl_new;		/* processes given a Dwfl */
	uint64_t reports;		/* dwfl_report_end() passes */
	uint64_t full_reports;		/* ... that re-reported all maps */
	uint64_t modules;		/* modules reported to a Dwfl */
	uint64_t module_errors;		/* ... that failed */
	uint64_t stack_reads, file_reads, failed_reads;
	uint64_t sym_hits, sym_misses;
	uint64_t fallbacks;		/* fast path handed over to libdwfl */
	uint64_t fallbacks_ret;		/* ... at a return address */
};

/* UNWIND_DWFL_ONLY: libdwfl for every frame (slow; a cross-check). */
#define UNWIND_DWFL_ONLY 1u

struct unwind_opts {
	/*
	 * The session: jit/ (jitted-*.so by basename), buildid/ (the
	 * build-id cache: [vdso] and any object record kept), maps/
	 * (perf-PID.map), kallsyms.  NULL: paths as the records say.
	 */
	const char *session_dir;
	unsigned flags;
};

/*
 * A new unwinder for the perf.data d (open: its build-id table is
 * read now).  0, or -1 with err filled.  Free with unwind_free().
 */
int unwind_new(struct unwind **out, const struct unwind_opts *o,
	       const struct perfdata *d, char *err, size_t errlen);
void unwind_free(struct unwind *u);

/* Take MMAP, MMAP2, FORK and COMM records; others are ignored. */
void unwind_record(struct unwind *u, const struct pd_record *r);

/*
 * The frames of sample s, leaf first, at most max (max > 0): the kernel
 * part of its callchain, then the user part.  Returns the number
 * filled; res says why the user part stopped.
 */
int unwind_sample(struct unwind *u, const struct pd_sample *s,
		  struct unwind_frame *f, int max, struct unwind_result *res);

/*
 * Record time (the frame walker's samples, unwound as they are
 * recorded): the unwinder is told of processes directly, not by
 * perf.data records.  unwind_map(): pid's executable mapping [start,
 * start + len) of name at pgoff, its file opened at root followed by
 * name when root is not NULL or "" (a process in another root or mount
 * namespace, as seen from here).  unwind_forget(): pid is gone, its
 * state freed.
 */
void unwind_map(struct unwind *u, pid_t pid, uint64_t start, uint64_t len,
		uint64_t pgoff, const char *name, const char *root);
void unwind_fork(struct unwind *u, pid_t ppid, pid_t pid);
void unwind_exec(struct unwind *u, pid_t pid);
void unwind_forget(struct unwind *u, pid_t pid);

/* The most user frames unwind_user() gives. */
#define UNWIND_USER_MAX 1024

/*
 * The user part of sample s (its attr's sample_regs_user, its
 * registers and stack dump), leaf first, at most max pcs: the pcs
 * unwind_sample() shows (callers at their return address - 1), not
 * named.  Returns the number filled; res says why it stopped.
 */
int unwind_user(struct unwind *u, const struct pd_sample *s, uint64_t *pcs,
		int max, struct unwind_result *res);

const struct unwind_stats *unwind_stats(const struct unwind *u);

#endif
