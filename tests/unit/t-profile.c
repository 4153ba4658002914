/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/report/profile.c: the model
 * (interning, totals, trees, pruning) and loading a session through a
 * fake perf that prints fixture `perf script` text, so that frame
 * classification, folding, views, map resolution and filters are
 * checked exactly.
 */
#include "compat.h"
#include "alloc.h"
#include "report/fmt.h"
#include "report/profile.h"
#include "report/calltree.h"
#include "strbuf.h"
#include "tap.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#define LP "/lib/libpython3.13.so.1.0"
#define LC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define EXE "/usr/bin/python3.13"
#define JIT "/tmp/jitted-100-1.so"
#define TR "/c/_pyperf_trampoline.cpython-311-x86_64-linux-gnu.so"

static const char script[] =
	/* 1: jit mode, two Python frames over the eval loop */
	"python3.13 100/100 10.000000: 1000 cpu-clock: \n"
	"\t1 _PyObject_Malloc (" LP ")\n"
	"\t2 _PyEval_EvalFrameDefault (" LP ")\n"
	"\t85 py::f:/a.py (" JIT ")\n"
	"\t3 py_trampoline_evaluator (" LP ")\n"
	"\t4 PyObject_Vectorcall (" LP ")\n"
	"\t5 _PyEval_EvalFrameDefault.cold (" LP ")\n"
	"\t85 py::<module>:/a.py (" JIT ")\n"
	"\t6 py_trampoline_evaluator (" LP ")\n"
	"\t7 PyEval_EvalCode (" LP ")\n"
	"\t8 Py_RunMain (" LP ")\n"
	"\t9 __libc_start_call_main (" LC ")\n"
	"\t10 _start (" EXE ")\n"
	"\n"
	/* 2: perf-map mode, anonymous addresses named by the session map */
	"python3.13 100/101 10.500000: 1000 cpu-clock: \n"
	"\tffffffff81000000 do_syscall_64 ([kernel.kallsyms])\n"
	"\t11 read (" LC ")\n"
	"\t7f0000001005 [unknown] (/tmp/perf-100.map)\n"
	"\t12 [unknown] (" LP ")\n"
	"\t13 method_vectorcall_O (" LP ")\n"
	"\t7f0000001025 py::stale:/x.py (/tmp/perf-100.map)\n"
	"\t7f0000009999 [unknown] (/tmp/perf-100.map)\n"
	"\n"
	/* 3: no Python frame at all */
	"python3.13 100/100 11.000000: 1000 cpu-clock: \n"
	"\t14 pymain_init (" LP ")\n"
	"\t10 _start (" EXE ")\n"
	"\n"
	/* 4: another process, embedded trampoline, C extension */
	"python3.11 200/200 12.000000: 500 cpu-clock: \n"
	"\t15 fast_loop (/site-packages/ext.cpython-311-x86_64-linux-gnu.so)\n"
	"\t16 [unknown] (/site-packages/ext.cpython-311-x86_64-linux-gnu.so)\n"
	"\t17 tramp_eval (" TR ")\n"
	"\t85 py::g:/b.py (/tmp/jitted-200-3.so)\n"
	"\t18 tramp_eval (" TR ")\n"
	"\t19 _PyEval_EvalFrameDefault (" LP ")\n"
	"\t85 py::f:/a.py (/tmp/jitted-200-2.so)\n"
	"\n"
	/* 5: a forked child: perf names its inherited code after the
	 * parent's map; the child's own map says what is there now */
	"python3.13 300/300 13.000000: 1000 cpu-clock: \n"
	"\t7f0000001005 [unknown] (/tmp/perf-100.map)\n"
	"\t12 [unknown] (" LP ")\n"
	"\t7f0000001025 [unknown] (/tmp/perf-100.map)\n"
	"\t10 _start (" EXE ")\n"
	"\n"
	/* 6: the cyclic GC without symbols under a named allocator */
	"python3.13 100/100 14.000000: 1000 cpu-clock: \n"
	"\t20 [unknown] (" LP ")\n"
	"\t21 [unknown] (" LP ")\n"
	"\t22 [unknown] (" LP ")\n"
	"\t23 PyType_GenericAlloc (" LP ")\n"
	"\t2 _PyEval_EvalFrameDefault (" LP ")\n"
	"\t85 py::f:/a.py (" JIT ")\n"
	"\t10 _start (" EXE ")\n"
	"\n"
	/* 7: a damaged map line, and a damaged name from perf */
	"python3.13 100/100 15.000000: 1000 cpu-clock: \n"
	"\t7f0000002005 [unknown] (/tmp/perf-100.map)\n"
	"\t85 py::pool.p\x08\xc3\xc3py (" JIT ")\n"
	"\t10 _start (" EXE ")\n"
	"\n";

