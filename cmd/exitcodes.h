/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_EXITCODES_H
#define PPR_EXITCODES_H
/*
 * Every exit status pyperf-run uses, in one place.  The man pages'
 * EXIT STATUS sections document them per command.
 *
 * record follows timeout(1): its own failures are 125, a command that
 * cannot be executed 126, one that is not found 127; otherwise the
 * profiled program's status (a signal death N becomes 128+N).
 */
enum ppr_exit {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* doctor: something blocks profiling;
				   report and others: the command failed */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_INTERNAL = 125,	/* record: pyperf-run itself failed */
	EXIT_CANNOT_EXEC = 126,	/* record: command found, not executable */
	EXIT_NOT_FOUND = 127,	/* record: command not found */
};

#endif
