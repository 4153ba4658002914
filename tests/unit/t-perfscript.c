/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests of lib/report/src_perfscript_parse.c. */
#include "compat.h"
#include "alloc.h"
#include "report/src_perfscript_parse.h"
#include "tap.h"

static const char stream[] =
	"python3.13 15567/15567   453.958311:    1001001 cpu-clock: \n"
	"\tffffffff815e49be do_fault ([kernel.kallsyms])\n"
	"\t            e4ed _dl_relocate_object (/usr/lib/ld-linux.so.2)\n"
	"\n"
	"Thread-1 (work) 15567/15570   453.959429:    1001001 cpu-clock: \n"
	"\t          16b354 allocate_from_new_pool (/lib/libpython3.13.so)\n"
	"\t  85 py::Foo.bar:/src/my (copy).py (/tmp/jitted-15567-44.so)\n"
	"\t    7fc51fde8d56 [unknown] (/tmp/perf-17796.map)\n"
	"\t    7fc51fde8d60 [unknown] ([unknown])\n"
	"\t    7fc51fde8d70 operator()(int, char) const (/usr/lib/libx.so)\n"
	"\tnot a frame\n"
	"\n"
	"garbage header line\n"
	"\tffffffff815e49be skipped ([kernel.kallsyms])\n"
	"\n"
	"perf 9/9 1.5: 7 page-faults: \n"
	"\t1 a (b)\n"
	"\n"
	"nocg 10/11 2.000000001: 3 cpu-clock: 4011a0 main (/bin/x)\n"
	"nocg 10/11 2.5: 3 cpu-clock: 4011a0 main (/bin/x)\n";

struct got {
	int n;
	char comm[8][32];
	pid_t pid[8], tid[8];
	uint64_t time[8], period[8];
	size_t frames[8];
	char sym[8][8][48];
	char dso[8][8][48];
	uint64_t ip[8][8];
};

static void copy(char *dst, size_t len, struct sample_str s)
{
	snprintf(dst, len, "%.*s", (int)s.len, s.s);
}

static int on_sample(void *data, const struct sample *s)
{
	struct got *g = data;
	size_t i;

	if (g->n >= 8)
		return 0;
	copy(g->comm[g->n], sizeof(g->comm[0]), s->comm);
	g->pid[g->n] = s->pid;
	g->tid[g->n] = s->tid;
	g->time[g->n] = s->time_ns;
	g->period[g->n] = s->period;
	g->frames[g->n] = s->nr_frames;
	for (i = 0; i < s->nr_frames && i < 8; i++) {
		copy(g->sym[g->n][i], sizeof(g->sym[0][0]), s->frames[i].sym);
		copy(g->dso[g->n][i], sizeof(g->dso[0][0]), s->frames[i].dso);
		g->ip[g->n][i] = s->frames[i].ip;
	}
	g->n++;
	return 0;
}

static void check(struct got *g, const char *how)
{
	TAP_INT(g->n, 5, "%s: five samples", how);
	TAP_STR(g->comm[0], "python3.13", "%s: comm", how);
	TAP_INT(g->pid[0], 15567, "%s: pid", how);
	TAP_INT(g->time[0], 453958311000ULL, "%s: time in ns", how);
	TAP_INT(g->period[0], 1001001, "%s: period", how);
	TAP_INT(g->frames[0], 2, "%s: two frames", how);
	TAP_STR(g->sym[0][0], "do_fault", "%s: leaf symbol", how);
	TAP_STR(g->dso[0][0], "[kernel.kallsyms]", "%s: kernel dso", how);
	TAP_INT(g->ip[0][0], 0xffffffff815e49beULL, "%s: ip", how);
	TAP_STR(g->comm[1], "Thread-1 (work)", "%s: comm with blanks", how);
	TAP_INT(g->tid[1], 15570, "%s: tid", how);
	TAP_INT(g->frames[1], 5, "%s: bad frame line skipped", how);
	TAP_STR(g->sym[1][1], "py::Foo.bar:/src/my (copy).py",
		"%s: symbol with parentheses", how);
	TAP_STR(g->dso[1][1], "/tmp/jitted-15567-44.so", "%s: jitted dso",
		how);
	TAP_STR(g->sym[1][2], "[unknown]", "%s: unknown symbol", how);
	TAP_STR(g->dso[1][2], "/tmp/perf-17796.map", "%s: map dso", how);
	TAP_STR(g->dso[1][3], "[unknown]", "%s: unknown dso", how);
	TAP_STR(g->sym[1][4], "operator()(int, char) const",
		"%s: C++ symbol", how);
	TAP_STR(g->comm[2], "perf", "%s: after a bad sample", how);
	TAP_INT(g->time[2], 1500000000ULL, "%s: short fraction", how);
	TAP_INT(g->period[2], 7, "%s: page-faults period", how);
	TAP_INT(g->frames[3], 1, "%s: frame on the header line", how);
	TAP_STR(g->sym[3][0], "main", "%s: inline frame symbol", how);
	TAP_INT(g->time[3], 2000000001ULL, "%s: 9-digit fraction", how);
	TAP_INT(g->time[4], 2500000000ULL,
		"%s: header ends the previous sample", how);
}

