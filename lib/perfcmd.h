/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PERFCMD_H
#define PPR_PERFCMD_H
#include "compat.h"
#include "mode.h"
#include "strbuf.h"

/*
 * The perf command lines pyperf-run runs, built in one place.  record
 * builds its commands with perfcmd_session_argv(), and doctor shows
 * what that same function builds, so that `record` runs exactly what
 * `doctor` shows.
 *
 *   perf mode:  perf [--buildid-dir D] record -e EV -F HZ -g
 *                    [-N] [--no-bpf-event] [--max-size=NB] -o OUT
 *                    [EXTRA...] -- TARGET...
 *   jit mode:   perf [--buildid-dir D] record -e EV -F HZ -k 1
 *                    --call-graph dwarf,SIZE [-N] [--no-bpf-event]
 *                    [--max-size=NB] -o OUT [EXTRA...] -- TARGET...
 *               perf [--buildid-dir D] inject --jit -i IN -o OUT
 *
 * Build-ids (checked with perf 6.1): `perf record` copies every DSO
 * with samples into the build-id cache (~/.debug, or --buildid-dir),
 * unless -N (--no-buildid-cache).  `perf inject --jit` always copies
 * the jitted-PID-N.so files it synthesises into the cache, so only a
 * --buildid-dir keeps ~/.debug from growing in jit mode.  Hence: with
 * a buildid_dir, record caches into it (the session keeps what it
 * needs); without one, record gets -N.
 *
 * The *_argv functions append to a caller-owned strvec (release it
 * with strvec_clear()); perfcmd_record_takes*() run perf to ask it.
 * None print.
 */

/*
 * The perf program to run: explicit_perf (a --perf option) when not
 * NULL, else $PYPERF_PERF when set and not empty, else fallback when it
 * is an absolute path to an executable (the perf a session was
 * recorded with, while it is still there), else "perf".
 */
const char *perfcmd_perf(const char *explicit_perf, const char *fallback);

#define PERFCMD_EVENT_DEFAULT "cpu-clock"
#define PERFCMD_FREQ_DEFAULT 999u
#define PERFCMD_OUTPUT_DEFAULT "perf.data"

enum perfcmd_flags {
	PERFCMD_QUIET = (1 << 0),	/* -q: no "[ perf record: ... ]" */
	PERFCMD_NO_BUILDID_CACHE = (1 << 1), /* -N even with buildid_dir */
	/*
	 * --no-bpf-event: no side-band thread for BPF program events.
	 * perf (5.1 on; checked with 6.1) starts one that polls with a
	 * 1 s timeout and joins it at exit, so a recording lasts up to a
	 * second longer than its program (perf 6.1: `perf record true`
	 * 1.1 s, 0.13 s with the option).  Python profiles have no use for BPF
	 * programs' symbols.  Only for a perf that takes the option
	 * (perfcmd_record_takes()).
	 */
	PERFCMD_NO_BPF_EVENT = (1 << 2),
	/* -z --buildid-mmap: see perfcmd_compress_decide() */
	PERFCMD_COMPRESS = (1 << 3),
};

/* The option PERFCMD_NO_BPF_EVENT adds. */
#define PERFCMD_NO_BPF_EVENT_OPT "--no-bpf-event"
/* The option PERFCMD_COMPRESS adds beside -z, asked of perf first. */
#define PERFCMD_BUILDID_MMAP_OPT "--buildid-mmap"

/*
 * record --wall: what perf records besides the on-CPU samples (checked
 * with perf 6.1).  Every route has --switch-events (PERF_RECORD_SWITCH:
 * when each thread left a CPU and came back, and whether it was
 * preempted; unprivileged up to perf_event_paranoid 2).  The stack at
 * each switch-out comes from a sample of sched:sched_switch (root, or
 * CAP_PERFMON with a readable tracefs; it also carries prev_state) or
 * of the context-switches software event at every switch (period 1;
 * at paranoid 2 it fires in the kernel and gives nothing), with the
 * same call graph as the on-CPU samples.  The on-CPU event then takes
 * its frequency as an event term (EV/freq=HZ/), so that a global -F
 * does not turn the tracepoint into a frequency-sampled one: perf
 * samples a tracepoint at every hit by default.  The kernel filters
 * everything to the workload's tasks (perf's per-task events, inherited
 * by its threads and children).
 */
