/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run top: a live view of a Python program's hottest functions.
 * The program is prepared as `record` prepares it (lib/record/run.h:
 * the same mode, trampoline and environment, a private temporary
 * directory for its perf maps and context tables), then sampled with
 * libperf (lib/top/top.h) instead of perf record.  This file parses the
 * options, draws the screen, reads the keys and picks the exit code.
 */
#include "compat.h"
#include "mode.h"
#include "numparse.h"
#include "alloc.h"
#include "perfcmd.h"
#include "record/collect.h"
#include "record/run.h"
#include "report/fmt.h"
#include "report/profile.h"
#include "spawn.h"
#include "strbuf.h"
#include "top/top.h"
#include "builtin.h"
#include "program.h"
#include "exitcodes.h"
#include "usage.h"

#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char *const top_synopsis[] = {
	"pyperf-run top [<options>] <script.py> [<args>...]",
	"pyperf-run top [<options>] -m <module> [<args>...]",
	"pyperf-run top [<options>] -c <code> [<args>...]",
	"pyperf-run top [<options>] -- <command> [<args>...]",
	"pyperf-run top [<options>] -p <pid>[,<pid>...]",
	NULL
};

static const char top_options[] =
"    --python <path>        the interpreter (default: python3 on PATH)\n"
"    --mode auto|perf|jit|bpf  how to get Python frames (as record)\n"
"    --trampoline auto|native|embedded\n"
"                           whose trampoline (as record)\n"
"    -F, --freq <hz>        samples per second (default: 999)\n"
"    --stack-size <bytes>   jit mode: stack bytes saved per sample\n"
"    -p, --pid <pid>[,<pid>...]\n"
"                           watch running processes (bpf mode); q or\n"
"                           --duration detaches, they run on\n"
"    --view mixed|python|all  which frames (as report; default mixed)\n"
"    --wall                 also the time each thread waits, and on what\n"
"                           (the wall clock)\n"
"    --wakers               with --wall, bpf mode: also who ended the\n"
"                           waits (report --wakers's tables, live)\n"
"    -s, --sort self|total  the table's order (default: self)\n"
"    -n, --rows <n>         rows in the table (default: the screen's)\n"
"    -d, --delay <seconds>  time between refreshes (default: 1)\n"
"    --batch                no screen: print the table once, when the\n"
"                           program ends or --duration has passed\n"
"    --duration <seconds>   stop after this long (the program is sent\n"
"                           SIGTERM if it still runs)\n"
"    -o, --output <file>    --batch: write the table to <file>\n"
"    -q, --quiet            print only errors and warnings\n"
"    -h, --help             print this help\n"
"\n"
"keys: q quit (the program is sent SIGTERM), s switch the order (self or\n"
"total), p pause the screen (sampling goes on)\n";

const struct usage top_usage = { top_synopsis, top_options };

struct top_cli {
	struct record_options ro;
	enum profile_view view;
	int by_total;
	unsigned long rows;
	double delay;
	double duration;	/* < 0: until the program ends */
	int batch;
	const char *output;
	int quiet;
	int wall;		/* --wall */
	int wakers;		/* --wakers */
};

#define bad_usage(...) usage_error(&top_usage, EXIT_INTERNAL, __VA_ARGS__)

