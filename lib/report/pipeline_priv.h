/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_REPORT_PIPELINE_PRIV_H
#define PPR_REPORT_PIPELINE_PRIV_H
/*
 * The report's sample pipeline, inside: the loader state its stages
 * share and each stage's entry points.  Not for writers or commands.
 *
 *   a source ──► pipeline_sample() (pipeline.c), for each sample:
 *     agg_clock()       stage_aggregate.c  the clock's samples, weighed
 *     agg_accept()      stage_aggregate.c  the user's program, in the filter
 *     name_rebuild()    stage_name.c       context trampolines: the callers
 *     agg_task()        stage_aggregate.c  its thread and task
 *     name_frames()     stage_name.c       frames -> profile frames, classes
 *     judge_sample()    stage_judge.c      complete, or why cut
 *     agg_add()         stage_aggregate.c  the view's stack, into the model
 *   then, once every sample is in:
 *     judge_dumps()     stage_judge.c      what a bigger dump would do
 *     quality_warnings(), quality_lost(),  stage_quality.c
 *     quality_max_size() (stage_quality.h)
 *
 * Sources: src_native.c (perf.data read here), src_perfscript.c (perf
 * script, or the session's cache of it), lib/top/ (libperf's ring
 * buffers, through profile_live.c).
 */
#include "compat.h"
#include "report/stage_name_contexts.h"
#include "report/stage_name_perfmap.h"
#include "report/profile.h"
#include "report/profile_priv.h"
#include "report/src_perfscript_cache.h"
#include "report/sample.h"
#include "stackroot.h"
#include "hmap.h"

/* A waker sample kept for its interval (the wakers view). */
struct waker_stash {
	uint64_t time;		/* the interval's end: its own time */
	uint32_t flags;		/* WALKER_WAKE_F_* */
	uint32_t context;	/* enum walker_wake_context */
	int timer;		/* a timer's callback woke it */
	pid_t waker_tid;	/* a watched thread's (context TASK), or 0 */
	uint64_t wake_ns;	/* the wakeup's own time (0: not known) */
	int gil_forced;		/* no release of the GIL on its stack: a
				   drop at another thread's request */
	uint32_t *ids;		/* "[woken by ...]", then the waker's stack,
				   innermost first */
	size_t n, alloc;	/* n 0: taken */
};

/*
 * --chain: a thread's last wait with a waker, what its stack had after
 * its "[off-cpu REASON]" frame (the waker's frames, and their own
 * chain), for the waits this thread ends next.
 */
struct chain_last {
	uint64_t end;		/* the wait's end (0: none yet) */
	uint64_t start;		/* and its start */
	int retake;		/* a gil wait to take the GIL back after a
				   blocking call (PyEval_RestoreThread) */
	unsigned levels;	/* waits in ids: 1, or more when chained;
				   0: its waker unknown, no chain */
	uint32_t *ids;
	size_t n, alloc;
};

/*
 * A thread's last few waits' tails: a wakeup is seen when its woken
 * thread runs, and by then the waker may have waited again (a woken
 * thread left in the run queue while its waker went on); the wait that
 * counts is the waker's last before the wakeup.
 */
#define CHAIN_KEEP 4

struct chain_tails {
	struct chain_last t[CHAIN_KEEP];
	unsigned last;		/* the newest of t[] */
};

struct session;

/* ---- naming (stage_name.c) ------------------------------------------- */

/* Classes of raw frames (a profile frame's kind, plus plumbing). */
enum rclass {
	C_PY = 0,
	C_NATIVE,
	C_KERNEL,
	C_PLUMB,
	C_UNKNOWN
};

/* A distinct (kind, sym, dso) the sources gave, named once. */
struct rframe {
	const char *key;	/* "sym\0dso" */
	uint32_t keylen;
	uint32_t frame;		/* profile frame id (fallback when resolving) */
	uint8_t kind;		/* enum sample_frame_kind */
	uint8_t cls;
	uint8_t startup;	/* interpreter / libc start-up code */
	uint8_t resolve;	/* look the ip up in a session map */
	uint8_t unnamed;	/* user code perf found no symbol for */
	uint8_t root;		/* where a process or thread starts */
	uint8_t marker;		/* perf's end-of-chain marker, not code */
	pid_t map_pid;		/* from "/tmp/perf-PID.map", or 0 */
	uint32_t line;		/* a source-named Python frame's line */
};

/* One process's perf map, read when first needed. */
struct pmap {
	pid_t pid;
	int loaded;		/* 1 ok, -1 missing */
	struct perfmap map;
	uint32_t *ids;		/* frame id per entry, HTAB_NONE = not yet */
};

