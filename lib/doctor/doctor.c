/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The checks of `pyperf-run doctor`, gathered and judged silently (see
 * doctor.h); the self-test lives in doctor_probe.c, the JSON writer in
 * doctor_json.c, the reader's checks in doctor_reader.c and the list of
 * checks all of them add to in doctor_check.c.
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "alloc.h"
#include "elfinfo.h"
#include "embedded.h"
#include "perfcmd.h"
#include "probecache.h"
#include "route.h"
#include "spawn.h"
#include "walker/access.h"
#include "walker/walker_abi.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Stand-ins for the program in the commands shown. */
#define SHOW_SCRIPT "script.py"
#define SHOW_SESSION "pyperf.data"

/* The checks go to the list in doctor_check.c. */
static void add_check(struct doctor *d, const char *section, const char *id,
		      enum doctor_level level, char *text, char *fix)
{
	doctor_add_check(d, section, id, level, text, fix);
}

/* --- perf ----------------------------------------------------------------- */

static void build_options(struct doctor *d);

/*
 * record --wall's route here (route_wall(), the one decision record
 * follows): where the stacks at switch-out come from, or why there are
 * none and what would give them.
 */
static void judge_wall(struct doctor *d)
{
	const char *why;

	switch (route_wall(&d->kernel, &why)) {
	case PERFCMD_WALL_SCHED:
		add_check(d, "kernel", "kernel.wall", DOCTOR_OK,
			  xstrdup("record --wall: a stack and the task's state "
				  "at every switch-out (sched:sched_switch, "
				  "as root)"), NULL);
		break;
	case PERFCMD_WALL_CTXSW:
		add_check(d, "kernel", "kernel.wall", DOCTOR_OK,
			  xstrdup("record --wall: a stack at every switch-out "
				  "(context-switches samples)"), NULL);
		break;
	default:
		add_check(d, "kernel", "kernel.wall", DOCTOR_WARNING,
			  xasprintf("record --wall: %s", why),
			  xstrdup("sudo sysctl kernel.perf_event_paranoid=1, "
				  "or record as root (sudo) or with "
				  "CAP_PERFMON; distributions' kernels often "
				  "default to 3 or 4 (Debian, Ubuntu), where "
				  "perf runs only through sudo"));
		break;
	}
}

/* Can the in-kernel frame walker load here (the fact route.h asks). */
static void gather_walker(struct doctor *d)
{
	struct route_walker *w = &d->walker_here;

	w->ready = access_walker_ready(w->why.text, sizeof(w->why.text),
				       w->why.hint, sizeof(w->why.hint));
	w->stack_max = WALKER_USTACK_MAX;
}

/*
 * bpf mode (record --mode bpf, record -p, top -p): can the in-kernel
 * frame walker run here, for this interpreter?  The same facts and
 * questions record asks (route.h, mode_walker_serves()).
 */
static void judge_walker(struct doctor *d)
{
	const struct route_walker *w = &d->walker_here;
	char pywhy[PPR_ERR_LEN];

	if (!w->ready) {
		add_check(d, "kernel", "kernel.walker", DOCTOR_WARNING,
			  xasprintf("bpf mode (the in-kernel frame walker: "
				    "record --mode bpf, record -p): %s",
				    w->why.text),
			  w->why.hint[0] ? xstrdup(w->why.hint) : NULL);
		return;
	}
	if (d->python_ok && !mode_walker_serves(&d->py, pywhy,
						sizeof(pywhy))) {
		add_check(d, "kernel", "kernel.walker", DOCTOR_WARNING,
			  xasprintf("bpf mode can run here (%s), but not for "
				    "this interpreter: %s", w->why.text, pywhy),
			  NULL);
		return;
	}
	add_check(d, "kernel", "kernel.walker", DOCTOR_OK,
		  xasprintf("bpf mode can run here (%s): record --mode bpf "
			    "walks the Python frames in the kernel, the "
			    "program unchanged; record -p PID and top -p PID "
			    "attach to a running one", w->why.text), NULL);
}

/* What an earlier probe of this very perf binary found. */
static void from_cache(struct doctor *d)
{
	struct probe_verdict v;

	if (probe_cache_get(d->perf_path, d->perf_version_text, &v))
		return;
	if (v.unwinder[0] && d->dwarf_unwind != TRI_NO) {
		snprintf(d->unwinder, sizeof(d->unwinder), "%s", v.unwinder);
		d->unwinder_source = "cache";
	}
	if (d->jit_fix == TRI_UNKNOWN && v.jit_fix != TRI_UNKNOWN) {
		d->jit_fix = v.jit_fix;
		d->jit_fix_from_cache = 1;
		set_err(d->jit_fix_why, sizeof(d->jit_fix_why),
			"an earlier 'doctor --probe' of this perf found %s",
			v.jit_fix == TRI_YES ? "that stacks cross jitted "
					       "frames"
					     : "that stacks stop at the first "
					       "jitted frame");
	}
}

