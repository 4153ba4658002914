/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_H
#define PPR_RECORD_H
#include "compat.h"
#include "strbuf.h"

/*
 * The silent parts of `pyperf-run record`: the pids of the run,
 * gathering the map/dump files of those pids into the session, trimming
 * the session's build-id cache, the status file the internal exec
 * helper writes, and the hints record gives from the judgement of the
 * session's stacks (profile_load() judges them: lib/report/profile.h).
 * cmd/record.c runs the processes and prints.
 */

/* What record_fix_exec_forks() learns from perf.data's records. */
struct record_scan {
	pid_t *pids;		/* distinct pids seen, in order */
	size_t nr_pids, alloc_pids;
	unsigned long samples;	/* every sample */
	pid_t ignore_pid;	/* our exec helper (not the program's) */
};

void record_scan_init(struct record_scan *s);
void record_scan_release(struct record_scan *s);
void record_scan_add_pid(struct record_scan *s, pid_t pid);
/* Is frame symbol sym where a process or thread starts? */
int record_is_root_symbol(const char *sym);

/*
 * What the hints after a recording are made from: the mode and its
 * limits at record time, and profile_load()'s counts of cut stacks
 * (struct profile_quality) with the facts behind them.  Unknown facts
 * are 0.
 */
enum record_cut {
	RECORD_CUT_NONE = 0,	/* the order of enum stack_cut */
	RECORD_CUT_DUMP,	/* jit: the stack dump was full */
	RECORD_CUT_UNWIND,	/* jit: the unwinder stopped inside it */
	RECORD_CUT_DEPTH,	/* perf: the kernel's frame cap */
	RECORD_CUT_NOROOT,	/* perf: the chain broke (no frame pointers) */
	RECORD_CUT_NR
};

struct record_cut_facts {
	int jit;		/* jit mode (else perf mode) */
	unsigned stack_size;	/* jit: bytes dumped per sample */
	unsigned max_stack;	/* kernel.perf_event_max_stack, 0 unknown */
	uint64_t judged;	/* samples with user frames */
	uint64_t cut[RECORD_CUT_NR];
	/*
	 * Dump cuts: how many have a measure of the stack they needed,
	 * how many of those a 65528-byte dump would complete, and the
	 * dump size that completes 99 % of them (may exceed 65528; 0
	 * unknown).
	 */
	uint64_t dump_measured;
	uint64_t dump_fixable;
	uint64_t dump_needed;
	/* Frame-cap cuts: the cap a complete chain needs (0 unknown). */
	unsigned depth_needed;
	/* Unwinder cuts: how many stopped at a Python (jitted) frame. */
	uint64_t unwind_at_python;
	int unwind_known;	/* unwind_at_python was counted */
	int jit_fix_known;	/* perf is known to unwind jitted code */
};

/* Below this share of the judged samples a reason gets no hint. */
#define RECORD_HINT_SHARE 0.05

/*
 * The hints (one line each, without "hint: ") that would help with the
 * cut stacks f describes, appended to out; none when nothing would.
 * Only advice the facts back: a --stack-size only when the dump was
 * full and the measured size (at most 65528) completes most of the
 * cut stacks; never a size for unwinder cuts; the kernel's cap or jit
 * mode for frame-cap cuts; jit mode for chains broken by code without
 * frame pointers.  Returns the number appended.
 */
size_t record_cut_hints(const struct record_cut_facts *f, struct strvec *out);

/* The share (0..1) of judged samples with cut stacks. */
double record_cut_share(const struct record_cut_facts *f);

/*
 * Move into the session the files of the run's processes:
 * <src>/perf-<pid>.map to <session>/maps/, <src>/jit-<pid>.dump and
 * <src>/jitted-<pid>-<n>.so to <session>/jit/, for every pid in pids,
 * from each directory in srcdirs (e.g. "/tmp").  Only regular files
 * (not symlinks) owned by the effective user and modified at or after
 * since (UNIX seconds) are taken: a stale file of an earlier process
 * with the same pid stays where it is.  Files are renamed, or copied
 * and removed across file systems.  *moved gets the count.  Returns 0,
 * or -1 with err filled (the first failure; the others are still
 * tried).
 */
int record_collect(const char *session, const char *const *srcdirs,
		   const pid_t *pids, size_t nr_pids, double since,
		   unsigned *moved, char *err, size_t errlen);

/*
 * Trim a perf build-id cache directory to the jitted objects
 * (jitted-*.so entries and the .build-id links to them): perf records
 * every DSO with samples there (libpython, libc, the kernel's kallsyms)
 * and report finds those where they are installed.  Returns 0 or
 * -errno.
 */
int record_prune_buildid(const char *dir);

/*
 * The internal exec helper's status file, one "key=value" line each:
 * "exec=<pid>" (the helper's own pid, first), then "status=<wait
 * status>" once the program has ended, or "error=<errno>" when it
 * could not be started.
 */
