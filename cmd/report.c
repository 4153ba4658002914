/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run report: turn a session (pyperf.data/) into a Python-aware
 * report in one of the formats of lib/report/fmt.h, run perf's own report on
 * it (--perf-report), or compare two sessions (--diff).
 */
#include "compat.h"
#include "alloc.h"
#include "fileio.h"
#include "report/fmt_perfdata.h"
#include "report/fmt_flame.h"
#include "report/fmt.h"
#include "numparse.h"
#include "perfcmd.h"
#include "report/profile.h"
#include "report/stage_quality.h"
#include "session.h"
#include "spawn.h"
#include "strbuf.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const report_synopsis[] = {
	"pyperf-run report [-i <dir>] [-o <file>] [--format <format>] "
	"[<options>]",
	"pyperf-run report [-i <dir>] --perf-report [-- <perf-report-args>...]",
	"pyperf-run report --diff <old> <new> [--format collapsed|html] "
	"[-o <file>]",
	NULL
};

static const char report_options[] =
"  -i, --input <dir>     the session (default: pyperf.data)\n"
"  -o, --output <file>   write the report to <file> (default: stdout)\n"
"  -f, --format <format> text (default), collapsed, json, html, svg,\n"
"                        speedscope, pprof, or perf-data (a bpf-mode\n"
"                        session as a perf.data perf reads with the\n"
"                        Python frames in place, -o FILE, its perf maps\n"
"                        in FILE.maps/: copy them to /tmp, then perf\n"
"                        script -i FILE or perf report -i FILE)\n"
"      --python-only     only Python frames\n"
"      --all             every frame, the interpreter's plumbing too\n"
"                        (default: Python, native and kernel frames,\n"
"                        plumbing folded away)\n"
"      --view <view>     mixed (the default), python or all: the same\n"
"                        as neither, --python-only, --all\n"
"      --clock <clock>   cpu, wall or off-cpu: what the weights add up\n"
"                        (default: wall for a session recorded with its\n"
"                        waits, else cpu); wall and off-cpu weigh\n"
"                        nanoseconds\n"
"      --wakers          the off-CPU clock, each wait followed by who\n"
"                        ended it: a [woken by ...] frame, then the\n"
"                        waker's stack, innermost frame first (a session\n"
"                        recorded with --wakers)\n"
"      --chain           with --wakers: a waker that had itself just\n"
"                        waited is followed to its own waker, up to four\n"
"                        wakers in a row\n"
"      --pid <pid>[,<pid>...]  only these processes\n"
"      --tid <tid>[,<tid>...]  only these threads\n"
"      --per-thread      keep threads apart (collapsed: a \"comm-PID/TID\"\n"
"                        root frame; json, speedscope: one per thread)\n"
"      --per-process     keep processes apart (\"comm-PID\")\n"
"      --time [<from>],[<to>]  only samples in this window, in seconds\n"
"                        from the first sample (e.g. 1.5,3 or ,10)\n"
"      --min-share <pct> hide frames below <pct>% of the samples\n"
"      --top <n>         text: rows in the top-functions tables\n"
"                        (default: 20)\n"
"      --tree-min <pct>  text: hide call-tree nodes below <pct>%\n"
"                        (default: 1)\n"
"      --no-tree         text: no call tree\n"
"      --inverted        text tree, flame graphs: leaf functions first\n"
"      --title <text>    flame graphs: the title\n"
"      --color <when>    text: auto (default), always or never\n"
"  -v, --verbose         text, collapsed: every note (cut stacks, unnamed\n"
"                        code under 1% of the Python program's samples,\n"
"                        or outside it), not only the warnings\n"
"      --perf <path>     the perf to read the session with (default:\n"
"                        $PYPERF_PERF, else the perf that recorded it)\n"
"      --reader <r>      how perf.data is read: native (default: pyperf-run\n"
"                        unwinds and names the samples itself),\n"
"                        perf-script (parse `perf script`, for comparison)\n"
"                        or recorded (native, with the user frames bpf\n"
"                        mode unwound while recording, where record\n"
"                        also kept the stack copies: to compare the two)\n"
"      --perf-report     run perf report on the session, with the map\n"
"                        files where perf looks for them (a bpf-mode\n"
"                        session: on its perf-data export, made once\n"
"                        into the session, with the Python frames)\n"
"      --diff <old> <new>  what changed from session <old> to <new>\n"
"  -h, --help            this help\n";