static void gather_perf(struct doctor *d, const char *perf)
{
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	struct strvec argv = STRVEC_INIT;
	char err[PPR_ERR_LEN];
	int st;

	d->jit_fix = TRI_UNKNOWN;
	/* The perf report runs too (profile_load() reads PYPERF_PERF). */
	if (!perf) {
		const char *env = getenv("PYPERF_PERF");

		perf = env && *env ? env : NULL;
	}
	d->perf_path = spawn_which(perf ? perf : "perf");
	if (!d->perf_path) {
		set_err(d->perf_error, sizeof(d->perf_error),
			"'%s' is not installed (not found in PATH)",
			perf ? perf : "perf");
		return;
	}
	perfcmd_version_argv(d->perf_path, 0, &argv);
	st = spawn_capture(argv.v, NULL, &out, &errout, 1 << 16,
			   err, sizeof(err));
	strvec_clear(&argv);
	if (st < 0) {
		set_err(d->perf_error, sizeof(d->perf_error), "%s", err);
		goto out;
	}
	out.len = strcspn(out.buf, "\n");
	out.buf[out.len] = '\0';
	d->perf_version_text = xstrdup(out.buf);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char how[128];

		spawn_describe_status(st, how, sizeof(how));
		errout.len = strcspn(errout.buf, "\n");
		errout.buf[errout.len] = '\0';
		set_err(d->perf_error, sizeof(d->perf_error),
			"'%s version' %s%s%s", d->perf_path, how,
			errout.len ? ": " : "", errout.buf);
		goto out;
	}
	if (perf_version_parse(out.buf, &d->perf_version)) {
		set_err(d->perf_error, sizeof(d->perf_error),
			"cannot understand the output of '%s version': '%.80s'",
			d->perf_path, out.buf);
		goto out;
	}
	d->perf_version_ok = 1;
	perf_version_format(&d->perf_version, d->perf_version_str,
			    sizeof(d->perf_version_str));
	d->jit_fix = perf_version_jit_fix(&d->perf_version, d->jit_fix_why,
					  sizeof(d->jit_fix_why));
	build_options(d);
	from_cache(d);
out:
	strbuf_release(&out);
	strbuf_release(&errout);
}

/* Can this perf unwind with DWARF (--call-graph dwarf) at all? */
static void build_options(struct doctor *d)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	char err[PPR_ERR_LEN];
	int unw, dw, zstd, st;

	d->dwarf_unwind = TRI_UNKNOWN;
	d->perf_debuginfod = -1;
	perfcmd_version_argv(d->perf_path, 1, &argv);
	st = spawn_capture(argv.v, NULL, &out, NULL, 1 << 16, err, sizeof(err));
	strvec_clear(&argv);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		goto out;
	d->perf_debuginfod = perf_build_option(out.buf, "debuginfod");
	d->reader.perf_libtraceevent = perf_build_option(out.buf,
							 "libtraceevent");
	/* record's -z (perfcmd_compress_decide()) */
	zstd = perf_build_option(out.buf, "zstd");
	d->perf_version.zstd = zstd > 0 ? TRI_YES : zstd == 0 ? TRI_NO
							    : TRI_UNKNOWN;
	unw = perf_build_option(out.buf, "libunwind");
	dw = perf_build_option(out.buf, "libdw-dwarf-unwind");
	if (unw < 0 && dw < 0)
		goto out;
	d->dwarf_unwind = unw > 0 || dw > 0 ? TRI_YES : TRI_NO;
	/* context trampolines need a libunwind perf (see mode_decide()) */
	d->perf_version.libunwind = unw > 0 ? TRI_YES : TRI_NO;
	/*
	 * perf's build uses one DWARF unwinder: with libunwind found,
	 * tools/perf/Makefile.config sets NO_LIBDW_DWARF_UNWIND (6.1 to
	 * 6.12 at least).  "libdw-dwarf-unwind: [ on ]" only says that
	 * perf has libdw (HAVE_DWARF_SUPPORT), so both are listed on
	 * Debian's perf, which unwinds with libunwind alone.  The probe
	 * checks this from perf's own messages.
	 */
	if (unw > 0)
		snprintf(d->unwinder, sizeof(d->unwinder), "libunwind");
	else if (dw > 0)
		snprintf(d->unwinder, sizeof(d->unwinder), "libdw");
	if (d->unwinder[0])
		d->unwinder_source = "build";
out:
	strbuf_release(&out);
}

static void judge_perf(struct doctor *d)
{
	enum doctor_level lvl;

	if (!d->perf_path) {
		add_check(d, "perf", "perf.path", DOCTOR_PROBLEM,
			  xstrdup(d->perf_error),
			  xstrdup("install it: apt-get install linux-perf "
				  "(Debian), linux-tools-$(uname -r) "
				  "(Ubuntu), dnf install perf (Fedora)"));
		return;
	}
	if (!d->perf_version_ok) {
		add_check(d, "perf", "perf.version", DOCTOR_PROBLEM,
			  xstrdup(d->perf_error),
			  xasprintf("make sure '%s' is Linux perf and runs: "
				    "try '%s version'", d->perf_path,
				    d->perf_path));
		return;
	}
	add_check(d, "perf", "perf.version", DOCTOR_OK,
		  xasprintf("perf %s (%s)", d->perf_version_str,
			    d->perf_path), NULL);
	if (d->dwarf_unwind == TRI_YES)
		add_check(d, "perf", "perf.dwarf_unwind", DOCTOR_OK,
			  xasprintf("DWARF unwinding with %s (%s)",
				    d->unwinder[0] ? d->unwinder : "an "
				    "unknown library",
				    !d->unwinder_source ? "unknown" :
				    !strcmp(d->unwinder_source, "probe")
					    ? "seen in the probe's recording" :
				    !strcmp(d->unwinder_source, "cache")
					    ? "seen by an earlier probe"
					    : "from the build options"),
			  NULL);
	else if (d->dwarf_unwind == TRI_NO)
		add_check(d, "perf", "perf.dwarf_unwind",
			  d->python_ok && d->mode.name == MODE_PERF
				  ? DOCTOR_WARNING : DOCTOR_PROBLEM,
			  xstrdup("built without libunwind and libdw: "
				  "--call-graph dwarf cannot unwind"),
			  xstrdup("install a perf built with libdw or "
				  "libunwind (the distribution's package is)"));
	if (d->jit_fix == TRI_YES) {
		add_check(d, "perf", "perf.jit_fix", DOCTOR_OK,
			  xasprintf("unwinds through jitted code: %s",
				    d->jit_fix_why), NULL);
		return;
	}
	/* Only jit mode needs the fix; the decision says when it blocks. */
	lvl = d->python_ok && d->mode.name == MODE_PERF ? DOCTOR_OK
							: DOCTOR_WARNING;
	if (d->jit_fix == TRI_NO)
		add_check(d, "perf", "perf.jit_fix", lvl,
			  xasprintf("cannot unwind through jitted code: %s",
				    d->jit_fix_why),
			  lvl == DOCTOR_OK ? NULL :
			  xstrdup("install perf 6.8 or later (or 6.7.2+, "
				  "6.6.14+)"));
	else if (d->probe.ran && d->probe.mode == MODE_PERF)
		add_check(d, "perf", "perf.jit_fix", DOCTOR_OK,
			  xasprintf("unwinding through jitted code: not "
				    "tested (the probe ran in perf mode, "
				    "which does not need it; %s)",
				    d->jit_fix_why), NULL);
	else
		add_check(d, "perf", "perf.jit_fix", lvl,
			  xasprintf("unwinding through jitted code: unknown "
				    "(%s)", d->jit_fix_why),
			  lvl == DOCTOR_OK ? NULL :
			  d->probe_asked ? NULL :
			  !d->python_ok || !d->python_supported
			  ? xstrdup("run 'pyperf-run doctor --probe "
				    "--python PYTHON' with a CPython 3.8 or "
				    "later to find out")
			  : xstrdup("run 'pyperf-run doctor --probe' to find "
				    "out"));
}

