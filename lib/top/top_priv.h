/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_TOP_PRIV_H
#define PPR_TOP_PRIV_H
/*
 * Inside `pyperf-run top` (top.h), four parts sharing struct top:
 *
 *   top.c         the program: started stopped before exec, let go
 *                 once the event is open on it; which source; the
 *                 stubs built without libperf
 *   src_ring.c    a source: a libperf cpu-clock event, one ring buffer
 *                 per CPU, records in time order (timeq.h) into the
 *                 native reader's stream (report/src_native.h), which
 *                 unwinds and names them as report does
 *   src_walker.c  the other source (top --mode bpf, top -p): the
 *                 in-kernel frame walker's records into the same stream
 *   refresh.c     the refresh loop: samples wait until the program's
 *                 perf maps and context tables are read again, then go
 *                 into the live profile (the report's pipeline)
 *
 * top.c calls the sources; they hand their samples to refresh.c's
 * top_keep_sample() and note the program's processes with
 * top_note_pid() below, so that nothing calls back into top.c.
 */
#include "compat.h"
#include "alloc.h"
#include "perfdata.h"
#include "timeq.h"
#include "report/sample.h"
#include "top/top.h"

#include <linux/perf_event.h>
#include <time.h>

/* --wall: the CPUs whose sample ids are kept (one fd per CPU) */
#define TOP_MAX_CPUS 1024

struct native_stream;
struct wrec;
struct perf_evlist;
struct perf_cpu_map;
struct perf_thread_map;

/* A sample waiting for top_update(): frames index into t->frames. */
struct pending {
	struct sample s;	/* frames pointer set when fed */
	size_t first;
};

struct top {
	struct top_opts o;
	struct profile *p;
	struct profile_live *lv;
	struct perf_evlist *evlist;
	struct wrec *wrec;	/* the frame walker's recording (bpf mode) */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	unsigned char *image;	/* a perf.data header with our attr */
	size_t image_len;
	/* --wall: the two events' sample ids (one per CPU), and the
	   context-switches event's attributes */
	uint64_t ids[2][TOP_MAX_CPUS];
	size_t nr_ids[2];
	struct perf_event_attr wall_attr;
	struct perfdata d;
	struct native_stream *ns;

	/* the records copied out of the ring buffers, and their queue
	   (timeq.h: off is a record's in batch) */
	unsigned char *batch;
	size_t batch_len, batch_alloc;
	struct timeq recs;

	struct pending *pend;
	size_t nr_pend, pend_alloc;
	struct sample_frame *frames;
	size_t nr_frames, frames_alloc;

	pid_t *pids;
	size_t nr_pids, pids_alloc;

	pid_t pid;
	int exited, wait_status;
	double next_refresh;	/* no refresh before (see top_update) */
	struct timespec start;
	struct top_stats st;
};

/* A process of the program's (top.c cleans up its maps at the end). */
static inline void top_note_pid(struct top *t, pid_t pid)
{
	size_t i;

	for (i = 0; i < t->nr_pids; i++)
		if (t->pids[i] == pid)
			return;
	ALLOC_GROW(t->pids, t->nr_pids + 1, t->pids_alloc);
	t->pids[t->nr_pids++] = pid;
}

/* src_ring.c */
/* The event's attributes for o; libperf told to keep quiet. */
void ring_init(struct perf_event_attr *a, const struct top_opts *o);
/*
 * Open the event on t->pid, map its ring buffers, and start the native
 * stream on them (its samples to top_keep_sample()); -1 with err.
 */
int ring_open(struct top *t, struct perf_event_attr *a, char *err,
	      size_t errlen);
/* Wait up to timeout_ms (0: not at all), then read every ring buffer. */
void ring_poll(struct top *t, int timeout_ms);
void ring_close(struct top *t);

/* src_walker.c: the frame walker instead of the ring buffers */
int walker_src_open(struct top *t, char *err, size_t errlen);
int walker_src_watch(struct top *t, pid_t pid, int before_exec, char *err,
		     size_t errlen);
int walker_src_attach(struct top *t, char *err, size_t errlen);
void walker_src_poll(struct top *t, int timeout_ms);
void walker_src_close(struct top *t);

/* refresh.c: the native stream's samples, kept until top_update() */
int top_keep_sample(void *data, const struct sample *s);

#endif
