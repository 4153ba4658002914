/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run doctor: check that perf can show Python functions here,
 * and say why not.  The checks are gathered by lib/doctor/doctor.c; this file
 * parses options, prints the report (text or JSON) and picks the exit
 * status: 0 when profiling with Python frames will work, 1 when
 * something blocks it, 2 for usage errors.
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "numparse.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

#include <getopt.h>
#include <signal.h>
#include <unistd.h>

static const char *const doctor_synopsis[] = {
	"pyperf-run doctor [--python <path>] [--perf <path>] [--json] [--probe]",
	"pyperf-run doctor [--trampoline auto|native|embedded] ...",
	"pyperf-run doctor [<options>] -- <command> [<args>...]",
	"pyperf-run doctor --pid <pid> [--json]",
	NULL
};

static const char doctor_options[] =
	"    --python <path>   the interpreter to check (default: python3 "
	"in PATH)\n"
	"    -- <command>      check what 'record -- <command>' would do: "
	"the\n"
	"                      interpreter it runs (python3.X, or chroot "
	"ROOT\n"
	"                      python3.X), the mode and the perf command\n"
	"    --perf <path>     the perf to check (default: $PYPERF_PERF, or "
	"perf in PATH)\n"
	"    --trampoline auto|native|embedded\n"
	"                      whose trampoline record would use (default: "
	"auto)\n"
	"    --pid <pid>       check attaching to a running Python instead: "
	"the\n"
	"                      interpreter, privileges, ptrace access, "
	"seccomp\n"
	"    --json            print one JSON object instead of the report\n"
	"    --probe           also record a tiny script and check its "
	"stacks\n"
	"    -h, --help        print this help\n";

const struct usage doctor_usage = { doctor_synopsis, doctor_options };

struct paint {
	const char *ok, *warning, *problem, *bold, *dim, *reset;
};

static void paint_init(struct paint *p)
{
	const char *term = getenv("TERM");
	const char *no = getenv("NO_COLOR");

	if (isatty(1) && term && strcmp(term, "dumb") && !(no && *no)) {
		p->ok = "\033[32m";
		p->warning = "\033[33m";
		p->problem = "\033[1;31m";
		p->bold = "\033[1m";
		p->dim = "\033[2m";
		p->reset = "\033[0m";
	} else {
		p->ok = p->warning = p->problem = "";
		p->bold = p->dim = p->reset = "";
	}
}

static const char *level_color(const struct paint *p, enum doctor_level l)
{
	return l == DOCTOR_OK ? p->ok : l == DOCTOR_WARNING ? p->warning
							   : p->problem;
}

/* What a decision line stands on, printed below it. */
static void print_decision_details(const struct doctor *d,
				   const struct doctor_check *c,
				   const struct paint *p)
{
	if (!strcmp(c->id, "mode.walker")) {
		printf("           %swhy:%s %s\n", p->dim, p->reset,
		       d->walker_why);
		return;
	}
	if (strcmp(c->id, "mode") || d->mode.name == MODE_NONE ||
	    c->level != DOCTOR_OK)
		return;
	printf("           %swhy:%s %s\n", p->dim, p->reset, d->mode.reason);
	if (!d->record_cmd)
		return;
	printf("           %srecord runs:%s\n", p->dim, p->reset);
	printf("             %s\n", d->record_cmd);
	if (d->inject_cmd)
		printf("             %s\n", d->inject_cmd);
	if (d->env_note)
		printf("           %snote:%s %s\n", p->dim, p->reset,
		       d->env_note);
}

static void print_text(const struct doctor *d)
{
	struct paint p;
	const char *section = NULL;
	size_t i;

	paint_init(&p);
	for (i = 0; i < d->nr_checks; i++) {
		const struct doctor_check *c = &d->checks[i];

		if (!section || strcmp(section, c->section)) {
			section = c->section;
			printf("%s%s%s\n", p.bold, section,
			       p.reset);
		}
		printf("  %s%-8s%s %s\n", level_color(&p, c->level),
		       doctor_level_name(c->level), p.reset, c->text);
		if (c->fix)
			printf("           %sfix:%s %s\n", p.dim, p.reset,
			       c->fix);
		if (!strcmp(section, "decision"))
			print_decision_details(d, c, &p);
	}
	putchar('\n');
	if (d->walker && !doctor_ok(d)) {
		/* the walker needs no perf: what is wrong is perf's */
		printf("%sPython frames will work%s in bpf mode; perf "
		       "record's modes will not: %zu problem%s.\n", p.ok,
		       p.reset, d->nr_problems,
		       d->nr_problems == 1 ? "" : "s");
	} else if (d->walker) {
		printf("%sPython frames will work%s: bpf mode (otherwise %s "
		       "mode, %s trampoline)", p.ok, p.reset,
		       mode_name_str(d->mode.name),
		       mode_trampoline_str(d->mode.trampoline));
		if (d->nr_warnings)
			printf(" (%zu warning%s)", d->nr_warnings,
			       d->nr_warnings == 1 ? "" : "s");
		printf(".\n");
	} else if (doctor_ok(d)) {
		printf("%sPython frames will work%s: %s mode, %s trampoline",
		       p.ok, p.reset, mode_name_str(d->mode.name),
		       mode_trampoline_str(d->mode.trampoline));
		if (d->nr_warnings)
			printf(" (%zu warning%s)", d->nr_warnings,
			       d->nr_warnings == 1 ? "" : "s");
		printf(".\n");
	} else {
		printf("%sPython frames will not work%s: %zu problem%s",
		       p.problem, p.reset, d->nr_problems,
		       d->nr_problems == 1 ? "" : "s");
		if (d->nr_warnings)
			printf(", %zu warning%s", d->nr_warnings,
			       d->nr_warnings == 1 ? "" : "s");
		printf(".\n");
	}
}

