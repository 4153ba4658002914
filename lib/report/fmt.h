/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_FMT_H
#define PPR_FMT_H
/*
 * Report writers.  Each turns a loaded profile (lib/report/profile.h) into one
 * format on a FILE * the caller owns (the caller opens, flushes and
 * closes it and checks for write errors; writers may also return -1 on
 * a write error they notice).  Writers never print: on failure they
 * return -1 (or -errno) and fill err.
 *
 * The profile already reflects the view (python / mixed / all), the
 * pid/tid/time filters, the grouping (merged / per process / per
 * thread) and the --min-share pruning; writers write what they get.
 * When p->group is not PROFILE_MERGED, stacks carry a task index and
 * per-task formats (speedscope, json) write one profile per task;
 * the others may merge them.
 */
#include "compat.h"
#include "report/profile.h"

enum fmt_format {
	FMT_TEXT = 0,
	FMT_COLLAPSED,
	FMT_JSON,
	FMT_HTML,
	FMT_SVG,
	FMT_SPEEDSCOPE,
	FMT_PPROF,
	/*
	 * perf.data with the Python frames in place, and its perf maps
	 * (report/fmt_perfdata.h): written from the session, not from a
	 * profile; its writer here only fails, saying so.
	 */
	FMT_PERF_DATA,
	FMT_NR
};

struct fmt_opts {
	enum fmt_format format;
	const char *title;	/* NULL: derived from p->command */
	int inverted;		/* html/svg/text tree: start bottom-up */
	/* text */
	unsigned top;		/* rows in the top-functions tables (0: 20) */
	int tree;		/* also print the call tree */
	double tree_min_share;	/* tree: hide nodes below this share
				   (0: 1%) */
	int color;		/* text: ANSI colours (stdout is a tty) */
	int verbose;		/* text: every note (fmt_notes()) */
	/* collapsed */
	int collapsed_pid;	/* prefix each stack with "comm-pid" / "comm-
				   pid/tid" roots when grouped (FlameGraph's
				   --pid / --tid style) */
};

#define FMT_OPTS_INIT { FMT_TEXT, NULL, 0, 0, 0, 0.0, 0, 0, 1 }

/* "text" -> FMT_TEXT ...; -1 when unknown. */
int fmt_parse(const char *name);
const char *fmt_name(enum fmt_format f);
/*
 * Is the output binary (pprof: gzipped protobuf; perf-data)?  cmd/
 * refuses a tty.
 */
int fmt_is_binary(enum fmt_format f);

typedef int (*fmt_write_fn)(const struct profile *p,
			    const struct fmt_opts *o, FILE *fp,
			    char *err, size_t errlen);

/*
 * The writer for f (never NULL for f < FMT_NR).  A format this build
 * left out (fmt_unavailable()) has a writer that fails with the reason.
 */
fmt_write_fn fmt_writer(enum fmt_format f);
/*
 * Why this build cannot write f (a sentence saying how to get it), or
 * NULL: pprof needs libprotobuf-c at build time.
 */
const char *fmt_unavailable(enum fmt_format f);

/* Views: text, folded stacks, JSON. */
/*
 * One of the text report's top-functions tables (by self time, or by
 * total time with by_total), at most o->top rows: `pyperf-run top`'s
 * screen.
 */
void fmt_text_top(const struct profile *p, const struct fmt_opts *o,
		  FILE *fp, int by_total);
int fmt_text_write(const struct profile *p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen);
/*
 * The text report's wakers tables (who made whom wait, the GIL's
 * holders), when p counted wakes (profile_filter's wakers or
 * wake_table): `pyperf-run top --wakers`'s screen.
 */
void fmt_text_wakers(const struct profile *p, const struct fmt_opts *o,
		     FILE *fp);
int fmt_collapsed_write(const struct profile *p, const struct fmt_opts *o,
			FILE *fp, char *err, size_t errlen);
int fmt_json_write(const struct profile *p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen);

/* Flame graphs and interchange formats. */
int fmt_html_write(const struct profile *p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen);
int fmt_svg_write(const struct profile *p, const struct fmt_opts *o,
		  FILE *fp, char *err, size_t errlen);
int fmt_speedscope_write(const struct profile *p, const struct fmt_opts *o,
			 FILE *fp, char *err, size_t errlen);
/* Only in builds with libprotobuf-c (PPR_HAVE_PROTOBUF_C). */
int fmt_pprof_write(const struct profile *p, const struct fmt_opts *o,
		    FILE *fp, char *err, size_t errlen);

/*
 * The differential report between two sessions loaded with the same
 * filter: o->format is FMT_COLLAPSED (FlameGraph's difffolded lines:
 * "stack samples_old samples_new") or FMT_HTML (a differential flame
 * graph).  Other formats, and profiles in two units (p->unit): -1 with
 * err filled.
 */
int fmt_diff_write(const struct profile *old_p, const struct profile *new_p,
		   const struct fmt_opts *o, FILE *fp, char *err,
		   size_t errlen);

/*
 * The name of frame f in the collapsed format: f->name, plus "_[k]" for
 * kernel frames.  Written to fp (no separator).
 */
void fmt_collapsed_name(FILE *fp, const struct frame *f);

/*
 * A time people read at a glance (text and flame graphs; json and
 * pprof keep nanoseconds): three significant digits in the largest unit
 * that keeps one before the point, "2.90 s", "58.2 ms", "731 us",
 * "40 ns" (seconds past 999 keep all their digits).  Returns buf.
 */
#define FMT_TIME_LEN 32
char *fmt_time_ns(uint64_t ns, char *buf, size_t len);

/*
 * A weight of p in its unit as the text and the flame graphs show it:
 * a time (fmt_time_ns()) in nanoseconds, else the number.
 */
char *fmt_weight(const struct profile *p, uint64_t w, char *buf, size_t len);

/*
 * Every warning a report of p must show, in order: p->warnings, then
 * the ones the session's meta implies when the load did not judge the
 * stacks itself (p->quality.judged == 0): record's "truncated" share.
 * One sentence each, no trailing period or newline.  All formats show
 * exactly these; --format collapsed has no place for them (a comment
 * line would be read as a stack by flamegraph.pl and speedscope), so
 * its caller prints them on stderr.  Returns the number of warnings;
 * *out is an array of them (NULL when none) to free with
 * fmt_warnings_free().
 */
size_t fmt_warnings(const struct profile *p, char ***out);
/*
 * p->notes, one line each, as fmt_warnings() gives the warnings (free
 * them with fmt_warnings_free()).  json lists them; text and collapsed
 * with --verbose, else text says how many; html and svg show them
 * apart from the warnings; pprof as comments "note: ...".
 */
size_t fmt_notes(const struct profile *p, char ***out);
void fmt_warnings_free(char **w, size_t n);

#endif