static void parse_options(int argc, char **argv, struct top_cli *o)
{
	enum { OPT_VIEW = 256, OPT_BATCH, OPT_WALL, OPT_WAKERS };
	static const struct option longopts[] = {
		PROGRAM_LONGOPTS,
		{ "view", required_argument, NULL, OPT_VIEW },
		{ "sort", required_argument, NULL, 's' },
		{ "rows", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "wall", no_argument, NULL, OPT_WALL },
		{ "wakers", no_argument, NULL, OPT_WAKERS },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, stop = 0;

	opterr = 0;
	optind = 1;
	while (!stop &&
	       (c = getopt_long(argc, argv, "+:F:s:n:d:o:p:qhm:c:", longopts,
				NULL)) != -1) {
		if (program_option(c, optarg, &o->ro, &stop, &top_usage))
			continue;
		switch (c) {
		case OPT_VIEW:
			if (!strcmp(optarg, "mixed"))
				o->view = PROFILE_VIEW_MIXED;
			else if (!strcmp(optarg, "python"))
				o->view = PROFILE_VIEW_PYTHON;
			else if (!strcmp(optarg, "all"))
				o->view = PROFILE_VIEW_ALL;
			else
				bad_usage("--view must be mixed, python or "
					  "all, not '%s'", optarg);
			break;
		case 's':
			if (strcmp(optarg, "self") && strcmp(optarg, "total"))
				bad_usage("--sort must be self or total, not "
					  "'%s'", optarg);
			o->by_total = !strcmp(optarg, "total");
			break;
		case 'n':
			if (parse_ulong(optarg, 10, 100000, &o->rows) ||
			    !o->rows)
				bad_usage("--rows needs a number of rows, not "
					  "'%s'", optarg);
			break;
		case 'd':
			o->delay = program_parse_seconds("--delay", optarg,
							 &top_usage);
			break;
		case OPT_BATCH:
			o->batch = 1;
			break;
		case OPT_WALL:
			o->wall = 1;
			break;
		case OPT_WAKERS:
			/* record's decision refuses it outside bpf mode */
			o->wakers = o->ro.wakers = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage_print(&top_usage, stdout);
			exit(fflush(stdout) ? EXIT_INTERNAL : EXIT_OK);
		default:
			usage_bad_option(&top_usage, EXIT_INTERNAL, c, argv);
		}
	}
	if (o->output && !o->batch)
		bad_usage("-o writes the table of --batch");
	if (o->wakers && !o->wall)
		bad_usage("--wakers names who ended the waits --wall shows: "
			  "give --wall too");
	program_target(argc, argv, optind, &o->ro, &top_usage, "run");
	if (o->ro.duration > 0)
		o->duration = o->ro.duration;
	if (o->ro.nr_pids && o->ro.mode != MODE_AUTO &&
	    o->ro.mode != MODE_BPF)
		bad_usage("-p watches with the frame walker: --mode bpf (or "
			  "auto), not --mode %s", mode_name_str(o->ro.mode));
}

/* --- messages ------------------------------------------------------------ */

static void print_message(void *data, enum record_msg_level level,
			  const char *text)
{
	const int *quiet = data;

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
		if (!*quiet)
			fprintf(stderr, "pyperf-run: %s\n", text);
		break;
	case RECORD_MSG_OUTPUT:
		break;
	}
}

/* --- the screen ---------------------------------------------------------- */

static struct termios saved_tty;
static int tty_raw;
static volatile sig_atomic_t got_signal;

static void restore_tty(void)
{
	if (tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	tty_raw = 0;
}

static void on_signal(int sig)
{
	got_signal = sig;
}

/* Keys without Enter and without echo, while top runs. */
static void raw_keys(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty))
		return;
	t = saved_tty;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSANOW, &t)) {
		tty_raw = 1;
		atexit(restore_tty);
	}
}

static unsigned screen_rows(void)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 12)
		return ws.ws_row;
	return 24;
}

/* Share of the judged samples whose stack reached its root. */
static double complete_share(const struct profile *p)
{
	const struct profile_quality *q = &p->quality;

	return q->judged ? (double)q->cut[CUT_NONE] / (double)q->judged : -1;
}

/*
 * "# threads:  MainThread (python3)/123 61%, worker-1 (python3)/125 39%":
 * the busiest threads with their shares, Python's names where bpf mode
 * read them, their tids visible; only with more than one thread.
 */