const struct usage report_usage = { report_synopsis, report_options };

struct report_opts {
	const char *input;
	const char *output;
	int format;
	int format_set;
	struct profile_filter filter;
	struct fmt_opts fo;
	double min_share;
	int color;		/* -1 auto */
	int perf;
	int diff;
	const char *diff_old, *diff_new;
	pid_t *pids, *tids;
	char **perf_args;
	int nr_perf_args;
};

/*
 * The warnings of p (and, for a diff, of old_p) on stderr, and with
 * verbose the notes.
 */
static void print_warnings(const struct profile *p,
			   const struct profile *old_p, int verbose)
{
	char **w;
	size_t n = flame_warnings(p, old_p, &w), i;

	for (i = 0; i < n; i++)
		warning("%s", w[i]);
	fmt_warnings_free(w, n);
	if (!verbose)
		return;
	n = flame_notes(p, old_p, &w);
	for (i = 0; i < n; i++)
		note("%s", w[i]);
	fmt_warnings_free(w, n);
}

PPR_NORETURN static void bad_usage(const char *fmt, ...) PPR_PRINTF(1, 2);

static void bad_usage(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	usage_error(&report_usage, EXIT_USAGE, "%s", msg);
}

static size_t parse_id_list(const char *opt, const char *s, pid_t **out,
			    size_t nr)
{
	char *copy = xstrdup(s), *p = copy, *comma;
	long v;

	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (parse_long(p, 10, 1, INT32_MAX, &v))
			bad_usage("%s needs process/thread ids (N[,N...]), "
				  "not '%s'", opt, s);
		*out = xrealloc(*out, (nr + 1) * sizeof(**out));
		(*out)[nr++] = (pid_t)v;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	return nr;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0 || v != v || v > 1e9)
		return -1;
	*out = v;
	return 0;
}

static void parse_time(const char *s, struct profile_filter *f)
{
	const char *comma = strchr(s, ',');
	char *from;

	if (!comma)
		bad_usage("--time needs FROM,TO in seconds (either may be "
			  "empty), not '%s'", s);
	from = xstrndup(s, (size_t)(comma - s));
	f->time_from = -1.0;
	f->time_to = -1.0;
	if ((*from && parse_seconds(from, &f->time_from)) ||
	    (comma[1] && parse_seconds(comma + 1, &f->time_to)) ||
	    (f->time_to >= 0 && f->time_from > f->time_to)) {
		free(from);
		bad_usage("--time needs FROM,TO in seconds (either may be "
			  "empty), not '%s'", s);
	}
	free(from);
}

static double parse_pct(const char *opt, const char *s)
{
	double v;

	if (parse_seconds(s, &v) || v > 100)
		bad_usage("%s needs a percentage from 0 to 100, not '%s'",
			  opt, s);
	return v / 100.0;
}