enum perfcmd_wall {
	PERFCMD_WALL_NONE = 0,
	PERFCMD_WALL_SCHED,	/* + -e sched:sched_switch */
	PERFCMD_WALL_CTXSW,	/* + -e context-switches/period=1/ */
	PERFCMD_WALL_NOSTACK,	/* switch records alone */
};

/* "sched", "context-switches", "switch-records" (NULL for NONE). */
const char *perfcmd_wall_name(enum perfcmd_wall w);

struct perfcmd_record {
	const char *perf;	/* the perf program; NULL = "perf" */
	enum mode_name mode;	/* MODE_PERF or MODE_JIT (else: as JIT) */
	unsigned stack_size;	/* jit mode: bytes; 0 = MODE_STACK_DEFAULT */
	unsigned frequency;	/* -F; 0 = PERFCMD_FREQ_DEFAULT */
	const char *event;	/* -e; NULL = PERFCMD_EVENT_DEFAULT */
	const char *output;	/* -o; NULL = PERFCMD_OUTPUT_DEFAULT */
	const char *buildid_dir; /* perf's global --buildid-dir, or NULL */
	const char *const *extra;  /* NULL-terminated user args, or NULL */
	const char *const *target; /* NULL-terminated command, or NULL */
	unsigned flags;		/* enum perfcmd_flags */
	enum perfcmd_wall wall;	/* record --wall's route */
	uint64_t max_size;	/* --max-size=NB (0: none) */
};

/*
 * Do perf record arguments (--perf-arg's) turn on perf's compression
 * (-z[N], --compression-level[=N])?
 */
int perfcmd_args_compress(const char *const *extra);

/*
 * Does record's perf record compress (PERFCMD_COMPRESS: -z
 * --buildid-mmap)?  Most of a DWARF session is its stack dumps, which
 * zstd packs well (busy.py in jit mode: 6.4 KB a sample, 87 bytes
 * with -z).  With -z, perf skips its build-id pass at the end, so the
 * session would have no build-id table: perf script then misses the
 * files' symbols and cuts stacks (9 % of them on record-split.py),
 * and [vdso] has no name.  --buildid-mmap puts each file's build-id
 * into its MMAP2 record instead, and perf script's stacks are the
 * native reader's again.  So both or neither, only when:
 *   - perf was built with zstd (`perf version --build-options`: the
 *     parser takes -z either way) and takes --buildid-mmap (asked);
 *   - the kernel fills the build-ids (sysprobe_mmap_build_id());
 *   - the mode has no perf inject --jit, which finds no jitdump in
 *     compressed data (perfrun.c refuses a user's -z there);
 *   - the program runs in no other root (chroot): record rewrites the
 *     paths of its mmap records (perfdata_root_paths()), which it
 *     cannot do inside compressed records;
 *   - the user gave no compression option of their own (extra):
 *     --perf-arg=--no-compression-level records uncompressed (perf
 *     6.1 takes --compression-level=0 as its default level, 1).
 */
int perfcmd_compress_decide(const struct mode *m, enum tristate zstd,
			    int takes_buildid_mmap, int kernel_build_id,
			    int in_chroot, const char *const *extra);

/* All defaults: mode MODE_JIT, every pointer NULL, flags 0. */
void perfcmd_record_init(struct perfcmd_record *o);

/*
 * Take mode and stack size from a decision (lib/mode.h).  A mode of
 * MODE_NONE leaves o->mode as it was.
 */
void perfcmd_record_set_mode(struct perfcmd_record *o, const struct mode *m);