/* --- kernel --------------------------------------------------------------- */

static char *open_fix(int error)
{
	switch (error) {
	case EACCES:
	case EPERM:
		return xstrdup("run as root, or allow it: sudo sysctl "
			       "kernel.perf_event_paranoid=2");
	case ENOSYS:
		return xstrdup("this kernel (or container) has no perf "
			       "events: run on the host or enable them");
	default:
		return xstrdup("check 'perf record -e cpu-clock -g true' "
			       "by hand");
	}
}

static void judge_open(struct doctor *d, const struct sysprobe_open *o,
		       const char *id, const char *what, int needed)
{
	if (o->ok) {
		add_check(d, "kernel", id, DOCTOR_OK,
			  xasprintf("can sample %s%s", what,
				    o->user_only ? " (user space only)" : ""),
			  NULL);
		return;
	}
	add_check(d, "kernel", id, needed ? DOCTOR_PROBLEM : DOCTOR_WARNING,
		  xasprintf("perf_event_open(2) refuses sampling %s: %s",
			    what, strerror(o->error)),
		  open_fix(o->error));
}

static void judge_kernel(struct doctor *d)
{
	const struct sysprobe_kernel *k = &d->kernel;
	int jit = !d->python_ok || d->mode.name != MODE_PERF;

	judge_open(d, &k->callchain, "kernel.callchain", "with call chains",
		   1);
	if (k->regs_supported)
		judge_open(d, &k->dwarf, "kernel.dwarf",
			   "with user registers and stack as --call-graph "
			   "dwarf needs", jit);
	if (!k->paranoid.have)
		add_check(d, "kernel", "kernel.perf_event_paranoid",
			  DOCTOR_WARNING,
			  xstrdup("cannot read "
				  "/proc/sys/kernel/perf_event_paranoid"),
			  xstrdup("is /proc mounted?"));
	else if (k->privileged || k->paranoid.value < 2)
		add_check(d, "kernel", "kernel.perf_event_paranoid",
			  DOCTOR_OK,
			  xasprintf("perf_event_paranoid = %ld%s",
				    k->paranoid.value,
				    k->privileged ? " (does not apply to root)"
						  : ""), NULL);
	else
		add_check(d, "kernel", "kernel.perf_event_paranoid",
			  DOCTOR_WARNING,
			  xasprintf("perf_event_paranoid = %ld: user space "
				    "only, no kernel frames",
				    k->paranoid.value),
			  xstrdup("to see kernel frames: sudo sysctl "
				  "kernel.perf_event_paranoid=1"));
	judge_wall(d);
	if (k->kptr_restrict.have) {
		int hidden = k->kptr_restrict.value >= 2 ||
			     (k->kptr_restrict.value == 1 && !k->privileged);

		add_check(d, "kernel", "kernel.kptr_restrict",
			  hidden ? DOCTOR_WARNING : DOCTOR_OK,
			  xasprintf("kptr_restrict = %ld%s",
				    k->kptr_restrict.value,
				    hidden ? ": kernel symbols are hidden"
					   : ""),
			  hidden ? xstrdup("to name kernel frames: sudo "
					   "sysctl kernel.kptr_restrict=0")
				 : NULL);
	}
	if (k->max_sample_rate.have) {
		int low = k->max_sample_rate.value <
			  (long)PERFCMD_FREQ_DEFAULT;

		add_check(d, "kernel", "kernel.perf_event_max_sample_rate",
			  low ? DOCTOR_WARNING : DOCTOR_OK,
			  xasprintf("perf_event_max_sample_rate = %ld%s",
				    k->max_sample_rate.value,
				    low ? ": below record's default "
					  "frequency" : ""),
			  low ? xasprintf("record with '-F %ld' or raise it: "
					  "sudo sysctl kernel."
					  "perf_event_max_sample_rate=%u",
					  k->max_sample_rate.value,
					  PERFCMD_FREQ_DEFAULT)
			      : NULL);
	}
}

/* --- the interpreter ------------------------------------------------------ */

/* Fill one entry of d->syms for the ELF file at path. */
static void inspect_symbols(struct doctor *d, const char *path,
			    struct elf_info *keep)
{
	struct doctor_symbols *y = &d->syms[d->nr_syms];
	struct elf_info e;
	char real[PATH_MAX], err[PPR_ERR_LEN];
	char *dbg;

	if (!realpath(path, real) || elf_info_read(real, &e, err,
						   sizeof(err)))
		return;
	d->nr_syms++;
	y->path = xstrdup(real);
	y->read = 1;
	y->full = e.symtab || e.debug_info;
	snprintf(y->build_id, sizeof(y->build_id), "%s", e.build_id);
	dbg = elf_debug_file(e.build_id);
	if (dbg && access(dbg, R_OK) && d->py_root) {
		/* a chrooted interpreter's debug files are in its root */
		char *in_root = xasprintf("%s%s", d->py_root, dbg);

		free(dbg);
		dbg = in_root;
	}
	if (dbg && !access(dbg, R_OK))
		y->debug_file = dbg;
	else
		free(dbg);
	/* what names the rest, proved by the build-id (debugpkg.h) */
	if (!y->full) {
		y->pkg = xcalloc(1, sizeof(*y->pkg));
		debugpkg_lookup(real, y->pkg);
	}
	if (keep)
		*keep = e;
	else
		elf_info_release(&e);
}