static const char map[] =
	"7f0000001000 10 py::h:/c.py\n"
	"7f0000001020 10 py::f:/a.py\n"
	"7f0000002000 10 py::spl\x01iced:/a.pypy::x:/b.py\n";

static const char child_map[] =
	"7f0000001000 10 py::work:/w.py\n";

static char *collapsed(const struct profile *p)
{
	static const struct fmt_opts o = FMT_OPTS_INIT;
	char *buf = NULL, err[PPR_ERR_LEN];
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	fmt_collapsed_write(p, &o, fp, err, sizeof(err));
	fclose(fp);
	return buf;
}

static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p++;
	}
	return 0;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	fputs(text, fp);
	fclose(fp);
	return chmod(path, mode);
}

static int make_session(char *dir)
{
	unsigned char h[4096];
	FILE *fp;
	char *path;
	int ret = 0;

	if (!mkdtemp(dir))
		return -1;
	memset(h, 0, sizeof(h));
	memcpy(h, "PERFILE2", 8);
	h[40] = 104;		/* data offset */
	h[48] = 200;		/* data size */
	path = xasprintf("%s/perf.data", dir);
	fp = fopen(path, "wb");
	if (!fp || fwrite(h, 1, sizeof(h), fp) != sizeof(h))
		ret = -1;
	if (fp)
		fclose(fp);
	free(path);
	path = xasprintf("%s/meta", dir);
	ret |= write_file(path, "format=1\nmode=jit\ncommand=python3 a.py\n"
			  "event=cpu-clock\nfrequency=999\n"
			  "start_time=100.5\nend_time=103.0\n", 0600);
	free(path);
	path = xasprintf("%s/maps", dir);
	ret |= mkdir(path, 0700);
	free(path);
	path = xasprintf("%s/maps/perf-100.map", dir);
	ret |= write_file(path, map, 0600);
	free(path);
	path = xasprintf("%s/maps/perf-300.map", dir);
	ret |= write_file(path, child_map, 0600);
	free(path);
	path = xasprintf("%s/script.txt", dir);
	ret |= write_file(path, script, 0600);
	free(path);
	path = xasprintf("%s/perf", dir);
	{
		char *sh = xasprintf("#!/bin/sh\nexec cat '%s/script.txt'\n",
				     dir);

		ret |= write_file(path, sh, 0700);
		free(sh);
	}
	setenv("PYPERF_PERF", path, 1);
	free(path);
	return ret;
}

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	return remove(path);
}

static int load(struct profile *p, const char *dir, enum profile_view v,
		char *out_err)
{
	struct profile_filter f = PROFILE_FILTER_INIT;
	char err[PPR_ERR_LEN];
	int ret;

	/* the fake perf (PYPERF_PERF) prints the samples */
	f.reader = PROFILE_READER_PERF_SCRIPT;
	f.view = v;
	ret = profile_load(p, dir, &f, err, sizeof(err));
	if (ret < 0 && out_err)
		snprintf(out_err, PPR_ERR_LEN, "%s", err);
	if (ret < 0)
		printf("# load failed: %s\n", err);
	return ret;
}