/*
 * What naming tells the later stages about one sample; the frames'
 * ids and classes are in the loader's scratch (ids[], cls[], ...),
 * leaf first.
 */
struct named {
	size_t n;		/* frames */
	enum ctx_result cr;	/* how the context rebuild went */
	int any_py;		/* a Python frame among them */
	size_t outer_user;	/* the outermost user frame; SIZE_MAX: none */
	int outer_root;		/* it is where a process or thread starts */
	int startup;		/* judged: in the interpreter's start-up */
};

/* ---- judging (stage_judge.c) ----------------------------------------- */

/* A jit-mode sample as perf.data has it, to judge its stack dump. */
struct dump {
	uint64_t time;
	uint64_t sp;
	pid_t tid;
	uint8_t full;		/* the kernel copied all it was asked */
};

/* A sample whose stack dump was full: its thread and sp. */
struct cut_dump {
	pid_t tid;
	uint64_t sp;
};

/* ---- quality (quality.c) --------------------------------------------- */

/*
 * One process's counts, for the Python program's share of them: a
 * warning is about the processes running Python code.
 */
struct qproc {
	pid_t pid;
	uint8_t any_py;		/* a sample with a Python frame */
	/*
	 * The frames of unnamed code it showed most (the first few
	 * distinct ones, counted; HTAB_NONE: none): the warning's example
	 */
	uint32_t example[4];
	uint64_t example_n[4];
	uint64_t count;		/* samples and off-CPU intervals kept */
	uint64_t judged;
	uint64_t cut[CUT_NR];
	uint64_t unnamed;
};

/* ---- the loader ------------------------------------------------------ */

/*
 * A tap on the pipeline (report/fmt_perfdata.c): each sample the
 * aggregation takes, as the stages leave it (clocked, accepted by the
 * filter, its stack judged: cut is CUT_NONE or why it is cut), just
 * before it goes into the model.
 */
typedef void (*pipeline_tap_fn)(void *data, const struct sample *s,
				enum stack_cut cut);

struct loader {
	struct profile *p;
	const struct profile_filter *f;
	const struct session *s;	/* the session read (NULL: live) */
	int live;		/* top: no end, no dump advice */

	/* naming: raw frames, perf maps, context tables */
	struct htab raw_tab;
	struct rframe *raw;
	size_t nr_raw, raw_alloc;
	struct pmap *maps;
	size_t nr_maps, maps_alloc;
	size_t last_map;
	/* where perf-<pid>.map files are read: the session's maps/ */
	const char *map_dirs[4];
	size_t nr_map_dirs;
	struct ctx_db *ctx;	/* the context tables, or NULL */
	uint32_t unknown_frame;

	/* per-sample scratch, leaf first: naming fills, the rest read */
	uint32_t *ids;
	uint8_t *cls;
	uint8_t *startup;
	uint8_t *unnamed;
	size_t scratch_alloc;
	uint32_t *out;		/* the stack added, root first */

	/* accepting: the filter's window, pyperf-run's own processes */
	uint64_t first_ns, last_ns;
	uint64_t from_ns, to_ns;	/* absolute window; 0 = open */
	int have_first;
	pid_t helper_pid;	/* record's exec helper: the sources follow
				   its tasks (report/src_owntasks.h) */

	/* judging */
	int jit;		/* DWARF unwinding (jit mode) */
	struct dump *dumps;	/* sorted by (time, tid) */
	size_t nr_dumps;
	/*
	 * Per thread, the stack's ends learnt from dumps that reached
	 * them: sorted by tid up to nr_sorted (judge_tops_compact()); a
	 * source giving dumps with its samples appends as it goes.
	 */
	struct report_cache_top *tops;
	size_t nr_tops, tops_alloc, nr_sorted;
	/*
	 * The CUT_DUMP samples: the bytes each needed are known once
	 * every stack top is (judge_dumps()); not kept live.
	 */
	struct cut_dump *cut_dumps;
	size_t nr_cut_dumps, cut_dumps_alloc;
	uint64_t recorded;	/* samples in perf.data */
	uint64_t lost;		/* samples perf lost (buffer full) */

