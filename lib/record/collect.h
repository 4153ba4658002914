/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_COLLECT_H
#define PPR_RECORD_COLLECT_H

#include "compat.h"
#include "strbuf.h"
#include "walker/kself.h"

#include <pthread.h>

/*
 * The run's files into the session: the map and jitdump files of its
 * processes, its trimmed build-id cache and the vDSO image.
 */

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
 * Compress the context tables (ctx-<pid>.tab, trampoline/README.md) in
 * dir into ctx-<pid>.tab.gz, without the zero tail a process that
 * ended with _exit() leaves: they are mostly small ids, about a fifth
 * of the size compressed.  *packed gets the count.  Returns 0, or -1
 * with err filled (the first failure; a table that cannot be packed is
 * left as it is, and still read).
 */
int record_pack_contexts(const char *dir, unsigned *packed, char *err,
			 size_t errlen);

/*
 * Trim a perf build-id cache directory to the jitted objects
 * (jitted-*.so entries and the .build-id links to them): perf records
 * every DSO with samples there (libpython, libc, the kernel's kallsyms)
 * and report finds those where they are installed.  Returns 0 or
 * -errno.
 */
int record_prune_buildid(const char *dir);

/* The current time as UNIX seconds with decimals. */
double record_now(void);

/*
 * Save this process's vDSO image in a perf build-id cache directory, as
 * perf record does unless told -N: [vdso]/<build-id>/vdso and the
 * .build-id/<xx>/<rest> link to it.  The vDSO of every 64-bit process on
 * this kernel is the same image; without it perf cannot read its
 * unwinding tables and every sample taken in it (clock_gettime) stops
 * there.  id_hex (may be NULL) gets the vDSO's build-id in hex.
 * Returns 0, or -errno.
 */
int record_save_vdso(const char *buildid_dir, char *id_hex, size_t id_len);

/*
 * This kernel's function symbols (/proc/kallsyms' t, T, w and W lines)
 * saved as <session>/kallsyms.gz, mode 0600, so that the report names
 * kernel frames on another machine or after a reboot; none when the
 * kernel hides the addresses (kptr_restrict).  Reading and compressing
 * /proc/kallsyms costs about 100 ms of a core: bpf mode has a thread do
 * it (record_kallsyms_begin()), begun while the walker's programs load,
 * not after the program ended, when the user waits for it, and not in
 * the loop that reads the walker's events (which names the program's
 * interpreter and code objects as they come: paused for 100 ms at the
 * start, 111 of a 1.6 s program's 638 samples lost their Python
 * frames).  The same reading gives that loop the kernel's ranges its
 * own frames are told by (record_kallsyms_kself()).  The walker's
 * programs are loaded after it began, so the copy does not name them;
 * their frames are taken out of every stack (kself.h).
 * record_kallsyms_keep() writes the file at the end, after perf.data
 * and pycode had the disk; without a begin it reads, compresses and
 * writes there, whole (1 MB; perf record's route, whose kernel
 * addresses are in perf's file).  After a begin, told the kernel
 * addresses the samples hold (record_kallsyms_used(): bpf mode writes
 * every sample itself), it keeps only the symbols that name them and
 * the symbols after those, where they end: a few KB, not 1 MB, and
 * every report of the session inflates and parses that much, not
 * 5.4 MB of text (30 ms of each report, and of record's end).
 */
struct kline {
	uint64_t addr;
	uint32_t off, len;	/* the line in text, its newline included */
};
struct record_kallsyms {
	int state;		/* 0 not begun, 1 being read by the thread,
				   2 read (text, lines, err), 3 kept or
				   given up */
	pthread_t thread;
	struct strbuf text;	/* the function symbols' lines */
	struct kline *lines;	/* in text, by address (then by order) */
	size_t nr_lines;
	int err;		/* the reading's: 0 or -errno */
	/* record_kallsyms_used()'s, or NULL: keep them all */
	uint64_t *used;
	size_t nr_used;
	/* the walker's kernel ranges, once kself_done (under lock) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int kself_done, kself_err;
	struct kself kself;
};
void record_kallsyms_init(struct record_kallsyms *k);
void record_kallsyms_begin(struct record_kallsyms *k);
/*
 * wrec_opts' kself_base (data: the struct record_kallsyms): the ranges
 * from the thread's reading, waiting for it if need be; -1 when none
 * was begun or the reading failed.
 */
int record_kallsyms_kself(void *data, struct kself *out);
/*
 * The kernel addresses the session holds (pcs: n of them, in any
 * order; the struct takes them, to free), for record_kallsyms_keep() to
 * keep their symbols only; after a begin.
 */
void record_kallsyms_used(struct record_kallsyms *k, uint64_t *pcs,
			  size_t n);
/* <session>/kallsyms.gz, once; nothing when the symbols are hidden */
void record_kallsyms_keep(struct record_kallsyms *k, const char *session);
/* waits for the thread, if one still reads */
void record_kallsyms_release(struct record_kallsyms *k);

#endif