static void draw_threads(FILE *fp, const struct profile *p)
{
	size_t shown[6], n = 0, i, j, best;

	if (p->nr_threads < 2 || !p->total_weight)
		return;
	fputs("# threads: ", fp);
	for (n = 0; n < ARRAY_SIZE(shown) && n < p->nr_threads; n++) {
		best = SIZE_MAX;
		for (i = 0; i < p->nr_threads; i++) {
			for (j = 0; j < n && shown[j] != i; j++)
				;
			if (j == n && (best == SIZE_MAX ||
				       p->threads[i].weight >
				       p->threads[best].weight))
				best = i;
		}
		shown[n] = best;
		fprintf(fp, "%s%s/%ld %.0f%%", n ? ", " : " ",
			p->threads[best].comm ? p->threads[best].comm : "?",
			(long)p->threads[best].tid,
			100.0 * (double)p->threads[best].weight /
			(double)p->total_weight);
	}
	if (p->nr_threads > n)
		fprintf(fp, ", %zu more", p->nr_threads - n);
	fputc('\n', fp);
}

static void draw(FILE *fp, const struct profile *p, const struct top *t,
		 const struct top_cli *o, const char *what,
		 const struct record_run *r, int screen)
{
	struct fmt_opts fo = FMT_OPTS_INIT;
	struct top_stats st;
	double c = complete_share(p);

	top_stats(t, &st);
	if (screen)
		fputs("\033[H\033[2J", fp);
	fprintf(fp, "# pyperf-run top: %s (pid %ld)\n", what,
		(long)top_pid(t));
	fprintf(fp, "# mode:     %s%s, %s%s, %u Hz\n",
		mode_name_str(r->mode.name),
		r->mode.trampoline == TRAMPOLINE_EMBEDDED ?
		", embedded trampoline" : "",
		r->have_py ? "python " : "attached",
		r->have_py ? r->py.version : "", r->freq);
	/* a count of samples (and off-CPU intervals), whatever the unit */
	fprintf(fp, "# samples:  %llu in %.1f s; top's own CPU %.1f%% of "
		"one core\n", (unsigned long long)p->total_count,
		st.elapsed, st.elapsed > 0 ?
		100.0 * st.cpu_seconds / st.elapsed : 0.0);
	if (p->clock == PROFILE_CLOCK_WALL)
		fprintf(fp, "# wall:     %.3f s of thread time: %.3f s on "
			"CPU, %.3f s off CPU (%llu intervals)\n",
			(double)p->total_weight / 1e9,
			(double)(p->total_weight - p->quality.offcpu_ns) / 1e9,
			(double)p->quality.offcpu_ns / 1e9,
			(unsigned long long)p->quality.offcpu);
	draw_threads(fp, p);
	if (c >= 0)
		fprintf(fp, "# stacks:   %.1f%% complete%s\n", 100.0 * c,
			c < 1 ? " (the rest are under [incomplete stack: "
			"...])" : "");
	if (st.lost)
		fprintf(fp, "# warning:  %llu samples lost (the ring buffers "
			"were full): shares are of the samples kept\n",
			(unsigned long long)st.lost);
	if (st.damaged)
		fprintf(fp, "# warning:  %u context table%s damaged: some "
			"Python frames are unnamed\n", st.damaged,
			st.damaged == 1 ? "" : "s");
	if (screen && p->quality.startup_cut)
		fprintf(fp, "# note:     %llu start-up samples under [python "
			"start-up]\n",
			(unsigned long long)p->quality.startup_cut);
	fo.top = o->rows ? (unsigned)o->rows :
		screen ? screen_rows() - 10 : 20;
	/* --wakers on a screen: half of its rows for each table */
	if (o->wakers && screen && !o->rows)
		fo.top = fo.top / 2 > 3 ? fo.top / 2 : 3;
	fmt_text_top(p, &fo, fp, o->by_total);
	if (o->wakers)
		fmt_text_wakers(p, &fo, fp);
	fflush(fp);
}