static void test_model(void)
{
	struct profile p;
	uint32_t a, b, c, k, u, st[4];
	uint64_t self[8], total[8];
	struct calltree t;
	char *text;

	profile_init(&p);
	a = profile_frame_intern(&p, FRAME_PYTHON, NATIVE_NONE, NULL, "f",
				 "/a.py", NULL);
	b = profile_frame_intern(&p, FRAME_PYTHON, NATIVE_NONE, NULL, "g;x",
				 "/b.py", NULL);
	c = profile_frame_intern(&p, FRAME_NATIVE, NATIVE_SYSTEM, NULL,
				 NULL, NULL, "/lib/libfoo.so.1");
	k = profile_frame_intern(&p, FRAME_KERNEL, NATIVE_NONE, NULL,
				 "do_sys", NULL, "[kernel.kallsyms]");
	u = profile_frame_intern(&p, FRAME_PYTHON, NATIVE_NONE, NULL, "f",
				 "/a.py", NULL);
	TAP_INT(u, a, "frames are interned");
	TAP_INT(p.nr_frames, 4, "four frames");
	TAP_STR(p.frames[a].name, "f (/a.py)", "python display name");
	TAP_STR(p.frames[b].name, "g_x (/b.py)", "';' is replaced");
	TAP_STR(p.frames[c].name, "[libfoo.so.1]", "no symbol: [dso]");
	TAP_STR(frame_kind_name(p.frames[k].kind), "kernel", "kind name");

	st[0] = a; st[1] = b; st[2] = a; st[3] = k;
	profile_stack_add(&p, st, 4, PROFILE_NO_TASK, 3, 300);
	profile_stack_add(&p, st, 2, PROFILE_NO_TASK, 1, 100);
	profile_stack_add(&p, st, 4, PROFILE_NO_TASK, 2, 200);
	st[1] = c;
	profile_stack_add(&p, st, 2, PROFILE_NO_TASK, 4, 400);
	TAP_INT(p.nr_stacks, 3, "stacks are aggregated");
	TAP_INT(p.total_weight, 10, "total samples");
	TAP_INT(p.total_period, 1000, "total period");
	profile_frame_totals(&p, PROFILE_NO_TASK, self, total);
	TAP_INT(total[a], 10, "recursion counted once in total");
	TAP_INT(self[k], 5, "self of the leaf");
	TAP_INT(self[a], 0, "no self for f");
	TAP_INT(total[b], 6, "total of g");
	text = collapsed(&p);
	TAP_OK(has_line(text, "f (/a.py);g_x (/b.py);f (/a.py);do_sys_[k] 5"),
	       "collapsed line with a kernel frame");
	TAP_OK(has_line(text, "f (/a.py);[libfoo.so.1] 4"),
	       "collapsed line with a native frame");
	free(text);

	calltree_init(&t, 1, CALLTREE_BY_ID);
	calltree_add(&t, &p, 0);
	calltree_finish(&t);
	TAP_INT(t.nodes[0].total[0], 10, "tree root total");
	TAP_INT(t.nodes[t.nodes[0].first_child].frame, a, "one root child");
	{
		uint32_t n = t.nodes[0].first_child;
		uint32_t c1 = t.nodes[n].first_child;

		TAP_STR(p.frames[t.nodes[c1].frame].name, "[libfoo.so.1]",
			"children sorted by name");
		TAP_INT(t.nodes[c1].total[0], 4, "child total");
		TAP_INT(t.nodes[t.nodes[c1].next_sibling].total[0], 6,
			"second child total");
	}
	calltree_release(&t);
	calltree_init(&t, 1, CALLTREE_BY_ID | CALLTREE_INVERTED);
	calltree_add(&t, &p, 0);
	calltree_finish(&t);
	TAP_INT(t.nodes[t.nodes[0].first_child].frame, c,
		"inverted tree starts at the leaves");
	calltree_release(&t);

	profile_prune(&p, 0.5);
	text = collapsed(&p);
	TAP_OK(has_line(text, "f (/a.py);g_x (/b.py);f (/a.py);do_sys_[k] 5"),
	       "a stack above the share is kept");
	TAP_OK(has_line(text, "f (/a.py);[small frames] 4"),
	       "smaller stacks end in [small frames]");
	TAP_INT(p.total_weight, 10, "pruning keeps the total");
	free(text);
	profile_release(&p);
}

