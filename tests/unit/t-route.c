/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: lib/route.c, the one decision record and doctor ask:
 * whether --mode auto takes bpf mode (each option that is perf
 * record's keeps it out), bpf mode's settings or its problem and hint,
 * and perf record's route through mode_decide().
 */
#include "compat.h"
#include "route.h"
#include "tap.h"

/* A probe answer for version v (CPython, x86-64, no frame pointers). */
static int fake(struct pyinfo *py, const char *v)
{
	char text[1024], err[PPR_ERR_LEN];

	snprintf(text, sizeof(text),
		 "version=%s\nimplementation=cpython\nmachine=x86_64\n"
		 "cv.PY_HAVE_PERF_TRAMPOLINE=0\ncflags=-O3\n"
		 "has_headers=1\nend=1\n", v);
	memset(py, 0, sizeof(*py));
	return pyinfo_parse(text, py, err, sizeof(err));
}

static void walker_ready(struct route_walker *w, int ready)
{
	memset(w, 0, sizeof(*w));
	w->ready = ready;
	w->stack_max = 32768;
	if (ready) {
		set_err(w->why.text, sizeof(w->why.text), "root");
	} else {
		set_err(w->why.text, sizeof(w->why.text), "no BTF");
		set_err(w->why.hint, sizeof(w->why.hint), "a BTF kernel");
	}
}

static void test_auto_walker(void)
{
	struct route_walker w;
	struct route_ask a;
	struct route_facts f;
	struct pyinfo py, old, p315, p316;
	char why[PPR_ERR_LEN];

	TAP_INT(fake(&py, "3.11.7"), 0, "parse 3.11");
	TAP_INT(fake(&old, "3.7.16"), 0, "parse 3.7");
	TAP_INT(fake(&p315, "3.15.2"), 0, "parse 3.15");
	TAP_INT(fake(&p316, "3.16.0"), 0, "parse 3.16");
	walker_ready(&w, 1);
	memset(&a, 0, sizeof(a));
	memset(&f, 0, sizeof(f));
	a.mode = MODE_AUTO;
	f.walker = &w;

	/* before the probe: the options and the privileges */
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 1,
		"auto, root, no interpreter yet: bpf mode");
	TAP_STR(why, "root", "...who loads it");
	f.py = &py;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 1,
		"auto, root, 3.11: bpf mode");
	TAP_STR(why, "root, python 3.11.7: Python frames walked in the "
		"kernel, the program unchanged (no trampoline, no PEP 523 "
		"hook)", "...with the reason record and doctor show");
	f.py = &old;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"3.7: not bpf mode");
	TAP_STR(why, "not bpf mode: python 3.7.16: the frame walker knows "
		"CPython 3.8 to 3.15", "...and why");
	f.py = &p315;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 1,
		"3.15: bpf mode");
	f.py = &p316;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"3.16: not bpf mode");
	TAP_STR(why, "not bpf mode: python 3.16.0: the frame walker knows "
		"CPython 3.8 to 3.15", "...and why");
	f.py = &py;

	a.event = "cpu-clock";
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 1,
		"-e cpu-clock keeps bpf mode");
	a.event = "task-clock";
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"-e task-clock: perf record");
	TAP_STR(why, "not bpf mode: an event other than cpu-clock (-e) asks "
		"for perf record", "...said");
	a.event = NULL;
	a.perf_args = 1;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"--perf-arg: perf record");
	a.perf_args = 0;
	a.trampoline_given = 1;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"--trampoline: perf record");
	a.trampoline_given = 0;
	a.perf_named = 1;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"--perf: perf record");
	a.perf_named = 0;
	a.stack_size = 32768;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 1,
		"--stack-size within the walker's copy: bpf mode");
	a.stack_size = 32776;
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"--stack-size beyond it: perf record");
	a.stack_size = 0;

	walker_ready(&w, 0);
	TAP_INT(route_auto_walker(&a, &f, why, sizeof(why)), 0,
		"the walker cannot load: perf record");
	TAP_STR(why, "not bpf mode: no BTF", "...and why");
	pyinfo_release(&py);
	pyinfo_release(&old);
	pyinfo_release(&p315);
	pyinfo_release(&p316);
}