/* doctor --pid: walker/access.h's checks, in the report's format. */
static int doctor_pid(pid_t pid, int json)
{
	struct access_report r;
	struct paint p;
	int i;

	access_check(pid, &r);
	if (json) {
		doctor_pid_write_json(&r, stdout);
		return r.ok ? EXIT_OK : EXIT_FAIL;
	}
	paint_init(&p);
	printf("%sattach to process %d%s\n", p.bold, (int)pid, p.reset);
	for (i = 0; i < ACCESS_NR; i++) {
		const struct access_item *it = &r.item[i];
		const char *col = it->state == ACCESS_OK ? p.ok :
			it->state == ACCESS_MISSING ? p.problem :
			it->state == ACCESS_WARN ? p.warning : p.dim;

		printf("  %s%-8s%s %-8s %s\n", col,
		       it->state == ACCESS_MISSING ? "problem" :
		       it->state == ACCESS_NOT_CHECKED ? "-" :
		       access_state_name(it->state), p.reset,
		       access_need_name((enum access_need)i), it->what);
		if (it->fix[0])
			printf("           %sfix:%s %s\n", p.dim, p.reset,
			       it->fix);
	}
	printf("\n%s%s%s.\n", r.ok ? p.ok : p.problem, r.summary, p.reset);
	return r.ok ? EXIT_OK : EXIT_FAIL;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/*
 * During --probe, ^C reaches perf and the interpreter (same process
 * group) and ends them; we only note it, so that the probe still cleans
 * up its files before we leave.
 */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "python", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "probe", no_argument, NULL, 'P' },
		{ "perf", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'i' },
		{ "trampoline", required_argument, NULL, 't' },
		/* testing: the probe's first dump size (see the man page) */
		{ "probe-stack-size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor_options o;
	struct doctor d;
	int json = 0, c, ret;
	long pid = 0;

	memset(&o, 0, sizeof(o));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!*optarg)
				usage_error(&doctor_usage, EXIT_USAGE,
					    "--python needs a path");
			o.python = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'i':
			if (parse_long(optarg, 10, 1, INT32_MAX, &pid))
				usage_error(&doctor_usage, EXIT_USAGE,
					    "--pid needs a process id, not "
					    "'%s'", optarg);
			break;
		case 'P':
			o.probe = 1;
			break;
		case 'f':
			if (!*optarg)
				usage_error(&doctor_usage, EXIT_USAGE,
					    "--perf needs a path");
			o.perf = optarg;
			break;
		case 't':
			if (mode_trampoline_parse(optarg, &o.trampoline))
				usage_error(&doctor_usage, EXIT_USAGE,
					    "--trampoline must be auto, native "
					    "or embedded, not '%s'", optarg);
			break;
		case 'S': {
			unsigned long v;

			if (parse_ulong(optarg, 10, PERF_STACK_DUMP_MAX, &v) ||
			    v < 8 || v % 8)
				usage_error(&doctor_usage, EXIT_USAGE,
					    "--probe-stack-size needs a "
					    "multiple of 8 from 8 to %u, not "
					    "'%s'", PERF_STACK_DUMP_MAX,
					    optarg);
			o.probe_stack_size = (unsigned)v;
			break;
		}
		case 'h':
			usage_print(&doctor_usage, stdout);
			return EXIT_OK;
		case ':':
			usage_error(&doctor_usage, EXIT_USAGE,
				    "option '%s' needs a value",
				    argv[optind - 1]);
		default:
			usage_error(&doctor_usage, EXIT_USAGE,
				    "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		if (optind >= argc)
			usage_error(&doctor_usage, EXIT_USAGE,
				    "'--' needs a command after it");
		o.command = argv + optind;
		o.nr_command = argc - optind;
	} else if (optind < argc) {
		usage_error(&doctor_usage, EXIT_USAGE,
			    "unexpected argument '%s'", argv[optind]);
	}
	if (o.command && (o.probe || pid))
		usage_error(&doctor_usage, EXIT_USAGE, "%s does not take a "
			    "command: %s", pid ? "--pid" : "--probe",
			    pid ? "it checks a running process"
				: "it records its own script with --python's "
				  "interpreter");

	if (pid) {
		if (o.python || o.probe || o.perf || o.probe_stack_size)
			usage_error(&doctor_usage, EXIT_USAGE, "--pid checks "
				    "a running process: it does not take "
				    "--python, --perf or --probe");
		return doctor_pid((pid_t)pid, json);
	}
	/* The probe reads its recording as report does: with this perf. */
	if (o.perf && setenv("PYPERF_PERF", o.perf, 1)) {
		error("cannot set PYPERF_PERF: %s", strerror(errno));
		return EXIT_FAIL;
	}
	if (o.probe)
		catch_signals();
	doctor_run(&d, &o);
	if (interrupted) {
		doctor_release(&d);
		error("interrupted");
		return 128 + interrupted;
	}
	if (json)
		doctor_write_json(&d, stdout);
	else
		print_text(&d);
	ret = doctor_ok(&d) ? EXIT_OK : EXIT_FAIL;
	doctor_release(&d);
	return ret;
}