/*
 * Where the dynamic linker would find libpython for exe (roughly); root:
 * the root exe runs in (its library directories are there), or "".
 */
static char *find_lib(const char *exe, const char *root, const char *name)
{
	static const char *const dirs[] = {
		"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
		"/usr/lib64", "/usr/lib", "/usr/local/lib",
	};
	char *dir = xstrdup(exe), *slash = strrchr(dir, '/');
	char *cand;
	size_t i;

	if (slash) {
		*slash = '\0';
		cand = xasprintf("%s/../lib/%s", dir, name);
		free(dir);
		if (!access(cand, R_OK))
			return cand;
		free(cand);
	} else {
		free(dir);
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		cand = xasprintf("%s%s/%s", root, dirs[i], name);
		if (!access(cand, R_OK))
			return cand;
		free(cand);
	}
	return NULL;
}

/*
 * Do the interpreter's executable and libpython name all their code?
 * Debian's python3.11 exports only its public symbols: the rest (the
 * garbage collector, ...) shows as [python3.11] without debug symbols.
 */
static void gather_symbols(struct doctor *d)
{
	const char *root = d->py_root ? d->py_root : "";
	/* a chrooted interpreter's files, as seen from here */
	char *exe = xasprintf("%s%s", root, d->py.executable[0]
					    ? d->py.executable : d->py.path);
	struct elf_info e;
	size_t i, before = d->nr_syms;

	memset(&e, 0, sizeof(e));
	inspect_symbols(d, exe, &e);
	free(exe);
	if (d->nr_syms == before)
		return;
	for (i = 0; i < e.needed.nr; i++) {
		char *lib;

		if (strncmp(e.needed.v[i], "libpython", 9))
			continue;
		lib = find_lib(d->syms[0].path, root, e.needed.v[i]);
		if (lib)
			inspect_symbols(d, lib, NULL);
		free(lib);
		break;
	}
	elf_info_release(&e);
}

static void gather_python(struct doctor *d, const struct doctor_options *o)
{
	struct strvec cmd_py = STRVEC_INIT;
	const char *python = o->python;
	struct stat s;
	char *found;
	int r;

	/* a command's own interpreter, as record finds it */
	d->command = o->command;
	if (!python && o->command &&
	    pyinfo_command_python(o->command[0], o->command + 1,
				  o->nr_command - 1, &cmd_py, &d->py_root)) {
		if (d->py_root) {
			d->python_arg = xstrdup(cmd_py.v[cmd_py.nr - 1]);
			r = pyinfo_probe_argv(cmd_py.v, &d->py,
					      d->python_error,
					      sizeof(d->python_error));
			strvec_clear(&cmd_py);
			if (r) {
				pyinfo_release(&d->py);
				return;
			}
			goto probed;
		}
		python = cmd_py.v[0];
	}
	d->python_arg = xstrdup(python ? python : "python3");
	strvec_clear(&cmd_py);
	if (python)
		python = d->python_arg;	/* cmd_py's words are gone */
	if (!python) {
		found = spawn_which("python3");
		if (!found) {
			set_err(d->python_error, sizeof(d->python_error),
				"no 'python3' found in PATH");
			return;
		}
		free(found);
	} else if (strchr(python, '/') && !stat(python, &s) &&
		   S_ISDIR(s.st_mode)) {
		set_err(d->python_error, sizeof(d->python_error),
			"'%s' is a directory, not a Python interpreter",
			python);
		return;
	}
	if (pyinfo_probe(d->python_arg, &d->py, d->python_error,
			 sizeof(d->python_error))) {
		pyinfo_release(&d->py);
		return;
	}
probed:
	d->python_ok = 1;
	gather_symbols(d);
	d->python_supported = pyinfo_is_cpython(&d->py) &&
			      pyinfo_cmp(&d->py, 3, 8) >= 0;
	d->embedded_supported = mode_embedded_supports(&d->py,
		d->embedded_why, sizeof(d->embedded_why));
	if (d->embedded_supported && d->py_root) {
		/* loaded through PYTHONPATH: our files, not in its root */
		d->embedded_exact = 1;
		set_err(d->embedded_why, sizeof(d->embedded_why), "its files "
			"are not in the root '%s' the command runs it in",
			d->py_root);
	} else if (d->embedded_supported) {
		d->embedded_exact = 1;
		d->embedded_available = embedded_check(&d->py,
			d->embedded_why, sizeof(d->embedded_why));
	}
}

static const char *fp_words(const struct pyinfo *py)
{
	if (py->cflags.fp && py->cflags.leaf_fp)
		return "yes";
	if (py->cflags.fp)
		return "partial (-fno-omit-frame-pointer without "
		       "-mno-omit-leaf-frame-pointer)";
	return "no";
}