/*
 * A profile in nanoseconds: weights (beyond 32 bits) add up in stacks,
 * tasks, totals, trees and pruning as counts do, the unit stays, and
 * the table names every unit.
 */
static void test_weights(void)
{
	struct profile p;
	struct calltree t;
	uint32_t st[2], task, i;
	uint64_t self[2], total[2];
	char *text;
	int named = 1;

	profile_init(&p);
	TAP_INT(p.unit, UNIT_SAMPLES, "a new profile weighs samples");
	p.unit = UNIT_NS;
	p.group = PROFILE_BY_THREAD;
	st[0] = profile_frame_intern(&p, FRAME_PYTHON, NATIVE_NONE, NULL,
				     "main", "/a.py", NULL);
	st[1] = profile_frame_intern(&p, FRAME_PYTHON, NATIVE_NONE, NULL,
				     "wait", "/a.py", NULL);
	task = profile_task_intern(&p, 7, 8, "worker");
	profile_stack_add(&p, st, 2, task, 6000000000ULL, 1);
	profile_stack_add(&p, st, 2, task, 1500000000ULL, 1);
	profile_stack_add(&p, st, 1, task, 2500000000ULL, 1);
	TAP_INT(p.nr_stacks, 2, "ns: stacks are aggregated");
	TAP_INT(p.stacks[0].weight, 7500000000ULL, "ns: a stack's weights add");
	TAP_INT(p.total_weight, 10000000000ULL, "ns: the total weight");
	TAP_INT(p.total_period, 3, "ns: the periods stay apart");
	TAP_INT(p.tasks[task].weight, 10000000000ULL, "ns: the task's weight");
	profile_frame_totals(&p, PROFILE_NO_TASK, self, total);
	TAP_OK(self[st[1]] == 7500000000ULL && total[st[0]] == 10000000000ULL,
	       "ns: per-frame self and total weights");
	calltree_init(&t, 1, CALLTREE_BY_ID);
	calltree_add(&t, &p, 0);
	calltree_finish(&t);
	TAP_INT(t.nodes[0].total[0], 10000000000ULL, "ns: the tree's total");
	calltree_release(&t);
	text = collapsed(&p);
	TAP_OK(has_line(text, "worker-7/8;main (/a.py);wait (/a.py) "
			"7500000000") &&
	       has_line(text, "worker-7/8;main (/a.py) 2500000000"),
	       "ns: collapsed lines end in the weights");
	free(text);
	profile_prune(&p, 0.5);
	TAP_OK(p.unit == UNIT_NS && p.total_weight == 10000000000ULL &&
	       p.tasks[0].weight == 10000000000ULL,
	       "ns: pruning keeps the unit and the weights");
	profile_release(&p);

	TAP_STR(weight_unit_info(UNIT_SAMPLES)->name, "samples",
		"unit names: samples");
	TAP_STR(weight_unit_info(UNIT_NS)->name, "nanoseconds",
		"unit names: nanoseconds");
	TAP_STR(weight_unit_info(UNIT_NR)->name, "samples",
		"unit names: out of range reads as samples");
	for (i = 0; i < UNIT_NR; i++) {
		const struct weight_unit_info *w = weight_unit_info(i);

		named &= w->name && w->column && strlen(w->column) <= 9 &&
			w->pprof_type && w->pprof_unit && w->speedscope;
	}
	TAP_OK(named, "unit names: every unit has every name, columns fit");
}

/*
 * Two frames a reader cannot tell apart (one symbol name in two
 * libraries): the flame graphs draw one node, the text tree and
 * pruning (CALLTREE_BY_ID) keep the profile's two frames.
 */
