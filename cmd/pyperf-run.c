/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run: make Linux perf show Python functions.
 *
 * main(): global options, the command table, dispatch, and the final
 * check that everything written to stdout really got out.
 */
#include "compat.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

#include <signal.h>

#ifndef PPR_VERSION
#define PPR_VERSION "unknown"
#endif
/* `perf version` where configure ran; empty when there was no perf. */
#ifndef PPR_PERF_VERSION
#define PPR_PERF_VERSION ""
#endif

/*
 * The features compiled in, for --version: "pprof=yes libdw=yes ...".
 * The Makefile builds this string from the same list that defines the
 * PPR_HAVE_<NAME> macros the code using each feature tests (FEATURES in
 * Makefile.in), so --version cannot say what the build did not do.
 */
#ifndef PPR_FEATURES
#error "PPR_FEATURES is not defined: build pyperf-run with its Makefile"
#endif

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct usage *usage;
	const char *summary;
};

static const struct cmd_struct commands[] = {
	{ "doctor", cmd_doctor, &doctor_usage,
	  "check that perf can show Python functions here, and say why not" },
	{ "record", cmd_record, &record_usage,
	  "run a Python program under perf with Python frames" },
	{ "report", cmd_report, &report_usage,
	  "show a recorded session: text, flamegraphs and other formats" },
	{ "top", cmd_top, &top_usage,
	  "a live view of a Python program's hottest functions" },
	{ "trampoline", cmd_trampoline, &trampoline_usage,
	  "install the embedded trampoline into an interpreter" },
};

static const char *const main_synopsis[] = {
	"pyperf-run [--version] [--help] <command> [<args>]",
	NULL
};

static const struct usage main_usage = { main_synopsis, NULL };

static const struct cmd_struct *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_help(FILE *fp)
{
	size_t i;

	usage_print(&main_usage, fp);
	fputs("\ncommands:\n", fp);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "   %-12s %s\n", commands[i].name,
			commands[i].summary);
	fputs("\n'pyperf-run help <command>' or 'pyperf-run <command> -h' "
	      "shows a command's options.\n", fp);
}

static void print_version(void)
{
	printf("pyperf-run %s\n", PPR_VERSION);
	if (*PPR_PERF_VERSION)
		printf("built with: perf %s\n", PPR_PERF_VERSION);
	else
		fputs("built with: no perf (built without perf present)\n",
		      stdout);
	fputs("features: " PPR_FEATURES "\n", stdout);
}

static int finish_stdout(int code)
{
	/* A full disk or a closed pipe must not pass for success. */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return code;
		error_errno("write failure on standard output");
		return code ? code : EXIT_FAIL;
	}
	return code;
}

static int cmd_help(int argc, char **argv)
{
	const struct cmd_struct *c;

	if (argc < 2) {
		print_help(stdout);
		return EXIT_OK;
	}
	if (argc > 2)
		usage_error(&main_usage, EXIT_USAGE,
			    "help takes one command name");
	c = find_command(argv[1]);
	if (!c) {
		error("unknown command '%s'", argv[1]);
		hint("'pyperf-run --help' lists the commands");
		return EXIT_USAGE;
	}
	usage_print(c->usage, stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cmd_struct *c;
	static char prog[64];

	usage_install_oom();
	/* A closed pipe is reported by write(), not by a silent death. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_help(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version();
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "help"))
		return finish_stdout(cmd_help(argc - 1, argv + 1));
	if (argv[1][0] == '-') {
		error("unknown option '%s'", argv[1]);
		hint("usage: %s", main_synopsis[0]);
		return EXIT_USAGE;
	}
	c = find_command(argv[1]);
	if (!c) {
		error("unknown command '%s'", argv[1]);
		hint("'pyperf-run --help' lists the commands");
		return EXIT_USAGE;
	}
	snprintf(prog, sizeof(prog), "pyperf-run %s", c->name);
	set_prog(prog);
	return finish_stdout(c->fn(argc - 1, argv + 1));
}