	/* aggregating: the pseudo frames of the views */
	uint32_t pseudo_native, pseudo_kernel;
	uint32_t startup_frame;	/* "[python start-up]" */
	uint32_t cut_frame[CUT_NR];
	uint32_t unnamed_example;	/* a frame of unnamed code shown */
	/*
	 * The clock's "[off-cpu REASON]" frames, interned when first
	 * used (HTAB_NONE before): seen, the reason inferred, the stack
	 * inferred; each as it is, and for a wait counted from the attach
	 * (", from the attach").
	 */
	uint32_t offcpu_frame[WAIT_NR][3][2];
	uint32_t cur_thread;	/* agg_task(): the sample's thread */
	/*
	 * the wakers view: per wakee tid, the waker sample waiting for
	 * its interval (struct waker_stash), "[waker unknown]", and the
	 * stack with its waker built here (l->out is sized for one)
	 */
	struct umap wakers;
	/* --chain: per tid, its last waits' tails (struct chain_tails) */
	struct umap chains;
	/*
	 * ...and who made whom wait: p->wakes by (waiter, waker, thread,
	 * reason) and p->gil_holds by holder frame, each entry's count
	 * its index plus one
	 */
	struct smap wake_rows;
	struct smap gil_holds;
	/*
	 * per thread (index in p->threads), its gil wait a timer ended
	 * (struct gil_timed): kept until the thread's next interval says
	 * whether it went on waiting
	 */
	struct umap gil_timed;
	/*
	 * per tid, when the thread last took the GIL as its intervals tell
	 * (a uint64_t: agg_gil_note()), the start of the holds it ends
	 */
	struct umap gil_since;
	uint32_t waker_unknown_frame;
	uint32_t chain_frame;	/* "[which had just waited]" (--chain) */
	uint32_t *wake_out;
	size_t wake_out_alloc;
	int clock_defaulted;	/* no --clock: the session's own */
	int wall_session;	/* meta "wall": a record --wall session */
	int wakers_source;	/* perf.data has record --wakers's wakers */
	int offcpu_source;	/* perf.data has switch records or
				   offcpu-time samples */

	uint64_t next_progress;

	pipeline_tap_fn tap;	/* or NULL */
	void *tap_data;

	/* quality: the counts by process (quality_sample()) */
	struct qproc *qprocs;
	size_t nr_qprocs, qprocs_alloc, last_qproc;
};

/* pipeline.c: the loader's life, and one sample through the stages */
void loader_init(struct loader *l, struct profile *p,
		 const struct profile_filter *f);
void loader_frames(struct loader *l);
void loader_release(struct loader *l);
int pipeline_sample(void *data, const struct sample *s);
/* profile_load() with a tap on its samples (tap NULL: profile_load()) */
int profile_load_tap(struct profile *p, const char *session,
		     const struct profile_filter *f, pipeline_tap_fn tap,
		     void *tap_data, char *err, size_t errlen);

/* stage_name.c */
void name_init(void);
void name_release(struct loader *l);
void name_drop_maps(struct loader *l);
const struct sample *name_rebuild(struct loader *l, const struct sample *s,
				  struct sample *rebuilt, struct named *nm);
void name_frames(struct loader *l, const struct sample *s,
		 struct named *nm);

/* stage_judge.c */
extern const char *const judge_cut_names[CUT_NR];
size_t judge_tops_sort_unique(struct report_cache_top *t, size_t n);
void judge_use_facts(void *data, const struct report_cache_facts *fa);
void judge_observe(struct loader *l, const struct sample *s);
enum stack_cut judge_sample(struct loader *l, const struct sample *s,
			    struct named *nm);
void judge_dumps(struct loader *l);

/* stage_aggregate.c */
void agg_set_clock(struct loader *l, enum profile_clock c);
const struct sample *agg_clock(struct loader *l, const struct sample *s,
			       struct sample *copy);
int agg_accept(struct loader *l, const struct sample *s);
/* --chain: s, an interval, is its thread's last wait (stage_aggregate.c) */
void agg_chain_note(struct loader *l, const struct sample *s, size_t n);
void agg_gil_note(struct loader *l, const struct sample *s);
uint32_t agg_task(struct loader *l, const struct sample *s);
/* A waker sample (s->waker), kept for its interval (the wakers view). */
void agg_waker(struct loader *l, const struct sample *s,
	       const struct named *nm);
void agg_add(struct loader *l, const struct sample *s,
	     const struct named *nm, enum stack_cut cut, uint32_t task);
/* After the last sample: the gil waits still waiting for their next part. */
void agg_finish(struct loader *l);

/* stage_quality.c */
/*
 * After agg_add(): the sample's process counts it, judged (0/1) and
 * showing unnamed code (0/1) as the stages counted it.
 */
void quality_sample(struct loader *l, const struct sample *s,
		    const struct named *nm, int judged, enum stack_cut cut,
		    int unnamed);
void quality_warnings(struct loader *l);
void quality_lost(struct profile *p, uint64_t lost, uint64_t recorded);

/* the sources into the pipeline: 0, or -1 with err */
int src_native_run(struct loader *l, char *err, size_t errlen);
int src_perfscript_run(struct loader *l, char *err, size_t errlen);

#endif