static void parse_options(int argc, char **argv, struct report_opts *o)
{
	enum {
		OPT_PY = 256, OPT_ALL, OPT_PID, OPT_TID, OPT_PER_THREAD,
		OPT_PER_PROCESS, OPT_TIME, OPT_MIN_SHARE, OPT_TOP,
		OPT_TREE_MIN, OPT_NO_TREE, OPT_INVERTED, OPT_TITLE,
		OPT_COLOR, OPT_PERF_REPORT, OPT_DIFF, OPT_VIEW, OPT_PERF,
		OPT_READER, OPT_CLOCK, OPT_WAKERS, OPT_CHAIN
	};
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "python-only", no_argument, NULL, OPT_PY },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "view", required_argument, NULL, OPT_VIEW },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "per-process", no_argument, NULL, OPT_PER_PROCESS },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "min-share", required_argument, NULL, OPT_MIN_SHARE },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "tree-min", required_argument, NULL, OPT_TREE_MIN },
		{ "no-tree", no_argument, NULL, OPT_NO_TREE },
		{ "inverted", no_argument, NULL, OPT_INVERTED },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "perf-report", no_argument, NULL, OPT_PERF_REPORT },
		{ "perf", required_argument, NULL, OPT_PERF },
		{ "reader", required_argument, NULL, OPT_READER },
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "wakers", no_argument, NULL, OPT_WAKERS },
		{ "chain", no_argument, NULL, OPT_CHAIN },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t nr_pids = 0, nr_tids = 0;
	int c, dashdash = argc, i, nargs, reader_set = 0;
	unsigned long ul;

	/* everything after "--" is for perf report */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	o->perf_args = argv + dashdash + (dashdash < argc);
	o->nr_perf_args = argc - dashdash - (dashdash < argc);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(dashdash, argv, ":i:o:f:vh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			if (!*optarg)
				bad_usage("-o needs a file name");
			o->output = optarg;
			break;
		case 'f':
			o->format = fmt_parse(optarg);
			if (o->format < 0)
				bad_usage("unknown format '%s' (text, "
					  "collapsed, json, html, svg, "
					  "speedscope, pprof, perf-data)",
					  optarg);
			o->format_set = 1;
			break;
		case OPT_PY:
			o->filter.view = PROFILE_VIEW_PYTHON;
			break;
		case OPT_ALL:
			o->filter.view = PROFILE_VIEW_ALL;
			break;
		case OPT_VIEW:
			if (!strcmp(optarg, "python"))
				o->filter.view = PROFILE_VIEW_PYTHON;
			else if (!strcmp(optarg, "all"))
				o->filter.view = PROFILE_VIEW_ALL;
			else if (!strcmp(optarg, "mixed"))
				o->filter.view = PROFILE_VIEW_MIXED;
			else
				bad_usage("--view must be mixed, python or "
					  "all, not '%s'", optarg);
			break;
		case OPT_PID:
			nr_pids = parse_id_list("--pid", optarg, &o->pids,
						nr_pids);
			break;
		case OPT_TID:
			nr_tids = parse_id_list("--tid", optarg, &o->tids,
						nr_tids);
			break;
		case OPT_PER_THREAD:
			o->filter.group = PROFILE_BY_THREAD;
			break;
		case OPT_PER_PROCESS:
			o->filter.group = PROFILE_BY_PROCESS;
			break;
		case OPT_TIME:
			parse_time(optarg, &o->filter);
			break;
		case OPT_CLOCK: {
			enum profile_clock ck;

			if (profile_clock_parse(optarg, &ck) < 0)
				bad_usage("--clock must be cpu, wall or off-cpu, "
					  "not '%s'", optarg);
			o->filter.clock = (int)ck + 1;
			break;
		}
		case OPT_WAKERS:
			o->filter.wakers = 1;
			break;
		case OPT_CHAIN:
			/* the waker and three more, each of the one before */
			o->filter.wake_chain = 4;
			break;
		case OPT_MIN_SHARE:
			o->min_share = parse_pct("--min-share", optarg);
			break;
		case OPT_TOP:
			if (parse_ulong(optarg, 10, 1000000, &ul) || !ul)
				bad_usage("--top needs a number from 1 to "
					  "1000000, not '%s'", optarg);
			o->fo.top = (unsigned)ul;
			break;
		case OPT_TREE_MIN:
			o->fo.tree_min_share = parse_pct("--tree-min", optarg);
			if (!o->fo.tree_min_share)
				o->fo.tree_min_share = 1e-12;
			break;
		case OPT_NO_TREE:
			o->fo.tree = 0;
			break;
		case OPT_INVERTED:
			o->fo.inverted = 1;
			break;
		case OPT_TITLE:
			o->fo.title = optarg;
			break;
		case OPT_COLOR:
			if (!strcmp(optarg, "auto"))
				o->color = -1;
			else if (!strcmp(optarg, "always"))
				o->color = 1;
			else if (!strcmp(optarg, "never"))
				o->color = 0;
			else
				bad_usage("--color must be auto, always or "
					  "never, not '%s'", optarg);
			break;
		case OPT_PERF_REPORT:
			o->perf = 1;
			break;
		case OPT_PERF:
			if (!*optarg)
				bad_usage("--perf needs a path%s", "");
			o->filter.perf = optarg;
			break;
		case OPT_READER:
			if (profile_reader_parse(optarg, &o->filter.reader) < 0)
				bad_usage("--reader must be native, recorded or "
					  "perf-script, not '%s'", optarg);
			reader_set = 1;
			break;
		case OPT_DIFF:
			o->diff = 1;
			break;
		case 'v':
			o->fo.verbose = 1;
			break;
		case 'h':
			usage_print(&report_usage, stdout);
			exit(fflush(stdout) ? EXIT_FAIL : EXIT_OK);
		default:
			usage_bad_option(&report_usage, EXIT_USAGE, c, argv);
		}
	}
	/*
	 * No --reader: $PYPERF_RUN_READER, else perf script when a perf
	 * to read the session with was named, else the native reader.
	 */
	if (!reader_set &&
	    profile_reader_parse(getenv("PYPERF_RUN_READER"),
				 &o->filter.reader) < 0)
		o->filter.reader = o->filter.perf || getenv("PYPERF_PERF") ?
				   PROFILE_READER_PERF_SCRIPT :
				   PROFILE_READER_NATIVE;
	if (o->filter.wake_chain && !o->filter.wakers)
		bad_usage("--chain follows the wakers of --wakers: give "
			  "--wakers too");
	/* the wakers view is the off-CPU clock's */
	if (o->filter.wakers) {
		if (o->filter.clock &&
		    o->filter.clock != (int)PROFILE_CLOCK_OFFCPU + 1)
			bad_usage("--wakers shows the off-CPU clock's waits, "
				  "not --clock %s",
				  profile_clock_name((enum profile_clock)
						     (o->filter.clock - 1)));
		o->filter.clock = (int)PROFILE_CLOCK_OFFCPU + 1;
	}
	o->filter.pids = o->pids;
	o->filter.nr_pids = nr_pids;
	o->filter.tids = o->tids;
	o->filter.nr_tids = nr_tids;
	nargs = dashdash - optind;
	if (o->diff) {
		if (nargs != 2)
			bad_usage("--diff needs two sessions: OLD NEW");
		o->diff_old = argv[optind];
		o->diff_new = argv[optind + 1];
		if (o->perf)
			bad_usage("--diff and --perf-report cannot be "
				  "combined");
		if (o->input)
			bad_usage("--diff takes the sessions as OLD NEW, "
				  "not -i");
		if (!o->format_set)
			o->format = FMT_COLLAPSED;
		if (o->format != FMT_COLLAPSED && o->format != FMT_HTML)
			bad_usage("--diff writes collapsed or html, not %s",
				  fmt_name(o->format));
	} else if (nargs > 0) {
		bad_usage("unexpected argument '%s'%s", argv[optind],
			  o->perf ? " (perf report arguments go after "
			  "'--')" : "");
	}
	if (o->nr_perf_args && !o->perf)
		bad_usage("arguments after '--' are for --perf-report only");
	if (o->perf && (o->output || o->format_set))
		bad_usage("--perf-report runs perf report; -o and --format "
			  "do not apply");
	if (!o->input)
		o->input = "pyperf.data";
}

