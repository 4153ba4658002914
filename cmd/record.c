/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run record: run a Python program under perf record with Python
 * frames, and leave a self-contained session directory behind.  The
 * pipeline is lib/record/run.c; this file parses the options, prints
 * its messages and picks the exit code.
 */
#include "compat.h"
#include "doctor/debugpkg.h"
#include "mode.h"
#include "numparse.h"
#include "perfcmd.h"
#include "perfdata.h"
#include "record/run.h"
#include "report/profile.h"
#include "session.h"
#include "spawn.h"
#include "strbuf.h"
#include "builtin.h"
#include "program.h"
#include "exitcodes.h"
#include "usage.h"

#include <getopt.h>
#include <unistd.h>

static const char *const record_synopsis[] = {
	"pyperf-run record [<options>] <script.py> [<args>...]",
	"pyperf-run record [<options>] -m <module> [<args>...]",
	"pyperf-run record [<options>] -c <code> [<args>...]",
	"pyperf-run record [<options>] -- <command> [<args>...]",
	"pyperf-run record [<options>] -p <pid>[,<pid>...] [--duration <seconds>]",
	NULL
};

static const char record_options[] =
"    -o, --output <dir>     the session directory (default: pyperf.data;\n"
"                           an existing one is kept as <dir>.old)\n"
"    --python <path>        the interpreter (default: python3 on PATH)\n"
"    --perf <path>          the perf to record with (default: $PYPERF_PERF,\n"
"                           or perf on PATH); report uses it too\n"
"    --mode auto|perf|jit|bpf\n"
"                           how to get Python frames (default: auto, the\n"
"                           mode 'pyperf-run doctor' shows); bpf: walk\n"
"                           them in the kernel, the program unchanged\n"
"                           (root, or CAP_BPF and CAP_PERFMON): auto's\n"
"                           choice where it can run\n"
"    -p, --pid <pid>[,<pid>...]\n"
"                           attach to running processes (bpf mode) and\n"
"                           record until --duration or Ctrl-C\n"
"    --duration <seconds>   stop recording after this long; -p: detach\n"
"                           (the processes run on); a program gets\n"
"                           SIGINT, as from Ctrl-C, and SIGTERM if it\n"
"                           still runs 3 s later\n"
"    --max-size <size>      stop recording once perf.data holds <size>\n"
"                           (bytes, or with K, M, G, T for KiB to TiB);\n"
"                           the program runs on, untouched, and the\n"
"                           session keeps what was recorded\n"
"    --trampoline auto|native|embedded\n"
"                           whose trampoline: pyperf-run's (embedded,\n"
"                           CPython 3.8-3.13) or CPython's own -X perf\n"
"                           (native, 3.12+); auto: embedded, else native\n"
"    -F, --freq <hz>        samples per second (default: 999; at most the\n"
"                           kernel's perf_event_max_sample_rate)\n"
"    --stack-size <bytes>   stack bytes copied per sample, a multiple of 8:\n"
"                           jit mode, at most 65528 (default: by build);\n"
"                           bpf mode, at most 32768 (the default)\n"
"    -e, --event <event>    the perf event (default: cpu-clock)\n"
"    --perf-arg <arg>       pass <arg> to perf record (repeatable)\n"
"    --wall                 also record when each thread waits, and on\n"
"                           what (report's wall and off-cpu clocks)\n"
"    --wakers               with --wall, bpf mode: also who ended each\n"
"                           wait, and its stack (report --wakers)\n"
"    --keep-stack-copy      bpf mode: keep each sample's copy of the user\n"
"                           stack for report to unwind, as before (about\n"
"                           8 KB a sample; for checking the unwinding\n"
"                           done while recording)\n"
"    -q, --quiet            print only errors and warnings\n"
"    -v, --verbose          also the notes (cut stacks and unnamed code\n"
"                           under 1% of the Python program's samples, or\n"
"                           outside it) and debug-symbol hints for every\n"
"                           object without symbols\n"
"    -h, --help             print this help\n";

const struct usage record_usage = { record_synopsis, record_options };

struct record_cli {
	struct record_options ro;
	struct strvec perf_args;
	int quiet;
	int verbose;
};

/* --- option parsing ------------------------------------------------------ */

#define bad_usage(...) usage_error(&record_usage, EXIT_INTERNAL, __VA_ARGS__)

