/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run trampoline: install, remove and inspect the embedded
 * trampoline in an interpreter; build it ahead of time.  Also the
 * internal `env` and `exec` subcommands behind wrappers/pyperf-python.
 */
#include "compat.h"
#include "alloc.h"
#include "embedded.h"
#include "mode.h"
#include "paths.h"
#include "pyinfo.h"
#include "spawn.h"
#include "strbuf.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

#include <getopt.h>
#include <unistd.h>

extern char **environ;

static const char *const trampoline_synopsis[] = {
	"pyperf-run trampoline install [--python <path>]",
	"pyperf-run trampoline uninstall [--python <path>]",
	"pyperf-run trampoline status [--python <path>]",
	"pyperf-run trampoline build [--python <path>]",
	NULL
};

static const char trampoline_options[] =
	"    --python <path>   the interpreter, or a virtual environment's "
	"python\n"
	"                      (default: python3 in PATH)\n"
	"    -h, --help        show this help\n";

const struct usage trampoline_usage = { trampoline_synopsis,
					trampoline_options };

struct tramp_opts {
	const char *python;
	const char *mode;	/* env/exec: perf, jit, auto */
	const char *dump_dir;	/* env */
	const char *into;	/* build: instead of the user's cache */
	const char *name;	/* exec: the wrapper's name for messages */
};

enum {
	OPT_PYTHON = 256,
	OPT_MODE,
	OPT_DUMP_DIR,
	OPT_INTO,
	OPT_NAME,
};

/*
 * Parse the options after the subcommand; returns the index of the first
 * argument left.  internal enables the options of env/exec/build --into.
 */
