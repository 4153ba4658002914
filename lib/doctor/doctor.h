/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_DOCTOR_H
#define PPR_DOCTOR_H
#include "compat.h"
#include "doctor/debugpkg.h"
#include "perfversion.h"
#include "report/profile.h"
#include "pyinfo.h"
#include "route.h"
#include "strbuf.h"
#include "sysprobe.h"
#include "walker/access.h"

/*
 * Everything `pyperf-run doctor` checks, gathered silently into one
 * struct: facts (perf, kernel, interpreter, housekeeping), the decision
 * (lib/route.h, as record asks it), the perf commands record would run
 * (built by record's own builder, perfcmd_session_argv()), an optional
 * self-test, and a list of judged checks (ok / warning / problem, each
 * with a one-line fix) for cmd/doctor.c to print.
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
	const char *perf;	/* NULL: $PYPERF_PERF, else "perf" on
				   PATH */
	const char *tmpdir;	/* where perf/jit files pile up; NULL: /tmp */
	int probe;		/* run the self-test */
	enum mode_trampoline trampoline; /* --trampoline; TRAMPOLINE_NONE
					    and _AUTO: automatic */
	unsigned probe_stack_size; /* testing: the probe's first dump size
				      (jit mode); 0: the mode's */
	/*
	 * `doctor -- command...`: the interpreter that command runs
	 * (pyinfo_command_python(): python3.X, or chroot ROOT python3.X,
	 * probed in its root) unless python is set, and the command in
	 * the record line.  NULL: none.
	 */
	char *const *command;
	int nr_command;
};

/* What cut the probe's deep stack (--probe). */
enum probe_limit {
	PROBE_LIMIT_NONE = 0,	/* complete */
	PROBE_LIMIT_DUMP,	/* jit: deeper than the dump size; a larger
				   --stack-size (up to 65528) helps */
	PROBE_LIMIT_DUMP_MAX,	/* jit: deeper than perf can copy at all */
	PROBE_LIMIT_UNWIND,	/* jit: the unwinder stopped inside the dump */
	PROBE_LIMIT_DEPTH,	/* a frame cap: kernel.perf_event_max_stack,
				   or perf script's --max-stack */
	PROBE_LIMIT_NOROOT,	/* perf: the frame-pointer chain broke */
	PROBE_LIMIT_UNKNOWN,	/* no deep sample to judge */
};

/* "none", "dump_size", "dump_max", "unwinder", "frame_cap", ... */
const char *probe_limit_name(enum probe_limit l);

/*
 * One recording of the probe script, as profile_load() read it.  The
 * script runs a shallow stack (a few Python levels) and then a deep one
 * (DOCTOR_PROBE_DEPTH levels through methods, generators, map(),
 * sorted(key=) and functools.reduce()); a sample is complete when its
 * outermost Python frame is the script's <module>.
 */
struct probe_pass {
	unsigned stack_size;	/* jit: dump bytes; 0 in perf mode */
	size_t samples;		/* all samples */
	size_t shallow, shallow_complete;
	size_t deep, deep_complete;
	unsigned deep_py_max;	/* most Python frames in a deep sample */
	unsigned deep_frames_max; /* most frames of any kind in one */
	char deep_stop[128];	/* outermost frame of a cut deep sample */
	uint64_t deep_cut[CUT_NR]; /* cut deep samples by the reason
				   profile_load() gave (its pseudo root) */
	uint64_t quality_cut[CUT_NR]; /* profile_load()'s reasons */
	uint64_t quality_judged;
};

#define DOCTOR_PROBE_DEPTH 64	/* levels of the deep stack */

/* A pass is complete when this share (percent) of its samples is. */
#define DOCTOR_PROBE_COMPLETE_PCT 90

/* The self-test's outcome (--probe). */
struct doctor_probe {
	int ran;		/* a recording was attempted */
	int unavailable;	/* the probe cannot run here (see detail) */
	enum mode_name mode;	/* the mode it recorded in */
	enum mode_trampoline trampoline; /* ...with this trampoline */
	int recorded;		/* perf record (and inject) succeeded */
	int names_found;	/* the probe's functions are in the stacks */
	int reached_module;	/* shallow stacks complete: the unwinder
				   crosses Python (jitted) frames */
	int shallow_first;	/* ...already at the first dump size */
	unsigned shallow_need;	/* when only the second was whole: the
				   dump size a shallow stack needs */
	int deep_complete;	/* the deep stack complete at the first
				   recording's settings */
	enum probe_limit limit;	/* what cut the deep stack */
	unsigned needed_stack;	/* jit: dump size the deep stack needs
				   (from the script's own measure), or 0 */
	unsigned long shallow_bytes; /* C stack under the shallow and */
	unsigned long deep_bytes;    /* deep leaves (bytes), 0 unknown */
	unsigned frame_cap;	/* the cap in force (PROBE_LIMIT_DEPTH) */
	struct probe_pass pass[2]; /* at the mode's size; at 65528 */
	size_t nr_passes;
	char unwinder[16];	/* jit: "libunwind"/"libdw" from perf's
				   own messages, or "" */
	size_t samples;		/* of the first pass */
	size_t python_samples;	/* ...with a probe function */
	pid_t pid;		/* the first probe interpreter's pid, or 0 */
	char workdir[256];	/* the private directory (removed) */
	char detail[PPR_ERR_LEN]; /* one line: what went wrong, or "" */
	struct problem limit_why; /* why deep stacks are cut (one
				   line), and what would help or "" */
};