/* ---- progress -------------------------------------------------------- */

struct progress {
	struct timespec start;
	int shown;
	int enabled;
};

static double elapsed(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_progress(void *data, uint64_t bytes, uint64_t samples)
{
	struct progress *pr = data;

	if (!pr->enabled || elapsed(&pr->start) < 2.0)
		return;
	fprintf(stderr, "\r%s: reading samples: %llu (%.0f MB of perf "
		"script output)\033[K", ppr_prog,
		(unsigned long long)samples, (double)bytes / 1e6);
	pr->shown = 1;
}

static void progress_end(struct progress *pr)
{
	if (pr->shown)
		fprintf(stderr, "\r\033[K");
	pr->shown = 0;
}

/* ---- --perf ---------------------------------------------------------- */

struct tmp_maps {
	struct strvec created;
};

/* Copy MAPS/perf-*.map to /tmp where absent; remember them. */
static void maps_install(const char *dir, struct tmp_maps *tm)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		unsigned long pid;
		const char *n = de->d_name;
		size_t len = strlen(n);
		char *num, *src, *dst;
		struct strbuf sb = STRBUF_INIT;
		int fd, r;

		if (len < 10 || strncmp(n, "perf-", 5) ||
		    strcmp(n + len - 4, ".map"))
			continue;
		num = xstrndup(n + 5, len - 9);
		if (parse_ulong(num, 10, INT32_MAX, &pid)) {
			free(num);
			continue;
		}
		free(num);
		src = xasprintf("%s/%s", dir, n);
		dst = xasprintf("/tmp/perf-%lu.map", pid);
		if (strbuf_read_file(&sb, src, (size_t)1 << 30) < 0) {
			warning("cannot read '%s': %s", src, strerror(errno));
			goto next;
		}
		fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0600);
		if (fd < 0) {
			if (errno == EEXIST)
				warning("'%s' exists already; perf report "
					"uses it for process %lu", dst, pid);
			else
				warning("cannot create '%s': %s", dst,
					strerror(errno));
			goto next;
		}
		strvec_push(&tm->created, dst);
		r = write_in_full(fd, sb.buf, sb.len);
		if (r < 0)
			warning("cannot write '%s': %s", dst, strerror(-r));
		close(fd);