static int parse_opts(int argc, char **argv, struct tramp_opts *o,
		      int internal, int code)
{
	static const struct option longopts[] = {
		{ "python", required_argument, NULL, OPT_PYTHON },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "dump-dir", required_argument, NULL, OPT_DUMP_DIR },
		{ "into", required_argument, NULL, OPT_INTO },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_print(&trampoline_usage, stdout);
			exit(fflush(stdout) ? EXIT_FAIL : EXIT_OK);
		case OPT_PYTHON:
			o->python = optarg;
			break;
		case OPT_MODE:
		case OPT_DUMP_DIR:
		case OPT_NAME:
			if (!internal)
				usage_error(&trampoline_usage, code,
					    "unknown option '--%s'",
					    c == OPT_MODE ? "mode" :
					    c == OPT_NAME ? "name"
							  : "dump-dir");
			if (c == OPT_MODE)
				o->mode = optarg;
			else if (c == OPT_DUMP_DIR)
				o->dump_dir = optarg;
			else
				o->name = optarg;
			break;
		case OPT_INTO:
			o->into = optarg;
			break;
		case ':':
			usage_error(&trampoline_usage, code,
				    "option '%s' needs a value",
				    argv[optind - 1]);
		default:
			usage_error(&trampoline_usage, code,
				    "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!o->python)
		o->python = "python3";
	if (!*o->python)
		usage_error(&trampoline_usage, code, "--python needs a path");
	return optind;
}

/* Probe; prints the error.  Returns 0, or the exit code for exec. */
static int probe(const char *python, struct pyinfo *py)
{
	char err[PPR_ERR_LEN];
	char *p = spawn_which(python);

	if (!p) {
		int e = errno;

		memset(py, 0, sizeof(*py));
		error("cannot run '%s': %s", python, strerror(e));
		if (e == ENOENT && !strchr(python, '/'))
			hint("use --python to name the interpreter");
		return e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
	free(p);
	if (pyinfo_probe(python, py, err, sizeof(err)) < 0) {
		error("%s", err);
		pyinfo_release(py);
		return EXIT_INTERNAL;
	}
	return 0;
}

/* --- install / uninstall / status / build --------------------------------- */

static int do_install(struct pyinfo *py)
{
	char err[PPR_ERR_LEN];
	int code;

	if (embedded_install(py, &code, err, sizeof(err)) < 0) {
		if (code == -EEXIST) {
			fprintf(stderr, "%s: %s\n", ppr_prog, err);
			return EXIT_OK;
		}
		error("%s", err);
		if (strstr(err, "cannot write to"))
			hint("install into a virtual environment, or run as "
			     "the owner of '%s'", py->purelib);
		return EXIT_FAIL;
	}
	printf("installed the embedded trampoline into '%s'\n",
	       py->purelib);
	if (py->native_perf_jit)
		/* -X and the PYTHON* switches stay CPython's own here */
		printf("'PYPERF_TRAMPOLINE=jit %s' (or =perf) now turns on "
		       "Python frames for perf with it\n", py->path);
	else if (py->native_perf)
		printf("'%s -X perf_jit' (or PYTHON_PERF_JIT_SUPPORT=1, "
		       "PYPERF_TRAMPOLINE=jit|perf) now turns on Python "
		       "frames for perf with it\n", py->path);
	else
		printf("'%s -X perf_jit' (or -X perf, "
		       "PYTHON_PERF_JIT_SUPPORT=1, PYTHONPERFSUPPORT=1)\nnow "
		       "turns on Python frames for perf\n", py->path);
	return EXIT_OK;
}

static int do_uninstall(struct pyinfo *py)
{
	char err[PPR_ERR_LEN];
	int code;

	if (embedded_uninstall(py, &code, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_FAIL;
	}
	printf("removed the embedded trampoline from '%s'\n", py->purelib);
	return EXIT_OK;
}

static int do_status(struct pyinfo *py)
{
	struct embedded_status st;
	char err[PPR_ERR_LEN], why[PPR_ERR_LEN];
	char *dir = NULL;
	size_t i;

	if (embedded_status_read(py, &st, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_FAIL;
	}
	printf("interpreter:   %s (%s %s)\n", py->executable,
	       pyinfo_is_cpython(py) ? "CPython" : py->implementation,
	       py->version);
	printf("site-packages: %s\n", st.site);
	if (!mode_embedded_supports(py, why, sizeof(why)) || py->pydebug) {
		if (pyinfo_is_cpython(py) && py->native_perf_jit)
			printf("support:       native only (-X perf, "
			       "-X perf_jit): %s\n", py->pydebug ?
			       "debug builds are not supported" : why);
		else
			printf("support:       none: %s\n", py->pydebug
			       ? "debug builds are not supported" : why);
	} else {
		printf("support:       embedded trampoline%s\n",
		       py->native_perf_jit ? " (CPython's own: -X perf, "
		       "-X perf_jit)" : py->native_perf ?
		       " (CPython's own: -X perf)" : "");
		if (!embedded_find(py, &dir))
			printf("build:         %s\n", dir);
		else if (embedded_check(py, why, sizeof(why)))
			printf("build:         none yet (built on first "
			       "use)\n");
		else
			printf("build:         cannot be built: %s\n", why);
	}
	if (!st.installed) {
		printf("installed:     no\n");
	} else {
		printf("installed:     %s (by pyperf-run %s)\n",
		       st.missing.nr ? "damaged" : "yes", st.version);
		for (i = 0; i < st.files.nr; i++)
			printf("  %s\n", st.files.v[i]);
		for (i = 0; i < st.missing.nr; i++)
			printf("  missing: %s\n", st.missing.v[i]);
		printf("  %s\n", st.manifest);
	}
	free(dir);
	embedded_status_release(&st);
	return EXIT_OK;
}

static int do_build(struct pyinfo *py, const char *into)
{
	char err[PPR_ERR_LEN];
	char *dir = NULL;

	/* Without --into, a prebuilt library serves as well. */
	if ((into || embedded_find(py, &dir) < 0) &&
	    embedded_build(py, into, &dir, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_FAIL;
	}
	printf("%s\n", dir);
	free(dir);
	return EXIT_OK;
}

/* --- env / exec (behind pyperf-python) ----------------------------------- */

static int env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* The embedded trampoline is installed, whole, into py's site-packages. */
static int installed_whole(struct pyinfo *py)
{
	struct embedded_status st;
	char err[PPR_ERR_LEN];
	int installed = 0;

	if (!embedded_status_read(py, &st, err, sizeof(err)))
		installed = st.installed && !st.missing.nr;
	embedded_status_release(&st);
	return installed;
}

/*
 * Work out what makes this interpreter run with Python frames: env
 * strings to add (set) and options to put before the user's arguments
 * (xopts).  Prints the error; returns 0 or an exit code.
 */
static int frames_setup(struct pyinfo *py, const struct tramp_opts *o,
			int argc, char **argv, struct strvec *set,
			struct strvec *xopts, int fail)
{
	struct embedded_args a;
	enum mode_name req = MODE_AUTO;
	struct mode m;
	char err[PPR_ERR_LEN], why[PPR_ERR_LEN];
	int ready;

	embedded_scan_args(argc, (const char *const *)argv, &a);
	if (o->mode && strcmp(o->mode, "auto")) {
		if (mode_parse(o->mode, &req) < 0) {
			error("invalid mode '%s' (perf, jit or auto)",
			      o->mode);
			return fail;
		}
	} else if (a.xmode != MODE_NONE) {
		req = a.xmode;
	} else if (!a.isolated && env_flag("PYTHON_PERF_JIT_SUPPORT")) {
		req = MODE_JIT;
	} else if (!a.isolated && env_flag("PYTHONPERFSUPPORT")) {
		req = MODE_PERF;
	}
	ready = embedded_check(py, why, sizeof(why)) ?
		MODE_EMBEDDED_READY | MODE_EMBEDDED_PLAIN : 0;
	mode_decide(py, NULL, TRI_UNKNOWN, req, TRAMPOLINE_AUTO, 0, ready, &m);
	/*
	 * -E and -I hide PYTHONPATH, which loads the embedded trampoline:
	 * without an install, CPython's own serves where it has one.
	 */
	if (m.trampoline == TRAMPOLINE_EMBEDDED && a.isolated &&
	    !installed_whole(py)) {
		struct mode n;

		if (!mode_decide(py, NULL, TRI_UNKNOWN, req,
				 TRAMPOLINE_NATIVE, 0, ready, &n))
			m = n;
	}
	if (m.name == MODE_NONE || m.trampoline == TRAMPOLINE_NONE) {
		error("%s", m.problem);
		if (!ready && mode_embedded_supports(py, err, sizeof(err)))
			hint("%s", why);
		return fail;
	}
	if (m.trampoline == TRAMPOLINE_NATIVE) {
		const char *x = m.name == MODE_PERF ? "perf" : "perf_jit";

		if (a.xmode == m.name)
			return 0;
		if (a.isolated) {
			strvec_push(xopts, "-X");
			strvec_push(xopts, x);
		} else {
			strvec_push(set, m.name == MODE_PERF
				    ? "PYTHONPERFSUPPORT=1"
				    : "PYTHON_PERF_JIT_SUPPORT=1");
		}
		return 0;
	}
	if (a.isolated) {
		if (!installed_whole(py)) {
			error("-E and -I make Python %s ignore the "
			      "environment that loads the embedded "
			      "trampoline", py->version);
			hint("'pyperf-run trampoline install --python %s' "
			     "makes it work there", py->path);
			return fail;
		}
		/*
		 * PYPERF_TRAMPOLINE is read under -I too; -X would mean
		 * CPython's own trampoline on 3.12 and 3.13.
		 */
		strvec_push(set, m.name == MODE_PERF ? "PYPERF_TRAMPOLINE=perf"
						     : "PYPERF_TRAMPOLINE=jit");
		return 0;
	}
	if (embedded_prepare(py, m.name, o->dump_dir, set, err,
			     sizeof(err)) < 0) {
		error("%s", err);
		return fail;
	}
	return 0;
}

static int do_env(struct pyinfo *py, const struct tramp_opts *o)
{
	struct strvec set = STRVEC_INIT, xopts = STRVEC_INIT;
	size_t i;
	int r;

	r = frames_setup(py, o, 0, NULL, &set, &xopts, EXIT_FAIL);
	for (i = 0; !r && i < set.nr; i++)
		printf("%s\n", set.v[i]);
	strvec_clear(&set);
	strvec_clear(&xopts);
	return r;
}

static int do_exec(struct pyinfo *py, const struct tramp_opts *o,
		   int argc, char **argv)
{
	struct strvec set = STRVEC_INIT, xopts = STRVEC_INIT;
	struct strvec env = STRVEC_INIT, args = STRVEC_INIT;
	char *path = NULL;
	int r, e;

	r = frames_setup(py, o, argc, argv, &set, &xopts, EXIT_INTERNAL);
	if (r)
		goto out;
	path = spawn_which(py->path);
	if (!path) {
		e = errno;
		error("cannot run '%s': %s", py->path, strerror(e));
		r = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
		goto out;
	}
	spawn_env_build(&env, set.nr ? set.v : NULL);
	strvec_push(&args, py->path);
	if (xopts.nr)
		strvec_pushv(&args, xopts.v);
	strvec_pushv(&args, (const char *const *)argv);
	(void)argc;
	fflush(NULL);
	execve(path, (char *const *)args.v, (char *const *)env.v);
	e = errno;
	error("cannot run '%s': %s", py->path, strerror(e));
	r = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
out:
	free(path);
	strvec_clear(&set);
	strvec_clear(&xopts);
	strvec_clear(&env);
	strvec_clear(&args);
	return r;
}

int cmd_trampoline(int argc, char **argv)
{
	struct tramp_opts o = { NULL, NULL, NULL, NULL, NULL };
	struct pyinfo py;
	const char *sub;
	int n, r, internal, code = EXIT_USAGE;

	if (argc < 2)
		usage_error(&trampoline_usage, EXIT_USAGE,
			    "which subcommand? install, uninstall, status "
			    "or build");
	sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		usage_print(&trampoline_usage, stdout);
		return EXIT_OK;
	}
	internal = !strcmp(sub, "env") || !strcmp(sub, "exec");
	if (!strcmp(sub, "exec"))
		code = EXIT_INTERNAL;
	if (!internal && strcmp(sub, "install") && strcmp(sub, "uninstall") &&
	    strcmp(sub, "status") && strcmp(sub, "build"))
		usage_error(&trampoline_usage, EXIT_USAGE,
			    "unknown subcommand '%s'", sub);
	n = parse_opts(argc - 1, argv + 1, &o, internal, code);
	if (!strcmp(sub, "exec") && o.name)
		set_prog(o.name);
	if (o.into && strcmp(sub, "build"))
		usage_error(&trampoline_usage, code,
			    "--into only goes with build");
	argc -= 1 + n;
	argv += 1 + n;
	if (argc > 0 && strcmp(sub, "exec"))
		usage_error(&trampoline_usage, code,
			    "unexpected argument '%s'", argv[0]);
	r = probe(o.python, &py);
	if (r)
		return !strcmp(sub, "exec") ? r : EXIT_FAIL;
	if (!strcmp(sub, "install"))
		r = do_install(&py);
	else if (!strcmp(sub, "uninstall"))
		r = do_uninstall(&py);
	else if (!strcmp(sub, "status"))
		r = do_status(&py);
	else if (!strcmp(sub, "build"))
		r = do_build(&py, o.into);
	else if (!strcmp(sub, "env"))
		r = do_env(&py, &o);
	else
		r = do_exec(&py, &o, argc, argv);
	pyinfo_release(&py);
	return r;
}