static void judge_symbols(struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->nr_syms; i++) {
		const struct doctor_symbols *y = &d->syms[i];
		const char *base = strrchr(y->path, '/');
		struct strbuf fix = STRBUF_INIT;

		base = base ? base + 1 : y->path;
		if (y->full || y->debug_file) {
			const struct debugpkg *k = y->pkg;

			add_check(d, "python", "python.symbols", DOCTOR_OK,
				  !y->debug_file
				  ? xasprintf("symbols: %s names all its "
					      "code", y->path)
				  : k && k->package[0]
				  ? xasprintf("symbols: %s names all its code "
					      "(debug file %s, from %s %s)",
					      y->path, y->debug_file,
					      k->package, k->version)
				  : xasprintf("symbols: %s names all its code "
					      "(debug file %s)", y->path,
					      y->debug_file), NULL);
			continue;
		}
		/* one wording with record's hint: debugpkg_advice() */
		debugpkg_advice(y->pkg, &fix);
		if (y->pkg->verdict == DEBUGPKG_NONE ||
		    y->pkg->verdict == DEBUGPKG_UNKNOWN)
			strbuf_addstr(&fix, d->perf_debuginfod == 1
				      ? "; this perf fetches them itself "
					"when DEBUGINFOD_URLS is set"
				      : d->perf_debuginfod == 0
				      ? "; this perf is built without "
					"debuginfod: the file must be in "
					"/usr/lib/debug/.build-id"
				      : "");
		add_check(d, "python", "python.symbols", DOCTOR_WARNING,
			  xasprintf("symbols: %s has only its exported "
				    "symbols: its other code (the garbage "
				    "collector, ...) shows as [%s]", y->path,
				    base),
			  strbuf_detach(&fix, NULL));
	}
}

static void judge_python(struct doctor *d)
{
	const struct pyinfo *py = &d->py;
	const char *opt;

	if (!d->python_ok) {
		add_check(d, "python", "python.version", DOCTOR_PROBLEM,
			  xstrdup(d->python_error),
			  xstrdup("name a CPython 3.8 or later: "
				  "--python /path/to/python3"));
		return;
	}
	if (!d->python_supported || d->py.major < 3) {
		add_check(d, "python", "python.version", DOCTOR_PROBLEM,
			  xasprintf("%s %s (%s) is not supported: %s",
				    pyinfo_is_cpython(py) ? "CPython"
							  : py->implementation,
				    py->version, py->executable,
				    pyinfo_is_cpython(py)
					    ? "CPython 3.8 or later is needed"
					    : "only CPython can be profiled"),
			  xstrdup("use CPython 3.8 or later: --python "
				  "/path/to/python3"));
		return;
	}
	add_check(d, "python", "python.version", DOCTOR_OK,
		  d->py_root ? xasprintf("CPython %s (%s in the root %s)",
					 py->version, py->executable,
					 d->py_root)
			     : xasprintf("CPython %s (%s)", py->version,
					 py->executable),
		  NULL);
	if (py->native_perf)
		add_check(d, "python", "python.native_perf", DOCTOR_OK,
			  xasprintf("native trampoline: -X perf%s "
				    "(PY_HAVE_PERF_TRAMPOLINE=1)",
				    py->native_perf_jit ? " and -X perf_jit"
							: ", no -X perf_jit "
							  "(3.13+)"), NULL);
	else
		add_check(d, "python", "python.native_perf", DOCTOR_OK,
			  xasprintf("no native trampoline%s",
				    pyinfo_cmp(py, 3, 12) < 0
					    ? " (it came in 3.12)"
					    : " (built without "
					      "PY_HAVE_PERF_TRAMPOLINE)"),
			  NULL);
	add_check(d, "python", "python.frame_pointers", DOCTOR_OK,
		  xasprintf("frame pointers: %s", fp_words(py)), NULL);
	judge_symbols(d);
	opt = py->cflags.opt[0] ? py->cflags.opt : "";
	if (py->pydebug || !strcmp(opt, "O0") || !strcmp(opt, "Og") ||
	    !*opt)
		add_check(d, "python", "python.optimisation", DOCTOR_OK,
			  xasprintf("optimisation: %s%s%s: larger stack dumps "
				    "(%u bytes) in jit mode",
				    *opt ? "-" : "unknown", opt,
				    py->pydebug ? ", debug build" : "",
				    MODE_STACK_UNOPTIMISED), NULL);
	else
		add_check(d, "python", "python.optimisation", DOCTOR_OK,
			  xasprintf("optimisation: -%s", opt), NULL);
	if (!d->embedded_supported) {
		if (py->native_perf_jit)
			return;
		add_check(d, "python", "python.embedded", DOCTOR_OK,
			  xasprintf("embedded trampoline: not for this "
				    "interpreter (%s)", d->embedded_why),
			  NULL);
		return;
	}
	if (d->embedded_available)
		add_check(d, "python", "python.embedded", DOCTOR_OK,
			  xstrdup("embedded trampoline: available"), NULL);
	else
		add_check(d, "python", "python.embedded",
			  py->native_perf ? DOCTOR_WARNING : DOCTOR_PROBLEM,
			  xasprintf("embedded trampoline: unavailable: %s",
				    d->embedded_why),
			  d->py_root ? NULL :
			  xstrdup("install what is missing, then run doctor "
				  "again"));
}

/* --- the decision and the commands ---------------------------------------- */

/* What record asks, with doctor's --perf and --trampoline. */
static void ask_route(struct doctor *d, const struct doctor_options *o,
			enum tristate jit_fix, struct route_ask *a,
			struct route_facts *f)
{
	const char *env = getenv("PYPERF_PERF");

	memset(a, 0, sizeof(*a));
	a->mode = MODE_AUTO;
	a->trampoline = o->trampoline;
	a->trampoline_given = o->trampoline != TRAMPOLINE_NONE;
	a->perf_named = (o->perf && *o->perf) || (env && *env);
	memset(f, 0, sizeof(*f));
	f->py = &d->py;
	f->perf = d->perf_version_ok ? &d->perf_version : NULL;
	f->jit_fix = jit_fix;
	f->embedded_ready = d->embedded_available;
	f->walker = &d->walker_here;
}

static void decide(struct doctor *d, const struct doctor_options *o)
{
	struct route_ask a;
	struct route_facts f;

	if (!d->python_ok)
		return;
	ask_route(d, o, d->jit_fix, &a, &f);
	route_perf(&a, &f, &d->mode);
	d->walker = route_auto_walker(&a, &f, d->walker_why,
				      sizeof(d->walker_why));
}

