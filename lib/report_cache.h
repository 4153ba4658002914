#ifndef PPR_REPORT_CACHE_H
#define PPR_REPORT_CACHE_H
/*
 * The session's cache of `perf script` output, so that only the first
 * report of a session pays for perf script (minutes on a large session)
 * and every later view, filter and format reads this instead.
 *
 * The cache is the stream itself in a compact form: replaying it calls
 * the sample callback with the same struct ps_sample contents (comm,
 * pid, tid, time, period, event, frames with sym, dso and ip) the
 * parser gave when it was written, in the same order.  It must therefore
 * be written from an unfiltered perf script run; filters apply in the
 * callback.
 *
 * File SESSION/cache/script.v1 (mode 0600, replaced atomically), all
 * integers unsigned LEB128 varints unless said otherwise:
 *
 *   "PPRSCR1\n"                 magic and format version
 *   key_len, key bytes          see report_cache_key()
 *   stats: bytes bad_lines samples   (of the perf script run)
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
 * Stacks share their common prefixes in the tree, so a deep stack that
 * differs from the previous one only at the leaf costs one node.  A
 * reader trusts nothing: every count, index and length is checked, and
 * the whole file is checked before the first sample is delivered, so a
 * damaged cache is never half-used.
 */
#include "compat.h"
#include "perfscript.h"
#include "strbuf.h"

#define REPORT_CACHE_DIR "cache"
#define REPORT_CACHE_FILE "script.v1"

/* Counters of the perf script run the cache was written from. */
struct report_cache_stats {
	uint64_t bytes;		/* bytes of perf script output */
	uint64_t bad_lines;
	uint64_t samples;
};

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
 * cb(data, sample) for every sample, fills *st (may be NULL) and
 * returns 1; *cb_ret (may be NULL) is 0, or the callback's non-zero
 * value that stopped the replay.  Returns 0 without calling cb when
 * there is no usable cache (missing, another key, damaged): the caller
 * runs perf script.  Never prints.
 */
int report_cache_replay(const char *session, const struct strbuf *key,
			ps_sample_fn cb, void *data,
			struct report_cache_stats *st, int *cb_ret);

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
			    ps_sample_fn cb, void *data,
			    struct report_cache_stats *st, int *cb_ret);

/*
 * Building a cache while perf script runs: add every sample the parser
 * delivers, then write it (or just free it when the run failed).  The
 * writer holds the distinct strings, frames and call paths plus a few
 * bytes per sample.
 */
struct report_cache_writer;

struct report_cache_writer *report_cache_writer_new(void);
void report_cache_writer_free(struct report_cache_writer *w);
void report_cache_add(struct report_cache_writer *w,
		      const struct ps_sample *s);
/* The file's bytes, appended to out. */
void report_cache_encode(const struct report_cache_writer *w,
			 const struct strbuf *key,
			 const struct report_cache_stats *st,
			 struct strbuf *out);
/*
 * Write SESSION/cache/script.v1 atomically (creating cache/ with mode
 * 0700).  Returns 0, or -errno (a read-only session: -EACCES, -EROFS);
 * nothing is left behind on failure.
 */
int report_cache_write(const struct report_cache_writer *w,
		       const char *session, const struct strbuf *key,
		       const struct report_cache_stats *st);

#endif