next:
		strbuf_release(&sb);
		free(src);
		free(dst);
	}
	closedir(d);
}

static void maps_remove(struct tmp_maps *tm)
{
	size_t i;

	for (i = 0; i < tm->created.nr; i++)
		if (unlink(tm->created.v[i]) < 0 && errno != ENOENT)
			warning("cannot remove '%s': %s", tm->created.v[i],
				strerror(errno));
	strvec_clear(&tm->created);
}

/* ---- a bpf-mode session for perf itself ------------------------------- */

static int is_bpf_session(const struct session *s)
{
	const char *m = session_meta_get(&s->meta, "mode");

	return m && !strcmp(m, "bpf");
}

/*
 * A session record --max-size stopped early, on stderr: perf-data has
 * no place for the report's warnings, and perf cannot know it.
 */
static void warn_export_stopped(const struct session *s)
{
	struct profile p;
	size_t i;

	profile_init(&p);
	for (i = 0; i < s->meta.keys.nr; i++)
		profile_meta_set(&p, s->meta.keys.v[i], s->meta.values.v[i]);
	quality_max_size(&p);
	for (i = 0; i < p.nr_warnings; i++)
		warning("%s", p.warnings[i]);
	profile_release(&p);
}

/* What the export cut, on stderr: perf shows it, but not why. */
static void warn_export_cut(const struct export_perf_stats *st,
			    const char *out)
{
	if (st->cut)
		warning("%llu of the %llu samples in '%s' have an incomplete "
			"stack: it ends in an \"[incomplete stack: ...]\" "
			"frame%s", (unsigned long long)st->cut,
			(unsigned long long)st->samples, out,
			st->too_deep ? ", some because they were too deep "
			"for a perf.data record" : "");
}

/*
 * The session's export for --perf-report: SESSION/perf-python.data and
 * its perf maps in SESSION/perf-python.maps/, made again only when
 * perf.data (or pycode) is newer.  0, or -1 said.
 */
