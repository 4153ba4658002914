/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_RUN_H
#define PPR_RECORD_RUN_H
#include "compat.h"
#include "perfcmd.h"
#include "perfdata.h"
#include "perfversion.h"
#include "pyinfo.h"
#include "route.h"
#include "session.h"
#include "spawn.h"
#include "strbuf.h"
#include "sysprobe.h"
#include "record/collect.h"

/*
 * The pipeline of `pyperf-run record`, in three stages:
 *
 *   record_prepare()  check the target, probe the interpreter and perf,
 *                     ask the decision (lib/route.h), create the
 *                     temporary session and build the perf command
 *                     (perfcmd_session_argv());
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
/*
 * --duration S with a program: after S seconds the recording stops and
 * the program gets SIGINT, as from Ctrl-C; if it still runs this many
 * seconds later, SIGTERM (a literal: --help shows it).
 */
#define RECORD_DURATION_GRACE 3	/* cmd/record.c's --help and the man page say 3 s */

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
	int wakers;		/* --wakers (with --wall, bpf mode): who
				   woke each wait */
	int keep_stack_copy;	/* --keep-stack-copy (bpf mode): the
				   stack copies kept, unwound by report */
	enum record_target_kind kind;
	pid_t pids[RECORD_MAX_PIDS];	/* -p */
	int nr_pids;
	double duration;	/* seconds (0: until Ctrl-C, or the program
				   ends); see RECORD_DURATION_GRACE */
	uint64_t max_size;	/* --max-size: bytes of perf.data at which
				   recording stops (0: none); the program
				   is not touched */
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

struct record_backend;

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
	struct spawn max_size_ask; /* asking perf about --max-size, when
				   given */
	struct spawn buildid_mmap_ask; /* asking perf about --buildid-mmap */
	int takes_buildid_mmap;	/* ...its answer (perfcmd_compress_decide()) */
	struct sysprobe_kernel kernel; /* the /proc/sys limits */
	struct route_walker walker; /* can the frame walker load here */
	int walker_asked;	/* ...asked (record_walker_here()) */
	struct mode mode;
	const struct record_backend *backend; /* perf record or the walker,
				   chosen with the mode (run_priv.h) */
	char *perf;		/* resolved perf path */
	char *python;		/* resolved interpreter path (in py_root
				   when set) */
	char *py_root;		/* the root a `-- chroot ROOT PYTHON`
				   command runs its interpreter in, or
				   NULL (pyinfo_command_python()) */
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
	char *root_tmp;		/* py_root's /tmp, where CPython's own
				   trampoline writes */
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
	struct record_kallsyms kallsyms; /* the kernel's symbols, read
				   while the program runs (bpf mode) */
	pid_t helper_pid;	/* the exec helper (not the program's) */
	pid_t program_pid;	/* the program's first process, or 0 */
	double max_size_stop;	/* when perf.data reached --max-size and
				   recording stopped (record_now()), 0: it
				   did not */
	uint64_t max_size_bytes; /* ...perf.data's data then */

	/* finish */
	struct perfdata_scan scan;
	size_t nr_procs;	/* the program's processes */
	double complete;	/* share of judged samples with whole
				   stacks, < 0 when none were judged */
	struct session_meta meta;
	int keep_tmp;		/* leave tmp for the user (commit failed) */
	/*
	 * Read back from the session (record_judge_session()): the objects
	 * code without symbols is in (paths, 1 % or more of the samples
	 * each, most first, at most 3), of every process and of the Python
	 * program's alone (the processes with Python frames), for the
	 * caller's debug-symbol hints; the report's notes, for -v.
	 */
	struct strvec unnamed_objects;
	struct strvec program_unnamed;
	struct strvec notes;
};

/*
 * bpf mode (bpfrun.c): the frame walker instead of perf record, for a
 * program (--mode bpf) or running processes (-p).
 */
int record_is_bpf(const struct record_options *o);
/* r->walker: can the frame walker load here (asked once). */
const struct route_walker *record_walker_here(struct record_run *r);

void record_init(struct record_run *r, const struct record_options *o,
		 record_msg_fn *msg, void *msg_data);
enum record_outcome record_prepare(struct record_run *r);
enum record_outcome record_execute(struct record_run *r);
enum record_outcome record_finish(struct record_run *r);
/* Remove the temporary session unless committed or kept; free all. */
void record_release(struct record_run *r);

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