/*
 * What record runs, built by record's own builder
 * (perfcmd_session_argv(), as record_prepare() calls it): the native
 * trampoline is switched on through the environment, the embedded one
 * through embedded_env() with its files in the session; perf gets -N
 * and not -q, --no-bpf-event when it takes it, and the frequency is
 * capped at the kernel's maximum.
 * record also writes into a temporary directory renamed to the session
 * at the end, and runs the program through a tiny exec helper of its
 * own: both are left out here for readability.
 */
static void build_commands(struct doctor *d)
{
	struct perfcmd_session spec;
	struct strbuf sb = STRBUF_INIT;
	const char *target[3];

	if (!d->python_ok || d->mode.name == MODE_NONE)
		return;
	target[0] = d->py.executable[0] ? d->py.executable : d->py.path;
	target[1] = SHOW_SCRIPT;
	target[2] = NULL;
	if (d->mode.trampoline == TRAMPOLINE_NATIVE) {
		perfcmd_python_switches(d->mode.name, NULL, &d->record_env);
	} else if (d->mode.trampoline == TRAMPOLINE_EMBEDDED) {
		char *dir = NULL;
		char err[PPR_ERR_LEN];
		/* record_jit_dir() makes the jit one: see there why */
		const char *dump = d->mode.name == MODE_JIT
					   ? "/tmp/jitted-pyperf-run.XXXXXX"
					   : SHOW_SESSION "/maps";

		if (embedded_find(&d->py, &dir) ||
		    embedded_env(&d->py, dir, d->mode.name, dump,
				 &d->record_env, err, sizeof(err))) {
			strvec_clear(&d->record_env);
			d->env_note = xstrdup("the embedded trampoline is "
					      "built on first use; record "
					      "then sets PYTHONPATH and "
					      "PYPERF_TRAMPOLINE");
		}
		free(dir);
	}

	memset(&spec, 0, sizeof(spec));
	spec.perf = d->perf_path ? d->perf_path : "perf";
	spec.mode = &d->mode;
	spec.freq = sysprobe_cap_frequency(&d->kernel, PERFCMD_FREQ_DEFAULT);
	spec.session = SHOW_SESSION;
	spec.target = d->command ? (const char *const *)d->command : target;
	spec.no_bpf_event = d->perf_path &&
		perfcmd_record_takes(d->perf_path, PERFCMD_NO_BPF_EVENT_OPT);
	spec.compress = d->perf_path &&
		perfcmd_compress_decide(&d->mode, d->perf_version.zstd,
			perfcmd_record_takes(d->perf_path,
					     PERFCMD_BUILDID_MMAP_OPT),
			sysprobe_mmap_build_id(), d->py_root != NULL, NULL);
	perfcmd_session_argv(&spec, &d->record_argv, &d->inject_argv);
	perfcmd_quote_argv(&sb, d->record_env.v, d->record_argv.v);
	d->record_cmd = strbuf_detach(&sb, NULL);
	if (d->inject_argv.nr) {
		perfcmd_quote_argv(&sb, NULL, d->inject_argv.v);
		d->inject_cmd = strbuf_detach(&sb, NULL);
	}
}

static void judge_decision(struct doctor *d)
{
	const struct mode *m = &d->mode;

	if (!d->python_ok || !d->python_supported)
		return;
	/* what --mode auto takes first; perf record's route below it */
	if (d->walker)
		add_check(d, "decision", "mode.walker", DOCTOR_OK,
			  xstrdup("bpf mode: the in-kernel frame walker, no "
				  "trampoline, no perf record"), NULL);
	if (m->problem[0]) {
		add_check(d, "decision", "mode", DOCTOR_PROBLEM,
			  xasprintf("%s%s", d->walker ? "with --mode jit or "
				    "perf, or without these privileges: " :
				    "", m->problem),
			  d->jit_fix == TRI_NO && m->name != MODE_PERF
				  ? xstrdup("install perf 6.8 or later, or "
					    "use a Python built with frame "
					    "pointers")
				  : xstrdup("see the checks above"));
		return;
	}
	add_check(d, "decision", "mode", DOCTOR_OK,
		  xasprintf("%s%s mode, %s trampoline, call graph %s",
			    d->walker ? "with --mode jit or perf, or "
					"without these privileges: " : "",
			    mode_name_str(m->name),
			    mode_trampoline_str(m->trampoline),
			    m->call_graph), NULL);
	/* The perf version's doubt is reported with perf already. */
	if (m->warning[0] && m->name == MODE_PERF)
		add_check(d, "decision", "mode.warning", DOCTOR_WARNING,
			  xstrdup(m->warning), NULL);
}

/* --- housekeeping --------------------------------------------------------- */

static void gather_housekeeping(struct doctor *d, const char *tmpdir)
{
	int r;

	d->tmpdir = xstrdup(tmpdir ? tmpdir : "/tmp");
	d->tmp_free = sysprobe_free_bytes(d->tmpdir);
	d->stale_error = sysprobe_stale_scan(d->tmpdir, &d->stale);
	d->buildid_dir = sysprobe_buildid_dir();
	if (d->buildid_dir) {
		r = sysprobe_tree_size(d->buildid_dir, 500000,
				       &d->buildid_bytes, &d->buildid_files,
				       &d->buildid_truncated);
		d->buildid_exists = r != -ENOENT;
	}
}

