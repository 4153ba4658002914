/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_MODE_H
#define PPR_MODE_H
#include "compat.h"
#include "perfdata.h"
#include "perfversion.h"
#include "pyinfo.h"

/*
 * perf record's part of the one decision (route.h): how to get Python
 * frames into perf for this interpreter and this perf.
 *
 *   perf mode: perf map files (/tmp/perf-PID.map), frame-pointer
 *              unwinding (perf record -g).  Needs a frame-pointer build.
 *   jit mode:  jitdump files with unwind info, DWARF unwinding
 *              (perf record -k 1 --call-graph dwarf,SIZE, then
 *              perf inject --jit).  Works without frame pointers.
 */
enum mode_name {
	MODE_NONE = 0,
	MODE_PERF,
	MODE_JIT,
	MODE_AUTO,	/* only as a request */
	/*
	 * The in-kernel frame walker (lib/walker/): no trampoline, no perf
	 * record; Python frames read from the interpreter at each sample.
	 * Needs root or CAP_BPF + CAP_PERFMON, and ptrace access.
	 */
	MODE_BPF,
};

enum mode_trampoline {
	TRAMPOLINE_NONE = 0,
	TRAMPOLINE_NATIVE,	/* the interpreter's own -X perf / -X perf_jit */
	TRAMPOLINE_EMBEDDED,	/* our library, through PEP 523 */
	TRAMPOLINE_AUTO,	/* only as a request: embedded where it
				   serves the interpreter (3.8-3.13), else
				   native */
};

/*
 * The DWARF stack dump: 32 KiB by default, perf's largest for builds
 * whose frames are big (-O0).  With context trampolines the dump only
 * has to reach the innermost Python frame (its trampoline names every
 * caller): 6 KiB, 24 KiB for -O0 builds.  Measured on pytest running
 * sympy's core/tests/test_arit.py on Debian's python3, complete stacks
 * and session size: 4 KiB 94.8-99.3 % (file reads during imports go
 * deeper), 29 MB; 6 KiB 99.8 %, 42 MB with 5,582 samples; 8 KiB
 * 99.9 %, 55 MB.
 */
#define MODE_STACK_DEFAULT 32768u
#define MODE_STACK_UNOPTIMISED PERF_STACK_DUMP_MAX
#define MODE_STACK_CONTEXTS 6144u
#define MODE_STACK_CONTEXTS_UNOPTIMISED 24576u

struct mode {
	enum mode_name name;
	enum mode_trampoline trampoline;
	/*
	 * The embedded trampoline's context trampolines (trampoline/
	 * README.md): the sample only has to reach the innermost Python
	 * frame; the trampoline writes perf maps and its context table in
	 * both modes, so jit mode needs no jitdump and no perf inject.
	 */
	int contexts;
	unsigned stack_size;	/* jit mode: bytes of stack per sample */
	char call_graph[32];	/* "fp" or "dwarf,16384" */
	char reason[384];	/* one line: why this mode */
	char problem[256];	/* why Python frames cannot work, or "" */
	char warning[256];	/* what may go wrong, or "" */
};

const char *mode_name_str(enum mode_name m);
const char *mode_trampoline_str(enum mode_trampoline t);
/* "auto", "perf", "jit", "bpf" -> enum; -EINVAL otherwise. */
int mode_parse(const char *s, enum mode_name *out);
/* "auto", "native", "embedded" -> enum; -EINVAL otherwise. */
int mode_trampoline_parse(const char *s, enum mode_trampoline *out);

/*
 * Can the embedded trampoline serve this interpreter (CPython 3.8-3.13
 * on x86-64, not free-threaded)?  why gets the reason when not.
 */
int mode_embedded_supports(const struct pyinfo *py, char *why, size_t len);

/*
 * Can the in-kernel frame walker (bpf mode) serve this interpreter:
 * CPython 3.8 to 3.15, not free-threaded?  why gets the reason when not.
 */
int mode_walker_serves(const struct pyinfo *py, char *why, size_t len);

/*
 * Whether a recording goes through perf inject --jit: jit mode with a
 * jitdump (CPython's own -X perf_jit); context trampolines need none.
 */
static inline int mode_needs_inject(const struct mode *m)
{
	return m->name == MODE_JIT && !m->contexts;
}

/*
 * Are a session's native stacks unwound from copies of the user stack
 * (jit mode; bpf mode, whose walker copies it too), not frame pointers?
 */
static inline int mode_copies_stacks(const struct mode *m)
{
	return m->name == MODE_JIT || m->name == MODE_BPF;
}

/*
 * Decide.  requested is MODE_AUTO, MODE_PERF or MODE_JIT; stack_size 0
 * means automatic.  jit_fix comes from perf_version_jit_fix() (or from
 * a probe).  embedded_ready says whether the embedded trampoline library
 * is built, or can be built, for this interpreter (non-zero), and
 * MODE_EMBEDDED_PLAIN in it that it is used without context trampolines
 * (pyperf-python and `trampoline env`: raw perf tools need a name per
 * function, and jit mode then a jitdump).  tramp is the
 * trampoline asked for (record's and doctor's --trampoline:
 * TRAMPOLINE_AUTO, _NATIVE or _EMBEDDED): automatically the embedded one
 * wherever it serves the interpreter and is ready (it keeps thread
 * stacks whole with libunwind perfs and names frames right after fork,
 * which CPython's own does not), else CPython's own, with out->reason
 * saying so.  Always fills out; out->name == MODE_NONE with
 * out->problem set when Python frames cannot be had.  Returns 0, or -1
 * when out->problem is set.
 */
#define MODE_EMBEDDED_READY 1
#define MODE_EMBEDDED_PLAIN 2
int mode_decide(const struct pyinfo *py, const struct perf_version *perf,
		enum tristate jit_fix, enum mode_name requested,
		enum mode_trampoline tramp,
		unsigned stack_size, int embedded_ready, struct mode *out);

#endif
