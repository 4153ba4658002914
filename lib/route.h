/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_ROUTE_H
#define PPR_ROUTE_H
#include "compat.h"
#include "mode.h"
#include "perfcmd.h"
#include "perfversion.h"
#include "problem.h"
#include "pyinfo.h"
#include "sysprobe.h"

/*
 * The route a recording takes: the one decision record (and top, which
 * prepares its program as record does) follows and doctor shows.
 *
 *   bpf mode     the in-kernel frame walker (lib/walker/): no perf
 *                record, no trampoline (route_auto_walker(), route_bpf());
 *   perf record  perf or jit mode, whose trampoline, the dump size
 *                (route_perf(), which is mode.h's mode_decide());
 *   --wall       how off-CPU intervals get their stacks (route_wall()).
 *
 * Each answer comes with its reason, or the problem and a hint.  Facts
 * come in (struct route_facts: the caller probes the interpreter and
 * perf and asks walker/access.h whether the walker can run); nothing
 * here runs a program or prints.
 */

/* What the command line asks for (doctor: only its --perf, --trampoline). */
struct route_ask {
	enum mode_name mode;		/* MODE_AUTO, _PERF, _JIT or _BPF */
	enum mode_trampoline trampoline; /* what mode_decide() is asked */
	int trampoline_given;		/* --trampoline, any value */
	const char *event;		/* -e, or NULL */
	int perf_args;			/* --perf-arg given */
	int perf_named;			/* --perf or $PYPERF_PERF name one */
	unsigned long stack_size;	/* --stack-size, or 0 */
	int nr_pids;			/* -p: attaching to this many */
};

/*
 * Whether the walker can load here (walker/access.h's
 * access_walker_ready()): ready, who loads it ("root", "CAP_BPF and
 * CAP_PERFMON") in why.text; not ready, why not in why.text and what
 * would help in why.hint.  stack_max: the user stack it copies at most
 * (WALKER_USTACK_MAX).
 */
struct route_walker {
	int ready;
	struct problem why;
	unsigned stack_max;
};

/* The facts the decision is made from. */
struct route_facts {
	const struct pyinfo *py;	/* NULL: not probed yet */
	const struct perf_version *perf; /* NULL: unknown */
	enum tristate jit_fix;		/* does perf unwind jitted code */
	int embedded_ready;		/* embedded_available() */
	const struct route_walker *walker;
};

/* bpf mode's user stack copied per sample (see route.c). */
#define ROUTE_BPF_STACK_DEFAULT 32768u

/*
 * Does --mode auto record with the frame walker (bpf mode)?  Yes where
 * it can run here (f->walker) for this interpreter (mode_walker_serves())
 * and nothing a asks for is perf record's: an event other than
 * cpu-clock, --perf-arg, --trampoline (even auto: "use a trampoline"),
 * a named perf, a --stack-size beyond what the walker copies.  It
 * samples the program unchanged (no PEP 523 hook: 3.11+ keeps its
 * inlined calls) and costs less.  why gets one line either way: what
 * made it, or what kept it out.  f->py NULL: the interpreter is not
 * known yet; the rest is asked.
 */
int route_auto_walker(const struct route_ask *a, const struct route_facts *f,
		      char *why, size_t len);

/*
 * bpf mode's settings into out (name, stack size, call graph "walker",
 * reason), or -1 with the problem in p: an option that is perf
 * record's, a stack size beyond the walker's copy, the walker unable
 * to load here or to serve f->py.  Attaching (a->nr_pids) asks neither
 * of the last two: the processes are checked one by one.
 */
int route_bpf(const struct route_ask *a, const struct route_facts *f,
	      struct mode *out, struct problem *p);

/*
 * perf record's route: mode_decide() with a's mode (MODE_AUTO, _PERF
 * or _JIT), trampoline and stack size, and f's facts.  0, or -1 with
 * out->problem set.
 */
int route_perf(const struct route_ask *a, const struct route_facts *f,
	       struct mode *out);

/*
 * --wall's route here: sched:sched_switch for root when tracefs has
 * the event, context-switches samples up to perf_event_paranoid 1,
 * switch records alone at 2 (no stacks at switch-out: off-CPU time is
 * put on each thread's last sampled stack, marked inferred).  *why:
 * a static sentence saying why a lesser route was taken, or NULL.
 */
enum perfcmd_wall route_wall(const struct sysprobe_kernel *k,
			     const char **why);

#endif
