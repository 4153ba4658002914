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
 * Memory is bounded by the largest sample, not the stream.
 */
#include "compat.h"

/*
 * The -F argument report passes to perf script; time is asked for only
 * when needed (a time window), since formatting it costs perf ~5%.
 */
#define PERFSCRIPT_FIELDS "comm,pid,tid,period,event,ip,sym,dso"
#define PERFSCRIPT_FIELDS_TIME "comm,pid,tid,time,period,event,ip,sym,dso"

struct ps_str {
	const char *s;		/* not NUL-terminated */
	size_t len;
};

struct ps_frame {
	uint64_t ip;
	struct ps_str sym;	/* "[unknown]" when perf has no symbol */
	struct ps_str dso;	/* "[unknown]" when perf has no object */
};

struct ps_sample {
	struct ps_str comm;
	pid_t pid;
	pid_t tid;
	uint64_t time_ns;	/* perf clock, nanoseconds (0: not shown) */
	uint64_t period;
	struct ps_str event;	/* without the trailing ':' */
	const struct ps_frame *frames;	/* leaf first */
	size_t nr_frames;
	/*
	 * The user stack copy (jit mode), from the native reader only:
	 * perf script does not print it.  dump_full: the kernel copied
	 * all it was asked (the stack may go on); dump_sp: the sample's
	 * sp (0: unknown); dump_len: the bytes copied.
	 */
	unsigned dump_known : 1, dump_full : 1;
	uint64_t dump_sp, dump_len;
};

/* Return 0 to go on, anything else to stop the parse (returned). */
typedef int (*ps_sample_fn)(void *data, const struct ps_sample *s);

struct perfscript {
	ps_sample_fn cb;
	void *data;
	/* the unconsumed tail: the sample being read */
	char *buf;
	size_t len, alloc;
	struct ps_frame *frames;
	size_t nr_frames, frames_alloc;
	int in_sample;		/* a valid header was read */
	int skip_sample;	/* header was bad: skip to the blank line */
	struct ps_sample cur;
	size_t header_off;	/* offsets into buf of the current sample */
	/* statistics */
	uint64_t bytes;		/* bytes fed */
	uint64_t samples;	/* samples delivered */
	uint64_t bad_lines;	/* lines skipped */
	uint64_t lines;
};

void perfscript_init(struct perfscript *ps, ps_sample_fn cb, void *data);
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
			    struct ps_sample *s);
int perfscript_parse_frame(const char *line, size_t len,
			   struct ps_frame *f);

#endif
