/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The route a recording takes (see route.h): bpf mode or perf record's,
 * and --wall's.
 */
#include "compat.h"
#include "route.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/*
 * ROUTE_BPF_STACK_DEFAULT: the user stack copied per sample, all the
 * frame walker copies (WALKER_USTACK_MAX): the copy is unwound as it is
 * recorded and not kept, so its size costs the ring buffer and the
 * unwinding, not the session.  On pytest running sympy's
 * core/tests/test_arit.py (Debian's 3.11), 10 % of the samples had C
 * frames between outer Python calls beyond it, 67 % beyond 8 KiB, for
 * the same time (1.007x); such stacks come out with every Python frame
 * and the missing C frames said (report/src_native_walkmerge.h).
 */

/* The option that asks for perf record's route, or NULL. */
static const char *perf_option(const struct route_ask *a,
			       const struct route_facts *f)
{
	if (a->event && strcmp(a->event, "cpu-clock"))
		return "an event other than cpu-clock (-e)";
	if (a->perf_args)
		return "--perf-arg";
	if (a->trampoline_given)
		return "--trampoline";
	if (a->perf_named)
		return "a perf named by --perf or $PYPERF_PERF";
	if (a->stack_size > f->walker->stack_max)
		return "a --stack-size beyond the walker's copy";
	return NULL;
}

/* Why bpf mode records: who may load it, and the interpreter. */
static void walker_reason(const struct route_walker *w,
			  const struct pyinfo *py, char *why, size_t len)
{
	set_err(why, len, "%s, python %s: Python frames walked in the "
		"kernel, the program unchanged (no trampoline, no PEP 523 "
		"hook)", w->why.text, py->version);
}

int route_auto_walker(const struct route_ask *a, const struct route_facts *f,
		      char *why, size_t len)
{
	const struct route_walker *w = f->walker;
	const char *opt = perf_option(a, f);
	char pywhy[PPR_ERR_LEN];

	if (opt) {
		set_err(why, len, "not bpf mode: %s asks for perf record",
			opt);
		return 0;
	}
	if (!w->ready) {
		set_err(why, len, "not bpf mode: %s", w->why.text);
		return 0;
	}
	if (!f->py) {
		set_err(why, len, "%s", w->why.text);
		return 1;
	}
	if (!mode_walker_serves(f->py, pywhy, sizeof(pywhy))) {
		set_err(why, len, "not bpf mode: %s", pywhy);
		return 0;
	}
	walker_reason(w, f->py, why, len);
	return 1;
}

int route_bpf(const struct route_ask *a, const struct route_facts *f,
	      struct mode *out, struct problem *p)
{
	const struct route_walker *w = f->walker;
	char why[PPR_ERR_LEN];

	memset(out, 0, sizeof(*out));
	memset(p, 0, sizeof(*p));
	if (a->event && strcmp(a->event, "cpu-clock"))
		return set_err(p->text, sizeof(p->text), "the frame walker "
			       "samples cpu-clock only, not '%s'", a->event);
	if (a->perf_args || a->trampoline_given)
		return set_err(p->text, sizeof(p->text), "%s is for perf "
			       "record's modes: bpf mode runs no perf and no "
			       "trampoline", a->perf_args ? "--perf-arg"
							  : "--trampoline");
	out->name = MODE_BPF;
	out->trampoline = TRAMPOLINE_NONE;
	out->stack_size = a->stack_size ? (unsigned)a->stack_size
					: ROUTE_BPF_STACK_DEFAULT;
	if (out->stack_size > w->stack_max)
		return set_err(p->text, sizeof(p->text), "--stack-size %u is "
			       "more than the frame walker copies (%u bytes)",
			       out->stack_size, w->stack_max);
	snprintf(out->call_graph, sizeof(out->call_graph), "walker");
	if (a->nr_pids) {
		set_err(out->reason, sizeof(out->reason), "attaching to %d "
			"process%s: Python frames walked in the kernel",
			a->nr_pids, a->nr_pids == 1 ? "" : "es");
		return 0;
	}
	if (!w->ready) {
		set_err(p->hint, sizeof(p->hint), "%s", w->why.hint);
		return set_err(p->text, sizeof(p->text), "--mode bpf: %s",
			       w->why.text);
	}
	if (!mode_walker_serves(f->py, why, sizeof(why))) {
		set_err(p->hint, sizeof(p->hint), "--mode jit or perf use a "
			"trampoline instead");
		return set_err(p->text, sizeof(p->text), "--mode bpf: %s",
			       why);
	}
	/* the same words --mode auto chose it with */
	walker_reason(w, f->py, out->reason, sizeof(out->reason));
	return 0;
}

int route_perf(const struct route_ask *a, const struct route_facts *f,
	       struct mode *out)
{
	return mode_decide(f->py, f->perf, f->jit_fix, a->mode,
			   a->trampoline, (unsigned)a->stack_size,
			   f->embedded_ready, out);
}

/*
 * Does tracefs have sched:sched_switch (perf needs its id)?  Also yes
 * when tracefs is not mounted but can be: perf, run as root, mounts it
 * at /sys/kernel/tracing itself when an event needs it (machines and
 * containers without systemd have it unmounted until then).  Only root
 * callers ask (route_wall()), so perf can do that mount for them.
 */
static int have_sched_switch(void)
{
	static const char *const ids[] = {
		"/sys/kernel/tracing/events/sched/sched_switch/id",
		"/sys/kernel/debug/tracing/events/sched/sched_switch/id",
	};
	char buf[4096];
	size_t i;
	ssize_t n;
	int fd;

	for (i = 0; i < ARRAY_SIZE(ids); i++)
		if (!access(ids[i], R_OK))
			return 1;
	if (access("/sys/kernel/tracing", F_OK))
		return 0;
	fd = open("/proc/filesystems", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "\ttracefs\n") != NULL;
}

enum perfcmd_wall route_wall(const struct sysprobe_kernel *k,
			     const char **why)
{
	*why = NULL;
	if (k->privileged && have_sched_switch())
		return PERFCMD_WALL_SCHED;
	if (k->privileged || !k->paranoid.have || k->paranoid.value <= 1)
		return PERFCMD_WALL_CTXSW;
	*why = "kernel.perf_event_paranoid is 2 or more: perf records when "
	       "each thread waits but not the stack it waits on, so off-CPU "
	       "time is put on each thread's last sampled stack and marked "
	       "'stack inferred'";
	return PERFCMD_WALL_NOSTACK;
}