static int session_export(const struct session *s, const char *out,
			  const char *maps, char **argv,
			  struct export_perf_stats *st)
{
	struct export_perf_opts eo;
	char err[PPR_ERR_LEN];

	if (export_perf_fresh(s->dir, out, maps) &&
	    !export_perf_stats_read(maps, st)) {
		warn_export_cut(st, out);
		warn_export_stopped(s);
		return 0;
	}
	memset(&eo, 0, sizeof(eo));
	eo.session = s->dir;
	eo.out = out;
	eo.maps_dir = maps;
	eo.cmdline = (const char *const *)argv;
	if (export_perf(&eo, st, err, sizeof(err)) < 0) {
		error("%s", err);
		return -1;
	}
	warn_export_cut(st, out);
	warn_export_stopped(s);
	return 0;
}

/* --format perf-data -o FILE: FILE and FILE.maps/. */
static int write_perf_data(struct report_opts *o, char **argv)
{
	struct export_perf_opts eo;
	struct export_perf_stats st;
	char err[PPR_ERR_LEN];
	char *maps;

	if (!o->output || !strcmp(o->output, "-")) {
		if (isatty(1)) {
			error("not writing perf-data (binary) to a terminal");
			hint("use -o <file> (its perf maps go into "
			     "<file>.maps/)");
		} else {
			error("--format perf-data writes a file and its perf "
			      "maps (<file>.maps/): give -o <file>");
		}
		return EXIT_FAIL;
	}
	maps = xasprintf("%s.maps", o->output);
	memset(&eo, 0, sizeof(eo));
	eo.session = o->input;
	eo.out = o->output;
	eo.maps_dir = maps;
	eo.filter = &o->filter;
	eo.cmdline = (const char *const *)argv;
	if (export_perf(&eo, &st, err, sizeof(err)) < 0) {
		error("%s", err);
		if (strstr(err, "-mode session"))
			hint("perf reads it as it is: perf report -i %s/"
			     "perf.data, or pyperf-run report -i %s "
			     "--perf-report", o->input, o->input);
		free(maps);
		return EXIT_FAIL;
	}
	fprintf(stderr, "%s: wrote '%s': %llu samples (%llu with an "
		"incomplete stack, %llu left out by the filter); the Python "
		"frames of %llu processes are named in '%s/'\n", ppr_prog,
		o->output, (unsigned long long)st.samples,
		(unsigned long long)st.cut, (unsigned long long)st.left_out,
		(unsigned long long)st.processes, maps);
	free(maps);
	{
		struct session s;

		if (!session_open(&s, o->input, 0, err, sizeof(err))) {
			warn_export_stopped(&s);
			session_close(&s);
		}
	}
	return EXIT_OK;
}

