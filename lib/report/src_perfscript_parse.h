/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PERFSCRIPT_H
#define PPR_PERFSCRIPT_H
/*
 * A streaming parser of `perf script` text with callchains, as produced
 * with PERFSCRIPT_FIELDS or PERFSCRIPT_FIELDS_TIME:
 *
 *   COMM PID/TID [TIME:] [PERIOD] EVENT:
 *   <TAB><spaces>IP SYMBOL (DSO)
 *   ...                                   (leaf first)
 *   <empty line>
 *
 * COMM may contain spaces (the header is read right to left); SYMBOL
 * may contain spaces and parentheses (the DSO is the last balanced
 * parenthesised group).  Lines that fit neither shape are counted in
 * bad_lines and skipped; a sample without a valid header is dropped.
 * Memory is bounded by the largest sample, not the stream.  Samples
 * come as struct sample (report/sample.h): one sample each, address
 * frames, no stack-dump facts (perf script does not print them).
 */
#include "compat.h"
#include "report/sample.h"

/*
 * The -F argument report passes to perf script; time is asked for only
 * when needed (a time window), since formatting it costs perf ~5%.
 */
#define PERFSCRIPT_FIELDS "comm,pid,tid,period,event,ip,sym,dso"
#define PERFSCRIPT_FIELDS_TIME "comm,pid,tid,time,period,event,ip,sym,dso"

/*
 * A task record, as `perf script --show-task-events` shows it between
 * the samples, in time order: "COMM PID/TID [TIME:] PERF_RECORD_FORK(
 * PID:TID):(PPID:PTID)", "...EXIT(...)", "...COMM exec: NAME:PID/TID"
 * (the exec; a COMM without it is a rename: PS_TASK_OTHER).
 */
enum ps_task_kind {
	PS_TASK_OTHER = 0,
	PS_TASK_FORK,
	PS_TASK_EXIT,
	PS_TASK_EXEC
};

struct ps_task {
	enum ps_task_kind kind;
	pid_t pid, tid;		/* the task (EXEC: the exec'ing one) */
	pid_t ppid, ptid;	/* FORK, EXIT: its parent */
};

/* Called with the parser's data for each task record. */
typedef void (*ps_task_fn)(void *data, const struct ps_task *t);

struct perfscript {
	sample_fn cb;
	void *data;
	ps_task_fn task_cb;	/* may be NULL: task records skipped */
	/* the unconsumed tail: the sample being read */
	char *buf;
	size_t len, alloc;
	struct sample_frame *frames;
	size_t nr_frames, frames_alloc;
	int in_sample;		/* a valid header was read */
	int skip_sample;	/* header was bad: skip to the blank line */
	struct sample cur;
	size_t header_off;	/* offsets into buf of the current sample */
	/* statistics */
	uint64_t bytes;		/* bytes fed */
	uint64_t samples;	/* samples delivered */
	uint64_t bad_lines;	/* lines skipped */
	uint64_t tasks;		/* task records read */
	uint64_t lines;
};

void perfscript_init(struct perfscript *ps, sample_fn cb, void *data);
void perfscript_release(struct perfscript *ps);

/*
 * Feed len bytes of the stream.  Returns 0, or the callback's non-zero
 * value (parsing stops; feed no more).
 */
int perfscript_feed(struct perfscript *ps, const char *data, size_t len);
/* End of stream: deliver a last sample without its blank line. */
int perfscript_finish(struct perfscript *ps);

/*
 * Parse a single header or frame line (without its newline); for tests
 * and fuzzing.  Return 0 when the line has that shape.
 */
int perfscript_parse_header(const char *line, size_t len,
			    struct sample *s);
/* 0 when the line is a task record (t->kind may be PS_TASK_OTHER). */
int perfscript_parse_task(const char *line, size_t len, struct ps_task *t);
int perfscript_parse_frame(const char *line, size_t len,
			   struct sample_frame *f);

#endif