/* Keys typed since the last look; 1 when the user asked to quit. */
static int read_keys(struct top_cli *o, int *paused)
{
	char buf[16];
	ssize_t n, i;

	if (!tty_raw)
		return 0;
	n = read(STDIN_FILENO, buf, sizeof(buf));
	for (i = 0; i < n; i++) {
		switch (buf[i]) {
		case 'q':
		case 'Q':
			return 1;
		case 's':
			o->by_total = !o->by_total;
			break;
		case 'p':
			*paused = !*paused;
			break;
		}
	}
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *describe(const struct record_options *ro, struct strbuf *sb)
{
	int i;

	if (ro->kind == RECORD_TARGET_PIDS) {
		strbuf_addstr(sb, "-p ");
		for (i = 0; i < ro->nr_pids; i++)
			strbuf_addf(sb, "%s%d", i ? "," : "",
				    (int)ro->pids[i]);
		return sb->buf;
	}
	strbuf_addstr(sb, ro->kind == RECORD_TARGET_MODULE ? "-m " :
		      ro->kind == RECORD_TARGET_CODE ? "-c " : "");
	strbuf_addstr(sb, ro->what);
	for (i = 0; i < ro->nr_args; i++) {
		strbuf_addch(sb, ' ');
		strbuf_addstr(sb, ro->args[i]);
	}
	return sb->buf;
}

/* --- main ---------------------------------------------------------------- */

static int run(struct top_cli *o, struct record_run *r)
{
	struct profile_filter f = PROFILE_FILTER_INIT;
	struct profile p;
	struct top_opts to;
	struct top *t;
	struct strbuf what = STRBUF_INIT;
	char err[PPR_ERR_LEN], vdso_id[64];
	const char *dirs[3];
	double start, next_draw, stop_at;
	int exec_errno, ended = 0, paused = 0, quit = 0, stopped = 0;
	int screen = !o->batch, code;
	FILE *out = stdout;
	size_t nd = 0;

	if (r->mode.name == MODE_JIT && !r->mode.contexts)
		return error("top cannot read CPython's jitdump files live "
			     "(%s)", r->mode.reason),
		       hint("use the embedded trampoline "
			    "(--trampoline embedded) or --mode perf"),
		       EXIT_INTERNAL;
	f.view = o->view;
	/* --wall: on-CPU samples by their period plus off-CPU intervals */
	if (o->wall)
		f.clock = PROFILE_CLOCK_WALL + 1;
	f.wake_table = o->wakers;	/* the wall clock's stacks kept */
	if (r->dump_dir)
		dirs[nd++] = r->dump_dir;
	dirs[nd++] = "/tmp";
	dirs[nd] = NULL;
	memset(&to, 0, sizeof(to));
	to.argv = r->target.v;
	to.path = r->program_path;	/* found in PATH as record finds it */
	to.envp = r->env.v;
	to.freq = r->freq;
	to.jit = r->mode.name == MODE_JIT;
	to.stack_size = r->mode.stack_size;
	to.wall = o->wall;
	to.wakers = o->wakers;
	to.dirs = dirs;
	to.filter = &f;
	to.bpf = r->mode.name == MODE_BPF;
	if (o->ro.kind == RECORD_TARGET_PIDS) {
		to.attach = o->ro.pids;
		to.nr_attach = o->ro.nr_pids;
	}
	/* the vDSO image, as record saves it: samples in it get names */
	if (!record_save_vdso(r->bid, vdso_id, sizeof(vdso_id))) {
		to.session_dir = r->abs_tmp;
		to.vdso_id = vdso_id;
	} else if (to.bpf) {
		to.session_dir = r->abs_tmp;	/* the walker's code objects */
	}
	describe(&o->ro, &what);
	start = now_seconds();
	if (top_start(&t, &to, &p, &exec_errno, err, sizeof(err)) < 0) {
		error("%s", err);
		strbuf_release(&what);
		return exec_errno == ENOENT ? EXIT_NOT_FOUND :
		       exec_errno ? EXIT_CANNOT_EXEC : EXIT_INTERNAL;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (screen)
		raw_keys();
	next_draw = start + o->delay;
	stop_at = o->duration > 0 ? start + o->duration : -1;
	while (!ended) {
		double now;

		ended = top_poll(t, 100);
		now = now_seconds();
		if (got_signal && !stopped) {
			/* the program got the terminal's signal too; a
			   kill of top alone is passed on */
			if (got_signal != SIGINT)
				top_stop_program(t);
			stopped = 1;
		}
		if (!stopped && ((stop_at > 0 && now >= stop_at) ||
				 (screen && read_keys(o, &paused)))) {
			top_stop_program(t);
			stopped = quit = 1;
		}
		if (screen && now >= next_draw) {
			top_update(t, 0);
			if (!paused)
				draw(stdout, &p, t, o, what.buf, r, 1);
			next_draw = now + o->delay;
		}
	}
	top_poll(t, 0);
	top_update(t, 1);
	restore_tty();
	if (o->output) {
		out = fopen(o->output, "w");
		if (!out) {
			error_errno("cannot open '%s'", o->output);
			out = NULL;
		}
	}
	if (out) {
		draw(out, &p, t, o, what.buf, r, 0);
		if (out != stdout && fclose(out))
			error_errno("cannot write '%s'", o->output);
	}
	if (o->ro.kind != RECORD_TARGET_PIDS) {
		/* (an attached process's files are its own) */
		size_t nr;
		const pid_t *pids = top_pids(t, &nr);
		unsigned moved;

		/* the perf maps CPython wrote to /tmp: into the
		   temporary directory, removed with it */
		if (record_collect(r->abs_tmp, (const char *const *)
				   r->srcdirs, pids, nr, r->start, &moved,
				   err, sizeof(err)) < 0)
			warning("%s", err);
	}
	code = quit ? EXIT_OK : spawn_exit_code(top_wait_status(t));
	if (!out)
		code = EXIT_INTERNAL;
	top_free(t);
	profile_release(&p);
	strbuf_release(&what);
	return code;
}

int cmd_top(int argc, char **argv)
{
	struct top_cli o;
	struct record_run r;
	enum record_outcome outcome;
	char *tmp;
	int code, quiet;

	memset(&o, 0, sizeof(o));
	o.ro.mode = MODE_AUTO;
	o.ro.trampoline = TRAMPOLINE_AUTO;
	o.view = PROFILE_VIEW_MIXED;
	o.delay = 1.0;
	o.duration = -1;
	parse_options(argc, argv, &o);
	if (!top_available()) {
		error("this pyperf-run was built without libperf, which top "
		      "samples with");
		hint("build libperf with .ci/setup.d/libperf.sh (Debian does "
		     "not package it), then ./configure --with-libperf and "
		     "make");
		return EXIT_INTERNAL;
	}
	if (!o.batch && !isatty(STDOUT_FILENO))
		o.batch = 1;	/* no screen to draw on */
	/* a private directory for the program's maps and tables */
	tmp = xasprintf("%s/pyperf-top-%ld",
			getenv("TMPDIR") && *getenv("TMPDIR") ?
			getenv("TMPDIR") : "/tmp", (long)getpid());
	o.ro.output = tmp;
	quiet = o.quiet;
	record_init(&r, &o.ro, print_message, &quiet);
	outcome = record_prepare(&r);
	if (outcome) {
		record_release(&r);
		free(tmp);
		return outcome == RECORD_NOT_FOUND ? EXIT_NOT_FOUND :
		       outcome == RECORD_CANNOT_EXEC ? EXIT_CANNOT_EXEC :
		       EXIT_INTERNAL;
	}
	if (!o.quiet)
		fprintf(stderr, "pyperf-run: %s mode%s (%s)\n",
			mode_name_str(r.mode.name),
			r.mode.trampoline == TRAMPOLINE_EMBEDDED ?
			", embedded trampoline" : "", r.mode.reason);
	r.start = record_now() - 1;	/* the map files to clean up */
	code = run(&o, &r);
	record_release(&r);
	free(tmp);
	return code;
}
