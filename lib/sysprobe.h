/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_SYSPROBE_H
#define PPR_SYSPROBE_H
#include "compat.h"

/*
 * Facts about the machine that decide whether perf can sample Python
 * here, gathered without policy (lib/doctor/doctor.c judges them).
 */

/* A /proc/sys value; have == 0 when it could not be read. */
struct sysprobe_value {
	int have;
	long value;
};

/* The outcome of one perf_event_open(2) attempt. */
struct sysprobe_open {
	int ok;			/* the event could be opened */
	int user_only;		/* ...but only with exclude_kernel=1 */
	int error;		/* errno of the failure (ok == 0) */
};

struct sysprobe_kernel {
	struct sysprobe_value paranoid;	  /* perf_event_paranoid */
	struct sysprobe_value kptr_restrict;
	struct sysprobe_value max_sample_rate; /* perf_event_max_sample_rate */
	struct sysprobe_value max_stack;  /* perf_event_max_stack */
	int privileged;		/* euid 0 (paranoid does not apply) */
	/*
	 * Sampling cpu-clock on this process with call chains (what
	 * `perf record -g` opens), and with user registers + user stack
	 * + CLOCK_MONOTONIC timestamps (what `-k 1 --call-graph dwarf`
	 * opens).  regs_supported == 0 on architectures we do not know
	 * the register mask of (then dwarf is not tried).
	 */
	struct sysprobe_open callchain;
	struct sysprobe_open dwarf;
	int regs_supported;
};

/* Fill k.  Never fails: what cannot be learnt is marked so. */
void sysprobe_kernel(struct sysprobe_kernel *k);

/*
 * Fill only the /proc/sys values and privileged of k (no
 * perf_event_open(2) tries; the rest is zeroed): what record needs.
 */
void sysprobe_limits(struct sysprobe_kernel *k);

/*
 * The sampling frequency perf gets for want Hz: at most the kernel's
 * perf_event_max_sample_rate (perf refuses more), want when that is
 * not known.
 */
unsigned sysprobe_cap_frequency(const struct sysprobe_kernel *k,
				unsigned long want);

/*
 * Try perf_event_open(2) once: a cpu-clock sampling event on the
 * calling thread with call chains, plus (dwarf != 0) user registers,
 * stack_size bytes of user stack and CLOCK_MONOTONIC.  Falls back to
 * exclude_kernel when the full event is refused.
 */
void sysprobe_try_open(int dwarf, unsigned stack_size,
		       struct sysprobe_open *out);

/*
 * Does the kernel put build-ids into MMAP2 records (attr.build_id,
 * Linux 5.12), which perf record --buildid-mmap asks for?  Tries a
 * dummy user-only event on the calling thread: 1 yes, 0 no (an older
 * kernel refuses the bit with EINVAL, or nothing could be opened).
 */
int sysprobe_mmap_build_id(void);

/* Read a /proc/sys style file holding one integer. */
int sysprobe_read_long(const char *path, long *out);

/*
 * Files that perf and Python leave in a directory (normally /tmp):
 * perf-PID.map, jit-PID.dump, jitted-PID-N.so.  A file is stale when no
 * process PID is alive, or when that process started after the file was
 * last written (the PID was reused).  Only files of the effective user
 * are looked at, except for root.
 */
struct sysprobe_stale {
	size_t files;		/* stale files */
	unsigned long long bytes; /* their size */
	size_t live;		/* such files of live processes */
	pid_t *pids;		/* distinct PIDs of the stale files */
	size_t nr_pids, alloc_pids;
	size_t truncated;	/* 1 when the scan stopped at a limit */
};

/*
 * Scan dir (not recursively).  Returns 0 or -errno (dir unreadable).
 * Release with sysprobe_stale_release().
 */
int sysprobe_stale_scan(const char *dir, struct sysprobe_stale *st);
void sysprobe_stale_release(struct sysprobe_stale *st);

/*
 * Is a file last written at mtime (UNIX seconds) stale for pid?  The
 * rule above; exposed for the tests.
 */
int sysprobe_is_stale(pid_t pid, double mtime);

/*
 * When process pid started, as UNIX seconds; -1 when there is no such
 * process or it cannot be told.
 */
double sysprobe_proc_start(pid_t pid);

/*
 * Parse "perf-123.map", "jit-123.dump", "jitted-123-7.so": returns the
 * PID, or 0 when name is not one of those.
 */
pid_t sysprobe_perf_file_pid(const char *name);

/* Free bytes for unprivileged users on the file system of path, or -errno. */
long long sysprobe_free_bytes(const char *path);

/*
 * The size of a directory tree: allocated blocks of the regular files
 * (symlinks are not followed; a file linked twice counts twice).  Stops
 * after max_entries entries and sets *truncated.  Returns 0 or -errno
 * (-ENOENT when path does not exist).
 */
int sysprobe_tree_size(const char *path, size_t max_entries,
		       unsigned long long *bytes, size_t *files,
		       int *truncated);

/*
 * perf's build-id cache directory: $PERF_BUILDID_DIR, else
 * $HOME/.debug.  Caller owns the result; NULL without a home.
 */
char *sysprobe_buildid_dir(void);

/* "1.2 GiB" style into buf. */
void sysprobe_human_size(unsigned long long bytes, char *buf, size_t len);

#endif