static void test_tree_identity(void)
{
	struct profile p;
	struct calltree t;
	uint32_t st[1];

	profile_init(&p);
	st[0] = profile_frame_intern(&p, FRAME_NATIVE, NATIVE_OTHER, NULL,
				     "helper", NULL, "/opt/a/liba.so");
	profile_stack_add(&p, st, 1, PROFILE_NO_TASK, 2, 0);
	st[0] = profile_frame_intern(&p, FRAME_NATIVE, NATIVE_OTHER, NULL,
				     "helper", NULL, "/opt/b/libb.so");
	profile_stack_add(&p, st, 1, PROFILE_NO_TASK, 3, 0);

	calltree_init(&t, 1, CALLTREE_TASKS);
	calltree_add(&t, &p, 0);
	calltree_finish(&t);
	TAP_INT(t.nr_nodes, 2, "tree by name: one node for both frames");
	TAP_INT(t.nodes[1].total[0], 5, "tree by name: both frames' samples");
	calltree_release(&t);

	calltree_init(&t, 1, CALLTREE_BY_ID);
	calltree_add(&t, &p, 0);
	calltree_finish(&t);
	TAP_INT(t.nr_nodes, 3, "tree by id: a node per frame");
	TAP_INT(t.nodes[t.nodes[0].first_child].frame, 0,
		"tree by id: same names sorted by frame id");
	TAP_INT(t.nodes[t.nodes[0].first_child].total[0], 2,
		"tree by id: the first frame's samples");
	calltree_release(&t);
	profile_release(&p);
}