static int run_perf_report(const struct report_opts *o, char **cmd_argv)
{
	struct strvec argv = STRVEC_INIT;
	struct tmp_maps tm = { STRVEC_INIT };
	struct spawn sp = SPAWN_INIT;
	struct sigaction ign, old_int, old_quit, old_term;
	struct session s;
	char err[PPR_ERR_LEN];
	char *xdata = NULL, *xmaps = NULL, *xdir = NULL;
	const char *input, *maps;
	struct export_perf_stats st;
	int status, ret = EXIT_FAIL, i, r;

	/* perf report reads any perf.data: meta is optional here */
	r = session_open(&s, o->input, SESSION_ANY_META, err, sizeof(err));
	if (r < 0) {
		error("%s", err);
		if (r == -ENOENT)
			hint("record one first: pyperf-run record -o %s "
			     "script.py", o->input);
		session_close(&s);
		return EXIT_FAIL;
	}
	input = s.perf_data;
	maps = s.maps;
	memset(&st, 0, sizeof(st));
	/*
	 * perf cannot put the frame walker's Python frames into the
	 * stacks it unwinds: it reads the session's export instead
	 */
	if (is_bpf_session(&s)) {
		xdata = xasprintf("%s/perf-python.data", s.dir);
		xmaps = xasprintf("%s/perf-python.maps", s.dir);
		if (!export_perf_fresh(s.dir, xdata, xmaps) &&
		    access(s.dir, W_OK) < 0) {
			/* not ours to write: made for this run only */
			const char *t = getenv("TMPDIR");

			xdir = xasprintf("%s/pyperf-run-perf.XXXXXX",
					 t && *t ? t : "/tmp");
			if (!mkdtemp(xdir)) {
				error_errno("cannot create '%s'", xdir);
				free(xdir);
				xdir = NULL;
				goto out_session;
			}
			free(xdata);
			free(xmaps);
			xdata = xasprintf("%s/perf-python.data", xdir);
			xmaps = xasprintf("%s/perf-python.maps", xdir);
		}
		if (session_export(&s, xdata, xmaps, cmd_argv, &st) < 0)
			goto out_session;
		input = xdata;
		maps = xmaps;
	}
	/* the perf that recorded the session, as profile_load() does */
	perfcmd_report_argv(perfcmd_perf(o->filter.perf,
					 session_meta_get(&s.meta, "perf")),
			    s.buildid, input, &argv);
	/*
	 * perf cuts callchains at 127 frames by default: the export's
	 * deepest goes whole (the arguments after -- may say otherwise)
	 */
	if (xdata && st.max_chain > 127)
		strvec_pushf(&argv, "--max-stack=%llu",
			     (unsigned long long)st.max_chain + 8);
	for (i = 0; i < o->nr_perf_args; i++)
		strvec_push(&argv, o->perf_args[i]);

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	/* Ctrl-C goes to perf; we stay to remove the maps */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &ign, &old_term);
	maps_install(maps, &tm);
	sp.argv = argv.v;
	sp.flags = SPAWN_DEFAULT_SIGS;
	if (spawn_start(&sp, err, sizeof(err)) < 0) {
		error("%s", err);
		goto out;
	}
	status = spawn_finish(&sp);
	if (status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status)) {
		ret = EXIT_OK;
	} else if (status >= 0) {
		char desc[128];

		spawn_describe_status(status, desc, sizeof(desc));
		error("perf report %s", desc);
	}
out:
	maps_remove(&tm);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	strvec_clear(&argv);
out_session:
	if (xdir) {
		if (export_perf_remove(xdata, xmaps, err, sizeof(err)) < 0)
			warning("%s", err);
		else if (rmdir(xdir) < 0)
			warning("cannot remove '%s': %s", xdir,
				strerror(errno));
		free(xdir);
	}
	session_close(&s);
	free(xdata);
	free(xmaps);
	return ret;
}

/* ---- the report ------------------------------------------------------- */

static int load(const char *dir, struct report_opts *o, struct profile *p)
{
	char err[PPR_ERR_LEN];
	struct progress pr;
	int ret;

	memset(&pr, 0, sizeof(pr));
	pr.enabled = isatty(2);
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	o->filter.progress = on_progress;
	o->filter.progress_data = &pr;
	ret = profile_load(p, dir, &o->filter, err, sizeof(err));
	progress_end(&pr);
	if (ret < 0) {
		error("%s", err);
		if (strstr(err, "No such file or directory") &&
		    strstr(err, "cannot open session"))
			hint("record one first: pyperf-run record -o %s "
			     "script.py", dir);
		return -1;
	}
	if (!p->total_weight) {
		error("no samples in '%s' match the filters (%llu left out)",
		      dir, (unsigned long long)p->dropped);
		return -1;
	}
	if (o->min_share > 0)
		profile_prune(p, o->min_share);
	return 0;
}

static FILE *open_output(const struct report_opts *o)
{
	FILE *fp;

	if (!o->output || !strcmp(o->output, "-")) {
		if (fmt_is_binary((enum fmt_format)o->format) && isatty(1)) {
			error("not writing %s (binary) to a terminal",
			      fmt_name((enum fmt_format)o->format));
			hint("use -o <file>");
			return NULL;
		}
		return stdout;
	}
	fp = fopen(o->output, "w");
	if (!fp)
		error_errno("cannot open '%s'", o->output);
	return fp;
}

