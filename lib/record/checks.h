/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_CHECKS_H
#define PPR_RECORD_CHECKS_H
#include "compat.h"
#include "record/run.h"
#include "spawn.h"

/*
 * What record checks before it starts anything, and how it explains a
 * failed perf record; internal to lib/record/.  Functions taking the run
 * report through its message callback and return RECORD_OK or why not.
 */

/* How much of a helper command's stderr is kept. */
#define RECORD_HELPER_STDERR_MAX 65536

/* A message to the run's callback (printf-style). */
/*
 * r->freq: want (samples a second) capped at the kernel's
 * perf_event_max_sample_rate, with a warning when it was lowered.
 */
void record_cap_frequency(struct record_run *r, unsigned long want);

void record_say(struct record_run *r, enum record_msg_level level,
		const char *fmt, ...) PPR_PRINTF(3, 4);
/* A tool's own output lines, under the message before. */
void record_say_output(struct record_run *r, const char *text);

/* The script exists, can be read and is not a directory. */
enum record_outcome record_check_script(struct record_run *r,
					const char *path);
/*
 * The command (-- command) can be found in PATH and run: its file goes
 * into r->program_path, the one that record's helper and top run.
 */
enum record_outcome record_check_command(struct record_run *r,
					 const char *cmd);
/* Run `perf version`: v parsed, line its first line.  0 or -1. */
int record_perf_version(const char *perf, struct perf_version *v,
			char *line, size_t linelen);
/* perf record ended with wait status st and stderr perr: say why. */
enum record_outcome record_explain_perf_failure(struct record_run *r, int st,
						const char *perr);

/*
 * Can perf open the event at all (not permitted, not supported)?  A
 * quick `perf stat` of an empty shell command tells before anything is
 * started.  It runs while the interpreter is probed: start it, then
 * read its verdict with finish, or abandon it when it is not wanted.
 */
struct event_check {
	struct spawn sp;
	int started;
	char err[PPR_ERR_LEN];
};

void record_check_event_start(struct event_check *c, const char *perf,
			      const char *event);
void record_check_event_abandon(struct event_check *c);
enum record_outcome record_check_event_finish(struct record_run *r,
					      struct event_check *c,
					      const char *event);

/*
 * perf's stderr filter: drop perf record's "[ perf record: ... ]"
 * progress lines from perr.
 */
void record_drop_perf_progress(struct strbuf *perr);

/* Read fd to its end into sb (may be NULL), keeping at most max bytes. */
void record_read_all(int fd, struct strbuf *sb, size_t max);

#endif