static void test_load(const char *dir)
{
	struct profile p;
	char *text, err[PPR_ERR_LEN];
	struct profile_filter f = PROFILE_FILTER_INIT;
	pid_t pid = 200, tid = 101;

	f.reader = PROFILE_READER_PERF_SCRIPT;

	if (load(&p, dir, PROFILE_VIEW_MIXED, err) < 0) {
		TAP_OK(0, "load the fake session");
		return;
	}
	TAP_INT(p.total_weight, 7, "seven samples");
	TAP_INT(p.total_period, 6500, "periods summed");
	TAP_STR(p.command, "python3 a.py", "command from meta");
	TAP_INT(p.frequency, 999, "frequency from meta");
	TAP_OK(p.duration > 2.49 && p.duration < 2.51, "duration from meta");
	TAP_INT(p.nr_threads, 4, "four threads");
	TAP_INT(p.quality.judged, 7, "every sample with user frames judged");
	TAP_INT(p.quality.cut[CUT_NONE], 5, "five complete");
	TAP_INT(p.quality.cut[CUT_NOROOT], 2,
		"two without a root (jit mode, perf.data unreadable)");
	TAP_INT(p.quality.unnamed, 3, "three samples show unnamed code");
	TAP_INT(p.quality.bad_names, 2, "two damaged names dropped");
	{
		size_t i;
		int cut_warned = 0, bad_warned = 0, unnamed_warned = 0;

		for (i = 0; i < p.nr_warnings; i++) {
			printf("# warning: %s\n", p.warnings[i]);
			if (strstr(p.warnings[i], "29% of samples (2 of 7) have "
				   "incomplete stacks") &&
			    strstr(p.warnings[i], "[incomplete stack: no root]"))
				cut_warned = 1;
			if (strstr(p.warnings[i], "2 damaged function names"))
				bad_warned = 1;
			if (strstr(p.warnings[i], "43% of samples (3) ran in "
				   "code without symbols"))
				unnamed_warned = 1;
		}
		TAP_OK(cut_warned, "cut stacks warned about, with counts");
		TAP_OK(bad_warned, "damaged names warned about");
		TAP_OK(unnamed_warned, "unnamed code warned about");
	}
	text = collapsed(&p);
	printf("# mixed:\n%s", text);
	TAP_OK(has_line(text, "<module> (/a.py);f (/a.py);_PyObject_Malloc 1"),
	       "mixed: plumbing and start-up folded, native leaf kept");
	TAP_OK(has_line(text, "[incomplete stack: no root];[unknown];"
			"f (/a.py);h (/c.py);read;do_syscall_64_[k] 1"),
	       "mixed: perf-map addresses resolved from the session's map");
	TAP_OK(!strstr(text, "stale"),
	       "the session's map wins over what perf found in /tmp");
	TAP_OK(has_line(text, "_start;pymain_init 1"),
		"mixed: a stack without Python keeps its native frames");
	TAP_OK(has_line(text, "[incomplete stack: no root];f (/a.py);"
			"g (/b.py);[ext.cpython-311-x86_64-linux-gnu.so];"
			"fast_loop 1"),
	       "mixed: embedded trampoline folded, extension kept");
	TAP_OK(has_line(text, "f (/a.py);work (/w.py) 1"),
	       "a forked child's own map comes before its parent's");
	TAP_OK(has_line(text, "f (/a.py);PyType_GenericAlloc;"
			"[libpython3.13.so.1.0] 1"),
	       "unnamed code keeps its time, one frame for the run");
	TAP_OK(has_line(text, "_start;[jitted-100-1.so];[unknown] 1"),
	       "damaged names become unnamed frames");
	TAP_OK(!memchr(text, '\x01', strlen(text)) &&
	       !memchr(text, '\x08', strlen(text)),
	       "no control bytes in any name");
	free(text);
	profile_release(&p);

	load(&p, dir, PROFILE_VIEW_PYTHON, NULL);
	text = collapsed(&p);
	printf("# python:\n%s", text);
	TAP_OK(has_line(text, "<module> (/a.py);f (/a.py) 1"),
	       "python: only Python frames");
	TAP_OK(has_line(text, "[incomplete stack: no root];f (/a.py);"
			"h (/c.py) 1"),
	       "python: map frames");
	TAP_OK(has_line(text, "[native] 2"), "python: [native] placeholder");
	free(text);
	profile_release(&p);

	load(&p, dir, PROFILE_VIEW_ALL, NULL);
	text = collapsed(&p);
	printf("# all:\n%s", text);
	TAP_OK(has_line(text, "_start;__libc_start_call_main;Py_RunMain;"
			"PyEval_EvalCode;py_trampoline_evaluator;<module> "
			"(/a.py);_PyEval_EvalFrameDefault.cold;"
			"PyObject_Vectorcall;py_trampoline_evaluator;f (/a.py);"
			"_PyEval_EvalFrameDefault;_PyObject_Malloc 1"),
	       "all: every frame");
	TAP_OK(has_line(text, "[incomplete stack: no root];[unknown];"
			"f (/a.py);method_vectorcall_O;"
			"[libpython3.13.so.1.0];h (/c.py);read;"
			"do_syscall_64_[k] 1"),
	       "all: an address no map names stays [unknown]");
	free(text);
	profile_release(&p);

	f.pids = &pid;
	f.nr_pids = 1;
	f.group = PROFILE_BY_PROCESS;
	TAP_INT(profile_load(&p, dir, &f, err, sizeof(err)), 0, "--pid");
	TAP_INT(p.total_weight, 1, "--pid keeps one sample");
	TAP_INT(p.dropped, 6, "six dropped");
	TAP_INT(p.nr_tasks, 1, "one task per process");
	TAP_STR(p.tasks[0].comm, "python3.11", "task comm");
	profile_release(&p);

	f.pids = NULL;
	f.nr_pids = 0;
	f.tids = &tid;
	f.nr_tids = 1;
	f.group = PROFILE_BY_THREAD;
	TAP_INT(profile_load(&p, dir, &f, err, sizeof(err)), 0, "--tid");
	TAP_INT(p.total_weight, 1, "--tid keeps one sample");
	TAP_INT(p.nr_tasks, 1, "one task");
	TAP_INT(p.tasks[0].tid, 101, "the thread");
	profile_release(&p);

	f.tids = NULL;
	f.nr_tids = 0;
	f.time_from = 0.4;
	f.time_to = 1.2;
	TAP_INT(profile_load(&p, dir, &f, err, sizeof(err)), 0, "--time");
	TAP_INT(p.total_weight, 2, "the window keeps two samples");
	TAP_INT(p.quality.judged, 2, "only kept samples are judged");
	profile_release(&p);
}

