/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_RUN_H
#define PPR_RECORD_RUN_H
#include "compat.h"
#include "mode.h"
#include "perfcmd.h"
#include "perfdata.h"
#include "perfversion.h"
#include "pyinfo.h"
#include "session.h"
#include "spawn.h"
#include "strbuf.h"
#include "sysprobe.h"

/*
 * The pipeline of `pyperf-run record`, in three stages:
 *
 *   record_prepare()  check the target, probe the interpreter and perf,
 *                     decide the mode, create the temporary session and
 *                     build the perf command (record_perf_commands());
 *   record_execute()  run perf record (and perf inject) with the
 *                     program under the internal exec helper;
 *   record_finish()   fix and complete the session, judge its stacks
 *                     and commit it.
 *
 * Processes:
 *   pyperf-run record          (us: waits, then injects and collects)
 *     perf record ...          (stderr captured, for its messages)
 *       pyperf-run record --internal-exec STATUS ERRFD FILE -- PROG...
 *         PROG...              (the user's program, stdio untouched)
 *
 * The internal exec helper (record_exec_program()) is perf's workload:
 * it starts the program, waits for it and writes its wait status to the
 * STATUS file (record/status.h), because perf record's own exit status
 * does not tell the program's.  It puts our original stderr (ERRFD)
 * back as the program's fd 2, and runs FILE, the program as record
 * found it in PATH (r->program_path, which top runs too), with the argv
 * PROG... the user gave.
 *
 * Nothing here prints: every message goes to the caller's callback.
 */

enum record_msg_level {
	RECORD_MSG_ERROR,	/* why the recording failed */
	RECORD_MSG_WARNING,
	RECORD_MSG_HINT,	/* what to do, after an error or warning */
	RECORD_MSG_NOTE,	/* what perf said, when all went well: a
				   quiet caller drops it */
	RECORD_MSG_OUTPUT,	/* a tool's own lines (several, '\n'
				   separated) under the message before */
};

/* One message: text has no trailing newline (except OUTPUT's lines). */
typedef void record_msg_fn(void *data, enum record_msg_level level,
			   const char *text);

#define RECORD_INTERNAL_EXEC "--internal-exec"
/*
 * The caller's PATH, for the exec helper to give the program back
 * (perf changes it for its workload); absent: the caller had none.
 */
#define RECORD_PATH_ENV "PYPERF_RUN_PATH"

enum record_target_kind {
	RECORD_TARGET_SCRIPT,
	RECORD_TARGET_MODULE,	/* -m */
	RECORD_TARGET_CODE,	/* -c */
	RECORD_TARGET_COMMAND,	/* -- command */
	RECORD_TARGET_PIDS,	/* -p: running processes (the walker) */
};

#define RECORD_MAX_PIDS 64

struct record_options {
	const char *output;	/* the session directory */
	const char *python;	/* NULL: python3 on PATH */
	const char *perf;	/* --perf, or NULL */
	enum mode_name mode;
	enum mode_trampoline trampoline;
	int trampoline_given;	/* --trampoline, even auto: a trampoline,
				   perf record's route (not bpf mode) */
	unsigned long freq;	/* 0: PERFCMD_FREQ_DEFAULT */
	unsigned long stack_size; /* 0: by build */
	const char *event;	/* NULL: PERFCMD_EVENT_DEFAULT */
	const char *const *perf_args; /* NULL-terminated, or NULL */
	int wall;		/* --wall: off-CPU intervals too */
	enum record_target_kind kind;
	pid_t pids[RECORD_MAX_PIDS];	/* -p */
	int nr_pids;
	double duration;	/* -p: seconds (0: until Ctrl-C) */
	const char *what;	/* script, module, code or command */
	char **args;		/* the rest */
	int nr_args;
};

/* How a stage ended (cmd/record.c picks the exit code). */
enum record_outcome {
	RECORD_OK = 0,		/* go on; after finish: the program's
				   status is in wait_status */
	RECORD_FAILED,		/* pyperf-run could not record */
	RECORD_NOT_FOUND,	/* the program cannot be found */
	RECORD_CANNOT_EXEC,	/* ...or found and cannot be run */
};

struct record_run {
	const struct record_options *o;
	record_msg_fn *msg;
	void *msg_data;

	/* prepare: the facts and the decision */
	struct pyinfo py;
	int have_py;
	int probed;		/* the probe ran (not from the cache) */
	struct perf_version pv;
	char perf_line[128];	/* its `perf version` line */
	enum tristate fix;	/* does perf unwind jitted code */
	struct spawn bpf_ask;	/* asking perf about --no-bpf-event */
	int no_bpf_event;	/* ...its answer: perf takes it */
	struct sysprobe_kernel kernel; /* the /proc/sys limits */
	struct mode mode;
	char *perf;		/* resolved perf path */
	char *python;		/* resolved interpreter path */
	unsigned freq;		/* capped */
	enum perfcmd_wall wall;	/* --wall's route, or NONE */
	struct strvec target;	/* the program's argv */
	char *program_path;	/* the file it runs: target.v[0] found in
				   PATH (record_check_command()), or the
				   interpreter's path */
	struct strvec env_set;	/* NAME=value the program gets */

	/* prepare: the session being built and the commands */
	char *tmp;		/* the temporary session directory */
	char *abs_tmp;
	char *self;		/* our executable, for the exec helper */
	char *statusf, *reserve, *raw, *data, *bid;
	char *dump_dir;		/* embedded trampoline's files */
	char *jit_dir;		/* ...when private (record_jit_dir()) */
	const char *srcdirs[3];	/* where map/dump files are collected */
	int errfd;		/* our stderr, for the program */
	struct strvec env;	/* the whole environment of perf */
	struct strvec perf_argv; /* perf record */
	struct strvec inject_argv; /* perf inject (jit mode), or empty */