static void parse_options(int argc, char **argv, struct record_cli *o)
{
	enum { OPT_PERF_ARG = 256, OPT_PERF, OPT_WALL, OPT_WAKERS,
	       OPT_MAX_SIZE, OPT_KEEP_STACK_COPY };
	static const struct option longopts[] = {
		PROGRAM_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "perf-arg", required_argument, NULL, OPT_PERF_ARG },
		{ "perf", required_argument, NULL, OPT_PERF },
		{ "wall", no_argument, NULL, OPT_WALL },
		{ "wakers", no_argument, NULL, OPT_WAKERS },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "keep-stack-copy", no_argument, NULL, OPT_KEEP_STACK_COPY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, stop = 0;

	opterr = 0;
	optind = 1;
	while (!stop &&
	       (c = getopt_long(argc, argv, "+:o:F:e:p:qvhm:c:", longopts,
				NULL)) != -1) {
		if (program_option(c, optarg, &o->ro, &stop, &record_usage))
			continue;
		switch (c) {
		case 'o':
			o->ro.output = optarg;
			break;
		case 'e':
			if (!*optarg)
				bad_usage("-e needs an event");
			o->ro.event = optarg;
			break;
		case OPT_PERF_ARG:
			strvec_push(&o->perf_args, optarg);
			break;
		case OPT_PERF:
			if (!*optarg)
				bad_usage("--perf needs a path");
			o->ro.perf = optarg;
			break;
		case OPT_WALL:
			o->ro.wall = 1;
			break;
		case OPT_WAKERS:
			o->ro.wakers = 1;
			break;
		case OPT_KEEP_STACK_COPY:
			o->ro.keep_stack_copy = 1;
			break;
		case OPT_MAX_SIZE:
			/* perf takes bytes as an unsigned long: 2^63 is plenty */
			if (parse_size(optarg, 1, (uint64_t)INT64_MAX,
				       &o->ro.max_size))
				bad_usage("--max-size needs a size in bytes "
					  "(more than 0), or with K, M, G or "
					  "T for KiB, MiB, GiB or TiB, not "
					  "'%s'", optarg);
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			usage_print(&record_usage, stdout);
			exit(fflush(stdout) ? EXIT_INTERNAL : EXIT_OK);
		default:
			usage_bad_option(&record_usage, EXIT_INTERNAL, c, argv);
		}
	}
	program_target(argc, argv, optind, &o->ro, &record_usage, "record");
	if (o->ro.wakers && !o->ro.wall)
		bad_usage("--wakers names who ended the waits --wall records: "
			  "give --wall too");
	if (o->ro.nr_pids && o->ro.mode != MODE_AUTO &&
	    o->ro.mode != MODE_BPF)
		bad_usage("-p attaches with the frame walker: --mode bpf (or "
			  "auto), not --mode %s", mode_name_str(o->ro.mode));
}

/* --- printing ------------------------------------------------------------ */

/* A tool's own lines, indented; at most OUTPUT_MAX_LINES of them. */
#define OUTPUT_MAX_LINES 20

static void print_indented(const char *text)
{
	const char *p = text;
	int lines = 0;

	while (*p && lines < OUTPUT_MAX_LINES) {
		size_t n = strcspn(p, "\n");

		if (n)
			fprintf(stderr, "    %.*s\n", (int)n, p);
		lines++;
		p += n;
		if (*p)
			p++;
	}
}

struct printer {
	int quiet;
	int shown;	/* the last message was printed */
};

static void print_message(void *data, enum record_msg_level level,
			  const char *text)
{
	struct printer *pr = data;

	switch (level) {
	case RECORD_MSG_ERROR:
		error("%s", text);
		break;
	case RECORD_MSG_WARNING:
		warning("%s", text);
		break;
	case RECORD_MSG_HINT:
		hint("%s", text);
		break;
	case RECORD_MSG_NOTE:
		pr->shown = !pr->quiet;
		if (pr->shown)
			fprintf(stderr, "pyperf-run: %s\n", text);
		return;
	case RECORD_MSG_OUTPUT:
		if (pr->shown)
			print_indented(text);
		return;
	}
	pr->shown = 1;
}

static int exit_code(enum record_outcome outcome)
{
	switch (outcome) {
	case RECORD_OK:
		return EXIT_OK;
	case RECORD_NOT_FOUND:
		return EXIT_NOT_FOUND;
	case RECORD_CANNOT_EXEC:
		return EXIT_CANNOT_EXEC;
	case RECORD_FAILED:
		break;
	}
	return EXIT_INTERNAL;
}

/* argv: --internal-exec STATUS ERRFD FILE -- PROG [ARGS...] (run.h) */
static int record_internal_exec(int argc, char **argv)
{
	struct printer pr = { 0, 0 };
	enum record_outcome outcome;
	long errfd;
	int st = 0;

	if (argc < 7 || strcmp(argv[5], "--") ||
	    parse_long(argv[3], 10, 0, 1 << 20, &errfd))
		return error("bad internal invocation"), EXIT_INTERNAL;
	outcome = record_exec_program(argv[2], (int)errfd, argv[4], argv + 6,
				      &st, print_message, &pr);
	return outcome ? exit_code(outcome) : spawn_exit_code(st);
}