/*
 * A perf.data the loader can read: one event (ip, tid), 3 samples, and
 * the kernel's and perf's records of 4 lost samples (the same loss).
 */
static int write_lossy_perf_data(const char *dir)
{
	unsigned char f[104 + 128 + 8 + 3 * 24 + 32 + 16];
	uint64_t v;
	size_t o = 104 + 128 + 8, i;
	char *path = xasprintf("%s/perf.data", dir);
	FILE *fp;
	int ret = 0;

#define PUT64(at, x) (v = (x), memcpy(f + (at), &v, 8))
	memset(f, 0, sizeof(f));
	memcpy(f, "PERFILE2", 8);
	PUT64(8, 104);			/* header size */
	PUT64(16, 128);			/* attr entry: attr + ids section */
	PUT64(24, 104);
	PUT64(32, 128);
	PUT64(40, o);			/* data */
	PUT64(48, sizeof(f) - o);
	f[104 + 4] = 112;		/* attr.size */
	PUT64(104 + 24, 3);		/* sample_type: IP | TID */
	PUT64(104 + 112, 104 + 128);	/* ids: one id */
	PUT64(104 + 120, 8);
	PUT64(104 + 128, 1);
	for (i = 0; i < 3; i++, o += 24) {
		PUT64(o, 9 | (24ULL << 48));	/* PERF_RECORD_SAMPLE */
		PUT64(o + 8, 0x1000);
		PUT64(o + 16, 100 | (100ULL << 32));
	}
	PUT64(o, 2 | (32ULL << 48));		/* PERF_RECORD_LOST */
	PUT64(o + 8, 1);
	PUT64(o + 16, 4);
	o += 32;
	PUT64(o, 13 | (16ULL << 48));		/* PERF_RECORD_LOST_SAMPLES */
	PUT64(o + 8, 4);
#undef PUT64
	fp = fopen(path, "wb");
	if (!fp || fwrite(f, 1, sizeof(f), fp) != sizeof(f))
		ret = -1;
	if (fp && fclose(fp))
		ret = -1;
	free(path);
	return ret;
}

/* Samples perf lost are said, with their share of all it took. */
static void test_lost(const char *dir)
{
	struct profile p;
	char err[PPR_ERR_LEN], *cache = xasprintf("%s/cache", dir);
	size_t i;
	int warned = 0;

	nftw(cache, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(cache);
	if (write_lossy_perf_data(dir) < 0 ||
	    load(&p, dir, PROFILE_VIEW_MIXED, err) < 0) {
		TAP_OK(0, "load the session with lost samples");
		return;
	}
	for (i = 0; i < p.nr_warnings; i++)
		if (strstr(p.warnings[i], "perf lost 4 of 7 samples (57%): it "
			   "could not keep up"))
			warned = 1;
	TAP_OK(warned, "perf's lost samples are counted once, and said");
	TAP_INT(p.total_weight, 7, "the samples perf script shows are kept");
	profile_release(&p);
}

int main(void)
{
	char dir[] = "t-profile.XXXXXX";
	char err[PPR_ERR_LEN];
	struct profile p;

	test_model();
	test_weights();
	test_tree_identity();
	if (make_session(dir) < 0) {
		TAP_OK(0, "make the fake session");
		return tap_done();
	}
	test_load(dir);
	test_lost(dir);

	TAP_OK(profile_load(&p, "/nonexistent", NULL, err, sizeof(err)) < 0,
	       "a missing session fails");
	TAP_OK(strstr(err, "cannot open session '/nonexistent'") != NULL,
	       "with a message: %s", err);
	profile_release(&p);
	{
		static const char *const files[] = {
			"perf.data", "meta", "maps/perf-100.map",
			"maps/perf-300.map", "script.txt",
			"perf"
		};
		size_t i;
		char *path;

		for (i = 0; i < ARRAY_SIZE(files); i++) {
			path = xasprintf("%s/%s", dir, files[i]);
			unlink(path);
			free(path);
		}
		/* and whatever the loader kept in the session (a cache) */
		nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	}
	return tap_done();
}