/* The lines of text: newlines, plus a last line without one. */
static uint64_t count_lines(const char *text, size_t len)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

/*
 * A sample split across two reads is parsed again from its header when
 * the rest arrives: its lines (and its bad lines) count once.
 */
static void test_split_counts(void)
{
	static const char two[] =
		"p 1/1 1.0: 1 cpu-clock: \n"
		"\t1 a (b)\n"
		"\tnot a frame\n"
		"\t2 c (d)\n"
		"\n"
		"bad header\n"
		"\t3 e (f)\n"
		"\n";
	struct perfscript ps;
	size_t len = sizeof(two) - 1, cut;
	size_t wrong_lines = 0, wrong_bad = 0, wrong_samples = 0;

	for (cut = 1; cut < len; cut++) {
		perfscript_init(&ps, NULL, NULL);
		perfscript_feed(&ps, two, cut);
		perfscript_feed(&ps, two + cut, len - cut);
		perfscript_finish(&ps);
		wrong_lines += ps.lines != 8;
		wrong_bad += ps.bad_lines != 2;
		wrong_samples += ps.samples != 1;
		perfscript_release(&ps);
	}
	TAP_INT(wrong_lines, 0, "two reads, any split: 8 lines counted");
	TAP_INT(wrong_bad, 0, "two reads, any split: 2 bad lines counted");
	TAP_INT(wrong_samples, 0, "two reads, any split: 1 sample");
}

/* A stream with --show-task-events, as perf 6.1 prints it (real lines). */
static const char task_stream[] =
	"perf-exec     0/0         0.000000: PERF_RECORD_COMM: perf-exec:1273/1273\n"
	"pyperf-run  1273/1273    678.682938: PERF_RECORD_COMM exec: pyperf-run:1273/1273\n"
	"pyperf-run  1273/1273    678.688793: PERF_RECORD_FORK(1275:1275):(1273:1273)\n"
	"pyperf-run  1275/1275    678.689001: 1001001 cpu-clock:\n"
	"\t    7f00 spawn_start (/usr/bin/pyperf-run)\n"
	"\n"
	"my prog: x  1275/1275    678.690000: PERF_RECORD_COMM exec: my prog: x:1275/1275\n"
	"python3  1275/1275    678.691000: 1001001 cpu-clock:\n"
	"\t    4000 main (/usr/bin/python3.11)\n"
	"\n"
	"python3  1377/1377    679.000000: PERF_RECORD_EXIT(1377:1377):(1275:1275)\n";

struct tasks_got {
	int n, samples;
	struct ps_task t[8];
};

static int count_sample(void *data, const struct sample *s)
{
	((struct tasks_got *)data)->samples++;
	return 0;
}

static void on_task(void *data, const struct ps_task *t)
{
	struct tasks_got *g = data;

	if (g->n < 8)
		g->t[g->n] = *t;
	g->n++;
}