	/* execute */
	double start, end;
	int wait_status;	/* the program's wait status */
	int program_ended;	/* the recording failed after the program
				   ran to its end: wait_status is its
				   status, which record exits with */
	int nospace;		/* perf ran out of space */
	pid_t helper_pid;	/* the exec helper (not the program's) */
	pid_t program_pid;	/* the program's first process, or 0 */

	/* finish */
	struct perfdata_scan scan;
	size_t nr_procs;	/* the program's processes */
	double complete;	/* share of judged samples with whole
				   stacks, < 0 when none were judged */
	struct session_meta meta;
	int keep_tmp;		/* leave tmp for the user (commit failed) */
	struct strvec unnamed_objects; /* when code without symbols is 1 %
				   of the samples or more: the objects it
				   is in (paths) with 1 % or more each,
				   most samples first, at most 3, for the
				   caller's hint */
};

/*
 * bpf mode (bpfrun.c): the frame walker instead of perf record, for a
 * program (--mode bpf) or running processes (-p).
 */
int record_is_bpf(const struct record_options *o);
enum record_outcome record_bpf_decide(struct record_run *r);

/*
 * What --mode auto needs to know to pick the frame walker.  Everything
 * but py comes from the command line; doctor asks with none of them.
 */
struct record_auto_ask {
	const char *event;	/* -e, or NULL */
	int perf_args;		/* --perf-arg given */
	int perf_named;		/* --perf or $PYPERF_PERF names a perf */
	int trampoline_given;	/* --trampoline, any value */
	unsigned long stack_size; /* --stack-size, or 0 */
};

/*
 * Does --mode auto record with the frame walker (bpf mode)?  Yes where
 * it can run here (root, or CAP_BPF and CAP_PERFMON: access_walker_
 * ready()) for this interpreter (mode_walker_serves()), and nothing on
 * the command line is for perf record's modes: an event other than
 * cpu-clock, --perf-arg, --trampoline (even auto: "use a trampoline"),
 * a named perf, a --stack-size
 * beyond what the walker copies.  It samples the program unchanged
 * (no PEP 523 hook: 3.11+ keeps its inlined calls) and costs less.
 * why gets one line either way: what made it, or what kept it out.
 * py NULL: the interpreter is not known yet; the rest is asked.
 * The one decision record (run.c) follows and doctor shows.
 */
int record_auto_walker(const struct record_auto_ask *a,
		       const struct pyinfo *py, char *why, size_t len);
enum record_outcome record_bpf_execute(struct record_run *r);

void record_init(struct record_run *r, const struct record_options *o,
		 record_msg_fn *msg, void *msg_data);
enum record_outcome record_prepare(struct record_run *r);
enum record_outcome record_execute(struct record_run *r);
enum record_outcome record_finish(struct record_run *r);
/* Remove the temporary session unless committed or kept; free all. */
void record_release(struct record_run *r);

/*
 * What record's perf commands are made from.  session is the directory
 * perf writes into (its perf.data or perf.raw, and buildid/); target
 * the command perf starts.
 */
struct record_perf_spec {
	const char *perf;
	const struct mode *mode;
	unsigned freq;		/* already capped */
	const char *event;	/* NULL: PERFCMD_EVENT_DEFAULT */
	const char *const *extra; /* --perf-arg, NULL-terminated or NULL */
	const char *session;
	const char *const *target;
	int no_bpf_event;	/* perf takes --no-bpf-event: pass it */
	enum perfcmd_wall wall;	/* --wall's route (record_wall_route()) */
};

/*
 * --wall's route here: sched:sched_switch for root when tracefs has
 * the event, context-switches samples up to perf_event_paranoid 1,
 * switch records alone at 2 (no stacks at switch-out: off-CPU time is
 * put on each thread's last sampled stack, marked inferred).  *why:
 * a static sentence saying why a lesser route was taken, or NULL.
 */
enum perfcmd_wall record_wall_route(const struct sysprobe_kernel *k,
				    const char **why);

/*
 * Whether the recording goes through perf inject --jit: jit mode with a
 * jitdump (CPython's own -X perf_jit); context trampolines need none.
 */
static inline int record_needs_inject(const struct mode *m)
{
	return m->name == MODE_JIT && !m->contexts;
}

/*
 * The one builder of the commands record runs, which doctor shows:
 * perf record into the session (without -q: perf then keeps its error
 * messages, such as "failed to write perf data, error: No space left
 * on device", to itself; its "[ perf record: ... ]" progress lines are
 * dropped from what it says), and when record_needs_inject() perf
 * inject --jit into inject_argv.
 */
void record_perf_commands(const struct record_perf_spec *s,
			  struct strvec *record_argv,
			  struct strvec *inject_argv);

/*
 * The internal exec helper: write our pid to statusf, start file with
 * argv and errfd as its stderr, write its pid, pass SIGTERM/SIGHUP on
 * to it (not perf's own SIGTERM after a Ctrl-C), wait and write its
 * status.  Returns RECORD_OK with *wait_status set, or why the program
 * could not start.
 */
enum record_outcome record_exec_program(const char *statusf, int errfd,
					const char *file, char *const *argv,
					int *wait_status, record_msg_fn *msg,
					void *msg_data);

#endif