/*
 * Append the whole `perf record` argv (starting with the perf program)
 * to out.  Strings in o are copied; o may be freed afterwards.
 */
void perfcmd_record_argv(const struct perfcmd_record *o, struct strvec *out);

/*
 * Append `perf record --dry-run OPTION` to out (perf NULL = "perf"):
 * perf parses its command line and stops there, writing nothing and
 * running nothing, with exit status 0 when it takes OPTION and 129
 * ("unknown option") when not.  A perf without --dry-run (older than
 * 4.9) rejects it the same way: no.
 */
void perfcmd_record_takes_argv(const char *perf, const char *option,
			       struct strvec *out);

/*
 * Does this perf's `perf record` take option?  Asks it (above), which
 * costs about 10 ms; perfcmd_record_takes_start() and _finish() ask
 * while the caller does something else.  1 yes, 0 no (or perf could
 * not be run: then the option is best left out too).
 */
int perfcmd_record_takes(const char *perf, const char *option);
struct spawn;
/* Start asking; returns 0, or -errno (then _finish() answers 0). */
int perfcmd_record_takes_start(struct spawn *sp, const char *perf,
			       const char *option);
/* Wait for the answer: 1 or 0 (also when sp was never started). */
int perfcmd_record_takes_finish(struct spawn *sp);

/*
 * What record's perf commands are made from.  session is the directory
 * perf writes into (its perf.data or perf.raw, and buildid/); target
 * the command perf starts.
 */
struct perfcmd_session {
	const char *perf;
	const struct mode *mode;
	unsigned freq;		/* already capped */
	const char *event;	/* NULL: PERFCMD_EVENT_DEFAULT */
	const char *const *extra; /* --perf-arg, NULL-terminated or NULL */
	const char *session;
	const char *const *target;
	int no_bpf_event;	/* perf takes --no-bpf-event: pass it */
	int compress;		/* perfcmd_compress_decide() said yes */
	enum perfcmd_wall wall;	/* --wall's route (route_wall()) */
	uint64_t max_size;	/* record --max-size: PERFCMD_MAX_SIZE_OPT
				   with these bytes (0: none); only for a
				   perf that takes it */
};

/*
 * perf record's own --max-size: it stops writing once
 * perf.data holds that much, after the buffer it is writing (then it
 * empties its ring buffers into the file too), says "perf size limit
 * reached", and waits for its workload.  A number needs a unit (perf
 * 6.1 refuses "--max-size=100"): bytes are given with B.
 */
#define PERFCMD_MAX_SIZE_OPT "--max-size"

/*
 * The one builder of the commands record runs, which doctor shows:
 * perf record into the session (without -q: perf then keeps its error
 * messages, such as "failed to write perf data, error: No space left
 * on device", to itself; record drops its "[ perf record: ... ]"
 * progress lines from what it says), and when mode_needs_inject() perf
 * inject --jit into inject_argv.
 */
void perfcmd_session_argv(const struct perfcmd_session *s,
			  struct strvec *record_argv,
			  struct strvec *inject_argv);

/*
 * Append `perf [--buildid-dir D] inject --jit -i IN -o OUT` to out.
 * perf NULL = "perf"; buildid_dir may be NULL (then perf caches into
 * ~/.debug: see above).
 */
void perfcmd_inject_argv(const char *perf, const char *buildid_dir,
			 const char *in, const char *output,
			 struct strvec *out);

/*
 * perf script's --max-stack default (127) cuts deep stacks: a Python
 * frame costs about three native frames.  A sample record is at most
 * 64 KiB (its size is a u16), so a kernel callchain holds at most 8191
 * entries, and a DWARF unwind of at most 65528 dumped bytes finds at
 * most 8191 return addresses: 65535 can never be the limit.  (perf 6.1
 * allocates max-stack entries up front and crashes near INT_MAX; 65535
 * costs no more time than 1024.)
 */