/* Whether an object of the interpreter has names for all its code. */
struct doctor_symbols {
	char *path;		/* resolved */
	int read;		/* the ELF file could be read */
	int full;		/* .symtab or DWARF in the file */
	char *debug_file;	/* the separate debug file found, or NULL */
	char build_id[81];	/* hex, or "" */
	struct debugpkg *pkg;	/* without .symtab or DWARF: the package
				   of its debug symbols (debugpkg.h);
				   else NULL */
};

/* What the perf.data reader and top need (doctor_reader.c). */
struct doctor_reader {
	char libdw_version[32];		/* dwfl_version(), "" unknown */
	int libperf;			/* built with libperf (top) */
	int perf_libtraceevent;		/* perf's build option: 1 on, 0
					   OFF, 2 not listed by a perf
					   before 6.2 (which builds its own
					   copy in), -1 unknown */
	int kallsyms;			/* /proc/kallsyms as this user: 1
					   addresses, 0 hidden, -errno */
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
	char unwinder[16];		/* the one in use: "libunwind",
					   "libdw", or "" */
	const char *unwinder_source;	/* "probe", "cache", "build" */
	int jit_fix_from_cache;		/* an earlier probe of this perf */
	/* kernel */
	struct sysprobe_kernel kernel;
	struct route_walker walker_here; /* can the frame walker load */
	/* the interpreter */
	char *python_arg;		/* what was asked for */
	char *py_root;			/* the root the command runs it in
					   (chroot), or NULL: its paths
					   (py.executable) are the root's */
	char *const *command;		/* doctor_options' */
	int python_ok;			/* py is filled */
	struct pyinfo py;
	char python_error[PPR_ERR_LEN];
	int python_supported;		/* CPython 3.8+ */
	int embedded_supported;		/* CPython 3.8-3.13, x86-64, not
					   free-threaded:
					   mode_embedded_supports() */
	int embedded_available;		/* ...and buildable or built */
	int embedded_exact;		/* lib/embedded.c answered */
	char embedded_why[PPR_ERR_LEN];
	struct doctor_symbols syms[2];	/* the executable, libpython */
	size_t nr_syms;
	int perf_debuginfod;		/* built with debuginfod: 1, 0, or
					   -1 unknown */
	/*
	 * The decision (valid when python_ok).  walker: --mode auto
	 * records with the frame walker here (route_auto_walker());
	 * walker_why says why, or why not.  mode: perf record's route,
	 * what record runs otherwise (--mode jit/perf, or without the
	 * privileges).
	 */
	int walker;
	char walker_why[256];
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
	/* the perf.data reader and top */
	struct doctor_reader reader;
	/* the self-test */
	int probe_asked;		/* --probe was given */
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

/*
 * The list of checks (doctor_check.c).  doctor_add_check() appends one
 * (text and fix are owned by d from now on): the judges in doctor.c and
 * doctor_reader.c use it.  doctor_checks_release() frees the list.
 */
void doctor_add_check(struct doctor *d, const char *section, const char *id,
		      enum doctor_level level, char *text, char *fix);
void doctor_checks_release(struct doctor *d);

/*
 * The reader checks: doctor_reader_gather() fills d->reader (all but
 * perf_libtraceevent, which doctor.c takes from perf's build options);
 * doctor_reader_judge() turns it, with d->kernel's kptr_restrict,
 * perf_event_paranoid and privileged, into checks of section "reader".
 */
void doctor_reader_gather(struct doctor *d);
void doctor_reader_judge(struct doctor *d);

/*
 * 1: the kallsyms file at path shows kernel addresses, 0: it hides
 * them (all zero), -errno: it cannot be read.
 */
int doctor_kallsyms_probe(const char *path);

/* 1 when nothing blocks profiling with Python frames. */
int doctor_ok(const struct doctor *d);

const char *doctor_level_name(enum doctor_level l);

/*
 * The self-test alone: record the bundled script with py in mode m (the
 * trampoline m->trampoline) using perf, read it with profile_load(),
 * and in jit mode again at the largest dump size when stacks come out
 * cut; clean up.  Fills out.  tmpdir: where the private work directory
 * goes (NULL: /tmp).  stack_size: the first recording's dump size (0:
 * the mode's).  max_stack: the kernel's perf_event_max_stack (0 when
 * unknown).
 */
void doctor_probe_run(const char *perf, const struct pyinfo *py,
		      const struct mode *m, const char *tmpdir,
		      unsigned stack_size, unsigned max_stack,
		      struct doctor_probe *out);

/* Judge one loaded recording of the probe script into out. */
void doctor_probe_check_profile(const struct profile *p,
				struct probe_pass *out);

/*
 * The unwinder named by `perf script -v` messages on a DWARF recording:
 * "libunwind" (its "unwind: find_proc_info dso" lines), "libdw" (step
 * lines without them), or NULL.
 */
const char *doctor_unwinder_from_messages(const char *text);

/* One JSON object describing d (see pyperf-run-doctor(1)). */
void doctor_write_json(const struct doctor *d, FILE *fp);

/*
 * doctor --pid: walker/access.h's report as one JSON object
 * (doctor_pid.c); the text form is cmd/doctor.c's.
 */
void doctor_pid_write_json(const struct access_report *r, FILE *fp);

#endif
