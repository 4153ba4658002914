/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_RUN_PRIV_H
#define PPR_RECORD_RUN_PRIV_H
#include "compat.h"
#include "record/run.h"
#include "record/status.h"
#include "strbuf.h"

/*
 * The parts of record's pipeline (run.h), internal to lib/record/: the
 * backend the decision chose, and the jobs run.c hands out.
 */

/*
 * What records: perf record (perfrun.c) or the frame walker (bpfrun.c),
 * chosen once by the decision (r->backend, record_prepare()).
 */
struct record_backend {
	/*
	 * The session directory exists: the program's environment, and
	 * what runs it (perf record's commands, the exec helper).
	 */
	enum record_outcome (*prepare)(struct record_run *r);
	/* Run the program (or attach) and record. */
	enum record_outcome (*execute)(struct record_run *r);
	/* finish: the run's own files into the session; may be NULL. */
	void (*collect)(struct record_run *r);
};

extern const struct record_backend record_perf_backend;
extern const struct record_backend record_walker_backend;

/* supervise.c: perf and its helpers run, signals passed on, waits. */

/*
 * Run r's perf record (r->perf_argv, r->env) with its stderr into perr;
 * returns its wait status or -errno.  Ctrl-C is for the program (and
 * perf): we ignore it; a SIGTERM/SIGHUP sent to us alone is passed
 * through the exec helper (its pid in r->statusf) to the program.
 * --duration S with a program: after S seconds the program gets SIGINT,
 * as from Ctrl-C, and SIGTERM if it still runs RECORD_DURATION_GRACE
 * seconds later (said through r's callback); perf records until it has
 * ended.
 */
int record_run_perf(struct record_run *r, struct strbuf *perr,
		    char *err, size_t errlen);

/*
 * --duration with a program (both backends, RECORD_DURATION_GRACE in
 * run.h): what record says at each step.
 */
/* CLOCK_MONOTONIC in seconds: --duration's clock */
double record_mono_now(void);
void record_say_duration_stop(struct record_run *r, pid_t pid);
void record_say_duration_term(struct record_run *r, pid_t pid);
/*
 * --max-size stopped the recording (r->max_size_stop, max_size_bytes
 * set): said once, as a note, with what became of the program (after:
 * ": the program runs on, not recorded", or "").
 */
void record_say_max_size_stop(struct record_run *r, const char *after);
/*
 * perf record's line when it stops at its --max-size (perf 6.1:
 * "[ perf record: perf size limit reached (309 KB), stopping session
 * ]"); record_run_perf() notes the time it comes.
 */
#define RECORD_PERF_MAX_SIZE_LINE "perf size limit reached"
/*
 * The exec helper outlived perf: wait for it and read the program's
 * status from statusf.
 */
enum record_status_kind record_wait_helper(const char *statusf,
					   pid_t exec_pid, int *value);
/*
 * Run a helper perf command (its output dropped, its stderr into
 * errout), in its own process group: a late Ctrl-C does not cut it.
 */
int record_run_quiet(const char *const *argv, struct strbuf *errout);

/*
 * inject.c: mend the jitdumps the run's ended processes wrote, then
 * perf inject --jit r->raw into r->data (raw kept as data on failure,
 * said).
 */
void record_inject(struct record_run *r);

/* meta.c: r's facts into r->meta (written by the caller). */
void record_write_meta(struct record_run *r);

/*
 * judge.c: read the finished session (still in r->tmp) back as report
 * does (profile_load(), which judges every sample's stack and leaves
 * the report cache behind, so that the first report is fast), say its
 * warnings and the hints the judgement backs, and keep the share of cut
 * stacks in meta (written again).
 */
void record_judge_session(struct record_run *r);

#endif
