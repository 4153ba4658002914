#ifndef PPR_RECORD_H
#define PPR_RECORD_H
#include "compat.h"
#include "strbuf.h"

/*
 * The silent parts of `pyperf-run record` (owned by the record part):
 * reading `perf script` output for the pids of the run and the share of
 * truncated stacks, gathering the map/dump files of those pids into the
 * session, trimming the session's build-id cache, and the status file
 * the internal exec helper writes.  cmd/record.c runs the processes and
 * prints.
 */

/*
 * What one pass over `perf script --show-task-events -F pid,tid,ip,sym`
 * tells.  A sample's stack is complete when its outermost user frame is
 * where a process or thread starts (_start, __libc_start_main,
 * clone/clone3, start_thread...); samples without user frames, or with
 * a single one and no Python frame (the unwinder stopped at the leaf),
 * are not counted in user_samples.
 */
struct record_scan {
	pid_t *pids;		/* distinct pids seen, in order */
	size_t nr_pids, alloc_pids;
	unsigned long samples;		/* every sample */
	unsigned long user_samples;	/* samples with user stacks */
	unsigned long truncated;	/* ...whose stack is incomplete */
	unsigned long truncated_py;	/* ...and ends at a py:: frame */
	unsigned long python_samples;	/* samples with a py:: frame */
	pid_t ignore_pid;	/* not counted in user_samples (our helper) */
	pid_t cur_pid;
	/* parser state */
	int in_sample;
	int have_user;		/* user frames in this sample */
	struct strbuf last_user;	/* outermost user frame so far */
	int has_py;
};

void record_scan_init(struct record_scan *s);
void record_scan_release(struct record_scan *s);
/* Feed one line (without its newline). */
void record_scan_line(struct record_scan *s, const char *line, size_t len);
/* End of input: count the sample in progress. */
void record_scan_finish(struct record_scan *s);
/*
 * Feed a buffer of lines; an incomplete last line is kept in pending
 * for the next call (feed it with record_scan_line() at the end).
 */
void record_scan_feed(struct record_scan *s, struct strbuf *pending,
		      const char *buf, size_t len);
/* Is frame symbol sym where a process or thread starts? */
int record_is_root_symbol(const char *sym);
void record_scan_add_pid(struct record_scan *s, pid_t pid);

/*
 * A suggested stack dump size after a share `truncated` (0..1) of
 * incomplete stacks with size `current`: the next multiple-of-8 step
 * up (doubling), at most 65528; 0 when current is the maximum already.
 */
unsigned record_suggest_stack_size(unsigned current);

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
 * adds the pids of the task and map records (no stacks are looked at:
 * user_samples and truncated stay as they are).  Returns 0 (also for a
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

#endif