enum record_status_kind {
	RECORD_STATUS_NONE = 0,	/* no status: the program never started */
	RECORD_STATUS_WAIT,	/* value is a wait status */
	RECORD_STATUS_ERRNO,	/* value is the exec errno */
	RECORD_STATUS_PID,	/* only for writing the exec= line */
};
/* Append one line to fd.  Returns 0 or -errno. */
int record_status_write(int fd, enum record_status_kind kind, int value);
/* Read the file; *exec_pid (when not NULL) gets the helper's pid or 0. */
enum record_status_kind record_status_read(const char *path, int *value,
					   pid_t *exec_pid);

/*
 * Repair a jitdump file in place when records are followed by garbage:
 * CPython 3.13.0 writes its jitdump through a stdio buffer that a
 * fork()ed child flushes a second time, leaving a stray fragment after
 * which perf inject stops reading.  The fragments are dropped and the
 * valid records kept (found again by their headers); a code load
 * seen twice is dropped with its unwinding record (perf would rewrite
 * the object without the unwinding information).  A dump without even
 * a header (a process that ended with _exit() before its buffer was
 * flushed) gets an empty header for process pid, because perf inject
 * fails on the whole recording otherwise.  Only call it when no
 * process writes the file any more.  Returns the number of bytes
 * dropped (0: the file was fine and is untouched), or -errno.
 */
long record_repair_jitdump(const char *path, pid_t pid);

/*
 * perf.data fixes (the file format of perf 4.x-6.x: a 104-byte
 * "PERFILE2" header whose data section {offset, size} sits at byte 40,
 * then the records, each starting with {u32 type, u16 misc, u16 size}).
 */

/*
 * Mark, in place, the PERF_RECORD_FORK of every process that later
 * execs (PERF_RECORD_COMM with the exec flag) as PERF_RECORD_MISC_
 * FORK_EXEC, so that perf does not give the new program its parent's
 * maps.  perf 6.1 keeps a forked child's copy of the parent's maps
 * across exec, and its libunwind code takes the lowest address any
 * map of a DSO has as that DSO's load address: when the parent mapped
 * the same library (libpython) lower, every DWARF unwind in the child
 * fails at the first frame.  *fixed (may be NULL) gets the count.
 * When scan is not NULL, the same pass counts the samples into it and
 * adds the pids of the task and map records (the pids of the run, in
 * either mode: perf inject keeps those records).  Returns 0 (also for a
 * file that is not perf.data) or -errno.
 */
int record_fix_exec_forks(const char *path, struct record_scan *scan,
			  unsigned *fixed);

/*
 * Make perf.data readable after perf record was killed before it
 * finished the file: when the header's data size is 0 but records
 * follow, set it to the whole records present, cut a partial last
 * record and clear the feature bits (their sections were never
 * written).  Returns the bytes of records kept (0: nothing to do or
 * nothing recorded), -EINVAL when the file is not perf.data, or -errno.
 */
long long record_recover_perf_data(const char *path);

struct pyinfo;

/*
 * pyinfo_probe() with a per-user cache (next to paths_cache_dir(), in
 * "probe/"): running the interpreter costs 50-100 ms per record.  An
 * entry is used only for the same path, the same executable (device,
 * inode, size, modification time), the same PYTHONHOME and PYTHONPATH
 * and the same pyvenv.cfg; and only while Python.h is still there (or
 * still missing) as the probe said.  Failures, and launchers that are
 * not the interpreter they run (sys.executable is another file, e.g. a
 * pyenv shim), are never cached; a cache that cannot be read or written
 * is skipped silently.  *fresh is 1 when the interpreter was run.
 */
int record_probe_python(const char *python, struct pyinfo *info,
			int *fresh, char *err, size_t errlen);
/*
 * Keep a probe (*fresh was 1) for the next time; record calls it once
 * the recording succeeded, so that a failed run leaves nothing behind.
 */
void record_probe_remember(const char *python, const struct pyinfo *info);

/* The current time as UNIX seconds with decimals. */
double record_now(void);

/*
 * A private directory for the embedded trampoline's jitdump while the
 * program runs, named "/tmp/jitted-pyperf-run.XXXXXX" (mode 0700):
 * perf inject names the objects it writes after the dump's directory,
 * and perf's libdw unwinder only treats an object whose path begins
 * with "/tmp/jitted-" as jitted code (its load address is the map's
 * start); anywhere else every Python frame is lost.  Returns the path
 * (free it), or NULL with err filled when /tmp cannot hold it (not
 * writable, or mounted noexec: the dump must be mapped executable).
 */
char *record_jit_dir(char *err, size_t errlen);

/* Empty (files only: nothing else is made there) and remove it. */
int record_jit_dir_remove(const char *dir);

/*
 * Save this process's vDSO image in a perf build-id cache directory, as
 * perf record does unless told -N: [vdso]/<build-id>/vdso and the
 * .build-id/<xx>/<rest> link to it.  The vDSO of every 64-bit process on
 * this kernel is the same image; without it perf cannot read its
 * unwinding tables and every sample taken in it (clock_gettime) stops
 * there.  Returns 0, or -errno.
 */
int record_save_vdso(const char *buildid_dir);


#endif