static void test_task_events(void)
{
	struct perfscript ps;
	struct tasks_got g;
	struct ps_task t;
	size_t i, len = sizeof(task_stream) - 1;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		memset(&g, 0, sizeof(g));
		perfscript_init(&ps, count_sample, &g);
		ps.task_cb = on_task;
		if (pass)
			for (i = 0; i < len; i++)
				perfscript_feed(&ps, task_stream + i, 1);
		else
			perfscript_feed(&ps, task_stream, len);
		perfscript_finish(&ps);
		TAP_INT(g.samples, 2, "task events, %s: the two samples", pass ? "bytewise" : "whole");
		TAP_INT(ps.bad_lines, 0, "  no bad line");
		TAP_INT(ps.tasks, 5, "  five task records");
		TAP_INT(g.n, 4, "  four for the callback (a rename is not)");
		TAP_INT(g.t[0].kind, PS_TASK_EXEC, "  the helper's exec");
		TAP_INT(g.t[1].kind, PS_TASK_FORK, "  a fork");
		TAP_OK(g.t[1].pid == 1275 && g.t[1].tid == 1275 &&
		       g.t[1].ppid == 1273 && g.t[1].ptid == 1273,
		       "  its child and parent");
		TAP_OK(g.t[2].kind == PS_TASK_EXEC && g.t[2].tid == 1275,
		       "  an exec to a name with blanks and colons");
		TAP_OK(g.t[3].kind == PS_TASK_EXIT && g.t[3].tid == 1377 &&
		       g.t[3].ptid == 1275, "  an exit");
		perfscript_release(&ps);
	}
	TAP_OK(perfscript_parse_task("x 1/2 3.4: 5 e: ", 16, &t) < 0,
	       "a sample header is no task record");
	TAP_OK(perfscript_parse_task("x 1/2 PERF_RECORD_FORK(3:4", 26, &t) == 0 &&
	       t.kind == PS_TASK_OTHER, "a torn fork record is no fork");
}

int main(void)
{
	struct perfscript ps;
	struct got *g = xcalloc(1, sizeof(*g));
	struct sample s;
	struct sample_frame f;
	size_t i, len = sizeof(stream) - 1;

	/* all at once */
	perfscript_init(&ps, on_sample, g);
	TAP_INT(perfscript_feed(&ps, stream, len), 0, "feed");
	TAP_INT(perfscript_finish(&ps), 0, "finish");
	check(g, "whole");
	TAP_INT(ps.bad_lines, 2, "bad lines counted");
	TAP_INT(ps.lines, count_lines(stream, len), "lines counted");
	perfscript_release(&ps);

	/* one byte at a time: samples span every possible boundary */
	memset(g, 0, sizeof(*g));
	perfscript_init(&ps, on_sample, g);
	for (i = 0; i < len; i++)
		perfscript_feed(&ps, stream + i, 1);
	perfscript_finish(&ps);
	check(g, "bytewise");
	TAP_INT(ps.bad_lines, 2, "bytewise: each bad line counted once");
	TAP_INT(ps.lines, count_lines(stream, len),
		"bytewise: each line counted once");
	perfscript_release(&ps);

	/* odd chunk sizes */
	memset(g, 0, sizeof(*g));
	perfscript_init(&ps, on_sample, g);
	for (i = 0; i < len; i += 7)
		perfscript_feed(&ps, stream + i, i + 7 > len ? len - i : 7);
	perfscript_finish(&ps);
	check(g, "chunks");
	TAP_INT(ps.bad_lines, 2, "chunks: each bad line counted once");
	TAP_INT(ps.lines, count_lines(stream, len),
		"chunks: each line counted once");
	perfscript_release(&ps);
	test_split_counts();
	test_task_events();

	TAP_INT(perfscript_parse_header("x 1/2 3.4: 5 e: ", 16, &s), 0,
		"minimal header");
	TAP_INT(perfscript_parse_header("a b 1/2 7 e: ", 13, &s), 0,
		"header without time");
	TAP_INT(s.period, 7, "period without time");
	TAP_INT(s.time_ns, 0, "no time");
	TAP_INT(s.comm.len, 3, "comm with a blank");
	TAP_INT(perfscript_parse_header("1/2 9/10 e: ", 12, &s), 0,
		"comm that looks like pid/tid");
	TAP_INT(s.pid, 9, "the pid after it");
	TAP_OK(perfscript_parse_header("x 1/2 3.4 5 e: ", 15, &s) < 0,
	       "time without colon");
	TAP_OK(perfscript_parse_header("x a/2 3.4: 5 e: ", 16, &s) < 0,
	       "bad pid");
	TAP_OK(perfscript_parse_header("", 0, &s) < 0, "empty header");
	TAP_OK(perfscript_parse_frame("\t12 f (", 7, &f) < 0,
	       "unbalanced dso");
	TAP_OK(perfscript_parse_frame("\tzz f (x)", 9, &f) < 0, "bad ip");
	TAP_OK(perfscript_parse_frame("\t11112222333344445 f (x)", 24,
				      &f) < 0, "ip too long");
	TAP_INT(perfscript_parse_frame("\t1f  (x)", 8, &f), 0,
		"empty symbol");
	TAP_STR(f.sym.len == 9 ? "[unknown]" : "?", "[unknown]",
		"empty symbol becomes [unknown]");

	/* a callback stops the parse */
	free(g);
	return tap_done();
}