#define PERFCMD_SCRIPT_MAX_STACK 65535u

enum perfcmd_script_flags {
	PERFCMD_SCRIPT_TASK_EVENTS = (1 << 0),	/* --show-task-events */
	PERFCMD_SCRIPT_NS = (1 << 1),		/* --ns: times in ns */
	PERFCMD_SCRIPT_INLINE = (1 << 2),	/* keep inlined frames
						   (default --no-inline:
						   much faster) */
};

/*
 * Append `perf [--buildid-dir D] script -i INPUT --max-stack 65535
 * [--no-inline] [--show-task-events] [--ns] [-F FIELDS]` to out, the
 * one way every part of pyperf-run runs perf script.  perf NULL =
 * "perf"; buildid_dir and fields may be NULL; flags: enum
 * perfcmd_script_flags.  Callers append further options (--pid ...).
 */
void perfcmd_script_argv(const char *perf, const char *buildid_dir,
			 const char *input, const char *fields,
			 unsigned flags, struct strvec *out);

/*
 * Append `perf [--buildid-dir D] report -i INPUT` to out (perf NULL =
 * "perf", buildid_dir may be NULL).  Callers append the user's options.
 */
void perfcmd_report_argv(const char *perf, const char *buildid_dir,
			 const char *input, struct strvec *out);

/*
 * Append `perf version` (with --build-options when build_options) to
 * out.  perf NULL = "perf".
 */
void perfcmd_version_argv(const char *perf, int build_options,
			  struct strvec *out);

/*
 * Append `perf stat -x, -e EVENT -- /bin/sh -c :` to out: whether perf
 * may open the event at all, in a fraction of a second (event NULL =
 * PERFCMD_EVENT_DEFAULT).
 */
void perfcmd_stat_check_argv(const char *perf, const char *event,
			     struct strvec *out);

/* A few frames a sample are enough to see which unwinder steps them. */
#define PERFCMD_UNWINDER_MAX_STACK 4u

/*
 * Append `perf [--buildid-dir D] script -v --max-stack 4 -F ip -i INPUT`
 * to out: perf's -v messages on a DWARF recording name its unwinder
 * (doctor_unwinder_from_messages()).
 */
void perfcmd_script_unwinder_argv(const char *perf, const char *buildid_dir,
				  const char *input, struct strvec *out);

/*
 * How to switch on an interpreter's native trampoline (CPython 3.12+)
 * for a mode: the -X option value ("perf" for MODE_PERF, "perf_jit"
 * for MODE_JIT) and the equivalent environment setting
 * ("PYTHONPERFSUPPORT=1" / "PYTHON_PERF_JIT_SUPPORT=1"), which also
 * reaches a Python started indirectly (`record -- make test`).
 * Static strings; NULL for other modes.
 */
const char *perfcmd_python_xoption(enum mode_name mode);
const char *perfcmd_python_env(enum mode_name mode);

/*
 * Append "-X" and the option value for mode to args (when args is not
 * NULL) and the environment settings to env (when env is not NULL): the
 * switch and PYPERF_TRAMPOLINE=native, so that an embedded trampoline
 * installed into the interpreter leaves the work to CPython's own.
 * Nothing is appended for modes without a switch.
 */
void perfcmd_python_switches(enum mode_name mode, struct strvec *args,
			     struct strvec *env);

/*
 * Render argv as one line a POSIX shell would split back into the same
 * words: words made only of [A-Za-z0-9_@%+=:,./-] stay bare, others are
 * single-quoted (a ' becomes '\''), the empty word is ''.  A leading
 * word of "NAME=value" strings can be given as env (NULL-terminated, or
 * NULL); they are quoted the same way and printed first.  Appends to sb.
 */
void perfcmd_quote_argv(struct strbuf *sb, const char *const *env,
			const char *const *argv);

/* Append one word, quoted as perfcmd_quote_argv() does. */
void perfcmd_quote_word(struct strbuf *sb, const char *word);

#endif
