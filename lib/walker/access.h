/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_ACCESS_H
#define PPR_WALKER_ACCESS_H
/*
 * Can the in-kernel walker attach to a process?  One call answers it for
 * record -p, top -p and doctor --pid, and says for each thing it needs
 * what was found and, when it is missing, the exact fix.
 *
 * The ptrace question is judged by the CALLER's real credentials, never
 * by the effective ones: a pyperf-run given capabilities with setcap
 * (cap_sys_ptrace among them) would otherwise read the memory of a
 * process its user could not.  Real uid 0 may read any process (unless
 * kernel.yama.ptrace_scope is 3); any other user only a process whose
 * real, effective and saved uids and gids are all the caller's real
 * ones, that is dumpable, and that Yama allows (scope 0: any such
 * process; 1: only the caller's descendants; 2, 3: none).  The
 * interpreter is inspected (pytarget_inspect) only when that check
 * passed.
 */
#include "compat.h"
#include "walker/pytarget.h"

/*
 * The fix for missing BPF or perf privileges, said by every refusal
 * (record -p, record --mode bpf, doctor --pid).
 */
#define ACCESS_SETCAP_FIX "run as root, or give pyperf-run the " \
	"capabilities: sudo setcap cap_bpf,cap_perfmon,cap_sys_ptrace+ep " \
	"\"$(command -v pyperf-run)\""

enum access_need {
	ACCESS_PROCESS,		/* the process exists */
	ACCESS_PTRACE,		/* the caller may read its memory */
	ACCESS_BPF,		/* root, or CAP_BPF + CAP_PERFMON */
	ACCESS_SECCOMP,		/* no seccomp filter in the way (a warning) */
	ACCESS_PERF,		/* perf_event_open for cpu-clock sampling */
	ACCESS_PYTHON,		/* a CPython the walker knows */
	ACCESS_NR
};

enum access_state {
	ACCESS_OK = 0,
	ACCESS_WARN,		/* may be in the way: said, not refused */
	ACCESS_MISSING,		/* attaching cannot work */
	ACCESS_NOT_CHECKED,	/* not checked: something before it failed */
};

struct access_item {
	enum access_state state;
	char what[320];		/* what was found, one line */
	char fix[320];		/* the fix ("" when none is needed) */
};

struct access_report {
	pid_t pid;
	int ok;			/* attaching can work (warnings allowed) */
	/* the facts the items were judged from (-1: could not be read) */
	long caller_ruid, caller_rgid, caller_euid;
	long target_uid[3], target_gid[3];	/* real, effective, saved */
	long yama_scope, unprivileged_bpf_disabled, perf_event_paranoid;
	long seccomp;		/* 0 none, 1 strict, 2 filter */
	int cap_bpf, cap_perfmon, cap_sys_admin, cap_sys_ptrace;
	int descendant;		/* the target descends from the caller */
	int dumpable;		/* -1 unknown */
	struct pytarget target;
	enum pytarget_status py_status;
	struct access_item item[ACCESS_NR];
	char summary[512];	/* "record -p 1234 would walk frames in the
				   kernel: python 3.11.2, layout from
				   tables", or the first thing missing */
};

/*
 * Can this process load the walker at all, whatever the target: built
 * with libbpf, the kernel's BTF there, and root or CAP_BPF + CAP_PERFMON
 * (or CAP_SYS_ADMIN) in the effective set.  1, or 0 with why (one line)
 * and fix (the exact fix, or "").  What --mode auto asks before it
 * picks the walker.
 */
int access_walker_ready(char *why, size_t whylen, char *fix, size_t fixlen);

/* Check everything for pid.  Returns r->ok. */
int access_check(pid_t pid, struct access_report *r);

/* "process", "ptrace", "bpf", "seccomp", "perf", "python". */
const char *access_need_name(enum access_need n);
/* "ok", "warning", "missing", "not-checked". */
const char *access_state_name(enum access_state s);

#endif
