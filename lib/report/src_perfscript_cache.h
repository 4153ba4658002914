/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_CACHE_H
#define PPR_REPORT_CACHE_H
/*
 * The session's cache of `perf script` output, so that only the first
 * report of a session pays for perf script (minutes on a large session)
 * and every later view, filter and format reads this instead.
 *
 * The cache is the stream itself in a compact form: replaying it calls
 * the sample callback with the same struct sample contents (comm,
 * pid, tid, time, period, event, frames with sym, dso and ip) the
 * parser gave when it was written, in the same order.  It must therefore
 * be written from an unfiltered perf script run; filters apply in the
 * callback.
 *
 * perf script does not say everything report needs of perf.data: in
 * jit mode whether each sample's user stack dump was full and its stack
 * pointer, each thread's stack top, the counts of recorded and lost
 * samples.  Those are read from perf.data by walking all of it (the
 * stack dumps make it large); the cache keeps them too, so that a
 * cached report reads no more of perf.data than its header.
 *
 * File SESSION/cache/script.v2 (mode 0600, replaced atomically), all
 * integers unsigned LEB128 varints unless said otherwise:
 *
 *   "PPRSCR2\n"                 magic and format version
 *   key_len, key bytes          see report_cache_key()
 *   stats: bytes bad_lines samples   (of the perf script run)
 *   perf.data: max_stack dump_size recorded lost
 *              nr_dumps, { time delta, zigzag(tid) << 1 | full,
 *                          sp delta (zigzag) }
 *                               sorted by (time, tid): deltas from the
 *                               previous dump (the first from 0)
 *              nr_tops, { zigzag(tid), top }
 *                               sorted by (tid, top), all distinct
 *   nr_strings, { len, bytes }  interned sym, dso, comm and event names
 *   nr_frames, { sym, dso, ip } unique (name, object, address) triples
 *   nr_nodes, { parent+1, frame }  a tree of call paths, root first;
 *                               parent < the node's own index (0: root)
 *   nr_samples, { flags, [pid tid comm event], time delta (zigzag),
 *                 [period], node+1 }
 *                               flags bit 0: pid..event follow (else as
 *                               the previous sample); bit 1: period
 *                               follows; node+1 = 0: no frames; the
 *                               node is the leaf, its parents the callers
 *   8 bytes                     checksum of all the above (little endian)
 *
 * A script.v1 (the format without the perf.data section) is removed
 * when a script.v2 is written.
 *
 * Stacks share their common prefixes in the tree, so a deep stack that
 * differs from the previous one only at the leaf costs one node.  A
 * reader trusts nothing: every count, index and length is checked, and
 * the whole file is checked before the first sample is delivered, so a
 * damaged cache is never half-used.
 */
#include "compat.h"
#include "report/src_perfscript_parse.h"
#include "strbuf.h"

#define REPORT_CACHE_DIR "cache"
#define REPORT_CACHE_FILE "script.v2"
#define REPORT_CACHE_OLD_FILE "script.v1"	/* removed on write */

/* Counters of the perf script run the cache was written from. */
struct report_cache_stats {
	uint64_t bytes;		/* bytes of perf script output */
	uint64_t bad_lines;
	uint64_t samples;
};

/* One sample's user stack dump, as perf.data has it (jit mode). */
struct report_cache_dump {
	uint64_t time;		/* perf clock, ns */
	uint64_t sp;		/* the user stack pointer; 0: not recorded */
	int32_t tid;
	uint8_t full;		/* the kernel copied all it was asked */
};

/* A thread's stack top (the end of its stack mapping). */
struct report_cache_top {
	int32_t tid;
	uint64_t top;
};

/*
 * What report learns from perf.data itself rather than from perf
 * script.  All zero when perf.data could not be read that way.
 */
struct report_cache_facts {
	uint64_t max_stack;	/* the callchain cap asked for (0: none) */
	uint64_t dump_size;	/* stack bytes dumped per sample (0: not
				   jit mode) */
	uint64_t recorded;	/* samples in perf.data */
	uint64_t lost;		/* samples perf lost */
	struct report_cache_dump *dumps;	/* sorted by (time, tid) */
	size_t nr_dumps;
	struct report_cache_top *tops;	/* sorted by (tid, top), distinct */
	size_t nr_tops;
};

/* Free the arrays of facts the caller filled with malloc'ed memory. */
void report_cache_facts_release(struct report_cache_facts *f);

/*
 * Called once per replay, when the whole cache was checked and before
 * the first sample: f and its arrays are valid during the call only.
 */
typedef void (*report_cache_facts_fn)(void *data,
				      const struct report_cache_facts *f);

/*
 * What the cache depends on, as bytes to compare: the identity of
 * SESSION/perf.data (device, inode, size, mtime in ns), of the perf
 * program argv[0] (found on PATH like spawn does; its real path, inode,
 * size and mtime) and the whole argv, with arguments under the session
 * directory written relative to it (a moved session keeps its cache).
 * Replaces key's contents.  Returns 0, or -1 when there is no key (no
 * perf.data, perf not found): then no cache may be used.
 */
int report_cache_key(struct strbuf *key, const char *session,
		     const char *const *argv);

/*
 * Replay SESSION's cache when it exists and its key is key: calls
 * facts_cb(data, facts) (may be NULL) once, then cb(data, sample) for
 * every sample, fills *st (may be NULL) and returns 1; *cb_ret (may be
 * NULL) is 0, or the callback's non-zero value that stopped the replay.
 * Returns 0 without calling facts_cb or cb when there is no usable
 * cache (missing, another key, damaged): the caller runs perf script.
 * Never prints.
 */
int report_cache_replay(const char *session, const struct strbuf *key,
			report_cache_facts_fn facts_cb, sample_fn cb,
			void *data, struct report_cache_stats *st,
			int *cb_ret);

enum report_cache_flags {
	REPORT_CACHE_NO_CHECKSUM = 1 << 0,	/* tests, fuzzing: let damaged
						   bytes reach the parser */
};

/*
 * As report_cache_replay(), on the bytes of a cache file.  key NULL
 * accepts any key.  Returns 1 (replayed) or 0 (unusable, cb not
 * called).
 */
int report_cache_replay_buf(const void *buf, size_t len,
			    const struct strbuf *key, unsigned flags,
			    report_cache_facts_fn facts_cb, sample_fn cb,
			    void *data,
			    struct report_cache_stats *st, int *cb_ret);

/*
 * Building a cache while perf script runs: add every sample the parser
 * delivers and the facts read from perf.data, then write it (or just
 * free it when the run failed).  The writer holds the distinct strings,
 * frames and call paths plus a few bytes per sample.
 */
struct report_cache_writer;

struct report_cache_writer *report_cache_writer_new(void);
void report_cache_writer_free(struct report_cache_writer *w);
/* Keep a copy of f (replacing any earlier); default: all zero. */
void report_cache_set_facts(struct report_cache_writer *w,
			    const struct report_cache_facts *f);
void report_cache_add(struct report_cache_writer *w,
		      const struct sample *s);
/* The file's bytes, appended to out. */
void report_cache_encode(const struct report_cache_writer *w,
			 const struct strbuf *key,
			 const struct report_cache_stats *st,
			 struct strbuf *out);
/*
 * Write SESSION/cache/script.v2 atomically (creating cache/ with mode
 * 0700).  Returns 0, or -errno (a read-only session: -EACCES, -EROFS);
 * nothing is left behind on failure.
 */
int report_cache_write(const struct report_cache_writer *w,
		       const char *session, const struct strbuf *key,
		       const struct report_cache_stats *st);

#endif