static void judge_housekeeping(struct doctor *d)
{
	char size[32];

	if (d->tmp_free < 0) {
		add_check(d, "housekeeping", "housekeeping.tmp_free",
			  DOCTOR_WARNING,
			  xasprintf("cannot tell the free space in %s: %s",
				    d->tmpdir, strerror((int)-d->tmp_free)),
			  NULL);
	} else {
		unsigned long long fb = (unsigned long long)d->tmp_free;
		enum doctor_level l = fb < (16ULL << 20) ? DOCTOR_PROBLEM
				    : fb < (512ULL << 20) ? DOCTOR_WARNING
							  : DOCTOR_OK;

		sysprobe_human_size(fb, size, sizeof(size));
		add_check(d, "housekeeping", "housekeeping.tmp_free", l,
			  xasprintf("%s free in %s", size, d->tmpdir),
			  l == DOCTOR_OK ? NULL :
			  xasprintf("free space in %s: the interpreter writes "
				    "its map and jitdump files there",
				    d->tmpdir));
	}
	if (d->stale_error) {
		add_check(d, "housekeeping", "housekeeping.stale",
			  DOCTOR_WARNING,
			  xasprintf("cannot read %s: %s", d->tmpdir,
				    strerror(-d->stale_error)), NULL);
	} else if (!d->stale.files) {
		add_check(d, "housekeeping", "housekeeping.stale", DOCTOR_OK,
			  xasprintf("no stale perf-*.map, jit-*.dump or "
				    "jitted-*.so files in %s", d->tmpdir),
			  NULL);
	} else {
		struct strbuf fix = STRBUF_INIT;
		size_t i, show = d->stale.nr_pids < 6 ? d->stale.nr_pids : 6;

		sysprobe_human_size(d->stale.bytes, size, sizeof(size));
		strbuf_addstr(&fix, "for p in");
		for (i = 0; i < show; i++)
			strbuf_addf(&fix, " %d", (int)d->stale.pids[i]);
		strbuf_addf(&fix, "; do rm -f %s/perf-$p.map %s/jit-$p.dump "
			    "%s/jitted-$p-*.so; done", d->tmpdir, d->tmpdir,
			    d->tmpdir);
		if (show < d->stale.nr_pids)
			strbuf_addf(&fix, " (and %zu more PIDs: see --json)",
				    d->stale.nr_pids - show);
		add_check(d, "housekeeping", "housekeeping.stale",
			  DOCTOR_WARNING,
			  xasprintf("%zu stale file%s (%s) in %s from %zu "
				    "process%s that %s gone",
				    d->stale.files,
				    d->stale.files == 1 ? "" : "s", size,
				    d->tmpdir, d->stale.nr_pids,
				    d->stale.nr_pids == 1 ? "" : "es",
				    d->stale.nr_pids == 1 ? "is" : "are"),
			  strbuf_detach(&fix, NULL));
	}
	if (!d->buildid_dir) {
		add_check(d, "housekeeping", "housekeeping.buildid",
			  DOCTOR_OK, xstrdup("no home directory: no build-id "
					     "cache"), NULL);
	} else if (!d->buildid_exists) {
		add_check(d, "housekeeping", "housekeeping.buildid",
			  DOCTOR_OK, xasprintf("build-id cache %s does not "
					       "exist", d->buildid_dir), NULL);
	} else {
		int big = d->buildid_bytes > (1ULL << 30);

		sysprobe_human_size(d->buildid_bytes, size, sizeof(size));
		add_check(d, "housekeeping", "housekeeping.buildid",
			  big ? DOCTOR_WARNING : DOCTOR_OK,
			  xasprintf("build-id cache %s: %s%s in %zu files",
				    d->buildid_dir,
				    d->buildid_truncated ? "more than " : "",
				    size, d->buildid_files),
			  big ? xstrdup("empty it: perf buildid-cache "
					"--purge-all (pyperf-run keeps its "
					"own per session)") : NULL);
	}
}

/* --- the self-test -------------------------------------------------------- */

static void run_probe(struct doctor *d, const struct doctor_options *o)
{
	struct mode m;
	struct route_ask a;
	struct route_facts f;
	const char *tmpdir = o->tmpdir;
	struct doctor_probe *p = &d->probe;
	unsigned max_stack = 0;

	d->probe_asked = 1;
	if (!d->python_ok || !d->python_supported || !d->perf_version_ok) {
		p->unavailable = 1;
		set_err(p->detail, sizeof(p->detail),
			"needs a working perf and a supported interpreter");
		return;
	}
	/* The mode the probe tests: the decision without the version's
	 * verdict on unwinding, which is what the probe finds out. */
	ask_route(d, o, TRI_YES, &a, &f);
	route_perf(&a, &f, &m);
	if (m.name == MODE_NONE) {
		p->unavailable = 1;
		set_err(p->detail, sizeof(p->detail),
			"there is no mode to test: %s", m.problem);
		return;
	}
	/* The private directory goes where temporary files go. */
	if (!tmpdir) {
		const char *t = getenv("TMPDIR");

		tmpdir = t && t[0] == '/' ? t : NULL;
	}
	if (d->kernel.max_stack.have && d->kernel.max_stack.value > 0)
		max_stack = (unsigned)d->kernel.max_stack.value;
	doctor_probe_run(d->perf_path, &d->py, &m, tmpdir,
			 o->probe_stack_size, max_stack, p);
	if (m.name != MODE_JIT || !p->recorded)
		return;
	if (p->unwinder[0]) {
		snprintf(d->unwinder, sizeof(d->unwinder), "%s", p->unwinder);
		d->unwinder_source = "probe";
	}
	if (p->reached_module) {
		d->jit_fix = TRI_YES;
		d->jit_fix_from_probe = 1;
		d->jit_fix_from_cache = 0;
		set_err(d->jit_fix_why, sizeof(d->jit_fix_why),
			"the probe's stacks reach the script's top level");
	} else if (p->names_found &&
		   p->shallow_bytes < p->pass[p->nr_passes - 1].stack_size) {
		/* The shallow stack fit in the dump and still stopped. */
		d->jit_fix = TRI_NO;
		d->jit_fix_from_probe = 1;
		d->jit_fix_from_cache = 0;
		set_err(d->jit_fix_why, sizeof(d->jit_fix_why),
			"the probe's stacks stop at the first Python frame");
	}
	if (d->jit_fix_from_probe || p->unwinder[0]) {
		struct probe_verdict v;
		char err[PPR_ERR_LEN];

		memset(&v, 0, sizeof(v));
		v.jit_fix = d->jit_fix_from_probe ? d->jit_fix : TRI_UNKNOWN;
		snprintf(v.unwinder, sizeof(v.unwinder), "%s", p->unwinder);
		v.when = (long long)time(NULL);
		/* A cache that cannot be written only costs a probe. */
		probe_cache_put(d->perf_path, d->perf_version_text, &v, err,
				sizeof(err));
	}
}

