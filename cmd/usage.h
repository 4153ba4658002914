/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_USAGE_H
#define PPR_USAGE_H
#include "compat.h"

/*
 * Messages and usage for cmd/ (lib/ never prints).  Every message has
 * the shape "<prog>: <lowercase message>[: <strerror>]", where prog is
 * "pyperf-run" or "pyperf-run <command>" (set by the dispatcher).
 */
extern const char *ppr_prog;

void set_prog(const char *prog);

/* Print "<prog>: <msg>" on stderr; return -1. */
int error(const char *fmt, ...) PPR_PRINTF(1, 2);
/* Like error(), with ": strerror(errno)" appended (errno is saved first). */
int error_errno(const char *fmt, ...) PPR_PRINTF(1, 2);
/* Like error(), with ": strerror(-err)" appended (for lib's -errno). */
int error_code(int neg_errno, const char *fmt, ...) PPR_PRINTF(2, 3);
/* "<prog>: warning: <msg>" */
void warning(const char *fmt, ...) PPR_PRINTF(1, 2);
/* "<prog>: note: <msg>": what -v adds (a quality note, not a warning) */
void note(const char *fmt, ...) PPR_PRINTF(1, 2);
/* "hint: <msg>" (follows an error) */
void hint(const char *fmt, ...) PPR_PRINTF(1, 2);
/* Print the message and exit with code. */
PPR_NORETURN void die(int code, const char *fmt, ...) PPR_PRINTF(2, 3);

/*
 * A command's usage: NULL-terminated synopsis lines, then an options
 * text (may be NULL).  usage_print() writes
 *     usage: <line 1>
 *        or: <line 2>
 *     <blank>
 *     <options>
 * The synopsis lines must equal the man page's SYNOPSIS (tested).
 */
struct usage {
	const char *const *synopsis;
	const char *options;
};

void usage_print(const struct usage *u, FILE *fp);
/* Usage error: "<prog>: <msg>", a hint line, exit with code. */
PPR_NORETURN void usage_error(const struct usage *u, int code,
			      const char *fmt, ...) PPR_PRINTF(3, 4);

/*
 * getopt_long() returned ':' (a missing value) or '?' (an unknown
 * option; opterr = 0): the usage error for it.  argv and optind are
 * getopt's.
 */
PPR_NORETURN void usage_bad_option(const struct usage *u, int code, int c,
				   char **argv);

/* Install the out-of-memory handler that prints and exits 125. */
void usage_install_oom(void);

#endif
