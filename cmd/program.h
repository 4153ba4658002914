/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_CMD_PROGRAM_H
#define PPR_CMD_PROGRAM_H
/*
 * What `record` and `top` share on their command lines: how the program
 * is run (--python, --mode, --trampoline, -F, --stack-size) and the
 * program itself (<script.py>, -m <module>, -c <code> or -- <command>,
 * then its arguments).  Usage errors exit through usage_error() with
 * the caller's usage.
 */
#include "record/run.h"

struct usage;

/* getopt_long values of the long options, for both commands' tables */
enum {
	PROGRAM_OPT_PYTHON = 0x1000,
	PROGRAM_OPT_MODE,
	PROGRAM_OPT_TRAMPOLINE,
	PROGRAM_OPT_STACK,
	PROGRAM_OPT_DURATION,
};

#define PROGRAM_LONGOPTS \
	{ "python", required_argument, NULL, PROGRAM_OPT_PYTHON }, \
	{ "mode", required_argument, NULL, PROGRAM_OPT_MODE }, \
	{ "trampoline", required_argument, NULL, PROGRAM_OPT_TRAMPOLINE }, \
	{ "freq", required_argument, NULL, 'F' }, \
	{ "stack-size", required_argument, NULL, PROGRAM_OPT_STACK }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "duration", required_argument, NULL, PROGRAM_OPT_DURATION }

/*
 * Take option c (with optarg) into ro if it is one of the shared ones:
 * returns 1 then, 0 for another option.  -m and -c end the options:
 * *stop is set.
 */
int program_option(int c, const char *optarg, struct record_options *ro,
		   int *stop, const struct usage *u);

/* A number of seconds (more than 0, at most 1e6) for option opt. */
double program_parse_seconds(const char *opt, const char *s,
			     const struct usage *u);

/*
 * The program after the options (argv[optind...]): the script or
 * command and its arguments, or the arguments of -m / -c.  what names
 * the command's action in the error ("nothing to record").
 */
void program_target(int argc, char **argv, int optind,
		    struct record_options *ro, const struct usage *u,
		    const char *what);

#endif
