/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_SRC_NATIVE_H
#define PPR_REPORT_SRC_NATIVE_H
/*
 * The samples of a session read from perf.data itself (lib/perfdata.h)
 * and unwound / symbolized by lib/unwind/, delivered as the same
 * struct sample that the `perf script` parser gives, with the
 * symbol and object names perf script prints, so that the report's
 * pipeline (report/pipeline_priv.h) works the same on either.
 *
 * Records are taken in perf's order: sorted by time within the rounds
 * perf record marks (PERF_RECORD_FINISHED_ROUND), a round's records
 * held back until the next round's end, as perf's ordered events do,
 * so that a mapping seen on one CPU is known before a sample another
 * CPU took in it.  Memory: the file is mapped and its pages dropped
 * behind the last record still queued; what is kept grows with the
 * distinct objects, symbols and threads, not the samples.
 */
#include "compat.h"
#include "report/sample.h"
#include "report/src_native_walkmerge.h"

struct perfdata;
struct pd_record;

struct native_stats {
	uint64_t bytes;		/* of perf.data's records read */
	uint64_t samples;	/* delivered */
	uint64_t bad_samples;	/* that did not decode */
	uint64_t frames;
	uint64_t unwind_fallbacks;	/* libdwfl single steps */
	uint64_t lost;		/* samples perf lost (buffer full) */
	struct walkmerge_stats walker;	/* the frame walker's samples */
	uint64_t switch_samples;	/* stacks at switch-out (record
					   --wall), not delivered */
	uint64_t switch_broken;	/* off-CPU intervals left out: perf
				   lost one of their switch records */
};

/* NATIVE_DWFL_ONLY: libdwfl for every frame (a cross-check, slow). */
#define NATIVE_DWFL_ONLY 1u
/*
 * NATIVE_RECORDED: a frame walker's sample unwound as it was recorded
 * (WALKER_F_UNWOUND) is taken with those user frames even when it also
 * has its stack copy (record --keep-stack-copy): to compare the two.
 */
#define NATIVE_RECORDED 2u

struct native_opts {
	const char *session_dir;	/* jit/, buildid/, kallsyms */
	const char *perf_data;
	/* or a perf.data image in memory, kept alive by the caller */
	const void *buf;
	size_t buf_len;
	unsigned flags;
	sample_fn cb;
	void *data;
	/* called with data once the header is read, before any sample */
	void (*header)(void *data, const struct perfdata *d);
	/* called every few MiB and at the end (may be NULL) */
	void (*progress)(void *data, uint64_t bytes, uint64_t samples);
	void *progress_data;
	/*
	 * record's exec helper (meta helper_pid), or 0: the samples of
	 * its tasks are marked own (report/src_owntasks.h)
	 */
	pid_t helper_pid;
	/*
	 * the recording stopped at record --max-size: the losses perf
	 * counted after it are not the recording's (perfdata_lost())
	 */
	int stopped;
};

/*
 * Read every sample of o->perf_data into o->cb, in time order.
 * Returns 0 (also when the callback stopped the read: its value is in
 * *cb_ret), or -1 with err filled ("cannot read 'x': not a perf.data
 * file", ...).  st may be NULL.
 */
int native_load(const struct native_opts *o, struct native_stats *st,
		int *cb_ret, char *err, size_t errlen);

/*
 * The same, one record at a time, for records that come from elsewhere
 * (`pyperf-run top`'s ring buffers): d holds the attributes the
 * records were taken with and must outlive the stream.  Records must
 * come in time order.  native_stream_record() returns the callback's
 * last value.
 */
struct native_stream;
int native_stream_new(struct native_stream **out, const struct perfdata *d,
		      const char *session_dir, unsigned flags, sample_fn cb,
		      void *data, char *err, size_t errlen);
int native_stream_record(struct native_stream *ns, const struct pd_record *r);
void native_stream_free(struct native_stream *ns);
/*
 * The code objects that name the frame walker's Python frames: the
 * session's pycode file is read by native_stream_new(); top gives its
 * live cache here (not owned).
 */
struct pycode_cache;
void native_stream_set_pycode(struct native_stream *ns,
			      struct pycode_cache *c);
const struct walkmerge_stats *native_stream_walker(
	const struct native_stream *ns);

#endif
