/* SPDX-License-Identifier: GPL-2.0-only */
/* The program options record and top share (see program.h). */
#include "compat.h"
#include "mode.h"
#include "numparse.h"
#include "perfcmd.h"
#include "program.h"
#include "exitcodes.h"
#include "usage.h"

#include <getopt.h>

double program_parse_seconds(const char *opt, const char *s,
			     const struct usage *u)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e6)
		usage_error(u, EXIT_INTERNAL, "%s needs a number of seconds, "
			    "not '%s'", opt, s);
	return v;
}

/* -p PID[,PID...]: running processes to attach to (repeatable). */
static void program_parse_pids(const char *arg, struct record_options *ro,
			       const struct usage *u)
{
	const char *p = arg;

	while (*p) {
		size_t n = strcspn(p, ",");
		char buf[24];
		long v;

		if (!n || n >= sizeof(buf))
			usage_error(u, EXIT_INTERNAL, "-p needs process ids "
				    "separated by commas, not '%s'", arg);
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (parse_long(buf, 10, 1, 4194304, &v))
			usage_error(u, EXIT_INTERNAL, "-p needs process ids "
				    "separated by commas, not '%s'", arg);
		if (ro->nr_pids >= RECORD_MAX_PIDS)
			usage_error(u, EXIT_INTERNAL, "-p takes at most %d "
				    "processes", RECORD_MAX_PIDS);
		ro->pids[ro->nr_pids++] = (pid_t)v;
		p += n;
		if (*p == ',')
			p++;
	}
	if (!ro->nr_pids)
		usage_error(u, EXIT_INTERNAL, "-p needs a process id");
}

int program_option(int c, const char *optarg, struct record_options *ro,
		   int *stop, const struct usage *u)
{
	switch (c) {
	case PROGRAM_OPT_PYTHON:
		ro->python = optarg;
		return 1;
	case PROGRAM_OPT_MODE:
		if (mode_parse(optarg, &ro->mode))
			usage_error(u, EXIT_INTERNAL, "--mode must be auto, "
				    "perf, jit or bpf, not '%s'", optarg);
		return 1;
	case PROGRAM_OPT_TRAMPOLINE:
		if (mode_trampoline_parse(optarg, &ro->trampoline))
			usage_error(u, EXIT_INTERNAL, "--trampoline must be "
				    "auto, native or embedded, not '%s'",
				    optarg);
		ro->trampoline_given = 1;
		return 1;
	case 'F':
		if (parse_ulong(optarg, 10, 1000000, &ro->freq) || !ro->freq)
			usage_error(u, EXIT_INTERNAL, "-F needs a frequency "
				    "in Hz (1 to 1000000), not '%s'", optarg);
		return 1;
	case PROGRAM_OPT_STACK:
		if (parse_ulong(optarg, 10, PERF_STACK_DUMP_MAX,
				&ro->stack_size) ||
		    !ro->stack_size || ro->stack_size % 8)
			usage_error(u, EXIT_INTERNAL, "--stack-size needs a "
				    "multiple of 8 from 8 to %u, not '%s'",
				    PERF_STACK_DUMP_MAX, optarg);
		return 1;
	case 'p':
		program_parse_pids(optarg, ro, u);
		return 1;
	case PROGRAM_OPT_DURATION:
		ro->duration = program_parse_seconds("--duration", optarg, u);
		return 1;
	case 'm':
	case 'c':
		ro->kind = c == 'm' ? RECORD_TARGET_MODULE : RECORD_TARGET_CODE;
		ro->what = optarg;
		*stop = 1;
		return 1;
	}
	return 0;
}

void program_target(int argc, char **argv, int optind,
		    struct record_options *ro, const struct usage *u,
		    const char *what)
{
	if (ro->nr_pids) {
		/* attaching: the processes are the target */
		if (optind < argc || ro->kind != RECORD_TARGET_SCRIPT)
			usage_error(u, EXIT_INTERNAL, "-p attaches to running "
				    "processes: give no program too");
		ro->kind = RECORD_TARGET_PIDS;
		return;
	}
	if (ro->kind == RECORD_TARGET_MODULE || ro->kind == RECORD_TARGET_CODE) {
		ro->args = argv + optind;
		ro->nr_args = argc - optind;
		return;
	}
	if (optind >= argc)
		usage_error(u, EXIT_INTERNAL, "nothing to %s: give a script, "
			    "-m, -c or -- and a command, or -p PID", what);
	ro->kind = !strcmp(argv[optind - 1], "--") && optind > 1 ?
		RECORD_TARGET_COMMAND : RECORD_TARGET_SCRIPT;
	ro->what = argv[optind];
	ro->args = argv + optind + 1;
	ro->nr_args = argc - optind - 1;
}
