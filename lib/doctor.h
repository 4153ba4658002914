#ifndef PPR_DOCTOR_H
#define PPR_DOCTOR_H
#include "compat.h"
#include "mode.h"
#include "perfversion.h"
#include "pyinfo.h"
#include "strbuf.h"
#include "sysprobe.h"

/*
 * Everything `pyperf-run doctor` checks, gathered silently into one
 * struct: facts (perf, kernel, interpreter, housekeeping), the decision
 * (lib/mode.h), the perf commands record would run (lib/perfcmd.h), an
 * optional self-test, and a list of judged checks (ok / warning /
 * problem, each with a one-line fix) for cmd/doctor.c to print.
 * Owner: doctor.
 */

enum doctor_level {
	DOCTOR_OK = 0,
	DOCTOR_WARNING,
	DOCTOR_PROBLEM,
};

struct doctor_check {
	const char *section;	/* "perf", "kernel", "python", "decision",
				   "housekeeping", "probe" (static) */
	const char *id;		/* stable key, e.g. "perf.version" (static) */
	enum doctor_level level;
	char *text;		/* one line: what was found (owned) */
	char *fix;		/* one line: what to do, or NULL (owned) */
};

struct doctor_options {
	const char *python;	/* NULL: "python3" on PATH */
	const char *perf;	/* NULL: "perf" on PATH */
	const char *tmpdir;	/* where perf/jit files pile up; NULL: /tmp */
	int probe;		/* run the self-test */
};

/* The self-test's outcome (--probe). */
struct doctor_probe {
	int ran;		/* a recording was attempted */
	int unavailable;	/* the probe cannot run here (see detail) */
	enum mode_name mode;	/* the mode it recorded in */
	int recorded;		/* perf record (and inject) succeeded */
	int names_found;	/* the probe's functions are in the stacks */
	int reached_module;	/* ...with py::<module> below them */
	size_t samples;		/* samples in the recording */
	size_t python_samples;	/* samples with a probe function */
	pid_t pid;		/* the probe interpreter's pid, or 0 */
	char workdir[256];	/* the private directory (removed) */
	char detail[PPR_ERR_LEN]; /* one line: what went wrong, or "" */
};

struct doctor {
	/* perf */
	char *perf_path;		/* NULL when not found */
	char *perf_version_text;	/* first line of `perf version` */
	char perf_error[PPR_ERR_LEN];	/* why perf cannot be used, or "" */
	int perf_version_ok;
	struct perf_version perf_version;
	char perf_version_str[64];	/* formatted, or "" */
	enum tristate jit_fix;
	char jit_fix_why[256];
	int jit_fix_from_probe;
	enum tristate dwarf_unwind;	/* built with libunwind or libdw */
	char unwinders[64];		/* "libunwind, libdw", or "" */
	/* kernel */
	struct sysprobe_kernel kernel;
	/* the interpreter */
	char *python_arg;		/* what was asked for */
	int python_ok;			/* py is filled */
	struct pyinfo py;
	char python_error[PPR_ERR_LEN];
	int python_supported;		/* CPython 3.8+ */
	int embedded_supported;		/* 3.8-3.12 */
	int embedded_available;		/* ...and buildable or built */
	int embedded_exact;		/* lib/embedded.c answered */
	char embedded_why[PPR_ERR_LEN];
	/* the decision (valid when python_ok) */
	struct mode mode;
	/* what record would run ("script.py" stands for the program) */
	struct strvec record_env;	/* NAME=value the child gets */
	struct strvec record_argv;
	struct strvec inject_argv;	/* empty in perf mode */
	char *record_cmd;		/* record_env + record_argv, quoted */
	char *inject_cmd;		/* or NULL */
	char *env_note;			/* or NULL: why env is a placeholder */
	/* housekeeping */
	char *tmpdir;
	long long tmp_free;		/* bytes, or -errno */
	struct sysprobe_stale stale;
	int stale_error;		/* -errno of the scan, or 0 */
	char *buildid_dir;		/* perf's cache (~/.debug), or NULL */
	int buildid_exists;
	unsigned long long buildid_bytes;
	size_t buildid_files;
	int buildid_truncated;
	/* the self-test */
	struct doctor_probe probe;
	/* the judgement */
	struct doctor_check *checks;
	size_t nr_checks, alloc_checks;
	size_t nr_problems, nr_warnings;
};

/*
 * Gather everything and judge it.  Never fails as a whole: what cannot
 * be learnt becomes a check.  Release with doctor_release().
 */
void doctor_run(struct doctor *d, const struct doctor_options *o);
void doctor_release(struct doctor *d);

/* 1 when nothing blocks profiling with Python frames. */
int doctor_ok(const struct doctor *d);

const char *doctor_level_name(enum doctor_level l);

/*
 * The self-test alone: record the bundled script with py in mode m (the
 * trampoline m->trampoline) using perf, verify, clean up.  Fills out.
 * tmpdir: where the private work directory goes (NULL: /tmp).
 */
void doctor_probe_run(const char *perf, const struct pyinfo *py,
		      const struct mode *m, const char *tmpdir,
		      struct doctor_probe *out);

/*
 * Check `perf script` output (with comm, ip, sym fields) for the probe's
 * frames: sets samples, python_samples, names_found, reached_module.
 */
void doctor_probe_check_script(const char *text, struct doctor_probe *out);

/* One JSON object describing d (see pyperf-run-doctor(1)). */
void doctor_write_json(const struct doctor *d, FILE *fp);

#endif
