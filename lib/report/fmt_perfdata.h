/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_EXPORT_PERF_H
#define PPR_REPORT_EXPORT_PERF_H
/*
 * A bpf-mode session (record --mode bpf, record -p) as a perf.data that
 * perf itself reads with the Python frames in place: `perf report`,
 * `perf script` and hotspot show the Python functions between the
 * native and kernel frames, as pyperf-run's own report does.
 *
 * The session's perf.data keeps the walker's Python frames apart, in
 * each sample's raw field, and perf cannot put them into the stack it
 * unwinds from the user stack copy.  So the stacks are taken from the
 * report's pipeline instead (report/pipeline_priv.h: src_native.c
 * unwinds, src_native_walkmerge.c puts the Python frames in place of the eval
 * loop's frames, stage_judge.c says which stacks are cut) and written
 * as plain callchains:
 *   - native and kernel frames keep their addresses: perf names them
 *     itself, from the session's MMAP2 records, carried over with every
 *     other record perf needs (COMM, FORK, EXIT, MMAP, LOST, ...);
 *   - each distinct Python frame of a process (qualname, file, line)
 *     gets a 16-byte slot in a synthetic executable anonymous mapping
 *     ("//anon": perf names it through /tmp/perf-PID.map), written
 *     before the process's first sample, at an address no process of
 *     the session mapped; the slots' names go into
 *     maps_dir/perf-PID.map ("START SIZE qualname (file.py:123)"), to
 *     be put in /tmp while perf reads the file;
 *   - a stack the pipeline judged cut ends in a slot named as the
 *     report's pseudo frame ("[incomplete stack: dump full]", ...).
 * Samples: PERF_SAMPLE_IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN,
 * the kernel's frames after PERF_CONTEXT_KERNEL, the user's after
 * PERF_CONTEXT_USER, leaf first; no registers, no stack copy, no raw
 * field (perf does not unwind again).  Events: "cpu-clock", and
 * "offcpu-time" (period: nanoseconds) when the clock asked for takes
 * off-CPU intervals (a record --wall session).
 *
 * Silent: errors through err.
 */
#include "compat.h"
#include "report/profile.h"

struct export_perf_opts {
	const char *session;		/* the session's directory */
	const char *out;		/* the perf.data to write (replaced) */
	/*
	 * the directory of its perf-PID.map files (replaced whole: only
	 * files this writes may be in an old one)
	 */
	const char *maps_dir;
	/* the samples: pids, tids, time window, clock (NULL: all) */
	const struct profile_filter *filter;
	const char *const *cmdline;	/* HEADER_CMDLINE (NULL: none) */
};

struct export_perf_stats {
	uint64_t samples;		/* written */
	uint64_t offcpu;		/* of them, off-CPU intervals */
	uint64_t cut;			/* written with an "[incomplete
					   stack: ...]" frame at the root */
	uint64_t too_deep;		/* of them, cut to fit perf's
					   record size */
	uint64_t left_out;		/* samples the filter left out */
	uint64_t records;		/* other records carried over */
	uint64_t processes;		/* given a mapping of Python frames */
	uint64_t slots;			/* distinct Python frames */
	uint64_t max_chain;		/* frames of the deepest stack */
	uint64_t map_start;		/* the mapping's address */
};

/*
 * Write o->out and o->maps_dir from the session o->session, which must
 * be a bpf-mode one (its meta's mode).  0, or -1 with err; nothing is
 * left behind then (an old out may be gone).
 */
int export_perf(const struct export_perf_opts *o,
		struct export_perf_stats *st, char *err, size_t errlen);

/*
 * Is out, written by export_perf() from session, still its export: it
 * is there, and not older than the session's perf.data or pycode?
 */
int export_perf_fresh(const char *session, const char *out,
		      const char *maps_dir);

/*
 * Remove out and maps_dir, as export_perf() wrote them (a maps_dir
 * holding other files stays).  0, or -1 with err.
 */
int export_perf_remove(const char *out, const char *maps_dir, char *err,
		       size_t errlen);

/*
 * The stats of the export in maps_dir (export_perf() writes them as
 * maps_dir/export.stats): 0, or -1 when there are none.
 */
int export_perf_stats_read(const char *maps_dir,
			   struct export_perf_stats *st);

#endif