static void judge_probe(struct doctor *d)
{
	struct doctor_probe *p = &d->probe;

	if (!p->ran && !p->unavailable)
		return;
	if (p->unavailable) {
		add_check(d, "probe", "probe", DOCTOR_WARNING,
			  xasprintf("probe not run: %s", p->detail), NULL);
		return;
	}
	if (p->recorded && p->reached_module && !p->shallow_first) {
		add_check(d, "probe", "probe", DOCTOR_WARNING,
			  xasprintf("the %u-byte stack dump cuts even a "
				    "shallow stack (%lu bytes of C stack): "
				    "%zu of %zu samples whole, %zu of %zu at "
				    "%u bytes",
				    p->pass[0].stack_size, p->shallow_bytes,
				    p->pass[0].shallow_complete,
				    p->pass[0].shallow,
				    p->pass[1].shallow_complete,
				    p->pass[1].shallow,
				    p->pass[1].stack_size),
			  xasprintf("record with --stack-size %u or more",
				    p->shallow_need));
	} else if (p->recorded && p->reached_module) {
		add_check(d, "probe", "probe", DOCTOR_OK,
			  xasprintf("recorded in %s mode: Python frames "
				    "down to <module> in %zu of %zu samples "
				    "of a shallow stack",
				    mode_name_str(p->mode),
				    p->pass[0].shallow_complete,
				    p->pass[0].shallow), NULL);
	} else if (p->recorded && !p->names_found &&
		   p->mode == MODE_JIT &&
		   p->trampoline == TRAMPOLINE_EMBEDDED &&
		   !strcmp(d->unwinder, "libdw")) {
		/*
		 * perf's libdw unwinder takes jitted code for what it is
		 * only at /tmp/jitted-*.so (unwind-libdw.c); record puts
		 * the embedded trampoline's there unless /tmp refuses it.
		 */
		add_check(d, "probe", "probe", DOCTOR_PROBLEM,
			  xasprintf("%s mode: %s: this perf unwinds with "
				    "libdw, which steps through jitted code "
				    "only when it lies in /tmp/jitted-*.so, "
				    "and the embedded trampoline's could not "
				    "be put there",
				    mode_name_str(p->mode), p->detail),
			  xstrdup("make /tmp writable and executable "
				  "(not noexec), use a perf built with "
				  "libunwind, or a Python built with frame "
				  "pointers (perf mode)"));
		return;
	} else {
		add_check(d, "probe", "probe", DOCTOR_PROBLEM,
			  xasprintf("%s mode: %s", mode_name_str(p->mode),
				    p->detail),
			  xstrdup(p->recorded && p->names_found
				  ? (p->mode == MODE_JIT
				     ? (!strcmp(d->unwinder, "libdw")
					? "install perf 6.8 or later; with "
					  "libdw unwinding, jitted code must "
					  "come from /tmp/jitted-*.so"
					: "install perf 6.8 or later")
				     : "use a Python built with -fno-omit-"
				       "frame-pointer -mno-omit-leaf-frame-"
				       "pointer")
				  : "see 'pyperf-run record' on a small "
				    "script for perf's own messages"));
		return;
	}
	if (p->limit == PROBE_LIMIT_NONE)
		add_check(d, "probe", "probe.deep", DOCTOR_OK,
			  xasprintf("a %d-level stack through methods, "
				    "generators and C callbacks is whole in "
				    "%zu of %zu samples (%u Python frames)",
				    DOCTOR_PROBE_DEPTH,
				    p->pass[0].deep_complete, p->pass[0].deep,
				    p->pass[0].deep_py_max), NULL);
	else
		add_check(d, "probe", "probe.deep", DOCTOR_WARNING,
			  xasprintf("deep stacks come out cut: %zu of %zu "
				    "samples of a %d-level stack are whole "
				    "(%s): %s",
				    p->pass[0].deep_complete, p->pass[0].deep,
				    DOCTOR_PROBE_DEPTH,
				    probe_limit_name(p->limit),
				    p->limit_why.text),
			  p->limit_why.hint[0] ? xstrdup(p->limit_why.hint)
					       : NULL);
}

/* --- all of it ------------------------------------------------------------ */

void doctor_run(struct doctor *d, const struct doctor_options *o)
{
	memset(d, 0, sizeof(*d));
	d->reader.perf_libtraceevent = -1;
	gather_perf(d, o->perf);
	sysprobe_kernel(&d->kernel);
	gather_walker(d);
	gather_python(d, o);
	gather_housekeeping(d, o->tmpdir);
	doctor_reader_gather(d);
	if (o->probe)
		run_probe(d, o);
	decide(d, o);
	build_commands(d);

	judge_perf(d);
	judge_kernel(d);
	judge_walker(d);
	judge_python(d);
	judge_decision(d);
	judge_housekeeping(d);
	doctor_reader_judge(d);
	judge_probe(d);
}

void doctor_release(struct doctor *d)
{
	size_t i;

	free(d->perf_path);
	free(d->perf_version_text);
	free(d->python_arg);
	free(d->py_root);
	for (i = 0; i < d->nr_syms; i++) {
		free(d->syms[i].path);
		free(d->syms[i].debug_file);
		free(d->syms[i].pkg);
	}
	if (d->python_ok)
		pyinfo_release(&d->py);
	strvec_clear(&d->record_env);
	strvec_clear(&d->record_argv);
	strvec_clear(&d->inject_argv);
	free(d->record_cmd);
	free(d->inject_cmd);
	free(d->env_note);
	free(d->tmpdir);
	sysprobe_stale_release(&d->stale);
	free(d->buildid_dir);
	doctor_checks_release(d);
	memset(d, 0, sizeof(*d));
}