static int close_output(const struct report_opts *o, FILE *fp, int failed)
{
	int bad = ferror(fp);

	if (fp == stdout) {
		if (fflush(stdout) || bad) {
			if (!failed)
				error_errno("write error on stdout");
			return -1;
		}
		return failed ? -1 : 0;
	}
	if (fclose(fp) || bad) {
		if (!failed)
			error_errno("write error on '%s'", o->output);
		failed = 1;
	}
	if (failed)
		unlink(o->output);
	return failed ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	static const struct profile_filter fdef = PROFILE_FILTER_INIT;
	static const struct fmt_opts odef = FMT_OPTS_INIT;
	struct profile p, q;
	char err[PPR_ERR_LEN];
	FILE *fp;
	int ret = EXIT_FAIL, wret;

	memset(&o, 0, sizeof(o));
	o.filter = fdef;
	o.fo = odef;
	o.fo.tree = 1;
	o.color = -1;
	parse_options(argc, argv, &o);
	o.fo.format = (enum fmt_format)o.format;
	signal(SIGPIPE, SIG_DFL);

	if (o.perf) {
		ret = run_perf_report(&o, argv);
		goto out_opts;
	}
	if (o.format == FMT_PERF_DATA) {
		ret = write_perf_data(&o, argv);
		goto out_opts;
	}
	if (fmt_unavailable(o.fo.format)) {
		/* before loading: that can take a while */
		error("%s", fmt_unavailable(o.fo.format));
		goto out_opts;
	}
	if (o.format == FMT_SPEEDSCOPE && o.filter.group == PROFILE_MERGED)
		o.filter.group = PROFILE_BY_THREAD;
	/* the html page's timeline (wall and off-cpu clocks) */
	if (o.format == FMT_HTML && !o.diff)
		o.filter.spans = 1;
	if (o.format == FMT_JSON && o.filter.group == PROFILE_MERGED)
		o.filter.group = PROFILE_BY_THREAD;
	if (o.color < 0)
		o.fo.color = !o.output && isatty(1) && !getenv("NO_COLOR") &&
			(!getenv("TERM") || strcmp(getenv("TERM"), "dumb"));
	else
		o.fo.color = o.color;
	/* json is per thread for its lists, not for its stacks' sake */
	o.fo.collapsed_pid = 1;

	if (o.diff) {
		if (load(o.diff_old, &o, &p) < 0) {
			profile_release(&p);
			goto out_opts;
		}
		if (load(o.diff_new, &o, &q) < 0) {
			profile_release(&p);
			profile_release(&q);
			goto out_opts;
		}
		fp = open_output(&o);
		if (fp) {
			wret = fmt_diff_write(&p, &q, &o.fo, fp, err,
					      sizeof(err));
			if (wret < 0)
				error("%s", err);
			if (!wret && o.format == FMT_COLLAPSED)
				print_warnings(&q, &p, o.fo.verbose);
			if (!close_output(&o, fp, wret < 0))
				ret = EXIT_OK;
		}
		profile_release(&p);
		profile_release(&q);
		goto out_opts;
	}

	if (load(o.input, &o, &p) < 0) {
		profile_release(&p);
		goto out_opts;
	}
	fp = open_output(&o);
	if (fp) {
		wret = fmt_writer((enum fmt_format)o.format)(&p, &o.fo, fp,
							     err, sizeof(err));
		if (wret < 0)
			error("%s", err);
		/* collapsed has no place for them (see fmt_warnings()) */
		if (!wret && o.format == FMT_COLLAPSED)
			print_warnings(&p, NULL, o.fo.verbose);
		if (!close_output(&o, fp, wret < 0))
			ret = EXIT_OK;
	}
	profile_release(&p);
out_opts:
	free(o.pids);
	free(o.tids);
	return ret;
}
