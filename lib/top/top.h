/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_TOP_TOP_H
#define PPR_TOP_TOP_H
/*
 * `pyperf-run top`'s sampler: a program started under a cpu-clock
 * event opened with libperf (perf_evlist / perf_evsel / perf_mmap), one
 * ring buffer per CPU, the event enabled when the program execs and
 * inherited by its threads and children.  The ring buffers' records go
 * through the native reader's stream (report/src_native.h: unwound
 * and named as report does) into a live profile (profile_live_*), the
 * same views and context rebuild as `pyperf-run report`.
 *
 *	top_start(&t, &o, &profile, err, sizeof(err));
 *	while (!top_poll(t, 100))	// read the ring buffers
 *		every second: top_update(t, 0), then show the profile
 *	top_update(t, 1); top_stats(t, &st); top_free(t);
 *
 * Built without libperf, top_start() fails and says so
 * (top_available() is 0).  Silent library code.  The parts (the
 * program, the ring-buffer source, the refresh loop): top_priv.h.
 */
#include "compat.h"
#include "report/profile.h"

struct top_opts {
	const char *const *argv; /* the program, argv[0] as typed */
	const char *path;	/* the file it runs: argv[0] found in PATH
				   (record_prepare()'s program_path) */
	const char *const *envp; /* its environment */
	unsigned freq;		/* samples per second */
	int jit;		/* user registers and stack dumps (DWARF
				   unwinding), else frame-pointer chains */
	unsigned stack_size;	/* jit: bytes dumped per sample */
	/*
	 * --wall: switch records on the cpu-clock event and a
	 * context-switches event sampled at every switch (the stack each
	 * thread leaves with), as record --wall's context-switches route.
	 */
	int wall;
	int wakers;		/* --wakers (bpf mode, with wall): each
				   wait's waker, read by the walker */
	const char *const *dirs; /* where its perf maps and context tables
				    go (NULL-terminated, at most 4) */
	const struct profile_filter *filter;
	/*
	 * A directory laid out as a session's (NULL: none): its buildid/
	 * holds the vDSO image with build-id vdso_id (hex, or NULL), which
	 * names and unwinds the samples taken in the vDSO.
	 */
	const char *session_dir;
	const char *vdso_id;
	/*
	 * The in-kernel frame walker instead of a libperf event (bpf mode;
	 * session_dir then required: the code objects are saved there),
	 * and with attach[] (nr_attach > 0) running processes instead of
	 * a program: they are never stopped, and stopping top detaches.
	 */
	int bpf;
	const pid_t *attach;
	int nr_attach;
};

struct top_stats {
	uint64_t samples;	/* taken into the profile */
	uint64_t lost;		/* the kernel dropped (buffers full) */
	unsigned damaged;	/* context tables read only up to damage */
	double refresh_seconds;	/* the last re-read of maps and tables */
	double cpu_seconds;	/* top's own CPU time so far */
	double elapsed;		/* since the program started */
};

struct top;

int top_available(void);

/*
 * Start the program stopped before exec, open the event on it, let it
 * exec.  p is initialised here and filled by top_update().  Returns 0,
 * or -1 with err filled; *exec_errno is set (non-zero) when the program
 * itself could not be run.
 */
int top_start(struct top **out, const struct top_opts *o, struct profile *p,
	      int *exec_errno, char *err, size_t errlen);

/*
 * Wait up to timeout_ms for samples and read every ring buffer.
 * Returns 1 once the program has exited (its wait status in
 * top_wait_status()), 0 otherwise.
 */
int top_poll(struct top *t, int timeout_ms);

/*
 * Read the maps and context tables again and add the samples read
 * since.  The re-read is skipped (the samples wait) until 20 times its
 * last cost has passed, unless final.
 */
void top_update(struct top *t, int final);

/* Ask the program to end (SIGTERM), for a user who quits top early. */
void top_stop_program(struct top *t);

pid_t top_pid(const struct top *t);
int top_wait_status(const struct top *t);
/* Every process of the program seen so far (for cleaning up maps). */
const pid_t *top_pids(const struct top *t, size_t *nr);
void top_stats(const struct top *t, struct top_stats *st);
/* Close the event and free everything (the profile stays). */
void top_free(struct top *t);

#endif