static void test_bpf(void)
{
	struct route_walker w;
	struct route_ask a;
	struct route_facts f;
	struct problem p;
	struct pyinfo py, old;
	struct mode m;

	TAP_INT(fake(&py, "3.12.1"), 0, "parse 3.12");
	TAP_INT(fake(&old, "3.7.16"), 0, "parse 3.7");
	walker_ready(&w, 1);
	memset(&a, 0, sizeof(a));
	memset(&f, 0, sizeof(f));
	a.mode = MODE_BPF;
	f.walker = &w;
	f.py = &py;

	TAP_INT(route_bpf(&a, &f, &m, &p), 0, "--mode bpf, root, 3.12");
	TAP_INT(m.name, MODE_BPF, "...bpf mode");
	TAP_INT(m.trampoline, TRAMPOLINE_NONE, "...no trampoline");
	TAP_INT(m.stack_size, ROUTE_BPF_STACK_DEFAULT, "...default stack");
	TAP_STR(m.call_graph, "walker", "...call graph");

	a.event = "cycles";
	TAP_INT(route_bpf(&a, &f, &m, &p), -1, "-e cycles: a problem");
	TAP_STR(p.text, "the frame walker samples cpu-clock only, not "
		"'cycles'", "...said");
	TAP_STR(p.hint, "", "...no hint");
	a.event = NULL;
	a.trampoline_given = 1;
	TAP_INT(route_bpf(&a, &f, &m, &p), -1, "--trampoline: a problem");
	TAP_STR(p.text, "--trampoline is for perf record's modes: bpf mode "
		"runs no perf and no trampoline", "...said");
	a.trampoline_given = 0;
	a.stack_size = 65536;
	TAP_INT(route_bpf(&a, &f, &m, &p), -1, "--stack-size 65536");
	TAP_STR(p.text, "--stack-size 65536 is more than the frame walker "
		"copies (32768 bytes)", "...said");
	a.stack_size = 4096;
	TAP_INT(route_bpf(&a, &f, &m, &p), 0, "--stack-size 4096");
	TAP_INT(m.stack_size, 4096, "...taken");
	a.stack_size = 0;

	f.py = &old;
	TAP_INT(route_bpf(&a, &f, &m, &p), -1, "3.7: a problem");
	TAP_STR(p.hint, "--mode jit or perf use a trampoline instead",
		"...with its hint");
	walker_ready(&w, 0);
	f.py = &py;
	TAP_INT(route_bpf(&a, &f, &m, &p), -1, "cannot load: a problem");
	TAP_STR(p.text, "--mode bpf: no BTF", "...said");
	TAP_STR(p.hint, "a BTF kernel", "...with the walker's fix");

	/* attaching: the processes are checked one by one */
	a.nr_pids = 2;
	f.py = NULL;
	TAP_INT(route_bpf(&a, &f, &m, &p), 0, "-p: no interpreter asked");
	TAP_STR(m.reason, "attaching to 2 processes: Python frames walked "
		"in the kernel", "...reason");
	pyinfo_release(&py);
	pyinfo_release(&old);
}

static void test_perf(void)
{
	struct route_walker w;
	struct route_ask a;
	struct route_facts f;
	struct perf_version pv;
	struct pyinfo py;
	struct mode m, direct;

	TAP_INT(fake(&py, "3.11.7"), 0, "parse 3.11");
	perf_version_parse("perf version 6.8.1", &pv);
	walker_ready(&w, 1);
	memset(&a, 0, sizeof(a));
	memset(&f, 0, sizeof(f));
	a.mode = MODE_AUTO;
	a.trampoline = TRAMPOLINE_AUTO;
	f.walker = &w;
	f.py = &py;
	f.perf = &pv;
	f.jit_fix = TRI_YES;
	f.embedded_ready = MODE_EMBEDDED_READY;
	TAP_INT(route_perf(&a, &f, &m), 0, "perf record's route");
	mode_decide(&py, &pv, TRI_YES, MODE_AUTO, TRAMPOLINE_AUTO, 0,
		    MODE_EMBEDDED_READY, &direct);
	TAP_INT(m.name, direct.name, "...mode_decide()'s mode");
	TAP_STR(m.reason, direct.reason, "...and reason");
	pyinfo_release(&py);
}

int main(void)
{
	test_auto_walker();
	test_bpf();
	test_perf();
	return tap_done();
}