/* -v: the notes the warnings left out (the report's notes). */
static void print_notes(const struct record_run *r)
{
	size_t i;

	for (i = 0; i < r->notes.nr; i++)
		note("%s", r->notes.v[i]);
}

/*
 * After the warning on code without symbols (record_finish() finds
 * the objects, 1 % of the samples or more each): which package
 * holds the debug symbols of each object it is in, by build-id
 * (debugpkg.h; its answers are cached, so this costs apt's time once).
 * Only the objects where the Python program's own samples landed
 * unnamed, 1 % of them or more (stage_quality.h): debug symbols for the
 * shell that started it, or for sleep, change nothing in its answer;
 * with -v every object.
 */
static void debug_symbol_hint(const char *path)
{
	const char *base = strrchr(path, '/');
	struct strbuf sb = STRBUF_INIT;
	struct debugpkg k;

	debugpkg_lookup(path, &k);
	/* installed since, or named some other way: nothing to do */
	if (k.verdict == DEBUGPKG_INSTALLED)
		return;
	strbuf_addf(&sb, "[%s] (%s): ", base ? base + 1 : path,
		    k.path[0] ? k.path : path);
	debugpkg_advice(&k, &sb);
	hint("%s", sb.buf);
	strbuf_release(&sb);
}

static void debug_symbols_hint(const struct record_run *r, int verbose)
{
	size_t i, j;

	for (i = 0; i < r->program_unnamed.nr; i++)
		debug_symbol_hint(r->program_unnamed.v[i]);
	for (i = 0; verbose && i < r->unnamed_objects.nr; i++) {
		const char *path = r->unnamed_objects.v[i];

		/* the program's were hinted above */
		for (j = 0; j < r->program_unnamed.nr &&
		     strcmp(r->program_unnamed.v[j], path); j++)
			;
		if (j == r->program_unnamed.nr)
			debug_symbol_hint(path);
	}
}

static void print_summary(const struct record_run *r, const char *output)
{
	char complete[64] = "";
	int other = strcmp(output, SESSION_DEFAULT_DIR) != 0;

	if (r->complete >= 0)
		snprintf(complete, sizeof(complete),
			 " (%.1f%% with complete stacks)", 100.0 * r->complete);
	fprintf(stderr, "pyperf-run: %lu samples from %zu process%s%s in "
		"'%s'; 'pyperf-run report%s%s' shows them\n", r->scan.samples,
		r->nr_procs, r->nr_procs == 1 ? "" : "es", complete, output,
		other ? " -i " : "", other ? output : "");
}

int cmd_record(int argc, char **argv)
{
	struct record_cli o;
	struct record_run r;
	struct printer pr;
	enum record_outcome outcome;
	int status;

	if (argc >= 2 && !strcmp(argv[1], RECORD_INTERNAL_EXEC))
		return record_internal_exec(argc, argv);
	memset(&o, 0, sizeof(o));
	o.ro.output = SESSION_DEFAULT_DIR;
	o.ro.mode = MODE_AUTO;
	o.ro.trampoline = TRAMPOLINE_AUTO;
	strvec_init(&o.perf_args);
	parse_options(argc, argv, &o);
	o.ro.perf_args = o.perf_args.nr ?
		(const char *const *)o.perf_args.v : NULL;

	pr.quiet = o.quiet;
	pr.shown = 0;
	record_init(&r, &o.ro, print_message, &pr);
	outcome = record_prepare(&r);
	if (!outcome && !o.quiet)
		fprintf(stderr, "pyperf-run: %s mode%s (%s)\n",
			mode_name_str(r.mode.name),
			r.mode.trampoline == TRAMPOLINE_EMBEDDED ?
			", embedded trampoline" : "", r.mode.reason);
	if (!outcome)
		outcome = record_execute(&r);
	if (!outcome)
		outcome = record_finish(&r);
	if (!outcome && o.verbose)
		print_notes(&r);
	if (!outcome)
		debug_symbols_hint(&r, o.verbose);
	if (!outcome && !o.quiet)
		print_summary(&r, o.ro.output);
	/* a recording lost while the program ran: the program's status */
	if (outcome == RECORD_FAILED && r.program_ended)
		outcome = RECORD_OK;
	status = r.wait_status;
	record_release(&r);
	strvec_clear(&o.perf_args);
	return outcome ? exit_code(outcome) : spawn_exit_code(status);
}
